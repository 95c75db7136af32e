/* SPDX-License-Identifier: MIT */
/*
 * The neural-network extension on the CPU: the arithmetic helpers, each
 * layer against hand-computed answers (docs/openvx.md, "Neural-network
 * layers"), the validators' error codes, kernel lookup and reference counts.
 * Integer tensors are written and read as raw values.
 */
#include "nn_test.h"

#include <algorithm>
#include <random>

/* ---- The shared arithmetic ---- */

struct RoundShiftCase {
	int64_t value;
	unsigned shift;
	vx_enum rounding;
	int64_t expected;
};

class NnRoundShift : public ::testing::TestWithParam<RoundShiftCase>
{
};

TEST_P(NnRoundShift, TruncatesOrRoundsTiesToEven)
{
	const RoundShiftCase &c = GetParam();
	EXPECT_EQ(nn::roundShift(c.value, c.shift, c.rounding), c.expected);
}

INSTANTIATE_TEST_SUITE_P(NnArithmetic, NnRoundShift,
	::testing::Values(RoundShiftCase{ 5, 0, kEven, 5 }, /* nothing to drop */
		RoundShiftCase{ 5, 1, kZero, 2 }, /* 2.5 */
		RoundShiftCase{ 5, 1, kEven, 2 }, /* 2.5: tie to even below */
		RoundShiftCase{ 7, 1, kEven, 4 }, /* 3.5: tie to even above */
		RoundShiftCase{ -5, 1, kZero, -2 }, /* -2.5 */
		RoundShiftCase{ -5, 1, kEven, -2 }, RoundShiftCase{ -7, 1, kEven, -4 },
		RoundShiftCase{ -6, 2, kZero, -1 }, /* -1.5 */
		RoundShiftCase{ -6, 2, kEven, -2 }, RoundShiftCase{ 13, 2, kEven, 3 }, /* 3.25 */
		RoundShiftCase{ 15, 2, kEven, 4 }, /* 3.75 */
		RoundShiftCase{ 15, 2, kZero, 3 }, RoundShiftCase{ kInt64Min, 63, kEven, -1 },
		RoundShiftCase{ kInt64Min, 64, kEven, 0 },
		RoundShiftCase{ kInt64Max, 70, kZero, 0 }));

struct ConvertCase {
	int64_t value;
	vx_enum type;
	vx_enum overflow;
	int64_t expected;
};

class NnConvert : public ::testing::TestWithParam<ConvertCase>
{
};

TEST_P(NnConvert, SaturatesOrWraps)
{
	const ConvertCase &c = GetParam();
	EXPECT_EQ(nn::convert(c.value, c.type, c.overflow), c.expected);
}

INSTANTIATE_TEST_SUITE_P(NnArithmetic, NnConvert,
	::testing::Values(ConvertCase{ 200, VX_TYPE_INT8, kSaturate, 127 },
		ConvertCase{ 200, VX_TYPE_INT8, kWrap, -56 },
		ConvertCase{ -129, VX_TYPE_INT8, kWrap, 127 },
		ConvertCase{ -129, VX_TYPE_INT8, kSaturate, -128 },
		ConvertCase{ 40000, VX_TYPE_INT16, kSaturate, 32767 },
		ConvertCase{ 40000, VX_TYPE_INT16, kWrap, -25536 },
		ConvertCase{ -40000, VX_TYPE_INT16, kSaturate, -32768 },
		ConvertCase{ 1000, VX_TYPE_INT16, kWrap, 1000 }));

struct QuantizeCase {
	double real;
	vx_enum type;
	vx_int8 position;
	int64_t expected;
};

class NnQuantize : public ::testing::TestWithParam<QuantizeCase>
{
};

TEST_P(NnQuantize, RoundsTiesToEvenAndSaturates)
{
	const QuantizeCase &c = GetParam();
	EXPECT_EQ(nn::quantize(c.real, c.type, c.position), c.expected);
}

INSTANTIATE_TEST_SUITE_P(NnArithmetic, NnQuantize,
	::testing::Values(QuantizeCase{ 0.5, VX_TYPE_INT16, 8, 128 },
		QuantizeCase{ 2.5, VX_TYPE_INT8, 0, 2 }, QuantizeCase{ 3.5, VX_TYPE_INT8, 0, 4 },
		QuantizeCase{ -2.5, VX_TYPE_INT8, 0, -2 }, QuantizeCase{ 0.7, VX_TYPE_INT8, 0, 1 },
		QuantizeCase{ 3.0, VX_TYPE_INT8, -1, 2 }, /* 1.5 at position -1 */
		QuantizeCase{ 1000.0, VX_TYPE_INT16, 8, 32767 },
		QuantizeCase{ -1e300, VX_TYPE_INT8, 0, -128 },
		QuantizeCase{ INFINITY, VX_TYPE_INT8, 0, 127 },
		QuantizeCase{ NAN, VX_TYPE_INT8, 0, 0 }));

TEST(NnArithmetic, RescaleShiftsLeftSaturatingAndRightRounding)
{
	EXPECT_EQ(nn::rescale(3, 0, 2, kZero), 12);
	EXPECT_EQ(nn::rescale(1, 0, 70, kZero), kInt64Max);
	EXPECT_EQ(nn::rescale(-1, 0, 63, kZero), kInt64Min);
	EXPECT_EQ(nn::rescale(kInt64Max / 2 + 1, 0, 1, kZero), kInt64Max);
	EXPECT_EQ(nn::rescale(24, 20, 16, kZero), 1); /* 1.5 */
	EXPECT_EQ(nn::rescale(24, 20, 16, kEven), 2);
}

TEST(NnArithmetic, DivideRoundsToNearestTiesToEven)
{
	EXPECT_EQ(nn::divideNearestEven(2, 4), 0); /* 0.5 */
	EXPECT_EQ(nn::divideNearestEven(6, 4), 2); /* 1.5 */
	EXPECT_EQ(nn::divideNearestEven(7, 4), 2); /* 1.75 */
	EXPECT_EQ(nn::divideNearestEven(9, 4), 2); /* 2.25 */
	EXPECT_EQ(nn::divideNearestEven(-2, 4), 0);
	EXPECT_EQ(nn::divideNearestEven(-6, 4), -2);
	EXPECT_EQ(nn::divideNearestEven(-7, 4), -2);
	EXPECT_EQ(nn::divideNearestEven(-9, 4), -2);
	EXPECT_EQ(nn::divideNearestEven(10, 3), 3);
}

/* The sum and rounding in 128 bits: exact while no shift passes 60. */
int64_t sumIn128Bits(int64_t x, int xPosition, int64_t y, int yPosition, int position)
{
	const int common = std::max(xPosition, yPosition);
	__int128 sum = (__int128(x) << (common - xPosition)) + (__int128(y) << (common - yPosition));
	if (position >= common)
		sum <<= position - common;
	else {
		const int n = common - position;
		__int128 floor = sum >> n, remainder = sum - (floor << n), half = __int128(1) << (n - 1);
		if (remainder > half || (remainder == half && (floor & 1)))
			floor++;
		sum = floor;
	}
	const __int128 max = std::numeric_limits<int64_t>::max();
	return int64_t(std::clamp(sum, -max - 1, max));
}

TEST(NnArithmetic, ExactSumMatches128BitArithmeticWhereItIsExact)
{
	std::mt19937_64 random(7);
	std::uniform_int_distribution<int> positions(-30, 30);
	std::uniform_int_distribution<int64_t> values(-(int64_t(1) << 40), int64_t(1) << 40);
	for (int i = 0; i < 20000; i++) {
		const int64_t x = values(random) >> (random() % 40), y = values(random) >> (random() % 40);
		const int xp = positions(random), yp = positions(random), p = positions(random);
		ASSERT_EQ(nn::exactSumAt(x, xp, y, yp, p), sumIn128Bits(x, xp, y, yp, p))
			<< x << " at " << xp << " + " << y << " at " << yp << " to " << p;
	}
}

TEST(NnArithmetic, ExactSumAtTheExtremePositions)
{
	/* 2^256, to position 127: saturated. */
	EXPECT_EQ(nn::exactSumAt(1, -256, 0, 0, 127), kInt64Max);
	EXPECT_EQ(nn::exactSumAt(-1, -256, 0, 0, 0), kInt64Min);
	/* 5 2^128 - 2^-254, at position -128: 5 - 2^-126, so 5. */
	EXPECT_EQ(nn::exactSumAt(-1, 254, 5, -128, -128), 5);
	/* 2^-254 and 3 2^-254 at position 253: 0.5 and 1.5, ties to even. */
	EXPECT_EQ(nn::exactSumAt(1, 254, 0, 0, 253), 0);
	EXPECT_EQ(nn::exactSumAt(3, 254, 0, 0, 253), 2);
	/* 0.5 (Q1) plus 2^-254 is above the tie. */
	EXPECT_EQ(nn::exactSumAt(1, 254, 1, 1, 0), 1);
	EXPECT_EQ(nn::exactSumAt(-1, 254, 1, 1, 0), 0);
	EXPECT_EQ(nn::exactSumAt(-1, 254, -1, 1, 0), -1);
	EXPECT_EQ(nn::exactSumAt(kInt64Max, -128, kInt64Max, -128, 127), kInt64Max);
	EXPECT_EQ(nn::exactSumAt(kInt64Min, 0, 0, 0, 0), kInt64Min);
	EXPECT_EQ(nn::exactSumAt(kInt64Min, 0, -1, 0, 0), kInt64Min);
	EXPECT_EQ(nn::exactSumAt(kInt64Max, 0, kInt64Min, 0, 0), -1);
}

/* ---- Convolution ---- */

using ConvolutionLayer = NnTest;

