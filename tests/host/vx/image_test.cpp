/* SPDX-License-Identifier: MIT */
/*
 * Images: formats and planes, patches, uniform and from-handle images, valid
 * rectangles, reference counts, and images in user kernel graphs (meta
 * formats, virtual images, the valid rectangle callback of USER-KERNELS.md).
 */
#include "vx_test.h"

#include <algorithm>
#include <cstring>

using Image = VxTest;
using ImagePatch = VxTest;
using UniformImage = VxTest;
using ImageFromHandle = VxTest;
using VirtualImage = VxTest;
using ValidRegion = VxTest;
using ImageReferences = VxTest;

/* vx_rectangle_t lives in the global namespace, where googletest looks. */
static bool operator==(const vx_rectangle_t &a, const vx_rectangle_t &b)
{
	return a.start_x == b.start_x && a.start_y == b.start_y && a.end_x == b.end_x
		&& a.end_y == b.end_y;
}

static std::ostream &operator<<(std::ostream &out, const vx_rectangle_t &r)
{
	return out << "(" << r.start_x << "," << r.start_y << ")-(" << r.end_x << "," << r.end_y
		   << ")";
}

namespace {

struct PlaneLayout {
	vx_uint32 elementSize;
	vx_uint32 subsampleX;
	vx_uint32 subsampleY;
};

struct FormatCase {
	const char *name;
	vx_df_image format;
	std::vector<PlaneLayout> planes;
};

constexpr vx_uint32 kWidth = 8;
constexpr vx_uint32 kHeight = 4;

vx_rectangle_t validRegion(vx_image image)
{
	vx_rectangle_t rect = {};
	EXPECT_EQ(vxGetValidRegionImage(image, &rect), VX_SUCCESS);
	return rect;
}

/* vxCopyImagePatch between rect and host memory with the given strides. */
vx_status copyPatch(vx_image image, vx_rectangle_t rect, vx_uint32 plane, vx_int32 strideX,
	vx_int32 strideY, void *memory, vx_enum usage)
{
	vx_imagepatch_addressing_t addr = VX_IMAGEPATCH_ADDR_INIT;
	addr.dim_x = rect.end_x - rect.start_x;
	addr.dim_y = rect.end_y - rect.start_y;
	addr.stride_x = strideX;
	addr.stride_y = strideY;
	return vxCopyImagePatch(image, &rect, plane, &addr, memory, usage, VX_MEMORY_TYPE_HOST);
}

/* A packed copy of one plane of the whole image. */
std::vector<uint8_t> readPlane(vx_image image, vx_uint32 plane, const PlaneLayout &layout)
{
	const vx_uint32 width = query<vx_uint32>(image, VX_IMAGE_WIDTH);
	const vx_uint32 height = query<vx_uint32>(image, VX_IMAGE_HEIGHT);
	const vx_uint32 rowSize = width / layout.subsampleX * layout.elementSize;
	std::vector<uint8_t> bytes(rowSize * (height / layout.subsampleY));
	EXPECT_EQ(copyPatch(image, rectangle(0, 0, width, height), plane, layout.elementSize,
			  rowSize, bytes.data(), VX_READ_ONLY),
		VX_SUCCESS);
	return bytes;
}

/* What one vxMapImagePatch of host memory gave. */
struct Patch {
	vx_status status;
	vx_map_id id;
	vx_imagepatch_addressing_t addr;
	void *base;

	uint8_t *at(vx_uint32 x, vx_uint32 y) const
	{
		return static_cast<uint8_t *>(vxFormatImagePatchAddress2d(base, x, y, &addr));
	}
};

Patch mapPatch(
	vx_image image, vx_rectangle_t rect, vx_uint32 plane, vx_enum usage, vx_uint32 flags = 0)
{
	Patch patch = { VX_FAILURE, 0, VX_IMAGEPATCH_ADDR_INIT, nullptr };
	patch.status = vxMapImagePatch(image, &rect, plane, &patch.id, &patch.addr, &patch.base,
		usage, VX_MEMORY_TYPE_HOST, flags);
	return patch;
}

std::vector<uint8_t> pattern(vx_size size, vx_uint32 seed)
{
	std::vector<uint8_t> bytes(size);
	for (vx_size i = 0; i < size; i++)
		bytes[i] = static_cast<uint8_t>(seed * 97 + i * 7 + 1);
	return bytes;
}

class ImageFormats : public VxTest, public ::testing::WithParamInterface<FormatCase>
{
};

const FormatCase kFormatCases[] = {
	{ "RGB", VX_DF_IMAGE_RGB, { { 3, 1, 1 } } },
	{ "RGBX", VX_DF_IMAGE_RGBX, { { 4, 1, 1 } } },
	{ "NV12", VX_DF_IMAGE_NV12, { { 1, 1, 1 }, { 2, 2, 2 } } },
	{ "NV21", VX_DF_IMAGE_NV21, { { 1, 1, 1 }, { 2, 2, 2 } } },
	{ "UYVY", VX_DF_IMAGE_UYVY, { { 2, 1, 1 } } },
	{ "YUYV", VX_DF_IMAGE_YUYV, { { 2, 1, 1 } } },
	{ "IYUV", VX_DF_IMAGE_IYUV, { { 1, 1, 1 }, { 1, 2, 2 }, { 1, 2, 2 } } },
	{ "YUV4", VX_DF_IMAGE_YUV4, { { 1, 1, 1 }, { 1, 1, 1 }, { 1, 1, 1 } } },
	{ "U8", VX_DF_IMAGE_U8, { { 1, 1, 1 } } },
	{ "U16", VX_DF_IMAGE_U16, { { 2, 1, 1 } } },
	{ "S16", VX_DF_IMAGE_S16, { { 2, 1, 1 } } },
	{ "U32", VX_DF_IMAGE_U32, { { 4, 1, 1 } } },
	{ "S32", VX_DF_IMAGE_S32, { { 4, 1, 1 } } },
};

} /* namespace */

TEST_P(ImageFormats, CreateGivesPlanesWithTheirSizesAndAddressing)
{
	const FormatCase &c = GetParam();
	vx_image image = makeImage(context, kWidth, kHeight, c.format);
	EXPECT_EQ(query<vx_uint32>(image, VX_IMAGE_WIDTH), kWidth);
	EXPECT_EQ(query<vx_uint32>(image, VX_IMAGE_HEIGHT), kHeight);
	EXPECT_EQ(query<vx_df_image>(image, VX_IMAGE_FORMAT), c.format);
	ASSERT_EQ(query<vx_size>(image, VX_IMAGE_PLANES), c.planes.size());

	for (vx_uint32 p = 0; p < c.planes.size(); p++) {
		const PlaneLayout &layout = c.planes[p];
		Patch patch = mapPatch(image, rectangle(0, 0, kWidth, kHeight), p, VX_READ_ONLY);
		ASSERT_EQ(patch.status, VX_SUCCESS) << "plane " << p;
		const vx_imagepatch_addressing_t &addr = patch.addr;
		EXPECT_EQ(addr.dim_x, kWidth);
		EXPECT_EQ(addr.dim_y, kHeight);
		EXPECT_EQ(addr.stride_x, vx_int32(layout.elementSize));
		EXPECT_EQ(addr.stride_y, vx_int32(layout.elementSize * kWidth / layout.subsampleX));
		EXPECT_EQ(addr.step_x, layout.subsampleX);
		EXPECT_EQ(addr.step_y, layout.subsampleY);
		EXPECT_EQ(addr.scale_x, VX_SCALE_UNITY / layout.subsampleX);
		EXPECT_EQ(addr.scale_y, VX_SCALE_UNITY / layout.subsampleY);
		EXPECT_EQ(readPlane(image, p, layout).size(),
			kWidth / layout.subsampleX * (kHeight / layout.subsampleY)
				* layout.elementSize);
		EXPECT_EQ(vxUnmapImagePatch(image, patch.id), VX_SUCCESS);
	}
	vxReleaseImage(&image);
}

