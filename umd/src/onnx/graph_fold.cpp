/* SPDX-License-Identifier: MIT */
/*
 * Constant folding: a node whose inputs are all known before any run is run
 * once at import, its outputs become constants and the node leaves the
 * graph. Nodes without inputs that are not Constant-like (random
 * generators) are kept, so that each run draws anew.
 */

#include "graph.h"

#include "cpu_executor.h"

#include <set>

namespace vdla::onnx {

/*
 * A DequantizeLinear of an integer constant (weights, biases): kept in the
 * first folding, for the QDQ fusion to find the integers it dequantises.
 */
static bool dequantizesConstant(const Graph &graph, const Node &node)
{
	if (node.opType != "DequantizeLinear" || !node.domain.empty() || node.inputs.empty())
		return false;
	auto x = graph.constants.find(node.inputs[0]);
	return x != graph.constants.end() &&
	       (x->second.type() == DataType::Int8 || x->second.type() == DataType::Uint8 ||
		x->second.type() == DataType::Int32);
}

static bool isFoldable(const Graph &graph, const Node &node, Dequantization dequantization)
{
	static const std::set<std::string> neverFold = {
		"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
		"Multinomial", "Bernoulli",
	};
	if (neverFold.count(node.opType) || !node.domain.empty())
		return false;
	if (dequantization == Dequantization::Keep && dequantizesConstant(graph, node))
		return false;
	for (const std::string &input : node.inputs)
		if (!input.empty() && !graph.constants.count(input))
			return false;
	return true;
}

Result<void> foldConstants(Graph &graph, Dequantization dequantization)
{
	std::vector<Node> kept;
	for (Node &node : graph.nodes) {
		if (!isFoldable(graph, node, dequantization)) {
			kept.push_back(std::move(node));
			continue;
		}
		std::map<std::string, Tensor> values;
		Result<void> ran = runNodeOnCpu(graph, node, values);
		if (!ran) {
			/* Left to the run, which reports the error if it is one. */
			kept.push_back(std::move(node));
			continue;
		}
		for (auto &value : values)
			graph.constants[value.first] = std::move(value.second);
	}
	graph.nodes = std::move(kept);
	return {};
}

} /* namespace vdla::onnx */
