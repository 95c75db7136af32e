/* SPDX-License-Identifier: MIT */
/*
 * The kernels of the neural-network extension: registration, validation
 * (which resolves a node's parameters into an nn::Layer, inferring strides
 * from the output size), the CPU node function and the node creation
 * functions of <VX/vx_khr_nn.h>. Kernel parameter numbering and the checks
 * are listed in docs/openvx.md.
 */

#include "nn/nn_layers.h"
#include "nn/nn_convolution.h"
#include "nn/nn_dequantize.h"
#include "nn/nn_elementwise.h"
#include "nn/nn_rearrange.h"
#include "framework/object.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

using namespace vdla::vx;
using namespace vdla::vx::nn;

namespace {

constexpr vx_size kMaxStride = 16;
constexpr vx_size kMaxPoolingSize = 16;
constexpr vx_size kMaxNormalizationSize = 15;

using Dims = std::vector<vx_size>;

/* A node's layer and the output dimensions the validator derived. */
struct Resolved {
	Layer layer;
	Dims outputDims;
};

using Resolver = vx_status (*)(const vx_reference parameters[], Resolved &resolved);

vx_tensor tensorAt(const vx_reference parameters[], vx_uint32 index)
{
	return reinterpret_cast<vx_tensor>(parameters[index]);
}

/* Reads scalar parameters, remembering the first one of the wrong type. */
class ScalarReader
{
public:
	explicit ScalarReader(const vx_reference parameters[]) : parameters_(parameters) { }

	vx_size size(vx_uint32 index) { return read<vx_size>(index, VX_TYPE_SIZE); }
	vx_enum enumeration(vx_uint32 index) { return read<vx_enum>(index, VX_TYPE_ENUM); }
	vx_float32 float32(vx_uint32 index) { return read<vx_float32>(index, VX_TYPE_FLOAT32); }
	vx_nn_convolution_params_t convolutionParams(vx_uint32 index)
	{
		return read<vx_nn_convolution_params_t>(index, VX_TYPE_NN_CONVOLUTION_PARAMS);
	}
	vx_nn_deconvolution_params_t deconvolutionParams(vx_uint32 index)
	{
		return read<vx_nn_deconvolution_params_t>(index, VX_TYPE_NN_DECONVOLUTION_PARAMS);
	}
	vx_nn_roi_pool_params_t roiPoolParams(vx_uint32 index)
	{
		return read<vx_nn_roi_pool_params_t>(index, VX_TYPE_NN_ROI_POOL_PARAMS);
	}
	ConvolutionParams generalConvolutionParams(vx_uint32 index)
	{
		return read<ConvolutionParams>(index, kTypeConvolutionParams);
	}
	PoolingParams generalPoolingParams(vx_uint32 index)
	{
		return read<PoolingParams>(index, kTypePoolingParams);
	}
	RearrangementParams rearrangementParams(vx_uint32 index)
	{
		return read<RearrangementParams>(index, kTypeRearrangementParams);
	}
	ElementwiseParams elementwiseParams(vx_uint32 index)
	{
		return read<ElementwiseParams>(index, kTypeElementwiseParams);
	}
	ConcatenationParams concatenationParams(vx_uint32 index)
	{
		return read<ConcatenationParams>(index, kTypeConcatenationParams);
	}
	vx_status status() const { return status_; }

private:
	template <typename T> T read(vx_uint32 index, vx_enum type)
	{
		auto scalar = reinterpret_cast<vx_scalar>(parameters_[index]);
		T value{};
		if (scalar->dataType == type && scalar->value.size() == sizeof(T))
			memcpy(&value, scalar->value.data(), sizeof(T));
		else if (status_ == VX_SUCCESS)
			status_ = VX_ERROR_INVALID_TYPE;
		return value;
	}

	const vx_reference *parameters_;
	vx_status status_ = VX_SUCCESS;
};

bool isConvertPolicy(vx_enum policy)
{
	return policy == VX_CONVERT_POLICY_WRAP || policy == VX_CONVERT_POLICY_SATURATE;
}

bool isRoundPolicy(vx_enum policy)
{
	return policy == VX_ROUND_POLICY_TO_ZERO || policy == VX_ROUND_POLICY_TO_NEAREST_EVEN;
}

bool isSizeRounding(vx_enum rounding)
{
	return rounding == VX_NN_DS_SIZE_ROUNDING_FLOOR
		|| rounding == VX_NN_DS_SIZE_ROUNDING_CEILING;
}

/* [W, H, C] or [W, H, C, batch]. */
bool isFeatureMap(const Dims &dims)
{
	return dims.size() == 3 || dims.size() == 4;
}

/* A given output must have as many dimensions as the derived ones before
 * the strides can be read from it. */
bool rankFits(vx_tensor output, size_t rank)
{
	return !output->resolved() || output->dims.size() == rank;
}

/* Every tensor of a layer has the input's element type, one of those
 * the layers support; outputs still to be derived take it over. */
vx_status checkTypes(vx_tensor input, std::initializer_list<vx_tensor> others)
{
	const vx_enum type = input->dataType;
	if (type != VX_TYPE_INT8 && type != VX_TYPE_UINT8 && type != VX_TYPE_INT16
		&& type != VX_TYPE_FLOAT32)
		return VX_ERROR_INVALID_FORMAT;
	for (vx_tensor tensor : others) {
		if (tensor && tensor->resolved() && tensor->dataType != type)
			return VX_ERROR_INVALID_FORMAT;
	}
	return VX_SUCCESS;
}

enum class SizeRounding {
	Floor,
	Ceil,
	/* Pooling's ceil mode: no window may start in the right padding. */
	CeilNoWindowInPadding,
};

/* A sliding window along one spatial axis. */
struct Window {
	vx_size input, pad;
	vx_size padded; /* input + 2 * pad */
	vx_size span; /* taps and the dilation gaps between them */

