/* SPDX-License-Identifier: MIT */
/*
 * The quantisation and resampling family (ops/quant*.cpp, resize.cpp,
 * sampling.cpp, detection.cpp, det_unique.cpp): the register functions of
 * its files, and the integer rules its kernels share. These
 * rules are the ones the accelerator must reproduce bit for bit
 * (docs/onnx.md, "Integer rules of the quantised operators").
 */
#pragma once

#include "../tensor_util.h"

#include <cstdint>
#include <vector>

namespace vdla::onnx {

void registerQuantLinearOps(OpRegistry &registry);
void registerQuantConvOps(OpRegistry &registry);
void registerQuantMatMulOps(OpRegistry &registry);
/* com.microsoft.QLinearAdd: the fused form of a QDQ Add. */
void registerQuantAddOps(OpRegistry &registry);
void registerResizeOps(OpRegistry &registry);
void registerDetectionOps(OpRegistry &registry);
void registerDetUniqueOps(OpRegistry &registry);
void registerSamplingOps(OpRegistry &registry);

/*
 * Rounds to the nearest integer, a tie (a fraction of exactly .5) to the
 * even neighbour, whatever the floating-point environment's rounding mode:
 * 2.5 -> 2, 3.5 -> 4, -2.5 -> -2. NaN gives 0.
 */
double roundHalfToEven(double value);

/*
 * round(value) + zeroPoint, saturated to the range of Q (int8 or uint8):
 * the last step of QuantizeLinear, DynamicQuantizeLinear, QLinearConv and
 * QLinearMatMul. The rounding comes first, the zero point is added to the
 * rounded integer, and the sum is clamped to [min(Q), max(Q)].
 */
template<typename Q>
Q roundAddSaturate(double value, int32_t zeroPoint);

/*
 * Requantisation of an int32 accumulator (QLinearConv, QLinearMatMul):
 * float32(accumulator) * multiplier, both in float32, then
 * roundAddSaturate. multiplier is realMultiplier()'s.
 */
template<typename Q>
Q requantise(int32_t accumulator, float multiplier, int32_t zeroPoint);

/* (inputScale * weightScale) / outputScale, each step in float32. */
float realMultiplier(float inputScale, float weightScale, float outputScale);

/*
 * The values of an optional zero point of int8 or uint8 (or int32, for
 * DequantizeLinear) as int32; {0} when absent. `what` names the input.
 */
std::vector<int32_t> zeroPointValues(const OpContext &ctx, size_t input, const char *what);
/* The values of a float scale input; each must be finite and positive. */
std::vector<float> scaleValues(const OpContext &ctx, size_t input, const char *what);

/* Checks that an int8/uint8 operand has the type of its zero point. */
void requireQuantType(const OpContext &ctx, const Tensor &value, size_t zeroPointInput,
		      const char *what);

} /* namespace vdla::onnx */
