/* SPDX-License-Identifier: MIT */
/*
 * The neural-network layers computed on the host CPU, with the arithmetic of
 * docs/openvx.md ("Neural-network layers"): the reference the DLA path has
 * to match bit for bit.
 */

#include "nn/nn_layers.h"
#include "nn/nn_dequantize.h"
#include "nn/nn_elementwise.h"
#include "nn/nn_rearrange.h"
#include "framework/object.h"
#include "objects/tensor_elements.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <type_traits>
#include <vector>

namespace vdla::vx::nn {

namespace {

using Elements = vdla::vx::TensorElements;

/*
 * The tensors of one layer, bound under the API lock so that the
 * computation can run without it (several graphs of a process then compute
 * at the same time): their Elements, read from the tensor objects now, and
 * pins on their storage, which another graph's verification may otherwise
 * move to the device meanwhile (_vx_tensor_t::dropHostData()).
 */
class Bindings
{
public:
	Bindings() = default;
	/* After an exception in compute(), without the API lock. */
	~Bindings()
	{
		if (!elements_.empty()) {
			ApiLock lock(apiLock());
			unbind();
		}
	}
	Bindings(const Bindings &) = delete;
	Bindings &operator=(const Bindings &) = delete;

	/* API lock held. */
	void bind(vx_tensor tensor)
	{
		if (!tensor || elements_.count(tensor))
			return;
		elements_.emplace(tensor, Elements(tensor));
		tensor->cpuUsers++;
		if (tensor->placed)
			placed_.push_back(tensor->placed);
	}
	Elements &of(vx_tensor tensor) { return elements_.at(tensor); }
	/* Whether every bound tensor has memory (not a swapped-out handle). */
	bool allHaveMemory() const
	{
		for (const auto &[tensor, elements] : elements_)
			if (!elements.hasMemory())
				return false;
		return true;
	}
	/* API lock held again: host storage retired meanwhile can go. */
	void unbind()
	{
		for (auto &[tensor, elements] : elements_)
			if (--tensor->cpuUsers == 0)
				tensor->retired.clear();
		elements_.clear();
	}

private:
	std::map<vx_tensor, Elements> elements_;
	std::vector<std::shared_ptr<PlacedMemory>> placed_;
};

template <typename L> void bindTensors(const L &l, Bindings &b)
{
	b.bind(l.input);
	b.bind(l.output);
	if constexpr (std::is_same_v<L, Convolution> || std::is_same_v<L, FullyConnected>
		|| std::is_same_v<L, Deconvolution>) {
		b.bind(l.weights);
		b.bind(l.bias);
	}
	if constexpr (std::is_same_v<L, RoiPooling>)
		b.bind(l.rois);
	if constexpr (std::is_same_v<L, Elementwise>)
		b.bind(l.second);
	if constexpr (std::is_same_v<L, Dequantize>) {
		b.bind(l.zeros);
		b.bind(l.scales);
	}
	if constexpr (std::is_same_v<L, Concatenation>)
		for (vx_uint32 k = 0; k < l.count; k++)
			b.bind(l.inputs[k]);
	if constexpr (std::is_same_v<L, GeneralConvolution>) {
		b.bind(l.weights);
		b.bind(l.bias);
		b.bind(l.multipliers);
		b.bind(l.addend);
	}
}

/* Calls fn(x, y, c, n) for every element of a [W, H, C, (batch)] tensor. */

template <typename Fn> void forEachElement(const Elements &tensor, Fn fn)
{
	for (vx_size n = 0; n < tensor.dim(3); n++)
		for (vx_size c = 0; c < tensor.dim(2); c++)
			for (vx_size y = 0; y < tensor.dim(1); y++)
				for (vx_size x = 0; x < tensor.dim(0); x++)
					fn(x, y, c, n);
}

int64_t saturatingAdd(int64_t a, int64_t b)
{
	int64_t sum;
	if (__builtin_add_overflow(a, b, &sum))
		return b > 0 ? std::numeric_limits<int64_t>::max()
			     : std::numeric_limits<int64_t>::min();
	return sum;
}

/*
 * The sum of products of convolution and fully connected and what follows
 * it. Integer: the exact sum saturated to the 32-bit accumulator, the bias
 * aligned to the product position, the shift to the output position and the
 * narrowing. Float: the sum and the bias in double, stored as float.
 */
class Products
{
public:
	Products(const Elements &input, const Elements &weights, const Elements *bias,
		Elements &output, vx_enum overflow, vx_enum rounding)
		: input_(input), weights_(weights), bias_(bias), output_(output),
		  overflow_(overflow), rounding_(rounding)
	{
	}

