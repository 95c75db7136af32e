/* SPDX-License-Identifier: MIT */
/*
 * CONV against the reference: every data type over a table of geometries
 * (kernel sizes 1-7 and 32, strides 1-3 and 16, symmetric and asymmetric
 * padding with PAD_VALUE, dilation 1-3 and 16, groups, depthwise, batches,
 * packed and padded layouts), the accumulator limits, counters and invalid
 * programming.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <cstring>
#include <functional>
#include <map>
#include <tuple>

#include "engine_util.h"

using namespace vdla_etest;
using namespace vdla_ref;

namespace {

constexpr unsigned kConv = VDLA_ENGINE_CONV;

struct ConvGeom {
	const char *name;
	uint32_t n, cin, h, w, cout, kh, kw;
	uint32_t sx, sy, pl, pr, pt, pb, dx, dy, groups;
	int padInt;
	double padFloat;
	Layout src = Layout::Nchw, wgt = Layout::Nchw, dst = Layout::Nchw;
	/* Float data k/8: sums exact in FP32, so results are bit-exact. */
	bool dyadic = true;
};

/*
 * name, n, cin, h, w, cout, kh, kw, sx, sy, pl, pr, pt, pb, dx, dy, groups,
 * PAD_VALUE (integer types, float types), then optionally the layouts of
 * src, wgt and dst and whether float data are dyadic.
 */
const ConvGeom kGeoms[] = {
	{ "Pointwise1x1OnOnePixel", 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0 },
	{ "Pointwise1x1ManyChannels", 1, 16, 5, 7, 8, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0,
		Layout::Nhwc, Layout::Nchw, Layout::Nhwc },
	{ "Kernel3Stride1Pad1", 1, 4, 8, 8, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0 },
	{ "Kernel3Stride2Pad1Nhwc", 1, 3, 9, 7, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 0, 0,
		Layout::Nhwc, Layout::Nhwc, Layout::Nhwc, false },
	{ "Kernel5Stride1Pad2", 1, 3, 10, 9, 4, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 1, 0, 0 },
	{ "Kernel7Stride2Pad3", 1, 3, 15, 13, 4, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 1, 0, 0,
		Layout::Nchw, Layout::Nchw, Layout::Nchw, false },
	{ "Kernel7Stride3AsymmetricPad", 1, 2, 16, 17, 3, 7, 7, 3, 3, 1, 3, 2, 0, 1, 1, 1, 2, 0.5 },
	{ "Kernel3Dilation2", 1, 3, 11, 10, 4, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1, 0, 0 },
	{ "Kernel3Dilation3Stride2PaddedStrides", 1, 2, 14, 13, 3, 3, 3, 2, 2, 0, 1, 3, 0, 3, 3, 1,
		-1, -0.25, Layout::PaddedNchw, Layout::PaddedNchw, Layout::PaddedNchw },
	{ "NonSquareKernel3x5Dilation2x1", 1, 3, 9, 12, 2, 3, 5, 1, 1, 2, 2, 1, 1, 2, 1, 1, 0, 0 },
	{ "Stride3x1", 1, 2, 8, 11, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, Layout::Nchw,
		Layout::Nchw, Layout::PaddedNhwc },
	{ "Groups2", 1, 4, 6, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2, 0, 0 },
	{ "Groups4PaddedStrides", 1, 8, 5, 7, 8, 3, 3, 1, 1, 1, 0, 0, 1, 1, 1, 4, 4, 1.0,
		Layout::PaddedNhwc, Layout::PaddedNchw, Layout::PaddedNchw, false },
	{ "DepthwiseWithPadValue", 1, 8, 7, 7, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8, -3, 1.5 },
	{ "DepthwiseKernel5Stride2", 1, 6, 11, 9, 6, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 6, 0, 0,
		Layout::Nhwc, Layout::Nchw, Layout::Nhwc },
	{ "DepthwiseMultiplier2", 1, 3, 6, 5, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3, 7, -2.0 },
	{ "Batch3", 3, 3, 6, 5, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0 },
	{ "Batch2PaddedNhwcStride2", 2, 4, 5, 6, 3, 3, 3, 2, 2, 0, 1, 1, 0, 1, 1, 1, 1, 0.125,
		Layout::PaddedNhwc, Layout::Nhwc, Layout::PaddedNhwc, false },
	{ "OddShapesKernel3x1", 1, 5, 7, 5, 3, 3, 1, 2, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0 },
	{ "KernelLargerThanInputReadsPadValue", 1, 2, 4, 4, 2, 5, 5, 1, 1, 4, 4, 4, 4, 1, 1, 1, 5,
		-0.75 },
	{ "Stride3Dilation3Kernel5", 1, 2, 20, 19, 3, 5, 5, 3, 3, 1, 2, 0, 3, 3, 3, 1, 0, 0 },
	{ "Medium16x24x24", 1, 16, 24, 24, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, Layout::Nhwc,
		Layout::Nchw, Layout::Nhwc, false },
	{ "LongReduction64Channels", 1, 64, 6, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, -2, 0.25 },
	{ "KernelWidth32", 1, 1, 4, 33, 2, 1, 32, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0 },
	{ "Stride16Dilation16", 1, 1, 40, 40, 2, 2, 2, 16, 16, 0, 0, 0, 0, 16, 16, 1, 0, 0 },
	{ "Pad31", 1, 1, 2, 2, 1, 3, 3, 1, 1, 31, 31, 31, 31, 1, 1, 1, 9, 3.0 },
	{ "Large32x28x28", 1, 32, 28, 28, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, Layout::Nhwc,
		Layout::Nchw, Layout::Nhwc, false },
	{ "LargeKernel7Stride2", 1, 8, 40, 40, 16, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 1, 1, 0.5 },
};

