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

/*
 * Moves the elements of @tensor into device memory of the context's DLA,
 * keeping their values; later storage() calls return the device mapping.
 * Errors: VX_ERROR_NOT_SUPPORTED (no DLA), VX_ERROR_NO_MEMORY.
 */
vx_status placeOnDevice(vx_tensor tensor);

} /* namespace vdla::vx::dla */
