/* SPDX-License-Identifier: MIT */
/*
 * DLA layers on tensors whose memory the DLA cannot use as it is: tensors
 * on the application's memory (from handle, padded, swapped between runs)
 * and views of other tensors (a channel range written by a convolution and
 * read back whole, the concatenation of networks). The DLA works on packed
 * copies, except for views of tensors owning their memory, which it
 * addresses in place; every result is checked against the same graph on the CPU, whose
 * strided layouts the host suite checks against worked-out values. Also:
 * biases the application writes after verification reach the DLA.
 */
#include "vx_guest.h"

#include <VX/vx_vdla.h>

#include <algorithm>
#include <climits>
#include <cstring>

using namespace vx_guest;

namespace {

/* A view of @tensor: the box [start, end). */
vx_tensor view(vx_tensor tensor, std::vector<vx_size> start, std::vector<vx_size> end)
{
	vx_tensor v = vxCreateTensorFromView(tensor, start.size(), start.data(), end.data());
	EXPECT_EQ(VX_SUCCESS, vxGetStatus(reinterpret_cast<vx_reference>(v)));
	return v;
}

class TensorMemory : public VxTest
{
protected:
	/* Q7.8 values in [-512, 512] for @count elements. */
	std::vector<int16_t> randomWords(size_t count)
	{
		std::uniform_int_distribution<int> value(-512, 512);
		std::vector<int16_t> words(count);
		for (int16_t &word : words)
			word = int16_t(value(random_));
		return words;
	}

	/* A Q7.8 tensor of @dims on @memory with @strides, released at teardown. */
	vx_tensor fromHandle(std::vector<vx_size> dims, std::vector<vx_size> strides, void *memory)
	{
		vx_tensor tensor = vxCreateTensorFromHandle(context_, dims.size(), dims.data(),
			VX_TYPE_INT16, 8, strides.data(), memory, VX_MEMORY_TYPE_HOST);
		EXPECT_EQ(VX_SUCCESS, vxGetStatus(reinterpret_cast<vx_reference>(tensor)));
		owned_.push_back(reinterpret_cast<vx_reference>(tensor));
		return tensor;
	}

	vx_tensor keep(vx_tensor tensor)
	{
		owned_.push_back(reinterpret_cast<vx_reference>(tensor));
		return tensor;
	}

