/* SPDX-License-Identifier: MIT */
/* Runs nodes of a Graph on the CPU kernels, in graph order. */
#pragma once

#include "graph.h"

#include <map>
#include <string>
#include <vector>

namespace vdla::onnx {

/*
 * Runs `node`, reading its inputs from `values` then from the graph's
 * constants, and stores its outputs in `values`. The error names the node
 * and its operator.
 */
Result<void> runNodeOnCpu(const Graph &graph, const Node &node,
			  std::map<std::string, Tensor> &values);

/* runNodeOnCpu, with the node's time appended to @timings when it is given. */
Result<void> runTimedOnCpu(const Graph &graph, const Node &node,
			   std::map<std::string, Tensor> &values, std::vector<NodeTiming> *timings);

} /* namespace vdla::onnx */
