/* SPDX-License-Identifier: MIT */
/*
 * Explicit and implicit synchronisation: in-syncs across contexts, devices
 * and processes, timeline points, wait timeouts, and BOs shared between
 * processes without any syncobj. A long job is a ChainJob whose BDMA
 * operations fault injection slows down.
 */
#include <gtest/gtest.h>

#include <fcntl.h>
#include <linux/sync_file.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include <xf86drm.h>

#include "submit_test.h"

namespace guest {
namespace {

using Fences = SubmitTest;

/* A job of @fd copying the last slice of @chain (seen as @slices there) to @out. */
HandJob copyLastSlice(int fd, uint32_t ctx, const ChainJob &chain, const Bo &slices, const Bo &out)
{
	HandJob job(fd, ctx);
	uint16_t s = job.add(slices), o = job.add(out, DRM_VDLA_ADDRESS_FLAG_WRITE);
	job.task.copy(s, chain.lastSliceOffset(), o, 0, ChainJob::kSliceBytes);
	return job;
}

TEST_F(Fences, InSyncOrdersJobsAcrossContexts)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 50000), 0);
	Ctx low(fd(), DRM_VDLA_PRIORITY_LOW), high(fd(), DRM_VDLA_PRIORITY_HIGH);
	ChainJob a(fd(), 4, 61);
	ASSERT_EQ(a.error(), 0);
	Syncobj aDone(fd());

	/*
	 * B shares nothing with A: only its in-sync holds it back (its high
	 * priority would otherwise preempt A). C reads A's output.
	 */
	SmallJob b(fd());
	ASSERT_EQ(b.error(), 0);
	Rng rng(62);
	b.prepare(rng, WorkKind::Sdp);
	Syncobj bDone(fd());
	Submission bs = b.submission(high.id(), bDone.sync());
	bs.inSyncs = { aDone.sync() };
	Bo out(fd(), 4096);
	out.fill(kCanary);
	HandJob c = copyLastSlice(fd(), high.id(), a, a.slices(), out);
	c.submission.inSyncs = { aDone.sync() };
	ASSERT_EQ(c.finish(), 0);

	ASSERT_EQ(submit(fd(), a.submission(low.id(), aDone.sync())), 0);
	ASSERT_EQ(submit(fd(), bs), 0);
	ASSERT_EQ(c.submit(), 0);
	EXPECT_FALSE(bDone.signalled()) << "B ended before A's fence could have signalled";

	EXPECT_TRUE(fenceSucceeds(aDone));
	EXPECT_TRUE(fenceSucceeds(bDone));
	EXPECT_TRUE(fenceSucceeds(c.done));
	EXPECT_GE(bDone.fence().timestampNs, aDone.fence().timestampNs) << "B ended before A";
	EXPECT_GE(c.done.fence().timestampNs, aDone.fence().timestampNs) << "C ended before A";
	EXPECT_TRUE(a.check());
	EXPECT_TRUE(b.check());
	std::vector<uint8_t> expected(4096, kCanary), last = a.expectedLastSlice();
	std::copy(last.begin(), last.end(), expected.begin());
	EXPECT_TRUE(sameBytes(expected.data(), out.map(), 4096, "C's copy of A's output"));
}

TEST_F(Fences, InSyncFromAnotherDevice)
{
	if (paths_.size() < 2)
		GTEST_SKIP() << "needs two vDLAs";
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 60000), 0);
	Ctx ctx(fd());
	ChainJob a(fd(), 3, 63);
	ASSERT_EQ(a.error(), 0);
	Syncobj aDone(fd());

	Node second(paths_[1]);
	ASSERT_TRUE(second.valid());
	int syncFd = aDone.exportFd();
	ASSERT_GE(syncFd, 0) << std::strerror(-syncFd);
	uint32_t imported = 0;
	ASSERT_EQ(drmSyncobjFDToHandle(second.fd(), syncFd, &imported), 0);
	::close(syncFd);
	Syncobj aThere = Syncobj::adopt(second.fd(), imported);
	int dmabuf = a.slices().exportFd();
	ASSERT_GE(dmabuf, 0);
	Bo slicesThere = Bo::import(second.fd(), dmabuf);
	::close(dmabuf);
	ASSERT_EQ(slicesThere.error(), 0);

	Ctx ctx2(second.fd(), DRM_VDLA_PRIORITY_HIGH);
	Bo out(second.fd(), 4096);
	out.fill(kCanary);
	HandJob b = copyLastSlice(second.fd(), ctx2.id(), a, slicesThere, out);
	b.submission.inSyncs = { aThere.sync() };
	ASSERT_EQ(b.finish(), 0);

	ASSERT_EQ(submit(fd(), a.submission(ctx.id(), aDone.sync())), 0);
	ASSERT_EQ(b.submit(), 0);
	EXPECT_TRUE(fenceSucceeds(b.done));
	EXPECT_TRUE(aDone.signalled()) << "the job on the other device ended before its in-sync";
	EXPECT_TRUE(fenceSucceeds(aDone));
	EXPECT_GE(b.done.fence().timestampNs, aDone.fence().timestampNs);
	std::vector<uint8_t> expected(4096, kCanary), last = a.expectedLastSlice();
	std::copy(last.begin(), last.end(), expected.begin());
	EXPECT_TRUE(sameBytes(expected.data(), out.map(), 4096, "copy on the other device"));
}

