// SPDX-License-Identifier: MIT
/*
 * CONV: direct convolution (docs/hw-spec.md, "CONV"). Inputs are gathered,
 * made dense with the padding materialised (so PAD_VALUE can be anything),
 * and handed to oneDNN (INT8, FP16 through FP32, FP32) or to exact 64-bit
 * loops (INT16, which oneDNN does not support).
 */
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "engines.h"
#include "tensor_io.h"

struct conv_cfg {
	struct tensor src, wgt, dst;
	uint32_t sx, sy, pl, pr, pt, pb, dx, dy, groups;
	uint32_t pad_value;
	bool flying;
};

static uint32_t lo16(uint32_t v)
{
	return v & 0xffff;
}

static uint32_t hi16(uint32_t v)
{
	return v >> 16;
}

static int conv_load(const uint32_t *regs, struct conv_cfg *c)
{
	uint32_t cfg = dreg(regs, VDLA_D_CFG);
	uint32_t in_type, out_type, kh, kw, span;
	int64_t numerator;
	int ret;

	if (cfg & ~VDLA_CONV_CFG_DST_FLYING)
		return VDLA_ERROR_PARAM;
	c->flying = cfg & VDLA_CONV_CFG_DST_FLYING;
	ret = tensor_load(regs, VDLA_CONV_SRC, &c->src);
	if (!ret)
		ret = tensor_load(regs, VDLA_CONV_WGT, &c->wgt);
	if (!ret)
		ret = tensor_load(regs, VDLA_CONV_DST, &c->dst);
	if (ret)
		return ret;

	in_type = c->src.dtype;
	out_type = dtype_is_float(in_type) ? VDLA_DTYPE_FP32 : VDLA_DTYPE_INT32;
	if (in_type == VDLA_DTYPE_INT32 || c->wgt.dtype != in_type || c->dst.dtype != out_type)
		return VDLA_ERROR_DTYPE;

	c->sx = lo16(dreg(regs, VDLA_CONV_STRIDE));
	c->sy = hi16(dreg(regs, VDLA_CONV_STRIDE));
	c->pl = lo16(dreg(regs, VDLA_CONV_PAD_LR));
	c->pr = hi16(dreg(regs, VDLA_CONV_PAD_LR));
	c->pt = lo16(dreg(regs, VDLA_CONV_PAD_TB));
	c->pb = hi16(dreg(regs, VDLA_CONV_PAD_TB));
	c->dx = lo16(dreg(regs, VDLA_CONV_DILATION));
	c->dy = hi16(dreg(regs, VDLA_CONV_DILATION));
	c->groups = dreg(regs, VDLA_CONV_GROUPS);
	c->pad_value = dreg(regs, VDLA_CONV_PAD_VALUE);
	kw = c->wgt.dim[VDLA_DIM_W];
	kh = c->wgt.dim[VDLA_DIM_H];

	if (c->sx < 1 || c->sx > VDLA_CONV_MAX_STRIDE || c->sy < 1 ||
	    c->sy > VDLA_CONV_MAX_STRIDE || c->dx < 1 || c->dx > VDLA_CONV_MAX_DILATION ||
	    c->dy < 1 || c->dy > VDLA_CONV_MAX_DILATION || c->pl > VDLA_CONV_MAX_PAD ||
	    c->pr > VDLA_CONV_MAX_PAD || c->pt > VDLA_CONV_MAX_PAD || c->pb > VDLA_CONV_MAX_PAD ||
	    kw > VDLA_CONV_MAX_KERNEL || kh > VDLA_CONV_MAX_KERNEL || c->groups == 0)
		return VDLA_ERROR_PARAM;
	if (in_type == VDLA_DTYPE_INT8 &&
	    ((int32_t)c->pad_value < -128 || (int32_t)c->pad_value > 127))
		return VDLA_ERROR_PARAM;
	if (in_type == VDLA_DTYPE_INT16 &&
	    ((int32_t)c->pad_value < -32768 || (int32_t)c->pad_value > 32767))
		return VDLA_ERROR_PARAM;

	if (c->src.dim[VDLA_DIM_C] % c->groups || c->wgt.dim[VDLA_DIM_N] % c->groups ||
	    c->wgt.dim[VDLA_DIM_C] * c->groups != c->src.dim[VDLA_DIM_C] ||
	    c->dst.dim[VDLA_DIM_C] != c->wgt.dim[VDLA_DIM_N] ||
	    c->dst.dim[VDLA_DIM_N] != c->src.dim[VDLA_DIM_N])
		return VDLA_ERROR_SHAPE;

	span = (kw - 1) * c->dx + 1;
	numerator = (int64_t)c->src.dim[VDLA_DIM_W] + c->pl + c->pr - span;
	if (numerator < 0 || c->dst.dim[VDLA_DIM_W] != numerator / c->sx + 1)
		return VDLA_ERROR_SHAPE;
	span = (kh - 1) * c->dy + 1;
	numerator = (int64_t)c->src.dim[VDLA_DIM_H] + c->pt + c->pb - span;
	if (numerator < 0 || c->dst.dim[VDLA_DIM_H] != numerator / c->sy + 1)
		return VDLA_ERROR_SHAPE;

	if ((uint64_t)c->wgt.dim[VDLA_DIM_C] * kh * kw > VDLA_CONV_MAX_REDUCTION)
		return VDLA_ERROR_LIMIT;
	return VDLA_ERROR_NONE;
}

