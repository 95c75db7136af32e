/* SPDX-License-Identifier: MIT */
/*
 * Per-operation statistics through libvdla: Context::submit() with an
 * OpStatsTarget and OpStats::read(), for a CONV then an SDP; the checks
 * libvdla makes before the kernel sees the target; the plain submit()
 * writes nothing.
 */
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <drm/vdla_task.h>

#include <vdla/op_stats.h>

#include "reference_ops.h"
#include "test_data.h"
#include "umd_test.h"

namespace umd_test {

namespace {

using vdla_testdata::Rng;

constexpr uint8_t kCanary = 0x5a;

/* CONV (INT8 1x4x6x6, 2 filters 3x3, no padding: 4x4, INT32), then SCALE to INT8. */
class OpStatsTest : public UmdTest
{
protected:
	void SetUp() override
	{
		UmdTest::SetUp();
		if (HasFatalFailure())
			return;
		ctx_ = context();
		ASSERT_TRUE(ctx_);
		Rng rng(61);
		src_ = vdla_testdata::randomFull(rng, VDLA_DTYPE_INT8, 1, 4, 6, 6);
		wgt_ = vdla_testdata::randomFull(rng, VDLA_DTYPE_INT8, 2, 4, 3, 3);
		acc_ = vdla_ref::conv(src_, wgt_, cp_);
		sp_.scale = VDLA_SDP_MODE_PER_TENSOR;
		sp_.scaleMul = 5;
		sp_.scaleShift = 7;
		ref_ = vdla_ref::sdp(acc_, nullptr, sp_, VDLA_DTYPE_INT8);

		in_ = buffer(4096);
		wg_ = buffer(4096);
		mid_ = buffer(4096);
		out_ = buffer(4096);
		stats_ = buffer(4096);
		ASSERT_TRUE(in_ && wg_ && mid_ && out_ && stats_);
		storeTensor(in_->data(), src_);
		storeTensor(wg_->data(), wgt_);
		std::memset(stats_->data(), kCanary, stats_->size());

		vdla::TaskBuilder b;
		uint16_t s = b.addBuffer(*in_), w = b.addBuffer(*wg_);
		uint16_t m = b.addBuffer(*mid_, vdla::BufferUse::Write);
		uint16_t o = b.addBuffer(*out_, vdla::BufferUse::Write);
		uint16_t c = b.conv(convOp(
			tensorAt(s, 0, src_), tensorAt(w, 0, wgt_), tensorAt(m, 0, acc_), cp_));
		uint16_t q = b.sdp(sdpOp(tensorAt(m, 0, acc_), tensorAt(o, 0, ref_), sp_));
		b.link(c, q);
		auto task = b.build(*device_);
		ASSERT_TRUE(succeeded(task));
		task_ = std::move(*task);
		done_ = fence();
		ASSERT_TRUE(done_);
	}

	/* Waits for the job and returns its errno (-1 if the wait failed). */
	int finish()
	{
		auto waited = done_->wait(kJobTimeout);
		EXPECT_TRUE(succeeded(waited));
		auto status = done_->status();
		EXPECT_TRUE(succeeded(status));
		return waited && status ? status->error : -1;
	}

	bool statsUntouched() const
	{
		for (uint64_t i = 0; i < stats_->size(); i++)
			if (stats_->data()[i] != kCanary)
				return false;
		return true;
	}

