/* SPDX-License-Identifier: MIT */
/*
 * Operators that keep, find or reorder elements by a condition: Compress,
 * NonZero, ReverseSequence, Trilu.
 */

#include "shape_ops.h"

#include <cerrno>
#include <cstring>

namespace vdla::onnx {

namespace {

/*
 * Compress: the slices along axis whose condition is true (the flattened
 * input without an axis). The condition may be shorter than the axis; a
 * true past its end is an error.
 */
void compress(OpContext &ctx)
{
	const Tensor &input = ctx.input(0);
	const Tensor &condition = ctx.input(1);
	ctx.require(condition.type() == DataType::Bool && condition.rank() == 1,
		    "Compress: condition must be a 1-D bool tensor, not " + condition.describe());
	Tensor data = ctx.hasAttribute("axis") ? input : input.reshaped({ input.elements() });
	const int64_t rank = data.rank();
	ctx.require(rank > 0, "Compress of a scalar");
	const int64_t axis = normaliseAxis(ctx, ctx.intAttribute("axis", 0), rank);
	const int64_t dim = data.shape()[axis];

	std::vector<int64_t> kept;
	const bool *keep = condition.data<bool>();
	for (int64_t i = 0; i < condition.elements(); i++) {
		if (!keep[i])
			continue;
		ctx.require(i < dim, "Compress: condition " + condition.describe() +
					     " selects past the " + std::to_string(dim) +
					     " slices of axis " + std::to_string(axis));
		kept.push_back(i);
	}

	std::vector<int64_t> shape = data.shape();
	shape[axis] = kept.size();
	Tensor out(data.type(), shape);
	if (!out.elements()) {
		ctx.setOutput(0, std::move(out));
		return;
	}
	const int64_t outer = dimsProduct(shape, 0, axis);
	const size_t inner = dimsProduct(shape, axis + 1, rank) * dataTypeSize(data.type());
	const uint8_t *src = static_cast<const uint8_t *>(data.raw());
	uint8_t *dst = static_cast<uint8_t *>(out.raw());
	for (int64_t o = 0; o < outer; o++) {
		for (int64_t i : kept) {
			std::memcpy(dst, src + (o * dim + i) * inner, inner);
			dst += inner;
		}
	}
	ctx.setOutput(0, std::move(out));
}

/* Whether element i is not zero; -0.0 is zero, NaN is not. */
bool isNonZero(const Tensor &tensor, int64_t i)
{
	if (tensor.type() == DataType::Float16) {
		uint16_t bits;
		std::memcpy(&bits, static_cast<const uint8_t *>(tensor.raw()) + 2 * i, 2);
		return bits & 0x7fff;
	}
	if (tensor.type() == DataType::Int64 || tensor.type() == DataType::Uint64)
		return static_cast<const uint64_t *>(tensor.raw())[i] != 0;
	return elementAsDouble(tensor, i) != 0;
}

/*
 * NonZero: int64 [rank, count], column j the coordinates of the j-th
 * non-zero element in row-major order. A scalar counts as a 1-D tensor.
 */
void nonZero(OpContext &ctx)
{
	const Tensor &input = ctx.input(0);
	std::vector<int64_t> dims = input.shape();
	if (dims.empty())
		dims.push_back(1);
	const size_t rank = dims.size();

	std::vector<int64_t> found;
	std::vector<int64_t> pos(rank, 0);
	for (int64_t n = 0; n < input.elements(); n++) {
		if (isNonZero(input, n))
			found.insert(found.end(), pos.begin(), pos.end());
		for (size_t d = rank; d-- > 0;) {
			if (++pos[d] < dims[d])
				break;
			pos[d] = 0;
		}
	}

	const int64_t count = found.size() / rank;
	Tensor out(DataType::Int64, { int64_t(rank), count });
	int64_t *o = out.data<int64_t>();
	for (int64_t j = 0; j < count; j++)
		for (size_t d = 0; d < rank; d++)
			o[d * count + j] = found[j * rank + d];
	ctx.setOutput(0, std::move(out));
}

/*
 * ReverseSequence: for each batch entry b, the first sequence_lens[b]
 * steps along time_axis in reverse order, the rest unchanged.
 */
void reverseSequence(OpContext &ctx)
{
	const Tensor &input = ctx.input(0);
	const Tensor &lengthsInput = ctx.input(1);
	ctx.require(input.rank() >= 2, "ReverseSequence needs a tensor of rank 2 or more, not " +
					       input.describe());
	const int64_t batchAxis = ctx.intAttribute("batch_axis", 1);
	const int64_t timeAxis = ctx.intAttribute("time_axis", 0);
	ctx.require((batchAxis == 0 && timeAxis == 1) || (batchAxis == 1 && timeAxis == 0),
		    "ReverseSequence: batch_axis and time_axis must be 0 and 1 in either order");
	const int64_t batch = input.shape()[batchAxis];
	const int64_t steps = input.shape()[timeAxis];
	std::vector<int64_t> lengths = toInt64s(ctx, lengthsInput);
	ctx.require(lengthsInput.rank() == 1 && int64_t(lengths.size()) == batch,
		    "ReverseSequence: sequence_lens " + lengthsInput.describe() +
			    " does not fit the batch of " + input.describe());

	Tensor out = input;
	if (!input.elements()) {
		ctx.setOutput(0, std::move(out));
		return;
	}
	const std::vector<int64_t> strides = stridesOf(input.shape());
	const size_t size = dataTypeSize(input.type());
	const size_t inner = strides[1] * size;
	const uint8_t *src = static_cast<const uint8_t *>(input.raw());
	uint8_t *dst = static_cast<uint8_t *>(out.raw());
	for (int64_t b = 0; b < batch; b++) {
		const int64_t length = lengths[b];
		ctx.require(length >= 0 && length <= steps,
			    "ReverseSequence: sequence length " + std::to_string(length) +
				    " is not in [0, " + std::to_string(steps) + "]");
		for (int64_t t = 0; t < length; t++) {
			const int64_t to = b * strides[batchAxis] + t * strides[timeAxis];
			const int64_t from = b * strides[batchAxis] + (length - 1 - t) * strides[timeAxis];
			std::memcpy(dst + to * size, src + from * size, inner);
		}
	}
	ctx.setOutput(0, std::move(out));
}

/*
 * Trilu: in each matrix of the last two axes, keeps element (i, j) where
 * j - i >= k (upper) or j - i <= k (lower), zeros the others.
 */
void trilu(OpContext &ctx)
{
	const Tensor &input = ctx.input(0);
	const int64_t rank = input.rank();
	ctx.require(rank >= 2, "Trilu needs a tensor of rank 2 or more, not " + input.describe());
	int64_t k = 0;
	if (ctx.hasInput(1)) {
		std::vector<int64_t> values = toInt64s(ctx, ctx.input(1));
		ctx.require(values.size() == 1, "Trilu: k must be one integer");
		k = values[0];
	}
	const bool upper = ctx.intAttribute("upper", 1) != 0;
	const int64_t rows = input.shape()[rank - 2];
	const int64_t cols = input.shape()[rank - 1];
	const int64_t matrices = dimsProduct(input.shape(), 0, rank - 2);
	const size_t size = dataTypeSize(input.type());

	Tensor out = input;
	uint8_t *dst = static_cast<uint8_t *>(out.raw());
	for (int64_t m = 0; m < matrices; m++) {
		for (int64_t i = 0; i < rows; i++) {
			for (int64_t j = 0; j < cols; j++, dst += size) {
				bool keep = upper ? j - i >= k : j - i <= k;
				if (!keep)
					std::memset(dst, 0, size);
			}
		}
	}
	ctx.setOutput(0, std::move(out));
}

} /* namespace */

void registerSelectOps(OpRegistry &registry)
{
	registry.add("Compress", compress);
	registry.add("NonZero", nonZero);
	registry.add("ReverseSequence", reverseSequence);
	registry.add("Trilu", trilu);
}

} /* namespace vdla::onnx */
