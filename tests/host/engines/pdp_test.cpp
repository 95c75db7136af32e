/* SPDX-License-Identifier: MIT */
/*
 * PDP against the reference: MAX, MIN and AVG (padding excluded and
 * included) over kernel, stride and padding combinations with ceil mode on
 * and off, every allowed type, the integer average's rounding modes,
 * counters and invalid programming.
 */
#include <gtest/gtest.h>

#include <algorithm>

#include <functional>
#include <tuple>

#include "engine_util.h"

using namespace vdla_etest;
using namespace vdla_ref;

namespace {

constexpr unsigned kPdp = VDLA_ENGINE_PDP;

struct PdpGeom {
	const char *name;
	uint32_t n, c, h, w;
	uint32_t kw, kh, sx, sy, pl, pr, pt, pb;
	bool ceil;
	Layout src = Layout::Nchw, dst = Layout::Nchw;
};

const PdpGeom kGeoms[] = {
	{ "Kernel1Stride1", 1, 3, 5, 7, 1, 1, 1, 1, 0, 0, 0, 0, false },
	{ "Kernel2Stride2", 1, 4, 8, 8, 2, 2, 2, 2, 0, 0, 0, 0, false, Layout::Nhwc, Layout::Nhwc },
	{ "Kernel3Stride2Pad1", 1, 3, 9, 9, 3, 3, 2, 2, 1, 1, 1, 1, false },
	{ "Kernel3Stride1Pad1Batch2", 2, 2, 6, 7, 3, 3, 1, 1, 1, 1, 1, 1, false, Layout::PaddedNchw,
		Layout::PaddedNhwc },
	{ "Kernel3Stride2Ceil", 1, 3, 8, 8, 3, 3, 2, 2, 0, 0, 0, 0, true },
	{ "Kernel2Stride2CeilOddSizes", 1, 2, 7, 5, 2, 2, 2, 2, 0, 0, 0, 0, true, Layout::Nhwc,
		Layout::PaddedNchw },
	{ "CeilDropsWindowStartingInRightPadding", 1, 2, 4, 4, 2, 2, 3, 3, 1, 1, 1, 1, true },
	{ "CeilWithPaddingCountsOutsidePositionsNowhere", 1, 2, 6, 6, 3, 3, 2, 2, 1, 1, 1, 1,
		true },
	{ "AsymmetricPad", 1, 3, 7, 6, 3, 2, 2, 1, 0, 2, 1, 0, false },
	{ "NonSquareKernel5x3Stride3x2Ceil", 1, 2, 11, 10, 5, 3, 3, 2, 2, 1, 1, 2, true,
		Layout::PaddedNhwc, Layout::Nchw },
	{ "Kernel16Stride16Ceil", 1, 1, 32, 33, 16, 16, 16, 16, 0, 0, 0, 0, true },
	{ "Kernel4Stride3Pad3Ceil", 1, 2, 10, 9, 4, 4, 3, 3, 3, 3, 3, 3, true },
	{ "StrideLargerThanKernel", 1, 2, 9, 11, 2, 2, 3, 4, 0, 0, 0, 0, false },
	{ "OnePixelKernel3Pad1", 1, 2, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1, false },
	{ "Batch3", 3, 2, 5, 5, 3, 3, 1, 1, 1, 1, 1, 1, false },
	/* Rows of more outputs than the device pools at a time (64), clamped at both ends. */
	{ "WideRowsStride2Pad1Ceil", 1, 2, 3, 301, 3, 3, 2, 1, 1, 1, 1, 1, true, Layout::Nhwc,
		Layout::PaddedNchw },
	{ "WideRowsKernel5Stride1Pad2", 1, 1, 2, 200, 5, 2, 1, 1, 2, 2, 0, 1, false },
};

enum class Method { Max, Min, AvgExcludePad, AvgIncludePad };

const char *methodName(Method m)
{
	switch (m) {
	case Method::Max:
		return "Max";
	case Method::Min:
		return "Min";
	case Method::AvgExcludePad:
		return "AvgExcludePad";
	case Method::AvgIncludePad:
		return "AvgIncludePad";
	}
	return "?";
}

PdpParams paramsOf(const PdpGeom &g, Method m, unsigned round)
{
	PdpParams p;
	p.method = m == Method::Max ? VDLA_PDP_MAX : m == Method::Min ? VDLA_PDP_MIN : VDLA_PDP_AVG;
	p.includePad = m == Method::AvgIncludePad;
	p.ceil = g.ceil;
	p.round = round;
	p.kw = g.kw, p.kh = g.kh, p.sx = g.sx, p.sy = g.sy;
	p.padL = g.pl, p.padR = g.pr, p.padT = g.pt, p.padB = g.pb;
	return p;
}

uint64_t seedOf(const std::string &s)
{
	uint64_t h = 1469598103934665603ull;
	for (char c : s)
		h = (h ^ uint8_t(c)) * 1099511628211ull;
	return h;
}

struct PdpRun {
	unsigned group; /* the group it ran on: CONSUMER at the time */
	Tensor ref, got;
	OpResult result;
	PdpOp op;
};

PdpRun runPdp(DeviceHarness &dev, const Tensor &src, const PdpParams &p, Layout sl, Layout dl)
{
	PdpRun run;
	run.ref = pdp(src, p);
	run.op.p = p;
	run.op.src = placeTensor(dev, src, sl);
	run.op.dst = allocTensor(dev, src.dtype, run.ref.n, run.ref.c, run.ref.h, run.ref.w, dl);
	run.group = consumer(dev, kPdp);
	programPdp(dev, run.group, run.op);
	run.result = runGroup(dev, kPdp, run.group);
	run.got = load(dev, run.op.dst);
	EXPECT_TRUE(gapsUntouched(dev, run.op.dst));
	return run;
}

class PdpSweep : public ::testing::TestWithParam<std::tuple<PdpGeom, Method, uint32_t>>
{
};

TEST_P(PdpSweep, MatchesReference)
{
	const PdpGeom &g = std::get<0>(GetParam());
	Method m = std::get<1>(GetParam());
	uint32_t dtype = std::get<2>(GetParam());
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(seedOf(g.name) + dtype * 4 + unsigned(m));
	Tensor src = randomTensor(rng, dtype, g.n, g.c, g.h, g.w);
	PdpRun run = runPdp(dev, src, paramsOf(g, m, VDLA_ROUND_HALF_EVEN), g.src, g.dst);
	ASSERT_TRUE(succeeded(run.result, kPdp, run.group));
	EXPECT_TRUE(matches(run.ref, run.got));
}

INSTANTIATE_TEST_SUITE_P(Pdp, PdpSweep,
	::testing::Combine(::testing::ValuesIn(kGeoms),
		::testing::Values(
			Method::Max, Method::Min, Method::AvgExcludePad, Method::AvgIncludePad),
		::testing::Values(
			VDLA_DTYPE_INT8, VDLA_DTYPE_INT16, VDLA_DTYPE_FP16, VDLA_DTYPE_FP32)),
	[](const ::testing::TestParamInfo<PdpSweep::ParamType> &info) {
		return std::string(dtypeName(std::get<2>(info.param)))
			+ methodName(std::get<1>(info.param)) + std::get<0>(info.param).name;
	});

/* Random combinations from fixed seeds of everything PdpSweep lists. */
class PdpFuzz : public ::testing::TestWithParam<int>
{
};

TEST_P(PdpFuzz, RandomWindowsMatchReference)
{
	static const uint32_t types[]
		= { VDLA_DTYPE_INT8, VDLA_DTYPE_INT16, VDLA_DTYPE_FP16, VDLA_DTYPE_FP32 };
	static const Layout layouts[]
		= { Layout::Nchw, Layout::Nhwc, Layout::PaddedNchw, Layout::PaddedNhwc };
	Rng rng(9000 + GetParam());
	uint32_t dtype = types[GetParam() % 4];
	PdpParams p;
	p.method = unsigned(rng.uniform(0, 2));
	p.ceil = rng.uniform(0, 1);
	p.includePad = rng.uniform(0, 1);
	p.round = unsigned(rng.uniform(0, 4));
	p.kw = uint32_t(rng.uniform(1, 6)), p.kh = uint32_t(rng.uniform(1, 6));
	p.sx = uint32_t(rng.uniform(1, 4)), p.sy = uint32_t(rng.uniform(1, 4));
	p.padL = uint32_t(rng.uniform(0, p.kw - 1)), p.padR = uint32_t(rng.uniform(0, p.kw - 1));
	p.padT = uint32_t(rng.uniform(0, p.kh - 1)), p.padB = uint32_t(rng.uniform(0, p.kh - 1));
	uint32_t w = uint32_t(
		std::max<int64_t>(1, int64_t(p.kw) - p.padL - p.padR) + rng.uniform(0, 9));
	uint32_t h = uint32_t(
		std::max<int64_t>(1, int64_t(p.kh) - p.padT - p.padB) + rng.uniform(0, 9));
	uint32_t n = uint32_t(rng.uniform(1, 2)), c = uint32_t(rng.uniform(1, 5));
	DeviceHarness dev(nullptr, kGuestBytes);
	Tensor src = randomTensor(rng, dtype, n, c, h, w);
	PdpRun run = runPdp(dev, src, p, layouts[rng.uniform(0, 3)], layouts[rng.uniform(0, 3)]);
	ASSERT_TRUE(succeeded(run.result, kPdp, run.group));
	EXPECT_TRUE(matches(run.ref, run.got))
		<< src.shape() << " method " << p.method << " kernel " << p.kw << "x" << p.kh
		<< " stride " << p.sx << "x" << p.sy << " pad " << p.padL << "," << p.padR << ","
		<< p.padT << "," << p.padB << (p.ceil ? " ceil" : "")
		<< (p.includePad ? " include-pad" : "") << " round " << p.round;
}

INSTANTIATE_TEST_SUITE_P(
	Pdp, PdpFuzz, ::testing::Range(0, 96), [](const ::testing::TestParamInfo<int> &info) {
		return "Seed" + std::to_string(info.param);
	});

TEST(Pdp, LargeTensorMatchesReference)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(44);
	Tensor src = randomFull(rng, VDLA_DTYPE_INT8, 1, 64, 56, 56);
	PdpParams p;
	p.method = VDLA_PDP_AVG;
	p.kw = p.kh = 3;
	p.sx = p.sy = 2;
	p.padL = p.padR = p.padT = p.padB = 1;
	p.ceil = true;
	p.round = VDLA_ROUND_HALF_EVEN;
	PdpRun run = runPdp(dev, src, p, Layout::Nhwc, Layout::Nhwc);
	ASSERT_TRUE(succeeded(run.result, kPdp, run.group));
	EXPECT_TRUE(matches(run.ref, run.got));
}

