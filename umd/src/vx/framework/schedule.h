/* SPDX-License-Identifier: MIT */
/*
 * How a verified graph runs (docs/architecture.md, "Graph engine"): the
 * work of its targets in the graph's order, each work started once the
 * work of other targets whose results it reads has ended.
 */
#pragma once

#include "framework/target.h"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace vdla::vx {

/*
 * How long a run waits for one thing: a DLA task, or a wait fence on the
 * CPU. Device jobs end within the driver's job timeout once they run, but a
 * job may queue behind other processes' work for longer;
 * VDLA_VX_WAIT_LIMIT_MS shortens it (for tests).
 */
std::chrono::milliseconds runWaitLimit();

class Schedule
{
public:
	~Schedule();

	/*
	 * Places each node on the first target (in order of preference)
	 * that takes it among those vxSetNodeTarget() allows, orders the
	 * nodes so that a target's nodes are consecutive wherever the
	 * dependencies allow, and lets each target plan its runs of nodes.
	 * Errors: VX_ERROR_NOT_SUPPORTED (a node set to a target that cannot
	 * run it; the log says why), and those of the targets' plans.
	 */
	static vx_status build(vx_graph graph, std::shared_ptr<Schedule> &schedule);

	/* Runs the graph once; the API lock is dropped while work runs or is
	 * waited for. Node callbacks run once their node's work ended. */
	vx_status run(vx_graph graph, ApiLock &lock);

	/* A target's plan holds values that changed since: build again. */
	bool stale() const;
	/* Orders @graph's nodes on its objects as they are now, as build()
	 * did (by target, where it placed them on several). */
	vx_status order(vx_graph graph) const;
	/* After rebindings to objects of the same meta data, and order():
	 * whether the order is the planned one and every target's plan took
	 * the new objects without being built again. */
	bool retarget(vx_graph graph);

private:
	Schedule() = default;
	/* Starts the works in order (run()), the first ones after @fences
	 * signalled; @started counts those started. */
	vx_status runWorks(vx_graph graph, ApiLock &lock, size_t &started,
		std::vector<SyncFence> &fences);
	/* Waits for every work before @end still outstanding. */
	vx_status waitBefore(vx_graph graph, size_t end, ApiLock &lock);

	/* Declared first, destroyed last: works point into their plans. */
	std::map<Target *, std::unique_ptr<TargetPlan>> plans_;
	std::vector<std::unique_ptr<Work>> works_;
	/* Sets needs_ from the objects the works' nodes use now. */
	void findNeeds(vx_graph graph);

	/* Per work: the plan it belongs to, and the last earlier work of
	 * another plan that writes memory it reads, which must have ended
	 * before it starts. */
	std::vector<TargetPlan *> planOf_;
	std::vector<std::optional<size_t>> needs_;
	/* The order the work was planned in, and whether it was sorted by target. */
	std::vector<vx_node> order_;
	bool severalTargets_ = false;
};

} /* namespace vdla::vx */
