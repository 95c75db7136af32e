/* SPDX-License-Identifier: MIT */
/*
 * Device SRAM against docs/hw-spec.md ("SRAM", "Reset", "PCI function"):
 * engines reach it at SRAM_BASE + offset, the host sees the same bytes
 * (BAR2, DeviceHarness::sram()), it is never translated, it keeps its
 * contents over soft reset, and its size comes from the sram-size property.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "device_test_util.h"

namespace vdla_test {
namespace {

class Sram : public ::testing::Test
{
protected:
	Sram()
		: dev_(nullptr, kDeviceTestGuestBytes)
	{
	}

	DeviceHarness dev_;
};

TEST_F(Sram, MemoryToSramToMemoryRoundTripKeepsEveryByte)
{
	constexpr uint32_t kBytes = 40000;
	constexpr uint64_t kSramOffset = 0x1234;
	uint64_t src = dev_.alloc(kBytes);
	uint64_t dst = dev_.alloc(kBytes + 64);
	fillPattern(dev_.guest(src), kBytes, 5);
	std::memset(dev_.guest(dst), kCanary, kBytes + 64);

	const uint64_t sram = DeviceHarness::sramAddr(kSramOffset);
	ASSERT_EQ(runBdma(dev_, 0, BdmaOp::linear(src, sram, kBytes)), unsigned(VDLA_GROUP_DONE));
	/* The host sees the bytes the engine wrote, at the same offset. */
	EXPECT_EQ(std::memcmp(dev_.sram() + kSramOffset, dev_.guest(src), kBytes), 0);
	EXPECT_EQ(dev_.sram()[kSramOffset - 1], 0u);
	EXPECT_EQ(dev_.sram()[kSramOffset + kBytes], 0u);

	ASSERT_EQ(runBdma(dev_, 1, BdmaOp::linear(sram, dst, kBytes)), unsigned(VDLA_GROUP_DONE));
	EXPECT_EQ(std::memcmp(dev_.guest(dst), dev_.guest(src), kBytes), 0);
	EXPECT_TRUE(guestBytes(dev_, dst + kBytes, 64) == std::vector<uint8_t>(64, kCanary));

	/* SRAM bytes count like memory bytes. */
	GroupStats in = dev_.stats(kBdma, 0), out = dev_.stats(kBdma, 1);
	EXPECT_EQ(in.bytesRead, kBytes);
	EXPECT_EQ(in.bytesWritten, kBytes);
	EXPECT_EQ(out.bytesRead, kBytes);
	EXPECT_EQ(out.bytesWritten, kBytes);
}

TEST_F(Sram, HostWritesThroughBar2AreWhatEnginesRead)
{
	constexpr uint32_t kBytes = 3000;
	fillPattern(dev_.sram() + 0x8000, kBytes, 6);
	uint64_t dst = dev_.alloc(kBytes);

	ASSERT_EQ(runBdma(dev_, 0, BdmaOp::linear(DeviceHarness::sramAddr(0x8000), dst, kBytes)),
		  unsigned(VDLA_GROUP_DONE));
	EXPECT_TRUE(guestBytes(dev_, dst, kBytes) == pattern(kBytes, 6));
}

TEST_F(Sram, StridedCopyIntoSramWritesOnlyTheLines)
{
	uint64_t src = dev_.alloc(4096);
	fillPattern(dev_.guest(src), 4096, 8);
	std::memset(dev_.sram(), kCanary, 8192);

	BdmaOp op;
	op.src = src;
	op.dst = DeviceHarness::sramAddr(0x10);
	op.lineBytes = 100;
	op.lines = 10;
	op.srcLineStride = 100;
	op.dstLineStride = 300;
	ASSERT_EQ(runBdma(dev_, 0, op), unsigned(VDLA_GROUP_DONE));

	std::vector<uint8_t> expected(8192, kCanary);
	for (unsigned l = 0; l < 10; l++)
		std::memcpy(&expected[0x10 + 300 * l], dev_.guest(src) + 100 * l, 100);
	EXPECT_TRUE(std::vector<uint8_t>(dev_.sram(), dev_.sram() + 8192) == expected);
}

