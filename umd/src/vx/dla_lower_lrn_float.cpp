/* SPDX-License-Identifier: MIT */
/*
 * Fixed-point LRN that no CDP integer table computes within 1 LSB goes
 * through the CDP's float path instead (docs/openvx.md, "Fixed-point LRN
 * through float"): the integers become their real values, the CDP
 * normalises in FP32, and the result is rounded back once.
 */

#include "dla_lower.h"

#include <cmath>
#include <cstdio>

namespace vdla::vx::dla {

namespace {

/* 1.5 * 2^23 as FP32 bits: adding an integer below 2^22 in magnitude to
 * them gives the bits of 1.5 * 2^23 + that integer. */
constexpr int32_t kFloatBase = 0x4b400000;
constexpr float kFloatBaseValue = 12582912.0f;

} /* namespace */

bool lrnThroughFloatFits(float beta, vx_enum type, std::string &why)
{
	/*
	 * The CDP's FP32 sum of at most 15 squares, base and power put a
	 * relative error of at most (17 beta + 2) 2^-24 on the result. Below
	 * 1 LSB of the largest output, the rounded results differ from the
	 * CPU's by at most 1 LSB.
	 */
	const double largest = type == VX_TYPE_INT8 ? 128 : 32768;
	const double bound = (17 * double(beta) + 2) * std::ldexp(1.0, -24) * largest;
	if (bound < 1)
		return true;
	char text[128];
	snprintf(text, sizeof(text),
		"beta %g too large for the FP32 path to stay within 1 LSB (bound %.3g LSB)",
		double(beta), bound);
	why = text;
	return false;
}

void Lowering::pushLrnThroughFloat(
	vx_node node, const CdpOp &layer, vx_tensor input, vx_tensor output)
{
	const vx_context context = output->context;
	const Tensor in = hardwareTensor(input);
	const Tensor out = hardwareTensor(output);

	/* x -> the FP32 bits of 1.5 * 2^23 + x (integer path, exact). */
	SdpOp bits;
	bits.src = in;
	bits.outOffset = kFloatBase;
	bits.dst = scratchLike(context, in, DataType::Int32);
	pushSdpUnit(bits, node);

	/* -> x 2^-pin, exactly (float path: the subtraction and a power of 2). */
	SdpOp real;
	real.src = bits.dst;
	real.src.type = DataType::Fp32;
	real.biasMode = SdpMode::PerTensor;
	real.biasFloat = -kFloatBaseValue;
	real.scaleMode = SdpMode::PerTensor;
	real.scaleFloat = std::ldexp(1.0f, -input->fixedPointPosition);
	real.dst = scratchLike(context, in, DataType::Fp32);
	pushSdpUnit(real, node);

	Unit unit;
	unit.cdp = layer;
	unit.cdp->src = real.dst;
	unit.cdp->dst = scratchLike(context, in, DataType::Fp32);
	unit.reads = { real.dst.buffer };
	unit.writes = unit.cdp->dst.buffer;
	units_.push_back(std::move(unit));

	/* * 2^pout, rounded once to nearest-even and saturated, like nn::quantize. */
	SdpOp back;
	back.src = units_.back().cdp->dst;
	back.scaleMode = SdpMode::PerTensor;
	back.scaleFloat = std::ldexp(1.0f, output->fixedPointPosition);
	back.round = Round::HalfEven;
	back.wrap = false;
	back.dst = out;
	pushSdpUnit(back, node);
}

} /* namespace vdla::vx::dla */
