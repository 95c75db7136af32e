/* SPDX-License-Identifier: MIT */
/*
 * DRM_IOCTL_VDLA_TEST_BDMA: a BDMA copy through guest memory with the device
 * MMU on (the driver maps the caller's pinned pages into context 0), output
 * compared with the input; MMU fault reporting; every error path.
 */
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include <drm/vdla_accel.h>

#include "guest_env.h"
#include "vdla_regs.h"

namespace {

constexpr uint8_t kCanary = 0xa5;

class TestBdmaIoctl : public ::testing::Test
{
protected:
	void SetUp() override
	{
		auto nodes = guest::vdlaNodes();
		ASSERT_FALSE(nodes.empty());
		fd_ = guest::openNode(nodes.front());
		ASSERT_GE(fd_, 0);
	}
	void TearDown() override { ::close(fd_); }

	int copy(int fd, const void *src, void *dst, uint32_t size, uint32_t flags = 0)
	{
		args_ = {};
		args_.src = reinterpret_cast<uintptr_t>(src);
		args_.dst = reinterpret_cast<uintptr_t>(dst);
		args_.size = size;
		args_.flags = flags;
		return guest::ioctlErrno(fd, DRM_IOCTL_VDLA_TEST_BDMA, &args_);
	}

	int fd_ = -1;
	drm_vdla_test_bdma args_ = {};
};

struct CopyCase {
	uint32_t size;
	uint32_t srcOffset;	/* bytes into the first page */
	uint32_t dstOffset;
};

class TestBdmaCopy : public TestBdmaIoctl, public ::testing::WithParamInterface<CopyCase>
{
};

TEST_P(TestBdmaCopy, CopiesThroughTheMmuAndTouchesNothingElse)
{
	const CopyCase &c = GetParam();
	std::mt19937 rng(c.size * 31 + c.srcOffset);
	std::vector<uint8_t> src(c.srcOffset + c.size), dst(c.dstOffset + c.size + 64, kCanary);
	for (auto &b : src)
		b = uint8_t(rng());

	ASSERT_EQ(copy(fd_, src.data() + c.srcOffset, dst.data() + c.dstOffset, c.size), 0)
		<< "hw_error " << args_.hw_error << " fault 0x" << std::hex << args_.fault_status;
	EXPECT_EQ(args_.hw_error, 0u);
	EXPECT_EQ(std::memcmp(dst.data() + c.dstOffset, src.data() + c.srcOffset, c.size), 0);
	for (uint32_t i = 0; i < c.dstOffset; i++)
		ASSERT_EQ(dst[i], kCanary) << "byte before the destination changed";
	for (size_t i = c.dstOffset + c.size; i < dst.size(); i++)
		ASSERT_EQ(dst[i], kCanary) << "byte after the destination changed";
	/* The buffers were mapped at the offsets they have in their pages. */
	uintptr_t page = ::sysconf(_SC_PAGESIZE) - 1;
	EXPECT_EQ(args_.src_va & page, reinterpret_cast<uintptr_t>(src.data() + c.srcOffset) & page);
	EXPECT_EQ(args_.dst_va & page, reinterpret_cast<uintptr_t>(dst.data() + c.dstOffset) & page);
}

INSTANTIATE_TEST_SUITE_P(Sizes, TestBdmaCopy,
			 ::testing::Values(CopyCase{ 1, 0, 0 }, CopyCase{ 100, 3, 7 },
					   CopyCase{ 4096, 0, 0 }, CopyCase{ 4097, 4095, 1 },
					   CopyCase{ 65536 + 123, 17, 4000 },
					   CopyCase{ DRM_VDLA_TEST_BDMA_MAX_SIZE, 0, 2048 }));

TEST_F(TestBdmaIoctl, EveryDeviceCopies)
{
	std::vector<uint8_t> src(10000), dst(10000);
	for (size_t i = 0; i < src.size(); i++)
		src[i] = uint8_t(i * 7);
	for (const auto &node : guest::vdlaNodes()) {
		int fd = guest::openNode(node);
		ASSERT_GE(fd, 0);
		std::fill(dst.begin(), dst.end(), 0);
		EXPECT_EQ(copy(fd, src.data(), dst.data(), src.size()), 0) << node;
		EXPECT_EQ(dst, src) << node;
		::close(fd);
	}
}

TEST_F(TestBdmaIoctl, ReadOnlyDestinationFaultsAndIsNotWritten)
{
	std::vector<uint8_t> src(8192, 0x11), dst(8192, kCanary);

	EXPECT_EQ(copy(fd_, src.data(), dst.data(), src.size(),
		       DRM_VDLA_TEST_BDMA_FLAG_DST_READ_ONLY),
		  EIO);
	EXPECT_EQ(args_.hw_error, uint32_t(VDLA_ERROR_MMU_FAULT));
	uint32_t expected = VDLA_MMU_FAULT_VALID | VDLA_MMU_FAULT_WRITE |
			    (VDLA_MMU_FAULT_READ_ONLY << VDLA_MMU_FAULT_REASON_SHIFT) |
			    (VDLA_ENGINE_BDMA << VDLA_MMU_FAULT_ENGINE_SHIFT) |
			    (0u << VDLA_MMU_FAULT_CONTEXT_SHIFT);
	EXPECT_EQ(args_.fault_status, expected);
	EXPECT_EQ(args_.fault_addr, args_.dst_va);
	for (uint8_t b : dst)
		ASSERT_EQ(b, kCanary);

	/* The device goes on working after a fault. */
	EXPECT_EQ(copy(fd_, src.data(), dst.data(), src.size()), 0);
	EXPECT_EQ(dst, src);
}

TEST_F(TestBdmaIoctl, RejectsUnknownFlags)
{
	std::vector<uint8_t> src(16), dst(16);
	for (uint32_t flag : { 1u << 1, 1u << 31 })
		EXPECT_EQ(copy(fd_, src.data(), dst.data(), 16, flag), EINVAL) << flag;
}

TEST_F(TestBdmaIoctl, RejectsZeroAndOversizedCopies)
{
	std::vector<uint8_t> src(16), dst(16);
	EXPECT_EQ(copy(fd_, src.data(), dst.data(), 0), EINVAL);
	EXPECT_EQ(copy(fd_, src.data(), dst.data(), DRM_VDLA_TEST_BDMA_MAX_SIZE + 1), EINVAL);
	EXPECT_EQ(copy(fd_, src.data(), dst.data(), UINT32_MAX), EINVAL);
}

TEST_F(TestBdmaIoctl, RejectsOverlappingBuffers)
{
	std::vector<uint8_t> buffer(256);
	EXPECT_EQ(copy(fd_, buffer.data(), buffer.data() + 100, 128), EINVAL);
	EXPECT_EQ(copy(fd_, buffer.data() + 100, buffer.data(), 128), EINVAL);
}

TEST_F(TestBdmaIoctl, RejectsUnmappedUserMemory)
{
	std::vector<uint8_t> dst(64);
	EXPECT_EQ(copy(fd_, reinterpret_cast<void *>(0x1000), dst.data(), 64), EFAULT);
	EXPECT_EQ(copy(fd_, dst.data(), reinterpret_cast<void *>(0x1000), 64), EFAULT);
}

TEST_F(TestBdmaIoctl, RejectsReadOnlyUserDestination)
{
	long page = ::sysconf(_SC_PAGESIZE);
	void *map = ::mmap(nullptr, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(map, MAP_FAILED);
	std::vector<uint8_t> src(64, 1);
	EXPECT_EQ(copy(fd_, src.data(), map, 64), EFAULT);
	::munmap(map, page);
}

TEST_F(TestBdmaIoctl, CopiesFromManyThreadsAtOnce)
{
	auto nodes = guest::vdlaNodes();
	std::atomic<int> failures{ 0 };
	std::vector<std::thread> threads;
	for (int t = 0; t < 4; t++) {
		threads.emplace_back([&, t] {
			int fd = guest::openNode(nodes[t % nodes.size()]);
			std::vector<uint8_t> src(5000 + t), dst(5000 + t);
			for (int i = 0; i < 20; i++) {
				for (size_t k = 0; k < src.size(); k++)
					src[k] = uint8_t(k + i + t);
				drm_vdla_test_bdma args = {};
				args.src = reinterpret_cast<uintptr_t>(src.data());
				args.dst = reinterpret_cast<uintptr_t>(dst.data());
				args.size = src.size();
				if (guest::ioctlErrno(fd, DRM_IOCTL_VDLA_TEST_BDMA, &args) || dst != src)
					failures++;
			}
			::close(fd);
		});
	}
	for (auto &thread : threads)
		thread.join();
	EXPECT_EQ(failures.load(), 0);
}

} /* namespace */
