// SPDX-License-Identifier: MIT
/*
 * The engine scheduler: entry points, event processing and the dependency
 * walk (docs/firmware.md, "Scheduling").
 *
 * Each engine runs its operations in index order. All of its register
 * groups are kept programmed; an operation is enabled, in the engine's
 * order, when its dependency links have fired. The device's group state (S_STATUS) is the truth about
 * completion: interrupts only say when to look, so a duplicated interrupt is
 * harmless and a lost one is recovered the next time events are processed.
 */
#include "dla_internal.h"

/* Interrupt bits the firmware owns; the host keeps the others (TEST). */
#define DLA_OWNED_INTERRUPTS (VDLA_INT_DONE_ALL | VDLA_INT_ERROR_ALL | VDLA_INT_MMU_FAULT)

size_t dla_engine_size(void)
{
	return sizeof(struct dla_engine);
}

size_t dla_task_state_size(uint32_t num_ops)
{
	return sizeof(struct dla_task) + (size_t)num_ops * sizeof(struct dla_op);
}

int32_t dla_register_driver(void *memory, void *driver_context, struct dla_engine **engine)
{
	/* Distinct for every context of this host; 0 is what a reset leaves. */
	static uint32_t last_token;
	struct dla_engine *e = memory;

	if (!memory || !engine)
		return DLA_ERR_BAD_ARGUMENT;
	dla_memset(e, 0, sizeof(*e));
	e->driver_context = driver_context;
	do {
		e->owner_token = __atomic_add_fetch(&last_token, 1, __ATOMIC_RELAXED);
	} while (e->owner_token == 0);
	dla_shadow_invalidate(e);
	*engine = e;
	return DLA_SUCCESS;
}


static void fire(struct dla_task *task, struct dla_op *op, uint32_t event)
{
	if (op->fired & (1u << event))
		return;
	op->fired |= 1u << event;
	/* Most events release nothing: an op has one or two links, if any. */
	if (!(op->releases & (1u << event)))
		return;
	for (int i = 0; i < VDLA_TASK_MAX_CONSUMERS; i++) {
		const struct vdla_task_consumer *c = &op->desc.consumers[i];

		if (c->index != VDLA_NO_OP && dla_releasing_event(task, op, c) == event)
			task->ops[c->index].pending--;
	}
}

/* Programs the next operations of engine @e into its free groups. */
static int program_engine(struct dla_engine *engine, struct dla_task *task, uint32_t e)
{
	int changed = 0;

	while (task->next_to_program[e] != VDLA_NO_OP &&
	       task->group_op[e][task->next_group[e]] == VDLA_NO_OP) {
		uint16_t index = task->next_to_program[e];
		struct dla_op *op = &task->ops[index];
		uint8_t group = task->next_group[e];

		dla_select_group(engine, e, group);
		dla_engine_ops[e].program(engine, op, task->config.context);
		op->state = DLA_OP_PROGRAMMED;
		op->group = group;
		task->group_op[e][group] = index;
		task->next_group[e] = (group + 1) % VDLA_NUM_GROUPS;
		task->next_to_program[e] = op->next_on_engine;
		fire(task, op, VDLA_EVENT_OP_PROGRAMMED);
		changed = 1;
	}
	return changed;
}

/* The first op of the fused chain @index belongs to. */
static uint32_t chain_head(struct dla_task *task, uint32_t index)
{
	while (task->ops[index].desc.fused_parent != VDLA_NO_OP)
		index--;
	return index;
}

/* Links from earlier members of the chain at @head that fire when they are enabled. */
static uint32_t links_within_chain(struct dla_task *task, uint32_t head, uint32_t member)
{
	uint32_t count = 0;

	for (uint32_t i = head; i < member; i++) {
		const struct dla_op *op = &task->ops[i];

		for (int c = 0; c < VDLA_TASK_MAX_CONSUMERS; c++) {
			const struct vdla_task_consumer *link = &op->desc.consumers[c];

			if (link->index == member &&
			    dla_releasing_event(task, op, link) == VDLA_EVENT_OP_ENABLED)
				count++;
		}
	}
	return count;
}

/*
 * Whether an op before @index on its engine is not enabled yet. An engine
 * runs its groups in order: enabled first, @index would wait behind it, and
 * a stop (which enables nothing more) would then never see the enabled ops
 * end.
 */
static int not_next_on_engine(struct dla_task *task, uint32_t index)
{
	return task->next_to_enable[task->ops[index].desc.engine] != index;
}

