/* SPDX-License-Identifier: MIT */
/* vdla::onnx::Model: import once, run many times. */

#include <vdla/onnx.h>

#include "cpu_executor.h"
#include "graph.h"
#include "dla_segment.h"
#include "run_plan.h"

#include <cerrno>
#include <map>
#include <mutex>
#include <set>

namespace vdla::onnx {

/* The model's OpenVX context and its plans, one per target and input shapes. */
class DlaRuntime
{
public:
	~DlaRuntime()
	{
		plans.clear();
		if (context)
			vxReleaseContext(&context);
	}

	std::mutex lock;
	vx_context context = nullptr;
	std::map<std::pair<Target, std::vector<std::vector<int64_t>>>,
		 std::unique_ptr<ExecutionPlan>> plans;
};

Model::Model(std::unique_ptr<Graph> graph)
	: graph_(std::move(graph)), dla_(std::make_unique<DlaRuntime>())
{
}

Model::~Model() = default;

/* The plan for these inputs, made the first time they are seen. */
static Result<ExecutionPlan *> planFor(DlaRuntime &dla, const Graph &graph, Target target,
				       const std::map<std::string, Tensor> &inputs)
{
	std::vector<std::vector<int64_t>> shapes;
	for (const ValueInfo &info : graph.inputs)
		shapes.push_back(inputs.at(info.name).shape());
	std::lock_guard<std::mutex> guard(dla.lock);
	auto &plan = dla.plans[{ target, shapes }];
	if (plan)
		return plan.get();
	if (!dla.context) {
		dla.context = vxCreateContext();
		if (!dla.context || vxGetStatus(reinterpret_cast<vx_reference>(dla.context)) !=
					    VX_SUCCESS) {
			dla.context = nullptr;
			return Error(ENODEV, "cannot create the OpenVX context of the DLA");
		}
		DlaSegment::captureLog(dla.context);
		/* Each layer's device time, for NodeTiming::parts (a register read per operation). */
		vxDirective(reinterpret_cast<vx_reference>(dla.context),
			    VX_DIRECTIVE_ENABLE_PERFORMANCE);
	}
	Result<ShapeMap> known = shapesForInputs(graph, inputs);
	if (!known)
		return known.error();
	auto made = ExecutionPlan::make(dla.context, graph, *known, target);
	if (!made)
		return made.error();
	plan = std::move(*made);
	return plan.get();
}

Result<std::unique_ptr<Model>> Model::load(const std::string &path)
{
	Result<std::unique_ptr<Graph>> graph = importModel(path);
	if (!graph)
		return graph.error();
	/*
	 * The fusion needs the integer weights behind their DequantizeLinear;
	 * what it does not absorb is folded to float constants afterwards.
	 */
	Result<void> folded = foldConstants(**graph, Dequantization::Keep);
	if (!folded)
		return folded.error();
	fuseQdq(**graph);
	folded = foldConstants(**graph);
	if (!folded)
		return folded.error();
	rewriteGraph(**graph);
	return std::unique_ptr<Model>(new Model(std::move(*graph)));
}

const std::vector<ValueInfo> &Model::inputs() const
{
	return graph_->inputs;
}

const std::vector<ValueInfo> &Model::outputs() const
{
	return graph_->outputs;
}

std::vector<std::string> Model::opTypes() const
{
	std::set<std::string> types;
	for (const Node &node : graph_->nodes)
		types.insert(node.opType);
	return { types.begin(), types.end() };
}

static Result<void> checkInput(const ValueInfo &info, const Tensor &tensor)
{
	if (tensor.type() != info.type)
		return Error(EINVAL, "input '" + info.name + "' must be " + dataTypeName(info.type) +
					     ", not " + tensor.describe());
	if (!info.shape.empty() || tensor.rank() == 0) {
		bool fits = info.shape.size() == tensor.rank();
		for (size_t i = 0; fits && i < info.shape.size(); i++)
			fits = info.shape[i] < 0 || info.shape[i] == tensor.shape()[i];
		if (!fits)
			return Error(EINVAL, "input '" + info.name + "' has the shape " +
						     tensor.describe() + ", which the model does not take");
	}
	return {};
}

Result<std::vector<Tensor>> Model::run(const std::vector<Tensor> &inputs, Target target,
				       std::vector<NodeTiming> *timings) const
{
	if (inputs.size() != graph_->inputs.size())
		return Error(EINVAL, "the model takes " + std::to_string(graph_->inputs.size()) +
					     " inputs, " + std::to_string(inputs.size()) + " given");
	std::map<std::string, Tensor> values;
	for (size_t i = 0; i < inputs.size(); i++) {
		Result<void> fits = checkInput(graph_->inputs[i], inputs[i]);
		if (!fits)
			return fits.error();
		Tensor &value = values[graph_->inputs[i].name] = inputs[i];
		/* The kernels read bools as C++ bool: a caller's byte other than 0 is true, 1. */
		if (value.type() == DataType::Bool) {
			uint8_t *bytes = static_cast<uint8_t *>(value.raw());
			for (size_t b = 0; b < value.bytes(); b++)
				bytes[b] = bytes[b] != 0;
		}
	}

	if (target == Target::Cpu) {
		for (const Node &node : graph_->nodes) {
			Result<void> ran = runTimedOnCpu(*graph_, node, values, timings);
			if (!ran)
				return ran.error();
		}
	} else {
		Result<ExecutionPlan *> plan = planFor(*dla_, *graph_, target, values);
		if (!plan)
			return plan.error();
		Result<void> ran = (*plan)->run(*graph_, values, timings);
		if (!ran)
			return ran.error();
	}

	std::vector<Tensor> outputs;
	for (const ValueInfo &info : graph_->outputs) {
		auto it = values.find(info.name);
		if (it != values.end()) {
			outputs.push_back(it->second);
			continue;
		}
		auto constant = graph_->constants.find(info.name);
		if (constant == graph_->constants.end())
			return Error(EINVAL, "output '" + info.name + "' is not computed by any node");
		outputs.push_back(constant->second);
	}
	return outputs;
}

} /* namespace vdla::onnx */
