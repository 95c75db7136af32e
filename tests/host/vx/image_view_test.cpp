/* SPDX-License-Identifier: MIT */
/*
 * Sub-images (vxCreateImageFromROI, vxCreateImageFromChannel): they share
 * their parent's pixels both ways, follow its memory through
 * vxSwapImageHandle, keep it alive, and graphs order the nodes that touch
 * overlapping parts of one image. Also vxSetImagePixelValues.
 *
 * The expected pixels come from a plain array laid out as the specification
 * defines each format (plane by plane, subsampled chroma), independent of the
 * implementation's own layout code.
 */
#include "vx_test.h"

#include <cstring>
#include <string>

namespace {

using ImageView = VxTest;
using PixelValues = VxTest;

/* Copies a plane of 1-byte elements, @columns x @rows of them, from or to
 * packed @bytes. */
vx_status copyPlane(vx_image image, vx_uint32 plane, vx_uint32 columns, vx_uint32 rows,
	std::vector<uint8_t> &bytes, vx_enum usage)
{
	/* The rectangle is in pixels: the element count times the subsampling. */
	const vx_uint32 width = query<vx_uint32>(image, VX_IMAGE_WIDTH);
	const vx_uint32 height = query<vx_uint32>(image, VX_IMAGE_HEIGHT);
	vx_rectangle_t rect = { 0, 0, width, height };
	vx_imagepatch_addressing_t addr = VX_IMAGEPATCH_ADDR_INIT;
	addr.dim_x = width;
	addr.dim_y = height;
	addr.stride_x = 1;
	addr.stride_y = vx_int32(columns);
	bytes.resize(size_t(columns) * rows);
	return vxCopyImagePatch(
		image, &rect, plane, &addr, bytes.data(), usage, VX_MEMORY_TYPE_HOST);
}

std::vector<uint8_t> readPlane(vx_image image, vx_uint32 plane, vx_uint32 columns, vx_uint32 rows)
{
	std::vector<uint8_t> bytes;
	EXPECT_EQ(copyPlane(image, plane, columns, rows, bytes, VX_READ_ONLY), VX_SUCCESS);
	return bytes;
}

void writePlane(vx_image image, vx_uint32 plane, vx_uint32 columns, vx_uint32 rows,
	std::vector<uint8_t> bytes)
{
	ASSERT_EQ(copyPlane(image, plane, columns, rows, bytes, VX_WRITE_ONLY), VX_SUCCESS);
}

/* Distinct values, so that a wrong offset shows. */
std::vector<uint8_t> numbered(size_t count, uint8_t first)
{
	std::vector<uint8_t> bytes(count);
	for (size_t i = 0; i < count; i++)
		bytes[i] = uint8_t(first + i);
	return bytes;
}

/* The @columns x @rows block at (@x, @y) of a packed plane @stride wide. */
std::vector<uint8_t> block(const std::vector<uint8_t> &plane, vx_uint32 stride, vx_uint32 x,
	vx_uint32 y, vx_uint32 columns, vx_uint32 rows)
{
	std::vector<uint8_t> out;
	for (vx_uint32 r = 0; r < rows; r++) {
		for (vx_uint32 c = 0; c < columns; c++)
			out.push_back(plane[size_t(y + r) * stride + x + c]);
	}
	return out;
}

vx_image roi(vx_image parent, vx_rectangle_t rect)
{
	vx_image image = vxCreateImageFromROI(parent, &rect);
	EXPECT_EQ(vxGetStatus(ref(image)), VX_SUCCESS);
	return image;
}

vx_image channel(vx_image parent, vx_enum which)
{
	vx_image image = vxCreateImageFromChannel(parent, which);
	EXPECT_EQ(vxGetStatus(ref(image)), VX_SUCCESS);
	return image;
}

bool sameRect(const vx_rectangle_t &a, const vx_rectangle_t &b)
{
	return a.start_x == b.start_x && a.start_y == b.start_y && a.end_x == b.end_x
		&& a.end_y == b.end_y;
}

} /* namespace */

TEST_F(ImageView, RoiReadsAndWritesItsPartOfTheParent)
{
	vx_image parent = makeImage(context, 8, 6, VX_DF_IMAGE_U8);
	const std::vector<uint8_t> pixels = numbered(48, 1);
	writePlane(parent, 0, 8, 6, pixels);
	vx_image part = roi(parent, rectangle(2, 1, 7, 4));

	EXPECT_EQ(query<vx_uint32>(part, VX_IMAGE_WIDTH), 5u);
	EXPECT_EQ(query<vx_uint32>(part, VX_IMAGE_HEIGHT), 3u);
	EXPECT_EQ(query<vx_df_image>(part, VX_IMAGE_FORMAT), VX_DF_IMAGE_U8);
	EXPECT_EQ(readPlane(part, 0, 5, 3), block(pixels, 8, 2, 1, 5, 3));

	/* Written through the sub-image, read in the parent, and back. */
	writePlane(part, 0, 5, 3, numbered(15, 200));
	std::vector<uint8_t> expected = pixels;
	for (vx_uint32 y = 0; y < 3; y++) {
		for (vx_uint32 x = 0; x < 5; x++)
			expected[(1 + y) * 8 + 2 + x] = uint8_t(200 + y * 5 + x);
	}
	EXPECT_EQ(readPlane(parent, 0, 8, 6), expected);

	writePlane(parent, 0, 8, 6, numbered(48, 100));
	EXPECT_EQ(readPlane(part, 0, 5, 3), block(numbered(48, 100), 8, 2, 1, 5, 3));

	/* A mapping of the sub-image points into the parent's pixels. */
	vx_rectangle_t all = rectangle(0, 0, 5, 3);
	vx_map_id id;
	vx_imagepatch_addressing_t addr;
	void *base = nullptr;
	ASSERT_EQ(vxMapImagePatch(part, &all, 0, &id, &addr, &base, VX_READ_AND_WRITE,
			  VX_MEMORY_TYPE_HOST, 0),
		VX_SUCCESS);
	*static_cast<uint8_t *>(vxFormatImagePatchAddress2d(base, 4, 2, &addr)) = 7;
	ASSERT_EQ(vxUnmapImagePatch(part, id), VX_SUCCESS);
	EXPECT_EQ(readPlane(parent, 0, 8, 6)[3 * 8 + 6], 7);

	vxReleaseImage(&part);
	vxReleaseImage(&parent);
}