	/* One convolution node on @target, its graph processed once. */
	vx_graph convolutionGraph(
		vx_tensor in, vx_tensor weights, vx_tensor bias, vx_tensor out, const char *target)
	{
		vx_graph graph = vxCreateGraph(context_);
		const vx_nn_convolution_params_t params = sameSizeConvolution();
		vx_node node = vxConvolutionLayer(
			graph, in, weights, bias, &params, sizeof(params), out);
		EXPECT_EQ(VX_SUCCESS, vxSetNodeTarget(node, VX_TARGET_STRING, target));
		vxReleaseNode(&node);
		return graph;
	}
};

/*
 * A tensor the application has mapped keeps its host memory: verifying a
 * graph that would move it to the DLA (freeing that memory under the
 * mapped pointer) fails until it is unmapped, then works.
 */
TEST_F(TensorMemory, AMappedTensorIsNotMovedToTheDevice)
{
	vx_tensor in = input({ { 6, 5, 3 }, VX_TYPE_INT8, 0 }, -20, 20);
	vx_tensor weights = input({ { 3, 3, 3, 4 }, VX_TYPE_INT8, 0 }, -3, 3);
	vx_tensor out = output({ { 4, 3, 4 }, VX_TYPE_INT8, 0 });
	vx_map_id map = 0;
	vx_size strides[3] = {};
	void *mapped = nullptr;
	const vx_size start[] = { 0, 0, 0 }, end[] = { 6, 5, 3 };
	ASSERT_EQ(VX_SUCCESS, vxMapTensorPatch(in, 3, start, end, &map, strides, &mapped,
				      VX_READ_AND_WRITE, VX_MEMORY_TYPE_HOST));

	vx_graph graph = vxCreateGraph(context_);
	const vx_nn_convolution_params_t params = { 0, 0, VX_CONVERT_POLICY_SATURATE,
		VX_ROUND_POLICY_TO_ZERO, VX_NN_DS_SIZE_ROUNDING_FLOOR, 0, 0 };
	vx_node conv = vxConvolutionLayer(graph, in, weights, nullptr, &params, sizeof(params), out);
	ASSERT_EQ(VX_SUCCESS, vxSetNodeTarget(conv, VX_TARGET_STRING, "dla"));
	EXPECT_EQ(VX_FAILURE, vxVerifyGraph(graph));
	ASSERT_EQ(VX_SUCCESS, vxUnmapTensorPatch(in, map));
	EXPECT_EQ(VX_SUCCESS, vxProcessGraph(graph));
	vxReleaseNode(&conv);
	vxReleaseGraph(&graph);
}

TEST_F(TensorMemory, ConvolutionOnPaddedHandleAndViewsMatchesCpu)
{
	/* 12 x 10 x 3 inputs, rows padded to 32 bytes and planes to 384. */
	std::vector<int16_t> memory = randomWords(384 / 2 * 3);
	vx_tensor in = fromHandle({ 12, 10, 3 }, { 2, 32, 384 }, memory.data());
	/* Output channels 2..9 of a 12-channel weight tensor. */
	vx_tensor allWeights = input({ { 3, 3, 3, 12 }, VX_TYPE_INT16, 8 }, -200, 200);
	vx_tensor weights = keep(view(allWeights, { 0, 0, 0, 2 }, { 3, 3, 3, 10 }));
	vx_tensor bias = input({ { 8 }, VX_TYPE_INT16, 8 }, -256, 256);
	/* Into channels 2..9 of 12-channel outputs, the rest staying zero. */
	const TensorSpec whole = { { 12, 10, 12 }, VX_TYPE_INT16, 8 };
	vx_tensor dlaWhole = output(whole), cpuWhole = output(whole);
	vx_tensor dlaOut = keep(view(dlaWhole, { 0, 0, 2 }, { 12, 10, 10 }));
	vx_tensor cpuOut = keep(view(cpuWhole, { 0, 0, 2 }, { 12, 10, 10 }));

	const vx_nn_convolution_params_t params = sameSizeConvolution();
	ASSERT_TRUE(runBoth(
		[&](vx_graph g, vx_tensor out) {
			return std::vector<vx_node>{ vxConvolutionLayer(
				g, in, weights, bias, &params, sizeof(params), out) };
		},
		dlaOut, cpuOut));
	EXPECT_TRUE(sameValues(dlaOut, cpuOut));
	EXPECT_TRUE(sameValues(dlaWhole, cpuWhole)) << "channels outside the view changed";
	std::vector<double> values = readValues(dlaWhole);
	EXPECT_EQ(0.0, values.front()) << "channel 0 is outside the view";
	EXPECT_NE(0.0, *std::max_element(values.begin(), values.end()));
}

TEST_F(TensorMemory, EachRunUsesTheHandlesSwappedInSinceThePrevious)
{
	std::vector<int16_t> firstIn = randomWords(12 * 10 * 3),
			     secondIn = randomWords(12 * 10 * 3);
	std::vector<int16_t> firstOut(12 * 10 * 8, 0x7777), secondOut(12 * 10 * 8, 0x7777);
	vx_tensor in = fromHandle({ 12, 10, 3 }, { 2, 24, 240 }, firstIn.data());
	vx_tensor out = fromHandle({ 12, 10, 8 }, { 2, 24, 240 }, firstOut.data());
	vx_tensor weights = input({ { 3, 3, 3, 8 }, VX_TYPE_INT16, 8 }, -200, 200);
	vx_tensor bias = input({ { 8 }, VX_TYPE_INT16, 8 }, -256, 256);
	vx_tensor cpuOut = output({ { 12, 10, 8 }, VX_TYPE_INT16, 8 });
	vx_graph dla = convolutionGraph(in, weights, bias, out, "dla");
	vx_graph cpu = convolutionGraph(in, weights, bias, cpuOut, "cpu");

	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(dla));
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(cpu));
	EXPECT_TRUE(sameValues(out, cpuOut));
	const std::vector<int16_t> firstResult = firstOut;

	void *previous = nullptr;
	ASSERT_EQ(VX_SUCCESS, vxSwapTensorHandle(in, secondIn.data(), &previous));
	EXPECT_EQ(firstIn.data(), previous);
	ASSERT_EQ(VX_SUCCESS, vxSwapTensorHandle(out, secondOut.data(), &previous));
	EXPECT_EQ(firstOut.data(), previous);
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(dla));
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(cpu));
	EXPECT_TRUE(sameValues(out, cpuOut)) << "the second inputs, into the second outputs";
	EXPECT_NE(firstResult, secondOut);
	EXPECT_EQ(firstResult, firstOut) << "memory given back was written after the swap";

	/* Swapped out: the run fails and writes nothing. */
	ASSERT_EQ(VX_SUCCESS, vxSwapTensorHandle(in, nullptr, nullptr));
	const std::vector<int16_t> before = secondOut;
	EXPECT_EQ(VX_ERROR_NO_MEMORY, vxProcessGraph(dla));
	EXPECT_EQ(before, secondOut);

	vxReleaseGraph(&dla);
	vxReleaseGraph(&cpu);
}

