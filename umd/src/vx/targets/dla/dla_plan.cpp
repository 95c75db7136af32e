/* SPDX-License-Identifier: MIT */
/* Building and running the DLA tasks of a graph (dla_plan.h). */

#include "targets/dla/dla_plan.h"

#include "targets/dla/dla_device.h"
#include "targets/dla/dla_placement.h"
#include "targets/dla/dla_target.h"
#include "framework/schedule.h"
#include "objects/tensor_layout.h"

#include <VX/vx_khr_nn.h>

#include <drm/vdla_accel.h>

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
#include <utility>

namespace vdla::vx::dla {

namespace {

uint64_t monotonicNs()
{
	return std::chrono::duration_cast<std::chrono::nanoseconds>(
		std::chrono::steady_clock::now().time_since_epoch())
		.count();
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
		: builder_(builder), lowering_(lowering), constants_(constants)
	{
		for (uint16_t slot : written)
			if (slot != kConstantSlot)
				writtenBuffers_.insert(bufferOf(lowering.tensors()[slot - 1]).get());
	}

	/*
	 * Tensors that share a buffer (the SRAM regions of virtual tensors,
	 * views of one root) share its entry: SUBMIT looks up and maps each
	 * entry, a cost per entry that a chain of layers would pay per layer.
	 * A tensor that can be rebound to another buffer owns its buffer
	 * (TaskWork::retarget), so rebinding an entry moves that tensor only.
	 */
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
			const Buffer *buffer = bufferOf(lowering_.tensors()[slot - 1]).get();
			auto entry = entries_.find(buffer);
			if (entry != entries_.end()) {
				index = entry->second;
			} else {
				index = builder_.addBuffer(*buffer,
					writtenBuffers_.count(buffer) ? BufferUse::Write
								      : BufferUse::Read);
				entries_[buffer] = index;
			}
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
	/* The address-list index of each slot mapped. */
	const std::map<uint16_t, uint16_t> &indices() const { return indices_; }

private:
	TaskBuilder &builder_;
	const Lowering &lowering_;
	const std::shared_ptr<Buffer> &constants_;
	std::set<const Buffer *> writtenBuffers_;
	std::map<const Buffer *, uint16_t> entries_;
	std::map<uint16_t, uint16_t> indices_;
};

enum class Engine { Conv, Sdp, Pdp, Cdp, Rubik };

/*
 * The engines of a unit's first and last operations (CONV -> SDP [-> PDP],
 * SDP [-> PDP], PDP, CDP, RUBIK).
 */
Engine firstEngine(const Unit &unit)
{
	if (unit.rubik)
		return Engine::Rubik;
	return unit.conv ? Engine::Conv : unit.sdp ? Engine::Sdp : unit.pdp ? Engine::Pdp : Engine::Cdp;
}

Engine lastEngine(const Unit &unit)
{
	if (unit.rubik)
		return Engine::Rubik;
	return unit.pdp ? Engine::Pdp : unit.sdp ? Engine::Sdp : unit.cdp ? Engine::Cdp : Engine::Conv;
}

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

	if (unit.rubik) {
		slots.map(unit.rubik->src);
		slots.map(unit.rubik->dst);
	}

