/* SPDX-License-Identifier: MIT */
/*
 * Contexts: CTX_CREATE, CTX_QUERY and CTX_DESTROY, their limits and
 * failure paths, and what happens to the jobs of a destroyed context.
 */
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <set>
#include <thread>

#include <signal.h>
#include <unistd.h>

#include <xf86drm.h>

#include "submit_test.h"

namespace guest {
namespace {

using CtxIoctl = SubmitTest;

TEST_F(CtxIoctl, CreateGivesDistinctIdsAtEveryPriority)
{
	std::vector<Ctx> contexts;
	std::set<uint32_t> ids;
	for (uint32_t priority : { DRM_VDLA_PRIORITY_LOW, DRM_VDLA_PRIORITY_NORMAL,
		     DRM_VDLA_PRIORITY_HIGH, DRM_VDLA_PRIORITY_NORMAL }) {
		contexts.emplace_back(fd(), priority);
		ASSERT_EQ(contexts.back().error(), 0) << priority;
		EXPECT_NE(contexts.back().id(), 0u);
		ids.insert(contexts.back().id());
		drm_vdla_ctx_query q = contexts.back().query();
		EXPECT_EQ(q.priority, priority);
	}
	EXPECT_EQ(ids.size(), contexts.size());
}

TEST_F(CtxIoctl, CreateRejectsBadArguments)
{
	for (uint32_t priority : { uint32_t(DRM_VDLA_PRIORITIES), 7u, ~0u }) {
		drm_vdla_ctx_create args = {};
		args.priority = priority;
		EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_CTX_CREATE, &args), EINVAL) << priority;
	}
	drm_vdla_ctx_create args = {};
	args.flags = 1;
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_CTX_CREATE, &args), EINVAL);
	args = {};
	args.pad = 1;
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_CTX_CREATE, &args), EINVAL);
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_CTX_CREATE, nullptr), EFAULT);
}

TEST_F(CtxIoctl, AFileHoldsAtMostMaxContexts)
{
	std::vector<Ctx> contexts;
	for (int i = 0; i < DRM_VDLA_MAX_CONTEXTS; i++) {
		contexts.emplace_back(fd(), uint32_t(i % DRM_VDLA_PRIORITIES));
		ASSERT_EQ(contexts.back().error(), 0) << "context " << i;
	}
	Ctx extra(fd());
	EXPECT_EQ(extra.error(), EMFILE);

	/* The limit is per file. */
	Node other(paths_.front());
	Ctx elsewhere(other.fd());
	EXPECT_EQ(elsewhere.error(), 0);
	elsewhere.destroy();

	EXPECT_EQ(contexts.back().destroy(), 0);
	Ctx again(fd());
	EXPECT_EQ(again.error(), 0);
}

/*
 * CTX_DESTROY of the ids CTX_CREATE is about to hand out (they are small
 * and predictable), from another thread: a context destroyed between its
 * publication and the end of CTX_CREATE was written after it was freed
 * (slub's "Poison overwritten" in the kernel log, which fails the run).
 * Every id either thread got back must be one the other side can account
 * for, and the file must work afterwards.
 */
TEST_F(CtxIoctl, CreateRacingDestroyOfPredictedIds)
{
	std::atomic<bool> stop{ false };
	std::atomic<long> created{ 0 }, destroyedByRacer{ 0 };
	std::thread racer([&] {
		while (!stop) {
			for (uint32_t id = 1; id <= 8; id++) {
				drm_vdla_ctx_destroy args = {};
				args.ctx_id = id;
				if (ioctlError(fd(), DRM_IOCTL_VDLA_CTX_DESTROY, &args) == 0)
					destroyedByRacer++;
			}
		}
	});
	long destroyedByCreator = 0;
	auto end = std::chrono::steady_clock::now() + std::chrono::seconds(3);
	while (std::chrono::steady_clock::now() < end) {
		drm_vdla_ctx_create args = {};
		args.priority = DRM_VDLA_PRIORITY_NORMAL;
		if (ioctlError(fd(), DRM_IOCTL_VDLA_CTX_CREATE, &args) != 0)
			continue;
		created++;
		drm_vdla_ctx_destroy d = {};
		d.ctx_id = args.ctx_id;
		if (ioctlError(fd(), DRM_IOCTL_VDLA_CTX_DESTROY, &d) == 0)
			destroyedByCreator++;
	}
	stop = true;
	racer.join();
	EXPECT_GT(created.load(), 100);
	EXPECT_GT(destroyedByRacer.load(), 0) << "the race never happened";
	/* Each context was destroyed exactly once, by one side or the other. */
	EXPECT_EQ(created.load(), destroyedByCreator + destroyedByRacer.load());

	Ctx ctx(fd());
	ASSERT_EQ(ctx.error(), 0);
	EXPECT_EQ(ctx.query().state, uint32_t(DRM_VDLA_CTX_STATE_ACTIVE));
}

