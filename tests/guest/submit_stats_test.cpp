/* SPDX-License-Identifier: MIT */
/*
 * DRM_VDLA_SUBMIT_OP_STATS: the driver writes one struct drm_vdla_op_stats
 * per operation at the offset of a writable address-list entry when the job
 * completes, with the device's counters (docs/hw-spec.md, "Per-operation
 * counters"). A CONV then an SDP report exact MACs and bytes; fused members
 * share the chain's time; a preempted job reports every operation once; a
 * descriptor rewritten after SUBMIT changes nothing that runs or is reported. A bad entry, a read-only
 * entry or too little room is refused with nothing queued and nothing
 * written; without the flag, or when the job fails, nothing is written.
 */
#include <gtest/gtest.h>

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "submit_test.h"

namespace guest {
namespace {

using namespace std::chrono_literals;
using namespace vdla_ref;
using vdla_testdata::randomFull;

constexpr uint64_t kRecord = sizeof(drm_vdla_op_stats);
static_assert(kRecord == 32, "the UAPI record is four __u64");

/* The @count records at @offset of @bo (any alignment). */
std::vector<drm_vdla_op_stats> records(Bo &bo, uint64_t offset, uint32_t count)
{
	std::vector<drm_vdla_op_stats> out(count);
	std::memcpy(out.data(), bo.map() + offset, count * kRecord);
	return out;
}

/* Every byte of @bo outside [@from, @to) still holds the canary. */
::testing::AssertionResult canaryOutside(Bo &bo, uint64_t from = 0, uint64_t to = 0)
{
	const uint8_t *p = bo.map();
	for (uint64_t i = 0; i < bo.size(); i++) {
		if ((i < from || i >= to) && p[i] != kCanary)
			return ::testing::AssertionFailure()
				<< "byte " << i << " of the statistics BO is 0x" << std::hex
				<< unsigned(p[i]) << ", not the canary";
	}
	return ::testing::AssertionSuccess();
}

/*
 * A CONV (INT8 1x3x8x8, 4 filters 3x3, padding 1: 8x8 out, INT32) into
 * memory, then a per-tensor SCALE + RELU SDP of it to INT8. Entries: 0 the
 * descriptor, 1 input, 2 weights, 3 accumulator, 4 output, 5 statistics.
 */
class SubmitStats : public SubmitTest
{
protected:
	enum Entry : uint16_t { kIn = 1, kWgt, kAcc, kOut, kStats, kEntries };
	/* Not a multiple of 8: the records need no alignment. */
	static constexpr uint64_t kAt = 100;

	void SetUp() override
	{
		SubmitTest::SetUp();
		if (HasFatalFailure())
			return;
		ctx_ = Ctx(fd());
		ASSERT_EQ(ctx_.error(), 0);
		Rng rng(91);
		x_ = randomFull(rng, VDLA_DTYPE_INT8, 1, 3, 8, 8);
		w_ = randomFull(rng, VDLA_DTYPE_INT8, 4, 3, 3, 3);
		cp_.padL = cp_.padR = cp_.padT = cp_.padB = 1;
		acc_ = conv(x_, w_, cp_);
		sp_.scale = VDLA_SDP_MODE_PER_TENSOR;
		sp_.scaleMul = 3;
		sp_.scaleShift = 6;
		sp_.act = VDLA_SDP_ACT_RELU;
		y_ = sdp(acc_, nullptr, sp_, VDLA_DTYPE_INT8);

		in_ = Bo(fd(), 4096);
		wgt_ = Bo(fd(), 4096);
		accBo_ = Bo(fd(), 4096);
		out_ = Bo(fd(), 4096);
		stats_ = Bo(fd(), 4096);
		for (Bo *bo : { &in_, &wgt_, &accBo_, &out_, &stats_ }) {
			ASSERT_EQ(bo->error(), 0);
			ASSERT_NE(bo->map(), nullptr);
			bo->fill(kCanary);
		}
		storeTensor(in_.map(), x_);
		storeTensor(wgt_.map(), w_);

		job_ = std::make_unique<HandJob>(fd(), ctx_.id());
		job_->add(in_);
		job_->add(wgt_);
		job_->add(accBo_, DRM_VDLA_ADDRESS_FLAG_WRITE);
		job_->add(out_, DRM_VDLA_ADDRESS_FLAG_WRITE);
		job_->add(stats_, DRM_VDLA_ADDRESS_FLAG_WRITE, kAt);
		uint16_t c = job_->task.conv(encodeConv(surfaceOf(kIn, 0, x_),
			surfaceOf(kWgt, 0, w_), surfaceOf(kAcc, 0, acc_), cp_));
		uint16_t s = job_->task.sdp(
			encodeSdp(surfaceOf(kAcc, 0, acc_), surfaceOf(kOut, 0, y_), sp_));
		job_->task.link(c, s);
		ASSERT_EQ(job_->finish(), 0);
		job_->submission.flags = DRM_VDLA_SUBMIT_OP_STATS;
		job_->submission.opStats = kStats;
	}

