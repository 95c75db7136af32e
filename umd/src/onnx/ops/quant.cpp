/* SPDX-License-Identifier: MIT */
/*
 * Quantisation: the integer rules the quantised operators share, and
 * QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear. The other
 * files of the family register their kernels from registerQuantOps().
 */

#include "quant_ops.h"

#include <cerrno>
#include <cmath>
#include <limits>

namespace vdla::onnx {

double roundHalfToEven(double value)
{
	if (std::isnan(value))
		return 0;
	if (std::isinf(value))
		return value;
	/* value - floor(value) is exact in binary floating point. */
	double below = std::floor(value);
	double fraction = value - below;
	if (fraction > 0.5)
		return below + 1;
	if (fraction < 0.5)
		return below;
	return std::fmod(below, 2.0) == 0 ? below : below + 1;
}

template<typename Q>
Q roundAddSaturate(double value, int32_t zeroPoint)
{
	/* Integral after rounding, so adding the zero point is exact in double. */
	double sum = roundHalfToEven(value) + zeroPoint;
	if (sum <= double(std::numeric_limits<Q>::min()))
		return std::numeric_limits<Q>::min();
	if (sum >= double(std::numeric_limits<Q>::max()))
		return std::numeric_limits<Q>::max();
	return static_cast<Q>(sum);
}

template<typename Q>
Q requantise(int32_t accumulator, float multiplier, int32_t zeroPoint)
{
	float scaled = static_cast<float>(accumulator) * multiplier;
	return roundAddSaturate<Q>(scaled, zeroPoint);
}

template int8_t roundAddSaturate<int8_t>(double, int32_t);
template uint8_t roundAddSaturate<uint8_t>(double, int32_t);
template int8_t requantise<int8_t>(int32_t, float, int32_t);
template uint8_t requantise<uint8_t>(int32_t, float, int32_t);

float realMultiplier(float inputScale, float weightScale, float outputScale)
{
	float product = inputScale * weightScale;
	return product / outputScale;
}

std::vector<int32_t> zeroPointValues(const OpContext &ctx, size_t input, const char *what)
{
	if (!ctx.hasInput(input))
		return { 0 };
	const Tensor &t = ctx.input(input);
	std::vector<int32_t> values(t.elements());
	switch (t.type()) {
	case DataType::Int8:
		values.assign(t.data<int8_t>(), t.data<int8_t>() + values.size());
		break;
	case DataType::Uint8:
		values.assign(t.data<uint8_t>(), t.data<uint8_t>() + values.size());
		break;
	case DataType::Int32:
		values.assign(t.data<int32_t>(), t.data<int32_t>() + values.size());
		break;
	default:
		throw OpError(EINVAL, std::string(what) + " must be int8 or uint8, not " +
					      t.describe());
	}
	ctx.require(!values.empty(), std::string(what) + " has no elements");
	return values;
}

std::vector<float> scaleValues(const OpContext &ctx, size_t input, const char *what)
{
	const Tensor &t = ctx.input(input);
	ctx.require(t.type() == DataType::Float,
		    std::string(what) + " must be float, not " + t.describe());
	std::vector<float> values(t.data<float>(), t.data<float>() + t.elements());
	ctx.require(!values.empty(), std::string(what) + " has no elements");
	for (float v : values)
		ctx.require(std::isfinite(v) && v > 0,
			    std::string(what) + " must be finite and positive");
	return values;
}

void requireQuantType(const OpContext &ctx, const Tensor &value, size_t zeroPointInput,
		      const char *what)
{
	ctx.require(value.type() == DataType::Int8 || value.type() == DataType::Uint8,
		    std::string(what) + " must be int8 or uint8, not " + value.describe());
	if (ctx.hasInput(zeroPointInput))
		ctx.require(ctx.input(zeroPointInput).type() == value.type(),
			    std::string(what) + " is " + value.describe() +
				    " but its zero point is " + ctx.input(zeroPointInput).describe());
}

namespace {

/*
 * How QuantizeLinear and DequantizeLinear spread scale and zero point over
 * the elements: one pair for the whole tensor, or (opset 13) one pair per
 * index of `axis`. channelOf(i) gives the pair of flat element i.
 */
struct ChannelLayout {
	int64_t channels = 1;
	int64_t inner = 1;

