/* SPDX-License-Identifier: MIT */
/*
 * Bad register programming from the guest against docs/hw-spec.md
 * ("Register access rules"): unimplemented offsets, wrong sizes, unaligned
 * accesses, writes to read-only registers and values a register does not
 * accept, in the MMU, fault-injection and engine blocks. Each is logged as
 * a guest error and changes no state; none may break the device.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "device_test_util.h"

namespace vdla_test {
namespace {

std::string hex(uint64_t value)
{
	char text[24];
	std::snprintf(text, sizeof(text), "0x%llx", static_cast<unsigned long long>(value));
	return text;
}

class Registers : public ::testing::Test
{
protected:
	Registers()
		: dev_(nullptr, kDeviceTestGuestBytes)
	{
	}

	/* Gives every read-write register a distinctive, valid value. */
	void programEverything()
	{
		for (unsigned i = 0; i < VDLA_NUM_SCRATCH; i++)
			dev_.write(VDLA_REG_SCRATCH(i), 0x5c000000 + i);
		for (unsigned c = 0; c < VDLA_MMU_NUM_CONTEXTS; c++) {
			dev_.write(VDLA_REG_MMU_CTX_BASE_HI(c), c);
			dev_.write(VDLA_REG_MMU_CTX_BASE_LO(c), (0x100000 + (c << 12)) | (c & 1));
		}
		dev_.write(VDLA_REG_MMU_CTRL, VDLA_MMU_CTRL_ENABLE);
		for (unsigned e = 0; e < VDLA_NUM_ENGINES; e++) {
			dev_.write(VDLA_REG_FI_MODE(e), VDLA_FI_NONE);
			dev_.write(VDLA_REG_FI_COUNT(e), 40 + e);
			dev_.write(VDLA_REG_FI_DELAY_US(e), 70 + e);
		}
		BdmaOp op;
		op.src = 0x1111000;
		op.dst = 0x2222000;
		op.lineBytes = 333;
		op.lines = 4;
		op.context = 5;
		programBdma(dev_, 0, op);
		op.lineBytes = 444;
		op.context = 6;
		programBdma(dev_, 1, op);
		dev_.selectGroup(kBdma, 0);
		ASSERT_TRUE(dev_.guestErrors().empty());
	}

	/* Every register the spec defines whose value a bad access could change. */
	std::map<std::string, uint32_t> snapshot()
	{
		std::map<std::string, uint32_t> regs;
		auto add = [&](const std::string &name, uint64_t offset) {
			regs[name] = dev_.read(offset);
		};
		for (unsigned i = 0; i < VDLA_NUM_SCRATCH; i++)
			add("SCRATCH" + std::to_string(i), VDLA_REG_SCRATCH(i));
		add("INT_STATUS", VDLA_REG_INT_STATUS);
		add("INT_ENABLE", VDLA_REG_INT_ENABLE);
		add("RESET_COUNT", VDLA_REG_RESET_COUNT);
		add("IDLE", VDLA_REG_IDLE);
		add("COMPUTE", VDLA_REG_COMPUTE);
		add("MMU_CTRL", VDLA_REG_MMU_CTRL);
		add("MMU_FAULT_STATUS", VDLA_REG_MMU_FAULT_STATUS);
		for (unsigned c = 0; c < VDLA_MMU_NUM_CONTEXTS; c++) {
			add("CTX_BASE_LO" + std::to_string(c), VDLA_REG_MMU_CTX_BASE_LO(c));
			add("CTX_BASE_HI" + std::to_string(c), VDLA_REG_MMU_CTX_BASE_HI(c));
		}
		for (unsigned e = 0; e < VDLA_NUM_ENGINES; e++) {
			std::string n = std::to_string(e);
			add("FI_MODE" + n, VDLA_REG_FI_MODE(e));
			add("FI_COUNT" + n, VDLA_REG_FI_COUNT(e));
			add("FI_DELAY_US" + n, VDLA_REG_FI_DELAY_US(e));
			add("S_STATUS" + n, VDLA_ENGINE_BASE(e) + VDLA_E_STATUS);
			add("S_STATUS_HI" + n, VDLA_ENGINE_BASE(e) + VDLA_E_STATUS_HI);
			add("S_POINTER" + n, VDLA_ENGINE_BASE(e) + VDLA_E_POINTER);
		}
		uint32_t pointer = dev_.readEngine(kBdma, VDLA_E_POINTER);
		for (unsigned g = 0; g < VDLA_NUM_GROUPS; g++) {
			dev_.selectGroup(kBdma, g);
			for (uint32_t off = VDLA_D_OP_ENABLE; off <= VDLA_BDMA_DST_SURF_STRIDE;
			     off += 4)
				add("BDMA" + std::to_string(g) + "+" + std::to_string(off),
				    VDLA_ENGINE_BASE(kBdma) + off);
		}
		dev_.writeEngine(kBdma, VDLA_E_POINTER, pointer & VDLA_E_POINTER_PRODUCER_MASK);
		return regs;
	}

	void expectSameState(const std::map<std::string, uint32_t> &before)
	{
		std::map<std::string, uint32_t> after = snapshot();
		for (const auto &[name, value] : before)
			EXPECT_EQ(after[name], value) << name;
	}

	/* The device still runs a copy correctly (after a reset to a clean state). */
	void expectStillWorks()
	{
		dev_.write(VDLA_REG_RESET, VDLA_RESET_SOFT);
		dev_.write(VDLA_REG_INT_ENABLE, VDLA_INT_ALL);
		uint64_t src = dev_.alloc(1000), dst = dev_.alloc(1000);
		fillPattern(dev_.guest(src), 1000, 77);
		ASSERT_EQ(runBdma(dev_, 0, BdmaOp::linear(src, dst, 1000)),
			  unsigned(VDLA_GROUP_DONE));
		EXPECT_EQ(std::memcmp(dev_.guest(dst), dev_.guest(src), 1000), 0);
	}

	DeviceHarness dev_;
};

