/* SPDX-License-Identifier: MIT */
/*
 * The color conversion kernel (org.khronos.openvx.color_convert, OpenVX
 * 1.3.1 "Color Convert"), on the CPU, for the conversions of the
 * specification's table, full channel range, BT.709 or BT.601 coefficients.
 *
 * The arithmetic is the specification's: channels are reals (R, G, B and Y
 * as integer / 256, U and V as (integer - 128) / 256), transformed by the
 * colour space's matrix and quantized back with floor. The matrices have
 * four decimals, so everything is done in integers scaled by 10000 and the
 * floor is exact: no result depends on floating-point rounding. Chroma
 * shared by 2 or 4 pixels is the floor of their average; reading it, each
 * pixel takes the sample of its pair or block.
 */

#include "framework/object.h"
#include "vision/vision_kernels.h"

#include <VX/vx_nodes.h>

#include <array>
#include <cstring>

using namespace vdla::vx;

namespace {

/* Matrix entries times 10000. */
constexpr int64_t kScale = 10000;

struct ColorMatrix {
	/* Y, U and V from R, G and B. */
	int64_t toYuv[3][3];
	/* R from V, G from U and V, B from U (Y has weight 1). */
	int64_t rFromV, gFromU, gFromV, bFromU;
};

/* The specification's BT.709 and BT.601 coefficients. */
constexpr ColorMatrix kBt709 = { { { 2126, 7152, 722 }, { -1146, -3854, 5000 },
					 { 5000, -4542, -458 } },
	15748, -1873, -4681, 18556 };
constexpr ColorMatrix kBt601 = { { { 2990, 5870, 1140 }, { -1690, -3310, 5000 },
					 { 5000, -4190, -810 } },
	14030, -3440, -7140, 17700 };

const ColorMatrix &matrixOf(vx_enum space)
{
	return space == VX_COLOR_SPACE_BT601_525 || space == VX_COLOR_SPACE_BT601_625 ? kBt601
														 : kBt709;
}

/* floor(numerator / denominator), denominator > 0. */
int64_t floorDiv(int64_t numerator, int64_t denominator)
{
	int64_t q = numerator / denominator;
	return q - (numerator % denominator < 0);
}

uint8_t clampByte(int64_t value)
{
	return uint8_t(value < 0 ? 0 : value > 255 ? 255 : value);
}

/* ---- Formats ---- */

bool isRgb(vx_df_image format)
{
	return format == VX_DF_IMAGE_RGB || format == VX_DF_IMAGE_RGBX;
}

/* The specification's table: input format -> the outputs it converts to. */
bool supported(vx_df_image in, vx_df_image out)
{
	switch (in) {
	case VX_DF_IMAGE_RGB:
		return out == VX_DF_IMAGE_RGBX || out == VX_DF_IMAGE_NV12
			|| out == VX_DF_IMAGE_IYUV || out == VX_DF_IMAGE_YUV4;
	case VX_DF_IMAGE_RGBX:
		return out == VX_DF_IMAGE_RGB || out == VX_DF_IMAGE_NV12
			|| out == VX_DF_IMAGE_IYUV || out == VX_DF_IMAGE_YUV4;
	case VX_DF_IMAGE_NV12:
	case VX_DF_IMAGE_NV21:
		return out == VX_DF_IMAGE_RGB || out == VX_DF_IMAGE_RGBX
			|| out == VX_DF_IMAGE_IYUV || out == VX_DF_IMAGE_YUV4;
	case VX_DF_IMAGE_UYVY:
	case VX_DF_IMAGE_YUYV:
		return out == VX_DF_IMAGE_RGB || out == VX_DF_IMAGE_RGBX
			|| out == VX_DF_IMAGE_NV12 || out == VX_DF_IMAGE_IYUV;
	case VX_DF_IMAGE_IYUV:
		return out == VX_DF_IMAGE_RGB || out == VX_DF_IMAGE_RGBX
			|| out == VX_DF_IMAGE_NV12 || out == VX_DF_IMAGE_YUV4;
	default:
		return false;
	}
}

/* Pixels sharing one chroma sample: 2 x 2, 2 x 1 or 1 x 1. */
struct Subsampling {
	vx_uint32 x, y;
};

Subsampling chromaBlock(vx_df_image format)
{
	switch (format) {
	case VX_DF_IMAGE_NV12:
	case VX_DF_IMAGE_NV21:
	case VX_DF_IMAGE_IYUV:
		return { 2, 2 };
	case VX_DF_IMAGE_UYVY:
	case VX_DF_IMAGE_YUYV:
		return { 2, 1 };
	default:
		return { 1, 1 };
	}
}

/* ---- Access to an image's planes, mapped for the run ---- */

class MappedImage
{
public:
	MappedImage(vx_image image, vx_enum usage) : image_(image)
	{
		vxQueryImage(image, VX_IMAGE_FORMAT, &format_, sizeof(format_));
		vxQueryImage(image, VX_IMAGE_WIDTH, &width_, sizeof(width_));
		vxQueryImage(image, VX_IMAGE_HEIGHT, &height_, sizeof(height_));
		vxQueryImage(image, VX_IMAGE_PLANES, &planes_, sizeof(planes_));
		const vx_rectangle_t rect = { 0, 0, width_, height_ };
		for (vx_size p = 0; p < planes_ && p < 3; p++) {
			status_ = vxMapImagePatch(image, &rect, vx_uint32(p), &maps_[p], &addr_[p],
				&base_[p], usage, VX_MEMORY_TYPE_HOST, VX_NOGAP_X);
			if (status_ != VX_SUCCESS)
				return;
			mapped_ = p + 1;
		}
	}
	~MappedImage()
	{
		for (vx_size p = 0; p < mapped_; p++)
			vxUnmapImagePatch(image_, maps_[p]);
	}
	MappedImage(const MappedImage &) = delete;
	MappedImage &operator=(const MappedImage &) = delete;