/* Copies the input into a dense padded NCHW buffer of int8/int16/float. */
static void *dense_input(const struct conv_cfg *c, const uint8_t *shadow, uint32_t *ih,
			 uint32_t *iw)
{
	const struct tensor *t = &c->src;
	uint32_t n = t->dim[VDLA_DIM_N], ch = t->dim[VDLA_DIM_C];
	uint32_t h = t->dim[VDLA_DIM_H], w = t->dim[VDLA_DIM_W];
	uint32_t ph = h + c->pt + c->pb, pw = w + c->pl + c->pr;
	bool is_float = dtype_is_float(t->dtype);
	size_t esize = is_float ? 4 : t->esize;
	uint8_t *dense = malloc((size_t)n * ch * ph * pw * esize);

	if (!dense)
		return NULL;
	*ih = ph;
	*iw = pw;

	for (uint32_t b = 0; b < n; b++) {
		for (uint32_t k = 0; k < ch; k++) {
			uint8_t *plane = dense + ((size_t)b * ch + k) * ph * pw * esize;

			for (uint32_t y = 0; y < ph; y++) {
				for (uint32_t x = 0; x < pw; x++) {
					uint8_t *out = plane + ((size_t)y * pw + x) * esize;
					bool inside = y >= c->pt && y < c->pt + h && x >= c->pl &&
						      x < c->pl + w;
					const uint8_t *in = inside ?
						shadow + tensor_offset(t, b, k, y - c->pt, x - c->pl) :
						NULL;

					if (is_float) {
						float v = inside ? load_float(in, t->dtype) :
								   fp32_from_bits(c->pad_value);

						memcpy(out, &v, 4);
					} else {
						store_int(out, t->dtype,
							  inside ? load_int(in, t->dtype) :
								   (int32_t)c->pad_value);
					}
				}
			}
		}
	}
	return dense;
}

/* Copies the weights into dense OIHW of int8/int16/float. */
static void *dense_weights(const struct tensor *t, const uint8_t *shadow)
{
	bool is_float = dtype_is_float(t->dtype);
	size_t esize = is_float ? 4 : t->esize;
	uint8_t *dense = malloc(tensor_elements(t) * esize);
	uint8_t *out = dense;

	if (!dense)
		return NULL;
	for (uint32_t o = 0; o < t->dim[VDLA_DIM_N]; o++) {
		for (uint32_t i = 0; i < t->dim[VDLA_DIM_C]; i++) {
			for (uint32_t y = 0; y < t->dim[VDLA_DIM_H]; y++) {
				for (uint32_t x = 0; x < t->dim[VDLA_DIM_W]; x++) {
					const uint8_t *in = shadow + tensor_offset(t, o, i, y, x);

					if (is_float) {
						float v = load_float(in, t->dtype);

						memcpy(out, &v, 4);
					} else {
						store_int(out, t->dtype, load_int(in, t->dtype));
					}
					out += esize;
				}
			}
		}
	}
	return dense;
}

