/* SPDX-License-Identifier: MIT */
/*
 * The CPU reference against answers computed by hand from docs/hw-spec.md,
 * so that an engine test failing points at the device and not at the
 * reference. Needs no device.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>

#include "reference.h"

using namespace vdla_ref;

namespace {

constexpr unsigned kTZ = VDLA_ROUND_TO_ZERO;
constexpr unsigned kFL = VDLA_ROUND_FLOOR;
constexpr unsigned kHU = VDLA_ROUND_HALF_UP;
constexpr unsigned kHA = VDLA_ROUND_HALF_AWAY;
constexpr unsigned kHE = VDLA_ROUND_HALF_EVEN;

/* Results for TO_ZERO, FLOOR, HALF_UP, HALF_AWAY, HALF_EVEN. */
struct RoundCase {
	int64_t v;
	unsigned s;
	int64_t expect[5];
};

TEST(Reference, RshiftRoundsEveryModeAsTheSpecTable)
{
	const RoundCase cases[] = {
		{ 5, 1, { 2, 2, 3, 3, 2 } }, /* 2.5 */
		{ -5, 1, { -2, -3, -2, -3, -2 } }, /* -2.5 */
		{ 7, 1, { 3, 3, 4, 4, 4 } }, /* 3.5 */
		{ -7, 1, { -3, -4, -3, -4, -4 } }, /* -3.5 */
		{ -6, 2, { -1, -2, -1, -2, -2 } }, /* -1.5 */
		{ -5, 2, { -1, -2, -1, -1, -1 } }, /* -1.25 */
		{ -7, 2, { -1, -2, -2, -2, -2 } }, /* -1.75 */
		{ 6, 2, { 1, 1, 2, 2, 2 } }, /* 1.5 */
		{ 5, 2, { 1, 1, 1, 1, 1 } }, /* 1.25 */
		{ 12345, 0, { 12345, 12345, 12345, 12345, 12345 } },
		{ -12345, 0, { -12345, -12345, -12345, -12345, -12345 } },
		{ std::numeric_limits<int64_t>::min(), 63, { -1, -1, -1, -1, -1 } },
		{ std::numeric_limits<int64_t>::max(), 63, { 0, 0, 1, 1, 1 } },
		{ int64_t(1) << 62, 63, { 0, 0, 1, 1, 0 } }, /* 0.5 */
		{ -(int64_t(1) << 62), 63, { 0, -1, 0, -1, 0 } }, /* -0.5 */
	};
	for (const RoundCase &c : cases)
		for (unsigned mode = 0; mode < 5; mode++)
			EXPECT_EQ(int64_t(rshift(c.v, c.s, mode)), c.expect[mode])
				<< "rshift(" << c.v << ", " << c.s << ", mode " << mode << ")";
}

TEST(Reference, RshiftOfA128BitProductIsExact)
{
	/* (2^62 * 2^62) >> 63 = 2^61: only right without a 64-bit overflow. */
	i128 p = i128(int64_t(1) << 62) * (int64_t(1) << 62);
	EXPECT_EQ(sat64(rshift(p, 63, kTZ)), int64_t(1) << 61);
	EXPECT_EQ(sat64(p), std::numeric_limits<int64_t>::max());
	EXPECT_EQ(sat64(-p), std::numeric_limits<int64_t>::min());
}

TEST(Reference, RdivRoundsTheExactQuotient)
{
	struct {
		int64_t v, d;
		int64_t expect[5];
	} cases[] = {
		{ 7, 3, { 2, 2, 2, 2, 2 } },
		{ -7, 3, { -2, -3, -2, -2, -2 } },
		{ 9, 6, { 1, 1, 2, 2, 2 } },
		{ -9, 6, { -1, -2, -1, -2, -2 } },
		{ 15, 6, { 2, 2, 3, 3, 2 } },
		{ -15, 6, { -2, -3, -2, -3, -2 } },
		{ 8, 4, { 2, 2, 2, 2, 2 } },
		{ 14, 9, { 1, 1, 2, 2, 2 } },
	};
	for (auto &c : cases)
		for (unsigned mode = 0; mode < 5; mode++)
			EXPECT_EQ(int64_t(rdiv(c.v, c.d, mode)), c.expect[mode])
				<< "rdiv(" << c.v << ", " << c.d << ", mode " << mode << ")";
}

