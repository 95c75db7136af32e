/* SPDX-License-Identifier: MIT */
/*
 * SDP against the reference: every stage and mode of the integer and float
 * paths, every rounding mode (with ties of both signs), saturation and
 * WRAP at the type limits, the LUT below, inside and above its table,
 * per-channel parameters, every allowed combination of input, operand and
 * output types, counters and invalid programming.
 */
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <functional>
#include <limits>
#include <tuple>

#include "engine_util.h"

using namespace vdla_etest;
using namespace vdla_ref;

namespace {

constexpr unsigned kSdp = VDLA_ENGINE_SDP;

struct SdpRun {
	unsigned group; /* the group it ran on: CONSUMER at the time */
	Tensor ref, got;
	OpResult result;
	GroupStats stats;
	SdpOp op;
};

/*
 * Runs X (and Y) through SDP with @p into a @dstType output and returns the
 * reference and the device's result. Checks that nothing but the output's
 * elements was written.
 */
SdpRun runSdp(DeviceHarness &dev, const Tensor &x, const Tensor *y, const SdpParams &p,
	uint32_t dstType, Layout xl = Layout::Nchw, Layout dl = Layout::Nchw,
	Layout yl = Layout::Nchw)
{
	SdpRun run;
	run.ref = sdp(x, y, p, dstType);
	SdpOp &op = run.op;
	op.p = p;
	op.x = placeTensor(dev, x, xl);
	op.y = y ? placeTensor(dev, *y, yl) : op.x;
	op.dst = allocTensor(dev, dstType, x.n, x.c, x.h, x.w, dl);
	placeSdpParams(dev, op);
	run.group = consumer(dev, kSdp);
	programSdp(dev, run.group, op);
	run.result = runGroup(dev, kSdp, run.group);
	run.got = load(dev, op.dst);
	run.stats = dev.stats(kSdp, run.group);
	EXPECT_TRUE(gapsUntouched(dev, op.dst));
	return run;
}

uint64_t seedOf(const std::string &s)
{
	uint64_t h = 1469598103934665603ull;
	for (char c : s)
		h = (h ^ uint8_t(c)) * 1099511628211ull;
	return h;
}

std::vector<int32_t> randomInts(Rng &rng, uint32_t count, int64_t lo, int64_t hi)
{
	std::vector<int32_t> v;
	for (uint32_t i = 0; i < count; i++)
		v.push_back(int32_t(rng.uniform(lo, hi)));
	return v;
}

/* Dyadic FP32 values k / 2^frac: exact in the FP32 stages. */
std::vector<float> dyadicFloats(Rng &rng, uint32_t count, int64_t range, int frac)
{
	std::vector<float> v;
	for (uint32_t i = 0; i < count; i++)
		v.push_back(float(std::ldexp(double(rng.uniform(-range, range)), -frac)));
	return v;
}

/* ---- Integer path: every stage and mode, every rounding mode, wrap ----- */

struct IntStage {
	const char *name;
	std::function<void(Rng &, SdpParams &, uint32_t channels)> set;
	uint32_t dstType = VDLA_DTYPE_INT8;
};

const IntStage kIntStages[] = {
	{ "Identity", [](Rng &, SdpParams &, uint32_t) {} },
	{ "BiasPerTensor",
		[](Rng &, SdpParams &p, uint32_t) {
			p.bias = VDLA_SDP_MODE_PER_TENSOR;
			p.biasValue = -1234;
		},
		VDLA_DTYPE_INT16 },
	{ "BiasPerChannel",
		[](Rng &rng, SdpParams &p, uint32_t c) {
			p.bias = VDLA_SDP_MODE_PER_CHANNEL;
			p.biasChannel = randomInts(rng, c, -40000, 40000);
		},
		VDLA_DTYPE_INT16 },
	{ "ScalePerTensorShift0",
		[](Rng &, SdpParams &p, uint32_t) {
			p.scale = VDLA_SDP_MODE_PER_TENSOR;
			p.scaleMul = -3;
		},
		VDLA_DTYPE_INT16 },
	{ "ScalePerTensorShift1HitsTies",
		[](Rng &, SdpParams &p, uint32_t) {
			p.scale = VDLA_SDP_MODE_PER_TENSOR;
			p.scaleMul = 1;
			p.scaleShift = 1;
		},
		VDLA_DTYPE_INT16 },
	{ "ScalePerTensorShift7",
		[](Rng &, SdpParams &p, uint32_t) {
			p.scale = VDLA_SDP_MODE_PER_TENSOR;
			p.scaleMul = 77;
			p.scaleShift = 7;
		},
		VDLA_DTYPE_INT16 },
	{ "ScalePerTensorShift31",
		[](Rng &, SdpParams &p, uint32_t) {
			p.scale = VDLA_SDP_MODE_PER_TENSOR;
			p.scaleMul = 0x40000001;
			p.scaleShift = 31;
		} },
	{ "ScalePerTensorShift63",
		[](Rng &, SdpParams &p, uint32_t) {
			p.bias = VDLA_SDP_MODE_PER_TENSOR;
			p.biasValue = INT32_MIN;
			p.scale = VDLA_SDP_MODE_PER_TENSOR;
			p.scaleMul = INT32_MIN;
			p.scaleShift = 63;
		} },
	{ "ScalePerChannel",
		[](Rng &rng, SdpParams &p, uint32_t c) {
			p.scale = VDLA_SDP_MODE_PER_CHANNEL;
			p.scaleMulChannel = randomInts(rng, c, -5000, 5000);
			p.scaleShiftChannel = randomInts(rng, c, 0, 14);
		} },
	{ "EwAdd",
		[](Rng &, SdpParams &p, uint32_t) {
			p.ew = VDLA_SDP_EW_OP_ADD;
			p.ewMul = -5;
			p.ewShift = 2;
		},
		VDLA_DTYPE_INT16 },
	{ "EwMul",
		[](Rng &, SdpParams &p, uint32_t) {
			p.ew = VDLA_SDP_EW_OP_MUL;
			p.ewMul = 3;
			p.ewShift = 1;
			p.ewPostShift = 9;
		} },
	{ "EwMax",
		[](Rng &, SdpParams &p, uint32_t) {
			p.ew = VDLA_SDP_EW_OP_MAX;
			p.ewMul = 301;
			p.ewShift = 3;
		},
		VDLA_DTYPE_INT16 },
	{ "Relu", [](Rng &, SdpParams &p, uint32_t) { p.act = VDLA_SDP_ACT_RELU; } },
	{ "Clip",
		[](Rng &, SdpParams &p, uint32_t) {
			p.act = VDLA_SDP_ACT_CLIP;
			p.clipMin = -70;
			p.clipMax = 90;
		} },
	{ "LutBelowInsideAndAbove",
		[](Rng &rng, SdpParams &p, uint32_t) {
			p.act = VDLA_SDP_ACT_LUT;
			p.lut = sampleIntLut(rng);
			/* The table spans [-8000, 8384): int16 inputs fall on all sides. */
			p.lutStart = -8000;
			p.lutShift = 6;
		},
		VDLA_DTYPE_INT16 },
	{ "OutOffset",
		[](Rng &, SdpParams &p, uint32_t) {
			p.scale = VDLA_SDP_MODE_PER_TENSOR;
			p.scaleMul = 1;
			p.scaleShift = 8;
			p.outOffset = 100;
		} },
	{ "AllStagesPerChannel",
		[](Rng &rng, SdpParams &p, uint32_t c) {
			p.bias = VDLA_SDP_MODE_PER_CHANNEL;
			p.biasChannel = randomInts(rng, c, -3000, 3000);
			p.scale = VDLA_SDP_MODE_PER_CHANNEL;
			p.scaleMulChannel = randomInts(rng, c, -300, 300);
			p.scaleShiftChannel = randomInts(rng, c, 3, 9);
			p.ew = VDLA_SDP_EW_OP_ADD;
			p.ewMul = 7;
			p.ewShift = 1;
			p.act = VDLA_SDP_ACT_CLIP;
			p.clipMin = -20000;
			p.clipMax = 25000;
			p.outOffset = -9;
		},
		VDLA_DTYPE_INT16 },
	{ "AllStagesWithLut",
		[](Rng &rng, SdpParams &p, uint32_t c) {
			p.bias = VDLA_SDP_MODE_PER_TENSOR;
			p.biasValue = 77;
			p.scale = VDLA_SDP_MODE_PER_CHANNEL;
			p.scaleMulChannel = randomInts(rng, c, 1, 40);
			p.scaleShiftChannel = randomInts(rng, c, 0, 5);
			p.ew = VDLA_SDP_EW_OP_MUL;
			p.ewMul = 5;
			p.ewShift = 0;
			p.ewPostShift = 11;
			p.act = VDLA_SDP_ACT_LUT;
			p.lut = sampleIntLut(rng);
			p.lutStart = -2000;
			p.lutShift = 4;
			p.outOffset = 3;
		} },
};

class SdpIntStages : public ::testing::TestWithParam<std::tuple<IntStage, unsigned, bool>>
{
};

TEST_P(SdpIntStages, MatchesReference)
{
	const IntStage &stage = std::get<0>(GetParam());
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(seedOf(stage.name) + std::get<1>(GetParam()));
	SdpParams p;
	p.round = std::get<1>(GetParam());
	p.wrap = std::get<2>(GetParam());
	const uint32_t c = 5;
	stage.set(rng, p, c);
	Tensor x = randomFull(rng, VDLA_DTYPE_INT16, 2, c, 6, 7);
	Tensor y = randomFull(rng, VDLA_DTYPE_INT8, 2, c, 6, 7);
	SdpRun run = runSdp(dev, x, p.ew ? &y : nullptr, p, stage.dstType, Layout::Nchw,
		Layout::PaddedNhwc, Layout::Nhwc);
	ASSERT_TRUE(succeeded(run.result, kSdp, run.group));
	EXPECT_TRUE(matches(run.ref, run.got));
	EXPECT_EQ(run.stats.macs, sdpMacs(x, p));
}

INSTANTIATE_TEST_SUITE_P(Sdp, SdpIntStages,
	::testing::Combine(::testing::ValuesIn(kIntStages),
		::testing::Values(VDLA_ROUND_TO_ZERO, VDLA_ROUND_FLOOR, VDLA_ROUND_HALF_UP,
			VDLA_ROUND_HALF_AWAY, VDLA_ROUND_HALF_EVEN),
		::testing::Bool()),
	[](const ::testing::TestParamInfo<SdpIntStages::ParamType> &info) {
		return std::string("Int") + std::get<0>(info.param).name + "Round"
			+ roundName(std::get<1>(info.param))
			+ (std::get<2>(info.param) ? "Wrap" : "Saturate");
	});

/* ---- Integer path: every combination of X, Y and DST types ------------- */

class SdpIntTypes : public ::testing::TestWithParam<std::tuple<uint32_t, uint32_t, uint32_t>>
{
};

TEST_P(SdpIntTypes, AllStagesMatchReference)
{
	uint32_t xt = std::get<0>(GetParam()), yt = std::get<1>(GetParam()),
		 dt = std::get<2>(GetParam());
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(xt * 100 + yt * 10 + dt);
	const uint32_t c = 3;
	Tensor x = randomFull(rng, xt, 1, c, 5, 9);
	Tensor y = randomFull(rng, yt, 1, c, 5, 9);
	SdpParams p;
	p.bias = VDLA_SDP_MODE_PER_CHANNEL;
	p.biasChannel = randomInts(rng, c, -1000, 1000);
	p.scale = VDLA_SDP_MODE_PER_TENSOR;
	p.scaleMul = 12345;
	/* Lands the output around its type's range: some saturate, most not. */
	int shift = int(dtypeBits(xt)) + 13 - int(dtypeBits(dt));
	p.scaleShift = uint32_t(std::max(0, shift));
	p.ew = VDLA_SDP_EW_OP_ADD;
	p.ewMul = 3;
	p.ewShift = uint32_t(std::max(0, int(dtypeBits(yt)) - int(dtypeBits(dt)) + 1));
	p.act = VDLA_SDP_ACT_NONE;
	p.round = VDLA_ROUND_HALF_AWAY;
	p.outOffset = -5;
	SdpRun run = runSdp(dev, x, &y, p, dt);
	ASSERT_TRUE(succeeded(run.result, kSdp, run.group));
	EXPECT_TRUE(matches(run.ref, run.got));
}

INSTANTIATE_TEST_SUITE_P(Sdp, SdpIntTypes,
	::testing::Combine(::testing::Values(VDLA_DTYPE_INT8, VDLA_DTYPE_INT16, VDLA_DTYPE_INT32),
		::testing::Values(VDLA_DTYPE_INT8, VDLA_DTYPE_INT16, VDLA_DTYPE_INT32),
		::testing::Values(VDLA_DTYPE_INT8, VDLA_DTYPE_INT16, VDLA_DTYPE_INT32)),
	[](const ::testing::TestParamInfo<SdpIntTypes::ParamType> &info) {
		return std::string("X") + dtypeName(std::get<0>(info.param)) + "Y"
			+ dtypeName(std::get<1>(info.param)) + "To"
			+ dtypeName(std::get<2>(info.param));
	});

/* ---- Float path: every stage and mode ---------------------------------- */

struct FloatStage {
	const char *name;
	std::function<void(Rng &, SdpParams &, uint32_t channels)> set;
};

const FloatStage kFloatStages[] = {
	{ "Identity", [](Rng &, SdpParams &, uint32_t) {} },
	{ "BiasPerTensor",
		[](Rng &, SdpParams &p, uint32_t) {
			p.bias = VDLA_SDP_MODE_PER_TENSOR;
			p.fBiasValue = 0.375f;
		} },
	{ "BiasPerChannel",
		[](Rng &rng, SdpParams &p, uint32_t c) {
			p.bias = VDLA_SDP_MODE_PER_CHANNEL;
			p.fBiasChannel = dyadicFloats(rng, c, 64, 4);
		} },
	{ "ScalePerTensor",
		[](Rng &, SdpParams &p, uint32_t) {
			p.scale = VDLA_SDP_MODE_PER_TENSOR;
			p.fScale = -1.5f;
		} },
	{ "ScalePerChannel",
		[](Rng &rng, SdpParams &p, uint32_t c) {
			p.scale = VDLA_SDP_MODE_PER_CHANNEL;
			p.fScaleChannel = dyadicFloats(rng, c, 32, 3);
		} },
	{ "EwAdd",
		[](Rng &, SdpParams &p, uint32_t) {
			p.ew = VDLA_SDP_EW_OP_ADD;
			p.fEwMul = 0.5f;
		} },
	{ "EwMul",
		[](Rng &, SdpParams &p, uint32_t) {
			p.ew = VDLA_SDP_EW_OP_MUL;
			p.fEwMul = -2.0f;
		} },
	{ "EwMax",
		[](Rng &, SdpParams &p, uint32_t) {
			p.ew = VDLA_SDP_EW_OP_MAX;
			p.fEwMul = 0.75f;
		} },
	{ "Relu", [](Rng &, SdpParams &p, uint32_t) { p.act = VDLA_SDP_ACT_RELU; } },
	{ "Clip",
		[](Rng &, SdpParams &p, uint32_t) {
			p.act = VDLA_SDP_ACT_CLIP;
			p.fClipMin = -0.5f;
			p.fClipMax = 1.25f;
		} },
	{ "LutBelowInsideAndAbove",
		[](Rng &rng, SdpParams &p, uint32_t) {
			p.act = VDLA_SDP_ACT_LUT;
			p.fLut = sampleFloatLut(rng);
			/* The table spans [-1.5, 1.5): inputs in [-2, 2] fall on all sides. */
			p.fLutStart = -1.5f;
			p.fLutStep = 3.0f / 256;
		} },
	{ "AllStages",
		[](Rng &rng, SdpParams &p, uint32_t c) {
			p.bias = VDLA_SDP_MODE_PER_CHANNEL;
			p.fBiasChannel = dyadicFloats(rng, c, 16, 3);
			p.scale = VDLA_SDP_MODE_PER_CHANNEL;
			p.fScaleChannel = dyadicFloats(rng, c, 16, 3);
			p.ew = VDLA_SDP_EW_OP_ADD;
			p.fEwMul = 0.25f;
			p.act = VDLA_SDP_ACT_CLIP;
			p.fClipMin = -3.0f;
			p.fClipMax = 2.5f;
		} },
	{ "AllStagesWithLut",
		[](Rng &rng, SdpParams &p, uint32_t c) {
			p.bias = VDLA_SDP_MODE_PER_TENSOR;
			p.fBiasValue = -0.25f;
			p.scale = VDLA_SDP_MODE_PER_CHANNEL;
			p.fScaleChannel = dyadicFloats(rng, c, 16, 3);
			p.ew = VDLA_SDP_EW_OP_MUL;
			p.fEwMul = 1.5f;
			p.act = VDLA_SDP_ACT_LUT;
			p.fLut = sampleFloatLut(rng);
			p.fLutStart = -4.0f;
			p.fLutStep = 1.0f / 32;
		} },
};

class SdpFloatStages : public ::testing::TestWithParam<std::tuple<FloatStage, uint32_t, bool>>
{
};

TEST_P(SdpFloatStages, MatchesReference)
{
	const FloatStage &stage = std::get<0>(GetParam());
	uint32_t dt = std::get<1>(GetParam());
	bool dyadic = std::get<2>(GetParam());
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(seedOf(stage.name) + dt * 2 + dyadic);
	SdpParams p;
	p.round = dt == VDLA_DTYPE_INT8 ? VDLA_ROUND_HALF_EVEN : VDLA_ROUND_FLOOR;
	const uint32_t c = 4;
	stage.set(rng, p, c);
	/* INT8 outputs need a wider spread to see rounding and saturation. */
	double range = dt == VDLA_DTYPE_INT8 || dt == VDLA_DTYPE_INT16 ? 200 : 2;
	Tensor x = dyadic ? randomDyadic(rng, VDLA_DTYPE_FP32, 2, c, 5, 6, int64_t(range * 4), 2)
			  : randomReal(rng, VDLA_DTYPE_FP32, 2, c, 5, 6, -range, range);
	Tensor y = dyadic ? randomDyadic(rng, VDLA_DTYPE_FP16, 2, c, 5, 6, 64, 4)
			  : randomReal(rng, VDLA_DTYPE_FP16, 2, c, 5, 6, -4, 4);
	SdpRun run = runSdp(
		dev, x, p.ew ? &y : nullptr, p, dt, Layout::Nhwc, Layout::Nchw, Layout::PaddedNchw);
	ASSERT_TRUE(succeeded(run.result, kSdp, run.group));
	EXPECT_TRUE(matches(run.ref, run.got));
	EXPECT_EQ(run.stats.macs, sdpMacs(x, p));
}

INSTANTIATE_TEST_SUITE_P(Sdp, SdpFloatStages,
	::testing::Combine(::testing::ValuesIn(kFloatStages),
		::testing::Values(
			VDLA_DTYPE_FP32, VDLA_DTYPE_FP16, VDLA_DTYPE_INT8, VDLA_DTYPE_INT16),
		::testing::Bool()),
	[](const ::testing::TestParamInfo<SdpFloatStages::ParamType> &info) {
		return std::string("Float") + std::get<0>(info.param).name + "To"
			+ dtypeName(std::get<1>(info.param))
			+ (std::get<2>(info.param) ? "ExactData" : "RandomData");
	});

/* ---- Float path: every combination of X, Y and DST types --------------- */

class SdpFloatTypes : public ::testing::TestWithParam<std::tuple<uint32_t, uint32_t, uint32_t>>
{
};

TEST_P(SdpFloatTypes, AllStagesMatchReference)
{
	uint32_t xt = std::get<0>(GetParam()), yt = std::get<1>(GetParam()),
		 dt = std::get<2>(GetParam());
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(xt * 100 + yt * 10 + dt);
	const uint32_t c = 3;
	Tensor x = randomReal(rng, xt, 1, c, 4, 11, -100, 100);
	Tensor y = randomReal(rng, yt, 1, c, 4, 11, -100, 100);
	SdpParams p;
	p.bias = VDLA_SDP_MODE_PER_TENSOR;
	p.fBiasValue = 1.25f;
	p.scale = VDLA_SDP_MODE_PER_CHANNEL;
	p.fScaleChannel = { 0.5f, -1.75f, 0.1f };
	p.ew = VDLA_SDP_EW_OP_MAX;
	p.fEwMul = -0.3f;
	p.act = VDLA_SDP_ACT_CLIP;
	p.fClipMin = -90.0f;
	p.fClipMax = 140.5f;
	p.round = VDLA_ROUND_HALF_UP;
	SdpRun run = runSdp(dev, x, &y, p, dt);
	ASSERT_TRUE(succeeded(run.result, kSdp, run.group));
	EXPECT_TRUE(matches(run.ref, run.got));
}

INSTANTIATE_TEST_SUITE_P(Sdp, SdpFloatTypes,
	::testing::Combine(::testing::Values(VDLA_DTYPE_FP16, VDLA_DTYPE_FP32),
		::testing::Values(VDLA_DTYPE_FP16, VDLA_DTYPE_FP32),
		::testing::Values(
			VDLA_DTYPE_FP16, VDLA_DTYPE_FP32, VDLA_DTYPE_INT8, VDLA_DTYPE_INT16)),
	[](const ::testing::TestParamInfo<SdpFloatTypes::ParamType> &info) {
		return std::string("X") + dtypeName(std::get<0>(info.param)) + "Y"
			+ dtypeName(std::get<1>(info.param)) + "To"
			+ dtypeName(std::get<2>(info.param));
	});

/* ---- Random stage combinations ----------------------------------------- */

/*
 * Random combinations from fixed seeds: types, every stage's mode, shifts,
 * rounding, wrap, per-channel parameters and layouts together.
 */
class SdpFuzz : public ::testing::TestWithParam<int>
{
};

TEST_P(SdpFuzz, RandomPipelineMatchesReference)
{
	static const uint32_t ints[] = { VDLA_DTYPE_INT8, VDLA_DTYPE_INT16, VDLA_DTYPE_INT32 };
	static const uint32_t floats[] = { VDLA_DTYPE_FP16, VDLA_DTYPE_FP32 };
	static const uint32_t floatOuts[]
		= { VDLA_DTYPE_FP16, VDLA_DTYPE_FP32, VDLA_DTYPE_INT8, VDLA_DTYPE_INT16 };
	static const Layout layouts[]
		= { Layout::Nchw, Layout::Nhwc, Layout::PaddedNchw, Layout::PaddedNhwc };
	Rng rng(11000 + GetParam());
	bool integer = GetParam() % 2 == 0;
	uint32_t n = uint32_t(rng.uniform(1, 2)), c = uint32_t(rng.uniform(1, 6));
	uint32_t h = uint32_t(rng.uniform(1, 7)), w = uint32_t(rng.uniform(1, 9));
	SdpParams p;
	p.bias = unsigned(rng.uniform(0, 2));
	p.scale = unsigned(rng.uniform(0, 2));
	p.ew = unsigned(rng.uniform(0, 3));
	p.act = unsigned(rng.uniform(0, 3));
	p.round = unsigned(rng.uniform(0, 4));
	p.wrap = rng.uniform(0, 1);
	Tensor x, y;
	uint32_t dt;
	if (integer) {
		x = randomFull(rng, ints[rng.uniform(0, 2)], n, c, h, w);
		y = randomFull(rng, ints[rng.uniform(0, 2)], n, c, h, w);
		dt = ints[rng.uniform(0, 2)];
		p.biasValue = int32_t(rng.uniform(INT32_MIN, INT32_MAX));
		p.biasChannel = randomInts(rng, c, INT32_MIN, INT32_MAX);
		p.scaleMul = int32_t(rng.uniform(INT32_MIN, INT32_MAX));
		p.scaleShift = uint32_t(rng.uniform(0, 63));
		p.scaleMulChannel = randomInts(rng, c, -70000, 70000);
		p.scaleShiftChannel = randomInts(rng, c, 0, 40);
		p.ewMul = int32_t(rng.uniform(-100000, 100000));
		p.ewShift = uint32_t(rng.uniform(0, 40));
		p.ewPostShift = uint32_t(rng.uniform(0, 63));
		p.clipMin = int32_t(rng.uniform(-100000, 0));
		p.clipMax = int32_t(rng.uniform(p.clipMin, 100000));
		p.lut = sampleIntLut(rng);
		p.lutStart = int32_t(rng.uniform(-100000, 100000));
		p.lutShift = uint32_t(rng.uniform(0, 31));
		p.outOffset = int32_t(rng.uniform(-1000, 1000));
	} else {
		x = randomReal(rng, floats[rng.uniform(0, 1)], n, c, h, w, -50, 50);
		y = randomReal(rng, floats[rng.uniform(0, 1)], n, c, h, w, -50, 50);
		dt = floatOuts[rng.uniform(0, 3)];
		p.fBiasValue = float(rng.real(-10, 10));
		p.fBiasChannel = dyadicFloats(rng, c, 100, 3);
		p.fScale = float(rng.real(-3, 3));
		p.fScaleChannel = dyadicFloats(rng, c, 100, 5);
		p.fEwMul = float(rng.real(-2, 2));
		p.fClipMin = float(rng.real(-100, 0));
		p.fClipMax = float(rng.real(0, 100));
		p.fLut = sampleFloatLut(rng);
		p.fLutStart = float(rng.real(-100, 0));
		p.fLutStep = float(rng.real(0.01, 1));
	}
	DeviceHarness dev(nullptr, kGuestBytes);
	SdpRun run = runSdp(dev, x, p.ew ? &y : nullptr, p, dt, layouts[rng.uniform(0, 3)],
		layouts[rng.uniform(0, 3)], layouts[rng.uniform(0, 3)]);
	ASSERT_TRUE(succeeded(run.result, kSdp, run.group)) << hex(p.cfg());
	EXPECT_TRUE(matches(run.ref, run.got)) << x.shape() << " Y " << dtypeName(y.dtype) << " to "
					       << dtypeName(dt) << " cfg " << hex(p.cfg());
	EXPECT_EQ(run.stats.macs, sdpMacs(x, p));
}

INSTANTIATE_TEST_SUITE_P(
	Sdp, SdpFuzz, ::testing::Range(0, 128), [](const ::testing::TestParamInfo<int> &info) {
		return std::string(info.param % 2 ? "Float" : "Int") + "Seed"
			+ std::to_string(info.param);
	});

TEST(Sdp, LargeTensorAllStagesMatchesReference)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(25);
	const uint32_t c = 64;
	Tensor x = randomFull(rng, VDLA_DTYPE_INT32, 1, c, 32, 32);
	Tensor y = randomFull(rng, VDLA_DTYPE_INT8, 1, c, 32, 32);
	SdpParams p;
	p.bias = VDLA_SDP_MODE_PER_CHANNEL;
	p.biasChannel = randomInts(rng, c, -100000, 100000);
	p.scale = VDLA_SDP_MODE_PER_CHANNEL;
	p.scaleMulChannel = randomInts(rng, c, 1, 30000);
	p.scaleShiftChannel = randomInts(rng, c, 20, 30);
	p.ew = VDLA_SDP_EW_OP_ADD;
	p.ewMul = 3;
	p.act = VDLA_SDP_ACT_LUT;
	p.lut = sampleIntLut(rng);
	p.lutStart = -128;
	p.lutShift = 0;
	p.round = VDLA_ROUND_HALF_AWAY;
	SdpRun run
		= runSdp(dev, x, &y, p, VDLA_DTYPE_INT8, Layout::Nhwc, Layout::Nhwc, Layout::Nhwc);
	ASSERT_TRUE(succeeded(run.result, kSdp, run.group));
	EXPECT_TRUE(matches(run.ref, run.got));
}

