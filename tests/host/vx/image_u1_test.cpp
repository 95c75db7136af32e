/* SPDX-License-Identifier: MIT */
/*
 * VX_DF_IMAGE_U1: one bit per pixel, eight pixels to a byte with the leftmost
 * in bit 0, rows starting on byte boundaries, stride_x 0 and stride_x_bits 1,
 * patches and sub-images starting at multiples of eight pixels (OpenVX 1.3.1,
 * vx_imagepatch_addressing_t). The reference is a plain array of pixels
 * packed by that rule here, independent of the runtime's layout code.
 */
#include "vx_test.h"

#include <cstring>

using ImageU1 = VxTest;

namespace {

/* Pixels of a U1 image as booleans, and their packing by the rule above. */
struct Bits {
	vx_uint32 width;
	vx_uint32 height;
	std::vector<bool> pixels;

	Bits(vx_uint32 w, vx_uint32 h) : width(w), height(h), pixels(vx_size(w) * h) { }

	static Bits pattern(vx_uint32 w, vx_uint32 h, vx_uint32 seed)
	{
		Bits bits(w, h);
		for (vx_uint32 i = 0; i < w * h; i++)
			bits.pixels[i] = ((i * 2654435761u + seed) >> 7) & 1;
		return bits;
	}

	bool at(vx_uint32 x, vx_uint32 y) const { return pixels[vx_size(y) * width + x]; }
	void set(vx_uint32 x, vx_uint32 y, bool v) { pixels[vx_size(y) * width + x] = v; }

	/* Packed rows of @stride bytes; bits after the last pixel are 0. */
	std::vector<uint8_t> pack(vx_uint32 stride) const
	{
		std::vector<uint8_t> bytes(vx_size(stride) * height, 0);
		for (vx_uint32 y = 0; y < height; y++) {
			for (vx_uint32 x = 0; x < width; x++) {
				if (at(x, y))
					bytes[vx_size(y) * stride + x / 8]
						|= uint8_t(1u << (x % 8));
			}
		}
		return bytes;
	}

	static Bits unpack(const uint8_t *bytes, vx_uint32 stride, vx_uint32 w, vx_uint32 h)
	{
		Bits bits(w, h);
		for (vx_uint32 y = 0; y < h; y++) {
			for (vx_uint32 x = 0; x < w; x++)
				bits.set(x, y, (bytes[vx_size(y) * stride + x / 8] >> (x % 8)) & 1);
		}
		return bits;
	}
};

vx_uint32 bytesPerRow(vx_uint32 width)
{
	return (width + 7) / 8;
}

vx_imagepatch_addressing_t bitAddressing(vx_uint32 width, vx_uint32 height, vx_int32 strideY)
{
	vx_imagepatch_addressing_t addr = VX_IMAGEPATCH_ADDR_INIT;
	addr.dim_x = width;
	addr.dim_y = height;
	addr.stride_x = 0;
	addr.stride_x_bits = 1;
	addr.stride_y = strideY;
	return addr;
}

vx_status copyBits(
	vx_image image, vx_rectangle_t rect, void *memory, vx_int32 strideY, vx_enum usage)
{
	vx_imagepatch_addressing_t addr
		= bitAddressing(rect.end_x - rect.start_x, rect.end_y - rect.start_y, strideY);
	return vxCopyImagePatch(image, &rect, 0, &addr, memory, usage, VX_MEMORY_TYPE_HOST);
}

void write(vx_image image, const Bits &bits)
{
	const vx_uint32 stride = bytesPerRow(bits.width);
	std::vector<uint8_t> bytes = bits.pack(stride);
	ASSERT_EQ(copyBits(image, rectangle(0, 0, bits.width, bits.height), bytes.data(), stride,
			  VX_WRITE_ONLY),
		VX_SUCCESS);
}

/* The whole image, read with vxCopyImagePatch into packed rows. */
std::vector<uint8_t> readBytes(vx_image image)
{
	const vx_uint32 width = query<vx_uint32>(image, VX_IMAGE_WIDTH);
	const vx_uint32 height = query<vx_uint32>(image, VX_IMAGE_HEIGHT);
	std::vector<uint8_t> bytes(vx_size(bytesPerRow(width)) * height, 0xa5);
	EXPECT_EQ(copyBits(image, rectangle(0, 0, width, height), bytes.data(), bytesPerRow(width),
			  VX_READ_ONLY),
		VX_SUCCESS);
	return bytes;
}

Bits read(vx_image image)
{
	const vx_uint32 width = query<vx_uint32>(image, VX_IMAGE_WIDTH);
	const vx_uint32 height = query<vx_uint32>(image, VX_IMAGE_HEIGHT);
	return Bits::unpack(readBytes(image).data(), bytesPerRow(width), width, height);
}

/* One vxMapImagePatch of host memory, its pixels addressed as the
 * specification shows: the byte from vxFormatImagePatchAddress2d, masked
 * with 1 << (x % 8). */
struct Map {
	vx_status status;
	vx_map_id id = 0;
	vx_imagepatch_addressing_t addr = VX_IMAGEPATCH_ADDR_INIT;
	void *base = nullptr;

