/* SPDX-License-Identifier: MIT */
/*
 * The dependency graph: linear chains through memory across every engine,
 * fan-out, fan-in, an anti-dependency, all six engines busy at once with
 * both register groups full, and the PROGRAMMED and ENABLED events as
 * release events.
 *
 * Buffers start as canary bytes and producers are made slow with the
 * device's fault injection (DELAY), so a consumer released too early reads
 * canaries (or the old data) and its result differs from the reference:
 * the checks do not depend on timing luck.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "task_builder.h"

using namespace vdla_fwtest;
using namespace vdla_ref;

namespace {

constexpr uint32_t kSlowUs = 8000;

/* Slows the first operation each engine starts. */
void slowFirstOps(FwDevice &fw, uint32_t us = kSlowUs)
{
	for (unsigned e = 0; e < VDLA_NUM_ENGINES; e++)
		fw.injectFault(e, VDLA_FI_DELAY, 1, us);
}

/*
 * A linear chain BDMA -> CONV -> SDP -> PDP -> CDP -> RUBIK -> BDMA, each
 * stage reading the previous one's output from memory. Every stage is
 * checked against the reference applied to what the device actually wrote
 * before it (so float roundings of one stage do not leak into the next
 * stage's check), and the first input against the chain's input.
 */
void runLinearChain(uint32_t convType, uint32_t seed)
{
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(seed);
	slowFirstOps(fw);
	bool fp = isFloat(convType);

	Tensor input = randomTensor(rng, convType, 1, 3, 8, 8);
	Tensor wgt = randomTensor(rng, convType, 4, 3, 3, 3);
	ConvParams cp;
	cp.padL = cp.padR = cp.padT = cp.padB = 1;
	SdpParams sp;
	sp.bias = VDLA_SDP_MODE_PER_TENSOR;
	sp.scale = VDLA_SDP_MODE_PER_TENSOR;
	sp.act = VDLA_SDP_ACT_RELU;
	uint32_t sdpOut;
	if (fp) {
		sp.fBiasValue = 0.125f;
		sp.fScale = 0.5f;
		sdpOut = VDLA_DTYPE_FP16;
	} else {
		sp.biasValue = 1000;
		sp.scaleMul = 1;
		sp.scaleShift = convType == VDLA_DTYPE_INT8 ? 11 : 20;
		sp.round = VDLA_ROUND_HALF_EVEN;
		sdpOut = convType == VDLA_DTYPE_INT8 ? VDLA_DTYPE_INT8 : VDLA_DTYPE_INT16;
	}
	PdpParams pp;
	pp.method = VDLA_PDP_AVG;
	pp.kw = pp.kh = 2;
	pp.sx = pp.sy = 2;
	pp.round = VDLA_ROUND_HALF_UP;
	CdpParams cdpP;
	cdpP.size = 3;
	if (fp) {
		cdpP.k = 1.0f;
		cdpP.alpha = 0.5f;
		cdpP.beta = 0.75f;
	} else {
		cdpP.lut = sampleCdpLut();
		cdpP.lutShift = sdpOut == VDLA_DTYPE_INT8 ? 8 : 24;
		cdpP.outShift = 16;
	}
	RubikParams rp;
	rp.mode = VDLA_RUBIK_SPLIT;
	rp.bx = rp.by = 2;

	Surface in = b.place(input);
	Surface staged = b.allocLike(input);
	Tensor convRef = conv(input, wgt, cp);
	Surface convOut = b.allocLike(convRef, Layout::Nhwc);
	Surface sdpOut_ = b.alloc(sdpOut, 1, 4, 8, 8, Layout::PaddedNchw);
	Surface pdpOut = b.alloc(sdpOut, 1, 4, 4, 4);
	Surface cdpOut = b.alloc(sdpOut, 1, 4, 4, 4, Layout::Nhwc);
	Surface rubikOut = b.alloc(sdpOut, 1, 16, 2, 2);
	Surface out = b.alloc(sdpOut, 1, 16, 2, 2);

	std::vector<uint16_t> ops;
	ops.push_back(b.copy(in, staged));
	ops.push_back(b.conv(staged, b.place(wgt), convOut, cp));
	ops.push_back(b.sdp(convOut, sdpOut_, sp));
	ops.push_back(b.pdp(sdpOut_, pdpOut, pp));
	ops.push_back(b.cdp(pdpOut, cdpOut, cdpP));
	ops.push_back(b.rubik(cdpOut, rubikOut, rp));
	ops.push_back(b.copy(rubikOut, out));
	for (size_t i = 1; i < ops.size(); i++)
		b.link(ops[i - 1], ops[i]);

	TaskEnd end = runTask(fw, b.finish());
	ASSERT_TRUE(completed(end, uint32_t(ops.size())));

	EXPECT_TRUE(matches(input, b.load(staged))) << "BDMA in";
	EXPECT_TRUE(matches(conv(b.load(staged), wgt, cp), b.load(convOut))) << "CONV";
	EXPECT_TRUE(matches(sdp(b.load(convOut), nullptr, sp, sdpOut), b.load(sdpOut_))) << "SDP";
	EXPECT_TRUE(matches(pdp(b.load(sdpOut_), pp), b.load(pdpOut))) << "PDP";
	EXPECT_TRUE(matches(cdp(b.load(pdpOut), cdpP), b.load(cdpOut))) << "CDP";
	EXPECT_TRUE(matches(rubik(b.load(cdpOut), rp), b.load(rubikOut))) << "RUBIK";
	EXPECT_TRUE(matches(b.load(rubikOut), b.load(out))) << "BDMA out";
	/* The integer chain is exact end to end: check it against the input alone too. */
	if (!fp) {
		Tensor r = rubik(cdp(pdp(sdp(convRef, nullptr, sp, sdpOut), pp), cdpP), rp);
		EXPECT_TRUE(matches(r, b.load(out))) << "whole chain";
	}
}