TEST_F(Registers, UnimplementedOffsetsReadZeroDropWritesAndAreLogged)
{
	const uint64_t offsets[] = {
		0x0028, 0x002c, 0x003c, 0x0058, 0x0ffc, /* global block gaps */
		0x100c, 0x1020, 0x10fc, 0x1180, 0x1ffc, /* MMU block gaps, context 16 */
		0x200c, 0x205c, 0x2060, 0x2ffc, /* FI: reserved word, engine 6 */
		0x3000, 0x3ffc, /* between FI and the engines */
		VDLA_ENGINE_BASE(kBdma) + VDLA_E_GROUP_STAT(0) + 0x04,
		VDLA_ENGINE_BASE(kBdma) + VDLA_E_GROUP_STAT(1) + 0x28,
		VDLA_ENGINE_BASE(kBdma) + VDLA_E_GROUP_STAT(VDLA_NUM_GROUPS - 1) + 0x3c,
		VDLA_ENGINE_BASE(kBdma) + 0x010, VDLA_ENGINE_BASE(kBdma) + 0x0fc,
		VDLA_ENGINE_BASE(kBdma) + VDLA_E_GROUP_STAT(VDLA_NUM_GROUPS),
		VDLA_ENGINE_BASE(kRubik) + 0xffc, VDLA_ENGINE_BASE(VDLA_NUM_ENGINES), 0xfffc,
	};
	programEverything();
	auto before = snapshot();
	for (uint64_t offset : offsets) {
		SCOPED_TRACE("offset " + hex(offset));
		dev_.clearGuestErrors();
		EXPECT_EQ(dev_.read(offset), 0u);
		EXPECT_EQ(guestErrorCount(dev_), 1u);
		dev_.write(offset, 0xffffffffu);
		EXPECT_EQ(guestErrorCount(dev_), 2u);
		EXPECT_EQ(dev_.read(offset), 0u);
	}
	dev_.clearGuestErrors();
	expectSameState(before);
	EXPECT_TRUE(dev_.guestErrors().empty()) << "reading defined registers logs nothing";
	expectStillWorks();
}

