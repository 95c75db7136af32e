/* SPDX-License-Identifier: MIT */
/*
 * QDQ fusion (docs/onnx.md, "Import" and "Quantisation"): a float operator
 * whose quantised inputs are dequantised just before it and whose output is
 * quantised just after it becomes the integer operator that computes it, as
 * onnxruntime's QDQ transformer does:
 *
 *   DQ(x) -> Conv(DQ(w), [DQ(b)]) -> [Relu] -> Q  =>  QLinearConv -> [Max(y, y_zero_point)]
 *   DQ(a) -> Gemm(DQ(B), [DQ(C)]) -> [Relu] -> Q  =>  Unsqueeze -> QLinearConv 1x1 -> [Max]
 *                                                     -> Flatten
 *   DQ(a), DQ(b) -> Add -> [Relu] -> Q  =>  QLinearAdd (com.microsoft) -> [Max]
 *   DQ(x) -> MaxPool, Flatten, ... -> Q, same scale and zero point  =>  the op on x
 *
 * A fused pattern computes QLinearConv's (QLinearAdd's) integer rules rather than the float
 * operators of the unfused graph: that is what onnxruntime runs for a QDQ
 * model, and what the accelerator will reproduce bit for bit. The pass-through
 * fusion is exact: Q(DQ(x)) = x for one scale and zero point, and the ops only
 * move or select values.
 *
 * Each rule applies only when all its conditions hold (docs/onnx.md, "QDQ
 * fusion"); a pattern that misses one stays as it is, which is always
 * correct. The values a fusion removes must have no other reader and must
 * not be graph outputs.
 */

#include "graph.h"
#include "tensor_util.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <set>

