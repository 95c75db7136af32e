/* SPDX-License-Identifier: MIT */
/*
 * Soft reset and power-on reset against docs/hw-spec.md ("Reset"), with
 * operations in flight: hung by fault injection, delayed, or merely running.
 * A reset returns every engine to idle; an operation it cuts short writes
 * nothing more and raises no interrupt, even after the time it would have
 * finished.
 */
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "device_test_util.h"

namespace vdla_test {
namespace {

/* The D registers each test below may have programmed, per engine. */
std::vector<uint32_t> programmedDRegisters(unsigned engine)
{
	std::vector<uint32_t> regs = { VDLA_D_OP_ENABLE, VDLA_D_CONTEXT, VDLA_D_CFG };
	if (engine == kBdma) {
		for (uint32_t off = VDLA_BDMA_SRC_ADDR_LO; off <= VDLA_BDMA_DST_SURF_STRIDE;
		     off += 4)
			regs.push_back(off);
	} else if (engine == kRubik) {
		for (uint32_t off = 0; off < VDLA_T_SIZE; off += 4) {
			regs.push_back(VDLA_RUBIK_SRC + off);
			regs.push_back(VDLA_RUBIK_DST + off);
		}
		regs.push_back(VDLA_RUBIK_PERM);
		regs.push_back(VDLA_RUBIK_BLOCK);
	}
	return regs;
}

/* Everything the spec says a soft reset puts back, except RESET_COUNT. */
void expectResetState(DeviceHarness &dev)
{
	EXPECT_EQ(dev.read(VDLA_REG_IDLE), kAllEnginesIdle);
	for (unsigned e = 0; e < VDLA_NUM_ENGINES; e++) {
		SCOPED_TRACE("engine " + std::to_string(e));
		EXPECT_EQ(dev.readEngine(e, VDLA_E_STATUS), 0u) << "groups 0-7 IDLE";
		EXPECT_EQ(dev.readEngine(e, VDLA_E_STATUS_HI), 0u) << "groups 8-15 IDLE";
		EXPECT_EQ(dev.readEngine(e, VDLA_E_POINTER), 0u) << "PRODUCER and CONSUMER 0";
		for (unsigned g = 0; g < VDLA_NUM_GROUPS; g++) {
			SCOPED_TRACE("group " + std::to_string(g));
			for (uint32_t off = 0; off < 0x28; off += 4) {
				if (off == 0x04)
					continue; /* between STAT_ERROR and STAT_MACS_LO */
				EXPECT_EQ(dev.readEngine(e, VDLA_E_GROUP_STAT(g) + off), 0u)
					<< "STAT +0x" << std::hex << off;
			}
			dev.selectGroup(e, g);
			for (uint32_t off : programmedDRegisters(e))
				EXPECT_EQ(dev.readEngine(e, off), 0u) << "D +0x" << std::hex << off;
		}
		dev.selectGroup(e, 0);
	}
	EXPECT_EQ(dev.read(VDLA_REG_MMU_CTRL), 0u);
	for (unsigned c = 0; c < VDLA_MMU_NUM_CONTEXTS; c++) {
		EXPECT_EQ(dev.read(VDLA_REG_MMU_CTX_BASE_LO(c)), 0u) << "context " << c;
		EXPECT_EQ(dev.read(VDLA_REG_MMU_CTX_BASE_HI(c)), 0u) << "context " << c;
	}
	EXPECT_EQ(dev.read(VDLA_REG_MMU_FAULT_STATUS) & VDLA_MMU_FAULT_VALID, 0u);
	for (unsigned i = 0; i < VDLA_NUM_SCRATCH; i++)
		EXPECT_EQ(dev.read(VDLA_REG_SCRATCH(i)), 0u);
	EXPECT_EQ(dev.read(VDLA_REG_INT_STATUS), 0u);
	EXPECT_EQ(dev.read(VDLA_REG_INT_ENABLE), 0u);
}

class SoftReset : public ::testing::Test
{
protected:
	SoftReset()
		: dev_(nullptr, kDeviceTestGuestBytes)
	{
	}

	void reset()
	{
		dev_.write(VDLA_REG_RESET, VDLA_RESET_SOFT);
	}