	vx_size outputs(vx_size stride, SizeRounding rounding) const
	{
		const vx_size n = padded - span;
		vx_size size = n / stride + 1;
		if (rounding != SizeRounding::Floor && n % stride)
			size++;
		if (rounding == SizeRounding::CeilNoWindowInPadding
			&& (size - 1) * stride >= input + pad)
			size--;
		return size;
	}
};

/* The window, or nullopt if it is larger than the padded input (sizes
 * that overflow included). */
std::optional<Window> makeWindow(vx_size input, vx_size taps, vx_size dilation, vx_size pad)
{
	vx_size span, padded;
	/* (taps - 1) * (dilation + 1) + 1, without overflowing dilation + 1. */
	if (taps == 0 || __builtin_mul_overflow(taps - 1, dilation, &span)
		|| __builtin_add_overflow(span, taps, &span)
		|| __builtin_mul_overflow(pad, 2, &padded)
		|| __builtin_add_overflow(padded, input, &padded) || span > padded)
		return std::nullopt;
	return Window{ input, pad, padded, span };
}

/* The stride along one axis and the output extent: stride 1 when the
 * output is still to be derived, otherwise the smallest stride that gives
 * the output's extent. */
vx_status slide(const std::optional<Window> &window, SizeRounding rounding, vx_tensor output,
	size_t axis, vx_size &stride, vx_size &extent)
{
	if (!window)
		return VX_ERROR_INVALID_DIMENSION;
	if (!output->resolved()) {
		stride = 1;
		extent = window->outputs(stride, rounding);
		return VX_SUCCESS;
	}
	extent = output->dims[axis];
	for (stride = 1; stride <= kMaxStride; stride++) {
		if (window->outputs(stride, rounding) == extent)
			return VX_SUCCESS;
	}
	return VX_ERROR_INVALID_DIMENSION;
}

/* Shared: one per output channel; unshared: one per output element. */
bool isConvolutionBias(const Dims &bias, const Dims &output)
{
	return bias == Dims{ output[2] } || bias == Dims{ output[0], output[1], output[2] };
}

vx_status resolveConvolution(const vx_reference parameters[], Resolved &resolved)
{
	ScalarReader scalars(parameters);
	Convolution conv{};
	conv.input = tensorAt(parameters, 0);
	conv.weights = tensorAt(parameters, 1);
	conv.bias = tensorAt(parameters, 2);
	const vx_nn_convolution_params_t params = scalars.convolutionParams(3);
	conv.output = tensorAt(parameters, 4);
	if (scalars.status() != VX_SUCCESS)
		return scalars.status();
	conv.padX = params.padding_x;
	conv.padY = params.padding_y;
	conv.overflow = params.overflow_policy;
	conv.rounding = params.rounding_policy;
	const vx_enum sizeRounding = params.down_scale_size_rounding;
	conv.dilationX = params.dilation_x;
	conv.dilationY = params.dilation_y;
	if (!isConvertPolicy(conv.overflow) || !isRoundPolicy(conv.rounding)
		|| !isSizeRounding(sizeRounding))
		return VX_ERROR_INVALID_VALUE;
	conv.ceil = sizeRounding == VX_NN_DS_SIZE_ROUNDING_CEILING;
	vx_status status = checkTypes(conv.input, { conv.weights, conv.bias, conv.output });
	if (status != VX_SUCCESS)
		return status;

	const Dims &in = conv.input->dims, &w = conv.weights->dims;
	if (!isFeatureMap(in) || w.size() != 4 || w[2] != in[2]
		|| !rankFits(conv.output, in.size()))
		return VX_ERROR_INVALID_DIMENSION;
	const SizeRounding rounding = conv.ceil ? SizeRounding::Ceil : SizeRounding::Floor;
	Dims out = in;
	status = slide(makeWindow(in[0], w[0], conv.dilationX, conv.padX), rounding, conv.output, 0,
		conv.strideX, out[0]);
	if (status == VX_SUCCESS)
		status = slide(makeWindow(in[1], w[1], conv.dilationY, conv.padY), rounding,
			conv.output, 1, conv.strideY, out[1]);
	if (status != VX_SUCCESS)
		return status;
	out[2] = w[3];
	if (conv.bias && !isConvolutionBias(conv.bias->dims, out))
		return VX_ERROR_INVALID_DIMENSION;
	resolved = { conv, out };
	return VX_SUCCESS;
}

vx_size product(const Dims &dims, size_t first, size_t last)
{
	vx_size result = 1;
	for (size_t d = first; d < last; d++)
		result *= dims[d];
	return result;
}

/*
 * How many leading input dimensions make one sample of a fully connected
 * layer: weights [W, H, #IFM, #OFM] take [W, H, #IFM]; weights [#IFM, #OFM]
 * take [W, H, #IFM] or [#IFM], whichever holds #IFM elements and gives a
 * given output's rank; the first when both do (feature maps whose H and
 * #IFM are 1). Batch dimensions follow, four dimensions in all at most.
 * nullopt when nothing fits.
 */
std::optional<size_t> fullyConnectedSampleRank(const Dims &in, const Dims &w, vx_tensor output)
{
	const auto fits = [&](size_t rank) {
		if (in.size() < rank || in.size() > 4)
			return false;
		if (output->resolved() && output->dims.size() != 1 + in.size() - rank)
			return false;
		if (w.size() == 4)
			return rank == 3 && w[0] == in[0] && w[1] == in[1] && w[2] == in[2];
		return w.size() == 2 && product(in, 0, rank) == w[0];
	};
	if (fits(3))
		return 3;
	if (fits(1))
		return 1;
	return std::nullopt;
}

vx_status resolveFullyConnected(const vx_reference parameters[], Resolved &resolved)
{
	ScalarReader scalars(parameters);
	FullyConnected fc{};
	fc.input = tensorAt(parameters, 0);
	fc.weights = tensorAt(parameters, 1);
	fc.bias = tensorAt(parameters, 2);
	fc.overflow = scalars.enumeration(3);
	fc.rounding = scalars.enumeration(4);
	fc.output = tensorAt(parameters, 5);
	if (scalars.status() != VX_SUCCESS)
		return scalars.status();
	if (!isConvertPolicy(fc.overflow) || !isRoundPolicy(fc.rounding))
		return VX_ERROR_INVALID_VALUE;
	vx_status status = checkTypes(fc.input, { fc.weights, fc.bias, fc.output });
	if (status != VX_SUCCESS)
		return status;

	const Dims &in = fc.input->dims, &w = fc.weights->dims;
	const std::optional<size_t> sampleRank = fullyConnectedSampleRank(in, w, fc.output);
	if (!sampleRank)
		return VX_ERROR_INVALID_DIMENSION;
	fc.sampleRank = *sampleRank;
	const vx_size outputs = w.back();
	if (fc.bias && fc.bias->dims != Dims{ outputs })
		return VX_ERROR_INVALID_DIMENSION;
	Dims out{ outputs };
	out.insert(out.end(), in.begin() + fc.sampleRank, in.end());
	resolved = { fc, out };
	return VX_SUCCESS;
}

bool isPoolingWindow(vx_size size, vx_size pad)
{
	return size >= 1 && size <= kMaxPoolingSize && pad < size;
}

vx_status resolvePooling(const vx_reference parameters[], Resolved &resolved)
{
	ScalarReader scalars(parameters);
	Pooling pool{};
	pool.input = tensorAt(parameters, 0);
	pool.type = scalars.enumeration(1);
	pool.sizeX = scalars.size(2);
	pool.sizeY = scalars.size(3);
	pool.padX = scalars.size(4);
	pool.padY = scalars.size(5);
	const vx_enum sizeRounding = scalars.enumeration(6);
	pool.output = tensorAt(parameters, 7);
	if (scalars.status() != VX_SUCCESS)
		return scalars.status();
	if ((pool.type != VX_NN_POOLING_MAX && pool.type != VX_NN_POOLING_AVG)
		|| !isSizeRounding(sizeRounding) || !isPoolingWindow(pool.sizeX, pool.padX)
		|| !isPoolingWindow(pool.sizeY, pool.padY))
		return VX_ERROR_INVALID_VALUE;
	pool.ceil = sizeRounding == VX_NN_DS_SIZE_ROUNDING_CEILING;
	vx_status status = checkTypes(pool.input, { pool.output });
	if (status != VX_SUCCESS)
		return status;
	/* Pooling does not rescale: the output has the input's format. */
	if (pool.output->resolved()
		&& pool.output->fixedPointPosition != pool.input->fixedPointPosition)
		return VX_ERROR_INVALID_FORMAT;

	const Dims &in = pool.input->dims;
	if (!isFeatureMap(in) || !rankFits(pool.output, in.size()))
		return VX_ERROR_INVALID_DIMENSION;
	const SizeRounding rounding
		= pool.ceil ? SizeRounding::CeilNoWindowInPadding : SizeRounding::Floor;
	Dims out = in;
	status = slide(makeWindow(in[0], pool.sizeX, 0, pool.padX), rounding, pool.output, 0,
		pool.strideX, out[0]);
	if (status == VX_SUCCESS)
		status = slide(makeWindow(in[1], pool.sizeY, 0, pool.padY), rounding, pool.output,
			1, pool.strideY, out[1]);
	if (status != VX_SUCCESS)
		return status;
	resolved = { pool, out };
	return VX_SUCCESS;
}

vx_status resolveSoftmax(const vx_reference parameters[], Resolved &resolved)
{
	Softmax softmax{ tensorAt(parameters, 0), tensorAt(parameters, 1) };
	vx_status status = checkTypes(softmax.input, { softmax.output });
	if (status != VX_SUCCESS)
		return status;
	if (softmax.input->dims.size() > 4)
		return VX_ERROR_INVALID_DIMENSION;
	resolved = { softmax, softmax.input->dims };
	return VX_SUCCESS;
}

bool isActivationFunction(vx_enum function)
{
	return function >= VX_NN_ACTIVATION_LOGISTIC && function <= VX_NN_ACTIVATION_LINEAR;
}

vx_status resolveActivation(const vx_reference parameters[], Resolved &resolved)
{
	ScalarReader scalars(parameters);
	Activation activation{};
	activation.input = tensorAt(parameters, 0);
	activation.function = scalars.enumeration(1);
	activation.a = scalars.float32(2);
	activation.b = scalars.float32(3);
	activation.output = tensorAt(parameters, 4);
	if (scalars.status() != VX_SUCCESS)
		return scalars.status();
	if (!isActivationFunction(activation.function))
		return VX_ERROR_INVALID_VALUE;
	vx_status status = checkTypes(activation.input, { activation.output });
	if (status != VX_SUCCESS)
		return status;
	resolved = { activation, activation.input->dims };
	return VX_SUCCESS;
}

/* Non-negative and finite; the bias must be positive as well, so that the
 * base of the power is never zero. */
bool isNormalization(const Normalization &norm)
{
	const bool typeValid = norm.type == VX_NN_NORMALIZATION_SAME_MAP
		|| norm.type == VX_NN_NORMALIZATION_ACROSS_MAPS;
	const bool sizeValid = norm.size % 2 == 1 && norm.size <= kMaxNormalizationSize;
	return typeValid && sizeValid && std::isfinite(norm.alpha) && norm.alpha >= 0
		&& std::isfinite(norm.beta) && norm.beta >= 0 && std::isfinite(norm.bias)
		&& norm.bias > 0;
}

/* Both normalization kernels: the local response one has a bias parameter
 * before the output, the older one uses a bias of 1. */
vx_status resolveNormalization(
	const vx_reference parameters[], bool biasParameter, Resolved &resolved)
{
	ScalarReader scalars(parameters);
	Normalization norm{};
	norm.input = tensorAt(parameters, 0);
	norm.type = scalars.enumeration(1);
	norm.size = scalars.size(2);
	norm.alpha = scalars.float32(3);
	norm.beta = scalars.float32(4);
	norm.bias = biasParameter ? scalars.float32(5) : 1.0f;
	norm.output = tensorAt(parameters, biasParameter ? 6 : 5);
	if (scalars.status() != VX_SUCCESS)
		return scalars.status();
	if (!isNormalization(norm))
		return VX_ERROR_INVALID_VALUE;
	vx_status status = checkTypes(norm.input, { norm.output });
	if (status != VX_SUCCESS)
		return status;
	if (!isFeatureMap(norm.input->dims))
		return VX_ERROR_INVALID_DIMENSION;
	resolved = { norm, norm.input->dims };
	return VX_SUCCESS;
}

vx_status resolveNormalizationLayer(const vx_reference parameters[], Resolved &resolved)
{
	return resolveNormalization(parameters, false, resolved);
}

vx_status resolveLocalResponseNormalization(const vx_reference parameters[], Resolved &resolved)
{
	return resolveNormalization(parameters, true, resolved);
}

/*
 * The upscale of a deconvolution along one axis, from the output's extent
 * (out = (in - 1) * upscale + kernel + a - 2 * pad, with a < upscale), or
 * a + 1 for an output still to be derived; nullopt when no upscale gives
 * the extent or the extent would not be positive.
 */
std::optional<vx_size> deconvolutionUpscale(
	vx_size in, vx_size kernel, vx_size pad, vx_size a, vx_tensor output, size_t axis)
{
	constexpr int64_t kLimit = int64_t(1) << 40;
	if (in == 0 || in > kLimit || kernel > kLimit || pad > kLimit || a > kLimit)
		return std::nullopt;
	const int64_t fixed = int64_t(kernel) + int64_t(a) - 2 * int64_t(pad);
	if (!output->resolved()) {
		int64_t extent;
		if (__builtin_mul_overflow(int64_t(in) - 1, int64_t(a) + 1, &extent)
			|| __builtin_add_overflow(extent, fixed, &extent) || extent > kLimit)
			return std::nullopt;
		return extent > 0 ? std::optional<vx_size>(a + 1) : std::nullopt;
	}
	const int64_t spread = int64_t(output->dims[axis]) - fixed;
	if (in == 1)
		return spread == 0 ? std::optional<vx_size>(a + 1) : std::nullopt;
	if (spread <= 0 || spread % (int64_t(in) - 1))
		return std::nullopt;
	const vx_size upscale = vx_size(spread / (int64_t(in) - 1));
	return a < upscale ? std::optional<vx_size>(upscale) : std::nullopt;
}

vx_status resolveDeconvolution(const vx_reference parameters[], Resolved &resolved)
{
	ScalarReader scalars(parameters);
	Deconvolution deconv{};
	deconv.input = tensorAt(parameters, 0);
	deconv.weights = tensorAt(parameters, 1);
	deconv.bias = tensorAt(parameters, 2);
	const vx_nn_deconvolution_params_t params = scalars.deconvolutionParams(3);
	deconv.output = tensorAt(parameters, 4);
	if (scalars.status() != VX_SUCCESS)
		return scalars.status();
	deconv.padX = params.padding_x;
	deconv.padY = params.padding_y;
	deconv.aX = params.a_x;
	deconv.aY = params.a_y;
	deconv.overflow = params.overflow_policy;
	deconv.rounding = params.rounding_policy;
	const Dims &in = deconv.input->dims, &w = deconv.weights->dims;
	/* The input's padding is kernel - 1 - pad: the kernel must be wider than the pad. */
	if (!isConvertPolicy(deconv.overflow) || !isRoundPolicy(deconv.rounding)
		|| (w.size() >= 2 && (w[0] <= deconv.padX || w[1] <= deconv.padY)))
		return VX_ERROR_INVALID_VALUE;
	vx_status status = checkTypes(deconv.input, { deconv.weights, deconv.bias, deconv.output });
	if (status != VX_SUCCESS)
		return status;
	if (!isFeatureMap(in) || w.size() != 4 || w[2] != in[2]
		|| !rankFits(deconv.output, in.size()))
		return VX_ERROR_INVALID_DIMENSION;
	const std::optional<vx_size> upscaleX
		= deconvolutionUpscale(in[0], w[0], deconv.padX, deconv.aX, deconv.output, 0);
	const std::optional<vx_size> upscaleY
		= deconvolutionUpscale(in[1], w[1], deconv.padY, deconv.aY, deconv.output, 1);
	if (!upscaleX || !upscaleY)
		return VX_ERROR_INVALID_DIMENSION;
	deconv.upscaleX = *upscaleX;
	deconv.upscaleY = *upscaleY;
	Dims out = in;
	out[0] = (in[0] - 1) * deconv.upscaleX + w[0] + deconv.aX - 2 * deconv.padX;
	out[1] = (in[1] - 1) * deconv.upscaleY + w[1] + deconv.aY - 2 * deconv.padY;
	out[2] = w[3];
	if (deconv.bias && !isConvolutionBias(deconv.bias->dims, out))
		return VX_ERROR_INVALID_DIMENSION;
	resolved = { deconv, out };
	return VX_SUCCESS;
}

/* Input [W, H, C, (batch)], ROIs [4, #ROI, (batch)], output [W', H', C, #ROI, (batch)]:
 * W' and H' come from a given output only. */
vx_status resolveRoiPooling(const vx_reference parameters[], Resolved &resolved)
{
	ScalarReader scalars(parameters);
	RoiPooling roi{ tensorAt(parameters, 0), tensorAt(parameters, 1), tensorAt(parameters, 3) };
	const vx_nn_roi_pool_params_t params = scalars.roiPoolParams(2);
	if (scalars.status() != VX_SUCCESS)
		return scalars.status();
	if (params.pool_type != VX_NN_POOLING_MAX)
		return VX_ERROR_INVALID_VALUE;
	vx_status status = checkTypes(roi.input, { roi.rois, roi.output });
	if (status != VX_SUCCESS)
		return status;
	if (roi.output->resolved()
		&& roi.output->fixedPointPosition != roi.input->fixedPointPosition)
		return VX_ERROR_INVALID_FORMAT;

	const Dims &in = roi.input->dims, &rois = roi.rois->dims;
	const bool batched = in.size() == 4;
	if (!isFeatureMap(in) || rois.size() != in.size() - 1 || rois[0] != 4
		|| (batched && rois[2] != in[3]) || !roi.output->resolved())
		return VX_ERROR_INVALID_DIMENSION;
	Dims out{ roi.output->dims[0], roi.output->dims.size() > 1 ? roi.output->dims[1] : 0,
		in[2], rois[1] };
	if (batched)
		out.push_back(in[3]);
	if (roi.output->dims.size() != out.size() || out[0] == 0 || out[1] == 0)
		return VX_ERROR_INVALID_DIMENSION;
	resolved = { roi, out };
	return VX_SUCCESS;
}

/* Output extent along one axis of a window of @taps taps @dilation apart
 * (1: dense) over @input elements padded by @padBefore and @padAfter; 0
 * when the window does not fit. */
vx_size convolutionExtent(vx_size input, vx_uint32 padBefore, vx_uint32 padAfter, vx_size taps,
	vx_uint32 dilation, vx_uint32 stride)
{
	const vx_size padded = input + vx_size(padBefore) + padAfter;
	if (taps == 0 || dilation == 0 || stride == 0 || taps > padded)
		return 0;
	const vx_size span = (taps - 1) * dilation + 1;
	return span > padded ? 0 : (padded - span) / stride + 1;
}

vx_status resolveGeneralConvolution(const vx_reference parameters[], Resolved &resolved)
{
	ScalarReader scalars(parameters);
	GeneralConvolution conv{};
	conv.input = tensorAt(parameters, 0);
	conv.weights = tensorAt(parameters, 1);
	conv.bias = tensorAt(parameters, 2);
	conv.multipliers = tensorAt(parameters, 3);
	conv.addend = tensorAt(parameters, 4);
	const ConvolutionParams params = scalars.generalConvolutionParams(5);
	conv.output = tensorAt(parameters, 6);
	if (scalars.status() != VX_SUCCESS)
		return scalars.status();
	conv.padLeft = params.padLeft;
	conv.padRight = params.padRight;
	conv.padTop = params.padTop;
	conv.padBottom = params.padBottom;
	conv.strideX = params.strideX;
	conv.strideY = params.strideY;
	conv.dilationX = params.dilationX;
	conv.dilationY = params.dilationY;
	conv.groups = params.groups;
	conv.inputZero = params.inputZero;
	conv.outputZero = params.outputZero;
	conv.relu = params.relu == vx_true_e;
	/* Bounds that keep every size below far from overflowing. */
	constexpr vx_uint32 kMaxGeometry = 1u << 16;
	for (vx_uint32 value : { conv.padLeft, conv.padRight, conv.padTop, conv.padBottom,
		     conv.strideX, conv.strideY, conv.dilationX, conv.dilationY, conv.groups }) {
		if (value > kMaxGeometry)
			return VX_ERROR_INVALID_VALUE;
	}
	if (conv.inputZero < -128 || conv.inputZero > 127 || conv.outputZero < -256
		|| conv.outputZero > 255 || conv.groups == 0
		|| (params.relu != vx_true_e && params.relu != vx_false_e))
		return VX_ERROR_INVALID_VALUE;
	/*
	 * INT8 with its INT32 bias and FLOAT32 multipliers, or FLOAT32
	 * throughout; or INT8 without multipliers into INT32, the sums
	 * themselves (ConvInteger), the bias INT32 or none.
	 */
	const vx_enum type = conv.input->dataType;
	const bool quantised = type == VX_TYPE_INT8 && conv.multipliers;
	const bool sums = type == VX_TYPE_INT8 && !conv.multipliers;
	/* INT8 layers may have INT16 weights: w - w_zero_point of uint8 weights. */
	const bool weightsFit = conv.weights->dataType == type
		|| (type == VX_TYPE_INT8 && conv.weights->dataType == VX_TYPE_INT16);
	if ((type != VX_TYPE_INT8 && type != VX_TYPE_FLOAT32) || !weightsFit
		|| (!sums && conv.output->resolved() && conv.output->dataType != type)
		|| (sums && (!conv.output->resolved() || conv.output->dataType != VX_TYPE_INT32
			|| (conv.bias && conv.bias->dataType != VX_TYPE_INT32)))
		|| (quantised && (!conv.bias || conv.bias->dataType != VX_TYPE_INT32
			|| conv.multipliers->dataType != VX_TYPE_FLOAT32))
		|| (type == VX_TYPE_FLOAT32 && (conv.multipliers || conv.inputZero || conv.outputZero
			|| (conv.bias && conv.bias->dataType != VX_TYPE_FLOAT32)))
		|| (conv.addend && (type != VX_TYPE_FLOAT32 || conv.addend->dataType != VX_TYPE_FLOAT32)))
		return VX_ERROR_INVALID_FORMAT;
	if (sums && (conv.outputZero || conv.relu))
		return VX_ERROR_INVALID_VALUE;

	const Dims &in = conv.input->dims, &w = conv.weights->dims;
	if (!isFeatureMap(in) || w.size() != 4 || w[2] * conv.groups != in[2]
		|| w[3] % conv.groups || (conv.bias && conv.bias->dims != Dims{ w[3] })
		|| (conv.multipliers && conv.multipliers->dims != Dims{ w[3] })
		|| !rankFits(conv.output, in.size()))
		return VX_ERROR_INVALID_DIMENSION;
	Dims out = in;
	out[0] = convolutionExtent(in[0], conv.padLeft, conv.padRight, w[0], conv.dilationX,
		conv.strideX);
	out[1] = convolutionExtent(in[1], conv.padTop, conv.padBottom, w[1], conv.dilationY,
		conv.strideY);
	out[2] = w[3];
	if (!out[0] || !out[1] || (conv.output->resolved() && conv.output->dims != out)
		|| (conv.addend && conv.addend->dims != out))
		return VX_ERROR_INVALID_DIMENSION;
	resolved = { conv, out };
	return VX_SUCCESS;
}

/* GeneralPooling's output extent along one axis, 0 when the window does not fit. */
vx_size poolingExtent(vx_size input, vx_uint32 padBefore, vx_uint32 padAfter, vx_uint32 size,
	vx_uint32 stride, bool ceil)
{
	const vx_size padded = input + vx_size(padBefore) + padAfter;
	if (size == 0 || stride == 0 || size > padded)
		return 0;
	vx_size extent = (padded - size) / stride + 1;
	if (ceil && (padded - size) % stride) {
		extent++;
		if ((extent - 1) * stride >= input + padBefore)
			extent--;
	}
	return extent;
}

vx_status resolveGeneralPooling(const vx_reference parameters[], Resolved &resolved)
{
	ScalarReader scalars(parameters);
	GeneralPooling pool{};
	pool.input = tensorAt(parameters, 0);
	const PoolingParams params = scalars.generalPoolingParams(1);
	pool.output = tensorAt(parameters, 2);
	if (scalars.status() != VX_SUCCESS)
		return scalars.status();
	pool.type = params.type;
	pool.sizeX = params.sizeX;
	pool.sizeY = params.sizeY;
	pool.strideX = params.strideX;
	pool.strideY = params.strideY;
	pool.padLeft = params.padLeft;
	pool.padRight = params.padRight;
	pool.padTop = params.padTop;
	pool.padBottom = params.padBottom;
	pool.ceil = params.ceil == vx_true_e;
	pool.includePad = params.includePad == vx_true_e;
	constexpr vx_uint32 kMaxGeometry = 1u << 16;
	for (vx_uint32 value : { pool.sizeX, pool.sizeY, pool.strideX, pool.strideY, pool.padLeft,
		     pool.padRight, pool.padTop, pool.padBottom }) {
		if (value > kMaxGeometry)
			return VX_ERROR_INVALID_VALUE;
	}
	/* A padding below the window leaves an element in every window. */
	if ((pool.type != VX_NN_POOLING_MAX && pool.type != VX_NN_POOLING_AVG)
		|| pool.padLeft >= pool.sizeX || pool.padRight >= pool.sizeX
		|| pool.padTop >= pool.sizeY || pool.padBottom >= pool.sizeY
		|| (params.ceil != vx_true_e && params.ceil != vx_false_e)
		|| (params.includePad != vx_true_e && params.includePad != vx_false_e))
		return VX_ERROR_INVALID_VALUE;
	const vx_enum type = pool.input->dataType;
	if ((type != VX_TYPE_INT8 && type != VX_TYPE_FLOAT32)
		|| (pool.output->resolved() && pool.output->dataType != type))
		return VX_ERROR_INVALID_FORMAT;
	const Dims &in = pool.input->dims;
	if (!isFeatureMap(in) || !rankFits(pool.output, in.size()))
		return VX_ERROR_INVALID_DIMENSION;
	Dims out = in;
	out[0] = poolingExtent(in[0], pool.padLeft, pool.padRight, pool.sizeX, pool.strideX,
		pool.ceil);
	out[1] = poolingExtent(in[1], pool.padTop, pool.padBottom, pool.sizeY, pool.strideY,
		pool.ceil);
	if (!out[0] || !out[1] || (pool.output->resolved() && pool.output->dims != out))
		return VX_ERROR_INVALID_DIMENSION;
	resolved = { pool, out };
	return VX_SUCCESS;
}

vx_status resolveRearrangementKernel(const vx_reference parameters[], Resolved &resolved)
{
	ScalarReader scalars(parameters);
	const RearrangementParams params = scalars.rearrangementParams(1);
	if (scalars.status() != VX_SUCCESS)
		return scalars.status();
	Rearrangement layer;
	vx_status status = resolveRearrangement(
		tensorAt(parameters, 0), params, tensorAt(parameters, 2), layer, resolved.outputDims);
	if (status == VX_SUCCESS)
		resolved.layer = layer;
	return status;
}

/* Parameters: the inputs (the first required), the scalar, the output. */
vx_status resolveConcatenationKernel(const vx_reference parameters[], Resolved &resolved)
{
	ScalarReader scalars(parameters);
	const ConcatenationParams params = scalars.concatenationParams(kMaxConcatenated);
	if (scalars.status() != VX_SUCCESS)
		return scalars.status();
	Concatenation layer{};
	layer.output = tensorAt(parameters, kMaxConcatenated + 1);
	layer.dimension = params.dimension;
	/* The inputs given come first, none after a missing one. */
	for (vx_uint32 k = 0; k < kMaxConcatenated; k++) {
		vx_tensor t = tensorAt(parameters, k);
		if (t && layer.count != k)
			return VX_ERROR_INVALID_PARAMETERS;
		if (t)
			layer.inputs[layer.count++] = t;
	}
	vx_status status = resolveConcatenation(layer, resolved.outputDims);
	if (status == VX_SUCCESS)
		resolved.layer = layer;
	return status;
}

/*
 * Parameters: x, y, the scalar, the output. Each dimension of x and y is
 * the output's or 1; the output's are the larger of the two.
 */
vx_status resolveElementwiseKernel(const vx_reference parameters[], Resolved &resolved)
{
	ScalarReader scalars(parameters);
	const ElementwiseParams params = scalars.elementwiseParams(2);
	if (scalars.status() != VX_SUCCESS)
		return scalars.status();
	Elementwise layer;
	layer.input = tensorAt(parameters, 0);
	layer.second = tensorAt(parameters, 1);
	layer.output = tensorAt(parameters, 3);
	layer.operation = params.operation;
	layer.inputZero = { params.inputZero[0], params.inputZero[1] };
	layer.multiplier = { params.multiplier[0], params.multiplier[1] };
	layer.outputZero = params.outputZero;
	layer.relu = params.relu == vx_true_e;
	layer.wrap = params.wrap == vx_true_e;
	if (params.operation != kElementwiseAdd && params.operation != kElementwiseSub
		&& params.operation != kElementwiseMul)
		return VX_ERROR_INVALID_VALUE;
	for (vx_bool flag : { params.relu, params.wrap })
		if (flag != vx_true_e && flag != vx_false_e)
			return VX_ERROR_INVALID_VALUE;
	const vx_enum type = layer.input->dataType;
	const bool integer = type == VX_TYPE_INT8;
	if ((type != VX_TYPE_FLOAT32 && !integer) || layer.second->dataType != type
		|| (layer.output->resolved() && layer.output->dataType != type))
		return VX_ERROR_INVALID_FORMAT;
	const bool unscaled = layer.multiplier == std::array<vx_float32, 2>{ 1.0f, 1.0f };
	if (integer) {
		/* The quantised rule is an Add's; integer arithmetic neither scales nor clips. */
		if (!layer.wrap && params.operation != kElementwiseAdd)
			return VX_ERROR_INVALID_FORMAT;
		if (layer.wrap && (!unscaled || layer.relu))
			return VX_ERROR_INVALID_VALUE;
		for (size_t k = 0; k < 2; k++)
			if (layer.inputZero[k] < -128 || layer.inputZero[k] > 127
				|| !std::isfinite(layer.multiplier[k]))
				return VX_ERROR_INVALID_VALUE;
		if (layer.outputZero < -256 || layer.outputZero > 255)
			return VX_ERROR_INVALID_VALUE;
	} else if (layer.inputZero != std::array<vx_int32, 2>{ 0, 0 } || !unscaled
		|| layer.outputZero != 0 || layer.relu || layer.wrap) {
		/* Float operands are neither offset, scaled, clipped nor wrapped. */
		return VX_ERROR_INVALID_VALUE;
	}
	const Dims &x = layer.input->dims, &y = layer.second->dims;
	if (x.empty() || x.size() > 4 || y.size() != x.size()
		|| !rankFits(layer.output, x.size()))
		return VX_ERROR_INVALID_DIMENSION;
	Dims out(x.size());
	for (size_t d = 0; d < x.size(); d++) {
		if (x[d] != y[d] && x[d] != 1 && y[d] != 1)
			return VX_ERROR_INVALID_DIMENSION;
		out[d] = std::max(x[d], y[d]);
	}
	if (layer.output->resolved() && layer.output->dims != out)
		return VX_ERROR_INVALID_DIMENSION;
	resolved = { layer, out };
	return VX_SUCCESS;
}

/* Parameters: the input, the zero points, the scales, the output. */
vx_status resolveDequantizeKernel(const vx_reference parameters[], Resolved &resolved)
{
	Dequantize layer{ tensorAt(parameters, 0), tensorAt(parameters, 1), tensorAt(parameters, 2),
		tensorAt(parameters, 3) };
	if (layer.input->dataType != VX_TYPE_INT8 || layer.zeros->dataType != VX_TYPE_INT32
		|| layer.scales->dataType != VX_TYPE_FLOAT32
		|| (layer.output->resolved() && layer.output->dataType != VX_TYPE_FLOAT32))
		return VX_ERROR_INVALID_FORMAT;
	const Dims &in = layer.input->dims;
	const vx_size channels = in.size() > 2 ? in[2] : 1;
	const vx_size count = layer.scales->dims.size() == 1 ? layer.scales->dims[0] : 0;
	if (in.empty() || in.size() > 4 || (count != 1 && count != channels)
		|| layer.zeros->dims != layer.scales->dims
		|| (layer.output->resolved() && layer.output->dims != in))
		return VX_ERROR_INVALID_DIMENSION;
	resolved = { layer, in };
	return VX_SUCCESS;
}

constexpr KernelParameter kTensor{ true, VX_INPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED };
constexpr KernelParameter kOptionalTensor{ true, VX_INPUT, VX_TYPE_TENSOR,
	VX_PARAMETER_STATE_OPTIONAL };
/* Declared as VX_TYPE_SCALAR, like the built-in kernels, so that the
 * validator reports a scalar of the wrong type as VX_ERROR_INVALID_TYPE. */
constexpr KernelParameter kScalar{ true, VX_INPUT, VX_TYPE_SCALAR, VX_PARAMETER_STATE_REQUIRED };
constexpr KernelParameter kOutput{ true, VX_OUTPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED };

/* The output is the last parameter of every layer kernel. */
struct LayerKernel {
	const char *name;
	vx_enum enumeration;
	std::vector<KernelParameter> parameters;
	Resolver resolve;
};

const std::vector<LayerKernel> &layerKernels()
{
	static const std::vector<LayerKernel> kernels = {
		{ "org.khronos.nn_extension.convolution_layer", VX_KERNEL_CONVOLUTION_LAYER,
			{ kTensor, kTensor, kOptionalTensor, kScalar, kOutput },
			resolveConvolution },
		{ "org.khronos.nn_extension.fully_connected_layer", VX_KERNEL_FULLY_CONNECTED_LAYER,
			{ kTensor, kTensor, kOptionalTensor, kScalar, kScalar, kOutput },
			resolveFullyConnected },
		{ "org.khronos.nn_extension.pooling_layer", VX_KERNEL_POOLING_LAYER,
			{ kTensor, kScalar, kScalar, kScalar, kScalar, kScalar, kScalar, kOutput },
			resolvePooling },
		{ "org.khronos.nn_extension.softmax_layer", VX_KERNEL_SOFTMAX_LAYER,
			{ kTensor, kOutput }, resolveSoftmax },
		{ "org.khronos.nn_extension.normalization_layer", VX_KERNEL_NORMALIZATION_LAYER,
			{ kTensor, kScalar, kScalar, kScalar, kScalar, kOutput },
			resolveNormalizationLayer },
		{ "org.khronos.nn_extension.activation_layer", VX_KERNEL_ACTIVATION_LAYER,
			{ kTensor, kScalar, kScalar, kScalar, kOutput }, resolveActivation },
		{ "org.khronos.nn_extension.roi_pooling_layer", VX_KERNEL_ROI_POOLING_LAYER,
			{ kTensor, kTensor, kScalar, kOutput }, resolveRoiPooling },
		{ "org.khronos.nn_extension.deconvolution_layer", VX_KERNEL_DECONVOLUTION_LAYER,
			{ kTensor, kTensor, kOptionalTensor, kScalar, kOutput },
			resolveDeconvolution },
		{ "org.khronos.nn_extension.local_response_normalization_layer",
			VX_KERNEL_LOCAL_RESPONSE_NORMALIZATION_LAYER,
			{ kTensor, kScalar, kScalar, kScalar, kScalar, kScalar, kOutput },
			resolveLocalResponseNormalization },
		{ kGeneralConvolutionName, kGeneralConvolutionKernel,
			{ kTensor, kTensor, kOptionalTensor, kOptionalTensor, kOptionalTensor, kScalar,
				kOutput },
			resolveGeneralConvolution },
		{ kGeneralPoolingName, kGeneralPoolingKernel, { kTensor, kScalar, kOutput },
			resolveGeneralPooling },
		{ kRearrangementName, kRearrangementKernel, { kTensor, kScalar, kOutput },
			resolveRearrangementKernel },
		{ kConcatenationName, kConcatenationKernel,
			{ kTensor, kOptionalTensor, kOptionalTensor, kOptionalTensor,
				kOptionalTensor, kOptionalTensor, kOptionalTensor, kOptionalTensor,
				kScalar, kOutput },
			resolveConcatenationKernel },
		{ kElementwiseName, kElementwiseKernel, { kTensor, kTensor, kScalar, kOutput },
			resolveElementwiseKernel },
		{ kDequantizeName, kDequantizeKernel, { kTensor, kTensor, kTensor, kOutput },
			resolveDequantizeKernel },
	};
	return kernels;
}

/* The layer kernel behind a kernel object; user kernels never are one,
 * whatever enumeration they chose. */
const LayerKernel *findLayerKernel(vx_kernel kernel)
{
	if (kernel->user)
		return nullptr;
	for (const LayerKernel &layer : layerKernels()) {
		if (layer.enumeration == kernel->enumeration)
			return &layer;
	}
	return nullptr;
}

/* An output still to be derived takes over the input's format. */
void describeOutput(vx_meta_format meta, const Resolved &resolved)
{
	const auto [input, output] = std::visit(
		[](const auto &layer) { return std::make_pair(layer.input, layer.output); },
		resolved.layer);
	const vx_tensor format = output->resolved() ? output : input;
	meta->dims = resolved.outputDims;
	/* Dequantisation changes the type: always FLOAT32. */
	meta->tensorType = std::holds_alternative<Dequantize>(resolved.layer) ? VX_TYPE_FLOAT32
									     : format->dataType;
	meta->fixedPointPosition = format->fixedPointPosition;
	meta->fixedPointSet = true;
}

vx_status VX_CALLBACK validateLayer(
	vx_node node, const vx_reference parameters[], vx_uint32 num, vx_meta_format metas[])
{
	const LayerKernel *kernel = findLayerKernel(node->kernel);
	if (!kernel || num != kernel->parameters.size())
		return VX_ERROR_INVALID_PARAMETERS;
	Resolved resolved;
	vx_status status = kernel->resolve(parameters, resolved);
	if (status == VX_SUCCESS)
		describeOutput(metas[num - 1], resolved);
	return status;
}

vx_status VX_CALLBACK runLayer(vx_node node, const vx_reference *parameters, vx_uint32)
{
	ApiLock lock(apiLock());
	const LayerKernel *kernel = findLayerKernel(node->kernel);
	Resolved resolved;
	vx_status status = kernel ? kernel->resolve(parameters, resolved) : VX_ERROR_INVALID_NODE;
	/* runOnCpu computes without the lock, which is recursive: drop ours. */
	lock.unlock();
	return status == VX_SUCCESS ? runOnCpu(resolved.layer) : status;
}

/* Resolving reads every required parameter and the dimensions of every
 * tensor. */
bool parametersReady(vx_node node)
{
	for (vx_uint32 i = 0; i < node->parameters.size(); i++) {
		vx_reference ref = node->parameters[i];
		if (!ref && node->kernel->parameters[i].state == VX_PARAMETER_STATE_REQUIRED)
			return false;
		if (ref && ref->type == VX_TYPE_TENSOR
			&& !reinterpret_cast<vx_tensor>(ref)->resolved())
			return false;
	}
	return true;
}

template <typename T> vx_reference asReference(T object)
{
	return reinterpret_cast<vx_reference>(object);
}

} /* namespace */

