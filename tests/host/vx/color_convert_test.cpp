/* SPDX-License-Identifier: MIT */
/*
 * The color conversion kernel against values worked out by hand from the
 * OpenVX 1.3.1 formulas (BT.709 and BT.601 matrices, full range, floor
 * quantization), the formats' byte layouts, and its refusals.
 */
#include "vx_test.h"

#include <VX/vxu.h>

#include <cstdlib>
#include <random>

namespace {

struct Mapped {
	vx_map_id id = 0;
	vx_imagepatch_addressing_t addr = {};
	void *base = nullptr;
};

/* Plane @plane of @image, mapped whole. */
Mapped mapPlane(vx_image image, vx_uint32 plane, vx_enum usage)
{
	Mapped m;
	vx_uint32 width = 0, height = 0;
	vxQueryImage(image, VX_IMAGE_WIDTH, &width, sizeof(width));
	vxQueryImage(image, VX_IMAGE_HEIGHT, &height, sizeof(height));
	const vx_rectangle_t rect = { 0, 0, width, height };
	EXPECT_EQ(vxMapImagePatch(image, &rect, plane, &m.id, &m.addr, &m.base, usage,
			  VX_MEMORY_TYPE_HOST, VX_NOGAP_X),
		VX_SUCCESS);
	return m;
}

uint8_t *at(Mapped &m, vx_uint32 x, vx_uint32 y)
{
	return static_cast<uint8_t *>(vxFormatImagePatchAddress2d(m.base, x, y, &m.addr));
}

/* Sets the bytes of pixel (x, y) of plane @plane (its element's first bytes). */
void setPixel(vx_image image, vx_uint32 plane, vx_uint32 x, vx_uint32 y,
	std::initializer_list<uint8_t> bytes)
{
	Mapped m = mapPlane(image, plane, VX_READ_AND_WRITE);
	uint8_t *p = at(m, x, y);
	for (uint8_t b : bytes)
		*p++ = b;
	vxUnmapImagePatch(image, m.id);
}

std::vector<uint8_t> pixel(vx_image image, vx_uint32 plane, vx_uint32 x, vx_uint32 y, int bytes)
{
	Mapped m = mapPlane(image, plane, VX_READ_ONLY);
	const uint8_t *p = at(m, x, y);
	std::vector<uint8_t> out(p, p + bytes);
	vxUnmapImagePatch(image, m.id);
	return out;
}

/* Y, U and V of pixel (x, y) of a YUV4 image. */
std::vector<uint8_t> yuv4(vx_image image, vx_uint32 x, vx_uint32 y)
{
	return { pixel(image, 0, x, y, 1)[0], pixel(image, 1, x, y, 1)[0],
		pixel(image, 2, x, y, 1)[0] };
}

class ColorConvertTest : public VxTest
{
protected:
	vx_status convert(vx_image in, vx_image out)
	{
		return vxuColorConvert(context, in, out);
	}

