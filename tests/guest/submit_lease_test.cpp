/* SPDX-License-Identifier: MIT */
/*
 * The resource manager (docs/resources.md): leases on SRAM partitions.
 * Each case of the arbitration on its own (free, preempting, busy or
 * queued, release, release with and without waiters), the queue's order
 * (ties: the most recent first; aging, counted in grants), the release
 * request answered in time (no job cancelled) or not (revoked at the job
 * or frame boundary: the running job's results bit-exact, the rest
 * ECANCELED), groups, killed holders and waiters, two devices, the
 * privileges, and bad arguments. The other side of a lease is another open
 * file, or another process where the test is about processes.
 */
#include <gtest/gtest.h>

#include <signal.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

#include "lease_env.h"
#include "submit_test.h"

namespace guest {
namespace {

using namespace std::chrono_literals;

constexpr uint64_t kMs = 1000000;
constexpr int kEventMs = 5000;
constexpr uint64_t kPartBytes = 64 << 10;

class Leases : public SubmitTest
{
protected:
	void SetUp() override
	{
		SubmitTest::SetUp();
		if (HasFatalFailure())
			return;
		parts_ = std::make_unique<SramPartitions>(node_.index(), "p0:64K,p1:64K");
		ASSERT_EQ(parts_->error(), 0) << "writing " << sramPartitionsPath(node_.index());
		other_ = Node(paths_[0]);
		ASSERT_TRUE(other_.valid());
	}

	void TearDown() override
	{
		other_.close();
		parts_.reset();
	}

	/* A lease of @claim on @fd that must succeed; its id. */
	uint32_t hold(int fd, LeaseClaim claim)
	{
		uint32_t id = 0, state = 0;
		EXPECT_EQ(leaseAcquire(fd, claim, &id, &state), 0);
		EXPECT_EQ(state, uint32_t(DRM_VDLA_LEASE_STATE_HELD));
		return id;
	}

	/* Partition 0 held by @ctx at LOW, to be released within @releaseTimeoutNs once asked. */
	uint32_t holdLow(const Ctx &ctx, uint64_t releaseTimeoutNs)
	{
		LeaseClaim c = claim(ctx.id(), DRM_VDLA_PRIORITY_LOW);
		c.releaseTimeoutNs = releaseTimeoutNs;
		return hold(fd(), c);
	}

	/* A claim queued with DRM_VDLA_LEASE_ACQUIRE_QUEUE; its id. */
	uint32_t queue(int fd, LeaseClaim claim)
	{
		uint32_t id = 0, state = 0;
		claim.flags |= DRM_VDLA_LEASE_ACQUIRE_QUEUE;
		EXPECT_EQ(leaseAcquire(fd, claim, &id, &state), 0);
		EXPECT_EQ(state, uint32_t(DRM_VDLA_LEASE_STATE_WAITING));
		return id;
	}

	/* Partitions 0 and 1 held at LOW by @a and @b, leases of one group; their ids. */
	std::pair<uint32_t, uint32_t> holdGroup(const Ctx &a, const Ctx &b, uint32_t group,
						uint64_t releaseTimeoutNs)
	{
		LeaseClaim first = claim(a.id(), DRM_VDLA_PRIORITY_LOW, 0);
		first.group = group;
		first.releaseTimeoutNs = releaseTimeoutNs;
		LeaseClaim second = first;
		second.ctx = b.id();
		second.index = 1;
		return { hold(fd(), first), hold(fd(), second) };
	}

	static LeaseClaim claim(uint32_t ctx, uint32_t priority, uint32_t index = 0)
	{
		LeaseClaim c;
		c.ctx = ctx;
		c.priority = priority;
		c.index = index;
		return c;
	}

	int otherFd() const { return other_.fd(); }

	std::unique_ptr<SramPartitions> parts_;
	Node other_;
};

/* A job copying @bytes of @in through the SRAM BO @sram to @out, naming @lease. */
struct SramRoundTrip {
	SramRoundTrip(int fd, uint32_t ctx, const Bo &in, const Bo &sram, const Bo &out,
		      uint32_t bytes, uint32_t lease)
		: job(fd, ctx)
	{
		uint16_t i = job.add(in), s = job.add(sram, DRM_VDLA_ADDRESS_FLAG_WRITE),
			 o = job.add(out, DRM_VDLA_ADDRESS_FLAG_WRITE);
		uint16_t first = job.task.copy(i, 0, s, 0, bytes);
		uint16_t second = job.task.copy(s, 0, o, 0, bytes);
		job.task.link(first, second);
		job.submission.leaseId = lease;
	}

	HandJob job;
};

/* Small jobs on one context naming a lease, each with its own out-sync. */
struct LeaseJobs {
	LeaseJobs(int fd_, uint32_t ctx_, uint32_t lease_, uint64_t seed)
		: fd(fd_), ctx(ctx_), lease(lease_), rng(seed)
	{
	}

	/* Submits one more job of @kind with SUBMIT @flags; the errno. */
	int submit(uint32_t flags = 0, WorkKind kind = WorkKind::Copy, bool namesLease = true)
	{
		jobs.push_back(std::make_unique<SmallJob>(fd));
		jobs.back()->prepare(rng, kind);
		done.emplace_back(fd);
		Submission s = jobs.back()->submission(ctx, done.back().sync());
		s.leaseId = namesLease ? lease : 0;
		s.flags = flags;
		int ret = guest::submit(fd, s);
		if (ret) {
			jobs.pop_back();
			done.pop_back();
		}
		return ret;
	}

	/*
	 * Jobs end in order: the first ones completed, each checked against
	 * the CPU reference, the rest cancelled. The number completed.
	 */
	size_t completedThenCancelled()
	{
		size_t completed = 0;
		while (completed < jobs.size() && fenceSucceeds(done[completed], 10000)) {
			EXPECT_TRUE(jobs[completed]->check()) << "job " << completed;
			completed++;
		}
		for (size_t i = completed; i < jobs.size(); i++)
			EXPECT_TRUE(fenceFails(done[i], ECANCELED)) << "job " << i;
		return completed;
	}

	int fd;
	uint32_t ctx, lease;
	Rng rng;
	std::vector<std::unique_ptr<SmallJob>> jobs;
	std::vector<Syncobj> done;
};

/* Fills @bo with a pattern from @seed; returns it. */
std::vector<uint8_t> pattern(Bo &bo, uint8_t seed)
{
	std::vector<uint8_t> bytes(bo.size());
	for (size_t i = 0; i < bytes.size(); i++)
		bytes[i] = uint8_t(seed + i * 7);
	std::memcpy(bo.map(), bytes.data(), bytes.size());
	return bytes;
}

TEST_F(Leases, PartitionsAreDefinedThroughSysfsAndQueried)
{
	drm_vdla_query_sram_partitions parts = {};
	drm_vdla_query q = {};
	q.query = DRM_VDLA_QUERY_SRAM_PARTITIONS;
	q.size = sizeof(parts);
	q.data = reinterpret_cast<uintptr_t>(&parts);
	ASSERT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_QUERY, &q), 0);
	ASSERT_EQ(parts.count, 2u);
	EXPECT_STREQ(parts.partitions[0].name, "p0");
	EXPECT_STREQ(parts.partitions[1].name, "p1");
	EXPECT_EQ(parts.partitions[0].size, kPartBytes);
	EXPECT_EQ(parts.partitions[1].offset, parts.partitions[0].offset + kPartBytes);
	EXPECT_EQ(parts.shared_size, parts.partitions[0].offset);
	EXPECT_EQ(parts.partitions[2].size, 0u);

