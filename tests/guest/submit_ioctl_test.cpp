/* SPDX-License-Identifier: MIT */
/*
 * DRM_IOCTL_VDLA_SUBMIT's checks: every argument the driver checks before
 * it queues a job, and tasks the firmware refuses, each named by its op,
 * field and reason. A refused SUBMIT queues nothing and leaves the context
 * usable.
 */
#include <gtest/gtest.h>

#include <sys/ioctl.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <memory>

#include <xf86drm.h>

#include "dla_interface.h"
#include "submit_test.h"

namespace guest {
namespace {

unsigned long withSize(unsigned long request, unsigned int size)
{
	return (request & ~(static_cast<unsigned long>(_IOC_SIZEMASK) << _IOC_SIZESHIFT))
		| (static_cast<unsigned long>(size) << _IOC_SIZESHIFT);
}

class SubmitIoctl : public SubmitTest
{
protected:
	void SetUp() override
	{
		SubmitTest::SetUp();
		if (HasFatalFailure())
			return;
		ctx_ = Ctx(fd());
		ASSERT_EQ(ctx_.error(), 0);
		job_ = std::make_unique<SmallJob>(fd());
		ASSERT_EQ(job_->error(), 0);
		Rng rng(31);
		job_->prepare(rng, WorkKind::CopySdp);
	}

	/* The context took no job and still works. */
	void expectNothingQueued()
	{
		drm_vdla_ctx_query q = ctx_.query();
		EXPECT_EQ(q.jobs_submitted, 0u) << "a refused SUBMIT queued a job";
		EXPECT_EQ(q.state, uint32_t(DRM_VDLA_CTX_STATE_ACTIVE));
		EXPECT_TRUE(runJob(*job_, ctx_.id())) << "the context no longer works";
	}

