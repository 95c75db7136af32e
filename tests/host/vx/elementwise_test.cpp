/* SPDX-License-Identifier: MIT */
/*
 * The CPU node of libvdla's element-wise layer (umd/src/vx/nn/nn_elementwise.h)
 * against numpy's broadcasting rule, written here over ONNX-order shapes, and
 * against known answers of the quantised sum's rounding and saturation. Also
 * the parameters and shapes the layer refuses.
 */

#include "nn/nn_elementwise.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <numeric>
#include <vector>

using namespace vdla::vx::nn;

namespace {

using Shape = std::vector<int64_t>;

int64_t elements(const Shape &shape)
{
	return std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<int64_t>());
}

/* The flat index into an operand of @in for the output element @k of @out (same rank). */
int64_t broadcastIndex(const Shape &in, const Shape &out, int64_t k)
{
	int64_t index = 0, stride = 1;
	for (size_t d = out.size(); d-- > 0;) {
		const int64_t coordinate = k % out[d];
		k /= out[d];
		index += (in[d] == 1 ? 0 : coordinate) * stride;
		stride *= in[d];
	}
	return index;
}

class Elementwise : public testing::Test
{
protected:
	void SetUp() override { context_ = vxCreateContext(); }
	void TearDown() override
	{
		for (vx_tensor &t : tensors_)
			vxReleaseTensor(&t);
		vxReleaseContext(&context_);
	}

	vx_tensor tensor(const Shape &shape, vx_enum type, const void *data = nullptr)
	{
		std::vector<vx_size> dims(shape.rbegin(), shape.rend());
		vx_tensor t = vxCreateTensor(context_, dims.size(), dims.data(), type, 0);
		tensors_.push_back(t);
		if (data)
			copy(t, shape, type, const_cast<void *>(data), VX_WRITE_ONLY);
		return t;
	}

	static void copy(vx_tensor t, const Shape &shape, vx_enum type, void *data, vx_enum usage)
	{
		std::vector<vx_size> dims(shape.rbegin(), shape.rend());
		std::vector<vx_size> start(dims.size(), 0), stride(dims.size());
		const vx_size size = type == VX_TYPE_INT8 ? 1 : 4;
		for (size_t i = 0; i < dims.size(); i++)
			stride[i] = i ? stride[i - 1] * dims[i - 1] : size;
		ASSERT_EQ(vxCopyTensorPatch(t, dims.size(), start.data(), dims.data(), stride.data(),
				  data, usage, VX_MEMORY_TYPE_HOST),
			VX_SUCCESS);
	}

	/* The status of a graph of one element-wise node on the CPU; its output in @out. */
	template <typename T>
	vx_status run(const Shape &aShape, const std::vector<T> &a, const Shape &bShape,
		const std::vector<T> &b, const ElementwiseParams &p, const Shape &outShape,
		std::vector<T> *out)
	{
		const vx_enum type = std::is_same_v<T, float> ? VX_TYPE_FLOAT32 : VX_TYPE_INT8;
		vx_graph graph = vxCreateGraph(context_);
		vx_tensor output = tensor(outShape, type);
		vx_node node = elementwiseNode(
			graph, tensor(aShape, type, a.data()), tensor(bShape, type, b.data()), p, output);
		vx_status status = vxGetStatus(reinterpret_cast<vx_reference>(node));
		if (status == VX_SUCCESS) {
			vxSetNodeTarget(node, VX_TARGET_STRING, "cpu");
			status = vxVerifyGraph(graph);
		}
		if (status == VX_SUCCESS)
			status = vxProcessGraph(graph);
		if (status == VX_SUCCESS && out) {
			out->assign(elements(outShape), T(0));
			copy(output, outShape, type, out->data(), VX_READ_ONLY);
		}
		vxReleaseNode(&node);
		vxReleaseGraph(&graph);
		return status;
	}

	vx_context context_ = nullptr;
	std::vector<vx_tensor> tensors_;
};

std::vector<float> values(size_t count, float scale)
{
	std::vector<float> v(count);
	for (size_t i = 0; i < count; i++)
		v[i] = (float(i % 17) - 8.25f) * scale;
	return v;
}

/* Every pair of shapes: each operand whole, or repeated along some dimensions. */
TEST_F(Elementwise, FloatOperationsBroadcastAsNumpy)
{
	const Shape out = { 2, 3, 4, 5 };
	const std::vector<Shape> operands = { { 2, 3, 4, 5 }, { 1, 3, 1, 1 }, { 2, 1, 4, 1 },
		{ 1, 1, 1, 5 }, { 1, 1, 1, 1 }, { 2, 3, 1, 5 } };
	for (vx_enum op : { kElementwiseAdd, kElementwiseSub, kElementwiseMul }) {
		for (const Shape &aShape : operands) {
			for (const Shape &bShape : operands) {
				if (aShape != out && bShape != out)
					continue;
				const std::vector<float> a = values(elements(aShape), 0.37f);
				const std::vector<float> b = values(elements(bShape) + 3, 1.13f);
				std::vector<float> got;
				ASSERT_EQ(run(aShape, a, bShape, b, elementwiseParams(op), out, &got),
					VX_SUCCESS);
				for (int64_t k = 0; k < elements(out); k++) {
					const float x = a[broadcastIndex(aShape, out, k)];
					const float y = b[broadcastIndex(bShape, out, k)];
					const float want = op == kElementwiseAdd ? x + y
						: op == kElementwiseSub          ? x - y
										 : x * y;
					ASSERT_EQ(got[k], want) << "op " << op << " element " << k;
				}
			}
		}
	}
}

