/* SPDX-License-Identifier: MIT */
/*
 * Device-time shares (docs/resources.md): defined through sysfs, leased
 * like the other resources, and enforced by the dispatcher. A LOW context
 * with a share gets its fraction of the device against a HIGH one that
 * has work ready all the time, and without the share it gets none; a
 * context of the holder's file joins the share by naming its lease; a
 * revoked share cancels nothing. Fractions are of the device time the
 * driver accounts (CTX_QUERY busy_ns), never of wall time.
 */
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "lease_env.h"
#include "submit_test.h"

namespace guest {
namespace {

constexpr uint64_t kMs = 1000000;
constexpr int kEventMs = 5000;
/* Each BDMA operation takes this long on the device: a job of kSteps lasts kSteps times it. */
constexpr unsigned kOpDelayUs = 3000;
constexpr unsigned kSteps = 4;

class TimeShareTest : public SubmitTest
{
protected:
	void SetUp() override
	{
		SubmitTest::SetUp();
		if (HasFatalFailure())
			return;
		other_ = Node(paths_[0]);
		ASSERT_TRUE(other_.valid());
	}

	void TearDown() override
	{
		shares_.reset();
		faults_.reset();
		starvation_.reset();
		other_.close();
	}

	/*
	 * The set-up of a contention measure: shares @spec defined, the
	 * starvation guard out of the way (only the shares and priorities
	 * order the jobs), and every BDMA operation kOpDelayUs long.
	 */
	void contend(const std::string &spec)
	{
		starvation_ = std::make_unique<ParamOverride>("starvation_ms", "10000");
		ASSERT_EQ(starvation_->error(), 0);
		faults_ = std::make_unique<FaultInjection>(node_.index());
		ASSERT_EQ(faults_->set("bdma", "delay", 0, kOpDelayUs), 0);
		shares_ = std::make_unique<TimeShares>(node_.index(), spec);
		ASSERT_EQ(shares_->error(), 0);
	}

	int otherFd() const { return other_.fd(); }

	/* A share lease on share @index for @ctx at @priority; its id (0 if refused). */
	static uint32_t holdShare(int fd, const Ctx &ctx, uint32_t priority, uint32_t index = 0,
				  uint64_t releaseTimeoutNs = 0)
	{
		LeaseClaim c;
		c.ctx = ctx.id();
		c.resource = DRM_VDLA_RESOURCE_TIME_SHARE;
		c.index = index;
		c.priority = priority;
		c.releaseTimeoutNs = releaseTimeoutNs;
		uint32_t id = 0, state = 0;
		EXPECT_EQ(leaseAcquire(fd, c, &id, &state), 0);
		EXPECT_EQ(state, uint32_t(DRM_VDLA_LEASE_STATE_HELD));
		return id;
	}

	Node other_;
	std::unique_ptr<ParamOverride> starvation_;
	std::unique_ptr<FaultInjection> faults_;
	std::unique_ptr<TimeShares> shares_;
};

/*
 * Jobs of kSteps delayed BDMA copies on one context, made first and then
 * submitted back to back: making them takes far longer than submitting,
 * and the contexts' backlogs must start together.
 */
class Backlog
{
public:
	Backlog(int fd, const Ctx &ctx, unsigned count, uint64_t seed) : fd_(fd), ctx_(ctx.id())
	{
		for (unsigned i = 0; i < count; i++) {
			jobs_.push_back(std::make_unique<ChainJob>(fd_, kSteps, seed + i));
			done_.push_back(std::make_unique<Syncobj>(fd_));
		}
	}

	/* Submits the jobs, the first naming @lease; the errno of the first refused. */
	int submit(uint32_t lease = 0)
	{
		for (size_t i = 0; i < jobs_.size(); i++) {
			Submission s = jobs_[i]->submission(ctx_, done_[i]->sync());
			s.leaseId = i == 0 ? lease : 0;
			int ret = guest::submit(fd_, s);
			if (ret) {
				jobs_.resize(i);
				done_.resize(i);
				return ret;
			}
		}
		return 0;
	}

	/* Waits for the last job submitted. */
	::testing::AssertionResult lastEnds() { return fenceSucceeds(*done_.back(), 30000); }

	/* Jobs that ended before @ns (CLOCK_MONOTONIC), by their fences' timestamps. */
	unsigned endedBefore(uint64_t ns) const
	{
		unsigned n = 0;
		for (const auto &done : done_)
			n += done->fence().timestampNs < ns;
		return n;
	}