const uint32_t kConvTypes[]
	= { VDLA_DTYPE_INT8, VDLA_DTYPE_INT16, VDLA_DTYPE_FP16, VDLA_DTYPE_FP32 };

/* A stable hash for per-case seeds. */
uint64_t seedOf(const std::string &s)
{
	uint64_t h = 1469598103934665603ull;
	for (char c : s)
		h = (h ^ uint8_t(c)) * 1099511628211ull;
	return h;
}

Tensor convData(
	Rng &rng, uint32_t dtype, bool dyadic, uint32_t n, uint32_t c, uint32_t h, uint32_t w)
{
	switch (dtype) {
	case VDLA_DTYPE_INT8:
		return randomFull(rng, dtype, n, c, h, w);
	case VDLA_DTYPE_INT16:
		/* Keeps sums below 2^31; saturation has its own test. */
		return randomInt(rng, dtype, n, c, h, w, -2000, 2000);
	default:
		return dyadic ? randomDyadic(rng, dtype, n, c, h, w, 64, 3)
			      : randomReal(rng, dtype, n, c, h, w, -2, 2);
	}
}

ConvParams paramsOf(const ConvGeom &g, uint32_t dtype)
{
	ConvParams p;
	p.strideX = g.sx, p.strideY = g.sy;
	p.padL = g.pl, p.padR = g.pr, p.padT = g.pt, p.padB = g.pb;
	p.dilX = g.dx, p.dilY = g.dy;
	p.groups = g.groups;
	p.padValue = isFloat(dtype) ? g.padFloat : g.padInt;
	return p;
}

class ConvSweep : public ::testing::TestWithParam<std::tuple<ConvGeom, uint32_t>>
{
};

TEST_P(ConvSweep, MatchesReference)
{
	const ConvGeom &g = std::get<0>(GetParam());
	uint32_t dtype = std::get<1>(GetParam());
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(seedOf(g.name) + dtype);

	Tensor src = convData(rng, dtype, g.dyadic, g.n, g.cin, g.h, g.w);
	Tensor wgt = convData(rng, dtype, g.dyadic, g.cout, g.cin / g.groups, g.kh, g.kw);
	ConvParams p = paramsOf(g, dtype);
	Tensor ref = conv(src, wgt, p);

	ConvOp op;
	op.p = p;
	op.src = placeTensor(dev, src, g.src);
	op.wgt = placeTensor(dev, wgt, g.wgt);
	op.dst = allocTensor(dev, ref.dtype, ref.n, ref.c, ref.h, ref.w, g.dst);
	programConv(dev, 0, op);
	OpResult r = runGroup(dev, kConv, 0);
	ASSERT_TRUE(succeeded(r, kConv, 0));
	EXPECT_TRUE(matches(ref, load(dev, op.dst)));
	EXPECT_TRUE(gapsUntouched(dev, op.dst));
	GroupStats s = dev.stats(kConv, 0);
	EXPECT_EQ(s.macs, convMacs(src, wgt, p));
	EXPECT_EQ(s.bytesWritten, ref.size() * 4);
}

INSTANTIATE_TEST_SUITE_P(Conv, ConvSweep,
	::testing::Combine(::testing::ValuesIn(kGeoms), ::testing::ValuesIn(kConvTypes)),
	[](const ::testing::TestParamInfo<ConvSweep::ParamType> &info) {
		return std::string(dtypeName(std::get<1>(info.param)))
			+ std::get<0>(info.param).name;
	});

/*
 * A random geometry from @seed: every combination of kernel 1-7, stride and
 * dilation 1-3, padding 0-3 on each side, groups, layouts and PAD_VALUE the
 * table does not list. With @extremes, integer data sit at the ends of
 * their range and reductions are longer: the sums that break 16-bit pair
 * sums and exceed 2^24 (INT8) or 32 bits (INT16).
 */
void runRandomGeometry(int seed, uint32_t dtype, bool extremes)
{
	Rng rng(7000 + seed);
	static const uint32_t kernels[] = { 1, 2, 3, 4, 5, 7 };
	static const Layout layouts[]
		= { Layout::Nchw, Layout::Nhwc, Layout::PaddedNchw, Layout::PaddedNhwc };
	ConvParams p;
	uint32_t n = uint32_t(rng.uniform(1, 2));
	uint32_t cin, cout;
	uint32_t perGroup = extremes ? 48 : 4;
	if (rng.uniform(0, 4) == 0) { /* depthwise */
		cin = cout = p.groups = uint32_t(rng.uniform(1, 8));
	} else {
		p.groups = uint32_t(rng.uniform(1, 3));
		cin = p.groups * uint32_t(rng.uniform(1, perGroup));
		cout = p.groups * uint32_t(rng.uniform(1, 4));
	}
	uint32_t kh = kernels[rng.uniform(0, 5)], kw = kernels[rng.uniform(0, 5)];
	p.strideX = uint32_t(rng.uniform(1, 3)), p.strideY = uint32_t(rng.uniform(1, 3));
	p.dilX = uint32_t(rng.uniform(1, 3)), p.dilY = uint32_t(rng.uniform(1, 3));
	p.padL = uint32_t(rng.uniform(0, 3)), p.padR = uint32_t(rng.uniform(0, 3));
	p.padT = uint32_t(rng.uniform(0, 3)), p.padB = uint32_t(rng.uniform(0, 3));
	/* Sizes with at least one output. */
	int64_t effH = int64_t(kh - 1) * p.dilY + 1, effW = int64_t(kw - 1) * p.dilX + 1;
	uint32_t h = uint32_t(std::max<int64_t>(1, effH - p.padT - p.padB) + rng.uniform(0, 9));
	uint32_t w = uint32_t(std::max<int64_t>(1, effW - p.padL - p.padR) + rng.uniform(0, 9));
	bool dyadic = rng.uniform(0, 1);
	p.padValue = isFloat(dtype)	   ? rng.uniform(-16, 16) / 8.0
		: extremes		   ? double(rng.uniform(0, 1) ? dtypeMin(dtype) : dtypeMax(dtype))
		: dtype == VDLA_DTYPE_INT8 ? double(rng.uniform(-128, 127))
					   : double(rng.uniform(-2000, 2000));

	DeviceHarness dev(nullptr, kGuestBytes);
	Tensor src = extremes ? randomExtremes(rng, dtype, n, cin, h, w)
			      : convData(rng, dtype, dyadic, n, cin, h, w);
	Tensor wgt = extremes ? randomExtremes(rng, dtype, cout, cin / p.groups, kh, kw)
			      : convData(rng, dtype, dyadic, cout, cin / p.groups, kh, kw);
	Tensor ref = conv(src, wgt, p);
	ConvOp op;
	op.p = p;
	op.src = placeTensor(dev, src, layouts[rng.uniform(0, 3)]);
	op.wgt = placeTensor(dev, wgt, layouts[rng.uniform(0, 3)]);
	op.dst = allocTensor(
		dev, ref.dtype, ref.n, ref.c, ref.h, ref.w, layouts[rng.uniform(0, 3)]);
	programConv(dev, 0, op);
	ASSERT_TRUE(succeeded(runGroup(dev, kConv, 0), kConv, 0))
		<< src.shape() << " * " << wgt.shape() << " groups " << p.groups;
	EXPECT_TRUE(matches(ref, load(dev, op.dst)))
		<< src.shape() << " * " << wgt.shape() << " stride " << p.strideX << "x"
		<< p.strideY << " dilation " << p.dilX << "x" << p.dilY << " pad " << p.padL << ","
		<< p.padR << "," << p.padT << "," << p.padB << " groups " << p.groups;
	EXPECT_TRUE(gapsUntouched(dev, op.dst));
}

