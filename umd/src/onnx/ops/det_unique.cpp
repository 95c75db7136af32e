/* SPDX-License-Identifier: MIT */
/* Det (determinants of square matrices) and Unique (distinct elements or slices). */

#include "quant_ops.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <numeric>

namespace vdla::onnx {

namespace {

/* The determinant of an n x n row-major matrix: Gaussian elimination with partial pivoting. */
double determinant(std::vector<double> a, int64_t n)
{
	double det = 1;
	for (int64_t col = 0; col < n; col++) {
		int64_t pivot = col;
		for (int64_t r = col + 1; r < n; r++)
			if (std::fabs(a[r * n + col]) > std::fabs(a[pivot * n + col]))
				pivot = r;
		if (a[pivot * n + col] == 0)
			return 0;
		if (pivot != col) {
			for (int64_t c = 0; c < n; c++)
				std::swap(a[pivot * n + c], a[col * n + c]);
			det = -det;
		}
		const double diagonal = a[col * n + col];
		det *= diagonal;
		for (int64_t r = col + 1; r < n; r++) {
			const double factor = a[r * n + col] / diagonal;
			for (int64_t c = col + 1; c < n; c++)
				a[r * n + c] -= factor * a[col * n + c];
		}
	}
	return det;
}

/* Det: X [*, M, M] float or double gives Y [*]. */
void det(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	ctx.require(x.type() == DataType::Float || x.type() == DataType::Double,
		    "Det takes float or double, not " + x.describe());
	ctx.require(x.rank() >= 2 && x.shape()[x.rank() - 1] == x.shape()[x.rank() - 2],
		    "Det needs square matrices [*, M, M], not " + x.describe());
	const int64_t n = x.shape().back();
	std::vector<int64_t> batchShape(x.shape().begin(), x.shape().end() - 2);
	Tensor y(x.type(), batchShape);
	for (int64_t b = 0; b < y.elements(); b++) {
		std::vector<double> matrix(n * n);
		for (int64_t i = 0; i < n * n; i++)
			matrix[i] = elementAsDouble(x, b * n * n + i);
		storeFromDouble(y, b, determinant(std::move(matrix), n));
	}
	ctx.setOutput(0, std::move(y));
}

/*
 * Unique: X is seen as [outer, L, inner] around `axis` (or flattened to
 * [1, L, 1] without it); the candidates are the L slices, compared element
 * by element in (outer, inner) order. sorted=1 gives them in ascending
 * lexicographic order, sorted=0 in the order they first occur.
 */
template<typename T>
void unique(OpContext &ctx, const Tensor &x, bool hasAxis, int64_t axis, bool sorted)
{
	int64_t outer = 1, length = x.elements(), inner = 1;
	if (hasAxis) {
		length = x.shape()[axis];
		for (int64_t d = 0; d < axis; d++)
			outer *= x.shape()[d];
		for (size_t d = axis + 1; d < x.rank(); d++)
			inner *= x.shape()[d];
	}
	const T *in = x.data<T>();
	auto element = [&](int64_t slice, int64_t k) {
		return in[((k / inner) * length + slice) * inner + k % inner];
	};
	const int64_t sliceSize = outer * inner;
	auto less = [&](int64_t a, int64_t b) {
		for (int64_t k = 0; k < sliceSize; k++) {
			T ea = element(a, k), eb = element(b, k);
			if (ea < eb)
				return true;
			if (eb < ea)
				return false;
		}
		return false;
	};

	/* Stable: each group of equal slices starts with its first occurrence. */
	std::vector<int64_t> order(length);
	std::iota(order.begin(), order.end(), 0);
	std::stable_sort(order.begin(), order.end(), less);
	std::vector<int64_t> firsts;
	std::vector<int64_t> groupOf(length);
	for (size_t i = 0; i < order.size(); i++) {
		if (i == 0 || less(order[i - 1], order[i]))
			firsts.push_back(order[i]);
		groupOf[order[i]] = int64_t(firsts.size()) - 1;
	}
	/* The output position of each group. */
	std::vector<int64_t> position(firsts.size());
	std::iota(position.begin(), position.end(), 0);
	if (!sorted) {
		std::vector<int64_t> byOccurrence(firsts.size());
		std::iota(byOccurrence.begin(), byOccurrence.end(), 0);
		std::sort(byOccurrence.begin(), byOccurrence.end(),
			  [&](int64_t a, int64_t b) { return firsts[a] < firsts[b]; });
		for (size_t p = 0; p < byOccurrence.size(); p++)
			position[byOccurrence[p]] = int64_t(p);
	}
	const int64_t count = int64_t(firsts.size());

	std::vector<int64_t> yShape = { count };
	if (hasAxis) {
		yShape = x.shape();
		yShape[axis] = count;
	}
	Tensor y(x.type(), yShape);
	Tensor indices(DataType::Int64, { count });
	Tensor inverse(DataType::Int64, { length });
	Tensor counts(DataType::Int64, { count });
	T *py = y.data<T>();
	for (int64_t g = 0; g < count; g++) {
		const int64_t p = position[g];
		indices.data<int64_t>()[p] = firsts[g];
		for (int64_t k = 0; k < sliceSize; k++)
			py[((k / inner) * count + p) * inner + k % inner] = element(firsts[g], k);
	}
	for (int64_t i = 0; i < length; i++) {
		inverse.data<int64_t>()[i] = position[groupOf[i]];
		counts.data<int64_t>()[position[groupOf[i]]]++;
	}
	ctx.setOutput(0, std::move(y));
	ctx.setOutput(1, std::move(indices));
	ctx.setOutput(2, std::move(inverse));
	ctx.setOutput(3, std::move(counts));
}

void uniqueKernel(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	const bool hasAxis = ctx.hasAttribute("axis");
	int64_t axis = 0;
	if (hasAxis) {
		ctx.require(x.rank() >= 1, "Unique with an axis needs a tensor of rank 1 or more");
		axis = normaliseAxis(ctx, ctx.intAttribute("axis"), int64_t(x.rank()));
	}
	const bool sorted = ctx.intAttribute("sorted", 1) != 0;
	dispatchNumeric(ctx, x.type(), [&](auto zero) {
		unique<decltype(zero)>(ctx, x, hasAxis, axis, sorted);
	});
}

} /* namespace */

void registerDetUniqueOps(OpRegistry &registry)
{
	registry.add("Det", det);
	registry.add("Unique", uniqueKernel);
}

} /* namespace vdla::onnx */
