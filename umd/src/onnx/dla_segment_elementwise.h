/* SPDX-License-Identifier: MIT */
/*
 * Element-wise nodes of a DLA segment: Add, Sub and Mul of float, int8
 * and uint8 tensors and com.microsoft's QLinearAdd (the fused QDQ Add, its Relu a following
 * Max), as libvdla's element-wise layer (nn_elementwise.h, the SDP on the
 * DLA). Broadcasting is the layer's: an operand's dimension of 1 is read
 * with a stride of 0.
 */
#pragma once

#include "dla_segment_moves.h"

#include <optional>

namespace vdla::onnx {

/* Whether @node is one of the element-wise nodes above. */
bool isElementwise(const Node &node);

/*
 * The output and operands of an element-wise node as tensors of one rank
 * of at most 4, each operand's dimensions the output's or 1 (ONNX order,
 * outermost first). Their own shapes when that works; otherwise axes
 * where both operands behave alike merged while their product stays within
 * 65535. std::nullopt when that needs more than four axes, or leaves an
 * operand repeated along four (which the SDP cannot address).
 */
struct ElementwiseShapes {
	std::vector<int64_t> out, a, b;
};
std::optional<ElementwiseShapes> elementwiseShapes(const std::vector<int64_t> &out,
						   const std::vector<int64_t> &a,
						   const std::vector<int64_t> &b);

/* "" if the DLA runs element-wise @node with these shapes; otherwise why not. */
std::string elementwiseRefusal(const Graph &graph, const Node &node, const ShapeMap &shapes);

/* Adds the layer computing element-wise @node (and the Relu it takes). */
void addElementwise(SegmentTensors &segment, const Node &node, const ShapeMap &shapes);

} /* namespace vdla::onnx */
