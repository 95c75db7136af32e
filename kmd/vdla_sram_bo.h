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
};

static inline struct vdla_sram_bo *to_vdla_sram_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct vdla_sram_bo, base);
}

/* Whether @obj is an SRAM BO. */
bool vdla_sram_bo_is(const struct drm_gem_object *obj);
/* A zero-filled SRAM BO of @size bytes (a page multiple); -ENOSPC if no block is free. */
struct drm_gem_object *vdla_sram_bo_create(struct drm_device *drm, size_t size);
/* The device address of the block: engines reach SRAM without the MMU. */
u64 vdla_sram_bo_address(struct drm_gem_object *obj);

#endif /* __VDLA_SRAM_BO_H__ */