/*
 * Enables the chain (or single op) @index belongs to if every member is
 * programmed and released, counting as released the ENABLED links from
 * earlier members (enabling head to tail fires them first), and the ops
 * before each member on its engine are enabled. The hardware starts a
 * chain once all members are pending.
 */
static int try_enable(struct dla_engine *engine, struct dla_task *task, uint32_t index)
{
	uint32_t head = chain_head(task, index), i;

	for (i = head;; i++) {
		const struct dla_op *op = &task->ops[i];

		if (op->state != DLA_OP_PROGRAMMED ||
		    op->pending != (i == head ? 0 : links_within_chain(task, head, i)) ||
		    not_next_on_engine(task, i))
			return 0;
		if (op->chain_tail)
			break;
	}
	for (i = head;; i++) {
		struct dla_op *op = &task->ops[i];
		uint32_t e = op->desc.engine;

		engine->to_enable[e] |= 1u << op->group;
		op->state = DLA_OP_ENABLED;
		/* Checked above: every member is its engine's first not enabled. */
		task->next_to_enable[e] = op->next_on_engine;
		task->enabled++;
		fire(task, op, VDLA_EVENT_OP_ENABLED);
		if (op->chain_tail)
			break;
	}
	return 1;
}

/*
 * One S_ENABLE write per engine for every group the pass enabled. An
 * enabled operation's ENABLED links have fired already: an operation they
 * released on another engine may become pending just before it, which it
 * could anyway, since engines run side by side.
 */
static void enable_marked_groups(struct dla_engine *engine)
{
	for (uint32_t e = 0; e < VDLA_NUM_ENGINES; e++) {
		if (!engine->to_enable[e])
			continue;
		dla_wr(engine, VDLA_ENGINE_BASE(e) + VDLA_E_ENABLE, engine->to_enable[e]);
		engine->to_enable[e] = 0;
	}
}

/* Programs and enables until nothing changes. */
static void schedule(struct dla_engine *engine, struct dla_task *task)
{
	int changed;

	do {
		changed = 0;
		for (uint32_t e = 0; e < VDLA_NUM_ENGINES; e++)
			changed |= program_engine(engine, task, e);
		if (task->stop_requested)
			break;
		/*
		 * An engine's ops are enabled in order, so only its first op
		 * not enabled yet can be next; enabling it (and its chain)
		 * moves that on.
		 */
		for (uint32_t e = 0; e < VDLA_NUM_ENGINES; e++) {
			for (;;) {
				uint16_t index = task->next_to_enable[e];
				const struct dla_op *op;

				if (index == VDLA_NO_OP)
					break;
				op = &task->ops[index];
				/* Only a fused member can be ready with links pending. */
				if (op->state != DLA_OP_PROGRAMMED ||
				    (op->pending != 0 && op->desc.fused_parent == VDLA_NO_OP) ||
				    !try_enable(engine, task, index))
					break;
				changed = 1;
			}
		}
	} while (changed);
	enable_marked_groups(engine);
}

/*
 * Keeps the register shadow if this context still owns the device (nothing
 * reset it and no other context programmed it since), else forgets it and
 * takes ownership. A kept shadow spares writing again, for every operation
 * a task starts with, the registers it has in common with the operation the
 * group last ran.
 */
static void claim_registers(struct dla_engine *engine)
{
	if (dla_rd(engine, DLA_SHADOW_OWNER_REG) == engine->owner_token)
		return;
	dla_shadow_invalidate(engine);
	dla_wr(engine, DLA_SHADOW_OWNER_REG, engine->owner_token);
}

static void read_consumer_pointers(struct dla_engine *engine, struct dla_task *task)
{
	claim_registers(engine);
	for (uint32_t e = 0; e < VDLA_NUM_ENGINES; e++) {
		uint32_t pointer = dla_rd(engine, VDLA_ENGINE_BASE(e) + VDLA_E_POINTER);

		task->next_group[e] = (pointer & VDLA_E_POINTER_CONSUMER_MASK) >>
				      VDLA_E_POINTER_CONSUMER_SHIFT;
		for (uint32_t g = 0; g < VDLA_NUM_GROUPS; g++)
			task->group_op[e][g] = VDLA_NO_OP;
	}
}

static int config_is_valid(const struct dla_task_config *config)
{
	return config && config->state && config->state_size >= sizeof(struct dla_task) &&
	       !(config->flags & ~DLA_TASK_FLAGS);
}

