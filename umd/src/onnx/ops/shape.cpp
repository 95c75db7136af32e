/* SPDX-License-Identifier: MIT */
/*
 * Operators that move or reshape data without arithmetic: the helpers their
 * files share (shape_ops.h), and the operators that pass a tensor through or
 * describe it: Identity, Dropout in inference, Constant, Shape, Size.
 */

#include "shape_ops.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace vdla::onnx {

int64_t checkedElements(const OpContext &ctx, const std::vector<int64_t> &shape,
			const std::string &what)
{
	int64_t count = 1;
	for (int64_t dim : shape) {
		if (dim < 0)
			throw OpError(EINVAL, ctx.node().opType + ": " + what + " " +
						      shapeString(shape) + " has a negative dimension");
		if (__builtin_mul_overflow(count, dim, &count))
			throw OpError(EINVAL, ctx.node().opType + ": " + what + " " +
						      shapeString(shape) + " has too many elements");
	}
	return count;
}

void copyView(const OpContext &ctx, const Tensor &in, Tensor &out,
	      const std::vector<int64_t> &view, const std::vector<int64_t> &strides, int64_t base)
{
	const int64_t count = out.elements();
	int64_t viewCount = 1;
	for (int64_t dim : view)
		viewCount *= dim;
	if (viewCount != count || view.size() != strides.size() || in.type() != out.type())
		throw std::logic_error("copyView: the view does not match the output");
	if (!count)
		return;

	/* The lowest and the highest element the view reads must be in `in`. */
	int64_t low = base;
	int64_t high = base;
	for (size_t i = 0; i < view.size(); i++) {
		int64_t reach = (view[i] - 1) * strides[i];
		(reach < 0 ? low : high) += reach;
	}
	if (low < 0 || high >= in.elements())
		throw OpError(EINVAL, ctx.node().opType + ": a view of " + in.describe() +
					      " reads outside it");

	const size_t size = dataTypeSize(in.type());
	const uint8_t *src = static_cast<const uint8_t *>(in.raw());
	uint8_t *dst = static_cast<uint8_t *>(out.raw());
	if (view.empty()) {
		std::memcpy(dst, src + base * size, size);
		return;
	}

	/* Row by row along the last axis of the view, an odometer over the others. */
	const size_t outer = view.size() - 1;
	const int64_t rowLength = view.back();
	const int64_t rowStride = strides.back();
	std::vector<int64_t> pos(outer, 0);
	int64_t at = base;
	for (int64_t done = 0; done < count; done += rowLength) {
		if (rowStride == 1) {
			std::memcpy(dst, src + at * size, rowLength * size);
		} else {
			for (int64_t j = 0; j < rowLength; j++)
				std::memcpy(dst + j * size, src + (at + j * rowStride) * size, size);
		}
		dst += rowLength * size;
		for (size_t i = outer; i-- > 0;) {
			pos[i]++;
			at += strides[i];
			if (pos[i] < view[i])
				break;
			at -= strides[i] * pos[i];
			pos[i] = 0;
		}
	}
}

int64_t dimsProduct(const std::vector<int64_t> &dims, size_t from, size_t to)
{
	int64_t count = 1;
	for (size_t i = from; i < to; i++)
		count *= dims[i];
	return count;
}

std::vector<int64_t> intsInputOrAttribute(const OpContext &ctx, size_t input, int64_t since,
					  const char *attribute, bool *present)
{
	bool given;
	std::vector<int64_t> values;
	if (ctx.opset() >= since) {
		given = ctx.hasInput(input);
		if (given)
			values = toInt64s(ctx, ctx.input(input));
	} else {
		given = ctx.hasAttribute(attribute);
		values = ctx.intsAttribute(attribute);
	}
	if (present)
		*present = given;
	return values;
}

