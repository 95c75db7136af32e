/* SPDX-License-Identifier: MIT */
/*
 * The CPU nodes of libvdla's own convolution and pooling
 * (umd/src/vx/nn/nn_convolution.h), against the rules of nn_layers.h
 * written again here: random geometries (groups, each side's padding,
 * strides, dilations, zero points, Relu), float convolution, huge
 * multipliers, and pooling with ceil mode and padding left out of the
 * average.
 */

#include "nn/nn_convolution.h"
#include "nn/nn_dequantize.h"

#include <VX/vx_khr_nn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace vdla::vx::nn;

namespace {

class GeneralLayers : public testing::Test
{
protected:
	void SetUp() override { context_ = vxCreateContext(); }
	void TearDown() override
	{
		for (vx_tensor &t : tensors_)
			vxReleaseTensor(&t);
		vxReleaseContext(&context_);
	}

	/* A tensor of @dims (fastest first) holding @data, or empty. */
	vx_tensor tensor(std::vector<vx_size> dims, vx_enum type, const void *data)
	{
		vx_tensor t = vxCreateTensor(context_, dims.size(), dims.data(), type, 0);
		tensors_.push_back(t);
		if (data)
			copy(t, dims, type, const_cast<void *>(data), VX_WRITE_ONLY);
		return t;
	}

	static void copy(vx_tensor t, const std::vector<vx_size> &dims, vx_enum type, void *data,
		vx_enum usage)
	{
		std::vector<vx_size> start(dims.size(), 0), stride(dims.size());
		const vx_size element = type == VX_TYPE_INT8 ? 1 : type == VX_TYPE_INT16 ? 2 : 4;
		for (size_t i = 0; i < dims.size(); i++)
			stride[i] = i ? stride[i - 1] * dims[i - 1] : element;
		ASSERT_EQ(vxCopyTensorPatch(t, dims.size(), start.data(), dims.data(), stride.data(),
				  data, usage, VX_MEMORY_TYPE_HOST),
			VX_SUCCESS);
	}

	/* Runs @node's graph on the CPU target. */
	static vx_status runOnCpu(vx_graph graph, vx_node node)
	{
		if (vxGetStatus(reinterpret_cast<vx_reference>(node)) != VX_SUCCESS)
			return vxGetStatus(reinterpret_cast<vx_reference>(node));
		vxSetNodeTarget(node, VX_TARGET_STRING, "cpu");
		vx_status status = vxVerifyGraph(graph);
		return status == VX_SUCCESS ? vxProcessGraph(graph) : status;
	}

