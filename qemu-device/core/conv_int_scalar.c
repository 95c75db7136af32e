// SPDX-License-Identifier: MIT
/*
 * The portable compute path's kernel: plain C for any host. Each product of
 * two int16 values is exact in 32 bits and sums are 64-bit, so every
 * reduction the CONV limits allow is exact for INT8 and INT16 alike, with
 * no splitting.
 */
#include <string.h>

#include "conv_int.h"

static void dot_scalar(const int16_t *patch, const int16_t *wgt, size_t pairs,
		       unsigned int positions,
		       int64_t out[CONV_INT_CHANNELS][CONV_INT_POSITIONS])
{
	memset(out, 0, sizeof(int64_t) * CONV_INT_CHANNELS * CONV_INT_POSITIONS);
	for (size_t k = 0; k < pairs; k++) {
		const int16_t *p = patch + k * CONV_INT_POSITIONS * 2;
		const int16_t *w = wgt + k * CONV_INT_CHANNELS * 2;

		for (int j = 0; j < CONV_INT_CHANNELS; j++)
			for (unsigned int r = 0; r < positions; r++)
				out[j][r] += (int32_t)p[2 * r] * w[2 * j] +
					     (int64_t)((int32_t)p[2 * r + 1] * w[2 * j + 1]);
	}
}

const struct conv_int_kernels conv_int_scalar_kernels = {
	.name = "scalar",
	.lanes32 = false,
	.dot = dot_scalar,
};
