/* SPDX-License-Identifier: MIT */
/*
 * Object arrays and node replication (vxReplicateNode) on the CPU target:
 * the items an array makes, what holds them, the rules of the 1.3.1
 * specification for replication (its return codes), and that a replicated
 * node computes every item, checked against values worked out here.
 */
#include "vx_test.h"

#include <VX/vx_khr_nn.h>

#include <algorithm>
#include <cstring>

namespace {

using Values = std::vector<vx_int16>;

template <typename T> T queryArray(vx_object_array array, vx_enum attribute)
{
	T value = {};
	EXPECT_EQ(vxQueryObjectArray(array, attribute, &value, sizeof(value)), VX_SUCCESS);
	return value;
}

vx_tensor tensorItem(vx_object_array array, vx_uint32 index)
{
	return reinterpret_cast<vx_tensor>(vxGetObjectArrayItem(array, index));
}

void writeTensor(vx_tensor tensor, const Values &values)
{
	const vx_size start[2] = { 0, 0 }, end[2] = { values.size(), 1 };
	const vx_size strides[2] = { sizeof(vx_int16), values.size() * sizeof(vx_int16) };
	ASSERT_EQ(vxCopyTensorPatch(tensor, 2, start, end, strides, const_cast<vx_int16 *>(values.data()),
			  VX_WRITE_ONLY, VX_MEMORY_TYPE_HOST),
		VX_SUCCESS);
}

Values readTensor(vx_tensor tensor, vx_size count)
{
	Values values(count);
	const vx_size start[2] = { 0, 0 }, end[2] = { count, 1 };
	const vx_size strides[2] = { sizeof(vx_int16), count * sizeof(vx_int16) };
	EXPECT_EQ(vxCopyTensorPatch(tensor, 2, start, end, strides, values.data(), VX_READ_ONLY,
			  VX_MEMORY_TYPE_HOST),
		VX_SUCCESS);
	return values;
}

class ReplicateTest : public VxTest
{
protected:
	static constexpr vx_size kItems = 3;
	static constexpr vx_size kValues = 4;

	/* An array of kItems INT16 Q7.8 tensors of 4 x 1. */
	vx_object_array makeArray(vx_size items = kItems)
	{
		vx_tensor exemplar = makeTensor(VX_TYPE_INT16, { kValues, 1 }, 8);
		vx_object_array array = vxCreateObjectArray(context, ref(exemplar), items);
		EXPECT_EQ(vxGetStatus(ref(array)), VX_SUCCESS);
		vxReleaseTensor(&exemplar);
		return array;
	}

	/* A ReLU layer from item 0 of @in to item 0 of @out. */
	vx_node reluNode(vx_graph graph, vx_object_array in, vx_object_array out)
	{
		vx_tensor first = tensorItem(in, 0), result = tensorItem(out, 0);
		vx_node node = vxActivationLayer(graph, first, VX_NN_ACTIVATION_RELU, 0, 0, result);
		EXPECT_EQ(vxGetStatus(ref(node)), VX_SUCCESS);
		vxReleaseTensor(&first);
		vxReleaseTensor(&result);
		return node;
	}

	/* Item k of the inputs: negative and positive values, distinct per item. */
	static Values input(vx_size k)
	{
		const vx_int16 base = vx_int16(256 * (k + 1));
		return { vx_int16(-base), base, vx_int16(base + 1), vx_int16(-1) };
	}

	static Values relu(const Values &values)
	{
		Values out;
		for (vx_int16 v : values)
			out.push_back(v > 0 ? v : 0);
		return out;
	}

	void fill(vx_object_array array)
	{
		for (vx_uint32 k = 0; k < kItems; k++) {
			vx_tensor item = tensorItem(array, k);
			writeTensor(item, input(k));
			vxReleaseTensor(&item);
		}
	}

	void expectRelu(vx_object_array out)
	{
		for (vx_uint32 k = 0; k < kItems; k++) {
			vx_tensor item = tensorItem(out, k);
			EXPECT_EQ(readTensor(item, kValues), relu(input(k))) << "item " << k;
			vxReleaseTensor(&item);
		}
	}

