/* SPDX-License-Identifier: MIT */
/*
 * The device MMU against docs/hw-spec.md ("Device addresses", "MMU block"):
 * translation through three-level page tables, per-context tables, the MMU
 * off, every fault reason and what a fault latches, and TLB invalidation.
 * BDMA copies carry the accesses; RUBIK is the second engine where one is
 * needed.
 */
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <string>

#include "device_test_util.h"

namespace vdla_test {
namespace {

constexpr uint64_t kPage = VDLA_PAGE_SIZE;
constexpr uint64_t kVaLimit = 1ull << VDLA_VA_BITS;

/* Applies @op to a host copy of the destination, for the expected result. */
void modelCopy(const BdmaOp &op, const std::vector<uint8_t> &src, uint64_t srcBase,
	       std::vector<uint8_t> &dst, uint64_t dstBase)
{
	op.forEachLine([&](uint64_t srcOff, uint64_t dstOff, uint32_t bytes) {
		std::memcpy(&dst[op.dst - dstBase + dstOff], &src[op.src - srcBase + srcOff],
			    bytes);
	});
}

class Mmu : public ::testing::Test
{
protected:
	Mmu()
		: dev_(nullptr, kDeviceTestGuestBytes)
	{
	}

	DeviceHarness dev_;
};

TEST_F(Mmu, StridedCopyThroughScatteredPagesMatchesTheVirtualLayout)
{
	constexpr unsigned kContext = 1;
	VirtualSpace vs(dev_, kContext);
	/*
	 * The source crosses a 1 GiB boundary (another level-0 entry and
	 * level-1 table); the destination is the top of the VA space
	 * (level-0 index 511). Both land on pages scattered over the pool.
	 */
	const uint64_t srcVa = (3ull << 30) - 3 * kPage;
	const uint64_t dstVa = kVaLimit - 7 * kPage;
	std::vector<uint64_t> pool = scatter(allocPages(dev_, 15));
	vs.mapPages(srcVa, { pool.begin(), pool.begin() + 8 });
	vs.mapPages(dstVa, { pool.begin() + 8, pool.end() });
	vs.activate();

	/* Lines of 3000 bytes with strides that are not page multiples: most
	 * lines cross a page boundary, and the destination has gaps. */
	BdmaOp op;
	op.src = srcVa + 0x234;
	op.dst = dstVa + 0x9a0;
	op.lineBytes = 3000;
	op.lines = 4;
	op.srcLineStride = 4100;
	op.dstLineStride = 3072;
	op.surfaces = 2;
	op.srcSurfStride = 16000;
	op.dstSurfStride = 13000;
	op.context = kContext;
	ASSERT_LE(op.src + op.srcExtent(), srcVa + 8 * kPage);
	ASSERT_LE(op.dst + op.dstExtent(), dstVa + 7 * kPage);

	std::vector<uint8_t> src = pattern(8 * kPage, 1);
	vs.write(srcVa, src);
	std::vector<uint8_t> expected = vs.read(dstVa, 7 * kPage);
	modelCopy(op, src, srcVa, expected, dstVa);

	ASSERT_EQ(runBdma(dev_, 0, op), unsigned(VDLA_GROUP_DONE));
	EXPECT_EQ(dev_.stats(kBdma, 0).error, unsigned(VDLA_ERROR_NONE));
	/* Every element byte in place, and the gaps between lines untouched. */
	EXPECT_TRUE(vs.read(dstVa, 7 * kPage) == expected);
	EXPECT_TRUE(vs.read(srcVa, 8 * kPage) == src);
	EXPECT_EQ(dev_.read(VDLA_REG_INT_STATUS), VDLA_INT_DONE(kBdma));
	EXPECT_FALSE(readMmuFault(dev_).valid);
}

TEST_F(Mmu, EachOperationUsesTheTablesOfItsOwnContext)
{
	/*
	 * Three contexts map the same virtual addresses to different guest
	 * pages; BDMA group 0, BDMA group 1 and RUBIK each use one.
	 */
	const uint64_t srcVa = 0x40000000, dstVa = 0x7ff000;
	const unsigned contexts[3] = { 1, 2, 15 };
	std::vector<std::unique_ptr<VirtualSpace>> spaces;
	for (unsigned i = 0; i < 3; i++) {
		spaces.push_back(std::make_unique<VirtualSpace>(dev_, contexts[i]));
		std::vector<uint64_t> pages = scatter(allocPages(dev_, 4));
		spaces[i]->mapPages(srcVa, { pages[0], pages[1] });
		spaces[i]->mapPages(dstVa, { pages[2], pages[3] });
		spaces[i]->write(srcVa, pattern(2 * kPage, 10 + i));
		spaces[i]->activate();
	}

	startBdma(dev_, 0, BdmaOp::linear(srcVa + 0x100, dstVa + 0x300, 6000, contexts[0]));
	startBdma(dev_, 1, BdmaOp::linear(srcVa + 0x100, dstVa + 0x300, 6000, contexts[1]));
	startRubikCopy(dev_, 0, srcVa + 0x100, dstVa + 0x300, 2, 3000, contexts[2]);
	ASSERT_TRUE(dev_.waitInterrupts(VDLA_INT_DONE(kBdma) | VDLA_INT_DONE(kBdma) |
					VDLA_INT_DONE(kRubik)));
	ASSERT_TRUE(dev_.waitIdle());

	for (unsigned i = 0; i < 3; i++) {
		SCOPED_TRACE("context " + std::to_string(contexts[i]));
		std::vector<uint8_t> src = pattern(2 * kPage, 10 + i);
		std::vector<uint8_t> expected(2 * kPage, kCanary);
		std::memcpy(&expected[0x300], &src[0x100], 6000);
		EXPECT_TRUE(spaces[i]->read(dstVa, 2 * kPage) == expected);
	}
	EXPECT_EQ(dev_.read(VDLA_REG_INT_STATUS) & (VDLA_INT_ERROR_ALL | VDLA_INT_MMU_FAULT), 0u);
}

TEST_F(Mmu, DisabledMmuUsesGuestPhysicalAddressesWhateverTheContext)
{
	uint64_t src = dev_.alloc(2 * kPage, kPage);
	uint64_t dst = dev_.alloc(2 * kPage, kPage);
	fillPattern(dev_.guest(src), 2 * kPage, 3);
	std::memset(dev_.guest(dst), kCanary, 2 * kPage);

	/* Context 1 maps the source's physical address elsewhere: an enabled
	 * MMU would copy the other page. */
	std::vector<uint64_t> decoy = allocPages(dev_, 2);
	VirtualSpace vs(dev_, 1);
	vs.mapPages(src, decoy);
	vs.mapPages(dst, decoy);
	vs.activate();
	dev_.write(VDLA_REG_MMU_CTRL, 0);
	ASSERT_EQ(dev_.read(VDLA_REG_MMU_CTRL), 0u);

	/* Context 1 has tables; context 9 is not even enabled. */
	ASSERT_EQ(runBdma(dev_, 0, BdmaOp::linear(src + 0x10, dst + 0x20, 5000, 1)),
		  unsigned(VDLA_GROUP_DONE));
	ASSERT_EQ(runBdma(dev_, 1, BdmaOp::linear(src + 0x10, dst + kPage + 0x800, 2000, 9)),
		  unsigned(VDLA_GROUP_DONE));

	std::vector<uint8_t> expected(2 * kPage, kCanary);
	std::memcpy(&expected[0x20], dev_.guest(src + 0x10), 5000);
	std::memcpy(&expected[kPage + 0x800], dev_.guest(src + 0x10), 2000);
	EXPECT_TRUE(guestBytes(dev_, dst, 2 * kPage) == expected);
	EXPECT_TRUE(guestBytes(dev_, decoy[0], 2 * kPage) ==
		    std::vector<uint8_t>(2 * kPage, kCanary));
	EXPECT_FALSE(readMmuFault(dev_).valid);
}

TEST_F(Mmu, IgnoredEntryBitsDoNotChangeTranslation)
{
	/*
	 * "Everything else is ignored": set bits 3-11 and 52-63 in every entry
	 * of the walks, and bits 1-2 in the upper levels, where they mean
	 * nothing.
	 */
	constexpr unsigned kContext = 2;
	const uint64_t srcVa = 0x12345000, dstVa = 0x5432100000;
	VirtualSpace vs(dev_, kContext);
	std::vector<uint64_t> pages = scatter(allocPages(dev_, 4));
	vs.mapPages(srcVa, { pages[0], pages[1] });
	vs.mapPages(dstVa, { pages[2], pages[3] });
	std::vector<uint8_t> src = pattern(2 * kPage, 41);
	vs.write(srcVa, src);

	const uint64_t ignored = 0xfff0000000000ff8ull;
	for (uint64_t va : { srcVa, srcVa + kPage, dstVa, dstVa + kPage }) {
		for (unsigned level = 0; level < VDLA_PT_LEVELS; level++) {
			uint64_t table = pageTableAddress(dev_, vs.tables().root(), va, level);
			ASSERT_NE(table, 0u);
			unsigned shift = VDLA_PAGE_SHIFT + 9 * (VDLA_PT_LEVELS - 1 - level);
			uint64_t index = (va >> shift) & (VDLA_PT_ENTRIES - 1);
			uint8_t *p = dev_.guest(table + 8 * index);
			uint64_t entry;
			std::memcpy(&entry, p, 8);
			entry |= ignored;
			if (level < VDLA_PT_LEVELS - 1)
				entry |= VDLA_PTE_READ | VDLA_PTE_WRITE;
			std::memcpy(p, &entry, 8);
		}
	}
	vs.activate();

	ASSERT_EQ(runBdma(dev_, 0, BdmaOp::linear(srcVa + 0x123, dstVa + 0x456, 7000, kContext)),
		  unsigned(VDLA_GROUP_DONE));
	std::vector<uint8_t> expected(2 * kPage, kCanary);
	std::memcpy(&expected[0x456], &src[0x123], 7000);
	EXPECT_TRUE(guestBytes(dev_, pages[2], kPage) ==
		    std::vector<uint8_t>(expected.begin(), expected.begin() + kPage));
	EXPECT_TRUE(guestBytes(dev_, pages[3], kPage) ==
		    std::vector<uint8_t>(expected.begin() + kPage, expected.end()));
}

TEST_F(Mmu, CopySpanningManyPagesTranslatesEveryPage)
{
	/* 1024 scattered pages each way: more translations than a small TLB
	 * holds, so entries are replaced during the operation. */
	constexpr unsigned kPages = 1024;
	constexpr unsigned kContext = 9;
	const uint64_t srcVa = 0x100000000, dstVa = 0x200000000;
	VirtualSpace vs(dev_, kContext);
	std::vector<uint64_t> pool = scatter(allocPages(dev_, 2 * kPages));
	vs.mapPages(srcVa, { pool.begin(), pool.begin() + kPages });
	vs.mapPages(dstVa, { pool.begin() + kPages, pool.end() });
	vs.activate();
	std::vector<uint8_t> src = pattern(kPages * kPage, 51);
	vs.write(srcVa, src);

	BdmaOp op;
	op.src = srcVa + 0x10;
	op.dst = dstVa;
	op.lineBytes = 4000;
	op.lines = kPages - 1;
	op.srcLineStride = kPage;
	op.dstLineStride = kPage;
	op.context = kContext;
	std::vector<uint8_t> expected = vs.read(dstVa, kPages * kPage);
	modelCopy(op, src, srcVa, expected, dstVa);

	ASSERT_EQ(runBdma(dev_, 0, op), unsigned(VDLA_GROUP_DONE));
	EXPECT_TRUE(vs.read(dstVa, kPages * kPage) == expected);
	EXPECT_EQ(dev_.stats(kBdma, 0).bytesWritten, uint64_t(4000) * (kPages - 1));
}

TEST_F(Mmu, AliasedRangesCopyAsIfTheWholeSourceWasReadFirst)
{
	/*
	 * Two virtual ranges on the same guest pages, the destination 100
	 * bytes further on: only reading the whole source before writing
	 * (the spec's memmove rule) gives the shifted original.
	 */
	constexpr unsigned kContext = 4;
	VirtualSpace vs(dev_, kContext);
	std::vector<uint64_t> pages = scatter(allocPages(dev_, 4));
	vs.mapPages(0x1000000, pages);
	vs.mapPages(0x3000000, pages);
	std::vector<uint8_t> original = pattern(4 * kPage, 52);
	vs.write(0x1000000, original);
	vs.activate();

	ASSERT_EQ(runBdma(dev_, 0, BdmaOp::linear(0x1000000, 0x3000000 + 100, 3 * kPage, kContext)),
		  unsigned(VDLA_GROUP_DONE));
	std::vector<uint8_t> expected = original;
	std::memmove(&expected[100], &original[0], 3 * kPage);
	EXPECT_TRUE(vs.read(0x1000000, 4 * kPage) == expected);
}

/*
 * Faults. A copy of 3 pages minus 0x100 bytes from kSrcVa + 0x40 to
 * kDstVa + 0x80, both 3 pages mapped read-write in context 3 on scattered
 * pages; each test breaks one thing and checks what the spec says a fault
 * does: ERROR with MMU_FAULT, ERROR(e) and MMU_FAULT pending, the latch
 * holding address, engine, context, access kind and reason, and no byte of
 * memory changed.
 */
class MmuFault : public ::testing::Test
{
protected:
	static constexpr unsigned kContext = 3;
	static constexpr uint64_t kSrcVa = 0x10000000;
	static constexpr uint64_t kDstVa = 0x20000000;
	static constexpr uint64_t kSrcStart = kSrcVa + 0x40;
	static constexpr uint64_t kDstStart = kDstVa + 0x80;
	static constexpr uint32_t kBytes = 3 * kPage - 0x100;

