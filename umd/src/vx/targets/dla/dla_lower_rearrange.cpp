/* SPDX-License-Identifier: MIT */
/*
 * libvdla's data movement (nn_rearrange.h) on the RUBIK engine
 * (docs/hw-spec.md, "RUBIK"; docs/openvx.md, "Data movement"). RUBIK reads
 * and writes through each tensor's strides, so every mode is one or a few
 * operations and no scratch:
 *
 * - Reshape: RESHAPE.
 * - Permute: PERMUTE.
 * - Slice: a PERMUTE that changes no dimension, reading the input from the
 *   first element taken, each stride times its step.
 * - DepthToSpace CRD: CONTRACT, whose channel order is CRD's.
 * - DepthToSpace DCR and SpaceToDepth: one such strided copy per phase
 *   (i, j) of the block: the input's channels k * C .. (k + 1) * C - 1,
 *   k = i * b + j, are the output's rows i, i + b, ... and columns j, j + b,
 *   ... (and the inverse).
 * - DepthStack: strided copies of the taps' depths, zeros for the padding
 *   (pushDepthStack()).
 * - Concatenation: one strided copy per input, into its part of the output.
 */

#include "targets/dla/dla_lower.h"
#include "nn/nn_layers.h"
#include "nn/nn_rearrange.h"

#include <algorithm>