TEST_F(Registers, BadSizesAndUnalignedAccessesAreLoggedAndChangeNothing)
{
	const uint64_t registers[] = {
		VDLA_REG_SCRATCH(1),
		VDLA_REG_INT_ENABLE,
		VDLA_REG_MMU_CTRL,
		VDLA_REG_MMU_CTX_BASE_LO(1),
		VDLA_REG_FI_COUNT(0),
		VDLA_REG_FI_MODE(3),
		VDLA_ENGINE_BASE(kBdma) + VDLA_E_POINTER,
		VDLA_ENGINE_BASE(kBdma) + VDLA_D_CONTEXT,
		VDLA_ENGINE_BASE(kBdma) + VDLA_BDMA_LINE_BYTES,
	};
	struct Access {
		unsigned delta, size;
	};
	const Access accesses[] = { { 0, 1 }, { 0, 2 }, { 0, 8 }, { 1, 4 },
				    { 2, 4 }, { 3, 4 }, { 3, 1 }, { 2, 2 } };
	programEverything();
	auto before = snapshot();
	for (uint64_t reg : registers) {
		for (const Access &a : accesses) {
			SCOPED_TRACE("register " + hex(reg) + " +" +
				     std::to_string(a.delta) + " size " + std::to_string(a.size));
			/* An aligned 64-bit read is valid; its write is not. */
			const bool pairRead = a.size == 8 && (reg + a.delta) % 8 == 0;
			dev_.clearGuestErrors();
			if (!pairRead)
				EXPECT_EQ(vdla_core_mmio_read(dev_.core(), reg + a.delta, a.size), 0u);
			vdla_core_mmio_write(dev_.core(), reg + a.delta, 0x0000000100000002ull,
					     a.size);
			EXPECT_EQ(guestErrorCount(dev_), pairRead ? 1u : 2u);
		}
	}
	dev_.clearGuestErrors();
	expectSameState(before);
	expectStillWorks();
}

TEST_F(Registers, NarrowWritesToCommandRegistersDoNothing)
{
	/* A byte write of 1 to D_OP_ENABLE or RESET is not the 32-bit write
	 * the spec asks for: no operation starts, no reset happens. */
	uint64_t src = dev_.alloc(64), dst = dev_.alloc(64);
	fillPattern(dev_.guest(src), 64, 3);
	programBdma(dev_, 0, BdmaOp::linear(src, dst, 64));
	dev_.write(VDLA_REG_SCRATCH(0), 0x77);
	dev_.clearGuestErrors();

	vdla_core_mmio_write(dev_.core(), VDLA_ENGINE_BASE(kBdma) + VDLA_D_OP_ENABLE, 1, 1);
	vdla_core_mmio_write(dev_.core(), VDLA_ENGINE_BASE(kBdma) + VDLA_D_OP_ENABLE, 1, 2);
	vdla_core_mmio_write(dev_.core(), VDLA_ENGINE_BASE(kBdma) + VDLA_D_OP_ENABLE, 1, 8);
	vdla_core_mmio_write(dev_.core(), VDLA_REG_RESET, VDLA_RESET_SOFT, 1);
	vdla_core_mmio_write(dev_.core(), VDLA_REG_RESET, VDLA_RESET_SOFT, 8);
	EXPECT_EQ(guestErrorCount(dev_), 5u);
	EXPECT_EQ(dev_.readEngine(kBdma, VDLA_E_STATUS), 0u);
	EXPECT_EQ(dev_.read(VDLA_REG_RESET_COUNT), 0u);
	EXPECT_EQ(dev_.read(VDLA_REG_SCRATCH(0)), 0x77u);
	EXPECT_TRUE(holdsFor([&] { return dev_.readEngine(kBdma, VDLA_E_STATUS) == 0; },
			     milliseconds(50)));
	EXPECT_TRUE(guestBytes(dev_, dst, 64) == std::vector<uint8_t>(64, 0));
}

TEST_F(Registers, WritesToReadOnlyRegistersAreDroppedAndLogged)
{
	std::vector<uint64_t> readOnly = {
		VDLA_REG_ID,
		VDLA_REG_VERSION,
		VDLA_REG_CAPS,
		VDLA_REG_IRQ_VECTORS,
		VDLA_REG_RESET_COUNT,
		VDLA_REG_TIME_LO,
		VDLA_REG_TIME_HI,
		VDLA_REG_SRAM_SIZE,
		VDLA_REG_ENGINES,
		VDLA_REG_IDLE,
		VDLA_REG_COMPUTE,
		VDLA_REG_MMU_CONTEXTS,
		VDLA_REG_MMU_FAULT_STATUS,
		VDLA_REG_MMU_FAULT_ADDR_LO,
		VDLA_REG_MMU_FAULT_ADDR_HI,
	};
	for (unsigned e = 0; e < VDLA_NUM_ENGINES; e++) {
		readOnly.push_back(VDLA_ENGINE_BASE(e) + VDLA_E_STATUS);
		readOnly.push_back(VDLA_ENGINE_BASE(e) + VDLA_E_STATUS_HI);
		for (unsigned g = 0; g < VDLA_NUM_GROUPS; g++) {
			for (uint32_t off : { VDLA_E_STAT_ERROR, VDLA_E_STAT_MACS_LO,
					      VDLA_E_STAT_MACS_HI, VDLA_E_STAT_READ_LO,
					      VDLA_E_STAT_READ_HI, VDLA_E_STAT_WRITE_LO,
					      VDLA_E_STAT_WRITE_HI, VDLA_E_STAT_TIME_LO,
					      VDLA_E_STAT_TIME_HI })
				readOnly.push_back(VDLA_ENGINE_BASE(e) + VDLA_E_GROUP_STAT(g) +
						   off);
		}
	}

	/* Non-zero counters in BDMA group 0 first, so a write could show. */
	uint64_t src = dev_.alloc(100), dst = dev_.alloc(100);
	ASSERT_EQ(runBdma(dev_, 0, BdmaOp::linear(src, dst, 100)), unsigned(VDLA_GROUP_DONE));
	dev_.clearGuestErrors();

	for (uint64_t offset : readOnly) {
		SCOPED_TRACE("offset " + hex(offset));
		uint32_t value = dev_.read(offset);
		dev_.write(offset, ~value);
		dev_.write(offset, 0);
		EXPECT_EQ(dev_.read(offset), value);
	}
	EXPECT_EQ(dev_.guestErrors().size(), 2 * readOnly.size());
	EXPECT_EQ(dev_.stats(kBdma, 0).bytesRead, 100u);
	EXPECT_EQ(dev_.groupState(kBdma, 0), unsigned(VDLA_GROUP_DONE));
}

