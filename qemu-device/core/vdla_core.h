/* SPDX-License-Identifier: MIT */
/*
 * vDLA device core: registers, engines, MMU and fault injection, independent
 * of QEMU. QEMU's glue (qemu-device/vdla.c) and the host tests link the same
 * code; everything the core needs from its host comes through struct
 * vdla_core_host. docs/hw-spec.md specifies the behaviour.
 */
#ifndef VDLA_CORE_H
#define VDLA_CORE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct vdla_core;

/* What the core tells the host's tracing (QEMU: hw/misc/vdla/trace-events). */
enum vdla_trace_kind {
	VDLA_TRACE_OP_START,	/* engine, group */
	VDLA_TRACE_OP_END,	/* engine, group, error: STAT_ERROR, value: device time, ns */
	VDLA_TRACE_MMU_FAULT,	/* engine, error: fault reason, value: device address */
	VDLA_TRACE_IRQ,		/* value: the INT_STATUS bits that became pending */
	VDLA_TRACE_RESET,	/* value: RESET_COUNT after it; 0 for a power-on reset */
};

struct vdla_trace {
	enum vdla_trace_kind kind;
	uint32_t engine, group, error;
	uint64_t value;
};

/*
 * Services the embedding (QEMU glue or a test) provides to the core. Every
 * callback is required except dma_valid, thread_start and thread_stop.
 * Callbacks may be called from any thread, including the core's engine
 * workers, and must not call back into the core.
 */
struct vdla_core_host {
	void *opaque;
	/* Signal MSI-X vector @vector. Called with no core lock held. */
	void (*raise_irq)(void *opaque, unsigned int vector);
	/* Monotonic device time in nanoseconds. */
	uint64_t (*clock_ns)(void *opaque);
	/* Report a guest programming error (bad offset, bad value, ...). */
	void (*guest_error)(void *opaque, const char *fmt, va_list args)
		__attribute__((format(printf, 2, 0)));
	/*
	 * Reads guest-physical memory. Return 0, or -1 if [addr, addr + len)
	 * is not entirely guest memory (nothing is transferred then).
	 */
	int (*dma_read)(void *opaque, uint64_t addr, void *buf, uint64_t len);
	/*
	 * Optional: whether [addr, addr + len) is guest memory that DMA may
	 * read and write. The core asks before an operation writes anything,
	 * so that a bad address fails the operation instead of half of it.
	 */
	bool (*dma_valid)(void *opaque, uint64_t addr, uint64_t len);
	/*
	 * A host pointer to guest RAM [addr, addr + len), or NULL if that
	 * range is not RAM. With @write, the device writes outputs through it
	 * (NULL: the write fails), so that a run of one byte costs a memcpy;
	 * without, it reads an input in place (NULL: it reads a copy through
	 * dma_read). dma_unmap releases it; the first @written bytes may have
	 * changed. Neither may wait for anything a vCPU may hold while it
	 * accesses the device (QEMU's big lock).
	 */
	void *(*dma_map)(void *opaque, uint64_t addr, uint64_t len, bool write);
	void (*dma_unmap)(void *opaque, void *ptr, uint64_t len, bool write, uint64_t written);
	/*
	 * Optional: called on each engine worker thread when it starts and
	 * before it ends. A host whose DMA needs threads to be known to it
	 * (QEMU's RCU, which frees old memory maps once every registered
	 * thread has left its read-side sections) registers them here.
	 */
	void (*thread_start)(void *opaque);
	void (*thread_stop)(void *opaque);
	/*
	 * Optional, both or neither: start @fn(@arg) on a new thread named
	 * @name the way the host makes its threads (QEMU: qemu_thread_create,
	 * which names it and blocks the signals QEMU's main loop handles),
	 * returning 0 and a handle in *@thread, or -1; thread_join waits for
	 * it to end and frees the handle. Without them the core uses pthreads
	 * with every signal blocked.
	 */
	int (*thread_create)(void *opaque, const char *name, void *(*fn)(void *), void *arg,
			     void **thread);
	void (*thread_join)(void *opaque, void *thread);
	/*
	 * Optional: an event for the host's tracing. Called on any thread,
	 * possibly with core locks held: it must not call into the core.
	 */
	void (*trace)(void *opaque, const struct vdla_trace *event);
	/*
	 * Optional: the memory of the SRAM, sram_size bytes, owned by the
	 * host, which must keep it until vdla_core_destroy() returns. QEMU
	 * gives the RAM of the BAR2 region, so that it lives as long as the
	 * device object and its mappings. NULL: the core allocates it.
	 */
	uint8_t *sram;
};

