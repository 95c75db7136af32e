/* SPDX-License-Identifier: MIT */
/* The exact sum of two fixed-point values, rounded once (exact_sum.h). */

#include "nn/exact_sum.h"

#include <algorithm>
#include <array>
#include <limits>

namespace vdla::vx::nn {

namespace {

/*
 * A 512-bit two's-complement integer: an int64 shifted by up to 383 bits,
 * plus another, fits with room for the sign.
 */
class Wide
{
public:
	explicit Wide(int64_t value)
	{
		limbs_.fill(value < 0 ? ~uint64_t(0) : 0);
		limbs_[0] = uint64_t(value);
	}

	bool negative() const { return limbs_[kLimbs - 1] >> 63; }
	bool bit(unsigned n) const { return (limbs_[n / 64] >> (n % 64)) & 1; }

	/* Whether any of bits 0 .. n-1 is set. */
	bool anyBelow(unsigned n) const
	{
		for (unsigned i = 0; i < n / 64; i++)
			if (limbs_[i])
				return true;
		return n % 64 && (limbs_[n / 64] & ((uint64_t(1) << (n % 64)) - 1));
	}

	void shiftLeft(unsigned n)
	{
		const unsigned limbs = n / 64, bits = n % 64;
		for (unsigned i = kLimbs; i-- > 0;) {
			uint64_t value = i >= limbs ? limbs_[i - limbs] << bits : 0;
			if (bits && i > limbs)
				value |= limbs_[i - limbs - 1] >> (64 - bits);
			limbs_[i] = value;
		}
	}

	/* Arithmetic: the floor of this / 2^n. */
	void shiftRight(unsigned n)
	{
		const uint64_t fill = negative() ? ~uint64_t(0) : 0;
		const unsigned limbs = n / 64, bits = n % 64;
		for (unsigned i = 0; i < kLimbs; i++) {
			const uint64_t low = i + limbs < kLimbs ? limbs_[i + limbs] : fill;
			const uint64_t high = i + limbs + 1 < kLimbs ? limbs_[i + limbs + 1] : fill;
			limbs_[i] = bits ? (low >> bits) | (high << (64 - bits)) : low;
		}
	}

	void add(const Wide &other)
	{
		uint64_t carry = 0;
		for (unsigned i = 0; i < kLimbs; i++) {
			const uint64_t sum = limbs_[i] + other.limbs_[i];
			const uint64_t next = (sum < limbs_[i]) + (sum + carry < sum);
			limbs_[i] = sum + carry;
			carry = next;
		}
	}

	void increment() { add(Wide(1)); }

	int64_t saturated() const
	{
		const uint64_t sign = negative() ? ~uint64_t(0) : 0;
		for (unsigned i = 1; i < kLimbs; i++)
			if (limbs_[i] != sign)
				return negative() ? std::numeric_limits<int64_t>::min()
						  : std::numeric_limits<int64_t>::max();
		if ((limbs_[0] >> 63) != (sign & 1))
			return negative() ? std::numeric_limits<int64_t>::min()
					  : std::numeric_limits<int64_t>::max();
		return int64_t(limbs_[0]);
	}

private:
	static constexpr unsigned kLimbs = 8;
	std::array<uint64_t, kLimbs> limbs_;
};

} /* namespace */

int64_t exactSumAt(int64_t x, int xPosition, int64_t y, int yPosition, int position)
{
	/* Both terms at the finer of their positions: exact. */
	const int common = std::max(xPosition, yPosition);
	Wide sum(x), other(y);
	sum.shiftLeft(unsigned(common - xPosition));
	other.shiftLeft(unsigned(common - yPosition));
	sum.add(other);
	if (position >= common) {
		/* Finer still: exact again, unless beyond int64 (clamped first,
		 * so that a long shift cannot overflow the 512 bits). */
		const int64_t clamped = sum.saturated();
		const unsigned shift = unsigned(position - common);
		if (clamped == 0 || shift == 0)
			return clamped;
		if (shift >= 64)
			return clamped < 0 ? std::numeric_limits<int64_t>::min()
					   : std::numeric_limits<int64_t>::max();
		Wide scaled(clamped);
		scaled.shiftLeft(shift);
		return scaled.saturated();
	}
	/*
	 * floor(sum / 2^n), plus one above half, or at exactly half if odd.
	 * The dropped bits are the remainder in [0, 2^n): bit n-1 is its half.
	 */
	const unsigned n = unsigned(common - position);
	const bool half = sum.bit(n - 1), aboveHalf = half && sum.anyBelow(n - 1);
	sum.shiftRight(n);
	if (aboveHalf || (half && sum.bit(0)))
		sum.increment();
	return sum.saturated();
}

} /* namespace vdla::vx::nn */
