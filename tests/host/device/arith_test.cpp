/* SPDX-License-Identifier: MIT */
/*
 * The device core's arithmetic (qemu-device/core/arith.h) against
 * independent definitions: its shift-based rounding against the test
 * reference's rshift (a division), and its own fmax and fmin against the C
 * library's, whose definition (glibc 2.36) it promises to keep on every
 * host.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

extern "C" {
#include "arith.h"
}

#include "reference.h"

namespace {

const unsigned kModes[] = { VDLA_ROUND_TO_ZERO, VDLA_ROUND_FLOOR, VDLA_ROUND_HALF_UP,
			    VDLA_ROUND_HALF_AWAY, VDLA_ROUND_HALF_EVEN };

/* Values around every power of two and tie, of both signs, and random ones. */
std::vector<int64_t> interestingValues(std::mt19937_64 &rng)
{
	std::vector<int64_t> values = { 0, 1, -1, INT64_MAX, INT64_MIN, INT64_MIN + 1 };
	for (int bit = 0; bit < 63; bit++) {
		int64_t p = int64_t(1) << bit;
		for (int64_t d = -2; d <= 2; d++) {
			values.push_back(p + d);
			values.push_back(-p + d);
			values.push_back(p + (p >> 1) + d); /* x.5 ties at shift bit */
			values.push_back(-p - (p >> 1) + d);
		}
	}
	for (int i = 0; i < 2000; i++)
		values.push_back(int64_t(rng()) >> (rng() % 63));
	return values;
}

TEST(DeviceArithmetic, ShiftRoundingEqualsTheReferenceDivision)
{
	std::mt19937_64 rng(7);
	auto values = interestingValues(rng);
	for (unsigned mode : kModes) {
		for (unsigned s = 0; s < 64; s++) {
			for (int64_t v : values) {
				int64_t want = vdla_ref::sat64(vdla_ref::rshift(v, s, mode));
				ASSERT_EQ(rshift64(v, s, mode), want) << v << " >> " << s << " mode " << mode;
				ASSERT_EQ(::rshift(i128(v), s, mode), want)
					<< v << " >> " << s << " mode " << mode;
			}
		}
	}
}

TEST(DeviceArithmetic, ProductsShiftExactlyInBothWidths)
{
	std::mt19937_64 rng(8);
	auto values = interestingValues(rng);
	for (int i = 0; i < 200000; i++) {
		int64_t a = values[rng() % values.size()], b = values[rng() % values.size()];
		unsigned s = unsigned(rng() % 64), mode = kModes[rng() % 5];
		int64_t want = vdla_ref::sat64(vdla_ref::rshift(vdla_ref::i128(a) * b, s, mode));
		ASSERT_EQ(mul_rshift(a, b, s, mode), want)
			<< a << " * " << b << " >> " << s << " mode " << mode;
	}
}

float fromBits(uint32_t b)
{
	float f;
	std::memcpy(&f, &b, 4);
	return f;
}

uint32_t toBits(float f)
{
	uint32_t b;
	std::memcpy(&b, &f, 4);
	return b;
}

TEST(DeviceArithmetic, FmaxAndFminAreTheCLibrarysOnSpecialValues)
{
	/* zeros, quiet and signalling NaNs of both signs and payloads, infinities */
	const uint32_t specials[] = { 0x00000000, 0x80000000, 0x7fc00000, 0xffc00001, 0x7fa00000,
				      0xffa00001, 0x7f800001, 0x3f800000, 0xbf800000, 0x7f800000,
				      0xff800000, 0x00000001, 0x80000001, 0x7f7fffff };
	std::mt19937 rng(9);
	std::vector<uint32_t> bits(std::begin(specials), std::end(specials));
	for (int i = 0; i < 300; i++)
		bits.push_back(uint32_t(rng()));
	for (uint32_t x : bits) {
		for (uint32_t y : bits) {
			volatile float a = fromBits(x), b = fromBits(y);
			EXPECT_EQ(toBits(spec_fmaxf(a, b)), toBits(std::fmax(float(a), float(b))))
				<< std::hex << "fmax(" << x << ", " << y << ")";
			EXPECT_EQ(toBits(spec_fminf(a, b)), toBits(std::fmin(float(a), float(b))))
				<< std::hex << "fmin(" << x << ", " << y << ")";
		}
	}
}

} /* namespace */
