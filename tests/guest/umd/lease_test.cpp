/* SPDX-License-Identifier: MIT */
/*
 * libvdla's resource manager (vdla/lease.h) against the driver: partitions
 * as QUERY reports them, a lease granted, asked, released from its
 * callback and granted to the waiter; a lease revoked, with its callback,
 * and what then fails; buffers in a partition and jobs through them. Two
 * Devices on one node stand for two processes: each has its own file and
 * its own events.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include <vdla/buffer.h>
#include <vdla/context.h>
#include <vdla/device.h>
#include <vdla/fence.h>
#include <vdla/lease.h>
#include <vdla/task_builder.h>

#include "lease_env.h"
#include "submit_env.h"
#include "umd_test.h"

namespace umd_test {
namespace {

class LeaseTest : public UmdTest
{
protected:
	void SetUp() override
	{
		UmdTest::SetUp();
		if (HasFatalFailure())
			return;
		partitions_ = std::make_unique<guest::SramPartitions>(
			guest::nodeIndex(node_), "camera:64K,monitor:32K");
		ASSERT_EQ(partitions_->error(), 0);
	}

	void TearDown() override
	{
		highCtx_.reset();
		lowCtx_.reset();
		other_.reset();
		partitions_.reset();
	}

	/* A second file standing for another process; a LOW context here, a HIGH one there. */
	void openTwoSides()
	{
		other_ = openAgain();
		ASSERT_TRUE(other_);
		auto low = vdla::Context::create(*device_, vdla::Priority::Low);
		auto high = vdla::Context::create(*other_, vdla::Priority::High);
		ASSERT_TRUE(succeeded(low) && succeeded(high));
		lowCtx_ = std::move(*low);
		highCtx_ = std::move(*high);
	}

	std::unique_ptr<guest::SramPartitions> partitions_;
	std::unique_ptr<vdla::Device> other_;
	std::unique_ptr<vdla::Context> lowCtx_, highCtx_;
};

/* Copies @bytes from @src through the partition buffer @sram to @dst, naming @lease. */
vdla::Result<uint64_t> roundTrip(vdla::Context &ctx, const vdla::Buffer &src,
				 const vdla::Buffer &sram, const vdla::Buffer &dst,
				 const vdla::Lease *lease, vdla::Fence &done)
{
	vdla::TaskBuilder b;
	uint16_t s = b.addBuffer(src);
	uint16_t m = b.addBuffer(sram, vdla::BufferUse::Write);
	uint16_t d = b.addBuffer(dst, vdla::BufferUse::Write);
	uint16_t first = b.copy({ s, 0 }, { m, 0 }, 4096);
	uint16_t second = b.copy({ m, 0 }, { d, 0 }, 4096);
	b.link(first, second);
	auto task = b.build(ctx.device());
	if (!task)
		return task.error();
	vdla::SubmitOptions options;
	options.lease = lease;
	options.frameBegin = true;
	options.frameEnd = true;
	return ctx.submitWithOptions(*task, {}, { &done }, options);
}

TEST_F(LeaseTest, PartitionsAreListedByIndex)
{
	auto parts = vdla::sramPartitions(*device_);
	ASSERT_TRUE(succeeded(parts));
	ASSERT_EQ(parts->size(), 2u);
	EXPECT_EQ((*parts)[0].name, "camera");
	EXPECT_EQ((*parts)[0].size, 64u << 10);
	EXPECT_EQ((*parts)[1].name, "monitor");
	EXPECT_EQ((*parts)[1].offset, (*parts)[0].offset + (64u << 10));
}

