/* SPDX-License-Identifier: MIT */
/*
 * Task control: aborting a task with a hung operation, hardware errors
 * (an injected OP_ERROR, a fault in a fused chain, an MMU fault) ending the
 * task FAILED with what the device reported, stopping at an operation
 * boundary and resuming with results identical to an uninterrupted run
 * (with another task run on the device meanwhile, also on the same engine
 * context with dla_switch_task, as a preempting driver does), empty tasks,
 * dla_check_task, and the status codes of the entry points called in the
 * wrong state.
 */
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "task_builder.h"

using namespace vdla_fwtest;
using namespace vdla_ref;

namespace {

bool opCompleted(dla_engine *engine, uint32_t op)
{
	dla_op_stats st = {};
	return dla_op_statistics(engine, op, &st) == DLA_SUCCESS && st.completed;
}

/* BDMA copy -> CONV -> SDP, through memory; checks its results itself. */
struct SmallTask {
	Tensor x, wgt, convRef, sdpRef;
	ConvParams cp;
	SdpParams sp;
	Surface copyOut, convOut, sdpOut;
	uint32_t ops = 0;

	SmallTask(TaskBuilder &b, uint64_t seed)
	{
		Rng rng(seed);
		x = randomTensor(rng, VDLA_DTYPE_INT8, 1, 3, 5, 5);
		wgt = randomTensor(rng, VDLA_DTYPE_INT8, 2, 3, 3, 3);
		cp.padL = cp.padR = cp.padT = cp.padB = 1;
		convRef = conv(x, wgt, cp);
		sp.scale = VDLA_SDP_MODE_PER_TENSOR;
		sp.scaleMul = 1;
		sp.scaleShift = 8;
		sp.act = VDLA_SDP_ACT_RELU;
		sdpRef = sdp(convRef, nullptr, sp, VDLA_DTYPE_INT8);
		copyOut = b.allocLike(x);
		convOut = b.allocLike(convRef);
		sdpOut = b.allocLike(sdpRef);
		uint16_t a = b.copy(b.place(x), copyOut);
		uint16_t c = b.conv(copyOut, b.place(wgt), convOut, cp);
		uint16_t s = b.sdp(convOut, sdpOut, sp);
		b.link(a, c);
		b.link(c, s);
		ops = 3;
	}

