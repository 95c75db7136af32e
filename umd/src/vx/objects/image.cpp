/* SPDX-License-Identifier: MIT */
/*
 * Images of the basic formats: planes and patches, memory from the
 * application, uniform images, and valid rectangles, including those of node
 * outputs computed through the kernels' valid rectangle callbacks.
 */

#include "objects/image_layout.h"

#include <cstring>
#include <limits>
#include <new>

using namespace vdla::vx;

namespace {

constexpr ImageFormat kFormats[] = {
	{ VX_DF_IMAGE_RGB, 1, { { 24, 1, 1 } }, 1, 1, true },
	{ VX_DF_IMAGE_RGBX, 1, { { 32, 1, 1 } }, 1, 1, true },
	{ VX_DF_IMAGE_NV12, 2, { { 8, 1, 1 }, { 16, 2, 2 } }, 2, 2, true },
	{ VX_DF_IMAGE_NV21, 2, { { 8, 1, 1 }, { 16, 2, 2 } }, 2, 2, true },
	{ VX_DF_IMAGE_UYVY, 1, { { 16, 1, 1 } }, 2, 1, true },
	{ VX_DF_IMAGE_YUYV, 1, { { 16, 1, 1 } }, 2, 1, true },
	{ VX_DF_IMAGE_IYUV, 3, { { 8, 1, 1 }, { 8, 2, 2 }, { 8, 2, 2 } }, 2, 2, true },
	{ VX_DF_IMAGE_YUV4, 3, { { 8, 1, 1 }, { 8, 1, 1 }, { 8, 1, 1 } }, 1, 1, true },
	{ VX_DF_IMAGE_U1, 1, { { 1, 1, 1 } }, 1, 1, false },
	{ VX_DF_IMAGE_U8, 1, { { 8, 1, 1 } }, 1, 1, false },
	{ VX_DF_IMAGE_U16, 1, { { 16, 1, 1 } }, 1, 1, false },
	{ VX_DF_IMAGE_S16, 1, { { 16, 1, 1 } }, 1, 1, false },
	{ VX_DF_IMAGE_U32, 1, { { 32, 1, 1 } }, 1, 1, false },
	{ VX_DF_IMAGE_S32, 1, { { 32, 1, 1 } }, 1, 1, false },
};

/* Set while a valid rectangle callback runs, which may not read or set
 * valid rectangles itself. */
thread_local bool inValidRectangleCallback = false;

vx_uint32 planeCount(vx_image image)
{
	const ImageFormat *format = findFormat(image->format);
	return format ? format->planeCount : 0;
}

/* Format and size of an image about to exist; a virtual image may leave
 * them open. */
vx_status checkGeometry(vx_df_image code, vx_uint32 width, vx_uint32 height, bool isVirtual)
{
	const ImageFormat *format = findFormat(code);
	if (!format && !(isVirtual && code == VX_DF_IMAGE_VIRT))
		return VX_ERROR_INVALID_FORMAT;
	if (!isVirtual && (width == 0 || height == 0))
		return VX_ERROR_INVALID_DIMENSION;
	/* Row strides are vx_int32. */
	if (width > std::numeric_limits<vx_int32>::max() / 4)
		return VX_ERROR_INVALID_DIMENSION;
	if (format && (width % format->alignX || height % format->alignY))
		return VX_ERROR_INVALID_DIMENSION;
	return VX_SUCCESS;
}

bool isProperRectangle(vx_image image, const vx_rectangle_t &rect)
{
	return rect.start_x <= rect.end_x && rect.start_y <= rect.end_y
		&& rect.end_x <= image->width && rect.end_y <= image->height;
}

/* Called once format and size are known: at creation, or when verification
 * completes a virtual image. */
void settleLayout(vx_image image)
{
	image->space = findFormat(image->format)->coloured ? VX_COLOR_SPACE_DEFAULT
							   : VX_COLOR_SPACE_NONE;
	image->validRect = fullRectangle(image);
}

vx_image createImage(vx_context context, vx_uint32 width, vx_uint32 height, vx_df_image format)
{
	vx_status status = checkGeometry(format, width, height, false);
	if (status != VX_SUCCESS) {
		log(context, status, "vxCreateImage: bad format %08x or size %ux%u", format, width,
			height);
		return errorAs<vx_image>(context, status);
	}
	return registerNew(newImage(context, width, height, format), Count::External);
}

/* Where the elements of one plane are; base is null when the image has no
 * memory (swapped out, or out of memory). */
struct PlaneView {
	uint8_t *base;
	vx_int32 strideX;
	vx_int32 strideY;
	PlaneFormat format;
};

vx_size planeBytes(vx_image image, const PlaneFormat &plane)
{
	return rowBytes(image->width / plane.subsampleX, plane)
		* (image->height / plane.subsampleY);
}

/* The element holding pixel (x, y); of a U1 plane, the byte holding it and
 * the seven pixels after it (x is a multiple of 8 where patches start). */
uint8_t *elementAt(const PlaneView &plane, vx_uint32 x, vx_uint32 y)
{
	const ptrdiff_t column = isBitPlane(plane.format)
		? ptrdiff_t(x * plane.format.elementBits / 8)
		: ptrdiff_t(x / plane.format.subsampleX) * plane.strideX;
	return plane.base + ptrdiff_t(y / plane.format.subsampleY) * plane.strideY + column;
}

PlaneView planeView(vx_image image, vx_uint32 index)
{
	const ImageFormat &format = *findFormat(image->format);
	const PlaneFormat &plane = format.planes[index];
	if (image->root) {
		/* The root's plane from the view's origin, in the view's layout. */
		PlaneView view = planeView(image->root, image->rootPlanes[index]);
		if (view.base)
			view.base = elementAt(view, image->originX, image->originY);
		view.format = plane;
		return view;
	}
	if (image->memoryType == VX_MEMORY_TYPE_HOST) {
		const _vx_image::HandlePlane &memory = image->handle[index];
		return { memory.ptr, memory.strideX, memory.strideY, plane };
	}

	vx_size total = 0, offset = 0;
	for (vx_uint32 p = 0; p < format.planeCount; p++) {
		if (p == index)
			offset = total;
		total += planeBytes(image, format.planes[p]);
	}
	const vx_int32 strideX = elementBytes(plane);
	const vx_int32 strideY = rowBytes(image->width / plane.subsampleX, plane);
	try {
		if (image->data.size() != total)
			image->data.assign(total, 0);
	} catch (const std::bad_alloc &) {
		return { nullptr, strideX, strideY, plane };
	}
	return { image->data.data() + offset, strideX, strideY, plane };
}

/* Elements of a patch on a plane: per row, and rows. */
vx_uint32 patchColumns(const vx_rectangle_t &rect, const PlaneFormat &plane)
{
	return (rect.end_x - rect.start_x) / plane.subsampleX;
}

vx_uint32 patchRows(const vx_rectangle_t &rect, const PlaneFormat &plane)
{
	return (rect.end_y - rect.start_y) / plane.subsampleY;
}

/* Copies the elements of rect between a plane and memory with the given
 * strides, one element per step of the plane's subsampling. */
void copyElements(const PlaneView &plane, const vx_rectangle_t &rect, uint8_t *memory,
	vx_int32 strideX, vx_int32 strideY, bool toMemory)
{
	const vx_uint32 size = elementBytes(plane.format);
	const vx_uint32 columns = patchColumns(rect, plane.format);
	const vx_uint32 rows = patchRows(rect, plane.format);
	if (isBitPlane(plane.format)) {
		copyPixelBits(elementAt(plane, rect.start_x, rect.start_y), plane.strideY, memory,
			strideY, columns, rows, toMemory);
		return;
	}
	const bool packed = vx_uint32(strideX) == size && vx_uint32(plane.strideX) == size;
	for (vx_uint32 row = 0; row < rows; row++) {
		uint8_t *pixels = elementAt(plane, rect.start_x, rect.start_y)
			+ ptrdiff_t(row) * plane.strideY;
		uint8_t *line = memory + ptrdiff_t(row) * strideY;
		const vx_uint32 runs = packed ? 1 : columns;
		const vx_size runSize = packed ? vx_size(columns) * size : size;
		for (vx_uint32 column = 0; column < runs; column++) {
			uint8_t *a = pixels + ptrdiff_t(column) * plane.strideX;
			uint8_t *b = line + ptrdiff_t(column) * strideX;
			if (toMemory)
				memcpy(b, a, runSize);
			else
				memcpy(a, b, runSize);
		}
	}
}

/* Whether the application's memory laid out by @addr holds @columns elements
 * per row with neither elements nor rows overlapping. U1 rows are packed
 * bits: stride_x 0 and stride_x_bits 1. */
bool holdsRows(const vx_imagepatch_addressing_t &addr, const PlaneFormat &plane, vx_uint32 columns)
{
	if (isBitPlane(plane))
		return addr.stride_x == 0 && addr.stride_x_bits == plane.elementBits
			&& addr.stride_y > 0 && vx_size(addr.stride_y) >= rowBytes(columns, plane);
	return addr.stride_x >= vx_int32(elementBytes(plane))
		&& addr.stride_y >= int64_t(addr.stride_x) * columns;
}

vx_imagepatch_addressing_t addressing(
	const vx_rectangle_t &rect, const PlaneFormat &plane, vx_int32 strideX, vx_int32 strideY)
{
	vx_imagepatch_addressing_t addr = VX_IMAGEPATCH_ADDR_INIT;
	addr.dim_x = rect.end_x - rect.start_x;
	addr.dim_y = rect.end_y - rect.start_y;
	addr.stride_x = strideX;
	addr.stride_y = strideY;
	addr.scale_x = VX_SCALE_UNITY / plane.subsampleX;
	addr.scale_y = VX_SCALE_UNITY / plane.subsampleY;
	addr.step_x = plane.subsampleX;
	addr.step_y = plane.subsampleY;
	addr.stride_x_bits = isBitPlane(plane) ? plane.elementBits : strideX * 8;
	return addr;
}

/* A non-empty patch inside the image that covers whole elements of the
 * plane (even coordinates on 2x subsampled chroma) and starts on a byte (a
 * multiple of 8 pixels on U1). */
bool isValidPatch(vx_image image, const vx_rectangle_t *rect, vx_uint32 plane)
{
	if (!rect || plane >= planeCount(image))
		return false;
	if (rect->start_x >= rect->end_x || rect->start_y >= rect->end_y
		|| rect->end_x > image->width || rect->end_y > image->height)
		return false;
	const PlaneFormat &format = findFormat(image->format)->planes[plane];
	return rect->start_x % pixelsPerByteGroup(format) == 0
		&& rect->start_x % format.subsampleX == 0 && rect->end_x % format.subsampleX == 0
		&& rect->start_y % format.subsampleY == 0 && rect->end_y % format.subsampleY == 0;
}

vx_status checkPatchAccess(vx_image image, const vx_rectangle_t *rect, vx_uint32 plane,
	vx_enum usage, vx_enum memoryType, bool allowReadWrite)
{
	vx_status status = checkAccessible(image->isVirtual, image->scope);
	if (status != VX_SUCCESS)
		return status;
	if (!isValidPatch(image, rect, plane))
		return VX_ERROR_INVALID_PARAMETERS;
	status = checkMemory(usage, memoryType, allowReadWrite);
	if (status != VX_SUCCESS)
		return status;
	/* Uniform images are read-only. */
	if (image->isUniform && usage != VX_READ_ONLY)
		return VX_ERROR_NOT_SUPPORTED;
	return VX_SUCCESS;
}

/* One element of a uniform image's plane; the 4:2:2 formats alternate U
 * and V from column to column. */
void uniformElement(vx_df_image format, const vx_pixel_value_t &value, vx_uint32 plane,
	vx_uint32 column, uint8_t *element)
{
	const vx_uint8 y = value.YUV[0], u = value.YUV[1], v = value.YUV[2];
	const vx_uint8 chroma = column % 2 ? v : u;
	switch (format) {
	case VX_DF_IMAGE_NV12:
	case VX_DF_IMAGE_NV21: {
		const bool nv12 = format == VX_DF_IMAGE_NV12;
		element[0] = plane == 0 ? y : nv12 ? u : v;
		element[1] = nv12 ? v : u;
		break;
	}
	case VX_DF_IMAGE_IYUV:
	case VX_DF_IMAGE_YUV4:
		element[0] = value.YUV[plane];
		break;
	case VX_DF_IMAGE_UYVY:
		element[0] = chroma;
		element[1] = y;
		break;
	case VX_DF_IMAGE_YUYV:
		element[0] = y;
		element[1] = chroma;
		break;
	default:
		/* RGB, RGBX and the single channels all start the union. */
		memcpy(element, &value, elementBytes(findFormat(format)->planes[0]));
		break;
	}
}

/* Takes the validator's value where the application left an attribute
 * open; where it did not, the two must agree. */
template <typename T> vx_status settle(T &value, T wanted, T open, vx_status mismatch)
{
	if (wanted == open)
		return VX_SUCCESS;
	if (value == open)
		value = wanted;
	return value == wanted ? VX_SUCCESS : mismatch;
}

bool isImageParameter(vx_node node, vx_uint32 index, vx_enum direction)
{
	vx_reference ref = node->parameters[index];
	return ref && ref->type == VX_TYPE_IMAGE
		&& node->kernel->parameters[index].direction == direction;
}

} /* namespace */

