/* SPDX-License-Identifier: MIT */
/*
 * Integer matrix products with numpy matmul semantics (a 1-D operand is a
 * row or a column, batch dimensions broadcast): MatMulInteger (int32 out)
 * and QLinearMatMul (requantised to int8 or uint8).
 */

#include "quant_ops.h"

#include <cerrno>
#include <limits>

namespace vdla::onnx {

namespace {

/*
 * One operand of the product as [batch..., rows, cols]. `paramShape` is
 * the shape its per-row (a) or per-column (b) parameters broadcast to: a's
 * shape with the K axis made 1.
 */
struct Operand {
	const Tensor *tensor;
	std::vector<int64_t> batch;
	int64_t rows;
	int64_t cols;
	std::vector<int64_t> paramShape;
};

Operand operand(const OpContext &ctx, const Tensor &t, bool isLeft, const char *what)
{
	ctx.require(t.rank() >= 1, std::string(what) + " must have at least one dimension");
	Operand op;
	op.tensor = &t;
	const std::vector<int64_t> &s = t.shape();
	if (t.rank() == 1) {
		op.rows = isLeft ? 1 : s[0];
		op.cols = isLeft ? s[0] : 1;
		op.paramShape = { 1 };
		return op;
	}
	op.batch.assign(s.begin(), s.end() - 2);
	op.rows = s[s.size() - 2];
	op.cols = s[s.size() - 1];
	op.paramShape = s;
	op.paramShape[isLeft ? s.size() - 1 : s.size() - 2] = 1;
	return op;
}

/*
 * For each per-row (a) or per-column (b) slot of the operand, the index of
 * its value in a zero point or scale tensor: a single value for the
 * tensor; for a, M values ([M], or [..., M, 1]); for b, N values ([N], or
 * [..., 1, N]).
 */
std::vector<int64_t> paramIndex(const OpContext &ctx, const Operand &op, size_t input,
				bool isLeft, const char *what)
{
	int64_t slots = 1;
	for (int64_t d : op.paramShape)
		slots *= d;
	if (!ctx.hasInput(input) || ctx.input(input).elements() == 1)
		return std::vector<int64_t>(slots, 0);
	std::vector<int64_t> shape = ctx.input(input).shape();
	/* A 1-D per-row vector of a is a column [M, 1]. */
	if (isLeft && shape.size() == 1)
		shape.push_back(1);
	/* It must broadcast to paramShape without enlarging it. */
	bool fits = shape.size() <= op.paramShape.size();
	for (size_t i = 0; fits && i < shape.size(); i++) {
		int64_t target = op.paramShape[op.paramShape.size() - shape.size() + i];
		fits = shape[i] == target || shape[i] == 1;
	}
	ctx.require(fits, std::string(what) + " " + ctx.input(input).describe() +
				  " is neither a single value nor one per " +
				  (isLeft ? "row of a" : "column of b"));
	return broadcastIndex(shape, op.paramShape);
}

/* The operand minus its zero point, exact in int32. */
template<typename T>
std::vector<int32_t> centred(const Operand &op, const std::vector<int32_t> &zeroPoints,
			     const std::vector<int64_t> &slotIndex, bool isLeft)
{
	const Tensor &t = *op.tensor;
	const T *in = t.data<T>();
	std::vector<int32_t> out(t.elements());
	for (int64_t i = 0; i < t.elements(); i++) {
		/* Element i of [batch, rows, cols] has slot (batch, row) in a, (batch, col) in b. */
		int64_t col = i % op.cols;
		int64_t row = (i / op.cols) % op.rows;
		int64_t matrix = i / (op.cols * op.rows);
		int64_t slot = t.rank() == 1 ? 0 : isLeft ? matrix * op.rows + row
							   : matrix * op.cols + col;
		out[i] = int32_t(in[i]) - zeroPoints[slotIndex[slot]];
	}
	return out;
}

/* The int32 product of two centred operands. */
struct Product {
	std::vector<int64_t> shape;
	std::vector<int32_t> sums;
	/* Per output element: its parameter slot in a and in b. */
	std::vector<int64_t> slotA, slotB;
};

Product multiply(const OpContext &ctx, const Operand &a, const std::vector<int32_t> &ca,
		 const Operand &b, const std::vector<int32_t> &cb)
{
	if (a.cols != b.rows)
		throw OpError(EINVAL, "a " + a.tensor->describe() + " and b " + b.tensor->describe() +
					      " do not have the same K");
	std::vector<int64_t> batch = broadcastShapes(a.batch, b.batch);
	/*
	 * The broadcast batch and the products, with a parameter slot of 8
	 * bytes each, are scratch sized before the output: each is checked.
	 */
	int64_t matrices = 1;
	for (int64_t d : batch)
		matrices = checkedMul(ctx, matrices, d, "the broadcast batch " + shapeString(batch));
	checkScratch(ctx, matrices, sizeof(int64_t), "the broadcast batch");
	checkScratch(ctx, checkedMul(ctx, checkedMul(ctx, matrices, a.rows, "the products"), b.cols,
				     "the products"),
		     sizeof(int64_t), "the products");
	std::vector<int64_t> batchA = broadcastIndex(a.batch, batch);
	std::vector<int64_t> batchB = broadcastIndex(b.batch, batch);
	const int64_t m = a.rows, n = b.cols, k = a.cols;

	Product p;
	p.shape = batch;
	if (a.tensor->rank() > 1)
		p.shape.push_back(m);
	if (b.tensor->rank() > 1)
		p.shape.push_back(n);
	p.sums.resize(batchA.size() * m * n);
	p.slotA.resize(p.sums.size());
	p.slotB.resize(p.sums.size());
	for (size_t bi = 0; bi < batchA.size(); bi++) {
		const int32_t *ma = ca.data() + batchA[bi] * m * k;
		const int32_t *mb = cb.data() + batchB[bi] * k * n;
		for (int64_t r = 0; r < m; r++) {
			for (int64_t c = 0; c < n; c++) {
				int64_t sum = 0;
				for (int64_t j = 0; j < k; j++)
					sum += int64_t(ma[r * k + j]) * mb[j * n + c];
				if (sum < std::numeric_limits<int32_t>::min() ||
				    sum > std::numeric_limits<int32_t>::max())
					throw OpError(ENOTSUP, "the int32 accumulator overflows");
				size_t at = (bi * m + r) * n + c;
				p.sums[at] = int32_t(sum);
				p.slotA[at] = a.tensor->rank() == 1 ? 0 : batchA[bi] * m + r;
				p.slotB[at] = b.tensor->rank() == 1 ? 0 : batchB[bi] * n + c;
			}
		}
	}
	return p;
}

/* The operand centred by its zero point (input zeroPointInput). */
std::vector<int32_t> centre(const OpContext &ctx, const Operand &op, size_t zeroPointInput,
			    bool isLeft, const char *what)
{
	std::vector<int32_t> zeroPoints = zeroPointValues(ctx, zeroPointInput, what);
	std::vector<int64_t> index = paramIndex(ctx, op, zeroPointInput, isLeft, what);
	if (op.tensor->type() == DataType::Int8)
		return centred<int8_t>(op, zeroPoints, index, isLeft);
	return centred<uint8_t>(op, zeroPoints, index, isLeft);
}

/* MatMulInteger: inputs A, B, a_zero_point, b_zero_point; output int32. */
void matMulInteger(OpContext &ctx)
{
	const Tensor &ta = ctx.input(0);
	const Tensor &tb = ctx.input(1);
	requireQuantType(ctx, ta, 2, "A");
	requireQuantType(ctx, tb, 3, "B");
	Operand a = operand(ctx, ta, true, "A");
	Operand b = operand(ctx, tb, false, "B");
	std::vector<int32_t> ca = centre(ctx, a, 2, true, "a_zero_point");
	std::vector<int32_t> cb = centre(ctx, b, 3, false, "b_zero_point");
	Product p = multiply(ctx, a, ca, b, cb);
	Tensor y(DataType::Int32, p.shape);
	std::copy(p.sums.begin(), p.sums.end(), y.data<int32_t>());
	ctx.setOutput(0, std::move(y));
}

/*
 * QLinearMatMul: inputs a, a_scale, a_zero_point, b, b_scale, b_zero_point,
 * y_scale, y_zero_point. Output element (row r, column c) is the int32
 * accumulator requantised with (a_scale[r] * b_scale[c]) / y_scale
 * (quant_ops.h, requantise()).
 */
void qlinearMatMul(OpContext &ctx)
{
	const Tensor &ta = ctx.input(0);
	const Tensor &tb = ctx.input(3);
	requireQuantType(ctx, ta, 2, "a");
	requireQuantType(ctx, tb, 5, "b");
	Operand a = operand(ctx, ta, true, "a");
	Operand b = operand(ctx, tb, false, "b");
	std::vector<float> aScale = scaleValues(ctx, 1, "a_scale");
	std::vector<float> bScale = scaleValues(ctx, 4, "b_scale");
	std::vector<float> yScale = scaleValues(ctx, 6, "y_scale");
	ctx.require(yScale.size() == 1, "y_scale must be a single value");
	std::vector<int64_t> aScaleIndex = paramIndex(ctx, a, 1, true, "a_scale");
	std::vector<int64_t> bScaleIndex = paramIndex(ctx, b, 4, false, "b_scale");
	ctx.require(ctx.hasInput(7), "y_zero_point is required");
	const DataType outType = ctx.input(7).type();
	ctx.require(outType == DataType::Int8 || outType == DataType::Uint8,
		    "y_zero_point must be int8 or uint8, not " + ctx.input(7).describe());
	std::vector<int32_t> yZeroPoint = zeroPointValues(ctx, 7, "y_zero_point");
	ctx.require(yZeroPoint.size() == 1, "y_zero_point must be a single value");

	std::vector<int32_t> ca = centre(ctx, a, 2, true, "a_zero_point");
	std::vector<int32_t> cb = centre(ctx, b, 5, false, "b_zero_point");
	Product p = multiply(ctx, a, ca, b, cb);

	Tensor y(outType, p.shape);
	auto store = [&](auto zero) {
		using Q = decltype(zero);
		Q *out = y.data<Q>();
		for (size_t i = 0; i < p.sums.size(); i++) {
			float multiplier = realMultiplier(aScale[aScaleIndex[p.slotA[i]]],
							  bScale[bScaleIndex[p.slotB[i]]], yScale[0]);
			out[i] = requantise<Q>(p.sums[i], multiplier, yZeroPoint[0]);
		}
	};
	if (outType == DataType::Int8)
		store(int8_t{});
	else
		store(uint8_t{});
	ctx.setOutput(0, std::move(y));
}

} /* namespace */

void registerQuantMatMulOps(OpRegistry &registry)
{
	registry.add("MatMulInteger", matMulInteger);
	registry.add("QLinearMatMul", qlinearMatMul);
}

} /* namespace vdla::onnx */
