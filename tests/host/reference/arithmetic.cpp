/* SPDX-License-Identifier: MIT */
/*
 * The reference's arithmetic: hw-spec "Arithmetic" (rshift, rdiv, output
 * conversion, float to integer) and the data types, FP16 included. Written
 * without the host's half-precision support so that the conversion is
 * checked independently as well.
 */
#include "reference.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace vdla_ref {

int64_t sat64(i128 v)
{
	if (v > i128(std::numeric_limits<int64_t>::max()))
		return std::numeric_limits<int64_t>::max();
	if (v < i128(std::numeric_limits<int64_t>::min()))
		return std::numeric_limits<int64_t>::min();
	return int64_t(v);
}

/*
 * Rounds q + r/d (q = floor of the exact quotient, 0 <= r < d) by @mode;
 * @negative tells the sign of the exact quotient for the modes that look at
 * it. Shared by rshift (d = 2^s) and rdiv.
 */
static i128 roundQuotient(i128 q, i128 r, i128 d, bool negative, unsigned mode)
{
	if (r == 0)
		return q;
	/* Compare r with d/2 without losing the half: 2r against d. */
	i128 twice = r * 2;
	switch (mode) {
	case VDLA_ROUND_TO_ZERO:
		return negative ? q + 1 : q;
	case VDLA_ROUND_FLOOR:
		return q;
	case VDLA_ROUND_HALF_UP:
		return twice >= d ? q + 1 : q;
	case VDLA_ROUND_HALF_AWAY:
		if (twice > d)
			return q + 1;
		if (twice == d)
			return negative ? q : q + 1;
		return q;
	case VDLA_ROUND_HALF_EVEN:
		if (twice > d)
			return q + 1;
		if (twice == d)
			return (q & 1) ? q + 1 : q;
		return q;
	default:
		/* Modes 5-7 are invalid (PARAM); the reference is never asked. */
		return q;
	}
}

/* Floor division and its non-negative remainder, for d > 0. */
static void floorDiv(i128 v, i128 d, i128 &q, i128 &r)
{
	q = v / d;
	r = v % d;
	if (r < 0) {
		q -= 1;
		r += d;
	}
}

i128 rshift(i128 v, unsigned s, unsigned mode)
{
	if (s == 0)
		return v;
	i128 d = i128(1) << s;
	i128 q, r;
	floorDiv(v, d, q, r);
	return roundQuotient(q, r, d, v < 0, mode);
}

i128 rdiv(i128 v, int64_t d, unsigned mode)
{
	i128 q, r;
	floorDiv(v, d, q, r);
	return roundQuotient(q, r, d, v < 0, mode);
}

int64_t convertInt(i128 v, unsigned bits, bool wrap)
{
	if (wrap) {
		/* Keep the low bits, then sign-extend them (two's complement). */
		uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
		uint64_t low = uint64_t(v) & mask;
		if (bits < 64 && (low >> (bits - 1)) & 1)
			low |= ~mask;
		return int64_t(low);
	}
	i128 hi = (i128(1) << (bits - 1)) - 1;
	i128 lo = -(i128(1) << (bits - 1));
	return int64_t(v > hi ? hi : v < lo ? lo : v);
}

double roundByMode(double v, unsigned mode)
{
	if (std::isnan(v) || std::isinf(v))
		return v;
	double fl = std::floor(v);
	double fr = v - fl; /* exact */
	switch (mode) {
	case VDLA_ROUND_TO_ZERO:
		return std::trunc(v);
	case VDLA_ROUND_FLOOR:
		return fl;
	case VDLA_ROUND_HALF_UP:
		return fr >= 0.5 ? fl + 1 : fl;
	case VDLA_ROUND_HALF_AWAY:
		if (fr > 0.5)
			return fl + 1;
		if (fr == 0.5)
			return v > 0 ? fl + 1 : fl;
		return fl;
	case VDLA_ROUND_HALF_EVEN:
		if (fr > 0.5)
			return fl + 1;
		if (fr == 0.5)
			return std::fmod(fl, 2.0) == 0 ? fl : fl + 1;
		return fl;
	default:
		return fl;
	}
}

