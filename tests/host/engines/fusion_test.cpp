/* SPDX-License-Identifier: MIT */
/*
 * On-the-fly fusion: CONV -> SDP, CONV -> SDP -> PDP and SDP -> PDP against
 * the reference and against the same work done unfused through memory
 * (which must give identical bytes), members enabled in every order and on
 * different groups, pairing with the next flying partner, counters of flying
 * data and one message per chain.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <thread>

#include "engine_util.h"

using namespace vdla_etest;
using namespace vdla_ref;

namespace {

constexpr unsigned kConv = VDLA_ENGINE_CONV;
constexpr unsigned kSdp = VDLA_ENGINE_SDP;
constexpr unsigned kPdp = VDLA_ENGINE_PDP;

/* A chain programmed into the device. */
struct Chain {
	ConvOp conv;
	SdpOp sdp;
	PdpOp pdp;
	/* Canary regions the ignored flying addresses point at. */
	uint64_t convDstCanary = 0, sdpSrcCanary = 0, sdpDstCanary = 0, pdpSrcCanary = 0;
	uint64_t canaryBytes = 0;
};

/*
 * Programs CONV -> SDP (-> PDP when @withPdp) fused, on the given groups,
 * without enabling anything. The flying descriptors carry the right shapes
 * and types but point at canaries, which must stay untouched.
 */
Chain programChain(DeviceHarness &dev, const ChainWork &w, bool withPdp, unsigned convGroup = 0,
	unsigned sdpGroup = 0, unsigned pdpGroup = 0)
{
	Chain ch;
	const Tensor &rc = w.refConv, &rs = w.refSdp, &rp = w.refPdp;
	ch.canaryBytes = 4096;
	ch.conv.p = w.conv;
	ch.conv.cfg = VDLA_CONV_CFG_DST_FLYING;
	ch.conv.src = placeTensor(dev, w.src, Layout::Nhwc);
	ch.conv.wgt = placeTensor(dev, w.wgt);
	ch.convDstCanary = allocCanary(dev, ch.canaryBytes);
	ch.conv.dst = makeDesc(ch.convDstCanary, rc.dtype, rc.n, rc.c, rc.h, rc.w, Layout::Nchw);

	ch.sdp.p = w.sdp;
	ch.sdp.flying = VDLA_SDP_CFG_SRC_FLYING;
	ch.sdpSrcCanary = allocCanary(dev, ch.canaryBytes);
	ch.sdp.x = makeDesc(ch.sdpSrcCanary, rc.dtype, rc.n, rc.c, rc.h, rc.w, Layout::Nchw);
	ch.sdp.y = ch.sdp.x;
	if (withPdp) {
		ch.sdp.flying |= VDLA_SDP_CFG_DST_FLYING;
		ch.sdpDstCanary = allocCanary(dev, ch.canaryBytes);
		ch.sdp.dst
			= makeDesc(ch.sdpDstCanary, rs.dtype, rs.n, rs.c, rs.h, rs.w, Layout::Nchw);
		ch.pdp.p = w.pdp;
		ch.pdp.flying = VDLA_PDP_CFG_SRC_FLYING;
		ch.pdpSrcCanary = allocCanary(dev, ch.canaryBytes);
		ch.pdp.src
			= makeDesc(ch.pdpSrcCanary, rs.dtype, rs.n, rs.c, rs.h, rs.w, Layout::Nchw);
		ch.pdp.dst = allocTensor(dev, rp.dtype, rp.n, rp.c, rp.h, rp.w, Layout::PaddedNhwc);
	} else {
		ch.sdp.dst = allocTensor(dev, rs.dtype, rs.n, rs.c, rs.h, rs.w, Layout::PaddedNchw);
	}
	placeSdpParams(dev, ch.sdp);
	programConv(dev, convGroup, ch.conv);
	programSdp(dev, sdpGroup, ch.sdp);
	if (withPdp)
		programPdp(dev, pdpGroup, ch.pdp);
	return ch;
}

void enableGroup(DeviceHarness &dev, unsigned engine, unsigned group)
{
	dev.selectGroup(engine, group);
	dev.enable(engine);
}