class ConvFuzz : public ::testing::TestWithParam<int>
{
};

TEST_P(ConvFuzz, RandomGeometryMatchesReference)
{
	runRandomGeometry(GetParam(), kConvTypes[GetParam() % 4], false);
}

INSTANTIATE_TEST_SUITE_P(
	Conv, ConvFuzz, ::testing::Range(0, 96), [](const ::testing::TestParamInfo<int> &info) {
		return std::string(dtypeName(kConvTypes[info.param % 4])) + "Seed"
			+ std::to_string(info.param);
	});

const uint32_t kIntConvTypes[] = { VDLA_DTYPE_INT8, VDLA_DTYPE_INT16 };

class ConvExtremesFuzz : public ::testing::TestWithParam<int>
{
};

TEST_P(ConvExtremesFuzz, RandomGeometryOfExtremeValuesMatchesReference)
{
	runRandomGeometry(1000 + GetParam(), kIntConvTypes[GetParam() % 2], true);
}

INSTANTIATE_TEST_SUITE_P(Conv, ConvExtremesFuzz, ::testing::Range(0, 48),
	[](const ::testing::TestParamInfo<int> &info) {
		return std::string(dtypeName(kIntConvTypes[info.param % 2])) + "Seed"
			+ std::to_string(info.param);
	});

/* Runs one conv of given tensors in packed NCHW and returns the device result. */
Tensor runConv(DeviceHarness &dev, const Tensor &src, const Tensor &wgt, const ConvParams &p,
	OpResult *result = nullptr)
{
	Tensor ref = conv(src, wgt, p);
	ConvOp op;
	op.p = p;
	op.src = placeTensor(dev, src);
	op.wgt = placeTensor(dev, wgt);
	op.dst = allocTensor(dev, ref.dtype, ref.n, ref.c, ref.h, ref.w);
	programConv(dev, 0, op);
	OpResult r = runGroup(dev, kConv, 0);
	if (result)
		*result = r;
	return load(dev, op.dst);
}

TEST(Conv, Int16AccumulatorSaturatesTo32BitsBothWays)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(11);
	/* 16 x 3 x 3 products of +-32767^2: far beyond 2^31 unless they cancel. */
	Tensor src = randomInt(rng, VDLA_DTYPE_INT16, 1, 16, 5, 5, 32000, 32767);
	Tensor wgt(VDLA_DTYPE_INT16, 4, 16, 3, 3);
	for (size_t k = 0; k < wgt.size(); k++) {
		uint32_t co = uint32_t(k / (16 * 9));
		/* co 0: all positive, 1: all negative, 2: mixed, 3: small */
		int64_t v = co == 0 ? 32767
			: co == 1   ? -32768
			: co == 2   ? (k % 2 ? 32767 : -32768)
				    : 3;
		wgt.i[k] = v;
	}
	ConvParams p;
	p.padL = p.padR = p.padT = p.padB = 1;
	p.padValue = 32767;
	Tensor ref = conv(src, wgt, p);
	EXPECT_EQ(ref.geti(0, 0, 2, 2), INT32_MAX);
	EXPECT_EQ(ref.geti(0, 1, 2, 2), INT32_MIN);
	OpResult r;
	Tensor got = runConv(dev, src, wgt, p, &r);
	ASSERT_TRUE(succeeded(r, kConv, 0));
	EXPECT_TRUE(matches(ref, got));
}

TEST(Conv, Int8ExtremeValuesAccumulateExactly)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	/* -128 * -128 * 64 * 9 = 9437184 and -128 * 127 sums: all exact. */
	Tensor src(VDLA_DTYPE_INT8, 1, 64, 4, 4);
	Tensor wgt(VDLA_DTYPE_INT8, 2, 64, 3, 3);
	for (auto &v : src.i)
		v = -128;
	for (size_t k = 0; k < wgt.size(); k++)
		wgt.i[k] = k < wgt.size() / 2 ? -128 : 127;
	ConvParams p;
	p.padL = p.padR = p.padT = p.padB = 1;
	p.padValue = -128;
	Tensor ref = conv(src, wgt, p);
	EXPECT_EQ(ref.geti(0, 0, 0, 0), 9437184);
	OpResult r;
	Tensor got = runConv(dev, src, wgt, p, &r);
	ASSERT_TRUE(succeeded(r, kConv, 0));
	EXPECT_TRUE(matches(ref, got));
}

