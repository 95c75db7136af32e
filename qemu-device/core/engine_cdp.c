// SPDX-License-Identifier: MIT
/*
 * CDP: local response normalisation across channels (docs/hw-spec.md,
 * "CDP"): a LUT of software's making on the integer path, the formula on the
 * float path.
 */
#include <math.h>
#include <stdlib.h>

#include "engines.h"
#include "row_io.h"
#include "tensor_io.h"

struct cdp_cfg {
	struct tensor src, dst;
	uint32_t size, lut_shift, out_shift, round;
	bool wrap;
	uint64_t lut_addr;
	float k, alpha, beta;
};

static int cdp_load(const uint32_t *regs, struct cdp_cfg *c)
{
	uint32_t cfg = dreg(regs, VDLA_D_CFG);
	int ret;

	if (cfg & ~((VDLA_CFG_ROUND_MASK << VDLA_CFG_ROUND_SHIFT) | VDLA_CFG_WRAP))
		return VDLA_ERROR_PARAM;
	c->round = (cfg >> VDLA_CFG_ROUND_SHIFT) & VDLA_CFG_ROUND_MASK;
	c->wrap = cfg & VDLA_CFG_WRAP;
	ret = tensor_load(regs, VDLA_CDP_SRC, &c->src);
	if (!ret)
		ret = tensor_load(regs, VDLA_CDP_DST, &c->dst);
	if (ret)
		return ret;
	if (c->src.dtype == VDLA_DTYPE_INT32 || c->dst.dtype != c->src.dtype)
		return VDLA_ERROR_DTYPE;
	if (!tensor_same_shape(&c->src, &c->dst))
		return VDLA_ERROR_SHAPE;

	c->size = dreg(regs, VDLA_CDP_SIZE);
	c->lut_addr = dreg64(regs, VDLA_CDP_LUT_ADDR_LO);
	c->lut_shift = dreg(regs, VDLA_CDP_LUT_SHIFT);
	c->out_shift = dreg(regs, VDLA_CDP_OUT_SHIFT);
	c->k = fp32_from_bits(dreg(regs, VDLA_CDP_K));
	c->alpha = fp32_from_bits(dreg(regs, VDLA_CDP_ALPHA));
	c->beta = fp32_from_bits(dreg(regs, VDLA_CDP_BETA));
	if (c->size < 1 || c->size > 15 || !(c->size & 1) || c->round >= VDLA_ROUND_MODES)
		return VDLA_ERROR_PARAM;
	if (!dtype_is_float(c->src.dtype) && (c->lut_shift > 62 || c->out_shift > 62))
		return VDLA_ERROR_PARAM;
	return VDLA_ERROR_NONE;
}

static int64_t lut_lookup(const struct cdp_cfg *c, const int64_t *lut, int64_t s)
{
	int64_t i = s >> c->lut_shift, f;

	if (i >= VDLA_LUT_ENTRIES - 1)
		return lut[VDLA_LUT_ENTRIES - 1];
	f = s - (i << c->lut_shift);
	/* |difference| < 2^33 and f < 2^LUT_SHIFT: the step fits, as does the sum. */
	return lut[i] + mul_rshift(lut[i + 1] - lut[i], f, c->lut_shift, c->round);
}

/*
 * The channels the window of one output row reaches, loaded as rows of a
 * W chunk: a ring of SIZE slots, channel j in slot j % SIZE, each loaded
 * once as the window slides along C.
 */
struct cdp_ring {
	union {
		int64_t i[15][ROW_CHUNK];
		float f[15][ROW_CHUNK];
	} x;
	int next;	/* the next channel to load */
};

struct cdp_chunk {
	const uint8_t *src;	/* element (n, 0, h, w) */
	uint8_t *dst;
	uint32_t count;
};

static void ring_fill(const struct cdp_cfg *c, struct cdp_ring *ring,
		      const struct cdp_chunk *ch, int upto, bool is_float)
{
	for (; ring->next <= upto; ring->next++) {
		const uint8_t *row = ch->src + (uint64_t)ring->next * c->src.stride[VDLA_DIM_C];
		int slot = ring->next % (int)c->size;

		if (is_float)
			row_load_float(row, c->src.stride[VDLA_DIM_W], c->src.dtype, ch->count,
				       ring->x.f[slot]);
		else
			row_load_int(row, c->src.stride[VDLA_DIM_W], c->src.dtype, ch->count,
				     ring->x.i[slot]);
	}
}