void _vx_image::teardown()
{
	if (scope)
		release(reinterpret_cast<vx_reference>(scope), Count::Internal);
	if (root) {
		/* Mappings the application never closed no longer pin the root. */
		root->openMaps -= maps.size();
		release(root, Count::Internal);
	}
}

void _vx_image::forgetDerived()
{
	width = requestedWidth;
	height = requestedHeight;
	format = requestedFormat;
}

namespace vdla::vx {

const ImageFormat *findFormat(vx_df_image code)
{
	for (const ImageFormat &format : kFormats) {
		if (format.code == code)
			return &format;
	}
	return nullptr;
}

std::unique_ptr<_vx_image> newImage(
	vx_context context, vx_uint32 width, vx_uint32 height, vx_df_image format)
{
	auto image = std::make_unique<_vx_image>(context);
	image->width = image->requestedWidth = width;
	image->height = image->requestedHeight = height;
	image->format = image->requestedFormat = format;
	if (image->resolved())
		settleLayout(image.get());
	return image;
}

vx_rectangle_t fullRectangle(vx_image image)
{
	return { 0, 0, image->width, image->height };
}

vx_status fillPixels(vx_image image, const vx_pixel_value_t &value)
{
	for (vx_uint32 p = 0; p < planeCount(image); p++) {
		const PlaneView plane = planeView(image, p);
		if (!plane.base)
			return VX_ERROR_NO_MEMORY;
		if (isBitPlane(plane.format)) {
			fillPixelBits(plane.base, plane.strideY, image->width, image->height,
				value.U1 != vx_false_e);
			continue;
		}
		for (vx_uint32 y = 0; y < image->height; y += plane.format.subsampleY) {
			for (vx_uint32 x = 0; x < image->width; x += plane.format.subsampleX)
				uniformElement(image->format, value, p, x, elementAt(plane, x, y));
		}
	}
	return VX_SUCCESS;
}

vx_status applyImageMeta(vx_meta_format meta, vx_image image)
{
	const bool open = !image->resolved();
	vx_status status = settle(image->width, meta->imageWidth, 0u, VX_ERROR_INVALID_DIMENSION);
	if (status == VX_SUCCESS)
		status = settle(image->height, meta->imageHeight, 0u, VX_ERROR_INVALID_DIMENSION);
	if (status == VX_SUCCESS)
		status = settle(image->format, meta->imageFormat, vx_df_image(VX_DF_IMAGE_VIRT),
			VX_ERROR_INVALID_FORMAT);
	if (status != VX_SUCCESS || !open)
		return status;

	/* A virtual image the validator did not complete. */
	if (image->format == VX_DF_IMAGE_VIRT)
		return VX_ERROR_INVALID_FORMAT;
	if (!image->width || !image->height)
		return VX_ERROR_INVALID_DIMENSION;
	status = checkGeometry(image->format, image->width, image->height, false);
	if (status == VX_SUCCESS)
		settleLayout(image);
	return status;
}

vx_status updateValidRectangles(vx_node node)
{
	const vx_uint32 count = node->parameters.size();
	/* One entry per input image, in parameter order. */
	std::vector<vx_rectangle_t> inputs;
	for (vx_uint32 i = 0; i < count; i++) {
		if (isImageParameter(node, i, VX_INPUT))
			inputs.push_back(
				reinterpret_cast<vx_image>(node->parameters[i])->validRect);
	}
	std::vector<const vx_rectangle_t *> inputPointers;
	for (const vx_rectangle_t &rect : inputs)
		inputPointers.push_back(&rect);

	for (vx_uint32 i = 0; i < count; i++) {
		if (!isImageParameter(node, i, VX_OUTPUT))
			continue;
		auto image = reinterpret_cast<vx_image>(node->parameters[i]);
		vx_kernel_image_valid_rectangle_f callback
			= i < node->validRectangle.size() ? node->validRectangle[i] : nullptr;
		/* Without a callback the output is valid everywhere. */
		vx_rectangle_t rect = fullRectangle(image);
		if (callback) {
			vx_rectangle_t *outputs[] = { &rect };
			inValidRectangleCallback = true;
			vx_status status = callback(node, i, inputPointers.data(), outputs);
			inValidRectangleCallback = false;
			if (status != VX_SUCCESS) {
				log(node, status,
					"node %s: valid rectangle callback of parameter %u failed",
					node->kernel->kernelName.c_str(), i);
				return status;
			}
			if (!isProperRectangle(image, rect)) {
				log(node, VX_ERROR_INVALID_PARAMETERS,
					"node %s: valid rectangle %u outside the image",
					node->kernel->kernelName.c_str(), i);
				return VX_ERROR_INVALID_PARAMETERS;
			}
		}
		image->validRect = rect;
	}
	return VX_SUCCESS;
}

} /* namespace vdla::vx */