TEST_P(ImageFormats, CopyRoundTripsEveryPlane)
{
	const FormatCase &c = GetParam();
	vx_image image = makeImage(context, kWidth, kHeight, c.format);
	vx_rectangle_t all = rectangle(0, 0, kWidth, kHeight);
	for (vx_uint32 p = 0; p < c.planes.size(); p++) {
		const PlaneLayout &layout = c.planes[p];
		const vx_uint32 columns = kWidth / layout.subsampleX;
		const vx_uint32 rows = kHeight / layout.subsampleY;
		/* The application's rows are padded. */
		const vx_int32 strideY = columns * layout.elementSize + 5;
		std::vector<uint8_t> written = pattern(strideY * rows, p);
		ASSERT_EQ(copyPatch(image, all, p, layout.elementSize, strideY, written.data(),
				  VX_WRITE_ONLY),
			VX_SUCCESS);

		Patch patch = mapPatch(image, all, p, VX_READ_ONLY);
		ASSERT_EQ(patch.status, VX_SUCCESS);
		std::vector<uint8_t> packed;
		for (vx_uint32 y = 0; y < patch.addr.dim_y; y += patch.addr.step_y) {
			for (vx_uint32 x = 0; x < patch.addr.dim_x; x += patch.addr.step_x) {
				const uint8_t *expected = written.data()
					+ (y / layout.subsampleY) * strideY
					+ (x / layout.subsampleX) * layout.elementSize;
				ASSERT_EQ(memcmp(patch.at(x, y), expected, layout.elementSize), 0)
					<< "plane " << p << " at " << x << "," << y;
				packed.insert(
					packed.end(), expected, expected + layout.elementSize);
			}
		}
		vxUnmapImagePatch(image, patch.id);
		EXPECT_EQ(readPlane(image, p, layout), packed) << "plane " << p;
	}
	vxReleaseImage(&image);
}

INSTANTIATE_TEST_SUITE_P(Image, ImageFormats, ::testing::ValuesIn(kFormatCases),
	[](const ::testing::TestParamInfo<FormatCase> &info) { return info.param.name; });

TEST_F(Image, NewImageReportsDefaultAttributes)
{
	vx_image gray = makeImage(context, kWidth, kHeight, VX_DF_IMAGE_U8);
	vx_image yuv = makeImage(context, kWidth, kHeight, VX_DF_IMAGE_NV12);
	EXPECT_EQ(query<vx_enum>(gray, VX_IMAGE_SPACE), VX_COLOR_SPACE_NONE);
	EXPECT_EQ(query<vx_enum>(yuv, VX_IMAGE_SPACE), VX_COLOR_SPACE_DEFAULT);
	EXPECT_EQ(query<vx_enum>(gray, VX_IMAGE_RANGE), VX_CHANNEL_RANGE_FULL);
	EXPECT_EQ(query<vx_enum>(gray, VX_IMAGE_MEMORY_TYPE), VX_MEMORY_TYPE_NONE);
	EXPECT_EQ(query<vx_bool>(gray, VX_IMAGE_IS_UNIFORM), vx_false_e);
	vx_pixel_value_t value;
	EXPECT_EQ(vxQueryImage(gray, VX_IMAGE_UNIFORM_VALUE, &value, sizeof(value)),
		VX_ERROR_NOT_SUPPORTED);
	vxReleaseImage(&gray);
	vxReleaseImage(&yuv);
}

TEST_F(Image, SpaceIsSettableAndRangeIsNot)
{
	vx_image image = makeImage(context, kWidth, kHeight, VX_DF_IMAGE_NV12);
	vx_enum space = VX_COLOR_SPACE_BT601_625;
	EXPECT_EQ(vxSetImageAttribute(image, VX_IMAGE_SPACE, &space, sizeof(space)), VX_SUCCESS);
	EXPECT_EQ(query<vx_enum>(image, VX_IMAGE_SPACE), VX_COLOR_SPACE_BT601_625);
	vx_enum unknown = 12345;
	EXPECT_EQ(vxSetImageAttribute(image, VX_IMAGE_SPACE, &unknown, sizeof(unknown)),
		VX_ERROR_INVALID_VALUE);
	vx_enum range = VX_CHANNEL_RANGE_RESTRICTED;
	EXPECT_EQ(vxSetImageAttribute(image, VX_IMAGE_RANGE, &range, sizeof(range)),
		VX_ERROR_NOT_SUPPORTED);
	vxReleaseImage(&image);
}

struct BadImage {
	const char *name;
	vx_uint32 width;
	vx_uint32 height;
	vx_df_image format;
	vx_status expected;
};

class ImageRejects : public VxTest, public ::testing::WithParamInterface<BadImage>
{
};

TEST_P(ImageRejects, AtCreation)
{
	const BadImage &c = GetParam();
	vx_image image = vxCreateImage(context, c.width, c.height, c.format);
	EXPECT_EQ(vxGetStatus(ref(image)), c.expected);
}

INSTANTIATE_TEST_SUITE_P(Image, ImageRejects,
	::testing::Values(BadImage{ "VirtFormat", 8, 4, VX_DF_IMAGE_VIRT, VX_ERROR_INVALID_FORMAT },
		BadImage{ "UnknownFormat", 8, 4, VX_DF_IMAGE('X', 'Y', 'Z', 'W'),
			VX_ERROR_INVALID_FORMAT },
		BadImage{ "ZeroWidth", 0, 4, VX_DF_IMAGE_U8, VX_ERROR_INVALID_DIMENSION },
		BadImage{ "ZeroHeight", 8, 0, VX_DF_IMAGE_U8, VX_ERROR_INVALID_DIMENSION },
		BadImage{ "OddWidthNV12", 7, 4, VX_DF_IMAGE_NV12, VX_ERROR_INVALID_DIMENSION },
		BadImage{ "OddHeightIYUV", 8, 3, VX_DF_IMAGE_IYUV, VX_ERROR_INVALID_DIMENSION },
		BadImage{ "OddWidthUYVY", 7, 4, VX_DF_IMAGE_UYVY, VX_ERROR_INVALID_DIMENSION }),
	[](const ::testing::TestParamInfo<BadImage> &info) { return info.param.name; });

TEST_F(ImagePatch, Nv12ChromaIsOneElementPerTwoByTwoPixels)
{
	vx_image image = makeImage(context, kWidth, kHeight, VX_DF_IMAGE_NV12);
	Patch patch = mapPatch(image, rectangle(0, 0, kWidth, kHeight), 1, VX_WRITE_ONLY);
	ASSERT_EQ(patch.status, VX_SUCCESS);
	const vx_imagepatch_addressing_t &addr = patch.addr;
	EXPECT_EQ(addr.dim_x, kWidth);
	EXPECT_EQ(addr.step_x, 2u);
	EXPECT_EQ(addr.scale_x, VX_SCALE_UNITY / 2);
	EXPECT_EQ(addr.stride_x, 2);
	EXPECT_EQ(addr.stride_y, vx_int32(kWidth));
	for (vx_uint32 y = 0; y < addr.dim_y; y += addr.step_y) {
		for (vx_uint32 x = 0; x < addr.dim_x; x += addr.step_x) {
			uint8_t *uv = patch.at(x, y);
			uv[0] = static_cast<uint8_t>(x);
			uv[1] = static_cast<uint8_t>(y);
		}
	}
	/* The odd pixels share their left or upper neighbour's chroma. */
	EXPECT_EQ(patch.at(3, 1), patch.at(2, 0));
	ASSERT_EQ(vxUnmapImagePatch(image, patch.id), VX_SUCCESS);

	std::vector<uint8_t> chroma = readPlane(image, 1, { 2, 2, 2 });
	ASSERT_EQ(chroma.size(), 16u);
	for (vx_uint32 row = 0; row < 2; row++) {
		for (vx_uint32 column = 0; column < 4; column++) {
			EXPECT_EQ(chroma[(row * 4 + column) * 2], column * 2);
			EXPECT_EQ(chroma[(row * 4 + column) * 2 + 1], row * 2);
		}
	}
	vxReleaseImage(&image);
}