/* Both operands repeated, along different dimensions: [3, 1] + [1, 4] = [3, 4]. */
TEST_F(Elementwise, BothOperandsRepeated)
{
	std::vector<float> got;
	ASSERT_EQ(run<float>({ 3, 1 }, { 1, 2, 3 }, { 1, 4 }, { 10, 20, 30, 40 },
			  elementwiseParams(kElementwiseAdd), { 3, 4 }, &got),
		VX_SUCCESS);
	EXPECT_EQ(got, (std::vector<float>{ 11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43 }));
}

/* The quantised sum of known values: ties to even, the zero points, saturation, Relu. */
TEST_F(Elementwise, QuantisedAddRoundsTiesToEvenAndSaturates)
{
	ElementwiseParams p = elementwiseParams(kElementwiseAdd);
	p.inputZero[0] = 3;
	p.inputZero[1] = -2;
	p.multiplier[0] = 0.5f;
	p.multiplier[1] = 0.25f;
	p.outputZero = 10;
	/* (a - 3) / 2 + (b + 2) / 4, rounded, + 10. */
	const std::vector<int8_t> a = { 8, 6, 3, 127, -128, 4 };
	const std::vector<int8_t> b = { -2, -2, 0, 127, -128, 0 };
	/* 2.5 -> 2; 1.5 -> 2; 0.5 -> 0; 62 + 32.25 -> 94; -65.5 - 31.5 = -97; 0.5 + 0.5 = 1. */
	const std::vector<int8_t> want = { 12, 12, 10, 104, -87, 11 };
	std::vector<int8_t> got;
	ASSERT_EQ(run({ 6 }, a, { 6 }, b, p, { 6 }, &got), VX_SUCCESS);
	EXPECT_EQ(got, want);

	/* Saturation at both ends, and the Relu taking negative sums to the zero point. */
	p.outputZero = 100;
	ASSERT_EQ(run({ 6 }, a, { 6 }, b, p, { 6 }, &got), VX_SUCCESS);
	EXPECT_EQ(got[3], 127);
	p.outputZero = -100;
	ASSERT_EQ(run({ 6 }, a, { 6 }, b, p, { 6 }, &got), VX_SUCCESS);
	EXPECT_EQ(got[4], -128);
	p.relu = vx_true_e;
	p.outputZero = 5;
	ASSERT_EQ(run({ 6 }, a, { 6 }, b, p, { 6 }, &got), VX_SUCCESS);
	EXPECT_EQ(got[4], 5);
	EXPECT_EQ(got[0], 7);
}

/*
 * Each product and the sum rounded to float32, as the SDP's float path
 * does. Over every pair of d0 in [-255, 0] and d1 in [0, 255] with
 * multipliers 0.1f and 0.3f, a sum in double (rounded to float32 or not)
 * gives another integer for some pairs: d0 = -255 and d1 = 60 round to -8
 * in float32 steps, to -7 in double. The reference keeps each step in a
 * volatile float32.
 */
TEST_F(Elementwise, QuantisedAddRoundsEachStepToFloat32)
{
	ElementwiseParams p = elementwiseParams(kElementwiseAdd);
	p.inputZero[0] = 127;
	p.inputZero[1] = -128;
	p.multiplier[0] = 0.1f;
	p.multiplier[1] = 0.3f;
	std::vector<int8_t> a(256), b(256), got;
	for (int i = 0; i < 256; i++)
		a[i] = b[i] = int8_t(i - 128);
	ASSERT_EQ(run({ 256, 1 }, a, { 1, 256 }, b, p, { 256, 256 }, &got), VX_SUCCESS);
	for (int i = 0; i < 256; i++) {
		for (int j = 0; j < 256; j++) {
			volatile float x = float(a[i] - 127) * 0.1f;
			volatile float y = float(b[j] + 128) * 0.3f;
			volatile float v = x + y;
			const int want = std::clamp(int(std::nearbyint(v)), -128, 127);
			ASSERT_EQ(got[i * 256 + j], want) << i << ", " << j;
		}
	}
}

