/* SPDX-License-Identifier: MIT */
/*
 * What image.cpp (images and their memory) and image_view.cpp (sub-images)
 * share: the formats' plane layouts and the making of image objects.
 */
#pragma once

#include "framework/object.h"

namespace vdla::vx {

/* Bits per element and subsampling against plane 0. */
struct PlaneFormat {
	vx_uint32 elementBits;
	vx_uint32 subsampleX;
	vx_uint32 subsampleY;
};

/*
 * VX_DF_IMAGE_U1 packs eight pixels into a byte, the leftmost in bit 0. Its
 * rows start on byte boundaries, its stride_x is 0 (stride_x_bits 1), and
 * patches and sub-images start at multiples of eight pixels so that a
 * pointer into the plane always points at a whole group of eight.
 */
inline bool isBitPlane(const PlaneFormat &plane)
{
	return plane.elementBits < 8;
}

/* The byte step from one element to the next: 0 within packed bits. */
inline vx_uint32 elementBytes(const PlaneFormat &plane)
{
	return plane.elementBits / 8;
}

/* Bytes holding @columns elements of one row. */
inline vx_size rowBytes(vx_size columns, const PlaneFormat &plane)
{
	return (columns * plane.elementBits + 7) / 8;
}

/* Pixels per group that a pointer can address: 8 for U1, else 1. */
inline vx_uint32 pixelsPerByteGroup(const PlaneFormat &plane)
{
	return isBitPlane(plane) ? 8 / plane.elementBits : 1;
}

struct ImageFormat {
	vx_df_image code;
	vx_uint32 planeCount;
	PlaneFormat planes[3];
	/* Width and height must be multiples of these: chroma is shared by
	 * pixel pairs or 2x2 blocks. */
	vx_uint32 alignX;
	vx_uint32 alignY;
	/* Formats with colour carry a colour space; single channels none. */
	bool coloured;
};

/* Null for VX_DF_IMAGE_VIRT and codes that are no format. */
const ImageFormat *findFormat(vx_df_image code);

/* A new image of known format and size, valid everywhere, not registered
 * yet: the caller fills it in and publishes it with registerNew. */
std::unique_ptr<_vx_image> newImage(
	vx_context context, vx_uint32 width, vx_uint32 height, vx_df_image format);

vx_rectangle_t fullRectangle(vx_image image);

/* The image owning @image's memory: its root if it is a sub-image. */
inline vx_image memoryOwner(vx_image image)
{
	return image->root ? image->root : image;
}

/*
 * Whether two images use some of the same memory (image_view.cpp): pixels
 * of one root, or, for images on the application's memory, overlapping
 * plane bytes of their roots (a conservative test for sub-images).
 */
bool imagesShareMemory(vx_image a, vx_image b);

/*
 * Copies @rows rows of @columns U1 pixels, each row starting at bit 0 of its
 * first byte, between an image plane and memory. Copies into memory clear
 * the bits after the last pixel; copies into the image keep them, as they
 * belong to pixels outside the patch (image_bits.cpp).
 */
void copyPixelBits(uint8_t *image, ptrdiff_t imageStride, uint8_t *memory, ptrdiff_t memoryStride,
	vx_uint32 columns, vx_uint32 rows, bool toMemory);

/* Sets @rows rows of @columns U1 pixels to @value, keeping the other bits of
 * each row's last byte. */
void fillPixelBits(uint8_t *image, ptrdiff_t stride, vx_uint32 columns, vx_uint32 rows, bool value);

/* Writes @value to every pixel of @image (of a sub-image: its part only). */
vx_status fillPixels(vx_image image, const vx_pixel_value_t &value);

} /* namespace vdla::vx */