/*
 * Rows longer than the device works on at a time (256 elements), packed
 * and strided, on both paths: each chunk keeps its channel's parameters.
 */
TEST(Sdp, RowsWiderThanAChunkMatchReference)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(26);
	const uint32_t c = 3, w = 600;
	SdpParams p;
	p.bias = VDLA_SDP_MODE_PER_CHANNEL;
	p.biasChannel = randomInts(rng, c, -1000, 1000);
	p.scale = VDLA_SDP_MODE_PER_CHANNEL;
	p.scaleMulChannel = randomInts(rng, c, 1, 30000);
	p.scaleShiftChannel = randomInts(rng, c, 8, 12);
	p.ew = VDLA_SDP_EW_OP_MUL;
	p.ewMul = 5;
	p.ewShift = 1;
	p.ewPostShift = 3;
	p.act = VDLA_SDP_ACT_RELU;
	p.round = VDLA_ROUND_HALF_EVEN;
	Tensor x = randomFull(rng, VDLA_DTYPE_INT16, 1, c, 2, w);
	Tensor y = randomFull(rng, VDLA_DTYPE_INT8, 1, c, 2, w);
	SdpRun run
		= runSdp(dev, x, &y, p, VDLA_DTYPE_INT8, Layout::Nchw, Layout::PaddedNhwc, Layout::Nhwc);
	ASSERT_TRUE(succeeded(run.result, kSdp, run.group));
	EXPECT_TRUE(matches(run.ref, run.got));

	SdpParams f;
	f.bias = VDLA_SDP_MODE_PER_CHANNEL;
	f.fBiasChannel = { 0.5f, -0.25f, 2.0f };
	f.ew = VDLA_SDP_EW_OP_ADD;
	f.fEwMul = 0.5f;
	f.act = VDLA_SDP_ACT_RELU;
	Tensor fx = randomDyadic(rng, VDLA_DTYPE_FP32, 1, c, 2, w, 64, 2);
	Tensor fy = randomDyadic(rng, VDLA_DTYPE_FP16, 1, c, 2, w, 64, 2);
	SdpRun frun = runSdp(
		dev, fx, &fy, f, VDLA_DTYPE_FP16, Layout::PaddedNhwc, Layout::Nchw, Layout::Nhwc);
	ASSERT_TRUE(succeeded(frun.result, kSdp, frun.group));
	EXPECT_TRUE(matches(frun.ref, frun.got));
}

