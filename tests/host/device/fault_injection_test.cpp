/* SPDX-License-Identifier: MIT */
/*
 * Fault injection against docs/hw-spec.md ("Fault injection", "PCI
 * function"): every mode, armed either through the register window at
 * 0x2000 or through the fi-* properties that a reset loads, FI_COUNT
 * semantics, and rejected register values.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <iterator>
#include <memory>
#include <string>

#include "device_test_util.h"

namespace vdla_test {
namespace {

constexpr uint32_t kCopyBytes = 6000;

/* The parameter says how the injection is armed: false registers, true properties. */
class FaultInjection : public ::testing::TestWithParam<bool>
{
protected:
	bool viaConfig() const { return GetParam(); }

	void arm(uint32_t mode, uint32_t count, uint32_t delayUs = 0, unsigned engine = kBdma)
	{
		if (viaConfig()) {
			vdla_core_config config;
			vdla_core_default_config(&config);
			config.fi_engine = int32_t(engine);
			config.fi_mode = mode;
			config.fi_count = count;
			config.fi_delay_us = delayUs;
			dev_ = std::make_unique<DeviceHarness>(&config, kDeviceTestGuestBytes);
		} else {
			dev_ = std::make_unique<DeviceHarness>(nullptr, kDeviceTestGuestBytes);
			dev_->write(VDLA_REG_FI_MODE(engine), mode);
			dev_->write(VDLA_REG_FI_COUNT(engine), count);
			dev_->write(VDLA_REG_FI_DELAY_US(engine), delayUs);
		}
		ASSERT_EQ(dev_->read(VDLA_REG_FI_MODE(engine)), mode);
		ASSERT_EQ(dev_->read(VDLA_REG_FI_COUNT(engine)), count);
		ASSERT_EQ(dev_->read(VDLA_REG_FI_DELAY_US(engine)), delayUs);
		ASSERT_TRUE(dev_->guestErrors().empty());
	}

	/* A fresh source and canary-filled destination for each copy. */
	BdmaOp newCopy(uint32_t seed)
	{
		uint64_t src = dev_->alloc(kCopyBytes), dst = dev_->alloc(kCopyBytes);
		fillPattern(dev_->guest(src), kCopyBytes, seed);
		std::memset(dev_->guest(dst), kCanary, kCopyBytes);
		return BdmaOp::linear(src, dst, kCopyBytes);
	}

	bool copied(const BdmaOp &op)
	{
		return std::memcmp(dev_->guest(op.dst), dev_->guest(op.src), kCopyBytes) == 0;
	}

	bool untouched(const BdmaOp &op)
	{
		return guestBytes(*dev_, op.dst, kCopyBytes) ==
		       std::vector<uint8_t>(kCopyBytes, kCanary);
	}

	/* A normal copy in @group: DONE, DONE bit, data. */
	void expectNormalCopy(unsigned group, uint32_t seed)
	{
		BdmaOp op = newCopy(seed);
		EXPECT_EQ(runBdma(*dev_, group, op), unsigned(VDLA_GROUP_DONE));
		EXPECT_EQ(dev_->stats(kBdma, group).error, unsigned(VDLA_ERROR_NONE));
		EXPECT_TRUE(dev_->read(VDLA_REG_INT_STATUS) & VDLA_INT_DONE(kBdma));
		EXPECT_TRUE(copied(op));
	}

	std::unique_ptr<DeviceHarness> dev_;
};