TEST_F(ImageView, RoiOfRoiAddsTheOrigins)
{
	vx_image parent = makeImage(context, 10, 8, VX_DF_IMAGE_U8);
	const std::vector<uint8_t> pixels = numbered(80, 0);
	writePlane(parent, 0, 10, 8, pixels);
	vx_image outer = roi(parent, rectangle(1, 2, 9, 8));
	vx_image inner = roi(outer, rectangle(3, 1, 6, 4));
	EXPECT_EQ(readPlane(inner, 0, 3, 3), block(pixels, 10, 4, 3, 3, 3));
	vxReleaseImage(&inner);
	vxReleaseImage(&outer);
	vxReleaseImage(&parent);
}

TEST_F(ImageView, RoiOfNv12TakesTheChromaOfItsPixels)
{
	vx_image parent = makeImage(context, 8, 6, VX_DF_IMAGE_NV12);
	/* Luma 8x6; chroma 4x3 elements of 2 bytes (U, V): 8 bytes a row. */
	const std::vector<uint8_t> luma = numbered(48, 0);
	const std::vector<uint8_t> chroma = numbered(24, 100);
	writePlane(parent, 0, 8, 6, luma);
	{
		vx_rectangle_t all = rectangle(0, 0, 8, 6);
		vx_imagepatch_addressing_t addr = VX_IMAGEPATCH_ADDR_INIT;
		addr.dim_x = 8;
		addr.dim_y = 6;
		addr.stride_x = 2;
		addr.stride_y = 8;
		std::vector<uint8_t> bytes = chroma;
		ASSERT_EQ(vxCopyImagePatch(parent, &all, 1, &addr, bytes.data(), VX_WRITE_ONLY,
				  VX_MEMORY_TYPE_HOST),
			VX_SUCCESS);
	}
	vx_image part = roi(parent, rectangle(2, 2, 6, 6));
	EXPECT_EQ(query<vx_size>(part, VX_IMAGE_PLANES), 2u);
	EXPECT_EQ(readPlane(part, 0, 4, 4), block(luma, 8, 2, 2, 4, 4));

	vx_rectangle_t all = rectangle(0, 0, 4, 4);
	vx_imagepatch_addressing_t addr = VX_IMAGEPATCH_ADDR_INIT;
	addr.dim_x = 4;
	addr.dim_y = 4;
	addr.stride_x = 2;
	addr.stride_y = 4;
	std::vector<uint8_t> got(8);
	ASSERT_EQ(vxCopyImagePatch(
			  part, &all, 1, &addr, got.data(), VX_READ_ONLY, VX_MEMORY_TYPE_HOST),
		VX_SUCCESS);
	/* Pixels (2..6, 2..6) share chroma elements (1..3, 1..3): bytes 2..6. */
	EXPECT_EQ(got, block(chroma, 8, 2, 1, 4, 2));
	vxReleaseImage(&part);
	vxReleaseImage(&parent);
}

TEST_F(ImageView, RoiOutsideOrAcrossChromaBlocksIsInvalidParameters)
{
	vx_image u8 = makeImage(context, 8, 6, VX_DF_IMAGE_U8);
	vx_image nv12 = makeImage(context, 8, 6, VX_DF_IMAGE_NV12);
	const struct {
		vx_image parent;
		vx_rectangle_t rect;
	} cases[] = {
		{ u8, rectangle(0, 0, 9, 6) },
		{ u8, rectangle(0, 0, 8, 7) },
		{ u8, rectangle(3, 2, 3, 4) },
		{ u8, rectangle(4, 2, 3, 4) },
		{ nv12, rectangle(1, 0, 4, 4) },
		{ nv12, rectangle(0, 0, 4, 3) },
	};
	for (const auto &c : cases) {
		vx_image part = vxCreateImageFromROI(c.parent, &c.rect);
		EXPECT_EQ(vxGetStatus(ref(part)), VX_ERROR_INVALID_PARAMETERS)
			<< c.rect.start_x << "," << c.rect.start_y << "-" << c.rect.end_x << ","
			<< c.rect.end_y;
	}
	EXPECT_EQ(vxGetStatus(ref(vxCreateImageFromROI(u8, nullptr))), VX_ERROR_INVALID_PARAMETERS);
	EXPECT_EQ(vxCreateImageFromROI(nullptr, &cases[0].rect), nullptr);
	vxReleaseImage(&nv12);
	vxReleaseImage(&u8);
}

