/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device address spaces: one per open file, each a three-level device page
 * table the driver builds, bound to one of the device's MMU slots (the
 * hardware's MMU contexts) while
 * its jobs run.
 */
#ifndef __VDLA_MMU_H__
#define __VDLA_MMU_H__

#include <drm/drm_mm.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/types.h>

struct vdla_device;
struct vdla_pt;

/*
 * Device addresses handed out: the first 2 MiB stay unmapped so that a
 * zero or small address faults; the end is the hardware's 39-bit VA space.
 */
#define VDLA_AS_START		(2ull << 20)
#define VDLA_AS_END		(1ull << 39)

/* MMU slot 0 is the TEST_BDMA self-test's; address spaces use the rest. */
#define VDLA_MMU_SELFTEST_SLOT	0
#define VDLA_MMU_FIRST_SLOT	1

/**
 * struct vdla_as - the device address space of one open file
 */
struct vdla_as {
	/** @ref: the file, its mappings and its jobs each hold one. */
	struct kref ref;
	struct vdla_device *vdev;
	/** @lock: protects @va and the page tables. */
	struct mutex lock;
	/** @va: allocator of device addresses. */
	struct drm_mm va;
	/** @root: the level-0 table. */
	struct vdla_pt *root;
	/** @slot: the MMU slot bound to, or -1; under vdev->fw_lock. */
	int slot;
};

struct vdla_as *vdla_as_create(struct vdla_device *vdev);
void vdla_as_get(struct vdla_as *as);
void vdla_as_put(struct vdla_as *as);

/*
 * Reserves @size bytes of device addresses plus one unmapped guard page and
 * maps the pages of @sgt at its start, read-only unless @writable.
 */
int vdla_as_map(struct vdla_as *as, struct drm_mm_node *node, u64 size,
		struct sg_table *sgt, bool writable);
/* The bus address of the level-0 table, for an MMU slot's base register. */
dma_addr_t vdla_as_table(const struct vdla_as *as);
/* Unmaps @node, invalidates the device TLB, then frees the addresses. */
void vdla_as_unmap(struct vdla_as *as, struct drm_mm_node *node);

/*
 * MMU slots. All called with vdev->fw_lock held and no job running on
 * the device (bind), or at any time (unbind, restore).
 */
int vdla_mmu_bind(struct vdla_device *vdev, struct vdla_as *as);
/* After a device reset: enables the MMU and re-programs every binding. */
void vdla_mmu_restore(struct vdla_device *vdev);
/* Programs the self-test's context; a zero @table disables it. */
void vdla_mmu_set_selftest(struct vdla_device *vdev, dma_addr_t table);

#endif /* __VDLA_MMU_H__ */
