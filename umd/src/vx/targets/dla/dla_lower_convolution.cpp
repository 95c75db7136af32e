/* SPDX-License-Identifier: MIT */
/*
 * libvdla's own convolution on the DLA. FLOAT32: CONV -> SDP adding the
 * bias. INT8, affine-quantised (docs/onnx.md, "INT8 on the DLA"), bit for
 * bit the arithmetic of nn::GeneralConvolution:
 *
 *   1. CONV, INT8 x INT8, the padding reading inputZero, so that padding
 *      adds nothing once the input zero point's share is taken out: its
 *      exact sum flies to an integer SDP, which adds
 *      bias[m] - inputZero * (sum of m's weights), clips to +-(2^22 - 1)
 *      and adds 0x4B400000: INT32 bits that, read as FP32, are exactly
 *      1.5 * 2^23 + acc (the hardware has no integer-to-float conversion);
 *   2. a float SDP reads them as FP32, subtracts 1.5 * 2^23 (exact: acc),
 *      multiplies by the channel's float32 multiplier (one rounding, as
 *      float32(acc) * M), applies Relu, and rounds to the nearest integer,
 *      ties to even, saturating to INT16 (INT8 when there is no zero point);
 *   3. an integer SDP adds the output zero point and saturates to INT8.
 *
 * Without multipliers (ConvInteger), step 1 writes the sums to the INT32
 * output, saturated, and is the last.
 *
 * The clip changes acc only where |acc| >= 2^22; the plan takes the DLA
 * only when no accumulator can get there (bounded by the weights), or when
 * the output saturates there anyway (generalConvolutionFits()).
 */

#include "dla_lower.h"
#include "dla_float_bits.h"

#include "nn/nn_layers.h"
#include "nn/nn_convolution.h"
#include "objects/tensor_layout.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace vdla::vx::dla {

namespace {

constexpr int64_t kExactLimit = (int64_t(1) << 22) - 1;

vx_size dimOf(vx_tensor tensor, size_t d)
{
	return d < tensor->dims.size() ? tensor->dims[d] : 1;
}

/* The weights of an INT8 layer, INT8 or INT16 (within +-255, split in two). */
std::vector<int32_t> weightValues(vx_tensor weights)
{
	if (weights->dataType == VX_TYPE_INT16) {
		const std::vector<int16_t> wide = valuesOf<int16_t>(weights);
		return std::vector<int32_t>(wide.begin(), wide.end());
	}
	const std::vector<int8_t> narrow = valuesOf<int8_t>(weights);
	return std::vector<int32_t>(narrow.begin(), narrow.end());
}

/* What the lowering folds into its constants, computed once by the check
 * and again by the lowering from the same values. */
struct Folded {
	/* bias[m] - inputZero * (sum of m's weights), per output channel. */
	std::vector<int32_t> bias;
	/* Whether each channel's accumulator stays below 2^22 in magnitude. */
	std::vector<bool> bounded;
};

bool fold(const nn::GeneralConvolution &c, Folded &folded, std::string &why)
{
	const std::vector<int32_t> weights = weightValues(c.weights);
	const vx_size outputs = dimOf(c.weights, 3);
	const std::vector<int32_t> bias
		= c.bias ? valuesOf<int32_t>(c.bias) : std::vector<int32_t>(outputs, 0);
	const vx_size taps = weights.size() / outputs;
	/* The largest |x - inputZero| of an INT8 x. */
	const int64_t reach = std::max<int64_t>(127 - c.inputZero, c.inputZero + 128);
	folded.bias.resize(outputs);
	folded.bounded.resize(outputs);
	for (vx_size m = 0; m < outputs; m++) {
		int64_t sum = 0, magnitude = 0;
		for (vx_size k = 0; k < taps; k++) {
			sum += weights[m * taps + k];
			magnitude += std::abs(int64_t(weights[m * taps + k]));
		}
		const int64_t shifted = bias[m] - int64_t(c.inputZero) * sum;
		if (shifted < std::numeric_limits<int32_t>::min()
			|| shifted > std::numeric_limits<int32_t>::max()) {
			why = "the bias with the input zero point's share does not fit 32 bits";
			return false;
		}
		folded.bias[m] = int32_t(shifted);
		folded.bounded[m] = reach * magnitude + std::abs(int64_t(bias[m])) <= kExactLimit;
	}
	return true;
}

/* The output nn::GeneralConvolution gives for an accumulator @acc. */
int64_t outputOf(const nn::GeneralConvolution &c, int64_t acc, float multiplier)
{
	float v = float(acc) * multiplier;
	if (c.relu)
		v = std::max(v, 0.0f);
	const double r = std::clamp(nn::roundHalfEven(double(v)), -1e6, 1e6);
	return std::clamp<int64_t>(int64_t(r) + c.outputZero, -128, 127);
}

} /* namespace */