::testing::AssertionResult canariesUntouched(DeviceHarness &dev, const Chain &ch)
{
	for (uint64_t a : { ch.convDstCanary, ch.sdpSrcCanary, ch.sdpDstCanary, ch.pdpSrcCanary }) {
		if (!a)
			continue;
		auto r = regionUntouched(dev, a - kMargin, ch.canaryBytes + 2 * kMargin);
		if (!r)
			return r << " (a flying descriptor's ignored address)";
	}
	return ::testing::AssertionSuccess();
}

/*
 * The same work through memory, one engine at a time, each on its CONSUMER
 * group; returns the last output.
 */
Tensor runUnfused(DeviceHarness &dev, const ChainWork &w, bool withPdp)
{
	const Tensor &rc = w.refConv, &rs = w.refSdp, &rp = w.refPdp;
	ConvOp c;
	c.p = w.conv;
	c.src = placeTensor(dev, w.src);
	c.wgt = placeTensor(dev, w.wgt);
	c.dst = allocTensor(dev, rc.dtype, rc.n, rc.c, rc.h, rc.w);
	unsigned g = consumer(dev, kConv);
	programConv(dev, g, c);
	EXPECT_TRUE(succeeded(runGroup(dev, kConv, g), kConv, g));

	SdpOp s;
	s.p = w.sdp;
	s.x = c.dst;
	s.y = s.x;
	s.dst = allocTensor(dev, rs.dtype, rs.n, rs.c, rs.h, rs.w);
	placeSdpParams(dev, s);
	g = consumer(dev, kSdp);
	programSdp(dev, g, s);
	EXPECT_TRUE(succeeded(runGroup(dev, kSdp, g), kSdp, g));
	if (!withPdp)
		return load(dev, s.dst);

	PdpOp p;
	p.p = w.pdp;
	p.src = s.dst;
	p.dst = allocTensor(dev, rp.dtype, rp.n, rp.c, rp.h, rp.w);
	g = consumer(dev, kPdp);
	programPdp(dev, g, p);
	EXPECT_TRUE(succeeded(runGroup(dev, kPdp, g), kPdp, g));
	return load(dev, p.dst);
}

/* Bit-identical results: the same value in every element (NaN never occurs here). */
::testing::AssertionResult identical(const Tensor &a, const Tensor &b)
{
	if (a.shape() != b.shape() || a.i != b.i || a.f != b.f)
		return ::testing::AssertionFailure() << "fused and unfused results differ";
	return ::testing::AssertionSuccess();
}

struct WorkCase {
	const char *name;
	bool floatPath;
};

class FusionConvSdp : public ::testing::TestWithParam<WorkCase>
{
};

TEST_P(FusionConvSdp, MatchesReferenceAndUnfused)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(81 + GetParam().floatPath);
	ChainWork w = GetParam().floatPath ? floatChainWork(rng, false) : intChainWork(rng);
	Chain ch = programChain(dev, w, false);
	enableGroup(dev, kConv, 0);
	enableGroup(dev, kSdp, 0);
	ASSERT_TRUE(succeeded(waitGroup(dev, kSdp, 0), kSdp, 0));
	ASSERT_TRUE(succeeded(waitGroup(dev, kConv, 0), kConv, 0));
	Tensor fused = load(dev, ch.sdp.dst);
	EXPECT_TRUE(matches(w.refSdp, fused));
	EXPECT_TRUE(gapsUntouched(dev, ch.sdp.dst));
	EXPECT_TRUE(canariesUntouched(dev, ch));
	dev.ackInterrupts(VDLA_INT_ALL);
	EXPECT_TRUE(identical(fused, runUnfused(dev, w, false)));
}

class FusionConvSdpPdp : public ::testing::TestWithParam<WorkCase>
{
};

