/* SPDX-License-Identifier: MIT */
/*
 * Nodes and graphs as objects: creation, parameters, attributes, targets,
 * callbacks and release. Verification is in graph_verify.cpp, the order
 * in graph_order.cpp, running in graph_run.cpp.
 */

#include "framework/graph_internal.h"

#include <VX/vx_vdla.h>

#include "framework/schedule.h"
#include "objects/tensor_layout.h"

#include <cstring>
#include <strings.h>

using namespace vdla::vx;

namespace {

bool nodeUsable(vx_node node)
{
	return isReachableNode(node) && node->graph;
}

} /* namespace */

namespace vdla::vx {

std::vector<vx_tensor> tensorsOf(vx_node node, vx_enum direction)
{
	std::vector<vx_tensor> tensors;
	for (size_t i = 0; i < node->parameters.size(); i++) {
		vx_reference ref = node->parameters[i];
		if (ref && ref->type == VX_TYPE_TENSOR
			&& node->kernel->parameters[i].direction == direction)
			tensors.push_back(reinterpret_cast<vx_tensor>(ref));
	}
	return tensors;
}

void detachNode(vx_node node)
{
	deinitializeNode(node);
	node->graph = nullptr;
}

} /* namespace vdla::vx */

_vx_node::~_vx_node()
{
	freeLocalData(this);
}

void _vx_node::teardown()
{
	releaseItemArrays(this);
	release(kernel, Count::Internal);
	for (vx_reference ref : parameters)
		release(ref, Count::Internal);
	parameters.clear();
}

void _vx_graph::onUnreachable()
{
	/* Nothing can run this graph or read its virtual tensors again: its
	 * SRAM, device memory and kernel context go back now, even while the
	 * application holds a virtual tensor (which keeps this object). */
	schedule.reset();
	for (const std::unique_ptr<Target> &target : targets(context))
		target->release(this, true);
	std::vector<vx_node> detached = std::move(nodes);
	nodes.clear();
	order.clear();
	parameters.clear();
	for (vx_node node : detached)
		detachNode(node);
	for (vx_node node : detached)
		release(node, Count::Internal);
}

void _vx_graph::teardown()
{
	onUnreachable();
}

extern "C" {

vx_graph vxCreateGraph(vx_context context)
try {
	ApiLock lock(apiLock());
	if (!isValid(context, VX_TYPE_CONTEXT))
		return nullptr;
	return registerNew(std::make_unique<_vx_graph>(context), Count::External);
}
VX_API_CATCH(nullptr)

vx_status vxReleaseGraph(vx_graph *graph)
try {
	ApiLock lock(apiLock());
	if (!graph || !isValid(*graph, VX_TYPE_GRAPH) || (*graph)->externalCount == 0)
		return VX_ERROR_INVALID_REFERENCE;
	vx_graph g = *graph;
	/* Another thread is in vxProcessGraph with it: freeing it now would
	 * pull the graph from under that thread. */
	if (g->externalCount == 1 && g->processing)
		return VX_ERROR_GRAPH_SCHEDULED;
	if (g->externalCount == 1) {
		waitForWorker(g, lock);
		g->scheduled = false;
	}
	release(g, Count::External);
	*graph = nullptr;
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxVerifyGraph(vx_graph graph)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return VX_ERROR_INVALID_REFERENCE;
	return verifyGraph(graph);
}
VX_API_CATCH_STATUS

vx_status vxQueryGraph(vx_graph graph, vx_enum attribute, void *ptr, vx_size size)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return VX_ERROR_INVALID_REFERENCE;
	switch (attribute) {
	case VX_GRAPH_NUMNODES:
		/* The application's nodes: replicas are the implementation's. */
		return writeAttribute<vx_uint32>(ptr, size,
			std::count_if(graph->nodes.begin(), graph->nodes.end(),
				[](vx_node node) { return !node->replicaOf; }));
	case VX_GRAPH_PERFORMANCE:
		return writeAttribute(ptr, size, graph->perf);
	case VX_GRAPH_NUMPARAMETERS:
		return writeAttribute<vx_uint32>(ptr, size, graph->parameters.size());
	case VX_GRAPH_STATE:
		return writeAttribute(ptr, size, graph->state);
	case VX_GRAPH_VDLA_PLANS:
		return writeAttribute<vx_uint32>(ptr, size, graph->plans);
	default:
		return VX_ERROR_NOT_SUPPORTED;
	}
}
VX_API_CATCH_STATUS

