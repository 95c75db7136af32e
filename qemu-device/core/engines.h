/* SPDX-License-Identifier: MIT */
/*
 * The interface between the scheduler (engine.c) and the engines: an
 * operation runs on a snapshot of its group's D registers, stages its
 * outputs (already translated and checked) and the scheduler writes them
 * when the operation commits.
 */
#ifndef VDLA_ENGINES_H
#define VDLA_ENGINES_H

#include "core_internal.h"
#include "mem.h"

/* Data flying between fused engines: a packed NCHW tensor in host memory. */
struct fly {
	struct tensor t;
	uint8_t *data;
};

struct staged_output {
	struct access access;
	uint8_t *shadow;
};

#define OP_MAX_OUTPUTS 2
/* Inputs an operation reads in place at once (CONV: source and weights). */
#define OP_MAX_MAPPED 4

struct mapped_input {
	const uint8_t *ptr;
	uint64_t extent;
	bool unmap;	/* guest RAM the host mapped; false: SRAM */
};

struct op {
	struct vdla_core *core;
	/* The executing worker's buffer pool: every large buffer comes from it. */
	struct scratch_pool *pool;
	unsigned int engine;
	unsigned int group;
	uint32_t regs[D_WORDS];
	uint32_t fi_mode;
	uint32_t fi_delay_us;
	struct mem_ctx mem;
	struct group_stat stat;
	struct staged_output out[OP_MAX_OUTPUTS];
	unsigned int outputs;
	struct mapped_input mapped[OP_MAX_MAPPED];
	struct fly fly_in;	/* from the previous member of a chain */
	struct fly fly_out;	/* to the next member */
	int error;
};

/*
 * Checks the write of @t from @shadow (the operation owns @shadow from now
 * on, also on failure) and keeps it for the commit. Returns VDLA_ERROR_*.
 */
int op_stage_output(struct op *op, const struct tensor *t, uint8_t *shadow);
/*
 * Stages an output whose write access the engine prepared itself; takes
 * ownership of both.
 */
int op_stage_access(struct op *op, struct access *access, uint8_t *shadow);
/*
 * A whole input tensor, read-only, laid out as in memory from t->addr for
 * tensor_extent() bytes: where it is (SRAM, or guest RAM in one physically
 * contiguous stretch) or else a shadow copy. Give it back with op_free.
 * Counts the bytes. NULL with *error set on failure.
 */
const uint8_t *op_gather(struct op *op, const struct tensor *t, int *error);
/*
 * The input @t of an engine that can take it flying: with @flying, the
 * previous chain member's output (whose type and shape must be @t's, else
 * VDLA_ERROR_CHAIN); otherwise @t gathered from memory into *@shadow (give
 * it back with op_free). Sets *@in and *@base to read the elements through.
 */
int op_input(struct op *op, const struct tensor *t, bool flying, const struct tensor **in,
	     const uint8_t **base, const uint8_t **shadow);
/* Large buffers for an operation, from the executing worker's pool. */
void *op_alloc(struct op *op, size_t size);
/* Gives back op_alloc's buffers and op_gather's inputs. */
void op_free(struct op *op, const void *ptr);
/* Reads a raw range into @buf, counting bytes. */
int op_read_range(struct op *op, uint64_t addr, uint64_t len, void *buf);
/* Whether a reset voided @op: long loops look every so often and stop. */
static inline bool op_cancelled(const struct op *op)
{
	return mem_cancelled(&op->mem);
}
/* Allocates a packed NCHW tensor of @dtype shaped like @shape for fly_out. */
int op_fly_alloc(struct op *op, const struct tensor *shape, uint32_t dtype);

/* Each engine: validate the snapshot, compute, stage outputs or fly. */
int bdma_run(struct op *op);
int conv_run(struct op *op);
int sdp_run(struct op *op);
int pdp_run(struct op *op);
int cdp_run(struct op *op);
int rubik_run(struct op *op);

/* One past the last D register each engine implements. */
uint32_t engine_d_limit(unsigned int engine);

#endif /* VDLA_ENGINES_H */
