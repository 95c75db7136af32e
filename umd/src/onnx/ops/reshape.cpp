/* SPDX-License-Identifier: MIT */
/*
 * Operators that give the elements a new shape or a new order: Reshape,
 * Flatten, Squeeze, Unsqueeze, Transpose, Expand, Tile, DepthToSpace,
 * SpaceToDepth. Those that reorder are views of the input (copyView).
 */

#include "shape_ops.h"

#include <algorithm>
#include <cerrno>
#include <cmath>

namespace vdla::onnx {

namespace {

/*
 * Reshape: a 0 copies the input's dimension at the same index (unless
 * allowzero, from opset 14, makes it a real 0) and one -1 takes what is
 * left. Opset 1 gives the shape as an attribute.
 */
void reshape(OpContext &ctx)
{
	const Tensor &data = ctx.input(0);
	std::vector<int64_t> shape;
	if (ctx.opset() < 5) {
		ctx.require(ctx.hasAttribute("shape"), "Reshape needs the attribute 'shape'");
		shape = ctx.intsAttribute("shape");
	} else {
		shape = toInt64s(ctx, ctx.input(1));
		ctx.require(ctx.input(1).rank() == 1, "Reshape: shape must be 1-D, not " +
							      ctx.input(1).describe());
	}
	const bool allowZero = ctx.intAttribute("allowzero", 0) != 0;

	int64_t inferred = -1;
	int64_t known = 1;
	for (size_t i = 0; i < shape.size(); i++) {
		if (shape[i] == 0 && !allowZero) {
			ctx.require(i < data.rank(), "Reshape: shape " + shapeString(shape) +
							     " copies dimension " + std::to_string(i) +
							     " that " + data.describe() + " lacks");
			shape[i] = data.shape()[i];
		}
		if (shape[i] == -1) {
			ctx.require(inferred < 0, "Reshape: shape " + shapeString(shape) +
							  " has more than one -1");
			inferred = i;
			continue;
		}
		ctx.require(shape[i] >= 0, "Reshape: shape " + shapeString(shape) +
						   " has a negative dimension");
		ctx.require(!__builtin_mul_overflow(known, shape[i], &known),
			    "Reshape: shape " + shapeString(shape) + " has too many elements");
	}
	if (inferred >= 0) {
		ctx.require(known != 0 && data.elements() % known == 0,
			    "Reshape: cannot infer the -1 of " + shapeString(shape) + " for " +
				    data.describe());
		shape[inferred] = data.elements() / known;
	} else {
		ctx.require(known == data.elements(), "Reshape: shape " + shapeString(shape) +
							      " does not fit " + data.describe());
	}
	ctx.setOutput(0, data.reshaped(shape));
}

/* Flatten: [d0 ... d(axis-1)] and [d(axis) ... ] each become one dimension. */
void flatten(OpContext &ctx)
{
	const Tensor &data = ctx.input(0);
	const int64_t rank = data.rank();
	/* Unlike Unsqueeze's, a negative axis counts from the input's rank. */
	int64_t axis = ctx.intAttribute("axis", 1);
	ctx.require(axis >= -rank && axis <= rank, "Flatten: axis " + std::to_string(axis) +
							   " is out of range for rank " +
							   std::to_string(rank));
	if (axis < 0)
		axis += rank;
	ctx.setOutput(0, data.reshaped({ dimsProduct(data.shape(), 0, axis),
					 dimsProduct(data.shape(), axis, rank) }));
}

/* The axes, made non-negative, each at most once. */
std::vector<bool> axisSet(const OpContext &ctx, const std::vector<int64_t> &axes, int64_t rank)
{
	std::vector<bool> chosen(rank, false);
	for (int64_t axis : axes) {
		int64_t a = normaliseAxis(ctx, axis, rank);
		ctx.require(a < rank && !chosen[a], ctx.node().opType + ": axes " +
							   shapeString(axes) +
							   " name an axis twice or out of range");
		chosen[a] = true;
	}
	return chosen;
}

/* Squeeze: axes (attribute before opset 13, input from 13) or every 1. */
void squeeze(OpContext &ctx)
{
	const Tensor &data = ctx.input(0);
	const int64_t rank = data.rank();
	bool given;
	std::vector<int64_t> axes = intsInputOrAttribute(ctx, 1, 13, "axes", &given);
	std::vector<bool> chosen(rank, false);
	if (given)
		chosen = axisSet(ctx, axes, rank);
	std::vector<int64_t> shape;
	for (int64_t i = 0; i < rank; i++) {
		int64_t dim = data.shape()[i];
		if (given && chosen[i])
			ctx.require(dim == 1, "Squeeze: axis " + std::to_string(i) + " of " +
						      data.describe() + " is not 1");
		else if (given || dim != 1)
			shape.push_back(dim);
	}
	ctx.setOutput(0, data.reshaped(shape));
}

/* Unsqueeze: the axes are positions in the output. */
void unsqueeze(OpContext &ctx)
{
	const Tensor &data = ctx.input(0);
	bool given;
	std::vector<int64_t> axes = intsInputOrAttribute(ctx, 1, 13, "axes", &given);
	ctx.require(given, "Unsqueeze needs axes");
	const int64_t rank = data.rank() + axes.size();
	std::vector<bool> chosen = axisSet(ctx, axes, rank);
	std::vector<int64_t> shape;
	size_t next = 0;
	for (int64_t i = 0; i < rank; i++)
		shape.push_back(chosen[i] ? 1 : data.shape()[next++]);
	ctx.setOutput(0, data.reshaped(shape));
}

void transpose(OpContext &ctx)
{
	const Tensor &data = ctx.input(0);
	const int64_t rank = data.rank();
	std::vector<int64_t> perm = ctx.intsAttribute("perm");
	if (!ctx.hasAttribute("perm"))
		for (int64_t i = rank; i-- > 0;)
			perm.push_back(i);
	ctx.require(int64_t(perm.size()) == rank, "Transpose: perm " + shapeString(perm) +
							  " does not fit " + data.describe());
	std::vector<bool> seen(rank, false);
	for (int64_t p : perm) {
		ctx.require(p >= 0 && p < rank && !seen[p], "Transpose: perm " + shapeString(perm) +
								    " is not a permutation");
		seen[p] = true;
	}
	std::vector<int64_t> inStrides = stridesOf(data.shape());
	std::vector<int64_t> shape(rank), strides(rank);
	for (int64_t i = 0; i < rank; i++) {
		shape[i] = data.shape()[perm[i]];
		strides[i] = inStrides[perm[i]];
	}
	Tensor out(data.type(), shape);
	copyView(ctx, data, out, shape, strides);
	ctx.setOutput(0, std::move(out));
}

/* Expand: the input broadcast both ways with the shape input. */
void expand(OpContext &ctx)
{
	const Tensor &data = ctx.input(0);
	const Tensor &shapeInput = ctx.input(1);
	ctx.require(shapeInput.rank() == 1, "Expand: shape must be 1-D, not " +
						    shapeInput.describe());
	std::vector<int64_t> requested = toInt64s(ctx, shapeInput);
	checkedElements(ctx, requested, "shape");
	std::vector<int64_t> shape = broadcastShapes(data.shape(), requested);
	checkedElements(ctx, shape, "output shape");

	const size_t offset = shape.size() - data.rank();
	std::vector<int64_t> inStrides = stridesOf(data.shape());
	std::vector<int64_t> strides(shape.size(), 0);
	for (size_t i = offset; i < shape.size(); i++)
		strides[i] = data.shape()[i - offset] == 1 ? 0 : inStrides[i - offset];
	Tensor out(data.type(), shape);
	copyView(ctx, data, out, shape, strides);
	ctx.setOutput(0, std::move(out));
}

/* Tile's repeats per axis: input 1 from opset 6, tiles copies along axis before. */
std::vector<int64_t> tileRepeats(const OpContext &ctx, const Tensor &data)
{
	if (ctx.opset() >= 6) {
		const Tensor &repeatsInput = ctx.input(1);
		std::vector<int64_t> repeats = toInt64s(ctx, repeatsInput);
		ctx.require(repeatsInput.rank() == 1 && repeats.size() == data.rank(),
			    "Tile: repeats " + repeatsInput.describe() + " does not fit " +
				    data.describe());
		return repeats;
	}
	const Tensor &tiles = ctx.input(1);
	const Tensor &axisInput = ctx.input(2);
	ctx.require(tiles.elements() == 1 && axisInput.elements() == 1 &&
			    tiles.type() != DataType::Float16 && axisInput.type() != DataType::Float16,
		    "Tile: tiles and axis must be one number each");
	std::vector<int64_t> repeats(data.rank(), 1);
	const double axis = elementAsDouble(axisInput, 0);
	const double count = elementAsDouble(tiles, 0);
	ctx.require(data.rank() > 0 && axis == std::trunc(axis) && std::fabs(axis) < 4e18 &&
			    count == std::trunc(count) && std::fabs(count) < 4e18,
		    "Tile: tiles and axis must be integers, and the input not a scalar");
	repeats[normaliseAxis(ctx, int64_t(axis), data.rank())] = int64_t(count);
	return repeats;
}

/*
 * Tile: the output, of dimensions repeats[i] * d[i], is read as the view
 * [repeats[0], d[0], repeats[1], d[1], ...] where each repeat has stride 0.
 */
void tile(OpContext &ctx)
{
	const Tensor &data = ctx.input(0);
	std::vector<int64_t> repeats = tileRepeats(ctx, data);
	std::vector<int64_t> inStrides = stridesOf(data.shape());
	std::vector<int64_t> shape, view, strides;
	for (size_t i = 0; i < data.rank(); i++) {
		ctx.require(repeats[i] >= 0, "Tile: repeats " + shapeString(repeats) +
						     " has a negative count");
		view.insert(view.end(), { repeats[i], data.shape()[i] });
		strides.insert(strides.end(), { 0, inStrides[i] });
	}
	checkedElements(ctx, view, "output");
	for (size_t i = 0; i < data.rank(); i++)
		shape.push_back(repeats[i] * data.shape()[i]);
	Tensor out(data.type(), shape);
	copyView(ctx, data, out, view, strides);
	ctx.setOutput(0, std::move(out));
}

/* The [N, C, H, W] input of DepthToSpace and SpaceToDepth, and its blocksize. */
int64_t checkBlocks(const OpContext &ctx, const Tensor &data)
{
	ctx.require(data.rank() == 4, ctx.node().opType + " needs a 4-D input, not " +
					      data.describe());
	int64_t block = ctx.intAttribute("blocksize");
	ctx.require(block > 0, ctx.node().opType + ": blocksize must be positive");
	/* blocksize² divides or multiplies the channels: it must not overflow. */
	checkedMul(ctx, block, block, "blocksize² of blocksize " + std::to_string(block));
	return block;
}

/*
 * DepthToSpace: output [N, C/b², H·b, W·b], read as the view
 * [N, C/b², H, b(i), W, b(j)]. The input channel of (c, i, j) is
 * (i·b + j)·C/b² + c in DCR mode, c·b² + i·b + j in CRD mode.
 */
void depthToSpace(OpContext &ctx)
{
	const Tensor &data = ctx.input(0);
	const int64_t b = checkBlocks(ctx, data);
	const int64_t n = data.shape()[0], c = data.shape()[1];
	const int64_t h = data.shape()[2], w = data.shape()[3];
	ctx.require(c % (b * b) == 0, "DepthToSpace: the channels of " + data.describe() +
					      " are not a multiple of blocksize²");
	const std::string mode = ctx.stringAttribute("mode", "DCR");
	ctx.require(mode == "DCR" || mode == "CRD", "DepthToSpace: mode '" + mode +
							    "' is neither DCR nor CRD");
	const int64_t depth = c / (b * b);
	const int64_t plane = h * w;
	std::vector<int64_t> view = { n, depth, h, b, w, b };
	std::vector<int64_t> strides;
	if (mode == "DCR")
		strides = { c * plane, plane, w, b * depth * plane, 1, depth * plane };
	else
		strides = { c * plane, b * b * plane, w, b * plane, 1, plane };
	Tensor out(data.type(), { n, depth, checkedMul(ctx, h, b, "the output height"),
				  checkedMul(ctx, w, b, "the output width") });
	copyView(ctx, data, out, view, strides);
	ctx.setOutput(0, std::move(out));
}

/*
 * SpaceToDepth: output [N, C·b², H/b, W/b], read as the view
 * [N, b(i), b(j), C, H/b, W/b]: output channel (i·b + j)·C + c holds the
 * input's pixel (h·b + i, w·b + j) of channel c.
 */
void spaceToDepth(OpContext &ctx)
{
	const Tensor &data = ctx.input(0);
	const int64_t b = checkBlocks(ctx, data);
	const int64_t n = data.shape()[0], c = data.shape()[1];
	const int64_t h = data.shape()[2], w = data.shape()[3];
	ctx.require(h % b == 0 && w % b == 0, "SpaceToDepth: the height and width of " +
						      data.describe() +
						      " are not multiples of blocksize");
	std::vector<int64_t> view = { n, b, b, c, h / b, w / b };
	std::vector<int64_t> strides = { c * h * w, w, 1, h * w, b * w, b };
	Tensor out(data.type(), { n, checkedMul(ctx, c, b * b, "the output channels"), h / b, w / b });
	copyView(ctx, data, out, view, strides);
	ctx.setOutput(0, std::move(out));
}

} /* namespace */

void registerReshapeOps(OpRegistry &registry)
{
	registry.add("Reshape", reshape);
	registry.add("Flatten", flatten);
	registry.add("Squeeze", squeeze);
	registry.add("Unsqueeze", unsqueeze);
	registry.add("Transpose", transpose);
	registry.add("Expand", expand);
	registry.add("Tile", tile);
	registry.add("DepthToSpace", depthToSpace);
	registry.add("SpaceToDepth", spaceToDepth);
}

} /* namespace vdla::onnx */
