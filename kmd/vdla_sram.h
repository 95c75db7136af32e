/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The device SRAM (BAR2): an allocator of page-sized blocks that back SRAM
 * BOs. Engines reach the SRAM at VDLA_SRAM_BASE + offset without the MMU,
 * so isolation comes from the BOs: a job can only name SRAM through a BO
 * handle of its file.
 */
#ifndef __VDLA_SRAM_H__
#define __VDLA_SRAM_H__

#include <drm/drm_mm.h>
#include <linux/mutex.h>
#include <linux/types.h>

struct vdla_device;

/**
 * struct vdla_sram - the SRAM of one device
 */
struct vdla_sram {
	/** @cpu: BAR2, for zeroing new blocks; NULL when there is no SRAM. */
	void __iomem *cpu;
	/** @size: bytes, 0 when the device has no SRAM. */
	u64 size;
	/** @lock: protects @mm and @used. */
	struct mutex lock;
	/** @mm: allocated blocks, offsets from the start of the SRAM. */
	struct drm_mm mm;
	/** @used: bytes allocated. */
	u64 used;
};

/**
 * struct vdla_sram_usage - a snapshot of the allocator
 */
struct vdla_sram_usage {
	u64 size;
	u64 free;
	u64 largest_free;
};

int vdla_sram_init(struct vdla_device *vdev);

/*
 * Allocates and zeroes @size bytes (a multiple of PAGE_SIZE) into @node.
 * -ENODEV without SRAM, -ENOSPC when no free block is large enough.
 */
int vdla_sram_alloc(struct vdla_device *vdev, struct drm_mm_node *node, u64 size);
void vdla_sram_free(struct vdla_device *vdev, struct drm_mm_node *node);
void vdla_sram_usage(struct vdla_device *vdev, struct vdla_sram_usage *usage);

#endif /* __VDLA_SRAM_H__ */
