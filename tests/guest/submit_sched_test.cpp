/* SPDX-License-Identifier: MIT */
/*
 * The scheduler: priorities, preemption at operation boundaries (with
 * identical results after the resume), the preempt parameter, and the
 * starvation guard. Fence timestamps (sync files) give the order in which
 * jobs ended, whatever the test process saw when.
 */
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <memory>
#include <thread>

#include "submit_test.h"

namespace guest {
namespace {

using namespace std::chrono_literals;

class Scheduling : public SubmitTest
{
protected:
	/* Makes @count small jobs of @kind, each with its own out-sync. */
	void prepareMany(int count, WorkKind kind, Rng &rng)
	{
		for (int i = 0; i < count; i++) {
			jobs_.push_back(std::make_unique<SmallJob>(fd()));
			ASSERT_EQ(jobs_.back()->error(), 0);
			jobs_.back()->prepare(rng, kind);
			done_.emplace_back(fd());
		}
	}

	/* Submits jobs [@first, @last) of prepareMany() on @ctx, back to back. */
	void submitRange(uint32_t ctx, size_t first, size_t last)
	{
		for (size_t i = first; i < last; i++)
			ASSERT_EQ(submit(fd(), jobs_[i]->submission(ctx, done_[i].sync())), 0);
	}

	void submitMany(uint32_t ctx, int count, WorkKind kind, Rng &rng)
	{
		size_t first = jobs_.size();
		prepareMany(count, kind, rng);
		ASSERT_FALSE(HasFatalFailure());
		submitRange(ctx, first, jobs_.size());
	}

	/* Checks every job of submitMany(); returns their end timestamps. */
	std::vector<uint64_t> finishMany()
	{
		std::vector<uint64_t> ends;
		for (size_t i = 0; i < jobs_.size(); i++) {
			EXPECT_TRUE(fenceSucceeds(done_[i])) << "job " << i;
			EXPECT_TRUE(jobs_[i]->check()) << "job " << i;
			ends.push_back(done_[i].fence().timestampNs);
		}
		return ends;
	}

	std::vector<std::unique_ptr<SmallJob>> jobs_;
	std::vector<Syncobj> done_;
};

TEST_F(Scheduling, HighPriorityJobOvertakesQueuedNormalOnes)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 30000), 0);
	Ctx normal(fd(), DRM_VDLA_PRIORITY_NORMAL), high(fd(), DRM_VDLA_PRIORITY_HIGH);
	Rng rng(81);
	constexpr int kNormal = 16;
	SmallJob urgent(fd());
	urgent.prepare(rng, WorkKind::Sdp);
	Syncobj urgentDone(fd());
	submitMany(normal.id(), kNormal, WorkKind::Copy, rng);
	ASSERT_FALSE(HasFatalFailure());
	ASSERT_EQ(submit(fd(), urgent.submission(high.id(), urgentDone.sync())), 0);
	EXPECT_TRUE(fenceSucceeds(urgentDone));
	EXPECT_TRUE(urgent.check());
	uint64_t urgentEnd = urgentDone.fence().timestampNs;

	std::vector<uint64_t> ends = finishMany();
	int before = int(
		std::count_if(ends.begin(), ends.end(), [&](uint64_t t) { return t < urgentEnd; }));
	/* The running one, and at most a couple submitted before it got there. */
	EXPECT_LE(before, 3) << before << " of " << kNormal
			     << " normal jobs ended before the high-priority one";
}

/*
 * Within a priority, processes take turns: a backlog of one file's jobs
 * (32 of 20 ms each) delays another file's new job by about one job, not
 * by the backlog (it waited behind all of them).
 */
TEST_F(Scheduling, FilesOfOnePriorityTakeTurns)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 20000), 0);
	Ctx busy(fd());
	Rng rng(85);
	constexpr int kBacklog = 32;
	submitMany(busy.id(), kBacklog, WorkKind::Copy, rng);
	ASSERT_FALSE(HasFatalFailure());

	Node other(paths_.front());
	ASSERT_TRUE(other.valid());
	Ctx ctx(other.fd());
	SmallJob newcomer(other.fd());
	newcomer.prepare(rng, WorkKind::Sdp);
	Syncobj newcomerDone(other.fd());
	ASSERT_EQ(submit(other.fd(), newcomer.submission(ctx.id(), newcomerDone.sync())), 0);
	EXPECT_TRUE(fenceSucceeds(newcomerDone));
	EXPECT_TRUE(newcomer.check());
	uint64_t newcomerEnd = newcomerDone.fence().timestampNs;

	std::vector<uint64_t> ends = finishMany();
	int before = int(
		std::count_if(ends.begin(), ends.end(), [&](uint64_t t) { return t < newcomerEnd; }));
	EXPECT_LE(before, 3) << before << " of " << kBacklog
			     << " jobs of the busy file ended before the other file's one";
}