TEST(LinearChain, Int8ThroughEveryEngineMatchesReference)
{
	runLinearChain(VDLA_DTYPE_INT8, 100);
}

TEST(LinearChain, Int16ThroughEveryEngineMatchesReference)
{
	runLinearChain(VDLA_DTYPE_INT16, 101);
}

TEST(LinearChain, Fp16ThroughEveryEngineMatchesReference)
{
	runLinearChain(VDLA_DTYPE_FP16, 102);
}

TEST(LinearChain, Fp32ThroughEveryEngineMatchesReference)
{
	runLinearChain(VDLA_DTYPE_FP32, 103);
}

TEST(LinearChain, LongChainOnOneEngineRunsInOrder)
{
	/* 40 copies A -> B -> C ...: each must see its predecessor's bytes. */
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(104);
	Tensor t = randomTensor(rng, VDLA_DTYPE_INT32, 1, 3, 5, 7);
	Surface prev = b.place(t);
	uint16_t last = VDLA_NO_OP;
	std::vector<Surface> all;
	for (int i = 0; i < 40; i++) {
		Surface next = b.allocLike(t);
		uint16_t op = b.copy(prev, next);
		if (last != VDLA_NO_OP)
			b.link(last, op);
		last = op;
		prev = next;
		all.push_back(next);
	}
	TaskEnd end = runTask(fw, b.finish());
	ASSERT_TRUE(completed(end, 40));
	for (size_t i = 0; i < all.size(); i++)
		ASSERT_TRUE(matches(t, b.load(all[i]))) << "copy " << i;
}

/* Groups of engine @e that are enabled or have run (not IDLE). */
unsigned groupsInUse(FwDevice &fw, unsigned e)
{
	unsigned count = 0;
	for (uint32_t g = 0; g < VDLA_NUM_GROUPS; g++) {
		uint32_t status = fw.portRead(VDLA_ENGINE_BASE(e) + VDLA_E_STATUS_REG(g));
		if (((status >> VDLA_E_STATUS_GROUP_SHIFT(g)) & VDLA_E_STATUS_GROUP_MASK) !=
		    VDLA_GROUP_IDLE)
			count++;
	}
	return count;
}

