/* SPDX-License-Identifier: MIT */
/* Graph structure, execution (synchronous and scheduled), nodes, targets. */
#include "vx_test.h"

#include <chrono>
#include <future>
#include <thread>

using Graph = VxTest;
using Execution = VxTest;
using Node = VxTest;
using GraphParameters = VxTest;

TEST_F(Graph, MissingRequiredParameterIsNotSufficient)
{
	vx_kernel kernel = addCopyKernel(context);
	vx_graph graph = vxCreateGraph(context);
	vx_node node = vxCreateGenericNode(graph, kernel);
	vx_tensor in = makeTensor();
	vxSetParameterByIndex(node, 0, ref(in));
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_NOT_SUFFICIENT);
	vxReleaseTensor(&in);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	vxReleaseKernel(&kernel);
}

TEST_F(Graph, TwoWritersOfOneObjectAreRejected)
{
	vx_kernel kernel = addCopyKernel(context);
	vx_graph graph = vxCreateGraph(context);
	vx_tensor out;
	vx_node first = copyNode(graph, kernel, nullptr, &out);
	vx_node second = copyNode(graph, kernel);
	vxSetParameterByIndex(second, 1, ref(out));
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_MULTIPLE_WRITERS);
	vxReleaseTensor(&out);
	vxReleaseNode(&first);
	vxReleaseNode(&second);
	vxReleaseGraph(&graph);
	vxReleaseKernel(&kernel);
}

TEST_F(Graph, CycleIsInvalidGraph)
{
	vx_kernel kernel = addCopyKernel(context);
	vx_graph graph = vxCreateGraph(context);
	vx_tensor a, b;
	vx_node first = copyNode(graph, kernel, &a, &b);
	vx_node second = vxCreateGenericNode(graph, kernel);
	vxSetParameterByIndex(second, 0, ref(b));
	vxSetParameterByIndex(second, 1, ref(a));
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_GRAPH);
	vxReleaseTensor(&a);
	vxReleaseTensor(&b);
	vxReleaseNode(&first);
	vxReleaseNode(&second);
	vxReleaseGraph(&graph);
	vxReleaseKernel(&kernel);
}

namespace {

std::vector<std::string> verificationLog;

void VX_CALLBACK recordVerification(vx_context, vx_reference, vx_status, const vx_char string[])
{
	verificationLog.push_back(string);
}

/* Whether the log holds the line naming verification @phase as failed. */
bool failedIn(const char *phase)
{
	const std::string line = std::string("graph verification failed in phase \"") + phase + "\"";
	for (const std::string &entry : verificationLog)
		if (entry == line)
			return true;
	return false;
}

} /* namespace */

/* Verification runs as named phases, and the log names the one that failed. */
TEST_F(Graph, VerificationNamesTheFailingPhase)
{
	vxRegisterLogCallback(context, recordVerification, vx_false_e);
	vx_kernel kernel = addCopyKernel(context);

	verificationLog.clear();
	vx_graph missing = vxCreateGraph(context);
	vx_node alone = vxCreateGenericNode(missing, kernel);
	EXPECT_EQ(vxVerifyGraph(missing), VX_ERROR_NOT_SUFFICIENT);
	EXPECT_TRUE(failedIn("parameters"));

	verificationLog.clear();
	vx_graph cycle = vxCreateGraph(context);
	vx_tensor a, b;
	copyNode(cycle, kernel, &a, &b);
	vx_node back = vxCreateGenericNode(cycle, kernel);
	vxSetParameterByIndex(back, 0, ref(b));
	vxSetParameterByIndex(back, 1, ref(a));
	EXPECT_EQ(vxVerifyGraph(cycle), VX_ERROR_INVALID_GRAPH);
	EXPECT_TRUE(failedIn("order"));

	verificationLog.clear();
	probe().validator = [](const vx_reference *, vx_meta_format *) {
		return VX_ERROR_INVALID_FORMAT;
	};
	vx_graph refused = vxCreateGraph(context);
	copyNode(refused, kernel);
	EXPECT_EQ(vxVerifyGraph(refused), VX_ERROR_INVALID_FORMAT);
	EXPECT_TRUE(failedIn("validate"));
	EXPECT_FALSE(failedIn("plan"));

	vxRegisterLogCallback(context, nullptr, vx_false_e);
	vxReleaseNode(&alone);
	vxReleaseNode(&back);
	vxReleaseTensor(&a);
	vxReleaseTensor(&b);
	for (vx_graph graph : { missing, cycle, refused })
		vxReleaseGraph(&graph);
	vxReleaseKernel(&kernel);
}

