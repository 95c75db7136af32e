/* SPDX-License-Identifier: MIT */
/* Tensor <-> onnx::TensorProto, for initialisers, attributes and .pb files. */
#pragma once

#include <vdla/onnx.h>

namespace onnx {
class TensorProto;
}

namespace vdla::onnx {

/* EINVAL/ENOTSUP with a reason for external data, strings, bad sizes. */
Result<Tensor> fromTensorProto(const ::onnx::TensorProto &proto);
void toTensorProto(const Tensor &tensor, const std::string &name, ::onnx::TensorProto *proto);

} /* namespace vdla::onnx */