/* Integer averages: every rounding mode where quotients have every fraction. */
class PdpRounding : public ::testing::TestWithParam<std::tuple<unsigned, uint32_t, bool, int>>
{
};

TEST_P(PdpRounding, IntegerAverageRoundsByMode)
{
	unsigned round = std::get<0>(GetParam());
	uint32_t dtype = std::get<1>(GetParam());
	bool includePad = std::get<2>(GetParam());
	int geom = std::get<3>(GetParam());
	/* 2x2 (halves of both signs), 3x3 pad 1 (ninths, sixths, quarters), 3x1 ceil. */
	static const PdpGeom g[] = {
		{ "K2", 1, 3, 8, 8, 2, 2, 2, 2, 0, 0, 0, 0, false },
		{ "K3P1", 1, 3, 7, 7, 3, 3, 2, 2, 1, 1, 1, 1, false },
		{ "K3x1Ceil", 1, 3, 5, 9, 3, 1, 2, 1, 2, 1, 0, 0, true },
	};
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(round * 31 + dtype * 7 + includePad + geom * 1000);
	/* Small values so the sums' fractions are spread over ties. */
	Tensor src = randomInt(rng, dtype, 1, 3, g[geom].h, g[geom].w, -9, 9);
	PdpParams p = paramsOf(
		g[geom], includePad ? Method::AvgIncludePad : Method::AvgExcludePad, round);
	PdpRun run = runPdp(dev, src, p, Layout::Nchw, Layout::Nchw);
	ASSERT_TRUE(succeeded(run.result, kPdp, run.group));
	EXPECT_TRUE(matches(run.ref, run.got));
}