/* ---- Rounding ties, saturation and wrap -------------------------------- */

class SdpRounding : public ::testing::TestWithParam<unsigned>
{
};

TEST_P(SdpRounding, IntegerScaleTiesOfBothSignsRoundByMode)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	/* Every integer in [-64, 63]: exact halves and quarters of both signs. */
	Tensor x(VDLA_DTYPE_INT16, 1, 1, 1, 128);
	for (int k = 0; k < 128; k++)
		x.i[k] = k - 64;
	for (uint32_t shift = 1; shift <= 3; shift++) {
		SdpParams p;
		p.round = GetParam();
		p.scale = VDLA_SDP_MODE_PER_TENSOR;
		p.scaleMul = 1;
		p.scaleShift = shift;
		SdpRun run = runSdp(dev, x, nullptr, p, VDLA_DTYPE_INT8);
		ASSERT_TRUE(succeeded(run.result, kSdp, run.group));
		EXPECT_TRUE(matches(run.ref, run.got)) << "shift " << shift;
		dev.ackInterrupts(VDLA_INT_ALL);
	}
	/* -3 >> 1 = -1.5 and 3 >> 1 = 1.5, by hand. */
	const int64_t neg[5] = { -1, -2, -1, -2, -2 }, pos[5] = { 1, 1, 2, 2, 2 };
	SdpParams p;
	p.round = GetParam();
	p.scale = VDLA_SDP_MODE_PER_TENSOR;
	p.scaleMul = 1;
	p.scaleShift = 1;
	SdpRun run = runSdp(dev, x, nullptr, p, VDLA_DTYPE_INT8);
	EXPECT_EQ(run.got.i[64 - 3], neg[GetParam()]);
	EXPECT_EQ(run.got.i[64 + 3], pos[GetParam()]);
}

