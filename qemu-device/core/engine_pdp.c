// SPDX-License-Identifier: MIT
/*
 * PDP: max, average and min pooling with padding and ceil mode
 * (docs/hw-spec.md, "PDP").
 */
#include <stdlib.h>

#include "engines.h"
#include "tensor_io.h"

struct pdp_cfg {
	struct tensor src, dst;
	bool flying, ceil, include_pad;
	uint32_t method, round;
	uint32_t kw, kh, sx, sy, pl, pr, pt, pb;
};

static int pdp_load(const uint32_t *regs, struct pdp_cfg *c)
{
	uint32_t cfg = dreg(regs, VDLA_D_CFG);
	uint32_t known = VDLA_PDP_CFG_SRC_FLYING | (0x3u << VDLA_PDP_CFG_METHOD_SHIFT) |
			 VDLA_PDP_CFG_CEIL | VDLA_PDP_CFG_AVG_INCLUDE_PAD |
			 (VDLA_CFG_ROUND_MASK << VDLA_CFG_ROUND_SHIFT);
	int ret;

	if (cfg & ~known)
		return VDLA_ERROR_PARAM;
	c->flying = cfg & VDLA_PDP_CFG_SRC_FLYING;
	c->method = (cfg >> VDLA_PDP_CFG_METHOD_SHIFT) & 0x3;
	c->ceil = cfg & VDLA_PDP_CFG_CEIL;
	c->include_pad = cfg & VDLA_PDP_CFG_AVG_INCLUDE_PAD;
	c->round = (cfg >> VDLA_CFG_ROUND_SHIFT) & VDLA_CFG_ROUND_MASK;
	if (c->method > VDLA_PDP_MIN || c->round >= VDLA_ROUND_MODES)
		return VDLA_ERROR_PARAM;

	ret = tensor_load(regs, VDLA_PDP_SRC, &c->src);
	if (!ret)
		ret = tensor_load(regs, VDLA_PDP_DST, &c->dst);
	if (ret)
		return ret;
	if (c->src.dtype == VDLA_DTYPE_INT32 || c->dst.dtype != c->src.dtype)
		return VDLA_ERROR_DTYPE;

	c->kw = dreg(regs, VDLA_PDP_KERNEL) & 0xffff;
	c->kh = dreg(regs, VDLA_PDP_KERNEL) >> 16;
	c->sx = dreg(regs, VDLA_PDP_STRIDE) & 0xffff;
	c->sy = dreg(regs, VDLA_PDP_STRIDE) >> 16;
	c->pl = dreg(regs, VDLA_PDP_PAD_LR) & 0xffff;
	c->pr = dreg(regs, VDLA_PDP_PAD_LR) >> 16;
	c->pt = dreg(regs, VDLA_PDP_PAD_TB) & 0xffff;
	c->pb = dreg(regs, VDLA_PDP_PAD_TB) >> 16;
	if (c->kw < 1 || c->kw > VDLA_PDP_MAX_KERNEL || c->kh < 1 || c->kh > VDLA_PDP_MAX_KERNEL ||
	    c->sx < 1 || c->sx > VDLA_PDP_MAX_STRIDE || c->sy < 1 || c->sy > VDLA_PDP_MAX_STRIDE ||
	    c->pl >= c->kw || c->pr >= c->kw || c->pt >= c->kh || c->pb >= c->kh)
		return VDLA_ERROR_PARAM;

	if (c->dst.dim[VDLA_DIM_N] != c->src.dim[VDLA_DIM_N] ||
	    c->dst.dim[VDLA_DIM_C] != c->src.dim[VDLA_DIM_C] ||
	    c->dst.dim[VDLA_DIM_W] != vdla_pool_output_size(c->src.dim[VDLA_DIM_W], c->kw, c->sx,
							    c->pl, c->pr, c->ceil) ||
	    c->dst.dim[VDLA_DIM_H] != vdla_pool_output_size(c->src.dim[VDLA_DIM_H], c->kh, c->sy,
							    c->pt, c->pb, c->ceil))
		return VDLA_ERROR_SHAPE;
	return VDLA_ERROR_NONE;
}

/* Pools one window; returns the integer or float result via the pointers. */
static void pool_window(const struct pdp_cfg *c, const struct tensor *t, const uint8_t *base,
			uint32_t n, uint32_t k, int64_t y0, int64_t x0, int64_t *iv, float *fv)
{
	int64_t h = t->dim[VDLA_DIM_H], w = t->dim[VDLA_DIM_W];
	bool is_float = dtype_is_float(t->dtype);
	int64_t isum = 0, ibest = 0, count = 0;
	float fsum = 0, fbest = 0;
	bool first = true;

	for (int64_t y = y0; y < y0 + c->kh; y++) {
		for (int64_t x = x0; x < x0 + c->kw; x++) {
			bool element = y >= 0 && y < h && x >= 0 && x < w;
			bool padding = !element && y >= -(int64_t)c->pt && y < h + c->pb &&
				       x >= -(int64_t)c->pl && x < w + c->pr;

			if (padding && c->include_pad)
				count++;
			if (!element)
				continue;
			count++;

			const uint8_t *p = base + tensor_offset(t, n, k, (uint32_t)y, (uint32_t)x);

			if (is_float) {
				float v = load_float(p, t->dtype);

				fsum += v;
				if (first || (c->method == VDLA_PDP_MAX ? v > fbest : v < fbest))
					fbest = v;
			} else {
				int64_t v = load_int(p, t->dtype);

				isum += v;
				if (first || (c->method == VDLA_PDP_MAX ? v > ibest : v < ibest))
					ibest = v;
			}
			first = false;
		}
	}

	if (c->method == VDLA_PDP_AVG) {
		*iv = is_float ? 0 : rdiv(isum, count, c->round);
		*fv = is_float ? fsum / (float)count : 0;
	} else {
		*iv = ibest;
		*fv = fbest;
	}
}

int pdp_run(struct op *op)
{
	struct pdp_cfg c;
	uint8_t *shadow = NULL, *out;
	const uint8_t *base;
	const struct tensor *in_t;
	int ret = pdp_load(op->regs, &c);

	if (ret)
		return ret;
	ret = op_input(op, &c.src, c.flying, &in_t, &base, &shadow);
	if (ret)
		return ret;

	out = op_alloc(op, tensor_extent(&c.dst));
	if (!out) {
		op_free(op, shadow);
		return VDLA_ERROR_LIMIT;
	}
	for (uint32_t n = 0; n < c.dst.dim[VDLA_DIM_N]; n++) {
		for (uint32_t k = 0; k < c.dst.dim[VDLA_DIM_C]; k++) {
			for (uint32_t oy = 0; oy < c.dst.dim[VDLA_DIM_H]; oy++) {
				if (op_cancelled(op)) {
					op_free(op, out);
					op_free(op, shadow);
					return VDLA_ERROR_CANCELLED;
				}
				for (uint32_t ox = 0; ox < c.dst.dim[VDLA_DIM_W]; ox++) {
					uint8_t *o = out + tensor_offset(&c.dst, n, k, oy, ox);
					int64_t iv;
					float fv;

					pool_window(&c, in_t, base, n, k,
						    (int64_t)oy * c.sy - c.pt,
						    (int64_t)ox * c.sx - c.pl, &iv, &fv);
					if (dtype_is_float(c.dst.dtype))
						store_float(o, c.dst.dtype, fv);
					else
						store_int(o, c.dst.dtype, iv);
				}
			}
		}
	}
	op_free(op, shadow);
	return op_stage_output(op, &c.dst, out);
}
