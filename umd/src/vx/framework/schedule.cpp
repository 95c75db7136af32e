/* SPDX-License-Identifier: MIT */
/* Placing, planning and running a verified graph's work (schedule.h). */

#include "framework/schedule.h"

#include "objects/tensor_layout.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace vdla::vx {

namespace {

const char *kindName(NodeTarget kind)
{
	return kind == NodeTarget::Dla ? "dla" : kind == NodeTarget::Cpu ? "cpu" : "any";
}

/*
 * Waits on the CPU, without the API lock, for the run's wait fences
 * (vdla::vx::setGraphWaitFences()); VX_FAILURE and the log when one does
 * not signal in time or signals an error.
 */
vx_status waitOnCpu(vx_graph graph, const std::vector<SyncFence> &fences, ApiLock &lock)
{
	const auto limit = runWaitLimit();
	for (const SyncFence &fence : fences) {
		lock.unlock();
		auto status = fence.wait(limit);
		lock.lock();
		if (!status || status->error) {
			log(graph, VX_FAILURE, "a wait fence of the run (point %llu): %s",
				static_cast<unsigned long long>(fence.point()),
				!status ? status.error().message().c_str()
					: strerror(status->error));
			return VX_FAILURE;
		}
	}
	return VX_SUCCESS;
}

/* Places @node on the first target that takes it; false and the log when none does. */
bool place(vx_node node)
{
	node->placedOn = nullptr;
	node->fused = false;
	std::string why;
	for (const std::unique_ptr<Target> &target : targets(node->context)) {
		if (node->target != NodeTarget::Any && node->target != target->kind())
			continue;
		if (target->takes(node, why)) {
			node->placedOn = target.get();
			return true;
		}
	}
	log(node, VX_ERROR_NOT_SUPPORTED, "node %s cannot run on the %s: %s",
		node->kernel->kernelName.c_str(), kindName(node->target), why.c_str());
	return false;
}

/* The rank of @target in the order of preference. */
unsigned rankOf(vx_context context, const Target *target)
{
	const auto &all = targets(context);
	for (unsigned i = 0; i < all.size(); i++)
		if (all[i].get() == target)
			return i;
	return unsigned(all.size());
}

/* The nodes of the preferred target first wherever the dependencies allow. */
vx_status orderByTarget(vx_graph graph)
{
	return orderNodes(
		graph, [graph](vx_node node) { return rankOf(graph->context, node->placedOn); });
}

} /* namespace */

Schedule::~Schedule() = default;

vx_status Schedule::build(vx_graph graph, std::shared_ptr<Schedule> &schedule)
{
	schedule.reset();
	const auto &all = targets(graph->context);
	for (const std::unique_ptr<Target> &target : all)
		target->release(graph, false);

	bool severalTargets = false;
	for (vx_node node : graph->order) {
		if (!place(node))
			return VX_ERROR_NOT_SUPPORTED;
		severalTargets |= node->placedOn != graph->order.front()->placedOn;
	}
	/*
	 * The preferred target's nodes first wherever the dependencies
	 * allow: consecutive nodes of a target make one work (a DLA task),
	 * and work submitted before independent CPU nodes runs while they do.
	 */
	if (severalTargets) {
		vx_status ordered = orderByTarget(graph);
		if (ordered != VX_SUCCESS)
			return ordered;
	}

	std::shared_ptr<Schedule> built(new Schedule());
	built->severalTargets_ = severalTargets;
	built->order_ = graph->order;
	for (size_t i = 0; i < graph->order.size();) {
		Target *target = graph->order[i]->placedOn;
		std::vector<vx_node> run;
		for (; i < graph->order.size() && graph->order[i]->placedOn == target; i++)
			run.push_back(graph->order[i]);
		std::unique_ptr<TargetPlan> &plan = built->plans_[target];
		if (!plan)
			plan = target->plan(graph);
		vx_status status = plan->add(graph, run, built->works_);
		if (status != VX_SUCCESS)
			return status;
		built->planOf_.resize(built->works_.size(), plan.get());
	}
	built->findNeeds(graph);
	for (auto &[target, plan] : built->plans_) {
		vx_status status = plan->complete(graph);
		if (status != VX_SUCCESS)
			return status;
	}
	schedule = std::move(built);
	graph->plans++;
	return VX_SUCCESS;
}

