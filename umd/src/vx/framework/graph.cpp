/* SPDX-License-Identifier: MIT */
/*
 * Nodes and graphs: verification (parameter checks, ordering, the user kernel
 * callbacks and meta formats) and execution, synchronous or on a worker
 * thread.
 */

#include "framework/object.h"

#include <VX/vx_vdla.h>

#include "framework/schedule.h"
#include "objects/tensor_layout.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <strings.h>

using namespace vdla::vx;

namespace {

vx_uint64 nowNs()
{
	return std::chrono::duration_cast<std::chrono::nanoseconds>(
		std::chrono::steady_clock::now().time_since_epoch())
		.count();
}

void recordPerf(vx_perf_t &perf, vx_uint64 begin, vx_uint64 end)
{
	addPerfSample(perf, begin, end, end - begin);
}

const KernelParameter &declared(vx_node node, vx_uint32 index)
{
	return node->kernel->parameters[index];
}

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

vx_status validateNode(vx_node node)
{
	vx_kernel kernel = node->kernel;
	const vx_uint32 count = node->parameters.size();

	std::vector<vx_meta_format> metas(count, nullptr);
	for (vx_uint32 i = 0; i < count; i++) {
		if (declared(node, i).direction != VX_OUTPUT)
			continue;
		metas[i] = new _vx_meta_format(node->context,
			parameterObjectType(declared(node, i).type, node->parameters[i]));
		registerReference(metas[i], Count::Internal);
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
	for (vx_meta_format meta : metas)
		release(meta, Count::Internal);
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

vx_status verify(vx_graph graph)
{
	if (graph->scheduled)
		return VX_ERROR_GRAPH_SCHEDULED;
	markUnverified(graph);

	vx_status status = checkParameters(graph);
	if (status == VX_SUCCESS) {
		groupMemory(graph);
		status = orderNodes(graph);
	}
	if (status != VX_SUCCESS) {
		log(graph, status, "graph verification failed");
		return status;
	}

	/* Outputs left unspecified are derived again from the validators. */
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

	for (vx_node node : graph->order) {
		status = verifyNode(node);
		if (status != VX_SUCCESS)
			return status;
	}
	/* Targets judge the parameters validation resolved. */
	status = Schedule::build(graph, graph->schedule);
	if (status != VX_SUCCESS)
		return status;
	graph->verified = true;
	graph->state = VX_GRAPH_STATE_VERIFIED;
	return VX_SUCCESS;
}

/*
 * Runs the verified graph. An exception (thrown by a C++ user kernel or
 * callback, or std::bad_alloc) abandons the run like a failing node: the
 * graph stays usable, and vxWaitGraph() reports it for a scheduled run,
 * whose worker thread would otherwise end the process.
 */
vx_status execute(vx_graph graph, ApiLock &lock)
{
	graph->state = VX_GRAPH_STATE_RUNNING;
	const vx_uint64 begin = nowNs();
	vx_status status = VX_SUCCESS;
	try {
		status = graph->schedule->run(graph, lock);
	} catch (abi::__forced_unwind &) {
		throw;
	} catch (...) {
		/* User code runs without the lock. */
		if (!lock.owns_lock())
			lock.lock();
		status = statusOfException("vxProcessGraph");
	}
	if (status != VX_SUCCESS) {
		graph->state = VX_GRAPH_STATE_ABANDONED;
		return status;
	}
	if (graph->context->performanceEnabled)
		recordPerf(graph->perf, begin, nowNs());
	graph->state = VX_GRAPH_STATE_COMPLETED;
	return VX_SUCCESS;
}

/* Verifies the graph if needed, and rewrites its DLA tasks if they name
 * objects that were replaced since. */
vx_status prepare(vx_graph graph)
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
		}
	}
	vx_status status = VX_SUCCESS;
	if (!graph->verified) {
		status = verify(graph);
	} else {
		if (graph->orderStale) {
			/* Until the order succeeds, every run tries again (and
			 * fails): a later swap may undo the overlap. */
			groupMemory(graph);
			status = orderNodes(graph);
			if (status != VX_SUCCESS) {
				log(graph, status, "the graph's objects make it invalid now");
				return status;
			}
			graph->orderStale = false;
			graph->scheduleStale = true;
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
		if (owner->type == VX_TYPE_TENSOR && !tensor->handle) {
			log(owner, VX_ERROR_NO_MEMORY,
				"a tensor's handle was swapped out and not replaced");
			return VX_ERROR_NO_MEMORY;
		}
	}
	return VX_SUCCESS;
}

/*
 * Whether @graph may start a run: a live graph whose context is not being
 * released. vxReleaseContext() joins the graphs' workers without the API
 * lock before it deletes everything; a run started meanwhile would be
 * deleted under its thread.
 */
bool runnable(vx_graph graph)
{
	return isValid(graph, VX_TYPE_GRAPH) && graph->context->externalCount > 0;
}

bool nodeUsable(vx_node node)
{
	return isValid(node, VX_TYPE_NODE) && node->graph;
}

} /* namespace */

