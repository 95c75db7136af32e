/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Mappings: a BO in one file's device address space. They belong to the
 * address space (vdla_mmu.c) as much as to the BO: each holds both.
 */
#ifndef __VDLA_MAPPING_H__
#define __VDLA_MAPPING_H__

#include <drm/drm_mm.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/types.h>

struct drm_file;
struct drm_gem_object;
struct vdla_as;
struct vdla_bo;

/**
 * struct vdla_mapping - a BO mapped into one file's address space
 *
 * Referenced by the file's handle to the BO and by each of the file's jobs
 * that use it; the last reference unmaps it and invalidates the device TLB.
 */
struct vdla_mapping {
	struct kref ref;
	/** @obj: the GEM object; the mapping holds a reference. */
	struct drm_gem_object *obj;
	struct vdla_bo *bo;
	/** @as: the address space; the mapping holds a reference. */
	struct vdla_as *as;
	/** @node: the device addresses (unused for SRAM BOs). */
	struct drm_mm_node node;
	bool writable;
	/** @handle_ref: whether the file's handle still holds a reference. */
	bool handle_ref;
	/** @bo_link: in the BO's list, under its mappings_lock. */
	struct list_head bo_link;
};

/*
 * The mapping of @obj, which the caller found through @handle, in @file's
 * address space, created if the file has none yet (writable unless the BO
 * is a read-only import); a new reference the caller puts.
 */
struct vdla_mapping *vdla_mapping_get(struct drm_file *file, struct drm_gem_object *obj,
				      u32 handle);
/*
 * As vdla_mapping_get(), with the access chosen by the caller: -EBUSY if
 * the file already has a mapping with the other access (BO_IMPORT).
 */
struct vdla_mapping *vdla_mapping_get_access(struct drm_file *file, struct drm_gem_object *obj,
					     u32 handle, bool writable);
/* A new writable mapping of a new BO, before its handle exists (BO_CREATE). */
struct vdla_mapping *vdla_mapping_create(struct drm_gem_object *obj, struct vdla_as *as);
/*
 * Gives new handle @handle the mapping @m made before the handle was
 * published; returns the caller's reference to the mapping the handle has.
 */
struct vdla_mapping *vdla_mapping_adopt(struct drm_file *file, struct drm_gem_object *obj,
					u32 handle, struct vdla_mapping *m);
/* The file's last handle to the BO is gone: drop the handle's reference. */
void vdla_mapping_drop_handle(struct vdla_bo *bo, struct drm_file *file);
/*
 * A new handle of @file to @obj, mapped with the access @writable before
 * the handle exists (PORT_BUFFER TAKE); -EBUSY if the file holds the BO
 * already.
 */
int vdla_mapping_handle_create(struct drm_file *file, struct drm_gem_object *obj, bool writable,
			       u32 *handle);
/* Whether @file's handle to @obj lets the device write it (true if it has no mapping yet). */
bool vdla_mapping_file_may_write(struct drm_file *file, struct drm_gem_object *obj);
void vdla_mapping_put(struct vdla_mapping *m);
/* The device address of the BO's start in the mapping's address space. */
u64 vdla_mapping_address(const struct vdla_mapping *m);

#endif /* __VDLA_MAPPING_H__ */
