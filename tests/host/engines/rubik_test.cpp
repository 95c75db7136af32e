/* SPDX-License-Identifier: MIT */
/*
 * RUBIK against the reference: all 24 permutations, reshapes, contract
 * (depth to space) and split (space to depth) with square and non-square
 * blocks, every type, packed and padded layouts, counters and invalid
 * programming.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <functional>
#include <tuple>

#include "engine_util.h"

using namespace vdla_etest;
using namespace vdla_ref;

namespace {

constexpr unsigned kRubik = VDLA_ENGINE_RUBIK;

const uint32_t kAllTypes[]
	= { VDLA_DTYPE_INT8, VDLA_DTYPE_INT16, VDLA_DTYPE_INT32, VDLA_DTYPE_FP16, VDLA_DTYPE_FP32 };

struct RubikRun {
	unsigned group; /* the group it ran on: CONSUMER at the time */
	Tensor ref, got;
	OpResult result;
	RubikOp op;
};

RubikRun runRubik(DeviceHarness &dev, const Tensor &src, const RubikParams &p,
	Layout sl = Layout::Nchw, Layout dl = Layout::Nchw)
{
	RubikRun run;
	run.ref = rubik(src, p);
	run.op.p = p;
	run.op.src = placeTensor(dev, src, sl);
	run.op.dst = allocTensor(dev, src.dtype, run.ref.n, run.ref.c, run.ref.h, run.ref.w, dl);
	run.group = consumer(dev, kRubik);
	programRubik(dev, run.group, run.op);
	run.result = runGroup(dev, kRubik, run.group);
	run.got = load(dev, run.op.dst);
	EXPECT_TRUE(gapsUntouched(dev, run.op.dst));
	return run;
}

/* Every float type's values are bit patterns to move, not numbers to compute. */
Tensor rubikData(Rng &rng, uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w)
{
	if (isFloat(dtype))
		return randomReal(rng, dtype, n, c, h, w, -1000, 1000);
	return randomFull(rng, dtype, n, c, h, w);
}

std::string permName(const unsigned perm[4])
{
	static const char dims[] = { 'W', 'H', 'C', 'N' };
	std::string s;
	for (int d = 3; d >= 0; d--)
		s += dims[perm[d]];
	return s;
}

std::vector<std::array<unsigned, 4>> allPermutations()
{
	std::vector<std::array<unsigned, 4>> all;
	std::array<unsigned, 4> p = { 0, 1, 2, 3 };
	do
		all.push_back(p);
	while (std::next_permutation(p.begin(), p.end()));
	return all;
}

class RubikPermute : public ::testing::TestWithParam<std::array<unsigned, 4>>
{
};

TEST_P(RubikPermute, Int16MatchesReference)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	RubikParams p;
	std::copy(GetParam().begin(), GetParam().end(), p.perm);
	Rng rng(p.permRegister());
	/* Distinct sizes on every dimension, so a wrong axis shows. */
	Tensor src = rubikData(rng, VDLA_DTYPE_INT16, 2, 3, 4, 5);
	RubikRun run = runRubik(dev, src, p, Layout::Nchw, Layout::PaddedNhwc);
	ASSERT_TRUE(succeeded(run.result, kRubik, run.group));
	EXPECT_TRUE(matches(run.ref, run.got));
}

INSTANTIATE_TEST_SUITE_P(Rubik, RubikPermute, ::testing::ValuesIn(allPermutations()),
	[](const ::testing::TestParamInfo<std::array<unsigned, 4>> &info) {
		unsigned perm[4];
		std::copy(info.param.begin(), info.param.end(), perm);
		return "To" + permName(perm);
	});

/* Mode, block / permutation / shape variant, type. */
struct RubikCase {
	const char *name;
	unsigned mode;
	uint32_t n, c, h, w;
	uint32_t bx, by;
	unsigned perm[4];
	uint32_t rn, rc, rh, rw; /* RESHAPE destination */
	Layout src, dst;
};

