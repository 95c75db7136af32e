/* SPDX-License-Identifier: MIT */
/*
 * ConvTranspose: each input element scatters its kernel, scaled, into the
 * output; pads crop the full result, output_padding and output_shape extend
 * it at the end.
 */

#include "nn_ops.h"

namespace vdla::onnx {

namespace {

struct TransposeGeometry {
	std::vector<int64_t> input;
	std::vector<int64_t> kernel;
	std::vector<int64_t> strides;
	std::vector<int64_t> dilations;
	std::vector<int64_t> padBegin;
	std::vector<int64_t> output;
};

std::vector<int64_t> perAxis(const OpContext &ctx, const char *name, size_t axes,
			     int64_t fallback, int64_t minimum)
{
	std::vector<int64_t> values = ctx.intsAttribute(name, std::vector<int64_t>(axes, fallback));
	ctx.require(values.size() == axes, std::string("attribute '") + name + "' has " +
						   std::to_string(values.size()) + " values for " +
						   std::to_string(axes) + " spatial axes");
	for (int64_t v : values)
		ctx.require(v >= minimum, std::string("attribute '") + name + "' must be at least " +
						  std::to_string(minimum));
	return values;
}

TransposeGeometry transposeGeometry(const OpContext &ctx, const std::vector<int64_t> &input,
				    const std::vector<int64_t> &kernel)
{
	const size_t axes = input.size();
	TransposeGeometry g;
	g.input = input;
	g.kernel = kernel;
	g.strides = perAxis(ctx, "strides", axes, 1, 1);
	g.dilations = perAxis(ctx, "dilations", axes, 1, 1);
	g.padBegin.assign(axes, 0);
	g.output.assign(axes, 0);
	const std::vector<int64_t> outputPadding = perAxis(ctx, "output_padding", axes, 0, 0);
	const std::string autoPad = ctx.stringAttribute("auto_pad", "NOTSET");
	ctx.require(autoPad == "NOTSET" || autoPad == "VALID" || autoPad == "SAME_UPPER" ||
			    autoPad == "SAME_LOWER",
		    "auto_pad '" + autoPad + "' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID");

	/* The size before any cropping: every input element's kernel in full. */
	std::vector<int64_t> full(axes);
	for (size_t i = 0; i < axes; i++)
		full[i] = g.strides[i] * (input[i] - 1) + outputPadding[i] +
			  (kernel[i] - 1) * g.dilations[i] + 1;

	std::vector<int64_t> outputShape = ctx.intsAttribute("output_shape");
	if (!outputShape.empty()) {
		/* Either the spatial sizes or the whole output shape. */
		if (outputShape.size() == axes + 2)
			outputShape.erase(outputShape.begin(), outputShape.begin() + 2);
		ctx.require(outputShape.size() == axes, "attribute 'output_shape' has " +
								std::to_string(outputShape.size()) +
								" values for " + std::to_string(axes) +
								" spatial axes");
	} else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
		for (size_t i = 0; i < axes; i++)
			outputShape.push_back(input[i] * g.strides[i]);
	}

	if (!outputShape.empty()) {
		/*
		 * The output is given: the full result is cropped (or extended
		 * at the end, for a negative total) to it, SAME_LOWER putting
		 * the odd unit of cropping at the beginning.
		 */
		for (size_t i = 0; i < axes; i++) {
			ctx.require(outputShape[i] >= 1, "attribute 'output_shape' must be positive");
			int64_t total = full[i] - outputShape[i];
			g.padBegin[i] = autoPad == "SAME_LOWER" ? total - total / 2 : total / 2;
			g.output[i] = outputShape[i];
		}
		return g;
	}

