// SPDX-License-Identifier: MIT
/*
 * The per-engine table: how each engine's operation is validated (the
 * hardware's own rules, docs/hw-spec.md, checked before anything is written)
 * and programmed into its D window. The scheduler (dla_engine.c) is written
 * once against this table.
 */
#include "dla_internal.h"

/* Address slots of an op (struct dla_op.addr). */
enum { A_SRC, A_DST, A_WGT, A_EW = 2, A_BIAS = 3, A_SCALE = 4, A_LUT = 5 };

static int is_int(uint32_t dtype)
{
	return dtype == VDLA_DTYPE_INT8 || dtype == VDLA_DTYPE_INT16 || dtype == VDLA_DTYPE_INT32;
}

static int is_float(uint32_t dtype)
{
	return dtype == VDLA_DTYPE_FP16 || dtype == VDLA_DTYPE_FP32;
}

static int fp32_is_nan(uint32_t bits)
{
	return (bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu);
}

/* An unsigned key that orders IEEE binary32 values (not NaN) as numbers. */
static uint32_t fp32_order_key(uint32_t bits)
{
	return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

void dla_shadow_invalidate(struct dla_engine *engine)
{
	struct dla_shadow *sh = &engine->shadow;

	dla_memset(sh->valid, 0, sizeof(sh->valid));
	dla_memset(sh->producer, DLA_NO_PRODUCER, sizeof(sh->producer));
}

void dla_select_group(struct dla_engine *engine, uint32_t e, uint32_t group)
{
	engine->shadow.target[e] = (uint8_t)group;
}

/*
 * Where an operation's D registers go: its engine, the target group's
 * shadow. Looked up once per operation; each register then costs a load, a
 * test and a compare with constant offsets when it holds its value already,
 * which most do. Some fifty such comparisons are most of the firmware's own
 * work per operation, which a guest pays at emulation speed.
 */
struct dla_d_group {
	struct dla_engine *engine;
	uint32_t e;
	uint32_t *value;
	uint32_t *valid;
};

static inline struct dla_d_group dla_d_group(struct dla_engine *engine, uint32_t e)
{
	struct dla_shadow *sh = &engine->shadow;
	uint32_t group = sh->target[e];

	return (struct dla_d_group){ engine, e, sh->value[e][group], sh->valid[e][group] };
}

/*
 * Writes D word @word of engine @e's target group, which differs from @value.
 * Out of line: the rare path of every register's comparison.
 */
static DLA_NOINLINE void write_changed_word(struct dla_engine *engine, uint32_t e,
					    uint32_t word, uint32_t value)
{
	struct dla_shadow *sh = &engine->shadow;
	uint32_t group = sh->target[e];

	if (sh->producer[e] != group) {
		dla_wr(engine, VDLA_ENGINE_BASE(e) + VDLA_E_POINTER, group);
		sh->producer[e] = (uint8_t)group;
	}
	dla_wr(engine, VDLA_ENGINE_BASE(e) + VDLA_D_WINDOW + 4 * word, value);
	sh->value[e][group][word] = value;
	sh->valid[e][group][word / 32] |= 1u << (word % 32);
}

/* Writes D register @offset of @d's group, unless it holds @value. */
static inline DLA_ALWAYS_INLINE void dla_wr_d(const struct dla_d_group *d, uint32_t offset,
					      uint32_t value)
{
	uint32_t word = (offset - VDLA_D_WINDOW) / 4;

	if ((d->valid[word / 32] & (1u << (word % 32))) && d->value[word] == value)
		return;
	write_changed_word(d->engine, d->e, word, value);
}

/* Forced inline so that every register offset is a constant. */
static inline DLA_ALWAYS_INLINE void dla_write_surface(const struct dla_d_group *d,
						       uint32_t offset,
						       const struct vdla_task_surface *s,
						       uint64_t addr)
{
	dla_wr_d(d, offset + VDLA_T_ADDR_LO, (uint32_t)addr);
	dla_wr_d(d, offset + VDLA_T_ADDR_HI, (uint32_t)(addr >> 32));
	dla_wr_d(d, offset + VDLA_T_DTYPE, s->dtype);
	dla_wr_d(d, offset + VDLA_T_W, s->w);
	dla_wr_d(d, offset + VDLA_T_H, s->h);
	dla_wr_d(d, offset + VDLA_T_C, s->c);
	dla_wr_d(d, offset + VDLA_T_N, s->n);
	dla_wr_d(d, offset + VDLA_T_STRIDE_W, s->stride_w);
	dla_wr_d(d, offset + VDLA_T_STRIDE_H, s->stride_h);
	dla_wr_d(d, offset + VDLA_T_STRIDE_C, s->stride_c);
	dla_wr_d(d, offset + VDLA_T_STRIDE_N, s->stride_n);
}

static inline DLA_ALWAYS_INLINE void write_common(const struct dla_d_group *d,
						  uint32_t context, uint32_t cfg)
{
	dla_wr_d(d, VDLA_D_CONTEXT, context);
	dla_wr_d(d, VDLA_D_CFG, cfg);
}

/* ---- BDMA --------------------------------------------------------------- */

static int32_t bdma_validate(struct dla_validator *v, struct dla_op *op)
{
	const struct vdla_task_bdma *b = &op->desc.bdma;
	uint64_t src_extent, dst_extent;

	if (b->reserved)
		return dla_reject(v, DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
	if (!b->line_bytes || b->line_bytes > VDLA_MAX_TENSOR_BYTES)
		return dla_reject(v, DLA_FIELD_LINE_BYTES, DLA_REASON_OUT_OF_RANGE);
	if (!b->lines || b->lines > VDLA_MAX_DIM)
		return dla_reject(v, DLA_FIELD_LINES, DLA_REASON_OUT_OF_RANGE);
	if (!b->surfaces || b->surfaces > VDLA_MAX_DIM)
		return dla_reject(v, DLA_FIELD_SURFACES, DLA_REASON_OUT_OF_RANGE);
	if ((uint64_t)b->line_bytes * b->lines * b->surfaces > VDLA_MAX_TENSOR_BYTES)
		return dla_reject(v, DLA_FIELD_SIZE, DLA_REASON_OVERFLOW);
	src_extent = (uint64_t)(b->surfaces - 1) * (b->surfaces > 1 ? b->src_surf_stride : 0) +
		     (uint64_t)(b->lines - 1) * (b->lines > 1 ? b->src_line_stride : 0) +
		     b->line_bytes;
	dst_extent = (uint64_t)(b->surfaces - 1) * (b->surfaces > 1 ? b->dst_surf_stride : 0) +
		     (uint64_t)(b->lines - 1) * (b->lines > 1 ? b->dst_line_stride : 0) +
		     b->line_bytes;
	if (src_extent > VDLA_MAX_TENSOR_BYTES || dst_extent > VDLA_MAX_TENSOR_BYTES)
		return dla_reject(v, DLA_FIELD_SIZE, DLA_REASON_OVERFLOW);
	if (dla_check_range(v, &b->src, src_extent, DLA_FIELD_SRC, &op->addr[A_SRC]))
		return DLA_ERR_INVALID_TASK;
	return dla_check_range(v, &b->dst, dst_extent, DLA_FIELD_DST, &op->addr[A_DST]);
}

static void bdma_program(struct dla_engine *engine, const struct dla_op *op, uint32_t context)
{
	const struct vdla_task_bdma *b = &op->desc.bdma;
	const struct dla_d_group d = dla_d_group(engine, VDLA_ENGINE_BDMA);

	write_common(&d, context, 0);
	dla_wr_d(&d, VDLA_BDMA_SRC_ADDR_LO, (uint32_t)op->addr[A_SRC]);
	dla_wr_d(&d, VDLA_BDMA_SRC_ADDR_HI, (uint32_t)(op->addr[A_SRC] >> 32));
	dla_wr_d(&d, VDLA_BDMA_DST_ADDR_LO, (uint32_t)op->addr[A_DST]);
	dla_wr_d(&d, VDLA_BDMA_DST_ADDR_HI, (uint32_t)(op->addr[A_DST] >> 32));
	dla_wr_d(&d, VDLA_BDMA_LINE_BYTES, b->line_bytes);
	dla_wr_d(&d, VDLA_BDMA_LINES, b->lines);
	dla_wr_d(&d, VDLA_BDMA_SRC_LINE_STRIDE, b->src_line_stride);
	dla_wr_d(&d, VDLA_BDMA_DST_LINE_STRIDE, b->dst_line_stride);
	dla_wr_d(&d, VDLA_BDMA_SURFACES, b->surfaces);
	dla_wr_d(&d, VDLA_BDMA_SRC_SURF_STRIDE, b->src_surf_stride);
	dla_wr_d(&d, VDLA_BDMA_DST_SURF_STRIDE, b->dst_surf_stride);
}

/* ---- CONV --------------------------------------------------------------- */

static int32_t conv_validate(struct dla_validator *v, struct dla_op *op)
{
	const struct vdla_task_conv *c = &op->desc.conv;
	uint32_t in = c->src.dtype, out = is_float(in) ? VDLA_DTYPE_FP32 : VDLA_DTYPE_INT32;

	if (c->reserved)
		return dla_reject(v, DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
	if (c->fly & ~VDLA_TASK_FLY_OUT)
		return dla_reject(v, DLA_FIELD_FLY, DLA_REASON_BAD_VALUE);
	if (dla_check_surface(v, &c->src, DLA_FIELD_SRC, 0, &op->addr[A_SRC]) ||
	    dla_check_surface(v, &c->wgt, DLA_FIELD_WGT, 0, &op->addr[A_WGT]) ||
	    dla_check_surface(v, &c->dst, DLA_FIELD_DST, c->fly & VDLA_TASK_FLY_OUT,
			      &op->addr[A_DST]))
		return DLA_ERR_INVALID_TASK;
	if (in == VDLA_DTYPE_INT32 || c->wgt.dtype != in)
		return dla_reject_in(v, DLA_FIELD_SRC, DLA_FIELD_DTYPE, DLA_REASON_TYPE);
	if (c->dst.dtype != out)
		return dla_reject_in(v, DLA_FIELD_DST, DLA_FIELD_DTYPE, DLA_REASON_TYPE);
	if (c->stride_x < 1 || c->stride_x > VDLA_CONV_MAX_STRIDE || c->stride_y < 1 ||
	    c->stride_y > VDLA_CONV_MAX_STRIDE)
		return dla_reject(v, DLA_FIELD_STRIDE, DLA_REASON_OUT_OF_RANGE);
	if (c->dilation_x < 1 || c->dilation_x > VDLA_CONV_MAX_DILATION || c->dilation_y < 1 ||
	    c->dilation_y > VDLA_CONV_MAX_DILATION)
		return dla_reject(v, DLA_FIELD_DILATION, DLA_REASON_OUT_OF_RANGE);
	if (c->pad_left > VDLA_CONV_MAX_PAD || c->pad_right > VDLA_CONV_MAX_PAD ||
	    c->pad_top > VDLA_CONV_MAX_PAD || c->pad_bottom > VDLA_CONV_MAX_PAD)
		return dla_reject(v, DLA_FIELD_PADDING, DLA_REASON_OUT_OF_RANGE);
	if (c->wgt.w > VDLA_CONV_MAX_KERNEL || c->wgt.h > VDLA_CONV_MAX_KERNEL)
		return dla_reject(v, DLA_FIELD_KERNEL, DLA_REASON_OUT_OF_RANGE);
	if (c->groups == 0)
		return dla_reject(v, DLA_FIELD_GROUPS, DLA_REASON_OUT_OF_RANGE);
	if (c->src.c % c->groups || c->wgt.n % c->groups || c->wgt.c * c->groups != c->src.c)
		return dla_reject(v, DLA_FIELD_GROUPS, DLA_REASON_SHAPE);
	if ((in == VDLA_DTYPE_INT8 && ((int32_t)c->pad_value < -128 || (int32_t)c->pad_value > 127)) ||
	    (in == VDLA_DTYPE_INT16 &&
	     ((int32_t)c->pad_value < -32768 || (int32_t)c->pad_value > 32767)))
		return dla_reject(v, DLA_FIELD_PAD_VALUE, DLA_REASON_OUT_OF_RANGE);
	if (c->dst.c != c->wgt.n || c->dst.n != c->src.n)
		return dla_reject_in(v, DLA_FIELD_DST, DLA_FIELD_DIMS, DLA_REASON_SHAPE);
	if (c->dst.w != vdla_conv_output_size(c->src.w, c->pad_left, c->pad_right, c->wgt.w,
					      c->dilation_x, c->stride_x) ||
	    c->dst.h != vdla_conv_output_size(c->src.h, c->pad_top, c->pad_bottom, c->wgt.h,
					      c->dilation_y, c->stride_y))
		return dla_reject_in(v, DLA_FIELD_DST, DLA_FIELD_DIMS, DLA_REASON_SHAPE);
	if ((uint64_t)c->wgt.c * c->wgt.h * c->wgt.w > VDLA_CONV_MAX_REDUCTION)
		return dla_reject_in(v, DLA_FIELD_WGT, DLA_FIELD_DIMS, DLA_REASON_OUT_OF_RANGE);
	if ((uint64_t)c->dst.w * c->dst.h * c->dst.c * c->dst.n * c->wgt.c * c->wgt.h * c->wgt.w >
	    VDLA_CONV_MAX_MACS)
		return dla_reject_in(v, DLA_FIELD_DST, DLA_FIELD_DIMS, DLA_REASON_OVERFLOW);
	return DLA_SUCCESS;
}

static void conv_program(struct dla_engine *engine, const struct dla_op *op, uint32_t context)
{
	const struct vdla_task_conv *c = &op->desc.conv;
	const struct dla_d_group d = dla_d_group(engine, VDLA_ENGINE_CONV);

	write_common(&d, context,
		     (c->fly & VDLA_TASK_FLY_OUT) ? VDLA_CONV_CFG_DST_FLYING : 0);
	dla_write_surface(&d, VDLA_CONV_SRC, &c->src, op->addr[A_SRC]);
	dla_write_surface(&d, VDLA_CONV_WGT, &c->wgt, op->addr[A_WGT]);
	dla_write_surface(&d, VDLA_CONV_DST, &c->dst, op->addr[A_DST]);
	dla_wr_d(&d, VDLA_CONV_STRIDE, c->stride_x | ((uint32_t)c->stride_y << 16));
	dla_wr_d(&d, VDLA_CONV_PAD_LR, c->pad_left | ((uint32_t)c->pad_right << 16));
	dla_wr_d(&d, VDLA_CONV_PAD_TB, c->pad_top | ((uint32_t)c->pad_bottom << 16));
	dla_wr_d(&d, VDLA_CONV_DILATION, c->dilation_x | ((uint32_t)c->dilation_y << 16));
	dla_wr_d(&d, VDLA_CONV_GROUPS, c->groups);
	dla_wr_d(&d, VDLA_CONV_PAD_VALUE, c->pad_value);
}

/* ---- SDP ---------------------------------------------------------------- */

static int32_t sdp_validate(struct dla_validator *v, struct dla_op *op)
{
	const struct vdla_task_sdp *s = &op->desc.sdp;
	int int_path = is_int(s->src.dtype);
	uint32_t channels = s->src.c;

	if (s->reserved0 || s->reserved1)
		return dla_reject(v, DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
	if (s->fly & ~(VDLA_TASK_FLY_IN | VDLA_TASK_FLY_OUT))
		return dla_reject(v, DLA_FIELD_FLY, DLA_REASON_BAD_VALUE);
	if (s->bias_mode > VDLA_SDP_MODE_PER_CHANNEL || s->scale_mode > VDLA_SDP_MODE_PER_CHANNEL ||
	    s->ew_op > VDLA_SDP_EW_OP_MAX || s->act > VDLA_SDP_ACT_LUT || s->wrap > 1)
		return dla_reject(v, DLA_FIELD_MODE, DLA_REASON_BAD_VALUE);
	if (s->round >= VDLA_ROUND_MODES)
		return dla_reject(v, DLA_FIELD_ROUND, DLA_REASON_BAD_VALUE);
	if (dla_check_surface(v, &s->src, DLA_FIELD_SRC, s->fly & VDLA_TASK_FLY_IN,
			      &op->addr[A_SRC]) ||
	    dla_check_surface(v, &s->dst, DLA_FIELD_DST, s->fly & VDLA_TASK_FLY_OUT,
			      &op->addr[A_DST]))
		return DLA_ERR_INVALID_TASK;
	if (s->ew_op != VDLA_SDP_EW_OP_NONE &&
	    dla_check_surface(v, &s->ew, DLA_FIELD_EW, 0, &op->addr[A_EW]))
		return DLA_ERR_INVALID_TASK;

	if (int_path) {
		if (!is_int(s->dst.dtype) || (s->ew_op && !is_int(s->ew.dtype)))
			return dla_reject_in(v, DLA_FIELD_DST, DLA_FIELD_DTYPE, DLA_REASON_TYPE);
		if ((s->scale_mode == VDLA_SDP_MODE_PER_TENSOR && s->scale_shift > 63) ||
		    (s->ew_op && s->ew_shift > 63) ||
		    (s->ew_op == VDLA_SDP_EW_OP_MUL && s->ew_post_shift > 63) ||
		    (s->act == VDLA_SDP_ACT_LUT && s->lut_shift > 31))
			return dla_reject(v, DLA_FIELD_SHIFT, DLA_REASON_OUT_OF_RANGE);
		if (s->act == VDLA_SDP_ACT_CLIP && (int32_t)s->clip_max < (int32_t)s->clip_min)
			return dla_reject(v, DLA_FIELD_CLIP, DLA_REASON_OUT_OF_RANGE);
	} else {
		if (s->dst.dtype == VDLA_DTYPE_INT32 || (s->ew_op && !is_float(s->ew.dtype)))
			return dla_reject_in(v, DLA_FIELD_DST, DLA_FIELD_DTYPE, DLA_REASON_TYPE);
		/*
		 * The device's float rules checked on the bit patterns, without
		 * floating point: a positive finite LUT step, CLIP_MAX >= CLIP_MIN.
		 */
		if (s->act == VDLA_SDP_ACT_LUT &&
		    (s->lut_shift == 0 || (s->lut_shift >> 31) || (s->lut_shift >> 23) == 0xff))
			return dla_reject(v, DLA_FIELD_SHIFT, DLA_REASON_OUT_OF_RANGE);
		if (s->act == VDLA_SDP_ACT_CLIP &&
		    (fp32_is_nan(s->clip_min) || fp32_is_nan(s->clip_max) ||
		     fp32_order_key(s->clip_max) < fp32_order_key(s->clip_min)))
			return dla_reject(v, DLA_FIELD_CLIP, DLA_REASON_OUT_OF_RANGE);
	}
	if (!dla_same_shape(&s->src, &s->dst) || (s->ew_op && !dla_same_shape(&s->src, &s->ew)))
		return dla_reject_in(v, DLA_FIELD_DST, DLA_FIELD_DIMS, DLA_REASON_SHAPE);
	if (s->bias_mode == VDLA_SDP_MODE_PER_CHANNEL &&
	    dla_check_range(v, &s->bias, (uint64_t)channels * 4, DLA_FIELD_BIAS, &op->addr[A_BIAS]))
		return DLA_ERR_INVALID_TASK;
	if (s->scale_mode == VDLA_SDP_MODE_PER_CHANNEL &&
	    dla_check_range(v, &s->scale, (uint64_t)channels * (int_path ? 8 : 4), DLA_FIELD_SCALE,
			    &op->addr[A_SCALE]))
		return DLA_ERR_INVALID_TASK;
	if (s->act == VDLA_SDP_ACT_LUT &&
	    dla_check_range(v, &s->lut, (uint64_t)VDLA_LUT_ENTRIES * (int_path ? 2 : 4),
			    DLA_FIELD_LUT, &op->addr[A_LUT]))
		return DLA_ERR_INVALID_TASK;
	return DLA_SUCCESS;
}

static void sdp_program(struct dla_engine *engine, const struct dla_op *op, uint32_t context)
{
	const struct vdla_task_sdp *s = &op->desc.sdp;
	const struct dla_d_group d = dla_d_group(engine, VDLA_ENGINE_SDP);
	uint32_t cfg = ((s->fly & VDLA_TASK_FLY_IN) ? VDLA_SDP_CFG_SRC_FLYING : 0) |
		       ((s->fly & VDLA_TASK_FLY_OUT) ? VDLA_SDP_CFG_DST_FLYING : 0) |
		       ((uint32_t)s->bias_mode << VDLA_SDP_CFG_BIAS_SHIFT) |
		       ((uint32_t)s->scale_mode << VDLA_SDP_CFG_SCALE_SHIFT) |
		       ((uint32_t)s->ew_op << VDLA_SDP_CFG_EW_SHIFT) |
		       ((uint32_t)s->act << VDLA_SDP_CFG_ACT_SHIFT) |
		       ((uint32_t)s->round << VDLA_CFG_ROUND_SHIFT) | (s->wrap ? VDLA_CFG_WRAP : 0);

	write_common(&d, context, cfg);
	dla_write_surface(&d, VDLA_SDP_SRC, &s->src, op->addr[A_SRC]);
	dla_write_surface(&d, VDLA_SDP_DST, &s->dst, op->addr[A_DST]);
	if (s->ew_op)
		dla_write_surface(&d, VDLA_SDP_EW, &s->ew, op->addr[A_EW]);
	dla_wr_d(&d, VDLA_SDP_BIAS_ADDR_LO, (uint32_t)op->addr[A_BIAS]);
	dla_wr_d(&d, VDLA_SDP_BIAS_ADDR_HI, (uint32_t)(op->addr[A_BIAS] >> 32));
	dla_wr_d(&d, VDLA_SDP_BIAS_VALUE, s->bias_value);
	dla_wr_d(&d, VDLA_SDP_SCALE_ADDR_LO, (uint32_t)op->addr[A_SCALE]);
	dla_wr_d(&d, VDLA_SDP_SCALE_ADDR_HI, (uint32_t)(op->addr[A_SCALE] >> 32));
	dla_wr_d(&d, VDLA_SDP_SCALE_MUL, s->scale_mul);
	dla_wr_d(&d, VDLA_SDP_SCALE_SHIFT, s->scale_shift);
	dla_wr_d(&d, VDLA_SDP_EW_MUL, s->ew_mul);
	dla_wr_d(&d, VDLA_SDP_EW_SHIFT, s->ew_shift);
	dla_wr_d(&d, VDLA_SDP_EW_POST_SHIFT, s->ew_post_shift);
	dla_wr_d(&d, VDLA_SDP_CLIP_MIN, s->clip_min);
	dla_wr_d(&d, VDLA_SDP_CLIP_MAX, s->clip_max);
	dla_wr_d(&d, VDLA_SDP_LUT_ADDR_LO, (uint32_t)op->addr[A_LUT]);
	dla_wr_d(&d, VDLA_SDP_LUT_ADDR_HI, (uint32_t)(op->addr[A_LUT] >> 32));
	dla_wr_d(&d, VDLA_SDP_LUT_START, s->lut_start);
	dla_wr_d(&d, VDLA_SDP_LUT_SHIFT, s->lut_shift);
	dla_wr_d(&d, VDLA_SDP_OUT_OFFSET, s->out_offset);
}

/* ---- PDP ---------------------------------------------------------------- */

static int32_t pdp_validate(struct dla_validator *v, struct dla_op *op)
{
	const struct vdla_task_pdp *p = &op->desc.pdp;

	if (p->fly & ~VDLA_TASK_FLY_IN)
		return dla_reject(v, DLA_FIELD_FLY, DLA_REASON_BAD_VALUE);
	if (p->method > VDLA_PDP_MIN || p->ceil_mode > 1 || p->include_pad > 1)
		return dla_reject(v, DLA_FIELD_MODE, DLA_REASON_BAD_VALUE);
	if (p->round >= VDLA_ROUND_MODES)
		return dla_reject(v, DLA_FIELD_ROUND, DLA_REASON_BAD_VALUE);
	if (dla_check_surface(v, &p->src, DLA_FIELD_SRC, p->fly & VDLA_TASK_FLY_IN,
			      &op->addr[A_SRC]) ||
	    dla_check_surface(v, &p->dst, DLA_FIELD_DST, 0, &op->addr[A_DST]))
		return DLA_ERR_INVALID_TASK;
	if (p->src.dtype == VDLA_DTYPE_INT32 || p->dst.dtype != p->src.dtype)
		return dla_reject_in(v, DLA_FIELD_DST, DLA_FIELD_DTYPE, DLA_REASON_TYPE);
	if (p->kernel_w < 1 || p->kernel_w > VDLA_PDP_MAX_KERNEL || p->kernel_h < 1 ||
	    p->kernel_h > VDLA_PDP_MAX_KERNEL)
		return dla_reject(v, DLA_FIELD_KERNEL, DLA_REASON_OUT_OF_RANGE);
	if (p->stride_x < 1 || p->stride_x > VDLA_PDP_MAX_STRIDE || p->stride_y < 1 ||
	    p->stride_y > VDLA_PDP_MAX_STRIDE)
		return dla_reject(v, DLA_FIELD_STRIDE, DLA_REASON_OUT_OF_RANGE);
	if (p->pad_left >= p->kernel_w || p->pad_right >= p->kernel_w ||
	    p->pad_top >= p->kernel_h || p->pad_bottom >= p->kernel_h)
		return dla_reject(v, DLA_FIELD_PADDING, DLA_REASON_OUT_OF_RANGE);
	if (p->dst.n != p->src.n || p->dst.c != p->src.c ||
	    p->dst.w != vdla_pool_output_size(p->src.w, p->kernel_w, p->stride_x, p->pad_left,
					      p->pad_right, p->ceil_mode) ||
	    p->dst.h != vdla_pool_output_size(p->src.h, p->kernel_h, p->stride_y, p->pad_top,
					      p->pad_bottom, p->ceil_mode))
		return dla_reject_in(v, DLA_FIELD_DST, DLA_FIELD_DIMS, DLA_REASON_SHAPE);
	return DLA_SUCCESS;
}

static void pdp_program(struct dla_engine *engine, const struct dla_op *op, uint32_t context)
{
	const struct vdla_task_pdp *p = &op->desc.pdp;
	const struct dla_d_group d = dla_d_group(engine, VDLA_ENGINE_PDP);
	uint32_t cfg = ((p->fly & VDLA_TASK_FLY_IN) ? VDLA_PDP_CFG_SRC_FLYING : 0) |
		       ((uint32_t)p->method << VDLA_PDP_CFG_METHOD_SHIFT) |
		       (p->ceil_mode ? VDLA_PDP_CFG_CEIL : 0) |
		       (p->include_pad ? VDLA_PDP_CFG_AVG_INCLUDE_PAD : 0) |
		       ((uint32_t)p->round << VDLA_CFG_ROUND_SHIFT);

	write_common(&d, context, cfg);
	dla_write_surface(&d, VDLA_PDP_SRC, &p->src, op->addr[A_SRC]);
	dla_write_surface(&d, VDLA_PDP_DST, &p->dst, op->addr[A_DST]);
	dla_wr_d(&d, VDLA_PDP_KERNEL, p->kernel_w | ((uint32_t)p->kernel_h << 16));
	dla_wr_d(&d, VDLA_PDP_STRIDE, p->stride_x | ((uint32_t)p->stride_y << 16));
	dla_wr_d(&d, VDLA_PDP_PAD_LR, p->pad_left | ((uint32_t)p->pad_right << 16));
	dla_wr_d(&d, VDLA_PDP_PAD_TB, p->pad_top | ((uint32_t)p->pad_bottom << 16));
}

/* ---- CDP ---------------------------------------------------------------- */

static int32_t cdp_validate(struct dla_validator *v, struct dla_op *op)
{
	const struct vdla_task_cdp *c = &op->desc.cdp;

	if (c->reserved0 || c->reserved1)
		return dla_reject(v, DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
	if (c->round >= VDLA_ROUND_MODES || c->wrap > 1)
		return dla_reject(v, DLA_FIELD_ROUND, DLA_REASON_BAD_VALUE);
	if (c->size < 1 || c->size > 15)
		return dla_reject(v, DLA_FIELD_SIZE, DLA_REASON_OUT_OF_RANGE);
	if (!(c->size & 1))
		return dla_reject(v, DLA_FIELD_SIZE, DLA_REASON_BAD_VALUE);
	if (dla_check_surface(v, &c->src, DLA_FIELD_SRC, 0, &op->addr[A_SRC]) ||
	    dla_check_surface(v, &c->dst, DLA_FIELD_DST, 0, &op->addr[A_DST]))
		return DLA_ERR_INVALID_TASK;
	if (c->src.dtype == VDLA_DTYPE_INT32 || c->dst.dtype != c->src.dtype)
		return dla_reject_in(v, DLA_FIELD_DST, DLA_FIELD_DTYPE, DLA_REASON_TYPE);
	if (!dla_same_shape(&c->src, &c->dst))
		return dla_reject_in(v, DLA_FIELD_DST, DLA_FIELD_DIMS, DLA_REASON_SHAPE);
	if (is_int(c->src.dtype)) {
		if (c->lut_shift > 62 || c->out_shift > 62)
			return dla_reject(v, DLA_FIELD_SHIFT, DLA_REASON_OUT_OF_RANGE);
		return dla_check_range(v, &c->lut, (uint64_t)VDLA_LUT_ENTRIES * 4, DLA_FIELD_LUT,
				       &op->addr[A_LUT]);
	}
	return DLA_SUCCESS;
}

static void cdp_program(struct dla_engine *engine, const struct dla_op *op, uint32_t context)
{
	const struct vdla_task_cdp *c = &op->desc.cdp;
	const struct dla_d_group d = dla_d_group(engine, VDLA_ENGINE_CDP);

	write_common(&d, context,
		     ((uint32_t)c->round << VDLA_CFG_ROUND_SHIFT) | (c->wrap ? VDLA_CFG_WRAP : 0));
	dla_write_surface(&d, VDLA_CDP_SRC, &c->src, op->addr[A_SRC]);
	dla_write_surface(&d, VDLA_CDP_DST, &c->dst, op->addr[A_DST]);
	dla_wr_d(&d, VDLA_CDP_SIZE, c->size);
	dla_wr_d(&d, VDLA_CDP_LUT_ADDR_LO, (uint32_t)op->addr[A_LUT]);
	dla_wr_d(&d, VDLA_CDP_LUT_ADDR_HI, (uint32_t)(op->addr[A_LUT] >> 32));
	dla_wr_d(&d, VDLA_CDP_LUT_SHIFT, c->lut_shift);
	dla_wr_d(&d, VDLA_CDP_OUT_SHIFT, c->out_shift);
	dla_wr_d(&d, VDLA_CDP_K, c->k);
	dla_wr_d(&d, VDLA_CDP_ALPHA, c->alpha);
	dla_wr_d(&d, VDLA_CDP_BETA, c->beta);
}

/* ---- RUBIK -------------------------------------------------------------- */

static int32_t rubik_validate(struct dla_validator *v, struct dla_op *op)
{
	const struct vdla_task_rubik *r = &op->desc.rubik;
	const struct vdla_task_surface *s = &r->src, *d = &r->dst;
	uint32_t sd[4] = { s->w, s->h, s->c, s->n }, dd[4] = { d->w, d->h, d->c, d->n };
	uint32_t seen = 0, b = (uint32_t)r->block_x * r->block_y;

	if (r->reserved)
		return dla_reject(v, DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
	if (r->mode > VDLA_RUBIK_SPLIT)
		return dla_reject(v, DLA_FIELD_MODE, DLA_REASON_BAD_VALUE);
	if (dla_check_surface(v, s, DLA_FIELD_SRC, 0, &op->addr[A_SRC]) ||
	    dla_check_surface(v, d, DLA_FIELD_DST, 0, &op->addr[A_DST]))
		return DLA_ERR_INVALID_TASK;
	if (d->dtype != s->dtype)
		return dla_reject_in(v, DLA_FIELD_DST, DLA_FIELD_DTYPE, DLA_REASON_TYPE);

	switch (r->mode) {
	case VDLA_RUBIK_PERMUTE:
		if (r->perm >> 8)
			return dla_reject(v, DLA_FIELD_PERM, DLA_REASON_BAD_VALUE);
		for (int i = 0; i < 4; i++)
			seen |= 1u << ((r->perm >> (2 * i)) & 3);
		if (seen != 0xf)
			return dla_reject(v, DLA_FIELD_PERM, DLA_REASON_BAD_VALUE);
		for (int i = 0; i < 4; i++) {
			if (dd[i] != sd[(r->perm >> (2 * i)) & 3])
				return dla_reject_in(v, DLA_FIELD_DST, DLA_FIELD_DIMS, DLA_REASON_SHAPE);
		}
		return DLA_SUCCESS;
	case VDLA_RUBIK_RESHAPE:
		if ((uint64_t)s->w * s->h * s->c * s->n != (uint64_t)d->w * d->h * d->c * d->n)
			return dla_reject_in(v, DLA_FIELD_DST, DLA_FIELD_DIMS, DLA_REASON_SHAPE);
		return DLA_SUCCESS;
	default:
		if (r->block_x < 1 || r->block_x > 16 || r->block_y < 1 || r->block_y > 16)
			return dla_reject(v, DLA_FIELD_BLOCK, DLA_REASON_OUT_OF_RANGE);
		if (r->mode == VDLA_RUBIK_CONTRACT) {
			if (s->c % b || d->n != s->n || d->c != s->c / b ||
			    (uint64_t)d->h != (uint64_t)s->h * r->block_y ||
			    (uint64_t)d->w != (uint64_t)s->w * r->block_x)
				return dla_reject_in(v, DLA_FIELD_DST, DLA_FIELD_DIMS, DLA_REASON_SHAPE);
		} else if (s->h % r->block_y || s->w % r->block_x || d->n != s->n ||
			   (uint64_t)d->c != (uint64_t)s->c * b || d->h != s->h / r->block_y ||
			   d->w != s->w / r->block_x) {
			return dla_reject_in(v, DLA_FIELD_DST, DLA_FIELD_DIMS, DLA_REASON_SHAPE);
		}
		return DLA_SUCCESS;
	}
}

static void rubik_program(struct dla_engine *engine, const struct dla_op *op, uint32_t context)
{
	const struct vdla_task_rubik *r = &op->desc.rubik;
	const struct dla_d_group d = dla_d_group(engine, VDLA_ENGINE_RUBIK);

	write_common(&d, context, r->mode);
	dla_write_surface(&d, VDLA_RUBIK_SRC, &r->src, op->addr[A_SRC]);
	dla_write_surface(&d, VDLA_RUBIK_DST, &r->dst, op->addr[A_DST]);
	dla_wr_d(&d, VDLA_RUBIK_PERM, r->perm);
	dla_wr_d(&d, VDLA_RUBIK_BLOCK, r->block_x | ((uint32_t)r->block_y << 16));
}

const struct dla_engine_ops dla_engine_ops[VDLA_NUM_ENGINES] = {
	[VDLA_ENGINE_BDMA] = { "bdma", bdma_validate, bdma_program },
	[VDLA_ENGINE_CONV] = { "conv", conv_validate, conv_program },
	[VDLA_ENGINE_SDP] = { "sdp", sdp_validate, sdp_program },
	[VDLA_ENGINE_PDP] = { "pdp", pdp_validate, pdp_program },
	[VDLA_ENGINE_CDP] = { "cdp", cdp_validate, cdp_program },
	[VDLA_ENGINE_RUBIK] = { "rubik", rubik_validate, rubik_program },
};
