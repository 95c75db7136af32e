/* SPDX-License-Identifier: MIT */
/*
 * The CPU reference (tests/host/reference) in the terms of libvdla's
 * TaskBuilder: reference parameters as typed operations, and reference
 * tensors stored to and loaded from packed NCHW memory. Shared by the host
 * tests of the builder (tests/host/umd) and the guest suite
 * (tests/guest/umd).
 */
#pragma once

#include <cstdint>
#include <vector>

#include <vdla/task_builder.h>

#include "reference.h"

namespace umd_test {

vdla::DataType dataType(uint32_t dtype);
/* A packed NCHW tensor of @t's type and shape at (@buffer, @offset). */
vdla::Tensor tensorAt(uint16_t buffer, uint64_t offset, const vdla_ref::Tensor &t);
/* The CPU reference's packed NCHW conversions. */
using vdla_ref::loadTensor;
using vdla_ref::storeTensor;
using vdla_ref::tensorBytes;
/* Little-endian int32 values, e.g. a per-channel bias. */
void storeInt32s(uint8_t *dst, const std::vector<int32_t> &values);

vdla::ConvOp convOp(const vdla::Tensor &src, const vdla::Tensor &wgt, const vdla::Tensor &dst,
	const vdla_ref::ConvParams &p);
/* Per-tensor parameters; a per-channel bias is read from @bias. */
vdla::SdpOp sdpOp(const vdla::Tensor &src, const vdla::Tensor &dst, const vdla_ref::SdpParams &p,
	vdla::Location bias = {});
vdla::PdpOp pdpOp(const vdla::Tensor &src, const vdla::Tensor &dst, const vdla_ref::PdpParams &p);

/* Compares @size bytes, naming the first difference. */
::testing::AssertionResult sameBytes(const uint8_t *expected, const uint8_t *got, size_t size);

} /* namespace umd_test */
