/* SPDX-License-Identifier: MIT */
/*
 * The engines' common model against docs/hw-spec.md ("Engines: common
 * model", "Per-operation counters"): group states, the PRODUCER and
 * CONSUMER pointers, ownership of the D window, D_OP_ENABLE and S_ENABLE,
 * 64-bit reads of the counters, re-running a
 * finished group, the IDLE register and the STAT counters. BDMA is the
 * engine under test; fault injection (HANG, DELAY) holds operations in
 * RUNNING long enough to observe the states around them.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "device_test_util.h"

namespace vdla_test {
namespace {

uint32_t groupStates(uint32_t g0, uint32_t g1)
{
	return g0 | (g1 << VDLA_E_STATUS_GROUP_SHIFT(1));
}

class EngineModel : public ::testing::Test
{
protected:
	EngineModel()
		: dev_(nullptr, kDeviceTestGuestBytes)
	{
	}

	void injectBdma(uint32_t mode, uint32_t count, uint32_t delayUs = 0)
	{
		dev_.write(VDLA_REG_FI_MODE(kBdma), mode);
		dev_.write(VDLA_REG_FI_COUNT(kBdma), count);
		dev_.write(VDLA_REG_FI_DELAY_US(kBdma), delayUs);
	}

	BdmaOp newCopy(uint32_t bytes, uint32_t seed)
	{
		uint64_t src = dev_.alloc(bytes), dst = dev_.alloc(bytes);
		fillPattern(dev_.guest(src), bytes, seed);
		std::memset(dev_.guest(dst), kCanary, bytes);
		return BdmaOp::linear(src, dst, bytes);
	}

	bool copied(const BdmaOp &op)
	{
		return std::memcmp(dev_.guest(op.dst), dev_.guest(op.src), op.lineBytes) == 0;
	}

	uint32_t opEnable(unsigned group)
	{
		dev_.selectGroup(kBdma, group);
		return dev_.readEngine(kBdma, VDLA_D_OP_ENABLE);
	}

	uint32_t consumer()
	{
		return dev_.consumerGroup(kBdma);
	}

	/* Runs a small copy in each group from @from on, so that CONSUMER
	 * comes back to group 0 (groups run in order, 0 after the last). */
	void runGroupsUpToZero(unsigned from)
	{
		for (unsigned g = from; g < VDLA_NUM_GROUPS; g++)
			ASSERT_EQ(runBdma(dev_, g, newCopy(64, 40 + g)), unsigned(VDLA_GROUP_DONE));
		ASSERT_EQ(consumer(), 0u);
	}

	DeviceHarness dev_;
};

TEST_F(EngineModel, GroupsGoFromPendingToRunningToDoneInOrder)
{
	/* Each operation is held RUNNING for 150 ms. */
	injectBdma(VDLA_FI_DELAY, 2, 150000);
	BdmaOp op0 = newCopy(3000, 1), op1 = newCopy(5000, 2);
	programBdma(dev_, 1, op1);
	programBdma(dev_, 0, op0);
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_E_STATUS), 0u);
	EXPECT_EQ(opEnable(0), 0u);

	dev_.enable(kBdma);
	EXPECT_EQ(opEnable(0), 1u) << "PENDING or RUNNING";
	ASSERT_TRUE(waitRunning(dev_, kBdma, 0));
	EXPECT_EQ(consumer(), 0u);

	/* Group 1 waits behind the running group 0. */
	EXPECT_EQ(opEnable(1), 0u);
	dev_.enable(kBdma);
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_E_STATUS),
		  groupStates(VDLA_GROUP_RUNNING, VDLA_GROUP_PENDING));
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_E_POINTER), 1u) << "PRODUCER 1, CONSUMER still 0";
	EXPECT_EQ(opEnable(1), 1u);
	EXPECT_EQ(opEnable(0), 1u);
	EXPECT_FALSE(engineIdle(dev_, kBdma));

	/* Group 0 finishes: CONSUMER flips and group 1 runs. */
	ASSERT_TRUE(waitUntil([&] {
		return dev_.readEngine(kBdma, VDLA_E_STATUS) ==
		       groupStates(VDLA_GROUP_DONE, VDLA_GROUP_RUNNING);
	}));
	EXPECT_EQ(consumer(), 1u);
	EXPECT_EQ(opEnable(0), 0u);
	EXPECT_EQ(opEnable(1), 1u);
	EXPECT_TRUE(dev_.read(VDLA_REG_INT_STATUS) & VDLA_INT_DONE(kBdma));
	EXPECT_TRUE(copied(op0));

	/* Group 1 finishes: CONSUMER moves on to group 2, the engine idle. */
	ASSERT_TRUE(waitEngineIdle(dev_, kBdma));
	ASSERT_TRUE(dev_.waitInterrupts(VDLA_INT_DONE(kBdma), milliseconds(2000)));
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_E_STATUS),
		  groupStates(VDLA_GROUP_DONE, VDLA_GROUP_DONE));
	EXPECT_EQ(consumer(), 2u);
	EXPECT_EQ(opEnable(0), 0u);
	EXPECT_EQ(opEnable(1), 0u);
	EXPECT_TRUE(copied(op1));
	EXPECT_EQ(dev_.read(VDLA_REG_INT_STATUS), VDLA_INT_DONE(kBdma));
	EXPECT_TRUE(dev_.guestErrors().empty());
}