	Map(vx_image image, vx_rectangle_t rect, vx_enum usage)
	{
		status = vxMapImagePatch(
			image, &rect, 0, &id, &addr, &base, usage, VX_MEMORY_TYPE_HOST, 0);
	}
	uint8_t *byteOf(vx_uint32 x, vx_uint32 y) const
	{
		return static_cast<uint8_t *>(vxFormatImagePatchAddress2d(base, x, y, &addr));
	}
	bool pixel(vx_uint32 x, vx_uint32 y) const { return (*byteOf(x, y) >> (x % 8)) & 1; }
};

constexpr vx_uint32 kWidth = 21;
constexpr vx_uint32 kHeight = 5;

} /* namespace */

TEST_F(ImageU1, CreatesOnePlaneOfPackedBits)
{
	vx_image image = makeImage(context, kWidth, kHeight, VX_DF_IMAGE_U1);
	EXPECT_EQ(query<vx_df_image>(image, VX_IMAGE_FORMAT), vx_df_image(VX_DF_IMAGE_U1));
	EXPECT_EQ(query<vx_size>(image, VX_IMAGE_PLANES), 1u);
	EXPECT_EQ(query<vx_enum>(image, VX_IMAGE_SPACE), VX_COLOR_SPACE_NONE);

	const Map map(image, rectangle(0, 0, kWidth, kHeight), VX_READ_ONLY);
	ASSERT_EQ(map.status, VX_SUCCESS);
	const vx_imagepatch_addressing_t &addr = map.addr;
	EXPECT_EQ(addr.dim_x, kWidth);
	EXPECT_EQ(addr.dim_y, kHeight);
	EXPECT_EQ(addr.stride_x, 0);
	EXPECT_EQ(addr.stride_x_bits, 1u);
	EXPECT_EQ(addr.stride_y, vx_int32(bytesPerRow(kWidth)));
	EXPECT_EQ(addr.step_x, 1u);
	EXPECT_EQ(addr.scale_x, vx_uint32(VX_SCALE_UNITY));
	EXPECT_EQ(vxUnmapImagePatch(image, map.id), VX_SUCCESS);
	vxReleaseImage(&image);
}

