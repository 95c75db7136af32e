/* SPDX-License-Identifier: MIT */
/*
 * INT16 activations as SDP LUT passes (umd/src/vx/targets/dla/dla_lower_lut.cpp)
 * against the CPU's formula, without a device: a model of the SDP's LUT
 * stage and EW MAX written here from docs/hw-spec.md computes what the DLA
 * outputs for every INT16 input, nn::quantize(nn::activate()) what the CPU
 * does. Every accepted plan must stay within 1 LSB; the known layers of
 * the guest suite must be accepted; the acceptance over a sweep of
 * positions is printed (it goes into docs/openvx.md).
 */
#include "device_rounding.h"
#include "targets/dla/dla_lower_lut.h"
#include "nn/nn_layers.h"

#include <VX/vx_khr_nn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

namespace dla = vdla::vx::dla;
namespace nn = vdla::vx::nn;

namespace {

int64_t saturate16(int64_t v)
{
	return std::min<int64_t>(std::max<int64_t>(v, -32768), 32767);
}

/* SDP step 4, LUT, then the conversion to INT16. */
int64_t lutStage(const dla::LutPass &pass, int64_t v)
{
	const int64_t t = v - pass.start;
	int64_t out;
	if (t < 0) {
		out = pass.table[0];
	} else if ((t >> pass.shift) >= 256) {
		out = pass.table[256];
	} else {
		const int64_t i = t >> pass.shift;
		const int64_t f = t - (i << pass.shift);
		out = pass.table[i]
			+ shiftHalfEven<int64_t>(
				(pass.table[i + 1] - pass.table[i]) * f, pass.shift);
	}
	return saturate16(out);
}

/* The units in order: one SDP per pass, then EW MAX of the running result
 * with the next pass's, then with the input moved to the output's position. */
int64_t dlaOutput(const dla::Int16Activation &plan, int64_t x)
{
	int64_t v = lutStage(plan.passes[0], x);
	for (size_t p = 1; p < plan.passes.size(); p++)
		v = saturate16(std::max(v, lutStage(plan.passes[p], x)));
	if (plan.identity)
		v = saturate16(std::max(
			v, shiftHalfEven<int64_t>(x * plan.identityMul, plan.identityShift)));
	return v;
}

struct Layer {
	vx_enum function;
	float a, b;
	int in, out;
};

std::function<int64_t(int64_t)> cpuFunction(const Layer &l)
{
	return [l](int64_t x) {
		const double real
			= std::ldexp(double(std::clamp<int64_t>(x, -32768, 32767)), -l.in);
		return nn::quantize(
			nn::activate(l.function, l.a, l.b, real), VX_TYPE_INT16, vx_int8(l.out));
	};
}

/* Plans @l; if accepted, checks every input against the model and returns
 * the share of exact outputs through @exact. */
bool planAndCheck(const Layer &l, double *exact = nullptr)
{
	dla::Int16Activation plan;
	std::string why;
	const std::function<int64_t(int64_t)> f = cpuFunction(l);
	if (!dla::int16Activation({ l.function, l.a, l.b, l.in, l.out }, plan, why))
		return false;
	int64_t worst = 0, same = 0;
	for (int64_t x = -32768; x <= 32767; x++) {
		const int64_t model = dlaOutput(plan, x);
		EXPECT_EQ(dla::simulate(plan, x), model) << "x " << x;
		worst = std::max(worst, std::abs(model - f(x)));
		same += model == f(x);
	}
	EXPECT_LE(worst, 1) << "function " << std::hex << l.function;
	EXPECT_EQ(worst, plan.worst);
	if (exact)
		*exact = double(same) / 65536;
	return true;
}

} /* namespace */

TEST(DlaLut, LutStageFollowsTheSpecification)
{
	/* Entries 0, 5, 10, ...: at shift 1 a half step is 2.5, rounded to 2. */
	dla::LutPass pass;
	pass.start = -10;
	pass.shift = 1;
	pass.table.resize(257);
	for (int i = 0; i < 257; i++)
		pass.table[i] = int16_t(5 * i);
	dla::Int16Activation plan;
	plan.passes = { pass };
	EXPECT_EQ(dla::simulate(plan, -11), 0); /* below: T[0] */
	EXPECT_EQ(dla::simulate(plan, -10), 0); /* T[0] */
	EXPECT_EQ(dla::simulate(plan, -9), 2); /* 0 + 2.5 -> 2 */
	EXPECT_EQ(dla::simulate(plan, -8), 5); /* T[1] */
	EXPECT_EQ(dla::simulate(plan, -7), 7); /* 5 + 2.5 -> 5 + 2 */
	EXPECT_EQ(dla::simulate(plan, -10 + 512), 1280); /* T[256] */
	EXPECT_EQ(dla::simulate(plan, 30000), 1280); /* beyond: T[256] */

	/* The identity joins the maximum, moved by its shift. */
	plan.identity = true;
	plan.identityShift = 2;
	EXPECT_EQ(dla::simulate(plan, 30000), 7500);
	EXPECT_EQ(dla::simulate(plan, -32768), 0);
}

