// SPDX-License-Identifier: MIT
/*
 * vDLA device core: lifecycle, the global, MMU and fault-injection register
 * blocks, interrupt delivery and reset. Engine registers and scheduling are
 * in engine.c.
 *
 * Interrupt model (docs/hw-spec.md, "Interrupts"): a bit in INT_STATUS that
 * becomes pending while enabled in INT_ENABLE sends one MSI-X message. So does
 * enabling a bit that is already pending.
 */
#include "vdla_core.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compute_path.h"
#include "conv.h"
#include "core_internal.h"

void core_guest_error(struct vdla_core *core, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	core->host.guest_error(core->host.opaque, fmt, args);
	va_end(args);
}

uint64_t core_time_ns(struct vdla_core *core)
{
	return core->host.clock_ns(core->host.opaque);
}

bool core_raise_locked(struct vdla_core *core, uint32_t bits)
{
	uint32_t newly_pending = bits & ~core->int_status;

	core->int_status |= bits;
	if (newly_pending)
		core_trace(core, VDLA_TRACE_IRQ, 0, 0, 0, newly_pending);
	return (newly_pending & core->int_enable) != 0;
}

void core_trace(struct vdla_core *core, enum vdla_trace_kind kind, uint32_t engine, uint32_t group,
		uint32_t error, uint64_t value)
{
	struct vdla_trace event = { kind, engine, group, error, value };

	if (core->host.trace)
		core->host.trace(core->host.opaque, &event);
}

void vdla_core_default_config(struct vdla_core_config *config)
{
	memset(config, 0, sizeof(*config));
	config->sram_size = VDLA_SRAM_DEFAULT_SIZE;
	config->fi_engine = -1;
	config->op_memory_mb = VDLA_OP_MEMORY_DEFAULT_MB;
}

const char *vdla_core_config_problem(const struct vdla_core_config *config)
{
	uint32_t size = config->sram_size;
	const char *problem;

	if (size < VDLA_SRAM_MIN_SIZE || size > VDLA_SRAM_MAX_SIZE || (size & (size - 1)))
		return "sram-size must be a power of two from 64 KiB to 64 MiB";
	if (config->fi_engine < -1 || config->fi_engine >= VDLA_NUM_ENGINES)
		return "x-fi-engine must be -1 (none) or an engine number 0..5";
	if (config->fi_mode >= VDLA_FI_MODES)
		return "x-fi-mode must be 0..5 (none, hang, drop-irq, dup-irq, op-error, delay)";
	if (config->fi_delay_us > 10000000)
		return "x-fi-delay-us must be at most 10000000";
	if (config->op_memory_mb < VDLA_OP_MEMORY_MIN_MB ||
	    config->op_memory_mb > VDLA_OP_MEMORY_MAX_MB)
		return "x-op-memory-mb must be 16 to 65536";
	if (config->compute_path >= VDLA_COMPUTE_PATHS)
		return "the compute path must be auto, scalar, avx2 or onednn";
	if (config->compute_path &&
	    !vdla_compute_path_available(config->compute_path, &problem))
		return problem;
	return NULL;
}

/* Everything a soft reset clears (docs/hw-spec.md, "Reset"). */
static void soft_reset_locked(struct vdla_core *core)
{
	__atomic_add_fetch(&core->generation, 1, __ATOMIC_RELAXED);
	memset(core->scratch, 0, sizeof(core->scratch));
	core->int_status = 0;
	core->int_enable = 0;
	core->time_hi_latch = 0;
	core->stat_hi_latch = 0;
	core->time_base_ns = core_time_ns(core);
	mmu_reset_locked(core);
	engines_reset_locked(core);
}

