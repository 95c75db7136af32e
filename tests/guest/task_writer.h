/* SPDX-License-Identifier: MIT */
/*
 * TaskWriter: a task of the vdla_task.h ABI (header + 512-byte operations)
 * for a job submitted from the guest. Operations name their buffers by
 * address-list index and offset; the writer keeps the consumer links and
 * dependency counts consistent (docs/firmware.md) and writes the descriptor
 * into a mapped BO.
 *
 * No googletest and no CPU reference here: the guest benchmarks use it.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <drm/vdla_task.h>

#include "tensor_desc.h"

namespace guest {

/* A place in a buffer of the address list. */
vdla_task_address taskAddress(uint16_t index, uint64_t offset = 0);
/* A packed NCHW tensor at (@index, @offset). */
vdla_task_surface packedSurface(uint16_t index, uint64_t offset, uint32_t dtype, uint32_t n,
	uint32_t c, uint32_t h, uint32_t w);
/* A tensor that flies between fused engines: no address, packed strides. */
vdla_task_surface flyingSurface(uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w);
/* Bytes a packed surface spans. */
uint64_t surfaceBytes(const vdla_task_surface &s);

class TaskWriter
{
public:
	/* An operation of @engine with no links and no fused parent. */
	static vdla_task_op newOp(uint8_t engine);

	/* Each appends an operation and returns its index. */
	uint16_t add(const vdla_task_op &op);
	uint16_t bdma(const vdla_task_bdma &b);
	/* A BDMA copy of @bytes contiguous bytes. */
	uint16_t copy(uint16_t srcIndex, uint64_t srcOffset, uint16_t dstIndex, uint64_t dstOffset,
		uint32_t bytes);
	uint16_t conv(const vdla_task_conv &c);
	/* With VDLA_TASK_FLY_IN in @s.fly the op is fused to the previous one. */
	uint16_t sdp(const vdla_task_sdp &s);

	/* A consumer link @producer -> @consumer, counted in the consumer. */
	void link(uint16_t producer, uint16_t consumer, uint8_t event = VDLA_EVENT_OP_COMPLETED);

	vdla_task_op &op(uint16_t index) { return ops_.at(index); }
	uint32_t numOps() const { return uint32_t(ops_.size()); }
	void clear() { ops_.clear(); }

	/* The header of this task with its ops at @opsOffset. */
	vdla_task_header header(uint32_t opsOffset = sizeof(vdla_task_header)) const;
	/* Bytes of the descriptor: ops at @opsOffset. */
	size_t size(uint32_t opsOffset = sizeof(vdla_task_header)) const;
	/*
	 * Writes header and operations at @dst, which holds @capacity bytes;
	 * false (nothing written) if they do not fit.
	 */
	bool write(void *dst, size_t capacity, uint32_t opsOffset = sizeof(vdla_task_header)) const;

private:
	std::vector<vdla_task_op> ops_;
};

} /* namespace guest */
