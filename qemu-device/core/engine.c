// SPDX-License-Identifier: MIT
/*
 * The engine scheduler: register groups with producer/consumer pointers, one
 * worker thread per engine, fused chains, fault injection, and the commit
 * that makes an operation's results visible (docs/hw-spec.md, "Engines:
 * common model", "Fusion", "Fault injection").
 *
 * A worker takes its engine's CONSUMER group when it is PENDING and its
 * chain partners are ready, marks it RUNNING, copies its registers, drops
 * the core lock and computes. Results are written only at commit, under
 * commit_lock, and only if no reset happened meanwhile.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_setname_np */
#endif
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engines.h"
#include "mmu.h"

/* oneDNN's OpenMP runtime: each worker computes on its own thread only. */
extern void omp_set_num_threads(int threads);

typedef int (*engine_run_fn)(struct op *op);

static const engine_run_fn engine_run[VDLA_NUM_ENGINES] = {
	[VDLA_ENGINE_BDMA] = bdma_run,	[VDLA_ENGINE_CONV] = conv_run,
	[VDLA_ENGINE_SDP] = sdp_run,	[VDLA_ENGINE_PDP] = pdp_run,
	[VDLA_ENGINE_CDP] = cdp_run,	[VDLA_ENGINE_RUBIK] = rubik_run,
};

uint32_t engine_d_limit(unsigned int engine)
{
	switch (engine) {
	case VDLA_ENGINE_BDMA:
		return VDLA_BDMA_DST_SURF_STRIDE + 4;
	case VDLA_ENGINE_CONV:
		return VDLA_CONV_PAD_VALUE + 4;
	case VDLA_ENGINE_SDP:
		return VDLA_SDP_OUT_OFFSET + 4;
	case VDLA_ENGINE_PDP:
		return VDLA_PDP_PAD_TB + 4;
	case VDLA_ENGINE_CDP:
		return VDLA_CDP_BETA + 4;
	default:
		return VDLA_RUBIK_BLOCK + 4;
	}
}

/* ---- operations' services to the engines ------------------------------ */

int op_stage_output(struct op *op, const struct tensor *t, uint8_t *shadow)
{
	struct staged_output *out;
	int ret;

	if (op->outputs == OP_MAX_OUTPUTS) {
		op_free(op, shadow);
		return VDLA_ERROR_LIMIT;
	}
	out = &op->out[op->outputs++];
	memset(out, 0, sizeof(*out));
	out->shadow = shadow;
	ret = access_tensor(&op->mem, t, true, &out->access);
	op->stat.bytes_written += out->access.bytes;
	return ret;
}

int op_stage_access(struct op *op, struct access *access, uint8_t *shadow)
{
	struct staged_output *out;

	if (op->outputs == OP_MAX_OUTPUTS) {
		access_free(&op->mem, access);
		op_free(op, shadow);
		return VDLA_ERROR_LIMIT;
	}
	out = &op->out[op->outputs++];
	out->access = *access;
	out->shadow = shadow;
	op->stat.bytes_written += access->bytes;
	memset(access, 0, sizeof(*access));
	return 0;
}

int op_input(struct op *op, const struct tensor *t, bool flying, const struct tensor **in,
	     const uint8_t **base, const uint8_t **shadow)
{
	int ret = 0;

	*shadow = NULL;
	if (flying) {
		if (!op->fly_in.data || op->fly_in.t.dtype != t->dtype ||
		    !tensor_same_shape(&op->fly_in.t, t))
			return VDLA_ERROR_CHAIN;
		*in = &op->fly_in.t;
		*base = op->fly_in.data;
		return 0;
	}
	*shadow = op_gather(op, t, &ret);
	*in = t;
	*base = *shadow;
	return ret;
}

void *op_alloc(struct op *op, size_t size)
{
	return scratch_get(op->pool, size);
}