TEST_F(EngineModel, ProducerSelectsTheGroupTheDWindowAddresses)
{
	dev_.selectGroup(kBdma, 0);
	dev_.writeEngine(kBdma, VDLA_D_CONTEXT, 3);
	dev_.writeEngine(kBdma, VDLA_BDMA_LINE_BYTES, 111);
	dev_.selectGroup(kBdma, 1);
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_E_POINTER), 1u);
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_D_CONTEXT), 0u);
	dev_.writeEngine(kBdma, VDLA_D_CONTEXT, 12);
	dev_.writeEngine(kBdma, VDLA_BDMA_LINE_BYTES, 222);

	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_D_CONTEXT), 12u);
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_BDMA_LINE_BYTES), 222u);
	dev_.selectGroup(kBdma, 0);
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_E_POINTER), 0u);
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_D_CONTEXT), 3u);
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_BDMA_LINE_BYTES), 111u);
	/* Each engine has its own pointer. */
	EXPECT_EQ(dev_.readEngine(kRubik, VDLA_E_POINTER), 0u);
	EXPECT_TRUE(dev_.guestErrors().empty());
}

TEST_F(EngineModel, WritesToPendingOrRunningGroupAreDroppedAndLogged)
{
	injectBdma(VDLA_FI_HANG, 1);
	BdmaOp op0 = newCopy(64, 3), op1 = newCopy(128, 4);
	startBdma(dev_, 0, op0);
	ASSERT_TRUE(waitRunning(dev_, kBdma, 0));
	startBdma(dev_, 1, op1);
	ASSERT_EQ(dev_.groupState(kBdma, 1), unsigned(VDLA_GROUP_PENDING));
	dev_.clearGuestErrors();

	/* PRODUCER is 1: the PENDING group. */
	dev_.writeEngine(kBdma, VDLA_BDMA_LINE_BYTES, 999);
	dev_.writeEngine(kBdma, VDLA_D_CONTEXT, 5);
	dev_.write64Engine(kBdma, VDLA_BDMA_DST_ADDR_LO, op0.dst);
	EXPECT_EQ(guestErrorCount(dev_), 4u);
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_BDMA_LINE_BYTES), 128u);
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_D_CONTEXT), 0u);
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_BDMA_DST_ADDR_LO), uint32_t(op1.dst));

	/* Moving PRODUCER is allowed; the RUNNING group is protected too. */
	dev_.selectGroup(kBdma, 0);
	EXPECT_EQ(guestErrorCount(dev_), 4u);
	dev_.writeEngine(kBdma, VDLA_BDMA_SRC_ADDR_LO, 0x1000);
	dev_.writeEngine(kBdma, VDLA_D_CFG, 0);
	EXPECT_EQ(guestErrorCount(dev_), 6u);
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_BDMA_SRC_ADDR_LO), uint32_t(op0.src));
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_BDMA_LINE_BYTES), 64u);
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_E_STATUS),
		  groupStates(VDLA_GROUP_RUNNING, VDLA_GROUP_PENDING));

	dev_.write(VDLA_REG_RESET, VDLA_RESET_SOFT);
}