void Schedule::findNeeds(vx_graph graph)
{
	/* Which work writes memory of each group, and through which tensor. */
	std::map<vx_reference, std::vector<std::pair<vx_tensor, size_t>>> writers;
	const MemoryGroups &groups = *graph->memory;
	auto groupOf = [&](vx_tensor tensor) {
		return groups.of(reinterpret_cast<vx_reference>(tensor));
	};
	needs_.assign(works_.size(), std::nullopt);
	for (size_t w = 0; w < works_.size(); w++) {
		/* Views read their root's memory, and roots their views'. */
		for (vx_node node : works_[w]->nodes()) {
			for (vx_tensor input : tensorsOf(node, VX_INPUT)) {
				auto sameMemory = writers.find(groupOf(input));
				if (sameMemory == writers.end())
					continue;
				for (const auto &[written, by] : sameMemory->second)
					if (planOf_[by] != planOf_[w] && tensorsShareMemory(written, input))
						needs_[w] = std::max(needs_[w].value_or(0), by);
			}
		}
		for (vx_node node : works_[w]->nodes())
			for (vx_tensor output : tensorsOf(node, VX_OUTPUT))
				writers[groupOf(output)].emplace_back(output, w);
	}
}

bool Schedule::stale() const
{
	for (const auto &[target, plan] : plans_)
		if (plan->stale())
			return true;
	return false;
}

vx_status Schedule::order(vx_graph graph) const
{
	return severalTargets_ ? orderByTarget(graph) : orderNodes(graph);
}

bool Schedule::retarget(vx_graph graph)
{
	/* The rebound objects may order the nodes otherwise (order()). */
	if (graph->order != order_)
		return false;
	for (const auto &[target, plan] : plans_)
		if (!plan->retarget(graph))
			return false;
	/* A CPU node may now read what another target's work writes. */
	findNeeds(graph);
	return true;
}

std::chrono::milliseconds runWaitLimit()
{
	if (const char *value = getenv("VDLA_VX_WAIT_LIMIT_MS"); value && *value)
		return std::chrono::milliseconds(strtoul(value, nullptr, 10));
	return std::chrono::seconds(120);
}

vx_status Schedule::waitBefore(vx_graph graph, size_t end, ApiLock &lock)
{
	vx_status status = VX_SUCCESS;
	for (size_t i = 0; i < end; i++) {
		if (!works_[i]->outstanding())
			continue;
		vx_status waited = works_[i]->wait(graph, lock);
		if (status == VX_SUCCESS)
			status = waited;
	}
	return status;
}

vx_status Schedule::run(vx_graph graph, ApiLock &lock)
{
	size_t started = 0;
	vx_status status;
	/* This run takes them: the next one waits for nothing. */
	std::vector<SyncFence> fences = std::move(graph->waitFences);
	graph->waitFences.clear();
	try {
		status = runWorks(graph, lock, started, fences);
	} catch (...) {
		/*
		 * A user kernel or callback threw (without the lock): the work
		 * already on a device ends before the run does, as after a
		 * failing node, then the caller reports the exception.
		 */
		if (!lock.owns_lock())
			lock.lock();
		waitBefore(graph, started, lock);
		throw;
	}
	/* Whatever was started ends before the graph does. */
	vx_status waited = waitBefore(graph, started, lock);
	return status == VX_SUCCESS ? waited : status;
}

vx_status Schedule::runWorks(
	vx_graph graph, ApiLock &lock, size_t &started, std::vector<SyncFence> &fences)
{
	vx_status status = VX_SUCCESS;
	for (size_t i = 0; i < works_.size() && status == VX_SUCCESS; i++) {
		Work &work = *works_[i];
		if (needs_[i] && works_[*needs_[i]]->outstanding())
			status = works_[*needs_[i]]->wait(graph, lock);
		/* It copies memory that earlier work may use too (a view's
		 * root, another view of it). */
		if (status == VX_SUCCESS && work.startsAlone())
			status = waitBefore(graph, i, lock);
		if (status != VX_SUCCESS)
			break;
		/* Device work waits on the device; before any other, the CPU
		 * waits, after which no later work needs to. Handed right before
		 * start(), which takes them: nothing keeps them past this run. */
		if (!fences.empty() && !work.waitOnDeviceFor(fences)) {
			status = waitOnCpu(graph, fences, lock);
			fences.clear();
			if (status != VX_SUCCESS)
				break;
		}
		status = work.start(graph, lock);
		started = i + 1;
		if (status != VX_SUCCESS)
			break;

		const bool callbacks = std::any_of(work.nodes().begin(), work.nodes().end(),
			[](vx_node node) { return node->callback != nullptr; });
		if (!callbacks && !work.endsBeforeNext())
			continue;
		/* Callbacks see their node's results. */
		status = work.wait(graph, lock);
		for (vx_node node : work.nodes()) {
			if (status != VX_SUCCESS || !node->callback)
				continue;
			vx_nodecomplete_f callback = node->callback;
			lock.unlock();
			const vx_action action = callback(node);
			lock.lock();
			if (action == VX_ACTION_ABANDON)
				status = VX_ERROR_GRAPH_ABANDONED;
		}
	}
	return status;
}

} /* namespace vdla::vx */
