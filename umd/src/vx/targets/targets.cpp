/* SPDX-License-Identifier: MIT */
/* The targets every context has (framework/target.h). */

#include "framework/target.h"

#include "targets/cpu/cpu_target.h"
#include "targets/dla/dla_target.h"

#include <stdexcept>

namespace vdla::vx {

std::vector<std::unique_ptr<Target>> createTargets(vx_context context)
{
	std::vector<std::unique_ptr<Target>> all;
	all.push_back(std::make_unique<dla::DlaTarget>(context));
	all.push_back(std::make_unique<cpu::CpuTarget>());
	return all;
}

Target &target(vx_context context, NodeTarget kind)
{
	for (const std::unique_ptr<Target> &candidate : targets(context))
		if (candidate->kind() == kind)
			return *candidate;
	throw std::logic_error("no target of that kind");
}

} /* namespace vdla::vx */