	vx_context context_ = nullptr;
	std::vector<vx_tensor> tensors_;
};

/* nn::GeneralConvolution's INT8 output for an accumulator. */
int8_t quantisedOutput(int64_t acc, float multiplier, bool relu, int32_t zero)
{
	float v = float(acc) * multiplier;
	if (relu)
		v = std::max(v, 0.0f);
	const double r = std::nearbyint(std::clamp(double(v), -1e6, 1e6)) + zero;
	return int8_t(std::clamp(r, -128.0, 127.0));
}

struct Geometry {
	int n, c, h, w, m, kh, kw, groups;
	ConvolutionParams params;
};

int outputSize(int in, uint32_t before, uint32_t after, int taps, uint32_t dilation,
	uint32_t stride)
{
	return (in + int(before + after) - ((taps - 1) * int(dilation) + 1)) / int(stride) + 1;
}

TEST_F(GeneralLayers, QuantisedConvolutionFollowsItsRules)
{
	std::mt19937 random(2026);
	int cases = 0;
	while (cases < 100) {
		std::uniform_int_distribution<int> size(1, 4), pad(0, 3), stride(1, 3), zero(-128, 127);
		Geometry g{};
		g.groups = size(random) % 3 + 1;
		g.n = size(random) % 2 + 1;
		g.c = g.groups * size(random);
		g.m = g.groups * size(random);
		g.kh = size(random);
		g.kw = size(random);
		g.h = g.kh * 3 + size(random);
		g.w = g.kw * 3 + size(random);
		ConvolutionParams &p = g.params;
		p.padLeft = pad(random), p.padRight = pad(random);
		p.padTop = pad(random), p.padBottom = pad(random);
		p.strideX = stride(random), p.strideY = stride(random);
		p.dilationX = stride(random), p.dilationY = stride(random);
		p.groups = g.groups;
		p.inputZero = zero(random);
		p.outputZero = zero(random);
		p.relu = cases % 2 ? vx_true_e : vx_false_e;
		const int oh = outputSize(g.h, p.padTop, p.padBottom, g.kh, p.dilationY, p.strideY);
		const int ow = outputSize(g.w, p.padLeft, p.padRight, g.kw, p.dilationX, p.strideX);
		if (oh < 1 || ow < 1)
			continue;
		cases++;

		const int perGroup = g.c / g.groups;
		std::uniform_int_distribution<int> value(-128, 127), offset(-100000, 100000);
		std::uniform_real_distribution<float> scale(0.5f / 4096, 2.0f / 4096);
		std::vector<int8_t> x(size_t(g.n) * g.c * g.h * g.w), w(size_t(g.m) * perGroup * g.kh * g.kw);
		for (int8_t &v : x)
			v = int8_t(value(random));
		for (int8_t &v : w)
			v = int8_t(value(random));
		std::vector<int32_t> bias(g.m);
		std::vector<float> multipliers(g.m);
		for (int m = 0; m < g.m; m++)
			bias[m] = offset(random), multipliers[m] = scale(random);

		vx_graph graph = vxCreateGraph(context_);
		std::vector<vx_size> yDims = { vx_size(ow), vx_size(oh), vx_size(g.m), vx_size(g.n) };
		vx_tensor y = tensor(yDims, VX_TYPE_INT8, nullptr);
		vx_node node = generalConvolutionNode(graph,
			tensor({ vx_size(g.w), vx_size(g.h), vx_size(g.c), vx_size(g.n) }, VX_TYPE_INT8,
				x.data()),
			tensor({ vx_size(g.kw), vx_size(g.kh), vx_size(perGroup), vx_size(g.m) },
				VX_TYPE_INT8, w.data()),
			tensor({ vx_size(g.m) }, VX_TYPE_INT32, bias.data()),
			tensor({ vx_size(g.m) }, VX_TYPE_FLOAT32, multipliers.data()), p, y);
		ASSERT_EQ(runOnCpu(graph, node), VX_SUCCESS) << "case " << cases;
		std::vector<int8_t> got(size_t(g.n) * g.m * oh * ow);
		copy(y, yDims, VX_TYPE_INT8, got.data(), VX_READ_ONLY);

		for (int n = 0; n < g.n; n++)
			for (int m = 0; m < g.m; m++)
				for (int oy = 0; oy < oh; oy++)
					for (int ox = 0; ox < ow; ox++) {
						int64_t acc = bias[m];
						const int first = m / (g.m / g.groups) * perGroup;
						for (int c = 0; c < perGroup; c++)
							for (int ky = 0; ky < g.kh; ky++)
								for (int kx = 0; kx < g.kw; kx++) {
									const int iy = oy * int(p.strideY) - int(p.padTop) + ky * int(p.dilationY);
									const int ix = ox * int(p.strideX) - int(p.padLeft) + kx * int(p.dilationX);
									if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w)
										continue;
									acc += int64_t(x[((size_t(n) * g.c + first + c) * g.h + iy) * g.w + ix] - p.inputZero)
										* w[((size_t(m) * perGroup + c) * g.kh + ky) * g.kw + kx];
								}
						ASSERT_EQ(got[((size_t(n) * g.m + m) * oh + oy) * ow + ox],
							quantisedOutput(acc, multipliers[m], p.relu == vx_true_e, p.outputZero))
							<< "case " << cases << " output (" << n << ", " << m << ", " << oy
							<< ", " << ox << ")";
					}
		vxReleaseNode(&node);
		vxReleaseGraph(&graph);
	}
}

TEST_F(GeneralLayers, HugeMultipliersSaturate)
{
	/* float32(acc) * M beyond int64 (or infinite) is still the largest output. */
	for (float multiplier : { 1e10f, 1e19f, 1e30f, std::numeric_limits<float>::infinity() }) {
		const int8_t x[4] = { 3, 5, 7, 9 }, w[1] = { 1 };
		const int32_t bias[1] = { 0 };
		ConvolutionParams p = {};
		p.strideX = p.strideY = p.dilationX = p.dilationY = p.groups = 1;
		vx_graph graph = vxCreateGraph(context_);
		vx_tensor y = tensor({ 2, 2, 1, 1 }, VX_TYPE_INT8, nullptr);
		vx_node node = generalConvolutionNode(graph, tensor({ 2, 2, 1, 1 }, VX_TYPE_INT8, x),
			tensor({ 1, 1, 1, 1 }, VX_TYPE_INT8, w), tensor({ 1 }, VX_TYPE_INT32, bias),
			tensor({ 1 }, VX_TYPE_FLOAT32, &multiplier), p, y);
		ASSERT_EQ(runOnCpu(graph, node), VX_SUCCESS);
		int8_t got[4];
		copy(y, { 2, 2, 1, 1 }, VX_TYPE_INT8, got, VX_READ_ONLY);
		for (int8_t v : got)
			EXPECT_EQ(v, 127) << "multiplier " << multiplier;
		vxReleaseNode(&node);
		vxReleaseGraph(&graph);
	}
}

