/* SPDX-License-Identifier: MIT */
/* The CPU as a target (cpu_target.h). */

#include "targets/cpu/cpu_target.h"

#include <chrono>

namespace vdla::vx::cpu {

namespace {

uint64_t nowNs()
{
	return std::chrono::duration_cast<std::chrono::nanoseconds>(
		std::chrono::steady_clock::now().time_since_epoch())
		.count();
}

/* One node: its kernel's function, run to its end by start(). */
class NodeWork : public Work
{
public:
	explicit NodeWork(vx_node node) : Work({ node }) { }

	vx_status start(vx_graph, ApiLock &lock) override
	{
		vx_node node = nodes().front();
		std::vector<vx_reference> parameters = node->parameters;
		vx_kernel_f function = node->kernel->function;

		lock.unlock();
		const uint64_t begin = nowNs();
		vx_status status = function(node, parameters.data(), parameters.size());
		const uint64_t end = nowNs();
		lock.lock();

		node->status = status;
		if (node->context->performanceEnabled)
			addPerfSample(node->perf, begin, end, end - begin);
		if (status != VX_SUCCESS)
			log(node, status, "node %s failed", node->kernel->kernelName.c_str());
		return status;
	}
	vx_status wait(vx_graph, ApiLock &) override { return VX_SUCCESS; }
	bool outstanding() const override { return false; }
};

class NodePlan : public TargetPlan
{
public:
	vx_status add(vx_graph, const std::vector<vx_node> &nodes,
		std::vector<std::unique_ptr<Work>> &works) override
	{
		for (vx_node node : nodes)
			works.push_back(std::make_unique<NodeWork>(node));
		return VX_SUCCESS;
	}
};

} /* namespace */

std::unique_ptr<TargetPlan> CpuTarget::plan(vx_graph)
{
	return std::make_unique<NodePlan>();
}

} /* namespace vdla::vx::cpu */
