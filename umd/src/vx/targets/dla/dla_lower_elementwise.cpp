/* SPDX-License-Identifier: MIT */
/*
 * libvdla's element-wise layer on the SDP (nn_elementwise.h). The first
 * operand is the SDP's X, the second its element-wise operand Y; an operand
 * repeated along a dimension is read there with a stride of 0, so
 * broadcasting costs nothing.
 *
 * FLOAT32: one float SDP. Add: x + y * 1; Sub: x + y * -1 (exactly x - y);
 * Mul: x * (y * 1). Each is the one float32 rounding of the CPU's.
 *
 * INT8 with wrap: integer SDPs (pushWrappingUnits()).
 *
 * INT8 Add, bit for bit ElementwiseParams' rule (the hardware has no
 * integer-to-float conversion, hence the FP32 bits of 1.5 * 2^23 + d, as
 * in dla_lower_convolution.cpp):
 *
 *   1. an integer SDP per operand: d = v - zero, plus 0x4B400000, as INT32
 *      bits that read as FP32 are exactly 1.5 * 2^23 + d (|d| <= 255);
 *   2. a float SDP turns the second's into FP32 d (less 1.5 * 2^23, exact);
 *   3. a float SDP reads the first's, subtracts 1.5 * 2^23, multiplies by
 *      multiplier[0] (one rounding), adds the second times multiplier[1]
 *      (one rounding each), applies the Relu and rounds to an integer, ties
 *      to even, saturating to INT16 (INT8 when there is no output zero);
 *   4. an integer SDP adds the output zero point and saturates to INT8.
 */

#include "dla_lower.h"
#include "dla_float_bits.h"

#include "nn/nn_elementwise.h"
#include "nn/nn_layers.h"

#include <cmath>

