/* SPDX-License-Identifier: MIT */
/*
 * vdla-raw-tests: the device through its registers with the driver
 * unbound, as a buggy or hostile guest driver would use it. The device is a
 * security boundary: whatever the guest programs, QEMU must stay up and
 * responsive (docs/hw-spec.md, "Reset"). Rebinds the driver afterwards.
 */
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include <vdla/device.h>

#include "guest_env.h"
#include "tensor_desc.h"
#include "vdla_regs.h"

namespace {

using namespace std::chrono;
using vdla_test::TensorDesc;

/* The first vDLA with its driver unbound, BAR0 and BAR2 mapped. */
class RawDevice : public ::testing::Test
{
protected:
	void SetUp() override
	{
		auto nodes = guest::vdlaNodes();
		ASSERT_FALSE(nodes.empty());
		{
			auto device = vdla::Device::open(nodes.front());
			ASSERT_TRUE(device.ok()) << device.error().message();
			address_ = (*device)->info().pciAddress;
		}
		ASSERT_EQ(guest::writeSysfs("/sys/bus/pci/drivers/vdla/unbind", address_), 0);
		bound_ = false;
		regs_ = static_cast<volatile uint32_t *>(mapBar(0, VDLA_MMIO_SIZE));
		ASSERT_NE(regs_, nullptr);
		sramSize_ = reg(VDLA_REG_SRAM_SIZE);
		sram_ = static_cast<volatile uint8_t *>(mapBar(2, sramSize_));
		ASSERT_NE(sram_, nullptr);
	}

	void TearDown() override
	{
		if (sram_)
			::munmap(const_cast<uint8_t *>(sram_), sramSize_);
		if (regs_)
			::munmap(const_cast<uint32_t *>(regs_), VDLA_MMIO_SIZE);
		if (!bound_) {
			EXPECT_EQ(guest::writeSysfs("/sys/bus/pci/drivers/vdla/bind", address_), 0);
			EXPECT_TRUE(guest::waitForNodes(guest::expectedDevices(), seconds(5)));
		}
	}

	void *mapBar(int bar, size_t size)
	{
		std::string path = "/sys/bus/pci/devices/" + address_ + "/resource" + std::to_string(bar);
		int fd = ::open(path.c_str(), O_RDWR | O_SYNC | O_CLOEXEC);
		if (fd < 0)
			return nullptr;
		void *map = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		::close(fd);
		return map == MAP_FAILED ? nullptr : map;
	}

	volatile uint32_t &reg(uint32_t offset) { return regs_[offset / 4]; }
	volatile uint32_t &engineReg(unsigned engine, uint32_t offset)
	{
		return reg(VDLA_ENGINE_BASE(engine) + offset);
	}

	void writeTensor(unsigned engine, uint32_t offset, const TensorDesc &t)
	{
		engineReg(engine, offset + VDLA_T_ADDR_LO) = uint32_t(t.addr);
		engineReg(engine, offset + VDLA_T_ADDR_HI) = uint32_t(t.addr >> 32);
		engineReg(engine, offset + VDLA_T_DTYPE) = t.dtype;
		engineReg(engine, offset + VDLA_T_W) = t.w;
		engineReg(engine, offset + VDLA_T_H) = t.h;
		engineReg(engine, offset + VDLA_T_C) = t.c;
		engineReg(engine, offset + VDLA_T_N) = t.n;
		engineReg(engine, offset + VDLA_T_STRIDE_W) = t.strideW;
		engineReg(engine, offset + VDLA_T_STRIDE_H) = t.strideH;
		engineReg(engine, offset + VDLA_T_STRIDE_C) = t.strideC;
		engineReg(engine, offset + VDLA_T_STRIDE_N) = t.strideN;
	}

	/* A CONV of group 0: stride 1, no padding or dilation, one group. */
	void programConv(const TensorDesc &src, const TensorDesc &wgt, const TensorDesc &dst)
	{
		const unsigned e = VDLA_ENGINE_CONV;
		engineReg(e, VDLA_E_POINTER) = 0;
		writeTensor(e, VDLA_CONV_SRC, src);
		writeTensor(e, VDLA_CONV_WGT, wgt);
		writeTensor(e, VDLA_CONV_DST, dst);
		engineReg(e, VDLA_CONV_STRIDE) = 1 | (1 << 16);
		engineReg(e, VDLA_CONV_DILATION) = 1 | (1 << 16);
		engineReg(e, VDLA_CONV_GROUPS) = 1;
		engineReg(e, VDLA_CONV_PAD_LR) = 0;
		engineReg(e, VDLA_CONV_PAD_TB) = 0;
	}