TEST_F(Graph, QueryReportsNodesAndState)
{
	vx_kernel kernel = addCopyKernel(context);
	vx_graph graph = vxCreateGraph(context);
	vx_node node = copyNode(graph, kernel);
	vx_uint32 nodes = 0;
	vx_enum state = 0;
	vxQueryGraph(graph, VX_GRAPH_NUMNODES, &nodes, sizeof(nodes));
	vxQueryGraph(graph, VX_GRAPH_STATE, &state, sizeof(state));
	EXPECT_EQ(nodes, 1u);
	EXPECT_EQ(state, VX_GRAPH_STATE_UNVERIFIED);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	vxQueryGraph(graph, VX_GRAPH_STATE, &state, sizeof(state));
	EXPECT_EQ(state, VX_GRAPH_STATE_COMPLETED);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	vxReleaseKernel(&kernel);
}

TEST_F(Graph, AddingNodeUnverifiesGraph)
{
	vx_kernel kernel = addCopyKernel(context);
	vx_graph graph = vxCreateGraph(context);
	vx_node first = copyNode(graph, kernel);
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	vx_node second = copyNode(graph, kernel);
	EXPECT_EQ(vxIsGraphVerified(graph), vx_false_e);
	vxReleaseNode(&first);
	vxReleaseNode(&second);
	vxReleaseGraph(&graph);
	vxReleaseKernel(&kernel);
}

TEST_F(Execution, NodesRunInDataOrderNotCreationOrder)
{
	vx_kernel kernel = addCopyKernel(context);
	vx_graph graph = vxCreateGraph(context);
	vx_tensor in = makeTensor(VX_TYPE_UINT8, { 2 }), out = makeTensor(VX_TYPE_UINT8, { 2 });
	vx_tensor middle = vxCreateVirtualTensor(graph, 0, nullptr, VX_TYPE_INVALID, 0);
	vx_node last = vxCreateGenericNode(graph, kernel);
	vx_node first = vxCreateGenericNode(graph, kernel);
	vxSetParameterByIndex(last, 0, ref(middle));
	vxSetParameterByIndex(last, 1, ref(out));
	vxSetParameterByIndex(first, 0, ref(in));
	vxSetParameterByIndex(first, 1, ref(middle));
	vx_uint8 values[] = { 9, 7 }, result[2] = {};
	vx_size start[] = { 0 }, end[] = { 2 }, stride[] = { 1 };
	vxCopyTensorPatch(in, 1, start, end, stride, values, VX_WRITE_ONLY, VX_MEMORY_TYPE_HOST);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	vxCopyTensorPatch(out, 1, start, end, stride, result, VX_READ_ONLY, VX_MEMORY_TYPE_HOST);
	EXPECT_EQ(result[0], 9);
	EXPECT_EQ(result[1], 7);
	for (vx_node *n : { &first, &last })
		vxReleaseNode(n);
	for (vx_tensor *t : { &in, &out, &middle })
		vxReleaseTensor(t);
	vxReleaseGraph(&graph);
	vxReleaseKernel(&kernel);
}

TEST_F(Execution, KernelFailureAbortsGraphAndIsReportedByProcess)
{
	probe().runStatus = VX_ERROR_INVALID_VALUE;
	vx_kernel kernel = addCopyKernel(context);
	vx_graph graph = vxCreateGraph(context);
	vx_node node = copyNode(graph, kernel);
	EXPECT_EQ(vxProcessGraph(graph), VX_ERROR_INVALID_VALUE);
	vx_enum state = 0;
	vx_status status = VX_SUCCESS;
	vxQueryGraph(graph, VX_GRAPH_STATE, &state, sizeof(state));
	vxQueryNode(node, VX_NODE_STATUS, &status, sizeof(status));
	EXPECT_EQ(state, VX_GRAPH_STATE_ABANDONED);
	EXPECT_EQ(status, VX_ERROR_INVALID_VALUE);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	vxReleaseKernel(&kernel);
}

TEST_F(Execution, KernelFailureIsReportedByWaitGraph)
{
	probe().runStatus = VX_FAILURE;
	vx_kernel kernel = addCopyKernel(context);
	vx_graph graph = vxCreateGraph(context);
	vx_node node = copyNode(graph, kernel);
	ASSERT_EQ(vxScheduleGraph(graph), VX_SUCCESS);
	EXPECT_EQ(vxWaitGraph(graph), VX_FAILURE);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	vxReleaseKernel(&kernel);
}

