/* SPDX-License-Identifier: MIT */
/*
 * Rewrites after folding (docs/onnx.md, "Import"): nodes that only pass a
 * value on leave the graph, and an inference BatchNormalization after a
 * convolution with constant weights becomes part of those weights, so that
 * the convolution is one layer on any target.
 */

#include "graph.h"

#include <cmath>
#include <set>

namespace vdla::onnx {

namespace {

/*
 * Identity, and Dropout in inference (no training_mode input, its mask
 * unused): consumers read the input directly. A node whose output is a
 * graph output stays, as the output keeps its name.
 */
bool passesValueOn(const Node &node)
{
	if (node.opType == "Identity")
		return node.inputs.size() == 1;
	if (node.opType != "Dropout")
		return false;
	bool training = node.inputs.size() > 2 && !node.inputs[2].empty();
	bool mask = node.outputs.size() > 1 && !node.outputs[1].empty();
	return !training && !mask && !node.inputs.empty() && !node.inputs[0].empty();
}

void removePassThroughs(Graph &graph)
{
	std::vector<Node> nodes = std::move(graph.nodes);
	graph.nodes.clear();
	for (size_t i = 0; i < nodes.size(); i++) {
		Node &node = nodes[i];
		if (passesValueOn(node) && !graph.isOutput(node.outputs[0])) {
			for (size_t j = i + 1; j < nodes.size(); j++)
				for (std::string &input : nodes[j].inputs)
					if (input == node.outputs[0])
						input = node.inputs[0];
			continue;
		}
		graph.nodes.push_back(std::move(node));
	}
}

const Tensor *floatConstant(const Graph &graph, const Node &node, size_t input)
{
	if (input >= node.inputs.size() || node.inputs[input].empty())
		return nullptr;
	auto it = graph.constants.find(node.inputs[input]);
	if (it == graph.constants.end() || it->second.type() != DataType::Float)
		return nullptr;
	return &it->second;
}

std::string freshName(const Graph &graph, const std::string &base)
{
	std::string name = base;
	for (int n = 1; graph.constants.count(name); n++)
		name = base + "_" + std::to_string(n);
	return name;
}

/*
 * conv -> bn becomes one Conv: with s = scale / sqrt(var + epsilon) per
 * channel, W' = W * s and B' = (B - mean) * s + bias, in double. The result
 * differs from the two nodes only by float rounding.
 */
bool foldBatchNorm(Graph &graph, size_t convIndex, size_t bnIndex)
{
	Node &conv = graph.nodes[convIndex];
	const Node &bn = graph.nodes[bnIndex];
	const Tensor *w = floatConstant(graph, conv, 1);
	const Tensor *b = floatConstant(graph, conv, 2);
	if (!w || w->rank() < 3 || (conv.inputs.size() > 2 && !conv.inputs[2].empty() && !b))
		return false;
	const int64_t maps = w->shape()[0];
	std::vector<const Tensor *> stats;
	for (size_t i = 1; i <= 4; i++) {
		const Tensor *t = floatConstant(graph, bn, i);
		if (!t || t->shape() != std::vector<int64_t>{ maps })
			return false;
		stats.push_back(t);
	}
	if (b && b->shape() != std::vector<int64_t>{ maps })
		return false;
	const Attribute *epsilonAttr = bn.attribute("epsilon");
	const double epsilon = epsilonAttr ? epsilonAttr->f : 1e-5;

	Tensor folded(DataType::Float, w->shape());
	Tensor bias(DataType::Float, { maps });
	const int64_t perMap = w->elements() / maps;
	for (int64_t m = 0; m < maps; m++) {
		const double scale = stats[0]->data<float>()[m];
		const double shift = stats[1]->data<float>()[m];
		const double mean = stats[2]->data<float>()[m];
		const double variance = stats[3]->data<float>()[m];
		const double s = scale / std::sqrt(variance + epsilon);
		for (int64_t k = 0; k < perMap; k++)
			folded.data<float>()[m * perMap + k] = float(w->data<float>()[m * perMap + k] * s);
		const double original = b ? b->data<float>()[m] : 0.0;
		bias.data<float>()[m] = float((original - mean) * s + shift);
	}
	const std::string weightName = freshName(graph, conv.inputs[1] + "_bn");
	const std::string biasName = freshName(graph, conv.name + "_bn_bias");
	graph.constants[weightName] = std::move(folded);
	graph.constants[biasName] = std::move(bias);
	conv.inputs.resize(3);
	conv.inputs[1] = weightName;
	conv.inputs[2] = biasName;
	conv.outputs[0] = bn.outputs[0];
	return true;
}

/* Whether @bn is an inference BatchNormalization with only its output Y used. */
bool isInferenceBatchNorm(const Node &bn)
{
	if (bn.opType != "BatchNormalization" || bn.inputs.size() != 5)
		return false;
	const Attribute *training = bn.attribute("training_mode");
	if (training && training->i)
		return false;
	for (size_t i = 1; i < bn.outputs.size(); i++)
		if (!bn.outputs[i].empty())
			return false;
	return true;
}

void foldBatchNorms(Graph &graph)
{
	std::set<size_t> removed;
	for (size_t i = 0; i < graph.nodes.size(); i++) {
		const Node &conv = graph.nodes[i];
		if (conv.opType != "Conv" || conv.outputs.size() != 1 ||
		    graph.isOutput(conv.outputs[0]) || graph.readersOf(conv.outputs[0]).size() != 1)
			continue;
		for (size_t j = i + 1; j < graph.nodes.size(); j++) {
			const Node &bn = graph.nodes[j];
			if (bn.inputs.empty() || bn.inputs[0] != conv.outputs[0])
				continue;
			if (isInferenceBatchNorm(bn) && foldBatchNorm(graph, i, j))
				removed.insert(j);
			break;
		}
	}
	std::vector<Node> kept;
	for (size_t i = 0; i < graph.nodes.size(); i++)
		if (!removed.count(i))
			kept.push_back(std::move(graph.nodes[i]));
	graph.nodes = std::move(kept);
}

} /* namespace */

void rewriteGraph(Graph &graph)
{
	removePassThroughs(graph);
	foldBatchNorms(graph);
}

} /* namespace vdla::onnx */