INSTANTIATE_TEST_SUITE_P(Pdp, PdpRounding,
	::testing::Combine(::testing::Values(VDLA_ROUND_TO_ZERO, VDLA_ROUND_FLOOR,
				   VDLA_ROUND_HALF_UP, VDLA_ROUND_HALF_AWAY, VDLA_ROUND_HALF_EVEN),
		::testing::Values(VDLA_DTYPE_INT8, VDLA_DTYPE_INT16), ::testing::Bool(),
		::testing::Values(0, 1, 2)),
	[](const ::testing::TestParamInfo<PdpRounding::ParamType> &info) {
		int geom = std::get<3>(info.param);
		return std::string(dtypeName(std::get<1>(info.param))) + "Round"
			+ roundName(std::get<0>(info.param))
			+ (std::get<2>(info.param) ? "IncludePad" : "ExcludePad")
			+ (geom == 0		    ? "Kernel2"
					: geom == 1 ? "Kernel3Pad1"
						    : "Kernel3x1Ceil");
	});

TEST(Pdp, IntegerAverageTiesByHand)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	/* Windows of 2: sums 5 and -5 over 2 -> 2.5 and -2.5. */
	Tensor src(VDLA_DTYPE_INT8, 1, 1, 1, 4);
	src.i = { 2, 3, -2, -3 };
	const int64_t pos[5] = { 2, 2, 3, 3, 2 }, neg[5] = { -2, -3, -2, -3, -2 };
	for (unsigned round = 0; round < 5; round++) {
		PdpParams p;
		p.method = VDLA_PDP_AVG;
		p.kw = 2;
		p.sx = 2;
		p.round = round;
		PdpRun run = runPdp(dev, src, p, Layout::Nchw, Layout::Nchw);
		ASSERT_TRUE(succeeded(run.result, kPdp, run.group));
		EXPECT_EQ(run.got.i[0], pos[round]) << "mode " << round;
		EXPECT_EQ(run.got.i[1], neg[round]) << "mode " << round;
		dev.ackInterrupts(VDLA_INT_ALL);
	}
}