TEST_F(Fences, SubmitDoesNotWaitForInSyncs)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 100000), 0);
	Ctx ctx(fd()), ctx2(fd());
	ChainJob a(fd(), 5, 64);
	ASSERT_EQ(a.error(), 0);
	Syncobj aDone(fd());
	SmallJob b(fd());
	Rng rng(65);
	b.prepare(rng, WorkKind::Conv);
	Syncobj bDone(fd());
	Submission bs = b.submission(ctx2.id(), bDone.sync());
	bs.inSyncs = { aDone.sync() };

	ASSERT_EQ(submit(fd(), a.submission(ctx.id(), aDone.sync())), 0);
	int64_t start = monotonicNs();
	ASSERT_EQ(submit(fd(), bs), 0);
	EXPECT_LT(monotonicNs() - start, 100000000ll) << "SUBMIT waited for its in-sync";
	EXPECT_FALSE(aDone.signalled()) << "the long job ended too early for this test";
	EXPECT_TRUE(fenceSucceeds(bDone));
	EXPECT_TRUE(b.check());
	EXPECT_TRUE(a.check());
}

/*
 * A child process gets the sync file of the parent's job and the dma-buf of
 * its output through a unix socket; its job waits for the sync file and
 * copies the output. It sends back when its job signalled.
 */
TEST_F(Fences, InSyncAcrossProcessesThroughAUnixSocket)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 60000), 0);
	Ctx ctx(fd());
	ChainJob a(fd(), 4, 66);
	ASSERT_EQ(a.error(), 0);
	const std::vector<uint8_t> last = a.expectedLastSlice();
	const uint64_t lastOffset = a.lastSliceOffset();
	const std::string path = paths_.front();

	int sv[2];
	ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	pid_t pid = forkChild([&]() -> int {
		::close(sv[0]);
		std::vector<int> fds = receiveFds(sv[1], 2);
		if (fds.size() != 2) {
			std::fprintf(stderr, "child: no fds received\n");
			return 2;
		}
		Node node(path);
		Syncobj wait(node.fd());
		if (drmSyncobjImportSyncFile(node.fd(), wait.handle(), fds[0])) {
			std::fprintf(stderr, "child: sync file import: %s\n", std::strerror(errno));
			return 3;
		}
		Bo shared = Bo::import(node.fd(), fds[1]);
		Ctx cctx(node.fd(), DRM_VDLA_PRIORITY_HIGH);
		Bo out(node.fd(), 4096);
		if (shared.error() || cctx.error() || out.error() || !out.map()) {
			std::fprintf(stderr, "child: setup failed\n");
			return 4;
		}
		out.fill(kCanary);
		HandJob b(node.fd(), cctx.id());
		uint16_t s = b.add(shared), o = b.add(out, DRM_VDLA_ADDRESS_FLAG_WRITE);
		b.task.copy(s, lastOffset, o, 0, ChainJob::kSliceBytes);
		b.submission.inSyncs = { wait.sync() };
		if (int ret = b.submit()) {
			std::fprintf(stderr, "child: SUBMIT: %s\n", std::strerror(ret));
			return 5;
		}
		if (b.done.wait(kJobTimeoutMs) || b.done.fence().status != 1) {
			std::fprintf(stderr, "child: job failed\n");
			return 6;
		}
		if (std::memcmp(out.map(), last.data(), last.size())) {
			std::fprintf(stderr, "child: wrong data\n");
			return 7;
		}
		uint64_t ts = b.done.fence().timestampNs;
		return ::write(sv[1], &ts, sizeof(ts)) == sizeof(ts) ? 0 : 8;
	});
	ASSERT_GT(pid, 0);
	::close(sv[1]);

	Syncobj aDone(fd());
	ASSERT_EQ(submit(fd(), a.submission(ctx.id(), aDone.sync())), 0);
	int syncFile = aDone.exportSyncFile();
	int dmabuf = a.slices().exportFd();
	ASSERT_GE(syncFile, 0);
	ASSERT_GE(dmabuf, 0);
	EXPECT_EQ(sendFds(sv[0], { syncFile, dmabuf }), 0);
	::close(syncFile);
	::close(dmabuf);
	uint64_t childTs = 0;
	EXPECT_EQ(::read(sv[0], &childTs, sizeof(childTs)), ssize_t(sizeof(childTs)));
	::close(sv[0]);
	EXPECT_EQ(waitChild(pid), 0);
	EXPECT_TRUE(fenceSucceeds(aDone));
	EXPECT_GE(childTs, aDone.fence().timestampNs) << "the child's job ended before its in-sync";
	EXPECT_TRUE(a.check());
}

