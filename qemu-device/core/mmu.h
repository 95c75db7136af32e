/* SPDX-License-Identifier: MIT */
/*
 * Device address translation (docs/hw-spec.md, "Device addresses"): SRAM
 * window, MMU page-table walks with a small TLB, permission checks.
 */
#ifndef VDLA_MMU_H
#define VDLA_MMU_H

#include <stdbool.h>
#include <stdint.h>

#include "mem.h"

struct translation {
	uint64_t addr;	/* guest-physical address or SRAM offset */
	uint64_t len;	/* bytes valid from addr (to the end of the page or range) */
	bool sram;
};

/*
 * Translates device address @va for an access of up to @len bytes. On a
 * fault, records it in @ctx (the first one only) and returns false.
 */
bool mmu_translate(struct mem_ctx *ctx, uint64_t va, uint64_t len, bool write,
		   struct translation *tr);
void mmu_record_fault(struct mem_ctx *ctx, uint64_t addr, uint32_t reason, bool write);
/* Whether the whole page of guest memory at @pa is memory DMA may use. */
bool mmu_page_is_memory(struct mem_ctx *ctx, uint64_t pa);
/* The same for [pa, pa + len). */
bool mmu_range_is_memory(struct mem_ctx *ctx, uint64_t pa, uint64_t len);
/*
 * Captures the MMU settings an operation uses for its whole run; called with
 * the core lock held as the operation starts, so that translation takes no
 * lock but the TLB's.
 */
void mmu_snapshot_locked(struct vdla_core *core, struct mem_ctx *ctx);

#endif /* VDLA_MMU_H */