extern "C" {

vx_image vxCreateImage(vx_context context, vx_uint32 width, vx_uint32 height, vx_df_image color)
try {
	ApiLock lock(apiLock());
	if (!isValid(context, VX_TYPE_CONTEXT))
		return nullptr;
	return createImage(context, width, height, color);
}
VX_API_CATCH(nullptr)

vx_image vxCreateVirtualImage(vx_graph graph, vx_uint32 width, vx_uint32 height, vx_df_image color)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	vx_status status = checkGeometry(color, width, height, true);
	if (status != VX_SUCCESS)
		return errorAs<vx_image>(graph->context, status);

	auto made = newImage(graph->context, width, height, color);
	made->isVirtual = true;
	made->scope = graph;
	vx_image image = registerNew(std::move(made), Count::External);
	retain(graph, Count::Internal);
	return image;
}
VX_API_CATCH(nullptr)

vx_image vxCreateUniformImage(vx_context context, vx_uint32 width, vx_uint32 height,
	vx_df_image color, const vx_pixel_value_t *value)
try {
	ApiLock lock(apiLock());
	if (!isValid(context, VX_TYPE_CONTEXT))
		return nullptr;
	if (!value)
		return errorAs<vx_image>(context, VX_ERROR_INVALID_PARAMETERS);
	vx_image image = createImage(context, width, height, color);
	if (!isValid(image, VX_TYPE_IMAGE))
		return image;

	image->uniformValue = *value;
	vx_status status = fillPixels(image, *value);
	if (status != VX_SUCCESS) {
		release(image, Count::External);
		return errorAs<vx_image>(context, status);
	}
	image->isUniform = true;
	return image;
}
VX_API_CATCH(nullptr)

