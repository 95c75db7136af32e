// SPDX-License-Identifier: MIT
/*
 * Task validation: everything is checked before anything touches the
 * hardware (docs/firmware.md, "Validation"). The first broken rule is
 * reported with its operation, field and reason.
 */
#include "dla_internal.h"

int32_t dla_reject_in(struct dla_validator *v, uint32_t operand, uint32_t field,
		      uint32_t reason)
{
	v->result->status = DLA_ERR_INVALID_TASK;
	v->result->error_op = v->op;
	v->result->error_field = field;
	v->result->error_reason = reason;
	v->result->error_operand = operand;
	dla_debug("vdla fw: task rejected: op %u, %s%s%s: %s\n", v->op,
		  operand ? dla_field_name(operand) : "", operand ? "." : "",
		  dla_field_name(field), dla_reason_name(reason));
	return DLA_ERR_INVALID_TASK;
}

int32_t dla_reject(struct dla_validator *v, uint32_t field, uint32_t reason)
{
	return dla_reject_in(v, DLA_FIELD_NONE, field, reason);
}

uint32_t dla_dtype_size(uint32_t dtype)
{
	switch (dtype) {
	case VDLA_DTYPE_INT8:
		return 1;
	case VDLA_DTYPE_INT16:
	case VDLA_DTYPE_FP16:
		return 2;
	case VDLA_DTYPE_INT32:
	case VDLA_DTYPE_FP32:
		return 4;
	default:
		return 0;
	}
}

int dla_same_shape(const struct vdla_task_surface *a, const struct vdla_task_surface *b)
{
	return a->w == b->w && a->h == b->h && a->c == b->c && a->n == b->n;
}

/*
 * Checks that @bytes at @a lie inside their buffer and resolves the device
 * address. Sizes are 64-bit; offset + bytes is checked without overflowing.
 */