	vx_bool yes = vx_true_e, no = vx_false_e;
	/* Activation layer: input, function, a, b, output. */
	vx_bool reluFlags[5] = { yes, no, no, no, yes };
};

TEST_F(ReplicateTest, AnArrayMakesItemsWithTheExemplarsMetaData)
{
	vx_object_array array = makeArray();
	EXPECT_EQ(queryArray<vx_size>(array, VX_OBJECT_ARRAY_NUMITEMS), kItems);
	EXPECT_EQ(queryArray<vx_enum>(array, VX_OBJECT_ARRAY_ITEMTYPE), VX_TYPE_TENSOR);
	vx_tensor first = tensorItem(array, 0);
	for (vx_uint32 k = 0; k < kItems; k++) {
		vx_tensor item = tensorItem(array, k);
		vx_size rank = 0, dims[6] = {};
		vx_enum type = VX_TYPE_INVALID;
		vx_int8 position = 0;
		vxQueryTensor(item, VX_TENSOR_NUMBER_OF_DIMS, &rank, sizeof(rank));
		vxQueryTensor(item, VX_TENSOR_DIMS, dims, rank * sizeof(vx_size));
		vxQueryTensor(item, VX_TENSOR_DATA_TYPE, &type, sizeof(type));
		vxQueryTensor(item, VX_TENSOR_FIXED_POINT_POSITION, &position, sizeof(position));
		EXPECT_EQ(std::vector<vx_size>(dims, dims + rank), (std::vector<vx_size>{ kValues, 1 }));
		EXPECT_EQ(type, VX_TYPE_INT16);
		EXPECT_EQ(position, 8);
		EXPECT_EQ(item == first, k == 0) << "each item is an object of its own";
		vxReleaseTensor(&item);
	}
	vxReleaseTensor(&first);

	/* Images, scalars and LUTs as well. */
	vx_image image = makeImage(context, 16, 8, VX_DF_IMAGE_U8);
	vx_object_array images = vxCreateObjectArray(context, ref(image), 2);
	ASSERT_EQ(vxGetStatus(ref(images)), VX_SUCCESS);
	vx_image second = reinterpret_cast<vx_image>(vxGetObjectArrayItem(images, 1));
	EXPECT_EQ(query<vx_uint32>(second, VX_IMAGE_WIDTH), 16u);
	EXPECT_EQ(query<vx_df_image>(second, VX_IMAGE_FORMAT), vx_df_image(VX_DF_IMAGE_U8));
	vxReleaseImage(&second);
	vxReleaseImage(&image);
	vxReleaseObjectArray(&images);
	vxReleaseObjectArray(&array);
}

TEST_F(ReplicateTest, AnArrayHoldsItsItemsAndAnItemOutlivesItsArray)
{
	const vx_uint32 before = references();
	vx_object_array array = makeArray();
	vx_tensor item = tensorItem(array, 2);
	ASSERT_EQ(vxReleaseObjectArray(&array), VX_SUCCESS);
	EXPECT_EQ(array, nullptr);
	/* The handle taken keeps its item, usable alone. */
	writeTensor(item, input(0));
	EXPECT_EQ(readTensor(item, kValues), input(0));
	vxReleaseTensor(&item);
	EXPECT_EQ(references(), before) << "the array and its items are gone";
}

TEST_F(ReplicateTest, ArraysRefuseBadArguments)
{
	vx_tensor exemplar = makeTensor(VX_TYPE_INT16, { kValues, 1 }, 8);
	const vx_uint32 before = references();
	auto statusOf = [](vx_object_array array) {
		vx_status status = vxGetStatus(ref(array));
		vxReleaseObjectArray(&array);
		return status;
	};
	EXPECT_EQ(statusOf(vxCreateObjectArray(context, ref(exemplar), 0)),
		VX_ERROR_INVALID_PARAMETERS);
	EXPECT_EQ(statusOf(vxCreateObjectArray(context, ref(exemplar), vx_size(1) << 40)),
		VX_ERROR_INVALID_PARAMETERS);
	EXPECT_EQ(statusOf(vxCreateObjectArray(context, nullptr, 2)), VX_ERROR_INVALID_REFERENCE);
	vx_graph graph = vxCreateGraph(context);
	EXPECT_EQ(statusOf(vxCreateObjectArray(context, ref(graph), 2)), VX_ERROR_INVALID_TYPE);
	/* A virtual tensor left open makes items only for a virtual array. */
	vx_tensor open = vxCreateVirtualTensor(graph, 0, nullptr, VX_TYPE_INVALID, 0);
	EXPECT_EQ(statusOf(vxCreateObjectArray(context, ref(open), 2)),
		VX_ERROR_INVALID_PARAMETERS);
	vx_object_array virtualArray = vxCreateVirtualObjectArray(graph, ref(open), 2);
	EXPECT_EQ(vxGetStatus(ref(virtualArray)), VX_SUCCESS);

	vx_object_array array = vxCreateObjectArray(context, ref(exemplar), 2);
	vx_reference beyond = vxGetObjectArrayItem(array, 2);
	EXPECT_EQ(vxGetStatus(beyond), VX_ERROR_INVALID_PARAMETERS);
	vx_size items = 0;
	EXPECT_EQ(vxQueryObjectArray(array, VX_OBJECT_ARRAY_NUMITEMS, &items, 1),
		VX_ERROR_INVALID_PARAMETERS);
	EXPECT_EQ(vxQueryObjectArray(nullptr, VX_OBJECT_ARRAY_NUMITEMS, &items, sizeof(items)),
		VX_ERROR_INVALID_REFERENCE);
	vxReleaseObjectArray(&array);
	vxReleaseObjectArray(&virtualArray);
	vxReleaseTensor(&open);
	vxReleaseGraph(&graph);
	vxReleaseReference(&beyond);
	EXPECT_EQ(references(), before) << "refused arrays leave nothing behind";
	vxReleaseTensor(&exemplar);
}

TEST_F(ReplicateTest, AReplicatedLayerComputesEveryItem)
{
	vx_object_array in = makeArray(), out = makeArray();
	fill(in);
	vx_graph graph = vxCreateGraph(context);
	vx_node node = reluNode(graph, in, out);
	ASSERT_EQ(vxReplicateNode(graph, node, reluFlags, 5), VX_SUCCESS);

	vx_bool replicated = vx_false_e, flags[5] = {};
	EXPECT_EQ(vxQueryNode(node, VX_NODE_IS_REPLICATED, &replicated, sizeof(replicated)),
		VX_SUCCESS);
	EXPECT_EQ(replicated, vx_true_e);
	EXPECT_EQ(vxQueryNode(node, VX_NODE_REPLICATE_FLAGS, flags, sizeof(flags)), VX_SUCCESS);
	EXPECT_EQ(std::vector<vx_bool>(flags, flags + 5),
		std::vector<vx_bool>(reluFlags, reluFlags + 5));

	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	expectRelu(out);
	/* The replicas are the implementation's own. */
	vx_uint32 nodes = 0;
	vxQueryGraph(graph, VX_GRAPH_NUMNODES, &nodes, sizeof(nodes));
	EXPECT_EQ(nodes, 1u);

	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	vxReleaseObjectArray(&in);
	vxReleaseObjectArray(&out);
}

TEST_F(ReplicateTest, AParameterNotReplicatedIsSharedByEveryReplica)
{
	/* A user kernel: every run sees its own items and the one scalar. */
	vx_kernel kernel = addCopyKernel(context);
	vx_tensor exemplar = makeTensor();
	vx_object_array in = vxCreateObjectArray(context, ref(exemplar), kItems);
	vx_object_array out = vxCreateObjectArray(context, ref(exemplar), kItems);
	vx_int32 value = 7;
	vx_scalar shared = vxCreateScalar(context, VX_TYPE_INT32, &value);
	vx_graph graph = vxCreateGraph(context);
	vx_node node = vxCreateGenericNode(graph, kernel);
	vx_reference first = vxGetObjectArrayItem(in, 0), result = vxGetObjectArrayItem(out, 0);
	vxSetParameterByIndex(node, 0, first);
	vxSetParameterByIndex(node, 1, result);
	vxSetParameterByIndex(node, 2, ref(shared));
	vx_bool flags[3] = { yes, yes, no };
	ASSERT_EQ(vxReplicateNode(graph, node, flags, 3), VX_SUCCESS);

	std::vector<vx_reference> seen;
	probe().validator = [&](const vx_reference *parameters, vx_meta_format *metas) {
		EXPECT_EQ(parameters[2], ref(shared));
		seen.push_back(parameters[0]);
		return vxSetMetaFormatFromReference(metas[1], parameters[0]);
	};
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(std::count(probe().events.begin(), probe().events.end(), "run"), long(kItems));
	std::vector<vx_reference> items;
	for (vx_uint32 k = 0; k < kItems; k++) {
		items.push_back(vxGetObjectArrayItem(in, k));
		vxReleaseReference(&items.back());
		items.back() = vxGetObjectArrayItem(in, k);
	}
	std::sort(seen.begin(), seen.end());
	std::vector<vx_reference> expected = items;
	std::sort(expected.begin(), expected.end());
	EXPECT_EQ(seen, expected) << "each replica reads an item of its own";
	for (vx_reference &item : items)
		vxReleaseReference(&item);

	vxReleaseReference(&first);
	vxReleaseReference(&result);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	vxReleaseScalar(&shared);
	vxReleaseObjectArray(&in);
	vxReleaseObjectArray(&out);
	vxReleaseTensor(&exemplar);
	vxReleaseKernel(&kernel);
}

TEST_F(ReplicateTest, ReplicationFollowsTheSpecificationsReturnCodes)
{
	vx_object_array in = makeArray(), out = makeArray(), shorter = makeArray(2);
	vx_graph graph = vxCreateGraph(context), other = vxCreateGraph(context);
	vx_node node = reluNode(graph, in, out);

	EXPECT_EQ(vxReplicateNode(nullptr, node, reluFlags, 5), VX_ERROR_INVALID_REFERENCE);
	EXPECT_EQ(vxReplicateNode(graph, nullptr, reluFlags, 5), VX_ERROR_INVALID_REFERENCE);
	EXPECT_EQ(vxReplicateNode(other, node, reluFlags, 5), VX_FAILURE) << "not its graph";
	EXPECT_EQ(vxReplicateNode(graph, node, reluFlags, 4), VX_ERROR_INVALID_PARAMETERS);
	EXPECT_EQ(vxReplicateNode(graph, node, nullptr, 5), VX_ERROR_INVALID_PARAMETERS);
	vx_bool outputShared[5] = { yes, no, no, no, no };
	EXPECT_EQ(vxReplicateNode(graph, node, outputShared, 5), VX_FAILURE)
		<< "an output must be replicated";
	vx_bool scalarReplicated[5] = { yes, yes, no, no, yes };
	EXPECT_EQ(vxReplicateNode(graph, node, scalarReplicated, 5), VX_ERROR_NOT_COMPATIBLE)
		<< "a replicated parameter is item 0 of an array";

	/* Item 1, or arrays of different sizes, cannot be replicated either. */
	vx_tensor second = tensorItem(in, 1), few = tensorItem(shorter, 0);
	ASSERT_EQ(vxSetParameterByIndex(node, 0, ref(second)), VX_SUCCESS);
	EXPECT_EQ(vxReplicateNode(graph, node, reluFlags, 5), VX_ERROR_NOT_COMPATIBLE);
	ASSERT_EQ(vxSetParameterByIndex(node, 0, ref(few)), VX_SUCCESS);
	EXPECT_EQ(vxReplicateNode(graph, node, reluFlags, 5), VX_FAILURE);

	/* None of these replicated anything. */
	vx_bool replicated = vx_true_e;
	vxQueryNode(node, VX_NODE_IS_REPLICATED, &replicated, sizeof(replicated));
	EXPECT_EQ(replicated, vx_false_e);
	vx_bool flags[5] = { yes, yes, yes, yes, yes };
	EXPECT_EQ(vxQueryNode(node, VX_NODE_REPLICATE_FLAGS, flags, sizeof(flags)), VX_SUCCESS);
	EXPECT_EQ(std::count(flags, flags + 5, vx_true_e), 0);
	EXPECT_EQ(vxQueryNode(node, VX_NODE_REPLICATE_FLAGS, flags, sizeof(vx_bool)),
		VX_ERROR_INVALID_PARAMETERS);

	vxReleaseTensor(&second);
	vxReleaseTensor(&few);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	vxReleaseGraph(&other);
	vxReleaseObjectArray(&in);
	vxReleaseObjectArray(&out);
	vxReleaseObjectArray(&shorter);
}

TEST_F(ReplicateTest, ReplicasFollowARebindingOfTheFirstNode)
{
	vx_object_array in = makeArray(), out = makeArray(), other = makeArray();
	fill(other);
	vx_graph graph = vxCreateGraph(context);
	vx_node node = reluNode(graph, in, out);
	ASSERT_EQ(vxReplicateNode(graph, node, reluFlags, 5), VX_SUCCESS);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);

