/* SPDX-License-Identifier: MIT */
/*
 * Tensors in the memory of the context's DLA: they move there when a DLA
 * node uses them, so CPU-only programs never touch the device.
 */
#pragma once

#include "framework/object.h"

#include <vdla/buffer.h>

namespace vdla {
class Device;
}

namespace vdla::vx::dla {

/* The context's DLA (DlaTarget::device()); null when there is none. */
vdla::Device *device(vx_context context);

/* The DLA buffer holding @tensor's elements; null when none does. */
std::shared_ptr<Buffer> bufferOf(vx_tensor tensor);
/* Makes @buffer hold @tensor's elements (null: none). */
void setBuffer(vx_tensor tensor, std::shared_ptr<Buffer> buffer);

/*
 * Whether the environment variable @name leaves a DLA feature on: anything
 * but "0", unset included (VDLA_VX_FUSION, VDLA_VX_SRAM; tests compare both
 * ways).
 */
bool featureEnabled(const char *name);

/*
 * Moves the elements of @tensor into the context's DLA, at @placement;
 * later storage() calls return the device mapping (Memory only).
 * - Memory keeps the tensor's values; a tensor in SRAM moves back to
 *   memory without them.
 * - Sram is for virtual tensors that nothing on the CPU reads or writes
 *   (SRAM has no CPU mapping; values are not carried over). When no SRAM
 *   block is free, the tensor goes to (or stays in) memory instead.
 * - A view or from-handle tensor keeps its memory: it gets a packed
 *   buffer in memory, which DLA tasks copy it to and from (staging).
 * Errors: VX_ERROR_NOT_SUPPORTED (no DLA), VX_ERROR_NO_MEMORY.
 */
vx_status placeOnDevice(
	vx_tensor tensor, Buffer::Placement placement = Buffer::Placement::Memory);

} /* namespace vdla::vx::dla */