namespace vdla::vx {

void addLayerKernels(vx_context context)
{
	for (const LayerKernel &layer : layerKernels())
		addStandardKernel(context, layer.name, layer.enumeration, runLayer, validateLayer,
			layer.parameters);
}

} /* namespace vdla::vx */

namespace vdla::vx::nn {

std::optional<Layer> describeLayer(vx_node node)
{
	ApiLock lock(apiLock());
	if (!isValid(node, VX_TYPE_NODE))
		return std::nullopt;
	const LayerKernel *kernel = findLayerKernel(node->kernel);
	Resolved resolved;
	if (!kernel || !parametersReady(node)
		|| kernel->resolve(node->parameters.data(), resolved) != VX_SUCCESS)
		return std::nullopt;
	return resolved.layer;
}

vx_node generalConvolutionNode(vx_graph graph, vx_tensor input, vx_tensor weights,
	vx_tensor bias, vx_tensor multipliers, const ConvolutionParams &params,
	vx_tensor output, vx_tensor addend)
{
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	ScalarArguments scalars(graph->context);
	return createKernelNode(graph, kGeneralConvolutionKernel,
		{ asReference(input), asReference(weights), asReference(bias),
			asReference(multipliers), asReference(addend),
			scalars.value(kTypeConvolutionParams, params),
			asReference(output) });
}

vx_node generalPoolingNode(
	vx_graph graph, vx_tensor input, const PoolingParams &params, vx_tensor output)
{
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	ScalarArguments scalars(graph->context);
	return createKernelNode(graph, kGeneralPoolingKernel,
		{ asReference(input), scalars.value(kTypePoolingParams, params),
			asReference(output) });
}

vx_node rearrangementNode(
	vx_graph graph, vx_tensor input, const RearrangementParams &params, vx_tensor output)
{
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	ScalarArguments scalars(graph->context);
	return createKernelNode(graph, kRearrangementKernel,
		{ asReference(input), scalars.value(kTypeRearrangementParams, params),
			asReference(output) });
}

vx_node concatenationNode(vx_graph graph, const vx_tensor inputs[], vx_uint32 count,
	const ConcatenationParams &params, vx_tensor output)
{
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	if (count < 1 || count > kMaxConcatenated)
		return errorAs<vx_node>(graph->context, VX_ERROR_INVALID_PARAMETERS);
	ScalarArguments scalars(graph->context);
	vx_reference in[kMaxConcatenated] = {};
	for (vx_uint32 k = 0; k < count; k++)
		in[k] = asReference(inputs[k]);
	static_assert(kMaxConcatenated == 8, "one parameter per input below");
	return createKernelNode(graph, kConcatenationKernel,
		{ in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7],
			scalars.value(kTypeConcatenationParams, params), asReference(output) });
}