void op_free(struct op *op, const void *ptr)
{
	for (int i = 0; ptr && i < OP_MAX_MAPPED; i++) {
		if (op->mapped[i].ptr == ptr) {
			if (op->mapped[i].unmap)
				access_unmap_input(&op->mem, ptr, op->mapped[i].extent);
			op->mapped[i].ptr = NULL;
			return;
		}
	}
	scratch_put(op->pool, (void *)ptr);
}

/* Reads @a in place if it can, keeping a mapping for op_free; NULL if not. */
static const uint8_t *gather_in_place(struct op *op, const struct access *a)
{
	int slot = -1;
	const uint8_t *ptr;
	bool mapped;

	for (int i = 0; i < OP_MAX_MAPPED && slot < 0; i++) {
		if (!op->mapped[i].ptr)
			slot = i;
	}
	if (slot < 0)
		return NULL;
	ptr = access_map_input(&op->mem, a, &mapped);
	if (ptr)
		op->mapped[slot] = (struct mapped_input){ ptr, a->extent, mapped };
	return ptr;
}

const uint8_t *op_gather(struct op *op, const struct tensor *t, int *error)
{
	struct access access;
	const uint8_t *in = NULL;
	uint8_t *shadow = NULL;

	*error = access_tensor(&op->mem, t, false, &access);
	if (!*error)
		in = gather_in_place(op, &access);
	if (!*error && !in) {
		shadow = op_alloc(op, tensor_extent(t));
		*error = shadow ? access_read(&op->mem, &access, shadow) : VDLA_ERROR_LIMIT;
		in = shadow;
	}
	op->stat.bytes_read += access.bytes;
	access_free(&op->mem, &access);
	if (*error) {
		op_free(op, shadow);
		return NULL;
	}
	return in;
}

int op_read_range(struct op *op, uint64_t addr, uint64_t len, void *buf)
{
	struct access access;
	int ret = access_lines(&op->mem, addr, len, 1, 0, 1, 0, false, &access);

	if (!ret)
		ret = access_read(&op->mem, &access, buf);
	op->stat.bytes_read += access.bytes;
	access_free(&op->mem, &access);
	return ret;
}

int op_fly_alloc(struct op *op, const struct tensor *shape, uint32_t dtype)
{
	struct tensor *t = &op->fly_out.t;
	uint32_t e = dtype_size(dtype);

	*t = *shape;
	t->addr = 0;
	t->dtype = dtype;
	t->esize = e;
	t->stride[VDLA_DIM_W] = t->dim[VDLA_DIM_W] > 1 ? e : 0;
	t->stride[VDLA_DIM_H] = t->dim[VDLA_DIM_H] > 1 ? (uint64_t)e * t->dim[VDLA_DIM_W] : 0;
	t->stride[VDLA_DIM_C] = t->dim[VDLA_DIM_C] > 1 ?
					(uint64_t)e * t->dim[VDLA_DIM_W] * t->dim[VDLA_DIM_H] : 0;
	t->stride[VDLA_DIM_N] = t->dim[VDLA_DIM_N] > 1 ? (uint64_t)e * t->dim[VDLA_DIM_W] *
								 t->dim[VDLA_DIM_H] * t->dim[VDLA_DIM_C] :
							 0;
	op->fly_out.data = op_alloc(op, tensor_elements(t) * e);
	return op->fly_out.data ? 0 : VDLA_ERROR_LIMIT;
}

static void op_release(struct op *op)
{
	for (unsigned int i = 0; i < op->outputs; i++) {
		access_free(&op->mem, &op->out[i].access);
		op_free(op, op->out[i].shadow);
	}
	op->outputs = 0;
	op_free(op, op->fly_in.data);
	op_free(op, op->fly_out.data);
	op->fly_in.data = op->fly_out.data = NULL;
	/* Inputs an engine left in place (none should): guest memory is never held past an op. */
	for (int i = 0; i < OP_MAX_MAPPED; i++)
		op_free(op, op->mapped[i].ptr);
}

