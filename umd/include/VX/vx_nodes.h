/* SPDX-License-Identifier: MIT */
/* Node creation helpers for the standard kernels vdla implements. */
#ifndef VX_NODES_H
#define VX_NODES_H

#include <VX/vx_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* out = in1 + in2 element-wise; policy is a vx_convert_policy_e. */
VX_API_ENTRY vx_node VX_API_CALL vxTensorAddNode(
	vx_graph graph, vx_tensor input1, vx_tensor input2, vx_enum policy, vx_tensor output);

#ifdef __cplusplus
}
#endif

#endif /* VX_NODES_H */
