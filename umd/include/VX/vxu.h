/* SPDX-License-Identifier: MIT */
/*
 * The immediate mode of OpenVX: each vxu function runs one kernel at once
 * on objects the application holds (a graph of one node, made, processed and
 * released inside the call) and returns its status. The context's immediate
 * border (VX_CONTEXT_IMMEDIATE_BORDER) and target (vxSetImmediateModeTarget)
 * apply. There is one for every standard kernel vdla implements; the
 * neural-network layers have none in the specification.
 */
#ifndef VXU_H
#define VXU_H

#include <VX/vx.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The tensor kernels of <VX/vx_nodes.h>, with the same parameters. */
VX_API_ENTRY vx_status VX_API_CALL vxuColorConvert(
	vx_context context, vx_image input, vx_image output);
VX_API_ENTRY vx_status VX_API_CALL vxuTensorAdd(vx_context context, vx_tensor input1,
	vx_tensor input2, vx_enum policy, vx_tensor output);
VX_API_ENTRY vx_status VX_API_CALL vxuTensorSubtract(vx_context context, vx_tensor input1,
	vx_tensor input2, vx_enum policy, vx_tensor output);
VX_API_ENTRY vx_status VX_API_CALL vxuTensorMultiply(vx_context context, vx_tensor input1,
	vx_tensor input2, vx_scalar scale, vx_enum overflow_policy, vx_enum rounding_policy,
	vx_tensor output);
VX_API_ENTRY vx_status VX_API_CALL vxuTensorTableLookup(
	vx_context context, vx_tensor input1, vx_lut lut, vx_tensor output);
VX_API_ENTRY vx_status VX_API_CALL vxuTensorTranspose(vx_context context, vx_tensor input,
	vx_tensor output, vx_size dimension1, vx_size dimension2);
VX_API_ENTRY vx_status VX_API_CALL vxuTensorConvertDepth(vx_context context, vx_tensor input,
	vx_enum policy, vx_scalar norm, vx_scalar offset, vx_tensor output);
VX_API_ENTRY vx_status VX_API_CALL vxuTensorMatrixMultiply(vx_context context, vx_tensor input1,
	vx_tensor input2, vx_tensor input3,
	const vx_tensor_matrix_multiply_params_t *matrix_multiply_params, vx_tensor output);

#ifdef __cplusplus
}
#endif

#endif /* VXU_H */