TEST_P(FaultInjection, HangKeepsTheGroupRunningWithNoInterrupt)
{
	arm(VDLA_FI_HANG, 1);
	startBdma(*dev_, 0, newCopy(1));
	ASSERT_TRUE(waitRunning(*dev_, kBdma, 0));
	/* Decremented as the operation started. */
	EXPECT_EQ(dev_->read(VDLA_REG_FI_COUNT(kBdma)), 0u);

	EXPECT_TRUE(holdsFor(
		[&] {
			return dev_->groupState(kBdma, 0) == VDLA_GROUP_RUNNING &&
			       dev_->readEngine(kBdma, VDLA_D_OP_ENABLE) == 1 &&
			       !engineIdle(*dev_, kBdma) && dev_->read(VDLA_REG_INT_STATUS) == 0 &&
			       dev_->messages() == 0;
		},
		milliseconds(200)));

	/* Only a soft reset ends it; the reset reloads the properties. */
	dev_->write(VDLA_REG_RESET, VDLA_RESET_SOFT);
	EXPECT_EQ(dev_->groupState(kBdma, 0), unsigned(VDLA_GROUP_IDLE));
	EXPECT_EQ(dev_->read(VDLA_REG_FI_MODE(kBdma)), viaConfig() ? unsigned(VDLA_FI_HANG) : 0u);
	EXPECT_EQ(dev_->read(VDLA_REG_FI_COUNT(kBdma)), viaConfig() ? 1u : 0u);
}

TEST_P(FaultInjection, DropIrqCompletesWithoutDoneBitOrMessage)
{
	arm(VDLA_FI_DROP_IRQ, 1);
	BdmaOp op = newCopy(2);
	startBdma(*dev_, 0, op);
	ASSERT_TRUE(waitEngineIdle(*dev_, kBdma));
	ASSERT_EQ(dev_->groupState(kBdma, 0), unsigned(VDLA_GROUP_DONE));
	EXPECT_EQ(dev_->stats(kBdma, 0).error, unsigned(VDLA_ERROR_NONE));
	EXPECT_TRUE(copied(op));
	EXPECT_TRUE(holdsFor(
		[&] { return dev_->read(VDLA_REG_INT_STATUS) == 0 && dev_->messages() == 0; },
		milliseconds(100)));

	/* The count is spent: the next operation interrupts normally. */
	expectNormalCopy(1, 3);
	EXPECT_EQ(dev_->read(VDLA_REG_INT_STATUS), VDLA_INT_DONE(kBdma));
	EXPECT_TRUE(waitMessages(*dev_, 1));
}

TEST_P(FaultInjection, DupIrqSendsTwoMessagesForOneDoneBit)
{
	arm(VDLA_FI_DUP_IRQ, 1);
	BdmaOp op = newCopy(4);
	EXPECT_EQ(runBdma(*dev_, 0, op), unsigned(VDLA_GROUP_DONE));
	EXPECT_TRUE(copied(op));
	EXPECT_TRUE(waitMessages(*dev_, 2));
	EXPECT_TRUE(holdsFor([&] { return dev_->messages() == 2; }, milliseconds(100)));
	EXPECT_EQ(dev_->read(VDLA_REG_INT_STATUS), VDLA_INT_DONE(kBdma));

	/* The next operation sends one message again. */
	dev_->ackInterrupts(VDLA_INT_ALL);
	expectNormalCopy(1, 5);
	EXPECT_TRUE(waitMessages(*dev_, 3));
	EXPECT_TRUE(holdsFor([&] { return dev_->messages() == 3; }, milliseconds(50)));
}

TEST_P(FaultInjection, OpErrorEndsInInjectedErrorAndWritesNothing)
{
	arm(VDLA_FI_OP_ERROR, 1);
	BdmaOp op = newCopy(6);
	EXPECT_EQ(runBdma(*dev_, 0, op), unsigned(VDLA_GROUP_ERROR));
	GroupStats stats = dev_->stats(kBdma, 0);
	EXPECT_EQ(stats.error, unsigned(VDLA_ERROR_INJECTED));
	EXPECT_EQ(stats.bytesWritten, 0u);
	EXPECT_TRUE(untouched(op));
	EXPECT_EQ(dev_->read(VDLA_REG_INT_STATUS), VDLA_INT_ERROR(kBdma));
	EXPECT_FALSE(readMmuFault(*dev_).valid);

	expectNormalCopy(1, 7);
}