	FusedChain chain;
	if (unit.rubik)
		chain.head = chain.tail = builder.rubik(*unit.rubik);
	else if (unit.conv && unit.pdp)
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

Plan::Plan(DlaTarget &target, std::shared_ptr<Device> device)
	: target_(target), device_(std::move(device))
{
}

Plan::~Plan() = default;

vx_status Plan::add(
	vx_graph graph, const std::vector<vx_node> &nodes, std::vector<std::unique_ptr<Work>> &works)
{
	const bool fuse = featureEnabled("VDLA_VX_FUSION");
	for (size_t i = 0; i < nodes.size();) {
		/* A node reading a staged view of what an earlier node of the
		 * task writes starts the next task. */
		Lowering lowering;
		std::vector<vx_tensor> taskOutputs;
		std::vector<vx_node> taskNodes;
		for (; i < nodes.size() && (taskNodes.empty() || !readsAnotherViewOf(nodes[i], taskOutputs));
			i++) {
			for (vx_tensor output : tensorsOf(nodes[i], VX_OUTPUT))
				taskOutputs.push_back(output);
			vx_status status = lowering.lower(nodes[i], fuse);
			if (status != VX_SUCCESS)
				return status;
			taskNodes.push_back(nodes[i]);
		}
		auto task = std::make_unique<TaskWork>(*this, std::move(taskNodes));
		vx_status status = task->write(graph, lowering);
		if (status != VX_SUCCESS)
			return status;
		tasks_.push_back(task.get());
		works.push_back(std::move(task));
	}
	return VX_SUCCESS;
}

vx_status Plan::complete(vx_graph graph)
{
	std::string why;
	context_ = target_.kernelContext(nullptr, why);
	if (!context_) {
		log(graph, VX_ERROR_NO_RESOURCES, "DLA context: %s", why.c_str());
		return VX_ERROR_NO_RESOURCES;
	}
	for (TaskWork *task : tasks_) {
		auto timeline = Fence::create(*device_, Fence::Type::Timeline);
		if (!timeline) {
			log(graph, VX_ERROR_NO_RESOURCES, "DLA timeline: %s",
				timeline.error().message().c_str());
			return VX_ERROR_NO_RESOURCES;
		}
		task->useTimeline(std::move(timeline.value()));
	}
	return VX_SUCCESS;
}

bool Plan::retarget(vx_graph graph)
{
	if (!featureEnabled("VDLA_VX_RETARGET"))
		return false;
	for (TaskWork *task : tasks_)
		if (!task->retarget(graph))
			return false;
	return true;
}

bool Plan::stale() const
{
	for (const TaskWork *task : tasks_)
		if (task->copiedValuesChanged())
			return true;
	return false;
}

uint64_t Plan::submit(const Task &task, const std::vector<SyncPoint> &waits, Buffer *stats,
	Fence &timeline, uint64_t &lastPoint, vx_node node)
{
	/* The nodes' performance is the device time alone (driver 1.7 measures just that). */
	const bool timeOnly = device_->info().driverVersion.atLeast(1, 7);
	for (int attempt = 0;; attempt++) {
		const uint64_t point = lastPoint + 1;
		auto seqno
			= context_->submit(task, waits, { &timeline, point }, { stats, 0, timeOnly });
		if (seqno) {
			lastPoint = point;
			return point;
		}
		/* A context banned by an earlier fault: start over on a new one. */
		if (seqno.error().code() == ECANCELED && attempt == 0) {
			std::string why;
			if (auto context = target_.kernelContext(context_.get(), why)) {
				context_ = std::move(context);
				continue;
			}
		}
		log(node, VX_FAILURE, "DLA submit: %s", seqno.error().message().c_str());
		return 0;
	}
}

vx_status TaskWork::write(vx_graph graph, Lowering &lowering)
{
	Device &dev = *plan_.device_;
	std::set<uint16_t> written;
	for (const Unit &unit : lowering.units())
		written.insert(unit.writes);
	/* Each unit starts once the units producing its inputs completed;
	 * SRAM sharing relies on exactly these links (dla_placement.h). */
	const std::vector<std::vector<size_t>> parents = unitParents(lowering.units());
	vx_status placed = placeTaskTensors(graph, lowering, parents, plan_.sramRegions_, buffers_);
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
		buffers_.push_back(constants);
	}

