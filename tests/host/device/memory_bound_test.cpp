/* SPDX-License-Identifier: MIT */
/*
 * What a guest can make the device cost its host, against docs/hw-spec.md
 * ("Tensors", "Host memory"): an access costs its pages, not a record per
 * element run; an operation's buffers stay within x-op-memory-mb, past
 * which it ends in LIMIT and leaves the device working.
 */
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "device_test_util.h"

namespace vdla_test {
namespace {

/* Peak resident memory of this process, in MiB. */
long peakMiB()
{
	struct rusage usage = {};
	getrusage(RUSAGE_SELF, &usage);
	return usage.ru_maxrss / 1024;
}

/*
 * Runs @body in a child process and returns its exit status: its peak
 * memory is its own, whatever this process held before.
 */
template <typename Body>
int inChild(Body body)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(body());
	int status = 0;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 255;
}

/*
 * 65535 x 128 one-byte lines, two bytes apart on both sides: 8 MiB of data
 * in 8.4 million runs. A record per run (24 bytes, each side) took 400 MiB;
 * pages and the 8 MiB copy take a few MiB beyond the 40 MiB of guest
 * memory the harness itself holds.
 */
TEST(HostMemory, OneByteLinesWithGapsCostTheirPagesNotARecordEach)
{
	int status = inChild([] {
		DeviceHarness dev(nullptr, 40ull << 20);
		BdmaOp op;
		op.lineBytes = 1;
		op.lines = 65535;
		op.surfaces = 128;
		op.srcLineStride = op.dstLineStride = 2;
		op.srcSurfStride = op.dstSurfStride = 2 * 65535;
		op.src = dev.alloc(op.srcExtent(), 4096);
		op.dst = dev.alloc(op.dstExtent(), 4096);
		fillPattern(dev.guest(op.src), op.srcExtent(), 3);
		std::memset(dev.guest(op.dst), kCanary, op.dstExtent());
		long before = peakMiB();
		if (runBdma(dev, 0, op) != VDLA_GROUP_DONE)
			return 2;
		for (uint64_t i = 0; i < op.srcExtent(); i++)
			if (dev.guest(op.dst)[i] != (i % 2 ? kCanary : dev.guest(op.src)[i]))
				return 3;
		long grown = peakMiB() - before;
		std::printf("peak memory grew by %ld MiB\n", grown);
		std::fflush(stdout);
		return grown < 64 ? 0 : 1;
	});
	EXPECT_EQ(status, 0) << "1: over 64 MiB for the copy; 2: it failed; 3: wrong bytes";
}

class OpMemory : public ::testing::Test
{
protected:
	OpMemory()
	{
		vdla_core_config config;
		vdla_core_default_config(&config);
		config.op_memory_mb = 16;
		dev_ = std::make_unique<DeviceHarness>(&config, 64ull << 20);
	}

	std::unique_ptr<DeviceHarness> dev_;
};

TEST_F(OpMemory, AnOperationPastItsBudgetEndsInLimitAndWritesNothing)
{
	/* A 24 MiB copy needs a 24 MiB buffer: past 16 MiB. */
	constexpr uint32_t kBytes = 24u << 20;
	uint64_t src = dev_->alloc(kBytes, 4096), dst = dev_->alloc(kBytes, 4096);
	std::memset(dev_->guest(dst), kCanary, kBytes);
	EXPECT_EQ(runBdma(*dev_, 0, BdmaOp::linear(src, dst, kBytes)), unsigned(VDLA_GROUP_ERROR));
	EXPECT_EQ(dev_->stats(kBdma, 0).error, unsigned(VDLA_ERROR_LIMIT));
	EXPECT_TRUE(guestBytes(*dev_, dst, kBytes) == std::vector<uint8_t>(kBytes, kCanary));
}

TEST_F(OpMemory, OperationsWithinTheBudgetRunOneAfterAnother)
{
	/* 12 MiB each: the budget holds one operation's buffers at a time. */
	constexpr uint32_t kBytes = 12u << 20;
	uint64_t src = dev_->alloc(kBytes, 4096), dst = dev_->alloc(kBytes, 4096);
	for (unsigned i = 0; i < 3; i++) {
		fillPattern(dev_->guest(src), kBytes, 10 + i);
		ASSERT_EQ(runBdma(*dev_, i, BdmaOp::linear(src, dst, kBytes)),
			  unsigned(VDLA_GROUP_DONE))
			<< "copy " << i;
		EXPECT_EQ(std::memcmp(dev_->guest(src), dev_->guest(dst), kBytes), 0);
		dev_->ackInterrupts(VDLA_INT_ALL);
	}
}

TEST(OpMemoryConfig, BudgetOutsideItsRangeIsRefused)
{
	for (uint32_t mb : { 0u, 15u, 65537u }) {
		vdla_core_config config;
		vdla_core_default_config(&config);
		config.op_memory_mb = mb;
		EXPECT_THROW(DeviceHarness dev(&config), std::runtime_error) << mb << " MiB";
	}
}

} /* namespace */
} /* namespace vdla_test */