TEST_P(FaultInjection, DelayCompletesNoEarlierThanTheDelay)
{
	constexpr uint32_t kDelayUs = 150000;
	arm(VDLA_FI_DELAY, 1, kDelayUs);
	BdmaOp op = newCopy(8);

	auto start = std::chrono::steady_clock::now();
	startBdma(*dev_, 0, op);
	ASSERT_TRUE(dev_->waitInterrupts(VDLA_INT_DONE(kBdma), milliseconds(5000)));
	auto elapsed = std::chrono::steady_clock::now() - start;

	EXPECT_GE(elapsed, std::chrono::microseconds(kDelayUs));
	EXPECT_EQ(dev_->groupState(kBdma, 0), unsigned(VDLA_GROUP_DONE));
	EXPECT_EQ(dev_->stats(kBdma, 0).error, unsigned(VDLA_ERROR_NONE));
	EXPECT_TRUE(copied(op));
	EXPECT_EQ(dev_->read(VDLA_REG_FI_COUNT(kBdma)), 0u);

	expectNormalCopy(1, 9);
}

TEST_P(FaultInjection, CountDecrementsAsEachOperationStarts)
{
	arm(VDLA_FI_OP_ERROR, 2);
	for (unsigned i = 0; i < 2; i++) {
		BdmaOp op = newCopy(10 + i);
		EXPECT_EQ(runBdma(*dev_, i, op), unsigned(VDLA_GROUP_ERROR)) << "op " << i;
		EXPECT_EQ(dev_->stats(kBdma, i).error, unsigned(VDLA_ERROR_INJECTED));
		EXPECT_EQ(dev_->read(VDLA_REG_FI_COUNT(kBdma)), 1u - i);
		EXPECT_TRUE(untouched(op));
	}
	expectNormalCopy(2, 12);
	EXPECT_EQ(dev_->read(VDLA_REG_FI_COUNT(kBdma)), 0u);
	/* The mode itself stays; only the count runs out. */
	EXPECT_EQ(dev_->read(VDLA_REG_FI_MODE(kBdma)), unsigned(VDLA_FI_OP_ERROR));
}

TEST_P(FaultInjection, CountOfAllOnesAffectsEveryOperation)
{
	arm(VDLA_FI_OP_ERROR, VDLA_FI_COUNT_FOREVER);
	for (unsigned i = 0; i < 4; i++) {
		BdmaOp op = newCopy(20 + i);
		EXPECT_EQ(runBdma(*dev_, i, op), unsigned(VDLA_GROUP_ERROR)) << "op " << i;
		EXPECT_EQ(dev_->stats(kBdma, i).error, unsigned(VDLA_ERROR_INJECTED));
		EXPECT_TRUE(untouched(op));
		EXPECT_EQ(dev_->read(VDLA_REG_FI_COUNT(kBdma)), VDLA_FI_COUNT_FOREVER);
	}
}

TEST_P(FaultInjection, ZeroCountAffectsNothing)
{
	arm(VDLA_FI_OP_ERROR, 0);
	expectNormalCopy(0, 30);
	EXPECT_EQ(dev_->read(VDLA_REG_FI_COUNT(kBdma)), 0u);
}

TEST_P(FaultInjection, OnlyTheArmedEngineIsAffected)
{
	arm(VDLA_FI_OP_ERROR, VDLA_FI_COUNT_FOREVER, 0, kRubik);
	for (unsigned e = 0; e < VDLA_NUM_ENGINES; e++) {
		if (e == kRubik)
			continue;
		EXPECT_EQ(dev_->read(VDLA_REG_FI_MODE(e)), 0u) << "engine " << e;
	}

	uint64_t src = dev_->alloc(4096), dst = dev_->alloc(4096);
	std::memset(dev_->guest(dst), kCanary, 4096);
	startRubikCopy(*dev_, 0, src, dst, 1, 4096);
	ASSERT_TRUE(waitEngineIdle(*dev_, kRubik));
	EXPECT_EQ(dev_->groupState(kRubik, 0), unsigned(VDLA_GROUP_ERROR));
	EXPECT_EQ(dev_->stats(kRubik, 0).error, unsigned(VDLA_ERROR_INJECTED));
	EXPECT_TRUE(guestBytes(*dev_, dst, 4096) == std::vector<uint8_t>(4096, kCanary));

	expectNormalCopy(0, 31);
}