vx_image vxCreateImageFromHandle(vx_context context, vx_df_image color,
	const vx_imagepatch_addressing_t addrs[], void *const ptrs[], vx_enum memory_type)
try {
	ApiLock lock(apiLock());
	if (!isValid(context, VX_TYPE_CONTEXT))
		return nullptr;
	if (memory_type != VX_MEMORY_TYPE_HOST || !addrs || !ptrs)
		return errorAs<vx_image>(context, VX_ERROR_INVALID_PARAMETERS);
	vx_status status = checkGeometry(color, addrs[0].dim_x, addrs[0].dim_y, false);
	if (status != VX_SUCCESS)
		return errorAs<vx_image>(context, status);

	/* Row-major planes: elements do not overlap, nor do rows. */
	const ImageFormat &format = *findFormat(color);
	for (vx_uint32 p = 0; p < format.planeCount; p++) {
		const PlaneFormat &plane = format.planes[p];
		if (!ptrs[p] || !holdsRows(addrs[p], plane, addrs[0].dim_x / plane.subsampleX)) {
			log(context, VX_ERROR_INVALID_PARAMETERS,
				"vxCreateImageFromHandle: plane %u needs memory and strides that "
				"hold %u elements per row without overlap%s",
				p, addrs[0].dim_x / plane.subsampleX,
				isBitPlane(plane) ? " (U1: stride_x 0, stride_x_bits 1)" : "");
			return errorAs<vx_image>(context, VX_ERROR_INVALID_PARAMETERS);
		}
	}

	auto image = newImage(context, addrs[0].dim_x, addrs[0].dim_y, color);
	image->memoryType = VX_MEMORY_TYPE_HOST;
	for (vx_uint32 p = 0; p < format.planeCount; p++)
		image->handle.push_back(
			{ static_cast<uint8_t *>(ptrs[p]), addrs[p].stride_x, addrs[p].stride_y });
	return registerNew(std::move(image), Count::External);
}
VX_API_CATCH(nullptr)

