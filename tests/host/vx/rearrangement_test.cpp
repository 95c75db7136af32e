/* SPDX-License-Identifier: MIT */
/*
 * The CPU node of libvdla's data movement (umd/src/vx/nn/nn_rearrange.h)
 * against the definitions of the ONNX operators it serves, written here as
 * ONNX writes them: DepthToSpace and SpaceToDepth as a reshape, a transpose
 * and a reshape; Transpose by its perm; Slice by starts and steps. Also the
 * parameters and shapes the layer refuses.
 */

#include "nn/nn_rearrange.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

using namespace vdla::vx::nn;

namespace {

using Shape = std::vector<int64_t>;

/* Row-major transpose of @data of @shape: output axis i is input axis perm[i]. */
std::vector<float> transposeReference(const std::vector<float> &data, const Shape &shape,
	const std::vector<size_t> &perm)
{
	const size_t rank = shape.size();
	Shape out(rank), inStrides(rank, 1);
	for (size_t i = rank - 1; i-- > 0;)
		inStrides[i] = inStrides[i + 1] * shape[i + 1];
	for (size_t i = 0; i < rank; i++)
		out[i] = shape[perm[i]];
	std::vector<float> result;
	std::vector<int64_t> index(rank, 0);
	for (size_t k = 0; k < data.size(); k++) {
		int64_t offset = 0;
		for (size_t i = 0; i < rank; i++)
			offset += index[i] * inStrides[perm[i]];
		result.push_back(data[offset]);
		for (size_t i = rank; i-- > 0;) {
			if (++index[i] < out[i])
				break;
			index[i] = 0;
		}
	}
	return result;
}

class Rearrangement : public testing::Test
{
protected:
	void SetUp() override { context_ = vxCreateContext(); }
	void TearDown() override
	{
		for (vx_tensor &t : tensors_)
			vxReleaseTensor(&t);
		vxReleaseContext(&context_);
	}

	/* A FLOAT32 tensor of ONNX @shape (outermost first) holding @data, if given. */
	vx_tensor tensor(const Shape &shape, const std::vector<float> *data = nullptr,
		vx_enum type = VX_TYPE_FLOAT32)
	{
		std::vector<vx_size> dims(shape.rbegin(), shape.rend());
		vx_tensor t = vxCreateTensor(context_, dims.size(), dims.data(), type, 0);
		tensors_.push_back(t);
		if (data)
			copy(t, shape, const_cast<float *>(data->data()), VX_WRITE_ONLY);
		return t;
	}

	static void copy(vx_tensor t, const Shape &shape, void *data, vx_enum usage)
	{
		std::vector<vx_size> dims(shape.rbegin(), shape.rend());
		std::vector<vx_size> start(dims.size(), 0), stride(dims.size());
		for (size_t i = 0; i < dims.size(); i++)
			stride[i] = i ? stride[i - 1] * dims[i - 1] : sizeof(float);
		ASSERT_EQ(vxCopyTensorPatch(t, dims.size(), start.data(), dims.data(), stride.data(),
				  data, usage, VX_MEMORY_TYPE_HOST),
			VX_SUCCESS);
	}

	static RearrangementParams params(vx_enum mode) { return rearrangementParams(mode); }

	/* The status of a graph of one rearrangement on the CPU; its output in @out. */
	vx_status run(const Shape &inShape, const std::vector<float> &in,
		const RearrangementParams &p, const Shape &outShape, std::vector<float> *out)
	{
		vx_graph graph = vxCreateGraph(context_);
		vx_tensor input = tensor(inShape, &in);
		vx_tensor output = tensor(outShape);
		vx_node node = rearrangementNode(graph, input, p, output);
		vx_status status = vxGetStatus(reinterpret_cast<vx_reference>(node));
		if (status == VX_SUCCESS) {
			vxSetNodeTarget(node, VX_TARGET_STRING, "cpu");
			status = vxVerifyGraph(graph);
		}
		if (status == VX_SUCCESS)
			status = vxProcessGraph(graph);
		if (status == VX_SUCCESS && out) {
			out->assign(std::accumulate(outShape.begin(), outShape.end(), int64_t(1),
					    std::multiplies<int64_t>()),
				0.0f);
			copy(output, outShape, out->data(), VX_READ_ONLY);
		}
		vxReleaseNode(&node);
		vxReleaseGraph(&graph);
		return status;
	}