TEST_F(ImagePatch, MapOfSubRectangleStartsAtItsCorner)
{
	vx_image image = makeImage(context, kWidth, kHeight, VX_DF_IMAGE_U16);
	std::vector<vx_uint16> values(kWidth * kHeight);
	for (vx_uint32 i = 0; i < values.size(); i++)
		values[i] = static_cast<vx_uint16>(1000 + i);
	copyPatch(image, rectangle(0, 0, kWidth, kHeight), 0, 2, 2 * kWidth, values.data(),
		VX_WRITE_ONLY);

	Patch patch = mapPatch(image, rectangle(2, 1, 6, 3), 0, VX_READ_ONLY);
	ASSERT_EQ(patch.status, VX_SUCCESS);
	EXPECT_EQ(patch.addr.dim_x, 4u);
	EXPECT_EQ(patch.addr.dim_y, 2u);
	EXPECT_EQ(*reinterpret_cast<vx_uint16 *>(patch.base), values[1 * kWidth + 2]);
	EXPECT_EQ(*reinterpret_cast<vx_uint16 *>(patch.at(3, 1)), values[2 * kWidth + 5]);
	EXPECT_EQ(
		*static_cast<vx_uint16 *>(vxFormatImagePatchAddress1d(patch.base, 5, &patch.addr)),
		values[2 * kWidth + 3]);
	vxUnmapImagePatch(image, patch.id);
	vxReleaseImage(&image);
}

TEST_F(ImagePatch, ReadAndWriteMapChangesTheImage)
{
	vx_image image = makeImage(context, kWidth, kHeight, VX_DF_IMAGE_U8);
	for (int pass = 0; pass < 2; pass++) {
		Patch patch
			= mapPatch(image, rectangle(0, 0, kWidth, kHeight), 0, VX_READ_AND_WRITE);
		ASSERT_EQ(patch.status, VX_SUCCESS);
		for (vx_uint32 i = 0; i < kWidth * kHeight; i++)
			*static_cast<uint8_t *>(
				vxFormatImagePatchAddress1d(patch.base, i, &patch.addr))
				+= i;
		ASSERT_EQ(vxUnmapImagePatch(image, patch.id), VX_SUCCESS);
	}
	std::vector<uint8_t> pixels = readPlane(image, 0, { 1, 1, 1 });
	for (vx_uint32 i = 0; i < pixels.size(); i++)
		EXPECT_EQ(pixels[i], 2 * i);
	vxReleaseImage(&image);
}

struct BadPatch {
	const char *name;
	vx_df_image format;
	bool withRectangle;
	vx_rectangle_t rect;
	vx_uint32 plane;
	vx_enum usage;
	vx_enum memoryType;
};

class ImagePatchRejects : public VxTest, public ::testing::WithParamInterface<BadPatch>
{
};

TEST_P(ImagePatchRejects, MapAndCopyWithInvalidParameters)
{
	const BadPatch &c = GetParam();
	vx_image image = makeImage(context, kWidth, kHeight, c.format);
	const vx_rectangle_t *rect = c.withRectangle ? &c.rect : nullptr;
	vx_map_id id;
	vx_imagepatch_addressing_t addr = VX_IMAGEPATCH_ADDR_INIT;
	void *base = nullptr;
	EXPECT_EQ(
		vxMapImagePatch(image, rect, c.plane, &id, &addr, &base, c.usage, c.memoryType, 0),
		VX_ERROR_INVALID_PARAMETERS);
	std::vector<uint8_t> buffer(kWidth * kHeight * 4);
	addr.dim_x = kWidth;
	addr.dim_y = kHeight;
	addr.stride_x = 4;
	addr.stride_y = 4 * kWidth;
	const vx_enum copyUsage = c.usage == VX_READ_AND_WRITE ? VX_READ_ONLY : c.usage;
	EXPECT_EQ(vxCopyImagePatch(
			  image, rect, c.plane, &addr, buffer.data(), copyUsage, c.memoryType),
		VX_ERROR_INVALID_PARAMETERS);
	vxReleaseImage(&image);
}

INSTANTIATE_TEST_SUITE_P(ImagePatch, ImagePatchRejects,
	::testing::Values(BadPatch{ "NoRectangle", VX_DF_IMAGE_U8, false, {}, 0, VX_READ_ONLY,
				  VX_MEMORY_TYPE_HOST },
		BadPatch{ "EmptyRectangle", VX_DF_IMAGE_U8, true, { 2, 1, 2, 3 }, 0, VX_READ_ONLY,
			VX_MEMORY_TYPE_HOST },
		BadPatch{ "PastTheRightEdge", VX_DF_IMAGE_U8, true, { 0, 0, kWidth + 1, kHeight },
			0, VX_READ_ONLY, VX_MEMORY_TYPE_HOST },
		BadPatch{ "NoSuchPlane", VX_DF_IMAGE_U8, true, { 0, 0, kWidth, kHeight }, 1,
			VX_READ_ONLY, VX_MEMORY_TYPE_HOST },
		BadPatch{ "OddChromaCorner", VX_DF_IMAGE_NV12, true, { 1, 0, kWidth, kHeight }, 1,
			VX_READ_ONLY, VX_MEMORY_TYPE_HOST },
		BadPatch{ "MemoryTypeNone", VX_DF_IMAGE_U8, true, { 0, 0, kWidth, kHeight }, 0,
			VX_READ_ONLY, VX_MEMORY_TYPE_NONE },
		BadPatch{ "UnknownUsage", VX_DF_IMAGE_U8, true, { 0, 0, kWidth, kHeight }, 0, 777,
			VX_MEMORY_TYPE_HOST }),
	[](const ::testing::TestParamInfo<BadPatch> &info) { return info.param.name; });

TEST_F(ImagePatch, CopyMayNotReadAndWrite)
{
	vx_image image = makeImage(context, kWidth, kHeight, VX_DF_IMAGE_U8);
	vx_rectangle_t all = rectangle(0, 0, kWidth, kHeight);
	std::vector<uint8_t> buffer(kWidth * kHeight);
	EXPECT_EQ(copyPatch(image, all, 0, 1, kWidth, buffer.data(), VX_READ_AND_WRITE),
		VX_ERROR_INVALID_PARAMETERS);
	EXPECT_EQ(copyPatch(image, all, 0, 1, kWidth - 1, buffer.data(), VX_READ_ONLY),
		VX_ERROR_INVALID_PARAMETERS);
	EXPECT_EQ(copyPatch(image, all, 0, 0, kWidth, buffer.data(), VX_READ_ONLY),
		VX_ERROR_INVALID_PARAMETERS);
	vxReleaseImage(&image);
}

TEST_F(ImagePatch, UnmapOfUnknownIdIsInvalidParameters)
{
	vx_image image = makeImage(context, kWidth, kHeight, VX_DF_IMAGE_U8);
	EXPECT_EQ(vxUnmapImagePatch(image, 4242), VX_ERROR_INVALID_PARAMETERS);
	vxReleaseImage(&image);
}

TEST_F(ImagePatch, FormatAddressFollowsScaleAndStepsOutsideAreNull)
{
	uint8_t memory[64];
	vx_imagepatch_addressing_t addr = VX_IMAGEPATCH_ADDR_INIT;
	addr.dim_x = 8;
	addr.dim_y = 4;
	addr.stride_x = 2;
	addr.stride_y = 8;
	addr.scale_x = addr.scale_y = VX_SCALE_UNITY / 2;
	addr.step_x = addr.step_y = 2;
	EXPECT_EQ(vxFormatImagePatchAddress2d(memory, 5, 3, &addr), memory + 1 * 8 + 2 * 2);
	EXPECT_EQ(vxFormatImagePatchAddress1d(memory, 3 * 8 + 5, &addr), memory + 1 * 8 + 2 * 2);
	EXPECT_EQ(vxFormatImagePatchAddress2d(memory, 8, 0, &addr), nullptr);
	EXPECT_EQ(vxFormatImagePatchAddress2d(memory, 0, 4, &addr), nullptr);
	EXPECT_EQ(vxFormatImagePatchAddress1d(memory, 32, &addr), nullptr);
	EXPECT_EQ(vxFormatImagePatchAddress2d(nullptr, 0, 0, &addr), nullptr);
}

