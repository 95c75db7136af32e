/* SPDX-License-Identifier: MIT */
/*
 * The test port layer itself (test_port.cpp): the firmware's view of the
 * address list is bounds-checked, guest memory and SRAM entries map to the
 * right bytes, register accesses reach the right device and are counted.
 * The other tests rely on all of this to judge the firmware.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "task_builder.h"

using namespace vdla_fwtest;

namespace {

TEST(TestPort, DataAccessIsBoundsCheckedPerEntry)
{
	FwDevice fw;
	TaskBuilder b(fw);
	uint16_t g = b.addBuffer(100);
	uint16_t s = b.addBuffer(50, Memory::Sram);
	for (int i = 0; i < 100; i++)
		b.hostPtr(g)[i] = uint8_t(i);
	TestTask &task = b.task();
	uint8_t buf[128] = {};

	EXPECT_EQ(0, dla_data_read(&fw, &task, g, 10, buf, 90));
	EXPECT_EQ(0, std::memcmp(buf, b.hostPtr(g, 10), 90));
	EXPECT_NE(0, dla_data_read(&fw, &task, g, 10, buf, 91));
	EXPECT_NE(0, dla_data_read(&fw, &task, g, 101, buf, 0));
	EXPECT_NE(0, dla_data_read(&fw, &task, g, std::numeric_limits<uint64_t>::max(), buf, 2));
	EXPECT_NE(0, dla_data_read(&fw, &task, uint16_t(task.addresses.size()), 0, buf, 1));
	EXPECT_EQ(0, dla_data_read(&fw, &task, g, 100, buf, 0));

	std::memset(buf, 0x3c, sizeof(buf));
	EXPECT_EQ(0, dla_data_write(&fw, &task, s, 0, buf, 50));
	EXPECT_EQ(0x3c, fw.dev().sram()[b.entry(s).devAddr - VDLA_SRAM_BASE]);
	EXPECT_NE(0, dla_data_write(&fw, &task, s, 1, buf, 50));
	/* The margins around a guest buffer are not part of its entry. */
	EXPECT_TRUE(b.marginsUntouched(g));
}

TEST(TestPort, AddressesOfGuestAndSramEntries)
{
	FwDevice fw;
	TaskBuilder b(fw);
	uint16_t g = b.addBuffer(64);
	uint16_t s = b.addBuffer(64, Memory::Sram);
	uint16_t outside = b.addEntry(fw.dev().guestBytes() - 8, 64);
	TestTask &task = b.task();

	uint64_t dma = 0;
	void *cpu = nullptr;
	EXPECT_EQ(0, dla_read_dma_address(&fw, &task, g, &dma));
	EXPECT_EQ(b.entry(g).devAddr, dma);
	EXPECT_EQ(0, dla_read_cpu_address(&fw, &task, g, &cpu));
	EXPECT_EQ(fw.dev().guest(dma), cpu);
	EXPECT_EQ(0, dla_get_dma_address(&fw, &task, s, &dma, DESTINATION_DMA));
	EXPECT_GE(dma, VDLA_SRAM_BASE);
	EXPECT_EQ(0, dla_get_dma_address(&fw, &task, s, &cpu, DESTINATION_PROCESSOR));
	EXPECT_EQ(fw.dev().sram() + (dma - VDLA_SRAM_BASE), cpu);
	/* A device address the host cannot map has no CPU address. */
	EXPECT_NE(0, dla_read_cpu_address(&fw, &task, outside, &cpu));
	EXPECT_EQ(0, dla_read_dma_address(&fw, &task, outside, &dma));
	uint64_t size = 0;
	EXPECT_EQ(0, dla_get_buffer_size(&fw, &task, s, &size));
	EXPECT_EQ(64u, size);
	EXPECT_NE(0, dla_get_buffer_size(&fw, &task, 0xffff, &size));
}

TEST(TestPort, RegisterAccessesReachTheirDeviceAndAreCounted)
{
	FwDevice a, b;
	a.resetRegCounts();
	b.resetRegCounts();
	dla_reg_write(&a, VDLA_REG_SCRATCH(1), 0x1234);
	dla_reg_write(&b, VDLA_REG_SCRATCH(1), 0x5678);
	EXPECT_EQ(0x1234u, dla_reg_read(&a, VDLA_REG_SCRATCH(1)));
	EXPECT_EQ(0x5678u, dla_reg_read(&b, VDLA_REG_SCRATCH(1)));
	EXPECT_EQ(1u, a.regWrites());
	EXPECT_EQ(1u, b.regWrites());
	EXPECT_EQ(1u, a.regReads());
	EXPECT_EQ(VDLA_ID_MAGIC, dla_reg_read(&a, VDLA_REG_ID));
}

TEST(TestPort, ErrorMessagesAreCountedEvenWhenSilent)
{
	uint64_t before = firmwareErrorCount();
	dla_error("test error %d", 1);
	dla_warn("test warning %u", 2u);
	EXPECT_EQ(before + 1, firmwareErrorCount());
}

TEST(TestPort, EveryDeviceRegistersItsEngine)
{
	FwDevice a, b;
	EXPECT_EQ(DLA_SUCCESS, a.registerStatus());
	EXPECT_EQ(DLA_SUCCESS, b.registerStatus());
	EXPECT_NE(nullptr, a.engine());
	EXPECT_NE(a.engine(), b.engine());
	/* Registration enables the interrupts the core handles. */
	uint32_t enabled = a.dev().read(VDLA_REG_INT_ENABLE);
	EXPECT_EQ(VDLA_INT_DONE_ALL | VDLA_INT_ERROR_ALL,
		enabled & (VDLA_INT_DONE_ALL | VDLA_INT_ERROR_ALL));
}

} /* namespace */
