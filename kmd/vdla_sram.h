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

#include <drm/vdla_accel.h>

struct vdla_device;

/**
 * struct vdla_sram_part - an SRAM partition: a region leased as a whole
 */
struct vdla_sram_part {
	char name[16];
	/** @start: offset in the SRAM. */
	u64 start;
	u64 size;
	/** @used: bytes allocated in it. */
	u64 used;
};

/**
 * struct vdla_sram - the SRAM of one device
 *
 * The partitions lie one after the other at the top of the SRAM; below
 * them, [0, @shared_end), is the shared pool of SRAM BOs made without a
 * lease.
 */
struct vdla_sram {
	/** @cpu: BAR2, for zeroing new blocks; NULL when there is no SRAM. */
	void __iomem *cpu;
	/** @size: bytes, 0 when the device has no SRAM. */
	u64 size;
	/** @lock: protects @mm, @used, @shared_end and the partitions. */
	struct mutex lock;
	/** @mm: allocated blocks, offsets from the start of the SRAM. */
	struct drm_mm mm;
	/** @used: bytes allocated in the shared pool. */
	u64 used;
	u64 shared_end;
	u32 num_parts;
	struct vdla_sram_part parts[DRM_VDLA_MAX_SRAM_PARTITIONS];
};

/**
 * struct vdla_sram_usage - a snapshot of the allocator
 */
struct vdla_sram_usage {
	u64 size;
	/** @used: bytes allocated, in the shared pool and the partitions. */
	u64 used;
	u64 free;
	u64 largest_free;
};

int vdla_sram_init(struct vdla_device *vdev);

/*
 * Allocates and zeroes @size bytes (a multiple of PAGE_SIZE) into @node, in
 * the shared pool, or with @part >= 0 in that partition. -ENODEV without
 * SRAM, -ENOENT if there is no such partition, -ENOSPC when no free block
 * is large enough.
 */
int vdla_sram_alloc(struct vdla_device *vdev, struct drm_mm_node *node, u64 size, int part);
void vdla_sram_free(struct vdla_device *vdev, struct drm_mm_node *node);
/* The shared pool's usage. */
void vdla_sram_usage(struct vdla_device *vdev, struct vdla_sram_usage *usage);
/* The partitions, as QUERY reports them. */
void vdla_sram_partitions(struct vdla_device *vdev, struct drm_vdla_query_sram_partitions *out);
/*
 * Replaces the partitions by @parts (@n of them, @name and @size set): -EBUSY
 * while an SRAM BO lies in a region that changes hands (a partition, or
 * what would become one), -ENOSPC if they do not fit. The caller makes sure
 * no lease is on a partition.
 */
int vdla_sram_set_partitions(struct vdla_device *vdev, const struct vdla_sram_part *parts, u32 n);

#endif /* __VDLA_SRAM_H__ */