TEST_F(GeneralLayers, AnInt8LayerTakesInt16WeightsWithinTwoBytes)
{
	/* uint8 weights less a far zero point: -255 .. 255, the sum exact. */
	const int8_t x[4] = { 127, -128, 5, -7 };
	const int16_t w[2] = { -255, 201 };
	const int32_t bias[1] = { 1000 };
	const float multiplier = 0.003f;
	ConvolutionParams p = {};
	p.strideX = p.strideY = p.dilationX = p.dilationY = p.groups = 1;
	p.inputZero = 3;
	p.outputZero = -2;
	vx_graph graph = vxCreateGraph(context_);
	vx_tensor y = tensor({ 1, 2, 1, 1 }, VX_TYPE_INT8, nullptr);
	/* [W, H, C, N] = [1, 2, 2, 1]: two channels, two rows; a 1x1 kernel over both channels. */
	vx_node node = generalConvolutionNode(graph, tensor({ 1, 2, 2, 1 }, VX_TYPE_INT8, x),
		tensor({ 1, 1, 2, 1 }, VX_TYPE_INT16, w), tensor({ 1 }, VX_TYPE_INT32, bias),
		tensor({ 1 }, VX_TYPE_FLOAT32, &multiplier), p, y);
	ASSERT_EQ(runOnCpu(graph, node), VX_SUCCESS);
	int8_t got[2];
	copy(y, { 1, 2, 1, 1 }, VX_TYPE_INT8, got, VX_READ_ONLY);
	for (int row = 0; row < 2; row++) {
		const int64_t acc = 1000 + (x[row] - 3) * -255 + (x[2 + row] - 3) * 201;
		EXPECT_EQ(got[row], quantisedOutput(acc, multiplier, false, -2)) << "row " << row;
	}
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
}

/* Without multipliers the output is the INT32 sums (ConvInteger), saturated. */
TEST_F(GeneralLayers, WithoutMultipliersTheOutputIsTheInt32Sums)
{
	const int8_t x[4] = { 127, -128, 5, -7 };
	const int16_t w[2] = { -255, 201 };
	ConvolutionParams p = {};
	p.strideX = p.strideY = p.dilationX = p.dilationY = p.groups = 1;
	p.inputZero = 3;
	vx_graph graph = vxCreateGraph(context_);
	vx_tensor y = tensor({ 1, 2, 1, 1 }, VX_TYPE_INT32, nullptr);
	vx_node node = generalConvolutionNode(graph, tensor({ 1, 2, 2, 1 }, VX_TYPE_INT8, x),
		tensor({ 1, 1, 2, 1 }, VX_TYPE_INT16, w), nullptr, nullptr, p, y);
	ASSERT_EQ(runOnCpu(graph, node), VX_SUCCESS);
	int32_t got[2];
	copy(y, { 1, 2, 1, 1 }, VX_TYPE_INT32, got, VX_READ_ONLY);
	/* (127 - 3) * -255 + (5 - 3) * 201 and (-128 - 3) * -255 + (-7 - 3) * 201. */
	EXPECT_EQ(got[0], -31218);
	EXPECT_EQ(got[1], 31395);
	vxReleaseNode(&node);

	/* An INT8 output, an output zero point or a Relu have no meaning for sums. */
	vx_tensor narrow = tensor({ 1, 2, 1, 1 }, VX_TYPE_INT8, nullptr);
	vx_node refused = generalConvolutionNode(graph, tensor({ 1, 2, 2, 1 }, VX_TYPE_INT8, x),
		tensor({ 1, 1, 2, 1 }, VX_TYPE_INT16, w), nullptr, nullptr, p, narrow);
	EXPECT_EQ(runOnCpu(graph, refused), VX_ERROR_INVALID_FORMAT);
	vxReleaseNode(&refused);
	vxReleaseGraph(&graph);
	graph = vxCreateGraph(context_);
	p.relu = vx_true_e;
	refused = generalConvolutionNode(graph, tensor({ 1, 2, 2, 1 }, VX_TYPE_INT8, x),
		tensor({ 1, 1, 2, 1 }, VX_TYPE_INT16, w), nullptr, nullptr, p,
		tensor({ 1, 2, 1, 1 }, VX_TYPE_INT32, nullptr));
	EXPECT_EQ(runOnCpu(graph, refused), VX_ERROR_INVALID_VALUE);
	vxReleaseNode(&refused);
	vxReleaseGraph(&graph);
}