TEST(Reference, OutputConversionSaturatesOrWraps)
{
	EXPECT_EQ(convertInt(200, 8, false), 127);
	EXPECT_EQ(convertInt(200, 8, true), -56);
	EXPECT_EQ(convertInt(-129, 8, false), -128);
	EXPECT_EQ(convertInt(-129, 8, true), 127);
	EXPECT_EQ(convertInt(70000, 16, true), 4464);
	EXPECT_EQ(convertInt(-70000, 16, false), -32768);
	EXPECT_EQ(convertInt(int64_t(1) << 31, 32, true), std::numeric_limits<int32_t>::min());
	EXPECT_EQ(convertInt(int64_t(1) << 31, 32, false), std::numeric_limits<int32_t>::max());
	EXPECT_EQ(convertInt(std::numeric_limits<int64_t>::max(), 32, true), -1);
}

TEST(Reference, FloatToIntRoundsThenSaturatesOrWraps)
{
	const int64_t up[5] = { 2, 2, 3, 3, 2 };
	const int64_t down[5] = { -2, -3, -2, -3, -2 };
	for (unsigned mode = 0; mode < 5; mode++) {
		EXPECT_EQ(floatToInt(2.5, 8, mode, false), up[mode]) << mode;
		EXPECT_EQ(floatToInt(-2.5, 8, mode, false), down[mode]) << mode;
	}
	EXPECT_EQ(floatToInt(2.75, 8, kTZ, false), 2);
	EXPECT_EQ(floatToInt(-2.75, 8, kTZ, false), -2);
	EXPECT_EQ(floatToInt(-2.25, 8, kFL, false), -3);
	EXPECT_EQ(floatToInt(1e10, 8, kTZ, false), 127);
	EXPECT_EQ(floatToInt(-1e10, 16, kTZ, false), -32768);
	EXPECT_EQ(floatToInt(std::nan(""), 8, kHE, false), 0);
	EXPECT_EQ(floatToInt(std::nan(""), 16, kHE, true), 0);
	EXPECT_EQ(floatToInt(-INFINITY, 8, kHE, false), -128);
	EXPECT_EQ(floatToInt(300.0, 8, kTZ, true), 44);
	EXPECT_EQ(floatToInt(-300.0, 8, kTZ, true), -44);
	EXPECT_EQ(floatToInt(127.5, 8, kHE, false), 127);
	EXPECT_EQ(floatToInt(127.5, 8, kHE, true), -128);
	EXPECT_EQ(floatToInt(65536.0 * 3 + 5, 16, kTZ, true), 5);
}

TEST(Reference, Fp16ConversionRoundsToNearestEven)
{
	EXPECT_EQ(fp16FromDouble(1.0), 0x3c00);
	EXPECT_EQ(fp16FromDouble(-2.0), 0xc000);
	EXPECT_EQ(fp16FromDouble(65504.0), 0x7bff);
	EXPECT_EQ(fp16FromDouble(65519.99), 0x7bff);
	EXPECT_EQ(fp16FromDouble(65520.0), 0x7c00); /* the tie rounds to the even inf */
	EXPECT_EQ(fp16FromDouble(-1e6), 0xfc00);
	EXPECT_EQ(fp16FromDouble(std::ldexp(1.0, -24)), 0x0001);
	EXPECT_EQ(fp16FromDouble(std::ldexp(1.0, -25)), 0x0000); /* tie to even 0 */
	EXPECT_EQ(fp16FromDouble(std::ldexp(1.0, -25) * 1.0001), 0x0001);
	EXPECT_EQ(fp16FromDouble(3 * std::ldexp(1.0, -25)), 0x0002); /* 1.5 -> 2 */
	EXPECT_EQ(fp16FromDouble(std::ldexp(1.0, -14)), 0x0400);
	EXPECT_EQ(fp16FromDouble(std::ldexp(1023.5, -24)), 0x0400); /* rounds into normals */
	EXPECT_EQ(fp16FromDouble(1.0 + std::ldexp(1.0, -11)), 0x3c00);
	EXPECT_EQ(fp16FromDouble(1.0 + 3 * std::ldexp(1.0, -11)), 0x3c02);
	EXPECT_EQ(fp16FromDouble(0.1), 0x2e66);
	EXPECT_EQ(fp16FromDouble(-0.0), 0x8000);
	uint16_t nan = fp16FromDouble(std::nan(""));
	EXPECT_EQ(nan & 0x7c00, 0x7c00);
	EXPECT_NE(nan & 0x03ff, 0);

	EXPECT_EQ(fp16ToDouble(0x7bff), 65504.0);
	EXPECT_EQ(fp16ToDouble(0x0001), std::ldexp(1.0, -24));
	EXPECT_EQ(fp16ToDouble(0x03ff), std::ldexp(1023.0, -24));
	EXPECT_EQ(fp16ToDouble(0x3555), 0.333251953125);
	EXPECT_EQ(fp16ToDouble(0xc000), -2.0);
	EXPECT_TRUE(std::isinf(fp16ToDouble(0xfc00)) && fp16ToDouble(0xfc00) < 0);
	EXPECT_TRUE(std::isnan(fp16ToDouble(0x7e00)));
	EXPECT_TRUE(std::signbit(fp16ToDouble(0x8000)));
	/* Every finite half survives the round trip. */
	for (uint32_t h = 0; h < 0x10000; h++) {
		if ((h & 0x7c00) == 0x7c00)
			continue;
		ASSERT_EQ(fp16FromDouble(fp16ToDouble(uint16_t(h))), h) << "half " << h;
	}
}