TEST_F(EngineModel, WritingZeroToOpEnableChangesNothing)
{
	dev_.writeEngine(kBdma, VDLA_D_OP_ENABLE, 0);
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_E_STATUS), 0u);

	/* Not for a PENDING or a RUNNING group either: 0 does not cancel. */
	injectBdma(VDLA_FI_HANG, 1);
	startBdma(dev_, 0, newCopy(64, 5));
	ASSERT_TRUE(waitRunning(dev_, kBdma, 0));
	startBdma(dev_, 1, newCopy(64, 6));
	dev_.writeEngine(kBdma, VDLA_D_OP_ENABLE, 0);
	dev_.selectGroup(kBdma, 0);
	dev_.writeEngine(kBdma, VDLA_D_OP_ENABLE, 0);
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_E_STATUS),
		  groupStates(VDLA_GROUP_RUNNING, VDLA_GROUP_PENDING));
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_D_OP_ENABLE), 1u);

	dev_.write(VDLA_REG_RESET, VDLA_RESET_SOFT);
}

TEST_F(EngineModel, OneEnableWriteStartsSeveralGroupsInOrder)
{
	std::vector<BdmaOp> ops;
	for (unsigned g = 0; g < 4; g++) {
		ops.push_back(newCopy(512, 60 + g));
		programBdma(dev_, g, ops.back());
	}
	dev_.clearGuestErrors();
	dev_.writeEngine(kBdma, VDLA_E_ENABLE, 0xf);
	ASSERT_TRUE(waitEngineIdle(dev_, kBdma));
	for (unsigned g = 0; g < 4; g++) {
		EXPECT_EQ(dev_.groupState(kBdma, g), unsigned(VDLA_GROUP_DONE)) << "group " << g;
		EXPECT_TRUE(copied(ops[g])) << "group " << g;
	}
	EXPECT_EQ(dev_.groupState(kBdma, 4), unsigned(VDLA_GROUP_IDLE));
	EXPECT_EQ(consumer(), 4u);
	/* Write-only: reads 0, and reading it is not an error. */
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_E_ENABLE), 0u);
	EXPECT_TRUE(dev_.guestErrors().empty());
}

TEST_F(EngineModel, EnableNamingABusyGroupOrNoGroupIsDroppedWhole)
{
	injectBdma(VDLA_FI_HANG, 1);
	startBdma(dev_, 0, newCopy(64, 70));
	ASSERT_TRUE(waitRunning(dev_, kBdma, 0));
	BdmaOp op1 = newCopy(64, 71);
	programBdma(dev_, 1, op1);
	dev_.clearGuestErrors();

	dev_.writeEngine(kBdma, VDLA_E_ENABLE, 0x3); /* group 0 is RUNNING */
	EXPECT_EQ(guestErrorCount(dev_), 1u);
	dev_.writeEngine(kBdma, VDLA_E_ENABLE, 0x2 | (1u << VDLA_NUM_GROUPS));
	EXPECT_EQ(guestErrorCount(dev_), 2u);
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_E_STATUS),
		  groupStates(VDLA_GROUP_RUNNING, VDLA_GROUP_IDLE));

	/* Writing 0 enables nothing and is no error. */
	dev_.writeEngine(kBdma, VDLA_E_ENABLE, 0);
	EXPECT_EQ(guestErrorCount(dev_), 2u);
	dev_.writeEngine(kBdma, VDLA_E_ENABLE, 0x2);
	EXPECT_EQ(guestErrorCount(dev_), 2u);
	EXPECT_EQ(dev_.groupState(kBdma, 1), unsigned(VDLA_GROUP_PENDING));

	dev_.write(VDLA_REG_RESET, VDLA_RESET_SOFT);
	EXPECT_FALSE(copied(op1));
}