/* INT16: exact products, 64-bit sums, saturated to 32 bits. */
static void conv_int16(const struct conv_problem *p)
{
	const int16_t *src = p->src, *wgt = p->wgt;
	int32_t *dst = p->dst;
	uint32_t icg = p->ic / p->groups, ocg = p->oc / p->groups;

	for (uint32_t b = 0; b < p->n; b++) {
		for (uint32_t o = 0; o < p->oc; o++) {
			uint32_t g = o / ocg;

			for (uint32_t y = 0; y < p->oh; y++) {
				for (uint32_t x = 0; x < p->ow; x++) {
					int64_t acc = 0;

					for (uint32_t i = 0; i < icg; i++) {
						const int16_t *plane =
							src + ((size_t)b * p->ic + g * icg + i) *
								      p->ih * p->iw;
						const int16_t *k =
							wgt + (((size_t)o * icg + i) * p->kh) * p->kw;

						for (uint32_t ky = 0; ky < p->kh; ky++) {
							const int16_t *row =
								plane + (size_t)(y * p->sy + ky * p->dy) *
										p->iw +
								x * p->sx;

							for (uint32_t kx = 0; kx < p->kw; kx++)
								acc += (int32_t)row[kx * p->dx] *
								       k[ky * p->kw + kx];
						}
					}
					dst[(((size_t)b * p->oc + o) * p->oh + y) * p->ow + x] =
						(int32_t)convert_int(acc, 32, false);
				}
			}
		}
	}
}

/* Copies the dense NCHW result into the DST shadow with its strides. */
static void scatter_result(const struct tensor *t, const uint8_t *dense, uint8_t *shadow)
{
	const uint8_t *in = dense;

	for (uint32_t b = 0; b < t->dim[VDLA_DIM_N]; b++)
		for (uint32_t k = 0; k < t->dim[VDLA_DIM_C]; k++)
			for (uint32_t y = 0; y < t->dim[VDLA_DIM_H]; y++)
				for (uint32_t x = 0; x < t->dim[VDLA_DIM_W]; x++, in += 4)
					memcpy(shadow + tensor_offset(t, b, k, y, x), in, 4);
}

int conv_run(struct op *op)
{
	struct conv_cfg c;
	struct conv_problem p;
	uint8_t *src_shadow = NULL, *wgt_shadow = NULL, *result, *out_shadow;
	void *src = NULL, *wgt = NULL;
	int ret = conv_load(op->regs, &c);

	if (ret)
		return ret;

	src_shadow = op_gather(op, &c.src, &ret);
	if (!ret)
		wgt_shadow = op_gather(op, &c.wgt, &ret);
	if (ret)
		goto out;

	memset(&p, 0, sizeof(p));
	p.n = c.src.dim[VDLA_DIM_N];
	p.groups = c.groups;
	p.ic = c.src.dim[VDLA_DIM_C];
	p.oc = c.dst.dim[VDLA_DIM_C];
	p.oh = c.dst.dim[VDLA_DIM_H];
	p.ow = c.dst.dim[VDLA_DIM_W];
	p.kh = c.wgt.dim[VDLA_DIM_H];
	p.kw = c.wgt.dim[VDLA_DIM_W];
	p.sy = c.sy;
	p.sx = c.sx;
	p.dy = c.dy;
	p.dx = c.dx;
	src = dense_input(&c, src_shadow, &p.ih, &p.iw);
	wgt = dense_weights(&c.wgt, wgt_shadow);
	ret = op_fly_alloc(op, &c.dst, c.dst.dtype);
	if (!src || !wgt || ret) {
		ret = VDLA_ERROR_LIMIT;
		goto out;
	}
	result = op->fly_out.data;
	p.src = src;
	p.wgt = wgt;
	p.dst = result;

	if (c.src.dtype == VDLA_DTYPE_INT16)
		conv_int16(&p);
	else if (conv_onednn(op->core, &p, c.src.dtype == VDLA_DTYPE_INT8))
		ret = VDLA_ERROR_LIMIT;
	if (ret)
		goto out;
	op->stat.macs = (uint64_t)p.n * p.oc * p.oh * p.ow * c.wgt.dim[VDLA_DIM_C] * p.kh * p.kw;

	if (!c.flying) {
		out_shadow = malloc(tensor_extent(&c.dst));
		if (!out_shadow) {
			ret = VDLA_ERROR_LIMIT;
			goto out;
		}
		scatter_result(&c.dst, result, out_shadow);
		free(op->fly_out.data);
		op->fly_out.data = NULL;
		ret = op_stage_output(op, &c.dst, out_shadow);
	}
out:
	free(src);
	free(wgt);
	free(src_shadow);
	free(wgt_shadow);
	return ret;
}
