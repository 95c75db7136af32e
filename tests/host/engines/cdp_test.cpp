/* SPDX-License-Identifier: MIT */
/*
 * CDP against the reference: window sizes 1 to 15 on both paths (integer
 * LUT and float power), every rounding mode with saturation and WRAP,
 * the LUT's top entry, counters and invalid programming.
 */
#include <gtest/gtest.h>

#include <functional>
#include <tuple>

#include "engine_util.h"

using namespace vdla_etest;
using namespace vdla_ref;

namespace {

constexpr unsigned kCdp = VDLA_ENGINE_CDP;

struct CdpRun {
	unsigned group; /* the group it ran on: CONSUMER at the time */
	Tensor ref, got;
	OpResult result;
	CdpOp op;
};

CdpRun runCdp(DeviceHarness &dev, const Tensor &src, const CdpParams &p, Layout sl = Layout::Nchw,
	Layout dl = Layout::Nchw)
{
	CdpRun run;
	run.ref = cdp(src, p);
	run.op.p = p;
	run.op.src = placeTensor(dev, src, sl);
	run.op.dst = allocTensor(dev, src.dtype, src.n, src.c, src.h, src.w, dl);
	if (!src.isFloat())
		run.op.lutAddr = putInt32s(dev, p.lut);
	run.group = consumer(dev, kCdp);
	programCdp(dev, run.group, run.op);
	run.result = runGroup(dev, kCdp, run.group);
	run.got = load(dev, run.op.dst);
	EXPECT_TRUE(gapsUntouched(dev, run.op.dst));
	return run;
}

/* Integer parameters whose knots span the type's sums of squares. */
CdpParams intParams(uint32_t dtype, uint32_t size)
{
	CdpParams p;
	p.size = size;
	p.lut = sampleCdpLut();
	/* INT8: s < 2^18 against a table to 2^16; INT16: s < 2^34, table to 2^32. */
	p.lutShift = dtype == VDLA_DTYPE_INT8 ? 8 : 24;
	p.outShift = 16;
	p.round = VDLA_ROUND_HALF_EVEN;
	return p;
}

CdpParams floatParams(uint32_t size)
{
	CdpParams p;
	p.size = size;
	p.k = 1.0f;
	p.alpha = 2.5f;
	p.beta = 0.75f;
	return p;
}

class CdpSweep : public ::testing::TestWithParam<std::tuple<uint32_t, uint32_t>>
{
};

TEST_P(CdpSweep, MatchesReference)
{
	uint32_t size = std::get<0>(GetParam());
	uint32_t dtype = std::get<1>(GetParam());
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(size * 10 + dtype);
	/* 17 channels: windows clipped at both ends and whole in the middle. */
	Tensor src = randomTensor(rng, dtype, 2, 17, 3, 4);
	CdpParams p = isFloat(dtype) ? floatParams(size) : intParams(dtype, size);
	CdpRun run = runCdp(dev, src, p, Layout::Nhwc, Layout::PaddedNchw);
	ASSERT_TRUE(succeeded(run.result, kCdp, run.group));
	EXPECT_TRUE(matches(run.ref, run.got));
	EXPECT_EQ(dev.stats(kCdp, run.group).macs, uint64_t(size) * src.size());
}

INSTANTIATE_TEST_SUITE_P(Cdp, CdpSweep,
	::testing::Combine(::testing::Values(1u, 3u, 5u, 7u, 15u),
		::testing::Values(
			VDLA_DTYPE_INT8, VDLA_DTYPE_INT16, VDLA_DTYPE_FP16, VDLA_DTYPE_FP32)),
	[](const ::testing::TestParamInfo<CdpSweep::ParamType> &info) {
		return std::string(dtypeName(std::get<1>(info.param))) + "Size"
			+ std::to_string(std::get<0>(info.param));
	});

/* Rows longer than the device normalises at a time (256 elements). */
TEST(Cdp, RowsWiderThanAChunkMatchReference)
{
	for (uint32_t dtype : { VDLA_DTYPE_INT8, VDLA_DTYPE_FP32 }) {
		DeviceHarness dev(nullptr, kGuestBytes);
		Rng rng(61 + dtype);
		Tensor src = randomTensor(rng, dtype, 1, 6, 2, 700);
		CdpParams p = isFloat(dtype) ? floatParams(5) : intParams(dtype, 5);
		CdpRun run = runCdp(dev, src, p, Layout::PaddedNchw, Layout::Nhwc);
		ASSERT_TRUE(succeeded(run.result, kCdp, run.group)) << dtypeName(dtype);
		EXPECT_TRUE(matches(run.ref, run.got)) << dtypeName(dtype);
	}
}

class CdpRounding : public ::testing::TestWithParam<std::tuple<unsigned, bool, uint32_t>>
{
};

TEST_P(CdpRounding, IntegerPathRoundsSaturatesAndWraps)
{
	unsigned round = std::get<0>(GetParam());
	bool wrap = std::get<1>(GetParam());
	uint32_t dtype = std::get<2>(GetParam());
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(round * 2 + wrap + dtype * 16);
	Tensor src = randomFull(rng, dtype, 1, 9, 4, 5);
	CdpParams p = intParams(dtype, 5);
	p.round = round;
	p.wrap = wrap;
	/* Out by 2^-12 of Q16: up to 16x the input, so outputs overflow. */
	p.outShift = 12;
	/* Odd knots: interpolation remainders of every size. */
	p.lutShift = dtype == VDLA_DTYPE_INT8 ? 7 : 23;
	CdpRun run = runCdp(dev, src, p);
	ASSERT_TRUE(succeeded(run.result, kCdp, run.group));
	EXPECT_TRUE(matches(run.ref, run.got));
}

INSTANTIATE_TEST_SUITE_P(Cdp, CdpRounding,
	::testing::Combine(::testing::Values(VDLA_ROUND_TO_ZERO, VDLA_ROUND_FLOOR,
				   VDLA_ROUND_HALF_UP, VDLA_ROUND_HALF_AWAY, VDLA_ROUND_HALF_EVEN),
		::testing::Bool(), ::testing::Values(VDLA_DTYPE_INT8, VDLA_DTYPE_INT16)),
	[](const ::testing::TestParamInfo<CdpRounding::ParamType> &info) {
		return std::string(dtypeName(std::get<2>(info.param))) + "Round"
			+ roundName(std::get<0>(info.param))
			+ (std::get<1>(info.param) ? "Wrap" : "Saturate");
	});

TEST(Cdp, IntegerLutTopEntryAndShiftLimits)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(51);
	Tensor src = randomFull(rng, VDLA_DTYPE_INT16, 1, 6, 3, 3);
	/* LUT_SHIFT 0: s >= 256 almost everywhere takes T[256]. */
	CdpParams p = intParams(VDLA_DTYPE_INT16, 3);
	p.lutShift = 0;
	p.lut[256] = -77777;
	CdpRun run = runCdp(dev, src, p);
	ASSERT_TRUE(succeeded(run.result, kCdp, run.group));
	EXPECT_TRUE(matches(run.ref, run.got));
	dev.ackInterrupts(VDLA_INT_ALL);