TEST_F(EngineModel, GroupsRunStrictlyInConsumerOrder)
{
	BdmaOp op0 = newCopy(4000, 7), op1 = newCopy(4000, 8);
	ASSERT_EQ(runBdma(dev_, 0, op0), unsigned(VDLA_GROUP_DONE));
	ASSERT_EQ(consumer(), 1u);

	/* Group 0 enabled again while CONSUMER is 1 and group 1 IDLE: it
	 * must wait for every later group. A new source shows whether it ran. */
	fillPattern(dev_.guest(op0.src), 4000, 9);
	dev_.selectGroup(kBdma, 0);
	dev_.enable(kBdma);
	EXPECT_TRUE(holdsFor(
		[&] {
			return dev_.readEngine(kBdma, VDLA_E_STATUS) ==
			       groupStates(VDLA_GROUP_PENDING, VDLA_GROUP_IDLE);
		},
		milliseconds(100)));
	EXPECT_FALSE(copied(op0));
	EXPECT_FALSE(engineIdle(dev_, kBdma));

	/* Group 1 runs, and group 0 still waits for the groups after it. */
	startBdma(dev_, 1, op1);
	ASSERT_TRUE(waitUntil([&] { return dev_.groupState(kBdma, 1) == VDLA_GROUP_DONE; }));
	EXPECT_TRUE(copied(op1));
	EXPECT_EQ(consumer(), 2u);
	EXPECT_TRUE(holdsFor([&] { return dev_.groupState(kBdma, 0) == VDLA_GROUP_PENDING; },
		milliseconds(50)));
	EXPECT_FALSE(copied(op0));

	/* The later groups run in order, then group 0. */
	std::vector<BdmaOp> later;
	for (unsigned g = 2; g < VDLA_NUM_GROUPS; g++) {
		later.push_back(newCopy(256, 20 + g));
		startBdma(dev_, g, later.back());
	}
	ASSERT_TRUE(waitEngineIdle(dev_, kBdma));
	for (unsigned g = 0; g < VDLA_NUM_GROUPS; g++)
		EXPECT_EQ(dev_.groupState(kBdma, g), unsigned(VDLA_GROUP_DONE)) << "group " << g;
	for (const BdmaOp &op : later)
		EXPECT_TRUE(copied(op));
	EXPECT_TRUE(copied(op0));
	EXPECT_EQ(consumer(), 1u);
}

TEST_F(EngineModel, FinishedGroupKeepsItsRegistersAndRunsTheSameOperationAgain)
{
	BdmaOp op0 = newCopy(2500, 10), op1 = newCopy(100, 11);
	op0.context = 7;
	ASSERT_EQ(runBdma(dev_, 0, op0), unsigned(VDLA_GROUP_DONE));
	ASSERT_EQ(runBdma(dev_, 1, op1), unsigned(VDLA_GROUP_DONE));
	runGroupsUpToZero(2);

	dev_.selectGroup(kBdma, 0);
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_D_CONTEXT), 7u);
	EXPECT_EQ(read64(dev_, VDLA_ENGINE_BASE(kBdma) + VDLA_BDMA_SRC_ADDR_LO), op0.src);
	EXPECT_EQ(read64(dev_, VDLA_ENGINE_BASE(kBdma) + VDLA_BDMA_DST_ADDR_LO), op0.dst);
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_BDMA_LINE_BYTES), 2500u);
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_BDMA_LINES), 1u);
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_BDMA_SURFACES), 1u);

	fillPattern(dev_.guest(op0.src), 2500, 12);
	dev_.ackInterrupts(VDLA_INT_ALL);
	dev_.enable(kBdma);
	ASSERT_TRUE(dev_.waitInterrupts(VDLA_INT_DONE(kBdma), milliseconds(5000)));
	ASSERT_TRUE(waitEngineIdle(dev_, kBdma));
	EXPECT_EQ(dev_.groupState(kBdma, 0), unsigned(VDLA_GROUP_DONE));
	EXPECT_TRUE(copied(op0));
}