	vx_context context_ = nullptr;
	std::vector<vx_tensor> tensors_;
};

std::vector<float> iota(size_t count)
{
	std::vector<float> values(count);
	for (size_t i = 0; i < count; i++)
		values[i] = float(i) * 0.5f - 7;
	return values;
}

TEST_F(Rearrangement, PermuteIsTransposeOfEveryPermutation)
{
	const Shape shape = { 2, 3, 4, 5 };
	const std::vector<float> in = iota(120);
	std::vector<size_t> perm = { 0, 1, 2, 3 };
	int count = 0;
	do {
		/* ONNX axis a is OpenVX dimension 3 - a. */
		RearrangementParams p = params(kRearrangePermute);
		Shape outShape(4);
		for (size_t i = 0; i < 4; i++) {
			p.permutation[3 - i] = vx_uint32(3 - perm[i]);
			outShape[i] = shape[perm[i]];
		}
		std::vector<float> out;
		ASSERT_EQ(run(shape, in, p, outShape, &out), VX_SUCCESS);
		EXPECT_EQ(out, transposeReference(in, shape, perm));
		count++;
	} while (std::next_permutation(perm.begin(), perm.end()));
	EXPECT_EQ(count, 24);
}

TEST_F(Rearrangement, DepthToSpaceIsOnnxsReshapeTransposeReshape)
{
	const int64_t n = 2, c = 8, h = 3, w = 2, b = 2;
	const std::vector<float> in = iota(n * c * h * w);
	/* DCR: [N, b, b, C', H, W] by (0, 3, 4, 1, 5, 2); CRD: [N, C', b, b, H, W] by (0, 1, 4, 2, 5, 3). */
	const std::vector<float> dcr
		= transposeReference(in, { n, b, b, c / 4, h, w }, { 0, 3, 4, 1, 5, 2 });
	const std::vector<float> crd
		= transposeReference(in, { n, c / 4, b, b, h, w }, { 0, 1, 4, 2, 5, 3 });
	for (bool columnRowDepth : { false, true }) {
		RearrangementParams p = params(kRearrangeDepthToSpace);
		p.block = b;
		p.columnRowDepth = columnRowDepth ? vx_true_e : vx_false_e;
		std::vector<float> out;
		ASSERT_EQ(run({ n, c, h, w }, in, p, { n, c / 4, h * b, w * b }, &out), VX_SUCCESS);
		EXPECT_EQ(out, columnRowDepth ? crd : dcr) << (columnRowDepth ? "CRD" : "DCR");
	}
}

TEST_F(Rearrangement, SpaceToDepthIsOnnxsReshapeTransposeReshape)
{
	const int64_t n = 2, c = 3, h = 4, w = 6, b = 2;
	const std::vector<float> in = iota(n * c * h * w);
	const std::vector<float> expected
		= transposeReference(in, { n, c, h / b, b, w / b, b }, { 0, 3, 5, 1, 2, 4 });
	RearrangementParams p = params(kRearrangeSpaceToDepth);
	p.block = b;
	std::vector<float> out;
	ASSERT_EQ(run({ n, c, h, w }, in, p, { n, c * b * b, h / b, w / b }, &out), VX_SUCCESS);
	EXPECT_EQ(out, expected);
}

TEST_F(Rearrangement, SliceTakesStartsAndSteps)
{
	const Shape shape = { 3, 7, 9 };
	const std::vector<float> in = iota(3 * 7 * 9);
	/* ONNX starts (1, 2, 0) and steps (1, 2, 3): rows 2, 4, 6 and columns 0, 3, 6. */
	RearrangementParams p = params(kRearrangeSlice);
	p.start[2] = 1, p.start[1] = 2, p.start[0] = 0;
	p.step[2] = 1, p.step[1] = 2, p.step[0] = 3;
	std::vector<float> expected;
	for (int64_t i = 1; i < 3; i++)
		for (int64_t j = 2; j < 7; j += 2)
			for (int64_t k = 0; k < 9; k += 3)
				expected.push_back(in[(i * 7 + j) * 9 + k]);
	std::vector<float> out;
	ASSERT_EQ(run(shape, in, p, { 2, 3, 3 }, &out), VX_SUCCESS);
	EXPECT_EQ(out, expected);
}

TEST_F(Rearrangement, ReshapeKeepsTheOrderOfSixDimensions)
{
	const std::vector<float> in = iota(2 * 3 * 4 * 5);
	std::vector<float> out;
	ASSERT_EQ(run({ 2, 3, 4, 5 }, in, params(kRearrangeReshape), { 1, 2, 1, 3, 20, 1 }, &out),
		VX_SUCCESS);
	EXPECT_EQ(out, in);
}

TEST_F(Rearrangement, ConcatenationJoinsAlongEachDimension)
{
	/* ONNX Concat of [2, 3, 4], [2, 1, 4], ... along axis a: rows of one input, then the next. */
	for (int64_t axis = 0; axis < 3; axis++) {
		Shape first = { 2, 3, 4 }, second = first, third = first;
		second[axis] = 1;
		third[axis] = 2;
		const std::vector<std::vector<float>> parts
			= { iota(24), iota(24 / first[axis]), iota(24 / first[axis] * 2) };
		const std::vector<Shape> shapes = { first, second, third };
		Shape outShape = first;
		outShape[axis] = first[axis] + 3;
		std::vector<float> expected;
		const int64_t outer = axis == 0 ? 1 : axis == 1 ? 2 : 6;
		for (int64_t o = 0; o < outer; o++) {
			for (size_t k = 0; k < 3; k++) {
				const int64_t block = int64_t(parts[k].size()) / outer;
				expected.insert(expected.end(), parts[k].begin() + o * block,
					parts[k].begin() + (o + 1) * block);
			}
		}
		vx_graph graph = vxCreateGraph(context_);
		vx_tensor inputs[3];
		for (size_t k = 0; k < 3; k++)
			inputs[k] = tensor(shapes[k], &parts[k]);
		vx_tensor output = tensor(outShape);
		ConcatenationParams p = { vx_uint32(2 - axis) };
		vx_node node = concatenationNode(graph, inputs, 3, p, output);
		vxSetNodeTarget(node, VX_TARGET_STRING, "cpu");
		ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS) << "axis " << axis;
		ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
		std::vector<float> out(expected.size());
		copy(output, outShape, out.data(), VX_READ_ONLY);
		EXPECT_EQ(out, expected) << "axis " << axis;
		vxReleaseNode(&node);
		vxReleaseGraph(&graph);
	}
}