	uint64_t lastEndNs() const { return done_.back()->fence().timestampNs; }

	/* Every job completed with the CPU reference's result; none was cancelled. */
	void checkAll()
	{
		for (size_t i = 0; i < jobs_.size(); i++) {
			EXPECT_TRUE(fenceSucceeds(*done_[i], 30000)) << "job " << i;
			EXPECT_TRUE(jobs_[i]->check()) << "job " << i;
		}
	}

private:
	int fd_;
	uint32_t ctx_;
	std::vector<std::unique_ptr<ChainJob>> jobs_;
	std::vector<std::unique_ptr<Syncobj>> done_;
};

/*
 * 60 jobs of each of @lows (the first naming the lease of the same index in
 * @leases, if any) against 30 of @high, HIGH's submitted first: the part of
 * the jobs that ended until HIGH's last one did that each of @lows ran.
 * The jobs are alike, so this is their part of the device time; a job
 * counts once it has ended (fence timestamps), whenever the test sees it.
 */
std::vector<double> lowFractions(const std::vector<const Ctx *> &lows, const Ctx &high,
				 const std::vector<uint32_t> &leases, uint64_t seed)
{
	constexpr unsigned kHighJobs = 30;
	Backlog highs(high.fd(), high, kHighJobs, seed);
	std::vector<std::unique_ptr<Backlog>> backlogs;
	for (size_t i = 0; i < lows.size(); i++)
		backlogs.push_back(std::make_unique<Backlog>(lows[i]->fd(), *lows[i], 60,
							     seed + 1000 * (i + 1)));
	EXPECT_EQ(highs.submit(), 0);
	for (size_t i = 0; i < lows.size(); i++)
		EXPECT_EQ(backlogs[i]->submit(i < leases.size() ? leases[i] : 0), 0);
	EXPECT_TRUE(highs.lastEnds());
	uint64_t end = highs.lastEndNs();
	std::vector<unsigned> ran;
	unsigned total = kHighJobs;
	for (auto &backlog : backlogs) {
		backlog->checkAll();
		ran.push_back(backlog->endedBefore(end));
		total += ran.back();
	}
	highs.checkAll();
	std::vector<double> fractions;
	for (size_t i = 0; i < lows.size(); i++) {
		fractions.push_back(double(ran[i]) / double(total));
		std::printf("[ share    ] context %zu ran %u of %u jobs: %.3f\n", i, ran[i], total,
			    fractions.back());
	}
	return fractions;
}

double lowFraction(const Ctx &low, const Ctx &high, uint32_t lease, uint64_t seed)
{
	return lowFractions({ &low }, high, { lease }, seed)[0];
}

TEST_F(TimeShareTest, SharesAreDefinedThroughSysfsAndQueried)
{
	int index = node_.index();
	TimeShares shares(index, "camera:40,monitor:25%");
	ASSERT_EQ(shares.error(), 0);
	std::string text;
	ASSERT_EQ(readFile(timeSharesPath(index), &text), 0);
	EXPECT_EQ(text, "camera:40,monitor:25\n");
	drm_vdla_query_time_shares q;
	ASSERT_EQ(queryTimeShares(fd(), &q), 0);
	EXPECT_EQ(q.count, 2u);
	EXPECT_EQ(q.period_us, std::stoul(readParam("time_share_period_ms")) * 1000);
	EXPECT_STREQ(q.shares[0].name, "camera");
	EXPECT_EQ(q.shares[0].percent, 40u);
	EXPECT_STREQ(q.shares[1].name, "monitor");
	EXPECT_EQ(q.shares[1].percent, 25u);
	EXPECT_EQ(q.shares[2].percent, 0u);

	/* Bad definitions change nothing. */
	for (const char *bad : { "a:0", "a:101", "a:50,:10", "a b:10", "a:10x", "a", "a:-5", "a:10,a:20",
				 "a:1,b:1,c:1,d:1,e:1,f:1,g:1,h:1,i:1",
				 "a-name-that-is-too-long:10" })
		EXPECT_EQ(writeFile(timeSharesPath(index), bad), EINVAL) << bad;
	EXPECT_EQ(writeFile(timeSharesPath(index), "a:60,b:41"), ENOSPC)
		<< "the shares make more than the whole device";
	ASSERT_EQ(readFile(timeSharesPath(index), &text), 0);
	EXPECT_EQ(text, "camera:40,monitor:25\n");

	/* A lease on a share keeps the definition; an index past them does not exist. */
	Ctx ctx(fd(), DRM_VDLA_PRIORITY_NORMAL);
	uint32_t lease = holdShare(fd(), ctx, DRM_VDLA_PRIORITY_NORMAL, 1);
	EXPECT_EQ(writeFile(timeSharesPath(index), "other:10"), EBUSY);
	LeaseClaim past;
	past.ctx = ctx.id();
	past.resource = DRM_VDLA_RESOURCE_TIME_SHARE;
	past.index = 2;
	uint32_t id = 0;
	EXPECT_EQ(leaseAcquire(fd(), past, &id), ENOENT);
	EXPECT_EQ(Bo(fd(), 4096, DRM_VDLA_BO_CREATE_SRAM, lease).error(), EINVAL)
		<< "a share has no SRAM";
	std::string debugfs;
	ASSERT_EQ(readFile(debugfsPath(index, "leases"), &debugfs), 0);
	EXPECT_NE(debugfs.find("time_share 1 monitor percent 25"), std::string::npos) << debugfs;
	EXPECT_NE(debugfs.find("holder lease " + std::to_string(lease)), std::string::npos)
		<< debugfs;
	ASSERT_EQ(leaseRelease(fd(), lease), 0);
	EXPECT_EQ(writeFile(timeSharesPath(index), "\n"), 0);
	ASSERT_EQ(queryTimeShares(fd(), &q), 0);
	EXPECT_EQ(q.count, 0u);
}

TEST_F(TimeShareTest, AShareGetsItsFractionAgainstAHigherPriority)
{
	ASSERT_NO_FATAL_FAILURE(contend("camera:30"));
	Ctx low(fd(), DRM_VDLA_PRIORITY_LOW), high(otherFd(), DRM_VDLA_PRIORITY_HIGH);

	double without = lowFraction(low, high, 0, 100);
	EXPECT_LT(without, 0.1) << "without a share LOW waits for HIGH";

	uint32_t lease = holdShare(fd(), low, DRM_VDLA_PRIORITY_LOW);
	uint64_t lowBefore = low.query().busy_ns;
	double with = lowFraction(low, high, 0, 200);
	EXPECT_GT(with, 0.22) << "a 30% share got less";
	EXPECT_LT(with, 0.40) << "past its credit a share goes by its priority";
	uint64_t lowNs = low.query().busy_ns - lowBefore;
	drm_vdla_query_time_shares q;
	ASSERT_EQ(queryTimeShares(fd(), &q), 0);
	EXPECT_NEAR(double(q.shares[0].total_ns), double(lowNs), 0.02 * double(lowNs))
		<< "the share is charged the device time of its context";
	EXPECT_GT(high.query().jobs_preempted, 0u) << "the share's jobs stop HIGH's at a boundary";
	EXPECT_EQ(low.query().jobs_failed, 0u);
	EXPECT_EQ(high.query().jobs_failed, 0u);
	ASSERT_EQ(leaseRelease(fd(), lease), 0);
	EXPECT_LT(lowFraction(low, high, 0, 300), 0.1) << "the share outlived its lease";
}

TEST_F(TimeShareTest, SeveralSharesEachGetTheirFractionInEveryPeriod)
{
	ASSERT_NO_FATAL_FAILURE(contend("camera:40,monitor:20"));
	Ctx camera(fd(), DRM_VDLA_PRIORITY_LOW), monitor(otherFd(), DRM_VDLA_PRIORITY_LOW);
	Ctx high(otherFd(), DRM_VDLA_PRIORITY_HIGH);
	holdShare(fd(), camera, DRM_VDLA_PRIORITY_LOW, 0);
	holdShare(otherFd(), monitor, DRM_VDLA_PRIORITY_LOW, 1);
	std::vector<double> got = lowFractions({ &camera, &monitor }, high, {}, 700);
	EXPECT_GT(got[0], 0.30);
	EXPECT_LT(got[0], 0.50);
	EXPECT_GT(got[1], 0.13);
	EXPECT_LT(got[1], 0.30);
	drm_vdla_query_time_shares q;
	ASSERT_EQ(queryTimeShares(fd(), &q), 0);
	/* Each share is charged its own context's device time. */
	uint64_t cameraNs = camera.query().busy_ns, monitorNs = monitor.query().busy_ns;
	EXPECT_NEAR(double(q.shares[0].total_ns), double(cameraNs), 0.02 * double(cameraNs));
	EXPECT_NEAR(double(q.shares[1].total_ns), double(monitorNs), 0.02 * double(monitorNs));
}

TEST_F(TimeShareTest, AContextOfTheHoldersFileJoinsByNamingTheLease)
{
	ASSERT_NO_FATAL_FAILURE(contend("group:50"));
	Ctx holder(fd(), DRM_VDLA_PRIORITY_LOW), member(fd(), DRM_VDLA_PRIORITY_LOW);
	Ctx high(otherFd(), DRM_VDLA_PRIORITY_HIGH), stranger(otherFd(), DRM_VDLA_PRIORITY_LOW);
	uint32_t lease = holdShare(fd(), holder, DRM_VDLA_PRIORITY_LOW, 0, 50 * kMs);

	/* Another file's context cannot name it: the id is not in its namespace. */
	Backlog foreign(otherFd(), stranger, 1, 1);
	EXPECT_EQ(foreign.submit(lease), ENOENT);

	EXPECT_GT(lowFraction(member, high, lease, 400), 0.35)
		<< "the joined context did not get the share";
	drm_vdla_query_time_shares q;
	ASSERT_EQ(queryTimeShares(fd(), &q), 0);
	EXPECT_NEAR(double(q.shares[0].total_ns), double(member.query().busy_ns),
		    0.02 * double(member.query().busy_ns));

	/* Revoked by a higher claim: nothing is cancelled, and nobody joins any more. */
	Backlog running(fd(), member, 8, 500);
	ASSERT_EQ(running.submit(), 0);
	LeaseClaim takeover;
	takeover.ctx = high.id();
	takeover.resource = DRM_VDLA_RESOURCE_TIME_SHARE;
	takeover.priority = DRM_VDLA_PRIORITY_HIGH;
	takeover.flags = DRM_VDLA_LEASE_ACQUIRE_QUEUE;
	uint32_t other = 0, state = 0;
	ASSERT_EQ(leaseAcquire(otherFd(), takeover, &other, &state), 0);
	drm_vdla_event_lease revoked;
	ASSERT_TRUE(waitLeaseEvent(fd(), DRM_VDLA_EVENT_LEASE_REVOKED, 10000, &revoked));
	EXPECT_EQ(revoked.resource, uint32_t(DRM_VDLA_RESOURCE_TIME_SHARE));
	EXPECT_EQ(state, uint32_t(DRM_VDLA_LEASE_STATE_WAITING));
	EXPECT_TRUE(waitLeaseEvent(otherFd(), DRM_VDLA_EVENT_LEASE_GRANTED, kEventMs));
	running.checkAll();
	EXPECT_EQ(member.query().jobs_failed, 0u) << "revoking a share cancelled a job";
	Backlog late(fd(), member, 1, 600);
	EXPECT_EQ(late.submit(lease), ECANCELED) << "joined a revoked share";
	ASSERT_EQ(leaseRelease(otherFd(), other), 0);
	ASSERT_EQ(leaseRelease(fd(), lease), 0);
}

TEST_F(TimeShareTest, ReleasingAndClaimingAgainDoesNotRenewTheCredit)
{
	/* A period far longer than the test: every charge below is in one period. */
	ParamOverride period("time_share_period_ms", "10000");
	ASSERT_EQ(period.error(), 0);
	TimeShares shares(node_.index(), "camera:50,monitor:10");
	ASSERT_EQ(shares.error(), 0);
	Ctx ctx(fd(), DRM_VDLA_PRIORITY_NORMAL), other(fd(), DRM_VDLA_PRIORITY_NORMAL);
	uint32_t lease = holdShare(fd(), ctx, DRM_VDLA_PRIORITY_NORMAL);
	LeaseClaim second;
	second.ctx = ctx.id();
	second.resource = DRM_VDLA_RESOURCE_TIME_SHARE;
	second.index = 1;
	uint32_t id = 0;
	EXPECT_EQ(leaseAcquire(fd(), second, &id), EEXIST) << "a context is charged to one share";
	Backlog work(fd(), ctx, 2, 800);
	ASSERT_EQ(work.submit(), 0);
	work.checkAll();
	drm_vdla_query_time_shares q;
	ASSERT_EQ(queryTimeShares(fd(), &q), 0);
	uint64_t used = q.shares[0].used_ns;
	EXPECT_GT(used, 0u);
	ASSERT_EQ(leaseRelease(fd(), lease), 0);
	lease = holdShare(fd(), ctx, DRM_VDLA_PRIORITY_NORMAL);
	ASSERT_EQ(queryTimeShares(fd(), &q), 0);
	EXPECT_EQ(q.shares[0].used_ns, used) << "claiming the share again renewed its credit";

	/* A context holding a share of its own does not join another's. */
	uint32_t otherLease = holdShare(fd(), other, DRM_VDLA_PRIORITY_NORMAL, 1);
	Backlog joining(fd(), ctx, 1, 900);
	EXPECT_EQ(joining.submit(otherLease), EBUSY);
	ASSERT_EQ(leaseRelease(fd(), otherLease), 0);
	ASSERT_EQ(leaseRelease(fd(), lease), 0);
}

TEST_F(TimeShareTest, ANewDefinitionBeginsANewPeriod)
{
	Ctx ctx(fd(), DRM_VDLA_PRIORITY_NORMAL);
	drm_vdla_query_time_shares q;
	{
		/* A long period begins with the first lease and is not over at its release. */
		ParamOverride period("time_share_period_ms", "10000");
		ASSERT_EQ(period.error(), 0);
		TimeShares shares(node_.index(), "camera:50");
		ASSERT_EQ(shares.error(), 0);
		uint32_t lease = holdShare(fd(), ctx, DRM_VDLA_PRIORITY_NORMAL);
		ASSERT_EQ(queryTimeShares(fd(), &q), 0);
		EXPECT_EQ(q.period_us, 10000000u);
		ASSERT_EQ(leaseRelease(fd(), lease), 0);
	}
	ParamOverride period("time_share_period_ms", "50");
	ASSERT_EQ(period.error(), 0);
	TimeShares shares(node_.index(), "camera:50");
	ASSERT_EQ(shares.error(), 0);
	uint32_t lease = holdShare(fd(), ctx, DRM_VDLA_PRIORITY_NORMAL);
	ASSERT_EQ(queryTimeShares(fd(), &q), 0);
	EXPECT_EQ(q.period_us, 50000u) << "new shares went on with the old shares' period";
	ASSERT_EQ(leaseRelease(fd(), lease), 0);
}

TEST_F(TimeShareTest, AJobThatLosesItsShareIsPreemptedByAHigherPriority)
{
	ParamOverride period("time_share_period_ms", "10000");
	ASSERT_EQ(period.error(), 0);
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 20000), 0);
	TimeShares shares(node_.index(), "all:100");
	ASSERT_EQ(shares.error(), 0);
	Ctx low(fd(), DRM_VDLA_PRIORITY_LOW), high(otherFd(), DRM_VDLA_PRIORITY_HIGH);
	uint32_t lease = holdShare(fd(), low, DRM_VDLA_PRIORITY_LOW);
	/* 16 operations of 20 ms: the share's credit protects it from HIGH. */
	ChainJob chain(fd(), 16, 900);
	Syncobj chainDone(fd());
	ASSERT_EQ(submit(fd(), chain.submission(low.id(), chainDone.sync())), 0);
	ASSERT_TRUE(waitUntil([&] { return readState(node_.index())["running"] == 1; }, 5000));
	Backlog urgent(otherFd(), high, 1, 901);
	ASSERT_EQ(urgent.submit(), 0);
	EXPECT_EQ(low.query().jobs_preempted, 0u) << "a job with credit was stopped";
	/* Without its share the running job goes by its priority: HIGH stops it. */
	ASSERT_EQ(leaseRelease(fd(), lease), 0);
	EXPECT_TRUE(urgent.lastEnds());
	EXPECT_TRUE(fenceSucceeds(chainDone));
	EXPECT_TRUE(chain.check());
	EXPECT_LT(urgent.lastEndNs(), chainDone.fence().timestampNs)
		<< "HIGH waited for the whole job that had lost its share";
	EXPECT_EQ(low.query().jobs_preempted, 1u);
	urgent.checkAll();
}

} /* namespace */
} /* namespace guest */