TEST_F(ImageU1, CopyRoundTripsWithTheLeftmostPixelInBitZero)
{
	vx_image image = makeImage(context, kWidth, kHeight, VX_DF_IMAGE_U1);
	const Bits bits = Bits::pattern(kWidth, kHeight, 3);
	write(image, bits);

	/* Read back with a wider row stride: the bytes follow the rule and the
	 * padding bits of each row's last byte read as 0. */
	const vx_int32 stride = 5;
	std::vector<uint8_t> bytes(stride * kHeight, 0xff);
	ASSERT_EQ(copyBits(image, rectangle(0, 0, kWidth, kHeight), bytes.data(), stride,
			  VX_READ_ONLY),
		VX_SUCCESS);
	const std::vector<uint8_t> expected = bits.pack(stride);
	for (vx_uint32 y = 0; y < kHeight; y++) {
		for (vx_uint32 b = 0; b < bytesPerRow(kWidth); b++)
			EXPECT_EQ(bytes[y * stride + b], expected[y * stride + b])
				<< "row " << y << " byte " << b;
		/* Beyond the row's bytes the application's memory is untouched. */
		EXPECT_EQ(bytes[y * stride + 4], 0xff);
	}

	/* A map addresses the same pixels through vxFormatImagePatchAddress2d
	 * and 1 << (x % 8). */
	Map map(image, rectangle(0, 0, kWidth, kHeight), VX_READ_ONLY);
	ASSERT_EQ(map.status, VX_SUCCESS);
	for (vx_uint32 y = 0; y < kHeight; y++) {
		for (vx_uint32 x = 0; x < kWidth; x++)
			EXPECT_EQ(map.pixel(x, y), bits.at(x, y)) << x << "," << y;
	}
	/* The 1d form walks the same pixels row by row. */
	auto byte = static_cast<uint8_t *>(
		vxFormatImagePatchAddress1d(map.base, kWidth + 9, &map.addr));
	EXPECT_EQ(byte, static_cast<uint8_t *>(map.base) + map.addr.stride_y + 1);
	EXPECT_EQ(vxFormatImagePatchAddress2d(map.base, kWidth, 0, &map.addr), nullptr);
	EXPECT_EQ(vxUnmapImagePatch(image, map.id), VX_SUCCESS);
	vxReleaseImage(&image);
}

TEST_F(ImageU1, PatchWritesOnlyItsOwnPixels)
{
	vx_image image = makeImage(context, kWidth, kHeight, VX_DF_IMAGE_U1);
	Bits expected = Bits::pattern(kWidth, kHeight, 11);
	write(image, expected);

	/* 11 pixels from x = 8: the patch's last byte shares its upper bits with
	 * pixels 19 and 20, which must keep their values. */
	const vx_rectangle_t rect = rectangle(8, 1, 19, 4);
	std::vector<uint8_t> ones(2 * 3, 0xff);
	ASSERT_EQ(copyBits(image, rect, ones.data(), 2, VX_WRITE_ONLY), VX_SUCCESS);
	for (vx_uint32 y = rect.start_y; y < rect.end_y; y++) {
		for (vx_uint32 x = rect.start_x; x < rect.end_x; x++)
			expected.set(x, y, true);
	}
	EXPECT_EQ(read(image).pixels, expected.pixels);

	/* A write map of the same patch, cleared pixel by pixel. */
	const Map map(image, rect, VX_READ_AND_WRITE);
	ASSERT_EQ(map.status, VX_SUCCESS);
	for (vx_uint32 y = 0; y < map.addr.dim_y; y++) {
		for (vx_uint32 x = 0; x < map.addr.dim_x; x += 2) {
			*map.byteOf(x, y) &= uint8_t(~(1u << (x % 8)));
			expected.set(rect.start_x + x, rect.start_y + y, false);
		}
	}
	ASSERT_EQ(vxUnmapImagePatch(image, map.id), VX_SUCCESS);
	EXPECT_EQ(read(image).pixels, expected.pixels);
	vxReleaseImage(&image);
}

