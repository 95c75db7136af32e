/* SPDX-License-Identifier: MIT */
/* Operators that move or reshape data without arithmetic. */

#include "../tensor_util.h"

namespace vdla::onnx {

namespace {

void identity(OpContext &ctx)
{
	ctx.setOutput(0, ctx.input(0));
}

void constant(OpContext &ctx)
{
	ctx.require(ctx.hasAttribute("value"), "Constant without a 'value' tensor is not supported");
	ctx.setOutput(0, ctx.tensorAttribute("value"));
}

} /* namespace */

void registerShapeOps(OpRegistry &registry)
{
	registry.add("Identity", identity);
	registry.add("Constant", constant);
}

} /* namespace vdla::onnx */
