/* SPDX-License-Identifier: MIT */
/*
 * VX_TYPE_UINT8 tensors in every neural-network layer (the extension's 8-bit
 * support, fixed point position 0), against hand-computed answers: values
 * above 127 must stay unsigned through the products, the bias, the pooling
 * and the narrowing, which saturates to [0, 255] or wraps modulo 256. Also
 * the shapes of fully connected layers beyond [#IFM, batch] and
 * [W, H, #IFM, batch]: several batch dimensions and 4-D weights.
 */
#include "nn_test.h"

namespace {

using Uint8Layer = NnTest;

TEST(NnArithmetic, ConvertsToUint8BySaturatingOrWrapping)
{
	EXPECT_EQ(nn::convert(300, VX_TYPE_UINT8, kSaturate), 255);
	EXPECT_EQ(nn::convert(-3, VX_TYPE_UINT8, kSaturate), 0);
	EXPECT_EQ(nn::convert(300, VX_TYPE_UINT8, kWrap), 44);
	EXPECT_EQ(nn::convert(-3, VX_TYPE_UINT8, kWrap), 253);
	EXPECT_EQ(nn::quantize(255.4, VX_TYPE_UINT8, 0), 255);
	EXPECT_EQ(nn::quantize(-0.7, VX_TYPE_UINT8, 0), 0);
	EXPECT_EQ(nn::quantize(1e9, VX_TYPE_UINT8, 0), 255);
}

/*
 * Input 1..9 in a 3x3 map, weights (10, 20 / 30, 40), bias 5: the sums
 * 375, 475, 675 and 775 saturate to 255, or wrap to 119, 219, 163 and 7.
 */
TEST_F(Uint8Layer, ConvolutionSaturatesOrWrapsUnsigned)
{
	for (auto [overflow, expected] : { std::pair{ kSaturate, Values{ 255, 255, 255, 255 } },
		     std::pair{ kWrap, Values{ 119, 219, 163, 7 } } }) {
		vx_tensor in = tensor(VX_TYPE_UINT8, { 3, 3, 1 }, 0, { 1, 2, 3, 4, 5, 6, 7, 8, 9 });
		vx_tensor weights = tensor(VX_TYPE_UINT8, { 2, 2, 1, 1 }, 0, { 10, 20, 30, 40 });
		vx_tensor bias = tensor(VX_TYPE_UINT8, { 1 }, 0, { 5 });
		vx_tensor out = tensor(VX_TYPE_UINT8, { 2, 2, 1 });
		convolution(in, weights, bias, out, convParams(0, 0, overflow));
		ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
		EXPECT_EQ(read(out), expected) << (overflow == kWrap ? "wrap" : "saturate");
	}
}

/* Values of 200 and more: read as signed they would be negative. */
TEST_F(Uint8Layer, ConvolutionKeepsLargeInputsPositive)
{
	vx_tensor in = tensor(VX_TYPE_UINT8, { 2, 1, 2 }, 0, { 200, 0, 0, 250 });
	vx_tensor weights = tensor(VX_TYPE_UINT8, { 1, 1, 2, 2 }, 0, { 1, 0, 0, 1 });
	vx_tensor out = tensor(VX_TYPE_UINT8, { 2, 1, 2 });
	convolution(in, weights, nullptr, out, convParams());
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 200, 0, 0, 250 }));
}

/*
 * The specification's dilation inserts zeros between the kernel's elements:
 * a 2x2 kernel of dilation 1 over a 3x3 map has its taps on the corners
 * (1 + 3 + 7 + 9 = 20). docs/openvx.md names the conformance cases that
 * shift the taps by the dilation instead.
 */
TEST_F(Uint8Layer, DilatedConvolutionTapsTheCorners)
{
	vx_tensor in = tensor(VX_TYPE_UINT8, { 3, 3, 1 }, 0, { 1, 2, 3, 4, 5, 6, 7, 8, 9 });
	vx_tensor weights = tensor(VX_TYPE_UINT8, { 2, 2, 1, 1 }, 0, { 1, 1, 1, 1 });
	vx_tensor out = tensor(VX_TYPE_UINT8, { 1, 1, 1 });
	convolution(in, weights, nullptr, out, convParams(0, 0, kSaturate, kZero, kFloor, 1, 1));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 20 }));
}