	std::unique_ptr<vdla::Context> ctx_;
	vdla_ref::Tensor src_, wgt_, acc_, ref_;
	vdla_ref::ConvParams cp_;
	vdla_ref::SdpParams sp_;
	std::unique_ptr<vdla::Buffer> in_, wg_, mid_, out_, stats_;
	vdla::Task task_;
	std::unique_ptr<vdla::Fence> done_;
};

TEST_F(OpStatsTest, ConvThenSdpThroughTheRuntime)
{
	ASSERT_GE(device_->info().driverVersion.minor, 3u) << "the driver predates OP_STATS";
	constexpr uint64_t kAt = 64;
	auto seqno = ctx_->submit(task_, {}, { done_.get() }, { stats_.get(), kAt });
	ASSERT_TRUE(succeeded(seqno));
	ASSERT_EQ(finish(), 0);
	EXPECT_TRUE(vdla_ref::matches(ref_, loadTensor(out_->data(), ref_)));

	auto stats = vdla::OpStats::read(*stats_, kAt, task_.numOps());
	ASSERT_TRUE(succeeded(stats));
	ASSERT_EQ(stats->size(), 2u);
	const vdla::OpStats &conv = (*stats)[0], &sdp = (*stats)[1];
	/* N*Cout*OH*OW*Cin*KH*KW */
	EXPECT_EQ(conv.macs, 1u * 2 * 4 * 4 * 4 * 3 * 3);
	EXPECT_EQ(conv.bytesRead, 4u * 6 * 6 + 2 * 4 * 3 * 3);
	EXPECT_EQ(conv.bytesWritten, 2u * 4 * 4 * 4);
	EXPECT_GT(conv.deviceTime.count(), 0);
	EXPECT_EQ(sdp.macs, 2u * 4 * 4);
	EXPECT_EQ(sdp.bytesRead, 2u * 4 * 4 * 4);
	EXPECT_EQ(sdp.bytesWritten, 2u * 4 * 4);
	EXPECT_GT(sdp.deviceTime.count(), 0);

	/* The decoder agrees with a direct read of the bytes. */
	std::vector<vdla::OpStats> parsed = vdla::OpStats::parse(stats_->data() + kAt, 2);
	EXPECT_EQ(parsed[1].macs, sdp.macs);
	EXPECT_EQ(parsed[0].deviceTime, conv.deviceTime);
	for (uint64_t i = 0; i < stats_->size(); i++) {
		if (i < kAt || i >= kAt + vdla::OpStats::bytesFor(2)) {
			ASSERT_EQ(stats_->data()[i], kCanary) << "byte " << i;
		}
	}
}

TEST_F(OpStatsTest, TimeOnlyReportsTheDeviceTimesAlone)
{
	ASSERT_GE(device_->info().driverVersion.minor, 7u) << "the driver predates OP_TIME_ONLY";
	auto seqno = ctx_->submit(task_, {}, { done_.get() }, { stats_.get(), 0, true });
	ASSERT_TRUE(succeeded(seqno));
	ASSERT_EQ(finish(), 0);
	EXPECT_TRUE(vdla_ref::matches(ref_, loadTensor(out_->data(), ref_)));
	auto stats = vdla::OpStats::read(*stats_, 0, task_.numOps());
	ASSERT_TRUE(succeeded(stats));
	for (const vdla::OpStats &op : *stats) {
		EXPECT_GT(op.deviceTime.count(), 0);
		EXPECT_EQ(op.macs + op.bytesRead + op.bytesWritten, 0u);
	}
}

TEST_F(OpStatsTest, PlainSubmitWritesNoStatistics)
{
	ASSERT_TRUE(succeeded(ctx_->submit(task_, {}, { done_.get() })));
	ASSERT_EQ(finish(), 0);
	/* A target without a buffer is the same. */
	ASSERT_TRUE(succeeded(ctx_->submit(task_, {}, { done_.get() }, vdla::OpStatsTarget{})));
	ASSERT_EQ(finish(), 0);
	EXPECT_TRUE(statsUntouched());
	EXPECT_TRUE(vdla_ref::matches(ref_, loadTensor(out_->data(), ref_)));
}

TEST_F(OpStatsTest, BadTargetsAreRefusedBeforeTheKernel)
{
	auto tooFar = ctx_->submit(task_, {}, { done_.get() },
		{ stats_.get(), stats_->size() - vdla::OpStats::bytesFor(2) + 8 });
	ASSERT_FALSE(tooFar);
	EXPECT_EQ(tooFar.error().code(), EINVAL);
	auto beyond = ctx_->submit(task_, {}, { done_.get() }, { stats_.get(), stats_->size() });
	ASSERT_FALSE(beyond);
	EXPECT_EQ(beyond.error().code(), EINVAL);

	/* A read-only import of the buffer through another Device (file). */
	auto otherDevice = openAgain();
	ASSERT_TRUE(otherDevice);
	auto fd = stats_->exportFd();
	ASSERT_TRUE(succeeded(fd));
	auto readOnly = vdla::Buffer::import(*otherDevice, *fd, vdla::Buffer::Access::ReadOnly);
	::close(*fd);
	ASSERT_TRUE(succeeded(readOnly));
	auto foreign = ctx_->submit(task_, {}, { done_.get() }, { readOnly->get(), 0 });
	ASSERT_FALSE(foreign);
	EXPECT_EQ(foreign.error().code(), EINVAL) << foreign.error().message();

	auto otherCtx = vdla::Context::create(*otherDevice);
	ASSERT_TRUE(succeeded(otherCtx));
	vdla::TaskBuilder empty;
	auto emptyTask = empty.build(*otherDevice);
	ASSERT_TRUE(succeeded(emptyTask));
	auto ro = (*otherCtx)->submit(*emptyTask, {}, {}, { readOnly->get(), 0 });
	ASSERT_FALSE(ro);
	EXPECT_EQ(ro.error().code(), EACCES) << ro.error().message();

	auto status = ctx_->query();
	ASSERT_TRUE(succeeded(status));
	EXPECT_EQ(status->jobsSubmitted, 0u);
	EXPECT_TRUE(statsUntouched());
}

TEST_F(OpStatsTest, ReadChecksTheRange)
{
	auto r = vdla::OpStats::read(*stats_, stats_->size() - 31, 1);
	ASSERT_FALSE(r);
	EXPECT_EQ(r.error().code(), EINVAL);
	auto none = vdla::OpStats::read(*stats_, stats_->size(), 0);
	ASSERT_TRUE(succeeded(none));
	EXPECT_TRUE(none->empty());
}

} /* namespace */

} /* namespace umd_test */