TEST_F(ImageView, ChannelOfIyuvIsItsPlane)
{
	vx_image parent = makeImage(context, 8, 4, VX_DF_IMAGE_IYUV);
	const std::vector<uint8_t> y = numbered(32, 0), u = numbered(8, 50), v = numbered(8, 90);
	writePlane(parent, 0, 8, 4, y);
	writePlane(parent, 1, 4, 2, u);
	writePlane(parent, 2, 4, 2, v);

	vx_image luma = channel(parent, VX_CHANNEL_Y);
	vx_image blue = channel(parent, VX_CHANNEL_U);
	vx_image red = channel(parent, VX_CHANNEL_V);
	EXPECT_EQ(query<vx_df_image>(blue, VX_IMAGE_FORMAT), VX_DF_IMAGE_U8);
	EXPECT_EQ(query<vx_uint32>(blue, VX_IMAGE_WIDTH), 4u);
	EXPECT_EQ(query<vx_uint32>(blue, VX_IMAGE_HEIGHT), 2u);
	EXPECT_EQ(query<vx_uint32>(luma, VX_IMAGE_WIDTH), 8u);
	EXPECT_EQ(readPlane(luma, 0, 8, 4), y);
	EXPECT_EQ(readPlane(blue, 0, 4, 2), u);
	EXPECT_EQ(readPlane(red, 0, 4, 2), v);

	/* Writing the channel writes that plane of the parent only. */
	writePlane(red, 0, 4, 2, numbered(8, 200));
	EXPECT_EQ(readPlane(parent, 2, 4, 2), numbered(8, 200));
	EXPECT_EQ(readPlane(parent, 1, 4, 2), u);
	EXPECT_EQ(readPlane(parent, 0, 8, 4), y);

	vxReleaseImage(&red);
	vxReleaseImage(&blue);
	vxReleaseImage(&luma);
	vxReleaseImage(&parent);
}

TEST_F(ImageView, ChannelOfRoiAndRoiOfChannelMeetOnTheSameChroma)
{
	vx_image parent = makeImage(context, 8, 8, VX_DF_IMAGE_IYUV);
	const std::vector<uint8_t> u = numbered(16, 10);
	writePlane(parent, 1, 4, 4, u);

	/* Pixels (4..8, 2..6) of the image are U elements (2..4, 1..3). */
	vx_image part = roi(parent, rectangle(4, 2, 8, 6));
	vx_image partU = channel(part, VX_CHANNEL_U);
	EXPECT_EQ(query<vx_uint32>(partU, VX_IMAGE_WIDTH), 2u);
	EXPECT_EQ(readPlane(partU, 0, 2, 2), block(u, 4, 2, 1, 2, 2));

	vx_image allU = channel(parent, VX_CHANNEL_U);
	vx_image uPart = roi(allU, rectangle(2, 1, 4, 3));
	EXPECT_EQ(readPlane(uPart, 0, 2, 2), block(u, 4, 2, 1, 2, 2));

	vxReleaseImage(&uPart);
	vxReleaseImage(&allU);
	vxReleaseImage(&partU);
	vxReleaseImage(&part);
	vxReleaseImage(&parent);
}

TEST_F(ImageView, ChannelThatIsNoWholePlaneIsInvalidParameters)
{
	vx_image nv12 = makeImage(context, 8, 4, VX_DF_IMAGE_NV12);
	vx_image rgb = makeImage(context, 8, 4, VX_DF_IMAGE_RGB);
	vx_image u8 = makeImage(context, 8, 4, VX_DF_IMAGE_U8);
	const struct {
		vx_image parent;
		vx_enum channel;
	} cases[] = {
		{ nv12, VX_CHANNEL_U },
		{ nv12, VX_CHANNEL_V },
		{ rgb, VX_CHANNEL_R },
		{ u8, VX_CHANNEL_Y },
		{ nv12, VX_CHANNEL_0 },
		{ nv12, 12345 },
	};
	for (const auto &c : cases)
		EXPECT_EQ(vxGetStatus(ref(vxCreateImageFromChannel(c.parent, c.channel))),
			VX_ERROR_INVALID_PARAMETERS)
			<< std::hex << c.channel;
	vx_image luma = channel(nv12, VX_CHANNEL_Y);
	EXPECT_EQ(query<vx_uint32>(luma, VX_IMAGE_WIDTH), 8u);
	vxReleaseImage(&luma);
	vxReleaseImage(&u8);
	vxReleaseImage(&rgb);
	vxReleaseImage(&nv12);
}

TEST_F(ImageView, OfVirtualImageIsNotSupported)
{
	vx_graph graph = vxCreateGraph(context);
	vx_image hidden = vxCreateVirtualImage(graph, 8, 4, VX_DF_IMAGE_IYUV);
	vx_rectangle_t rect = rectangle(0, 0, 4, 4);
	EXPECT_EQ(vxGetStatus(ref(vxCreateImageFromROI(hidden, &rect))), VX_ERROR_NOT_SUPPORTED);
	EXPECT_EQ(vxGetStatus(ref(vxCreateImageFromChannel(hidden, VX_CHANNEL_Y))),
		VX_ERROR_NOT_SUPPORTED);
	vxReleaseImage(&hidden);
	vxReleaseGraph(&graph);
}