	TaskBuilder builder;
	SlotMap slots(builder, lowering, written, constants);
	/*
	 * An engine runs its operations one at a time in the task's order
	 * (docs/hw-spec.md, "Engines: common model"): a unit that starts on
	 * the engine its parent ends on needs no link. Without one the
	 * firmware enables it in the engine's other register group while the
	 * parent runs, and the engine goes on without waiting for the
	 * parent's interrupt to be handled.
	 */
	const bool engineOrder = featureEnabled("VDLA_VX_ENGINE_ORDER");
	/*
	 * The firmware enables an engine's operations in order, so a unit
	 * whose engine already runs an earlier unit that waits for the same
	 * parent needs no link either: the parent's consumers stay within the
	 * eight an operation has, whatever the fan-out (a deconvolution's
	 * phases all read its input).
	 */
	std::map<size_t, std::set<Engine>> waitedForOn;
	std::vector<Unit> &units = lowering.units();
	for (size_t u = 0; u < units.size(); u++) {
		emit(units[u], builder, slots);
		const Engine engine = firstEngine(units[u]);
		for (size_t p : parents[u]) {
			const bool ordered = (engineOrder && lastEngine(units[p]) == engine)
				|| waitedForOn[p].count(engine);
			if (!ordered)
				builder.link(units[p].tailOp, units[u].headOp);
			waitedForOn[p].insert(engine);
		}
	}
	auto task = builder.build(dev);
	if (!task) {
		log(graph, VX_FAILURE, "writing the DLA task: %s", task.error().message().c_str());
		return VX_FAILURE;
	}
	task_ = std::move(task.value());
	for (const auto &[slot, index] : slots.indices())
		if (slot != kConstantSlot)
			addressesOf_[lowering.tensors()[slot - 1]->serial].push_back(index);
	for (const Unit &unit : units)
		for (size_t n = 1; n < unit.nodes.size(); n++)
			unit.nodes[n]->fused = true;
	for (uint16_t slot = 1; slot <= lowering.tensors().size(); slot++) {
		vx_tensor tensor = lowering.tensors()[slot - 1];
		if (!isStaged(tensor))
			continue;
		/* A task writes whole tensors, before any of its units reads them. */
		if (written.count(slot))
			copyOut_.push_back(tensor);
		else
			copyIn_.push_back(tensor);
	}
	for (vx_tensor tensor : lowering.copiedValues())
		copiedValues_.emplace_back(tensor, memoryOwner(tensor)->writes);
	recordBindings(graph);
	units_ = std::move(units);
	scratch_ = lowering.takeScratch();

