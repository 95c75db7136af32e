/* SPDX-License-Identifier: MIT */
/* auto_pad and output sizes as the ONNX operator specification defines them. */

#include "conv_geometry.h"

#include "tensor_util.h"

#include <cerrno>

namespace vdla::onnx {

static std::vector<int64_t> perAxis(const OpContext &ctx, const char *name, size_t axes,
				    int64_t fallback)
{
	std::vector<int64_t> values = ctx.intsAttribute(name, std::vector<int64_t>(axes, fallback));
	ctx.require(values.size() == axes, std::string("attribute '") + name + "' has " +
						   std::to_string(values.size()) + " values for " +
						   std::to_string(axes) + " spatial axes");
	for (int64_t v : values)
		ctx.require(v >= 1, std::string("attribute '") + name + "' must be positive");
	return values;
}

/* (kernel - 1) * dilation + 1: the input a window spans; OpError if it overflows. */
static int64_t kernelExtent(const OpContext &ctx, int64_t kernel, int64_t dilation)
{
	return checkedAdd(ctx, checkedMul(ctx, kernel - 1, dilation, "attribute 'dilations'"), 1,
			  "attribute 'dilations'");
}

ConvGeometry convGeometry(const OpContext &ctx, const std::vector<int64_t> &input,
			  const std::vector<int64_t> &kernel, bool ceilMode)
{
	const size_t axes = input.size();
	ConvGeometry g;
	g.inputSize = input;
	g.kernel = kernel;
	g.strides = perAxis(ctx, "strides", axes, 1);
	g.dilations = perAxis(ctx, "dilations", axes, 1);
	g.padBegin.assign(axes, 0);
	g.padEnd.assign(axes, 0);
	g.outputSize.assign(axes, 0);

	const std::string autoPad = ctx.stringAttribute("auto_pad", "NOTSET");
	if (autoPad == "NOTSET") {
		std::vector<int64_t> pads = ctx.intsAttribute("pads", std::vector<int64_t>(2 * axes, 0));
		ctx.require(pads.size() == 2 * axes, "attribute 'pads' has " +
							     std::to_string(pads.size()) + " values for " +
							     std::to_string(axes) + " spatial axes");
		for (size_t i = 0; i < axes; i++) {
			ctx.require(pads[i] >= 0 && pads[i + axes] >= 0, "pads must not be negative");
			g.padBegin[i] = pads[i];
			g.padEnd[i] = pads[i + axes];
		}
	} else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
		for (size_t i = 0; i < axes; i++) {
			/* ceil(input / stride), which cannot overflow. */
			int64_t out = input[i] / g.strides[i] + (input[i] % g.strides[i] != 0);
			int64_t extent = kernelExtent(ctx, kernel[i], g.dilations[i]);
			int64_t reach = checkedAdd(ctx, checkedMul(ctx, out - 1, g.strides[i],
								   "attribute 'strides'"),
						   extent, "attribute 'dilations'");
			int64_t total = std::max<int64_t>(0, reach - input[i]);
			g.padBegin[i] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
			g.padEnd[i] = total - g.padBegin[i];
		}
	} else if (autoPad != "VALID") {
		throw OpError(EINVAL, "auto_pad '" + autoPad + "' is not NOTSET, SAME_UPPER, "
								 "SAME_LOWER or VALID");
	}

	for (size_t i = 0; i < axes; i++) {
		int64_t extent = kernelExtent(ctx, kernel[i], g.dilations[i]);
		int64_t padded = checkedAdd(ctx, checkedAdd(ctx, input[i], g.padBegin[i], "attribute 'pads'"),
					    g.padEnd[i], "attribute 'pads'");
		int64_t span = padded - extent;
		ctx.require(span >= 0, "the kernel (" + std::to_string(extent) +
					       " with dilation) is larger than the padded input (" +
					       std::to_string(padded) + ")");
		int64_t out = span / g.strides[i] + 1;
		if (ceilMode && span % g.strides[i]) {
			out++;
			/* The last window must start inside the input or its begin padding. */
			int64_t start;
			if (__builtin_mul_overflow(out - 1, g.strides[i], &start) ||
			    start >= input[i] + g.padBegin[i])
				out--;
		}
		g.outputSize[i] = out;
	}
	return g;
}

} /* namespace vdla::onnx */