/* 3x3 input 1..9 (row by row), 3x3 kernel of ones. */
TEST_F(ConvolutionLayer, PaddingReadsZeros)
{
	vx_tensor in = tensor(VX_TYPE_INT8, { 3, 3, 1 }, 0, { 1, 2, 3, 4, 5, 6, 7, 8, 9 });
	vx_tensor weights = tensor(VX_TYPE_INT8, { 3, 3, 1, 1 }, 0, Values(9, 1));
	vx_tensor out = tensor(VX_TYPE_INT8, { 3, 3, 1 });
	convolution(in, weights, nullptr, out, convParams(1, 1));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 12, 21, 16, 27, 45, 33, 24, 39, 28 }));
}

TEST_F(ConvolutionLayer, OutputSizeSelectsStrideTwo)
{
	vx_tensor in = tensor(VX_TYPE_INT8, { 3, 3, 1 }, 0, { 1, 2, 3, 4, 5, 6, 7, 8, 9 });
	vx_tensor weights = tensor(VX_TYPE_INT8, { 3, 3, 1, 1 }, 0, Values(9, 1));
	vx_tensor out = tensor(VX_TYPE_INT8, { 2, 2, 1 });
	vx_node node = convolution(in, weights, nullptr, out, convParams(1, 1));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 12, 16, 24, 28 }));

	std::optional<nn::Layer> layer = nn::describeLayer(node);
	ASSERT_TRUE(layer);
	const auto &conv = std::get<nn::Convolution>(*layer);
	EXPECT_EQ(conv.strideX, 2u);
	EXPECT_EQ(conv.strideY, 2u);
	EXPECT_EQ(conv.padX, 1u);
	EXPECT_EQ(conv.bias, nullptr);
	EXPECT_EQ(conv.output, out);
	EXPECT_FALSE(conv.ceil);
}

/* Width 6, kernel 3, no padding: floor gives 4 or 2 outputs, ceil 4, 3
 * or 2; the third window of stride 2 reads one column past the input. */
TEST_F(ConvolutionLayer, CeilingSizeRoundingAllowsPartialLastWindow)
{
	vx_tensor in = tensor(VX_TYPE_INT16, { 6, 1, 1 }, 0, { 1, 2, 3, 4, 5, 6 });
	vx_tensor weights = tensor(VX_TYPE_INT16, { 3, 1, 1, 1 }, 0, { 1, 1, 1 });
	vx_tensor out = tensor(VX_TYPE_INT16, { 3, 1, 1 });
	vx_node node
		= convolution(in, weights, nullptr, out, convParams(0, 0, kSaturate, kZero, kCeil));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 6, 12, 11 }));
	EXPECT_EQ(std::get<nn::Convolution>(*nn::describeLayer(node)).strideX, 2u);
}

TEST_F(ConvolutionLayer, FloorSizeRoundingRejectsThatOutputSize)
{
	vx_tensor in = tensor(VX_TYPE_INT16, { 6, 1, 1 });
	vx_tensor weights = tensor(VX_TYPE_INT16, { 3, 1, 1, 1 });
	vx_tensor out = tensor(VX_TYPE_INT16, { 3, 1, 1 });
	convolution(in, weights, nullptr, out, convParams(0, 0, kSaturate, kZero, kFloor));
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_DIMENSION);
}

/* One zero inserted between taps: output x reads x, x + 2 and x + 4. */
TEST_F(ConvolutionLayer, DilationSpreadsTheTaps)
{
	vx_tensor in = tensor(VX_TYPE_INT16, { 7, 1, 1 }, 0, { 1, 2, 3, 4, 5, 6, 7 });
	vx_tensor weights = tensor(VX_TYPE_INT16, { 3, 1, 1, 1 }, 0, { 1, 2, 3 });
	vx_tensor out = tensor(VX_TYPE_INT16, { 3, 1, 1 });
	convolution(in, weights, nullptr, out, convParams(0, 0, kSaturate, kZero, kFloor, 1, 0));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 22, 28, 34 }));
}

/* Input [2, 1, 2]: channel 0 = (1, 2), channel 1 = (3, 4). Output channel 0
 * = c0 + 10 c1, channel 1 = -c0 + 2 c1. */
TEST_F(ConvolutionLayer, SharedBiasIsPerOutputChannel)
{
	vx_tensor in = tensor(VX_TYPE_INT16, { 2, 1, 2 }, 0, { 1, 2, 3, 4 });
	vx_tensor weights = tensor(VX_TYPE_INT16, { 1, 1, 2, 2 }, 0, { 1, 10, -1, 2 });
	vx_tensor bias = tensor(VX_TYPE_INT16, { 2 }, 0, { 5, -5 });
	vx_tensor out = tensor(VX_TYPE_INT16, { 2, 1, 2 });
	convolution(in, weights, bias, out, convParams());
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 36, 47, 0, 1 }));
}

TEST_F(ConvolutionLayer, UnsharedBiasIsPerOutputElement)
{
	vx_tensor in = tensor(VX_TYPE_INT16, { 2, 1, 2 }, 0, { 1, 2, 3, 4 });
	vx_tensor weights = tensor(VX_TYPE_INT16, { 1, 1, 2, 2 }, 0, { 1, 10, -1, 2 });
	vx_tensor bias = tensor(VX_TYPE_INT16, { 2, 1, 2 }, 0, { 1, 2, 3, 4 });
	vx_tensor out = tensor(VX_TYPE_INT16, { 2, 1, 2 });
	convolution(in, weights, bias, out, convParams());
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 32, 44, 8, 10 }));
}

TEST_F(ConvolutionLayer, BatchesAreIndependent)
{
	vx_tensor in = tensor(VX_TYPE_INT8, { 1, 1, 1, 2 }, 0, { 3, -4 });
	vx_tensor weights = tensor(VX_TYPE_INT8, { 1, 1, 1, 1 }, 0, { 2 });
	vx_tensor out = tensor(VX_TYPE_INT8, { 1, 1, 1, 2 });
	convolution(in, weights, nullptr, out, convParams());
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 6, -8 }));
}

/* 1.5 * 2 - 2 * 0.25 - 0.5 * 1 + 4 * 0.5 + 0.125. */
TEST_F(ConvolutionLayer, FloatSumsInDoubleWithBias)
{
	vx_tensor in = tensor(VX_TYPE_FLOAT32, { 2, 2, 1 }, 0, { 1.5, -2, 0.5, 4 });
	vx_tensor weights = tensor(VX_TYPE_FLOAT32, { 2, 2, 1, 1 }, 0, { 2, 0.25, -1, 0.5 });
	vx_tensor bias = tensor(VX_TYPE_FLOAT32, { 1 }, 0, { 0.125 });
	vx_tensor out = tensor(VX_TYPE_FLOAT32, { 1, 1, 1 });
	convolution(in, weights, bias, out, convParams());
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 4.125 }));
}

TEST_F(ConvolutionLayer, VirtualOutputGetsStrideOneSizeAndInputFormat)
{
	vx_tensor in = tensor(VX_TYPE_INT16, { 5, 4, 2, 2 }, 8);
	vx_tensor weights = tensor(VX_TYPE_INT16, { 3, 3, 2, 3 }, 6);
	vx_tensor middle = virtualTensor();
	vx_tensor out = tensor(VX_TYPE_INT16, { 3, 2, 3, 2 }, 8);
	vx_node node = convolution(in, weights, nullptr, middle, convParams());
	keep(vxActivationLayer(graph, middle, VX_NN_ACTIVATION_RELU, 0, 0, out));
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_EQ(dimsOf(middle), Dims({ 3, 2, 3, 2 }));
	EXPECT_EQ(typeOf(middle), VX_TYPE_INT16);
	EXPECT_EQ(positionOf(middle), 8);
	EXPECT_EQ(std::get<nn::Convolution>(*nn::describeLayer(node)).strideY, 1u);
}

TEST_F(ConvolutionLayer, VdlaTargetAttributesSayWhereVerificationPutTheNode)
{
	/* No DLA on the host: every node runs on the CPU, nothing is fused. */
	vx_tensor in = tensor(VX_TYPE_INT16, { 5, 4, 2 }, 8);
	vx_tensor weights = tensor(VX_TYPE_INT16, { 3, 3, 2, 3 }, 6);
	vx_tensor middle = virtualTensor();
	vx_tensor out = tensor(VX_TYPE_INT16, { 3, 2, 3 }, 8);
	vx_node conv = convolution(in, weights, nullptr, middle, convParams());
	vx_node relu = keep(vxActivationLayer(graph, middle, VX_NN_ACTIVATION_RELU, 0, 0, out));
	vx_enum target = 0;
	vx_bool fused = vx_true_e;
	EXPECT_EQ(vxQueryNode(conv, VX_NODE_VDLA_TARGET, &target, sizeof(target)),
		VX_ERROR_INVALID_GRAPH)
		<< "decided at verification";
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	for (vx_node node : { conv, relu }) {
		ASSERT_EQ(vxQueryNode(node, VX_NODE_VDLA_TARGET, &target, sizeof(target)),
			VX_SUCCESS);
		EXPECT_EQ(target, VX_VDLA_TARGET_CPU);
		ASSERT_EQ(vxQueryNode(node, VX_NODE_VDLA_FUSED, &fused, sizeof(fused)), VX_SUCCESS);
		EXPECT_EQ(fused, vx_false_e);
	}
	EXPECT_EQ(vxQueryNode(conv, VX_NODE_VDLA_TARGET, &target, sizeof(target) + 1),
		VX_ERROR_INVALID_PARAMETERS);
}

/* A 3x3 Q7.8 convolution: every input element in, every weight w, bias b,
 * all at position 8, so the sum of products is at position 16 and is
 * shifted right by 8 into the Q7.8 output. */
struct Q78Case {
	const char *name;
	double in, w;
	std::optional<double> bias;
	vx_enum rounding, overflow;
	double expected;
};

class ConvolutionQ78 : public NnTest, public ::testing::WithParamInterface<Q78Case>
{
};