TEST(Conv, Fp16SubnormalAndLargeInputsAccumulateInFp32)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Tensor src(VDLA_DTYPE_FP16, 1, 4, 1, 1);
	/* FP16 subnormal 2^-24, max 65504 and their products, exact in FP32. */
	src.f = { std::ldexp(1.0, -24), 65504.0, -65504.0, std::ldexp(3.0, -20) };
	Tensor wgt(VDLA_DTYPE_FP16, 3, 4, 1, 1);
	wgt.f = { 1.0, 0, 0, 0, 0, 65504.0, 0, 0, std::ldexp(1.0, -24), 0, 0, 1024.0 };
	Tensor ref = conv(src, wgt, ConvParams());
	OpResult r;
	Tensor got = runConv(dev, src, wgt, ConvParams(), &r);
	ASSERT_TRUE(succeeded(r, kConv, 0));
	/* 65504^2 overflows FP16 but not FP32: the output type is FP32. */
	EXPECT_EQ(got.f[1], 65504.0 * 65504.0);
	EXPECT_TRUE(matches(ref, got));
}

TEST(Conv, Fp32SubnormalProductsAndSumsAreNotFlushed)
{
	/*
	 * docs/hw-spec.md, "Arithmetic": no flush of subnormals, whatever
	 * instruction set oneDNN uses. 2^-70 * 2^-70 = 2^-140 is subnormal in
	 * FP32; so are the inputs 2^-130 and their sum.
	 */
	DeviceHarness dev(nullptr, kGuestBytes);
	Tensor src(VDLA_DTYPE_FP32, 1, 3, 1, 1);
	src.f = { std::ldexp(1.0, -70), std::ldexp(1.0, -130), std::ldexp(3.0, -131) };
	Tensor wgt(VDLA_DTYPE_FP32, 2, 3, 1, 1);
	wgt.f = { std::ldexp(1.0, -70), 0, 0, 0, 1.0, 1.0 };
	OpResult r;
	Tensor got = runConv(dev, src, wgt, ConvParams(), &r);
	ASSERT_TRUE(succeeded(r, kConv, 0));
	EXPECT_EQ(got.f[0], std::ldexp(1.0, -140));
	EXPECT_EQ(got.f[1], std::ldexp(5.0, -131));
}

TEST(Conv, CountersFollowTheSpecDefinitions)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(5);
	/* Stride 1 and no dilation: every input element is read. */
	Tensor src = randomFull(rng, VDLA_DTYPE_INT8, 2, 6, 7, 9);
	Tensor wgt = randomFull(rng, VDLA_DTYPE_INT8, 4, 3, 3, 3);
	ConvParams p;
	p.groups = 2;
	p.padL = 1, p.padT = 2;
	Tensor ref = conv(src, wgt, p);
	ConvOp op;
	op.p = p;
	/* Padded layouts: counters count element bytes, not the spans. */
	op.src = placeTensor(dev, src, Layout::PaddedNchw);
	op.wgt = placeTensor(dev, wgt, Layout::PaddedNhwc);
	op.dst = allocTensor(dev, ref.dtype, ref.n, ref.c, ref.h, ref.w, Layout::PaddedNhwc);
	programConv(dev, 0, op);
	ASSERT_TRUE(succeeded(runGroup(dev, kConv, 0), kConv, 0));
	EXPECT_TRUE(matches(ref, load(dev, op.dst)));
	GroupStats s = dev.stats(kConv, 0);
	EXPECT_EQ(s.error, uint32_t(VDLA_ERROR_NONE));
	EXPECT_EQ(s.macs, uint64_t(2) * 4 * ref.h * ref.w * 3 * 3 * 3);
	EXPECT_EQ(s.bytesRead, src.size() + wgt.size());
	EXPECT_EQ(s.bytesWritten, ref.size() * 4);
}

TEST(Conv, ReadsAndWritesSram)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(6);
	Tensor src = randomDyadic(rng, VDLA_DTYPE_FP16, 1, 3, 8, 8, 64, 3);
	Tensor wgt = randomDyadic(rng, VDLA_DTYPE_FP16, 4, 3, 3, 3, 64, 3);
	ConvParams p;
	p.padL = p.padR = p.padT = p.padB = 1;
	Tensor ref = conv(src, wgt, p);
	ConvOp op;
	op.p = p;
	op.src = makeDesc(DeviceHarness::sramAddr(0x100), src.dtype, 1, 3, 8, 8, Layout::Nhwc);
	op.wgt = makeDesc(DeviceHarness::sramAddr(0x2000), wgt.dtype, 4, 3, 3, 3, Layout::Nchw);
	op.dst = makeDesc(DeviceHarness::sramAddr(0x4000), ref.dtype, 1, 4, 8, 8, Layout::Nchw);
	store(dev, op.src, src);
	store(dev, op.wgt, wgt);
	programConv(dev, 0, op);
	ASSERT_TRUE(succeeded(runGroup(dev, kConv, 0), kConv, 0));
	EXPECT_TRUE(matches(ref, load(dev, op.dst)));
}