	int64_t channelOf(int64_t i) const { return channels == 1 ? 0 : (i / inner) % channels; }
};

ChannelLayout channelLayout(const OpContext &ctx, const Tensor &x, size_t scaleInput,
			    size_t zeroPointInput)
{
	const Tensor &scale = ctx.input(scaleInput);
	ChannelLayout layout;
	if (ctx.hasInput(zeroPointInput))
		ctx.require(ctx.input(zeroPointInput).shape() == scale.shape(),
			    "the zero point " + ctx.input(zeroPointInput).describe() +
				    " does not have the shape of the scale " + scale.describe());
	if (scale.rank() == 0 || (scale.rank() == 1 && scale.elements() == 1))
		return layout;
	ctx.require(ctx.opset() >= 13, "a per-axis scale needs opset 13");
	ctx.require(scale.rank() == 1, "the scale must be a scalar or a 1-D tensor, not " +
					       scale.describe());
	ctx.require(x.rank() >= 1, "a per-axis scale needs an input with an axis");
	int64_t axis = normaliseAxis(ctx, ctx.intAttribute("axis", 1), int64_t(x.rank()));
	ctx.require(scale.elements() == x.shape()[axis],
		    "the scale has " + std::to_string(scale.elements()) +
			    " elements for axis " + std::to_string(axis) + " of " + x.describe());
	layout.channels = scale.elements();
	for (size_t d = axis + 1; d < x.rank(); d++)
		layout.inner *= x.shape()[d];
	return layout;
}

/*
 * QuantizeLinear: y = saturate(round(x / y_scale) + y_zero_point).
 * The division is in float32 for a float x (in double for an int32 x, which
 * float32 cannot hold exactly), the rounding is half to even, the zero point
 * is added to the rounded integer, and the sum is clamped to the range of
 * the zero point's type (uint8 when it is absent).
 */
void quantizeLinear(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	ctx.require(x.type() == DataType::Float || x.type() == DataType::Int32,
		    "QuantizeLinear takes float or int32 x, not " + x.describe());
	std::vector<float> scales = scaleValues(ctx, 1, "y_scale");
	std::vector<int32_t> zeroPoints = zeroPointValues(ctx, 2, "y_zero_point");
	DataType outType = ctx.hasInput(2) ? ctx.input(2).type() : DataType::Uint8;
	ctx.require(outType == DataType::Int8 || outType == DataType::Uint8,
		    "y_zero_point must be int8 or uint8");
	ChannelLayout layout = channelLayout(ctx, x, 1, 2);
	/* No zero point: 0 for every channel of a per-axis scale. */
	if (!ctx.hasInput(2))
		zeroPoints.assign(scales.size(), 0);

	Tensor y(outType, x.shape());
	auto quantize = [&](auto zero) {
		using Q = decltype(zero);
		Q *out = y.data<Q>();
		for (int64_t i = 0; i < x.elements(); i++) {
			int64_t c = layout.channelOf(i);
			double quotient = x.type() == DataType::Float
						  ? double(x.data<float>()[i] / scales[c])
						  : double(x.data<int32_t>()[i]) / scales[c];
			out[i] = roundAddSaturate<Q>(quotient, zeroPoints[c]);
		}
	};
	if (outType == DataType::Int8)
		quantize(int8_t{});
	else
		quantize(uint8_t{});
	ctx.setOutput(0, std::move(y));
}

/*
 * DequantizeLinear: y = float32(x - x_zero_point) * x_scale. The difference
 * is exact in int32; its product with the scale is one float32 rounding.
 */
void dequantizeLinear(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	ctx.require(x.type() == DataType::Int8 || x.type() == DataType::Uint8 ||
			    x.type() == DataType::Int32,
		    "DequantizeLinear takes int8, uint8 or int32 x, not " + x.describe());
	std::vector<float> scales = scaleValues(ctx, 1, "x_scale");
	std::vector<int32_t> zeroPoints = zeroPointValues(ctx, 2, "x_zero_point");
	if (ctx.hasInput(2))
		ctx.require(ctx.input(2).type() == x.type(), "x_zero_point is " +
								     ctx.input(2).describe() +
								     " for x " + x.describe());
	if (x.type() == DataType::Int32)
		for (int32_t zp : zeroPoints)
			ctx.require(zp == 0, "an int32 x has no zero point (it must be 0)");
	ChannelLayout layout = channelLayout(ctx, x, 1, 2);
	/* No zero point: 0 for every channel of a per-axis scale. */
	if (!ctx.hasInput(2))
		zeroPoints.assign(scales.size(), 0);

	Tensor y(DataType::Float, x.shape());
	float *out = y.data<float>();
	dispatchNumeric(ctx, x.type(), [&](auto zero) {
		using T = decltype(zero);
		const T *in = x.data<T>();
		for (int64_t i = 0; i < x.elements(); i++) {
			int64_t c = layout.channelOf(i);
			int64_t centred = int64_t(in[i]) - zeroPoints[c];
			out[i] = float(centred) * scales[c];
		}
	});
	ctx.setOutput(0, std::move(y));
}

/*
 * DynamicQuantizeLinear, to uint8, all in float32:
 *   x_min = min(0, min(x)), x_max = max(0, max(x))
 *   y_scale = (x_max - x_min) / 255
 *   y_zero_point = saturate(round(0 - x_min / y_scale))
 *   y = saturate(round(x / y_scale) + y_zero_point)
 * An x of zeros only (or no elements) has y_scale 0: y and y_zero_point
 * are then 0, the specification leaving that case undefined.
 */
void dynamicQuantizeLinear(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	ctx.require(x.type() == DataType::Float,
		    "DynamicQuantizeLinear takes a float x, not " + x.describe());
	const float *in = x.data<float>();
	float low = 0, high = 0;
	for (int64_t i = 0; i < x.elements(); i++) {
		ctx.require(!std::isnan(in[i]), "x holds a NaN");
		low = std::min(low, in[i]);
		high = std::max(high, in[i]);
	}
	float scale = (high - low) / 255.0f;
	ctx.require(std::isfinite(scale), "x holds an infinity");

	Tensor y(DataType::Uint8, x.shape());
	Tensor yScale(DataType::Float, {});
	Tensor yZeroPoint(DataType::Uint8, {});
	yScale.data<float>()[0] = scale;
	if (scale > 0) {
		uint8_t zeroPoint = roundAddSaturate<uint8_t>(0.0f - low / scale, 0);
		yZeroPoint.data<uint8_t>()[0] = zeroPoint;
		uint8_t *out = y.data<uint8_t>();
		for (int64_t i = 0; i < x.elements(); i++)
			out[i] = roundAddSaturate<uint8_t>(in[i] / scale, zeroPoint);
	}
	ctx.setOutput(0, std::move(y));
	ctx.setOutput(1, std::move(yScale));
	ctx.setOutput(2, std::move(yZeroPoint));
}

} /* namespace */

void registerQuantLinearOps(OpRegistry &registry)
{
	registry.add("QuantizeLinear", quantizeLinear);
	registry.add("DequantizeLinear", dequantizeLinear);
	registry.add("DynamicQuantizeLinear", dynamicQuantizeLinear);
}

void registerQuantOps(OpRegistry &registry)
{
	registerQuantLinearOps(registry);
	registerQuantConvOps(registry);
	registerQuantMatMulOps(registry);
	registerQuantAddOps(registry);
	registerResizeOps(registry);
	registerSamplingOps(registry);
	registerDetectionOps(registry);
	registerDetUniqueOps(registry);
}

} /* namespace vdla::onnx */