TEST_F(TensorMemory, ConvolutionsIntoChannelViewsThenPoolingOfTheWholeMatchesCpu)
{
	/* Two convolutions concatenated along channels, then pooled: the
	 * pooling reads memory that the DLA wrote through packed copies. */
	vx_tensor in = input({ { 12, 10, 3 }, VX_TYPE_INT16, 8 }, -512, 512);
	vx_tensor w1 = input({ { 3, 3, 3, 4 }, VX_TYPE_INT16, 8 }, -200, 200);
	vx_tensor w2 = input({ { 3, 3, 3, 4 }, VX_TYPE_INT16, 8 }, -200, 200);
	/* The reader of the whole is created first: the graph orders it last. */
	using Reader = std::function<vx_node(vx_graph g, vx_tensor whole, vx_tensor out)>;
	auto concatenated = [&](const Reader &reader) {
		return [&, reader](vx_graph g, vx_tensor out) {
			const vx_nn_convolution_params_t params = sameSizeConvolution();
			const vx_size dims[] = { 12, 10, 8 };
			vx_tensor both = vxCreateTensor(context_, 3, dims, VX_TYPE_INT16, 8);
			vx_tensor low = view(both, { 0, 0, 0 }, { 12, 10, 4 });
			vx_tensor high = view(both, { 0, 0, 4 }, { 12, 10, 8 });
			std::vector<vx_node> nodes = {
				reader(g, both, out),
				vxConvolutionLayer(
					g, in, w1, nullptr, &params, sizeof(params), low),
				vxConvolutionLayer(
					g, in, w2, nullptr, &params, sizeof(params), high),
			};
			for (vx_tensor *t : { &both, &low, &high })
				vxReleaseTensor(t);
			return nodes;
		};
	};
	const TensorSpec pooled = { { 6, 5, 8 }, VX_TYPE_INT16, 8 };
	vx_tensor dla = output(pooled), cpu = output(pooled);
	ASSERT_TRUE(runBoth(concatenated([](vx_graph g, vx_tensor whole, vx_tensor out) {
		return vxPoolingLayer(
			g, whole, VX_NN_POOLING_MAX, 2, 2, 0, 0, VX_NN_DS_SIZE_ROUNDING_FLOOR, out);
	}),
		dla, cpu));
	EXPECT_TRUE(sameValues(dla, cpu));

	/* The same with a CPU node reading the whole. */
	const TensorSpec summed = { { 12, 10, 8 }, VX_TYPE_INT16, 8 };
	vx_tensor dlaSum = output(summed), cpuSum = output(summed);
	ASSERT_TRUE(runBoth(concatenated([](vx_graph g, vx_tensor whole, vx_tensor out) {
		return vxTensorAddNode(g, whole, whole, VX_CONVERT_POLICY_SATURATE, out);
	}),
		dlaSum, cpuSum, "any"));
	EXPECT_TRUE(sameValues(dlaSum, cpuSum));
}

/*
 * A view that is one packed block of its root (here a range of channels)
 * is addressed in the root's buffer: the convolutions write the halves of
 * the concatenation and the pooling reads it whole in one task, no copy
 * in between. A view of a range of columns is not one block, but it is
 * addressed in place too, with the root's strides: one task as well.
 */
