/* SPDX-License-Identifier: MIT */
/*
 * Ping-pong register groups: both groups of every engine programmed and
 * enabled back to back, long runs alternating groups, strict order from
 * group 0, per-group results, DONE bits, statistics and the CONSUMER
 * pointer, read-only registers of a pending group, and an error in one
 * group not stopping the other.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <thread>

#include "engine_util.h"

using namespace vdla_etest;
using namespace vdla_ref;

namespace {

/* One operation on some engine: how to program a group, and its result. */
struct Job {
	std::function<void(unsigned group)> program;
	std::function<::testing::AssertionResult()> check;
	uint64_t bytesWritten = 0;
};

/*
 * A small operation of @engine; @variant changes its shapes and parameters
 * so that a group running with the other group's registers shows.
 */
Job makeJob(DeviceHarness &dev, Rng &rng, unsigned engine, int variant)
{
	Job job;
	bool odd = variant % 2;
	switch (engine) {
	case VDLA_ENGINE_BDMA: {
		BdmaParams p;
		p.lineBytes = 24 + variant;
		p.lines = odd ? 3 : 5;
		p.srcLineStride = p.lineBytes + 8;
		p.dstLineStride = p.lineBytes;
		uint64_t bytes = uint64_t(p.srcLineStride) * p.lines;
		p.src = dev.alloc(bytes);
		for (uint64_t i = 0; i < bytes; i++)
			*dev.guest(p.src + i) = uint8_t(rng.uniform(0, 255));
		p.dst = allocCanary(dev, bytes);
		job.program = [&dev, p](unsigned g) { programBdma(dev, g, p); };
		job.check = [&dev, p]() {
			for (uint32_t l = 0; l < p.lines; l++)
				if (std::memcmp(dev.guest(p.dst + l * p.dstLineStride),
					    dev.guest(p.src + l * p.srcLineStride), p.lineBytes))
					return ::testing::AssertionFailure()
						<< "BDMA line " << l << " differs";
			return regionUntouched(dev, p.dst + uint64_t(p.lines) * p.lineBytes, 8);
		};
		job.bytesWritten = uint64_t(p.lineBytes) * p.lines;
		break;
	}
	case VDLA_ENGINE_CONV: {
		auto op = std::make_shared<ConvOp>();
		uint32_t k = odd ? 3 : 1;
		Tensor src = randomFull(rng, VDLA_DTYPE_INT8, 1, 3, 5 + variant % 3, 6);
		Tensor wgt = randomFull(rng, VDLA_DTYPE_INT8, odd ? 2 : 4, 3, k, k);
		op->p.padL = op->p.padT = odd ? 1 : 0;
		Tensor ref = conv(src, wgt, op->p);
		op->src = placeTensor(dev, src);
		op->wgt = placeTensor(dev, wgt);
		op->dst = allocTensor(dev, ref.dtype, ref.n, ref.c, ref.h, ref.w);
		job.program = [&dev, op](unsigned g) { programConv(dev, g, *op); };
		job.check = [&dev, op, ref]() { return matches(ref, load(dev, op->dst)); };
		job.bytesWritten = ref.size() * 4;
		break;
	}
	case VDLA_ENGINE_SDP: {
		auto op = std::make_shared<SdpOp>();
		Tensor x = randomFull(rng, VDLA_DTYPE_INT16, 1, 2, 3, 4 + variant % 5);
		op->p.scale = VDLA_SDP_MODE_PER_TENSOR;
		op->p.scaleMul = odd ? -7 : 5;
		op->p.scaleShift = odd ? 9 : 4;
		op->p.round = odd ? VDLA_ROUND_HALF_EVEN : VDLA_ROUND_FLOOR;
		uint32_t dt = odd ? VDLA_DTYPE_INT8 : VDLA_DTYPE_INT16;
		Tensor ref = sdp(x, nullptr, op->p, dt);
		op->x = placeTensor(dev, x);
		op->y = op->x;
		op->dst = allocTensor(dev, dt, x.n, x.c, x.h, x.w);
		job.program = [&dev, op](unsigned g) { programSdp(dev, g, *op); };
		job.check = [&dev, op, ref]() { return matches(ref, load(dev, op->dst)); };
		job.bytesWritten = ref.size() * vdla_test::dtypeSize(dt);
		break;
	}
	case VDLA_ENGINE_PDP: {
		auto op = std::make_shared<PdpOp>();
		Tensor src = randomFull(rng, VDLA_DTYPE_INT8, 1, 2, 6, 6 + variant % 4);
		op->p.method = odd ? VDLA_PDP_AVG : VDLA_PDP_MAX;
		op->p.kw = op->p.kh = odd ? 3 : 2;
		op->p.sx = op->p.sy = 2;
		op->p.padL = op->p.padT = odd ? 1 : 0;
		op->p.round = VDLA_ROUND_HALF_UP;
		Tensor ref = pdp(src, op->p);
		op->src = placeTensor(dev, src);
		op->dst = allocTensor(dev, ref.dtype, ref.n, ref.c, ref.h, ref.w);
		job.program = [&dev, op](unsigned g) { programPdp(dev, g, *op); };
		job.check = [&dev, op, ref]() { return matches(ref, load(dev, op->dst)); };
		job.bytesWritten = ref.size();
		break;
	}
	case VDLA_ENGINE_CDP: {
		auto op = std::make_shared<CdpOp>();
		Tensor src = randomFull(rng, VDLA_DTYPE_INT8, 1, 5 + variant % 3, 2, 3);
		op->p.size = odd ? 3 : 5;
		op->p.lut = sampleCdpLut();
		op->p.lutShift = odd ? 7 : 9;
		op->p.outShift = 16;
		Tensor ref = cdp(src, op->p);
		op->src = placeTensor(dev, src);
		op->dst = allocTensor(dev, ref.dtype, ref.n, ref.c, ref.h, ref.w);
		op->lutAddr = putInt32s(dev, op->p.lut);
		job.program = [&dev, op](unsigned g) { programCdp(dev, g, *op); };
		job.check = [&dev, op, ref]() { return matches(ref, load(dev, op->dst)); };
		job.bytesWritten = ref.size();
		break;
	}
	case VDLA_ENGINE_RUBIK: {
		auto op = std::make_shared<RubikOp>();
		Tensor src = randomFull(rng, VDLA_DTYPE_INT32, 1, 4, 2, 3 + variant % 2);
		if (odd) {
			op->p.mode = VDLA_RUBIK_CONTRACT;
			op->p.bx = op->p.by = 2;
		} else {
			op->p.perm[VDLA_DIM_W] = VDLA_DIM_C;
			op->p.perm[VDLA_DIM_C] = VDLA_DIM_W;
		}
		Tensor ref = rubik(src, op->p);
		op->src = placeTensor(dev, src);
		op->dst = allocTensor(dev, ref.dtype, ref.n, ref.c, ref.h, ref.w);
		job.program = [&dev, op](unsigned g) { programRubik(dev, g, *op); };
		job.check = [&dev, op, ref]() { return matches(ref, load(dev, op->dst)); };
		job.bytesWritten = ref.size() * 4;
		break;
	}
	}
	return job;
}

