/* SPDX-License-Identifier: MIT */
/*
 * Sub-images: vxCreateImageFromROI and vxCreateImageFromChannel make images
 * that view part of another image's memory, and graphs order the nodes
 * touching overlapping parts as they order the producer and consumers of one
 * object (sharesMemory()).
 */

#include "objects/image_layout.h"

#include <algorithm>

using namespace vdla::vx;

namespace {

/* The planes of the image, of its root, that @image covers. */
vx_uint32 rootPlaneMask(vx_image image)
{
	if (!image->root)
		return (1u << findFormat(image->format)->planeCount) - 1;
	vx_uint32 mask = 0;
	for (vx_uint32 plane : image->rootPlanes)
		mask |= 1u << plane;
	return mask;
}

/* The pixels of its root that @image covers, in the root's coordinates. */
vx_rectangle_t rootRectangle(vx_image image)
{
	return { image->originX, image->originY, image->originX + image->width * image->scaleX,
		image->originY + image->height * image->scaleY };
}

bool intersect(const vx_rectangle_t &a, const vx_rectangle_t &b)
{
	return a.start_x < b.end_x && b.start_x < a.end_x && a.start_y < b.end_y
		&& b.start_y < a.end_y;
}

/* What may be viewed: memory of known layout the application can reach. */
vx_status checkViewable(vx_image parent)
{
	if (parent->isVirtual) {
		log(parent, VX_ERROR_NOT_SUPPORTED,
			"sub-images of virtual images are not supported: the graph may not "
			"keep their memory");
		return VX_ERROR_NOT_SUPPORTED;
	}
	return VX_SUCCESS;
}

/*
 * A view of @parent's memory: @width x @height pixels of @format whose
 * pixel (0, 0) is the parent's (@x, @y) in the parent's coordinates, and
 * whose pixels step by @stepX, @stepY of the parent's (a channel of a
 * subsampled plane steps by its subsampling).
 */
vx_image newView(vx_image parent, vx_df_image format, vx_uint32 width, vx_uint32 height,
	vx_uint32 x, vx_uint32 y, vx_uint32 stepX, vx_uint32 stepY,
	std::vector<vx_uint32> parentPlanes)
{
	auto view = newImage(parent->context, width, height, format);
	vx_image root = memoryOwner(parent);
	view->root = root;
	view->originX = parent->originX + x * parent->scaleX;
	view->originY = parent->originY + y * parent->scaleY;
	view->scaleX = parent->scaleX * stepX;
	view->scaleY = parent->scaleY * stepY;
	for (vx_uint32 plane : parentPlanes)
		view->rootPlanes.push_back(parent->root ? parent->rootPlanes[plane] : plane);
	view->space = parent->space;
	view->isUniform = parent->isUniform;
	view->uniformValue = parent->uniformValue;
	vx_image registered = registerNew(std::move(view), Count::External);
	retain(root, Count::Internal);
	return registered;
}

/* The part of @rect (in the parent's coordinates) at or after @origin,
 * scaled down by @step: whole elements only. */
vx_uint32 startIn(vx_uint32 start, vx_uint32 origin, vx_uint32 step)
{
	return start > origin ? (start - origin + step - 1) / step : 0;
}

vx_uint32 endIn(vx_uint32 end, vx_uint32 origin, vx_uint32 step, vx_uint32 limit)
{
	return end > origin ? std::min((end - origin) / step, limit) : 0;
}

/* The parent's valid region, as far as it lies in the view. */
vx_rectangle_t validPart(
	vx_image parent, vx_image view, vx_uint32 x, vx_uint32 y, vx_uint32 stepX, vx_uint32 stepY)
{
	const vx_rectangle_t &valid = parent->validRect;
	vx_rectangle_t rect = { startIn(valid.start_x, x, stepX), startIn(valid.start_y, y, stepY),
		endIn(valid.end_x, x, stepX, view->width),
		endIn(valid.end_y, y, stepY, view->height) };
	if (rect.start_x >= rect.end_x || rect.start_y >= rect.end_y)
		return { 0, 0, 0, 0 };
	return rect;
}

/* Which plane of @format holds @channel alone, or -1. */
int channelPlane(vx_df_image format, vx_enum channel)
{
	switch (format) {
	case VX_DF_IMAGE_YUV4:
	case VX_DF_IMAGE_IYUV:
		if (channel == VX_CHANNEL_Y)
			return 0;
		if (channel == VX_CHANNEL_U)
			return 1;
		if (channel == VX_CHANNEL_V)
			return 2;
		return -1;
	case VX_DF_IMAGE_NV12:
	case VX_DF_IMAGE_NV21:
		/* U and V share the second plane. */
		return channel == VX_CHANNEL_Y ? 0 : -1;
	default:
		return -1;
	}
}

/* Whether two different roots' application memory overlaps, plane by plane. */
bool imageHandlesOverlap(vx_image a, vx_image b)
{
	a = memoryOwner(a);
	b = memoryOwner(b);
	if (a->memoryType != VX_MEMORY_TYPE_HOST || b->memoryType != VX_MEMORY_TYPE_HOST)
		return false;
	/* Each plane's bytes, from its first element to the end of its last. */
	auto bytes = [](vx_image image, vx_uint32 p) {
		const PlaneFormat &plane = findFormat(image->format)->planes[p];
		const _vx_image::HandlePlane &memory = image->handle[p];
		const vx_size columns = image->width / plane.subsampleX;
		const vx_size rows = image->height / plane.subsampleY;
		const vx_size lastRow = isBitPlane(plane)
			? rowBytes(columns, plane)
			: (columns - 1) * memory.strideX + elementBytes(plane);
		const uint8_t *first = memory.ptr;
		return std::make_pair(
			first, first ? first + (rows - 1) * memory.strideY + lastRow : nullptr);
	};
	for (vx_uint32 p = 0; p < a->handle.size(); p++) {
		const auto [aFirst, aEnd] = bytes(a, p);
		for (vx_uint32 q = 0; q < b->handle.size(); q++) {
			const auto [bFirst, bEnd] = bytes(b, q);
			if (aFirst && bFirst && aFirst < bEnd && bFirst < aEnd)
				return true;
		}
	}
	return false;
}

} /* namespace */

