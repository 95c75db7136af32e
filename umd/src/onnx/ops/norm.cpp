/* SPDX-License-Identifier: MIT */
/*
 * Normalisations: BatchNormalization, InstanceNormalization,
 * LayerNormalization, MeanVarianceNormalization and LRN. Statistics are
 * computed in double; the variance is the population one (divided by the
 * count, not the count minus one), as the specification's formulas have it.
 */

#include "nn_ops.h"

#include <cmath>

namespace vdla::onnx {

namespace {

/* The elements of a parameter tensor as doubles, checking their number. */
std::vector<double> parameter(const OpContext &ctx, size_t input, const char *name, int64_t count)
{
	const Tensor &t = ctx.input(input);
	if (t.type() == DataType::Float16)
		throw OpError(ENOTSUP, std::string("input ") + name + " of float16 is not built");
	ctx.require(t.type() == DataType::Float || t.type() == DataType::Double,
		    std::string("input ") + name + " " + t.describe() + " is not float or double");
	ctx.require(t.elements() == count, std::string("input ") + name + " " + t.describe() +
						   " does not have " + std::to_string(count) +
						   " elements");
	std::vector<double> values(count);
	for (int64_t i = 0; i < count; i++)
		values[i] = elementAsDouble(t, i);
	return values;
}

/*
 * Per-group statistics of x, where group[i] names the group of element i:
 * the means and the population variances.
 */
template<typename T>
void groupStatistics(const Tensor &x, const std::vector<int64_t> &group, size_t groups,
		     std::vector<double> &mean, std::vector<double> &variance)
{
	const T *in = x.data<T>();
	std::vector<int64_t> count(groups, 0);
	mean.assign(groups, 0.0);
	variance.assign(groups, 0.0);
	for (size_t i = 0; i < group.size(); i++) {
		mean[group[i]] += in[i];
		count[group[i]]++;
	}
	for (size_t g = 0; g < groups; g++)
		mean[g] /= double(count[g] ? count[g] : 1);
	/* Two passes: no cancellation of E[x^2] - E[x]^2. */
	for (size_t i = 0; i < group.size(); i++) {
		double d = in[i] - mean[group[i]];
		variance[group[i]] += d * d;
	}
	for (size_t g = 0; g < groups; g++)
		variance[g] /= double(count[g] ? count[g] : 1);
}

/* For each element of a (N, C, ...) tensor, its channel. */
std::vector<int64_t> channelOf(const Tensor &x)
{
	const int64_t channels = x.shape()[1];
	const int64_t inner = shapeProduct(x.shape(), 2, x.rank());
	std::vector<int64_t> channel(x.elements());
	for (size_t i = 0; i < channel.size(); i++)
		channel[i] = int64_t(i) / inner % channels;
	return channel;
}

void batchNormalization(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	ctx.require(x.rank() >= 2, "input X " + x.describe() + " has no channel axis");
	const int64_t channels = x.shape()[1];
	const int64_t opset = ctx.opset();
	const double epsilon = ctx.floatAttribute("epsilon", 1e-5f);
	const double momentum = ctx.floatAttribute("momentum", 0.9f);
	const bool training = opset >= 14 ? ctx.intAttribute("training_mode", 0) != 0 : false;
	if (opset < 14 && (ctx.wantsOutput(1) || ctx.wantsOutput(2)))
		throw OpError(ENOTSUP, "the training outputs of BatchNormalization before opset 14 "
				       "are not built");
	ctx.require(training || !(ctx.wantsOutput(1) || ctx.wantsOutput(2)),
		    "outputs running_mean and running_var need training_mode 1");

	/*
	 * Opsets 6 and 7 have spatial = 0, where the parameters hold one value
	 * per channel and spatial position rather than per channel.
	 */
	const bool spatial = opset >= 9 || ctx.intAttribute("spatial", 1) != 0;
	const int64_t inner = shapeProduct(x.shape(), 2, x.rank());
	const int64_t count = spatial ? channels : channels * inner;
	const std::vector<double> scale = parameter(ctx, 1, "scale", count);
	const std::vector<double> bias = parameter(ctx, 2, "B", count);
	std::vector<double> mean = parameter(ctx, 3, "input_mean", count);
	std::vector<double> variance = parameter(ctx, 4, "input_var", count);
	ctx.require(!training || spatial, "training_mode needs spatial parameters");

	std::vector<int64_t> group = channelOf(x);
	if (!spatial)
		for (size_t i = 0; i < group.size(); i++)
			group[i] = int64_t(i) % (channels * inner);

	Tensor y(x.type(), x.shape());
	dispatchFloat(ctx, x.type(), [&](auto zero) {
		using T = decltype(zero);
		if (training) {
			std::vector<double> batchMean, batchVariance;
			groupStatistics<T>(x, group, count, batchMean, batchVariance);
			Tensor runningMean(ctx.input(3).type(), { channels });
			Tensor runningVariance(ctx.input(4).type(), { channels });
			for (int64_t c = 0; c < channels; c++) {
				storeFromDouble(runningMean, c,
						mean[c] * momentum + batchMean[c] * (1 - momentum));
				storeFromDouble(runningVariance, c,
						variance[c] * momentum +
							batchVariance[c] * (1 - momentum));
			}
			ctx.setOutput(1, std::move(runningMean));
			ctx.setOutput(2, std::move(runningVariance));
			/* Y is normalised with the statistics of the batch. */
			mean = batchMean;
			variance = batchVariance;
		}
		const T *in = x.data<T>();
		T *out = y.data<T>();
		for (size_t i = 0; i < group.size(); i++) {
			const int64_t g = group[i];
			out[i] = T((in[i] - mean[g]) / std::sqrt(variance[g] + epsilon) * scale[g] +
				   bias[g]);
		}
	});
	ctx.setOutput(0, std::move(y));
}

void instanceNormalization(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	ctx.require(x.rank() >= 3, "input X " + x.describe() + " has no spatial axis");
	const int64_t channels = x.shape()[1];
	const int64_t inner = shapeProduct(x.shape(), 2, x.rank());
	const double epsilon = ctx.floatAttribute("epsilon", 1e-5f);
	const std::vector<double> scale = parameter(ctx, 1, "scale", channels);
	const std::vector<double> bias = parameter(ctx, 2, "B", channels);

	/* One group per batch item and channel. */
	std::vector<int64_t> group(x.elements());
	for (size_t i = 0; i < group.size(); i++)
		group[i] = int64_t(i) / inner;
	const size_t groups = shapeProduct(x.shape(), 0, 2);

	Tensor y(x.type(), x.shape());
	dispatchFloat(ctx, x.type(), [&](auto zero) {
		using T = decltype(zero);
		std::vector<double> mean, variance;
		groupStatistics<T>(x, group, groups, mean, variance);
		const T *in = x.data<T>();
		T *out = y.data<T>();
		for (size_t i = 0; i < group.size(); i++) {
			const int64_t g = group[i];
			const int64_t c = g % channels;
			out[i] = T((in[i] - mean[g]) / std::sqrt(variance[g] + epsilon) * scale[c] +
				   bias[c]);
		}
	});
	ctx.setOutput(0, std::move(y));
}

/* A Scale or B input of LayerNormalization, broadcast to the normalised shape. */
std::vector<double> layerParameter(const OpContext &ctx, size_t input, const char *name,
				   const std::vector<int64_t> &shape)
{
	const Tensor &t = ctx.input(input);
	ctx.require(broadcastShapes(t.shape(), shape) == shape,
		    std::string("input ") + name + " " + t.describe() +
			    " does not broadcast to the normalised shape " + shapeString(shape));
	const std::vector<double> values = parameter(ctx, input, name, t.elements());
	std::vector<double> spread;
	for (int64_t i : broadcastIndex(t.shape(), shape))
		spread.push_back(values[i]);
	return spread;
}

void layerNormalization(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	const int64_t rank = x.rank();
	const int64_t axis = normaliseAxis(ctx, ctx.intAttribute("axis", -1), rank);
	const double epsilon = ctx.floatAttribute("epsilon", 1e-5f);
	const DataType stash = DataType(ctx.intAttribute("stash_type", 1));
	ctx.require(stash == DataType::Float || stash == DataType::Double,
		    "attribute 'stash_type' must be float or double");

	const std::vector<int64_t> normalised(x.shape().begin() + axis, x.shape().end());
	const int64_t inner = shapeProduct(normalised, 0, normalised.size());
	const int64_t outer = shapeProduct(x.shape(), 0, axis);
	const std::vector<double> scale = layerParameter(ctx, 1, "Scale", normalised);
	const std::vector<double> bias = ctx.hasInput(2) ? layerParameter(ctx, 2, "B", normalised)
							 : std::vector<double>(inner, 0.0);

	std::vector<int64_t> statShape(x.shape().begin(), x.shape().begin() + axis);
	statShape.resize(rank, 1);
	Tensor y(x.type(), x.shape());
	Tensor meanOut(stash, statShape);
	Tensor invStdDevOut(stash, statShape);
	dispatchFloat(ctx, x.type(), [&](auto zero) {
		using T = decltype(zero);
		std::vector<int64_t> group(x.elements());
		for (size_t i = 0; i < group.size(); i++)
			group[i] = int64_t(i) / (inner ? inner : 1);
		std::vector<double> mean, variance;
		groupStatistics<T>(x, group, outer, mean, variance);
		const T *in = x.data<T>();
		T *out = y.data<T>();
		for (int64_t g = 0; g < outer; g++) {
			const double invStdDev = 1 / std::sqrt(variance[g] + epsilon);
			storeFromDouble(meanOut, g, mean[g]);
			storeFromDouble(invStdDevOut, g, invStdDev);
			for (int64_t j = 0; j < inner; j++) {
				const int64_t i = g * inner + j;
				out[i] = T((in[i] - mean[g]) * invStdDev * scale[j] + bias[j]);
			}
		}
	});
	ctx.setOutput(0, std::move(y));
	ctx.setOutput(1, std::move(meanOut));
	ctx.setOutput(2, std::move(invStdDevOut));
}

void meanVarianceNormalization(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	const int64_t rank = x.rank();
	std::vector<int64_t> axes = ctx.intsAttribute("axes", { 0, 2, 3 });
	/* The statistics' shape: the reduced axes kept as 1. */
	std::vector<int64_t> statShape = x.shape();
	for (int64_t &axis : axes) {
		axis = normaliseAxis(ctx, axis, rank);
		statShape[axis] = 1;
	}
	const std::vector<int64_t> group = broadcastIndex(statShape, x.shape());
	const size_t groups = shapeProduct(statShape, 0, statShape.size());

	/*
	 * The specification's function: (X - E[X]) / (sqrt(E[X^2] - E[X]^2) + 1e-9),
	 * the variance taken here in two passes.
	 */
	Tensor y(x.type(), x.shape());
	dispatchFloat(ctx, x.type(), [&](auto zero) {
		using T = decltype(zero);
		std::vector<double> mean, variance;
		groupStatistics<T>(x, group, groups, mean, variance);
		const T *in = x.data<T>();
		T *out = y.data<T>();
		for (size_t i = 0; i < group.size(); i++)
			out[i] = T((in[i] - mean[group[i]]) / (std::sqrt(variance[group[i]]) + 1e-9));
	});
	ctx.setOutput(0, std::move(y));
}

void localResponseNormalization(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	ctx.require(x.rank() >= 2, "input X " + x.describe() + " has no channel axis");
	const int64_t size = ctx.intAttribute("size");
	ctx.require(size >= 1, "attribute 'size' must be positive");
	const double alpha = ctx.floatAttribute("alpha", 1e-4f);
	const double beta = ctx.floatAttribute("beta", 0.75f);
	const double bias = ctx.floatAttribute("bias", 1.0f);
	const int64_t channels = x.shape()[1];
	const int64_t inner = shapeProduct(x.shape(), 2, x.rank());
	/* The channels summed: floor((size - 1) / 2) before, ceil((size - 1) / 2) after. */
	const int64_t before = (size - 1) / 2;
	const int64_t after = size - 1 - before;

	Tensor y(x.type(), x.shape());
	dispatchFloat(ctx, x.type(), [&](auto zero) {
		using T = decltype(zero);
		const T *in = x.data<T>();
		T *out = y.data<T>();
		for (int64_t i = 0; i < x.elements(); i++) {
			const int64_t c = i / inner % channels;
			const int64_t base = i - c * inner;
			double squares = 0;
			for (int64_t j = std::max<int64_t>(0, c - before);
			     j <= std::min(channels - 1, c + after); j++) {
				const double v = in[base + j * inner];
				squares += v * v;
			}
			out[i] = T(in[i] / std::pow(bias + alpha / double(size) * squares, beta));
		}
	});
	ctx.setOutput(0, std::move(y));
}

} /* namespace */

void registerNormOps(OpRegistry &registry)
{
	registry.add("BatchNormalization", batchNormalization);
	registry.add("InstanceNormalization", instanceNormalization);
	registry.add("LayerNormalization", layerNormalization);
	registry.add("MeanVarianceNormalization", meanVarianceNormalization);
	registry.add("LRN", localResponseNormalization);
}

} /* namespace vdla::onnx */
