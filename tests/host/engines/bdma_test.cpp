/* SPDX-License-Identifier: MIT */
/*
 * BDMA against the reference: lines, surfaces and strides (padded, packed,
 * overlapping reads, ignored strides), memmove semantics on overlap, copies
 * into, out of and within SRAM, counters and invalid programming. Whole
 * regions around the copies are compared, so stray writes show.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>

#include "engine_util.h"

using namespace vdla_etest;
using namespace vdla_ref;

namespace {

constexpr unsigned kBdma = VDLA_ENGINE_BDMA;

/* A stretch of device memory whose expected contents the test tracks. */
struct Region {
	uint64_t addr;
	std::vector<uint8_t> expect;
};

/* Fills [addr, addr + bytes) with random bytes and starts tracking it. */
Region randomRegion(DeviceHarness &dev, Rng &rng, uint64_t addr, uint64_t bytes)
{
	uint8_t *p = hostPtr(dev, addr);
	for (uint64_t i = 0; i < bytes; i++)
		p[i] = uint8_t(rng.uniform(0, 255));
	return { addr, std::vector<uint8_t>(p, p + bytes) };
}

/* Applies the reference's writes to the expected contents of @regions. */
void applyReference(DeviceHarness &dev, const BdmaParams &p, std::vector<Region> &regions)
{
	auto writes = bdma(p, [&](uint64_t a) { return *hostPtr(dev, a); });
	for (auto &w : writes) {
		bool found = false;
		for (Region &r : regions)
			if (w.first >= r.addr && w.first < r.addr + r.expect.size()) {
				r.expect[w.first - r.addr] = w.second;
				found = true;
			}
		ASSERT_TRUE(found) << "test bug: write outside the tracked regions";
	}
}

::testing::AssertionResult regionsMatch(DeviceHarness &dev, const std::vector<Region> &regions)
{
	for (const Region &r : regions) {
		const uint8_t *p = hostPtr(dev, r.addr);
		size_t bad = 0, first = 0;
		for (size_t i = 0; i < r.expect.size(); i++)
			if (p[i] != r.expect[i] && !bad++)
				first = i;
		if (bad)
			return ::testing::AssertionFailure()
				<< bad << " bytes differ in the region at " << hex(r.addr)
				<< "; first at +" << hex(first) << ": expected "
				<< hex(r.expect[first]) << ", device " << hex(p[first]);
	}
	return ::testing::AssertionSuccess();
}

uint64_t span(uint32_t lineBytes, uint32_t lines, uint32_t lineStride, uint32_t surfaces,
	uint32_t surfStride)
{
	return lineBytes + (lines > 1 ? uint64_t(lines - 1) * lineStride : 0)
		+ (surfaces > 1 ? uint64_t(surfaces - 1) * surfStride : 0);
}

uint64_t totalBytes(const BdmaParams &p)
{
	return uint64_t(p.lineBytes) * p.lines * p.surfaces;
}

struct BdmaCase {
	const char *name;
	uint32_t lineBytes, lines, surfaces;
	uint32_t srcLineStride, dstLineStride, srcSurfStride, dstSurfStride;
};

const BdmaCase kCases[] = {
	{ "OneByte", 1, 1, 1, 0, 0, 0, 0 },
	{ "OneLineOf4KiB", 4096, 1, 1, 0, 0, 0, 0 },
	{ "OddLinesIntoPaddedLines", 37, 9, 1, 64, 40, 0, 0 },
	{ "PackedLinesIntoPaddedLines", 16, 8, 1, 16, 24, 0, 0 },
	{ "PaddedLinesIntoPackedLines", 24, 7, 1, 31, 24, 0, 0 },
	{ "SurfacesOfLines", 16, 5, 3, 20, 16, 128, 80 },
	{ "SurfacesOfOneLineIgnoreLineStride", 33, 1, 7, 0xdeadbeef, 0, 40, 33 },
	{ "OneSurfaceIgnoresSurfaceStride", 10, 4, 1, 12, 10, 0xffffffff, 0 },
	{ "OverlappingSourceLines", 8, 6, 1, 4, 8, 0, 0 },
	{ "SourceLineStrideZeroRepeatsALine", 12, 5, 1, 0, 12, 0, 0 },
	{ "SurfaceStrideSmallerThanSurface", 10, 3, 4, 10, 12, 15, 40 },
	{ "LargeLinesAndSurfaces", 65536, 4, 2, 65600, 65536, 4 * 65600, 4 * 65536 },
};

class BdmaSweep : public ::testing::TestWithParam<BdmaCase>
{
};

