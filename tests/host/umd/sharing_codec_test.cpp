/* SPDX-License-Identifier: MIT */
/*
 * Attribute lists as bytes between processes (AttrList::encode/decode):
 * every key survives the trip, a reconciled list's outputs are computed
 * again on receipt so a peer cannot hand over a size or SRAM its keys do
 * not give, and no input, cut short or corrupted anywhere, crashes the
 * decoder or gets through unchecked.
 */
#include <gtest/gtest.h>

#include <cerrno>

#include <vdla/attr_list.h>

namespace {

using namespace vdla;

AttrList everyTensorKey(const std::string &owner)
{
	AttrList l(owner);
	EXPECT_TRUE(l.setTypes({ BufferType::Tensor }));
	EXPECT_TRUE(l.setNeedCpuAccess(true));
	EXPECT_TRUE(l.setRequiredPermission(Permission::ReadWrite));
	EXPECT_TRUE(l.setEnableCpuCache(true));
	EXPECT_TRUE(l.setAccessors({ Accessor::dla(1), Accessor::other("display") }));
	EXPECT_TRUE(l.setMemoryDomain(MemoryDomain::Sram, true));
	EXPECT_TRUE(l.setTensorDataType(TensorDataType::Int16));
	EXPECT_TRUE(l.setTensorDims({ 1, 3, 5, 7 }));
	EXPECT_TRUE(l.setTensorLayout(TensorLayout::NHWC));
	EXPECT_TRUE(l.setTensorAlignmentPerDim({ 64, 32, 16, 2 }));
	EXPECT_TRUE(l.setTensorBaseAlignment(256));
	EXPECT_TRUE(l.setTensorQuantization({ 0.125, -3 }));
	return l;
}

void expectSameKeys(const AttrList &a, const AttrList &b)
{
	EXPECT_EQ(a.owner(), b.owner());
	EXPECT_EQ(a.reconciled(), b.reconciled());
	EXPECT_EQ(a.types(), b.types());
	EXPECT_EQ(a.needCpuAccess(), b.needCpuAccess());
	EXPECT_EQ(a.requiredPermission(), b.requiredPermission());
	EXPECT_EQ(a.enableCpuCache(), b.enableCpuCache());
	EXPECT_EQ(a.accessors(), b.accessors());
	EXPECT_EQ(a.preferredMemoryDomain(), b.preferredMemoryDomain());
	EXPECT_EQ(a.sramFallbackAllowed(), b.sramFallbackAllowed());
	EXPECT_EQ(a.rawSize(), b.rawSize());
	EXPECT_EQ(a.rawAlignment(), b.rawAlignment());
	EXPECT_EQ(a.tensorDataType(), b.tensorDataType());
	EXPECT_EQ(a.tensorDims(), b.tensorDims());
	EXPECT_EQ(a.tensorLayout(), b.tensorLayout());
	EXPECT_EQ(a.tensorAlignmentPerDim(), b.tensorAlignmentPerDim());
	EXPECT_EQ(a.tensorBaseAlignment(), b.tensorBaseAlignment());
	EXPECT_EQ(a.tensorQuantization(), b.tensorQuantization());
	EXPECT_EQ(a.actualPermission(), b.actualPermission());
	EXPECT_EQ(a.memoryDomain(), b.memoryDomain());
	EXPECT_EQ(a.memoryDomainReason(), b.memoryDomainReason());
	EXPECT_EQ(a.size(), b.size());
	EXPECT_EQ(a.alignment(), b.alignment());
	EXPECT_EQ(a.tensorStrides(), b.tensorStrides());
}

Result<AttrList> decode(const std::vector<uint8_t> &bytes)
{
	return AttrList::decode(bytes.data(), bytes.size());
}

TEST(AttrListCodec, EveryKeySurvivesTheTrip)
{
	AttrList tensor = everyTensorKey("camera");
	auto back = decode(tensor.encode());
	ASSERT_TRUE(back) << back.error().message();
	expectSameKeys(tensor, *back);

	AttrList raw("dsp");
	ASSERT_TRUE(raw.setTypes({ BufferType::Raw }));
	ASSERT_TRUE(raw.setRawSize(12345));
	ASSERT_TRUE(raw.setRawAlignment(512));
	ASSERT_TRUE(raw.setMemoryDomain(MemoryDomain::System, false));
	auto rawBack = decode(raw.encode());
	ASSERT_TRUE(rawBack) << rawBack.error().message();
	expectSameKeys(raw, *rawBack);

	AttrList empty("nobody");
	auto emptyBack = decode(empty.encode());
	ASSERT_TRUE(emptyBack);
	expectSameKeys(empty, *emptyBack);
	EXPECT_TRUE(emptyBack->setTypes({ BufferType::Raw })) << "a received list is writable";
}

TEST(AttrListCodec, AReconciledListArrivesReconciledWithItsOutputs)
{
	AttrList camera = everyTensorKey("camera");
	AttrList classifier("classifier");
	ASSERT_TRUE(classifier.setTypes({ BufferType::Tensor }));
	ASSERT_TRUE(classifier.setAccessors({ Accessor::dla(0) }));
	auto r = reconcile({ &camera, &classifier }, "pipeline");
	ASSERT_TRUE(r && r->list) << (r ? r->conflicts.front().message() : "");
	EXPECT_EQ(r->list->memoryDomain(), MemoryDomain::System);
	EXPECT_FALSE(r->list->memoryDomainReason().empty());

	auto back = decode(r->list->encode());
	ASSERT_TRUE(back) << back.error().message();
	expectSameKeys(*r->list, *back);
	EXPECT_EQ(back->setRawSize(1).error().code(), EACCES) << "still read-only";
	/* By hand, INT16 [1,3,5,7] aligned [64,32,16,2]: 2; 7*2=14 up to 16;
	 * 5*16=80 up to 96; 3*96=288 up to 320. */
	EXPECT_EQ(*back->tensorStrides(), (std::vector<uint64_t>{ 320, 96, 16, 2 }));

	/* SRAM survives when the keys allow it. */
	AttrList sram("layer");
	ASSERT_TRUE(sram.setTypes({ BufferType::Raw }));
	ASSERT_TRUE(sram.setRawSize(8192));
	ASSERT_TRUE(sram.setAccessors({ Accessor::dla(0) }));
	ASSERT_TRUE(sram.setMemoryDomain(MemoryDomain::Sram, false));
	auto s = reconcile({ &sram });
	ASSERT_TRUE(s && s->list);
	auto sramBack = decode(s->list->encode());
	ASSERT_TRUE(sramBack) << sramBack.error().message();
	EXPECT_EQ(sramBack->memoryDomain(), MemoryDomain::Sram);
}

/* Finds @needle in @bytes after @from and overwrites it with @value. */
void patch(std::vector<uint8_t> &bytes, uint64_t needle, uint64_t value, size_t width)
{
	for (size_t i = bytes.size() - width + 1; i-- > 0;) {
		uint64_t v = 0;
		for (size_t b = 0; b < width; b++)
			v |= uint64_t(bytes[i + b]) << (8 * b);
		if (v == needle) {
			for (size_t b = 0; b < width; b++)
				bytes[i + b] = uint8_t(value >> (8 * b));
			return;
		}
	}
	FAIL() << "value " << needle << " not in the encoding";
}

TEST(AttrListCodec, AReconciledListWhoseOutputsItsKeysDoNotGiveIsRefused)
{
	AttrList raw("producer");
	ASSERT_TRUE(raw.setTypes({ BufferType::Raw }));
	ASSERT_TRUE(raw.setRawSize(4000));
	ASSERT_TRUE(raw.setAccessors({ Accessor::dla(0), Accessor::cpu() }));
	auto r = reconcile({ &raw });
	ASSERT_TRUE(r && r->list);

	/* The size is the last 4000 in the encoding (the key comes first). */
	auto bigger = r->list->encode();
	patch(bigger, 4000, 1 << 20, 8);
	auto refused = decode(bigger);
	ASSERT_FALSE(refused);
	EXPECT_EQ(refused.error().code(), EBADMSG);
	EXPECT_NE(refused.error().reason().find("a size"), std::string::npos)
		<< refused.error().reason();

	/* SRAM for a buffer the CPU reads: the keys forbid it. */
	auto sram = r->list->encode();
	std::vector<uint8_t> clean = sram;
	/* Outputs: permission, domain, reason (empty), ...: find the domain
	 * byte as the one after the permission, right after the keys. */
	const size_t keysEnd = clean.size() - (1 + 1 + 4 + 1 + 8 + 8 + 1 + 4);
	ASSERT_EQ(clean[keysEnd + 1], 0) << "System";
	sram[keysEnd + 1] = 1;
	auto noSram = decode(sram);
	ASSERT_FALSE(noSram);
	EXPECT_EQ(noSram.error().code(), EBADMSG);
	EXPECT_NE(noSram.error().reason().find("SRAM"), std::string::npos);

	/* A permission above what the keys give. */
	auto higher = clean;
	ASSERT_EQ(higher[keysEnd], 0) << "ReadOnly";
	higher[keysEnd] = 1;
	EXPECT_EQ(decode(higher).error().code(), EBADMSG);
	EXPECT_TRUE(decode(clean)) << "the untouched encoding decodes";
}

/* An image that is a tensor, and a pyramid: the other types' keys. */
std::vector<AttrList> everyImageKey()
{
	AttrList image("camera");
	EXPECT_TRUE(image.setTypes({ BufferType::Image }));
	EXPECT_TRUE(image.setImagePlaneFormats({ ColorFormat::U8, ColorFormat::U8 }));
	EXPECT_TRUE(image.setImagePlaneWidths({ 32, 32 }));
	EXPECT_TRUE(image.setImagePlaneHeights({ 8, 8 }));
	EXPECT_TRUE(image.setImagePlaneBaseAlignment({ 64, 64 }));
	EXPECT_TRUE(image.setImagePitchAlignment({ 32, 32 }));
	AttrList tensor("classifier");
	EXPECT_TRUE(tensor.setTypes({ BufferType::Tensor }));
	EXPECT_TRUE(tensor.setTensorDataType(TensorDataType::Int8));
	EXPECT_TRUE(tensor.setTensorDims({ 1, 2, 8, 32 }));
	EXPECT_TRUE(tensor.setTensorLayout(TensorLayout::NCHW));
	AttrList pyramid("scaler");
	EXPECT_TRUE(pyramid.setTypes({ BufferType::ImagePyramid }));
	EXPECT_TRUE(pyramid.setImagePlaneFormats({ ColorFormat::RGBA8888 }));
	EXPECT_TRUE(pyramid.setImagePlaneWidths({ 16 }));
	EXPECT_TRUE(pyramid.setImagePlaneHeights({ 16 }));
	EXPECT_TRUE(pyramid.setPyramidLevels(3));
	EXPECT_TRUE(pyramid.setPyramidScale(0.5));
	AttrList array("tracker");
	EXPECT_TRUE(array.setTypes({ BufferType::Array }));
	EXPECT_TRUE(array.setArrayElementSize(12));
	EXPECT_TRUE(array.setArrayCapacity(10));
	EXPECT_TRUE(array.setArrayStrideAlignment(16));
	std::vector<AttrList> lists = { image, tensor, pyramid, array };
	for (const AttrList *l : { &image, &pyramid, &array }) {
		auto r = reconcile({ l, l == &image ? &tensor : l });
		EXPECT_TRUE(r && r->list);
		if (r && r->list)
			lists.push_back(*r->list);
	}
	return lists;
}

TEST(AttrListCodec, MalformedInputIsRefusedAndNeverCrashes)
{
	AttrList camera = everyTensorKey("camera");
	AttrList classifier("classifier");
	ASSERT_TRUE(classifier.setTypes({ BufferType::Tensor }));
	auto r = reconcile({ &camera, &classifier });
	ASSERT_TRUE(r && r->list);
	std::vector<std::vector<uint8_t>> encodings = { camera.encode(), r->list->encode() };
	for (const AttrList &l : everyImageKey())
		encodings.push_back(l.encode());
	ASSERT_EQ(encodings.size(), 9u);
	for (const std::vector<uint8_t> &good : encodings) {
		ASSERT_TRUE(decode(good)) << "an untouched encoding decodes";
		/* Every truncation. */
		for (size_t n = 0; n < good.size(); n++) {
			std::vector<uint8_t> cut(good.begin(), good.begin() + n);
			auto result = decode(cut);
			ASSERT_FALSE(result) << "decoded from " << n << " of " << good.size() << " bytes";
			EXPECT_TRUE(result.error().code() == EBADMSG || result.error().code() == EPROTO)
				<< n << ": " << result.error().message();
		}
		/* A byte more. */
		auto longer = good;
		longer.push_back(0);
		EXPECT_EQ(decode(longer).error().code(), EBADMSG);
		/* Every byte flipped: refused, or decoded into a list (its
		 * values went through the setters) that travels again unchanged. */
		for (size_t i = 0; i < good.size(); i++) {
			auto bad = good;
			bad[i] ^= 0xff;
			auto result = decode(bad);
			if (!result) {
				EXPECT_TRUE(result.error().code() == EBADMSG
					|| result.error().code() == EPROTO)
					<< i << ": " << result.error().message();
				continue;
			}
			auto again = decode(result->encode());
			ASSERT_TRUE(again) << i << ": " << again.error().message();
			EXPECT_EQ(again->encode(), result->encode()) << i;
		}
	}
	EXPECT_EQ(decode({}).error().code(), EBADMSG);
}

TEST(AttrListCodec, ValuesASetterRefusesAndUnknownKeysAreRefused)
{
	AttrList raw("dsp");
	ASSERT_TRUE(raw.setTypes({ BufferType::Raw }));
	ASSERT_TRUE(raw.setRawAlignment(64));
	auto bytes = raw.encode();
	patch(bytes, 64, 48, 8);
	auto refused = decode(bytes);
	ASSERT_FALSE(refused);
	EXPECT_EQ(refused.error().code(), EBADMSG);
	EXPECT_NE(refused.error().reason().find("power of two"), std::string::npos)
		<< refused.error().reason();

	/* Key 8 (Raw.Alignment) renumbered as a key this libvdla does not know. */
	auto unknown = raw.encode();
	patch(unknown, 8, 99, 4);
	EXPECT_EQ(decode(unknown).error().code(), EPROTO);

	/* A newer format version. */
	auto newer = raw.encode();
	newer[4] = 2;
	auto version = decode(newer);
	ASSERT_FALSE(version);
	EXPECT_EQ(version.error().code(), EPROTO);
	EXPECT_NE(version.error().reason().find("version 2"), std::string::npos);
}

} /* namespace */
