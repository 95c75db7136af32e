/* SPDX-License-Identifier: MIT */
/* Softmax, LogSoftmax and Hardmax, in both of their opset forms. */

#include "nn_ops.h"

#include <cmath>

namespace vdla::onnx {

namespace {

enum class Kind { Softmax, LogSoftmax, Hardmax };

/*
 * The rows the operator works along: `outer` rows of `length` elements,
 * element j of a row `stride` apart, rows starting at (o / stride) * length
 * * stride + o % stride.
 */
struct Rows {
	int64_t outer;
	int64_t length;
	int64_t stride;
};

Rows rowsOf(const OpContext &ctx, const Tensor &x)
{
	const int64_t rank = x.rank();
	const auto &shape = x.shape();
	Rows rows;
	if (ctx.opset() < 13) {
		/*
		 * Before opset 13 the input is coerced to a matrix at axis
		 * (default 1): each row is everything from axis on.
		 */
		const int64_t axis = normaliseAxis(ctx, ctx.intAttribute("axis", 1), rank);
		rows.outer = shapeProduct(shape, 0, axis);
		rows.length = shapeProduct(shape, axis, rank);
		rows.stride = 1;
	} else {
		const int64_t axis = normaliseAxis(ctx, ctx.intAttribute("axis", -1), rank);
		rows.length = rank ? shape[axis] : 1;
		rows.stride = shapeProduct(shape, axis + 1, rank);
		rows.outer = shapeProduct(shape, 0, axis) * rows.stride;
	}
	return rows;
}

template<typename T>
void normaliseRow(const T *in, T *out, int64_t length, int64_t stride, Kind kind)
{
	int64_t best = 0;
	for (int64_t j = 1; j < length; j++)
		if (in[j * stride] > in[best * stride])
			best = j;
	if (kind == Kind::Hardmax) {
		/* The first maximum gets the 1. */
		for (int64_t j = 0; j < length; j++)
			out[j * stride] = T(j == best ? 1 : 0);
		return;
	}

	/* Shifted by the maximum so that exp does not overflow. */
	const double max = in[best * stride];
	double sum = 0;
	for (int64_t j = 0; j < length; j++)
		sum += std::exp(double(in[j * stride]) - max);
	for (int64_t j = 0; j < length; j++) {
		const double shifted = double(in[j * stride]) - max;
		out[j * stride] = T(kind == Kind::Softmax ? std::exp(shifted) / sum
							   : shifted - std::log(sum));
	}
}

void softmaxLike(OpContext &ctx, Kind kind)
{
	const Tensor &x = ctx.input(0);
	const Rows rows = rowsOf(ctx, x);
	Tensor y(x.type(), x.shape());
	if (x.elements()) {
		dispatchFloat(ctx, x.type(), [&](auto zero) {
			using T = decltype(zero);
			for (int64_t o = 0; o < rows.outer; o++) {
				const int64_t start = o / rows.stride * rows.length * rows.stride +
						      o % rows.stride;
				normaliseRow(x.data<T>() + start, y.data<T>() + start, rows.length,
					     rows.stride, kind);
			}
		});
	}
	ctx.setOutput(0, std::move(y));
}

} /* namespace */

void registerSoftmaxOps(OpRegistry &registry)
{
	registry.add("Softmax", [](OpContext &ctx) { softmaxLike(ctx, Kind::Softmax); });
	registry.add("LogSoftmax", [](OpContext &ctx) { softmaxLike(ctx, Kind::LogSoftmax); });
	registry.add("Hardmax", [](OpContext &ctx) { softmaxLike(ctx, Kind::Hardmax); });
}

} /* namespace vdla::onnx */
