/* SPDX-License-Identifier: MIT */

#include "model_builder.h"

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

namespace vdla::onnx::test {

ModelBuilder::ModelBuilder(int64_t opset)
{
	model_.set_ir_version(8);
	model_.set_producer_name("vdla-onnx-tests");
	::onnx::OperatorSetIdProto *op = model_.add_opset_import();
	op->set_domain("");
	op->set_version(opset);
	model_.mutable_graph()->set_name("test");
}

static void fillValueInfo(::onnx::ValueInfoProto *info, const std::string &name, int32_t type,
			  const std::vector<int64_t> &shape)
{
	info->set_name(name);
	::onnx::TypeProto::Tensor *tensor = info->mutable_type()->mutable_tensor_type();
	tensor->set_elem_type(type);
	::onnx::TensorShapeProto *dims = tensor->mutable_shape();
	for (int64_t d : shape) {
		if (d < 0)
			dims->add_dim()->set_dim_param("N");
		else
			dims->add_dim()->set_dim_value(d);
	}
}

void ModelBuilder::input(const std::string &name, int32_t type, const std::vector<int64_t> &shape)
{
	fillValueInfo(model_.mutable_graph()->add_input(), name, type, shape);
}

void ModelBuilder::output(const std::string &name, int32_t type, const std::vector<int64_t> &shape)
{
	fillValueInfo(model_.mutable_graph()->add_output(), name, type, shape);
}

void ModelBuilder::initializer(const std::string &name, const std::vector<int64_t> &shape,
			       const std::vector<float> &values)
{
	::onnx::TensorProto *tensor = model_.mutable_graph()->add_initializer();
	tensor->set_name(name);
	tensor->set_data_type(::onnx::TensorProto::FLOAT);
	for (int64_t d : shape)
		tensor->add_dims(d);
	for (float v : values)
		tensor->add_float_data(v);
}

void ModelBuilder::initializer(const std::string &name, const Tensor &value)
{
	::onnx::TensorProto *tensor = model_.mutable_graph()->add_initializer();
	tensor->set_name(name);
	tensor->set_data_type(int32_t(value.type()));
	for (int64_t d : value.shape())
		tensor->add_dims(d);
	tensor->set_raw_data(std::string(static_cast<const char *>(value.raw()), value.bytes()));
}

::onnx::NodeProto &ModelBuilder::node(const std::string &opType, const std::vector<std::string> &inputs,
				      const std::vector<std::string> &outputs, const std::string &domain)
{
	::onnx::NodeProto *node = model_.mutable_graph()->add_node();
	node->set_op_type(opType);
	node->set_domain(domain);
	for (const std::string &in : inputs)
		node->add_input(in);
	for (const std::string &out : outputs)
		node->add_output(out);
	return *node;
}

void ModelBuilder::importDomain(const std::string &domain, int64_t version)
{
	::onnx::OperatorSetIdProto *op = model_.add_opset_import();
	op->set_domain(domain);
	op->set_version(version);
}

std::string ModelBuilder::save()
{
	const char *tmp = std::getenv("TMPDIR");
	std::string path = std::string(tmp ? tmp : "/tmp") + "/vdla-onnx-test-XXXXXX";
	int fd = mkstemp(path.data());
	if (fd < 0)
		throw std::runtime_error("mkstemp failed");
	close(fd);
	std::ofstream file(path, std::ios::binary | std::ios::trunc);
	if (!model_.SerializeToOstream(&file))
		throw std::runtime_error("cannot write " + path);
	return path;
}

SavedModel::~SavedModel()
{
	unlink(path.c_str());
}

Tensor floatTensor(std::vector<int64_t> shape, const std::vector<float> &values)
{
	Tensor t(DataType::Float, std::move(shape));
	std::copy(values.begin(), values.end(), t.data<float>());
	return t;
}

Tensor int64Tensor(std::vector<int64_t> shape, const std::vector<int64_t> &values)
{
	Tensor t(DataType::Int64, std::move(shape));
	std::copy(values.begin(), values.end(), t.data<int64_t>());
	return t;
}

Tensor intTensor(DataType type, std::vector<int64_t> shape, const std::vector<int64_t> &values)
{
	Tensor t(type, std::move(shape));
	if (values.size() != size_t(t.elements()))
		throw std::invalid_argument("intTensor: " + std::to_string(values.size()) +
					    " values for " + t.describe());
	for (size_t i = 0; i < values.size(); i++) {
		switch (type) {
		case DataType::Int8: t.data<int8_t>()[i] = int8_t(values[i]); break;
		case DataType::Uint8: t.data<uint8_t>()[i] = uint8_t(values[i]); break;
		case DataType::Int32: t.data<int32_t>()[i] = int32_t(values[i]); break;
		case DataType::Int64: t.data<int64_t>()[i] = values[i]; break;
		default: throw std::invalid_argument("intTensor: not an integer type");
		}
	}
	return t;
}

static ::onnx::AttributeProto *addAttribute(::onnx::NodeProto &node, const std::string &name,
					    ::onnx::AttributeProto::AttributeType type)
{
	::onnx::AttributeProto *a = node.add_attribute();
	a->set_name(name);
	a->set_type(type);
	return a;
}

void setInt(::onnx::NodeProto &node, const std::string &name, int64_t value)
{
	addAttribute(node, name, ::onnx::AttributeProto::INT)->set_i(value);
}

void setInts(::onnx::NodeProto &node, const std::string &name, const std::vector<int64_t> &values)
{
	::onnx::AttributeProto *a = addAttribute(node, name, ::onnx::AttributeProto::INTS);
	for (int64_t v : values)
		a->add_ints(v);
}

void setFloat(::onnx::NodeProto &node, const std::string &name, float value)
{
	addAttribute(node, name, ::onnx::AttributeProto::FLOAT)->set_f(value);
}

void setString(::onnx::NodeProto &node, const std::string &name, const std::string &value)
{
	addAttribute(node, name, ::onnx::AttributeProto::STRING)->set_s(value);
}

Result<Tensor> readTensorProto(const ::onnx::TensorProto &proto)
{
	char path[] = "/tmp/vdla-onnx-tensor-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		throw std::runtime_error("mkstemp failed");
	bool written = proto.SerializeToFileDescriptor(fd);
	close(fd);
	if (!written)
		throw std::runtime_error("cannot write " + std::string(path));
	auto tensor = readTensorFile(path);
	unlink(path);
	return tensor;
}

} /* namespace vdla::onnx::test */