TEST_F(LeaseTest, AHolderReleasesFromItsCallbackAndTheWaiterIsGranted)
{
	ASSERT_NO_FATAL_FAILURE(openTwoSides());
	vdla::ResourceManager mine(*device_), theirs(*other_);
	auto &lowCtx = lowCtx_, &highCtx = highCtx_;

	int asked = 0;
	vdla::LeaseReason askedWhy = vdla::LeaseReason::None;
	vdla::LeaseCallbacks lowCallbacks;
	lowCallbacks.releaseRequested = [&](vdla::Lease &lease, vdla::LeaseReason why,
					    std::chrono::nanoseconds deadline) {
		asked++;
		askedWhy = why;
		EXPECT_GT(deadline.count(), 0);
		EXPECT_TRUE(succeeded(lease.release()));
	};
	vdla::LeaseRequest request;
	request.priority = vdla::Priority::Low;
	auto low = mine.acquire(*lowCtx, request, lowCallbacks);
	ASSERT_TRUE(succeeded(low));
	EXPECT_EQ((*low)->state(), vdla::LeaseState::Held);

	/* The holder's partition buffer carries data through a job naming the lease. */
	auto sram = vdla::Buffer::create(*device_, 4096, **low);
	ASSERT_TRUE(succeeded(sram));
	auto src = buffer(4096), dst = buffer(4096);
	auto srcMap = src->map();
	ASSERT_TRUE(succeeded(srcMap));
	for (int i = 0; i < 4096; i++)
		(*srcMap)[i] = uint8_t(i * 13);
	auto done = fence();
	ASSERT_TRUE(succeeded(roundTrip(*lowCtx, *src, **sram, *dst, low->get(), *done)));
	ASSERT_TRUE(succeeded(done->wait(kJobTimeout)));
	auto dstMap = dst->map();
	ASSERT_TRUE(succeeded(dstMap));
	EXPECT_EQ(std::memcmp(*dstMap, *srcMap, 4096), 0);
	auto noLease = roundTrip(*lowCtx, *src, **sram, *dst, nullptr, *done);
	ASSERT_FALSE(noLease);
	EXPECT_EQ(noLease.error().code(), EACCES);

	int granted = 0;
	vdla::LeaseCallbacks highCallbacks;
	highCallbacks.granted = [&](vdla::Lease &lease) {
		granted++;
		EXPECT_EQ(lease.state(), vdla::LeaseState::Held);
	};
	vdla::LeaseRequest urgent;
	urgent.priority = vdla::Priority::High;
	urgent.queue = true;
	auto high = theirs.acquire(*highCtx, urgent, highCallbacks);
	ASSERT_TRUE(succeeded(high));
	EXPECT_EQ((*high)->state(), vdla::LeaseState::Waiting);
	auto busy = theirs.acquire(*highCtx, urgent);
	ASSERT_FALSE(busy);
	EXPECT_EQ(busy.error().code(), EEXIST);

	auto n = mine.dispatch(5000ms);
	ASSERT_TRUE(succeeded(n));
	EXPECT_EQ(*n, 1u);
	EXPECT_EQ(asked, 1);
	EXPECT_EQ(askedWhy, vdla::LeaseReason::Preempted);
	n = theirs.dispatch(5000ms);
	ASSERT_TRUE(succeeded(n));
	EXPECT_EQ(granted, 1);
	auto status = (*high)->query();
	ASSERT_TRUE(succeeded(status));
	EXPECT_EQ(status->state, vdla::LeaseState::Held);
	EXPECT_FALSE(status->releaseRequested);

	/* The old holder's buffer lost its SRAM; the lease was released by its callback. */
	auto lost = roundTrip(*lowCtx, *src, **sram, *dst, nullptr, *done);
	ASSERT_FALSE(lost);
	EXPECT_EQ(lost.error().code(), ECANCELED);
	auto again = (*low)->release();
	ASSERT_FALSE(again);
	EXPECT_EQ(again.error().code(), EINVAL);
}

