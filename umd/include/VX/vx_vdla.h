/* SPDX-License-Identifier: MIT */
/*
 * libvdla's own OpenVX extensions: what verification decided for a node,
 * and how often a graph was planned.
 * Attributes use the VX_ID_USER vendor range; all are read-only.
 */
#ifndef VX_VDLA_H
#define VX_VDLA_H

#include <VX/vx.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where a node of a verified graph runs. */
enum vx_vdla_target_e {
	VX_VDLA_TARGET_CPU = VX_ENUM_BASE(VX_ID_USER, 0x30) + 0x0,
	VX_VDLA_TARGET_DLA = VX_ENUM_BASE(VX_ID_USER, 0x30) + 0x1,
};

enum vx_node_attribute_vdla_e {
	/*
	 * vx_enum, a vx_vdla_target_e: the target verification chose (with
	 * target "any", the DLA when the node can run there). A node of a
	 * graph that is not verified gives VX_ERROR_INVALID_GRAPH.
	 */
	VX_NODE_VDLA_TARGET = VX_ATTRIBUTE_BASE(VX_ID_USER, VX_TYPE_NODE) + 0x0,
	/*
	 * vx_bool: the node runs inside the fused chain of the DLA node before
	 * it (its VX_NODE_PERFORMANCE is then 0; the chain's first node has
	 * the time). Same error as VX_NODE_VDLA_TARGET.
	 */
	VX_NODE_VDLA_FUSED = VX_ATTRIBUTE_BASE(VX_ID_USER, VX_TYPE_NODE) + 0x1,
};

enum vx_graph_attribute_vdla_e {
	/*
	 * vx_uint32: how many times the graph was planned: placed on its
	 * targets, lowered, and its DLA tasks written. Verification plans it;
	 * so does a run after a handle swap that makes memory overlap
	 * differently, after new values of a tensor a DLA task holds a copy
	 * of (biases), or after rebinding a parameter where more than the
	 * addresses change (docs/openvx.md, "Rebinding").
	 */
	VX_GRAPH_VDLA_PLANS = VX_ATTRIBUTE_BASE(VX_ID_USER, VX_TYPE_GRAPH) + 0x0,
};

#ifdef __cplusplus
}
#endif

#endif /* VX_VDLA_H */