TEST_F(ImageView, KeepsTheParentsMemoryAfterTheParentIsReleased)
{
	const vx_uint32 before = references();
	vx_image parent = makeImage(context, 8, 4, VX_DF_IMAGE_U8);
	writePlane(parent, 0, 8, 4, numbered(32, 0));
	vx_image part = roi(parent, rectangle(4, 0, 8, 4));
	EXPECT_EQ(references(), before + 2);

	ASSERT_EQ(vxReleaseImage(&parent), VX_SUCCESS);
	EXPECT_EQ(references(), before + 2) << "the sub-image holds its parent";
	EXPECT_EQ(readPlane(part, 0, 4, 4), block(numbered(32, 0), 8, 4, 0, 4, 4));
	ASSERT_EQ(vxReleaseImage(&part), VX_SUCCESS);
	EXPECT_EQ(references(), before);
}

TEST_F(ImageView, OfImageFromHandleFollowsSwaps)
{
	std::vector<uint8_t> first = numbered(32, 0), second = numbered(32, 100);
	vx_imagepatch_addressing_t addr = VX_IMAGEPATCH_ADDR_INIT;
	addr.dim_x = 8;
	addr.dim_y = 4;
	addr.stride_x = 1;
	addr.stride_y = 8;
	void *ptrs[] = { first.data() };
	vx_image parent = vxCreateImageFromHandle(
		context, VX_DF_IMAGE_U8, &addr, ptrs, VX_MEMORY_TYPE_HOST);
	ASSERT_EQ(vxGetStatus(ref(parent)), VX_SUCCESS);
	vx_image part = roi(parent, rectangle(2, 1, 6, 3));
	EXPECT_EQ(query<vx_enum>(part, VX_IMAGE_MEMORY_TYPE), VX_MEMORY_TYPE_HOST);
	EXPECT_EQ(readPlane(part, 0, 4, 2), block(first, 8, 2, 1, 4, 2));

	void *next[] = { second.data() };
	ASSERT_EQ(vxSwapImageHandle(parent, next, nullptr, 1), VX_SUCCESS);
	EXPECT_EQ(readPlane(part, 0, 4, 2), block(second, 8, 2, 1, 4, 2));

	/* Writes through the sub-image land in the application's memory. */
	writePlane(part, 0, 4, 2, std::vector<uint8_t>(8, 0xee));
	EXPECT_EQ(second[1 * 8 + 2], 0xee);
	EXPECT_EQ(second[2 * 8 + 5], 0xee);
	EXPECT_EQ(second[0], 100);

	/* Swapped out: the sub-image has no memory either. */
	ASSERT_EQ(vxSwapImageHandle(parent, nullptr, nullptr, 1), VX_SUCCESS);
	std::vector<uint8_t> bytes;
	EXPECT_EQ(copyPlane(part, 0, 4, 2, bytes, VX_READ_ONLY), VX_ERROR_NO_MEMORY);

	/* The sub-image was not created from handle. */
	EXPECT_EQ(vxSwapImageHandle(part, next, nullptr, 1), VX_ERROR_INVALID_PARAMETERS);
	vxReleaseImage(&part);
	vxReleaseImage(&parent);
}

TEST_F(ImageView, ParentMappedThroughASubImageCannotBeSwapped)
{
	std::vector<uint8_t> memory(32), other(32);
	vx_imagepatch_addressing_t addr = VX_IMAGEPATCH_ADDR_INIT;
	addr.dim_x = 8;
	addr.dim_y = 4;
	addr.stride_x = 1;
	addr.stride_y = 8;
	void *ptrs[] = { memory.data() };
	vx_image parent = vxCreateImageFromHandle(
		context, VX_DF_IMAGE_U8, &addr, ptrs, VX_MEMORY_TYPE_HOST);
	vx_image part = roi(parent, rectangle(0, 0, 4, 4));
	vx_rectangle_t rect = rectangle(0, 0, 4, 4);
	vx_map_id id;
	vx_imagepatch_addressing_t mapped;
	void *base;
	ASSERT_EQ(vxMapImagePatch(part, &rect, 0, &id, &mapped, &base, VX_READ_ONLY,
			  VX_MEMORY_TYPE_HOST, 0),
		VX_SUCCESS);
	void *next[] = { other.data() };
	EXPECT_EQ(vxSwapImageHandle(parent, next, nullptr, 1), VX_FAILURE);
	ASSERT_EQ(vxUnmapImagePatch(part, id), VX_SUCCESS);
	EXPECT_EQ(vxSwapImageHandle(parent, next, nullptr, 1), VX_SUCCESS);

	/* A sub-image released while mapped does not pin the parent. */
	ASSERT_EQ(vxMapImagePatch(part, &rect, 0, &id, &mapped, &base, VX_READ_ONLY,
			  VX_MEMORY_TYPE_HOST, 0),
		VX_SUCCESS);
	vxReleaseImage(&part);
	EXPECT_EQ(vxSwapImageHandle(parent, nullptr, nullptr, 1), VX_SUCCESS);
	vxReleaseImage(&parent);
}

