// SPDX-License-Identifier: MIT
/*
 * BDMA: strided byte copies between memory and SRAM (docs/hw-spec.md,
 * "BDMA"). The whole source is read before anything is written, which gives
 * memmove semantics for overlapping ranges.
 */
#include <string.h>

#include "engines.h"

struct bdma_cfg {
	uint64_t src, dst;
	uint64_t line_bytes, lines, surfaces;
	uint64_t src_line, dst_line, src_surf, dst_surf;
};

static uint64_t extent(const struct bdma_cfg *c, uint64_t line_stride, uint64_t surf_stride)
{
	return (c->surfaces - 1) * surf_stride + (c->lines - 1) * line_stride + c->line_bytes;
}

static int bdma_load(const uint32_t *regs, struct bdma_cfg *c)
{
	c->src = dreg64(regs, VDLA_BDMA_SRC_ADDR_LO);
	c->dst = dreg64(regs, VDLA_BDMA_DST_ADDR_LO);
	c->line_bytes = dreg(regs, VDLA_BDMA_LINE_BYTES);
	c->lines = dreg(regs, VDLA_BDMA_LINES);
	c->surfaces = dreg(regs, VDLA_BDMA_SURFACES);
	c->src_line = c->lines > 1 ? dreg(regs, VDLA_BDMA_SRC_LINE_STRIDE) : 0;
	c->dst_line = c->lines > 1 ? dreg(regs, VDLA_BDMA_DST_LINE_STRIDE) : 0;
	c->src_surf = c->surfaces > 1 ? dreg(regs, VDLA_BDMA_SRC_SURF_STRIDE) : 0;
	c->dst_surf = c->surfaces > 1 ? dreg(regs, VDLA_BDMA_DST_SURF_STRIDE) : 0;

	if (dreg(regs, VDLA_D_CFG))
		return VDLA_ERROR_PARAM;
	if (c->line_bytes == 0 || c->line_bytes > VDLA_MAX_TENSOR_BYTES || c->lines == 0 ||
	    c->lines > VDLA_MAX_DIM || c->surfaces == 0 || c->surfaces > VDLA_MAX_DIM)
		return VDLA_ERROR_PARAM;
	if (c->line_bytes * c->lines * c->surfaces > VDLA_MAX_TENSOR_BYTES ||
	    c->lines * c->surfaces > VDLA_MAX_TENSOR_ELEMENTS ||
	    extent(c, c->src_line, c->src_surf) > VDLA_MAX_TENSOR_BYTES ||
	    extent(c, c->dst_line, c->dst_surf) > VDLA_MAX_TENSOR_BYTES)
		return VDLA_ERROR_LIMIT;
	return VDLA_ERROR_NONE;
}

int bdma_run(struct op *op)
{
	struct access src, dst;
	struct bdma_cfg c;
	uint8_t *buffer;
	int ret = bdma_load(op->regs, &c);

	if (ret)
		return ret;
	buffer = op_alloc(op, c.line_bytes * c.lines * c.surfaces);
	if (!buffer)
		return VDLA_ERROR_LIMIT;

	/* Both sides are checked before anything is read: a fault writes nothing. */
	ret = access_lines(&op->mem, c.src, c.line_bytes, c.lines, c.src_line, c.surfaces,
			   c.src_surf, false, &src);
	if (!ret)
		ret = access_lines(&op->mem, c.dst, c.line_bytes, c.lines, c.dst_line, c.surfaces,
				   c.dst_surf, true, &dst);
	else
		memset(&dst, 0, sizeof(dst));
	if (!ret)
		ret = access_read(&op->mem, &src, buffer);
	op->stat.bytes_read += src.bytes;
	access_free(&op->mem, &src);
	if (ret) {
		access_free(&op->mem, &dst);
		op_free(op, buffer);
		return ret;
	}
	return op_stage_access(op, &dst, buffer);
}