namespace vdla::vx {

void addPerfSample(vx_perf_t &perf, vx_uint64 begin, vx_uint64 end, vx_uint64 duration)
{
	perf.beg = begin;
	perf.end = end;
	perf.tmp = duration;
	perf.sum += perf.tmp;
	perf.num++;
	perf.avg = perf.sum / perf.num;
	perf.min = perf.num == 1 ? perf.tmp : std::min(perf.min, perf.tmp);
	perf.max = std::max(perf.max, perf.tmp);
}

vx_status orderNodes(vx_graph graph, const std::function<unsigned(vx_node)> &runOf)
{
	/*
	 * The outputs, grouped by the object owning their memory: sub-images
	 * of one image are written and read through each other where their
	 * parts overlap, and no two nodes may write the same memory.
	 */
	struct Output {
		vx_reference ref;
		vx_node producer;
	};
	std::map<vx_reference, std::vector<Output>> outputs;
	const MemoryGroups &groups = *graph->memory;
	for (vx_node node : graph->nodes) {
		for (vx_uint32 i = 0; i < node->parameters.size(); i++) {
			vx_reference ref = node->parameters[i];
			if (!ref || node->kernel->parameters[i].direction != VX_OUTPUT)
				continue;
			std::vector<Output> &written = outputs[groups.of(ref)];
			for (const Output &other : written) {
				if (sharesMemory(other.ref, ref))
					return VX_ERROR_MULTIPLE_WRITERS;
			}
			written.push_back({ ref, node });
		}
	}

	std::map<vx_node, std::vector<vx_node>> consumers;
	std::map<vx_node, size_t> pending;
	for (vx_node node : graph->nodes) {
		pending[node];
		for (vx_uint32 i = 0; i < node->parameters.size(); i++) {
			vx_reference ref = node->parameters[i];
			if (!ref || node->kernel->parameters[i].direction != VX_INPUT)
				continue;
			auto written = outputs.find(groups.of(ref));
			if (written == outputs.end())
				continue;
			for (const Output &output : written->second) {
				if (!sharesMemory(output.ref, ref))
					continue;
				consumers[output.producer].push_back(node);
				pending[node]++;
			}
		}
	}

	/*
	 * Kahn's algorithm with one queue per run: the current run goes on
	 * while it has ready nodes, then the lowest-numbered run with ready
	 * nodes takes over. Without @runOf, a plain first-in first-out order.
	 */
	std::map<unsigned, std::deque<vx_node>> ready;
	auto makeReady = [&](vx_node node) { ready[runOf ? runOf(node) : 0].push_back(node); };
	for (vx_node node : graph->nodes) {
		if (pending[node] == 0)
			makeReady(node);
	}
	graph->order.clear();
	unsigned run = 0;
	while (true) {
		if (ready[run].empty()) {
			auto next = std::find_if(ready.begin(), ready.end(),
				[](const auto &queue) { return !queue.second.empty(); });
			if (next == ready.end())
				break;
			run = next->first;
		}
		vx_node node = ready[run].front();
		ready[run].pop_front();
		graph->order.push_back(node);
		for (vx_node consumer : consumers[node]) {
			if (--pending[consumer] == 0)
				makeReady(consumer);
		}
	}
	return graph->order.size() == graph->nodes.size() ? VX_SUCCESS : VX_ERROR_INVALID_GRAPH;
}

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

void markUnverified(vx_graph graph)
{
	graph->schedule.reset();
	graph->scheduleStale = false;
	graph->orderStale = false;
	graph->verified = false;
	graph->state = VX_GRAPH_STATE_UNVERIFIED;
}

void detachNode(vx_node node)
{
	deinitializeNode(node);
	node->graph = nullptr;
}

void waitForWorker(vx_graph graph, ApiLock &lock)
{
	if (!graph->worker.joinable())
		return;
	std::thread worker = std::move(graph->worker);
	lock.unlock();
	worker.join();
	lock.lock();
}

} /* namespace vdla::vx */

