/* SPDX-License-Identifier: MIT */
/*
 * The element-wise family (ops/elementwise.cpp and the files it registers):
 * the register function of each file, and the loops they share.
 */
#pragma once

#include "../tensor_util.h"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace vdla::onnx {

void registerUnaryOps(OpRegistry &registry);
void registerActivationOps(OpRegistry &registry);
void registerBinaryOps(OpRegistry &registry);
void registerLogicOps(OpRegistry &registry);
void registerCastOps(OpRegistry &registry);
void registerReduceOps(OpRegistry &registry);

/* fn applied to each element of x (of C++ type In) into a new tensor of outType. */
template<typename In, typename Out, typename Fn>
Tensor mapElements(const Tensor &x, DataType outType, Fn fn)
{
	Tensor out(outType, x.shape());
	const In *in = x.data<In>();
	Out *o = out.data<Out>();
	for (int64_t i = 0, n = x.elements(); i < n; i++)
		o[i] = fn(in[i]);
	return out;
}

/* fn(a, b) over the numpy broadcast of a and b, into a new tensor of outType. */
template<typename A, typename B, typename Out, typename Fn>
Tensor zipBroadcast(const Tensor &a, const Tensor &b, DataType outType, Fn fn)
{
	std::vector<int64_t> shape = broadcastShapes(a.shape(), b.shape());
	Tensor out(outType, shape);
	std::vector<int64_t> ia = broadcastIndex(a.shape(), shape);
	std::vector<int64_t> ib = broadcastIndex(b.shape(), shape);
	const A *pa = a.data<A>();
	const B *pb = b.data<B>();
	Out *po = out.data<Out>();
	for (size_t i = 0; i < ia.size(); i++)
		po[i] = fn(pa[ia[i]], pb[ib[i]]);
	return out;
}

/*
 * The unsigned type integer arithmetic of T wraps in: at least unsigned int,
 * so that the promotion of narrow types to int cannot overflow either.
 */
template<typename T>
using WrappingType = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned,
					std::make_unsigned_t<T>>;

/*
 * a + b, a - b and a * b; for integers modulo 2^bits, as the hardware does,
 * without the undefined behaviour of signed overflow in C++.
 */
template<typename T>
T wrappingAdd(T a, T b)
{
	if constexpr (std::is_integral_v<T>)
		return static_cast<T>(WrappingType<T>(a) + WrappingType<T>(b));
	else
		return a + b;
}

template<typename T>
T wrappingSub(T a, T b)
{
	if constexpr (std::is_integral_v<T>)
		return static_cast<T>(WrappingType<T>(a) - WrappingType<T>(b));
	else
		return a - b;
}

template<typename T>
T wrappingMul(T a, T b)
{
	if constexpr (std::is_integral_v<T>)
		return static_cast<T>(WrappingType<T>(a) * WrappingType<T>(b));
	else
		return a * b;
}

/*
 * A floating-point value converted to the integer type T, truncated toward
 * zero as a C cast does. C leaves values outside T's range undefined, and so
 * does ONNX; here they wrap modulo 2^bits as a conversion through a 64-bit
 * integer does, and NaN and values beyond 64 bits give 0, so that no input
 * reaches undefined behaviour.
 */
template<typename T, typename F>
T truncateToInteger(F value)
{
	static_assert(std::is_integral_v<T> && std::is_floating_point_v<F>);
	if (std::isnan(value))
		return T(0);
	double whole = std::trunc(double(value));
	if (whole >= 0 && whole < 18446744073709551616.0)
		return static_cast<T>(static_cast<uint64_t>(whole));
	if (whole < 0 && whole >= -9223372036854775808.0)
		return static_cast<T>(static_cast<int64_t>(whole));
	return T(0);
}

/* A double converted to T: as is for floating point, truncated for integers. */
template<typename T>
T fromDouble(double value)
{
	if constexpr (std::is_floating_point_v<T>)
		return static_cast<T>(value);
	else
		return truncateToInteger<T>(value);
}

/*
 * The smaller and the larger of two values, for Min/Max and the reductions:
 * NaN wins over any number, as in numpy's minimum/maximum and amin/amax.
 */
template<typename T>
T smaller(T a, T b)
{
	if constexpr (std::is_floating_point_v<T>)
		if (std::isnan(b))
			return b;
	return b < a ? b : a;
}

template<typename T>
T larger(T a, T b)
{
	if constexpr (std::is_floating_point_v<T>)
		if (std::isnan(b))
			return b;
	return a < b ? b : a;
}

} /* namespace vdla::onnx */
