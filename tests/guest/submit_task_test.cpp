/* SPDX-License-Identifier: MIT */
/*
 * Real tasks through SUBMIT, every output compared with the CPU reference:
 * each kind of small job, empty tasks, a large copy, address-list entries
 * at offsets, dependency graphs, a long chain, job order within a context,
 * implicit fences between contexts, and many threads on one file.
 */
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <thread>

#include "submit_test.h"

namespace guest {
namespace {

using namespace vdla_ref;
using vdla_testdata::randomFull;

using Tasks = SubmitTest;

TEST_F(Tasks, EmptyTaskCompletes)
{
	Ctx ctx(fd());
	SmallJob job(fd());
	ASSERT_EQ(job.error(), 0);
	Rng rng(41);
	job.prepare(rng, WorkKind::Empty);
	for (int i = 0; i < 3; i++)
		EXPECT_TRUE(runJob(job, ctx.id()));
	drm_vdla_ctx_query q = ctx.query();
	EXPECT_EQ(q.jobs_submitted, 3u);
	EXPECT_EQ(q.jobs_completed, 3u);
	EXPECT_EQ(q.jobs_failed, 0u);
}

struct KindCase {
	WorkKind kind;
	uint64_t seed;
};

void PrintTo(const KindCase &c, std::ostream *os)
{
	*os << workKindName(c.kind) << "/" << c.seed;
}

class TaskKinds : public SubmitTest, public ::testing::WithParamInterface<KindCase>
{
};

TEST_P(TaskKinds, MatchTheReference)
{
	Ctx ctx(fd());
	SmallJob job(fd());
	ASSERT_EQ(job.error(), 0);
	Rng rng(GetParam().seed);
	job.prepare(rng, GetParam().kind);
	EXPECT_TRUE(runJob(job, ctx.id()));
}

std::vector<KindCase> kindCases()
{
	std::vector<KindCase> cases;
	for (auto kind : { WorkKind::Copy, WorkKind::Sdp, WorkKind::CopySdp, WorkKind::Conv,
		     WorkKind::ConvSdp, WorkKind::FusedConvSdp })
		for (uint64_t seed : { 1, 2, 3 })
			cases.push_back({ kind, seed * 100 + uint64_t(kind) });
	return cases;
}

INSTANTIATE_TEST_SUITE_P(Random, TaskKinds, ::testing::ValuesIn(kindCases()), [](const auto &info) {
	return std::string(workKindName(info.param.kind)) + "_" + std::to_string(info.param.seed);
});

TEST_F(Tasks, LargeStridedCopy)
{
	Ctx ctx(fd());
	Bo src(fd(), 512 * 1024), dst(fd(), 512 * 1024);
	ASSERT_EQ(src.error(), 0);
	ASSERT_EQ(dst.error(), 0);
	Rng rng(42);
	for (size_t i = 0; i < src.size(); i++)
		src.map()[i] = uint8_t(rng.uniform(0, 255));
	dst.fill(kCanary);

	BdmaParams p;
	p.lineBytes = 1000;
	p.lines = 200;
	p.surfaces = 2;
	p.srcLineStride = 1024;
	p.dstLineStride = 1008;
	p.srcSurfStride = 210 * 1024;
	p.dstSurfStride = 205 * 1008;
	p.src = 24;
	p.dst = 8;
	std::vector<uint8_t> expected(dst.size(), kCanary);
	const uint8_t *in = src.map();
	for (const auto &[addr, value] : bdma(p, [in](uint64_t a) { return in[a]; }))
		expected.at(addr) = value;

	HandJob job(fd(), ctx.id());
	uint16_t s = job.add(src), d = job.add(dst, DRM_VDLA_ADDRESS_FLAG_WRITE);
	vdla_task_bdma b;
	std::memset(&b, 0, sizeof(b));
	b.src = taskAddress(s, p.src);
	b.dst = taskAddress(d, p.dst);
	b.line_bytes = p.lineBytes;
	b.lines = p.lines;
	b.surfaces = p.surfaces;
	b.src_line_stride = p.srcLineStride;
	b.dst_line_stride = p.dstLineStride;
	b.src_surf_stride = p.srcSurfStride;
	b.dst_surf_stride = p.dstSurfStride;
	job.task.bdma(b);
	ASSERT_EQ(job.submit(), 0);
	EXPECT_TRUE(fenceSucceeds(job.done));
	EXPECT_TRUE(sameBytes(expected.data(), dst.map(), dst.size(), "destination"));
}

TEST_F(Tasks, EntriesStartAtTheirOffsets)
{
	Ctx ctx(fd());
	Bo descs(fd(), 3 * 4096), in(fd(), 3 * 4096), out(fd(), 3 * 4096);
	ASSERT_EQ(in.error(), 0);
	ASSERT_EQ(out.error(), 0);
	Rng rng(43);
	Tensor x = randomFull(rng, VDLA_DTYPE_INT8, 1, 3, 4, 8);
	SdpParams p = randomSdpParams(rng);
	Tensor y = sdp(x, nullptr, p, VDLA_DTYPE_INT16);
	const uint64_t inAt = 4096 + 64, outAt = 4096 + 8, descAt = 8192;
	in.fill(0);
	out.fill(kCanary);
	storeTensor(in.map() + inAt, x);
	std::vector<uint8_t> expected(out.size(), kCanary);
	storeTensor(expected.data() + outAt, y);

	/* Task offsets are relative to the entries. */
	TaskWriter task;
	task.sdp(encodeSdp(surfaceOf(1, 0, x), surfaceOf(2, 0, y), p));
	ASSERT_TRUE(task.write(descs.map() + descAt, descs.size() - descAt));
	Syncobj done(fd());
	Submission s;
	s.ctx = ctx.id();
	s.addresses = { descs.entry(0, descAt), in.entry(0, inAt),
		out.entry(DRM_VDLA_ADDRESS_FLAG_WRITE, outAt) };
	s.outSync = done.sync();
	ASSERT_EQ(submit(fd(), s), 0);
	EXPECT_TRUE(fenceSucceeds(done));
	EXPECT_TRUE(sameBytes(expected.data(), out.map(), out.size(), "output BO"));
}

/*
 * Several entries naming one BO at different offsets. The UAPI does not
 * forbid it, and a runtime keeping many small tensors in one BO does it.
 */
TEST_F(Tasks, SameBoInSeveralEntries)
{
	Ctx ctx(fd());
	Bo bo(fd(), 4 * 4096);
	ASSERT_EQ(bo.error(), 0);
	Rng rng(44);
	Tensor x = randomFull(rng, VDLA_DTYPE_INT8, 1, 2, 3, 5);
	SdpParams p = randomSdpParams(rng);
	Tensor y = sdp(x, nullptr, p, VDLA_DTYPE_INT8);
	bo.fill(kCanary);
	storeTensor(bo.map() + 4096, x);
	TaskWriter task;
	uint16_t c = task.copy(1, 0, 2, 0, uint32_t(tensorBytes(x)));
	uint16_t s = task.sdp(encodeSdp(surfaceOf(2, 0, x), surfaceOf(3, 0, y), p));
	task.link(c, s);
	ASSERT_TRUE(task.write(bo.map(), 4096));
	std::vector<uint8_t> expected(bo.map(), bo.map() + bo.size());
	storeTensor(expected.data() + 2 * 4096, x);
	storeTensor(expected.data() + 3 * 4096, y);

	Syncobj done(fd());
	Submission sub;
	sub.ctx = ctx.id();
	sub.addresses = { bo.entry(0, 0), bo.entry(0, 4096),
		bo.entry(DRM_VDLA_ADDRESS_FLAG_WRITE, 2 * 4096),
		bo.entry(DRM_VDLA_ADDRESS_FLAG_WRITE, 3 * 4096) };
	sub.outSync = done.sync();
	ASSERT_EQ(submit(fd(), sub), 0);
	EXPECT_TRUE(fenceSucceeds(done));
	EXPECT_TRUE(sameBytes(expected.data(), bo.map(), bo.size(), "the shared BO"));
}

/*
 * A graph: copy, fan-out to two SDPs, fan-in to an SDP adding both (EW), and
 * an unlinked copy on the side.
 */
TEST_F(Tasks, DependencyGraphWithFanOutAndFanIn)
{
	Ctx ctx(fd());
	Bo in(fd(), 4096), tmp(fd(), 4096), out(fd(), 4096), side(fd(), 4096);
	Rng rng(45);
	Tensor x = randomFull(rng, VDLA_DTYPE_INT8, 1, 4, 4, 6);
	SdpParams p1 = randomSdpParams(rng), p2 = randomSdpParams(rng);
	SdpParams p3;
	p3.ew = VDLA_SDP_EW_OP_ADD;
	p3.ewMul = 3;
	p3.ewShift = 1;
	p3.act = VDLA_SDP_ACT_RELU;
	p3.round = VDLA_ROUND_HALF_AWAY;
	Tensor a = sdp(x, nullptr, p1, VDLA_DTYPE_INT8);
	Tensor b = sdp(x, nullptr, p2, VDLA_DTYPE_INT16);
	Tensor z = sdp(a, &b, p3, VDLA_DTYPE_INT16);
	const size_t bytes = tensorBytes(x);
	in.fill(0);
	storeTensor(in.map(), x);
	tmp.fill(kCanary);
	out.fill(kCanary);
	side.fill(kCanary);

	HandJob job(fd(), ctx.id());
	uint16_t ei = job.add(in), et = job.add(tmp, DRM_VDLA_ADDRESS_FLAG_WRITE),
		 eo = job.add(out, DRM_VDLA_ADDRESS_FLAG_WRITE),
		 es = job.add(side, DRM_VDLA_ADDRESS_FLAG_WRITE);
	const uint64_t copyAt = 0, aAt = 512, bAt = 1024;
	uint16_t copy = job.task.copy(ei, 0, et, copyAt, uint32_t(bytes));
	uint16_t s1 = job.task.sdp(encodeSdp(surfaceOf(et, copyAt, x), surfaceOf(et, aAt, a), p1));
	uint16_t s2 = job.task.sdp(encodeSdp(surfaceOf(et, copyAt, x), surfaceOf(et, bAt, b), p2));
	vdla_task_surface bs = surfaceOf(et, bAt, b);
	uint16_t s3
		= job.task.sdp(encodeSdp(surfaceOf(et, aAt, a), surfaceOf(eo, 0, z), p3, 0, &bs));
	job.task.copy(ei, 0, es, 100, uint32_t(bytes));
	job.task.link(copy, s1);
	job.task.link(copy, s2);
	job.task.link(s1, s3);
	job.task.link(s2, s3);
	ASSERT_EQ(job.submit(), 0);
	EXPECT_TRUE(fenceSucceeds(job.done));

	std::vector<uint8_t> expected(4096, kCanary);
	storeTensor(expected.data(), z);
	EXPECT_TRUE(sameBytes(expected.data(), out.map(), 4096, "fan-in result"));
	std::fill(expected.begin(), expected.end(), kCanary);
	storeTensor(expected.data() + copyAt, x);
	storeTensor(expected.data() + aAt, a);
	storeTensor(expected.data() + bAt, b);
	EXPECT_TRUE(sameBytes(expected.data(), tmp.map(), 4096, "intermediates"));
	std::fill(expected.begin(), expected.end(), kCanary);
	storeTensor(expected.data() + 100, x);
	EXPECT_TRUE(sameBytes(expected.data(), side.map(), 4096, "side copy"));
}

TEST_F(Tasks, LongChainMatchesTheReference)
{
	Ctx ctx(fd());
	ChainJob chain(fd(), 60, 46);
	ASSERT_EQ(chain.error(), 0);
	Syncobj done(fd());
	ASSERT_EQ(submit(fd(), chain.submission(ctx.id(), done.sync())), 0);
	EXPECT_TRUE(fenceSucceeds(done));
	EXPECT_TRUE(chain.check());
}

TEST_F(Tasks, JobsOfAContextCompleteInOrder)
{
	Ctx ctx(fd());
	Rng rng(47);
	constexpr int kJobs = 16;
	const WorkKind kinds[] = { WorkKind::Copy, WorkKind::Conv, WorkKind::Sdp,
		WorkKind::FusedConvSdp, WorkKind::Empty, WorkKind::CopySdp };
	std::vector<std::unique_ptr<SmallJob>> jobs;
	std::vector<Syncobj> done;
	for (int i = 0; i < kJobs; i++) {
		jobs.push_back(std::make_unique<SmallJob>(fd()));
		ASSERT_EQ(jobs.back()->error(), 0);
		jobs.back()->prepare(rng, kinds[i % 6]);
		done.emplace_back(fd());
		drm_vdla_submit result;
		ASSERT_EQ(submit(fd(), jobs.back()->submission(ctx.id(), done.back().sync()),
				  &result),
			0);
		EXPECT_EQ(result.seqno, uint64_t(i + 1));
	}
	ASSERT_EQ(done.back().wait(kJobTimeoutMs), 0);
	uint64_t last = 0;
	for (int i = 0; i < kJobs; i++) {
		EXPECT_TRUE(done[i].signalled())
			<< "job " << i << " had not ended after the last one";
		FenceInfo info = done[i].fence();
		EXPECT_EQ(info.status, 1) << "job " << i;
		EXPECT_GE(info.timestampNs, last)
			<< "job " << i << " signalled before job " << i - 1;
		last = info.timestampNs;
		EXPECT_TRUE(jobs[i]->check()) << "job " << i;
	}
}

/*
 * Implicit fences, without any syncobj: a long low-priority job A copies
 * `in` to `x` in four slow steps; high-priority jobs then read `x` (B, read
 * after write) and overwrite `in` (C, write after read). Without implicit
 * fences the scheduler would run B and C at A's first boundary, and B would
 * read, and A copy, the wrong data.
 */
TEST_F(Tasks, ImplicitFencesOrderJobsAcrossContexts)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 60000), 0);
	Ctx low(fd(), DRM_VDLA_PRIORITY_LOW), high(fd(), DRM_VDLA_PRIORITY_HIGH),
		high2(fd(), DRM_VDLA_PRIORITY_HIGH);
	Bo in(fd(), 4096), x(fd(), 4096), y(fd(), 4096), other(fd(), 4096);
	Rng rng(48);
	Tensor t = randomFull(rng, VDLA_DTYPE_INT8, 1, 2, 4, 8);
	Tensor u = randomFull(rng, VDLA_DTYPE_INT8, 1, 2, 4, 8);
	SdpParams p = randomSdpParams(rng);
	Tensor ty = sdp(t, nullptr, p, VDLA_DTYPE_INT8);
	in.fill(0);
	storeTensor(in.map(), t);
	other.fill(0);
	storeTensor(other.map(), u);
	x.fill(kCanary);
	y.fill(kCanary);

	HandJob a(fd(), low.id());
	uint16_t ai = a.add(in), ax = a.add(x, DRM_VDLA_ADDRESS_FLAG_WRITE);
	for (uint16_t k = 0; k < 4; k++) {
		a.task.copy(ai, 16 * k, ax, 16 * k, 16);
		if (k)
			a.task.link(uint16_t(k - 1), k);
	}
	HandJob b(fd(), high.id());
	uint16_t bx = b.add(x), by = b.add(y, DRM_VDLA_ADDRESS_FLAG_WRITE);
	b.task.sdp(encodeSdp(surfaceOf(bx, 0, t), surfaceOf(by, 0, ty), p));
	HandJob c(fd(), high2.id());
	uint16_t co = c.add(other), ci = c.add(in, DRM_VDLA_ADDRESS_FLAG_WRITE);
	c.task.copy(co, 0, ci, 0, 64);
	ASSERT_EQ(b.finish(), 0);
	ASSERT_EQ(c.finish(), 0);

	ASSERT_EQ(a.submit(), 0);
	ASSERT_EQ(b.submit(), 0);
	ASSERT_EQ(c.submit(), 0);
	EXPECT_TRUE(fenceSucceeds(a.done));
	EXPECT_TRUE(fenceSucceeds(b.done));
	EXPECT_TRUE(fenceSucceeds(c.done));

	std::vector<uint8_t> expected(4096, kCanary);
	storeTensor(expected.data(), t);
	EXPECT_TRUE(sameBytes(expected.data(), x.map(), 4096, "A's copy (write after read)"));
	storeTensor(expected.data(), ty);
	EXPECT_TRUE(sameBytes(expected.data(), y.map(), 4096, "B's result (read after write)"));
	std::vector<uint8_t> expectedIn(4096, 0);
	storeTensor(expectedIn.data(), u);
	EXPECT_TRUE(sameBytes(expectedIn.data(), in.map(), 4096, "C's copy"));
	EXPECT_GE(b.done.fence().timestampNs, a.done.fence().timestampNs);
	EXPECT_GE(c.done.fence().timestampNs, a.done.fence().timestampNs);
}

