/* SPDX-License-Identifier: MIT */
/*
 * The signal-processing operators of opset 17 (ops/signal.cpp: DFT, STFT;
 * ops/window.cpp: the windows and MelWeightMatrix), and what they share.
 * They compute in double and store the result in the tensor type once.
 */
#pragma once

#include "../tensor_util.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vdla::onnx {

void registerWindowOps(OpRegistry &registry);

constexpr double kPi = 3.14159265358979323846;

/* The one element of an int32 or int64 input; OpError naming `what` otherwise. */
int64_t scalarInteger(const OpContext &ctx, size_t input, const char *what);

/* The elements of a float16, float or double tensor, exactly, as double. */
std::vector<double> floatingElements(const OpContext &ctx, const Tensor &tensor,
				     const char *what);

/*
 * values in a new tensor of `type` and `shape`: rounded once to float16,
 * float or double, truncated toward zero for the integer types, as Cast does.
 */
Tensor tensorFromDoubles(const OpContext &ctx, const std::vector<double> &values,
			 DataType type, std::vector<int64_t> shape);

} /* namespace vdla::onnx */
