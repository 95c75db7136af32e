/* SPDX-License-Identifier: MIT */
/*
 * 1/sqrt and sqrt on the SDP, which has no square root and no table for
 * an unbounded input: 1/sqrt(a) from the FP32 bits, three Newton steps that
 * only multiply, and for sqrt a last product with a (docs/openvx.md,
 * "FLOAT32 SQRT"). FLOAT32 SQRT and SAME_MAP LRN use them.
 */

#include "targets/dla/dla_lower.h"

#include <cfloat>
#include <cmath>

namespace vdla::vx::dla {

namespace {

/* Inputs at or below 0 (and NaN) become this: sqrt gives 2^-50, 0 to the
 * tolerance of the float path, and a stays a normal number. */
const float kSmallest = std::ldexp(1.0f, -100);
/* 0x5f3759df - (bits >> 1) is within 3.5% of 1/sqrt of the float whose
 * bits these are, for every normal positive float. */
constexpr int32_t kRsqrtMagic = 0x5f3759df;
constexpr int kNewtonSteps = 3;

} /* namespace */

Lowering::InverseSqrt Lowering::pushInverseSqrt(
	vx_context context, const Tensor &x, vx_node &node, const Tensor *sqrtInto)
{
	/* a = min(max(x, 2^-100), FLT_MAX): fmax takes the bound over NaN. */
	SdpOp clip;
	clip.src = x;
	clip.activation = SdpActivation::Clip;
	clip.clipMinFloat = kSmallest;
	clip.clipMaxFloat = FLT_MAX;
	clip.dst = scratchLike(context, x, DataType::Fp32);
	pushSdpUnit(clip, node);
	const Tensor a = clip.dst;

	/* y0 = kRsqrtMagic - (bits(a) >> 1), on the integer path: bits(a) >= 0,
	 * so the product by -1 halved toward zero is -(bits >> 1). */
	SdpOp guess;
	guess.src = reinterpret(a, DataType::Int32);
	guess.scaleMode = SdpMode::PerTensor;
	guess.scaleMul = -1;
	guess.scaleShift = 1;
	guess.round = Round::ToZero;
	guess.outOffset = kRsqrtMagic;
	guess.dst = scratchLike(context, x, DataType::Int32);
	pushSdpUnit(guess, node);
	Tensor y = reinterpret(guess.dst, DataType::Fp32);

	/* y <- y (1.5 - 0.5 a y^2), relative error e -> 1.5 e^2: 3.5% ->
	 * 0.18% -> 5e-6 -> FP32 rounding. For sqrt(a) = a / sqrt(a), the last
	 * step multiplies by a y instead of y. */
	for (int step = 0; step < kNewtonSteps; step++) {
		const SdpOp ay = productSdp(a, y, scratchLike(context, x, DataType::Fp32));
		pushSdpUnit(ay, node);

		SdpOp half;
		half.src = ay.dst;
		half.scaleMode = SdpMode::PerTensor;
		half.scaleFloat = -0.5f;
		half.ewOp = SdpEwOp::Mul;
		half.ew = y;
		half.dst = scratchLike(context, x, DataType::Fp32);
		pushSdpUnit(half, node);

		const bool toSqrt = sqrtInto && step + 1 == kNewtonSteps;
		SdpOp next;
		next.src = half.dst;
		next.biasMode = SdpMode::PerTensor;
		next.biasFloat = 1.5f;
		next.ewOp = SdpEwOp::Mul;
		next.ew = toSqrt ? ay.dst : y;
		next.dst = toSqrt ? *sqrtInto : scratchLike(context, x, DataType::Fp32);
		pushSdpUnit(next, node);
		y = next.dst;
	}
	return { a, y };
}

void Lowering::pushFloatSqrtUnits(vx_node node, vx_tensor input, vx_tensor output)
{
	const Tensor out = hardwareTensor(output);
	pushInverseSqrt(output->context, hardwareTensor(input), node, &out);
}

} /* namespace vdla::vx::dla */
