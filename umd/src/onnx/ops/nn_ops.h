/* SPDX-License-Identifier: MIT */
/*
 * The files of the neural-network family (ops/nn.cpp registers them all):
 * their register functions and the few helpers they share.
 */
#pragma once

#include "../conv_geometry.h"
#include "../tensor_util.h"

#include <cerrno>

namespace vdla::onnx {

void registerConvOps(OpRegistry &registry);
void registerConvTransposeOps(OpRegistry &registry);
void registerPoolOps(OpRegistry &registry);
void registerMatMulOps(OpRegistry &registry);
void registerEinsumOps(OpRegistry &registry);
void registerNormOps(OpRegistry &registry);
void registerSoftmaxOps(OpRegistry &registry);
void registerTopKOps(OpRegistry &registry);
void registerRnnOps(OpRegistry &registry);

/* The product of dims [begin, end) of a shape. */
inline int64_t shapeProduct(const std::vector<int64_t> &shape, size_t begin, size_t end)
{
	int64_t product = 1;
	for (size_t i = begin; i < end && i < shape.size(); i++)
		product *= shape[i];
	return product;
}


/*
 * Steps a row-major position over dims by one (the last axis fastest);
 * false when it wraps around to all zeros.
 */
bool nextPosition(std::vector<int64_t> &position, const std::vector<int64_t> &dims);

/*
 * Where the sliding windows of a Conv-like geometry read the input: for
 * each kernel position k and output position o (both row-major over their
 * spatial axes), offsets[k * outputSize + o] is the row-major spatial offset
 * of the input element, or one of the two markers below.
 */
struct WindowTable {
	static constexpr int64_t kInPadding = -1;
	/* Past the end padding, where ceil_mode lets a window reach. */
	static constexpr int64_t kBeyondPadding = -2;

	int64_t kernelSize = 0;
	int64_t outputSize = 0;
	int64_t inputSize = 0;
	std::vector<int64_t> offsets;
};

/*
 * The table of a geometry; std::length_error (checkScratch) before it is
 * built if its kernelSize * outputSize offsets, sized from attributes,
 * exceed the size of one tensor.
 */
WindowTable windowTable(const OpContext &ctx, const ConvGeometry &geometry);

} /* namespace vdla::onnx */
