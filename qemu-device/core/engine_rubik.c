// SPDX-License-Identifier: MIT
/*
 * RUBIK: data reorganisation without arithmetic (docs/hw-spec.md, "RUBIK"):
 * permute, reshape, contract (depth to space) and split (space to depth).
 */
#include <stdlib.h>
#include <string.h>

#include "engines.h"
#include "row_io.h"

struct rubik_cfg {
	struct tensor src, dst;
	uint32_t mode;
	uint32_t perm[4];
	uint32_t bx, by;
};

static int rubik_load(const uint32_t *regs, struct rubik_cfg *c)
{
	uint32_t cfg = dreg(regs, VDLA_D_CFG), perm = dreg(regs, VDLA_RUBIK_PERM);
	uint32_t seen = 0, block;
	const uint32_t *s, *d;
	int ret;

	if (cfg & ~VDLA_RUBIK_CFG_MODE_MASK)
		return VDLA_ERROR_PARAM;
	c->mode = cfg & VDLA_RUBIK_CFG_MODE_MASK;
	if (c->mode > VDLA_RUBIK_SPLIT)
		return VDLA_ERROR_PARAM;
	ret = tensor_load(regs, VDLA_RUBIK_SRC, &c->src);
	if (!ret)
		ret = tensor_load(regs, VDLA_RUBIK_DST, &c->dst);
	if (ret)
		return ret;
	if (c->dst.dtype != c->src.dtype)
		return VDLA_ERROR_DTYPE;
	s = c->src.dim;
	d = c->dst.dim;

	switch (c->mode) {
	case VDLA_RUBIK_PERMUTE:
		if (perm >> 8)
			return VDLA_ERROR_PARAM;
		for (int i = 0; i < 4; i++) {
			c->perm[i] = (perm >> (2 * i)) & 3;
			seen |= 1u << c->perm[i];
		}
		if (seen != 0xf)
			return VDLA_ERROR_PARAM;
		for (int i = 0; i < 4; i++) {
			if (d[i] != s[c->perm[i]])
				return VDLA_ERROR_SHAPE;
		}
		return VDLA_ERROR_NONE;
	case VDLA_RUBIK_RESHAPE:
		return tensor_elements(&c->src) == tensor_elements(&c->dst) ? VDLA_ERROR_NONE :
									       VDLA_ERROR_SHAPE;
	default:
		block = dreg(regs, VDLA_RUBIK_BLOCK);
		c->bx = block & 0xffff;
		c->by = block >> 16;
		if (c->bx < 1 || c->bx > 16 || c->by < 1 || c->by > 16)
			return VDLA_ERROR_PARAM;
		if (c->mode == VDLA_RUBIK_CONTRACT) {
			if (s[VDLA_DIM_C] % (c->bx * c->by) || d[VDLA_DIM_N] != s[VDLA_DIM_N] ||
			    d[VDLA_DIM_C] != s[VDLA_DIM_C] / (c->bx * c->by) ||
			    (uint64_t)d[VDLA_DIM_H] != (uint64_t)s[VDLA_DIM_H] * c->by ||
			    (uint64_t)d[VDLA_DIM_W] != (uint64_t)s[VDLA_DIM_W] * c->bx)
				return VDLA_ERROR_SHAPE;
		} else {
			if (s[VDLA_DIM_H] % c->by || s[VDLA_DIM_W] % c->bx ||
			    d[VDLA_DIM_N] != s[VDLA_DIM_N] ||
			    (uint64_t)d[VDLA_DIM_C] != (uint64_t)s[VDLA_DIM_C] * c->bx * c->by ||
			    d[VDLA_DIM_H] != s[VDLA_DIM_H] / c->by ||
			    d[VDLA_DIM_W] != s[VDLA_DIM_W] / c->bx)
				return VDLA_ERROR_SHAPE;
		}
		return VDLA_ERROR_NONE;
	}
}

