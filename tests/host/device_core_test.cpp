/* SPDX-License-Identifier: MIT */
/*
 * The device core's register model against docs/hw-spec.md (hardware
 * version 2.1.0): reset values, access rules, the interrupt model and soft
 * reset. Engines, MMU, SRAM and fault injection are tested in host/device/.
 */
#include <gtest/gtest.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <iterator>
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
		struct vdla_core_config config;
		vdla_core_default_config(&config);
		const char *error = nullptr;
		core_ = vdla_core_create(&host(), &config, &error);
		ASSERT_NE(core_, nullptr) << (error ? error : "");
	}

	void TearDown() override
	{
		if (core_)
			vdla_core_destroy(core_);
	}

	/*
	 * Every callback the core requires. Guest memory is a small buffer:
	 * these tests run no operation, but the core must have somewhere to
	 * do DMA.
	 */
	const struct vdla_core_host &host()
	{
		host_ = {};
		host_.opaque = this;
		host_.raise_irq = [](void *opaque, unsigned int vector) {
			static_cast<CoreTest *>(opaque)->irqs_.push_back(vector);
		};
		host_.clock_ns = [](void *opaque) {
			return static_cast<CoreTest *>(opaque)->now_ns_;
		};
		host_.guest_error = [](void *opaque, const char *fmt, va_list args) {
			char text[256];
			std::vsnprintf(text, sizeof(text), fmt, args);
			static_cast<CoreTest *>(opaque)->errors_.push_back(text);
		};
		host_.dma_read = [](void *opaque, uint64_t addr, void *buf, uint64_t len) {
			auto &memory = static_cast<CoreTest *>(opaque)->memory_;
			if (addr > memory.size() || len > memory.size() - addr)
				return -1;
			std::memcpy(buf, memory.data() + addr, len);
			return 0;
		};
		host_.dma_map = [](void *opaque, uint64_t addr, uint64_t len, bool) -> void * {
			auto &memory = static_cast<CoreTest *>(opaque)->memory_;
			if (addr > memory.size() || len > memory.size() - addr)
				return nullptr;
			return memory.data() + addr;
		};
		host_.dma_unmap = [](void *, void *, uint64_t, bool, uint64_t) {};
		return host_;
	}

	uint32_t read(uint64_t offset) { return vdla_core_mmio_read(core_, offset, 4); }
	void write(uint64_t offset, uint32_t value) { vdla_core_mmio_write(core_, offset, value, 4); }

	struct vdla_core *core_ = nullptr;
	struct vdla_core_host host_ = {};
	std::vector<uint8_t> memory_ = std::vector<uint8_t>(1 << 20);
	std::vector<unsigned int> irqs_;
	std::vector<std::string> errors_;
	uint64_t now_ns_ = 1000;
};

TEST(CoreCreate, RejectsHostWithoutRequiredCallbacks)
{
	struct vdla_core_config config;
	vdla_core_default_config(&config);
	const char *error = nullptr;

	struct vdla_core_host host = {};
	EXPECT_EQ(vdla_core_create(&host, &config, &error), nullptr);
	EXPECT_NE(error, nullptr);
	error = nullptr;
	EXPECT_EQ(vdla_core_create(nullptr, &config, &error), nullptr);
	EXPECT_NE(error, nullptr);
	/* @error may be NULL. */
	EXPECT_EQ(vdla_core_create(&host, &config, nullptr), nullptr);
}

class CoreCreateTest : public CoreTest
{
protected:
	void SetUp() override {}
};

TEST_F(CoreCreateTest, RejectsHostMissingAnyOneRequiredCallback)
{
	struct vdla_core_config config;
	vdla_core_default_config(&config);
	for (int missing = 0; missing < 6; missing++) {
		struct vdla_core_host h = host();
		switch (missing) {
		case 0:
			h.raise_irq = nullptr;
			break;
		case 1:
			h.clock_ns = nullptr;
			break;
		case 2:
			h.guest_error = nullptr;
			break;
		case 3:
			h.dma_read = nullptr;
			break;
		case 4:
			h.dma_map = nullptr;
			break;
		case 5:
			h.dma_unmap = nullptr;
			break;
		}
		const char *error = nullptr;
		struct vdla_core *core = vdla_core_create(&h, &config, &error);
		EXPECT_EQ(core, nullptr) << "callback " << missing << " missing";
		EXPECT_NE(error, nullptr) << "callback " << missing << " missing";
		if (core)
			vdla_core_destroy(core);
	}
}

