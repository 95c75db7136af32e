/* SPDX-License-Identifier: MIT */
/*
 * The operators that move, select or reshape data (ops/shape.cpp and its
 * sibling files), and the helpers they share. These kernels copy elements
 * as bytes, whatever their type, so that every element type works alike.
 */
#pragma once

#include "../tensor_util.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vdla::onnx {


/*
 * The element count of a shape the kernel is about to create; OpError
 * (EINVAL) naming `what` for a negative dimension or a count that overflows.
 */
int64_t checkedElements(const OpContext &ctx, const std::vector<int64_t> &shape,
			const std::string &what);

/*
 * Fills `out` in row-major order of `view`, a shape of as many elements as
 * `out`: the element at position p of the view is element
 * base + sum(p[i] * strides[i]) of `in`. Strides may be zero (repeat) or
 * negative (reverse). Transpose, Slice, Expand, Tile and the depth/space
 * rearrangements are all such views. OpError if the view leaves `in`.
 */
void copyView(const OpContext &ctx, const Tensor &in, Tensor &out,
	      const std::vector<int64_t> &view, const std::vector<int64_t> &strides,
	      int64_t base = 0);

/* The product of dims [from, to): elements per index of an axis, or before it. */
int64_t dimsProduct(const std::vector<int64_t> &dims, size_t from, size_t to);

/*
 * The integers of an optional input (int32 or int64) from opset `since`, or
 * of the attribute of the same role before it. `present` tells whether
 * either was given.
 */
std::vector<int64_t> intsInputOrAttribute(const OpContext &ctx, size_t input,
					  int64_t since, const char *attribute,
					  bool *present = nullptr);

/*
 * Where a Slice of a tensor of @shape starts on each axis, its step (1 on
 * the axes it leaves whole) and how many elements it takes: the output's
 * dimension. Reads the starts, ends, axes and steps of @ctx (attributes
 * before opset 10, inputs 1 to 4 from it); input 0 is not read.
 */
struct SliceAxes {
	std::vector<int64_t> start, step, count;
};
SliceAxes sliceAxes(const OpContext &ctx, const std::vector<int64_t> &shape);

/* Registered from registerShapeOps(). */
void registerReshapeOps(OpRegistry &registry);
void registerSlicePadOps(OpRegistry &registry);
void registerGatherScatterOps(OpRegistry &registry);
void registerSelectOps(OpRegistry &registry);
void registerGenerateOps(OpRegistry &registry);

} /* namespace vdla::onnx */