vx_status vxSetGraphAttribute(vx_graph graph, vx_enum attribute, const void *, vx_size)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return VX_ERROR_INVALID_REFERENCE;
	/* Every graph attribute of OpenVX 1.3.1 is read-only. */
	log(graph, VX_ERROR_NOT_SUPPORTED, "vxSetGraphAttribute: attribute %#x cannot be set",
		unsigned(attribute));
	return VX_ERROR_NOT_SUPPORTED;
}
VX_API_CATCH_STATUS

vx_bool vxIsGraphVerified(vx_graph graph)
try {
	ApiLock lock(apiLock());
	return isValid(graph, VX_TYPE_GRAPH) && graph->verified ? vx_true_e : vx_false_e;
}
VX_API_CATCH(vx_false_e)

vx_node vxCreateGenericNode(vx_graph graph, vx_kernel kernel)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	if (!isValid(kernel, VX_TYPE_KERNEL))
		return errorAs<vx_node>(graph->context, VX_ERROR_INVALID_REFERENCE);
	if (!kernel->finalized || graph->scheduled)
		return errorAs<vx_node>(graph->context, VX_ERROR_INVALID_PARAMETERS);

	auto made = std::make_unique<_vx_node>(graph->context);
	made->kernel = kernel;
	made->graph = graph;
	made->parameters.assign(kernel->parameters.size(), nullptr);
	made->border.mode = VX_BORDER_UNDEFINED;
	/* A node has its kernel's local data size from the start (the area
	 * itself comes with verification). */
	made->localDataSize = kernel->localDataSize;
	reserveOneMore(graph->nodes);
	vx_node node = registerNew(std::move(made), Count::External);
	retain(kernel, Count::Internal);
	retain(node, Count::Internal);
	graph->nodes.push_back(node);
	markUnverified(graph);
	return node;
}
VX_API_CATCH(nullptr)