TEST(CoreConfig, DefaultsAreThePropertyDefaults)
{
	struct vdla_core_config config;
	std::memset(&config, 0x5a, sizeof(config));
	vdla_core_default_config(&config);
	EXPECT_EQ(config.sram_size, VDLA_SRAM_DEFAULT_SIZE);
	EXPECT_EQ(config.fi_engine, -1);
	EXPECT_EQ(config.fi_mode, 0u);
	EXPECT_EQ(config.fi_count, 0u);
	EXPECT_EQ(config.fi_delay_us, 0u);
	EXPECT_EQ(config.compute_path, 0u);
	EXPECT_EQ(config.op_memory_mb, 1024u);
}

TEST_F(CoreTest, IdentificationRegistersHoldSpecValues)
{
	EXPECT_EQ(read(VDLA_REG_ID), 0x56444c41u); /* "VDLA" */
	EXPECT_EQ(read(VDLA_REG_VERSION), 0x00030100u); /* 3.1.0 */
	EXPECT_EQ(read(VDLA_REG_CAPS), 0x00000f7fu);
	EXPECT_EQ(read(VDLA_REG_IRQ_VECTORS), 1u);
	EXPECT_EQ(read(VDLA_REG_SRAM_SIZE), 1u << 20);
	EXPECT_EQ(read(VDLA_REG_ENGINES), 0x3fu);
	EXPECT_EQ(read(VDLA_REG_MMU_CONTEXTS), 16u);
	EXPECT_TRUE(errors_.empty());
}

TEST(RegisterHeader, AgreesWithTheSpecOnIdentificationAndInterrupts)
{
	/* vdla_regs.h and docs/hw-spec.md must not drift apart. */
	EXPECT_EQ(VDLA_HW_VERSION, 0x00030100u);
	EXPECT_EQ(VDLA_E_ENABLE, 0x00cu);
	EXPECT_EQ(VDLA_NUM_GROUPS, 16);
	EXPECT_EQ(VDLA_REG_COMPUTE, 0x0054u);
	EXPECT_EQ(VDLA_CAPS_V2, 0x00000f7fu);
	EXPECT_EQ(VDLA_INT_TEST, 1u << 31);
	EXPECT_EQ(VDLA_INT_MMU_FAULT, 1u << 24);
	EXPECT_EQ(VDLA_INT_DONE(5), 1u << 5);
	EXPECT_EQ(VDLA_INT_ERROR(5), 1u << 21);
}

TEST_F(CoreTest, ScratchRegistersHoldWhatIsWritten)
{
	for (unsigned int i = 0; i < VDLA_NUM_SCRATCH; i++)
		write(VDLA_REG_SCRATCH(i), 0xa5a50000u + i);
	for (unsigned int i = 0; i < VDLA_NUM_SCRATCH; i++)
		EXPECT_EQ(read(VDLA_REG_SCRATCH(i)), 0xa5a50000u + i);
	EXPECT_TRUE(errors_.empty());
}

