/* SPDX-License-Identifier: MIT */
/*
 * Failures and their containment: a hung job (timeout, reset, banned
 * context), an injected operation error, duplicate interrupts, an MMU
 * fault on a read-only import, a killed process and a closed file with
 * jobs queued and running. Other contexts' jobs stay correct throughout,
 * and the driver's object counts (debugfs state) come back.
 */
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include <xf86drm.h>

#include "submit_test.h"
#include "vdla_regs.h"

namespace guest {
namespace {

using namespace std::chrono_literals;

using Recovery = SubmitTest;

TEST_F(Recovery, HungJobTimesOutResetsAndBansItsContext)
{
	ParamOverride timeout("job_timeout_ms", "500");
	ASSERT_EQ(timeout.error(), 0);
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "hang", 1), 0);
	auto before = readState(node_.index());
	Ctx bad(fd()), good(fd());
	Rng rng(91);

	SmallJob hung(fd()), other(fd());
	hung.prepare(rng, WorkKind::Copy);
	other.prepare(rng, WorkKind::Sdp);
	Syncobj hungDone(fd()), otherDone(fd());
	int64_t start = monotonicNs();
	ASSERT_EQ(submit(fd(), hung.submission(bad.id(), hungDone.sync())), 0);
	ASSERT_EQ(submit(fd(), other.submission(good.id(), otherDone.sync())), 0);

	EXPECT_TRUE(fenceFails(hungDone, ETIMEDOUT));
	int64_t elapsed = monotonicNs() - start;
	EXPECT_GE(elapsed, 450000000ll) << "timed out before job_timeout_ms";
	EXPECT_LT(elapsed, 4000000000ll) << "job_timeout_ms=500 was not applied";
	EXPECT_TRUE(fenceSucceeds(otherDone)) << "another context's job after the reset";
	EXPECT_TRUE(other.check());

	drm_vdla_ctx_query q = bad.query();
	EXPECT_EQ(q.state, uint32_t(DRM_VDLA_CTX_STATE_BANNED));
	EXPECT_EQ(q.last_error, -ETIMEDOUT);
	EXPECT_EQ(q.jobs_failed, 1u);
	EXPECT_EQ(q.jobs_completed, 0u);
	EXPECT_EQ(submit(fd(), hung.submission(bad.id())), ECANCELED);
	EXPECT_EQ(good.query().state, uint32_t(DRM_VDLA_CTX_STATE_ACTIVE));

	auto after = readState(node_.index());
	EXPECT_GE(after["resets"], before["resets"] + 1);
	EXPECT_GE(after["timeouts"], before["timeouts"] + 1);
	EXPECT_GE(after["jobs_failed"], before["jobs_failed"] + 1);

	/* The device works after the reset, BDMA included. */
	for (auto kind : { WorkKind::Copy, WorkKind::ConvSdp, WorkKind::CopySdp }) {
		other.prepare(rng, kind);
		EXPECT_TRUE(runJob(other, good.id()));
	}
	Ctx fresh(fd());
	EXPECT_TRUE(runJob(hung, fresh.id()));
}

/*
 * DROP_IRQ: the device finishes the job's last operation but neither sets
 * its DONE bit nor sends the message. The watchdog reads the device before
 * it judges: the job completes with 0 and nothing is banned or reset (it
 * was aborted with ETIMEDOUT, its context banned, although its output was
 * there).
 */
TEST_F(Recovery, AJobWhoseLastInterruptIsLostCompletes)
{
	ParamOverride timeout("job_timeout_ms", "300");
	ASSERT_EQ(timeout.error(), 0);
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "drop_irq", 1), 0);
	auto before = readState(node_.index());
	Ctx ctx(fd());
	Rng rng(92);
	SmallJob job(fd());
	job.prepare(rng, WorkKind::Copy);
	Syncobj done(fd());
	ASSERT_EQ(submit(fd(), job.submission(ctx.id(), done.sync())), 0);
	EXPECT_TRUE(fenceSucceeds(done));
	EXPECT_TRUE(job.check());

	drm_vdla_ctx_query q = ctx.query();
	EXPECT_EQ(q.state, uint32_t(DRM_VDLA_CTX_STATE_ACTIVE));
	EXPECT_EQ(q.jobs_completed, 1u);
	EXPECT_EQ(q.jobs_failed, 0u);
	auto after = readState(node_.index());
	EXPECT_EQ(after["timeouts"], before["timeouts"]);
	EXPECT_EQ(after["resets"], before["resets"]);
	EXPECT_TRUE(runJob(job, ctx.id())) << "the next job";
}

