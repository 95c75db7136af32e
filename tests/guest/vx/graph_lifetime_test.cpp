/* SPDX-License-Identifier: MIT */
/*
 * What a graph on the DLA holds and what its node callbacks see: the SRAM
 * and the kernel context of a graph go back when the graph drops to the
 * CPU or is released, also while the application still holds one of its
 * virtual tensors; a node callback reads its node's output even when
 * fusion or SRAM would have kept that output off memory; a context holds
 * more verified DLA graphs than a device file holds kernel contexts.
 */
#include "vx_guest.h"

#include <VX/vx_vdla.h>

#include <algorithm>
#include <cstdlib>

using namespace vx_guest;

namespace {

/* What the last callback read from its node's output. */
std::vector<double> seenByCallback;

/* Records the values of @node's output parameter. */
vx_action VX_CALLBACK recordOutput(vx_node node)
{
	vx_uint32 count = 0;
	vxQueryNode(node, VX_NODE_PARAMETERS, &count, sizeof(count));
	for (vx_uint32 i = 0; i < count; i++) {
		vx_parameter parameter = vxGetParameterByIndex(node, i);
		vx_enum direction = VX_INPUT;
		vx_reference ref = nullptr;
		vxQueryParameter(parameter, VX_PARAMETER_DIRECTION, &direction, sizeof(direction));
		vxQueryParameter(parameter, VX_PARAMETER_REF, &ref, sizeof(ref));
		vxReleaseParameter(&parameter);
		if (direction == VX_OUTPUT && ref) {
			seenByCallback = readValues(reinterpret_cast<vx_tensor>(ref));
			vxReleaseReference(&ref);
			return VX_ACTION_CONTINUE;
		}
		vxReleaseReference(&ref);
	}
	ADD_FAILURE() << "the node has no output parameter";
	return VX_ACTION_ABANDON;
}

class GraphLifetime : public VxTest
{
protected:
	void SetUp() override
	{
		VxTest::SetUp();
		in_ = input({ { 12, 10, 3 }, VX_TYPE_INT16, 8 }, -512, 512);
		wgt1_ = input({ { 3, 3, 3, 8 }, VX_TYPE_INT16, 8 }, -200, 200);
		wgt2_ = input({ { 3, 3, 8, 4 }, VX_TYPE_INT16, 8 }, -200, 200);
		out_ = output({ { 12, 10, 4 }, VX_TYPE_INT16, 8 });
	}

	/*
	 * conv 3x3 -> @mid (virtual 12x10x8 Q7.8) -> @second -> out_, every
	 * node set to @target. @second is a RELU (fused into the convolution)
	 * or a second convolution (@mid then lives in SRAM).
	 */
	enum class Second { Relu, Convolution };
	std::vector<vx_node> build(vx_graph graph, vx_tensor mid, Second second, const char *target)
	{
		const vx_nn_convolution_params_t params = sameSizeConvolution();
		std::vector<vx_node> nodes = {
			vxConvolutionLayer(graph, in_, wgt1_, nullptr, &params, sizeof(params), mid),
		};
		if (second == Second::Relu)
			nodes.push_back(vxActivationLayer(graph, mid, VX_NN_ACTIVATION_RELU, 0, 0,
				relu_ ? relu_ : (relu_ = output({ { 12, 10, 8 }, VX_TYPE_INT16, 8 }))));
		else
			nodes.push_back(vxConvolutionLayer(graph, mid, wgt2_, nullptr, &params,
				sizeof(params), out_));
		for (vx_node node : nodes)
			EXPECT_EQ(VX_SUCCESS, vxSetNodeTarget(node, VX_TARGET_STRING, target));
		return nodes;
	}

	vx_tensor virtualMid(vx_graph graph)
	{
		const vx_size dims[] = { 12, 10, 8 };
		return vxCreateVirtualTensor(graph, 3, dims, VX_TYPE_INT16, 8);
	}

	/* What a callback on the first node reads, the graph on the CPU. */
	std::vector<double> cpuAnswer(Second second)
	{
		vx_graph graph = vxCreateGraph(context_);
		vx_tensor mid = virtualMid(graph);
		std::vector<vx_node> nodes = build(graph, mid, second, "cpu");
		EXPECT_EQ(VX_SUCCESS, vxAssignNodeCallback(nodes[0], recordOutput));
		seenByCallback.clear();
		EXPECT_EQ(VX_SUCCESS, vxProcessGraph(graph));
		for (vx_node &node : nodes)
			vxReleaseNode(&node);
		vxReleaseTensor(&mid);
		vxReleaseGraph(&graph);
		return seenByCallback;
	}

