// SPDX-License-Identifier: MIT
/*
 * SDP: per-element processing (docs/hw-spec.md, "SDP"): bias, scale
 * (requantisation), an element-wise operation with a second tensor, an
 * activation (ReLU, clip, LUT) and the output conversion, on an exact 64-bit
 * integer path or an FP32 path.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engines.h"
#include "row_io.h"
#include "tensor_io.h"

struct sdp_cfg {
	struct tensor src, dst, ew;
	bool src_flying, dst_flying, int_path;
	uint32_t bias_mode, scale_mode, ew_op, act, round;
	bool wrap;
	uint32_t regs_bias, scale_mul, scale_shift, ew_mul, ew_shift, ew_post;
	uint32_t clip_min, clip_max, lut_start, lut_shift, out_offset;
	uint64_t bias_addr, scale_addr, lut_addr;
};

/* Per-channel and table parameters read from memory. */
struct sdp_params {
	int64_t *bias_i;
	float *bias_f;
	int64_t *mul_i;
	uint32_t *shift_i;
	float *scale_f;
	int64_t lut_i[VDLA_LUT_ENTRIES];
	float lut_f[VDLA_LUT_ENTRIES];
};

static bool int_type(uint32_t t)
{
	return t == VDLA_DTYPE_INT8 || t == VDLA_DTYPE_INT16 || t == VDLA_DTYPE_INT32;
}

