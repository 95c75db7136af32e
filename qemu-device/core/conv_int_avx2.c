// SPDX-License-Identifier: MIT
/*
 * The AVX2 compute path's dot products. VPMADDWD multiplies 16 pairs of
 * int16 values and adds neighbouring products into 8 int32 lanes; the lanes
 * accumulate with VPADDD. Neither saturates: the only pair sum VPMADDWD
 * cannot represent is (-32768)^2 * 2 = 2^31, impossible with one operand
 * in int8 range or in the split halves conv_int.c feeds INT16 through, and
 * VPADDD wraps, so a sum whose true value fits 32 bits comes out exact.
 * That is the difference from oneDNN's INT8 kernels on hosts without VNNI,
 * whose VPMADDUBSW saturates each pair sum at 16 bits.
 *
 * Only these functions use AVX2 (the target attribute); the core calls them
 * only when the host has it (compute_path.c).
 */
#include <immintrin.h>

#include "conv_int.h"

#define AVX2 __attribute__((target("avx2")))

/* The sum of the 8 int32 lanes of @v, each sign-extended to 64 bits. */
static inline AVX2 int64_t sum_lanes(__m256i v)
{
	__m256i wide = _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(v)),
					_mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1)));
	__m128i half = _mm_add_epi64(_mm256_castsi256_si128(wide),
				     _mm256_extracti128_si256(wide, 1));

	return _mm_cvtsi128_si64(half) + _mm_extract_epi64(half, 1);
}

static inline AVX2 __m256i load(const int16_t *row, size_t i)
{
	return _mm256_load_si256((const __m256i *)(row + i));
}

static inline AVX2 __m256i madd_acc(__m256i acc, __m256i a, __m256i b)
{
	return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b));
}

static AVX2 void dot1x4_avx2(const int16_t *p, const int16_t *const w[4], size_t k,
			     int64_t out[4])
{
	__m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;

	for (size_t i = 0; i < k; i += CONV_INT_ROW_ALIGN) {
		__m256i a = load(p, i);

		s0 = madd_acc(s0, a, load(w[0], i));
		s1 = madd_acc(s1, a, load(w[1], i));
		s2 = madd_acc(s2, a, load(w[2], i));
		s3 = madd_acc(s3, a, load(w[3], i));
	}
	out[0] = sum_lanes(s0);
	out[1] = sum_lanes(s1);
	out[2] = sum_lanes(s2);
	out[3] = sum_lanes(s3);
}

/*
 * Three patch rows by four weight rows: twelve accumulators, three patch
 * vectors and one weight vector fill the sixteen YMM registers, and each
 * weight vector loaded serves three products.
 */
static AVX2 void dot3x4_avx2(const int16_t *const p[3], const int16_t *const w[4], size_t k,
			     int64_t out[12])
{
	const int16_t *p0 = p[0], *p1 = p[1], *p2 = p[2];
	const int16_t *w0 = w[0], *w1 = w[1], *w2 = w[2], *w3 = w[3];
	__m256i s00 = _mm256_setzero_si256(), s01 = s00, s02 = s00;
	__m256i s10 = s00, s11 = s00, s12 = s00;
	__m256i s20 = s00, s21 = s00, s22 = s00;
	__m256i s30 = s00, s31 = s00, s32 = s00;

	for (size_t i = 0; i < k; i += CONV_INT_ROW_ALIGN) {
		__m256i a0 = load(p0, i), a1 = load(p1, i), a2 = load(p2, i);
		__m256i b;

		b = load(w0, i);
		s00 = madd_acc(s00, a0, b);
		s01 = madd_acc(s01, a1, b);
		s02 = madd_acc(s02, a2, b);
		b = load(w1, i);
		s10 = madd_acc(s10, a0, b);
		s11 = madd_acc(s11, a1, b);
		s12 = madd_acc(s12, a2, b);
		b = load(w2, i);
		s20 = madd_acc(s20, a0, b);
		s21 = madd_acc(s21, a1, b);
		s22 = madd_acc(s22, a2, b);
		b = load(w3, i);
		s30 = madd_acc(s30, a0, b);
		s31 = madd_acc(s31, a1, b);
		s32 = madd_acc(s32, a2, b);
	}
	out[0] = sum_lanes(s00);
	out[1] = sum_lanes(s01);
	out[2] = sum_lanes(s02);
	out[3] = sum_lanes(s10);
	out[4] = sum_lanes(s11);
	out[5] = sum_lanes(s12);
	out[6] = sum_lanes(s20);
	out[7] = sum_lanes(s21);
	out[8] = sum_lanes(s22);
	out[9] = sum_lanes(s30);
	out[10] = sum_lanes(s31);
	out[11] = sum_lanes(s32);
}

const struct conv_int_kernels conv_int_avx2_kernels = {
	.name = "avx2",
	.lanes32 = true,
	.dot3x4 = dot3x4_avx2,
	.dot1x4 = dot1x4_avx2,
};