TEST(LinearChain, OneEngineChainIsEnabledWithoutWaitingForInterrupts)
{
	/*
	 * The engine runs its groups in order, so a COMPLETED link to a later
	 * op of the same engine is released when the producer is enabled:
	 * execute alone enables every group. The first copy is slow, so a
	 * consumer that started early would copy canaries.
	 */
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(105);
	fw.injectFault(VDLA_ENGINE_BDMA, VDLA_FI_DELAY, 1, 50000);
	Tensor t = randomTensor(rng, VDLA_DTYPE_INT8, 1, 2, 4, 4);
	Surface prev = b.place(t);
	std::vector<Surface> all;
	uint16_t last = VDLA_NO_OP;
	for (int i = 0; i < 2 * VDLA_NUM_GROUPS; i++) {
		Surface next = b.allocLike(t);
		uint16_t op = b.copy(prev, next);
		if (last != VDLA_NO_OP)
			b.link(last, op, VDLA_EVENT_OP_COMPLETED);
		last = op;
		prev = next;
		all.push_back(next);
	}
	TestTask &task = b.finish();
	dla_task_config config = task.config();
	ASSERT_EQ(DLA_SUCCESS, dla_execute_task(fw.engine(), &config));
	EXPECT_EQ(unsigned(VDLA_NUM_GROUPS), groupsInUse(fw, VDLA_ENGINE_BDMA));
	TaskEnd end = waitTask(fw);
	ASSERT_TRUE(completed(end, 2 * VDLA_NUM_GROUPS));
	for (size_t i = 0; i < all.size(); i++)
		ASSERT_TRUE(matches(t, b.load(all[i]))) << "copy " << i;
}

TEST(LinearChain, ACompletedLinkToAnotherEngineWaitsForCompletion)
{
	/* The same release would be wrong across engines, which run side by side. */
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(106);
	fw.injectFault(VDLA_ENGINE_BDMA, VDLA_FI_DELAY, 1, 50000);
	Tensor t = randomTensor(rng, VDLA_DTYPE_INT8, 1, 2, 4, 4);
	Surface copied = b.allocLike(t);
	uint16_t producer = b.copy(b.place(t), copied);
	RubikParams rp;
	rp.mode = VDLA_RUBIK_PERMUTE;
	rp.perm[VDLA_DIM_W] = VDLA_DIM_H;
	rp.perm[VDLA_DIM_H] = VDLA_DIM_W;
	Tensor ref = rubik(t, rp);
	Surface out = b.allocLike(ref);
	uint16_t consumer = b.rubik(copied, out, rp);
	b.link(producer, consumer, VDLA_EVENT_OP_COMPLETED);
	TestTask &task = b.finish();
	dla_task_config config = task.config();
	ASSERT_EQ(DLA_SUCCESS, dla_execute_task(fw.engine(), &config));
	EXPECT_EQ(0u, groupsInUse(fw, VDLA_ENGINE_RUBIK));
	TaskEnd end = waitTask(fw);
	ASSERT_TRUE(completed(end, 2));
	EXPECT_TRUE(matches(ref, b.load(out)));
}

