/* SPDX-License-Identifier: MIT */
/*
 * IEEE 754 binary16 (ONNX float16), which C++17 has no type for: a float16
 * tensor holds the 16-bit patterns, read and written through raw(). The
 * kernels compute in float or double and convert at the edges.
 */
#pragma once

#include <vdla/onnx.h>

#include <cstdint>

namespace vdla::onnx {

/* The value of a binary16 pattern; exact, as float holds every binary16 value. */
float float16ToFloat(uint16_t bits);

/*
 * value rounded once to the nearest binary16, ties to even: subnormals
 * below 2^-14, infinity from 65520 on, NaN kept a NaN of the same sign.
 */
uint16_t float16FromDouble(double value);

/* A float16 tensor widened to float, exactly. */
Tensor float16ToFloatTensor(const Tensor &x);

/* A float or double tensor rounded element by element to float16. */
Tensor float16FromTensor(const Tensor &x);

} /* namespace vdla::onnx */
