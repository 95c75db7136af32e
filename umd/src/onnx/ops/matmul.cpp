/* SPDX-License-Identifier: MIT */
/* Matrix products: Gemm and MatMul (numpy's matmul, with batch broadcasting). */

#include "nn_ops.h"

#include <type_traits>

namespace vdla::onnx {

namespace {

/*
 * Sums of products: in double for floats, and for integers in uint64_t,
 * whose wrap-around is the integer types' two's complement overflow without
 * the undefined behaviour of signed overflow.
 */
template<typename T>
using Accumulator = std::conditional_t<std::is_floating_point_v<T>, double, uint64_t>;

/* The types of MatMul and Gemm (float16 and bfloat16 are not built). */
void checkProductType(const OpContext &ctx, const Tensor &a, const Tensor &b)
{
	ctx.require(a.type() == b.type(), "inputs " + a.describe() + " and " + b.describe() +
						  " are not of one type");
	switch (a.type()) {
	case DataType::Float:
	case DataType::Double:
	case DataType::Int32:
	case DataType::Int64:
	case DataType::Uint32:
	case DataType::Uint64:
		return;
	case DataType::Float16:
		throw OpError(ENOTSUP, ctx.node().opType + " of float16 tensors is not built");
	default:
		throw OpError(EINVAL, ctx.node().opType + " does not take " + a.describe());
	}
}

/*
 * out[m][n] = sum over k of a[m][k] * b[k][n], with the strides of a and b
 * given so a transposed operand is read in place.
 */
template<typename T>
void multiply(const T *a, int64_t aRow, int64_t aCol, const T *b, int64_t bRow, int64_t bCol,
	      int64_t rows, int64_t inner, int64_t cols, Accumulator<T> *out)
{
	for (int64_t m = 0; m < rows; m++) {
		Accumulator<T> *row = out + m * cols;
		std::fill(row, row + cols, Accumulator<T>(0));
		for (int64_t k = 0; k < inner; k++) {
			const Accumulator<T> left = Accumulator<T>(a[m * aRow + k * aCol]);
			const T *right = b + k * bRow;
			for (int64_t n = 0; n < cols; n++)
				row[n] += left * Accumulator<T>(right[n * bCol]);
		}
	}
}

void matMul(OpContext &ctx)
{
	const Tensor &a = ctx.input(0);
	const Tensor &b = ctx.input(1);
	checkProductType(ctx, a, b);
	ctx.require(a.rank() >= 1 && b.rank() >= 1, "MatMul of a scalar: " + a.describe() + " and " +
							    b.describe());

	/* A vector is a row on the left and a column on the right, then dropped. */
	std::vector<int64_t> aShape = a.shape();
	std::vector<int64_t> bShape = b.shape();
	if (a.rank() == 1)
		aShape.insert(aShape.begin(), 1);
	if (b.rank() == 1)
		bShape.push_back(1);
	const int64_t rows = aShape[aShape.size() - 2];
	const int64_t inner = aShape.back();
	const int64_t cols = bShape.back();
	ctx.require(bShape[bShape.size() - 2] == inner, "MatMul of " + a.describe() + " and " +
								b.describe() + ": inner sizes differ");

	const std::vector<int64_t> aBatch(aShape.begin(), aShape.end() - 2);
	const std::vector<int64_t> bBatch(bShape.begin(), bShape.end() - 2);
	const std::vector<int64_t> batch = broadcastShapes(aBatch, bBatch);
	const std::vector<int64_t> aIndex = broadcastIndex(aBatch, batch);
	const std::vector<int64_t> bIndex = broadcastIndex(bBatch, batch);

	std::vector<int64_t> shape = batch;
	if (a.rank() > 1)
		shape.push_back(rows);
	if (b.rank() > 1)
		shape.push_back(cols);
	Tensor y(a.type(), shape);

	dispatchNumeric(ctx, a.type(), [&](auto zero) {
		using T = decltype(zero);
		std::vector<Accumulator<T>> product(rows * cols);
		T *out = y.data<T>();
		for (size_t i = 0; i < aIndex.size(); i++) {
			multiply<T>(a.data<T>() + aIndex[i] * rows * inner, inner, 1,
				    b.data<T>() + bIndex[i] * inner * cols, cols, 1, rows, inner, cols,
				    product.data());
			for (int64_t j = 0; j < rows * cols; j++)
				out[i * rows * cols + j] = T(product[j]);
		}
	});
	ctx.setOutput(0, std::move(y));
}

void gemm(OpContext &ctx)
{
	const Tensor &a = ctx.input(0);
	const Tensor &b = ctx.input(1);
	checkProductType(ctx, a, b);
	ctx.require(a.rank() == 2 && b.rank() == 2, "Gemm takes matrices, not " + a.describe() +
							     " and " + b.describe());
	const bool transA = ctx.intAttribute("transA", 0);
	const bool transB = ctx.intAttribute("transB", 0);
	const double alpha = ctx.floatAttribute("alpha", 1.0f);
	const double beta = ctx.floatAttribute("beta", 1.0f);
	const int64_t rows = a.shape()[transA ? 1 : 0];
	const int64_t inner = a.shape()[transA ? 0 : 1];
	const int64_t cols = b.shape()[transB ? 0 : 1];
	ctx.require(b.shape()[transB ? 1 : 0] == inner,
		    "Gemm of " + a.describe() + " and " + b.describe() +
			    " (transA " + std::to_string(transA) + ", transB " +
			    std::to_string(transB) + "): inner sizes differ");

	/* C broadcasts to the product, never the reverse. */
	const std::vector<int64_t> shape = { rows, cols };
	const Tensor *c = ctx.hasInput(2) ? &ctx.input(2) : nullptr;
	std::vector<int64_t> cIndex;
	if (c) {
		ctx.require(c->type() == a.type() && c->rank() <= 2 &&
				    broadcastShapes(c->shape(), shape) == shape,
			    "C " + c->describe() + " does not broadcast to the product " +
				    shapeString(shape));
		cIndex = broadcastIndex(c->shape(), shape);
	}

	Tensor y(a.type(), shape);
	dispatchNumeric(ctx, a.type(), [&](auto zero) {
		using T = decltype(zero);
		std::vector<Accumulator<T>> product(rows * cols);
		multiply<T>(a.data<T>(), transA ? 1 : inner, transA ? rows : 1, b.data<T>(),
			    transB ? 1 : cols, transB ? inner : 1, rows, inner, cols, product.data());
		T *out = y.data<T>();
		const bool exact = std::is_integral_v<T> && alpha == 1 && beta == 1;
		for (int64_t i = 0; i < rows * cols; i++) {
			if (exact) {
				/* Integers without scaling stay exact (wrapping). */
				out[i] = T(product[i] + (c ? Accumulator<T>(c->data<T>()[cIndex[i]]) : 0));
				continue;
			}
			double value;
			if constexpr (std::is_integral_v<T>)
				value = alpha * double(T(product[i]));
			else
				value = alpha * product[i];
			if (c)
				value += beta * double(c->data<T>()[cIndex[i]]);
			/* Integers scaled are rounded and saturated. */
			storeFromDouble(y, i, value);
		}
	});
	ctx.setOutput(0, std::move(y));
}

} /* namespace */

void registerMatMulOps(OpRegistry &registry)
{
	registry.add("MatMul", matMul);
	registry.add("Gemm", gemm);
}

} /* namespace vdla::onnx */