/*
 * A child process imports the parent's output BO (a dma-buf fd it
 * inherited) and reads it with no syncobj at all, while the parent's job
 * still writes it: the implicit fence orders them.
 */
TEST_F(Fences, ImplicitFenceAcrossProcesses)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 80000), 0);
	Ctx ctx(fd());
	ChainJob a(fd(), 5, 67);
	ASSERT_EQ(a.error(), 0);
	const std::vector<uint8_t> last = a.expectedLastSlice();
	const uint64_t lastOffset = a.lastSliceOffset();
	const std::string path = paths_.front();
	int dmabuf = a.slices().exportFd();
	ASSERT_GE(dmabuf, 0);
	int go[2];
	ASSERT_EQ(::pipe(go), 0);

	pid_t pid = forkChild([&]() -> int {
		::close(go[1]);
		char byte;
		if (::read(go[0], &byte, 1) != 1)
			return 2;
		Node node(path);
		Bo shared = Bo::import(node.fd(), dmabuf);
		Ctx cctx(node.fd(), DRM_VDLA_PRIORITY_HIGH);
		Bo out(node.fd(), 4096);
		if (shared.error() || cctx.error() || out.error() || !out.map())
			return 3;
		out.fill(kCanary);
		int busy = shared.wait(0);
		if (busy != ETIMEDOUT) {
			std::fprintf(stderr, "child: BO_WAIT(0) on the busy BO: %s\n",
				std::strerror(busy));
			return 4;
		}
		HandJob b(node.fd(), cctx.id());
		uint16_t s = b.add(shared), o = b.add(out, DRM_VDLA_ADDRESS_FLAG_WRITE);
		b.task.copy(s, lastOffset, o, 0, ChainJob::kSliceBytes);
		if (b.submit())
			return 5;
		if (b.done.wait(kJobTimeoutMs) || b.done.fence().status != 1)
			return 6;
		if (std::memcmp(out.map(), last.data(), last.size())) {
			std::fprintf(
				stderr, "child: read the BO before the parent's job wrote it\n");
			return 7;
		}
		return shared.wait(0) == 0 ? 0 : 8;
	});
	ASSERT_GT(pid, 0);
	::close(go[0]);
	::close(dmabuf);

	Syncobj aDone(fd());
	ASSERT_EQ(submit(fd(), a.submission(ctx.id(), aDone.sync())), 0);
	EXPECT_EQ(::write(go[1], "g", 1), 1);
	::close(go[1]);
	EXPECT_EQ(waitChild(pid), 0);
	EXPECT_TRUE(fenceSucceeds(aDone));
	EXPECT_TRUE(a.check());
}