TEST_F(ImageU1, PatchesStartOnAByteAndUseBitAddressing)
{
	vx_image image = makeImage(context, kWidth, kHeight, VX_DF_IMAGE_U1);
	std::vector<uint8_t> bytes(64, 0);

	/* Inside a byte. */
	EXPECT_EQ(copyBits(image, rectangle(3, 0, 16, 2), bytes.data(), 2, VX_READ_ONLY),
		VX_ERROR_INVALID_PARAMETERS);
	EXPECT_EQ(Map(image, rectangle(4, 0, 8, 1), VX_READ_ONLY).status,
		VX_ERROR_INVALID_PARAMETERS);

	/* Byte addressing of the application's memory, rows too short for
	 * the patch, and stride_x_bits other than 1. */
	vx_rectangle_t rect = rectangle(0, 0, 16, 2);
	vx_imagepatch_addressing_t bytesWise = bitAddressing(16, 2, 16);
	bytesWise.stride_x = 1;
	bytesWise.stride_x_bits = 8;
	EXPECT_EQ(vxCopyImagePatch(image, &rect, 0, &bytesWise, bytes.data(), VX_READ_ONLY,
			  VX_MEMORY_TYPE_HOST),
		VX_ERROR_INVALID_PARAMETERS);
	EXPECT_EQ(
		copyBits(image, rect, bytes.data(), 1, VX_READ_ONLY), VX_ERROR_INVALID_PARAMETERS);
	vx_imagepatch_addressing_t twoBits = bitAddressing(16, 2, 4);
	twoBits.stride_x_bits = 2;
	EXPECT_EQ(vxCopyImagePatch(image, &rect, 0, &twoBits, bytes.data(), VX_READ_ONLY,
			  VX_MEMORY_TYPE_HOST),
		VX_ERROR_INVALID_PARAMETERS);
	vxReleaseImage(&image);
}

TEST_F(ImageU1, UniformImageIsTheValueEverywhere)
{
	vx_pixel_value_t one = {};
	one.U1 = vx_true_e;
	vx_image image = vxCreateUniformImage(context, kWidth, kHeight, VX_DF_IMAGE_U1, &one);
	ASSERT_EQ(vxGetStatus(ref(image)), VX_SUCCESS);
	EXPECT_EQ(read(image).pixels, std::vector<bool>(kWidth * kHeight, true));
	/* Whole bytes of ones, then the last byte's 5 pixels and 3 zero bits. */
	const std::vector<uint8_t> bytes = readBytes(image);
	EXPECT_EQ(bytes[0], 0xff);
	EXPECT_EQ(bytes[2], 0x1f);
	EXPECT_EQ(query<vx_pixel_value_t>(image, VX_IMAGE_UNIFORM_VALUE).U1, vx_true_e);

	std::vector<uint8_t> zeros(bytes.size(), 0);
	EXPECT_EQ(copyBits(image, rectangle(0, 0, kWidth, kHeight), zeros.data(),
			  bytesPerRow(kWidth), VX_WRITE_ONLY),
		VX_ERROR_NOT_SUPPORTED);
	vxReleaseImage(&image);
}

TEST_F(ImageU1, SubImageOwnsItsPixelsOnly)
{
	vx_image image = makeImage(context, 24, 4, VX_DF_IMAGE_U1);
	Bits expected = Bits::pattern(24, 4, 5);
	write(image, expected);

	const vx_rectangle_t rect = rectangle(8, 1, 13, 3);
	vx_image roi = vxCreateImageFromROI(image, &rect);
	ASSERT_EQ(vxGetStatus(ref(roi)), VX_SUCCESS);
	EXPECT_EQ(query<vx_uint32>(roi, VX_IMAGE_WIDTH), 5u);

	/* The sub-image reads its part of the parent... */
	const Bits part = read(roi);
	for (vx_uint32 y = 0; y < 2; y++) {
		for (vx_uint32 x = 0; x < 5; x++)
			EXPECT_EQ(part.at(x, y), expected.at(8 + x, 1 + y)) << x << "," << y;
	}
	/* ...and setting it sets those pixels, not the rest of their bytes. */
	vx_pixel_value_t one = {};
	one.U1 = vx_true_e;
	ASSERT_EQ(vxSetImagePixelValues(roi, &one), VX_SUCCESS);
	for (vx_uint32 y = rect.start_y; y < rect.end_y; y++) {
		for (vx_uint32 x = rect.start_x; x < rect.end_x; x++)
			expected.set(x, y, true);
	}
	EXPECT_EQ(read(image).pixels, expected.pixels);

	vx_pixel_value_t zero = {};
	ASSERT_EQ(vxSetImagePixelValues(image, &zero), VX_SUCCESS);
	EXPECT_EQ(read(roi).pixels, std::vector<bool>(10, false));

	/* Sub-images start on a byte as patches do. */
	const vx_rectangle_t unaligned = rectangle(4, 0, 12, 2);
	vx_image bad = vxCreateImageFromROI(image, &unaligned);
	EXPECT_EQ(vxGetStatus(ref(bad)), VX_ERROR_INVALID_PARAMETERS);
	vxReleaseImage(&roi);
	vxReleaseImage(&image);
}

