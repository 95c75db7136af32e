/* SPDX-License-Identifier: MIT */
/* Node creation helpers for the standard kernels vdla implements. */
#ifndef VX_NODES_H
#define VX_NODES_H

#include <VX/vx_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Converts input to the format of output (same size), for the pairs of the
 * specification's table: RGB and RGBX to RGB(X), NV12, IYUV, YUV4; NV12,
 * NV21 to RGB(X), IYUV, YUV4; UYVY, YUYV to RGB(X), NV12, IYUV; IYUV to
 * RGB(X), NV12, YUV4. Full range, BT.709 or BT.601 by VX_IMAGE_SPACE.
 */
VX_API_ENTRY vx_node VX_API_CALL vxColorConvertNode(vx_graph graph, vx_image input, vx_image output);

/*
 * The element-wise tensor kernels: both inputs of one type and rank; along
 * each dimension their extents are equal, or one is 1 and repeats. policy
 * is a vx_convert_policy_e. Add and subtract work on the raw values (one
 * fixed point position for the three tensors).
 */
VX_API_ENTRY vx_node VX_API_CALL vxTensorAddNode(
	vx_graph graph, vx_tensor input1, vx_tensor input2, vx_enum policy, vx_tensor output);
VX_API_ENTRY vx_node VX_API_CALL vxTensorSubtractNode(
	vx_graph graph, vx_tensor input1, vx_tensor input2, vx_enum policy, vx_tensor output);
/* output = input1 * input2 * scale (a VX_TYPE_FLOAT32 scalar), rounded by
 * rounding_policy, then saturated or wrapped by overflow_policy. */
VX_API_ENTRY vx_node VX_API_CALL vxTensorMultiplyNode(vx_graph graph, vx_tensor input1,
	vx_tensor input2, vx_scalar scale, vx_enum overflow_policy, vx_enum rounding_policy,
	vx_tensor output);

/* output is input with dimensions dimension1 and dimension2 swapped. */
VX_API_ENTRY vx_node VX_API_CALL vxTensorTransposeNode(
	vx_graph graph, vx_tensor input, vx_tensor output, vx_size dimension1, vx_size dimension2);

/* output = (input - offset) / norm (VX_TYPE_FLOAT32 scalars) in the output's
 * type and position, truncated, then saturated or wrapped by policy. */
VX_API_ENTRY vx_node VX_API_CALL vxTensorConvertDepthNode(vx_graph graph, vx_tensor input,
	vx_enum policy, vx_scalar norm, vx_scalar offset, vx_tensor output);

/* output = lut[input + VX_LUT_OFFSET] element by element; UINT8 tensors with a
 * UINT8 LUT, INT16 with an INT16 one; output of the input's dimensions. */
VX_API_ENTRY vx_node VX_API_CALL vxTensorTableLookupNode(
	vx_graph graph, vx_tensor input1, vx_lut lut, vx_tensor output);

/* output = input1 * input2 (+ input3, or NULL), 2-D tensors [columns, rows],
 * each transposed first if its flag in matrix_multiply_params says so. */
VX_API_ENTRY vx_node VX_API_CALL vxTensorMatrixMultiplyNode(vx_graph graph, vx_tensor input1,
	vx_tensor input2, vx_tensor input3,
	const vx_tensor_matrix_multiply_params_t *matrix_multiply_params, vx_tensor output);

#ifdef __cplusplus
}
#endif

#endif /* VX_NODES_H */