/* ---- register access --------------------------------------------------- */

/* The S_STATUS register at @offset: the states of its eight groups. */
static uint32_t group_state_bits(const struct engine_state *es, uint32_t offset)
{
	unsigned int first = offset == VDLA_E_STATUS_HI ? VDLA_E_STATUS_GROUPS_PER_REG : 0;
	uint32_t bits = 0;

	for (unsigned int g = first; g < first + VDLA_E_STATUS_GROUPS_PER_REG; g++)
		bits |= es->group[g].state << VDLA_E_STATUS_GROUP_SHIFT(g);
	return bits;
}

static bool group_busy(const struct engine_group *g)
{
	return g->state == VDLA_GROUP_PENDING || g->state == VDLA_GROUP_RUNNING;
}

static bool engine_busy(const struct engine_state *es)
{
	for (unsigned int g = 0; g < VDLA_NUM_GROUPS; g++) {
		if (group_busy(&es->group[g]))
			return true;
	}
	return false;
}

uint32_t engines_idle_locked(struct vdla_core *core)
{
	uint32_t idle = 0;

	for (unsigned int e = 0; e < VDLA_NUM_ENGINES; e++) {
		if (!engine_busy(&core->engine[e]))
			idle |= 1u << e;
	}
	return idle;
}

static uint32_t stat_read(struct vdla_core *core, const struct group_stat *s, uint32_t offset,
			  bool *valid)
{
	uint64_t v;

	switch (offset) {
	case VDLA_E_STAT_ERROR:
		return s->error;
	case VDLA_E_STAT_MACS_LO:
		v = s->macs;
		break;
	case VDLA_E_STAT_READ_LO:
		v = s->bytes_read;
		break;
	case VDLA_E_STAT_WRITE_LO:
		v = s->bytes_written;
		break;
	case VDLA_E_STAT_TIME_LO:
		v = s->time_ns;
		break;
	case VDLA_E_STAT_MACS_HI:
	case VDLA_E_STAT_READ_HI:
	case VDLA_E_STAT_WRITE_HI:
	case VDLA_E_STAT_TIME_HI:
		return core->stat_hi_latch;
	default:
		*valid = false;
		return 0;
	}
	core->stat_hi_latch = (uint32_t)(v >> 32);
	return (uint32_t)v;
}

uint32_t engine_reg_read_locked(struct vdla_core *core, unsigned int engine, uint32_t offset,
				bool *valid)
{
	struct engine_state *es = &core->engine[engine];

	*valid = true;
	if (offset == VDLA_E_STATUS || offset == VDLA_E_STATUS_HI)
		return group_state_bits(es, offset);
	if (offset == VDLA_E_POINTER)
		return es->producer | es->consumer << VDLA_E_POINTER_CONSUMER_SHIFT;
	if (offset == VDLA_E_ENABLE)
		return 0; /* write-only */
	if (offset >= VDLA_E_GROUP_STAT(0) && offset < VDLA_E_GROUP_STAT(VDLA_NUM_GROUPS)) {
		/* Every counter read of the driver comes here: no walk of the groups. */
		uint32_t g = (offset - VDLA_E_GROUP_STAT(0)) / (VDLA_E_GROUP_STAT(1) - VDLA_E_GROUP_STAT(0));

		return stat_read(core, &es->group[g].stat, offset - VDLA_E_GROUP_STAT(g), valid);
	}
	if (offset >= VDLA_D_WINDOW && offset < engine_d_limit(engine)) {
		const struct engine_group *g = &es->group[es->producer];

		if (offset == VDLA_D_OP_ENABLE)
			return group_busy(g) ? 1 : 0;
		return dreg(g->regs, offset);
	}
	*valid = false;
	return 0;
}

/* ---- readiness and wake-ups ------------------------------------------- */