struct vdla_core *vdla_core_create(const struct vdla_core_host *host,
				   const struct vdla_core_config *config, const char **error)
{
	struct vdla_core *core;
	const char *problem;

	if (!host || !host->raise_irq || !host->clock_ns || !host->guest_error ||
	    !host->dma_read || !host->dma_map || !host->dma_unmap ||
	    !host->thread_create != !host->thread_join || !config) {
		if (error)
			*error = "the host must provide raise_irq, clock_ns, guest_error, dma_read, dma_map and dma_unmap, and thread_create with thread_join or neither";
		return NULL;
	}
	problem = vdla_core_config_problem(config);
	if (problem) {
		if (error)
			*error = problem;
		return NULL;
	}

	core = calloc(1, sizeof(*core));
	if (!core)
		goto err_memory;
	if (host->sram) {
		core->sram = host->sram;
	} else if (posix_memalign((void **)&core->sram, 4096, config->sram_size)) {
		goto err_free_core;
	}
	memset(core->sram, 0, config->sram_size);
	core->host = *host;
	core->config = *config;
	core->compute_path = config->compute_path ? config->compute_path : vdla_compute_path_best();
	core->compute_reg = VDLA_COMPUTE(core->compute_path, vdla_compute_float_isa());
	core->int_kernels = compute_path_int_kernels(core->compute_path);
	pthread_mutex_init(&core->lock, NULL);
	pthread_mutex_init(&core->commit_lock, NULL);
	pthread_mutex_init(&core->tlb_lock, NULL);
	/* Timed waits (fault-injection delays) use the monotonic clock. */
	{
		pthread_condattr_t attr;

		pthread_condattr_init(&attr);
		pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
		for (unsigned int e = 0; e < VDLA_NUM_ENGINES; e++)
			pthread_cond_init(&core->engine[e].work_cv, &attr);
		pthread_condattr_destroy(&attr);
	}
	vdla_core_reset(core);

	if (engines_start(core)) {
		if (error)
			*error = "cannot start the engine worker threads";
		vdla_core_destroy(core);
		return NULL;
	}
	return core;

err_free_core:
	free(core);
err_memory:
	if (error)
		*error = "out of memory";
	return NULL;
}

void vdla_core_destroy(struct vdla_core *core)
{
	if (!core)
		return;
	engines_stop(core);
	conv_onednn_release(&core->dnnl);
	for (unsigned int e = 0; e < VDLA_NUM_ENGINES; e++)
		pthread_cond_destroy(&core->engine[e].work_cv);
	pthread_mutex_destroy(&core->tlb_lock);
	pthread_mutex_destroy(&core->commit_lock);
	pthread_mutex_destroy(&core->lock);
	if (!core->host.sram)
		free(core->sram);
	free(core);
}

bool vdla_core_interrupt_due(struct vdla_core *core)
{
	bool due;

	pthread_mutex_lock(&core->lock);
	due = core->int_status & core->int_enable;
	pthread_mutex_unlock(&core->lock);
	return due;
}

uint32_t vdla_core_compute(struct vdla_core *core)
{
	return core->compute_reg;
}

uint8_t *vdla_core_sram(struct vdla_core *core)
{
	return core->sram;
}

void vdla_core_reset(struct vdla_core *core)
{
	pthread_mutex_lock(&core->commit_lock);
	pthread_mutex_lock(&core->lock);
	soft_reset_locked(core);
	core->reset_count = 0;
	core_trace(core, VDLA_TRACE_RESET, 0, 0, 0, 0);
	memset(core->sram, 0, core->config.sram_size);
	pthread_mutex_unlock(&core->lock);
	pthread_mutex_unlock(&core->commit_lock);
}

static bool access_is_valid(struct vdla_core *core, const char *what, uint64_t offset,
			    unsigned int size)
{
	if (size != 4 || (offset & 3)) {
		core_guest_error(core, "vdla: %s of %u bytes at 0x%llx: only aligned 32-bit accesses (and aligned 64-bit reads) are valid\n",
				 what, size, (unsigned long long)offset);
		return false;
	}
	if (offset >= VDLA_MMIO_SIZE) {
		core_guest_error(core, "vdla: %s at 0x%llx is outside BAR0\n", what,
				 (unsigned long long)offset);
		return false;
	}
	return true;
}