TEST_F(Execution, ScheduleReturnsBeforeTheKernelFinishes)
{
	std::promise<void> release;
	std::shared_future<void> released = release.get_future().share();
	probe().duringRun = [released] { released.wait(); };
	vx_kernel kernel = addCopyKernel(context);
	vx_graph graph = vxCreateGraph(context);
	vx_node node = copyNode(graph, kernel);
	ASSERT_EQ(vxScheduleGraph(graph), VX_SUCCESS);
	/* The kernel is blocked on us: had schedule waited, we would not get here. */
	EXPECT_EQ(vxScheduleGraph(graph), VX_ERROR_GRAPH_SCHEDULED);
	release.set_value();
	EXPECT_EQ(vxWaitGraph(graph), VX_SUCCESS);
	EXPECT_EQ(probe().events.back(), "run");
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	vxReleaseKernel(&kernel);
}

/* A running graph's nodes keep their target, border and graph parameters. */
TEST_F(Execution, ChangesToARunningGraphAreRefused)
{
	std::promise<void> release;
	std::shared_future<void> released = release.get_future().share();
	probe().duringRun = [released] { released.wait(); };
	vx_kernel kernel = addCopyKernel(context);
	vx_graph graph = vxCreateGraph(context);
	vx_node node = copyNode(graph, kernel);
	vx_parameter parameter = vxGetParameterByIndex(node, 0);
	ASSERT_EQ(vxScheduleGraph(graph), VX_SUCCESS);
	EXPECT_EQ(vxSetNodeTarget(node, VX_TARGET_STRING, "cpu"), VX_ERROR_GRAPH_SCHEDULED);
	const vx_border_t border = { VX_BORDER_REPLICATE, {} };
	EXPECT_EQ(vxSetNodeAttribute(node, VX_NODE_BORDER, &border, sizeof(border)),
		VX_ERROR_GRAPH_SCHEDULED);
	EXPECT_EQ(vxAddParameterToGraph(graph, parameter), VX_ERROR_GRAPH_SCHEDULED);
	release.set_value();
	EXPECT_EQ(vxWaitGraph(graph), VX_SUCCESS);
	/* Once it has ended, they are accepted again. */
	EXPECT_EQ(vxSetNodeTarget(node, VX_TARGET_STRING, "cpu"), VX_SUCCESS);
	EXPECT_EQ(vxSetNodeAttribute(node, VX_NODE_BORDER, &border, sizeof(border)), VX_SUCCESS);
	EXPECT_EQ(vxAddParameterToGraph(graph, parameter), VX_SUCCESS);
	vxReleaseParameter(&parameter);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	vxReleaseKernel(&kernel);
}

/*
 * Releasing a graph, or its context, while another thread is in
 * vxProcessGraph with it would free the graph under that thread: it is
 * refused, and both work once the processing has ended.
 */
TEST_F(Execution, ReleasingAGraphBeingProcessedIsRefused)
{
	std::promise<void> release, started;
	std::shared_future<void> released = release.get_future().share();
	probe().duringRun = [released, &started] {
		started.set_value();
		released.wait();
	};
	vx_kernel kernel = addCopyKernel(context);
	vx_graph graph = vxCreateGraph(context);
	vx_node node = copyNode(graph, kernel);
	vx_status processed = VX_FAILURE;
	std::thread processing([&] { processed = vxProcessGraph(graph); });
	started.get_future().wait();

	vx_graph handle = graph;
	EXPECT_EQ(vxReleaseGraph(&handle), VX_ERROR_GRAPH_SCHEDULED);
	EXPECT_EQ(handle, graph) << "the handle stays";
	vx_context contextHandle = context;
	EXPECT_EQ(vxReleaseContext(&contextHandle), VX_ERROR_GRAPH_SCHEDULED);

	release.set_value();
	processing.join();
	EXPECT_EQ(processed, VX_SUCCESS);
	vxReleaseNode(&node);
	EXPECT_EQ(vxReleaseGraph(&graph), VX_SUCCESS);
	vxReleaseKernel(&kernel);
}

/*
 * vxReleaseContext() joins the workers of scheduled graphs without the API
 * lock before it deletes everything. A run that another thread starts in
 * that window, on an idle graph of the context, is refused: it would be
 * deleted under that thread.
 */
