/* SPDX-License-Identifier: MIT */
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

#include <drm/vdla_accel.h>

#include "submit_env.h"
#include "umd_test.h"

namespace umd_test {

namespace {

using BufferTest = UmdTest;

TEST_F(BufferTest, CreateRoundsUpAndDescribesItself)
{
	auto b = buffer(10000);
	ASSERT_TRUE(b);
	EXPECT_EQ(b->size(), 12288u);
	EXPECT_NE(b->handle(), 0u);
	EXPECT_NE(b->deviceAddress(), 0u);
	EXPECT_EQ(b->access(), vdla::Buffer::Access::ReadWrite);
	EXPECT_FALSE(b->imported());
	EXPECT_EQ(&b->device(), device_.get());
}

TEST_F(BufferTest, ZeroSizeIsRefusedWithAReason)
{
	auto b = vdla::Buffer::create(*device_, 0);
	ASSERT_FALSE(b);
	EXPECT_EQ(b.error().code(), EINVAL);
	EXPECT_NE(b.error().reason().find("0 bytes"), std::string::npos) << b.error().reason();
}

TEST_F(BufferTest, SramBufferHasNoCpuAccessAndHoldsSram)
{
	auto before = device_->memory();
	ASSERT_TRUE(succeeded(before));
	ASSERT_GT(before->sramSize, 0u);
	EXPECT_EQ(before->sramBase, DRM_VDLA_SRAM_BASE);

	auto b = vdla::Buffer::create(*device_, 100, vdla::Buffer::Placement::Sram);
	ASSERT_TRUE(succeeded(b));
	EXPECT_EQ((*b)->placement(), vdla::Buffer::Placement::Sram);
	EXPECT_EQ((*b)->size(), 4096u);
	EXPECT_GE((*b)->deviceAddress(), before->sramBase);
	auto mapped = (*b)->map();
	ASSERT_FALSE(mapped);
	EXPECT_EQ(mapped.error().code(), EINVAL);
	EXPECT_NE(mapped.error().reason().find("SRAM"), std::string::npos);
	EXPECT_EQ((*b)->data(), nullptr);
	EXPECT_FALSE((*b)->exportFd());
	EXPECT_EQ(device_->memory()->sramFree, before->sramFree - 4096);

	auto tooBig = vdla::Buffer::create(
		*device_, before->sramSize + 4096, vdla::Buffer::Placement::Sram);
	ASSERT_FALSE(tooBig);
	EXPECT_EQ(tooBig.error().code(), ENOSPC);
	EXPECT_NE(tooBig.error().reason().find("no free SRAM block"), std::string::npos)
		<< tooBig.error().reason();

	b->reset();
	EXPECT_EQ(device_->memory()->sramFree, before->sramFree);
	EXPECT_EQ(buffer(4096)->placement(), vdla::Buffer::Placement::Memory);
}

TEST_F(BufferTest, MapIsZeroFilledAndKeepsWrites)
{
	auto b = buffer(8192);
	ASSERT_TRUE(b);
	uint8_t *p = b->data();
	ASSERT_NE(p, nullptr);
	for (size_t i = 0; i < 8192; i++)
		ASSERT_EQ(p[i], 0) << "byte " << i;
	for (size_t i = 0; i < 8192; i++)
		p[i] = uint8_t(i * 13);
	b->unmap();
	EXPECT_EQ(b->data(), nullptr);
	auto again = b->map();
	ASSERT_TRUE(succeeded(again));
	for (size_t i = 0; i < 8192; i++)
		ASSERT_EQ((*again)[i], uint8_t(i * 13)) << "byte " << i;
	auto same = b->map();
	EXPECT_EQ(*same, *again);
}

TEST_F(BufferTest, ExportImportAcrossFilesSharesTheMemory)
{
	auto other = openAgain();
	ASSERT_TRUE(other);
	auto b = buffer(4096);
	ASSERT_TRUE(b);
	std::memcpy(b->data(), "shared", 7);

	auto fd = b->exportFd();
	ASSERT_TRUE(succeeded(fd));
	auto imported = vdla::Buffer::import(*other, *fd);
	close(*fd);
	ASSERT_TRUE(succeeded(imported));
	EXPECT_EQ((*imported)->size(), 4096u);
	EXPECT_EQ((*imported)->access(), vdla::Buffer::Access::ReadWrite);
	auto p = (*imported)->map();
	ASSERT_TRUE(succeeded(p));
	EXPECT_STREQ(reinterpret_cast<const char *>(*p), "shared");
	std::memcpy(*p, "back", 5);
	EXPECT_STREQ(reinterpret_cast<const char *>(b->data()), "back");
}

TEST_F(BufferTest, ReadOnlyImportReportsItsAccess)
{
	auto other = openAgain();
	ASSERT_TRUE(other);
	auto b = buffer(4096);
	ASSERT_TRUE(b);
	auto fd = b->exportFd();
	ASSERT_TRUE(succeeded(fd));
	auto imported = vdla::Buffer::import(*other, *fd, vdla::Buffer::Access::ReadOnly);
	ASSERT_TRUE(succeeded(imported));
	EXPECT_EQ((*imported)->access(), vdla::Buffer::Access::ReadOnly);

	/* The same file may not hold it read-write as well. */
	auto again = vdla::Buffer::import(*other, *fd, vdla::Buffer::Access::ReadWrite);
	close(*fd);
	ASSERT_FALSE(again);
	EXPECT_EQ(again.error().code(), EBUSY);
}

TEST_F(BufferTest, ImportIntoTheExportingFileSharesTheHandle)
{
	auto b = buffer(4096);
	ASSERT_TRUE(b);
	auto fd = b->exportFd();
	ASSERT_TRUE(succeeded(fd));
	{
		auto imported = vdla::Buffer::import(*device_, *fd);
		ASSERT_TRUE(succeeded(imported));
		EXPECT_EQ((*imported)->handle(), b->handle());
	}
	close(*fd);
	/* The handle outlived the second Buffer. */
	EXPECT_TRUE(succeeded(b->wait(0ns)));
}

/*
 * Threads importing the same dma-buf into one file and dropping it again:
 * every import must get an open handle, even when another thread's Buffer,
 * the last holder of that handle, is being destroyed at the same time. Two
 * threads (one per guest CPU) drop the last reference most often; with the
 * import and the close racing, thousands of the 10000 imports fail.
 */
TEST_F(BufferTest, ConcurrentImportsAndReleasesKeepTheHandleOpen)
{
	constexpr int kThreads = 2, kRounds = 5000;
	auto other = openAgain();
	auto b = buffer(4096);
	ASSERT_TRUE(other && b);
	auto fd = b->exportFd();
	ASSERT_TRUE(succeeded(fd));

	std::atomic<int> failures{ 0 };
	std::vector<std::thread> threads;
	for (int t = 0; t < kThreads; t++) {
		threads.emplace_back([&] {
			for (int i = 0; i < kRounds; i++) {
				auto imported = vdla::Buffer::import(*other, *fd);
				if (!imported || !(*imported)->wait(0ns))
					failures++;
			}
		});
	}
	for (auto &thread : threads)
		thread.join();
	close(*fd);
	EXPECT_EQ(failures.load(), 0) << "imports that got a closed handle";
}

TEST_F(BufferTest, ImportOfANonDmaBufFails)
{
	int fds[2];
	ASSERT_EQ(pipe(fds), 0);
	auto imported = vdla::Buffer::import(*device_, fds[0]);
	close(fds[0]);
	close(fds[1]);
	ASSERT_FALSE(imported);
	EXPECT_NE(imported.error().code(), 0);
}

TEST_F(BufferTest, IdleBufferWaitSucceeds)
{
	auto b = buffer(4096);
	ASSERT_TRUE(b);
	EXPECT_TRUE(succeeded(b->wait(0ns)));
	EXPECT_TRUE(succeeded(b->wait(1ms, true)));
}

TEST_F(BufferTest, DmaBufCpuAccessBracketsSucceed)
{
	auto b = buffer(4096);
	ASSERT_TRUE(b);
	auto fd = b->exportFd();
	ASSERT_TRUE(succeeded(fd));
	EXPECT_TRUE(succeeded(vdla::Buffer::beginCpuAccess(*fd, vdla::Buffer::CpuAccess::Read)));
	EXPECT_TRUE(succeeded(vdla::Buffer::endCpuAccess(*fd, vdla::Buffer::CpuAccess::Read)));
	EXPECT_TRUE(
		succeeded(vdla::Buffer::beginCpuAccess(*fd, vdla::Buffer::CpuAccess::ReadWrite)));
	EXPECT_TRUE(succeeded(vdla::Buffer::endCpuAccess(*fd, vdla::Buffer::CpuAccess::ReadWrite)));
	close(*fd);
}

/*
 * The job copies into @dst slowly (fault injection delays every BDMA
 * operation): CPU access that conflicts with it must wait for its end.
 */
class CpuAccessTest : public UmdTest
{
protected:
	void SetUp() override
	{
		UmdTest::SetUp();
		if (HasFatalFailure())
			return;
		faults_ = std::make_unique<guest::FaultInjection>(guest::nodeIndex(node_));
		ASSERT_EQ(faults_->set("bdma", "delay", 0, kDelayUs), 0) << "debugfs fault_inject";
		src_ = buffer(kBytes);
		dst_ = buffer(kBytes);
		ctx_ = context();
		done_ = fence();
		ASSERT_TRUE(src_ && dst_ && ctx_ && done_);
		std::memset(src_->data(), 0x3c, kBytes);
	}