TEST_F(TensorMemory, ChannelViewsAreAddressedInPlaceInOneTask)
{
	vx_tensor in = input({ { 12, 10, 3 }, VX_TYPE_INT16, 8 }, -512, 512);
	vx_tensor w1 = input({ { 3, 3, 3, 4 }, VX_TYPE_INT16, 8 }, -200, 200);
	vx_tensor w2 = input({ { 3, 3, 3, 4 }, VX_TYPE_INT16, 8 }, -200, 200);
	vx_tensor w8 = input({ { 3, 3, 3, 8 }, VX_TYPE_INT16, 8 }, -200, 200);
	const vx_size dims[] = { 12, 10, 8 };
	vx_tensor both = vxCreateTensor(context_, 3, dims, VX_TYPE_INT16, 8);
	owned_.push_back(reinterpret_cast<vx_reference>(both));
	auto keep = [&](vx_tensor t) {
		owned_.push_back(reinterpret_cast<vx_reference>(t));
		return t;
	};

	/* Channels 0-3 and 4-7 of both from all of in; or columns 0-5 and
	 * 6-11 from the same columns of in. */
	struct Half {
		vx_tensor input, weights, output;
	};
	struct Case {
		const char *name;
		Half halves[2];
		long tasks;
	};
	const Case cases[] = {
		{ "channel views",
			{ { in, w1, keep(view(both, { 0, 0, 0 }, { 12, 10, 4 })) },
				{ in, w2, keep(view(both, { 0, 0, 4 }, { 12, 10, 8 })) } },
			1 },
		{ "column views",
			{ { keep(view(in, { 0, 0, 0 }, { 6, 10, 3 })), w8,
				  keep(view(both, { 0, 0, 0 }, { 6, 10, 8 })) },
				{ keep(view(in, { 6, 0, 0 }, { 12, 10, 3 })), w8,
					keep(view(both, { 6, 0, 0 }, { 12, 10, 8 })) } },
			1 },
	};
	const TensorSpec pooled = { { 6, 5, 8 }, VX_TYPE_INT16, 8 };
	for (const Case &c : cases) {
		SCOPED_TRACE(c.name);
		vx_tensor results[2] = { output(pooled), output(pooled) };
		long tasks = -1;
		for (int pass = 0; pass < 2; pass++) {
			vx_graph g = vxCreateGraph(context_);
			const vx_nn_convolution_params_t params = sameSizeConvolution();
			/* The reader of the whole first: the graph orders it last. */
			vx_node nodes[3] = { vxPoolingLayer(g, both, VX_NN_POOLING_MAX, 2, 2, 0, 0,
				VX_NN_DS_SIZE_ROUNDING_FLOOR, results[pass]) };
			for (int h = 0; h < 2; h++)
				nodes[1 + h] = vxConvolutionLayer(g, c.halves[h].input,
					c.halves[h].weights, nullptr, &params, sizeof(params),
					c.halves[h].output);
			for (vx_node node : nodes)
				ASSERT_EQ(VX_SUCCESS,
					vxSetNodeTarget(
						node, VX_TARGET_STRING, pass == 0 ? "dla" : "cpu"));
			ASSERT_EQ(VX_SUCCESS, vxVerifyGraph(g));
			const long before = jobsCompleted();
			ASSERT_EQ(VX_SUCCESS, vxProcessGraph(g));
			if (pass == 0)
				tasks = jobsCompleted() - before;
			for (vx_node &node : nodes)
				vxReleaseNode(&node);
			vxReleaseGraph(&g);
		}
		EXPECT_EQ(tasks, c.tasks);
		EXPECT_TRUE(sameValues(results[0], results[1]));
	}
}

/*
 * Views of ranges of columns and rows, which no single block holds, used
 * by every kind of DLA layer in one graph, in one task, against the same
 * graph on the CPU, with fusion on and off, for INT8, INT16 and FLOAT32:
 * - two convolutions read column ranges of the input, and write the two
 *   column halves of a concatenation, one through a fused RELU;
 * - a pooling reads the whole concatenation;
 * - a fully connected layer reads a crop of it, whose features no one
 *   stride walks: an SDP copies it packed first;
 * - a softmax reads a column range and writes a row range of a larger
 *   tensor, whose other rows must stay zero.
 */
