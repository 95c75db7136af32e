/* SPDX-License-Identifier: MIT */
/* Loading and storing one element of any device data type. */
#ifndef VDLA_TENSOR_IO_H
#define VDLA_TENSOR_IO_H

#include <stdint.h>
#include <string.h>

#include "arith.h"
#include "vdla_regs.h"

static inline int64_t load_int(const uint8_t *p, uint32_t dtype)
{
	switch (dtype) {
	case VDLA_DTYPE_INT8:
		return (int8_t)p[0];
	case VDLA_DTYPE_INT16: {
		int16_t v;

		memcpy(&v, p, 2);
		return v;
	}
	default: {
		int32_t v;

		memcpy(&v, p, 4);
		return v;
	}
	}
}

static inline float load_float(const uint8_t *p, uint32_t dtype)
{
	if (dtype == VDLA_DTYPE_FP16) {
		uint16_t h;

		memcpy(&h, p, 2);
		return fp16_to_fp32(h);
	}
	if (dtype == VDLA_DTYPE_FP32) {
		float f;

		memcpy(&f, p, 4);
		return f;
	}
	return (float)load_int(p, dtype);
}

/* Stores an integer already converted to the range of @dtype. */
static inline void store_int(uint8_t *p, uint32_t dtype, int64_t v)
{
	switch (dtype) {
	case VDLA_DTYPE_INT8:
		p[0] = (uint8_t)v;
		break;
	case VDLA_DTYPE_INT16: {
		int16_t x = (int16_t)v;

		memcpy(p, &x, 2);
		break;
	}
	default: {
		int32_t x = (int32_t)v;

		memcpy(p, &x, 4);
		break;
	}
	}
}

static inline void store_float(uint8_t *p, uint32_t dtype, float v)
{
	if (dtype == VDLA_DTYPE_FP16) {
		uint16_t h = fp32_to_fp16(v);

		memcpy(p, &h, 2);
	} else {
		memcpy(p, &v, 4);
	}
}

static inline unsigned int dtype_bits(uint32_t dtype)
{
	return dtype == VDLA_DTYPE_INT8 ? 8 : (dtype == VDLA_DTYPE_INT16 ? 16 : 32);
}

static inline int dtype_is_float(uint32_t dtype)
{
	return dtype == VDLA_DTYPE_FP16 || dtype == VDLA_DTYPE_FP32;
}

#endif /* VDLA_TENSOR_IO_H */
