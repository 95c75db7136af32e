/* SPDX-License-Identifier: MIT */
/*
 * Fused chains through the firmware: CONV -> SDP -> PDP, CONV -> SDP and
 * SDP -> PDP described with fused_parent and the VDLA_TASK_FLY_* flags,
 * against the reference; chains between ordinary operations of the same
 * engines, with links into and out of them (including PROGRAMMED and
 * ENABLED links inside a chain), and several chains in one task.
 *
 * Flying tensors have no address. A firmware that dropped a flying flag
 * would make an engine read or write device address 0: guest memory below
 * the harness's first allocation must stay zero.
 */
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <tuple>
#include <vector>

#include "task_builder.h"

using namespace vdla_fwtest;
using namespace vdla_ref;

namespace {

/* Guest memory the harness never allocates (its bump allocator starts there). */
constexpr uint64_t kUnallocated = 0x10000;

::testing::AssertionResult lowMemoryUntouched(FwDevice &fw)
{
	const uint8_t *p = fw.dev().guest(0);
	for (uint64_t i = 0; i < kUnallocated; i++)
		if (p[i])
			return ::testing::AssertionFailure()
				<< "guest byte " << i
				<< " was written: a flying tensor went to memory";
	return ::testing::AssertionSuccess();
}

enum class Kind {
	ConvSdpPdp,
	ConvSdp,
	SdpPdp,
};

const char *kindName(Kind k)
{
	switch (k) {
	case Kind::ConvSdpPdp:
		return "ConvSdpPdp";
	case Kind::ConvSdp:
		return "ConvSdp";
	case Kind::SdpPdp:
		return "SdpPdp";
	}
	return "?";
}

/* The shared INT8 chain; for SDP -> PDP, SDP reads an INT16 tensor from memory. */
ChainWork intWork(Rng &rng, Kind kind)
{
	ChainWork w = intChainWork(rng);
	if (kind == Kind::SdpPdp) {
		w.src = randomFull(rng, VDLA_DTYPE_INT16, 1, 6, 10, 10);
		w.refConv = w.src;
		w.refSdp = sdp(w.refConv, nullptr, w.sdp, w.sdpOut);
		w.refPdp = pdp(stored(w.refSdp), w.pdp);
	}
	return w;
}

/* The shared exact FP16 chain; for SDP -> PDP, SDP reads an FP32 tensor from memory. */
ChainWork floatWork(Rng &rng, Kind kind)
{
	ChainWork w = floatChainWork(rng, true);
	if (kind == Kind::SdpPdp) {
		w.src = randomDyadic(rng, VDLA_DTYPE_FP32, 1, 4, 9, 9, 8, 2);
		w.refConv = w.src;
		w.refSdp = sdp(w.refConv, nullptr, w.sdp, w.sdpOut);
		w.refPdp = pdp(stored(w.refSdp), w.pdp);
	}
	return w;
}

/* A chain in a task: its ops and where its result goes. */
struct Chain {
	uint16_t head = VDLA_NO_OP, tail = VDLA_NO_OP;
	Surface out;
	Tensor ref;
	uint32_t ops = 0;
};

/*
 * Adds the chain's operations, consecutive, head first. @memberLink is the
 * event of an optional link from each parent to its member (never
 * COMPLETED: the parent cannot complete without its member).
 */
Chain addChain(TaskBuilder &b, const ChainWork &w, Kind kind, int memberLink = -1)
{
	Chain ch;
	uint16_t parent = VDLA_NO_OP;
	auto member = [&](uint16_t op) {
		if (parent != VDLA_NO_OP && memberLink >= 0)
			b.link(parent, op, uint8_t(memberLink));
		parent = op;
		ch.ops++;
		if (ch.head == VDLA_NO_OP)
			ch.head = op;
		ch.tail = op;
	};
	Surface sdpIn;
	if (kind != Kind::SdpPdp) {
		member(b.conv(b.place(w.src, Layout::Nhwc), b.place(w.wgt),
			TaskBuilder::flyingLike(w.refConv), w.conv, VDLA_TASK_FLY_OUT));
		sdpIn = TaskBuilder::flyingLike(w.refConv);
	} else {
		sdpIn = b.place(w.src, Layout::PaddedNchw);
	}
	uint32_t sdpFly = kind != Kind::SdpPdp ? VDLA_TASK_FLY_IN : 0;
	if (kind == Kind::ConvSdp) {
		ch.ref = w.refSdp;
		ch.out = b.allocLike(w.refSdp, Layout::PaddedNchw);
		member(b.sdp(sdpIn, ch.out, w.sdp, nullptr, sdpFly));
		return ch;
	}
	member(b.sdp(sdpIn, TaskBuilder::flyingLike(w.refSdp), w.sdp, nullptr,
		sdpFly | VDLA_TASK_FLY_OUT));
	ch.ref = w.refPdp;
	ch.out = b.allocLike(w.refPdp, Layout::PaddedNhwc);
	member(b.pdp(TaskBuilder::flyingLike(w.refSdp), ch.out, w.pdp, VDLA_TASK_FLY_IN));
	return ch;
}

class FusedChain : public ::testing::TestWithParam<std::tuple<Kind, bool>>
{
};

TEST_P(FusedChain, MatchesReference)
{
	Kind kind = std::get<0>(GetParam());
	bool fp = std::get<1>(GetParam());
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(200 + int(kind) * 2 + fp);
	ChainWork w = fp ? floatWork(rng, kind) : intWork(rng, kind);
	Chain ch = addChain(b, w, kind);
	TaskEnd end = runTask(fw, b.finish());
	ASSERT_TRUE(completed(end, ch.ops));
	EXPECT_TRUE(matches(ch.ref, b.load(ch.out)));
	EXPECT_TRUE(b.marginsUntouched(ch.out.index));
	EXPECT_TRUE(lowMemoryUntouched(fw));
}

INSTANTIATE_TEST_SUITE_P(Chains, FusedChain,
	::testing::Combine(::testing::Values(Kind::ConvSdpPdp, Kind::ConvSdp, Kind::SdpPdp),
		::testing::Bool()),
	[](const ::testing::TestParamInfo<std::tuple<Kind, bool>> &info) {
		return std::string(kindName(std::get<0>(info.param)))
			+ (std::get<1>(info.param) ? "Float" : "Int");
	});

/*
 * A chain whose members also have PROGRAMMED (or ENABLED) links from their
 * parents: allowed (only COMPLETED links from parent to member are
 * forbidden), and the chain must still be enabled as a whole and finish.
 */
void runChainWithMemberLinks(uint8_t event)
{
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(210 + event);
	ChainWork w = intWork(rng, Kind::ConvSdpPdp);
	Chain ch = addChain(b, w, Kind::ConvSdpPdp, event);
	EXPECT_EQ(1, b.op(ch.tail).dependency_count);
	/*
	 * The doc says every valid task finishes; a firmware that waits for
	 * a member's link before enabling the chain as a whole, while the
	 * link waits for the chain, never does. A small task: 5 s is plenty.
	 */
	TaskEnd end = runTask(fw, b.finish(), std::chrono::milliseconds(5000));
	ASSERT_TRUE(completed(end, ch.ops));
	EXPECT_TRUE(matches(ch.ref, b.load(ch.out)));
}

TEST(FusedChainLinks, ProgrammedLinksFromParentToMemberAreAllowed)
{
	runChainWithMemberLinks(VDLA_EVENT_OP_PROGRAMMED);
}

TEST(FusedChainLinks, EnabledLinksFromParentToMemberAreAllowed)
{
	runChainWithMemberLinks(VDLA_EVENT_OP_ENABLED);
}

/*
 * Chains among ordinary operations of the same engines, with data coming
 * in by BDMA and leaving by BDMA:
 *   BDMA in -> [CONV SDP PDP] -> SDP (plain) -> [SDP PDP] -> PDP (plain)
 *   -> [CONV SDP] -> BDMA out
 * The plain SDP and PDP between chains must not be taken for members, and
 * each chain's links must wait for its last member.
 */
TEST(FusedChainLinks, ChainsBetweenOrdinaryOpsOfTheSameEngines)
{
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(220);
	/* Slow heads: a consumer released before the chain ends reads canaries. */
	fw.injectFault(VDLA_ENGINE_CONV, VDLA_FI_DELAY, 2, 8000);

	ChainWork w1 = intWork(rng, Kind::ConvSdpPdp);
	Surface staged = b.allocLike(w1.src, Layout::Nhwc);
	uint16_t in = b.copy(b.place(w1.src, Layout::Nhwc), staged);
	uint16_t c1 = b.conv(staged, b.place(w1.wgt), TaskBuilder::flyingLike(w1.refConv), w1.conv,
		VDLA_TASK_FLY_OUT);
	b.link(in, c1);
	b.sdp(TaskBuilder::flyingLike(w1.refConv), TaskBuilder::flyingLike(w1.refSdp), w1.sdp,
		nullptr, VDLA_TASK_FLY_IN | VDLA_TASK_FLY_OUT);
	Surface out1 = b.allocLike(w1.refPdp);
	uint16_t t1 = b.pdp(TaskBuilder::flyingLike(w1.refSdp), out1, w1.pdp, VDLA_TASK_FLY_IN);

	/* Plain SDP on chain 1's output: INT8 -> INT16 per-tensor bias. */
	SdpParams plain;
	plain.bias = VDLA_SDP_MODE_PER_TENSOR;
	plain.biasValue = 300;
	Tensor plainRef = sdp(w1.refPdp, nullptr, plain, VDLA_DTYPE_INT16);
	Surface plainOut = b.allocLike(plainRef);
	uint16_t s2 = b.sdp(out1, plainOut, plain);
	b.link(t1, s2);

	/* SDP -> PDP chain on the plain SDP's output. */
	SdpParams sp;
	sp.scale = VDLA_SDP_MODE_PER_TENSOR;
	sp.scaleMul = 5;
	sp.scaleShift = 3;
	sp.act = VDLA_SDP_ACT_CLIP;
	sp.clipMin = -100;
	sp.clipMax = 1000;
	Tensor sRef = sdp(plainRef, nullptr, sp, VDLA_DTYPE_INT16);
	PdpParams pp;
	pp.method = VDLA_PDP_AVG;
	pp.kw = 2;
	pp.kh = 1;
	pp.sx = 1;
	pp.round = VDLA_ROUND_HALF_EVEN;
	Tensor pRef = pdp(sRef, pp);
	uint16_t h2
		= b.sdp(plainOut, TaskBuilder::flyingLike(sRef), sp, nullptr, VDLA_TASK_FLY_OUT);
	b.link(s2, h2);
	Surface out2 = b.allocLike(pRef, Layout::Nhwc);
	uint16_t t2 = b.pdp(TaskBuilder::flyingLike(sRef), out2, pp, VDLA_TASK_FLY_IN);

	/* Plain PDP on chain 2's output. */
	PdpParams plainP;
	plainP.method = VDLA_PDP_MIN;
	plainP.kw = plainP.kh = 1;
	Tensor plainPRef = pdp(pRef, plainP);
	Surface plainPOut = b.allocLike(plainPRef);
	uint16_t p3 = b.pdp(out2, plainPOut, plainP);
	b.link(t2, p3);

	/* CONV -> SDP chain, its input from the plain PDP (INT16 conv). */
	Tensor wgt3 = randomInt(rng, VDLA_DTYPE_INT16, 3, plainPRef.c, 1, 2, -50, 50);
	ConvParams cp3;
	Tensor conv3 = conv(plainPRef, wgt3, cp3);
	SdpParams sp3;
	sp3.scale = VDLA_SDP_MODE_PER_TENSOR;
	sp3.scaleMul = 1;
	sp3.scaleShift = 2;
	sp3.round = VDLA_ROUND_HALF_AWAY;
	Tensor ref3 = sdp(conv3, nullptr, sp3, VDLA_DTYPE_INT32);
	uint16_t h3 = b.conv(
		plainPOut, b.place(wgt3), TaskBuilder::flyingLike(conv3), cp3, VDLA_TASK_FLY_OUT);
	b.link(p3, h3);
	Surface out3 = b.allocLike(ref3);
	uint16_t t3 = b.sdp(TaskBuilder::flyingLike(conv3), out3, sp3, nullptr, VDLA_TASK_FLY_IN);
	Surface final_ = b.allocLike(ref3);
	uint16_t last = b.copy(out3, final_);
	b.link(t3, last);

	TaskEnd end = runTask(fw, b.finish());
	ASSERT_TRUE(completed(end, b.numOps()));
	EXPECT_TRUE(matches(w1.refPdp, b.load(out1))) << "chain 1";
	EXPECT_TRUE(matches(plainRef, b.load(plainOut))) << "plain SDP";
	EXPECT_TRUE(matches(pRef, b.load(out2))) << "chain 2";
	EXPECT_TRUE(matches(plainPRef, b.load(plainPOut))) << "plain PDP";
	EXPECT_TRUE(matches(ref3, b.load(out3))) << "chain 3";
	EXPECT_TRUE(matches(ref3, b.load(final_))) << "BDMA out";
	EXPECT_TRUE(lowMemoryUntouched(fw));
}

/* The builder's chain helpers derive the flying tensors from the parameters. */
TEST(FusedChainLinks, BuilderHelpersDescribeEveryChainKind)
{
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(240);
	ChainWork i1 = intWork(rng, Kind::ConvSdpPdp);
	Surface o1 = b.allocLike(i1.refPdp);
	TaskBuilder::Fused f1 = b.convSdpPdp(
		b.place(i1.src), b.place(i1.wgt), i1.conv, i1.sdp, i1.sdpOut, i1.pdp, o1);
	ChainWork i2 = floatWork(rng, Kind::ConvSdp);
	Surface o2 = b.allocLike(i2.refSdp, Layout::Nhwc);
	TaskBuilder::Fused f2 = b.convSdp(b.place(i2.src), b.place(i2.wgt), i2.conv, i2.sdp, o2);
	ChainWork i3 = intWork(rng, Kind::SdpPdp);
	Surface o3 = b.allocLike(i3.refPdp);
	TaskBuilder::Fused f3 = b.sdpPdp(b.place(i3.src), i3.sdp, i3.sdpOut, i3.pdp, o3);
	EXPECT_EQ(f1.head + 2, f1.tail);
	EXPECT_EQ(f2.head + 1, f2.tail);
	EXPECT_EQ(f3.head + 1, f3.tail);
	b.link(f1.tail, f2.head, VDLA_EVENT_OP_ENABLED);
	b.link(f2.tail, f3.head);
	TaskEnd end = runTask(fw, b.finish());
	ASSERT_TRUE(completed(end, 7));
	EXPECT_TRUE(matches(i1.refPdp, b.load(o1)));
	EXPECT_TRUE(matches(i2.refSdp, b.load(o2)));
	EXPECT_TRUE(matches(i3.refPdp, b.load(o3)));
	EXPECT_TRUE(lowMemoryUntouched(fw));
}

/*
 * Independent chains back to back: each CONV/SDP/PDP group pair is reused
 * by the next chain while the previous one finishes.
 */
TEST(FusedChainLinks, ManyIndependentChainsInOneTask)
{
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(230);
	std::vector<Chain> chains;
	for (int i = 0; i < 9; i++) {
		Kind kind = Kind(i % 3);
		ChainWork w = (i % 2) ? floatWork(rng, kind) : intWork(rng, kind);
		chains.push_back(addChain(b, w, kind));
	}
	TaskEnd end = runTask(fw, b.finish());
	ASSERT_TRUE(completed(end, b.numOps()));
	for (size_t i = 0; i < chains.size(); i++)
		EXPECT_TRUE(matches(chains[i].ref, b.load(chains[i].out))) << "chain " << i;
	EXPECT_TRUE(lowMemoryUntouched(fw));
}

} /* namespace */