static uint32_t consumer_cfg(struct vdla_core *core, unsigned int engine, uint32_t *state)
{
	struct engine_state *es = &core->engine[engine];
	struct engine_group *g = &es->group[es->consumer];

	*state = g->state;
	return dreg(g->regs, VDLA_D_CFG);
}

/* The engine a chain ending at @tail could fly to, or -1. */
static int downstream_of(unsigned int tail)
{
	if (tail == VDLA_ENGINE_CONV)
		return VDLA_ENGINE_SDP;
	if (tail == VDLA_ENGINE_SDP)
		return VDLA_ENGINE_PDP;
	return -1;
}

static bool expects_flying_input(unsigned int engine, uint32_t cfg)
{
	return (engine == VDLA_ENGINE_SDP && (cfg & VDLA_SDP_CFG_SRC_FLYING)) ||
	       (engine == VDLA_ENGINE_PDP && (cfg & VDLA_PDP_CFG_SRC_FLYING));
}

static bool flies_out(unsigned int engine, uint32_t cfg)
{
	return (engine == VDLA_ENGINE_CONV && (cfg & VDLA_CONV_CFG_DST_FLYING)) ||
	       (engine == VDLA_ENGINE_SDP && (cfg & VDLA_SDP_CFG_DST_FLYING));
}

/* Wakes every worker: a reset or a stop. */
static void kick_workers(struct vdla_core *core)
{
	for (unsigned int e = 0; e < VDLA_NUM_ENGINES; e++)
		pthread_cond_broadcast(&core->engine[e].work_cv);
}

/* The engine whose chains can fly into @engine, or -1. */
static int upstream_of(unsigned int engine)
{
	for (unsigned int e = 0; e < VDLA_NUM_ENGINES; e++)
		if (downstream_of(e) == (int)engine)
			return (int)e;
	return -1;
}

/*
 * Wakes the worker that can start something now that @engine's groups
 * changed: its own, or, when its next group waits for a flying input, the
 * one upstream, since a chain is started by its head once every member is
 * pending. Lock held.
 */
static void kick_engine(struct vdla_core *core, unsigned int engine)
{
	for (;;) {
		uint32_t state, cfg = consumer_cfg(core, engine, &state);
		int up = upstream_of(engine);

		pthread_cond_signal(&core->engine[engine].work_cv);
		if (up < 0 || state != VDLA_GROUP_PENDING || !expects_flying_input(engine, cfg))
			return;
		engine = (unsigned int)up;
	}
}

/*
 * S_ENABLE: every group whose bit is set becomes PENDING, as if enabled
 * through the D window, with one write. Accepted as a whole or not at all.
 */
static void enable_groups_locked(struct vdla_core *core, unsigned int engine, uint32_t groups)
{
	struct engine_state *es = &core->engine[engine];

	if (groups & ~VDLA_E_ENABLE_GROUPS) {
		core_guest_error(core, "vdla: engine %u: S_ENABLE 0x%x names groups beyond %u; dropped\n",
				 engine, groups, VDLA_NUM_GROUPS - 1);
		return;
	}
	for (unsigned int g = 0; g < VDLA_NUM_GROUPS; g++) {
		if ((groups & (1u << g)) && group_busy(&es->group[g])) {
			core_guest_error(core, "vdla: engine %u: S_ENABLE 0x%x: group %u is %s; dropped\n",
					 engine, groups, g,
					 es->group[g].state == VDLA_GROUP_PENDING ? "pending" : "running");
			return;
		}
	}
	if (!groups)
		return;
	for (unsigned int g = 0; g < VDLA_NUM_GROUPS; g++) {
		if (groups & (1u << g))
			es->group[g].state = VDLA_GROUP_PENDING;
	}
	kick_engine(core, engine);
}

