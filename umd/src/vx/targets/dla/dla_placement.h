/* SPDX-License-Identifier: MIT */
/*
 * Where the tensors of a DLA task live: memory, an SRAM buffer of their
 * own, or an SRAM region they share with other tensors of the graph whose
 * lifetimes do not overlap (dla_sram_share.h).
 */
#pragma once

#include "targets/dla/dla_lower.h"
#include "framework/object.h"

#include <memory>
#include <vector>

namespace vdla {
class Buffer;
}

namespace vdla::vx::dla {

/* Each unit waits for the earlier units that write what it reads (the task's links). */
std::vector<std::vector<size_t>> unitParents(const std::vector<Unit> &units);

/*
 * Places every tensor @lowering's units use, appending their buffers to
 * @buffers (the task keeps them alive). @parents: unitParents() of the
 * units, the links the task will have.
 * - A virtual tensor that only DLA nodes without callbacks use, that is
 *   not a graph parameter, and whose whole life is inside this task,
 *   takes a region of @regions: the graph's SRAM buffers, shared between
 *   such tensors that are never live together, and between the graph's
 *   tasks (one context runs them one after the other).
 * - Other such tensors used across tasks get an SRAM buffer of their own.
 * - Everything else, and whatever SRAM cannot hold, goes to memory.
 * VDLA_VX_SRAM=0 in the environment puts everything in memory.
 * Errors: VX_ERROR_NOT_SUPPORTED (no DLA), VX_ERROR_NO_MEMORY.
 */
vx_status placeTaskTensors(vx_graph graph, const Lowering &lowering,
	const std::vector<std::vector<size_t>> &parents, std::vector<std::shared_ptr<Buffer>> &regions,
	std::vector<std::shared_ptr<Buffer>> &buffers);

/*
 * The virtual tensors of @graph's nodes give back their device memory:
 * with @all, every buffer and their host copies (the graph is unreachable,
 * nothing can read them again); otherwise their SRAM only, which a new
 * plan places again (a virtual tensor's values need not outlive a run).
 */
void releaseVirtualTensors(vx_graph graph, bool all);

} /* namespace vdla::vx::dla */