static int sdp_load(const uint32_t *regs, struct sdp_cfg *c)
{
	uint32_t cfg = dreg(regs, VDLA_D_CFG);
	uint32_t known = VDLA_SDP_CFG_SRC_FLYING | VDLA_SDP_CFG_DST_FLYING |
			 (VDLA_SDP_FIELD_MASK << VDLA_SDP_CFG_BIAS_SHIFT) |
			 (VDLA_SDP_FIELD_MASK << VDLA_SDP_CFG_SCALE_SHIFT) |
			 (VDLA_SDP_FIELD_MASK << VDLA_SDP_CFG_EW_SHIFT) |
			 (VDLA_SDP_FIELD_MASK << VDLA_SDP_CFG_ACT_SHIFT) |
			 (VDLA_CFG_ROUND_MASK << VDLA_CFG_ROUND_SHIFT) | VDLA_CFG_WRAP;
	int ret;

	if (cfg & ~known)
		return VDLA_ERROR_PARAM;
	c->src_flying = cfg & VDLA_SDP_CFG_SRC_FLYING;
	c->dst_flying = cfg & VDLA_SDP_CFG_DST_FLYING;
	c->bias_mode = (cfg >> VDLA_SDP_CFG_BIAS_SHIFT) & VDLA_SDP_FIELD_MASK;
	c->scale_mode = (cfg >> VDLA_SDP_CFG_SCALE_SHIFT) & VDLA_SDP_FIELD_MASK;
	c->ew_op = (cfg >> VDLA_SDP_CFG_EW_SHIFT) & VDLA_SDP_FIELD_MASK;
	c->act = (cfg >> VDLA_SDP_CFG_ACT_SHIFT) & VDLA_SDP_FIELD_MASK;
	c->round = (cfg >> VDLA_CFG_ROUND_SHIFT) & VDLA_CFG_ROUND_MASK;
	c->wrap = cfg & VDLA_CFG_WRAP;
	if (c->bias_mode > VDLA_SDP_MODE_PER_CHANNEL || c->scale_mode > VDLA_SDP_MODE_PER_CHANNEL ||
	    c->round >= VDLA_ROUND_MODES)
		return VDLA_ERROR_PARAM;

	ret = tensor_load(regs, VDLA_SDP_SRC, &c->src);
	if (!ret)
		ret = tensor_load(regs, VDLA_SDP_DST, &c->dst);
	if (!ret && c->ew_op != VDLA_SDP_EW_OP_NONE)
		ret = tensor_load(regs, VDLA_SDP_EW, &c->ew);
	if (ret)
		return ret;

	c->int_path = int_type(c->src.dtype);
	if (c->int_path) {
		if (!int_type(c->dst.dtype) ||
		    (c->ew_op != VDLA_SDP_EW_OP_NONE && !int_type(c->ew.dtype)))
			return VDLA_ERROR_DTYPE;
	} else {
		if (c->dst.dtype == VDLA_DTYPE_INT32 ||
		    (c->ew_op != VDLA_SDP_EW_OP_NONE && !dtype_is_float(c->ew.dtype)))
			return VDLA_ERROR_DTYPE;
	}
	if (!tensor_same_shape(&c->src, &c->dst) ||
	    (c->ew_op != VDLA_SDP_EW_OP_NONE && !tensor_same_shape(&c->src, &c->ew)))
		return VDLA_ERROR_SHAPE;

	c->bias_addr = dreg64(regs, VDLA_SDP_BIAS_ADDR_LO);
	c->regs_bias = dreg(regs, VDLA_SDP_BIAS_VALUE);
	c->scale_addr = dreg64(regs, VDLA_SDP_SCALE_ADDR_LO);
	c->scale_mul = dreg(regs, VDLA_SDP_SCALE_MUL);
	c->scale_shift = dreg(regs, VDLA_SDP_SCALE_SHIFT);
	c->ew_mul = dreg(regs, VDLA_SDP_EW_MUL);
	c->ew_shift = dreg(regs, VDLA_SDP_EW_SHIFT);
	c->ew_post = dreg(regs, VDLA_SDP_EW_POST_SHIFT);
	c->clip_min = dreg(regs, VDLA_SDP_CLIP_MIN);
	c->clip_max = dreg(regs, VDLA_SDP_CLIP_MAX);
	c->lut_addr = dreg64(regs, VDLA_SDP_LUT_ADDR_LO);
	c->lut_start = dreg(regs, VDLA_SDP_LUT_START);
	c->lut_shift = dreg(regs, VDLA_SDP_LUT_SHIFT);
	c->out_offset = dreg(regs, VDLA_SDP_OUT_OFFSET);

	if (c->int_path) {
		if ((c->scale_mode == VDLA_SDP_MODE_PER_TENSOR && c->scale_shift > 63) ||
		    (c->ew_op != VDLA_SDP_EW_OP_NONE && c->ew_shift > 63) ||
		    (c->ew_op == VDLA_SDP_EW_OP_MUL && c->ew_post > 63) ||
		    (c->act == VDLA_SDP_ACT_LUT && c->lut_shift > 31) ||
		    (c->act == VDLA_SDP_ACT_CLIP && (int32_t)c->clip_max < (int32_t)c->clip_min))
			return VDLA_ERROR_PARAM;
	} else {
		float step = fp32_from_bits(c->lut_shift);

		if ((c->act == VDLA_SDP_ACT_LUT && !(step > 0 && isfinite(step))) ||
		    (c->act == VDLA_SDP_ACT_CLIP &&
		     !(fp32_from_bits(c->clip_max) >= fp32_from_bits(c->clip_min))))
			return VDLA_ERROR_PARAM;
	}
	return VDLA_ERROR_NONE;
}

static void params_free(struct sdp_params *p)
{
	free(p->bias_i);
	free(p->bias_f);
	free(p->mul_i);
	free(p->shift_i);
	free(p->scale_f);
}

