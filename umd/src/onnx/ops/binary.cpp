/* SPDX-License-Identifier: MIT */
/*
 * Arithmetic of two or more inputs with numpy broadcasting: Add Sub Mul Div
 * Pow Mod BitShift, and the variadic Min Max Sum Mean.
 */

#include "elementwise_ops.h"
#include "float16.h"

namespace vdla::onnx {

namespace {

/* Inputs 0 and 1 must be of one type. */
void requireSameType(const OpContext &ctx, const Tensor &a, const Tensor &b)
{
	ctx.require(a.type() == b.type(), ctx.node().opType + " of " + a.describe() + " and " +
						  b.describe() + ": the types differ");
}

/* A kernel computing fn(a, b) over the broadcast of inputs 0 and 1, of any numeric type. */
template<typename Fn>
OpKernel numericBinary(Fn fn)
{
	return [fn](OpContext &ctx) {
		const Tensor &a = ctx.input(0);
		const Tensor &b = ctx.input(1);
		requireSameType(ctx, a, b);
		dispatchNumeric(ctx, a.type(), [&](auto zero) {
			using T = decltype(zero);
			ctx.setOutput(0, zipBroadcast<T, T, T>(a, b, a.type(), [&](T x, T y) {
				return T(fn(x, y));
			}));
		});
	};
}

/* Integer division truncates toward zero as in C. */
template<typename T>
T divide(T a, T b)
{
	if constexpr (std::is_integral_v<T>) {
		if (b == 0)
			throw OpError(EINVAL, "Div: integer division by zero");
		/* The lowest value divided by -1 overflows (and traps): it wraps. */
		if constexpr (std::is_signed_v<T>)
			if (b == T(-1))
				return wrappingSub(T(0), a);
	}
	return a / b;
}

/*
 * Mod with fmod = 1 is C's remainder, of the sign of the dividend. With
 * fmod = 0 (integers only) the remainder takes the sign of the divisor.
 */
template<typename T>
T remainder(T a, T b, bool cStyle)
{
	if constexpr (std::is_floating_point_v<T>) {
		return std::fmod(a, b);
	} else {
		if (b == 0)
			throw OpError(EINVAL, "Mod: integer division by zero");
		if constexpr (std::is_unsigned_v<T>) {
			return T(a % b);
		} else {
			/* The lowest value modulo -1 traps like its division. */
			T r = b == T(-1) ? T(0) : T(a % b);
			if (!cStyle && r != 0 && (r < 0) != (b < 0))
				r = T(r + b);
			return r;
		}
	}
}

Tensor remainders(const OpContext &ctx, const Tensor &a, const Tensor &b, int64_t fmod)
{
	Tensor out;
	dispatchNumeric(ctx, a.type(), [&](auto zero) {
		using T = decltype(zero);
		ctx.require(std::is_integral_v<T> || fmod == 1,
			    "Mod: attribute 'fmod' must be 1 for floating-point inputs");
		out = zipBroadcast<T, T, T>(a, b, a.type(), [&](T x, T y) {
			return remainder(x, y, fmod == 1);
		});
	});
	return out;
}

void mod(OpContext &ctx)
{
	const Tensor &a = ctx.input(0);
	const Tensor &b = ctx.input(1);
	requireSameType(ctx, a, b);
	const int64_t fmod = ctx.intAttribute("fmod", 0);
	ctx.require(fmod == 0 || fmod == 1, "Mod: attribute 'fmod' must be 0 or 1");
	/*
	 * float16 is computed in float and rounded back once. That is exact:
	 * fmod's remainder is never rounded (it is a multiple of the finer of
	 * the two operands' units, no larger than either), so the float
	 * remainder of two binary16 values is itself a binary16 value.
	 */
	if (a.type() == DataType::Float16)
		ctx.setOutput(0, float16FromTensor(remainders(ctx, float16ToFloatTensor(a),
							      float16ToFloatTensor(b), fmod)));
	else
		ctx.setOutput(0, remainders(ctx, a, b, fmod));
}

/* base^exponent for integers by repeated squaring, wrapping as integer products do. */
template<typename B, typename E>
B integerPower(B base, E exponent)
{
	B result = 1;
	while (exponent > 0) {
		if (exponent & 1)
			result = wrappingMul(result, base);
		base = wrappingMul(base, base);
		exponent /= 2;
	}
	return result;
}

/*
 * Pow of an integer base by a non-negative integer exponent is exact; any
 * other pair is computed in double and converted to the base's type
 * (truncated for an integer base, as a C cast does).
 */
template<typename B, typename E>
B power(B base, E exponent)
{
	if constexpr (std::is_integral_v<B> && std::is_unsigned_v<E>) {
		return integerPower(base, exponent);
	} else if constexpr (std::is_integral_v<B> && std::is_integral_v<E>) {
		if (exponent >= 0)
			return integerPower(base, exponent);
	}
	return fromDouble<B>(std::pow(double(base), double(exponent)));
}

/* From opset 12 the exponent may be of another type than the base; Y has the base's type. */
void pow(OpContext &ctx)
{
	const Tensor &a = ctx.input(0);
	const Tensor &b = ctx.input(1);
	dispatchNumeric(ctx, a.type(), [&](auto baseZero) {
		using B = decltype(baseZero);
		dispatchNumeric(ctx, b.type(), [&](auto exponentZero) {
			using E = decltype(exponentZero);
			ctx.setOutput(0, zipBroadcast<B, E, B>(a, b, a.type(), power<B, E>));
		});
	});
}

/* Shifts of the unsigned types; shifting by the width or more leaves 0. */
void bitShift(OpContext &ctx)
{
	const Tensor &a = ctx.input(0);
	const Tensor &b = ctx.input(1);
	requireSameType(ctx, a, b);
	const std::string direction = ctx.stringAttribute("direction", "");
	ctx.require(direction == "LEFT" || direction == "RIGHT",
		    "BitShift: attribute 'direction' must be LEFT or RIGHT, not '" + direction + "'");
	const bool left = direction == "LEFT";
	dispatchNumeric(ctx, a.type(), [&](auto zero) {
		using T = decltype(zero);
		ctx.require(std::is_unsigned_v<T>,
			    std::string("BitShift takes unsigned tensors, not ") +
				    dataTypeName(a.type()));
		if constexpr (std::is_unsigned_v<T>) {
			ctx.setOutput(0, zipBroadcast<T, T, T>(a, b, a.type(), [&](T x, T n) {
				if (n >= sizeof(T) * 8)
					return T(0);
				return left ? T(x << n) : T(x >> n);
			}));
		}
	});
}

/*
 * Folds combine over any number (>= 1) of tensors of one type broadcast
 * together: the first input broadcast to the output, then each other input
 * combined into it.
 */
template<typename T, typename Combine>
Tensor foldTensors(const OpContext &ctx, const std::vector<const Tensor *> &inputs,
		   Combine combine)
{
	const Tensor &first = *inputs[0];
	std::vector<int64_t> shape = first.shape();
	for (size_t j = 1; j < inputs.size(); j++) {
		requireSameType(ctx, first, *inputs[j]);
		shape = broadcastShapes(shape, inputs[j]->shape());
	}
	Tensor out(first.type(), shape);
	T *o = out.data<T>();
	std::vector<int64_t> index = broadcastIndex(first.shape(), shape);
	for (size_t i = 0; i < index.size(); i++)
		o[i] = first.data<T>()[index[i]];
	for (size_t j = 1; j < inputs.size(); j++) {
		const Tensor &in = *inputs[j];
		const T *p = in.data<T>();
		index = broadcastIndex(in.shape(), shape);
		for (size_t i = 0; i < index.size(); i++)
			o[i] = combine(o[i], p[index[i]]);
	}
	return out;
}

template<typename T, typename Combine>
Tensor foldInputs(const OpContext &ctx, Combine combine)
{
	std::vector<const Tensor *> inputs;
	for (size_t j = 0; j < ctx.inputCount(); j++)
		inputs.push_back(&ctx.input(j));
	return foldTensors<T>(ctx, inputs, combine);
}

/*
 * Min and Max: choose(a, b) picks one of two values. float16 inputs are
 * compared in float, which holds every binary16 value, so that rounding the
 * result back to binary16 is exact.
 */
template<typename Choose>
void chooseElements(OpContext &ctx, Choose choose)
{
	const Tensor &first = ctx.input(0);
	if (first.type() == DataType::Float16) {
		std::vector<Tensor> widened;
		widened.reserve(ctx.inputCount());
		std::vector<const Tensor *> inputs;
		for (size_t j = 0; j < ctx.inputCount(); j++) {
			requireSameType(ctx, first, ctx.input(j));
			widened.push_back(float16ToFloatTensor(ctx.input(j)));
			inputs.push_back(&widened.back());
		}
		ctx.setOutput(0, float16FromTensor(foldTensors<float>(ctx, inputs, choose)));
		return;
	}
	dispatchNumeric(ctx, first.type(), [&](auto zero) {
		using T = decltype(zero);
		ctx.setOutput(0, foldInputs<T>(ctx, choose));
	});
}

void min(OpContext &ctx)
{
	chooseElements(ctx, [](auto a, auto b) { return smaller(a, b); });
}

void max(OpContext &ctx)
{
	chooseElements(ctx, [](auto a, auto b) { return larger(a, b); });
}

void sum(OpContext &ctx)
{
	dispatchNumeric(ctx, ctx.input(0).type(), [&](auto zero) {
		using T = decltype(zero);
		ctx.setOutput(0, foldInputs<T>(ctx, wrappingAdd<T>));
	});
}

void mean(OpContext &ctx)
{
	dispatchFloat(ctx, ctx.input(0).type(), [&](auto zero) {
		using T = decltype(zero);
		Tensor out = foldInputs<T>(ctx, wrappingAdd<T>);
		T *o = out.data<T>();
		const T count = T(ctx.inputCount());
		for (int64_t i = 0; i < out.elements(); i++)
			o[i] /= count;
		ctx.setOutput(0, std::move(out));
	});
}

} /* namespace */

void registerBinaryOps(OpRegistry &registry)
{
	registry.add("Add", numericBinary([](auto a, auto b) { return wrappingAdd(a, b); }));
	registry.add("Sub", numericBinary([](auto a, auto b) { return wrappingSub(a, b); }));
	registry.add("Mul", numericBinary([](auto a, auto b) { return wrappingMul(a, b); }));
	registry.add("Div", numericBinary([](auto a, auto b) { return divide(a, b); }));
	registry.add("Pow", pow);
	registry.add("Mod", mod);
	registry.add("BitShift", bitShift);
	registry.add("Min", min);
	registry.add("Max", max);
	registry.add("Sum", sum);
	registry.add("Mean", mean);
}

} /* namespace vdla::onnx */
