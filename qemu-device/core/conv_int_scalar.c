// SPDX-License-Identifier: MIT
/*
 * The portable compute path's dot products: plain C for any x86-64 (or any
 * other) host. Each product of two int16 values is exact in 32 bits and
 * sums are 64-bit, so every row length the CONV limits allow is exact for
 * INT8 and INT16 alike, with no splitting.
 */
#include "conv_int.h"

static int64_t dot(const int16_t *a, const int16_t *b, size_t k)
{
	int64_t sum = 0;

	for (size_t i = 0; i < k; i++)
		sum += (int32_t)a[i] * b[i];
	return sum;
}

static void dot1x4_scalar(const int16_t *p, const int16_t *const w[4], size_t k, int64_t out[4])
{
	for (int j = 0; j < 4; j++)
		out[j] = dot(p, w[j], k);
}

static void dot3x4_scalar(const int16_t *const p[3], const int16_t *const w[4], size_t k,
			  int64_t out[12])
{
	for (int j = 0; j < 4; j++)
		for (int i = 0; i < 3; i++)
			out[3 * j + i] = dot(p[i], w[j], k);
}

const struct conv_int_kernels conv_int_scalar_kernels = {
	.name = "scalar",
	.lanes32 = false,
	.dot3x4 = dot3x4_scalar,
	.dot1x4 = dot1x4_scalar,
};