static bool global_read_locked(struct vdla_core *core, uint32_t offset, uint32_t *value)
{
	uint64_t now;

	switch (offset) {
	case VDLA_REG_ID:
		*value = VDLA_ID_MAGIC;
		return true;
	case VDLA_REG_VERSION:
		*value = VDLA_HW_VERSION;
		return true;
	case VDLA_REG_CAPS:
		*value = VDLA_CAPS_V2;
		return true;
	case VDLA_REG_IRQ_VECTORS:
		*value = VDLA_MSIX_VECTORS;
		return true;
	case VDLA_REG_SCRATCH(0) ... VDLA_REG_SCRATCH(VDLA_NUM_SCRATCH - 1):
		*value = core->scratch[(offset - VDLA_REG_SCRATCH(0)) / 4];
		return true;
	case VDLA_REG_RESET:
	case VDLA_REG_INT_SET:
		*value = 0; /* write-only */
		return true;
	case VDLA_REG_RESET_COUNT:
		*value = core->reset_count;
		return true;
	case VDLA_REG_INT_STATUS:
		*value = core->int_status;
		return true;
	case VDLA_REG_INT_ENABLE:
		*value = core->int_enable;
		return true;
	case VDLA_REG_TIME_LO:
		now = core_time_ns(core) - core->time_base_ns;
		core->time_hi_latch = (uint32_t)(now >> 32);
		*value = (uint32_t)now;
		return true;
	case VDLA_REG_TIME_HI:
		*value = core->time_hi_latch;
		return true;
	case VDLA_REG_SRAM_SIZE:
		*value = core->config.sram_size;
		return true;
	case VDLA_REG_ENGINES:
		*value = (1u << VDLA_NUM_ENGINES) - 1;
		return true;
	case VDLA_REG_IDLE:
		*value = engines_idle_locked(core);
		return true;
	case VDLA_REG_COMPUTE:
		*value = core->compute_reg;
		return true;
	case VDLA_REG_MMU_CTRL:
		*value = core->mmu_ctrl;
		return true;
	case VDLA_REG_MMU_INVALIDATE:
	case VDLA_REG_MMU_FAULT_CLEAR:
		*value = 0;
		return true;
	case VDLA_REG_MMU_CONTEXTS:
		*value = VDLA_MMU_NUM_CONTEXTS;
		return true;
	case VDLA_REG_MMU_FAULT_STATUS:
		*value = core->fault_status;
		return true;
	case VDLA_REG_MMU_FAULT_ADDR_LO:
		*value = (uint32_t)core->fault_addr;
		return true;
	case VDLA_REG_MMU_FAULT_ADDR_HI:
		*value = (uint32_t)(core->fault_addr >> 32);
		return true;
	}
	if (offset >= VDLA_REG_MMU_CTX_BASE_LO(0) &&
	    offset < VDLA_REG_MMU_CTX_BASE_LO(VDLA_MMU_NUM_CONTEXTS)) {
		unsigned int ctx = (offset - VDLA_REG_MMU_CTX_BASE_LO(0)) / 8;

		*value = (offset & 4) ? core->ctx_base_hi[ctx] : core->ctx_base_lo[ctx];
		return true;
	}
	if (offset >= VDLA_REG_FI_MODE(0) && offset < VDLA_REG_FI_MODE(VDLA_NUM_ENGINES)) {
		const struct engine_state *es = &core->engine[(offset - VDLA_REG_FI_MODE(0)) / 0x10];

		switch (offset & 0xf) {
		case 0x0:
			*value = es->fi_mode;
			return true;
		case 0x4:
			*value = es->fi_count;
			return true;
		case 0x8:
			*value = es->fi_delay_us;
			return true;
		}
	}
	return false;
}

static uint32_t read_register_locked(struct vdla_core *core, uint64_t offset, bool *valid)
{
	uint32_t value = 0;

	if (offset >= VDLA_ENGINE_BASE(0) && offset < VDLA_ENGINE_BASE(VDLA_NUM_ENGINES)) {
		unsigned int engine = (offset - VDLA_ENGINE_BASE(0)) / VDLA_ENGINE_BLOCK_SIZE;

		return engine_reg_read_locked(core, engine, offset % VDLA_ENGINE_BLOCK_SIZE, valid);
	}
	*valid = global_read_locked(core, (uint32_t)offset, &value);
	return value;
}

static void report_unimplemented_read(struct vdla_core *core, uint64_t offset, bool valid)
{
	if (!valid)
		core_guest_error(core, "vdla: read of unimplemented register 0x%llx\n",
				 (unsigned long long)offset);
}