/* Reads the per-channel vectors and the LUT the configuration uses. */
static int params_read(struct op *op, const struct sdp_cfg *c, struct sdp_params *p)
{
	uint32_t channels = c->src.dim[VDLA_DIM_C];
	uint8_t *raw = malloc((size_t)channels * 8 + VDLA_LUT_ENTRIES * 4);
	int ret = 0;

	memset(p, 0, sizeof(*p));
	if (!raw)
		return VDLA_ERROR_LIMIT;

	if (c->bias_mode == VDLA_SDP_MODE_PER_CHANNEL) {
		ret = op_read_range(op, c->bias_addr, (uint64_t)channels * 4, raw);
		if (ret)
			goto out;
		if (c->int_path) {
			p->bias_i = malloc(channels * sizeof(*p->bias_i));
			for (uint32_t k = 0; p->bias_i && k < channels; k++)
				p->bias_i[k] = load_int(raw + 4 * k, VDLA_DTYPE_INT32);
		} else {
			p->bias_f = malloc(channels * sizeof(*p->bias_f));
			for (uint32_t k = 0; p->bias_f && k < channels; k++)
				p->bias_f[k] = load_float(raw + 4 * k, VDLA_DTYPE_FP32);
		}
		if (!p->bias_i && !p->bias_f) {
			ret = VDLA_ERROR_LIMIT;
			goto out;
		}
	}

	if (c->scale_mode == VDLA_SDP_MODE_PER_CHANNEL) {
		ret = op_read_range(op, c->scale_addr, (uint64_t)channels * (c->int_path ? 8 : 4),
				    raw);
		if (ret)
			goto out;
		if (c->int_path) {
			p->mul_i = malloc(channels * sizeof(*p->mul_i));
			p->shift_i = malloc(channels * sizeof(*p->shift_i));
			if (!p->mul_i || !p->shift_i) {
				ret = VDLA_ERROR_LIMIT;
				goto out;
			}
			for (uint32_t k = 0; k < channels; k++) {
				int64_t shift = load_int(raw + 8 * k + 4, VDLA_DTYPE_INT32);

				p->mul_i[k] = load_int(raw + 8 * k, VDLA_DTYPE_INT32);
				if (shift < 0 || shift > 63) {
					ret = VDLA_ERROR_PARAM;
					goto out;
				}
				p->shift_i[k] = (uint32_t)shift;
			}
		} else {
			p->scale_f = malloc(channels * sizeof(*p->scale_f));
			if (!p->scale_f) {
				ret = VDLA_ERROR_LIMIT;
				goto out;
			}
			for (uint32_t k = 0; k < channels; k++)
				p->scale_f[k] = load_float(raw + 4 * k, VDLA_DTYPE_FP32);
		}
	}

	if (c->act == VDLA_SDP_ACT_LUT) {
		uint32_t entry = c->int_path ? 2 : 4;

		ret = op_read_range(op, c->lut_addr, (uint64_t)VDLA_LUT_ENTRIES * entry, raw);
		if (ret)
			goto out;
		for (int i = 0; i < VDLA_LUT_ENTRIES; i++) {
			if (c->int_path)
				p->lut_i[i] = load_int(raw + 2 * i, VDLA_DTYPE_INT16);
			else
				p->lut_f[i] = load_float(raw + 4 * i, VDLA_DTYPE_FP32);
		}
	}
out:
	free(raw);
	return ret;
}

static int64_t lut_int(const struct sdp_cfg *c, const struct sdp_params *p, int64_t v)
{
	int64_t t = sat64((i128)v - (int32_t)c->lut_start);
	int64_t i, f;

	if (t < 0)
		return p->lut_i[0];
	i = t >> c->lut_shift;
	if (i >= VDLA_LUT_ENTRIES - 1)
		return p->lut_i[VDLA_LUT_ENTRIES - 1];
	f = t - (i << c->lut_shift);
	/* |difference| < 2^17 and f < 2^LUT_SHIFT: the step fits, as does the sum. */
	return p->lut_i[i] + mul_rshift(p->lut_i[i + 1] - p->lut_i[i], f, c->lut_shift, c->round);
}

/* Where one row of SDP's operands is: the source, the element-wise tensor
 * (NULL without one), the output, and the output channel. */
struct sdp_row {
	const uint8_t *x, *y;
	uint8_t *o;
	uint64_t x_stride, y_stride, o_stride;
	uint32_t x_dtype, count, k;
};

/*
 * The integer path of docs/hw-spec.md, "SDP", on a row: each step is one
 * loop over the row with its mode decided once, in exact 64-bit arithmetic
 * (128-bit only when a product does not fit).
 */