namespace {

struct UniformCase {
	const char *name;
	vx_df_image format;
	vx_pixel_value_t value;
	/* Per plane: the element of even columns, then of odd columns. */
	std::vector<std::vector<uint8_t>> even;
	std::vector<std::vector<uint8_t>> odd;
	std::vector<PlaneLayout> planes;
};

vx_pixel_value_t yuv(vx_uint8 y, vx_uint8 u, vx_uint8 v)
{
	vx_pixel_value_t value = {};
	value.YUV[0] = y;
	value.YUV[1] = u;
	value.YUV[2] = v;
	return value;
}

vx_pixel_value_t s16(vx_int16 s)
{
	vx_pixel_value_t value = {};
	value.S16 = s;
	return value;
}

vx_pixel_value_t rgbx(vx_uint8 r, vx_uint8 g, vx_uint8 b, vx_uint8 x)
{
	vx_pixel_value_t value = {};
	value.RGBX[0] = r;
	value.RGBX[1] = g;
	value.RGBX[2] = b;
	value.RGBX[3] = x;
	return value;
}

std::vector<uint8_t> bytesOf(vx_int16 value)
{
	std::vector<uint8_t> bytes(sizeof(value));
	memcpy(bytes.data(), &value, sizeof(value));
	return bytes;
}

class UniformFormats : public VxTest, public ::testing::WithParamInterface<UniformCase>
{
};

} /* namespace */

TEST_P(UniformFormats, EveryPixelReadsBackTheValue)
{
	const UniformCase &c = GetParam();
	vx_image image = vxCreateUniformImage(context, kWidth, kHeight, c.format, &c.value);
	ASSERT_EQ(vxGetStatus(ref(image)), VX_SUCCESS);
	EXPECT_EQ(query<vx_bool>(image, VX_IMAGE_IS_UNIFORM), vx_true_e);
	vx_pixel_value_t value = query<vx_pixel_value_t>(image, VX_IMAGE_UNIFORM_VALUE);
	EXPECT_EQ(memcmp(&value, &c.value, sizeof(value)), 0);

	for (vx_uint32 p = 0; p < c.planes.size(); p++) {
		const PlaneLayout &layout = c.planes[p];
		std::vector<uint8_t> bytes = readPlane(image, p, layout);
		const vx_uint32 size = layout.elementSize;
		for (vx_uint32 i = 0; i < bytes.size() / size; i++) {
			const std::vector<uint8_t> &expected = i % 2 ? c.odd[p] : c.even[p];
			EXPECT_EQ(std::vector<uint8_t>(
					  bytes.begin() + i * size, bytes.begin() + (i + 1) * size),
				expected)
				<< "plane " << p << " element " << i;
		}
	}
	vxReleaseImage(&image);
}

INSTANTIATE_TEST_SUITE_P(UniformImage, UniformFormats,
	::testing::Values(UniformCase{ "S16", VX_DF_IMAGE_S16, s16(-1234), { bytesOf(-1234) },
				  { bytesOf(-1234) }, { { 2, 1, 1 } } },
		UniformCase{ "RGBX", VX_DF_IMAGE_RGBX, rgbx(1, 2, 3, 4), { { 1, 2, 3, 4 } },
			{ { 1, 2, 3, 4 } }, { { 4, 1, 1 } } },
		UniformCase{ "NV12", VX_DF_IMAGE_NV12, yuv(16, 128, 240), { { 16 }, { 128, 240 } },
			{ { 16 }, { 128, 240 } }, { { 1, 1, 1 }, { 2, 2, 2 } } },
		UniformCase{ "NV21", VX_DF_IMAGE_NV21, yuv(16, 128, 240), { { 16 }, { 240, 128 } },
			{ { 16 }, { 240, 128 } }, { { 1, 1, 1 }, { 2, 2, 2 } } },
		UniformCase{ "IYUV", VX_DF_IMAGE_IYUV, yuv(16, 128, 240),
			{ { 16 }, { 128 }, { 240 } }, { { 16 }, { 128 }, { 240 } },
			{ { 1, 1, 1 }, { 1, 2, 2 }, { 1, 2, 2 } } },
		UniformCase{ "UYVY", VX_DF_IMAGE_UYVY, yuv(16, 128, 240), { { 128, 16 } },
			{ { 240, 16 } }, { { 2, 1, 1 } } },
		UniformCase{ "YUYV", VX_DF_IMAGE_YUYV, yuv(16, 128, 240), { { 16, 128 } },
			{ { 16, 240 } }, { { 2, 1, 1 } } }),
	[](const ::testing::TestParamInfo<UniformCase> &info) { return info.param.name; });

TEST_F(UniformImage, RefusesWriting)
{
	vx_pixel_value_t value = {};
	value.U8 = 7;
	vx_image image = vxCreateUniformImage(context, kWidth, kHeight, VX_DF_IMAGE_U8, &value);
	vx_rectangle_t all = rectangle(0, 0, kWidth, kHeight);
	EXPECT_EQ(mapPatch(image, all, 0, VX_WRITE_ONLY).status, VX_ERROR_NOT_SUPPORTED);
	EXPECT_EQ(mapPatch(image, all, 0, VX_READ_AND_WRITE).status, VX_ERROR_NOT_SUPPORTED);
	std::vector<uint8_t> pixels(kWidth * kHeight, 1);
	EXPECT_EQ(copyPatch(image, all, 0, 1, kWidth, pixels.data(), VX_WRITE_ONLY),
		VX_ERROR_NOT_SUPPORTED);
	EXPECT_EQ(readPlane(image, 0, { 1, 1, 1 }), std::vector<uint8_t>(kWidth * kHeight, 7));
	vxReleaseImage(&image);
}

TEST_F(UniformImage, WithoutValueIsInvalidParameters)
{
	EXPECT_EQ(vxGetStatus(ref(
			  vxCreateUniformImage(context, kWidth, kHeight, VX_DF_IMAGE_U8, nullptr))),
		VX_ERROR_INVALID_PARAMETERS);
}

namespace {

/* A U8 image over application memory whose rows and pixels are padded. */
struct PaddedMemory {
	static constexpr vx_int32 strideX = 2;
	static constexpr vx_int32 strideY = kWidth * strideX + 4;
	std::vector<uint8_t> bytes = std::vector<uint8_t>(strideY * kHeight, 0);

	uint8_t &at(vx_uint32 x, vx_uint32 y) { return bytes[y * strideY + x * strideX]; }
	vx_imagepatch_addressing_t addressing() const
	{
		vx_imagepatch_addressing_t addr = VX_IMAGEPATCH_ADDR_INIT;
		addr.dim_x = kWidth;
		addr.dim_y = kHeight;
		addr.stride_x = strideX;
		addr.stride_y = strideY;
		return addr;
	}
	vx_image import(vx_context context)
	{
		vx_imagepatch_addressing_t addr = addressing();
		void *ptrs[] = { bytes.data() };
		vx_image image = vxCreateImageFromHandle(
			context, VX_DF_IMAGE_U8, &addr, ptrs, VX_MEMORY_TYPE_HOST);
		EXPECT_EQ(vxGetStatus(ref(image)), VX_SUCCESS);
		return image;
	}
};

} /* namespace */