	Ctx ctx_;
	std::unique_ptr<SmallJob> job_;
};

TEST_F(SubmitIoctl, SequenceNumbersCountFromOne)
{
	for (uint64_t i = 1; i <= 3; i++) {
		Syncobj done(fd());
		drm_vdla_submit result;
		ASSERT_EQ(submit(fd(), job_->submission(ctx_.id(), done.sync()), &result), 0);
		EXPECT_EQ(result.seqno, i);
		EXPECT_TRUE(fenceSucceeds(done));
	}
	EXPECT_TRUE(job_->check());
	/* Another context counts on its own. */
	Ctx other(fd());
	drm_vdla_submit result;
	Syncobj done(fd());
	ASSERT_EQ(submit(fd(), job_->submission(other.id(), done.sync()), &result), 0);
	EXPECT_EQ(result.seqno, 1u);
	EXPECT_TRUE(fenceSucceeds(done));
}

TEST_F(SubmitIoctl, RejectsFlagsAndPad)
{
	Submission s = job_->submission(ctx_.id());
	drm_vdla_submit args = {};
	args.ctx_id = ctx_.id();
	args.addresses = reinterpret_cast<uintptr_t>(s.addresses.data());
	args.address_count = uint32_t(s.addresses.size());
	for (uint32_t flags : { 2u, 1u << 31 }) {
		drm_vdla_submit a = args;
		a.flags = flags;
		EXPECT_EQ(submitRaw(fd(), &a), EINVAL) << flags;
	}
	/* Without DRM_VDLA_SUBMIT_OP_STATS, op_stats (the old pad) stays 0. */
	drm_vdla_submit a = args;
	a.op_stats = 1;
	EXPECT_EQ(submitRaw(fd(), &a), EINVAL);
	expectNothingQueued();
}

TEST_F(SubmitIoctl, RejectsCountsOverTheLimits)
{
	Submission s = job_->submission(ctx_.id());
	s.addresses.clear();
	EXPECT_EQ(submit(fd(), s), EINVAL) << "no address-list entry";

	s = job_->submission(ctx_.id());
	s.addresses.resize(DRM_VDLA_MAX_ADDRESSES + 1, s.addresses.back());
	EXPECT_EQ(submit(fd(), s), EINVAL) << "too many entries";

	std::vector<Syncobj> syncs;
	s = job_->submission(ctx_.id());
	for (int i = 0; i <= DRM_VDLA_MAX_IN_SYNCS; i++) {
		syncs.emplace_back(fd(), DRM_SYNCOBJ_CREATE_SIGNALED);
		s.inSyncs.push_back(syncs.back().sync());
	}
	EXPECT_EQ(submit(fd(), s), EINVAL) << "too many in-syncs";
	expectNothingQueued();
}

TEST_F(SubmitIoctl, AcceptsCountsAtTheLimits)
{
	Submission s = job_->submission(ctx_.id());
	std::vector<Bo> extra;
	while (s.addresses.size() < DRM_VDLA_MAX_ADDRESSES) {
		extra.emplace_back(fd(), 4096);
		ASSERT_EQ(extra.back().error(), 0) << "BO " << extra.size();
		s.addresses.push_back(extra.back().entry());
	}
	std::vector<Syncobj> syncs;
	for (int i = 0; i < DRM_VDLA_MAX_IN_SYNCS; i++) {
		syncs.emplace_back(fd(), DRM_SYNCOBJ_CREATE_SIGNALED);
		s.inSyncs.push_back(syncs.back().sync());
	}
	Syncobj done(fd());
	s.outSync = done.sync();
	ASSERT_EQ(submit(fd(), s), 0);
	EXPECT_TRUE(fenceSucceeds(done));
	EXPECT_TRUE(job_->check());
}

TEST_F(SubmitIoctl, RejectsADescriptorIndexOutOfRange)
{
	Submission s = job_->submission(ctx_.id());
	for (uint32_t index : { uint32_t(s.addresses.size()), 1000u, ~0u }) {
		s.descriptor = index;
		EXPECT_EQ(submit(fd(), s), EINVAL) << index;
	}
	expectNothingQueued();
}

TEST_F(SubmitIoctl, RejectsBadAddressEntries)
{
	const Submission good = job_->submission(ctx_.id());
	const uint64_t size = job_->bo(SmallJob::kIn).size();
	auto with = [&](const std::function<void(drm_vdla_address &)> &change) {
		Submission s = good;
		change(s.addresses[SmallJob::kIn]);
		return submit(fd(), s);
	};
	EXPECT_EQ(with([](auto &a) { a.flags = 2; }), EINVAL);
	EXPECT_EQ(with([](auto &a) { a.flags = 1u << 31; }), EINVAL);
	EXPECT_EQ(with([&](auto &a) { a.offset = size; }), EINVAL);
	EXPECT_EQ(with([&](auto &a) { a.offset = size + 4096; }), EINVAL);
	EXPECT_EQ(with([](auto &a) { a.offset = ~0ull; }), EINVAL);
	EXPECT_EQ(with([](auto &a) { a.handle = 0; }), ENOENT);
	EXPECT_EQ(with([](auto &a) { a.handle = 0xdeadbeef; }), ENOENT);

	Bo stale(fd(), 4096);
	uint32_t handle = stale.handle();
	ASSERT_EQ(stale.closeHandle(), 0);
	EXPECT_EQ(with([&](auto &a) { a.handle = handle; }), ENOENT) << "a closed handle";
	expectNothingQueued();
}

TEST_F(SubmitIoctl, RejectsAnotherFilesHandlesAndContexts)
{
	Node other(paths_.front());
	ASSERT_TRUE(other.valid());
	SmallJob theirs(other.fd());
	ASSERT_EQ(theirs.error(), 0);
	Rng rng(32);
	theirs.prepare(rng, WorkKind::Sdp);

	/* A context of ours is not theirs: they have none yet. */
	EXPECT_EQ(submit(other.fd(), theirs.submission(ctx_.id())), ENOENT);

	/* A handle of ours that they do not have. */
	std::vector<Bo> more;
	while (more.size() < 8)
		more.emplace_back(fd(), 4096);
	uint32_t foreign = more.back().handle();
	for (int e = 0; e < SmallJob::kEntries; e++)
		ASSERT_NE(theirs.bo(SmallJob::Entry(e)).handle(), foreign);
	Ctx theirCtx(other.fd());
	ASSERT_EQ(theirCtx.error(), 0);
	Submission s = theirs.submission(theirCtx.id());
	s.addresses[SmallJob::kIn].handle = foreign;
	EXPECT_EQ(submit(other.fd(), s), ENOENT);

	/* Their own job goes through, and ours are untouched. */
	EXPECT_TRUE(runJob(theirs, theirCtx.id()));
	expectNothingQueued();
}

TEST_F(SubmitIoctl, RejectsBadSyncobjs)
{
	const Submission good = job_->submission(ctx_.id());
	Syncobj signalled(fd(), DRM_SYNCOBJ_CREATE_SIGNALED), empty(fd()), timeline(fd());
	ASSERT_EQ(signalled.error(), 0);
	uint32_t th = timeline.handle();
	uint64_t point = 2;
	ASSERT_EQ(drmSyncobjTimelineSignal(fd(), &th, &point, 1), 0);

	auto withIn = [&](drm_vdla_sync in) {
		Submission s = good;
		s.inSyncs = { in };
		return submit(fd(), s);
	};
	auto withOut = [&](drm_vdla_sync out) {
		Submission s = good;
		s.outSync = out;
		return submit(fd(), s);
	};
	drm_vdla_sync bad = signalled.sync();
	bad.handle = 0xdeadbeef;
	EXPECT_EQ(withIn(bad), ENOENT);
	EXPECT_EQ(withOut(bad), ENOENT);
	bad.handle = 0;
	EXPECT_EQ(withIn(bad), ENOENT) << "handle 0 is 'none' only for the out-sync";

	bad = signalled.sync();
	bad.flags = 1;
	EXPECT_EQ(withIn(bad), EINVAL);
	EXPECT_EQ(withOut(bad), EINVAL);

	EXPECT_EQ(withIn(empty.sync()), ENOENT) << "an in-sync with no fence";
	EXPECT_EQ(withIn(timeline.sync(5)), ENOENT) << "a timeline point with no fence";

	/* A syncobj of another file, with a handle this file does not have. */
	Node other(paths_.front());
	std::vector<Syncobj> theirs;
	while (theirs.size() < 12)
		theirs.emplace_back(other.fd(), DRM_SYNCOBJ_CREATE_SIGNALED);
	uint32_t foreign = theirs.back().handle();
	ASSERT_NE(foreign, signalled.handle());
	ASSERT_NE(foreign, empty.handle());
	ASSERT_NE(foreign, timeline.handle());
	bad = signalled.sync();
	bad.handle = foreign;
	EXPECT_EQ(withIn(bad), ENOENT) << "a syncobj of another file";

	Syncobj gone(fd(), DRM_SYNCOBJ_CREATE_SIGNALED);
	uint32_t handle = gone.handle();
	gone = Syncobj();
	bad = signalled.sync();
	bad.handle = handle;
	EXPECT_EQ(withIn(bad), ENOENT) << "a destroyed syncobj";

	expectNothingQueued();

	/* The same syncobjs used right are accepted. */
	Submission s = good;
	s.inSyncs = { signalled.sync(), timeline.sync(2), timeline.sync(1) };
	Syncobj done(fd());
	s.outSync = done.sync();
	EXPECT_EQ(submit(fd(), s), 0);
	EXPECT_TRUE(fenceSucceeds(done));
}

TEST_F(SubmitIoctl, RejectsUnreadableArrays)
{
	Submission s = job_->submission(ctx_.id());
	drm_vdla_submit args = {};
	args.ctx_id = ctx_.id();
	args.address_count = uint32_t(s.addresses.size());
	args.addresses = 0;
	EXPECT_EQ(submitRaw(fd(), &args), EFAULT);
	args.addresses = 0x1000;
	EXPECT_EQ(submitRaw(fd(), &args), EFAULT);

	/* Entries that end in an unmapped page. */
	long page = 4096;
	auto *mem = static_cast<uint8_t *>(::mmap(
		nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	ASSERT_NE(mem, MAP_FAILED);
	ASSERT_EQ(::mprotect(mem + page, page, PROT_NONE), 0);
	auto *tail = reinterpret_cast<drm_vdla_address *>(mem + page) - 2;
	std::memcpy(tail, s.addresses.data(), 2 * sizeof(drm_vdla_address));
	args.addresses = reinterpret_cast<uintptr_t>(tail);
	args.address_count = 3;
	EXPECT_EQ(submitRaw(fd(), &args), EFAULT);

	args.addresses = reinterpret_cast<uintptr_t>(s.addresses.data());
	args.address_count = uint32_t(s.addresses.size());
	args.in_syncs = 0x1000;
	args.in_sync_count = 1;
	EXPECT_EQ(submitRaw(fd(), &args), EFAULT);
	args.in_syncs = reinterpret_cast<uintptr_t>(mem + page);
	EXPECT_EQ(submitRaw(fd(), &args), EFAULT);
	::munmap(mem, 2 * page);

	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_SUBMIT, reinterpret_cast<void *>(0x10)), EFAULT);
	expectNothingQueued();
}

TEST_F(SubmitIoctl, AShortArgumentIsZeroFilled)
{
	Submission s = job_->submission(ctx_.id());
	drm_vdla_submit args = {};
	args.ctx_id = ctx_.id();
	args.addresses = reinterpret_cast<uintptr_t>(s.addresses.data());
	args.address_count = uint32_t(s.addresses.size());
	/* Only ctx_id and flags reach the driver: no entries. */
	EXPECT_EQ(ioctlError(fd(), withSize(DRM_IOCTL_VDLA_SUBMIT, 8), &args), EINVAL);
	expectNothingQueued();
}

/* ---- Tasks the firmware refuses ---------------------------------------- */

struct BadTask {
	const char *name;
	/* Changes the CopySdp task (op 0 BDMA in -> tmp, op 1 SDP tmp -> out). */
	std::function<void(TaskWriter &)> changeOps;
	std::function<void(vdla_task_header &)> changeHeader;
	std::function<void(Submission &)> changeSubmission;
	uint32_t op, field, reason;
	uint32_t operand = DLA_FIELD_NONE;
};

void PrintTo(const BadTask &t, std::ostream *os)
{
	*os << t.name;
}

class SubmitRefusedTask : public SubmitIoctl, public ::testing::WithParamInterface<BadTask>
{
};

TEST_P(SubmitRefusedTask, IsRefusedWithWhereAndWhy)
{
	const BadTask &bad = GetParam();
	if (bad.changeOps) {
		bad.changeOps(job_->task());
		job_->rewriteDescriptor();
	}
	if (bad.changeHeader) {
		auto *h = reinterpret_cast<vdla_task_header *>(job_->bo(SmallJob::kDesc).map());
		bad.changeHeader(*h);
	}
	Submission s = job_->submission(ctx_.id());
	if (bad.changeSubmission)
		bad.changeSubmission(s);
	drm_vdla_submit result;
	ASSERT_EQ(submit(fd(), s, &result), EINVAL);
	/* enum dla_field and enum dla_reason of firmware/include/dla_interface.h */
	EXPECT_EQ(result.error_op, bad.op);
	EXPECT_EQ(result.error_field, bad.field);
	EXPECT_EQ(result.error_reason, bad.reason);
	EXPECT_EQ(result.error_operand, bad.operand);

	/* Nothing ran: the output BO still holds the canary. */
	const uint8_t *out = job_->bo(SmallJob::kOut).map();
	EXPECT_EQ(std::count(out, out + SmallJob::kCheckBytes, kCanary),
		ptrdiff_t(SmallJob::kCheckBytes));
	Rng rng(33);
	job_->prepare(rng, WorkKind::CopySdp);
	expectNothingQueued();
}

constexpr uint32_t kHeader = ~0u;

const BadTask kBadTasks[] = {
	{ "magic", nullptr, [](auto &h) { h.magic = 0x12345678; }, nullptr, kHeader,
		DLA_FIELD_MAGIC, DLA_REASON_BAD_VALUE },
	{ "major_version", nullptr, [](auto &h) { h.version_major = 2; }, nullptr, kHeader,
		DLA_FIELD_VERSION, DLA_REASON_BAD_VALUE },
	{ "newer_minor_version", nullptr, [](auto &h) { h.version_minor = 1; }, nullptr, kHeader,
		DLA_FIELD_VERSION, DLA_REASON_OUT_OF_RANGE },
	{ "header_flags", nullptr, [](auto &h) { h.flags = 1; }, nullptr, kHeader, DLA_FIELD_FLAGS,
		DLA_REASON_NOT_ZERO },
	{ "header_reserved", nullptr, [](auto &h) { h.reserved[2] = 1; }, nullptr, kHeader,
		DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO },
	{ "num_ops_beyond_the_descriptor", nullptr, [](auto &h) { h.num_ops = 16; }, nullptr,
		kHeader, DLA_FIELD_NUM_OPS, DLA_REASON_OUTSIDE_BUFFER },
	{ "num_ops_above_the_maximum", nullptr, [](auto &h) { h.num_ops = VDLA_TASK_MAX_OPS + 1; },
		nullptr, kHeader, DLA_FIELD_NUM_OPS, DLA_REASON_OUT_OF_RANGE },
	{ "ops_offset_in_the_header", nullptr, [](auto &h) { h.ops_offset = 16; }, nullptr, kHeader,
		DLA_FIELD_OPS_OFFSET, DLA_REASON_OUT_OF_RANGE },
	{ "ops_offset_unaligned", nullptr, [](auto &h) { h.ops_offset = 36; }, nullptr, kHeader,
		DLA_FIELD_OPS_OFFSET, DLA_REASON_BAD_VALUE },
	{ "descriptor_entry_too_small", nullptr, nullptr,
		[](auto &s) { s.addresses[SmallJob::kDesc].offset = SmallJob::kBoBytes - 16; },
		kHeader, DLA_FIELD_DESCRIPTOR, DLA_REASON_READ_FAILED },
	{ "engine", [](auto &t) { t.op(1).engine = 9; }, nullptr, nullptr, 1, DLA_FIELD_ENGINE,
		DLA_REASON_BAD_VALUE },
	{ "op_flags", [](auto &t) { t.op(0).flags = 1; }, nullptr, nullptr, 0, DLA_FIELD_FLAGS,
		DLA_REASON_NOT_ZERO },
	{ "op_reserved", [](auto &t) { t.op(0).reserved1[1] = 1; }, nullptr, nullptr, 0,
		DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO },
	{ "dependency_count", [](auto &t) { t.op(1).dependency_count = 2; }, nullptr, nullptr, 1,
		DLA_FIELD_DEPENDENCY_COUNT, DLA_REASON_COUNT_MISMATCH },
	{ "missing_dependency_count", [](auto &t) { t.op(1).dependency_count = 0; }, nullptr,
		nullptr, 1, DLA_FIELD_DEPENDENCY_COUNT, DLA_REASON_COUNT_MISMATCH },
	{ "backward_link",
		[](auto &t) {
			t.op(1).consumers[0].index = 0;
			t.op(1).consumers[0].event = VDLA_EVENT_OP_COMPLETED;
		},
		nullptr, nullptr, 1, DLA_FIELD_CONSUMER_INDEX, DLA_REASON_BACKWARD_LINK },
	{ "link_beyond_the_task", [](auto &t) { t.op(1).consumers[3].index = 2; }, nullptr, nullptr,
		1, DLA_FIELD_CONSUMER_INDEX, DLA_REASON_BAD_INDEX },
	{ "unused_consumer_not_no_op", [](auto &t) { t.op(0).consumers[1].index = 0; }, nullptr,
		nullptr, 0, DLA_FIELD_CONSUMER_INDEX, DLA_REASON_BACKWARD_LINK },
	{ "link_event", [](auto &t) { t.op(0).consumers[0].event = 7; }, nullptr, nullptr, 0,
		DLA_FIELD_CONSUMER_EVENT, DLA_REASON_BAD_VALUE },
	{ "fused_parent", [](auto &t) { t.op(1).fused_parent = 5; }, nullptr, nullptr, 1,
		DLA_FIELD_FUSED_PARENT, DLA_REASON_BAD_INDEX },
	{ "address_index", [](auto &t) { t.op(1).sdp.dst.address.index = SmallJob::kEntries; },
		nullptr, nullptr, 1, DLA_FIELD_ADDRESS_INDEX, DLA_REASON_BAD_INDEX, DLA_FIELD_DST },
	{ "address_reserved", [](auto &t) { t.op(1).sdp.src.address.reserved[0] = 1; }, nullptr,
		nullptr, 1, DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO, DLA_FIELD_SRC },
	{ "copy_beyond_its_buffer",
		[](auto &t) {
			t.op(0).bdma.src.offset = 0;
			t.op(0).bdma.line_bytes = SmallJob::kBoBytes + 1;
		},
		nullptr, nullptr, 0, DLA_FIELD_SRC, DLA_REASON_OUTSIDE_BUFFER, DLA_FIELD_SRC },
	{ "tensor_beyond_its_buffer",
		[](auto &t) { t.op(1).sdp.dst.address.offset = SmallJob::kBoBytes; }, nullptr,
		nullptr, 1, DLA_FIELD_DST, DLA_REASON_OUTSIDE_BUFFER, DLA_FIELD_DST },
	/* An entry covers its BO from its offset on: 64 bytes do not fit in 16. */
	{ "beyond_the_entry_offset",
		[](auto &t) {
			t.op(0).bdma.src.offset = 0;
			t.op(0).bdma.line_bytes = 64;
		},
		nullptr,
		[](auto &s) { s.addresses[SmallJob::kIn].offset = SmallJob::kBoBytes - 16; }, 0,
		DLA_FIELD_SRC, DLA_REASON_OUTSIDE_BUFFER, DLA_FIELD_SRC },
	{ "dtype", [](auto &t) { t.op(1).sdp.src.dtype = 9; }, nullptr, nullptr, 1, DLA_FIELD_DTYPE,
		DLA_REASON_BAD_VALUE, DLA_FIELD_SRC },
	{ "dims", [](auto &t) { t.op(1).sdp.dst.w = 0; }, nullptr, nullptr, 1, DLA_FIELD_DIMS,
		DLA_REASON_OUT_OF_RANGE, DLA_FIELD_DST },
	{ "sdp_round", [](auto &t) { t.op(1).sdp.round = VDLA_ROUND_MODES; }, nullptr, nullptr, 1,
		DLA_FIELD_ROUND, DLA_REASON_BAD_VALUE },
};

INSTANTIATE_TEST_SUITE_P(Firmware, SubmitRefusedTask, ::testing::ValuesIn(kBadTasks),
	[](const auto &info) { return std::string(info.param.name); });

} /* namespace */
} /* namespace guest */
