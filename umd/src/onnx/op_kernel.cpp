/* SPDX-License-Identifier: MIT */
/* OpContext's accessors and the CPU kernel registry. */

#include "op_kernel.h"

#include <cerrno>

namespace vdla::onnx {

bool OpContext::hasInput(size_t i) const
{
	return i < inputs_.size() && inputs_[i] && inputs_[i]->defined();
}

const Tensor &OpContext::input(size_t i) const
{
	if (!hasInput(i))
		throw OpError(EINVAL, "input " + std::to_string(i) + " is required");
	return *inputs_[i];
}

bool OpContext::wantsOutput(size_t i) const
{
	return i < node_.outputs.size() && !node_.outputs[i].empty();
}

void OpContext::setOutput(size_t i, Tensor tensor)
{
	if (i < outputs_.size())
		outputs_[i] = std::move(tensor);
}

bool OpContext::hasAttribute(const char *name) const
{
	return node_.attribute(name) != nullptr;
}

static const char *kindName(Attribute::Kind kind)
{
	switch (kind) {
	case Attribute::Kind::Float: return "a float";
	case Attribute::Kind::Int: return "an int";
	case Attribute::Kind::String: return "a string";
	case Attribute::Kind::Tensor: return "a tensor";
	case Attribute::Kind::Floats: return "floats";
	case Attribute::Kind::Ints: return "ints";
	case Attribute::Kind::Strings: return "strings";
	default: return "a graph";
	}
}

const Attribute &OpContext::attribute(const char *name, Attribute::Kind kind) const
{
	const Attribute *attr = node_.attribute(name);
	if (!attr)
		throw OpError(EINVAL, std::string("attribute '") + name + "' is required");
	if (attr->kind != kind)
		throw OpError(EINVAL, std::string("attribute '") + name + "' must be " +
					      kindName(kind) + ", not " + kindName(attr->kind));
	return *attr;
}

int64_t OpContext::intAttribute(const char *name, int64_t fallback) const
{
	return hasAttribute(name) ? attribute(name, Attribute::Kind::Int).i : fallback;
}

int64_t OpContext::intAttribute(const char *name) const
{
	return attribute(name, Attribute::Kind::Int).i;
}

float OpContext::floatAttribute(const char *name, float fallback) const
{
	return hasAttribute(name) ? attribute(name, Attribute::Kind::Float).f : fallback;
}

std::string OpContext::stringAttribute(const char *name, const std::string &fallback) const
{
	return hasAttribute(name) ? attribute(name, Attribute::Kind::String).s : fallback;
}

std::vector<int64_t> OpContext::intsAttribute(const char *name,
					      const std::vector<int64_t> &fallback) const
{
	return hasAttribute(name) ? attribute(name, Attribute::Kind::Ints).ints : fallback;
}

std::vector<float> OpContext::floatsAttribute(const char *name) const
{
	return attribute(name, Attribute::Kind::Floats).floats;
}

const Tensor &OpContext::tensorAttribute(const char *name) const
{
	return attribute(name, Attribute::Kind::Tensor).t;
}

void OpContext::require(bool condition, const std::string &what) const
{
	if (!condition)
		throw OpError(EINVAL, what);
}

void OpRegistry::add(const std::string &opType, OpKernel kernel)
{
	kernels_[opType] = std::move(kernel);
}

const OpKernel *OpRegistry::find(const std::string &opType) const
{
	auto it = kernels_.find(opType);
	return it == kernels_.end() ? nullptr : &it->second;
}

std::vector<std::string> OpRegistry::operators() const
{
	std::vector<std::string> names;
	for (const auto &entry : kernels_)
		names.push_back(entry.first);
	return names;
}

const OpRegistry &OpRegistry::cpu()
{
	static const OpRegistry registry = [] {
		OpRegistry r;
		registerElementwiseOps(r);
		registerNnOps(r);
		registerShapeOps(r);
		registerQuantOps(r);
		registerSignalOps(r);
		return r;
	}();
	return registry;
}

std::vector<std::string> cpuOperators()
{
	return OpRegistry::cpu().operators();
}

} /* namespace vdla::onnx */