TEST_F(ImageView, OfUniformImageIsUniformAndReadOnly)
{
	vx_pixel_value_t value = {};
	value.YUV[0] = 16;
	value.YUV[1] = 128;
	value.YUV[2] = 240;
	vx_image parent = vxCreateUniformImage(context, 8, 4, VX_DF_IMAGE_YUV4, &value);
	vx_image part = roi(parent, rectangle(2, 0, 6, 4));
	vx_image red = channel(parent, VX_CHANNEL_V);

	EXPECT_EQ(query<vx_bool>(part, VX_IMAGE_IS_UNIFORM), vx_true_e);
	EXPECT_EQ(query<vx_pixel_value_t>(red, VX_IMAGE_UNIFORM_VALUE).U8, 240);
	EXPECT_EQ(readPlane(red, 0, 8, 4), std::vector<uint8_t>(32, 240));
	EXPECT_EQ(readPlane(part, 1, 4, 4), std::vector<uint8_t>(16, 128));
	std::vector<uint8_t> bytes(32);
	EXPECT_EQ(copyPlane(red, 0, 8, 4, bytes, VX_WRITE_ONLY), VX_ERROR_NOT_SUPPORTED);
	vxReleaseImage(&red);
	vxReleaseImage(&part);
	vxReleaseImage(&parent);
}

TEST_F(ImageView, StartsWithTheValidPartOfTheParentsValidRegion)
{
	vx_image parent = makeImage(context, 8, 8, VX_DF_IMAGE_IYUV);
	vx_rectangle_t valid = rectangle(1, 2, 7, 8);
	ASSERT_EQ(vxSetImageValidRectangle(parent, &valid), VX_SUCCESS);

	vx_image part = roi(parent, rectangle(4, 0, 8, 4));
	vx_rectangle_t got;
	ASSERT_EQ(vxGetValidRegionImage(part, &got), VX_SUCCESS);
	EXPECT_TRUE(sameRect(got, rectangle(0, 2, 3, 4)));

	/* Chroma elements whose 2x2 pixels are all valid: (1..3, 1..4). */
	vx_image blue = channel(parent, VX_CHANNEL_U);
	ASSERT_EQ(vxGetValidRegionImage(blue, &got), VX_SUCCESS);
	EXPECT_TRUE(sameRect(got, rectangle(1, 1, 3, 4)));

	vxReleaseImage(&blue);
	vxReleaseImage(&part);
	vxReleaseImage(&parent);
}

TEST_F(PixelValues, SetEveryPixelOfEveryPlane)
{
	vx_image image = makeImage(context, 8, 4, VX_DF_IMAGE_NV21);
	vx_pixel_value_t value = {};
	value.YUV[0] = 1;
	value.YUV[1] = 2;
	value.YUV[2] = 3;
	ASSERT_EQ(vxSetImagePixelValues(image, &value), VX_SUCCESS);
	EXPECT_EQ(readPlane(image, 0, 8, 4), std::vector<uint8_t>(32, 1));
	/* NV21 chroma is V then U. */
	std::vector<uint8_t> vu;
	for (int i = 0; i < 8; i++)
		vu.insert(vu.end(), { 3, 2 });
	std::vector<uint8_t> chroma(16);
	vx_rectangle_t all = rectangle(0, 0, 8, 4);
	vx_imagepatch_addressing_t addr = VX_IMAGEPATCH_ADDR_INIT;
	addr.dim_x = 8;
	addr.dim_y = 4;
	addr.stride_x = 2;
	addr.stride_y = 8;
	ASSERT_EQ(vxCopyImagePatch(
			  image, &all, 1, &addr, chroma.data(), VX_READ_ONLY, VX_MEMORY_TYPE_HOST),
		VX_SUCCESS);
	EXPECT_EQ(chroma, vu);
	EXPECT_EQ(query<vx_bool>(image, VX_IMAGE_IS_UNIFORM), vx_false_e);
	vxReleaseImage(&image);
}

TEST_F(PixelValues, OfSubImageSetsItsPartOnly)
{
	vx_image parent = makeImage(context, 8, 4, VX_DF_IMAGE_S16);
	vx_image part = roi(parent, rectangle(6, 1, 8, 3));
	vx_pixel_value_t zero = {}, value = {};
	value.S16 = -2;
	ASSERT_EQ(vxSetImagePixelValues(parent, &zero), VX_SUCCESS);
	ASSERT_EQ(vxSetImagePixelValues(part, &value), VX_SUCCESS);

	std::vector<vx_int16> pixels(32);
	vx_rectangle_t all = rectangle(0, 0, 8, 4);
	vx_imagepatch_addressing_t addr = VX_IMAGEPATCH_ADDR_INIT;
	addr.dim_x = 8;
	addr.dim_y = 4;
	addr.stride_x = 2;
	addr.stride_y = 16;
	ASSERT_EQ(vxCopyImagePatch(
			  parent, &all, 0, &addr, pixels.data(), VX_READ_ONLY, VX_MEMORY_TYPE_HOST),
		VX_SUCCESS);
	for (vx_uint32 y = 0; y < 4; y++) {
		for (vx_uint32 x = 0; x < 8; x++) {
			const bool inside = x >= 6 && y >= 1 && y < 3;
			EXPECT_EQ(pixels[y * 8 + x], inside ? -2 : 0) << x << "," << y;
		}
	}
	vxReleaseImage(&part);
	vxReleaseImage(&parent);
}