namespace vdla::vx::dla {

namespace {

/* The largest block whose phases (one RUBIK operation each) a task takes. */
constexpr vx_uint32 kMaxPhaseBlock = 16;

/* @t's dimension @d, W = 0 to N = 3. */
uint32_t &dimOf(Tensor &t, size_t d)
{
	uint32_t *dims[4] = { &t.w, &t.h, &t.c, &t.n };
	return *dims[d];
}

uint32_t dimOf(const Tensor &t, size_t d)
{
	return dimOf(const_cast<Tensor &>(t), d);
}

uint32_t &strideOf(Tensor &t, size_t d)
{
	uint32_t *strides[4] = { &t.strideW, &t.strideH, &t.strideC, &t.strideN };
	return *strides[d];
}

/* An identity PERMUTE: a strided copy of @src's elements to @dst's. */
RubikOp stridedCopy(const Tensor &src, const Tensor &dst)
{
	RubikOp op;
	op.mode = RubikMode::Permute;
	op.src = src;
	op.dst = dst;
	return op;
}

} /* namespace */

bool concatenationFits(const nn::Concatenation &layer, std::string &why)
{
	for (vx_uint32 k = 0; k < layer.count; k++)
		if (!tensorFits(layer.inputs[k], why))
			return false;
	return tensorFits(layer.output, why);
}

bool rearrangementFits(const nn::Rearrangement &layer, std::string &why)
{
	for (vx_tensor t : { layer.input, layer.output })
		if (!tensorFits(t, why))
			return false;
	/* CONTRACT's block, or one copy per phase of the block. */
	if ((layer.mode == nn::kRearrangeDepthToSpace || layer.mode == nn::kRearrangeSpaceToDepth)
		&& layer.block > kMaxPhaseBlock) {
		why = "a block above 16";
		return false;
	}
	if (layer.mode == nn::kRearrangeDepthStack) {
		/* Up to three copies per image and tap: a few thousand operations. */
		const vx_size images = layer.input->dims[3] / (layer.output->dims[2] / layer.block);
		if (images * layer.block > 1024) {
			why = "a depth stack of more than 1024 images times taps";
			return false;
		}
	}
	return true;
}

void Lowering::pushRubikUnit(const RubikOp &op, vx_node &node)
{
	Unit unit;
	unit.rubik = op;
	unit.reads = { op.src.buffer };
	unit.writes = op.dst.buffer;
	pushUnit(std::move(unit), node);
}

vx_status Lowering::lowerRearrangement(vx_node node)
{
	const auto layer = std::get<nn::Rearrangement>(*nn::describeLayer(node));
	const Tensor in = hardwareTensor(layer.input).packed();
	Tensor out = hardwareTensor(layer.output).packed();
	vx_node carrier = node;
	auto push = [&](const RubikOp &op) { pushRubikUnit(op, carrier); };

	switch (layer.mode) {
	case nn::kRearrangeReshape: {
		RubikOp op;
		op.mode = RubikMode::Reshape;
		op.src = in;
		op.dst = out;
		push(op);
		break;
	}
	case nn::kRearrangePermute: {
		RubikOp op = stridedCopy(in, out);
		for (size_t d = 0; d < 4; d++)
			op.perm[d] = Dim(layer.permutation[d]);
		push(op);
		break;
	}
	case nn::kRearrangeSlice: {
		Tensor src = in;
		for (size_t d = 0; d < 4; d++) {
			src.offset += uint64_t(layer.start[d]) * strideOf(src, d);
			strideOf(src, d) *= layer.step[d];
			dimOf(src, d) = dimOf(out, d);
		}
		push(stridedCopy(src, out));
		break;
	}
	case nn::kRearrangeDepthStack:
		pushDepthStack(layer, in, out, carrier);
		break;
	case nn::kRearrangeDepthToSpace:
		if (layer.columnRowDepth) {
			RubikOp op;
			op.mode = RubikMode::Contract;
			op.src = in;
			op.dst = out;
			op.blockX = op.blockY = uint16_t(layer.block);
			push(op);
			break;
		}
		[[fallthrough]];
	default: {
		/* The space side (the output of DepthToSpace, the input of
		 * SpaceToDepth) walked by phase; the depth side by channel block. */
		const bool toSpace = layer.mode == nn::kRearrangeDepthToSpace;
		const Tensor &space = toSpace ? out : in, &depth = toSpace ? in : out;
		const uint32_t b = layer.block, channels = space.c;
		for (uint32_t i = 0; i < b; i++) {
			for (uint32_t j = 0; j < b; j++) {
				Tensor grid = space;
				grid.offset += uint64_t(i) * space.strideH + uint64_t(j) * space.strideW;
				grid.strideH *= b;
				grid.strideW *= b;
				grid.h = depth.h;
				grid.w = depth.w;
				Tensor block = depth;
				block.offset += uint64_t(i * b + j) * channels * depth.strideC;
				block.c = channels;
				push(toSpace ? stridedCopy(block, grid) : stridedCopy(grid, block));
			}
		}
		break;
	}
	}
	return VX_SUCCESS;
}

/*
 * DepthStack: per image n and tap k, the depths o whose input depth
 * o * stride + k * dilation - pad lies inside the input are one strided
 * copy (the input's N * C dimension walks the channels, its depth the
 * outputs' o); the others, the padding, a copy of a zero row repeated by
 * strides of 0 from the constant pool.
 */
void Lowering::pushDepthStack(
	const nn::Rearrangement &layer, const Tensor &in, const Tensor &out, vx_node &carrier)
{
	const int64_t taps = layer.block, pad = layer.start[0];
	const int64_t stride = layer.step[0], dilation = layer.step[1];
	const uint32_t channels = out.c / uint32_t(taps), images = in.n / channels;
	const int64_t depths = out.n / images, depth = in.c;
	const std::vector<uint8_t> zeros(size_t(out.w) * dataTypeSize(out.type), 0);
	const uint64_t zeroRow = addConstant(zeros.data(), zeros.size());
	auto push = [&](const RubikOp &op) { pushRubikUnit(op, carrier); };
	/* Output depths [first, last) of image n, tap k. */
	auto target = [&](uint32_t n, int64_t k, int64_t first, int64_t last) {
		Tensor t = out;
		t.offset += uint64_t(n * depths + first) * out.strideN + uint64_t(k) * out.strideC;
		t.c = channels;
		t.strideC = out.strideC * uint32_t(taps);
		t.n = uint32_t(last - first);
		return t;
	};
	auto zeroFill = [&](uint32_t n, int64_t k, int64_t first, int64_t last) {
		if (first >= last)
			return;
		Tensor dst = target(n, k, first, last);
		Tensor src = Tensor::nchw(kConstantSlot, zeroRow, out.type, dst.n, dst.c, dst.h, dst.w);
		src.strideW = dataTypeSize(out.type);
		src.strideH = src.strideC = src.strideN = 0;
		push(stridedCopy(src, dst));
	};
	for (uint32_t n = 0; n < images; n++) {
		for (int64_t k = 0; k < taps; k++) {
			/* o * stride + k * dilation - pad within [0, depth). */
			const int64_t shift = k * dilation - pad;
			int64_t first = shift >= 0 ? 0 : (-shift + stride - 1) / stride;
			int64_t last = depth - 1 - shift < 0 ? 0 : (depth - 1 - shift) / stride + 1;
			first = std::min(first, depths);
			last = std::max(first, std::min(last, depths));
			zeroFill(n, k, 0, first);
			zeroFill(n, k, last, depths);
			if (first >= last)
				continue;
			Tensor src = in;
			src.offset += uint64_t(n) * channels * in.strideN
				+ uint64_t(first * stride + shift) * in.strideC;
			src.c = channels;
			src.n = uint32_t(last - first);
			const uint32_t depthStride = in.strideC;
			src.strideC = in.strideN;
			src.strideN = depthStride * uint32_t(stride);
			push(stridedCopy(src, target(n, k, first, last)));
		}
	}
}

vx_status Lowering::lowerConcatenation(vx_node node)
{
	const auto layer = std::get<nn::Concatenation>(*nn::describeLayer(node));
	const Tensor out = hardwareTensor(layer.output).packed();
	vx_node carrier = node;
	uint64_t start = 0;
	/* Each input a strided copy into its part of the output. */
	for (vx_uint32 k = 0; k < layer.count; k++) {
		const Tensor in = hardwareTensor(layer.inputs[k]).packed();
		Tensor part = out;
		part.offset += start * strideOf(part, layer.dimension);
		for (size_t d = 0; d < 4; d++)
			dimOf(part, d) = dimOf(in, d);
		start += dimOf(in, layer.dimension);
		pushRubikUnit(stridedCopy(in, part), carrier);
	}
	return VX_SUCCESS;
}

} /* namespace vdla::vx::dla */