Tensor intTensor(
	uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w, std::vector<int64_t> v)
{
	Tensor t(dtype, n, c, h, w);
	t.i = std::move(v);
	return t;
}

Tensor floatTensor(
	uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w, std::vector<double> v)
{
	Tensor t(dtype, n, c, h, w);
	t.f = std::move(v);
	return t;
}

const std::vector<int64_t> k3x3 = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };

TEST(Reference, ConvWithoutPadding)
{
	Tensor src = intTensor(VDLA_DTYPE_INT8, 1, 1, 3, 3, k3x3);
	Tensor wgt = intTensor(VDLA_DTYPE_INT8, 1, 1, 2, 2, { 1, 0, 0, -1 });
	Tensor out = conv(src, wgt, ConvParams());
	EXPECT_EQ(out.dtype, uint32_t(VDLA_DTYPE_INT32));
	EXPECT_EQ(out.shape(), "Int32(1,1,2,2)");
	EXPECT_EQ(out.i, (std::vector<int64_t>{ -4, -4, -4, -4 }));
	EXPECT_EQ(convMacs(src, wgt, ConvParams()), 16u);
}

TEST(Reference, ConvPaddingReadsPadValue)
{
	Tensor src = intTensor(VDLA_DTYPE_INT8, 1, 1, 3, 3, k3x3);
	Tensor wgt = intTensor(VDLA_DTYPE_INT8, 1, 1, 2, 2, { 1, 0, 0, -1 });
	ConvParams p;
	p.padL = p.padR = p.padT = p.padB = 1;
	p.padValue = 10;
	Tensor out = conv(src, wgt, p);
	EXPECT_EQ(out.shape(), "Int32(1,1,4,4)");
	EXPECT_EQ(out.i,
		(std::vector<int64_t>{ 9, 8, 7, 0, 6, -4, -4, -7, 3, -4, -4, -4, 0, -3, -2, -1 }));
}

TEST(Reference, ConvStrideAndDilation)
{
	Tensor src = intTensor(VDLA_DTYPE_INT8, 1, 1, 3, 3, k3x3);
	Tensor wgt = intTensor(VDLA_DTYPE_INT8, 1, 1, 2, 2, { 1, 0, 0, -1 });
	ConvParams dil;
	dil.dilX = dil.dilY = 2;
	EXPECT_EQ(conv(src, wgt, dil).i, (std::vector<int64_t>{ -8 }));

	ConvParams str;
	str.strideX = str.strideY = 2;
	str.padL = str.padR = str.padT = str.padB = 1;
	EXPECT_EQ(conv(src, wgt, str).i, (std::vector<int64_t>{ -1, -3, -7, -4 }));
	/* Asymmetric: only the left pad, stride 2 across: OW = (3+1-2)/2+1 = 2. */
	ConvParams asym;
	asym.padL = 1;
	asym.strideX = 2;
	asym.padValue = -1;
	/* Window at x=-1: in[y][-1] = -1, minus in[y+1][0]; at x=1: in[y][1] - in[y+1][2]. */
	EXPECT_EQ(conv(src, wgt, asym).i, (std::vector<int64_t>{ -5, -4, -8, -4 }));
	EXPECT_EQ(convOutSize(3, 0, 0, 5, 1, 1), -1);
	EXPECT_EQ(convOutSize(7, 1, 2, 3, 2, 3), 2); /* (7+3-5)/3+1 */
}

