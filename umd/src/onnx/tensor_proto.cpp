/* SPDX-License-Identifier: MIT */
/*
 * TensorProto holds elements either as little-endian raw_data or in one of
 * its typed repeated fields, chosen by the element type (onnx.proto):
 * int32_data for every type of 16 bits or less (and bool), uint64_data for
 * uint32 and uint64.
 */

#include "tensor_proto.h"

#include <onnx/onnx_pb.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace vdla::onnx {

template<typename T, typename Field>
static void copyField(Tensor &tensor, const Field &field)
{
	T *out = static_cast<T *>(tensor.raw());
	for (int i = 0; i < field.size(); i++)
		out[i] = static_cast<T>(field.Get(i));
}

/* Every byte of a bool tensor made 0 or 1. */
static void normaliseBools(Tensor &tensor)
{
	uint8_t *bytes = static_cast<uint8_t *>(tensor.raw());
	for (size_t i = 0; i < tensor.bytes(); i++)
		bytes[i] = bytes[i] != 0;
}

static size_t typedFieldSize(const ::onnx::TensorProto &proto, DataType type)
{
	switch (type) {
	case DataType::Float: return proto.float_data_size();
	case DataType::Double: return proto.double_data_size();
	case DataType::Int64: return proto.int64_data_size();
	case DataType::Uint32:
	case DataType::Uint64: return proto.uint64_data_size();
	default: return proto.int32_data_size();
	}
}

Result<Tensor> fromTensorProto(const ::onnx::TensorProto &proto)
{
	const std::string name = proto.name().empty() ? "tensor" : "tensor '" + proto.name() + "'";
	if (proto.data_location() == ::onnx::TensorProto::EXTERNAL)
		return Error(ENOTSUP, name + " keeps its data in an external file");
	DataType type = static_cast<DataType>(proto.data_type());
	if (!dataTypeSize(type))
		return Error(ENOTSUP, name + " has element type " +
				      std::to_string(proto.data_type()) +
				      ", which libvdla does not hold (strings, complex, bfloat16)");

	std::vector<int64_t> shape(proto.dims().begin(), proto.dims().end());
	for (int64_t d : shape)
		if (d < 0)
			return Error(EINVAL, name + " has a negative dimension");
	/*
	 * The size limits, then the data against the dimensions, before the
	 * tensor is allocated: a few bytes of file must not make libvdla
	 * zero-fill gigabytes first.
	 */
	int64_t bytes;
	try {
		bytes = tensorBytes(type, shape);
	} catch (const std::length_error &e) {
		return Error(EAGAIN, name + ": " + e.what());
	} catch (const std::exception &e) {
		return Error(EINVAL, name + ": " + e.what());
	}
	const uint64_t elements = uint64_t(bytes) / dataTypeSize(type);
	std::string described = std::string(dataTypeName(type)) + "[";
	for (size_t i = 0; i < shape.size(); i++)
		described += (i ? "," : "") + std::to_string(shape[i]);
	described += "]";
	if (proto.has_raw_data()) {
		if (proto.raw_data().size() != uint64_t(bytes))
			return Error(EINVAL, name + " has " + std::to_string(proto.raw_data().size()) +
					     " bytes of data for " + described);
	} else if (typedFieldSize(proto, type) != elements) {
		return Error(EINVAL, name + " has " + std::to_string(typedFieldSize(proto, type)) +
				     " elements for " + described);
	}

	Tensor tensor;
	try {
		tensor = Tensor(type, shape);
	} catch (const std::bad_alloc &) {
		return Error(ENOMEM, name + ": out of memory for " + std::to_string(bytes) + " bytes");
	} catch (const std::length_error &e) {
		return Error(EAGAIN, name + ": " + e.what());
	} catch (const std::exception &e) {
		return Error(EINVAL, name + ": " + e.what());
	}

	if (proto.has_raw_data()) {
		if (tensor.bytes())
			std::memcpy(tensor.raw(), proto.raw_data().data(), tensor.bytes());
	} else {
		switch (type) {
		case DataType::Float: copyField<float>(tensor, proto.float_data()); break;
		case DataType::Double: copyField<double>(tensor, proto.double_data()); break;
		case DataType::Int64: copyField<int64_t>(tensor, proto.int64_data()); break;
		case DataType::Uint32: copyField<uint32_t>(tensor, proto.uint64_data()); break;
		case DataType::Uint64: copyField<uint64_t>(tensor, proto.uint64_data()); break;
		case DataType::Int32: copyField<int32_t>(tensor, proto.int32_data()); break;
		case DataType::Int16: copyField<int16_t>(tensor, proto.int32_data()); break;
		case DataType::Uint16:
		case DataType::Float16: copyField<uint16_t>(tensor, proto.int32_data()); break;
		case DataType::Int8: copyField<int8_t>(tensor, proto.int32_data()); break;
		case DataType::Uint8: copyField<uint8_t>(tensor, proto.int32_data()); break;
		case DataType::Bool: {
			/* Any non-zero int32 is true. */
			uint8_t *out = static_cast<uint8_t *>(tensor.raw());
			for (int i = 0; i < proto.int32_data_size(); i++)
				out[i] = proto.int32_data(i) != 0;
			break;
		}
		default: break;
		}
	}
	/*
	 * A bool is one byte, 0 or 1: the kernels read it as C++ bool, for
	 * which any other byte is undefined. Other bytes of raw_data are true.
	 */
	if (type == DataType::Bool)
		normaliseBools(tensor);
	return tensor;
}

void toTensorProto(const Tensor &tensor, const std::string &name, ::onnx::TensorProto *proto)
{
	proto->Clear();
	proto->set_name(name);
	proto->set_data_type(static_cast<int32_t>(tensor.type()));
	for (int64_t d : tensor.shape())
		proto->add_dims(d);
	proto->set_raw_data(tensor.raw(), tensor.bytes());
}

Result<Tensor> readTensorFile(const std::string &path, std::string *name)
{
	std::ifstream file(path, std::ios::binary);
	if (!file)
		return Error(errno ? errno : ENOENT, "cannot open " + path);
	::onnx::TensorProto proto;
	if (!proto.ParseFromIstream(&file))
		return Error(EINVAL, path + " is not a serialised TensorProto");
	Result<Tensor> tensor = fromTensorProto(proto);
	if (!tensor)
		return Error(tensor.error().code(), path + ": " + tensor.error().reason());
	if (name)
		*name = proto.name();
	return tensor;
}

Result<void> writeTensorFile(const std::string &path, const Tensor &tensor, const std::string &name)
{
	::onnx::TensorProto proto;
	toTensorProto(tensor, name, &proto);
	std::ofstream file(path, std::ios::binary | std::ios::trunc);
	if (!file)
		return Error(errno ? errno : EACCES, "cannot create " + path);
	if (!proto.SerializeToOstream(&file) || !file.flush())
		return Error(EIO, "cannot write " + path);
	return {};
}

} /* namespace vdla::onnx */