TEST_F(ImageFromHandle, UsesTheApplicationsMemory)
{
	PaddedMemory memory;
	memory.at(3, 2) = 99;
	vx_image image = memory.import(context);
	EXPECT_EQ(query<vx_enum>(image, VX_IMAGE_MEMORY_TYPE), VX_MEMORY_TYPE_HOST);
	EXPECT_EQ(readPlane(image, 0, { 1, 1, 1 })[2 * kWidth + 3], 99);

	Patch patch = mapPatch(image, rectangle(0, 0, kWidth, kHeight), 0, VX_WRITE_ONLY);
	ASSERT_EQ(patch.status, VX_SUCCESS);
	EXPECT_EQ(patch.base, memory.bytes.data());
	EXPECT_EQ(patch.addr.stride_x, PaddedMemory::strideX);
	EXPECT_EQ(patch.addr.stride_y, PaddedMemory::strideY);
	*patch.at(5, 1) = 42;
	vxUnmapImagePatch(image, patch.id);
	EXPECT_EQ(memory.at(5, 1), 42);
	vxReleaseImage(&image);
}

TEST_F(ImageFromHandle, NoGapMapPacksPaddedMemoryAndWritesBack)
{
	PaddedMemory memory;
	memory.at(1, 0) = 5;
	vx_image image = memory.import(context);
	Patch patch = mapPatch(image, rectangle(0, 0, 4, 2), 0, VX_READ_AND_WRITE, VX_NOGAP_X);
	ASSERT_EQ(patch.status, VX_SUCCESS);
	EXPECT_EQ(patch.addr.stride_x, 1);
	EXPECT_EQ(patch.addr.stride_y, 4);
	EXPECT_EQ(*patch.at(1, 0), 5);
	*patch.at(3, 1) = 77;
	EXPECT_EQ(memory.at(3, 1), 0) << "written back only on unmap";
	ASSERT_EQ(vxUnmapImagePatch(image, patch.id), VX_SUCCESS);
	EXPECT_EQ(memory.at(3, 1), 77);
	EXPECT_EQ(memory.at(1, 0), 5);
	vxReleaseImage(&image);
}

TEST_F(ImageFromHandle, Nv12PlanesComeFromTheirOwnBuffers)
{
	std::vector<uint8_t> luma(kWidth * kHeight, 1), chroma(kWidth * kHeight / 2, 2);
	chroma[2 * 1 + 1] = 200;
	vx_imagepatch_addressing_t addrs[2] = { VX_IMAGEPATCH_ADDR_INIT, VX_IMAGEPATCH_ADDR_INIT };
	addrs[0].dim_x = kWidth;
	addrs[0].dim_y = kHeight;
	addrs[0].stride_x = 1;
	addrs[0].stride_y = kWidth;
	addrs[1].dim_x = kWidth / 2;
	addrs[1].dim_y = kHeight / 2;
	addrs[1].stride_x = 2;
	addrs[1].stride_y = kWidth;
	void *ptrs[] = { luma.data(), chroma.data() };
	vx_image image = vxCreateImageFromHandle(
		context, VX_DF_IMAGE_NV12, addrs, ptrs, VX_MEMORY_TYPE_HOST);
	ASSERT_EQ(vxGetStatus(ref(image)), VX_SUCCESS);
	EXPECT_EQ(readPlane(image, 0, { 1, 1, 1 }), luma);
	EXPECT_EQ(readPlane(image, 1, { 2, 2, 2 }), chroma);
	vxReleaseImage(&image);
}

TEST_F(ImageFromHandle, SwapReturnsThePreviousMemoryAndUsesTheNew)
{
	PaddedMemory first, second;
	first.at(0, 0) = 1;
	second.at(0, 0) = 2;
	vx_image image = first.import(context);
	void *next[] = { second.bytes.data() };
	void *previous[] = { nullptr };
	ASSERT_EQ(vxSwapImageHandle(image, next, previous, 1), VX_SUCCESS);
	EXPECT_EQ(previous[0], first.bytes.data());
	EXPECT_EQ(readPlane(image, 0, { 1, 1, 1 })[0], 2);
	vxReleaseImage(&image);
}

TEST_F(ImageFromHandle, SwappedOutImageHasNoMemoryUntilSwappedIn)
{
	PaddedMemory memory;
	vx_image image = memory.import(context);
	void *previous[] = { nullptr };
	ASSERT_EQ(vxSwapImageHandle(image, nullptr, previous, 1), VX_SUCCESS);
	EXPECT_EQ(previous[0], memory.bytes.data());
	vx_rectangle_t all = rectangle(0, 0, kWidth, kHeight);
	EXPECT_EQ(mapPatch(image, all, 0, VX_READ_ONLY).status, VX_ERROR_NO_MEMORY);
	ASSERT_EQ(vxSwapImageHandle(image, previous, nullptr, 1), VX_SUCCESS);
	Patch patch = mapPatch(image, all, 0, VX_READ_ONLY);
	EXPECT_EQ(patch.status, VX_SUCCESS);
	vxUnmapImagePatch(image, patch.id);
	vxReleaseImage(&image);
}

TEST_F(ImageFromHandle, SwapWhileMappedFails)
{
	PaddedMemory memory;
	vx_image image = memory.import(context);
	Patch patch = mapPatch(image, rectangle(0, 0, kWidth, kHeight), 0, VX_READ_ONLY);
	ASSERT_EQ(patch.status, VX_SUCCESS);
	EXPECT_EQ(vxSwapImageHandle(image, nullptr, nullptr, 1), VX_FAILURE);
	vxUnmapImagePatch(image, patch.id);
	vxReleaseImage(&image);
}

TEST_F(ImageFromHandle, SwapRejectsOtherImagesAndPlaneCounts)
{
	PaddedMemory memory;
	vx_image imported = memory.import(context);
	vx_image own = makeImage(context, kWidth, kHeight, VX_DF_IMAGE_U8);
	void *ptrs[] = { memory.bytes.data(), memory.bytes.data() };
	void *none[] = { nullptr };
	EXPECT_EQ(vxSwapImageHandle(own, ptrs, nullptr, 1), VX_ERROR_INVALID_PARAMETERS);
	EXPECT_EQ(vxSwapImageHandle(imported, ptrs, nullptr, 2), VX_ERROR_INVALID_PARAMETERS);
	EXPECT_EQ(vxSwapImageHandle(imported, none, nullptr, 1), VX_ERROR_INVALID_PARAMETERS);
	EXPECT_EQ(vxSwapImageHandle(nullptr, ptrs, nullptr, 1), VX_ERROR_INVALID_REFERENCE);
	vxReleaseImage(&imported);
	vxReleaseImage(&own);
}

TEST_F(ImageFromHandle, RejectsMemoryItCannotUse)
{
	PaddedMemory memory;
	vx_imagepatch_addressing_t addr = memory.addressing();
	void *ptrs[] = { memory.bytes.data() };
	void *none[] = { nullptr };
	auto status = [&](vx_imagepatch_addressing_t a, void *const p[], vx_enum type) {
		return vxGetStatus(
			ref(vxCreateImageFromHandle(context, VX_DF_IMAGE_U8, &a, p, type)));
	};
	EXPECT_EQ(status(addr, ptrs, VX_MEMORY_TYPE_NONE), VX_ERROR_INVALID_PARAMETERS);
	EXPECT_EQ(status(addr, none, VX_MEMORY_TYPE_HOST), VX_ERROR_INVALID_PARAMETERS);
	vx_imagepatch_addressing_t overlapping = addr;
	overlapping.stride_y = addr.stride_x * kWidth - 1;
	EXPECT_EQ(status(overlapping, ptrs, VX_MEMORY_TYPE_HOST), VX_ERROR_INVALID_PARAMETERS);
	vx_imagepatch_addressing_t empty = addr;
	empty.dim_x = 0;
	EXPECT_EQ(status(empty, ptrs, VX_MEMORY_TYPE_HOST), VX_ERROR_INVALID_DIMENSION);
}

