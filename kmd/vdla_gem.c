// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shmem buffer objects, and what every BO type shares (struct vdla_bo).
 *
 * Pages are pinned from the first mapping until the BO is freed: jobs run
 * without faulting them in, and the shmem helper frees them with the BO.
 * Each file that holds a handle has its own mapping of the BO in its
 * device address space (vdla_mapping.c).
 */
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>
#include <linux/dma-buf.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "vdla_device.h"
#include "vdla_gem.h"
#include "vdla_mapping.h"
#include "vdla_sram_bo.h"

/**
 * struct vdla_shmem_bo - a BO of system memory
 */
struct vdla_shmem_bo {
	/** @base: the shmem helper's object. */
	struct drm_gem_shmem_object base;
	/** @bo: what every BO type has. */
	struct vdla_bo bo;
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
};

static struct vdla_shmem_bo *to_shmem_bo(struct drm_gem_object *obj)
{
	return container_of(to_drm_gem_shmem_obj(obj), struct vdla_shmem_bo, base);
}

struct vdla_bo *vdla_bo_of(struct drm_gem_object *obj)
{
	return vdla_sram_bo_is(obj) ? &to_vdla_sram_bo(obj)->bo : &to_shmem_bo(obj)->bo;
}

void vdla_bo_init(struct vdla_bo *bo, struct drm_gem_object *obj)
{
	bo->obj = obj;
	mutex_init(&bo->mappings_lock);
	INIT_LIST_HEAD(&bo->mappings);
	atomic_inc(&to_vdla_device(obj->dev)->counters.bos);
}

void vdla_bo_fini(struct vdla_bo *bo)
{
	WARN_ON(!list_empty(&bo->mappings));
	mutex_destroy(&bo->mappings_lock);
	atomic_dec(&to_vdla_device(bo->obj->dev)->counters.bos);
}

void vdla_bo_close(struct drm_gem_object *obj, struct drm_file *file)
{
	vdla_mapping_drop_handle(vdla_bo_of(obj), file);
}

/* BO_IMPORT checks that the fd is a dma-buf before importing it. */
MODULE_IMPORT_NS(DMA_BUF);

static void vdla_gem_free(struct drm_gem_object *obj)
{
	struct vdla_shmem_bo *sbo = to_shmem_bo(obj);

	if (!iosys_map_is_null(&sbo->kernel_map))
		drm_gem_vunmap_unlocked(obj, &sbo->kernel_map);
	vdla_bo_fini(&sbo->bo);
	drm_gem_shmem_free(&sbo->base);
}

static enum drm_gem_object_status vdla_gem_status(struct drm_gem_object *obj)
{
	struct drm_gem_shmem_object *shmem = to_drm_gem_shmem_obj(obj);

	return shmem->pages || obj->import_attach ? DRM_GEM_OBJECT_RESIDENT : 0;
}

bool vdla_gem_read_only(struct drm_gem_object *obj)
{
	return obj->import_attach && !(obj->import_attach->dmabuf->file->f_mode & FMODE_WRITE);
}

/*
 * The CPU's view follows the device's: an object imported from a read-only
 * dma-buf (its pages are the exporter's), or held read-only by the mapping
 * file (a read-only BO_IMPORT, a buffer taken from a read-only port), is
 * mapped read-only, and mprotect() cannot make it writable later. A
 * mapping of an exported dma-buf has no DRM file: the export itself
 * carries the permission (vdla_core_ioctls.c).
 */
static int vdla_gem_mmap(struct drm_gem_object *obj, struct vm_area_struct *vma)
{
	struct drm_file *file = NULL;

	/* Mapped through the node (not an exported dma-buf): the file is a drm_file. */
	if (vma->vm_file && vma->vm_file->f_op == obj->dev->driver->fops)
		file = vma->vm_file->private_data;

	if (vdla_gem_read_only(obj) || (file && !vdla_mapping_file_may_write(file, obj))) {
		if (vma->vm_flags & VM_WRITE)
			return -EACCES;
		vm_flags_clear(vma, VM_MAYWRITE);
	}
	return drm_gem_shmem_object_mmap(obj, vma);
}

static const struct drm_gem_object_funcs vdla_gem_funcs = {
	.free = vdla_gem_free,
	.close = vdla_bo_close,
	.status = vdla_gem_status,
	.print_info = drm_gem_shmem_object_print_info,
	.pin = drm_gem_shmem_object_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = drm_gem_shmem_object_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = vdla_gem_mmap,
	.vm_ops = &drm_gem_shmem_vm_ops,
};

