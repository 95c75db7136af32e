/* SPDX-License-Identifier: MIT */
/*
 * Two devices side by side in one process: two DeviceHarness instances,
 * two firmware engine contexts, tasks running at the same time with their
 * interrupt processing interleaved by one thread. The core keeps no global
 * state, so neither may see anything of the other: results, register
 * writes, failures and aborts stay on their own device.
 */
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "task_builder.h"

using namespace vdla_fwtest;
using namespace vdla_ref;

namespace {

/* A chain of blocks (copy, conv, sdp, pdp, rubik) on one device, checked against the reference. */
struct ChainTask {
	std::vector<std::pair<Tensor, Surface>> checks;
	uint32_t ops = 0;

	ChainTask(TaskBuilder &b, uint64_t seed, int blocks, uint32_t dtype)
	{
		Rng rng(seed);
		bool fp = isFloat(dtype);
		Tensor x = fp ? randomDyadic(rng, dtype, 1, 3, 6, 6, 4, 2)
			      : randomTensor(rng, dtype, 1, 3, 6, 6);
		Surface xs = b.place(x);
		uint16_t last = VDLA_NO_OP;
		for (int k = 0; k < blocks; k++) {
			Surface t = b.allocLike(x);
			uint16_t cp = b.copy(xs, t);
			if (last != VDLA_NO_OP)
				b.link(last, cp);
			Tensor w = fp ? randomDyadic(rng, dtype, 3, 3, 1, 1, 2, 1)
				      : randomInt(rng, dtype, 3, 3, 1, 1, -4, 4);
			ConvParams cvp;
			Tensor y = conv(x, w, cvp);
			Surface ys = b.allocLike(y);
			uint16_t cv = b.conv(t, b.place(w), ys, cvp);
			b.link(cp, cv);
			SdpParams sp;
			sp.scale = VDLA_SDP_MODE_PER_TENSOR;
			if (fp) {
				sp.fScale = 0.5f;
			} else {
				sp.scaleMul = 1;
				sp.scaleShift = 3;
			}
			Tensor z = sdp(y, nullptr, sp, dtype);
			Surface zs = b.allocLike(z);
			uint16_t sd = b.sdp(ys, zs, sp);
			b.link(cv, sd);
			PdpParams pp;
			pp.method = VDLA_PDP_MAX;
			pp.kw = pp.kh = 3;
			pp.padL = pp.padR = pp.padT = pp.padB = 1;
			Tensor p = pdp(stored(z), pp);
			Surface ps = b.allocLike(p);
			uint16_t pd = b.pdp(zs, ps, pp);
			b.link(sd, pd);
			RubikParams rp;
			rp.mode = VDLA_RUBIK_PERMUTE;
			rp.perm[VDLA_DIM_W] = VDLA_DIM_H;
			rp.perm[VDLA_DIM_H] = VDLA_DIM_W;
			Tensor nx = rubik(p, rp);
			Surface nxs = b.allocLike(nx);
			uint16_t ru = b.rubik(ps, nxs, rp);
			b.link(pd, ru);
			checks.push_back({ y, ys });
			checks.push_back({ z, zs });
			checks.push_back({ nx, nxs });
			last = ru;
			x = stored(nx);
			xs = nxs;
			ops += 5;
		}
	}

