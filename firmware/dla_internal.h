/* SPDX-License-Identifier: MIT */
/* Internals of the firmware core shared by its files. */
#ifndef DLA_INTERNAL_H
#define DLA_INTERNAL_H

#include "dla_interface.h"
#include "dla_port.h"
#include "drm/vdla_task.h"
#include "vdla_regs.h"

#define DLA_MAX_ADDRESSES	6	/* address fields of one op (SDP has the most) */
#define DLA_NO_GROUP		0xff

enum dla_op_state {
	DLA_OP_WAITING = 0,	/* not programmed */
	DLA_OP_PROGRAMMED,
	DLA_OP_ENABLED,
	DLA_OP_COMPLETED,
};

/* One operation in the task state area. */
struct dla_op {
	struct vdla_task_op desc;		/* validated copy */
	uint64_t addr[DLA_MAX_ADDRESSES];	/* resolved device addresses */
	struct dla_op_stats stats;
	uint16_t pending;			/* links not yet fired */
	uint16_t next_on_engine;		/* next op of the same engine */
	uint8_t state;				/* enum dla_op_state */
	uint8_t group;
	uint8_t fired;				/* events already fired, 1 << event */
	uint8_t chain_tail;			/* 1 if no fused member follows */
	uint8_t releases;			/* events that release a link, 1 << event */
};

/* The task state area: this header, then the ops. */
struct dla_task {
	struct dla_task_config config;
	struct dla_task_result result;
	uint32_t num_ops;
	uint32_t enabled;			/* enabled, not yet completed */
	uint16_t next_to_program[VDLA_NUM_ENGINES];
	/* Each engine's first op not enabled yet: its ops are enabled in order. */
	uint16_t next_to_enable[VDLA_NUM_ENGINES];
	/* Each engine's first op not completed yet: its ops complete in order. */
	uint16_t next_to_complete[VDLA_NUM_ENGINES];
	uint16_t group_op[VDLA_NUM_ENGINES][VDLA_NUM_GROUPS];
	uint8_t next_group[VDLA_NUM_ENGINES];
	uint8_t stop_requested;
	uint8_t checked;			/* accepted by dla_check_task, not started */
	struct dla_op ops[];
};

/*
 * The event of @op that releases its link @c. An engine runs its groups in
 * order and starts one only after the one before it has ended, so a later op
 * of the same engine waiting for @op to complete cannot start before that
 * even if enabled at once: its link is released when @op is enabled. Whole
 * layer chains on one engine then run without an interrupt between layers.
 */
static inline uint32_t dla_releasing_event(const struct dla_task *task, const struct dla_op *op,
					   const struct vdla_task_consumer *c)
{
	if (c->event == VDLA_EVENT_OP_COMPLETED &&
	    task->ops[c->index].desc.engine == op->desc.engine)
		return VDLA_EVENT_OP_ENABLED;
	return c->event;
}

#define DLA_D_WORDS	(VDLA_D_WINDOW_SIZE / 4)
#define DLA_NO_PRODUCER	0xff

/*
 * What the core last wrote to each register group. A group keeps its D
 * registers after an operation, so programming the next operation into it
 * writes only what differs. Valid only while this context is the only one
 * writing the device: checked at every execute and resume against the
 * owner register below, and forgotten at the core's own resets.
 */
struct dla_shadow {
	uint8_t producer[VDLA_NUM_ENGINES];	/* S_POINTER.PRODUCER, or DLA_NO_PRODUCER */
	/*
	 * The group the next D writes go to. S_POINTER follows only when one
	 * is written: an operation that matches the group's registers (a
	 * layer like the one the group last ran) costs no register access.
	 */
	uint8_t target[VDLA_NUM_ENGINES];
	uint32_t valid[VDLA_NUM_ENGINES][VDLA_NUM_GROUPS][DLA_D_WORDS / 32];
	uint32_t value[VDLA_NUM_ENGINES][VDLA_NUM_GROUPS][DLA_D_WORDS];
};

/*
 * The device register that says which firmware context's shadow matches the
 * register groups: the context's token, written when it claims the device.
 * A reset clears it and another context writes its own, so a context that
 * still finds its token there may keep its shadow from one task to the next.
 */
#define DLA_SHADOW_OWNER_REG	VDLA_REG_SCRATCH(3)

struct dla_engine {
	void *driver_context;
	uint32_t owner_token;		/* never 0: what a reset leaves in the owner register */
	/* Groups enabled by the scheduler's pass, written at its end (S_ENABLE). */
	uint32_t to_enable[VDLA_NUM_ENGINES];
	uint32_t irq_status;		/* recorded by the ISR, taken by process_events */
	uint32_t int_enable;		/* restored after a reset */
	struct dla_task *task;
	struct dla_shadow shadow;
};

/* What validation needs to resolve addresses and report errors. */
struct dla_validator {
	struct dla_engine *engine;
	const struct dla_task_config *config;
	struct dla_task_result *result;
	uint32_t op;
};

/*
 * The per-engine operations: validate a descriptor (resolving its
 * addresses into @op->addr) and program it into the D window.
 */
struct dla_engine_ops {
	const char *name;
	int32_t (*validate)(struct dla_validator *v, struct dla_op *op);
	void (*program)(struct dla_engine *engine, const struct dla_op *op, uint32_t context);
};

extern const struct dla_engine_ops dla_engine_ops[VDLA_NUM_ENGINES];

/* Records a validation error; returns DLA_ERR_INVALID_TASK. */
int32_t dla_reject(struct dla_validator *v, uint32_t field, uint32_t reason);
/* The same, for a field of operand @operand (DLA_FIELD_SRC, ...). */
int32_t dla_reject_in(struct dla_validator *v, uint32_t operand, uint32_t field,
		      uint32_t reason);

/* Validation helpers for the engine tables (dla_validate.c). */
int32_t dla_check_surface(struct dla_validator *v, const struct vdla_task_surface *s,
			  uint32_t field, int flying, uint64_t *addr);
int32_t dla_check_range(struct dla_validator *v, const struct vdla_task_address *a,
			uint64_t bytes, uint32_t field, uint64_t *addr);
uint32_t dla_dtype_size(uint32_t dtype);
int dla_same_shape(const struct vdla_task_surface *a, const struct vdla_task_surface *b);

/*
 * For the few helpers whose callers pass constants the compiler must see
 * (register offsets): plain inline is a hint the compiler may ignore. And
 * for their rare paths, kept out of the many places they are inlined into.
 */
#define DLA_ALWAYS_INLINE __attribute__((__always_inline__))
#define DLA_NOINLINE __attribute__((__noinline__))

/* Register access of the engine's device. */
static inline uint32_t dla_rd(struct dla_engine *engine, uint32_t reg)
{
	return dla_reg_read(engine->driver_context, reg);
}

static inline uint64_t dla_rd64(struct dla_engine *engine, uint32_t reg)
{
	return dla_reg_read64(engine->driver_context, reg);
}

static inline void dla_wr(struct dla_engine *engine, uint32_t reg, uint32_t value)
{
	dla_reg_write(engine->driver_context, reg, value);
}

void dla_shadow_invalidate(struct dla_engine *engine);
/* Makes @group the one engine @e's next D writes go to. */
void dla_select_group(struct dla_engine *engine, uint32_t e, uint32_t group);

int32_t dla_validate_task(struct dla_engine *engine, const struct dla_task_config *config,
			  struct dla_task *task);

#endif /* DLA_INTERNAL_H */