	/* QUERY MEMORY describes the shared pool: a BO of it all fits there, no more. */
	drm_vdla_query_memory memory = {};
	q.query = DRM_VDLA_QUERY_MEMORY;
	q.size = sizeof(memory);
	q.data = reinterpret_cast<uintptr_t>(&memory);
	ASSERT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_QUERY, &q), 0);
	EXPECT_EQ(memory.sram_size, parts.shared_size + 2 * kPartBytes);
	EXPECT_EQ(memory.sram_free, parts.shared_size);
	EXPECT_EQ(Bo(fd(), parts.shared_size + 4096, DRM_VDLA_BO_CREATE_SRAM).error(), ENOSPC);

	std::string path = sramPartitionsPath(node_.index()), text;
	ASSERT_EQ(readFile(path, &text), 0);
	EXPECT_EQ(text, "p0:65536,p1:65536\n");
	/* Malformed, too many, not page multiples, too large: refused, nothing changed. */
	for (const char *bad : { "p0", "p0:", ":4096", "p0:4097", "p0:0", "averyveryverylongname:4096",
				 "a:4K,b:4K,c:4K,d:4K,e:4K,f:4K,g:4K,h:4K,i:4K", "p0:4K;p1:4K" })
		EXPECT_EQ(writeFile(path, bad), EINVAL) << bad;
	EXPECT_EQ(writeFile(path, "huge:" + std::to_string(memory.sram_size + 4096)), ENOSPC);
	ASSERT_EQ(readFile(path, &text), 0);
	EXPECT_EQ(text, "p0:65536,p1:65536\n");

	/* While a lease is on a partition, or an SRAM BO lies where they would go: EBUSY. */
	Ctx ctx(fd());
	uint32_t id = hold(fd(), claim(ctx.id(), DRM_VDLA_PRIORITY_NORMAL));
	EXPECT_EQ(writeFile(path, "p0:128K"), EBUSY);
	ASSERT_EQ(leaseRelease(fd(), id), 0);
	ASSERT_TRUE(waitUntil([&] { return readState(node_.index())["leases"] == 0; }, 5000));
	ASSERT_EQ(writeFile(path, "\n"), 0);
	Bo shared(fd(), memory.sram_size, DRM_VDLA_BO_CREATE_SRAM);
	ASSERT_EQ(shared.error(), 0) << "without partitions the whole SRAM is shared";
	EXPECT_EQ(writeFile(path, "p0:64K"), EBUSY);
	shared = Bo();
	ASSERT_TRUE(waitUntil([&] { return writeFile(path, "p0:64K,p1:64K") == 0; }, 5000));
}

TEST_F(Leases, AFreePartitionIsGrantedAndItsBosNeedTheLease)
{
	Ctx ctx(fd()), second(fd());
	uint32_t id = hold(fd(), claim(ctx.id(), DRM_VDLA_PRIORITY_LOW));
	drm_vdla_lease_query q;
	ASSERT_EQ(leaseQuery(fd(), id, &q), 0);
	EXPECT_EQ(q.state, uint32_t(DRM_VDLA_LEASE_STATE_HELD));
	EXPECT_EQ(q.release_requested, 0u);
	EXPECT_EQ(q.waiters, 0u);
	EXPECT_EQ(q.deadline_ns, 0u);
	EXPECT_TRUE(readLeaseEvents(fd(), 0).empty()) << "a grant at once is not an event";

	drm_vdla_query_sram_partitions parts = {};
	drm_vdla_query pq = { DRM_VDLA_QUERY_SRAM_PARTITIONS, sizeof(parts),
			      reinterpret_cast<uintptr_t>(&parts), 0, 0 };
	ASSERT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_QUERY, &pq), 0);
	Bo sram(fd(), kPartBytes, DRM_VDLA_BO_CREATE_SRAM, id);
	ASSERT_EQ(sram.error(), 0);
	EXPECT_EQ(sram.address(), DRM_VDLA_SRAM_BASE + parts.partitions[0].offset);
	EXPECT_EQ(Bo(fd(), 4096, DRM_VDLA_BO_CREATE_SRAM, id).error(), ENOSPC) << "the partition is full";
	EXPECT_EQ(Bo(fd(), 4096, 0, id).error(), EINVAL) << "a lease is for SRAM BOs";
	EXPECT_EQ(Bo(otherFd(), 4096, DRM_VDLA_BO_CREATE_SRAM, id).error(), ENOENT)
		<< "a lease id of another file";

	Bo in(fd(), 4096), out(fd(), 4096);
	std::vector<uint8_t> data = pattern(in, 3);
	{
		/* Without the lease, or on another context: EACCES, nothing queued. */
		SramRoundTrip without(fd(), ctx.id(), in, sram, out, 4096, 0);
		EXPECT_EQ(without.job.submit(), EACCES);
		SramRoundTrip wrongCtx(fd(), second.id(), in, sram, out, 4096, id);
		EXPECT_EQ(wrongCtx.job.submit(), EINVAL);
		SramRoundTrip stranger(fd(), second.id(), in, sram, out, 4096, 0);
		EXPECT_EQ(stranger.job.submit(), EACCES);
	}
	SramRoundTrip trip(fd(), ctx.id(), in, sram, out, 4096, id);
	ASSERT_EQ(trip.job.submit(), 0);
	EXPECT_TRUE(fenceSucceeds(trip.job.done));
	EXPECT_EQ(std::memcmp(out.map(), data.data(), 4096), 0);
	EXPECT_EQ(ctx.query().jobs_failed, 0u);

	/* Case 5: released with no waiter, it is free; the BOs lost their SRAM. */
	ASSERT_EQ(leaseRelease(fd(), id), 0);
	EXPECT_EQ(leaseRelease(fd(), id), ENOENT) << "a released lease is forgotten";
	EXPECT_EQ(leaseState(fd(), id), 0u);
	SramRoundTrip lost(fd(), ctx.id(), in, sram, out, 4096, 0);
	EXPECT_EQ(lost.job.submit(), ECANCELED);

	/* The next holder, another file, gets the partition zeroed. */
	Ctx otherCtx(otherFd());
	uint32_t next = hold(otherFd(), claim(otherCtx.id(), DRM_VDLA_PRIORITY_LOW));
	Bo fresh(otherFd(), kPartBytes, DRM_VDLA_BO_CREATE_SRAM, next);
	ASSERT_EQ(fresh.error(), 0) << "the old holder's BOs no longer hold the partition";
	Bo otherIn(otherFd(), 4096), back(otherFd(), 4096);
	HandJob read(otherFd(), otherCtx.id());
	read.task.copy(read.add(fresh), 0, read.add(back, DRM_VDLA_ADDRESS_FLAG_WRITE), 0, 4096);
	read.submission.leaseId = next;
	ASSERT_EQ(read.submit(), 0);
	EXPECT_TRUE(fenceSucceeds(read.done));
	std::vector<uint8_t> zeros(4096, 0);
	EXPECT_EQ(std::memcmp(back.map(), zeros.data(), 4096), 0) << "the last holder's data leaked";
}