TEST(Graph, FanOutReleasesConsumersOnEveryEngine)
{
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(110);
	/* The producer is slow: consumers that start early read canaries. */
	fw.injectFault(VDLA_ENGINE_BDMA, VDLA_FI_DELAY, 1, 15000);

	Tensor x = randomTensor(rng, VDLA_DTYPE_INT8, 1, 4, 6, 6);
	Surface staging = b.place(x), a = b.allocLike(x);
	uint16_t producer = b.copy(staging, a);

	Tensor wgt = randomTensor(rng, VDLA_DTYPE_INT8, 2, 4, 3, 3);
	ConvParams cp;
	Tensor convRef = conv(x, wgt, cp);
	Surface convOut = b.allocLike(convRef);
	uint16_t c1 = b.conv(a, b.place(wgt), convOut, cp);

	SdpParams sp;
	sp.bias = VDLA_SDP_MODE_PER_TENSOR;
	sp.biasValue = -7;
	sp.act = VDLA_SDP_ACT_RELU;
	Tensor sdpRef = sdp(x, nullptr, sp, VDLA_DTYPE_INT16);
	Surface sdpOut = b.allocLike(sdpRef);
	uint16_t c2 = b.sdp(a, sdpOut, sp);

	PdpParams pp;
	pp.method = VDLA_PDP_MIN;
	pp.kw = pp.kh = 3;
	pp.sx = pp.sy = 3;
	Tensor pdpRef = pdp(x, pp);
	Surface pdpOut = b.allocLike(pdpRef);
	uint16_t c3 = b.pdp(a, pdpOut, pp);

	CdpParams dp;
	dp.size = 3;
	dp.lut = sampleCdpLut();
	dp.lutShift = 8;
	dp.outShift = 16;
	Tensor cdpRef = cdp(x, dp);
	Surface cdpOut = b.allocLike(cdpRef);
	uint16_t c4 = b.cdp(a, cdpOut, dp);

	RubikParams rp;
	rp.mode = VDLA_RUBIK_CONTRACT;
	rp.bx = rp.by = 2;
	Tensor rubikRef = rubik(x, rp);
	Surface rubikOut = b.allocLike(rubikRef);
	uint16_t c5 = b.rubik(a, rubikOut, rp);

	Surface copyOut = b.allocLike(x);
	uint16_t c6 = b.copy(a, copyOut);

	for (uint16_t c : { c1, c2, c3, c4, c5, c6 })
		b.link(producer, c);
	TaskEnd end = runTask(fw, b.finish());
	ASSERT_TRUE(completed(end, 7));
	EXPECT_TRUE(matches(convRef, b.load(convOut))) << "CONV";
	EXPECT_TRUE(matches(sdpRef, b.load(sdpOut))) << "SDP";
	EXPECT_TRUE(matches(pdpRef, b.load(pdpOut))) << "PDP";
	EXPECT_TRUE(matches(cdpRef, b.load(cdpOut))) << "CDP";
	EXPECT_TRUE(matches(rubikRef, b.load(rubikOut))) << "RUBIK";
	EXPECT_TRUE(matches(x, b.load(copyOut))) << "BDMA";
}

TEST(Graph, FanInWaitsForEveryProducerOnDifferentEngines)
{
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(120);
	/* Each producer slow by a different amount: the last one decides. */
	fw.injectFault(VDLA_ENGINE_CONV, VDLA_FI_DELAY, 1, 12000);
	fw.injectFault(VDLA_ENGINE_PDP, VDLA_FI_DELAY, 1, 6000);
	fw.injectFault(VDLA_ENGINE_BDMA, VDLA_FI_DELAY, 1, 18000);

	const uint32_t C = 4;
	Tensor x = randomTensor(rng, VDLA_DTYPE_INT8, 1, C, 6, 6);
	Tensor wgt = randomTensor(rng, VDLA_DTYPE_INT8, C, C, 3, 3);
	ConvParams cp;
	cp.padL = cp.padR = cp.padT = cp.padB = 1;
	Tensor convRef = conv(x, wgt, cp);
	Surface convOut = b.allocLike(convRef);
	uint16_t pConv = b.conv(b.place(x), b.place(wgt), convOut, cp);

	Tensor y = randomTensor(rng, VDLA_DTYPE_INT16, 1, C, 6, 6);
	PdpParams pp;
	pp.method = VDLA_PDP_MAX;
	pp.kw = pp.kh = 3;
	pp.padL = pp.padR = pp.padT = pp.padB = 1;
	Tensor pdpRef = pdp(y, pp);
	Surface pdpOut = b.allocLike(pdpRef);
	uint16_t pPdp = b.pdp(b.place(y), pdpOut, pp);

	/* The per-channel bias arrives by BDMA into the buffer SDP reads. */
	std::vector<int32_t> bias;
	for (uint32_t c = 0; c < C; c++)
		bias.push_back(int32_t(rng.uniform(-100000, 100000)));
	vdla_task_address staged = b.putInt32s(bias);
	uint16_t biasBuf = b.addBuffer(4 * C);
	BdmaCopy bc;
	bc.srcIndex = staged.index;
	bc.dstIndex = biasBuf;
	bc.lineBytes = 4 * C;
	uint16_t pBdma = b.bdma(bc);

	SdpParams sp;
	sp.bias = VDLA_SDP_MODE_PER_CHANNEL;
	sp.biasChannel = bias;
	sp.ew = VDLA_SDP_EW_OP_ADD;
	sp.ewMul = 3;
	sp.scale = VDLA_SDP_MODE_PER_TENSOR;
	sp.scaleMul = 1;
	sp.scaleShift = 4;
	sp.round = VDLA_ROUND_HALF_EVEN;
	Tensor ref = sdp(convRef, &pdpRef, sp, VDLA_DTYPE_INT16);
	Surface out = b.allocLike(ref);
	uint16_t sink = b.sdp(convOut, out, sp, &pdpOut);
	b.op(sink).sdp.bias.index = biasBuf;
	b.op(sink).sdp.bias.offset = 0;
	b.after(sink, { pConv, pPdp, pBdma });
	ASSERT_EQ(3, b.op(sink).dependency_count);

	TaskEnd end = runTask(fw, b.finish());
	ASSERT_TRUE(completed(end, 4));
	EXPECT_TRUE(matches(ref, b.load(out)));
}