TEST_F(PixelValues, RefuseUniformVirtualAndMissingValues)
{
	vx_pixel_value_t value = {};
	vx_image uniform = vxCreateUniformImage(context, 4, 4, VX_DF_IMAGE_U8, &value);
	vx_graph graph = vxCreateGraph(context);
	vx_image hidden = vxCreateVirtualImage(graph, 4, 4, VX_DF_IMAGE_U8);
	vx_image image = makeImage(context, 4, 4, VX_DF_IMAGE_U8);
	EXPECT_EQ(vxSetImagePixelValues(uniform, &value), VX_ERROR_INVALID_REFERENCE);
	EXPECT_EQ(vxSetImagePixelValues(hidden, &value), VX_ERROR_INVALID_REFERENCE);
	EXPECT_EQ(vxSetImagePixelValues(image, nullptr), VX_ERROR_INVALID_PARAMETERS);
	EXPECT_EQ(vxSetImagePixelValues(nullptr, &value), VX_ERROR_INVALID_REFERENCE);
	vxReleaseImage(&image);
	vxReleaseImage(&hidden);
	vxReleaseGraph(&graph);
	vxReleaseImage(&uniform);
}

/* ---- Graphs ------------------------------------------------------------ */

namespace {

/* The names of the nodes in the order they ran. */
std::vector<std::string> &runs()
{
	static std::vector<std::string> names;
	return names;
}

/* out = in + 1, pixel by pixel (U8 images of one size). */
vx_status VX_CALLBACK runIncrement(vx_node node, const vx_reference *parameters, vx_uint32)
{
	auto in = reinterpret_cast<vx_image>(parameters[0]);
	auto out = reinterpret_cast<vx_image>(parameters[1]);
	const vx_uint32 width = query<vx_uint32>(in, VX_IMAGE_WIDTH);
	const vx_uint32 height = query<vx_uint32>(in, VX_IMAGE_HEIGHT);
	std::vector<uint8_t> pixels;
	vx_status status = copyPlane(in, 0, width, height, pixels, VX_READ_ONLY);
	if (status != VX_SUCCESS)
		return status;
	for (uint8_t &pixel : pixels)
		pixel++;
	char name[VX_MAX_REFERENCE_NAME] = {};
	vx_char *namePtr = nullptr;
	vxQueryReference(ref(node), VX_REFERENCE_NAME, &namePtr, sizeof(namePtr));
	if (namePtr)
		std::strncpy(name, namePtr, sizeof(name) - 1);
	runs().push_back(name);
	return copyPlane(out, 0, width, height, pixels, VX_WRITE_ONLY);
}

/* How many times validateIncrement ran. */
int &validations()
{
	static int count;
	return count;
}

vx_status VX_CALLBACK validateIncrement(
	vx_node, const vx_reference *parameters, vx_uint32, vx_meta_format metas[])
{
	validations()++;
	auto in = reinterpret_cast<vx_image>(parameters[0]);
	auto out = reinterpret_cast<vx_image>(parameters[1]);
	if (query<vx_uint32>(in, VX_IMAGE_WIDTH) != query<vx_uint32>(out, VX_IMAGE_WIDTH)
		|| query<vx_uint32>(in, VX_IMAGE_HEIGHT) != query<vx_uint32>(out, VX_IMAGE_HEIGHT))
		return VX_ERROR_INVALID_DIMENSION;
	return vxSetMetaFormatFromReference(metas[1], parameters[0]);
}

class ImageViewGraph : public VxTest
{
protected:
	void SetUp() override
	{
		VxTest::SetUp();
		runs().clear();
		kernel = vxAddUserKernel(context, "vdla.test.image_increment",
			VX_KERNEL_BASE(VX_ID_USER, 0) + 7, runIncrement, 2, validateIncrement,
			nullptr, nullptr);
		ASSERT_EQ(vxGetStatus(ref(kernel)), VX_SUCCESS);
		vxAddParameterToKernel(
			kernel, 0, VX_INPUT, VX_TYPE_IMAGE, VX_PARAMETER_STATE_REQUIRED);
		vxAddParameterToKernel(
			kernel, 1, VX_OUTPUT, VX_TYPE_IMAGE, VX_PARAMETER_STATE_REQUIRED);
		ASSERT_EQ(vxFinalizeKernel(kernel), VX_SUCCESS);
		graph = vxCreateGraph(context);
	}
	void TearDown() override
	{
		for (vx_image &image : images)
			vxReleaseImage(&image);
		vxReleaseGraph(&graph);
		vxReleaseKernel(&kernel);
		VxTest::TearDown();
	}
	vx_image keep(vx_image image)
	{
		images.push_back(image);
		return image;
	}
	void increment(const char *name, vx_image in, vx_image out)
	{
		vx_node node = vxCreateGenericNode(graph, kernel);
		ASSERT_EQ(vxSetParameterByIndex(node, 0, ref(in)), VX_SUCCESS);
		ASSERT_EQ(vxSetParameterByIndex(node, 1, ref(out)), VX_SUCCESS);
		vxSetReferenceName(ref(node), name);
		vxReleaseNode(&node);
	}

	vx_kernel kernel = nullptr;
	vx_graph graph = nullptr;
	std::vector<vx_image> images;
};

} /* namespace */