	/* A 2x2 RGB image: red, green / blue, white. */
	vx_image primaries()
	{
		vx_image rgb = makeImage(context, 2, 2, VX_DF_IMAGE_RGB);
		setPixel(rgb, 0, 0, 0, { 255, 0, 0 });
		setPixel(rgb, 0, 1, 0, { 0, 255, 0 });
		setPixel(rgb, 0, 0, 1, { 0, 0, 255 });
		setPixel(rgb, 0, 1, 1, { 255, 255, 255 });
		return rgb;
	}
};

TEST_F(ColorConvertTest, RgbToYuvFollowsTheFormulasOfTheSpecification)
{
	vx_image rgb = primaries();
	vx_image out = makeImage(context, 2, 2, VX_DF_IMAGE_YUV4);
	ASSERT_EQ(convert(rgb, out), VX_SUCCESS);
	/* BT.709: Y = floor(.2126 R + .7152 G + .0722 B), U = floor(-.1146 R
	 * - .3854 G + .5 B + 128), V = floor(.5 R - .4542 G - .0458 B + 128). */
	EXPECT_EQ(yuv4(out, 0, 0), (std::vector<uint8_t>{ 54, 98, 255 })) << "red";
	EXPECT_EQ(yuv4(out, 1, 0), (std::vector<uint8_t>{ 182, 29, 12 })) << "green";
	EXPECT_EQ(yuv4(out, 0, 1), (std::vector<uint8_t>{ 18, 255, 116 })) << "blue";
	EXPECT_EQ(yuv4(out, 1, 1), (std::vector<uint8_t>{ 255, 128, 128 })) << "white";

	/* 4:2:0: one chroma sample, the floor of the four reals' average: the
	 * four U (-29.223, -98.277, 127.5, 0) and V (127.5, -115.821, -11.679,
	 * 0) add up to 0. */
	vx_image nv12 = makeImage(context, 2, 2, VX_DF_IMAGE_NV12);
	ASSERT_EQ(convert(rgb, nv12), VX_SUCCESS);
	EXPECT_EQ(pixel(nv12, 0, 1, 0, 1)[0], 182);
	EXPECT_EQ(pixel(nv12, 1, 0, 0, 2), (std::vector<uint8_t>{ 128, 128 }));

	/* BT.601 when the output says so: Y = floor(.299 R + .587 G + .114 B). */
	vx_enum bt601 = VX_COLOR_SPACE_BT601_625;
	ASSERT_EQ(vxSetImageAttribute(out, VX_IMAGE_SPACE, &bt601, sizeof(bt601)), VX_SUCCESS);
	ASSERT_EQ(convert(rgb, out), VX_SUCCESS);
	EXPECT_EQ(yuv4(out, 0, 0), (std::vector<uint8_t>{ 76, 84, 255 })) << "red, BT.601";

	vxReleaseImage(&nv12);
	vxReleaseImage(&out);
	vxReleaseImage(&rgb);
}

TEST_F(ColorConvertTest, YuvToRgbFollowsTheFormulasOfTheSpecification)
{
	/* IYUV of two 2x2 blocks; pixel (0, 0) and pixel (2, 0) are checked. */
	vx_image in = makeImage(context, 4, 2, VX_DF_IMAGE_IYUV);
	/* R = floor(Y + 1.5748 V'), G = floor(Y - .1873 U' - .4681 V'),
	 * B = floor(Y + 1.8556 U'), U' = U - 128, V' = V - 128, clamped. */
	setPixel(in, 0, 0, 0, { 100 });
	setPixel(in, 1, 0, 0, { 200 });
	setPixel(in, 2, 0, 0, { 50 });
	setPixel(in, 0, 2, 0, { 255 });
	setPixel(in, 1, 2, 0, { 128 });
	setPixel(in, 2, 2, 0, { 255 });
	vx_image rgbx = makeImage(context, 4, 2, VX_DF_IMAGE_RGBX);
	ASSERT_EQ(convert(in, rgbx), VX_SUCCESS);
	EXPECT_EQ(pixel(rgbx, 0, 0, 0, 4), (std::vector<uint8_t>{ 0, 123, 233, 255 }));
	EXPECT_EQ(pixel(rgbx, 0, 2, 0, 4), (std::vector<uint8_t>{ 255, 195, 255, 255 }));
	vxReleaseImage(&rgbx);
	vxReleaseImage(&in);
}

TEST_F(ColorConvertTest, PackedAndSemiPlanarLayoutsAreReadAsTheFormatsSay)
{
	/* UYVY: U Y0 V Y1 per pair; YUYV: Y0 U Y1 V. Two rows of one pair. */
	vx_image uyvy = makeImage(context, 2, 2, VX_DF_IMAGE_UYVY);
	vx_image yuyv = makeImage(context, 2, 2, VX_DF_IMAGE_YUYV);
	for (vx_uint32 row = 0; row < 2; row++) {
		const uint8_t u = uint8_t(10 + 3 * row), v = uint8_t(200 + 5 * row);
		const uint8_t y0 = uint8_t(40 + row), y1 = uint8_t(90 + row);
		setPixel(uyvy, 0, 0, row, { u, y0, v, y1 });
		setPixel(yuyv, 0, 0, row, { y0, u, y1, v });
	}
	for (vx_image packed : { uyvy, yuyv }) {
		vx_image planar = makeImage(context, 2, 2, VX_DF_IMAGE_IYUV);
		ASSERT_EQ(convert(packed, planar), VX_SUCCESS);
		EXPECT_EQ(pixel(planar, 0, 0, 0, 1)[0], 40);
		EXPECT_EQ(pixel(planar, 0, 1, 1, 1)[0], 91);
		/* Rows of U 10 and 13, V 200 and 205: floor(11.5), floor(202.5). */
		EXPECT_EQ(pixel(planar, 1, 0, 0, 1)[0], 11);
		EXPECT_EQ(pixel(planar, 2, 0, 0, 1)[0], 202);
		vxReleaseImage(&planar);
	}

	/* NV12 holds U then V, NV21 V then U: the same colours, both ways. */
	vx_image nv12 = makeImage(context, 2, 2, VX_DF_IMAGE_NV12);
	vx_image nv21 = makeImage(context, 2, 2, VX_DF_IMAGE_NV21);
	for (vx_image image : { nv12, nv21 }) {
		for (vx_uint32 y = 0; y < 2; y++)
			for (vx_uint32 x = 0; x < 2; x++)
				setPixel(image, 0, x, y, { uint8_t(60 + x + 2 * y) });
	}
	setPixel(nv12, 1, 0, 0, { 30, 220 });
	setPixel(nv21, 1, 0, 0, { 220, 30 });
	for (vx_image image : { nv12, nv21 }) {
		vx_image full = makeImage(context, 2, 2, VX_DF_IMAGE_YUV4);
		ASSERT_EQ(convert(image, full), VX_SUCCESS);
		EXPECT_EQ(yuv4(full, 1, 1), (std::vector<uint8_t>{ 63, 30, 220 }));
		vxReleaseImage(&full);
	}
	for (vx_image *image : { &uyvy, &yuyv, &nv12, &nv21 })
		vxReleaseImage(image);
}

TEST_F(ColorConvertTest, ChromaResamplingBetweenYuvFormatsIsExact)
{
	/* IYUV -> NV12 -> IYUV: the same samples; IYUV -> YUV4 repeats each. */
	std::mt19937 random(7);
	vx_image iyuv = makeImage(context, 8, 4, VX_DF_IMAGE_IYUV);
	for (vx_uint32 plane = 0; plane < 3; plane++) {
		for (vx_uint32 y = 0; y < 4; y += plane ? 2 : 1)
			for (vx_uint32 x = 0; x < 8; x += plane ? 2 : 1)
				setPixel(iyuv, plane, x, y, { uint8_t(random()) });
	}
	vx_image nv12 = makeImage(context, 8, 4, VX_DF_IMAGE_NV12);
	vx_image back = makeImage(context, 8, 4, VX_DF_IMAGE_IYUV);
	vx_image full = makeImage(context, 8, 4, VX_DF_IMAGE_YUV4);
	ASSERT_EQ(convert(iyuv, nv12), VX_SUCCESS);
	ASSERT_EQ(convert(nv12, back), VX_SUCCESS);
	ASSERT_EQ(convert(iyuv, full), VX_SUCCESS);
	for (vx_uint32 y = 0; y < 4; y++) {
		for (vx_uint32 x = 0; x < 8; x++) {
			for (vx_uint32 plane = 0; plane < 3; plane++) {
				EXPECT_EQ(pixel(back, plane, x, y, 1), pixel(iyuv, plane, x, y, 1))
					<< "plane " << plane << " at " << x << "," << y;
				EXPECT_EQ(pixel(full, plane, x, y, 1), pixel(iyuv, plane, x, y, 1));
			}
		}
	}
	for (vx_image *image : { &iyuv, &nv12, &back, &full })
		vxReleaseImage(image);
}

TEST_F(ColorConvertTest, RgbThroughYuvAndBackStaysClose)
{
	/* Each way floors, and YUV rounds the colour to its grid: a few
	 * levels at most (the round trip is not the identity). The colours
	 * are uniform in 2x2 blocks, which 4:2:0 then keeps. */
	std::mt19937 random(11);
	vx_image rgb = makeImage(context, 16, 8, VX_DF_IMAGE_RGB);
	Mapped m = mapPlane(rgb, 0, VX_WRITE_ONLY);
	for (vx_uint32 y = 0; y < 8; y += 2) {
		for (vx_uint32 x = 0; x < 16; x += 2) {
			const uint8_t colour[3] = { uint8_t(random()), uint8_t(random()),
				uint8_t(random()) };
			for (vx_uint32 i = 0; i < 4; i++)
				for (int c = 0; c < 3; c++)
					at(m, x + i % 2, y + i / 2)[c] = colour[c];
		}
	}
	vxUnmapImagePatch(rgb, m.id);
	vx_image yuv = makeImage(context, 16, 8, VX_DF_IMAGE_IYUV);
	vx_image back = makeImage(context, 16, 8, VX_DF_IMAGE_RGB);
	ASSERT_EQ(convert(rgb, yuv), VX_SUCCESS);
	ASSERT_EQ(convert(yuv, back), VX_SUCCESS);
	int worst = 0;
	for (vx_uint32 y = 0; y < 8; y++) {
		for (vx_uint32 x = 0; x < 16; x++) {
			std::vector<uint8_t> a = pixel(rgb, 0, x, y, 3), b = pixel(back, 0, x, y, 3);
			for (int c = 0; c < 3; c++)
				worst = std::max(worst, std::abs(int(a[c]) - int(b[c])));
		}
	}
	EXPECT_LE(worst, 4);
	for (vx_image *image : { &rgb, &yuv, &back })
		vxReleaseImage(image);
}

TEST_F(ColorConvertTest, PairsOutsideTheTableAreRefusedAtVerification)
{
	const vx_uint32 before = references();
	const struct {
		vx_df_image in, out;
	} refused[] = {
		{ VX_DF_IMAGE_RGB, VX_DF_IMAGE_RGB },
		{ VX_DF_IMAGE_YUV4, VX_DF_IMAGE_RGB },
		{ VX_DF_IMAGE_RGB, VX_DF_IMAGE_UYVY },
		{ VX_DF_IMAGE_U8, VX_DF_IMAGE_RGB },
		{ VX_DF_IMAGE_NV12, VX_DF_IMAGE_NV21 },
	};
	for (const auto &pair : refused) {
		vx_image in = makeImage(context, 4, 4, pair.in), out = makeImage(context, 4, 4, pair.out);
		EXPECT_EQ(convert(in, out), VX_ERROR_INVALID_FORMAT);
		vxReleaseImage(&in);
		vxReleaseImage(&out);
	}
	/* A virtual output must say what to convert to. */
	vx_graph graph = vxCreateGraph(context);
	vx_image in = makeImage(context, 4, 4, VX_DF_IMAGE_RGB);
	vx_image open = vxCreateVirtualImage(graph, 0, 0, VX_DF_IMAGE_VIRT);
	vx_node node = vxColorConvertNode(graph, in, open);
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_FORMAT);
	/* And an output of another size is refused. */
	vx_image small = makeImage(context, 2, 2, VX_DF_IMAGE_RGBX);
	EXPECT_EQ(convert(in, small), VX_ERROR_INVALID_DIMENSION);
	vxReleaseNode(&node);
	vxReleaseImage(&open);
	vxReleaseGraph(&graph);
	vxReleaseImage(&in);
	vxReleaseImage(&small);
	EXPECT_EQ(references(), before);
}

TEST_F(ColorConvertTest, TheKernelIsPublishedByNameAndEnumeration)
{
	vx_kernel kernel = vxGetKernelByName(context, "org.khronos.openvx.color_convert");
	ASSERT_EQ(vxGetStatus(ref(kernel)), VX_SUCCESS);
	vx_enum enumeration = 0;
	vx_uint32 parameters = 0;
	vxQueryKernel(kernel, VX_KERNEL_ENUM, &enumeration, sizeof(enumeration));
	vxQueryKernel(kernel, VX_KERNEL_PARAMETERS, &parameters, sizeof(parameters));
	EXPECT_EQ(enumeration, VX_KERNEL_COLOR_CONVERT);
	EXPECT_EQ(parameters, 2u);
	vxReleaseKernel(&kernel);
}

} /* namespace */
