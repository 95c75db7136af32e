/* SPDX-License-Identifier: MIT */
/*
 * The arithmetic of softmax on the DLA (dla_lower_softmax.cpp, which says
 * how the passes fit together): the exponential's tables and the
 * reciprocal's constants, which the host tests run through the hardware's
 * rules (docs/hw-spec.md, "SDP") without a device.
 */
#pragma once

#include "targets/dla/dla_float_bits.h"
#include "targets/dla/dla_lower_lut.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vdla::vx::dla::softmax {

using dla::kLutEntries;

/* Integers reach the float path as kIntegerBase + v (dla_float_bits.h). */
using dla::kIntegerBase;
using dla::kIntegerBaseBits;

/* bits(1/x) ~ kReciprocalMagic - bits(x), within 5.1% for every normal x;
 * kNewtonSteps steps r (2 - x r) in FP32 then leave 2.5 u (u = 2^-24). */
constexpr int32_t kReciprocalMagic = 0x7ef311c3;
constexpr int kNewtonSteps = 3;

/*
 * e^x over x = k q + r (k integer, |r| <= q/2): E = A[k] * B[r], two SDP
 * LUT passes. The input holds base + x (base = kIntegerBase for converted
 * integers, 0 for FLOAT32); adding round gives kq + 1.5 * 2^23 q, that is
 * x rounded to a multiple of q (FP32 has 24 bits), on which A's table
 * lands exactly. Adding unround to that leaves kq, and base + x - kq =
 * base + r, exactly, is B's argument.
 */
struct ExpSplit {
	float round;
	float gridStart, gridStep;
	float unround;
	float restStart, restStep;
	std::vector<float> gridTable, restTable;
};

/* INT16 at fixed point @position (above kSingleTablePosition): q = 256
 * steps, r on the integers, so both tables are hit exactly; A covers all of
 * x - M in [-65536, 0], B up to e^(128 2^-position), finite. */
ExpSplit int16Exp(int position);

/* FLOAT32: q = 1/8, A over [-32, 0] (below, e^x < 1.3e-14 of the largest
 * term; A gives e^-32), B interpolated between 256 steps of 2^-11. */
ExpSplit floatExp();

/*
 * One table, one entry per x - M in [-256, 0], over kIntegerBase + (x - M)
 * from kIntegerBase - 256 in steps of 1: every INT8 x - M (>= -255) exactly,
 * and INT16 at positions up to kSingleTablePosition, where the x - M below
 * get e^(-256 2^-position) <= e^-32 (1.3e-14 of the largest term) instead of
 * less.
 */
constexpr int kSingleTablePosition = 3;
std::vector<float> singleExp(int position);

} /* namespace vdla::vx::dla::softmax */
