/* SPDX-License-Identifier: MIT */
/*
 * Today's DLA subset (docs/onnx.md, "Targets"): FP32 Conv and
 * MaxPool/AveragePool of 1 to 3 axes (libvdla's own convolution and
 * pooling) and global pooling of planes up to 16 x 16, MaxPool of int8 and
 * uint8, Relu, Gemm as a 1x1 convolution,
 * QLinearConv and QLinearMatMul with the Max that is their Relu, ConvInteger
 * and MatMulInteger, DequantizeLinear ("INT8 on the DLA"), Softmax and LRN (the OpenVX
 * layers), Add, Sub, Mul and QLinearAdd on the SDP
 * (dla_segment_elementwise.h), and the data movement of Reshape,
 * Transpose, Slice, Split, Concat and depth/space on RUBIK.
 */

#include "dla_support.h"

#include "conv_geometry.h"
#include "dla_quant_conv.h"
#include "dla_segment_elementwise.h"
#include "dla_segment_moves.h"
#include "op_kernel.h"
#include "ops/shape_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

namespace vdla::onnx {

namespace {

const ValueShape *shapeOf(const ShapeMap &shapes, const std::string &name)
{
	auto it = shapes.find(name);
	return it == shapes.end() ? nullptr : &it->second;
}

/* The node of @graph writing @value, or nullptr (a graph input or a constant). */
const Node *producerOf(const Graph &graph, const std::string &value)
{
	for (const Node &node : graph.nodes)
		for (const std::string &output : node.outputs)
			if (output == value)
				return &node;
	return nullptr;
}

/*
 * Whether the DLA may run a node of @op. Neighbours are judged by type:
 * asking whether they run there would ask about their own neighbours, and
 * so on along the whole graph (exponentially, through a chain of Gemms).
 */
bool dlaOperator(const std::string &op)
{
	static const std::set<std::string> layers = { "Conv", "Relu", "MaxPool", "AveragePool",
						      "Gemm", "Max",  "Add",	 "Sub",
						      "Mul",  "QLinearAdd", "Softmax", "LRN",
						      "GlobalAveragePool", "GlobalMaxPool",
						      "DequantizeLinear" };
	return layers.count(op) || convolvesIntegers(op) || movesData(op);
}

/*
 * Whether @value is computed by a node the DLA may run: of an operator it
 * runs, and of a type it holds (an int64 Add or Concat of a shape
 * computation never runs there; INT32 only as ConvInteger's sums).
 */
bool computedOnDla(const Graph &graph, const std::string &value, const ShapeMap &shapes)
{
	const Node *producer = producerOf(graph, value);
	if (!producer || !dlaOperator(producer->opType))
		return false;
	auto it = shapes.find(value);
	if (it == shapes.end())
		return true;
	const DataType type = it->second.type;
	return type == DataType::Float || type == DataType::Int8 || type == DataType::Uint8 ||
	       (type == DataType::Int32 && convolvesIntegers(producer->opType));
}

/*
 * A 1-D layer's tensors are 4-D on the DLA: its producer and readers must
 * be of no operator the DLA runs.
 */
bool alone1d(const Graph &graph, const Node &node, const ShapeMap &shapes)
{
	if (computedOnDla(graph, node.inputs[0], shapes))
		return false;
	for (size_t reader : graph.readersOf(node.outputs[0]))
		if (dlaOperator(graph.nodes[reader].opType))
			return false;
	return true;
}

bool isConstant(const Graph &graph, const std::string &name)
{
	return graph.constants.count(name) > 0;
}

/*
 * MaxPool and AveragePool run as libvdla's own pooling (dla_segment.cpp):
 * 1-D (as 2-D of height 1) or 2-D, each side's padding below the window,
 * explicit strides, ceil mode, count_include_pad; the PDP's window up to
 * 16 and no dilation.
 */
std::string poolRefusal(const Graph &graph, const Node &node, const ShapeMap &shapes)
{
	const ValueShape *x = shapeOf(shapes, node.inputs[0]);
	if (!x)
		return "unknown shapes";
	if (node.outputs.size() > 1 && !node.outputs[1].empty())
		return "MaxPool's Indices output";
	const Attribute *kernel = node.attribute("kernel_shape");
	if (!kernel || kernel->ints.empty() || kernel->ints.size() > 3 ||
	    x->shape.size() != kernel->ints.size() + 2)
		return "only 1-D, 2-D and 3-D pooling run on the DLA";
	if (kernel->ints.size() == 1 && !alone1d(graph, node, shapes))
		return "a 1-D pooling next to another node the DLA runs";
	if (kernel->ints.size() == 3) {
		/* Two 2-D poolings (dla_segment.cpp): of [N, C * D, H, W], then of
		 * [N, C, D, OH * OW] along D. */
		const ValueShape *y = shapeOf(shapes, node.outputs[0]);
		if (!y || y->shape.size() != 5)
			return "unknown shapes";
		if (x->shape[1] * x->shape[2] > 65535 || y->shape[3] * y->shape[4] > 65535)
			return "a 3-D pooling whose channels times depth, or output plane, pass 65535";
		if (node.opType == "AveragePool" && x->type != DataType::Float)
			return "an integer 3-D average (two roundings, not one)";
	}
	/* What the CPU kernel checks, which the plan's shape run may skip. */
	for (const char *flag : { "ceil_mode", "count_include_pad", "storage_order" }) {
		const Attribute *attr = node.attribute(flag);
		if (attr && attr->i != 0 && attr->i != 1)
			return std::string(flag) + " is neither 0 nor 1";
	}
	const Attribute *ceil = node.attribute("ceil_mode");
	OpContext ctx(node, graph.opset, {});
	ConvGeometry g;
	try {
		g = convGeometry(ctx, std::vector<int64_t>(x->shape.begin() + 2, x->shape.end()),
				 kernel->ints, ceil && ceil->i);
	} catch (const std::exception &e) {
		return e.what();
	}
	for (size_t i = 0; i < g.kernel.size(); i++) {
		if (g.dilations[i] != 1)
			return "dilated pooling";
		if (g.kernel[i] > 16 || g.strides[i] > 16)
			return "a pooling window or stride above 16";
		if (g.padBegin[i] >= g.kernel[i] || g.padEnd[i] >= g.kernel[i])
			return "pooling padding not below the window";
	}
	return "";
}

/*
 * Conv runs as libvdla's own convolution (dla_segment.cpp): groups, each
 * side's padding and explicit strides; 1-D as 2-D of height 1, with
 * constant weights, its output read by no other DLA node.
 */
std::string convRefusal(const Graph &graph, const Node &node, const ShapeMap &shapes)
{
	const ValueShape *x = shapeOf(shapes, node.inputs[0]);
	const ValueShape *w = node.inputs.size() > 1 ? shapeOf(shapes, node.inputs[1]) : nullptr;
	if (!x || !w)
		return "unknown shapes";
	const bool oneD = w->shape.size() == 3, threeD = w->shape.size() == 5;
	if ((w->shape.size() != 4 && !oneD && !threeD) || x->shape.size() != w->shape.size())
		return "only 1-D, 2-D and 3-D Conv run on the DLA";
	if (oneD && !isConstant(graph, node.inputs[1]))
		return "1-D Conv with weights computed by the graph";
	if (oneD && !alone1d(graph, node, shapes))
		return "a 1-D Conv next to another node the DLA runs";
	/* What the CPU kernel checks, which the plan's shape run may skip. */
	const Attribute *group = node.attribute("group");
	const int64_t groups = group ? group->i : 1;
	if (groups < 1 || x->shape[1] % groups || x->shape[1] / groups != w->shape[1] ||
	    w->shape[0] % groups)
		return "group does not divide the channels";
	const Attribute *kernel = node.attribute("kernel_shape");
	if (kernel && kernel->ints != std::vector<int64_t>(w->shape.begin() + 2, w->shape.end()))
		return "kernel_shape is not the weights'";
	int64_t taps = 1;
	for (size_t d = 1; d < w->shape.size(); d++)
		taps *= w->shape[d];
	if (taps > 65536)
		return "more than 65536 weights per output channel";
	OpContext ctx(node, graph.opset, {});
	ConvGeometry g;
	try {
		g = convGeometry(ctx, std::vector<int64_t>(x->shape.begin() + 2, x->shape.end()),
				 std::vector<int64_t>(w->shape.begin() + 2, w->shape.end()));
	} catch (const std::exception &e) {
		return e.what();
	}
	if (threeD) {
		/* A 2-D convolution of the depth taps stacked into channels
		 * (dla_segment.cpp): its tensors within the DLA's dimensions. */
		const ValueShape *y = shapeOf(shapes, node.outputs[0]);
		if (!y || y->shape.size() != 5)
			return "unknown shapes";
		const int64_t n = x->shape[0], taps = w->shape[2];
		if (n * x->shape[1] > 65535 || x->shape[1] * taps > 65535 ||
		    n * y->shape[2] > 65535 || y->shape[3] * y->shape[4] > 65535)
			return "a 3-D Conv whose stacked depth taps pass 65535 channels, images or "
			       "positions";
		if (n * taps > 1024)
			return "a 3-D Conv of more than 1024 images times depth taps";
		for (std::vector<int64_t> *v :
		     { &g.kernel, &g.strides, &g.dilations, &g.padBegin, &g.padEnd })
			v->erase(v->begin());
	}
	return convLimitsRefusal(g);
}


/*
 * Gemm runs as libvdla's own convolution (dla_segment.cpp): B constant or
 * a graph value (prepared at each copy-in), C one value, one per output
 * or [1, M]; a transposed A must come from outside the DLA's nodes (the
 * copy-in transposes it).
 */
std::string gemmRefusal(const Graph &graph, const Node &node, const ShapeMap &shapes)
{
	const ValueShape *a = shapeOf(shapes, node.inputs[0]);
	const ValueShape *b = shapeOf(shapes, node.inputs[1]);
	if (!a || !b || a->shape.size() != 2 || b->shape.size() != 2)
		return "unknown shapes";
	if (b->shape[0] > 65535 || b->shape[1] > 65535)
		return "more than 65535 inputs or outputs";
	const Attribute *transA = node.attribute("transA");
	if (transA && transA->i && computedOnDla(graph, node.inputs[0], shapes))
		return "transA of a value the DLA may compute";
	/* B and C computed on the DLA: the copy-in that prepares them is before the segment. */
	if (computedOnDla(graph, node.inputs[1], shapes))
		return "B computed by a node the DLA may run";
	if (node.inputs.size() > 2 && !node.inputs[2].empty()) {
		const Attribute *beta = node.attribute("beta");
		const ValueShape *y = shapeOf(shapes, node.outputs[0]);
		const ValueShape *c = shapeOf(shapes, node.inputs[2]);
		if (computedOnDla(graph, node.inputs[2], shapes) &&
		    ((beta && beta->f != 1) || !y || !c || c->shape != y->shape))
			return "C computed by a node the DLA may run, other than [N, M] with beta 1";
		const Attribute *transB = node.attribute("transB");
		const int64_t outputs = b->shape[transB && transB->i ? 0 : 1];
		/* One value, one per output, or a matrix broadcast to [N, M]. */
		const int64_t rows = a->shape[transA && transA->i ? 1 : 0];
		const bool broadcasts =
			c && c->shape.size() <= 2 &&
			(c->shape.empty() || c->shape.back() == 1 || c->shape.back() == outputs) &&
			(c->shape.size() < 2 || c->shape[0] == 1 || c->shape[0] == rows);
		if (!c || c->type != DataType::Float || !broadcasts)
			return "C does not broadcast to [N, M]";
	}
	return "";
}


/* Whether @value feeds @node alone and is no graph output. */
bool onlyFeeds(const Graph &graph, const std::string &value, const Node &node)
{
	if (graph.isOutput(value))
		return false;
	std::vector<size_t> readers = graph.readersOf(value);
	return readers.size() == 1 && &graph.nodes[readers[0]] == &node;
}

/*
 * The DLA's types: float everywhere; int8 and uint8 (held as int8) where
 * integers run (QLinearConv, MaxPool, the aliases, the Relu of a
 * QLinearConv); QLinearConv's constant operands are checked by
 * prepareQuantConv().
 */
std::string typeRefusal(const Node &node, const ShapeMap &shapes)
{
	const bool quantised = convolvesIntegers(node.opType);
	const bool integers = quantised || node.opType == "MaxPool" ||
			      node.opType == "DequantizeLinear" ||
			      node.opType == "Max" || movesData(node.opType);
	for (size_t i = 0; i < node.inputs.size(); i++) {
		const ValueShape *value = shapeOf(shapes, node.inputs[i]);
		if (node.inputs[i].empty() || !value)
			continue;
		/* Weights and parameters, checked by each operator's rules. */
		if ((quantised || movesData(node.opType)) && i > 0 &&
		    node.opType != "Concat")
			continue;
		const DataType type = value->type;
		if (type == DataType::Float ||
		    (integers && (type == DataType::Int8 || type == DataType::Uint8)))
			continue;
		return node.opType + " of " + dataTypeName(type) + " tensors does not run on the DLA";
	}
	return "";
}

/*
 * Input @i of @node, a parameter (a Reshape's shape, a scale): a constant,
 * or a small value the plan's run computed outside the DLA (each run checks
 * it before the segment, which cannot see its own values then).
 */
std::string parameterRefusal(const Graph &graph, const Node &node, size_t i,
			     const ShapeMap &shapes)
{
	const std::string &name = node.inputs[i];
	if (name.empty() || graph.constants.count(name))
		return "";
	if (!knownValue(graph, shapes, name))
		return node.opType + "'s input " + std::to_string(i) +
		       " is not a value the plan knows (a constant, or at most 64 values)";
	if (computedOnDla(graph, name, shapes))
		return node.opType + "'s input " + std::to_string(i) +
		       " is computed by a node the DLA may run";
	return "";
}

/*
 * Data movement (RUBIK, dla_segment.cpp): parameters the plan knows (a
 * constant, or a value its run computed, which each run checks again);
 * four dimensions at most but for the reshapes (six: OpenVX's tensors);
 * forward Slice steps; DepthToSpace blocks up to 16.
 */
std::string moveRefusal(const Graph &graph, const Node &node, const ShapeMap &shapes)
{
	if (node.opType == "Concat") {
		/* One strided copy per input, into one node of at most 8. */
		if (node.inputs.size() > 8)
			return "a Concat of more than 8 inputs";
		for (const std::string &name : node.inputs) {
			const ValueShape *x = shapeOf(shapes, name);
			if (!x || x->shape.size() > 4)
				return "a Concat of more than 4 dimensions";
		}
		return "";
	}
	for (size_t i = 1; i < node.inputs.size(); i++)
		if (std::string why = parameterRefusal(graph, node, i, shapes); !why.empty())
			return why;
	const ValueShape *x = shapeOf(shapes, node.inputs[0]);
	if (!x)
		return "unknown shapes";
	/* OpenVX's tensors have at most six dimensions; the DLA's N folds those before C, H, W. */
	std::vector<const ValueShape *> data = { x };
	for (const std::string &name : node.outputs)
		if (!name.empty())
			data.push_back(shapeOf(shapes, name));
	for (const ValueShape *value : data) {
		if (!value || value->shape.size() > 6)
			return node.opType + " of more than 6 dimensions";
		int64_t folded = 1;
		for (size_t d = 0; d + 3 < value->shape.size(); d++)
			folded *= value->shape[d];
		if (folded > 65535)
			return "dimensions before the last three of more than 65535 elements";
	}
	if (node.opType == "Transpose") {
		try {
			const TransposeAxes axes =
				fewestAxes(x->shape, transposePerm(node, x->shape.size()));
			if (axes.shape.size() > 4)
				return "a Transpose that moves more than 4 blocks of axes";
		} catch (const std::exception &e) {
			return e.what();
		}
		return "";
	}
	const size_t maxRank = renamesData(node.opType) ? 6 : 4;
	for (const std::string &name : node.outputs) {
		const ValueShape *y = shapeOf(shapes, name);
		if (!y)
			return "unknown shapes";
		if (y->shape.size() > maxRank || x->shape.size() > maxRank)
			return node.opType + " of more than " + std::to_string(maxRank) +
			       " dimensions";
	}
	if (node.opType == "Slice") {
		std::vector<const Tensor *> inputs = { nullptr };
		for (size_t i = 1; i < node.inputs.size(); i++)
			inputs.push_back(node.inputs[i].empty()
						 ? nullptr
						 : knownValue(graph, shapes, node.inputs[i]));
		try {
			OpContext ctx(node, graph.opset, inputs);
			for (int64_t step : sliceAxes(ctx, x->shape).step)
				if (step < 0)
					return "Slice with a negative step (RUBIK reads forward)";
		} catch (const std::exception &e) {
			return e.what();
		}
	}
	if (node.opType == "DepthToSpace" || node.opType == "SpaceToDepth") {
		const Attribute *block = node.attribute("blocksize");
		const Attribute *mode = node.attribute("mode");
		if (x->shape.size() != 4 || !block || block->i < 1 || block->i > 16)
			return node.opType + " of [N, C, H, W] with a block of 1 to 16 runs on the DLA";
		if (mode && mode->s != "DCR" && mode->s != "CRD")
			return "DepthToSpace mode '" + mode->s + "'";
	}
	return "";
}

std::string quantConvRefusal(const Graph &graph, const Node &node, const ShapeMap &shapes)
{
	for (size_t i = 1; i < node.inputs.size(); i++)
		if (std::string why = parameterRefusal(graph, node, i, shapes); !why.empty())
			return why;
	QuantConvLayer layer;
	return prepareQuantConv(graph, node, shapes, layer);
}

/* Max(y, y_zero_point) after a QLinearConv or QLinearAdd on the DLA: its Relu. */
std::string maxRefusal(const Graph &graph, const Node &node, const ShapeMap &shapes)
{
	if (node.inputs.size() != 2)
		return "only Max of a QLinearConv or QLinearAdd and its zero point runs on the DLA";
	for (size_t i = 0; i < 2; i++) {
		const Node *conv = producerOf(graph, node.inputs[i]);
		auto zero = graph.constants.find(node.inputs[1 - i]);
		if (!conv || zero == graph.constants.end() || zero->second.elements() != 1 ||
		    conv->inputs.size() < 8 || !onlyFeeds(graph, node.inputs[i], node))
			continue;
		if ((conv->opType == "QLinearConv" || conv->opType == "QLinearMatMul")
			    ? !quantConvRefusal(graph, *conv, shapes).empty()
			    : !isElementwise(*conv) || !elementwiseRefusal(graph, *conv, shapes).empty())
			continue;
		auto yZero = graph.constants.find(conv->inputs[7]);
		if (yZero == graph.constants.end() || yZero->second.type() != zero->second.type() ||
		    yZero->second.elements() != 1 ||
		    std::memcmp(yZero->second.raw(), zero->second.raw(),
				dataTypeSize(zero->second.type())) != 0)
			continue;
		return "";
	}
	return "only Max of a QLinearConv or QLinearAdd and its zero point runs on the DLA";
}

} /* namespace */

std::string convLimitsRefusal(const ConvGeometry &g)
{
	for (size_t i = 0; i < g.kernel.size(); i++) {
		if (g.strides[i] > 16 || g.dilations[i] > 16)
			return "a stride or dilation above 16";
		if (g.padBegin[i] > 31 || g.padEnd[i] > 31)
			return "padding above 31";
		if (g.kernel[i] > 32)
			return "a kernel side above 32";
	}
	return "";
}

bool movesData(const std::string &op)
{
	static const std::set<std::string> moves = { "Transpose", "Slice", "Split", "DepthToSpace",
						     "SpaceToDepth", "Concat" };
	return moves.count(op) || renamesData(op);
}

bool renamesData(const std::string &op)
{
	static const std::set<std::string> renames = { "Reshape", "Flatten", "Squeeze",
						       "Unsqueeze", "Identity" };
	return renames.count(op) > 0;
}

const Tensor *knownValue(const Graph &graph, const ShapeMap &shapes, const std::string &name)
{
	auto constant = graph.constants.find(name);
	if (constant != graph.constants.end())
		return &constant->second;
	const ValueShape *value = shapeOf(shapes, name);
	return value && value->value ? &*value->value : nullptr;
}

std::vector<int64_t> dequantizeShape(const Node &node, const std::vector<int64_t> &shape,
				     bool perAxis)
{
	const int64_t rank = int64_t(shape.size());
	const Attribute *attr = node.attribute("axis");
	int64_t axis = attr ? attr->i : 1;
	if (axis < 0)
		axis += rank;
	if (perAxis && (axis < 0 || axis >= rank))
		throw OpError(EINVAL, "DequantizeLinear's axis is out of range");
	std::vector<int64_t> out = shape;
	if (!perAxis)
		axis = 0;
	if (rank != 4 || (perAxis && axis != 1)) {
		const size_t a = size_t(std::min(axis, std::max<int64_t>(rank - 1, 0)));
		out = { dimsProduct(shape, 0, a), rank ? shape[a] : 1, 1,
			rank ? dimsProduct(shape, a + 1, shape.size()) : 1 };
	}
	for (int64_t d : out)
		if (d < 1 || d > 65535)
			return {};
	return out;
}

SoftmaxRows softmaxRows(const Node &node, int64_t opset, const std::vector<int64_t> &shape)
{
	const int64_t rank = int64_t(shape.size());
	const Attribute *attr = node.attribute("axis");
	int64_t axis = attr ? attr->i : opset < 13 ? 1 : -1;
	if (axis < 0)
		axis += rank;
	if (axis < 0 || axis >= std::max<int64_t>(rank, 1))
		throw OpError(EINVAL, "Softmax's axis is out of range");
	SoftmaxRows rows;
	rows.outer = dimsProduct(shape, 0, size_t(axis));
	/* Before opset 13, a row is everything from axis on. */
	rows.length = opset < 13 ? dimsProduct(shape, size_t(axis), shape.size())
				 : rank ? shape[axis] : 1;
	rows.inner = opset < 13 ? 1 : dimsProduct(shape, size_t(axis) + 1, shape.size());
	return rows;
}

std::string dlaRefusal(const Graph &graph, const Node &node, const ShapeMap &shapes)
{
	static const std::set<std::string> supported = { "Conv", "Relu", "MaxPool", "AveragePool",
							 "Gemm", "QLinearConv", "QLinearMatMul",
							 "ConvInteger", "MatMulInteger", "Softmax", "LRN",
							 "GlobalAveragePool", "GlobalMaxPool",
							 "DequantizeLinear",
							 "Max" };
	if (isElementwise(node)) {
		/* Dimensions as below (a scalar is a tensor of one element there);
		 * the operand types are its own. */
		if (node.inputs.empty() || node.outputs.size() != 1)
			return node.opType + " with other inputs than its operator's";
		if (node.opType == "QLinearAdd")
			for (size_t i : { 1, 2, 4, 5, 6, 7 })
				if (i < node.inputs.size())
					if (std::string why = parameterRefusal(graph, node, i, shapes);
					    !why.empty())
						return why;
		for (const std::string &name : node.inputs) {
			auto it = shapes.find(name);
			if (it != shapes.end())
				for (int64_t d : it->second.shape)
					if (d < 1 || d > 65535)
						return "a dimension of " + std::to_string(d) +
						       " (the DLA takes 1 to 65535)";
		}
		return elementwiseRefusal(graph, node, shapes);
	}
	if (!supported.count(node.opType) && !movesData(node.opType))
		return node.opType + " has no DLA lowering yet";
	if (std::string why = typeRefusal(node, shapes); !why.empty())
		return why;
	/* The data: parameters (a Slice's starts, a scale) may be scalars or empty. */
	std::vector<std::string> tensors = node.outputs;
	if (movesData(node.opType) && node.opType != "Concat")
		tensors.push_back(node.inputs[0]);
	else
		tensors.insert(tensors.end(), node.inputs.begin(), node.inputs.end());
	for (const std::string &name : tensors) {
		const ValueShape *value = shapeOf(shapes, name);
		if (name.empty() || !value)
			continue;
		/* Max's zero point may come first (maxRefusal()). */
		const bool data = (name == node.inputs[0] && node.opType != "Max") ||
				  node.opType == "Concat" ||
				  std::find(node.outputs.begin(), node.outputs.end(), name) !=
					  node.outputs.end();
		if (value->shape.empty() && data)
			return "a scalar (the DLA's tensors have dimensions)";
		/* A move of an empty value, or to one, has nothing to move. */
		const bool emptyMove = movesData(node.opType);
		for (int64_t d : value->shape)
			if ((d < 1 && !(d == 0 && emptyMove)) || d > 65535)
				return "a dimension of " + std::to_string(d) +
				       " (the DLA takes 1 to 65535)";
	}
	if (movesData(node.opType))
		return moveRefusal(graph, node, shapes);
	if (node.opType == "Conv")
		return convRefusal(graph, node, shapes);
	if (node.opType == "MaxPool" || node.opType == "AveragePool")
		return poolRefusal(graph, node, shapes);
	if (node.opType == "Gemm")
		return gemmRefusal(graph, node, shapes);
	if (convolvesIntegers(node.opType))
		return quantConvRefusal(graph, node, shapes);
	if (node.opType == "Max")
		return maxRefusal(graph, node, shapes);
	if (node.opType == "Softmax") {
		const ValueShape *x = shapeOf(shapes, node.inputs[0]);
		if (!x)
			return "unknown shapes";
		/* OpError for an axis out of range: the CPU kernel says which. */
		SoftmaxRows rows;
		try {
			rows = softmaxRows(node, graph.opset, x->shape);
		} catch (const std::exception &e) {
			return e.what();
		}
		if (rows.outer > 65535 || rows.length > 65535 || rows.inner > 65535)
			return "Softmax rows, their length or their spacing beyond 65535";
		/* The layer's FP32 intermediates. */
		if (rows.outer * rows.length * rows.inner * 4 > (int64_t(1) << 31))
			return "Softmax intermediates beyond 2 GiB";
		return "";
	}
	if (node.opType == "DequantizeLinear") {
		/* Scale and zero point known to the plan, per tensor or per axis; x int8 or uint8. */
		for (size_t i = 1; i < node.inputs.size(); i++)
			if (std::string why = parameterRefusal(graph, node, i, shapes); !why.empty())
				return why;
		const ValueShape *x = shapeOf(shapes, node.inputs[0]);
		const Tensor *scale = node.inputs.size() > 1 ? knownValue(graph, shapes, node.inputs[1])
							     : nullptr;
		if (!x || !scale || scale->type() != DataType::Float)
			return "DequantizeLinear's scale is not a float value the plan knows";
		if (x->type != DataType::Int8 && x->type != DataType::Uint8)
			return std::string("DequantizeLinear of ") + dataTypeName(x->type) +
			       " (the DLA holds int8)";
		const bool perAxis = scale->rank() == 1 && scale->elements() > 1;
		if (scale->elements() != 1 && !perAxis)
			return "a DequantizeLinear scale neither per tensor nor per axis";
		/* What the CPU kernel checks at each run, and the segment reads by index. */
		const Tensor *zero = node.inputs.size() > 2 && !node.inputs[2].empty()
					     ? knownValue(graph, shapes, node.inputs[2])
					     : nullptr;
		if (zero && (zero->type() != x->type || zero->elements() != scale->elements()))
			return "a DequantizeLinear zero point of another type or count than x's and "
			       "the scale's";
		try {
			if (dequantizeShape(node, x->shape, perAxis).empty())
				return "DequantizeLinear of dimensions beyond 65535";
		} catch (const std::exception &e) {
			return e.what();
		}
		return "";
	}
	if (node.opType == "GlobalAveragePool" || node.opType == "GlobalMaxPool") {
		/* One PDP window over the plane. */
		const ValueShape *x = shapeOf(shapes, node.inputs[0]);
		if (!x || x->shape.size() != 4)
			return "only global pooling of [N, C, H, W] runs on the DLA";
		if (x->shape[2] > 16 || x->shape[3] > 16)
			return "a global pooling of a plane beyond 16 x 16 (the PDP's window)";
		return "";
	}
	if (node.opType == "LRN") {
		/* The local response normalization layer across maps: a window centred on c. */
		const ValueShape *x = shapeOf(shapes, node.inputs[0]);
		const Attribute *size = node.attribute("size");
		const Attribute *alpha = node.attribute("alpha");
		const Attribute *beta = node.attribute("beta");
		const Attribute *bias = node.attribute("bias");
		if (!x || x->shape.size() != 4)
			return "only LRN of [N, C, H, W] runs on the DLA";
		if (!size || size->i < 1 || size->i > 15 || size->i % 2 == 0)
			return "an LRN size other than an odd one up to 15 (a window centred on "
			       "its channel)";
		if ((alpha && !(std::isfinite(alpha->f) && alpha->f >= 0)) ||
		    (beta && !(std::isfinite(beta->f) && beta->f >= 0)) ||
		    (bias && !(std::isfinite(bias->f) && bias->f > 0)))
			return "LRN with an alpha or beta that is not finite and >= 0, or a bias not "
			       "finite and above 0";
		return "";
	}
	if (node.opType == "Relu") {
		const ValueShape *x = shapeOf(shapes, node.inputs[0]);
		if (!x || x->shape.empty() || x->shape.size() > 4)
			return "Relu of a rank other than 1 to 4";
	}
	return "";
}

} /* namespace vdla::onnx */
