// SPDX-License-Identifier: MIT
#include "mem.h"

#include <stdlib.h>
#include <string.h>

#include "mmu.h"

uint32_t dtype_size(uint32_t dtype)
{
	switch (dtype) {
	case VDLA_DTYPE_INT8:
		return 1;
	case VDLA_DTYPE_INT16:
	case VDLA_DTYPE_FP16:
		return 2;
	case VDLA_DTYPE_INT32:
	case VDLA_DTYPE_FP32:
		return 4;
	default:
		return 0;
	}
}

uint64_t tensor_extent(const struct tensor *t)
{
	uint64_t last = 0;

	for (int d = 0; d < 4; d++)
		last += (uint64_t)(t->dim[d] - 1) * t->stride[d];
	return last + t->esize;
}

int tensor_load(const uint32_t *regs, uint32_t offset, struct tensor *t)
{
	static const uint32_t dim_reg[4] = { VDLA_T_W, VDLA_T_H, VDLA_T_C, VDLA_T_N };
	static const uint32_t stride_reg[4] = { VDLA_T_STRIDE_W, VDLA_T_STRIDE_H,
						VDLA_T_STRIDE_C, VDLA_T_STRIDE_N };

	memset(t, 0, sizeof(*t));
	t->addr = dreg64(regs, offset + VDLA_T_ADDR_LO);
	t->dtype = dreg(regs, offset + VDLA_T_DTYPE);
	t->esize = dtype_size(t->dtype);
	if (!t->esize)
		return VDLA_ERROR_DTYPE;
	for (int d = 0; d < 4; d++) {
		t->dim[d] = dreg(regs, offset + dim_reg[d]);
		if (t->dim[d] == 0 || t->dim[d] > VDLA_MAX_DIM)
			return VDLA_ERROR_SHAPE;
		t->stride[d] = dreg(regs, offset + stride_reg[d]);
		if (t->dim[d] == 1)
			t->stride[d] = 0; /* ignored for a dimension of size 1 */
		else if (t->stride[d] % t->esize)
			return VDLA_ERROR_STRIDE;
	}
	if (tensor_extent(t) > VDLA_MAX_TENSOR_BYTES ||
	    tensor_elements(t) > VDLA_MAX_TENSOR_ELEMENTS)
		return VDLA_ERROR_LIMIT;
	return VDLA_ERROR_NONE;
}

bool tensor_same_shape(const struct tensor *a, const struct tensor *b)
{
	return memcmp(a->dim, b->dim, sizeof(a->dim)) == 0;
}

static int plan_push(struct plan *plan, uint64_t addr, uint64_t shadow, uint32_t len, bool sram)
{
	struct span *last = plan->count ? &plan->span[plan->count - 1] : NULL;

	plan->bytes += len;
	/* Merge with the previous span when both sides continue it. */
	if (last && last->sram == sram && last->addr + last->len == addr &&
	    last->shadow + last->len == shadow && (uint64_t)last->len + len <= UINT32_MAX) {
		last->len += len;
		return 0;
	}
	if (plan->count == plan->capacity) {
		size_t capacity = plan->capacity ? 2 * plan->capacity : 64;
		struct span *grown = realloc(plan->span, capacity * sizeof(*grown));

		if (!grown)
			return VDLA_ERROR_LIMIT;
		plan->span = grown;
		plan->capacity = capacity;
	}
	plan->span[plan->count++] = (struct span){ .addr = addr, .shadow = shadow, .len = len,
						   .sram = sram };
	return 0;
}

int plan_range(struct mem_ctx *ctx, uint64_t addr, uint64_t len, uint64_t shadow, bool write,
	       struct plan *plan)
{
	while (len) {
		struct translation tr;
		uint64_t piece;
		int ret;

		if (!mmu_translate(ctx, addr, len, write, &tr))
			return VDLA_ERROR_MMU_FAULT;
		piece = tr.len < len ? tr.len : len;
		ret = plan_push(plan, tr.addr, shadow, (uint32_t)piece, tr.sram);
		if (ret)
			return ret;
		addr += piece;
		shadow += piece;
		len -= piece;
	}
	return 0;
}

/*
 * Element runs of a tensor: dimensions sorted by stride, contiguous ones
 * merged, so that a packed tensor of any layout is a single run.
 */
struct run_shape {
	int ndims;
	uint64_t size[4];
	uint64_t stride[4];	/* [0] innermost */
	uint64_t run_bytes;
};

static void run_shape(const struct tensor *t, struct run_shape *rs)
{
	int order[4], n = 0;

	for (int d = 0; d < 4; d++) {
		if (t->dim[d] > 1)
			order[n++] = d;
	}
	/* insertion sort by stride */
	for (int i = 1; i < n; i++) {
		for (int j = i; j > 0 && t->stride[order[j]] < t->stride[order[j - 1]]; j--) {
			int tmp = order[j];

			order[j] = order[j - 1];
			order[j - 1] = tmp;
		}
	}

	rs->ndims = 0;
	rs->run_bytes = t->esize;
	for (int i = 0; i < n; i++) {
		int d = order[i];

		if (rs->ndims == 0 && t->stride[d] == rs->run_bytes) {
			rs->run_bytes *= t->dim[d]; /* still contiguous */
			continue;
		}
		rs->size[rs->ndims] = t->dim[d];
		rs->stride[rs->ndims] = t->stride[d];
		rs->ndims++;
	}
}

int plan_tensor(struct mem_ctx *ctx, const struct tensor *t, bool write, struct plan *plan)
{
	struct run_shape rs;
	uint64_t idx[4] = { 0 };

	run_shape(t, &rs);
	for (;;) {
		uint64_t offset = 0;
		int ret;

		for (int i = 0; i < rs.ndims; i++)
			offset += idx[i] * rs.stride[i];
		ret = plan_range(ctx, t->addr + offset, rs.run_bytes, offset, write, plan);
		if (ret)
			return ret;

		int i = 0;
		for (; i < rs.ndims; i++) {
			if (++idx[i] < rs.size[i])
				break;
			idx[i] = 0;
		}
		if (i == rs.ndims)
			return 0;
	}
}

void plan_free(struct plan *plan)
{
	free(plan->span);
	memset(plan, 0, sizeof(*plan));
}

int plan_read(struct mem_ctx *ctx, const struct plan *plan, uint8_t *shadow)
{
	struct vdla_core *core = ctx->core;

	for (size_t i = 0; i < plan->count; i++) {
		const struct span *s = &plan->span[i];

		if (s->sram) {
			memcpy(shadow + s->shadow, core->sram + s->addr, s->len);
		} else if (core->host.dma_read(core->host.opaque, s->addr, shadow + s->shadow,
					       s->len)) {
			mmu_record_fault(ctx, s->addr, VDLA_MMU_FAULT_UNMAPPED, false);
			return VDLA_ERROR_MMU_FAULT;
		}
	}
	return 0;
}

void plan_write(struct vdla_core *core, const struct plan *plan, const uint8_t *shadow)
{
	for (size_t i = 0; i < plan->count; i++) {
		const struct span *s = &plan->span[i];

		if (s->sram)
			memcpy(core->sram + s->addr, shadow + s->shadow, s->len);
		else
			core->host.dma_write(core->host.opaque, s->addr, shadow + s->shadow,
					     s->len);
	}
}
