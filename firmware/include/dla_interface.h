/* SPDX-License-Identifier: MIT */
/*
 * The portable firmware core: the entry points a host (the vdla kernel
 * driver, or a test) calls. docs/firmware.md describes the design.
 *
 * The core keeps no global state: everything lives in memory the host
 * provides (an engine context per device, a state area per task), so several
 * devices run side by side. It uses no floating point and no C library; what
 * it needs from its host is the port layer (dla_port.h).
 *
 * Calling rules: dla_isr_handler may run in interrupt context concurrently
 * with the other entry points; every other entry point of one engine context
 * is called by one thread at a time (the host serialises them).
 */
#ifndef DLA_INTERFACE_H
#define DLA_INTERFACE_H

#include "dla_types.h"

/* Status codes. Positive and disjoint from any OS's errno on purpose. */
enum dla_status {
	DLA_SUCCESS = 0,
	DLA_ERR_INVALID_TASK = 1000,	/* validation failed, see dla_task_result */
	DLA_ERR_NO_MEMORY = 1001,	/* the state area is too small */
	DLA_ERR_BUSY = 1002,		/* a task is already running */
	DLA_ERR_NO_TASK = 1003,		/* no task to act on */
	DLA_ERR_BAD_STATE = 1004,	/* e.g. resume of a task that is not stopped */
	DLA_ERR_HARDWARE = 1005,	/* the device reported an error, see dla_task_result */
	DLA_ERR_PORT = 1006,		/* a port-layer call failed */
	DLA_ERR_BAD_ARGUMENT = 1007,
};

enum dla_task_state {
	DLA_TASK_NONE = 0,
	DLA_TASK_RUNNING = 1,
	DLA_TASK_STOPPING = 2,	/* stop requested, waiting for running ops */
	DLA_TASK_STOPPED = 3,	/* at an operation boundary; dla_resume_task continues */
	DLA_TASK_COMPLETED = 4,
	DLA_TASK_FAILED = 5,
	DLA_TASK_ABORTED = 6,
};

/* Where a validation error is: the header or an operation, and which field. */
#define DLA_ERROR_IN_HEADER	0xffffffffu

struct dla_task_result {
	uint32_t state;		/* enum dla_task_state */
	uint32_t status;	/* enum dla_status of the failure, DLA_SUCCESS otherwise */
	/* DLA_ERR_INVALID_TASK: what is wrong */
	uint32_t error_op;	/* op index or DLA_ERROR_IN_HEADER */
	uint32_t error_field;	/* enum dla_field */
	uint32_t error_reason;	/* enum dla_reason */
	uint32_t error_operand;	/* enum dla_field of the tensor or table, or DLA_FIELD_NONE */
	/* DLA_ERR_HARDWARE: what the device reported */
	uint32_t hw_op;		/* the op that failed */
	uint32_t hw_error;	/* its STAT_ERROR (VDLA_ERROR_*) */
	uint32_t fault_status;	/* MMU_FAULT_STATUS when hw_error is an MMU fault */
	uint64_t fault_addr;
	uint32_t ops_completed;
	/*
	 * Ping-pong: of the completions after which the engine had another
	 * op to run (pingpong_total), how many found it already programmed in
	 * the other group (pingpong_hits).
	 */
	uint32_t pingpong_hits;
	uint32_t pingpong_total;
};

/*
 * Per-operation statistics. The counters come from the device's STAT block
 * and are read only for a task with DLA_TASK_STATISTICS; group and
 * completed are always kept.
 */
struct dla_op_stats {
	uint64_t macs;
	uint64_t bytes_read;
	uint64_t bytes_written;
	uint64_t device_ns;
	uint32_t group;
	uint32_t completed;	/* 1 once the op completed */
};

/*
 * dla_task_config.flags. DLA_TASK_STATISTICS reads each operation's STAT
 * counters when it completes: four 64-bit register reads per operation,
 * each about a microsecond under emulation, so only for a host that
 * reports them; with DLA_TASK_TIME_ONLY, only the device time, one read.
 */