bool engine_reg_write_locked(struct vdla_core *core, unsigned int engine, uint32_t offset,
			     uint32_t value)
{
	struct engine_state *es = &core->engine[engine];
	struct engine_group *g;

	if (offset == VDLA_E_POINTER) {
		if (value & ~(VDLA_E_POINTER_PRODUCER_MASK | VDLA_E_POINTER_CONSUMER_MASK)) {
			core_guest_error(core, "vdla: engine %u: S_POINTER 0x%x has unknown bits; dropped\n",
					 engine, value);
			return true;
		}
		es->producer = value & VDLA_E_POINTER_PRODUCER_MASK;
		return true;
	}
	if (offset == VDLA_E_ENABLE) {
		enable_groups_locked(core, engine, value);
		return true;
	}
	if (offset < VDLA_D_WINDOW || offset >= engine_d_limit(engine))
		return false;

	g = &es->group[es->producer];
	if (group_busy(g)) {
		core_guest_error(core, "vdla: engine %u: group %u is %s; write of 0x%x to 0x%x dropped\n",
				 engine, es->producer,
				 g->state == VDLA_GROUP_PENDING ? "pending" : "running", value,
				 offset);
		return true;
	}
	if (offset == VDLA_D_OP_ENABLE) {
		if (value & 1) {
			g->state = VDLA_GROUP_PENDING;
			kick_engine(core, engine);
		}
		return true;
	}
	g->regs[(offset - VDLA_D_WINDOW) / 4] = value;
	return true;
}

/* ---- scheduling -------------------------------------------------------- */

struct chain {
	unsigned int count;
	unsigned int engine[3];
	unsigned int group[3];
};

enum readiness { NOT_READY, READY };

/*
 * Decides whether @engine's CONSUMER group can start, building the chain it
 * heads (docs/hw-spec.md, "Fusion"). A flying consumer never starts on its
 * own: it pairs with its producer's next operation that flies to it, which
 * waits until the consumer's CONSUMER group is PENDING and expects it.
 * Operations that do not fly run independently meanwhile.
 */
static enum readiness chain_ready_locked(struct vdla_core *core, unsigned int engine,
					 struct chain *chain)
{
	uint32_t state, cfg = consumer_cfg(core, engine, &state);

	if (state != VDLA_GROUP_PENDING || expects_flying_input(engine, cfg))
		return NOT_READY;

	chain->count = 1;
	chain->engine[0] = engine;
	for (;;) {
		unsigned int tail = chain->engine[chain->count - 1];
		int next = downstream_of(tail);
		uint32_t next_state, next_cfg;

		if (next < 0 || !flies_out(tail, consumer_cfg(core, tail, &state)))
			return READY;
		next_cfg = consumer_cfg(core, (unsigned int)next, &next_state);
		if (next_state != VDLA_GROUP_PENDING ||
		    !expects_flying_input((unsigned int)next, next_cfg))
			return NOT_READY;
		chain->engine[chain->count++] = (unsigned int)next;
	}
}

/* Marks the chain RUNNING and copies what its operations need. */
static void chain_start_locked(struct vdla_core *core, const struct chain *chain,
			       struct op *ops)
{
	struct engine_state *head = &core->engine[chain->engine[0]];

	for (unsigned int i = 0; i < chain->count; i++) {
		unsigned int e = chain->engine[i];
		struct engine_state *es = &core->engine[e];
		struct engine_group *g = &es->group[es->consumer];
		struct op *op = &ops[i];

		memset(op, 0, sizeof(*op));
		op->core = core;
		op->pool = &head->pool;
		op->engine = e;
		op->group = es->consumer;
		memcpy(op->regs, g->regs, sizeof(op->regs));
		op->mem.core = core;
		op->mem.pool = &head->pool;
		op->mem.engine = e;
		op->mem.context = dreg(g->regs, VDLA_D_CONTEXT);
		op->mem.generation = core->generation;
		mmu_snapshot_locked(core, &op->mem);
		g->state = VDLA_GROUP_RUNNING;
		core_trace(core, VDLA_TRACE_OP_START, e, op->group, 0, 0);
	}

