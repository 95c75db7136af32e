/* SPDX-License-Identifier: MIT */
/*
 * The arithmetic of the neural-network layers that the CPU path and the DLA
 * lowering share: rounding shifts, narrowing, quantization and the activation
 * functions. One definition, so both paths produce the same bits.
 */

#include "nn/nn_layers.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace vdla::vx::nn {

namespace {

struct Range {
	int64_t min, max;
};

Range rangeOf(vx_enum type)
{
	if (type == VX_TYPE_INT8)
		return { std::numeric_limits<int8_t>::min(), std::numeric_limits<int8_t>::max() };
	if (type == VX_TYPE_UINT8)
		return { 0, std::numeric_limits<uint8_t>::max() };
	return { std::numeric_limits<int16_t>::min(), std::numeric_limits<int16_t>::max() };
}

int64_t shiftLeftSaturated(int64_t value, unsigned shift)
{
	constexpr int64_t max = std::numeric_limits<int64_t>::max();
	constexpr int64_t min = std::numeric_limits<int64_t>::min();
	if (value == 0)
		return 0;
	if (shift >= 63)
		return value > 0 ? max : min;
	if (value > (max >> shift))
		return max;
	if (value < (min >> shift))
		return min;
	return value * (int64_t(1) << shift);
}

} /* namespace */

int64_t roundShift(int64_t value, unsigned shift, vx_enum roundingPolicy)
{
	if (shift == 0)
		return value;
	/* |value| <= 2^63 is at most half of 2^64: truncation and
	 * ties-to-even both give 0. */
	if (shift >= 64)
		return 0;

	/* Two's complement: the arithmetic shift is the floor quotient and
	 * the low bits are the (non-negative) remainder. */
	const int64_t floor = value >> shift;
	const uint64_t remainder = uint64_t(value) & ((uint64_t(1) << shift) - 1);
	const uint64_t half = uint64_t(1) << (shift - 1);
	if (roundingPolicy == VX_ROUND_POLICY_TO_ZERO)
		return value < 0 && remainder ? floor + 1 : floor;
	if (remainder > half || (remainder == half && (floor & 1)))
		return floor + 1;
	return floor;
}

int64_t convert(int64_t value, vx_enum type, vx_enum overflowPolicy)
{
	const Range range = rangeOf(type);
	if (overflowPolicy == VX_CONVERT_POLICY_SATURATE)
		return std::clamp(value, range.min, range.max);
	/* Wrapping keeps the low bits: modulo 2^8 or 2^16 into the range. */
	if (type == VX_TYPE_INT8)
		return static_cast<int8_t>(static_cast<uint8_t>(value));
	if (type == VX_TYPE_UINT8)
		return static_cast<uint8_t>(value);
	return static_cast<int16_t>(static_cast<uint16_t>(value));
}

double roundHalfEven(double value)
{
	/* Not std::nearbyint: it follows the caller's rounding mode. */
	const double floor = std::floor(value), fraction = value - floor;
	if (fraction > 0.5 || (fraction == 0.5 && std::fmod(floor, 2.0) != 0))
		return floor + 1;
	return floor;
}

int64_t quantize(double real, vx_enum type, vx_int8 fixedPointPosition)
{
	if (std::isnan(real))
		return 0;
	const Range range = rangeOf(type);
	/* Clamp before converting: the double may not fit an int64. */
	const double scaled = roundHalfEven(std::ldexp(real, fixedPointPosition));
	return static_cast<int64_t>(std::clamp(scaled, double(range.min), double(range.max)));
}

double activate(vx_enum function, double a, double b, double x)
{
	switch (function) {
	case VX_NN_ACTIVATION_LOGISTIC:
		return 1.0 / (1.0 + std::exp(-x));
	case VX_NN_ACTIVATION_HYPERBOLIC_TAN:
		return a * std::tanh(b * x);
	case VX_NN_ACTIVATION_RELU:
		return std::max(0.0, x);
	case VX_NN_ACTIVATION_BRELU:
		return std::min(a, std::max(0.0, x));
	case VX_NN_ACTIVATION_SOFTRELU:
		/* log(1 + e^x), written so that e^x cannot overflow. */
		return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
	case VX_NN_ACTIVATION_ABS:
		return std::fabs(x);
	case VX_NN_ACTIVATION_SQUARE:
		return x * x;
	case VX_NN_ACTIVATION_SQRT:
		return x > 0 ? std::sqrt(x) : 0.0;
	case VX_NN_ACTIVATION_LINEAR:
		return a * x + b;
	default:
		return 0.0;
	}
}

int64_t rescale(int64_t value, int fromPosition, int toPosition, vx_enum roundingPolicy)
{
	if (fromPosition >= toPosition)
		return roundShift(value, fromPosition - toPosition, roundingPolicy);
	return shiftLeftSaturated(value, toPosition - fromPosition);
}

int64_t divideNearestEven(int64_t numerator, int64_t denominator)
{
	int64_t quotient = numerator / denominator;
	int64_t remainder = numerator % denominator;
	/* Make the remainder non-negative so that quotient is the floor. */
	if (remainder < 0) {
		quotient--;
		remainder += denominator;
	}
	const int64_t twice = 2 * remainder;
	if (twice > denominator || (twice == denominator && (quotient & 1)))
		quotient++;
	return quotient;
}

} /* namespace vdla::vx::nn */
