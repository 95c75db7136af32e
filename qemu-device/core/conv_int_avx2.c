// SPDX-License-Identifier: MIT
/*
 * The AVX2 compute path's kernel. Each step loads the tap pair of up to 24
 * positions (vectors of 8 positions x 2 int16) and, for each of 4 output
 * channels, broadcasts that channel's weight pair to all 8 lanes: VPMADDWD
 * multiplies the pairs and adds each pair's two products into one int32
 * lane per position, and VPADDD accumulates. With three vectors, twelve
 * accumulators, three patch vectors and one weight vector fill the sixteen
 * YMM registers; groups of 8 or 16 positions use one or two vectors.
 *
 * Neither instruction saturates. The only pair sum VPMADDWD cannot hold is
 * (-32768)^2 * 2 = 2^31, impossible with int8 values or with the split
 * halves conv_int.c feeds INT16 through, which also keep every lane's sum
 * within 31 bits: the lanes are exact, unlike oneDNN's INT8 kernels on CPUs
 * without VNNI, whose VPMADDUBSW saturates pair sums at 16 bits.
 *
 * Only these functions use AVX2 (the target attribute); the core calls them
 * only on a host that has it (compute_path.c).
 */
#include <immintrin.h>

#include "conv_int.h"

#define AVX2 __attribute__((target("avx2")))
#define INLINE_AVX2 __attribute__((target("avx2"), always_inline)) inline

static INLINE_AVX2 __m256i madd_acc(__m256i acc, __m256i a, __m256i b)
{
	return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b));
}

/* The 8 int32 lanes of @v, sign-extended, into @out. */
static INLINE_AVX2 void store_lanes(int64_t *out, __m256i v)
{
	_mm256_storeu_si256((__m256i *)out, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(v)));
	_mm256_storeu_si256((__m256i *)(out + 4),
			    _mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1)));
}

/*
 * One step of channel @j: its weight pair broadcast, times the positions'
 * pairs. Written out per width below, not as loops over arrays: GCC keeps
 * the accumulators in registers only then.
 */
#define STEP(j, ...) __extension__({ __m256i b = _mm256_set1_epi32(w[j]); __VA_ARGS__; })

static AVX2 void dot24(const int16_t *patch, const int32_t *w, size_t pairs,
		       int64_t out[CONV_INT_CHANNELS][CONV_INT_POSITIONS])
{
	__m256i s00 = _mm256_setzero_si256(), s01 = s00, s02 = s00;
	__m256i s10 = s00, s11 = s00, s12 = s00;
	__m256i s20 = s00, s21 = s00, s22 = s00;
	__m256i s30 = s00, s31 = s00, s32 = s00;

	for (size_t k = 0; k < pairs; k++, w += CONV_INT_CHANNELS) {
		const __m256i *p = (const __m256i *)(patch + k * CONV_INT_POSITIONS * 2);
		__m256i a0 = _mm256_load_si256(p), a1 = _mm256_load_si256(p + 1);
		__m256i a2 = _mm256_load_si256(p + 2);

		STEP(0, s00 = madd_acc(s00, a0, b); s01 = madd_acc(s01, a1, b);
		     s02 = madd_acc(s02, a2, b));
		STEP(1, s10 = madd_acc(s10, a0, b); s11 = madd_acc(s11, a1, b);
		     s12 = madd_acc(s12, a2, b));
		STEP(2, s20 = madd_acc(s20, a0, b); s21 = madd_acc(s21, a1, b);
		     s22 = madd_acc(s22, a2, b));
		STEP(3, s30 = madd_acc(s30, a0, b); s31 = madd_acc(s31, a1, b);
		     s32 = madd_acc(s32, a2, b));
	}
	store_lanes(out[0], s00), store_lanes(out[0] + 8, s01), store_lanes(out[0] + 16, s02);
	store_lanes(out[1], s10), store_lanes(out[1] + 8, s11), store_lanes(out[1] + 16, s12);
	store_lanes(out[2], s20), store_lanes(out[2] + 8, s21), store_lanes(out[2] + 16, s22);
	store_lanes(out[3], s30), store_lanes(out[3] + 8, s31), store_lanes(out[3] + 16, s32);
}

static AVX2 void dot16(const int16_t *patch, const int32_t *w, size_t pairs,
		       int64_t out[CONV_INT_CHANNELS][CONV_INT_POSITIONS])
{
	__m256i s00 = _mm256_setzero_si256(), s01 = s00, s10 = s00, s11 = s00;
	__m256i s20 = s00, s21 = s00, s30 = s00, s31 = s00;

	for (size_t k = 0; k < pairs; k++, w += CONV_INT_CHANNELS) {
		const __m256i *p = (const __m256i *)(patch + k * CONV_INT_POSITIONS * 2);
		__m256i a0 = _mm256_load_si256(p), a1 = _mm256_load_si256(p + 1);

		STEP(0, s00 = madd_acc(s00, a0, b); s01 = madd_acc(s01, a1, b));
		STEP(1, s10 = madd_acc(s10, a0, b); s11 = madd_acc(s11, a1, b));
		STEP(2, s20 = madd_acc(s20, a0, b); s21 = madd_acc(s21, a1, b));
		STEP(3, s30 = madd_acc(s30, a0, b); s31 = madd_acc(s31, a1, b));
	}
	store_lanes(out[0], s00), store_lanes(out[0] + 8, s01);
	store_lanes(out[1], s10), store_lanes(out[1] + 8, s11);
	store_lanes(out[2], s20), store_lanes(out[2] + 8, s21);
	store_lanes(out[3], s30), store_lanes(out[3] + 8, s31);
}

static AVX2 void dot8(const int16_t *patch, const int32_t *w, size_t pairs,
		      int64_t out[CONV_INT_CHANNELS][CONV_INT_POSITIONS])
{
	__m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;

	for (size_t k = 0; k < pairs; k++, w += CONV_INT_CHANNELS) {
		__m256i a = _mm256_load_si256((const __m256i *)(patch +
								 k * CONV_INT_POSITIONS * 2));

		STEP(0, s0 = madd_acc(s0, a, b));
		STEP(1, s1 = madd_acc(s1, a, b));
		STEP(2, s2 = madd_acc(s2, a, b));
		STEP(3, s3 = madd_acc(s3, a, b));
	}
	store_lanes(out[0], s0), store_lanes(out[1], s1);
	store_lanes(out[2], s2), store_lanes(out[3], s3);
}

static AVX2 void dot_avx2(const int16_t *patch, const int16_t *wgt, size_t pairs,
			  unsigned int positions,
			  int64_t out[CONV_INT_CHANNELS][CONV_INT_POSITIONS])
{
	const int32_t *w = (const int32_t *)wgt;

	if (positions > 16)
		dot24(patch, w, pairs, out);
	else if (positions > 8)
		dot16(patch, w, pairs, out);
	else
		dot8(patch, w, pairs, out);
}

const struct conv_int_kernels conv_int_avx2_kernels = {
	.name = "avx2",
	.lanes32 = true,
	.dot = dot_avx2,
};
