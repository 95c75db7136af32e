/* SPDX-License-Identifier: MIT */
/*
 * libvdla's own dequantisation: a kernel of the runtime's graph engine that
 * the ONNX import creates for DequantizeLinear of int8 and uint8 tensors.
 * Each element is float32(x - zero) * scale in float32, zero and scale
 * those of the tensor or of its channel (dimension 2 of [W, H, C, N]): the
 * arithmetic of ONNX's DequantizeLinear, which the DLA computes bit for bit
 * in two SDPs (docs/onnx.md, "INT8 on the DLA").
 */
#pragma once

#include <VX/vx.h>

namespace vdla::vx::nn {

constexpr vx_enum kDequantizeKernel = VX_KERNEL_BASE(VX_ID_DEFAULT, 0) + 0x6;
constexpr const char *kDequantizeName = "vdla.nn.dequantize";

/*
 * A node writing FLOAT32 @output from INT8 @input (uint8 held less 128, its
 * zero points too) of the same dimensions (rank 1 to 4), with @zeros INT32
 * and @scales FLOAT32 of one element, or of one per channel (the input's
 * dimension 2), any values. Errors as
 * vxConvolutionLayer's.
 */
vx_node dequantizeNode(
	vx_graph graph, vx_tensor input, vx_tensor zeros, vx_tensor scales, vx_tensor output);

} /* namespace vdla::vx::nn */