/*
 * The high-priority job arrives when the long job has run for longer than
 * starvation_ms: having run is not having waited, so the stopped job must
 * not come straight back as a starving one.
 */
TEST_F(Scheduling, HighPriorityJobPreemptsALongLowOne)
{
	ParamOverride starvation("starvation_ms", "100");
	ASSERT_EQ(starvation.error(), 0);
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 40000), 0);
	long preemptionsBefore = readState(node_.index())["preemptions"];
	Ctx low(fd(), DRM_VDLA_PRIORITY_LOW), high(fd(), DRM_VDLA_PRIORITY_HIGH);
	ChainJob chain(fd(), 16, 82);
	ASSERT_EQ(chain.error(), 0);
	SmallJob urgent(fd());
	Rng rng(83);
	urgent.prepare(rng, WorkKind::Conv);
	Syncobj chainDone(fd()), urgentDone(fd());
	ASSERT_EQ(submit(fd(), chain.submission(low.id(), chainDone.sync())), 0);
	std::this_thread::sleep_for(200ms);
	ASSERT_FALSE(chainDone.signalled()) << "the long job ended too early for this test";

	int64_t start = monotonicNs();
	ASSERT_EQ(submit(fd(), urgent.submission(high.id(), urgentDone.sync())), 0);
	EXPECT_TRUE(fenceSucceeds(urgentDone));
	int64_t latency = monotonicNs() - start;
	EXPECT_FALSE(chainDone.signalled()) << "the high-priority job waited for the long one";
	EXPECT_TRUE(urgent.check());

	EXPECT_TRUE(fenceSucceeds(chainDone));
	EXPECT_TRUE(chain.check()) << "the preempted job's result changed";
	EXPECT_LT(urgentDone.fence().timestampNs, chainDone.fence().timestampNs);
	drm_vdla_ctx_query q = low.query();
	EXPECT_GE(q.jobs_preempted, 1u);
	EXPECT_EQ(q.jobs_completed, 1u);
	EXPECT_EQ(high.query().jobs_preempted, 0u);
	EXPECT_GE(readState(node_.index())["preemptions"], preemptionsBefore + 1);
	/* One operation of the long job (40 ms) at most, plus overheads. */
	EXPECT_LT(latency, 300000000ll) << "high-priority job took " << latency / 1000 << " us";
}

TEST_F(Scheduling, WithoutPreemptionTheRunningJobFinishesFirst)
{
	ParamOverride noPreempt("preempt", "N");
	ASSERT_EQ(noPreempt.error(), 0);
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 30000), 0);
	Ctx low(fd(), DRM_VDLA_PRIORITY_LOW), high(fd(), DRM_VDLA_PRIORITY_HIGH);
	ChainJob chain(fd(), 8, 84);
	ASSERT_EQ(chain.error(), 0);
	Syncobj chainDone(fd());
	ASSERT_EQ(submit(fd(), chain.submission(low.id(), chainDone.sync())), 0);
	std::this_thread::sleep_for(60ms);
	ASSERT_FALSE(chainDone.signalled()) << "the long job ended too early for this test";

	SmallJob urgent(fd());
	Rng rng(85);
	urgent.prepare(rng, WorkKind::Sdp);
	Syncobj urgentDone(fd());
	ASSERT_EQ(submit(fd(), urgent.submission(high.id(), urgentDone.sync())), 0);
	EXPECT_TRUE(fenceSucceeds(urgentDone));
	EXPECT_TRUE(fenceSucceeds(chainDone));
	EXPECT_GT(urgentDone.fence().timestampNs, chainDone.fence().timestampNs)
		<< "the long job was preempted with preempt=N";
	EXPECT_EQ(low.query().jobs_preempted, 0u);
	EXPECT_TRUE(chain.check());
	EXPECT_TRUE(urgent.check());
}