TEST_F(VirtualImage, IsOpenUntilVerificationCompletesIt)
{
	vx_graph graph = vxCreateGraph(context);
	vx_image image = vxCreateVirtualImage(graph, 0, 0, VX_DF_IMAGE_VIRT);
	ASSERT_EQ(vxGetStatus(ref(image)), VX_SUCCESS);
	EXPECT_EQ(query<vx_uint32>(image, VX_IMAGE_WIDTH), 0u);
	EXPECT_EQ(query<vx_df_image>(image, VX_IMAGE_FORMAT), VX_DF_IMAGE_VIRT);
	EXPECT_EQ(query<vx_size>(image, VX_IMAGE_PLANES), 0u);
	vxReleaseImage(&image);
	vxReleaseGraph(&graph);
}

TEST_F(VirtualImage, MapOrCopyOutsideItsRunningGraphIsOptimizedAway)
{
	vx_graph graph = vxCreateGraph(context);
	vx_image image = vxCreateVirtualImage(graph, kWidth, kHeight, VX_DF_IMAGE_U8);
	vx_rectangle_t all = rectangle(0, 0, kWidth, kHeight);
	EXPECT_EQ(mapPatch(image, all, 0, VX_READ_ONLY).status, VX_ERROR_OPTIMIZED_AWAY);
	std::vector<uint8_t> pixels(kWidth * kHeight);
	EXPECT_EQ(copyPatch(image, all, 0, 1, kWidth, pixels.data(), VX_READ_ONLY),
		VX_ERROR_OPTIMIZED_AWAY);
	vxReleaseImage(&image);
	vxReleaseGraph(&graph);
}

TEST_F(VirtualImage, RejectsUnknownFormatAndOddChromaSize)
{
	vx_graph graph = vxCreateGraph(context);
	EXPECT_EQ(vxGetStatus(
			  ref(vxCreateVirtualImage(graph, 0, 0, VX_DF_IMAGE('B', 'A', 'D', '!')))),
		VX_ERROR_INVALID_FORMAT);
	EXPECT_EQ(vxGetStatus(ref(vxCreateVirtualImage(graph, 7, 0, VX_DF_IMAGE_NV12))),
		VX_ERROR_INVALID_DIMENSION);
	vxReleaseGraph(&graph);
}

TEST_F(ValidRegion, NewImageIsValidEverywhere)
{
	vx_image image = makeImage(context, kWidth, kHeight, VX_DF_IMAGE_U8);
	EXPECT_EQ(validRegion(image), rectangle(0, 0, kWidth, kHeight));
	vxReleaseImage(&image);
}

TEST_F(ValidRegion, SetIsReadBackAndNullResetsToTheWholeImage)
{
	vx_image image = makeImage(context, kWidth, kHeight, VX_DF_IMAGE_U8);
	vx_rectangle_t inner = rectangle(1, 1, 5, 3);
	ASSERT_EQ(vxSetImageValidRectangle(image, &inner), VX_SUCCESS);
	EXPECT_EQ(validRegion(image), inner);
	ASSERT_EQ(vxSetImageValidRectangle(image, nullptr), VX_SUCCESS);
	EXPECT_EQ(validRegion(image), rectangle(0, 0, kWidth, kHeight));
	vxReleaseImage(&image);
}

TEST_F(ValidRegion, RectangleOutsideTheImageIsInvalidParameters)
{
	vx_image image = makeImage(context, kWidth, kHeight, VX_DF_IMAGE_U8);
	vx_rectangle_t wide = rectangle(0, 0, kWidth + 1, kHeight);
	vx_rectangle_t inverted = rectangle(4, 0, 3, kHeight);
	EXPECT_EQ(vxSetImageValidRectangle(image, &wide), VX_ERROR_INVALID_PARAMETERS);
	EXPECT_EQ(vxSetImageValidRectangle(image, &inverted), VX_ERROR_INVALID_PARAMETERS);
	EXPECT_EQ(vxGetValidRegionImage(image, nullptr), VX_ERROR_INVALID_PARAMETERS);
	EXPECT_EQ(validRegion(image), rectangle(0, 0, kWidth, kHeight));
	vxReleaseImage(&image);
}

TEST_F(ImageReferences, ContextCountsEachImageExactly)
{
	const vx_uint32 before = references();
	vx_graph graph = vxCreateGraph(context);
	vx_pixel_value_t value = {};
	PaddedMemory memory;
	vx_image images[] = {
		makeImage(context, kWidth, kHeight, VX_DF_IMAGE_RGB),
		vxCreateUniformImage(context, kWidth, kHeight, VX_DF_IMAGE_U8, &value),
		memory.import(context),
		vxCreateVirtualImage(graph, 0, 0, VX_DF_IMAGE_VIRT),
	};
	EXPECT_EQ(references(), before + 5);
	for (vx_image &image : images) {
		vx_uint32 count = 0;
		vxQueryReference(ref(image), VX_REFERENCE_COUNT, &count, sizeof(count));
		EXPECT_EQ(count, 1u);
		EXPECT_EQ(vxReleaseImage(&image), VX_SUCCESS);
		EXPECT_EQ(image, nullptr);
	}
	EXPECT_EQ(references(), before + 1);
	vxReleaseGraph(&graph);
	EXPECT_EQ(references(), before);
}