#define DLA_TASK_STATISTICS	(1u << 0)
/* With DLA_TASK_STATISTICS, the device time alone: one read per operation. */
#define DLA_TASK_TIME_ONLY	(1u << 1)
#define DLA_TASK_FLAGS		(DLA_TASK_STATISTICS | DLA_TASK_TIME_ONLY)

/* A task for dla_execute_task. */
struct dla_task_config {
	void *task_data;	/* the host's handle, passed back to the port layer */
	uint32_t flags;		/* DLA_TASK_*; others are DLA_ERR_BAD_ARGUMENT */
	uint16_t num_addresses;	/* entries in the task's address list */
	uint16_t descriptor;	/* address-list index of the descriptor buffer */
	uint32_t context;	/* MMU context (the driver's MMU slot) of the task's operations, 0..15 */
	void *state;		/* host memory for the task's state */
	size_t state_size;	/* bytes at @state, >= dla_task_state_size(num_ops) */
};

struct dla_engine;

/* Bytes of memory dla_register_driver needs. */
size_t dla_engine_size(void);
/* Bytes of task state for a task of @num_ops operations. */
size_t dla_task_state_size(uint32_t num_ops);

/*
 * Takes @memory (dla_engine_size() bytes, 8-aligned) as the engine context of
 * the device reached through @driver_context; enables the device interrupts
 * the core handles. Returns DLA_SUCCESS and the context in @engine.
 */
int32_t dla_register_driver(void *memory, void *driver_context, struct dla_engine **engine);

/*
 * Reads and validates the task, then programs the first operation of each
 * engine and enables those whose dependencies are met. Returns at once;
 * progress comes through interrupts. A task of no operations is COMPLETED
 * on return (no interrupt follows: the host checks dla_get_task_result). DLA_ERR_INVALID_TASK leaves the
 * hardware untouched; dla_get_task_result says which op and field are wrong.
 */
int32_t dla_execute_task(struct dla_engine *engine, const struct dla_task_config *config);

/*
 * Validates a task as dla_execute_task would, without running it: the host
 * may check a task when it is submitted, long before it runs. Uses only the
 * state area and the port layer's reads, never the device or the engine's
 * current task, so it may run concurrently with every other entry point.
 */
int32_t dla_check_task(struct dla_engine *engine, const struct dla_task_config *config,
		       struct dla_task_result *result);

/*
 * dla_execute_task for the task dla_check_task accepted into @config->state,
 * without reading or validating its descriptor again: what runs is what was
 * checked, whatever happened to the descriptor since, and the check's cost
 * is paid once. @config names that state and gives the task's context and
 * flags. A state that is not one dla_check_task accepted, or that ran
 * already, is DLA_ERR_BAD_STATE.
 */
int32_t dla_execute_checked_task(struct dla_engine *engine, const struct dla_task_config *config);

/*
 * Interrupt handler: reads INT_STATUS, acknowledges and records the bits the
 * core owns (DONE, ERROR, MMU_FAULT). Returns the whole INT_STATUS it read,
 * so that the host handles its own bits (TEST) without reading it again:
 * every register access costs about a microsecond under emulation.
 */
uint32_t dla_isr_handler(struct dla_engine *engine);

/*
 * Acts on what the interrupt handler recorded: completes operations, releases
 * their consumers, programs and enables what became ready. Sets
 * *task_complete to 1 when the task has ended (completed, failed, or
 * stopped at a boundary as requested); dla_get_task_result says how.
 */
int32_t dla_process_events(struct dla_engine *engine, uint32_t *task_complete);

/* Forgets the ended task (its state area may be freed afterwards). */
void dla_clear_task(struct dla_engine *engine);

/*
 * Aborts the running task: soft-resets the device, which leaves every engine
 * idle (and the MMU disabled: the host re-programs its contexts), re-enables
 * the interrupts and marks the task ABORTED.
 */
int32_t dla_abort_task(struct dla_engine *engine);

