/* SPDX-License-Identifier: MIT */
/*
 * Fixed-point local response normalisation across maps on the CDP integer
 * path (docs/hw-spec.md, "CDP"; docs/openvx.md, "Neural-network layers on
 * the DLA"). The CDP computes
 *
 *   s = sum of x^2 over the window (exact), m = T(s) (257 entries, linear
 *   interpolation between T[s >> LUT_SHIFT] and the next one),
 *   out = convert(rshift(x * m, OUT_SHIFT)),
 *
 * and the table is software's. This builds it for a layer and proves, from
 * the table's actual entries, how far the result can be from the CPU's
 * (nn_cpu.cpp); the lowering refuses layers where that bound reaches 1 LSB.
 */
#pragma once

#include <VX/vx.h>

#include <array>
#include <cstdint>
#include <string>

namespace vdla::vx::dla {

/* What the table depends on. */
struct IntegerLrnParameters {
	/* VX_TYPE_INT8 or VX_TYPE_INT16, the input's and the output's. */
	vx_enum type = VX_TYPE_INT16;
	int inputPosition = 0;
	int outputPosition = 0;
	/* Odd, 1..15. */
	vx_size size = 1;
	/* Channels of the input: windows at most this many channels wide. */
	vx_size channels = 1;
	float alpha = 0, beta = 0, bias = 1;
};

struct IntegerLrnTable {
	static constexpr size_t kEntries = 257;

	std::array<int32_t, kEntries> entries{};
	uint32_t lutShift = 0;
	uint32_t outShift = 0;
	/*
	 * The proven worst case of |DLA - CPU| before both round to the
	 * output, in output LSB; below 1, so the outputs differ by at most
	 * 1 LSB.
	 */
	double bound = 0;
};

/*
 * Builds the CDP table for @p into @table. Returns false, with the reason
 * in @why, when no table keeps every output within 1 LSB of the CPU's.
 */
bool integerLrnTable(const IntegerLrnParameters &p, IntegerLrnTable &table, std::string &why);

} /* namespace vdla::vx::dla */
