// SPDX-License-Identifier: MIT
/*
 * CDP: local response normalisation across channels (docs/hw-spec.md,
 * "CDP"): a LUT of software's making on the integer path, the formula on the
 * float path.
 */
#include <math.h>
#include <stdlib.h>

#include "engines.h"
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
	return sat64((i128)lut[i] + rshift128((i128)(lut[i + 1] - lut[i]) * f, c->lut_shift,
					      c->round));
}

int cdp_run(struct op *op)
{
	struct cdp_cfg c;
	int64_t lut[VDLA_LUT_ENTRIES];
	uint8_t *shadow, *out;
	bool is_float;
	int half, ret = cdp_load(op->regs, &c);

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

	half = (int)c.size / 2;
	for (uint32_t n = 0; n < c.src.dim[VDLA_DIM_N]; n++) {
		for (uint32_t h = 0; h < c.src.dim[VDLA_DIM_H]; h++) {
			if (op_cancelled(op)) {
				op_free(op, out);
				op_free(op, shadow);
				return VDLA_ERROR_CANCELLED;
			}
			for (uint32_t w = 0; w < c.src.dim[VDLA_DIM_W]; w++) {
				for (int k = 0; k < (int)c.src.dim[VDLA_DIM_C]; k++) {
					const uint8_t *x = shadow + tensor_offset(&c.src, n, k, h, w);
					uint8_t *o = out + tensor_offset(&c.dst, n, k, h, w);
					int lo = k - half < 0 ? 0 : k - half;
					int hi = k + half >= (int)c.src.dim[VDLA_DIM_C] ?
							 (int)c.src.dim[VDLA_DIM_C] - 1 :
							 k + half;

					if (is_float) {
						float s = 0;

						for (int j = lo; j <= hi; j++) {
							float v = load_float(shadow + tensor_offset(&c.src, n, j, h, w),
									     c.src.dtype);

							s += v * v;
						}
						store_float(o, c.dst.dtype,
							    load_float(x, c.src.dtype) *
								    powf(c.k + c.alpha / (float)c.size * s,
									 -c.beta));
					} else {
						int64_t s = 0, m;

						for (int j = lo; j <= hi; j++) {
							int64_t v = load_int(shadow + tensor_offset(&c.src, n, j, h, w),
									     c.src.dtype);

							s += v * v;
						}
						m = lut_lookup(&c, lut, s);
						store_int(o, c.dst.dtype,
							  convert_int(rshift((i128)load_int(x, c.src.dtype) * m,
									     c.out_shift, c.round),
								      dtype_bits(c.dst.dtype), c.wrap));
					}
				}
			}
		}
	}
	op->stat.macs = tensor_elements(&c.src) * c.size;
	op_free(op, shadow);
	return op_stage_output(op, &c.dst, out);
}