class PingPong : public ::testing::TestWithParam<unsigned>
{
};

TEST_P(PingPong, BothGroupsEnabledBackToBackGiveTheirOwnResults)
{
	unsigned e = GetParam();
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(200 + e);
	Job a = makeJob(dev, rng, e, 0), b = makeJob(dev, rng, e, 1);
	a.program(0);
	b.program(1);
	dev.selectGroup(e, 0);
	dev.enable(e);
	dev.selectGroup(e, 1);
	dev.enable(e);
	ASSERT_TRUE(dev.waitIdle(std::chrono::seconds(10)))
		<< "INT_STATUS " << hex(dev.read(VDLA_REG_INT_STATUS));
	EXPECT_EQ(dev.read(VDLA_REG_INT_STATUS) & VDLA_INT_ERROR(e), 0u);
	EXPECT_EQ(dev.groupState(e, 0), uint32_t(VDLA_GROUP_DONE));
	EXPECT_EQ(dev.groupState(e, 1), uint32_t(VDLA_GROUP_DONE));
	EXPECT_TRUE(a.check());
	EXPECT_TRUE(b.check());
	EXPECT_EQ(consumer(dev, e), 2u);
	EXPECT_EQ(dev.stats(e, 0).bytesWritten, a.bytesWritten);
	EXPECT_EQ(dev.stats(e, 1).bytesWritten, b.bytesWritten);
	EXPECT_TRUE(dev.waitIdle(std::chrono::seconds(1)));
}

