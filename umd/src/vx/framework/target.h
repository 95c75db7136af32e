/* SPDX-License-Identifier: MIT */
/*
 * Where nodes run. The graph engine knows the CPU and the DLA only through
 * this interface (docs/architecture.md, "Targets"):
 *
 * - vxSetNodeTarget() and vxSetImmediateModeTarget() ask a target whether
 *   it can ever run a kernel (canRun());
 * - verification, once every node's parameters are validated, asks the
 *   targets in order of preference which one takes each node (takes()),
 *   then hands each run of consecutive nodes of one target to that
 *   target's plan for the graph (TargetPlan::add()), which turns them into
 *   work: a CPU node, or a DLA task of several nodes;
 * - a run starts each work in order and waits for it where a later work
 *   of another target reads what it writes (framework/schedule.h).
 *
 * A new target (another device) implements these three classes; the
 * engine does not change.
 */
#pragma once

#include "framework/object.h"

#include <memory>
#include <string>
#include <vector>

namespace vdla::vx {

/*
 * One step of a run: a CPU node, or a DLA task of consecutive nodes. The
 * API lock is held on entry to and exit from every function.
 */
class Work
{
public:
	explicit Work(std::vector<vx_node> nodes) : nodes_(std::move(nodes)) { }
	virtual ~Work() = default;
	Work(const Work &) = delete;
	Work &operator=(const Work &) = delete;

	/* The nodes it runs, in order: their results are ready once it ended. */
	const std::vector<vx_node> &nodes() const { return nodes_; }

	/*
	 * Starts the work: a CPU node runs to its end (the lock is dropped
	 * meanwhile), a DLA task is submitted. On failure the nodes' status
	 * says why.
	 */
	virtual vx_status start(vx_graph graph, ApiLock &lock) = 0;
	/* Waits until started work ended (at once if it has); sets the nodes'
	 * status and performance. Each start is waited for once. */
	virtual vx_status wait(vx_graph graph, ApiLock &lock) = 0;
	/* Started and not waited for yet. */
	virtual bool outstanding() const = 0;
	/* Every earlier work must have ended before it starts (it copies
	 * memory other work may use). */
	virtual bool startsAlone() const { return false; }
	/* It must end before the next work starts (it copies results out). */
	virtual bool endsBeforeNext() const { return false; }
	/*
	 * Called right before start() with the run's wait fences
	 * (vdla::vx::setGraphWaitFences()), which outlive it: true if the
	 * jobs start() submits will wait for them on the device; false, and
	 * the CPU waits for them first (CPU work, too many fences for a job).
	 */
	virtual bool waitOnDeviceFor(const std::vector<SyncFence> &) { return false; }

private:
	std::vector<vx_node> nodes_;
};

/*
 * What one target made of one verified graph: its work, and what that work
 * shares (a DLA's kernel context and SRAM). The target runs its own works
 * in the order it was given them.
 */
class TargetPlan
{
public:
	virtual ~TargetPlan() = default;
	/* Appends the work that runs @nodes, consecutive in the graph's order
	 * and all taken by this target. */
	virtual vx_status add(
		vx_graph graph, const std::vector<vx_node> &nodes, std::vector<std::unique_ptr<Work>> &works)
		= 0;
	/* Called once every node was added. */
	virtual vx_status complete(vx_graph) { return VX_SUCCESS; }
	/* Values the work holds copies of (DLA biases) changed: plan again. */
	virtual bool stale() const { return false; }
	/*
	 * Node parameters were rebound to objects of the same meta data:
	 * makes the work use them, where that needs no new plan. False when
	 * the graph must be planned again (then nothing may have changed
	 * that a new plan would not redo).
	 */
	virtual bool retarget(vx_graph) { return true; }
};

class Target
{
public:
	virtual ~Target() = default;

	virtual NodeTarget kind() const = 0;
	/* As vxSetNodeTarget() names it: "cpu", "dla". */
	virtual const char *name() const = 0;

	/* Whether the target exists here (a DLA device opened); if not, @why. */
	virtual bool available(std::string &) { return true; }
	/* Whether a node of @kernel can ever run here; if not, @why says why. */
	virtual bool canRun(vx_context context, vx_kernel kernel, std::string &why) = 0;
	/* At verification, parameters validated: whether @node runs here
	 * when its target (vxSetNodeTarget) allows it; if not, @why. */
	virtual bool takes(vx_node node, std::string &why) = 0;
	/* A new, empty plan for @graph. */
	virtual std::unique_ptr<TargetPlan> plan(vx_graph graph) = 0;
	/*
	 * What @graph's objects hold on this target and no plan needs any
	 * more: before the graph is planned again (@unreachable false), and
	 * when the application released the graph (true).
	 */
	virtual void release(vx_graph, bool /* unreachable */) { }
};

/* Every target a new context has, in order of preference: the DLA, then
 * the CPU (targets/targets.cpp, the one place that knows them all). */
std::vector<std::unique_ptr<Target>> createTargets(vx_context context);
/* The targets of @context in order of preference. */
inline const std::vector<std::unique_ptr<Target>> &targets(vx_context context)
{
	return context->targets;
}
/* The target of @kind (Cpu or Dla), which every context has. */
Target &target(vx_context context, NodeTarget kind);

} /* namespace vdla::vx */
