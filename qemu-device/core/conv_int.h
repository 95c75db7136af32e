/* SPDX-License-Identifier: MIT */
/*
 * Exact INT8 and INT16 convolution on vdla's own kernels (conv_int.c), and
 * the dot-product kernels each compute path brings (conv_int_scalar.c,
 * conv_int_avx2.c). docs/hw-spec.md, "Compute paths", says why each is
 * exact.
 */
#ifndef VDLA_CONV_INT_H
#define VDLA_CONV_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct conv_problem;
struct mem_ctx;
struct scratch_pool;

/* Output positions and output channels one kernel call computes. */
#define CONV_INT_POSITIONS	24
#define CONV_INT_CHANNELS	4

/*
 * One kernel call: for CONV_INT_CHANNELS output channels j and the first
 * @positions (1 to CONV_INT_POSITIONS) output positions r,
 *
 *   out[j][r] = sum over k < @pairs of patch[k][r][0] * wgt[k][j][0]
 *                                     + patch[k][r][1] * wgt[k][j][1]
 *
 * where patch is int16_t[pairs][CONV_INT_POSITIONS][2] (the taps of each
 * position, two at a time) and wgt int16_t[pairs][CONV_INT_CHANNELS][2],
 * both 32-byte aligned. Outputs of later positions are undefined.
 */
struct conv_int_kernels {
	const char *name;
	/*
	 * The kernel sums in 32-bit lanes, which is exact for INT8 (every
	 * partial sum of a CONV fits 31 bits by the reduction limit); an INT16
	 * dot product is then split into pieces that fit (conv_int.c).
	 * Otherwise it sums in 64 bits, exact for any INT16 CONV.
	 */
	bool lanes32;
	void (*dot)(const int16_t *patch, const int16_t *wgt, size_t pairs,
		    unsigned int positions, int64_t out[CONV_INT_CHANNELS][CONV_INT_POSITIONS]);
};

extern const struct conv_int_kernels conv_int_scalar_kernels;
extern const struct conv_int_kernels conv_int_avx2_kernels;

/*
 * Runs @p, an INT8 (@int16 false) or INT16 convolution whose input is read
 * through its strides, with the padding of @p and @pad_value at padded
 * positions, on @kernels. The result is exact: the sums of docs/hw-spec.md,
 * "CONV", saturated to 32 bits. Returns 0, VDLA_ERROR_LIMIT (out of
 * memory) or VDLA_ERROR_CANCELLED when the operation of @cancel (NULL:
 * none) was voided: it looks between blocks of positions.
 */
int conv_int(struct scratch_pool *pool, const struct conv_problem *p, bool int16,
	     int32_t pad_value, const struct conv_int_kernels *kernels,
	     const struct mem_ctx *cancel);

#ifdef __cplusplus
}
#endif

#endif /* VDLA_CONV_INT_H */