TEST_F(Fences, TimelinePointsSignalInOrder)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 40000), 0);
	Ctx ctx(fd());
	Syncobj timeline(fd());
	Rng rng(68);
	constexpr int kJobs = 6;
	std::vector<std::unique_ptr<SmallJob>> jobs;
	for (int i = 0; i < kJobs; i++) {
		jobs.push_back(std::make_unique<SmallJob>(fd()));
		ASSERT_EQ(jobs.back()->error(), 0);
		jobs.back()->prepare(rng, i % 2 ? WorkKind::Sdp : WorkKind::Copy);
		ASSERT_EQ(submit(fd(), jobs.back()->submission(ctx.id(), timeline.sync(i + 1))), 0);
	}
	EXPECT_LT(timeline.lastPoint(), uint64_t(kJobs));
	ASSERT_EQ(timeline.waitPoint(3, kJobTimeoutMs), 0);
	EXPECT_GE(timeline.lastPoint(), 3u);
	EXPECT_TRUE(timeline.signalled(2));
	EXPECT_TRUE(timeline.signalled(1));
	ASSERT_EQ(timeline.waitPoint(kJobs, kJobTimeoutMs), 0);
	EXPECT_EQ(timeline.lastPoint(), uint64_t(kJobs));

	uint64_t last = 0;
	for (int i = 0; i < kJobs; i++) {
		FenceInfo info = timeline.pointFence(i + 1);
		EXPECT_EQ(info.status, 1) << "point " << i + 1;
		EXPECT_GE(info.timestampNs, last) << "point " << i + 1 << " before " << i;
		last = info.timestampNs;
		EXPECT_TRUE(jobs[i]->check()) << "job " << i;
	}
}

TEST_F(Fences, TimelinePointAsInSync)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 50000), 0);
	Ctx low(fd(), DRM_VDLA_PRIORITY_LOW), high(fd(), DRM_VDLA_PRIORITY_HIGH);
	Syncobj timeline(fd());
	ChainJob a(fd(), 3, 69);
	ASSERT_EQ(a.error(), 0);
	ASSERT_EQ(submit(fd(), a.submission(low.id(), timeline.sync(1))), 0);

	SmallJob b(fd());
	Rng rng(70);
	b.prepare(rng, WorkKind::FusedConvSdp);
	Submission bs = b.submission(high.id(), timeline.sync(2));
	bs.inSyncs = { timeline.sync(1) };
	ASSERT_EQ(submit(fd(), bs), 0);
	/* A point nobody gave a fence yet. */
	bs.inSyncs = { timeline.sync(3) };
	bs.outSync = {};
	EXPECT_EQ(submit(fd(), bs), ENOENT);

	ASSERT_EQ(timeline.waitPoint(2, kJobTimeoutMs), 0);
	EXPECT_EQ(timeline.lastPoint(), 2u);
	EXPECT_GE(timeline.pointFence(2).timestampNs, timeline.pointFence(1).timestampNs);
	EXPECT_TRUE(a.check());
	EXPECT_TRUE(b.check());
}

TEST_F(Fences, WaitsTimeOut)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 400000), 0);
	Ctx ctx(fd());
	SmallJob job(fd());
	Rng rng(71);
	job.prepare(rng, WorkKind::Copy);
	Syncobj binary(fd()), timeline(fd());
	ASSERT_EQ(submit(fd(), job.submission(ctx.id(), binary.sync())), 0);
	SmallJob next(fd());
	next.prepare(rng, WorkKind::Sdp);
	ASSERT_EQ(submit(fd(), next.submission(ctx.id(), timeline.sync(1))), 0);

	int64_t start = monotonicNs();
	EXPECT_EQ(binary.wait(20), -ETIME);
	/*
	 * The DRM core turns the deadline into jiffies (4 ms at HZ=250) and
	 * may end the wait a jiffy early; under TCG a late timer tick makes
	 * jiffies catch up several at once (a CI run measured 13.3 ms). A
	 * wait that did not wait at all (a poll) takes microseconds.
	 */
	EXPECT_GE(monotonicNs() - start, 20000000ll / 2);
	EXPECT_EQ(timeline.waitPoint(1, 20), -ETIME);
	uint32_t handle = binary.handle();
	EXPECT_EQ(drmSyncobjWait(fd(), &handle, 1, 0, 0, nullptr), -ETIME) << "a poll";
	EXPECT_FALSE(binary.signalled());

	EXPECT_TRUE(fenceSucceeds(binary));
	EXPECT_EQ(timeline.waitPoint(1, kJobTimeoutMs), 0);
	EXPECT_TRUE(job.check());
	EXPECT_TRUE(next.check());
}

TEST_F(Fences, CpuSignalledSyncobjsAsInSyncs)
{
	Ctx ctx(fd());
	Syncobj created(fd(), DRM_SYNCOBJ_CREATE_SIGNALED), signalled(fd()), timeline(fd());
	uint32_t h = signalled.handle();
	ASSERT_EQ(drmSyncobjSignal(fd(), &h, 1), 0);
	uint32_t th = timeline.handle();
	uint64_t point = 5;
	ASSERT_EQ(drmSyncobjTimelineSignal(fd(), &th, &point, 1), 0);

	SmallJob job(fd());
	Rng rng(72);
	job.prepare(rng, WorkKind::ConvSdp);
	Syncobj done(fd());
	Submission s = job.submission(ctx.id(), done.sync());
	s.inSyncs = { created.sync(), signalled.sync(), timeline.sync(5), timeline.sync(3) };
	ASSERT_EQ(submit(fd(), s), 0);
	EXPECT_TRUE(fenceSucceeds(done));
	EXPECT_TRUE(job.check());
}