/*
 * The jobs queued behind a job that gets its context banned are cancelled;
 * CTX_QUERY still says why the context was banned (last_error and
 * hw_error describe the same job).
 */
/*
 * A descriptor rewritten after SUBMIT, while the job waits, to a task of
 * more operations writing elsewhere: the job runs what SUBMIT checked (the
 * firmware does not read the descriptor again), so only the first copy is
 * made. (It used to be read again when the job started, and refused.)
 */
TEST_F(Recovery, ADescriptorRewrittenAfterSubmitRunsAsSubmitted)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 1, 300000), 0);
	Ctx slowCtx(fd()), ctx(fd());
	Bo a(fd(), 4096), b(fd(), 4096);
	HandJob slow(fd(), slowCtx.id());
	uint16_t from = slow.add(a), to = slow.add(b, DRM_VDLA_ADDRESS_FLAG_WRITE);
	slow.task.copy(from, 0, to, 0, 64);
	ASSERT_EQ(slow.submit(), 0);

	ASSERT_NE(a.map(), nullptr);
	ASSERT_NE(b.map(), nullptr);
	for (int i = 0; i < 64; i++)
		a.map()[i] = uint8_t(i + 1);
	std::memset(b.map(), 0, 256);

	HandJob rewritten(fd(), ctx.id());
	from = rewritten.add(a);
	to = rewritten.add(b, DRM_VDLA_ADDRESS_FLAG_WRITE);
	rewritten.task.copy(from, 0, to, 64, 64);
	rewritten.submission.inSyncs = { slow.done.sync() };
	ASSERT_EQ(rewritten.submit(), 0);
	/* Three copies to 128 now, in the same descriptor BO (its page holds them). */
	TaskWriter other;
	for (int i = 0; i < 3; i++)
		other.copy(from, 0, to, 128, 64);
	ASSERT_TRUE(other.write(rewritten.desc.map(), rewritten.desc.size()));
	ASSERT_FALSE(slow.done.signalled()) << "the slow job ended before the rewrite";

	EXPECT_TRUE(fenceSucceeds(slow.done));
	EXPECT_TRUE(fenceSucceeds(rewritten.done));
	EXPECT_EQ(0, std::memcmp(b.map() + 64, a.map(), 64)) << "the submitted copy";
	EXPECT_EQ(std::vector<uint8_t>(b.map() + 128, b.map() + 192), std::vector<uint8_t>(64, 0))
		<< "a copy of the rewritten descriptor ran";
	drm_vdla_ctx_query q = ctx.query();
	EXPECT_EQ(q.state, uint32_t(DRM_VDLA_CTX_STATE_ACTIVE));
	EXPECT_EQ(q.last_error, 0);
	SmallJob next(fd());
	Rng rng(93);
	next.prepare(rng, WorkKind::Sdp);
	EXPECT_TRUE(runJob(next, ctx.id())) << "the context still works";
}

