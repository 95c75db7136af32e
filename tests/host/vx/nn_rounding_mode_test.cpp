/* SPDX-License-Identifier: MIT */
/*
 * Results never depend on the caller's floating-point rounding mode: the
 * library rounds to nearest with ties to even itself (nn::roundHalfEven),
 * where std::nearbyint would follow fesetround().
 */
#include "nn_test.h"

#include <cfenv>

namespace {

constexpr int kModes[] = { FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO };

/* Runs @fn with the rounding mode @mode, then restores the caller's. */
template <typename Fn> auto withRoundingMode(int mode, Fn fn)
{
	const int previous = std::fegetround();
	std::fesetround(mode);
	auto result = fn();
	std::fesetround(previous);
	return result;
}

TEST(NnArithmetic, QuantizeRoundsTiesToEvenInEveryRoundingMode)
{
	for (int mode : kModes) {
		const auto values = withRoundingMode(mode, [] {
			return std::vector<int64_t>{ nn::quantize(2.5, VX_TYPE_INT8, 0),
				nn::quantize(3.5, VX_TYPE_INT8, 0), nn::quantize(-2.5, VX_TYPE_INT8, 0),
				nn::quantize(0.7, VX_TYPE_INT8, 0), nn::quantize(-0.7, VX_TYPE_INT8, 0) };
		});
		EXPECT_EQ(values, std::vector<int64_t>({ 2, 4, -2, 1, -1 })) << "mode " << mode;
	}
}

using RoundingMode = NnTest;

/* LINEAR x + 0.5 on INT8 1 and 2: 1.5 and 2.5 both become 2. */
TEST_F(RoundingMode, LayerResultsAreTheSameInEveryRoundingMode)
{
	for (int mode : kModes) {
		vx_tensor in = tensor(VX_TYPE_INT8, { 2 }, 0, { 1, 2 });
		vx_tensor out = tensor(VX_TYPE_INT8, { 2 });
		vx_graph own = vxCreateGraph(context);
		vx_node node = vxActivationLayer(own, in, VX_NN_ACTIVATION_LINEAR, 1.0f, 0.5f, out);
		const vx_status status = withRoundingMode(mode, [&] { return vxProcessGraph(own); });
		EXPECT_EQ(status, VX_SUCCESS);
		EXPECT_EQ(read(out), Values({ 2, 2 })) << "mode " << mode;
		vxReleaseNode(&node);
		vxReleaseGraph(&own);
	}
}

} /* namespace */