TEST_F(Execution, NoRunStartsWhileTheContextIsBeingReleased)
{
	std::promise<void> release, started;
	std::shared_future<void> released = release.get_future().share();
	int runs = 0;
	probe().duringRun = [released, &started, &runs] {
		if (runs++ == 0) {
			started.set_value();
			released.wait();
		}
	};
	vx_kernel kernel = addCopyKernel(context);
	vx_graph scheduled = vxCreateGraph(context), idle = vxCreateGraph(context);
	copyNode(scheduled, kernel);
	copyNode(idle, kernel);
	ASSERT_EQ(vxVerifyGraph(idle), VX_SUCCESS);
	ASSERT_EQ(vxScheduleGraph(scheduled), VX_SUCCESS);
	started.get_future().wait();

	vx_status releasedStatus = VX_FAILURE;
	vx_context handle = context;
	std::thread releasing([&] { releasedStatus = vxReleaseContext(&handle); });
	/* The count drops to 0 before the join, which waits for the kernel. */
	vx_uint32 count = 1;
	for (int i = 0; i < 500 && count != 0; i++) {
		vxQueryReference(ref(context), VX_REFERENCE_COUNT, &count, sizeof(count));
		if (count)
			std::this_thread::sleep_for(std::chrono::milliseconds(10));
	}
	EXPECT_EQ(count, 0u) << "vxReleaseContext did not start";
	EXPECT_EQ(vxProcessGraph(idle), VX_ERROR_INVALID_REFERENCE);
	EXPECT_EQ(vxScheduleGraph(idle), VX_ERROR_INVALID_REFERENCE);

	release.set_value();
	releasing.join();
	EXPECT_EQ(releasedStatus, VX_SUCCESS);
	EXPECT_EQ(runs, 1) << "a run started on a context being released";
	context = nullptr;
}

TEST_F(Execution, RebindingToAnotherObjectOfTheSameMetaDataReordersTheGraph)
{
	vx_kernel kernel = addCopyKernel(context);
	vx_graph graph = vxCreateGraph(context);
	vx_tensor in, out, source, middle;
	vx_node reader = copyNode(graph, kernel, &in, &out);
	vx_node writer = copyNode(graph, kernel, &source, &middle);
	const vx_size start[] = { 0, 0 }, end[] = { 4, 2 }, stride[] = { 4, 16 };
	auto fill = [&](vx_tensor tensor, float value) {
		std::vector<float> values(8, value);
		ASSERT_EQ(vxCopyTensorPatch(tensor, 2, start, end, stride, values.data(),
				  VX_WRITE_ONLY, VX_MEMORY_TYPE_HOST),
			VX_SUCCESS);
	};
	auto first = [&](vx_tensor tensor) {
		std::vector<float> values(8);
		vxCopyTensorPatch(tensor, 2, start, end, stride, values.data(), VX_READ_ONLY,
			VX_MEMORY_TYPE_HOST);
		return values[0];
	};
	fill(source, 1);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);

	/* The reader, added first, now reads what the writer writes: same
	 * meta data, so the graph stays verified, but the writer runs first. */
	ASSERT_EQ(vxSetParameterByIndex(reader, 0, ref(middle)), VX_SUCCESS);
	EXPECT_EQ(vxIsGraphVerified(graph), vx_true_e);
	fill(source, 2);
	probe().events.clear();
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(first(out), 2.0f) << "the reader ran before the writer";
	EXPECT_EQ(probe().events, (std::vector<std::string>{ "run", "run" }));

	for (vx_tensor *tensor : { &in, &out, &source, &middle })
		vxReleaseTensor(tensor);
	vxReleaseNode(&reader);
	vxReleaseNode(&writer);
	vxReleaseGraph(&graph);
	vxReleaseKernel(&kernel);
}

TEST_F(Execution, WaitWithoutScheduleFails)
{
	vx_graph graph = vxCreateGraph(context);
	EXPECT_EQ(vxWaitGraph(graph), VX_FAILURE);
	vxReleaseGraph(&graph);
}

namespace {
int completions;
vx_action VX_CALLBACK abandon(vx_node)
{
	completions++;
	return VX_ACTION_ABANDON;
}
} /* namespace */

TEST_F(Execution, NodeCallbackCanAbandonGraph)
{
	completions = 0;
	vx_kernel kernel = addCopyKernel(context);
	vx_graph graph = vxCreateGraph(context);
	vx_node node = copyNode(graph, kernel);
	ASSERT_EQ(vxAssignNodeCallback(node, abandon), VX_SUCCESS);
	EXPECT_EQ(vxRetrieveNodeCallback(node), abandon);
	EXPECT_EQ(vxProcessGraph(graph), VX_ERROR_GRAPH_ABANDONED);
	EXPECT_EQ(completions, 1);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	vxReleaseKernel(&kernel);
}

