/* SPDX-License-Identifier: MIT */
/* Questions about a Graph that the rewrites and the planner ask. */

#include "graph.h"

#include <algorithm>

namespace vdla::onnx {

bool Graph::isOutput(const std::string &value) const
{
	return std::any_of(outputs.begin(), outputs.end(),
			   [&](const ValueInfo &info) { return info.name == value; });
}

std::vector<size_t> Graph::readersOf(const std::string &value) const
{
	std::vector<size_t> readers;
	for (size_t i = 0; i < nodes.size(); i++)
		if (std::find(nodes[i].inputs.begin(), nodes[i].inputs.end(), value) !=
		    nodes[i].inputs.end())
			readers.push_back(i);
	return readers;
}

} /* namespace vdla::onnx */
