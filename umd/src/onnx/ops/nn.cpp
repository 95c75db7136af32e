/* SPDX-License-Identifier: MIT */
/* Neural-network operators: convolution, pooling, matrix products, normalisations. */

#include "../conv_geometry.h"
#include "../tensor_util.h"

namespace vdla::onnx {

void registerNnOps(OpRegistry &registry)
{
	(void)registry;
}

} /* namespace vdla::onnx */
