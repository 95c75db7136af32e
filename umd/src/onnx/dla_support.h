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
#include <string>

namespace vdla::onnx {

/* Every value's element type and shape, known once the inputs are bound. */
struct ValueShape {
	DataType type;
	std::vector<int64_t> shape;
};
using ShapeMap = std::map<std::string, ValueShape>;

struct ConvGeometry;

/* "" if a convolution of geometry @g is within the CONV's limits
 * (docs/hw-spec.md); otherwise which it passes. */
std::string convLimitsRefusal(const ConvGeometry &g);

/* "" if the DLA runs @node with these shapes; otherwise why it does not. */
std::string dlaRefusal(const Graph &graph, const Node &node, const ShapeMap &shapes);

} /* namespace vdla::onnx */