uint64_t vdla_core_mmio_read(struct vdla_core *core, uint64_t offset, unsigned int size)
{
	/*
	 * A pair of registers in one access: half the exits of a guest under
	 * TCG for the 64-bit counters, whose _HI half the _LO read latches.
	 */
	uint64_t value;
	bool valid, valid_high = true;

	if (size == 8 && !(offset & 7) && offset < VDLA_MMIO_SIZE) {
		/* Both halves under one hold of the lock: the _HI latches are the device's. */
		pthread_mutex_lock(&core->lock);
		value = read_register_locked(core, offset, &valid);
		value |= (uint64_t)read_register_locked(core, offset + 4, &valid_high) << 32;
		pthread_mutex_unlock(&core->lock);
		report_unimplemented_read(core, offset, valid);
		report_unimplemented_read(core, offset + 4, valid_high);
		return value;
	}
	if (!access_is_valid(core, "read", offset, size))
		return 0;
	pthread_mutex_lock(&core->lock);
	value = read_register_locked(core, offset, &valid);
	pthread_mutex_unlock(&core->lock);
	report_unimplemented_read(core, offset, valid);
	return value;
}

static void soft_reset(struct vdla_core *core)
{
	pthread_mutex_lock(&core->commit_lock);
	pthread_mutex_lock(&core->lock);
	soft_reset_locked(core);
	core->reset_count++;
	core_trace(core, VDLA_TRACE_RESET, 0, 0, 0, core->reset_count);
	pthread_mutex_unlock(&core->lock);
	pthread_mutex_unlock(&core->commit_lock);
}

static bool is_read_only(uint32_t offset)
{
	switch (offset) {
	case VDLA_REG_ID:
	case VDLA_REG_VERSION:
	case VDLA_REG_CAPS:
	case VDLA_REG_IRQ_VECTORS:
	case VDLA_REG_RESET_COUNT:
	case VDLA_REG_TIME_LO:
	case VDLA_REG_TIME_HI:
	case VDLA_REG_SRAM_SIZE:
	case VDLA_REG_ENGINES:
	case VDLA_REG_IDLE:
	case VDLA_REG_COMPUTE:
	case VDLA_REG_MMU_CONTEXTS:
	case VDLA_REG_MMU_FAULT_STATUS:
	case VDLA_REG_MMU_FAULT_ADDR_LO:
	case VDLA_REG_MMU_FAULT_ADDR_HI:
		return true;
	}
	return false;
}

static bool fi_write_locked(struct vdla_core *core, uint32_t offset, uint32_t v)
{
	struct engine_state *es = &core->engine[(offset - VDLA_REG_FI_MODE(0)) / 0x10];

	switch (offset & 0xf) {
	case 0x0:
		if (v >= VDLA_FI_MODES) {
			core_guest_error(core, "vdla: FI_MODE %u is not a mode; dropped\n", v);
			return true;
		}
		es->fi_mode = v;
		return true;
	case 0x4:
		es->fi_count = v;
		return true;
	case 0x8:
		if (v > 10000000) {
			core_guest_error(core, "vdla: FI_DELAY_US %u exceeds 10 s; dropped\n", v);
			return true;
		}
		es->fi_delay_us = v;
		return true;
	}
	return false;
}