/* SRC's element @k in (n, c, h, w) order, as a byte offset. */
static uint64_t reshape_source(const struct tensor *src, uint64_t k, uint32_t *w)
{
	uint32_t h, c;

	*w = k % src->dim[VDLA_DIM_W];
	k /= src->dim[VDLA_DIM_W];
	h = k % src->dim[VDLA_DIM_H];
	k /= src->dim[VDLA_DIM_H];
	c = k % src->dim[VDLA_DIM_C];
	return tensor_offset(src, (uint32_t)(k / src->dim[VDLA_DIM_C]), c, h, *w);
}

/*
 * Fills DST's row (n, c, h) with strided copies: the SRC elements of a row
 * (or of one phase of it, for CONTRACT) are equally spaced, so no element
 * needs its own coordinates.
 */
static void rubik_row(const struct rubik_cfg *c, const uint8_t *src, uint8_t *dst_row,
		      uint32_t n, uint32_t ch, uint32_t h)
{
	const struct tensor *s = &c->src, *d = &c->dst;
	uint32_t width = d->dim[VDLA_DIM_W], b = c->bx * c->by, e = s->esize;
	uint64_t dw = d->stride[VDLA_DIM_W];
	uint32_t i[4] = { 0, h, ch, n }, j[4];

	switch (c->mode) {
	case VDLA_RUBIK_PERMUTE:
		for (int dim = 0; dim < 4; dim++)
			j[c->perm[dim]] = i[dim];
		/* DST's W walks SRC's dimension perm[W]. */
		row_copy(dst_row, dw, src + tensor_offset(s, j[3], j[2], j[1], j[0]),
			 s->stride[c->perm[VDLA_DIM_W]], width, e);
		break;
	case VDLA_RUBIK_RESHAPE: {
		uint64_t k = (((uint64_t)n * d->dim[VDLA_DIM_C] + ch) * d->dim[VDLA_DIM_H] + h) *
			     width;

		for (uint32_t done = 0; done < width;) {
			uint32_t sw, run;
			uint64_t from = reshape_source(s, k + done, &sw);

			run = s->dim[VDLA_DIM_W] - sw;
			if (run > width - done)
				run = width - done;
			row_copy(dst_row + done * dw, dw, src + from, s->stride[VDLA_DIM_W], run, e);
			done += run;
		}
		break;
	}
	case VDLA_RUBIK_CONTRACT:
		/* DST w = x * BX + r comes from SRC channel ch * B + (h % BY) * BX + r, w x. */
		for (uint32_t r = 0; r < c->bx; r++)
			row_copy(dst_row + r * dw, dw * c->bx,
				 src + tensor_offset(s, n, ch * b + (h % c->by) * c->bx + r,
						     h / c->by, 0),
				 s->stride[VDLA_DIM_W], s->dim[VDLA_DIM_W], e);
		break;
	default: { /* SPLIT: DST w comes from SRC w * BX + (ch % B) % BX */
		uint32_t off = ch % b;

		row_copy(dst_row, dw,
			 src + tensor_offset(s, n, ch / b, h * c->by + off / c->bx, off % c->bx),
			 s->stride[VDLA_DIM_W] * c->bx, width, e);
		break;
	}
	}
}

int rubik_run(struct op *op)
{
	struct rubik_cfg c;
	const uint8_t *shadow;
	uint8_t *out;
	int ret = rubik_load(op->regs, &c);

	if (ret)
		return ret;
	shadow = op_gather(op, &c.src, &ret);
	if (ret)
		return ret;
	out = op_alloc(op, tensor_extent(&c.dst));
	if (!out) {
		op_free(op, shadow);
		return VDLA_ERROR_LIMIT;
	}
	for (uint32_t n = 0; n < c.dst.dim[VDLA_DIM_N]; n++) {
		for (uint32_t ch = 0; ch < c.dst.dim[VDLA_DIM_C]; ch++) {
			for (uint32_t h = 0; h < c.dst.dim[VDLA_DIM_H]; h++) {
				if (op_cancelled(op)) {
					op_free(op, out);
					op_free(op, shadow);
					return VDLA_ERROR_CANCELLED;
				}
				rubik_row(&c, shadow, out + tensor_offset(&c.dst, n, ch, h, 0), n, ch, h);
			}
		}
	}
	op_free(op, shadow);
	return op_stage_output(op, &c.dst, out);
}
