/* SPDX-License-Identifier: MIT */
/*
 * NN nodes to DLA operations. Every rule here reproduces the semantics of
 * nn_cpu.cpp exactly on the integer paths (the in-guest suites compare the
 * two bit for bit); the float paths agree within the tolerances that
 * docs/openvx.md states.
 */

#include "targets/dla/dla_lower.h"

#include "targets/dla/dla_lower_lrn.h"
#include "targets/dla/dla_lower_lut.h"
#include "nn/nn_layers.h"
#include "nn/nn_convolution.h"
#include "nn/nn_dequantize.h"
#include "nn/nn_elementwise.h"
#include "nn/nn_rearrange.h"
#include "objects/tensor_layout.h"

#include <VX/vx_khr_nn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>

namespace vdla::vx::dla {

namespace {

constexpr uint32_t kMaxDim = 65535;

/* The reason a node stays on the CPU; set by the checks below. */
struct Refusal {
	std::string why;
	bool operator()(const std::string &reason)
	{
		why = reason;
		return false;
	}
};

} /* namespace */

std::optional<DataType> hardwareType(vx_enum type)
{
	switch (type) {
	case VX_TYPE_INT8:
		return DataType::Int8;
	case VX_TYPE_INT16:
		return DataType::Int16;
	case VX_TYPE_FLOAT32:
		return DataType::Fp32;
	default:
		return std::nullopt;
	}
}

namespace {

/* Dimension d of an OpenVX tensor (width first), 1 beyond its rank. */
vx_size dim(vx_tensor tensor, size_t d)
{
	return d < tensor->dims.size() ? tensor->dims[d] : 1;
}

/* Product of dimensions [from, to). */
vx_size dimProduct(vx_tensor tensor, size_t from, size_t to)
{
	vx_size product = 1;
	for (size_t d = from; d < to && d < tensor->dims.size(); d++)
		product *= tensor->dims[d];
	return product;
}

} /* namespace */

bool tensorFits(vx_tensor tensor, std::string &why)
{
	if (!hardwareType(tensor->dataType)) {
		why = "the DLA takes INT8, INT16 and FLOAT32 tensors only";
		return false;
	}
	if (dim(tensor, 0) > kMaxDim || dim(tensor, 1) > kMaxDim || dim(tensor, 2) > kMaxDim
		|| dimProduct(tensor, 3, tensor->dims.size()) > kMaxDim) {
		why = "a tensor dimension exceeds 65535";
		return false;
	}
	return true;
}

namespace {

bool isInteger(vx_tensor tensor)
{
	return tensor->dataType == VX_TYPE_INT8 || tensor->dataType == VX_TYPE_INT16;
}

Round hardwareRound(vx_enum policy)
{
	return policy == VX_ROUND_POLICY_TO_NEAREST_EVEN ? Round::HalfEven : Round::ToZero;
}

bool shapeFits(vx_tensor tensor, Refusal &refuse)
{
	std::string why;
	return tensorFits(tensor, why) || refuse(why);
}

/* Element @index (in packed order) of an integer tensor, whose storage() is not null. */
int64_t readRaw(vx_tensor tensor, size_t index)
{
	const uint8_t *base = tensor->storage() + elementOffset(tensor, index);
	switch (tensor->dataType) {
	case VX_TYPE_INT8:
		return *reinterpret_cast<const int8_t *>(base);
	case VX_TYPE_INT16:
		return *reinterpret_cast<const int16_t *>(base);
	default:
		return 0;
	}
}

/* ---- Checks shared by supported() and the lowering ---- */

} /* namespace */

/* The SDP stage that turns the int32 accumulator at position P into the
 * output: bias table entries (one per output element if unshared) and the
 * scale. */
struct IntegerOutput {
	int product = 0; /* P = pos(input) + pos(weights) */
	std::vector<int32_t> bias;
	int32_t scaleMul = 1;
	uint32_t scaleShift = 0;
};

namespace {

bool integerOutput(vx_tensor input, vx_tensor weights, vx_tensor bias, vx_tensor output,
	vx_enum rounding, IntegerOutput &out, Refusal &refuse)
{
	out.product = input->fixedPointPosition + weights->fixedPointPosition;
	const int shift = out.product - output->fixedPointPosition;
	if (shift >= 0) {
		if (shift > 63)
			return refuse("output fixed point position too far below the product's");
		out.scaleShift = shift;
	} else {
		if (-shift > 30)
			return refuse("output fixed point position too far above the product's");
		out.scaleMul = 1 << -shift;
	}
	if (!bias)
		return true;
	if (!bias->storage())
		return refuse("the bias tensor has no memory (its handle was swapped out)");
	const int biasShift = out.product - bias->fixedPointPosition;
	const size_t count = bias->byteSize() / bias->elementSize();
	out.bias.resize(count);
	for (size_t i = 0; i < count; i++) {
		int64_t raw = readRaw(bias, i);
		int64_t value = biasShift >= 0 ? raw * (int64_t(1) << std::min(biasShift, 40))
					       : nn::roundShift(raw, -biasShift, rounding);
		if (biasShift > 40 || value < std::numeric_limits<int32_t>::min()
			|| value > std::numeric_limits<int32_t>::max())
			return refuse(
				"the bias at the product's fixed point position exceeds 32 bits");
		out.bias[i] = int32_t(value);
	}
	return true;
}

bool sameType(std::initializer_list<vx_tensor> tensors, Refusal &refuse)
{
	vx_enum type = (*tensors.begin())->dataType;
	for (vx_tensor tensor : tensors) {
		if (tensor && tensor->dataType != type)
			return refuse("tensors of different element types");
	}
	return true;
}

/* CONV padding on the right (bottom) that yields @out outputs, ceil mode included. */
bool convPadding(vx_size in, vx_size out, vx_size pad, vx_size kernel, vx_size dilation,
	vx_size stride, uint16_t &after, Refusal &refuse)
{
	const int64_t span = int64_t(kernel - 1) * (dilation + 1) + 1;
	const int64_t needed = int64_t(out - 1) * stride + span - int64_t(in) - int64_t(pad);
	const int64_t padAfter = std::max<int64_t>(int64_t(pad), needed);
	if (pad > 31 || padAfter > 31)
		return refuse("padding above 31");
	if (stride < 1 || stride > 16)
		return refuse("stride outside 1..16");
	if (dilation + 1 > 16)
		return refuse("dilation above 15");
	if (kernel < 1 || kernel > 32)
		return refuse("kernel side outside 1..32");
	after = uint16_t(padAfter);
	return true;
}

/* ---- Activations as an SDP stage ---- */

} /* namespace */

/*
 * The SDP's 257-entry table and where it starts: INT16 entries from start
 * in steps of 2^shift (integer path), or FP32 entries from startFloat in
 * steps of stepFloat (float path). Lowering::useTable() puts it in an SDP.
 */
struct LutTable {
	std::vector<uint8_t> entries;
	int32_t start = 0;
	uint32_t shift = 0;
	float startFloat = 0, stepFloat = 1;

