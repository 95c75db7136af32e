/* SPDX-License-Identifier: MIT */

#include "shape_pass.h"

#include "conv_geometry.h"

#include <map>
#include <set>

namespace vdla::onnx {

namespace {

/*
 * Operators whose output shapes depend on input values, and which inputs
 * (empty: all of them).
 */
const std::map<std::string, std::set<size_t>> &shapeDecidingInputs()
{
	static const std::map<std::string, std::set<size_t>> operators = {
		{ "Reshape", { 1 } }, { "Expand", { 1 } }, { "Tile", { 1 } },
		{ "Slice", { 1, 2, 3, 4 } }, { "Range", {} }, { "ConstantOfShape", { 0 } },
		{ "NonZero", { 0 } }, { "Compress", { 1 } }, { "TopK", { 1 } },
		{ "Resize", { 1, 2, 3 } }, { "Upsample", { 1 } }, { "Pad", { 1, 3 } },
		{ "OneHot", { 1 } }, { "Unique", { 0 } }, { "NonMaxSuppression", {} },
		{ "Squeeze", { 1 } }, { "Unsqueeze", { 1 } }, { "ReduceSum", { 1 } },
		{ "ReduceMean", { 1 } }, { "ReduceMax", { 1 } }, { "ReduceMin", { 1 } },
		{ "ReduceProd", { 1 } }, { "ReduceL1", { 1 } }, { "ReduceL2", { 1 } },
		{ "ReduceLogSum", { 1 } }, { "ReduceLogSumExp", { 1 } },
		{ "ReduceSumSquare", { 1 } }, { "Split", { 1 } }, { "DFT", { 1, 2 } },
		{ "STFT", { 1, 2, 3 } }, { "MelWeightMatrix", {} }, { "HannWindow", { 0 } },
		{ "HammingWindow", { 0 } }, { "BlackmanWindow", { 0 } },
		{ "CenterCropPad", { 1 } }, { "Col2Im", { 1, 2 } }, { "MaxUnpool", { 2 } },
	};
	return operators;
}

/* Whether input @index of @node decides the shape of its outputs. */
bool decidesShape(const Node &node, size_t index)
{
	auto it = shapeDecidingInputs().find(node.opType);
	return it != shapeDecidingInputs().end() && (it->second.empty() || it->second.count(index));
}

const Tensor *find(const Graph &graph, const std::map<std::string, Tensor> &values,
		   const Node &node, size_t input)
{
	if (input >= node.inputs.size() || node.inputs[input].empty())
		return nullptr;
	auto value = values.find(node.inputs[input]);
	if (value != values.end())
		return &value->second;
	auto constant = graph.constants.find(node.inputs[input]);
	return constant == graph.constants.end() ? nullptr : &constant->second;
}

/* [N, channels, the window's output sizes] for @x's spatial axes. */
std::optional<std::vector<int64_t>> windowOutput(const Graph &graph, const Node &node,
						 const Tensor &x, int64_t channels,
						 const std::vector<int64_t> &kernel, bool ceil)
{
	if (x.rank() < 3 || kernel.size() != size_t(x.rank() - 2))
		return std::nullopt;
	std::vector<int64_t> spatial(x.shape().begin() + 2, x.shape().end());
	try {
		OpContext ctx(node, graph.opset, {});
		ConvGeometry g = convGeometry(ctx, spatial, kernel, ceil);
		std::vector<int64_t> shape = { x.shape()[0], channels };
		shape.insert(shape.end(), g.outputSize.begin(), g.outputSize.end());
		for (int64_t d : shape)
			if (d < 0)
				return std::nullopt;
		return shape;
	} catch (const std::exception &) {
		return std::nullopt;
	}
}

} /* namespace */

std::vector<bool> valuesDecideShapes(const Graph &graph)
{
	std::vector<bool> matter(graph.nodes.size(), false);
	/* Nodes are in topological order: a reader comes after its producers. */
	for (size_t i = graph.nodes.size(); i-- > 0;) {
		for (const std::string &output : graph.nodes[i].outputs) {
			if (output.empty())
				continue;
			for (size_t reader : graph.readersOf(output)) {
				const Node &r = graph.nodes[reader];
				/* Shape and Size read only the shape. */
				if (r.opType == "Shape" || r.opType == "Size")
					continue;
				for (size_t in = 0; in < r.inputs.size(); in++)
					if (r.inputs[in] == output && decidesShape(r, in))
						matter[i] = true;
				if (matter[reader])
					matter[i] = true;
			}
		}
	}
	return matter;
}

std::optional<std::vector<Tensor>> outputsOfTheirShape(const Graph &graph, const Node &node,
						       const std::map<std::string, Tensor> &values)
{
	const std::string &op = node.opType;
	std::optional<std::vector<int64_t>> shape;
	DataType type = DataType::Undefined;
	if (op == "Conv" || op == "ConvInteger" || op == "QLinearConv") {
		const Tensor *x = find(graph, values, node, 0);
		const Tensor *w = find(graph, values, node, op == "QLinearConv" ? 3 : 1);
		const Tensor *yZero = op == "QLinearConv" ? find(graph, values, node, 7) : nullptr;
		if (!x || !w || w->rank() != x->rank() || (op == "QLinearConv" && !yZero))
			return std::nullopt;
		std::vector<int64_t> kernel(w->shape().begin() + 2, w->shape().end());
		shape = windowOutput(graph, node, *x, w->shape()[0], kernel, false);
		type = op == "Conv" ? x->type() : op == "ConvInteger" ? DataType::Int32 : yZero->type();
	} else if (op == "MaxPool" || op == "AveragePool") {
		const Tensor *x = find(graph, values, node, 0);
		const Attribute *kernel = node.attribute("kernel_shape");
		const Attribute *ceil = node.attribute("ceil_mode");
		if (!x || !kernel || (op == "MaxPool" && node.outputs.size() > 1))
			return std::nullopt;
		shape = windowOutput(graph, node, *x, x->rank() > 1 ? x->shape()[1] : 0,
				     kernel->ints, ceil && ceil->i);
		type = x->type();
	}
	if (!shape || type == DataType::Undefined)
		return std::nullopt;
	std::vector<Tensor> outputs;
	outputs.emplace_back(type, *shape);
	return outputs;
}

} /* namespace vdla::onnx */