TEST_F(Scheduling, LowPriorityJobIsNotStarved)
{
	ParamOverride starvation("starvation_ms", "100");
	ASSERT_EQ(starvation.error(), 0);
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 20000), 0);
	Ctx low(fd(), DRM_VDLA_PRIORITY_LOW), high(fd(), DRM_VDLA_PRIORITY_HIGH);
	Rng rng(86);
	constexpr int kHigh = 40;
	/* A stream of 20 ms high-priority jobs, 800 ms in all, the low one third. */
	SmallJob starving(fd());
	starving.prepare(rng, WorkKind::Sdp);
	Syncobj starvingDone(fd());
	prepareMany(kHigh, WorkKind::Copy, rng);
	ASSERT_FALSE(HasFatalFailure());
	submitRange(high.id(), 0, 2);
	ASSERT_EQ(submit(fd(), starving.submission(low.id(), starvingDone.sync())), 0);
	submitRange(high.id(), 2, kHigh);
	ASSERT_FALSE(HasFatalFailure());

	EXPECT_TRUE(fenceSucceeds(starvingDone));
	EXPECT_TRUE(starving.check());
	uint64_t end = starvingDone.fence().timestampNs;
	std::vector<uint64_t> ends = finishMany();
	int before
		= int(std::count_if(ends.begin(), ends.end(), [&](uint64_t t) { return t < end; }));
	/* About starvation_ms / 20 ms of them; far from all. */
	EXPECT_LT(before, kHigh / 2) << "the low-priority job waited for " << before << " of "
				     << kHigh << " high-priority jobs";
}

/*
 * A job picked against priority to end its starvation is protected from
 * preemption for starvation_ms, not for the rest of its run: a
 * high-priority job that arrives during that turn waits for the end of the
 * turn (and one operation), not for the whole long job.
 */
TEST_F(Scheduling, StarvedJobIsPreemptedAfterItsTurn)
{
	ParamOverride starvation("starvation_ms", "50");
	ASSERT_EQ(starvation.error(), 0);
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 20000), 0);
	Ctx low(fd(), DRM_VDLA_PRIORITY_LOW), normal(fd(), DRM_VDLA_PRIORITY_NORMAL),
		high(fd(), DRM_VDLA_PRIORITY_HIGH);
	/* 24 operations of 20 ms: far longer than a turn. */
	ChainJob chain(fd(), 24, 88);
	ASSERT_EQ(chain.error(), 0);
	Syncobj chainDone(fd()), urgentDone(fd());
	Rng rng(89);
	SmallJob urgent(fd());
	urgent.prepare(rng, WorkKind::Sdp);
	/* A stream of normal-priority jobs keeps the low one waiting until it starves. */
	prepareMany(40, WorkKind::Copy, rng);
	ASSERT_FALSE(HasFatalFailure());
	submitRange(normal.id(), 0, 2);
	ASSERT_EQ(submit(fd(), chain.submission(low.id(), chainDone.sync())), 0);
	submitRange(normal.id(), 2, 40);
	ASSERT_FALSE(HasFatalFailure());

	/* The low job runs: its starvation turn (normal jobs are ready). */
	ASSERT_TRUE(waitUntil(
		[&] {
			std::string jobs;
			return readFile(debugfsPath(node_.index(), "jobs"), &jobs) == 0
				&& jobs.find(" low ") != std::string::npos
				&& jobs.find("running") != std::string::npos
				&& jobs.find(" low ") < jobs.find("ready");
		},
		10000, 2))
		<< "the low-priority job never ran";
	ASSERT_EQ(submit(fd(), urgent.submission(high.id(), urgentDone.sync())), 0);
	EXPECT_TRUE(fenceSucceeds(urgentDone));
	EXPECT_TRUE(urgent.check());
	EXPECT_TRUE(fenceSucceeds(chainDone));
	EXPECT_TRUE(chain.check()) << "the preempted job's result changed";
	EXPECT_LT(urgentDone.fence().timestampNs, chainDone.fence().timestampNs)
		<< "the high-priority job waited for the whole starved job";
	EXPECT_GE(low.query().jobs_preempted, 1u);
	finishMany();
}

TEST_F(Scheduling, PrioritiesOfManyContextsKeepEachContextsOrder)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 5000), 0);
	Rng rng(87);
	std::vector<Ctx> contexts;
	for (uint32_t p :
		{ DRM_VDLA_PRIORITY_LOW, DRM_VDLA_PRIORITY_NORMAL, DRM_VDLA_PRIORITY_HIGH })
		contexts.emplace_back(fd(), p);
	std::vector<uint32_t> owner;
	for (int i = 0; i < 24; i++) {
		uint32_t c = uint32_t(rng.uniform(0, 2));
		owner.push_back(c);
		submitMany(contexts[c].id(), 1, WorkKind(rng.uniform(1, 6)), rng);
		ASSERT_FALSE(HasFatalFailure());
	}
	std::vector<uint64_t> ends = finishMany();
	std::vector<uint64_t> last(3, 0);
	for (size_t i = 0; i < ends.size(); i++) {
		EXPECT_GE(ends[i], last[owner[i]])
			<< "job " << i << " overtook an earlier job of its context";
		last[owner[i]] = ends[i];
	}
}

} /* namespace */
} /* namespace guest */
