/* SPDX-License-Identifier: MIT */
/*
 * Image, ImagePyramid and Array attribute lists (vdla/attr_list.h): their
 * keys, the plane layouts computed by hand here, an image that is a tensor
 * in NHWC and in NCHW, the conflicts, validation and the encoding.
 */
#include <gtest/gtest.h>

#include <cerrno>

#include <vdla/attr_list.h>

namespace {

using namespace vdla;

AttrList image(const std::string &owner, std::vector<ColorFormat> formats,
	std::vector<uint64_t> widths, std::vector<uint64_t> heights)
{
	AttrList l(owner);
	EXPECT_TRUE(l.setTypes({ BufferType::Image }));
	EXPECT_TRUE(l.setImagePlaneFormats(std::move(formats)));
	EXPECT_TRUE(l.setImagePlaneWidths(std::move(widths)));
	EXPECT_TRUE(l.setImagePlaneHeights(std::move(heights)));
	return l;
}

AttrList tensor(const std::string &owner, TensorDataType type, std::vector<uint64_t> dims,
	TensorLayout layout)
{
	AttrList l(owner);
	EXPECT_TRUE(l.setTypes({ BufferType::Tensor }));
	EXPECT_TRUE(l.setTensorDataType(type));
	EXPECT_TRUE(l.setTensorDims(std::move(dims)));
	EXPECT_TRUE(l.setTensorLayout(layout));
	return l;
}

std::vector<std::string> messages(const Reconciliation &r)
{
	std::vector<std::string> out;
	for (const AttrConflict &c : r.conflicts)
		out.push_back(c.message());
	return out;
}

TEST(AttrImage, KeysNeedTheirTypeAndAgreeOnThePlaneCount)
{
	AttrList l("camera");
	EXPECT_EQ(l.setImagePlaneWidths({ 64 }).error().code(), EINVAL) << "before the type";
	ASSERT_TRUE(l.setTypes({ BufferType::Image }));
	EXPECT_EQ(l.setPyramidLevels(2).error().code(), EINVAL) << "a pyramid key on an image";
	EXPECT_EQ(l.setArrayCapacity(2).error().code(), EINVAL);
	ASSERT_TRUE(l.setImagePlaneFormats({ ColorFormat::U8, ColorFormat::UV88 }));
	EXPECT_EQ(l.setImagePlaneWidths({ 64 }).error().code(), EINVAL) << "2 planes, 1 width";
	EXPECT_EQ(l.setImagePlaneWidths({ 64, 0 }).error().code(), EINVAL);
	ASSERT_TRUE(l.setImagePlaneWidths({ 64, 32 }));
	EXPECT_EQ(l.setImagePitchAlignment({ 64, 48 }).error().code(), EINVAL) << "not a power of two";
	EXPECT_EQ(l.setImagePlaneFormats({ ColorFormat::U8 }).error().code(), EEXIST);
	EXPECT_EQ(l.setImagePlaneHeights({ 1, 2, 3, 4, 5 }).error().code(), EINVAL);

	AttrList pyramid("scaler");
	ASSERT_TRUE(pyramid.setTypes({ BufferType::ImagePyramid }));
	ASSERT_TRUE(pyramid.setImagePlaneFormats({ ColorFormat::U8 })) << "level 0's keys";
	EXPECT_EQ(pyramid.setPyramidLevels(0).error().code(), EINVAL);
	EXPECT_EQ(pyramid.setPyramidLevels(17).error().code(), EINVAL);
	EXPECT_EQ(pyramid.setPyramidScale(1.5).error().code(), EINVAL);
	EXPECT_EQ(pyramid.setPyramidScale(0).error().code(), EINVAL);

	AttrList both("both");
	ASSERT_TRUE(both.setTypes({ BufferType::Image, BufferType::Tensor }));
	EXPECT_EQ(*both.types(), (std::vector<BufferType>{ BufferType::Tensor, BufferType::Image }));
	AttrList three("three");
	EXPECT_EQ(three.setTypes({ BufferType::Image, BufferType::Array }).error().code(), EINVAL);
}

TEST(AttrImage, PlanesAreLaidOutOneAfterTheOther)
{
	/* NV12-like: Y 640x480, interleaved UV 320x240 of 2 bytes. */
	AttrList camera = image("camera", { ColorFormat::U8, ColorFormat::UV88 }, { 640, 320 },
		{ 480, 240 });
	ASSERT_TRUE(camera.setImagePitchAlignment({ 256, 64 }));
	AttrList encoder = image("encoder", { ColorFormat::U8, ColorFormat::UV88 }, { 640, 320 },
		{ 480, 240 });
	ASSERT_TRUE(encoder.setImagePlaneBaseAlignment({ 1, 65536 }));
	ASSERT_TRUE(encoder.setAccessors({ Accessor::dla(0) }));
	auto r = reconcile({ &camera, &encoder });
	ASSERT_TRUE(r && r->list) << messages(*r).front();
	/* Y: 640 bytes a line, pitch 768 (a multiple of 256), 368640 bytes;
	 * UV: from 393216 (a multiple of 65536), pitch 640, 240 lines. */
	const std::vector<ImagePlaneLayout> planes = { { 640, 480, 768, 0 }, { 320, 240, 640, 393216 } };
	EXPECT_EQ(*r->list->imagePlanes(), planes);
	EXPECT_EQ(*r->list->size(), 393216u + 640 * 240);
	EXPECT_EQ(*r->list->alignment(), 65536u) << "the largest plane alignment";
	EXPECT_EQ(*r->list->imagePitchAlignment(), (std::vector<uint64_t>{ 256, 64 }));

	/* A list of another plane count conflicts, naming both. */
	AttrList mono = image("mono", { ColorFormat::U8 }, { 640 }, { 480 });
	auto bad = reconcile({ &camera, &mono });
	ASSERT_TRUE(bad);
	EXPECT_EQ(messages(*bad), (std::vector<std::string>{
		"Image.PlaneFormats must be equal: camera [U8,UV88], mono [U8]",
		"Image.PlaneWidths must be equal: camera [640,320], mono [640]",
		"Image.PlaneHeights must be equal: camera [480,240], mono [480]" }));
}

TEST(AttrImage, APyramidsLevelsFollowItsScale)
{
	AttrList l("scaler");
	ASSERT_TRUE(l.setTypes({ BufferType::ImagePyramid }));
	ASSERT_TRUE(l.setImagePlaneFormats({ ColorFormat::U8 }));
	ASSERT_TRUE(l.setImagePlaneWidths({ 65 }));
	ASSERT_TRUE(l.setImagePlaneHeights({ 5 }));
	ASSERT_TRUE(l.setImagePitchAlignment({ 16 }));
	ASSERT_TRUE(l.setPyramidLevels(4));
	ASSERT_TRUE(l.setPyramidScale(0.5));
	auto r = reconcile({ &l });
	ASSERT_TRUE(r && r->list) << messages(*r).front();
	/* 65x5 (pitch 80), 33x3 (48), 17x2 (32), 9x1 (16), back to back. */
	const std::vector<std::vector<ImagePlaneLayout>> levels = { { { 65, 5, 80, 0 } },
		{ { 33, 3, 48, 400 } }, { { 17, 2, 32, 544 } }, { { 9, 1, 16, 608 } } };
	EXPECT_EQ(*r->list->pyramidPlanes(), levels);
	EXPECT_EQ(*r->list->imagePlanes(), levels.front());
	EXPECT_EQ(*r->list->size(), 624u);

	AttrList other = l;
	AttrList fewer("fewer");
	ASSERT_TRUE(fewer.setTypes({ BufferType::ImagePyramid }));
	ASSERT_TRUE(fewer.setPyramidLevels(3));
	auto bad = reconcile({ &other, &fewer });
	ASSERT_TRUE(bad);
	EXPECT_EQ(messages(*bad), std::vector<std::string>{
		"Pyramid.Levels must be equal: scaler 4, fewer 3" });
}

TEST(AttrImage, HugeExtentsConflictRatherThanWrap)
{
	AttrList l("hostile");
	ASSERT_TRUE(l.setTypes({ BufferType::ImagePyramid }));
	ASSERT_TRUE(l.setImagePlaneFormats({ ColorFormat::RGBA_F16 }));
	ASSERT_TRUE(l.setImagePlaneWidths({ ~0ull }));
	ASSERT_TRUE(l.setImagePlaneHeights({ ~0ull }));
	ASSERT_TRUE(l.setPyramidLevels(16));
	ASSERT_TRUE(l.setPyramidScale(1.0));
	auto r = reconcile({ &l });
	ASSERT_TRUE(r);
	ASSERT_EQ(r->conflicts.size(), 1u);
	EXPECT_EQ(r->conflicts[0].rule, "describe more than 2^64 bytes");

	/* Levels of a huge plane: each no larger than the one above. */
	AttrList tall("tall");
	ASSERT_TRUE(tall.setTypes({ BufferType::ImagePyramid }));
	ASSERT_TRUE(tall.setImagePlaneFormats({ ColorFormat::U8 }));
	ASSERT_TRUE(tall.setImagePlaneWidths({ 1 }));
	ASSERT_TRUE(tall.setImagePlaneHeights({ (1ull << 62) + 1 }));
	ASSERT_TRUE(tall.setPyramidLevels(2));
	ASSERT_TRUE(tall.setPyramidScale(1.0));
	auto t = reconcile({ &tall });
	ASSERT_TRUE(t);
	ASSERT_TRUE(t->list) << t->conflicts.front().message();
	EXPECT_EQ((*t->list->pyramidPlanes())[1][0].height, (1ull << 62) + 1);
}

TEST(AttrImage, AnArraysStrideIsItsAlignedElement)
{
	AttrList a("tracker");
	ASSERT_TRUE(a.setTypes({ BufferType::Array }));
	ASSERT_TRUE(a.setArrayElementSize(12));
	ASSERT_TRUE(a.setArrayCapacity(100));
	AttrList b("dla");
	ASSERT_TRUE(b.setTypes({ BufferType::Array }));
	ASSERT_TRUE(b.setArrayStrideAlignment(16));
	auto r = reconcile({ &a, &b });
	ASSERT_TRUE(r && r->list) << messages(*r).front();
	EXPECT_EQ(*r->list->arrayStride(), 16u);
	EXPECT_EQ(*r->list->size(), 1600u);

	AttrList huge("huge");
	ASSERT_TRUE(huge.setTypes({ BufferType::Array }));
	ASSERT_TRUE(huge.setArrayElementSize(1ull << 40));
	ASSERT_TRUE(huge.setArrayCapacity(1ull << 30));
	auto over = reconcile({ &huge });
	ASSERT_TRUE(over);
	EXPECT_EQ(messages(*over), std::vector<std::string>{
		"Array.Capacity describes more than 2^64 bytes: huge 1073741824" });
}

TEST(AttrImage, AnImageIsATensorInNhwc)
{
	AttrList camera = image("camera", { ColorFormat::RGB888 }, { 224 }, { 224 });
	ASSERT_TRUE(camera.setImagePitchAlignment({ 64 }));
	AttrList classifier = tensor("classifier", TensorDataType::Uint8, { 1, 224, 224, 3 },
		TensorLayout::NHWC);
	auto r = reconcile({ &camera, &classifier });
	ASSERT_TRUE(r && r->list) << messages(*r).front();
	EXPECT_EQ(*r->list->types(), (std::vector<BufferType>{ BufferType::Tensor, BufferType::Image }));
	/* A line of 224 pixels of 3 bytes, 672, padded to 704. */
	EXPECT_EQ(*r->list->tensorStrides(), (std::vector<uint64_t>{ 704 * 224, 704, 3, 1 }));
	EXPECT_EQ(*r->list->imagePlanes(),
		(std::vector<ImagePlaneLayout>{ { 224, 224, 704, 0 } }));
	EXPECT_EQ(*r->list->size(), 704u * 224);
}

TEST(AttrImage, AnImageIsATensorInNchw)
{
	AttrList camera = image("camera", { ColorFormat::U8, ColorFormat::U8, ColorFormat::U8 },
		{ 224, 224, 224 }, { 224, 224, 224 });
	ASSERT_TRUE(camera.setImagePitchAlignment({ 256, 256, 256 }));
	AttrList classifier = tensor("classifier", TensorDataType::Int8, { 1, 3, 224, 224 },
		TensorLayout::NCHW);
	ASSERT_TRUE(classifier.setTensorAlignmentPerDim({ 1, 4096, 1, 1 }));
	auto r = reconcile({ &camera, &classifier });
	ASSERT_TRUE(r && r->list) << messages(*r).front();
	/* Lines of 224 padded to 256; planes of 57344 bytes, a multiple of 4096. */
	EXPECT_EQ(*r->list->tensorStrides(), (std::vector<uint64_t>{ 3 * 57344, 57344, 256, 1 }));
	const std::vector<ImagePlaneLayout> planes = { { 224, 224, 256, 0 },
		{ 224, 224, 256, 57344 }, { 224, 224, 256, 114688 } };
	EXPECT_EQ(*r->list->imagePlanes(), planes);
	EXPECT_EQ(*r->list->size(), 3u * 57344);
	EXPECT_EQ(*r->list->alignment(), 4096u);
}

TEST(AttrImage, AnImageAndATensorThatDisagreeConflict)
{
	AttrList camera = image("camera", { ColorFormat::RGB888 }, { 640 }, { 480 });
	AttrList classifier = tensor("classifier", TensorDataType::Uint8, { 1, 224, 224, 3 },
		TensorLayout::NHWC);
	auto dims = reconcile({ &camera, &classifier });
	ASSERT_TRUE(dims);
	EXPECT_EQ(messages(*dims), std::vector<std::string>{
		"Tensor.Dims must describe the image in NHWC: [1,H,W,C], one plane of C channels: "
		"camera Image.PlaneFormats [RGB888], camera Image.PlaneWidths [640], camera "
		"Image.PlaneHeights [480], classifier Tensor.Dims [1,224,224,3], classifier "
		"Tensor.Layout NHWC" });

	/* NCHW needs planes of one channel. */
	AttrList packed = image("camera", { ColorFormat::RGB888 }, { 224 }, { 224 });
	AttrList planar = tensor("classifier", TensorDataType::Uint8, { 1, 3, 224, 224 },
		TensorLayout::NCHW);
	auto layout = reconcile({ &packed, &planar });
	ASSERT_TRUE(layout);
	ASSERT_EQ(layout->conflicts.size(), 1u);
	EXPECT_EQ(layout->conflicts[0].rule,
		"must describe the image in NCHW: [1,C,H,W], C planes of one channel");

	/* A float tensor over bytes. */
	AttrList floats = tensor("classifier", TensorDataType::Float32, { 1, 224, 224, 3 },
		TensorLayout::NHWC);
	auto type = reconcile({ &packed, &floats });
	ASSERT_TRUE(type);
	EXPECT_EQ(messages(*type), std::vector<std::string>{
		"Tensor.DataType must be the element type of the image's channels: camera "
		"Image.PlaneFormats [RGB888], classifier Tensor.DataType Float32" });

	/* No layout: which of the two is meant? */
	AttrList noLayout("classifier");
	ASSERT_TRUE(noLayout.setTypes({ BufferType::Tensor }));
	ASSERT_TRUE(noLayout.setTensorDataType(TensorDataType::Uint8));
	ASSERT_TRUE(noLayout.setTensorDims({ 1, 224, 224, 3 }));
	auto none = reconcile({ &packed, &noLayout });
	ASSERT_TRUE(none);
	EXPECT_EQ(messages(*none), std::vector<std::string>{
		"Tensor.Layout is required for a buffer that is an Image and a Tensor (NHWC or NCHW)" });

	/* Padding between pixels, which an image cannot have. */
	AttrList padded = tensor("classifier", TensorDataType::Uint8, { 1, 224, 224, 3 },
		TensorLayout::NHWC);
	ASSERT_TRUE(padded.setTensorAlignmentPerDim({ 1, 1, 4, 1 }));
	auto pad = reconcile({ &packed, &padded });
	ASSERT_TRUE(pad);
	ASSERT_EQ(pad->conflicts.size(), 1u);
	EXPECT_EQ(pad->conflicts[0].key, AttrKey::TensorAlignmentPerDim);

	/* A W stride the pixel is no multiple of: RGB888 pixels 2-aligned. */
	AttrList odd = tensor("classifier", TensorDataType::Uint8, { 1, 224, 224, 3 },
		TensorLayout::NHWC);
	ASSERT_TRUE(odd.setTensorAlignmentPerDim({ 1, 1, 2, 1 }));
	auto two = reconcile({ &packed, &odd });
	ASSERT_TRUE(two);
	ASSERT_EQ(two->conflicts.size(), 1u);
	EXPECT_EQ(two->conflicts[0].key, AttrKey::TensorAlignmentPerDim);

	/* Types other than Image and Tensor do not mix. */
	AttrList raw("dsp");
	ASSERT_TRUE(raw.setTypes({ BufferType::Raw }));
	auto types = reconcile({ &raw, &planar });
	ASSERT_TRUE(types);
	EXPECT_EQ(messages(*types).front(),
		"General.Types must be equal, or together be Image and Tensor: dsp {Raw}, "
		"classifier {Tensor}");
}

TEST(AttrImage, ValidationAndTheEncodingCoverTheNewKeys)
{
	AttrList camera = image("camera", { ColorFormat::U8, ColorFormat::U8, ColorFormat::U8 },
		{ 32, 32, 32 }, { 8, 8, 8 });
	AttrList classifier = tensor("classifier", TensorDataType::Int8, { 1, 3, 8, 32 },
		TensorLayout::NCHW);
	auto r = reconcile({ &camera, &classifier });
	ASSERT_TRUE(r && r->list) << messages(*r).front();
	auto bytes = r->list->encode();
	auto back = AttrList::decode(bytes.data(), bytes.size());
	ASSERT_TRUE(back) << back.error().message();
	EXPECT_EQ(back->imagePlanes(), r->list->imagePlanes());
	EXPECT_EQ(back->tensorStrides(), r->list->tensorStrides());

	/* A late party wanting lines of 64 bytes: not met by pitches of 32. */
	AttrList late = image("late", { ColorFormat::U8, ColorFormat::U8, ColorFormat::U8 },
		{ 32, 32, 32 }, { 8, 8, 8 });
	ASSERT_TRUE(late.setImagePitchAlignment({ 64, 64, 64 }));
	auto v = validateReconciled(*r->list, { &late });
	ASSERT_TRUE(v);
	ASSERT_EQ(v->size(), 1u);
	EXPECT_EQ((*v)[0].message(),
		"Image.PitchAlignment is not met by the planes: late [64,64,64], reconciled [32,32,32]");

	AttrList pyramid("scaler");
	ASSERT_TRUE(pyramid.setTypes({ BufferType::ImagePyramid }));
	ASSERT_TRUE(pyramid.setImagePlaneFormats({ ColorFormat::F16 }));
	ASSERT_TRUE(pyramid.setImagePlaneWidths({ 100 }));
	ASSERT_TRUE(pyramid.setImagePlaneHeights({ 50 }));
	ASSERT_TRUE(pyramid.setPyramidLevels(3));
	ASSERT_TRUE(pyramid.setPyramidScale(0.75));
	auto p = reconcile({ &pyramid });
	ASSERT_TRUE(p && p->list);
	auto pbytes = p->list->encode();
	auto pback = AttrList::decode(pbytes.data(), pbytes.size());
	ASSERT_TRUE(pback) << pback.error().message();
	EXPECT_EQ(pback->pyramidPlanes(), p->list->pyramidPlanes());
	EXPECT_EQ(*pback->pyramidScale(), 0.75);
}

} /* namespace */
