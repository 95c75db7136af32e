/* SPDX-License-Identifier: MIT */
/* Element-wise operators with numpy broadcasting. */

#include "../tensor_util.h"

#include <cerrno>

namespace vdla::onnx {

namespace {

template<typename T, typename Op>
Tensor binary(const Tensor &a, const Tensor &b, DataType outType, Op op)
{
	std::vector<int64_t> shape = broadcastShapes(a.shape(), b.shape());
	Tensor out(outType, shape);
	std::vector<int64_t> ia = broadcastIndex(a.shape(), shape);
	std::vector<int64_t> ib = broadcastIndex(b.shape(), shape);
	const T *pa = a.data<T>();
	const T *pb = b.data<T>();
	using Out = decltype(op(T{}, T{}));
	Out *po = out.data<Out>();
	for (size_t i = 0; i < ia.size(); i++)
		po[i] = op(pa[ia[i]], pb[ib[i]]);
	return out;
}

void add(OpContext &ctx)
{
	const Tensor &a = ctx.input(0);
	const Tensor &b = ctx.input(1);
	ctx.require(a.type() == b.type(), "Add of " + a.describe() + " and " + b.describe());
	dispatchNumeric(ctx, a.type(), [&](auto zero) {
		using T = decltype(zero);
		ctx.setOutput(0, binary<T>(a, b, a.type(), [](T x, T y) { return T(x + y); }));
	});
}

void relu(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	Tensor out(x.type(), x.shape());
	dispatchNumeric(ctx, x.type(), [&](auto zero) {
		using T = decltype(zero);
		const T *in = x.data<T>();
		T *o = out.data<T>();
		for (int64_t i = 0; i < x.elements(); i++)
			o[i] = in[i] > T(0) ? in[i] : T(0);
	});
	ctx.setOutput(0, std::move(out));
}

} /* namespace */

void registerElementwiseOps(OpRegistry &registry)
{
	registry.add("Add", add);
	registry.add("Relu", relu);
}

} /* namespace vdla::onnx */