/* The activations of the guest suite run on the DLA. */
TEST(DlaLut, GuestSuiteLayersAreAccepted)
{
	const Layer layers[] = {
		{ VX_NN_ACTIVATION_LOGISTIC, 1, 1, 8, 8 },
		{ VX_NN_ACTIVATION_HYPERBOLIC_TAN, 1, 1, 8, 8 },
		{ VX_NN_ACTIVATION_HYPERBOLIC_TAN, 1.5f, 0.5f, 8, 10 },
		{ VX_NN_ACTIVATION_SOFTRELU, 0, 0, 8, 8 },
		{ VX_NN_ACTIVATION_SOFTRELU, 0, 0, 8, 10 },
		{ VX_NN_ACTIVATION_SQRT, 0, 0, 8, 8 },
		{ VX_NN_ACTIVATION_SQRT, 0, 0, 8, 10 },
		{ VX_NN_ACTIVATION_LINEAR, 0.5f, 0.25f, 8, 8 },
		{ VX_NN_ACTIVATION_LINEAR, -0.75f, 3.0f, 8, 6 },
	};
	for (const Layer &l : layers) {
		SCOPED_TRACE(::testing::Message()
			<< "function " << std::hex << l.function << std::dec << " positions "
			<< l.in << "->" << l.out);
		EXPECT_TRUE(planAndCheck(l));
	}
}

/* A LINEAR layer whose output saturates inside a table interval: the chord
 * across the bend is far from the CPU's output. */
TEST(DlaLut, SaturatingLinearIsRefused)
{
	dla::Int16Activation plan;
	std::string why;
	const Layer linear = { VX_NN_ACTIVATION_LINEAR, 1.5f, 0.25f, 8, 8 };
	EXPECT_FALSE(
		dla::int16Activation({ linear.function, linear.a, linear.b, 8, 8 }, plan, why));
	EXPECT_NE(why.find("LSB"), std::string::npos) << why;
}

/* Other functions have no LUT plan here; they have their own (RELU, ...). */
TEST(DlaLut, FunctionsWithoutLutFormAreRefused)
{
	dla::Int16Activation plan;
	std::string why;
	const Layer relu = { VX_NN_ACTIVATION_RELU, 0, 0, 8, 8 };
	EXPECT_FALSE(dla::int16Activation({ relu.function, 0, 0, 8, 8 }, plan, why));
	EXPECT_FALSE(why.empty());
}

TEST(DlaLut, SweepOfPositionsStaysWithinOneLsb)
{
	const vx_enum functions[] = { VX_NN_ACTIVATION_LOGISTIC, VX_NN_ACTIVATION_HYPERBOLIC_TAN,
		VX_NN_ACTIVATION_SOFTRELU, VX_NN_ACTIVATION_SQRT, VX_NN_ACTIVATION_LINEAR };
	const char *names[] = { "LOGISTIC", "HYPERBOLIC_TAN", "SOFTRELU", "SQRT", "LINEAR" };
	for (size_t f = 0; f < 5; f++) {
		int accepted = 0, total = 0;
		double exactSum = 0;
		for (int in = 0; in <= 14; in += 2)
			for (int out = 0; out <= 14; out += 2) {
				SCOPED_TRACE(::testing::Message()
					<< names[f] << " positions " << in << "->" << out);
				double exact = 0;
				total++;
				if (planAndCheck({ functions[f], 1.25f, 0.5f, in, out }, &exact)) {
					accepted++;
					exactSum += exact;
				}
			}
		printf("%s: %d of %d position pairs on the DLA, %.1f%% of their outputs exact\n",
			names[f], accepted, total, accepted ? 100 * exactSum / accepted : 0.0);
		EXPECT_GT(accepted, 0);
	}
}
