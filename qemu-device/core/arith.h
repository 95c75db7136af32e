/* SPDX-License-Identifier: MIT */
/*
 * The device's exact arithmetic (docs/hw-spec.md, "Arithmetic"): rounding
 * shifts and divisions, 64-bit saturation, output conversion and FP16.
 */
#ifndef VDLA_ARITH_H
#define VDLA_ARITH_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "vdla_regs.h"

typedef __int128 i128;

static inline int64_t sat64(i128 v)
{
	if (v > INT64_MAX)
		return INT64_MAX;
	if (v < INT64_MIN)
		return INT64_MIN;
	return (int64_t)v;
}

/* sat64(a + b) without a branch, so that loops over rows vectorise. */
static inline int64_t sat_add64(int64_t a, int64_t b)
{
	uint64_t sum = (uint64_t)a + (uint64_t)b;
	/* overflow: a and b of one sign, the sum of the other */
	int64_t over = (int64_t)((a ^ sum) & (b ^ sum)) >> 63;
	int64_t limit = (int64_t)(((uint64_t)a >> 63) + (uint64_t)INT64_MAX);

	return (int64_t)(((uint64_t)over & (uint64_t)limit) | (~(uint64_t)over & sum));
}

/* Rounds the exact quotient q + r/d (0 <= |r| < d, r with the sign of the
 * dividend, as C division gives) by @mode. */
static inline i128 round_quotient(i128 q, i128 r, i128 d, unsigned int mode)
{
	i128 twice;

	if (r == 0)
		return q;
	switch (mode) {
	case VDLA_ROUND_TO_ZERO:
		return q;
	case VDLA_ROUND_FLOOR:
		return r < 0 ? q - 1 : q;
	default:
		break;
	}
	twice = 2 * (r < 0 ? -r : r);
	if (twice > d)
		return r < 0 ? q - 1 : q + 1;
	if (twice < d)
		return q;
	/* exact tie */
	switch (mode) {
	case VDLA_ROUND_HALF_UP:
		return r < 0 ? q : q + 1;
	case VDLA_ROUND_HALF_AWAY:
		return r < 0 ? q - 1 : q + 1;
	default: /* HALF_EVEN */
		if (r < 0)
			return (q & 1) ? q - 1 : q;
		return (q & 1) ? q + 1 : q;
	}
}

/*
 * Rounds v / 2^s (s in 1..127) from its floor @q and the remainder
 * r = v - q * 2^s (0 <= r < 2^s), given as @r_vs_half: the sign of
 * r - 2^(s-1), and @exact: r == 0. Shifts instead of a 128-bit division:
 * the engines round one of these per element.
 */
static inline bool round_floor_up(bool negative, bool q_odd, int r_vs_half, bool exact,
				  unsigned int mode)
{
	if (exact)
		return false;
	switch (mode) {
	case VDLA_ROUND_TO_ZERO:
		return negative;
	case VDLA_ROUND_FLOOR:
		return false;
	default:
		break;
	}
	if (r_vs_half != 0)
		return r_vs_half > 0;
	/* exact tie */
	switch (mode) {
	case VDLA_ROUND_HALF_UP:
		return true;
	case VDLA_ROUND_HALF_AWAY:
		return !negative;
	default: /* HALF_EVEN */
		return q_odd;
	}
}

/* rshift(v, s, mode) for s in 0..63, on a 128-bit value. */
static inline i128 rshift128(i128 v, unsigned int s, unsigned int mode)
{
	unsigned __int128 r, half;
	i128 q;

	if (s == 0)
		return v;
	q = v >> s; /* arithmetic: the floor */
	r = (unsigned __int128)v & ((((unsigned __int128)1) << s) - 1);
	half = (unsigned __int128)1 << (s - 1);
	return q + round_floor_up(v < 0, q & 1, r > half ? 1 : (r < half ? -1 : 0), r == 0, mode);
}

/* rshift128 on a 64-bit value: no 128-bit arithmetic at all. */
static inline int64_t rshift64(int64_t v, unsigned int s, unsigned int mode)
{
	uint64_t r, half;
	int64_t q;

	if (s == 0)
		return v;
	q = v >> s;
	r = (uint64_t)v & ((((uint64_t)1) << s) - 1);
	half = (uint64_t)1 << (s - 1);
	return q + round_floor_up(v < 0, q & 1, r > half ? 1 : (r < half ? -1 : 0), r == 0, mode);
}

static inline int64_t rshift(i128 v, unsigned int s, unsigned int mode)
{
	return sat64(rshift128(v, s, mode));
}

/* rshift(a * b, s, mode), in 64 bits when the product fits. */
static inline int64_t mul_rshift(int64_t a, int64_t b, unsigned int s, unsigned int mode)
{
	int64_t p;

	if (!__builtin_mul_overflow(a, b, &p))
		return rshift64(p, s, mode);
	return rshift((i128)a * b, s, mode);
}

static inline int64_t rdiv(int64_t v, int64_t d, unsigned int mode)
{
	return sat64(round_quotient((i128)v / d, (i128)v % d, d, mode));
}