TEST_P(ConvolutionQ78, RoundsAndNarrowsTheAccumulator)
{
	const Q78Case &c = GetParam();
	vx_tensor in = tensor(VX_TYPE_INT16, { 3, 3, 1 }, 8, Values(9, c.in));
	vx_tensor weights = tensor(VX_TYPE_INT16, { 3, 3, 1, 1 }, 8, Values(9, c.w));
	vx_tensor bias = c.bias ? tensor(VX_TYPE_INT16, { 1 }, 8, { *c.bias }) : nullptr;
	vx_tensor out = tensor(VX_TYPE_INT16, { 1, 1, 1 }, 8);
	convolution(in, weights, bias, out, convParams(0, 0, c.overflow, c.rounding));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ c.expected }));
}

/*
 * 9 * 384 * 3 = 10368 = 40.5 * 256; a bias of +-1 adds +-256.
 * 9 * 300 = 2700 = 10.546875 * 256.
 * 9 * 25600 * 512 / 256 = 460800 = 7 * 65536 + 2048.
 * 9 * 32767^2 = 9663086601 saturates to 2^31 - 1, which is 8388607.996 * 256;
 * 8388607 = 0x7fffff wraps to -1 (0x800000 to 0); without the 32-bit
 * accumulator the wrap would give 0xf700 = -2304.
 */
INSTANTIATE_TEST_SUITE_P(Convolution, ConvolutionQ78,
	::testing::Values(Q78Case{ "TieWithBiasTruncates", 384, 3, 1, kZero, kSaturate, 41 },
		Q78Case{ "TieWithBiasRoundsUpToEven", 384, 3, 1, kEven, kSaturate, 42 },
		Q78Case{ "TieRoundsDownToEven", 384, 3, std::nullopt, kEven, kSaturate, 40 },
		Q78Case{ "TieTruncates", 384, 3, std::nullopt, kZero, kSaturate, 40 },
		Q78Case{ "NegativeTieTruncatesTowardsZero", -384, 3, -1, kZero, kSaturate, -41 },
		Q78Case{ "NegativeTieRoundsToEven", -384, 3, -1, kEven, kSaturate, -42 },
		Q78Case{ "FractionTruncates", 300, 1, std::nullopt, kZero, kSaturate, 10 },
		Q78Case{ "FractionRoundsToNearest", 300, 1, std::nullopt, kEven, kSaturate, 11 },
		Q78Case{ "OverflowSaturates", 25600, 512, std::nullopt, kZero, kSaturate, 32767 },
		Q78Case{ "OverflowWraps", 25600, 512, std::nullopt, kZero, kWrap, 2048 },
		Q78Case{ "AccumulatorSaturatesThenSaturates", 32767, 32767, std::nullopt, kZero,
			kSaturate, 32767 },
		Q78Case{ "AccumulatorSaturatesThenWraps", 32767, 32767, std::nullopt, kZero, kWrap,
			-1 },
		Q78Case{ "AccumulatorSaturatesRoundsThenWraps", 32767, 32767, std::nullopt, kEven,
			kWrap, 0 }),
	[](const auto &info) { return std::string(info.param.name); });

/* Bias 24 at position 20 is 1.5 at the product position 16. */
TEST_F(ConvolutionLayer, BiasAbovetheProductPositionIsRounded)
{
	for (auto [rounding, expected] : { std::pair{ kZero, 1.0 }, std::pair{ kEven, 2.0 } }) {
		vx_tensor in = tensor(VX_TYPE_INT16, { 1, 1, 1 }, 8, { 256 });
		vx_tensor weights = tensor(VX_TYPE_INT16, { 1, 1, 1, 1 }, 8, { 0 });
		vx_tensor bias = tensor(VX_TYPE_INT16, { 1 }, 20, { 24 });
		vx_tensor out = tensor(VX_TYPE_INT16, { 1, 1, 1 }, 16);
		convolution(in, weights, bias, out, convParams(0, 0, kSaturate, rounding));
		ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
		EXPECT_EQ(read(out), Values({ expected }));
	}
}

/* 3 * 5 = 15 at position 0 is 60 at position 2; 10 * 5 = 200 does not fit. */
TEST_F(ConvolutionLayer, OutputPositionAboveTheProductShiftsLeft)
{
	struct Case {
		double in;
		vx_enum overflow;
		double expected;
	};
	for (const Case &c :
		{ Case{ 3, kSaturate, 60 }, Case{ 10, kSaturate, 127 }, Case{ 10, kWrap, -56 } }) {
		vx_tensor in = tensor(VX_TYPE_INT8, { 1, 1, 1 }, 0, { c.in });
		vx_tensor weights = tensor(VX_TYPE_INT8, { 1, 1, 1, 1 }, 0, { 5 });
		vx_tensor out = tensor(VX_TYPE_INT8, { 1, 1, 1 }, 2);
		convolution(in, weights, nullptr, out, convParams(0, 0, c.overflow));
		ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
		EXPECT_EQ(read(out), Values({ c.expected }));
	}
}

TEST_F(ConvolutionLayer, GenericNodeTakesTheDocumentedParameterNumbering)
{
	/* vx_khr_nn.h: inputs #0, weights #1, biases #2, the settings as one
	 * VX_TYPE_NN_CONVOLUTION_PARAMS scalar #3, outputs #4. */
	vx_tensor in = tensor(VX_TYPE_INT8, { 3, 3, 1 }, 0, { 1, 2, 3, 4, 5, 6, 7, 8, 9 });
	vx_tensor weights = tensor(VX_TYPE_INT8, { 3, 3, 1, 1 }, 0, Values(9, 1));
	vx_tensor out = tensor(VX_TYPE_INT8, { 2, 2, 1 });
	vx_nn_convolution_params_t params = convParams();
	params.padding_x = 1;
	params.padding_y = 1;
	vx_scalar settings = vxCreateScalarWithSize(
		context, VX_TYPE_NN_CONVOLUTION_PARAMS, &params, sizeof(params));
	ASSERT_EQ(vxGetStatus(ref(settings)), VX_SUCCESS);
	vx_enum type = VX_TYPE_INVALID;
	vxQueryScalar(settings, VX_SCALAR_TYPE, &type, sizeof(type));
	EXPECT_EQ(type, VX_TYPE_NN_CONVOLUTION_PARAMS);
	vx_kernel kernel = vxGetKernelByEnum(context, VX_KERNEL_CONVOLUTION_LAYER);
	vx_node node = keep(vxCreateGenericNode(graph, kernel));
	const vx_reference parameters[]
		= { ref(in), ref(weights), nullptr, ref(settings), ref(out) };
	for (vx_uint32 i = 0; i < 5; i++)
		EXPECT_EQ(vxSetParameterByIndex(node, i, parameters[i]), VX_SUCCESS) << i;
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 12, 16, 24, 28 }));
	vxReleaseScalar(&settings);
	vxReleaseKernel(&kernel);
}

TEST_F(ConvolutionLayer, SettingsScalarOfAnotherSizeIsRefused)
{
	const vx_nn_convolution_params_t params = convParams();
	vx_scalar settings = vxCreateScalarWithSize(
		context, VX_TYPE_NN_CONVOLUTION_PARAMS, &params, sizeof(params) - 8);
	EXPECT_EQ(vxGetStatus(ref(settings)), VX_ERROR_INVALID_TYPE);
	settings = vxCreateScalar(context, VX_TYPE_NN_CONVOLUTION_PARAMS, &params);
	ASSERT_EQ(vxGetStatus(ref(settings)), VX_SUCCESS);
	vx_nn_convolution_params_t back{};
	ASSERT_EQ(vxCopyScalar(settings, &back, VX_READ_ONLY, VX_MEMORY_TYPE_HOST), VX_SUCCESS);
	EXPECT_EQ(back.down_scale_size_rounding, params.down_scale_size_rounding);
	vxReleaseScalar(&settings);
}

TEST_F(ConvolutionLayer, ScalarOfTheWrongTypeIsInvalidType)
{
	vx_tensor in = tensor(VX_TYPE_INT8, { 3, 3, 1 });
	vx_tensor weights = tensor(VX_TYPE_INT8, { 3, 3, 1, 1 });
	vx_tensor out = tensor(VX_TYPE_INT8, { 1, 1, 1 });
	vx_node node = convolution(in, weights, nullptr, out, convParams());
	const vx_int32 padding = 0;
	ASSERT_EQ(vxSetParameterByIndex(node, 3, ref(scalar(VX_TYPE_INT32, &padding))), VX_SUCCESS);
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_TYPE);
	for (vx_scalar &s : scalars)
		vxReleaseScalar(&s);
}

TEST_F(ConvolutionLayer, WrongParameterStructSizeIsInvalidParameters)
{
	vx_tensor in = tensor(VX_TYPE_INT8, { 3, 3, 1 });
	vx_tensor weights = tensor(VX_TYPE_INT8, { 3, 3, 1, 1 });
	vx_tensor out = tensor(VX_TYPE_INT8, { 1, 1, 1 });
	const vx_nn_convolution_params_t params = convParams();
	const vx_uint32 before = references();
	vx_node node
		= vxConvolutionLayer(graph, in, weights, nullptr, &params, sizeof(params) - 1, out);
	EXPECT_EQ(vxGetStatus(ref(node)), VX_ERROR_INVALID_PARAMETERS);
	node = vxConvolutionLayer(graph, in, weights, nullptr, nullptr, sizeof(params), out);
	EXPECT_EQ(vxGetStatus(ref(node)), VX_ERROR_INVALID_PARAMETERS);
	EXPECT_EQ(references(), before);
}

TEST_F(ConvolutionLayer, MissingInputGivesErrorAndLeavesNoNode)
{
	vx_tensor weights = tensor(VX_TYPE_INT8, { 3, 3, 1, 1 });
	vx_tensor out = tensor(VX_TYPE_INT8, { 1, 1, 1 });
	const vx_nn_convolution_params_t params = convParams();
	const vx_uint32 before = references();
	vx_node node = vxConvolutionLayer(
		graph, nullptr, weights, nullptr, &params, sizeof(params), out);
	EXPECT_EQ(vxGetStatus(ref(node)), VX_ERROR_INVALID_REFERENCE);
	EXPECT_EQ(references(), before);
	vx_uint32 count = 1;
	vxQueryGraph(graph, VX_GRAPH_NUMNODES, &count, sizeof(count));
	EXPECT_EQ(count, 0u);
}

