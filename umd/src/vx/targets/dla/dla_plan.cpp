/* SPDX-License-Identifier: MIT */
/* Building and running the DLA tasks of a graph. */

#include "targets/dla/dla_plan.h"

#include "targets/dla/dla_device.h"
#include "targets/dla/dla_placement.h"
#include "objects/tensor_layout.h"

#include <VX/vx_khr_nn.h>

#include <vdla/buffer.h>
#include <vdla/context.h>
#include <vdla/device.h>
#include <vdla/fence.h>
#include <vdla/op_stats.h>
#include <vdla/task_builder.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <set>

namespace vdla::vx::dla {

namespace {

/* Device jobs end within the driver's job timeout; this only guards
 * against a driver that never signals. */
constexpr std::chrono::seconds kWaitLimit{ 120 };

uint64_t monotonicNs()
{
	return std::chrono::duration_cast<std::chrono::nanoseconds>(
		std::chrono::steady_clock::now().time_since_epoch())
		.count();
}

bool wantsDla(vx_node node, Device *device, std::string &why)
{
	if (node->target == NodeTarget::Cpu || !Lowering::kernelSupported(node->kernel))
		return false;
	/*
	 * A softmax takes a dozen DLA operations, each paying the driver's
	 * per-operation cost, for what the CPU computes in microseconds at
	 * classifier sizes: the demo runs in 3.8 ms with it on the CPU and
	 * 7.1 ms on the DLA. "any" keeps it on the CPU; "dla" still asks.
	 */
	if (node->target == NodeTarget::Any && node->kernel->enumeration == VX_KERNEL_SOFTMAX_LAYER)
		return false;
	if (!device) {
		why = "no DLA device: " + node->context->dlaError;
		return false;
	}
	return Lowering::supported(node, why);
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

/* Whether DLA tasks work on @tensor through a packed copy of their own
 * (placeOnDevice()): neither memory it owns nor its root's in place. */
bool isStaged(vx_tensor tensor)
{
	return !ownsPackedMemory(tensor) && !addressedInPlace(tensor);
}

/*
 * Whether @node reads memory that one of @written covers without being the
 * same tensor, one of the two staged: a view of a tensor written, or a
 * tensor one of whose views was written. The staged one is copied by the
 * CPU before or after the task, so the node must be in a later task. (Views
 * addressed in place are their root's buffer: the task's links order them.)
 */
bool readsAnotherViewOf(vx_node node, const std::vector<vx_tensor> &written)
{
	for (vx_tensor input : tensorsOf(node, VX_INPUT))
		for (vx_tensor output : written)
			if (input != output && tensorsShareMemory(input, output)
				&& (isStaged(input) || isStaged(output)))
				return true;
	return false;
}

/* Rewrites slot numbers into address-list indices. */
class SlotMap
{
public:
	SlotMap(TaskBuilder &builder, const Lowering &lowering, const std::set<uint16_t> &written,
		const std::shared_ptr<Buffer> &constants)
		: builder_(builder), lowering_(lowering), written_(written), constants_(constants)
	{
	}

	uint16_t index(uint16_t slot)
	{
		auto it = indices_.find(slot);
		if (it != indices_.end())
			return it->second;
		uint16_t index;
		if (slot == kConstantSlot) {
			/* Flying tensors name the constant slot; a task without
			 * constants never reads it. */
			index = constants_ ? builder_.addBuffer(*constants_) : 0;
		} else {
			vx_tensor tensor = lowering_.tensors()[slot - 1];
			index = builder_.addBuffer(*tensor->buffer,
				written_.count(slot) ? BufferUse::Write : BufferUse::Read);
		}
		indices_[slot] = index;
		return index;
	}

	void map(Tensor &tensor) { tensor.buffer = index(tensor.buffer); }
	void map(Location &location)
	{
		if (location.buffer != Location::kNone)
			location.buffer = index(location.buffer);
	}

private:
	TaskBuilder &builder_;
	const Lowering &lowering_;
	const std::set<uint16_t> &written_;
	const std::shared_ptr<Buffer> &constants_;
	std::map<uint16_t, uint16_t> indices_;
};

void emit(Unit &unit, TaskBuilder &builder, SlotMap &slots)
{
	if (unit.conv) {
		slots.map(unit.conv->src);
		slots.map(unit.conv->weights);
		unit.conv->dst.buffer = 0;
	}
	if (unit.sdp) {
		SdpOp &sdp = *unit.sdp;
		if (unit.conv)
			sdp.src.buffer = 0;
		else
			slots.map(sdp.src);
		if (unit.pdp)
			sdp.dst.buffer = 0;
		else
			slots.map(sdp.dst);
		if (sdp.ewOp != SdpEwOp::None)
			slots.map(sdp.ew);
		slots.map(sdp.bias);
		slots.map(sdp.scale);
		slots.map(sdp.lut);
	}
	if (unit.pdp) {
		if (unit.sdp)
			unit.pdp->src.buffer = 0;
		else
			slots.map(unit.pdp->src);
		slots.map(unit.pdp->dst);
	}
	if (unit.cdp) {
		slots.map(unit.cdp->src);
		slots.map(unit.cdp->dst);
		slots.map(unit.cdp->lut);
	}

	FusedChain chain;
	if (unit.conv && unit.pdp)
		chain = builder.fuse(*unit.conv, *unit.sdp, *unit.pdp);
	else if (unit.conv)
		chain = builder.fuse(*unit.conv, *unit.sdp);
	else if (unit.sdp && unit.pdp)
		chain = builder.fuse(*unit.sdp, *unit.pdp);
	else if (unit.sdp)
		chain.head = chain.tail = builder.sdp(*unit.sdp);
	else if (unit.pdp)
		chain.head = chain.tail = builder.pdp(*unit.pdp);
	else
		chain.head = chain.tail = builder.cdp(*unit.cdp);
	unit.headOp = chain.head;
	unit.tailOp = chain.tail;
}

} /* namespace */

Plan::~Plan() = default;

vx_status Plan::build(vx_graph graph, std::shared_ptr<Plan> &plan)
{
	plan.reset();
	/* An SRAM buffer of the earlier plan may be a region shared by
	 * tensors whose lifetimes are checked again below, and a graph
	 * now on the CPU must not hold SRAM, which the CPU cannot read.
	 * The values need no keeping: a task writes them before reading. */
	releaseVirtualTensors(graph, false);
	bool anyNnNode = false;
	for (vx_node node : graph->order)
		anyNnNode |= Lowering::kernelSupported(node->kernel);
	Device *dev = anyNnNode ? device(graph->context) : nullptr;

	/* Targets first: an impossible "dla" fails before anything is built. */
	bool anyDla = false;
	for (vx_node node : graph->order) {
		std::string why;
		node->onDla = wantsDla(node, dev, why);
		node->dlaFused = false;
		if (node->target == NodeTarget::Dla && !node->onDla) {
			log(node, VX_ERROR_NOT_SUPPORTED, "node %s cannot run on the DLA: %s",
				node->kernel->kernelName.c_str(), why.c_str());
			return VX_ERROR_NOT_SUPPORTED;
		}
		anyDla |= node->onDla;
	}
	if (!anyDla)
		return VX_SUCCESS;

	/*
	 * DLA nodes first wherever the dependencies allow: consecutive DLA
	 * nodes make one task, and a task submitted before independent CPU
	 * nodes runs while they do.
	 */
	vx_status ordered = orderNodes(graph, [](vx_node node) { return node->onDla ? 0u : 1u; });
	if (ordered != VX_SUCCESS)
		return ordered;

	std::shared_ptr<Plan> built(new Plan());
	built->device_ = graph->context->dlaDevice;
	const bool fuse = featureEnabled("VDLA_VX_FUSION");
	/* The tensors written so far and their steps, by the tensor owning their memory. */
	std::map<vx_reference, std::vector<std::pair<vx_tensor, size_t>>> writers;
	/* Those orderNodes() just computed the order on. */
	const MemoryGroups &groups = *graph->memory;
	auto groupOf = [&](vx_tensor tensor) {
		return groups.of(reinterpret_cast<vx_reference>(tensor));
	};

	for (size_t i = 0; i < graph->order.size();) {
		Step step;
		if (!graph->order[i]->onDla) {
			step.cpuNode = graph->order[i++];
			/* Views read their root's memory, and roots their views'. */
			for (vx_tensor input : tensorsOf(step.cpuNode, VX_INPUT)) {
				auto sameMemory = writers.find(groupOf(input));
				if (sameMemory == writers.end())
					continue;
				for (const auto &[written, by] : sameMemory->second)
					if (!built->steps_[by].cpuNode
						&& tensorsShareMemory(written, input))
						step.needs = std::max(step.needs.value_or(0), by);
			}
			for (vx_tensor output : tensorsOf(step.cpuNode, VX_OUTPUT))
				writers[groupOf(output)].emplace_back(output, built->steps_.size());
			built->steps_.push_back(std::move(step));
			continue;
		}

		Lowering lowering;
		std::vector<vx_tensor> taskOutputs;
		for (; i < graph->order.size() && graph->order[i]->onDla
			&& !readsAnotherViewOf(graph->order[i], taskOutputs);
			i++) {
			for (vx_tensor output : tensorsOf(graph->order[i], VX_OUTPUT))
				taskOutputs.push_back(output);
			vx_status status = lowering.lower(graph->order[i], fuse);
			if (status != VX_SUCCESS)
				return status;
		}
		vx_status status = built->writeTask(graph, step, lowering);
		if (status != VX_SUCCESS)
			return status;
		for (const Unit &unit : step.units) {
			vx_tensor output = lowering.tensors()[unit.writes - 1];
			writers[groupOf(output)].emplace_back(output, built->steps_.size());
		}
		built->steps_.push_back(std::move(step));
	}

	auto context = Context::create(*dev);
	auto timeline = Fence::create(*dev, Fence::Type::Timeline);
	if (!context || !timeline) {
		log(graph, VX_ERROR_NO_RESOURCES, "DLA context: %s",
			(!context ? context.error() : timeline.error()).message().c_str());
		return VX_ERROR_NO_RESOURCES;
	}
	built->context_ = std::move(context.value());
	built->timeline_ = std::move(timeline.value());
	plan = std::move(built);
	return VX_SUCCESS;
}

vx_status Plan::writeTask(vx_graph graph, Step &step, Lowering &lowering)
{
	Device &dev = *device_;
	std::set<uint16_t> written;
	for (const Unit &unit : lowering.units())
		written.insert(unit.writes);
	/* Each unit starts once the units producing its inputs completed;
	 * SRAM sharing relies on exactly these links (dla_placement.h). */
	const std::vector<std::vector<size_t>> parents = unitParents(lowering.units());
	vx_status placed = placeTaskTensors(graph, lowering, parents, sramRegions_, step.buffers);
	if (placed != VX_SUCCESS)
		return placed;

	std::shared_ptr<Buffer> constants;
	if (!lowering.constants().empty()) {
		auto created = Buffer::create(dev, lowering.constants().size());
		if (!created || !created.value()->map()) {
			log(graph, VX_ERROR_NO_MEMORY, "DLA constants: %s",
				created ? "cannot map" : created.error().message().c_str());
			return VX_ERROR_NO_MEMORY;
		}
		constants = std::move(created.value());
		memcpy(constants->data(), lowering.constants().data(), lowering.constants().size());
		step.buffers.push_back(constants);
	}

	TaskBuilder builder;
	SlotMap slots(builder, lowering, written, constants);
	std::vector<Unit> &units = lowering.units();
	for (size_t u = 0; u < units.size(); u++) {
		emit(units[u], builder, slots);
		for (size_t p : parents[u])
			builder.link(units[p].tailOp, units[u].headOp);
	}
	auto task = builder.build(dev);
	if (!task) {
		log(graph, VX_FAILURE, "writing the DLA task: %s", task.error().message().c_str());
		return VX_FAILURE;
	}
	step.task = std::move(task.value());
	for (const Unit &unit : units)
		for (size_t n = 1; n < unit.nodes.size(); n++)
			unit.nodes[n]->dlaFused = true;
	for (uint16_t slot = 1; slot <= lowering.tensors().size(); slot++) {
		vx_tensor tensor = lowering.tensors()[slot - 1];
		if (!isStaged(tensor))
			continue;
		/* A task writes whole tensors, before any of its units reads them. */
		if (written.count(slot))
			step.copyOut.push_back(tensor);
		else
			step.copyIn.push_back(tensor);
	}
	for (vx_tensor tensor : lowering.copiedValues())
		step.copiedValues.emplace_back(tensor, memoryOwner(tensor)->writes);
	step.units = std::move(units);
	step.scratch = lowering.takeScratch();

	auto stats = Buffer::create(dev, OpStats::bytesFor(step.task.numOps()));
	if (!stats) {
		log(graph, VX_ERROR_NO_MEMORY, "DLA statistics: %s",
			stats.error().message().c_str());
		return VX_ERROR_NO_MEMORY;
	}
	step.stats = std::move(stats.value());
	return VX_SUCCESS;
}

/*
 * @withStats: the kernel writes the operations' device times, which costs
 * the firmware eight register reads per operation: only when performance
 * is enabled.
 */
vx_status Plan::submit(Step &step, bool withStats)
{
	for (int attempt = 0;; attempt++) {
		const uint64_t point = lastPoint_ + 1;
		auto seqno = context_->submit(step.task, {}, { timeline_.get(), point },
			{ withStats ? step.stats.get() : nullptr, 0 });
		if (seqno) {
			lastPoint_ = point;
			step.point = point;
			step.statsRequested = withStats;
			step.submittedNs = monotonicNs();
			return VX_SUCCESS;
		}
		/* A context banned by an earlier fault: start over on a new one. */
		if (seqno.error().code() == ECANCELED && attempt == 0) {
			auto context = Context::create(*device_);
			if (context) {
				context_ = std::move(context.value());
				continue;
			}
		}
		log(step.units.front().nodes.front(), VX_FAILURE, "DLA submit: %s",
			seqno.error().message().c_str());
		return VX_FAILURE;
	}
}

vx_status Plan::wait(vx_graph graph, Step &step, ApiLock &lock)
{
	lock.unlock();
	auto waited = timeline_->waitPoint(step.point, kWaitLimit);
	lock.lock();
	/*
	 * Waited for once, whatever the outcome: the final waitBefore() of a
	 * failed run must not wait for this step again (up to kWaitLimit more).
	 */
	const uint64_t point = step.point;
	step.point = 0;
	if (!waited) {
		log(graph, VX_FAILURE, "waiting for the DLA: %s", waited.error().message().c_str());
		return VX_FAILURE;
	}
	auto status = timeline_->status(point);
	if (!status || status->error) {
		std::string reason = status ? strerror(status->error) : status.error().message();
		log(step.units.front().nodes.front(), VX_FAILURE, "DLA task failed: %s",
			reason.c_str());
		return VX_FAILURE;
	}
	if (!step.statsRequested)
		return VX_SUCCESS;
	/*
	 * A DLA node's performance is its device time: a fused chain's time
	 * goes to its first node, the nodes fused into it take none, so the
	 * nodes' times add up to the task's. A node lowered to several units
	 * (softmax) takes the time of all of them: the units without nodes
	 * that follow its first.
	 */
	auto stats = OpStats::read(*step.stats, 0, step.task.numOps());
	const uint64_t end = uint64_t(status->timestamp.count());
	for (size_t u = 0; u < step.units.size(); u++) {
		const Unit &unit = step.units[u];
		uint64_t ns = 0;
		for (size_t v = u;
			stats && v < step.units.size() && (v == u || step.units[v].nodes.empty());
			v++)
			ns += uint64_t((*stats)[step.units[v].headOp].deviceTime.count());
		for (vx_node node : unit.nodes)
			addPerfSample(node->perf, step.submittedNs, end,
				node == unit.nodes.front() ? ns : 0);
	}
	return VX_SUCCESS;
}

vx_status Plan::waitBefore(vx_graph graph, size_t end, ApiLock &lock)
{
	vx_status status = VX_SUCCESS;
	for (size_t i = 0; i < end; i++) {
		Step &step = steps_[i];
		if (step.cpuNode || !step.point)
			continue;
		vx_status waited = wait(graph, step, lock);
		finish(step, waited);
		if (status == VX_SUCCESS)
			status = waited;
	}
	return status;
}

vx_status Plan::copyIn(Step &step)
{
	for (vx_tensor tensor : step.copyIn) {
		if (!tensor->storage()) {
			log(tensor, VX_ERROR_NO_MEMORY,
				"a DLA input tensor has no memory (its handle was swapped out)");
			return VX_ERROR_NO_MEMORY;
		}
		readPacked(tensor, tensor->buffer->data());
	}
	return VX_SUCCESS;
}

void Plan::copyOut(Step &step)
{
	/* prepare() checked that every tensor of the graph has memory. */
	for (vx_tensor tensor : step.copyOut)
		if (tensor->storage())
			writePacked(tensor, tensor->buffer->data());
}

bool Plan::copiedValuesChanged() const
{
	for (const Step &step : steps_)
		for (const auto &[tensor, writes] : step.copiedValues)
			if (memoryOwner(tensor)->writes != writes)
				return true;
	return false;
}

void Plan::finish(Step &step, vx_status status)
{
	for (const Unit &unit : step.units)
		for (vx_node node : unit.nodes)
			node->status = status;
}

vx_status Plan::run(vx_graph graph, ApiLock &lock, const CpuRunner &runCpu)
{
	vx_status status = VX_SUCCESS;
	size_t submitted = 0;
	for (size_t i = 0; i < steps_.size() && status == VX_SUCCESS; i++) {
		Step &step = steps_[i];
		if (step.cpuNode) {
			if (step.needs && steps_[*step.needs].point) {
				Step &producer = steps_[*step.needs];
				status = wait(graph, producer, lock);
				finish(producer, status);
				if (status != VX_SUCCESS)
					break;
			}
			status = runCpu(step.cpuNode, lock);
			continue;
		}
		/*
		 * Staged tensors are copied by the CPU, from and to memory
		 * that other tasks may use too (a view's root, another view
		 * of it): the tasks before end first, and the copies out are
		 * made before the next step starts.
		 */
		const bool staged = !step.copyIn.empty() || !step.copyOut.empty();
		if (staged) {
			status = waitBefore(graph, i, lock);
			if (status == VX_SUCCESS)
				status = copyIn(step);
			if (status != VX_SUCCESS)
				break;
		}
		status = submit(step, graph->context->performanceEnabled);
		if (status != VX_SUCCESS)
			break;
		submitted = i + 1;
		bool callbacks = false;
		for (const Unit &unit : step.units)
			for (vx_node node : unit.nodes)
				callbacks |= node->callback != nullptr;
		if (!callbacks && step.copyOut.empty())
			continue;

		/* Callbacks see their node's results: wait for them here. */
		status = wait(graph, step, lock);
		finish(step, status);
		if (status == VX_SUCCESS)
			copyOut(step);
		for (const Unit &unit : step.units) {
			for (vx_node node : unit.nodes) {
				if (status != VX_SUCCESS || !node->callback)
					continue;
				vx_nodecomplete_f callback = node->callback;
				lock.unlock();
				vx_action action = callback(node);
				lock.lock();
				if (action == VX_ACTION_ABANDON)
					status = VX_ERROR_GRAPH_ABANDONED;
			}
		}
	}

	/* Whatever was submitted ends before the graph does. */
	vx_status waited = waitBefore(graph, submitted, lock);
	return status == VX_SUCCESS ? waited : status;
}

} /* namespace vdla::vx::dla */