vx_node dequantizeNode(
	vx_graph graph, vx_tensor input, vx_tensor zeros, vx_tensor scales, vx_tensor output)
{
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	return createKernelNode(graph, kDequantizeKernel,
		{ asReference(input), asReference(zeros), asReference(scales), asReference(output) });
}

vx_node elementwiseNode(vx_graph graph, vx_tensor x, vx_tensor y,
	const ElementwiseParams &params, vx_tensor output)
{
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	ScalarArguments scalars(graph->context);
	return createKernelNode(graph, kElementwiseKernel,
		{ asReference(x), asReference(y), scalars.value(kTypeElementwiseParams, params),
			asReference(output) });
}

} /* namespace vdla::vx::nn */

extern "C" {

vx_node vxConvolutionLayer(vx_graph graph, vx_tensor inputs, vx_tensor weights, vx_tensor biases,
	const vx_nn_convolution_params_t *convolution_params, vx_size size_of_convolution_params,
	vx_tensor outputs)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	if (!convolution_params || size_of_convolution_params != sizeof(*convolution_params))
		return errorAs<vx_node>(graph->context, VX_ERROR_INVALID_PARAMETERS);
	ScalarArguments scalars(graph->context);
	return createKernelNode(graph, VX_KERNEL_CONVOLUTION_LAYER,
		{ asReference(inputs), asReference(weights), asReference(biases),
			scalars.value(VX_TYPE_NN_CONVOLUTION_PARAMS, *convolution_params), asReference(outputs) });
}
VX_API_CATCH(nullptr)

