/* SPDX-License-Identifier: MIT */
/*
 * The nodes of a DLA segment that only move data (dla_support.h,
 * movesData()): libvdla's rearrangement and concatenation layers (RUBIK on
 * the DLA), one per ONNX node, or one per output of a Split. Reshape, Flatten, Squeeze,
 * Unsqueeze and Identity of a value the segment computes are free: the
 * segment builder names the same tensor (dla_segment.cpp); of a segment
 * input, they are a RESHAPE copy, made here.
 */
#pragma once

#include "dla_support.h"

#include <VX/vx.h>

namespace vdla::onnx {

/* What the builders here need from the segment being built. */
class SegmentTensors
{
public:
	virtual ~SegmentTensors() = default;
	virtual vx_graph layerGraph() = 0;
	/*
	 * The tensor of @name with its own ONNX shape: made earlier in the
	 * segment (copied by a RESHAPE when an alias gave it other
	 * dimensions), or a new segment input.
	 */
	virtual vx_tensor shaped(const std::string &name) = 0;
	/* The same as a tensor of @shape, of as many elements. */
	virtual vx_tensor shapedAs(const std::string &name, const std::vector<int64_t> &shape) = 0;
	/* A new tensor for the node output @name, of its shape and type. */
	virtual vx_tensor output(const std::string &name) = 0;
	/* The same with @shape's dimensions, of as many elements (the same bytes). */
	virtual vx_tensor outputAs(const std::string &name, const std::vector<int64_t> &shape) = 0;
	/* The integers of parameter @name, recorded for each run to check (knownValue()). */
	virtual const Tensor &parameter(const std::string &name) = 0;
	/*
	 * Whether the value @name has no elements: nothing to move, and no
	 * tensor (OpenVX's have none empty); the segment then gives it as
	 * such.
	 */
	virtual bool isEmpty(const std::string &name) = 0;
	/*
	 * When the segment's only reader of @value is a Max that is its Relu
	 * (Max(y, y_zero_point), dla_support.cpp), takes that Max into the
	 * layer writing @value: returns the Max's output, which the layer
	 * then writes; "" otherwise.
	 */
	virtual std::string takeRelu(const std::string &value) = 0;
	/* Takes @node into the segment for @onnx, on the DLA; OpError if it failed. */
	virtual void place(vx_node node, const Node &onnx) = 0;
};

/*
 * A Transpose of @shape by @perm (output axis i is input axis perm[i]) as
 * the same movement of fewer axes: axes of one element dropped, and axes
 * that stay next to each other in order merged while their product stays
 * within 65535 (a 6-D permutation that moves three blocks is a 3-D one).
 * At least one axis.
 */
struct TransposeAxes {
	std::vector<int64_t> shape, perm;
};
TransposeAxes fewestAxes(const std::vector<int64_t> &shape, const std::vector<int64_t> &perm);

/* Transpose's perm attribute, or the axes reversed by default. */
std::vector<int64_t> transposePerm(const Node &node, size_t rank);

/* Adds the nodes computing @node, one of movesData()'s. */
void addDataMovement(SegmentTensors &segment, const Graph &graph, const Node &node,
		     const ShapeMap &shapes);

} /* namespace vdla::onnx */