	template <typename Pred>
	bool waitFor(Pred pred, milliseconds timeout)
	{
		auto end = steady_clock::now() + timeout;
		while (!pred()) {
			if (steady_clock::now() > end)
				return false;
			std::this_thread::sleep_for(milliseconds(1));
		}
		return true;
	}

	std::string address_;
	bool bound_ = true;
	volatile uint32_t *regs_ = nullptr;
	volatile uint8_t *sram_ = nullptr;
	uint32_t sramSize_ = 0;
};

/*
 * An INT16 CONV of 2^36 MACs (seconds of host time) on stride-0 tensors in
 * SRAM; a soft reset while it computes returns at once, and the next CONV
 * runs at once, instead of after the cut-short one would have finished.
 */
TEST_F(RawDevice, ResetDuringALongOperationReturnsAtOnceAndTheNextOperationRuns)
{
	const unsigned e = VDLA_ENGINE_CONV;
	const uint64_t sram = VDLA_SRAM_BASE;
	TensorDesc src = TensorDesc::nchw(sram, VDLA_DTYPE_INT16, 1, 4096, 64, 64);
	TensorDesc wgt = TensorDesc::nchw(sram, VDLA_DTYPE_INT16, 4096, 4096, 1, 1);
	TensorDesc dst = TensorDesc::nchw(sram + 256, VDLA_DTYPE_INT32, 1, 4096, 64, 64);
	for (TensorDesc *t : { &src, &wgt, &dst })
		t->strideW = t->strideH = t->strideC = t->strideN = 0;
	programConv(src, wgt, dst);
	engineReg(e, VDLA_D_OP_ENABLE) = 1;
	ASSERT_TRUE(waitFor(
		[&] {
			return ((engineReg(e, VDLA_E_STATUS) >> VDLA_E_STATUS_GROUP_SHIFT(0)) & 3) ==
			       VDLA_GROUP_RUNNING;
		},
		seconds(5)));

	auto start = steady_clock::now();
	reg(VDLA_REG_RESET) = VDLA_RESET_SOFT;
	auto took = duration_cast<milliseconds>(steady_clock::now() - start);
	/* Generous for an MMIO write under TCG; the operation has seconds left. */
	EXPECT_LT(took.count(), 1000) << "ms for the RESET write to complete";
	EXPECT_EQ(reg(VDLA_REG_IDLE), 0x3fu);

	/* 1 x 1 x 2 x 2 times a 1 x 1 weight of 7, in SRAM. */
	const int16_t in[4] = { 1, -2, 3, 400 }, weight = 7;
	for (int i = 0; i < 4; i++)
		reinterpret_cast<volatile int16_t *>(sram_ + 1024)[i] = in[i];
	reinterpret_cast<volatile int16_t *>(sram_ + 2048)[0] = weight;
	programConv(TensorDesc::nchw(sram + 1024, VDLA_DTYPE_INT16, 1, 1, 2, 2),
		TensorDesc::nchw(sram + 2048, VDLA_DTYPE_INT16, 1, 1, 1, 1),
		TensorDesc::nchw(sram + 4096, VDLA_DTYPE_INT32, 1, 1, 2, 2));
	engineReg(e, VDLA_D_OP_ENABLE) = 1;
	ASSERT_TRUE(waitFor([&] { return reg(VDLA_REG_INT_STATUS) & VDLA_INT_DONE(e); },
		seconds(3)))
		<< "the engine was still busy with the operation the reset cut short";
	const volatile int32_t *out = reinterpret_cast<const volatile int32_t *>(sram_ + 4096);
	EXPECT_EQ(out[0], 7);
	EXPECT_EQ(out[1], -14);
	EXPECT_EQ(out[2], 21);
	EXPECT_EQ(out[3], 2800);
	reg(VDLA_REG_INT_STATUS) = VDLA_INT_ALL;
}

} /* namespace */
