// SPDX-License-Identifier: MIT
/*
 * PDP: max, average and min pooling with padding and ceil mode
 * (docs/hw-spec.md, "PDP").
 */
#include <stdlib.h>

#include "engines.h"
#include "row_io.h"
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

/* Outputs of one row pooled at a time: their inputs fit in a stack buffer. */
#define POOL_OUTPUTS 64u
#define POOL_INPUTS (POOL_OUTPUTS * VDLA_PDP_MAX_STRIDE + VDLA_PDP_MAX_KERNEL)

/* The window range [lo, hi) of output @o along one axis, and its clamps. */
struct span {
	int64_t lo, hi;
};

static struct span window(uint32_t o, uint32_t stride, uint32_t pad, uint32_t kernel)
{
	int64_t lo = (int64_t)o * stride - pad;

	return (struct span){ lo, lo + kernel };
}

static struct span clamp(struct span s, int64_t lo, int64_t hi)
{
	return (struct span){ s.lo < lo ? lo : s.lo, s.hi > hi ? hi : s.hi };
}

static int64_t length(struct span s)
{
	return s.hi > s.lo ? s.hi - s.lo : 0;
}

/* Where one chunk of an output row is and what its windows cover. */
struct pool_row {
	const struct tensor *in;
	const uint8_t *base;
	uint8_t *out;
	uint32_t n, k, oy, ox0, count;
};

/*
 * Elements a window counts for the average: the real ones, plus with
 * include_pad those in the padding (a rectangle around the input; ceil
 * mode's windows may reach past it).
 */
static int64_t window_count(const struct pdp_cfg *c, const struct tensor *in, struct span ys,
			    struct span xs)
{
	int64_t h = in->dim[VDLA_DIM_H], w = in->dim[VDLA_DIM_W];

	if (c->include_pad)
		return length(clamp(ys, -(int64_t)c->pt, h + c->pb)) *
		       length(clamp(xs, -(int64_t)c->pl, w + c->pr));
	return length(clamp(ys, 0, h)) * length(clamp(xs, 0, w));
}

/*
 * The chunk's windows that lie wholly inside the loaded columns, [*first,
 * *last): the input is read at base + i * stride + kx for them, a strided
 * walk the compiler vectorises; the windows at the edges are clamped.
 */
static void inner_windows(const struct pdp_cfg *c, const struct pool_row *r, struct span load,
			  uint32_t *first, uint32_t *last)
{
	uint32_t i = 0, j = r->count;

	while (i < j && window(r->ox0 + i, c->sx, c->pl, c->kw).lo < load.lo)
		i++;
	while (j > i && window(r->ox0 + j - 1, c->sx, c->pl, c->kw).hi > load.hi)
		j--;
	*first = i;
	*last = j;
}

/* Walks the windows outside [ia, ib): the clamped ones at the edges. */
static uint32_t first_edge(uint32_t ia, uint32_t ib)
{
	return ia == 0 ? ib : 0;
}

static uint32_t next_edge(uint32_t i, uint32_t ia, uint32_t ib)
{
	return i + 1 == ia ? ib : i + 1;
}

/* The columns of the input row the chunk's windows cover, clamped. */
static struct span loaded_columns(const struct pdp_cfg *c, const struct pool_row *r)
{
	struct span cols = { window(r->ox0, c->sx, c->pl, c->kw).lo,
			     window(r->ox0 + r->count - 1, c->sx, c->pl, c->kw).hi };

	return clamp(cols, 0, r->in->dim[VDLA_DIM_W]);
}

static inline int64_t fold_int(uint32_t method, int64_t a, int64_t v)
{
	if (method == VDLA_PDP_AVG)
		return a + v;
	if (method == VDLA_PDP_MAX)
		return v > a ? v : a;
	return v < a ? v : a;
}

/*
 * Pools a chunk of an output row on the integer path: each input row the
 * windows cover is loaded once, and every window folds its part of it.
 * Exact, so the order of the elements does not matter.
 */
