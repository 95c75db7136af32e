/* SPDX-License-Identifier: MIT */
/*
 * Inputs read in place (qemu-device/core/mem.c, access_map_input): a
 * tensor whose pages are one physically contiguous stretch of guest RAM is
 * read where it is, through a read-only map of the host, instead of being
 * copied. The results must be the reference's, every map must be given
 * back (also when the operation fails after taking one), and an input the
 * host will not map must be copied instead.
 */
#include <gtest/gtest.h>

#include "engine_util.h"

using namespace vdla_test;
using namespace vdla_etest;
using namespace vdla_ref;

namespace {

constexpr unsigned kSdp = VDLA_ENGINE_SDP, kConv = VDLA_ENGINE_CONV;

struct SdpCase {
	Tensor x, y, ref;
	SdpOp op;
};

SdpCase sdpCase(DeviceHarness &dev, Rng &rng)
{
	SdpCase c;
	c.x = randomFull(rng, VDLA_DTYPE_INT8, 1, 8, 32, 32);
	c.y = randomFull(rng, VDLA_DTYPE_INT16, 1, 8, 32, 32);
	c.op.p.ew = VDLA_SDP_EW_OP_ADD;
	c.op.p.ewShift = 2;
	c.op.p.round = VDLA_ROUND_HALF_EVEN;
	c.ref = sdp(c.x, &c.y, c.op.p, VDLA_DTYPE_INT16);
	c.op.x = placeTensor(dev, c.x);
	c.op.y = placeTensor(dev, c.y);
	c.op.dst = allocTensor(dev, VDLA_DTYPE_INT16, 1, 8, 32, 32);
	placeSdpParams(dev, c.op);
	return c;
}

/* Runs @c on group 0, checks its result and that no map is held; the maps it took. */
unsigned runSdpCase(DeviceHarness &dev, const SdpCase &c)
{
	unsigned before = dev.inputMaps();
	programSdp(dev, 0, c.op);
	EXPECT_TRUE(succeeded(runGroup(dev, kSdp, 0), kSdp, 0));
	EXPECT_TRUE(matches(c.ref, load(dev, c.op.dst)));
	EXPECT_EQ(dev.inputMapsHeld(), 0);
	return dev.inputMaps() - before;
}

TEST(InPlaceInputs, PackedInputsAreReadWhereTheyAreAndGivenBack)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(1);
	SdpCase c = sdpCase(dev, rng);
	EXPECT_EQ(runSdpCase(dev, c), 2u) << "X and Y read in place";
}

TEST(InPlaceInputs, AnInputTheHostWillNotMapIsCopied)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(2);
	SdpCase c = sdpCase(dev, rng);
	dev.setMapHole(c.op.x.addr, c.op.x.extent());
	EXPECT_EQ(runSdpCase(dev, c), 1u) << "only Y read in place";
}

/* X is mapped before Y faults: the failed operation must give X back. */
TEST(InPlaceInputs, AnOperationThatFaultsGivesBackWhatItMapped)
{
	DeviceHarness dev(nullptr, kGuestBytes);
	Rng rng(3);
	SdpCase c = sdpCase(dev, rng);
	dev.setDmaHole(c.op.y.addr + 4096, 4096);
	unsigned before = dev.inputMaps();
	programSdp(dev, 0, c.op);
	EXPECT_TRUE(failedWith(runGroup(dev, kSdp, 0), kSdp, 0, VDLA_ERROR_MMU_FAULT));
	EXPECT_EQ(dev.inputMaps() - before, 1u);
	EXPECT_EQ(dev.inputMapsHeld(), 0);
	dev.ackInterrupts(VDLA_INT_ALL);

	/* CONV: the source in place, the weights in the hole. */
	Tensor src = randomFull(rng, VDLA_DTYPE_INT8, 1, 4, 9, 9);
	Tensor wgt = randomFull(rng, VDLA_DTYPE_INT8, 4, 4, 3, 3);
	ConvOp op;
	op.src = placeTensor(dev, src);
	op.wgt = placeTensor(dev, wgt);
	op.dst = allocTensor(dev, VDLA_DTYPE_INT32, 1, 4, 7, 7);
	dev.setDmaHole(op.wgt.addr, op.wgt.extent());
	unsigned group = consumer(dev, kConv);
	programConv(dev, group, op);
	EXPECT_TRUE(failedWith(runGroup(dev, kConv, group), kConv, group, VDLA_ERROR_MMU_FAULT));
	EXPECT_EQ(dev.inputMapsHeld(), 0);
}

} /* namespace */