/* ---- Validation errors, table-driven per layer ---- */

/* A valid convolution that each case changes in one respect. */
struct ConvolutionSetup {
	vx_enum inType = VX_TYPE_INT16, weightsType = VX_TYPE_INT16, biasType = VX_TYPE_INT16,
		outType = VX_TYPE_INT16;
	Dims in{ 5, 5, 2 }, weights{ 3, 3, 2, 4 }, bias{ 4 }, out{ 3, 3, 4 };
	vx_nn_convolution_params_t params = convParams();
};

struct ConvolutionError {
	const char *name;
	void (*change)(ConvolutionSetup &);
	vx_status expected;
};

class ConvolutionValidation : public NnTest, public ::testing::WithParamInterface<ConvolutionError>
{
};

TEST_P(ConvolutionValidation, Rejects)
{
	ConvolutionSetup s;
	GetParam().change(s);
	vx_tensor bias = s.bias.empty() ? nullptr : tensor(s.biasType, s.bias);
	convolution(tensor(s.inType, s.in), tensor(s.weightsType, s.weights), bias,
		tensor(s.outType, s.out), s.params);
	EXPECT_EQ(vxVerifyGraph(graph), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(Convolution, ConvolutionValidation,
	::testing::Values(
		ConvolutionError{ "ValidSetupPasses", [](ConvolutionSetup &) {}, VX_SUCCESS },
		ConvolutionError{ "UnsignedInputSignedWeights",
			[](ConvolutionSetup &s) {
				s.inType = s.biasType = s.outType = VX_TYPE_UINT8;
				s.weightsType = VX_TYPE_INT8;
			},
			VX_ERROR_INVALID_FORMAT },
		ConvolutionError{ "WeightsOfOtherType",
			[](ConvolutionSetup &s) { s.weightsType = VX_TYPE_INT8; },
			VX_ERROR_INVALID_FORMAT },
		ConvolutionError{ "BiasOfOtherType",
			[](ConvolutionSetup &s) { s.biasType = VX_TYPE_FLOAT32; },
			VX_ERROR_INVALID_FORMAT },
		ConvolutionError{ "OutputOfOtherType",
			[](ConvolutionSetup &s) { s.outType = VX_TYPE_INT8; },
			VX_ERROR_INVALID_FORMAT },
		ConvolutionError{ "InputWithoutChannels",
			[](ConvolutionSetup &s) {
				s.in = { 5, 5 };
			},
			VX_ERROR_INVALID_DIMENSION },
		ConvolutionError{ "WeightsWithoutOutputChannels",
			[](ConvolutionSetup &s) {
				s.weights = { 3, 3, 2 };
			},
			VX_ERROR_INVALID_DIMENSION },
		ConvolutionError{ "WeightsForOtherInputChannels",
			[](ConvolutionSetup &s) {
				s.weights = { 3, 3, 3, 4 };
			},
			VX_ERROR_INVALID_DIMENSION },
		ConvolutionError{ "OutputOfOtherRank",
			[](ConvolutionSetup &s) {
				s.out = { 3, 3, 4, 1 };
			},
			VX_ERROR_INVALID_DIMENSION },
		ConvolutionError{ "OutputWithOtherChannels",
			[](ConvolutionSetup &s) {
				s.out = { 3, 3, 5 };
			},
			VX_ERROR_INVALID_DIMENSION },
		ConvolutionError{ "OutputSizeNoStrideGives",
			[](ConvolutionSetup &s) {
				s.out = { 4, 3, 4 };
			},
			VX_ERROR_INVALID_DIMENSION },
		ConvolutionError{ "KernelLargerThanPaddedInput",
			[](ConvolutionSetup &s) {
				s.weights = { 7, 3, 2, 4 };
			},
			VX_ERROR_INVALID_DIMENSION },
		ConvolutionError{ "DilatedKernelLargerThanInput",
			[](ConvolutionSetup &s) { s.params.dilation_y = 3; },
			VX_ERROR_INVALID_DIMENSION },
		ConvolutionError{ "OtherBatch",
			[](ConvolutionSetup &s) {
				s.in = { 5, 5, 2, 2 };
				s.out = { 3, 3, 4, 3 };
			},
			VX_ERROR_INVALID_DIMENSION },
		ConvolutionError{ "BiasForOtherChannels",
			[](ConvolutionSetup &s) { s.bias = { 3 }; }, VX_ERROR_INVALID_DIMENSION },
		ConvolutionError{ "UnsharedBiasOfOtherSize",
			[](ConvolutionSetup &s) {
				s.bias = { 3, 2, 4 };
			},
			VX_ERROR_INVALID_DIMENSION },
		ConvolutionError{ "UnknownOverflowPolicy",
			[](ConvolutionSetup &s) { s.params.overflow_policy = kZero; },
			VX_ERROR_INVALID_VALUE },
		ConvolutionError{ "UnknownRoundingPolicy",
			[](ConvolutionSetup &s) { s.params.rounding_policy = kWrap; },
			VX_ERROR_INVALID_VALUE },
		ConvolutionError{ "UnknownSizeRounding",
			[](ConvolutionSetup &s) { s.params.down_scale_size_rounding = kEven; },
			VX_ERROR_INVALID_VALUE }),
	[](const auto &info) { return std::string(info.param.name); });

/* ---- Fully connected ---- */

using FullyConnectedLayer = NnTest;

/* Input [2, 1, 2, batch 2]: samples (1, 2, 3, 4) and (5, 6, 7, 8) in memory
 * order; output 0 sums them, output 1 weighs them 1, -1, 2, -2. */
TEST_F(FullyConnectedLayer, FlattensWidthHeightAndChannels)
{
	vx_tensor in = tensor(VX_TYPE_INT16, { 2, 1, 2, 2 }, 0, { 1, 2, 3, 4, 5, 6, 7, 8 });
	vx_tensor weights = tensor(VX_TYPE_INT16, { 4, 2 }, 0, { 1, 1, 1, 1, 1, -1, 2, -2 });
	vx_tensor bias = tensor(VX_TYPE_INT16, { 2 }, 0, { 10, 20 });
	vx_tensor out = tensor(VX_TYPE_INT16, { 2, 2 });
	keep(vxFullyConnectedLayer(graph, in, weights, bias, kSaturate, kZero, out));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 20, 17, 36, 17 }));
}

/* Q5.2 inputs (1, 2, -1) and (1.75, 0, 0), weights (0.5, 0.25, 0.75): the
 * sums 0.25 and 0.875 at position 4 become 1 and 3.5 at position 2. */
TEST_F(FullyConnectedLayer, RoundsLikeConvolution)
{
	for (auto [rounding, second] : { std::pair{ kZero, 3.0 }, std::pair{ kEven, 4.0 } }) {
		vx_tensor in = tensor(VX_TYPE_INT8, { 3, 2 }, 2, { 4, 8, -4, 7, 0, 0 });
		vx_tensor weights = tensor(VX_TYPE_INT8, { 3, 1 }, 2, { 2, 1, 3 });
		vx_tensor out = tensor(VX_TYPE_INT8, { 1, 2 }, 2);
		keep(vxFullyConnectedLayer(graph, in, weights, nullptr, kSaturate, rounding, out));
		ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
		EXPECT_EQ(read(out), Values({ 1, second }));
	}
}

TEST_F(FullyConnectedLayer, VirtualOutputIsOutputChannelsAndBatch)
{
	vx_tensor in = tensor(VX_TYPE_FLOAT32, { 3, 2, 4, 5 });
	vx_tensor weights = tensor(VX_TYPE_FLOAT32, { 24, 7 });
	vx_tensor middle = virtualTensor();
	vx_tensor out = tensor(VX_TYPE_FLOAT32, { 7, 5 });
	keep(vxFullyConnectedLayer(graph, in, weights, nullptr, kSaturate, kZero, middle));
	keep(vxSoftmaxLayer(graph, middle, out));
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_EQ(dimsOf(middle), Dims({ 7, 5 }));
}

struct FullyConnectedSetup {
	vx_enum weightsType = VX_TYPE_INT16;
	Dims in{ 4, 2 }, weights{ 4, 3 }, bias{ 3 }, out{ 3, 2 };
	vx_enum overflow = kSaturate, rounding = kZero;
};

struct FullyConnectedError {
	const char *name;
	void (*change)(FullyConnectedSetup &);
	vx_status expected;
};

class FullyConnectedValidation : public NnTest,
				 public ::testing::WithParamInterface<FullyConnectedError>
{
};