/* Integer arithmetic: exact, then wrapped modulo 256 (ONNX's integer Add, Sub, Mul). */
TEST_F(Elementwise, IntegerArithmeticWrapsModulo256)
{
	std::vector<int8_t> a(256), b(256), got;
	for (int i = 0; i < 256; i++) {
		a[i] = int8_t(i - 128);
		b[i] = int8_t((i * 91 + 7) % 256 - 128);
	}
	for (vx_enum op : { kElementwiseAdd, kElementwiseSub, kElementwiseMul }) {
		/* int8 (zero points 0) and uint8 held less 128 (zero points -128). */
		for (int zero : { 0, -128 }) {
			ElementwiseParams p = elementwiseParams(op);
			p.wrap = vx_true_e;
			p.inputZero[0] = p.inputZero[1] = p.outputZero = zero;
			ASSERT_EQ(run({ 256 }, a, { 256 }, b, p, { 256 }, &got), VX_SUCCESS);
			for (int i = 0; i < 256; i++) {
				const int x = a[i] - zero, y = b[i] - zero;
				const int exact = op == kElementwiseAdd ? x + y
					: op == kElementwiseSub         ? x - y
									: x * y;
				/* The low byte, read as held (less 128 for uint8). */
				const int want = int8_t(uint8_t(unsigned(exact + zero)));
				ASSERT_EQ(got[i], want) << "op " << op << " zero " << zero << " " << i;
			}
		}
	}
	/* Known answers: 100 + 100 = 200 wraps to -56; uint8 200 + 100 = 44. */
	ElementwiseParams p = elementwiseParams(kElementwiseAdd);
	p.wrap = vx_true_e;
	ASSERT_EQ(run<int8_t>({ 1 }, { 100 }, { 1 }, { 100 }, p, { 1 }, &got), VX_SUCCESS);
	EXPECT_EQ(got[0], -56);
	p.inputZero[0] = p.inputZero[1] = p.outputZero = -128;
	ASSERT_EQ(run<int8_t>({ 1 }, { 200 - 128 }, { 1 }, { 100 - 128 }, p, { 1 }, &got),
		VX_SUCCESS);
	EXPECT_EQ(got[0] + 128, 44);
}

TEST_F(Elementwise, RefusesWhatItCannotCompute)
{
	const std::vector<float> f(12, 1.0f);
	const std::vector<int8_t> q(12, 1);
	/* Dimensions neither equal nor 1. */
	EXPECT_EQ(run<float>({ 3, 4 }, f, { 2, 4 }, f, elementwiseParams(kElementwiseAdd),
			  { 3, 4 }, nullptr),
		VX_ERROR_INVALID_DIMENSION);
	/* An output of other dimensions than the broadcast. */
	EXPECT_EQ(run<float>({ 3, 4 }, f, { 1, 4 }, f, elementwiseParams(kElementwiseAdd),
			  { 4, 3 }, nullptr),
		VX_ERROR_INVALID_DIMENSION);
	/* Operands of different ranks. */
	EXPECT_EQ(run<float>({ 3, 4 }, f, { 4 }, f, elementwiseParams(kElementwiseAdd), { 3, 4 },
			  nullptr),
		VX_ERROR_INVALID_DIMENSION);
	/* Integer arithmetic neither scales nor clips; quantised Sub and Mul are not defined. */
	ElementwiseParams w = elementwiseParams(kElementwiseMul);
	w.wrap = vx_true_e;
	w.multiplier[0] = 0.5f;
	EXPECT_EQ(run<int8_t>({ 12 }, q, { 12 }, q, w, { 12 }, nullptr), VX_ERROR_INVALID_VALUE);
	w = elementwiseParams(kElementwiseMul);
	w.wrap = vx_true_e;
	w.relu = vx_true_e;
	EXPECT_EQ(run<int8_t>({ 12 }, q, { 12 }, q, w, { 12 }, nullptr), VX_ERROR_INVALID_VALUE);
	w = elementwiseParams(kElementwiseAdd);
	w.wrap = vx_true_e;
	EXPECT_EQ(run<float>({ 12 }, f, { 12 }, f, w, { 12 }, nullptr), VX_ERROR_INVALID_VALUE);
	EXPECT_EQ(run<int8_t>({ 12 }, q, { 12 }, q, elementwiseParams(kElementwiseSub), { 12 },
			  nullptr),
		VX_ERROR_INVALID_FORMAT);
	/* Zero points out of range, a multiplier that is not finite. */
	ElementwiseParams p = elementwiseParams(kElementwiseAdd);
	p.inputZero[1] = 128;
	EXPECT_EQ(run<int8_t>({ 12 }, q, { 12 }, q, p, { 12 }, nullptr), VX_ERROR_INVALID_VALUE);
	p = elementwiseParams(kElementwiseAdd);
	p.multiplier[0] = INFINITY;
	EXPECT_EQ(run<int8_t>({ 12 }, q, { 12 }, q, p, { 12 }, nullptr), VX_ERROR_INVALID_VALUE);
	/* Float operands are neither offset nor scaled. */
	p = elementwiseParams(kElementwiseAdd);
	p.multiplier[1] = 2;
	EXPECT_EQ(run<float>({ 12 }, f, { 12 }, f, p, { 12 }, nullptr), VX_ERROR_INVALID_VALUE);
	/* An unknown operation. */
	EXPECT_EQ(run<float>({ 12 }, f, { 12 }, f, elementwiseParams(7), { 12 }, nullptr),
		VX_ERROR_INVALID_VALUE);
}

} /* namespace */