TEST(Reference, ConvGroupsAndDepthwise)
{
	Tensor src = intTensor(VDLA_DTYPE_INT8, 1, 2, 1, 2, { 1, 2, 3, 4 });
	Tensor wgt = intTensor(VDLA_DTYPE_INT8, 2, 1, 1, 1, { 2, 3 });
	ConvParams p;
	p.groups = 2;
	EXPECT_EQ(conv(src, wgt, p).i, (std::vector<int64_t>{ 2, 4, 9, 12 }));

	/* Two groups of two input channels, one output each. */
	Tensor src4 = intTensor(VDLA_DTYPE_INT8, 1, 4, 1, 1, { 1, 2, 3, 4 });
	Tensor wgt2 = intTensor(VDLA_DTYPE_INT8, 2, 2, 1, 1, { 1, 10, 100, 1000 });
	EXPECT_EQ(conv(src4, wgt2, p).i, (std::vector<int64_t>{ 21, 4300 }));
	/* Batches are independent. */
	Tensor src2 = intTensor(VDLA_DTYPE_INT8, 2, 1, 1, 1, { 3, -3 });
	Tensor wgt1 = intTensor(VDLA_DTYPE_INT8, 1, 1, 1, 1, { 5 });
	EXPECT_EQ(conv(src2, wgt1, ConvParams()).i, (std::vector<int64_t>{ 15, -15 }));
}

TEST(Reference, ConvInt16SaturatesTo32Bits)
{
	Tensor src = intTensor(VDLA_DTYPE_INT16, 1, 3, 1, 1, { 32767, 32767, 32767 });
	Tensor wgt = intTensor(
		VDLA_DTYPE_INT16, 2, 3, 1, 1, { 32767, 32767, 32767, -32768, -32768, -32768 });
	EXPECT_EQ(conv(src, wgt, ConvParams()).i,
		(std::vector<int64_t>{ 2147483647, -2147483648ll }));
	Tensor small = intTensor(VDLA_DTYPE_INT16, 1, 2, 1, 1, { 32767, 32767 });
	Tensor w2 = intTensor(VDLA_DTYPE_INT16, 1, 2, 1, 1, { 32767, 1 });
	EXPECT_EQ(conv(small, w2, ConvParams()).i, (std::vector<int64_t>{ 1073709056 }));
}

TEST(Reference, ConvFloatIsExactForSmallDyadicValuesAndToleratedOtherwise)
{
	Tensor src = floatTensor(VDLA_DTYPE_FP16, 1, 1, 1, 2, { 0.5, 1.5 });
	Tensor wgt = floatTensor(VDLA_DTYPE_FP16, 1, 1, 1, 2, { 2.0, -0.25 });
	Tensor out = conv(src, wgt, ConvParams());
	EXPECT_EQ(out.dtype, uint32_t(VDLA_DTYPE_FP32));
	EXPECT_EQ(out.f[0], 0.625);
	EXPECT_LT(out.mag[0], 0); /* exact */

	Tensor s32 = floatTensor(VDLA_DTYPE_FP32, 1, 1, 1, 2, { 0.1f, 1e8 });
	Tensor w32 = floatTensor(VDLA_DTYPE_FP32, 1, 1, 1, 2, { 1.0, 1.0 });
	Tensor o32 = conv(s32, w32, ConvParams());
	EXPECT_NEAR(o32.f[0], 1e8 + double(0.1f), 1e-6);
	EXPECT_DOUBLE_EQ(o32.mag[0], 1e8 + double(0.1f)); /* not exact: S */
}