static void pool_int(const struct pdp_cfg *c, const struct pool_row *r)
{
	const struct tensor *in = r->in;
	struct span ys = window(r->oy, c->sy, c->pt, c->kh);
	struct span load = loaded_columns(c, r);
	struct span rows = clamp(ys, 0, in->dim[VDLA_DIM_H]);
	int64_t buf[POOL_INPUTS], acc[POOL_OUTPUTS];
	int64_t init = c->method == VDLA_PDP_AVG ? 0 :
		       (c->method == VDLA_PDP_MAX ? INT64_MIN : INT64_MAX);
	uint32_t ia, ib;

	inner_windows(c, r, load, &ia, &ib);
	for (uint32_t i = 0; i < r->count; i++)
		acc[i] = init;
	for (int64_t y = rows.lo; y < rows.hi; y++) {
		row_load_int(r->base + tensor_offset(in, r->n, r->k, (uint32_t)y, (uint32_t)load.lo),
			     in->stride[VDLA_DIM_W], in->dtype, (uint32_t)length(load), buf);
		for (uint32_t i = first_edge(ia, ib); i < r->count; i = next_edge(i, ia, ib)) {
			struct span xs = clamp(window(r->ox0 + i, c->sx, c->pl, c->kw), load.lo,
					       load.hi);

			for (int64_t x = xs.lo; x < xs.hi; x++)
				acc[i] = fold_int(c->method, acc[i], buf[x - load.lo]);
		}
		if (ia < ib) {
			const int64_t *v = buf + (window(r->ox0 + ia, c->sx, c->pl, c->kw).lo - load.lo);

			for (uint32_t kx = 0; kx < c->kw; kx++) {
				if (c->method == VDLA_PDP_AVG) {
					for (uint32_t i = ia; i < ib; i++)
						acc[i] += v[(i - ia) * c->sx + kx];
				} else if (c->method == VDLA_PDP_MAX) {
					for (uint32_t i = ia; i < ib; i++) {
						int64_t e = v[(i - ia) * c->sx + kx];

						acc[i] = e > acc[i] ? e : acc[i];
					}
				} else {
					for (uint32_t i = ia; i < ib; i++) {
						int64_t e = v[(i - ia) * c->sx + kx];

						acc[i] = e < acc[i] ? e : acc[i];
					}
				}
			}
		}
	}
	if (c->method == VDLA_PDP_AVG) {
		for (uint32_t i = 0; i < r->count; i++)
			acc[i] = rdiv(acc[i], window_count(c, in, ys,
							   window(r->ox0 + i, c->sx, c->pl, c->kw)),
				      c->round);
	}
	row_store_int(r->out, c->dst.stride[VDLA_DIM_W], c->dst.dtype, r->count, acc, false);
}

/*
 * One element into a float window: a sum from 0 for the average (as the
 * spec's sum is: 0 + -0 is +0), the first element itself for max and min,
 * then each later one that is greater (smaller), so that a NaN first in a
 * window stays its result and a later one is ignored.
 */
static inline float fold_float(uint32_t method, bool first, float a, float v)
{
	if (method == VDLA_PDP_AVG)
		return a + v;
	if (first || (method == VDLA_PDP_MAX ? v > a : v < a))
		return v;
	return a;
}

/*
 * The float path: each window folds its elements row by row, left to
 * right, as the spec orders them (a float sum depends on the order).
 */
static void pool_float(const struct pdp_cfg *c, const struct pool_row *r)
{
	const struct tensor *in = r->in;
	struct span ys = window(r->oy, c->sy, c->pt, c->kh);
	struct span load = loaded_columns(c, r);
	struct span rows = clamp(ys, 0, in->dim[VDLA_DIM_H]);
	float buf[POOL_INPUTS], acc[POOL_OUTPUTS];
	uint32_t ia, ib;

	inner_windows(c, r, load, &ia, &ib);
	for (uint32_t i = 0; i < r->count; i++)
		acc[i] = 0.0f;
	for (int64_t y = rows.lo; y < rows.hi; y++) {
		bool first_row = y == rows.lo;

		row_load_float(r->base + tensor_offset(in, r->n, r->k, (uint32_t)y,
						       (uint32_t)load.lo),
			       in->stride[VDLA_DIM_W], in->dtype, (uint32_t)length(load), buf);
		for (uint32_t i = first_edge(ia, ib); i < r->count; i = next_edge(i, ia, ib)) {
			struct span xs = clamp(window(r->ox0 + i, c->sx, c->pl, c->kw), load.lo,
					       load.hi);

			for (int64_t x = xs.lo; x < xs.hi; x++)
				acc[i] = fold_float(c->method, first_row && x == xs.lo, acc[i],
						    buf[x - load.lo]);
		}
		if (ia < ib) {
			const float *v = buf + (window(r->ox0 + ia, c->sx, c->pl, c->kw).lo - load.lo);

			for (uint32_t kx = 0; kx < c->kw; kx++) {
				bool first = first_row && kx == 0;

				for (uint32_t i = ia; i < ib; i++)
					acc[i] = fold_float(c->method, first, acc[i],
							    v[(i - ia) * c->sx + kx]);
			}
		}
	}
	if (c->method == VDLA_PDP_AVG) {
		for (uint32_t i = 0; i < r->count; i++)
			acc[i] = acc[i] / (float)window_count(c, in, ys,
							      window(r->ox0 + i, c->sx, c->pl,
								     c->kw));
	}
	row_store_float(r->out, c->dst.stride[VDLA_DIM_W], c->dst.dtype, r->count, acc);
}

int pdp_run(struct op *op)
{
	struct pdp_cfg c;
	const uint8_t *shadow = NULL;
	uint8_t *out;
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
				for (uint32_t ox = 0; ox < c.dst.dim[VDLA_DIM_W]; ox += POOL_OUTPUTS) {
					uint32_t left = c.dst.dim[VDLA_DIM_W] - ox;
					struct pool_row r = {
						.in = in_t,
						.base = base,
						.out = out + tensor_offset(&c.dst, n, k, oy, ox),
						.n = n,
						.k = k,
						.oy = oy,
						.ox0 = ox,
						.count = left < POOL_OUTPUTS ? left : POOL_OUTPUTS,
					};

					if (dtype_is_float(c.dst.dtype))
						pool_float(&c, &r);
					else
						pool_int(&c, &r);
				}
			}
		}
	}
	op_free(op, shadow);
	return op_stage_output(op, &c.dst, out);
}