	MmuFault()
		: dev_(nullptr, kDeviceTestGuestBytes), vs_(dev_, kContext)
	{
		std::vector<uint64_t> pages = scatter(allocPages(dev_, 6));
		srcPages_ = { pages[0], pages[1], pages[2] };
		dstPages_ = { pages[3], pages[4], pages[5] };
		vs_.mapPages(kSrcVa, srcPages_);
		vs_.mapPages(kDstVa, dstPages_);
		vs_.write(kSrcVa, pattern(3 * kPage, 7));
		vs_.activate();
	}

	BdmaOp copy(uint64_t src = kSrcStart, uint64_t dst = kDstStart, uint32_t bytes = kBytes,
		    uint32_t context = kContext)
	{
		return BdmaOp::linear(src, dst, bytes, context);
	}

	/* Changes one leaf and invalidates, as a driver must. */
	void remap(uint64_t va, uint64_t gpa, bool read, bool write)
	{
		vs_.map(va, gpa, kPage, read, write);
		dev_.write(VDLA_REG_MMU_INVALIDATE, kContext);
	}

	/* Every mapped page and the SRAM, to show that a fault wrote nothing. */
	std::vector<uint8_t> memorySnapshot()
	{
		std::vector<uint8_t> all;
		for (uint64_t gpa : srcPages_) {
			auto bytes = guestBytes(dev_, gpa, kPage);
			all.insert(all.end(), bytes.begin(), bytes.end());
		}
		for (uint64_t gpa : dstPages_) {
			auto bytes = guestBytes(dev_, gpa, kPage);
			all.insert(all.end(), bytes.begin(), bytes.end());
		}
		uint32_t sramSize = dev_.read(VDLA_REG_SRAM_SIZE);
		all.insert(all.end(), dev_.sram(), dev_.sram() + sramSize);
		return all;
	}

