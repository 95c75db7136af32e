/* SPDX-License-Identifier: MIT */
/*
 * libvdla's own data movement: a kernel of the runtime's graph engine that
 * places the elements of one tensor in another without computing any
 * (docs/openvx.md, "Data movement"). The ONNX import creates it for
 * Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Slice, Split,
 * DepthToSpace, SpaceToDepth and Concat; the DLA runs it on its RUBIK
 * engine.
 * Dimensions are OpenVX's: 0 is the innermost (W), then H, C, N.
 */
#pragma once

#include <VX/vx.h>

namespace vdla::vx::nn {

constexpr vx_enum kRearrangementKernel = VX_KERNEL_BASE(VX_ID_DEFAULT, 0) + 0x3;
constexpr const char *kRearrangementName = "vdla.nn.rearrangement";
constexpr vx_enum kTypeRearrangementParams = VX_TYPE_VENDOR_STRUCT_START + 0x3;

enum RearrangementMode : vx_enum {
	/* The k-th element (innermost dimension fastest) of the input is the
	 * k-th of the output, of any shape with as many elements. */
	kRearrangeReshape = 0,
	/* Output dimension d is input dimension permutation[d] (rank <= 4). */
	kRearrangePermute = 1,
	/* output[i] = input[start + i * step], per dimension (rank <= 4). */
	kRearrangeSlice = 2,
	/*
	 * [W, H, C, N] to [W * b, H * b, C / b^2, N]: output (w, h, c) is input
	 * channel c * b^2 + (h % b) * b + w % b with columnRowDepth (ONNX's
	 * CRD), else (h % b * b + w % b) * C / b^2 + c (DCR), at (w / b, h / b).
	 */
	kRearrangeDepthToSpace = 3,
	/* The inverse of DCR DepthToSpace (ONNX's SpaceToDepth). */
	kRearrangeSpaceToDepth = 4,
	/*
	 * A 3-D convolution's depth taps stacked into channels, for a 2-D
	 * convolution to read: [W, H, D, N * C] to [W, H, C * block, N * OD]
	 * (the output gives OD), output (w, h, c * block + k, n * OD + o)
	 * being input (w, h, o * step[0] + k * step[1] - start[0], n * C + c),
	 * or zero where that depth is outside the input (the padding).
	 */
	kRearrangeDepthStack = 5,
};

struct RearrangementParams {
	vx_enum mode;
	vx_uint32 permutation[4];
	vx_uint32 start[4];
	vx_uint32 step[4];
	vx_uint32 block;
	vx_bool columnRowDepth;
};

/* Parameters of @mode that change nothing: whole dimensions, in place, a block of 1. */
inline RearrangementParams rearrangementParams(vx_enum mode)
{
	RearrangementParams p = {};
	p.mode = mode;
	for (vx_uint32 d = 0; d < 4; d++) {
		p.permutation[d] = d;
		p.step[d] = 1;
	}
	p.block = 1;
	p.columnRowDepth = vx_false_e;
	return p;
}

/* libvdla's concatenation (nn::Concatenation), for ONNX's Concat. */
constexpr vx_enum kConcatenationKernel = VX_KERNEL_BASE(VX_ID_DEFAULT, 0) + 0x4;
constexpr const char *kConcatenationName = "vdla.nn.concatenation";
constexpr vx_enum kTypeConcatenationParams = VX_TYPE_VENDOR_STRUCT_START + 0x4;
/* The most inputs one node joins. */
constexpr vx_uint32 kMaxConcatenated = 8;

struct ConcatenationParams {
	/* The dimension the inputs follow each other along (0 innermost). */
	vx_uint32 dimension;
};

/*
 * A node writing @count tensors (1 to kMaxConcatenated) of one type and
 * rank <= 4, equal but along @params.dimension, one after the other along
 * it into @output.
 */
vx_node concatenationNode(vx_graph graph, const vx_tensor inputs[], vx_uint32 count,
	const ConcatenationParams &params, vx_tensor output);

/*
 * A node placing @input's elements in @output (same type, any of INT8,
 * UINT8, INT16, INT32, FLOAT32 on the CPU; INT8, INT16 and FLOAT32 on the
 * DLA; the output's dimensions given for Reshape, Slice and DepthStack).
 * Errors as vxConvolutionLayer's.
 */
vx_node rearrangementNode(
	vx_graph graph, vx_tensor input, const RearrangementParams &params, vx_tensor output);

} /* namespace vdla::vx::nn */
