/* SPDX-License-Identifier: MIT */
/*
 * Where each node of a run executes (docs/onnx.md, "Targets"): the CPU
 * kernels, or a segment of consecutive nodes on the DLA. A plan is made for
 * one set of input shapes, the first time they are seen, and kept.
 */
#pragma once

#include "dla_segment.h"

#include <mutex>

namespace vdla::onnx {

class ExecutionPlan
{
public:
	struct Step {
		/* A CPU node (its index), or a DLA segment. */
		size_t node;
		std::unique_ptr<DlaSegment> segment;
	};

	/*
	 * @target Dla: every node must run on the DLA (ENOTSUP naming the first
	 * that cannot and why); Any: each node where it can.
	 */
	static Result<std::unique_ptr<ExecutionPlan>> make(vx_context context, const Graph &graph,
							   const ShapeMap &shapes, Target target);

	Result<void> run(const Graph &graph, std::map<std::string, Tensor> &values,
			 std::vector<NodeTiming> *timings) const;

private:
	Target target_;
	std::vector<Step> steps_;
	/* One run at a time: a segment's graph and tensors are shared state. */
	mutable std::mutex lock_;
};

/*
 * The type and shape of every value for these inputs, from one run of the
 * CPU kernels (the shape inference that binds the inputs); convolutions and
 * pools whose values decide no shape only get outputs of their shape
 * (shape_pass.h).
 */
Result<ShapeMap> shapesForInputs(const Graph &graph, std::map<std::string, Tensor> values);

} /* namespace vdla::onnx */