const RubikCase kCases[] = {
	{ "PermuteNchwToNhwcOrder", VDLA_RUBIK_PERMUTE, 1, 3, 4, 5, 1, 1,
		{ VDLA_DIM_C, VDLA_DIM_W, VDLA_DIM_H, VDLA_DIM_N }, 0, 0, 0, 0, Layout::Nchw,
		Layout::Nchw },
	{ "PermuteSwapBatchAndChannels", VDLA_RUBIK_PERMUTE, 3, 2, 3, 4, 1, 1,
		{ VDLA_DIM_W, VDLA_DIM_H, VDLA_DIM_N, VDLA_DIM_C }, 0, 0, 0, 0, Layout::PaddedNhwc,
		Layout::PaddedNchw },
	{ "PermuteIdentity", VDLA_RUBIK_PERMUTE, 2, 3, 3, 3, 1, 1,
		{ VDLA_DIM_W, VDLA_DIM_H, VDLA_DIM_C, VDLA_DIM_N }, 0, 0, 0, 0, Layout::Nhwc,
		Layout::Nchw },
	{ "ReshapeFlatten", VDLA_RUBIK_RESHAPE, 2, 3, 4, 5, 1, 1, { 0, 1, 2, 3 }, 1, 1, 1, 120,
		Layout::Nhwc, Layout::Nchw },
	{ "ReshapeReverseDims", VDLA_RUBIK_RESHAPE, 2, 3, 4, 5, 1, 1, { 0, 1, 2, 3 }, 5, 4, 3, 2,
		Layout::PaddedNchw, Layout::PaddedNhwc },
	{ "ReshapeToChannels", VDLA_RUBIK_RESHAPE, 1, 4, 6, 5, 1, 1, { 0, 1, 2, 3 }, 1, 120, 1, 1,
		Layout::Nchw, Layout::Nhwc },
	{ "ContractBlock1x1", VDLA_RUBIK_CONTRACT, 1, 3, 4, 5, 1, 1, { 0, 1, 2, 3 }, 0, 0, 0, 0,
		Layout::Nchw, Layout::Nchw },
	{ "ContractBlock2x2", VDLA_RUBIK_CONTRACT, 2, 8, 3, 5, 2, 2, { 0, 1, 2, 3 }, 0, 0, 0, 0,
		Layout::Nhwc, Layout::PaddedNchw },
	{ "ContractBlock3x2", VDLA_RUBIK_CONTRACT, 1, 12, 4, 3, 3, 2, { 0, 1, 2, 3 }, 0, 0, 0, 0,
		Layout::Nchw, Layout::Nhwc },
	{ "ContractBlock2x3", VDLA_RUBIK_CONTRACT, 1, 6, 2, 4, 2, 3, { 0, 1, 2, 3 }, 0, 0, 0, 0,
		Layout::PaddedNhwc, Layout::Nchw },
	{ "ContractBlock4x1", VDLA_RUBIK_CONTRACT, 1, 8, 3, 3, 4, 1, { 0, 1, 2, 3 }, 0, 0, 0, 0,
		Layout::Nchw, Layout::Nchw },
	{ "ContractBlock16x16", VDLA_RUBIK_CONTRACT, 1, 256, 2, 1, 16, 16, { 0, 1, 2, 3 }, 0, 0, 0,
		0, Layout::Nhwc, Layout::Nchw },
	{ "SplitBlock2x2", VDLA_RUBIK_SPLIT, 2, 3, 6, 8, 2, 2, { 0, 1, 2, 3 }, 0, 0, 0, 0,
		Layout::Nchw, Layout::Nhwc },
	{ "SplitBlock3x2", VDLA_RUBIK_SPLIT, 1, 2, 4, 9, 3, 2, { 0, 1, 2, 3 }, 0, 0, 0, 0,
		Layout::PaddedNchw, Layout::Nchw },
	{ "SplitBlock1x4", VDLA_RUBIK_SPLIT, 1, 3, 8, 5, 1, 4, { 0, 1, 2, 3 }, 0, 0, 0, 0,
		Layout::Nhwc, Layout::PaddedNhwc },
	{ "SplitBlock16x16", VDLA_RUBIK_SPLIT, 1, 1, 32, 16, 16, 16, { 0, 1, 2, 3 }, 0, 0, 0, 0,
		Layout::Nchw, Layout::Nhwc },
};