	/* SUBMIT of @s is refused with @error, and nothing was queued or written. */
	void expectRefused(const Submission &s, int error, const char *what)
	{
		SCOPED_TRACE(what);
		drm_vdla_submit result = {};
		EXPECT_EQ(submit(fd(), s, &result), error);
		EXPECT_EQ(result.error_field, 0u) << "the firmware refused the task instead";
		EXPECT_EQ(ctx_.query().jobs_submitted, 0u) << "a refused SUBMIT queued a job";
		EXPECT_TRUE(canaryOutside(stats_));
		EXPECT_TRUE(canaryOutside(out_));
	}

	Ctx ctx_;
	Tensor x_, w_, acc_, y_;
	ConvParams cp_;
	SdpParams sp_;
	Bo in_, wgt_, accBo_, out_, stats_;
	std::unique_ptr<HandJob> job_;
};

TEST_F(SubmitStats, ConvThenSdpReportExactCounters)
{
	ASSERT_EQ(job_->submit(), 0);
	ASSERT_TRUE(fenceSucceeds(job_->done));
	ASSERT_TRUE(matches(y_, loadTensor(out_.map(), y_))) << "the task's own output";

	/* N*Cout*OH*OW*Cin*KH*KW, per docs/hw-spec.md. */
	const uint64_t convMacsExpected = 1ull * 4 * 8 * 8 * 3 * 3 * 3;
	ASSERT_EQ(convMacsExpected, convMacs(x_, w_, cp_)) << "the reference disagrees";
	std::vector<drm_vdla_op_stats> st = records(stats_, kAt, 2);
	EXPECT_EQ(st[0].macs, convMacsExpected);
	EXPECT_EQ(st[0].bytes_read, 3u * 8 * 8 + 4 * 3 * 3 * 3) << "input and weights, INT8";
	EXPECT_EQ(st[0].bytes_written, 4u * 8 * 8 * 4) << "the INT32 accumulator";
	EXPECT_GT(st[0].device_ns, 0u);
	/* SCALE: one MAC per element; per-tensor parameters are registers. */
	EXPECT_EQ(st[1].macs, 4u * 8 * 8);
	EXPECT_EQ(st[1].macs, sdpMacs(acc_, sp_));
	EXPECT_EQ(st[1].bytes_read, 4u * 8 * 8 * 4);
	EXPECT_EQ(st[1].bytes_written, 4u * 8 * 8);
	EXPECT_GT(st[1].device_ns, 0u);
	EXPECT_TRUE(canaryOutside(stats_, kAt, kAt + 2 * kRecord)) << "written beyond the records";

	/* Submitted again, the records are rewritten with the same counters. */
	std::memset(stats_.map() + kAt, 0, 2 * kRecord);
	ASSERT_EQ(job_->submit(), 0);
	ASSERT_TRUE(fenceSucceeds(job_->done));
	std::vector<drm_vdla_op_stats> again = records(stats_, kAt, 2);
	for (int op = 0; op < 2; op++) {
		EXPECT_EQ(again[op].macs, st[op].macs) << op;
		EXPECT_EQ(again[op].bytes_read, st[op].bytes_read) << op;
		EXPECT_EQ(again[op].bytes_written, st[op].bytes_written) << op;
		EXPECT_GT(again[op].device_ns, 0u) << op;
	}
}

TEST_F(SubmitStats, RecordsMayEndAtTheEndOfTheBuffer)
{
	const uint64_t at = stats_.size() - 2 * kRecord;
	job_->submission.addresses[kStats] = stats_.entry(DRM_VDLA_ADDRESS_FLAG_WRITE, at);
	ASSERT_EQ(job_->submit(), 0);
	ASSERT_TRUE(fenceSucceeds(job_->done));
	std::vector<drm_vdla_op_stats> st = records(stats_, at, 2);
	EXPECT_EQ(st[0].macs, convMacs(x_, w_, cp_));
	EXPECT_EQ(st[1].bytes_written, 4u * 8 * 8);
	EXPECT_TRUE(canaryOutside(stats_, at, stats_.size()));
}

/* DRM_VDLA_SUBMIT_OP_TIME_ONLY: each operation's device time, the counters 0. */
TEST_F(SubmitStats, TimeOnlyReportsTheDeviceTimeAlone)
{
	job_->submission.flags |= DRM_VDLA_SUBMIT_OP_TIME_ONLY;
	ASSERT_EQ(job_->submit(), 0);
	ASSERT_TRUE(fenceSucceeds(job_->done));
	ASSERT_TRUE(matches(y_, loadTensor(out_.map(), y_)));
	for (const drm_vdla_op_stats &st : records(stats_, kAt, 2)) {
		EXPECT_GT(st.device_ns, 0u);
		EXPECT_EQ(st.macs | st.bytes_read | st.bytes_written, 0u);
	}
	EXPECT_TRUE(canaryOutside(stats_, kAt, kAt + 2 * kRecord));
}

TEST_F(SubmitStats, BadEntriesAreRefusedAndNothingIsWritten)
{
	const Submission good = job_->submission;
	Submission s = good;
	s.opStats = uint32_t(s.addresses.size());
	expectRefused(s, EINVAL, "an index one past the list");
	s.opStats = ~0u;
	expectRefused(s, EINVAL, "index ~0");

	s = good;
	s.addresses[kStats].flags = 0;
	expectRefused(s, EINVAL, "an entry not flagged for writing");
	s = good;
	s.opStats = kIn;
	expectRefused(s, EINVAL, "a read entry of the task");

	s = good;
	s.addresses[kStats].offset = stats_.size() - 2 * kRecord + 1;
	expectRefused(s, EINVAL, "one byte short");
	s.addresses[kStats].offset = stats_.size() - kRecord;
	expectRefused(s, EINVAL, "room for one of two records");

	s = good;
	s.flags = 0;
	expectRefused(s, EINVAL, "op_stats set without the flag");
	s.flags = DRM_VDLA_SUBMIT_OP_TIME_ONLY;
	expectRefused(s, EINVAL, "the time alone without the statistics");
	s.opStats = 0;
	expectRefused(s, EINVAL, "the time alone without the statistics, op_stats 0");
	s.flags = DRM_VDLA_SUBMIT_FLAGS << 1;
	expectRefused(s, EINVAL, "an unknown flag");

	/* The statistics BO imported read-only into another file, with an empty task. */
	Node other(paths_.front());
	ASSERT_TRUE(other.valid());
	Ctx otherCtx(other.fd());
	int dmabuf = stats_.exportFd();
	ASSERT_GE(dmabuf, 0);
	Bo readOnly = Bo::importVdla(other.fd(), dmabuf, DRM_VDLA_BO_IMPORT_FLAG_READ_ONLY);
	close(dmabuf);
	ASSERT_EQ(readOnly.error(), 0);
	Bo desc(other.fd(), 4096);
	ASSERT_EQ(desc.error(), 0);
	ASSERT_TRUE(TaskWriter().write(desc.map(), desc.size()));
	Submission theirs;
	theirs.ctx = otherCtx.id();
	theirs.addresses = { desc.entry(), readOnly.entry() };
	theirs.flags = DRM_VDLA_SUBMIT_OP_STATS;
	theirs.opStats = 1;
	EXPECT_EQ(submit(other.fd(), theirs), EINVAL) << "a read-only BO, not flagged";
	theirs.addresses[1].flags = DRM_VDLA_ADDRESS_FLAG_WRITE;
	EXPECT_EQ(submit(other.fd(), theirs), EACCES) << "a read-only BO flagged for writing";
	EXPECT_EQ(otherCtx.query().jobs_submitted, 0u);
	EXPECT_TRUE(canaryOutside(stats_));

	/* The context still works, and the good submission reports. */
	ASSERT_EQ(submit(fd(), good), 0);
	ASSERT_TRUE(fenceSucceeds(job_->done));
	EXPECT_EQ(records(stats_, kAt, 1)[0].macs, convMacs(x_, w_, cp_));
}

TEST_F(SubmitStats, WithoutTheFlagTheBufferIsUntouched)
{
	job_->submission.flags = 0;
	job_->submission.opStats = 0;
	ASSERT_EQ(job_->submit(), 0);
	ASSERT_TRUE(fenceSucceeds(job_->done));
	EXPECT_TRUE(matches(y_, loadTensor(out_.map(), y_)));
	EXPECT_TRUE(canaryOutside(stats_));
}

TEST_F(SubmitStats, AFailedJobWritesNothing)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("sdp", "op_error", 1), 0);
	ASSERT_EQ(job_->submit(), 0);
	EXPECT_TRUE(fenceFails(job_->done, EIO));
	EXPECT_TRUE(canaryOutside(stats_));
}