/* (1, 2, 3) by (4, 5, 6) is 32, by 100 each 600; bias 1 and 2. */
TEST_F(Uint8Layer, FullyConnectedSaturatesOrWraps)
{
	for (auto [overflow, expected] :
		{ std::pair{ kSaturate, Values{ 33, 255 } }, std::pair{ kWrap, Values{ 33, 90 } } }) {
		vx_tensor in = tensor(VX_TYPE_UINT8, { 3 }, 0, { 1, 2, 3 });
		vx_tensor weights
			= tensor(VX_TYPE_UINT8, { 3, 2 }, 0, { 4, 5, 6, 100, 100, 100 });
		vx_tensor bias = tensor(VX_TYPE_UINT8, { 2 }, 0, { 1, 2 });
		vx_tensor out = tensor(VX_TYPE_UINT8, { 2 });
		keep(vxFullyConnectedLayer(graph, in, weights, bias, overflow, kZero, out));
		ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
		EXPECT_EQ(read(out), expected);
	}
}

/* [#IFM 3, 2, 2]: four samples in two batch dimensions, weights (4, 5, 6)
 * and (1, 1, 1); the output keeps both batch dimensions. */
TEST_F(Uint8Layer, FullyConnectedTakesTwoBatchDimensions)
{
	vx_tensor in = tensor(
		VX_TYPE_UINT8, { 3, 2, 2 }, 0, { 1, 2, 3, 0, 1, 0, 2, 0, 0, 0, 0, 1 });
	vx_tensor weights = tensor(VX_TYPE_UINT8, { 3, 2 }, 0, { 4, 5, 6, 1, 1, 1 });
	vx_tensor out = tensor(VX_TYPE_UINT8, { 2, 2, 2 });
	keep(vxFullyConnectedLayer(graph, in, weights, nullptr, kSaturate, kZero, out));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 32, 6, 5, 1, 8, 2, 6, 1 }));
}

/* [#IFM 2, 1, 1, 3]: three batch dimensions. */
TEST_F(Uint8Layer, FullyConnectedTakesThreeBatchDimensions)
{
	vx_tensor in = tensor(VX_TYPE_UINT8, { 2, 1, 1, 3 }, 0, { 1, 2, 3, 4, 5, 6 });
	vx_tensor weights = tensor(VX_TYPE_UINT8, { 2, 1 }, 0, { 10, 1 });
	vx_tensor out = tensor(VX_TYPE_UINT8, { 1, 1, 1, 3 });
	keep(vxFullyConnectedLayer(graph, in, weights, nullptr, kSaturate, kZero, out));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 12, 34, 56 }));
}

/* Weights [W 1, H 2, #IFM 2, #OFM 1] on [1, 2, 2, batch 2]. */
TEST_F(Uint8Layer, FullyConnectedTakesFourDimensionalWeights)
{
	vx_tensor in = tensor(VX_TYPE_UINT8, { 1, 2, 2, 2 }, 0, { 1, 2, 3, 4, 0, 0, 0, 1 });
	vx_tensor weights = tensor(VX_TYPE_UINT8, { 1, 2, 2, 1 }, 0, { 1, 2, 3, 4 });
	vx_tensor out = tensor(VX_TYPE_UINT8, { 1, 2 });
	keep(vxFullyConnectedLayer(graph, in, weights, nullptr, kSaturate, kZero, out));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 30, 4 }));
}