TEST_F(Leases, AHigherPriorityAsksTheHolderWhichReleasesBetweenItsJobs)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 20000), 0);
	Ctx low(fd(), DRM_VDLA_PRIORITY_LOW), high(otherFd(), DRM_VDLA_PRIORITY_HIGH);
	LeaseClaim lowClaim = claim(low.id(), DRM_VDLA_PRIORITY_LOW);
	lowClaim.userData = 0x1234;
	uint32_t held = hold(fd(), lowClaim);
	/* The holder's frames: jobs queued on the lease. */
	LeaseJobs frames(fd(), low.id(), held, 91);
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(frames.submit(), 0);

	/* Case 2: the HIGH claim waits; the holder is asked, with a deadline. */
	LeaseClaim highClaim = claim(high.id(), DRM_VDLA_PRIORITY_HIGH);
	highClaim.releaseTimeoutNs = 0;
	uint32_t waiting = queue(otherFd(), highClaim);
	drm_vdla_event_lease asked;
	ASSERT_TRUE(waitLeaseEvent(fd(), DRM_VDLA_EVENT_LEASE_RELEASE_REQUESTED, kEventMs, &asked));
	EXPECT_EQ(asked.lease_id, held);
	EXPECT_EQ(asked.user_data, 0x1234u);
	EXPECT_EQ(asked.ctx_id, low.id());
	EXPECT_EQ(asked.resource, uint32_t(DRM_VDLA_RESOURCE_SRAM_PARTITION));
	EXPECT_EQ(asked.index, 0u);
	EXPECT_EQ(asked.reason, uint32_t(DRM_VDLA_LEASE_REASON_PREEMPTED));
	EXPECT_EQ(asked.priority, uint32_t(DRM_VDLA_PRIORITY_HIGH));
	int64_t releaseMs = std::stoll(readParam("lease_release_ms"));
	EXPECT_NEAR(double(asked.deadline_ns - asked.timestamp_ns), double(releaseMs * kMs),
		    double(50 * kMs));
	drm_vdla_lease_query q;
	ASSERT_EQ(leaseQuery(fd(), held, &q), 0);
	EXPECT_EQ(q.release_requested, 1u);
	EXPECT_EQ(q.deadline_ns, asked.deadline_ns);
	EXPECT_EQ(q.waiters, 1u);
	EXPECT_EQ(leaseState(otherFd(), waiting), uint32_t(DRM_VDLA_LEASE_STATE_WAITING));

	/* Case 4 and 6: released in time, its jobs all finish; the waiter is granted after them. */
	ASSERT_EQ(leaseRelease(fd(), held), 0);
	drm_vdla_event_lease granted;
	ASSERT_TRUE(waitLeaseEvent(otherFd(), DRM_VDLA_EVENT_LEASE_GRANTED, kEventMs, &granted));
	EXPECT_EQ(granted.lease_id, waiting);
	EXPECT_EQ(frames.completedThenCancelled(), frames.jobs.size())
		<< "a job of a lease released in time was cancelled";
	for (size_t i = 0; i < frames.jobs.size(); i++)
		EXPECT_LE(frames.done[i].fence().timestampNs, granted.timestamp_ns)
			<< "granted before the holder's job " << i << " ended";
	EXPECT_EQ(leaseState(otherFd(), waiting), uint32_t(DRM_VDLA_LEASE_STATE_HELD));
	EXPECT_TRUE(readLeaseEvents(fd(), 100).empty()) << "a release in time is not a revocation";
}

TEST_F(Leases, AnEqualOrHigherHolderMakesTheClaimBusyOrQueued)
{
	Ctx a(fd()), b(otherFd()), c(otherFd());
	uint32_t held = hold(fd(), claim(a.id(), DRM_VDLA_PRIORITY_NORMAL));
	uint32_t id = 0;
	/* Case 3 without waiting: busy, nothing changed, the holder not asked. */
	EXPECT_EQ(leaseAcquire(otherFd(), claim(b.id(), DRM_VDLA_PRIORITY_NORMAL), &id), EBUSY);
	EXPECT_EQ(id, 0u);
	EXPECT_EQ(leaseAcquire(otherFd(), claim(b.id(), DRM_VDLA_PRIORITY_LOW), &id), EBUSY);
	LeaseClaim timed = claim(b.id(), DRM_VDLA_PRIORITY_NORMAL);
	timed.timeoutNs = 50 * kMs;
	EXPECT_EQ(leaseAcquire(otherFd(), timed, &id), ETIMEDOUT) << "nobody released in time";
	drm_vdla_lease_query q;
	ASSERT_EQ(leaseQuery(fd(), held, &q), 0);
	EXPECT_EQ(q.waiters, 0u);
	EXPECT_EQ(q.release_requested, 0u) << "ties never preempt";
	/* Waiting: queued, still no request to the holder. */
	uint32_t first = queue(otherFd(), claim(b.id(), DRM_VDLA_PRIORITY_NORMAL));
	uint32_t second = queue(otherFd(), claim(c.id(), DRM_VDLA_PRIORITY_LOW));
	ASSERT_EQ(leaseQuery(fd(), held, &q), 0);
	EXPECT_EQ(q.waiters, 2u);
	EXPECT_EQ(q.release_requested, 0u);
	EXPECT_TRUE(readLeaseEvents(fd(), 100).empty());
	EXPECT_EQ(leaseAcquire(otherFd(), claim(b.id(), DRM_VDLA_PRIORITY_NORMAL), &id), EEXIST)
		<< "a context claims a resource once";
	/* Case 6: the release grants the better waiter at once. */
	ASSERT_EQ(leaseRelease(fd(), held), 0);
	drm_vdla_event_lease granted;
	ASSERT_TRUE(waitLeaseEvent(otherFd(), DRM_VDLA_EVENT_LEASE_GRANTED, kEventMs, &granted));
	EXPECT_EQ(granted.lease_id, first);
	EXPECT_EQ(leaseState(otherFd(), second), uint32_t(DRM_VDLA_LEASE_STATE_WAITING));
	/* A waiter may give up: it leaves the queue. */
	ASSERT_EQ(leaseRelease(otherFd(), second), 0);
	ASSERT_EQ(leaseQuery(otherFd(), first, &q), 0);
	EXPECT_EQ(q.waiters, 0u);
}

TEST_F(Leases, WaitersOfOnePriorityAreServedMostRecentFirst)
{
	Ctx holder(fd());
	std::vector<Ctx> ctxs;
	for (int i = 0; i < 3; i++)
		ctxs.emplace_back(otherFd());
	uint32_t held = hold(fd(), claim(holder.id(), DRM_VDLA_PRIORITY_NORMAL));
	std::vector<uint32_t> ids;
	for (const Ctx &c : ctxs)
		ids.push_back(queue(otherFd(), claim(c.id(), DRM_VDLA_PRIORITY_NORMAL)));
	uint32_t last = held;
	int lastFd = fd();
	for (int expected = 2; expected >= 0; expected--) {
		ASSERT_EQ(leaseRelease(lastFd, last), 0);
		drm_vdla_event_lease granted;
		ASSERT_TRUE(waitLeaseEvent(otherFd(), DRM_VDLA_EVENT_LEASE_GRANTED, kEventMs, &granted));
		EXPECT_EQ(granted.lease_id, ids[expected]) << "the most recent waiter goes first";
		last = granted.lease_id;
		lastFd = otherFd();
	}
	EXPECT_EQ(leaseRelease(otherFd(), last), 0);
}

TEST_F(Leases, AgingBoundsTheWaitOfALowPriorityClaim)
{
	ParamOverride aging("lease_age_passes", "2");
	ASSERT_EQ(aging.error(), 0);
	Ctx low(otherFd());
	std::vector<Ctx> normals;
	for (int i = 0; i < 8; i++)
		normals.emplace_back(fd());
	uint32_t holder = hold(fd(), claim(normals[0].id(), DRM_VDLA_PRIORITY_NORMAL));
	uint32_t lowId = queue(otherFd(), claim(low.id(), DRM_VDLA_PRIORITY_LOW));
	/*
	 * A fresh NORMAL claim waits at every release: the LOW one rises a level
	 * per two grants to others, ties with NORMAL after two (and loses the
	 * tie to the newer claim), outranks it after four.
	 */
	int grantsToOthers = 0;
	for (int i = 1; i < 8; i++) {
		uint32_t fresh = queue(fd(), claim(normals[i].id(), DRM_VDLA_PRIORITY_NORMAL));
		ASSERT_EQ(leaseRelease(fd(), holder), 0);
		if (leaseState(otherFd(), lowId) == DRM_VDLA_LEASE_STATE_HELD)
			break;
		ASSERT_TRUE(waitLeaseEvent(fd(), DRM_VDLA_EVENT_LEASE_GRANTED, kEventMs));
		ASSERT_EQ(leaseState(fd(), fresh), uint32_t(DRM_VDLA_LEASE_STATE_HELD));
		holder = fresh;
		grantsToOthers++;
		drm_vdla_lease_query q;
		ASSERT_EQ(leaseQuery(otherFd(), lowId, &q), 0);
		EXPECT_EQ(q.queue_priority, uint32_t(DRM_VDLA_PRIORITY_LOW) + grantsToOthers / 2);
	}
	EXPECT_EQ(grantsToOthers, 4) << "2 x lease_age_passes grants to others";
	EXPECT_EQ(leaseState(otherFd(), lowId), uint32_t(DRM_VDLA_LEASE_STATE_HELD));
	/* The NORMAL claim still waiting outranks the aged LOW holder: it is asked at once. */
	EXPECT_TRUE(waitLeaseEvent(otherFd(), DRM_VDLA_EVENT_LEASE_RELEASE_REQUESTED, kEventMs));
	EXPECT_EQ(leaseRelease(otherFd(), lowId), 0);
}