	/* LUT_SHIFT and OUT_SHIFT 62: i = 0, f = s, products beyond 64 bits. */
	p.lutShift = 62;
	p.outShift = 62;
	p.lut[0] = INT32_MAX;
	p.lut[1] = INT32_MIN;
	run = runCdp(dev, src, p);
	ASSERT_TRUE(succeeded(run.result, kCdp, run.group));
	EXPECT_TRUE(matches(run.ref, run.got));
}

TEST(Cdp, FloatPathWithLargeSumsAndFp16)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(52);
	Tensor src = randomReal(rng, VDLA_DTYPE_FP16, 1, 12, 4, 4, -300, 300);
	CdpParams p = floatParams(7);
	p.k = 2.0f;
	p.alpha = 1e-4f;
	p.beta = 0.75f;
	CdpRun run = runCdp(dev, src, p);
	ASSERT_TRUE(succeeded(run.result, kCdp, run.group));
	EXPECT_TRUE(matches(run.ref, run.got));
	dev.ackInterrupts(VDLA_INT_ALL);

	Tensor src32 = randomReal(rng, VDLA_DTYPE_FP32, 2, 5, 3, 3, -1e3, 1e3);
	p.beta = -0.5f; /* a negative exponent multiplies */
	run = runCdp(dev, src32, p, Layout::PaddedNhwc, Layout::Nhwc);
	ASSERT_TRUE(succeeded(run.result, kCdp, run.group));
	EXPECT_TRUE(matches(run.ref, run.got));
}