int32_t dla_check_range(struct dla_validator *v, const struct vdla_task_address *a,
			uint64_t bytes, uint32_t field, uint64_t *addr)
{
	void *ctx = v->engine->driver_context;
	uint64_t size, base;

	if (a->reserved[0] || a->reserved[1] || a->reserved[2])
		return dla_reject_in(v, field, DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
	if (a->index >= v->config->num_addresses)
		return dla_reject_in(v, field, DLA_FIELD_ADDRESS_INDEX, DLA_REASON_BAD_INDEX);
	if (dla_get_buffer_size(ctx, v->config->task_data, a->index, &size) ||
	    dla_read_dma_address(ctx, v->config->task_data, a->index, &base))
		return dla_reject_in(v, field, DLA_FIELD_ADDRESS_INDEX, DLA_REASON_BAD_INDEX);
	if (a->offset + bytes < a->offset || base + a->offset < base)
		return dla_reject_in(v, field, field, DLA_REASON_OVERFLOW);
	if (a->offset > size || bytes > size - a->offset)
		return dla_reject_in(v, field, field, DLA_REASON_OUTSIDE_BUFFER);
	*addr = base + a->offset;
	return DLA_SUCCESS;
}

int32_t dla_check_surface(struct dla_validator *v, const struct vdla_task_surface *s,
			  uint32_t field, int flying, uint64_t *addr)
{
	const uint32_t dims[4] = { s->w, s->h, s->c, s->n };
	const uint32_t strides[4] = { s->stride_w, s->stride_h, s->stride_c, s->stride_n };
	uint32_t esize = dla_dtype_size(s->dtype);
	uint64_t extent;

	if (s->reserved)
		return dla_reject_in(v, field, DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
	if (!esize)
		return dla_reject_in(v, field, DLA_FIELD_DTYPE, DLA_REASON_BAD_VALUE);
	extent = esize;
	for (int d = 0; d < 4; d++) {
		if (dims[d] == 0 || dims[d] > VDLA_MAX_DIM)
			return dla_reject_in(v, field, DLA_FIELD_DIMS, DLA_REASON_OUT_OF_RANGE);
		if (dims[d] > 1 && strides[d] % esize)
			return dla_reject_in(v, field, DLA_FIELD_STRIDES, DLA_REASON_BAD_VALUE);
		if (dims[d] > 1)
			extent += (uint64_t)(dims[d] - 1) * strides[d];
	}
	if (extent > VDLA_MAX_TENSOR_BYTES ||
	    (uint64_t)s->w * s->h * s->c * s->n > VDLA_MAX_TENSOR_ELEMENTS)
		return dla_reject_in(v, field, DLA_FIELD_DIMS, DLA_REASON_OVERFLOW);
	if (flying) {
		const struct vdla_task_address *a = &s->address;

		if (a->reserved[0] || a->reserved[1] || a->reserved[2])
			return dla_reject_in(v, field, DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
		if (a->index)
			return dla_reject_in(v, field, DLA_FIELD_ADDRESS_INDEX, DLA_REASON_NOT_ZERO);
		if (a->offset)
			return dla_reject_in(v, field, DLA_FIELD_ADDRESS_OFFSET, DLA_REASON_NOT_ZERO);
		*addr = 0;
		return DLA_SUCCESS;
	}
	return dla_check_range(v, &s->address, extent, field, addr);
}

static int32_t check_header(struct dla_validator *v, const struct vdla_task_header *h,
			    uint64_t descriptor_size)
{
	uint64_t ops_end;

	if (h->magic != VDLA_TASK_MAGIC)
		return dla_reject(v, DLA_FIELD_MAGIC, DLA_REASON_BAD_VALUE);
	if (h->version_major != VDLA_TASK_VERSION_MAJOR)
		return dla_reject(v, DLA_FIELD_VERSION, DLA_REASON_BAD_VALUE);
	if (h->version_minor > VDLA_TASK_VERSION_MINOR)
		return dla_reject(v, DLA_FIELD_VERSION, DLA_REASON_OUT_OF_RANGE);
	if (h->flags)
		return dla_reject(v, DLA_FIELD_FLAGS, DLA_REASON_NOT_ZERO);
	if (h->reserved[0] || h->reserved[1] || h->reserved[2])
		return dla_reject(v, DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
	if (h->num_ops > VDLA_TASK_MAX_OPS)
		return dla_reject(v, DLA_FIELD_NUM_OPS, DLA_REASON_OUT_OF_RANGE);
	if (h->ops_offset < sizeof(*h))
		return dla_reject(v, DLA_FIELD_OPS_OFFSET, DLA_REASON_OUT_OF_RANGE);
	if (h->ops_offset % 8)
		return dla_reject(v, DLA_FIELD_OPS_OFFSET, DLA_REASON_BAD_VALUE);
	if (h->ops_offset > descriptor_size)
		return dla_reject(v, DLA_FIELD_OPS_OFFSET, DLA_REASON_OUTSIDE_BUFFER);
	ops_end = h->ops_offset + (uint64_t)h->num_ops * VDLA_TASK_OP_SIZE;
	if (ops_end > descriptor_size)
		return dla_reject(v, DLA_FIELD_NUM_OPS, DLA_REASON_OUTSIDE_BUFFER);
	return DLA_SUCCESS;
}

/* The engine a fused member's parent must run on, or -1. */
static int fused_parent_engine(uint32_t engine)
{
	if (engine == VDLA_TASK_ENGINE_SDP)
		return VDLA_TASK_ENGINE_CONV;
	if (engine == VDLA_TASK_ENGINE_PDP)
		return VDLA_TASK_ENGINE_SDP;
	return -1;
}

/* The FLY_IN / FLY_OUT flags of an op (0 for engines that do not fuse). */
static uint32_t fly_flags(const struct vdla_task_op *d)
{
	switch (d->engine) {
	case VDLA_TASK_ENGINE_CONV:
		return d->conv.fly;
	case VDLA_TASK_ENGINE_SDP:
		return d->sdp.fly;
	case VDLA_TASK_ENGINE_PDP:
		return d->pdp.fly;
	default:
		return 0;
	}
}

static int32_t check_common(struct dla_validator *v, struct dla_task *task, uint32_t index)
{
	const struct vdla_task_op *d = &task->ops[index].desc;

	if (d->engine >= VDLA_TASK_ENGINES)
		return dla_reject(v, DLA_FIELD_ENGINE, DLA_REASON_BAD_VALUE);
	if (d->flags)
		return dla_reject(v, DLA_FIELD_FLAGS, DLA_REASON_NOT_ZERO);
	if (d->reserved0 || d->reserved1[0] || d->reserved1[1])
		return dla_reject(v, DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);

	for (int i = 0; i < VDLA_TASK_MAX_CONSUMERS; i++) {
		const struct vdla_task_consumer *c = &d->consumers[i];

		if (c->reserved)
			return dla_reject(v, DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
		if (c->index == VDLA_NO_OP)
			continue;
		if (c->index >= task->num_ops)
			return dla_reject(v, DLA_FIELD_CONSUMER_INDEX, DLA_REASON_BAD_INDEX);
		if (c->index <= index)
			return dla_reject(v, DLA_FIELD_CONSUMER_INDEX, DLA_REASON_BACKWARD_LINK);
		if (c->event > VDLA_EVENT_OP_ENABLED)
			return dla_reject(v, DLA_FIELD_CONSUMER_EVENT, DLA_REASON_BAD_VALUE);
		/* A fused member cannot wait for its parent to complete. */
		if (c->index == index + 1 && c->event == VDLA_EVENT_OP_COMPLETED &&
		    task->ops[index + 1].desc.fused_parent == index)
			return dla_reject(v, DLA_FIELD_CONSUMER_EVENT, DLA_REASON_FUSION);
		/* A 16-bit count must not wrap round to a matching value. */
		if (task->ops[c->index].pending == 0xffff)
			return dla_reject(v, DLA_FIELD_CONSUMER_INDEX, DLA_REASON_OVERFLOW);
		task->ops[c->index].pending++;
	}
	return DLA_SUCCESS;
}

/* Fused chains: consecutive ops with matching engines and flying flags. */
static int32_t check_fusion(struct dla_validator *v, struct dla_task *task, uint32_t index)
{
	const struct vdla_task_op *d = &task->ops[index].desc;
	uint32_t fly = fly_flags(d);
	int parent_engine = fused_parent_engine(d->engine);
	int has_member = index + 1 < task->num_ops && task->ops[index + 1].desc.fused_parent == index;

	/* Flying flags the engine does not have at all. */
	if ((d->engine == VDLA_TASK_ENGINE_CONV && (fly & ~VDLA_TASK_FLY_OUT)) ||
	    (d->engine == VDLA_TASK_ENGINE_PDP && (fly & ~VDLA_TASK_FLY_IN)) ||
	    (d->engine == VDLA_TASK_ENGINE_SDP && (fly & ~(VDLA_TASK_FLY_IN | VDLA_TASK_FLY_OUT))))
		return dla_reject(v, DLA_FIELD_FLY, DLA_REASON_BAD_VALUE);

	if (d->fused_parent != VDLA_NO_OP) {
		const struct vdla_task_op *p;

		if (d->fused_parent >= task->num_ops)
			return dla_reject(v, DLA_FIELD_FUSED_PARENT, DLA_REASON_BAD_INDEX);
		if (index == 0 || d->fused_parent != index - 1)
			return dla_reject(v, DLA_FIELD_FUSED_PARENT, DLA_REASON_FUSION);
		p = &task->ops[index - 1].desc;
		if (parent_engine < 0 || p->engine != (uint32_t)parent_engine)
			return dla_reject(v, DLA_FIELD_ENGINE, DLA_REASON_FUSION);
		if (!(fly & VDLA_TASK_FLY_IN) || !(fly_flags(p) & VDLA_TASK_FLY_OUT))
			return dla_reject(v, DLA_FIELD_FLY, DLA_REASON_FUSION);
	} else if (fly & VDLA_TASK_FLY_IN) {
		return dla_reject(v, DLA_FIELD_FLY, DLA_REASON_FUSION);
	}
	if ((fly & VDLA_TASK_FLY_OUT) && !has_member)
		return dla_reject(v, DLA_FIELD_FLY, DLA_REASON_FUSION);
	task->ops[index].chain_tail = has_member ? 0 : 1;
	return DLA_SUCCESS;
}

static int32_t read_ops(struct dla_validator *v, struct dla_task *task,
			const struct vdla_task_header *h)
{
	const struct dla_task_config *c = v->config;

	for (uint32_t i = 0; i < task->num_ops; i++) {
		struct dla_op *op = &task->ops[i];

		dla_memset(op, 0, sizeof(*op));
		v->op = i;
		if (dla_data_read(v->engine->driver_context, c->task_data, c->descriptor,
				  h->ops_offset + (uint64_t)i * VDLA_TASK_OP_SIZE, &op->desc,
				  sizeof(op->desc)))
			return dla_reject(v, DLA_FIELD_DESCRIPTOR, DLA_REASON_READ_FAILED);
		op->next_on_engine = VDLA_NO_OP;
		op->group = DLA_NO_GROUP;
	}
	return DLA_SUCCESS;
}

/* Same-fused-chain types and shapes across each link. */
static int32_t check_links(struct dla_validator *v, struct dla_task *task, uint32_t index)
{
	const struct vdla_task_op *d = &task->ops[index].desc, *p;
	const struct vdla_task_surface *out, *in;

	if (d->fused_parent == VDLA_NO_OP)
		return DLA_SUCCESS;
	p = &task->ops[index - 1].desc;
	out = p->engine == VDLA_TASK_ENGINE_CONV ? &p->conv.dst : &p->sdp.dst;
	in = d->engine == VDLA_TASK_ENGINE_SDP ? &d->sdp.src : &d->pdp.src;
	if (out->dtype != in->dtype)
		return dla_reject_in(v, DLA_FIELD_SRC, DLA_FIELD_DTYPE, DLA_REASON_FUSION);
	if (!dla_same_shape(out, in))
		return dla_reject_in(v, DLA_FIELD_SRC, DLA_FIELD_DIMS, DLA_REASON_FUSION);
	return DLA_SUCCESS;
}

/* Which of @op's events release a link (checked: every consumer's engine is). */
static void note_releasing_events(struct dla_task *task, struct dla_op *op)
{
	for (int i = 0; i < VDLA_TASK_MAX_CONSUMERS; i++) {
		const struct vdla_task_consumer *c = &op->desc.consumers[i];

		if (c->index != VDLA_NO_OP)
			op->releases |= 1u << dla_releasing_event(task, op, c);
	}
}

int32_t dla_validate_task(struct dla_engine *engine, const struct dla_task_config *config,
			  struct dla_task *task)
{
	struct dla_validator v = { engine, config, &task->result, DLA_ERROR_IN_HEADER };
	struct vdla_task_header h;
	uint64_t descriptor_size;
	uint16_t last[VDLA_NUM_ENGINES];
	int32_t ret;

	if (config->context >= VDLA_MMU_NUM_CONTEXTS)
		return dla_reject(&v, DLA_FIELD_CONTEXT, DLA_REASON_OUT_OF_RANGE);
	if (config->descriptor >= config->num_addresses ||
	    dla_get_buffer_size(engine->driver_context, config->task_data, config->descriptor,
				&descriptor_size))
		return dla_reject(&v, DLA_FIELD_DESCRIPTOR, DLA_REASON_BAD_INDEX);
	if (descriptor_size < sizeof(h) ||
	    dla_data_read(engine->driver_context, config->task_data, config->descriptor, 0, &h,
			  sizeof(h)))
		return dla_reject(&v, DLA_FIELD_DESCRIPTOR, DLA_REASON_READ_FAILED);
	ret = check_header(&v, &h, descriptor_size);
	if (ret)
		return ret;
	if (config->state_size < dla_task_state_size(h.num_ops)) {
		task->result.status = DLA_ERR_NO_MEMORY;
		return DLA_ERR_NO_MEMORY;
	}
	task->num_ops = h.num_ops;

	ret = read_ops(&v, task, &h);
	for (uint32_t i = 0; !ret && i < task->num_ops; i++) {
		v.op = i;
		ret = check_common(&v, task, i);
	}
	for (uint32_t i = 0; !ret && i < task->num_ops; i++) {
		struct dla_op *op = &task->ops[i];

		v.op = i;
		if (op->pending != op->desc.dependency_count)
			return dla_reject(&v, DLA_FIELD_DEPENDENCY_COUNT, DLA_REASON_COUNT_MISMATCH);
		note_releasing_events(task, op);
		ret = check_fusion(&v, task, i);
		if (!ret)
			ret = dla_engine_ops[op->desc.engine].validate(&v, op);
		if (!ret)
			ret = check_links(&v, task, i);
	}
	if (ret)
		return ret;

	/* Per-engine lists in index order, for the scheduler. */
	for (int e = 0; e < VDLA_NUM_ENGINES; e++) {
		task->next_to_program[e] = VDLA_NO_OP;
		task->next_to_enable[e] = VDLA_NO_OP;
		task->next_to_complete[e] = VDLA_NO_OP;
		last[e] = VDLA_NO_OP;
	}
	for (uint32_t i = 0; i < task->num_ops; i++) {
		uint32_t e = task->ops[i].desc.engine;

		if (last[e] == VDLA_NO_OP)
			task->next_to_program[e] = task->next_to_enable[e] =
				task->next_to_complete[e] = (uint16_t)i;
		else
			task->ops[last[e]].next_on_engine = (uint16_t)i;
		last[e] = (uint16_t)i;
	}
	return DLA_SUCCESS;
}

static const char *const field_names[DLA_FIELDS] = {
	[DLA_FIELD_NONE] = "none",
	[DLA_FIELD_MAGIC] = "magic",
	[DLA_FIELD_VERSION] = "version",
	[DLA_FIELD_NUM_OPS] = "num_ops",
	[DLA_FIELD_OPS_OFFSET] = "ops_offset",
	[DLA_FIELD_FLAGS] = "flags",
	[DLA_FIELD_RESERVED] = "reserved",
	[DLA_FIELD_DESCRIPTOR] = "descriptor",
	[DLA_FIELD_CONTEXT] = "context",
	[DLA_FIELD_ENGINE] = "engine",
	[DLA_FIELD_DEPENDENCY_COUNT] = "dependency_count",
	[DLA_FIELD_FUSED_PARENT] = "fused_parent",
	[DLA_FIELD_CONSUMER_INDEX] = "consumers.index",
	[DLA_FIELD_CONSUMER_EVENT] = "consumers.event",
	[DLA_FIELD_SRC] = "src",
	[DLA_FIELD_DST] = "dst",
	[DLA_FIELD_WGT] = "wgt",
	[DLA_FIELD_EW] = "ew",
	[DLA_FIELD_BIAS] = "bias",
	[DLA_FIELD_SCALE] = "scale",
	[DLA_FIELD_LUT] = "lut",
	[DLA_FIELD_ADDRESS_INDEX] = "address.index",
	[DLA_FIELD_ADDRESS_OFFSET] = "address.offset",
	[DLA_FIELD_DTYPE] = "dtype",
	[DLA_FIELD_DIMS] = "dims",
	[DLA_FIELD_STRIDES] = "strides",
	[DLA_FIELD_LINE_BYTES] = "line_bytes",
	[DLA_FIELD_LINES] = "lines",
	[DLA_FIELD_SURFACES] = "surfaces",
	[DLA_FIELD_KERNEL] = "kernel",
	[DLA_FIELD_STRIDE] = "stride",
	[DLA_FIELD_PADDING] = "padding",
	[DLA_FIELD_DILATION] = "dilation",
	[DLA_FIELD_GROUPS] = "groups",
	[DLA_FIELD_PAD_VALUE] = "pad_value",
	[DLA_FIELD_FLY] = "fly",
	[DLA_FIELD_MODE] = "mode",
	[DLA_FIELD_ROUND] = "round",
	[DLA_FIELD_SHIFT] = "shift",
	[DLA_FIELD_CLIP] = "clip",
	[DLA_FIELD_SIZE] = "size",
	[DLA_FIELD_PERM] = "perm",
	[DLA_FIELD_BLOCK] = "block",
};

static const char *const reason_names[DLA_REASONS] = {
	[DLA_REASON_NONE] = "no error",
	[DLA_REASON_NOT_ZERO] = "must be zero",
	[DLA_REASON_BAD_VALUE] = "not a valid value",
	[DLA_REASON_OUT_OF_RANGE] = "out of range",
	[DLA_REASON_OVERFLOW] = "size overflows",
	[DLA_REASON_OUTSIDE_BUFFER] = "reaches beyond its buffer",
	[DLA_REASON_BAD_INDEX] = "index out of range",
	[DLA_REASON_BACKWARD_LINK] = "dependency link to an earlier operation",
	[DLA_REASON_COUNT_MISMATCH] = "dependency_count differs from the links to this operation",
	[DLA_REASON_SHAPE] = "inconsistent dimensions",
	[DLA_REASON_TYPE] = "unsupported data type",
	[DLA_REASON_FUSION] = "inconsistent fused chain",
	[DLA_REASON_READ_FAILED] = "cannot be read",
};

const char *dla_field_name(uint32_t field)
{
	return field < DLA_FIELDS && field_names[field] ? field_names[field] : "unknown field";
}

const char *dla_reason_name(uint32_t reason)
{
	return reason < DLA_REASONS && reason_names[reason] ? reason_names[reason] :
							      "unknown reason";
}