	/*
	 * Records the idle device's SRAM free and kernel contexts, then makes
	 * and runs conv -> @mid -> conv on the DLA: @mid takes a page of SRAM
	 * and the graph a kernel context.
	 */
	void runWithSramIntermediate(vx_graph &graph, vx_tensor &mid, std::vector<vx_node> &nodes)
	{
		idleSram_ = sramFreeWhenIdle();
		ASSERT_GE(idleSram_, 4096u) << "the guest's vDLA has SRAM";
		idleContexts_ = deviceState("contexts");
		ASSERT_GE(idleContexts_, 0);
		graph = vxCreateGraph(context_);
		mid = virtualMid(graph);
		nodes = build(graph, mid, Second::Convolution, "dla");
		ASSERT_EQ(VX_SUCCESS, vxVerifyGraph(graph));
		ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));
		ASSERT_EQ(sramFree(), idleSram_ - 4096) << "the intermediate is not in SRAM";
		ASSERT_EQ(deviceState("contexts"), idleContexts_ + 1);
	}

	vx_tensor in_ = nullptr, wgt1_ = nullptr, wgt2_ = nullptr, out_ = nullptr, relu_ = nullptr;
	uint64_t idleSram_ = 0;
	long idleContexts_ = 0;
};

bool anyNonZero(const std::vector<double> &values)
{
	for (double value : values)
		if (value != 0)
			return true;
	return false;
}

/*
 * A callback on a convolution whose RELU is fused into it reads the
 * convolution's output, which the fused task never writes: the node with a
 * callback is not fused, and the callback sees the CPU's values.
 */
TEST_F(GraphLifetime, ACallbackSeesItsOutputThatFusionWouldSkip)
{
	const std::vector<double> expected = cpuAnswer(Second::Relu);
	ASSERT_TRUE(anyNonZero(expected));

	vx_graph graph = vxCreateGraph(context_);
	vx_tensor mid = virtualMid(graph);
	std::vector<vx_node> nodes = build(graph, mid, Second::Relu, "dla");
	ASSERT_EQ(VX_SUCCESS, vxAssignNodeCallback(nodes[0], recordOutput));
	seenByCallback.clear();
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));
	EXPECT_EQ(seenByCallback, expected);
	vx_bool fused = vx_true_e;
	EXPECT_EQ(VX_SUCCESS, vxQueryNode(nodes[1], VX_NODE_VDLA_FUSED, &fused, sizeof(fused)));
	EXPECT_EQ(fused, vx_false_e) << "the RELU was fused into a node whose callback reads";
	for (vx_node &node : nodes)
		vxReleaseNode(&node);
	vxReleaseTensor(&mid);
	vxReleaseGraph(&graph);
}

/*
 * A callback assigned after verification, to a node whose output the plan
 * put in SRAM (which the CPU cannot read) or fused away: the next run
 * plans again, and the callback sees the CPU's values.
 */
TEST_F(GraphLifetime, ACallbackAssignedAfterVerificationSeesItsOutput)
{
	for (Second second : { Second::Convolution, Second::Relu }) {
		SCOPED_TRACE(second == Second::Relu ? "fused RELU" : "SRAM intermediate");
		const std::vector<double> expected = cpuAnswer(second);
		ASSERT_TRUE(anyNonZero(expected));

		vx_graph graph = vxCreateGraph(context_);
		vx_tensor mid = virtualMid(graph);
		std::vector<vx_node> nodes = build(graph, mid, second, "dla");
		ASSERT_EQ(VX_SUCCESS, vxVerifyGraph(graph));
		ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));
		ASSERT_EQ(VX_SUCCESS, vxAssignNodeCallback(nodes[0], recordOutput));
		seenByCallback.clear();
		ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));
		EXPECT_EQ(seenByCallback, expected);
		for (vx_node &node : nodes)
			vxReleaseNode(&node);
		vxReleaseTensor(&mid);
		vxReleaseGraph(&graph);
	}
}