class RubikSweep : public ::testing::TestWithParam<std::tuple<RubikCase, uint32_t>>
{
};

TEST_P(RubikSweep, MatchesReference)
{
	const RubikCase &k = std::get<0>(GetParam());
	uint32_t dtype = std::get<1>(GetParam());
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(k.mode * 1000 + k.c * 10 + dtype + k.bx * 7 + k.by * 13);
	RubikParams p;
	p.mode = k.mode;
	p.bx = k.bx, p.by = k.by;
	std::copy(k.perm, k.perm + 4, p.perm);
	p.n = k.rn, p.c = k.rc, p.h = k.rh, p.w = k.rw;
	Tensor src = rubikData(rng, dtype, k.n, k.c, k.h, k.w);
	RubikRun run = runRubik(dev, src, p, k.src, k.dst);
	ASSERT_TRUE(succeeded(run.result, kRubik, run.group));
	EXPECT_TRUE(matches(run.ref, run.got));
}

INSTANTIATE_TEST_SUITE_P(Rubik, RubikSweep,
	::testing::Combine(::testing::ValuesIn(kCases), ::testing::ValuesIn(kAllTypes)),
	[](const ::testing::TestParamInfo<RubikSweep::ParamType> &info) {
		return std::string(dtypeName(std::get<1>(info.param)))
			+ std::get<0>(info.param).name;
	});

TEST(Rubik, SplitUndoesContract)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(61);
	Tensor src = rubikData(rng, VDLA_DTYPE_FP16, 2, 12, 3, 4);
	RubikParams p;
	p.mode = VDLA_RUBIK_CONTRACT;
	p.bx = 2, p.by = 3;
	RubikRun contracted = runRubik(dev, src, p);
	ASSERT_TRUE(succeeded(contracted.result, kRubik, contracted.group));
	dev.ackInterrupts(VDLA_INT_ALL);
	p.mode = VDLA_RUBIK_SPLIT;
	RubikRun split = runRubik(dev, contracted.got, p);
	ASSERT_TRUE(succeeded(split.result, kRubik, split.group));
	EXPECT_TRUE(matches(src, split.got));
}

TEST(Rubik, CountersCountElementBytes)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(62);
	Tensor src = rubikData(rng, VDLA_DTYPE_INT32, 2, 3, 4, 5);
	RubikParams p;
	p.perm[VDLA_DIM_W] = VDLA_DIM_H;
	p.perm[VDLA_DIM_H] = VDLA_DIM_W;
	RubikRun run = runRubik(dev, src, p, Layout::PaddedNchw, Layout::PaddedNhwc);
	ASSERT_TRUE(succeeded(run.result, kRubik, run.group));
	GroupStats s = dev.stats(kRubik, run.group);
	EXPECT_EQ(s.bytesRead, src.size() * 4);
	EXPECT_EQ(s.bytesWritten, src.size() * 4);
}

/* ---- Invalid programming ----------------------------------------------- */

struct RubikInvalidCase {
	const char *name;
	uint32_t error;
	std::function<void(RubikOp &)> breakIt;
};

