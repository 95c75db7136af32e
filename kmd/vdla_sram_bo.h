/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SRAM BOs: a GEM object type of its own, a block of the device SRAM with
 * no pages, no CPU mapping and no export.
 */
#ifndef __VDLA_SRAM_BO_H__
#define __VDLA_SRAM_BO_H__

#include <drm/drm_gem.h>
#include <drm/drm_mm.h>

#include "vdla_gem.h"

/**
 * struct vdla_sram_bo - an SRAM BO
 */
struct vdla_sram_bo {
	/** @base: a plain GEM object, with no shmem file. */
	struct drm_gem_object base;
	/** @bo: what every BO type has. */
	struct vdla_bo bo;
	/** @node: the block of the device SRAM (vdla_sram.c). */
	struct drm_mm_node node;
	/**
	 * @lease: for a BO of an SRAM partition, the lease it was made under
	 * while that lease has the partition; NULL once the lease ended (the
	 * BO is @lost) and for a BO of the shared pool. Under the lease
	 * manager's lock; SUBMIT reads it once (vdla_lease_check_bos()).
	 */
	struct vdla_lease *lease;
	/** @lease_link: in the lease's list of BOs. */
	struct list_head lease_link;
	/** @partitioned: made in a partition, under a lease. */
	bool partitioned;
	/** @lost: its partition's lease ended, its SRAM went with it. */
	bool lost;
};

static inline struct vdla_sram_bo *to_vdla_sram_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct vdla_sram_bo, base);
}

/* Whether @obj is an SRAM BO. */
bool vdla_sram_bo_is(const struct drm_gem_object *obj);
struct vdla_lease;

/*
 * A zero-filled SRAM BO of @size bytes (a page multiple), from the shared
 * pool, or with @part >= 0 from that partition; -ENOSPC if no block is free.
 */
struct drm_gem_object *vdla_sram_bo_create(struct drm_device *drm, size_t size, int part);
/* Whether @obj is an SRAM BO made in a partition (it may be lost since). */
bool vdla_sram_bo_partitioned(const struct drm_gem_object *obj);
/* The device address of the block: engines reach SRAM without the MMU. */
u64 vdla_sram_bo_address(struct drm_gem_object *obj);

#endif /* __VDLA_SRAM_BO_H__ */
