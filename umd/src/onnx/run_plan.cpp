/* SPDX-License-Identifier: MIT */

#include "run_plan.h"

#include "cpu_executor.h"
#include "shape_pass.h"

#include <cerrno>
#include <chrono>
#include <set>

namespace vdla::onnx {

namespace {

/* The most elements of a value the plan keeps for DLA segments' parameters. */
constexpr int64_t kKnownValues = 64;

std::string nodeLabel(const Node &node)
{
	return "node '" + node.name + "' (" + node.opType + ")";
}

/* The index of the node writing @value, or graph.nodes.size(). */
size_t producerIndex(const Graph &graph, const std::string &value)
{
	for (size_t i = 0; i < graph.nodes.size(); i++)
		for (const std::string &output : graph.nodes[i].outputs)
			if (output == value)
				return i;
	return graph.nodes.size();
}

/* Whether nodes @first to @last are all on the DLA: one segment. */
bool contiguousOnDla(const std::vector<bool> &onDla, size_t first, size_t last)
{
	if (first >= onDla.size() || first > last)
		return false;
	for (size_t i = first; i <= last; i++)
		if (!onDla[i])
			return false;
	return true;
}

/* The nodes next to node @i: the producers of its data inputs, the readers of its outputs. */
std::vector<size_t> neighbours(const Graph &graph, size_t i)
{
	const Node &node = graph.nodes[i];
	std::vector<size_t> next;
	/* A move's other inputs are parameters (a Reshape's shape), but Concat's are all data. */
	const size_t dataInputs = node.opType == "Concat" ? node.inputs.size() : 1;
	for (size_t k = 0; k < dataInputs && k < node.inputs.size(); k++)
		next.push_back(producerIndex(graph, node.inputs[k]));
	for (const std::string &output : node.outputs)
		for (size_t reader : graph.readersOf(output))
			next.push_back(reader);
	return next;
}

/*
 * Placements that depend on the neighbours'. A Max on the DLA is the Relu
 * of the QLinearConv before it, in the same segment (dla_segment.cpp takes
 * it into the convolution). With the target any, a node that only moves
 * data stays on the DLA when it reaches a layer there, through other such
 * nodes or none (its segment then saves a round trip between two), and
 * runs on the CPU otherwise: a task of copies alone costs more than the
 * copies. Repeated until nothing changes.
 */
void placeByNeighbours(const Graph &graph, Target target, std::vector<bool> &onDla)
{
	const size_t count = graph.nodes.size();
	for (bool changed = true; changed;) {
		changed = false;
		/* The DLA nodes that are layers, or moves joined to one. */
		std::vector<bool> joined(count);
		for (size_t i = 0; i < count; i++)
			joined[i] = onDla[i] && !movesData(graph.nodes[i].opType);
		for (bool grew = true; grew;) {
			grew = false;
			for (size_t i = 0; i < count; i++) {
				if (!onDla[i] || joined[i])
					continue;
				for (size_t next : neighbours(graph, i))
					if (next < count && joined[next]) {
						joined[i] = grew = true;
						break;
					}
			}
		}
		for (size_t i = 0; i < count; i++) {
			const Node &node = graph.nodes[i];
			if (!onDla[i])
				continue;
			bool keep = true;
			if (node.opType == "Max") {
				/* Max(c, zero point) or Max(zero point, c). */
				size_t conv = producerIndex(graph, node.inputs[0]);
				if (conv >= count && node.inputs.size() > 1)
					conv = producerIndex(graph, node.inputs[1]);
				keep = contiguousOnDla(onDla, conv, i);
			} else if (movesData(node.opType) && target == Target::Any) {
				keep = joined[i];
			}
			if (!keep) {
				onDla[i] = false;
				changed = true;
			}
		}
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

/*
 * One CPU run, @skipLayers: giving the layers of shape_pass.h outputs of
 * their shape only. @placeholders gets the values computed from those
 * zeros, which are no value of the model.
 */
static Result<void> runForShapes(const Graph &graph, std::map<std::string, Tensor> &values,
				 bool skipLayers, std::set<std::string> &placeholders)
{
	const std::vector<bool> valuesMatter = valuesDecideShapes(graph);
	placeholders.clear();
	for (size_t i = 0; i < graph.nodes.size(); i++) {
		const Node &node = graph.nodes[i];
		bool fromPlaceholder = false;
		for (const std::string &input : node.inputs)
			fromPlaceholder = fromPlaceholder || placeholders.count(input);
		if (skipLayers && !valuesMatter[i]) {
			std::optional<std::vector<Tensor>> outputs = outputsOfTheirShape(graph, node, values);
			if (outputs) {
				for (size_t o = 0; o < outputs->size(); o++) {
					values[node.outputs[o]] = std::move((*outputs)[o]);
					placeholders.insert(node.outputs[o]);
				}
				continue;
			}
		}
		Result<void> ran = runNodeOnCpu(graph, node, values);
		if (!ran)
			return ran.error();
		if (fromPlaceholder)
			placeholders.insert(node.outputs.begin(), node.outputs.end());
	}
	return {};
}

Result<ShapeMap> shapesForInputs(const Graph &graph, std::map<std::string, Tensor> values)
{
	/* A kernel may refuse the zeros of a skipped layer (an integer division
	 * by them): the run is then made again in full, which reports the real
	 * error if there is one. */
	std::map<std::string, Tensor> inputs = values;
	std::set<std::string> placeholders;
	Result<void> ran = runForShapes(graph, values, true, placeholders);
	if (!ran) {
		values = std::move(inputs);
		ran = runForShapes(graph, values, false, placeholders);
		if (!ran)
			return ran.error();
	}
	ShapeMap shapes;
	for (const auto &[name, tensor] : graph.constants)
		shapes[name] = { tensor.type(), tensor.shape() };
	for (const auto &[name, tensor] : values) {
		shapes[name] = { tensor.type(), tensor.shape() };
		/* The parameters a DLA segment may read (a Reshape's shape, a scale). */
		if (tensor.elements() <= kKnownValues && !placeholders.count(name))
			shapes[name].value = tensor;
	}
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
	placeByNeighbours(graph, target, onDla);
	for (size_t i = 0; i < graph.nodes.size() && target == Target::Dla; i++)
		if (!onDla[i])
			return Error(ENOTSUP, nodeLabel(graph.nodes[i]) + " cannot run on the DLA: "
						      "a Max runs there only as the Relu of the "
						      "QLinearConv, QLinearMatMul or QLinearAdd "
						      "before it");

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
		std::vector<NodeTiming> parts;
		Result<void> ran = step.segment->run(graph, values, timings ? &parts : nullptr);
		if (!ran)
			return ran.error();
		if (timings)
			timings->push_back({ step.segment->label(), "DLA segment", Target::Dla,
					     elapsedSince(start), std::move(parts) });
	}
	return {};
}

} /* namespace vdla::onnx */
