/* SPDX-License-Identifier: MIT */
/*
 * The DLA behind an OpenVX context: the device is opened the first time a
 * graph wants it, and tensors move into its memory when a DLA node uses
 * them, so CPU-only programs never touch the device.
 */
#pragma once

#include "object.h"

namespace vdla {
class Device;
}

namespace vdla::vx::dla {

/*
 * The context's DLA, opened on the first call: the node named by the
 * environment variable VDLA_VX_DEVICE, else the first vdla device. nullptr
 * when there is none; context->dlaError then says why.
 */
vdla::Device *device(vx_context context);

/* Where placeOnDevice() puts a tensor. */
enum class Placement {
	/* Device memory with a CPU mapping: the tensor keeps its values. */
	Memory,
	/*
	 * The device SRAM when a block is free, else Memory. Only for
	 * virtual tensors that nothing on the CPU reads or writes: SRAM has
	 * no CPU mapping, and values are not carried over.
	 */
	Sram,
};

/*
 * Moves the elements of @tensor into the context's DLA, at @placement;
 * later storage() calls return the device mapping (Memory only). A tensor
 * in SRAM asked for Memory moves back (without its values).
 * Errors: VX_ERROR_NOT_SUPPORTED (no DLA), VX_ERROR_NO_MEMORY.
 */
vx_status placeOnDevice(vx_tensor tensor, Placement placement = Placement::Memory);

} /* namespace vdla::vx::dla */