TEST_F(Rearrangement, ConcatenationRefusesInputsThatDoNotFit)
{
	const std::vector<float> a = iota(24), b = iota(12);
	vx_graph graph = vxCreateGraph(context_);
	/* [2, 3, 4] and [2, 3, 2] differ in dimension 0, not 1. */
	vx_tensor inputs[2] = { tensor({ 2, 3, 4 }, &a), tensor({ 2, 3, 2 }, &b) };
	ConcatenationParams p = { 1 };
	vx_node node = concatenationNode(graph, inputs, 2, p, tensor({ 2, 6, 4 }));
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_DIMENSION);
	vxReleaseNode(&node);
	vx_node none = concatenationNode(graph, inputs, 9, p, tensor({ 2, 6, 4 }));
	EXPECT_EQ(vxGetStatus(reinterpret_cast<vx_reference>(none)), VX_ERROR_INVALID_PARAMETERS);
	vxReleaseGraph(&graph);
}

TEST_F(Rearrangement, DepthStackGathersEachDepthTapWithZeroPadding)
{
	/*
	 * x [N, C, D, H, W] = [2, 3, 5, 2, 2]; taps 3, stride 2, dilation 2,
	 * padding 2 before: output depth o reads input depths 2o - 2, 2o, 2o + 2;
	 * OD = 3. stacked[n * OD + o][c * 3 + k] is that plane, or zeros.
	 */
	const int64_t n = 2, c = 3, d = 5, plane = 4, taps = 3, depths = 3;
	const std::vector<float> in = iota(n * c * d * plane);
	std::vector<float> expected;
	for (int64_t i = 0; i < n; i++)
		for (int64_t o = 0; o < depths; o++)
			for (int64_t ch = 0; ch < c; ch++)
				for (int64_t k = 0; k < taps; k++) {
					const int64_t z = o * 2 + k * 2 - 2;
					for (int64_t p = 0; p < plane; p++)
						expected.push_back(z < 0 || z >= d
								? 0.0f
								: in[((i * c + ch) * d + z) * plane + p]);
				}
	RearrangementParams p = params(kRearrangeDepthStack);
	p.block = taps;
	p.start[0] = 2;
	p.step[0] = 2;
	p.step[1] = 2;
	std::vector<float> out;
	ASSERT_EQ(run({ n * c, d, 2, 2 }, in, p, { n * depths, c * taps, 2, 2 }, &out), VX_SUCCESS);
	EXPECT_EQ(out, expected);
}

