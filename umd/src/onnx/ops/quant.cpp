/* SPDX-License-Identifier: MIT */
/* Quantisation: QuantizeLinear, DequantizeLinear and the integer operators. */

#include "../tensor_util.h"

namespace vdla::onnx {

void registerQuantOps(OpRegistry &registry)
{
	(void)registry;
}

} /* namespace vdla::onnx */