TEST_F(TensorMemory, StridedViewsAreAddressedInPlaceByEveryLayer)
{
	/* Element sizes 1, 2 and 4 (the strides are in bytes), the integer
	 * and the float path of the SDP's copy. Raw value ranges: inputs,
	 * weights, FC weights, FC biases; FLOAT32 compared within
	 * @tolerance (the DLA sums in another order). */
	struct Type {
		vx_enum type;
		vx_int8 position;
		double in, weights, fcWeights, fcBias, tolerance;
	};
	const Type types[] = {
		{ VX_TYPE_INT16, 8, 512, 200, 100, 256, 0 },
		{ VX_TYPE_INT8, 4, 100, 20, 10, 64, 0 },
		{ VX_TYPE_FLOAT32, 0, 2, 0.5, 0.25, 1, 1e-3 },
	};
	for (const Type &t : types) {
		SCOPED_TRACE(t.type == VX_TYPE_INT16	 ? "INT16"
				: t.type == VX_TYPE_INT8 ? "INT8"
							 : "FLOAT32");
		auto spec = [&](std::vector<vx_size> dims) {
			return TensorSpec{ dims, t.type, t.position };
		};
		vx_tensor in = input(spec({ 12, 10, 4 }), -t.in, t.in);
		vx_tensor w1 = input(spec({ 3, 3, 4, 6 }), -t.weights, t.weights);
		vx_tensor w2 = input(spec({ 3, 3, 4, 6 }), -t.weights, t.weights);
		vx_tensor fcWeights = input(spec({ 4 * 4 * 6, 10 }), -t.fcWeights, t.fcWeights);
		vx_tensor fcBias = input(spec({ 10 }), -t.fcBias, t.fcBias);

		struct Outputs {
			vx_tensor concatenation, pooled, classes, softmax;
		};
		auto outputs = [&]() {
			return Outputs{ output(spec({ 16, 10, 6 })), output(spec({ 8, 5, 6 })),
				output(spec({ 10 })), output(spec({ 4, 20, 6 })) };
		};
		/* Returns the number of DLA tasks the run took. */
		auto run = [&](const Outputs &out, const char *target) {
			vx_graph g = vxCreateGraph(context_);
			const vx_nn_convolution_params_t params = sameSizeConvolution();
			const vx_size reluDims[] = { 8, 10, 6 };
			vx_tensor relu = vxCreateVirtualTensor(g, 3, reluDims, t.type, t.position);
			vx_tensor views[] = {
				view(in, { 2, 0, 0 }, { 10, 10, 4 }),
				view(in, { 4, 0, 0 }, { 12, 10, 4 }),
				view(out.concatenation, { 0, 0, 0 }, { 8, 10, 6 }),
				view(out.concatenation, { 8, 0, 0 }, { 16, 10, 6 }),
				view(out.concatenation, { 4, 2, 0 }, { 8, 6, 6 }),
				view(out.concatenation, { 3, 0, 0 }, { 7, 10, 6 }),
				view(out.softmax, { 0, 5, 0 }, { 4, 15, 6 }),
			};
			/* The readers of the concatenation first: the graph orders them last. */
			vx_node nodes[] = {
				vxPoolingLayer(g, out.concatenation, VX_NN_POOLING_MAX, 2, 2, 0, 0,
					VX_NN_DS_SIZE_ROUNDING_FLOOR, out.pooled),
				vxFullyConnectedLayer(g, views[4], fcWeights, fcBias,
					VX_CONVERT_POLICY_SATURATE, VX_ROUND_POLICY_TO_NEAREST_EVEN,
					out.classes),
				vxSoftmaxLayer(g, views[5], views[6]),
				vxConvolutionLayer(
					g, views[0], w1, nullptr, &params, sizeof(params), relu),
				vxActivationLayer(g, relu, VX_NN_ACTIVATION_RELU, 0, 0, views[2]),
				vxConvolutionLayer(g, views[1], w2, nullptr, &params,
					sizeof(params), views[3]),
			};
			for (vx_node node : nodes)
				EXPECT_EQ(VX_SUCCESS,
					vxSetNodeTarget(node, VX_TARGET_STRING, target));
			EXPECT_EQ(VX_SUCCESS, vxVerifyGraph(g));
			const long before = jobsCompleted();
			EXPECT_EQ(VX_SUCCESS, vxProcessGraph(g));
			const long tasks = jobsCompleted() - before;
			for (vx_node &node : nodes)
				vxReleaseNode(&node);
			for (vx_tensor &v : views)
				vxReleaseTensor(&v);
			vxReleaseTensor(&relu);
			vxReleaseGraph(&g);
			return tasks;
		};

		const Outputs cpu = outputs();
		run(cpu, "cpu");
		for (const char *fusion : { "1", "0" }) {
			SCOPED_TRACE(std::string("VDLA_VX_FUSION=") + fusion);
			ASSERT_EQ(0, setenv("VDLA_VX_FUSION", fusion, 1));
			const Outputs dla = outputs();
			EXPECT_EQ(1, run(dla, "dla"));
			EXPECT_TRUE(sameValues(dla.concatenation, cpu.concatenation, t.tolerance));
			EXPECT_TRUE(sameValues(dla.pooled, cpu.pooled, t.tolerance));
			EXPECT_TRUE(sameValues(dla.classes, cpu.classes, t.tolerance));
			EXPECT_TRUE(sameValues(dla.softmax, cpu.softmax, t.tolerance));
		}
		unsetenv("VDLA_VX_FUSION");

		/* Worth comparing: the softmax wrote its rows and only those. */
		const std::vector<double> soft = readValues(cpu.softmax);
		const size_t row = 4, plane = 4 * 20;
		EXPECT_EQ(0.0, soft[4 * row]) << "row 4 is outside the view";
		EXPECT_EQ(0.0, soft[plane + 15 * row]) << "row 15 is outside the view";
		EXPECT_NE(0.0, *std::max_element(soft.begin(), soft.end()));
	}
}

