/* SPDX-License-Identifier: MIT */
/* The order in which a graph's nodes run (object.h, orderNodes()). */

#include "framework/object.h"

#include "objects/tensor_layout.h"

#include <algorithm>
#include <deque>

namespace vdla::vx {

vx_status orderNodes(vx_graph graph, const std::function<unsigned(vx_node)> &runOf)
{
	/*
	 * The outputs, grouped by the object owning their memory: sub-images
	 * of one image are written and read through each other where their
	 * parts overlap, and no two nodes may write the same memory.
	 */
	struct Output {
		vx_reference ref;
		vx_node producer;
	};
	std::map<vx_reference, std::vector<Output>> outputs;
	const MemoryGroups &groups = *graph->memory;
	for (vx_node node : graph->nodes) {
		for (vx_uint32 i = 0; i < node->parameters.size(); i++) {
			vx_reference ref = node->parameters[i];
			if (!ref || node->kernel->parameters[i].direction != VX_OUTPUT)
				continue;
			std::vector<Output> &written = outputs[groups.of(ref)];
			for (const Output &other : written) {
				if (sharesMemory(other.ref, ref))
					return VX_ERROR_MULTIPLE_WRITERS;
			}
			written.push_back({ ref, node });
		}
	}

	std::map<vx_node, std::vector<vx_node>> consumers;
	std::map<vx_node, size_t> pending;
	for (vx_node node : graph->nodes) {
		pending[node];
		for (vx_uint32 i = 0; i < node->parameters.size(); i++) {
			vx_reference ref = node->parameters[i];
			if (!ref || node->kernel->parameters[i].direction != VX_INPUT)
				continue;
			auto written = outputs.find(groups.of(ref));
			if (written == outputs.end())
				continue;
			for (const Output &output : written->second) {
				if (!sharesMemory(output.ref, ref))
					continue;
				consumers[output.producer].push_back(node);
				pending[node]++;
			}
		}
	}

	/*
	 * Kahn's algorithm with one queue per run: the current run goes on
	 * while it has ready nodes, then the lowest-numbered run with ready
	 * nodes takes over. Without @runOf, a plain first-in first-out order.
	 */
	std::map<unsigned, std::deque<vx_node>> ready;
	auto makeReady = [&](vx_node node) { ready[runOf ? runOf(node) : 0].push_back(node); };
	for (vx_node node : graph->nodes) {
		if (pending[node] == 0)
			makeReady(node);
	}
	graph->order.clear();
	unsigned run = 0;
	while (true) {
		if (ready[run].empty()) {
			auto next = std::find_if(ready.begin(), ready.end(),
				[](const auto &queue) { return !queue.second.empty(); });
			if (next == ready.end())
				break;
			run = next->first;
		}
		vx_node node = ready[run].front();
		ready[run].pop_front();
		graph->order.push_back(node);
		for (vx_node consumer : consumers[node]) {
			if (--pending[consumer] == 0)
				makeReady(consumer);
		}
	}
	return graph->order.size() == graph->nodes.size() ? VX_SUCCESS : VX_ERROR_INVALID_GRAPH;
}

} /* namespace vdla::vx */
