/* SPDX-License-Identifier: MIT */
/*
 * The rules of libvdla's data movement (nn_rearrange.h): which parameters
 * and shapes a rearrangement takes, and where each output element comes
 * from. The CPU node and the DLA lowering both follow them.
 */

#include "nn/nn_layers.h"
#include "nn/nn_rearrange.h"
#include "framework/object.h"

#include <algorithm>

namespace vdla::vx::nn {

namespace {

using Dims = std::vector<vx_size>;

/* Dimension @d of @dims, 1 beyond its rank. */
vx_size at(const Dims &dims, size_t d)
{
	return d < dims.size() ? dims[d] : 1;
}

vx_size elements(const Dims &dims)
{
	vx_size count = 1;
	for (vx_size d : dims)
		count *= d;
	return count;
}

bool movableType(vx_enum type)
{
	return type == VX_TYPE_INT8 || type == VX_TYPE_UINT8 || type == VX_TYPE_INT16
		|| type == VX_TYPE_INT32 || type == VX_TYPE_FLOAT32;
}

/* The output dimensions of @layer from @in, or empty when they do not follow. */
Dims outputDimsOf(const Rearrangement &layer, const Dims &in, const Dims &given)
{
	const vx_uint32 b = layer.block;
	switch (layer.mode) {
	case kRearrangeReshape:
		return elements(given) == elements(in) ? given : Dims{};
	case kRearrangePermute: {
		Dims out(in.size());
		for (size_t d = 0; d < in.size(); d++)
			out[d] = in[layer.permutation[d]];
		return out;
	}
	case kRearrangeSlice:
		if (given.size() != in.size())
			return {};
		for (size_t d = 0; d < in.size(); d++) {
			/* The last element taken lies inside the input. */
			if (layer.start[d] + (given[d] - 1) * vx_size(layer.step[d]) >= in[d])
				return {};
		}
		return given;
	case kRearrangeDepthToSpace:
		if (at(in, 2) % (vx_size(b) * b))
			return {};
		return in.size() == 3 ? Dims{ in[0] * b, in[1] * b, in[2] / b / b }
				      : Dims{ in[0] * b, in[1] * b, in[2] / b / b, in[3] };
	case kRearrangeDepthStack: {
		/* [W, H, D, N * C] to [W, H, C * b, N * OD]. */
		if (given.size() != 4 || in.size() != 4 || given[0] != in[0] || given[1] != in[1]
			|| given[2] % b)
			return {};
		const vx_size channels = given[2] / b;
		if (in[3] % channels || given[3] % (in[3] / channels))
			return {};
		return given;
	}
	default: /* kRearrangeSpaceToDepth */
		if (in[0] % b || in[1] % b)
			return {};
		return in.size() == 3 ? Dims{ in[0] / b, in[1] / b, in[2] * b * b }
				      : Dims{ in[0] / b, in[1] / b, in[2] * b * b, in[3] };
	}
}

} /* namespace */

vx_status resolveRearrangement(vx_tensor input, const RearrangementParams &params,
	vx_tensor output, Rearrangement &layer, std::vector<vx_size> &outputDims)
{
	layer = {};
	layer.input = input;
	layer.output = output;
	layer.mode = params.mode;
	layer.block = params.block;
	layer.columnRowDepth = params.columnRowDepth == vx_true_e;
	std::copy(std::begin(params.permutation), std::end(params.permutation),
		layer.permutation.begin());
	std::copy(std::begin(params.start), std::end(params.start), layer.start.begin());
	std::copy(std::begin(params.step), std::end(params.step), layer.step.begin());

	if (params.mode < kRearrangeReshape || params.mode > kRearrangeDepthStack
		|| (params.columnRowDepth != vx_true_e && params.columnRowDepth != vx_false_e))
		return VX_ERROR_INVALID_VALUE;
	const Dims &in = input->dims;
	const size_t rank = in.size();
	if (params.mode != kRearrangeReshape && rank > 4)
		return VX_ERROR_INVALID_DIMENSION;
	if (params.mode == kRearrangePermute) {
		/* A permutation of the input's dimensions, the rest in place. */
		unsigned seen = 0;
		for (size_t d = 0; d < 4; d++) {
			const vx_uint32 p = params.permutation[d];
			if ((d < rank && p >= rank) || (d >= rank && p != d) || (seen & (1u << p)))
				return VX_ERROR_INVALID_VALUE;
			seen |= 1u << p;
		}
	}
	if (params.mode == kRearrangeSlice) {
		for (size_t d = 0; d < 4; d++)
			if (params.step[d] < 1 || params.start[d] >= at(in, d))
				return VX_ERROR_INVALID_VALUE;
	}
	if (params.mode == kRearrangeDepthToSpace || params.mode == kRearrangeSpaceToDepth) {
		if (params.block < 1 || params.block > 65535)
			return VX_ERROR_INVALID_VALUE;
		if (rank < 3)
			return VX_ERROR_INVALID_DIMENSION;
	}
	if (!movableType(input->dataType)
		|| (output->resolved() && output->dataType != input->dataType))
		return VX_ERROR_INVALID_FORMAT;
	if (params.mode == kRearrangeDepthStack
		&& (params.block < 1 || params.step[0] < 1 || params.step[1] < 1))
		return VX_ERROR_INVALID_VALUE;
	/* Reshape, Slice and DepthStack: the output says its shape. */
	if ((params.mode == kRearrangeReshape || params.mode == kRearrangeSlice
		    || params.mode == kRearrangeDepthStack)
		&& output->dims.empty())
		return VX_ERROR_INVALID_DIMENSION;
	outputDims = outputDimsOf(layer, in, output->dims);
	if (outputDims.empty() || (!output->dims.empty() && output->dims != outputDims))
		return VX_ERROR_INVALID_DIMENSION;
	return VX_SUCCESS;
}

static_assert(std::tuple_size<decltype(Concatenation::inputs)>::value == kMaxConcatenated,
	"room for every input");

vx_status resolveConcatenation(Concatenation &layer, std::vector<vx_size> &outputDims)
{
	if (layer.count < 1 || layer.count > kMaxConcatenated || layer.dimension > 3)
		return VX_ERROR_INVALID_VALUE;
	const vx_tensor first = layer.inputs[0];
	layer.input = first;
	const Dims &dims = first->dims;
	if (dims.size() > 4 || layer.dimension >= dims.size())
		return VX_ERROR_INVALID_DIMENSION;
	outputDims = dims;
	outputDims[layer.dimension] = 0;
	for (vx_uint32 k = 0; k < layer.count; k++) {
		const vx_tensor t = layer.inputs[k];
		if (!t || !movableType(t->dataType) || t->dataType != first->dataType)
			return VX_ERROR_INVALID_FORMAT;
		if (t->dims.size() != dims.size())
			return VX_ERROR_INVALID_DIMENSION;
		for (size_t d = 0; d < dims.size(); d++)
			if (d != layer.dimension && t->dims[d] != dims[d])
				return VX_ERROR_INVALID_DIMENSION;
		outputDims[layer.dimension] += t->dims[layer.dimension];
	}
	if (layer.output->resolved() && layer.output->dataType != first->dataType)
		return VX_ERROR_INVALID_FORMAT;
	if (!layer.output->dims.empty() && layer.output->dims != outputDims)
		return VX_ERROR_INVALID_DIMENSION;
	return VX_SUCCESS;
}

bool rearrangedSource(
	const Rearrangement &layer, std::array<vx_size, 4> out, std::array<vx_size, 4> &in)
{
	in = out;
	const vx_size b = layer.block;
	switch (layer.mode) {
	case kRearrangeDepthStack: {
		const vx_size channels = at(layer.output->dims, 2) / b;
		const vx_size depths = at(layer.output->dims, 3) / (at(layer.input->dims, 3) / channels);
		const vx_size n = out[3] / depths, o = out[3] % depths;
		const vx_size c = out[2] / b, k = out[2] % b;
		const int64_t d = int64_t(o * layer.step[0] + k * layer.step[1]) - layer.start[0];
		if (d < 0 || d >= int64_t(at(layer.input->dims, 2)))
			return false;
		in = { out[0], out[1], vx_size(d), n * channels + c };
		return true;
	}
	case kRearrangePermute:
		for (size_t d = 0; d < 4; d++)
			in[layer.permutation[d]] = out[d];
		break;
	case kRearrangeSlice:
		for (size_t d = 0; d < 4; d++)
			in[d] = layer.start[d] + out[d] * layer.step[d];
		break;
	case kRearrangeDepthToSpace: {
		const vx_size phase = out[1] % b * b + out[0] % b;
		const vx_size channels = at(layer.output->dims, 2);
		in = { out[0] / b, out[1] / b,
			layer.columnRowDepth ? out[2] * b * b + phase : phase * channels + out[2],
			out[3] };
		break;
	}
	case kRearrangeSpaceToDepth: {
		/* Output channel k * C + c holds phase k of input channel c. */
		const vx_size channels = at(layer.input->dims, 2);
		const vx_size phase = out[2] / channels;
		in = { out[0] * b + phase % b, out[1] * b + phase / b, out[2] % channels, out[3] };
		break;
	}
	default:
		break;
	}
	return true;
}

} /* namespace vdla::vx::nn */