TEST(Pdp, Fp16AverageIsComputedInFp32AndRoundedOnce)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	/* 2048 + 1 + 1: FP16 running sums would lose the ones; FP32 does not. */
	Tensor src(VDLA_DTYPE_FP16, 1, 1, 1, 4);
	src.f = { 2048.0, 1.0, 1.0, 2.0 };
	PdpParams p;
	p.method = VDLA_PDP_AVG;
	p.kw = 4;
	PdpRun run = runPdp(dev, src, p, Layout::Nchw, Layout::Nchw);
	ASSERT_TRUE(succeeded(run.result, kPdp, run.group));
	EXPECT_EQ(run.got.f[0], 513.0);
	EXPECT_TRUE(matches(run.ref, run.got));
}

TEST(Pdp, CountersCountElementBytes)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(41);
	/* Kernel 2, stride 2 over 8x8: every element is read once. */
	Tensor src = randomFull(rng, VDLA_DTYPE_INT16, 2, 3, 8, 8);
	PdpParams p;
	p.method = VDLA_PDP_AVG;
	p.kw = p.kh = 2;
	p.sx = p.sy = 2;
	PdpRun run = runPdp(dev, src, p, Layout::PaddedNchw, Layout::PaddedNhwc);
	ASSERT_TRUE(succeeded(run.result, kPdp, run.group));
	EXPECT_TRUE(matches(run.ref, run.got));
	GroupStats s = dev.stats(kPdp, run.group);
	EXPECT_EQ(s.bytesRead, src.size() * 2);
	EXPECT_EQ(s.bytesWritten, run.ref.size() * 2);
}