bool generalConvolutionFits(const nn::GeneralConvolution &c, std::string &why)
{
	const vx_size kw = dimOf(c.weights, 0), kh = dimOf(c.weights, 1);
	if (c.strideX > 16 || c.strideY > 16) {
		why = "a stride above 16";
		return false;
	}
	if (c.dilationX > 16 || c.dilationY > 16) {
		why = "a dilation above 16";
		return false;
	}
	if (c.padLeft > 31 || c.padRight > 31 || c.padTop > 31 || c.padBottom > 31) {
		why = "a padding above 31";
		return false;
	}
	if (kw > 32 || kh > 32) {
		why = "a kernel side above 32";
		return false;
	}
	if (dimOf(c.weights, 2) * kw * kh > 65536) {
		why = "more than 65536 weights per output";
		return false;
	}
	if (c.input->dataType == VX_TYPE_FLOAT32)
		return true;
	for (int32_t w : weightValues(c.weights)) {
		if (w < -255 || w > 255) {
			why = "a weight beyond +-255 (two INT8 convolutions' reach)";
			return false;
		}
	}
	Folded folded;
	if (!fold(c, folded, why))
		return false;
	/* INT32 sums: exact in the SDP's 64-bit stages, saturated as the CPU's. */
	if (!c.multipliers)
		return true;
	const std::vector<float> multipliers = valuesOf<float>(c.multipliers);
	for (size_t m = 0; m < folded.bounded.size(); m++) {
		if (!std::isfinite(multipliers[m])) {
			why = "a multiplier that is not finite";
			return false;
		}
		if (folded.bounded[m])
			continue;
		/* Clipped accumulators must give what the real ones give: the
		 * saturated output, on each side the clip can reach. */
		if (outputOf(c, kExactLimit, multipliers[m])
			    != outputOf(c, std::numeric_limits<int32_t>::max(), multipliers[m])
			|| outputOf(c, -kExactLimit, multipliers[m])
				!= outputOf(c, std::numeric_limits<int32_t>::min(), multipliers[m])) {
			why = "an accumulator may reach 2^22, where the DLA's conversion to float "
			      "is not exact, without the output saturating";
			return false;
		}
	}
	return true;
}