	template <typename T> static std::vector<uint8_t> bytesOf(const std::vector<T> &values)
	{
		std::vector<uint8_t> bytes(values.size() * sizeof(T));
		memcpy(bytes.data(), values.data(), bytes.size());
		return bytes;
	}
	static LutTable integer(const std::vector<int16_t> &values, int32_t start, uint32_t shift)
	{
		return { bytesOf(values), start, shift, 0, 1 };
	}
	static LutTable real(const std::vector<float> &values, float start, float step)
	{
		return { bytesOf(values), 0, 0, start, step };
	}
};

/*
 * An activation as the maximum of LUT passes over its input and, with
 * identity, of the input itself moved to the output's position
 * (rshift(x * identityMul, identityShift) on integers, x on floats).
 */
struct MaxOfTables {
	std::vector<LutTable> tables;
	bool identity = false;
	int32_t identityMul = 1;
	uint32_t identityShift = 0;
};

namespace {

struct ActivationStage {
	SdpActivation activation = SdpActivation::None;
	int32_t clipMin = 0, clipMax = 0;
	float clipMinFloat = 0, clipMaxFloat = 0;
	/* Standalone only: the element-wise trick (ABS, SQUARE) on the input. */
	SdpEwOp ewOp = SdpEwOp::None;
	int32_t ewMul = 1;
	float ewMulFloat = 1;
	uint32_t ewPostShift = 0;
	/* LINEAR as bias and scale: float (x + b/a) * a; integer
	 * rshift((x + biasValue) * scaleMul, scaleShift) (exactLinear()). */
	bool linear = false;
	float biasFloat = 0, scaleFloat = 1;
	int32_t biasValue = 0, scaleMul = 1;
	uint32_t scaleShift = 0;
	/* The LUT activation's table. */
	std::optional<LutTable> table;
	/* Standalone only: several LUT passes and their maximum, one SDP
	 * each; then the fields above are unused. */
	std::optional<MaxOfTables> passes;
	/* Standalone only: FLOAT32 SQRT (pushFloatSqrtUnits()). */
	bool floatSqrt = false;
};

/* The saturating quantized activation of raw input @x. */
int64_t quantizedActivation(const nn::Activation &layer, vx_tensor in, vx_tensor out, int64_t x)
{
	const double real = std::ldexp(double(x), -in->fixedPointPosition);
	return nn::quantize(nn::activate(layer.function, layer.a, layer.b, real), out->dataType,
		out->fixedPointPosition);
}

bool integerLut(const nn::Activation &layer, vx_tensor in, vx_tensor out, bool fused,
	ActivationStage &stage, Refusal &refuse)
{
	auto f = [&](int64_t x) {
		const int64_t lo = in->dataType == VX_TYPE_INT8 ? -128 : -32768;
		const int64_t hi = in->dataType == VX_TYPE_INT8 ? 127 : 32767;
		return quantizedActivation(layer, in, out, std::clamp(x, lo, hi));
	};
	if (in->dataType == VX_TYPE_INT8) {
		/* One entry per input value: exact. */
		std::vector<int16_t> values = samplePass(f, -128, 0).table;
		values[256] = values[255];
		stage.activation = SdpActivation::Lut;
		stage.table = LutTable::integer(values, -128, 0);
	} else {
		/* Interpolated tables, checked against the CPU over every input. */
		Int16Activation plan;
		std::string why;
		if (!int16Activation({ layer.function, layer.a, layer.b, in->fixedPointPosition,
					     out->fixedPointPosition },
			    plan, why))
			return refuse(why);
		if (plan.passes.size() > 1 || plan.identity) {
			if (fused)
				return refuse(
					"SOFTRELU and SQRT read their input in several passes: "
					"not fused");
			MaxOfTables passes;
			for (const LutPass &pass : plan.passes)
				passes.tables.push_back(
					LutTable::integer(pass.table, pass.start, pass.shift));
			passes.identity = plan.identity;
			passes.identityMul = plan.identityMul;
			passes.identityShift = plan.identityShift;
			stage.passes = std::move(passes);
			return true;
		}
		const LutPass &pass = plan.passes[0];
		stage.activation = SdpActivation::Lut;
		stage.table = LutTable::integer(pass.table, pass.start, pass.shift);
	}
	return true;
}

/* The FP32 table of 257 samples of the function from -range to range. */
LutTable floatTable(const nn::Activation &layer, double range)
{
	std::vector<float> values(kLutEntries);
	const double step = 2 * range / 256;
	for (size_t i = 0; i < kLutEntries; i++)
		values[i]
			= float(nn::activate(layer.function, layer.a, layer.b, -range + i * step));
	return LutTable::real(values, float(-range), float(step));
}

/*
 * SOFTRELU = log(1 + e^x) is at least max(x, 0) and within e^-12 = 6e-6
 * of it beyond +-12: a table over [-12, 12], whose interpolation is off by
 * at most f''/8 h^2 = 2.7e-4 (f'' <= 1/4, h = 3/32), then the maximum with
 * the input in a second SDP.
 */
bool floatSoftRelu(const nn::Activation &layer, bool fused, ActivationStage &stage, Refusal &refuse)
{
	if (fused)
		return refuse("SOFTRELU reads its input in two passes: not fused");
	MaxOfTables passes;
	passes.tables.push_back(floatTable(layer, 12));
	passes.identity = true;
	stage.passes = std::move(passes);
	return true;
}

bool floatLut(const nn::Activation &layer, bool fused, ActivationStage &stage, Refusal &refuse)
{
	/* Where the function is within 1e-6 of its asymptotes. */
	double range;
	switch (layer.function) {
	case VX_NN_ACTIVATION_SOFTRELU:
		return floatSoftRelu(layer, fused, stage, refuse);
	case VX_NN_ACTIVATION_SQRT:
		if (fused)
			return refuse("SQRT takes eleven operations: not fused");
		stage.floatSqrt = true;
		return true;
	case VX_NN_ACTIVATION_LOGISTIC:
		range = 14;
		break;
	case VX_NN_ACTIVATION_HYPERBOLIC_TAN:
		if (layer.b <= 0)
			return refuse("HYPERBOLIC_TAN needs b > 0 on the DLA");
		range = 7.5 / layer.b;
		break;
	default:
		return refuse("on FLOAT32 tensors the DLA computes RELU, BRELU, LINEAR, ABS, "
			      "SQUARE, LOGISTIC, HYPERBOLIC_TAN, SOFTRELU and SQRT");
	}
	stage.activation = SdpActivation::Lut;
	stage.table = floatTable(layer, range);
	return true;
}

/*
 * INT16 LINEAR bit-exactly through the SDP's bias and scale stages: the CPU
 * rounds (a x 2^-pin + b) 2^pout to nearest-even and saturates; the SDP
 * gives rshift((x + B) M, S), rounded the same way, which is that value
 * when a 2^(pout - pin) = M / 2^S (a's 24-bit mantissa over a power of two)
 * and B = b 2^pin / a is an integer. Otherwise tables approximate it.
 */
bool exactLinear(const nn::Activation &layer, vx_tensor in, vx_tensor out, ActivationStage &stage)
{
	if (layer.a == 0 || !std::isfinite(layer.a) || !std::isfinite(layer.b))
		return false;
	int exponent;
	const double fraction = std::frexp(double(layer.a), &exponent);
	int64_t mul = int64_t(std::ldexp(fraction, 24));
	int shift = 24 - exponent - (out->fixedPointPosition - in->fixedPointPosition);
	while (mul % 2 == 0 && shift > 0) {
		mul /= 2;
		shift--;
	}
	for (; shift < 0; shift++) {
		mul *= 2;
		if (std::abs(mul) > std::numeric_limits<int32_t>::max())
			return false;
	}
	/* |B| below 2^28 keeps (x + B) a, the CPU's sum in double, exact. */
	const double scaledB = std::ldexp(double(layer.b), in->fixedPointPosition);
	const double bias = nn::roundHalfEven(scaledB / double(layer.a));
	if (shift > 63 || std::fabs(bias) >= std::ldexp(1.0, 28)
		|| bias * double(layer.a) != scaledB)
		return false;
	stage.linear = true;
	stage.biasValue = int32_t(bias);
	stage.scaleMul = int32_t(mul);
	stage.scaleShift = uint32_t(shift);
	return true;
}

/*
 * The SDP stage computing @layer from @in (raw, before output conversion)
 * to @out. @fused: the stage follows a convolution's scale in the same SDP,
 * so it cannot read the input tensor again.
 */
bool activationStage(const nn::Activation &layer, vx_tensor in, vx_tensor out, bool fused,
	ActivationStage &stage, Refusal &refuse)
{
	if (in->dataType != out->dataType)
		return refuse("activation input and output types differ");
	const bool samePosition = in->fixedPointPosition == out->fixedPointPosition;
	const vx_enum f = layer.function;

	if (in->dataType == VX_TYPE_FLOAT32) {
		switch (f) {
		case VX_NN_ACTIVATION_RELU:
			stage.activation = SdpActivation::Relu;
			return true;
		case VX_NN_ACTIVATION_BRELU:
			stage.activation = SdpActivation::Clip;
			stage.clipMinFloat = 0;
			stage.clipMaxFloat = layer.a;
			return layer.a >= 0 || refuse("BRELU needs a >= 0");
		case VX_NN_ACTIVATION_LINEAR:
			if (fused || layer.a == 0)
				return refuse("LINEAR runs on the DLA unfused and with a != 0");
			stage.linear = true;
			stage.biasFloat = layer.b / layer.a;
			stage.scaleFloat = layer.a;
			return true;
		case VX_NN_ACTIVATION_ABS:
		case VX_NN_ACTIVATION_SQUARE:
			if (fused)
				return refuse("ABS and SQUARE are not fused");
			stage.ewOp = f == VX_NN_ACTIVATION_ABS ? SdpEwOp::Max : SdpEwOp::Mul;
			stage.ewMulFloat = f == VX_NN_ACTIVATION_ABS ? -1.0f : 1.0f;
			return true;
		default:
			return floatLut(layer, fused, stage, refuse);
		}
	}

	if (in->dataType == VX_TYPE_INT16 && !fused && f == VX_NN_ACTIVATION_LINEAR
		&& exactLinear(layer, in, out, stage))
		return true;
	if (samePosition && f == VX_NN_ACTIVATION_RELU) {
		stage.activation = SdpActivation::Relu;
		return true;
	}
	if (samePosition && f == VX_NN_ACTIVATION_BRELU) {
		stage.activation = SdpActivation::Clip;
		stage.clipMin = 0;
		stage.clipMax
			= int32_t(nn::quantize(layer.a, out->dataType, out->fixedPointPosition));
		return true;
	}
	if (in->dataType == VX_TYPE_INT16 && !fused && samePosition && f == VX_NN_ACTIVATION_ABS) {
		stage.ewOp = SdpEwOp::Max;
		stage.ewMul = -1;
		return true;
	}
	if (in->dataType == VX_TYPE_INT16 && !fused && f == VX_NN_ACTIVATION_SQUARE
		&& 2 * in->fixedPointPosition >= out->fixedPointPosition) {
		/* x * x at position 2p, rounded to nearest-even like nn::quantize. */
		stage.ewOp = SdpEwOp::Mul;
		stage.ewPostShift = 2 * in->fixedPointPosition - out->fixedPointPosition;
		return true;
	}
	return integerLut(layer, in, out, fused, stage, refuse);
}

void applyStage(const ActivationStage &stage, SdpOp &sdp)
{
	sdp.activation = stage.activation;
	sdp.clipMin = stage.clipMin;
	sdp.clipMax = stage.clipMax;
	sdp.clipMinFloat = stage.clipMinFloat;
	sdp.clipMaxFloat = stage.clipMaxFloat;
	if (stage.linear) {
		sdp.biasMode = SdpMode::PerTensor;
		sdp.biasFloat = stage.biasFloat;
		sdp.biasValue = stage.biasValue;
		sdp.scaleMode = SdpMode::PerTensor;
		sdp.scaleFloat = stage.scaleFloat;
		sdp.scaleMul = stage.scaleMul;
		sdp.scaleShift = stage.scaleShift;
	}
}

/* ---- Per-layer checks ---- */

bool isUnshared(vx_tensor bias)
{
	return bias && bias->dims.size() == 3;
}

/* Whether an integer layer's output needs the SDP's scale stage: its fixed
 * point position is not the product's. */
bool scalesOutput(const IntegerOutput &integer)
{
	return integer.scaleShift != 0 || integer.scaleMul != 1;
}

/*
 * Unshared biases reach the SDP as its element-wise ADD, which comes after
 * the scale stage. An integer layer that scales its output therefore takes
 * two SDPs (pushUnsharedBiasUnits()): the first adds the bias at the
 * product's position into an INT32 intermediate, the second scales. The
 * intermediate saturates at 32 bits where the CPU's sum of accumulator and
 * bias does not; that changes no output when the sum cannot leave INT32
 * (bounded by the largest products of the layer's taps), or when the
 * output, saturating, is already at its limit for INT32's.
 */
bool unsharedBiasFits(const nn::Convolution &c, const IntegerOutput &integer, Refusal &refuse)
{
	if (!scalesOutput(integer))
		return true;
	constexpr int64_t int32Max = std::numeric_limits<int32_t>::max();
	constexpr int64_t int32Min = std::numeric_limits<int32_t>::min();
	const int64_t largest = c.input->dataType == VX_TYPE_INT8 ? 128 : 32768;
	const int64_t taps = int64_t(dim(c.weights, 0) * dim(c.weights, 1) * dim(c.weights, 2));
	const int64_t reach = taps * largest * largest;
	const auto [least, most] = std::minmax_element(integer.bias.begin(), integer.bias.end());
	const bool above = std::min(reach, int32Max) + *most > int32Max;
	const bool below = std::max(-reach, int32Min) + *least < int32Min;
	if (!above && !below)
		return true;
	if (c.overflow == VX_CONVERT_POLICY_WRAP)
		return refuse("an unshared bias with the WRAP policy could overflow the DLA's "
			      "32-bit intermediate");
	const auto output = [&](int64_t value) {
		const int64_t scaled = integer.scaleShift
			? nn::roundShift(value, integer.scaleShift, c.rounding)
			: value * integer.scaleMul;
		return nn::convert(scaled, c.output->dataType, VX_CONVERT_POLICY_SATURATE);
	};
	const int64_t typeMax = c.output->dataType == VX_TYPE_INT8 ? 127 : 32767;
	if ((above && output(int32Max) != typeMax) || (below && output(int32Min) != -typeMax - 1))
		return refuse("an unshared bias could saturate the DLA's 32-bit intermediate "
			      "where the output does not saturate");
	return true;
}

bool checkConvolution(const nn::Convolution &c, Refusal &refuse)
{
	if (!shapeFits(c.input, refuse) || !shapeFits(c.output, refuse)
		|| !sameType({ c.input, c.weights, c.bias, c.output }, refuse))
		return false;
	uint16_t after;
	if (!convPadding(dim(c.input, 0), dim(c.output, 0), c.padX, dim(c.weights, 0), c.dilationX,
		    c.strideX, after, refuse)
		|| !convPadding(dim(c.input, 1), dim(c.output, 1), c.padY, dim(c.weights, 1),
			c.dilationY, c.strideY, after, refuse))
		return false;
	if (dim(c.weights, 2) * dim(c.weights, 0) * dim(c.weights, 1) > 65536)
		return refuse("more than 65536 weights per output");
	if (!isInteger(c.input))
		return true;
	IntegerOutput integer;
	return integerOutput(c.input, c.weights, c.bias, c.output, c.rounding, integer, refuse)
		&& (!isUnshared(c.bias) || unsharedBiasFits(c, integer, refuse));
}

/*
 * A deconvolution with upscale s along an axis, seen from the outputs r,
 * r + s, r + 2s, ...: output j reads the upscaled input at j + m - (k - 1 -
 * pad), an element only at multiples of s, so these outputs take the taps
 * first, first + s, ... and are a stride-1 convolution of the input itself
 * with those taps (docs/openvx.md, "Deconvolution on the DLA").
 */
struct DeconvolutionPhase {
	vx_size outputs = 0;
	vx_size first = 0, taps = 0;
	/* The input elements the convolution reads, and its padding. */
	vx_size inputStart = 0, inputs = 0;
	vx_size padBefore = 0, padAfter = 0;
};

/* The phase of outputs @r, r + upscale, ...; false when it reads no
 * element (its outputs would be biases alone). */
bool deconvolutionPhase(vx_size in, vx_size out, vx_size kernel, vx_size pad, vx_size upscale,
	vx_size r, DeconvolutionPhase &phase)
{
	const int64_t s = int64_t(upscale);
	const int64_t c = int64_t(kernel) - 1 - int64_t(pad);
	phase = {};
	phase.outputs = r < out ? (out - r + upscale - 1) / upscale : 0;
	if (!phase.outputs)
		return true;
	phase.first = vx_size(((c - int64_t(r)) % s + s) % s);
	if (phase.first >= kernel)
		return false;
	phase.taps = (kernel - phase.first + upscale - 1) / upscale;
	/* Output t of the phase reads input t + u - before for tap u. */
	const int64_t before = (c - int64_t(r) - int64_t(phase.first)) / s;
	const int64_t start = std::max<int64_t>(-before, 0);
	int64_t count = int64_t(in) - start;
	int64_t after = int64_t(phase.outputs) + int64_t(phase.taps) - 1 - count
		- std::max<int64_t>(before, 0);
	if (after < 0) {
		count += after;
		after = 0;
	}
	if (count < 1)
		return false;
	phase.inputStart = vx_size(start);
	phase.inputs = vx_size(count);
	phase.padBefore = vx_size(std::max<int64_t>(before, 0));
	phase.padAfter = vx_size(after);
	return true;
}

bool checkDeconvolution(const nn::Deconvolution &d, Refusal &refuse)
{
	if (!shapeFits(d.input, refuse) || !shapeFits(d.output, refuse)
		|| !sameType({ d.input, d.weights, d.bias, d.output }, refuse))
		return false;
	/* The lowering copies the weights' values into the task. */
	if (!d.weights->storage())
		return refuse("the weights tensor has no memory (its handle was swapped out)");
	if (d.bias && !d.bias->storage())
		return refuse("the bias tensor has no memory (its handle was swapped out)");
	if (isUnshared(d.bias))
		return refuse("a deconvolution with one bias per output element runs on the CPU");
	if (d.upscaleX > 8 || d.upscaleY > 8)
		return refuse("a deconvolution upscale above 8");
	const vx_size axes[2][5] = {
		{ dim(d.input, 0), dim(d.output, 0), dim(d.weights, 0), d.padX, d.upscaleX },
		{ dim(d.input, 1), dim(d.output, 1), dim(d.weights, 1), d.padY, d.upscaleY },
	};
	for (const auto &axis : axes) {
		for (vx_size r = 0; r < axis[4]; r++) {
			DeconvolutionPhase phase;
			if (!deconvolutionPhase(axis[0], axis[1], axis[2], axis[3], axis[4], r, phase))
				return refuse("a deconvolution output that no input element reaches");
			if (phase.padBefore > 31 || phase.padAfter > 31)
				return refuse("padding above 31");
			if (phase.taps > 32)
				return refuse("kernel side outside 1..32");
		}
	}
	if (dim(d.weights, 2) * dim(d.weights, 0) * dim(d.weights, 1) > 65536)
		return refuse("more than 65536 weights per output");
	if (!isInteger(d.input))
		return true;
	IntegerOutput integer;
	return integerOutput(d.input, d.weights, d.bias, d.output, d.rounding, integer, refuse);
}

bool checkFullyConnected(const nn::FullyConnected &l, Refusal &refuse)
{
	if (!hardwareType(l.input->dataType))
		return refuse("the DLA computes INT8, INT16 and FLOAT32 tensors only");
	if (!sameType({ l.input, l.weights, l.bias, l.output }, refuse))
		return false;
	/* Weights [#IFM, #OFM] or [W, H, #IFM, #OFM]: features by outputs. */
	const vx_size features = dimProduct(l.input, 0, l.sampleRank);
	if (features > kMaxDim || l.weights->dims.back() > kMaxDim
		|| dimProduct(l.output, 1, l.output->dims.size()) > kMaxDim)
		return refuse("fully connected layer too large for one CONV operation");
	if (!isInteger(l.input))
		return true;
	IntegerOutput integer;
	return integerOutput(l.input, l.weights, l.bias, l.output, l.rounding, integer, refuse);
}

bool checkPooling(const nn::Pooling &p, Refusal &refuse)
{
	if (!shapeFits(p.input, refuse) || !shapeFits(p.output, refuse))
		return false;
	if (p.sizeX < 1 || p.sizeX > 16 || p.sizeY < 1 || p.sizeY > 16)
		return refuse("pooling size outside 1..16");
	if (p.strideX > 16 || p.strideY > 16)
		return refuse("pooling stride above 16");
	if (p.padX >= p.sizeX || p.padY >= p.sizeY)
		return refuse("pooling padding not below the pooling size");
	return true;
}

/* The CDP integer path's table for a fixed-point LRN (dla_lower_lrn.cpp). */
IntegerLrnParameters integerLrnParameters(const nn::Normalization &n)
{
	IntegerLrnParameters p;
	p.type = n.input->dataType;
	p.inputPosition = n.input->fixedPointPosition;
	p.outputPosition = n.output->fixedPointPosition;
	p.size = n.size;
	p.channels = dim(n.input, 2);
	p.alpha = n.alpha;
	p.beta = n.beta;
	p.bias = n.bias;
	return p;
}

/* The rounding steps SAME_MAP LRN adds to those of an FP32 LRN: the
 * inverse square root (about 2 u after Newton), three products, margin. */
constexpr double kSameMapExtraUlps = 10;

bool checkNormalization(const nn::Normalization &n, Refusal &refuse)
{
	if (!shapeFits(n.input, refuse) || !sameType({ n.input, n.output }, refuse))
		return false;
	if (n.size < 1 || n.size > 15 || n.size % 2 == 0)
		return refuse("normalization size must be odd and at most 15");
	if (!isInteger(n.input))
		return true;
	std::string tableWhy, floatWhy;
	if (n.type == VX_NN_NORMALIZATION_SAME_MAP) {
		/* Newton's 1/sqrt, its products and the clip: 10 u more. */
		return lrnThroughFloatFits(n.beta, n.size * n.size, kSameMapExtraUlps,
			       n.input->dataType, floatWhy)
			|| refuse("SAME_MAP: " + floatWhy);
	}
	IntegerLrnTable table;
	if (integerLrnTable(integerLrnParameters(n), table, tableWhy)
		|| lrnThroughFloatFits(n.beta, n.size, 0, n.input->dataType, floatWhy))
		return true;
	return refuse(tableWhy + "; " + floatWhy);
}

} /* namespace */

namespace {

bool checkActivation(const nn::Activation &a, Refusal &refuse)
{
	ActivationStage stage;
	return shapeFits(a.input, refuse)
		&& activationStage(a, a.input, a.output, false, stage, refuse);
}

bool checkSoftmax(const nn::Softmax &s, Refusal &refuse)
{
	std::string reason;
	return softmaxFits(s, reason) || refuse(reason);
}

/* The PDP's limits (docs/hw-spec.md); the layer's own checks keep the
 * padding below the window. */
bool checkGeneralPooling(const nn::GeneralPooling &p, Refusal &refuse)
{
	if (!shapeFits(p.input, refuse) || !shapeFits(p.output, refuse))
		return false;
	if (p.sizeX > 16 || p.sizeY > 16)
		return refuse("pooling size above 16");
	if (p.strideX > 16 || p.strideY > 16)
		return refuse("pooling stride above 16");
	return true;
}

bool checkRearrangement(const nn::Rearrangement &r, Refusal &refuse)
{
	std::string reason;
	return rearrangementFits(r, reason) || refuse(reason);
}

bool checkConcatenation(const nn::Concatenation &c, Refusal &refuse)
{
	std::string reason;
	return concatenationFits(c, reason) || refuse(reason);
}

bool checkDequantize(const nn::Dequantize &d, Refusal &refuse)
{
	std::string reason;
	return dequantizeFits(d, reason) || refuse(reason);
}

bool checkElementwise(const nn::Elementwise &e, Refusal &refuse)
{
	std::string reason;
	return elementwiseFits(e, reason) || refuse(reason);
}

bool checkGeneralConvolution(const nn::GeneralConvolution &c, Refusal &refuse)
{
	/* INT32 sums (no multipliers) are the one INT32 tensor the lowering writes. */
	std::string reason;
	const bool sums = c.output->dataType == VX_TYPE_INT32 && !c.multipliers;
	if (sums && (dim(c.output, 0) > kMaxDim || dim(c.output, 1) > kMaxDim
		|| dim(c.output, 2) > kMaxDim
		|| dimProduct(c.output, 3, c.output->dims.size()) > kMaxDim))
		return refuse("a tensor dimension exceeds 65535");
	if (!shapeFits(c.input, refuse) || (!sums && !shapeFits(c.output, refuse)))
		return false;
	return generalConvolutionFits(c, reason) || refuse(reason);
}

/* check() of the layer kind @L, taking any layer. */
template <typename L, bool (*check)(const L &, Refusal &)>
bool checkAs(const nn::Layer &layer, Refusal &refuse)
{
	const L *parameters = std::get_if<L>(&layer);
	return parameters ? check(*parameters, refuse)
			  : refuse("the node's parameters are not those of its kernel");
}

} /* namespace */

/*
 * Every kernel the DLA runs: whether a node's parameters fit the hardware
 * (everything lower() needs), and how it is lowered. A layer the DLA
 * learns to run is one more entry here.
 */
struct Lowering::Operation {
	vx_enum kernel;
	bool (*fits)(const nn::Layer &layer, Refusal &refuse);
	vx_status (Lowering::*lower)(vx_node node);
};

const Lowering::Operation *Lowering::operation(vx_kernel kernel)
{
	static const Operation operations[] = {
		{ VX_KERNEL_CONVOLUTION_LAYER, checkAs<nn::Convolution, checkConvolution>,
			&Lowering::lowerConvolution },
		{ VX_KERNEL_DECONVOLUTION_LAYER, checkAs<nn::Deconvolution, checkDeconvolution>,
			&Lowering::lowerDeconvolution },
		{ VX_KERNEL_FULLY_CONNECTED_LAYER, checkAs<nn::FullyConnected, checkFullyConnected>,
			&Lowering::lowerFullyConnected },
		{ VX_KERNEL_POOLING_LAYER, checkAs<nn::Pooling, checkPooling>,
			&Lowering::lowerPooling },
		{ VX_KERNEL_ACTIVATION_LAYER, checkAs<nn::Activation, checkActivation>,
			&Lowering::lowerActivation },
		{ VX_KERNEL_LOCAL_RESPONSE_NORMALIZATION_LAYER,
			checkAs<nn::Normalization, checkNormalization>,
			&Lowering::lowerNormalization },
		{ VX_KERNEL_NORMALIZATION_LAYER, checkAs<nn::Normalization, checkNormalization>,
			&Lowering::lowerNormalization },
		{ VX_KERNEL_SOFTMAX_LAYER, checkAs<nn::Softmax, checkSoftmax>,
			&Lowering::lowerSoftmax },
		{ nn::kGeneralConvolutionKernel,
			checkAs<nn::GeneralConvolution, checkGeneralConvolution>,
			&Lowering::lowerGeneralConvolution },
		{ nn::kGeneralPoolingKernel, checkAs<nn::GeneralPooling, checkGeneralPooling>,
			&Lowering::lowerPooling },
		{ nn::kRearrangementKernel, checkAs<nn::Rearrangement, checkRearrangement>,
			&Lowering::lowerRearrangement },
		{ nn::kConcatenationKernel, checkAs<nn::Concatenation, checkConcatenation>,
			&Lowering::lowerConcatenation },
		{ nn::kElementwiseKernel, checkAs<nn::Elementwise, checkElementwise>,
			&Lowering::lowerElementwise },
		{ nn::kDequantizeKernel, checkAs<nn::Dequantize, checkDequantize>,
			&Lowering::lowerDequantize },
	};
	/* User kernels may take any enumeration. */
	if (kernel->user)
		return nullptr;
	for (const Operation &entry : operations)
		if (entry.kernel == kernel->enumeration)
			return &entry;
	return nullptr;
}

Lowering::Lowering() = default;

bool Lowering::kernelSupported(vx_kernel kernel)
{
	return operation(kernel) != nullptr;
}

namespace {

/*
 * Whether a node of @node's graph writes memory of @tensor. The tasks copy
 * biases (and a deconvolution's weights) when they are written: values a
 * node computes at each run would be stale.
 */
bool computedByTheGraph(vx_node node, vx_tensor tensor)
{
	if (!tensor || !node->graph)
		return false;
	for (vx_node other : node->graph->nodes)
		for (vx_tensor output : tensorsOf(other, VX_OUTPUT))
			if (tensorsShareMemory(output, tensor))
				return true;
	return false;
}

/* The tensors whose values the lowering of @layer copies into the task
 * when it is planned (biases, deconvolution weights); null ones too. */
std::vector<vx_tensor> copiedTensors(const nn::Layer &layer)
{
	if (auto *c = std::get_if<nn::Convolution>(&layer))
		return { c->bias };
	if (auto *f = std::get_if<nn::FullyConnected>(&layer))
		return { f->bias };
	if (auto *d = std::get_if<nn::Deconvolution>(&layer))
		return { d->bias, d->weights };
	/* An INT8 convolution's bias constant depends on its weights (so do
	 * INT16 weights split in two), and its multipliers are copied too:
	 * with or without multipliers (the INT32 sums). */
	if (auto *q = std::get_if<nn::Dequantize>(&layer))
		return { q->zeros, q->scales };
	if (auto *g = std::get_if<nn::GeneralConvolution>(&layer))
		return g->input->dataType == VX_TYPE_INT8
			? std::vector<vx_tensor>{ g->bias, g->weights, g->multipliers }
			: std::vector<vx_tensor>{ g->bias };
	return {};
}

/*
 * Why the values @node's lowering would copy can change without a new plan
 * seeing it, or nullptr: a node of the graph computes them, or they are on
 * a libvdla buffer that others write behind the runtime's back.
 */
const char *copiedValuesMayChange(vx_node node, const nn::Layer &layer)
{
	for (vx_tensor tensor : copiedTensors(layer)) {
		if (!tensor)
			continue;
		if (computedByTheGraph(node, tensor))
			return "weights or biases computed by a node of the graph";
		if (memoryOwner(tensor)->externalBuffer)
			return "weights or biases on a libvdla buffer (createTensorFromBuffer), "
			       "which the DLA task would copy once";
	}
	return nullptr;
}

} /* namespace */

bool Lowering::supported(vx_node node, std::string &why)
{
	Refusal refuse;
	const Operation *entry = operation(node->kernel);
	std::optional<nn::Layer> layer = nn::describeLayer(node);
	bool ok = false;
	if (!entry || !layer) {
		refuse(std::string(node->kernel->kernelName) + " has no DLA implementation");
	} else if (const char *changing = copiedValuesMayChange(node, *layer)) {
		refuse(changing);
	} else {
		ok = entry->fits(*layer, refuse);
	}
	why = refuse.why;
	return ok;
}

uint16_t Lowering::slot(vx_tensor tensor)
{
	/* A view addressed in place is its root's buffer, at offsetOf(). */
	if (addressedInPlace(tensor))
		tensor = tensor->root;
	for (size_t i = 0; i < tensors_.size(); i++) {
		if (tensors_[i] == tensor)
			return uint16_t(i + 1);
	}
	tensors_.push_back(tensor);
	return uint16_t(tensors_.size());
}

uint16_t Lowering::scratch(vx_context context, DataType type, vx_size count)
{
	/* Bytes: the units' descriptors give the elements their type and
	 * shape, and one buffer may be read as two types. Never seen by the
	 * application: a virtual tensor of no graph. */
	auto tensor = std::make_unique<_vx_tensor_t>(context);
	tensor->dims = { count * dataTypeSize(type) };
	tensor->dataType = VX_TYPE_UINT8;
	tensor->isVirtual = true;
	tensors_.push_back(tensor.get());
	scratch_.push_back(std::move(tensor));
	return uint16_t(tensors_.size());
}

uint64_t Lowering::offsetOf(vx_tensor tensor)
{
	return addressedInPlace(tensor) ? offsetInRoot(tensor) : 0;
}

uint64_t Lowering::addConstant(const void *data, size_t size)
{
	/* 64-byte aligned, like the hardware's bursts. */
	const uint64_t offset = (constants_.size() + 63) & ~uint64_t(63);
	constants_.resize(offset + size);
	memcpy(constants_.data() + offset, data, size);
	return offset;
}

Tensor Lowering::hardwareTensor(vx_tensor tensor)
{
	/* Never empty: a view addressed in place folds its dimensions from
	 * the fourth on (addressedInPlace()), and the others are single. */
	return *addressAs(tensor, uint32_t(dimProduct(tensor, 3, tensor->dims.size())),
		uint32_t(dim(tensor, 2)), uint32_t(dim(tensor, 1)), uint32_t(dim(tensor, 0)));
}

std::optional<Tensor> Lowering::addressAs(
	vx_tensor tensor, uint32_t n, uint32_t c, uint32_t h, uint32_t w)
{
	/* INT32 only as a convolution's sums (checkGeneralConvolution()). */
	const DataType type = tensor->dataType == VX_TYPE_INT32 ? DataType::Int32
							       : *hardwareType(tensor->dataType);
	Tensor t = Tensor::nchw(slot(tensor), offsetOf(tensor), type, n, c, h, w);
	/* Packed elements: the tensor's own, a staged copy, or a packed block
	 * of a root. */
	if (!addressedInPlace(tensor) || packedBlockOfRoot(tensor))
		return t;

	/* W, H and C each take the next dimensions until their product is
	 * their size, N the rest; each group must walk with one stride. */
	const uint32_t sizes[4] = { w, h, c, n };
	uint32_t *strides[4] = { &t.strideW, &t.strideH, &t.strideC, &t.strideN };
	size_t next = 0;
	for (size_t k = 0; k < 4; k++) {
		const size_t first = next;
		vx_size product = 1;
		while (next < tensor->dims.size() && (k == 3 || product < sizes[k]))
			product *= tensor->dims[next++];
		vx_size count, stride;
		if (product != sizes[k] || !foldDims(tensor, first, next, count, stride))
			return std::nullopt;
		*strides[k] = uint32_t(stride);
	}
	return t;
}

Tensor Lowering::readAs(
	vx_tensor tensor, uint32_t n, uint32_t c, uint32_t h, uint32_t w, vx_node &node)
{
	if (std::optional<Tensor> inPlace = addressAs(tensor, n, c, h, w))
		return *inPlace;
	/* An SDP of no stage copies the view's elements, exactly, into packed
	 * scratch, which any shape reads. */
	SdpOp copy;
	copy.src = hardwareTensor(tensor);
	copy.dst = scratchLike(tensor->context, copy.src, copy.src.type);
	pushSdpUnit(copy, node);
	return Tensor::nchw(copy.dst.buffer, 0, copy.dst.type, n, c, h, w);
}

vx_status Lowering::lower(vx_node node, bool fuse)
{
	/* supported() said yes when the DLA target took the node, in this
	 * same planning: not checked (and its tables computed) twice. */
	if (fuse && tryFuse(node))
		return VX_SUCCESS;
	return (this->*operation(node->kernel)->lower)(node);
}

namespace {

/* The SDP that turns a CONV's accumulator into @output. */
SdpOp convolutionSdp(vx_tensor output, const Tensor &dst, const IntegerOutput &integer,
	vx_enum overflow, vx_enum rounding)
{
	SdpOp sdp;
	sdp.dst = dst;
	sdp.round = hardwareRound(rounding);
	sdp.wrap = overflow == VX_CONVERT_POLICY_WRAP;
	if (isInteger(output) && scalesOutput(integer)) {
		sdp.scaleMode = SdpMode::PerTensor;
		sdp.scaleMul = integer.scaleMul;
		sdp.scaleShift = integer.scaleShift;
	}
	return sdp;
}

} /* namespace */

void Lowering::pushConvolutionUnit(
	vx_node node, ConvOp conv, const Tensor &out, const MatrixLayer &layer)
{
	Refusal refuse;
	IntegerOutput integer;
	if (isInteger(layer.input))
		integerOutput(layer.input, layer.weights, layer.bias, layer.output, layer.rounding,
			integer, refuse);

	/* The accumulator flies to the SDP with the output's shape. */
	conv.dst = out;
	conv.dst.buffer = kConstantSlot;
	conv.dst.type = isInteger(layer.input) ? DataType::Int32 : DataType::Fp32;

	SdpOp sdp = convolutionSdp(layer.output, out, integer, layer.overflow, layer.rounding);
	Unit unit;
	unit.conv = conv;
	unit.reads = { conv.src.buffer, conv.weights.buffer };
	unit.writes = out.buffer;
	if (isUnshared(layer.bias)) {
		pushUnsharedBiasUnits(std::move(unit), node, sdp, layer, integer);
		return;
	}
	if (layer.bias) {
		sdp.biasMode = SdpMode::PerChannel;
		sdp.bias = { kConstantSlot, biasConstant(layer, integer) };
	}
	unit.sdp = sdp;
	/* No node when a unit copying a view went first and carries it. */
	pushUnit(std::move(unit), node);
}

uint64_t Lowering::biasConstant(const MatrixLayer &layer, const IntegerOutput &integer)
{
	const std::array<vx_tensor, 4> key = { layer.input, layer.weights, layer.bias, layer.output };
	if (auto known = biasConstants_.find(key); known != biasConstants_.end())
		return known->second;
	copiedValues_.push_back(layer.bias);
	uint64_t offset;
	if (isInteger(layer.input)) {
		offset = addConstant(integer.bias.data(), integer.bias.size() * sizeof(int32_t));
	} else {
		std::vector<uint8_t> packed(layer.bias->byteSize());
		readPacked(layer.bias, packed.data());
		offset = addConstant(packed.data(), packed.size());
	}
	biasConstants_.emplace(key, offset);
	return offset;
}

void Lowering::pushUnsharedBiasUnits(
	Unit unit, vx_node &node, SdpOp sdp, const MatrixLayer &layer, const IntegerOutput &integer)
{
	/* One bias per output element, the same for every batch: a constant
	 * of the output's shape read with batch stride 0. */
	const Tensor &out = sdp.dst;
	const DataType type = isInteger(layer.input) ? DataType::Int32 : DataType::Fp32;
	sdp.ewOp = SdpEwOp::Add;
	sdp.ew = Tensor::nchw(
		kConstantSlot, biasConstant(layer, integer), type, out.n, out.c, out.h, out.w)
			 .packed();
	sdp.ew.strideN = 0;

	if (!isInteger(layer.input) || !scalesOutput(integer)) {
		unit.sdp = sdp;
		pushUnit(std::move(unit), node);
		return;
	}

	/* The ADD at the product's position into INT32 (unsharedBiasFits()),
	 * then the scale into the output, in a unit of no node of its own. */
	SdpOp add = sdp;
	add.scaleMode = SdpMode::None;
	add.scaleMul = 1;
	add.scaleShift = 0;
	add.wrap = false;
	add.dst = scratchLike(layer.output->context, out, DataType::Int32);
	unit.sdp = add;
	unit.writes = add.dst.buffer;
	pushUnit(std::move(unit), node);

	SdpOp scale = sdp;
	scale.ewOp = SdpEwOp::None;
	scale.ew = Tensor();
	scale.src = add.dst;
	pushSdpUnit(scale, node);
}

vx_status Lowering::lowerConvolution(vx_node node)
{
	auto c = std::get<nn::Convolution>(*nn::describeLayer(node));
	Refusal refuse;
	ConvOp conv;
	conv.src = hardwareTensor(c.input);
	conv.weights = hardwareTensor(c.weights);
	conv.strideX = uint16_t(c.strideX);
	conv.strideY = uint16_t(c.strideY);
	conv.padLeft = uint16_t(c.padX);
	conv.padTop = uint16_t(c.padY);
	convPadding(dim(c.input, 0), dim(c.output, 0), c.padX, dim(c.weights, 0), c.dilationX,
		c.strideX, conv.padRight, refuse);
	convPadding(dim(c.input, 1), dim(c.output, 1), c.padY, dim(c.weights, 1), c.dilationY,
		c.strideY, conv.padBottom, refuse);
	conv.dilationX = uint16_t(c.dilationX + 1);
	conv.dilationY = uint16_t(c.dilationY + 1);
	pushConvolutionUnit(node, conv, hardwareTensor(c.output),
		{ c.input, c.weights, c.bias, c.output, c.overflow, c.rounding });
	return VX_SUCCESS;
}

/*
 * upscaleX x upscaleY convolutions, one per phase (deconvolutionPhase()):
 * each reads the input with its taps of the weights (a constant) and writes
 * its outputs, every upscale-th element, through a strided view of the
 * output. The first carries the node; the rest follow it.
 */
vx_status Lowering::lowerDeconvolution(vx_node node)
{
	auto d = std::get<nn::Deconvolution>(*nn::describeLayer(node));
	const Tensor in = hardwareTensor(d.input).packed();
	const Tensor out = hardwareTensor(d.output).packed();
	const vx_size kx = dim(d.weights, 0), ky = dim(d.weights, 1);
	const vx_size inputs = dim(d.weights, 2), outputs = dim(d.weights, 3);
	const vx_size element = d.weights->elementSize();
	std::vector<uint8_t> weights(d.weights->byteSize());
	readPacked(d.weights, weights.data());
	copiedValues_.push_back(d.weights);

	vx_node carried = node;
	for (vx_size ry = 0; ry < d.upscaleY; ry++) {
		for (vx_size rx = 0; rx < d.upscaleX; rx++) {
			DeconvolutionPhase px, py;
			deconvolutionPhase(dim(d.input, 0), dim(d.output, 0), kx, d.padX, d.upscaleX,
				rx, px);
			deconvolutionPhase(dim(d.input, 1), dim(d.output, 1), ky, d.padY, d.upscaleY,
				ry, py);
			if (!px.outputs || !py.outputs)
				continue;
			std::vector<uint8_t> taps(px.taps * py.taps * inputs * outputs * element);
			uint8_t *to = taps.data();
			for (vx_size o = 0; o < outputs; o++)
				for (vx_size c = 0; c < inputs; c++)
					for (vx_size uy = 0; uy < py.taps; uy++)
						for (vx_size ux = 0; ux < px.taps; ux++, to += element) {
							const vx_size x = px.first + ux * d.upscaleX;
							const vx_size y = py.first + uy * d.upscaleY;
							memcpy(to,
								&weights[(((o * inputs + c) * ky + y) * kx + x)
									* element],
								element);
						}

			ConvOp conv;
			conv.src = in;
			conv.src.offset += px.inputStart * in.strideW + py.inputStart * in.strideH;
			conv.src.w = uint32_t(px.inputs);
			conv.src.h = uint32_t(py.inputs);
			conv.weights = Tensor::nchw(kConstantSlot, addConstant(taps.data(), taps.size()),
				*hardwareType(d.weights->dataType), uint32_t(outputs), uint32_t(inputs),
				uint32_t(py.taps), uint32_t(px.taps))
					       .packed();
			conv.padLeft = uint16_t(px.padBefore);
			conv.padRight = uint16_t(px.padAfter);
			conv.padTop = uint16_t(py.padBefore);
			conv.padBottom = uint16_t(py.padAfter);
			Tensor dst = out;
			dst.offset += rx * out.strideW + ry * out.strideH;
			dst.w = uint32_t(px.outputs);
			dst.h = uint32_t(py.outputs);
			dst.strideW *= uint32_t(d.upscaleX);
			dst.strideH *= uint32_t(d.upscaleY);
			pushConvolutionUnit(carried, conv, dst,
				{ d.input, d.weights, d.bias, d.output, d.overflow, d.rounding });
			carried = nullptr;
		}
	}
	return VX_SUCCESS;
}

vx_status Lowering::lowerFullyConnected(vx_node node)
{
	auto l = std::get<nn::FullyConnected>(*nn::describeLayer(node));

	/* [IFM, batch...] or [W, H, C, batch...]: the features are the leading dims. */
	const size_t featureDims = l.sampleRank;
	const uint32_t features = uint32_t(dimProduct(l.input, 0, featureDims));
	const uint32_t batch = uint32_t(dimProduct(l.input, featureDims, l.input->dims.size()));
	const uint32_t outputs = uint32_t(l.weights->dims.back());

	/* Views whose features no one stride walks (a range of columns of
	 * [W, H, C]) are copied packed first, by a unit carrying the node. */
	vx_node carrier = node;
	ConvOp conv;
	conv.src = readAs(l.input, batch, features, 1, 1, carrier);
	conv.weights = readAs(l.weights, outputs, features, 1, 1, carrier);
	/* [OFM, batch]: each group one dimension, which any view walks. */
	pushConvolutionUnit(carrier, conv, *addressAs(l.output, batch, outputs, 1, 1),
		{ l.input, l.weights, l.bias, l.output, l.overflow, l.rounding });
	return VX_SUCCESS;
}

namespace {

PdpOp generalPoolingOp(const nn::GeneralPooling &p)
{
	PdpOp pdp;
	pdp.method = p.type == VX_NN_POOLING_AVG ? PoolMethod::Average : PoolMethod::Max;
	pdp.ceilMode = p.ceil;
	pdp.includePad = p.includePad;
	pdp.round = Round::HalfEven;
	pdp.kernelW = uint16_t(p.sizeX);
	pdp.kernelH = uint16_t(p.sizeY);
	pdp.strideX = uint16_t(p.strideX);
	pdp.strideY = uint16_t(p.strideY);
	pdp.padLeft = uint16_t(p.padLeft);
	pdp.padRight = uint16_t(p.padRight);
	pdp.padTop = uint16_t(p.padTop);
	pdp.padBottom = uint16_t(p.padBottom);
	return pdp;
}

/* The public layer: both sides padded alike, the padding always counted. */
PdpOp poolingOp(const nn::Pooling &p)
{
	nn::GeneralPooling general{};
	general.type = p.type;
	general.sizeX = uint32_t(p.sizeX), general.sizeY = uint32_t(p.sizeY);
	general.strideX = uint32_t(p.strideX), general.strideY = uint32_t(p.strideY);
	general.padLeft = general.padRight = uint32_t(p.padX);
	general.padTop = general.padBottom = uint32_t(p.padY);
	general.ceil = p.ceil;
	general.includePad = true;
	return generalPoolingOp(general);
}

/* The PDP of a pooling layer of either kind, its input and output; nullopt for other layers. */
struct PoolingOf {
	PdpOp pdp;
	vx_tensor input, output;
};

std::optional<PoolingOf> poolingOf(const nn::Layer &layer)
{
	if (auto *p = std::get_if<nn::Pooling>(&layer))
		return PoolingOf{ poolingOp(*p), p->input, p->output };
	if (auto *g = std::get_if<nn::GeneralPooling>(&layer))
		return PoolingOf{ generalPoolingOp(*g), g->input, g->output };
	return std::nullopt;
}

} /* namespace */

/* Either pooling layer: one PDP. */
vx_status Lowering::lowerPooling(vx_node node)
{
	PoolingOf p = *poolingOf(*nn::describeLayer(node));
	Unit unit;
	unit.nodes = { node };
	p.pdp.src = hardwareTensor(p.input);
	p.pdp.dst = hardwareTensor(p.output);
	unit.pdp = p.pdp;
	unit.reads = { slot(p.input) };
	unit.writes = slot(p.output);
	units_.push_back(std::move(unit));
	return VX_SUCCESS;
}

vx_status Lowering::lowerActivation(vx_node node)
{
	auto a = std::get<nn::Activation>(*nn::describeLayer(node));
	Refusal refuse;
	ActivationStage stage;
	activationStage(a, a.input, a.output, false, stage, refuse);
	if (stage.passes) {
		pushLutPassUnits(node, a.input, a.output, *stage.passes);
		return VX_SUCCESS;
	}
	if (stage.floatSqrt) {
		pushFloatSqrtUnits(node, a.input, a.output);
		return VX_SUCCESS;
	}

	SdpOp sdp;
	sdp.src = hardwareTensor(a.input);
	sdp.dst = hardwareTensor(a.output);
	sdp.round = Round::HalfEven;
	applyStage(stage, sdp);
	if (stage.table)
		useTable(*stage.table, sdp);
	if (stage.ewOp != SdpEwOp::None) {
		sdp.ewOp = stage.ewOp;
		sdp.ew = sdp.src;
		sdp.ewMul = stage.ewMul;
		sdp.ewMulFloat = stage.ewMulFloat;
		sdp.ewPostShift = stage.ewPostShift;
	}
	pushSdpUnit(sdp, node);
	return VX_SUCCESS;
}

void Lowering::useTable(const LutTable &table, SdpOp &sdp)
{
	sdp.activation = SdpActivation::Lut;
	sdp.lut = { kConstantSlot, addConstant(table.entries.data(), table.entries.size()) };
	sdp.lutStart = table.start;
	sdp.lutShift = table.shift;
	sdp.lutStartFloat = table.startFloat;
	sdp.lutStepFloat = table.stepFloat;
}

Tensor Lowering::scratchLike(vx_context context, const Tensor &shape, DataType type)
{
	const uint16_t buffer
		= scratch(context, type, vx_size(shape.n) * shape.c * shape.h * shape.w);
	return Tensor::nchw(buffer, 0, type, shape.n, shape.c, shape.h, shape.w);
}

void Lowering::pushUnit(Unit unit, vx_node &node)
{
	/* A node's time is that of its first unit and the node-less ones
	 * after it (Plan). */
	if (node)
		unit.nodes = { node };
	node = nullptr;
	units_.push_back(std::move(unit));
}

void Lowering::pushSdpUnit(const SdpOp &sdp, vx_node &node)
{
	Unit unit;
	unit.sdp = sdp;
	unit.reads = { sdp.src.buffer };
	if (sdp.ewOp != SdpEwOp::None)
		unit.reads.push_back(sdp.ew.buffer);
	unit.writes = sdp.dst.buffer;
	pushUnit(std::move(unit), node);
}

void Lowering::pushLutPassUnits(
	vx_node node, vx_tensor input, vx_tensor output, const MaxOfTables &plan)
{
	const Tensor in = hardwareTensor(input);
	const Tensor out = hardwareTensor(output);
	auto intermediate = [&]() { return scratchLike(output->context, out, out.type); };

	/* One SDP per table, then one per maximum; the last writes the output. */
	const size_t maxima = plan.tables.size() - 1 + (plan.identity ? 1 : 0);
	std::vector<Tensor> results;
	for (const LutTable &table : plan.tables) {
		SdpOp sdp;
		sdp.src = in;
		sdp.dst = maxima ? intermediate() : out;
		sdp.round = Round::HalfEven;
		useTable(table, sdp);
		pushSdpUnit(sdp, node);
		results.push_back(sdp.dst);
	}
	Tensor current = results[0];
	for (size_t m = 0; m < maxima; m++) {
		const bool identity = m + 1 == results.size();
		SdpOp sdp;
		sdp.src = current;
		sdp.dst = m + 1 == maxima ? out : intermediate();
		sdp.round = Round::HalfEven;
		sdp.ewOp = SdpEwOp::Max;
		sdp.ew = identity ? in : results[m + 1];
		if (identity) {
			sdp.ewMul = plan.identityMul;
			sdp.ewShift = plan.identityShift;
		}
		pushSdpUnit(sdp, node);
		current = sdp.dst;
	}
}

vx_status Lowering::lowerNormalization(vx_node node)
{
	auto n = std::get<nn::Normalization>(*nn::describeLayer(node));
	Unit unit;
	unit.nodes = { node };
	CdpOp cdp;
	cdp.src = hardwareTensor(n.input);
	cdp.dst = hardwareTensor(n.output);
	cdp.size = uint32_t(n.size);
	cdp.k = n.bias;
	cdp.alpha = n.alpha;
	cdp.beta = n.beta;
	if (n.type == VX_NN_NORMALIZATION_SAME_MAP) {
		pushSameMapLrn(node, cdp, n.input, n.output);
		return VX_SUCCESS;
	}
	if (isInteger(n.input)) {
		IntegerLrnTable table;
		std::string why;
		if (!integerLrnTable(integerLrnParameters(n), table, why)) {
			/* No table within 1 LSB: the float path (checkNormalization()). */
			pushLrnThroughFloat(node, cdp, n.input, n.output);
			return VX_SUCCESS;
		}
		cdp.lut = { kConstantSlot,
			addConstant(table.entries.data(), table.entries.size() * sizeof(int32_t)) };
		cdp.lutShift = table.lutShift;
		cdp.outShift = table.outShift;
		/* Ties to even and saturation, like nn::quantize. */
		cdp.round = Round::HalfEven;
		cdp.wrap = false;
	}
	unit.cdp = cdp;
	unit.reads = { slot(n.input) };
	unit.writes = slot(n.output);
	units_.push_back(std::move(unit));
	return VX_SUCCESS;
}

namespace {

/* Whether @tensor is virtual and read by @node alone among @graph's nodes. */
bool onlyFeeds(vx_tensor tensor, vx_node node)
{
	if (!tensor->isVirtual)
		return false;
	unsigned readers = 0;
	for (vx_node other : node->graph->nodes) {
		for (size_t i = 0; i < other->parameters.size(); i++) {
			if (other->parameters[i] == reinterpret_cast<vx_reference>(tensor)
				&& other->kernel->parameters[i].direction == VX_INPUT)
				readers++;
		}
	}
	return readers == 1;
}

} /* namespace */

bool Lowering::tryFuse(vx_node node)
{
	if (units_.empty())
		return false;
	Unit &last = units_.back();
	/* Not into the middle or the end of a node lowered to several units. */
	if (!last.sdp || last.pdp || last.cdp || last.nodes.empty())
		return false;
	/* A callback reads its node's output, which a fused task never writes. */
	if (last.nodes.back()->callback)
		return false;
	const vx_tensor produced = tensors_[last.writes - 1];
	std::optional<nn::Layer> layer = nn::describeLayer(node);

	if (auto *a = std::get_if<nn::Activation>(&*layer)) {
		/* Into a convolution's SDP, after its scale: exact only when the
		 * output conversion saturates (it then commutes with the activation). */
		if (!last.conv || last.sdp->activation != SdpActivation::None || last.sdp->wrap
			|| a->input != produced || !onlyFeeds(produced, node))
			return false;
		if (produced->dataType != a->output->dataType)
			return false;
		Refusal refuse;
		ActivationStage stage;
		if (!activationStage(*a, produced, a->output, true, stage, refuse))
			return false;
		/* The activation's output has the producer's dimensions: address
		 * it in the unit's shape, as a fully connected layer sees
		 * [OFM, batch] as channels, which hardwareTensor() would make
		 * widths. Checked before the unit changes: a refusal leaves it
		 * as it was for the activation's own unit. */
		const Tensor &shape = last.sdp->dst;
		std::optional<Tensor> dst
			= addressAs(a->output, shape.n, shape.c, shape.h, shape.w);
		if (!dst)
			return false;
		applyStage(stage, *last.sdp);
		if (stage.table)
			useTable(*stage.table, *last.sdp);
		last.sdp->dst = *dst;
		last.writes = dst->buffer;
		last.nodes.push_back(node);
		return true;
	}

	if (std::optional<PoolingOf> p = poolingOf(*layer)) {
		if (p->input != produced || !onlyFeeds(produced, node))
			return false;
		p->pdp.src = last.sdp->dst;
		p->pdp.dst = hardwareTensor(p->output);
		last.sdp->dst.buffer = kConstantSlot;
		last.pdp = p->pdp;
		last.writes = slot(p->output);
		last.nodes.push_back(node);
		return true;
	}
	return false;
}

} /* namespace vdla::vx::dla */
