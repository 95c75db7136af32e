/* SPDX-License-Identifier: MIT */
/*
 * QLinearConv, QLinearMatMul, ConvInteger and MatMulInteger as the
 * runtime's quantised convolution layer (docs/onnx.md,
 * "INT8 on the DLA"): the DLA computes INT8 only, so a uint8 tensor is held
 * as int8 by subtracting 128 (flipping its top bit), which its zero point
 * follows; the weights' zero point is subtracted once, at plan time, which
 * needs w - w_zero_point within +-255; the multipliers are QLinearConv's own
 * (realMultiplier()). dla_support.cpp asks whether a node fits,
 * dla_segment.cpp builds the layer from the same preparation.
 */
#pragma once

#include "conv_geometry.h"
#include "dla_support.h"

#include <string>
#include <vector>

namespace vdla::onnx {

struct QuantConvLayer {
	ConvGeometry geometry;
	int64_t groups = 1;
	/*
	 * [M, C / groups, KH, KW], w - w_zero_point: within int8, or within
	 * +-255 (uint8 weights with any zero point), which the DLA splits into
	 * two int8 convolutions (docs/onnx.md, "INT8 on the DLA").
	 */
	std::vector<int64_t> weightShape;
	std::vector<int16_t> weights;
	std::vector<int32_t> bias;
	std::vector<float> multipliers;
	/* In the int8 representation (uint8 values less 128). */
	int32_t inputZero = 0;
	int32_t outputZero = 0;
	/* The ONNX types of x and y are uint8 (held as int8 on the DLA). */
	bool inputUnsigned = false;
	bool outputUnsigned = false;
	/* ConvInteger and MatMulInteger: the int32 sums, without bias, multipliers or y. */
	bool sums = false;
};

/* Whether @node is a matrix product run as a 1x1 convolution (QLinearMatMul, MatMulInteger). */
bool isMatMul(const Node &node);
/* Whether @op runs as the quantised convolution: QLinearConv, QLinearMatMul, ConvInteger, MatMulInteger. */
bool convolvesIntegers(const std::string &op);

/*
 * Prepares @node (a QLinearConv or ConvInteger, or a QLinearMatMul or
 * MatMulInteger as a 1x1 convolution over [N, K, 1, 1] whose weights are B
 * transposed) for the DLA: "" and
 * @layer, or why it cannot run there. Needs scales, zero points, weights
 * and bias the plan knows, per-tensor x and y parameters, and 2-D within
 * the hardware's limits.
 */
std::string prepareQuantConv(const Graph &graph, const Node &node, const ShapeMap &shapes,
			     QuantConvLayer &layer);

/* The value the int8 representation holds for a @type value @v. */
inline int32_t asSigned(DataType type, int32_t v)
{
	return type == DataType::Uint8 ? v - 128 : v;
}

} /* namespace vdla::onnx */
