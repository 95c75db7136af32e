// SPDX-License-Identifier: MIT
/*
 * RUBIK: data reorganisation without arithmetic (docs/hw-spec.md, "RUBIK"):
 * permute, reshape, contract (depth to space) and split (space to depth).
 */
#include <stdlib.h>
#include <string.h>

#include "engines.h"

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

/* The SRC coordinates (W, H, C, N) that DST coordinate @i takes. */
static void source_of(const struct rubik_cfg *c, const uint32_t *i, uint64_t k, uint32_t *j)
{
	uint32_t b = c->bx * c->by, off;

	switch (c->mode) {
	case VDLA_RUBIK_PERMUTE:
		for (int d = 0; d < 4; d++)
			j[c->perm[d]] = i[d];
		break;
	case VDLA_RUBIK_RESHAPE:
		/* k-th element in (n, c, h, w) order of SRC */
		j[VDLA_DIM_W] = k % c->src.dim[VDLA_DIM_W];
		k /= c->src.dim[VDLA_DIM_W];
		j[VDLA_DIM_H] = k % c->src.dim[VDLA_DIM_H];
		k /= c->src.dim[VDLA_DIM_H];
		j[VDLA_DIM_C] = k % c->src.dim[VDLA_DIM_C];
		j[VDLA_DIM_N] = (uint32_t)(k / c->src.dim[VDLA_DIM_C]);
		break;
	case VDLA_RUBIK_CONTRACT:
		j[VDLA_DIM_N] = i[VDLA_DIM_N];
		j[VDLA_DIM_C] = i[VDLA_DIM_C] * b + (i[VDLA_DIM_H] % c->by) * c->bx +
				i[VDLA_DIM_W] % c->bx;
		j[VDLA_DIM_H] = i[VDLA_DIM_H] / c->by;
		j[VDLA_DIM_W] = i[VDLA_DIM_W] / c->bx;
		break;
	default: /* SPLIT */
		off = i[VDLA_DIM_C] % b;
		j[VDLA_DIM_N] = i[VDLA_DIM_N];
		j[VDLA_DIM_C] = i[VDLA_DIM_C] / b;
		j[VDLA_DIM_H] = i[VDLA_DIM_H] * c->by + off / c->bx;
		j[VDLA_DIM_W] = i[VDLA_DIM_W] * c->bx + off % c->bx;
		break;
	}
}

int rubik_run(struct op *op)
{
	struct rubik_cfg c;
	uint8_t *shadow, *out;
	uint32_t i[4], j[4];
	uint64_t k = 0;
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
	for (i[VDLA_DIM_N] = 0; i[VDLA_DIM_N] < c.dst.dim[VDLA_DIM_N]; i[VDLA_DIM_N]++) {
		for (i[VDLA_DIM_C] = 0; i[VDLA_DIM_C] < c.dst.dim[VDLA_DIM_C]; i[VDLA_DIM_C]++) {
			for (i[VDLA_DIM_H] = 0; i[VDLA_DIM_H] < c.dst.dim[VDLA_DIM_H]; i[VDLA_DIM_H]++) {
				if (op_cancelled(op)) {
					op_free(op, out);
					op_free(op, shadow);
					return VDLA_ERROR_CANCELLED;
				}
				for (i[VDLA_DIM_W] = 0; i[VDLA_DIM_W] < c.dst.dim[VDLA_DIM_W];
				     i[VDLA_DIM_W]++, k++) {
					source_of(&c, i, k, j);
					memcpy(out + tensor_offset(&c.dst, i[3], i[2], i[1], i[0]),
					       shadow + tensor_offset(&c.src, j[3], j[2], j[1], j[0]),
					       c.src.esize);
				}
			}
		}
	}
	op_free(op, shadow);
	return op_stage_output(op, &c.dst, out);
}