TEST_F(Fences, NoOutSyncIsAllowed)
{
	Ctx ctx(fd());
	SmallJob job(fd());
	Rng rng(73);
	job.prepare(rng, WorkKind::CopySdp);
	ASSERT_EQ(submit(fd(), job.submission(ctx.id())), 0);
	EXPECT_EQ(job.bo(SmallJob::kOut).wait(10000000000ll), 0);
	EXPECT_TRUE(waitUntil([&] { return ctx.query().jobs_completed == 1; }, kJobTimeoutMs));
	EXPECT_TRUE(job.check());
}

/* FENCE_WAIT of @sync at @point: 0 or the errno, and the ioctl's answer. */
int fenceWait(const Syncobj &sync, uint64_t point, int64_t timeoutNs,
	drm_vdla_fence_wait *result = nullptr)
{
	drm_vdla_fence_wait args = {};
	args.handle = sync.handle();
	args.point = point;
	args.timeout_ns = timeoutNs;
	int ret = drmIoctl(sync.fd(), DRM_IOCTL_VDLA_FENCE_WAIT, &args) ? errno : 0;
	if (result)
		*result = args;
	return ret;
}

constexpr int64_t kWaitNs = int64_t(kJobTimeoutMs) * 1000000;

/*
 * FENCE_WAIT answers what a wait and the sync file of the fence answer
 * together: success and failure, binary and timeline, with the time the
 * job's own fence signalled.
 */
TEST_F(Fences, FenceWaitReportsWhatTheSyncFileReports)
{
	Ctx ctx(fd());
	Rng rng(74);
	SmallJob first(fd()), second(fd());
	first.prepare(rng, WorkKind::ConvSdp);
	second.prepare(rng, WorkKind::CopySdp);
	Syncobj binary(fd()), timeline(fd());
	ASSERT_EQ(submit(fd(), first.submission(ctx.id(), binary.sync())), 0);
	ASSERT_EQ(submit(fd(), second.submission(ctx.id(), timeline.sync(1))), 0);

	drm_vdla_fence_wait answer = {};
	ASSERT_EQ(fenceWait(binary, 0, kWaitNs, &answer), 0);
	EXPECT_EQ(answer.error, 0);
	FenceInfo info = binary.fence();
	ASSERT_TRUE(info.ok);
	EXPECT_EQ(answer.timestamp_ns, info.timestampNs);
	ASSERT_EQ(fenceWait(timeline, 1, kWaitNs, &answer), 0);
	EXPECT_EQ(answer.error, 0);
	EXPECT_EQ(answer.timestamp_ns, timeline.pointFence(1).timestampNs);
	EXPECT_LE(answer.timestamp_ns, uint64_t(monotonicNs()));
	EXPECT_TRUE(first.check());
	EXPECT_TRUE(second.check());

	/* A failing job: its error, also at a timeline point. */
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("sdp", "op_error", 1), 0);
	Ctx other(fd());
	SmallJob failing(fd());
	failing.prepare(rng, WorkKind::CopySdp);
	ASSERT_EQ(submit(fd(), failing.submission(other.id(), timeline.sync(2))), 0);
	ASSERT_EQ(fenceWait(timeline, 2, kWaitNs, &answer), 0);
	EXPECT_EQ(answer.error, -EIO);
	info = timeline.pointFence(2);
	EXPECT_EQ(info.status, -EIO);
	EXPECT_EQ(answer.timestamp_ns, info.timestampNs);
}

