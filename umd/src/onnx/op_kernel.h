/* SPDX-License-Identifier: MIT */
/*
 * The CPU kernels of the ONNX operators: one function per operator type,
 * registered by family (the ops/ files), looked up by the executor. A kernel
 * reads its inputs and attributes from an OpContext, checks them, and
 * fills every output it is asked for. A kernel that meets something it
 * cannot do throws OpError with a reason naming the attribute or input;
 * the executor turns it into the run's error, naming the node.
 */
#pragma once

#include "graph.h"

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace vdla::onnx {

/* A kernel's refusal: EINVAL for bad input, ENOTSUP for what is not built. */
class OpError : public std::runtime_error
{
public:
	OpError(int code, const std::string &reason)
		: std::runtime_error(reason), code_(code)
	{
	}
	int code() const { return code_; }

private:
	int code_;
};

class OpContext
{
public:
	OpContext(const Node &node, int64_t opset, std::vector<const Tensor *> inputs)
		: node_(node), opset_(opset), inputs_(std::move(inputs)),
		  outputs_(node.outputs.size())
	{
	}

	const Node &node() const { return node_; }
	int64_t opset() const { return opset_; }

	size_t inputCount() const { return inputs_.size(); }
	/* Whether input i was given (optional inputs may be left out). */
	bool hasInput(size_t i) const;
	/* Input i; OpError if it was left out. */
	const Tensor &input(size_t i) const;

	size_t outputCount() const { return outputs_.size(); }
	/* Whether the model uses output i (optional outputs may be left out). */
	bool wantsOutput(size_t i) const;
	/* Stores output i. */
	void setOutput(size_t i, Tensor tensor);
	std::vector<Tensor> takeOutputs() { return std::move(outputs_); }

	bool hasAttribute(const char *name) const;
	int64_t intAttribute(const char *name, int64_t fallback) const;
	/* OpError when the attribute is absent. */
	int64_t intAttribute(const char *name) const;
	float floatAttribute(const char *name, float fallback) const;
	std::string stringAttribute(const char *name, const std::string &fallback) const;
	std::vector<int64_t> intsAttribute(const char *name,
					   const std::vector<int64_t> &fallback = {}) const;
	std::vector<float> floatsAttribute(const char *name) const;
	const Tensor &tensorAttribute(const char *name) const;

	/* Throws OpError(EINVAL, "<what>") unless condition holds. */
	void require(bool condition, const std::string &what) const;

private:
	const Attribute &attribute(const char *name, Attribute::Kind kind) const;

	const Node &node_;
	int64_t opset_;
	std::vector<const Tensor *> inputs_;
	std::vector<Tensor> outputs_;
};

using OpKernel = std::function<void(OpContext &)>;

class OpRegistry
{
public:
	/* Every kernel of the ops/ files. */
	static const OpRegistry &cpu();

	void add(const std::string &opType, OpKernel kernel);
	/* nullptr when the CPU has no kernel for the operator. */
	const OpKernel *find(const std::string &opType) const;
	std::vector<std::string> operators() const;

private:
	std::map<std::string, OpKernel> kernels_;
};

/*
 * Each family adds its kernels (the ops/ files). A new family is one more line in
 * OpRegistry::cpu().
 */
void registerElementwiseOps(OpRegistry &registry);
void registerNnOps(OpRegistry &registry);
void registerShapeOps(OpRegistry &registry);
void registerQuantOps(OpRegistry &registry);
void registerSignalOps(OpRegistry &registry);

} /* namespace vdla::onnx */