/*
 * The spec's fmax and fmin (C's, as glibc 2.36 defines them on x86-64: the
 * first argument on equality, so fmax(-0, +0) is -0; a quiet NaN is
 * ignored, and of two the second is the result; a signalling NaN makes the
 * result NaN: the second argument if it is a NaN, else the first,
 * quietened). Ours, so that no libm of another
 * version can change a result, and inline, so that loops need no call per
 * element.
 */
static inline bool fp32_signalling(float f)
{
	uint32_t b;

	memcpy(&b, &f, sizeof(b));
	return (b & 0x7fc00000u) == 0x7f800000u && (b & 0x003fffffu);
}

static inline float fp32_nan_of(float x, float y)
{
	uint32_t b;

	memcpy(&b, isnan(y) ? &y : &x, sizeof(b));
	b |= 0x00400000u;
	memcpy(&x, &b, sizeof(b));
	return x;
}

static inline float spec_fmaxf(float x, float y)
{
	if (__builtin_isgreaterequal(x, y))
		return x;
	if (__builtin_isless(x, y))
		return y;
	if (fp32_signalling(x) || fp32_signalling(y))
		return fp32_nan_of(x, y);
	return isnan(x) ? y : x;
}

static inline float spec_fminf(float x, float y)
{
	if (__builtin_islessequal(x, y))
		return x;
	if (__builtin_isgreater(x, y))
		return y;
	if (fp32_signalling(x) || fp32_signalling(y))
		return fp32_nan_of(x, y);
	return isnan(x) ? y : x;
}

/* Saturates or wraps @v to a signed integer of @bits bits. */
static inline int64_t convert_int(int64_t v, unsigned int bits, bool wrap)
{
	int64_t max = (bits == 64) ? INT64_MAX : (((int64_t)1 << (bits - 1)) - 1);
	int64_t min = -max - 1;

	if (wrap) {
		uint64_t mask = (bits == 64) ? ~0ull : (((uint64_t)1 << bits) - 1);
		uint64_t u = (uint64_t)v & mask;

		if (bits < 64 && (u >> (bits - 1)) & 1)
			u |= ~mask;
		return (int64_t)u;
	}
	return v > max ? max : (v < min ? min : v);
}

/* Float to integer by the device's rounding modes; NaN gives 0. */
static inline int64_t round_float(double v, unsigned int mode)
{
	double r;

	if (isnan(v))
		return 0;
	switch (mode) {
	case VDLA_ROUND_TO_ZERO:
		r = trunc(v);
		break;
	case VDLA_ROUND_FLOOR:
		r = floor(v);
		break;
	case VDLA_ROUND_HALF_UP:
		r = floor(v + 0.5);
		if (r - v > 0.5) /* v + 0.5 rounded up in double */
			r -= 1;
		break;
	case VDLA_ROUND_HALF_AWAY:
		r = round(v);
		break;
	default:
		r = nearbyint(v); /* default environment: ties to even */
		break;
	}
	if (r >= 9.2233720368547758e18)
		return INT64_MAX;
	if (r <= -9.2233720368547758e18)
		return INT64_MIN;
	return (int64_t)r;
}

static inline float fp32_from_bits(uint32_t bits)
{
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

static inline uint32_t fp32_to_bits(float f)
{
	uint32_t bits;

	memcpy(&bits, &f, sizeof(bits));
	return bits;
}

static inline float fp16_to_fp32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16;
	uint32_t exp = (h >> 10) & 0x1f;
	uint32_t man = h & 0x3ff;

	if (exp == 0x1f)
		return fp32_from_bits(sign | 0x7f800000 | (man << 13));
	if (exp == 0) {
		/* zero or subnormal: man * 2^-24, exact in fp32 */
		float f = (float)man * 5.9604644775390625e-8f;

		return sign ? -f : f;
	}
	return fp32_from_bits(sign | ((exp + 112) << 23) | (man << 13));
}

/* FP32 to FP16, round to nearest even, overflow to infinity. */
static inline uint16_t fp32_to_fp16(float f)
{
	uint32_t bits = fp32_to_bits(f);
	uint32_t sign = (bits >> 16) & 0x8000;
	uint32_t exp = (bits >> 23) & 0xff;
	uint32_t man = bits & 0x7fffff;
	int32_t e;

	if (exp == 0xff) /* inf or NaN (keep a quiet NaN) */
		return sign | 0x7c00 | (man ? 0x200 | (man >> 13) : 0);
	e = (int32_t)exp - 127 + 15;
	if (e >= 0x1f)
		return sign | 0x7c00;
	if (e <= 0) {
		/* subnormal half: value = man' * 2^-24 */
		uint32_t full, shift, half, rem, mid;

		if (e < -10)
			return sign; /* below half of the smallest subnormal */
		full = man | 0x800000;
		shift = (uint32_t)(14 - e);
		half = full >> shift;
		rem = full & ((1u << shift) - 1);
		mid = 1u << (shift - 1);
		if (rem > mid || (rem == mid && (half & 1)))
			half++;
		return sign | half;
	} else {
		uint32_t half = ((uint32_t)e << 10) | (man >> 13);
		uint32_t rem = man & 0x1fff;

		if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
			half++; /* may carry into the exponent, up to infinity */
		return sign | half;
	}
}

#endif /* VDLA_ARITH_H */