static int engine_is_busy(const struct dla_engine *engine)
{
	return engine->task && (engine->task->result.state == DLA_TASK_RUNNING ||
				engine->task->result.state == DLA_TASK_STOPPING);
}

/* Starts the validated @task: programs and enables what can run. */
static int32_t start_task(struct dla_engine *engine, struct dla_task *task)
{
	/* Nothing to run, so no interrupt will come: it ends here. */
	if (task->num_ops == 0) {
		task->result.state = DLA_TASK_COMPLETED;
		return DLA_SUCCESS;
	}

	task->result.state = DLA_TASK_RUNNING;
	engine->int_enable = dla_rd(engine, VDLA_REG_INT_ENABLE);
	read_consumer_pointers(engine, task);
	schedule(engine, task);
	return DLA_SUCCESS;
}

int32_t dla_execute_task(struct dla_engine *engine, const struct dla_task_config *config)
{
	struct dla_task *task;
	int32_t ret;

	if (!engine || !config_is_valid(config))
		return DLA_ERR_BAD_ARGUMENT;
	if (engine_is_busy(engine))
		return DLA_ERR_BUSY;

	task = config->state;
	dla_memset(task, 0, sizeof(*task));
	task->config = *config;
	engine->task = task;

	ret = dla_validate_task(engine, config, task);
	if (ret) {
		task->result.state = DLA_TASK_FAILED;
		task->result.status = (uint32_t)ret;
		return ret;
	}
	return start_task(engine, task);
}

int32_t dla_execute_checked_task(struct dla_engine *engine, const struct dla_task_config *config)
{
	struct dla_task *task;

	/* The check validated another context (DLA_FIELD_CONTEXT): this one is new. */
	if (!engine || !config_is_valid(config) || config->context >= VDLA_MMU_NUM_CONTEXTS)
		return DLA_ERR_BAD_ARGUMENT;
	if (engine_is_busy(engine))
		return DLA_ERR_BUSY;
	task = config->state;
	if (!task->checked || config->state_size < dla_task_state_size(task->num_ops))
		return DLA_ERR_BAD_STATE;

	/* It runs once: starting it again needs another check. */
	task->checked = 0;
	task->config = *config;
	engine->task = task;
	return start_task(engine, task);
}

int32_t dla_check_task(struct dla_engine *engine, const struct dla_task_config *config,
		       struct dla_task_result *result)
{
	struct dla_task *task;
	int32_t ret;

	if (!engine || !result || !config_is_valid(config))
		return DLA_ERR_BAD_ARGUMENT;
	task = config->state;
	dla_memset(task, 0, sizeof(*task));
	task->config = *config;
	ret = dla_validate_task(engine, config, task);
	if (ret) {
		task->result.state = DLA_TASK_FAILED;
		task->result.status = (uint32_t)ret;
	}
	task->checked = !ret;
	*result = task->result;
	return ret;
}

uint32_t dla_isr_handler(struct dla_engine *engine)
{
	uint32_t status = dla_rd(engine, VDLA_REG_INT_STATUS);
	uint32_t owned = status & DLA_OWNED_INTERRUPTS;

	if (owned) {
		dla_wr(engine, VDLA_REG_INT_STATUS, owned);
		__atomic_fetch_or(&engine->irq_status, owned, __ATOMIC_RELEASE);
	}
	return status;
}

static void read_stats(struct dla_engine *engine, struct dla_task *task, uint32_t e,
		       struct dla_op *op)
{
	uint32_t base = VDLA_ENGINE_BASE(e) + VDLA_E_GROUP_STAT(op->group);
	struct dla_op_stats *s = &op->stats;

	s->device_ns = dla_rd64(engine, base + VDLA_E_STAT_TIME_LO);
	if (task->config.flags & DLA_TASK_TIME_ONLY)
		return;

	/* Each pair in one access (hardware 3.1). */
	s->macs = dla_rd64(engine, base + VDLA_E_STAT_MACS_LO);
	s->bytes_read = dla_rd64(engine, base + VDLA_E_STAT_READ_LO);
	s->bytes_written = dla_rd64(engine, base + VDLA_E_STAT_WRITE_LO);
}

/* Soft-resets the device and restores the interrupts a reset clears. */
static void reset_device(struct dla_engine *engine)
{
	dla_wr(engine, VDLA_REG_RESET, VDLA_RESET_SOFT);
	dla_wr(engine, VDLA_REG_INT_ENABLE, engine->int_enable);
	dla_shadow_invalidate(engine);
}