TEST(Conv, IgnoresTheStrideOfADimensionOfSizeOne)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(7);
	Tensor src = randomInt(rng, VDLA_DTYPE_INT16, 1, 2, 1, 6, -100, 100);
	Tensor wgt = randomInt(rng, VDLA_DTYPE_INT16, 3, 2, 1, 3, -100, 100);
	Tensor ref = conv(src, wgt, ConvParams());
	ConvOp op;
	op.src = placeTensor(dev, src);
	op.wgt = placeTensor(dev, wgt);
	op.dst = allocTensor(dev, ref.dtype, 1, 3, 1, 4);
	/* N = 1 and H = 1: their strides are odd, which would be invalid. */
	op.src.strideN = 3;
	op.src.strideH = 5;
	op.wgt.strideH = 1;
	op.dst.strideN = 7;
	programConv(dev, 0, op);
	ASSERT_TRUE(succeeded(runGroup(dev, kConv, 0), kConv, 0));
	EXPECT_TRUE(matches(ref, load(dev, op.dst)));
}

TEST(Conv, RerunningAGroupRepeatsItsOperationOnNewData)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(8);
	Tensor src = randomFull(rng, VDLA_DTYPE_INT8, 1, 2, 5, 5);
	Tensor wgt = randomFull(rng, VDLA_DTYPE_INT8, 2, 2, 3, 3);
	ConvOp op;
	op.src = placeTensor(dev, src);
	op.wgt = placeTensor(dev, wgt);
	op.dst = allocTensor(dev, VDLA_DTYPE_INT32, 1, 2, 3, 3);
	programConv(dev, 0, op);
	ASSERT_TRUE(succeeded(runGroup(dev, kConv, 0), kConv, 0));
	EXPECT_TRUE(matches(conv(src, wgt, op.p), load(dev, op.dst)));
	dev.ackInterrupts(VDLA_INT_ALL);

	/* The other groups in between, so that CONSUMER comes back to group 0. */
	for (unsigned g = 1; g < VDLA_NUM_GROUPS; g++) {
		programConv(dev, g, op);
		ASSERT_TRUE(succeeded(runGroup(dev, kConv, g), kConv, g));
		dev.ackInterrupts(VDLA_INT_ALL);
	}

	Tensor src2 = randomFull(rng, VDLA_DTYPE_INT8, 1, 2, 5, 5);
	store(dev, op.src, src2);
	ASSERT_TRUE(succeeded(runGroup(dev, kConv, 0), kConv, 0));
	EXPECT_TRUE(matches(conv(src2, wgt, op.p), load(dev, op.dst)));
}

/*
 * The device keeps oneDNN convolutions by shape and strides (32 per
 * worker): the same dims with other strides, new data, and a shape evicted
 * by 40 others and seen again must each compute their own result. Dyadic
 * values, so that every summation order gives the reference's bits.
 */
TEST(Conv, KeptFp32ConvolutionsFollowStridesDataAndEviction)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(12);
	ConvParams p;
	p.padL = p.padT = 1;
	auto run = [&](uint32_t w, Layout sl, Layout dl) {
		Tensor src = randomDyadic(rng, VDLA_DTYPE_FP32, 1, 3, 6, w, 64, 2);
		Tensor wgt = randomDyadic(rng, VDLA_DTYPE_FP32, 4, 3, 3, 3, 16, 2);
		Tensor ref = conv(src, wgt, p);
		ConvOp op;
		op.p = p;
		op.src = placeTensor(dev, src, sl);
		op.wgt = placeTensor(dev, wgt);
		op.dst = allocTensor(dev, ref.dtype, ref.n, ref.c, ref.h, ref.w, dl);
		unsigned group = consumer(dev, kConv);
		programConv(dev, group, op);
		bool ok = succeeded(runGroup(dev, kConv, group), kConv, group) &&
			  matches(ref, load(dev, op.dst));
		dev.ackInterrupts(VDLA_INT_ALL);
		return ok;
	};
	EXPECT_TRUE(run(7, Layout::Nchw, Layout::Nchw));
	EXPECT_TRUE(run(7, Layout::PaddedNhwc, Layout::PaddedNchw));
	EXPECT_TRUE(run(7, Layout::Nchw, Layout::Nchw));
	for (uint32_t w = 8; w < 48; w++)
		EXPECT_TRUE(run(w, Layout::Nchw, Layout::Nhwc)) << "width " << w;
	EXPECT_TRUE(run(7, Layout::Nchw, Layout::Nchw));
	EXPECT_TRUE(run(7, Layout::PaddedNhwc, Layout::PaddedNchw));
}

/*
 * Overlapping strides, which docs/hw-spec.md allows and oneDNN refuses: a
 * dense FP32 operation first, so that a descriptor left over from it would
 * be used if the refusal went unnoticed (it was: wrong data read past the
 * input, or a crash on the output).
 */
void runDenseFp32Conv(DeviceHarness &dev, uint32_t hw)
{
	Rng rng(hw);
	Tensor src = randomDyadic(rng, VDLA_DTYPE_FP32, 1, 2, hw, hw, 64, 3);
	Tensor wgt = randomDyadic(rng, VDLA_DTYPE_FP32, 2, 2, 3, 3, 64, 3);
	ConvParams p;
	p.padL = p.padR = p.padT = p.padB = 1;
	ConvOp op;
	op.p = p;
	op.src = placeTensor(dev, src);
	op.wgt = placeTensor(dev, wgt);
	op.dst = allocTensor(dev, VDLA_DTYPE_FP32, 1, 2, hw, hw);
	programConv(dev, 0, op);
	ASSERT_TRUE(succeeded(runGroup(dev, kConv, 0), kConv, 0));
	EXPECT_TRUE(matches(conv(src, wgt, p), load(dev, op.dst)));
	dev.ackInterrupts(VDLA_INT_ALL);
}

