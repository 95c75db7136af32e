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
#include "vdla_regs.h"

namespace vdla_etest {

using vdla_ref::Tensor;
using vdla_test::DeviceHarness;
using vdla_test::GroupStats;
using vdla_test::TensorDesc;

/*
 * Guest memory for one engine test: enough for the medium shapes, and small
 * because every test zero-fills its own (most of a small test's time).
 */
constexpr uint64_t kGuestBytes = 8ull << 20;
/* Byte every allocation is filled with, to detect stray writes. */
constexpr uint8_t kCanary = 0xa5;
/* Bytes of canary before and after each tensor. */
constexpr uint64_t kMargin = 64;

/* Memory layouts the tests sweep: the spec's two packed ones and padded ones. */
enum class Layout {
	Nchw,
	Nhwc,
	/* NCHW with padding after each line, surface and batch. */
	PaddedNchw,
	/* NHWC with a gap after each pixel, line and batch. */
	PaddedNhwc,
};
const char *layoutName(Layout layout);

/* The descriptor of an (n, c, h, w) tensor of @dtype at @addr in @layout. */
TensorDesc makeDesc(uint64_t addr, uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w,
	Layout layout);
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

/* Deterministic random data. */
class Rng
{
public:
	explicit Rng(uint64_t seed) : gen_(seed) { }
	int64_t uniform(int64_t lo, int64_t hi)
	{
		return std::uniform_int_distribution<int64_t>(lo, hi)(gen_);
	}
	double real(double lo, double hi)
	{
		return std::uniform_real_distribution<double>(lo, hi)(gen_);
	}

private:
	std::mt19937_64 gen_;
};

/* Integers uniform in [lo, hi] (clamped to the type). */
Tensor randomInt(Rng &rng, uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w,
	int64_t lo, int64_t hi);
/* Integers over the whole range of the type. */
Tensor randomFull(Rng &rng, uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w);
/* Floats uniform in [lo, hi], rounded to the type. */
Tensor randomReal(Rng &rng, uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w,
	double lo, double hi);
/* Floats k / 2^fracBits with |k| <= range: exact in FP32 sums and products. */
Tensor randomDyadic(Rng &rng, uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w,
	int64_t range, int fracBits);
/* A sensible default per type: full range for integers, [-2, 2] for floats. */
Tensor randomTensor(Rng &rng, uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w);

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

void programBdma(
	DeviceHarness &dev, unsigned group, const vdla_ref::BdmaParams &p, uint32_t cfg = 0);

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

/* A typical integer SDP LUT: a smooth curve over int16 entries. */
std::vector<int16_t> sampleIntLut(Rng &rng);
std::vector<float> sampleFloatLut(Rng &rng);
/*
 * An integer CDP LUT: (1 + i/16)^-0.75 in Q16 at knot i, whatever LUT_SHIFT
 * spaces the knots by.
 */
std::vector<int32_t> sampleCdpLut();

} /* namespace vdla_etest */