namespace {

void identity(OpContext &ctx)
{
	ctx.setOutput(0, ctx.input(0));
}

/*
 * Whether a Dropout node drops anything: opset 1 and 6 train unless
 * is_test is set, opset 7 to 11 always infer, opset 12 trains when the
 * training_mode input is true. Training with a ratio above 0 is random,
 * which libvdla does not do.
 */
void checkDropoutInfers(const OpContext &ctx)
{
	bool training;
	double ratio;
	if (ctx.opset() < 7) {
		training = !ctx.intAttribute("is_test", 0);
		ratio = ctx.floatAttribute("ratio", 0.5f);
	} else if (ctx.opset() < 12) {
		training = false;
		ratio = ctx.floatAttribute("ratio", 0.5f);
	} else {
		training = false;
		if (ctx.hasInput(2)) {
			const Tensor &mode = ctx.input(2);
			ctx.require(mode.type() == DataType::Bool && mode.elements() == 1,
				    "Dropout: training_mode must be one bool, not " + mode.describe());
			training = mode.data<bool>()[0];
		}
		ratio = 0.5;
		if (ctx.hasInput(1)) {
			const Tensor &r = ctx.input(1);
			ctx.require((r.type() == DataType::Float || r.type() == DataType::Double) &&
					    r.elements() == 1,
				    "Dropout: ratio must be one float or double, not " + r.describe());
			ratio = elementAsDouble(r, 0);
		}
	}
	ctx.require(ratio >= 0 && ratio < 1, "Dropout: ratio " + std::to_string(ratio) +
						     " is not in [0, 1)");
	if (training && ratio > 0)
		throw OpError(ENOTSUP, "Dropout in training mode with a ratio above 0 is random, "
				       "libvdla runs it only for inference");
}

void dropout(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	ctx.require(x.type() == DataType::Float || x.type() == DataType::Double ||
			    x.type() == DataType::Float16,
		    "Dropout takes floating-point tensors, not " + x.describe());
	checkDropoutInfers(ctx);
	ctx.setOutput(0, x);
	if (!ctx.wantsOutput(1))
		return;
	/* Nothing is dropped: the mask keeps every element (bool from opset 10, T before). */
	if (ctx.opset() >= 10) {
		Tensor mask(DataType::Bool, x.shape());
		std::memset(mask.raw(), 1, mask.bytes());
		ctx.setOutput(1, std::move(mask));
	} else {
		ctx.require(x.type() != DataType::Float16, "Dropout: a float16 mask is not supported");
		Tensor mask(x.type(), x.shape());
		for (int64_t i = 0; i < mask.elements(); i++)
			storeFromDouble(mask, i, 1.0);
		ctx.setOutput(1, std::move(mask));
	}
}

Tensor scalarOrVector(DataType type, size_t count, bool scalar)
{
	return scalar ? Tensor(type, {}) : Tensor(type, {int64_t(count)});
}

/* Constant: exactly one of value, value_float(s), value_int(s). */
void constant(OpContext &ctx)
{
	static const char *const unsupported[] = { "sparse_value", "value_string", "value_strings" };
	for (const char *name : unsupported)
		if (ctx.hasAttribute(name))
			throw OpError(ENOTSUP, std::string("Constant: attribute '") + name +
						       "' is not supported");
	static const char *const forms[] = { "value", "value_float", "value_floats", "value_int",
					     "value_ints" };
	int given = 0;
	for (const char *name : forms)
		given += ctx.hasAttribute(name);
	ctx.require(given == 1, "Constant needs exactly one of value, value_float, value_floats, "
				"value_int, value_ints");

	if (ctx.hasAttribute("value")) {
		ctx.setOutput(0, ctx.tensorAttribute("value"));
	} else if (ctx.hasAttribute("value_float") || ctx.hasAttribute("value_floats")) {
		bool scalar = ctx.hasAttribute("value_float");
		std::vector<float> values = scalar
			? std::vector<float>{ ctx.floatAttribute("value_float", 0) }
			: ctx.floatsAttribute("value_floats");
		Tensor out = scalarOrVector(DataType::Float, values.size(), scalar);
		std::copy(values.begin(), values.end(), out.data<float>());
		ctx.setOutput(0, std::move(out));
	} else {
		bool scalar = ctx.hasAttribute("value_int");
		std::vector<int64_t> values = scalar
			? std::vector<int64_t>{ ctx.intAttribute("value_int") }
			: ctx.intsAttribute("value_ints");
		Tensor out = scalarOrVector(DataType::Int64, values.size(), scalar);
		std::copy(values.begin(), values.end(), out.data<int64_t>());
		ctx.setOutput(0, std::move(out));
	}
}

/* Shape: the dimensions [start, end), both clamped to [0, rank] (opset 15). */
void shape(OpContext &ctx)
{
	const std::vector<int64_t> &dims = ctx.input(0).shape();
	const int64_t rank = dims.size();
	auto clamp = [rank](int64_t at) {
		if (at < 0)
			at += rank;
		return std::min(std::max<int64_t>(at, 0), rank);
	};
	int64_t start = clamp(ctx.intAttribute("start", 0));
	int64_t end = clamp(ctx.intAttribute("end", rank));
	int64_t count = std::max<int64_t>(end - start, 0);
	Tensor out(DataType::Int64, { count });
	for (int64_t i = 0; i < count; i++)
		out.data<int64_t>()[i] = dims[start + i];
	ctx.setOutput(0, std::move(out));
}

void size(OpContext &ctx)
{
	Tensor out(DataType::Int64, {});
	out.data<int64_t>()[0] = ctx.input(0).elements();
	ctx.setOutput(0, std::move(out));
}

} /* namespace */

void registerShapeOps(OpRegistry &registry)
{
	registry.add("Identity", identity);
	registry.add("Dropout", dropout);
	registry.add("Constant", constant);
	registry.add("Shape", shape);
	registry.add("Size", size);
	registerReshapeOps(registry);
	registerSlicePadOps(registry);
	registerGatherScatterOps(registry);
	registerSelectOps(registry);
	registerGenerateOps(registry);
}

} /* namespace vdla::onnx */