TEST_F(CoreTest, RegistersHoldTheirResetValues)
{
	for (unsigned int i = 0; i < VDLA_NUM_SCRATCH; i++)
		EXPECT_EQ(read(VDLA_REG_SCRATCH(i)), 0u);
	EXPECT_EQ(read(VDLA_REG_INT_STATUS), 0u);
	EXPECT_EQ(read(VDLA_REG_INT_ENABLE), 0u);
	EXPECT_EQ(read(VDLA_REG_RESET_COUNT), 0u);
	EXPECT_EQ(read(VDLA_REG_IDLE), 0x3fu);
	EXPECT_EQ(read(VDLA_REG_MMU_CTRL), 0u);
	EXPECT_EQ(read(VDLA_REG_MMU_FAULT_STATUS), 0u);
	EXPECT_EQ(read(VDLA_REG_MMU_FAULT_ADDR_LO), 0u);
	EXPECT_EQ(read(VDLA_REG_MMU_FAULT_ADDR_HI), 0u);
	for (unsigned int c = 0; c < VDLA_MMU_NUM_CONTEXTS; c++) {
		EXPECT_EQ(read(VDLA_REG_MMU_CTX_BASE_LO(c)), 0u);
		EXPECT_EQ(read(VDLA_REG_MMU_CTX_BASE_HI(c)), 0u);
	}
	for (unsigned int e = 0; e < VDLA_NUM_ENGINES; e++) {
		EXPECT_EQ(read(VDLA_REG_FI_MODE(e)), 0u);
		EXPECT_EQ(read(VDLA_REG_FI_COUNT(e)), 0u);
		EXPECT_EQ(read(VDLA_REG_FI_DELAY_US(e)), 0u);
		EXPECT_EQ(read(VDLA_ENGINE_BASE(e) + VDLA_E_STATUS), 0u);
		EXPECT_EQ(read(VDLA_ENGINE_BASE(e) + VDLA_E_STATUS_HI), 0u);
		EXPECT_EQ(read(VDLA_ENGINE_BASE(e) + VDLA_E_POINTER), 0u);
		for (unsigned int g = 0; g < VDLA_NUM_GROUPS; g++) {
			uint64_t stat = VDLA_ENGINE_BASE(e) + VDLA_E_GROUP_STAT(g);
			EXPECT_EQ(read(stat + VDLA_E_STAT_ERROR), 0u);
			write(VDLA_ENGINE_BASE(e) + VDLA_E_POINTER, g);
			for (uint32_t off = VDLA_D_OP_ENABLE; off <= VDLA_D_CFG; off += 4)
				EXPECT_EQ(read(VDLA_ENGINE_BASE(e) + off), 0u);
		}
		write(VDLA_ENGINE_BASE(e) + VDLA_E_POINTER, 0);
	}
	/* Device time counts from the (power-on) reset. */
	now_ns_ += 250;
	EXPECT_EQ(read(VDLA_REG_TIME_LO), 250u);
	EXPECT_EQ(read(VDLA_REG_TIME_HI), 0u);
	EXPECT_TRUE(errors_.empty());
}

TEST_F(CoreTest, WriteOnlyRegistersReadZero)
{
	EXPECT_EQ(read(VDLA_REG_RESET), 0u);
	EXPECT_EQ(read(VDLA_REG_INT_SET), 0u);
	write(VDLA_REG_INT_SET, VDLA_INT_TEST);
	EXPECT_EQ(read(VDLA_REG_INT_SET), 0u);
}

