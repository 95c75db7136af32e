/* SPDX-License-Identifier: MIT */
/*
 * Attribute lists and their reconciliation (vdla/attr_list.h): each key set
 * once, each rule (OR, highest permission, largest power-of-two alignment,
 * union, equality), the outputs computed by hand, the vDLA's own needs, the
 * SRAM choice and why it falls back, every conflict's message, and the
 * validation of a reconciled list.
 */
#include <gtest/gtest.h>

#include <cerrno>

#include <vdla/attr_list.h>

namespace {

using namespace vdla;

/* A tensor list of @owner: INT8, @dims, accessed by @accessors. */
AttrList tensorList(const std::string &owner, std::vector<uint64_t> dims,
	std::vector<Accessor> accessors = { Accessor::cpu() })
{
	AttrList list(owner);
	EXPECT_TRUE(list.setTypes({ BufferType::Tensor }));
	EXPECT_TRUE(list.setTensorDataType(TensorDataType::Int8));
	EXPECT_TRUE(list.setTensorDims(std::move(dims)));
	EXPECT_TRUE(list.setAccessors(std::move(accessors)));
	return list;
}

AttrList rawList(const std::string &owner, uint64_t size)
{
	AttrList list(owner);
	EXPECT_TRUE(list.setTypes({ BufferType::Raw }));
	EXPECT_TRUE(list.setRawSize(size));
	return list;
}

std::vector<std::string> messages(const std::vector<AttrConflict> &conflicts)
{
	std::vector<std::string> out;
	for (const AttrConflict &c : conflicts)
		out.push_back(c.message());
	return out;
}

TEST(AttrList, AKeyIsSetOnceWithAValidValueAndReadBack)
{
	AttrList list("camera");
	EXPECT_EQ(list.setRawSize(4096).error().code(), EINVAL) << "Raw keys need the type first";
	ASSERT_TRUE(list.setTypes({ BufferType::Raw }));
	EXPECT_EQ(list.setTypes({ BufferType::Tensor }).error().code(), EEXIST);
	AttrList two("two");
	EXPECT_EQ(two.setTypes({ BufferType::Raw, BufferType::Tensor }).error().code(), EINVAL)
		<< "one type for now";
	EXPECT_EQ(two.setTypes({}).error().code(), EINVAL);
	EXPECT_EQ(list.setRawAlignment(48).error().code(), EINVAL) << "not a power of two";
	EXPECT_FALSE(list.rawAlignment()) << "a refused setter changes nothing";
	ASSERT_TRUE(list.setRawAlignment(64));
	EXPECT_EQ(list.setRawSize(0).error().code(), EINVAL);
	ASSERT_TRUE(list.setRawSize(1000));
	EXPECT_EQ(list.setTensorDims({ 1 }).error().code(), EINVAL) << "a Tensor key on a Raw list";
	EXPECT_EQ(list.setAccessors({}).error().code(), EINVAL);
	ASSERT_TRUE(list.setAccessors({ Accessor::dla(0), Accessor::cpu(), Accessor::dla(0) }));
	EXPECT_EQ(list.accessors()->size(), 2u) << "duplicates count once";
	EXPECT_EQ(*list.types(), std::vector<BufferType>{ BufferType::Raw });
	EXPECT_EQ(list.rawSize(), 1000u);
	EXPECT_EQ(list.rawAlignment(), 64u);
	EXPECT_FALSE(list.needCpuAccess()) << "unset";

	AttrList tensor("model");
	ASSERT_TRUE(tensor.setTypes({ BufferType::Tensor }));
	EXPECT_EQ(tensor.setTensorDims({}).error().code(), EINVAL);
	EXPECT_EQ(tensor.setTensorDims({ 1, 0 }).error().code(), EINVAL);
	EXPECT_EQ(tensor.setTensorDims(std::vector<uint64_t>(9, 1)).error().code(), EINVAL);
	ASSERT_TRUE(tensor.setTensorDims({ 1, 3, 8, 8 }));
	EXPECT_EQ(tensor.setTensorAlignmentPerDim({ 1, 1 }).error().code(), EINVAL);
	EXPECT_EQ(tensor.setTensorQuantization({ 0.0, 0 }).error().code(), EINVAL);
	EXPECT_EQ(tensor.setTensorQuantization({ 1.0 / 0.0, 0 }).error().code(), EINVAL);
	ASSERT_TRUE(tensor.setTensorLayout(TensorLayout::NHWC));
	EXPECT_EQ(tensor.tensorLayout(), TensorLayout::NHWC);
}

TEST(Reconcile, EachKeyFollowsItsRule)
{
	AttrList camera = rawList("camera", 6000), viewer = rawList("viewer", 6000);
	ASSERT_TRUE(camera.setRequiredPermission(Permission::ReadWrite));
	ASSERT_TRUE(camera.setRawAlignment(256));
	ASSERT_TRUE(camera.setAccessors({ Accessor::other("isp") }));
	ASSERT_TRUE(viewer.setRequiredPermission(Permission::ReadOnly));
	ASSERT_TRUE(viewer.setNeedCpuAccess(true));
	ASSERT_TRUE(viewer.setEnableCpuCache(true));
	ASSERT_TRUE(viewer.setRawAlignment(64));
	Reconciliation r = *reconcile({ &camera, &viewer });
	ASSERT_TRUE(r.list) << (r.conflicts.empty() ? "" : r.conflicts[0].message());
	const AttrList &out = *r.list;
	EXPECT_TRUE(out.reconciled());
	EXPECT_EQ(*out.types(), std::vector<BufferType>{ BufferType::Raw });
	EXPECT_EQ(out.needCpuAccess(), true) << "OR";
	EXPECT_EQ(out.enableCpuCache(), true) << "OR";
	EXPECT_EQ(out.actualPermission(), Permission::ReadWrite) << "the highest";
	EXPECT_EQ(out.size(), 6000u);
	EXPECT_EQ(out.alignment(), 256u) << "the largest, no vDLA";
	/* The union, with the CPU of the party that needs CPU access. */
	EXPECT_EQ(*out.accessors(),
		(std::vector<Accessor>{ Accessor::cpu(), Accessor::other("isp") }));
	EXPECT_EQ(out.memoryDomain(), MemoryDomain::System);
	EXPECT_EQ(out.memoryDomainReason(), "");
	AttrList copy = out;
	EXPECT_EQ(copy.setEnableCpuCache(false).error().code(), EACCES)
		<< "a reconciled list is read-only";
	EXPECT_EQ(out.preferredMemoryDomain(), MemoryDomain::System) << "reads back reconciled";

	/* The same lists the other way round: no rule takes the first party. */
	r = *reconcile({ &viewer, &camera });
	ASSERT_TRUE(r.list);
	EXPECT_EQ(r.list->actualPermission(), Permission::ReadWrite);
	EXPECT_EQ(r.list->alignment(), 256u);
	EXPECT_EQ(r.list->needCpuAccess(), true);
}

TEST(Reconcile, AVdlaAccessorAddsTheDevicesPageAlignment)
{
	AttrList producer = rawList("producer", 100);
	ASSERT_TRUE(producer.setAccessors({ Accessor::dla(1) }));
	ASSERT_TRUE(producer.setRawAlignment(16));
	Reconciliation r = *reconcile({ &producer });
	ASSERT_TRUE(r.list);
	EXPECT_EQ(r.list->alignment(), AttrList::kDlaAlignment);
	EXPECT_EQ(r.list->rawAlignment(), 16u) << "what the parties asked";
	AttrList tensor = tensorList("tensor", { 4 }, { Accessor::dla(0) });
	r = *reconcile({ &tensor });
	EXPECT_EQ(r.list->alignment(), AttrList::kDlaAlignment);

	/* Naming the CPU as an accessor is needing CPU access. */
	AttrList reader = rawList("reader", 100);
	ASSERT_TRUE(reader.setAccessors({ Accessor::cpu() }));
	r = *reconcile({ &reader });
	EXPECT_EQ(r.list->needCpuAccess(), true);
}

TEST(Reconcile, TensorStridesAndSizeFollowTheAlignments)
{
	/* INT16 [2,3,5]: inner stride 2; dim 1 aligned to 16: 2*5=10 -> 16;
	 * dim 0: 16*3=48, aligned to 64 -> 64; size 64*2 = 128. */
	AttrList a("a"), b("b");
	for (AttrList *list : { &a, &b }) {
		ASSERT_TRUE(list->setTypes({ BufferType::Tensor }));
		ASSERT_TRUE(list->setTensorDataType(TensorDataType::Int16));
		ASSERT_TRUE(list->setTensorDims({ 2, 3, 5 }));
	}
	ASSERT_TRUE(a.setTensorAlignmentPerDim({ 1, 16, 1 }));
	ASSERT_TRUE(b.setTensorAlignmentPerDim({ 64, 4, 2 }));
	ASSERT_TRUE(b.setTensorQuantization({ 0.25, 3 }));
	Reconciliation r = *reconcile({ &a, &b });
	ASSERT_TRUE(r.list);
	EXPECT_EQ(*r.list->tensorAlignmentPerDim(), (std::vector<uint64_t>{ 64, 16, 2 }));
	EXPECT_EQ(*r.list->tensorStrides(), (std::vector<uint64_t>{ 64, 16, 2 }));
	EXPECT_EQ(r.list->size(), 128u);
	EXPECT_TRUE(r.list->tensorQuantization() == (Quantization{ 0.25, 3 }));
	EXPECT_EQ(r.list->alignment(), 64u) << "where every stride is aligned";
	EXPECT_TRUE(validateReconciled(*r.list, { &a, &b })->empty());

	/* Unaligned INT8 [2,3,5]: strides [15,5,1], 30 bytes. INT8 [2,3] with
	 * its outer stride aligned to 64: [64,1], 128 bytes. */
	AttrList plain = tensorList("plain", { 2, 3, 5 });
	r = *reconcile({ &plain });
	ASSERT_TRUE(r.list);
	EXPECT_EQ(*r.list->tensorStrides(), (std::vector<uint64_t>{ 15, 5, 1 }));
	EXPECT_EQ(r.list->size(), 30u);
	AttrList rows = tensorList("rows", { 2, 3 });
	ASSERT_TRUE(rows.setTensorAlignmentPerDim({ 64, 1 }));
	r = *reconcile({ &rows });
	ASSERT_TRUE(r.list);
	EXPECT_EQ(*r.list->tensorStrides(), (std::vector<uint64_t>{ 64, 1 }));
	EXPECT_EQ(r.list->size(), 128u);

	/* The innermost stride is the element: aligning it further conflicts. */
	AttrList padded = tensorList("padded", { 3, 2 });
	ASSERT_TRUE(padded.setTensorAlignmentPerDim({ 1, 64 }));
	EXPECT_EQ(messages(reconcile({ &padded })->conflicts),
		(std::vector<std::string>{ "Tensor.AlignmentPerDim cannot align the innermost "
					   "dimension beyond the element size (1 bytes): padded [1,64]" }));
}

TEST(Reconcile, ConflictsNameTheKeyTheRuleAndEveryPartysValue)
{
	AttrList camera = tensorList("camera", { 1, 3, 224, 224 });
	AttrList classifier = tensorList("classifier", { 1, 3, 256, 256 });
	ASSERT_TRUE(camera.setTensorLayout(TensorLayout::NCHW));
	ASSERT_TRUE(classifier.setTensorLayout(TensorLayout::NHWC));
	Reconciliation r = *reconcile({ &camera, &classifier });
	EXPECT_FALSE(r.list);
	EXPECT_EQ(messages(r.conflicts),
		(std::vector<std::string>{
			"Tensor.Dims must be equal: camera [1,3,224,224], classifier [1,3,256,256]",
			"Tensor.Layout must be equal: camera NCHW, classifier NHWC" }));

	AttrList raw = rawList("logger", 64);
	r = *reconcile({ &camera, &raw });
	ASSERT_EQ(r.conflicts.size(), 1u);
	EXPECT_EQ(r.conflicts[0].message(),
		"General.Types must be equal, or together be Image and Tensor: camera {Tensor}, "
		"logger {Raw}");
	EXPECT_EQ(r.conflicts[0].key, AttrKey::Types);
	EXPECT_EQ(r.conflicts[0].values.size(), 2u);

	AttrList untyped("nobody"), sizeless("sizeless");
	ASSERT_TRUE(sizeless.setTypes({ BufferType::Raw }));
	EXPECT_EQ(messages(reconcile({ &untyped })->conflicts),
		(std::vector<std::string>{ "General.Types is required" }));
	EXPECT_EQ(messages(reconcile({ &sizeless })->conflicts),
		(std::vector<std::string>{ "Raw.Size is required" }));
	EXPECT_EQ(reconcile({}).error().code(), EINVAL);
	EXPECT_EQ(reconcile({ &camera, nullptr }).error().code(), EINVAL);

	/* One list's layout, another's dims: they meet only when reconciled. */
	AttrList layout("layout"), flat("flat");
	for (AttrList *list : { &layout, &flat }) {
		ASSERT_TRUE(list->setTypes({ BufferType::Tensor }));
		ASSERT_TRUE(list->setTensorDataType(TensorDataType::Int8));
	}
	ASSERT_TRUE(layout.setTensorLayout(TensorLayout::NCHW));
	ASSERT_TRUE(flat.setTensorDims({ 5, 6, 7 }));
	EXPECT_EQ(messages(reconcile({ &layout, &flat })->conflicts),
		(std::vector<std::string>{ "Tensor.Layout needs 4 dimensions in Tensor.Dims: "
					   "layout Tensor.Layout NCHW, flat Tensor.Dims [5,6,7]" }));

	/* A size beyond 64 bits conflicts instead of wrapping round. */
	AttrList huge("huge");
	ASSERT_TRUE(huge.setTypes({ BufferType::Tensor }));
	ASSERT_TRUE(huge.setTensorDataType(TensorDataType::Float32));
	ASSERT_TRUE(huge.setTensorDims({ uint64_t(1) << 62 }));
	EXPECT_EQ(messages(reconcile({ &huge })->conflicts),
		(std::vector<std::string>{
			"Tensor.Dims describe more than 2^64 bytes: huge [4611686018427387904]" }));
	AttrList wide = tensorList("wide", { 2, (uint64_t(1) << 63) + 1 });
	ASSERT_TRUE(wide.setTensorAlignmentPerDim({ uint64_t(1) << 63, 1 }));
	EXPECT_FALSE(reconcile({ &wide })->list);
}

TEST(Reconcile, SramServesOneVdlaAloneAndSaysWhyItFellBack)
{
	AttrList producer = tensorList("producer", { 1, 8, 4, 4 }, { Accessor::dla(0) });
	AttrList consumer = tensorList("consumer", { 1, 8, 4, 4 }, { Accessor::dla(0) });
	ASSERT_TRUE(producer.setMemoryDomain(MemoryDomain::Sram, false));
	Reconciliation r = *reconcile({ &producer, &consumer });
	ASSERT_TRUE(r.list);
	EXPECT_EQ(r.list->memoryDomain(), MemoryDomain::Sram);

	/* A CPU reader with fallback allowed: system memory, and why. */
	AttrList viewer = tensorList("viewer", { 1, 8, 4, 4 }, { Accessor::dla(0) });
	AttrList cpuReader = tensorList("cpu reader", { 1, 8, 4, 4 }, { Accessor::dla(0) });
	ASSERT_TRUE(viewer.setMemoryDomain(MemoryDomain::Sram, true));
	ASSERT_TRUE(cpuReader.setNeedCpuAccess(true));
	r = *reconcile({ &viewer, &cpuReader });
	ASSERT_TRUE(r.list);
	EXPECT_EQ(r.list->memoryDomain(), MemoryDomain::System);
	EXPECT_EQ(r.list->memoryDomainReason(), "SRAM was preferred, but the CPU accesses it");

	EXPECT_EQ(r.list->preferredMemoryDomain(), MemoryDomain::Sram);
	EXPECT_EQ(r.list->sramFallbackAllowed(), true);

	/* Another engine, or no vDLA at all, are reasons too. */
	AttrList display = tensorList("display", { 1, 8, 4, 4 }, { Accessor::other("display") });
	r = *reconcile({ &viewer, &display });
	EXPECT_EQ(r.list->memoryDomainReason(), "SRAM was preferred, but other:display accesses it");

	/* A party requiring system memory outweighs a preference for SRAM. */
	AttrList system = tensorList("archiver", { 1, 8, 4, 4 }, { Accessor::dla(0) });
	ASSERT_TRUE(system.setMemoryDomain(MemoryDomain::System, false));
	r = *reconcile({ &viewer, &system });
	EXPECT_EQ(r.list->memoryDomain(), MemoryDomain::System);
	EXPECT_EQ(r.list->memoryDomainReason(),
		"SRAM was preferred, but archiver requires system memory");
	EXPECT_FALSE(reconcile({ &producer, &system })->list) << "SRAM required as well";

	/* Without a fallback, a conflict; a second vDLA is another reason. */
	AttrList other = tensorList("second dla", { 1, 8, 4, 4 }, { Accessor::dla(1) });
	r = *reconcile({ &producer, &other });
	EXPECT_EQ(messages(r.conflicts),
		(std::vector<std::string>{ "General.MemoryDomain cannot be SRAM without a fallback: "
					   "it is shared by 2 vDLAs, and SRAM belongs to one "
					   "(accessors {dla:0, dla:1}): producer Sram (no fallback)" }));
}

TEST(Reconcile, AReconciledListIsValidatedAgainstEachParty)
{
	AttrList camera = rawList("camera", 4096), viewer = rawList("viewer", 4096);
	ASSERT_TRUE(camera.setRequiredPermission(Permission::ReadOnly));
	Reconciliation r = *reconcile({ &camera });
	ASSERT_TRUE(r.list);
	EXPECT_TRUE(validateReconciled(*r.list, { &camera })->empty());

	/* A party that wants more than was reconciled without it. */
	ASSERT_TRUE(viewer.setRequiredPermission(Permission::ReadWrite));
	ASSERT_TRUE(viewer.setNeedCpuAccess(true));
	ASSERT_TRUE(viewer.setAccessors({ Accessor::dla(2) }));
	ASSERT_TRUE(viewer.setRawAlignment(8192));
	ASSERT_TRUE(viewer.setEnableCpuCache(true));
	EXPECT_EQ(messages(*validateReconciled(*r.list, { &viewer })),
		(std::vector<std::string>{
			"General.NeedCpuAccess is not granted: viewer true, reconciled false",
			"General.EnableCpuCache is not granted: viewer true, reconciled false",
			"General.RequiredPermission exceeds what was granted: viewer ReadWrite, "
			"reconciled ReadOnly",
			"General.Accessors names an accessor not reconciled: viewer dla:2, "
			"reconciled {}",
			"Raw.Alignment is not met: viewer 8192, reconciled 1" }));
	EXPECT_EQ(validateReconciled(camera, { &camera }).error().code(), EINVAL)
		<< "an unreconciled list is refused";
	EXPECT_EQ(reconcile({ &*r.list }).error().code(), EINVAL)
		<< "reconciled lists are not inputs";
}

} /* namespace */