namespace {

/* What the image kernel's callbacks do and saw. */
struct ImageProbe {
	bool describeOutput = true;
	bool fromReference = false;
	vx_df_image outputFormat = VX_DF_IMAGE_U8;
	bool setCallback = true;
	vx_uint32 inputImages = 1;
	vx_status callbackStatus = VX_SUCCESS;
	bool callbackOutsideImage = false;
	bool callForbidden = false;
	vx_status getStatus = VX_SUCCESS;
	vx_status setStatus = VX_SUCCESS;
	vx_uint32 callbacks = 0;
	vx_status attributeStatus = VX_SUCCESS;
	std::function<vx_status(vx_meta_format)> onMeta;
};

ImageProbe &imageProbe()
{
	static ImageProbe instance;
	return instance;
}

vx_status VX_CALLBACK shrinkRectangle(vx_node node, vx_uint32 index,
	const vx_rectangle_t *const input_valid[], vx_rectangle_t *const output_valid[])
{
	ImageProbe &p = imageProbe();
	p.callbacks++;
	if (p.callForbidden) {
		vx_parameter parameter = vxGetParameterByIndex(node, index);
		vx_image image = nullptr;
		vxQueryParameter(parameter, VX_PARAMETER_REF, &image, sizeof(image));
		vx_rectangle_t rect;
		p.getStatus = vxGetValidRegionImage(image, &rect);
		p.setStatus = vxSetImageValidRectangle(image, nullptr);
		vxReleaseImage(&image);
		vxReleaseParameter(&parameter);
	}
	if (p.callbackStatus != VX_SUCCESS)
		return p.callbackStatus;

	vx_rectangle_t rect = *input_valid[0];
	for (vx_uint32 i = 1; i < p.inputImages; i++) {
		rect.start_x = std::max(rect.start_x, input_valid[i]->start_x);
		rect.start_y = std::max(rect.start_y, input_valid[i]->start_y);
		rect.end_x = std::min(rect.end_x, input_valid[i]->end_x);
		rect.end_y = std::min(rect.end_y, input_valid[i]->end_y);
	}
	*output_valid[0] = rectangle(rect.start_x + 1, rect.start_y + 1, rect.end_x - 1,
		p.callbackOutsideImage ? 1000 : rect.end_y - 1);
	return VX_SUCCESS;
}

vx_status VX_CALLBACK validateShrink(
	vx_node, const vx_reference parameters[], vx_uint32, vx_meta_format metas[])
{
	ImageProbe &p = imageProbe();
	if (p.onMeta)
		return p.onMeta(metas[1]);
	if (!p.describeOutput)
		return VX_SUCCESS;
	auto in = reinterpret_cast<vx_image>(parameters[0]);
	vx_status status;
	if (p.fromReference) {
		status = vxSetMetaFormatFromReference(metas[1], parameters[0]);
	} else {
		vx_uint32 width = query<vx_uint32>(in, VX_IMAGE_WIDTH);
		vx_uint32 height = query<vx_uint32>(in, VX_IMAGE_HEIGHT);
		status = vxSetMetaFormatAttribute(metas[1], VX_IMAGE_WIDTH, &width, sizeof(width));
		if (status == VX_SUCCESS)
			status = vxSetMetaFormatAttribute(
				metas[1], VX_IMAGE_HEIGHT, &height, sizeof(height));
		if (status == VX_SUCCESS)
			status = vxSetMetaFormatAttribute(
				metas[1], VX_IMAGE_FORMAT, &p.outputFormat, sizeof(p.outputFormat));
	}
	if (status == VX_SUCCESS && p.setCallback) {
		vx_kernel_image_valid_rectangle_f callback = shrinkRectangle;
		status = vxSetMetaFormatAttribute(
			metas[1], VX_VALID_RECT_CALLBACK, &callback, sizeof(callback));
	}
	return status;
}

/* out = in + 1, pixel by pixel (U8). */
vx_status VX_CALLBACK runShrink(vx_node, const vx_reference *parameters, vx_uint32)
{
	auto in = reinterpret_cast<vx_image>(parameters[0]);
	auto out = reinterpret_cast<vx_image>(parameters[1]);
	vx_rectangle_t all = rectangle(
		0, 0, query<vx_uint32>(in, VX_IMAGE_WIDTH), query<vx_uint32>(in, VX_IMAGE_HEIGHT));
	Patch src = mapPatch(in, all, 0, VX_READ_ONLY);
	if (src.status != VX_SUCCESS)
		return src.status;
	Patch dst = mapPatch(out, all, 0, VX_WRITE_ONLY);
	if (dst.status != VX_SUCCESS) {
		vxUnmapImagePatch(in, src.id);
		return dst.status;
	}
	for (vx_uint32 y = 0; y < all.end_y; y++) {
		for (vx_uint32 x = 0; x < all.end_x; x++)
			*dst.at(x, y) = *src.at(x, y) + 1;
	}
	vxUnmapImagePatch(out, dst.id);
	return vxUnmapImagePatch(in, src.id);
}

constexpr vx_uint32 kGraphWidth = 16;
constexpr vx_uint32 kGraphHeight = 12;

/*
 * "vdla.test.image_shrink": image in, image out, optional second image in.
 * chain() builds in -> node -> virtual -> second -> out; single() builds
 * in (+ side) -> node -> out.
 */
class ImageGraph : public VxTest
{
protected:
	void SetUp() override
	{
		VxTest::SetUp();
		imageProbe() = ImageProbe{};
		kernel = vxAddUserKernel(context, "vdla.test.image_shrink",
			VX_KERNEL_BASE(VX_ID_USER, 0) + 1, runShrink, 3, validateShrink, nullptr,
			nullptr);
		ASSERT_EQ(vxGetStatus(ref(kernel)), VX_SUCCESS);
		vxAddParameterToKernel(
			kernel, 0, VX_INPUT, VX_TYPE_IMAGE, VX_PARAMETER_STATE_REQUIRED);
		vxAddParameterToKernel(
			kernel, 1, VX_OUTPUT, VX_TYPE_IMAGE, VX_PARAMETER_STATE_REQUIRED);
		vxAddParameterToKernel(
			kernel, 2, VX_INPUT, VX_TYPE_IMAGE, VX_PARAMETER_STATE_OPTIONAL);
		ASSERT_EQ(vxFinalizeKernel(kernel), VX_SUCCESS);
		graph = vxCreateGraph(context);
		in = makeImage(context, kGraphWidth, kGraphHeight, VX_DF_IMAGE_U8);
	}
	void TearDown() override
	{
		for (vx_node *n : { &node, &second })
			vxReleaseNode(n);
		for (vx_image *image : { &in, &middle, &out, &side })
			vxReleaseImage(image);
		vxReleaseGraph(&graph);
		vxReleaseKernel(&kernel);
		VxTest::TearDown();
	}
	vx_node shrinkNode(vx_image input, vx_image output)
	{
		vx_node n = vxCreateGenericNode(graph, kernel);
		EXPECT_EQ(vxSetParameterByIndex(n, 0, ref(input)), VX_SUCCESS);
		EXPECT_EQ(vxSetParameterByIndex(n, 1, ref(output)), VX_SUCCESS);
		return n;
	}
	void chain()
	{
		middle = vxCreateVirtualImage(graph, 0, 0, VX_DF_IMAGE_VIRT);
		out = makeImage(context, kGraphWidth, kGraphHeight, VX_DF_IMAGE_U8);
		node = shrinkNode(in, middle);
		second = shrinkNode(middle, out);
	}
	void single(vx_uint32 width = kGraphWidth, vx_df_image format = VX_DF_IMAGE_U8)
	{
		out = makeImage(context, width, kGraphHeight, format);
		node = shrinkNode(in, out);
	}

	vx_kernel kernel = nullptr;
	vx_graph graph = nullptr;
	vx_node node = nullptr, second = nullptr;
	vx_image in = nullptr, middle = nullptr, out = nullptr, side = nullptr;
};

using ImageMeta = ImageGraph;
using ValidRectangle = ImageGraph;
using ImageReverify = ImageGraph;

} /* namespace */

TEST_F(ImageMeta, VirtualImageOutputIsCreatedFromMetaFormat)
{
	chain();
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_EQ(query<vx_uint32>(middle, VX_IMAGE_WIDTH), kGraphWidth);
	EXPECT_EQ(query<vx_uint32>(middle, VX_IMAGE_HEIGHT), kGraphHeight);
	EXPECT_EQ(query<vx_df_image>(middle, VX_IMAGE_FORMAT), VX_DF_IMAGE_U8);
	EXPECT_EQ(query<vx_size>(middle, VX_IMAGE_PLANES), 1u);
}

TEST_F(ImageMeta, SetFromReferenceDescribesTheSameImage)
{
	imageProbe().fromReference = true;
	chain();
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_EQ(query<vx_uint32>(middle, VX_IMAGE_WIDTH), kGraphWidth);
	EXPECT_EQ(query<vx_df_image>(middle, VX_IMAGE_FORMAT), VX_DF_IMAGE_U8);
}

TEST_F(ImageMeta, KernelsReachTheVirtualImageWhileTheGraphRuns)
{
	chain();
	std::vector<uint8_t> pixels = pattern(kGraphWidth * kGraphHeight, 3);
	copyPatch(in, rectangle(0, 0, kGraphWidth, kGraphHeight), 0, 1, kGraphWidth, pixels.data(),
		VX_WRITE_ONLY);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	std::vector<uint8_t> result = readPlane(out, 0, { 1, 1, 1 });
	for (vx_size i = 0; i < pixels.size(); i++)
		ASSERT_EQ(result[i], uint8_t(pixels[i] + 2)) << i;
}

TEST_F(ImageMeta, RealOutputOfOtherSizeIsInvalidDimension)
{
	single(kGraphWidth + 2);
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_DIMENSION);
}

TEST_F(ImageMeta, RealOutputOfOtherFormatIsInvalidFormat)
{
	single(kGraphWidth, VX_DF_IMAGE_S16);
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_FORMAT);
}

TEST_F(ImageMeta, VirtualImageTheValidatorLeavesOpenFailsVerification)
{
	imageProbe().describeOutput = false;
	chain();
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_FORMAT);
}

TEST_F(ImageMeta, VirtualImageWithoutProducerIsInvalidGraph)
{
	middle = vxCreateVirtualImage(graph, 0, 0, VX_DF_IMAGE_VIRT);
	out = makeImage(context, kGraphWidth, kGraphHeight, VX_DF_IMAGE_U8);
	node = shrinkNode(middle, out);
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_GRAPH);
}

TEST_F(ImageMeta, VirtualImageOfAnotherGraphIsInvalidScope)
{
	vx_graph other = vxCreateGraph(context);
	middle = vxCreateVirtualImage(other, 0, 0, VX_DF_IMAGE_VIRT);
	node = shrinkNode(in, middle);
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_SCOPE);
	vxReleaseGraph(&other);
}

