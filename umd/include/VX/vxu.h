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

/* output = input1 + input2 element-wise; policy is a vx_convert_policy_e. */
VX_API_ENTRY vx_status VX_API_CALL vxuTensorAdd(vx_context context, vx_tensor input1,
	vx_tensor input2, vx_enum policy, vx_tensor output);

#ifdef __cplusplus
}
#endif

#endif /* VXU_H */
