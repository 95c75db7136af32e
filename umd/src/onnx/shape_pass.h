/* SPDX-License-Identifier: MIT */
/*
 * The plan's CPU run learns every value's shape (run_plan.h). The heavy
 * layers (Conv, QLinearConv, ConvInteger, MaxPool, AveragePool) have
 * outputs whose shape follows from their inputs' shapes and attributes
 * alone: where no later node lets values decide a shape (Reshape's shape,
 * Slice's ends, NonZero, ...), the pass gives them outputs of that shape,
 * filled with zeros, instead of computing them. An INT8 ResNet-18's first
 * run in the guest went from 28.5 s to the time of its other nodes.
 */
#pragma once

#include "graph.h"

#include <map>
#include <optional>
#include <vector>

namespace vdla::onnx {

/*
 * Per node: whether the values of its outputs may decide the shape of a
 * later value (they reach, through any nodes, an input of an operator
 * whose output shape depends on input values).
 */
std::vector<bool> valuesDecideShapes(const Graph &graph);

/*
 * Zero-filled outputs of the shapes and types @node would compute from
 * @values, for the operators above; std::nullopt for any other, or when
 * its inputs are not what it takes (the kernel then runs, and reports).
 */
std::optional<std::vector<Tensor>> outputsOfTheirShape(const Graph &graph, const Node &node,
						       const std::map<std::string, Tensor> &values);

} /* namespace vdla::onnx */
