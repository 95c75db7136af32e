/* SPDX-License-Identifier: MIT */
/*
 * Graph verification, as named phases: parameters, order, derive,
 * validate (the user kernel callbacks and meta formats), plan; and the
 * lighter checks before each run of a verified graph.
 */

#include "framework/graph_internal.h"

#include "framework/schedule.h"
#include "objects/tensor_layout.h"

#include <cstdlib>

namespace vdla::vx {

/*
 * Not node->kernel: the node's destructor runs this after its reference
 * to the kernel went, which may have been the last.
 */
void freeLocalData(vx_node node)
{
	if (node->localDataOwned)
		free(node->localDataPtr);
	node->localDataPtr = nullptr;
	node->localDataSize = 0;
	node->localDataOwned = false;
}

/* Runs deinitialize (when the node was initialized) and frees local data. */
void deinitializeNode(vx_node node)
{
	if (node->initialized && node->kernel->deinitialize) {
		node->phase = NodeCallbackPhase::Deinitialize;
		node->kernel->deinitialize(node, node->parameters.data(), node->parameters.size());
		node->phase = NodeCallbackPhase::None;
	}
	node->initialized = false;
	freeLocalData(node);
}

namespace {

const KernelParameter &declared(vx_node node, vx_uint32 index)
{
	return node->kernel->parameters[index];
}

vx_status allocateLocalData(vx_node node, vx_size size)
{
	node->localDataPtr = calloc(1, size);
	if (!node->localDataPtr)
		return VX_ERROR_NO_MEMORY;
	node->localDataSize = size;
	node->localDataOwned = true;
	return VX_SUCCESS;
}

/* The graph a virtual object belongs to; null for other objects. */
vx_graph virtualScope(vx_reference ref)
{
	if (ref->type == VX_TYPE_TENSOR && reinterpret_cast<vx_tensor>(ref)->isVirtual)
		return reinterpret_cast<vx_tensor>(ref)->scope;
	if (ref->type == VX_TYPE_IMAGE && reinterpret_cast<vx_image>(ref)->isVirtual)
		return reinterpret_cast<vx_image>(ref)->scope;
	if (ref->type == VX_TYPE_SCALAR && reinterpret_cast<vx_scalar>(ref)->isVirtual)
		return reinterpret_cast<vx_scalar>(ref)->scope;
	return nullptr;
}

/* Whether the shape of the data is known; virtual data learns it from its
 * producer's meta format. */
bool resolved(vx_reference ref)
{
	if (ref->type == VX_TYPE_TENSOR)
		return reinterpret_cast<vx_tensor>(ref)->resolved();
	if (ref->type == VX_TYPE_IMAGE)
		return reinterpret_cast<vx_image>(ref)->resolved();
	return true;
}

vx_status checkParameters(vx_graph graph)
{
	for (vx_node node : graph->nodes) {
		for (vx_uint32 i = 0; i < node->parameters.size(); i++) {
			vx_reference ref = node->parameters[i];
			if (!ref) {
				if (declared(node, i).state == VX_PARAMETER_STATE_OPTIONAL)
					continue;
				log(node, VX_ERROR_NOT_SUFFICIENT,
					"node %s: required parameter %u is not set",
					node->kernel->kernelName.c_str(), i);
				return VX_ERROR_NOT_SUFFICIENT;
			}
			vx_graph scope = virtualScope(ref);
			if (scope && scope != graph)
				return VX_ERROR_INVALID_SCOPE;
		}
	}
	return VX_SUCCESS;
}

vx_status applyTensorMeta(vx_meta_format meta, vx_tensor tensor)
{
	if (tensor->isVirtual && !tensor->specifiedAtCreation) {
		/* A validator that set the rank but not every extent leaves 0s. */
		if (meta->dims.empty() || !isTensorType(meta->tensorType)
			|| std::find(meta->dims.begin(), meta->dims.end(), 0) != meta->dims.end())
			return VX_ERROR_INVALID_PARAMETERS;
		if (!tensorSizeFits(meta->dims.data(), meta->dims.size(), typeSize(meta->tensorType)))
			return VX_ERROR_INVALID_DIMENSION;
		tensor->dims = meta->dims;
		tensor->dataType = meta->tensorType;
		tensor->fixedPointPosition = meta->fixedPointPosition;
		return VX_SUCCESS;
	}
	if (!meta->dims.empty() && meta->dims != tensor->dims)
		return VX_ERROR_INVALID_DIMENSION;
	if (meta->tensorType != VX_TYPE_INVALID && meta->tensorType != tensor->dataType)
		return VX_ERROR_INVALID_FORMAT;
	if (meta->fixedPointSet && meta->fixedPointPosition != tensor->fixedPointPosition)
		return VX_ERROR_INVALID_FORMAT;
	return VX_SUCCESS;
}

/* Checks an output against what the validator described, or completes a
 * virtual output from it. */
vx_status applyMeta(vx_meta_format meta, vx_reference ref)
{
	if (ref->type == VX_TYPE_TENSOR)
		return applyTensorMeta(meta, reinterpret_cast<vx_tensor>(ref));
	if (ref->type == VX_TYPE_IMAGE)
		return applyImageMeta(meta, reinterpret_cast<vx_image>(ref));
	if (ref->type == VX_TYPE_SCALAR) {
		auto scalar = reinterpret_cast<vx_scalar>(ref);
		if (meta->scalarType != VX_TYPE_INVALID && meta->scalarType != scalar->dataType)
			return VX_ERROR_INVALID_TYPE;
	}
	return VX_SUCCESS;
}

/* The meta formats of one validation, released however it ends (a validator may throw). */
struct MetaFormats {
	explicit MetaFormats(vx_uint32 count) : all(count, nullptr) { }
	MetaFormats(const MetaFormats &) = delete;
	MetaFormats &operator=(const MetaFormats &) = delete;
	std::vector<vx_meta_format> all;
	~MetaFormats()
	{
		for (vx_meta_format meta : all)
			release(meta, Count::Internal);
	}
};

vx_status validateNode(vx_node node)
{
	vx_kernel kernel = node->kernel;
	const vx_uint32 count = node->parameters.size();

	MetaFormats held(count);
	std::vector<vx_meta_format> &metas = held.all;
	for (vx_uint32 i = 0; i < count; i++) {
		if (declared(node, i).direction != VX_OUTPUT)
			continue;
		metas[i] = registerNew(std::make_unique<_vx_meta_format>(node->context,
					       parameterObjectType(declared(node, i).type,
						       node->parameters[i])),
			Count::Internal);
	}

	vx_status status = kernel->validate(node, node->parameters.data(), count, metas.data());
	node->validRectangle.assign(count, nullptr);
	for (vx_uint32 i = 0; i < count && status == VX_SUCCESS; i++) {
		if (!metas[i])
			continue;
		node->validRectangle[i] = metas[i]->validRectangle;
		if (node->parameters[i])
			status = applyMeta(metas[i], node->parameters[i]);
	}
	if (status == VX_SUCCESS)
		status = updateValidRectangles(node);
	return status;
}

/* deinitialize (if initialized before), local data, validate, initialize. */
vx_status verifyNode(vx_node node)
{
	vx_kernel kernel = node->kernel;
	for (vx_uint32 i = 0; i < node->parameters.size(); i++) {
		vx_reference ref = node->parameters[i];
		if (ref && declared(node, i).direction == VX_INPUT && !resolved(ref))
			return VX_ERROR_INVALID_GRAPH;
	}

	deinitializeNode(node);
	if (kernel->localDataSize) {
		vx_status status = allocateLocalData(node, kernel->localDataSize);
		if (status != VX_SUCCESS)
			return status;
	}

	vx_status status = validateNode(node);
	if (status != VX_SUCCESS) {
		log(node, status, "node %s: validation failed", kernel->kernelName.c_str());
		freeLocalData(node);
		return status;
	}

	if (kernel->initialize) {
		node->phase = NodeCallbackPhase::Initialize;
		status = kernel->initialize(node, node->parameters.data(), node->parameters.size());
		node->phase = NodeCallbackPhase::None;
		if (status != VX_SUCCESS) {
			log(node, status, "node %s: initialization failed",
				kernel->kernelName.c_str());
			freeLocalData(node);
			return status;
		}
	}
	node->initialized = true;

	if (!kernel->localDataSize && node->localDataSize && !node->localDataPtr)
		return allocateLocalData(node, node->localDataSize);
	return VX_SUCCESS;
}

/* Groups the graph's application memory as its objects are now, for
 * orderNodes() and Schedule::build() to share. */
void groupMemory(vx_graph graph)
{
	graph->memory = std::make_shared<const MemoryGroups>(graph);
	graph->handleSwapsSeen = graph->context->handleSwaps;
}

/* Phase "order": the application memory grouped as the objects are now,
 * and the nodes sorted so that producers run before their consumers. */
vx_status orderGraph(vx_graph graph)
{
	groupMemory(graph);
	return orderNodes(graph);
}

/* Phase "derive": outputs left unspecified are derived again from the
 * validators. */
vx_status forgetDerivedMeta(vx_graph graph)
{
	for (vx_node node : graph->nodes) {
		for (vx_reference ref : node->parameters) {
			auto tensor = reinterpret_cast<vx_tensor>(ref);
			if (ref && ref->type == VX_TYPE_TENSOR && tensor->isVirtual
				&& !tensor->specifiedAtCreation) {
				tensor->dims.clear();
				tensor->dataType = VX_TYPE_INVALID;
			}
			if (ref && ref->type == VX_TYPE_IMAGE
				&& reinterpret_cast<vx_image>(ref)->isVirtual)
				reinterpret_cast<vx_image>(ref)->forgetDerived();
		}
	}
	return VX_SUCCESS;
}

/* Phase "validate": each node in order, its producers' meta data known. */
vx_status validateNodes(vx_graph graph)
{
	for (vx_node node : graph->order) {
		vx_status status = verifyNode(node);
		if (status != VX_SUCCESS)
			return status;
	}
	return VX_SUCCESS;
}

/* Phase "plan": the targets judge the parameters validation resolved
 * and plan their work (framework/schedule.h). */
vx_status planTargets(vx_graph graph)
{
	return Schedule::build(graph, graph->schedule);
}

struct VerificationPhase {
	const char *name;
	vx_status (*run)(vx_graph graph);
};

/*
 * Verification, phase by phase; the first that fails stops it and is
 * named in the log (docs/architecture.md, "Graph engine").
 */
constexpr VerificationPhase kPhases[] = {
	{ "replicate", expandReplicas },
	{ "parameters", checkParameters },
	{ "order", orderGraph },
	{ "derive", forgetDerivedMeta },
	{ "validate", validateNodes },
	{ "plan", planTargets },
};

} /* namespace */

void markUnverified(vx_graph graph)
{
	graph->schedule.reset();
	graph->scheduleStale = false;
	graph->orderStale = false;
	graph->needsNewPlan = false;
	graph->verified = false;
	graph->state = VX_GRAPH_STATE_UNVERIFIED;
}

vx_status verifyGraph(vx_graph graph)
{
	if (graph->scheduled)
		return VX_ERROR_GRAPH_SCHEDULED;
	markUnverified(graph);
	for (const VerificationPhase &phase : kPhases) {
		vx_status status = phase.run(graph);
		if (status != VX_SUCCESS) {
			log(graph, status, "graph verification failed in phase \"%s\"", phase.name);
			return status;
		}
	}
	graph->verified = true;
	graph->state = VX_GRAPH_STATE_VERIFIED;
	return VX_SUCCESS;
}

vx_status prepareGraph(vx_graph graph)
{
	/*
	 * The order, the writers and the DLA tasks were judged on the handles
	 * at verification: a swap since that makes other application buffers
	 * overlap needs them judged again. Meta data did not change, so the
	 * graph stays verified and no validator, initializer or deinitializer
	 * runs (USER-KERNELS.md: executing a verified graph calls none).
	 */
	if (graph->verified && graph->handleSwapsSeen != graph->context->handleSwaps) {
		graph->handleSwapsSeen = graph->context->handleSwaps;
		if (graph->memory && !graph->memory->overlapsUnchanged()) {
			log(graph, VX_SUCCESS,
				"handles swapped since verification overlap other objects' "
				"memory differently: ordering the graph again");
			graph->orderStale = true;
			graph->needsNewPlan = true;
		}
	}
	vx_status status = VX_SUCCESS;
	if (!graph->verified) {
		status = verifyGraph(graph);
	} else {
		if (graph->orderStale) {
			/* Until the order succeeds, every run tries again (and
			 * fails): a later swap may undo the overlap. */
			groupMemory(graph);
			status = graph->schedule ? graph->schedule->order(graph) : orderNodes(graph);
			if (status != VX_SUCCESS) {
				log(graph, status, "the graph's objects make it invalid now");
				return status;
			}
			graph->orderStale = false;
			/* Rebindings alone change only the objects the work
			 * uses, which the targets may take as they are. */
			if (graph->needsNewPlan || !graph->schedule
				|| !graph->schedule->retarget(graph))
				graph->scheduleStale = true;
			graph->needsNewPlan = false;
		}
		/* Until a build succeeds, every run tries again (and fails)
		 * rather than running without tasks. */
		if (graph->scheduleStale || graph->schedule->stale()) {
			status = Schedule::build(graph, graph->schedule);
			graph->scheduleStale = status != VX_SUCCESS;
		}
	}
	if (status != VX_SUCCESS)
		return status;

	/* A from-handle tensor swapped out (vxSwapTensorHandle(NULL)) has
	 * no memory to compute from or into. The graph's application memory
	 * is what verification grouped: no walk over every node. */
	for (vx_reference owner : graph->memory->owners()) {
		auto tensor = reinterpret_cast<vx_tensor>(owner);
		if (owner->type == VX_TYPE_TENSOR && tensor->fromHandle && !tensor->handle) {
			log(owner, VX_ERROR_NO_MEMORY,
				"a tensor's handle was swapped out and not replaced");
			return VX_ERROR_NO_MEMORY;
		}
	}
	return VX_SUCCESS;
}

} /* namespace vdla::vx */