TEST_P(FullyConnectedValidation, Rejects)
{
	FullyConnectedSetup s;
	GetParam().change(s);
	keep(vxFullyConnectedLayer(graph, tensor(VX_TYPE_INT16, s.in),
		tensor(s.weightsType, s.weights), tensor(VX_TYPE_INT16, s.bias), s.overflow,
		s.rounding, tensor(VX_TYPE_INT16, s.out)));
	EXPECT_EQ(vxVerifyGraph(graph), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(FullyConnected, FullyConnectedValidation,
	::testing::Values(
		FullyConnectedError{ "ValidSetupPasses", [](FullyConnectedSetup &) {}, VX_SUCCESS },
		FullyConnectedError{ "WeightsOfOtherType",
			[](FullyConnectedSetup &s) { s.weightsType = VX_TYPE_FLOAT32; },
			VX_ERROR_INVALID_FORMAT },
		FullyConnectedError{ "WeightsWithThreeDimensions",
			[](FullyConnectedSetup &s) {
				s.weights = { 4, 3, 1 };
			},
			VX_ERROR_INVALID_DIMENSION },
		FullyConnectedError{ "WeightsForOtherInputs",
			[](FullyConnectedSetup &s) {
				s.weights = { 5, 3 };
			},
			VX_ERROR_INVALID_DIMENSION },
		FullyConnectedError{ "InputWithFiveDimensions",
			[](FullyConnectedSetup &s) {
				s.in = { 1, 1, 4, 2, 1 };
				s.out = { 3, 2, 1 };
			},
			VX_ERROR_INVALID_DIMENSION },
		FullyConnectedError{ "BiasForOtherOutputs",
			[](FullyConnectedSetup &s) { s.bias = { 4 }; },
			VX_ERROR_INVALID_DIMENSION },
		FullyConnectedError{ "OutputOfOtherBatch",
			[](FullyConnectedSetup &s) {
				s.out = { 3, 3 };
			},
			VX_ERROR_INVALID_DIMENSION },
		FullyConnectedError{ "UnknownOverflowPolicy",
			[](FullyConnectedSetup &s) { s.overflow = kEven; },
			VX_ERROR_INVALID_VALUE },
		FullyConnectedError{ "UnknownRoundingPolicy",
			[](FullyConnectedSetup &s) { s.rounding = kSaturate; },
			VX_ERROR_INVALID_VALUE }),
	[](const auto &info) { return std::string(info.param.name); });

/* ---- Pooling ---- */

using PoolingLayer = NnTest;

/* 2x2 input, 2x2 windows, padding 1, stride 1: 3x3 outputs, the corner
 * windows hold one element and three padding positions. */
TEST_F(PoolingLayer, MaxIgnoresPadding)
{
	vx_tensor in = tensor(VX_TYPE_INT8, { 2, 2, 1 }, 0, { -5, -3, -4, -8 });
	vx_tensor out = tensor(VX_TYPE_INT8, { 3, 3, 1 });
	keep(vxPoolingLayer(graph, in, VX_NN_POOLING_MAX, 2, 2, 1, 1, kFloor, out));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ -5, -3, -3, -4, -3, -3, -4, -4, -8 }));
}

/* Every window counts 4 positions: (1), (1 + 2), (2), (1 + 3), (12),
 * (2 + 6), (3), (3 + 6), (6), each / 4; ties 0.5 -> 0, 1.5 -> 2. */
TEST_F(PoolingLayer, AverageCountsPaddingAndRoundsTiesToEven)
{
	vx_tensor in = tensor(VX_TYPE_INT16, { 2, 2, 2 }, 0, { 1, 2, 3, 6, -1, -2, -3, -6 });
	vx_tensor out = tensor(VX_TYPE_INT16, { 3, 3, 2 });
	keep(vxPoolingLayer(graph, in, VX_NN_POOLING_AVG, 2, 2, 1, 1, kFloor, out));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(
		read(out), Values({ 0, 1, 0, 1, 3, 2, 1, 2, 2, 0, -1, 0, -1, -3, -2, -1, -2, -2 }));
}

/* Width 4, window 3, padding 1, stride 2, ceil: windows start at -1, 1 and
 * 3; the last covers element 3, padding 4 and position 5 beyond it. */
TEST_F(PoolingLayer, CeilModeAverageLeavesOutPositionsBeyondPadding)
{
	vx_tensor in = tensor(VX_TYPE_INT16, { 4, 1, 1 }, 0, { 3, 6, 9, 12 });
	vx_tensor avg = tensor(VX_TYPE_INT16, { 3, 1, 1 });
	vx_tensor max = tensor(VX_TYPE_INT16, { 3, 1, 1 });
	vx_node node = keep(vxPoolingLayer(graph, in, VX_NN_POOLING_AVG, 3, 1, 1, 0, kCeil, avg));
	keep(vxPoolingLayer(graph, in, VX_NN_POOLING_MAX, 3, 1, 1, 0, kCeil, max));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(avg), Values({ 3, 9, 6 }));
	EXPECT_EQ(read(max), Values({ 6, 12, 12 }));
	const nn::Pooling pooling = std::get<nn::Pooling>(*nn::describeLayer(node));
	EXPECT_EQ(pooling.strideX, 2u);
	EXPECT_EQ(pooling.strideY, 1u);
	EXPECT_TRUE(pooling.ceil);
}

TEST_F(PoolingLayer, FloorModeRejectsThatOutputSize)
{
	vx_tensor in = tensor(VX_TYPE_INT16, { 4, 1, 1 });
	vx_tensor out = tensor(VX_TYPE_INT16, { 3, 1, 1 });
	keep(vxPoolingLayer(graph, in, VX_NN_POOLING_AVG, 3, 1, 1, 0, kFloor, out));
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_DIMENSION);
}

/* Width 3, window 2, padding 1: stride 2 in plain ceil mode would give 3
 * windows, the third starting at 3, in the padding; it is dropped. */
TEST_F(PoolingLayer, CeilModeDropsWindowStartingInPadding)
{
	vx_tensor in = tensor(VX_TYPE_INT8, { 3, 1, 1 }, 0, { 1, 2, 3 });
	vx_tensor three = tensor(VX_TYPE_INT8, { 3, 1, 1 });
	vx_node node = keep(vxPoolingLayer(graph, in, VX_NN_POOLING_MAX, 2, 1, 1, 0, kCeil, three));
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_DIMENSION);

	vx_tensor two = tensor(VX_TYPE_INT8, { 2, 1, 1 });
	ASSERT_EQ(vxSetParameterByIndex(node, 7, ref(two)), VX_SUCCESS);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(two), Values({ 1, 3 }));
	EXPECT_EQ(std::get<nn::Pooling>(*nn::describeLayer(node)).strideX, 2u);
}

TEST_F(PoolingLayer, FloatAverage)
{
	vx_tensor in = tensor(VX_TYPE_FLOAT32, { 4, 1, 1 }, 0, { 1, 2, 3, 5 });
	vx_tensor out = tensor(VX_TYPE_FLOAT32, { 2, 1, 1 });
	keep(vxPoolingLayer(graph, in, VX_NN_POOLING_AVG, 2, 1, 0, 0, kFloor, out));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 1.5, 4 }));
}

struct PoolingSetup {
	vx_enum inType = VX_TYPE_INT16, outType = VX_TYPE_INT16;
	vx_int8 outPosition = 0;
	Dims in{ 4, 4, 2 }, out{ 2, 2, 2 };
	vx_enum type = VX_NN_POOLING_MAX;
	vx_size size = 2, pad = 0;
	vx_enum rounding = kFloor;
};

struct PoolingError {
	const char *name;
	void (*change)(PoolingSetup &);
	vx_status expected;
};

class PoolingValidation : public NnTest, public ::testing::WithParamInterface<PoolingError>
{
};

