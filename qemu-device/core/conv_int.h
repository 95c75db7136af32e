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
struct scratch_pool;

/* Rows of patches and weights are padded with zeros to a multiple of this. */
#define CONV_INT_ROW_ALIGN	16

/*
 * Dot products of rows of int16 values, @k of them per row (a multiple of
 * CONV_INT_ROW_ALIGN; rows are 32-byte aligned). dot3x4 computes the twelve
 * products of patch rows p[0..2] with weight rows w[0..3] into
 * out[3 * j + i] = p[i] . w[j]; dot1x4 the four of one patch row.
 */
struct conv_int_kernels {
	const char *name;
	/*
	 * The kernel sums in 32-bit lanes, which wrap: exact for INT8 (every
	 * partial sum of a CONV fits 31 bits by the reduction limit), but an
	 * INT16 dot product must then be split into bounded pieces
	 * (conv_int.c). Otherwise the kernel sums in 64 bits and is exact for
	 * any row of int16 values up to 2^32 long.
	 */
	bool lanes32;
	void (*dot3x4)(const int16_t *const p[3], const int16_t *const w[4], size_t k,
		       int64_t out[12]);
	void (*dot1x4)(const int16_t *p, const int16_t *const w[4], size_t k, int64_t out[4]);
};

extern const struct conv_int_kernels conv_int_scalar_kernels;
extern const struct conv_int_kernels conv_int_avx2_kernels;

/*
 * Runs @p, an INT8 (@int16 false) or INT16 convolution whose input is dense
 * with the padding materialised and whose weights are dense, on @kernels.
 * The result is exact: the sums of docs/hw-spec.md, "CONV", saturated to
 * 32 bits. Returns 0, or -1 if out of memory.
 */
int conv_int(struct scratch_pool *pool, const struct conv_problem *p, bool int16,
	     const struct conv_int_kernels *kernels);

#ifdef __cplusplus
}
#endif

#endif /* VDLA_CONV_INT_H */
