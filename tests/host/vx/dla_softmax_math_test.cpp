/* SPDX-License-Identifier: MIT */
/*
 * The arithmetic of softmax on the DLA (umd/src/vx/targets/dla/dla_lower_softmax.h)
 * through a model of the SDP float path written from docs/hw-spec.md
 * ("SDP": FP32 bias, scale, element-wise operand, LUT), without a device:
 * the exponential's tables against e^x in double for every INT8 and INT16
 * argument and sampled FLOAT32 ones, and the reciprocal's seed and Newton
 * steps over every FP32 mantissa. These are the error terms the bound in
 * dla_lower_softmax.cpp and docs/openvx.md adds up; the worst cases are
 * printed.
 */
#include "targets/dla/dla_lower_softmax.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

namespace sm = vdla::vx::dla::softmax;

namespace {

const double kUlp = std::ldexp(1.0, -24);
/* Below this, FP32 results lose relative precision (subnormals); the sum of
 * a softmax vector is at least 1, so such terms do not matter. */
const double kFloor = std::ldexp(1.0, -125);
/* One rounding to FP32 (relative error at most u), and a little for e^x in
 * double, the tables' source. */
const double kRounding = 1 + 1e-6;

float fromBits(int32_t bits)
{
	float value;
	memcpy(&value, &bits, sizeof(value));
	return value;
}

int32_t toBits(float value)
{
	int32_t bits;
	memcpy(&bits, &value, sizeof(bits));
	return bits;
}

/* The float LUT of docs/hw-spec.md ("SDP", step 4). */
float lut(float v, float start, float step, const std::vector<float> &table)
{
	const float t = (v - start) / step;
	if (!(t > 0.0f))
		return table[0];
	if (t >= 256.0f)
		return table[256];
	const int i = int(std::floor(t));
	return table[i] + (table[i + 1] - table[i]) * (t - float(i));
}

/* The two-table exponential of a centred value held as @centred (base + x). */
float splitExp(const sm::ExpSplit &s, float centred)
{
	/* SDP: bias. */
	const float rounded = centred + s.round;
	const float grid = lut(rounded, s.gridStart, s.gridStep, s.gridTable);
	/* SDP: bias, scale -1, EW ADD with the centred value, LUT. */
	const float rest = lut((rounded + s.unround) * -1.0f + centred * 1.0f, s.restStart,
		s.restStep, s.restTable);
	/* SDP: EW MUL. */
	return grid * (rest * 1.0f);
}

TEST(DlaSoftmaxMath, SingleTableExpIsOneCorrectlyRoundedEntry)
{
	/* Every INT8 x - M at any position; INT16 at small positions, where
	 * what lies below the table is below e^-32. */
	double worst = 0;
	for (int position : { -8, -2, 0, 3, 7, 12 }) {
		const std::vector<float> table = sm::singleExp(position);
		for (int v = -255; v <= 0; v++) {
			const float e = lut(
				sm::kIntegerBase + float(v), sm::kIntegerBase - 256, 1, table);
			const double want = std::exp(std::ldexp(double(v), -position));
			ASSERT_LE(std::fabs(e - want), kRounding * kUlp * want + kFloor)
				<< "position " << position << " v " << v;
			if (want > kFloor)
				worst = std::max(worst, std::fabs(e - want) / want / kUlp);
		}
	}
	for (int position = -8; position <= sm::kSingleTablePosition; position++) {
		const std::vector<float> table = sm::singleExp(position);
		for (int v = -65535; v < -255; v++) {
			const float e = lut(
				sm::kIntegerBase + float(v), sm::kIntegerBase - 256, 1, table);
			ASSERT_LE(e, 1.3e-14) << "position " << position << " v " << v;
		}
	}
	printf("single-table e^x: worst %.3f u\n", worst);
}

TEST(DlaSoftmaxMath, Int16ExpHitsBothTablesExactly)
{
	double worst = 0;
	for (int position = sm::kSingleTablePosition + 1; position <= 20; position++) {
		const sm::ExpSplit s = sm::int16Exp(position);
		for (int v = -65535; v <= 0; v++) {
			const float e = splitExp(s, sm::kIntegerBase + float(v));
			const double want = std::exp(std::ldexp(double(v), -position));
			ASSERT_LE(std::fabs(e - want), 3 * kRounding * kUlp * want + kFloor)
				<< "position " << position << " v " << v;
			if (want > kFloor)
				worst = std::max(worst, std::fabs(e - want) / want / kUlp);
		}
	}
	printf("INT16 e^x: worst %.3f u\n", worst);
}

TEST(DlaSoftmaxMath, FloatExpWithinFourUlp)
{
	const sm::ExpSplit s = sm::floatExp();
	std::mt19937 random(7);
	std::uniform_real_distribution<float> anywhere(-40.0f, 0.0f);
	std::vector<float> values = { 0.0f, -0.0f, -32.0f, -32.0625f, -1e-30f, -100.0f };
	/* Around the rounding ties of the 1/8 grid, and everywhere. */
	for (int k = -300; k <= 0; k++) {
		const float tie = (float(k) + 0.5f) / 8;
		values.push_back(tie);
		values.push_back(std::nextafter(tie, 0.0f));
		values.push_back(std::nextafter(tie, -1.0f));
	}
	for (int i = 0; i < 4000000; i++)
		values.push_back(anywhere(random));

	double worst = 0;
	for (float v : values) {
		const float e = splitExp(s, v);
		const double want = std::exp(double(v));
		/* Below -32 A holds e^-32: too large, but 1.4e-14 of the largest term. */
		ASSERT_LE(std::fabs(e - want), 4 * kUlp * want + 1.5e-14) << "x " << v;
		if (v >= -32)
			worst = std::max(worst, std::fabs(e - want) / want / kUlp);
	}
	printf("FLOAT32 e^x on [-32, 0]: worst %.3f u\n", worst);
}

TEST(DlaSoftmaxMath, ReciprocalWithinTwoAndAHalfUlp)
{
	/* The seed's error repeats with every factor of 4 of x: [1, 4) covers
	 * every mantissa and both exponent parities. */
	double worst = 0;
	for (int32_t bits = toBits(1.0f); bits < toBits(4.0f); bits++) {
		const float x = fromBits(bits);
		/* Integer SDP: bias -magic, scale -1, INT32 out. */
		float r = fromBits(int32_t(-(int64_t(bits) - sm::kReciprocalMagic)));
		for (int step = 0; step < sm::kNewtonSteps; step++) {
			const float p = x * (r * 1.0f);
			r = (p + -2.0f) * -1.0f * (r * 1.0f);
		}
		worst = std::max(worst, std::fabs(1 - double(x) * double(r)) / kUlp);
	}
	printf("1/x: worst %.3f u\n", worst);
	EXPECT_LE(worst, 2.5);
}

} /* namespace */
