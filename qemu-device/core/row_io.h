/* SPDX-License-Identifier: MIT */
/*
 * Rows of elements: @count elements @stride bytes apart (0 repeats one),
 * loaded into or stored from arrays of int64_t or float. The element type
 * is decided once per row, not per element, and a packed row is walked
 * linearly, so that these loops and the engines' arithmetic on the arrays
 * vectorise. Rows hold at most ROW_CHUNK elements; loads take the
 * integer types (row_load_int) or the float types (row_load_float) only.
 */
#ifndef VDLA_ROW_IO_H
#define VDLA_ROW_IO_H

#include <stdbool.h>
#include <stdint.h>

#define ROW_CHUNK 256u

void row_load_int(const uint8_t *src, uint64_t stride, uint32_t dtype, uint32_t count,
		  int64_t *out);
void row_load_float(const uint8_t *src, uint64_t stride, uint32_t dtype, uint32_t count,
		    float *out);
/* Saturates (or with @wrap wraps) to the integer @dtype and stores. */
void row_store_int(uint8_t *dst, uint64_t stride, uint32_t dtype, uint32_t count,
		   const int64_t *v, bool wrap);
/* Stores as FP32 or FP16 (rounding to nearest even). */
void row_store_float(uint8_t *dst, uint64_t stride, uint32_t dtype, uint32_t count,
		     const float *v);
/* Rounds by @round, then saturates or wraps to the integer @dtype, and stores. */
void row_store_rounded(uint8_t *dst, uint64_t stride, uint32_t dtype, uint32_t count,
		       const float *v, unsigned int round, bool wrap);
/*
 * v[i] = rshift(v[i] * m, s, round) (m = @mul, or m[i] with @muls), as
 * arith.h's mul_rshift, with the rounding mode decided once per row.
 */
void row_mul_rshift(int64_t *v, uint32_t count, int64_t mul, const int64_t *muls,
		    unsigned int s, unsigned int round);
/* Copies @count elements of @esize bytes (1, 2 or 4) from one row to another. */
void row_copy(uint8_t *dst, uint64_t dst_stride, const uint8_t *src, uint64_t src_stride,
	      uint32_t count, uint32_t esize);

#endif /* VDLA_ROW_IO_H */