TEST_F(CtxIoctl, QueryOfAFreshContext)
{
	Ctx ctx(fd(), DRM_VDLA_PRIORITY_HIGH);
	ASSERT_EQ(ctx.error(), 0);
	drm_vdla_ctx_query q;
	ASSERT_EQ(ctxQuery(fd(), ctx.id(), &q), 0);
	EXPECT_EQ(q.state, uint32_t(DRM_VDLA_CTX_STATE_ACTIVE));
	EXPECT_EQ(q.priority, uint32_t(DRM_VDLA_PRIORITY_HIGH));
	EXPECT_EQ(q.jobs_submitted, 0u);
	EXPECT_EQ(q.jobs_completed, 0u);
	EXPECT_EQ(q.jobs_failed, 0u);
	EXPECT_EQ(q.jobs_preempted, 0u);
	EXPECT_EQ(q.busy_ns, 0u);
	EXPECT_EQ(q.last_error, 0);
	EXPECT_EQ(q.hw_error, 0u);
}

TEST_F(CtxIoctl, QueryCountsJobs)
{
	Ctx ctx(fd());
	SmallJob job(fd());
	ASSERT_EQ(job.error(), 0);
	Rng rng(21);
	for (auto kind : { WorkKind::Sdp, WorkKind::Copy, WorkKind::Conv }) {
		job.prepare(rng, kind);
		ASSERT_TRUE(runJob(job, ctx.id()));
	}
	drm_vdla_ctx_query q = ctx.query();
	EXPECT_EQ(q.state, uint32_t(DRM_VDLA_CTX_STATE_ACTIVE));
	EXPECT_EQ(q.jobs_submitted, 3u);
	EXPECT_EQ(q.jobs_completed, 3u);
	EXPECT_EQ(q.jobs_failed, 0u);
	EXPECT_GT(q.busy_ns, 0u);
	EXPECT_EQ(q.last_error, 0);
}

TEST_F(CtxIoctl, QueryRejectsBadArguments)
{
	Ctx ctx(fd());
	ASSERT_EQ(ctx.error(), 0);
	drm_vdla_ctx_query q = {};
	q.ctx_id = ctx.id();
	q.flags = 1;
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_CTX_QUERY, &q), EINVAL);
	EXPECT_EQ(ctxQuery(fd(), 0, &q), ENOENT);
	EXPECT_EQ(ctxQuery(fd(), ctx.id() + 1000, &q), ENOENT);

	/* Another file sees none of this file's contexts. */
	Node other(paths_.front());
	EXPECT_EQ(ctxQuery(other.fd(), ctx.id(), &q), ENOENT);

	uint32_t id = ctx.id();
	ASSERT_EQ(ctx.destroy(), 0);
	EXPECT_EQ(ctxQuery(fd(), id, &q), ENOENT);
}

TEST_F(CtxIoctl, DestroyRejectsBadArguments)
{
	Ctx ctx(fd());
	ASSERT_EQ(ctx.error(), 0);
	drm_vdla_ctx_destroy args = {};
	args.ctx_id = ctx.id();
	args.pad = 1;
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_CTX_DESTROY, &args), EINVAL);
	EXPECT_EQ(ctxDestroy(fd(), 0), ENOENT);
	EXPECT_EQ(ctxDestroy(fd(), ctx.id() + 1000), ENOENT);

	/* Only the owner destroys it. */
	Node other(paths_.front());
	EXPECT_EQ(ctxDestroy(other.fd(), ctx.id()), ENOENT);
	SmallJob job(fd());
	Rng rng(22);
	job.prepare(rng, WorkKind::Sdp);
	EXPECT_TRUE(runJob(job, ctx.id())) << "the context stopped working";

	uint32_t id = ctx.id();
	EXPECT_EQ(ctx.destroy(), 0);
	EXPECT_EQ(ctxDestroy(fd(), id), ENOENT);
	/* A destroyed context takes no jobs. */
	EXPECT_EQ(submit(fd(), job.submission(id)), ENOENT);
}