/*
 * Asks the running task to stop at the next operation boundary: no further
 * operation is enabled; once the enabled ones completed, the task is STOPPED
 * and dla_process_events reports it ended. The device is then free for
 * another task; dla_resume_task continues where it stopped.
 */
int32_t dla_request_stop(struct dla_engine *engine);
int32_t dla_resume_task(struct dla_engine *engine);

/*
 * Makes a STOPPED task (its state area @state, kept by the host) the
 * engine's task again after other tasks ran, so that dla_resume_task
 * continues it; its remaining operations use MMU context @context. The
 * engine's current task, if any, must have ended.
 */
int32_t dla_switch_task(struct dla_engine *engine, void *state, uint32_t context);

int32_t dla_get_task_result(struct dla_engine *engine, struct dla_task_result *result);
int32_t dla_op_statistics(struct dla_engine *engine, uint32_t op, struct dla_op_stats *stats);

/* Names of enum dla_field and enum dla_reason values, for messages. */
const char *dla_field_name(uint32_t field);
const char *dla_reason_name(uint32_t reason);

enum dla_reason {
	DLA_REASON_NONE = 0,
	DLA_REASON_NOT_ZERO,		/* reserved or flags field not zero */
	DLA_REASON_BAD_VALUE,		/* not one of the values the field takes */
	DLA_REASON_OUT_OF_RANGE,	/* outside the field's range */
	DLA_REASON_OVERFLOW,		/* size arithmetic overflows */
	DLA_REASON_OUTSIDE_BUFFER,	/* reaches beyond its buffer */
	DLA_REASON_BAD_INDEX,		/* op or address index out of range */
	DLA_REASON_BACKWARD_LINK,	/* a dependency link to an earlier op */
	DLA_REASON_COUNT_MISMATCH,	/* dependency_count != incoming links */
	DLA_REASON_SHAPE,		/* dimensions inconsistent */
	DLA_REASON_TYPE,		/* data type combination not supported */
	DLA_REASON_FUSION,		/* fused chain inconsistent */
	DLA_REASON_READ_FAILED,		/* the descriptor could not be read */
	DLA_REASONS
};

enum dla_field {
	DLA_FIELD_NONE = 0,
	DLA_FIELD_MAGIC,
	DLA_FIELD_VERSION,
	DLA_FIELD_NUM_OPS,
	DLA_FIELD_OPS_OFFSET,
	DLA_FIELD_FLAGS,
	DLA_FIELD_RESERVED,
	DLA_FIELD_DESCRIPTOR,
	DLA_FIELD_CONTEXT,
	DLA_FIELD_ENGINE,
	DLA_FIELD_DEPENDENCY_COUNT,
	DLA_FIELD_FUSED_PARENT,
	DLA_FIELD_CONSUMER_INDEX,
	DLA_FIELD_CONSUMER_EVENT,
	DLA_FIELD_SRC,
	DLA_FIELD_DST,
	DLA_FIELD_WGT,
	DLA_FIELD_EW,
	DLA_FIELD_BIAS,
	DLA_FIELD_SCALE,
	DLA_FIELD_LUT,
	DLA_FIELD_ADDRESS_INDEX,
	DLA_FIELD_ADDRESS_OFFSET,
	DLA_FIELD_DTYPE,
	DLA_FIELD_DIMS,
	DLA_FIELD_STRIDES,
	DLA_FIELD_LINE_BYTES,
	DLA_FIELD_LINES,
	DLA_FIELD_SURFACES,
	DLA_FIELD_KERNEL,
	DLA_FIELD_STRIDE,
	DLA_FIELD_PADDING,
	DLA_FIELD_DILATION,
	DLA_FIELD_GROUPS,
	DLA_FIELD_PAD_VALUE,
	DLA_FIELD_FLY,
	DLA_FIELD_MODE,
	DLA_FIELD_ROUND,
	DLA_FIELD_SHIFT,
	DLA_FIELD_CLIP,
	DLA_FIELD_SIZE,
	DLA_FIELD_PERM,
	DLA_FIELD_BLOCK,
	DLA_FIELDS
};

#endif /* DLA_INTERFACE_H */
