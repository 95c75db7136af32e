/* SPDX-License-Identifier: MIT */
/*
 * Softmax on the DLA, which has no softmax engine (docs/openvx.md,
 * "Neural-network layers on the DLA"). The axis becomes the channels C of an
 * (N, C, H, W) view, and
 *
 *   max   M = the largest x over C: PDP MAX passes over a view that lays C
 *           along W (16 channels per pass, exact);
 *   exp   E = e^(x - M), in FP32 whatever the input type: split
 *           x - M = k q + r (k integer, |r| <= q/2) and E = A[k] * B[r],
 *           two 257-entry SDP LUTs that the arguments hit exactly (B
 *           interpolated for FLOAT32 input, where r is not on a grid);
 *           one table for INT8 and low-position INT16 (dla_lower_softmax.h);
 *   sum   S = sum of E over C: PDP AVG passes of 16 (padding counted as
 *           zeros, so each pass divides by exactly 16), S' = S / 16^passes;
 *   1/S'  an initial guess from the FP32 bits (magic constant, integer
 *           SDP), then three Newton steps r (2 - S' r) on SDP;
 *   out   E * 2^(pos - 4 passes) * (1/S'), rounded once to the output
 *           (nearest-even, saturated), the reciprocal read with channel
 *           stride 0.
 *
 * Integer inputs reach the float path without a conversion engine: an
 * integer SDP writes x - M + 0x4b400000 as INT32, which read as FP32 is
 * 1.5 * 2^23 + (x - M) exactly, since |x - M| < 2^22.
 *
 * Error (relative to each output, before its rounding; u = 2^-24, the
 * relative error of one FP32 rounding): E <= 3 u for integer inputs (two
 * correctly rounded table entries and a product; one entry, u, for INT8),
 * <= 36 u for FLOAT32 (x - M rounded to FP32: 32 u where |x - M| <= 32 and
 * E matters; then the tables, 4 u); the sum <= 15 u per pass, at most 4
 * passes, plus E's error; 1/S' <= 2.5 u; the final product u
 * (tests/host/vx/dla_softmax_math_test.cpp measures the tables and the
 * reciprocal). Integer inputs: <= 70 u = 4.2e-6, 0.14 LSB of INT16 and
 * 6e-4 LSB of INT8 at the saturation level, so every output is within 1
 * LSB of the CPU's; FLOAT32: <= 136 u = 8.1e-6, and terms below e^-32 of
 * the largest off by at most 1.4e-14 of it.
 */

#include "targets/dla/dla_lower.h"

#include "targets/dla/dla_lower_softmax.h"
#include "nn/nn_layers.h"

#include <cmath>
#include <vector>