	/* Submits the slow copy; fails if it ended before the caller could look. */
	void submitSlowCopy()
	{
		auto task = copyTask(*src_, *dst_, vdla::BufferUse::Write, kBytes).build(*device_);
		ASSERT_TRUE(succeeded(task));
		ASSERT_TRUE(succeeded(ctx_->submit(*task, {}, { done_.get() })));
		ASSERT_FALSE(*done_->signalled()) << "the job ended before CPU access began";
	}

	static constexpr uint32_t kBytes = 4096;
	static constexpr unsigned int kDelayUs = 300000;

	std::unique_ptr<guest::FaultInjection> faults_;
	std::unique_ptr<vdla::Buffer> src_, dst_;
	std::unique_ptr<vdla::Context> ctx_;
	std::unique_ptr<vdla::Fence> done_;
};

TEST_F(CpuAccessTest, BeginReadWaitsForAJobWritingTheBuffer)
{
	submitSlowCopy();
	ASSERT_TRUE(succeeded(dst_->beginCpuAccess(vdla::Buffer::CpuAccess::Read)));
	EXPECT_TRUE(*done_->signalled()) << "beginCpuAccess returned before the writer ended";
	EXPECT_EQ(done_->status()->error, 0);
	for (uint32_t i = 0; i < kBytes; i++)
		ASSERT_EQ(dst_->data()[i], 0x3c) << "byte " << i;
	EXPECT_TRUE(succeeded(dst_->endCpuAccess(vdla::Buffer::CpuAccess::Read)));
}

TEST_F(CpuAccessTest, BeginWriteWaitsForAJobReadingTheBuffer)
{
	submitSlowCopy();
	ASSERT_TRUE(succeeded(src_->beginCpuAccess(vdla::Buffer::CpuAccess::Write)));
	EXPECT_TRUE(*done_->signalled()) << "beginCpuAccess returned before the reader ended";
	std::memset(src_->data(), 0x11, kBytes);
	EXPECT_TRUE(succeeded(src_->endCpuAccess(vdla::Buffer::CpuAccess::Write)));
	ASSERT_TRUE(succeeded(done_->wait(kJobTimeout)));
	for (uint32_t i = 0; i < kBytes; i++)
		ASSERT_EQ(dst_->data()[i], 0x3c)
			<< "the job read the CPU's later write at byte " << i;
}

TEST_F(BufferTest, CpuAccessBracketsRepeatOnTheSameDmaBuf)
{
	auto b = buffer(4096);
	ASSERT_TRUE(b);
	for (int i = 0; i < 3; i++) {
		EXPECT_TRUE(succeeded(b->beginCpuAccess(vdla::Buffer::CpuAccess::ReadWrite)));
		EXPECT_TRUE(succeeded(b->endCpuAccess(vdla::Buffer::CpuAccess::ReadWrite)));
	}
}

TEST_F(BufferTest, SramBufferRefusesCpuAccessBrackets)
{
	auto b = vdla::Buffer::create(*device_, 4096, vdla::Buffer::Placement::Sram);
	ASSERT_TRUE(succeeded(b));
	auto r = (*b)->beginCpuAccess(vdla::Buffer::CpuAccess::Read);
	ASSERT_FALSE(r);
	EXPECT_EQ(r.error().code(), EINVAL);
	EXPECT_NE(r.error().reason().find("SRAM"), std::string::npos) << r.error().reason();
}

TEST_F(BufferTest, CpuAccessSyncOnANonDmaBufFails)
{
	auto r = vdla::Buffer::beginCpuAccess(device_->fd(), vdla::Buffer::CpuAccess::Read);
	ASSERT_FALSE(r);
	EXPECT_NE(r.error().reason().find("dma-buf sync"), std::string::npos);
}

} /* namespace */

} /* namespace umd_test */