static void row_int(const struct sdp_cfg *c, const struct sdp_params *p, const struct sdp_row *r)
{
	int64_t v[ROW_CHUNK], e[ROW_CHUNK];
	uint32_t n = r->count;

	row_load_int(r->x, r->x_stride, r->x_dtype, n, v);

	if (c->bias_mode != VDLA_SDP_MODE_NONE) {
		int64_t b = c->bias_mode == VDLA_SDP_MODE_PER_TENSOR ? (int32_t)c->regs_bias :
								       p->bias_i[r->k];

		for (uint32_t i = 0; i < n; i++)
			v[i] = sat_add64(v[i], b);
	}

	if (c->scale_mode != VDLA_SDP_MODE_NONE) {
		bool tensor = c->scale_mode == VDLA_SDP_MODE_PER_TENSOR;
		int64_t mul = tensor ? (int32_t)c->scale_mul : p->mul_i[r->k];
		uint32_t shift = tensor ? c->scale_shift : p->shift_i[r->k];

		row_mul_rshift(v, n, mul, NULL, shift, c->round);
	}

	if (c->ew_op != VDLA_SDP_EW_OP_NONE) {
		row_load_int(r->y, r->y_stride, c->ew.dtype, n, e);
		row_mul_rshift(e, n, (int32_t)c->ew_mul, NULL, c->ew_shift, c->round);
		if (c->ew_op == VDLA_SDP_EW_OP_ADD) {
			for (uint32_t i = 0; i < n; i++)
				v[i] = sat_add64(v[i], e[i]);
		} else if (c->ew_op == VDLA_SDP_EW_OP_MUL) {
			row_mul_rshift(v, n, 0, e, c->ew_post, c->round);
		} else {
			for (uint32_t i = 0; i < n; i++)
				v[i] = v[i] > e[i] ? v[i] : e[i];
		}
	}

	switch (c->act) {
	case VDLA_SDP_ACT_RELU:
		for (uint32_t i = 0; i < n; i++)
			v[i] = v[i] > 0 ? v[i] : 0;
		break;
	case VDLA_SDP_ACT_CLIP: {
		int64_t lo = (int32_t)c->clip_min, hi = (int32_t)c->clip_max;

		for (uint32_t i = 0; i < n; i++)
			v[i] = v[i] < lo ? lo : (v[i] > hi ? hi : v[i]);
		break;
	}
	case VDLA_SDP_ACT_LUT:
		for (uint32_t i = 0; i < n; i++)
			v[i] = lut_int(c, p, v[i]);
		break;
	}

	if (c->out_offset) {
		for (uint32_t i = 0; i < n; i++)
			v[i] = sat_add64(v[i], (int32_t)c->out_offset);
	}
	row_store_int(r->o, r->o_stride, c->dst.dtype, n, v, c->wrap);
}

static float lut_float(const struct sdp_cfg *c, const struct sdp_params *p, float v)
{
	float t = (v - fp32_from_bits(c->lut_start)) / fp32_from_bits(c->lut_shift);
	int i;

	if (!(t > 0.0f))
		return p->lut_f[0];
	if (t >= (float)(VDLA_LUT_ENTRIES - 1))
		return p->lut_f[VDLA_LUT_ENTRIES - 1];
	i = (int)floorf(t);
	return p->lut_f[i] + (p->lut_f[i + 1] - p->lut_f[i]) * (t - (float)i);
}

/* The float path of docs/hw-spec.md, "SDP", on a row, step by step. */
static void row_float(const struct sdp_cfg *c, const struct sdp_params *p,
		      const struct sdp_row *r)
{
	float v[ROW_CHUNK], e[ROW_CHUNK];
	uint32_t n = r->count;

	row_load_float(r->x, r->x_stride, r->x_dtype, n, v);

	if (c->bias_mode != VDLA_SDP_MODE_NONE) {
		float b = c->bias_mode == VDLA_SDP_MODE_PER_TENSOR ? fp32_from_bits(c->regs_bias) :
								     p->bias_f[r->k];

		for (uint32_t i = 0; i < n; i++)
			v[i] = v[i] + b;
	}

	if (c->scale_mode != VDLA_SDP_MODE_NONE) {
		float s = c->scale_mode == VDLA_SDP_MODE_PER_TENSOR ? fp32_from_bits(c->scale_mul) :
								      p->scale_f[r->k];

		for (uint32_t i = 0; i < n; i++)
			v[i] = v[i] * s;
	}

	if (c->ew_op != VDLA_SDP_EW_OP_NONE) {
		float m = fp32_from_bits(c->ew_mul);

		row_load_float(r->y, r->y_stride, c->ew.dtype, n, e);
		for (uint32_t i = 0; i < n; i++)
			e[i] = e[i] * m;
		if (c->ew_op == VDLA_SDP_EW_OP_ADD) {
			for (uint32_t i = 0; i < n; i++)
				v[i] = v[i] + e[i];
		} else if (c->ew_op == VDLA_SDP_EW_OP_MUL) {
			for (uint32_t i = 0; i < n; i++)
				v[i] = v[i] * e[i];
		} else {
			for (uint32_t i = 0; i < n; i++)
				v[i] = spec_fmaxf(v[i], e[i]);
		}
	}

	switch (c->act) {
	case VDLA_SDP_ACT_RELU:
		for (uint32_t i = 0; i < n; i++)
			v[i] = spec_fmaxf(v[i], 0.0f);
		break;
	case VDLA_SDP_ACT_CLIP: {
		float lo = fp32_from_bits(c->clip_min), hi = fp32_from_bits(c->clip_max);

		for (uint32_t i = 0; i < n; i++)
			v[i] = spec_fminf(spec_fmaxf(v[i], lo), hi);
		break;
	}
	case VDLA_SDP_ACT_LUT:
		for (uint32_t i = 0; i < n; i++)
			v[i] = lut_float(c, p, v[i]);
		break;
	}

	if (dtype_is_float(c->dst.dtype))
		row_store_float(r->o, r->o_stride, c->dst.dtype, n, v);
	else
		row_store_rounded(r->o, r->o_stride, c->dst.dtype, n, v, c->round, c->wrap);
}