TEST_F(EngineModel, GroupThatEndedInErrorRunsAgainWhenReenabled)
{
	injectBdma(VDLA_FI_OP_ERROR, 1);
	BdmaOp op0 = newCopy(700, 13), op1 = newCopy(300, 14);
	ASSERT_EQ(runBdma(dev_, 0, op0), unsigned(VDLA_GROUP_ERROR));
	EXPECT_EQ(dev_.stats(kBdma, 0).error, unsigned(VDLA_ERROR_INJECTED));
	dev_.selectGroup(kBdma, 0);
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_D_OP_ENABLE), 0u);
	ASSERT_EQ(runBdma(dev_, 1, op1), unsigned(VDLA_GROUP_DONE));
	runGroupsUpToZero(2);

	dev_.selectGroup(kBdma, 0);
	dev_.enable(kBdma);
	ASSERT_TRUE(dev_.waitInterrupts(VDLA_INT_DONE(kBdma), milliseconds(5000)));
	ASSERT_TRUE(waitEngineIdle(dev_, kBdma));
	EXPECT_EQ(dev_.groupState(kBdma, 0), unsigned(VDLA_GROUP_DONE));
	EXPECT_EQ(dev_.stats(kBdma, 0).error, unsigned(VDLA_ERROR_NONE));
	EXPECT_TRUE(copied(op0));
}

TEST_F(EngineModel, IdleRegisterShowsEachBusyEngine)
{
	EXPECT_EQ(dev_.read(VDLA_REG_ENGINES), kAllEnginesIdle);
	EXPECT_EQ(dev_.read(VDLA_REG_IDLE), kAllEnginesIdle);

	dev_.write(VDLA_REG_FI_MODE(kRubik), VDLA_FI_HANG);
	dev_.write(VDLA_REG_FI_COUNT(kRubik), 1);
	uint64_t buf = dev_.alloc(8192);
	startRubikCopy(dev_, 0, buf, buf + 4096, 1, 4096);
	ASSERT_TRUE(waitRunning(dev_, kRubik, 0));
	EXPECT_EQ(dev_.read(VDLA_REG_IDLE), kAllEnginesIdle & ~(1u << kRubik));

	/* A PENDING group counts as busy too. */
	injectBdma(VDLA_FI_HANG, 1);
	startBdma(dev_, 0, BdmaOp::linear(buf, buf + 4096, 16));
	startBdma(dev_, 1, BdmaOp::linear(buf, buf + 4096, 16));
	ASSERT_TRUE(waitRunning(dev_, kBdma, 0));
	EXPECT_EQ(dev_.read(VDLA_REG_IDLE), kAllEnginesIdle & ~(1u << kRubik) & ~(1u << kBdma));

	dev_.write(VDLA_REG_RESET, VDLA_RESET_SOFT);
	EXPECT_EQ(dev_.read(VDLA_REG_IDLE), kAllEnginesIdle);
}

TEST_F(EngineModel, DoneBitAlreadyPendingSendsNoSecondMessage)
{
	ASSERT_EQ(runBdma(dev_, 0, newCopy(64, 30)), unsigned(VDLA_GROUP_DONE));
	ASSERT_TRUE(waitMessages(dev_, 1));

	/* DONE(BDMA) is still pending: another group of the engine ending
	 * sends nothing (one message can complete several operations). */
	ASSERT_EQ(runBdma(dev_, 1, newCopy(64, 31)), unsigned(VDLA_GROUP_DONE));
	EXPECT_TRUE(holdsFor([&] { return dev_.messages() == 1; }, milliseconds(50)));

	/* Another bit is another edge, whatever else is pending. */
	uint64_t buf = dev_.alloc(8192);
	startRubikCopy(dev_, 0, buf, buf + 4096, 1, 4096);
	ASSERT_TRUE(waitEngineIdle(dev_, kRubik));
	ASSERT_TRUE(waitMessages(dev_, 2));

	/* Acknowledged, the next raise is a new message. */
	dev_.ackInterrupts(VDLA_INT_DONE(kBdma));
	ASSERT_EQ(runBdma(dev_, 2, newCopy(64, 33)), unsigned(VDLA_GROUP_DONE));
	EXPECT_TRUE(waitMessages(dev_, 3));
	EXPECT_TRUE(holdsFor([&] { return dev_.messages() == 3; }, milliseconds(50)));
}