TEST(Cdp, CountersFollowTheSpecDefinitions)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(53);
	Tensor src = randomFull(rng, VDLA_DTYPE_INT8, 2, 7, 3, 5);
	CdpRun run = runCdp(
		dev, src, intParams(VDLA_DTYPE_INT8, 5), Layout::PaddedNchw, Layout::PaddedNhwc);
	ASSERT_TRUE(succeeded(run.result, kCdp, run.group));
	GroupStats s = dev.stats(kCdp, run.group);
	EXPECT_EQ(s.macs, 5 * src.size());
	EXPECT_EQ(s.bytesRead, src.size() + VDLA_LUT_ENTRIES * 4);
	EXPECT_EQ(s.bytesWritten, src.size());
	dev.ackInterrupts(VDLA_INT_ALL);

	Tensor fsrc = randomReal(rng, VDLA_DTYPE_FP32, 1, 4, 2, 2, -1, 1);
	run = runCdp(dev, fsrc, floatParams(3));
	ASSERT_TRUE(succeeded(run.result, kCdp, run.group));
	s = dev.stats(kCdp, run.group);
	EXPECT_EQ(s.macs, 3 * fsrc.size());
	EXPECT_EQ(s.bytesRead, fsrc.size() * 4);
	EXPECT_EQ(s.bytesWritten, fsrc.size() * 4);
}

/* ---- Invalid programming ----------------------------------------------- */

struct CdpInvalidCase {
	const char *name;
	uint32_t error;
	std::function<void(CdpOp &)> breakIt;
};

TensorDesc retypeCdp(const TensorDesc &d, uint32_t dtype)
{
	return makeDesc(d.addr, dtype, d.n, d.c, d.h, d.w, Layout::Nchw);
}

const CdpInvalidCase kCdpInvalid[] = {
	{ "SizeEven", VDLA_ERROR_PARAM, [](CdpOp &op) { op.p.size = 4; } },
	{ "SizeZero", VDLA_ERROR_PARAM, [](CdpOp &op) { op.p.size = 0; } },
	{ "Size17", VDLA_ERROR_PARAM, [](CdpOp &op) { op.p.size = 17; } },
	{ "LutShift63", VDLA_ERROR_PARAM, [](CdpOp &op) { op.p.lutShift = 63; } },
	{ "OutShift63", VDLA_ERROR_PARAM, [](CdpOp &op) { op.p.outShift = 63; } },
	{ "RoundMode5", VDLA_ERROR_PARAM, [](CdpOp &op) { op.p.round = 5; } },
	{ "Int32Input", VDLA_ERROR_DTYPE,
		[](CdpOp &op) {
			op.src = retypeCdp(op.src, VDLA_DTYPE_INT32);
			op.dst = retypeCdp(op.dst, VDLA_DTYPE_INT32);
		} },
	{ "OutputTypeDiffers", VDLA_ERROR_DTYPE,
		[](CdpOp &op) { op.dst = retypeCdp(op.dst, VDLA_DTYPE_INT16); } },
	{ "OutputShapeDiffers", VDLA_ERROR_SHAPE, [](CdpOp &op) { op.dst.c = 7; } },
	{ "ZeroHeight", VDLA_ERROR_SHAPE, [](CdpOp &op) { op.src.h = op.dst.h = 0; } },
	{ "Fp16LineStrideOdd", VDLA_ERROR_STRIDE,
		[](CdpOp &op) {
			op.src = retypeCdp(op.src, VDLA_DTYPE_FP16);
			op.dst = retypeCdp(op.dst, VDLA_DTYPE_FP16);
			op.dst.strideH = 9;
		} },
	{ "OutputExtentOver2GiB", VDLA_ERROR_LIMIT,
		[](CdpOp &op) { op.dst.strideN = 0x80000000u, op.src.n = op.dst.n = 2; } },
};

class CdpInvalid : public ::testing::TestWithParam<CdpInvalidCase>
{
};

TEST_P(CdpInvalid, EndsInErrorAndWritesNothing)
{
	const CdpInvalidCase &c = GetParam();
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(54);
	CdpOp op;
	op.p = intParams(VDLA_DTYPE_INT8, 5);
	op.src = placeTensor(dev, randomFull(rng, VDLA_DTYPE_INT8, 1, 8, 4, 4));
	op.lutAddr = putInt32s(dev, op.p.lut);
	const uint64_t outBytes = 16 << 10;
	uint64_t out = allocCanary(dev, outBytes);
	op.dst = makeDesc(out, VDLA_DTYPE_INT8, 1, 8, 4, 4, Layout::Nchw);
	c.breakIt(op);
	programCdp(dev, 0, op);
	OpResult r = runGroup(dev, kCdp, 0);
	EXPECT_TRUE(failedWith(r, kCdp, 0, c.error));
	EXPECT_TRUE(regionUntouched(dev, out - kMargin, outBytes + 2 * kMargin));
	EXPECT_EQ(dev.stats(kCdp, 0).bytesWritten, 0u);
}

INSTANTIATE_TEST_SUITE_P(Cdp, CdpInvalid, ::testing::ValuesIn(kCdpInvalid),
	[](const ::testing::TestParamInfo<CdpInvalidCase> &info) {
		return std::string(info.param.name);
	});

} /* namespace */