TEST_P(BdmaSweep, MatchesReferenceAndTouchesNothingElse)
{
	const BdmaCase &k = GetParam();
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(k.lineBytes * 131 + k.lines * 7 + k.surfaces);
	BdmaParams p;
	p.lineBytes = k.lineBytes, p.lines = k.lines, p.surfaces = k.surfaces;
	p.srcLineStride = k.srcLineStride, p.dstLineStride = k.dstLineStride;
	p.srcSurfStride = k.srcSurfStride, p.dstSurfStride = k.dstSurfStride;
	uint64_t srcSpan = span(p.lineBytes, p.lines, p.srcLineStride, p.surfaces, p.srcSurfStride);
	uint64_t dstSpan = span(p.lineBytes, p.lines, p.dstLineStride, p.surfaces, p.dstSurfStride);
	/* Source and destination apart, each with margins in the region. */
	uint64_t bytes = srcSpan + dstSpan + 4 * kMargin;
	uint64_t base = dev.alloc(bytes);
	std::vector<Region> regions = { randomRegion(dev, rng, base, bytes) };
	p.src = base + kMargin + 3; /* unaligned on purpose */
	p.dst = base + srcSpan + 3 * kMargin - 1;
	applyReference(dev, p, regions);

	programBdma(dev, 0, p);
	OpResult r = runGroup(dev, kBdma, 0);
	ASSERT_TRUE(succeeded(r, kBdma, 0));
	EXPECT_TRUE(regionsMatch(dev, regions));
	GroupStats s = dev.stats(kBdma, 0);
	EXPECT_EQ(s.macs, 0u);
	EXPECT_EQ(s.bytesRead, totalBytes(p));
	EXPECT_EQ(s.bytesWritten, totalBytes(p));
}

INSTANTIATE_TEST_SUITE_P(Bdma, BdmaSweep, ::testing::ValuesIn(kCases),
	[](const ::testing::TestParamInfo<BdmaCase> &info) {
		return std::string(info.param.name);
	});

/* Overlapping source and destination: the whole source is read first. */
struct OverlapCase {
	const char *name;
	int64_t dstMinusSrc;
	uint32_t lineBytes, lines, srcLineStride, dstLineStride;
	uint32_t surfaces, srcSurfStride, dstSurfStride;
};

const OverlapCase kOverlap[] = {
	{ "ForwardWithinALine", 3, 100, 1, 0, 0, 1, 0, 0 },
	{ "BackwardWithinALine", -5, 100, 1, 0, 0, 1, 0, 0 },
	{ "OntoItself", 0, 64, 4, 80, 80, 1, 0, 0 },
	{ "ForwardAcrossLines", 30, 20, 8, 24, 24, 1, 0, 0 },
	{ "BackwardAcrossLinesWithOtherStrides", -17, 20, 8, 24, 21, 1, 0, 0 },
	{ "SurfacesShiftedByOneLine", 40, 16, 4, 40, 40, 3, 200, 160 },
	{ "PackingLinesInPlace", 0, 10, 6, 16, 10, 2, 96, 60 },
};

class BdmaOverlap : public ::testing::TestWithParam<OverlapCase>
{
};

TEST_P(BdmaOverlap, BehavesAsMemmove)
{
	const OverlapCase &k = GetParam();
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(uint64_t(k.dstMinusSrc + 1000) * 17 + k.lines);
	BdmaParams p;
	p.lineBytes = k.lineBytes, p.lines = k.lines, p.surfaces = k.surfaces;
	p.srcLineStride = k.srcLineStride, p.dstLineStride = k.dstLineStride;
	p.srcSurfStride = k.srcSurfStride, p.dstSurfStride = k.dstSurfStride;
	uint64_t bytes = 4096;
	uint64_t base = dev.alloc(bytes);
	std::vector<Region> regions = { randomRegion(dev, rng, base, bytes) };
	p.src = base + 512;
	p.dst = uint64_t(int64_t(p.src) + k.dstMinusSrc);
	applyReference(dev, p, regions);

	programBdma(dev, 0, p);
	ASSERT_TRUE(succeeded(runGroup(dev, kBdma, 0), kBdma, 0));
	EXPECT_TRUE(regionsMatch(dev, regions));
}

INSTANTIATE_TEST_SUITE_P(Bdma, BdmaOverlap, ::testing::ValuesIn(kOverlap),
	[](const ::testing::TestParamInfo<OverlapCase> &info) {
		return std::string(info.param.name);
	});

/* SRAM: device address SRAM_BASE + offset, host view DeviceHarness::sram(). */
struct SramCase {
	const char *name;
	bool srcSram, dstSram;
	uint64_t srcOffset, dstOffset; /* SRAM offsets, or from a guest region */
};

const SramCase kSram[] = {
	{ "MemoryToSram", false, true, 64, 0x1000 },
	{ "SramToMemory", true, false, 0x3000, 64 },
	{ "SramToSram", true, true, 0x100, 0x8000 },
	{ "SramToSramOverlapping", true, true, 0x200, 0x230 },
	/* The destination spans 50 + 2 * 50 + 200 = 350 bytes: up to the end. */
	{ "MemoryToTheLastBytesOfSram", false, true, 64, VDLA_SRAM_DEFAULT_SIZE - 350 },
};