TEST_F(ImageViewGraph, ReaderOfTheWholeRunsAfterTheWritersOfItsParts)
{
	vx_image source = keep(makeImage(context, 8, 4, VX_DF_IMAGE_U8));
	vx_image whole = keep(makeImage(context, 8, 4, VX_DF_IMAGE_U8));
	vx_image result = keep(makeImage(context, 8, 4, VX_DF_IMAGE_U8));
	writePlane(source, 0, 8, 4, numbered(32, 0));
	vx_image left = keep(roi(whole, rectangle(0, 0, 4, 4)));
	vx_image right = keep(roi(whole, rectangle(4, 0, 8, 4)));
	vx_image sourceLeft = keep(roi(source, rectangle(0, 0, 4, 4)));
	vx_image sourceRight = keep(roi(source, rectangle(4, 0, 8, 4)));

	/* Added reader first: in the order of creation it would run first. */
	increment("reader", whole, result);
	increment("left", sourceLeft, left);
	increment("right", sourceRight, right);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);

	ASSERT_EQ(runs().size(), 3u);
	EXPECT_EQ(runs()[2], "reader");
	EXPECT_EQ(readPlane(result, 0, 8, 4), numbered(32, 2));
}

TEST_F(ImageViewGraph, ReadersOfPartsRunAfterTheWriterOfTheWhole)
{
	vx_image source = keep(makeImage(context, 8, 4, VX_DF_IMAGE_U8));
	vx_image whole = keep(makeImage(context, 8, 4, VX_DF_IMAGE_U8));
	vx_image top = keep(makeImage(context, 8, 2, VX_DF_IMAGE_U8));
	vx_image bottom = keep(makeImage(context, 8, 2, VX_DF_IMAGE_U8));
	writePlane(source, 0, 8, 4, numbered(32, 0));

	increment("top", keep(roi(whole, rectangle(0, 0, 8, 2))), top);
	increment("bottom", keep(roi(whole, rectangle(0, 2, 8, 4))), bottom);
	increment("writer", source, whole);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);

	ASSERT_EQ(runs().size(), 3u);
	EXPECT_EQ(runs()[0], "writer");
	EXPECT_EQ(readPlane(top, 0, 8, 2), numbered(16, 2));
	EXPECT_EQ(readPlane(bottom, 0, 8, 2), numbered(16, 18));
}

TEST_F(ImageViewGraph, WritersOfOverlappingPartsAreMultipleWriters)
{
	vx_image source = keep(makeImage(context, 8, 4, VX_DF_IMAGE_U8));
	vx_image whole = keep(makeImage(context, 8, 4, VX_DF_IMAGE_U8));
	vx_image sourcePart = keep(roi(source, rectangle(0, 0, 4, 4)));
	vx_image a = keep(roi(whole, rectangle(0, 0, 4, 4)));
	vx_image b = keep(roi(whole, rectangle(3, 0, 7, 4)));
	increment("a", sourcePart, a);
	increment("b", sourcePart, b);
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_MULTIPLE_WRITERS);
}

TEST_F(ImageViewGraph, WritersOfTheWholeAndOfAPartAreMultipleWriters)
{
	vx_image source = keep(makeImage(context, 8, 4, VX_DF_IMAGE_U8));
	vx_image whole = keep(makeImage(context, 8, 4, VX_DF_IMAGE_U8));
	vx_image sourcePart = keep(roi(source, rectangle(0, 0, 4, 4)));
	vx_image part = keep(roi(whole, rectangle(4, 0, 8, 4)));
	increment("whole", source, whole);
	increment("part", sourcePart, part);
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_MULTIPLE_WRITERS);
}

TEST_F(ImageViewGraph, WritersOfDifferentPlanesOfOneImageAreNot)
{
	vx_image source = keep(makeImage(context, 8, 4, VX_DF_IMAGE_U8));
	vx_image small = keep(makeImage(context, 4, 2, VX_DF_IMAGE_U8));
	vx_image frame = keep(makeImage(context, 8, 4, VX_DF_IMAGE_IYUV));
	writePlane(source, 0, 8, 4, numbered(32, 0));
	writePlane(small, 0, 4, 2, numbered(8, 100));
	increment("y", source, keep(channel(frame, VX_CHANNEL_Y)));
	increment("u", small, keep(channel(frame, VX_CHANNEL_U)));
	increment("v", small, keep(channel(frame, VX_CHANNEL_V)));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(readPlane(frame, 0, 8, 4), numbered(32, 1));
	EXPECT_EQ(readPlane(frame, 1, 4, 2), numbered(8, 101));
	EXPECT_EQ(readPlane(frame, 2, 4, 2), numbered(8, 101));
}

TEST_F(ImageViewGraph, DisjointPartsOfOneImageAreIndependent)
{
	/*
	 * first: left half of P -> Q; second: Q -> right half of P. Taken as
	 * one object, P would be read by first and written by second, while
	 * Q goes the other way: a cycle. Their parts do not overlap.
	 */
	vx_image p = keep(makeImage(context, 8, 4, VX_DF_IMAGE_U8));
	vx_image q = keep(makeImage(context, 4, 4, VX_DF_IMAGE_U8));
	writePlane(p, 0, 8, 4, std::vector<uint8_t>(32, 5));
	increment("second", q, keep(roi(p, rectangle(4, 0, 8, 4))));
	increment("first", keep(roi(p, rectangle(0, 0, 4, 4))), q);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	ASSERT_EQ(runs().size(), 2u);
	EXPECT_EQ(runs()[0], "first");
	std::vector<uint8_t> expected(32, 5);
	for (vx_uint32 y = 0; y < 4; y++) {
		for (vx_uint32 x = 4; x < 8; x++)
			expected[y * 8 + x] = 7;
	}
	EXPECT_EQ(readPlane(p, 0, 8, 4), expected);
}

