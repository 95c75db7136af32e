/* SPDX-License-Identifier: MIT */
/*
 * Operators that make a tensor from a few values: ConstantOfShape, Range,
 * EyeLike, OneHot.
 */

#include "shape_ops.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <type_traits>

namespace vdla::onnx {

namespace {

/* `count` copies of the element bytes `value`, one after the other. */
void fillWith(Tensor &out, const void *value)
{
	const size_t size = dataTypeSize(out.type());
	uint8_t *dst = static_cast<uint8_t *>(out.raw());
	for (int64_t i = 0; i < out.elements(); i++)
		std::memcpy(dst + i * size, value, size);
}

/* ConstantOfShape: the one-element 'value' (float 0 by default) in every element. */
void constantOfShape(OpContext &ctx)
{
	const Tensor &shapeInput = ctx.input(0);
	ctx.require(shapeInput.type() == DataType::Int64 && shapeInput.rank() == 1,
		    "ConstantOfShape: the shape must be a 1-D int64 tensor, not " +
			    shapeInput.describe());
	std::vector<int64_t> shape = toInt64s(ctx, shapeInput);
	checkedElements(ctx, shape, "shape");

	Tensor value(DataType::Float, { 1 });
	if (ctx.hasAttribute("value"))
		value = ctx.tensorAttribute("value");
	ctx.require(value.elements() == 1, "ConstantOfShape: value " + value.describe() +
						   " must have one element");
	Tensor out(value.type(), shape);
	fillWith(out, value.raw());
	ctx.setOutput(0, std::move(out));
}

/* The one element of a scalar input of Range, as T. */
template<typename T>
T scalarOf(const OpContext &ctx, size_t input, DataType type)
{
	const Tensor &tensor = ctx.input(input);
	ctx.require(tensor.type() == type && tensor.elements() == 1,
		    "Range: input " + std::to_string(input) + " " + tensor.describe() +
			    " must be one element of the type of start");
	return tensor.data<T>()[0];
}

/*
 * Range: start + i * delta for i below ceil((limit - start) / delta), no
 * element when that is negative.
 */
void range(OpContext &ctx)
{
	const DataType type = ctx.input(0).type();
	ctx.require(type == DataType::Float || type == DataType::Double ||
			    type == DataType::Int16 || type == DataType::Int32 ||
			    type == DataType::Int64,
		    std::string("Range does not take ") + dataTypeName(type) + " tensors");
	dispatchNumeric(ctx, type, [&](auto zero) {
		using T = decltype(zero);
		const T start = scalarOf<T>(ctx, 0, type);
		const T limit = scalarOf<T>(ctx, 1, type);
		const T delta = scalarOf<T>(ctx, 2, type);
		ctx.require(delta != 0, "Range: delta is 0");
		int64_t count;
		if constexpr (std::is_integral_v<T>) {
			/* In 128 bits: limit - start may not fit in T. */
			const __int128 span = __int128(limit) - start;
			if (delta > 0)
				count = span > 0 ? int64_t((span + delta - 1) / delta) : 0;
			else
				count = span < 0 ? int64_t((span + delta + 1) / delta) : 0;
		} else {
			double steps = std::ceil((double(limit) - double(start)) / double(delta));
			ctx.require(std::isfinite(steps) && steps < 9e18,
				    "Range: start, limit and delta give no finite count");
			count = steps > 0 ? int64_t(steps) : 0;
		}
		checkedElements(ctx, { count }, "output");
		Tensor out(type, { count });
		T *o = out.data<T>();
		for (int64_t i = 0; i < count; i++)
			o[i] = T(start + T(i) * delta);
		ctx.setOutput(0, std::move(out));
	});
}

/* The element bytes of 1 in `type`. */
std::vector<uint8_t> oneOf(const OpContext &ctx, DataType type)
{
	std::vector<uint8_t> bytes(dataTypeSize(type));
	if (type == DataType::Float16) {
		const uint16_t one = 0x3c00;
		std::memcpy(bytes.data(), &one, sizeof(one));
		return bytes;
	}
	if (bytes.empty())
		throw OpError(ENOTSUP, ctx.node().opType + " does not make " +
					       dataTypeName(type) + " tensors");
	Tensor one(type, {});
	storeFromDouble(one, 0, 1.0);
	std::memcpy(bytes.data(), one.raw(), bytes.size());
	return bytes;
}

/* EyeLike: ones on diagonal k of a matrix of the input's shape, in dtype. */
void eyeLike(OpContext &ctx)
{
	const Tensor &input = ctx.input(0);
	ctx.require(input.rank() == 2, "EyeLike needs a 2-D tensor, not " + input.describe());
	DataType type = input.type();
	if (ctx.hasAttribute("dtype"))
		type = static_cast<DataType>(ctx.intAttribute("dtype"));
	const std::vector<uint8_t> one = oneOf(ctx, type);
	const int64_t k = ctx.intAttribute("k", 0);
	const int64_t rows = input.shape()[0];
	const int64_t cols = input.shape()[1];

	Tensor out(type, input.shape());
	uint8_t *dst = static_cast<uint8_t *>(out.raw());
	for (int64_t i = 0; i < rows; i++) {
		/* Column i + k, compared without overflow for any k. */
		if (k < cols - i && k >= -i)
			std::memcpy(dst + (i * cols + i + k) * one.size(), one.data(), one.size());
	}
	ctx.setOutput(0, std::move(out));
}

/*
 * The integer value of each element of OneHot's indices or depth; non-integer
 * types are truncated as a cast to int64 would, NaN and huge values become
 * an index no depth reaches.
 */
std::vector<int64_t> integersOf(const OpContext &ctx, const Tensor &tensor)
{
	if (tensor.type() == DataType::Int64 || tensor.type() == DataType::Int32)
		return toInt64s(ctx, tensor);
	ctx.require(tensor.type() != DataType::Bool && tensor.type() != DataType::Float16,
		    ctx.node().opType + " does not take " + tensor.describe());
	std::vector<int64_t> values(tensor.elements());
	for (size_t i = 0; i < values.size(); i++) {
		double v = std::trunc(elementAsDouble(tensor, i));
		values[i] = std::fabs(v) < 4e18 ? int64_t(v) : INT64_MAX;
	}
	return values;
}

/* OneHot's axis, a position in the output: in [-rank - 1, rank], made non-negative. */
int64_t normaliseNewAxis(const OpContext &ctx, int64_t axis, int64_t rank)
{
	ctx.require(axis >= -rank - 1 && axis <= rank, "OneHot: axis " + std::to_string(axis) +
							       " is out of range for indices of rank " +
							       std::to_string(rank));
	return axis < 0 ? axis + rank + 1 : axis;
}

/*
 * OneHot: a new axis of `depth` entries, values[1] where the index (negative
 * counted from depth) is the position on that axis, values[0] elsewhere.
 */
void oneHot(OpContext &ctx)
{
	const Tensor &indicesInput = ctx.input(0);
	const Tensor &depthInput = ctx.input(1);
	const Tensor &values = ctx.input(2);
	std::vector<int64_t> depths = integersOf(ctx, depthInput);
	ctx.require(depths.size() == 1 && depths[0] > 0,
		    "OneHot: depth must be one positive number");
	ctx.require(values.rank() == 1 && values.elements() == 2,
		    "OneHot: values must be [off, on], not " + values.describe());
	const int64_t depth = depths[0];
	std::vector<int64_t> indices = integersOf(ctx, indicesInput);
	const int64_t rank = indicesInput.rank();
	const int64_t axis = normaliseNewAxis(ctx, ctx.intAttribute("axis", -1), rank);

	std::vector<int64_t> shape = indicesInput.shape();
	shape.insert(shape.begin() + axis, depth);
	checkedElements(ctx, shape, "output");
	Tensor out(values.type(), shape);
	const size_t size = dataTypeSize(values.type());
	const uint8_t *off = static_cast<const uint8_t *>(values.raw());
	const uint8_t *on = off + size;
	uint8_t *dst = static_cast<uint8_t *>(out.raw());

	/* Output [outer, depth, inner] against indices [outer, inner]. */
	const int64_t outer = dimsProduct(indicesInput.shape(), 0, axis);
	const int64_t inner = dimsProduct(indicesInput.shape(), axis, rank);
	for (int64_t o = 0; o < outer; o++) {
		for (int64_t d = 0; d < depth; d++) {
			for (int64_t i = 0; i < inner; i++, dst += size) {
				int64_t index = indices[o * inner + i];
				if (index < 0 && index >= -depth)
					index += depth;
				std::memcpy(dst, index == d ? on : off, size);
			}
		}
	}
	ctx.setOutput(0, std::move(out));
}

} /* namespace */

void registerGenerateOps(OpRegistry &registry)
{
	registry.add("ConstantOfShape", constantOfShape);
	registry.add("Range", range);
	registry.add("EyeLike", eyeLike);
	registry.add("OneHot", oneHot);
}

} /* namespace vdla::onnx */
