/* SPDX-License-Identifier: MIT */
/*
 * The CDP table of fixed-point LRN and the proof of its accuracy.
 *
 * With x the raw input, s the raw sum of squares, pin and pout the fixed
 * point positions, the CPU's output before rounding is
 *
 *   x * 2^(pout - pin) * g(s),  g(s) = (bias + alpha/size * s * 2^(-2 pin))^-beta,
 *
 * rounded to nearest-even and saturated. The CDP gives
 * rshift(x * m(s), OUT_SHIFT) with m(s) ~ g(s) * 2^E, E = OUT_SHIFT + pout - pin,
 * rounded the same way (ROUND = HALF_EVEN). If the two values before
 * rounding differ by less than 1, the rounded outputs differ by at most 1
 * (round(a) - round(b) <= a - b + 1 < 2), and saturation only brings them
 * closer. So the table is accepted when, for every s and every x that can
 * come with it, |x| * 2^(pout - pin) * |m(s) 2^-E - g(s)| < 1.
 *
 * Per interval of the table, m(s) 2^-E - g(s) is the linear interpolation
 * of the entries' own rounding errors, plus the chord's excess over the
 * convex g (computed where g' meets the chord's slope), plus the
 * interpolation's rounding; |x| <= sqrt(s), as x^2 is a term of s.
 */

#include "targets/dla/dla_lower_lrn.h"
#include "nn/nn_layers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace vdla::vx::dla {

namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
/* Room for the CPU's own double rounding (relative 1e-15 of outputs up to 2^15). */
constexpr double kMargin = 1e-9;

/* g(s), with the CPU's operations (nn_cpu.cpp, compute(Normalization)). */
class Gain
{
public:
	explicit Gain(const IntegerLrnParameters &p)
		: scale_(double(p.alpha) / double(p.size)), bias_(p.bias), beta_(p.beta),
		  position_(p.inputPosition)
	{
	}

	double operator()(double s) const { return 1.0 / std::pow(base(s), beta_); }

	/*
	 * How far the chord from (lo, g(lo)) to (hi, g(hi)) lies above g at
	 * most. g is convex, so the chord is above it, furthest where g'
	 * equals the chord's slope: g'(s) = -beta a base(s)^(-beta-1), with
	 * a = alpha/size 2^(-2 pin). chord - g is flat at its maximum, so an
	 * s* off by rounding changes the excess only in the second order; the
	 * margin covers that.
	 */
	double chordExcess(double lo, double hi) const
	{
		const double a = std::ldexp(scale_, -2 * position_);
		const double gLo = (*this)(lo);
		const double slope = ((*this)(hi) - gLo) / (hi - lo);
		if (beta_ == 0 || a == 0 || !(slope < 0))
			return 0;
		const double top = std::pow(-slope / (beta_ * a), -1 / (beta_ + 1));
		const double s = std::clamp((top - bias_) / a, lo, hi);
		const double excess = gLo + slope * (s - lo) - (*this)(s);
		return std::max(excess, 0.0) * (1 + 1e-6) + 1e-15 * gLo;
	}

private:
	/* The CPU sums the squares of the real values: s * 2^(-2 pin), exact. */
	double base(double s) const { return bias_ + scale_ * std::ldexp(s, -2 * position_); }

	double scale_, bias_, beta_;
	int position_;
};

} /* namespace */

bool integerLrnTable(const IntegerLrnParameters &p, IntegerLrnTable &table, std::string &why)
{
	const bool int8 = p.type == VX_TYPE_INT8;
	/* The largest |x| (of -128 or -32768) and the output's saturation level. */
	const double maxAbs = int8 ? 128 : 32768;
	const double outputLimit = int8 ? 128 : 32768;
	const Gain g(p);

	/* The table covers every sum the window can reach, so T[256] is never
	 * used beyond its own point. */
	const uint64_t terms = std::min<uint64_t>(p.size, p.channels);
	const uint64_t maxSum = terms * uint64_t(maxAbs * maxAbs);
	unsigned lutShift = 0;
	while ((uint64_t(IntegerLrnTable::kEntries - 1) << lutShift) < maxSum)
		lutShift++;

	/* The largest entry is T[0] = g(0) 2^E, g being decreasing: the largest
	 * E that keeps it in int32 gives the finest table. x * m stays below
	 * 2^15 * 2^31, far from 64 bits. */
	const double g0 = g(0);
	if (!std::isfinite(g0) || g0 <= 0) {
		why = "bias^-beta is not a finite positive number";
		return false;
	}
	int exponent = std::ilogb(double(kInt32Max) / g0);
	exponent = std::min(exponent, 62 - p.inputPosition + p.outputPosition);
	int outShift = exponent + p.inputPosition - p.outputPosition;
	if (outShift < 0) {
		/* Outputs beyond any saturation level: entries saturate in int32
		 * and the proof below decides. */
		exponent = p.outputPosition - p.inputPosition;
		outShift = 0;
	}

	for (size_t i = 0; i < IntegerLrnTable::kEntries; i++) {
		const double value
			= vdla::vx::nn::roundHalfEven(
				std::ldexp(g(double(uint64_t(i) << lutShift)), exponent));
		table.entries[i] = int32_t(std::min(value, double(kInt32Max)));
	}
	table.lutShift = lutShift;
	table.outShift = uint32_t(outShift);

	/* The proof, interval by interval: the interpolated m(s) 2^-E - g(s) lies
	 * between the entries' own errors (a linear function), plus the chord's
	 * excess over g, plus the interpolation's rounding (half a unit). */
	const double unit = std::ldexp(1.0, -exponent);
	const double step = std::ldexp(1.0, lutShift);
	const double gainToLsb = std::ldexp(1.0, p.outputPosition - p.inputPosition);
	const double rounding = lutShift ? 0.5 * unit : 0;
	double bound = 0;
	for (size_t i = 0; i + 1 < IntegerLrnTable::kEntries; i++) {
		const double lo = double(i) * step, hi = lo + step;
		if (lo > double(maxSum))
			break;
		const double errorLo = table.entries[i] * unit - g(lo);
		const double errorHi = table.entries[i + 1] * unit - g(hi);
		const double chord = g.chordExcess(lo, hi);
		const double below = std::min(errorLo, errorHi) - rounding;
		const double above = std::max(errorLo, errorHi) + chord + rounding;
		const double gainError = std::max(std::fabs(below), std::fabs(above));

		/* x^2 is one of the terms of s. */
		double xMax = std::min(maxAbs, std::floor(std::sqrt(std::min(hi, double(maxSum)))));
		/* Larger |x| saturate on both paths: both values before rounding are
		 * beyond the output's range by more than half an LSB. */
		const double smallest = (g(hi) - gainError) * gainToLsb;
		if (smallest > 0)
			xMax = std::min(xMax, std::ceil((outputLimit + 0.5) / smallest) - 1);
		bound = std::max(bound, xMax * gainToLsb * gainError);
	}
	table.bound = bound;
	if (!(bound < 1 - kMargin)) {
		char text[160];
		snprintf(text, sizeof(text),
			"the CDP table cannot keep this fixed-point LRN within 1 LSB of the CPU "
			"(proven bound %.3g LSB)",
			bound);
		why = text;
		return false;
	}
	return true;
}

} /* namespace vdla::vx::dla */