TEST(Pdp, ReadsSramWritesMemory)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(42);
	Tensor src = randomReal(rng, VDLA_DTYPE_FP32, 1, 3, 6, 6, -5, 5);
	PdpParams p;
	p.kw = p.kh = 3;
	p.sx = p.sy = 3;
	Tensor ref = pdp(src, p);
	PdpOp op;
	op.p = p;
	op.src = makeDesc(DeviceHarness::sramAddr(0x40), src.dtype, 1, 3, 6, 6, Layout::Nhwc);
	store(dev, op.src, src);
	op.dst = allocTensor(dev, src.dtype, 1, 3, 2, 2);
	programPdp(dev, 0, op);
	ASSERT_TRUE(succeeded(runGroup(dev, kPdp, 0), kPdp, 0));
	EXPECT_TRUE(matches(ref, load(dev, op.dst)));
}

/* ---- Invalid programming ----------------------------------------------- */

struct PdpInvalidCase {
	const char *name;
	uint32_t error;
	std::function<void(DeviceHarness &, PdpOp &)> breakIt;
};

/* The valid base: INT8 1x3x6x6, MAX 3x3 stride 1 pad 1 -> 1x3x6x6. */
const PdpInvalidCase kPdpInvalid[] = {
	{ "Int32Input", VDLA_ERROR_DTYPE,
		[](DeviceHarness &, PdpOp &op) {
			op.src = makeDesc(op.src.addr, VDLA_DTYPE_INT32, 1, 3, 6, 6, Layout::Nchw);
			op.dst = makeDesc(op.dst.addr, VDLA_DTYPE_INT32, 1, 3, 6, 6, Layout::Nchw);
		} },
	{ "OutputTypeDiffers", VDLA_ERROR_DTYPE,
		[](DeviceHarness &, PdpOp &op) {
			op.dst = makeDesc(op.dst.addr, VDLA_DTYPE_INT16, 1, 3, 6, 6, Layout::Nchw);
		} },
	{ "UnknownType", VDLA_ERROR_DTYPE,
		[](DeviceHarness &, PdpOp &op) {
			op.src = makeDesc(op.src.addr, VDLA_DTYPE_FP32, 1, 3, 6, 6, Layout::Nchw);
			op.dst = makeDesc(op.dst.addr, VDLA_DTYPE_FP32, 1, 3, 6, 6, Layout::Nchw);
			op.src.dtype = op.dst.dtype = 5;
		} },
	{ "KernelZero", VDLA_ERROR_PARAM,
		[](DeviceHarness &, PdpOp &op) {
			op.p.kw = 0;
			op.p.padL = op.p.padR = 0;
			op.dst.w = 7;
		} },
	{ "Kernel17", VDLA_ERROR_PARAM,
		[](DeviceHarness &dev, PdpOp &op) {
			op.src = allocTensor(dev, VDLA_DTYPE_INT8, 1, 3, 6, 20);
			op.p.kw = 17;
			op.dst.w = 20 + 2 - 17 + 1;
		} },
	{ "StrideZero", VDLA_ERROR_PARAM, [](DeviceHarness &, PdpOp &op) { op.p.sy = 0; } },
	{ "Stride17", VDLA_ERROR_PARAM,
		[](DeviceHarness &, PdpOp &op) {
			op.p.sx = 17;
			op.dst.w = 1;
		} },
	{ "PadLeftEqualsKernel", VDLA_ERROR_PARAM,
		[](DeviceHarness &, PdpOp &op) {
			op.p.padL = 3;
			op.dst.w = 8;
		} },
	{ "PadBottomAboveKernel", VDLA_ERROR_PARAM,
		[](DeviceHarness &, PdpOp &op) {
			op.p.padB = 4;
			op.dst.h = 6 + 1 + 4 - 3 + 1;
		} },
	{ "RoundMode6", VDLA_ERROR_PARAM,
		[](DeviceHarness &, PdpOp &op) {
			op.p.method = VDLA_PDP_AVG;
			op.p.round = 6;
		} },
	{ "Method3", VDLA_ERROR_PARAM, [](DeviceHarness &, PdpOp &op) { op.p.method = 3; } },
	{ "OutputWidthWrong", VDLA_ERROR_SHAPE, [](DeviceHarness &, PdpOp &op) { op.dst.w = 5; } },
	{ "OutputHeightIgnoresCeil", VDLA_ERROR_SHAPE,
		[](DeviceHarness &, PdpOp &op) {
			/* 6 wide, kernel 2, stride 2, ceil off: 3; 4 would need ceil on a 7. */
			op.p.kw = op.p.kh = 2;
			op.p.sx = op.p.sy = 2;
			op.p.padL = op.p.padR = op.p.padT = op.p.padB = 0;
			op.dst.w = 3;
			op.dst.h = 4;
		} },
	{ "OutputChannelsDiffer", VDLA_ERROR_SHAPE,
		[](DeviceHarness &, PdpOp &op) { op.dst.c = 2; } },
	{ "OutputBatchDiffers", VDLA_ERROR_SHAPE,
		[](DeviceHarness &, PdpOp &op) { op.dst.n = 2; } },
	{ "NoWindowFits", VDLA_ERROR_SHAPE,
		[](DeviceHarness &dev, PdpOp &op) {
			/* 2 wide, kernel 3, no padding: floor(-1/1) + 1 = 0 outputs. */
			op.src = allocTensor(dev, VDLA_DTYPE_INT8, 1, 3, 6, 2);
			op.p.padL = op.p.padR = 0;
			op.dst.w = 1;
		} },
	{ "Int16SurfaceStrideOdd", VDLA_ERROR_STRIDE,
		[](DeviceHarness &, PdpOp &op) {
			op.src = makeDesc(op.src.addr, VDLA_DTYPE_INT16, 1, 3, 6, 6, Layout::Nchw);
			op.dst = makeDesc(op.dst.addr, VDLA_DTYPE_INT16, 1, 3, 6, 6, Layout::Nchw);
			op.src.strideC = 73;
		} },
	{ "InputExtentOver2GiB", VDLA_ERROR_LIMIT,
		[](DeviceHarness &, PdpOp &op) { op.src.strideC = 0x40000000; } },
};