TEST_F(LeaseTest, ALeaseNotReleasedIsRevokedAndSaysSo)
{
	ASSERT_NO_FATAL_FAILURE(openTwoSides());
	vdla::ResourceManager mine(*device_), theirs(*other_);
	auto &lowCtx = lowCtx_, &highCtx = highCtx_;
	int revoked = 0;
	vdla::LeaseCallbacks callbacks;
	callbacks.revoked = [&](vdla::Lease &, vdla::LeaseReason why) {
		revoked++;
		EXPECT_EQ(why, vdla::LeaseReason::Preempted);
	};
	vdla::LeaseRequest request;
	request.index = 1;
	request.priority = vdla::Priority::Low;
	request.releaseTimeout = 50ms;
	auto low = mine.acquire(*lowCtx, request, callbacks);
	ASSERT_TRUE(succeeded(low));

	/* A claim that waits 5 s, on another thread, as an application's would. */
	vdla::Result<std::unique_ptr<vdla::Lease>> high = vdla::Error(EINPROGRESS, "not yet");
	std::thread claimer([&] {
		vdla::LeaseRequest urgent;
		urgent.index = 1;
		urgent.priority = vdla::Priority::High;
		urgent.timeout = 5s;
		high = theirs.acquire(*highCtx, urgent);
	});
	while (!revoked) {
		auto n = mine.dispatch(5000ms);
		ASSERT_TRUE(succeeded(n));
		ASSERT_GT(*n, 0u) << "no event within 5 s";
	}
	claimer.join();
	ASSERT_TRUE(succeeded(high));
	EXPECT_EQ((*high)->state(), vdla::LeaseState::Held);
	EXPECT_EQ((*low)->state(), vdla::LeaseState::Revoked);
	auto sram = vdla::Buffer::create(*device_, 4096, **low);
	ASSERT_FALSE(sram);
	EXPECT_EQ(sram.error().code(), ECANCELED);
	auto elsewhere = vdla::Buffer::create(*device_, 4096, **high);
	ASSERT_FALSE(elsewhere) << "a lease id of another Device's file";
	EXPECT_EQ(elsewhere.error().code(), EINVAL);

	/* Not granted within the timeout: ETIMEDOUT, nothing left behind. */
	vdla::LeaseRequest tooLate;
	tooLate.index = 1;
	tooLate.priority = vdla::Priority::Normal;
	tooLate.timeout = 20ms;
	auto failed = mine.acquire(*lowCtx, tooLate);
	ASSERT_FALSE(failed);
	EXPECT_EQ(failed.error().code(), ETIMEDOUT);
	EXPECT_NE(failed.error().message().find("not granted within the timeout"), std::string::npos);
}

/* A callback may destroy its own Lease; the lease is released with it. */
TEST_F(LeaseTest, ACallbackMayDestroyItsLease)
{
	ASSERT_NO_FATAL_FAILURE(openTwoSides());
	vdla::ResourceManager mine(*device_), theirs(*other_);
	std::unique_ptr<vdla::Lease> low;
	bool asked = false;
	vdla::LeaseCallbacks callbacks;
	callbacks.releaseRequested = [&](vdla::Lease &, vdla::LeaseReason,
					 std::chrono::nanoseconds) {
		asked = true;
		low.reset();
	};
	vdla::LeaseRequest request;
	request.priority = vdla::Priority::Low;
	auto acquired = mine.acquire(*lowCtx_, request, callbacks);
	ASSERT_TRUE(succeeded(acquired));
	low = std::move(*acquired);
	vdla::LeaseRequest urgent;
	urgent.priority = vdla::Priority::High;
	urgent.queue = true;
	auto high = theirs.acquire(*highCtx_, urgent);
	ASSERT_TRUE(succeeded(high));
	auto n = mine.dispatch(5000ms);
	ASSERT_TRUE(succeeded(n));
	EXPECT_TRUE(asked);
	EXPECT_FALSE(low);
	ASSERT_TRUE(succeeded(theirs.dispatch(5000ms)));
	auto status = (*high)->query();
	ASSERT_TRUE(succeeded(status));
	EXPECT_EQ(status->state, vdla::LeaseState::Held) << "destroying the Lease released it";
}

TEST_F(LeaseTest, AnEngineIsReservedOnceAtATime)
{
	ASSERT_NO_FATAL_FAILURE(openTwoSides());
	vdla::ResourceManager mine(*device_), theirs(*other_);
	vdla::LeaseRequest conv;
	conv.resource = vdla::LeaseResource::Engine;
	conv.index = 1;
	conv.priority = vdla::Priority::Low;
	auto held = mine.acquire(*lowCtx_, conv);
	ASSERT_TRUE(succeeded(held));
	EXPECT_EQ((*held)->state(), vdla::LeaseState::Held);
	auto busy = theirs.acquire(*highCtx_, conv);
	ASSERT_FALSE(busy);
	EXPECT_EQ(busy.error().code(), EBUSY);
	EXPECT_NE(busy.error().message().find("engine 1"), std::string::npos);
	auto buffer = vdla::Buffer::create(*device_, 4096, **held);
	ASSERT_FALSE(buffer) << "an engine has no SRAM";
	EXPECT_EQ(buffer.error().code(), EINVAL);
	conv.index = 6;
	auto none = theirs.acquire(*highCtx_, conv);
	ASSERT_FALSE(none);
	EXPECT_EQ(none.error().code(), ENOENT);
	ASSERT_TRUE(succeeded((*held)->release()));
	conv.index = 1;
	EXPECT_TRUE(succeeded(theirs.acquire(*highCtx_, conv)));
}