TEST_F(CoreTest, WriteToReadOnlyRegisterIsIgnoredAndLogged)
{
	const uint64_t readOnly[] = {
		VDLA_REG_ID,	      VDLA_REG_VERSION,	   VDLA_REG_CAPS,
		VDLA_REG_IRQ_VECTORS, VDLA_REG_RESET_COUNT, VDLA_REG_SRAM_SIZE,
		VDLA_REG_ENGINES,     VDLA_REG_IDLE,	   VDLA_REG_MMU_CONTEXTS,
		VDLA_REG_COMPUTE,
	};
	std::vector<uint32_t> values;
	for (uint64_t offset : readOnly)
		values.push_back(read(offset));
	for (uint64_t offset : readOnly)
		write(offset, 0);
	for (size_t i = 0; i < values.size(); i++)
		EXPECT_EQ(read(readOnly[i]), values[i]) << "offset " << readOnly[i];
	EXPECT_EQ(read(VDLA_REG_ID), VDLA_ID_MAGIC);
	EXPECT_EQ(read(VDLA_REG_VERSION), VDLA_HW_VERSION);
	ASSERT_EQ(errors_.size(), std::size(readOnly));
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
					   BadAccess{ VDLA_REG_SCRATCH(0) + 4, 8 }, /* not 8-aligned */
					   BadAccess{ VDLA_REG_SCRATCH(0) + 1, 4 },
					   BadAccess{ VDLA_REG_SCRATCH(0) + 2, 4 },
					   BadAccess{ 0x0ffc, 4 },     /* unimplemented */
					   BadAccess{ 0x0058, 4 },     /* after COMPUTE */
					   BadAccess{ VDLA_REG_MMU_CTRL, 2 },
					   BadAccess{ VDLA_REG_FI_MODE(0) + 2, 4 },
					   BadAccess{ VDLA_ENGINE_BASE(0) + VDLA_D_CONTEXT, 1 },
					   BadAccess{ VDLA_ENGINE_BASE(5) + VDLA_E_POINTER, 8 },
					   BadAccess{ VDLA_ENGINE_BASE(6), 4 }, /* no engine 6 */
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

TEST_F(CoreTest, TestInterruptIsBit31)
{
	write(VDLA_REG_INT_SET, 1u << 31);
	EXPECT_EQ(read(VDLA_REG_INT_STATUS), 1u << 31);
	EXPECT_TRUE(errors_.empty());
}

TEST_F(CoreTest, EveryImplementedInterruptBitCanBeEnabled)
{
	write(VDLA_REG_INT_ENABLE, VDLA_INT_ALL);
	EXPECT_EQ(read(VDLA_REG_INT_ENABLE), 0x813f003fu);
	EXPECT_TRUE(errors_.empty());
}

TEST_F(CoreTest, UnknownInterruptBitsAreRejected)
{
	write(VDLA_REG_INT_ENABLE, 0x40000000u);
	write(VDLA_REG_INT_ENABLE, VDLA_INT_TEST | 0x1000u);
	write(VDLA_REG_INT_SET, 0x2u); /* DONE(1): only the device raises it */
	write(VDLA_REG_INT_SET, VDLA_INT_TEST | VDLA_INT_MMU_FAULT);

	EXPECT_EQ(read(VDLA_REG_INT_ENABLE), 0u);
	EXPECT_EQ(read(VDLA_REG_INT_STATUS), 0u);
	EXPECT_EQ(errors_.size(), 4u);
	EXPECT_TRUE(irqs_.empty());
}

TEST_F(CoreTest, SoftResetClearsStateAndCountsResets)
{
	write(VDLA_REG_SCRATCH(3), 0xdeadbeef);
	write(VDLA_REG_INT_SET, VDLA_INT_TEST);
	write(VDLA_REG_INT_ENABLE, VDLA_INT_TEST);
	write(VDLA_REG_MMU_CTX_BASE_LO(7), 0x8000 | VDLA_MMU_CTX_ENABLE);
	write(VDLA_REG_MMU_CTX_BASE_HI(7), 0x1);
	write(VDLA_REG_MMU_CTRL, VDLA_MMU_CTRL_ENABLE);
	write(VDLA_REG_FI_MODE(2), VDLA_FI_DELAY);
	write(VDLA_REG_FI_COUNT(2), 3);
	write(VDLA_REG_FI_DELAY_US(2), 100);
	write(VDLA_ENGINE_BASE(1) + VDLA_E_POINTER, 1);
	write(VDLA_ENGINE_BASE(1) + VDLA_D_CONTEXT, 9);
	irqs_.clear();

	write(VDLA_REG_RESET, VDLA_RESET_SOFT);
	write(VDLA_REG_RESET, VDLA_RESET_SOFT);

	EXPECT_EQ(read(VDLA_REG_SCRATCH(3)), 0u);
	EXPECT_EQ(read(VDLA_REG_INT_STATUS), 0u);
	EXPECT_EQ(read(VDLA_REG_INT_ENABLE), 0u);
	EXPECT_EQ(read(VDLA_REG_RESET_COUNT), 2u);
	EXPECT_EQ(read(VDLA_REG_MMU_CTRL), 0u);
	EXPECT_EQ(read(VDLA_REG_MMU_CTX_BASE_LO(7)), 0u);
	EXPECT_EQ(read(VDLA_REG_MMU_CTX_BASE_HI(7)), 0u);
	/* Fault injection goes back to the properties: none by default. */
	EXPECT_EQ(read(VDLA_REG_FI_MODE(2)), 0u);
	EXPECT_EQ(read(VDLA_REG_FI_COUNT(2)), 0u);
	EXPECT_EQ(read(VDLA_REG_FI_DELAY_US(2)), 0u);
	EXPECT_EQ(read(VDLA_ENGINE_BASE(1) + VDLA_E_POINTER), 0u);
	write(VDLA_ENGINE_BASE(1) + VDLA_E_POINTER, 1);
	EXPECT_EQ(read(VDLA_ENGINE_BASE(1) + VDLA_D_CONTEXT), 0u);
	EXPECT_EQ(read(VDLA_REG_IDLE), 0x3fu);
	EXPECT_TRUE(irqs_.empty());
	EXPECT_EQ(read(VDLA_REG_ID), VDLA_ID_MAGIC);
	EXPECT_TRUE(errors_.empty());
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
	write(VDLA_REG_SCRATCH(1), 5);
	vdla_core_reset(core_);

	EXPECT_EQ(read(VDLA_REG_RESET_COUNT), 0u);
	EXPECT_EQ(read(VDLA_REG_SCRATCH(1)), 0u);
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
