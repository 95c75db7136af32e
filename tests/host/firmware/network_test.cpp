/* SPDX-License-Identifier: MIT */
/*
 * A network of more than 1000 operations in one task: four independent
 * streams of 42 blocks each, interleaved in index order so that every
 * engine always has work from several streams queued. A block is
 *
 *   BDMA copy X -> T
 *   CONV T -> Y (INT32)                          \  every third block these
 *   SDP Y + EW(fresh data) -> Z (INT8, clipped)   > three are one fused
 *   PDP Z -> P (MAX or AVG 3x3, pad 1)           /  CONV -> SDP -> PDP chain
 *   RUBIK P -> X' (swap W and H)                 -> the next block's X
 *   CDP P -> Q (a leaf)
 *
 * plus ENABLED and PROGRAMMED links between streams, which order the
 * schedule without carrying data. The integer paths are exact, so every
 * block's every output is compared with the reference bit for bit. Tensors
 * stay tiny: the test measures the firmware, not the engines.
 */
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include "task_builder.h"

using namespace vdla_fwtest;
using namespace vdla_ref;

namespace {

constexpr int kStreams = 4;
constexpr int kBlocks = 42;
constexpr uint32_t kC = 4, kH = 6, kW = 6;

struct BlockCheck {
	Tensor ref;
	Surface out;
	const char *what;
};

TEST(Network, ThousandOperationsMatchTheReference)
{
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(400);

	std::vector<Tensor> x(kStreams);
	std::vector<Surface> xs(kStreams);
	for (int s = 0; s < kStreams; s++) {
		x[s] = randomFull(rng, VDLA_DTYPE_INT8, 1, kC, kH, kW);
		xs[s] = b.place(x[s]);
	}
	std::vector<uint16_t> lastOp(kStreams, VDLA_NO_OP);
	std::vector<BlockCheck> checks;
	std::vector<uint16_t> prevConv(kStreams, VDLA_NO_OP);
	CdpParams dp;
	dp.size = 3;
	dp.lut = sampleCdpLut();
	dp.lutShift = 8;
	dp.outShift = 16;
	dp.round = VDLA_ROUND_HALF_EVEN;

	for (int k = 0; k < kBlocks; k++) {
		bool fused = k % 3 == 2;
		for (int s = 0; s < kStreams; s++) {
			const Tensor &in = x[s];
			/* 1. BDMA */
			Surface t = b.allocLike(in);
			uint16_t copy = b.copy(xs[s], t);
			if (lastOp[s] != VDLA_NO_OP)
				b.link(lastOp[s], copy);

			/* 2-4. CONV, SDP, PDP */
			Tensor wgt = randomInt(rng, VDLA_DTYPE_INT8, kC, kC, 3, 3, -8, 8);
			ConvParams cp;
			cp.padL = cp.padR = cp.padT = cp.padB = 1;
			Tensor y = conv(in, wgt, cp);
			Tensor e = randomInt(rng, VDLA_DTYPE_INT8, 1, kC, kH, kW, -60, 60);
			SdpParams sp;
			sp.scale = VDLA_SDP_MODE_PER_TENSOR;
			sp.scaleMul = 1;
			sp.scaleShift = 7;
			sp.ew = VDLA_SDP_EW_OP_ADD;
			sp.ewMul = 1;
			sp.round = VDLA_ROUND_HALF_EVEN;
			Tensor z = sdp(y, &e, sp, VDLA_DTYPE_INT8);
			PdpParams pp;
			pp.method = k % 2 ? VDLA_PDP_MAX : VDLA_PDP_AVG;
			pp.kw = pp.kh = 3;
			pp.padL = pp.padR = pp.padT = pp.padB = 1;
			pp.includePad = k % 4 == 0;
			pp.round = VDLA_ROUND_HALF_AWAY;
			Tensor p = pdp(z, pp);

			Surface es = b.place(e);
			Surface ps = b.allocLike(p);
			uint16_t cv, pd;
			if (fused) {
				TaskBuilder::Fused f = b.convSdpPdp(
					t, b.place(wgt), cp, sp, VDLA_DTYPE_INT8, pp, ps, &es);
				cv = f.head;
				pd = f.tail;
				b.link(copy, cv);
			} else {
				Surface ys = b.allocLike(y), zs = b.allocLike(z);
				cv = b.conv(t, b.place(wgt), ys, cp);
				uint16_t sd = b.sdp(ys, zs, sp, &es);
				pd = b.pdp(zs, ps, pp);
				b.link(copy, cv);
				b.link(cv, sd);
				b.link(sd, pd);
				checks.push_back({ y, ys, "CONV" });
				checks.push_back({ z, zs, "SDP" });
			}
			checks.push_back({ p, ps, "PDP" });

			/* 5. RUBIK: the next X */
			RubikParams rp;
			rp.mode = VDLA_RUBIK_PERMUTE;
			rp.perm[VDLA_DIM_W] = VDLA_DIM_H;
			rp.perm[VDLA_DIM_H] = VDLA_DIM_W;
			Tensor nx = rubik(p, rp);
			Surface nxs = b.allocLike(nx);
			uint16_t ru = b.rubik(ps, nxs, rp);
			b.link(pd, ru);
			checks.push_back({ nx, nxs, "RUBIK" });

			/* 6. CDP, a leaf */
			Tensor q = cdp(p, dp);
			Surface qs = b.allocLike(q);
			uint16_t cd = b.cdp(ps, qs, dp);
			b.link(pd, cd);
			checks.push_back({ q, qs, "CDP" });

			/* Scheduling links across streams, no data. */
			if (s > 0 && prevConv[s - 1] != VDLA_NO_OP)
				b.link(prevConv[s - 1], cd, VDLA_EVENT_OP_ENABLED);
			if (s > 0 && k % 5 == 1)
				b.link(lastOp[s - 1], copy, VDLA_EVENT_OP_PROGRAMMED);
			prevConv[s] = cv;

			x[s] = nx;
			xs[s] = nxs;
			lastOp[s] = ru;
		}
	}
	ASSERT_GE(b.numOps(), 1000u);
	TaskEnd end = runTask(fw, b.finish(), std::chrono::milliseconds(30000));
	ASSERT_TRUE(completed(end, b.numOps()));
	std::cout << "[ info     ] " << b.numOps() << " operations in " << end.elapsed.count()
		  << " us; ping-pong " << end.result.pingpong_hits << "/"
		  << end.result.pingpong_total << std::endl;
	size_t bad = 0;
	for (size_t i = 0; i < checks.size(); i++) {
		::testing::AssertionResult r = matches(checks[i].ref, b.load(checks[i].out));
		if (!r && bad++ < 5)
			ADD_FAILURE() << checks[i].what << " output " << i << ": " << r.message();
	}
	EXPECT_EQ(0u, bad) << "of " << checks.size() << " outputs differ";
	/* The data kept flowing: the last block's outputs are not all zero. */
	size_t nonZero = 0;
	for (int s = 0; s < kStreams; s++)
		for (int64_t v : x[s].i)
			nonZero += v != 0;
	EXPECT_GT(nonZero, size_t(kStreams) * kC * kH * kW / 4);
}

} /* namespace */