TEST_F(Sram, OverlappingCopyWithinSramReadsTheWholeSourceFirst)
{
	/* "The whole source is read before anything is written". */
	fillPattern(dev_.sram(), 8192, 9);
	std::vector<uint8_t> before(dev_.sram(), dev_.sram() + 8192);

	ASSERT_EQ(runBdma(dev_, 0, BdmaOp::linear(DeviceHarness::sramAddr(0),
						  DeviceHarness::sramAddr(100), 4096)),
		  unsigned(VDLA_GROUP_DONE));
	std::vector<uint8_t> expected = before;
	std::memmove(&expected[100], &before[0], 4096);
	EXPECT_TRUE(std::vector<uint8_t>(dev_.sram(), dev_.sram() + 8192) == expected);
}

TEST_F(Sram, SramAddressesAreNeverTranslated)
{
	/*
	 * MMU on, the operation's context enabled with empty tables: any
	 * translated access would fault UNMAPPED.
	 */
	PageTables tables(dev_, 2);
	tables.activate();
	fillPattern(dev_.sram(), 4096, 11);

	ASSERT_EQ(runBdma(dev_, 0, BdmaOp::linear(DeviceHarness::sramAddr(0),
						  DeviceHarness::sramAddr(0x10000), 4096, 2)),
		  unsigned(VDLA_GROUP_DONE));
	EXPECT_EQ(std::memcmp(dev_.sram() + 0x10000, dev_.sram(), 4096), 0);
	EXPECT_FALSE(readMmuFault(dev_).valid);
}

TEST_F(Sram, ContentsSurviveSoftReset)
{
	uint32_t sramSize = dev_.read(VDLA_REG_SRAM_SIZE);
	ASSERT_EQ(sramSize, VDLA_SRAM_DEFAULT_SIZE);
	fillPattern(dev_.sram(), sramSize, 12);

	dev_.write(VDLA_REG_RESET, VDLA_RESET_SOFT);
	ASSERT_EQ(dev_.read(VDLA_REG_RESET_COUNT), 1u);
	EXPECT_TRUE(std::vector<uint8_t>(dev_.sram(), dev_.sram() + sramSize) ==
		    pattern(sramSize, 12));

	/* And engines see the kept bytes after the reset. */
	dev_.write(VDLA_REG_INT_ENABLE, VDLA_INT_ALL);
	uint64_t dst = dev_.alloc(4096);
	ASSERT_EQ(runBdma(dev_, 0, BdmaOp::linear(DeviceHarness::sramAddr(sramSize - 4096), dst,
						  4096)),
		  unsigned(VDLA_GROUP_DONE));
	EXPECT_EQ(std::memcmp(dev_.guest(dst), dev_.sram() + sramSize - 4096, 4096), 0);
}

TEST_F(Sram, StartsZeroed)
{
	uint32_t sramSize = dev_.read(VDLA_REG_SRAM_SIZE);
	EXPECT_TRUE(std::vector<uint8_t>(dev_.sram(), dev_.sram() + sramSize) ==
		    std::vector<uint8_t>(sramSize, 0));
}

/* SRAM_SIZE follows the sram-size property, and bounds SRAM accesses. */
class SramSize : public ::testing::TestWithParam<uint32_t>
{
};