TEST(Conv, OverlappingInputLinesAreReadThroughTheirStrides)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	runDenseFp32Conv(dev, 8);

	/* Line h starts one element after line h - 1: lines overlap. */
	Rng rng(21);
	TensorDesc in = TensorDesc::nchw(0, VDLA_DTYPE_FP32, 1, 3, 9, 7);
	in.strideH = 4;
	in.strideC = 64;
	in.addr = dev.alloc(in.extent(), 64);
	Tensor bytes = randomDyadic(rng, VDLA_DTYPE_FP32, 1, 1, 1, uint32_t(in.extent() / 4), 64, 3);
	store(dev, TensorDesc::nchw(in.addr, VDLA_DTYPE_FP32, 1, 1, 1, uint32_t(in.extent() / 4)),
		bytes);
	Tensor src = load(dev, in);
	Tensor wgt = randomDyadic(rng, VDLA_DTYPE_FP32, 4, 3, 3, 3, 64, 3);
	ConvParams p;
	ConvOp op;
	op.p = p;
	op.src = in;
	op.wgt = placeTensor(dev, wgt);
	Tensor ref = conv(src, wgt, p);
	op.dst = allocTensor(dev, VDLA_DTYPE_FP32, ref.n, ref.c, ref.h, ref.w);
	programConv(dev, 1, op);
	ASSERT_TRUE(succeeded(runGroup(dev, kConv, 1), kConv, 1));
	EXPECT_TRUE(matches(ref, load(dev, op.dst)));
}

TEST(Conv, OverlappingOutputElementsHoldOneOfTheirValues)
{
	DeviceHarness dev(nullptr, 64ull << 20);
	runDenseFp32Conv(dev, 256);

	/* Output line stride = element stride: line h + 1 overwrites line h shifted by one. */
	Rng rng(22);
	Tensor src = randomDyadic(rng, VDLA_DTYPE_FP32, 1, 2, 6, 6, 64, 3);
	Tensor wgt = randomDyadic(rng, VDLA_DTYPE_FP32, 2, 2, 3, 3, 64, 3);
	ConvParams p;
	Tensor ref = conv(src, wgt, p);
	TensorDesc out = TensorDesc::nchw(0, VDLA_DTYPE_FP32, ref.n, ref.c, ref.h, ref.w);
	out.strideH = out.strideW;
	out.strideC = 64;
	out.addr = allocCanary(dev, out.extent());
	ConvOp op;
	op.p = p;
	op.src = placeTensor(dev, src);
	op.wgt = placeTensor(dev, wgt);
	op.dst = out;
	programConv(dev, 1, op);
	ASSERT_TRUE(succeeded(runGroup(dev, kConv, 1), kConv, 1));
	/* Every written address holds the value of one of the elements that map to it. */
	std::map<uint64_t, std::vector<double>> candidates;
	for (uint32_t c = 0; c < ref.c; c++)
		for (uint32_t h = 0; h < ref.h; h++)
			for (uint32_t w = 0; w < ref.w; w++)
				candidates[out.offset(0, c, h, w)].push_back(ref.get(0, c, h, w));
	for (const auto &[offset, values] : candidates) {
		float got;
		std::memcpy(&got, dev.guest(out.addr + offset), 4);
		EXPECT_NE(std::find(values.begin(), values.end(), double(got)), values.end())
			<< "offset " << offset << " holds " << got;
	}
	EXPECT_TRUE(gapsUntouched(dev, out));
}

/*
 * The reference for the large convolutions below, in plain double loops
 * (conv() tracks every sum exactly and takes ten times longer): the value
 * and the sum of magnitudes its tolerance needs.
 */
Tensor fastFp32Conv(const Tensor &src, const Tensor &wgt, const ConvParams &p)
{
	int64_t oh = convOutSize(src.h, p.padT, p.padB, wgt.h, p.dilY, p.strideY);
	int64_t ow = convOutSize(src.w, p.padL, p.padR, wgt.w, p.dilX, p.strideX);
	Tensor out(VDLA_DTYPE_FP32, src.n, wgt.n, uint32_t(oh), uint32_t(ow));
	out.mag.assign(out.size(), 0);
	uint32_t perGroup = wgt.n / p.groups;
	for (uint32_t n = 0; n < src.n; n++)
		for (uint32_t co = 0; co < wgt.n; co++)
			for (int64_t y = 0; y < oh; y++)
				for (int64_t x = 0; x < ow; x++) {
					double sum = 0, mag = 0;
					for (uint32_t cg = 0; cg < wgt.c; cg++) {
						uint32_t ci = co / perGroup * wgt.c + cg;
						for (uint32_t ky = 0; ky < wgt.h; ky++) {
							int64_t iy = y - p.padT + ky;
							if (iy < 0 || iy >= src.h)
								continue;
							for (uint32_t kx = 0; kx < wgt.w; kx++) {
								int64_t ix = x - p.padL + kx;
								if (ix < 0 || ix >= src.w)
									continue;
								double v = src.f[src.index(n, ci, uint32_t(iy),
										   uint32_t(ix))]
									* wgt.f[wgt.index(co, cg, ky, kx)];
								sum += v;
								mag += std::fabs(v);
							}
						}
					}
					size_t k = out.index(n, co, uint32_t(y), uint32_t(x));
					out.f[k] = sum;
					out.mag[k] = mag;
				}
	return out;
}

/*
 * Convolutions of more than 2^27 MACs run on oneDNN in pieces (by image,
 * group or output channel, then output lines), so that a reset stops them
 * early: the pieces together give the whole result, padding included.
 */
