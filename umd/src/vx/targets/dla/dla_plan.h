/* SPDX-License-Identifier: MIT */
/*
 * How a verified graph runs when some of its nodes are on the DLA: a
 * sequence of steps in the graph's order, each either one CPU node or one
 * DLA task made of a run of consecutive DLA nodes. Tasks are written once
 * at verification; each execution submits each task with one ioctl and
 * never waits for the device except where a CPU node (or a node callback)
 * needs a task's results.
 */
#pragma once

#include "targets/dla/dla_lower.h"
#include "framework/object.h"

#include <vdla/task.h>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace vdla {
class Buffer;
class Context;
class Fence;
} /* namespace vdla */

namespace vdla::vx::dla {

class Plan
{
public:
	/* Runs one CPU node with the API lock held on entry and exit. */
	using CpuRunner = std::function<vx_status(vx_node node, ApiLock &lock)>;

	~Plan();

	/*
	 * Chooses each node's target (vxSetNodeTarget; "any" means the DLA
	 * when the node can run there), lowers the DLA nodes and writes their
	 * tasks. @plan stays null when every node runs on the CPU.
	 * Errors: VX_ERROR_NOT_SUPPORTED (a node set to "dla" cannot run
	 * there; the log says why), VX_ERROR_NO_MEMORY, VX_FAILURE (the task
	 * could not be written).
	 */
	static vx_status build(vx_graph graph, std::shared_ptr<Plan> &plan);

	/* Executes the graph once; the API lock is dropped while waiting. */
	vx_status run(vx_graph graph, ApiLock &lock, const CpuRunner &runCpu);

	/* Whether the application wrote a tensor whose values the tasks
	 * hold a copy of (biases) since they were written: build again. */
	bool copiedValuesChanged() const;

private:
	struct Step {
		/* A CPU step: */
		vx_node cpuNode = nullptr;
		/* The DLA step whose results it reads, if any. */
		std::optional<size_t> needs;

		/* A DLA step: */
		std::vector<Unit> units;
		Task task;
		/* The buffers the task uses, kept alive with it. */
		std::vector<std::shared_ptr<Buffer>> buffers;
		/* The lowering's intermediate tensors, which those buffers back. */
		std::vector<std::unique_ptr<_vx_tensor_t>> scratch;
		/* Views and from-handle tensors the task reads and writes
		 * packed copies of (tensor_layout.h): copied in before each
		 * submit, and out once the task ended. */
		std::vector<vx_tensor> copyIn;
		std::vector<vx_tensor> copyOut;
		/* The tensors copied into the task's constants, and the
		 * number of writes of their memory then. */
		std::vector<std::pair<vx_tensor, uint64_t>> copiedValues;
		/* Where the kernel writes each operation's device time. */
		std::shared_ptr<Buffer> stats;
		/* Whether the last submit asked for it (performance enabled). */
		bool statsRequested = false;
		uint64_t point = 0;
		uint64_t submittedNs = 0;
	};

	Plan() = default;
	vx_status writeTask(vx_graph graph, Step &step, Lowering &lowering);
	vx_status submit(Step &step, bool withStats);
	vx_status wait(vx_graph graph, Step &step, ApiLock &lock);
	/* Waits for every step before @end that is still on the device. */
	vx_status waitBefore(vx_graph graph, size_t end, ApiLock &lock);
	/* Copies the step's staged inputs into its buffers (VX_ERROR_NO_MEMORY
	 * when one has no memory). */
	vx_status copyIn(Step &step);
	void copyOut(Step &step);
	void finish(Step &step, vx_status status);

	std::shared_ptr<Device> device_;
	std::unique_ptr<Context> context_;
	std::unique_ptr<Fence> timeline_;
	uint64_t lastPoint_ = 0;
	std::vector<Step> steps_;
	/* SRAM regions the tasks' short-lived tensors share (dla_placement.h). */
	std::vector<std::shared_ptr<Buffer>> sramRegions_;
};

} /* namespace vdla::vx::dla */
