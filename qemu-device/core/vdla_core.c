// SPDX-License-Identifier: MIT
/*
 * vDLA device core: global register block and interrupt logic.
 *
 * Interrupt model (docs/hw-spec.md, "Interrupts"): a bit in INT_STATUS that
 * becomes pending while enabled in INT_ENABLE sends one MSI-X message. So does
 * enabling a bit that is already pending. Messages are edges: the driver
 * acknowledges by writing the bit back to INT_STATUS.
 */
#include "vdla_core.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>

#include "vdla_regs.h"

struct vdla_core {
	struct vdla_core_host host;
	/* Registers may be touched from vCPU threads and device workers. */
	pthread_mutex_t lock;

	uint32_t scratch[VDLA_NUM_SCRATCH];
	uint32_t reset_count;
	uint32_t int_status;
	uint32_t int_enable;
	uint32_t time_hi_latch;
	uint64_t time_base_ns;
};

static void guest_error(struct vdla_core *core, const char *fmt, ...)
{
	va_list args;

	if (!core->host.guest_error)
		return;
	va_start(args, fmt);
	core->host.guest_error(core->host.opaque, fmt, args);
	va_end(args);
}

static uint64_t device_time_ns(struct vdla_core *core)
{
	return core->host.clock_ns(core->host.opaque) - core->time_base_ns;
}

/* Everything a soft reset clears; power-on reset also clears reset_count. */
static void soft_reset_locked(struct vdla_core *core)
{
	for (unsigned int i = 0; i < VDLA_NUM_SCRATCH; i++)
		core->scratch[i] = 0;
	core->int_status = 0;
	core->int_enable = 0;
	core->time_hi_latch = 0;
	core->time_base_ns = core->host.clock_ns(core->host.opaque);
}

struct vdla_core *vdla_core_create(const struct vdla_core_host *host)
{
	struct vdla_core *core;

	if (!host || !host->raise_irq || !host->clock_ns)
		return NULL;
	core = calloc(1, sizeof(*core));
	if (!core)
		return NULL;
	core->host = *host;
	pthread_mutex_init(&core->lock, NULL);
	vdla_core_reset(core);
	return core;
}

void vdla_core_destroy(struct vdla_core *core)
{
	if (!core)
		return;
	pthread_mutex_destroy(&core->lock);
	free(core);
}

void vdla_core_reset(struct vdla_core *core)
{
	pthread_mutex_lock(&core->lock);
	soft_reset_locked(core);
	core->reset_count = 0;
	pthread_mutex_unlock(&core->lock);
}

static bool access_is_valid(struct vdla_core *core, const char *what,
			    uint64_t offset, unsigned int size)
{
	if (size != 4 || (offset & 3)) {
		guest_error(core, "vdla: %s of %u bytes at 0x%llx: only aligned 32-bit accesses are valid\n",
			    what, size, (unsigned long long)offset);
		return false;
	}
	if (offset >= VDLA_MMIO_SIZE) {
		guest_error(core, "vdla: %s at 0x%llx is outside BAR0\n", what,
			    (unsigned long long)offset);
		return false;
	}
	return true;
}

uint32_t vdla_core_mmio_read(struct vdla_core *core, uint64_t offset, unsigned int size)
{
	uint32_t value = 0;
	uint64_t now;

	if (!access_is_valid(core, "read", offset, size))
		return 0;

	pthread_mutex_lock(&core->lock);
	switch (offset) {
	case VDLA_REG_ID:
		value = VDLA_ID_MAGIC;
		break;
	case VDLA_REG_VERSION:
		value = VDLA_HW_VERSION;
		break;
	case VDLA_REG_CAPS:
		value = VDLA_CAP_TEST_IRQ | VDLA_CAP_SOFT_RESET | VDLA_CAP_TIMER;
		break;
	case VDLA_REG_IRQ_VECTORS:
		value = VDLA_MSIX_VECTORS;
		break;
	case VDLA_REG_SCRATCH(0) ... VDLA_REG_SCRATCH(VDLA_NUM_SCRATCH - 1):
		value = core->scratch[(offset - VDLA_REG_SCRATCH(0)) / 4];
		break;
	case VDLA_REG_RESET:
	case VDLA_REG_INT_SET:
		/* Write-only registers read as zero. */
		break;
	case VDLA_REG_RESET_COUNT:
		value = core->reset_count;
		break;
	case VDLA_REG_INT_STATUS:
		value = core->int_status;
		break;
	case VDLA_REG_INT_ENABLE:
		value = core->int_enable;
		break;
	case VDLA_REG_TIME_LO:
		now = device_time_ns(core);
		core->time_hi_latch = (uint32_t)(now >> 32);
		value = (uint32_t)now;
		break;
	case VDLA_REG_TIME_HI:
		value = core->time_hi_latch;
		break;
	default:
		pthread_mutex_unlock(&core->lock);
		guest_error(core, "vdla: read of unimplemented register 0x%llx\n",
			    (unsigned long long)offset);
		return 0;
	}
	pthread_mutex_unlock(&core->lock);
	return value;
}

