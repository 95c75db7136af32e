// SPDX-License-Identifier: GPL-2.0-only
/*
 * The device SRAM allocator. Blocks are page multiples so that an SRAM BO
 * has the same size rules as a memory BO; they are zeroed through BAR2 when
 * allocated, so that no file ever reads what another left behind.
 */
#include <drm/drm_drv.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <linux/io.h>

#include "vdla_device.h"
#include "vdla_sram.h"

/*
 * At the DRM device's release, after the last BO: files may outlive the
 * PCI device, and their SRAM BOs with it.
 */
static void sram_release(struct drm_device *drm, void *data)
{
	struct vdla_sram *sram = data;

	drm_mm_takedown(&sram->mm);
}

int vdla_sram_init(struct vdla_device *vdev)
{
	struct vdla_sram *sram = &vdev->sram;
	struct pci_dev *pdev = vdev->pdev;
	u64 size;
	int ret;

	ret = drmm_mutex_init(&vdev->drm, &sram->lock);
	if (ret)
		return ret;
	if (!(vdev->hw_caps & VDLA_CAP_SRAM))
		return 0;

	size = vdla_read(vdev, VDLA_REG_SRAM_SIZE);
	if (!size || size > pci_resource_len(pdev, VDLA_BAR_SRAM)) {
		drm_warn(&vdev->drm, "SRAM of %llu bytes does not fit BAR%d (%llu bytes); not used\n",
			 size, VDLA_BAR_SRAM, (u64)pci_resource_len(pdev, VDLA_BAR_SRAM));
		return 0;
	}
	sram->cpu = pcim_iomap_region(pdev, VDLA_BAR_SRAM, "vdla-sram");
	if (IS_ERR(sram->cpu)) {
		ret = PTR_ERR(sram->cpu);
		sram->cpu = NULL;
		drm_err(&vdev->drm, "cannot map BAR%d: %d\n", VDLA_BAR_SRAM, ret);
		return ret;
	}
	drm_mm_init(&sram->mm, 0, size);
	ret = drmm_add_action_or_reset(&vdev->drm, sram_release, sram);
	if (ret)
		return ret;
	sram->size = size;
	return 0;
}

int vdla_sram_alloc(struct vdla_device *vdev, struct drm_mm_node *node, u64 size)
{
	struct vdla_sram *sram = &vdev->sram;
	int idx, ret;

	if (!sram->size)
		return -ENODEV;
	/* BAR2 goes with the PCI device; the allocator stays with the DRM one. */
	if (!drm_dev_enter(&vdev->drm, &idx))
		return -ENODEV;
	mutex_lock(&sram->lock);
	ret = drm_mm_insert_node_generic(&sram->mm, node, size, PAGE_SIZE, 0,
					 DRM_MM_INSERT_BEST);
	if (!ret)
		sram->used += size;
	mutex_unlock(&sram->lock);
	if (!ret)
		memset_io(sram->cpu + node->start, 0, size);
	drm_dev_exit(idx);
	return ret ? -ENOSPC : 0;
}

void vdla_sram_free(struct vdla_device *vdev, struct drm_mm_node *node)
{
	struct vdla_sram *sram = &vdev->sram;

	mutex_lock(&sram->lock);
	sram->used -= node->size;
	drm_mm_remove_node(node);
	mutex_unlock(&sram->lock);
}

void vdla_sram_usage(struct vdla_device *vdev, struct vdla_sram_usage *usage)
{
	struct vdla_sram *sram = &vdev->sram;
	struct drm_mm_node *hole;
	u64 start, end;

	memset(usage, 0, sizeof(*usage));
	if (!sram->size)
		return;
	mutex_lock(&sram->lock);
	usage->size = sram->size;
	usage->free = sram->size - sram->used;
	drm_mm_for_each_hole(hole, &sram->mm, start, end)
		usage->largest_free = max(usage->largest_free, end - start);
	mutex_unlock(&sram->lock);
}