TEST_P(FusionConvSdpPdp, MatchesReferenceAndUnfused)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(91 + GetParam().floatPath);
	ChainWork w = GetParam().floatPath ? floatChainWork(rng, true) : intChainWork(rng);
	Chain ch = programChain(dev, w, true);
	/* The firmware's order: tail first. */
	enableGroup(dev, kPdp, 0);
	enableGroup(dev, kSdp, 0);
	enableGroup(dev, kConv, 0);
	ASSERT_TRUE(succeeded(waitGroup(dev, kPdp, 0), kPdp, 0));
	ASSERT_TRUE(succeeded(waitGroup(dev, kSdp, 0), kSdp, 0));
	ASSERT_TRUE(succeeded(waitGroup(dev, kConv, 0), kConv, 0));
	Tensor fused = load(dev, ch.pdp.dst);
	EXPECT_TRUE(matches(w.refPdp, fused));
	EXPECT_TRUE(gapsUntouched(dev, ch.pdp.dst));
	EXPECT_TRUE(canariesUntouched(dev, ch));
	dev.ackInterrupts(VDLA_INT_ALL);
	EXPECT_TRUE(identical(fused, runUnfused(dev, w, true)));
}

const WorkCase kWork[] = { { "Int8", false }, { "Fp16", true } };

auto workName = [](const ::testing::TestParamInfo<WorkCase> &info) {
	return std::string(info.param.name);
};

INSTANTIATE_TEST_SUITE_P(Fusion, FusionConvSdp, ::testing::ValuesIn(kWork), workName);
INSTANTIATE_TEST_SUITE_P(Fusion, FusionConvSdpPdp, ::testing::ValuesIn(kWork), workName);

class FusionSdpPdp : public ::testing::TestWithParam<WorkCase>
{
};

TEST_P(FusionSdpPdp, MatchesReferenceAndUnfused)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(101 + GetParam().floatPath);
	bool fp = GetParam().floatPath;
	Tensor x = fp ? randomReal(rng, VDLA_DTYPE_FP32, 2, 3, 7, 8, -4, 4)
		      : randomFull(rng, VDLA_DTYPE_INT16, 2, 3, 7, 8);
	Tensor y = fp ? randomReal(rng, VDLA_DTYPE_FP16, 2, 3, 7, 8, -4, 4)
		      : randomFull(rng, VDLA_DTYPE_INT8, 2, 3, 7, 8);
	SdpParams sp;
	sp.ew = VDLA_SDP_EW_OP_ADD;
	sp.ewMul = 100;
	sp.fEwMul = 0.5f;
	sp.round = VDLA_ROUND_HALF_UP;
	uint32_t mid = fp ? VDLA_DTYPE_FP32 : VDLA_DTYPE_INT16;
	PdpParams pp;
	pp.method = VDLA_PDP_AVG;
	pp.kw = 3, pp.kh = 2;
	pp.sx = 2, pp.sy = 2;
	pp.padL = 1;
	pp.ceil = true;
	pp.round = VDLA_ROUND_HALF_AWAY;
	Tensor refSdp = sdp(x, &y, sp, mid);
	Tensor refPdp = pdp(stored(refSdp), pp);

	SdpOp s;
	s.p = sp;
	s.flying = VDLA_SDP_CFG_DST_FLYING;
	s.x = placeTensor(dev, x, Layout::PaddedNchw);
	s.y = placeTensor(dev, y, Layout::Nhwc);
	uint64_t canary = allocCanary(dev, 4096);
	s.dst = makeDesc(canary, mid, 2, 3, 7, 8, Layout::Nchw);
	placeSdpParams(dev, s);
	PdpOp p;
	p.p = pp;
	p.flying = VDLA_PDP_CFG_SRC_FLYING;
	p.src = makeDesc(canary, mid, 2, 3, 7, 8, Layout::Nchw);
	p.dst = allocTensor(dev, mid, refPdp.n, refPdp.c, refPdp.h, refPdp.w, Layout::Nhwc);
	programSdp(dev, 0, s);
	programPdp(dev, 0, p);
	enableGroup(dev, kSdp, 0);
	enableGroup(dev, kPdp, 0);
	ASSERT_TRUE(succeeded(waitGroup(dev, kPdp, 0), kPdp, 0));
	ASSERT_TRUE(succeeded(waitGroup(dev, kSdp, 0), kSdp, 0));
	Tensor fused = load(dev, p.dst);
	EXPECT_TRUE(matches(refPdp, fused));
	EXPECT_TRUE(regionUntouched(dev, canary - kMargin, 4096 + 2 * kMargin));
	dev.ackInterrupts(VDLA_INT_ALL);

	/* Unfused through memory. */
	s.flying = 0;
	s.dst = allocTensor(dev, mid, 2, 3, 7, 8);
	programSdp(dev, 1, s);
	ASSERT_TRUE(succeeded(runGroup(dev, kSdp, 1), kSdp, 1));
	p.flying = 0;
	p.src = s.dst;
	p.dst = allocTensor(dev, mid, refPdp.n, refPdp.c, refPdp.h, refPdp.w);
	programPdp(dev, 1, p);
	ASSERT_TRUE(succeeded(runGroup(dev, kPdp, 1), kPdp, 1));
	EXPECT_TRUE(identical(fused, load(dev, p.dst)));
}