/*
 * A holder that does not release is revoked at its deadline, at the job
 * boundary: the running job completes with results bit-exact against the
 * CPU reference, the queued ones end with ECANCELED, later SUBMITs naming
 * the lease fail, its BOs are lost, it reads a REVOKED event; the waiter,
 * another process blocked in LEASE_ACQUIRE, holds it after that.
 */
TEST_F(Leases, AHolderThatDoesNotReleaseIsRevokedAtTheJobBoundary)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("conv", "delay", 0, 300000), 0);
	Ctx low(fd(), DRM_VDLA_PRIORITY_LOW);
	uint32_t held = holdLow(low, 100 * kMs);
	Bo sram(fd(), 4096, DRM_VDLA_BO_CREATE_SRAM, held);
	ASSERT_EQ(sram.error(), 0);
	Rng rng(92);
	SmallJob running(fd());
	running.prepare(rng, WorkKind::Conv);
	Syncobj runningDone(fd());
	Submission s = running.submission(low.id(), runningDone.sync());
	s.leaseId = held;
	ASSERT_EQ(submit(fd(), s), 0);
	LeaseJobs queued(fd(), low.id(), held, 93);
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(queued.submit(), 0);
	ASSERT_TRUE(waitUntil([&] { return readState(node_.index())["running"] == 1; }, 5000));

	/* Another process claims it at HIGH, waiting up to 10 s. */
	std::string path = paths_[0];
	pid_t child = forkChild([&] {
		Node node(path);
		Ctx high(node.fd(), DRM_VDLA_PRIORITY_HIGH);
		LeaseClaim c = claim(high.id(), DRM_VDLA_PRIORITY_HIGH);
		c.timeoutNs = 10000 * kMs;
		uint32_t id = 0, state = 0;
		int ret = leaseAcquire(node.fd(), c, &id, &state);
		if (ret)
			return ret;
		return state == DRM_VDLA_LEASE_STATE_HELD ? 0 : 99;
	});
	ASSERT_TRUE(waitLeaseEvent(fd(), DRM_VDLA_EVENT_LEASE_RELEASE_REQUESTED, kEventMs));
	drm_vdla_event_lease revoked;
	ASSERT_TRUE(waitLeaseEvent(fd(), DRM_VDLA_EVENT_LEASE_REVOKED, 10000, &revoked));
	EXPECT_EQ(revoked.lease_id, held);
	EXPECT_EQ(revoked.reason, uint32_t(DRM_VDLA_LEASE_REASON_PREEMPTED));
	EXPECT_EQ(waitChild(child), 0) << "the HIGH claim was not granted after the revocation";

	EXPECT_TRUE(fenceSucceeds(runningDone)) << "the running job was cut";
	EXPECT_TRUE(running.check()) << "the running job's results changed";
	EXPECT_EQ(queued.completedThenCancelled(), 0u) << "a queued job ran after the revocation";
	EXPECT_LE(runningDone.fence().timestampNs, revoked.timestamp_ns);
	EXPECT_EQ(leaseState(fd(), held), uint32_t(DRM_VDLA_LEASE_STATE_REVOKED));
	SmallJob later(fd());
	later.prepare(rng, WorkKind::Copy);
	Submission l = later.submission(low.id());
	l.leaseId = held;
	EXPECT_EQ(submit(fd(), l), ECANCELED) << "a SUBMIT naming a revoked lease";
	l.leaseId = 0;
	EXPECT_EQ(submit(fd(), l), 0) << "the context itself goes on without the lease";
	HandJob useLost(fd(), low.id());
	Bo out(fd(), 4096);
	useLost.task.copy(useLost.add(sram), 0, useLost.add(out, DRM_VDLA_ADDRESS_FLAG_WRITE), 0, 64);
	EXPECT_EQ(useLost.submit(), ECANCELED) << "a BO of a revoked lease";
	EXPECT_EQ(leaseRelease(fd(), held), 0) << "RELEASE forgets a revoked lease";
	EXPECT_EQ(leaseState(fd(), held), 0u);
}

/*
 * Revocation inside a frame waits for the frame's END job, even one
 * submitted after the deadline; the jobs after the frame are cancelled.
 */
TEST_F(Leases, ARevocationInsideAFrameWaitsForItsEnd)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 50000), 0);
	Ctx low(fd(), DRM_VDLA_PRIORITY_LOW), high(otherFd(), DRM_VDLA_PRIORITY_HIGH);
	uint32_t held = holdLow(low, 50 * kMs);
	LeaseJobs frame(fd(), low.id(), held, 93);
	ASSERT_EQ(frame.submit(DRM_VDLA_SUBMIT_FRAME_BEGIN), 0);
	ASSERT_EQ(frame.submit(), 0);
	ASSERT_TRUE(waitUntil([&] { return readState(node_.index())["running"] == 1; }, 5000));
	uint32_t waiting = queue(otherFd(), claim(high.id(), DRM_VDLA_PRIORITY_HIGH));
	drm_vdla_event_lease asked;
	ASSERT_TRUE(waitLeaseEvent(fd(), DRM_VDLA_EVENT_LEASE_RELEASE_REQUESTED, kEventMs, &asked));
	/* Past the deadline the frame goes on: its END comes late and is accepted. */
	while (monotonicNs() < int64_t(asked.deadline_ns) + int64_t(20 * kMs))
		std::this_thread::sleep_for(5ms);
	EXPECT_EQ(leaseState(fd(), held), uint32_t(DRM_VDLA_LEASE_STATE_REVOKED));
	ASSERT_EQ(frame.submit(DRM_VDLA_SUBMIT_FRAME_END), 0) << "the frame's END after the deadline";
	ASSERT_EQ(frame.submit(), ECANCELED) << "after the frame, the lease is gone";
	drm_vdla_event_lease revoked;
	ASSERT_TRUE(waitLeaseEvent(fd(), DRM_VDLA_EVENT_LEASE_REVOKED, 10000, &revoked));
	EXPECT_EQ(frame.completedThenCancelled(), 3u) << "the frame was cut";
	for (size_t i = 0; i < 3; i++)
		EXPECT_LE(frame.done[i].fence().timestampNs, revoked.timestamp_ns);
	ASSERT_TRUE(waitLeaseEvent(otherFd(), DRM_VDLA_EVENT_LEASE_GRANTED, kEventMs));
	EXPECT_EQ(leaseState(otherFd(), waiting), uint32_t(DRM_VDLA_LEASE_STATE_HELD));
}

/* A frame whose END does not come within a second timeout is cut at a job boundary. */
TEST_F(Leases, AFrameThatOverrunsIsCutAtAJobBoundary)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 30000), 0);
	Ctx low(fd(), DRM_VDLA_PRIORITY_LOW), high(otherFd(), DRM_VDLA_PRIORITY_HIGH);
	uint32_t held = holdLow(low, 50 * kMs);
	LeaseJobs jobs(fd(), low.id(), held, 94);
	for (int i = 0; i < 40; i++)
		ASSERT_EQ(jobs.submit(i == 0 ? DRM_VDLA_SUBMIT_FRAME_BEGIN : 0), 0);
	queue(otherFd(), claim(high.id(), DRM_VDLA_PRIORITY_HIGH));
	drm_vdla_event_lease revoked;
	ASSERT_TRUE(waitLeaseEvent(fd(), DRM_VDLA_EVENT_LEASE_REVOKED, 10000, &revoked));
	EXPECT_EQ(revoked.reason, uint32_t(DRM_VDLA_LEASE_REASON_FRAME_OVERRUN));
	ASSERT_TRUE(waitLeaseEvent(otherFd(), DRM_VDLA_EVENT_LEASE_GRANTED, kEventMs));
	size_t completed = jobs.completedThenCancelled();
	EXPECT_GT(completed, 0u);
	EXPECT_LT(completed, jobs.jobs.size()) << "the overrunning frame was not cut";
}