	auto stats = Buffer::create(dev, OpStats::bytesFor(task_.numOps()));
	if (!stats) {
		log(graph, VX_ERROR_NO_MEMORY, "DLA statistics: %s",
			stats.error().message().c_str());
		return VX_ERROR_NO_MEMORY;
	}
	stats_ = std::move(stats.value());
	return VX_SUCCESS;
}

bool TaskWork::waitOnDeviceFor(const std::vector<SyncFence> &fences)
{
	if (!copyIn_.empty() || fences.size() > DRM_VDLA_MAX_IN_SYNCS)
		return false;
	waitFences_ = &fences;
	return true;
}

/*
 * The kernel writes the operations' device times only when performance is
 * enabled: it costs the firmware a register read per operation.
 */
vx_status TaskWork::start(vx_graph graph, ApiLock &)
{
	/* Handed for this start only, whatever becomes of it. */
	const std::vector<SyncFence> *fences = std::exchange(waitFences_, nullptr);
	/*
	 * A job of this graph whose wait timed out may still run on the
	 * device, reading and writing its buffers: nothing of the graph is
	 * submitted again (it would queue behind it) before it has ended.
	 */
	if (plan_.target_.stillRunningLate(graph)) {
		log(nodes().front(), VX_FAILURE,
			"an earlier run of this graph is still on the device (its wait timed "
			"out): nothing is submitted again before it ends");
		setStatus(VX_FAILURE);
		return VX_FAILURE;
	}
	vx_status status = copyIn();
	if (status != VX_SUCCESS) {
		setStatus(status);
		return status;
	}
	/* The run's wait fences, as this device's (their syncobjs may go
	 * once the job is submitted: it holds the fences). */
	std::vector<std::unique_ptr<Fence>> waitFences;
	std::vector<SyncPoint> waits;
	for (size_t f = 0; fences && f < fences->size(); f++) {
		auto fence = (*fences)[f].toFence(*plan_.device_);
		if (!fence) {
			log(nodes().front(), VX_FAILURE, "a wait fence of the run: %s",
				fence.error().message().c_str());
			setStatus(VX_FAILURE);
			return VX_FAILURE;
		}
		waits.push_back({ fence->get(), 0 });
		waitFences.push_back(std::move(fence.value()));
	}
	const bool withStats = graph->context->performanceEnabled;
	point_ = plan_.submit(task_, waits, withStats ? stats_.get() : nullptr, *timeline_,
		lastPoint_, nodes().front());
	if (!point_) {
		setStatus(VX_FAILURE);
		return VX_FAILURE;
	}
	statsRequested_ = withStats;
	submittedNs_ = monotonicNs();
	return VX_SUCCESS;
}

vx_status TaskWork::wait(vx_graph graph, ApiLock &lock)
{
	if (!point_)
		return VX_SUCCESS;
	/* Once a wait of the graph timed out, the device is not waited for
	 * again in full: each further wait only looks. */
	const std::chrono::milliseconds limit = plan_.target_.stillRunningLate(graph)
		? std::chrono::milliseconds(0)
		: runWaitLimit();
	lock.unlock();
	auto status = timeline_->waitStatus(point_, limit);
	lock.lock();
	/*
	 * Waited for once, whatever the outcome: the end of a failed run must
	 * not wait for this task again (up to the limit more). One that timed
	 * out is remembered until it ends (start()).
	 */
	const uint64_t point = point_;
	point_ = 0;
	if (!status) {
		if (status.error().code() == ETIMEDOUT)
			plan_.target_.markLate(graph, timeline_, point);
		log(graph, VX_FAILURE, "waiting for the DLA: %s", status.error().message().c_str());
		setStatus(VX_FAILURE);
		return VX_FAILURE;
	}
	if (status->error) {
		log(nodes().front(), VX_FAILURE, "DLA task failed: %s", strerror(status->error));
		setStatus(VX_FAILURE);
		return VX_FAILURE;
	}
	if (statsRequested_)
		recordPerformance(uint64_t(status->timestamp.count()));
	copyOut();
	setStatus(VX_SUCCESS);
	return VX_SUCCESS;
}

/*
 * A DLA node's performance is its device time: a fused chain's time goes to
 * its first node, the nodes fused into it take none, so the nodes' times
 * add up to the task's. A node lowered to several units (softmax) takes the
 * time of all of them: the units without nodes that follow its first.
 */
void TaskWork::recordPerformance(uint64_t endNs)
{
	auto stats = OpStats::read(*stats_, 0, task_.numOps());
	for (size_t u = 0; u < units_.size(); u++) {
		const Unit &unit = units_[u];
		uint64_t ns = 0;
		for (size_t v = u; stats && v < units_.size() && (v == u || units_[v].nodes.empty());
			v++)
			ns += uint64_t((*stats)[units_[v].headOp].deviceTime.count());
		for (vx_node node : unit.nodes)
			addPerfSample(node->perf, submittedNs_, endNs, node == unit.nodes.front() ? ns : 0);
	}
}

vx_status TaskWork::copyIn()
{
	for (vx_tensor tensor : copyIn_) {
		if (!tensor->storage()) {
			log(tensor, VX_ERROR_NO_MEMORY,
				"a DLA input tensor has no CPU memory to copy from (its handle was "
				"swapped out, or its buffer has no CPU mapping)");
			return VX_ERROR_NO_MEMORY;
		}
		readPacked(tensor, bufferOf(tensor)->data());
	}
	return VX_SUCCESS;
}

void TaskWork::copyOut()
{
	/* The run checked that every tensor of the graph has memory. */
	for (vx_tensor tensor : copyOut_)
		if (tensor->storage())
			writePacked(tensor, bufferOf(tensor)->data());
}

namespace {

/* How many node parameters of @graph hold the object of @serial. */
size_t usesOf(vx_graph graph, uint64_t serial)
{
	size_t uses = 0;
	for (vx_node node : graph->nodes)
		for (vx_reference parameter : node->parameters)
			uses += parameter && parameter->serial == serial;
	return uses;
}

/*
 * The tensors of @graph that a view among its parameters reads: the only
 * ones another tensor of the graph shares memory with, for tensors that own
 * their packed memory (what retargeting takes). One walk for every check.
 */
std::set<vx_tensor> viewedTensors(vx_graph graph)
{
	std::set<vx_tensor> viewed;
	for (vx_node node : graph->nodes)
		for (vx_reference parameter : node->parameters)
			if (parameter && parameter->type == VX_TYPE_TENSOR
				&& reinterpret_cast<vx_tensor>(parameter)->root)
				viewed.insert(memoryOwner(reinterpret_cast<vx_tensor>(parameter)));
	return viewed;
}

} /* namespace */

void TaskWork::recordBindings(vx_graph graph)
{
	bound_.clear();
	const std::set<vx_tensor> viewed = viewedTensors(graph);
	for (vx_node node : nodes()) {
		for (size_t i = 0; i < node->parameters.size(); i++) {
			vx_reference ref = node->parameters[i];
			Bound bound{ node, i, ref ? ref->serial : 0, false, nullptr };
			if (ref && ref->type == VX_TYPE_TENSOR) {
				auto tensor = reinterpret_cast<vx_tensor>(ref);
				bound.retargetable = ownsPackedMemory(tensor) && !tensor->isVirtual
					&& !viewed.count(tensor)
					&& std::none_of(copiedValues_.begin(), copiedValues_.end(),
						[&](const auto &copied) { return copied.first == tensor; });
				bound.buffer = bufferOf(tensor);
			}
			bound_.push_back(std::move(bound));
		}
	}
}

bool TaskWork::retarget(vx_graph graph)
{
	/* The tensors that replace each earlier one, by the earlier one's serial. */
	std::map<uint64_t, vx_tensor> changes;
	std::map<uint64_t, std::shared_ptr<Buffer>> oldBuffers;
	size_t rebound = 0;
	for (const Bound &bound : bound_) {
		vx_reference now = bound.node->parameters[bound.index];
		if ((now ? now->serial : 0) == bound.serial)
			continue;
		if (!bound.retargetable || !now || now->type != VX_TYPE_TENSOR)
			return false;
		auto tensor = reinterpret_cast<vx_tensor>(now);
		auto [it, added] = changes.emplace(bound.serial, tensor);
		if (!added && it->second != tensor)
			return false;
		oldBuffers[bound.serial] = bound.buffer;
		rebound++;
	}
	/*
	 * Only a tensor that owned its packed memory, replaced everywhere in the
	 * graph by one that owns its own, neither overlapping anything else of
	 * the graph nor copied into the task's constants, leaves the lowering,
	 * the placement and the order as they were: the task just names the
	 * new tensor's buffer. Anything else is planned again.
	 */
	size_t newUses = 0;
	const std::set<vx_tensor> viewed = viewedTensors(graph);
	for (const auto &[old, now] : changes) {
		if (!ownsPackedMemory(now) || now->isVirtual || !addressesOf_.count(old)
			|| usesOf(graph, old) || viewed.count(now))
			return false;
		newUses += usesOf(graph, now->serial);
	}
	if (newUses != rebound)
		return false;
	for (const auto &[old, now] : changes)
		if (placeOnDevice(now) != VX_SUCCESS || !bufferOf(now))
			return false;

	for (const auto &[old, now] : changes) {
		const std::shared_ptr<Buffer> buffer = bufferOf(now);
		for (uint16_t index : addressesOf_[old])
			task_.rebind(index, *buffer);
		std::replace(buffers_.begin(), buffers_.end(), oldBuffers[old], buffer);
		addressesOf_[now->serial] = std::move(addressesOf_[old]);
		addressesOf_.erase(old);
	}
	recordBindings(graph);
	return true;
}

bool TaskWork::copiedValuesChanged() const
{
	for (const auto &[tensor, writes] : copiedValues_)
		if (memoryOwner(tensor)->writes != writes)
			return true;
	return false;
}

void TaskWork::setStatus(vx_status status)
{
	for (vx_node node : nodes())
		node->status = status;
}

} /* namespace vdla::vx::dla */