TEST_P(SdpRounding, FloatToIntegerTiesOfBothSignsRoundByMode)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	/* k / 4 for k in [-64, 63]: exact in FP32, so ties are exact ties. */
	Tensor x(VDLA_DTYPE_FP32, 1, 1, 2, 64);
	for (int k = 0; k < 128; k++)
		x.f[k] = (k - 64) / 4.0;
	for (uint32_t dt : { VDLA_DTYPE_INT8, VDLA_DTYPE_INT16 }) {
		SdpParams p;
		p.round = GetParam();
		SdpRun run = runSdp(dev, x, nullptr, p, dt);
		ASSERT_TRUE(succeeded(run.result, kSdp, run.group));
		EXPECT_TRUE(matches(run.ref, run.got)) << dtypeName(dt);
		dev.ackInterrupts(VDLA_INT_ALL);
		/* -2.5 and 2.5, by hand. */
		const int64_t neg[5] = { -2, -3, -2, -3, -2 }, pos[5] = { 2, 2, 3, 3, 2 };
		EXPECT_EQ(run.got.i[64 - 10], neg[GetParam()]);
		EXPECT_EQ(run.got.i[64 + 10], pos[GetParam()]);
	}
}

TEST_P(SdpRounding, LutInterpolationRoundsByMode)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	SdpParams p;
	p.round = GetParam();
	p.act = VDLA_SDP_ACT_LUT;
	/* Alternating slopes of +-2: (dT * f) >> 2 has ties of both signs. */
	for (int i = 0; i < VDLA_LUT_ENTRIES; i++)
		p.lut.push_back(int16_t(i % 2 ? 100 : 98));
	p.lutStart = 0;
	p.lutShift = 2;
	Tensor x(VDLA_DTYPE_INT16, 1, 1, 1, 64);
	for (int k = 0; k < 64; k++)
		x.i[k] = k;
	SdpRun run = runSdp(dev, x, nullptr, p, VDLA_DTYPE_INT16);
	ASSERT_TRUE(succeeded(run.result, kSdp, run.group));
	EXPECT_TRUE(matches(run.ref, run.got));
}