/* The valid base: INT16 PERMUTE identity of 1x4x6x6 into 1x4x6x6. */
const RubikInvalidCase kRubikInvalid[] = {
	{ "PermNotAPermutation", VDLA_ERROR_PARAM,
		[](RubikOp &op) { op.p.perm[VDLA_DIM_W] = VDLA_DIM_H; } },
	{ "Mode4", VDLA_ERROR_PARAM, [](RubikOp &op) { op.p.mode = 4; } },
	{ "ContractBlockZero", VDLA_ERROR_PARAM,
		[](RubikOp &op) {
			op.p.mode = VDLA_RUBIK_CONTRACT;
			op.p.bx = 0;
			op.p.by = 2;
		} },
	{ "SplitBlock17", VDLA_ERROR_PARAM,
		[](RubikOp &op) {
			/* 17 wide (overlapping reads) so that only the block is wrong. */
			op.src.w = 17;
			op.p.mode = VDLA_RUBIK_SPLIT;
			op.p.bx = 17;
			op.dst.c = 4 * 17;
			op.dst.w = 1;
		} },
	{ "PermuteOutputDimsNotPermuted", VDLA_ERROR_SHAPE,
		[](RubikOp &op) {
			op.p.perm[VDLA_DIM_W] = VDLA_DIM_C;
			op.p.perm[VDLA_DIM_C] = VDLA_DIM_W;
			op.dst.w = 6; /* should be C = 4 */
		} },
	{ "ReshapeCountDiffers", VDLA_ERROR_SHAPE,
		[](RubikOp &op) {
			op.p.mode = VDLA_RUBIK_RESHAPE;
			op.dst.w = 5;
		} },
	{ "ContractChannelsNotDivisible", VDLA_ERROR_SHAPE,
		[](RubikOp &op) {
			op.p.mode = VDLA_RUBIK_CONTRACT;
			op.p.bx = 3;
			op.p.by = 1;
			op.dst.c = 1;
			op.dst.w = 18;
		} },
	{ "SplitHeightNotDivisible", VDLA_ERROR_SHAPE,
		[](RubikOp &op) {
			op.p.mode = VDLA_RUBIK_SPLIT;
			op.p.bx = 1;
			op.p.by = 4;
			op.dst.c = 16;
			op.dst.h = 1;
		} },
	{ "OutputTypeDiffers", VDLA_ERROR_DTYPE,
		[](RubikOp &op) {
			op.dst = makeDesc(op.dst.addr, VDLA_DTYPE_FP16, 1, 4, 6, 6, Layout::Nchw);
		} },
	{ "UnknownType", VDLA_ERROR_DTYPE,
		[](RubikOp &op) {
			op.src = makeDesc(op.src.addr, VDLA_DTYPE_FP32, 1, 4, 6, 6, Layout::Nchw);
			op.dst = makeDesc(op.dst.addr, VDLA_DTYPE_FP32, 1, 4, 6, 6, Layout::Nchw);
			op.src.dtype = op.dst.dtype = 7;
		} },
	{ "OutputStrideOdd", VDLA_ERROR_STRIDE, [](RubikOp &op) { op.dst.strideW = 1; } },
	{ "ZeroChannels", VDLA_ERROR_SHAPE, [](RubikOp &op) { op.src.c = op.dst.c = 0; } },
};

class RubikInvalid : public ::testing::TestWithParam<RubikInvalidCase>
{
};

TEST_P(RubikInvalid, EndsInErrorAndWritesNothing)
{
	const RubikInvalidCase &c = GetParam();
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(63);
	RubikOp op;
	op.src = placeTensor(dev, randomFull(rng, VDLA_DTYPE_INT16, 1, 4, 6, 6));
	const uint64_t outBytes = 16 << 10;
	uint64_t out = allocCanary(dev, outBytes);
	op.dst = makeDesc(out, VDLA_DTYPE_INT16, 1, 4, 6, 6, Layout::Nchw);
	c.breakIt(op);
	programRubik(dev, 0, op);
	OpResult r = runGroup(dev, kRubik, 0);
	EXPECT_TRUE(failedWith(r, kRubik, 0, c.error));
	EXPECT_TRUE(regionUntouched(dev, out - kMargin, outBytes + 2 * kMargin));
	EXPECT_EQ(dev.stats(kRubik, 0).bytesWritten, 0u);
}

INSTANTIATE_TEST_SUITE_P(Rubik, RubikInvalid, ::testing::ValuesIn(kRubikInvalid),
	[](const ::testing::TestParamInfo<RubikInvalidCase> &info) {
		return std::string(info.param.name);
	});

} /* namespace */
