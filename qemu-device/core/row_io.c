// SPDX-License-Identifier: MIT
/*
 * Row loads and stores (row_io.h). Each element type has its own loop, with
 * a packed variant the compiler vectorises (this file builds at -O3); the
 * results are those of load_int, load_float, store_int and store_float in
 * tensor_io.h, element by element.
 */
#include <string.h>

#include "row_io.h"
#include "tensor_io.h"

/*
 * FOR_ROW(base, stride, size, body): runs body for i in 0..count-1 (count:
 * the function's parameter) with p pointing to element i; a separate loop
 * for the packed case (stride == size) lets the compiler see consecutive
 * elements.
 */
#define FOR_ROW(base, stride, size, body)                                      \
	do {                                                                   \
		if ((stride) == (size)) {                                      \
			for (uint32_t i = 0; i < count; i++) {                 \
				__typeof__(base) p = (base) + (uint64_t)i * (size); \
				body;                                          \
			}                                                      \
		} else {                                                       \
			for (uint32_t i = 0; i < count; i++) {                 \
				__typeof__(base) p = (base) + i * (stride);    \
				body;                                          \
			}                                                      \
		}                                                              \
	} while (0)

void row_load_int(const uint8_t *src, uint64_t stride, uint32_t dtype, uint32_t count,
		  int64_t *out)
{
	switch (dtype) {
	case VDLA_DTYPE_INT8:
		FOR_ROW(src, stride, 1, out[i] = (int8_t)*p);
		break;
	case VDLA_DTYPE_INT16:
		FOR_ROW(src, stride, 2, {
			int16_t x;

			memcpy(&x, p, 2);
			out[i] = x;
		});
		break;
	default: /* INT32: the integer paths read integer types only */
		FOR_ROW(src, stride, 4, {
			int32_t x;

			memcpy(&x, p, 4);
			out[i] = x;
		});
		break;
	}
}

void row_load_float(const uint8_t *src, uint64_t stride, uint32_t dtype, uint32_t count,
		    float *out)
{
	if (dtype == VDLA_DTYPE_FP32) {
		FOR_ROW(src, stride, 4, memcpy(&out[i], p, 4));
	} else { /* FP16: the float paths read float types only */
		FOR_ROW(src, stride, 2, {
			uint16_t h;

			memcpy(&h, p, 2);
			out[i] = fp16_to_fp32(h);
		});
	}
}

/* Stores with the overflow policy decided once per row. */
#define STORE_INT_ROW(T, bits, wrap)                                             \
	FOR_ROW(dst, stride, sizeof(T), {                                        \
		T x = (T)convert_int(v[i], (bits), (wrap));                      \
									         \
		memcpy(p, &x, sizeof(T));                                        \
	})

void row_store_int(uint8_t *dst, uint64_t stride, uint32_t dtype, uint32_t count,
		   const int64_t *v, bool wrap)
{
	switch (dtype) {
	case VDLA_DTYPE_INT8:
		if (wrap)
			STORE_INT_ROW(int8_t, 8, true);
		else
			STORE_INT_ROW(int8_t, 8, false);
		break;
	case VDLA_DTYPE_INT16:
		if (wrap)
			STORE_INT_ROW(int16_t, 16, true);
		else
			STORE_INT_ROW(int16_t, 16, false);
		break;
	default:
		if (wrap)
			STORE_INT_ROW(int32_t, 32, true);
		else
			STORE_INT_ROW(int32_t, 32, false);
		break;
	}
}

void row_store_float(uint8_t *dst, uint64_t stride, uint32_t dtype, uint32_t count,
		     const float *v)
{
	if (dtype == VDLA_DTYPE_FP16) {
		FOR_ROW(dst, stride, 2, {
			uint16_t h = fp32_to_fp16(v[i]);

			memcpy(p, &h, 2);
		});
	} else {
		FOR_ROW(dst, stride, 4, memcpy(p, &v[i], 4));
	}
}

void row_store_rounded(uint8_t *dst, uint64_t stride, uint32_t dtype, uint32_t count,
		       const float *v, unsigned int round, bool wrap)
{
	int64_t r[ROW_CHUNK];

	for (uint32_t i = 0; i < count; i++)
		r[i] = round_float(v[i], round);
	row_store_int(dst, stride, dtype, count, r, wrap);
}

/* One loop per rounding mode, so that each inlines its own rounding. */
#define MUL_RSHIFT_ROWS(mode)                                                    \
	do {                                                                     \
		if (muls) {                                                      \
			for (uint32_t i = 0; i < count; i++)                     \
				v[i] = mul_rshift(v[i], muls[i], s, (mode));     \
		} else {                                                         \
			for (uint32_t i = 0; i < count; i++)                     \
				v[i] = mul_rshift(v[i], mul, s, (mode));         \
		}                                                                \
	} while (0)

void row_mul_rshift(int64_t *v, uint32_t count, int64_t mul, const int64_t *muls,
		    unsigned int s, unsigned int round)
{
	switch (round) {
	case VDLA_ROUND_TO_ZERO:
		MUL_RSHIFT_ROWS(VDLA_ROUND_TO_ZERO);
		break;
	case VDLA_ROUND_FLOOR:
		MUL_RSHIFT_ROWS(VDLA_ROUND_FLOOR);
		break;
	case VDLA_ROUND_HALF_UP:
		MUL_RSHIFT_ROWS(VDLA_ROUND_HALF_UP);
		break;
	case VDLA_ROUND_HALF_AWAY:
		MUL_RSHIFT_ROWS(VDLA_ROUND_HALF_AWAY);
		break;
	default:
		MUL_RSHIFT_ROWS(VDLA_ROUND_HALF_EVEN);
		break;
	}
}

void row_copy(uint8_t *dst, uint64_t dst_stride, const uint8_t *src, uint64_t src_stride,
	      uint32_t count, uint32_t esize)
{
	if (dst_stride == esize && src_stride == esize) {
		memcpy(dst, src, (size_t)count * esize);
		return;
	}
	switch (esize) {
	case 1:
		for (uint32_t i = 0; i < count; i++)
			dst[i * dst_stride] = src[i * src_stride];
		break;
	case 2:
		for (uint32_t i = 0; i < count; i++)
			memcpy(dst + i * dst_stride, src + i * src_stride, 2);
		break;
	default:
		for (uint32_t i = 0; i < count; i++)
			memcpy(dst + i * dst_stride, src + i * src_stride, 4);
		break;
	}
}
