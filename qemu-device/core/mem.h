/* SPDX-License-Identifier: MIT */
/*
 * How operations reach memory. Each tensor or byte range an operation uses
 * is an access: its element runs, and every page they touch translated and
 * checked once, before anything is read or written (a faulting operation
 * writes nothing). Inputs are then read into host "shadow" buffers, page by
 * page; outputs are written back run by run, so only element bytes are
 * ever written. Nothing here grows with the number of runs: a tensor of
 * one-byte elements with gaps costs its pages, not a record per element.
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

/* The access context of one operation. */
struct mem_ctx {
	struct vdla_core *core;
	/* Where the operation's buffers come from (and count against). */
	struct scratch_pool *pool;
	unsigned int engine;
	uint32_t context;
	/* The reset generation the operation started in: it stops when it changes. */
	uint64_t generation;
	/* The MMU as the operation found it when it started (mmu_snapshot_locked). */
	bool mmu_on;
	bool context_enabled;
	uint64_t root;			/* level-0 table of the context */
	bool faulted;
	uint64_t fault_addr;
	uint32_t fault_reason;
	bool fault_write;
};

/* Whether a reset or the device's end voided the operation of @ctx. */
bool mem_cancelled(const struct mem_ctx *ctx);

/*
 * Element runs: run_bytes contiguous bytes at each index of up to four
 * nested dimensions, at sum idx[i] * mem_stride[i] from the access's
 * address in memory and sum idx[i] * shadow_stride[i] in its shadow.
 */
struct runs {
	int ndims;
	uint64_t size[4];
	uint64_t mem_stride[4];
	uint64_t shadow_stride[4];
	uint64_t run_bytes;
};

/* Where a walk over runs is; all zero at the first run. */
struct run_cursor {
	uint64_t idx[4];
	uint64_t offset;	/* bytes of the current run already done */
	bool done;
};

struct access {
	struct runs runs;
	uint64_t va;		/* device address of the first run */
	uint64_t extent;	/* bytes from va to the end of the furthest run */
	bool write;
	bool mirror;		/* shadow offsets equal memory offsets */
	bool sram;		/* in SRAM, at offset va - VDLA_SRAM_BASE */
	uint64_t first_page;	/* va's page number (memory) */
	uint64_t *page;		/* per page from first_page: physical page | PAGE_TOUCHED */
	uint64_t pages;
	uint64_t bytes;		/* element bytes, for the counters */
};

/*
 * Prepares an access to tensor @t, whose shadow mirrors its layout from
 * t->addr. Dimensions of stride 0 add nothing to read or write. Returns 0,
 * VDLA_ERROR_MMU_FAULT (ctx records it), VDLA_ERROR_LIMIT (out of memory)
 * or VDLA_ERROR_CANCELLED; access_free() in every case.
 */
int access_tensor(struct mem_ctx *ctx, const struct tensor *t, bool write, struct access *a);
/*
 * Prepares an access to @lines lines of @line_bytes, @line_stride apart,
 * in @surfaces surfaces @surf_stride apart, from @va; packed in the shadow.
 */
int access_lines(struct mem_ctx *ctx, uint64_t va, uint64_t line_bytes, uint64_t lines,
		 uint64_t line_stride, uint64_t surfaces, uint64_t surf_stride, bool write,
		 struct access *a);
void access_free(struct mem_ctx *ctx, struct access *a);

/*
 * The extent of input @a where it is, read-only, instead of a copy: in
 * SRAM, or in guest RAM when its pages are one physically contiguous
 * stretch (*@mapped: give it back with access_unmap_input()). NULL when it
 * must be read with access_read(). The operation then reads the input
 * while it computes, as hardware would: a guest that changes it meanwhile
 * gets unspecified results, and nothing else.
 */
const uint8_t *access_map_input(struct mem_ctx *ctx, const struct access *a, bool *mapped);
void access_unmap_input(struct mem_ctx *ctx, const uint8_t *ptr, uint64_t extent);
/* Reads every run into @shadow; VDLA_ERROR_MMU_FAULT if DMA fails. */
int access_read(struct mem_ctx *ctx, const struct access *a, uint8_t *shadow);
/*
 * Writes runs from @shadow, from @cursor on, about @max_bytes of them, and
 * moves @cursor past them (cursor->done after the last). Returns 0, or
 * VDLA_ERROR_MMU_FAULT (recorded in @ctx) if the host refused a write: the
 * memory map changed since the access was checked.
 */
int access_write(struct mem_ctx *ctx, const struct access *a, const uint8_t *shadow,
		 struct run_cursor *cursor, uint64_t max_bytes);

#endif /* VDLA_MEM_H */