	/* Item 0 of another array, and the handles released: the node holds it. */
	vx_tensor first = tensorItem(other, 0);
	ASSERT_EQ(vxSetParameterByIndex(node, 0, ref(first)), VX_SUCCESS);
	vxReleaseTensor(&first);
	vxReleaseObjectArray(&other);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	expectRelu(out);

	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	vxReleaseObjectArray(&in);
	vxReleaseObjectArray(&out);
}

TEST_F(ReplicateTest, RemovingTheFirstNodeRemovesItsReplicasAndLeavesNothing)
{
	const vx_uint32 before = references();
	vx_object_array in = makeArray(), out = makeArray();
	vx_graph graph = vxCreateGraph(context);
	vx_node node = reluNode(graph, in, out);
	ASSERT_EQ(vxReplicateNode(graph, node, reluFlags, 5), VX_SUCCESS);
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	vxReleaseObjectArray(&in);
	vxReleaseObjectArray(&out);

	ASSERT_EQ(vxRemoveNode(&node), VX_SUCCESS);
	vx_uint32 nodes = 1;
	vxQueryGraph(graph, VX_GRAPH_NUMNODES, &nodes, sizeof(nodes));
	EXPECT_EQ(nodes, 0u);
	vxReleaseGraph(&graph);
	EXPECT_EQ(references(), before) << "node, replicas, arrays and items all gone";
}

