// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bring-up and teardown of one vDLA: PCI resources, identification, reset
 * and interrupts.
 */
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <linux/slab.h>

#include "vdla_device.h"
#include "vdla_irq.h"
#include "vdla_mmu.h"
#include "vdla_sched.h"
#include "vdla_selftest.h"
#include "dla_interface.h"

/*
 * The hardware version this driver is written against: major 3, from minor
 * 1 on (the firmware core enables groups with S_ENABLE and reads counters
 * with 64-bit accesses).
 */
#define VDLA_SUPPORTED_HW_MAJOR	3
#define VDLA_MIN_HW_MINOR	1

static int vdla_identify(struct vdla_device *vdev)
{
	u32 id = vdla_read(vdev, VDLA_REG_ID);

	if (id != VDLA_ID_MAGIC) {
		drm_err(&vdev->drm, "ID register reads 0x%08x, expected 0x%08x: not a vDLA\n",
			id, VDLA_ID_MAGIC);
		return -ENODEV;
	}

	vdev->hw_version = vdla_read(vdev, VDLA_REG_VERSION);
	if (VDLA_VERSION_MAJOR(vdev->hw_version) != VDLA_SUPPORTED_HW_MAJOR ||
	    VDLA_VERSION_MINOR(vdev->hw_version) < VDLA_MIN_HW_MINOR) {
		drm_err(&vdev->drm, "hardware version %u.%u.%u is not supported (need %u.%u or a later %u.x)\n",
			VDLA_VERSION_MAJOR(vdev->hw_version),
			VDLA_VERSION_MINOR(vdev->hw_version),
			VDLA_VERSION_PATCH(vdev->hw_version), VDLA_SUPPORTED_HW_MAJOR,
			VDLA_MIN_HW_MINOR, VDLA_SUPPORTED_HW_MAJOR);
		return -ENODEV;
	}
	vdev->hw_caps = vdla_read(vdev, VDLA_REG_CAPS);
	vdev->irq_vectors = vdla_read(vdev, VDLA_REG_IRQ_VECTORS);
	/* COMPUTE came with 2.1, so every major-3 device has it. */
	vdev->hw_compute = vdla_read(vdev, VDLA_REG_COMPUTE);
	return 0;
}

/*
 * At the DRM device's release nothing of it may be left: BOs, mappings,
 * jobs and contexts each hold the device (directly, or through a file or a
 * job) or die with what holds them. A count left is a leak, and the object
 * would touch freed memory when it goes.
 */
static void check_leaks(struct drm_device *drm, void *unused)
{
	struct vdla_counters *c = &to_vdla_device(drm)->counters;

	drm_WARN(drm, atomic_read(&c->bos) || atomic_read(&c->mappings) ||
		 atomic_read(&c->jobs) || atomic_read(&c->contexts),
		 "released with %d BOs, %d mappings, %d jobs, %d contexts left\n",
		 atomic_read(&c->bos), atomic_read(&c->mappings), atomic_read(&c->jobs),
		 atomic_read(&c->contexts));
}

static void vdla_free_fw_memory(struct drm_device *drm, void *memory)
{
	kvfree(memory);
}

int vdla_device_init(struct vdla_device *vdev)
{
	struct pci_dev *pdev = vdev->pdev;
	void *fw_memory;
	int ret;

	ret = drmm_add_action(&vdev->drm, check_leaks, NULL);
	if (ret)
		return ret;

	ret = pcim_enable_device(pdev);
	if (ret) {
		drm_err(&vdev->drm, "cannot enable the PCI device: %d\n", ret);
		return ret;
	}

	vdev->mmio = pcim_iomap_region(pdev, VDLA_BAR_MMIO, "vdla");
	if (IS_ERR(vdev->mmio)) {
		drm_err(&vdev->drm, "cannot map BAR%d: %ld\n", VDLA_BAR_MMIO,
			PTR_ERR(vdev->mmio));
		return PTR_ERR(vdev->mmio);
	}

	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret) {
		drm_err(&vdev->drm, "cannot set a 64-bit DMA mask: %d\n", ret);
		return ret;
	}
	pci_set_master(pdev);

	ret = vdla_identify(vdev);
	if (ret)
		return ret;
	ret = vdla_sram_init(vdev);
	if (ret)
		return ret;
	ret = vdla_lease_init(vdev);
	if (ret)
		return ret;
	ret = vdla_lease_sysfs_init(vdev);
	if (ret)
		return ret;
	ret = vdla_pipelines_init(vdev);
	if (ret)
		return ret;

	/* Start from a known state whatever the previous driver left behind. */
	vdla_write(vdev, VDLA_REG_RESET, VDLA_RESET_SOFT);

	ret = drmm_mutex_init(&vdev->drm, &vdev->test_irq_lock);
	if (ret)
		return ret;
	init_completion(&vdev->test_irq_done);
	ret = vdla_selftest_init(vdev);
	if (ret)
		return ret;
	ret = drmm_mutex_init(&vdev->drm, &vdev->fw_lock);
	if (ret)
		return ret;
	/*
	 * The firmware core's context holds a copy of every register group's
	 * D registers (about 76 KiB with sixteen groups): no need for
	 * physically contiguous pages.
	 */
	fw_memory = kvzalloc(dla_engine_size(), GFP_KERNEL);
	if (!fw_memory)
		return -ENOMEM;
	ret = drmm_add_action_or_reset(&vdev->drm, vdla_free_fw_memory, fw_memory);
	if (ret)
		return ret;
	ret = dla_register_driver(fw_memory, vdev, &vdev->fw_engine);
	if (ret) {
		drm_err(&vdev->drm, "cannot register with the firmware core: %d\n", ret);
		return -ENOMEM;
	}

	vdla_mmu_restore(vdev);
	vdla_sched_init(vdev);

	ret = vdla_irq_init(vdev);
	if (ret)
		return ret;

	drm_info(&vdev->drm, "vDLA %u.%u.%u, caps 0x%08x, compute 0x%04x, %u MSI-X vector(s)\n",
		 VDLA_VERSION_MAJOR(vdev->hw_version), VDLA_VERSION_MINOR(vdev->hw_version),
		 VDLA_VERSION_PATCH(vdev->hw_version), vdev->hw_caps, vdev->hw_compute,
		 vdev->irq_vectors);
	return 0;
}

void vdla_device_fini(struct vdla_device *vdev)
{
	/* Every job that has not ended ends with ENODEV; nothing starts again. */
	vdla_sched_unplug(vdev);
	vdla_irq_fini(vdev);
	/* Leave the device idle for the next driver. */
	vdla_write(vdev, VDLA_REG_RESET, VDLA_RESET_SOFT);
}