INSTANTIATE_TEST_SUITE_P(Device, FaultInjection, ::testing::Values(false, true),
			 [](const ::testing::TestParamInfo<bool> &info) {
				 return info.param ? "Properties" : "Registers";
			 });

void expectFaultInjection(DeviceHarness &dev, unsigned engine, uint32_t mode, uint32_t count,
			  uint32_t delayUs)
{
	SCOPED_TRACE("engine " + std::to_string(engine));
	EXPECT_EQ(dev.read(VDLA_REG_FI_MODE(engine)), mode);
	EXPECT_EQ(dev.read(VDLA_REG_FI_COUNT(engine)), count);
	EXPECT_EQ(dev.read(VDLA_REG_FI_DELAY_US(engine)), delayUs);
}

TEST(FaultInjectionProperties, AreLoadedAtCreationAndAtEveryReset)
{
	vdla_core_config config;
	vdla_core_default_config(&config);
	config.fi_engine = VDLA_ENGINE_PDP;
	config.fi_mode = VDLA_FI_DELAY;
	config.fi_count = 7;
	config.fi_delay_us = 1234;
	DeviceHarness dev(&config, kDeviceTestGuestBytes);

	auto expectLoaded = [&] {
		for (unsigned e = 0; e < VDLA_NUM_ENGINES; e++) {
			if (e == VDLA_ENGINE_PDP)
				expectFaultInjection(dev, e, VDLA_FI_DELAY, 7, 1234);
			else
				expectFaultInjection(dev, e, 0, 0, 0);
		}
	};
	expectLoaded();

	auto scribble = [&] {
		for (unsigned e = 0; e < VDLA_NUM_ENGINES; e++) {
			dev.write(VDLA_REG_FI_MODE(e), VDLA_FI_DUP_IRQ);
			dev.write(VDLA_REG_FI_COUNT(e), 99);
			dev.write(VDLA_REG_FI_DELAY_US(e), 5);
		}
	};
	scribble();
	dev.write(VDLA_REG_RESET, VDLA_RESET_SOFT);
	expectLoaded();
	scribble();
	vdla_core_reset(dev.core());
	expectLoaded();
	EXPECT_TRUE(dev.guestErrors().empty());
}

TEST(FaultInjectionProperties, SpentCountIsReloadedBySoftReset)
{
	vdla_core_config config;
	vdla_core_default_config(&config);
	config.fi_engine = kBdma;
	config.fi_mode = VDLA_FI_OP_ERROR;
	config.fi_count = 1;
	DeviceHarness dev(&config, kDeviceTestGuestBytes);
	uint64_t src = dev.alloc(64), dst = dev.alloc(64);

	EXPECT_EQ(runBdma(dev, 0, BdmaOp::linear(src, dst, 64)), unsigned(VDLA_GROUP_ERROR));
	EXPECT_EQ(runBdma(dev, 1, BdmaOp::linear(src, dst, 64)), unsigned(VDLA_GROUP_DONE));
	dev.write(VDLA_REG_RESET, VDLA_RESET_SOFT);
	dev.write(VDLA_REG_INT_ENABLE, VDLA_INT_ALL);
	EXPECT_EQ(dev.read(VDLA_REG_FI_COUNT(kBdma)), 1u);
	EXPECT_EQ(runBdma(dev, 0, BdmaOp::linear(src, dst, 64)), unsigned(VDLA_GROUP_ERROR));
	EXPECT_EQ(dev.stats(kBdma, 0).error, unsigned(VDLA_ERROR_INJECTED));
}

TEST(FaultInjectionProperties, NoEngineIsArmedByDefault)
{
	DeviceHarness dev(nullptr, kDeviceTestGuestBytes);
	for (unsigned e = 0; e < VDLA_NUM_ENGINES; e++)
		expectFaultInjection(dev, e, 0, 0, 0);

	vdla_core_config config;
	vdla_core_default_config(&config);
	EXPECT_EQ(config.fi_engine, -1);
	EXPECT_EQ(config.fi_mode, 0u);
	EXPECT_EQ(config.fi_count, 0u);
	EXPECT_EQ(config.fi_delay_us, 0u);
}

