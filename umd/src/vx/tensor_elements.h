/* SPDX-License-Identifier: MIT */
/*
 * One integer element of a tensor read or written by its type: INT8,
 * UINT8, else INT16 (callers handle FLOAT32 themselves). Shared by the CPU
 * paths of the neural-network layers and of the tensor kernels.
 */
#pragma once

#include <VX/vx.h>

#include <cstdint>
#include <cstring>

namespace vdla::vx {

inline int64_t loadRawElement(const uint8_t *at, vx_enum type)
{
	switch (type) {
	case VX_TYPE_INT8:
		return int8_t(*at);
	case VX_TYPE_UINT8:
		return *at;
	default: {
		int16_t value;
		memcpy(&value, at, sizeof(value));
		return value;
	}
	}
}

/* @value fits the type: callers narrow it first (nn::convert()). */
inline void storeRawElement(uint8_t *at, vx_enum type, int64_t value)
{
	if (type == VX_TYPE_INT8 || type == VX_TYPE_UINT8) {
		*at = uint8_t(value);
		return;
	}
	const int16_t narrow = int16_t(value);
	memcpy(at, &narrow, sizeof(narrow));
}

} /* namespace vdla::vx */
