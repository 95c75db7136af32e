/* SPDX-License-Identifier: MIT */

#include "dla_quant_conv.h"

#include "ops/quant_ops.h"
#include "ops/shape_ops.h"
#include "tensor_util.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace vdla::onnx {

bool isMatMul(const Node &node)
{
	return node.opType == "QLinearMatMul" || node.opType == "MatMulInteger";
}

bool convolvesIntegers(const std::string &op)
{
	return op == "QLinearConv" || op == "QLinearMatMul" || op == "ConvInteger" ||
	       op == "MatMulInteger";
}

namespace {

/*
 * Where each operand is among the node's inputs: QLinearConv's and
 * QLinearMatMul's (x, x_scale, x_zero_point, w, w_scale, w_zero_point,
 * y_scale, y_zero_point, B), or ConvInteger's and MatMulInteger's (x, w,
 * x_zero_point, w_zero_point), which have no scales, y or bias (kNone).
 */
constexpr size_t kNone = 100;
struct Operands {
	size_t x, xScale, xZero, w, wScale, wZero, yScale, yZero, bias;
};

Operands operandsOf(const Node &node)
{
	if (node.opType == "ConvInteger" || node.opType == "MatMulInteger")
		return { 0, kNone, 2, 1, kNone, 3, kNone, kNone, kNone };
	return { 0, 1, 2, 3, 4, 5, 6, 7, 8 };
}

/* A constant, or a small value the plan knows, which its segment checks at each run. */
const Tensor *constantInput(const Graph &graph, const ShapeMap &shapes, const Node &node,
			    size_t input)
{
	if (input >= node.inputs.size() || node.inputs[input].empty())
		return nullptr;
	return knownValue(graph, shapes, node.inputs[input]);
}

/* The integer values of an int8, uint8 or int32 tensor (whole weights: one pass, no call per element). */
std::vector<int32_t> integers(const Tensor &t)
{
	const int64_t count = t.elements();
	switch (t.type()) {
	case DataType::Int8: {
		const int8_t *values = t.data<int8_t>();
		return std::vector<int32_t>(values, values + count);
	}
	case DataType::Uint8: {
		const uint8_t *values = t.data<uint8_t>();
		return std::vector<int32_t>(values, values + count);
	}
	default: {
		const int32_t *values = t.data<int32_t>();
		return std::vector<int32_t>(values, values + count);
	}
	}
}

bool isQuantType(DataType type)
{
	return type == DataType::Int8 || type == DataType::Uint8;
}

bool validScale(const Tensor &t)
{
	if (t.type() != DataType::Float)
		return false;
	for (int64_t i = 0; i < t.elements(); i++)
		if (!std::isfinite(t.data<float>()[i]) || t.data<float>()[i] <= 0)
			return false;
	return true;
}

/* The output of an accumulator @acc, as the layer computes it (without a Relu). */
int64_t outputOf(int64_t acc, float multiplier, int32_t outputZero)
{
	const double v = double(float(acc) * multiplier);
	const double r = std::clamp(roundHalfToEven(v), -1e6, 1e6);
	return std::clamp<int64_t>(int64_t(r) + outputZero, -128, 127);
}

/*
 * The DLA converts accumulators to float exactly below 2^22 only (docs/onnx.md,
 * "INT8 on the DLA"): each channel's accumulators must stay below (bounded
 * by its weights and bias), or its output saturate there on both sides. The
 * lowering checks the same; checked here too, a node that fails it stays on
 * the CPU alone rather than failing its whole segment.
 */
std::string exactOnTheDla(const QuantConvLayer &layer)
{
	constexpr int64_t kExactLimit = (int64_t(1) << 22) - 1;
	const int64_t outputs = layer.weightShape[0];
	const int64_t perOutput = int64_t(layer.weights.size()) / outputs;
	const int64_t reach = std::max<int64_t>(127 - layer.inputZero, layer.inputZero + 128);
	for (int64_t m = 0; m < outputs; m++) {
		const float multiplier = layer.sums ? 1.0f : layer.multipliers[m];
		if (!std::isfinite(multiplier))
			return "a multiplier that is not finite";
		int64_t magnitude = 0, sum = 0;
		for (int64_t k = 0; k < perOutput; k++) {
			magnitude += std::abs(int64_t(layer.weights[m * perOutput + k]));
			sum += layer.weights[m * perOutput + k];
		}
		const int64_t folded = layer.bias[m] - int64_t(layer.inputZero) * sum;
		if (folded < std::numeric_limits<int32_t>::min() ||
		    folded > std::numeric_limits<int32_t>::max())
			return "the bias with the input zero point's share does not fit 32 bits";
		const int64_t bound = reach * magnitude + std::abs(int64_t(layer.bias[m]));
		/* The CPU kernel refuses an accumulator beyond int32; the DLA would saturate it. */
		if (bound > std::numeric_limits<int32_t>::max())
			return "an accumulator may leave int32, which the CPU kernel refuses";
		/* Sums are written as INT32, never converted to float. */
		if (bound <= kExactLimit || layer.sums)
			continue;
		const int32_t zero = layer.outputZero;
		if (outputOf(kExactLimit, multiplier, zero) !=
			    outputOf(std::numeric_limits<int32_t>::max(), multiplier, zero) ||
		    outputOf(-kExactLimit, multiplier, zero) !=
			    outputOf(std::numeric_limits<int32_t>::min(), multiplier, zero))
			return "an accumulator may reach 2^22, where the DLA's conversion to float "
			       "is not exact, without the output saturating";
	}
	return "";
}

} /* namespace */