	/*
	 * Right after a reset INT_ENABLE is 0; enable everything again so that
	 * a late interrupt from a cut-short operation would also be a message.
	 */
	void reenableInterrupts()
	{
		dev_.write(VDLA_REG_INT_ENABLE, VDLA_INT_ALL);
	}

	/* A new copy right after the reset runs and copies correctly. */
	void expectNewOperationWorks(unsigned seed)
	{
		uint64_t src = dev_.alloc(5000), dst = dev_.alloc(5000);
		fillPattern(dev_.guest(src), 5000, seed);
		std::memset(dev_.guest(dst), kCanary, 5000);
		ASSERT_EQ(runBdma(dev_, 0, BdmaOp::linear(src, dst, 5000)),
			  unsigned(VDLA_GROUP_DONE));
		EXPECT_EQ(dev_.stats(kBdma, 0).error, unsigned(VDLA_ERROR_NONE));
		EXPECT_EQ(std::memcmp(dev_.guest(dst), dev_.guest(src), 5000), 0);
	}

	DeviceHarness dev_;
};

TEST_F(SoftReset, DuringHungOperationsReturnsEveryEngineToIdle)
{
	/* BDMA and RUBIK each hang in group 0, with BDMA group 1 queued. */
	for (unsigned e : { kBdma, kRubik }) {
		dev_.write(VDLA_REG_FI_MODE(e), VDLA_FI_HANG);
		dev_.write(VDLA_REG_FI_COUNT(e), 1);
	}
	PageTables tables(dev_, 4);
	tables.map(0, 0, 8u << 20);
	tables.activate();
	dev_.write(VDLA_REG_SCRATCH(2), 0x1234);

	uint64_t src = dev_.alloc(8192), dst0 = dev_.alloc(8192), dst1 = dev_.alloc(8192),
		 dst2 = dev_.alloc(8192);
	fillPattern(dev_.guest(src), 8192, 1);
	for (uint64_t d : { dst0, dst1, dst2 })
		std::memset(dev_.guest(d), kCanary, 8192);
	startBdma(dev_, 0, BdmaOp::linear(src, dst0, 8192, 4));
	startBdma(dev_, 1, BdmaOp::linear(src, dst1, 8192, 4));
	startRubikCopy(dev_, 0, src, dst2, 2, 4096, 4);
	ASSERT_TRUE(waitRunning(dev_, kBdma, 0));
	ASSERT_TRUE(waitRunning(dev_, kRubik, 0));
	EXPECT_EQ(dev_.groupState(kBdma, 1), unsigned(VDLA_GROUP_PENDING));
	EXPECT_EQ(dev_.read(VDLA_REG_IDLE), kAllEnginesIdle & ~(1u << kBdma) & ~(1u << kRubik));

	reset();
	std::vector<uint8_t> d0 = guestBytes(dev_, dst0, 8192), d2 = guestBytes(dev_, dst2, 8192);
	expectResetState(dev_);
	reenableInterrupts();
	unsigned messages = dev_.messages();
	EXPECT_EQ(dev_.read(VDLA_REG_RESET_COUNT), 1u);
	/* Fault injection takes its property values: none armed by default. */
	for (unsigned e = 0; e < VDLA_NUM_ENGINES; e++) {
		EXPECT_EQ(dev_.read(VDLA_REG_FI_MODE(e)), 0u);
		EXPECT_EQ(dev_.read(VDLA_REG_FI_COUNT(e)), 0u);
		EXPECT_EQ(dev_.read(VDLA_REG_FI_DELAY_US(e)), 0u);
	}

	/* Nothing happens later: the queued group never runs either. */
	EXPECT_TRUE(holdsFor(
		[&] {
			return dev_.read(VDLA_REG_INT_STATUS) == 0 && dev_.messages() == messages &&
			       dev_.read(VDLA_REG_IDLE) == kAllEnginesIdle;
		},
		milliseconds(150)));
	EXPECT_TRUE(guestBytes(dev_, dst0, 8192) == d0);
	EXPECT_TRUE(guestBytes(dev_, dst1, 8192) == std::vector<uint8_t>(8192, kCanary));
	EXPECT_TRUE(guestBytes(dev_, dst2, 8192) == d2);
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_E_STATUS), 0u);

