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

/*
 * An axis attribute in [-rank, rank) made non-negative; OpError (EINVAL) if
 * out of range. A scalar has no axis: rank 0 refuses every axis unless
 * allowScalar, for the caller that treats a scalar as having axis 0.
 */
int64_t normaliseAxis(const OpContext &ctx, int64_t axis, int64_t rank, bool allowScalar = false);

/* a * b and a + b; OpError (EINVAL) naming the operator and `what` if they overflow int64. */
int64_t checkedMul(const OpContext &ctx, int64_t a, int64_t b, const std::string &what);
int64_t checkedAdd(const OpContext &ctx, int64_t a, int64_t b, const std::string &what);

/*
 * Before a kernel allocates a scratch buffer of `elements` elements of
 * `elementBytes` each, sized from attributes rather than from a tensor:
 * std::length_error (EAGAIN, as the tensor size limit of tensor.cpp) naming
 * the operator and `what` above the 4 GiB one tensor may take, or if the
 * size overflows; OpError (EINVAL) for a negative count.
 */
void checkScratch(const OpContext &ctx, int64_t elements, size_t elementBytes, const char *what);

/* The elements of an integer tensor (int32 or int64) as int64. */
std::vector<int64_t> toInt64s(const OpContext &ctx, const Tensor &tensor);

/*
 * A matrix B [K, M] (or [M, K] when @transposed) as the weights [M, K, 1, 1]
 * of a 1x1 convolution computing A B for A's rows: the bytes of any element
 * type moved.
 */
Tensor pointwiseWeights(const Tensor &b, bool transposed);

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

/*
 * dispatchNumeric restricted to float and double, for the operators defined
 * on floating-point types only: float16 is ENOTSUP (not built), any other
 * type EINVAL.
 */
template<typename Fn>
void dispatchFloat(const OpContext &ctx, DataType type, Fn &&fn)
{
	switch (type) {
	case DataType::Float: fn(float{}); return;
	case DataType::Double: fn(double{}); return;
	case DataType::Float16:
		throw OpError(ENOTSUP, ctx.node().opType + " of float16 tensors is not built");
	default:
		throw OpError(EINVAL, ctx.node().opType + " takes floating-point tensors, not " +
					      std::string(dataTypeName(type)));
	}
}

} /* namespace vdla::onnx */