/* 4-D weights must match the input's sample. */
TEST_F(Uint8Layer, FullyConnectedRejectsFourDimensionalWeightsOfAnotherShape)
{
	vx_tensor in = tensor(VX_TYPE_UINT8, { 1, 2, 2 });
	vx_tensor weights = tensor(VX_TYPE_UINT8, { 2, 1, 2, 1 });
	vx_tensor out = tensor(VX_TYPE_UINT8, { 1 });
	keep(vxFullyConnectedLayer(graph, in, weights, nullptr, kSaturate, kZero, out));
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_DIMENSION);
}

/* 2x2 windows, stride 2: maxima, and averages whose ties go to even. */
TEST_F(Uint8Layer, PoolingOfLargeValues)
{
	const Values in4x4 = { 1, 2, 250, 251, 3, 4, 252, 253, 5, 6, 0, 255, 7, 8, 200, 201 };
	for (auto [type, expected] : { std::pair{ VX_NN_POOLING_MAX, Values{ 4, 253, 8, 255 } },
		     std::pair{ VX_NN_POOLING_AVG, Values{ 2, 252, 6, 164 } } }) {
		vx_tensor in = tensor(VX_TYPE_UINT8, { 4, 4, 1 }, 0, in4x4);
		vx_tensor out = tensor(VX_TYPE_UINT8, { 2, 2, 1 });
		keep(vxPoolingLayer(graph, in, type, 2, 2, 0, 0, kFloor, out));
		ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
		EXPECT_EQ(read(out), expected) << (type == VX_NN_POOLING_MAX ? "max" : "average");
	}
}

struct ActivationCase {
	vx_enum function;
	vx_float32 a, b;
	Values expected;
};

/* Inputs 0, 1, 100, 200, 255; results rounded to nearest, ties to even. */
TEST_F(Uint8Layer, Activations)
{
	const Values inputs = { 0, 1, 100, 200, 255 };
	for (const ActivationCase &c : {
		     ActivationCase{ VX_NN_ACTIVATION_RELU, 0, 0, { 0, 1, 100, 200, 255 } },
		     ActivationCase{ VX_NN_ACTIVATION_BRELU, 150, 0, { 0, 1, 100, 150, 150 } },
		     ActivationCase{ VX_NN_ACTIVATION_LOGISTIC, 0, 0, { 0, 1, 1, 1, 1 } },
		     ActivationCase{ VX_NN_ACTIVATION_HYPERBOLIC_TAN, 2, 1, { 0, 2, 2, 2, 2 } },
		     ActivationCase{ VX_NN_ACTIVATION_LINEAR, 2, 10, { 10, 12, 210, 255, 255 } },
		     ActivationCase{ VX_NN_ACTIVATION_SQRT, 0, 0, { 0, 1, 10, 14, 16 } },
	     }) {
		vx_tensor in = tensor(VX_TYPE_UINT8, { 5 }, 0, inputs);
		vx_tensor out = tensor(VX_TYPE_UINT8, { 5 });
		keep(vxActivationLayer(graph, in, c.function, c.a, c.b, out));
		ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
		EXPECT_EQ(read(out), c.expected) << "function " << c.function;
	}
}

/* 200 dominates the others: read as signed (-56) it would be the least. */
TEST_F(Uint8Layer, SoftmaxOfLargeValue)
{
	vx_tensor in = tensor(VX_TYPE_UINT8, { 4 }, 0, { 0, 200, 0, 0 });
	vx_tensor out = tensor(VX_TYPE_UINT8, { 4 });
	keep(vxSoftmaxLayer(graph, in, out));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 0, 1, 0, 0 }));
}

/* Alpha 0, bias 4, beta 0.5: each value over 2 (25.5 goes to the even 26). */
TEST_F(Uint8Layer, Normalization)
{
	vx_tensor in = tensor(VX_TYPE_UINT8, { 1, 1, 3 }, 0, { 200, 51, 255 });
	vx_tensor out = tensor(VX_TYPE_UINT8, { 1, 1, 3 });
	keep(vxLocalResponseNormalizationLayer(
		graph, in, VX_NN_NORMALIZATION_ACROSS_MAPS, 3, 0.0f, 0.5f, 4.0f, out));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 100, 26, 128 }));
}

} /* namespace */
