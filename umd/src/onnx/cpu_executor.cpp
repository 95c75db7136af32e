/* SPDX-License-Identifier: MIT */

#include "cpu_executor.h"

#include "op_kernel.h"

#include <cerrno>
#include <chrono>

namespace vdla::onnx {

static const Tensor *findValue(const Graph &graph, const std::map<std::string, Tensor> &values,
			       const std::string &name)
{
	auto it = values.find(name);
	if (it != values.end())
		return &it->second;
	auto constant = graph.constants.find(name);
	return constant == graph.constants.end() ? nullptr : &constant->second;
}

static std::string nodeLabel(const Node &node)
{
	return "node '" + node.name + "' (" + node.opType + ")";
}

Result<void> runNodeOnCpu(const Graph &graph, const Node &node, std::map<std::string, Tensor> &values)
{
	/* Operators of other domains are registered as "domain.opType". */
	const OpKernel *kernel = OpRegistry::cpu().find(
		node.domain.empty() ? node.opType : node.domain + "." + node.opType);
	if (!kernel && !node.domain.empty())
		return Error(ENOTSUP, nodeLabel(node) + " is in domain '" + node.domain +
					      "', where libvdla implements no " + node.opType);
	if (!kernel)
		return Error(ENOTSUP, nodeLabel(node) + ": the CPU has no kernel for " + node.opType);

	std::vector<const Tensor *> inputs;
	for (const std::string &name : node.inputs) {
		if (name.empty()) {
			inputs.push_back(nullptr);
			continue;
		}
		const Tensor *tensor = findValue(graph, values, name);
		if (!tensor)
			return Error(EINVAL, nodeLabel(node) + ": input '" + name + "' has no value");
		inputs.push_back(tensor);
	}

	OpContext ctx(node, graph.opset, std::move(inputs));
	try {
		(*kernel)(ctx);
	} catch (const OpError &e) {
		return Error(e.code(), nodeLabel(node) + ": " + e.what());
	} catch (const std::length_error &e) {
		/* The size limit of one tensor (tensor.cpp). */
		return Error(EAGAIN, nodeLabel(node) + ": " + e.what());
	} catch (const std::bad_alloc &) {
		return Error(ENOMEM, nodeLabel(node) + ": out of memory");
	} catch (const std::exception &e) {
		return Error(EINVAL, nodeLabel(node) + ": " + e.what());
	}

	std::vector<Tensor> outputs = ctx.takeOutputs();
	for (size_t i = 0; i < node.outputs.size(); i++) {
		if (node.outputs[i].empty())
			continue;
		if (!outputs[i].defined())
			return Error(ENOTSUP, nodeLabel(node) + ": output " + std::to_string(i) +
						      " is not computed by the CPU kernel");
		values[node.outputs[i]] = std::move(outputs[i]);
	}
	return {};
}

Result<void> runTimedOnCpu(const Graph &graph, const Node &node,
			   std::map<std::string, Tensor> &values, std::vector<NodeTiming> *timings)
{
	auto start = std::chrono::steady_clock::now();
	Result<void> ran = runNodeOnCpu(graph, node, values);
	if (ran && timings)
		timings->push_back({ node.name, node.opType, Target::Cpu,
				     uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
						      std::chrono::steady_clock::now() - start)
						      .count()) });
	return ran;
}

} /* namespace vdla::onnx */
