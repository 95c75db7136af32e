/* SPDX-License-Identifier: MIT */
/*
 * Operators that read or write elements at positions an indices tensor
 * gives: Gather, GatherElements, GatherND, Scatter, ScatterElements,
 * ScatterND. Indices may be negative (counted from the end) and are checked.
 */

#include "elementwise_ops.h"
#include "shape_ops.h"

#include <cerrno>
#include <cstring>

namespace vdla::onnx {

namespace {

/* An index into `dim` elements, negative from the end; OpError if out of range. */
int64_t checkedIndex(const OpContext &ctx, int64_t index, int64_t dim)
{
	if (index < -dim || index >= dim)
		throw OpError(EINVAL, ctx.node().opType + ": index " + std::to_string(index) +
					      " is out of range for a dimension of " +
					      std::to_string(dim));
	return index < 0 ? index + dim : index;
}

void gather(OpContext &ctx)
{
	const Tensor &data = ctx.input(0);
	const Tensor &indicesInput = ctx.input(1);
	const int64_t rank = data.rank();
	ctx.require(rank > 0, "Gather from a scalar");
	const int64_t axis = normaliseAxis(ctx, ctx.intAttribute("axis", 0), rank);
	std::vector<int64_t> indices = toInt64s(ctx, indicesInput);
	const int64_t dim = data.shape()[axis];
	for (int64_t &index : indices)
		index = checkedIndex(ctx, index, dim);

	std::vector<int64_t> shape(data.shape().begin(), data.shape().begin() + axis);
	shape.insert(shape.end(), indicesInput.shape().begin(), indicesInput.shape().end());
	shape.insert(shape.end(), data.shape().begin() + axis + 1, data.shape().end());
	Tensor out(data.type(), shape);
	if (!out.elements()) {
		ctx.setOutput(0, std::move(out));
		return;
	}

	const int64_t outer = dimsProduct(data.shape(), 0, axis);
	const size_t inner = dimsProduct(data.shape(), axis + 1, rank) * dataTypeSize(data.type());
	const uint8_t *src = static_cast<const uint8_t *>(data.raw());
	uint8_t *dst = static_cast<uint8_t *>(out.raw());
	for (int64_t o = 0; o < outer; o++) {
		for (int64_t index : indices) {
			std::memcpy(dst, src + (o * dim + index) * inner, inner);
			dst += inner;
		}
	}
	ctx.setOutput(0, std::move(out));
}

/*
 * GatherElements and ScatterElements: indices of the rank of data, no
 * larger than data along the other axes. Returns the axis.
 */
int64_t checkElementIndices(const OpContext &ctx, const Tensor &data, const Tensor &indices)
{
	const int64_t rank = data.rank();
	ctx.require(rank > 0, ctx.node().opType + " of a scalar");
	const int64_t axis = normaliseAxis(ctx, ctx.intAttribute("axis", 0), rank);
	bool fits = int64_t(indices.rank()) == rank;
	for (int64_t d = 0; fits && d < rank; d++)
		fits = d == axis || indices.shape()[d] <= data.shape()[d];
	ctx.require(fits, ctx.node().opType + ": indices " + indices.describe() +
				  " do not fit data " + data.describe());
	return axis;
}

/*
 * For each element n (row-major) of indices, the element of data at the
 * same position except along axis, where the index replaces it.
 */
std::vector<int64_t> elementTargets(const OpContext &ctx, const Tensor &data,
				    const Tensor &indicesInput, int64_t axis)
{
	std::vector<int64_t> indices = toInt64s(ctx, indicesInput);
	const std::vector<int64_t> &shape = indicesInput.shape();
	const std::vector<int64_t> dataStrides = stridesOf(data.shape());
	const int64_t dim = data.shape()[axis];
	std::vector<int64_t> pos(shape.size(), 0);
	int64_t offset = 0;
	for (size_t n = 0; n < indices.size(); n++) {
		indices[n] = offset + checkedIndex(ctx, indices[n], dim) * dataStrides[axis];
		for (size_t d = shape.size(); d-- > 0;) {
			pos[d]++;
			if (d != size_t(axis))
				offset += dataStrides[d];
			if (pos[d] < shape[d])
				break;
			if (d != size_t(axis))
				offset -= dataStrides[d] * pos[d];
			pos[d] = 0;
		}
	}
	return indices;
}

void gatherElements(OpContext &ctx)
{
	const Tensor &data = ctx.input(0);
	const Tensor &indices = ctx.input(1);
	const int64_t axis = checkElementIndices(ctx, data, indices);
	std::vector<int64_t> targets = elementTargets(ctx, data, indices, axis);
	Tensor out(data.type(), indices.shape());
	const size_t size = dataTypeSize(data.type());
	const uint8_t *src = static_cast<const uint8_t *>(data.raw());
	uint8_t *dst = static_cast<uint8_t *>(out.raw());
	for (size_t n = 0; n < targets.size(); n++)
		std::memcpy(dst + n * size, src + targets[n] * size, size);
	ctx.setOutput(0, std::move(out));
}

/*
 * GatherND and ScatterND: the last dimension of indices holds k coordinates
 * into data after its first batchDims dimensions. Returns, for each tuple
 * of indices, the first element of data it selects.
 */
std::vector<int64_t> tupleTargets(const OpContext &ctx, const Tensor &data,
				  const Tensor &indicesInput, int64_t batchDims)
{
	const std::vector<int64_t> &ishape = indicesInput.shape();
	const int64_t rank = data.rank();
	const int64_t irank = ishape.size();
	ctx.require(irank >= 1 && batchDims >= 0 && batchDims < std::min(irank, rank),
		    ctx.node().opType + ": indices " + indicesInput.describe() +
			    " do not fit data " + data.describe());
	const int64_t k = ishape.back();
	bool fits = k >= 0 && k <= rank - batchDims;
	for (int64_t d = 0; fits && d < batchDims; d++)
		fits = ishape[d] == data.shape()[d];
	ctx.require(fits, ctx.node().opType + ": indices " + indicesInput.describe() +
				  " do not fit data " + data.describe());

	std::vector<int64_t> indices = toInt64s(ctx, indicesInput);
	const std::vector<int64_t> strides = stridesOf(data.shape());
	const int64_t batchStride = dimsProduct(data.shape(), batchDims, rank);
	const int64_t perBatch = dimsProduct(ishape, batchDims, irank - 1);
	std::vector<int64_t> targets(dimsProduct(ishape, 0, irank - 1));
	for (size_t t = 0; t < targets.size(); t++) {
		int64_t at = (t / perBatch) * batchStride;
		for (int64_t j = 0; j < k; j++)
			at += checkedIndex(ctx, indices[t * k + j], data.shape()[batchDims + j]) *
			      strides[batchDims + j];
		targets[t] = at;
	}
	return targets;
}

void gatherND(OpContext &ctx)
{
	const Tensor &data = ctx.input(0);
	const Tensor &indices = ctx.input(1);
	const int64_t batchDims = ctx.intAttribute("batch_dims", 0);
	std::vector<int64_t> targets = tupleTargets(ctx, data, indices, batchDims);

	const int64_t k = indices.shape().back();
	std::vector<int64_t> shape(indices.shape().begin(), indices.shape().end() - 1);
	shape.insert(shape.end(), data.shape().begin() + batchDims + k, data.shape().end());
	Tensor out(data.type(), shape);
	const size_t slice = dimsProduct(data.shape(), batchDims + k, data.rank()) *
			     dataTypeSize(data.type());
	const size_t size = dataTypeSize(data.type());
	const uint8_t *src = static_cast<const uint8_t *>(data.raw());
	uint8_t *dst = static_cast<uint8_t *>(out.raw());
	for (size_t t = 0; t < targets.size() && slice; t++)
		std::memcpy(dst + t * slice, src + targets[t] * size, slice);
	ctx.setOutput(0, std::move(out));
}

/* Writes count elements of updates into out: replaced, or combined by a reduction. */
using Combiner = void (*)(uint8_t *dst, const uint8_t *src, size_t count);

void replace(uint8_t *dst, const uint8_t *src, size_t bytes)
{
	std::memcpy(dst, src, bytes);
}

/*
 * The reduction attribute of ScatterElements and ScatterND (opset 16):
 * none, add or mul. The combiner of none counts bytes, the others elements.
 * Integers wrap modulo 2^bits (no signed overflow).
 */
Combiner combinerOf(const OpContext &ctx, DataType type, bool *byBytes)
{
	const std::string reduction = ctx.stringAttribute("reduction", "none");
	*byBytes = reduction == "none";
	if (reduction == "none")
		return replace;
	ctx.require(reduction == "add" || reduction == "mul",
		    ctx.node().opType + ": reduction '" + reduction + "' is not none, add or mul");
	Combiner combiner = nullptr;
	dispatchNumeric(ctx, type, [&](auto zero) {
		using T = decltype(zero);
		if (reduction == "add")
			combiner = [](uint8_t *dst, const uint8_t *src, size_t count) {
				T *d = reinterpret_cast<T *>(dst);
				const T *s = reinterpret_cast<const T *>(src);
				for (size_t i = 0; i < count; i++)
					d[i] = wrappingAdd(d[i], s[i]);
			};
		else
			combiner = [](uint8_t *dst, const uint8_t *src, size_t count) {
				T *d = reinterpret_cast<T *>(dst);
				const T *s = reinterpret_cast<const T *>(src);
				for (size_t i = 0; i < count; i++)
					d[i] = wrappingMul(d[i], s[i]);
			};
	});
	return combiner;
}

/* ScatterElements, and Scatter (opset 9 and 10) which is the same without reduction. */
void scatterElements(OpContext &ctx)
{
	const Tensor &data = ctx.input(0);
	const Tensor &indices = ctx.input(1);
	const Tensor &updates = ctx.input(2);
	ctx.require(updates.type() == data.type() && updates.shape() == indices.shape(),
		    ctx.node().opType + ": updates " + updates.describe() + " do not match indices " +
			    indices.describe() + " and data " + data.describe());
	const int64_t axis = checkElementIndices(ctx, data, indices);
	std::vector<int64_t> targets = elementTargets(ctx, data, indices, axis);
	bool byBytes;
	Combiner combine = combinerOf(ctx, data.type(), &byBytes);

	Tensor out = data;
	const size_t size = dataTypeSize(data.type());
	const uint8_t *src = static_cast<const uint8_t *>(updates.raw());
	uint8_t *dst = static_cast<uint8_t *>(out.raw());
	for (size_t n = 0; n < targets.size(); n++)
		combine(dst + targets[n] * size, src + n * size, byBytes ? size : 1);
	ctx.setOutput(0, std::move(out));
}

/* ScatterND: updates of shape indices.shape[:-1] + data.shape[k:]. */
void scatterND(OpContext &ctx)
{
	const Tensor &data = ctx.input(0);
	const Tensor &indices = ctx.input(1);
	const Tensor &updates = ctx.input(2);
	std::vector<int64_t> targets = tupleTargets(ctx, data, indices, 0);
	const int64_t k = indices.shape().back();
	std::vector<int64_t> updateShape(indices.shape().begin(), indices.shape().end() - 1);
	updateShape.insert(updateShape.end(), data.shape().begin() + k, data.shape().end());
	ctx.require(updates.type() == data.type() && updates.shape() == updateShape,
		    "ScatterND: updates " + updates.describe() + " should be " +
			    dataTypeName(data.type()) + shapeString(updateShape));
	bool byBytes;
	Combiner combine = combinerOf(ctx, data.type(), &byBytes);

	Tensor out = data;
	const size_t size = dataTypeSize(data.type());
	const size_t slice = dimsProduct(data.shape(), k, data.rank());
	const uint8_t *src = static_cast<const uint8_t *>(updates.raw());
	uint8_t *dst = static_cast<uint8_t *>(out.raw());
	for (size_t t = 0; t < targets.size() && slice; t++)
		combine(dst + targets[t] * size, src + t * slice * size,
			byBytes ? slice * size : slice);
	ctx.setOutput(0, std::move(out));
}

} /* namespace */

void registerGatherScatterOps(OpRegistry &registry)
{
	registry.add("Gather", gather);
	registry.add("GatherElements", gatherElements);
	registry.add("GatherND", gatherND);
	registry.add("Scatter", scatterElements);
	registry.add("ScatterElements", scatterElements);
	registry.add("ScatterND", scatterND);
}

} /* namespace vdla::onnx */
