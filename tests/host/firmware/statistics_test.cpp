/* SPDX-License-Identifier: MIT */
/*
 * Per-operation statistics (dla_op_statistics) against the definitions of
 * the device's counters (docs/hw-spec.md, "Per-operation counters"): MACs
 * and bytes read and written of every engine, nothing counted for flying
 * data, fused members sharing the chain's time, the register group each
 * operation ran in, and the same values as the device's STAT block.
 */
#include <gtest/gtest.h>

#include <vector>

#include "task_builder.h"

using namespace vdla_fwtest;
using namespace vdla_ref;

namespace {

struct Expect {
	uint16_t op;
	unsigned engine;
	uint64_t macs, read, written;
};

uint64_t bytes(const Tensor &t)
{
	return t.size() * vdla_test::dtypeSize(t.dtype);
}

dla_op_stats statsOf(FwDevice &fw, uint32_t op)
{
	dla_op_stats st = {};
	EXPECT_EQ(DLA_SUCCESS, dla_op_statistics(fw.engine(), op, &st)) << "op " << op;
	return st;
}

TEST(Statistics, CountersOfEveryEngineFollowTheirDefinitions)
{
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(500);
	std::vector<Expect> expect;

	/* BDMA: bytes copied, each direction; strided, so not the extent. */
	uint16_t src = b.addBuffer(4096), dst = b.addBuffer(4096);
	BdmaCopy c;
	c.srcIndex = src;
	c.dstIndex = dst;
	c.lineBytes = 100;
	c.lines = 7;
	c.srcLineStride = 150;
	c.dstLineStride = 120;
	c.surfaces = 3;
	c.srcSurfStride = 1100;
	c.dstSurfStride = 900;
	expect.push_back({ b.bdma(c), VDLA_ENGINE_BDMA, 0, 2100, 2100 });

	/* CONV: N*Cout*OH*OW*Cin/g*KH*KW MACs; input and weights read. */
	Tensor x = randomTensor(rng, VDLA_DTYPE_INT16, 2, 4, 7, 6);
	Tensor w = randomTensor(rng, VDLA_DTYPE_INT16, 6, 2, 3, 2);
	ConvParams cp;
	cp.groups = 2;
	cp.strideY = 2;
	cp.padL = 1;
	Tensor y = conv(x, w, cp);
	Surface ys = b.allocLike(y);
	expect.push_back({ b.conv(b.place(x, Layout::PaddedNhwc), b.place(w), ys, cp),
		VDLA_ENGINE_CONV, convMacs(x, w, cp), bytes(x) + bytes(w), bytes(y) });

	/* SDP: one MAC per element for SCALE and one for EW MUL; the per-channel bias read once. */
	Tensor sx = randomTensor(rng, VDLA_DTYPE_INT16, 1, 5, 4, 3);
	Tensor sy = randomTensor(rng, VDLA_DTYPE_INT8, 1, 5, 4, 3);
	SdpParams sp;
	sp.bias = VDLA_SDP_MODE_PER_CHANNEL;
	sp.biasChannel = { 1, 2, 3, 4, 5 };
	sp.scale = VDLA_SDP_MODE_PER_TENSOR;
	sp.scaleMul = 3;
	sp.ew = VDLA_SDP_EW_OP_MUL;
	sp.ewPostShift = 4;
	Tensor sz = sdp(sx, &sy, sp, VDLA_DTYPE_INT32);
	Surface sys = b.place(sy);
	expect.push_back({ b.sdp(b.place(sx), b.allocLike(sz), sp, &sys), VDLA_ENGINE_SDP,
		sdpMacs(sx, sp), bytes(sx) + bytes(sy) + 5 * 4, bytes(sz) });

	/* SDP float with a LUT: all 257 FP32 entries are read. */
	Tensor fx = randomTensor(rng, VDLA_DTYPE_FP32, 1, 2, 3, 3);
	SdpParams fp;
	fp.act = VDLA_SDP_ACT_LUT;
	fp.fLut = sampleFloatLut(rng);
	fp.fLutStart = -2;
	fp.fLutStep = 0.02f;
	Tensor fz = sdp(fx, nullptr, fp, VDLA_DTYPE_FP16);
	expect.push_back({ b.sdp(b.place(fx), b.allocLike(fz), fp), VDLA_ENGINE_SDP, 0,
		bytes(fx) + 257 * 4, bytes(fz) });

	/* PDP: no MACs. */
	Tensor px = randomTensor(rng, VDLA_DTYPE_FP16, 1, 3, 8, 8);
	PdpParams pp;
	pp.method = VDLA_PDP_AVG;
	pp.kw = pp.kh = 2;
	pp.sx = pp.sy = 2;
	Tensor pz = pdp(px, pp);
	expect.push_back({ b.pdp(b.place(px), b.allocLike(pz), pp), VDLA_ENGINE_PDP, 0, bytes(px),
		bytes(pz) });

	/* CDP: SIZE MACs per element, edge channels too; the integer LUT read whole. */
	Tensor cx = randomTensor(rng, VDLA_DTYPE_INT8, 1, 6, 2, 3);
	CdpParams dp;
	dp.size = 5;
	dp.lut = sampleCdpLut();
	dp.lutShift = 8;
	dp.outShift = 16;
	expect.push_back({ b.cdp(b.place(cx), b.allocLike(cx), dp), VDLA_ENGINE_CDP, 5 * cx.size(),
		bytes(cx) + 257 * 4, bytes(cx) });

	/* RUBIK: no MACs. */
	Tensor rx = randomTensor(rng, VDLA_DTYPE_FP32, 1, 8, 2, 3);
	RubikParams rp;
	rp.mode = VDLA_RUBIK_CONTRACT;
	rp.bx = 2;
	rp.by = 2;
	Tensor rz = rubik(rx, rp);
	expect.push_back({ b.rubik(b.place(rx), b.allocLike(rz), rp), VDLA_ENGINE_RUBIK, 0,
		bytes(rx), bytes(rz) });

	/* A second BDMA: it runs in group 1. */
	BdmaCopy c2 = c;
	c2.lines = 1;
	c2.surfaces = 1;
	c2.lineBytes = 333;
	expect.push_back({ b.bdma(c2), VDLA_ENGINE_BDMA, 0, 333, 333 });

	/* Advance the device clock while the task runs, so that times are not all zero. */
	TaskEnd end = runTask(fw, b.finish(), kTaskTimeout, [&]() {
		fw.dev().nowNs += 1000;
		return true;
	});
	ASSERT_TRUE(completed(end, b.numOps()));

	std::vector<unsigned> perEngine(VDLA_NUM_ENGINES, 0);
	for (const Expect &e : expect) {
		dla_op_stats st = statsOf(fw, e.op);
		SCOPED_TRACE("op " + std::to_string(e.op));
		EXPECT_EQ(1u, st.completed);
		EXPECT_EQ(e.macs, st.macs);
		EXPECT_EQ(e.read, st.bytes_read);
		EXPECT_EQ(e.written, st.bytes_written);
		/* A fresh device runs an engine's ops in groups 0, 1, 0, ... */
		EXPECT_EQ(perEngine[e.engine]++ % VDLA_NUM_GROUPS, st.group);
	}
	/* The last op of each group is still in the device's STAT block. */
	for (const Expect &e : expect) {
		dla_op_stats st = statsOf(fw, e.op);
		bool last = true;
		for (const Expect &later : expect)
			if (later.op > e.op && later.engine == e.engine
				&& statsOf(fw, later.op).group == st.group)
				last = false;
		if (!last)
			continue;
		vdla_test::GroupStats g = fw.dev().stats(e.engine, st.group);
		SCOPED_TRACE("op " + std::to_string(e.op));
		EXPECT_EQ(g.macs, st.macs);
		EXPECT_EQ(g.bytesRead, st.bytes_read);
		EXPECT_EQ(g.bytesWritten, st.bytes_written);
		EXPECT_EQ(g.timeNs, st.device_ns);
	}
}

TEST(Statistics, FlyingDataCountsNothingAndMembersShareTheChainTime)
{
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(510);
	Tensor x = randomTensor(rng, VDLA_DTYPE_INT8, 1, 3, 6, 6);
	Tensor w = randomTensor(rng, VDLA_DTYPE_INT8, 4, 3, 3, 3);
	ConvParams cp;
	Tensor y = conv(x, w, cp);
	SdpParams sp;
	sp.scale = VDLA_SDP_MODE_PER_CHANNEL;
	sp.scaleMulChannel = { 1, 2, 3, 4 };
	sp.scaleShiftChannel = { 8, 8, 8, 8 };
	Tensor z = sdp(y, nullptr, sp, VDLA_DTYPE_INT8);
	PdpParams pp;
	pp.kw = pp.kh = 2;
	pp.sx = pp.sy = 2;
	Tensor p = pdp(z, pp);
	uint16_t c
		= b.conv(b.place(x), b.place(w), TaskBuilder::flyingLike(y), cp, VDLA_TASK_FLY_OUT);
	uint16_t s = b.sdp(TaskBuilder::flyingLike(y), TaskBuilder::flyingLike(z), sp, nullptr,
		VDLA_TASK_FLY_IN | VDLA_TASK_FLY_OUT);
	Surface ps = b.allocLike(p);
	uint16_t d = b.pdp(TaskBuilder::flyingLike(z), ps, pp, VDLA_TASK_FLY_IN);
	TaskEnd end = runTask(fw, b.finish(), kTaskTimeout, [&]() {
		fw.dev().nowNs += 1000;
		return true;
	});
	ASSERT_TRUE(completed(end, 3));
	EXPECT_TRUE(matches(p, b.load(ps)));
	dla_op_stats sc = statsOf(fw, c), ss = statsOf(fw, s), sd = statsOf(fw, d);
	EXPECT_EQ(convMacs(x, w, cp), sc.macs);
	EXPECT_EQ(bytes(x) + bytes(w), sc.bytes_read);
	EXPECT_EQ(0u, sc.bytes_written);
	EXPECT_EQ(sdpMacs(y, sp), ss.macs);
	EXPECT_EQ(4u * 8, ss.bytes_read) << "only the per-channel scale pairs";
	EXPECT_EQ(0u, ss.bytes_written);
	EXPECT_EQ(0u, sd.macs);
	EXPECT_EQ(0u, sd.bytes_read);
	EXPECT_EQ(bytes(p), sd.bytes_written);
	EXPECT_EQ(sc.device_ns, ss.device_ns);
	EXPECT_EQ(sc.device_ns, sd.device_ns);
}

TEST(Statistics, OpsNotYetRunAreNotCompleted)
{
	FwDevice fw;
	fw.injectFault(VDLA_ENGINE_BDMA, VDLA_FI_HANG, 1);
	TaskBuilder b(fw);
	Rng rng(520);
	Tensor x = randomTensor(rng, VDLA_DTYPE_INT8, 1, 2, 3, 3);
	Surface a = b.allocLike(x);
	uint16_t first = b.copy(b.place(x), a);
	RubikParams rp;
	uint16_t second = b.rubik(a, b.allocLike(x), rp);
	b.link(first, second);
	TestTask &task = b.finish();
	dla_task_config config = task.config();
	ASSERT_EQ(DLA_SUCCESS, dla_execute_task(fw.engine(), &config));
	TaskEnd none;
	for (int i = 0; i < 20; i++)
		pollOnce(fw, fw.engine(), none);
	EXPECT_EQ(0u, statsOf(fw, first).completed);
	EXPECT_EQ(0u, statsOf(fw, second).completed);
	EXPECT_EQ(DLA_SUCCESS, dla_abort_task(fw.engine()));
}

/*
 * Without DLA_TASK_STATISTICS the counters are not read (they would be
 * non-zero: every op here reads and writes), but completion and group are
 * still kept: the host's progress checks depend on them.
 */
TEST(Statistics, WithoutTheFlagOnlyCompletionIsKept)
{
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(540);
	std::vector<uint16_t> ops;
	for (int i = 0; i < 3; i++) {
		Tensor x = randomTensor(rng, VDLA_DTYPE_INT8, 1, 2, 3, 3);
		ops.push_back(b.copy(b.place(x), b.allocLike(x)));
	}
	TestTask &task = b.finish();
	task.flags = 0;
	TaskEnd end = runTask(fw, task);
	ASSERT_TRUE(completed(end, 3));
	for (size_t i = 0; i < ops.size(); i++) {
		dla_op_stats st = statsOf(fw, ops[i]);
		SCOPED_TRACE("op " + std::to_string(ops[i]));
		EXPECT_EQ(1u, st.completed);
		EXPECT_EQ(i % VDLA_NUM_GROUPS, st.group);
		EXPECT_EQ(0u, st.macs + st.bytes_read + st.bytes_written + st.device_ns);
	}
}

/*
 * DLA_TASK_TIME_ONLY: the device time of every op as with the counters (the
 * group's STAT_TIME), and the other counters 0.
 */
TEST(Statistics, TimeOnlyReadsTheDeviceTimeAlone)
{
	constexpr int kOps = 3;
	for (int timeOnly = 0; timeOnly < 2; timeOnly++) {
		FwDevice fw;
		/* Each copy stays RUNNING 20 ms, while polling advances the device clock. */
		fw.injectFault(VDLA_ENGINE_BDMA, VDLA_FI_DELAY, VDLA_FI_COUNT_FOREVER, 20000);
		TaskBuilder b(fw);
		Rng rng(545);
		std::vector<uint16_t> ops;
		for (int i = 0; i < kOps; i++) {
			Tensor x = randomTensor(rng, VDLA_DTYPE_INT8, 1, 2, 3, 3);
			ops.push_back(b.copy(b.place(x), b.allocLike(x)));
		}
		TestTask &task = b.finish();
		task.flags = DLA_TASK_STATISTICS | (timeOnly ? DLA_TASK_TIME_ONLY : 0);
		TaskEnd end = runTask(fw, task, kTaskTimeout, [&]() {
			fw.dev().nowNs += 1000;
			return true;
		});
		ASSERT_TRUE(completed(end, kOps));
		for (uint16_t op : ops) {
			dla_op_stats st = statsOf(fw, op);
			SCOPED_TRACE("op " + std::to_string(op) + (timeOnly ? ", time only" : ""));
			EXPECT_GT(st.device_ns, 0u);
			EXPECT_EQ(fw.dev().stats(VDLA_ENGINE_BDMA, st.group).timeNs, st.device_ns);
			EXPECT_EQ(timeOnly ? 0u : 18u, st.bytes_read);
			EXPECT_EQ(timeOnly ? 0u : 18u, st.bytes_written);
		}
	}
}

TEST(Statistics, UnknownTaskFlagsAreRefused)
{
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(550);
	Tensor x = randomTensor(rng, VDLA_DTYPE_INT8, 1, 2, 3, 3);
	b.copy(b.place(x), b.allocLike(x));
	TestTask &task = b.finish();
	task.flags = DLA_TASK_STATISTICS | 4;
	dla_task_config config = task.config();
	dla_task_result result = {};
	EXPECT_EQ(DLA_ERR_BAD_ARGUMENT, dla_check_task(fw.engine(), &config, &result));
	EXPECT_EQ(DLA_ERR_BAD_ARGUMENT, dla_execute_task(fw.engine(), &config));
	EXPECT_EQ(DLA_ERR_NO_TASK, dla_get_task_result(fw.engine(), &result)) << "nothing started";
}

/*
 * Ten independent slow BDMA copies: after each of the first nine
 * completions the engine had another op to run, and ping-pong had it
 * programmed in the other group already (except when the test thread was
 * too late to notice a completion, hence no exact count of hits).
 */
TEST(Statistics, PingPongCountsCompletionsWithANextOp)
{
	FwDevice fw;
	fw.injectFault(VDLA_ENGINE_BDMA, VDLA_FI_DELAY, VDLA_FI_COUNT_FOREVER, 3000);
	TaskBuilder b(fw);
	Rng rng(530);
	for (int i = 0; i < 10; i++) {
		Tensor x = randomTensor(rng, VDLA_DTYPE_INT8, 1, 2, 3, 3);
		b.copy(b.place(x), b.allocLike(x));
	}
	TaskEnd end = runTask(fw, b.finish());
	ASSERT_TRUE(completed(end, 10));
	EXPECT_EQ(9u, end.result.pingpong_total);
	EXPECT_GE(end.result.pingpong_hits, 1u);
	EXPECT_LE(end.result.pingpong_hits, end.result.pingpong_total);
}

} /* namespace */