namespace vdla::vx::dla {

namespace softmax {

namespace {

/* The split for grid q, input base @base, and one input step worth @unit. */
ExpSplit split(double q, double base, double unit)
{
	const double grid = 1.5 * std::ldexp(q, 23);
	ExpSplit s;
	s.round = float(grid - base);
	s.gridStart = float(grid - 256 * q);
	s.gridStep = float(q);
	s.unround = float(-grid);
	s.restStart = float(base - q / 2);
	s.restStep = float(q / 256);
	s.gridTable.resize(kLutEntries);
	s.restTable.resize(kLutEntries);
	for (size_t i = 0; i < kLutEntries; i++) {
		s.gridTable[i] = float(std::exp((double(i) - 256) * q * unit));
		s.restTable[i] = float(std::exp((-q / 2 + double(i) * q / 256) * unit));
	}
	return s;
}

} /* namespace */

ExpSplit int16Exp(int position)
{
	return split(256, kIntegerBase, std::ldexp(1.0, -position));
}

ExpSplit floatExp()
{
	return split(0.125, 0, 1);
}

std::vector<float> singleExp(int position)
{
	std::vector<float> table(kLutEntries);
	for (size_t i = 0; i < kLutEntries; i++)
		table[i] = float(std::exp(std::ldexp(double(i) - 256, -position)));
	return table;
}

} /* namespace softmax */

namespace {

using namespace softmax;

constexpr uint32_t kMaxDim = 65535;
/* Channels one PDP pass reduces: its largest kernel. */
constexpr uint32_t kPass = 16;

/* The (N, C, H, W) view: C is the softmax axis (nn_cpu.cpp, softmaxAxis). */
struct Shape {
	uint64_t n = 1, c = 1, h = 1, w = 1;
	uint64_t count() const { return n * c * h * w; }
};

Shape softmaxShape(vx_tensor tensor)
{
	const std::vector<vx_size> &d = tensor->dims;
	Shape s;
	if (d.size() <= 2) {
		s.c = d[0];
		s.n = d.size() == 2 ? d[1] : 1;
	} else {
		s.w = d[0];
		s.h = d[1];
		s.c = d[2];
		s.n = d.size() == 4 ? d[3] : 1;
	}
	return s;
}

Tensor packed(uint16_t slot, DataType type, const Shape &s)
{
	return Tensor::nchw(
		slot, 0, type, uint32_t(s.n), uint32_t(s.c), uint32_t(s.h), uint32_t(s.w));
}

/* @t (n, c, h, w) with its channels along W: (n, h, w, c). */
Tensor channelsAlongWidth(const Tensor &t)
{
	const Tensor strided = t.packed();
	Tensor view = strided;
	view.c = t.h;
	view.h = t.w;
	view.w = t.c;
	view.strideC = strided.strideH;
	view.strideH = strided.strideW;
	view.strideW = strided.strideC;
	return view;
}

/* @t (n, 1, h, w) read as (n, channels, h, w): each channel the same. */
Tensor broadcastChannels(const Tensor &t, uint32_t channels)
{
	Tensor view = t.packed();
	view.c = channels;
	view.strideC = 0;
	return view;
}

unsigned passes(uint64_t channels)
{
	unsigned count = 0;
	for (; channels > 1; channels = (channels + kPass - 1) / kPass)
		count++;
	return count;
}

} /* namespace */

bool softmaxFits(const nn::Softmax &layer, std::string &why)
{
	const vx_tensor in = layer.input, out = layer.output;
	if (!hardwareType(in->dataType) || in->dataType != out->dataType) {
		why = "the DLA computes INT8, INT16 and FLOAT32 softmax with the output of the "
		      "input's type";
		return false;
	}
	const Shape s = softmaxShape(in);
	if (s.n > kMaxDim || s.c > kMaxDim || s.h > kMaxDim || s.w > kMaxDim) {
		why = "a tensor dimension exceeds 65535";
		return false;
	}
	/* The FP32 intermediates are the largest tensors. */
	if (s.count() * 4 > (uint64_t(1) << 31)) {
		why = "softmax intermediates beyond 2 GiB";
		return false;
	}
	const int exponent = (out->dataType == VX_TYPE_FLOAT32 ? 0 : out->fixedPointPosition)
		- 4 * int(passes(s.c));
	if (exponent < -126 || exponent > 127) {
		why = "output fixed point position beyond FP32's exponents";
		return false;
	}
	return true;
}

vx_status Lowering::lowerSoftmax(vx_node node)
{
	const auto layer = std::get<nn::Softmax>(*nn::describeLayer(node));
	const vx_tensor input = layer.input, output = layer.output;
	const vx_context context = node->context;
	const Shape shape = softmaxShape(input);
	const Shape plane{ shape.n, 1, shape.h, shape.w };
	const DataType type = *hardwareType(input->dataType);
	const bool integer = type != DataType::Fp32;
	const uint32_t channels = uint32_t(shape.c);

	/* The first unit carries the node (pushUnit()). */
	vx_node carrier = node;
	auto push = [&](Unit unit) { pushUnit(std::move(unit), carrier); };
	auto newTensor = [&](DataType t, const Shape &s) {
		return packed(scratch(context, t, s.count()), t, s);
	};
	auto lut = [&](const std::vector<float> &table) {
		return Location{ kConstantSlot,
			addConstant(table.data(), table.size() * sizeof(float)) };
	};
	auto pushSdp = [&](const SdpOp &sdp) { pushSdpUnit(sdp, carrier); };
	/* Reduces packed (n, c, h, w) over c with 16-wide PDP passes, to (n, 1, h, w). */
	auto reduce = [&](const Tensor &source, PoolMethod method) {
		Tensor current = source;
		uint64_t length = shape.c;
		bool alongWidth = false;
		while (length > 1) {
			const uint64_t next = (length + kPass - 1) / kPass;
			PdpOp pdp;
			pdp.method = method;
			/* Padding to a multiple of 16: MAX ignores it, AVG counts it as
			 * zeros, so every window divides by 16 exactly. */
			pdp.includePad = true;
			pdp.kernelW = pdp.strideX = uint16_t(kPass);
			pdp.padRight = uint16_t((kPass - length % kPass) % kPass);
			pdp.src = alongWidth ? current : channelsAlongWidth(current);
			pdp.dst = newTensor(source.type, { shape.n, shape.h, shape.w, next });
			Unit unit;
			unit.pdp = pdp;
			unit.reads = { pdp.src.buffer };
			unit.writes = pdp.dst.buffer;
			push(std::move(unit));
			current = pdp.dst;
			alongWidth = true;
			length = next;
		}
		/* The input itself when there is one channel; else (n, h, w, 1)
		 * packed, which is (n, 1, h, w) packed. */
		return alongWidth ? packed(current.buffer, source.type, plane) : source;
	};

	const Tensor in = readAs(
		input, uint32_t(shape.n), channels, uint32_t(shape.h), uint32_t(shape.w), carrier);
	const Tensor max = reduce(in, PoolMethod::Max);

	/* x - M: as the FP32 1.5 * 2^23 + (x - M) for integers. */
	SdpOp centre;
	centre.src = in;
	centre.ew = broadcastChannels(max, channels);
	centre.ewOp = SdpEwOp::Add;
	centre.ewMul = -1;
	centre.ewMulFloat = -1;
	centre.round = Round::HalfEven;
	if (integer)
		centre.outOffset = kIntegerBaseBits;
	centre.dst = newTensor(integer ? DataType::Int32 : DataType::Fp32, shape);
	pushSdp(centre);
	const Tensor centred = reinterpret(centre.dst, DataType::Fp32);

	Tensor exps;
	if (type == DataType::Int8
		|| (type == DataType::Int16 && input->fixedPointPosition <= kSingleTablePosition)) {
		SdpOp sdp;
		sdp.src = centred;
		sdp.activation = SdpActivation::Lut;
		sdp.lut = lut(singleExp(input->fixedPointPosition));
		sdp.lutStartFloat = kIntegerBase - 256;
		sdp.lutStepFloat = 1;
		sdp.dst = newTensor(DataType::Fp32, shape);
		pushSdp(sdp);
		exps = sdp.dst;
	} else {
		const ExpSplit parts = integer ? int16Exp(input->fixedPointPosition) : floatExp();
		SdpOp rounded;
		rounded.src = centred;
		rounded.biasMode = SdpMode::PerTensor;
		rounded.biasFloat = parts.round;
		rounded.dst = newTensor(DataType::Fp32, shape);
		pushSdp(rounded);

		SdpOp gridPart;
		gridPart.src = rounded.dst;
		gridPart.activation = SdpActivation::Lut;
		gridPart.lut = lut(parts.gridTable);
		gridPart.lutStartFloat = parts.gridStart;
		gridPart.lutStepFloat = parts.gridStep;
		gridPart.dst = newTensor(DataType::Fp32, shape);
		pushSdp(gridPart);

		/* base + r = -(kq + 1.5 * 2^23 q - 1.5 * 2^23 q) + base + x. */
		SdpOp restPart;
		restPart.src = rounded.dst;
		restPart.biasMode = SdpMode::PerTensor;
		restPart.biasFloat = parts.unround;
		restPart.scaleMode = SdpMode::PerTensor;
		restPart.scaleFloat = -1;
		restPart.ew = centred;
		restPart.ewOp = SdpEwOp::Add;
		restPart.activation = SdpActivation::Lut;
		restPart.lut = lut(parts.restTable);
		restPart.lutStartFloat = parts.restStart;
		restPart.lutStepFloat = parts.restStep;
		restPart.dst = newTensor(DataType::Fp32, shape);
		pushSdp(restPart);

		SdpOp product;
		product.src = gridPart.dst;
		product.ew = restPart.dst;
		product.ewOp = SdpEwOp::Mul;
		product.dst = newTensor(DataType::Fp32, shape);
		pushSdp(product);
		exps = product.dst;
	}

	const Tensor sum = reduce(exps, PoolMethod::Average);

	SdpOp guess;
	guess.src = reinterpret(sum, DataType::Int32);
	guess.biasMode = SdpMode::PerTensor;
	guess.biasValue = -kReciprocalMagic;
	guess.scaleMode = SdpMode::PerTensor;
	guess.scaleMul = -1;
	guess.dst = newTensor(DataType::Int32, plane);
	pushSdp(guess);
	Tensor reciprocal = reinterpret(guess.dst, DataType::Fp32);

	for (int step = 0; step < kNewtonSteps; step++) {
		SdpOp product;
		product.src = sum;
		product.ew = reciprocal;
		product.ewOp = SdpEwOp::Mul;
		product.dst = newTensor(DataType::Fp32, plane);
		pushSdp(product);

		SdpOp next;
		next.src = product.dst;
		next.biasMode = SdpMode::PerTensor;
		next.biasFloat = -2;
		next.scaleMode = SdpMode::PerTensor;
		next.scaleFloat = -1;
		next.ew = reciprocal;
		next.ewOp = SdpEwOp::Mul;
		next.dst = newTensor(DataType::Fp32, plane);
		pushSdp(next);
		reciprocal = next.dst;
	}

	SdpOp result;
	result.src = exps;
	result.scaleMode = SdpMode::PerTensor;
	result.scaleFloat = std::ldexp(
		1.0f, (integer ? output->fixedPointPosition : 0) - 4 * int(passes(shape.c)));
	result.ew = broadcastChannels(reciprocal, channels);
	result.ewOp = SdpEwOp::Mul;
	result.round = Round::HalfEven;
	/* Never empty: the output has the input's dimensions, grouped as
	 * softmaxShape() groups them, one per (N, C, H, W) but the batch, which
	 * addressedInPlace() guarantees. */
	result.dst = *addressAs(
		output, uint32_t(shape.n), channels, uint32_t(shape.h), uint32_t(shape.w));
	pushSdp(result);
	return VX_SUCCESS;
}

} /* namespace vdla::vx::dla */
