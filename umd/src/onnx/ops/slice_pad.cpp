/* SPDX-License-Identifier: MIT */
/*
 * Operators that cut tensors apart, join them or frame them: Concat, Split,
 * Slice, Pad.
 */

#include "shape_ops.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

namespace vdla::onnx {

namespace {

/* Concat: every input of the same rank and dimensions but along axis. */
void concat(OpContext &ctx)
{
	ctx.require(ctx.inputCount() > 0, "Concat needs at least one input");
	const Tensor &first = ctx.input(0);
	const int64_t rank = first.rank();
	ctx.require(rank > 0, "Concat of scalars");
	/* Opset 1 concatenates along axis 1 by default; later opsets need the attribute. */
	int64_t axis = ctx.opset() < 4 ? ctx.intAttribute("axis", 1) : ctx.intAttribute("axis");
	axis = normaliseAxis(ctx, axis, rank);

	std::vector<int64_t> shape = first.shape();
	shape[axis] = 0;
	for (size_t k = 0; k < ctx.inputCount(); k++) {
		const Tensor &in = ctx.input(k);
		bool fits = in.type() == first.type() && int64_t(in.rank()) == rank;
		for (int64_t i = 0; fits && i < rank; i++)
			fits = i == axis || in.shape()[i] == first.shape()[i];
		ctx.require(fits, "Concat: input " + std::to_string(k) + " " + in.describe() +
					  " does not fit input 0 " + first.describe() +
					  " along axis " + std::to_string(axis));
		shape[axis] += in.shape()[axis];
	}

	Tensor out(first.type(), shape);
	const int64_t outer = dimsProduct(shape, 0, axis);
	const size_t inner = dimsProduct(shape, axis + 1, rank) * dataTypeSize(first.type());
	uint8_t *dst = static_cast<uint8_t *>(out.raw());
	for (int64_t o = 0; o < outer; o++) {
		for (size_t k = 0; k < ctx.inputCount(); k++) {
			const Tensor &in = ctx.input(k);
			const size_t block = in.shape()[axis] * inner;
			if (block)
				std::memcpy(dst, static_cast<const uint8_t *>(in.raw()) + o * block, block);
			dst += block;
		}
	}
	ctx.setOutput(0, std::move(out));
}

/*
 * The sizes Split cuts into: the 'split' attribute (opset 2 to 12), the
 * 'split' input (opset 13, or opset 1 besides the attribute), or equal parts.
 */
std::vector<int64_t> splitSizes(const OpContext &ctx, int64_t dim)
{
	const size_t parts = ctx.outputCount();
	ctx.require(parts > 0, "Split needs at least one output");
	const bool fromInput = ctx.opset() >= 13 || (ctx.opset() < 2 && ctx.hasInput(1));
	const bool given = fromInput ? ctx.hasInput(1) : ctx.hasAttribute("split");
	std::vector<int64_t> sizes;
	if (given)
		sizes = fromInput ? toInt64s(ctx, ctx.input(1)) : ctx.intsAttribute("split");
	if (!given) {
		ctx.require(dim % parts == 0, "Split: dimension " + std::to_string(dim) +
						      " does not split into " +
						      std::to_string(parts) + " equal parts");
		return std::vector<int64_t>(parts, dim / parts);
	}
	int64_t total = 0;
	bool valid = sizes.size() == parts;
	for (int64_t size : sizes) {
		valid = valid && size >= 0;
		total += valid ? size : 0;
	}
	ctx.require(valid && total == dim, "Split: split " + shapeString(sizes) + " does not cut " +
						   std::to_string(dim) + " into " +
						   std::to_string(parts) + " parts");
	return sizes;
}

void split(OpContext &ctx)
{
	const Tensor &data = ctx.input(0);
	const int64_t rank = data.rank();
	ctx.require(rank > 0, "Split of a scalar");
	const int64_t axis = normaliseAxis(ctx, ctx.intAttribute("axis", 0), rank);
	std::vector<int64_t> sizes = splitSizes(ctx, data.shape()[axis]);

	const int64_t outer = dimsProduct(data.shape(), 0, axis);
	const size_t inner = dimsProduct(data.shape(), axis + 1, rank) * dataTypeSize(data.type());
	const size_t row = data.shape()[axis] * inner;
	const uint8_t *src = static_cast<const uint8_t *>(data.raw());
	size_t offset = 0;
	for (size_t k = 0; k < sizes.size(); k++) {
		std::vector<int64_t> shape = data.shape();
		shape[axis] = sizes[k];
		Tensor out(data.type(), shape);
		const size_t block = sizes[k] * inner;
		uint8_t *dst = static_cast<uint8_t *>(out.raw());
		for (int64_t o = 0; o < outer && block; o++)
			std::memcpy(dst + o * block, src + o * row + offset, block);
		offset += block;
		ctx.setOutput(k, std::move(out));
	}
}

/* The starts, ends, axes and steps of a Slice, one entry per sliced axis. */
struct SliceRequest {
	std::vector<int64_t> starts, ends, axes, steps;
};

/* Attributes starts, ends, axes in opset 1; inputs 1 to 4 from opset 10. */
SliceRequest sliceRequest(const OpContext &ctx, int64_t rank)
{
	SliceRequest r;
	bool axesGiven, stepsGiven = false;
	if (ctx.opset() < 10) {
		ctx.require(ctx.hasAttribute("starts") && ctx.hasAttribute("ends"),
			    "Slice needs the attributes 'starts' and 'ends'");
		r.starts = ctx.intsAttribute("starts");
		r.ends = ctx.intsAttribute("ends");
		axesGiven = ctx.hasAttribute("axes");
		r.axes = ctx.intsAttribute("axes");
	} else {
		r.starts = toInt64s(ctx, ctx.input(1));
		r.ends = toInt64s(ctx, ctx.input(2));
		axesGiven = ctx.hasInput(3);
		if (axesGiven)
			r.axes = toInt64s(ctx, ctx.input(3));
		stepsGiven = ctx.hasInput(4);
		if (stepsGiven)
			r.steps = toInt64s(ctx, ctx.input(4));
	}
	if (!axesGiven)
		for (size_t i = 0; i < r.starts.size(); i++)
			r.axes.push_back(i);
	if (!stepsGiven)
		r.steps.assign(r.starts.size(), 1);
	const size_t n = r.starts.size();
	ctx.require(r.ends.size() == n && r.axes.size() == n && r.steps.size() == n &&
			    int64_t(n) <= rank,
		    "Slice: starts, ends, axes and steps must have one entry per sliced axis");
	return r;
}

} /* namespace */

/*
 * Slice: per axis, negative starts and ends count from the end, then are
 * clamped to [0, dim] going forward or to [0, dim - 1] and [-1, dim - 1]
 * going backward.
 */
SliceAxes sliceAxes(const OpContext &ctx, const std::vector<int64_t> &shape)
{
	const int64_t rank = shape.size();
	SliceRequest r = sliceRequest(ctx, rank);
	SliceAxes axes{ std::vector<int64_t>(rank, 0), std::vector<int64_t>(rank, 1), shape };
	std::vector<bool> sliced(rank, false);
	for (size_t i = 0; i < r.axes.size(); i++) {
		const int64_t axis = normaliseAxis(ctx, r.axes[i], rank);
		ctx.require(axis < rank && !sliced[axis], "Slice: axes " + shapeString(r.axes) +
								  " repeat an axis or leave the rank");
		sliced[axis] = true;
		const int64_t step = r.steps[i];
		ctx.require(step != 0, "Slice: a step is 0");
		const int64_t dim = shape[axis];
		int64_t start = r.starts[i] < 0 ? r.starts[i] + dim : r.starts[i];
		int64_t end = r.ends[i] < 0 ? r.ends[i] + dim : r.ends[i];
		uint64_t span;
		if (dim == 0) {
			span = 0;
		} else if (step > 0) {
			start = std::clamp<int64_t>(start, 0, dim);
			end = std::clamp<int64_t>(end, 0, dim);
			span = end > start ? end - start : 0;
		} else {
			start = std::clamp<int64_t>(start, 0, dim - 1);
			end = std::clamp<int64_t>(end, -1, dim - 1);
			span = start > end ? start - end : 0;
		}
		/* ceil(span / |step|), without overflow for any step. */
		const uint64_t magnitude = step > 0 ? uint64_t(step) : uint64_t(0) - uint64_t(step);
		axes.count[axis] = span ? (span - 1) / magnitude + 1 : 0;
		axes.start[axis] = start;
		axes.step[axis] = step;
	}
	return axes;
}

namespace {

/* Slice: a view of the input with each step as a stride. */
void slice(OpContext &ctx)
{
	const Tensor &data = ctx.input(0);
	const SliceAxes axes = sliceAxes(ctx, data.shape());
	std::vector<int64_t> inStrides = stridesOf(data.shape());
	std::vector<int64_t> strides(data.rank(), 0);
	int64_t base = 0;
	for (size_t axis = 0; axis < data.rank(); axis++) {
		if (axes.count[axis] > 0)
			base += axes.start[axis] * inStrides[axis];
		if (axes.count[axis] > 1)
			strides[axis] = axes.step[axis] * inStrides[axis];
	}
	Tensor out(data.type(), axes.count);
	copyView(ctx, data, out, axes.count, strides, base);
	ctx.setOutput(0, std::move(out));
}

/* One element of the input's type holding Pad's constant value. */
std::vector<uint8_t> padValue(const OpContext &ctx, const Tensor &data)
{
	const size_t size = dataTypeSize(data.type());
	std::vector<uint8_t> bytes(size, 0);
	if (ctx.opset() < 11) {
		float value = ctx.floatAttribute("value", 0);
		if (value == 0)
			return bytes;
		ctx.require(data.type() != DataType::Float16,
			    "Pad: a float16 tensor with a non-zero value");
		/* Converted as a C cast would: truncated for an integer tensor. */
		const bool floating = data.type() == DataType::Float || data.type() == DataType::Double;
		Tensor one(data.type(), {});
		storeFromDouble(one, 0, floating ? value : std::trunc(value));
		std::memcpy(bytes.data(), one.raw(), size);
	} else if (ctx.hasInput(2)) {
		const Tensor &value = ctx.input(2);
		ctx.require(value.type() == data.type() && value.elements() == 1,
			    "Pad: constant_value " + value.describe() + " must be one element of " +
				    data.describe());
		std::memcpy(bytes.data(), value.raw(), size);
	}
	return bytes;
}

/*
 * For each position along an axis of the padded output, the position in the
 * input it copies, or -1 for the constant. Reflection mirrors around the
 * first and last elements without repeating them, as often as needed.
 */
std::vector<int64_t> padSources(const OpContext &ctx, const std::string &mode, int64_t dim,
				int64_t before, int64_t outDim)
{
	std::vector<int64_t> sources(outDim);
	for (int64_t o = 0; o < outDim; o++) {
		int64_t i = o - before;
		if (i >= 0 && i < dim) {
			sources[o] = i;
			continue;
		}
		if (mode == "constant") {
			sources[o] = -1;
			continue;
		}
		ctx.require(dim > 0, "Pad: mode " + mode + " pads an empty axis");
		if (mode == "edge" || dim == 1) {
			sources[o] = std::clamp<int64_t>(i, 0, dim - 1);
		} else {
			const int64_t period = 2 * (dim - 1);
			int64_t m = ((i % period) + period) % period;
			sources[o] = m < dim ? m : period - m;
		}
	}
	return sources;
}

/*
 * Pad: pads [x1_begin, x2_begin, ..., x1_end, x2_end, ...] as the attribute
 * 'paddings' (opset 1), 'pads' (opset 2) or input 1 (opset 11). Negative
 * pads remove elements.
 */
void pad(OpContext &ctx)
{
	const Tensor &data = ctx.input(0);
	const size_t rank = data.rank();
	const std::string mode = ctx.stringAttribute("mode", "constant");
	ctx.require(mode == "constant" || mode == "reflect" || mode == "edge",
		    "Pad: mode '" + mode + "' is not constant, reflect or edge");
	std::vector<int64_t> pads;
	if (ctx.opset() < 11) {
		const char *name = ctx.opset() < 2 ? "paddings" : "pads";
		ctx.require(ctx.hasAttribute(name), std::string("Pad needs the attribute '") +
							    name + "'");
		pads = ctx.intsAttribute(name);
	} else {
		pads = toInt64s(ctx, ctx.input(1));
		if (ctx.hasInput(3))
			throw OpError(ENOTSUP, "Pad: the axes input (opset 18) is not supported");
	}
	ctx.require(pads.size() == 2 * rank, "Pad: pads " + shapeString(pads) + " do not fit " +
						     data.describe());
	const std::vector<uint8_t> value = padValue(ctx, data);

	std::vector<int64_t> shape(rank);
	for (size_t a = 0; a < rank; a++) {
		int64_t dim = data.shape()[a];
		ctx.require(!__builtin_add_overflow(dim, pads[a], &shape[a]) &&
				    !__builtin_add_overflow(shape[a], pads[a + rank], &shape[a]) &&
				    shape[a] >= 0,
			    "Pad: pads " + shapeString(pads) + " remove more than " +
				    data.describe() + " holds");
	}
	checkedElements(ctx, shape, "output");
	Tensor out(data.type(), shape);
	if (!out.elements() || !rank) {
		if (!rank)
			out = data;
		ctx.setOutput(0, std::move(out));
		return;
	}

	std::vector<std::vector<int64_t>> sources(rank);
	for (size_t a = 0; a < rank; a++)
		sources[a] = padSources(ctx, mode, data.shape()[a], pads[a], shape[a]);
	const std::vector<int64_t> inStrides = stridesOf(data.shape());
	const size_t size = value.size();
	const uint8_t *src = static_cast<const uint8_t *>(data.raw());
	uint8_t *dst = static_cast<uint8_t *>(out.raw());

	/* Row by row along the last axis; a row is constant if any outer axis is. */
	std::vector<int64_t> pos(rank - 1, 0);
	const std::vector<int64_t> &lastSources = sources[rank - 1];
	for (int64_t done = 0; done < out.elements(); done += shape[rank - 1]) {
		int64_t rowBase = 0;
		for (size_t a = 0; a + 1 < rank && rowBase >= 0; a++) {
			int64_t s = sources[a][pos[a]];
			rowBase = s < 0 ? -1 : rowBase + s * inStrides[a];
		}
		for (int64_t o = 0; o < shape[rank - 1]; o++, dst += size) {
			int64_t s = rowBase < 0 ? -1 : lastSources[o];
			std::memcpy(dst, s < 0 ? value.data() : src + (rowBase + s) * size, size);
		}
		for (size_t a = rank - 1; a-- > 0;) {
			if (++pos[a] < shape[a])
				break;
			pos[a] = 0;
		}
	}
	ctx.setOutput(0, std::move(out));
}

} /* namespace */

void registerSlicePadOps(OpRegistry &registry)
{
	registry.add("Concat", concat);
	registry.add("Split", split);
	registry.add("Slice", slice);
	registry.add("Pad", pad);
}

} /* namespace vdla::onnx */