TEST(Graph, AntiDependencyOverwritesAnInputOnlyAfterItsReaders)
{
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(130);
	/* Readers slow, writer fast: a writer started early would change what they read. */
	fw.injectFault(VDLA_ENGINE_CONV, VDLA_FI_DELAY, 1, 10000);
	fw.injectFault(VDLA_ENGINE_CDP, VDLA_FI_DELAY, 1, 5000);

	Tensor x = randomTensor(rng, VDLA_DTYPE_FP16, 1, 3, 5, 5);
	Tensor other = randomTensor(rng, VDLA_DTYPE_FP16, 1, 3, 5, 5);
	Tensor wgt = randomTensor(rng, VDLA_DTYPE_FP16, 2, 3, 3, 3);
	Surface a = b.place(x);
	ConvParams cp;
	Tensor convRef = conv(x, wgt, cp);
	Surface convOut = b.allocLike(convRef);
	uint16_t reader1 = b.conv(a, b.place(wgt), convOut, cp);
	CdpParams dp;
	dp.size = 3;
	dp.k = 2.0f;
	dp.alpha = 1.0f;
	dp.beta = 0.5f;
	Tensor cdpRef = cdp(x, dp);
	Surface cdpOut = b.allocLike(cdpRef);
	uint16_t reader2 = b.cdp(a, cdpOut, dp);
	uint16_t writer = b.copy(b.place(other), a);
	b.after(writer, { reader1, reader2 });

	TaskEnd end = runTask(fw, b.finish());
	ASSERT_TRUE(completed(end, 3));
	EXPECT_TRUE(matches(convRef, b.load(convOut)));
	EXPECT_TRUE(matches(cdpRef, b.load(cdpOut)));
	EXPECT_TRUE(matches(other, b.load(a)));
}

/*
 * Two independent operations per engine, each engine's first one slow: all
 * six engines run at once and the second operation of each waits PENDING
 * in the other group (both groups full).
 */