INSTANTIATE_TEST_SUITE_P(Fusion, FusionSdpPdp, ::testing::ValuesIn(kWork), workName);

/* ---- Enabling order and groups ----------------------------------------- */

std::vector<std::array<unsigned, 3>> enableOrders()
{
	std::vector<std::array<unsigned, 3>> all;
	std::array<unsigned, 3> o = { kConv, kSdp, kPdp };
	do
		all.push_back(o);
	while (std::next_permutation(o.begin(), o.end()));
	return all;
}

class FusionOrder : public ::testing::TestWithParam<std::array<unsigned, 3>>
{
};

TEST_P(FusionOrder, ChainRunsWhateverOrderMembersAreEnabledIn)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(111);
	ChainWork w = intChainWork(rng);
	Chain ch = programChain(dev, w, true);
	for (size_t i = 0; i < 3; i++) {
		enableGroup(dev, GetParam()[i], 0);
		/* Let the device look at a partial chain: nobody may start alone. */
		if (i < 2) {
			std::this_thread::sleep_for(std::chrono::milliseconds(5));
			EXPECT_EQ(dev.read(VDLA_REG_INT_STATUS), 0u)
				<< "a member ran before the chain was complete";
			EXPECT_EQ(dev.groupState(GetParam()[i], 0), uint32_t(VDLA_GROUP_PENDING));
		}
	}
	for (unsigned e : { kConv, kSdp, kPdp })
		ASSERT_TRUE(succeeded(waitGroup(dev, e, 0), e, 0));
	EXPECT_TRUE(matches(w.refPdp, load(dev, ch.pdp.dst)));
	EXPECT_TRUE(canariesUntouched(dev, ch));
}

INSTANTIATE_TEST_SUITE_P(Fusion, FusionOrder, ::testing::ValuesIn(enableOrders()),
	[](const ::testing::TestParamInfo<std::array<unsigned, 3>> &info) {
		std::string s = "Enable";
		for (unsigned e : info.param)
			s += engineName(e);
		return s;
	});

TEST(Fusion, MembersOnDifferentGroupsChainTogether)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(112);
	/* A plain SDP op first moves SDP's CONSUMER to group 1. */
	Tensor x = randomFull(rng, VDLA_DTYPE_INT8, 1, 2, 3, 3);
	SdpOp plain;
	plain.x = placeTensor(dev, x);
	plain.y = plain.x;
	plain.dst = allocTensor(dev, VDLA_DTYPE_INT8, 1, 2, 3, 3);
	programSdp(dev, 0, plain);
	ASSERT_TRUE(succeeded(runGroup(dev, kSdp, 0), kSdp, 0));
	ASSERT_EQ(consumer(dev, kSdp), 1u);
	dev.ackInterrupts(VDLA_INT_ALL);

	ChainWork w = intChainWork(rng);
	Chain ch = programChain(dev, w, true, 0, 1, 0);
	enableGroup(dev, kSdp, 1);
	enableGroup(dev, kConv, 0);
	enableGroup(dev, kPdp, 0);
	ASSERT_TRUE(succeeded(waitGroup(dev, kConv, 0), kConv, 0));
	ASSERT_TRUE(succeeded(waitGroup(dev, kSdp, 1), kSdp, 1));
	ASSERT_TRUE(succeeded(waitGroup(dev, kPdp, 0), kPdp, 0));
	EXPECT_TRUE(matches(w.refPdp, load(dev, ch.pdp.dst)));
	EXPECT_EQ(consumer(dev, kConv), 1u);
	EXPECT_EQ(consumer(dev, kSdp), 2u);
	EXPECT_EQ(consumer(dev, kPdp), 1u);
}