vx_node vxDeconvolutionLayer(vx_graph graph, vx_tensor inputs, vx_tensor weights,
	vx_tensor biases, const vx_nn_deconvolution_params_t *deconvolution_params,
	vx_size size_of_deconv_params, vx_tensor outputs)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	if (!deconvolution_params || size_of_deconv_params != sizeof(*deconvolution_params))
		return errorAs<vx_node>(graph->context, VX_ERROR_INVALID_PARAMETERS);
	ScalarArguments scalars(graph->context);
	return createKernelNode(graph, VX_KERNEL_DECONVOLUTION_LAYER,
		{ asReference(inputs), asReference(weights), asReference(biases),
			scalars.value(VX_TYPE_NN_DECONVOLUTION_PARAMS, *deconvolution_params), asReference(outputs) });
}
VX_API_CATCH(nullptr)

vx_node vxROIPoolingLayer(vx_graph graph, vx_tensor input_data, vx_tensor input_rois,
	const vx_nn_roi_pool_params_t *roi_pool_params, vx_size size_of_roi_params,
	vx_tensor output_arr)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	if (!roi_pool_params || size_of_roi_params != sizeof(*roi_pool_params))
		return errorAs<vx_node>(graph->context, VX_ERROR_INVALID_PARAMETERS);
	ScalarArguments scalars(graph->context);
	return createKernelNode(graph, VX_KERNEL_ROI_POOLING_LAYER,
		{ asReference(input_data), asReference(input_rois),
			scalars.value(VX_TYPE_NN_ROI_POOL_PARAMS, *roi_pool_params), asReference(output_arr) });
}
VX_API_CATCH(nullptr)

