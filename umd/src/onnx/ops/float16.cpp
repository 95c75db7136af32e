/* SPDX-License-Identifier: MIT */
/* Exact conversions between binary16 and the wider floating-point types. */

#include "float16.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

namespace vdla::onnx {

namespace {

constexpr uint16_t kSignBit = 0x8000;
constexpr uint16_t kExponentMask = 0x7c00;
constexpr uint16_t kMantissaMask = 0x03ff;
constexpr uint16_t kQuietBit = 0x0200;

/*
 * value (>= 0, below 2^12 here, so that every step is exact) rounded to an
 * integer, ties to even, whatever the floating-point rounding mode is.
 */
double roundHalfEven(double value)
{
	double whole = std::floor(value);
	double fraction = value - whole;
	if (fraction > 0.5 || (fraction == 0.5 && std::fmod(whole, 2) != 0))
		whole += 1;
	return whole;
}

} /* namespace */

float float16ToFloat(uint16_t bits)
{
	const bool negative = bits & kSignBit;
	const int exponent = (bits & kExponentMask) >> 10;
	const int mantissa = bits & kMantissaMask;
	float magnitude;
	if (exponent == 0x1f && mantissa) {
		/* A NaN keeps its payload in the top bits of float's mantissa. */
		uint32_t nan = (negative ? 0x80000000u : 0) | 0x7f800000u |
			       (uint32_t(mantissa) << 13);
		float value;
		std::memcpy(&value, &nan, sizeof(value));
		return value;
	} else if (exponent == 0x1f) {
		magnitude = INFINITY;
	} else if (exponent == 0) {
		/* Subnormal: mantissa units of 2^-24. */
		magnitude = std::ldexp(float(mantissa), -24);
	} else {
		magnitude = std::ldexp(float(0x400 | mantissa), exponent - 25);
	}
	return negative ? -magnitude : magnitude;
}

uint16_t float16FromDouble(double value)
{
	uint16_t sign = std::signbit(value) ? kSignBit : 0;
	if (std::isnan(value)) {
		/* The top bits of the payload, and the quiet bit so that it stays a NaN. */
		uint64_t bits;
		std::memcpy(&bits, &value, sizeof(bits));
		return sign | kExponentMask | kQuietBit | uint16_t((bits >> 42) & kMantissaMask);
	}
	double magnitude = std::fabs(value);
	if (magnitude >= 65520.0)
		/* 65504 is the largest binary16; from halfway to 2^16 on, it rounds up to infinity. */
		return sign | kExponentMask;
	if (magnitude < std::ldexp(1.0, -14))
		/*
		 * Subnormal range: units of 2^-24. Rounding up to 0x400 gives the
		 * pattern of the smallest normal value, as it should.
		 */
		return sign | uint16_t(roundHalfEven(std::ldexp(magnitude, 24)));

	/* magnitude = significand * 2^exponent with significand in [1, 2). */
	int exponent;
	std::frexp(magnitude, &exponent);
	exponent -= 1;
	/* The significand as 11 bits, [1024, 2048]; scaling by a power of two is exact. */
	const double scaled = roundHalfEven(std::ldexp(magnitude, 10 - exponent));
	/*
	 * The implicit bit (1024) adds to the exponent field: a significand that
	 * rounded up to 2048 carries into the next exponent, as it must.
	 */
	return sign | uint16_t(((exponent + 14) << 10) + int(scaled));
}

Tensor float16ToFloatTensor(const Tensor &x)
{
	if (x.type() != DataType::Float16)
		throw std::logic_error("float16ToFloatTensor of a " + x.describe());
	Tensor out(DataType::Float, x.shape());
	const uint16_t *in = static_cast<const uint16_t *>(x.raw());
	float *o = out.data<float>();
	for (int64_t i = 0, n = x.elements(); i < n; i++)
		o[i] = float16ToFloat(in[i]);
	return out;
}

Tensor float16FromTensor(const Tensor &x)
{
	Tensor out(DataType::Float16, x.shape());
	uint16_t *o = static_cast<uint16_t *>(out.raw());
	if (x.type() == DataType::Float) {
		const float *in = x.data<float>();
		for (int64_t i = 0, n = x.elements(); i < n; i++)
			o[i] = float16FromDouble(in[i]);
	} else {
		const double *in = x.data<double>();
		for (int64_t i = 0, n = x.elements(); i < n; i++)
			o[i] = float16FromDouble(in[i]);
	}
	return out;
}

} /* namespace vdla::onnx */