int64_t floatToInt(double v, unsigned bits, unsigned mode, bool wrap)
{
	if (std::isnan(v))
		return 0;
	double r = roundByMode(v, mode);
	double hi = std::ldexp(1.0, bits - 1) - 1;
	double lo = -std::ldexp(1.0, bits - 1);
	if (!wrap)
		return int64_t(r > hi ? hi : r < lo ? lo : r);
	if (std::isinf(r))
		return 0;
	/* r is integral, so fmod by a power of two is exact. */
	double m = std::fmod(r, std::ldexp(1.0, bits));
	return convertInt(i128(int64_t(m)), bits, true);
}

bool isFloat(uint32_t dtype)
{
	return dtype == VDLA_DTYPE_FP16 || dtype == VDLA_DTYPE_FP32;
}

unsigned dtypeBits(uint32_t dtype)
{
	return unsigned(vdla_test::dtypeSize(dtype) * 8);
}

int64_t dtypeMin(uint32_t dtype)
{
	return -(int64_t(1) << (dtypeBits(dtype) - 1));
}

int64_t dtypeMax(uint32_t dtype)
{
	return (int64_t(1) << (dtypeBits(dtype) - 1)) - 1;
}

const char *dtypeName(uint32_t dtype)
{
	switch (dtype) {
	case VDLA_DTYPE_INT8:
		return "Int8";
	case VDLA_DTYPE_INT16:
		return "Int16";
	case VDLA_DTYPE_INT32:
		return "Int32";
	case VDLA_DTYPE_FP16:
		return "Fp16";
	case VDLA_DTYPE_FP32:
		return "Fp32";
	default:
		return "BadType";
	}
}

/* Rounds a non-negative double to an integer, ties to even. */
static double roundHalfEven(double q)
{
	double fl = std::floor(q);
	double fr = q - fl;
	if (fr > 0.5 || (fr == 0.5 && std::fmod(fl, 2.0) != 0))
		return fl + 1;
	return fl;
}

uint16_t fp16FromDouble(double v)
{
	uint16_t sign = std::signbit(v) ? 0x8000 : 0;
	double a = std::fabs(v);
	if (std::isnan(v))
		return sign | 0x7e00;
	if (std::isinf(a))
		return sign | 0x7c00;
	if (a == 0)
		return sign;
	if (a < std::ldexp(1.0, -14)) {
		/*
		 * Subnormal: a multiple of 2^-24. Rounding up to 1024 gives the
		 * smallest normal, whose encoding is that same 0x400.
		 */
		double m = roundHalfEven(std::ldexp(a, 24));
		return sign | uint16_t(m);
	}
	int e;
	std::frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
	int exp = e - 1; /* a in [2^exp, 2^(exp+1)) */
	double m = roundHalfEven(std::ldexp(a, 10 - exp)); /* 1024..2048 */
	if (m == 2048) {
		m = 1024;
		exp++;
	}
	if (exp > 15)
		return sign | 0x7c00;
	return sign | uint16_t(((exp + 15) << 10) | (uint16_t(m) - 1024));
}

double fp16ToDouble(uint16_t h)
{
	double sign = (h & 0x8000) ? -1.0 : 1.0;
	unsigned e = (h >> 10) & 0x1f;
	unsigned m = h & 0x3ff;
	if (e == 0)
		return sign * std::ldexp(double(m), -24);
	if (e == 31)
		return m ? std::numeric_limits<double>::quiet_NaN()
			 : sign * std::numeric_limits<double>::infinity();
	return sign * std::ldexp(double(1024 + m), int(e) - 25);
}

uint32_t fp32Bits(float v)
{
	uint32_t bits;
	std::memcpy(&bits, &v, sizeof(bits));
	return bits;
}

float fp32FromBits(uint32_t bits)
{
	float v;
	std::memcpy(&v, &bits, sizeof(v));
	return v;
}

double roundToFloatType(uint32_t dtype, double v)
{
	if (dtype == VDLA_DTYPE_FP16)
		return fp16ToDouble(fp16FromDouble(v));
	if (dtype == VDLA_DTYPE_FP32)
		return double(float(v));
	return v;
}

bool isFp32Exact(double v)
{
	return std::isnan(v) || double(float(v)) == v;
}

} /* namespace vdla_ref */
