/* SPDX-License-Identifier: MIT */
/*
 * The CPU as a target (framework/target.h): every kernel, built-in or the
 * application's, runs here by calling its function, one node per work,
 * with the API lock dropped while the function runs.
 */
#pragma once

#include "framework/target.h"

namespace vdla::vx::cpu {

class CpuTarget : public Target
{
public:
	NodeTarget kind() const override { return NodeTarget::Cpu; }
	const char *name() const override { return "cpu"; }
	bool canRun(vx_context, vx_kernel, std::string &) override { return true; }
	bool takes(vx_node, std::string &) override { return true; }
	std::unique_ptr<TargetPlan> plan(vx_graph graph) override;
};

} /* namespace vdla::vx::cpu */