/*
 * Read-only exports: the operations of drm_gem_prime_export()'s dma-bufs
 * under another table, so that importing one on this device makes an
 * object of its own, which carries the dma-buf's permission, instead of
 * finding the exporter's object (and its write access). A read-write
 * export stays the core's, one per object; each read-only export is a new
 * dma-buf, so no export fixes the mode of a later one.
 */
static const struct dma_buf_ops vdla_read_only_dmabuf_ops = {
	.cache_sgt_mapping = true,
	.attach = drm_gem_map_attach,
	.detach = drm_gem_map_detach,
	.map_dma_buf = drm_gem_map_dma_buf,
	.unmap_dma_buf = drm_gem_unmap_dma_buf,
	.release = drm_gem_dmabuf_release,
	.mmap = drm_gem_dmabuf_mmap,
	.vmap = drm_gem_dmabuf_vmap,
	.vunmap = drm_gem_dmabuf_vunmap,
};

struct dma_buf *vdla_gem_export_read_only(struct drm_gem_object *obj)
{
	struct dma_buf_export_info exp_info = {
		.exp_name = KBUILD_MODNAME,
		.owner = THIS_MODULE,
		.ops = &vdla_read_only_dmabuf_ops,
		.size = obj->size,
		.flags = O_RDONLY,
		.priv = obj,
		.resv = obj->resv,
	};

	if (obj->funcs->export) /* SRAM BOs refuse to be exported */
		return obj->funcs->export(obj, O_RDONLY);
	/*
	 * An import's pages are its exporter's and cannot be pinned here:
	 * like the core, re-export the original dma-buf, which must then be
	 * read-only itself.
	 */
	if (obj->import_attach) {
		struct dma_buf *original = obj->import_attach->dmabuf;

		if (original->file->f_mode & FMODE_WRITE) {
			drm_dbg(obj->dev, "a read-write import is re-exported as it came, with DRM_RDWR\n");
			return ERR_PTR(-EOPNOTSUPP);
		}
		get_dma_buf(original);
		return original;
	}
	return drm_gem_dmabuf_export(obj->dev, &exp_info);
}

struct drm_gem_object *vdla_gem_create_object(struct drm_device *drm, size_t size)
{
	struct vdla_shmem_bo *sbo = kzalloc(sizeof(*sbo), GFP_KERNEL);

	if (!sbo)
		return ERR_PTR(-ENOMEM);
	sbo->base.base.funcs = &vdla_gem_funcs;
	/* The GEM object is initialised after this returns; the device is known. */
	sbo->base.base.dev = drm;
	vdla_bo_init(&sbo->bo, &sbo->base.base);
	/* Write-back: the device model reads guest memory like a CPU would. */
	sbo->base.map_wc = false;
	return &sbo->base.base;
}

struct sg_table *vdla_gem_pages(struct drm_gem_object *obj)
{
	return drm_gem_shmem_get_pages_sgt(&to_shmem_bo(obj)->base);
}

int vdla_gem_kernel_map(struct drm_gem_object *obj, void **vaddr)
{
	struct vdla_shmem_bo *sbo;
	struct iosys_map map;
	int ret = 0;

	if (vdla_sram_bo_is(obj))
		return -EINVAL;
	sbo = to_shmem_bo(obj);
	/* Made once and kept until the BO is freed: the common case takes no lock. */
	*vaddr = smp_load_acquire(&sbo->kernel_vaddr);
	if (*vaddr)
		return 0;
	mutex_lock(&sbo->bo.mappings_lock);
	if (iosys_map_is_null(&sbo->kernel_map)) {
		ret = drm_gem_vmap_unlocked(obj, &map);
		if (!ret && map.is_iomem) {
			drm_gem_vunmap_unlocked(obj, &map);
			ret = -EINVAL;
		}
		if (!ret) {
			sbo->kernel_map = map;
			/* Pairs with the acquire above: the mapping is complete when seen. */
			smp_store_release(&sbo->kernel_vaddr, map.vaddr);
		}
	}
	if (!ret)
		*vaddr = sbo->kernel_map.vaddr;
	mutex_unlock(&sbo->bo.mappings_lock);
	return ret;
}