	/* Fault injection applies through the chain's head. */
	if (head->fi_count && head->fi_mode != VDLA_FI_NONE) {
		ops[0].fi_mode = head->fi_mode;
		ops[0].fi_delay_us = head->fi_delay_us;
		if (head->fi_count != VDLA_FI_COUNT_FOREVER)
			head->fi_count--;
	}
}

/*
 * Waits on @engine's work_cv until a reset or @deadline (NULL: forever);
 * lock held.
 */
static void wait_for_reset_locked(struct vdla_core *core, unsigned int engine,
				  uint64_t generation, const struct timespec *deadline)
{
	pthread_cond_t *cv = &core->engine[engine].work_cv;

	while (!core->stopping && core->generation == generation) {
		if (!deadline) {
			pthread_cond_wait(cv, &core->lock);
		} else if (pthread_cond_timedwait(cv, &core->lock, deadline) ==
			   ETIMEDOUT) {
			return;
		}
	}
}

static void deadline_after_us(struct timespec *ts, uint32_t us)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += us / 1000000;
	ts->tv_nsec += (long)(us % 1000000) * 1000;
	if (ts->tv_nsec >= 1000000000) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000;
	}
}

/* Runs every member; returns the index of the failing one, or -1. */
static int chain_compute(const struct chain *chain, struct op *ops)
{
	if (ops[0].fi_mode == VDLA_FI_OP_ERROR) {
		ops[0].error = VDLA_ERROR_INJECTED;
		return 0;
	}
	for (unsigned int i = 0; i < chain->count; i++) {
		struct op *op = &ops[i];

		if (i > 0) {
			op->fly_in = ops[i - 1].fly_out;
			ops[i - 1].fly_out.data = NULL;
		}
		op->error = engine_run[op->engine](op);
		if (op->error)
			return (int)i;
	}
	return -1;
}

static void latch_fault_locked(struct vdla_core *core, const struct op *op)
{
	if (core->fault_status & VDLA_MMU_FAULT_VALID)
		return;
	core->fault_status = VDLA_MMU_FAULT_VALID |
			     (op->mem.fault_write ? VDLA_MMU_FAULT_WRITE : 0) |
			     (op->mem.fault_reason << VDLA_MMU_FAULT_REASON_SHIFT) |
			     (op->engine << VDLA_MMU_FAULT_ENGINE_SHIFT) |
			     ((op->mem.context & 0xff) << VDLA_MMU_FAULT_CONTEXT_SHIFT);
	core->fault_addr = op->mem.fault_addr;
}

/* Output bytes written per hold of commit_lock: the longest a reset waits. */
#define COMMIT_CHUNK_BYTES	(256u << 10)

/*
 * Writes the chain's outputs a chunk at a time, each under commit_lock,
 * which a reset takes too: after a reset returns, nothing more is written.
 * The DMA never needs QEMU's big lock (the host maps guest RAM only), so a
 * vCPU resetting the device with it held waits for one chunk at most.
 * Returns 0, VDLA_ERROR_CANCELLED, or -1 with *@failed set to the member
 * whose write the host refused (the memory map changed since its check).
 */
static int write_outputs(struct vdla_core *core, const struct chain *chain, struct op *ops,
			 int *failed)
{
	for (unsigned int i = 0; i < chain->count; i++) {
		for (unsigned int o = 0; o < ops[i].outputs; o++) {
			struct staged_output *out = &ops[i].out[o];
			struct run_cursor cursor = { 0 };

			while (!cursor.done) {
				int ret = 0;

				pthread_mutex_lock(&core->commit_lock);
				if (mem_cancelled(&ops[i].mem))
					ret = VDLA_ERROR_CANCELLED;
				else
					ret = access_write(&ops[i].mem, &out->access, out->shadow,
							   &cursor, COMMIT_CHUNK_BYTES);
				pthread_mutex_unlock(&core->commit_lock);
				if (ret == VDLA_ERROR_CANCELLED)
					return ret;
				if (ret) {
					ops[i].error = ret;
					*failed = (int)i;
					return -1;
				}
			}
		}
	}
	return 0;
}