INSTANTIATE_TEST_SUITE_P(Sdp, SdpRounding,
	::testing::Values(VDLA_ROUND_TO_ZERO, VDLA_ROUND_FLOOR, VDLA_ROUND_HALF_UP,
		VDLA_ROUND_HALF_AWAY, VDLA_ROUND_HALF_EVEN),
	[](const ::testing::TestParamInfo<unsigned> &info) {
		return std::string(roundName(info.param));
	});

TEST(Sdp, IntegerOutputSaturatesOrWrapsAtEveryTypeLimit)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(21);
	Tensor x = randomFull(rng, VDLA_DTYPE_INT32, 1, 2, 8, 8);
	/* The limits themselves and their neighbours. */
	int64_t edges[] = { INT32_MIN, INT32_MIN + 1, -32769, -32768, -129, -128, -1, 0, 127, 128,
		32767, 32768, INT32_MAX - 1, INT32_MAX };
	for (size_t k = 0; k < sizeof(edges) / sizeof(edges[0]); k++)
		x.i[k] = edges[k];
	for (uint32_t dt : { VDLA_DTYPE_INT8, VDLA_DTYPE_INT16, VDLA_DTYPE_INT32 })
		for (bool wrap : { false, true }) {
			SdpParams p;
			p.wrap = wrap;
			p.scale = VDLA_SDP_MODE_PER_TENSOR;
			p.scaleMul = 7; /* pushes INT32 inputs past 32 bits too */
			p.outOffset = 1;
			SdpRun run = runSdp(dev, x, nullptr, p, dt);
			ASSERT_TRUE(succeeded(run.result, kSdp, run.group));
			EXPECT_TRUE(matches(run.ref, run.got))
				<< dtypeName(dt) << (wrap ? " wrap" : " saturate");
			dev.ackInterrupts(VDLA_INT_ALL);
		}
}

