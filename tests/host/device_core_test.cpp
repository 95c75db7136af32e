/* SPDX-License-Identifier: MIT */
/*
 * The device core's register model against docs/hw-spec.md: reset values,
 * access rules, the interrupt model and soft reset.
 */
#include <gtest/gtest.h>

#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

#include "vdla_core.h"
#include "vdla_regs.h"

namespace {

/* A host for the core that records what the device does to its host. */
class CoreTest : public ::testing::Test
{
protected:
	void SetUp() override
	{
		struct vdla_core_host host = {};
		host.opaque = this;
		host.raise_irq = [](void *opaque, unsigned int vector) {
			static_cast<CoreTest *>(opaque)->irqs_.push_back(vector);
		};
		host.clock_ns = [](void *opaque) { return static_cast<CoreTest *>(opaque)->now_ns_; };
		host.guest_error = [](void *opaque, const char *fmt, va_list args) {
			char text[256];
			std::vsnprintf(text, sizeof(text), fmt, args);
			static_cast<CoreTest *>(opaque)->errors_.push_back(text);
		};
		core_ = vdla_core_create(&host);
		ASSERT_NE(core_, nullptr);
	}

	void TearDown() override { vdla_core_destroy(core_); }

	uint32_t read(uint64_t offset) { return vdla_core_mmio_read(core_, offset, 4); }
	void write(uint64_t offset, uint32_t value) { vdla_core_mmio_write(core_, offset, value, 4); }

