/* SPDX-License-Identifier: MIT */
/*
 * Which nodes the vDLA runs (docs/onnx.md, "Targets"). A node goes to the
 * DLA when the runtime's neural-network layers (the OpenVX layers whose
 * lowering the graph engine shares) express it exactly; otherwise the
 * refusal says why, for `--target dla` to report.
 */
#pragma once

#include "graph.h"

#include <map>
#include <optional>
#include <string>

namespace vdla::onnx {

/* Every value's element type and shape, known once the inputs are bound. */
struct ValueShape {
	DataType type;
	std::vector<int64_t> shape;
	/*
	 * The value itself when the plan's run computed it and it has a few
	 * elements (a Reshape's shape, a Slice's starts, a scale): what a DLA
	 * segment reads parameters from, and checks again at each run.
	 */
	std::optional<Tensor> value = std::nullopt;
};
using ShapeMap = std::map<std::string, ValueShape>;

struct ConvGeometry;

/* "" if a convolution of geometry @g is within the CONV's limits
 * (docs/hw-spec.md); otherwise which it passes. */
std::string convLimitsRefusal(const ConvGeometry &g);

/*
 * Whether @op only moves data (RUBIK on the DLA): Reshape, Flatten,
 * Squeeze, Unsqueeze, Identity, Transpose, Slice, Split, Concat,
 * DepthToSpace, SpaceToDepth.
 */
bool movesData(const std::string &op);
/* Whether @op's output is its input's bytes under another shape. */
bool renamesData(const std::string &op);

/*
 * The value @name as the plan knows it: a constant, or a small value the
 * plan's run computed (ValueShape::value); nullptr otherwise.
 */
const Tensor *knownValue(const Graph &graph, const ShapeMap &shapes, const std::string &name);

/*
 * Softmax of @shape as the rows it normalises: @outer groups of @length
 * elements @inner apart (each opset's axis rule), which the DLA's softmax
 * layer reads as [N, C, H, W] = [outer, length, 1, inner].
 */
struct SoftmaxRows {
	int64_t outer, length, inner;
};
SoftmaxRows softmaxRows(const Node &node, int64_t opset, const std::vector<int64_t> &shape);

/*
 * A DequantizeLinear of x of @shape as the DLA's layer reads it, [N, C, H,
 * W] with C the axis of a per-axis scale: x's own shape when that works,
 * else [before the axis, the axis, 1, after it]; empty when a dimension
 * passes 65535.
 */
std::vector<int64_t> dequantizeShape(const Node &node, const std::vector<int64_t> &shape,
				     bool perAxis);

/* "" if the DLA runs @node with these shapes; otherwise why it does not. */
std::string dlaRefusal(const Graph &graph, const Node &node, const ShapeMap &shapes);

} /* namespace vdla::onnx */