namespace vdla::onnx {

namespace {

bool isOp(const Node &node, const char *opType)
{
	return node.opType == opType && node.domain.empty();
}

const std::string &inputOf(const Node &node, size_t index)
{
	static const std::string absent;
	return index < node.inputs.size() ? node.inputs[index] : absent;
}

const Tensor *constantOf(const Graph &graph, const std::string &name)
{
	if (name.empty())
		return nullptr;
	auto it = graph.constants.find(name);
	return it == graph.constants.end() ? nullptr : &it->second;
}

/* The index of the node that writes @value, if a node does. */
std::optional<size_t> producerOf(const Graph &graph, const std::string &value)
{
	for (size_t i = 0; i < graph.nodes.size(); i++)
		for (const std::string &output : graph.nodes[i].outputs)
			if (output == value)
				return i;
	return std::nullopt;
}

/* The node of @opType that writes @value, when it is read by @reader alone: a fusion removes it. */
const Node *soleProducer(const Graph &graph, const std::string &value, size_t reader,
			 const char *opType)
{
	if (value.empty() || graph.isOutput(value) ||
	    graph.readersOf(value) != std::vector<size_t>{ reader })
		return nullptr;
	std::optional<size_t> producer = producerOf(graph, value);
	if (!producer || !isOp(graph.nodes[*producer], opType) ||
	    graph.nodes[*producer].outputs.size() != 1)
		return nullptr;
	return &graph.nodes[*producer];
}

/* The index of the only reader of @value, of @opType, when it is not a graph output. */
std::optional<size_t> soleReader(const Graph &graph, const std::string &value, const char *opType)
{
	if (graph.isOutput(value))
		return std::nullopt;
	std::vector<size_t> readers = graph.readersOf(value);
	if (readers.size() != 1 || !isOp(graph.nodes[readers[0]], opType))
		return std::nullopt;
	return readers[0];
}

/*
 * The element type of @value where the graph tells it without running:
 * constants, graph inputs, and the outputs of the quantised operators and of
 * those that keep their input's type. Undefined when unknown.
 */
DataType elementTypeOf(const Graph &graph, const std::string &value)
{
	if (const Tensor *constant = constantOf(graph, value))
		return constant->type();
	for (const ValueInfo &input : graph.inputs)
		if (input.name == value)
			return input.type;
	std::optional<size_t> producer = producerOf(graph, value);
	if (!producer)
		return DataType::Undefined;
	const Node &node = graph.nodes[*producer];
	if (node.outputs[0] != value)
		return DataType::Undefined;
	if (node.domain == "com.microsoft" && node.opType == "QLinearAdd")
		return elementTypeOf(graph, inputOf(node, 7));
	if (!node.domain.empty())
		return DataType::Undefined;
	static const std::set<std::string> keepType = {
		"Max", "Min", "MaxPool", "Flatten", "Reshape", "Squeeze", "Unsqueeze",
		"Transpose", "Identity",
	};
	if (node.opType == "QuantizeLinear")
		return inputOf(node, 2).empty() ? DataType::Uint8
						: elementTypeOf(graph, inputOf(node, 2));
	if (node.opType == "QLinearConv")
		return elementTypeOf(graph, inputOf(node, 7));
	if (node.opType == "DequantizeLinear")
		return DataType::Float;
	if (keepType.count(node.opType) && !inputOf(node, 0).empty())
		return elementTypeOf(graph, inputOf(node, 0));
	return DataType::Undefined;
}

bool isQuantType(DataType type)
{
	return type == DataType::Int8 || type == DataType::Uint8;
}

int32_t zeroPointAt(const Tensor &zeroPoint, int64_t i)
{
	switch (zeroPoint.type()) {
	case DataType::Int8: return zeroPoint.data<int8_t>()[i];
	case DataType::Uint8: return zeroPoint.data<uint8_t>()[i];
	case DataType::Int32: return zeroPoint.data<int32_t>()[i];
	default: return 0;
	}
}

/* A float constant whose every value is a valid scale (finite, positive). */
const Tensor *scaleConstant(const Graph &graph, const std::string &name)
{
	const Tensor *scale = constantOf(graph, name);
	if (!scale || scale->type() != DataType::Float || scale->elements() == 0)
		return nullptr;
	for (int64_t i = 0; i < scale->elements(); i++)
		if (!std::isfinite(scale->data<float>()[i]) || scale->data<float>()[i] <= 0)
			return nullptr;
	return scale;
}

/*
 * The scale and zero point of a QuantizeLinear or DequantizeLinear that
 * apply to the whole tensor. A left-out zero point is 0 of @impliedType:
 * uint8 for QuantizeLinear, x's type for DequantizeLinear.
 */
struct TensorQuant {
	std::string scale;
	float scaleValue;
	/* "" when the node leaves it out. */
	std::string zeroPoint;
	/* A scalar of int8 or uint8. */
	Tensor zeroPointValue;
};

std::optional<TensorQuant> perTensorQuant(const Graph &graph, const Node &node,
					  DataType impliedType)
{
	TensorQuant quant;
	quant.scale = inputOf(node, 1);
	const Tensor *scale = scaleConstant(graph, quant.scale);
	if (!scale || scale->elements() != 1 || scale->rank() > 1)
		return std::nullopt;
	quant.scaleValue = scale->data<float>()[0];
	quant.zeroPoint = inputOf(node, 2);
	if (quant.zeroPoint.empty()) {
		if (!isQuantType(impliedType))
			return std::nullopt;
		quant.zeroPointValue = Tensor(impliedType, {});
		return quant;
	}
	const Tensor *zeroPoint = constantOf(graph, quant.zeroPoint);
	if (!zeroPoint || !isQuantType(zeroPoint->type()) || zeroPoint->shape() != scale->shape())
		return std::nullopt;
	quant.zeroPointValue = zeroPoint->reshaped({});
	return quant;
}

bool sameBits(float a, float b)
{
	uint32_t x, y;
	std::memcpy(&x, &a, sizeof(x));
	std::memcpy(&y, &b, sizeof(y));
	return x == y;
}

/*
 * A constant integer tensor behind a DequantizeLinear, with one scale and
 * zero point for the whole tensor or one per index of @axis, which has
 * @channels indices (per axis needs opset 13, as DequantizeLinear does).
 */
struct ConstantQuant {
	std::string values;
	const Tensor *valueTensor;
	std::string scale;
	std::vector<float> scales;
	/* "" when the node leaves it out (all zeros). */
	std::string zeroPoint;
	std::vector<int32_t> zeroPoints;