/* Returns false for an unimplemented offset; *notify: a message is due. */
static bool global_write_locked(struct vdla_core *core, uint32_t offset, uint32_t v,
				bool *notify)
{
	uint32_t newly_enabled;

	switch (offset) {
	case VDLA_REG_SCRATCH(0) ... VDLA_REG_SCRATCH(VDLA_NUM_SCRATCH - 1):
		core->scratch[(offset - VDLA_REG_SCRATCH(0)) / 4] = v;
		return true;
	case VDLA_REG_INT_STATUS:
		core->int_status &= ~v;
		return true;
	case VDLA_REG_INT_ENABLE:
		if (v & ~VDLA_INT_ALL) {
			core_guest_error(core, "vdla: INT_ENABLE written with unknown bits 0x%x; dropped\n",
					 v & ~VDLA_INT_ALL);
			return true;
		}
		newly_enabled = v & ~core->int_enable;
		core->int_enable = v;
		*notify = (newly_enabled & core->int_status) != 0;
		return true;
	case VDLA_REG_INT_SET:
		if (v & ~VDLA_INT_SOFTWARE_MASK) {
			core_guest_error(core, "vdla: INT_SET written with bits 0x%x that software may not raise; dropped\n",
					 v);
			return true;
		}
		*notify = core_raise_locked(core, v);
		return true;
	case VDLA_REG_MMU_CTRL:
		if (v & ~VDLA_MMU_CTRL_ENABLE) {
			core_guest_error(core, "vdla: MMU_CTRL 0x%x has unknown bits; dropped\n", v);
			return true;
		}
		core->mmu_ctrl = v;
		return true;
	case VDLA_REG_MMU_INVALIDATE:
		if (v & VDLA_MMU_INVALIDATE_ALL) {
			mmu_invalidate(core, -1);
		} else if (v < VDLA_MMU_NUM_CONTEXTS) {
			mmu_invalidate(core, (int)v);
		} else {
			core_guest_error(core, "vdla: MMU_INVALIDATE 0x%x names no context; dropped\n",
					 v);
		}
		return true;
	case VDLA_REG_MMU_FAULT_CLEAR:
		if (v & 1)
			core->fault_status = 0;
		return true;
	}
	if (offset >= VDLA_REG_MMU_CTX_BASE_LO(0) &&
	    offset < VDLA_REG_MMU_CTX_BASE_LO(VDLA_MMU_NUM_CONTEXTS)) {
		unsigned int ctx = (offset - VDLA_REG_MMU_CTX_BASE_LO(0)) / 8;

		if (!(offset & 4) && (v & 0xffe)) {
			core_guest_error(core, "vdla: MMU_CTX_BASE_LO(%u) 0x%x: bits 11:1 must be 0; dropped\n",
					 ctx, v);
		} else if ((offset & 4) && (v & 0xfff00000)) {
			core_guest_error(core, "vdla: MMU_CTX_BASE_HI(%u) 0x%x: bits 31:20 must be 0; dropped\n",
					 ctx, v);
		} else if (offset & 4) {
			core->ctx_base_hi[ctx] = v;
		} else {
			core->ctx_base_lo[ctx] = v;
		}
		return true;
	}
	if (offset >= VDLA_REG_FI_MODE(0) && offset < VDLA_REG_FI_MODE(VDLA_NUM_ENGINES))
		return fi_write_locked(core, offset, v);
	return false;
}

void vdla_core_mmio_write(struct vdla_core *core, uint64_t offset, uint64_t value,
			  unsigned int size)
{
	uint32_t v = (uint32_t)value;
	bool notify = false, valid;

	if (!access_is_valid(core, "write", offset, size))
		return;

	if (offset == VDLA_REG_RESET) {
		if (v == VDLA_RESET_SOFT)
			soft_reset(core);
		else
			core_guest_error(core, "vdla: RESET written with 0x%x, expected 0x%x; dropped\n",
					 v, VDLA_RESET_SOFT);
		return;
	}
	if (is_read_only((uint32_t)offset)) {
		core_guest_error(core, "vdla: write of 0x%x to read-only register 0x%llx; dropped\n",
				 v, (unsigned long long)offset);
		return;
	}

	pthread_mutex_lock(&core->lock);
	if (offset >= VDLA_ENGINE_BASE(0) && offset < VDLA_ENGINE_BASE(VDLA_NUM_ENGINES)) {
		unsigned int engine = (offset - VDLA_ENGINE_BASE(0)) / VDLA_ENGINE_BLOCK_SIZE;

		valid = engine_reg_write_locked(core, engine, offset % VDLA_ENGINE_BLOCK_SIZE, v);
	} else {
		valid = global_write_locked(core, (uint32_t)offset, v, &notify);
	}
	pthread_mutex_unlock(&core->lock);

	if (!valid)
		core_guest_error(core, "vdla: write of 0x%x to unimplemented or read-only register 0x%llx; dropped\n",
				 v, (unsigned long long)offset);
	if (notify)
		core->host.raise_irq(core->host.opaque, VDLA_MSIX_VECTOR_GLOBAL);
}