struct AddCase {
	vx_enum type;
	vx_enum policy;
	double a, b, expected;
};

class BuiltinTensorAdd : public VxTest, public ::testing::WithParamInterface<AddCase>
{
};

template <typename T> void fill(vx_tensor tensor, double value)
{
	T data[2] = { static_cast<T>(value), static_cast<T>(value) };
	vx_size start[] = { 0 }, end[] = { 2 }, stride[] = { sizeof(T) };
	vxCopyTensorPatch(tensor, 1, start, end, stride, data, VX_WRITE_ONLY, VX_MEMORY_TYPE_HOST);
}

template <typename T> double first(vx_tensor tensor)
{
	T data[2] = {};
	vx_size start[] = { 0 }, end[] = { 2 }, stride[] = { sizeof(T) };
	vxCopyTensorPatch(tensor, 1, start, end, stride, data, VX_READ_ONLY, VX_MEMORY_TYPE_HOST);
	return data[1];
}

template <typename T>
double addWith(
	VxTest &, vx_context context, vx_tensor a, vx_tensor b, vx_tensor out, const AddCase &c)
{
	fill<T>(a, c.a);
	fill<T>(b, c.b);
	vx_graph graph = vxCreateGraph(context);
	vx_node node = vxTensorAddNode(graph, a, b, c.policy, out);
	EXPECT_EQ(vxGetStatus(ref(node)), VX_SUCCESS);
	EXPECT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	return first<T>(out);
}

TEST_P(BuiltinTensorAdd, Computes)
{
	const AddCase &c = GetParam();
	vx_tensor a = makeTensor(c.type, { 2 }), b = makeTensor(c.type, { 2 });
	vx_tensor out = makeTensor(c.type, { 2 });
	double result = 0;
	switch (c.type) {
	case VX_TYPE_INT8:
		result = addWith<vx_int8>(*this, context, a, b, out, c);
		break;
	case VX_TYPE_UINT8:
		result = addWith<vx_uint8>(*this, context, a, b, out, c);
		break;
	case VX_TYPE_INT16:
		result = addWith<vx_int16>(*this, context, a, b, out, c);
		break;
	default:
		result = addWith<vx_float32>(*this, context, a, b, out, c);
	}
	EXPECT_EQ(result, c.expected);
	for (vx_tensor *t : { &a, &b, &out })
		vxReleaseTensor(t);
}

INSTANTIATE_TEST_SUITE_P(Execution, BuiltinTensorAdd,
	::testing::Values(AddCase{ VX_TYPE_INT8, VX_CONVERT_POLICY_SATURATE, 100, 100, 127 },
		AddCase{ VX_TYPE_INT8, VX_CONVERT_POLICY_WRAP, 100, 100, -56 },
		AddCase{ VX_TYPE_UINT8, VX_CONVERT_POLICY_SATURATE, 200, 100, 255 },
		AddCase{ VX_TYPE_INT16, VX_CONVERT_POLICY_SATURATE, -30000, -30000, -32768 },
		AddCase{ VX_TYPE_FLOAT32, VX_CONVERT_POLICY_WRAP, 1.25, 2.5, 3.75 }));

TEST_F(Execution, BuiltinTensorAddRejectsMismatchedInputs)
{
	vx_tensor a = makeTensor(VX_TYPE_INT8, { 2 }), b = makeTensor(VX_TYPE_INT8, { 3 });
	vx_tensor out = makeTensor(VX_TYPE_INT8, { 2 });
	vx_graph graph = vxCreateGraph(context);
	vx_node node = vxTensorAddNode(graph, a, b, VX_CONVERT_POLICY_WRAP, out);
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_DIMENSION);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	for (vx_tensor *t : { &a, &b, &out })
		vxReleaseTensor(t);
}

TEST_F(Node, WrongParameterTypeIsInvalidType)
{
	vx_kernel kernel = addCopyKernel(context);
	vx_graph graph = vxCreateGraph(context);
	vx_node node = vxCreateGenericNode(graph, kernel);
	vx_int32 value = 0;
	vx_scalar scalar = vxCreateScalar(context, VX_TYPE_INT32, &value);
	EXPECT_EQ(vxSetParameterByIndex(node, 0, ref(scalar)), VX_ERROR_INVALID_TYPE);
	EXPECT_EQ(vxSetParameterByIndex(node, 3, ref(scalar)), VX_ERROR_INVALID_PARAMETERS);
	vxReleaseScalar(&scalar);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	vxReleaseKernel(&kernel);
}