TEST_F(Registers, ContextBaseWithReservedBitsIsDroppedWhole)
{
	dev_.write(VDLA_REG_MMU_CTX_BASE_LO(2), 0x12345000u | VDLA_MMU_CTX_ENABLE);
	dev_.write(VDLA_REG_MMU_CTX_BASE_HI(2), 0x000fffffu);
	dev_.clearGuestErrors();

	/* Bits 11:1 of _LO must be 0: nothing of these writes may land, not
	 * even the address bits or ENABLE. */
	for (uint32_t bad : { 0xabcde002u, 0xabcde800u, 0xabcde801u, 0x00000ffeu })
		dev_.write(VDLA_REG_MMU_CTX_BASE_LO(2), bad);
	/* Bits 31:20 of _HI must be 0. */
	for (uint32_t bad : { 0x00100000u, 0x80000000u, 0xffffffffu })
		dev_.write(VDLA_REG_MMU_CTX_BASE_HI(2), bad);

	EXPECT_EQ(dev_.guestErrors().size(), 7u);
	EXPECT_EQ(dev_.read(VDLA_REG_MMU_CTX_BASE_LO(2)), 0x12345000u | VDLA_MMU_CTX_ENABLE);
	EXPECT_EQ(dev_.read(VDLA_REG_MMU_CTX_BASE_HI(2)), 0x000fffffu);
}

TEST_F(Registers, InvalidateOfANonexistentContextIsLogged)
{
	/* Contexts are 0..MMU_CONTEXTS-1; bits 30:8 are not part of the register. */
	ASSERT_EQ(dev_.read(VDLA_REG_MMU_CONTEXTS), unsigned(VDLA_MMU_NUM_CONTEXTS));
	dev_.write(VDLA_REG_MMU_INVALIDATE, VDLA_MMU_NUM_CONTEXTS - 1);
	dev_.write(VDLA_REG_MMU_INVALIDATE, VDLA_MMU_INVALIDATE_ALL);
	EXPECT_TRUE(dev_.guestErrors().empty());
	dev_.write(VDLA_REG_MMU_INVALIDATE, VDLA_MMU_NUM_CONTEXTS);
	dev_.write(VDLA_REG_MMU_INVALIDATE, 0xff);
	dev_.write(VDLA_REG_MMU_INVALIDATE, 0x100);
	dev_.write(VDLA_REG_MMU_INVALIDATE, 0x40000000);
	EXPECT_EQ(dev_.guestErrors().size(), 4u);
}