vx_status Lowering::lowerGeneralConvolution(vx_node node)
{
	auto c = std::get<nn::GeneralConvolution>(*nn::describeLayer(node));
	const vx_size outputs = dimOf(c.weights, 3);
	const Tensor out = hardwareTensor(c.output);

	ConvOp conv;
	conv.src = hardwareTensor(c.input);
	/* INT16 weights go to the constant pool, split (below): their tensor
	 * gets no slot, which each run would copy in for nothing. */
	const bool splitWeights = c.weights->dataType == VX_TYPE_INT16;
	if (!splitWeights)
		conv.weights = hardwareTensor(c.weights);
	conv.strideX = uint16_t(c.strideX);
	conv.strideY = uint16_t(c.strideY);
	conv.padLeft = uint16_t(c.padLeft);
	conv.padRight = uint16_t(c.padRight);
	conv.padTop = uint16_t(c.padTop);
	conv.padBottom = uint16_t(c.padBottom);
	conv.dilationX = uint16_t(c.dilationX);
	conv.dilationY = uint16_t(c.dilationY);
	conv.groups = c.groups;
	conv.padValue = c.inputZero;
	conv.dst = out;
	conv.dst.buffer = kConstantSlot;
	conv.dst.type = c.input->dataType == VX_TYPE_FLOAT32 ? DataType::Fp32 : DataType::Int32;
	Unit unit;
	unit.conv = conv;
	unit.reads = { conv.src.buffer, conv.weights.buffer };

	/* FLOAT32: CONV -> SDP adding the bias, one unit, into which a
	 * following activation or pooling may fuse (tryFuse()). */
	if (c.input->dataType == VX_TYPE_FLOAT32) {
		SdpOp sdp;
		sdp.dst = out;
		if (c.bias) {
			const std::vector<float> bias = valuesOf<float>(c.bias);
			sdp.biasMode = SdpMode::PerChannel;
			sdp.bias = { kConstantSlot, addConstant(bias.data(), outputs * sizeof(float)) };
			copiedValues_.push_back(c.bias);
		}
		if (c.addend) {
			/* The SDP's element-wise stage comes after the bias, before the Relu. */
			sdp.ewOp = SdpEwOp::Add;
			sdp.ew = hardwareTensor(c.addend);
			unit.reads.push_back(sdp.ew.buffer);
		}
		if (c.relu)
			sdp.activation = SdpActivation::Relu;
		unit.sdp = sdp;
		unit.writes = out.buffer;
		pushUnit(std::move(unit), node);
		return VX_SUCCESS;
	}

	/* generalConvolutionFits() folded the same values when the target took the node. */
	std::string why;
	Folded folded;
	if (!fold(c, folded, why))
		return VX_ERROR_INVALID_PARAMETERS;

	/*
	 * INT16 weights (uint8 weights less a far zero point, within +-255):
	 * the CONV multiplies INT8 by INT8, so w = high + low with high the
	 * part within INT8 and low the rest (also within it); a CONV of the
	 * low parts writes its INT32 sums, which the main chain's SDP adds to
	 * its own before anything else rounds or clips (exact: 64-bit stages).
	 */
	SdpOp toFloat;
	if (splitWeights) {
		const std::vector<int32_t> w = weightValues(c.weights);
		std::vector<int8_t> high(w.size()), low(w.size());
		for (size_t i = 0; i < w.size(); i++) {
			high[i] = int8_t(std::clamp(w[i], -128, 127));
			low[i] = int8_t(w[i] - high[i]);
		}
		auto constantWeights = [&](const std::vector<int8_t> &values) {
			return Tensor::nchw(kConstantSlot, addConstant(values.data(), values.size()),
				DataType::Int8, uint32_t(dimOf(c.weights, 3)), uint32_t(dimOf(c.weights, 2)),
				uint32_t(dimOf(c.weights, 1)), uint32_t(dimOf(c.weights, 0)));
		};
		Unit lowPart;
		lowPart.conv = conv;
		lowPart.conv->weights = constantWeights(low);
		SdpOp sums;
		sums.dst = scratchLike(c.output->context, out, DataType::Int32);
		lowPart.sdp = sums;
		lowPart.reads = { conv.src.buffer };
		lowPart.writes = sums.dst.buffer;
		pushUnit(std::move(lowPart), node);
		unit.conv->weights = constantWeights(high);
		unit.reads = { conv.src.buffer, sums.dst.buffer };
		toFloat.ewOp = SdpEwOp::Add;
		toFloat.ew = sums.dst;
	}

	toFloat.biasMode = SdpMode::PerChannel;
	toFloat.bias = { kConstantSlot,
		addConstant(folded.bias.data(), folded.bias.size() * sizeof(int32_t)) };
	if (c.bias)
		copiedValues_.push_back(c.bias);
	copiedValues_.push_back(c.weights);
	if (!c.multipliers) {
		/* ConvInteger: the sums themselves, saturated to INT32. */
		toFloat.dst = out;
		unit.sdp = toFloat;
		unit.writes = out.buffer;
		pushUnit(std::move(unit), node);
		return VX_SUCCESS;
	}

	/* 1. The accumulator, as FP32 bits of 1.5 * 2^23 + acc. */
	toFloat.dst = scratchLike(c.output->context, out, DataType::Int32);
	toFloat.activation = SdpActivation::Clip;
	toFloat.clipMin = int32_t(-kExactLimit);
	toFloat.clipMax = int32_t(kExactLimit);
	toFloat.outOffset = kIntegerBaseBits;
	unit.sdp = toFloat;
	unit.writes = toFloat.dst.buffer;
	pushUnit(std::move(unit), node);

	/* 2. Times the multiplier, rounded to an integer. */
	const std::vector<float> multipliers = valuesOf<float>(c.multipliers);
	copiedValues_.push_back(c.multipliers);
	SdpOp scale;
	scale.src = reinterpret(toFloat.dst, DataType::Fp32);
	scale.biasMode = SdpMode::PerTensor;
	scale.biasFloat = -kIntegerBase;
	scale.scaleMode = SdpMode::PerChannel;
	scale.scale = { kConstantSlot, addConstant(multipliers.data(), outputs * sizeof(float)) };
	if (c.relu)
		scale.activation = SdpActivation::Relu;
	scale.round = Round::HalfEven;
	/* 3. Plus the output zero point, saturated to INT8. */
	pushWithOutputZero(c.output->context, scale, out, c.outputZero, node);
	return VX_SUCCESS;
}

Tensor Lowering::pushAsFloatBits(vx_context context, SdpOp sdp, vx_node &node)
{
	sdp.outOffset = kIntegerBaseBits;
	sdp.dst = scratchLike(context, sdp.src, DataType::Int32);
	pushSdpUnit(sdp, node);
	return reinterpret(sdp.dst, DataType::Fp32);
}

void Lowering::pushWithOutputZero(
	vx_context context, SdpOp rounding, const Tensor &out, int32_t outputZero, vx_node &node)
{
	if (outputZero == 0) {
		rounding.dst = out;
		pushSdpUnit(rounding, node);
		return;
	}
	rounding.dst = scratchLike(context, out, DataType::Int16);
	pushSdpUnit(rounding, node);
	SdpOp offset;
	offset.src = rounding.dst;
	offset.outOffset = outputZero;
	offset.dst = out;
	pushSdpUnit(offset, node);
}

} /* namespace vdla::vx::dla */
