/* SPDX-License-Identifier: MIT */
/* Conv: a direct convolution over any number of spatial axes, with groups. */

#include "nn_ops.h"

namespace vdla::onnx {

namespace {

struct ConvShape {
	int64_t batch;
	int64_t channels;
	int64_t maps;
	int64_t group;
	std::vector<int64_t> spatial;
	std::vector<int64_t> kernel;
};

ConvShape convShape(const OpContext &ctx, const Tensor &x, const Tensor &w)
{
	ctx.require(x.rank() >= 3, "input X " + x.describe() +
					   " needs a batch, a channel and a spatial axis");
	ctx.require(w.rank() == x.rank(), "weight W " + w.describe() + " does not have the rank of X " +
						  x.describe());
	ctx.require(w.type() == x.type(), "weight W " + w.describe() + " is not of the type of X " +
						  x.describe());

	ConvShape s;
	s.batch = x.shape()[0];
	s.channels = x.shape()[1];
	s.maps = w.shape()[0];
	s.group = ctx.intAttribute("group", 1);
	s.spatial.assign(x.shape().begin() + 2, x.shape().end());
	s.kernel.assign(w.shape().begin() + 2, w.shape().end());
	ctx.require(s.group >= 1, "attribute 'group' must be positive");
	ctx.require(w.shape()[1] * s.group == s.channels,
		    "weight W " + w.describe() + " with group " + std::to_string(s.group) +
			    " does not fit the " + std::to_string(s.channels) + " channels of X");
	ctx.require(s.maps % s.group == 0, "the " + std::to_string(s.maps) +
						   " output maps of W do not divide into group " +
						   std::to_string(s.group));
	for (int64_t k : s.kernel)
		ctx.require(k >= 1, "weight W " + w.describe() + " has an empty kernel");
	if (ctx.hasAttribute("kernel_shape"))
		ctx.require(ctx.intsAttribute("kernel_shape") == s.kernel,
			    "attribute 'kernel_shape' does not match weight W " + w.describe());
	return s;
}

/*
 * The geometry of the same convolution over the input padded beforehand,
 * and where each input element lands in the padded plane: the windows then
 * never leave the plane, and the inner loop needs no bounds check.
 */
ConvGeometry paddedGeometry(const ConvGeometry &g, std::vector<int64_t> &placement)
{
	ConvGeometry padded = g;
	for (size_t i = 0; i < g.inputSize.size(); i++) {
		padded.inputSize[i] += g.padBegin[i] + g.padEnd[i];
		padded.padBegin[i] = 0;
		padded.padEnd[i] = 0;
	}
	const std::vector<int64_t> strides = stridesOf(padded.inputSize);
	placement.clear();
	if (shapeProduct(g.inputSize, 0, g.inputSize.size()) == 0)
		return padded;
	std::vector<int64_t> position(g.inputSize.size(), 0);
	do {
		int64_t at = 0;
		for (size_t i = 0; i < position.size(); i++)
			at += (position[i] + g.padBegin[i]) * strides[i];
		placement.push_back(at);
	} while (nextPosition(position, g.inputSize));
	return padded;
}

template<typename T>
void convolve(const OpContext &ctx, const ConvShape &s, const ConvGeometry &geometry,
	      const Tensor &x, const Tensor &w, const Tensor *bias, Tensor &y)
{
	std::vector<int64_t> placement;
	const WindowTable table = windowTable(ctx, paddedGeometry(geometry, placement));
	const int64_t outputSize = table.outputSize;
	const int64_t kernelSize = table.kernelSize;
	const int64_t groupChannels = s.channels / s.group;
	const int64_t groupMaps = s.maps / s.group;
	const T *weight = w.data<T>();
	/* The padded plane grows with the pads, which huge dilations need. */
	checkScratch(ctx, table.inputSize, sizeof(double), "the padded input plane");
	std::vector<double> plane(table.inputSize, 0.0);
	std::vector<double> sum(s.maps * outputSize);

	for (int64_t n = 0; n < s.batch; n++) {
		for (int64_t m = 0; m < s.maps; m++)
			std::fill(&sum[m * outputSize], &sum[m * outputSize] + outputSize,
				  bias ? double(bias->data<T>()[m]) : 0.0);
		for (int64_t c = 0; c < s.channels; c++) {
			/* The padding stays zero: only the input's places are rewritten. */
			const T *in = x.data<T>() + (n * s.channels + c) * placement.size();
			for (size_t i = 0; i < placement.size(); i++)
				plane[placement[i]] = in[i];
			const int64_t firstMap = c / groupChannels * groupMaps;
			for (int64_t m = firstMap; m < firstMap + groupMaps; m++) {
				const T *kernel = weight + (m * groupChannels + c % groupChannels) * kernelSize;
				double *dst = &sum[m * outputSize];
				for (int64_t k = 0; k < kernelSize; k++) {
					const double wk = kernel[k];
					const int64_t *offset = &table.offsets[k * outputSize];
					for (int64_t o = 0; o < outputSize; o++)
						dst[o] += wk * plane[offset[o]];
				}
			}
		}
		T *out = y.data<T>() + n * s.maps * outputSize;
		for (int64_t i = 0; i < s.maps * outputSize; i++)
			out[i] = T(sum[i]);
	}
}

void conv(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	const Tensor &w = ctx.input(1);
	const ConvShape s = convShape(ctx, x, w);
	const Tensor *bias = ctx.hasInput(2) ? &ctx.input(2) : nullptr;
	if (bias)
		ctx.require(bias->type() == x.type() && bias->shape() == std::vector<int64_t>{ s.maps },
			    "bias B " + bias->describe() + " is not one " + dataTypeName(x.type()) +
				    " per output map (" + std::to_string(s.maps) + ")");

	const ConvGeometry geometry = convGeometry(ctx, s.spatial, s.kernel);
	std::vector<int64_t> shape = { s.batch, s.maps };
	shape.insert(shape.end(), geometry.outputSize.begin(), geometry.outputSize.end());
	Tensor y(x.type(), shape);
	dispatchFloat(ctx, x.type(), [&](auto zero) {
		convolve<decltype(zero)>(ctx, s, geometry, x, w, bias, y);
	});
	ctx.setOutput(0, std::move(y));
}

} /* namespace */

void registerConvOps(OpRegistry &registry)
{
	registry.add("Conv", conv);
}

} /* namespace vdla::onnx */