TEST_P(PoolingValidation, Rejects)
{
	PoolingSetup s;
	GetParam().change(s);
	keep(vxPoolingLayer(graph, tensor(s.inType, s.in), s.type, s.size, s.size, s.pad, s.pad,
		s.rounding, tensor(s.outType, s.out, s.outPosition)));
	EXPECT_EQ(vxVerifyGraph(graph), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(Pooling, PoolingValidation,
	::testing::Values(PoolingError{ "ValidSetupPasses", [](PoolingSetup &) {}, VX_SUCCESS },
		PoolingError{
			"SizeZero", [](PoolingSetup &s) { s.size = 0; }, VX_ERROR_INVALID_VALUE },
		PoolingError{ "SizeAbove16",
			[](PoolingSetup &s) {
				s.size = 17;
				s.in = { 20, 20, 2 };
			},
			VX_ERROR_INVALID_VALUE },
		PoolingError{ "PaddingAsLargeAsWindow", [](PoolingSetup &s) { s.pad = 2; },
			VX_ERROR_INVALID_VALUE },
		PoolingError{ "UnknownType", [](PoolingSetup &s) { s.type = kFloor; },
			VX_ERROR_INVALID_VALUE },
		PoolingError{ "UnknownSizeRounding",
			[](PoolingSetup &s) { s.rounding = VX_NN_POOLING_AVG; },
			VX_ERROR_INVALID_VALUE },
		PoolingError{ "UnsignedInputSignedOutput",
			[](PoolingSetup &s) {
				s.inType = VX_TYPE_UINT8;
				s.outType = VX_TYPE_INT8;
			},
			VX_ERROR_INVALID_FORMAT },
		PoolingError{ "OutputOfOtherType",
			[](PoolingSetup &s) { s.outType = VX_TYPE_INT8; },
			VX_ERROR_INVALID_FORMAT },
		PoolingError{ "OutputAtOtherPosition", [](PoolingSetup &s) { s.outPosition = 8; },
			VX_ERROR_INVALID_FORMAT },
		PoolingError{ "InputWithoutChannels",
			[](PoolingSetup &s) {
				s.in = { 4, 4 };
				s.out = { 2, 2 };
			},
			VX_ERROR_INVALID_DIMENSION },
		PoolingError{ "OutputWithOtherChannels",
			[](PoolingSetup &s) {
				s.out = { 2, 2, 3 };
			},
			VX_ERROR_INVALID_DIMENSION },
		PoolingError{ "OutputSizeNoStrideGives",
			[](PoolingSetup &s) {
				s.out = { 4, 2, 2 };
			},
			VX_ERROR_INVALID_DIMENSION },
		PoolingError{ "WindowLargerThanInput",
			[](PoolingSetup &s) {
				s.in = { 1, 4, 2 };
				s.out = { 1, 2, 2 };
			},
			VX_ERROR_INVALID_DIMENSION }),
	[](const auto &info) { return std::string(info.param.name); });

/* ---- Activation ---- */

struct ActivationCase {
	const char *name;
	vx_enum function;
	vx_float32 a, b;
	vx_enum type;
	vx_int8 inPosition, outPosition;
	double in, expected;
};

class ActivationLayer : public NnTest, public ::testing::WithParamInterface<ActivationCase>
{
};

TEST_P(ActivationLayer, Computes)
{
	const ActivationCase &c = GetParam();
	vx_tensor in = tensor(c.type, { 1 }, c.inPosition, { c.in });
	vx_tensor out = tensor(c.type, { 1 }, c.outPosition);
	keep(vxActivationLayer(graph, in, c.function, c.a, c.b, out));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	if (c.type == VX_TYPE_FLOAT32)
		EXPECT_FLOAT_EQ(read(out)[0], c.expected);
	else
		EXPECT_EQ(read(out)[0], c.expected);
}

/*
 * Q7.8 expectations are round(y * 256): logistic(1) = 0.731059 -> 187.15,
 * tanh(0.5) = 0.462117 -> 118.30, 2 tanh(0.5) -> 236.60, ln 2 -> 177.45.
 * Q3.4: tanh(1) = 0.761594 -> 12.19.
 */
INSTANTIATE_TEST_SUITE_P(Activation, ActivationLayer,
	::testing::Values(ActivationCase{ "LogisticOfZero", VX_NN_ACTIVATION_LOGISTIC, 0, 0,
				  VX_TYPE_INT16, 8, 8, 0, 128 },
		ActivationCase{ "LogisticOfOne", VX_NN_ACTIVATION_LOGISTIC, 0, 0, VX_TYPE_INT16, 8,
			8, 256, 187 },
		ActivationCase{ "Tanh", VX_NN_ACTIVATION_HYPERBOLIC_TAN, 1, 1, VX_TYPE_INT16, 8, 8,
			128, 118 },
		ActivationCase{ "TanhScaled", VX_NN_ACTIVATION_HYPERBOLIC_TAN, 2, 0.5,
			VX_TYPE_INT16, 8, 8, 256, 237 },
		ActivationCase{ "ReluOfNegative", VX_NN_ACTIVATION_RELU, 0, 0, VX_TYPE_INT16, 8, 8,
			-384, 0 },
		ActivationCase{ "ReluOfPositive", VX_NN_ACTIVATION_RELU, 0, 0, VX_TYPE_INT16, 8, 8,
			320, 320 },
		ActivationCase{ "BoundedReluClips", VX_NN_ACTIVATION_BRELU, 1, 0, VX_TYPE_INT16, 8,
			8, 384, 256 },
		ActivationCase{ "BoundedReluPasses", VX_NN_ACTIVATION_BRELU, 1, 0, VX_TYPE_INT16, 8,
			8, 128, 128 },
		ActivationCase{
			"SoftRelu", VX_NN_ACTIVATION_SOFTRELU, 0, 0, VX_TYPE_INT16, 8, 8, 0, 177 },
		ActivationCase{ "Abs", VX_NN_ACTIVATION_ABS, 0, 0, VX_TYPE_INT16, 8, 8, -576, 576 },
		ActivationCase{
			"Square", VX_NN_ACTIVATION_SQUARE, 0, 0, VX_TYPE_INT16, 8, 8, 384, 576 },
		ActivationCase{ "SquareSaturates", VX_NN_ACTIVATION_SQUARE, 0, 0, VX_TYPE_INT16, 8,
			8, -3072, 32767 },
		ActivationCase{
			"Sqrt", VX_NN_ACTIVATION_SQRT, 0, 0, VX_TYPE_INT16, 8, 8, 576, 384 },
		ActivationCase{ "SqrtOfNegativeIsZero", VX_NN_ACTIVATION_SQRT, 0, 0, VX_TYPE_INT16,
			8, 8, -256, 0 },
		ActivationCase{
			"Linear", VX_NN_ACTIVATION_LINEAR, 2, 0.5, VX_TYPE_INT16, 8, 8, 256, 640 },
		ActivationCase{
			"Int8Logistic", VX_NN_ACTIVATION_LOGISTIC, 0, 0, VX_TYPE_INT8, 4, 4, 0, 8 },
		ActivationCase{ "Int8Tanh", VX_NN_ACTIVATION_HYPERBOLIC_TAN, 1, 1, VX_TYPE_INT8, 4,
			4, 16, 12 },
		ActivationCase{ "Int8SquareSaturates", VX_NN_ACTIVATION_SQUARE, 0, 0, VX_TYPE_INT8,
			4, 4, 48, 127 },
		ActivationCase{ "TieRoundsDownToEven", VX_NN_ACTIVATION_LINEAR, 1, 0, VX_TYPE_INT8,
			1, 0, 5, 2 },
		ActivationCase{ "TieRoundsUpToEven", VX_NN_ACTIVATION_LINEAR, 1, 0, VX_TYPE_INT8, 1,
			0, 7, 4 },
		ActivationCase{ "NegativeTieRoundsToEven", VX_NN_ACTIVATION_LINEAR, 1, 0,
			VX_TYPE_INT8, 1, 0, -5, -2 },
		ActivationCase{ "FloatLogistic", VX_NN_ACTIVATION_LOGISTIC, 0, 0, VX_TYPE_FLOAT32,
			0, 0, 0, 0.5 },
		ActivationCase{ "FloatTanh", VX_NN_ACTIVATION_HYPERBOLIC_TAN, 1, 1, VX_TYPE_FLOAT32,
			0, 0, 0.5, 0.46211716 },
		ActivationCase{
			"FloatRelu", VX_NN_ACTIVATION_RELU, 0, 0, VX_TYPE_FLOAT32, 0, 0, -1, 0 },
		ActivationCase{ "FloatBoundedRelu", VX_NN_ACTIVATION_BRELU, 6, 0, VX_TYPE_FLOAT32,
			0, 0, 7, 6 },
		ActivationCase{ "FloatSoftRelu", VX_NN_ACTIVATION_SOFTRELU, 0, 0, VX_TYPE_FLOAT32,
			0, 0, 0, 0.69314718 },
		ActivationCase{ "FloatSoftReluOfLargeInput", VX_NN_ACTIVATION_SOFTRELU, 0, 0,
			VX_TYPE_FLOAT32, 0, 0, 1000, 1000 },
		ActivationCase{
			"FloatAbs", VX_NN_ACTIVATION_ABS, 0, 0, VX_TYPE_FLOAT32, 0, 0, -3, 3 },
		ActivationCase{ "FloatSquare", VX_NN_ACTIVATION_SQUARE, 0, 0, VX_TYPE_FLOAT32, 0, 0,
			-3, 9 },
		ActivationCase{
			"FloatSqrt", VX_NN_ACTIVATION_SQRT, 0, 0, VX_TYPE_FLOAT32, 0, 0, 4, 2 },
		ActivationCase{ "FloatLinear", VX_NN_ACTIVATION_LINEAR, 2, 1, VX_TYPE_FLOAT32, 0, 0,
			3, 7 }),
	[](const auto &info) { return std::string(info.param.name); });

using ActivationValidation = NnTest;

TEST_F(ActivationValidation, KeepsAnyRankAndElementOrder)
{
	vx_tensor in = tensor(VX_TYPE_INT8, { 2, 1, 1, 1, 2 }, 0, { -1, 2, -3, 4 });
	vx_tensor out = tensor(VX_TYPE_INT8, { 2, 1, 1, 1, 2 });
	keep(vxActivationLayer(graph, in, VX_NN_ACTIVATION_ABS, 0, 0, out));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 1, 2, 3, 4 }));
}

TEST_F(ActivationValidation, UnknownFunctionIsInvalidValue)
{
	keep(vxActivationLayer(graph, tensor(VX_TYPE_INT8, { 2 }), VX_NN_ACTIVATION_LINEAR + 1, 0,
		0, tensor(VX_TYPE_INT8, { 2 })));
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_VALUE);
}

TEST_F(ActivationValidation, OutputOfOtherSizeIsInvalidDimension)
{
	keep(vxActivationLayer(graph, tensor(VX_TYPE_INT8, { 2 }), VX_NN_ACTIVATION_RELU, 0, 0,
		tensor(VX_TYPE_INT8, { 3 })));
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_DIMENSION);
}

TEST_F(ActivationValidation, OutputOfOtherTypeIsInvalidFormat)
{
	keep(vxActivationLayer(graph, tensor(VX_TYPE_INT8, { 2 }), VX_NN_ACTIVATION_RELU, 0, 0,
		tensor(VX_TYPE_INT16, { 2 })));
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_FORMAT);
}

TEST_F(ActivationValidation, UnsignedInputSignedOutputIsInvalidFormat)
{
	keep(vxActivationLayer(graph, tensor(VX_TYPE_UINT8, { 2 }), VX_NN_ACTIVATION_RELU, 0, 0,
		tensor(VX_TYPE_INT8, { 2 })));
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_FORMAT);
}

TEST_F(ActivationValidation, IntegerParameterIsInvalidType)
{
	vx_node node = keep(vxActivationLayer(graph, tensor(VX_TYPE_INT8, { 2 }),
		VX_NN_ACTIVATION_LINEAR, 0, 0, tensor(VX_TYPE_INT8, { 2 })));
	const vx_int32 a = 1;
	ASSERT_EQ(vxSetParameterByIndex(node, 2, ref(scalar(VX_TYPE_INT32, &a))), VX_SUCCESS);
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_TYPE);
	for (vx_scalar &s : scalars)
		vxReleaseScalar(&s);
}

/* ---- Softmax ---- */

using SoftmaxLayer = NnTest;

/* e^k / (e + e^2 + e^3 + e^4) for k = 1..4. */
TEST_F(SoftmaxLayer, FloatSumsToOne)
{
	vx_tensor in = tensor(VX_TYPE_FLOAT32, { 4 }, 0, { 1, 2, 3, 4 });
	vx_tensor out = tensor(VX_TYPE_FLOAT32, { 4 });
	keep(vxSoftmaxLayer(graph, in, out));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	const Values y = read(out);
	expectNear(y, { 0.0320586, 0.0871443, 0.2368828, 0.6439143 }, 1e-6);
	EXPECT_NEAR(y[0] + y[1] + y[2] + y[3], 1.0, 1e-6);
}

/* Channels (0, 1, 2) in Q7.8: 0.0900306, 0.2447285, 0.6652410 times 256 is
 * 23.05, 62.65, 170.30. */
