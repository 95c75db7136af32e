/* SPDX-License-Identifier: MIT */
/*
 * Every NN layer on the DLA against the CPU path, over parameter sweeps:
 * bit-exact on INT8 and INT16 tensors (except the interpolated INT16
 * LOGISTIC and HYPERBOLIC_TAN: 1 LSB), within float tolerance on FLOAT32.
 */
#include "vx_guest.h"

#include <cmath>
#include <sstream>

using namespace vx_guest;

namespace {

struct Types {
	vx_enum type;
	vx_int8 in, weights, out;
	double lo, hi;   /* input raw range */
	double wlo, whi; /* weights raw range */
	double tolerance;
};

const Types kTypes[] = {
	{ VX_TYPE_INT8, 2, 3, 2, -128, 127, -128, 127, 0 },
	{ VX_TYPE_INT16, 8, 8, 8, -512, 512, -256, 256, 0 },
	{ VX_TYPE_FLOAT32, 0, 0, 0, -2, 2, -1, 1, 1e-4 },
};

vx_size outSize(vx_size in, vx_size pad, vx_size kernel, vx_size dilation, vx_size stride,
	bool ceil)
{
	const vx_size span = (kernel - 1) * (dilation + 1) + 1;
	const vx_size n = in + 2 * pad - span;
	return (ceil ? (n + stride - 1) / stride : n / stride) + 1;
}

std::string typeName(vx_enum type)
{
	return type == VX_TYPE_INT8 ? "INT8" : type == VX_TYPE_INT16 ? "INT16" : "FLOAT32";
}

class NnLayer : public VxTest
{
};

TEST_F(NnLayer, ConvolutionSweepMatchesCpu)
{
	const vx_size W = 9, H = 7, Cin = 3, Cout = 4;
	int cases = 0;
	for (const Types &t : kTypes)
		for (vx_size k : { 1, 3 })
			for (vx_size stride : { 1, 2 })
				for (vx_size pad : { 0, 1 })
					for (vx_size dilation : { 0, 1 })
						for (int policy = 0; policy < 2; policy++)
							for (bool bias : { false, true })
								for (bool ceil : { false, true }) {
	if (ceil && stride == 1)
		continue;
	SCOPED_TRACE(::testing::Message() << typeName(t.type) << " k" << k << " s" << stride
					  << " p" << pad << " d" << dilation << " policy" << policy
					  << " bias" << bias << " ceil" << ceil);
	const vx_size OW = outSize(W, pad, k, dilation, stride, ceil);
	const vx_size OH = outSize(H, pad, k, dilation, stride, ceil);
	vx_tensor in = input({ { W, H, Cin }, t.type, t.in }, t.lo, t.hi);
	vx_tensor wgt = input({ { k, k, Cin, Cout }, t.type, t.weights }, t.wlo, t.whi);
	vx_tensor b = bias ? input({ { Cout }, t.type, t.out }, t.lo, t.hi) : nullptr;
	TensorSpec outSpec{ { OW, OH, Cout }, t.type, t.out };
	vx_tensor dla = output(outSpec), cpu = output(outSpec);
	vx_nn_convolution_params_t params = {};
	params.padding_x = params.padding_y = pad;
	params.overflow_policy = policy ? VX_CONVERT_POLICY_SATURATE : VX_CONVERT_POLICY_WRAP;
	params.rounding_policy =
		policy ? VX_ROUND_POLICY_TO_NEAREST_EVEN : VX_ROUND_POLICY_TO_ZERO;
	params.down_scale_size_rounding =
		ceil ? VX_NN_DS_SIZE_ROUNDING_CEILING : VX_NN_DS_SIZE_ROUNDING_FLOOR;
	params.dilation_x = params.dilation_y = dilation;
	ASSERT_TRUE(runBoth(
		[&](vx_graph g, vx_tensor out) {
			return std::vector<vx_node>{ vxConvolutionLayer(
				g, in, wgt, b, &params, sizeof(params), out) };
		},
		dla, cpu));
	ASSERT_TRUE(sameValues(dla, cpu, t.tolerance));
	cases++;
								}
	RecordProperty("cases", cases);
}

TEST_F(NnLayer, FullyConnectedSweepMatchesCpu)
{
	for (const Types &t : kTypes)
		for (bool spatial : { false, true })
			for (int policy = 0; policy < 2; policy++)
				for (bool bias : { false, true }) {
	SCOPED_TRACE(::testing::Message() << typeName(t.type) << " spatial" << spatial
					  << " policy" << policy << " bias" << bias);
	const vx_size batch = 2, outputs = 10;
	std::vector<vx_size> inDims = spatial ? std::vector<vx_size>{ 4, 3, 5, batch }
					      : std::vector<vx_size>{ 60, batch };
	vx_tensor in = input({ inDims, t.type, t.in }, t.lo, t.hi);
	vx_tensor wgt = input({ { 60, outputs }, t.type, t.weights }, t.wlo, t.whi);
	vx_tensor b = bias ? input({ { outputs }, t.type, t.out }, t.lo, t.hi) : nullptr;
	TensorSpec outSpec{ { outputs, batch }, t.type, t.out };
	vx_tensor dla = output(outSpec), cpu = output(outSpec);
	const vx_enum overflow = policy ? VX_CONVERT_POLICY_SATURATE : VX_CONVERT_POLICY_WRAP;
	const vx_enum rounding = policy ? VX_ROUND_POLICY_TO_NEAREST_EVEN : VX_ROUND_POLICY_TO_ZERO;
	ASSERT_TRUE(runBoth(
		[&](vx_graph g, vx_tensor out) {
			return std::vector<vx_node>{ vxFullyConnectedLayer(
				g, in, wgt, b, overflow, rounding, out) };
		},
		dla, cpu));
	ASSERT_TRUE(sameValues(dla, cpu, t.tolerance));
				}
}

TEST_F(NnLayer, PoolingSweepMatchesCpu)
{
	const vx_size W = 9, H = 8, C = 3;
	for (const Types &t : kTypes)
		for (vx_enum type : { VX_NN_POOLING_MAX, VX_NN_POOLING_AVG })
			for (vx_size size : { 2, 3 })
				for (vx_size stride : { 1, 2 })
					for (vx_size pad : { 0, 1 })
						for (bool ceil : { false, true }) {
	if (ceil && stride == 1)
		continue;
	SCOPED_TRACE(::testing::Message() << typeName(t.type) << " avg"
					  << (type == VX_NN_POOLING_AVG) << " size" << size << " s"
					  << stride << " p" << pad << " ceil" << ceil);
	const vx_size n = W + 2 * pad - size, m = H + 2 * pad - size;
	vx_size OW = (ceil ? (n + stride - 1) / stride : n / stride) + 1;
	vx_size OH = (ceil ? (m + stride - 1) / stride : m / stride) + 1;
	/* Ceil mode drops a last window starting beyond the padded input. */
	if ((OW - 1) * stride >= W + pad)
		OW--;
	if ((OH - 1) * stride >= H + pad)
		OH--;
	vx_tensor in = input({ { W, H, C }, t.type, t.in }, t.lo, t.hi);
	TensorSpec outSpec{ { OW, OH, C }, t.type, t.in };
	vx_tensor dla = output(outSpec), cpu = output(outSpec);
	ASSERT_TRUE(runBoth(
		[&](vx_graph g, vx_tensor out) {
			return std::vector<vx_node>{ vxPoolingLayer(g, in, type, size, size, pad, pad,
				ceil ? VX_NN_DS_SIZE_ROUNDING_CEILING : VX_NN_DS_SIZE_ROUNDING_FLOOR,
				out) };
		},
		dla, cpu));
	ASSERT_TRUE(sameValues(dla, cpu, t.tolerance ? 1e-5 : 0));
						}
}

struct ActivationCase {
	vx_enum type;
	vx_int8 in, out;
	vx_enum function;
	float a, b;
	double tolerance;
};

TEST_F(NnLayer, ActivationSweepMatchesCpu)
{
	std::vector<ActivationCase> cases;
	const vx_enum all[] = { VX_NN_ACTIVATION_LOGISTIC, VX_NN_ACTIVATION_HYPERBOLIC_TAN,
		VX_NN_ACTIVATION_RELU, VX_NN_ACTIVATION_BRELU, VX_NN_ACTIVATION_SOFTRELU,
		VX_NN_ACTIVATION_ABS, VX_NN_ACTIVATION_SQUARE, VX_NN_ACTIVATION_SQRT,
		VX_NN_ACTIVATION_LINEAR };
	/* INT8: one LUT entry per input value, exact for every function. */
	for (vx_enum f : all) {
		cases.push_back({ VX_TYPE_INT8, 4, 4, f, 1.5f, 0.75f, 0 });
		cases.push_back({ VX_TYPE_INT8, 5, 3, f, 2.0f, 0.5f, 0 });
	}
	for (vx_enum f : { VX_NN_ACTIVATION_RELU, VX_NN_ACTIVATION_BRELU, VX_NN_ACTIVATION_ABS,
		     VX_NN_ACTIVATION_SQUARE })
		cases.push_back({ VX_TYPE_INT16, 8, 8, f, 1.5f, 0.5f, 0 });
	cases.push_back({ VX_TYPE_INT16, 8, 8, VX_NN_ACTIVATION_LOGISTIC, 1, 1, 1 });
	cases.push_back({ VX_TYPE_INT16, 8, 8, VX_NN_ACTIVATION_HYPERBOLIC_TAN, 1.0f, 1.0f, 1 });
	cases.push_back({ VX_TYPE_INT16, 8, 10, VX_NN_ACTIVATION_HYPERBOLIC_TAN, 1.5f, 0.5f, 1 });
	for (vx_enum f : { VX_NN_ACTIVATION_RELU, VX_NN_ACTIVATION_BRELU, VX_NN_ACTIVATION_ABS,
		     VX_NN_ACTIVATION_SQUARE, VX_NN_ACTIVATION_LINEAR })
		cases.push_back({ VX_TYPE_FLOAT32, 0, 0, f, 1.5f, 0.25f, 1e-5 });
	cases.push_back({ VX_TYPE_FLOAT32, 0, 0, VX_NN_ACTIVATION_LOGISTIC, 1, 1, 5e-4 });
	cases.push_back({ VX_TYPE_FLOAT32, 0, 0, VX_NN_ACTIVATION_HYPERBOLIC_TAN, 1.0f, 1.0f, 5e-4 });

	for (const ActivationCase &c : cases) {
		SCOPED_TRACE(::testing::Message() << typeName(c.type) << " function 0x" << std::hex
						  << c.function << std::dec << " pos " << int(c.in)
						  << "->" << int(c.out));
		const double range = c.type == VX_TYPE_INT8 ? 128 : c.type == VX_TYPE_INT16 ? 3000 : 6;
		vx_tensor in = input({ { 16, 8, 4 }, c.type, c.in }, -range, range - 1);
		TensorSpec outSpec{ { 16, 8, 4 }, c.type, c.out };
		vx_tensor dla = output(outSpec), cpu = output(outSpec);
		ASSERT_TRUE(runBoth(
			[&](vx_graph g, vx_tensor out) {
				return std::vector<vx_node>{ vxActivationLayer(
					g, in, c.function, c.a, c.b, out) };
			},
			dla, cpu));
		ASSERT_TRUE(sameValues(dla, cpu, c.tolerance));
	}
}

TEST_F(NnLayer, NormalizationAcrossMapsMatchesCpu)
{
	for (vx_size size : { 3, 5 }) {
		SCOPED_TRACE(::testing::Message() << "size " << size);
		vx_tensor in = input({ { 6, 5, 8 }, VX_TYPE_FLOAT32, 0 }, -2, 2);
		TensorSpec outSpec{ { 6, 5, 8 }, VX_TYPE_FLOAT32, 0 };
		vx_tensor dla = output(outSpec), cpu = output(outSpec);
		ASSERT_TRUE(runBoth(
			[&](vx_graph g, vx_tensor out) {
				return std::vector<vx_node>{ vxLocalResponseNormalizationLayer(g, in,
					VX_NN_NORMALIZATION_ACROSS_MAPS, size, 0.5f, 0.75f, 2.0f, out) };
			},
			dla, cpu));
		ASSERT_TRUE(sameValues(dla, cpu, 1e-5));
	}
}

} /* namespace */
