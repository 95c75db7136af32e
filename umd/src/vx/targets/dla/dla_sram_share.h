/* SPDX-License-Identifier: MIT */
/*
 * Sharing SRAM between the intermediate tensors of one DLA task whose
 * lifetimes do not overlap.
 *
 * The firmware starts a unit (an operation or a fused chain) once the units
 * it depends on have completed (a link, or the order of the engine both
 * run on: dla_plan.cpp), and may run units that do not depend on each
 * other at the same time. A tensor may therefore take over the memory
 * of an earlier one only if every unit that touched the earlier tensor is an
 * ancestor of the unit that writes the new one: the dependencies the task
 * already has then order the new writes after the old reads, with no link
 * added. A chain of layers alternates between two regions; parallel
 * branches keep theirs apart.
 */
#pragma once

#include <cstddef>
#include <vector>

namespace vdla::vx::dla {

/* A tensor the task may share: its size and the units that read or write it. */
struct ShareableTensor {
	size_t bytes = 0;
	/* Ascending; the first one writes the tensor. */
	std::vector<size_t> units;
};

struct SramSharing {
	/* The region of each tensor, and each region's size (its largest tensor). */
	std::vector<size_t> regionOf;
	std::vector<size_t> regionBytes;
};

/*
 * Assigns regions to @tensors. @parents[u] lists the units unit u waits for
 * (each below u: units are in task order). Tensors that share a region
 * never overlap in time, whatever order the firmware runs independent
 * units in.
 */
SramSharing shareSram(
	const std::vector<std::vector<size_t>> &parents, const std::vector<ShareableTensor> &tensors);

} /* namespace vdla::vx::dla */
