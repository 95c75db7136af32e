/* SPDX-License-Identifier: MIT */
/*
 * The DLA as a target (framework/target.h): the neural-network layers
 * whose parameters fit the hardware (targets/dla/dla_lower.h), on the
 * device the context opens the first time a graph or vxSetNodeTarget()
 * wants it, so CPU-only programs never touch the device.
 */
#pragma once

#include "framework/target.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace vdla {
class Context;
class Device;
class Fence;
}

namespace vdla::vx::dla {

class DlaTarget : public Target
{
public:
	explicit DlaTarget(vx_context context) : context_(context) { }
	~DlaTarget() override;

	NodeTarget kind() const override { return NodeTarget::Dla; }
	const char *name() const override { return "dla"; }
	bool available(std::string &why) override;
	bool canRun(vx_context context, vx_kernel kernel, std::string &why) override;
	bool takes(vx_node node, std::string &why) override;
	std::unique_ptr<TargetPlan> plan(vx_graph graph) override;
	void release(vx_graph graph, bool unreachable) override;

	/*
	 * The device, opened on the first call: the node named by the
	 * environment variable VDLA_VX_DEVICE, else the first vdla device.
	 * Null when there is none; error() then says why.
	 */
	Device *device();
	const std::string &error() const { return error_; }

	/*
	 * A kernel context for a graph's tasks: one of its own while fewer
	 * than kOwnContexts graphs hold one (a fault that bans a context
	 * then stops only the graph that caused it), else one shared with
	 * earlier graphs in turn: one file holds at most
	 * DRM_VDLA_MAX_CONTEXTS, and a vx_context may verify any number of
	 * graphs. Passing a graph's banned context replaces it among those
	 * handed out; each graph that shared it takes another when its own
	 * next submit is refused. Null, with @why, when none can be made.
	 */
	std::shared_ptr<Context> kernelContext(const Context *banned, std::string &why);

	/*
	 * A job of @graph whose wait timed out: @point of @timeline, which
	 * the job signals when it ends. Until then, stillRunningLate() is
	 * true for the graph, whatever plans it gets meanwhile.
	 */
	void markLate(vx_graph graph, std::shared_ptr<Fence> timeline, uint64_t point);
	bool stillRunningLate(vx_graph graph);
	static constexpr size_t kOwnContexts = 64;

private:
	vx_context context_;
	std::shared_ptr<Device> device_;
	bool probed_ = false;
	std::string error_;
	/* The kernel contexts the graphs' plans hold. */
	std::vector<std::weak_ptr<Context>> kernelContexts_;
	size_t nextShared_ = 0;
	/* The last timed-out job of each graph, by the graph's serial. */
	struct LateJob {
		std::shared_ptr<Fence> timeline;
		uint64_t point;
	};
	std::map<uint64_t, LateJob> lateJobs_;
};

} /* namespace vdla::vx::dla */
