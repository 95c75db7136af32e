/* SPDX-License-Identifier: MIT */
/*
 * QLinearAdd, in onnxruntime's com.microsoft domain: the sum of two
 * quantised tensors, broadcast as numpy does, requantised to the output's
 * scale. Inputs A, A_scale, A_zero_point, B, B_scale, B_zero_point,
 * C_scale, C_zero_point (the zero points optional); int8 or uint8, one type
 * for all three tensors; scales per tensor. The QDQ fusion
 * (graph_qdq_fusion.cpp) writes it for DequantizeLinear, DequantizeLinear,
 * Add, QuantizeLinear.
 *
 * The integer rule (docs/onnx.md, "Integer rules of the quantised
 * operators"), which the DLA reproduces bit for bit: with the multipliers
 * mA = A_scale / C_scale and mB = B_scale / C_scale in float32,
 *   v = float32(float32(a - za) * mA + float32(b - zb) * mB),
 * each product and the sum rounded to float32, then round(v), ties to even,
 * plus zc, saturated.
 */

#include "elementwise_ops.h"
#include "quant_ops.h"

#include <cerrno>
#include <cmath>

namespace vdla::onnx {

namespace {

/* A per-tensor scale and zero point of input @scale and @scale + 1. */
struct OperandQuant {
	float scale;
	int32_t zeroPoint;
};

OperandQuant operandQuant(const OpContext &ctx, size_t scale, const char *what)
{
	const std::vector<float> scales = scaleValues(ctx, scale, what);
	const std::vector<int32_t> zeros = zeroPointValues(ctx, scale + 1, what);
	ctx.require(scales.size() == 1 && zeros.size() == 1,
		    std::string(what) + ": QLinearAdd takes one scale and zero point per tensor");
	return { scales[0], zeros[0] };
}

template<typename Q>
Tensor quantisedSum(const Tensor &a, const Tensor &b, const OperandQuant &qa,
		    const OperandQuant &qb, const OperandQuant &qc)
{
	const float ma = qa.scale / qc.scale, mb = qb.scale / qc.scale;
	return zipBroadcast<Q, Q, Q>(a, b, a.type(), [&](Q x, Q y) {
		const float va = float(int32_t(x) - qa.zeroPoint) * ma;
		const float vb = float(int32_t(y) - qb.zeroPoint) * mb;
		const float v = va + vb;
		return roundAddSaturate<Q>(double(v), qc.zeroPoint);
	});
}

void qlinearAdd(OpContext &ctx)
{
	const Tensor &a = ctx.input(0), &b = ctx.input(3);
	requireQuantType(ctx, a, 2, "A");
	requireQuantType(ctx, b, 5, "B");
	ctx.require(a.type() == b.type(), "A and B must have one type, not " + a.describe() +
						  " and " + b.describe());
	if (ctx.hasInput(7))
		ctx.require(ctx.input(7).type() == a.type(),
			    "C_zero_point must have A's type, not " + ctx.input(7).describe());
	const OperandQuant qa = operandQuant(ctx, 1, "A_scale"), qb = operandQuant(ctx, 4, "B_scale");
	const OperandQuant qc = operandQuant(ctx, 6, "C_scale");
	/* A ratio past float32's range would make 0 * inf a NaN. */
	ctx.require(std::isfinite(qa.scale / qc.scale) && std::isfinite(qb.scale / qc.scale),
		    "A_scale / C_scale and B_scale / C_scale must be finite in float32");
	ctx.setOutput(0, a.type() == DataType::Int8 ? quantisedSum<int8_t>(a, b, qa, qb, qc)
						    : quantisedSum<uint8_t>(a, b, qa, qb, qc));
}

} /* namespace */

void registerQuantAddOps(OpRegistry &registry)
{
	registry.add("com.microsoft.QLinearAdd", qlinearAdd);
}

} /* namespace vdla::onnx */