	void check(TaskBuilder &b)
	{
		EXPECT_TRUE(matches(x, b.load(copyOut)));
		EXPECT_TRUE(matches(convRef, b.load(convOut)));
		EXPECT_TRUE(matches(sdpRef, b.load(sdpOut)));
	}
};

/* ---- Abort ------------------------------------------------------------- */

/*
 * dla_isr_handler reads INT_STATUS once for the host: it returns every bit,
 * acknowledges only its own (DONE here) and leaves the host's TEST pending.
 */
TEST(Interrupts, IsrHandlerReturnsTheStatusAndLeavesTheHostBits)
{
	FwDevice fw;
	fw.dev().write(VDLA_REG_INT_ENABLE, fw.dev().read(VDLA_REG_INT_ENABLE) | VDLA_INT_TEST);
	fw.dev().write(VDLA_REG_INT_SET, VDLA_INT_TEST);
	EXPECT_EQ(uint32_t(VDLA_INT_TEST), dla_isr_handler(fw.engine()));
	EXPECT_EQ(uint32_t(VDLA_INT_TEST), fw.dev().read(VDLA_REG_INT_STATUS))
		<< "the host acknowledges its own bit";
	fw.dev().write(VDLA_REG_INT_STATUS, VDLA_INT_TEST);
	EXPECT_EQ(0u, dla_isr_handler(fw.engine()));

	TaskBuilder b(fw);
	Rng rng(900);
	Tensor x = randomTensor(rng, VDLA_DTYPE_INT8, 1, 2, 3, 3);
	b.copy(b.place(x), b.allocLike(x));
	dla_task_config config = b.finish().config();
	ASSERT_EQ(DLA_SUCCESS, dla_execute_task(fw.engine(), &config));
	uint32_t seen = 0;
	for (int i = 0; i < 2000 && !(seen & VDLA_INT_DONE(VDLA_ENGINE_BDMA)); i++) {
		seen |= dla_isr_handler(fw.engine());
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	}
	EXPECT_EQ(uint32_t(VDLA_INT_DONE(VDLA_ENGINE_BDMA)), seen);
	EXPECT_EQ(0u, fw.dev().read(VDLA_REG_INT_STATUS)) << "DONE was acknowledged";
	uint32_t complete = 0;
	EXPECT_EQ(DLA_SUCCESS, dla_process_events(fw.engine(), &complete));
	EXPECT_EQ(1u, complete) << "the recorded DONE completes the task";
}

TEST(Abort, HungOperationIsAbortedAndTheNextTaskRunsClean)
{
	FwDevice fw;
	DeviceHarness &dev = fw.dev();
	uint32_t resets = dev.read(VDLA_REG_RESET_COUNT);
	fw.injectFault(VDLA_ENGINE_CONV, VDLA_FI_HANG, 1);
	{
		TaskBuilder b(fw);
		SmallTask t(b, 300);
		/* An independent op on another engine, which completes. */
		Rng rng(301);
		Tensor u = randomTensor(rng, VDLA_DTYPE_INT16, 1, 2, 3, 3);
		PdpParams pp;
		uint16_t independent = b.pdp(b.place(u), b.allocLike(u), pp);
		TestTask &task = b.finish();
		bool hung = false;
		TaskEnd end = runTask(fw, task, kTaskTimeout, [&]() {
			/* Once CONV runs the hung op and the rest is done, stop waiting. */
			hung = opCompleted(fw.engine(), 0) && opCompleted(fw.engine(), independent)
				&& dev.groupState(VDLA_ENGINE_CONV, 0) == VDLA_GROUP_RUNNING;
			return !hung;
		});
		ASSERT_TRUE(hung) << describe(end);
		ASSERT_FALSE(end.ended) << describe(end);

		ASSERT_EQ(DLA_SUCCESS, dla_abort_task(fw.engine()));
		struct dla_task_result r = {};
		ASSERT_EQ(DLA_SUCCESS, taskResult(fw.engine(), &r));
		EXPECT_EQ(uint32_t(DLA_TASK_ABORTED), r.state) << taskStateName(r.state);
		EXPECT_EQ(2u, r.ops_completed);
		EXPECT_EQ(kAllEnginesIdle, dev.read(VDLA_REG_IDLE));
		EXPECT_EQ(resets + 1, dev.read(VDLA_REG_RESET_COUNT)) << "no soft reset";
		for (unsigned e = 0; e < VDLA_NUM_ENGINES; e++)
			EXPECT_EQ(0u, dev.readEngine(e, VDLA_E_STATUS)) << "engine " << e;
		/* The interrupts the core handles are enabled again after the reset. */
		uint32_t enabled = dev.read(VDLA_REG_INT_ENABLE);
		EXPECT_EQ(VDLA_INT_DONE_ALL | VDLA_INT_ERROR_ALL,
			enabled & (VDLA_INT_DONE_ALL | VDLA_INT_ERROR_ALL));
		/* The task's SDP never ran: its output still holds the canary. */
		std::vector<uint8_t> canary(t.sdpOut.desc.extent(), kCanary);
		EXPECT_EQ(0, std::memcmp(canary.data(), b.hostPtr(t.sdpOut.index), canary.size()));
		dla_clear_task(fw.engine());
	}
	TaskBuilder b(fw);
	SmallTask t(b, 304);
	TaskEnd end = runTask(fw, b.finish());
	ASSERT_TRUE(completed(end, t.ops));
	t.check(b);
}

TEST(Abort, AbortWithTheWholeDeviceBusyLeavesEveryEngineIdle)
{
	FwDevice fw;
	DeviceHarness &dev = fw.dev();
	for (unsigned e = 0; e < VDLA_NUM_ENGINES; e++)
		fw.injectFault(e, VDLA_FI_HANG, 1);
	TaskBuilder b(fw);
	Rng rng(310);
	/* Two ops per engine: one RUNNING (hung) and one PENDING behind it. */
	for (int i = 0; i < 2; i++) {
		Tensor x = randomTensor(rng, VDLA_DTYPE_INT8, 1, 2, 4, 4);
		Surface xs = b.place(x);
		b.copy(xs, b.allocLike(x));
		Tensor w = randomTensor(rng, VDLA_DTYPE_INT8, 2, 2, 1, 1);
		ConvParams cp;
		b.conv(xs, b.place(w), b.alloc(VDLA_DTYPE_INT32, 1, 2, 4, 4), cp);
		SdpParams sp;
		b.sdp(xs, b.allocLike(x), sp);
		PdpParams pp;
		b.pdp(xs, b.allocLike(x), pp);
		CdpParams dp;
		dp.lut = sampleCdpLut();
		b.cdp(xs, b.allocLike(x), dp);
		RubikParams rp;
		b.rubik(xs, b.allocLike(x), rp);
	}
	TestTask &task = b.finish();
	dla_task_config config = task.config();
	ASSERT_EQ(DLA_SUCCESS, dla_execute_task(fw.engine(), &config));
	ASSERT_TRUE(waitUntil([&]() {
		for (unsigned e = 0; e < VDLA_NUM_ENGINES; e++)
			if (dev.groupState(e, 0) != VDLA_GROUP_RUNNING)
				return false;
		return true;
	})) << "not every engine started its hung op";
	EXPECT_EQ(0u, dev.read(VDLA_REG_IDLE));
	ASSERT_EQ(DLA_SUCCESS, dla_abort_task(fw.engine()));
	EXPECT_EQ(kAllEnginesIdle, dev.read(VDLA_REG_IDLE));
	struct dla_task_result r = {};
	ASSERT_EQ(DLA_SUCCESS, taskResult(fw.engine(), &r));
	EXPECT_EQ(uint32_t(DLA_TASK_ABORTED), r.state) << taskStateName(r.state);
	EXPECT_EQ(0u, r.ops_completed);
	dla_clear_task(fw.engine());

	/* Nothing of the aborted task comes back to haunt the next one. */
	TaskBuilder b2(fw);
	SmallTask t(b2, 311);
	TaskEnd end = runTask(fw, b2.finish());
	ASSERT_TRUE(completed(end, t.ops));
	t.check(b2);
}

/* ---- Hardware errors --------------------------------------------------- */

TEST(HardwareError, InjectedOpErrorFailsTheTaskWithOpAndStatError)
{
	FwDevice fw;
	DeviceHarness &dev = fw.dev();
	uint32_t resets = dev.read(VDLA_REG_RESET_COUNT);
	fw.injectFault(VDLA_ENGINE_SDP, VDLA_FI_OP_ERROR, 1);
	{
		TaskBuilder b(fw);
		SmallTask t(b, 320);
		/* A consumer of the failing op, which must never run. */
		PdpParams pp;
		Surface after = b.allocLike(t.sdpRef);
		uint16_t p = b.pdp(t.sdpOut, after, pp);
		b.link(2, p);
		TaskEnd end = runTask(fw, b.finish());
		ASSERT_TRUE(end.ended) << describe(end);
		const struct dla_task_result &r = end.result;
		EXPECT_EQ(uint32_t(DLA_TASK_FAILED), r.state) << describe(end);
		EXPECT_EQ(uint32_t(DLA_ERR_HARDWARE), r.status) << describe(end);
		EXPECT_EQ(2u, r.hw_op);
		EXPECT_EQ(uint32_t(VDLA_ERROR_INJECTED), r.hw_error);
		EXPECT_EQ(2u, r.ops_completed);
		EXPECT_EQ(kAllEnginesIdle, dev.read(VDLA_REG_IDLE));
		EXPECT_EQ(resets + 1, dev.read(VDLA_REG_RESET_COUNT))
			<< "the device was not reset after the error";
		EXPECT_FALSE(opCompleted(fw.engine(), 2));
		EXPECT_FALSE(opCompleted(fw.engine(), p));
		/* OP_ERROR writes nothing; its consumer never ran. */
		std::vector<uint8_t> canary(after.desc.extent(), kCanary);
		EXPECT_EQ(0, std::memcmp(canary.data(), b.hostPtr(after.index), canary.size()));
		dla_clear_task(fw.engine());
	}
	TaskBuilder b(fw);
	SmallTask t(b, 321);
	TaskEnd end = runTask(fw, b.finish());
	ASSERT_TRUE(completed(end, t.ops));
	t.check(b);
}

/*
 * An error in the head of a fused chain fails every member (the others
 * with CHAIN); the task names the head and its INJECTED.
 * Spec reading: "the failing op" is the one whose own error ended the
 * task, not a member that failed because of it.
 */
TEST(HardwareError, ErrorInAFusedChainNamesTheHead)
{
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(330);
	fw.injectFault(VDLA_ENGINE_CONV, VDLA_FI_OP_ERROR, 1);
	Tensor x = randomTensor(rng, VDLA_DTYPE_INT8, 1, 2, 4, 4);
	Tensor w = randomTensor(rng, VDLA_DTYPE_INT8, 2, 2, 1, 1);
	Surface in = b.allocLike(x);
	uint16_t c0 = b.copy(b.place(x), in);
	ConvParams cp;
	uint16_t head = b.conv(in, b.place(w), TaskBuilder::flying(VDLA_DTYPE_INT32, 1, 2, 4, 4),
		cp, VDLA_TASK_FLY_OUT);
	b.link(c0, head);
	SdpParams sp;
	b.sdp(TaskBuilder::flying(VDLA_DTYPE_INT32, 1, 2, 4, 4),
		TaskBuilder::flying(VDLA_DTYPE_INT8, 1, 2, 4, 4), sp, nullptr,
		VDLA_TASK_FLY_IN | VDLA_TASK_FLY_OUT);
	PdpParams pp;
	Surface out = b.alloc(VDLA_DTYPE_INT8, 1, 2, 4, 4);
	b.pdp(TaskBuilder::flying(VDLA_DTYPE_INT8, 1, 2, 4, 4), out, pp, VDLA_TASK_FLY_IN);
	TaskEnd end = runTask(fw, b.finish());
	ASSERT_TRUE(end.ended) << describe(end);
	EXPECT_EQ(uint32_t(DLA_TASK_FAILED), end.result.state) << describe(end);
	EXPECT_EQ(uint32_t(DLA_ERR_HARDWARE), end.result.status) << describe(end);
	EXPECT_EQ(uint32_t(head), end.result.hw_op);
	EXPECT_EQ(uint32_t(VDLA_ERROR_INJECTED), end.result.hw_error);
	EXPECT_EQ(1u, end.result.ops_completed);
	EXPECT_EQ(kAllEnginesIdle, fw.dev().read(VDLA_REG_IDLE));
}

/*
 * An address the device cannot reach (MMU off: beyond guest memory) faults
 * UNMAPPED; the result carries the latched fault: the write, the engine,
 * the task's context (D_CONTEXT) and the first faulting byte.
 */
TEST(HardwareError, MmuFaultReportsTheLatchedFault)
{
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(340);
	const uint32_t bytes = 256;
	uint16_t src = b.addBuffer(bytes);
	uint64_t hole = fw.dev().guestBytes() + 0x3000;
	uint16_t dst = b.addEntry(hole, bytes);
	BdmaCopy c;
	c.srcIndex = src;
	c.dstIndex = dst;
	c.dstOffset = 16;
	c.lineBytes = bytes - 16;
	/* A first op that completes, so that the failing one is not op 0. */
	SmallTask t(b, 341);
	uint16_t bad = b.bdma(c);
	TestTask &task = b.finish();
	task.context = 3;
	TaskEnd end = runTask(fw, task);
	ASSERT_TRUE(end.ended) << describe(end);
	const struct dla_task_result &r = end.result;
	EXPECT_EQ(uint32_t(DLA_TASK_FAILED), r.state) << describe(end);
	EXPECT_EQ(uint32_t(DLA_ERR_HARDWARE), r.status) << describe(end);
	EXPECT_EQ(uint32_t(bad), r.hw_op);
	EXPECT_EQ(uint32_t(VDLA_ERROR_MMU_FAULT), r.hw_error);
	uint32_t expect = VDLA_MMU_FAULT_VALID | VDLA_MMU_FAULT_WRITE
		| (VDLA_MMU_FAULT_UNMAPPED << VDLA_MMU_FAULT_REASON_SHIFT)
		| (VDLA_ENGINE_BDMA << VDLA_MMU_FAULT_ENGINE_SHIFT)
		| (3u << VDLA_MMU_FAULT_CONTEXT_SHIFT);
	EXPECT_EQ(expect, r.fault_status) << std::hex << r.fault_status;
	EXPECT_EQ(hole + 16, r.fault_addr) << std::hex << r.fault_addr;
	EXPECT_EQ(kAllEnginesIdle, fw.dev().read(VDLA_REG_IDLE));
}

/* ---- Stop and resume --------------------------------------------------- */

/*
 * A long task of 8 blocks, each BDMA copy -> fused SDP -> PDP, every block
 * on the previous block's output, plus an independent RUBIK per block.
 * Deterministic: its results do not depend on timing.
 */
struct LongTask {
	static constexpr int kBlocks = 8;
	Surface out;
	std::vector<Surface> rubikOuts;
	std::vector<std::pair<uint16_t, uint16_t>> chains;

