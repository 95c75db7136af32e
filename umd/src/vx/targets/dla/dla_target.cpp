/* SPDX-License-Identifier: MIT */
/* The DLA as a target (dla_target.h). */

#include "targets/dla/dla_target.h"

#include "targets/dla/dla_device.h"
#include "targets/dla/dla_lower.h"
#include "targets/dla/dla_placement.h"
#include "targets/dla/dla_plan.h"

#include <VX/vx_khr_nn.h>

#include <vdla/context.h>
#include <vdla/fence.h>
#include <vdla/device.h>

#include <cstdlib>

namespace vdla::vx::dla {

namespace {

Result<std::unique_ptr<Device>> openDevice()
{
	if (const char *node = getenv("VDLA_VX_DEVICE"); node && *node)
		return Device::open(node);
	auto nodes = Device::enumerate();
	if (!nodes)
		return nodes.error();
	if (nodes->empty())
		return Error(ENODEV, "no vdla device in /dev/accel");
	return Device::open(nodes->front());
}

} /* namespace */

DlaTarget::~DlaTarget() = default;

Device *DlaTarget::device()
{
	if (!probed_) {
		probed_ = true;
		auto opened = openDevice();
		if (opened) {
			device_ = std::move(opened.value());
		} else {
			error_ = opened.error().message();
			log(context_, VX_ERROR_NOT_SUPPORTED, "no DLA: %s", error_.c_str());
		}
	}
	return device_.get();
}

bool DlaTarget::available(std::string &why)
{
	if (device())
		return true;
	why = "no DLA: " + error_;
	return false;
}

bool DlaTarget::canRun(vx_context, vx_kernel kernel, std::string &why)
{
	/* Whether the parameters fit the hardware is known at verification. */
	if (!Lowering::kernelSupported(kernel)) {
		why = kernel->kernelName + " has no DLA implementation";
		return false;
	}
	if (!device()) {
		why = "no DLA: " + error_;
		return false;
	}
	return true;
}

bool DlaTarget::takes(vx_node node, std::string &why)
{
	/*
	 * A softmax takes a dozen DLA operations, each paying the driver's
	 * per-operation cost, for what the CPU computes in microseconds at
	 * classifier sizes: the demo runs in 3.8 ms with it on the CPU and
	 * 7.1 ms on the DLA. "any" keeps it on the CPU; "dla" still asks.
	 */
	if (node->target == NodeTarget::Any && node->kernel->enumeration == VX_KERNEL_SOFTMAX_LAYER) {
		why = "a softmax is faster on the CPU";
		return false;
	}
	return canRun(node->context, node->kernel, why) && Lowering::supported(node, why);
}

std::unique_ptr<TargetPlan> DlaTarget::plan(vx_graph)
{
	return std::make_unique<Plan>(*this, device_);
}

void DlaTarget::markLate(vx_graph graph, std::shared_ptr<Fence> timeline, uint64_t point)
{
	lateJobs_[graph->serial] = { std::move(timeline), point };
}

bool DlaTarget::stillRunningLate(vx_graph graph)
{
	auto late = lateJobs_.find(graph->serial);
	if (late == lateJobs_.end())
		return false;
	auto ended = late->second.timeline->signalled(late->second.point);
	if (ended && *ended) {
		lateJobs_.erase(late);
		return false;
	}
	return true;
}

std::shared_ptr<Context> DlaTarget::kernelContext(const Context *banned, std::string &why)
{
	auto create = [&]() -> std::shared_ptr<Context> {
		auto created = Context::create(*device_);
		if (!created) {
			why = created.error().message();
			return nullptr;
		}
		return std::move(created.value());
	};
	std::vector<std::shared_ptr<Context>> live;
	for (auto it = kernelContexts_.begin(); it != kernelContexts_.end();) {
		if (std::shared_ptr<Context> context = it->lock()) {
			if (context.get() == banned) {
				std::shared_ptr<Context> replacement = create();
				if (!replacement)
					return nullptr;
				*it = replacement;
				return replacement;
			}
			live.push_back(std::move(context));
			++it;
		} else {
			it = kernelContexts_.erase(it);
		}
	}
	if (live.size() < kOwnContexts) {
		std::shared_ptr<Context> own = create();
		if (own)
			kernelContexts_.push_back(own);
		return own;
	}
	return live[nextShared_++ % live.size()];
}

void DlaTarget::release(vx_graph graph, bool unreachable)
{
	releaseVirtualTensors(graph, unreachable);
	/* Nothing can submit the graph again. */
	if (unreachable)
		lateJobs_.erase(graph->serial);
}

} /* namespace vdla::vx::dla */