TEST(Graph, AllSixEnginesRunAtOnceWithBothGroupsFull)
{
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(140);
	slowFirstOps(fw, 40000);

	struct Check {
		Tensor ref;
		Surface dst;
	};
	std::vector<Check> checks;
	for (int round = 0; round < 2; round++) {
		Tensor x = randomTensor(rng, VDLA_DTYPE_INT8, 1, 4, 6, 6);
		Surface xs = b.place(x);
		Surface copyOut = b.allocLike(x);
		b.copy(xs, copyOut);
		checks.push_back({ x, copyOut });

		Tensor wgt = randomTensor(rng, VDLA_DTYPE_INT8, 3, 4, 1, 1);
		ConvParams cp;
		Tensor convRef = conv(x, wgt, cp);
		Surface convOut = b.allocLike(convRef);
		b.conv(xs, b.place(wgt), convOut, cp);
		checks.push_back({ convRef, convOut });

		SdpParams sp;
		sp.act = VDLA_SDP_ACT_RELU;
		Tensor sdpRef = sdp(x, nullptr, sp, VDLA_DTYPE_INT8);
		Surface sdpOut = b.allocLike(sdpRef);
		b.sdp(xs, sdpOut, sp);
		checks.push_back({ sdpRef, sdpOut });

		PdpParams pp;
		pp.method = VDLA_PDP_MAX;
		pp.kw = pp.kh = 2;
		pp.sx = pp.sy = 2;
		Tensor pdpRef = pdp(x, pp);
		Surface pdpOut = b.allocLike(pdpRef);
		b.pdp(xs, pdpOut, pp);
		checks.push_back({ pdpRef, pdpOut });

		CdpParams dp;
		dp.size = 1;
		dp.lut = sampleCdpLut();
		dp.lutShift = 8;
		dp.outShift = 16;
		Tensor cdpRef = cdp(x, dp);
		Surface cdpOut = b.allocLike(cdpRef);
		b.cdp(xs, cdpOut, dp);
		checks.push_back({ cdpRef, cdpOut });

		RubikParams rp;
		rp.mode = VDLA_RUBIK_PERMUTE;
		rp.perm[VDLA_DIM_W] = VDLA_DIM_H;
		rp.perm[VDLA_DIM_H] = VDLA_DIM_W;
		Tensor rubikRef = rubik(x, rp);
		Surface rubikOut = b.allocLike(rubikRef);
		b.rubik(xs, rubikOut, rp);
		checks.push_back({ rubikRef, rubikOut });
	}
	TestTask &task = b.finish();
	dla_task_config config = task.config();
	ASSERT_EQ(DLA_SUCCESS, dla_execute_task(fw.engine(), &config));

	/* dla_execute_task enabled everything: nothing waits on anything. */
	EXPECT_EQ(0u, fw.dev().read(VDLA_REG_IDLE)) << "some engine is idle";
	for (unsigned e = 0; e < VDLA_NUM_ENGINES; e++) {
		uint32_t g0 = fw.dev().groupState(e, 0), g1 = fw.dev().groupState(e, 1);
		EXPECT_TRUE(g0 == VDLA_GROUP_RUNNING || g0 == VDLA_GROUP_PENDING)
			<< "engine " << e << " group 0 state " << g0;
		EXPECT_EQ(uint32_t(VDLA_GROUP_PENDING), g1) << "engine " << e << " group 1";
	}
	TaskEnd end = waitTask(fw);
	ASSERT_TRUE(completed(end, 12));
	for (size_t i = 0; i < checks.size(); i++)
		EXPECT_TRUE(matches(checks[i].ref, b.load(checks[i].dst))) << "op " << i;
	EXPECT_EQ(kAllEnginesIdle, fw.dev().read(VDLA_REG_IDLE));
}

/*
 * PROGRAMMED and ENABLED links:
 *   0 CONV  (slow)          Y = conv(S)
 *   1 SDP   (slow)          Z = sdp(Y)        COMPLETED link from 0
 *   2 PDP                   independent       PROGRAMMED link from 1
 *   3 RUBIK                 permute(Y)        ENABLED link from 1
 * Op 1 is programmed at once (SDP's groups are free), so op 2 runs while
 * op 0 is still running. Op 1 is enabled only once op 0 completed, so op 3
 * sees op 0's output, and it runs while op 1 (slow) is still running.
 */