TEST_F(EngineModel, DoneBitPendingWhileMaskedIsSignalledWhenEnabled)
{
	dev_.write(VDLA_REG_INT_ENABLE, 0);
	ASSERT_EQ(runBdma(dev_, 0, newCopy(64, 34)), unsigned(VDLA_GROUP_DONE));
	EXPECT_TRUE(holdsFor([&] { return dev_.messages() == 0; }, milliseconds(50)));
	EXPECT_EQ(dev_.read(VDLA_REG_INT_STATUS), VDLA_INT_DONE(kBdma));

	dev_.write(VDLA_REG_INT_ENABLE, VDLA_INT_DONE(kBdma));
	EXPECT_TRUE(waitMessages(dev_, 1));
	EXPECT_TRUE(holdsFor([&] { return dev_.messages() == 1; }, milliseconds(50)));
}

class Counters : public EngineModel
{
};

TEST_F(Counters, BdmaCountsTheBytesCopiedEachWay)
{
	/* Strided, with gaps on both sides: the counters count copied bytes,
	 * not the extents. */
	uint64_t src = dev_.alloc(64 << 10), dst = dev_.alloc(64 << 10);
	BdmaOp op;
	op.src = src;
	op.dst = dst;
	op.lineBytes = 300;
	op.lines = 7;
	op.srcLineStride = 512;
	op.dstLineStride = 1000;
	op.surfaces = 3;
	op.srcSurfStride = 4096;
	op.dstSurfStride = 8000;
	ASSERT_EQ(runBdma(dev_, 0, op), unsigned(VDLA_GROUP_DONE));
	GroupStats s = dev_.stats(kBdma, 0);
	EXPECT_EQ(s.error, unsigned(VDLA_ERROR_NONE));
	EXPECT_EQ(s.bytesRead, 300u * 7 * 3);
	EXPECT_EQ(s.bytesWritten, 300u * 7 * 3);
	EXPECT_EQ(s.macs, 0u);
}

TEST_F(Counters, EachGroupHoldsItsLastOperation)
{
	BdmaOp a = newCopy(1000, 20), b = newCopy(3000, 21), c = newCopy(500, 22);
	ASSERT_EQ(runBdma(dev_, 0, a), unsigned(VDLA_GROUP_DONE));
	ASSERT_EQ(runBdma(dev_, 1, b), unsigned(VDLA_GROUP_DONE));
	EXPECT_EQ(dev_.stats(kBdma, 0).bytesRead, 1000u);
	EXPECT_EQ(dev_.stats(kBdma, 1).bytesRead, 3000u);
	runGroupsUpToZero(2);
	ASSERT_EQ(runBdma(dev_, 0, c), unsigned(VDLA_GROUP_DONE));
	EXPECT_EQ(dev_.stats(kBdma, 0).bytesRead, 500u);
	EXPECT_EQ(dev_.stats(kBdma, 0).bytesWritten, 500u);
	EXPECT_EQ(dev_.stats(kBdma, 1).bytesWritten, 3000u);
}

TEST_F(Counters, ACounterReadInOneAccessIsItsTwoHalves)
{
	BdmaOp a = newCopy(3000, 23);
	ASSERT_EQ(runBdma(dev_, 0, a), unsigned(VDLA_GROUP_DONE));
	dev_.clearGuestErrors();
	const uint32_t stat = VDLA_ENGINE_BASE(kBdma) + VDLA_E_GROUP_STAT(0);
	for (uint32_t lo : { VDLA_E_STAT_MACS_LO, VDLA_E_STAT_READ_LO, VDLA_E_STAT_WRITE_LO,
			     VDLA_E_STAT_TIME_LO }) {
		uint64_t halves = dev_.read(stat + lo) | uint64_t(dev_.read(stat + lo + 4)) << 32;
		EXPECT_EQ(dev_.read64(stat + lo), halves) << "STAT + 0x" << std::hex << lo;
	}
	EXPECT_EQ(dev_.read64(stat + VDLA_E_STAT_READ_LO), 3000u);

	dev_.write(VDLA_REG_SCRATCH(0), 0x11223344);
	dev_.write(VDLA_REG_SCRATCH(1), 0x55667788);
	EXPECT_EQ(dev_.read64(VDLA_REG_SCRATCH(0)), 0x5566778811223344ull);
	EXPECT_TRUE(dev_.guestErrors().empty());
}