/*
 * The concatenation built from handles instead of views: two tensors on
 * the halves of one application buffer, written by convolutions, and a
 * third on the whole buffer, pooled. The graph orders the pooling after
 * both (their memory overlaps) and puts it in a later task, as the staged
 * copies of the halves go back to the buffer after theirs.
 */
TEST_F(TensorMemory, OverlappingHandlesAreOrderedOnTheDla)
{
	vx_tensor in = input({ { 12, 10, 3 }, VX_TYPE_INT16, 8 }, -512, 512);
	vx_tensor w1 = input({ { 3, 3, 3, 4 }, VX_TYPE_INT16, 8 }, -200, 200);
	vx_tensor w2 = input({ { 3, 3, 3, 4 }, VX_TYPE_INT16, 8 }, -200, 200);
	const std::vector<vx_size> strides = { 2, 24, 240 };
	std::vector<int16_t> buffers[2]
		= { std::vector<int16_t>(12 * 10 * 8), std::vector<int16_t>(12 * 10 * 8) };
	int pass = 0;
	auto concatenated = [&](vx_graph g, vx_tensor out) {
		int16_t *buffer = buffers[pass++].data();
		vx_tensor whole = fromHandle({ 12, 10, 8 }, strides, buffer);
		vx_tensor low = fromHandle({ 12, 10, 4 }, strides, buffer);
		vx_tensor high = fromHandle({ 12, 10, 4 }, strides, buffer + 12 * 10 * 4);
		const vx_nn_convolution_params_t params = sameSizeConvolution();
		return std::vector<vx_node>{
			vxPoolingLayer(g, whole, VX_NN_POOLING_MAX, 2, 2, 0, 0,
				VX_NN_DS_SIZE_ROUNDING_FLOOR, out),
			vxConvolutionLayer(g, in, w1, nullptr, &params, sizeof(params), low),
			vxConvolutionLayer(g, in, w2, nullptr, &params, sizeof(params), high),
		};
	};
	const TensorSpec pooled = { { 6, 5, 8 }, VX_TYPE_INT16, 8 };
	vx_tensor dla = output(pooled), cpu = output(pooled);
	ASSERT_TRUE(runBoth(concatenated, dla, cpu));
	EXPECT_TRUE(sameValues(dla, cpu));
	EXPECT_EQ(buffers[0], buffers[1]) << "the halves written on the DLA and the CPU differ";

	/* Independently of both paths: the pooling saw the halves written,
	 * its output is the 2x2 maximum of the buffer as it ends up. */
	std::vector<double> expected;
	for (int c = 0; c < 8; c++)
		for (int y = 0; y < 5; y++)
			for (int x = 0; x < 6; x++) {
				int16_t m = INT16_MIN;
				for (int dy = 0; dy < 2; dy++)
					for (int dx = 0; dx < 2; dx++)
						m = std::max(m,
							buffers[0][c * 120 + (2 * y + dy) * 12
								+ 2 * x + dx]);
				expected.push_back(m);
			}
	EXPECT_EQ(readValues(dla), expected);
}

