/* SPDX-License-Identifier: MIT */
/*
 * libvdla's dequantisation on the SDP (nn_dequantize.h), bit for bit:
 *
 *   1. an integer SDP adds -zero (per tensor, or per channel from a table)
 *      and 0x4B400000: INT32 bits that, read as FP32, are exactly
 *      1.5 * 2^23 + (x - zero) (the hardware has no integer-to-float
 *      conversion; dla_lower_convolution.cpp);
 *   2. a float SDP subtracts 1.5 * 2^23 (exact: x - zero) and multiplies by
 *      the scale (one float32 rounding, as float32(x - zero) * scale).
 *
 * Exact while |x - zero| < 2^22: the zero points stay within +-2^21.
 */

#include "dla_lower.h"
#include "dla_float_bits.h"

#include "nn/nn_dequantize.h"
#include "nn/nn_layers.h"

#include <cstdlib>

namespace vdla::vx::dla {

namespace {

constexpr int32_t kMaxZero = 1 << 21;

} /* namespace */

bool dequantizeFits(const nn::Dequantize &layer, std::string &why)
{
	if (!tensorFits(layer.input, why) || !tensorFits(layer.output, why))
		return false;
	if (!layer.zeros->storage() || !layer.scales->storage()) {
		why = "zero points or scales without values";
		return false;
	}
	for (int32_t zero : valuesOf<int32_t>(layer.zeros)) {
		if (std::abs(int64_t(zero)) > kMaxZero) {
			why = "a zero point beyond +-2^21 (the exact conversion to float)";
			return false;
		}
	}
	return true;
}

vx_status Lowering::lowerDequantize(vx_node node)
{
	const auto layer = std::get<nn::Dequantize>(*nn::describeLayer(node));
	const Tensor in = hardwareTensor(layer.input), out = hardwareTensor(layer.output);
	const std::vector<int32_t> zeros = valuesOf<int32_t>(layer.zeros);
	const std::vector<float> scales = valuesOf<float>(layer.scales);
	copiedValues_.push_back(layer.zeros);
	copiedValues_.push_back(layer.scales);
	const bool perChannel = zeros.size() > 1;

	/* 1. x - zero as FP32 bits of 1.5 * 2^23 + (x - zero). */
	SdpOp toFloat;
	toFloat.src = in;
	if (perChannel) {
		std::vector<int32_t> negated(zeros.size());
		for (size_t k = 0; k < zeros.size(); k++)
			negated[k] = -zeros[k];
		toFloat.biasMode = SdpMode::PerChannel;
		toFloat.bias = { kConstantSlot,
			addConstant(negated.data(), negated.size() * sizeof(int32_t)) };
	} else {
		toFloat.biasMode = SdpMode::PerTensor;
		toFloat.biasValue = -zeros[0];
	}

	/* 2. Less 1.5 * 2^23, times the scale. */
	SdpOp scale;
	scale.src = pushAsFloatBits(layer.output->context, toFloat, node);
	scale.biasMode = SdpMode::PerTensor;
	scale.biasFloat = -kIntegerBase;
	if (perChannel) {
		scale.scaleMode = SdpMode::PerChannel;
		scale.scale = { kConstantSlot, addConstant(scales.data(), scales.size() * sizeof(float)) };
	} else {
		scale.scaleMode = SdpMode::PerTensor;
		scale.scaleFloat = scales[0];
	}
	scale.dst = out;
	pushSdpUnit(scale, node);
	return VX_SUCCESS;
}

} /* namespace vdla::vx::dla */