TEST_F(Rearrangement, RefusesWhatItCannotMean)
{
	const std::vector<float> in = iota(24);
	RearrangementParams repeated = params(kRearrangePermute);
	repeated.permutation[1] = 0;
	EXPECT_EQ(run({ 2, 3, 4 }, in, repeated, { 2, 3, 4 }, nullptr), VX_ERROR_INVALID_VALUE);

	RearrangementParams past = params(kRearrangeSlice);
	past.start[0] = 2;
	past.step[0] = 2;
	/* Columns 2 and 4 of 4: the second is past the end. */
	EXPECT_EQ(run({ 2, 3, 4 }, in, past, { 2, 3, 2 }, nullptr), VX_ERROR_INVALID_DIMENSION);

	RearrangementParams noStep = params(kRearrangeSlice);
	noStep.step[1] = 0;
	EXPECT_EQ(run({ 2, 3, 4 }, in, noStep, { 2, 3, 4 }, nullptr), VX_ERROR_INVALID_VALUE);

	RearrangementParams block = params(kRearrangeDepthToSpace);
	block.block = 2;
	/* 3 channels do not make 2 x 2 blocks. */
	EXPECT_EQ(run({ 1, 3, 2, 4 }, iota(24), block, { 1, 1, 4, 8 }, nullptr),
		VX_ERROR_INVALID_DIMENSION);

	EXPECT_EQ(run({ 2, 3, 4 }, in, params(kRearrangeReshape), { 5, 5 }, nullptr),
		VX_ERROR_INVALID_DIMENSION);

	RearrangementParams mode = params(kRearrangeDepthStack + 1);
	EXPECT_EQ(run({ 2, 3, 4 }, in, mode, { 2, 3, 4 }, nullptr), VX_ERROR_INVALID_VALUE);
}

TEST_F(Rearrangement, InputAndOutputShareOneType)
{
	const std::vector<float> in = iota(24);
	vx_graph graph = vxCreateGraph(context_);
	vx_node node = rearrangementNode(graph, tensor({ 2, 3, 4 }, &in),
		params(kRearrangeReshape), tensor({ 24 }, nullptr, VX_TYPE_INT32));
	vxSetNodeTarget(node, VX_TARGET_STRING, "cpu");
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_FORMAT);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
}

} /* namespace */
