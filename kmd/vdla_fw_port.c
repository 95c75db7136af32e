// SPDX-License-Identifier: GPL-2.0-only
/*
 * Port layer of the firmware core for the kernel: register access through
 * the device's MMIO mapping, task buffers through their kernel mappings,
 * kernel time and logging. driver_context is the struct vdla_device.
 */
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/printk.h>
#include <linux/string.h>

#include "dla_port.h"
#include "vdla_device.h"
#include "vdla_fw_port.h"

uint32_t dla_reg_read(void *driver_context, uint32_t addr)
{
	return vdla_read(driver_context, addr);
}

uint64_t dla_reg_read64(void *driver_context, uint32_t addr)
{
	return vdla_read64(driver_context, addr);
}

void dla_reg_write(void *driver_context, uint32_t addr, uint32_t value)
{
	vdla_write(driver_context, addr, value);
}

static const struct vdla_fw_buffer *fw_buffer(void *task_data, uint16_t index)
{
	const struct vdla_fw_task *task = task_data;

	return task && index < task->count ? &task->buffers[index] : NULL;
}

/* The buffer's CPU range [offset, offset + size), or NULL. */
static void *fw_range(void *task_data, uint16_t index, uint64_t offset, uint32_t size)
{
	const struct vdla_fw_buffer *b = fw_buffer(task_data, index);

	if (!b || !b->cpu || offset > b->size || size > b->size - offset)
		return NULL;
	return (u8 *)b->cpu + offset;
}

int32_t dla_data_read(void *driver_context, void *task_data, uint16_t index, uint64_t offset,
		      void *buf, uint32_t size)
{
	void *src = fw_range(task_data, index, offset, size);

	if (!src)
		return -1;
	memcpy(buf, src, size);
	return 0;
}

int32_t dla_data_write(void *driver_context, void *task_data, uint16_t index, uint64_t offset,
		       const void *buf, uint32_t size)
{
	void *dst = fw_range(task_data, index, offset, size);

	if (!dst)
		return -1;
	memcpy(dst, buf, size);
	return 0;
}

int32_t dla_get_dma_address(void *driver_context, void *task_data, uint16_t index, void *dst,
			    uint32_t destination)
{
	const struct vdla_fw_buffer *b = fw_buffer(task_data, index);

	if (!b)
		return -1;
	if (destination == DESTINATION_DMA) {
		*(uint64_t *)dst = b->device_address;
		return 0;
	}
	if (destination == DESTINATION_PROCESSOR && b->cpu) {
		*(void **)dst = b->cpu;
		return 0;
	}
	return -1;
}

int32_t dla_read_dma_address(void *driver_context, void *task_data, uint16_t index,
			     uint64_t *address)
{
	return dla_get_dma_address(driver_context, task_data, index, address, DESTINATION_DMA);
}

int32_t dla_read_cpu_address(void *driver_context, void *task_data, uint16_t index,
			     void **address)
{
	return dla_get_dma_address(driver_context, task_data, index, address,
				   DESTINATION_PROCESSOR);
}

int32_t dla_get_buffer_size(void *driver_context, void *task_data, uint16_t index,
			    uint64_t *size)
{
	const struct vdla_fw_buffer *b = fw_buffer(task_data, index);

	if (!b)
		return -1;
	*size = b->size;
	return 0;
}

uint64_t dla_get_time_us(void *driver_context)
{
	return div_u64(ktime_get_ns(), NSEC_PER_USEC);
}

void *dla_memset(void *s, int32_t c, size_t n)
{
	return memset(s, c, n);
}

void *dla_memcpy(void *dest, const void *src, size_t n)
{
	return memcpy(dest, src, n);
}

#define DLA_LOG(name, print)					\
void name(const char *fmt, ...)					\
{								\
	struct va_format vaf;					\
	va_list args;						\
								\
	va_start(args, fmt);					\
	vaf.fmt = fmt;						\
	vaf.va = &args;						\
	print("%pV", &vaf);					\
	va_end(args);						\
}

DLA_LOG(dla_debug, pr_debug)
DLA_LOG(dla_info, pr_info)
DLA_LOG(dla_warn, pr_warn_ratelimited)
DLA_LOG(dla_error, pr_err_ratelimited)