TEST_F(ReplicateTest, ReplicatingTwiceKeepsOneSetOfReplicas)
{
	const vx_uint32 before = references();
	vx_object_array in = makeArray(), out = makeArray();
	fill(in);
	vx_graph graph = vxCreateGraph(context);
	vx_node node = reluNode(graph, in, out);
	ASSERT_EQ(vxReplicateNode(graph, node, reluFlags, 5), VX_SUCCESS);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	const vx_uint32 verified = references();
	ASSERT_EQ(vxReplicateNode(graph, node, reluFlags, 5), VX_SUCCESS);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	expectRelu(out);
	EXPECT_EQ(references(), verified) << "the old replicas went";
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	vxReleaseObjectArray(&in);
	vxReleaseObjectArray(&out);
	EXPECT_EQ(references(), before);
}

TEST_F(ReplicateTest, ArraysReleasedBeforeReplicationKeepTheirItems)
{
	vx_object_array in = makeArray(), out = makeArray();
	fill(in);
	vx_graph graph = vxCreateGraph(context);
	vx_node node = reluNode(graph, in, out);
	/* The node holds item 0 of each, and so each array. */
	vxReleaseObjectArray(&in);
	ASSERT_EQ(vxReplicateNode(graph, node, reluFlags, 5), VX_SUCCESS);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	expectRelu(out);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	vxReleaseObjectArray(&out);
}