TEST(Sdp, IntegerStagesSaturateTo64BitsWithExact128BitProducts)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	/* (-2^31 - 2^31) * -2^31 = 2^63: saturates to 2^63 - 1 before OUT_OFFSET. */
	Tensor x(VDLA_DTYPE_INT32, 1, 1, 1, 4);
	x.i = { INT32_MIN, INT32_MIN, INT32_MAX, 0 };
	SdpParams p;
	p.bias = VDLA_SDP_MODE_PER_TENSOR;
	p.biasValue = INT32_MIN;
	p.scale = VDLA_SDP_MODE_PER_TENSOR;
	p.scaleMul = INT32_MIN;
	p.outOffset = -1;
	p.wrap = true;
	SdpRun run = runSdp(dev, x, nullptr, p, VDLA_DTYPE_INT32);
	ASSERT_TRUE(succeeded(run.result, kSdp, run.group));
	EXPECT_EQ(run.ref.i[0], -2);
	EXPECT_TRUE(matches(run.ref, run.got));
	dev.ackInterrupts(VDLA_INT_ALL);

	/* Shift 1 of the exact 2^63 is 2^62: low 32 bits 0 (not -1). */
	p.scaleShift = 1;
	p.outOffset = 0;
	p.round = VDLA_ROUND_FLOOR;
	run = runSdp(dev, x, nullptr, p, VDLA_DTYPE_INT32);
	ASSERT_TRUE(succeeded(run.result, kSdp, run.group));
	EXPECT_EQ(run.ref.i[0], 0);
	EXPECT_TRUE(matches(run.ref, run.got));
	dev.ackInterrupts(VDLA_INT_ALL);

	/* EW MUL of two ~2^62 values: a 124-bit product, shifted by 63. */
	Tensor y(VDLA_DTYPE_INT32, 1, 1, 1, 4);
	y.i = { INT32_MIN, INT32_MAX, INT32_MIN, 5 };
	SdpParams q = p;
	q.scaleShift = 0;
	q.round = VDLA_ROUND_HALF_EVEN;
	q.ew = VDLA_SDP_EW_OP_MUL;
	q.ewMul = INT32_MIN;
	q.ewPostShift = 63;
	run = runSdp(dev, x, &y, q, VDLA_DTYPE_INT32);
	ASSERT_TRUE(succeeded(run.result, kSdp, run.group));
	EXPECT_TRUE(matches(run.ref, run.got));
	dev.ackInterrupts(VDLA_INT_ALL);

	/*
	 * Without the shift the EW product saturates at -2^63 for x[0] * y[1]
	 * (2^63 - 1 for x[0] * y[0]); OUT_OFFSET -1 then saturates again at
	 * -2^63 (not past it, to the top), and the INT8 output says which.
	 */
	q.ewPostShift = 0;
	q.outOffset = -1;
	q.wrap = false;
	run = runSdp(dev, x, &y, q, VDLA_DTYPE_INT8);
	ASSERT_TRUE(succeeded(run.result, kSdp, run.group));
	EXPECT_EQ(run.ref.i[1], -128);
	EXPECT_EQ(run.ref.i[0], 127);
	EXPECT_TRUE(matches(run.ref, run.got));
}

TEST(Sdp, FloatToIntegerSaturatesOrWrapsAndNanBecomesZero)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Tensor x(VDLA_DTYPE_FP32, 1, 1, 1, 12);
	x.f = { 1e6, -1e6, 32767.5, -32768.5, 128.0, -129.0, 70000.0, -70000.0, 1e30,
		std::numeric_limits<double>::quiet_NaN(), INFINITY, -INFINITY };
	for (uint32_t dt : { VDLA_DTYPE_INT8, VDLA_DTYPE_INT16 })
		for (bool wrap : { false, true }) {
			Tensor xs = x;
			if (wrap) /* wrapping 1e30 and infinities is not specified exactly */
				xs.f[8] = 3.0, xs.f[10] = 5.0, xs.f[11] = -7.0;
			SdpParams p;
			p.wrap = wrap;
			p.round = VDLA_ROUND_HALF_EVEN;
			SdpRun run = runSdp(dev, xs, nullptr, p, dt);
			ASSERT_TRUE(succeeded(run.result, kSdp, run.group));
			EXPECT_TRUE(matches(run.ref, run.got))
				<< dtypeName(dt) << (wrap ? " wrap" : " saturate");
			EXPECT_EQ(run.got.i[9], 0) << "NaN converts to 0";
			dev.ackInterrupts(VDLA_INT_ALL);
		}
}

TEST(Sdp, Fp16OutputRoundsToNearestEvenAndOverflowsToInfinity)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Tensor x(VDLA_DTYPE_FP32, 1, 1, 1, 10);
	/* Ties between FP16 neighbours, the largest half and beyond. */
	x.f = { 1.0 + std::ldexp(1.0, -11), 1.0 + 3 * std::ldexp(1.0, -11),
		-(1.0 + std::ldexp(1.0, -11)), 65504.0, 65519.0, 65520.0, -1e6,
		std::ldexp(1.0, -25), std::ldexp(3.0, -25), std::ldexp(1.0, -30) };
	SdpParams p;
	SdpRun run = runSdp(dev, x, nullptr, p, VDLA_DTYPE_FP16);
	ASSERT_TRUE(succeeded(run.result, kSdp, run.group));
	EXPECT_TRUE(matches(run.ref, run.got));
	EXPECT_EQ(run.got.f[0], 1.0);
	EXPECT_EQ(run.got.f[1], 1.0 + std::ldexp(1.0, -9));
	EXPECT_EQ(run.got.f[4], 65504.0);
	EXPECT_TRUE(std::isinf(run.got.f[5]) && run.got.f[5] > 0);
	EXPECT_TRUE(std::isinf(run.got.f[6]) && run.got.f[6] < 0);
	EXPECT_EQ(run.got.f[8], std::ldexp(2.0, -24));
}