	/* Runs @op in BDMA group 0 and checks the common outcome of a fault. */
	void runFaulting(const BdmaOp &op)
	{
		std::vector<uint8_t> before = memorySnapshot();
		EXPECT_EQ(runBdma(dev_, 0, op), unsigned(VDLA_GROUP_ERROR));
		EXPECT_TRUE(dev_.waitInterrupts(VDLA_INT_ERROR(kBdma) | VDLA_INT_MMU_FAULT,
						milliseconds(2000)));
		GroupStats stats = dev_.stats(kBdma, 0);
		EXPECT_EQ(stats.error, unsigned(VDLA_ERROR_MMU_FAULT));
		EXPECT_EQ(stats.bytesWritten, 0u);
		EXPECT_EQ(dev_.read(VDLA_REG_INT_STATUS),
			  VDLA_INT_ERROR(kBdma) | VDLA_INT_MMU_FAULT);
		EXPECT_TRUE(memorySnapshot() == before) << "a faulting operation changed memory";
	}

	void expectLatched(bool write, uint32_t reason, uint64_t addr, uint32_t context = kContext,
			   uint32_t engine = kBdma)
	{
		EXPECT_EQ(dev_.read(VDLA_REG_MMU_FAULT_STATUS),
			  faultStatusWord(write, reason, engine, context));
		EXPECT_EQ(read64(dev_, VDLA_REG_MMU_FAULT_ADDR_LO), addr);
	}

