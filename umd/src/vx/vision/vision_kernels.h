/* SPDX-License-Identifier: MIT */
/*
 * The kernels of the vision feature set that vdla implements, each added
 * to every new context (framework/context.cpp).
 */
#pragma once

#include <VX/vx.h>

namespace vdla::vx {

/* org.khronos.openvx.color_convert (color_convert.cpp). */
void addColorConvertKernel(vx_context context);

} /* namespace vdla::vx */