static uint32_t stat_error(struct dla_engine *engine, const struct dla_op *op)
{
	return dla_rd(engine, VDLA_ENGINE_BASE(op->desc.engine) + VDLA_E_GROUP_STAT(op->group) +
				      VDLA_E_STAT_ERROR);
}

/*
 * The member of @index's fused chain whose own error failed the chain. The
 * device fails every member at once, the others with VDLA_ERROR_CHAIN, but
 * the engines' status is read one engine after the other: a member on a
 * later engine can be the first seen failed.
 */
static uint32_t failing_member(struct dla_engine *engine, struct dla_task *task, uint32_t index)
{
	for (uint32_t i = chain_head(task, index);; i++) {
		if (stat_error(engine, &task->ops[i]) != VDLA_ERROR_CHAIN)
			return i;
		if (task->ops[i].chain_tail)
			return index;
	}
}

static void fail_task(struct dla_engine *engine, struct dla_task *task, uint32_t index)
{
	struct dla_task_result *r = &task->result;
	uint32_t e;

	index = failing_member(engine, task, index);
	e = task->ops[index].desc.engine;
	r->state = DLA_TASK_FAILED;
	r->status = DLA_ERR_HARDWARE;
	r->hw_op = index;
	r->hw_error = stat_error(engine, &task->ops[index]);
	if (r->hw_error == VDLA_ERROR_MMU_FAULT) {
		r->fault_status = dla_rd(engine, VDLA_REG_MMU_FAULT_STATUS);
		r->fault_addr = dla_rd(engine, VDLA_REG_MMU_FAULT_ADDR_LO) |
				((uint64_t)dla_rd(engine, VDLA_REG_MMU_FAULT_ADDR_HI) << 32);
	}
	dla_error("vdla fw: op %u (%s) failed on the device: error %u\n", index,
		  dla_engine_ops[e].name, r->hw_error);
	reset_device(engine);
}

/*
 * Completes what the device finished on engine @e, oldest group first.
 * Returns -1 if an operation failed (the task is then FAILED).
 */
static int collect_engine(struct dla_engine *engine, struct dla_task *task, uint32_t e)
{
	/*
	 * Each S_STATUS register read once, when first needed. A group that
	 * ends after the read is seen at the next event: it raises DONE again,
	 * since the bit was acknowledged before this runs.
	 */
	uint32_t status[2] = { 0, 0 };
	int read[2] = { 0, 0 };

	/*
	 * Oldest first. An engine runs its ops in order, each in the group
	 * after the last one's, and they are enabled in order: the ops after
	 * one not enabled, or not done, are not either.
	 */
	for (;;) {
		uint16_t oldest = task->next_to_complete[e];
		struct dla_op *op;
		uint32_t state, reg;

		if (oldest == VDLA_NO_OP)
			return 0;
		op = &task->ops[oldest];
		if (op->state != DLA_OP_ENABLED)
			return 0;
		reg = op->group / VDLA_E_STATUS_GROUPS_PER_REG;
		if (!read[reg]) {
			status[reg] = dla_rd(engine, VDLA_ENGINE_BASE(e) +
						     VDLA_E_STATUS_REG(op->group));
			read[reg] = 1;
		}
		state = (status[reg] >> VDLA_E_STATUS_GROUP_SHIFT(op->group)) & VDLA_E_STATUS_GROUP_MASK;
		if (state == VDLA_GROUP_ERROR) {
			fail_task(engine, task, oldest);
			return -1;
		}
		if (state != VDLA_GROUP_DONE)
			return 0;

		if (task->config.flags & DLA_TASK_STATISTICS)
			read_stats(engine, task, e, op);
		op->stats.group = op->group;
		op->stats.completed = 1;
		if (op->next_on_engine != VDLA_NO_OP) {
			task->result.pingpong_total++;
			if (task->ops[op->next_on_engine].state >= DLA_OP_PROGRAMMED)
				task->result.pingpong_hits++;
		}
		op->state = DLA_OP_COMPLETED;
		task->group_op[e][op->group] = VDLA_NO_OP;
		task->next_to_complete[e] = op->next_on_engine;
		task->enabled--;
		task->result.ops_completed++;
		fire(task, op, VDLA_EVENT_OP_COMPLETED);
	}
}