	struct vdla_core *core_ = nullptr;
	std::vector<unsigned int> irqs_;
	std::vector<std::string> errors_;
	uint64_t now_ns_ = 1000;
};

TEST(CoreCreate, RejectsHostWithoutRequiredCallbacks)
{
	struct vdla_core_host host = {};
	EXPECT_EQ(vdla_core_create(&host), nullptr);
	EXPECT_EQ(vdla_core_create(nullptr), nullptr);
}

TEST_F(CoreTest, IdentificationRegistersHoldSpecValues)
{
	EXPECT_EQ(read(VDLA_REG_ID), 0x56444c41u); /* "VDLA" */
	EXPECT_EQ(read(VDLA_REG_VERSION), (1u << 16) | (0u << 8) | 0u);
	EXPECT_EQ(read(VDLA_REG_CAPS), VDLA_CAP_TEST_IRQ | VDLA_CAP_SOFT_RESET | VDLA_CAP_TIMER);
	EXPECT_EQ(read(VDLA_REG_IRQ_VECTORS), 1u);
	EXPECT_TRUE(errors_.empty());
}

TEST_F(CoreTest, ScratchRegistersHoldWhatIsWritten)
{
	for (unsigned int i = 0; i < VDLA_NUM_SCRATCH; i++)
		write(VDLA_REG_SCRATCH(i), 0xa5a50000u + i);
	for (unsigned int i = 0; i < VDLA_NUM_SCRATCH; i++)
		EXPECT_EQ(read(VDLA_REG_SCRATCH(i)), 0xa5a50000u + i);
	EXPECT_TRUE(errors_.empty());
}

TEST_F(CoreTest, RegistersResetToZero)
{
	for (unsigned int i = 0; i < VDLA_NUM_SCRATCH; i++)
		EXPECT_EQ(read(VDLA_REG_SCRATCH(i)), 0u);
	EXPECT_EQ(read(VDLA_REG_INT_STATUS), 0u);
	EXPECT_EQ(read(VDLA_REG_INT_ENABLE), 0u);
	EXPECT_EQ(read(VDLA_REG_RESET_COUNT), 0u);
}

TEST_F(CoreTest, WriteToReadOnlyRegisterIsIgnoredAndLogged)
{
	write(VDLA_REG_ID, 0);
	write(VDLA_REG_VERSION, 0);
	EXPECT_EQ(read(VDLA_REG_ID), VDLA_ID_MAGIC);
	EXPECT_EQ(read(VDLA_REG_VERSION), VDLA_HW_VERSION);
	ASSERT_EQ(errors_.size(), 2u);
	EXPECT_NE(errors_[0].find("read-only"), std::string::npos);
}

struct BadAccess {
	uint64_t offset;
	unsigned int size;
};

class CoreBadAccessTest : public CoreTest, public ::testing::WithParamInterface<BadAccess>
{
};

TEST_P(CoreBadAccessTest, IsLoggedReadsZeroAndWritesNothing)
{
	const BadAccess &access = GetParam();
	write(VDLA_REG_SCRATCH(0), 0x12345678);

	EXPECT_EQ(vdla_core_mmio_read(core_, access.offset, access.size), 0u);
	vdla_core_mmio_write(core_, access.offset, 0xffffffffu, access.size);

	EXPECT_EQ(errors_.size(), 2u);
	EXPECT_EQ(read(VDLA_REG_SCRATCH(0)), 0x12345678u);
	EXPECT_EQ(read(VDLA_REG_INT_STATUS), 0u);
	EXPECT_TRUE(irqs_.empty());
}

INSTANTIATE_TEST_SUITE_P(Accesses, CoreBadAccessTest,
			 ::testing::Values(BadAccess{ VDLA_REG_SCRATCH(0), 1 },
					   BadAccess{ VDLA_REG_SCRATCH(0), 2 },
					   BadAccess{ VDLA_REG_SCRATCH(0), 8 },
					   BadAccess{ VDLA_REG_SCRATCH(0) + 1, 4 },
					   BadAccess{ VDLA_REG_SCRATCH(0) + 2, 4 },
					   BadAccess{ 0x0ffc, 4 },     /* unimplemented */
					   BadAccess{ VDLA_MMIO_SIZE, 4 }, /* beyond BAR0 */
					   BadAccess{ ~0ull - 3, 4 }));

TEST_F(CoreTest, TestInterruptIsSignalledWhenEnabled)
{
	write(VDLA_REG_INT_ENABLE, VDLA_INT_TEST);
	write(VDLA_REG_INT_SET, VDLA_INT_TEST);

	EXPECT_EQ(read(VDLA_REG_INT_STATUS), VDLA_INT_TEST);
	ASSERT_EQ(irqs_.size(), 1u);
	EXPECT_EQ(irqs_[0], unsigned(VDLA_MSIX_VECTOR_GLOBAL));
}

TEST_F(CoreTest, MaskedInterruptIsPendingButNotSignalled)
{
	write(VDLA_REG_INT_SET, VDLA_INT_TEST);

	EXPECT_EQ(read(VDLA_REG_INT_STATUS), VDLA_INT_TEST);
	EXPECT_TRUE(irqs_.empty());
}

TEST_F(CoreTest, EnablingAPendingInterruptSignalsIt)
{
	write(VDLA_REG_INT_SET, VDLA_INT_TEST);
	write(VDLA_REG_INT_ENABLE, VDLA_INT_TEST);

	EXPECT_EQ(irqs_.size(), 1u);
}

TEST_F(CoreTest, AlreadyPendingInterruptIsNotSignalledTwice)
{
	write(VDLA_REG_INT_ENABLE, VDLA_INT_TEST);
	write(VDLA_REG_INT_SET, VDLA_INT_TEST);
	write(VDLA_REG_INT_SET, VDLA_INT_TEST);

	EXPECT_EQ(irqs_.size(), 1u);
}

TEST_F(CoreTest, InterruptStatusIsWriteOneToClear)
{
	write(VDLA_REG_INT_ENABLE, VDLA_INT_TEST);
	write(VDLA_REG_INT_SET, VDLA_INT_TEST);
	write(VDLA_REG_INT_STATUS, 0);
	EXPECT_EQ(read(VDLA_REG_INT_STATUS), VDLA_INT_TEST);

	write(VDLA_REG_INT_STATUS, VDLA_INT_TEST);
	EXPECT_EQ(read(VDLA_REG_INT_STATUS), 0u);

	/* Once acknowledged, the next raise is a new edge. */
	write(VDLA_REG_INT_SET, VDLA_INT_TEST);
	EXPECT_EQ(irqs_.size(), 2u);
}

TEST_F(CoreTest, UnknownInterruptBitsAreRejected)
{
	write(VDLA_REG_INT_ENABLE, 0x80000000u);
	write(VDLA_REG_INT_SET, 0x2u);

	EXPECT_EQ(read(VDLA_REG_INT_ENABLE), 0u);
	EXPECT_EQ(read(VDLA_REG_INT_STATUS), 0u);
	EXPECT_EQ(errors_.size(), 2u);
	EXPECT_TRUE(irqs_.empty());
}

TEST_F(CoreTest, SoftResetClearsStateAndCountsResets)
{
	write(VDLA_REG_SCRATCH(3), 0xdeadbeef);
	write(VDLA_REG_INT_SET, VDLA_INT_TEST);
	write(VDLA_REG_INT_ENABLE, VDLA_INT_TEST);
	irqs_.clear();

	write(VDLA_REG_RESET, VDLA_RESET_SOFT);
	write(VDLA_REG_RESET, VDLA_RESET_SOFT);

	EXPECT_EQ(read(VDLA_REG_SCRATCH(3)), 0u);
	EXPECT_EQ(read(VDLA_REG_INT_STATUS), 0u);
	EXPECT_EQ(read(VDLA_REG_INT_ENABLE), 0u);
	EXPECT_EQ(read(VDLA_REG_RESET_COUNT), 2u);
	EXPECT_TRUE(irqs_.empty());
	EXPECT_EQ(read(VDLA_REG_ID), VDLA_ID_MAGIC);
}

TEST_F(CoreTest, ResetWithWrongValueIsIgnoredAndLogged)
{
	write(VDLA_REG_SCRATCH(0), 7);
	write(VDLA_REG_RESET, 2);

	EXPECT_EQ(read(VDLA_REG_SCRATCH(0)), 7u);
	EXPECT_EQ(read(VDLA_REG_RESET_COUNT), 0u);
	EXPECT_EQ(errors_.size(), 1u);
}

TEST_F(CoreTest, PowerOnResetAlsoClearsResetCount)
{
	write(VDLA_REG_RESET, VDLA_RESET_SOFT);
	vdla_core_reset(core_);

	EXPECT_EQ(read(VDLA_REG_RESET_COUNT), 0u);
}

TEST_F(CoreTest, TimerCountsNanosecondsSinceReset)
{
	now_ns_ = 5000;
	write(VDLA_REG_RESET, VDLA_RESET_SOFT);
	now_ns_ = 5000 + 0x123456789ull;

	uint32_t lo = read(VDLA_REG_TIME_LO);
	now_ns_ += 0x100000000ull; /* HI stays latched from the LO read */
	uint32_t hi = read(VDLA_REG_TIME_HI);

	EXPECT_EQ((uint64_t(hi) << 32) | lo, 0x123456789ull);
}

} /* namespace */
