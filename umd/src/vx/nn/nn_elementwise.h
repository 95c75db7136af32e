/* SPDX-License-Identifier: MIT */
/*
 * libvdla's own element-wise layer: a kernel of the runtime's graph engine
 * that the ONNX import creates for Add, Sub and Mul of float tensors and
 * for the quantised Add of a QDQ model (QLinearAdd), with broadcasting.
 * The DLA runs it on the SDP, whose element-wise stage reads the second
 * operand, and whose strides of 0 repeat a broadcast one
 * (docs/openvx.md, "Element-wise layer"; docs/onnx.md, "INT8 on the DLA").
 * Dimensions are OpenVX's: 0 is the innermost (W), then H, C, N.
 */
#pragma once

#include <VX/vx.h>

namespace vdla::vx::nn {

constexpr vx_enum kElementwiseKernel = VX_KERNEL_BASE(VX_ID_DEFAULT, 0) + 0x5;
constexpr const char *kElementwiseName = "vdla.nn.elementwise";
constexpr vx_enum kTypeElementwiseParams = VX_TYPE_VENDOR_STRUCT_START + 0x5;

enum ElementwiseOperation : vx_enum {
	/* FLOAT32: x + y, rounded once. INT8: the quantised sum, or with wrap x + y. */
	kElementwiseAdd = 0,
	/* FLOAT32: x - y, rounded once. INT8 with wrap: x - y. */
	kElementwiseSub = 1,
	/* FLOAT32: x * y, rounded once. INT8 with wrap: x * y. */
	kElementwiseMul = 2,
};

struct ElementwiseParams {
	vx_enum operation;
	/*
	 * INT8 only (zero and 1 otherwise), per operand: the zero point, in
	 * [-128, 127], and the multiplier (its scale over the output's),
	 * finite. The quantised Add's element is
	 *   v = float32(float32(x - zero[0]) * multiplier[0]
	 *               + float32(y - zero[1]) * multiplier[1]),
	 * each product and the sum rounded to float32; max(v, 0) with relu;
	 * then round(v), ties to even, plus outputZero (in [-256, 255]),
	 * saturated to INT8.
	 */
	vx_int32 inputZero[2];
	vx_float32 multiplier[2];
	vx_int32 outputZero;
	vx_bool relu;
	/*
	 * INT8 integer arithmetic instead (multipliers 1, no Relu):
	 * (x - zero[0]) OP (y - zero[1]) + outputZero, exact, then wrapped
	 * modulo 256 into INT8, as ONNX's integer Add, Sub and Mul (uint8
	 * held as int8 less 128 has zero points and outputZero -128).
	 */
	vx_bool wrap;
};

/* Parameters of @operation that change nothing: zeros, multipliers of 1, no Relu. */
inline ElementwiseParams elementwiseParams(vx_enum operation)
{
	ElementwiseParams p = {};
	p.operation = operation;
	p.multiplier[0] = p.multiplier[1] = 1.0f;
	p.relu = vx_false_e;
	p.wrap = vx_false_e;
	return p;
}

/*
 * A node computing @x OP @y into @output: all FLOAT32, or all INT8 (uint8
 * values less 128, their zero points too). The three have one rank,
 * at most 4; each dimension of @x and @y is the output's or 1, which
 * repeats the operand along it (broadcasting). Errors as
 * vxConvolutionLayer's.
 */
vx_node elementwiseNode(vx_graph graph, vx_tensor x, vx_tensor y,
	const ElementwiseParams &params, vx_tensor output);

} /* namespace vdla::vx::nn */