TEST(Reference, SdpIntegerPipelineStages)
{
	Tensor x = intTensor(VDLA_DTYPE_INT8, 1, 1, 1, 1, { 10 });
	Tensor y = intTensor(VDLA_DTYPE_INT16, 1, 1, 1, 1, { 4 });
	SdpParams p;
	p.bias = VDLA_SDP_MODE_PER_TENSOR;
	p.biasValue = 5;
	p.scale = VDLA_SDP_MODE_PER_TENSOR;
	p.scaleMul = 3;
	p.scaleShift = 2; /* 45/4 = 11.25 */
	p.ew = VDLA_SDP_EW_OP_ADD;
	p.ewMul = 2;
	p.ewShift = 1; /* e = 4 */
	p.act = VDLA_SDP_ACT_RELU;
	p.outOffset = -20;
	EXPECT_EQ(sdp(x, &y, p, VDLA_DTYPE_INT8).i[0], -5);
	p.ew = VDLA_SDP_EW_OP_MUL;
	p.ewPostShift = 3; /* 11 * 4 / 8 = 5.5 -> 5 (TO_ZERO) */
	EXPECT_EQ(sdp(x, &y, p, VDLA_DTYPE_INT8).i[0], 5 - 20);
	p.round = kHU; /* 11.25 -> 11; 5.5 -> 6 */
	EXPECT_EQ(sdp(x, &y, p, VDLA_DTYPE_INT8).i[0], 6 - 20);
	p.ew = VDLA_SDP_EW_OP_MAX;
	p.ewMul = 5; /* e = 10 < 11 */
	EXPECT_EQ(sdp(x, &y, p, VDLA_DTYPE_INT8).i[0], 11 - 20);
	p.act = VDLA_SDP_ACT_CLIP;
	p.clipMin = -3;
	p.clipMax = 7;
	EXPECT_EQ(sdp(x, &y, p, VDLA_DTYPE_INT8).i[0], 7 - 20);
	p.outOffset = 200;
	EXPECT_EQ(sdp(x, &y, p, VDLA_DTYPE_INT8).i[0], 127);
	p.wrap = true;
	EXPECT_EQ(sdp(x, &y, p, VDLA_DTYPE_INT8).i[0], 207 - 256);
	EXPECT_EQ(sdpMacs(x, p), 1u);
}

TEST(Reference, SdpIntegerPerChannel)
{
	Tensor x = intTensor(VDLA_DTYPE_INT32, 1, 2, 1, 2, { 1, 2, 3, 4 });
	SdpParams p;
	p.bias = VDLA_SDP_MODE_PER_CHANNEL;
	p.biasChannel = { 10, -10 };
	p.scale = VDLA_SDP_MODE_PER_CHANNEL;
	p.scaleMulChannel = { 3, 5 };
	p.scaleShiftChannel = { 0, 1 };
	p.round = kHE; /* (3-10)*5/2 = -17.5 -> -18; (4-10)*5/2 = -15 */
	EXPECT_EQ(
		sdp(x, nullptr, p, VDLA_DTYPE_INT32).i, (std::vector<int64_t>{ 33, 36, -18, -15 }));
}

TEST(Reference, SdpIntegerStageSaturatesTo64Bits)
{
	/* (-2^31 + -2^31) * -2^31 = 2^63: saturated to 2^63-1 before OUT_OFFSET. */
	Tensor x = intTensor(VDLA_DTYPE_INT32, 1, 1, 1, 1, { INT32_MIN });
	SdpParams p;
	p.bias = VDLA_SDP_MODE_PER_TENSOR;
	p.biasValue = INT32_MIN;
	p.scale = VDLA_SDP_MODE_PER_TENSOR;
	p.scaleMul = INT32_MIN;
	p.outOffset = -1;
	p.wrap = true;
	EXPECT_EQ(sdp(x, nullptr, p, VDLA_DTYPE_INT32).i[0], -2);
	p.wrap = false;
	EXPECT_EQ(sdp(x, nullptr, p, VDLA_DTYPE_INT32).i[0], INT32_MAX);
	/* The exact 128-bit product shifts without saturating first: 2^62. */
	p.scaleShift = 1;
	p.outOffset = 0;
	p.wrap = true;
	p.round = kFL;
	EXPECT_EQ(sdp(x, nullptr, p, VDLA_DTYPE_INT32).i[0], 0);
}

TEST(Reference, SdpIntegerLutBelowInsideAndAbove)
{
	SdpParams p;
	p.act = VDLA_SDP_ACT_LUT;
	for (int i = 0; i < 257; i++)
		p.lut.push_back(int16_t(i * 10));
	p.lutStart = 100;
	p.lutShift = 2;
	Tensor x = intTensor(VDLA_DTYPE_INT16, 1, 1, 1, 6, { 99, 100, 105, 1123, 1124, 30000 });
	EXPECT_EQ(sdp(x, nullptr, p, VDLA_DTYPE_INT16).i,
		(std::vector<int64_t>{ 0, 0, 12, 2557, 2560, 2560 }));
	p.round = kHE; /* 10 + 2.5 -> 12; 2550 + 7.5 -> 2558 */
	EXPECT_EQ(sdp(x, nullptr, p, VDLA_DTYPE_INT16).i,
		(std::vector<int64_t>{ 0, 0, 12, 2558, 2560, 2560 }));
	p.round = kHU;
	EXPECT_EQ(sdp(x, nullptr, p, VDLA_DTYPE_INT16).i,
		(std::vector<int64_t>{ 0, 0, 13, 2558, 2560, 2560 }));
}