/*
 * Makes the chain's results visible, unless a reset voided it. Returns the
 * number of MSI-X messages to send.
 */
static unsigned int chain_commit(struct vdla_core *core, const struct chain *chain,
				 struct op *ops, int failed, uint64_t generation,
				 uint64_t elapsed_ns)
{
	uint32_t bits = 0;
	bool notify;

	if (failed < 0 && write_outputs(core, chain, ops, &failed) == VDLA_ERROR_CANCELLED)
		return 0;

	pthread_mutex_lock(&core->lock);
	if (core->generation != generation || core->stopping) {
		pthread_mutex_unlock(&core->lock);
		return 0;
	}
	for (unsigned int i = 0; i < chain->count; i++) {
		struct op *op = &ops[i];
		struct engine_state *es = &core->engine[op->engine];
		struct engine_group *g = &es->group[op->group];

		op->stat.time_ns = elapsed_ns;
		if (failed >= 0) {
			op->stat.error = (int)i == failed ? (uint32_t)op->error : VDLA_ERROR_CHAIN;
			op->stat.bytes_written = 0;
			g->state = VDLA_GROUP_ERROR;
			bits |= VDLA_INT_ERROR(op->engine);
			if (op->stat.error == VDLA_ERROR_MMU_FAULT) {
				core_trace(core, VDLA_TRACE_MMU_FAULT, op->engine, op->group,
					   op->mem.fault_reason, op->mem.fault_addr);
				latch_fault_locked(core, op);
				bits |= VDLA_INT_MMU_FAULT;
			}
		} else {
			op->stat.error = VDLA_ERROR_NONE;
			g->state = VDLA_GROUP_DONE;
			if (ops[0].fi_mode != VDLA_FI_DROP_IRQ)
				bits |= VDLA_INT_DONE(op->engine);
		}
		g->stat = op->stat;
		core_trace(core, VDLA_TRACE_OP_END, op->engine, op->group, op->stat.error,
			   op->stat.time_ns);
		es->consumer = (op->group + 1) % VDLA_NUM_GROUPS;
		kick_engine(core, op->engine);
	}
	notify = core_raise_locked(core, bits);
	pthread_mutex_unlock(&core->lock);

	if (!notify)
		return 0;
	return ops[0].fi_mode == VDLA_FI_DUP_IRQ ? 2 : 1;
}

/*
 * @start: the device time the chain became RUNNING, read under the lock
 * when it did, so that the operation's time is RUNNING to DONE even if the
 * clock moves before this thread gets here.
 */
static void execute_chain(struct vdla_core *core, const struct chain *chain, struct op *ops,
			  uint64_t generation, uint64_t start)
{
	unsigned int messages;
	int failed;

	if (ops[0].fi_mode == VDLA_FI_HANG) {
		pthread_mutex_lock(&core->lock);
		wait_for_reset_locked(core, chain->engine[0], generation, NULL);
		pthread_mutex_unlock(&core->lock);
		return;
	}

	failed = chain_compute(chain, ops);
	if (failed >= 0 && ops[failed].error == VDLA_ERROR_CANCELLED)
		return;

	if (ops[0].fi_mode == VDLA_FI_DELAY && ops[0].fi_delay_us) {
		struct timespec deadline;

		deadline_after_us(&deadline, ops[0].fi_delay_us);
		pthread_mutex_lock(&core->lock);
		wait_for_reset_locked(core, chain->engine[0], generation, &deadline);
		pthread_mutex_unlock(&core->lock);
	}

	messages = chain_commit(core, chain, ops, failed, generation, core_time_ns(core) - start);
	for (unsigned int m = 0; m < messages; m++)
		core->host.raise_irq(core->host.opaque, VDLA_MSIX_VECTOR_GLOBAL);
}