	/* The MMU is off after the reset, so this copy is guest-physical. */
	expectNewOperationWorks(2);
	EXPECT_EQ(dev_.read(VDLA_REG_INT_STATUS), VDLA_INT_DONE(kBdma));
}

TEST_F(SoftReset, DuringDelayedOperationCancelsItsLateCompletion)
{
	constexpr uint32_t kDelayUs = 200000;
	dev_.write(VDLA_REG_FI_MODE(kBdma), VDLA_FI_DELAY);
	dev_.write(VDLA_REG_FI_COUNT(kBdma), 1);
	dev_.write(VDLA_REG_FI_DELAY_US(kBdma), kDelayUs);

	uint64_t src = dev_.alloc(4096), dst = dev_.alloc(4096);
	fillPattern(dev_.guest(src), 4096, 3);
	std::memset(dev_.guest(dst), kCanary, 4096);
	auto start = std::chrono::steady_clock::now();
	startBdma(dev_, 0, BdmaOp::linear(src, dst, 4096));
	ASSERT_TRUE(waitRunning(dev_, kBdma, 0));

	reset();
	reenableInterrupts();
	std::vector<uint8_t> snapshot = guestBytes(dev_, dst, 4096);
	EXPECT_EQ(dev_.read(VDLA_REG_RESET_COUNT), 1u);
	EXPECT_EQ(dev_.groupState(kBdma, 0), unsigned(VDLA_GROUP_IDLE));
	EXPECT_EQ(dev_.read(VDLA_REG_FI_MODE(kBdma)), 0u);

	/*
	 * Start a new operation at once: the delayed one's completion must not
	 * land on it either (no extra state change, no second message).
	 */
	expectNewOperationWorks(4);
	EXPECT_TRUE(waitMessages(dev_, 1));
	EXPECT_EQ(dev_.messages(), 1u);

	/* Past the moment the delayed operation would have completed. */
	std::this_thread::sleep_until(start + std::chrono::microseconds(kDelayUs) +
				      milliseconds(80));
	EXPECT_TRUE(guestBytes(dev_, dst, 4096) == snapshot) << "late write after reset";
	EXPECT_EQ(dev_.read(VDLA_REG_INT_STATUS), VDLA_INT_DONE(kBdma));
	EXPECT_EQ(dev_.messages(), 1u);
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_E_STATUS), unsigned(VDLA_GROUP_DONE));
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_E_POINTER), 1u << VDLA_E_POINTER_CONSUMER_SHIFT);
	EXPECT_EQ(dev_.stats(kBdma, 1).error, 0u);
	EXPECT_EQ(dev_.stats(kBdma, 1).bytesWritten, 0u);
}

TEST_F(SoftReset, WhileALargeCopyRunsLeavesNothingBehind)
{
	/*
	 * No fault injection: a 12 MiB copy, reset as soon as it has left
	 * PENDING. Wherever the copy was, afterwards the device is in its reset
	 * state and nothing from the copy arrives later.
	 */
	constexpr uint32_t kBytes = 12u << 20;
	uint64_t src = dev_.alloc(kBytes, 4096), dst = dev_.alloc(kBytes, 4096);
	fillPattern(dev_.guest(src), 1 << 20, 5);
	startBdma(dev_, 0, BdmaOp::linear(src, dst, kBytes));
	waitUntil([&] { return dev_.groupState(kBdma, 0) != VDLA_GROUP_PENDING; },
		  milliseconds(2000));

	reset();
	std::vector<uint8_t> snapshot = guestBytes(dev_, dst, kBytes);
	expectResetState(dev_);
	reenableInterrupts();
	unsigned messages = dev_.messages();
	EXPECT_EQ(dev_.read(VDLA_REG_RESET_COUNT), 1u);

	EXPECT_TRUE(holdsFor(
		[&] {
			return dev_.read(VDLA_REG_INT_STATUS) == 0 && dev_.messages() == messages &&
			       dev_.readEngine(kBdma, VDLA_E_STATUS) == 0;
		},
		milliseconds(150)));
	EXPECT_TRUE(guestBytes(dev_, dst, kBytes) == snapshot) << "late write after reset";
	expectNewOperationWorks(6);
}

/*
 * Programs an INT16 CONV of 2^36 MACs (the most one operation may do:
 * several seconds, a minute on the scalar path) on stride-0 tensors in
 * SRAM, so that it needs no memory, in group @group of CONV.
 */