TEST(Fusion, ChainSendsOneMessageAndSharesItsTime)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(113);
	ChainWork w = intChainWork(rng);
	Chain ch = programChain(dev, w, true);
	dev.ackInterrupts(VDLA_INT_ALL);
	unsigned before = dev.messages();
	enableGroup(dev, kPdp, 0);
	enableGroup(dev, kSdp, 0);
	enableGroup(dev, kConv, 0);
	uint32_t all = VDLA_INT_DONE(kConv) | VDLA_INT_DONE(kSdp) | VDLA_INT_DONE(kPdp);
	ASSERT_TRUE(dev.waitInterrupts(all, std::chrono::seconds(10)));
	std::this_thread::sleep_for(std::chrono::milliseconds(20));
	EXPECT_EQ(dev.messages() - before, 1u);
	GroupStats c = dev.stats(kConv, 0), s = dev.stats(kSdp, 0), p = dev.stats(kPdp, 0);
	EXPECT_EQ(c.timeNs, s.timeNs);
	EXPECT_EQ(s.timeNs, p.timeNs);
}

TEST(Fusion, FlyingDataCountsNoBytes)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(114);
	ChainWork w = intChainWork(rng);
	Chain ch = programChain(dev, w, true);
	enableGroup(dev, kConv, 0);
	enableGroup(dev, kSdp, 0);
	enableGroup(dev, kPdp, 0);
	for (unsigned e : { kConv, kSdp, kPdp })
		ASSERT_TRUE(succeeded(waitGroup(dev, e, 0), e, 0));
	GroupStats c = dev.stats(kConv, 0), s = dev.stats(kSdp, 0), p = dev.stats(kPdp, 0);
	EXPECT_EQ(c.macs, convMacs(w.src, w.wgt, w.conv));
	EXPECT_EQ(c.bytesRead, w.src.size() + w.wgt.size());
	EXPECT_EQ(c.bytesWritten, 0u);
	EXPECT_EQ(s.macs, sdpMacs(w.refConv, w.sdp));
	EXPECT_EQ(s.bytesRead, sdpParamBytes(w.sdp, true, w.refConv.c));
	EXPECT_EQ(s.bytesWritten, 0u);
	EXPECT_EQ(p.bytesRead, 0u);
	EXPECT_EQ(p.bytesWritten, w.refPdp.size());
}

/* ---- Mismatched chains ------------------------------------------------- */

/* A mismatch must end quickly; a device that deadlocks fails in 2 s, not 10. */

TEST(Fusion, TypeMismatchAcrossALinkEndsEveryMemberWithChain)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(121);
	ChainWork w = intChainWork(rng);
	Chain ch = programChain(dev, w, false);
	/* CONV flies INT32, SDP expects FP32 (itself a valid float-path SDP). */
	ch.sdp.x = makeDesc(ch.sdpSrcCanary, VDLA_DTYPE_FP32, 1, 6, 10, 10, Layout::Nchw);
	ch.sdp.y = ch.sdp.x;
	ch.sdp.p.fScale = 1;
	programSdp(dev, 0, ch.sdp);
	enableGroup(dev, kConv, 0);
	enableGroup(dev, kSdp, 0);
	EXPECT_TRUE(failedWith(waitGroup(dev, kConv, 0), kConv, 0, VDLA_ERROR_CHAIN));
	EXPECT_TRUE(failedWith(waitGroup(dev, kSdp, 0), kSdp, 0, VDLA_ERROR_CHAIN));
	EXPECT_TRUE(gapsUntouched(dev, ch.sdp.dst));
	EXPECT_TRUE(regionUntouched(dev, ch.sdp.dst.addr, ch.sdp.dst.extent()));
	EXPECT_TRUE(canariesUntouched(dev, ch));
}