TEST_F(Fences, FenceWaitTimesOutAndRefusesBadArguments)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 400000), 0);
	Ctx ctx(fd());
	SmallJob job(fd());
	Rng rng(75);
	job.prepare(rng, WorkKind::Copy);
	Syncobj timeline(fd()), never(fd());
	ASSERT_EQ(submit(fd(), job.submission(ctx.id(), timeline.sync(1))), 0);

	EXPECT_EQ(fenceWait(timeline, 1, 0), ETIMEDOUT) << "a poll of a running job";
	int64_t start = monotonicNs();
	EXPECT_EQ(fenceWait(timeline, 1, 20000000), ETIMEDOUT);
	EXPECT_GE(monotonicNs() - start, 20000000ll / 2) << "it waited (see WaitsTimeOut)";

	EXPECT_EQ(fenceWait(timeline, 2, kWaitNs), EINVAL) << "a point not submitted";
	EXPECT_EQ(fenceWait(never, 0, kWaitNs), EINVAL) << "a syncobj without a fence";
	EXPECT_EQ(fenceWait(never, 1, kWaitNs), EINVAL) << "a point of a binary syncobj";
	drm_vdla_fence_wait args = {};
	args.handle = 0xdead;
	EXPECT_EQ(drmIoctl(fd(), DRM_IOCTL_VDLA_FENCE_WAIT, &args) ? errno : 0, ENOENT);
	args.handle = timeline.handle();
	args.point = 1;
	args.flags = 1;
	EXPECT_EQ(drmIoctl(fd(), DRM_IOCTL_VDLA_FENCE_WAIT, &args) ? errno : 0, EINVAL);
	args.flags = 0;
	args.pad = 1;
	EXPECT_EQ(drmIoctl(fd(), DRM_IOCTL_VDLA_FENCE_WAIT, &args) ? errno : 0, EINVAL);
	args.pad = 0;
	args.timeout_ns = -1;
	EXPECT_EQ(drmIoctl(fd(), DRM_IOCTL_VDLA_FENCE_WAIT, &args) ? errno : 0, EINVAL);

	ASSERT_EQ(fenceWait(timeline, 1, kWaitNs), 0);
	EXPECT_TRUE(job.check());
}

/*
 * A timeline merges a signalled point into the next once a lookup walks
 * past it: the point's outcome is gone then, and FENCE_WAIT says so
 * (ENODATA) rather than report the stub the DRM core puts in its place as a
 * success. Asking about a point while a later one is pending is enough:
 * the lookup itself walks past it. A timeline's last point is never merged.
 */
TEST_F(Fences, FenceWaitOfAPointMergedAwayIsEnodata)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("sdp", "op_error", 1), 0);
	Ctx failingCtx(fd()), ctx(fd());
	Rng rng(76);
	SmallJob failing(fd()), next(fd());
	failing.prepare(rng, WorkKind::CopySdp);
	next.prepare(rng, WorkKind::Copy);
	Syncobj timeline(fd());
	ASSERT_EQ(submit(fd(), failing.submission(failingCtx.id(), timeline.sync(1))), 0);
	drm_vdla_fence_wait answer = {};
	ASSERT_EQ(fenceWait(timeline, 1, kWaitNs, &answer), 0) << "the last point is known";
	EXPECT_EQ(answer.error, -EIO);

	/* Point 2, held back by a slow copy: asking about point 1 walks past it. */
	ASSERT_EQ(fi.set("bdma", "delay", 0, 300000), 0);
	ASSERT_EQ(submit(fd(), next.submission(ctx.id(), timeline.sync(2))), 0);
	EXPECT_EQ(fenceWait(timeline, 1, kWaitNs, &answer), ENODATA)
		<< "point 1's failure is gone, not reported as a success";
	ASSERT_EQ(fenceWait(timeline, 2, kWaitNs, &answer), 0);
	EXPECT_EQ(answer.error, 0);
	EXPECT_TRUE(next.check());
}

/*
 * DRM_VDLA_SUBMIT_NO_IMPLICIT: the writer of a BO is held back by an
 * in-sync from a slow job on the second vDLA. A job reading the BO with the
 * flag runs at once (it copies what was there before); the same job without
 * it waits for the writer. The flagged job's own fence still goes on its
 * BOs: BO_WAIT waits for it.
 */
