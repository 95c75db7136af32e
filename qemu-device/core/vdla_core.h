/* SPDX-License-Identifier: MIT */
/*
 * vDLA device core: the register model and (later) the compute engines,
 * independent of QEMU. QEMU's glue (qemu-device/vdla.c) and the host tests
 * link the same code; everything the core needs from its host comes through
 * struct vdla_core_host.
 */
#ifndef VDLA_CORE_H
#define VDLA_CORE_H

#include <stdarg.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct vdla_core;

/* Services the embedding (QEMU glue or a test) provides to the core. */
struct vdla_core_host {
	void *opaque;
	/* Signal MSI-X vector @vector. Called with the core's lock released. */
	void (*raise_irq)(void *opaque, unsigned int vector);
	/* Monotonic device time in nanoseconds. */
	uint64_t (*clock_ns)(void *opaque);
	/* Report a guest programming error (bad offset, bad value, ...). */
	void (*guest_error)(void *opaque, const char *fmt, va_list args);
};

struct vdla_core *vdla_core_create(const struct vdla_core_host *host);
void vdla_core_destroy(struct vdla_core *core);

/* Power-on reset: every register back to its documented reset value. */
void vdla_core_reset(struct vdla_core *core);

/*
 * MMIO access to BAR0. Only naturally aligned 32-bit accesses are valid;
 * anything else is reported through guest_error, reads return 0 and writes
 * are ignored.
 */
uint32_t vdla_core_mmio_read(struct vdla_core *core, uint64_t offset, unsigned int size);
void vdla_core_mmio_write(struct vdla_core *core, uint64_t offset, uint64_t value,
			  unsigned int size);

#ifdef __cplusplus
}
#endif

#endif /* VDLA_CORE_H */