TEST(Fusion, ShapeMismatchAcrossALinkEndsEveryMemberWithChain)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(122);
	ChainWork w = intChainWork(rng);
	Chain ch = programChain(dev, w, true);
	/* PDP expects one column less than SDP sends (and is valid itself). */
	ch.pdp.src.w = 9;
	ch.pdp.dst.w = 4;
	programPdp(dev, 0, ch.pdp);
	enableGroup(dev, kPdp, 0);
	enableGroup(dev, kSdp, 0);
	enableGroup(dev, kConv, 0);
	for (unsigned e : { kConv, kSdp, kPdp })
		EXPECT_TRUE(failedWith(waitGroup(dev, e, 0), e, 0, VDLA_ERROR_CHAIN));
	EXPECT_TRUE(regionUntouched(dev, ch.pdp.dst.addr, ch.pdp.dst.extent()));
	EXPECT_TRUE(canariesUntouched(dev, ch));
}

TEST(Fusion, MemberFailingValidationFailsTheOthersWithChain)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(123);
	ChainWork w = intChainWork(rng);
	Chain ch = programChain(dev, w, true);
	ch.sdp.p.round = 5;
	programSdp(dev, 0, ch.sdp);
	enableGroup(dev, kConv, 0);
	enableGroup(dev, kSdp, 0);
	enableGroup(dev, kPdp, 0);
	EXPECT_TRUE(failedWith(waitGroup(dev, kSdp, 0), kSdp, 0, VDLA_ERROR_PARAM));
	EXPECT_TRUE(failedWith(waitGroup(dev, kConv, 0), kConv, 0, VDLA_ERROR_CHAIN));
	EXPECT_TRUE(failedWith(waitGroup(dev, kPdp, 0), kPdp, 0, VDLA_ERROR_CHAIN));
	EXPECT_TRUE(regionUntouched(dev, ch.pdp.dst.addr, ch.pdp.dst.extent()));
}

/* A flying consumer pairs with its producer's next flying operation. */
TEST(Fusion, FlyingSdpWaitsWhileConvWritesMemoryThenPairsWithTheNextFlyingConv)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(124);
	ChainWork w = intChainWork(rng);
	Chain ch = programChain(dev, w, false, 1, 0);
	ConvOp plain = ch.conv;
	plain.cfg = 0;
	plain.dst = allocTensor(dev, VDLA_DTYPE_INT32, 1, 6, 10, 10);
	programConv(dev, 0, plain);
	enableGroup(dev, kSdp, 0);
	enableGroup(dev, kConv, 0);
	EXPECT_TRUE(succeeded(waitGroup(dev, kConv, 0), kConv, 0));
	EXPECT_TRUE(matches(w.refConv, load(dev, plain.dst)));
	EXPECT_EQ(dev.groupState(kSdp, 0), uint32_t(VDLA_GROUP_PENDING));

	enableGroup(dev, kConv, 1);
	EXPECT_TRUE(succeeded(waitGroup(dev, kConv, 1), kConv, 1));
	EXPECT_TRUE(succeeded(waitGroup(dev, kSdp, 0), kSdp, 0));
	EXPECT_TRUE(matches(w.refSdp, load(dev, ch.sdp.dst)));
	EXPECT_TRUE(canariesUntouched(dev, ch));
}

TEST(Fusion, FlyingConvWaitsWhileSdpReadsMemoryThenPairsWithTheNextFlyingSdp)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(125);
	ChainWork w = intChainWork(rng);
	Chain ch = programChain(dev, w, false, 0, 1);
	SdpOp plain = ch.sdp;
	plain.flying = 0;
	plain.x = placeTensor(dev, w.refConv);
	plain.y = plain.x;
	plain.dst = allocTensor(dev, w.refSdp.dtype, 1, 6, 10, 10);
	programSdp(dev, 0, plain);
	enableGroup(dev, kConv, 0);
	enableGroup(dev, kSdp, 0);
	EXPECT_TRUE(succeeded(waitGroup(dev, kSdp, 0), kSdp, 0));
	EXPECT_TRUE(matches(w.refSdp, load(dev, plain.dst)));
	EXPECT_EQ(dev.groupState(kConv, 0), uint32_t(VDLA_GROUP_PENDING));

	enableGroup(dev, kSdp, 1);
	EXPECT_TRUE(succeeded(waitGroup(dev, kSdp, 1), kSdp, 1));
	EXPECT_TRUE(succeeded(waitGroup(dev, kConv, 0), kConv, 0));
	EXPECT_TRUE(matches(w.refSdp, load(dev, ch.sdp.dst)));
	EXPECT_TRUE(canariesUntouched(dev, ch));
}