	vx_status status() const { return status_; }
	vx_df_image format() const { return format_; }
	vx_uint32 width() const { return width_; }
	vx_uint32 height() const { return height_; }

	/* The element of plane @p holding pixel (x, y) of the image. */
	uint8_t *at(vx_uint32 p, vx_uint32 x, vx_uint32 y) const
	{
		return static_cast<uint8_t *>(vxFormatImagePatchAddress2d(base_[p], x, y, &addr_[p]));
	}

private:
	vx_image image_;
	vx_df_image format_ = VX_DF_IMAGE_VIRT;
	vx_uint32 width_ = 0, height_ = 0;
	vx_size planes_ = 0, mapped_ = 0;
	vx_map_id maps_[3] = {};
	mutable vx_imagepatch_addressing_t addr_[3] = {};
	void *base_[3] = {};
	vx_status status_ = VX_SUCCESS;
};

struct Yuv {
	uint8_t y, u, v;
};

/* Pixel (x, y) of a YUV image; its chroma that of its pair or block. */
Yuv readYuv(const MappedImage &image, vx_uint32 x, vx_uint32 y)
{
	switch (image.format()) {
	case VX_DF_IMAGE_NV12:
	case VX_DF_IMAGE_NV21: {
		const uint8_t *uv = image.at(1, x & ~1u, y & ~1u);
		const bool nv12 = image.format() == VX_DF_IMAGE_NV12;
		return { *image.at(0, x, y), nv12 ? uv[0] : uv[1], nv12 ? uv[1] : uv[0] };
	}
	case VX_DF_IMAGE_UYVY:
	case VX_DF_IMAGE_YUYV: {
		/* Macro-pixels of two: U Y0 V Y1, or Y0 U Y1 V. */
		const uint8_t *pair = image.at(0, x & ~1u, y);
		const bool uyvy = image.format() == VX_DF_IMAGE_UYVY;
		const uint8_t luma = image.at(0, x, y)[uyvy ? 1 : 0];
		return { luma, pair[uyvy ? 0 : 1], pair[uyvy ? 2 : 3] };
	}
	default: /* IYUV and YUV4: three planes, the first two subsampled in IYUV. */
		return { *image.at(0, x, y), *image.at(1, x, y), *image.at(2, x, y) };
	}
}

std::array<uint8_t, 3> yuvToRgb(const Yuv &p, const ColorMatrix &m)
{
	const int64_t y = int64_t(p.y) * kScale, u = int64_t(p.u) - 128, v = int64_t(p.v) - 128;
	return { clampByte(floorDiv(y + m.rFromV * v, kScale)),
		clampByte(floorDiv(y + m.gFromU * u + m.gFromV * v, kScale)),
		clampByte(floorDiv(y + m.bFromU * u, kScale)) };
}

/* Y, U and V of an RGB pixel, times kScale, before quantization. */
std::array<int64_t, 3> rgbToScaledYuv(const uint8_t *rgb, const ColorMatrix &m)
{
	std::array<int64_t, 3> yuv;
	for (int c = 0; c < 3; c++)
		yuv[c] = m.toYuv[c][0] * rgb[0] + m.toYuv[c][1] * rgb[1] + m.toYuv[c][2] * rgb[2];
	return yuv;
}

/* Writes the chroma of the block at (x, y) of a YUV output. */
void writeChroma(const MappedImage &out, vx_uint32 x, vx_uint32 y, uint8_t u, uint8_t v)
{
	switch (out.format()) {
	case VX_DF_IMAGE_NV12: {
		uint8_t *uv = out.at(1, x, y);
		uv[0] = u;
		uv[1] = v;
		break;
	}
	default: /* IYUV, YUV4 */
		*out.at(1, x, y) = u;
		*out.at(2, x, y) = v;
		break;
	}
}

vx_status toRgb(const MappedImage &in, const MappedImage &out, vx_enum space)
{
	const ColorMatrix &m = matrixOf(space);
	const vx_uint32 channels = out.format() == VX_DF_IMAGE_RGBX ? 4 : 3;
	for (vx_uint32 y = 0; y < in.height(); y++) {
		for (vx_uint32 x = 0; x < in.width(); x++) {
			uint8_t *dst = out.at(0, x, y);
			if (isRgb(in.format())) {
				memcpy(dst, in.at(0, x, y), 3);
			} else {
				const std::array<uint8_t, 3> rgb = yuvToRgb(readYuv(in, x, y), m);
				memcpy(dst, rgb.data(), 3);
			}
			if (channels == 4)
				dst[3] = 255;
		}
	}
	return VX_SUCCESS;
}

/*
 * A YUV output: luma per pixel, chroma per block of the output as the
 * floor of the block's average (of reals from RGB, or of the input's
 * samples, which a block of one or of equal samples keeps exactly).
 */
vx_status toYuv(const MappedImage &in, const MappedImage &out, vx_enum space)
{
	const ColorMatrix &m = matrixOf(space);
	const Subsampling block = chromaBlock(out.format());
	for (vx_uint32 by = 0; by < in.height(); by += block.y) {
		for (vx_uint32 bx = 0; bx < in.width(); bx += block.x) {
			int64_t uSum = 0, vSum = 0;
			for (vx_uint32 y = by; y < by + block.y; y++) {
				for (vx_uint32 x = bx; x < bx + block.x; x++) {
					if (isRgb(in.format())) {
						const auto yuv = rgbToScaledYuv(in.at(0, x, y), m);
						*out.at(0, x, y) = clampByte(floorDiv(yuv[0], kScale));
						uSum += yuv[1];
						vSum += yuv[2];
					} else {
						const Yuv p = readYuv(in, x, y);
						*out.at(0, x, y) = p.y;
						uSum += (int64_t(p.u) - 128) * kScale;
						vSum += (int64_t(p.v) - 128) * kScale;
					}
				}
			}
			const int64_t pixels = int64_t(block.x) * block.y * kScale;
			writeChroma(out, bx, by, clampByte(floorDiv(uSum, pixels) + 128),
				clampByte(floorDiv(vSum, pixels) + 128));
		}
	}
	return VX_SUCCESS;
}

vx_enum spaceOf(vx_image image)
{
	vx_enum space = VX_COLOR_SPACE_DEFAULT;
	vxQueryImage(image, VX_IMAGE_SPACE, &space, sizeof(space));
	return space;
}

vx_status VX_CALLBACK runColorConvert(vx_node, const vx_reference *parameters, vx_uint32)
{
	auto input = reinterpret_cast<vx_image>(parameters[0]);
	auto output = reinterpret_cast<vx_image>(parameters[1]);
	/* The output is mapped only once the input is: unmapping a write-only
	 * mapping writes it back, which a failed run must not do. */
	MappedImage in(input, VX_READ_ONLY);
	if (in.status() != VX_SUCCESS)
		return in.status();
	MappedImage out(output, VX_WRITE_ONLY);
	if (out.status() != VX_SUCCESS)
		return out.status();
	/* RGB from YUV is in the input's colour space, YUV from RGB in the output's. */
	if (isRgb(out.format()))
		return toRgb(in, out, spaceOf(input));
	return toYuv(in, out, spaceOf(output));
}

vx_status VX_CALLBACK validateColorConvert(
	vx_node node, const vx_reference parameters[], vx_uint32, vx_meta_format metas[])
{
	auto input = reinterpret_cast<vx_image>(parameters[0]);
	auto output = reinterpret_cast<vx_image>(parameters[1]);
	vx_df_image in = VX_DF_IMAGE_VIRT, out = VX_DF_IMAGE_VIRT;
	vx_uint32 width = 0, height = 0;
	vxQueryImage(input, VX_IMAGE_FORMAT, &in, sizeof(in));
	vxQueryImage(input, VX_IMAGE_WIDTH, &width, sizeof(width));
	vxQueryImage(input, VX_IMAGE_HEIGHT, &height, sizeof(height));
	vxQueryImage(output, VX_IMAGE_FORMAT, &out, sizeof(out));
	/* The output's format says what to convert to: a virtual one must have it. */
	if (!supported(in, out)) {
		log(node, VX_ERROR_INVALID_FORMAT, "color_convert: no conversion from %.4s to %.4s",
			reinterpret_cast<const char *>(&in), reinterpret_cast<const char *>(&out));
		return VX_ERROR_INVALID_FORMAT;
	}
	vxSetMetaFormatAttribute(metas[1], VX_IMAGE_FORMAT, &out, sizeof(out));
	vxSetMetaFormatAttribute(metas[1], VX_IMAGE_WIDTH, &width, sizeof(width));
	return vxSetMetaFormatAttribute(metas[1], VX_IMAGE_HEIGHT, &height, sizeof(height));
}

} /* namespace */

namespace vdla::vx {

void addColorConvertKernel(vx_context context)
{
	addStandardKernel(context, "org.khronos.openvx.color_convert", VX_KERNEL_COLOR_CONVERT,
		runColorConvert, validateColorConvert,
		{ { true, VX_INPUT, VX_TYPE_IMAGE, VX_PARAMETER_STATE_REQUIRED },
			{ true, VX_OUTPUT, VX_TYPE_IMAGE, VX_PARAMETER_STATE_REQUIRED } });
}

} /* namespace vdla::vx */

extern "C" {

vx_node vxColorConvertNode(vx_graph graph, vx_image input, vx_image output)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	return createKernelNode(graph, VX_KERNEL_COLOR_CONVERT,
		{ reinterpret_cast<vx_reference>(input), reinterpret_cast<vx_reference>(output) });
}
VX_API_CATCH(nullptr)

} /* extern "C" */
