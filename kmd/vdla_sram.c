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
#include <linux/overflow.h>

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
	sram->shared_end = size;
	ret = drmm_add_action_or_reset(&vdev->drm, sram_release, sram);
	if (ret)
		return ret;
	sram->size = size;
	return 0;
}

/* The partition @offset lies in, or NULL for the shared pool. Under sram->lock. */
static struct vdla_sram_part *part_at(struct vdla_sram *sram, u64 offset)
{
	for (u32 i = 0; i < sram->num_parts; i++) {
		if (offset >= sram->parts[i].start &&
		    offset < sram->parts[i].start + sram->parts[i].size)
			return &sram->parts[i];
	}
	return NULL;
}

int vdla_sram_alloc(struct vdla_device *vdev, struct drm_mm_node *node, u64 size, int part)
{
	struct vdla_sram *sram = &vdev->sram;
	struct vdla_sram_part *p = NULL;
	u64 start = 0, end;
	int idx, ret;

	if (!sram->size)
		return -ENODEV;
	/* BAR2 goes with the PCI device; the allocator stays with the DRM one. */
	if (!drm_dev_enter(&vdev->drm, &idx))
		return -ENODEV;
	mutex_lock(&sram->lock);
	end = sram->shared_end;
	if (part >= 0) {
		if (part >= sram->num_parts) {
			ret = -ENOENT;
			goto out;
		}
		p = &sram->parts[part];
		start = p->start;
		end = p->start + p->size;
	}
	ret = drm_mm_insert_node_in_range(&sram->mm, node, size, PAGE_SIZE, 0, start, end,
					  DRM_MM_INSERT_BEST);
	if (ret) {
		ret = -ENOSPC;
		goto out;
	}
	if (p)
		p->used += size;
	else
		sram->used += size;
out:
	mutex_unlock(&sram->lock);
	if (!ret)
		memset_io(sram->cpu + node->start, 0, size);
	drm_dev_exit(idx);
	return ret;
}

void vdla_sram_free(struct vdla_device *vdev, struct drm_mm_node *node)
{
	struct vdla_sram *sram = &vdev->sram;
	struct vdla_sram_part *p;

	mutex_lock(&sram->lock);
	p = part_at(sram, node->start);
	if (p)
		p->used -= node->size;
	else
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
	usage->free = sram->shared_end - sram->used;
	usage->used = sram->used;
	for (u32 i = 0; i < sram->num_parts; i++)
		usage->used += sram->parts[i].used;
	drm_mm_for_each_hole(hole, &sram->mm, start, end) {
		end = min(end, sram->shared_end);
		if (start < end)
			usage->largest_free = max(usage->largest_free, end - start);
	}
	mutex_unlock(&sram->lock);
}

void vdla_sram_partitions(struct vdla_device *vdev, struct drm_vdla_query_sram_partitions *out)
{
	struct vdla_sram *sram = &vdev->sram;

	memset(out, 0, sizeof(*out));
	mutex_lock(&sram->lock);
	out->count = sram->num_parts;
	out->shared_size = sram->shared_end;
	for (u32 i = 0; i < sram->num_parts; i++) {
		strscpy(out->partitions[i].name, sram->parts[i].name);
		out->partitions[i].offset = sram->parts[i].start;
		out->partitions[i].size = sram->parts[i].size;
	}
	mutex_unlock(&sram->lock);
}

int vdla_sram_set_partitions(struct vdla_device *vdev, const struct vdla_sram_part *parts, u32 n)
{
	struct vdla_sram *sram = &vdev->sram;
	struct drm_mm_node *node;
	u64 total = 0, start;
	int ret = 0;

	if (!sram->size)
		return -ENODEV;
	for (u32 i = 0; i < n; i++) {
		if (check_add_overflow(total, parts[i].size, &total))
			return -ENOSPC;
	}
	if (total > sram->size)
		return -ENOSPC;
	mutex_lock(&sram->lock);
	/* What was or becomes partitioned must hold no BO: it changes hands. */
	start = min(sram->shared_end, sram->size - total);
	drm_mm_for_each_node_in_range(node, &sram->mm, start, sram->size) {
		ret = -EBUSY;
		goto out;
	}
	sram->shared_end = sram->size - total;
	sram->num_parts = n;
	start = sram->shared_end;
	for (u32 i = 0; i < n; i++) {
		sram->parts[i] = parts[i];
		sram->parts[i].start = start;
		sram->parts[i].used = 0;
		start += parts[i].size;
	}
out:
	mutex_unlock(&sram->lock);
	return ret;
}