TEST(Reference, SdpFloatPipelineAndConversion)
{
	Tensor x = floatTensor(VDLA_DTYPE_FP32, 1, 1, 1, 3, { 1.5, -2.0, 0.25 });
	Tensor y = floatTensor(VDLA_DTYPE_FP16, 1, 1, 1, 3, { 1.0, 1.0, -8.0 });
	SdpParams p;
	p.bias = VDLA_SDP_MODE_PER_TENSOR;
	p.fBiasValue = 0.5f; /* 2, -1.5, 0.75 */
	p.scale = VDLA_SDP_MODE_PER_TENSOR;
	p.fScale = 3.0f; /* 6, -4.5, 2.25 */
	p.ew = VDLA_SDP_EW_OP_ADD;
	p.fEwMul = 0.5f; /* + 0.5, 0.5, -4 */
	Tensor out = sdp(x, &y, p, VDLA_DTYPE_FP32);
	EXPECT_EQ(out.f, (std::vector<double>{ 6.5, -4.0, -1.75 }));
	EXPECT_LT(out.mag[0], 0);
	p.act = VDLA_SDP_ACT_RELU;
	EXPECT_EQ(sdp(x, &y, p, VDLA_DTYPE_FP16).f, (std::vector<double>{ 6.5, 0, 0 }));
	p.act = VDLA_SDP_ACT_NONE;
	p.round = kHE;
	/* 6.5 -> 6, -4 -> -4, -1.75 -> -2 */
	Tensor i8 = sdp(x, &y, p, VDLA_DTYPE_INT8);
	EXPECT_EQ(i8.i, (std::vector<int64_t>{ 6, -4, -2 }));
	EXPECT_EQ(i8.iHi, i8.i); /* exact: a single accepted value */
}

TEST(Reference, SdpFloatLut)
{
	SdpParams p;
	p.act = VDLA_SDP_ACT_LUT;
	for (int i = 0; i < 257; i++)
		p.fLut.push_back(float(i) * 2);
	p.fLutStart = -1.0f;
	p.fLutStep = 0.5f;
	/* t = (v+1)/0.5: -3 -> -4 (T0), -1 -> 0 (T0), 0.25 -> 2.5 (5), 200 -> T256 */
	Tensor x = floatTensor(VDLA_DTYPE_FP32, 1, 1, 1, 4, { -3, -1, 0.25, 200 });
	EXPECT_EQ(sdp(x, nullptr, p, VDLA_DTYPE_FP32).f, (std::vector<double>{ 0, 0, 5, 512 }));
}

TEST(Reference, PdpMaxAvgMin)
{
	Tensor src(VDLA_DTYPE_INT8, 1, 1, 4, 4);
	for (int k = 0; k < 16; k++)
		src.i[k] = k + 1;
	PdpParams p;
	p.kw = p.kh = 2;
	p.sx = p.sy = 2;
	EXPECT_EQ(pdp(src, p).i, (std::vector<int64_t>{ 6, 8, 14, 16 }));
	p.method = VDLA_PDP_MIN;
	EXPECT_EQ(pdp(src, p).i, (std::vector<int64_t>{ 1, 3, 9, 11 }));
	p.method = VDLA_PDP_AVG;
	EXPECT_EQ(pdp(src, p).i, (std::vector<int64_t>{ 3, 5, 11, 13 }));
	p.round = kHE;
	EXPECT_EQ(pdp(src, p).i, (std::vector<int64_t>{ 4, 6, 12, 14 }));

	/* 3x3, stride 2, pad 1: the corner window has 4 elements and 5 pads. */
	p.kw = p.kh = 3;
	p.padL = p.padR = p.padT = p.padB = 1;
	p.round = kTZ;
	Tensor avg = pdp(src, p);
	EXPECT_EQ(avg.shape(), "Int8(1,1,2,2)");
	EXPECT_EQ(avg.i[0], 3); /* 14 / 4 */
	p.includePad = true;
	EXPECT_EQ(pdp(src, p).i[0], 1); /* 14 / 9 */
	p.round = kHU;
	EXPECT_EQ(pdp(src, p).i[0], 2);
	/* (1,1): rows 1..3, cols 1..3, all elements: 6+7+8+10+11+12+14+15+16 = 99 / 9 */
	EXPECT_EQ(pdp(src, p).i[3], 11);
}

