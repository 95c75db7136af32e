/* SPDX-License-Identifier: MIT */
/*
 * The pools: MaxPool, AveragePool and LpPool over sliding windows, and their
 * global forms over all spatial axes. Each plane (one batch item, one
 * channel) is pooled on its own with the window table of the geometry.
 */

#include "nn_ops.h"

#include <cmath>
#include <limits>

namespace vdla::onnx {

namespace {

struct Pooling {
	std::vector<int64_t> outputShape;
	/* Batch times channels. */
	int64_t planes;
	WindowTable table;
};

Pooling pooling(const OpContext &ctx, const Tensor &x, bool ceilMode)
{
	ctx.require(x.rank() >= 3, "input X " + x.describe() +
					   " needs a batch, a channel and a spatial axis");
	const std::vector<int64_t> spatial(x.shape().begin() + 2, x.shape().end());
	const std::vector<int64_t> kernel = ctx.intsAttribute("kernel_shape");
	ctx.require(kernel.size() == spatial.size(),
		    "attribute 'kernel_shape' has " + std::to_string(kernel.size()) + " values for " +
			    std::to_string(spatial.size()) + " spatial axes");
	for (int64_t k : kernel)
		ctx.require(k >= 1, "attribute 'kernel_shape' must be positive");

	const ConvGeometry geometry = convGeometry(ctx, spatial, kernel, ceilMode);
	Pooling p;
	p.outputShape = { x.shape()[0], x.shape()[1] };
	p.outputShape.insert(p.outputShape.end(), geometry.outputSize.begin(),
			     geometry.outputSize.end());
	p.planes = x.shape()[0] * x.shape()[1];
	p.table = windowTable(ctx, geometry);
	return p;
}

bool ceilMode(const OpContext &ctx)
{
	int64_t mode = ctx.intAttribute("ceil_mode", 0);
	ctx.require(mode == 0 || mode == 1, "attribute 'ceil_mode' must be 0 or 1");
	return mode;
}

/* Converts a row-major spatial offset to the column-major one (storage_order 1). */
int64_t columnMajor(int64_t offset, const std::vector<int64_t> &dims)
{
	int64_t result = 0;
	int64_t stride = 1;
	std::vector<int64_t> position(dims.size());
	for (size_t i = dims.size(); i-- > 0;) {
		position[i] = offset % dims[i];
		offset /= dims[i];
	}
	for (size_t i = 0; i < dims.size(); i++) {
		result += position[i] * stride;
		stride *= dims[i];
	}
	return result;
}

template<typename T>
void maxPlanes(const Pooling &p, const Tensor &x, Tensor &y, Tensor *indices, bool byColumn)
{
	const WindowTable &t = p.table;
	const std::vector<int64_t> spatial(x.shape().begin() + 2, x.shape().end());
	std::vector<int64_t> where(t.outputSize);
	for (int64_t plane = 0; plane < p.planes; plane++) {
		const T *in = x.data<T>() + plane * t.inputSize;
		T *out = y.data<T>() + plane * t.outputSize;
		std::fill(where.begin(), where.end(), -1);
		for (int64_t k = 0; k < t.kernelSize; k++) {
			const int64_t *offset = &t.offsets[k * t.outputSize];
			for (int64_t o = 0; o < t.outputSize; o++) {
				/* Strictly greater: the first maximum in the window wins. */
				if (offset[o] >= 0 && (where[o] < 0 || in[offset[o]] > in[where[o]]))
					where[o] = offset[o];
			}
		}
		for (int64_t o = 0; o < t.outputSize; o++)
			out[o] = where[o] >= 0 ? in[where[o]] : std::numeric_limits<T>::lowest();
		if (!indices)
			continue;
		int64_t *index = indices->data<int64_t>() + plane * t.outputSize;
		for (int64_t o = 0; o < t.outputSize; o++) {
			int64_t at = byColumn && where[o] >= 0 ? columnMajor(where[o], spatial) : where[o];
			index[o] = at >= 0 ? plane * t.inputSize + at : -1;
		}
	}
}

void maxPool(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	const int64_t storageOrder = ctx.intAttribute("storage_order", 0);
	ctx.require(storageOrder == 0 || storageOrder == 1, "attribute 'storage_order' must be 0 or 1");
	const Pooling p = pooling(ctx, x, ceilMode(ctx));
	Tensor y(x.type(), p.outputShape);
	Tensor indices;
	if (ctx.wantsOutput(1))
		indices = Tensor(DataType::Int64, p.outputShape);
	Tensor *wanted = ctx.wantsOutput(1) ? &indices : nullptr;
	switch (x.type()) {
	case DataType::Float: maxPlanes<float>(p, x, y, wanted, storageOrder); break;
	case DataType::Double: maxPlanes<double>(p, x, y, wanted, storageOrder); break;
	case DataType::Int8: maxPlanes<int8_t>(p, x, y, wanted, storageOrder); break;
	case DataType::Uint8: maxPlanes<uint8_t>(p, x, y, wanted, storageOrder); break;
	default:
		throw OpError(x.type() == DataType::Float16 ? ENOTSUP : EINVAL,
			      std::string("MaxPool of ") + dataTypeName(x.type()) +
				      " tensors is not built (float, double, int8, uint8)");
	}
	ctx.setOutput(0, std::move(y));
	if (wanted)
		ctx.setOutput(1, std::move(indices));
}

/*
 * The sum of each window (of |x|^p for LpPool) and how many elements it
 * covers: the input's alone, or with the pads too (count_include_pad), never
 * what ceil_mode lets a window reach beyond the pads.
 */
template<typename T>
void sumPlanes(const Pooling &p, const Tensor &x, Tensor &y, bool countPads, double power)
{
	const WindowTable &t = p.table;
	std::vector<double> sum(t.outputSize);
	std::vector<int64_t> count(t.outputSize);
	for (int64_t plane = 0; plane < p.planes; plane++) {
		const T *in = x.data<T>() + plane * t.inputSize;
		T *out = y.data<T>() + plane * t.outputSize;
		std::fill(sum.begin(), sum.end(), 0.0);
		std::fill(count.begin(), count.end(), 0);
		for (int64_t k = 0; k < t.kernelSize; k++) {
			const int64_t *offset = &t.offsets[k * t.outputSize];
			for (int64_t o = 0; o < t.outputSize; o++) {
				if (offset[o] >= 0) {
					double v = in[offset[o]];
					sum[o] += power ? std::pow(std::fabs(v), power) : v;
					count[o]++;
				} else if (offset[o] == WindowTable::kInPadding && countPads) {
					count[o]++;
				}
			}
		}
		for (int64_t o = 0; o < t.outputSize; o++)
			out[o] = T(power ? std::pow(sum[o], 1 / power) : sum[o] / count[o]);
	}
}

void averagePool(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	const int64_t countPads = ctx.intAttribute("count_include_pad", 0);
	ctx.require(countPads == 0 || countPads == 1, "attribute 'count_include_pad' must be 0 or 1");
	const Pooling p = pooling(ctx, x, ceilMode(ctx));
	Tensor y(x.type(), p.outputShape);
	dispatchFloat(ctx, x.type(), [&](auto zero) {
		sumPlanes<decltype(zero)>(p, x, y, countPads, 0);
	});
	ctx.setOutput(0, std::move(y));
}

double lpNorm(const OpContext &ctx)
{
	/* LpPool-1 had p as a float attribute. */
	const Attribute *attr = ctx.node().attribute("p");
	double power = attr && attr->kind == Attribute::Kind::Float ? attr->f
								     : double(ctx.intAttribute("p", 2));
	ctx.require(power > 0, "attribute 'p' must be positive");
	return power;
}

void lpPool(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	const double power = lpNorm(ctx);
	const Pooling p = pooling(ctx, x, ceilMode(ctx));
	Tensor y(x.type(), p.outputShape);
	dispatchFloat(ctx, x.type(), [&](auto zero) {
		sumPlanes<decltype(zero)>(p, x, y, false, power);
	});
	ctx.setOutput(0, std::move(y));
}

enum class Global { Max, Average, Lp };

template<typename T>
void globalPlanes(const Tensor &x, Tensor &y, Global kind, double power)
{
	const int64_t planes = x.shape()[0] * x.shape()[1];
	const int64_t size = shapeProduct(x.shape(), 2, x.rank());
	for (int64_t plane = 0; plane < planes; plane++) {
		const T *in = x.data<T>() + plane * size;
		double result = kind == Global::Max ? -INFINITY : 0.0;
		for (int64_t i = 0; i < size; i++) {
			if (kind == Global::Max)
				result = std::max<double>(result, in[i]);
			else if (kind == Global::Average)
				result += in[i];
			else
				result += std::pow(std::fabs(double(in[i])), power);
		}
		if (kind == Global::Average)
			result /= double(size);
		else if (kind == Global::Lp)
			result = std::pow(result, 1 / power);
		y.data<T>()[plane] = T(result);
	}
}

void globalPool(OpContext &ctx, Global kind)
{
	const Tensor &x = ctx.input(0);
	ctx.require(x.rank() >= 3, "input X " + x.describe() +
					   " needs a batch, a channel and a spatial axis");
	ctx.require(shapeProduct(x.shape(), 2, x.rank()) > 0,
		    "input X " + x.describe() + " has no spatial element to pool");
	const double power = kind == Global::Lp ? lpNorm(ctx) : 0;
	std::vector<int64_t> shape(x.rank(), 1);
	shape[0] = x.shape()[0];
	shape[1] = x.shape()[1];
	Tensor y(x.type(), shape);
	dispatchFloat(ctx, x.type(), [&](auto zero) {
		globalPlanes<decltype(zero)>(x, y, kind, power);
	});
	ctx.setOutput(0, std::move(y));
}

} /* namespace */

void registerPoolOps(OpRegistry &registry)
{
	registry.add("MaxPool", maxPool);
	registry.add("AveragePool", averagePool);
	registry.add("LpPool", lpPool);
	registry.add("GlobalMaxPool", [](OpContext &ctx) { globalPool(ctx, Global::Max); });
	registry.add("GlobalAveragePool", [](OpContext &ctx) { globalPool(ctx, Global::Average); });
	registry.add("GlobalLpPool", [](OpContext &ctx) { globalPool(ctx, Global::Lp); });
}

} /* namespace vdla::onnx */