TEST_F(CtxIoctl, DestroyLetsQueuedJobsRun)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 50000), 0);
	Ctx ctx(fd());
	Rng rng(23);
	std::vector<std::unique_ptr<SmallJob>> jobs;
	std::vector<Syncobj> done;
	for (int i = 0; i < 4; i++) {
		jobs.push_back(std::make_unique<SmallJob>(fd()));
		ASSERT_EQ(jobs.back()->error(), 0);
		jobs.back()->prepare(rng, i % 2 ? WorkKind::CopySdp : WorkKind::Copy);
		done.emplace_back(fd());
		ASSERT_EQ(submit(fd(), jobs.back()->submission(ctx.id(), done.back().sync())), 0);
	}
	int64_t start = monotonicNs();
	ASSERT_EQ(ctx.destroy(), 0);
	EXPECT_LT(monotonicNs() - start, 100000000ll) << "CTX_DESTROY waited for the jobs";
	for (size_t i = 0; i < jobs.size(); i++) {
		EXPECT_TRUE(fenceSucceeds(done[i])) << "job " << i;
		EXPECT_TRUE(jobs[i]->check()) << "job " << i;
	}
}

/*
 * CTX_DESTROY while a job of the context waits for another context's long
 * job, a job waits behind it, and an older job of the context is ready but
 * cannot run yet: the destroy gives up after its bounded wait, the two
 * waiting jobs end with ESRCH, and the context's fences still signal in
 * submission order (the ready job first, with its result).
 */
TEST_F(CtxIoctl, DestroyEndsWaitingJobsAfterTheOlderOnes)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 40000), 0);
	Ctx gateCtx(fd()), ctx(fd());
	/* About 1.6 s of device time: longer than CTX_DESTROY waits. */
	ChainJob gate(fd(), 40, 24);
	ASSERT_EQ(gate.error(), 0);
	Syncobj gateDone(fd());
	ASSERT_EQ(submit(fd(), gate.submission(gateCtx.id(), gateDone.sync())), 0);

	Rng rng(25);
	std::vector<std::unique_ptr<SmallJob>> jobs;
	std::vector<Syncobj> done;
	for (int i = 0; i < 3; i++) {
		jobs.push_back(std::make_unique<SmallJob>(fd()));
		ASSERT_EQ(jobs.back()->error(), 0);
		jobs.back()->prepare(rng, WorkKind::Copy);
		done.emplace_back(fd());
		Submission s = jobs.back()->submission(ctx.id(), done.back().sync());
		/* Job 0 is ready behind the gate; job 1 waits for it; job 2 is behind job 1. */
		if (i == 1)
			s.inSyncs = { gateDone.sync() };
		ASSERT_EQ(submit(fd(), s), 0) << "job " << i;
	}
	ASSERT_EQ(ctx.destroy(), 0);
	EXPECT_FALSE(gateDone.signalled()) << "the gate job ended too early for this test";

	EXPECT_TRUE(fenceSucceeds(done[0]));
	EXPECT_TRUE(jobs[0]->check());
	EXPECT_TRUE(fenceFails(done[1], ESRCH));
	EXPECT_TRUE(fenceFails(done[2], ESRCH));
	uint64_t ends[3];
	for (int i = 0; i < 3; i++)
		ends[i] = done[i].fence().timestampNs;
	EXPECT_LE(ends[0], ends[1]) << "a cancelled job's fence signalled before an older one's";
	EXPECT_LE(ends[1], ends[2]);
	EXPECT_TRUE(fenceSucceeds(gateDone));
}

/*
 * Closing a file whose contexts all have jobs waiting for a long job waits
 * one second in all for them, not one per context, and a process a signal
 * ends does not wait at all: its exit is not held up by its contexts.
 */
class BlockedContexts : public SubmitTest
{
protected:
	static constexpr int kContexts = 6;