TEST_F(Registers, OperationContextAboveFifteenNeverRunsUntranslated)
{
	/*
	 * D_CONTEXT holds 0..15. The spec allows two readings of a write of 16:
	 * the register refuses it (dropped and logged), or it keeps it and the
	 * operation faults BAD_CONTEXT. Either way no memory is touched through
	 * a context that does not exist.
	 */
	VirtualSpace vs(dev_, 0);
	std::vector<uint64_t> pages = allocPages(dev_, 2);
	vs.map(0x10000, pages[0], 4096);
	vs.map(0x20000, pages[1], 4096);
	vs.activate();
	programBdma(dev_, 0, BdmaOp::linear(0x10000, 0x20000, 4096, 0));
	dev_.clearGuestErrors();
	dev_.writeEngine(kBdma, VDLA_D_CONTEXT, VDLA_MMU_NUM_CONTEXTS);

	uint32_t context = dev_.readEngine(kBdma, VDLA_D_CONTEXT);
	if (context == 0) {
		EXPECT_EQ(dev_.guestErrors().size(), 1u);
		return;
	}
	EXPECT_EQ(context, unsigned(VDLA_MMU_NUM_CONTEXTS));
	dev_.enable(kBdma);
	ASSERT_TRUE(waitEngineIdle(dev_, kBdma));
	EXPECT_EQ(dev_.groupState(kBdma, 0), unsigned(VDLA_GROUP_ERROR));
	EXPECT_EQ(dev_.stats(kBdma, 0).error, unsigned(VDLA_ERROR_MMU_FAULT));
	LatchedFault f = readMmuFault(dev_);
	EXPECT_EQ(f.reason, unsigned(VDLA_MMU_FAULT_BAD_CONTEXT));
	EXPECT_EQ(f.context, unsigned(VDLA_MMU_NUM_CONTEXTS));
	EXPECT_TRUE(guestBytes(dev_, pages[1], 4096) == std::vector<uint8_t>(4096, kCanary));
}

TEST_F(Registers, InterruptRegistersRejectUnknownBitsWhole)
{
	dev_.write(VDLA_REG_INT_ENABLE, VDLA_INT_DONE(0));
	dev_.clearGuestErrors();
	/* Bits 12-15, 22-23, 25-30 are not interrupts. */
	for (uint32_t bad : { 1u << 12, 1u << 22, 1u << 25, 1u << 30, VDLA_INT_ALL | (1u << 15) })
		dev_.write(VDLA_REG_INT_ENABLE, bad);
	EXPECT_EQ(dev_.read(VDLA_REG_INT_ENABLE), VDLA_INT_DONE(0));
	/* Only TEST may be raised by software; a mix is dropped whole. */
	for (uint32_t bad : { VDLA_INT_DONE(0), VDLA_INT_ERROR(3), VDLA_INT_MMU_FAULT,
			      VDLA_INT_TEST | VDLA_INT_DONE(2) })
		dev_.write(VDLA_REG_INT_SET, bad);
	EXPECT_EQ(dev_.read(VDLA_REG_INT_STATUS), 0u);
	EXPECT_EQ(dev_.guestErrors().size(), 9u);
	EXPECT_EQ(dev_.messages(), 0u);
}

TEST_F(Registers, SweepOfEveryOffsetNeverBreaksTheDevice)
{
	/*
	 * Reads and all-ones writes at every offset of BAR0, and odd sizes
	 * on a coarser grid. D_OP_ENABLE and RESET are left out: a write there
	 * legitimately starts an operation or resets. Whatever the device
	 * makes of the rest, it must survive and work after a reset.
	 */
	std::vector<uint64_t> skip = { VDLA_REG_RESET };
	for (unsigned e = 0; e < VDLA_NUM_ENGINES; e++)
		skip.push_back(VDLA_ENGINE_BASE(e) + VDLA_D_OP_ENABLE);
	auto skipped = [&](uint64_t offset) {
		return std::find(skip.begin(), skip.end(), offset) != skip.end();
	};

	for (uint64_t offset = 0; offset < VDLA_MMIO_SIZE; offset += 4)
		dev_.read(offset);
	for (uint64_t offset = 0; offset < VDLA_MMIO_SIZE; offset += 4) {
		if (!skipped(offset))
			dev_.write(offset, 0xffffffffu);
	}
	for (uint64_t offset = 0; offset < VDLA_MMIO_SIZE; offset += 0x40) {
		for (unsigned size : { 1u, 2u, 8u }) {
			vdla_core_mmio_read(dev_.core(), offset + 1, size);
			vdla_core_mmio_write(dev_.core(), offset + 1, ~0ull, size);
			vdla_core_mmio_read(dev_.core(), offset, size);
			if (!skipped(offset))
				vdla_core_mmio_write(dev_.core(), offset, ~0ull, size);
		}
	}
	EXPECT_EQ(dev_.read(VDLA_REG_ID), unsigned(VDLA_ID_MAGIC));
	EXPECT_EQ(dev_.read(VDLA_REG_RESET_COUNT), 0u);
	expectStillWorks();
}

} /* namespace */
} /* namespace vdla_test */