	/* forEachTap(tap) calls tap(inputOffset, weightOffset) for every
	 * product of the output element. */
	template <typename ForEachTap>
	void store(vx_size outputOffset, vx_size biasOffset, ForEachTap forEachTap)
	{
		if (output_.isFloat()) {
			double sum = 0;
			forEachTap([&](vx_size in, vx_size w) {
				sum += input_.real(in) * weights_.real(w);
			});
			if (bias_)
				sum += bias_->real(biasOffset);
			output_.storeReal(outputOffset, sum);
			return;
		}

		int64_t sum = 0;
		forEachTap([&](vx_size in, vx_size w) { sum += input_.raw(in) * weights_.raw(w); });
		const int position = input_.position() + weights_.position();
		int64_t value = std::clamp<int64_t>(sum, std::numeric_limits<int32_t>::min(),
			std::numeric_limits<int32_t>::max());
		if (bias_)
			value = saturatingAdd(value,
				rescale(bias_->raw(biasOffset), bias_->position(), position,
					rounding_));
		const int64_t shifted = rescale(value, position, output_.position(), rounding_);
		output_.storeRaw(outputOffset, convert(shifted, output_.type(), overflow_));
	}

private:
	const Elements &input_;
	const Elements &weights_;
	const Elements *bias_;
	Elements &output_;
	vx_enum overflow_, rounding_;
};

/* Input coordinate of a window tap; negative or past the end in padding. */
int64_t tapPosition(vx_size output, vx_size stride, vx_size pad, vx_size tap, vx_size dilation)
{
	return int64_t(output * stride) - int64_t(pad) + int64_t(tap * (dilation + 1));
}

bool inside(int64_t position, vx_size extent)
{
	return position >= 0 && position < int64_t(extent);
}

/* Data movement: each output element copied from the input element rearrangedSource() names. */
vx_status compute(const Rearrangement &layer, Bindings &bound)
{
	Elements &in = bound.of(layer.input), &out = bound.of(layer.output);
	if (layer.mode == kRearrangeReshape) {
		/* Both in flat order, innermost dimension fastest; any ranks. */
		const vx_size total = out.count(0, out.rank());
		for (vx_size k = 0; k < total; k++)
			out.copyElement(out.flat(k, 0, out.rank()), in, in.flat(k, 0, in.rank()));
		return VX_SUCCESS;
	}
	forEachElement(out, [&](vx_size x, vx_size y, vx_size c, vx_size n) {
		std::array<vx_size, 4> s;
		if (rearrangedSource(layer, { x, y, c, n }, s))
			out.copyElement(out.at(x, y, c, n), in, in.at(s[0], s[1], s[2], s[3]));
		else
			out.zeroElement(out.at(x, y, c, n));
	});
	return VX_SUCCESS;
}

/* Each input copied where its part of the output starts along the dimension. */
vx_status compute(const Concatenation &layer, Bindings &bound)
{
	Elements &out = bound.of(layer.output);
	vx_size start = 0;
	for (vx_uint32 k = 0; k < layer.count; k++) {
		Elements &in = bound.of(layer.inputs[k]);
		forEachElement(in, [&](vx_size x, vx_size y, vx_size c, vx_size n) {
			std::array<vx_size, 4> at = { x, y, c, n };
			at[layer.dimension] += start;
			out.copyElement(out.at(at[0], at[1], at[2], at[3]), in, in.at(x, y, c, n));
		});
		start += in.dim(layer.dimension);
	}
	return VX_SUCCESS;
}

/* Calls tap(inputOffset, weightOffset) for the taps of output element
 * (ox, oy, o, n) that fall inside the input; padding contributes nothing. */
template <typename Tap>
void convolutionTaps(const Convolution &conv, const Elements &in, const Elements &weights,
	vx_size ox, vx_size oy, vx_size o, vx_size n, Tap tap)
{
	for (vx_size c = 0; c < weights.dim(2); c++) {
		for (vx_size ky = 0; ky < weights.dim(1); ky++) {
			const int64_t iy
				= tapPosition(oy, conv.strideY, conv.padY, ky, conv.dilationY);
			if (!inside(iy, in.dim(1)))
				continue;
			for (vx_size kx = 0; kx < weights.dim(0); kx++) {
				const int64_t ix = tapPosition(
					ox, conv.strideX, conv.padX, kx, conv.dilationX);
				if (inside(ix, in.dim(0)))
					tap(in.at(ix, iy, c, n), weights.at(kx, ky, c, o));
			}
		}
	}
}

vx_status compute(const Convolution &conv, Bindings &bound)
{
	Elements &in = bound.of(conv.input), &weights = bound.of(conv.weights), &out = bound.of(conv.output);
	Elements *bias = conv.bias ? &bound.of(conv.bias) : nullptr;
	const bool unshared = bias && bias->rank() == 3;
	Products products(in, weights, bias, out, conv.overflow, conv.rounding);

	forEachElement(out, [&](vx_size ox, vx_size oy, vx_size o, vx_size n) {
		const vx_size biasOffset = !bias ? 0 : unshared ? bias->at(ox, oy, o) : bias->at(o);
		products.store(out.at(ox, oy, o, n), biasOffset,
			[&](auto tap) { convolutionTaps(conv, in, weights, ox, oy, o, n, tap); });
	});
	return VX_SUCCESS;
}

vx_status compute(const FullyConnected &fc, Bindings &bound)
{
	Elements &in = bound.of(fc.input), &weights = bound.of(fc.weights), &out = bound.of(fc.output);
	Elements *bias = fc.bias ? &bound.of(fc.bias) : nullptr;
	Products products(in, weights, bias, out, fc.overflow, fc.rounding);

	/* The output is [#OFM, batch...]; the weights [#IFM, #OFM] or
	 * [W, H, #IFM, #OFM], their last dimension the output's. */
	const size_t sampleRank = fc.sampleRank, weightRank = weights.rank();
	const vx_size inputs = in.count(0, sampleRank);
	for (vx_size b = 0; b < out.count(1, out.rank()); b++) {
		const vx_size inputBatch = in.flat(b, sampleRank, in.rank());
		const vx_size outputBatch = out.flat(b, 1, out.rank());
		for (vx_size o = 0; o < out.dim(0); o++) {
			const vx_size weightBase = o * weights.stride(weightRank - 1);
			products.store(
				outputBatch + out.at(o), bias ? bias->at(o) : 0, [&](auto tap) {
					for (vx_size i = 0; i < inputs; i++)
						tap(inputBatch + in.flat(i, 0, sampleRank),
							weightBase
								+ weights.flat(i, 0, weightRank - 1));
				});
		}
	}
	return VX_SUCCESS;
}

/*
 * The input element a deconvolution tap reads along one axis: output j,
 * kernel tap m read the upscaled input at j + m - (kernel - 1 - pad), where
 * only multiples of the upscale inside (in - 1) * upscale hold elements.
 * -1 for the zeros between and around them.
 */
int64_t upscaledTap(vx_size output, vx_size tap, vx_size kernel, vx_size pad, vx_size upscale,
	vx_size input)
{
	const int64_t at = int64_t(output) + int64_t(tap) - (int64_t(kernel) - 1 - int64_t(pad));
	if (at < 0 || at % int64_t(upscale))
		return -1;
	const int64_t element = at / int64_t(upscale);
	return element < int64_t(input) ? element : -1;
}

vx_status compute(const Deconvolution &deconv, Bindings &bound)
{
	Elements &in = bound.of(deconv.input), &weights = bound.of(deconv.weights),
		 &out = bound.of(deconv.output);
	Elements *bias = deconv.bias ? &bound.of(deconv.bias) : nullptr;
	const bool unshared = bias && bias->rank() == 3;
	Products products(in, weights, bias, out, deconv.overflow, deconv.rounding);

	forEachElement(out, [&](vx_size ox, vx_size oy, vx_size o, vx_size n) {
		const vx_size biasOffset = !bias ? 0 : unshared ? bias->at(ox, oy, o) : bias->at(o);
		products.store(out.at(ox, oy, o, n), biasOffset, [&](auto tap) {
			for (vx_size c = 0; c < weights.dim(2); c++)
				for (vx_size ky = 0; ky < weights.dim(1); ky++) {
					const int64_t iy = upscaledTap(oy, ky, weights.dim(1),
						deconv.padY, deconv.upscaleY, in.dim(1));
					if (iy < 0)
						continue;
					for (vx_size kx = 0; kx < weights.dim(0); kx++) {
						const int64_t ix = upscaledTap(ox, kx, weights.dim(0),
							deconv.padX, deconv.upscaleX, in.dim(0));
						if (ix >= 0)
							tap(in.at(ix, iy, c, n), weights.at(kx, ky, c, o));
					}
				}
		});
	});
	return VX_SUCCESS;
}

/* One output's pooling window along an axis: input elements [first, last)
 * and how many positions count for the average (elements and padding,
 * not what lies past the padding). */
struct PoolingSpan {
	vx_size first, last, counted;
};

PoolingSpan poolingSpan(vx_size output, vx_size stride, vx_size pad, vx_size size, vx_size input)
{
	const int64_t begin = tapPosition(output, stride, pad, 0, 0);
	const int64_t end = begin + int64_t(size);
	const int64_t extent = int64_t(input);
	return { vx_size(std::clamp<int64_t>(begin, 0, extent)),
		vx_size(std::clamp<int64_t>(end, 0, extent)),
		vx_size(std::min(end, extent + int64_t(pad)) - begin) };
}

/* MAX over the elements of the window, or their sum divided by the
 * positions counted: exactly rounded for integers, in double for floats. */
template <typename T, typename Read>
T pool(vx_enum type, const PoolingSpan &sx, const PoolingSpan &sy, Read read)
{
	T max = std::numeric_limits<T>::lowest(), sum = 0;
	for (vx_size y = sy.first; y < sy.last; y++) {
		for (vx_size x = sx.first; x < sx.last; x++) {
			const T value = read(x, y);
			max = std::max(max, value);
			sum += value;
		}
	}
	if (type == VX_NN_POOLING_MAX)
		return max;
	const vx_size counted = sx.counted * sy.counted;
	if constexpr (std::is_floating_point_v<T>)
		return sum / counted;
	else
		return divideNearestEven(sum, counted);
}

/* Pools @in into @out, spanOf(ox, oy) giving each output's windows. */
template <typename SpanOf>
void poolInto(const Elements &in, Elements &out, vx_enum type, SpanOf spanOf)
{
	forEachElement(out, [&](vx_size ox, vx_size oy, vx_size c, vx_size n) {
		const auto [sx, sy] = spanOf(ox, oy);
		const vx_size offset = out.at(ox, oy, c, n);
		if (in.isFloat())
			out.storeReal(offset, pool<double>(type, sx, sy, [&](vx_size x, vx_size y) {
				return in.real(in.at(x, y, c, n));
			}));
		else
			out.storeRaw(offset, pool<int64_t>(type, sx, sy, [&](vx_size x, vx_size y) {
				return in.raw(in.at(x, y, c, n));
			}));
	});
}

vx_status compute(const Pooling &pooling, Bindings &bound)
{
	Elements &in = bound.of(pooling.input), &out = bound.of(pooling.output);
	poolInto(in, out, pooling.type, [&](vx_size ox, vx_size oy) {
		return std::make_pair(
			poolingSpan(ox, pooling.strideX, pooling.padX, pooling.sizeX, in.dim(0)),
			poolingSpan(oy, pooling.strideY, pooling.padY, pooling.sizeY, in.dim(1)));
	});
	return VX_SUCCESS;
}

/*
 * Bin b of n over an ROI from first to last (inclusive; a reversed ROI is
 * one element wide): elements [first + floor(b * w / n),
 * first + ceil((b + 1) * w / n)) with w = its width, clipped to the input.
 */
std::pair<int64_t, int64_t> roiBin(int64_t first, int64_t last, vx_size bin, vx_size bins,
	vx_size extent)
{
	const int64_t width = std::max<int64_t>(last - first, 0) + 1;
	const int64_t n = int64_t(bins), b = int64_t(bin);
	const int64_t begin = first + b * width / n;
	const int64_t end = first + ((b + 1) * width + n - 1) / n;
	return { std::clamp<int64_t>(begin, 0, int64_t(extent)),
		std::clamp<int64_t>(end, 0, int64_t(extent)) };
}

/*
 * A FLOAT32 ROI corner, floored, within +-2^40 (far outside any tensor,
 * so the bins stay what they would be, and their arithmetic in int64
 * cannot overflow); NaN is 0.
 */
int64_t floatCorner(double value)
{
	constexpr double kLimit = 1099511627776.0;
	return std::isnan(value) ? 0 : int64_t(std::floor(std::clamp(value, -kLimit, kLimit)));
}

vx_status compute(const RoiPooling &roi, Bindings &bound)
{
	Elements &in = bound.of(roi.input), &rois = bound.of(roi.rois), &out = bound.of(roi.output);
	const bool batched = in.rank() == 4;
	for (vx_size n = 0; n < in.dim(3); n++)
		for (vx_size r = 0; r < rois.dim(1); r++) {
			const vx_size roiBase = r * rois.stride(1) + (batched ? n * rois.stride(2) : 0);
			int64_t corner[4];
			for (vx_size k = 0; k < 4; k++)
				corner[k] = rois.isFloat()
					? floatCorner(rois.real(roiBase + k * rois.stride(0)))
					: rois.raw(roiBase + k * rois.stride(0));
			const vx_size outBase
				= r * out.stride(3) + (batched ? n * out.stride(4) : 0);
			for (vx_size c = 0; c < in.dim(2); c++)
				for (vx_size y = 0; y < out.dim(1); y++) {
					const auto [y0, y1] = roiBin(corner[1], corner[3], y, out.dim(1),
						in.dim(1));
					for (vx_size x = 0; x < out.dim(0); x++) {
						const auto [x0, x1] = roiBin(corner[0], corner[2], x,
							out.dim(0), in.dim(0));
						const vx_size offset = outBase + out.at(x, y, c);
						/* An empty bin gives 0. */
						double best = 0;
						for (int64_t yy = y0; yy < y1; yy++)
							for (int64_t xx = x0; xx < x1; xx++) {
								const double value
									= in.real(in.at(xx, yy, c, n));
								best = yy == y0 && xx == x0
									? value
									: std::max(best, value);
							}
						out.storeReal(offset, best);
					}
				}
		}
	return VX_SUCCESS;
}

vx_status compute(const Activation &activation, Bindings &bound)
{
	Elements &in = bound.of(activation.input), &out = bound.of(activation.output);
	const size_t rank = in.rank();
	for (vx_size i = 0; i < in.count(0, rank); i++) {
		const double x = in.real(in.flat(i, 0, rank));
		out.storeReal(out.flat(i, 0, rank),
			activate(activation.function, activation.a, activation.b, x));
	}
	return VX_SUCCESS;
}

/* Along dim0 for [N] and [N, batch], along the channels for [W, H, C] and
 * [W, H, C, batch]. */
size_t softmaxAxis(size_t rank)
{
	return rank <= 2 ? 0 : 2;
}

vx_status compute(const Softmax &softmax, Bindings &bound)
{
	Elements &in = bound.of(softmax.input), &out = bound.of(softmax.output);
	const size_t rank = in.rank(), axis = softmaxAxis(rank);
	const vx_size length = in.dim(axis);
	const vx_size below = in.count(0, axis);
	for (vx_size i = 0; i < in.count(0, rank) / length; i++) {
		const vx_size inBase
			= in.flat(i % below, 0, axis) + in.flat(i / below, axis + 1, rank);
		const vx_size outBase
			= out.flat(i % below, 0, axis) + out.flat(i / below, axis + 1, rank);
		/* Subtracting the maximum keeps exp from overflowing. */
		double max = -std::numeric_limits<double>::infinity(), sum = 0;
		for (vx_size k = 0; k < length; k++)
			max = std::max(max, in.real(inBase + k * in.stride(axis)));
		for (vx_size k = 0; k < length; k++)
			sum += std::exp(in.real(inBase + k * in.stride(axis)) - max);
		for (vx_size k = 0; k < length; k++)
			out.storeReal(outBase + k * out.stride(axis),
				std::exp(in.real(inBase + k * in.stride(axis)) - max) / sum);
	}
	return VX_SUCCESS;
}

/* Sum of the squares in the normalization window of (x, y, c, n); positions
 * outside the tensor add nothing. */
double sumOfSquares(
	const Elements &in, const Normalization &norm, vx_size x, vx_size y, vx_size c, vx_size n)
{
	const int64_t half = int64_t(norm.size / 2);
	const bool across = norm.type == VX_NN_NORMALIZATION_ACROSS_MAPS;
	const int64_t rx = across ? 0 : half, ry = across ? 0 : half, rc = across ? half : 0;
	double sum = 0;
	for (int64_t k = int64_t(c) - rc; k <= int64_t(c) + rc; k++)
		for (int64_t j = int64_t(y) - ry; j <= int64_t(y) + ry; j++)
			for (int64_t i = int64_t(x) - rx; i <= int64_t(x) + rx; i++) {
				if (!inside(i, in.dim(0)) || !inside(j, in.dim(1))
					|| !inside(k, in.dim(2)))
					continue;
				const double value = in.real(in.at(i, j, k, n));
				sum += value * value;
			}
	return sum;
}

vx_status compute(const Normalization &norm, Bindings &bound)
{
	Elements &in = bound.of(norm.input), &out = bound.of(norm.output);
	const double window = norm.type == VX_NN_NORMALIZATION_ACROSS_MAPS
		? double(norm.size)
		: double(norm.size * norm.size);
	const double scale = double(norm.alpha) / window;
	forEachElement(out, [&](vx_size x, vx_size y, vx_size c, vx_size n) {
		const double base = double(norm.bias) + scale * sumOfSquares(in, norm, x, y, c, n);
		out.storeReal(out.at(x, y, c, n),
			in.real(in.at(x, y, c, n)) / std::pow(base, double(norm.beta)));
	});
	return VX_SUCCESS;
}

/* A GeneralPooling window along one axis (nn_layers.h). */
PoolingSpan generalSpan(vx_size output, vx_uint32 stride, vx_uint32 padBefore,
	vx_uint32 padAfter, vx_uint32 size, vx_size input, bool includePad)
{
	const int64_t begin = int64_t(output * stride) - padBefore;
	const int64_t end = begin + int64_t(size);
	const int64_t extent = int64_t(input);
	const vx_size first = vx_size(std::clamp<int64_t>(begin, 0, extent));
	const vx_size last = vx_size(std::clamp<int64_t>(end, 0, extent));
	const vx_size counted = includePad
		? vx_size(std::min(end, extent + int64_t(padAfter)) - begin)
		: last - first;
	return { first, last, counted };
}

vx_status compute(const GeneralPooling &pooling, Bindings &bound)
{
	Elements &in = bound.of(pooling.input), &out = bound.of(pooling.output);
	poolInto(in, out, pooling.type, [&](vx_size ox, vx_size oy) {
		return std::make_pair(generalSpan(ox, pooling.strideX, pooling.padLeft,
					      pooling.padRight, pooling.sizeX, in.dim(0),
					      pooling.includePad),
			generalSpan(oy, pooling.strideY, pooling.padTop, pooling.padBottom,
				pooling.sizeY, in.dim(1), pooling.includePad));
	});
	return VX_SUCCESS;
}

/* Calls tap(inputOffset, weightOffset) for the taps of output element
 * (ox, oy, o, n) of a GeneralConvolution that fall inside the input. */
template <typename Tap>
void generalTaps(const GeneralConvolution &conv, const Elements &in, const Elements &weights,
	vx_size ox, vx_size oy, vx_size o, vx_size n, Tap tap)
{
	const vx_size perGroupIn = weights.dim(2), perGroupOut = weights.dim(3) / conv.groups;
	const vx_size firstChannel = o / perGroupOut * perGroupIn;
	for (vx_size c = 0; c < perGroupIn; c++) {
		for (vx_size ky = 0; ky < weights.dim(1); ky++) {
			const int64_t iy = int64_t(oy * conv.strideY) - conv.padTop
				+ int64_t(ky * conv.dilationY);
			if (!inside(iy, in.dim(1)))
				continue;
			for (vx_size kx = 0; kx < weights.dim(0); kx++) {
				const int64_t ix = int64_t(ox * conv.strideX) - conv.padLeft
					+ int64_t(kx * conv.dilationX);
				if (inside(ix, in.dim(0)))
					tap(in.at(ix, iy, firstChannel + c, n), weights.at(kx, ky, c, o));
			}
		}
	}
}

/*
 * A requantised value @v stored as INT8: round(v), ties to even, plus
 * @zero, saturated (a huge, infinite or NaN v has no int64: saturated in
 * double first, NaN as 0).
 */
void storeRequantised(Elements &out, vx_size at, float v, vx_int32 zero)
{
	const double r = std::clamp(roundHalfEven(double(v)), -1e6, 1e6);
	out.storeRaw(at,
		convert(int64_t(std::isnan(r) ? 0 : r) + zero, VX_TYPE_INT8, VX_CONVERT_POLICY_SATURATE));
}

/*
 * FLOAT32: the sum and the bias in double, stored as float. INT8: the exact
 * sum in 64 bits (at most 2^16 taps of products below 2^16 each and a
 * 32-bit bias), saturated to INT32 when the layer has no multipliers
 * (ConvInteger), else one float32 conversion and one float32 multiplication,
 * each rounded to nearest even by the hardware's default mode, which
 * libvdla never changes.
 */
vx_status compute(const GeneralConvolution &conv, Bindings &bound)
{
	Elements &in = bound.of(conv.input), &weights = bound.of(conv.weights);
	Elements *bias = conv.bias ? &bound.of(conv.bias) : nullptr;
	Elements &out = bound.of(conv.output);
	Elements *addend = conv.addend ? &bound.of(conv.addend) : nullptr;

	if (out.isFloat()) {
		forEachElement(out, [&](vx_size ox, vx_size oy, vx_size o, vx_size n) {
			double sum = bias ? bias->real(bias->at(o)) : 0;
			generalTaps(conv, in, weights, ox, oy, o, n, [&](vx_size i, vx_size w) {
				sum += in.real(i) * weights.real(w);
			});
			if (addend)
				sum += addend->real(addend->at(ox, oy, o, n));
			out.storeFloat(out.at(ox, oy, o, n), conv.relu ? std::max(sum, 0.0) : sum);
		});
		return VX_SUCCESS;
	}

	if (!conv.multipliers) {
		/* The sums themselves, saturated to INT32. */
		forEachElement(out, [&](vx_size ox, vx_size oy, vx_size o, vx_size n) {
			int64_t acc = bias ? bias->raw(bias->at(o)) : 0;
			generalTaps(conv, in, weights, ox, oy, o, n, [&](vx_size i, vx_size w) {
				acc += (in.raw(i) - conv.inputZero) * weights.raw(w);
			});
			out.storeRaw(out.at(ox, oy, o, n),
				std::clamp<int64_t>(acc, std::numeric_limits<int32_t>::min(),
					std::numeric_limits<int32_t>::max()));
		});
		return VX_SUCCESS;
	}
	Elements &multipliers = bound.of(conv.multipliers);
	forEachElement(out, [&](vx_size ox, vx_size oy, vx_size o, vx_size n) {
		int64_t acc = bias->raw(bias->at(o));
		generalTaps(conv, in, weights, ox, oy, o, n, [&](vx_size i, vx_size w) {
			acc += (in.raw(i) - conv.inputZero) * weights.raw(w);
		});
		const float multiplier = float(multipliers.real(multipliers.at(o)));
		float v = float(acc) * multiplier;
		if (conv.relu)
			v = std::max(v, 0.0f);
		storeRequantised(out, out.at(ox, oy, o, n), v, conv.outputZero);
	});
	return VX_SUCCESS;
}

/*
 * Element by element, each operand's coordinate 0 along its dimensions of
 * 1 (broadcasting). FLOAT32: one float32 operation. INT8 with wrap: exact
 * integers wrapped into INT8. INT8 Add: the quantised rule of
 * ElementwiseParams, each product and the sum rounded to float32 (libvdla
 * builds with -ffp-contract=off, so no fused multiply-add skips one).
 */
/* x OP y for Add, Sub and Mul, in T's arithmetic. */
template <typename T> T combine(vx_enum operation, T a, T b)
{
	return operation == kElementwiseAdd ? a + b : operation == kElementwiseSub ? a - b : a * b;
}

vx_status compute(const Elementwise &layer, Bindings &bound)
{
	Elements &x = bound.of(layer.input), &y = bound.of(layer.second);
	Elements &out = bound.of(layer.output);
	auto operand = [](const Elements &t, vx_size w, vx_size h, vx_size c, vx_size n) {
		return t.at(t.dim(0) == 1 ? 0 : w, t.dim(1) == 1 ? 0 : h, t.dim(2) == 1 ? 0 : c,
			t.dim(3) == 1 ? 0 : n);
	};
	const bool quantised = !out.isFloat();
	forEachElement(out, [&](vx_size w, vx_size h, vx_size c, vx_size n) {
		const vx_size i = operand(x, w, h, c, n), j = operand(y, w, h, c, n);
		if (!quantised) {
			const float v = combine(layer.operation, float(x.real(i)), float(y.real(j)));
			out.storeFloat(out.at(w, h, c, n), v);
			return;
		}
		if (layer.wrap) {
			const int64_t v = combine<int64_t>(layer.operation,
				x.raw(i) - layer.inputZero[0], y.raw(j) - layer.inputZero[1]);
			out.storeRaw(out.at(w, h, c, n),
				convert(v + layer.outputZero, VX_TYPE_INT8, VX_CONVERT_POLICY_WRAP));
			return;
		}
		const float a = float(x.raw(i) - layer.inputZero[0]) * layer.multiplier[0];
		const float b = float(y.raw(j) - layer.inputZero[1]) * layer.multiplier[1];
		float v = a + b;
		if (layer.relu)
			v = std::max(v, 0.0f);
		storeRequantised(out, out.at(w, h, c, n), v, layer.outputZero);
	});
	return VX_SUCCESS;
}

/* float32(x - zero) * scale in float32, per tensor or per channel (dimension 2). */
vx_status compute(const Dequantize &layer, Bindings &bound)
{
	Elements &in = bound.of(layer.input), &out = bound.of(layer.output);
	Elements &zeros = bound.of(layer.zeros), &scales = bound.of(layer.scales);
	const bool perChannel = scales.dim(0) > 1;
	forEachElement(out, [&](vx_size w, vx_size h, vx_size c, vx_size n) {
		const vx_size k = perChannel ? c : 0;
		const int64_t centred = in.raw(in.at(w, h, c, n)) - zeros.raw(zeros.at(k));
		const float v = float(centred) * float(scales.real(scales.at(k)));
		out.storeFloat(out.at(w, h, c, n), v);
	});
	return VX_SUCCESS;
}

} /* namespace */

vx_status runOnCpu(const Layer &layer)
{
	/* Binding reads the tensor objects and storage() allocates on first
	 * use: both under the lock; the arithmetic runs without it. */
	ApiLock lock(apiLock());
	Bindings bound;
	std::visit([&](const auto &parameters) { bindTensors(parameters, bound); }, layer);
	if (!bound.allHaveMemory()) {
		bound.unbind();
		return VX_ERROR_NO_MEMORY;
	}
	lock.unlock();
	const vx_status status = std::visit(
		[&](const auto &parameters) { return compute(parameters, bound); }, layer);
	lock.lock();
	bound.unbind();
	return status;
}

} /* namespace vdla::vx::nn */
