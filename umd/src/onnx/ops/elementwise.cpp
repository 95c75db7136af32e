/* SPDX-License-Identifier: MIT */
/*
 * The element-wise family: functions of one element (unary.cpp,
 * activation.cpp), broadcast arithmetic and logic (binary.cpp, logic.cpp),
 * type conversions (cast.cpp) and reductions along axes (reduce.cpp).
 */

#include "elementwise_ops.h"

namespace vdla::onnx {

void registerElementwiseOps(OpRegistry &registry)
{
	registerUnaryOps(registry);
	registerActivationOps(registry);
	registerBinaryOps(registry);
	registerLogicOps(registry);
	registerCastOps(registry);
	registerReduceOps(registry);
}

} /* namespace vdla::onnx */