TEST(Graph, ProgrammedAndEnabledEventsReleaseConsumersBeforeCompletion)
{
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(150);
	fw.injectFault(VDLA_ENGINE_CONV, VDLA_FI_DELAY, 1, 80000);
	fw.injectFault(VDLA_ENGINE_SDP, VDLA_FI_DELAY, 1, 80000);

	Tensor s = randomTensor(rng, VDLA_DTYPE_INT8, 1, 3, 6, 6);
	Tensor wgt = randomTensor(rng, VDLA_DTYPE_INT8, 2, 3, 3, 3);
	ConvParams cp;
	Tensor y = conv(s, wgt, cp);
	Surface ys = b.allocLike(y);
	uint16_t op0 = b.conv(b.place(s), b.place(wgt), ys, cp);

	SdpParams sp;
	sp.scale = VDLA_SDP_MODE_PER_TENSOR;
	sp.scaleMul = 1;
	sp.scaleShift = 6;
	Tensor z = sdp(y, nullptr, sp, VDLA_DTYPE_INT8);
	Surface zs = b.allocLike(z);
	uint16_t op1 = b.sdp(ys, zs, sp);
	b.link(op0, op1, VDLA_EVENT_OP_COMPLETED);

	Tensor u = randomTensor(rng, VDLA_DTYPE_INT16, 1, 2, 4, 4);
	PdpParams pp;
	pp.method = VDLA_PDP_AVG;
	pp.kw = pp.kh = 2;
	Tensor uRef = pdp(u, pp);
	Surface us = b.allocLike(uRef);
	uint16_t op2 = b.pdp(b.place(u), us, pp);
	b.link(op1, op2, VDLA_EVENT_OP_PROGRAMMED);

	RubikParams rp;
	rp.mode = VDLA_RUBIK_PERMUTE;
	rp.perm[VDLA_DIM_W] = VDLA_DIM_C;
	rp.perm[VDLA_DIM_C] = VDLA_DIM_W;
	Tensor yPerm = rubik(y, rp);
	Surface yp = b.allocLike(yPerm);
	uint16_t op3 = b.rubik(ys, yp, rp);
	b.link(op1, op3, VDLA_EVENT_OP_ENABLED);

	bool op2BeforeOp0 = false, op3BeforeOp1 = false, sawOp2 = false, sawOp3 = false;
	auto done = [&](uint16_t op) {
		dla_op_stats st = {};
		return dla_op_statistics(fw.engine(), op, &st) == DLA_SUCCESS && st.completed;
	};
	PollHook hook = [&]() {
		if (!sawOp2 && done(op2)) {
			sawOp2 = true;
			op2BeforeOp0 = !done(op0);
		}
		if (!sawOp3 && done(op3)) {
			sawOp3 = true;
			op3BeforeOp1 = !done(op1);
		}
		return true;
	};
	TaskEnd end = runTask(fw, b.finish(), kTaskTimeout, hook);
	ASSERT_TRUE(completed(end, 4));
	EXPECT_TRUE(op2BeforeOp0) << "the PROGRAMMED link waited for more than programming";
	EXPECT_TRUE(op3BeforeOp1) << "the ENABLED link waited for completion";
	EXPECT_TRUE(matches(z, b.load(zs)));
	EXPECT_TRUE(matches(uRef, b.load(us)));
	EXPECT_TRUE(matches(yPerm, b.load(yp))) << "the ENABLED link fired before op 1 was enabled";
}

TEST(Graph, ValidTaskLogsNoFirmwareError)
{
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(160);
	Tensor x = randomTensor(rng, VDLA_DTYPE_INT8, 1, 2, 3, 3);
	Surface mid = b.allocLike(x), out = b.allocLike(x);
	uint16_t a = b.copy(b.place(x), mid);
	uint16_t c = b.copy(mid, out);
	b.link(a, c);
	uint64_t before = firmwareErrorCount();
	TaskEnd end = runTask(fw, b.finish());
	ASSERT_TRUE(completed(end, 2));
	EXPECT_EQ(before, firmwareErrorCount());
}

} /* namespace */