TEST_F(ImageU1, FromHandleUsesTheApplicationsBits)
{
	/* 12 pixels a row in rows of 3 bytes: the upper half of the second
	 * byte and the third byte are padding, here not zero. */
	const vx_uint32 width = 12, height = 3, stride = 3;
	const Bits bits = Bits::pattern(width, height, 9);
	std::vector<uint8_t> memory = bits.pack(stride);
	for (vx_uint32 y = 0; y < height; y++) {
		memory[y * stride + 1] |= 0xa0;
		memory[y * stride + 2] = 0x5a;
	}

	vx_imagepatch_addressing_t addr = bitAddressing(width, height, stride);
	void *ptrs[] = { memory.data() };
	vx_image image = vxCreateImageFromHandle(
		context, VX_DF_IMAGE_U1, &addr, ptrs, VX_MEMORY_TYPE_HOST);
	ASSERT_EQ(vxGetStatus(ref(image)), VX_SUCCESS);
	/* Padding reads as 0. */
	EXPECT_EQ(readBytes(image), bits.pack(bytesPerRow(width)));

	/* Writing pixel 11 of row 1 sets bit 3 of that row's second byte and
	 * leaves its padding bits as they were. */
	const vx_rectangle_t rect = rectangle(8, 1, 12, 2);
	uint8_t patch = 0xf8;
	ASSERT_EQ(copyBits(image, rect, &patch, 1, VX_WRITE_ONLY), VX_SUCCESS);
	EXPECT_EQ(memory[stride + 1], 0xa8);
	EXPECT_EQ(memory[stride + 2], 0x5a);
	vxReleaseImage(&image);

	/* Byte strides or rows shorter than the width are refused. */
	vx_imagepatch_addressing_t bytesWise = addr;
	bytesWise.stride_x = 1;
	vx_image bad = vxCreateImageFromHandle(
		context, VX_DF_IMAGE_U1, &bytesWise, ptrs, VX_MEMORY_TYPE_HOST);
	EXPECT_EQ(vxGetStatus(ref(bad)), VX_ERROR_INVALID_PARAMETERS);
	vx_imagepatch_addressing_t noBits = addr;
	noBits.stride_x_bits = 0;
	bad = vxCreateImageFromHandle(context, VX_DF_IMAGE_U1, &noBits, ptrs, VX_MEMORY_TYPE_HOST);
	EXPECT_EQ(vxGetStatus(ref(bad)), VX_ERROR_INVALID_PARAMETERS);
	vx_imagepatch_addressing_t shortRows = bitAddressing(width, height, 1);
	bad = vxCreateImageFromHandle(
		context, VX_DF_IMAGE_U1, &shortRows, ptrs, VX_MEMORY_TYPE_HOST);
	EXPECT_EQ(vxGetStatus(ref(bad)), VX_ERROR_INVALID_PARAMETERS);
}