/* A one-job copy on @ctx naming @lease (joining its share if it is another context's). */
vdla::Result<uint64_t> copyJob(vdla::Context &ctx, const vdla::Buffer &src, const vdla::Buffer &dst,
			       const vdla::Lease *lease, vdla::Fence &done)
{
	vdla::TaskBuilder b;
	uint16_t s = b.addBuffer(src);
	uint16_t d = b.addBuffer(dst, vdla::BufferUse::Write);
	b.copy({ s, 0 }, { d, 0 }, 4096);
	auto task = b.build(ctx.device());
	if (!task)
		return task.error();
	vdla::SubmitOptions options;
	options.lease = lease;
	return ctx.submitWithOptions(*task, {}, { &done }, options);
}

TEST_F(LeaseTest, ATimeShareIsListedLeasedAndJoined)
{
	guest::TimeShares defined(guest::nodeIndex(node_), "camera:30,monitor:20");
	ASSERT_EQ(defined.error(), 0);
	auto shares = vdla::timeShares(*device_);
	ASSERT_TRUE(succeeded(shares));
	EXPECT_GT(shares->period.count(), 0);
	ASSERT_EQ(shares->shares.size(), 2u);
	EXPECT_EQ(shares->shares[1].name, "monitor");
	EXPECT_EQ(shares->shares[1].percent, 20u);

	ASSERT_NO_FATAL_FAILURE(openTwoSides());
	vdla::ResourceManager mine(*device_);
	vdla::LeaseRequest request;
	request.resource = vdla::LeaseResource::TimeShare;
	request.index = 1;
	request.priority = vdla::Priority::Low;
	auto held = mine.acquire(*lowCtx_, request);
	ASSERT_TRUE(succeeded(held));
	EXPECT_EQ((*held)->resource(), vdla::LeaseResource::TimeShare);
	vdla::LeaseRequest secondShare = request;
	secondShare.index = 0;
	auto second = mine.acquire(*lowCtx_, secondShare);
	ASSERT_FALSE(second) << "a context is charged to one share";
	EXPECT_EQ(second.error().code(), EEXIST);
	EXPECT_NE(second.error().message().find("a time share"), std::string::npos)
		<< second.error().message();

	/* A second context of the Device joins; its device time is charged to the share. */
	auto member = vdla::Context::create(*device_, vdla::Priority::Normal);
	ASSERT_TRUE(succeeded(member));
	auto src = buffer(4096), dst = buffer(4096);
	auto srcMap = src->map(), dstMap = dst->map();
	ASSERT_TRUE(succeeded(srcMap) && succeeded(dstMap));
	std::memset(*srcMap, 0x5a, 4096);
	auto done = fence();
	ASSERT_TRUE(succeeded(copyJob(**member, *src, *dst, held->get(), *done)));
	ASSERT_TRUE(succeeded(done->wait(kJobTimeout)));
	EXPECT_EQ((*dstMap)[4095], 0x5a);
	shares = vdla::timeShares(*device_);
	ASSERT_TRUE(succeeded(shares));
	EXPECT_GT(shares->shares[1].total.count(), 0) << "the joined context was not charged";
	EXPECT_EQ(shares->shares[0].total.count(), 0);

	/* Another Device's context cannot join it. */
	auto theirs = buffer(4096, other_.get());
	auto theirDone = vdla::Fence::create(*other_);
	ASSERT_TRUE(succeeded(theirDone));
	auto refused = copyJob(*highCtx_, *theirs, *theirs, held->get(), **theirDone);
	ASSERT_FALSE(refused);
	EXPECT_EQ(refused.error().code(), EINVAL);
	ASSERT_TRUE(succeeded((*held)->release()));
}

} /* namespace */
} /* namespace umd_test */
