/* SPDX-License-Identifier: MIT */
/*
 * Integer convolutions: ConvInteger (int32 out) and QLinearConv (requantised
 * to int8 or uint8). Both take any number of spatial axes, groups, pads,
 * strides, dilations and auto_pad (conv_geometry.h).
 */

#include "quant_ops.h"

#include "../conv_geometry.h"

#include <cerrno>
#include <limits>

namespace vdla::onnx {

namespace {

/* The operands of an integer convolution, checked. */
struct IntConv {
	const Tensor *x;
	const Tensor *w;
	int32_t xZeroPoint;
	/* One per output channel. */
	std::vector<int32_t> wZeroPoints;
	int64_t group;
	ConvGeometry geometry;
	std::vector<int64_t> outputShape;
};

IntConv prepareConv(const OpContext &ctx, size_t xInput, size_t xZeroPointInput, size_t wInput,
		    size_t wZeroPointInput)
{
	IntConv conv;
	conv.x = &ctx.input(xInput);
	conv.w = &ctx.input(wInput);
	const Tensor &x = *conv.x;
	const Tensor &w = *conv.w;
	requireQuantType(ctx, x, xZeroPointInput, "x");
	requireQuantType(ctx, w, wZeroPointInput, "w");
	ctx.require(x.rank() >= 3, "x must be [N, C, D1, ...], not " + x.describe());
	ctx.require(w.rank() == x.rank(), "w " + w.describe() + " does not match x " +
						  x.describe());

	const int64_t channels = x.shape()[1];
	const int64_t outChannels = w.shape()[0];
	conv.group = ctx.intAttribute("group", 1);
	ctx.require(conv.group >= 1 && channels % conv.group == 0 &&
			    outChannels % conv.group == 0,
		    "attribute 'group' (" + std::to_string(conv.group) +
			    ") does not divide the channels of x and w");
	ctx.require(w.shape()[1] == channels / conv.group,
		    "w " + w.describe() + " does not have C/group input channels for x " +
			    x.describe());

	std::vector<int32_t> xZeroPoints = zeroPointValues(ctx, xZeroPointInput, "x_zero_point");
	ctx.require(xZeroPoints.size() == 1, "x_zero_point must be a single value");
	conv.xZeroPoint = xZeroPoints[0];
	conv.wZeroPoints = zeroPointValues(ctx, wZeroPointInput, "w_zero_point");
	ctx.require(conv.wZeroPoints.size() == 1 || int64_t(conv.wZeroPoints.size()) == outChannels,
		    "w_zero_point needs 1 or " + std::to_string(outChannels) + " values");
	conv.wZeroPoints.resize(outChannels, conv.wZeroPoints[0]);

	std::vector<int64_t> input(x.shape().begin() + 2, x.shape().end());
	std::vector<int64_t> kernel(w.shape().begin() + 2, w.shape().end());
	for (int64_t k : kernel)
		ctx.require(k >= 1, "w " + w.describe() + " has an empty kernel");
	if (ctx.hasAttribute("kernel_shape"))
		ctx.require(ctx.intsAttribute("kernel_shape") == kernel,
			    "attribute 'kernel_shape' does not match w " + w.describe());
	conv.geometry = convGeometry(ctx, input, kernel);
	conv.outputShape = { x.shape()[0], outChannels };
	for (int64_t size : conv.geometry.outputSize)
		conv.outputShape.push_back(size);
	return conv;
}

/*
 * For each output position and kernel position, the offset of the input
 * element in a channel plane, or -1 where the window is in the padding.
 * Padding holds the real value 0, whose quantised value is x_zero_point:
 * it adds nothing to the sum of (x - x_zero_point) * (w - w_zero_point).
 */
std::vector<int64_t> windowOffsets(const OpContext &ctx, const ConvGeometry &g)
{
	const size_t axes = g.kernel.size();
	int64_t outPositions = 1, kernelPositions = 1;
	for (size_t a = 0; a < axes; a++) {
		outPositions = checkedMul(ctx, outPositions, g.outputSize[a], "the output positions");
		kernelPositions = checkedMul(ctx, kernelPositions, g.kernel[a], "the kernel positions");
	}
	checkScratch(ctx, checkedMul(ctx, outPositions, kernelPositions, "the window offsets"),
		     sizeof(int64_t), "the window offsets (output times kernel positions)");
	std::vector<int64_t> inStrides = stridesOf(g.inputSize);
	std::vector<int64_t> offsets(outPositions * kernelPositions);
	std::vector<int64_t> out(axes, 0);
	for (int64_t o = 0; o < outPositions; o++) {
		std::vector<int64_t> k(axes, 0);
		for (int64_t kp = 0; kp < kernelPositions; kp++) {
			int64_t offset = 0;
			for (size_t a = 0; a < axes && offset >= 0; a++) {
				int64_t at = out[a] * g.strides[a] - g.padBegin[a] +
					     k[a] * g.dilations[a];
				offset = at < 0 || at >= g.inputSize[a] ? -1
									 : offset + at * inStrides[a];
			}
			offsets[o * kernelPositions + kp] = offset;
			for (size_t a = axes; a-- > 0;) {
				if (++k[a] < g.kernel[a])
					break;
				k[a] = 0;
			}
		}
		for (size_t a = axes; a-- > 0;) {
			if (++out[a] < g.outputSize[a])
				break;
			out[a] = 0;
		}
	}
	return offsets;
}

/*
 * The exact int32 sums of (x - x_zero_point) * (w - w_zero_point), plus
 * bias[m] when given, in the output layout [N, M, O1, ...]. The sum is kept
 * in int64 and must fit int32 (the specification's accumulator): one that
 * does not is refused rather than wrapped.
 */
template<typename X, typename W>
std::vector<int32_t> accumulate(const OpContext &ctx, const IntConv &conv, const int32_t *bias)
{
	const Tensor &x = *conv.x;
	const Tensor &w = *conv.w;
	const ConvGeometry &g = conv.geometry;
	const int64_t batch = x.shape()[0], channels = x.shape()[1];
	const int64_t outChannels = w.shape()[0];
	const int64_t groupChannels = channels / conv.group;
	const int64_t groupOutChannels = outChannels / conv.group;
	int64_t plane = 1, outPositions = 1, kernelPositions = 1;
	for (size_t a = 0; a < g.kernel.size(); a++) {
		plane *= g.inputSize[a];
		outPositions *= g.outputSize[a];
		kernelPositions *= g.kernel[a];
	}
	const std::vector<int64_t> offsets = windowOffsets(ctx, g);
	const X *px = x.data<X>();
	const W *pw = w.data<W>();
	/* As many as the output's elements, which the caller has allocated. */
	std::vector<int32_t> sums(batch * outChannels * outPositions);

	for (int64_t n = 0; n < batch; n++) {
		for (int64_t m = 0; m < outChannels; m++) {
			const int64_t firstChannel = (m / groupOutChannels) * groupChannels;
			const W *kernel = pw + m * groupChannels * kernelPositions;
			const int32_t wZeroPoint = conv.wZeroPoints[m];
			for (int64_t o = 0; o < outPositions; o++) {
				const int64_t *window = &offsets[o * kernelPositions];
				int64_t sum = bias ? bias[m] : 0;
				for (int64_t c = 0; c < groupChannels; c++) {
					const X *in = px + (n * channels + firstChannel + c) * plane;
					const W *k = kernel + c * kernelPositions;
					for (int64_t kp = 0; kp < kernelPositions; kp++) {
						if (window[kp] < 0)
							continue;
						sum += int64_t(int32_t(in[window[kp]]) - conv.xZeroPoint) *
						       (int32_t(k[kp]) - wZeroPoint);
					}
				}
				if (sum < std::numeric_limits<int32_t>::min() ||
				    sum > std::numeric_limits<int32_t>::max())
					throw OpError(ENOTSUP, "the int32 accumulator overflows");
				sums[(n * outChannels + m) * outPositions + o] = int32_t(sum);
			}
		}
	}
	return sums;
}

/* Calls fn(X{}, W{}) with the C++ types of x and w (int8 or uint8 each). */
template<typename Fn>
void dispatchPair(DataType a, DataType b, Fn &&fn)
{
	if (a == DataType::Int8) {
		if (b == DataType::Int8)
			fn(int8_t{}, int8_t{});
		else
			fn(int8_t{}, uint8_t{});
	} else {
		if (b == DataType::Int8)
			fn(uint8_t{}, int8_t{});
		else
			fn(uint8_t{}, uint8_t{});
	}
}

/* ConvInteger: inputs x, w, x_zero_point, w_zero_point; output int32. */
void convInteger(OpContext &ctx)
{
	IntConv conv = prepareConv(ctx, 0, 2, 1, 3);
	Tensor y(DataType::Int32, conv.outputShape);
	dispatchPair(conv.x->type(), conv.w->type(), [&](auto xZero, auto wZero) {
		std::vector<int32_t> sums =
			accumulate<decltype(xZero), decltype(wZero)>(ctx, conv, nullptr);
		std::copy(sums.begin(), sums.end(), y.data<int32_t>());
	});
	ctx.setOutput(0, std::move(y));
}

/*
 * QLinearConv: inputs x, x_scale, x_zero_point, w, w_scale, w_zero_point,
 * y_scale, y_zero_point, B. The int32 accumulator (bias included) is
 * requantised per output channel m with the multiplier
 * (x_scale * w_scale[m]) / y_scale (quant_ops.h, requantise()).
 */
void qlinearConv(OpContext &ctx)
{
	IntConv conv = prepareConv(ctx, 0, 2, 3, 5);
	const int64_t outChannels = conv.w->shape()[0];
	std::vector<float> xScale = scaleValues(ctx, 1, "x_scale");
	std::vector<float> wScale = scaleValues(ctx, 4, "w_scale");
	std::vector<float> yScale = scaleValues(ctx, 6, "y_scale");
	ctx.require(xScale.size() == 1, "x_scale must be a single value");
	ctx.require(yScale.size() == 1, "y_scale must be a single value");
	ctx.require(wScale.size() == 1 || int64_t(wScale.size()) == outChannels,
		    "w_scale needs 1 or " + std::to_string(outChannels) + " values");
	ctx.require(ctx.hasInput(7), "y_zero_point is required");
	const Tensor &yZeroPointTensor = ctx.input(7);
	ctx.require(yZeroPointTensor.type() == DataType::Int8 ||
			    yZeroPointTensor.type() == DataType::Uint8,
		    "y_zero_point must be int8 or uint8, not " + yZeroPointTensor.describe());
	std::vector<int32_t> yZeroPoint = zeroPointValues(ctx, 7, "y_zero_point");
	ctx.require(yZeroPoint.size() == 1, "y_zero_point must be a single value");

	const int32_t *bias = nullptr;
	if (ctx.hasInput(8)) {
		const Tensor &b = ctx.input(8);
		ctx.require(b.type() == DataType::Int32 && b.rank() == 1 &&
				    b.elements() == outChannels,
			    "B must be int32[" + std::to_string(outChannels) + "], not " +
				    b.describe());
		bias = b.data<int32_t>();
	}

	std::vector<float> multipliers(outChannels);
	for (int64_t m = 0; m < outChannels; m++)
		multipliers[m] = realMultiplier(xScale[0], wScale[wScale.size() == 1 ? 0 : m],
						yScale[0]);

	/* The output first: its size limit bounds the sums' scratch. */
	Tensor y(yZeroPointTensor.type(), conv.outputShape);
	std::vector<int32_t> sums;
	dispatchPair(conv.x->type(), conv.w->type(), [&](auto xZero, auto wZero) {
		sums = accumulate<decltype(xZero), decltype(wZero)>(ctx, conv, bias);
	});

	int64_t positions = 1;
	for (int64_t size : conv.geometry.outputSize)
		positions *= size;
	auto store = [&](auto zero) {
		using Q = decltype(zero);
		Q *out = y.data<Q>();
		for (size_t i = 0; i < sums.size(); i++) {
			int64_t m = (int64_t(i) / positions) % outChannels;
			out[i] = requantise<Q>(sums[i], multipliers[m], yZeroPoint[0]);
		}
	};
	if (y.type() == DataType::Int8)
		store(int8_t{});
	else
		store(uint8_t{});
	ctx.setOutput(0, std::move(y));
}

} /* namespace */

void registerQuantConvOps(OpRegistry &registry)
{
	registry.add("ConvInteger", convInteger);
	registry.add("QLinearConv", qlinearConv);
}

} /* namespace vdla::onnx */