TEST_F(ReplicateTest, VirtualArraysLinkReplicatedNodes)
{
	vx_object_array in = makeArray(), out = makeArray();
	fill(in);
	vx_graph graph = vxCreateGraph(context);
	vx_tensor open = vxCreateVirtualTensor(graph, 0, nullptr, VX_TYPE_INVALID, 0);
	vx_object_array middle = vxCreateVirtualObjectArray(graph, ref(open), kItems);
	ASSERT_EQ(vxGetStatus(ref(middle)), VX_SUCCESS);
	/* ReLU twice is ReLU: each item through both, its middle virtual. */
	vx_node first = reluNode(graph, in, middle), second = reluNode(graph, middle, out);
	ASSERT_EQ(vxReplicateNode(graph, first, reluFlags, 5), VX_SUCCESS);
	ASSERT_EQ(vxReplicateNode(graph, second, reluFlags, 5), VX_SUCCESS);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	expectRelu(out);
	vx_tensor item = tensorItem(middle, 1);
	vx_size count = 0;
	vxQueryTensor(item, VX_TENSOR_NUMBER_OF_DIMS, &count, sizeof(count));
	EXPECT_EQ(count, 2u) << "item 1 completed from its producer, a replica";
	vxReleaseTensor(&item);
	for (vx_node *node : { &first, &second })
		vxReleaseNode(node);
	vxReleaseTensor(&open);
	vxReleaseObjectArray(&middle);
	vxReleaseGraph(&graph);
	vxReleaseObjectArray(&in);
	vxReleaseObjectArray(&out);
}