	explicit LongTask(TaskBuilder &b)
	{
		Rng rng(350);
		Tensor x = randomInt(rng, VDLA_DTYPE_INT16, 1, 3, 6, 6, -1000, 1000);
		Surface cur = b.place(x);
		uint16_t last = VDLA_NO_OP;
		for (int i = 0; i < kBlocks; i++) {
			Surface staged = b.allocLike(x);
			uint16_t cp = b.copy(cur, staged);
			if (last != VDLA_NO_OP)
				b.link(last, cp);
			SdpParams sp;
			sp.bias = VDLA_SDP_MODE_PER_TENSOR;
			sp.biasValue = int32_t(rng.uniform(-50, 50));
			sp.scale = VDLA_SDP_MODE_PER_TENSOR;
			sp.scaleMul = int32_t(rng.uniform(1, 3));
			sp.scaleShift = 1;
			sp.round = VDLA_ROUND_HALF_EVEN;
			uint16_t s = b.sdp(
				staged, TaskBuilder::flyingLike(x), sp, nullptr, VDLA_TASK_FLY_OUT);
			b.link(cp, s);
			PdpParams pp;
			pp.method = i % 2 ? VDLA_PDP_MAX : VDLA_PDP_AVG;
			pp.kw = pp.kh = 3;
			pp.padL = pp.padR = pp.padT = pp.padB = 1;
			pp.round = VDLA_ROUND_HALF_UP;
			Surface next = b.allocLike(x);
			uint16_t p = b.pdp(TaskBuilder::flyingLike(x), next, pp, VDLA_TASK_FLY_IN);
			chains.push_back({ s, p });
			RubikParams rp;
			rp.mode = VDLA_RUBIK_PERMUTE;
			rp.perm[VDLA_DIM_W] = VDLA_DIM_H;
			rp.perm[VDLA_DIM_H] = VDLA_DIM_W;
			Surface r = b.allocLike(x);
			uint16_t ru = b.rubik(staged, r, rp);
			b.link(cp, ru);
			rubikOuts.push_back(r);
			last = p;
			cur = next;
		}
		out = cur;
	}
	static uint32_t ops() { return kBlocks * 4; }
};

/* Makes every BDMA and SDP (chain head) operation slow. */
void slowDown(FwDevice &fw)
{
	fw.injectFault(VDLA_ENGINE_BDMA, VDLA_FI_DELAY, VDLA_FI_COUNT_FOREVER, 2000);
	fw.injectFault(VDLA_ENGINE_SDP, VDLA_FI_DELAY, VDLA_FI_COUNT_FOREVER, 2000);
}

TEST(StopResume, StopsAtABoundaryAndResumesToTheUninterruptedResult)
{
	/* The uninterrupted run, on a device of its own. */
	FwDevice refDev;
	TaskBuilder refB(refDev);
	LongTask refTask(refB);
	slowDown(refDev);
	TaskEnd refEnd = runTask(refDev, refB.finish());
	ASSERT_TRUE(completed(refEnd, LongTask::ops()));

	FwDevice fw;
	DeviceHarness &dev = fw.dev();
	TaskBuilder b(fw);
	LongTask task(b);
	slowDown(fw);
	bool stopRequested = false;
	int32_t stopStatus = -1;
	TaskEnd stopped = runTask(fw, b.finish(), kTaskTimeout, [&]() {
		if (!stopRequested && opCompleted(fw.engine(), 5)) {
			stopRequested = true;
			stopStatus = dla_request_stop(fw.engine());
		}
		return true;
	});
	ASSERT_TRUE(stopRequested);
	EXPECT_EQ(DLA_SUCCESS, stopStatus) << statusName(stopStatus);
	ASSERT_TRUE(stopped.ended) << describe(stopped);
	EXPECT_EQ(uint32_t(DLA_TASK_STOPPED), stopped.result.state) << describe(stopped);
	EXPECT_EQ(uint32_t(DLA_SUCCESS), stopped.result.status);
	uint32_t done = stopped.result.ops_completed;
	EXPECT_GT(done, 5u);
	EXPECT_LT(done, LongTask::ops());
	/* Nothing enabled is left: the device is free. */
	EXPECT_EQ(kAllEnginesIdle, dev.read(VDLA_REG_IDLE));
	uint32_t counted = 0;
	for (uint32_t op = 0; op < LongTask::ops(); op++)
		counted += opCompleted(fw.engine(), op);
	EXPECT_EQ(done, counted);
	for (auto &ch : task.chains)
		EXPECT_EQ(opCompleted(fw.engine(), ch.first), opCompleted(fw.engine(), ch.second))
			<< "the chain " << ch.first << "-" << ch.second << " was split";

	/* Another task on the same device meanwhile, through a second engine context. */
	{
		dla_engine *other = fw.registerExtraEngine();
		ASSERT_NE(nullptr, other);
		TaskBuilder ob(fw);
		SmallTask t(ob, 351);
		TaskEnd end = runTask(fw, ob.finish(), kTaskTimeout, {}, other);
		ASSERT_TRUE(completed(end, t.ops));
		t.check(ob);
		dla_clear_task(other);
	}

	TaskEnd resumed = resumeTask(fw);
	ASSERT_TRUE(completed(resumed, LongTask::ops()));
	/* Bit for bit what the uninterrupted run computed. */
	EXPECT_TRUE(matches(refB.load(refTask.out), b.load(task.out)));
	for (size_t i = 0; i < task.rubikOuts.size(); i++)
		EXPECT_TRUE(matches(refB.load(refTask.rubikOuts[i]), b.load(task.rubikOuts[i])))
			<< "rubik " << i;
	EXPECT_EQ(0,
		std::memcmp(refB.hostPtr(refTask.out.index), b.hostPtr(task.out.index),
			task.out.desc.extent()));
}

/*
 * An engine runs its register groups in order. SDP op 1 waits for a slow
 * BDMA copy; SDP op 2, independent, sits in the SDP's other group. Were op
 * 2 enabled first, a stop requested while the copy runs (which enables
 * nothing more) would leave it pending behind op 1, which never runs, and
 * the task would never stop. The firmware enables each engine's ops in
 * order, so the task stops once the copy ends, and resumes to the results.
 */
TEST(StopResume, StopWithALaterOpOfAnEngineReadyBeforeAnEarlierOneEnds)
{
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(352);
	Tensor x = randomTensor(rng, VDLA_DTYPE_INT8, 1, 2, 4, 4);
	SdpParams sp;
	sp.act = VDLA_SDP_ACT_RELU;
	const Tensor relu = sdp(x, nullptr, sp, VDLA_DTYPE_INT8);
	Surface in = b.place(x), staged = b.allocLike(x), first = b.allocLike(relu),
		second = b.allocLike(relu);
	uint16_t copy = b.copy(in, staged);
	uint16_t dependent = b.sdp(staged, first, sp);
	b.link(copy, dependent);
	b.sdp(in, second, sp);
	fw.injectFault(VDLA_ENGINE_BDMA, VDLA_FI_DELAY, 1, 20000);

	bool stopRequested = false;
	TaskEnd stopped = runTask(fw, b.finish(), kTaskTimeout, [&]() {
		if (!stopRequested) {
			stopRequested = true;
			EXPECT_EQ(DLA_SUCCESS, dla_request_stop(fw.engine()));
		}
		return true;
	});
	ASSERT_TRUE(stopped.ended) << "the task never stopped: " << describe(stopped);
	EXPECT_EQ(uint32_t(DLA_TASK_STOPPED), stopped.result.state) << describe(stopped);
	EXPECT_EQ(kAllEnginesIdle, fw.dev().read(VDLA_REG_IDLE));

	TaskEnd resumed = resumeTask(fw);
	ASSERT_TRUE(completed(resumed, 3));
	EXPECT_TRUE(matches(relu, b.load(first)));
	EXPECT_TRUE(matches(relu, b.load(second)));
}

TEST(StopResume, StopAndResumeTwiceStillCompletes)
{
	FwDevice fw;
	TaskBuilder b(fw);
	LongTask task(b);
	slowDown(fw);
	TestTask &t = b.finish();
	bool requested = false;
	auto stopAfter = [&](uint32_t op) {
		requested = false;
		return [&, op]() {
			if (!requested && opCompleted(fw.engine(), op)) {
				requested = true;
				EXPECT_EQ(DLA_SUCCESS, dla_request_stop(fw.engine()));
			}
			return true;
		};
	};
	TaskEnd first = runTask(fw, t, kTaskTimeout, stopAfter(2));
	ASSERT_TRUE(first.ended) << describe(first);
	ASSERT_EQ(uint32_t(DLA_TASK_STOPPED), first.result.state) << describe(first);
	TaskEnd second = resumeTask(fw, kTaskTimeout, stopAfter(14));
	ASSERT_TRUE(second.ended) << describe(second);
	ASSERT_EQ(uint32_t(DLA_TASK_STOPPED), second.result.state) << describe(second);
	EXPECT_GE(second.result.ops_completed, first.result.ops_completed);
	TaskEnd last = resumeTask(fw);
	ASSERT_TRUE(completed(last, LongTask::ops()));

	FwDevice refDev;
	TaskBuilder refB(refDev);
	LongTask refTask(refB);
	ASSERT_TRUE(completed(runTask(refDev, refB.finish()), LongTask::ops()));
	EXPECT_TRUE(matches(refB.load(refTask.out), b.load(task.out)));
}

TEST(StopResume, StoppedTaskSwitchedBackAfterAnotherTaskOnTheSameEngineContext)
{
	FwDevice refDev;
	TaskBuilder refB(refDev);
	LongTask refTask(refB);
	ASSERT_TRUE(completed(runTask(refDev, refB.finish()), LongTask::ops()));

	/* What a driver does to preempt: stop, run another task, switch back. */
	FwDevice fw;
	TaskBuilder b(fw);
	LongTask task(b);
	slowDown(fw);
	TestTask &long_ = b.finish();
	bool requested = false;
	TaskEnd stopped = runTask(fw, long_, kTaskTimeout, [&]() {
		if (!requested && opCompleted(fw.engine(), 3)) {
			requested = true;
			EXPECT_EQ(DLA_SUCCESS, dla_request_stop(fw.engine()));
		}
		return true;
	});
	ASSERT_TRUE(stopped.ended) << describe(stopped);
	ASSERT_EQ(uint32_t(DLA_TASK_STOPPED), stopped.result.state) << describe(stopped);

	TaskBuilder ob(fw);
	SmallTask small(ob, 370);
	TestTask &smallTask = ob.finish();
	ASSERT_TRUE(completed(runTask(fw, smallTask), small.ops));
	small.check(ob);
	/* The stopped task is not the engine's any more: resume has nothing. */
	EXPECT_EQ(DLA_ERR_BAD_STATE, dla_resume_task(fw.engine()));
	/* A task that is not stopped cannot be switched to. */
	EXPECT_EQ(DLA_ERR_BAD_STATE, dla_switch_task(fw.engine(), smallTask.state.data(), 0));
	EXPECT_EQ(DLA_ERR_BAD_ARGUMENT,
		dla_switch_task(fw.engine(), long_.state.data(), VDLA_MMU_NUM_CONTEXTS));
	dla_clear_task(fw.engine());

	ASSERT_EQ(DLA_SUCCESS, dla_switch_task(fw.engine(), long_.state.data(), long_.context));
	TaskEnd resumed = resumeTask(fw);
	ASSERT_TRUE(completed(resumed, LongTask::ops())) << describe(resumed);
	EXPECT_TRUE(matches(refB.load(refTask.out), b.load(task.out)));
	for (size_t i = 0; i < task.rubikOuts.size(); i++)
		EXPECT_TRUE(matches(refB.load(refTask.rubikOuts[i]), b.load(task.rubikOuts[i])))
			<< "rubik " << i;
}

TEST(StopResume, SwitchWhileATaskRunsIsBusy)
{
	FwDevice fw;
	TaskBuilder b(fw);
	LongTask task(b);
	slowDown(fw);
	TestTask &long_ = b.finish();
	bool requested = false;
	TaskEnd stopped = runTask(fw, long_, kTaskTimeout, [&]() {
		if (!requested && opCompleted(fw.engine(), 1)) {
			requested = true;
			EXPECT_EQ(DLA_SUCCESS, dla_request_stop(fw.engine()));
		}
		return true;
	});
	ASSERT_EQ(uint32_t(DLA_TASK_STOPPED), stopped.result.state) << describe(stopped);

	fw.injectFault(VDLA_ENGINE_CONV, VDLA_FI_HANG, 1);
	TaskBuilder ob(fw);
	SmallTask small(ob, 371);
	dla_task_config config = ob.finish().config();
	ASSERT_EQ(DLA_SUCCESS, dla_execute_task(fw.engine(), &config));
	EXPECT_EQ(DLA_ERR_BUSY, dla_switch_task(fw.engine(), long_.state.data(), 0));
	EXPECT_EQ(DLA_SUCCESS, dla_abort_task(fw.engine()));
	dla_clear_task(fw.engine());
}

/* ---- Empty tasks and checking without running --------------------------- */

TEST(EmptyTask, CompletesInsideExecuteWithoutTouchingTheDevice)
{
	FwDevice fw;
	TaskBuilder b(fw);
	dla_task_config config = b.finish().config();
	fw.resetRegCounts();
	ASSERT_EQ(DLA_SUCCESS, dla_execute_task(fw.engine(), &config));
	EXPECT_EQ(0u, fw.regWrites());
	dla_task_result result = {};
	ASSERT_EQ(DLA_SUCCESS, dla_get_task_result(fw.engine(), &result));
	EXPECT_EQ(uint32_t(DLA_TASK_COMPLETED), result.state);
	EXPECT_EQ(0u, result.ops_completed);
	uint32_t ended = 7;
	EXPECT_EQ(DLA_SUCCESS, dla_process_events(fw.engine(), &ended));
	EXPECT_EQ(0u, ended);
	dla_clear_task(fw.engine());

	/* And the device runs the next task normally. */
	TaskBuilder nb(fw);
	SmallTask t(nb, 372);
	ASSERT_TRUE(completed(runTask(fw, nb.finish()), t.ops));
	t.check(nb);
}

TEST(CheckTask, ReportsWhatExecuteWouldWithoutTouchingTheDevice)
{
	FwDevice fw;
	TaskBuilder b(fw);
	SmallTask t(b, 373);
	TestTask &task = b.finish();
	b.opInMemory(1).dependency_count = 3;
	dla_task_config config = task.config();
	dla_task_result checked = {};
	fw.resetRegCounts();
	EXPECT_EQ(DLA_ERR_INVALID_TASK, dla_check_task(fw.engine(), &config, &checked));
	EXPECT_EQ(0u, fw.regWrites());
	EXPECT_EQ(0u, fw.regReads());
	EXPECT_EQ(uint32_t(DLA_TASK_FAILED), checked.state);
	EXPECT_EQ(1u, checked.error_op);
	EXPECT_EQ(uint32_t(DLA_FIELD_DEPENDENCY_COUNT), checked.error_field);
	EXPECT_EQ(uint32_t(DLA_REASON_COUNT_MISMATCH), checked.error_reason);

	EXPECT_EQ(DLA_ERR_INVALID_TASK, dla_execute_task(fw.engine(), &config));
	dla_task_result executed = {};
	ASSERT_EQ(DLA_SUCCESS, dla_get_task_result(fw.engine(), &executed));
	EXPECT_EQ(checked.error_op, executed.error_op);
	EXPECT_EQ(checked.error_field, executed.error_field);
	EXPECT_EQ(checked.error_reason, executed.error_reason);
	dla_clear_task(fw.engine());

	b.opInMemory(1).dependency_count = 1;
	config = task.config();
	EXPECT_EQ(DLA_SUCCESS, dla_check_task(fw.engine(), &config, &checked));
	EXPECT_EQ(DLA_ERR_BAD_ARGUMENT, dla_check_task(fw.engine(), nullptr, &checked));
	ASSERT_TRUE(completed(runTask(fw, task), t.ops));
	t.check(b);
}

TEST(CheckTask, DoesNotDisturbARunningTask)
{
	FwDevice fw;
	fw.injectFault(VDLA_ENGINE_BDMA, VDLA_FI_DELAY, 1, 20000);
	TaskBuilder b(fw);
	SmallTask t(b, 374);
	dla_task_config config = b.finish().config();
	ASSERT_EQ(DLA_SUCCESS, dla_execute_task(fw.engine(), &config));

	TaskBuilder ob(fw);
	SmallTask other(ob, 375);
	dla_task_config otherConfig = ob.finish().config();
	dla_task_result checked = {};
	EXPECT_EQ(DLA_SUCCESS, dla_check_task(fw.engine(), &otherConfig, &checked));

	TaskEnd end = waitTask(fw);
	ASSERT_TRUE(completed(end, t.ops));
	t.check(b);
}

TEST(CheckTask, ACheckedTaskRunsWhatWasCheckedWithoutReadingItsDescriptorAgain)
{
	FwDevice fw;
	TaskBuilder b(fw);
	SmallTask t(b, 376);
	TestTask &task = b.finish();
	dla_task_config config = task.config();
	dla_task_result checked = {};
	ASSERT_EQ(DLA_SUCCESS, dla_check_task(fw.engine(), &config, &checked));

	/* What SUBMIT checked is the task now: scribble over the descriptor. */
	std::memset(b.hostPtr(0), 0xff, task.addresses[0].size);
	ASSERT_EQ(DLA_SUCCESS, dla_execute_checked_task(fw.engine(), &config));
	TaskEnd end = waitTask(fw);
	ASSERT_TRUE(completed(end, t.ops)) << describe(end);
	t.check(b);

	/* The descriptor really was unusable: reading it again refuses it. */
	dla_clear_task(fw.engine());
	EXPECT_EQ(DLA_ERR_INVALID_TASK, dla_execute_task(fw.engine(), &config));
}

TEST(CheckTask, OnlyAStateTheCheckAcceptedStartsAndOnlyOnce)
{
	FwDevice fw;
	TaskBuilder b(fw);
	SmallTask t(b, 377);
	TestTask &task = b.finish();
	dla_task_config config = task.config();
	dla_task_result checked = {};

	/* Never checked (the state is zeroed), then refused by the check. */
	std::vector<uint64_t> fresh(config.state_size / sizeof(uint64_t) + 1, 0);
	dla_task_config unchecked = config;
	unchecked.state = fresh.data();
	EXPECT_EQ(DLA_ERR_BAD_STATE, dla_execute_checked_task(fw.engine(), &unchecked));
	b.opInMemory(1).dependency_count = 3;
	EXPECT_EQ(DLA_ERR_INVALID_TASK, dla_check_task(fw.engine(), &config, &checked));
	EXPECT_EQ(DLA_ERR_BAD_STATE, dla_execute_checked_task(fw.engine(), &config));
	EXPECT_EQ(0u, fw.regWrites());

	b.opInMemory(1).dependency_count = 1;
	ASSERT_EQ(DLA_SUCCESS, dla_check_task(fw.engine(), &config, &checked));
	EXPECT_EQ(DLA_ERR_BAD_ARGUMENT, dla_execute_checked_task(fw.engine(), nullptr));
	/* The start's own context is checked too: the check saw another. */
	dla_task_config beyond = config;
	beyond.context = VDLA_MMU_NUM_CONTEXTS;
	EXPECT_EQ(DLA_ERR_BAD_ARGUMENT, dla_execute_checked_task(fw.engine(), &beyond));
	EXPECT_EQ(0u, fw.regWrites());
	ASSERT_EQ(DLA_SUCCESS, dla_execute_checked_task(fw.engine(), &config));
	/* Busy while it runs, and spent once it has ended. */
	EXPECT_EQ(DLA_ERR_BUSY, dla_execute_checked_task(fw.engine(), &config));
	ASSERT_TRUE(completed(waitTask(fw), t.ops));
	t.check(b);
	EXPECT_EQ(DLA_ERR_BAD_STATE, dla_execute_checked_task(fw.engine(), &config));
}

/* ---- Entry points in the wrong state ----------------------------------- */

TEST(EntryPoints, ExecuteWhileATaskRunsIsBusy)
{
	FwDevice fw;
	fw.injectFault(VDLA_ENGINE_BDMA, VDLA_FI_HANG, 1);
	TaskBuilder b(fw);
	SmallTask t(b, 360);
	TestTask &task = b.finish();
	dla_task_config config = task.config();
	ASSERT_EQ(DLA_SUCCESS, dla_execute_task(fw.engine(), &config));
	TaskBuilder b2(fw);
	SmallTask t2(b2, 361);
	TestTask &task2 = b2.finish();
	dla_task_config config2 = task2.config();
	fw.resetRegCounts();
	EXPECT_EQ(DLA_ERR_BUSY, dla_execute_task(fw.engine(), &config2));
	EXPECT_EQ(0u, fw.regWrites());
	EXPECT_EQ(DLA_SUCCESS, dla_abort_task(fw.engine()));
}

TEST(EntryPoints, StateAreaTooSmallIsNoMemory)
{
	FwDevice fw;
	TaskBuilder b(fw);
	SmallTask t(b, 362);
	TestTask &task = b.finish();
	dla_task_config config = task.config();
	config.state_size = dla_task_state_size(t.ops) - 1;
	fw.resetRegCounts();
	EXPECT_EQ(DLA_ERR_NO_MEMORY, dla_execute_task(fw.engine(), &config));
	EXPECT_EQ(0u, fw.regWrites());
	/* The same task with its whole state area runs. */
	ASSERT_TRUE(completed(runTask(fw, task), t.ops));
}

TEST(EntryPoints, ResumeOfATaskThatIsNotStoppedIsBadState)
{
	FwDevice fw;
	fw.injectFault(VDLA_ENGINE_BDMA, VDLA_FI_DELAY, 1, 20000);
	TaskBuilder b(fw);
	SmallTask t(b, 363);
	TestTask &task = b.finish();
	dla_task_config config = task.config();
	ASSERT_EQ(DLA_SUCCESS, dla_execute_task(fw.engine(), &config));
	EXPECT_EQ(DLA_ERR_BAD_STATE, dla_resume_task(fw.engine()));
	TaskEnd end = waitTask(fw);
	ASSERT_TRUE(completed(end, t.ops));
	EXPECT_EQ(DLA_ERR_BAD_STATE, dla_resume_task(fw.engine()));
	t.check(b);
}

TEST(EntryPoints, WithoutATaskStopAndResumeAreNoTask)
{
	FwDevice fw;
	EXPECT_EQ(DLA_ERR_NO_TASK, dla_request_stop(fw.engine()));
	EXPECT_EQ(DLA_ERR_NO_TASK, dla_resume_task(fw.engine()));
	dla_op_stats st = {};
	EXPECT_EQ(DLA_ERR_NO_TASK, dla_op_statistics(fw.engine(), 0, &st));
}

TEST(EntryPoints, StatisticsOfAnOpBeyondTheTaskIsBadArgument)
{
	FwDevice fw;
	TaskBuilder b(fw);
	SmallTask t(b, 364);
	ASSERT_TRUE(completed(runTask(fw, b.finish()), t.ops));
	dla_op_stats st = {};
	EXPECT_EQ(DLA_ERR_BAD_ARGUMENT, dla_op_statistics(fw.engine(), t.ops, &st));
	EXPECT_EQ(DLA_SUCCESS, dla_op_statistics(fw.engine(), t.ops - 1, &st));
}

TEST(EntryPoints, NullConfigIsBadArgument)
{
	FwDevice fw;
	EXPECT_EQ(DLA_ERR_BAD_ARGUMENT, dla_execute_task(fw.engine(), nullptr));
}

TEST(EntryPoints, ClearedTaskLetsTheNextOneRun)
{
	FwDevice fw;
	for (int i = 0; i < 3; i++) {
		TaskBuilder b(fw);
		SmallTask t(b, 365 + i);
		ASSERT_TRUE(completed(runTask(fw, b.finish()), t.ops)) << "task " << i;
		t.check(b);
		dla_clear_task(fw.engine());
	}
}

} /* namespace */
