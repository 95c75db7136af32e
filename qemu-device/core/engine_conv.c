// SPDX-License-Identifier: MIT
/*
 * CONV: direct convolution (docs/hw-spec.md, "CONV"). Inputs are gathered,
 * made dense with the padding materialised (so PAD_VALUE can be anything)
 * where the computing code needs it, and handed to oneDNN (FP16 through
 * FP32, FP32, and INT8 on the onednn compute path) or to vdla's exact
 * integer kernels (INT8 and INT16 on the other paths, INT16 on every path:
 * oneDNN has no INT16 convolution). compute_path.c says which is which.
 */
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "conv_int.h"
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
	uint32_t in_type, out_type, kh, kw;
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

	if (c->dst.dim[VDLA_DIM_W] != vdla_conv_output_size(c->src.dim[VDLA_DIM_W], c->pl, c->pr,
							    kw, c->dx, c->sx) ||
	    c->dst.dim[VDLA_DIM_H] != vdla_conv_output_size(c->src.dim[VDLA_DIM_H], c->pt, c->pb,
							    kh, c->dy, c->sy))
		return VDLA_ERROR_SHAPE;

	if ((uint64_t)c->wgt.dim[VDLA_DIM_C] * kh * kw > VDLA_CONV_MAX_REDUCTION ||
	    tensor_elements(&c->dst) * c->wgt.dim[VDLA_DIM_C] * kh * kw > VDLA_CONV_MAX_MACS)
		return VDLA_ERROR_LIMIT;
	return VDLA_ERROR_NONE;
}

/* Strides in elements of @t in N, C, H, W order, valid for size-1 dimensions. */
static void element_strides(const struct tensor *t, int64_t *stride)
{
	static const int order[4] = { VDLA_DIM_N, VDLA_DIM_C, VDLA_DIM_H, VDLA_DIM_W };
	int64_t dense = 1;

	for (int i = 3; i >= 0; i--) {
		int d = order[i];

		stride[i] = t->dim[d] > 1 ? (int64_t)(t->stride[d] / t->esize) : dense;
		dense *= t->dim[d];
	}
}

static void dense_strides(const uint32_t *dims_nchw, int64_t *stride)
{
	stride[3] = 1;
	for (int i = 2; i >= 0; i--)
		stride[i] = stride[i + 1] * dims_nchw[i + 1];
}

/*
 * Copies @t into a dense NCHW buffer of int8, int16 or float (FP16 is
 * widened), surrounded by @pad rows/columns of @pad_value. Rows are copied
 * with memcpy where the layout and type allow.
 */
static void *dense_copy(struct op *op, const struct tensor *t, const uint8_t *shadow,
			uint32_t pt, uint32_t pb, uint32_t pl, uint32_t pr, uint32_t pad_value)
{
	uint32_t n = t->dim[VDLA_DIM_N], ch = t->dim[VDLA_DIM_C];
	uint32_t h = t->dim[VDLA_DIM_H], w = t->dim[VDLA_DIM_W];
	uint32_t ph = h + pt + pb, pw = w + pl + pr;
	bool is_float = dtype_is_float(t->dtype);
	size_t esize = is_float ? 4 : t->esize;
	bool row_copy = !is_float || t->dtype == VDLA_DTYPE_FP32;
	uint8_t *dense = op_alloc(op, (size_t)n * ch * ph * pw * esize);
	uint8_t pad[4];

	if (!dense)
		return NULL;
	if (is_float)
		memcpy(pad, &pad_value, 4);
	else
		store_int(pad, t->dtype, (int32_t)pad_value);
	row_copy = row_copy && (w == 1 || t->stride[VDLA_DIM_W] == t->esize);

	for (uint32_t b = 0; b < n; b++) {
		for (uint32_t k = 0; k < ch; k++) {
			uint8_t *plane = dense + ((size_t)b * ch + k) * ph * pw * esize;

			for (uint32_t y = 0; y < ph; y++) {
				uint8_t *row = plane + (size_t)y * pw * esize;
				bool pad_row = y < pt || y >= pt + h;

				for (uint32_t x = 0; x < pw; x++) {
					if (pad_row || x < pl || x >= pl + w) {
						memcpy(row + x * esize, pad, esize);
					} else if (row_copy) {
						memcpy(row + x * esize,
						       shadow + tensor_offset(t, b, k, y - pt, 0),
						       (size_t)w * esize);
						x += w - 1;
					} else {
						const uint8_t *in =
							shadow + tensor_offset(t, b, k, y - pt, x - pl);

						if (is_float) {
							float v = load_float(in, t->dtype);

							memcpy(row + x * esize, &v, 4);
						} else {
							store_int(row + x * esize, t->dtype,
								  load_int(in, t->dtype));
						}
					}
				}
			}
		}
	}
	return dense;
}

/*
 * Copies a dense NCHW result of 4-byte elements into @shadow, laid out as
 * @t. Where elements of @t overlap, the last one written stays: one of the
 * values, as docs/hw-spec.md allows.
 */
static void scatter_dense(const struct tensor *t, const uint8_t *dense, uint8_t *shadow)
{
	for (uint32_t b = 0; b < t->dim[VDLA_DIM_N]; b++)
		for (uint32_t k = 0; k < t->dim[VDLA_DIM_C]; k++)
			for (uint32_t y = 0; y < t->dim[VDLA_DIM_H]; y++)
				for (uint32_t x = 0; x < t->dim[VDLA_DIM_W]; x++, dense += 4)
					memcpy(shadow + tensor_offset(t, b, k, y, x), dense, 4);
}

