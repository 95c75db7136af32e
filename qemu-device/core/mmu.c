// SPDX-License-Identifier: MIT
#include "mmu.h"

#include <string.h>

/* Page-table entries are little endian; so are the hosts we build for. */
static inline uint64_t le64_to_host(uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return __builtin_bswap64(v);
#else
	return v;
#endif
}

void mmu_record_fault(struct mem_ctx *ctx, uint64_t addr, uint32_t reason, bool write)
{
	if (ctx->faulted)
		return;
	ctx->faulted = true;
	ctx->fault_addr = addr;
	ctx->fault_reason = reason;
	ctx->fault_write = write;
}

void mmu_reset_locked(struct vdla_core *core)
{
	core->mmu_ctrl = 0;
	memset(core->ctx_base_lo, 0, sizeof(core->ctx_base_lo));
	memset(core->ctx_base_hi, 0, sizeof(core->ctx_base_hi));
	core->fault_status = 0;
	core->fault_addr = 0;
	mmu_invalidate(core, -1);
}

void mmu_invalidate(struct vdla_core *core, int context)
{
	pthread_mutex_lock(&core->tlb_lock);
	core->tlb_generation++;
	for (unsigned int i = 0; i < TLB_ENTRIES; i++) {
		struct tlb_entry *e = &core->tlb[i];

		if (e->tag && (context < 0 || (int)((e->tag - 1) >> 40) == context))
			e->tag = 0;
	}
	pthread_mutex_unlock(&core->tlb_lock);
}

static bool dma_valid(struct vdla_core *core, uint64_t addr, uint64_t len)
{
	return !core->host.dma_valid || core->host.dma_valid(core->host.opaque, addr, len);
}

bool mmu_page_is_memory(struct mem_ctx *ctx, uint64_t pa)
{
	return dma_valid(ctx->core, pa, VDLA_PAGE_SIZE);
}

bool mmu_range_is_memory(struct mem_ctx *ctx, uint64_t pa, uint64_t len)
{
	return dma_valid(ctx->core, pa, len);
}

static unsigned int tlb_index(uint64_t tag)
{
	return (unsigned int)((tag * 0x9e3779b97f4a7c15ull) >> 56) % TLB_ENTRIES;
}

/* Walks the tables of @context for @vpn; returns false with @reason set. */
static bool walk(struct vdla_core *core, uint64_t root, uint64_t vpn, uint64_t *page,
		 uint32_t *flags, uint32_t *reason)
{
	uint64_t table = root;

	for (int level = 0; level < VDLA_PT_LEVELS; level++) {
		unsigned int shift = 9 * (VDLA_PT_LEVELS - 1 - level);
		uint64_t index = (vpn >> shift) & (VDLA_PT_ENTRIES - 1);
		uint64_t entry;

		if (core->host.dma_read(core->host.opaque, table + 8 * index, &entry,
					sizeof(entry))) {
			*reason = VDLA_MMU_FAULT_WALK;
			return false;
		}
		entry = le64_to_host(entry);
		if (!(entry & VDLA_PTE_VALID)) {
			*reason = VDLA_MMU_FAULT_UNMAPPED;
			return false;
		}
		table = entry & VDLA_PTE_ADDR_MASK;
		if (level == VDLA_PT_LEVELS - 1) {
			*page = table;
			*flags = (uint32_t)(entry & (VDLA_PTE_READ | VDLA_PTE_WRITE));
		}
	}
	return true;
}

void mmu_snapshot_locked(struct vdla_core *core, struct mem_ctx *ctx)
{
	uint32_t lo = 0, hi = 0;

	ctx->mmu_on = core->mmu_ctrl & VDLA_MMU_CTRL_ENABLE;
	if (ctx->context < VDLA_MMU_NUM_CONTEXTS) {
		lo = core->ctx_base_lo[ctx->context];
		hi = core->ctx_base_hi[ctx->context];
	}
	ctx->context_enabled = lo & VDLA_MMU_CTX_ENABLE;
	ctx->root = ((uint64_t)hi << 32) | (lo & ~(uint64_t)(VDLA_PAGE_SIZE - 1));
}

static bool translate_mmu(struct mem_ctx *ctx, uint64_t va, bool write, uint64_t *page,
			  uint32_t *flags)
{
	struct vdla_core *core = ctx->core;
	uint64_t vpn = va >> VDLA_PAGE_SHIFT;
	uint64_t tag, generation;
	uint32_t reason;
	struct tlb_entry *e;
	bool hit;

	if (!ctx->context_enabled) {
		mmu_record_fault(ctx, va, VDLA_MMU_FAULT_BAD_CONTEXT, write);
		return false;
	}

	tag = (((uint64_t)ctx->context << 40) | vpn) + 1;
	pthread_mutex_lock(&core->tlb_lock);
	e = &core->tlb[tlb_index(tag)];
	hit = e->tag == tag;
	if (hit) {
		*page = e->page;
		*flags = e->flags;
	}
	generation = core->tlb_generation;
	pthread_mutex_unlock(&core->tlb_lock);

	if (!hit) {
		if (!walk(core, ctx->root, vpn, page, flags, &reason)) {
			mmu_record_fault(ctx, va, reason, write);
			return false;
		}
		/* The walk read the tables unlocked: keep it only if nothing invalidated since. */
		pthread_mutex_lock(&core->tlb_lock);
		if (core->tlb_generation == generation) {
			e->tag = tag;
			e->page = *page;
			e->flags = *flags;
		}
		pthread_mutex_unlock(&core->tlb_lock);
	}

	if (write && !(*flags & VDLA_PTE_WRITE)) {
		mmu_record_fault(ctx, va, VDLA_MMU_FAULT_READ_ONLY, write);
		return false;
	}
	if (!write && !(*flags & VDLA_PTE_READ)) {
		mmu_record_fault(ctx, va, VDLA_MMU_FAULT_NO_READ, write);
		return false;
	}
	return true;
}

bool mmu_translate(struct mem_ctx *ctx, uint64_t va, uint64_t len, bool write,
		   struct translation *tr)
{
	struct vdla_core *core = ctx->core;
	uint64_t va_limit = 1ull << VDLA_VA_BITS;
	uint64_t page, in_page;
	uint32_t flags;

	if (va >= VDLA_SRAM_BASE) {
		uint64_t offset = va - VDLA_SRAM_BASE;

		if (offset >= core->config.sram_size) {
			mmu_record_fault(ctx, va, VDLA_MMU_FAULT_OUT_OF_RANGE, write);
			return false;
		}
		tr->addr = offset;
		tr->len = core->config.sram_size - offset;
		tr->sram = true;
		return true;
	}
	if (va >= va_limit) {
		mmu_record_fault(ctx, va, VDLA_MMU_FAULT_OUT_OF_RANGE, write);
		return false;
	}

	tr->sram = false;
	if (!ctx->mmu_on) {
		tr->addr = va;
		tr->len = va_limit - va;
		if (tr->len > len)
			tr->len = len;
		if (!dma_valid(core, va, tr->len)) {
			mmu_record_fault(ctx, va, VDLA_MMU_FAULT_UNMAPPED, write);
			return false;
		}
		return true;
	}

	if (!translate_mmu(ctx, va, write, &page, &flags))
		return false;
	in_page = va & (VDLA_PAGE_SIZE - 1);
	tr->addr = page + in_page;
	tr->len = VDLA_PAGE_SIZE - in_page;
	if (!dma_valid(core, tr->addr, tr->len < len ? tr->len : len)) {
		mmu_record_fault(ctx, va, VDLA_MMU_FAULT_UNMAPPED, write);
		return false;
	}
	return true;
}