TEST_F(ReplicateTest, AFailedVerificationOfTheReplicasIsMendedByRebinding)
{
	vx_object_array in = makeArray(), out = makeArray();
	fill(in);
	vx_graph graph = vxCreateGraph(context);
	vx_node node = reluNode(graph, in, out);
	ASSERT_EQ(vxReplicateNode(graph, node, reluFlags, 5), VX_SUCCESS);
	vx_tensor plain = makeTensor(VX_TYPE_INT16, { kValues, 1 }, 8);
	ASSERT_EQ(vxSetParameterByIndex(node, 0, ref(plain)), VX_SUCCESS);
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_NOT_COMPATIBLE);
	vx_tensor first = tensorItem(in, 0);
	ASSERT_EQ(vxSetParameterByIndex(node, 0, ref(first)), VX_SUCCESS);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	expectRelu(out);
	vxReleaseTensor(&first);
	vxReleaseTensor(&plain);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	vxReleaseObjectArray(&in);
	vxReleaseObjectArray(&out);
}

TEST_F(ReplicateTest, ReleasingGraphOrContextWithReplicasLeavesNothing)
{
	const vx_uint32 before = references();
	vx_object_array in = makeArray(), out = makeArray();
	vx_graph graph = vxCreateGraph(context);
	vx_node node = reluNode(graph, in, out);
	ASSERT_EQ(vxReplicateNode(graph, node, reluFlags, 5), VX_SUCCESS);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	/* The graph goes first, the node and arrays still held. */
	vxReleaseGraph(&graph);
	vx_bool replicated = vx_false_e;
	EXPECT_EQ(vxQueryNode(node, VX_NODE_IS_REPLICATED, &replicated, sizeof(replicated)),
		VX_SUCCESS);
	vxReleaseNode(&node);
	vxReleaseObjectArray(&in);
	vxReleaseObjectArray(&out);
	EXPECT_EQ(references(), before);

	/* The context with all of it held (no leak or crash under valgrind). */
	in = makeArray();
	out = makeArray();
	graph = vxCreateGraph(context);
	node = reluNode(graph, in, out);
	ASSERT_EQ(vxReplicateNode(graph, node, reluFlags, 5), VX_SUCCESS);
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_EQ(vxReleaseContext(&context), VX_SUCCESS);
}

