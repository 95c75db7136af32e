/* SPDX-License-Identifier: MIT */
/* Logical operators, comparisons (bool outputs) and Where, with numpy broadcasting. */

#include "elementwise_ops.h"

#include <cstring>

namespace vdla::onnx {

namespace {

/* A kernel computing fn(a, b) over the broadcast of two bool inputs. */
template<typename Fn>
OpKernel logical(Fn fn)
{
	return [fn](OpContext &ctx) {
		const Tensor &a = ctx.input(0);
		const Tensor &b = ctx.input(1);
		ctx.require(a.type() == DataType::Bool && b.type() == DataType::Bool,
			    ctx.node().opType + " takes bool tensors, not " + a.describe() +
				    " and " + b.describe());
		ctx.setOutput(0, zipBroadcast<bool, bool, bool>(a, b, DataType::Bool, fn));
	};
}

/*
 * A kernel comparing inputs 0 and 1, of one numeric type (or bool if
 * takesBool), into a bool tensor.
 */
template<typename Compare>
OpKernel comparison(Compare compare, bool takesBool)
{
	return [compare, takesBool](OpContext &ctx) {
		const Tensor &a = ctx.input(0);
		const Tensor &b = ctx.input(1);
		ctx.require(a.type() == b.type(), ctx.node().opType + " of " + a.describe() +
							  " and " + b.describe() + ": the types differ");
		ctx.require(takesBool || a.type() != DataType::Bool,
			    ctx.node().opType + " does not compare bool tensors");
		if (a.type() == DataType::Bool) {
			ctx.setOutput(0, zipBroadcast<bool, bool, bool>(a, b, DataType::Bool, compare));
			return;
		}
		dispatchNumeric(ctx, a.type(), [&](auto zero) {
			using T = decltype(zero);
			ctx.setOutput(0, zipBroadcast<T, T, bool>(a, b, DataType::Bool, compare));
		});
	};
}

/* Elements of X where the condition holds, of Y elsewhere: any element type, copied as bytes. */
void where(OpContext &ctx)
{
	const Tensor &condition = ctx.input(0);
	const Tensor &x = ctx.input(1);
	const Tensor &y = ctx.input(2);
	ctx.require(condition.type() == DataType::Bool,
		    "Where: condition " + condition.describe() + " is not bool");
	ctx.require(x.type() == y.type(), "Where: X " + x.describe() + " and Y " + y.describe() +
						  " are of different types");
	std::vector<int64_t> shape =
		broadcastShapes(broadcastShapes(condition.shape(), x.shape()), y.shape());
	Tensor out(x.type(), shape);
	std::vector<int64_t> ic = broadcastIndex(condition.shape(), shape);
	std::vector<int64_t> ix = broadcastIndex(x.shape(), shape);
	std::vector<int64_t> iy = broadcastIndex(y.shape(), shape);
	const bool *c = condition.data<bool>();
	const size_t size = dataTypeSize(x.type());
	const uint8_t *px = static_cast<const uint8_t *>(x.raw());
	const uint8_t *py = static_cast<const uint8_t *>(y.raw());
	uint8_t *po = static_cast<uint8_t *>(out.raw());
	for (size_t i = 0; i < ic.size(); i++) {
		const uint8_t *from = c[ic[i]] ? px + ix[i] * size : py + iy[i] * size;
		std::memcpy(po + i * size, from, size);
	}
	ctx.setOutput(0, std::move(out));
}

} /* namespace */

void registerLogicOps(OpRegistry &registry)
{
	registry.add("And", logical([](bool a, bool b) { return a && b; }));
	registry.add("Or", logical([](bool a, bool b) { return a || b; }));
	registry.add("Xor", logical([](bool a, bool b) { return a != b; }));

	registry.add("Equal", comparison([](auto a, auto b) { return a == b; }, true));
	registry.add("Less", comparison([](auto a, auto b) { return a < b; }, false));
	registry.add("Greater", comparison([](auto a, auto b) { return a > b; }, false));
	registry.add("LessOrEqual", comparison([](auto a, auto b) { return a <= b; }, false));
	registry.add("GreaterOrEqual", comparison([](auto a, auto b) { return a >= b; }, false));

	registry.add("Where", where);
}

} /* namespace vdla::onnx */
