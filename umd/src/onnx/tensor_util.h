/* SPDX-License-Identifier: MIT */
/*
 * Helpers the kernels share: numpy broadcasting, strides, typed dispatch.
 */
#pragma once

#include "op_kernel.h"

#include <cstdint>
#include <vector>

namespace vdla::onnx {

/* "[2,3,4]". */
std::string shapeString(const std::vector<int64_t> &shape);

/* Row-major strides of a shape, in elements. */
std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape);

/* The numpy broadcast of two shapes; OpError (EINVAL) if they do not broadcast. */
std::vector<int64_t> broadcastShapes(const std::vector<int64_t> &a,
				     const std::vector<int64_t> &b);

/*
 * For each element of `out` (row-major), the index of the element of an input
 * of shape `in` broadcast to it. in.size() <= out.size().
 */
std::vector<int64_t> broadcastIndex(const std::vector<int64_t> &in,
				    const std::vector<int64_t> &out);

/* An axis attribute in [-rank, rank) made non-negative; OpError if out of range. */
int64_t normaliseAxis(const OpContext &ctx, int64_t axis, int64_t rank);

/* The elements of an integer tensor (int32 or int64) as int64. */
std::vector<int64_t> toInt64s(const OpContext &ctx, const Tensor &tensor);

/* The element at flat index i converted to double, for any numeric type. */
double elementAsDouble(const Tensor &tensor, int64_t i);
/* Stores value (rounded to nearest even and saturated for integers) at i. */
void storeFromDouble(Tensor &tensor, int64_t i, double value);

/*
 * Calls fn(T{}) with T the C++ type of `type`; OpError (ENOTSUP) naming the
 * operator for a type not in the list.
 */
template<typename Fn>
void dispatchNumeric(const OpContext &ctx, DataType type, Fn &&fn)
{
	switch (type) {
	case DataType::Float: fn(float{}); return;
	case DataType::Double: fn(double{}); return;
	case DataType::Int8: fn(int8_t{}); return;
	case DataType::Uint8: fn(uint8_t{}); return;
	case DataType::Int16: fn(int16_t{}); return;
	case DataType::Uint16: fn(uint16_t{}); return;
	case DataType::Int32: fn(int32_t{}); return;
	case DataType::Uint32: fn(uint32_t{}); return;
	case DataType::Int64: fn(int64_t{}); return;
	case DataType::Uint64: fn(uint64_t{}); return;
	default:
		throw OpError(ENOTSUP, ctx.node().opType + " does not take " +
				       dataTypeName(type) + " tensors");
	}
}

} /* namespace vdla::onnx */