/* A kernel that records what it may do to the node it runs as (a replica). */
struct ReplicaProbe {
	int runs = 0;
	int replicated = 0;
	std::vector<vx_status> refused;
};
ReplicaProbe replicaProbe;

vx_status VX_CALLBACK runTouchingItsNode(vx_node node, const vx_reference *parameters, vx_uint32)
{
	replicaProbe.runs++;
	vx_bool replicated = vx_false_e;
	vxQueryNode(node, VX_NODE_IS_REPLICATED, &replicated, sizeof(replicated));
	replicaProbe.replicated += replicated == vx_true_e;
	vx_border_t border = { VX_BORDER_UNDEFINED, {} };
	replicaProbe.refused.push_back(
		vxSetNodeAttribute(node, VX_NODE_BORDER, &border, sizeof(border)));
	replicaProbe.refused.push_back(vxSetNodeTarget(node, VX_TARGET_STRING, "cpu"));
	replicaProbe.refused.push_back(vxReplicateNode(nullptr, node, nullptr, 0));
	replicaProbe.refused.push_back(vxSetParameterByIndex(node, 0, parameters[0]));
	return VX_SUCCESS;
}

vx_status VX_CALLBACK validateAnything(vx_node, const vx_reference *, vx_uint32, vx_meta_format *)
{
	return VX_SUCCESS;
}

TEST_F(ReplicateTest, TheKernelsOfReplicasCannotChangeThem)
{
	vx_kernel kernel = vxAddUserKernel(context, "vdla.test.touch", VX_KERNEL_BASE(VX_ID_USER, 1),
		runTouchingItsNode, 1, validateAnything, nullptr, nullptr);
	ASSERT_EQ(vxAddParameterToKernel(
			  kernel, 0, VX_INPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED),
		VX_SUCCESS);
	ASSERT_EQ(vxFinalizeKernel(kernel), VX_SUCCESS);
	vx_object_array in = makeArray();
	vx_graph graph = vxCreateGraph(context);
	vx_node node = vxCreateGenericNode(graph, kernel);
	vx_tensor first = tensorItem(in, 0);
	ASSERT_EQ(vxSetParameterByIndex(node, 0, ref(first)), VX_SUCCESS);
	ASSERT_EQ(vxReplicateNode(graph, node, &yes, 1), VX_SUCCESS);
	replicaProbe = {};
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(replicaProbe.runs, int(kItems));
	EXPECT_EQ(replicaProbe.replicated, int(kItems)) << "replicas answer as their node";
	/* The first node is the application's (its graph runs: GRAPH_SCHEDULED,
	 * but for the NULL graph); the replicas are no reference it may use. */
	const size_t perRun = 4;
	ASSERT_EQ(replicaProbe.refused.size(), kItems * perRun);
	int refusedAsInvalid = 0;
	for (vx_status status : replicaProbe.refused)
		refusedAsInvalid += status == VX_ERROR_INVALID_REFERENCE;
	EXPECT_EQ(refusedAsInvalid, int((kItems - 1) * perRun + 1));

	/* Bound whole, an array is refused: only its items reach a node. */
	vx_kernel whole = vxAddUserKernel(context, "vdla.test.whole", VX_KERNEL_BASE(VX_ID_USER, 2),
		runTouchingItsNode, 1, validateAnything, nullptr, nullptr);
	vxAddParameterToKernel(whole, 0, VX_INPUT, VX_TYPE_REFERENCE, VX_PARAMETER_STATE_REQUIRED);
	vxFinalizeKernel(whole);
	vx_node wholeNode = vxCreateGenericNode(graph, whole);
	EXPECT_EQ(vxSetParameterByIndex(wholeNode, 0, ref(in)), VX_ERROR_NOT_SUPPORTED);

	vxReleaseNode(&wholeNode);
	vxReleaseTensor(&first);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	vxReleaseObjectArray(&in);
	vxRemoveKernel(kernel);
	vxRemoveKernel(whole);
}

} /* namespace */