/* Un-programs what was programmed but not enabled, for a later resume. */
static void park(struct dla_task *task)
{
	for (uint32_t e = 0; e < VDLA_NUM_ENGINES; e++) {
		uint16_t first = VDLA_NO_OP;

		for (uint32_t g = 0; g < VDLA_NUM_GROUPS; g++) {
			uint16_t index = task->group_op[e][g];

			if (index == VDLA_NO_OP)
				continue;
			task->ops[index].state = DLA_OP_WAITING;
			task->ops[index].group = DLA_NO_GROUP;
			if (first == VDLA_NO_OP || index < first)
				first = index;
			task->group_op[e][g] = VDLA_NO_OP;
		}
		if (first != VDLA_NO_OP)
			task->next_to_program[e] = first;
	}
}

int32_t dla_process_events(struct dla_engine *engine, uint32_t *task_complete)
{
	struct dla_task *task;

	if (!engine || !task_complete)
		return DLA_ERR_BAD_ARGUMENT;
	*task_complete = 0;
	__atomic_exchange_n(&engine->irq_status, 0, __ATOMIC_ACQUIRE);
	task = engine->task;
	if (!task || (task->result.state != DLA_TASK_RUNNING &&
		      task->result.state != DLA_TASK_STOPPING))
		return DLA_SUCCESS;

	for (uint32_t e = 0; e < VDLA_NUM_ENGINES; e++) {
		if (collect_engine(engine, task, e) < 0) {
			*task_complete = 1;
			return DLA_ERR_HARDWARE;
		}
	}

	if (task->result.ops_completed == task->num_ops) {
		task->result.state = DLA_TASK_COMPLETED;
		*task_complete = 1;
		return DLA_SUCCESS;
	}
	schedule(engine, task);
	if (task->stop_requested && task->enabled == 0) {
		park(task);
		task->result.state = DLA_TASK_STOPPED;
		*task_complete = 1;
	}
	return DLA_SUCCESS;
}

void dla_clear_task(struct dla_engine *engine)
{
	if (engine)
		engine->task = NULL;
}

int32_t dla_abort_task(struct dla_engine *engine)
{
	if (!engine || !engine->task)
		return DLA_ERR_NO_TASK;
	reset_device(engine);
	engine->task->result.state = DLA_TASK_ABORTED;
	return DLA_SUCCESS;
}

int32_t dla_request_stop(struct dla_engine *engine)
{
	if (!engine || !engine->task)
		return DLA_ERR_NO_TASK;
	if (engine->task->result.state != DLA_TASK_RUNNING)
		return DLA_ERR_BAD_STATE;
	engine->task->stop_requested = 1;
	engine->task->result.state = DLA_TASK_STOPPING;
	return DLA_SUCCESS;
}

int32_t dla_switch_task(struct dla_engine *engine, void *state, uint32_t context)
{
	struct dla_task *task = state;

	if (!engine || !task || context >= VDLA_MMU_NUM_CONTEXTS)
		return DLA_ERR_BAD_ARGUMENT;
	if (engine->task && (engine->task->result.state == DLA_TASK_RUNNING ||
			     engine->task->result.state == DLA_TASK_STOPPING))
		return DLA_ERR_BUSY;
	if (task->result.state != DLA_TASK_STOPPED)
		return DLA_ERR_BAD_STATE;
	/* Operations not yet programmed are programmed with the new context. */
	task->config.context = context;
	engine->task = task;
	return DLA_SUCCESS;
}

int32_t dla_resume_task(struct dla_engine *engine)
{
	struct dla_task *task;

	if (!engine || !engine->task)
		return DLA_ERR_NO_TASK;
	task = engine->task;
	if (task->result.state != DLA_TASK_STOPPED)
		return DLA_ERR_BAD_STATE;
	task->stop_requested = 0;
	task->result.state = DLA_TASK_RUNNING;
	engine->int_enable = dla_rd(engine, VDLA_REG_INT_ENABLE);
	read_consumer_pointers(engine, task);
	schedule(engine, task);
	return DLA_SUCCESS;
}

int32_t dla_get_task_result(struct dla_engine *engine, struct dla_task_result *result)
{
	if (!engine || !result)
		return DLA_ERR_BAD_ARGUMENT;
	if (!engine->task)
		return DLA_ERR_NO_TASK;
	*result = engine->task->result;
	return DLA_SUCCESS;
}

int32_t dla_op_statistics(struct dla_engine *engine, uint32_t op, struct dla_op_stats *stats)
{
	if (!engine || !stats)
		return DLA_ERR_BAD_ARGUMENT;
	if (!engine->task)
		return DLA_ERR_NO_TASK;
	if (op >= engine->task->num_ops)
		return DLA_ERR_BAD_ARGUMENT;
	*stats = engine->task->ops[op].stats;
	return DLA_SUCCESS;
}