TEST_F(TensorMemory, BiasesWrittenAfterVerificationReachTheDla)
{
	vx_tensor in = input({ { 12, 10, 3 }, VX_TYPE_INT16, 8 }, -512, 512);
	vx_tensor weights = input({ { 3, 3, 3, 8 }, VX_TYPE_INT16, 8 }, -200, 200);
	vx_tensor bias = input({ { 8 }, VX_TYPE_INT16, 8 }, -256, 256);
	const TensorSpec outSpec = { { 12, 10, 8 }, VX_TYPE_INT16, 8 };
	vx_tensor dlaOut = output(outSpec), cpuOut = output(outSpec);
	vx_graph dla = convolutionGraph(in, weights, bias, dlaOut, "dla");
	vx_graph cpu = convolutionGraph(in, weights, bias, cpuOut, "cpu");
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(dla));
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(cpu));
	EXPECT_TRUE(sameValues(dlaOut, cpuOut));
	const std::vector<double> first = readValues(dlaOut);

	std::vector<int16_t> newBias = { 1000, -1000, 500, -500, 250, -250, 125, -125 };
	const vx_size start[] = { 0 }, end[] = { 8 }, stride[] = { 2 };
	ASSERT_EQ(VX_SUCCESS,
		vxCopyTensorPatch(bias, 1, start, end, stride, newBias.data(), VX_WRITE_ONLY,
			VX_MEMORY_TYPE_HOST));
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(dla));
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(cpu));
	EXPECT_TRUE(sameValues(dlaOut, cpuOut)) << "the DLA used the biases of verification";
	EXPECT_NE(first, readValues(dlaOut));

	vxReleaseGraph(&dla);
	vxReleaseGraph(&cpu);
}

TEST_F(TensorMemory, BiasTheDlaCannotHoldFailsEveryRunUntilRewritten)
{
	/* Biases at position -8 move 24 bits left to the product's position
	 * 16: 10 fits in 32 bits there, 32767 does not. */
	vx_tensor in = input({ { 12, 10, 3 }, VX_TYPE_INT16, 8 }, -512, 512);
	vx_tensor weights = input({ { 3, 3, 3, 8 }, VX_TYPE_INT16, 8 }, -200, 200);
	vx_tensor bias = inputFrom({ { 8 }, VX_TYPE_INT16, -8 }, std::vector<double>(8, 10));
	vx_tensor dlaOut = output({ { 12, 10, 8 }, VX_TYPE_INT16, 8 });
	vx_graph dla = convolutionGraph(in, weights, bias, dlaOut, "dla");
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(dla));

	std::vector<int16_t> values(8, 32767);
	const vx_size start[] = { 0 }, end[] = { 8 }, stride[] = { 2 };
	ASSERT_EQ(VX_SUCCESS,
		vxCopyTensorPatch(bias, 1, start, end, stride, values.data(), VX_WRITE_ONLY,
			VX_MEMORY_TYPE_HOST));
	EXPECT_EQ(VX_ERROR_NOT_SUPPORTED, vxProcessGraph(dla));
	EXPECT_EQ(VX_ERROR_NOT_SUPPORTED, vxProcessGraph(dla))
		<< "a second run must not go ahead without DLA tasks";

	std::fill(values.begin(), values.end(), 3);
	ASSERT_EQ(VX_SUCCESS,
		vxCopyTensorPatch(bias, 1, start, end, stride, values.data(), VX_WRITE_ONLY,
			VX_MEMORY_TYPE_HOST));
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(dla));
	vx_tensor cpuOut = output({ { 12, 10, 8 }, VX_TYPE_INT16, 8 });
	vx_graph cpu = convolutionGraph(in, weights, bias, cpuOut, "cpu");
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(cpu));
	EXPECT_TRUE(sameValues(dlaOut, cpuOut));

	vxReleaseGraph(&dla);
	vxReleaseGraph(&cpu);
}

} /* namespace */