namespace vdla::vx::dla {

namespace {

/* Multipliers up to 2^100 keep 255 * |m| and the sum of two far from FP32's overflow. */
constexpr float kMaxMultiplier = 0x1p100f;

uint32_t &dimAt(Tensor &t, size_t d)
{
	return d == 0 ? t.w : d == 1 ? t.h : d == 2 ? t.c : t.n;
}

uint32_t &strideAt(Tensor &t, size_t d)
{
	return d == 0 ? t.strideW : d == 1 ? t.strideH : d == 2 ? t.strideC : t.strideN;
}

/*
 * @operand read as a tensor of @out's dimensions: stride 0 along those it
 * has as 1. The hardware reads all-zero strides as packed, so a dimension
 * of 1 in both keeps a stride (ignored there); std::nullopt when there is
 * none (the operand repeated along four dimensions).
 */
std::optional<Tensor> broadcastTo(Tensor operand, const Tensor &out)
{
	operand = operand.packed();
	Tensor shape = out;
	for (size_t d = 0; d < 4; d++) {
		if (dimAt(operand, d) == dimAt(shape, d))
			continue;
		dimAt(operand, d) = dimAt(shape, d);
		strideAt(operand, d) = 0;
	}
	if (operand.strideW || operand.strideH || operand.strideC || operand.strideN)
		return operand;
	for (size_t d = 0; d < 4; d++) {
		if (dimAt(operand, d) == 1) {
			strideAt(operand, d) = dataTypeSize(operand.type);
			return operand;
		}
	}
	return std::nullopt;
}

/* Whether @operand is repeated along every dimension of @output (none of 1 in both). */
bool repeatedEverywhere(vx_tensor operand, vx_tensor output)
{
	for (size_t d = 0; d < 4; d++) {
		const vx_size have = d < operand->dims.size() ? operand->dims[d] : 1;
		const vx_size want = d < output->dims.size() ? output->dims[d] : 1;
		if (have == want)
			return false;
	}
	return true;
}

} /* namespace */

bool elementwiseFits(const nn::Elementwise &layer, std::string &why)
{
	for (vx_tensor t : { layer.input, layer.second, layer.output })
		if (!tensorFits(t, why))
			return false;
	for (vx_tensor operand : { layer.input, layer.second }) {
		if (repeatedEverywhere(operand, layer.output)) {
			why = "an operand repeated along all four dimensions of the output";
			return false;
		}
	}
	for (float m : layer.multiplier) {
		if (!(std::fabs(m) <= kMaxMultiplier)) {
			why = "a multiplier beyond 2^100";
			return false;
		}
	}
	return true;
}

/*
 * INT8 arithmetic wrapped modulo 256, on the integer path, exact in its
 * 64-bit stages. Add and Sub: one SDP, x plus the bias -zero[0] -+ zero[1]
 * plus y times +-1, plus outputZero, wrapped. Mul: an SDP widens y -
 * zero[1] to INT16, then (x - zero[0]) times it, plus outputZero, wrapped.
 */
void Lowering::pushWrappingUnits(
	const nn::Elementwise &layer, const Tensor &out, const Tensor &x, const Tensor &y, vx_node &node)
{
	const bool sub = layer.operation == nn::kElementwiseSub;
	SdpOp sdp;
	sdp.src = *broadcastTo(x, out);
	sdp.biasMode = SdpMode::PerTensor;
	sdp.outOffset = layer.outputZero;
	sdp.wrap = true;
	sdp.dst = out;
	if (layer.operation != nn::kElementwiseMul) {
		sdp.biasValue = -layer.inputZero[0] + (sub ? layer.inputZero[1] : -layer.inputZero[1]);
		sdp.ewOp = SdpEwOp::Add;
		sdp.ewMul = sub ? -1 : 1;
		sdp.ew = *broadcastTo(y, out);
		pushSdpUnit(sdp, node);
		return;
	}
	SdpOp widen;
	widen.src = y;
	widen.biasMode = SdpMode::PerTensor;
	widen.biasValue = -layer.inputZero[1];
	widen.dst = scratchLike(layer.output->context, y, DataType::Int16);
	pushSdpUnit(widen, node);
	sdp.biasValue = -layer.inputZero[0];
	sdp.ewOp = SdpEwOp::Mul;
	sdp.ew = *broadcastTo(widen.dst, out);
	pushSdpUnit(sdp, node);
}

vx_status Lowering::lowerElementwise(vx_node node)
{
	const auto layer = std::get<nn::Elementwise>(*nn::describeLayer(node));
	const Tensor out = hardwareTensor(layer.output);
	const Tensor x = hardwareTensor(layer.input), y = hardwareTensor(layer.second);
	vx_context context = layer.output->context;

	if (layer.output->dataType == VX_TYPE_FLOAT32) {
		SdpOp sdp;
		sdp.src = *broadcastTo(x, out);
		sdp.ew = *broadcastTo(y, out);
		sdp.ewOp = layer.operation == nn::kElementwiseMul ? SdpEwOp::Mul : SdpEwOp::Add;
		sdp.ewMulFloat = layer.operation == nn::kElementwiseSub ? -1.0f : 1.0f;
		sdp.dst = out;
		pushSdpUnit(sdp, node);
		return VX_SUCCESS;
	}

	if (layer.wrap) {
		pushWrappingUnits(layer, out, x, y, node);
		return VX_SUCCESS;
	}

	/* 1. Each operand less its zero point, as FP32 bits of 1.5 * 2^23 + d. */
	auto magic = [&](const Tensor &operand, int32_t zero) {
		SdpOp sdp;
		sdp.src = operand;
		sdp.biasMode = SdpMode::PerTensor;
		sdp.biasValue = -zero;
		return pushAsFloatBits(context, sdp, node);
	};
	const Tensor xBits = magic(x, layer.inputZero[0]);
	const Tensor yBits = magic(y, layer.inputZero[1]);

	/* 2. The second operand as FP32. */
	SdpOp second;
	second.src = yBits;
	second.biasMode = SdpMode::PerTensor;
	second.biasFloat = -kIntegerBase;
	second.dst = scratchLike(context, yBits, DataType::Fp32);
	pushSdpUnit(second, node);

	/* 3. The scaled sum, rounded to an integer. */
	SdpOp sum;
	sum.src = *broadcastTo(xBits, out);
	sum.biasMode = SdpMode::PerTensor;
	sum.biasFloat = -kIntegerBase;
	sum.scaleMode = SdpMode::PerTensor;
	sum.scaleFloat = layer.multiplier[0];
	sum.ewOp = SdpEwOp::Add;
	sum.ew = *broadcastTo(second.dst, out);
	sum.ewMulFloat = layer.multiplier[1];
	if (layer.relu)
		sum.activation = SdpActivation::Relu;
	sum.round = Round::HalfEven;
	/* 4. Plus the output zero point, saturated to INT8. */
	pushWithOutputZero(context, sum, out, layer.outputZero, node);
	return VX_SUCCESS;
}

} /* namespace vdla::vx::dla */
