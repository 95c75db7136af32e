/* SPDX-License-Identifier: MIT */
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "umd_test.h"

namespace umd_test {

namespace {

using ContextTest = UmdTest;

TEST_F(ContextTest, EachPriorityIsCreatedAndReported)
{
	for (auto priority :
		{ vdla::Priority::Low, vdla::Priority::Normal, vdla::Priority::High }) {
		auto ctx = context(priority);
		ASSERT_TRUE(ctx);
		EXPECT_NE(ctx->id(), 0u);
		EXPECT_EQ(ctx->priority(), priority);
		auto status = ctx->query();
		ASSERT_TRUE(succeeded(status));
		EXPECT_EQ(status->priority, priority);
		EXPECT_FALSE(status->banned);
		EXPECT_EQ(status->jobsSubmitted, 0u);
		EXPECT_EQ(status->lastError, 0);
	}
}

TEST_F(ContextTest, QueryCountsCompletedJobs)
{
	auto ctx = context();
	auto src = buffer(4096), dst = buffer(4096);
	ASSERT_TRUE(ctx && src && dst);
	vdla::TaskBuilder b = copyTask(*src, *dst);
	EXPECT_EQ(run(*ctx, b).error, 0);
	EXPECT_EQ(run(*ctx, b).error, 0);
	auto status = ctx->query();
	ASSERT_TRUE(succeeded(status));
	EXPECT_EQ(status->jobsSubmitted, 2u);
	EXPECT_EQ(status->jobsCompleted, 2u);
	EXPECT_EQ(status->jobsFailed, 0u);
	EXPECT_GT(status->busy.count(), 0);
}

TEST_F(ContextTest, SeqnosCountFromOne)
{
	auto ctx = context();
	auto src = buffer(4096), dst = buffer(4096);
	ASSERT_TRUE(ctx && src && dst);
	auto task = copyTask(*src, *dst).build(*device_);
	ASSERT_TRUE(succeeded(task));
	auto done = fence();
	for (uint64_t expected = 1; expected <= 3; expected++) {
		auto seqno = ctx->submit(*task, {}, { done.get() });
		ASSERT_TRUE(succeeded(seqno));
		EXPECT_EQ(*seqno, expected);
	}
	EXPECT_TRUE(succeeded(done->wait(kJobTimeout)));
}

TEST_F(ContextTest, InFencesMustExistBeforeSubmit)
{
	auto ctx = context();
	auto src = buffer(4096), dst = buffer(4096);
	auto gate = fence(), done = fence();
	ASSERT_TRUE(ctx && src && dst && gate && done);
	std::memset(src->data(), 0x5a, 256);
	auto task = copyTask(*src, *dst).build(*device_);
	ASSERT_TRUE(succeeded(task));
	ASSERT_TRUE(succeeded(gate->signal()));
	ASSERT_TRUE(succeeded(gate->reset()));

	/* The gate has no fence yet: a wait on it is refused. */
	auto refused = ctx->submit(*task, { { gate.get() } }, { done.get() });
	ASSERT_FALSE(refused);
	EXPECT_EQ(refused.error().code(), ENOENT);

	auto timeline = fence(vdla::Fence::Type::Timeline);
	ASSERT_TRUE(timeline);
	auto seqno = ctx->submit(*task, { { timeline.get(), 1 } }, { done.get() });
	ASSERT_FALSE(seqno) << "a wait point with no fence yet";

	/* Once the point has a (CPU-signalled) fence, the job runs. */
	ASSERT_TRUE(succeeded(timeline->signal(1)));
	seqno = ctx->submit(*task, { { timeline.get(), 1 } }, { done.get() });
	ASSERT_TRUE(succeeded(seqno));
	EXPECT_TRUE(succeeded(done->wait(kJobTimeout)));
	EXPECT_EQ(dst->data()[255], 0x5a);
}

TEST_F(ContextTest, TimelineOutPointSignals)
{
	auto ctx = context();
	auto src = buffer(4096), dst = buffer(4096);
	auto timeline = fence(vdla::Fence::Type::Timeline);
	ASSERT_TRUE(ctx && src && dst && timeline);
	auto task = copyTask(*src, *dst).build(*device_);
	ASSERT_TRUE(succeeded(task));
	ASSERT_TRUE(succeeded(ctx->submit(*task, {}, { timeline.get(), 1 })));
	ASSERT_TRUE(
		succeeded(ctx->submit(*task, { { timeline.get(), 1 } }, { timeline.get(), 2 })));
	EXPECT_TRUE(succeeded(timeline->waitPoint(2, kJobTimeout)));
	EXPECT_EQ(*timeline->lastPoint(), 2u);
	auto status = timeline->status(2);
	ASSERT_TRUE(succeeded(status));
	EXPECT_TRUE(status->signalled);
	EXPECT_EQ(status->error, 0);
}

TEST_F(ContextTest, ReadOnlyBufferMarkedForWritingIsRefused)
{
	auto other = openAgain();
	ASSERT_TRUE(other);
	auto foreign = buffer(4096, other.get());
	auto src = buffer(4096);
	auto ctx = context();
	ASSERT_TRUE(foreign && src && ctx);
	auto fd = foreign->exportFd();
	ASSERT_TRUE(succeeded(fd));
	auto readOnly = vdla::Buffer::import(*device_, *fd, vdla::Buffer::Access::ReadOnly);
	close(*fd);
	ASSERT_TRUE(succeeded(readOnly));

	auto task = copyTask(*src, **readOnly).build(*device_);
	ASSERT_TRUE(succeeded(task));
	auto seqno = ctx->submit(*task);
	ASSERT_FALSE(seqno);
	EXPECT_EQ(seqno.error().code(), EACCES);
	EXPECT_NE(seqno.error().reason().find("read-only"), std::string::npos);
}

/* A write the MMU refuses faults the job, bans the context, and says so everywhere. */
TEST_F(ContextTest, FaultingJobBansItsContext)
{
	auto other = openAgain();
	ASSERT_TRUE(other);
	auto foreign = buffer(4096, other.get());
	auto src = buffer(4096);
	auto ctx = context();
	ASSERT_TRUE(foreign && src && ctx);
	auto fd = foreign->exportFd();
	ASSERT_TRUE(succeeded(fd));
	auto readOnly = vdla::Buffer::import(*device_, *fd, vdla::Buffer::Access::ReadOnly);
	close(*fd);
	ASSERT_TRUE(succeeded(readOnly));

	/* Marked as read: SUBMIT accepts it, the device MMU refuses the write. */
	vdla::TaskBuilder b = copyTask(*src, **readOnly, vdla::BufferUse::Read);
	vdla::FenceStatus end = run(*ctx, b);
	EXPECT_TRUE(end.signalled);
	EXPECT_EQ(end.error, EFAULT);

	auto status = ctx->query();
	ASSERT_TRUE(succeeded(status));
	EXPECT_TRUE(status->banned);
	EXPECT_EQ(status->lastError, EFAULT);
	EXPECT_EQ(status->jobsFailed, 1u);
	EXPECT_NE(status->faultAddress, 0u);

	auto task = b.build(*device_);
	ASSERT_TRUE(succeeded(task));
	auto seqno = ctx->submit(*task);
	ASSERT_FALSE(seqno);
	EXPECT_EQ(seqno.error().code(), ECANCELED);
	EXPECT_NE(seqno.error().reason().find("banned"), std::string::npos);

	/* Other contexts of the file carry on. */
	auto fresh = context();
	ASSERT_TRUE(fresh);
	auto dst = buffer(4096);
	EXPECT_EQ(run(*fresh, copyTask(*src, *dst)).error, 0);
}

/* @seqno failed with EINVAL for the @reason given. */
::testing::AssertionResult refusedFor(
	const vdla::Result<uint64_t> &seqno, const std::string &reason)
{
	if (seqno)
		return ::testing::AssertionFailure() << "submitted as job " << *seqno;
	if (seqno.error().code() != EINVAL
		|| seqno.error().reason().find(reason) == std::string::npos)
		return ::testing::AssertionFailure() << seqno.error().message();
	return ::testing::AssertionSuccess();
}

/*
 * GEM handles and syncobjs are per file: a task or fence of another Device
 * (here another file of the same node) would silently name this file's
 * objects of the same numbers, so submit refuses them.
 */
TEST_F(ContextTest, TaskOfAnotherDeviceIsRefused)
{
	auto other = openAgain();
	ASSERT_TRUE(other);
	auto src = buffer(4096, other.get()), dst = buffer(4096, other.get());
	auto ctx = context();
	ASSERT_TRUE(src && dst && ctx);
	auto task = copyTask(*src, *dst).build(*other);
	ASSERT_TRUE(succeeded(task));
	EXPECT_TRUE(refusedFor(ctx->submit(*task), "task was built for another Device"));
}

/* A task of this Device, and a (signalled) fence of another file of the node. */
class ForeignFenceTest : public UmdTest
{
protected:
	void SetUp() override
	{
		UmdTest::SetUp();
		if (HasFatalFailure())
			return;
		other_ = openAgain();
		ASSERT_TRUE(other_);
		auto foreign = vdla::Fence::create(*other_, vdla::Fence::Type::Binary, true);
		ASSERT_TRUE(succeeded(foreign));
		foreign_ = std::move(*foreign);
		src_ = buffer(4096);
		dst_ = buffer(4096);
		ctx_ = context();
		ASSERT_TRUE(src_ && dst_ && ctx_);
		auto task = copyTask(*src_, *dst_).build(*device_);
		ASSERT_TRUE(succeeded(task));
		task_ = *task;
	}

	std::unique_ptr<vdla::Device> other_;
	std::unique_ptr<vdla::Fence> foreign_;
	std::unique_ptr<vdla::Buffer> src_, dst_;
	std::unique_ptr<vdla::Context> ctx_;
	vdla::Task task_;
};

TEST_F(ForeignFenceTest, WaitFenceOfAnotherDeviceIsRefused)
{
	EXPECT_TRUE(refusedFor(ctx_->submit(task_, { { foreign_.get() } }),
		"wait fence belongs to another Device"));
}

TEST_F(ForeignFenceTest, SignalFenceOfAnotherDeviceIsRefused)
{
	EXPECT_TRUE(refusedFor(ctx_->submit(task_, {}, { foreign_.get() }),
		"signal fence belongs to another Device"));
}

TEST_F(ContextTest, UnbuiltTaskIsRefused)
{
	auto ctx = context();
	ASSERT_TRUE(ctx);
	auto seqno = ctx->submit(vdla::Task());
	ASSERT_FALSE(seqno);
	EXPECT_EQ(seqno.error().code(), EINVAL);
}

} /* namespace */

} /* namespace umd_test */
