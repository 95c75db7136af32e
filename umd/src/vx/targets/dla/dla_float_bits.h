/* SPDX-License-Identifier: MIT */
/*
 * Integers into the SDP's float path without a conversion engine, shared
 * by softmax (dla_lower_softmax.cpp), the FP32 LRN lowerings
 * (dla_lower_lrn_float.cpp), the quantised convolution, the quantised Add
 * and dequantisation (Lowering::pushAsFloatBits()).
 */
#pragma once

#include <cstdint>

namespace vdla::vx::dla {

/*
 * 1.5 * 2^23 and its FP32 bits. An integer SDP that adds the bits to a
 * value v with |v| < 2^22 and writes INT32 writes the FP32 1.5 * 2^23 + v,
 * exactly; a float SDP subtracting 1.5 * 2^23 then gives v as FP32.
 */
constexpr float kIntegerBase = 12582912.0f;
constexpr int32_t kIntegerBaseBits = 0x4b400000;

} /* namespace vdla::vx::dla */
