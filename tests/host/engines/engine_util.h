/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the engine tests: tensor layouts in guest memory with
 * canaries around them, deterministic random data, programming each engine
 * through its registers and waiting for an operation to end.
 */
#pragma once

#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "device_harness.h"
#include "reference.h"
#include "test_data.h"
#include "vdla_regs.h"

namespace vdla_etest {

using namespace vdla_testdata;

using vdla_ref::Tensor;
using vdla_test::DeviceHarness;
using vdla_test::GroupStats;
using vdla_test::TensorDesc;

/*
 * Guest memory for one engine test: enough for the medium shapes, and small
 * because every test zero-fills its own (most of a small test's time).
 */
constexpr uint64_t kGuestBytes = 8ull << 20;


/*
 * Allocates guest memory for a tensor in @layout with kMargin canary bytes
 * on both sides; the whole region is filled with kCanary.
 */
TensorDesc allocTensor(DeviceHarness &dev, uint32_t dtype, uint32_t n, uint32_t c, uint32_t h,
	uint32_t w, Layout layout = Layout::Nchw);
/* Same, for a logical tensor's type and shape; stores @t into it. */
TensorDesc placeTensor(DeviceHarness &dev, const Tensor &t, Layout layout = Layout::Nchw);
/* Allocates and fills @bytes of canary (plus margins); returns the start. */
uint64_t allocCanary(DeviceHarness &dev, uint64_t bytes);
/*
 * Checks that every byte of [addr - kMargin, addr + extent + kMargin) that
 * is not an element of @d still holds kCanary: the device writes only the
 * bytes of the elements.
 */
::testing::AssertionResult gapsUntouched(DeviceHarness &dev, const TensorDesc &d);
/* Checks that [addr, addr + bytes) holds nothing but kCanary. */
::testing::AssertionResult regionUntouched(DeviceHarness &dev, uint64_t addr, uint64_t bytes);



/* Writes arrays of parameters into guest memory; returns their address. */
uint64_t putInt16s(DeviceHarness &dev, const std::vector<int16_t> &v);
uint64_t putInt32s(DeviceHarness &dev, const std::vector<int32_t> &v);
uint64_t putFloats(DeviceHarness &dev, const std::vector<float> &v);

/* ---- Running operations ------------------------------------------------ */

struct OpResult {
	bool finished; /* DONE(e, g) or ERROR(e) was raised in time */
	uint32_t state; /* the group's state afterwards */
	uint32_t error; /* its STAT_ERROR */
	uint32_t intStatus; /* INT_STATUS when it finished */
};

/* Waits until any bit of @mask is pending in INT_STATUS. */
bool waitAny(DeviceHarness &dev, uint32_t mask,
	std::chrono::milliseconds timeout = std::chrono::seconds(10));
/* Enables @group of @engine (the D window must point at it) and waits for it. */
OpResult runGroup(DeviceHarness &dev, unsigned engine, unsigned group);
/* Waits for DONE(engine, group) or ERROR(engine) of a group already enabled. */
OpResult waitGroup(DeviceHarness &dev, unsigned engine, unsigned group,
	std::chrono::milliseconds timeout = std::chrono::seconds(10));
/* Reads the current CONSUMER group of @engine. */
unsigned consumer(DeviceHarness &dev, unsigned engine);

/* gtest checks of an outcome, with the STAT_ERROR in the message. */
::testing::AssertionResult succeeded(const OpResult &r, unsigned engine, unsigned group);
::testing::AssertionResult failedWith(
	const OpResult &r, unsigned engine, unsigned group, uint32_t error);
const char *errorName(uint32_t error);
/* "0x...": AssertionResult's << does not keep std::hex between values. */
std::string hex(uint64_t v);
/* Names for test names: "ToZero", ... and "Bdma", ... */
const char *roundName(unsigned mode);
const char *engineName(unsigned engine);

/* ---- Programming each engine (the D window of @group) ----------------- */

/* programBdma(dev, group, params, context, cfg) is the harness's. */
using vdla_test::programBdma;

struct ConvOp {
	TensorDesc src, wgt, dst;
	vdla_ref::ConvParams p;
	uint32_t cfg = 0;
};
/* PAD_VALUE's register encoding for an input of @dtype. */
uint32_t padValueBits(uint32_t dtype, double v);
void programConv(DeviceHarness &dev, unsigned group, const ConvOp &op);

struct SdpOp {
	TensorDesc x, dst, y;
	vdla_ref::SdpParams p;
	uint32_t flying = 0; /* VDLA_SDP_CFG_SRC_FLYING | VDLA_SDP_CFG_DST_FLYING */
	uint64_t biasAddr = 0, scaleAddr = 0, lutAddr = 0;
	bool integer = true;
};
/* Writes the per-channel arrays and the LUT of @op.p into guest memory. */
void placeSdpParams(DeviceHarness &dev, SdpOp &op);
void programSdp(DeviceHarness &dev, unsigned group, const SdpOp &op);
/* Bytes of parameters SDP reads from memory for @p (per-channel arrays, LUT). */
uint64_t sdpParamBytes(const vdla_ref::SdpParams &p, bool integer, uint32_t channels);

struct PdpOp {
	TensorDesc src, dst;
	vdla_ref::PdpParams p;
	uint32_t flying = 0; /* VDLA_PDP_CFG_SRC_FLYING */
};
void programPdp(DeviceHarness &dev, unsigned group, const PdpOp &op);

struct CdpOp {
	TensorDesc src, dst;
	vdla_ref::CdpParams p;
	uint64_t lutAddr = 0;
};
void programCdp(DeviceHarness &dev, unsigned group, const CdpOp &op);

struct RubikOp {
	TensorDesc src, dst;
	vdla_ref::RubikParams p;
};
void programRubik(DeviceHarness &dev, unsigned group, const RubikOp &op);


} /* namespace vdla_etest */