TEST_F(SoftmaxLayer, ThreeDimensionsRunAlongChannelsInQ78)
{
	vx_tensor in = tensor(VX_TYPE_INT16, { 1, 1, 3 }, 8, { 0, 256, 512 });
	vx_tensor out = tensor(VX_TYPE_INT16, { 1, 1, 3 }, 8);
	keep(vxSoftmaxLayer(graph, in, out));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 23, 63, 170 }));
}

/* Rows (0, 1) and (0, 0): 0.268941 and 0.731059 (68.85, 187.15), then halves. */
TEST_F(SoftmaxLayer, TwoDimensionsAreRowsOfABatch)
{
	vx_tensor in = tensor(VX_TYPE_INT16, { 2, 2 }, 8, { 0, 256, 0, 0 });
	vx_tensor out = tensor(VX_TYPE_INT16, { 2, 2 }, 8);
	keep(vxSoftmaxLayer(graph, in, out));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 69, 187, 128, 128 }));
}

TEST_F(SoftmaxLayer, FourDimensionsRunAlongChannelsPerBatch)
{
	vx_tensor in = tensor(VX_TYPE_FLOAT32, { 2, 1, 2, 2 }, 0, { 0, 5, 0, 5, 7, 1, 7, 1 });
	vx_tensor out = tensor(VX_TYPE_FLOAT32, { 2, 1, 2, 2 });
	keep(vxSoftmaxLayer(graph, in, out));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values(8, 0.5));
}

TEST_F(SoftmaxLayer, ValidationErrors)
{
	struct Case {
		vx_enum inType, outType;
		Dims in, out;
		vx_status expected;
	};
	for (const Case &c : {
		     Case{ VX_TYPE_INT16, VX_TYPE_INT16, { 1, 1, 1, 1, 2 }, { 1, 1, 1, 1, 2 },
			     VX_ERROR_INVALID_DIMENSION },
		     Case{ VX_TYPE_INT16, VX_TYPE_INT16, { 4 }, { 5 }, VX_ERROR_INVALID_DIMENSION },
		     Case{ VX_TYPE_UINT8, VX_TYPE_INT8, { 4 }, { 4 }, VX_ERROR_INVALID_FORMAT },
		     Case{ VX_TYPE_INT16, VX_TYPE_FLOAT32, { 4 }, { 4 }, VX_ERROR_INVALID_FORMAT },
	     }) {
		vx_graph own = vxCreateGraph(context);
		vx_node node
			= vxSoftmaxLayer(own, tensor(c.inType, c.in), tensor(c.outType, c.out));
		EXPECT_EQ(vxVerifyGraph(own), c.expected);
		vxReleaseNode(&node);
		vxReleaseGraph(&own);
	}
}

/* ---- Normalization ---- */

using NormalizationLayer = NnTest;

/* alpha / size = 1, beta 0.5, bias 1: x / sqrt(1 + sum of squares of the
 * neighbouring channels): 1 / sqrt(6), 2 / sqrt(15), 3 / sqrt(14). */
TEST_F(NormalizationLayer, AcrossMapsFloat)
{
	vx_tensor in = tensor(VX_TYPE_FLOAT32, { 1, 1, 3 }, 0, { 1, 2, 3 });
	vx_tensor out = tensor(VX_TYPE_FLOAT32, { 1, 1, 3 });
	keep(vxLocalResponseNormalizationLayer(
		graph, in, VX_NN_NORMALIZATION_ACROSS_MAPS, 3, 3, 0.5, 1, out));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	expectNear(read(out), { 0.40824829, 0.51639778, 0.80178373 }, 1e-7);
}

/* The same in Q7.8: 104.51, 132.20, 205.26. */
TEST_F(NormalizationLayer, AcrossMapsQ78WithTheDefaultBias)
{
	vx_tensor in = tensor(VX_TYPE_INT16, { 1, 1, 3 }, 8, { 256, 512, 768 });
	vx_tensor out = tensor(VX_TYPE_INT16, { 1, 1, 3 }, 8);
	keep(vxNormalizationLayer(graph, in, VX_NN_NORMALIZATION_ACROSS_MAPS, 3, 3, 0.5, out));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 105, 132, 205 }));
}

/* Size 1, alpha 3, beta 1, bias 2: x / (2 + 3 x^2). */
TEST_F(NormalizationLayer, BiasAndSizeOne)
{
	vx_tensor in = tensor(VX_TYPE_FLOAT32, { 1, 1, 3 }, 0, { 1, 2, 3 });
	vx_tensor out = tensor(VX_TYPE_FLOAT32, { 1, 1, 3 });
	keep(vxLocalResponseNormalizationLayer(
		graph, in, VX_NN_NORMALIZATION_ACROSS_MAPS, 1, 3, 1, 2, out));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	expectNear(read(out), { 0.2, 2.0 / 14, 3.0 / 29 }, 1e-7);
}

/* A 3x3 window around each element of a 2x2 map covers all of it: the sum
 * of squares is 30, alpha / 9 = 1, beta 1, bias 1: x / 31. */
TEST_F(NormalizationLayer, SameMapFloat)
{
	vx_tensor in = tensor(VX_TYPE_FLOAT32, { 2, 2, 1 }, 0, { 1, 2, 3, 4 });
	vx_tensor out = tensor(VX_TYPE_FLOAT32, { 2, 2, 1 });
	keep(vxLocalResponseNormalizationLayer(
		graph, in, VX_NN_NORMALIZATION_SAME_MAP, 3, 9, 1, 1, out));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	expectNear(read(out), { 1.0 / 31, 2.0 / 31, 3.0 / 31, 4.0 / 31 }, 1e-7);
}

TEST_F(NormalizationLayer, ValidationErrors)
{
	struct Case {
		const char *name;
		vx_enum type;
		vx_size size;
		vx_float32 alpha, beta, bias;
		vx_enum elementType;
		Dims dims;
		vx_status expected;
	};
	const vx_enum across = VX_NN_NORMALIZATION_ACROSS_MAPS;
	for (const Case &c : {
		     Case{ "valid", across, 5, 1, 0.75, 1, VX_TYPE_INT16, { 2, 2, 4 }, VX_SUCCESS },
		     Case{ "even size", across, 4, 1, 0.75, 1, VX_TYPE_INT16, { 2, 2, 4 },
			     VX_ERROR_INVALID_VALUE },
		     Case{ "size above 15", across, 17, 1, 0.75, 1, VX_TYPE_INT16, { 2, 2, 4 },
			     VX_ERROR_INVALID_VALUE },
		     Case{ "negative alpha", across, 5, -1, 0.75, 1, VX_TYPE_INT16, { 2, 2, 4 },
			     VX_ERROR_INVALID_VALUE },
		     Case{ "NaN alpha", across, 5, NAN, 0.75, 1, VX_TYPE_INT16, { 2, 2, 4 },
			     VX_ERROR_INVALID_VALUE },
		     Case{ "negative beta", across, 5, 1, -0.75, 1, VX_TYPE_INT16, { 2, 2, 4 },
			     VX_ERROR_INVALID_VALUE },
		     Case{ "zero bias", across, 5, 1, 0.75, 0, VX_TYPE_INT16, { 2, 2, 4 },
			     VX_ERROR_INVALID_VALUE },
		     Case{ "unknown type", kFloor, 5, 1, 0.75, 1, VX_TYPE_INT16, { 2, 2, 4 },
			     VX_ERROR_INVALID_VALUE },
		     Case{ "no channels", across, 5, 1, 0.75, 1, VX_TYPE_INT16, { 2, 2 },
			     VX_ERROR_INVALID_DIMENSION },
	     }) {
		vx_graph own = vxCreateGraph(context);
		vx_node node = vxLocalResponseNormalizationLayer(own, tensor(c.elementType, c.dims),
			c.type, c.size, c.alpha, c.beta, c.bias, tensor(c.elementType, c.dims));
		EXPECT_EQ(vxVerifyGraph(own), c.expected) << c.name;
		vxReleaseNode(&node);
		vxReleaseGraph(&own);
	}
}

/* ---- Kernels, parameters and reference counts ---- */

struct KernelCase {
	vx_enum enumeration;
	const char *name;
	vx_uint32 parameters;
};

class NnKernels : public NnTest, public ::testing::WithParamInterface<KernelCase>
{
};

TEST_P(NnKernels, FoundByEnumAndByName)
{
	const KernelCase &c = GetParam();
	vx_kernel byEnum = vxGetKernelByEnum(context, c.enumeration);
	vx_kernel byName = vxGetKernelByName(context, c.name);
	ASSERT_EQ(vxGetStatus(ref(byEnum)), VX_SUCCESS);
	EXPECT_EQ(byEnum, byName);
	vx_uint32 count = 0;
	EXPECT_EQ(vxQueryKernel(byEnum, VX_KERNEL_PARAMETERS, &count, sizeof(count)), VX_SUCCESS);
	EXPECT_EQ(count, c.parameters);
	vx_parameter output = vxGetKernelParameterByIndex(byEnum, count - 1);
	vx_enum direction = 0;
	vxQueryParameter(output, VX_PARAMETER_DIRECTION, &direction, sizeof(direction));
	EXPECT_EQ(direction, VX_OUTPUT);
	vxReleaseParameter(&output);
	vxReleaseKernel(&byEnum);
	vxReleaseKernel(&byName);
}

INSTANTIATE_TEST_SUITE_P(NnKernels, NnKernels,
	::testing::Values(KernelCase{ VX_KERNEL_CONVOLUTION_LAYER,
				  "org.khronos.nn_extension.convolution_layer", 5 },
		KernelCase{ VX_KERNEL_FULLY_CONNECTED_LAYER,
			"org.khronos.nn_extension.fully_connected_layer", 6 },
		KernelCase{ VX_KERNEL_POOLING_LAYER, "org.khronos.nn_extension.pooling_layer", 8 },
		KernelCase{ VX_KERNEL_SOFTMAX_LAYER, "org.khronos.nn_extension.softmax_layer", 2 },
		KernelCase{ VX_KERNEL_NORMALIZATION_LAYER,
			"org.khronos.nn_extension.normalization_layer", 6 },
		KernelCase{ VX_KERNEL_ACTIVATION_LAYER, "org.khronos.nn_extension.activation_layer",
			5 },
		KernelCase{ VX_KERNEL_LOCAL_RESPONSE_NORMALIZATION_LAYER,
			"org.khronos.nn_extension.local_response_normalization_layer", 7 }));