void programLongConv(DeviceHarness &dev, unsigned group)
{
	const unsigned e = VDLA_ENGINE_CONV;
	TensorDesc src = TensorDesc::nchw(DeviceHarness::sramAddr(0), VDLA_DTYPE_INT16, 1, 4096,
					 64, 64);
	TensorDesc wgt = TensorDesc::nchw(DeviceHarness::sramAddr(0), VDLA_DTYPE_INT16, 4096,
					 4096, 1, 1);
	TensorDesc dst = TensorDesc::nchw(DeviceHarness::sramAddr(256), VDLA_DTYPE_INT32, 1, 4096,
					 64, 64);
	for (TensorDesc *t : { &src, &wgt, &dst })
		t->strideW = t->strideH = t->strideC = t->strideN = 0;
	dev.selectGroup(e, group);
	dev.writeTensor(e, VDLA_CONV_SRC, src);
	dev.writeTensor(e, VDLA_CONV_WGT, wgt);
	dev.writeTensor(e, VDLA_CONV_DST, dst);
	dev.writeEngine(e, VDLA_CONV_STRIDE, 1 | (1 << 16));
	dev.writeEngine(e, VDLA_CONV_DILATION, 1 | (1 << 16));
	dev.writeEngine(e, VDLA_CONV_GROUPS, 1);
}

/*
 * A reset stops an operation in the middle of its computation: the engine
 * takes the next one at once, instead of after the old one's seconds.
 */
TEST_F(SoftReset, DuringALongComputationFreesTheEngineForTheNextOperation)
{
	const unsigned e = VDLA_ENGINE_CONV;
	programLongConv(dev_, 0);
	dev_.enable(e);
	waitUntil([&] { return dev_.groupState(e, 0) == VDLA_GROUP_RUNNING; }, milliseconds(2000));

	reset();
	expectResetState(dev_);
	reenableInterrupts();

	/* A small CONV on the same engine: 1 x 1 x 2 x 2 with a 1 x 1 kernel. */
	uint64_t in = dev_.alloc(64), weights = dev_.alloc(64), out = dev_.alloc(64);
	int16_t values[4] = { 1, -2, 3, 400 }, w = 7;
	std::memcpy(dev_.guest(in), values, sizeof(values));
	std::memcpy(dev_.guest(weights), &w, sizeof(w));
	dev_.selectGroup(e, 0);
	dev_.writeTensor(e, VDLA_CONV_SRC, TensorDesc::nchw(in, VDLA_DTYPE_INT16, 1, 1, 2, 2));
	dev_.writeTensor(e, VDLA_CONV_WGT, TensorDesc::nchw(weights, VDLA_DTYPE_INT16, 1, 1, 1, 1));
	dev_.writeTensor(e, VDLA_CONV_DST, TensorDesc::nchw(out, VDLA_DTYPE_INT32, 1, 1, 2, 2));
	dev_.writeEngine(e, VDLA_CONV_STRIDE, 1 | (1 << 16));
	dev_.writeEngine(e, VDLA_CONV_DILATION, 1 | (1 << 16));
	dev_.writeEngine(e, VDLA_CONV_GROUPS, 1);
	dev_.enable(e);
	/* Seconds of margin for milliseconds of work; the old operation would take more. */
	ASSERT_TRUE(dev_.waitInterrupts(VDLA_INT_DONE(e), milliseconds(2000)))
		<< "the engine was still busy with the operation the reset cut short";
	int32_t result[4];
	std::memcpy(result, dev_.guest(out), sizeof(result));
	EXPECT_EQ(result[0], 7);
	EXPECT_EQ(result[1], -14);
	EXPECT_EQ(result[3], 2800);
}

/* Destroying the device (QEMU unplug or exit) does not wait for a computation either. */
TEST(DeviceEnd, DuringALongComputationDoesNotWaitForIt)
{
	auto dev = std::make_unique<DeviceHarness>(nullptr, kDeviceTestGuestBytes);
	const unsigned e = VDLA_ENGINE_CONV;
	programLongConv(*dev, 0);
	dev->enable(e);
	ASSERT_TRUE(waitUntil([&] { return dev->groupState(e, 0) == VDLA_GROUP_RUNNING; },
			      milliseconds(2000)));
	auto start = std::chrono::steady_clock::now();
	dev.reset();
	/* Generous against the operation's seconds; what matters is not waiting for them. */
	auto took = std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - start);
	EXPECT_LT(took.count(), 1500) << "ms to destroy the device";
}