TEST_F(Fences, NoImplicitJobsWaitForTheirInSyncsAlone)
{
	if (paths_.size() < 2)
		GTEST_SKIP() << "needs two vDLAs";
	Node second(paths_[1]);
	ASSERT_TRUE(second.valid());
	FaultInjection slowThere(second.index());
	ASSERT_EQ(slowThere.set("bdma", "delay", 0, 400000), 0);
	Ctx gateCtx(second.fd());
	Bo gateSrc(second.fd(), 4096), gateDst(second.fd(), 4096);
	HandJob gate(second.fd(), gateCtx.id());
	gate.task.copy(gate.add(gateSrc), 0, gate.add(gateDst, DRM_VDLA_ADDRESS_FLAG_WRITE), 0,
		4096);
	ASSERT_EQ(gate.submit(), 0);
	int gateFd = gate.done.exportFd();
	ASSERT_GE(gateFd, 0);
	uint32_t gateHere = 0;
	ASSERT_EQ(drmSyncobjFDToHandle(fd(), gateFd, &gateHere), 0);
	::close(gateFd);
	Syncobj gateDone = Syncobj::adopt(fd(), gateHere);

	Ctx writerCtx(fd()), readerCtx(fd()), implicitCtx(fd());
	Bo src(fd(), 4096), shared(fd(), 4096), early(fd(), 4096), late(fd(), 4096);
	ASSERT_TRUE(src.map() && shared.map() && early.map() && late.map());
	std::memset(src.map(), 0x5a, 4096);
	std::memset(shared.map(), 0x11, 4096);
	HandJob writer(fd(), writerCtx.id());
	writer.task.copy(writer.add(src), 0, writer.add(shared, DRM_VDLA_ADDRESS_FLAG_WRITE), 0,
		4096);
	writer.submission.inSyncs = { gateDone.sync() };
	ASSERT_EQ(writer.submit(), 0);
	HandJob explicitOnly(fd(), readerCtx.id());
	explicitOnly.task.copy(explicitOnly.add(shared), 0,
		explicitOnly.add(early, DRM_VDLA_ADDRESS_FLAG_WRITE), 0, 4096);
	explicitOnly.submission.flags = DRM_VDLA_SUBMIT_NO_IMPLICIT;
	ASSERT_EQ(explicitOnly.submit(), 0);
	HandJob implicit(fd(), implicitCtx.id());
	implicit.task.copy(implicit.add(shared), 0,
		implicit.add(late, DRM_VDLA_ADDRESS_FLAG_WRITE), 0, 4096);
	ASSERT_EQ(implicit.submit(), 0);

	EXPECT_EQ(early.wait(int64_t(kJobTimeoutMs) * 1000000), 0)
		<< "BO_WAIT waits for the flagged job's own fence";
	EXPECT_TRUE(fenceSucceeds(explicitOnly.done));
	EXPECT_FALSE(writer.done.signalled()) << "the flagged job waited for the writer";
	EXPECT_EQ(early.map()[0], 0x11) << "it copied what was there before the writer";
	EXPECT_TRUE(fenceSucceeds(implicit.done));
	EXPECT_TRUE(fenceSucceeds(writer.done));
	EXPECT_EQ(late.map()[4095], 0x5a) << "the job without the flag waited for the writer";
}

/* FENCE_EXPORT of @sync at @point: the sync file, or minus the errno. */
int fenceExport(const Syncobj &sync, uint64_t point)
{
	drm_vdla_fence_export args = {};
	args.handle = sync.handle();
	args.point = point;
	return drmIoctl(sync.fd(), DRM_IOCTL_VDLA_FENCE_EXPORT, &args) ? -errno : args.fd;
}

/* SYNC_IOC_FILE_INFO's status of a sync file: 1, 0 or a negative errno. */
int syncFileStatus(int syncFile)
{
	sync_file_info info = {};
	if (ioctl(syncFile, SYNC_IOC_FILE_INFO, &info))
		return -1000 - errno;
	return info.status;
}

/*
 * FENCE_EXPORT gives a point's own fence as a sync file in one call: a
 * failed job's point reads as failed with FENCE_WAIT's time; the file is
 * close-on-exec, waits like the job and outlives the syncobj.
 */