/* A job stopped at an operation boundary by a higher-priority job is not where a lease is cut. */
TEST_F(Leases, AJobStoppedByPreemptionIsResumedNotCut)
{
	ParamOverride starvation("starvation_ms", "1000");
	ASSERT_EQ(starvation.error(), 0);
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 40000), 0);
	Ctx low(fd(), DRM_VDLA_PRIORITY_LOW), urgentCtx(otherFd(), DRM_VDLA_PRIORITY_HIGH);
	Ctx claimer(otherFd(), DRM_VDLA_PRIORITY_HIGH);
	uint32_t held = holdLow(low, 30 * kMs);
	ChainJob chain(fd(), 16, 95);
	ASSERT_EQ(chain.error(), 0);
	Syncobj chainDone(fd());
	Submission s = chain.submission(low.id(), chainDone.sync());
	s.leaseId = held;
	ASSERT_EQ(submit(fd(), s), 0);
	SmallJob next(fd());
	Rng rng(96);
	next.prepare(rng, WorkKind::Copy);
	Syncobj nextDone(fd());
	Submission n = next.submission(low.id(), nextDone.sync());
	n.leaseId = held;
	ASSERT_EQ(submit(fd(), n), 0);
	ASSERT_TRUE(waitUntil([&] { return readState(node_.index())["running"] == 1; }, 5000));
	/* A long HIGH job stops the chain; meanwhile the lease's deadline passes. */
	ChainJob urgent(otherFd(), 8, 97);
	Syncobj urgentDone(otherFd());
	ASSERT_EQ(submit(otherFd(), urgent.submission(urgentCtx.id(), urgentDone.sync())), 0);
	queue(otherFd(), claim(claimer.id(), DRM_VDLA_PRIORITY_HIGH));
	ASSERT_TRUE(waitLeaseEvent(fd(), DRM_VDLA_EVENT_LEASE_REVOKED, 20000));
	EXPECT_TRUE(fenceSucceeds(urgentDone));
	EXPECT_TRUE(fenceSucceeds(chainDone)) << "the stopped job must resume and finish";
	EXPECT_TRUE(chain.check());
	EXPECT_TRUE(fenceFails(nextDone, ECANCELED));
	EXPECT_GE(low.query().jobs_preempted, 1u) << "the chain was not preempted: no test";
}

TEST_F(Leases, AGroupIsAskedAndRevokedTogether)
{
	Ctx a(fd(), DRM_VDLA_PRIORITY_LOW), b(fd(), DRM_VDLA_PRIORITY_LOW);
	Ctx high(otherFd(), DRM_VDLA_PRIORITY_HIGH);
	auto [p0, p1] = holdGroup(a, b, 7, 50 * kMs);
	queue(otherFd(), claim(high.id(), DRM_VDLA_PRIORITY_HIGH, 0));
	std::map<uint32_t, drm_vdla_event_lease> asked, revoked;
	int64_t end = monotonicNs() + 10000 * int64_t(kMs);
	while ((asked.size() < 2 || revoked.size() < 2) && monotonicNs() < end) {
		for (const drm_vdla_event_lease &e : readLeaseEvents(fd(), 100)) {
			if (e.base.type == DRM_VDLA_EVENT_LEASE_RELEASE_REQUESTED)
				asked[e.lease_id] = e;
			if (e.base.type == DRM_VDLA_EVENT_LEASE_REVOKED)
				revoked[e.lease_id] = e;
		}
	}
	ASSERT_EQ(asked.size(), 2u);
	EXPECT_EQ(asked[p0].reason, uint32_t(DRM_VDLA_LEASE_REASON_PREEMPTED));
	EXPECT_EQ(asked[p1].reason, uint32_t(DRM_VDLA_LEASE_REASON_GROUP));
	EXPECT_EQ(revoked.size(), 2u) << "the group loses together";
	EXPECT_EQ(leaseState(fd(), p1), uint32_t(DRM_VDLA_LEASE_STATE_REVOKED));
}

TEST_F(Leases, AKilledHolderHandsOverAtOnceAndAKilledWaiterLeaves)
{
	std::string path = paths_[0];
	Ctx mine(fd());
	std::map<std::string, long> baseline = objectCounts(node_.index());
	/* A holder process, killed with SIGKILL while a claim waits. */
	pid_t holder = forkReadyChild([&](const std::function<void()> &ready) {
		Node node(path);
		Ctx ctx(node.fd());
		uint32_t id;
		if (leaseAcquire(node.fd(), claim(ctx.id(), DRM_VDLA_PRIORITY_NORMAL), &id))
			return 1;
		Bo sram(node.fd(), kPartBytes, DRM_VDLA_BO_CREATE_SRAM, id);
		if (sram.error())
			return 2;
		ready();
		return 0;
	});
	ASSERT_GT(holder, 0);
	uint32_t waiting = queue(fd(), claim(mine.id(), DRM_VDLA_PRIORITY_NORMAL));
	::kill(holder, SIGKILL);
	EXPECT_EQ(waitChild(holder), 128 + SIGKILL);
	ASSERT_TRUE(waitLeaseEvent(fd(), DRM_VDLA_EVENT_LEASE_GRANTED, kEventMs));
	EXPECT_EQ(leaseState(fd(), waiting), uint32_t(DRM_VDLA_LEASE_STATE_HELD));
	EXPECT_EQ(Bo(fd(), kPartBytes, DRM_VDLA_BO_CREATE_SRAM, waiting).error(), 0)
		<< "the killed holder's BOs still hold the partition";

	/* A waiter process blocked in ACQUIRE at HIGH, killed: it leaves, the request is withdrawn. */
	pid_t waiter = fork();
	ASSERT_GE(waiter, 0);
	if (waiter == 0) {
		Node node(path);
		Ctx ctx(node.fd(), DRM_VDLA_PRIORITY_HIGH);
		LeaseClaim c = claim(ctx.id(), DRM_VDLA_PRIORITY_HIGH);
		c.timeoutNs = DRM_VDLA_LEASE_MAX_TIMEOUT_NS;
		uint32_t id;
		_exit(leaseAcquire(node.fd(), c, &id));
	}
	ASSERT_TRUE(waitLeaseEvent(fd(), DRM_VDLA_EVENT_LEASE_RELEASE_REQUESTED, kEventMs));
	drm_vdla_lease_query q;
	ASSERT_EQ(leaseQuery(fd(), waiting, &q), 0);
	EXPECT_EQ(q.waiters, 1u);
	::kill(waiter, SIGKILL);
	EXPECT_EQ(waitChild(waiter), 128 + SIGKILL);
	ASSERT_TRUE(waitUntil([&] {
		return leaseQuery(fd(), waiting, &q) == 0 && q.waiters == 0;
	}, 5000));
	EXPECT_EQ(q.release_requested, 0u) << "the request outlived the claim";
	EXPECT_EQ(q.deadline_ns, 0u);
	std::this_thread::sleep_for(std::chrono::milliseconds(std::stoi(readParam("lease_release_ms")) + 100));
	EXPECT_EQ(leaseState(fd(), waiting), uint32_t(DRM_VDLA_LEASE_STATE_HELD))
		<< "revoked for a claim that had gone";
	ASSERT_EQ(leaseRelease(fd(), waiting), 0);
	EXPECT_TRUE(countsReturnTo(node_.index(), baseline, 5000)) << "the killed processes leaked";
}