TEST_F(Node, ParameterQueryReportsKernelSignatureAndReference)
{
	vx_kernel kernel = addCopyKernel(context);
	vx_graph graph = vxCreateGraph(context);
	vx_tensor out;
	vx_node node = copyNode(graph, kernel, nullptr, &out);
	vx_parameter parameter = vxGetParameterByIndex(node, 1);
	vx_enum direction = 0, type = 0, state = 0;
	vx_reference bound = nullptr;
	vxQueryParameter(parameter, VX_PARAMETER_DIRECTION, &direction, sizeof(direction));
	vxQueryParameter(parameter, VX_PARAMETER_TYPE, &type, sizeof(type));
	vxQueryParameter(parameter, VX_PARAMETER_STATE, &state, sizeof(state));
	vxQueryParameter(parameter, VX_PARAMETER_REF, &bound, sizeof(bound));
	EXPECT_EQ(direction, VX_OUTPUT);
	EXPECT_EQ(type, VX_TYPE_TENSOR);
	EXPECT_EQ(state, VX_PARAMETER_STATE_REQUIRED);
	EXPECT_EQ(bound, ref(out));
	vxReleaseReference(&bound);
	vxReleaseParameter(&parameter);
	vxReleaseTensor(&out);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	vxReleaseKernel(&kernel);
}

TEST_F(Node, ParameterMetaFormatDescribesTheBoundObject)
{
	vx_kernel kernel = addCopyKernel(context);
	vx_graph graph = vxCreateGraph(context);
	vx_tensor out;
	vx_node node = copyNode(graph, kernel, nullptr, &out);
	const vx_uint32 before = references();

	/* A node's parameter: the meta data of the tensor bound to it. */
	vx_parameter parameter = vxGetParameterByIndex(node, 1);
	vx_meta_format meta = nullptr;
	ASSERT_EQ(vxQueryParameter(parameter, VX_PARAMETER_META_FORMAT, &meta, sizeof(meta)),
		VX_SUCCESS);
	ASSERT_EQ(vxGetStatus(ref(meta)), VX_SUCCESS);
	vx_size rank = 0, dims[6] = {};
	vx_enum type = VX_TYPE_INVALID;
	vx_size expectedRank = 0, expectedDims[6] = {};
	vxQueryTensor(out, VX_TENSOR_NUMBER_OF_DIMS, &expectedRank, sizeof(expectedRank));
	vxQueryTensor(out, VX_TENSOR_DIMS, expectedDims, expectedRank * sizeof(vx_size));
	ASSERT_EQ(vxQueryMetaFormatAttribute(meta, VX_TENSOR_NUMBER_OF_DIMS, &rank, sizeof(rank)),
		VX_SUCCESS);
	ASSERT_EQ(rank, expectedRank);
	vxQueryMetaFormatAttribute(meta, VX_TENSOR_DIMS, dims, rank * sizeof(vx_size));
	vxQueryMetaFormatAttribute(meta, VX_TENSOR_DATA_TYPE, &type, sizeof(type));
	EXPECT_EQ(std::vector<vx_size>(dims, dims + rank),
		std::vector<vx_size>(expectedDims, expectedDims + rank));
	EXPECT_EQ(type, VX_TYPE_FLOAT32);
	EXPECT_EQ(vxQueryParameter(parameter, VX_PARAMETER_META_FORMAT, &meta, 1),
		VX_ERROR_INVALID_PARAMETERS);

	/* The caller owns the meta format: releasing it leaves no object behind. */
	vxReleaseReference(reinterpret_cast<vx_reference *>(&meta));
	vxReleaseParameter(&parameter);
	EXPECT_EQ(references(), before);

	vxReleaseTensor(&out);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	vxReleaseKernel(&kernel);
}

TEST_F(Node, QueryReportsParameterCount)
{
	vx_kernel kernel = addCopyKernel(context);
	vx_graph graph = vxCreateGraph(context);
	vx_node node = vxCreateGenericNode(graph, kernel);
	vx_uint32 count = 0;
	ASSERT_EQ(vxQueryNode(node, VX_NODE_PARAMETERS, &count, sizeof(count)), VX_SUCCESS);
	EXPECT_EQ(count, 3u);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	vxReleaseKernel(&kernel);
}

struct TargetCase {
	vx_enum target;
	const char *name;
	vx_status expected;
};