TEST_P(SramSize, RegisterAndAccessibleRangeFollowTheProperty)
{
	const uint32_t size = GetParam();
	vdla_core_config config;
	vdla_core_default_config(&config);
	config.sram_size = size;
	DeviceHarness dev(&config, kDeviceTestGuestBytes);

	EXPECT_EQ(dev.read(VDLA_REG_SRAM_SIZE), size);
	/* The host can touch the whole SRAM. */
	dev.sram()[0] = 0x5a;
	dev.sram()[size - 1] = 0xa5;

	/* The last 64 bytes are reachable by an engine... */
	uint64_t buf = dev.alloc(128);
	fillPattern(dev.guest(buf), 64, 13);
	ASSERT_EQ(runBdma(dev, 0, BdmaOp::linear(buf, DeviceHarness::sramAddr(size - 64), 64)),
		  unsigned(VDLA_GROUP_DONE));
	EXPECT_EQ(std::memcmp(dev.sram() + size - 64, dev.guest(buf), 64), 0);

	/* ...and the byte after the end is not. */
	ASSERT_EQ(runBdma(dev, 1, BdmaOp::linear(DeviceHarness::sramAddr(size), buf + 64, 1)),
		  unsigned(VDLA_GROUP_ERROR));
	EXPECT_EQ(dev.stats(kBdma, 1).error, unsigned(VDLA_ERROR_MMU_FAULT));
	EXPECT_EQ(dev.read(VDLA_REG_MMU_FAULT_STATUS),
		  faultStatusWord(false, VDLA_MMU_FAULT_OUT_OF_RANGE, kBdma, 0));
	EXPECT_EQ(read64(dev, VDLA_REG_MMU_FAULT_ADDR_LO), DeviceHarness::sramAddr(size));
}

INSTANTIATE_TEST_SUITE_P(Sram, SramSize,
			 ::testing::Values(VDLA_SRAM_MIN_SIZE, 256u << 10, VDLA_SRAM_DEFAULT_SIZE,
					   VDLA_SRAM_MAX_SIZE),
			 [](const ::testing::TestParamInfo<uint32_t> &info) {
				 return std::to_string(info.param >> 10) + "KiB";
			 });

TEST(SramConfig, DefaultIsOneMebibyte)
{
	vdla_core_config config;
	vdla_core_default_config(&config);
	EXPECT_EQ(config.sram_size, 1u << 20);
}

/*
 * A host with every callback but no memory, for calling vdla_core_create
 * directly with configs it must refuse.
 */
vdla_core_host inertHost()
{
	vdla_core_host host = {};
	host.raise_irq = [](void *, unsigned int) {};
	host.clock_ns = [](void *) -> uint64_t { return 0; };
	host.guest_error = [](void *, const char *, va_list) {};
	host.dma_read = [](void *, uint64_t, void *, uint64_t) { return -1; };
	host.dma_map = [](void *, uint64_t, uint64_t, bool) -> void * { return nullptr; };
	host.dma_unmap = [](void *, void *, uint64_t, bool, uint64_t) {};
	return host;
}

class SramBadSize : public ::testing::TestWithParam<uint32_t>
{
};

TEST_P(SramBadSize, MakesCreateFailWithAnExplanation)
{
	vdla_core_host host = inertHost();
	vdla_core_config config;
	vdla_core_default_config(&config);
	config.sram_size = GetParam();

	const char *error = nullptr;
	vdla_core *core = vdla_core_create(&host, &config, &error);
	EXPECT_EQ(core, nullptr);
	ASSERT_NE(error, nullptr);
	EXPECT_GT(std::strlen(error), 0u);
	if (core)
		vdla_core_destroy(core);
}

INSTANTIATE_TEST_SUITE_P(Sram, SramBadSize,
			 ::testing::Values(0u, 1u, 4096u, VDLA_SRAM_MIN_SIZE / 2,
					   VDLA_SRAM_MIN_SIZE + 4096, /* in range, not 2^n */
					   100000u, 3u << 20, VDLA_SRAM_MAX_SIZE - 1,
					   VDLA_SRAM_MAX_SIZE * 2, 0x80000000u, 0xffffffffu));

TEST(SramConfig, ValidSizeCreatesWithoutError)
{
	vdla_core_host host = inertHost();
	vdla_core_config config;
	vdla_core_default_config(&config);
	config.sram_size = 128u << 10;
	const char *error = nullptr;
	vdla_core *core = vdla_core_create(&host, &config, &error);
	ASSERT_NE(core, nullptr) << (error ? error : "");
	vdla_core_destroy(core);
}

} /* namespace */
} /* namespace vdla_test */