TEST_F(SubmitStats, AnEmptyTaskWritesNothing)
{
	Bo desc(fd(), 4096);
	ASSERT_EQ(desc.error(), 0);
	TaskWriter empty;
	ASSERT_TRUE(empty.write(desc.map(), desc.size()));
	Syncobj done(fd());
	Submission s;
	s.ctx = ctx_.id();
	s.addresses
		= { desc.entry(), stats_.entry(DRM_VDLA_ADDRESS_FLAG_WRITE, stats_.size() - 1) };
	s.flags = DRM_VDLA_SUBMIT_OP_STATS;
	s.opStats = 1;
	s.outSync = done.sync();
	ASSERT_EQ(submit(fd(), s), 0);
	EXPECT_TRUE(fenceSucceeds(done));
	EXPECT_TRUE(canaryOutside(stats_));
}

TEST_F(SubmitStats, FusedMembersShareTheChainTime)
{
	TaskWriter task;
	vdla_task_surface mid = flyingSurface(acc_.dtype, acc_.n, acc_.c, acc_.h, acc_.w);
	task.conv(encodeConv(
		surfaceOf(kIn, 0, x_), surfaceOf(kWgt, 0, w_), mid, cp_, VDLA_TASK_FLY_OUT));
	task.sdp(encodeSdp(mid, surfaceOf(kOut, 0, y_), sp_, VDLA_TASK_FLY_IN));
	ASSERT_TRUE(task.write(job_->desc.map(), job_->desc.size()));
	ASSERT_EQ(job_->submit(), 0);
	ASSERT_TRUE(fenceSucceeds(job_->done));
	EXPECT_TRUE(matches(y_, loadTensor(out_.map(), y_)));
	std::vector<drm_vdla_op_stats> st = records(stats_, kAt, 2);
	EXPECT_EQ(st[0].macs, convMacs(x_, w_, cp_));
	EXPECT_EQ(st[0].bytes_read, 3u * 8 * 8 + 4 * 3 * 3 * 3);
	EXPECT_EQ(st[0].bytes_written, 0u) << "the accumulator flies";
	EXPECT_EQ(st[1].bytes_read, 0u) << "the accumulator flies";
	EXPECT_EQ(st[1].bytes_written, 4u * 8 * 8);
	EXPECT_GT(st[0].device_ns, 0u);
	EXPECT_EQ(st[0].device_ns, st[1].device_ns);
}