TEST(Sdp, FloatNanPassesThroughFp32AndActivationsFollowFmax)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	const double nan = std::numeric_limits<double>::quiet_NaN();
	Tensor x(VDLA_DTYPE_FP32, 1, 1, 1, 4);
	x.f = { nan, -1.0, 2.0, nan };
	SdpParams none;
	SdpRun run = runSdp(dev, x, nullptr, none, VDLA_DTYPE_FP32);
	ASSERT_TRUE(succeeded(run.result, kSdp, run.group));
	EXPECT_TRUE(std::isnan(run.got.f[0]));
	dev.ackInterrupts(VDLA_INT_ALL);

	/* RELU is fmax(v, 0): NaN gives 0. LUT: NaN takes T[0]. */
	SdpParams relu;
	relu.act = VDLA_SDP_ACT_RELU;
	run = runSdp(dev, x, nullptr, relu, VDLA_DTYPE_FP32);
	ASSERT_TRUE(succeeded(run.result, kSdp, run.group));
	EXPECT_TRUE(matches(run.ref, run.got));
	EXPECT_EQ(run.got.f[0], 0.0);
	dev.ackInterrupts(VDLA_INT_ALL);

	Rng rng(4);
	SdpParams lut;
	lut.act = VDLA_SDP_ACT_LUT;
	lut.fLut = sampleFloatLut(rng);
	lut.fLutStart = -1;
	lut.fLutStep = 0.125f;
	run = runSdp(dev, x, nullptr, lut, VDLA_DTYPE_FP32);
	ASSERT_TRUE(succeeded(run.result, kSdp, run.group));
	EXPECT_TRUE(matches(run.ref, run.got));
	EXPECT_EQ(run.got.f[3], double(lut.fLut[0]));
}

TEST(Sdp, IntegerLutEdgesShift0AndShift31)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(22);
	Tensor x = randomFull(rng, VDLA_DTYPE_INT32, 1, 1, 4, 64);
	/* Around the table's start and end. */
	for (int k = 0; k < 40; k++)
		x.i[k] = 1000 + k - 20;
	for (int k = 0; k < 40; k++)
		x.i[40 + k] = 1000 + 256 + k - 20;
	for (uint32_t shift : { 0u, 31u }) {
		SdpParams p;
		p.act = VDLA_SDP_ACT_LUT;
		p.lut = sampleIntLut(rng);
		p.lutStart = shift == 31 ? INT32_MIN : 1000;
		p.lutShift = shift;
		p.round = VDLA_ROUND_HALF_AWAY;
		SdpRun run = runSdp(dev, x, nullptr, p, VDLA_DTYPE_INT16);
		ASSERT_TRUE(succeeded(run.result, kSdp, run.group));
		EXPECT_TRUE(matches(run.ref, run.got)) << "LUT_SHIFT " << shift;
		dev.ackInterrupts(VDLA_INT_ALL);
	}
}

TEST(Sdp, CountersFollowTheSpecDefinitions)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(23);
	const uint32_t c = 6;
	Tensor x = randomFull(rng, VDLA_DTYPE_INT16, 2, c, 3, 5);
	Tensor y = randomFull(rng, VDLA_DTYPE_INT32, 2, c, 3, 5);
	SdpParams p;
	p.bias = VDLA_SDP_MODE_PER_CHANNEL;
	p.biasChannel = randomInts(rng, c, -10, 10);
	p.scale = VDLA_SDP_MODE_PER_CHANNEL;
	p.scaleMulChannel = randomInts(rng, c, -10, 10);
	p.scaleShiftChannel = randomInts(rng, c, 0, 3);
	p.ew = VDLA_SDP_EW_OP_MUL;
	p.act = VDLA_SDP_ACT_LUT;
	p.lut = sampleIntLut(rng);
	SdpRun run = runSdp(dev, x, &y, p, VDLA_DTYPE_INT8, Layout::PaddedNchw, Layout::PaddedNhwc,
		Layout::PaddedNhwc);
	ASSERT_TRUE(succeeded(run.result, kSdp, run.group));
	EXPECT_TRUE(matches(run.ref, run.got));
	/* One MAC per element for SCALE and one for EW MUL. */
	EXPECT_EQ(run.stats.macs, 2 * x.size());
	EXPECT_EQ(run.stats.bytesRead, x.size() * 2 + y.size() * 4 + sdpParamBytes(p, true, c));
	EXPECT_EQ(run.stats.bytesWritten, x.size());
	dev.ackInterrupts(VDLA_INT_ALL);

	/* Float: per-tensor parameters come from registers and count nothing. */
	Tensor fx = randomReal(rng, VDLA_DTYPE_FP16, 1, c, 4, 4, -1, 1);
	SdpParams f;
	f.bias = VDLA_SDP_MODE_PER_TENSOR;
	f.scale = VDLA_SDP_MODE_PER_CHANNEL;
	f.fScaleChannel = dyadicFloats(rng, c, 8, 2);
	f.act = VDLA_SDP_ACT_LUT;
	f.fLut = sampleFloatLut(rng);
	run = runSdp(dev, fx, nullptr, f, VDLA_DTYPE_FP32);
	ASSERT_TRUE(succeeded(run.result, kSdp, run.group));
	EXPECT_EQ(run.stats.macs, fx.size());
	EXPECT_EQ(run.stats.bytesRead, fx.size() * 2 + sdpParamBytes(f, false, c));
	EXPECT_EQ(run.stats.bytesWritten, fx.size() * 4);
}

TEST(Sdp, ReadsAndWritesSram)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(24);
	Tensor x = randomFull(rng, VDLA_DTYPE_INT8, 1, 4, 6, 6);
	Tensor y = randomFull(rng, VDLA_DTYPE_INT16, 1, 4, 6, 6);
	SdpParams p;
	p.ew = VDLA_SDP_EW_OP_ADD;
	p.ewShift = 4;
	p.round = VDLA_ROUND_HALF_EVEN;
	Tensor ref = sdp(x, &y, p, VDLA_DTYPE_INT16);
	SdpOp op;
	op.p = p;
	op.x = makeDesc(DeviceHarness::sramAddr(0x800), x.dtype, 1, 4, 6, 6, Layout::Nhwc);
	op.y = makeDesc(DeviceHarness::sramAddr(0x1000), y.dtype, 1, 4, 6, 6, Layout::Nchw);
	op.dst = makeDesc(
		DeviceHarness::sramAddr(0x2000), VDLA_DTYPE_INT16, 1, 4, 6, 6, Layout::Nchw);
	store(dev, op.x, x);
	store(dev, op.y, y);
	placeSdpParams(dev, op);
	programSdp(dev, 0, op);
	ASSERT_TRUE(succeeded(runGroup(dev, kSdp, 0), kSdp, 0));
	EXPECT_TRUE(matches(ref, load(dev, op.dst)));
}

/* ---- Invalid programming ----------------------------------------------- */

struct SdpInvalidCase {
	const char *name;
	uint32_t error;
	bool floatPath;
	std::function<void(DeviceHarness &, SdpOp &)> breakIt;
};

TensorDesc retypeSdp(const TensorDesc &d, uint32_t dtype)
{
	return makeDesc(d.addr, dtype, d.n, d.c, d.h, d.w, Layout::Nchw);
}