TEST_F(ImageViewGraph, NodeReadingAndWritingOverlappingPartsIsACycle)
{
	vx_image p = keep(makeImage(context, 8, 4, VX_DF_IMAGE_U8));
	increment("self", keep(roi(p, rectangle(0, 0, 4, 4))), keep(roi(p, rectangle(2, 0, 6, 4))));
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_GRAPH);
}

/* Images from handles on one application buffer are ordered and checked
 * like sub-images of one image: their plane bytes overlap. */
TEST_F(ImageViewGraph, ImagesFromHandlesOnOneBufferAreOrderedLikeSubImages)
{
	std::vector<uint8_t> buffer(8 * 4);
	auto onBuffer = [&](vx_uint32 firstRow, vx_uint32 rows) {
		vx_imagepatch_addressing_t addr = VX_IMAGEPATCH_ADDR_INIT;
		addr.dim_x = 8;
		addr.dim_y = rows;
		addr.stride_x = 1;
		addr.stride_y = 8;
		void *ptrs[] = { buffer.data() + firstRow * 8 };
		return keep(vxCreateImageFromHandle(
			context, VX_DF_IMAGE_U8, &addr, ptrs, VX_MEMORY_TYPE_HOST));
	};
	vx_image source = keep(makeImage(context, 8, 4, VX_DF_IMAGE_U8));
	vx_image result = keep(makeImage(context, 8, 4, VX_DF_IMAGE_U8));
	writePlane(source, 0, 8, 4, numbered(32, 0));
	vx_image whole = onBuffer(0, 4), top = onBuffer(0, 2), bottom = onBuffer(2, 2);

	/* Added reader first: in the order of creation it would run first. */
	increment("reader", whole, result);
	increment("top", keep(roi(source, rectangle(0, 0, 8, 2))), top);
	increment("bottom", keep(roi(source, rectangle(0, 2, 8, 4))), bottom);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	ASSERT_EQ(runs().size(), 3u);
	EXPECT_EQ(runs()[2], "reader");
	EXPECT_EQ(readPlane(result, 0, 8, 4), numbered(32, 2));

	/* Rows 1 and 2 written through two images. */
	vx_graph overlapping = vxCreateGraph(context);
	std::swap(graph, overlapping);
	increment("rows 0-1", keep(roi(source, rectangle(0, 0, 8, 2))), top);
	increment("rows 1-2", keep(roi(source, rectangle(0, 0, 8, 2))), onBuffer(1, 2));
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_MULTIPLE_WRITERS);
	std::swap(graph, overlapping);
	vxReleaseGraph(&overlapping);
}

/*
 * A handle swap after verification that makes images overlap differently
 * makes the next run verify the graph again: the reader, on a buffer of
 * its own at verification, is swapped onto the writers' and runs last.
 */
TEST_F(ImageViewGraph, HandleSwapsThatChangeOverlapsOrderTheGraphAgain)
{
	std::vector<uint8_t> buffer(8 * 4), own(8 * 4, 100);
	auto onMemory = [&](uint8_t *memory, vx_uint32 rows) {
		vx_imagepatch_addressing_t addr = VX_IMAGEPATCH_ADDR_INIT;
		addr.dim_x = 8;
		addr.dim_y = rows;
		addr.stride_x = 1;
		addr.stride_y = 8;
		void *ptrs[] = { memory };
		return keep(vxCreateImageFromHandle(
			context, VX_DF_IMAGE_U8, &addr, ptrs, VX_MEMORY_TYPE_HOST));
	};
	vx_image source = keep(makeImage(context, 8, 4, VX_DF_IMAGE_U8));
	vx_image result = keep(makeImage(context, 8, 4, VX_DF_IMAGE_U8));
	writePlane(source, 0, 8, 4, numbered(32, 0));
	vx_image whole = onMemory(own.data(), 4);
	vx_image top = onMemory(buffer.data(), 2), bottom = onMemory(buffer.data() + 16, 2);

	increment("reader", whole, result);
	increment("top", keep(roi(source, rectangle(0, 0, 8, 2))), top);
	increment("bottom", keep(roi(source, rectangle(0, 2, 8, 4))), bottom);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	ASSERT_EQ(runs().size(), 3u);
	EXPECT_EQ(runs()[0], "reader") << "unrelated, the first added runs first";
	EXPECT_EQ(readPlane(result, 0, 8, 4), std::vector<uint8_t>(32, 101));

	void *ptrs[] = { buffer.data() };
	ASSERT_EQ(vxSwapImageHandle(whole, ptrs, nullptr, 1), VX_SUCCESS);
	runs().clear();
	const int validationsBefore = validations();
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	ASSERT_EQ(runs().size(), 3u);
	EXPECT_EQ(runs()[2], "reader");
	EXPECT_EQ(readPlane(result, 0, 8, 4), numbered(32, 2));
	/* USER-KERNELS.md: executing a verified graph calls no validator. */
	EXPECT_EQ(validations(), validationsBefore);
	EXPECT_EQ(vxIsGraphVerified(graph), vx_true_e);
}
