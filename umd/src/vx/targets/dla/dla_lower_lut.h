/* SPDX-License-Identifier: MIT */
/*
 * INT16 activations as LUT passes of the SDP (docs/openvx.md, "INT16
 * activations"). One 257-entry table interpolated linearly follows LOGISTIC,
 * HYPERBOLIC_TAN and LINEAR where their output changes; SOFTRELU also needs
 * the input itself beyond its bend, and SQRT, steep at 0, tables of several
 * resolutions. The DLA's output is the maximum of the passes. Every one of
 * the 65536 inputs is then simulated by the SDP's rules (docs/hw-spec.md)
 * and compared with the CPU's output: the layer runs on the DLA only if all
 * are within 1 LSB.
 */
#pragma once

#include <VX/vx.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace vdla::vx::dla {

/* The entries of an SDP lookup table (docs/hw-spec.md, SDP step 4). */
constexpr size_t kLutEntries = 257;

/* One LUT pass over raw INT16 inputs: 257 entries from start, 2^shift apart. */
struct LutPass {
	int32_t start = 0;
	uint32_t shift = 0;
	std::vector<int16_t> table;
};

/* A raw-to-raw function that clamps its input (the CPU's output for it). */
using RawFunction = std::function<int64_t(int64_t)>;
/* The 257 samples of @f from @start, 2^shift apart. */
LutPass samplePass(const RawFunction &f, int64_t start, unsigned shift);

struct Int16Activation {
	std::vector<LutPass> passes;
	/* Whether the input, moved to the output's position as
	 * rshift(x * identityMul, identityShift), joins the maximum. */
	bool identity = false;
	int32_t identityMul = 1;
	uint32_t identityShift = 0;
	/* The largest difference from the CPU over all inputs, in LSB. */
	int64_t worst = 0;
};

/* The parameters of an INT16 activation layer. */
struct Int16ActivationLayer {
	vx_enum function; /* vx_nn_activation_function_e */
	float a, b;
	int inPosition, outPosition;

	bool operator<(const Int16ActivationLayer &other) const;
};

/*
 * Builds the passes of @layer and checks them against the CPU's outputs
 * (nn::quantize of nn::activate) for every input. Returns false with @why
 * when the function has no LUT form here or some output is off by more
 * than 1. The answers are remembered: verification asks more than once.
 */
bool int16Activation(
	const Int16ActivationLayer &layer, Int16Activation &activation, std::string &why);

/* What the DLA computes for raw input @x (the SDP's rules, rounding to
 * nearest-even, outputs saturated to INT16). */
int64_t simulate(const Int16Activation &activation, int64_t x);

} /* namespace vdla::vx::dla */