const SdpInvalidCase kSdpInvalid[] = {
	{ "RoundMode5", VDLA_ERROR_PARAM, false,
		[](DeviceHarness &, SdpOp &op) { op.p.round = 5; } },
	{ "RoundMode7FloatPath", VDLA_ERROR_PARAM, true,
		[](DeviceHarness &, SdpOp &op) { op.p.round = 7; } },
	{ "ScaleShift64", VDLA_ERROR_PARAM, false,
		[](DeviceHarness &, SdpOp &op) {
			op.p.scale = VDLA_SDP_MODE_PER_TENSOR;
			op.p.scaleShift = 64;
		} },
	{ "EwShift64", VDLA_ERROR_PARAM, false,
		[](DeviceHarness &, SdpOp &op) {
			op.p.ew = VDLA_SDP_EW_OP_ADD;
			op.p.ewShift = 64;
		} },
	{ "EwPostShift64", VDLA_ERROR_PARAM, false,
		[](DeviceHarness &, SdpOp &op) {
			op.p.ew = VDLA_SDP_EW_OP_MUL;
			op.p.ewPostShift = 64;
		} },
	{ "ClipMaxBelowClipMin", VDLA_ERROR_PARAM, false,
		[](DeviceHarness &, SdpOp &op) {
			op.p.act = VDLA_SDP_ACT_CLIP;
			op.p.clipMin = 5;
			op.p.clipMax = 4;
		} },
	{ "FloatClipMaxBelowClipMin", VDLA_ERROR_PARAM, true,
		[](DeviceHarness &, SdpOp &op) {
			op.p.act = VDLA_SDP_ACT_CLIP;
			op.p.fClipMin = 0.5f;
			op.p.fClipMax = -0.5f;
		} },
	{ "LutShift32", VDLA_ERROR_PARAM, false,
		[](DeviceHarness &, SdpOp &op) {
			op.p.act = VDLA_SDP_ACT_LUT;
			op.p.lut.assign(VDLA_LUT_ENTRIES, 0);
			op.p.lutShift = 32;
		} },
	{ "FloatLutStepZero", VDLA_ERROR_PARAM, true,
		[](DeviceHarness &, SdpOp &op) {
			op.p.act = VDLA_SDP_ACT_LUT;
			op.p.fLut.assign(VDLA_LUT_ENTRIES, 0);
			op.p.fLutStep = 0;
		} },
	{ "FloatLutStepNegative", VDLA_ERROR_PARAM, true,
		[](DeviceHarness &, SdpOp &op) {
			op.p.act = VDLA_SDP_ACT_LUT;
			op.p.fLut.assign(VDLA_LUT_ENTRIES, 0);
			op.p.fLutStep = -0.5f;
		} },
	{ "FloatLutStepNan", VDLA_ERROR_PARAM, true,
		[](DeviceHarness &, SdpOp &op) {
			op.p.act = VDLA_SDP_ACT_LUT;
			op.p.fLut.assign(VDLA_LUT_ENTRIES, 0);
			op.p.fLutStep = std::numeric_limits<float>::quiet_NaN();
		} },
	{ "BiasMode3", VDLA_ERROR_PARAM, false, [](DeviceHarness &, SdpOp &op) { op.p.bias = 3; } },
	{ "ScaleMode3", VDLA_ERROR_PARAM, false,
		[](DeviceHarness &, SdpOp &op) { op.p.scale = 3; } },
	{ "IntegerPathFp16Output", VDLA_ERROR_DTYPE, false,
		[](DeviceHarness &, SdpOp &op) { op.dst = retypeSdp(op.dst, VDLA_DTYPE_FP16); } },
	{ "FloatPathInt32Output", VDLA_ERROR_DTYPE, true,
		[](DeviceHarness &, SdpOp &op) { op.dst = retypeSdp(op.dst, VDLA_DTYPE_INT32); } },
	{ "IntegerXWithFloatOperand", VDLA_ERROR_DTYPE, false,
		[](DeviceHarness &, SdpOp &op) {
			op.p.ew = VDLA_SDP_EW_OP_ADD;
			op.y = retypeSdp(op.y, VDLA_DTYPE_FP32);
		} },
	{ "FloatXWithIntegerOperand", VDLA_ERROR_DTYPE, true,
		[](DeviceHarness &, SdpOp &op) {
			op.p.ew = VDLA_SDP_EW_OP_MUL;
			op.y = retypeSdp(op.y, VDLA_DTYPE_INT16);
		} },
	{ "UnknownInputType", VDLA_ERROR_DTYPE, false,
		[](DeviceHarness &, SdpOp &op) {
			op.x = retypeSdp(op.x, VDLA_DTYPE_FP32);
			op.x.dtype = 6;
		} },
	{ "OutputShapeDiffers", VDLA_ERROR_SHAPE, false,
		[](DeviceHarness &, SdpOp &op) { op.dst.h = 3; } },
	{ "OperandShapeDiffers", VDLA_ERROR_SHAPE, false,
		[](DeviceHarness &, SdpOp &op) {
			op.p.ew = VDLA_SDP_EW_OP_MAX;
			op.y.c = 2;
		} },
	{ "ZeroBatch", VDLA_ERROR_SHAPE, false,
		[](DeviceHarness &, SdpOp &op) { op.x.n = op.dst.n = 0; } },
	{ "Int16InputElementStrideOdd", VDLA_ERROR_STRIDE, false,
		[](DeviceHarness &, SdpOp &op) { op.x.strideW = 3; } },
	{ "Fp32OutputBatchStrideNotMultipleOf4", VDLA_ERROR_STRIDE, true,
		[](DeviceHarness &, SdpOp &op) {
			op.x.n = op.dst.n = 2;
			op.x.strideN = 4 * 6 * 6 * 2;
			op.dst.strideN = 4 * 6 * 6 * 4 + 2;
		} },
	{ "OutputExtentOver2GiB", VDLA_ERROR_LIMIT, false,
		[](DeviceHarness &, SdpOp &op) {
			op.x.strideC = 0x20000000;
			op.dst.strideC = 0x30000000;
		} },
};

class SdpInvalid : public ::testing::TestWithParam<SdpInvalidCase>
{
};

TEST_P(SdpInvalid, EndsInErrorAndWritesNothing)
{
	const SdpInvalidCase &c = GetParam();
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(9);
	SdpOp op;
	uint32_t xt = c.floatPath ? VDLA_DTYPE_FP16 : VDLA_DTYPE_INT16;
	uint32_t dt = c.floatPath ? VDLA_DTYPE_FP32 : VDLA_DTYPE_INT8;
	op.x = placeTensor(dev, randomTensor(rng, xt, 1, 4, 6, 6));
	op.y = placeTensor(dev, randomTensor(rng, xt, 1, 4, 6, 6));
	const uint64_t outBytes = 16 << 10;
	uint64_t out = allocCanary(dev, outBytes);
	op.dst = makeDesc(out, dt, 1, 4, 6, 6, Layout::Nchw);
	c.breakIt(dev, op);
	placeSdpParams(dev, op);
	programSdp(dev, 0, op);
	OpResult r = runGroup(dev, kSdp, 0);
	EXPECT_TRUE(failedWith(r, kSdp, 0, c.error));
	EXPECT_TRUE(regionUntouched(dev, out - kMargin, outBytes + 2 * kMargin));
	EXPECT_EQ(dev.stats(kSdp, 0).bytesWritten, 0u);
}

INSTANTIATE_TEST_SUITE_P(Sdp, SdpInvalid, ::testing::ValuesIn(kSdpInvalid),
	[](const ::testing::TestParamInfo<SdpInvalidCase> &info) {
		return std::string(info.param.name);
	});

} /* namespace */