/*
 * A worker asks for a message after its operation committed; a vCPU's reset
 * can come first. QEMU's glue asks vdla_core_interrupt_due() under the big
 * lock, which the reset holds too, and drops the message when it says no.
 */
TEST_F(SoftReset, BetweenACommitAndItsMessageLeavesNoInterruptDue)
{
	std::atomic<bool> ran{ false };
	bool dueBefore = false, dueAfter = true;
	dev_.setRaiseHook([&] {
		if (ran)
			return;
		dueBefore = vdla_core_interrupt_due(dev_.core());
		reset();
		dueAfter = vdla_core_interrupt_due(dev_.core());
		ran = true;
	});
	uint64_t src = dev_.alloc(4096), dst = dev_.alloc(4096);
	startBdma(dev_, 0, BdmaOp::linear(src, dst, 4096));
	ASSERT_TRUE(waitUntil([&] { return ran.load(); }, milliseconds(5000)));
	dev_.setRaiseHook({});
	EXPECT_TRUE(dueBefore) << "the operation's DONE was pending and enabled";
	EXPECT_FALSE(dueAfter) << "after the reset, the message is for nothing";
	reenableInterrupts();
	expectNewOperationWorks(7);
}

TEST_F(SoftReset, ClearsMmuRegistersAndTheFaultLatch)
{
	VirtualSpace vs(dev_, 6);
	vs.map(0x100000, dev_.alloc(4096, 4096), 4096);
	vs.activate();
	dev_.write(VDLA_REG_MMU_CTX_BASE_HI(9), 0x12);
	dev_.write(VDLA_REG_MMU_CTX_BASE_LO(9), 0x5000 | VDLA_MMU_CTX_ENABLE);
	ASSERT_EQ(runBdma(dev_, 0, BdmaOp::linear(0x100000, 0x200000, 16, 6)),
		  unsigned(VDLA_GROUP_ERROR));
	ASSERT_TRUE(readMmuFault(dev_).valid);

	reset();
	expectResetState(dev_);

	/* With the MMU off, 0x100000 is a guest-physical address again. */
	dev_.write(VDLA_REG_INT_ENABLE, VDLA_INT_ALL);
	fillPattern(dev_.guest(0x100000), 64, 7);
	ASSERT_EQ(runBdma(dev_, 0, BdmaOp::linear(0x100000, 0x200000, 64, 6)),
		  unsigned(VDLA_GROUP_DONE));
	EXPECT_EQ(std::memcmp(dev_.guest(0x200000), dev_.guest(0x100000), 64), 0);
}

TEST_F(SoftReset, EmptiesTheTlb)
{
	constexpr uint64_t kSrcVa = 0x300000, kDstVa = 0x400000;
	VirtualSpace vs(dev_, 1);
	std::vector<uint64_t> pages = allocPages(dev_, 4);
	fillPattern(dev_.guest(pages[0]), 4096, 8);
	fillPattern(dev_.guest(pages[1]), 4096, 9);
	vs.map(kSrcVa, pages[0], 4096);
	vs.map(kDstVa, pages[2], 4096);
	vs.activate();
	ASSERT_EQ(runBdma(dev_, 0, BdmaOp::linear(kSrcVa, kDstVa, 4096, 1)),
		  unsigned(VDLA_GROUP_DONE));

	reset();
	/* New leaves, and the same root enabled again, with no invalidate:
	 * only a TLB the reset emptied gives the new pages. */
	vs.map(kSrcVa, pages[1], 4096);
	vs.map(kDstVa, pages[3], 4096);
	dev_.write(VDLA_REG_INT_ENABLE, VDLA_INT_ALL);
	dev_.write(VDLA_REG_MMU_CTX_BASE_LO(1), uint32_t(vs.tables().root()) | VDLA_MMU_CTX_ENABLE);
	dev_.write(VDLA_REG_MMU_CTRL, VDLA_MMU_CTRL_ENABLE);
	ASSERT_EQ(runBdma(dev_, 0, BdmaOp::linear(kSrcVa, kDstVa, 4096, 1)),
		  unsigned(VDLA_GROUP_DONE));
	EXPECT_TRUE(guestBytes(dev_, pages[3], 4096) == guestBytes(dev_, pages[1], 4096));
	EXPECT_TRUE(guestBytes(dev_, pages[2], 4096) == guestBytes(dev_, pages[0], 4096));
}