TEST_P(PingPong, LongRunAlternatingGroups)
{
	unsigned e = GetParam();
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(300 + e);
	const int kOps = 3 * VDLA_NUM_GROUPS;
	std::vector<Job> jobs;
	for (int i = 0; i < kOps; i++)
		jobs.push_back(makeJob(dev, rng, e, i));
	const int groups = VDLA_NUM_GROUPS;
	for (int i = 0; i < kOps; i++) {
		unsigned g = i % groups;
		if (i >= groups) {
			/* The group's previous operation: finished, right, acknowledged. */
			OpResult r = waitGroup(dev, e, g);
			ASSERT_TRUE(succeeded(r, e, g)) << "operation " << i - groups;
			EXPECT_TRUE(jobs[i - groups].check()) << "operation " << i - groups;
			dev.ackInterrupts(VDLA_INT_DONE(e));
		}
		jobs[i].program(g);
		dev.selectGroup(e, g);
		dev.enable(e);
	}
	for (int i = kOps - groups; i < kOps; i++) {
		unsigned g = i % groups;
		ASSERT_TRUE(succeeded(waitGroup(dev, e, g), e, g)) << "operation " << i;
		EXPECT_TRUE(jobs[i].check()) << "operation " << i;
	}
	ASSERT_TRUE(dev.waitIdle(std::chrono::seconds(5)));
	EXPECT_EQ(consumer(dev, e), 0u);
}

TEST_P(PingPong, Group1WaitsForGroup0AndRunsAfterIt)
{
	unsigned e = GetParam();
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(400 + e);
	Job a = makeJob(dev, rng, e, 0), b = makeJob(dev, rng, e, 1);
	b.program(1);
	dev.selectGroup(e, 1);
	dev.enable(e);
	std::this_thread::sleep_for(std::chrono::milliseconds(20));
	EXPECT_EQ(dev.groupState(e, 1), uint32_t(VDLA_GROUP_PENDING));
	EXPECT_EQ(dev.readEngine(e, VDLA_D_OP_ENABLE), 1u);
	EXPECT_EQ(consumer(dev, e), 0u);
	EXPECT_EQ(dev.read(VDLA_REG_INT_STATUS), 0u);
	EXPECT_EQ(dev.read(VDLA_REG_IDLE) & (1u << e), 0u);

	a.program(0);
	dev.selectGroup(e, 0);
	dev.enable(e);
	ASSERT_TRUE(succeeded(waitGroup(dev, e, 0), e, 0));
	ASSERT_TRUE(succeeded(waitGroup(dev, e, 1), e, 1));
	EXPECT_TRUE(a.check());
	EXPECT_TRUE(b.check());
	EXPECT_EQ(consumer(dev, e), 2u);
	dev.selectGroup(e, 1);
	EXPECT_EQ(dev.readEngine(e, VDLA_D_OP_ENABLE), 0u);
}

INSTANTIATE_TEST_SUITE_P(PingPong, PingPong,
	::testing::Values(VDLA_ENGINE_BDMA, VDLA_ENGINE_CONV, VDLA_ENGINE_SDP, VDLA_ENGINE_PDP,
		VDLA_ENGINE_CDP, VDLA_ENGINE_RUBIK),
	[](const ::testing::TestParamInfo<unsigned> &info) {
		return std::string(engineName(info.param));
	});

TEST(PingPongOrder, LaterGroupOverwritesTheSameOutput)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(500);
	/* Both groups write one output; group 1, enabled first, must run last. */
	Tensor x0 = randomFull(rng, VDLA_DTYPE_INT8, 1, 3, 4, 4);
	Tensor x1 = randomFull(rng, VDLA_DTYPE_INT8, 1, 3, 4, 4);
	TensorDesc out = allocTensor(dev, VDLA_DTYPE_INT16, 1, 3, 4, 4);
	SdpOp op0, op1;
	op0.x = placeTensor(dev, x0);
	op1.x = placeTensor(dev, x1);
	op0.y = op0.x, op1.y = op1.x;
	op0.dst = op1.dst = out;
	op1.p.outOffset = 1000;
	programSdp(dev, 1, op1);
	dev.enable(VDLA_ENGINE_SDP);
	programSdp(dev, 0, op0);
	dev.enable(VDLA_ENGINE_SDP);
	ASSERT_TRUE(succeeded(waitGroup(dev, VDLA_ENGINE_SDP, 0), VDLA_ENGINE_SDP, 0));
	ASSERT_TRUE(succeeded(waitGroup(dev, VDLA_ENGINE_SDP, 1), VDLA_ENGINE_SDP, 1));
	EXPECT_TRUE(matches(sdp(x1, nullptr, op1.p, VDLA_DTYPE_INT16), load(dev, out)));
}