class BdmaSram : public ::testing::TestWithParam<SramCase>
{
};

TEST_P(BdmaSram, CopiesThroughSram)
{
	const SramCase &k = GetParam();
	DeviceHarness dev(nullptr, kGuestBytes);
	ASSERT_EQ(dev.read(VDLA_REG_SRAM_SIZE), VDLA_SRAM_DEFAULT_SIZE);
	Rng rng(k.srcOffset * 3 + k.dstOffset);
	BdmaParams p;
	p.lineBytes = 50, p.lines = 3, p.surfaces = 2;
	p.srcLineStride = 60, p.srcSurfStride = 200;
	p.dstLineStride = 50, p.dstSurfStride = 150 + 50;
	uint64_t guestBytes = 8192;
	uint64_t guest = dev.alloc(guestBytes);
	std::vector<Region> regions = {
		randomRegion(dev, rng, guest, guestBytes),
		randomRegion(dev, rng, DeviceHarness::sramAddr(0), VDLA_SRAM_DEFAULT_SIZE),
	};
	p.src = k.srcSram ? DeviceHarness::sramAddr(k.srcOffset) : guest + k.srcOffset;
	p.dst = k.dstSram ? DeviceHarness::sramAddr(k.dstOffset) : guest + k.dstOffset;
	applyReference(dev, p, regions);

	programBdma(dev, 0, p);
	ASSERT_TRUE(succeeded(runGroup(dev, kBdma, 0), kBdma, 0));
	EXPECT_TRUE(regionsMatch(dev, regions));
	GroupStats s = dev.stats(kBdma, 0);
	EXPECT_EQ(s.bytesRead, totalBytes(p));
	EXPECT_EQ(s.bytesWritten, totalBytes(p));
}

INSTANTIATE_TEST_SUITE_P(Bdma, BdmaSram, ::testing::ValuesIn(kSram),
	[](const ::testing::TestParamInfo<SramCase> &info) {
		return std::string(info.param.name);
	});

/* ---- Invalid programming ----------------------------------------------- */

struct BdmaInvalidCase {
	const char *name;
	uint32_t error;
	uint32_t cfg;
	uint32_t lineBytes, lines, srcLineStride, dstLineStride;
	uint32_t surfaces, srcSurfStride, dstSurfStride;
};

const BdmaInvalidCase kInvalid[] = {
	{ "CfgNotZero", VDLA_ERROR_PARAM, 1, 64, 2, 64, 64, 1, 0, 0 },
	{ "CfgHighBit", VDLA_ERROR_PARAM, 0x80000000u, 64, 2, 64, 64, 1, 0, 0 },
	{ "TotalBytesOver2GiB", VDLA_ERROR_LIMIT, 0, 0x80000000u, 2, 0, 0, 1, 0, 0 },
	{ "SourceExtentOver2GiB", VDLA_ERROR_LIMIT, 0, 16, 2, 0x80000000u, 16, 1, 0, 0 },
	{ "DestinationExtentOver2GiB", VDLA_ERROR_LIMIT, 0, 16, 2, 16, 16, 2, 32, 0x80000000u },
};

class BdmaInvalid : public ::testing::TestWithParam<BdmaInvalidCase>
{
};

TEST_P(BdmaInvalid, EndsInErrorAndWritesNothing)
{
	const BdmaInvalidCase &k = GetParam();
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(71);
	uint64_t src = dev.alloc(4096);
	randomRegion(dev, rng, src, 4096);
	const uint64_t outBytes = 16 << 10;
	uint64_t out = allocCanary(dev, outBytes);
	BdmaParams p;
	p.src = src;
	p.dst = out;
	p.lineBytes = k.lineBytes, p.lines = k.lines, p.surfaces = k.surfaces;
	p.srcLineStride = k.srcLineStride, p.dstLineStride = k.dstLineStride;
	p.srcSurfStride = k.srcSurfStride, p.dstSurfStride = k.dstSurfStride;
	programBdma(dev, 0, p, 0, k.cfg);
	OpResult r = runGroup(dev, kBdma, 0);
	EXPECT_TRUE(failedWith(r, kBdma, 0, k.error));
	EXPECT_TRUE(regionUntouched(dev, out - kMargin, outBytes + 2 * kMargin));
	EXPECT_EQ(dev.stats(kBdma, 0).bytesWritten, 0u);
}

INSTANTIATE_TEST_SUITE_P(Bdma, BdmaInvalid, ::testing::ValuesIn(kInvalid),
	[](const ::testing::TestParamInfo<BdmaInvalidCase> &info) {
		return std::string(info.param.name);
	});

} /* namespace */