vx_node vxFullyConnectedLayer(vx_graph graph, vx_tensor inputs, vx_tensor weights, vx_tensor biases,
	vx_enum overflow_policy, vx_enum rounding_policy, vx_tensor outputs)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	ScalarArguments scalars(graph->context);
	return createKernelNode(graph, VX_KERNEL_FULLY_CONNECTED_LAYER,
		{ asReference(inputs), asReference(weights), asReference(biases),
			scalars.enumeration(overflow_policy), scalars.enumeration(rounding_policy),
			asReference(outputs) });
}
VX_API_CATCH(nullptr)

vx_node vxPoolingLayer(vx_graph graph, vx_tensor inputs, vx_enum pooling_type,
	vx_size pooling_size_x, vx_size pooling_size_y, vx_size pooling_padding_x,
	vx_size pooling_padding_y, vx_enum rounding, vx_tensor outputs)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	ScalarArguments scalars(graph->context);
	return createKernelNode(graph, VX_KERNEL_POOLING_LAYER,
		{ asReference(inputs), scalars.enumeration(pooling_type),
			scalars.size(pooling_size_x), scalars.size(pooling_size_y),
			scalars.size(pooling_padding_x), scalars.size(pooling_padding_y),
			scalars.enumeration(rounding), asReference(outputs) });
}
VX_API_CATCH(nullptr)