TEST_F(SoftReset, RestartsDeviceTimeAndCountsEveryReset)
{
	dev_.nowNs = 1000000;
	reset();
	dev_.nowNs = 1000000 + 4321;
	EXPECT_EQ(read64(dev_, VDLA_REG_TIME_LO), 4321u);
	reset();
	reset();
	EXPECT_EQ(dev_.read(VDLA_REG_RESET_COUNT), 3u);
}

TEST_F(SoftReset, ClearsStatisticsOfFinishedGroups)
{
	uint64_t src = dev_.alloc(1000), dst = dev_.alloc(1000);
	dev_.nowNs = 5000;
	ASSERT_EQ(runBdma(dev_, 0, BdmaOp::linear(src, dst, 1000)), unsigned(VDLA_GROUP_DONE));
	ASSERT_EQ(dev_.stats(kBdma, 0).bytesRead, 1000u);
	reset();
	GroupStats s = dev_.stats(kBdma, 0);
	EXPECT_EQ(s.error, 0u);
	EXPECT_EQ(s.bytesRead, 0u);
	EXPECT_EQ(s.bytesWritten, 0u);
	EXPECT_EQ(s.macs, 0u);
	EXPECT_EQ(s.timeNs, 0u);
	EXPECT_EQ(dev_.groupState(kBdma, 0), unsigned(VDLA_GROUP_IDLE));
}

TEST(PowerOnReset, ZeroesSramAndResetCount)
{
	DeviceHarness dev(nullptr, kDeviceTestGuestBytes);
	uint32_t sramSize = dev.read(VDLA_REG_SRAM_SIZE);
	fillPattern(dev.sram(), sramSize, 10);
	dev.write(VDLA_REG_RESET, VDLA_RESET_SOFT);
	dev.write(VDLA_REG_RESET, VDLA_RESET_SOFT);
	ASSERT_EQ(dev.read(VDLA_REG_RESET_COUNT), 2u);

	vdla_core_reset(dev.core());
	EXPECT_EQ(dev.read(VDLA_REG_RESET_COUNT), 0u);
	EXPECT_TRUE(std::vector<uint8_t>(dev.sram(), dev.sram() + sramSize) ==
		    std::vector<uint8_t>(sramSize, 0));
	expectResetState(dev);
}

TEST(PowerOnReset, DuringHungOperationReturnsToIdleWithNothingLate)
{
	DeviceHarness dev(nullptr, kDeviceTestGuestBytes);
	dev.write(VDLA_REG_FI_MODE(kBdma), VDLA_FI_HANG);
	dev.write(VDLA_REG_FI_COUNT(kBdma), 1);
	uint64_t src = dev.alloc(4096), dst = dev.alloc(4096);
	startBdma(dev, 0, BdmaOp::linear(src, dst, 4096));
	ASSERT_TRUE(waitRunning(dev, kBdma, 0));

	vdla_core_reset(dev.core());
	expectResetState(dev);
	dev.write(VDLA_REG_INT_ENABLE, VDLA_INT_ALL);
	unsigned messages = dev.messages();
	EXPECT_EQ(dev.read(VDLA_REG_RESET_COUNT), 0u);
	EXPECT_EQ(dev.read(VDLA_REG_FI_MODE(kBdma)), 0u);
	EXPECT_TRUE(holdsFor([&] { return dev.messages() == messages; }, milliseconds(50)));

	uint64_t src2 = dev.alloc(100), dst2 = dev.alloc(100);
	fillPattern(dev.guest(src2), 100, 11);
	ASSERT_EQ(runBdma(dev, 0, BdmaOp::linear(src2, dst2, 100)), unsigned(VDLA_GROUP_DONE));
	EXPECT_EQ(std::memcmp(dev.guest(dst2), dev.guest(src2), 100), 0);
}

} /* namespace */
} /* namespace vdla_test */