TEST_F(Counters, TimeIsDeviceTimeFromRunningToDone)
{
	/*
	 * Device time comes from the host clock, which the harness holds
	 * still. Hold the operation RUNNING with DELAY, move the clock by more
	 * than 2^32 ns while it runs, and the operation's time is exactly that
	 * step (both halves of the counter).
	 */
	constexpr uint64_t kStep = 0x123456789ull;
	injectBdma(VDLA_FI_DELAY, 1, 50000);
	uint64_t before = read64(dev_, VDLA_REG_TIME_LO);
	BdmaOp op = newCopy(256, 23);
	startBdma(dev_, 0, op);
	ASSERT_TRUE(waitRunning(dev_, kBdma, 0));
	dev_.nowNs += kStep;
	ASSERT_TRUE(waitEngineIdle(dev_, kBdma));
	ASSERT_EQ(dev_.groupState(kBdma, 0), unsigned(VDLA_GROUP_DONE));

	GroupStats s = dev_.stats(kBdma, 0);
	EXPECT_NE(s.timeNs, 0u);
	EXPECT_EQ(s.timeNs, kStep);
	EXPECT_EQ(read64(dev_, VDLA_REG_TIME_LO), before + kStep);
}

TEST_F(Counters, FailedOperationWritesNoBytes)
{
	injectBdma(VDLA_FI_OP_ERROR, 1);
	ASSERT_EQ(runBdma(dev_, 0, newCopy(800, 24)), unsigned(VDLA_GROUP_ERROR));
	EXPECT_EQ(dev_.stats(kBdma, 0).bytesWritten, 0u);
}

} /* namespace */
} /* namespace vdla_test */

namespace vdla_test {
namespace {

/* What the core tells the host's tracing (QEMU's trace-events), in order. */
TEST(Tracing, ReportsOperationsInterruptsFaultsAndResets)
{
	DeviceHarness dev(nullptr, kDeviceTestGuestBytes);
	uint64_t src = dev.alloc(4096), dst = dev.alloc(4096);
	ASSERT_EQ(runBdma(dev, 0, BdmaOp::linear(src, dst, 4096)), unsigned(VDLA_GROUP_DONE));
	/* A copy from beyond guest memory faults. */
	ASSERT_EQ(runBdma(dev, 1, BdmaOp::linear(dev.guestBytes(), dst, 64)),
		  unsigned(VDLA_GROUP_ERROR));
	dev.write(VDLA_REG_RESET, VDLA_RESET_SOFT);

	std::vector<vdla_trace> events = dev.traces();
	auto find = [&](vdla_trace_kind kind, size_t from) {
		for (size_t i = from; i < events.size(); i++)
			if (events[i].kind == kind)
				return i;
		return events.size();
	};
	size_t start = find(VDLA_TRACE_OP_START, 0);
	ASSERT_LT(start, events.size());
	EXPECT_EQ(events[start].engine, unsigned(kBdma));
	size_t end = find(VDLA_TRACE_OP_END, start);
	ASSERT_LT(end, events.size());
	EXPECT_EQ(events[end].error, unsigned(VDLA_ERROR_NONE));
	size_t irq = find(VDLA_TRACE_IRQ, end);
	ASSERT_LT(irq, events.size());
	EXPECT_EQ(events[irq].value, uint64_t(VDLA_INT_DONE(kBdma)));
	size_t fault = find(VDLA_TRACE_MMU_FAULT, irq);
	ASSERT_LT(fault, events.size());
	EXPECT_EQ(events[fault].group, 1u);
	EXPECT_EQ(events[fault].value, dev.guestBytes());
	EXPECT_EQ(events[find(VDLA_TRACE_OP_END, fault)].error, unsigned(VDLA_ERROR_MMU_FAULT));
	size_t reset = find(VDLA_TRACE_RESET, fault);
	ASSERT_LT(reset, events.size());
	EXPECT_EQ(events[reset].value, 1u) << "RESET_COUNT after the soft reset";
}

} /* namespace */
} /* namespace vdla_test */
