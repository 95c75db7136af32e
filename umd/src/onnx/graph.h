/* SPDX-License-Identifier: MIT */
/*
 * The runtime's graph of an imported ONNX model: operators in an order that
 * runs every producer before its consumers, their attributes decoded, and the
 * constant tensors (initialisers, Constant nodes, folded subgraphs) by name.
 * Nothing here refers to protobuf: graph_import.cpp is the only reader of
 * the ModelProto.
 */
#pragma once

#include <vdla/onnx.h>

#include <map>
#include <string>
#include <vector>

namespace vdla::onnx {

struct Attribute {
	enum class Kind { Float, Int, String, Tensor, Floats, Ints, Strings, Graph };

	Kind kind;
	float f = 0;
	int64_t i = 0;
	std::string s;
	Tensor t;
	std::vector<float> floats;
	std::vector<int64_t> ints;
	std::vector<std::string> strings;
};

struct Node {
	std::string name;
	std::string opType;
	/* "" for the default domain ai.onnx. */
	std::string domain;
	/* "" for an optional input or output left out. */
	std::vector<std::string> inputs;
	std::vector<std::string> outputs;
	std::map<std::string, Attribute> attributes;

	const Attribute *attribute(const std::string &attrName) const;
};

class Graph
{
public:
	/* The opset of the default domain the model imports. */
	int64_t opset = 0;
	std::vector<Node> nodes;
	/* Values known before any run: initialisers and folded outputs. */
	std::map<std::string, Tensor> constants;
	std::vector<ValueInfo> inputs;
	std::vector<ValueInfo> outputs;

	/* Whether @value is one of the graph's outputs. */
	bool isOutput(const std::string &value) const;
	/* The indices of the nodes that read @value, in graph order. */
	std::vector<size_t> readersOf(const std::string &value) const;
};

/* Reads and checks a model file into a Graph (graph_import.cpp). */
Result<std::unique_ptr<Graph>> importModel(const std::string &path);

/* Whether foldConstants() folds a DequantizeLinear of integer constants. */
enum class Dequantization {
	Fold,
	/* Keeps the node, so that fuseQdq() sees the quantised weights behind it. */
	Keep,
};

/*
 * Runs every node whose inputs are all constants once, and keeps its
 * outputs as constants (graph_fold.cpp): Constant nodes, shape arithmetic
 * on initialisers, weights transposed or reshaped in the graph.
 */
Result<void> foldConstants(Graph &graph, Dequantization dequantization = Dequantization::Fold);

/*
 * Between a folding that keeps the DequantizeLinear of integer constants and
 * one that folds what is left (graph_qdq_fusion.cpp): a Conv or Gemm between
 * DequantizeLinear and QuantizeLinear nodes becomes a QLinearConv, and an
 * operator that only moves values between a DequantizeLinear and a
 * QuantizeLinear of one scale and zero point runs on the integers.
 */
void fuseQdq(Graph &graph);

/*
 * After folding (graph_rewrite.cpp): Identity and inference Dropout leave
 * the graph, and a BatchNormalization after a Conv with constant weights is
 * folded into them.
 */
void rewriteGraph(Graph &graph);

} /* namespace vdla::onnx */