/*
 * Sets @bits in INT_STATUS and returns whether an MSI-X message is due: some
 * newly pending bit is enabled.
 */
static bool raise_int_locked(struct vdla_core *core, uint32_t bits)
{
	uint32_t newly_pending = bits & ~core->int_status;

	core->int_status |= bits;
	return (newly_pending & core->int_enable) != 0;
}

void vdla_core_mmio_write(struct vdla_core *core, uint64_t offset, uint64_t value,
			  unsigned int size)
{
	uint32_t v = (uint32_t)value;
	bool notify = false;
	uint32_t newly_enabled;

	if (!access_is_valid(core, "write", offset, size))
		return;

	pthread_mutex_lock(&core->lock);
	switch (offset) {
	case VDLA_REG_SCRATCH(0) ... VDLA_REG_SCRATCH(VDLA_NUM_SCRATCH - 1):
		core->scratch[(offset - VDLA_REG_SCRATCH(0)) / 4] = v;
		break;
	case VDLA_REG_RESET:
		if (v != VDLA_RESET_SOFT) {
			pthread_mutex_unlock(&core->lock);
			guest_error(core, "vdla: RESET written with 0x%x, expected 0x%x; ignored\n",
				    v, VDLA_RESET_SOFT);
			return;
		}
		soft_reset_locked(core);
		core->reset_count++;
		break;
	case VDLA_REG_INT_STATUS:
		core->int_status &= ~v;
		break;
	case VDLA_REG_INT_ENABLE:
		if (v & ~VDLA_INT_ALL) {
			pthread_mutex_unlock(&core->lock);
			guest_error(core, "vdla: INT_ENABLE written with unknown bits 0x%x; ignored\n",
				    v & ~VDLA_INT_ALL);
			return;
		}
		newly_enabled = v & ~core->int_enable;
		core->int_enable = v;
		notify = (newly_enabled & core->int_status) != 0;
		break;
	case VDLA_REG_INT_SET:
		if (v & ~VDLA_INT_SOFTWARE_MASK) {
			pthread_mutex_unlock(&core->lock);
			guest_error(core, "vdla: INT_SET written with bits 0x%x that software may not raise; ignored\n",
				    v);
			return;
		}
		notify = raise_int_locked(core, v);
		break;
	case VDLA_REG_ID:
	case VDLA_REG_VERSION:
	case VDLA_REG_CAPS:
	case VDLA_REG_IRQ_VECTORS:
	case VDLA_REG_RESET_COUNT:
	case VDLA_REG_TIME_LO:
	case VDLA_REG_TIME_HI:
		pthread_mutex_unlock(&core->lock);
		guest_error(core, "vdla: write of 0x%x to read-only register 0x%llx; ignored\n",
			    v, (unsigned long long)offset);
		return;
	default:
		pthread_mutex_unlock(&core->lock);
		guest_error(core, "vdla: write of 0x%x to unimplemented register 0x%llx; ignored\n",
			    v, (unsigned long long)offset);
		return;
	}
	pthread_mutex_unlock(&core->lock);

	if (notify)
		core->host.raise_irq(core->host.opaque, VDLA_MSIX_VECTOR_GLOBAL);
}
