/* SPDX-License-Identifier: MIT */
/*
 * Small ONNX models written in the test, with libonnx's own protobuf
 * classes, so that each import rule is checked on a model whose every byte
 * the test chose.
 */
#pragma once

#include <vdla/onnx.h>

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace vdla::onnx::test {

class ModelBuilder
{
public:
	explicit ModelBuilder(int64_t opset = 13);

	void input(const std::string &name, int32_t type, const std::vector<int64_t> &shape);
	void output(const std::string &name, int32_t type, const std::vector<int64_t> &shape);
	void initializer(const std::string &name, const std::vector<int64_t> &shape,
			 const std::vector<float> &values);
	/* An initialiser of any element type, its bytes as raw_data. */
	void initializer(const std::string &name, const Tensor &value);
	::onnx::NodeProto &node(const std::string &opType, const std::vector<std::string> &inputs,
				const std::vector<std::string> &outputs, const std::string &domain = "");
	void importDomain(const std::string &domain, int64_t version);

	/* Writes the model to a fresh file under $TMPDIR; returns its path. */
	std::string save();
	::onnx::ModelProto &proto() { return model_; }

private:
	::onnx::ModelProto model_;
};

/* A model file removed at the end of the test. */
struct SavedModel {
	explicit SavedModel(ModelBuilder &builder) : path(builder.save()) {}
	~SavedModel();
	std::string path;
};

Tensor floatTensor(std::vector<int64_t> shape, const std::vector<float> &values);
Tensor int64Tensor(std::vector<int64_t> shape, const std::vector<int64_t> &values);
/* A tensor of an integer type (int8, uint8, int32, int64) holding @values. */
Tensor intTensor(DataType type, std::vector<int64_t> shape, const std::vector<int64_t> &values);

/* Attributes of a node. */
void setInt(::onnx::NodeProto &node, const std::string &name, int64_t value);
void setInts(::onnx::NodeProto &node, const std::string &name, const std::vector<int64_t> &values);
void setFloat(::onnx::NodeProto &node, const std::string &name, float value);
void setString(::onnx::NodeProto &node, const std::string &name, const std::string &value);

/* What readTensorFile makes of @proto written to a file. */
Result<Tensor> readTensorProto(const ::onnx::TensorProto &proto);

} /* namespace vdla::onnx::test */
