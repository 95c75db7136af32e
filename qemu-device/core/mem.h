/* SPDX-License-Identifier: MIT */
/*
 * How operations reach memory: tensors are described, every page they touch
 * is translated and checked first (a faulting operation writes nothing), then
 * inputs are gathered into host "shadow" buffers that mirror the device
 * layout, and outputs are scattered back run by run, so only element bytes
 * are ever read or written.
 */
#ifndef VDLA_MEM_H
#define VDLA_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "core_internal.h"

/* A tensor descriptor (docs/hw-spec.md, "Tensors"), validated. */
struct tensor {
	uint64_t addr;
	uint32_t dtype;
	uint32_t esize;
	uint32_t dim[4];	/* W, H, C, N (enum vdla_dim) */
	uint64_t stride[4];	/* bytes */
};

static inline uint64_t tensor_offset(const struct tensor *t, uint32_t n, uint32_t c, uint32_t h,
				     uint32_t w)
{
	return n * t->stride[VDLA_DIM_N] + c * t->stride[VDLA_DIM_C] +
	       h * t->stride[VDLA_DIM_H] + w * t->stride[VDLA_DIM_W];
}

static inline uint64_t tensor_elements(const struct tensor *t)
{
	return (uint64_t)t->dim[0] * t->dim[1] * t->dim[2] * t->dim[3];
}

/* Last byte offset + 1. */
uint64_t tensor_extent(const struct tensor *t);
uint32_t dtype_size(uint32_t dtype);

/* Loads the descriptor at @offset of a D-register snapshot; VDLA_ERROR_*. */
int tensor_load(const uint32_t *regs, uint32_t offset, struct tensor *t);
bool tensor_same_shape(const struct tensor *a, const struct tensor *b);

/* A resolved piece of an access: guest-physical or SRAM bytes. */
struct span {
	uint64_t addr;		/* guest-physical address, or SRAM offset */
	uint64_t shadow;	/* offset in the shadow buffer */
	uint32_t len;
	uint32_t sram;
};

struct plan {
	struct span *span;
	size_t count;
	size_t capacity;
	uint64_t bytes;		/* element bytes covered */
};

/* The access context of one operation. */
struct mem_ctx {
	struct vdla_core *core;
	unsigned int engine;
	uint32_t context;
	/* The MMU as the operation found it when it started (mmu_snapshot_locked). */
	bool mmu_on;
	bool context_enabled;
	uint64_t root;			/* level-0 table of the context */
	bool faulted;
	uint64_t fault_addr;
	uint32_t fault_reason;
	bool fault_write;
};

/*
 * Adds every element run of @t to @plan, translated; shadow offsets are
 * relative to t->addr. Returns 0, VDLA_ERROR_MMU_FAULT (ctx records it) or
 * VDLA_ERROR_LIMIT (out of memory).
 */
int plan_tensor(struct mem_ctx *ctx, const struct tensor *t, bool write, struct plan *plan);
/* Adds the raw range [addr, addr+len) at shadow offset @shadow. */
int plan_range(struct mem_ctx *ctx, uint64_t addr, uint64_t len, uint64_t shadow, bool write,
	       struct plan *plan);
void plan_free(struct plan *plan);

/* Reads every span into @shadow; VDLA_ERROR_MMU_FAULT if DMA fails. */
int plan_read(struct mem_ctx *ctx, const struct plan *plan, uint8_t *shadow);
/* Writes every span from @shadow (spans were checked when planned). */
void plan_write(struct vdla_core *core, const struct plan *plan, const uint8_t *shadow);

#endif /* VDLA_MEM_H */