namespace vdla::vx {

bool imagesShareMemory(vx_image a, vx_image b)
{
	if (memoryOwner(a) != memoryOwner(b))
		return imageHandlesOverlap(a, b);
	return (rootPlaneMask(a) & rootPlaneMask(b))
		&& intersect(rootRectangle(a), rootRectangle(b));
}

} /* namespace vdla::vx */

extern "C" {

vx_image vxCreateImageFromROI(vx_image img, const vx_rectangle_t *rect)
try {
	ApiLock lock(apiLock());
	if (!isValid(img, VX_TYPE_IMAGE))
		return nullptr;
	vx_status status = checkViewable(img);
	if (status != VX_SUCCESS)
		return errorAs<vx_image>(img->context, status);

	/* Chroma shared by pixel pairs or blocks may not be cut. */
	const ImageFormat &format = *findFormat(img->format);
	if (!rect || rect->start_x >= rect->end_x || rect->start_y >= rect->end_y
		|| rect->end_x > img->width || rect->end_y > img->height
		|| rect->start_x % format.alignX || rect->end_x % format.alignX
		|| rect->start_y % format.alignY || rect->end_y % format.alignY) {
		log(img, VX_ERROR_INVALID_PARAMETERS,
			"vxCreateImageFromROI: the rectangle must be a non-empty part of the "
			"%ux%u image, on whole chroma blocks",
			img->width, img->height);
		return errorAs<vx_image>(img->context, VX_ERROR_INVALID_PARAMETERS);
	}

	if (rect->start_x % pixelsPerByteGroup(format.planes[0])) {
		log(img, VX_ERROR_INVALID_PARAMETERS,
			"vxCreateImageFromROI: a U1 sub-image starts on a byte, at a multiple of "
			"8 pixels, not at x = %u",
			rect->start_x);
		return errorAs<vx_image>(img->context, VX_ERROR_INVALID_PARAMETERS);
	}

	std::vector<vx_uint32> planes;
	for (vx_uint32 p = 0; p < format.planeCount; p++)
		planes.push_back(p);
	vx_image view = newView(img, img->format, rect->end_x - rect->start_x,
		rect->end_y - rect->start_y, rect->start_x, rect->start_y, 1, 1, planes);
	view->validRect = validPart(img, view, rect->start_x, rect->start_y, 1, 1);
	return view;
}
VX_API_CATCH(nullptr)

vx_image vxCreateImageFromChannel(vx_image img, vx_enum channel)
try {
	ApiLock lock(apiLock());
	if (!isValid(img, VX_TYPE_IMAGE))
		return nullptr;
	vx_status status = checkViewable(img);
	if (status != VX_SUCCESS)
		return errorAs<vx_image>(img->context, status);

	const int plane = channelPlane(img->format, channel);
	if (plane < 0) {
		log(img, VX_ERROR_INVALID_PARAMETERS,
			"vxCreateImageFromChannel: channel %#x is not a plane of its own in "
			"format %08x (Y, U, V of YUV4 and IYUV; Y of NV12 and NV21)",
			unsigned(channel), img->format);
		return errorAs<vx_image>(img->context, VX_ERROR_INVALID_PARAMETERS);
	}

	const PlaneFormat &layout = findFormat(img->format)->planes[plane];
	vx_image view = newView(img, VX_DF_IMAGE_U8, img->width / layout.subsampleX,
		img->height / layout.subsampleY, 0, 0, layout.subsampleX, layout.subsampleY,
		{ vx_uint32(plane) });
	view->space = VX_COLOR_SPACE_NONE;
	view->uniformValue.U8 = img->uniformValue.YUV[plane];
	view->validRect = validPart(img, view, 0, 0, layout.subsampleX, layout.subsampleY);
	return view;
}
VX_API_CATCH(nullptr)

} /* extern "C" */
