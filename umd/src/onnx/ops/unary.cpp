/* SPDX-License-Identifier: MIT */
/* Element-wise functions of one input: arithmetic, rounding, trigonometry, tests. */

#include "elementwise_ops.h"

namespace vdla::onnx {

namespace {

/* A kernel applying fn to each element of a floating-point input. */
template<typename Fn>
OpKernel floatUnary(Fn fn)
{
	return [fn](OpContext &ctx) {
		const Tensor &x = ctx.input(0);
		dispatchFloat(ctx, x.type(), [&](auto zero) {
			using T = decltype(zero);
			ctx.setOutput(0, mapElements<T, T>(x, x.type(), [&](T v) { return T(fn(v)); }));
		});
	};
}

/* A kernel applying fn to each element of an input of any numeric type. */
template<typename Fn>
OpKernel numericUnary(Fn fn)
{
	return [fn](OpContext &ctx) {
		const Tensor &x = ctx.input(0);
		dispatchNumeric(ctx, x.type(), [&](auto zero) {
			using T = decltype(zero);
			ctx.setOutput(0, mapElements<T, T>(x, x.type(), [&](T v) { return T(fn(v)); }));
		});
	};
}

/* -v without the undefined behaviour of negating the lowest signed integer: it wraps. */
template<typename T>
T negate(T v)
{
	if constexpr (std::is_integral_v<T>) {
		using U = std::make_unsigned_t<T>;
		return static_cast<T>(U(0) - static_cast<U>(v));
	} else {
		return -v;
	}
}

template<typename T>
T absolute(T v)
{
	if constexpr (std::is_unsigned_v<T>)
		return v;
	else
		return v < T(0) ? negate(v) : v;
}

template<typename T>
T sign(T v)
{
	if (v > T(0))
		return T(1);
	if (v < T(0))
		return negate(T(1));
	/* Zero, and NaN, are their own sign. */
	return v;
}

void neg(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	dispatchNumeric(ctx, x.type(), [&](auto zero) {
		using T = decltype(zero);
		ctx.require(!std::is_unsigned_v<T>,
			    std::string("Neg takes signed tensors, not ") + dataTypeName(x.type()));
		ctx.setOutput(0, mapElements<T, T>(x, x.type(), negate<T>));
	});
}

/* Erf is defined on every numeric type; integers get the truncated value. */
void erf(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	dispatchNumeric(ctx, x.type(), [&](auto zero) {
		using T = decltype(zero);
		ctx.setOutput(0, mapElements<T, T>(x, x.type(), [](T v) {
			return fromDouble<T>(std::erf(double(v)));
		}));
	});
}

void isNaN(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	dispatchFloat(ctx, x.type(), [&](auto zero) {
		using T = decltype(zero);
		ctx.setOutput(0, mapElements<T, bool>(x, DataType::Bool,
						      [](T v) { return bool(std::isnan(v)); }));
	});
}

void isInf(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	const bool negative = ctx.intAttribute("detect_negative", 1) != 0;
	const bool positive = ctx.intAttribute("detect_positive", 1) != 0;
	dispatchFloat(ctx, x.type(), [&](auto zero) {
		using T = decltype(zero);
		ctx.setOutput(0, mapElements<T, bool>(x, DataType::Bool, [&](T v) {
			return std::isinf(v) && (v > 0 ? positive : negative);
		}));
	});
}

void logicalNot(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	ctx.require(x.type() == DataType::Bool, "Not takes a bool tensor, not " + x.describe());
	ctx.setOutput(0, mapElements<bool, bool>(x, DataType::Bool, [](bool v) { return !v; }));
}

} /* namespace */

void registerUnaryOps(OpRegistry &registry)
{
	registry.add("Abs", numericUnary([](auto v) { return absolute(v); }));
	registry.add("Neg", neg);
	registry.add("Sign", numericUnary([](auto v) { return sign(v); }));
	registry.add("Erf", erf);

	registry.add("Sqrt", floatUnary([](auto v) { return std::sqrt(v); }));
	registry.add("Exp", floatUnary([](auto v) { return std::exp(v); }));
	registry.add("Log", floatUnary([](auto v) { return std::log(v); }));
	registry.add("Reciprocal", floatUnary([](auto v) { return 1 / v; }));
	registry.add("Sin", floatUnary([](auto v) { return std::sin(v); }));
	registry.add("Cos", floatUnary([](auto v) { return std::cos(v); }));
	registry.add("Tan", floatUnary([](auto v) { return std::tan(v); }));
	registry.add("Asin", floatUnary([](auto v) { return std::asin(v); }));
	registry.add("Acos", floatUnary([](auto v) { return std::acos(v); }));
	registry.add("Atan", floatUnary([](auto v) { return std::atan(v); }));
	registry.add("Sinh", floatUnary([](auto v) { return std::sinh(v); }));
	registry.add("Cosh", floatUnary([](auto v) { return std::cosh(v); }));
	registry.add("Tanh", floatUnary([](auto v) { return std::tanh(v); }));
	registry.add("Asinh", floatUnary([](auto v) { return std::asinh(v); }));
	registry.add("Acosh", floatUnary([](auto v) { return std::acosh(v); }));
	registry.add("Atanh", floatUnary([](auto v) { return std::atanh(v); }));
	registry.add("Ceil", floatUnary([](auto v) { return std::ceil(v); }));
	registry.add("Floor", floatUnary([](auto v) { return std::floor(v); }));
	/* Halves go to the even neighbour: nearbyint in the default rounding mode. */
	registry.add("Round", floatUnary([](auto v) { return std::nearbyint(v); }));

	registry.add("IsNaN", isNaN);
	registry.add("IsInf", isInf);
	registry.add("Not", logicalNot);
}

} /* namespace vdla::onnx */