vx_node vxSoftmaxLayer(vx_graph graph, vx_tensor inputs, vx_tensor outputs)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	return createKernelNode(
		graph, VX_KERNEL_SOFTMAX_LAYER, { asReference(inputs), asReference(outputs) });
}
VX_API_CATCH(nullptr)

vx_node vxNormalizationLayer(vx_graph graph, vx_tensor inputs, vx_enum type,
	vx_size normalization_size, vx_float32 alpha, vx_float32 beta, vx_tensor outputs)
try {
	return vxLocalResponseNormalizationLayer(
		graph, inputs, type, normalization_size, alpha, beta, 1.0f, outputs);
}
VX_API_CATCH(nullptr)

vx_node vxLocalResponseNormalizationLayer(vx_graph graph, vx_tensor inputs, vx_enum type,
	vx_size normalization_size, vx_float32 alpha, vx_float32 beta, vx_float32 bias,
	vx_tensor outputs)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	ScalarArguments scalars(graph->context);
	return createKernelNode(graph, VX_KERNEL_LOCAL_RESPONSE_NORMALIZATION_LAYER,
		{ asReference(inputs), scalars.enumeration(type), scalars.size(normalization_size),
			scalars.float32(alpha), scalars.float32(beta), scalars.float32(bias),
			asReference(outputs) });
}
VX_API_CATCH(nullptr)

vx_node vxActivationLayer(vx_graph graph, vx_tensor inputs, vx_enum function, vx_float32 a,
	vx_float32 b, vx_tensor outputs)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	ScalarArguments scalars(graph->context);
	return createKernelNode(graph, VX_KERNEL_ACTIVATION_LAYER,
		{ asReference(inputs), scalars.enumeration(function), scalars.float32(a),
			scalars.float32(b), asReference(outputs) });
}
VX_API_CATCH(nullptr)

} /* extern "C" */