/* A graph verified on the DLA, then set to the CPU and verified again, holds no SRAM or context. */
TEST_F(GraphLifetime, DroppingToTheCpuGivesBackSramAndTheKernelContext)
{
	vx_graph graph = nullptr;
	vx_tensor mid = nullptr;
	std::vector<vx_node> nodes;
	ASSERT_NO_FATAL_FAILURE(runWithSramIntermediate(graph, mid, nodes));

	for (vx_node node : nodes)
		ASSERT_EQ(VX_SUCCESS, vxSetNodeTarget(node, VX_TARGET_STRING, "cpu"));
	ASSERT_EQ(VX_SUCCESS, vxVerifyGraph(graph));
	EXPECT_EQ(sramFreeOnceJobsRetire(idleSram_), idleSram_) << "the CPU graph still holds SRAM";
	EXPECT_EQ(deviceState("contexts"), idleContexts_) << "the CPU graph still holds a context";
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph)) << "and runs on the CPU";

	for (vx_node &node : nodes)
		vxReleaseNode(&node);
	vxReleaseTensor(&mid);
	vxReleaseGraph(&graph);
}

/*
 * The application releases a graph but keeps a handle to one of its virtual
 * tensors (which keeps the graph object alive): the graph's SRAM and
 * context go back all the same.
 */
TEST_F(GraphLifetime, ReleasingAGraphGivesBackItsDeviceResourcesWhileAVirtualTensorIsHeld)
{
	vx_graph graph = nullptr;
	vx_tensor mid = nullptr;
	std::vector<vx_node> nodes;
	ASSERT_NO_FATAL_FAILURE(runWithSramIntermediate(graph, mid, nodes));
	for (vx_node &node : nodes)
		vxReleaseNode(&node);
	vxReleaseGraph(&graph);

	EXPECT_EQ(sramFreeOnceJobsRetire(idleSram_), idleSram_) << "a released graph still holds SRAM";
	EXPECT_EQ(deviceState("contexts"), idleContexts_) << "a released graph still holds a context";
	vx_size dims[3] = {};
	EXPECT_EQ(VX_SUCCESS, vxQueryTensor(mid, VX_TENSOR_DIMS, dims, sizeof(dims)))
		<< "the tensor handle stays valid";
	EXPECT_EQ(VX_SUCCESS, vxReleaseTensor(&mid));
}

/*
 * One device file holds at most DRM_VDLA_MAX_CONTEXTS (256) kernel
 * contexts; 300 verified DLA graphs of one vx_context all run, the first
 * 64 on a kernel context of their own, the others sharing those.
 */
TEST_F(GraphLifetime, MoreDlaGraphsThanKernelContextsAllRun)
{
	constexpr int kGraphs = 300;
	const long contexts = deviceState("contexts");
	ASSERT_GE(contexts, 0);
	const TensorSpec spec = { { 4, 4, 2 }, VX_TYPE_INT8, 0 };
	vx_tensor in = input(spec, -100, 100);
	std::vector<vx_graph> graphs;
	std::vector<vx_tensor> outs;
	for (int i = 0; i < kGraphs; i++) {
		vx_graph graph = vxCreateGraph(context_);
		vx_tensor out = output(spec);
		vx_node relu = vxActivationLayer(graph, in, VX_NN_ACTIVATION_RELU, 0, 0, out);
		ASSERT_EQ(VX_SUCCESS, vxSetNodeTarget(relu, VX_TARGET_STRING, "dla"));
		vxReleaseNode(&relu);
		ASSERT_EQ(VX_SUCCESS, vxVerifyGraph(graph)) << "graph " << i;
		graphs.push_back(graph);
		outs.push_back(out);
	}
	EXPECT_EQ(deviceState("contexts"), contexts + 64);
	const std::vector<double> inValues = readValues(in);
	for (int i = 0; i < kGraphs; i++) {
		ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graphs[i])) << "graph " << i;
		const std::vector<double> out = readValues(outs[i]);
		for (size_t e = 0; e < out.size(); e++)
			ASSERT_EQ(out[e], std::max(inValues[e], 0.0)) << "graph " << i;
	}
	for (vx_graph &graph : graphs)
		vxReleaseGraph(&graph);
	EXPECT_EQ(deviceState("contexts"), contexts) << "the graphs' kernel contexts went back";
}

} /* namespace */