int conv_run(struct op *op)
{
	struct conv_cfg c;
	struct conv_problem p;
	const uint8_t *src_shadow = NULL, *wgt_shadow = NULL;
	uint8_t *out_shadow = NULL;
	void *src_dense = NULL, *wgt_dense = NULL, *out_dense = NULL;
	bool on_onednn;
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
	p.ih = c.src.dim[VDLA_DIM_H];
	p.iw = c.src.dim[VDLA_DIM_W];
	p.oc = c.dst.dim[VDLA_DIM_C];
	p.oh = c.dst.dim[VDLA_DIM_H];
	p.ow = c.dst.dim[VDLA_DIM_W];
	p.kh = c.wgt.dim[VDLA_DIM_H];
	p.kw = c.wgt.dim[VDLA_DIM_W];
	p.sy = c.sy;
	p.sx = c.sx;
	p.dy = c.dy;
	p.dx = c.dx;

	/*
	 * Which code computes (compute_path.c): oneDNN for float, and for INT8
	 * on the onednn path where the weights keep oneDNN exact; vdla's own
	 * integer kernels otherwise.
	 */
	p.wgt.data = (void *)wgt_shadow; /* inputs are only read */
	element_strides(&c.wgt, p.wgt.stride);
	on_onednn = dtype_is_float(c.src.dtype) ||
		    (c.src.dtype == VDLA_DTYPE_INT8 &&
		     op->core->compute_path == VDLA_COMPUTE_PATH_ONEDNN &&
		     conv_onednn_int8_is_exact(&p));
	/*
	 * vdla's integer kernels read and write every operand in place,
	 * through its strides. oneDNN does too, but pads with zeros only,
	 * computes FP16 as FP32, and refuses strides whose elements overlap:
	 * such an operand goes through a dense copy.
	 */
	p.pt = c.pt, p.pb = c.pb, p.pl = c.pl, p.pr = c.pr;
	p.src.data = (void *)src_shadow;
	element_strides(&c.src, p.src.stride);
	if (on_onednn && (c.src.dtype == VDLA_DTYPE_FP16 || c.pad_value ||
			  !conv_onednn_takes_strides(&p, CONV_SRC))) {
		uint32_t dims[4] = { p.n, p.ic, p.ih + c.pt + c.pb, p.iw + c.pl + c.pr };

		src_dense = dense_copy(op, &c.src, src_shadow, c.pt, c.pb, c.pl, c.pr,
				       c.pad_value);
		if (!src_dense) {
			ret = VDLA_ERROR_LIMIT;
			goto out;
		}
		p.ih = dims[2], p.iw = dims[3];
		p.pt = p.pb = p.pl = p.pr = 0;
		p.src.data = src_dense;
		dense_strides(dims, p.src.stride);
	}
	if (on_onednn && (c.wgt.dtype == VDLA_DTYPE_FP16 ||
			  !conv_onednn_takes_strides(&p, CONV_WGT))) {
		uint32_t dims[4] = { c.wgt.dim[VDLA_DIM_N], c.wgt.dim[VDLA_DIM_C], p.kh, p.kw };

		wgt_dense = dense_copy(op, &c.wgt, wgt_shadow, 0, 0, 0, 0, 0);
		if (!wgt_dense) {
			ret = VDLA_ERROR_LIMIT;
			goto out;
		}
		p.wgt.data = wgt_dense;
		dense_strides(dims, p.wgt.stride);
	}

	if (c.flying) {
		ret = op_fly_alloc(op, &c.dst, c.dst.dtype);
		if (ret)
			goto out;
		p.dst.data = op->fly_out.data;
		element_strides(&op->fly_out.t, p.dst.stride);
	} else {
		out_shadow = op_alloc(op, tensor_extent(&c.dst));
		if (!out_shadow) {
			ret = VDLA_ERROR_LIMIT;
			goto out;
		}
		p.dst.data = out_shadow;
		element_strides(&c.dst, p.dst.stride);
		if (on_onednn && !conv_onednn_takes_strides(&p, CONV_DST)) {
			uint32_t dims[4] = { p.n, p.oc, p.oh, p.ow };

			out_dense = op_alloc(op, tensor_elements(&c.dst) * 4);
			if (!out_dense) {
				ret = VDLA_ERROR_LIMIT;
				goto out;
			}
			p.dst.data = out_dense;
			dense_strides(dims, p.dst.stride);
		}
	}

	if (on_onednn)
		ret = conv_onednn(&op->core->dnnl, op->pool, &p, c.src.dtype == VDLA_DTYPE_INT8,
				  &op->mem);
	else
		ret = conv_int(op->pool, &p, c.src.dtype == VDLA_DTYPE_INT16, (int32_t)c.pad_value,
			       op->core->int_kernels, &op->mem);
	if (ret)
		goto out;
	op->stat.macs = (uint64_t)p.n * p.oc * p.oh * p.ow * c.wgt.dim[VDLA_DIM_C] * p.kh * p.kw;
	if (out_dense)
		scatter_dense(&c.dst, out_dense, out_shadow);

	if (out_shadow) {
		ret = op_stage_output(op, &c.dst, out_shadow);
		out_shadow = NULL;
	}
out:
	op_free(op, out_shadow);
	op_free(op, out_dense);
	op_free(op, src_dense);
	op_free(op, wgt_dense);
	op_free(op, src_shadow);
	op_free(op, wgt_shadow);
	return ret;
}