TEST(PingPongRegisters, PendingGroupDropsWritesAndKeepsItsProgramming)
{
	const unsigned e = VDLA_ENGINE_SDP;
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(501);
	Tensor x = randomFull(rng, VDLA_DTYPE_INT8, 1, 2, 3, 3);
	SdpOp op;
	op.x = placeTensor(dev, x);
	op.y = op.x;
	op.dst = allocTensor(dev, VDLA_DTYPE_INT16, 1, 2, 3, 3);
	op.p.scale = VDLA_SDP_MODE_PER_TENSOR;
	op.p.scaleMul = 3;
	programSdp(dev, 1, op);
	dev.enable(e); /* pending: group 0 comes first */
	dev.clearGuestErrors();
	dev.writeEngine(e, VDLA_SDP_SCALE_MUL, 100);
	dev.writeEngine(e, VDLA_D_OP_ENABLE, 0);
	EXPECT_EQ(dev.readEngine(e, VDLA_SDP_SCALE_MUL), 3u);
	EXPECT_EQ(dev.readEngine(e, VDLA_D_OP_ENABLE), 1u);
	EXPECT_FALSE(dev.guestErrors().empty()) << "dropped writes are logged";
	EXPECT_EQ(dev.groupState(e, 1), uint32_t(VDLA_GROUP_PENDING));

	SdpOp first = op;
	first.dst = allocTensor(dev, VDLA_DTYPE_INT16, 1, 2, 3, 3);
	programSdp(dev, 0, first);
	dev.enable(e);
	ASSERT_TRUE(succeeded(waitGroup(dev, e, 1), e, 1));
	EXPECT_TRUE(matches(sdp(x, nullptr, op.p, VDLA_DTYPE_INT16), load(dev, op.dst)));
}

TEST(PingPongErrors, AnErrorInOneGroupDoesNotStopTheOther)
{
	const unsigned e = VDLA_ENGINE_PDP;
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(502);
	Job good = makeJob(dev, rng, e, 1);
	PdpOp bad;
	bad.src = placeTensor(dev, randomFull(rng, VDLA_DTYPE_INT8, 1, 1, 4, 4));
	/* Stride 17 (PARAM) with an output of the size it would give. */
	bad.p.sx = 17;
	bad.dst = allocTensor(dev, VDLA_DTYPE_INT8, 1, 1, 4, 1);
	programPdp(dev, 0, bad);
	good.program(1);
	dev.selectGroup(e, 0);
	dev.enable(e);
	dev.selectGroup(e, 1);
	dev.enable(e);
	/* Group 0's ERROR interrupt may come before group 1 ends, and
	 * waitGroup() returns on either: wait for group 1's own DONE. */
	ASSERT_TRUE(waitAny(dev, VDLA_INT_DONE(e)));
	ASSERT_TRUE(succeeded(waitGroup(dev, e, 1), e, 1));
	EXPECT_EQ(dev.groupState(e, 0), uint32_t(VDLA_GROUP_ERROR));
	EXPECT_EQ(dev.stats(e, 0).error, uint32_t(VDLA_ERROR_PARAM));
	EXPECT_EQ(dev.stats(e, 1).error, uint32_t(VDLA_ERROR_NONE));
	EXPECT_NE(dev.read(VDLA_REG_INT_STATUS) & VDLA_INT_ERROR(e), 0u);
	EXPECT_TRUE(good.check());
	EXPECT_TRUE(regionUntouched(dev, bad.dst.addr, bad.dst.extent()));
	EXPECT_EQ(consumer(dev, e), 2u);
}

} /* namespace */
