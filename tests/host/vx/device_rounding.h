/* SPDX-License-Identifier: MIT */
/*
 * The device's rounding shift, written for the host models of DLA engines
 * from docs/hw-spec.md ("Arithmetic"), independent of the runtime's code.
 */
#pragma once

/* rshift(v, s, HALF_EVEN): v / 2^s rounded to nearest, ties to even; T is
 * int64_t or __int128 (for products that need more than 64 bits). */
template <typename T> T shiftHalfEven(T value, unsigned shift)
{
	if (shift == 0)
		return value;
	const T floor = value >> shift;
	const T remainder = value - (floor << shift);
	const T half = T(1) << (shift - 1);
	if (remainder > half || (remainder == half && (floor & 1)))
		return floor + 1;
	return floor;
}
