/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __VDLA_DEVICE_H__
#define __VDLA_DEVICE_H__

#include <drm/drm_device.h>
#include <linux/completion.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/pci.h>

#include "vdla_lease.h"
#include "vdla_pipeline.h"
#include "vdla_regs.h"
#include "vdla_sched.h"
#include "vdla_sram.h"

struct dla_engine;
struct vdla_as;

/**
 * struct vdla_counters - live kernel objects of one device, for debugfs
 *
 * A leak shows as a count that does not come back after the processes
 * that created the objects have gone.
 */
struct vdla_counters {
	atomic_t bos;
	atomic_t mappings;
	atomic_t jobs;
	atomic_t contexts;
	/*
	 * Jobs whose fence signalled but which the scheduler has not freed
	 * yet: what they hold (SRAM BOs among it) comes back when it does.
	 */
	atomic_t ended_jobs;
	/* Leases not freed yet (vdla_lease.c). */
	atomic_t leases;
	/* Pipelines (gone ones included) and channels not freed yet. */
	atomic_t pipelines;
	atomic_t channels;
};

/**
 * struct vdla_device - one vDLA PCI function and its accel node
 */
struct vdla_device {
	/** @drm: the DRM device; its lifetime is the vdla_device's. */
	struct drm_device drm;
	/** @pdev: the PCI function. */
	struct pci_dev *pdev;
	/** @mmio: BAR0, unmapped by devres after remove. */
	void __iomem *mmio;

	/** @hw_version: VERSION register, read at probe. */
	u32 hw_version;
	/** @hw_caps: CAPS register, read at probe. */
	u32 hw_caps;
	/** @hw_compute: COMPUTE register (hardware 2.1 on, else 0), read at probe. */
	u32 hw_compute;
	/** @irq_vectors: IRQ_VECTORS register, read at probe. */
	u32 irq_vectors;
	/** @irq: Linux irq number of MSI-X vector 0. */
	int irq;

	/**
	 * @irq_pending: INT_STATUS bits the hard handler acknowledged and the
	 * threaded handler has yet to process.
	 */
	atomic_t irq_pending;

	/** @test_irq_lock: serialises DRM_IOCTL_VDLA_TEST_IRQ callers. */
	struct mutex test_irq_lock;
	/** @test_irq_done: completed by the threaded handler on VDLA_INT_TEST. */
	struct completion test_irq_done;
	/** @test_irq_time: when the threaded handler saw VDLA_INT_TEST. */
	ktime_t test_irq_time;

	/** @selftest_lock: serialises DRM_IOCTL_VDLA_TEST_BDMA callers. */
	struct mutex selftest_lock;
	/** @selftest_done: completed when the firmware reports the task ended. */
	struct completion selftest_done;
	/** @selftest_running: the firmware's task is TEST_BDMA's; under fw_lock. */
	bool selftest_running;

	/** @fw_engine: the firmware core's engine context for this device. */
	struct dla_engine *fw_engine;
	/**
	 * @fw_lock: serialises the firmware entry points other than
	 * dla_isr_handler and dla_check_task; protects the dispatcher and
	 * the MMU slot bindings. See docs/kmd.md for the lock order.
	 */
	struct mutex fw_lock;

	/** @sram: the device SRAM and its allocator. */
	struct vdla_sram sram;
	/** @leases: the resource manager's leases (vdla_lease.c). */
	struct vdla_lease_mgr leases;
	/** @pipelines: the pipelines (vdla_pipeline.c). */
	struct vdla_pipelines pipelines;

	/** @sched: the scheduler and dispatcher. */
	struct vdla_sched sched;
	/**
	 * @gone: the device was unplugged: no job starts and no register is
	 * written any more; set and read under fw_lock.
	 */
	bool gone;

	/* MMU slots and the address spaces bound to them, under fw_lock. */
	struct vdla_as *mmu_slots[VDLA_MMU_NUM_CONTEXTS];
	u64 mmu_slot_used[VDLA_MMU_NUM_CONTEXTS];
	u64 mmu_clock;

	struct vdla_counters counters;
};

static inline struct vdla_device *to_vdla_device(struct drm_device *drm)
{
	return container_of(drm, struct vdla_device, drm);
}

static inline u32 vdla_read(struct vdla_device *vdev, u32 reg)
{
	return readl(vdev->mmio + reg);
}

/*
 * Two registers in one access (hardware 3.1): under TCG each access is an
 * exit to QEMU, the costliest part of reading a 64-bit counter. Where the
 * CPU has no 64-bit MMIO, two reads, low half first, as the device expects.
 */
static inline u64 vdla_read64(struct vdla_device *vdev, u32 reg)
{
	return readq(vdev->mmio + reg);
}

static inline void vdla_write(struct vdla_device *vdev, u32 reg, u32 value)
{
	writel(value, vdev->mmio + reg);
}

int vdla_device_init(struct vdla_device *vdev);
void vdla_device_fini(struct vdla_device *vdev);

#endif /* __VDLA_DEVICE_H__ */
