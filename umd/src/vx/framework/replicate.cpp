/* SPDX-License-Identifier: MIT */
/*
 * Node replication (vxReplicateNode): a node bound to item 0 of object
 * arrays runs once per item. The application sees the first node only;
 * verification makes the others, the replicas, as nodes of the graph bound
 * to items 1 and up of the same arrays (and to the first node's other
 * parameters), so that ordering, validation, targets and running treat
 * them as any node. A change to the first node makes the graph unverified,
 * and the next verification makes the replicas anew from it.
 */

#include "framework/graph_internal.h"

using namespace vdla::vx;

namespace {

/* The array @ref is item 0 of, or null. */
vx_object_array arrayOfFirstItem(vx_reference ref)
{
	if (!ref || !ref->parentArray || ref->indexInArray != 0)
		return nullptr;
	return ref->parentArray;
}

/*
 * Checks that the flags of @node can replicate it as it is bound now:
 * every replicated parameter bound to item 0 of an array, the arrays all
 * of one size (set in @replicas), outputs replicated. Logs the reason.
 */
vx_status checkReplication(vx_node node, const vx_bool *flags, vx_size &replicas)
{
	replicas = 0;
	for (vx_uint32 i = 0; i < node->parameters.size(); i++) {
		const KernelParameter &declared = node->kernel->parameters[i];
		vx_reference ref = node->parameters[i];
		if (!ref && declared.state == VX_PARAMETER_STATE_OPTIONAL)
			continue;
		if (!flags[i]) {
			if (declared.direction != VX_INPUT) {
				log(node, VX_FAILURE,
					"vxReplicateNode: output parameter %u must be replicated", i);
				return VX_FAILURE;
			}
			continue;
		}
		vx_object_array array = arrayOfFirstItem(ref);
		if (!array) {
			log(node, VX_ERROR_NOT_COMPATIBLE,
				"vxReplicateNode: parameter %u is not item 0 of an object array", i);
			return VX_ERROR_NOT_COMPATIBLE;
		}
		if (replicas && array->items.size() != replicas) {
			log(node, VX_FAILURE,
				"vxReplicateNode: parameter %u's array has %zu items, another %zu", i,
				array->items.size(), size_t(replicas));
			return VX_FAILURE;
		}
		replicas = array->items.size();
	}
	if (!replicas) {
		log(node, VX_FAILURE, "vxReplicateNode: no parameter is replicated");
		return VX_FAILURE;
	}
	return VX_SUCCESS;
}

/* Replica @k of @first: its graph holds it (the only count). */
vx_node makeReplica(vx_node first, vx_size k)
{
	auto made = std::make_unique<_vx_node>(first->context);
	made->kernel = first->kernel;
	made->graph = first->graph;
	made->parameters.assign(first->parameters.size(), nullptr);
	made->border = first->border;
	made->target = first->target;
	made->localDataSize = first->kernel->localDataSize;
	made->replicaOf = first;
	vx_node replica = registerNew(std::move(made), Count::Internal);
	retain(replica->kernel, Count::Internal);
	for (vx_uint32 i = 0; i < first->parameters.size(); i++) {
		vx_reference ref = first->parameters[i];
		if (ref && first->replicateFlags[i])
			ref = arrayOfFirstItem(ref)->items[k];
		retain(ref, Count::Internal);
		replica->parameters[i] = ref;
	}
	return replica;
}

} /* namespace */

namespace vdla::vx {

void removeReplicas(vx_node node)
{
	vx_graph graph = node->graph;
	std::vector<vx_node> replicas;
	for (vx_node n : graph->nodes)
		if (n->replicaOf == node)
			replicas.push_back(n);
	if (replicas.empty())
		return;
	/* The plan and the order name the replicas: gone before they are. */
	markUnverified(graph);
	auto &nodes = graph->nodes;
	nodes.erase(std::remove_if(nodes.begin(), nodes.end(),
			    [node](vx_node n) { return n->replicaOf == node; }),
		nodes.end());
	graph->order.clear();
	for (vx_node replica : replicas) {
		detachNode(replica);
		release(replica, Count::Internal);
	}
}

vx_status expandReplicas(vx_graph graph)
{
	std::vector<vx_node> firsts;
	for (vx_node node : graph->nodes)
		if (!node->replicaOf && !node->replicateFlags.empty())
			firsts.push_back(node);
	for (vx_node first : firsts)
		removeReplicas(first);

	for (vx_node first : firsts) {
		vx_size replicas = 0;
		vx_status status = checkReplication(first, first->replicateFlags.data(), replicas);
		if (status != VX_SUCCESS)
			return status;
		/* Each replica right after the ones before it. */
		auto at = std::find(graph->nodes.begin(), graph->nodes.end(), first) + 1;
		for (vx_size k = 1; k < replicas; k++) {
			size_t offset = at - graph->nodes.begin();
			reserveOneMore(graph->nodes);
			vx_node replica = makeReplica(first, k);
			at = graph->nodes.insert(graph->nodes.begin() + offset, replica) + 1;
		}
	}
	return VX_SUCCESS;
}

void holdItemArray(vx_node node, vx_uint32 index)
{
	if (node->itemArrays.empty())
		node->itemArrays.assign(node->parameters.size(), nullptr);
	vx_reference ref = node->parameters[index];
	vx_object_array array = ref ? ref->parentArray : nullptr;
	retain(array, Count::Internal);
	release(node->itemArrays[index], Count::Internal);
	node->itemArrays[index] = array;
}

void releaseItemArrays(vx_node node)
{
	for (vx_object_array &array : node->itemArrays)
		release(array, Count::Internal);
	node->itemArrays.clear();
}

} /* namespace vdla::vx */

extern "C" {

vx_status vxReplicateNode(vx_graph graph, vx_node first_node, vx_bool replicate[],
	vx_uint32 number_of_parameters)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH) || !isReachableNode(first_node))
		return VX_ERROR_INVALID_REFERENCE;
	if (first_node->graph != graph) {
		log(first_node, VX_FAILURE, "vxReplicateNode: the node is not in this graph");
		return VX_FAILURE;
	}
	if (!replicate || number_of_parameters != first_node->parameters.size()) {
		log(first_node, VX_ERROR_INVALID_PARAMETERS,
			"vxReplicateNode: %u flags for a node of %zu parameters", number_of_parameters,
			first_node->parameters.size());
		return VX_ERROR_INVALID_PARAMETERS;
	}
	if (graph->scheduled)
		return VX_ERROR_GRAPH_SCHEDULED;
	vx_size replicas = 0;
	vx_status status = checkReplication(first_node, replicate, replicas);
	if (status != VX_SUCCESS)
		return status;

	/* Built aside: nothing changes unless all of it can. */
	std::vector<vx_bool> flags(replicate, replicate + number_of_parameters);
	for (vx_bool &flag : flags)
		flag = flag ? vx_true_e : vx_false_e;
	markUnverified(graph);
	first_node->replicateFlags.swap(flags);
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

} /* extern "C" */