TEST_F(Recovery, QueuedJobsOfABannedContextAreCancelled)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("sdp", "op_error", 1), 0);
	/* The failing job's copy is slow, so that the others queue behind it. */
	ASSERT_EQ(fi.set("bdma", "delay", 1, 200000), 0);
	Ctx ctx(fd()), other(fd());
	Rng rng(98);
	SmallJob failing(fd()), behind1(fd()), behind2(fd()), elsewhere(fd());
	failing.prepare(rng, WorkKind::CopySdp);
	behind1.prepare(rng, WorkKind::Copy);
	behind2.prepare(rng, WorkKind::Conv);
	elsewhere.prepare(rng, WorkKind::Conv);
	Syncobj failingDone(fd()), done1(fd()), done2(fd()), elsewhereDone(fd());
	ASSERT_EQ(submit(fd(), failing.submission(ctx.id(), failingDone.sync())), 0);
	ASSERT_EQ(submit(fd(), behind1.submission(ctx.id(), done1.sync())), 0);
	ASSERT_EQ(submit(fd(), behind2.submission(ctx.id(), done2.sync())), 0);
	ASSERT_EQ(submit(fd(), elsewhere.submission(other.id(), elsewhereDone.sync())), 0);

	EXPECT_TRUE(fenceFails(failingDone, EIO));
	EXPECT_TRUE(fenceFails(done1, ECANCELED));
	EXPECT_TRUE(fenceFails(done2, ECANCELED));
	EXPECT_TRUE(fenceSucceeds(elsewhereDone));
	EXPECT_TRUE(elsewhere.check());
	for (SmallJob *job : { &behind1, &behind2 }) {
		const uint8_t *out = job->bo(SmallJob::kOut).map();
		EXPECT_EQ(std::count(out, out + SmallJob::kCheckBytes, kCanary),
			ptrdiff_t(SmallJob::kCheckBytes))
			<< "a cancelled job ran";
	}
	drm_vdla_ctx_query q = ctx.query();
	EXPECT_EQ(q.state, uint32_t(DRM_VDLA_CTX_STATE_BANNED));
	EXPECT_EQ(q.jobs_failed, 3u);
	EXPECT_EQ(q.hw_error, uint32_t(VDLA_ERROR_INJECTED));
	EXPECT_EQ(q.last_error, -EIO) << "the cancellations hid why the context was banned";
}

TEST_F(Recovery, InjectedOperationErrorFailsWithEio)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("sdp", "op_error", 1), 0);
	long opErrors = readState(node_.index())["op_errors"];
	Ctx ctx(fd());
	SmallJob job(fd());
	Rng rng(92);
	job.prepare(rng, WorkKind::CopySdp);
	Syncobj done(fd());
	ASSERT_EQ(submit(fd(), job.submission(ctx.id(), done.sync())), 0);
	EXPECT_TRUE(fenceFails(done, EIO));
	drm_vdla_ctx_query q = ctx.query();
	EXPECT_EQ(q.state, uint32_t(DRM_VDLA_CTX_STATE_BANNED));
	EXPECT_EQ(q.last_error, -EIO);
	EXPECT_EQ(q.hw_error, uint32_t(VDLA_ERROR_INJECTED));
	EXPECT_EQ(q.error_op, 1u) << "the SDP is op 1";
	const uint8_t *out = job.bo(SmallJob::kOut).map();
	EXPECT_EQ(std::count(out, out + SmallJob::kCheckBytes, kCanary),
		ptrdiff_t(SmallJob::kCheckBytes))
		<< "the failed operation wrote its output";
	EXPECT_EQ(submit(fd(), job.submission(ctx.id())), ECANCELED);
	EXPECT_GE(readState(node_.index())["op_errors"], opErrors + 1);

	Ctx fresh(fd());
	job.prepare(rng, WorkKind::CopySdp);
	EXPECT_TRUE(runJob(job, fresh.id()));
}

TEST_F(Recovery, DuplicateInterruptsAreHarmless)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("sdp", "dup_irq", 4), 0);
	ASSERT_EQ(fi.set("conv", "dup_irq", 2), 0);
	Ctx ctx(fd());
	SmallJob job(fd());
	Rng rng(93);
	for (auto kind : { WorkKind::Sdp, WorkKind::ConvSdp, WorkKind::CopySdp, WorkKind::Conv,
		     WorkKind::Sdp }) {
		job.prepare(rng, kind);
		EXPECT_TRUE(runJob(job, ctx.id()));
	}
	EXPECT_EQ(ctx.query().state, uint32_t(DRM_VDLA_CTX_STATE_ACTIVE));
}