/* Stops the workers of engines [0, @count). */
static void engines_stop_some(struct vdla_core *core, unsigned int count)
{
	pthread_mutex_lock(&core->lock);
	__atomic_store_n(&core->stopping, true, __ATOMIC_RELAXED);
	kick_workers(core);
	pthread_mutex_unlock(&core->lock);
	for (unsigned int e = 0; e < count; e++) {
		if (core->engine[e].running && core->host.thread_join)
			core->host.thread_join(core->host.opaque, core->engine[e].host_thread);
		else if (core->engine[e].running)
			pthread_join(core->engine[e].worker, NULL);
		core->engine[e].running = false;
		scratch_release(&core->engine[e].pool);
	}
}

static void *worker_main(void *arg)
{
	const struct engine_state *w = arg;
	struct vdla_core *core = w->core;
	struct op *ops = calloc(3, sizeof(*ops));

	if (core->host.thread_start)
		core->host.thread_start(core->host.opaque);
	omp_set_num_threads(1);
	pthread_mutex_lock(&core->lock);
	while (!core->stopping && ops) {
		struct chain chain;

		if (chain_ready_locked(core, w->engine, &chain) == NOT_READY) {
			pthread_cond_wait(&core->engine[w->engine].work_cv, &core->lock);
			continue;
		}

		uint64_t generation = core->generation;

		chain_start_locked(core, &chain, ops);
		uint64_t start = core_time_ns(core);

		pthread_mutex_unlock(&core->lock);
		execute_chain(core, &chain, ops, generation, start);
		for (unsigned int i = 0; i < chain.count; i++)
			op_release(&ops[i]);
		pthread_mutex_lock(&core->lock);
	}
	pthread_mutex_unlock(&core->lock);
	free(ops);
	if (core->host.thread_stop)
		core->host.thread_stop(core->host.opaque);
	return NULL;
}

static const char *const worker_names[VDLA_NUM_ENGINES] = {
	"vdla-bdma", "vdla-conv", "vdla-sdp", "vdla-pdp", "vdla-cdp", "vdla-rubik",
};

/*
 * A worker without the host's help: a pthread with every signal blocked
 * (signals are the host process's business, not the device's), named
 * after its engine for debuggers and top.
 */
static int start_pthread(struct engine_state *es, unsigned int e)
{
	sigset_t all, old;
	int ret;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&es->worker, NULL, worker_main, es);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!ret)
		pthread_setname_np(es->worker, worker_names[e]);
	return ret ? -1 : 0;
}

int engines_start(struct vdla_core *core)
{
	for (unsigned int e = 0; e < VDLA_NUM_ENGINES; e++) {
		struct engine_state *es = &core->engine[e];
		int ret;

		es->core = core;
		es->engine = e;
		es->pool.limit = (size_t)core->config.op_memory_mb << 20;
		if (core->host.thread_create)
			ret = core->host.thread_create(core->host.opaque, worker_names[e],
						       worker_main, es, &es->host_thread);
		else
			ret = start_pthread(es, e);
		if (ret) {
			engines_stop_some(core, e);
			return -1;
		}
		es->running = true;
	}
	return 0;
}

void engines_stop(struct vdla_core *core)
{
	engines_stop_some(core, VDLA_NUM_ENGINES);
}

void engines_reset_locked(struct vdla_core *core)
{
	for (unsigned int e = 0; e < VDLA_NUM_ENGINES; e++) {
		struct engine_state *es = &core->engine[e];

		memset(es->group, 0, sizeof(es->group));
		es->producer = 0;
		es->consumer = 0;
		es->fi_mode = VDLA_FI_NONE;
		es->fi_count = 0;
		es->fi_delay_us = 0;
		if (core->config.fi_engine == (int32_t)e) {
			es->fi_mode = core->config.fi_mode;
			es->fi_count = core->config.fi_count;
			es->fi_delay_us = core->config.fi_delay_us;
		}
	}
	kick_workers(core);
}