/*
 * The job waits for a slow one while its descriptor is rewritten to a task
 * of the CONV alone: what SUBMIT checked runs, so the SDP runs and reports
 * its counters all the same.
 */
TEST_F(SubmitStats, ARewriteAfterSubmitLosesNoOperation)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 1, 300000), 0);
	Ctx slowCtx(fd());
	Bo a(fd(), 4096), b(fd(), 4096);
	HandJob slow(fd(), slowCtx.id());
	uint16_t from = slow.add(a), to = slow.add(b, DRM_VDLA_ADDRESS_FLAG_WRITE);
	slow.task.copy(from, 0, to, 0, 64);
	ASSERT_EQ(slow.submit(), 0);

	job_->submission.inSyncs = { slow.done.sync() };
	ASSERT_EQ(job_->submit(), 0);
	TaskWriter convOnly;
	convOnly.conv(encodeConv(
		surfaceOf(kIn, 0, x_), surfaceOf(kWgt, 0, w_), surfaceOf(kAcc, 0, acc_), cp_));
	ASSERT_TRUE(convOnly.write(job_->desc.map(), job_->desc.size()));
	ASSERT_FALSE(slow.done.signalled()) << "the slow job ended before the rewrite";

	EXPECT_TRUE(fenceSucceeds(slow.done));
	ASSERT_TRUE(fenceSucceeds(job_->done));
	std::vector<drm_vdla_op_stats> st = records(stats_, kAt, 2);
	EXPECT_EQ(st[0].macs, convMacs(x_, w_, cp_));
	EXPECT_GT(st[0].device_ns, 0u);
	EXPECT_GT(st[1].device_ns, 0u) << "the SDP did not run";
	EXPECT_EQ(st[1].bytes_written, 4u * 8 * 8);
	EXPECT_TRUE(canaryOutside(stats_, kAt, kAt + 2 * kRecord));
	EXPECT_TRUE(matches(y_, loadTensor(out_.map(), y_))) << "the SDP's output";
}