	float scaleOf(int64_t channel) const { return scales[scales.size() == 1 ? 0 : channel]; }
};

std::optional<ConstantQuant> constantQuant(const Graph &graph, const Node &dq, int64_t opset,
					   int64_t axis, int64_t channels)
{
	ConstantQuant quant;
	quant.values = inputOf(dq, 0);
	quant.valueTensor = constantOf(graph, quant.values);
	quant.scale = inputOf(dq, 1);
	const Tensor *scale = scaleConstant(graph, quant.scale);
	const Tensor *x = quant.valueTensor;
	if (!x || !scale || int64_t(x->rank()) <= axis || x->shape()[axis] != channels)
		return std::nullopt;
	const bool perTensor = scale->elements() == 1 && scale->rank() <= 1;
	if (!perTensor) {
		const Attribute *attr = dq.attribute("axis");
		if (attr && attr->kind != Attribute::Kind::Int)
			return std::nullopt;
		int64_t dqAxis = attr ? attr->i : 1;
		if (dqAxis < 0)
			dqAxis += int64_t(x->rank());
		if (opset < 13 || scale->rank() != 1 || scale->elements() != channels ||
		    dqAxis != axis)
			return std::nullopt;
	}
	quant.scales.assign(scale->data<float>(), scale->data<float>() + scale->elements());
	quant.zeroPoint = inputOf(dq, 2);
	if (quant.zeroPoint.empty()) {
		quant.zeroPoints.assign(quant.scales.size(), 0);
		return quant;
	}
	const Tensor *zeroPoint = constantOf(graph, quant.zeroPoint);
	if (!zeroPoint || zeroPoint->type() != x->type() || zeroPoint->shape() != scale->shape())
		return std::nullopt;
	for (int64_t i = 0; i < zeroPoint->elements(); i++)
		quant.zeroPoints.push_back(zeroPointAt(*zeroPoint, i));
	return quant;
}

/*
 * A bias behind a DequantizeLinear that the integer accumulator can add as
 * it is: int32 values with zero points 0, and for every output channel m a
 * scale bitwise equal to float32(x_scale * w_scale[m]), so that the float
 * operator's bias is exactly B[m] times the accumulator's scale.
 */
bool isAccumulatorBias(const ConstantQuant &bias, float inputScale, const ConstantQuant &weights,
		       int64_t channels)
{
	if (bias.valueTensor->type() != DataType::Int32)
		return false;
	for (int32_t zeroPoint : bias.zeroPoints)
		if (zeroPoint != 0)
			return false;
	for (int64_t m = 0; m < channels; m++)
		if (!sameBits(bias.scaleOf(m), inputScale * weights.scaleOf(m)))
			return false;
	return true;
}

/*
 * Whether QLinearConv's int32 accumulator holds every sum these weights and
 * bias can make with any x of @xType: the kernel refuses a sum that does not
 * fit, where the float operator would have run. Weights of output channel m
 * are those of index m along @axis.
 */
bool accumulatorFits(const ConstantQuant &weights, int64_t axis, const Tensor *bias,
		     DataType xType, int32_t xZeroPoint)
{
	const Tensor &w = *weights.valueTensor;
	const int64_t channels = w.shape()[axis];
	int64_t inner = 1;
	for (size_t d = axis + 1; d < w.rank(); d++)
		inner *= w.shape()[d];
	std::vector<int64_t> sums(channels, 0);
	for (int64_t i = 0; i < w.elements(); i++) {
		const int64_t m = (i / inner) % channels;
		const int32_t zero = weights.zeroPoints[weights.zeroPoints.size() == 1 ? 0 : m];
		sums[m] += std::abs(int64_t(zeroPointAt(w, i)) - zero);
	}
	const int64_t low = xType == DataType::Int8 ? -128 : 0;
	const int64_t high = xType == DataType::Int8 ? 127 : 255;
	const int64_t largestX = std::max(xZeroPoint - low, high - xZeroPoint);
	for (int64_t m = 0; m < channels; m++) {
		const int64_t b = bias ? std::abs(int64_t(bias->data<int32_t>()[m])) : 0;
		if (sums[m] * largestX + b > std::numeric_limits<int32_t>::max())
			return false;
	}
	return true;
}

/* What a fusion does: the nodes it removes, and those it puts at the place of the first. */
struct Fusion {
	size_t at;
	std::set<size_t> removed;
	std::vector<Node> nodes;
	std::map<std::string, Tensor> constants;
};

/* A name no value, constant or graph input or output of @graph has, nor one of @fusion's. */
std::string freshName(const Graph &graph, const Fusion &fusion, const std::string &base)
{
	std::set<std::string> taken;
	for (const Node &node : graph.nodes) {
		taken.insert(node.inputs.begin(), node.inputs.end());
		taken.insert(node.outputs.begin(), node.outputs.end());
	}
	for (const ValueInfo &info : graph.inputs)
		taken.insert(info.name);
	for (const ValueInfo &info : graph.outputs)
		taken.insert(info.name);
	std::string name = base;
	for (int n = 1; taken.count(name) || graph.constants.count(name) ||
			fusion.constants.count(name);
	     n++)
		name = base + "_" + std::to_string(n);
	return name;
}

/* A new constant of @fusion, named after @base. */
std::string addConstant(const Graph &graph, Fusion &fusion, const std::string &base, Tensor value)
{
	std::string name = freshName(graph, fusion, base);
	fusion.constants[name] = std::move(value);
	return name;
}

/* The zero point's constant, made when the node left it out (QLinearConv needs it). */
std::string zeroPointInput(const Graph &graph, Fusion &fusion, const TensorQuant &quant,
			   const std::string &base)
{
	if (!quant.zeroPoint.empty())
		return quant.zeroPoint;
	return addConstant(graph, fusion, base + "_zero_point", quant.zeroPointValue);
}

Node makeNode(const std::string &name, const char *opType, std::vector<std::string> inputs,
	      std::vector<std::string> outputs)
{
	Node node;
	node.name = name;
	node.opType = opType;
	node.inputs = std::move(inputs);
	node.outputs = std::move(outputs);
	return node;
}

Attribute intAttribute(int64_t value)
{
	Attribute attr;
	attr.kind = Attribute::Kind::Int;
	attr.i = value;
	return attr;
}

/*
 * The end of a Conv or Gemm pattern: the node's output read by a Relu (from
 * opset 12, where Max takes int8 and uint8) or directly by a QuantizeLinear
 * whose scale and zero point are per tensor.
 */
struct PatternEnd {
	std::optional<size_t> relu;
	size_t quantize;
	TensorQuant output;
};

std::optional<PatternEnd> patternEnd(const Graph &graph, const Node &node)
{
	if (node.outputs.size() != 1)
		return std::nullopt;
	PatternEnd end;
	std::string value = node.outputs[0];
	if (std::optional<size_t> relu = soleReader(graph, value, "Relu")) {
		const Node &reluNode = graph.nodes[*relu];
		if (graph.opset < 12 || reluNode.inputs.size() != 1 || reluNode.outputs.size() != 1)
			return std::nullopt;
		end.relu = relu;
		value = reluNode.outputs[0];
	}
	std::optional<size_t> quantize = soleReader(graph, value, "QuantizeLinear");
	if (!quantize || inputOf(graph.nodes[*quantize], 0) != value ||
	    graph.nodes[*quantize].outputs.size() != 1)
		return std::nullopt;
	end.quantize = *quantize;
	std::optional<TensorQuant> output =
		perTensorQuant(graph, graph.nodes[*quantize], DataType::Uint8);
	if (!output)
		return std::nullopt;
	end.output = std::move(*output);
	return end;
}

/* The DequantizeLinear that gives the float operator its input x, with x's quantisation. */
struct PatternStart {
	size_t dequantize;
	std::string quantised;
	TensorQuant input;
};

std::optional<PatternStart> patternStart(const Graph &graph, const std::string &value,
					 size_t reader)
{
	const Node *dq = soleProducer(graph, value, reader, "DequantizeLinear");
	if (!dq || inputOf(*dq, 0).empty())
		return std::nullopt;
	PatternStart start;
	start.dequantize = *producerOf(graph, value);
	start.quantised = inputOf(*dq, 0);
	std::optional<TensorQuant> input =
		perTensorQuant(graph, *dq, elementTypeOf(graph, start.quantised));
	if (!input)
		return std::nullopt;
	start.input = std::move(*input);
	return start;
}

/* The values of the QLinearConv that replaces a Conv or Gemm pattern. */
struct ConvValues {
	/* The quantised input [N, C, D1, ...] and weights [M, C/group, k1, ...]. */
	std::string x;
	std::string weights;
	/* int32 [M], or "". */
	std::string bias;
	/* The QLinearConv's output when a Max follows: a name free in the graph. */
	std::string convOutput;
	/* The output of the last node. */
	std::string output;
};

/*
 * The QLinearConv that replaces the pattern, followed by Max(y, y_zero_point)
 * for a Relu: quantisation is monotonic and maps 0 to the zero point, so
 * Q(Relu(v)) = Max(Q(v), y_zero_point).
 */
void appendQLinearConv(const Graph &graph, Fusion &fusion, Node conv, const PatternStart &start,
		       const ConstantQuant &weightQuant, const PatternEnd &end,
		       const ConvValues &values)
{
	const Node &quantize = graph.nodes[end.quantize];
	const std::string xZeroPoint = zeroPointInput(graph, fusion, start.input, start.quantised);
	std::string wZeroPoint = weightQuant.zeroPoint;
	if (wZeroPoint.empty())
		wZeroPoint = addConstant(graph, fusion, weightQuant.values + "_zero_point",
					 Tensor(weightQuant.valueTensor->type(), {}));
	const std::string yZeroPoint =
		zeroPointInput(graph, fusion, end.output, quantize.outputs[0]);

	conv.opType = "QLinearConv";
	conv.inputs = { values.x, start.input.scale, xZeroPoint, values.weights,
			weightQuant.scale, wZeroPoint, end.output.scale, yZeroPoint };
	if (!values.bias.empty())
		conv.inputs.push_back(values.bias);
	conv.outputs = { end.relu ? values.convOutput : values.output };
	fusion.nodes.push_back(std::move(conv));
	if (end.relu)
		fusion.nodes.push_back(makeNode(graph.nodes[*end.relu].name, "Max",
						{ values.convOutput, yZeroPoint },
						{ values.output }));
}

std::set<size_t> patternNodes(const PatternStart &start, size_t dequantizeWeights,
			      std::optional<size_t> dequantizeBias, const PatternEnd &end)
{
	std::set<size_t> nodes = { start.dequantize, dequantizeWeights, end.quantize };
	if (dequantizeBias)
		nodes.insert(*dequantizeBias);
	if (end.relu)
		nodes.insert(*end.relu);
	return nodes;
}

/* Rule 1: DQ -> Conv(DQ(w), [DQ(b)]) -> [Relu] -> Q becomes QLinearConv [-> Max]. */
std::optional<Fusion> fuseConv(const Graph &graph, size_t index)
{
	const Node &conv = graph.nodes[index];
	if (!isOp(conv, "Conv") || conv.inputs.size() < 2 || conv.inputs.size() > 3)
		return std::nullopt;
	std::optional<PatternStart> start = patternStart(graph, conv.inputs[0], index);
	const Node *weightDq = soleProducer(graph, conv.inputs[1], index, "DequantizeLinear");
	if (!start || !weightDq || conv.inputs[0] == conv.inputs[1])
		return std::nullopt;
	const Tensor *w = constantOf(graph, inputOf(*weightDq, 0));
	if (!w || !isQuantType(w->type()) || w->rank() < 3)
		return std::nullopt;
	const int64_t maps = w->shape()[0];
	std::optional<ConstantQuant> weights =
		constantQuant(graph, *weightDq, graph.opset, 0, maps);
	if (!weights)
		return std::nullopt;

	std::optional<size_t> biasDqIndex;
	const Tensor *bias = nullptr;
	const std::string &biasValue = inputOf(conv, 2);
	if (!biasValue.empty()) {
		const Node *biasDq = soleProducer(graph, biasValue, index, "DequantizeLinear");
		if (!biasDq)
			return std::nullopt;
		std::optional<ConstantQuant> quant =
			constantQuant(graph, *biasDq, graph.opset, 0, maps);
		if (!quant || quant->valueTensor->rank() != 1 ||
		    !isAccumulatorBias(*quant, start->input.scaleValue, *weights, maps))
			return std::nullopt;
		biasDqIndex = producerOf(graph, biasValue);
		bias = quant->valueTensor;
	}
	std::optional<PatternEnd> end = patternEnd(graph, conv);
	if (!end || !accumulatorFits(*weights, 0, bias, start->input.zeroPointValue.type(),
				     zeroPointAt(start->input.zeroPointValue, 0)))
		return std::nullopt;

	Fusion fusion;
	fusion.at = index;
	fusion.removed =
		patternNodes(*start, *producerOf(graph, conv.inputs[1]), biasDqIndex, *end);
	ConvValues values;
	values.x = start->quantised;
	values.weights = weights->values;
	values.bias = biasDqIndex ? inputOf(graph.nodes[*biasDqIndex], 0) : "";
	/* The Conv's output name is free once the Conv is gone. */
	values.convOutput = conv.outputs[0];
	values.output = graph.nodes[end->quantize].outputs[0];
	appendQLinearConv(graph, fusion, conv, *start, *weights, *end, values);
	return fusion;
}

/* The int attribute @name of @node, @fallback when absent; nullopt when not an int. */
std::optional<int64_t> intAttributeOf(const Node &node, const char *name, int64_t fallback)
{
	const Attribute *attr = node.attribute(name);
	if (!attr)
		return fallback;
	if (attr->kind != Attribute::Kind::Int)
		return std::nullopt;
	return attr->i;
}

bool floatAttributeIs(const Node &node, const char *name, float value)
{
	const Attribute *attr = node.attribute(name);
	return !attr || (attr->kind == Attribute::Kind::Float && attr->f == value);
}

/*
 * Rule 2: DQ -> Gemm(DQ(B), [DQ(C)]) -> [Relu] -> Q, with Gemm computing
 * A B + C, becomes a 1x1 QLinearConv on A seen as [N, K, 1, 1]:
 * Unsqueeze -> QLinearConv [-> Max] -> Flatten, giving [N, M]. Gemm
 * requires a 2-D A, so the Unsqueeze always makes [N, K, 1, 1].
 */
std::optional<Fusion> fuseGemm(const Graph &graph, size_t index)
{
	const Node &gemm = graph.nodes[index];
	if (!isOp(gemm, "Gemm") || gemm.inputs.size() < 2 || gemm.inputs.size() > 3)
		return std::nullopt;
	std::optional<int64_t> transA = intAttributeOf(gemm, "transA", 0);
	std::optional<int64_t> transB = intAttributeOf(gemm, "transB", 0);
	if (transA != 0 || !transB || (*transB != 0 && *transB != 1) ||
	    !floatAttributeIs(gemm, "alpha", 1) || !floatAttributeIs(gemm, "beta", 1))
		return std::nullopt;
	std::optional<PatternStart> start = patternStart(graph, gemm.inputs[0], index);
	const Node *weightDq = soleProducer(graph, gemm.inputs[1], index, "DequantizeLinear");
	if (!start || !weightDq || gemm.inputs[0] == gemm.inputs[1])
		return std::nullopt;
	const Tensor *b = constantOf(graph, inputOf(*weightDq, 0));
	if (!b || !isQuantType(b->type()) || b->rank() != 2)
		return std::nullopt;
	/* The output columns: axis 1 of B [K, M], axis 0 of a transposed B [M, K]. */
	const int64_t columnAxis = *transB ? 0 : 1;
	const int64_t columns = b->shape()[columnAxis];
	std::optional<ConstantQuant> weights =
		constantQuant(graph, *weightDq, graph.opset, columnAxis, columns);
	if (!weights)
		return std::nullopt;

	std::optional<size_t> biasDqIndex;
	const Tensor *bias = nullptr;
	const std::string &biasValue = inputOf(gemm, 2);
	if (!biasValue.empty()) {
		const Node *biasDq = soleProducer(graph, biasValue, index, "DequantizeLinear");
		if (!biasDq)
			return std::nullopt;
		/* One value per output column: C [M] or [1, M]. */
		const Tensor *c = constantOf(graph, inputOf(*biasDq, 0));
		if (!c || c->elements() != columns || c->rank() < 1 || c->rank() > 2 ||
		    (c->rank() == 2 && c->shape()[0] != 1))
			return std::nullopt;
		std::optional<ConstantQuant> quant =
			constantQuant(graph, *biasDq, graph.opset, int64_t(c->rank()) - 1, columns);
		if (!quant ||
		    !isAccumulatorBias(*quant, start->input.scaleValue, *weights, columns))
			return std::nullopt;
		biasDqIndex = producerOf(graph, biasValue);
		bias = c;
	}
	std::optional<PatternEnd> end = patternEnd(graph, gemm);
	if (!end || !accumulatorFits(*weights, columnAxis, bias, start->input.zeroPointValue.type(),
				     zeroPointAt(start->input.zeroPointValue, 0)))
		return std::nullopt;

	Fusion fusion;
	fusion.at = index;
	fusion.removed =
		patternNodes(*start, *producerOf(graph, gemm.inputs[1]), biasDqIndex, *end);
	/* A as [N, K, 1, 1], named as the DequantizeLinear's output it replaces. */
	const std::string nchw = gemm.inputs[0];
	Node unsqueeze = makeNode(gemm.name + "/unsqueeze", "Unsqueeze", { start->quantised },
				  { nchw });
	const std::vector<int64_t> axes = { 2, 3 };
	if (graph.opset < 13) {
		Attribute attr;
		attr.kind = Attribute::Kind::Ints;
		attr.ints = axes;
		unsqueeze.attributes["axes"] = attr;
	} else {
		Tensor axesTensor(DataType::Int64, { 2 });
		std::copy(axes.begin(), axes.end(), axesTensor.data<int64_t>());
		unsqueeze.inputs.push_back(
			addConstant(graph, fusion, gemm.name + "/unsqueeze_axes", axesTensor));
	}
	fusion.nodes.push_back(std::move(unsqueeze));

	ConvValues values;
	values.x = nchw;
	values.weights = addConstant(graph, fusion, weights->values + "_1x1",
				     pointwiseWeights(*b, *transB));
	if (bias) {
		const std::string &c = inputOf(graph.nodes[*biasDqIndex], 0);
		values.bias = bias->rank() == 1 ? c
						: addConstant(graph, fusion, c + "_1d",
							      bias->reshaped({ columns }));
	}
	/* The names of the Gemm's and the Relu's outputs are free once their nodes are gone. */
	values.convOutput = gemm.outputs[0];
	values.output = end->relu ? graph.nodes[*end->relu].outputs[0] : gemm.outputs[0];
	appendQLinearConv(graph, fusion, makeNode(gemm.name, "QLinearConv", {}, {}), *start,
			  *weights, *end, values);
	Node flatten = makeNode(gemm.name + "/flatten", "Flatten", { values.output },
				{ graph.nodes[end->quantize].outputs[0] });
	flatten.attributes["axis"] = intAttribute(1);
	fusion.nodes.push_back(std::move(flatten));
	return fusion;
}

/* Operators that only move or select values: Q(op(DQ(x))) = op(x) for one scale and zero point. */
bool movesValues(const Node &node)
{
	static const std::set<std::string> ops = {
		"MaxPool", "Flatten", "Reshape", "Squeeze", "Unsqueeze", "Transpose", "Identity",
	};
	if (!node.domain.empty() || !ops.count(node.opType) || node.inputs.empty() ||
	    node.outputs.empty() || node.outputs[0].empty())
		return false;
	/* MaxPool's Indices output is not a value of x. */
	for (size_t i = 1; i < node.outputs.size(); i++)
		if (!node.outputs[i].empty())
			return false;
	return true;
}

bool sameQuant(const TensorQuant &a, const TensorQuant &b)
{
	return sameBits(a.scaleValue, b.scaleValue) &&
	       a.zeroPointValue.type() == b.zeroPointValue.type() &&
	       zeroPointAt(a.zeroPointValue, 0) == zeroPointAt(b.zeroPointValue, 0);
}

/* Rule 3: DQ(x, s, z) -> op -> Q(s, z) becomes op(x). */
std::optional<Fusion> fusePassThrough(const Graph &graph, size_t index)
{
	const Node &op = graph.nodes[index];
	if (!movesValues(op))
		return std::nullopt;
	std::optional<PatternStart> start = patternStart(graph, op.inputs[0], index);
	std::optional<size_t> quantize = soleReader(graph, op.outputs[0], "QuantizeLinear");
	if (!start || !quantize)
		return std::nullopt;
	const Node &q = graph.nodes[*quantize];
	if (inputOf(q, 0) != op.outputs[0] || q.outputs.size() != 1)
		return std::nullopt;
	std::optional<TensorQuant> output = perTensorQuant(graph, q, DataType::Uint8);
	/* x must have the zero point's type, which DequantizeLinear would check at run. */
	if (!output || !sameQuant(start->input, *output) ||
	    elementTypeOf(graph, start->quantised) != start->input.zeroPointValue.type())
		return std::nullopt;
	for (size_t i = 1; i < op.inputs.size(); i++)
		if (op.inputs[i] == op.inputs[0])
			return std::nullopt;

	Fusion fusion;
	fusion.at = index;
	fusion.removed = { start->dequantize, *quantize };
	Node fused = op;
	fused.inputs[0] = start->quantised;
	fused.outputs[0] = q.outputs[0];
	fusion.nodes.push_back(std::move(fused));
	return fusion;
}

/*
 * Rule 4: DQ(a), DQ(b) -> Add -> [Relu] -> Q becomes onnxruntime's
 * QLinearAdd [-> Max(y, y_zero_point)], scales and zero points per tensor,
 * a, b and y of one type (QLinearAdd's).
 */
std::optional<Fusion> fuseAdd(const Graph &graph, size_t index)
{
	const Node &add = graph.nodes[index];
	if (!isOp(add, "Add") || add.inputs.size() != 2 || add.outputs.size() != 1 ||
	    add.inputs[0] == add.inputs[1])
		return std::nullopt;
	std::optional<PatternStart> a = patternStart(graph, add.inputs[0], index);
	std::optional<PatternStart> b = patternStart(graph, add.inputs[1], index);
	std::optional<PatternEnd> end = patternEnd(graph, add);
	if (!a || !b || !end)
		return std::nullopt;
	const DataType type = end->output.zeroPointValue.type();
	for (const PatternStart *start : { &*a, &*b })
		if (elementTypeOf(graph, start->quantised) != type ||
		    start->input.zeroPointValue.type() != type)
			return std::nullopt;

	Fusion fusion;
	fusion.at = index;
	fusion.removed = { a->dequantize, b->dequantize, end->quantize };
	if (end->relu)
		fusion.removed.insert(*end->relu);
	const Node &quantize = graph.nodes[end->quantize];
	const std::string yZeroPoint =
		zeroPointInput(graph, fusion, end->output, quantize.outputs[0]);
	Node fused = makeNode(add.name, "QLinearAdd",
			      { a->quantised, a->input.scale,
				zeroPointInput(graph, fusion, a->input, a->quantised), b->quantised,
				b->input.scale, zeroPointInput(graph, fusion, b->input, b->quantised),
				end->output.scale, yZeroPoint },
			      { end->relu ? add.outputs[0] : quantize.outputs[0] });
	fused.domain = "com.microsoft";
	fusion.nodes.push_back(std::move(fused));
	if (end->relu)
		fusion.nodes.push_back(makeNode(graph.nodes[*end->relu].name, "Max",
						{ add.outputs[0], yZeroPoint },
						{ quantize.outputs[0] }));
	return fusion;
}

/* Applies @fusion; returns the index of the last node it put in. */
size_t apply(Graph &graph, Fusion &fusion)
{
	std::vector<Node> nodes = std::move(graph.nodes);
	graph.nodes.clear();
	size_t last = 0;
	for (size_t i = 0; i < nodes.size(); i++) {
		if (i == fusion.at) {
			for (Node &node : fusion.nodes)
				graph.nodes.push_back(std::move(node));
			last = graph.nodes.size() - 1;
		} else if (!fusion.removed.count(i)) {
			graph.nodes.push_back(std::move(nodes[i]));
		}
	}
	for (auto &constant : fusion.constants)
		graph.constants[constant.first] = std::move(constant.second);
	return last;
}

} /* namespace */

void fuseQdq(Graph &graph)
{
	for (size_t i = 0; i < graph.nodes.size(); i++) {
		std::optional<Fusion> fusion = fuseConv(graph, i);
		if (!fusion)
			fusion = fuseGemm(graph, i);
		if (!fusion)
			fusion = fuseAdd(graph, i);
		if (!fusion)
			fusion = fusePassThrough(graph, i);
		if (fusion)
			i = apply(graph, *fusion);
	}
}

} /* namespace vdla::onnx */
