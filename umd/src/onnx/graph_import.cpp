/* SPDX-License-Identifier: MIT */
/*
 * The only reader of onnx::ModelProto: parses the file, runs ONNX's own
 * checker on it (libonnx), and copies what the runtime needs into a Graph.
 */

#include "graph.h"
#include "tensor_proto.h"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <cerrno>
#include <fstream>
#include <set>

namespace vdla::onnx {

const Attribute *Node::attribute(const std::string &attrName) const
{
	auto it = attributes.find(attrName);
	return it == attributes.end() ? nullptr : &it->second;
}

/* What a value that is not a tensor libvdla holds is, for the error. */
static std::string unsupportedType(const ::onnx::TypeProto &type)
{
	if (type.has_sequence_type())
		return "a sequence";
	if (type.has_optional_type())
		return "an optional";
	if (type.has_map_type())
		return "a map";
	if (!type.has_tensor_type())
		return "not a tensor";
	switch (type.tensor_type().elem_type()) {
	case ::onnx::TensorProto::STRING: return "string tensor";
	case ::onnx::TensorProto::BFLOAT16: return "bfloat16 tensor";
	case ::onnx::TensorProto::COMPLEX64:
	case ::onnx::TensorProto::COMPLEX128: return "complex tensor";
	default: return "tensor of element type " + std::to_string(type.tensor_type().elem_type());
	}
}

static ValueInfo valueInfo(const ::onnx::ValueInfoProto &proto)
{
	ValueInfo info{ proto.name(), DataType::Undefined, {} };
	if (!proto.type().has_tensor_type())
		return info;
	const ::onnx::TypeProto::Tensor &tensorType = proto.type().tensor_type();
	info.type = static_cast<DataType>(tensorType.elem_type());
	for (const ::onnx::TensorShapeProto::Dimension &dim : tensorType.shape().dim())
		info.shape.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
	return info;
}

static Result<Attribute> convertAttribute(const ::onnx::AttributeProto &proto)
{
	Attribute attr{};
	switch (proto.type()) {
	case ::onnx::AttributeProto::FLOAT:
		attr.kind = Attribute::Kind::Float;
		attr.f = proto.f();
		break;
	case ::onnx::AttributeProto::INT:
		attr.kind = Attribute::Kind::Int;
		attr.i = proto.i();
		break;
	case ::onnx::AttributeProto::STRING:
		attr.kind = Attribute::Kind::String;
		attr.s = proto.s();
		break;
	case ::onnx::AttributeProto::TENSOR: {
		attr.kind = Attribute::Kind::Tensor;
		Result<Tensor> tensor = fromTensorProto(proto.t());
		if (!tensor)
			return tensor.error();
		attr.t = std::move(*tensor);
		break;
	}
	case ::onnx::AttributeProto::FLOATS:
		attr.kind = Attribute::Kind::Floats;
		attr.floats.assign(proto.floats().begin(), proto.floats().end());
		break;
	case ::onnx::AttributeProto::INTS:
		attr.kind = Attribute::Kind::Ints;
		attr.ints.assign(proto.ints().begin(), proto.ints().end());
		break;
	case ::onnx::AttributeProto::STRINGS:
		attr.kind = Attribute::Kind::Strings;
		attr.strings.assign(proto.strings().begin(), proto.strings().end());
		break;
	case ::onnx::AttributeProto::GRAPH:
	case ::onnx::AttributeProto::GRAPHS:
		/* Control flow: kept as a marker, no kernel takes it. */
		attr.kind = Attribute::Kind::Graph;
		break;
	default:
		return Error(ENOTSUP, "attribute '" + proto.name() + "' has a type libvdla does not read");
	}
	return attr;
}

static Result<void> importNodes(const ::onnx::GraphProto &proto, Graph &graph)
{
	for (const ::onnx::NodeProto &nodeProto : proto.node()) {
		Node node;
		node.name = nodeProto.name();
		node.opType = nodeProto.op_type();
		node.domain = nodeProto.domain() == "ai.onnx" ? "" : nodeProto.domain();
		node.inputs.assign(nodeProto.input().begin(), nodeProto.input().end());
		node.outputs.assign(nodeProto.output().begin(), nodeProto.output().end());
		if (node.name.empty())
			node.name = node.opType + "_" + std::to_string(graph.nodes.size());
		for (const ::onnx::AttributeProto &attrProto : nodeProto.attribute()) {
			Result<Attribute> attr = convertAttribute(attrProto);
			if (!attr)
				return Error(attr.error().code(), "node '" + node.name + "': " +
									 attr.error().reason());
			node.attributes.emplace(attrProto.name(), std::move(*attr));
		}
		graph.nodes.push_back(std::move(node));
	}
	return {};
}

Result<std::unique_ptr<Graph>> importModel(const std::string &path)
{
	std::ifstream file(path, std::ios::binary);
	if (!file)
		return Error(errno ? errno : ENOENT, "cannot open " + path);
	::onnx::ModelProto model;
	if (!model.ParseFromIstream(&file))
		return Error(EINVAL, path + " is not an ONNX model (no ModelProto parses from it)");

	/*
	 * Only the checker: libonnx 1.12's shape inference divides by attributes
	 * it has not validated (a Conv with strides [0] is SIGFPE in the caller's
	 * process), and a model file is untrusted. Each kernel checks its own
	 * attributes and computes its output shapes.
	 */
	try {
		::onnx::checker::check_model(model);
	} catch (const std::exception &e) {
		return Error(EINVAL, path + " fails ONNX's model checker: " + e.what());
	}

	auto graph = std::make_unique<Graph>();
	for (const ::onnx::OperatorSetIdProto &opset : model.opset_import())
		if (opset.domain().empty() || opset.domain() == "ai.onnx")
			graph->opset = opset.version();

	const ::onnx::GraphProto &proto = model.graph();
	for (const ::onnx::TensorProto &init : proto.initializer()) {
		Result<Tensor> tensor = fromTensorProto(init);
		if (!tensor)
			return Error(tensor.error().code(), path + ": initialiser " + init.name() +
								    ": " + tensor.error().reason());
		graph->constants.emplace(init.name(), std::move(*tensor));
	}
	/* Inputs with an initialiser are defaults a run does not bind. */
	for (const ::onnx::ValueInfoProto &input : proto.input())
		if (!graph->constants.count(input.name()))
			graph->inputs.push_back(valueInfo(input));
	for (const ::onnx::ValueInfoProto &output : proto.output())
		graph->outputs.push_back(valueInfo(output));
	for (const ::onnx::ValueInfoProto &value : proto.input())
		if (!graph->constants.count(value.name()) && !dataTypeSize(valueInfo(value).type))
			return Error(ENOTSUP, path + ": input '" + value.name() + "' is " +
						      unsupportedType(value.type()) +
						      ", which libvdla does not hold");
	for (const ::onnx::ValueInfoProto &value : proto.output())
		if (!dataTypeSize(valueInfo(value).type))
			return Error(ENOTSUP, path + ": output '" + value.name() + "' is " +
						      unsupportedType(value.type()) +
						      ", which libvdla does not hold");

	Result<void> nodes = importNodes(proto, *graph);
	if (!nodes)
		return Error(nodes.error().code(), path + ": " + nodes.error().reason());
	return graph;
}

} /* namespace vdla::onnx */