	void check(TaskBuilder &b, const char *name)
	{
		for (size_t i = 0; i < checks.size(); i++)
			EXPECT_TRUE(matches(checks[i].first, b.load(checks[i].second)))
				<< name << " output " << i;
	}
};

TEST(TwoDevices, TasksRunConcurrentlyAndBothAreCorrect)
{
	FwDevice a, b;
	ASSERT_EQ(DLA_SUCCESS, a.registerStatus());
	ASSERT_EQ(DLA_SUCCESS, b.registerStatus());
	ASSERT_NE(a.engine(), b.engine());
	/* Slow ops on both, so that their tasks overlap in time. */
	for (unsigned e = 0; e < VDLA_NUM_ENGINES; e++) {
		a.injectFault(e, VDLA_FI_DELAY, 4, 1500);
		b.injectFault(e, VDLA_FI_DELAY, 4, 1000);
	}
	TaskBuilder ba(a), bb(b);
	ChainTask ta(ba, 600, 12, VDLA_DTYPE_INT8);
	ChainTask tb(bb, 601, 10, VDLA_DTYPE_FP16);
	TestTask &taskA = ba.finish();
	TestTask &taskB = bb.finish();

	auto ends = runTasksTogether({ { &a, &taskA }, { &b, &taskB } });
	ASSERT_TRUE(completed(ends[0], ta.ops));
	ASSERT_TRUE(completed(ends[1], tb.ops));
	ta.check(ba, "device A");
	tb.check(bb, "device B");
	EXPECT_GT(a.regWrites(), 0u);
	EXPECT_GT(b.regWrites(), 0u);
}

TEST(TwoDevices, SameTaskOnBothGivesTheSameBytes)
{
	FwDevice a, b;
	TaskBuilder ba(a), bb(b);
	ChainTask ta(ba, 610, 8, VDLA_DTYPE_INT16);
	ChainTask tb(bb, 610, 8, VDLA_DTYPE_INT16);
	auto ends = runTasksTogether({ { &a, &ba.finish() }, { &b, &bb.finish() } });
	ASSERT_TRUE(completed(ends[0], ta.ops));
	ASSERT_TRUE(completed(ends[1], tb.ops));
	ta.check(ba, "device A");
	for (size_t i = 0; i < ta.checks.size(); i++)
		EXPECT_TRUE(matches(ba.load(ta.checks[i].second), bb.load(tb.checks[i].second)));
}

TEST(TwoDevices, FailureAndAbortStayOnTheirDevice)
{
	FwDevice a, b, c;
	uint32_t resetsB = b.dev().read(VDLA_REG_RESET_COUNT);
	/* A fails with an injected error; C hangs and is aborted; B must not notice. */
	a.injectFault(VDLA_ENGINE_SDP, VDLA_FI_OP_ERROR, 1);
	c.injectFault(VDLA_ENGINE_CONV, VDLA_FI_HANG, 1);
	for (unsigned e = 0; e < VDLA_NUM_ENGINES; e++)
		b.injectFault(e, VDLA_FI_DELAY, 3, 2000);
	TaskBuilder ba(a), bb(b), bc(c);
	ChainTask ta(ba, 620, 3, VDLA_DTYPE_INT8);
	ChainTask tb(bb, 621, 6, VDLA_DTYPE_FP32);
	ChainTask tc(bc, 622, 2, VDLA_DTYPE_INT8);
	TestTask &taskC = bc.finish();
	dla_task_config configC = taskC.config();
	ASSERT_EQ(DLA_SUCCESS, dla_execute_task(c.engine(), &configC));
	TaskEnd endC;
	ASSERT_TRUE(waitUntil([&]() {
		/* C's CONV is enabled once C's firmware saw its copy complete. */
		pollOnce(c, c.engine(), endC);
		return c.dev().groupState(VDLA_ENGINE_CONV, 0) == VDLA_GROUP_RUNNING;
	}));

	TestTask &taskA = ba.finish();
	TestTask &taskB = bb.finish();
	dla_task_config configB = taskB.config();
	ASSERT_EQ(DLA_SUCCESS, dla_execute_task(b.engine(), &configB));
	/* Abort C while B runs. */
	EXPECT_EQ(DLA_SUCCESS, dla_abort_task(c.engine()));
	TaskEnd endA = runTask(a, taskA);
	TaskEnd endB = waitTask(b);

	EXPECT_EQ(uint32_t(DLA_TASK_FAILED), endA.result.state) << describe(endA);
	EXPECT_EQ(uint32_t(DLA_ERR_HARDWARE), endA.result.status) << describe(endA);
	EXPECT_EQ(2u, endA.result.hw_op);
	ASSERT_TRUE(completed(endB, tb.ops));
	tb.check(bb, "device B");
	EXPECT_EQ(resetsB, b.dev().read(VDLA_REG_RESET_COUNT));
	struct dla_task_result rc = {};
	ASSERT_EQ(DLA_SUCCESS, taskResult(c.engine(), &rc));
	EXPECT_EQ(uint32_t(DLA_TASK_ABORTED), rc.state);
}

} /* namespace */
