/* SPDX-License-Identifier: MIT */
/* Tensor <-> onnx::TensorProto, for initialisers, attributes and .pb files. */
#pragma once

#include <vdla/onnx.h>

namespace onnx {
class TensorProto;
}

namespace vdla::onnx {

/*
 * The bytes of a Tensor of this type and shape, or what its constructor
 * would throw for them (tensor.cpp), without allocating anything.
 */
int64_t tensorBytes(DataType type, const std::vector<int64_t> &shape);

/* EINVAL/ENOTSUP with a reason for external data, strings, bad sizes. */
Result<Tensor> fromTensorProto(const ::onnx::TensorProto &proto);
void toTensorProto(const Tensor &tensor, const std::string &name, ::onnx::TensorProto *proto);

} /* namespace vdla::onnx */
