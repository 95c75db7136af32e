/* SPDX-License-Identifier: MIT */
/*
 * INT16 activations as the maximum of SDP LUT passes, checked over every
 * input (dla_lower_lut.h).
 */

#include "targets/dla/dla_lower_lut.h"

#include "nn/nn_layers.h"

#include <VX/vx_khr_nn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <tuple>

namespace vdla::vx::dla {

namespace {

constexpr int64_t kMin = -32768;
constexpr int64_t kMax = 32767;
int64_t roundShift(int64_t value, unsigned shift)
{
	return nn::roundShift(value, shift, VX_ROUND_POLICY_TO_NEAREST_EVEN);
}

/* The SDP's LUT stage (docs/hw-spec.md, SDP step 4), before conversion. */
int64_t lookUp(const LutPass &pass, int64_t v)
{
	const int64_t t = v - pass.start;
	if (t < 0)
		return pass.table[0];
	const int64_t i = t >> pass.shift;
	if (i >= int64_t(kLutEntries) - 1)
		return pass.table[kLutEntries - 1];
	const int64_t fraction = t - (i << pass.shift);
	const int64_t step = int64_t(pass.table[i + 1]) - pass.table[i];
	return pass.table[i] + roundShift(step * fraction, pass.shift);
}

/* The smallest shift whose 256 intervals span @width inputs. */
unsigned spanShift(int64_t width)
{
	unsigned shift = 0;
	while ((int64_t(256) << shift) < width)
		shift++;
	return shift;
}

/* Saturating functions (LOGISTIC, HYPERBOLIC_TAN, LINEAR): one table over
 * the inputs where the output still changes; beyond them the end entries
 * hold the saturated values. */
void oneWindow(const RawFunction &f, Int16Activation &activation)
{
	int64_t lo = kMin, hi = kMax;
	const int64_t left = f(lo), right = f(hi);
	while (lo < hi && f(lo + 1) == left)
		lo++;
	while (hi > lo && f(hi - 1) == right)
		hi--;
	activation.passes = { samplePass(f, lo, spanShift(hi - lo)) };
}

/*
 * SOFTRELU = log(1 + e^x) >= max(x, 0): one table over its bend, ending
 * where the output becomes the input (at the output's position) for good,
 * and the input itself. Below the table the first entry is 0 and above it
 * the last is the input's value there, so neither exceeds the function.
 */
bool softRelu(const RawFunction &f, int inPosition, int outPosition, Int16Activation &activation,
	std::string &why)
{
	if (outPosition - inPosition > 30 || inPosition - outPosition > 62) {
		why = "SOFTRELU input and output fixed point positions too far apart";
		return false;
	}
	activation.identity = true;
	if (outPosition >= inPosition)
		activation.identityMul = int32_t(1) << (outPosition - inPosition);
	else
		activation.identityShift = uint32_t(inPosition - outPosition);
	auto identity = [&](int64_t x) {
		return std::clamp(roundShift(x * activation.identityMul, activation.identityShift),
			kMin, kMax);
	};
	int64_t lo = kMin, hi = kMax;
	const int64_t zero = f(kMin);
	while (lo < hi && f(lo + 1) == zero)
		lo++;
	while (hi > lo && f(hi - 1) == identity(hi - 1))
		hi--;
	const unsigned shift = spanShift(hi - lo);
	activation.passes = { samplePass(f, hi - (int64_t(256) << shift), shift) };
	return true;
}

/*
 * SQRT, 0 at and below 0, concave: tables from 0 at several resolutions,
 * each below the function (a chord of a concave function, and beyond its
 * end its last value). The fewest that the exhaustive check accepts.
 */
const std::vector<std::vector<unsigned>> kSqrtShifts = {
	{ 7 },
	{ 0, 7 },
	{ 0, 3, 7 },
	{ 0, 2, 4, 7 },
	{ 0, 2, 4, 6, 7 },
};

/* The largest |DLA - CPU| over every input, from the CPU's outputs. */
int64_t worstDifference(const Int16Activation &activation, const std::vector<int64_t> &expected)
{
	int64_t worst = 0;
	for (int64_t x = kMin; x <= kMax; x++)
		worst = std::max(worst, std::abs(simulate(activation, x) - expected[x - kMin]));
	return worst;
}

} /* namespace */

LutPass samplePass(const RawFunction &f, int64_t start, unsigned shift)
{
	LutPass pass;
	pass.start = int32_t(start);
	pass.shift = shift;
	pass.table.resize(kLutEntries);
	for (size_t i = 0; i < kLutEntries; i++)
		pass.table[i] = int16_t(f(start + (int64_t(i) << shift)));
	return pass;
}

int64_t simulate(const Int16Activation &activation, int64_t x)
{
	/* Each pass is written as INT16, then the maxima (EW MAX). */
	int64_t v = kMin;
	for (const LutPass &pass : activation.passes)
		v = std::max(v, std::clamp(lookUp(pass, x), kMin, kMax));
	if (activation.identity)
		v = std::max(v, roundShift(x * activation.identityMul, activation.identityShift));
	return std::clamp(v, kMin, kMax);
}

namespace {

/* The bits of @value: an order for the cache even with NaN parameters. */
uint32_t bitsOf(float value)
{
	uint32_t bits;
	memcpy(&bits, &value, sizeof(bits));
	return bits;
}

} /* namespace */

bool Int16ActivationLayer::operator<(const Int16ActivationLayer &other) const
{
	return std::make_tuple(function, bitsOf(a), bitsOf(b), inPosition, outPosition)
		< std::make_tuple(other.function, bitsOf(other.a), bitsOf(other.b),
			other.inPosition, other.outPosition);
}

namespace {

bool plan(const Int16ActivationLayer &layer, Int16Activation &activation, std::string &why)
{
	const vx_enum function = layer.function;
	const int inPosition = layer.inPosition, outPosition = layer.outPosition;
	std::vector<int64_t> expected(kMax - kMin + 1);
	for (int64_t x = kMin; x <= kMax; x++)
		expected[x - kMin] = nn::quantize(nn::activate(function, layer.a, layer.b,
							  std::ldexp(double(x), -inPosition)),
			VX_TYPE_INT16, vx_int8(outPosition));
	const RawFunction cpu
		= [&](int64_t x) { return expected[std::clamp(x, kMin, kMax) - kMin]; };

	activation = Int16Activation();
	switch (function) {
	case VX_NN_ACTIVATION_LOGISTIC:
	case VX_NN_ACTIVATION_HYPERBOLIC_TAN:
	case VX_NN_ACTIVATION_LINEAR:
		oneWindow(cpu, activation);
		break;
	case VX_NN_ACTIVATION_SOFTRELU:
		if (!softRelu(cpu, inPosition, outPosition, activation, why))
			return false;
		break;
	case VX_NN_ACTIVATION_SQRT:
		for (const std::vector<unsigned> &shifts : kSqrtShifts) {
			activation.passes.clear();
			for (unsigned shift : shifts)
				activation.passes.push_back(samplePass(cpu, 0, shift));
			activation.worst = worstDifference(activation, expected);
			if (activation.worst <= 1)
				return true;
		}
		why = "SQRT: five LUT passes stay more than 1 LSB from the CPU";
		return false;
	default:
		why = "on INT16 tensors the DLA computes RELU and BRELU at equal positions, ABS, "
		      "SQUARE, and LOGISTIC, HYPERBOLIC_TAN, SOFTRELU, SQRT and LINEAR "
		      "through tables";
		return false;
	}
	activation.worst = worstDifference(activation, expected);
	if (activation.worst > 1) {
		why = "the LUT passes differ from the CPU by " + std::to_string(activation.worst)
			+ " LSB for some input";
		return false;
	}
	return true;
}

struct Answer {
	bool accepted;
	Int16Activation activation;
	std::string why;
};

} /* namespace */

bool int16Activation(
	const Int16ActivationLayer &layer, Int16Activation &activation, std::string &why)
{
	/* A few milliseconds per layer (far more under emulation), asked by
	 * the target choice, the check and the lowering of each verification. */
	static std::mutex lock;
	static std::map<Int16ActivationLayer, Answer> answers;
	std::lock_guard<std::mutex> guard(lock);
	auto it = answers.find(layer);
	if (it == answers.end()) {
		if (answers.size() >= 64)
			answers.clear();
		Answer answer;
		answer.accepted = plan(layer, answer.activation, answer.why);
		it = answers.emplace(layer, std::move(answer)).first;
	}
	activation = it->second.activation;
	why = it->second.why;
	return it->second.accepted;
}

} /* namespace vdla::vx::dla */