TEST_F(Leases, ThePreemptionTimeoutFailsTheAcquireCleanly)
{
	Ctx low(fd(), DRM_VDLA_PRIORITY_LOW), high(otherFd(), DRM_VDLA_PRIORITY_HIGH);
	uint32_t held = holdLow(low, 5000 * kMs);
	LeaseClaim c = claim(high.id(), DRM_VDLA_PRIORITY_HIGH);
	c.timeoutNs = 100 * kMs;
	uint32_t id = 1;
	EXPECT_EQ(leaseAcquire(otherFd(), c, &id), ETIMEDOUT);
	EXPECT_EQ(id, 0u);
	drm_vdla_lease_query q;
	ASSERT_EQ(leaseQuery(fd(), held, &q), 0);
	EXPECT_EQ(q.waiters, 0u);
	EXPECT_EQ(q.release_requested, 0u) << "withdrawn with the claim";
	EXPECT_EQ(readState(node_.index())["leases"], 1);
	/* Without a timeout and without QUEUE, a preempting claim does not even ask. */
	c.timeoutNs = 0;
	EXPECT_EQ(leaseAcquire(otherFd(), c, &id), EBUSY);
	EXPECT_TRUE(readLeaseEvents(fd(), 0).size() == 1) << "only the first claim's request";
	ASSERT_EQ(leaseQuery(fd(), held, &q), 0);
	EXPECT_EQ(q.release_requested, 0u);
}

TEST_F(Leases, TwoDevicesAreIndependent)
{
	if (paths_.size() < 2)
		GTEST_SKIP() << "one vDLA";
	Node second(paths_[1]);
	SramPartitions secondParts(second.index(), "p0:64K");
	ASSERT_EQ(secondParts.error(), 0);
	Ctx a(fd()), b(second.fd());
	uint32_t here = hold(fd(), claim(a.id(), DRM_VDLA_PRIORITY_NORMAL));
	uint32_t there = hold(second.fd(), claim(b.id(), DRM_VDLA_PRIORITY_NORMAL));
	EXPECT_EQ(leaseRelease(fd(), here), 0);
	EXPECT_EQ(leaseState(second.fd(), there), uint32_t(DRM_VDLA_LEASE_STATE_HELD));
	EXPECT_EQ(leaseRelease(second.fd(), there), 0);
}

TEST_F(Leases, UnprivilegedClaimsThatWouldPreemptAreRefused)
{
	Ctx low(fd(), DRM_VDLA_PRIORITY_LOW);
	uint32_t held = hold(fd(), claim(low.id(), DRM_VDLA_PRIORITY_LOW));
	int node = otherFd();
	Ctx ctx(node);
	uint32_t ctxId = ctx.id();
	EXPECT_EQ(asNobody([&] {
		uint32_t id;
		return leaseAcquire(node, claim(ctxId, DRM_VDLA_PRIORITY_HIGH, 1), &id);
	}), EACCES) << "HIGH needs CAP_SYS_NICE";
	EXPECT_EQ(asNobody([&] {
		uint32_t id;
		return leaseAcquire(node, claim(ctxId, DRM_VDLA_PRIORITY_NORMAL), &id);
	}), EACCES) << "preempting needs CAP_SYS_NICE";
	EXPECT_EQ(asNobody([&] {
		uint32_t id;
		LeaseClaim c = claim(ctxId, DRM_VDLA_PRIORITY_NORMAL);
		c.flags = DRM_VDLA_LEASE_ACQUIRE_NO_PREEMPT;
		return leaseAcquire(node, c, &id);
	}), EBUSY) << "without preempting it is an equal's claim";
	EXPECT_EQ(asNobody([&] {
		uint32_t id;
		return leaseAcquire(node, claim(ctxId, DRM_VDLA_PRIORITY_NORMAL, 1), &id);
	}), 0) << "a free partition needs no privilege";
	drm_vdla_lease_query q;
	ASSERT_EQ(leaseQuery(fd(), held, &q), 0);
	EXPECT_EQ(q.release_requested, 0u);
	EXPECT_TRUE(readLeaseEvents(fd(), 0).empty());
}

TEST_F(Leases, BadArgumentsAreRefusedAndChangeNothing)
{
	Ctx ctx(fd());
	drm_vdla_lease_acquire args = {};
	auto acquire = [&](auto change) {
		args = {};
		args.ctx_id = ctx.id();
		args.resource = DRM_VDLA_RESOURCE_SRAM_PARTITION;
		change(args);
		return ioctlError(fd(), DRM_IOCTL_VDLA_LEASE_ACQUIRE, &args);
	};
	EXPECT_EQ(acquire([](auto &a) { a.flags = 1u << 7; }), EINVAL);
	EXPECT_EQ(acquire([](auto &a) { a.resource = 0; }), EINVAL);
	EXPECT_EQ(acquire([](auto &a) { a.resource = 99; }), EINVAL);
	EXPECT_EQ(acquire([](auto &a) { a.priority = DRM_VDLA_PRIORITIES; }), EINVAL);
	EXPECT_EQ(acquire([](auto &a) { a.timeout_ns = DRM_VDLA_LEASE_MAX_TIMEOUT_NS + 1; }), EINVAL);
	EXPECT_EQ(acquire([](auto &a) { a.release_timeout_ns = ~0ull; }), EINVAL);
	EXPECT_EQ(acquire([](auto &a) { a.index = 2; }), ENOENT) << "two partitions";
	EXPECT_EQ(acquire([](auto &a) { a.index = ~0u; }), ENOENT);
	EXPECT_EQ(acquire([](auto &a) { a.ctx_id = 9999; }), ENOENT);
	EXPECT_EQ(readState(node_.index())["leases"], 0) << "a refused claim left a lease";

	drm_vdla_lease_release rel = { 12345, 0 };
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_LEASE_RELEASE, &rel), ENOENT);
	uint32_t id = hold(fd(), claim(ctx.id(), DRM_VDLA_PRIORITY_NORMAL));
	rel = { id, 1 };
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_LEASE_RELEASE, &rel), EINVAL);
	drm_vdla_lease_query q = {};
	q.lease_id = id;
	q.flags = 1;
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_LEASE_QUERY, &q), EINVAL);
	EXPECT_EQ(leaseRelease(otherFd(), id), ENOENT) << "another file's lease";
	EXPECT_EQ(leaseState(fd(), id), uint32_t(DRM_VDLA_LEASE_STATE_HELD));

	/* DRM_VDLA_MAX_LEASES_PER_FILE: EAGAIN, and the space of their events. */
	std::vector<Ctx> ctxs;
	int refused = 0;
	for (int i = 0; i < DRM_VDLA_MAX_LEASES_PER_FILE + 2; i++) {
		ctxs.emplace_back(fd());
		uint32_t more;
		LeaseClaim c = claim(ctxs.back().id(), DRM_VDLA_PRIORITY_NORMAL);
		c.flags = DRM_VDLA_LEASE_ACQUIRE_QUEUE;
		int ret = leaseAcquire(fd(), c, &more);
		if (ret) {
			EXPECT_EQ(ret, EAGAIN);
			refused++;
		}
	}
	EXPECT_EQ(refused, 3) << "16 leases per file";
	EXPECT_EQ(readState(node_.index())["leases"], DRM_VDLA_MAX_LEASES_PER_FILE);

	/* Frames do not nest. */
	Rng rng(98);
	SmallJob job(fd());
	job.prepare(rng, WorkKind::Copy);
	Submission s = job.submission(ctx.id());
	s.flags = DRM_VDLA_SUBMIT_FRAME_END;
	EXPECT_EQ(submit(fd(), s), EINVAL) << "END outside a frame";
	s.flags = DRM_VDLA_SUBMIT_FRAME_BEGIN;
	EXPECT_EQ(submit(fd(), s), 0);
	EXPECT_EQ(submit(fd(), s), EINVAL) << "BEGIN inside a frame";
	s.flags = DRM_VDLA_SUBMIT_FRAME_END;
	EXPECT_EQ(submit(fd(), s), 0);
	s.flags = DRM_VDLA_SUBMIT_FRAME_BEGIN | DRM_VDLA_SUBMIT_FRAME_END;
	EXPECT_EQ(submit(fd(), s), 0) << "a frame of one job";
	s.flags = 0;
	s.leaseId = 777;
	EXPECT_EQ(submit(fd(), s), ENOENT);
	drm_vdla_submit raw = {};
	EXPECT_EQ(submit(fd(), job.submission(ctx.id()), &raw), 0);
}