void expectLargeFp32(uint32_t n, uint32_t cin, uint32_t hw, uint32_t cout, uint32_t k,
	uint32_t groups, uint32_t padA, uint32_t padB)
{
	DeviceHarness dev(nullptr, 32ull << 20);
	Rng rng(cin * k + n);
	Tensor src = randomDyadic(rng, VDLA_DTYPE_FP32, n, cin, hw, hw, 64, 3);
	Tensor wgt = randomDyadic(rng, VDLA_DTYPE_FP32, cout, cin / groups, k, k, 64, 3);
	ConvParams p;
	p.groups = groups;
	p.padT = p.padL = padA;
	p.padB = p.padR = padB;
	Tensor ref = fastFp32Conv(src, wgt, p);
	ConvOp op;
	op.p = p;
	op.src = placeTensor(dev, src);
	op.wgt = placeTensor(dev, wgt);
	op.dst = allocTensor(dev, VDLA_DTYPE_FP32, ref.n, ref.c, ref.h, ref.w);
	programConv(dev, 0, op);
	ASSERT_TRUE(succeeded(runGroup(dev, kConv, 0), kConv, 0));
	EXPECT_TRUE(matches(ref, load(dev, op.dst)));
	EXPECT_GT(dev.stats(kConv, 0).macs, 1ull << 27);
}

TEST(Conv, LargeFp32InPiecesByImageAndOutputChannel)
{
	/* 2 images of 64 x 64 x 64 x 64 x 9 MACs: 151M each, in two pieces of output channels. */
	expectLargeFp32(2, 64, 64, 64, 3, 1, 1, 1);
}

TEST(Conv, LargeFp32InPiecesByGroup)
{
	/* 4 groups of 24 x 64 x 64 x 64 x 9 MACs: 57M each, in pieces of 2 groups. */
	expectLargeFp32(1, 256, 64, 96, 3, 4, 1, 1);
}

TEST(Conv, LargeFp32InPiecesByOutputLineAcrossThePadding)
{
	/* One output channel of 128 x 128 x 64 x 12 x 12 = 151M: lines, pads 5 and 6. */
	expectLargeFp32(1, 64, 128, 1, 12, 1, 5, 6);
}

/* ---- Invalid programming ----------------------------------------------- */

/*
 * A valid INT8 conv (1x4x6x6, 4 -> 4, 3x3, pad 1) that each case breaks in
 * exactly one rule; its output region is a large canary that must stay
 * untouched.
 */
struct ConvInvalidCase {
	const char *name;
	uint32_t error;
	std::function<void(DeviceHarness &, ConvOp &)> breakIt;
};

TensorDesc retype(const TensorDesc &d, uint32_t dtype)
{
	TensorDesc t = makeDesc(d.addr, dtype, d.n, d.c, d.h, d.w, Layout::Nchw);
	return t;
}