/* A long low-priority job stopped for a high-priority one: every op reported once. */
TEST_F(SubmitStats, APreemptedJobReportsEveryOperation)
{
	constexpr unsigned kSteps = 6, kDelayUs = 20000;
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, kDelayUs), 0);
	Ctx low(fd(), DRM_VDLA_PRIORITY_LOW), high(fd(), DRM_VDLA_PRIORITY_HIGH);
	ChainJob chain(fd(), kSteps, 92);
	ASSERT_EQ(chain.error(), 0);
	Syncobj chainDone(fd());
	Submission s = chain.submission(low.id(), chainDone.sync());
	s.addresses.push_back(stats_.entry(DRM_VDLA_ADDRESS_FLAG_WRITE, kAt));
	s.flags = DRM_VDLA_SUBMIT_OP_STATS;
	s.opStats = uint32_t(s.addresses.size() - 1);
	ASSERT_EQ(submit(fd(), s), 0);
	std::this_thread::sleep_for(30ms);

	Syncobj urgentDone(fd());
	SmallJob urgent(fd());
	Rng rng(93);
	urgent.prepare(rng, WorkKind::Sdp);
	ASSERT_EQ(submit(fd(), urgent.submission(high.id(), urgentDone.sync())), 0);
	EXPECT_TRUE(fenceSucceeds(urgentDone));
	EXPECT_TRUE(fenceSucceeds(chainDone));
	EXPECT_TRUE(chain.check());
	EXPECT_GE(low.query().jobs_preempted, 1u) << "the test did not preempt the job";

	std::vector<drm_vdla_op_stats> st = records(stats_, kAt, chain.ops());
	for (unsigned op = 0; op < chain.ops(); op++) {
		SCOPED_TRACE("op " + std::to_string(op));
		EXPECT_EQ(st[op].bytes_read, ChainJob::kSliceBytes);
		EXPECT_EQ(st[op].bytes_written, ChainJob::kSliceBytes);
		if (op % 2 == 0) {
			EXPECT_EQ(st[op].macs, 0u) << "BDMA";
			EXPECT_GE(st[op].device_ns, uint64_t(kDelayUs) * 1000)
				<< "the injected delay";
		} else {
			EXPECT_GT(st[op].device_ns, 0u);
		}
	}
	EXPECT_TRUE(canaryOutside(stats_, kAt, kAt + chain.ops() * kRecord));
}

} /* namespace */
} /* namespace guest */
