/* SPDX-License-Identifier: MIT */
/* Reductions over axes (Reduce*), ArgMax and ArgMin, and CumSum. */

#include "elementwise_ops.h"

#include <algorithm>

namespace vdla::onnx {

namespace {

enum class Reduction { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };

/* Where each input element goes in a reduction, and the output's shape. */
struct ReduceGeometry {
	std::vector<int64_t> outShape;
	/* For each input element (row-major), the index of its output element. */
	std::vector<int64_t> target;
	/* Output elements, and input elements folded into each of them. */
	int64_t outElements = 1;
	int64_t count = 1;
};

/*
 * The axes to reduce: from opset 13 ReduceSum takes them as its optional
 * input 1 (the others from opset 18); before, as the attribute 'axes'.
 */
std::vector<int64_t> requestedAxes(const OpContext &ctx, int64_t axesInputSince)
{
	if (ctx.opset() < axesInputSince)
		return ctx.intsAttribute("axes");
	ctx.require(!ctx.hasAttribute("axes"), ctx.node().opType + " takes its axes as input 1 from opset " +
						       std::to_string(axesInputSince) +
						       ", not as an attribute");
	if (!ctx.hasInput(1))
		return {};
	const Tensor &axes = ctx.input(1);
	ctx.require(axes.type() == DataType::Int64,
		    ctx.node().opType + ": axes " + axes.describe() + " are not int64");
	ctx.require(axes.rank() == 1, ctx.node().opType + ": axes " + axes.describe() +
					      " is not a 1-D tensor");
	return toInt64s(ctx, axes);
}

/* The reduced axes, each once and non-negative; every axis when `axes` is empty. */
std::vector<bool> reducedAxes(const OpContext &ctx, const std::vector<int64_t> &axes, size_t rank)
{
	std::vector<bool> reduced(rank, axes.empty());
	for (int64_t axis : axes) {
		ctx.require(rank > 0, ctx.node().opType + ": axes given for a scalar input");
		int64_t a = normaliseAxis(ctx, axis, int64_t(rank));
		ctx.require(!reduced[a], ctx.node().opType + ": axis " + std::to_string(axis) +
						 " is given twice");
		reduced[a] = true;
	}
	return reduced;
}

ReduceGeometry reduceGeometry(const OpContext &ctx, const Tensor &x, const std::vector<bool> &reduced)
{
	const bool keepdims = ctx.intAttribute("keepdims", 1) != 0;
	ReduceGeometry g;
	std::vector<int64_t> kept = x.shape();
	for (size_t i = 0; i < kept.size(); i++) {
		if (reduced[i]) {
			g.count *= kept[i];
			kept[i] = 1;
			if (keepdims)
				g.outShape.push_back(1);
		} else {
			g.outElements *= kept[i];
			g.outShape.push_back(kept[i]);
		}
	}
	/* The kept shape broadcasts to the input's: its index map is the target of each element. */
	g.target = broadcastIndex(kept, x.shape());
	return g;
}

template<typename A, typename T, typename Combine>
void accumulate(std::vector<A> &acc, const T *in, const ReduceGeometry &g, Combine combine)
{
	for (size_t i = 0; i < g.target.size(); i++)
		acc[g.target[i]] = combine(acc[g.target[i]], A(in[i]));
}

/*
 * log(sum(exp(x))) with the largest element factored out, so that exp
 * cannot overflow.
 */
template<typename T>
Tensor logSumExp(const Tensor &x, const ReduceGeometry &g)
{
	const T *in = x.data<T>();
	std::vector<double> top(g.outElements, -INFINITY);
	accumulate(top, in, g, larger<double>);
	std::vector<double> sum(g.outElements, 0);
	for (size_t i = 0; i < g.target.size(); i++) {
		double m = top[g.target[i]];
		sum[g.target[i]] += std::isinf(m) ? std::exp(double(in[i])) : std::exp(in[i] - m);
	}
	Tensor out(x.type(), g.outShape);
	T *o = out.data<T>();
	for (int64_t i = 0; i < g.outElements; i++) {
		double m = std::isinf(top[i]) ? 0 : top[i];
		o[i] = fromDouble<T>(m + std::log(sum[i]));
	}
	return out;
}

/*
 * Floating-point inputs accumulate in double; integers in their own type,
 * wrapping, as a sum of integers cast back to the input's type would.
 */
template<typename T>
Tensor reduce(const OpContext &ctx, Reduction kind, const Tensor &x, const ReduceGeometry &g)
{
	if (kind == Reduction::LogSumExp)
		return logSumExp<T>(x, g);
	using A = std::conditional_t<std::is_floating_point_v<T>, double, T>;
	const T *in = x.data<T>();
	std::vector<A> acc(g.outElements, A(0));
	switch (kind) {
	case Reduction::Max:
		std::fill(acc.begin(), acc.end(), std::numeric_limits<A>::lowest());
		if constexpr (std::is_floating_point_v<A>)
			std::fill(acc.begin(), acc.end(), -INFINITY);
		accumulate(acc, in, g, larger<A>);
		break;
	case Reduction::Min:
		std::fill(acc.begin(), acc.end(), std::numeric_limits<A>::max());
		if constexpr (std::is_floating_point_v<A>)
			std::fill(acc.begin(), acc.end(), INFINITY);
		accumulate(acc, in, g, smaller<A>);
		break;
	case Reduction::Prod:
		std::fill(acc.begin(), acc.end(), A(1));
		accumulate(acc, in, g, wrappingMul<A>);
		break;
	case Reduction::L1:
		accumulate(acc, in, g, [](A a, A v) {
			return wrappingAdd(a, v < A(0) ? wrappingSub(A(0), v) : v);
		});
		break;
	case Reduction::L2:
	case Reduction::SumSquare:
		accumulate(acc, in, g, [](A a, A v) { return wrappingAdd(a, wrappingMul(v, v)); });
		break;
	default:
		accumulate(acc, in, g, wrappingAdd<A>);
		break;
	}

	Tensor out(x.type(), g.outShape);
	T *o = out.data<T>();
	for (int64_t i = 0; i < g.outElements; i++) {
		switch (kind) {
		case Reduction::Mean:
			/*
			 * Integers divide as C does, truncating, in 64 bits: the count
			 * need not fit the element type.
			 */
			if constexpr (std::is_integral_v<T>) {
				ctx.require(g.count > 0, "ReduceMean of an integer tensor over no elements");
				if constexpr (std::is_signed_v<T>)
					o[i] = T(int64_t(acc[i]) / g.count);
				else
					o[i] = T(uint64_t(acc[i]) / uint64_t(g.count));
			} else {
				o[i] = T(acc[i] / A(g.count));
			}
			break;
		case Reduction::L2: o[i] = fromDouble<T>(std::sqrt(double(acc[i]))); break;
		case Reduction::LogSum: o[i] = fromDouble<T>(std::log(double(acc[i]))); break;
		default: o[i] = T(acc[i]); break;
		}
	}
	return out;
}

/* A kernel for one Reduce operator; axesInputSince: the opset from which 'axes' is an input. */
OpKernel reduceKernel(Reduction kind, int64_t axesInputSince)
{
	return [kind, axesInputSince](OpContext &ctx) {
		const Tensor &x = ctx.input(0);
		std::vector<int64_t> axes = requestedAxes(ctx, axesInputSince);
		/* noop_with_empty_axes: no axes means no reduction rather than all axes. */
		if (axes.empty() && ctx.intAttribute("noop_with_empty_axes", 0) != 0) {
			ctx.setOutput(0, x);
			return;
		}
		/*
		 * ReduceMean's schema lists no integer type narrower than 32 bits:
		 * their sums, which wrap in the element type, would give no mean.
		 */
		if (kind == Reduction::Mean)
			ctx.require(x.type() != DataType::Int8 && x.type() != DataType::Uint8 &&
					    x.type() != DataType::Int16 && x.type() != DataType::Uint16,
				    "ReduceMean does not take " + std::string(dataTypeName(x.type())) +
					    " tensors (input " + x.describe() + ")");
		ReduceGeometry g = reduceGeometry(ctx, x, reducedAxes(ctx, axes, x.rank()));
		dispatchNumeric(ctx, x.type(), [&](auto zero) {
			using T = decltype(zero);
			ctx.setOutput(0, reduce<T>(ctx, kind, x, g));
		});
	};
}

/*
 * The index of the largest (or smallest) element along 'axis': the first of
 * equal ones, or the last with select_last_index.
 */
void argExtreme(OpContext &ctx, bool largest)
{
	const Tensor &x = ctx.input(0);
	ctx.require(x.rank() > 0, ctx.node().opType + " of a scalar");
	const int64_t axis = normaliseAxis(ctx, ctx.intAttribute("axis", 0), int64_t(x.rank()));
	const bool keepdims = ctx.intAttribute("keepdims", 1) != 0;
	const bool last = ctx.intAttribute("select_last_index", 0) != 0;
	const std::vector<int64_t> &shape = x.shape();
	const int64_t n = shape[axis];
	ctx.require(n > 0, ctx.node().opType + ": axis " + std::to_string(axis) + " of " +
				   x.describe() + " is empty");
	int64_t outer = 1, inner = 1;
	for (int64_t i = 0; i < axis; i++)
		outer *= shape[i];
	for (size_t i = axis + 1; i < shape.size(); i++)
		inner *= shape[i];
	std::vector<int64_t> outShape = shape;
	if (keepdims)
		outShape[axis] = 1;
	else
		outShape.erase(outShape.begin() + axis);
	Tensor out(DataType::Int64, outShape);
	int64_t *o = out.data<int64_t>();
	dispatchNumeric(ctx, x.type(), [&](auto zero) {
		using T = decltype(zero);
		const T *in = x.data<T>();
		for (int64_t a = 0; a < outer; a++) {
			for (int64_t c = 0; c < inner; c++) {
				const T *line = in + a * n * inner + c;
				int64_t best = 0;
				for (int64_t k = 1; k < n; k++) {
					T v = line[k * inner], b = line[best * inner];
					bool better = largest ? (last ? v >= b : v > b)
							      : (last ? v <= b : v < b);
					if (better)
						best = k;
				}
				o[a * inner + c] = best;
			}
		}
	});
	ctx.setOutput(0, std::move(out));
}

/*
 * Running sums along the axis given as input 1; 'exclusive' leaves the
 * element itself out of its sum, 'reverse' sums from the end.
 */
void cumSum(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	const Tensor &axisTensor = ctx.input(1);
	std::vector<int64_t> axisValues = toInt64s(ctx, axisTensor);
	ctx.require(axisValues.size() == 1 && axisTensor.rank() <= 1,
		    "CumSum: axis " + axisTensor.describe() + " is not a scalar");
	ctx.require(x.rank() > 0, "CumSum of a scalar");
	const int64_t axis = normaliseAxis(ctx, axisValues[0], int64_t(x.rank()));
	const bool exclusive = ctx.intAttribute("exclusive", 0) != 0;
	const bool reverse = ctx.intAttribute("reverse", 0) != 0;
	const std::vector<int64_t> &shape = x.shape();
	const int64_t n = shape[axis];
	int64_t outer = 1, inner = 1;
	for (int64_t i = 0; i < axis; i++)
		outer *= shape[i];
	for (size_t i = axis + 1; i < shape.size(); i++)
		inner *= shape[i];
	Tensor out(x.type(), shape);
	dispatchNumeric(ctx, x.type(), [&](auto zero) {
		using T = decltype(zero);
		const T *in = x.data<T>();
		T *o = out.data<T>();
		for (int64_t a = 0; a < outer; a++) {
			for (int64_t c = 0; c < inner; c++) {
				T running = T(0);
				for (int64_t step = 0; step < n; step++) {
					int64_t k = reverse ? n - 1 - step : step;
					int64_t at = (a * n + k) * inner + c;
					if (exclusive) {
						o[at] = running;
						running = wrappingAdd(running, in[at]);
					} else {
						running = wrappingAdd(running, in[at]);
						o[at] = running;
					}
				}
			}
		}
	});
	ctx.setOutput(0, std::move(out));
}

} /* namespace */

void registerReduceOps(OpRegistry &registry)
{
	registry.add("ReduceSum", reduceKernel(Reduction::Sum, 13));
	registry.add("ReduceMean", reduceKernel(Reduction::Mean, 18));
	registry.add("ReduceMax", reduceKernel(Reduction::Max, 18));
	registry.add("ReduceMin", reduceKernel(Reduction::Min, 18));
	registry.add("ReduceProd", reduceKernel(Reduction::Prod, 18));
	registry.add("ReduceL1", reduceKernel(Reduction::L1, 18));
	registry.add("ReduceL2", reduceKernel(Reduction::L2, 18));
	registry.add("ReduceLogSum", reduceKernel(Reduction::LogSum, 18));
	registry.add("ReduceLogSumExp", reduceKernel(Reduction::LogSumExp, 18));
	registry.add("ReduceSumSquare", reduceKernel(Reduction::SumSquare, 18));
	registry.add("ArgMax", [](OpContext &ctx) { argExtreme(ctx, true); });
	registry.add("ArgMin", [](OpContext &ctx) { argExtreme(ctx, false); });
	registry.add("CumSum", cumSum);
}

} /* namespace vdla::onnx */