vx_status vxSetParameterByIndex(vx_node node, vx_uint32 index, vx_reference value)
try {
	ApiLock lock(apiLock());
	if (!nodeUsable(node))
		return VX_ERROR_INVALID_REFERENCE;
	if (index >= node->parameters.size())
		return VX_ERROR_INVALID_PARAMETERS;
	const KernelParameter &parameter = node->kernel->parameters[index];
	if (value && !isValid(value))
		return VX_ERROR_INVALID_REFERENCE;
	if (!value && parameter.state != VX_PARAMETER_STATE_OPTIONAL)
		return VX_ERROR_INVALID_REFERENCE;
	if (value && !matchesParameterType(parameter.type, value))
		return VX_ERROR_INVALID_TYPE;
	/* Nothing relates a whole array to its items yet (their writers, their
	 * memory): an array reaches a node item by item, through replication. */
	if (value && value->type == VX_TYPE_OBJECT_ARRAY) {
		log(node, VX_ERROR_NOT_SUPPORTED,
			"an object array is bound by its item 0 and vxReplicateNode, not whole");
		return VX_ERROR_NOT_SUPPORTED;
	}
	/* The DLA would refuse the job, the CPU fault on the mapping. */
	if (value && value->type == VX_TYPE_TENSOR && parameter.direction != VX_INPUT
		&& refusesWrites(reinterpret_cast<vx_tensor>(value),
			("an output of " + node->kernel->kernelName).c_str()))
		return VX_ERROR_NOT_SUPPORTED;
	if (node->graph->scheduled)
		return VX_ERROR_GRAPH_SCHEDULED;

	vx_reference old = node->parameters[index];
	/* Rebinding to an object with other meta data, to or from NULL,
	 * needs the node verified again; so does any rebinding of a
	 * replicated node, whose replicas are made at verification. */
	if (!old || !value || !sameMetaData(old, value) || !node->replicateFlags.empty()) {
		markUnverified(node->graph);
	} else if (old != value) {
		/* Verified still, but the order, the writers and the DLA tasks
		 * were judged on the old object (whose memory groups must not
		 * outlive it). */
		node->graph->memory.reset();
		node->graph->orderStale = true;
		/* Plans place, fuse or copy other objects, and virtual
		 * tensors by who uses them: only a tensor for a tensor on
		 * memory of its own may keep the plans (retargeting). */
		if (old->type != VX_TYPE_TENSOR || reinterpret_cast<vx_tensor>(old)->isVirtual
			|| reinterpret_cast<vx_tensor>(value)->isVirtual)
			node->graph->needsNewPlan = true;
	}
	retain(value, Count::Internal);
	node->parameters[index] = value;
	release(old, Count::Internal);
	holdItemArray(node, index);
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxQueryNode(vx_node node, vx_enum attribute, void *ptr, vx_size size)
try {
	ApiLock lock(apiLock());
	if (!isValid(node, VX_TYPE_NODE))
		return VX_ERROR_INVALID_REFERENCE;
	switch (attribute) {
	case VX_NODE_STATUS:
		return writeAttribute(ptr, size, node->status);
	case VX_NODE_PERFORMANCE:
		return writeAttribute(ptr, size, node->perf);
	case VX_NODE_BORDER:
		return writeAttribute(ptr, size, node->border);
	case VX_NODE_LOCAL_DATA_SIZE:
		return writeAttribute(ptr, size, node->localDataSize);
	case VX_NODE_LOCAL_DATA_PTR:
		return writeAttribute(ptr, size, node->localDataPtr);
	case VX_NODE_PARAMETERS:
		return writeAttribute<vx_uint32>(ptr, size, node->parameters.size());
	case VX_NODE_IS_REPLICATED:
	case VX_NODE_REPLICATE_FLAGS: {
		/* A replica (a kernel's callbacks see them) answers as its node. */
		const std::vector<vx_bool> &flags
			= node->replicaOf ? node->replicaOf->replicateFlags : node->replicateFlags;
		if (attribute == VX_NODE_IS_REPLICATED)
			return writeAttribute<vx_bool>(ptr, size, flags.empty() ? vx_false_e : vx_true_e);
		/* One flag per parameter; all false for a node not replicated. */
		const size_t count = node->parameters.size();
		if (!ptr || size != count * sizeof(vx_bool))
			return VX_ERROR_INVALID_PARAMETERS;
		auto out = static_cast<vx_bool *>(ptr);
		for (size_t i = 0; i < count; i++)
			out[i] = flags.empty() ? vx_false_e : flags[i];
		return VX_SUCCESS;
	}
	case VX_NODE_VALID_RECT_RESET:
		return writeAttribute<vx_bool>(ptr, size, vx_false_e);
	case VX_NODE_VDLA_TARGET:
	case VX_NODE_VDLA_FUSED:
		if (!node->graph || !node->graph->verified) {
			log(node, VX_ERROR_INVALID_GRAPH,
				"the node's target is chosen at verification");
			return VX_ERROR_INVALID_GRAPH;
		}
		if (attribute == VX_NODE_VDLA_FUSED)
			return writeAttribute<vx_bool>(
				ptr, size, node->fused ? vx_true_e : vx_false_e);
		return writeAttribute<vx_enum>(
			ptr, size, node->placedOn && node->placedOn->kind() == NodeTarget::Dla
				? VX_VDLA_TARGET_DLA : VX_VDLA_TARGET_CPU);
	default:
		return VX_ERROR_NOT_SUPPORTED;
	}
}
VX_API_CATCH_STATUS

vx_status vxSetNodeAttribute(vx_node node, vx_enum attribute, const void *ptr, vx_size size)
try {
	ApiLock lock(apiLock());
	if (!isValid(node, VX_TYPE_NODE))
		return VX_ERROR_INVALID_REFERENCE;

	switch (attribute) {
	case VX_NODE_BORDER: {
		/* A replica takes its node's border at verification. */
		if (node->replicaOf)
			return VX_ERROR_INVALID_REFERENCE;
		/* Its kernel may be reading the border right now. */
		if (node->graph && node->graph->scheduled)
			return VX_ERROR_GRAPH_SCHEDULED;
		vx_border_t border;
		vx_status status = readBorder(ptr, size, border);
		if (status != VX_SUCCESS)
			return status;
		if (memcmp(&border, &node->border, sizeof(border)) && node->graph)
			markUnverified(node->graph);
		node->border = border;
		return VX_SUCCESS;
	}
	case VX_NODE_LOCAL_DATA_SIZE:
	case VX_NODE_LOCAL_DATA_PTR:
		/* Only initialize and deinitialize of a kernel without a
		 * declared size may manage local data, and deinitialize may
		 * not replace memory the implementation allocated. */
		if (node->phase == NodeCallbackPhase::None || node->kernel->localDataSize != 0
			|| (node->phase == NodeCallbackPhase::Deinitialize && node->localDataOwned))
			return VX_ERROR_NOT_SUPPORTED;
		if (attribute == VX_NODE_LOCAL_DATA_SIZE)
			return readAttribute(ptr, size, node->localDataSize);
		return readAttribute(ptr, size, node->localDataPtr);
	default:
		return VX_ERROR_NOT_SUPPORTED;
	}
}
VX_API_CATCH_STATUS

vx_status vxReleaseNode(vx_node *node)
try {
	ApiLock lock(apiLock());
	if (!node || !isValid(*node, VX_TYPE_NODE))
		return VX_ERROR_INVALID_REFERENCE;
	return vxReleaseReference(reinterpret_cast<vx_reference *>(node));
}
VX_API_CATCH_STATUS

vx_status vxRemoveNode(vx_node *node)
try {
	ApiLock lock(apiLock());
	if (!node || !nodeUsable(*node) || (*node)->externalCount == 0)
		return VX_ERROR_INVALID_REFERENCE;
	vx_node n = *node;
	vx_graph graph = n->graph;
	if (graph->scheduled)
		return VX_ERROR_GRAPH_SCHEDULED;

	removeReplicas(n);
	auto &nodes = graph->nodes;
	nodes.erase(std::remove(nodes.begin(), nodes.end(), n), nodes.end());
	auto &parameters = graph->parameters;
	parameters.erase(std::remove_if(parameters.begin(), parameters.end(),
				 [n](const _vx_graph::Parameter &p) { return p.node == n; }),
		parameters.end());
	markUnverified(graph);
	detachNode(n);
	release(n, Count::Internal);
	release(n, Count::External);
	*node = nullptr;
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxAssignNodeCallback(vx_node node, vx_nodecomplete_f callback)
try {
	ApiLock lock(apiLock());
	if (!isReachableNode(node))
		return VX_ERROR_INVALID_REFERENCE;
	if (callback && node->callback)
		return VX_ERROR_NOT_SUPPORTED;
	/* A device plan keeps a node's output in its SRAM or fuses it
	 * away unless a callback reads it: plan again before the next run. */
	if (callback && node->graph && node->graph->verified && node->placedOn
		&& node->placedOn->kind() != NodeTarget::Cpu)
		node->graph->scheduleStale = true;
	node->callback = callback;
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_nodecomplete_f vxRetrieveNodeCallback(vx_node node)
try {
	ApiLock lock(apiLock());
	return isValid(node, VX_TYPE_NODE) ? node->callback : nullptr;
}
VX_API_CATCH(nullptr)

vx_status vxSetNodeTarget(vx_node node, vx_enum target_enum, const char *target_string)
try {
	ApiLock lock(apiLock());
	if (!isReachableNode(node))
		return VX_ERROR_INVALID_REFERENCE;
	/* The running graph placed its nodes at verification. */
	if (node->graph && node->graph->scheduled)
		return VX_ERROR_GRAPH_SCHEDULED;
	const std::optional<NodeTarget> parsed = parseTarget(target_enum, target_string);
	if (!parsed)
		return VX_ERROR_NOT_SUPPORTED;
	const NodeTarget target = *parsed;
	if (target != NodeTarget::Any) {
		std::string why;
		if (!vdla::vx::target(node->context, target).canRun(node->context, node->kernel, why)) {
			log(node, VX_ERROR_NOT_SUPPORTED, "%s", why.c_str());
			return VX_ERROR_NOT_SUPPORTED;
		}
	}
	if (node->target != target && node->graph)
		markUnverified(node->graph);
	node->target = target;
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxAddParameterToGraph(vx_graph graph, vx_parameter parameter)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return VX_ERROR_INVALID_REFERENCE;
	if (!isValid(parameter, VX_TYPE_PARAMETER) || !parameter->node
		|| parameter->node->graph != graph)
		return VX_ERROR_INVALID_PARAMETERS;
	if (graph->scheduled)
		return VX_ERROR_GRAPH_SCHEDULED;
	graph->parameters.push_back({ parameter->node, parameter->index });
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxSetGraphParameterByIndex(vx_graph graph, vx_uint32 index, vx_reference value)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return VX_ERROR_INVALID_REFERENCE;
	if (index >= graph->parameters.size())
		return VX_ERROR_INVALID_VALUE;
	const _vx_graph::Parameter &parameter = graph->parameters[index];
	return vxSetParameterByIndex(parameter.node, parameter.index, value);
}
VX_API_CATCH_STATUS

vx_parameter vxGetGraphParameterByIndex(vx_graph graph, vx_uint32 index)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	if (index >= graph->parameters.size())
		return errorAs<vx_parameter>(graph->context, VX_ERROR_INVALID_VALUE);
	const _vx_graph::Parameter &parameter = graph->parameters[index];
	return vxGetParameterByIndex(parameter.node, parameter.index);
}
VX_API_CATCH(nullptr)

} /* extern "C" */

namespace vdla::vx {

vx_node createKernelNode(
	vx_graph graph, vx_enum kernelEnum, std::initializer_list<vx_reference> parameters)
{
	vx_kernel kernel = vxGetKernelByEnum(graph->context, kernelEnum);
	vx_node node = vxCreateGenericNode(graph, kernel);
	vxReleaseKernel(&kernel);
	if (vxGetStatus(reinterpret_cast<vx_reference>(node)) != VX_SUCCESS)
		return node;
	vx_uint32 index = 0;
	for (vx_reference parameter : parameters) {
		vx_status status = vxSetParameterByIndex(node, index++, parameter);
		if (status != VX_SUCCESS) {
			vxRemoveNode(&node);
			return errorAs<vx_node>(graph->context, status);
		}
	}
	return node;
}

} /* namespace vdla::vx */

std::optional<NodeTarget> parseTarget(vx_enum targetEnum, const char *targetString)
{
	if (targetEnum == VX_TARGET_ANY)
		return NodeTarget::Any;
	if (targetEnum != VX_TARGET_STRING || !targetString)
		return std::nullopt;
	if (!strcasecmp(targetString, "any"))
		return NodeTarget::Any;
	if (!strcasecmp(targetString, "cpu"))
		return NodeTarget::Cpu;
	if (!strcasecmp(targetString, "dla"))
		return NodeTarget::Dla;
	return std::nullopt;
}