TEST(Reference, PdpCeilModeOutputSize)
{
	EXPECT_EQ(pdpOutSize(5, 0, 0, 2, 2, false), 2);
	EXPECT_EQ(pdpOutSize(5, 0, 0, 2, 2, true), 3);
	/* The last ceil window would start at W + PL: dropped. */
	EXPECT_EQ(pdpOutSize(2, 1, 1, 2, 3, true), 1);
	EXPECT_EQ(pdpOutSize(4, 1, 1, 2, 2, true), 3);
	EXPECT_EQ(pdpOutSize(2, 0, 0, 3, 1, false), 0);

	/* 5 wide, kernel 2, stride 2, ceil: the last window holds one element. */
	Tensor src(VDLA_DTYPE_INT16, 1, 1, 1, 5);
	src.i = { 1, 2, 3, 4, 7 };
	PdpParams p;
	p.method = VDLA_PDP_AVG;
	p.kw = 2;
	p.sx = 2;
	p.ceil = true;
	p.includePad = true; /* the outside position is no padding */
	EXPECT_EQ(pdp(src, p).i, (std::vector<int64_t>{ 1, 3, 7 }));
}

TEST(Reference, PdpFloatAverage)
{
	Tensor src = floatTensor(VDLA_DTYPE_FP16, 1, 1, 1, 3, { 1.0, 2.0, 4.0 });
	PdpParams p;
	p.method = VDLA_PDP_AVG;
	p.kw = 3;
	Tensor out = pdp(src, p);
	EXPECT_NEAR(out.f[0], 7.0 / 3, 1e-12);
	EXPECT_NEAR(out.mag[0], 7.0 / 3, 1e-12); /* not exact: a tolerance */
	p.kw = 2;
	out = pdp(src, p);
	EXPECT_EQ(out.f, (std::vector<double>{ 1.5, 3.0 }));
	EXPECT_LT(out.mag[0], 0);
}

TEST(Reference, CdpIntegerLutPath)
{
	Tensor src = intTensor(VDLA_DTYPE_INT8, 1, 3, 1, 1, { 1, 2, 3 });
	CdpParams p;
	p.size = 3;
	for (int i = 0; i < 257; i++)
		p.lut.push_back(1000 - i);
	p.lutShift = 2;
	p.outShift = 4;
	EXPECT_EQ(cdp(src, p).i, (std::vector<int64_t>{ 62, 124, 127 }));
	p.wrap = true;
	EXPECT_EQ(cdp(src, p).i, (std::vector<int64_t>{ 62, 124, -70 }));
	p.wrap = false;
	p.round = kHE;
	EXPECT_EQ(cdp(src, p).i, (std::vector<int64_t>{ 62, 125, 127 }));
	p.size = 1; /* s = x^2: 1 -> T0 + (-1*1)>>2; 4 -> T1; 9 -> T2 + (-1*1)>>2 */
	p.round = kFL;
	/* 1 * 999 / 16 = 62.4; 2 * 999 / 16 = 124.9; 3 * 997 / 16 = 186.9 */
	EXPECT_EQ(cdp(src, p).i, (std::vector<int64_t>{ 62, 124, 127 }));
}

TEST(Reference, CdpFloatPath)
{
	Tensor src = floatTensor(VDLA_DTYPE_FP32, 1, 3, 1, 1, { 1, 2, 3 });
	CdpParams p;
	p.size = 3;
	p.k = 1;
	p.alpha = 3;
	p.beta = 0.5f;
	Tensor out = cdp(src, p);
	EXPECT_NEAR(out.f[0], 0.40824829046386, 1e-12);
	EXPECT_NEAR(out.f[1], 0.51639777949432, 1e-12);
	EXPECT_NEAR(out.f[2], 0.80178372573727, 1e-12);
}

