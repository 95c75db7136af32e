/* SPDX-License-Identifier: MIT */
/*
 * LRN in FP32 on the DLA (docs/openvx.md, "Fixed-point LRN through float"
 * and "SAME_MAP LRN"): fixed-point LRN across maps that no CDP integer
 * table computes within 1 LSB, and SAME_MAP LRN of every type. Integers
 * become their real values exactly, the CDP normalises in FP32, and the
 * result is rounded back once.
 */

#include "targets/dla/dla_lower.h"

#include "targets/dla/dla_float_bits.h"

#include <cmath>
#include <cstdio>

namespace vdla::vx::dla {

bool lrnThroughFloatFits(
	float beta, vx_size terms, double extraUlps, vx_enum type, std::string &why)
{
	/*
	 * An FP32 sum of @terms squares is within (terms - 1) u of the exact
	 * sum (u = 2^-24), the base within terms + 1 u, its power within
	 * beta (terms + 2) + 1 u, the product with x 1 u more; @extraUlps adds
	 * the other steps of a lowering. Below 1 LSB of the largest output,
	 * the rounded results differ from the CPU's by at most 1 LSB.
	 */
	const double largest = type == VX_TYPE_INT8 ? 128 : 32768;
	const double ulps = double(beta) * double(terms + 2) + 2 + extraUlps;
	const double bound = ulps * std::ldexp(1.0, -24) * largest;
	if (bound < 1)
		return true;
	char text[128];
	snprintf(text, sizeof(text),
		"beta %g too large for the FP32 path to stay within 1 LSB (bound %.3g LSB)",
		double(beta), bound);
	why = text;
	return false;
}

Tensor Lowering::pushRealValues(vx_tensor input, vx_node &node)
{
	const Tensor in = hardwareTensor(input);
	if (in.type == DataType::Fp32)
		return in;
	const vx_context context = input->context;

	/* x -> the FP32 bits of 1.5 * 2^23 + x (integer path, exact). */
	SdpOp bits;
	bits.src = in;
	bits.outOffset = kIntegerBaseBits;
	bits.dst = scratchLike(context, in, DataType::Int32);
	pushSdpUnit(bits, node);

	/* -> x 2^-pin, exactly (float path: the subtraction and a power of 2). */
	SdpOp real;
	real.src = reinterpret(bits.dst, DataType::Fp32);
	real.biasMode = SdpMode::PerTensor;
	real.biasFloat = -kIntegerBase;
	real.scaleMode = SdpMode::PerTensor;
	real.scaleFloat = std::ldexp(1.0f, -input->fixedPointPosition);
	real.dst = scratchLike(context, in, DataType::Fp32);
	pushSdpUnit(real, node);
	return real.dst;
}

void Lowering::pushStoreReal(
	const Tensor &real, const Tensor *factor, vx_tensor output, vx_node &node)
{
	/* [* factor] [* 2^pout, rounded once to nearest-even and saturated,
	 * like nn::quantize]. */
	SdpOp store;
	store.src = real;
	if (output->dataType != VX_TYPE_FLOAT32) {
		store.scaleMode = SdpMode::PerTensor;
		store.scaleFloat = std::ldexp(1.0f, output->fixedPointPosition);
	}
	if (factor) {
		store.ewOp = SdpEwOp::Mul;
		store.ew = *factor;
	}
	store.round = Round::HalfEven;
	store.wrap = false;
	store.dst = hardwareTensor(output);
	pushSdpUnit(store, node);
}

Tensor Lowering::pushCdp(vx_context context, const CdpOp &layer, const Tensor &src, vx_node &node)
{
	Unit unit;
	unit.cdp = layer;
	unit.cdp->src = src;
	unit.cdp->dst = scratchLike(context, src, DataType::Fp32);
	unit.reads = { src.buffer };
	unit.writes = unit.cdp->dst.buffer;
	const Tensor dst = unit.cdp->dst;
	pushUnit(std::move(unit), node);
	return dst;
}

void Lowering::pushLrnThroughFloat(
	vx_node node, const CdpOp &layer, vx_tensor input, vx_tensor output)
{
	const Tensor real = pushRealValues(input, node);
	pushStoreReal(pushCdp(output->context, layer, real, node), nullptr, output, node);
}

void Lowering::pushSameMapLrn(vx_node node, const CdpOp &layer, vx_tensor input, vx_tensor output)
{
	/*
	 * out = x (bias + alpha/size^2 S)^-beta, S the sum of x^2 over the
	 * size x size window in x's channel. The CDP normalises across
	 * channels, but with SIZE 1 it gives r (bias + alpha r^2)^-beta of its
	 * input r; with r = sqrt(S / size^2) = a y, y = 1/sqrt(a):
	 * out = (x / r) CDP(r) = x y CDP(r). S / size^2 is a PDP average over
	 * the window, the padding counted as zeros.
	 */
	const vx_context context = output->context;
	const Tensor x = pushRealValues(input, node);

	const SdpOp square = productSdp(x, x, scratchLike(context, x, DataType::Fp32));
	pushSdpUnit(square, node);

	PdpOp average;
	average.method = PoolMethod::Average;
	average.includePad = true;
	average.kernelW = average.kernelH = uint16_t(layer.size);
	average.padLeft = average.padRight = average.padTop = average.padBottom
		= uint16_t(layer.size / 2);
	average.src = square.dst;
	average.dst = scratchLike(context, x, DataType::Fp32);
	Unit pool;
	pool.pdp = average;
	pool.reads = { average.src.buffer };
	pool.writes = average.dst.buffer;
	pushUnit(std::move(pool), node);

	const InverseSqrt inverse = pushInverseSqrt(context, average.dst, node, nullptr);
	const SdpOp root
		= productSdp(inverse.a, inverse.y, scratchLike(context, x, DataType::Fp32));
	pushSdpUnit(root, node);

	CdpOp single = layer;
	single.size = 1;
	const Tensor normalised = pushCdp(context, single, root.dst, node);

	const SdpOp factor = productSdp(x, inverse.y, scratchLike(context, x, DataType::Fp32));
	pushSdpUnit(factor, node);
	pushStoreReal(normalised, &factor.dst, output, node);
}

} /* namespace vdla::vx::dla */
