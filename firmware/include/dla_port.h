/* SPDX-License-Identifier: MIT */
/*
 * The port layer: what the firmware core needs from its host, which
 * implements every function here (the kernel driver in kmd/vdla_fw_port.c,
 * the host tests in tests/host/firmware/). Names follow the NVDLA firmware.
 */
#ifndef DLA_PORT_H
#define DLA_PORT_H

#include "dla_types.h"

/* Device registers (BAR0 offsets, docs/hw-spec.md). */
uint32_t dla_reg_read(void *driver_context, uint32_t addr);
/* The registers at @addr (8-byte aligned) and @addr + 4 in one access, @addr's in bits 31:0. */
uint64_t dla_reg_read64(void *driver_context, uint32_t addr);
void dla_reg_write(void *driver_context, uint32_t addr, uint32_t value);

/*
 * Copies @size bytes at @offset of address-list entry @index of the task to
 * or from @buf (through the host's own mapping). Return 0, or non-zero if
 * the index or range is invalid.
 */
int32_t dla_data_read(void *driver_context, void *task_data, uint16_t index, uint64_t offset,
		      void *buf, uint32_t size);
int32_t dla_data_write(void *driver_context, void *task_data, uint16_t index, uint64_t offset,
		       const void *buf, uint32_t size);

#define DESTINATION_PROCESSOR	0	/* a CPU pointer (void *) */
#define DESTINATION_DMA		1	/* a device address (uint64_t) */

/*
 * Writes the address of address-list entry @index to @dst: a device address
 * (uint64_t, in the task's device address space) for DESTINATION_DMA, a CPU
 * pointer (void *) for DESTINATION_PROCESSOR. Returns 0 or non-zero.
 */
int32_t dla_get_dma_address(void *driver_context, void *task_data, uint16_t index, void *dst,
			    uint32_t destination);
int32_t dla_read_dma_address(void *driver_context, void *task_data, uint16_t index,
			     uint64_t *address);
int32_t dla_read_cpu_address(void *driver_context, void *task_data, uint16_t index,
			     void **address);
/* Size in bytes of address-list entry @index. Returns 0 or non-zero. */
int32_t dla_get_buffer_size(void *driver_context, void *task_data, uint16_t index,
			    uint64_t *size);

/* Monotonic time in microseconds. */
uint64_t dla_get_time_us(void *driver_context);

void *dla_memset(void *s, int32_t c, size_t n);
void *dla_memcpy(void *dest, const void *src, size_t n);

/* Messages; printf-style formats limited to %d %u %x %llx %s. */
void dla_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void dla_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void dla_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void dla_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* DLA_PORT_H */