TEST_F(Fences, FenceExportGivesAPointsOwnOutcome)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("sdp", "op_error", 1), 0);
	Ctx ctx(fd());
	Rng rng(77);
	SmallJob failing(fd());
	failing.prepare(rng, WorkKind::CopySdp);
	auto timeline = std::make_unique<Syncobj>(fd());
	ASSERT_EQ(submit(fd(), failing.submission(ctx.id(), timeline->sync(1))), 0);
	int own = fenceExport(*timeline, 1);
	ASSERT_GE(own, 0) << strerror(-own);
	EXPECT_TRUE(fcntl(own, F_GETFD) & FD_CLOEXEC);
	drm_vdla_fence_wait answer = {};
	ASSERT_EQ(fenceWait(*timeline, 1, kWaitNs, &answer), 0);
	timeline.reset();
	pollfd p = { own, POLLIN, 0 };
	EXPECT_EQ(poll(&p, 1, 0), 1) << "signalled, and alive without its syncobj";
	EXPECT_EQ(syncFileStatus(own), -EIO) << "the failed job's own error";
	sync_fence_info leaf = {};
	sync_file_info info = {};
	info.num_fences = 1;
	info.sync_fence_info = reinterpret_cast<uintptr_t>(&leaf);
	ASSERT_EQ(ioctl(own, SYNC_IOC_FILE_INFO, &info), 0);
	EXPECT_EQ(leaf.timestamp_ns, answer.timestamp_ns) << "FENCE_WAIT's time of the same fence";
	::close(own);

	/* A binary syncobj's fence, and a successful job's point. */
	fi.clear();
	Ctx good(fd());
	SmallJob a(fd()), b(fd());
	a.prepare(rng, WorkKind::Copy);
	b.prepare(rng, WorkKind::CopySdp);
	Syncobj binary(fd()), points(fd());
	ASSERT_EQ(submit(fd(), a.submission(good.id(), binary.sync())), 0);
	ASSERT_EQ(submit(fd(), b.submission(good.id(), points.sync(1))), 0);
	for (auto [sync, point] : { std::pair{ &binary, 0ull }, std::pair{ &points, 1ull } }) {
		int file = fenceExport(*sync, point);
		ASSERT_GE(file, 0) << strerror(-file);
		pollfd q = { file, POLLIN, 0 };
		EXPECT_EQ(poll(&q, 1, kJobTimeoutMs), 1);
		EXPECT_EQ(syncFileStatus(file), 1);
		::close(file);
	}
	EXPECT_TRUE(a.check());
	EXPECT_TRUE(b.check());
}

TEST_F(Fences, FenceExportRefusesBadArgumentsAndForgottenPoints)
{
	FaultInjection fi(node_.index());
	Ctx ctx(fd()), other(fd());
	Rng rng(78);
	SmallJob first(fd()), second(fd());
	first.prepare(rng, WorkKind::Copy);
	second.prepare(rng, WorkKind::Copy);
	Syncobj timeline(fd()), never(fd());
	ASSERT_EQ(submit(fd(), first.submission(ctx.id(), timeline.sync(1))), 0);
	ASSERT_EQ(fenceWait(timeline, 1, kWaitNs), 0);
	EXPECT_TRUE(first.check());

	EXPECT_EQ(fenceExport(timeline, 2), -EINVAL) << "a point not submitted";
	EXPECT_EQ(fenceExport(never, 0), -EINVAL) << "a syncobj without a fence";
	drm_vdla_fence_export args = {};
	args.handle = 0xdead;
	EXPECT_EQ(drmIoctl(fd(), DRM_IOCTL_VDLA_FENCE_EXPORT, &args) ? errno : 0, ENOENT);
	args.handle = timeline.handle();
	args.point = 1;
	args.flags = 1;
	EXPECT_EQ(drmIoctl(fd(), DRM_IOCTL_VDLA_FENCE_EXPORT, &args) ? errno : 0, EINVAL);
	args.flags = 0;
	args.pad = 1;
	EXPECT_EQ(drmIoctl(fd(), DRM_IOCTL_VDLA_FENCE_EXPORT, &args) ? errno : 0, EINVAL);

	/*
	 * Point 1 (a failed job) is merged away once a lookup walks past it:
	 * FENCE_EXPORT says so (ENODATA, as FENCE_WAIT), where the DRM core's
	 * export hands out its signalled stub, which reads as a success.
	 */
	ASSERT_EQ(fi.set("sdp", "op_error", 1), 0);
	Ctx failingCtx(fd());
	SmallJob failing(fd());
	failing.prepare(rng, WorkKind::CopySdp);
	Syncobj failed(fd());
	ASSERT_EQ(submit(fd(), failing.submission(failingCtx.id(), failed.sync(1))), 0);
	ASSERT_EQ(fenceWait(failed, 1, kWaitNs), 0);
	ASSERT_EQ(fi.set("bdma", "delay", 0, 300000), 0);
	ASSERT_EQ(submit(fd(), second.submission(other.id(), failed.sync(2))), 0);
	EXPECT_EQ(fenceExport(failed, 1), -ENODATA);
	EXPECT_EQ(failed.pointFence(1).status, 1) << "the core's stub for the failed point";
	ASSERT_EQ(fenceWait(failed, 2, kWaitNs), 0);
	EXPECT_TRUE(second.check());
}

} /* namespace */
} /* namespace guest */
