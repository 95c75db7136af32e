/* SPDX-License-Identifier: MIT */
/*
 * What image.cpp (images and their memory) and image_view.cpp (sub-images)
 * share: the formats' plane layouts and the making of image objects.
 */
#pragma once

#include "object.h"

namespace vdla::vx {

/* Bytes per element and subsampling against plane 0. */
struct PlaneFormat {
	vx_uint32 elementSize;
	vx_uint32 subsampleX;
	vx_uint32 subsampleY;
};

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

/* A new image of known format and size, valid everywhere, with one
 * reference held by the application. */
vx_image newImage(vx_context context, vx_uint32 width, vx_uint32 height, vx_df_image format);

vx_rectangle_t fullRectangle(vx_image image);

/* The image owning @image's memory: its root if it is a sub-image. */
inline vx_image memoryOwner(vx_image image)
{
	return image->root ? image->root : image;
}

/* Whether two images use some of the same pixels of one root (image_view.cpp). */
bool imagesShareMemory(vx_image a, vx_image b);

/* Writes @value to every pixel of @image (of a sub-image: its part only). */
vx_status fillPixels(vx_image image, const vx_pixel_value_t &value);

} /* namespace vdla::vx */