TEST(Reference, RubikModes)
{
	Tensor src = intTensor(VDLA_DTYPE_INT32, 1, 2, 1, 3, { 0, 1, 2, 3, 4, 5 });
	RubikParams p;
	p.perm[VDLA_DIM_W] = VDLA_DIM_C;
	p.perm[VDLA_DIM_C] = VDLA_DIM_W;
	Tensor t = rubik(src, p);
	EXPECT_EQ(t.shape(), "Int32(1,3,1,2)");
	EXPECT_EQ(t.i, (std::vector<int64_t>{ 0, 3, 1, 4, 2, 5 }));
	EXPECT_EQ(p.permRegister(), 2u | (1u << 2) | (0u << 4) | (3u << 6));

	Tensor d2s = intTensor(VDLA_DTYPE_INT8, 1, 4, 1, 2, { 0, 1, 2, 3, 4, 5, 6, 7 });
	RubikParams c;
	c.mode = VDLA_RUBIK_CONTRACT;
	c.bx = c.by = 2;
	Tensor contracted = rubik(d2s, c);
	EXPECT_EQ(contracted.shape(), "Int8(1,1,2,4)");
	EXPECT_EQ(contracted.i, (std::vector<int64_t>{ 0, 2, 1, 3, 4, 6, 5, 7 }));
	RubikParams s = c;
	s.mode = VDLA_RUBIK_SPLIT;
	EXPECT_EQ(rubik(contracted, s).i, d2s.i);

	RubikParams r;
	r.mode = VDLA_RUBIK_RESHAPE;
	r.n = 2, r.c = 1, r.h = 3, r.w = 1;
	Tensor reshaped = rubik(src, r);
	EXPECT_EQ(reshaped.shape(), "Int32(2,1,3,1)");
	EXPECT_EQ(reshaped.i, src.i);
}

TEST(Reference, BdmaIsAMemmove)
{
	std::map<uint64_t, uint8_t> mem;
	for (uint64_t a = 0; a < 10; a++)
		mem[a] = uint8_t(a);
	BdmaParams p;
	p.src = 0;
	p.dst = 2;
	p.lineBytes = 5;
	for (auto &wr : bdma(p, [&](uint64_t a) { return mem[a]; }))
		mem[wr.first] = wr.second;
	std::vector<uint8_t> got;
	for (auto &kv : mem)
		got.push_back(kv.second);
	EXPECT_EQ(got, (std::vector<uint8_t>{ 0, 1, 0, 1, 2, 3, 4, 7, 8, 9 }));

	/* Two surfaces of two lines of 2 bytes, strided on both sides. */
	BdmaParams q;
	q.src = 100;
	q.dst = 200;
	q.lineBytes = 2;
	q.lines = 2;
	q.surfaces = 2;
	q.srcLineStride = 3;
	q.srcSurfStride = 10;
	q.dstLineStride = 2;
	q.dstSurfStride = 4;
	auto w = bdma(q, [](uint64_t a) { return uint8_t(a); });
	ASSERT_EQ(w.size(), 8u);
	std::vector<uint64_t> dsts, vals;
	for (auto &wr : w) {
		dsts.push_back(wr.first);
		vals.push_back(wr.second);
	}
	EXPECT_EQ(dsts, (std::vector<uint64_t>{ 200, 201, 202, 203, 204, 205, 206, 207 }));
	EXPECT_EQ(vals, (std::vector<uint64_t>{ 100, 101, 103, 104, 110, 111, 113, 114 }));
}

TEST(Reference, ComparisonAppliesTheSpecTolerances)
{
	Tensor ref(VDLA_DTYPE_FP32, 1, 1, 1, 1);
	ref.f = { 1.0 };
	ref.mag = { 100.0 }; /* tolerance 1e-3 */
	Tensor got = ref;
	got.mag.clear();
	got.f = { 1.0009 };
	EXPECT_TRUE(matches(ref, got));
	got.f = { 1.0011 };
	EXPECT_FALSE(matches(ref, got));
	ref.mag = { -1 }; /* exact */
	got.f = { 1.0 + std::ldexp(1.0, -23) };
	EXPECT_FALSE(matches(ref, got));

	Tensor r16(VDLA_DTYPE_FP16, 1, 1, 1, 1);
	r16.f = { 1000.0 };
	r16.mag = { 1000.0 }; /* 2^-9 * 1001 + 2^-24 ~ 1.955 */
	Tensor g16 = r16;
	g16.f = { 1001.5 };
	EXPECT_TRUE(matches(r16, g16));
	g16.f = { 1002.0 };
	EXPECT_FALSE(matches(r16, g16));
	r16.f = { 65530.0 }; /* could round either side of the overflow */
	g16.f = { INFINITY };
	EXPECT_TRUE(matches(r16, g16));

	Tensor ri(VDLA_DTYPE_INT8, 1, 1, 1, 1);
	ri.i = { 3 };
	ri.iHi = { 4 };
	Tensor gi = ri;
	gi.iHi.clear();
	gi.i = { 4 };
	EXPECT_TRUE(matches(ri, gi));
	gi.i = { 5 };
	EXPECT_FALSE(matches(ri, gi));
}

} /* namespace */
