/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Buffer objects (shmem GEM objects) and their mappings into the device
 * address spaces of the files holding them.
 */
#ifndef __VDLA_GEM_H__
#define __VDLA_GEM_H__

#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_mm.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>

struct drm_device;
struct drm_file;
struct vdla_as;

/**
 * struct vdla_bo - a buffer object
 */
struct vdla_bo {
	struct drm_gem_shmem_object base;
	/** @mappings_lock: protects @mappings. */
	struct mutex mappings_lock;
	/** @mappings: struct vdla_mapping.bo_link, one per address space. */
	struct list_head mappings;
	/**
	 * @kernel_map: the kernel mapping the firmware reads descriptors
	 * through, made on first use and kept until the BO is freed: mapping
	 * and unmapping per job would cost a TLB shootdown each time.
	 */
	struct iosys_map kernel_map;
	/**
	 * @kernel_vaddr: @kernel_map's address once made, published with a
	 * release store: SUBMIT reads it without the lock.
	 */
	void *kernel_vaddr;
	/**
	 * @sram_node: an SRAM BO's block of the device SRAM; such a BO
	 * (vdla_bo_is_sram() in vdla_gem.c) uses only the GEM object of @base, no shmem.
	 */
	struct drm_mm_node sram_node;
};

/**
 * struct vdla_mapping - a BO mapped into one file's address space
 *
 * Referenced by the file's handle to the BO and by each of the file's jobs
 * that use it; the last reference unmaps it and invalidates the device TLB.
 */
struct vdla_mapping {
	struct kref ref;
	struct vdla_bo *bo;
	struct vdla_as *as;
	struct drm_mm_node node;
	bool writable;
	/** @handle_ref: whether the file's handle still holds a reference. */
	bool handle_ref;
	struct list_head bo_link;
};

static inline struct vdla_bo *to_vdla_bo(struct drm_gem_object *obj)
{
	return container_of(to_drm_gem_shmem_obj(obj), struct vdla_bo, base);
}

struct drm_gem_object *vdla_gem_create_object(struct drm_device *drm, size_t size);
/* Whether @obj is an SRAM BO (device SRAM, no pages). */
bool vdla_gem_is_sram(struct drm_gem_object *obj);
/* Whether @obj was imported from a dma-buf without write access. */
bool vdla_gem_read_only(struct drm_gem_object *obj);
/* A new read-only dma-buf of @obj (docs/uapi.md, "Buffers"). */
struct dma_buf *vdla_gem_export_read_only(struct drm_gem_object *obj);

/*
 * The mapping of @obj, which the caller found through @handle, in @file's
 * address space, created (writable) if the file has none yet; a new
 * reference the caller puts.
 */
struct vdla_mapping *vdla_mapping_get(struct drm_file *file, struct drm_gem_object *obj,
				      u32 handle);
void vdla_mapping_put(struct vdla_mapping *m);
u64 vdla_mapping_address(const struct vdla_mapping *m);
/* The BO's kernel mapping in @vaddr, made on first use. */
int vdla_bo_kernel_map(struct vdla_bo *bo, void **vaddr);

int vdla_ioctl_bo_create(struct drm_device *drm, void *data, struct drm_file *file);
int vdla_ioctl_bo_info(struct drm_device *drm, void *data, struct drm_file *file);
int vdla_ioctl_bo_wait(struct drm_device *drm, void *data, struct drm_file *file);
int vdla_ioctl_bo_import(struct drm_device *drm, void *data, struct drm_file *file);

#endif /* __VDLA_GEM_H__ */