TEST_F(ImageMeta, QueryReadsBackImageAttributes)
{
	vx_uint32 width = 0;
	vx_df_image format = 0;
	imageProbe().onMeta = [&](vx_meta_format meta) {
		vx_uint32 w = kGraphWidth, h = kGraphHeight;
		vx_df_image f = VX_DF_IMAGE_U8;
		vxSetMetaFormatAttribute(meta, VX_IMAGE_WIDTH, &w, sizeof(w));
		vxSetMetaFormatAttribute(meta, VX_IMAGE_HEIGHT, &h, sizeof(h));
		vxSetMetaFormatAttribute(meta, VX_IMAGE_FORMAT, &f, sizeof(f));
		vxQueryMetaFormatAttribute(meta, VX_IMAGE_WIDTH, &width, sizeof(width));
		return vxQueryMetaFormatAttribute(meta, VX_IMAGE_FORMAT, &format, sizeof(format));
	};
	single();
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_EQ(width, kGraphWidth);
	EXPECT_EQ(format, VX_DF_IMAGE_U8);
}

struct ImageMetaCase {
	const char *name;
	vx_enum attribute;
	vx_size size;
	vx_status expected;
};

class ImageMetaAttribute : public ImageGraph, public ::testing::WithParamInterface<ImageMetaCase>
{
};

TEST_P(ImageMetaAttribute, SetOnImageOutput)
{
	const ImageMetaCase &c = GetParam();
	vx_status seen = VX_FAILURE;
	imageProbe().onMeta = [&](vx_meta_format meta) {
		vx_uint32 value[2] = { VX_DF_IMAGE_U8, 0 };
		seen = vxSetMetaFormatAttribute(meta, c.attribute, value, c.size);
		return vxSetMetaFormatFromReference(meta, ref(in));
	};
	single();
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_EQ(seen, c.expected);
}

INSTANTIATE_TEST_SUITE_P(ImageMeta, ImageMetaAttribute,
	::testing::Values(
		ImageMetaCase{ "Format", VX_IMAGE_FORMAT, sizeof(vx_df_image), VX_SUCCESS },
		ImageMetaCase{ "WrongSize", VX_IMAGE_WIDTH, sizeof(vx_uint16),
			VX_ERROR_INVALID_PARAMETERS },
		ImageMetaCase{ "TensorAttribute", VX_TENSOR_DATA_TYPE, sizeof(vx_enum),
			VX_ERROR_INVALID_TYPE },
		ImageMetaCase{
			"Planes", VX_IMAGE_PLANES, sizeof(vx_size), VX_ERROR_NOT_SUPPORTED }),
	[](const ::testing::TestParamInfo<ImageMetaCase> &info) { return info.param.name; });

TEST_F(ValidRectangle, CallbackComputesOutputRect)
{
	chain();
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(validRegion(middle), rectangle(1, 1, kGraphWidth - 1, kGraphHeight - 1));
	EXPECT_EQ(validRegion(out), rectangle(2, 2, kGraphWidth - 2, kGraphHeight - 2));
	EXPECT_EQ(validRegion(in), rectangle(0, 0, kGraphWidth, kGraphHeight));
}

TEST_F(ValidRectangle, CallbackStartsFromTheInputsValidRectangles)
{
	vx_rectangle_t inner = rectangle(4, 2, 12, 10);
	ASSERT_EQ(vxSetImageValidRectangle(in, &inner), VX_SUCCESS);
	chain();
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_EQ(validRegion(out), rectangle(6, 4, 10, 8));
}

TEST_F(ValidRectangle, CallbackGetsOneEntryPerInputImageInParameterOrder)
{
	imageProbe().inputImages = 2;
	side = makeImage(context, kGraphWidth, kGraphHeight, VX_DF_IMAGE_U8);
	vx_rectangle_t left = rectangle(0, 3, 8, kGraphHeight);
	vxSetImageValidRectangle(side, &left);
	single();
	vxSetParameterByIndex(node, 2, ref(side));
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_EQ(validRegion(out), rectangle(1, 4, 7, kGraphHeight - 1));
}

TEST_F(ValidRectangle, OutputWithoutCallbackIsValidEverywhere)
{
	imageProbe().setCallback = false;
	single();
	vx_rectangle_t stale = rectangle(3, 3, 5, 5);
	vxSetImageValidRectangle(out, &stale);
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_EQ(validRegion(out), rectangle(0, 0, kGraphWidth, kGraphHeight));
	EXPECT_EQ(imageProbe().callbacks, 0u);
}

TEST_F(ValidRectangle, CallbackMayNotGetOrSetValidRegion)
{
	imageProbe().callForbidden = true;
	single();
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_EQ(imageProbe().getStatus, VX_ERROR_NOT_SUPPORTED);
	EXPECT_EQ(imageProbe().setStatus, VX_ERROR_NOT_SUPPORTED);
	EXPECT_EQ(validRegion(out), rectangle(1, 1, kGraphWidth - 1, kGraphHeight - 1));
	EXPECT_EQ(vxSetImageValidRectangle(out, nullptr), VX_SUCCESS) << "allowed again after";
}

TEST_F(ValidRectangle, FailingCallbackFailsVerification)
{
	imageProbe().callbackStatus = VX_ERROR_INVALID_VALUE;
	single();
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_VALUE);
	EXPECT_EQ(vxIsGraphVerified(graph), vx_false_e);
}

TEST_F(ValidRectangle, RectangleOutsideTheOutputFailsVerification)
{
	imageProbe().callbackOutsideImage = true;
	single();
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_PARAMETERS);
}

TEST_F(ValidRectangle, IsComputedAtEachVerification)
{
	chain();
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	const vx_uint32 callbacks = imageProbe().callbacks;
	EXPECT_EQ(callbacks, 2u);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(imageProbe().callbacks, callbacks) << "executing calls no callback";

	vx_rectangle_t inner = rectangle(2, 2, 14, 10);
	vxSetImageValidRectangle(in, &inner);
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_EQ(validRegion(out), rectangle(4, 4, 12, 8));
}

TEST_F(ImageReverify, RebindingAnImageOfOtherSizeOrFormatUnverifies)
{
	single();
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	vx_image same = makeImage(context, kGraphWidth, kGraphHeight, VX_DF_IMAGE_U8);
	vx_image narrower = makeImage(context, kGraphWidth - 2, kGraphHeight, VX_DF_IMAGE_U8);
	vx_image wider = makeImage(context, kGraphWidth, kGraphHeight, VX_DF_IMAGE_U16);
	ASSERT_EQ(vxSetParameterByIndex(node, 1, ref(same)), VX_SUCCESS);
	EXPECT_EQ(vxIsGraphVerified(graph), vx_true_e);
	ASSERT_EQ(vxSetParameterByIndex(node, 0, ref(narrower)), VX_SUCCESS);
	EXPECT_EQ(vxIsGraphVerified(graph), vx_false_e);
	ASSERT_EQ(vxSetParameterByIndex(node, 0, ref(in)), VX_SUCCESS);
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	ASSERT_EQ(vxSetParameterByIndex(node, 0, ref(wider)), VX_SUCCESS);
	EXPECT_EQ(vxIsGraphVerified(graph), vx_false_e);
	for (vx_image *image : { &same, &narrower, &wider })
		vxReleaseImage(image);
}

TEST_F(ImageGraph, KeepsImagesTheApplicationReleasedAliveUntilReleased)
{
	const vx_uint32 before = references();
	chain();
	EXPECT_EQ(references(), before + 4);
	for (vx_node *n : { &node, &second })
		vxReleaseNode(n);
	for (vx_image *image : { &in, &middle, &out })
		vxReleaseImage(image);
	EXPECT_EQ(references(), before + 4);
	EXPECT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	vxReleaseGraph(&graph);
	EXPECT_EQ(references(), before - 2) << "the graph and every image are gone";
}
