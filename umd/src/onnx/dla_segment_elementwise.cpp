/* SPDX-License-Identifier: MIT */
/*
 * Element-wise nodes on the DLA (dla_segment_elementwise.h). Float Add,
 * Sub and Mul compute x OP y in float32 like the CPU kernels, int8 and
 * uint8 ones wrap modulo 256 like them; QLinearAdd
 * computes its integer rule (ops/quant_add.cpp) bit for bit, uint8 held as
 * int8 (values and zero points less 128).
 */

#include "dla_segment_elementwise.h"

#include "dla_quant_conv.h"
#include "op_kernel.h"

#include "nn/nn_elementwise.h"

#include <cmath>
#include <functional>

namespace vdla::onnx {

namespace {

constexpr int64_t kMaxDim = 65535;

bool isQLinearAdd(const Node &node)
{
	return node.domain == "com.microsoft" && node.opType == "QLinearAdd";
}

/* @shape with leading 1s to @rank dimensions. */
std::vector<int64_t> padded(const std::vector<int64_t> &shape, size_t rank)
{
	std::vector<int64_t> out(rank - shape.size(), 1);
	out.insert(out.end(), shape.begin(), shape.end());
	return out;
}

/* Whether @operand differs from @out in each of four dimensions. */
bool repeatedAlongFour(const std::vector<int64_t> &operand, const std::vector<int64_t> &out)
{
	if (out.size() != 4)
		return false;
	for (size_t d = 0; d < 4; d++)
		if (operand[d] == out[d])
			return false;
	return true;
}

/* The values of a per-tensor parameter: one element. */
template <typename T> T scalarOf(const Tensor &t)
{
	if (t.elements() != 1)
		throw OpError(ENOTSUP, "QLinearAdd on the DLA takes one scale and zero point per tensor");
	return t.data<T>()[0];
}

/* A zero point as the DLA holds it: uint8 less 128; absent, 0 of @type. */
int32_t heldZero(const Tensor *zero, DataType type)
{
	if (!zero)
		return asSigned(type, 0);
	if (zero->elements() != 1)
		throw OpError(ENOTSUP, "QLinearAdd on the DLA takes one scale and zero point per tensor");
	if (zero->type() == DataType::Uint8)
		return asSigned(DataType::Uint8, zero->data<uint8_t>()[0]);
	if (zero->type() == DataType::Int8)
		return zero->data<int8_t>()[0];
	throw OpError(ENOTSUP, "a zero point of " + zero->describe());
}

/* QLinearAdd's layer parameters from its (known) scales and zero points; A, B and C are of @type. */
vdla::vx::nn::ElementwiseParams quantParams(DataType type,
					    const std::function<const Tensor *(size_t)> &input)
{
	vdla::vx::nn::ElementwiseParams p =
		vdla::vx::nn::elementwiseParams(vdla::vx::nn::kElementwiseAdd);
	const Tensor *scales[3] = { input(1), input(4), input(6) };
	for (const Tensor *scale : scales)
		if (!scale || scale->type() != DataType::Float || scale->elements() != 1 ||
		    !std::isfinite(scale->data<float>()[0]) || scale->data<float>()[0] <= 0)
			throw OpError(ENOTSUP, "QLinearAdd's scales on the DLA are single, finite "
					       "and positive values the plan knows");
	const float outputScale = scalarOf<float>(*scales[2]);
	for (size_t k = 0; k < 2; k++) {
		/* ops/quant_add.cpp's multiplier, in float32. */
		p.multiplier[k] = scalarOf<float>(*scales[k]) / outputScale;
		if (!(std::fabs(p.multiplier[k]) <= 0x1p100f))
			throw OpError(ENOTSUP, "a QLinearAdd scale ratio beyond 2^100");
		p.inputZero[k] = heldZero(input(k == 0 ? 2 : 5), type);
	}
	p.outputZero = heldZero(input(7), type);
	return p;
}

} /* namespace */

bool isElementwise(const Node &node)
{
	if (isQLinearAdd(node))
		return true;
	return node.domain.empty() &&
	       (node.opType == "Add" || node.opType == "Sub" || node.opType == "Mul");
}

std::optional<ElementwiseShapes> elementwiseShapes(const std::vector<int64_t> &out,
						   const std::vector<int64_t> &a,
						   const std::vector<int64_t> &b)
{
	const size_t rank = std::max<size_t>(out.size(), 1);
	ElementwiseShapes s = { padded(out, rank), padded(a, rank), padded(b, rank) };
	if (rank <= 4 && !repeatedAlongFour(s.a, s.out) && !repeatedAlongFour(s.b, s.out))
		return s;

	/* Axes of the same kind (each operand whole or repeated along them) merge. */
	ElementwiseShapes merged;
	int kind = -1;
	for (size_t d = 0; d < rank; d++) {
		if (s.out[d] == 1)
			continue;
		const int axisKind = (s.a[d] == s.out[d]) | (s.b[d] == s.out[d]) << 1;
		if (axisKind == kind && merged.out.back() * s.out[d] <= kMaxDim) {
			merged.out.back() *= s.out[d];
			merged.a.back() *= s.a[d];
			merged.b.back() *= s.b[d];
			continue;
		}
		merged.out.push_back(s.out[d]);
		merged.a.push_back(s.a[d]);
		merged.b.push_back(s.b[d]);
		kind = axisKind;
	}
	if (merged.out.empty())
		merged = { { 1 }, { 1 }, { 1 } };
	if (merged.out.size() > 4 || repeatedAlongFour(merged.a, merged.out) ||
	    repeatedAlongFour(merged.b, merged.out))
		return std::nullopt;
	return merged;
}

std::string elementwiseRefusal(const Graph &graph, const Node &node, const ShapeMap &shapes)
{
	const bool quantised = isQLinearAdd(node);
	const size_t second = quantised ? 3 : 1;
	if (node.inputs.size() != (quantised ? 8 : 2) || node.outputs.size() != 1)
		return node.opType + " with other inputs than its operator's";
	auto shapeOf = [&](const std::string &name) -> const ValueShape * {
		auto it = shapes.find(name);
		return it == shapes.end() ? nullptr : &it->second;
	};
	const ValueShape *a = shapeOf(node.inputs[0]), *b = shapeOf(node.inputs[second]);
	const ValueShape *y = shapeOf(node.outputs[0]);
	if (!a || !b || !y)
		return "unknown shapes";
	const bool fits = a->type == DataType::Int8 || a->type == DataType::Uint8 ||
			  (!quantised && a->type == DataType::Float);
	if (!fits || b->type != a->type)
		return node.opType + " of " + dataTypeName(a->type) + " and " +
		       dataTypeName(b->type) + " tensors does not run on the DLA";
	if (!elementwiseShapes(y->shape, a->shape, b->shape))
		return node.opType + " broadcast over more than four blocks of axes";
	if (!quantised)
		return "";
	try {
		quantParams(a->type, [&](size_t i) -> const Tensor * {
			return i < node.inputs.size() && !node.inputs[i].empty()
				       ? knownValue(graph, shapes, node.inputs[i])
				       : nullptr;
		});
	} catch (const OpError &e) {
		return e.what();
	}
	return "";
}

void addElementwise(SegmentTensors &segment, const Node &node, const ShapeMap &shapes)
{
	const bool quantised = isQLinearAdd(node);
	const std::string &a = node.inputs[0], &b = node.inputs[quantised ? 3 : 1];
	std::optional<ElementwiseShapes> s = elementwiseShapes(
		shapes.at(node.outputs[0]).shape, shapes.at(a).shape, shapes.at(b).shape);
	if (!s)
		throw OpError(ENOTSUP, node.opType + " broadcast over more than four blocks of axes");

	vdla::vx::nn::ElementwiseParams params;
	std::string out = node.outputs[0];
	if (quantised) {
		params = quantParams(shapes.at(a).type, [&](size_t i) -> const Tensor * {
			return node.inputs[i].empty() ? nullptr : &segment.parameter(node.inputs[i]);
		});
		/* Max(y, y_zero_point) after it: its Relu. */
		if (std::string relu = segment.takeRelu(out); !relu.empty()) {
			params.relu = vx_true_e;
			out = relu;
		}
	} else {
		params = vdla::vx::nn::elementwiseParams(node.opType == "Add"   ? vdla::vx::nn::kElementwiseAdd
							 : node.opType == "Sub" ? vdla::vx::nn::kElementwiseSub
										: vdla::vx::nn::kElementwiseMul);
		/* Integers wrap as ONNX's do; uint8 is held as int8 less 128. */
		const DataType type = shapes.at(a).type;
		if (type != DataType::Float) {
			params.wrap = vx_true_e;
			if (type == DataType::Uint8)
				params.inputZero[0] = params.inputZero[1] = params.outputZero = -128;
		}
	}
	vx_tensor x = segment.shapedAs(a, s->a);
	vx_tensor y = segment.shapedAs(b, s->b);
	segment.place(vdla::vx::nn::elementwiseNode(segment.layerGraph(), x, y, params,
						    segment.outputAs(out, s->out)),
		      node);
}

} /* namespace vdla::onnx */