int sdp_run(struct op *op)
{
	struct sdp_cfg c;
	struct sdp_params p;
	const uint8_t *src_shadow = NULL, *ew_shadow = NULL;
	uint8_t *out;
	const uint8_t *src_base;
	struct tensor out_t;
	const struct tensor *in_t;
	int ret = sdp_load(op->regs, &c);

	if (ret)
		return ret;
	ret = op_input(op, &c.src, c.src_flying, &in_t, &src_base, &src_shadow);
	if (ret)
		return ret;

	ret = params_read(op, &c, &p);
	if (!ret && c.ew_op != VDLA_SDP_EW_OP_NONE)
		ew_shadow = op_gather(op, &c.ew, &ret);
	if (ret)
		goto out;

	if (c.dst_flying) {
		ret = op_fly_alloc(op, &c.dst, c.dst.dtype);
		out_t = op->fly_out.t;
		out = op->fly_out.data;
	} else {
		out_t = c.dst;
		out = op_alloc(op, tensor_extent(&c.dst));
		ret = out ? 0 : VDLA_ERROR_LIMIT;
	}
	if (ret)
		goto out;

	for (uint32_t n = 0; n < c.src.dim[VDLA_DIM_N]; n++) {
		for (uint32_t k = 0; k < c.src.dim[VDLA_DIM_C]; k++) {
			for (uint32_t h = 0; h < c.src.dim[VDLA_DIM_H]; h++) {
				if (op_cancelled(op)) {
					ret = VDLA_ERROR_CANCELLED;
					if (!c.dst_flying)
						op_free(op, out);
					goto out;
				}
				for (uint32_t w = 0; w < c.src.dim[VDLA_DIM_W]; w += ROW_CHUNK) {
					uint32_t left = c.src.dim[VDLA_DIM_W] - w;
					struct sdp_row r = {
						.x = src_base + tensor_offset(in_t, n, k, h, w),
						.y = ew_shadow ? ew_shadow +
								 tensor_offset(&c.ew, n, k, h, w) :
								 NULL,
						.o = out + tensor_offset(&out_t, n, k, h, w),
						.x_stride = in_t->stride[VDLA_DIM_W],
						.y_stride = ew_shadow ? c.ew.stride[VDLA_DIM_W] : 0,
						.o_stride = out_t.stride[VDLA_DIM_W],
						.x_dtype = in_t->dtype,
						.count = left < ROW_CHUNK ? left : ROW_CHUNK,
						.k = k,
					};

					if (c.int_path)
						row_int(&c, &p, &r);
					else
						row_float(&c, &p, &r);
				}
			}
		}
	}
	op->stat.macs = tensor_elements(&c.src) *
			((c.scale_mode != VDLA_SDP_MODE_NONE) + (c.ew_op == VDLA_SDP_EW_OP_MUL));
	if (!c.dst_flying)
		ret = op_stage_output(op, &c.dst, out);
out:
	params_free(&p);
	op_free(op, src_shadow);
	op_free(op, ew_shadow);
	return ret;
}