class FaultInjectionRegisters : public ::testing::Test
{
protected:
	FaultInjectionRegisters()
		: dev_(nullptr, kDeviceTestGuestBytes)
	{
	}

	DeviceHarness dev_;
};

TEST_F(FaultInjectionRegisters, EveryEngineHasItsOwnReadWriteWindow)
{
	for (unsigned e = 0; e < VDLA_NUM_ENGINES; e++) {
		dev_.write(VDLA_REG_FI_MODE(e), e % VDLA_FI_MODES);
		dev_.write(VDLA_REG_FI_COUNT(e), 100 + e);
		dev_.write(VDLA_REG_FI_DELAY_US(e), 1000 * e);
	}
	for (unsigned e = 0; e < VDLA_NUM_ENGINES; e++)
		expectFaultInjection(dev_, e, e % VDLA_FI_MODES, 100 + e, 1000 * e);
	EXPECT_TRUE(dev_.guestErrors().empty());
}

TEST_F(FaultInjectionRegisters, InvalidModeIsDroppedAndLogged)
{
	dev_.write(VDLA_REG_FI_MODE(2), VDLA_FI_OP_ERROR);
	dev_.clearGuestErrors();
	const uint32_t bad[] = { VDLA_FI_MODES, 7, 0x100 | VDLA_FI_HANG, 0xffffffffu };
	for (uint32_t mode : bad) {
		dev_.write(VDLA_REG_FI_MODE(2), mode);
		EXPECT_EQ(dev_.read(VDLA_REG_FI_MODE(2)), unsigned(VDLA_FI_OP_ERROR))
			<< "mode " << mode;
	}
	EXPECT_EQ(dev_.guestErrors().size(), std::size(bad));
}

TEST_F(FaultInjectionRegisters, InvalidModeArmsNothing)
{
	dev_.write(VDLA_REG_FI_MODE(kBdma), 9);
	dev_.write(VDLA_REG_FI_COUNT(kBdma), VDLA_FI_COUNT_FOREVER);
	EXPECT_EQ(dev_.read(VDLA_REG_FI_MODE(kBdma)), 0u);
	uint64_t src = dev_.alloc(64), dst = dev_.alloc(64);
	fillPattern(dev_.guest(src), 64, 40);
	EXPECT_EQ(runBdma(dev_, 0, BdmaOp::linear(src, dst, 64)), unsigned(VDLA_GROUP_DONE));
	EXPECT_EQ(std::memcmp(dev_.guest(dst), dev_.guest(src), 64), 0);
}

TEST_F(FaultInjectionRegisters, DelayAboveTenSecondsIsDroppedAndLogged)
{
	dev_.write(VDLA_REG_FI_DELAY_US(1), 10000000);
	EXPECT_EQ(dev_.read(VDLA_REG_FI_DELAY_US(1)), 10000000u);
	EXPECT_TRUE(dev_.guestErrors().empty());

	dev_.write(VDLA_REG_FI_DELAY_US(1), 10000001);
	dev_.write(VDLA_REG_FI_DELAY_US(1), 0xffffffffu);
	EXPECT_EQ(dev_.read(VDLA_REG_FI_DELAY_US(1)), 10000000u);
	EXPECT_EQ(dev_.guestErrors().size(), 2u);
}

TEST_F(FaultInjectionRegisters, AnyCountIsAccepted)
{
	for (uint32_t count : { 0u, 1u, 0x7fffffffu, 0xfffffffeu, VDLA_FI_COUNT_FOREVER }) {
		dev_.write(VDLA_REG_FI_COUNT(4), count);
		EXPECT_EQ(dev_.read(VDLA_REG_FI_COUNT(4)), count);
	}
	EXPECT_TRUE(dev_.guestErrors().empty());
}

} /* namespace */
} /* namespace vdla_test */