class NodeTarget : public VxTest, public ::testing::WithParamInterface<TargetCase>
{
};

TEST_P(NodeTarget, IsAcceptedOnlyForTheHost)
{
	vx_kernel kernel = addCopyKernel(context);
	vx_graph graph = vxCreateGraph(context);
	vx_node node = vxCreateGenericNode(graph, kernel);
	EXPECT_EQ(vxSetNodeTarget(node, GetParam().target, GetParam().name), GetParam().expected);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	vxReleaseKernel(&kernel);
}

INSTANTIATE_TEST_SUITE_P(Node, NodeTarget,
	::testing::Values(TargetCase{ VX_TARGET_ANY, nullptr, VX_SUCCESS },
		TargetCase{ VX_TARGET_STRING, "cpu", VX_SUCCESS },
		TargetCase{ VX_TARGET_STRING, "CPU", VX_SUCCESS },
		TargetCase{ VX_TARGET_STRING, "any", VX_SUCCESS },
		TargetCase{ VX_TARGET_STRING, "dla", VX_ERROR_NOT_SUPPORTED },
		TargetCase{ VX_TARGET_STRING, "gpu", VX_ERROR_NOT_SUPPORTED },
		TargetCase{ VX_TARGET_VENDOR_BEGIN, nullptr, VX_ERROR_NOT_SUPPORTED }));

TEST_F(GraphParameters, SetByIndexRebindsTheNodeParameter)
{
	vx_kernel kernel = addCopyKernel(context);
	vx_graph graph = vxCreateGraph(context);
	vx_node node = copyNode(graph, kernel);
	vx_parameter input = vxGetParameterByIndex(node, 0);
	ASSERT_EQ(vxAddParameterToGraph(graph, input), VX_SUCCESS);
	vx_uint32 count = 0;
	vxQueryGraph(graph, VX_GRAPH_NUMPARAMETERS, &count, sizeof(count));
	EXPECT_EQ(count, 1u);

	vx_tensor replacement = makeTensor();
	ASSERT_EQ(vxSetGraphParameterByIndex(graph, 0, ref(replacement)), VX_SUCCESS);
	vx_reference bound = nullptr;
	vxQueryParameter(input, VX_PARAMETER_REF, &bound, sizeof(bound));
	EXPECT_EQ(bound, ref(replacement));
	EXPECT_EQ(vxSetGraphParameterByIndex(graph, 1, ref(replacement)), VX_ERROR_INVALID_VALUE);
	vxReleaseReference(&bound);
	vxReleaseTensor(&replacement);
	vxReleaseParameter(&input);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	vxReleaseKernel(&kernel);
}

TEST_F(Graph, AttributesAreReadOnly)
{
	vx_graph graph = vxCreateGraph(context);
	vx_uint32 count = 5;
	EXPECT_EQ(vxSetGraphAttribute(graph, VX_GRAPH_NUMNODES, &count, sizeof(count)),
		VX_ERROR_NOT_SUPPORTED);
	ASSERT_EQ(vxQueryGraph(graph, VX_GRAPH_NUMNODES, &count, sizeof(count)), VX_SUCCESS);
	EXPECT_EQ(count, 0u);
	EXPECT_EQ(vxSetGraphAttribute(nullptr, VX_GRAPH_NUMNODES, &count, sizeof(count)),
		VX_ERROR_INVALID_REFERENCE);
	vxReleaseGraph(&graph);
}

