/* SPDX-License-Identifier: MIT */
/*
 * The DLA's part of a verified graph (framework/target.h): each run of
 * consecutive DLA nodes becomes one task (or a few, where a node reads a
 * view of what an earlier node of the run writes), written once at
 * verification. A run submits each task with one ioctl on the graph's
 * kernel context, whose jobs the device runs in order, and waits for a
 * task only where the engine asks: a CPU node or a node callback needs
 * its results, or it copies results out.
 */
#pragma once

#include "framework/target.h"
#include "targets/dla/dla_lower.h"

#include <vdla/task.h>

#include <map>
#include <memory>
#include <vector>

namespace vdla {
class Buffer;
class Context;
class Device;
class Fence;
} /* namespace vdla */

namespace vdla::vx::dla {

class DlaTarget;
class Plan;

/* One DLA task and what it needs. */
class TaskWork : public Work
{
public:
	TaskWork(Plan &plan, std::vector<vx_node> nodes) : Work(std::move(nodes)), plan_(plan) { }

	vx_status start(vx_graph graph, ApiLock &lock) override;
	vx_status wait(vx_graph graph, ApiLock &lock) override;
	bool outstanding() const override { return point_ != 0; }
	bool startsAlone() const override { return !copyIn_.empty() || !copyOut_.empty(); }
	bool endsBeforeNext() const override { return !copyOut_.empty(); }
	/* Not when staged inputs are copied on the CPU, which must wait first,
	 * nor for more fences than a job waits for. */
	bool waitOnDeviceFor(const std::vector<SyncFence> &fences) override;

	/* Lowers @lowering's units into the task (placing their tensors). */
	vx_status write(vx_graph graph, Lowering &lowering);
	/* Whether the application wrote a tensor whose values the task holds
	 * a copy of (biases) since it was written. */
	bool copiedValuesChanged() const;
	/* Names the tensors its nodes' parameters were rebound to, where only
	 * addresses change (dla_plan.cpp); false when it must be written again. */
	bool retarget(vx_graph graph);
	/* The timeline its jobs signal (Plan::complete()). */
	void useTimeline(std::shared_ptr<Fence> timeline) { timeline_ = std::move(timeline); }

private:
	/* Copies the staged inputs into their buffers (VX_ERROR_NO_MEMORY
	 * when one has no memory). */
	vx_status copyIn();
	void copyOut();
	void setStatus(vx_status status);
	/* Records what its nodes' parameters hold now (bound_). */
	void recordBindings(vx_graph graph);
	void recordPerformance(uint64_t endNs);

	Plan &plan_;
	/* What the next start() waits for on the device (waitOnDeviceFor()). */
	const std::vector<SyncFence> *waitFences_ = nullptr;
	std::vector<Unit> units_;
	Task task_;
	/* The buffers the task uses, kept alive with it. */
	std::vector<std::shared_ptr<Buffer>> buffers_;
	/* The lowering's intermediate tensors, which those buffers back. */
	std::vector<std::unique_ptr<_vx_tensor_t>> scratch_;
	/* Views and from-handle tensors the task reads and writes packed
	 * copies of (objects/tensor_layout.h): copied in before each submit,
	 * and out once the task ended. */
	std::vector<vx_tensor> copyIn_;
	std::vector<vx_tensor> copyOut_;
	/* The tensors copied into the task's constants, and the number of
	 * writes of their memory then. */
	std::vector<std::pair<vx_tensor, uint64_t>> copiedValues_;
	/*
	 * What each parameter of the task's nodes held when it was written:
	 * the object's serial (never a pointer to dereference: the object may
	 * be gone since), whether a tensor there may be replaced by changing
	 * addresses only, and its device buffer. The address-list entries of
	 * each tensor the operations name, by serial.
	 */
	struct Bound {
		vx_node node;
		size_t index;
		uint64_t serial;
		bool retargetable;
		std::shared_ptr<Buffer> buffer;
	};
	std::vector<Bound> bound_;
	std::map<uint64_t, std::vector<uint16_t>> addressesOf_;
	/* Where the kernel writes each operation's device time. */
	std::shared_ptr<Buffer> stats_;
	/* Whether the last submit asked for it (performance enabled). */
	bool statsRequested_ = false;
	/*
	 * The task's own timeline (made by Plan::complete()), shared with the
	 * target while a job whose wait timed out may still run
	 * (DlaTarget::markLate()). Its own: a timeline merges a signalled
	 * point into the next one once a lookup walks past it, after which
	 * the point's outcome is gone; each task waits for its point before
	 * it submits the next, so the point it asks about is always the last.
	 */
	std::shared_ptr<Fence> timeline_;
	uint64_t lastPoint_ = 0;
	/* The timeline point of the last submit; 0 once waited for. */
	uint64_t point_ = 0;
	uint64_t submittedNs_ = 0;
};

/* The DLA tasks of one graph, and the kernel context and SRAM they share. */
class Plan : public TargetPlan
{
public:
	Plan(DlaTarget &target, std::shared_ptr<Device> device);
	~Plan() override;

	vx_status add(vx_graph graph, const std::vector<vx_node> &nodes,
		std::vector<std::unique_ptr<Work>> &works) override;
	vx_status complete(vx_graph graph) override;
	bool retarget(vx_graph graph) override;
	bool stale() const override;

private:
	friend class TaskWork;

	/* Submits @task after @waits, signalling the next point of @timeline
	 * after @lastPoint, which it returns and records (0 on failure). */
	uint64_t submit(const Task &task, const std::vector<SyncPoint> &waits, Buffer *stats,
		Fence &timeline, uint64_t &lastPoint, vx_node node);

	DlaTarget &target_;
	std::shared_ptr<Device> device_;
	/* Its own, or shared with other graphs (DlaTarget::kernelContext()). */
	std::shared_ptr<Context> context_;
	std::vector<TaskWork *> tasks_;
	/* SRAM regions the tasks' short-lived tensors share (dla_placement.h). */
	std::vector<std::shared_ptr<Buffer>> sramRegions_;
};

} /* namespace vdla::vx::dla */