namespace {

/* out = not in, a byte at a time: padding bits are the kernel's business. */
vx_status VX_CALLBACK runNot(vx_node, const vx_reference *parameters, vx_uint32)
{
	auto in = reinterpret_cast<vx_image>(parameters[0]);
	auto out = reinterpret_cast<vx_image>(parameters[1]);
	const vx_rectangle_t all = rectangle(
		0, 0, query<vx_uint32>(in, VX_IMAGE_WIDTH), query<vx_uint32>(in, VX_IMAGE_HEIGHT));
	const Map src(in, all, VX_READ_ONLY);
	if (src.status != VX_SUCCESS)
		return src.status;
	const Map dst(out, all, VX_WRITE_ONLY);
	if (dst.status == VX_SUCCESS) {
		for (vx_uint32 y = 0; y < src.addr.dim_y; y++) {
			for (vx_uint32 x = 0; x < src.addr.dim_x; x += 8)
				*dst.byteOf(x, y) = uint8_t(~*src.byteOf(x, y));
		}
		vxUnmapImagePatch(out, dst.id);
	}
	vxUnmapImagePatch(in, src.id);
	return dst.status;
}

vx_status VX_CALLBACK validateNot(
	vx_node, const vx_reference parameters[], vx_uint32, vx_meta_format metas[])
{
	vx_df_image format
		= query<vx_df_image>(reinterpret_cast<vx_image>(parameters[0]), VX_IMAGE_FORMAT);
	if (format != VX_DF_IMAGE_U1)
		return VX_ERROR_INVALID_FORMAT;
	return vxSetMetaFormatFromReference(metas[1], parameters[0]);
}

} /* namespace */

/* A user kernel reads and writes U1 images, and a virtual image between two
 * of its nodes takes U1 from the meta format. */
TEST_F(ImageU1, UserKernelsChainThroughAVirtualU1Image)
{
	vx_kernel kernel = vxAddUserKernel(context, "vdla.test.not_u1",
		VX_KERNEL_BASE(VX_ID_USER, 0) + 7, runNot, 2, validateNot, nullptr, nullptr);
	ASSERT_EQ(vxGetStatus(ref(kernel)), VX_SUCCESS);
	vxAddParameterToKernel(kernel, 0, VX_INPUT, VX_TYPE_IMAGE, VX_PARAMETER_STATE_REQUIRED);
	vxAddParameterToKernel(kernel, 1, VX_OUTPUT, VX_TYPE_IMAGE, VX_PARAMETER_STATE_REQUIRED);
	ASSERT_EQ(vxFinalizeKernel(kernel), VX_SUCCESS);

	vx_graph graph = vxCreateGraph(context);
	vx_image in = makeImage(context, kWidth, kHeight, VX_DF_IMAGE_U1);
	vx_image middle = vxCreateVirtualImage(graph, 0, 0, VX_DF_IMAGE_VIRT);
	vx_image out = makeImage(context, kWidth, kHeight, VX_DF_IMAGE_U1);
	vx_image inverted = makeImage(context, kWidth, kHeight, VX_DF_IMAGE_U1);
	vx_node nodes[3];
	vx_image wiring[][2] = { { in, middle }, { middle, out }, { in, inverted } };
	for (int n = 0; n < 3; n++) {
		nodes[n] = vxCreateGenericNode(graph, kernel);
		vxSetParameterByIndex(nodes[n], 0, ref(wiring[n][0]));
		vxSetParameterByIndex(nodes[n], 1, ref(wiring[n][1]));
	}

	const Bits bits = Bits::pattern(kWidth, kHeight, 21);
	write(in, bits);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(query<vx_df_image>(middle, VX_IMAGE_FORMAT), vx_df_image(VX_DF_IMAGE_U1));
	EXPECT_EQ(read(out).pixels, bits.pixels);
	Bits expected = bits;
	expected.pixels.flip();
	EXPECT_EQ(read(inverted).pixels, expected.pixels);

	for (vx_node &node : nodes)
		vxReleaseNode(&node);
	for (vx_image *image : { &in, &middle, &out, &inverted })
		vxReleaseImage(image);
	vxReleaseGraph(&graph);
	vxReleaseKernel(&kernel);
}
