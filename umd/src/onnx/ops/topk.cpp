/* SPDX-License-Identifier: MIT */
/* TopK: the k largest (or smallest) elements along an axis, and their indices. */

#include "nn_ops.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>

namespace vdla::onnx {

namespace {

/*
 * A strict weak order for "comes first": larger (or smaller) values first,
 * NaN before every number when largest and after every number otherwise,
 * and equal values by their lower index.
 */
template<typename T>
struct Before {
	const T *row;
	int64_t stride;
	bool largest;

	bool operator()(int64_t a, int64_t b) const
	{
		const T x = row[a * stride];
		const T y = row[b * stride];
		if constexpr (std::is_floating_point_v<T>) {
			if (std::isnan(x) || std::isnan(y)) {
				if (std::isnan(x) && std::isnan(y))
					return a < b;
				return std::isnan(x) == largest;
			}
		}
		if (x != y)
			return largest ? x > y : x < y;
		return a < b;
	}
};

int64_t kOf(const OpContext &ctx)
{
	if (ctx.opset() < 10)
		return ctx.intAttribute("k");
	const Tensor &k = ctx.input(1);
	ctx.require(k.type() == DataType::Int64 && k.elements() == 1 && k.rank() <= 1,
		    "input K " + k.describe() + " is not one int64");
	return k.data<int64_t>()[0];
}

void topK(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	const int64_t rank = x.rank();
	ctx.require(rank >= 1, "input X " + x.describe() + " has no axis");
	const int64_t axis = normaliseAxis(ctx, ctx.intAttribute("axis", -1), rank);
	const int64_t k = kOf(ctx);
	const int64_t length = x.shape()[axis];
	ctx.require(k >= 0 && k <= length, "K " + std::to_string(k) + " is not within the " +
						   std::to_string(length) + " elements of axis " +
						   std::to_string(axis));
	const bool largest = ctx.intAttribute("largest", 1) != 0;
	/* sorted = 0 leaves the order free: the sorted order is one of them. */

	std::vector<int64_t> shape = x.shape();
	shape[axis] = k;
	Tensor values(x.type(), shape);
	Tensor indices(DataType::Int64, shape);
	const int64_t stride = shapeProduct(x.shape(), axis + 1, rank);
	const int64_t outer = shapeProduct(x.shape(), 0, axis) * stride;
	dispatchNumeric(ctx, x.type(), [&](auto zero) {
		using T = decltype(zero);
		std::vector<int64_t> order(length);
		for (int64_t o = 0; o < outer && k > 0; o++) {
			const int64_t base = o / stride * length * stride + o % stride;
			const int64_t outBase = o / stride * k * stride + o % stride;
			const T *row = x.data<T>() + base;
			std::iota(order.begin(), order.end(), 0);
			std::partial_sort(order.begin(), order.begin() + k, order.end(),
					  Before<T>{ row, stride, largest });
			for (int64_t j = 0; j < k; j++) {
				values.data<T>()[outBase + j * stride] = row[order[j] * stride];
				indices.data<int64_t>()[outBase + j * stride] = order[j];
			}
		}
	});
	ctx.setOutput(0, std::move(values));
	ctx.setOutput(1, std::move(indices));
}

} /* namespace */

void registerTopKOps(OpRegistry &registry)
{
	registry.add("TopK", topK);
}

} /* namespace vdla::onnx */