/* Device properties; see docs/hw-spec.md, "PCI function". */
struct vdla_core_config {
	uint32_t sram_size;	/* power of two, VDLA_SRAM_MIN_SIZE..VDLA_SRAM_MAX_SIZE */
	int32_t fi_engine;	/* -1: no fault injection armed at reset */
	uint32_t fi_mode;
	uint32_t fi_count;
	uint32_t fi_delay_us;
	/*
	 * VDLA_COMPUTE_PATH_* to force one compute path (it must be available,
	 * see vdla_compute_path_available()), or 0 for the best this host runs
	 * exactly. QEMU: property x-compute-path.
	 */
	uint32_t compute_path;
	/*
	 * Host memory one operation (or fused chain) may use for its buffers,
	 * in MiB, VDLA_OP_MEMORY_MIN_MB..VDLA_OP_MEMORY_MAX_MB; beyond it the
	 * operation ends in LIMIT. QEMU: property x-op-memory-mb.
	 */
	uint32_t op_memory_mb;
};

/*
 * Compute paths (docs/hw-spec.md, "Compute paths"): which host code runs
 * the CONV engine. Every path gives the same integer results; a path is
 * available on a host where it can run and is exact.
 */
/* "scalar", "avx2", "onednn" for VDLA_COMPUTE_PATH_*, "auto" for 0. */
const char *vdla_compute_path_name(uint32_t path);
/* The path named @name ("auto" gives 0); -1 if there is none. */
int vdla_compute_path_from_name(const char *name, uint32_t *path);
/*
 * Whether @path runs, exactly, on this host. If not and @why is not NULL,
 * *@why points to a static sentence saying why.
 */
bool vdla_compute_path_available(uint32_t path, const char **why);
/* The path a core configured with 0 uses: the fastest available. */
uint32_t vdla_compute_path_best(void);
/* oneDNN's instruction set in this process, as VDLA_COMPUTE_ISA_* and a name. */
uint32_t vdla_compute_float_isa(void);
const char *vdla_compute_isa_name(uint32_t isa);

/* The defaults of every property. */
void vdla_core_default_config(struct vdla_core_config *config);

/* NULL if @config is valid, else a static sentence saying what is wrong. */
const char *vdla_core_config_problem(const struct vdla_core_config *config);

/*
 * Returns NULL if a required callback is missing or @config is invalid; then
 * @error (if not NULL) points to a static explanation.
 */
struct vdla_core *vdla_core_create(const struct vdla_core_host *host,
				   const struct vdla_core_config *config, const char **error);
/* Stops the engine workers (abandoning any operation) and frees the core. */
void vdla_core_destroy(struct vdla_core *core);

/* Power-on reset: every register to its reset value, SRAM zeroed. */
void vdla_core_reset(struct vdla_core *core);

/*
 * Whether an enabled interrupt is pending. A host that sends MSI-X messages
 * asked for from engine threads calls it just before sending, under the
 * lock its MMIO accesses hold (QEMU's big lock), and drops the message if
 * not: a reset that came first cleared what the message was for.
 */
bool vdla_core_interrupt_due(struct vdla_core *core);

/* The COMPUTE register's value: the core's compute path and oneDNN's ISA. */
uint32_t vdla_core_compute(struct vdla_core *core);

/* The SRAM, sram_size bytes, for the host to expose as BAR2. */
uint8_t *vdla_core_sram(struct vdla_core *core);

/*
 * MMIO access to BAR0. Naturally aligned 32-bit accesses are valid, and
 * 64-bit reads at 8-byte-aligned offsets (two 32-bit reads, low offset
 * first, in one access); anything else is reported through guest_error,
 * reads return 0 and writes are ignored.
 */
uint64_t vdla_core_mmio_read(struct vdla_core *core, uint64_t offset, unsigned int size);
void vdla_core_mmio_write(struct vdla_core *core, uint64_t offset, uint64_t value,
			  unsigned int size);

#ifdef __cplusplus
}
#endif

#endif /* VDLA_CORE_H */