TEST(Fusion, ChainWaitsWhilePdpReadsMemoryThenPairsWithTheNextFlyingPdp)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(127);
	ChainWork w = intChainWork(rng);
	Chain ch = programChain(dev, w, true, 0, 0, 1);
	PdpOp plain = ch.pdp;
	plain.flying = 0;
	plain.src = placeTensor(dev, stored(w.refSdp));
	plain.dst = allocTensor(dev, w.refPdp.dtype, w.refPdp.n, w.refPdp.c, w.refPdp.h,
				w.refPdp.w);
	programPdp(dev, 0, plain);
	enableGroup(dev, kConv, 0);
	enableGroup(dev, kSdp, 0);
	enableGroup(dev, kPdp, 0);
	EXPECT_TRUE(succeeded(waitGroup(dev, kPdp, 0), kPdp, 0));
	EXPECT_TRUE(matches(w.refPdp, load(dev, plain.dst)));
	EXPECT_EQ(dev.groupState(kConv, 0), uint32_t(VDLA_GROUP_PENDING));
	EXPECT_EQ(dev.groupState(kSdp, 0), uint32_t(VDLA_GROUP_PENDING));

	enableGroup(dev, kPdp, 1);
	EXPECT_TRUE(succeeded(waitGroup(dev, kPdp, 1), kPdp, 1));
	EXPECT_TRUE(succeeded(waitGroup(dev, kConv, 0), kConv, 0));
	EXPECT_TRUE(succeeded(waitGroup(dev, kSdp, 0), kSdp, 0));
	EXPECT_TRUE(matches(w.refPdp, load(dev, ch.pdp.dst)));
	EXPECT_TRUE(canariesUntouched(dev, ch));
}

TEST(Fusion, FlyingPdpWaitsWhileSdpWritesMemory)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(126);
	Tensor x = randomFull(rng, VDLA_DTYPE_INT8, 1, 2, 4, 4);
	SdpOp s;
	s.x = placeTensor(dev, x);
	s.y = s.x;
	s.dst = allocTensor(dev, VDLA_DTYPE_INT8, 1, 2, 4, 4);
	programSdp(dev, 0, s);
	PdpOp p;
	p.flying = VDLA_PDP_CFG_SRC_FLYING;
	p.src = makeDesc(s.dst.addr, VDLA_DTYPE_INT8, 1, 2, 4, 4, Layout::Nchw);
	p.dst = allocTensor(dev, VDLA_DTYPE_INT8, 1, 2, 4, 4);
	programPdp(dev, 0, p);
	enableGroup(dev, kPdp, 0);
	enableGroup(dev, kSdp, 0);
	EXPECT_TRUE(succeeded(waitGroup(dev, kSdp, 0), kSdp, 0));
	EXPECT_TRUE(matches(sdp(x, nullptr, SdpParams(), VDLA_DTYPE_INT8), load(dev, s.dst)));
	std::this_thread::sleep_for(std::chrono::milliseconds(20));
	EXPECT_EQ(dev.groupState(kPdp, 0), uint32_t(VDLA_GROUP_PENDING));
	EXPECT_TRUE(regionUntouched(dev, p.dst.addr, p.dst.extent()));

	/* A soft reset releases a member whose partner never comes. */
	dev.write(VDLA_REG_RESET, VDLA_RESET_SOFT);
	EXPECT_EQ(dev.groupState(kPdp, 0), uint32_t(VDLA_GROUP_IDLE));
	EXPECT_TRUE(dev.waitIdle());
}

} /* namespace */
