/* SPDX-License-Identifier: MIT */
/* Activation functions: the rectifiers, sigmoids and clipping of neural networks. */

#include "elementwise_ops.h"

#include <algorithm>
#include <cfloat>

namespace vdla::onnx {

namespace {

/* Output 0 is fn of each element of input 0, a floating-point tensor. */
template<typename Fn>
void applyFloat(OpContext &ctx, Fn fn)
{
	const Tensor &x = ctx.input(0);
	dispatchFloat(ctx, x.type(), [&](auto zero) {
		using T = decltype(zero);
		ctx.setOutput(0, mapElements<T, T>(x, x.type(), [&](T v) { return T(fn(v)); }));
	});
}

void relu(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	dispatchNumeric(ctx, x.type(), [&](auto zero) {
		using T = decltype(zero);
		ctx.setOutput(0, mapElements<T, T>(x, x.type(),
						   [](T v) { return v > T(0) ? v : T(0); }));
	});
}

void leakyRelu(OpContext &ctx)
{
	const float alpha = ctx.floatAttribute("alpha", 0.01f);
	applyFloat(ctx, [&](auto v) { return v < 0 ? decltype(v)(alpha) * v : v; });
}

void elu(OpContext &ctx)
{
	const float alpha = ctx.floatAttribute("alpha", 1.0f);
	applyFloat(ctx, [&](auto v) {
		return v < 0 ? decltype(v)(alpha) * (std::exp(v) - 1) : v;
	});
}

void selu(OpContext &ctx)
{
	/* The float32 values the specification gives as defaults. */
	const float alpha = ctx.floatAttribute("alpha", 1.67326319217681884765625f);
	const float gamma = ctx.floatAttribute("gamma", 1.05070102214813232421875f);
	applyFloat(ctx, [&](auto v) {
		using T = decltype(v);
		return v > 0 ? T(gamma) * v : T(gamma) * (T(alpha) * std::exp(v) - T(alpha));
	});
}

void celu(OpContext &ctx)
{
	const float alpha = ctx.floatAttribute("alpha", 1.0f);
	ctx.require(alpha != 0, "Celu: attribute 'alpha' must not be 0");
	applyFloat(ctx, [&](auto v) {
		using T = decltype(v);
		return std::max(T(0), v) + std::min(T(0), T(alpha) * (std::exp(v / T(alpha)) - 1));
	});
}

void sigmoid(OpContext &ctx)
{
	/* exp of a non-positive number only, so that large |x| does not overflow. */
	applyFloat(ctx, [](auto v) {
		using T = decltype(v);
		if (v >= 0)
			return T(1) / (T(1) + std::exp(-v));
		T e = std::exp(v);
		return e / (T(1) + e);
	});
}

void hardSigmoid(OpContext &ctx)
{
	const float alpha = ctx.floatAttribute("alpha", 0.2f);
	const float beta = ctx.floatAttribute("beta", 0.5f);
	applyFloat(ctx, [&](auto v) {
		using T = decltype(v);
		return std::max(T(0), std::min(T(1), T(alpha) * v + T(beta)));
	});
}

void hardSwish(OpContext &ctx)
{
	/* x * HardSigmoid(x) with alpha 1/6 and beta 0.5. */
	applyFloat(ctx, [](auto v) {
		using T = decltype(v);
		return v * std::max(T(0), std::min(T(1), v / T(6) + T(0.5)));
	});
}

void softplus(OpContext &ctx)
{
	/* log(1 + e^x) written so that e^x cannot overflow. */
	applyFloat(ctx, [](auto v) {
		using T = decltype(v);
		return std::max(v, T(0)) + std::log1p(std::exp(-std::fabs(v)));
	});
}

void softsign(OpContext &ctx)
{
	applyFloat(ctx, [](auto v) { return v / (1 + std::fabs(v)); });
}

void thresholdedRelu(OpContext &ctx)
{
	const float alpha = ctx.floatAttribute("alpha", 1.0f);
	applyFloat(ctx, [&](auto v) { return v > decltype(v)(alpha) ? v : decltype(v)(0); });
}

/* Shrink is defined on every numeric type; the thresholds are floats. */
void shrink(OpContext &ctx)
{
	const double lambd = ctx.floatAttribute("lambd", 0.5f);
	const double bias = ctx.floatAttribute("bias", 0.0f);
	const Tensor &x = ctx.input(0);
	dispatchNumeric(ctx, x.type(), [&](auto zero) {
		using T = decltype(zero);
		ctx.setOutput(0, mapElements<T, T>(x, x.type(), [&](T v) {
			double d = double(v);
			if (d < -lambd)
				return fromDouble<T>(d + bias);
			if (d > lambd)
				return fromDouble<T>(d - bias);
			return T(0);
		}));
	});
}

/*
 * The slope broadcasts to the input's shape (unidirectionally): never the
 * reverse. Before opset 7 a slope is per channel ("of size 1, the value is
 * shared across different channels"): a 1-D slope of X's channel count
 * applies along axis 1, as PyTorch's exporter of that time wrote it.
 */
void prelu(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	Tensor slope = ctx.input(1);
	if (ctx.opset() < 7 && x.rank() >= 2 && slope.rank() == 1 && slope.shape()[0] == x.shape()[1] &&
	    slope.shape()[0] != 1) {
		std::vector<int64_t> perChannel(x.rank() - 1, 1);
		perChannel[0] = slope.shape()[0];
		slope = slope.reshaped(perChannel);
	}
	ctx.require(x.type() == slope.type(),
		    "PRelu: slope " + slope.describe() + " is not of the type of X " + x.describe());
	ctx.require(broadcastShapes(x.shape(), slope.shape()) == x.shape(),
		    "PRelu: slope " + slope.describe() + " does not broadcast to X " + x.describe());
	dispatchNumeric(ctx, x.type(), [&](auto zero) {
		using T = decltype(zero);
		ctx.setOutput(0, zipBroadcast<T, T, T>(x, slope, x.type(), [](T v, T s) {
			return v < T(0) ? wrappingMul(s, v) : v;
		}));
	});
}

/* The bound of input `index` of Clip (opset >= 11), or fallback when left out. */
template<typename T>
T clipBound(const OpContext &ctx, size_t index, const char *name, T fallback)
{
	if (!ctx.hasInput(index))
		return fallback;
	const Tensor &bound = ctx.input(index);
	ctx.require(bound.type() == ctx.input(0).type(),
		    std::string("Clip: input '") + name + "' " + bound.describe() +
			    " is not of the type of the input");
	ctx.require(bound.elements() == 1,
		    std::string("Clip: input '") + name + "' " + bound.describe() +
			    " is not a scalar");
	return bound.data<T>()[0];
}

/*
 * Before opset 11 the bounds are float attributes; from 11 they are optional
 * scalar inputs of the input's type. A minimum above the maximum clips every
 * element to the maximum.
 */
void clip(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	if (ctx.opset() < 11) {
		const float low = ctx.floatAttribute("min", -FLT_MAX);
		const float high = ctx.floatAttribute("max", FLT_MAX);
		applyFloat(ctx, [&](auto v) {
			using T = decltype(v);
			return std::min(std::max(v, T(low)), T(high));
		});
		return;
	}
	dispatchNumeric(ctx, x.type(), [&](auto zero) {
		using T = decltype(zero);
		const T low = clipBound<T>(ctx, 1, "min", std::numeric_limits<T>::lowest());
		const T high = clipBound<T>(ctx, 2, "max", std::numeric_limits<T>::max());
		ctx.setOutput(0, mapElements<T, T>(x, x.type(), [&](T v) {
			return std::min(std::max(v, low), high);
		}));
	});
}

} /* namespace */

void registerActivationOps(OpRegistry &registry)
{
	registry.add("Relu", relu);
	registry.add("LeakyRelu", leakyRelu);
	registry.add("Elu", elu);
	registry.add("Selu", selu);
	registry.add("Celu", celu);
	registry.add("Sigmoid", sigmoid);
	registry.add("HardSigmoid", hardSigmoid);
	registry.add("HardSwish", hardSwish);
	registry.add("Softplus", softplus);
	registry.add("Softsign", softsign);
	registry.add("ThresholdedRelu", thresholdedRelu);
	registry.add("Shrink", shrink);
	registry.add("PRelu", prelu);
	registry.add("Clip", clip);
}

} /* namespace vdla::onnx */
