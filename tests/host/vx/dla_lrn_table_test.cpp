/* SPDX-License-Identifier: MIT */
/*
 * The CDP table of fixed-point LRN (umd/src/vx/targets/dla/dla_lower_lrn.cpp) against
 * the CPU's formula, without a device: a model of the CDP integer path
 * written from docs/hw-spec.md ("Arithmetic", "CDP") computes each output
 * from the table, and the CPU reference (docs/openvx.md, nn::quantize) the
 * expected one, over parameter sweeps and (x, s) pairs: exhaustively for
 * the small sums, sampled for the rest. Every accepted table must stay
 * within 1 LSB and within its own proven bound; the worst error and the
 * share of exact outputs are printed (they go into docs/openvx.md).
 */
#include "device_rounding.h"
#include "targets/dla/dla_lower_lrn.h"
#include "nn/nn_layers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

namespace dla = vdla::vx::dla;
namespace nn = vdla::vx::nn;

namespace {

using int128 = __int128;

int64_t saturate64(int128 value)
{
	return int64_t(std::clamp<int128>(
		value, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()));
}

/* The CDP's m for a window summing to s: the table interpolated. */
int64_t cdpGain(const dla::IntegerLrnTable &t, int64_t s)
{
	const int64_t i = s >> t.lutShift;
	if (i >= 256)
		return t.entries[256];
	const int64_t f = s - (i << t.lutShift);
	return saturate64(t.entries[i]
		+ shiftHalfEven(int128(t.entries[i + 1] - t.entries[i]) * f, t.lutShift));
}

/* The CDP integer path for input x whose window sums to s. */
int64_t cdpOutput(const dla::IntegerLrnTable &t, vx_enum type, int64_t x, int64_t s)
{
	const int64_t out = saturate64(shiftHalfEven(int128(x) * cdpGain(t, s), t.outShift));
	const int64_t limit = type == VX_TYPE_INT8 ? 128 : 32768;
	return std::clamp<int64_t>(out, -limit, limit - 1);
}

/* nn_cpu.cpp's LRN for one element, given its raw sum of squares, in output
 * LSB before rounding. */
double cpuExact(const dla::IntegerLrnParameters &p, int64_t x, int64_t s)
{
	const double sum = std::ldexp(double(s), -2 * p.inputPosition);
	const double base = double(p.bias) + double(p.alpha) / double(p.size) * sum;
	const double real
		= std::ldexp(double(x), -p.inputPosition) / std::pow(base, double(p.beta));
	return std::ldexp(real, p.outputPosition);
}

int64_t cpuOutput(const dla::IntegerLrnParameters &p, int64_t x, int64_t s)
{
	return nn::quantize(std::ldexp(cpuExact(p, x, s), -p.outputPosition), p.type,
		vx_int8(p.outputPosition));
}

/* Whether the CDP's value before rounding is within @bound LSB of the CPU's,
 * or both saturate. */
bool withinBound(
	const dla::IntegerLrnParameters &p, const dla::IntegerLrnTable &t, int64_t x, int64_t s)
{
	const double limit = p.type == VX_TYPE_INT8 ? 128.5 : 32768.5;
	const double cpu = cpuExact(p, x, s);
	const double dla = std::ldexp(double(x) * double(cdpGain(t, s)), -int(t.outShift));
	if (std::fabs(cpu) >= limit && std::fabs(dla) >= limit && (cpu > 0) == (dla > 0))
		return true;
	return std::fabs(cpu - dla) <= t.bound + 1e-9;
}

struct Measure {
	int64_t worst = 0;
	uint64_t outputs = 0, exact = 0;
};

/* x with s in [x^2, x^2 + span] (the other terms of the window add anything
 * from 0 to span): every s up to dense above x^2, random ones near the start
 * of the table and over the whole span, and the largest. Every x for INT8,
 * a grid and the small ones for INT16. */
::testing::AssertionResult sweep(const dla::IntegerLrnParameters &p,
	const dla::IntegerLrnTable &table, Measure &measure, std::mt19937_64 &random)
{
	const int64_t lo = p.type == VX_TYPE_INT8 ? -128 : -32768, hi = -lo - 1;
	const int64_t others = int64_t(std::min(p.size, p.channels) - 1);
	const int64_t span = others * lo * lo;
	const int64_t dense = std::min<int64_t>(span, p.type == VX_TYPE_INT8 ? 512 : 256);
	const int samples = p.type == VX_TYPE_INT8 ? 64 : 16;
	const int64_t xStep = p.type == VX_TYPE_INT8 ? 1 : 257;
	/* The first intervals, where the gain bends most. */
	const int64_t near = std::min<int64_t>(span, int64_t(4) << table.lutShift);

	auto check = [&](int64_t x, int64_t s) {
		const int64_t got = cdpOutput(table, p.type, x, s);
		const int64_t want = cpuOutput(p, x, s);
		const int64_t error = std::llabs(got - want);
		measure.worst = std::max(measure.worst, error);
		measure.outputs++;
		measure.exact += error == 0;
		return error <= 1 && withinBound(p, table, x, s);
	};
	std::vector<int64_t> xs;
	for (int64_t x = lo; x <= hi; x += xStep)
		xs.push_back(x);
	for (int64_t x = -128; x <= 128 && p.type == VX_TYPE_INT16; x++)
		xs.push_back(x);
	xs.push_back(hi);
	for (int64_t x : xs) {
		std::uniform_int_distribution<int64_t> extra(0, span), nearby(0, near);
		for (int64_t k = 0; k <= dense; k++)
			if (!check(x, x * x + k))
				return ::testing::AssertionFailure()
					<< "x " << x << " s " << x * x + k << ": dla "
					<< cdpOutput(table, p.type, x, x * x + k) << " cpu "
					<< cpuOutput(p, x, x * x + k);
		for (int k = 0; k < 2 * samples && span; k++) {
			const int64_t s = x * x + (k % 2 ? extra(random) : nearby(random));
			if (!check(x, s))
				return ::testing::AssertionFailure()
					<< "x " << x << " s " << s << ": dla "
					<< cdpOutput(table, p.type, x, s) << " cpu "
					<< cpuOutput(p, x, s);
		}
		if (span && !check(x, x * x + span))
			return ::testing::AssertionFailure() << "x " << x << " at the largest sum";
	}
	return ::testing::AssertionSuccess();
}

struct Layer {
	float alpha, beta, bias;
};

/* Typical LRN settings (AlexNet, GoogLeNet, Caffe defaults) and some beyond. */
const Layer kLayers[] = {
	{ 1e-4f, 0.75f, 1.0f },
	{ 2e-5f, 0.75f, 2.0f },
	{ 1e-3f, 0.75f, 1.0f },
	{ 0.1f, 0.5f, 1.0f },
	{ 0.5f, 0.75f, 2.0f },
	{ 1.0f, 1.0f, 1.0f },
	{ 0.0f, 0.75f, 1.0f },
	{ 0.5f, 0.0f, 3.0f },
	{ 1e-4f, 2.0f, 0.5f },
	{ 2.0f, 0.25f, 0.1f },
};

TEST(DlaLrnTable, AcceptedTablesStayWithinOneLsbOfTheCpu)
{
	std::mt19937_64 random(42);
	struct Totals {
		Measure measure;
		int accepted = 0, refused = 0;
		double bound = 0;
	} totals[2];
	for (vx_enum type : { VX_TYPE_INT8, VX_TYPE_INT16 }) {
		Totals &total = totals[type == VX_TYPE_INT16];
		const std::vector<std::pair<int, int>> positions = type == VX_TYPE_INT8
			? std::vector<std::pair<int, int>>{ { 0, 0 }, { 4, 4 }, { 7, 7 }, { 5, 7 },
				  { 7, 4 }, { 2, 6 } }
			: std::vector<std::pair<int, int>>{ { 8, 8 }, { 12, 12 }, { 4, 8 },
				  { 8, 14 }, { 15, 15 }, { 10, 6 } };
		for (auto [in, out] : positions)
			for (vx_size size : { 1, 3, 5, 15 })
				for (const Layer &layer : kLayers) {
					dla::IntegerLrnParameters p;
					p.type = type;
					p.inputPosition = in;
					p.outputPosition = out;
					p.size = size;
					p.channels = 16;
					p.alpha = layer.alpha;
					p.beta = layer.beta;
					p.bias = layer.bias;
					SCOPED_TRACE(::testing::Message()
						<< (type == VX_TYPE_INT8 ? "INT8" : "INT16")
						<< " pos " << in << "->" << out << " size " << size
						<< " alpha " << layer.alpha << " beta "
						<< layer.beta << " bias " << layer.bias);
					dla::IntegerLrnTable table;
					std::string why;
					if (!dla::integerLrnTable(p, table, why)) {
						EXPECT_NE(std::string::npos, why.find("1 LSB"))
							<< why;
						total.refused++;
						continue;
					}
					total.accepted++;
					total.bound = std::max(total.bound, table.bound);
					ASSERT_LT(table.bound, 1.0);
					ASSERT_TRUE(sweep(p, table, total.measure, random));
				}
	}
	for (int t = 0; t < 2; t++) {
		const Measure &m = totals[t].measure;
		printf("%s: %d tables accepted, %d refused; worst proven bound %.3f LSB; "
		       "worst error %lld LSB; %.4f%% of %llu outputs exact\n",
			t ? "INT16" : "INT8", totals[t].accepted, totals[t].refused,
			totals[t].bound, (long long)m.worst,
			100.0 * double(m.exact) / double(m.outputs), (unsigned long long)m.outputs);
		EXPECT_GT(totals[t].accepted, 100);
		EXPECT_LE(m.worst, 1);
	}
}

TEST(DlaLrnTable, ZeroBetaOnlyMovesTheFixedPointExactly)
{
	/* beta = 0: the gain is 1 and the CDP only moves the fixed point. */
	dla::IntegerLrnParameters p;
	p.type = VX_TYPE_INT16;
	p.inputPosition = 8;
	p.outputPosition = 6;
	p.size = 5;
	p.channels = 8;
	p.alpha = 0.5f;
	p.beta = 0;
	p.bias = 1;
	dla::IntegerLrnTable table;
	std::string why;
	ASSERT_TRUE(dla::integerLrnTable(p, table, why)) << why;
	for (int64_t x = -32768; x < 32768; x += 7)
		ASSERT_EQ(cpuOutput(p, x, x * x), cdpOutput(table, p.type, x, x * x)) << x;
}

TEST(DlaLrnTable, StrongNormalizationOfLargeValuesIsRefused)
{
	/* INT8 at position 0 reaches s = 5 * 128^2, so the table's intervals
	 * are 512 wide; with alpha/size = 0.2, beta 2 and bias 0.1 the gain
	 * drops from 100 to 1e-4 over the first one, which no straight line
	 * follows within 1 LSB. */
	dla::IntegerLrnParameters p;
	p.type = VX_TYPE_INT8;
	p.inputPosition = 0;
	p.outputPosition = 0;
	p.size = 5;
	p.channels = 8;
	p.alpha = 1;
	p.beta = 2;
	p.bias = 0.1f;
	dla::IntegerLrnTable table;
	std::string why;
	EXPECT_FALSE(dla::integerLrnTable(p, table, why));
	EXPECT_NE(std::string::npos, why.find("within 1 LSB")) << why;
}

TEST(DlaLrnTable, TableCoversTheLargestSum)
{
	dla::IntegerLrnParameters p;
	p.type = VX_TYPE_INT16;
	p.inputPosition = 8;
	p.outputPosition = 8;
	p.size = 15;
	p.channels = 64;
	p.alpha = 1e-4f;
	p.beta = 0.75f;
	p.bias = 1;
	dla::IntegerLrnTable table;
	std::string why;
	ASSERT_TRUE(dla::integerLrnTable(p, table, why)) << why;
	const uint64_t largest = 15ull * 32768 * 32768;
	EXPECT_GE(uint64_t(256) << table.lutShift, largest);
	EXPECT_LT(uint64_t(256) << (table.lutShift - 1), largest);
	/* Only 3 channels: the window never holds more than 3 terms. */
	p.channels = 3;
	ASSERT_TRUE(dla::integerLrnTable(p, table, why)) << why;
	EXPECT_GE(uint64_t(256) << table.lutShift, 3ull * 32768 * 32768);
	EXPECT_LT(uint64_t(256) << (table.lutShift - 1), 3ull * 32768 * 32768);
}

} /* namespace */
