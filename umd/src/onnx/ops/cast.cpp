/* SPDX-License-Identifier: MIT */
/* Cast and CastLike: element type conversions between the numeric types and bool. */

#include "elementwise_ops.h"
#include "float16.h"

namespace vdla::onnx {

namespace {

/* The name of a type Cast may be asked for but libvdla does not hold. */
std::string typeLabel(DataType type)
{
	switch (static_cast<int>(type)) {
	case 8: return "string";
	case 14: return "complex64";
	case 15: return "complex128";
	case 16: return "bfloat16";
	default: return dataTypeName(type);
	}
}

/* Like dispatchNumeric, with bool as well: the types Cast converts between. */
template<typename Fn>
void dispatchCastable(const OpContext &ctx, DataType type, const char *role, Fn &&fn)
{
	if (type == DataType::Bool) {
		fn(bool{});
		return;
	}
	if (type == DataType::Float16 || !dataTypeSize(type))
		throw OpError(ENOTSUP, ctx.node().opType + ": " + role + " type " +
					       typeLabel(type) + " is not supported");
	dispatchNumeric(ctx, type, fn);
}

/*
 * One element converted as C converts: anything to bool is "not zero",
 * floating point to integer truncates toward zero, integers to narrower
 * integers keep the low bits.
 */
template<typename To, typename From>
To convert(From value)
{
	if constexpr (std::is_same_v<To, bool>)
		return value != From(0);
	else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>)
		return truncateToInteger<To>(value);
	else
		return static_cast<To>(value);
}

Tensor castTensor(const OpContext &ctx, const Tensor &x, DataType to)
{
	/*
	 * float16, which has no C++ type, goes through float, which holds every
	 * binary16 value, and comes from double, rounded once: double holds
	 * every value of the other types exactly but for 64-bit integers beyond
	 * 2^53, which overflow binary16 either way.
	 */
	if (x.type() == DataType::Float16)
		return castTensor(ctx, float16ToFloatTensor(x), to);
	if (to == DataType::Float16)
		return float16FromTensor(castTensor(ctx, x, DataType::Double));

	Tensor out;
	dispatchCastable(ctx, x.type(), "input", [&](auto fromZero) {
		using From = decltype(fromZero);
		dispatchCastable(ctx, to, "target", [&](auto toZero) {
			using To = decltype(toZero);
			out = mapElements<From, To>(x, to, convert<To, From>);
		});
	});
	return out;
}

void cast(OpContext &ctx)
{
	const int64_t to = ctx.intAttribute("to");
	/* TensorProto.DataType runs from 1 (float) to 16 (bfloat16). */
	ctx.require(to >= 1 && to <= 16,
		    "Cast: attribute 'to' (" + std::to_string(to) + ") is not an ONNX type");
	ctx.setOutput(0, castTensor(ctx, ctx.input(0), static_cast<DataType>(to)));
}

/* CastLike: the target type is that of input 1, whose elements are not read. */
void castLike(OpContext &ctx)
{
	ctx.setOutput(0, castTensor(ctx, ctx.input(0), ctx.input(1).type()));
}

} /* namespace */

void registerCastOps(OpRegistry &registry)
{
	registry.add("Cast", cast);
	registry.add("CastLike", castLike);
}

} /* namespace vdla::onnx */