	/*
	 * For faults that every access of the operation would take (a bad
	 * context, an unreadable root table), the spec does not order the
	 * checks of source and destination: the first access checked is the
	 * first byte of either.
	 */
	void expectLatchedFirstAccess(uint32_t reason, uint64_t src, uint64_t dst,
				      uint32_t context = kContext)
	{
		LatchedFault f = readMmuFault(dev_);
		EXPECT_TRUE(f.valid);
		EXPECT_EQ(f.reason, reason);
		EXPECT_EQ(f.engine, unsigned(kBdma));
		EXPECT_EQ(f.context, context);
		EXPECT_TRUE((f.addr == src && !f.write) || (f.addr == dst && f.write))
			<< "address 0x" << std::hex << f.addr << (f.write ? " write" : " read");
	}

	DeviceHarness dev_;
	VirtualSpace vs_;
	std::vector<uint64_t> srcPages_, dstPages_;
};

TEST_F(MmuFault, UnmappedSourcePageFaultsAndWritesNothing)
{
	vs_.unmap(kSrcVa + kPage, kPage);
	runFaulting(copy());
	expectLatched(false, VDLA_MMU_FAULT_UNMAPPED, kSrcVa + kPage);
}

TEST_F(MmuFault, UnmappedDestinationFaultsAtItsFirstByte)
{
	/* The access starts 0x80 into the unmapped page: that byte faults. */
	vs_.unmap(kDstVa, kPage);
	runFaulting(copy());
	expectLatched(true, VDLA_MMU_FAULT_UNMAPPED, kDstStart);
}

TEST_F(MmuFault, UnmappedLastDestinationPageFaultsAndWritesNoEarlierPage)
{
	vs_.unmap(kDstVa + 2 * kPage, kPage);
	runFaulting(copy());
	expectLatched(true, VDLA_MMU_FAULT_UNMAPPED, kDstVa + 2 * kPage);
}

TEST_F(MmuFault, WriteToReadOnlyPageFaultsAndWritesNothing)
{
	remap(kDstVa + kPage, dstPages_[1], true, false);
	runFaulting(copy());
	expectLatched(true, VDLA_MMU_FAULT_READ_ONLY, kDstVa + kPage);
}

TEST_F(MmuFault, ReadOnlyLastDestinationPageFaultsAndWritesNoEarlierPage)
{
	remap(kDstVa + 2 * kPage, dstPages_[2], true, false);
	runFaulting(copy());
	expectLatched(true, VDLA_MMU_FAULT_READ_ONLY, kDstVa + 2 * kPage);
}

TEST_F(MmuFault, ReadOfPageWithoutReadFaults)
{
	remap(kSrcVa, srcPages_[0], false, true);
	runFaulting(copy());
	expectLatched(false, VDLA_MMU_FAULT_NO_READ, kSrcStart);
}

TEST_F(MmuFault, ReadOnlySourceAndWriteOnlyDestinationAreEnough)
{
	/* The converse of the two tests above: the permissions needed are
	 * exactly READ on the source and WRITE on the destination. */
	for (unsigned i = 0; i < 3; i++) {
		remap(kSrcVa + i * kPage, srcPages_[i], true, false);
		remap(kDstVa + i * kPage, dstPages_[i], false, true);
	}
	ASSERT_EQ(runBdma(dev_, 0, copy()), unsigned(VDLA_GROUP_DONE));
	std::vector<uint8_t> src = pattern(3 * kPage, 7);
	EXPECT_EQ(std::memcmp(dev_.guest(dstPages_[0]) + 0x80, &src[0x40], kPage - 0x80), 0);
	EXPECT_EQ(std::memcmp(dev_.guest(dstPages_[2]), &src[2 * kPage - 0x40], kPage - 0x80), 0);
	EXPECT_FALSE(readMmuFault(dev_).valid);
}

TEST_F(MmuFault, NeverEnabledContextFaultsBadContext)
{
	runFaulting(copy(kSrcStart, kDstStart, kBytes, 4));
	expectLatchedFirstAccess(VDLA_MMU_FAULT_BAD_CONTEXT, kSrcStart, kDstStart, 4);
}

TEST_F(MmuFault, DisabledContextFaultsBadContext)
{
	/* Same tables, ENABLE cleared. */
	dev_.write(VDLA_REG_MMU_CTX_BASE_LO(kContext), uint32_t(vs_.tables().root()));
	dev_.write(VDLA_REG_MMU_INVALIDATE, kContext);
	runFaulting(copy());
	expectLatchedFirstAccess(VDLA_MMU_FAULT_BAD_CONTEXT, kSrcStart, kDstStart);
}

TEST_F(MmuFault, WalkIntoDmaHoleOnSourceFaultsWalk)
{
	/* The level-2 table of the source only (the destination's is another). */
	uint64_t table = pageTableAddress(dev_, vs_.tables().root(), kSrcVa, 2);
	ASSERT_NE(table, pageTableAddress(dev_, vs_.tables().root(), kDstVa, 2));
	dev_.setDmaHole(table, kPage);
	runFaulting(copy());
	expectLatched(false, VDLA_MMU_FAULT_WALK, kSrcStart);
}

TEST_F(MmuFault, WalkIntoDmaHoleOnDestinationFaultsWalk)
{
	uint64_t table = pageTableAddress(dev_, vs_.tables().root(), kDstVa, 2);
	dev_.setDmaHole(table, kPage);
	runFaulting(copy());
	expectLatched(true, VDLA_MMU_FAULT_WALK, kDstStart);
}

TEST_F(MmuFault, RootTableInDmaHoleFaultsWalk)
{
	dev_.setDmaHole(vs_.tables().root(), kPage);
	runFaulting(copy());
	expectLatchedFirstAccess(VDLA_MMU_FAULT_WALK, kSrcStart, kDstStart);
}

TEST_F(MmuFault, RootTableBeyondGuestMemoryFaultsWalk)
{
	/* 1 GiB is well past the harness's 32 MiB of guest memory. */
	dev_.write(VDLA_REG_MMU_CTX_BASE_LO(kContext), 0x40000000u | VDLA_MMU_CTX_ENABLE);
	dev_.write(VDLA_REG_MMU_INVALIDATE, kContext);
	runFaulting(copy());
	expectLatchedFirstAccess(VDLA_MMU_FAULT_WALK, kSrcStart, kDstStart);
}

TEST_F(MmuFault, AddressWithoutUpperLevelEntryFaultsUnmapped)
{
	/* Level-0 entry 256 was never created: the walk stops at level 0. */
	const uint64_t src = (256ull << 30) + 0x10;
	runFaulting(copy(src, kDstStart, 0x100));
	expectLatched(false, VDLA_MMU_FAULT_UNMAPPED, src);
}

TEST_F(MmuFault, ContextBaseHighHalfIsPartOfTheTableAddress)
{
	/* The same low half with HI = 1 puts the root 4 GiB higher, outside
	 * guest memory. */
	dev_.write(VDLA_REG_MMU_CTX_BASE_HI(kContext), 1);
	dev_.write(VDLA_REG_MMU_INVALIDATE, kContext);
	runFaulting(copy());
	expectLatchedFirstAccess(VDLA_MMU_FAULT_WALK, kSrcStart, kDstStart);
}

TEST_F(MmuFault, SourceBeyondVirtualAddressSpaceFaultsOutOfRange)
{
	runFaulting(copy(kVaLimit, kDstStart));
	expectLatched(false, VDLA_MMU_FAULT_OUT_OF_RANGE, kVaLimit);
}

TEST_F(MmuFault, DestinationBetweenVaSpaceAndSramFaultsOutOfRange)
{
	runFaulting(copy(kSrcStart, VDLA_SRAM_BASE - kPage));
	expectLatched(true, VDLA_MMU_FAULT_OUT_OF_RANGE, VDLA_SRAM_BASE - kPage);
}

TEST_F(MmuFault, DestinationCrossingTheTopOfTheVaSpaceFaultsOutOfRange)
{
	/* The last virtual page is mapped, so only the crossing can fault. The
	 * spec says the access faults, not which byte is reported: the start of
	 * the access or the first byte outside. */
	vs_.map(kVaLimit - kPage, dstPages_[0], kPage);
	dev_.write(VDLA_REG_MMU_INVALIDATE, kContext);
	runFaulting(copy(kSrcStart, kVaLimit - 0x80, 0x100));
	LatchedFault f = readMmuFault(dev_);
	EXPECT_EQ(dev_.read(VDLA_REG_MMU_FAULT_STATUS),
		  faultStatusWord(true, VDLA_MMU_FAULT_OUT_OF_RANGE, kBdma, kContext));
	EXPECT_TRUE(f.addr == kVaLimit - 0x80 || f.addr == kVaLimit) << std::hex << f.addr;
}

TEST_F(MmuFault, AccessWrappingAroundTheAddressSpaceFaultsOutOfRange)
{
	/* 0xffff_ffff_ffff_ff00 + 0x2f00 wraps to a small, mapped-looking
	 * address; the access must still be seen as out of range. */
	const uint64_t src = ~0ull - 0xff;
	runFaulting(copy(src, kDstStart));
	expectLatched(false, VDLA_MMU_FAULT_OUT_OF_RANGE, src);
}

TEST_F(MmuFault, OutOfRangeFaultsWithTheMmuOffToo)
{
	dev_.write(VDLA_REG_MMU_CTRL, 0);
	uint64_t src = dev_.alloc(kPage, kPage);
	runFaulting(copy(src, kVaLimit + 0x1000, 0x100, 0));
	expectLatched(true, VDLA_MMU_FAULT_OUT_OF_RANGE, kVaLimit + 0x1000, 0);
}

TEST_F(MmuFault, SramAccessBeyondSramSizeFaultsOutOfRange)
{
	uint32_t sramSize = dev_.read(VDLA_REG_SRAM_SIZE);
	ASSERT_EQ(sramSize, VDLA_SRAM_DEFAULT_SIZE);
	runFaulting(copy(kSrcStart, VDLA_SRAM_BASE + sramSize, 0x100));
	expectLatched(true, VDLA_MMU_FAULT_OUT_OF_RANGE, VDLA_SRAM_BASE + sramSize);
}

TEST_F(MmuFault, SramAccessCrossingTheEndOfSramFaultsAndWritesNothing)
{
	/* The first 0x40 bytes are inside the SRAM; they must stay zero. */
	uint32_t sramSize = dev_.read(VDLA_REG_SRAM_SIZE);
	const uint64_t dst = VDLA_SRAM_BASE + sramSize - 0x40;
	runFaulting(copy(kSrcStart, dst, 0x100));
	LatchedFault f = readMmuFault(dev_);
	EXPECT_EQ(dev_.read(VDLA_REG_MMU_FAULT_STATUS),
		  faultStatusWord(true, VDLA_MMU_FAULT_OUT_OF_RANGE, kBdma, kContext));
	EXPECT_TRUE(f.addr == dst || f.addr == VDLA_SRAM_BASE + sramSize) << std::hex << f.addr;
}

TEST_F(MmuFault, LeafPointingOutsideGuestMemoryFailsWithoutWriting)
{
	/*
	 * The spec names no fault reason for a valid leaf whose page is not
	 * guest memory; the operation still cannot succeed, must not write,
	 * and must leave the engine working.
	 */
	remap(kSrcVa + kPage, 0x40000000, true, true);
	std::vector<uint8_t> before = memorySnapshot();
	EXPECT_EQ(runBdma(dev_, 0, copy()), unsigned(VDLA_GROUP_ERROR));
	EXPECT_NE(dev_.stats(kBdma, 0).error, unsigned(VDLA_ERROR_NONE));
	EXPECT_TRUE(memorySnapshot() == before);

	remap(kSrcVa + kPage, srcPages_[1], true, true);
	EXPECT_EQ(runBdma(dev_, 1, copy()), unsigned(VDLA_GROUP_DONE));
}

TEST_F(MmuFault, DataInDmaHoleFailsWithoutWriting)
{
	/* As above, for a guest page the host refuses DMA to (MMU off). */
	dev_.write(VDLA_REG_MMU_CTRL, 0);
	std::vector<uint8_t> before = memorySnapshot();
	dev_.setDmaHole(srcPages_[2], kPage);
	BdmaOp op = copy(srcPages_[2] + 0x100, dstPages_[1], 0x200, 0);
	EXPECT_EQ(runBdma(dev_, 0, op), unsigned(VDLA_GROUP_ERROR));
	EXPECT_NE(dev_.stats(kBdma, 0).error, unsigned(VDLA_ERROR_NONE));
	EXPECT_TRUE(memorySnapshot() == before);

	dev_.setDmaHole(0, 0);
	EXPECT_EQ(runBdma(dev_, 1, op), unsigned(VDLA_GROUP_DONE));
	EXPECT_EQ(std::memcmp(dev_.guest(dstPages_[1]), dev_.guest(srcPages_[2] + 0x100), 0x200),
		  0);
}

TEST_F(MmuFault, FaultRecordsTheEngineThatFaulted)
{
	vs_.unmap(kSrcVa, kPage);
	std::vector<uint8_t> before = memorySnapshot();
	startRubikCopy(dev_, 0, kSrcVa + 0x100, kDstVa, 2, 0x800, kContext);
	ASSERT_TRUE(waitEngineIdle(dev_, kRubik));
	ASSERT_TRUE(dev_.waitInterrupts(VDLA_INT_ERROR(kRubik) | VDLA_INT_MMU_FAULT,
					milliseconds(2000)));
	EXPECT_EQ(dev_.groupState(kRubik, 0), unsigned(VDLA_GROUP_ERROR));
	EXPECT_EQ(dev_.stats(kRubik, 0).error, unsigned(VDLA_ERROR_MMU_FAULT));
	EXPECT_EQ(dev_.read(VDLA_REG_INT_STATUS), VDLA_INT_ERROR(kRubik) | VDLA_INT_MMU_FAULT);
	expectLatched(false, VDLA_MMU_FAULT_UNMAPPED, kSrcVa + 0x100, kContext, kRubik);
	EXPECT_TRUE(memorySnapshot() == before);
}

TEST_F(MmuFault, OnlyTheFirstFaultIsLatchedUntilClearedAndTheEngineGoesOn)
{
	const uint32_t faultBits = VDLA_INT_ERROR(kBdma) | VDLA_INT_MMU_FAULT;
	vs_.unmap(kSrcVa + kPage, kPage);
	remap(kDstVa + 2 * kPage, dstPages_[2], true, false);
	BdmaOp unmappedRead = copy();
	BdmaOp readOnlyWrite = copy(kSrcVa, kDstVa + 2 * kPage + 0x10, 0x100);
	BdmaOp good = copy(kSrcVa, kDstVa + 0x10, 0x100);

	/* Two faults in a row: the first is latched, the second is not. */
	programBdma(dev_, 0, unmappedRead);
	programBdma(dev_, 1, readOnlyWrite);
	dev_.selectGroup(kBdma, 0);
	dev_.enable(kBdma);
	dev_.selectGroup(kBdma, 1);
	dev_.enable(kBdma);
	ASSERT_TRUE(waitEngineIdle(dev_, kBdma));
	ASSERT_TRUE(dev_.waitInterrupts(faultBits, milliseconds(2000)));
	EXPECT_EQ(dev_.groupState(kBdma, 0), unsigned(VDLA_GROUP_ERROR));
	EXPECT_EQ(dev_.groupState(kBdma, 1), unsigned(VDLA_GROUP_ERROR));
	EXPECT_EQ(dev_.stats(kBdma, 1).error, unsigned(VDLA_ERROR_MMU_FAULT));
	expectLatched(false, VDLA_MMU_FAULT_UNMAPPED, kSrcVa + kPage);

	/* The engine goes on: a good copy next runs normally. */
	dev_.ackInterrupts(faultBits);
	ASSERT_EQ(runBdma(dev_, 2, good), unsigned(VDLA_GROUP_DONE));
	std::vector<uint8_t> src = pattern(3 * kPage, 7);
	EXPECT_EQ(std::memcmp(dev_.guest(dstPages_[0]) + 0x10, src.data(), 0x100), 0);
	expectLatched(false, VDLA_MMU_FAULT_UNMAPPED, kSrcVa + kPage);

	/* A later fault raises the bits again but leaves the latch alone. */
	dev_.ackInterrupts(VDLA_INT_ALL);
	startBdma(dev_, 3, readOnlyWrite);
	ASSERT_TRUE(waitEngineIdle(dev_, kBdma));
	ASSERT_TRUE(dev_.waitInterrupts(faultBits, milliseconds(2000)));
	EXPECT_EQ(dev_.groupState(kBdma, 3), unsigned(VDLA_GROUP_ERROR));
	expectLatched(false, VDLA_MMU_FAULT_UNMAPPED, kSrcVa + kPage);

	/* After MMU_FAULT_CLEAR the next fault is latched. */
	dev_.write(VDLA_REG_MMU_FAULT_CLEAR, 1);
	EXPECT_EQ(dev_.read(VDLA_REG_MMU_FAULT_STATUS) & VDLA_MMU_FAULT_VALID, 0u);
	dev_.ackInterrupts(VDLA_INT_ALL);
	EXPECT_EQ(runBdma(dev_, 4, readOnlyWrite), unsigned(VDLA_GROUP_ERROR));
	ASSERT_TRUE(dev_.waitInterrupts(faultBits, milliseconds(2000)));
	expectLatched(true, VDLA_MMU_FAULT_READ_ONLY, kDstVa + 2 * kPage + 0x10);
}

TEST_F(MmuFault, OperationRunsOnceTheMissingPageIsMapped)
{
	vs_.unmap(kSrcVa + kPage, kPage);
	runFaulting(copy());
	remap(kSrcVa + kPage, srcPages_[1], true, true);
	dev_.write(VDLA_REG_MMU_FAULT_CLEAR, 1);
	dev_.ackInterrupts(VDLA_INT_ALL);

	ASSERT_EQ(runBdma(dev_, 1, copy()), unsigned(VDLA_GROUP_DONE));
	std::vector<uint8_t> src = pattern(3 * kPage, 7);
	std::vector<uint8_t> expected(3 * kPage, kCanary);
	std::memcpy(&expected[0x80], &src[0x40], kBytes);
	EXPECT_TRUE(vs_.read(kDstVa, 3 * kPage) == expected);
	EXPECT_FALSE(readMmuFault(dev_).valid);
}

/*
 * The guest can change its memory map after the device checked an output:
 * the write then fails, and the operation reports it instead of DONE.
 */
TEST_F(Mmu, AWriteTheHostRefusesEndsInAFaultNotDone)
{
	uint64_t src = dev_.alloc(3 * kPage, kPage), dst = dev_.alloc(3 * kPage, kPage);
	fillPattern(dev_.guest(src), 3 * kPage, 9);
	dev_.setMapHole(dst + kPage, kPage);
	EXPECT_EQ(runBdma(dev_, 0, BdmaOp::linear(src, dst, 3 * kPage)), unsigned(VDLA_GROUP_ERROR));
	EXPECT_EQ(dev_.stats(kBdma, 0).error, unsigned(VDLA_ERROR_MMU_FAULT));
	EXPECT_EQ(dev_.stats(kBdma, 0).bytesWritten, 0u);
	uint32_t status = dev_.read(VDLA_REG_MMU_FAULT_STATUS);
	EXPECT_TRUE(status & VDLA_MMU_FAULT_VALID);
	EXPECT_TRUE(status & VDLA_MMU_FAULT_WRITE);
	EXPECT_EQ(dev_.read(VDLA_REG_MMU_FAULT_ADDR_LO), uint32_t(dst + kPage));
	dev_.setMapHole(0, 0);
}

/*
 * TLB invalidation: "Translations may be cached until invalidated". After a
 * remap and MMU_INVALIDATE, the next operation must use the new mapping.
 */
class MmuInvalidate : public ::testing::TestWithParam<bool>
{
protected:
	static constexpr unsigned kContext = 5;

