/* SPDX-License-Identifier: MIT */
/*
 * Tensor descriptors as the device sees them (docs/hw-spec.md, "Tensors"):
 * plain arithmetic, shared by the host harness and the guest binaries that
 * use the CPU reference.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include "vdla_regs.h"

namespace vdla_test {

size_t dtypeSize(uint32_t dtype);

/* A tensor as the device sees it: see docs/hw-spec.md, "Tensors". */
struct TensorDesc {
	uint64_t addr = 0;
	uint32_t dtype = VDLA_DTYPE_INT8;
	uint32_t w = 1, h = 1, c = 1, n = 1;
	uint32_t strideW = 0, strideH = 0, strideC = 0, strideN = 0;

	static TensorDesc nchw(uint64_t addr, uint32_t dtype, uint32_t n, uint32_t c, uint32_t h,
			       uint32_t w);
	static TensorDesc nhwc(uint64_t addr, uint32_t dtype, uint32_t n, uint32_t c, uint32_t h,
			       uint32_t w);
	/* Byte offset of element (n, c, h, w) from addr. */
	uint64_t offset(uint32_t n, uint32_t c, uint32_t h, uint32_t w) const;
	/* Last byte offset + 1: how much memory the tensor spans. */
	uint64_t extent() const;
	uint64_t elements() const { return uint64_t(w) * h * c * n; }
};

} /* namespace vdla_test */