/* Normalises a W chunk of every channel of one (n, h) line. */
static void cdp_line(const struct cdp_cfg *c, const int64_t *lut, const struct cdp_chunk *ch,
		     bool is_float)
{
	struct cdp_ring ring; /* 30 KiB of the worker's stack */
	int channels = (int)c->src.dim[VDLA_DIM_C], half = (int)c->size / 2;
	uint32_t n = ch->count;

	ring.next = 0;
	for (int k = 0; k < channels; k++) {
		int lo = k - half < 0 ? 0 : k - half;
		int hi = k + half >= channels ? channels - 1 : k + half;
		uint8_t *out = ch->dst + (uint64_t)k * c->dst.stride[VDLA_DIM_C];

		ring_fill(c, &ring, ch, hi, is_float);
		if (is_float) {
			const float *x = ring.x.f[k % (int)c->size];
			float s[ROW_CHUNK], v[ROW_CHUNK];

			/* The spec's order: s = 0, then + x_j^2 for j = lo..hi. */
			for (uint32_t i = 0; i < n; i++)
				s[i] = 0.0f;
			for (int j = lo; j <= hi; j++) {
				const float *y = ring.x.f[j % (int)c->size];

				for (uint32_t i = 0; i < n; i++)
					s[i] += y[i] * y[i];
			}
			for (uint32_t i = 0; i < n; i++)
				v[i] = x[i] * powf(c->k + c->alpha / (float)c->size * s[i], -c->beta);
			row_store_float(out, c->dst.stride[VDLA_DIM_W], c->dst.dtype, n, v);
		} else {
			const int64_t *x = ring.x.i[k % (int)c->size];
			int64_t s[ROW_CHUNK], v[ROW_CHUNK], m[ROW_CHUNK];

			for (uint32_t i = 0; i < n; i++)
				s[i] = 0;
			for (int j = lo; j <= hi; j++) {
				const int64_t *y = ring.x.i[j % (int)c->size];

				for (uint32_t i = 0; i < n; i++)
					s[i] += y[i] * y[i];
			}
			for (uint32_t i = 0; i < n; i++) {
				m[i] = lut_lookup(c, lut, s[i]);
				v[i] = x[i];
			}
			row_mul_rshift(v, n, 0, m, c->out_shift, c->round);
			row_store_int(out, c->dst.stride[VDLA_DIM_W], c->dst.dtype, n, v, c->wrap);
		}
	}
}

int cdp_run(struct op *op)
{
	struct cdp_cfg c;
	int64_t lut[VDLA_LUT_ENTRIES];
	const uint8_t *shadow;
	uint8_t *out;
	bool is_float;
	int ret = cdp_load(op->regs, &c);

	if (ret)
		return ret;
	is_float = dtype_is_float(c.src.dtype);
	if (!is_float) {
		uint8_t raw[VDLA_LUT_ENTRIES * 4];

		ret = op_read_range(op, c.lut_addr, sizeof(raw), raw);
		if (ret)
			return ret;
		for (int i = 0; i < VDLA_LUT_ENTRIES; i++)
			lut[i] = load_int(raw + 4 * i, VDLA_DTYPE_INT32);
	}
	shadow = op_gather(op, &c.src, &ret);
	if (ret)
		return ret;
	out = op_alloc(op, tensor_extent(&c.dst));
	if (!out) {
		op_free(op, shadow);
		return VDLA_ERROR_LIMIT;
	}

	for (uint32_t n = 0; n < c.src.dim[VDLA_DIM_N]; n++) {
		for (uint32_t h = 0; h < c.src.dim[VDLA_DIM_H]; h++) {
			if (op_cancelled(op)) {
				op_free(op, out);
				op_free(op, shadow);
				return VDLA_ERROR_CANCELLED;
			}
			for (uint32_t w = 0; w < c.src.dim[VDLA_DIM_W]; w += ROW_CHUNK) {
				uint32_t left = c.src.dim[VDLA_DIM_W] - w;
				struct cdp_chunk ch = {
					.src = shadow + tensor_offset(&c.src, n, 0, h, w),
					.dst = out + tensor_offset(&c.dst, n, 0, h, w),
					.count = left < ROW_CHUNK ? left : ROW_CHUNK,
				};

				cdp_line(&c, lut, &ch, is_float);
			}
		}
	}
	op->stat.macs = tensor_elements(&c.src) * c.size;
	op_free(op, shadow);
	return op_stage_output(op, &c.dst, out);
}