	MmuInvalidate()
		: dev_(nullptr, kDeviceTestGuestBytes), vs_(dev_, kContext)
	{
	}

	void invalidate()
	{
		uint32_t value = GetParam() ? VDLA_MMU_INVALIDATE_ALL : kContext;
		dev_.write(VDLA_REG_MMU_INVALIDATE, value);
	}

	static constexpr uint64_t kSrcVa = 0x1000000, kDstVa = 0x2000000;

	/*
	 * Four pages, the first two patterned from @seed; the source page at
	 * kSrcVa maps to page 0 and the destination at kDstVa to page 2.
	 */
	std::vector<uint64_t> mapSourceAndDestination(uint32_t seed)
	{
		std::vector<uint64_t> pages = allocPages(dev_, 4);
		fillPattern(dev_.guest(pages[0]), kPage, seed);
		fillPattern(dev_.guest(pages[1]), kPage, seed + 1);
		vs_.map(kSrcVa, pages[0], kPage);
		vs_.map(kDstVa, pages[2], kPage);
		vs_.activate();
		return pages;
	}

	DeviceHarness dev_;
	VirtualSpace vs_;
};

TEST_P(MmuInvalidate, NextOperationUsesTheNewMapping)
{
	const uint64_t srcVa = kSrcVa, dstVa = kDstVa;
	std::vector<uint64_t> pages = mapSourceAndDestination(21);

	/* The first copy fills whatever the device caches. */
	ASSERT_EQ(runBdma(dev_, 0, BdmaOp::linear(srcVa, dstVa, kPage, kContext)),
		  unsigned(VDLA_GROUP_DONE));
	ASSERT_TRUE(guestBytes(dev_, pages[2], kPage) == guestBytes(dev_, pages[0], kPage));

	/* Move both virtual pages, then invalidate. */
	vs_.map(srcVa, pages[1], kPage);
	vs_.map(dstVa, pages[3], kPage);
	invalidate();
	ASSERT_EQ(runBdma(dev_, 1, BdmaOp::linear(srcVa, dstVa, kPage, kContext)),
		  unsigned(VDLA_GROUP_DONE));

	EXPECT_TRUE(guestBytes(dev_, pages[3], kPage) == guestBytes(dev_, pages[1], kPage));
	/* The old destination still holds the first copy only. */
	EXPECT_TRUE(guestBytes(dev_, pages[2], kPage) == guestBytes(dev_, pages[0], kPage));
}

TEST_P(MmuInvalidate, RemovedMappingFaultsAfterInvalidation)
{
	const uint64_t srcVa = 0x1000000, dstVa = 0x2000000;
	std::vector<uint64_t> pages = allocPages(dev_, 2);
	vs_.map(srcVa, pages[0], kPage);
	vs_.map(dstVa, pages[1], kPage);
	vs_.activate();
	ASSERT_EQ(runBdma(dev_, 0, BdmaOp::linear(srcVa, dstVa, kPage, kContext)),
		  unsigned(VDLA_GROUP_DONE));

	/* Clear the leaf by hand (PageTables::unmap would invalidate itself). */
	uint64_t leafTable = pageTableAddress(dev_, vs_.tables().root(), dstVa, 2);
	std::memset(dev_.guest(leafTable + 8 * ((dstVa >> VDLA_PAGE_SHIFT) & 511)), 0, 8);
	invalidate();
	std::memset(dev_.guest(pages[1]), kCanary, kPage);
	EXPECT_EQ(runBdma(dev_, 1, BdmaOp::linear(srcVa, dstVa, kPage, kContext)),
		  unsigned(VDLA_GROUP_ERROR));
	EXPECT_EQ(dev_.stats(kBdma, 1).error, unsigned(VDLA_ERROR_MMU_FAULT));
	EXPECT_EQ(dev_.read(VDLA_REG_MMU_FAULT_STATUS),
		  faultStatusWord(true, VDLA_MMU_FAULT_UNMAPPED, kBdma, kContext));
	EXPECT_TRUE(guestBytes(dev_, pages[1], kPage) == std::vector<uint8_t>(kPage, kCanary));
}

/*
 * An invalidation while the device walks the tables for a page: the walk
 * may finish with the old entry for the operation in flight, but must not
 * leave it in the TLB for the next one.
 */
TEST_P(MmuInvalidate, InvalidationDuringATableWalkIsNotLost)
{
	const uint64_t srcVa = kSrcVa, dstVa = kDstVa;
	std::vector<uint64_t> pages = mapSourceAndDestination(31);

	uint64_t leafTable = pageTableAddress(dev_, vs_.tables().root(), srcVa, 2);
	uint64_t leaf = leafTable + 8 * ((srcVa >> VDLA_PAGE_SHIFT) & 511);
	std::atomic<bool> moved{ false };
	dev_.setDmaReadHook([&](uint64_t gpa, uint64_t len) {
		if (moved || gpa > leaf || gpa + len < leaf + 8)
			return;
		/* The walk has read the entry: move the page and invalidate now. */
		uint64_t entry;
		std::memcpy(&entry, dev_.guest(leaf), 8);
		entry = (entry & ~uint64_t(VDLA_PTE_ADDR_MASK)) | pages[1];
		std::memcpy(dev_.guest(leaf), &entry, 8);
		moved = true;
		invalidate();
	});
	ASSERT_EQ(runBdma(dev_, 0, BdmaOp::linear(srcVa, dstVa, kPage, kContext)),
		  unsigned(VDLA_GROUP_DONE));
	dev_.setDmaReadHook({});
	ASSERT_TRUE(moved);

	/* No invalidation in between: the one in the walk must be enough. */
	ASSERT_EQ(runBdma(dev_, 1, BdmaOp::linear(srcVa, dstVa, kPage, kContext)),
		  unsigned(VDLA_GROUP_DONE));
	EXPECT_TRUE(guestBytes(dev_, pages[2], kPage) == guestBytes(dev_, pages[1], kPage))
		<< "the second copy read the page the invalidation removed";
}

INSTANTIATE_TEST_SUITE_P(Mmu, MmuInvalidate, ::testing::Values(false, true),
			 [](const ::testing::TestParamInfo<bool> &info) {
				 return info.param ? "All" : "Context";
			 });

TEST_F(Mmu, InvalidatingOneContextKeepsOthersWorking)
{
	/* Two contexts in use; invalidating one must not break the other. */
	VirtualSpace a(dev_, 1), b(dev_, 2);
	std::vector<uint64_t> pages = allocPages(dev_, 4);
	fillPattern(dev_.guest(pages[0]), kPage, 31);
	fillPattern(dev_.guest(pages[2]), kPage, 32);
	a.map(0x5000, pages[0], kPage);
	a.map(0x6000, pages[1], kPage);
	b.map(0x5000, pages[2], kPage);
	b.map(0x6000, pages[3], kPage);
	a.activate();
	b.activate();
	ASSERT_EQ(runBdma(dev_, 0, BdmaOp::linear(0x5000, 0x6000, kPage, 1)),
		  unsigned(VDLA_GROUP_DONE));
	ASSERT_EQ(runBdma(dev_, 1, BdmaOp::linear(0x5000, 0x6000, kPage, 2)),
		  unsigned(VDLA_GROUP_DONE));
	dev_.write(VDLA_REG_MMU_INVALIDATE, 1);
	std::memset(dev_.guest(pages[1]), kCanary, kPage);
	std::memset(dev_.guest(pages[3]), kCanary, kPage);
	ASSERT_EQ(runBdma(dev_, 2, BdmaOp::linear(0x5000, 0x6000, kPage, 2)),
		  unsigned(VDLA_GROUP_DONE));
	ASSERT_EQ(runBdma(dev_, 3, BdmaOp::linear(0x5000, 0x6000, kPage, 1)),
		  unsigned(VDLA_GROUP_DONE));
	EXPECT_TRUE(guestBytes(dev_, pages[3], kPage) == guestBytes(dev_, pages[2], kPage));
	EXPECT_TRUE(guestBytes(dev_, pages[1], kPage) == guestBytes(dev_, pages[0], kPage));
}

} /* namespace */
} /* namespace vdla_test */
