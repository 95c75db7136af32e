/* SPDX-License-Identifier: MIT */
/*
 * Test data shared by the engine and firmware suites: memory layouts of
 * tensors, deterministic random tensors and sample lookup tables.
 */
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "device_harness.h"
#include "reference.h"

namespace vdla_testdata {

using vdla_ref::Tensor;
using vdla_test::TensorDesc;

/* Byte every buffer (and the margins around it) is filled with. */
constexpr uint8_t kCanary = 0xa5;
/* Canary bytes before and after each buffer. */
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
/*
 * Integers at the ends of the type's range (its minimum and maximum and
 * their neighbours) with a few small odd ones: the values whose pair sums
 * overflow 16 bits and that halving rounds, the ways a convolution that is
 * not exact goes wrong.
 */
Tensor randomExtremes(Rng &rng, uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w);
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

/* Sample tables: a tanh-like INT16 LUT, a float LUT, a CDP (K + s)^-beta LUT. */
std::vector<int16_t> sampleIntLut(Rng &rng);
std::vector<float> sampleFloatLut(Rng &rng);
std::vector<int32_t> sampleCdpLut();

/* The work of a fused chain, as logical tensors, parameters and results. */
struct ChainWork {
	Tensor src, wgt;
	vdla_ref::ConvParams conv;
	vdla_ref::SdpParams sdp;
	vdla_ref::PdpParams pdp;
	uint32_t sdpOut; /* SDP's output type */
	Tensor refConv, refSdp, refPdp;
};

/* INT8 conv -> INT32 -> SDP (bias, scale, relu) -> INT8 -> PDP MAX 2x2. */
ChainWork intChainWork(Rng &rng);
/*
 * FP16 conv -> FP32 -> SDP (scale, bias, clip) -> FP16 -> PDP AVG 3x3 pad 1.
 * With @exact, data in {-1, -0.5, 0, 0.5, 1} keep every value up to SDP's
 * FP16 output exact, so PDP averages values the reference knows.
 */
ChainWork floatChainWork(Rng &rng, bool exact);

} /* namespace vdla_testdata */