class PdpInvalid : public ::testing::TestWithParam<PdpInvalidCase>
{
};

TEST_P(PdpInvalid, EndsInErrorAndWritesNothing)
{
	const PdpInvalidCase &c = GetParam();
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(43);
	PdpOp op;
	op.p.kw = op.p.kh = 3;
	op.p.padL = op.p.padR = op.p.padT = op.p.padB = 1;
	op.src = placeTensor(dev, randomFull(rng, VDLA_DTYPE_INT8, 1, 3, 6, 6));
	const uint64_t outBytes = 16 << 10;
	uint64_t out = allocCanary(dev, outBytes);
	op.dst = makeDesc(out, VDLA_DTYPE_INT8, 1, 3, 6, 6, Layout::Nchw);
	c.breakIt(dev, op);
	programPdp(dev, 0, op);
	OpResult r = runGroup(dev, kPdp, 0);
	EXPECT_TRUE(failedWith(r, kPdp, 0, c.error));
	EXPECT_TRUE(regionUntouched(dev, out - kMargin, outBytes + 2 * kMargin));
	EXPECT_EQ(dev.stats(kPdp, 0).bytesWritten, 0u);
}

INSTANTIATE_TEST_SUITE_P(Pdp, PdpInvalid, ::testing::ValuesIn(kPdpInvalid),
	[](const ::testing::TestParamInfo<PdpInvalidCase> &info) {
		return std::string(info.param.name);
	});

} /* namespace */
