/* SPDX-License-Identifier: MIT */
#include <unistd.h>

#include <cerrno>

#include "umd_test.h"

namespace umd_test {

namespace {

using FenceTest = UmdTest;
using Type = vdla::Fence::Type;

TEST_F(FenceTest, CreatedSignalledWaitsAtOnce)
{
	auto f = vdla::Fence::create(*device_, Type::Binary, true);
	ASSERT_TRUE(succeeded(f));
	EXPECT_NE((*f)->handle(), 0u);
	EXPECT_TRUE(succeeded((*f)->wait(0ns)));
	auto s = (*f)->signalled();
	ASSERT_TRUE(succeeded(s));
	EXPECT_TRUE(*s);
}

TEST_F(FenceTest, UnsignalledWaitTimesOutAsEtimedout)
{
	auto f = fence();
	ASSERT_TRUE(f);
	auto s = f->signalled();
	ASSERT_TRUE(succeeded(s));
	EXPECT_FALSE(*s);
	auto r = f->wait(20ms);
	ASSERT_FALSE(r);
	EXPECT_EQ(r.error().code(), ETIMEDOUT);
}

TEST_F(FenceTest, CpuSignalAndReset)
{
	auto f = fence();
	ASSERT_TRUE(f);
	ASSERT_TRUE(succeeded(f->signal()));
	EXPECT_TRUE(succeeded(f->wait(0ns)));
	ASSERT_TRUE(succeeded(f->reset()));
	EXPECT_FALSE(*f->signalled());
}

TEST_F(FenceTest, TimelinePoints)
{
	auto f = fence(Type::Timeline);
	ASSERT_TRUE(f);
	EXPECT_EQ(f->type(), Type::Timeline);
	ASSERT_TRUE(succeeded(f->signal(3)));
	EXPECT_EQ(*f->lastPoint(), 3u);
	EXPECT_TRUE(succeeded(f->waitPoint(2, 0ns)));
	EXPECT_TRUE(*f->signalled(3));
	EXPECT_FALSE(*f->signalled(4));
	auto r = f->waitPoint(5, 20ms);
	ASSERT_FALSE(r);
	EXPECT_EQ(r.error().code(), ETIMEDOUT);
	/* A binary wait on a timeline is a usage error. */
	EXPECT_EQ(f->wait(0ns).error().code(), EINVAL);
}

TEST_F(FenceTest, WaitPointOnABinaryFenceIsAUsageError)
{
	auto f = fence();
	ASSERT_TRUE(f);
	ASSERT_TRUE(succeeded(f->signal()));
	for (uint64_t point : { 0, 1 }) {
		auto r = f->waitPoint(point, 0ns);
		ASSERT_FALSE(r) << "point " << point;
		EXPECT_EQ(r.error().code(), EINVAL);
		EXPECT_NE(r.error().reason().find("binary fence"), std::string::npos)
			<< r.error().reason();
	}
}

TEST_F(FenceTest, SyncFileRoundTrip)
{
	auto f = fence();
	ASSERT_TRUE(f);
	ASSERT_TRUE(succeeded(f->signal()));
	auto file = f->exportSyncFile();
	ASSERT_TRUE(succeeded(file));
	auto status = vdla::Fence::syncFileStatus(*file);
	ASSERT_TRUE(succeeded(status));
	EXPECT_TRUE(status->signalled);
	EXPECT_EQ(status->error, 0);

	auto copy = vdla::Fence::fromSyncFile(*device_, *file);
	ASSERT_TRUE(succeeded(copy));
	EXPECT_TRUE(*(*copy)->signalled());

	auto timeline = fence(Type::Timeline);
	ASSERT_TRUE(timeline);
	ASSERT_TRUE(succeeded(timeline->importSyncFile(*file, 7)));
	close(*file);
	EXPECT_TRUE(succeeded(timeline->waitPoint(7, 0ns)));
	auto pointFile = timeline->exportSyncFile(7);
	ASSERT_TRUE(succeeded(pointFile));
	close(*pointFile);
}

TEST_F(FenceTest, ExportOfAFencelessSyncobjFails)
{
	auto f = fence();
	ASSERT_TRUE(f);
	EXPECT_FALSE(f->exportSyncFile());
}

TEST_F(FenceTest, SyncobjFdSharesTheSyncobjAcrossFiles)
{
	auto other = openAgain();
	ASSERT_TRUE(other);
	auto f = fence();
	ASSERT_TRUE(f);
	auto fd = f->exportFd();
	ASSERT_TRUE(succeeded(fd));
	auto imported = vdla::Fence::importFd(*other, *fd);
	close(*fd);
	ASSERT_TRUE(succeeded(imported));
	EXPECT_FALSE(*(*imported)->signalled());
	ASSERT_TRUE(succeeded(f->signal()));
	EXPECT_TRUE(succeeded((*imported)->wait(0ns)));
}

TEST_F(FenceTest, WaitStatusAnswersAsWaitAndStatusTogether)
{
	auto binary = fence(), timeline = fence(Type::Timeline);
	ASSERT_TRUE(binary && timeline);
	auto none = binary->waitStatus(0, 0ns);
	ASSERT_FALSE(none);
	EXPECT_EQ(none.error().code(), EINVAL) << "no fence yet: it does not wait for one";

	ASSERT_TRUE(succeeded(binary->signal()));
	ASSERT_TRUE(succeeded(timeline->signal(3)));
	for (auto [f, point] : { std::pair{ binary.get(), uint64_t(0) },
		     std::pair{ timeline.get(), uint64_t(3) } }) {
		auto both = f->waitStatus(point, 0ns);
		auto status = f->status(point);
		ASSERT_TRUE(succeeded(both));
		ASSERT_TRUE(succeeded(status));
		EXPECT_TRUE(both->signalled);
		EXPECT_EQ(both->error, 0);
		EXPECT_EQ(both->timestamp, status->timestamp) << "point " << point;
	}
	auto unsubmitted = timeline->waitStatus(5, 20ms);
	ASSERT_FALSE(unsubmitted);
	EXPECT_EQ(unsubmitted.error().code(), EINVAL);
	EXPECT_EQ(timeline->waitStatus(0, 0ns).error().code(), EINVAL);
	EXPECT_EQ(binary->waitStatus(1, 0ns).error().code(), EINVAL);
}

} /* namespace */

} /* namespace umd_test */
