/* SPDX-License-Identifier: MIT */

#include "run_plan.h"

#include "cpu_executor.h"

#include <cerrno>
#include <chrono>

namespace vdla::onnx {

namespace {

std::string nodeLabel(const Node &node)
{
	return "node '" + node.name + "' (" + node.opType + ")";
}

/*
 * A Flatten on the DLA only renames its input for the Gemm after it: one
 * whose result leaves the DLA nodes, or ends the graph, runs on the CPU.
 */
void keepFlattenWithItsGemm(const Graph &graph, std::vector<bool> &onDla)
{
	for (size_t i = 0; i < graph.nodes.size(); i++) {
		const Node &node = graph.nodes[i];
		if (!onDla[i] || node.opType != "Flatten")
			continue;
		bool fed = !graph.isOutput(node.outputs[0]);
		for (size_t consumer : graph.readersOf(node.outputs[0]))
			fed = fed && onDla[consumer] && graph.nodes[consumer].opType == "Gemm";
		onDla[i] = fed;
	}
}

/* The values of @segment that nodes outside it or the graph's outputs read. */
std::set<std::string> exportsOf(const Graph &graph, const std::vector<size_t> &segment)
{
	std::set<size_t> inside(segment.begin(), segment.end());
	std::set<std::string> exported;
	for (size_t index : segment)
		for (const std::string &value : graph.nodes[index].outputs) {
			if (value.empty())
				continue;
			bool leaves = graph.isOutput(value);
			for (size_t consumer : graph.readersOf(value))
				leaves = leaves || !inside.count(consumer);
			if (leaves)
				exported.insert(value);
		}
	return exported;
}

uint64_t elapsedSince(std::chrono::steady_clock::time_point start)
{
	return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
								    start)
		.count();
}

} /* namespace */

Result<ShapeMap> shapesForInputs(const Graph &graph, std::map<std::string, Tensor> values)
{
	for (const Node &node : graph.nodes) {
		Result<void> ran = runNodeOnCpu(graph, node, values);
		if (!ran)
			return ran.error();
	}
	ShapeMap shapes;
	for (const auto &[name, tensor] : graph.constants)
		shapes[name] = { tensor.type(), tensor.shape() };
	for (const auto &[name, tensor] : values)
		shapes[name] = { tensor.type(), tensor.shape() };
	return shapes;
}

Result<std::unique_ptr<ExecutionPlan>> ExecutionPlan::make(vx_context context, const Graph &graph,
							   const ShapeMap &shapes, Target target)
{
	std::vector<bool> onDla(graph.nodes.size(), false);
	for (size_t i = 0; i < graph.nodes.size(); i++) {
		std::string refusal = dlaRefusal(graph, graph.nodes[i], shapes);
		if (target == Target::Dla && !refusal.empty())
			return Error(ENOTSUP, nodeLabel(graph.nodes[i]) + " cannot run on the DLA: " +
						      refusal);
		onDla[i] = refusal.empty();
	}
	keepFlattenWithItsGemm(graph, onDla);
	for (size_t i = 0; i < graph.nodes.size() && target == Target::Dla; i++)
		if (!onDla[i])
			return Error(ENOTSUP, nodeLabel(graph.nodes[i]) + " cannot run on the DLA: "
						      "a Flatten runs there only before a Gemm on the DLA");

	auto plan = std::make_unique<ExecutionPlan>();
	plan->target_ = target;
	for (size_t i = 0; i < graph.nodes.size();) {
		if (!onDla[i]) {
			plan->steps_.push_back({ i, nullptr });
			i++;
			continue;
		}
		std::vector<size_t> segment;
		while (i < graph.nodes.size() && onDla[i])
			segment.push_back(i++);
		auto built = DlaSegment::build(context, graph, segment, shapes,
					       exportsOf(graph, segment));
		if (!built && target == Target::Any) {
			/*
			 * No vDLA, or a limit of the lowering dla_support does not know:
			 * "any" runs these nodes on the CPU.
			 */
			for (size_t index : segment)
				plan->steps_.push_back({ index, nullptr });
			continue;
		}
		if (!built)
			return built.error();
		plan->steps_.push_back({ 0, std::move(*built) });
	}
	return plan;
}

Result<void> ExecutionPlan::run(const Graph &graph, std::map<std::string, Tensor> &values,
				std::vector<NodeTiming> *timings) const
{
	std::lock_guard<std::mutex> guard(lock_);
	for (const Step &step : steps_) {
		if (!step.segment) {
			Result<void> ran = runTimedOnCpu(graph, graph.nodes[step.node], values, timings);
			if (!ran)
				return ran.error();
			continue;
		}
		std::string mismatch = step.segment->shapeMismatch(graph, values);
		if (!mismatch.empty() && target_ == Target::Dla)
			return Error(ENOTSUP, "the DLA segment " + step.segment->label() + " was planned "
					      "for other shapes: " + mismatch);
		if (!mismatch.empty()) {
			/* Shapes computed from input values changed: this run takes the CPU. */
			for (size_t index : step.segment->nodes()) {
				Result<void> ran = runTimedOnCpu(graph, graph.nodes[index], values, timings);
				if (!ran)
					return ran.error();
			}
			continue;
		}
		auto start = std::chrono::steady_clock::now();
		Result<void> ran = step.segment->run(graph, values);
		if (!ran)
			return ran.error();
		if (timings)
			timings->push_back({ step.segment->label(), "DLA segment", Target::Dla,
					     elapsedSince(start) });
	}
	return {};
}

} /* namespace vdla::onnx */