/* Dequantisation: float32(x - zero) * scale, per tensor or per channel (dimension 2). */
TEST_F(GeneralLayers, DequantizationIsOneFloat32ProductPerElement)
{
	/* [W, H, C] = [2, 1, 3]. */
	const int8_t x[6] = { -128, 127, 0, 5, -7, 100 };
	const int32_t zeros[3] = { 3, -128, 127 };
	const float scales[3] = { 0.1f, 0.3f, 1e-3f };
	vx_graph graph = vxCreateGraph(context_);
	vx_tensor y = tensor({ 2, 1, 3 }, VX_TYPE_FLOAT32, nullptr);
	vx_node node = dequantizeNode(graph, tensor({ 2, 1, 3 }, VX_TYPE_INT8, x),
		tensor({ 3 }, VX_TYPE_INT32, zeros), tensor({ 3 }, VX_TYPE_FLOAT32, scales), y);
	ASSERT_EQ(runOnCpu(graph, node), VX_SUCCESS);
	float got[6];
	copy(y, { 2, 1, 3 }, VX_TYPE_FLOAT32, got, VX_READ_ONLY);
	for (int i = 0; i < 6; i++) {
		volatile float want = float(x[i] - zeros[i / 2]) * scales[i / 2];
		EXPECT_EQ(got[i], want) << i;
	}
	EXPECT_EQ(got[1], float(127 - 3) * 0.1f);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);

	/* One zero point and scale for the tensor; an INT8 output or three scales for one zero are refused. */
	graph = vxCreateGraph(context_);
	const int32_t zero = -5;
	const float scale = 0.25f;
	node = dequantizeNode(graph, tensor({ 2, 1, 3 }, VX_TYPE_INT8, x),
		tensor({ 1 }, VX_TYPE_INT32, &zero), tensor({ 1 }, VX_TYPE_FLOAT32, &scale), y);
	ASSERT_EQ(runOnCpu(graph, node), VX_SUCCESS);
	copy(y, { 2, 1, 3 }, VX_TYPE_FLOAT32, got, VX_READ_ONLY);
	for (int i = 0; i < 6; i++)
		EXPECT_EQ(got[i], float(x[i] + 5) * 0.25f) << i;
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	graph = vxCreateGraph(context_);
	node = dequantizeNode(graph, tensor({ 2, 1, 3 }, VX_TYPE_INT8, x),
		tensor({ 1 }, VX_TYPE_INT32, &zero), tensor({ 3 }, VX_TYPE_FLOAT32, scales), y);
	EXPECT_EQ(runOnCpu(graph, node), VX_ERROR_INVALID_DIMENSION);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	graph = vxCreateGraph(context_);
	node = dequantizeNode(graph, tensor({ 2, 1, 3 }, VX_TYPE_INT8, x),
		tensor({ 1 }, VX_TYPE_INT32, &zero), tensor({ 1 }, VX_TYPE_FLOAT32, &scale),
		tensor({ 2, 1, 3 }, VX_TYPE_INT8, nullptr));
	EXPECT_EQ(runOnCpu(graph, node), VX_ERROR_INVALID_FORMAT);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
}

