/* SPDX-License-Identifier: MIT */
/*
 * Resampling: Resize (opsets 10 to 13) and Upsample (opsets 7 and 9).
 *
 * Each axis is resampled on its own: an output index x_resized maps to a
 * coordinate x_original of the input (coordinate_transformation_mode), from
 * which the mode takes one input element (nearest) or a weighted sum of 2
 * (linear) or 4 (cubic) neighbours. The N-D result is the product of the
 * axes' weights, which is what applying the axes one after another gives.
 * Neighbours past an edge take the edge's value, unless exclude_outside
 * drops them (and the others' weights are scaled to sum 1 again).
 */

#include "quant_ops.h"

#include <cerrno>
#include <cmath>
#include <cstring>

namespace vdla::onnx {

namespace {

enum class Mode { Nearest, Linear, Cubic };

struct ResizeParams {
	Mode mode = Mode::Nearest;
	std::string transform = "half_pixel";
	std::string nearestMode = "round_prefer_floor";
	double cubicA = -0.75;
	bool excludeOutside = false;
	double extrapolation = 0;
	/* Resize-10 and Upsample, whose nearest neighbour is not a rounding. */
	bool legacy = false;
};

/* An input element of one axis and its weight in an output element. */
struct Tap {
	int64_t index;
	double weight;
};

/* One axis of the resampling: for each output index, its taps. */
struct AxisPlan {
	int64_t inLength;
	int64_t outLength;
	std::vector<std::vector<Tap>> taps;
	/* tf_crop_and_resize: the output index maps outside the input. */
	std::vector<bool> outside;
	bool identity;
};

Mode parseMode(const OpContext &ctx)
{
	std::string mode = ctx.stringAttribute("mode", "nearest");
	if (mode == "nearest")
		return Mode::Nearest;
	if (mode == "linear")
		return Mode::Linear;
	if (mode == "cubic" && ctx.node().opType == "Resize" && ctx.opset() >= 11)
		return Mode::Cubic;
	throw OpError(EINVAL, "attribute 'mode' '" + mode + "' is not supported by " +
				      ctx.node().opType + "-" + std::to_string(ctx.opset()));
}

/*
 * x_original of output index x. `resized` is the output length before it
 * is floored to an integer: input length * scale (* the roi's extent for
 * tf_crop_and_resize), or the 'sizes' value. align_corners and
 * tf_crop_and_resize divide by it, as the specification's reference does.
 */
double originalCoordinate(const ResizeParams &p, double x, double scale, int64_t inLength,
			  double resized, double roiStart, double roiEnd)
{
	const std::string &t = p.transform;
	if (t == "half_pixel")
		return (x + 0.5) / scale - 0.5;
	if (t == "pytorch_half_pixel")
		return resized > 1 ? (x + 0.5) / scale - 0.5 : 0;
	if (t == "align_corners")
		return resized == 1 ? 0 : x * double(inLength - 1) / (resized - 1);
	if (t == "asymmetric")
		return x / scale;
	if (t == "tf_half_pixel_for_nn")
		return (x + 0.5) / scale;
	/* tf_crop_and_resize */
	if (resized == 1)
		return 0.5 * (roiStart + roiEnd) * double(inLength - 1);
	return roiStart * double(inLength - 1) +
	       x * (roiEnd - roiStart) * double(inLength - 1) / (resized - 1);
}

/* Checks coordinate_transformation_mode against the opset. */
void checkTransform(const OpContext &ctx, const std::string &t)
{
	if (t == "half_pixel" || t == "pytorch_half_pixel" || t == "align_corners" ||
	    t == "asymmetric" || t == "tf_crop_and_resize")
		return;
	/* Resize-11 only. */
	if (t == "tf_half_pixel_for_nn" && ctx.opset() < 13)
		return;
	throw OpError(EINVAL, "attribute 'coordinate_transformation_mode' '" + t +
				      "' is not supported by Resize-" + std::to_string(ctx.opset()));
}

int64_t nearestIndex(const ResizeParams &p, double x, double scale)
{
	if (p.legacy)
		/* Resize-10 and Upsample: floor when enlarging, ceil when shrinking. */
		return int64_t(scale < 1 ? std::ceil(x) : std::floor(x));
	const std::string &m = p.nearestMode;
	if (m == "round_prefer_floor")
		return int64_t(std::ceil(x - 0.5));
	if (m == "round_prefer_ceil")
		return int64_t(std::floor(x + 0.5));
	if (m == "floor")
		return int64_t(std::floor(x));
	if (m == "ceil")
		return int64_t(std::ceil(x));
	throw OpError(EINVAL, "attribute 'nearest_mode' '" + m + "' is not supported");
}

/* The cubic convolution kernel of Keys with parameter a, at distance d. */
double cubicWeight(double a, double d)
{
	d = std::fabs(d);
	if (d <= 1)
		return ((a + 2) * d - (a + 3)) * d * d + 1;
	if (d < 2)
		return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
	return 0;
}

std::vector<Tap> interpolationTaps(const ResizeParams &p, double x, int64_t inLength)
{
	const double below = std::floor(x);
	const double t = x - below;
	const int64_t base = int64_t(below);
	std::vector<Tap> taps;
	if (p.mode == Mode::Linear) {
		taps = { { base, 1 - t }, { base + 1, t } };
	} else {
		for (int64_t k = -1; k <= 2; k++)
			taps.push_back({ base + k, cubicWeight(p.cubicA, t - double(k)) });
	}
	if (p.excludeOutside) {
		double sum = 0;
		for (Tap &tap : taps) {
			if (tap.index < 0 || tap.index >= inLength)
				tap.weight = 0;
			sum += tap.weight;
		}
		for (Tap &tap : taps)
			tap.weight = sum != 0 ? tap.weight / sum : 0;
	}
	std::vector<Tap> kept;
	for (Tap tap : taps) {
		if (tap.weight == 0)
			continue;
		tap.index = std::min(std::max<int64_t>(tap.index, 0), inLength - 1);
		kept.push_back(tap);
	}
	return kept;
}

AxisPlan planAxis(const ResizeParams &p, int64_t inLength, int64_t outLength, double resized,
		  double scale, double roiStart, double roiEnd)
{
	AxisPlan plan;
	plan.inLength = inLength;
	plan.outLength = outLength;
	plan.taps.resize(outLength);
	plan.outside.assign(outLength, false);
	plan.identity = inLength == outLength;
	for (int64_t i = 0; i < outLength; i++) {
		double x = originalCoordinate(p, double(i), scale, inLength, resized, roiStart,
					      roiEnd);
		if (p.transform == "tf_crop_and_resize" &&
		    (x < 0 || x > double(inLength - 1))) {
			plan.outside[i] = true;
			plan.identity = false;
			continue;
		}
		/*
		 * Past 3 elements beyond an edge every neighbour is the edge (or
		 * excluded): clamping keeps the index arithmetic in range.
		 */
		x = std::min(std::max(x, -3.0), double(inLength + 2));
		if (p.mode == Mode::Nearest) {
			int64_t index = nearestIndex(p, x, scale);
			index = std::min(std::max<int64_t>(index, 0), inLength - 1);
			plan.taps[i] = { { index, 1 } };
		} else {
			plan.taps[i] = interpolationTaps(p, x, inLength);
		}
		if (plan.taps[i].size() != 1 || plan.taps[i][0].index != i ||
		    plan.taps[i][0].weight != 1)
			plan.identity = false;
	}
	return plan;
}

/* Nearest: copies elements whatever their type; outside ones get the extrapolation value. */
Tensor gatherNearest(const ResizeParams &p, const Tensor &x, const std::vector<AxisPlan> &plans,
		     const std::vector<int64_t> &outShape)
{
	Tensor out(x.type(), outShape);
	Tensor extrapolation(x.type(), {});
	storeFromDouble(extrapolation, 0, p.extrapolation);
	const size_t size = dataTypeSize(x.type());
	const size_t rank = outShape.size();
	std::vector<int64_t> inStrides = stridesOf(x.shape());
	std::vector<int64_t> pos(rank, 0);
	const uint8_t *in = static_cast<const uint8_t *>(x.raw());
	uint8_t *o = static_cast<uint8_t *>(out.raw());
	for (int64_t n = 0; n < out.elements(); n++) {
		int64_t at = 0;
		bool outside = false;
		for (size_t d = 0; d < rank; d++) {
			outside = outside || plans[d].outside[pos[d]];
			if (!outside)
				at += plans[d].taps[pos[d]][0].index * inStrides[d];
		}
		std::memcpy(o + n * size, outside ? extrapolation.raw() : in + at * size, size);
		for (size_t d = rank; d-- > 0;) {
			if (++pos[d] < outShape[d])
				break;
			pos[d] = 0;
		}
	}
	return out;
}

/* Linear and cubic: one axis after another, in double. */
Tensor interpolate(const ResizeParams &p, const Tensor &x, const std::vector<AxisPlan> &plans,
		   const std::vector<int64_t> &outShape)
{
	std::vector<int64_t> shape = x.shape();
	std::vector<double> values(x.elements());
	for (int64_t i = 0; i < x.elements(); i++)
		values[i] = elementAsDouble(x, i);
	for (size_t d = 0; d < shape.size(); d++) {
		const AxisPlan &plan = plans[d];
		if (plan.identity)
			continue;
		int64_t outer = 1, inner = 1;
		for (size_t e = 0; e < d; e++)
			outer *= shape[e];
		for (size_t e = d + 1; e < shape.size(); e++)
			inner *= shape[e];
		std::vector<double> next(outer * plan.outLength * inner);
		for (int64_t o = 0; o < outer; o++) {
			for (int64_t i = 0; i < plan.outLength; i++) {
				double *dst = &next[(o * plan.outLength + i) * inner];
				if (plan.outside[i]) {
					std::fill(dst, dst + inner, p.extrapolation);
					continue;
				}
				for (const Tap &tap : plan.taps[i]) {
					const double *src = &values[(o * plan.inLength + tap.index) * inner];
					for (int64_t j = 0; j < inner; j++)
						dst[j] += tap.weight * src[j];
				}
			}
		}
		values = std::move(next);
		shape[d] = plan.outLength;
	}
	Tensor out(x.type(), outShape);
	for (int64_t i = 0; i < out.elements(); i++)
		storeFromDouble(out, i, values[i]);
	return out;
}

/*
 * The output sizes and per-axis scales: from `sizes` (the scale is then
 * output / input) or from `scales` (the size is floor(input * scale), times
 * the roi's extent for tf_crop_and_resize).
 */
void resample(OpContext &ctx, const ResizeParams &p, const Tensor &x,
	      const std::vector<double> *scalesIn, const std::vector<int64_t> *sizesIn,
	      const std::vector<double> &roi)
{
	ctx.require(x.type() != DataType::Float16, "float16 tensors are not supported");
	const size_t rank = x.rank();
	ctx.require(rank >= 1, "X must have at least one dimension");
	const bool crop = p.transform == "tf_crop_and_resize";
	std::vector<int64_t> outShape(rank);
	std::vector<double> scales(rank);
	std::vector<double> resized(rank);
	for (size_t d = 0; d < rank; d++) {
		const int64_t in = x.shape()[d];
		double start = crop ? roi[d] : 0, end = crop ? roi[rank + d] : 1;
		if (sizesIn) {
			outShape[d] = (*sizesIn)[d];
			ctx.require(outShape[d] >= 0, "'sizes' must not be negative");
			scales[d] = in > 0 ? double(outShape[d]) / double(in) : 1;
			resized[d] = double(outShape[d]);
		} else {
			scales[d] = (*scalesIn)[d];
			ctx.require(std::isfinite(scales[d]) && scales[d] > 0,
				    "'scales' must be finite and positive");
			resized[d] = double(in) * (end - start) * scales[d];
			double size = std::floor(resized[d]);
			ctx.require(size >= 0 && size < 2147483648.0,
				    "'scales' give an output size out of range");
			outShape[d] = int64_t(size);
		}
		ctx.require(in > 0 || outShape[d] == 0, "cannot resize an empty axis to a non-empty one");
	}

	/*
	 * The output's size is checked before the plans, whose taps (one list
	 * per output index of each axis) it bounds, are built.
	 */
	Tensor out;
	int64_t total = 1;
	for (int64_t d : outShape)
		total = checkedMul(ctx, total, d, "the output shape " + shapeString(outShape));
	checkScratch(ctx, total, dataTypeSize(x.type()), "the output");
	if (total == 0) {
		out = Tensor(x.type(), outShape);
	} else {
		std::vector<AxisPlan> plans;
		for (size_t d = 0; d < rank; d++)
			plans.push_back(planAxis(p, x.shape()[d], outShape[d], resized[d], scales[d],
						 crop ? roi[d] : 0, crop ? roi[rank + d] : 1));
		if (p.mode == Mode::Nearest) {
			out = gatherNearest(p, x, plans, outShape);
		} else {
			/* Refuses the types interpolation cannot take (bool). */
			dispatchNumeric(ctx, x.type(), [](auto) {});
			out = interpolate(p, x, plans, outShape);
		}
	}
	ctx.setOutput(0, std::move(out));
}

std::vector<double> doubles(const Tensor &t)
{
	std::vector<double> values(t.elements());
	for (int64_t i = 0; i < t.elements(); i++)
		values[i] = elementAsDouble(t, i);
	return values;
}

std::vector<double> floatScales(const OpContext &ctx, const Tensor &t, size_t rank)
{
	ctx.require(t.type() == DataType::Float, "'scales' must be float, not " + t.describe());
	ctx.require(size_t(t.elements()) == rank, "'scales' has " + std::to_string(t.elements()) +
							  " values for rank " + std::to_string(rank));
	return doubles(t);
}

void resize(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	ResizeParams p;
	p.mode = parseMode(ctx);
	if (ctx.opset() < 11) {
		/* Resize-10: X and scales; asymmetric coordinates. */
		p.legacy = true;
		p.transform = "asymmetric";
		std::vector<double> scales = floatScales(ctx, ctx.input(1), x.rank());
		resample(ctx, p, x, &scales, nullptr, {});
		return;
	}
	p.transform = ctx.stringAttribute("coordinate_transformation_mode", "half_pixel");
	checkTransform(ctx, p.transform);
	p.nearestMode = ctx.stringAttribute("nearest_mode", "round_prefer_floor");
	p.cubicA = ctx.floatAttribute("cubic_coeff_a", -0.75f);
	p.excludeOutside = ctx.intAttribute("exclude_outside", 0) != 0;
	p.extrapolation = ctx.floatAttribute("extrapolation_value", 0.0f);

	/* Inputs X, roi, scales, sizes; an empty tensor stands for an absent one. */
	auto given = [&](size_t i) { return ctx.hasInput(i) && ctx.input(i).elements() > 0; };
	ctx.require(given(2) != given(3), "exactly one of 'scales' and 'sizes' must be given");
	std::vector<double> roi;
	if (p.transform == "tf_crop_and_resize") {
		ctx.require(given(1), "tf_crop_and_resize needs 'roi'");
		const Tensor &r = ctx.input(1);
		ctx.require(r.type() == DataType::Float || r.type() == DataType::Double,
			    "'roi' must be float or double, not " + r.describe());
		ctx.require(size_t(r.elements()) == 2 * x.rank(),
			    "'roi' needs 2 values per axis, not " + r.describe());
		roi = doubles(r);
		for (double v : roi)
			ctx.require(std::isfinite(v), "'roi' holds a value that is not finite");
	}
	if (given(2)) {
		std::vector<double> scales = floatScales(ctx, ctx.input(2), x.rank());
		resample(ctx, p, x, &scales, nullptr, roi);
	} else {
		const Tensor &s = ctx.input(3);
		ctx.require(s.type() == DataType::Int64 && size_t(s.elements()) == x.rank(),
			    "'sizes' must be int64 with one value per axis, not " + s.describe());
		std::vector<int64_t> sizes(s.data<int64_t>(), s.data<int64_t>() + s.elements());
		resample(ctx, p, x, nullptr, &sizes, roi);
	}
}

/* Upsample-7 (scales attribute) and -9 (scales input): Resize-10's rules, scales >= 1. */
void upsample(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	ResizeParams p;
	p.mode = parseMode(ctx);
	p.legacy = true;
	p.transform = "asymmetric";
	std::vector<double> scales;
	if (ctx.opset() < 9) {
		std::vector<float> attribute = ctx.floatsAttribute("scales");
		scales.assign(attribute.begin(), attribute.end());
		ctx.require(scales.size() == x.rank(), "attribute 'scales' has " +
							       std::to_string(scales.size()) +
							       " values for rank " +
							       std::to_string(x.rank()));
	} else {
		scales = floatScales(ctx, ctx.input(1), x.rank());
	}
	for (double s : scales)
		ctx.require(s >= 1, "Upsample's scales must be at least 1");
	resample(ctx, p, x, &scales, nullptr, {});
}

} /* namespace */

void registerResizeOps(OpRegistry &registry)
{
	registry.add("Resize", resize);
	registry.add("Upsample", upsample);
}

} /* namespace vdla::onnx */
