/* SPDX-License-Identifier: MIT */
/*
 * The layers of the OpenVX neural-network extension, as the CPU path and the
 * DLA lowering see them: a node resolved into one plain description, the CPU
 * computation, and the arithmetic helpers both paths use so that they agree
 * bit for bit. docs/openvx.md ("Neural-network layers") states the semantics.
 */
#pragma once

#include <VX/vx.h>
#include <VX/vx_khr_nn.h>

#include <array>
#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

namespace vdla::vx::nn {

struct Convolution {
	vx_tensor input, weights, bias /* nullptr if none */, output;
	vx_size padX, padY, strideX, strideY;
	/* OpenVX meaning: zeros inserted between taps, 0 for none. */
	vx_size dilationX, dilationY;
	bool ceil;
	vx_enum overflow, rounding;
};

struct FullyConnected {
	vx_tensor input, weights, bias /* nullptr if none */, output;
	vx_enum overflow, rounding;
	/* The input's leading dimensions that make one sample: 1 for
	 * [#IFM, batch...], 3 for [W, H, #IFM, batch...]; the rest is the
	 * batch, four dimensions in all at most. */
	size_t sampleRank;
};

struct Pooling {
	vx_tensor input, output;
	vx_enum type;
	vx_size sizeX, sizeY, padX, padY, strideX, strideY;
	bool ceil;
};

struct Activation {
	vx_tensor input, output;
	vx_enum function;
	vx_float32 a, b;
};

struct Softmax {
	vx_tensor input, output;
};

struct Normalization {
	vx_tensor input, output;
	vx_enum type;
	vx_size size;
	vx_float32 alpha, beta, bias;
};

/*
 * A convolution of the input upscaled with upscale - 1 zeros between its
 * elements and padded by kernel - 1 - pad before (and kernel - 1 - pad + a
 * after), with stride 1, as the specification writes it: out[j] = sum of
 * upscaled[j + m] * weights[m].
 */
struct Deconvolution {
	vx_tensor input, weights, bias /* nullptr if none */, output;
	vx_size padX, padY, aX, aY;
	/* Inferred from the output size. */
	vx_size upscaleX, upscaleY;
	vx_enum overflow, rounding;
};

/* MAX pooling of each ROI [x0, y0, x1, y1] (the elements' raw integers)
 * into the output's W' x H' bins; the output is [W', H', C, #ROI, (batch)]. */
struct RoiPooling {
	vx_tensor input, rois, output;
};

/*
 * libvdla's own convolution (nn_convolution.h), with the geometry ONNX
 * needs: four pads, explicit strides, dilations and groups. FLOAT32: the
 * sum of products and the bias in double, stored as float, then the Relu.
 * Affine-quantised INT8: per output element acc = bias[m] + the exact sum
 * of (x - inputZero) * w over the taps of m's group (padding adds
 * nothing); v = float32(acc) * multipliers[m] in float32; max(v, 0) when
 * relu; r = round(v), ties to even; the output is r + outputZero saturated
 * to INT8. Without multipliers, the output is INT32: acc itself, saturated
 * (ConvInteger, MatMulInteger).
 */
struct GeneralConvolution {
	vx_tensor input;	/* INT8 or FLOAT32 [W, H, C, (batch)] */
	vx_tensor weights;	/* the input's type (INT8 also INT16), [KW, KH, C / groups, M] */
	vx_tensor bias;		/* INT8: INT32 [M] (or nullptr for sums); FLOAT32: FLOAT32 [M] or nullptr */
	vx_tensor multipliers;	/* INT8: FLOAT32 [M], or nullptr for INT32 sums; FLOAT32: nullptr */
	vx_tensor addend;	/* FLOAT32 only: nullptr, or the output's shape, added before the Relu */
	vx_tensor output;	/* the input's type (INT32 for sums), [W', H', M, (batch)] */
	vx_uint32 padLeft, padRight, padTop, padBottom;
	vx_uint32 strideX, strideY;
	/* The distance between taps: 1 for a dense kernel. */
	vx_uint32 dilationX, dilationY;
	vx_uint32 groups;
	vx_int32 inputZero, outputZero;
	bool relu;
};

/*
 * libvdla's own pooling (nn_convolution.h), the PDP's: each side's padding,
 * explicit strides, ceil mode, and whether the average counts the padding.
 * MAX over the window's elements; AVG their sum divided by the elements, or
 * with includePad by the elements and padding positions (not positions past
 * the padding); FLOAT32 in double, INT8 rounded to nearest even. The output
 * size per axis is (in + pads - size) / stride + 1, rounded up in ceil mode
 * but never for a window starting past the input and its first padding.
 */
struct GeneralPooling {
	vx_tensor input, output;	/* INT8 or FLOAT32 [W, H, C, (batch)] */
	vx_enum type;			/* VX_NN_POOLING_MAX or _AVG */
	vx_uint32 sizeX, sizeY, strideX, strideY;
	vx_uint32 padLeft, padRight, padTop, padBottom;
	bool ceil, includePad;
};

/*
 * libvdla's data movement (nn_rearrange.h): every output element is an
 * input element, moved as bytes. The modes and their rules are
 * nn::RearrangementMode's.
 */
struct Rearrangement {
	vx_tensor input, output;	/* one type, any */
	vx_enum mode;
	std::array<vx_uint32, 4> permutation, start, step;
	vx_uint32 block;
	bool columnRowDepth;
};

/*
 * The input coordinates (innermost first) of the output element at @out
 * of @layer, whose input and output have at most four dimensions (every
 * mode but Reshape, which keeps the flat order), in @in; false when the
 * element is zero padding (DepthStack).
 */
bool rearrangedSource(
	const Rearrangement &layer, std::array<vx_size, 4> out, std::array<vx_size, 4> &in);

/* libvdla's concatenation (nn_rearrange.h): the inputs one after the other along a dimension. */
struct Concatenation {
	vx_tensor input, output;	/* input: the first of inputs */
	std::array<vx_tensor, 8> inputs;	/* count of them (kMaxConcatenated), the rest null */
	vx_uint32 count;
	vx_uint32 dimension;
};

/*
 * libvdla's element-wise layer (nn_elementwise.h): output = input OP
 * second, each operand repeated along its dimensions of 1, with the
 * arithmetic ElementwiseParams states.
 */
struct Elementwise {
	vx_tensor input, second, output;	/* one type, FLOAT32 or INT8; one rank <= 4 */
	vx_enum operation;
	std::array<vx_int32, 2> inputZero;
	std::array<vx_float32, 2> multiplier;
	vx_int32 outputZero;
	bool relu;
	bool wrap;
};

/*
 * libvdla's dequantisation (nn_dequantize.h): output = float32(input -
 * zeros[k]) * scales[k] in float32, k 0 or the element's channel.
 */
struct Dequantize {
	vx_tensor input, zeros, scales, output;	/* INT8, INT32 [1 or C], FLOAT32 [1 or C], FLOAT32 */
};

/*
 * Resolves a rearrangement of @input into @output as @params says, with
 * the output dimensions it implies (Reshape and Slice take the output's).
 * VX_ERROR_INVALID_VALUE for parameters out of their range,
 * VX_ERROR_INVALID_FORMAT for types, VX_ERROR_INVALID_DIMENSION for shapes.
 */
struct RearrangementParams;
vx_status resolveRearrangement(vx_tensor input, const RearrangementParams &params,
	vx_tensor output, Rearrangement &layer, std::vector<vx_size> &outputDims);
/* The same for a concatenation of @layer.inputs (set with count and dimension). */
vx_status resolveConcatenation(Concatenation &layer, std::vector<vx_size> &outputDims);

using Layer = std::variant<Convolution, FullyConnected, Pooling, Activation, Softmax,
	Normalization, Deconvolution, RoiPooling, GeneralConvolution, GeneralPooling,
	Rearrangement, Concatenation, Elementwise, Dequantize>;

/*
 * The layer a node of one of these kernels computes, parameters resolved
 * (strides inferred), valid once the node validated; std::nullopt for other
 * kernels.
 */
std::optional<Layer> describeLayer(vx_node node);

/* Computes the layer on the CPU from/to the tensors' storage(). */
vx_status runOnCpu(const Layer &layer);

/*
 * Divides by 2^shift: VX_ROUND_POLICY_TO_ZERO truncates,
 * VX_ROUND_POLICY_TO_NEAREST_EVEN rounds ties to even.
 */
int64_t roundShift(int64_t value, unsigned shift, vx_enum roundingPolicy);
/* Narrows to VX_TYPE_INT8, VX_TYPE_UINT8 or VX_TYPE_INT16: saturates or wraps. */
int64_t convert(int64_t value, vx_enum type, vx_enum overflowPolicy);
/* To the nearest integer, ties to even, whatever the floating-point
 * environment's rounding mode (infinities and NaN unchanged). */
double roundHalfEven(double value);
/* round(real * 2^position), ties to even, saturated to type; NaN gives 0. */
int64_t quantize(double real, vx_enum type, vx_int8 fixedPointPosition);
/* The real-valued activation function. */
double activate(vx_enum function, double a, double b, double x);

/*
 * Moves a fixed-point value from one position to another: roundShift when
 * bits are dropped, a left shift saturated to int64 otherwise. This is the
 * bias alignment and the output shift of convolution and fully connected.
 */
int64_t rescale(int64_t value, int fromPosition, int toPosition, vx_enum roundingPolicy);
/* numerator / denominator (> 0), rounded to nearest, ties to even. */
int64_t divideNearestEven(int64_t numerator, int64_t denominator);

} /* namespace vdla::vx::nn */