/*
 * A file imports another's BO read-only and a job writes it anyway (not
 * marked for writing, so SUBMIT cannot refuse it): the device MMU faults,
 * the BO is untouched, the job's context is banned, and another context's
 * jobs queued around it all run correctly.
 */
TEST_F(Recovery, ReadOnlyImportWrittenFaultsOnlyItsContext)
{
	long faults = readState(node_.index())["mmu_faults"];
	Bo x(fd(), 4096);
	ASSERT_EQ(x.error(), 0);
	x.fill(kCanary);
	int dmabuf = x.exportFd();
	ASSERT_GE(dmabuf, 0);
	Node other(paths_.front());
	Bo ro = Bo::importVdla(other.fd(), dmabuf, DRM_VDLA_BO_IMPORT_FLAG_READ_ONLY);
	::close(dmabuf);
	ASSERT_EQ(ro.error(), 0);

	Ctx bad(other.fd()), otherGood(other.fd()), good(fd());
	Rng rng(94);
	Bo in(other.fd(), 4096), tmp(other.fd(), 4096);
	in.fill(0x3c);
	HandJob writer(other.fd(), bad.id());
	uint16_t ei = writer.add(in), et = writer.add(tmp, DRM_VDLA_ADDRESS_FLAG_WRITE),
		 er = writer.add(ro);
	Tensor t = vdla_testdata::randomFull(rng, VDLA_DTYPE_INT8, 1, 1, 4, 16);
	storeTensor(in.map(), t);
	vdla_ref::SdpParams p = randomSdpParams(rng);
	uint16_t s = writer.task.sdp(encodeSdp(surfaceOf(ei, 0, t), surfaceOf(et, 0, t), p));
	uint16_t c = writer.task.copy(ei, 0, er, 128, 64);
	writer.task.link(s, c);
	ASSERT_EQ(writer.finish(), 0);

	std::vector<std::unique_ptr<SmallJob>> jobs;
	std::vector<Syncobj> done;
	auto submitGood = [&](int count) {
		for (int i = 0; i < count; i++) {
			jobs.push_back(std::make_unique<SmallJob>(fd()));
			jobs.back()->prepare(rng, WorkKind(1 + jobs.size() % 6));
			done.emplace_back(fd());
			ASSERT_EQ(submit(fd(),
					  jobs.back()->submission(good.id(), done.back().sync())),
				0);
		}
	};
	submitGood(5);
	ASSERT_EQ(writer.submit(), 0);
	submitGood(5);

	EXPECT_TRUE(fenceFails(writer.done, EFAULT));
	drm_vdla_ctx_query q = bad.query();
	EXPECT_EQ(q.state, uint32_t(DRM_VDLA_CTX_STATE_BANNED));
	EXPECT_EQ(q.last_error, -EFAULT);
	EXPECT_EQ(q.hw_error, uint32_t(VDLA_ERROR_MMU_FAULT));
	EXPECT_EQ(q.error_op, 1u) << "the copy is op 1";
	uint32_t expected = VDLA_MMU_FAULT_VALID | VDLA_MMU_FAULT_WRITE
		| (VDLA_MMU_FAULT_READ_ONLY << VDLA_MMU_FAULT_REASON_SHIFT)
		| (VDLA_ENGINE_BDMA << VDLA_MMU_FAULT_ENGINE_SHIFT);
	EXPECT_EQ(q.fault_status & ~VDLA_MMU_FAULT_CONTEXT_MASK, expected)
		<< std::hex << q.fault_status;
	EXPECT_GE(q.fault_addr, ro.address() + 128) << std::hex << q.fault_addr;
	EXPECT_LT(q.fault_addr, ro.address() + 192) << std::hex << q.fault_addr;
	EXPECT_EQ(std::count(x.map(), x.map() + x.size(), kCanary), ptrdiff_t(x.size()))
		<< "the read-only BO was written";
	EXPECT_EQ(submit(other.fd(), writer.submission), ECANCELED);
	EXPECT_GE(readState(node_.index())["mmu_faults"], faults + 1);

	for (size_t i = 0; i < jobs.size(); i++) {
		EXPECT_TRUE(fenceSucceeds(done[i])) << "job " << i;
		EXPECT_TRUE(jobs[i]->check()) << "job " << i;
	}
	EXPECT_EQ(good.query().state, uint32_t(DRM_VDLA_CTX_STATE_ACTIVE));
	/* The faulting file's other context works too. */
	SmallJob after(other.fd());
	after.prepare(rng, WorkKind::Conv);
	EXPECT_TRUE(runJob(after, otherGood.id()));
}

