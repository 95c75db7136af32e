/* SPDX-License-Identifier: MIT */
/*
 * Every NN layer on the DLA against the CPU path, over parameter sweeps:
 * bit-exact on INT8 and INT16 tensors (except the interpolated INT16
 * LOGISTIC, HYPERBOLIC_TAN, SOFTRELU, SQRT and LINEAR, fixed-point LRN and
 * softmax: 1 LSB), within
 * float tolerance on FLOAT32; and the configurations the DLA refuses.
 */
#include "vx_guest.h"
/* libvdla's own convolution: its kernel name and parameter scalar (no symbols). */
#include "../../../umd/src/vx/nn/nn_convolution.h"

#include <VX/vx_vdla.h>
#include <VX/vxu.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
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

struct Agreement;
struct UnsharedBiasCase;
struct LrnCase;

class NnLayer : public VxTest
{
protected:
	/* Fixed-point LRN @c on "dla" and "cpu" over @dims, within 1 LSB. */
	::testing::AssertionResult lrnWithinOneLsb(
		const LrnCase &c, const std::vector<vx_size> &dims, Agreement &agreement);
	/* Every case of @cases so, their agreement printed under @label. */
	void lrnCasesWithinOneLsb(const char *label, const std::vector<vx_size> &dims,
		const std::vector<LrnCase> &cases);
	/* One case of UnsharedBiasConvolutionMatchesCpu. */
	::testing::AssertionResult unsharedBiasMatchesCpu(const UnsharedBiasCase &c);
	/* Softmax of @in on "dla" and on "cpu", compared by softmaxAgrees(). */
	::testing::AssertionResult softmaxBoth(
		vx_tensor in, const TensorSpec &outSpec, Agreement (&integer)[2], double &floatWorst);
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

/*
 * Unshared biases, one per output element and the same for every batch:
 * the SDP's element-wise ADD. INT8 at positions 2, 3 -> 2 and INT16 Q7.8
 * scale the output and take two SDPs through an INT32 intermediate; INT8
 * at position 0 throughout and FLOAT32 take one. INT16 at full range makes
 * the 32-bit sums saturate. With WRAP, INT16's sums could overflow the
 * intermediate, so the DLA refuses it and "any" runs it on the CPU; so it
 * does when the output, at position -1, would not saturate at INT32's
 * limits (2^31 >> 17 is within INT16; its biases stay below 1000 so that
 * they fit 32 bits at the product's position 16).
 */
struct UnsharedBiasCase {
	Types t;
	vx_size stride;
	bool saturate;
	/* conv -> RELU -> 2x2 max pooling through virtual tensors, fused. */
	bool chain;
	bool refused;
	/* Bias raw values within +-biasLimit; 0: the input's range. */
	double biasLimit;
};

::testing::AssertionResult NnLayer::unsharedBiasMatchesCpu(const UnsharedBiasCase &c)
{
	const vx_size W = 7, H = 5, Cin = 3, Cout = 4, batch = 2;
	const Types &t = c.t;
	const vx_size OW = outSize(W, 1, 3, 0, c.stride, false);
	const vx_size OH = outSize(H, 1, 3, 0, c.stride, false);
	vx_tensor in = input({ { W, H, Cin, batch }, t.type, t.in }, t.lo, t.hi);
	vx_tensor wgt = input({ { 3, 3, Cin, Cout }, t.type, t.weights }, t.wlo, t.whi);
	vx_tensor b = c.biasLimit
		? input({ { OW, OH, Cout }, t.type, t.out }, -c.biasLimit, c.biasLimit)
		: input({ { OW, OH, Cout }, t.type, t.out }, t.lo, t.hi);
	vx_nn_convolution_params_t params = sameSizeConvolution(
		c.saturate ? VX_CONVERT_POLICY_SATURATE : VX_CONVERT_POLICY_WRAP);
	params.rounding_policy =
		c.saturate ? VX_ROUND_POLICY_TO_NEAREST_EVEN : VX_ROUND_POLICY_TO_ZERO;
	const std::vector<vx_size> convDims = { OW, OH, Cout, batch };
	auto build = [&](vx_graph g, vx_tensor out) {
		if (!c.chain)
			return std::vector<vx_node>{ vxConvolutionLayer(
				g, in, wgt, b, &params, sizeof(params), out) };
		vx_tensor conv = vxCreateVirtualTensor(g, 4, convDims.data(), t.type, t.out);
		vx_tensor relu = vxCreateVirtualTensor(g, 4, convDims.data(), t.type, t.out);
		std::vector<vx_node> nodes{
			vxConvolutionLayer(g, in, wgt, b, &params, sizeof(params), conv),
			vxActivationLayer(g, conv, VX_NN_ACTIVATION_RELU, 0, 0, relu),
			vxPoolingLayer(g, relu, VX_NN_POOLING_MAX, 2, 2, 0, 0,
				VX_NN_DS_SIZE_ROUNDING_FLOOR, out),
		};
		vxReleaseTensor(&conv);
		vxReleaseTensor(&relu);
		return nodes;
	};
	const TensorSpec spec{ c.chain ? std::vector<vx_size>{ OW / 2, OH / 2, Cout, batch }
				       : convDims,
		t.type, t.out };
	vx_tensor dla = output(spec), cpu = output(spec);

	if (c.refused) {
		vx_graph graph = vxCreateGraph(context_);
		std::vector<vx_node> nodes = build(graph, dla);
		::testing::AssertionResult refused = refusedOnDlaRunsOnCpu(graph, nodes[0]);
		for (vx_node &node : nodes)
			vxReleaseNode(&node);
		vxReleaseGraph(&graph);
		return refused;
	}
	::testing::AssertionResult ran = runBoth(build, dla, cpu);
	return ran ? sameValues(dla, cpu, t.tolerance) : ran;
}

TEST_F(NnLayer, UnsharedBiasConvolutionMatchesCpu)
{
	const Types samePosition = { VX_TYPE_INT8, 0, 0, 0, -128, 127, -128, 127, 0 };
	const Types fullRange = { VX_TYPE_INT16, 8, 8, 8, -32768, 32767, -32768, 32767, 0 };
	const Types coarseOutput = { VX_TYPE_INT16, 8, 8, -1, -32768, 32767, -32768, 32767, 0 };
	for (const Types &t :
		{ kTypes[0], kTypes[1], kTypes[2], samePosition, fullRange, coarseOutput })
		for (vx_size stride : { 1, 2 })
			for (bool saturate : { false, true })
				for (bool chain : { false, true }) {
					SCOPED_TRACE(::testing::Message()
						<< typeName(t.type) << " positions " << int(t.in) << ","
						<< int(t.weights) << "," << int(t.out) << " range "
						<< t.hi << " stride " << stride << " saturate "
						<< saturate << " chain " << chain);
					const bool refused = t.type == VX_TYPE_INT16
						&& (!saturate || t.out < 0);
					EXPECT_TRUE(unsharedBiasMatchesCpu(
						{ t, stride, saturate, chain, refused,
							t.out < 0 ? 1000.0 : 0.0 }));
				}
}

/* The shapes of a fully connected layer: input, weights, output. */
struct FullyConnectedShape {
	const char *name;
	std::vector<vx_size> in, weights, out;
};

const FullyConnectedShape kFullyConnectedShapes[] = {
	{ "[IFM, batch]", { 60, 2 }, { 60, 10 }, { 10, 2 } },
	{ "[W, H, C, batch]", { 4, 3, 5, 2 }, { 60, 10 }, { 10, 2 } },
	{ "[IFM, b0, b1]", { 60, 2, 3 }, { 60, 10 }, { 10, 2, 3 } },
	{ "4-D weights", { 4, 3, 5, 2 }, { 4, 3, 5, 10 }, { 10, 2 } },
};

TEST_F(NnLayer, FullyConnectedSweepMatchesCpu)
{
	for (const Types &t : kTypes)
		for (const FullyConnectedShape &shape : kFullyConnectedShapes)
			for (int policy = 0; policy < 2; policy++)
				for (bool bias : { false, true }) {
	SCOPED_TRACE(::testing::Message() << typeName(t.type) << " " << shape.name
					  << " policy" << policy << " bias" << bias);
	const vx_size outputs = shape.out[0];
	vx_tensor in = input({ shape.in, t.type, t.in }, t.lo, t.hi);
	vx_tensor wgt = input({ shape.weights, t.type, t.weights }, t.wlo, t.whi);
	vx_tensor b = bias ? input({ { outputs }, t.type, t.out }, t.lo, t.hi) : nullptr;
	TensorSpec outSpec{ shape.out, t.type, t.out };
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
	/* Inputs within +-range; 0: the type's default below. */
	double range = 0;
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
	/* Several LUT passes and their maximum (dla_lower_lut.h). */
	cases.push_back({ VX_TYPE_INT16, 8, 8, VX_NN_ACTIVATION_SOFTRELU, 0, 0, 1 });
	cases.push_back({ VX_TYPE_INT16, 8, 10, VX_NN_ACTIVATION_SOFTRELU, 0, 0, 1 });
	cases.push_back({ VX_TYPE_INT16, 8, 8, VX_NN_ACTIVATION_SQRT, 0, 0, 1 });
	cases.push_back({ VX_TYPE_INT16, 8, 10, VX_NN_ACTIVATION_SQRT, 0, 0, 1 });
	/* LINEAR: b 2^pin / a an integer, so bias and scale, bit-exact (the
	 * first two saturate at full range); otherwise a table. */
	cases.push_back({ VX_TYPE_INT16, 8, 8, VX_NN_ACTIVATION_LINEAR, 1.5f, 0, 0, 32767 });
	cases.push_back({ VX_TYPE_INT16, 8, 10, VX_NN_ACTIVATION_LINEAR, -0.75f, 3.0f, 0, 32767 });
	cases.push_back({ VX_TYPE_INT16, 8, 8, VX_NN_ACTIVATION_LINEAR, 0.5f, 0.25f, 0 });
	cases.push_back({ VX_TYPE_INT16, 8, 6, VX_NN_ACTIVATION_LINEAR, 0.3f, 0.1f, 1 });
	for (vx_enum f : { VX_NN_ACTIVATION_RELU, VX_NN_ACTIVATION_BRELU, VX_NN_ACTIVATION_ABS,
		     VX_NN_ACTIVATION_SQUARE, VX_NN_ACTIVATION_LINEAR })
		cases.push_back({ VX_TYPE_FLOAT32, 0, 0, f, 1.5f, 0.25f, 1e-5 });
	cases.push_back({ VX_TYPE_FLOAT32, 0, 0, VX_NN_ACTIVATION_LOGISTIC, 1, 1, 5e-4 });
	cases.push_back({ VX_TYPE_FLOAT32, 0, 0, VX_NN_ACTIVATION_HYPERBOLIC_TAN, 1.0f, 1.0f, 5e-4 });
	/* Beyond its table's +-12 too, where the input itself is the maximum. */
	cases.push_back({ VX_TYPE_FLOAT32, 0, 0, VX_NN_ACTIVATION_SOFTRELU, 0, 0, 5e-4, 40 });
	/* 1/sqrt from the bits and three Newton steps: relative 1.2e-7. */
	cases.push_back({ VX_TYPE_FLOAT32, 0, 0, VX_NN_ACTIVATION_SQRT, 0, 0, 1e-5, 40 });

	for (const ActivationCase &c : cases) {
		SCOPED_TRACE(::testing::Message() << typeName(c.type) << " function 0x" << std::hex
						  << c.function << std::dec << " pos " << int(c.in)
						  << "->" << int(c.out));
		const double range = c.range ? c.range
			: c.type == VX_TYPE_INT8 ? 128
			: c.type == VX_TYPE_INT16 ? 3000
						  : 6;
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

/* INT16 LINEAR at a = 1.5 saturates inside a table interval, where the
 * chord is far from the CPU: the exhaustive check keeps it on the CPU. */
TEST_F(NnLayer, Int16ActivationBeyondOneLsbStaysOnCpu)
{
	vx_tensor in = input({ { 16, 8, 4 }, VX_TYPE_INT16, 8 }, -32768, 32767);
	vx_tensor out = output({ { 16, 8, 4 }, VX_TYPE_INT16, 8 });
	vx_graph graph = vxCreateGraph(context_);
	vx_node linear = vxActivationLayer(graph, in, VX_NN_ACTIVATION_LINEAR, 1.5f, 0.25f, out);
	EXPECT_TRUE(refusedOnDlaRunsOnCpu(graph, linear));
	vxReleaseNode(&linear);
	vxReleaseGraph(&graph);
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

/* Raw values whose magnitudes spread evenly over the type's bits (log-uniform),
 * so that sums of squares cover the small and the large end of the CDP table. */
std::vector<double> spreadValues(std::mt19937 &random, size_t count, vx_enum type)
{
	const double bits = type == VX_TYPE_INT8 ? 7 : 15;
	const double limit = std::ldexp(1.0, int(bits));
	std::uniform_real_distribution<double> sign(-1, 1), exponent(0, bits);
	std::vector<double> values(count);
	for (double &v : values)
		v = std::clamp(
			std::round(sign(random) * std::exp2(exponent(random))), -limit, limit - 1);
	return values;
}

/* How the DLA's integer outputs compare with the CPU's. */
struct Agreement {
	double worst = 0;
	size_t exact = 0, total = 0;

	void add(vx_tensor dla, vx_tensor cpu)
	{
		std::vector<double> x = readValues(dla), y = readValues(cpu);
		for (size_t i = 0; i < x.size() && i < y.size(); i++) {
			worst = std::max(worst, std::fabs(x[i] - y[i]));
			exact += x[i] == y[i];
		}
		total += x.size();
	}
};

struct LrnParameters {
	float alpha, beta, bias;
};

struct LrnCase {
	vx_enum type;
	vx_int8 in, out;
	LrnParameters layer;
	vx_size size;
	vx_enum kind = VX_NN_NORMALIZATION_ACROSS_MAPS;
};

::testing::AssertionResult NnLayer::lrnWithinOneLsb(
	const LrnCase &c, const std::vector<vx_size> &dims, Agreement &agreement)
{
	const LrnParameters &l = c.layer;
	std::ostringstream name;
	name << (c.kind == VX_NN_NORMALIZATION_SAME_MAP ? "SAME_MAP " : "") << typeName(c.type)
	     << " pos " << int(c.in) << "->" << int(c.out) << " size "
	     << c.size << " alpha " << l.alpha << " beta " << l.beta << " bias " << l.bias;
	vx_size count = 1;
	for (vx_size d : dims)
		count *= d;
	std::vector<double> values = spreadValues(random_, count, c.type);
	/* FLOAT32: the same spread scaled into [-2, 2]. */
	if (c.type == VX_TYPE_FLOAT32)
		for (double &v : values)
			v = std::ldexp(v, -14);
	vx_tensor input = inputFrom({ dims, c.type, c.in }, values);
	TensorSpec outSpec{ dims, c.type, c.out };
	vx_tensor dla = output(outSpec), cpu = output(outSpec);
	::testing::AssertionResult ran = runBoth(
		[&](vx_graph g, vx_tensor o) {
			return std::vector<vx_node>{ vxLocalResponseNormalizationLayer(
				g, input, c.kind, c.size, l.alpha, l.beta, l.bias, o) };
		},
		dla, cpu);
	if (!ran)
		return ran << " (" << name.str() << ")";
	/* FP32 for FLOAT32: relative (beta (size^2 + 3) + 12) 2^-24 of |x| <= 2. */
	::testing::AssertionResult same
		= sameValues(dla, cpu, c.type == VX_TYPE_FLOAT32 ? 5e-5 : 1);
	if (!same)
		return same << " (" << name.str() << ")";
	agreement.add(dla, cpu);
	return same;
}

void NnLayer::lrnCasesWithinOneLsb(
	const char *label, const std::vector<vx_size> &dims, const std::vector<LrnCase> &cases)
{
	Agreement agreement;
	for (const LrnCase &c : cases)
		ASSERT_TRUE(lrnWithinOneLsb(c, dims, agreement));
	printf("%s: worst %g, %zu of %zu outputs equal\n", label, agreement.worst, agreement.exact,
		agreement.total);
}

/*
 * Fixed-point LRN on the CDP integer path: every configuration here is
 * inside the range the lowering proves within 1 LSB (dla_lower_lrn.cpp), so
 * target "dla" must verify, and the outputs must be within 1 LSB.
 */
TEST_F(NnLayer, FixedPointNormalizationWithinOneLsbOfCpu)
{
	const std::vector<LrnParameters> common
		= { { 1e-4f, 0.75f, 1.0f }, { 1e-3f, 0.75f, 2.0f } };
	std::vector<LrnParameters> all = common;
	all.insert(all.end(),
		{ { 0.05f, 0.5f, 1.0f }, { 1.0f, 0.75f, 2.0f }, { 0.01f, 2.0f, 0.5f },
			{ 0.2f, 0.25f, 0.5f } });
	struct Sweep {
		vx_enum type;
		std::vector<std::pair<vx_int8, vx_int8>> positions;
		std::vector<LrnParameters> layers;
	};
	const Sweep sweeps[] = {
		{ VX_TYPE_INT8, { { 7, 7 }, { 5, 5 }, { 4, 6 }, { 6, 3 } }, all },
		{ VX_TYPE_INT16, { { 8, 8 } }, { { 1e-4f, 0.75f, 1.0f } } },
		{ VX_TYPE_INT16, { { 11, 11 }, { 12, 14 }, { 10, 12 } }, common },
		{ VX_TYPE_INT16, { { 14, 10 }, { 15, 15 } }, all },
	};
	std::vector<LrnCase> cases;
	for (const Sweep &sweep : sweeps)
		for (auto [in, out] : sweep.positions)
			for (const LrnParameters &layer : sweep.layers)
				for (vx_size size : { 1, 3, 5, 9, 15 })
					cases.push_back({ sweep.type, in, out, layer, size });

	Agreement agreement[2];
	for (const LrnCase &c : cases)
		ASSERT_TRUE(lrnWithinOneLsb(c, { 5, 3, 16 }, agreement[c.type == VX_TYPE_INT16]));
	for (int t = 0; t < 2; t++)
		printf("fixed-point LRN %s: worst %g LSB, %zu of %zu outputs exact\n",
			t ? "INT16" : "INT8", agreement[t].worst, agreement[t].exact,
			agreement[t].total);
}

/*
 * Fixed-point LRN that no CDP table computes within 1 LSB (the bound grows
 * with alpha/bias times the square of the largest input) goes through the
 * CDP's float path: still on "dla", still within 1 LSB. Q7.8 at alpha 0.5
 * and bias 2: over the table's first interval the gain falls from 0.59 to
 * 0.05, which its straight line follows only within ~1900 LSB.
 */
TEST_F(NnLayer, FixedPointNormalizationBeyondTheTablesGoesThroughFloat)
{
	lrnCasesWithinOneLsb("fixed-point LRN through float", { 4, 4, 16 }, {
		{ VX_TYPE_INT16, 8, 8, { 0.5f, 0.75f, 2.0f }, 5 },
		{ VX_TYPE_INT16, 8, 8, { 1e-3f, 0.75f, 1.0f }, 5 },
		{ VX_TYPE_INT16, 8, 10, { 1.0f, 0.75f, 1.0f }, 9 },
		{ VX_TYPE_INT8, 0, 0, { 1e-2f, 0.75f, 1.0f }, 5 },
		{ VX_TYPE_INT8, 2, 6, { 1.0f, 1.5f, 0.5f }, 3 },
	});
}

/*
 * SAME_MAP LRN (a size x size window within the channel): the square, a
 * PDP average, 1/sqrt by Newton's method, the CDP at size 1 and two
 * products (dla_lower_lrn_float.cpp), in FP32 for every type.
 */
TEST_F(NnLayer, SameMapNormalizationMatchesCpu)
{
	const auto sameMap = VX_NN_NORMALIZATION_SAME_MAP;
	lrnCasesWithinOneLsb("SAME_MAP LRN (FLOAT32: difference)", { 9, 7, 3 }, {
		{ VX_TYPE_FLOAT32, 0, 0, { 1e-4f, 0.75f, 1.0f }, 5, sameMap },
		{ VX_TYPE_FLOAT32, 0, 0, { 0.5f, 0.75f, 2.0f }, 3, sameMap },
		{ VX_TYPE_FLOAT32, 0, 0, { 1.0f, 0.5f, 0.5f }, 15, sameMap },
		{ VX_TYPE_INT16, 8, 8, { 1e-3f, 0.75f, 1.0f }, 5, sameMap },
		{ VX_TYPE_INT16, 8, 10, { 0.5f, 1.5f, 2.0f }, 3, sameMap },
		{ VX_TYPE_INT8, 4, 4, { 1.0f, 0.75f, 1.0f }, 7, sameMap },
		{ VX_TYPE_INT8, 0, 3, { 1e-2f, 0.75f, 2.0f }, 1, sameMap },
	});
}

/* Beta 100 at size 5: the table cannot follow the gain, and the FP32
 * path's error bound, (7 beta + 2) 2^-24 of 32768 = 1.37 LSB, exceeds
 * 1 LSB: the CPU computes it. */
TEST_F(NnLayer, FixedPointNormalizationBeyondBothPathsStaysOnCpu)
{
	const std::vector<vx_size> dims = { 4, 4, 8 };
	vx_tensor input = inputFrom(
		{ dims, VX_TYPE_INT16, 8 }, spreadValues(random_, 4 * 4 * 8, VX_TYPE_INT16));
	TensorSpec outSpec{ dims, VX_TYPE_INT16, 8 };
	vx_tensor any = output(outSpec);
	vx_graph graph = vxCreateGraph(context_);
	vx_node lrn = vxLocalResponseNormalizationLayer(
		graph, input, VX_NN_NORMALIZATION_ACROSS_MAPS, 5, 0.5f, 100.0f, 1.0f, any);
	EXPECT_TRUE(refusedOnDlaRunsOnCpu(graph, lrn));
	vxReleaseNode(&lrn);
	vxReleaseGraph(&graph);
}

/* Which softmax vector element @index (memory order) belongs to: the axis is
 * dims[0] for 1-2 dimensions, dims[2] for 3-4 (docs/openvx.md). */
size_t softmaxVector(const std::vector<vx_size> &dims, size_t index)
{
	if (dims.size() <= 2)
		return index / dims[0];
	const size_t plane = dims[0] * dims[1];
	return index % plane + index / (plane * dims[2]) * plane;
}

struct SoftmaxCase {
	std::vector<vx_size> dims;
	vx_enum type;
	vx_int8 in, out;
	double lo, hi;
};

/* Integer outputs within 1 LSB; FLOAT32 within 1e-4 of the largest output of
 * the same softmax vector. Records the agreement in @integer or @floatWorst. */
::testing::AssertionResult softmaxAgrees(const std::vector<vx_size> &dims, vx_enum type,
	vx_tensor dla, vx_tensor cpu, Agreement (&integer)[2], double &floatWorst)
{
	if (type != VX_TYPE_FLOAT32) {
		integer[type == VX_TYPE_INT16].add(dla, cpu);
		return sameValues(dla, cpu, 1);
	}
	const std::vector<double> x = readValues(dla), y = readValues(cpu);
	std::vector<double> largest(x.size(), 0);
	for (size_t i = 0; i < y.size(); i++)
		largest[softmaxVector(dims, i)] = std::max(largest[softmaxVector(dims, i)], y[i]);
	for (size_t i = 0; i < x.size(); i++) {
		const double error = std::fabs(x[i] - y[i]) / largest[softmaxVector(dims, i)];
		floatWorst = std::max(floatWorst, error);
		if (!(error <= 1e-4))
			return ::testing::AssertionFailure()
				<< "element " << i << ": dla " << x[i] << " cpu " << y[i];
	}
	return ::testing::AssertionSuccess();
}

/*
 * Softmax composed of PDP, SDP and LUT passes (dla_lower_softmax.cpp):
 * integer outputs within 1 LSB of the CPU, FLOAT32 within 1e-4 of the
 * largest output of the same softmax vector; shapes from one channel to
 * 4100 (four PDP passes), all ranks, inputs far from zero.
 */
::testing::AssertionResult NnLayer::softmaxBoth(
	vx_tensor in, const TensorSpec &outSpec, Agreement (&integer)[2], double &floatWorst)
{
	vx_tensor dla = output(outSpec), cpu = output(outSpec);
	::testing::AssertionResult ran = runBoth(
		[&](vx_graph g, vx_tensor o) { return std::vector<vx_node>{ vxSoftmaxLayer(g, in, o) }; },
		dla, cpu);
	if (!ran)
		return ran;
	return softmaxAgrees(outSpec.dims, outSpec.type, dla, cpu, integer, floatWorst);
}

TEST_F(NnLayer, SoftmaxSweepMatchesCpu)
{
	const std::vector<std::vector<vx_size>> shapes
		= { { 10 }, { 1 }, { 17 }, { 300 }, { 10, 3 }, { 1000, 2 }, { 4, 3, 10 },
			  { 2, 2, 33 }, { 5, 1, 1 }, { 3, 2, 20, 2 }, { 1, 1, 4100 } };
	std::vector<SoftmaxCase> cases;
	for (const auto &dims : shapes) {
		cases.push_back({ dims, VX_TYPE_INT8, 4, 7, -128, 127 });
		cases.push_back({ dims, VX_TYPE_INT8, 0, 6, -128, 127 });
		cases.push_back({ dims, VX_TYPE_INT8, -2, 7, -128, 127 });
		cases.push_back({ dims, VX_TYPE_INT16, 15, 15, -32768, 32767 });
		cases.push_back({ dims, VX_TYPE_INT16, 8, 14, -32768, 32767 });
		cases.push_back({ dims, VX_TYPE_INT16, 8, 15, -1500, 1500 });
		cases.push_back({ dims, VX_TYPE_INT16, 12, 14, -30000, 20000 });
		cases.push_back({ dims, VX_TYPE_INT16, 2, 10, -300, 300 });
		cases.push_back({ dims, VX_TYPE_INT16, 0, 12, -32768, 32767 });
		cases.push_back({ dims, VX_TYPE_INT16, -3, 8, -40, 40 });
		cases.push_back({ dims, VX_TYPE_FLOAT32, 0, 0, -10, 10 });
		cases.push_back({ dims, VX_TYPE_FLOAT32, 0, 0, -60, 60 });
		cases.push_back({ dims, VX_TYPE_FLOAT32, 0, 0, 1000, 1008 });
	}
	Agreement agreement[2];
	double floatWorst = 0;
	for (const SoftmaxCase &c : cases) {
		SCOPED_TRACE(::testing::Message()
			<< typeName(c.type) << " pos " << int(c.in) << "->" << int(c.out)
			<< " range " << c.lo << ".." << c.hi << " dims "
			<< ::testing::PrintToString(c.dims));
		vx_tensor in = input({ c.dims, c.type, c.in }, c.lo, c.hi);
		ASSERT_TRUE(softmaxBoth(in, { c.dims, c.type, c.out }, agreement, floatWorst));
	}
	for (int t = 0; t < 2; t++)
		printf("softmax %s: worst %g LSB, %zu of %zu outputs exact\n", t ? "INT16" : "INT8",
			agreement[t].worst, agreement[t].exact, agreement[t].total);
	printf("softmax FLOAT32: worst error %.3g of the vector's largest output\n", floatWorst);
}

TEST_F(NnLayer, SoftmaxOfEqualAndDominantInputsMatchesCpu)
{
	/* All inputs equal (every output 1/n), and one input per vector at the
	 * top of the range with the others at the bottom (one output near 1,
	 * the others underflowing). */
	struct Case {
		std::vector<vx_size> dims;
		vx_enum type;
		vx_int8 in, out;
		double lo, hi;
		bool dominant;
	};
	const SoftmaxCase types[] = { { {}, VX_TYPE_INT8, 3, 7, -128, 127 },
		{ {}, VX_TYPE_INT16, 8, 15, -32768, 32767 },
		{ {}, VX_TYPE_INT16, 12, 14, -512, 511 }, { {}, VX_TYPE_FLOAT32, 0, 0, -50, 50 } };
	std::vector<Case> cases;
	for (const std::vector<vx_size> &dims : { std::vector<vx_size>{ 16 },
		     std::vector<vx_size>{ 64, 2 }, std::vector<vx_size>{ 2, 2, 4096 } })
		for (const SoftmaxCase &t : types)
			for (bool dominant : { false, true })
				cases.push_back(
					{ dims, t.type, t.in, t.out, t.lo, t.hi, dominant });

	Agreement agreement[2];
	double floatWorst = 0;
	for (const Case &c : cases) {
		SCOPED_TRACE(::testing::Message() << typeName(c.type) << " dominant " << c.dominant
						  << " dims " << ::testing::PrintToString(c.dims));
		size_t count = 1;
		for (vx_size d : c.dims)
			count *= d;
		const size_t plane = c.dims.size() <= 2 ? 1 : c.dims[0] * c.dims[1];
		const size_t length = c.dims.size() <= 2 ? c.dims[0] : c.dims[2];
		std::vector<double> raw(count, c.dominant ? c.lo : 37);
		/* The dominant element's place along the axis varies by vector. */
		for (size_t i = 0; c.dominant && i < count; i++) {
			const size_t vector = softmaxVector(c.dims, i);
			const size_t along = c.dims.size() <= 2 ? i % length : i / plane % length;
			if (along == (vector * 7 + 3) % length)
				raw[i] = c.hi;
		}
		vx_tensor in = inputFrom({ c.dims, c.type, c.in }, raw);
		ASSERT_TRUE(softmaxBoth(in, { c.dims, c.type, c.out }, agreement, floatWorst));
	}
	for (int t = 0; t < 2; t++)
		printf("softmax %s, equal and dominant inputs: worst %g LSB, %zu of %zu outputs "
		       "exact\n",
			t ? "INT16" : "INT8", agreement[t].worst, agreement[t].exact,
			agreement[t].total);
	printf("softmax FLOAT32, equal and dominant inputs: worst error %.3g of the largest "
	       "output\n",
		floatWorst);
}

/* The DLA multiplies signed integers: UINT8 layers run on the CPU, exactly. */
TEST_F(NnLayer, Uint8ConvolutionStaysOnCpu)
{
	vx_tensor in = input({ { 5, 4, 3 }, VX_TYPE_UINT8, 0 }, 0, 255);
	vx_tensor wgt = input({ { 3, 3, 3, 2 }, VX_TYPE_UINT8, 0 }, 0, 3);
	TensorSpec outSpec{ { 3, 2, 2 }, VX_TYPE_UINT8, 0 };
	vx_tensor out = output(outSpec);
	vx_graph graph = vxCreateGraph(context_);
	const vx_nn_convolution_params_t params = { 0, 0, VX_CONVERT_POLICY_WRAP,
		VX_ROUND_POLICY_TO_ZERO, VX_NN_DS_SIZE_ROUNDING_FLOOR, 0, 0 };
	vx_node conv = vxConvolutionLayer(graph, in, wgt, nullptr, &params, sizeof(params), out);
	EXPECT_TRUE(refusedOnDlaRunsOnCpu(graph, conv));
	vxReleaseNode(&conv);
	vxReleaseGraph(&graph);
}

/* A kernel without a DLA implementation refuses "dla" at once and runs on the CPU. */
::testing::AssertionResult cpuOnlyKernel(vx_graph graph, vx_node node)
{
	if (vx_status status = vxSetNodeTarget(node, VX_TARGET_STRING, "dla");
		status != VX_ERROR_NOT_SUPPORTED)
		return ::testing::AssertionFailure() << "setting \"dla\" gave " << status;
	return runsOnCpu(graph, node);
}

struct DeconvolutionCase {
	const char *name;
	vx_enum type;
	vx_int8 position;
	/* [W, H, C, (batch)] */
	std::vector<vx_size> in;
	vx_size kernel, pad, a, upscale, outputs;
	bool bias;
	double tolerance;
	/* The vertical upscale when it differs (0: the same). */
	vx_size upscaleY = 0;
};

/*
 * Deconvolution on the DLA: one convolution per output phase
 * (upscale x upscale of them, docs/openvx.md), against the CPU: bit for bit
 * in integers, within the float bound in FLOAT32; upscales 1 to 3, kernels
 * wider and narrower than twice the upscale, padding, output padding (a),
 * biases.
 */
TEST_F(NnLayer, DeconvolutionMatchesCpu)
{
	for (const DeconvolutionCase &c : {
		     DeconvolutionCase{ "INT8 k3 s2", VX_TYPE_INT8, 0, { 4, 3, 2 }, 3, 0, 0, 2, 2,
			     false, 0 },
		     DeconvolutionCase{ "Q7.8 k4 s2 pad 1, bias", VX_TYPE_INT16, 8, { 5, 4, 3 }, 4, 1,
			     0, 2, 4, true, 0 },
		     DeconvolutionCase{ "INT8 k3 s3 pad 1, a 1, bias", VX_TYPE_INT8, 0, { 4, 3, 2 }, 3,
			     1, 1, 3, 3, true, 0 },
		     DeconvolutionCase{ "INT8 k5 s2 pad 2", VX_TYPE_INT8, 0, { 6, 5, 3 }, 5, 2, 0, 2,
			     2, false, 0 },
		     DeconvolutionCase{ "INT8 k3 s1 pad 1", VX_TYPE_INT8, 0, { 4, 3, 2 }, 3, 1, 0, 1,
			     2, true, 0 },
		     DeconvolutionCase{ "FLOAT32 k2 s2, bias", VX_TYPE_FLOAT32, 0, { 4, 3, 2 }, 2, 0, 0,
			     2, 3, true, 1e-5 },
		     DeconvolutionCase{ "INT8 k4 s2 across, s3 down, batch 2", VX_TYPE_INT8, 0,
			     { 5, 4, 2, 2 }, 4, 0, 0, 2, 3, true, 0, 3 },
	     }) {
		SCOPED_TRACE(c.name);
		const vx_size inputs = c.in[2];
		const double range = c.type == VX_TYPE_FLOAT32 ? 1.0 : c.type == VX_TYPE_INT8 ? 8 : 300;
		vx_tensor in = input({ c.in, c.type, c.position }, -range, range);
		vx_tensor weights = input({ { c.kernel, c.kernel, inputs, c.outputs }, c.type,
			c.position }, -range / 2, range / 2);
		vx_tensor bias = c.bias ? input({ { c.outputs }, c.type, c.position }, -range, range)
					: nullptr;
		const vx_size upscaleY = c.upscaleY ? c.upscaleY : c.upscale;
		const vx_size width = (c.in[0] - 1) * c.upscale + c.kernel - 2 * c.pad + c.a;
		const vx_size height = (c.in[1] - 1) * upscaleY + c.kernel - 2 * c.pad + c.a;
		TensorSpec outSpec = { { width, height, c.outputs }, c.type, c.position };
		if (c.in.size() > 3)
			outSpec.dims.push_back(c.in[3]);
		vx_tensor dla = output(outSpec), cpu = output(outSpec);
		const vx_nn_deconvolution_params_t params = { c.pad, c.pad,
			VX_CONVERT_POLICY_SATURATE, VX_ROUND_POLICY_TO_NEAREST_EVEN, c.a, c.a };
		ASSERT_TRUE(runBoth([&](vx_graph g, vx_tensor out) {
			return std::vector<vx_node>{ vxDeconvolutionLayer(
				g, in, weights, bias, &params, sizeof(params), out) };
		}, dla, cpu));
		EXPECT_TRUE(sameValues(dla, cpu, c.tolerance));
	}
}

/*
 * A deconvolution of upscale 3 x 3 (nine phases) reading what a DLA layer
 * of the same task wrote: nine units wait for one producer, more than the
 * eight links an operation has; the engine order covers them.
 */
TEST_F(NnLayer, DeconvolutionAfterADlaLayerMatchesCpu)
{
	vx_tensor in = input({ { 4, 3, 2 }, VX_TYPE_INT8, 0 }, -8, 8);
	vx_tensor weights = input({ { 3, 3, 2, 2 }, VX_TYPE_INT8, 0 }, -3, 3);
	const TensorSpec outSpec = { { 12, 9, 2 }, VX_TYPE_INT8, 0 };
	vx_tensor dla = output(outSpec), cpu = output(outSpec);
	const vx_nn_deconvolution_params_t params = { 0, 0, VX_CONVERT_POLICY_SATURATE,
		VX_ROUND_POLICY_TO_NEAREST_EVEN, 0, 0 };
	ASSERT_TRUE(runBoth([&](vx_graph g, vx_tensor out) {
		const vx_size dims[] = { 4, 3, 2 };
		vx_tensor relu = vxCreateVirtualTensor(g, 3, dims, VX_TYPE_INT8, 0);
		std::vector<vx_node> nodes = {
			vxActivationLayer(g, in, VX_NN_ACTIVATION_RELU, 0, 0, relu),
			vxDeconvolutionLayer(g, relu, weights, nullptr, &params, sizeof(params), out),
		};
		vxReleaseTensor(&relu);
		return nodes;
	}, dla, cpu));
	EXPECT_TRUE(sameValues(dla, cpu));
}

/*
 * The DLA copies a deconvolution's weights into its task: weights that a
 * node of the graph computes at each run keep the node on the CPU, and
 * weights whose handle was swapped out fail the run, not the process.
 */
TEST_F(NnLayer, DeconvolutionWeightsTheTaskCannotCopyStayOffTheDla)
{
	vx_tensor in = input({ { 4, 3, 2 }, VX_TYPE_INT8, 0 }, -8, 8);
	const TensorSpec weightSpec = { { 3, 3, 2, 2 }, VX_TYPE_INT8, 0 };
	vx_tensor a = input(weightSpec, -2, 2), b = input(weightSpec, -1, 1);
	const TensorSpec outSpec = { { 9, 7, 2 }, VX_TYPE_INT8, 0 };
	const vx_nn_deconvolution_params_t params = { 0, 0, VX_CONVERT_POLICY_SATURATE,
		VX_ROUND_POLICY_TO_NEAREST_EVEN, 0, 0 };

	vx_tensor out = output(outSpec);
	vx_graph graph = vxCreateGraph(context_);
	vx_tensor sum = vxCreateVirtualTensor(graph, 4, weightSpec.dims.data(), VX_TYPE_INT8, 0);
	vx_node add = vxTensorAddNode(graph, a, b, VX_CONVERT_POLICY_SATURATE, sum);
	vx_node deconv = vxDeconvolutionLayer(graph, in, sum, nullptr, &params, sizeof(params), out);
	ASSERT_EQ(VX_SUCCESS, vxSetNodeTarget(deconv, VX_TARGET_STRING, "dla"));
	EXPECT_EQ(VX_ERROR_NOT_SUPPORTED, vxVerifyGraph(graph)) << "computed weights on the DLA";
	ASSERT_EQ(VX_SUCCESS, vxSetNodeTarget(deconv, VX_TARGET_STRING, "any"));
	EXPECT_TRUE(runsOnCpu(graph, deconv));
	vxReleaseNode(&add);
	vxReleaseNode(&deconv);
	vxReleaseTensor(&sum);
	vxReleaseGraph(&graph);

	std::vector<int8_t> storage(3 * 3 * 2 * 2, 1);
	const vx_size strides[] = { 1, 3, 9, 18 };
	vx_tensor handle = vxCreateTensorFromHandle(context_, 4, weightSpec.dims.data(), VX_TYPE_INT8,
		0, strides, storage.data(), VX_MEMORY_TYPE_HOST);
	ASSERT_EQ(VX_SUCCESS, vxGetStatus(reinterpret_cast<vx_reference>(handle)));
	graph = vxCreateGraph(context_);
	deconv = vxDeconvolutionLayer(graph, in, handle, nullptr, &params, sizeof(params), out);
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));
	void *previous = nullptr;
	ASSERT_EQ(VX_SUCCESS, vxSwapTensorHandle(handle, nullptr, &previous));
	EXPECT_NE(VX_SUCCESS, vxProcessGraph(graph)) << "weights without memory";
	vxReleaseNode(&deconv);
	vxReleaseGraph(&graph);
	vxReleaseTensor(&handle);
}

/*
 * The same for libvdla's own convolution without multipliers (its INT32
 * sums, ConvInteger's), created by its kernel name as any application
 * may: the folded bias is computed from the weights (an input zero point
 * of 3), so weights a node computes keep it off the DLA.
 */
TEST_F(NnLayer, ConvolutionSumsWhoseWeightsTheGraphComputesStayOffTheDla)
{
	vx_tensor in = input({ { 4, 3, 2 }, VX_TYPE_INT8, 0 }, -8, 8);
	const TensorSpec weightSpec = { { 1, 1, 2, 2 }, VX_TYPE_INT8, 0 };
	vx_tensor a = input(weightSpec, -2, 2), b = input(weightSpec, -1, 1);
	const std::vector<vx_size> outDims = { 4, 3, 2 };
	vx_tensor out = vxCreateTensor(context_, 3, outDims.data(), VX_TYPE_INT32, 0);
	vx_graph graph = vxCreateGraph(context_);
	vx_tensor sum = vxCreateVirtualTensor(graph, 4, weightSpec.dims.data(), VX_TYPE_INT8, 0);
	vx_node add = vxTensorAddNode(graph, a, b, VX_CONVERT_POLICY_SATURATE, sum);
	vx_kernel kernel = vxGetKernelByName(context_, vdla::vx::nn::kGeneralConvolutionName);
	ASSERT_EQ(VX_SUCCESS, vxGetStatus(reinterpret_cast<vx_reference>(kernel)));
	vx_node conv = vxCreateGenericNode(graph, kernel);
	vdla::vx::nn::ConvolutionParams params = {};
	params.strideX = params.strideY = params.dilationX = params.dilationY = params.groups = 1;
	params.inputZero = 3;
	params.relu = vx_false_e;
	vx_scalar scalar = vxCreateScalarWithSize(
		context_, vdla::vx::nn::kTypeConvolutionParams, &params, sizeof(params));
	ASSERT_EQ(VX_SUCCESS, vxSetParameterByIndex(conv, 0, reinterpret_cast<vx_reference>(in)));
	ASSERT_EQ(VX_SUCCESS, vxSetParameterByIndex(conv, 1, reinterpret_cast<vx_reference>(sum)));
	ASSERT_EQ(VX_SUCCESS,
		vxSetParameterByIndex(conv, 5, reinterpret_cast<vx_reference>(scalar)));
	ASSERT_EQ(VX_SUCCESS, vxSetParameterByIndex(conv, 6, reinterpret_cast<vx_reference>(out)));
	ASSERT_EQ(VX_SUCCESS, vxSetNodeTarget(conv, VX_TARGET_STRING, "dla"));
	EXPECT_EQ(VX_ERROR_NOT_SUPPORTED, vxVerifyGraph(graph)) << "computed weights on the DLA";
	ASSERT_EQ(VX_SUCCESS, vxSetNodeTarget(conv, VX_TARGET_STRING, "any"));
	EXPECT_TRUE(runsOnCpu(graph, conv));
	vxReleaseScalar(&scalar);
	vxReleaseKernel(&kernel);
	vxReleaseNode(&add);
	vxReleaseNode(&conv);
	vxReleaseTensor(&sum);
	vxReleaseTensor(&out);
	vxReleaseGraph(&graph);
}

/* ROI pooling has no DLA lowering. */
TEST_F(NnLayer, RoiPoolingStaysOnCpu)
{
	vx_tensor in = input({ { 4, 3, 2 }, VX_TYPE_INT8, 0 }, -8, 8);
	vx_tensor rois = inputFrom({ { 4, 1 }, VX_TYPE_INT8, 0 }, { 0, 0, 3, 2 });
	vx_tensor roiOut = output({ { 2, 2, 2, 1 }, VX_TYPE_INT8, 0 });
	vx_graph graph = vxCreateGraph(context_);
	const vx_nn_roi_pool_params_t roiParams = { VX_NN_POOLING_MAX };
	vx_node roi = vxROIPoolingLayer(graph, in, rois, &roiParams, sizeof(roiParams), roiOut);
	EXPECT_TRUE(cpuOnlyKernel(graph, roi));
	vxReleaseNode(&roi);
	vxReleaseGraph(&graph);
}

/* The immediate target applies to vxu calls: tensor add has no DLA implementation. */
TEST_F(NnLayer, ImmediateTargetAppliesToVxuCalls)
{
	vx_tensor a = input({ { 8 }, VX_TYPE_INT16, 0 }, -100, 100);
	vx_tensor out = output({ { 8 }, VX_TYPE_INT16, 0 });
	ASSERT_EQ(VX_SUCCESS, vxSetImmediateModeTarget(context_, VX_TARGET_STRING, "dla"));
	EXPECT_EQ(VX_ERROR_NOT_SUPPORTED, vxuTensorAdd(context_, a, a, VX_CONVERT_POLICY_WRAP, out));
	ASSERT_EQ(VX_SUCCESS, vxSetImmediateModeTarget(context_, VX_TARGET_STRING, "cpu"));
	EXPECT_EQ(VX_SUCCESS, vxuTensorAdd(context_, a, a, VX_CONVERT_POLICY_WRAP, out));
}

TEST_F(NnLayer, SoftmaxBeyondTheHardwareStaysOnCpu)
{
	/* 70000 classes: more channels than a tensor descriptor holds. */
	vx_tensor in = input({ { 70000 }, VX_TYPE_INT8, 4 }, -128, 127);
	TensorSpec outSpec{ { 70000 }, VX_TYPE_INT8, 7 };
	vx_tensor out = output(outSpec);
	vx_graph graph = vxCreateGraph(context_);
	vx_node softmax = vxSoftmaxLayer(graph, in, out);
	EXPECT_TRUE(refusedOnDlaRunsOnCpu(graph, softmax));
	vxReleaseNode(&softmax);
	vxReleaseGraph(&graph);
}

} /* namespace */