namespace {

/* "vdla.test.scalar_source" writes 42 to its output scalar;
 * "vdla.test.scalar_sink" records what its input scalar holds. */
std::vector<vx_uint32> &sunk()
{
	static std::vector<vx_uint32> values;
	return values;
}

vx_status VX_CALLBACK runSource(vx_node, const vx_reference *parameters, vx_uint32)
{
	vx_uint32 value = 42;
	return vxCopyScalar(reinterpret_cast<vx_scalar>(parameters[0]), &value, VX_WRITE_ONLY,
		VX_MEMORY_TYPE_HOST);
}

vx_status VX_CALLBACK runSink(vx_node, const vx_reference *parameters, vx_uint32)
{
	vx_uint32 value = 0;
	vx_status status = vxCopyScalar(reinterpret_cast<vx_scalar>(parameters[0]), &value,
		VX_READ_ONLY, VX_MEMORY_TYPE_HOST);
	sunk().push_back(value);
	return status;
}

/* The output is a UINT32; an input has no meta format to set. */
vx_status VX_CALLBACK validateScalars(
	vx_node node, const vx_reference *, vx_uint32, vx_meta_format metas[])
{
	vx_enum direction = VX_INPUT;
	vx_parameter parameter = vxGetParameterByIndex(node, 0);
	vxQueryParameter(parameter, VX_PARAMETER_DIRECTION, &direction, sizeof(direction));
	vxReleaseParameter(&parameter);
	if (direction == VX_INPUT)
		return VX_SUCCESS;
	vx_enum type = VX_TYPE_UINT32;
	return vxSetMetaFormatAttribute(metas[0], VX_SCALAR_TYPE, &type, sizeof(type));
}

vx_kernel scalarKernel(
	vx_context context, const char *name, vx_enum id, vx_kernel_f run, vx_enum direction)
{
	vx_kernel kernel = vxAddUserKernel(context, name, VX_KERNEL_BASE(VX_ID_USER, 0) + id, run,
		1, validateScalars, nullptr, nullptr);
	EXPECT_EQ(vxGetStatus(ref(kernel)), VX_SUCCESS);
	vxAddParameterToKernel(kernel, 0, direction, VX_TYPE_SCALAR, VX_PARAMETER_STATE_REQUIRED);
	EXPECT_EQ(vxFinalizeKernel(kernel), VX_SUCCESS);
	return kernel;
}

} /* namespace */

TEST_F(Node, ParameterMetaFormatOfAnElementTypeParameterDescribesAScalar)
{
	/* A scalar parameter may be declared by its element type. */
	vx_kernel kernel = vxAddUserKernel(context, "vdla.test.int_parameter",
		VX_KERNEL_BASE(VX_ID_USER, 0) + 40, runSink, 1, validateScalars, nullptr, nullptr);
	ASSERT_EQ(vxAddParameterToKernel(
			  kernel, 0, VX_INPUT, VX_TYPE_UINT32, VX_PARAMETER_STATE_REQUIRED),
		VX_SUCCESS);
	ASSERT_EQ(vxFinalizeKernel(kernel), VX_SUCCESS);
	vx_parameter parameter = vxGetKernelParameterByIndex(kernel, 0);
	vx_meta_format meta = nullptr;
	ASSERT_EQ(vxQueryParameter(parameter, VX_PARAMETER_META_FORMAT, &meta, sizeof(meta)),
		VX_SUCCESS);
	vx_enum type = VX_TYPE_UINT32;
	EXPECT_EQ(
		vxQueryMetaFormatAttribute(meta, VX_SCALAR_TYPE, &type, sizeof(type)), VX_SUCCESS);
	EXPECT_EQ(type, VX_TYPE_INVALID) << "unbound: nothing described yet";
	vxReleaseReference(reinterpret_cast<vx_reference *>(&meta));
	vxReleaseParameter(&parameter);
	EXPECT_EQ(vxRemoveKernel(kernel), VX_SUCCESS);
}

TEST_F(Execution, VirtualScalarCarriesAValueFromProducerToConsumer)
{
	sunk().clear();
	vx_kernel source
		= scalarKernel(context, "vdla.test.scalar_source", 20, runSource, VX_OUTPUT);
	vx_kernel sink = scalarKernel(context, "vdla.test.scalar_sink", 21, runSink, VX_INPUT);
	vx_graph graph = vxCreateGraph(context);
	vx_scalar link = vxCreateVirtualScalar(graph, VX_TYPE_UINT32);

	/* The consumer first: the data, not creation, orders them. */
	vx_node consumer = vxCreateGenericNode(graph, sink);
	vx_node producer = vxCreateGenericNode(graph, source);
	ASSERT_EQ(vxSetParameterByIndex(consumer, 0, ref(link)), VX_SUCCESS);
	ASSERT_EQ(vxSetParameterByIndex(producer, 0, ref(link)), VX_SUCCESS);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	ASSERT_EQ(sunk(), std::vector<vx_uint32>{ 42 });

	/* A virtual scalar of another graph is out of scope. */
	vx_graph other = vxCreateGraph(context);
	vx_scalar foreign = vxCreateVirtualScalar(other, VX_TYPE_UINT32);
	ASSERT_EQ(vxSetParameterByIndex(consumer, 0, ref(foreign)), VX_SUCCESS);
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_SCOPE);

	vxReleaseScalar(&foreign);
	vxReleaseGraph(&other);
	vxReleaseNode(&consumer);
	vxReleaseNode(&producer);
	vxReleaseScalar(&link);
	vxReleaseGraph(&graph);
	vxReleaseKernel(&sink);
	vxReleaseKernel(&source);
}