_vx_node::~_vx_node()
{
	freeLocalData(this);
}

void _vx_node::teardown()
{
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
	auto graph = new _vx_graph(context);
	registerReference(graph, Count::External);
	return graph;
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
	return verify(graph);
}
VX_API_CATCH_STATUS

vx_status vxProcessGraph(vx_graph graph)
try {
	ApiLock lock(apiLock());
	if (!runnable(graph))
		return VX_ERROR_INVALID_REFERENCE;
	if (graph->scheduled)
		return VX_ERROR_GRAPH_SCHEDULED;
	vx_status prepared = prepare(graph);
	if (prepared != VX_SUCCESS)
		return prepared;
	graph->scheduled = true;
	graph->processing = true;
	vx_status status = execute(graph, lock);
	graph->processing = false;
	graph->scheduled = false;
	return status;
}
VX_API_CATCH_STATUS

vx_status vxScheduleGraph(vx_graph graph)
try {
	ApiLock lock(apiLock());
	if (!runnable(graph))
		return VX_ERROR_INVALID_REFERENCE;
	if (graph->scheduled)
		return VX_ERROR_GRAPH_SCHEDULED;
	vx_status prepared = prepare(graph);
	if (prepared != VX_SUCCESS)
		return prepared;
	/* The join drops the lock: the graph or its context may be gone after it. */
	waitForWorker(graph, lock);
	if (!runnable(graph))
		return VX_ERROR_INVALID_REFERENCE;
	if (graph->scheduled)
		return VX_ERROR_GRAPH_SCHEDULED;
	graph->scheduled = true;
	graph->state = VX_GRAPH_STATE_RUNNING;
	graph->worker = std::thread([graph] {
		ApiLock workerLock(apiLock());
		graph->asyncStatus = execute(graph, workerLock);
	});
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxWaitGraph(vx_graph graph)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return VX_ERROR_INVALID_REFERENCE;
	if (!graph->scheduled || !graph->worker.joinable())
		return VX_FAILURE;
	waitForWorker(graph, lock);
	graph->scheduled = false;
	return graph->asyncStatus;
}
VX_API_CATCH_STATUS

vx_status vxQueryGraph(vx_graph graph, vx_enum attribute, void *ptr, vx_size size)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return VX_ERROR_INVALID_REFERENCE;
	switch (attribute) {
	case VX_GRAPH_NUMNODES:
		return writeAttribute<vx_uint32>(ptr, size, graph->nodes.size());
	case VX_GRAPH_PERFORMANCE:
		return writeAttribute(ptr, size, graph->perf);
	case VX_GRAPH_NUMPARAMETERS:
		return writeAttribute<vx_uint32>(ptr, size, graph->parameters.size());
	case VX_GRAPH_STATE:
		return writeAttribute(ptr, size, graph->state);
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

	auto node = new _vx_node(graph->context);
	node->kernel = kernel;
	node->graph = graph;
	node->parameters.assign(kernel->parameters.size(), nullptr);
	node->border.mode = VX_BORDER_UNDEFINED;
	/* A node has its kernel's local data size from the start (the area
	 * itself comes with verification). */
	node->localDataSize = kernel->localDataSize;
	retain(kernel, Count::Internal);
	registerReference(node, Count::External);
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
	const KernelParameter &parameter = declared(node, index);
	if (value && !isValid(value))
		return VX_ERROR_INVALID_REFERENCE;
	if (!value && parameter.state != VX_PARAMETER_STATE_OPTIONAL)
		return VX_ERROR_INVALID_REFERENCE;
	if (value && !matchesParameterType(parameter.type, value))
		return VX_ERROR_INVALID_TYPE;
	if (node->graph->scheduled)
		return VX_ERROR_GRAPH_SCHEDULED;

	vx_reference old = node->parameters[index];
	/* Rebinding to an object with other meta data, to or from NULL,
	 * needs the node verified again. */
	if (!old || !value || !sameMetaData(old, value)) {
		markUnverified(node->graph);
	} else if (old != value) {
		/* Verified still, but the order, the writers and the DLA tasks
		 * were judged on the old object (whose memory groups must not
		 * outlive it). */
		node->graph->memory.reset();
		node->graph->orderStale = true;
	}
	retain(value, Count::Internal);
	node->parameters[index] = value;
	release(old, Count::Internal);
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
	if (!isValid(node, VX_TYPE_NODE))
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
	if (!isValid(node, VX_TYPE_NODE))
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