TEST_F(Leases, DebugfsShowsEachPartitionWithItsHolderAndWaiters)
{
	Ctx a(fd()), b(otherFd(), DRM_VDLA_PRIORITY_LOW);
	uint32_t held = hold(fd(), claim(a.id(), DRM_VDLA_PRIORITY_NORMAL));
	uint32_t waiting = queue(otherFd(), claim(b.id(), DRM_VDLA_PRIORITY_LOW));
	std::string text;
	ASSERT_EQ(readFile(debugfsPath(node_.index(), "leases"), &text), 0);
	EXPECT_NE(text.find("sram_partition 0 p0 size 65536"), std::string::npos) << text;
	EXPECT_NE(text.find("sram_partition 1 p1 size 65536"), std::string::npos) << text;
	std::string holderLine = "holder lease " + std::to_string(held) + " pid " +
				 std::to_string(getpid()) + " ctx " + std::to_string(a.id()) +
				 " priority 1";
	std::string waiterLine = "waiter lease " + std::to_string(waiting) + " pid " +
				 std::to_string(getpid()) + " ctx " + std::to_string(b.id()) +
				 " priority 0";
	EXPECT_NE(text.find(holderLine), std::string::npos) << text;
	EXPECT_NE(text.find(waiterLine), std::string::npos) << text;
	EXPECT_EQ(readState(node_.index())["leases"], 2);
}

/*
 * A holder that releases in time cancels nothing, even when its jobs
 * outlast the deadline: the request's deadline goes with the release, and
 * the waiter is granted once the last job naming the lease has ended.
 */
TEST_F(Leases, AReleaseInTimeCancelsNothingEvenPastTheDeadline)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 30000), 0);
	Ctx low(fd(), DRM_VDLA_PRIORITY_LOW), high(otherFd(), DRM_VDLA_PRIORITY_HIGH);
	uint32_t held = holdLow(low, 100 * kMs);
	LeaseJobs jobs(fd(), low.id(), held, 99);
	for (int i = 0; i < 10; i++)
		ASSERT_EQ(jobs.submit(), 0);
	uint32_t waiting = queue(otherFd(), claim(high.id(), DRM_VDLA_PRIORITY_HIGH));
	ASSERT_TRUE(waitLeaseEvent(fd(), DRM_VDLA_EVENT_LEASE_RELEASE_REQUESTED, kEventMs));
	ASSERT_EQ(leaseRelease(fd(), held), 0) << "released in time";
	drm_vdla_event_lease granted;
	ASSERT_TRUE(waitLeaseEvent(otherFd(), DRM_VDLA_EVENT_LEASE_GRANTED, 10000, &granted));
	EXPECT_EQ(leaseState(otherFd(), waiting), uint32_t(DRM_VDLA_LEASE_STATE_HELD));
	/* Ten jobs of 30 ms or more outlast the 100 ms deadline; none is cancelled. */
	EXPECT_EQ(jobs.completedThenCancelled(), jobs.jobs.size());
	EXPECT_LE(jobs.done.back().fence().timestampNs, granted.timestamp_ns);
	EXPECT_EQ(low.query().jobs_failed, 0u);
}

/* The END job of the frame need not name the revoked lease; the revocation goes on at once. */
TEST_F(Leases, AFrameEndingWithoutTheLeaseEndsTheRevocationsWait)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 50000), 0);
	Ctx low(fd(), DRM_VDLA_PRIORITY_LOW), high(otherFd(), DRM_VDLA_PRIORITY_HIGH);
	uint32_t held = holdLow(low, 50 * kMs);
	LeaseJobs jobs(fd(), low.id(), held, 100);
	ASSERT_EQ(jobs.submit(DRM_VDLA_SUBMIT_FRAME_BEGIN), 0);
	ASSERT_TRUE(waitUntil([&] { return readState(node_.index())["running"] == 1; }, 5000));
	queue(otherFd(), claim(high.id(), DRM_VDLA_PRIORITY_HIGH));
	drm_vdla_event_lease asked;
	ASSERT_TRUE(waitLeaseEvent(fd(), DRM_VDLA_EVENT_LEASE_RELEASE_REQUESTED, kEventMs, &asked));
	while (monotonicNs() < int64_t(asked.deadline_ns) + int64_t(20 * kMs))
		std::this_thread::sleep_for(5ms);
	ASSERT_EQ(jobs.submit(DRM_VDLA_SUBMIT_FRAME_END, WorkKind::Copy, false), 0);
	EXPECT_EQ(jobs.submit(), ECANCELED) << "the lease after its frame";
	drm_vdla_event_lease revoked;
	ASSERT_TRUE(waitLeaseEvent(fd(), DRM_VDLA_EVENT_LEASE_REVOKED, 10000, &revoked));
	EXPECT_EQ(revoked.reason, uint32_t(DRM_VDLA_LEASE_REASON_PREEMPTED))
		<< "the frame ended in time; it did not overrun";
	EXPECT_EQ(jobs.completedThenCancelled(), 2u);
}

/*
 * A claim without CAP_SYS_NICE never preempts, also when aging makes a
 * lower priority the holder while it waits.
 */
TEST_F(Leases, AnUnprivilegedWaiterNeverPreemptsLater)
{
	ParamOverride aging("lease_age_passes", "1");
	ASSERT_EQ(aging.error(), 0);
	Node third(paths_[0]);
	Ctx a0(fd()), a1(fd()), a2(fd()), lowCtx(otherFd(), DRM_VDLA_PRIORITY_LOW), u(third.fd());
	uint32_t h0 = hold(fd(), claim(a0.id(), DRM_VDLA_PRIORITY_NORMAL));
	uint32_t low = queue(otherFd(), claim(lowCtx.id(), DRM_VDLA_PRIORITY_LOW));
	uint32_t h1 = queue(fd(), claim(a1.id(), DRM_VDLA_PRIORITY_NORMAL));
	ASSERT_EQ(leaseRelease(fd(), h0), 0);
	ASSERT_EQ(leaseState(fd(), h1), uint32_t(DRM_VDLA_LEASE_STATE_HELD));
	uint32_t h2 = queue(fd(), claim(a2.id(), DRM_VDLA_PRIORITY_NORMAL));
	ASSERT_EQ(leaseRelease(fd(), h1), 0);
	ASSERT_EQ(leaseState(fd(), h2), uint32_t(DRM_VDLA_LEASE_STATE_HELD));
	/* Now the LOW claim ranks above NORMAL in the queue; an unprivileged NORMAL claim joins. */
	int node = third.fd();
	uint32_t uCtx = u.id();
	ASSERT_EQ(asNobody([&] {
		uint32_t id;
		LeaseClaim c = claim(uCtx, DRM_VDLA_PRIORITY_NORMAL);
		c.flags = DRM_VDLA_LEASE_ACQUIRE_QUEUE;
		return leaseAcquire(node, c, &id);
	}), 0);
	ASSERT_EQ(leaseRelease(fd(), h2), 0);
	ASSERT_TRUE(waitLeaseEvent(otherFd(), DRM_VDLA_EVENT_LEASE_GRANTED, kEventMs));
	drm_vdla_lease_query q;
	ASSERT_EQ(leaseQuery(otherFd(), low, &q), 0);
	EXPECT_EQ(q.state, uint32_t(DRM_VDLA_LEASE_STATE_HELD));
	EXPECT_EQ(q.waiters, 1u);
	EXPECT_EQ(q.release_requested, 0u) << "an unprivileged claim preempted the LOW holder";
	EXPECT_TRUE(readLeaseEvents(otherFd(), 100).empty());
}