	std::vector<int64_t> pads(2 * axes, 0);
	if (autoPad == "NOTSET")
		pads = perAxis(ctx, "pads", 2 * axes, 0, 0);
	for (size_t i = 0; i < axes; i++) {
		g.padBegin[i] = pads[i];
		g.output[i] = full[i] - pads[i] - pads[i + axes];
		ctx.require(g.output[i] >= 1, "attribute 'pads' leaves no output on spatial axis " +
						      std::to_string(i));
	}
	return g;
}

/*
 * For each kernel position k and input position i (row-major), the row-major
 * output offset that input element's kernel tap lands on, or -1 when it is
 * cropped away.
 */
std::vector<int64_t> scatterTable(const TransposeGeometry &g)
{
	const size_t axes = g.input.size();
	const int64_t inputSize = shapeProduct(g.input, 0, axes);
	const int64_t kernelSize = shapeProduct(g.kernel, 0, axes);
	std::vector<int64_t> table(inputSize * kernelSize);
	if (table.empty())
		return table;

	const std::vector<int64_t> outputStrides = stridesOf(g.output);
	std::vector<int64_t> k(axes, 0);
	int64_t *entry = table.data();
	do {
		std::vector<int64_t> x(axes, 0);
		do {
			int64_t at = 0;
			for (size_t i = 0; i < axes && at >= 0; i++) {
				int64_t o = x[i] * g.strides[i] + k[i] * g.dilations[i] - g.padBegin[i];
				at = o < 0 || o >= g.output[i] ? -1 : at + o * outputStrides[i];
			}
			*entry++ = at;
		} while (nextPosition(x, g.input));
	} while (nextPosition(k, g.kernel));
	return table;
}

template<typename T>
void scatter(const TransposeGeometry &g, int64_t group, const Tensor &x, const Tensor &w,
	     const Tensor *bias, Tensor &y)
{
	const int64_t batch = x.shape()[0];
	const int64_t channels = x.shape()[1];
	const int64_t groupMaps = w.shape()[1];
	const int64_t maps = groupMaps * group;
	const int64_t groupChannels = channels / group;
	const int64_t inputSize = shapeProduct(g.input, 0, g.input.size());
	const int64_t kernelSize = shapeProduct(g.kernel, 0, g.kernel.size());
	const int64_t outputSize = shapeProduct(g.output, 0, g.output.size());
	const std::vector<int64_t> table = scatterTable(g);
	const T *in = x.data<T>();
	const T *weight = w.data<T>();
	T *out = y.data<T>();
	std::vector<double> sum(outputSize);

	for (int64_t n = 0; n < batch; n++) {
		for (int64_t m = 0; m < maps; m++) {
			const int64_t groupIndex = m / groupMaps;
			const int64_t map = m % groupMaps;
			std::fill(sum.begin(), sum.end(), bias ? double(bias->data<T>()[m]) : 0.0);
			for (int64_t c = groupIndex * groupChannels; c < (groupIndex + 1) * groupChannels;
			     c++) {
				const T *plane = in + (n * channels + c) * inputSize;
				const T *kernel = weight + (c * groupMaps + map) * kernelSize;
				for (int64_t k = 0; k < kernelSize; k++) {
					const double wk = kernel[k];
					const int64_t *target = &table[k * inputSize];
					for (int64_t i = 0; i < inputSize; i++)
						if (target[i] >= 0)
							sum[target[i]] += wk * plane[i];
				}
			}
			T *dst = out + (n * maps + m) * outputSize;
			for (int64_t o = 0; o < outputSize; o++)
				dst[o] = T(sum[o]);
		}
	}
}

void convTranspose(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	const Tensor &w = ctx.input(1);
	ctx.require(x.rank() >= 3, "input X " + x.describe() +
					   " needs a batch, a channel and a spatial axis");
	ctx.require(w.rank() == x.rank() && w.type() == x.type(),
		    "weight W " + w.describe() + " does not fit input X " + x.describe());
	const int64_t group = ctx.intAttribute("group", 1);
	ctx.require(group >= 1, "attribute 'group' must be positive");
	ctx.require(w.shape()[0] == x.shape()[1] && x.shape()[1] % group == 0,
		    "weight W " + w.describe() + " with group " + std::to_string(group) +
			    " does not fit the channels of X " + x.describe());
	const int64_t maps = w.shape()[1] * group;

	std::vector<int64_t> spatial(x.shape().begin() + 2, x.shape().end());
	std::vector<int64_t> kernel(w.shape().begin() + 2, w.shape().end());
	for (int64_t k : kernel)
		ctx.require(k >= 1, "weight W " + w.describe() + " has an empty kernel");
	if (ctx.hasAttribute("kernel_shape"))
		ctx.require(ctx.intsAttribute("kernel_shape") == kernel,
			    "attribute 'kernel_shape' does not match weight W " + w.describe());
	const Tensor *bias = ctx.hasInput(2) ? &ctx.input(2) : nullptr;
	if (bias)
		ctx.require(bias->type() == x.type() && bias->shape() == std::vector<int64_t>{ maps },
			    "bias B " + bias->describe() + " is not one value per output map (" +
				    std::to_string(maps) + ")");

	const TransposeGeometry g = transposeGeometry(ctx, spatial, kernel);
	std::vector<int64_t> shape = { x.shape()[0], maps };
	shape.insert(shape.end(), g.output.begin(), g.output.end());
	Tensor y(x.type(), shape);
	dispatchFloat(ctx, x.type(), [&](auto zero) {
		scatter<decltype(zero)>(g, group, x, w, bias, y);
	});
	ctx.setOutput(0, std::move(y));
}

} /* namespace */

void registerConvTransposeOps(OpRegistry &registry)
{
	registry.add("ConvTranspose", convTranspose);
}

} /* namespace vdla::onnx */
