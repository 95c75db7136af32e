/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Buffer objects. Two GEM object types: shmem BOs (vdla_gem.c), pages of
 * system memory, and SRAM BOs (vdla_sram_bo.c), a block of the device SRAM.
 * Both carry a struct vdla_bo: the list of their mappings, one per address
 * space that uses them (vdla_mapping.c).
 */
#ifndef __VDLA_GEM_H__
#define __VDLA_GEM_H__

#include <drm/drm_gem_shmem_helper.h>
#include <linux/list.h>
#include <linux/mutex.h>

struct dma_buf;
struct drm_device;
struct drm_file;

/**
 * struct vdla_bo - what every BO of the driver has, whatever its type
 */
struct vdla_bo {
	/** @obj: the GEM object this is part of. */
	struct drm_gem_object *obj;
	/** @mappings_lock: protects @mappings (and a shmem BO's kernel mapping). */
	struct mutex mappings_lock;
	/** @mappings: struct vdla_mapping.bo_link, one per address space. */
	struct list_head mappings;
};

/* The vdla_bo of any GEM object of this driver. */
struct vdla_bo *vdla_bo_of(struct drm_gem_object *obj);
/* For the BO types: set up and tear down the common part (counted in debugfs). */
void vdla_bo_init(struct vdla_bo *bo, struct drm_gem_object *obj);
void vdla_bo_fini(struct vdla_bo *bo);
/* The GEM .close of every type: the file's last handle drops its mapping. */
void vdla_bo_close(struct drm_gem_object *obj, struct drm_file *file);

/* Shmem BOs. drm_driver.gem_create_object: the shmem helper's objects are ours. */
struct drm_gem_object *vdla_gem_create_object(struct drm_device *drm, size_t size);
/* Whether @obj was imported from a dma-buf without write access. */
bool vdla_gem_read_only(struct drm_gem_object *obj);
/* A new read-only dma-buf of @obj (docs/uapi.md, "Buffers"). */
struct dma_buf *vdla_gem_export_read_only(struct drm_gem_object *obj);
/* The pages of a shmem BO, pinned until it is freed, for the device MMU. */
struct sg_table *vdla_gem_pages(struct drm_gem_object *obj);
/* A shmem BO's kernel mapping in @vaddr, made on first use. */
int vdla_gem_kernel_map(struct drm_gem_object *obj, void **vaddr);

#endif /* __VDLA_GEM_H__ */
