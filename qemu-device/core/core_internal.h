/* SPDX-License-Identifier: MIT */
/*
 * Internals of the device core shared by its files. Nothing here is visible
 * to the QEMU glue or the tests, which use vdla_core.h and vdla_regs.h.
 */
#ifndef VDLA_CORE_INTERNAL_H
#define VDLA_CORE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scratch.h"
#include "vdla_core.h"
#include "vdla_regs.h"

#define D_WORDS			(VDLA_D_WINDOW_SIZE / 4)
/*
 * An operation a reset or the device's end voided stops with this code; it
 * never reaches STAT_ERROR, since such an operation commits nothing.
 */
#define VDLA_ERROR_CANCELLED	0x100
#define TLB_ENTRIES		256

/* Statistics of one group's last operation (the STAT block). */
struct group_stat {
	uint32_t error;
	uint64_t macs;
	uint64_t bytes_read;
	uint64_t bytes_written;
	uint64_t time_ns;
};

struct engine_group {
	uint32_t state;			/* enum vdla_group_state */
	uint32_t regs[D_WORDS];		/* D window, word (offset - 0x100) / 4 */
	struct group_stat stat;
};

struct engine_state {
	struct engine_group group[VDLA_NUM_GROUPS];
	uint32_t producer;
	uint32_t consumer;
	uint32_t fi_mode;
	uint32_t fi_count;
	uint32_t fi_delay_us;
	/*
	 * The worker thread, what it needs to find its engine, and what it
	 * sleeps on. One condition per engine: waking only the workers whose
	 * readiness can have changed keeps a 2-core host from switching to
	 * all six for every operation.
	 */
	pthread_cond_t work_cv;
	struct vdla_core *core;
	unsigned int engine;
	pthread_t worker;	/* without the host's thread_create */
	void *host_thread;	/* with it */
	bool running;
	/* Buffers recycled by this worker's operations (see scratch.h). */
	struct scratch_pool pool;
};

struct tlb_entry {
	uint64_t tag;			/* (context << 40 | vpn) + 1; 0 = empty */
	uint64_t page;			/* physical page address */
	uint32_t flags;			/* VDLA_PTE_READ | VDLA_PTE_WRITE */
};

struct vdla_core {
	struct vdla_core_host host;
	struct vdla_core_config config;

	/*
	 * lock protects every register and engine state. commit_lock is held
	 * by a worker while it writes an operation's results to memory, and
	 * by reset, so that nothing is written after a reset completes.
	 * Order: commit_lock before lock.
	 */
	pthread_mutex_t lock;
	pthread_mutex_t commit_lock;
	bool stopping;
	/*
	 * Incremented by every reset (under lock, read without it by running
	 * operations to stop early); an operation from an older one is void.
	 */
	uint64_t generation;

	uint32_t scratch[VDLA_NUM_SCRATCH];
	uint32_t reset_count;
	uint32_t int_status;
	uint32_t int_enable;
	uint32_t time_hi_latch;
	uint32_t stat_hi_latch;
	uint64_t time_base_ns;

	uint32_t mmu_ctrl;
	uint32_t ctx_base_lo[VDLA_MMU_NUM_CONTEXTS];
	uint32_t ctx_base_hi[VDLA_MMU_NUM_CONTEXTS];
	uint32_t fault_status;
	uint64_t fault_addr;
	pthread_mutex_t tlb_lock;
	struct tlb_entry tlb[TLB_ENTRIES];
	/*
	 * Incremented by every invalidation, under tlb_lock: a table walk that
	 * an invalidation overtook does not fill the TLB with what it read.
	 */
	uint64_t tlb_generation;

	uint8_t *sram;
	struct engine_state engine[VDLA_NUM_ENGINES];
	/* oneDNN engine and stream, created by the CONV worker on first use. */
	void *dnnl;
	/*
	 * The compute path (VDLA_COMPUTE_PATH_*), fixed at creation, and the
	 * COMPUTE register that reports it.
	 */
	uint32_t compute_path;
	uint32_t compute_reg;
	const struct conv_int_kernels *int_kernels;
};

/* Reports @kind to the host's tracing, if it has any. */
void core_trace(struct vdla_core *core, enum vdla_trace_kind kind, uint32_t engine, uint32_t group,
		uint32_t error, uint64_t value);
void core_guest_error(struct vdla_core *core, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
uint64_t core_time_ns(struct vdla_core *core);

/* Reads a D register of a snapshot. */
static inline uint32_t dreg(const uint32_t *regs, uint32_t offset)
{
	return regs[(offset - VDLA_D_WINDOW) / 4];
}

static inline uint64_t dreg64(const uint32_t *regs, uint32_t offset_lo)
{
	return dreg(regs, offset_lo) | ((uint64_t)dreg(regs, offset_lo + 4) << 32);
}

/* engine.c: the scheduler of register groups, workers, fusion, injection. */
int engines_start(struct vdla_core *core);
void engines_stop(struct vdla_core *core);
/* Resets every engine; called with lock held. */
void engines_reset_locked(struct vdla_core *core);
uint32_t engine_reg_read_locked(struct vdla_core *core, unsigned int engine, uint32_t offset,
				bool *valid);
/* Returns false if @offset is not an engine register. */
bool engine_reg_write_locked(struct vdla_core *core, unsigned int engine, uint32_t offset,
			     uint32_t value);
uint32_t engines_idle_locked(struct vdla_core *core);
/* Sets INT_STATUS bits; returns whether a message is due. */
bool core_raise_locked(struct vdla_core *core, uint32_t bits);

/* mmu.c */
void mmu_reset_locked(struct vdla_core *core);
void mmu_invalidate(struct vdla_core *core, int context);

#endif /* VDLA_CORE_INTERNAL_H */