const ConvInvalidCase kInvalid[] = {
	{ "SrcAndWeightTypesDiffer", VDLA_ERROR_DTYPE,
		[](DeviceHarness &, ConvOp &op) { op.wgt = retype(op.wgt, VDLA_DTYPE_INT16); } },
	{ "Int8WithInt8Output", VDLA_ERROR_DTYPE,
		[](DeviceHarness &, ConvOp &op) { op.dst = retype(op.dst, VDLA_DTYPE_INT8); } },
	{ "Int8WithFp32Output", VDLA_ERROR_DTYPE,
		[](DeviceHarness &, ConvOp &op) { op.dst = retype(op.dst, VDLA_DTYPE_FP32); } },
	{ "Int32Inputs", VDLA_ERROR_DTYPE,
		[](DeviceHarness &, ConvOp &op) {
			op.src = retype(op.src, VDLA_DTYPE_INT32);
			op.wgt = retype(op.wgt, VDLA_DTYPE_INT32);
		} },
	{ "Fp16WithFp16Output", VDLA_ERROR_DTYPE,
		[](DeviceHarness &, ConvOp &op) {
			op.src = retype(op.src, VDLA_DTYPE_FP16);
			op.wgt = retype(op.wgt, VDLA_DTYPE_FP16);
			op.dst = retype(op.dst, VDLA_DTYPE_FP16);
		} },
	{ "UnknownDtype", VDLA_ERROR_DTYPE,
		[](DeviceHarness &, ConvOp &op) {
			/* Strides stay multiples of 4, whatever size the type would have. */
			op.src = retype(op.src, VDLA_DTYPE_FP32);
			op.wgt = retype(op.wgt, VDLA_DTYPE_FP32);
			op.src.dtype = op.wgt.dtype = VDLA_DTYPES;
		} },
	{ "OutputWidthWrong", VDLA_ERROR_SHAPE, [](DeviceHarness &, ConvOp &op) { op.dst.w = 5; } },
	{ "OutputChannelsDifferFromCout", VDLA_ERROR_SHAPE,
		[](DeviceHarness &, ConvOp &op) { op.dst.c = 3; } },
	{ "OutputBatchDiffers", VDLA_ERROR_SHAPE,
		[](DeviceHarness &, ConvOp &op) { op.dst.n = 2; } },
	{ "WeightChannelsTimesGroupsNotCin", VDLA_ERROR_SHAPE,
		[](DeviceHarness &, ConvOp &op) { op.wgt.c = 3; } },
	{ "KernelLargerThanPaddedInput", VDLA_ERROR_SHAPE,
		[](DeviceHarness &, ConvOp &op) {
			op.wgt = makeDesc(op.wgt.addr, op.wgt.dtype, 4, 4, 9, 9, Layout::Nchw);
			op.dst.w = op.dst.h = 1;
		} },
	{ "ZeroWidth", VDLA_ERROR_SHAPE, [](DeviceHarness &, ConvOp &op) { op.src.w = 0; } },
	{ "Int16LineStrideOdd", VDLA_ERROR_STRIDE,
		[](DeviceHarness &, ConvOp &op) {
			op.src = retype(op.src, VDLA_DTYPE_INT16);
			op.wgt = retype(op.wgt, VDLA_DTYPE_INT16);
			op.src.strideH = 13;
			op.src.strideC = 6 * 14;
			op.src.strideN = 4 * 6 * 14;
		} },
	{ "Fp32WeightElementStrideNotMultipleOf4", VDLA_ERROR_STRIDE,
		[](DeviceHarness &, ConvOp &op) {
			op.src = retype(op.src, VDLA_DTYPE_FP32);
			op.wgt = retype(op.wgt, VDLA_DTYPE_FP32);
			op.dst = retype(op.dst, VDLA_DTYPE_FP32);
			op.wgt.strideW = 6;
			op.wgt.strideH = 18;
			op.wgt.strideC = 54;
			op.wgt.strideN = 216;
		} },
	{ "OutputSurfaceStrideNotMultipleOf4", VDLA_ERROR_STRIDE,
		[](DeviceHarness &, ConvOp &op) { op.dst.strideC += 2; } },
	{ "StrideZero", VDLA_ERROR_PARAM, [](DeviceHarness &, ConvOp &op) { op.p.strideX = 0; } },
	{ "Stride17", VDLA_ERROR_PARAM,
		[](DeviceHarness &, ConvOp &op) {
			op.p.strideY = 17;
			op.dst.h = 1;
		} },
	{ "DilationZero", VDLA_ERROR_PARAM, [](DeviceHarness &, ConvOp &op) { op.p.dilY = 0; } },
	{ "Dilation17", VDLA_ERROR_PARAM,
		[](DeviceHarness &dev, ConvOp &op) {
			/* A wide input keeps the shape valid: (40 + 2 - 35) / 1 + 1 = 8. */
			op.src = allocTensor(dev, VDLA_DTYPE_INT8, 1, 4, 6, 40);
			op.p.dilX = 17;
			op.dst.w = 8;
		} },
	{ "Pad32", VDLA_ERROR_PARAM,
		[](DeviceHarness &, ConvOp &op) {
			op.p.padR = 32;
			op.dst.w = 6 + 1 + 32 - 3 + 1;
		} },
	{ "Kernel33", VDLA_ERROR_PARAM,
		[](DeviceHarness &dev, ConvOp &op) {
			op.src = allocTensor(dev, VDLA_DTYPE_INT8, 1, 4, 6, 40);
			op.wgt = allocTensor(dev, VDLA_DTYPE_INT8, 4, 4, 3, 33);
			op.dst.w = 40 + 2 - 33 + 1;
		} },
	{ "ReductionOver65536", VDLA_ERROR_LIMIT,
		[](DeviceHarness &dev, ConvOp &op) {
			/* 128 * 23 * 23 = 67712 */
			op.src = allocTensor(dev, VDLA_DTYPE_INT8, 1, 128, 23, 23);
			op.wgt = allocTensor(dev, VDLA_DTYPE_INT8, 4, 128, 23, 23);
			op.p.padL = op.p.padR = op.p.padT = op.p.padB = 0;
			op.dst.w = op.dst.h = 1;
		} },
	{ "InputOf2To32ElementsOnStrideZero", VDLA_ERROR_LIMIT,
		[](DeviceHarness &, ConvOp &op) {
			/* A few bytes of memory, 65535^2 elements to compute over. */
			op.src.w = op.src.h = 65535;
			op.src.strideW = op.src.strideH = 0;
		} },
	{ "MoreThan2To36Macs", VDLA_ERROR_LIMIT,
		[](DeviceHarness &, ConvOp &op) {
			/* 65535 x 64 x 64 outputs of 4096 taps: 2^40 MACs, each tensor under 2^28. */
			op.src = makeDesc(op.src.addr, VDLA_DTYPE_INT8, 1, 4096, 64, 64, Layout::Nchw);
			op.src.strideC = op.src.strideH = op.src.strideW = 0;
			op.wgt = makeDesc(op.wgt.addr, VDLA_DTYPE_INT8, 65535, 4096, 1, 1, Layout::Nchw);
			op.wgt.strideN = op.wgt.strideC = 0;
			op.dst = makeDesc(op.dst.addr, VDLA_DTYPE_INT32, 1, 65535, 64, 64, Layout::Nchw);
			op.dst.strideC = op.dst.strideH = op.dst.strideW = 0;
			op.p.padL = op.p.padR = op.p.padT = op.p.padB = 0;
		} },
	{ "InputExtentOver2GiB", VDLA_ERROR_LIMIT,
		[](DeviceHarness &, ConvOp &op) {
			op.src.n = 2;
			op.src.strideN = 0x80000000u;
			op.dst.n = 2;
			op.dst.strideN = 4 * 6 * 6 * 4;
		} },
};

class ConvInvalid : public ::testing::TestWithParam<ConvInvalidCase>
{
};

TEST_P(ConvInvalid, EndsInErrorAndWritesNothing)
{
	const ConvInvalidCase &c = GetParam();
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(3);
	ConvOp op;
	op.p.padL = op.p.padR = op.p.padT = op.p.padB = 1;
	op.src = placeTensor(dev, randomFull(rng, VDLA_DTYPE_INT8, 1, 4, 6, 6));
	op.wgt = placeTensor(dev, randomFull(rng, VDLA_DTYPE_INT8, 4, 4, 3, 3));
	/* Output inside a canary region large enough for every variant. */
	const uint64_t outBytes = 64 << 10;
	uint64_t out = allocCanary(dev, outBytes);
	op.dst = makeDesc(out, VDLA_DTYPE_INT32, 1, 4, 6, 6, Layout::Nchw);
	c.breakIt(dev, op);
	programConv(dev, 0, op);
	OpResult r = runGroup(dev, kConv, 0);
	EXPECT_TRUE(failedWith(r, kConv, 0, c.error));
	EXPECT_TRUE(regionUntouched(dev, out - kMargin, outBytes + 2 * kMargin));
	EXPECT_EQ(dev.stats(kConv, 0).bytesWritten, 0u);
}

INSTANTIATE_TEST_SUITE_P(Conv, ConvInvalid, ::testing::ValuesIn(kInvalid),
	[](const ::testing::TestParamInfo<ConvInvalidCase> &info) {
		return std::string(info.param.name);
	});

} /* namespace */