vx_status vxSwapImageHandle(
	vx_image image, void *const new_ptrs[], void *prev_ptrs[], vx_size num_planes)
try {
	ApiLock lock(apiLock());
	if (!isValid(image, VX_TYPE_IMAGE))
		return VX_ERROR_INVALID_REFERENCE;
	/* Sub-images were not created from handle, even those of one. */
	if (image->memoryType != VX_MEMORY_TYPE_HOST || image->root
		|| num_planes != image->handle.size())
		return VX_ERROR_INVALID_PARAMETERS;
	for (vx_size p = 0; new_ptrs && p < num_planes; p++) {
		if (!new_ptrs[p])
			return VX_ERROR_INVALID_PARAMETERS;
	}
	/* Mapped through the image itself or one of its sub-images. */
	if (image->openMaps)
		return VX_FAILURE;

	for (vx_size p = 0; p < num_planes; p++) {
		if (prev_ptrs)
			prev_ptrs[p] = image->handle[p].ptr;
		image->handle[p].ptr = new_ptrs ? static_cast<uint8_t *>(new_ptrs[p]) : nullptr;
	}
	image->context->handleSwaps++;
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxSetImagePixelValues(vx_image image, const vx_pixel_value_t *pixel_value)
try {
	ApiLock lock(apiLock());
	if (!isValid(image, VX_TYPE_IMAGE) || image->isUniform || image->isVirtual)
		return VX_ERROR_INVALID_REFERENCE;
	if (!pixel_value)
		return VX_ERROR_INVALID_PARAMETERS;
	return fillPixels(image, *pixel_value);
}
VX_API_CATCH_STATUS

vx_status vxReleaseImage(vx_image *image)
try {
	ApiLock lock(apiLock());
	if (!image || !isValid(*image, VX_TYPE_IMAGE))
		return VX_ERROR_INVALID_REFERENCE;
	return vxReleaseReference(reinterpret_cast<vx_reference *>(image));
}
VX_API_CATCH_STATUS

vx_status vxQueryImage(vx_image image, vx_enum attribute, void *ptr, vx_size size)
try {
	ApiLock lock(apiLock());
	if (!isValid(image, VX_TYPE_IMAGE))
		return VX_ERROR_INVALID_REFERENCE;
	switch (attribute) {
	case VX_IMAGE_WIDTH:
		return writeAttribute<vx_uint32>(ptr, size, image->width);
	case VX_IMAGE_HEIGHT:
		return writeAttribute<vx_uint32>(ptr, size, image->height);
	case VX_IMAGE_FORMAT:
		return writeAttribute<vx_df_image>(ptr, size, image->format);
	case VX_IMAGE_PLANES:
		return writeAttribute<vx_size>(ptr, size, planeCount(image));
	case VX_IMAGE_SPACE:
		return writeAttribute<vx_enum>(ptr, size, image->space);
	case VX_IMAGE_RANGE:
		return writeAttribute<vx_enum>(ptr, size, VX_CHANNEL_RANGE_FULL);
	case VX_IMAGE_MEMORY_TYPE:
		return writeAttribute<vx_enum>(ptr, size, memoryOwner(image)->memoryType);
	case VX_IMAGE_IS_UNIFORM:
		return writeAttribute<vx_bool>(
			ptr, size, image->isUniform ? vx_true_e : vx_false_e);
	case VX_IMAGE_UNIFORM_VALUE:
		if (!image->isUniform)
			return VX_ERROR_NOT_SUPPORTED;
		return writeAttribute(ptr, size, image->uniformValue);
	default:
		return VX_ERROR_NOT_SUPPORTED;
	}
}
VX_API_CATCH_STATUS

vx_status vxSetImageAttribute(vx_image image, vx_enum attribute, const void *ptr, vx_size size)
try {
	ApiLock lock(apiLock());
	if (!isValid(image, VX_TYPE_IMAGE))
		return VX_ERROR_INVALID_REFERENCE;
	if (attribute != VX_IMAGE_SPACE)
		return VX_ERROR_NOT_SUPPORTED;
	vx_enum space;
	vx_status status = readAttribute(ptr, size, space);
	if (status != VX_SUCCESS)
		return status;
	if (space != VX_COLOR_SPACE_NONE && space != VX_COLOR_SPACE_BT601_525
		&& space != VX_COLOR_SPACE_BT601_625 && space != VX_COLOR_SPACE_BT709)
		return VX_ERROR_INVALID_VALUE;
	image->space = space;
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxCopyImagePatch(vx_image image, const vx_rectangle_t *image_rect,
	vx_uint32 image_plane_index, const vx_imagepatch_addressing_t *user_addr, void *user_ptr,
	vx_enum usage, vx_enum user_mem_type)
try {
	ApiLock lock(apiLock());
	if (!isValid(image, VX_TYPE_IMAGE))
		return VX_ERROR_INVALID_REFERENCE;
	vx_status status = checkPatchAccess(
		image, image_rect, image_plane_index, usage, user_mem_type, false);
	if (status != VX_SUCCESS)
		return status;
	if (!user_addr || !user_ptr)
		return VX_ERROR_INVALID_PARAMETERS;

	const PlaneView plane = planeView(image, image_plane_index);
	if (!holdsRows(*user_addr, plane.format, patchColumns(*image_rect, plane.format)))
		return VX_ERROR_INVALID_PARAMETERS;
	if (!plane.base)
		return VX_ERROR_NO_MEMORY;
	copyElements(plane, *image_rect, static_cast<uint8_t *>(user_ptr), user_addr->stride_x,
		user_addr->stride_y, usage == VX_READ_ONLY);
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxMapImagePatch(vx_image image, const vx_rectangle_t *rect, vx_uint32 plane_index,
	vx_map_id *map_id, vx_imagepatch_addressing_t *addr, void **ptr, vx_enum usage,
	vx_enum mem_type, vx_uint32 flags)
try {
	ApiLock lock(apiLock());
	if (!isValid(image, VX_TYPE_IMAGE))
		return VX_ERROR_INVALID_REFERENCE;
	vx_status status = checkPatchAccess(image, rect, plane_index, usage, mem_type, true);
	if (status != VX_SUCCESS)
		return status;
	if (!map_id || !addr || !ptr || (flags & ~vx_uint32(VX_NOGAP_X)))
		return VX_ERROR_INVALID_PARAMETERS;
	const PlaneView plane = planeView(image, plane_index);
	if (!plane.base)
		return VX_ERROR_NO_MEMORY;

	const vx_int32 elementSize = elementBytes(plane.format);
	_vx_image::Mapping &mapping = image->maps[image->nextMapId];
	mapping = { usage, plane_index, *rect, {} };
	if ((flags & VX_NOGAP_X) && plane.strideX != elementSize && !isBitPlane(plane.format)) {
		/* The application's memory has gaps: hand out a packed copy. */
		const vx_int32 rowSize = elementSize * patchColumns(*rect, plane.format);
		mapping.shadow.assign(vx_size(rowSize) * patchRows(*rect, plane.format), 0);
		if (usage != VX_WRITE_ONLY)
			copyElements(
				plane, *rect, mapping.shadow.data(), elementSize, rowSize, true);
		*addr = addressing(*rect, plane.format, elementSize, rowSize);
		*ptr = mapping.shadow.data();
	} else {
		*addr = addressing(*rect, plane.format, plane.strideX, plane.strideY);
		*ptr = elementAt(plane, rect->start_x, rect->start_y);
	}
	*map_id = image->nextMapId++;
	memoryOwner(image)->openMaps++;
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxUnmapImagePatch(vx_image image, vx_map_id map_id)
try {
	ApiLock lock(apiLock());
	if (!isValid(image, VX_TYPE_IMAGE))
		return VX_ERROR_INVALID_REFERENCE;
	auto it = image->maps.find(map_id);
	if (it == image->maps.end())
		return VX_ERROR_INVALID_PARAMETERS;

	/* Direct mappings point at the image's memory: nothing to write back. */
	_vx_image::Mapping &mapping = it->second;
	if (!mapping.shadow.empty() && mapping.usage != VX_READ_ONLY) {
		const PlaneView plane = planeView(image, mapping.plane);
		const vx_int32 elementSize = elementBytes(plane.format);
		if (plane.base)
			copyElements(plane, mapping.rect, mapping.shadow.data(), elementSize,
				elementSize * patchColumns(mapping.rect, plane.format), false);
	}
	image->maps.erase(it);
	memoryOwner(image)->openMaps--;
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

void *vxFormatImagePatchAddress2d(
	void *ptr, vx_uint32 x, vx_uint32 y, const vx_imagepatch_addressing_t *addr)
try {
	if (!ptr || !addr || x >= addr->dim_x || y >= addr->dim_y)
		return nullptr;
	const ptrdiff_t row = vx_uint64(addr->scale_y) * y / VX_SCALE_UNITY;
	const ptrdiff_t column = vx_uint64(addr->scale_x) * x / VX_SCALE_UNITY;
	/* Elements smaller than a byte (U1): the byte holding the pixel, which
	 * the application masks with 1 << (x % 8). */
	const ptrdiff_t offset = addr->stride_x == 0 && addr->stride_x_bits
		? column * addr->stride_x_bits / 8
		: column * addr->stride_x;
	return static_cast<uint8_t *>(ptr) + row * addr->stride_y + offset;
}
VX_API_CATCH(nullptr)

void *vxFormatImagePatchAddress1d(
	void *ptr, vx_uint32 index, const vx_imagepatch_addressing_t *addr)
try {
	if (!addr || index >= vx_uint64(addr->dim_x) * addr->dim_y)
		return nullptr;
	return vxFormatImagePatchAddress2d(ptr, index % addr->dim_x, index / addr->dim_x, addr);
}
VX_API_CATCH(nullptr)

vx_status vxGetValidRegionImage(vx_image image, vx_rectangle_t *rect)
try {
	ApiLock lock(apiLock());
	if (!isValid(image, VX_TYPE_IMAGE))
		return VX_ERROR_INVALID_REFERENCE;
	if (inValidRectangleCallback)
		return VX_ERROR_NOT_SUPPORTED;
	if (!rect)
		return VX_ERROR_INVALID_PARAMETERS;
	*rect = image->validRect;
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxSetImageValidRectangle(vx_image image, const vx_rectangle_t *rect)
try {
	ApiLock lock(apiLock());
	if (!isValid(image, VX_TYPE_IMAGE))
		return VX_ERROR_INVALID_REFERENCE;
	if (inValidRectangleCallback)
		return VX_ERROR_NOT_SUPPORTED;
	if (rect && !isProperRectangle(image, *rect))
		return VX_ERROR_INVALID_PARAMETERS;
	image->validRect = rect ? *rect : fullRectangle(image);
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

} /* extern "C" */