/*
 * A process with jobs queued (ready for the device, and held back by an
 * in-sync) is killed. Its jobs all end: the ready ones ran or were
 * cancelled, the held ones end with ESRCH. Another process's jobs run
 * correctly meanwhile, and every BO, mapping, job and context the killed
 * process had is released.
 */
TEST_F(Recovery, KilledProcessReleasesEverything)
{
	const int index = node_.index();
	FaultInjection fi(index);
	ASSERT_EQ(fi.set("bdma", "delay", 0, 30000), 0);
	auto baseline = objectCounts(index);
	for (const auto &[key, value] : baseline)
		ASSERT_GE(value, 0) << "debugfs state has no " << key;

	/* Our work: a long gate job (about 2.4 s), then small jobs. */
	Ctx ctx(fd());
	auto gate = std::make_unique<ChainJob>(fd(), 80, 95);
	ASSERT_EQ(gate->error(), 0);
	Syncobj gateDone(fd());
	Rng rng(95);
	std::vector<std::unique_ptr<SmallJob>> ours;
	for (int i = 0; i < 6; i++) {
		ours.push_back(std::make_unique<SmallJob>(fd()));
		ASSERT_EQ(ours.back()->error(), 0);
		ours.back()->prepare(rng, WorkKind(2 + i % 5));
	}
	/* The child's out-syncs, shared so that its fences outlive it. */
	constexpr int kChildJobs = 20, kHeld = 10;
	std::vector<Syncobj> childDone;
	std::vector<int> childFds;
	for (int i = 0; i < kChildJobs; i++) {
		childDone.emplace_back(fd());
		childFds.push_back(childDone.back().exportFd());
		ASSERT_GE(childFds.back(), 0);
	}
	ASSERT_EQ(submit(fd(), gate->submission(ctx.id(), gateDone.sync())), 0);
	int gateFd = gateDone.exportFd();
	ASSERT_GE(gateFd, 0);

	const std::string path = paths_.front();
	pid_t pid = forkReadyChild([&](const std::function<void()> &ready) -> int {
		Node node(path);
		Ctx cctx(node.fd(), DRM_VDLA_PRIORITY_HIGH);
		uint32_t gateHandle = 0;
		if (drmSyncobjFDToHandle(node.fd(), gateFd, &gateHandle))
			return 2;
		Rng crng(96);
		std::vector<std::unique_ptr<SmallJob>> jobs;
		std::vector<Submission> submissions;
		for (int i = 0; i < kChildJobs; i++) {
			uint32_t handle = 0;
			if (drmSyncobjFDToHandle(node.fd(), childFds[i], &handle))
				return 3;
			jobs.push_back(std::make_unique<SmallJob>(node.fd()));
			jobs.back()->prepare(crng, WorkKind::Copy);
			drm_vdla_sync out = {};
			out.handle = handle;
			submissions.push_back(jobs.back()->submission(cctx.id(), out));
			/* The last ones wait for the parent's gate job. */
			if (i >= kChildJobs - kHeld) {
				drm_vdla_sync in = {};
				in.handle = gateHandle;
				submissions.back().inSyncs = { in };
			}
		}
		for (const auto &s : submissions)
			if (submit(node.fd(), s))
				return 4;
		ready();
		return 0;
	});
	ASSERT_GT(pid, 0) << "the child did not submit its jobs";
	::close(gateFd);
	for (int fdToClose : childFds)
		::close(fdToClose);

	std::vector<Syncobj> ourDone;
	for (auto &job : ours) {
		ourDone.emplace_back(fd());
		ASSERT_EQ(submit(fd(), job->submission(ctx.id(), ourDone.back().sync())), 0);
	}
	std::this_thread::sleep_for(50ms);
	EXPECT_FALSE(gateDone.signalled()) << "the gate job ended too early for this test";
	ASSERT_EQ(::kill(pid, SIGKILL), 0);
	EXPECT_EQ(waitChild(pid), 128 + SIGKILL);

	for (int i = 0; i < kChildJobs; i++) {
		EXPECT_EQ(childDone[i].wait(20000), 0)
			<< "the killed process's job " << i << " never ended";
		int status = childDone[i].fence().status;
		if (i < kChildJobs - kHeld)
			EXPECT_TRUE(status == 1 || status == -ECANCELED)
				<< "job " << i << ": " << status;
		else
			EXPECT_EQ(status, -ESRCH) << "job " << i << ", held by its in-sync";
	}
	EXPECT_TRUE(fenceSucceeds(gateDone, 30000));
	EXPECT_TRUE(gate->check());
	for (size_t i = 0; i < ours.size(); i++) {
		EXPECT_TRUE(fenceSucceeds(ourDone[i], 30000)) << "our job " << i;
		EXPECT_TRUE(ours[i]->check()) << "our job " << i;
	}
	fi.clear();

	/* Without our own objects, the counts are those of before. */
	gate.reset();
	ours.clear();
	ctx.destroy();
	EXPECT_TRUE(countsReturnTo(index, baseline, 20000)) << "after the child's death";
}