	void SetUp() override
	{
		SubmitTest::SetUp();
		ASSERT_FALSE(HasFatalFailure());
		gateCtx_ = Ctx(fd());
		ASSERT_EQ(gateCtx_.error(), 0);
		fi_ = std::make_unique<FaultInjection>(node_.index());
		ASSERT_EQ(fi_->set("bdma", "delay", 0, 50000), 0);
		/* 8 s of device time: longer than any wait here. */
		gate_ = std::make_unique<ChainJob>(fd(), 160, 27);
		ASSERT_EQ(gate_->error(), 0);
		gateDone_ = std::make_unique<Syncobj>(fd());
		ASSERT_EQ(submit(fd(), gate_->submission(gateCtx_.id(), gateDone_->sync())), 0);
	}

	void TearDown() override
	{
		/* The gate's file closes with the fixture: its job is cancelled then. */
		fi_.reset();
	}

	/* Queues on @fd one job per new context, each waiting for the gate; their sync files. */
	std::vector<int> queueBlocked(int fd, std::vector<std::unique_ptr<SmallJob>> &jobs)
	{
		std::vector<int> syncFiles;
		int gateFile = gateDone_->exportSyncFile();
		Syncobj gate(fd);
		if (gateFile < 0 || drmSyncobjImportSyncFile(fd, gate.handle(), gateFile))
			return {};
		::close(gateFile);
		Rng rng(28);
		for (int i = 0; i < kContexts; i++) {
			drm_vdla_ctx_create args = {};
			if (ioctlError(fd, DRM_IOCTL_VDLA_CTX_CREATE, &args))
				return {};
			jobs.push_back(std::make_unique<SmallJob>(fd));
			jobs.back()->prepare(rng, WorkKind::Copy);
			Syncobj out(fd);
			Submission s = jobs.back()->submission(args.ctx_id, out.sync());
			s.inSyncs = { gate.sync() };
			if (submit(fd, s))
				return {};
			syncFiles.push_back(out.exportSyncFile());
		}
		return syncFiles;
	}

	Ctx gateCtx_;
	std::unique_ptr<FaultInjection> fi_;
	std::unique_ptr<ChainJob> gate_;
	std::unique_ptr<Syncobj> gateDone_;
};

TEST_F(BlockedContexts, CloseWaitsOneSecondInAllThenEndsThemWithEsrch)
{
	auto other = std::make_unique<Node>(paths_.front());
	ASSERT_TRUE(other->valid());
	std::vector<std::unique_ptr<SmallJob>> jobs;
	std::vector<int> syncFiles = queueBlocked(other->fd(), jobs);
	ASSERT_EQ(int(syncFiles.size()), kContexts);
	jobs.clear();
	int64_t start = monotonicNs();
	other.reset();
	int64_t closing = monotonicNs() - start;
	/* One second in all, and slack for a slow guest; a second per context would be 6. */
	EXPECT_LT(closing, 3000000000ll) << "close took " << closing / 1000000 << " ms";
	for (int i = 0; i < kContexts; i++) {
		FenceInfo info = syncFileInfo(syncFiles[i]);
		EXPECT_EQ(info.status, -ESRCH) << "job " << i;
		::close(syncFiles[i]);
	}
	EXPECT_FALSE(gateDone_->signalled()) << "the gate job ended too early for this test";
}

TEST_F(BlockedContexts, AProcessEndedByASignalDoesNotWaitForThem)
{
	const std::string path = paths_.front();
	pid_t pid = forkReadyChild([&](const std::function<void()> &ready) -> int {
		Node node(path);
		std::vector<std::unique_ptr<SmallJob>> jobs;
		if (int(queueBlocked(node.fd(), jobs).size()) != kContexts)
			return 2;
		ready();
		return 0;
	});
	ASSERT_GT(pid, 0) << "the child did not queue its jobs";
	int64_t start = monotonicNs();
	ASSERT_EQ(::kill(pid, SIGTERM), 0);
	EXPECT_EQ(waitChild(pid), 128 + SIGTERM);
	int64_t exiting = monotonicNs() - start;
	EXPECT_LT(exiting, 1500000000ll) << "the child took " << exiting / 1000000 << " ms to exit";
	EXPECT_FALSE(gateDone_->signalled()) << "the gate job ended too early for this test";
}

} /* namespace */
} /* namespace guest */