TEST_F(GeneralLayers, AnAddendIsAddedBeforeTheRelu)
{
	/* A Gemm's matrix C: y = relu(x * w + bias + addend), element by element. */
	const float x[4] = { 1, -2, 3, -4 }, w[1] = { 2 }, bias[1] = { 0.5f };
	const float addend[4] = { -3, 10, -7, 1 };
	ConvolutionParams p = {};
	p.strideX = p.strideY = p.dilationX = p.dilationY = p.groups = 1;
	p.relu = vx_true_e;
	vx_graph graph = vxCreateGraph(context_);
	vx_tensor y = tensor({ 2, 2, 1, 1 }, VX_TYPE_FLOAT32, nullptr);
	vx_node node = generalConvolutionNode(graph, tensor({ 2, 2, 1, 1 }, VX_TYPE_FLOAT32, x),
		tensor({ 1, 1, 1, 1 }, VX_TYPE_FLOAT32, w), tensor({ 1 }, VX_TYPE_FLOAT32, bias),
		nullptr, p, y, tensor({ 2, 2, 1, 1 }, VX_TYPE_FLOAT32, addend));
	ASSERT_EQ(runOnCpu(graph, node), VX_SUCCESS);
	float got[4];
	copy(y, { 2, 2, 1, 1 }, VX_TYPE_FLOAT32, got, VX_READ_ONLY);
	const float expected[4] = { 0, 6.5f, 0, 0 };
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(got[i], expected[i]) << i;
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);

	/* Of another shape than the output, or with an INT8 layer: refused. */
	vx_graph other = vxCreateGraph(context_);
	vx_node wrong = generalConvolutionNode(other, tensor({ 2, 2, 1, 1 }, VX_TYPE_FLOAT32, x),
		tensor({ 1, 1, 1, 1 }, VX_TYPE_FLOAT32, w), nullptr, nullptr, p,
		tensor({ 2, 2, 1, 1 }, VX_TYPE_FLOAT32, nullptr),
		tensor({ 4, 1, 1, 1 }, VX_TYPE_FLOAT32, addend));
	EXPECT_EQ(runOnCpu(other, wrong), VX_ERROR_INVALID_DIMENSION);
	vxReleaseNode(&wrong);
	vxReleaseGraph(&other);
}

TEST_F(GeneralLayers, PoolingCountsWhatItsFlagsSay)
{
	/*
	 * 1 x 5 input 1..5, window 2, stride 2, padding 1 on the left and 0 on
	 * the right, ceil mode: windows [pad, 1], [2, 3], [4, 5]. The average
	 * without the padding is 1, 2.5, 4.5; with it 0.5, 2.5, 4.5; the max 1,
	 * 3, 5.
	 */
	const float x[5] = { 1, 2, 3, 4, 5 };
	struct Expected {
		vx_enum type;
		vx_bool includePad;
		float values[3];
	};
	for (const Expected &e : { Expected{ VX_NN_POOLING_AVG, vx_false_e, { 1, 2.5f, 4.5f } },
		     Expected{ VX_NN_POOLING_AVG, vx_true_e, { 0.5f, 2.5f, 4.5f } },
		     Expected{ VX_NN_POOLING_MAX, vx_false_e, { 1, 3, 5 } } }) {
		PoolingParams p = {};
		p.type = e.type;
		p.sizeX = 2, p.sizeY = 1;
		p.strideX = 2, p.strideY = 1;
		p.padLeft = 1;
		p.ceil = vx_true_e;
		p.includePad = e.includePad;
		vx_graph graph = vxCreateGraph(context_);
		vx_tensor y = tensor({ 3, 1, 1, 1 }, VX_TYPE_FLOAT32, nullptr);
		vx_node node = generalPoolingNode(
			graph, tensor({ 5, 1, 1, 1 }, VX_TYPE_FLOAT32, x), p, y);
		ASSERT_EQ(runOnCpu(graph, node), VX_SUCCESS);
		float got[3];
		copy(y, { 3, 1, 1, 1 }, VX_TYPE_FLOAT32, got, VX_READ_ONLY);
		for (int i = 0; i < 3; i++)
			EXPECT_EQ(got[i], e.values[i]) << "window " << i;
		vxReleaseNode(&node);
		vxReleaseGraph(&graph);
	}
}

TEST_F(GeneralLayers, PaddingNotBelowThePoolingWindowIsRefused)
{
	/* A window wholly in the padding would average nothing. */
	const float x[4] = { 1, 2, 3, 4 };
	PoolingParams p = {};
	p.type = VX_NN_POOLING_AVG;
	p.sizeX = p.sizeY = 2;
	p.strideX = p.strideY = 1;
	p.padLeft = 2;
	p.ceil = p.includePad = vx_false_e;
	vx_graph graph = vxCreateGraph(context_);
	vx_node node = generalPoolingNode(graph, tensor({ 2, 2, 1, 1 }, VX_TYPE_FLOAT32, x), p,
		tensor({ 3, 1, 1, 1 }, VX_TYPE_FLOAT32, nullptr));
	EXPECT_NE(runOnCpu(graph, node), VX_SUCCESS);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
}

} /* namespace */