/*
 * Closing a file with jobs queued cancels them (ECANCELED), and everything
 * of the file is released.
 */
TEST_F(Recovery, ClosingAFileCancelsItsJobsAndReleasesEverything)
{
	const int index = node_.index();
	FaultInjection fi(index);
	ASSERT_EQ(fi.set("bdma", "delay", 0, 40000), 0);
	auto baseline = objectCounts(index);
	for (const auto &[key, value] : baseline)
		ASSERT_GE(value, 0) << "debugfs state has no " << key;

	constexpr int kJobs = 10;
	std::vector<int> syncFiles;
	{
		Node other(paths_.front());
		ASSERT_TRUE(other.valid());
		Ctx ctx(other.fd());
		Rng rng(97);
		std::vector<std::unique_ptr<SmallJob>> jobs;
		for (int i = 0; i < kJobs; i++) {
			jobs.push_back(std::make_unique<SmallJob>(other.fd()));
			ASSERT_EQ(jobs.back()->error(), 0);
			jobs.back()->prepare(rng, WorkKind::Copy);
			Syncobj done(other.fd());
			ASSERT_EQ(
				submit(other.fd(), jobs.back()->submission(ctx.id(), done.sync())),
				0);
			syncFiles.push_back(done.exportSyncFile());
			ASSERT_GE(syncFiles.back(), 0);
		}
		auto during = objectCounts(index);
		EXPECT_GE(during["bos"], baseline["bos"] + 5 * kJobs);
		EXPECT_GE(during["contexts"], baseline["contexts"] + 1);
		EXPECT_GE(during["jobs"], baseline["jobs"] + 1);
		/*
		 * Mappings keep the file open: unmap (and close the handles)
		 * first. The context is left to the file's release.
		 */
		jobs.clear();
		other.close();
	}

	for (int i = 0; i < kJobs; i++) {
		bool ended
			= waitUntil([&] { return syncFileInfo(syncFiles[i]).status != 0; }, 20000);
		EXPECT_TRUE(ended) << "job " << i << " of the closed file never ended";
	}
	FenceInfo last = syncFileInfo(syncFiles.back());
	EXPECT_EQ(last.status, -ECANCELED) << "a queued job of a closed file";
	for (int i = 0; i < kJobs; i++) {
		int status = syncFileInfo(syncFiles[i]).status;
		EXPECT_TRUE(status == 1 || status == -ECANCELED) << "job " << i << ": " << status;
		::close(syncFiles[i]);
	}
	fi.clear();

	EXPECT_TRUE(countsReturnTo(index, baseline, 20000)) << "after the close";
}

} /* namespace */
} /* namespace guest */