TEST_F(Leases, AGroupsRequestsAreWithdrawnWithTheClaim)
{
	Ctx a(fd(), DRM_VDLA_PRIORITY_LOW), b(fd(), DRM_VDLA_PRIORITY_LOW);
	Ctx high(otherFd(), DRM_VDLA_PRIORITY_HIGH);
	auto [p0, p1] = holdGroup(a, b, 3, 300 * kMs);
	LeaseClaim c = claim(high.id(), DRM_VDLA_PRIORITY_HIGH, 0);
	c.timeoutNs = 50 * kMs;
	uint32_t id;
	EXPECT_EQ(leaseAcquire(otherFd(), c, &id), ETIMEDOUT);
	drm_vdla_lease_query q;
	ASSERT_EQ(leaseQuery(fd(), p0, &q), 0);
	EXPECT_EQ(q.release_requested, 0u);
	ASSERT_EQ(leaseQuery(fd(), p1, &q), 0);
	EXPECT_EQ(q.release_requested, 0u) << "the group's request outlived the claim";
	std::this_thread::sleep_for(400ms);
	EXPECT_EQ(leaseState(fd(), p0), uint32_t(DRM_VDLA_LEASE_STATE_HELD));
	EXPECT_EQ(leaseState(fd(), p1), uint32_t(DRM_VDLA_LEASE_STATE_HELD));
}

/* RELEASE of an id an ACQUIRE under way reserved is ENOENT and takes nothing from it. */
TEST_F(Leases, ReleasingAnIdNotYetGivenOutTakesNothing)
{
	Ctx holderCtx(otherFd()), waiterCtx(fd()), other(fd());
	uint32_t held = hold(otherFd(), claim(holderCtx.id(), DRM_VDLA_PRIORITY_NORMAL));
	uint32_t before = hold(fd(), claim(other.id(), DRM_VDLA_PRIORITY_NORMAL, 1));
	int node = fd();
	uint32_t waiterId = waiterCtx.id();
	std::thread waiter([&] {
		LeaseClaim c = claim(waiterId, DRM_VDLA_PRIORITY_NORMAL);
		c.timeoutNs = 300 * kMs;
		uint32_t id;
		EXPECT_EQ(leaseAcquire(node, c, &id), ETIMEDOUT);
	});
	std::this_thread::sleep_for(100ms);
	/* Ids go round: the waiting claim reserved the next one. */
	EXPECT_EQ(leaseRelease(fd(), before + 1), ENOENT);
	waiter.join();
	EXPECT_EQ(leaseState(fd(), before), uint32_t(DRM_VDLA_LEASE_STATE_HELD));
	EXPECT_EQ(readState(node_.index())["leases"], 2);
	ASSERT_EQ(leaseRelease(fd(), before), 0);
	ASSERT_EQ(leaseRelease(otherFd(), held), 0);
	EXPECT_TRUE(waitUntil([&] { return readState(node_.index())["leases"] == 0; }, 5000));
}

/*
 * An engine reservation puts its context's jobs first: a LOW job of the
 * holder stops a HIGH job running and ends first; without the reservation
 * it waits. Revoking it cancels nothing.
 */
TEST_F(Leases, AnEngineReservationPutsItsJobsFirstAndItsRevocationCancelsNothing)
{
	ParamOverride starvation("starvation_ms", "10000");
	ASSERT_EQ(starvation.error(), 0);
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 20000), 0);
	Ctx low(fd(), DRM_VDLA_PRIORITY_LOW), high(otherFd(), DRM_VDLA_PRIORITY_HIGH);
	Ctx rival(otherFd(), DRM_VDLA_PRIORITY_HIGH);
	Rng rng(101);
	uint64_t seed = 500;
	/* Runs a 16-operation HIGH job, and a LOW one once it started; which ended first. */
	auto lowEndsFirst = [&]() {
		ChainJob chain(otherFd(), 16, seed++);
		Syncobj chainDone(otherFd());
		EXPECT_EQ(submit(otherFd(), chain.submission(high.id(), chainDone.sync())), 0);
		EXPECT_TRUE(waitUntil([&] { return readState(node_.index())["running"] == 1; }, 5000));
		SmallJob small(fd());
		small.prepare(rng, WorkKind::Copy);
		Syncobj smallDone(fd());
		EXPECT_EQ(submit(fd(), small.submission(low.id(), smallDone.sync())), 0);
		EXPECT_TRUE(fenceSucceeds(chainDone));
		EXPECT_TRUE(fenceSucceeds(smallDone));
		EXPECT_TRUE(chain.check());
		EXPECT_TRUE(small.check());
		return smallDone.fence().timestampNs < chainDone.fence().timestampNs;
	};
	EXPECT_FALSE(lowEndsFirst()) << "without a reservation LOW waits for HIGH";

	auto engine = [&](const Ctx &ctx, uint32_t priority, uint32_t index) {
		LeaseClaim c = claim(ctx.id(), priority, index);
		c.resource = DRM_VDLA_RESOURCE_ENGINE;
		return c;
	};
	LeaseClaim bdma = engine(low, DRM_VDLA_PRIORITY_LOW, VDLA_TASK_ENGINE_BDMA);
	bdma.releaseTimeoutNs = 50 * kMs;
	/* debugfs counts the engine's grants since the device came (the fuzzer's among them). */
	auto bdmaGrants = [&]() {
		std::string text;
		EXPECT_EQ(readFile(debugfsPath(node_.index(), "leases"), &text), 0);
		size_t at = text.find("engine 0 grants ");
		return at == std::string::npos ? 0ul : std::stoul(text.substr(at + 16));
	};
	unsigned long grantsBefore = bdmaGrants();
	uint32_t reserved = 0, other = 0, state = 0;
	ASSERT_EQ(leaseAcquire(fd(), bdma, &reserved), 0);
	EXPECT_EQ(leaseAcquire(otherFd(), engine(rival, DRM_VDLA_PRIORITY_LOW, VDLA_TASK_ENGINE_BDMA),
			       &other), EBUSY) << "one reservation of an engine at a time";
	EXPECT_EQ(leaseAcquire(otherFd(), engine(rival, DRM_VDLA_PRIORITY_LOW, DRM_VDLA_NUM_ENGINES),
			       &other), ENOENT);
	EXPECT_EQ(Bo(fd(), 4096, DRM_VDLA_BO_CREATE_SRAM, reserved).error(), EINVAL)
		<< "an engine reservation has no SRAM";
	uint64_t preemptedBefore = high.query().jobs_preempted;
	EXPECT_TRUE(lowEndsFirst()) << "the reservation's LOW job waited for a HIGH one";
	EXPECT_GT(high.query().jobs_preempted, preemptedBefore);

	/* Revoked: nothing cancelled, and the order is the priorities' again. */
	ChainJob running(fd(), 8, seed++);
	Syncobj runningDone(fd());
	ASSERT_EQ(submit(fd(), running.submission(low.id(), runningDone.sync())), 0);
	SmallJob queued(fd());
	queued.prepare(rng, WorkKind::Copy);
	Syncobj queuedDone(fd());
	ASSERT_EQ(submit(fd(), queued.submission(low.id(), queuedDone.sync())), 0);
	LeaseClaim takeover = engine(rival, DRM_VDLA_PRIORITY_HIGH, VDLA_TASK_ENGINE_BDMA);
	takeover.flags = DRM_VDLA_LEASE_ACQUIRE_QUEUE;
	ASSERT_EQ(leaseAcquire(otherFd(), takeover, &other, &state), 0);
	EXPECT_EQ(state, uint32_t(DRM_VDLA_LEASE_STATE_WAITING));
	drm_vdla_event_lease revoked;
	ASSERT_TRUE(waitLeaseEvent(fd(), DRM_VDLA_EVENT_LEASE_REVOKED, 10000, &revoked));
	EXPECT_EQ(revoked.resource, uint32_t(DRM_VDLA_RESOURCE_ENGINE));
	ASSERT_TRUE(waitLeaseEvent(otherFd(), DRM_VDLA_EVENT_LEASE_GRANTED, kEventMs));
	EXPECT_TRUE(fenceSucceeds(runningDone));
	EXPECT_TRUE(running.check());
	EXPECT_TRUE(fenceSucceeds(queuedDone)) << "revoking a reservation cancelled a job";
	EXPECT_TRUE(queued.check());
	EXPECT_EQ(bdmaGrants(), grantsBefore + 2);
	ASSERT_EQ(leaseRelease(otherFd(), other), 0);
	EXPECT_FALSE(lowEndsFirst()) << "the reservation outlived its revocation";
	EXPECT_EQ(low.query().jobs_failed, 0u);
}

} /* namespace */
} /* namespace guest */