TEST_F(NnTest, NormalizationKernelUsesBiasOne)
{
	vx_tensor in = tensor(VX_TYPE_FLOAT32, { 1, 1, 3 }, 0, { 1, 2, 3 });
	vx_tensor out = tensor(VX_TYPE_FLOAT32, { 1, 1, 3 });
	const vx_enum type = VX_NN_NORMALIZATION_ACROSS_MAPS;
	const vx_size size = 3;
	const vx_float32 alpha = 3, beta = 0.5;
	vx_kernel kernel = vxGetKernelByEnum(context, VX_KERNEL_NORMALIZATION_LAYER);
	vx_node node = keep(vxCreateGenericNode(graph, kernel));
	const vx_reference parameters[] = { ref(in), ref(scalar(VX_TYPE_ENUM, &type)),
		ref(scalar(VX_TYPE_SIZE, &size)), ref(scalar(VX_TYPE_FLOAT32, &alpha)),
		ref(scalar(VX_TYPE_FLOAT32, &beta)), ref(out) };
	for (vx_uint32 i = 0; i < 6; i++)
		EXPECT_EQ(vxSetParameterByIndex(node, i, parameters[i]), VX_SUCCESS) << i;
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	expectNear(read(out), { 0.40824829, 0.51639778, 0.80178373 }, 1e-7);
	EXPECT_EQ(std::get<nn::Normalization>(*nn::describeLayer(node)).bias, 1.0f);
	for (vx_scalar &s : scalars)
		vxReleaseScalar(&s);
	vxReleaseKernel(&kernel);
}

TEST_F(NnTest, DescribeLayerIsEmptyForOtherKernels)
{
	vx_tensor a = tensor(VX_TYPE_INT16, { 2 }), b = tensor(VX_TYPE_INT16, { 2 });
	vx_node node = keep(vxTensorAddNode(graph, a, b, kWrap, tensor(VX_TYPE_INT16, { 2 })));
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_FALSE(nn::describeLayer(node));
}

/* Each creation function: its node and scalars die with the graph. */
class NnReferences
	: public VxTest,
	  public ::testing::WithParamInterface<vx_node (*)(vx_graph, vx_tensor, vx_tensor)>
{
};

TEST_P(NnReferences, CreationAndReleaseReturnToBaseline)
{
	const vx_uint32 before = references();
	vx_graph graph = vxCreateGraph(context);
	vx_tensor in = makeTensor(VX_TYPE_INT16, { 4, 4, 2 });
	vx_tensor out = vxCreateVirtualTensor(graph, 0, nullptr, VX_TYPE_INVALID, 0);
	vx_node node = GetParam()(graph, in, out);
	ASSERT_EQ(vxGetStatus(ref(node)), VX_SUCCESS);
	EXPECT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	vx_uint32 count = 0;
	vxQueryReference(ref(node), VX_REFERENCE_COUNT, &count, sizeof(count));
	EXPECT_EQ(count, 1u);
	vxReleaseNode(&node);
	vxReleaseTensor(&in);
	vxReleaseTensor(&out);
	vxReleaseGraph(&graph);
	EXPECT_EQ(references(), before);
}

namespace {

vx_node makeConvolution(vx_graph graph, vx_tensor in, vx_tensor out)
{
	const vx_size dims[] = { 3, 3, 2, 2 }, biasDims[] = { 2 };
	vx_context context = vxGetContext(ref(graph));
	vx_tensor weights = vxCreateTensor(context, 4, dims, VX_TYPE_INT16, 0);
	vx_tensor bias = vxCreateTensor(context, 1, biasDims, VX_TYPE_INT16, 0);
	const vx_nn_convolution_params_t params = convParams(1, 1);
	vx_node node = vxConvolutionLayer(graph, in, weights, bias, &params, sizeof(params), out);
	vxReleaseTensor(&weights);
	vxReleaseTensor(&bias);
	return node;
}

vx_node makeFullyConnected(vx_graph graph, vx_tensor in, vx_tensor out)
{
	const vx_size dims[] = { 32, 3 };
	vx_tensor weights = vxCreateTensor(vxGetContext(ref(graph)), 2, dims, VX_TYPE_INT16, 0);
	vx_node node = vxFullyConnectedLayer(graph, in, weights, nullptr, kWrap, kEven, out);
	vxReleaseTensor(&weights);
	return node;
}

vx_node makePooling(vx_graph graph, vx_tensor in, vx_tensor out)
{
	return vxPoolingLayer(graph, in, VX_NN_POOLING_AVG, 3, 3, 1, 1, kCeil, out);
}

vx_node makeSoftmax(vx_graph graph, vx_tensor in, vx_tensor out)
{
	return vxSoftmaxLayer(graph, in, out);
}

vx_node makeNormalization(vx_graph graph, vx_tensor in, vx_tensor out)
{
	return vxNormalizationLayer(graph, in, VX_NN_NORMALIZATION_SAME_MAP, 3, 1, 0.75, out);
}

vx_node makeLocalResponseNormalization(vx_graph graph, vx_tensor in, vx_tensor out)
{
	return vxLocalResponseNormalizationLayer(
		graph, in, VX_NN_NORMALIZATION_ACROSS_MAPS, 3, 1, 0.75, 2, out);
}

vx_node makeActivation(vx_graph graph, vx_tensor in, vx_tensor out)
{
	return vxActivationLayer(graph, in, VX_NN_ACTIVATION_HYPERBOLIC_TAN, 1, 1, out);
}

} /* namespace */

INSTANTIATE_TEST_SUITE_P(NnReferences, NnReferences,
	::testing::Values(makeConvolution, makeFullyConnected, makePooling, makeSoftmax,
		makeNormalization, makeLocalResponseNormalization, makeActivation));

/* ---- Concurrency ---- */

/*
 * A layer computed on the CPU does not hold the API lock: another graph of
 * the process runs to completion while a large convolution of a scheduled
 * graph is still computing (its node's performance ends after that).
 * Holding the lock, the small graph could only start once the convolution
 * had returned.
 */
TEST_F(NnTest, CpuLayersOfTwoGraphsRunAtTheSameTime)
{
	ASSERT_EQ(vxDirective(ref(context), VX_DIRECTIVE_ENABLE_PERFORMANCE), VX_SUCCESS);
	/* 64x64x32 -> 3x3 -> 32 channels, FLOAT32: 35 million MACs. */
	vx_tensor in = tensor(VX_TYPE_FLOAT32, { 64, 64, 32 }, 0, Values(64 * 64 * 32, 0.5));
	vx_tensor weights
		= tensor(VX_TYPE_FLOAT32, { 3, 3, 32, 32 }, 0, Values(3 * 3 * 32 * 32, 0.25));
	vx_tensor out = tensor(VX_TYPE_FLOAT32, { 62, 62, 32 });
	vx_node big = convolution(in, weights, nullptr, out, convParams());
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);

	vx_graph small = vxCreateGraph(context);
	vx_tensor a = tensor(VX_TYPE_FLOAT32, { 4 }, 0, { -1, 2, -3, 4 });
	vx_tensor b = tensor(VX_TYPE_FLOAT32, { 4 });
	vx_node relu = vxActivationLayer(small, a, VX_NN_ACTIVATION_RELU, 0, 0, b);
	ASSERT_EQ(vxVerifyGraph(small), VX_SUCCESS);

	const auto now = [] {
		return vx_uint64(std::chrono::duration_cast<std::chrono::nanoseconds>(
			std::chrono::steady_clock::now().time_since_epoch())
					 .count());
	};
	ASSERT_EQ(vxScheduleGraph(graph), VX_SUCCESS);
	/* Give the worker time to enter the convolution (checked below). */
	std::this_thread::sleep_for(std::chrono::milliseconds(20));
	const vx_uint64 smallStart = now();
	ASSERT_EQ(vxProcessGraph(small), VX_SUCCESS);
	const vx_uint64 smallDone = now();
	ASSERT_EQ(vxWaitGraph(graph), VX_SUCCESS);

	vx_perf_t perf = {};
	ASSERT_EQ(vxQueryNode(big, VX_NODE_PERFORMANCE, &perf, sizeof(perf)), VX_SUCCESS);
	ASSERT_EQ(perf.num, 1u);
	ASSERT_LT(perf.beg, smallStart) << "the convolution had not started: no conclusion";
	EXPECT_GT(perf.end, smallDone) << "the small graph waited for the convolution";
	expectNear(read(b), { 0, 2, 0, 4 }, 0);
	expectNear(read(out), Values(62 * 62 * 32, 3 * 3 * 32 * 0.5 * 0.25), 1e-3);
	vxReleaseNode(&relu);
	vxReleaseGraph(&small);
}

/*
 * While a CPU layer computes without the API lock, another graph's
 * verification may move one of its tensors to the device: the host storage
 * it computes in is retired, not freed, so its pointers stay valid.
 */
TEST_F(NnTest, HostStorageDroppedWhileACpuLayerRunsStaysAlive)
{
	vx_tensor t = tensor(VX_TYPE_INT8, { 4 }, 0, { 1, 2, 3, 4 });
	const uint8_t *computing = t->storage();
	t->cpuUsers = 1;
	t->dropHostData();
	EXPECT_TRUE(t->data.empty());
	ASSERT_EQ(t->retired.size(), 1u);
	EXPECT_EQ(t->retired[0].data(), computing);
	EXPECT_EQ(computing[3], 4) << "still the tensor's values";
	t->cpuUsers = 0;
	t->retired.clear();
	t->dropHostData();
	EXPECT_TRUE(t->retired.empty()) << "nothing computes: freed at once";
}
