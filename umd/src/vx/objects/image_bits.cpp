/* SPDX-License-Identifier: MIT */
/*
 * Rows of VX_DF_IMAGE_U1 pixels, eight to a byte with the leftmost in bit 0.
 * A row of a patch or sub-image starts on a byte boundary but may end inside
 * a byte whose other bits belong to pixels outside it (or to padding).
 */

#include "objects/image_layout.h"

#include <cstring>

namespace vdla::vx {

namespace {

/* The bits of a row's last byte that hold its pixels (0 if it ends on a
 * byte boundary). */
uint8_t tailMask(vx_uint32 columns)
{
	return uint8_t((1u << (columns % 8)) - 1);
}

} /* namespace */

void copyPixelBits(uint8_t *image, ptrdiff_t imageStride, uint8_t *memory, ptrdiff_t memoryStride,
	vx_uint32 columns, vx_uint32 rows, bool toMemory)
{
	const vx_size whole = columns / 8;
	const uint8_t mask = tailMask(columns);
	for (vx_uint32 row = 0; row < rows; row++) {
		uint8_t *pixels = image + ptrdiff_t(row) * imageStride;
		uint8_t *line = memory + ptrdiff_t(row) * memoryStride;
		if (toMemory) {
			memcpy(line, pixels, whole);
			/* Padding bits read as 0, not as the image's neighbours. */
			if (mask)
				line[whole] = pixels[whole] & mask;
		} else {
			memcpy(pixels, line, whole);
			if (mask)
				pixels[whole] = (pixels[whole] & ~mask) | (line[whole] & mask);
		}
	}
}

void fillPixelBits(uint8_t *image, ptrdiff_t stride, vx_uint32 columns, vx_uint32 rows, bool value)
{
	const vx_size whole = columns / 8;
	const uint8_t mask = tailMask(columns);
	const uint8_t bits = value ? 0xff : 0x00;
	for (vx_uint32 row = 0; row < rows; row++) {
		uint8_t *pixels = image + ptrdiff_t(row) * stride;
		memset(pixels, bits, whole);
		if (mask)
			pixels[whole] = (pixels[whole] & ~mask) | (bits & mask);
	}
}

} /* namespace vdla::vx */