TEST_F(Tasks, EveryDeviceRunsJobs)
{
	Rng rng(49);
	for (const auto &path : paths_) {
		Node node(path);
		ASSERT_TRUE(node.valid()) << path;
		Ctx ctx(node.fd());
		SmallJob job(node.fd());
		ASSERT_EQ(job.error(), 0);
		for (auto kind : { WorkKind::Conv, WorkKind::CopySdp }) {
			job.prepare(rng, kind);
			EXPECT_TRUE(runJob(job, ctx.id())) << path;
		}
	}
}

TEST_F(Tasks, ManyThreadsSubmitOnOneFile)
{
	constexpr int kThreads = 4, kJobs = 25;
	std::atomic<int> failures{ 0 };
	std::vector<std::string> messages(kThreads);
	std::vector<std::thread> threads;
	for (int t = 0; t < kThreads; t++) {
		threads.emplace_back([&, t] {
			Ctx ctx(fd(), uint32_t(t % DRM_VDLA_PRIORITIES));
			SmallJob job(fd());
			Rng rng(500 + t);
			for (int i = 0; i < kJobs && !job.error(); i++) {
				job.prepare(rng, WorkKind(1 + (i + t) % 6));
				::testing::AssertionResult r = runJob(job, ctx.id());
				if (!r) {
					if (!failures++)
						messages[t] = r.message();
				}
			}
			if (job.error() || ctx.error())
				failures++;
		});
	}
	for (auto &thread : threads)
		thread.join();
	EXPECT_EQ(failures.load(), 0) << [&] {
		std::string all;
		for (const auto &m : messages)
			all += m.empty() ? "" : m + "\n";
		return all;
	}();
}

} /* namespace */
} /* namespace guest */
