/* SPDX-License-Identifier: MIT */
/*
 * The spatial geometry of Conv-like operators (Conv, ConvInteger,
 * QLinearConv, ConvTranspose's input side, and the pools): kernel, strides,
 * dilations and begin/end pads per spatial axis, from the attributes and
 * auto_pad, and the output size they give.
 */
#pragma once

#include "op_kernel.h"

#include <vector>

namespace vdla::onnx {

struct ConvGeometry {
	/* Per spatial axis. */
	std::vector<int64_t> kernel;
	std::vector<int64_t> strides;
	std::vector<int64_t> dilations;
	std::vector<int64_t> padBegin;
	std::vector<int64_t> padEnd;
	std::vector<int64_t> inputSize;
	std::vector<int64_t> outputSize;
};

/*
 * input is the spatial size of the input, kernel the kernel's. ceilMode is
 * the pools' ceil_mode (an output window may start in the end padding only
 * if it starts inside the input or begin padding).
 */
ConvGeometry convGeometry(const OpContext &ctx, const std::vector<int64_t> &input,
			  const std::vector<int64_t> &kernel, bool ceilMode = false);

} /* namespace vdla::onnx */
