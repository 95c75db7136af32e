/* SPDX-License-Identifier: MIT */
/*
 * Bounded queues: SUBMITs behind a fence that does not signal yet are held
 * by the kernel, so SUBMIT accepts at most DRM_VDLA_MAX_QUEUED_JOBS_PER_CONTEXT
 * per context, DRM_VDLA_MAX_QUEUED_JOBS_PER_FILE per file and
 * DRM_VDLA_MAX_QUEUED_BYTES_PER_FILE of their kernel memory, then fails with
 * EAGAIN until some end. Before, a loop of such SUBMITs could exhaust the
 * guest's memory (up to ~40 MB of task state per job).
 */
#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <vector>

#include "submit_test.h"

namespace guest {
namespace {

using Limits = SubmitTest;

/* A BDMA job delayed by @delayUs in the device: its out-sync is the gate. */
struct Gate {
	Gate(int fd, int index, unsigned delayUs)
		: fi(index), ctx(fd), job(fd), done(fd)
	{
		Rng rng(77);
		job.prepare(rng, WorkKind::Copy);
		error = fi.set("bdma", "delay", 1, delayUs);
		if (!error)
			error = submit(fd, job.submission(ctx.id(), done.sync()));
	}

	FaultInjection fi;
	Ctx ctx;
	SmallJob job;
	Syncobj done;
	int error = 0;
};

/* Submits @job on @ctx behind @gate until SUBMIT fails; the jobs it took, and the errno. */
int fillQueue(int fd, SmallJob &job, uint32_t ctx, const Gate &gate, int most, int *error)
{
	int accepted = 0;
	for (; accepted < most; accepted++) {
		Submission s = job.submission(ctx);
		s.inSyncs.push_back(gate.done.sync());
		*error = submit(fd, s);
		if (*error)
			break;
	}
	return accepted;
}

TEST_F(Limits, QueuedJobsPerContextAndPerFileAreBounded)
{
	Gate gate(fd(), node_.index(), 4000000);
	ASSERT_EQ(gate.error, 0);
	SmallJob job(fd());
	Rng rng(78);
	job.prepare(rng, WorkKind::Copy);

	std::vector<std::unique_ptr<Ctx>> contexts;
	int total = 0, error = 0;
	for (int c = 0; c < 4; c++) {
		contexts.push_back(std::make_unique<Ctx>(fd()));
		int accepted = fillQueue(fd(), job, contexts.back()->id(), gate,
					 DRM_VDLA_MAX_QUEUED_JOBS_PER_CONTEXT + 10, &error);
		/* The gate's context holds one job of the file: the last context stops short. */
		if (c < 3) {
			EXPECT_EQ(accepted, DRM_VDLA_MAX_QUEUED_JOBS_PER_CONTEXT) << "context " << c;
		} else {
			EXPECT_EQ(accepted, DRM_VDLA_MAX_QUEUED_JOBS_PER_FILE - 1 - total)
				<< "context " << c;
		}
		EXPECT_EQ(error, EAGAIN) << "context " << c;
		total += accepted;
	}
	EXPECT_EQ(total + 1, DRM_VDLA_MAX_QUEUED_JOBS_PER_FILE);
	/* Another file is not held back by this one. */
	{
		Node other(paths_.front());
		Ctx ctx(other.fd());
		SmallJob otherJob(other.fd());
		otherJob.prepare(rng, WorkKind::Copy);
		EXPECT_TRUE(runJob(otherJob, ctx.id(), 20000));
	}

	/* Once the gate opens and the jobs end, the queues take jobs again. */
	EXPECT_TRUE(fenceSucceeds(gate.done, 20000));
	Syncobj last(fd());
	EXPECT_TRUE(waitUntil(
		[&] { return submit(fd(), job.submission(contexts[0]->id(), last.sync())) == 0; },
		30000, 20));
	EXPECT_TRUE(fenceSucceeds(last, 30000));
	EXPECT_TRUE(job.check());
}

/* Jobs of many operations hold much task state: the file's bytes are bounded too. */
TEST_F(Limits, KernelMemoryOfQueuedJobsPerFileIsBounded)
{
	auto baseline = objectCounts(node_.index());
	{
		Node node(paths_.front());
		Gate gate(node.fd(), node.index(), 3000000);
		ASSERT_EQ(gate.error, 0);
		Ctx ctx(node.fd());
		Bo src(node.fd(), 4096), dst(node.fd(), 4096);
		ASSERT_EQ(src.error(), 0);
		ASSERT_EQ(dst.error(), 0);
		int accepted = 0, error = 0;
		std::vector<std::unique_ptr<HandJob>> jobs;
		for (; accepted < 64; accepted++) {
			jobs.push_back(std::make_unique<HandJob>(node.fd(), ctx.id()));
			HandJob &job = *jobs.back();
			uint16_t in = job.add(src), out = job.add(dst, DRM_VDLA_ADDRESS_FLAG_WRITE);
			for (int op = 0; op < 8192; op++)
				job.task.copy(in, op % 4096, out, op % 4096, 1);
			job.submission.inSyncs.push_back(gate.done.sync());
			error = job.submit();
			if (error)
				break;
		}
		EXPECT_EQ(error, EAGAIN);
		EXPECT_GE(accepted, 1);
		EXPECT_LT(accepted, 64) << "64 jobs of 8192 operations fit in the bound";
		/* Closing the file cancels the held jobs and releases everything. */
		jobs.clear();
		node.close();
	}
	EXPECT_TRUE(countsReturnTo(node_.index(), baseline, 20000)) << "after closing";
}

} /* namespace */
} /* namespace guest */
