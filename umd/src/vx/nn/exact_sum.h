/* SPDX-License-Identifier: MIT */
/*
 * The exact sum of two fixed-point values of any positions, rounded once to
 * a third position: what matrix multiply's "A B + C" needs when C's
 * position is far from A B's (a shift of up to 383 bits either way), where
 * aligning either term in 64 bits would saturate it or round it early.
 */
#pragma once

#include <cstdint>

namespace vdla::vx::nn {

/*
 * x 2^-xPosition + y 2^-yPosition, as a value at @position (times
 * 2^position), rounded to nearest with ties to even, saturated to int64.
 * @xPosition is a sum of two tensor positions (-256 to 254), @yPosition and
 * @position a tensor's (-128 to 127): no shift passes 383 bits, which the
 * 512-bit arithmetic holds with an int64 and a carry.
 */
int64_t exactSumAt(int64_t x, int xPosition, int64_t y, int yPosition, int position);

} /* namespace vdla::vx::nn */