std::string prepareQuantConv(const Graph &graph, const Node &node, const ShapeMap &shapes,
			     QuantConvLayer &layer)
{
	const Operands in = operandsOf(node);
	layer.sums = in.yScale == kNone;
	auto x = shapes.find(node.inputs[in.x]);
	if (x == shapes.end() || !isQuantType(x->second.type))
		return "x is not int8 or uint8";
	for (size_t input : { in.xScale, in.w, in.wScale, in.yScale, in.yZero })
		if (input != kNone && !constantInput(graph, shapes, node, input))
			return "scales, zero points or weights the plan does not know (not "
			       "constants, or computed values of more than 64 elements)";
	/* One of 1.0 and an int8 zero for the sums, which have no scales or y. */
	static const Tensor unit = [] {
		Tensor t(DataType::Float, {});
		t.data<float>()[0] = 1.0f;
		return t;
	}();
	static const Tensor noZero(DataType::Int8, {});
	auto known = [&](size_t input, const Tensor &fallback) -> const Tensor & {
		return input == kNone ? fallback : *constantInput(graph, shapes, node, input);
	};
	const Tensor &xScale = known(in.xScale, unit);
	const Tensor &w = known(in.w, unit);
	const Tensor &wScale = known(in.wScale, unit);
	const Tensor &yScale = known(in.yScale, unit);
	const Tensor &yZero = known(in.yZero, noZero);
	const Tensor *xZero = constantInput(graph, shapes, node, in.xZero);
	const Tensor *wZero = constantInput(graph, shapes, node, in.wZero);
	const bool hasXZero = node.inputs.size() > in.xZero && !node.inputs[in.xZero].empty();
	const bool hasWZero = node.inputs.size() > in.wZero && !node.inputs[in.wZero].empty();
	if ((hasXZero && !xZero) || (hasWZero && !wZero))
		return "scales, zero points or weights the plan does not know (not constants, "
		       "or computed values of more than 64 elements)";
	const bool hasBias = in.bias != kNone && node.inputs.size() > in.bias &&
			     !node.inputs[in.bias].empty();
	const Tensor *bias = hasBias ? constantInput(graph, shapes, node, in.bias) : nullptr;
	if (hasBias && !bias)
		return "a bias the plan does not know (not a constant, or a computed value of "
		       "more than 64 elements)";

	/* A matrix product: A [..., K] by B [K, M] is a 1x1 convolution over [N, K, 1, 1]. */
	const bool matMul = isMatMul(node);
	Tensor columns;
	if (matMul) {
		const std::vector<int64_t> &a = x->second.shape;
		if (w.rank() != 2 || a.size() < 2 || a.back() != w.shape()[0])
			return "only " + node.opType + " by a 2-D B runs on the DLA";
		/* A's rows are the layer's batch, a dimension of the DLA's. */
		if (dimsProduct(a, 0, a.size() - 1) > 65535)
			return node.opType + " of more than 65535 rows";
		columns = pointwiseWeights(w, false);
	}
	const Tensor &weights = matMul ? columns : w;
	if (weights.rank() != 4 || !isQuantType(weights.type()) || !isQuantType(yZero.type()))
		return "only 2-D " + node.opType + " with int8 or uint8 weights and output runs on the DLA";
	if (!validScale(xScale) || !validScale(wScale) || !validScale(yScale))
		return "a scale that is not finite and positive";
	const int64_t outputs = weights.shape()[0];
	if (xScale.elements() != 1 || yScale.elements() != 1 || yZero.elements() != 1 ||
	    (xZero && xZero->elements() != 1))
		return "x and y need one scale and zero point each";
	if ((wScale.elements() != 1 && wScale.elements() != outputs) ||
	    (wZero && wZero->elements() != 1 && wZero->elements() != outputs))
		return "w_scale and w_zero_point need 1 or M values";
	if (bias && (bias->type() != DataType::Int32 || bias->elements() != outputs))
		return "B must be int32, one value per output channel";
	if (matMul) {
		layer.geometry.kernel = layer.geometry.strides = layer.geometry.dilations = { 1, 1 };
		layer.geometry.padBegin = layer.geometry.padEnd = { 0, 0 };
		layer.groups = 1;
	} else {
		if (x->second.shape.size() != 4)
			return "only 2-D " + node.opType + " runs on the DLA";
		OpContext ctx(node, graph.opset, {});
		try {
			layer.geometry = convGeometry(ctx, { x->second.shape[2], x->second.shape[3] },
						      { w.shape()[2], w.shape()[3] });
		} catch (const std::exception &e) {
			return e.what();
		}
		const Attribute *group = node.attribute("group");
		layer.groups = group ? group->i : 1;
		if (layer.groups < 1 || x->second.shape[1] % layer.groups ||
		    x->second.shape[1] / layer.groups != w.shape()[1] || outputs % layer.groups)
			return "the groups do not divide the channels";
		const Attribute *kernel = node.attribute("kernel_shape");
		if (kernel &&
		    kernel->ints != std::vector<int64_t>(w.shape().begin() + 2, w.shape().end()))
			return "kernel_shape is not the weights'";
	}
	if (wZero && wZero->type() != w.type())
		return "w_zero_point's type is not w's";
	if (std::string why = convLimitsRefusal(layer.geometry); !why.empty())
		return why;
	if (weights.elements() / outputs > 65536)
		return "more than 65536 weights per output channel (the CONV's limit)";

	const std::vector<int32_t> wValues = integers(weights);
	const std::vector<int32_t> wZeros = wZero ? integers(*wZero) : std::vector<int32_t>{ 0 };
	const int64_t perOutput = weights.elements() / outputs;
	layer.weightShape = weights.shape();
	layer.weights.resize(weights.elements());
	for (int64_t m = 0; m < outputs; m++) {
		const int32_t zero = wZeros[wZeros.size() == 1 ? 0 : m];
		for (int64_t k = 0; k < perOutput; k++) {
			const int32_t v = wValues[m * perOutput + k] - zero;
			if (v < -255 || v > 255)
				return "a weight less its zero point is beyond +-255";
			layer.weights[m * perOutput + k] = int16_t(v);
		}
	}
	layer.bias = bias ? integers(*bias) : std::vector<int32_t>(outputs, 0);
	layer.multipliers.resize(outputs);
	for (int64_t m = 0; m < outputs; m++)
		layer.multipliers[m] = realMultiplier(
			xScale.data<float>()[0],
			wScale.data<float>()[wScale.elements() == 1 ? 0 : m],
			yScale.data<float>()[0]);
	layer.inputUnsigned = x->second.type == DataType::Uint8;
	layer.outputUnsigned = yZero.type() == DataType::Uint8;
	const int32_t xZeroValue = xZero ? integers(*xZero)[0] : 0;
	if (xZero && xZero->type() != x->second.type)
		return "x_zero_point's type is not x's";
	layer.inputZero = asSigned(x->second.type, xZeroValue);
	layer.outputZero = asSigned(yZero.type(), integers(yZero)[0]);
	if (layer.sums) {
		layer.multipliers.clear();
		layer.outputUnsigned = false;
		layer.outputZero = 0;
	}
	return exactOnTheDla(layer);
}

} /* namespace vdla::onnx */
