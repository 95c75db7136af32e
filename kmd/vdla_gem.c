// SPDX-License-Identifier: GPL-2.0-only
/*
 * Buffer objects: shmem GEM objects, mapped into the device address space
 * of every file that holds a handle to one. BO_CREATE and BO_IMPORT map at
 * once; a handle that came from the generic PRIME import is mapped when
 * first used (BO_INFO or SUBMIT). A file's mapping goes when its handle
 * goes and no job of the file uses the BO any more.
 *
 * Pages are pinned from the first mapping until the BO is freed: jobs run
 * without faulting them in, and the shmem helper frees them with the BO.
 *
 * SRAM BOs are plain GEM objects with a block of the device SRAM: engines
 * address SRAM without the MMU, so their "mapping" in each address space
 * only records the reference and gives the SRAM address.
 */
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>
#include <linux/delay.h>
#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <drm/vdla_accel.h>

#include "vdla_device.h"
#include "vdla_file.h"
#include "vdla_gem.h"
#include "vdla_mmu.h"
#include "vdla_sched.h"

/* BO_IMPORT checks that the fd is a dma-buf before importing it. */
MODULE_IMPORT_NS(DMA_BUF);

static void vdla_gem_free(struct drm_gem_object *obj)
{
	struct vdla_bo *bo = to_vdla_bo(obj);
	struct vdla_device *vdev = to_vdla_device(obj->dev);

	WARN_ON(!list_empty(&bo->mappings));
	if (!iosys_map_is_null(&bo->kernel_map))
		drm_gem_vunmap_unlocked(obj, &bo->kernel_map);
	mutex_destroy(&bo->mappings_lock);
	atomic_dec(&vdev->counters.bos);
	drm_gem_shmem_free(&bo->base);
}

/* The last handle of @file to @obj is going: drop the handle's reference. */
static void vdla_gem_close(struct drm_gem_object *obj, struct drm_file *file)
{
	struct vdla_file *vfile = file->driver_priv;
	struct vdla_bo *bo = to_vdla_bo(obj);
	struct vdla_mapping *m, *found = NULL;

	mutex_lock(&bo->mappings_lock);
	list_for_each_entry(m, &bo->mappings, bo_link) {
		if (m->as == vfile->as && m->handle_ref) {
			m->handle_ref = false;
			found = m;
			break;
		}
	}
	mutex_unlock(&bo->mappings_lock);
	if (found)
		vdla_mapping_put(found);
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
 * dma-buf cannot be mapped for writing through this node either (its pages
 * are the exporter's), now or later by mprotect.
 */
static int vdla_gem_mmap(struct drm_gem_object *obj, struct vm_area_struct *vma)
{
	if (vdla_gem_read_only(obj)) {
		if (vma->vm_flags & VM_WRITE)
			return -EACCES;
		vm_flags_clear(vma, VM_MAYWRITE);
	}
	return drm_gem_shmem_object_mmap(obj, vma);
}

static const struct drm_gem_object_funcs vdla_gem_funcs = {
	.free = vdla_gem_free,
	.close = vdla_gem_close,
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

static void vdla_sram_bo_free(struct drm_gem_object *obj)
{
	struct vdla_bo *bo = to_vdla_bo(obj);
	struct vdla_device *vdev = to_vdla_device(obj->dev);

	WARN_ON(!list_empty(&bo->mappings));
	if (drm_mm_node_allocated(&bo->sram_node))
		vdla_sram_free(vdev, &bo->sram_node);
	drm_gem_object_release(obj);
	mutex_destroy(&bo->mappings_lock);
	atomic_dec(&vdev->counters.bos);
	kfree(bo);
}

/* SRAM has no pages to give another device, and no CPU mapping. */
static struct dma_buf *vdla_sram_bo_export(struct drm_gem_object *obj, int flags)
{
	drm_dbg(obj->dev, "an SRAM BO cannot be exported\n");
	return ERR_PTR(-EOPNOTSUPP);
}

static enum drm_gem_object_status vdla_sram_bo_status(struct drm_gem_object *obj)
{
	return DRM_GEM_OBJECT_RESIDENT;
}

static const struct drm_gem_object_funcs vdla_sram_bo_funcs = {
	.free = vdla_sram_bo_free,
	.close = vdla_gem_close,
	.status = vdla_sram_bo_status,
	.export = vdla_sram_bo_export,
};

static bool vdla_bo_is_sram(const struct vdla_bo *bo)
{
	return bo->base.base.funcs == &vdla_sram_bo_funcs;
}

bool vdla_gem_is_sram(struct drm_gem_object *obj)
{
	return vdla_bo_is_sram(to_vdla_bo(obj));
}

/*
 * The offset to mmap() @obj at, made on first use; 0 for an SRAM BO,
 * which has no CPU mapping.
 */
static int bo_mmap_offset(struct drm_gem_object *obj, u64 *offset)
{
	int ret;

	*offset = 0;
	if (vdla_bo_is_sram(to_vdla_bo(obj)))
		return 0;
	ret = drm_gem_create_mmap_offset(obj);
	if (!ret)
		*offset = drm_vma_node_offset_addr(&obj->vma_node);
	return ret;
}

static struct vdla_bo *vdla_bo_alloc(struct vdla_device *vdev)
{
	struct vdla_bo *bo = kzalloc(sizeof(*bo), GFP_KERNEL);

	if (!bo)
		return NULL;
	mutex_init(&bo->mappings_lock);
	INIT_LIST_HEAD(&bo->mappings);
	atomic_inc(&vdev->counters.bos);
	return bo;
}

#define VDLA_SRAM_REAP_TRIES 20

/* A zero-filled SRAM BO of @size bytes (a page multiple). */
static struct drm_gem_object *vdla_sram_bo_create(struct drm_device *drm, size_t size)
{
	struct vdla_device *vdev = to_vdla_device(drm);
	struct vdla_bo *bo = vdla_bo_alloc(vdev);
	struct drm_gem_object *obj;
	int ret;

	if (!bo)
		return ERR_PTR(-ENOMEM);
	obj = &bo->base.base;
	obj->funcs = &vdla_sram_bo_funcs;
	drm_gem_private_object_init(drm, obj, size);
	ret = vdla_sram_alloc(vdev, &bo->sram_node, size);
	/*
	 * A job that ended keeps its SRAM BOs until the scheduler frees it,
	 * shortly after its fence signals: a process that waited for its
	 * jobs and closed their BOs would otherwise find the SRAM still
	 * taken. Take back what ended jobs hold, for a few milliseconds at
	 * most (a job that ended behind one still running waits for it).
	 */
	for (int tries = 0; ret == -ENOSPC && atomic_read(&vdev->counters.ended_jobs) > 0
			    && tries < VDLA_SRAM_REAP_TRIES; tries++) {
		vdla_sched_reap();
		ret = vdla_sram_alloc(vdev, &bo->sram_node, size);
		if (ret == -ENOSPC)
			usleep_range(100, 200);
	}
	if (ret) {
		drm_gem_object_put(obj);
		return ERR_PTR(ret);
	}
	return obj;
}

struct drm_gem_object *vdla_gem_create_object(struct drm_device *drm, size_t size)
{
	struct vdla_bo *bo = vdla_bo_alloc(to_vdla_device(drm));

	if (!bo)
		return ERR_PTR(-ENOMEM);
	bo->base.base.funcs = &vdla_gem_funcs;
	/* Write-back: the device model reads guest memory like a CPU would. */
	bo->base.map_wc = false;
	return &bo->base.base;
}

static void mapping_release(struct kref *ref)
{
	struct vdla_mapping *m = container_of(ref, struct vdla_mapping, ref);
	struct vdla_device *vdev = m->as->vdev;

	mutex_lock(&m->bo->mappings_lock);
	list_del(&m->bo_link);
	mutex_unlock(&m->bo->mappings_lock);
	if (!vdla_bo_is_sram(m->bo))
		vdla_as_unmap(m->as, &m->node);
	vdla_as_put(m->as);
	drm_gem_object_put(&m->bo->base.base);
	atomic_dec(&vdev->counters.mappings);
	kfree(m);
}

void vdla_mapping_put(struct vdla_mapping *m)
{
	if (m)
		kref_put(&m->ref, mapping_release);
}

u64 vdla_mapping_address(const struct vdla_mapping *m)
{
	if (vdla_bo_is_sram(m->bo))
		return DRM_VDLA_SRAM_BASE + m->bo->sram_node.start;
	return m->node.start;
}

int vdla_bo_kernel_map(struct vdla_bo *bo, void **vaddr)
{
	struct iosys_map map;
	int ret = 0;

	if (vdla_bo_is_sram(bo))
		return -EINVAL;
	/* Made once and kept until the BO is freed: the common case takes no lock. */
	*vaddr = smp_load_acquire(&bo->kernel_vaddr);
	if (*vaddr)
		return 0;
	mutex_lock(&bo->mappings_lock);
	if (iosys_map_is_null(&bo->kernel_map)) {
		ret = drm_gem_vmap_unlocked(&bo->base.base, &map);
		if (!ret && map.is_iomem) {
			drm_gem_vunmap_unlocked(&bo->base.base, &map);
			ret = -EINVAL;
		}
		if (!ret) {
			bo->kernel_map = map;
			/* Pairs with the acquire above: the mapping is complete when seen. */
			smp_store_release(&bo->kernel_vaddr, map.vaddr);
		}
	}
	if (!ret)
		*vaddr = bo->kernel_map.vaddr;
	mutex_unlock(&bo->mappings_lock);
	return ret;
}

static struct vdla_mapping *find_mapping(struct vdla_bo *bo, struct vdla_as *as)
{
	struct vdla_mapping *m;

	lockdep_assert_held(&bo->mappings_lock);
	list_for_each_entry(m, &bo->mappings, bo_link) {
		if (m->as == as && m->handle_ref)
			return m;
	}
	return NULL;
}

/*
 * Whether @handle of @file still names @obj. The DRM core clears a handle's
 * entry before it calls vdla_gem_close() for it, so under the BO's
 * mappings_lock this decides which of the two comes first: a mapping made
 * while the handle is there is one vdla_gem_close() will find.
 */
static bool handle_names(struct drm_file *file, u32 handle, struct drm_gem_object *obj)
{
	bool names;

	spin_lock(&file->table_lock);
	names = idr_find(&file->object_idr, handle) == obj;
	spin_unlock(&file->table_lock);
	return names;
}

/* A new mapping of @bo in @as, not yet on the BO's list; mappings_lock held. */
static struct vdla_mapping *mapping_create(struct vdla_bo *bo, struct vdla_as *as, bool writable)
{
	struct vdla_mapping *m;
	struct sg_table *sgt;
	int ret;

	lockdep_assert_held(&bo->mappings_lock);
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return ERR_PTR(-ENOMEM);
	if (!vdla_bo_is_sram(bo)) {
		sgt = drm_gem_shmem_get_pages_sgt(&bo->base);
		ret = PTR_ERR_OR_ZERO(sgt);
		if (!ret)
			ret = vdla_as_map(as, &m->node, bo->base.base.size, sgt, writable);
		if (ret) {
			kfree(m);
			return ERR_PTR(ret);
		}
	}
	kref_init(&m->ref);
	m->writable = writable;
	m->bo = bo;
	drm_gem_object_get(&bo->base.base);
	m->as = as;
	vdla_as_get(as);
	list_add_tail(&m->bo_link, &bo->mappings);
	atomic_inc(&as->vdev->counters.mappings);
	return m;
}

/*
 * The mapping of @obj in @file's address space, created with @writable if
 * there is none; -EBUSY if there is one with another access and
 * @must_match. A new mapping holds a reference for @handle only if the
 * handle still names @obj: one closed meanwhile (another thread may close
 * any handle number) would never drop it. Returns a new reference.
 */
static struct vdla_mapping *mapping_get(struct drm_file *file, struct drm_gem_object *obj,
					u32 handle, bool writable, bool must_match)
{
	struct vdla_file *vfile = file->driver_priv;
	struct vdla_bo *bo = to_vdla_bo(obj);
	struct vdla_mapping *m;

	mutex_lock(&bo->mappings_lock);
	m = find_mapping(bo, vfile->as);
	if (m) {
		if (must_match && m->writable != writable)
			m = ERR_PTR(-EBUSY);
		else
			kref_get(&m->ref);
		mutex_unlock(&bo->mappings_lock);
		return m;
	}
	m = mapping_create(bo, vfile->as, writable);
	if (!IS_ERR(m) && handle_names(file, handle, obj)) {
		m->handle_ref = true;
		kref_get(&m->ref);
	}
	mutex_unlock(&bo->mappings_lock);
	return m;
}

struct vdla_mapping *vdla_mapping_get(struct drm_file *file, struct drm_gem_object *obj,
				      u32 handle)
{
	return mapping_get(file, obj, handle, !vdla_gem_read_only(obj), false);
}

/*
 * Gives new handle @handle the mapping @m BO_CREATE made before publishing
 * it, unless a racing thread already made one for the handle (then that
 * one, whose address the handle has, and @m goes) or closed it. Returns the
 * caller's reference to the mapping the handle has.
 */
static struct vdla_mapping *mapping_adopt(struct drm_file *file, struct drm_gem_object *obj,
					  u32 handle, struct vdla_mapping *m)
{
	struct vdla_file *vfile = file->driver_priv;
	struct vdla_bo *bo = to_vdla_bo(obj);
	struct vdla_mapping *found;

	mutex_lock(&bo->mappings_lock);
	found = find_mapping(bo, vfile->as);
	if (found) {
		kref_get(&found->ref);
	} else if (handle_names(file, handle, obj)) {
		m->handle_ref = true;
		kref_get(&m->ref);
	}
	mutex_unlock(&bo->mappings_lock);
	if (!found)
		return m; /* the handle's now, or closed already: then ours is the last */
	vdla_mapping_put(m);
	return found;
}

int vdla_ioctl_bo_create(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct vdla_file *vfile = file->driver_priv;
	struct drm_vdla_bo_create *args = data;
	bool sram = args->flags & DRM_VDLA_BO_CREATE_SRAM;
	struct drm_gem_shmem_object *shmem;
	struct drm_gem_object *obj;
	struct vdla_mapping *m;
	u32 handle;
	int ret;

	if (args->flags & ~DRM_VDLA_BO_CREATE_FLAGS) {
		drm_dbg(drm, "BO_CREATE: unknown flags 0x%x\n", args->flags);
		return -EINVAL;
	}
	if (!args->size || args->size > DRM_VDLA_BO_MAX_SIZE) {
		drm_dbg(drm, "BO_CREATE: size %llu outside 1..%llu\n", args->size,
			DRM_VDLA_BO_MAX_SIZE);
		return -EINVAL;
	}

	if (sram) {
		obj = vdla_sram_bo_create(drm, PAGE_ALIGN(args->size));
		if (IS_ERR(obj)) {
			drm_dbg(drm, "BO_CREATE: no SRAM block of %llu bytes: %ld\n",
				(u64)PAGE_ALIGN(args->size), PTR_ERR(obj));
			return PTR_ERR(obj);
		}
	} else {
		shmem = drm_gem_shmem_create(drm, PAGE_ALIGN(args->size));
		if (IS_ERR(shmem))
			return PTR_ERR(shmem);
		obj = &shmem->base;
	}
	/*
	 * Everything that can fail comes before the handle is published: once
	 * it is, another thread may close it and reuse its number, so it may
	 * never be deleted by number here.
	 */
	ret = bo_mmap_offset(obj, &args->mmap_offset);
	if (ret)
		goto out_put;
	mutex_lock(&to_vdla_bo(obj)->mappings_lock);
	m = mapping_create(to_vdla_bo(obj), vfile->as, true);
	mutex_unlock(&to_vdla_bo(obj)->mappings_lock);
	if (IS_ERR(m)) {
		ret = PTR_ERR(m);
		goto out_put;
	}
	ret = drm_gem_handle_create(file, obj, &handle);
	if (ret) {
		vdla_mapping_put(m);
		goto out_put;
	}
	m = mapping_adopt(file, obj, handle, m);
	args->size = obj->size;
	args->handle = handle;
	args->device_address = vdla_mapping_address(m);
	vdla_mapping_put(m);
out_put:
	drm_gem_object_put(obj);
	return ret;
}

int vdla_ioctl_bo_info(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_vdla_bo_info *args = data;
	struct drm_gem_object *obj;
	struct vdla_mapping *m;
	int ret;

	if (args->flags) {
		drm_dbg(drm, "BO_INFO: unknown flags 0x%x\n", args->flags);
		return -EINVAL;
	}
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	m = vdla_mapping_get(file, obj, args->handle);
	if (IS_ERR(m)) {
		ret = PTR_ERR(m);
		goto out;
	}
	ret = bo_mmap_offset(obj, &args->mmap_offset);
	if (!ret) {
		args->size = obj->size;
		args->device_address = vdla_mapping_address(m);
		args->access = DRM_VDLA_BO_ACCESS_READ |
			       (m->writable ? DRM_VDLA_BO_ACCESS_WRITE : 0);
		args->imported = obj->import_attach ? 1 : 0;
	}
	vdla_mapping_put(m);
out:
	drm_gem_object_put(obj);
	return ret;
}

int vdla_ioctl_bo_wait(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_vdla_bo_wait *args = data;
	enum dma_resv_usage usage;
	struct drm_gem_object *obj;
	long ret;

	if (args->flags & ~DRM_VDLA_BO_WAIT_FLAGS) {
		drm_dbg(drm, "BO_WAIT: unknown flags 0x%x\n", args->flags);
		return -EINVAL;
	}
	if (args->timeout_ns < 0) {
		drm_dbg(drm, "BO_WAIT: negative timeout\n");
		return -EINVAL;
	}
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;

	usage = args->flags & DRM_VDLA_BO_WAIT_FLAG_WRITERS ? DMA_RESV_USAGE_WRITE :
							      DMA_RESV_USAGE_READ;
	if (!args->timeout_ns) {
		ret = dma_resv_test_signaled(obj->resv, usage) ? 0 : -ETIMEDOUT;
	} else {
		ret = dma_resv_wait_timeout(obj->resv, usage, true,
					    nsecs_to_jiffies64(args->timeout_ns) + 1);
		ret = ret > 0 ? 0 : ret == 0 ? -ETIMEDOUT : ret;
	}
	drm_gem_object_put(obj);
	return ret;
}

int vdla_ioctl_bo_import(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_vdla_bo_import *args = data;
	struct dma_buf *dmabuf;
	bool writable = !(args->flags & DRM_VDLA_BO_IMPORT_FLAG_READ_ONLY);
	struct drm_gem_object *obj;
	struct vdla_mapping *m;
	u32 handle;
	int ret;

	if (args->flags & ~DRM_VDLA_BO_IMPORT_FLAGS) {
		drm_dbg(drm, "BO_IMPORT: unknown flags 0x%x\n", args->flags);
		return -EINVAL;
	}
	dmabuf = dma_buf_get(args->fd);
	if (IS_ERR(dmabuf)) {
		drm_dbg(drm, "BO_IMPORT: fd %d is not a dma-buf\n", args->fd);
		return -EBADF;
	}
	/* Write access is the exporter's to give: never more than the dma-buf has. */
	if (writable && !(dmabuf->file->f_mode & FMODE_WRITE)) {
		dma_buf_put(dmabuf);
		drm_dbg(drm, "BO_IMPORT: fd %d is a read-only export: import it READ_ONLY\n",
			args->fd);
		return -EACCES;
	}
	dma_buf_put(dmabuf);
	ret = drm_gem_prime_fd_to_handle(drm, file, args->fd, &handle);
	if (ret)
		return ret;
	obj = drm_gem_object_lookup(file, handle);
	if (!obj)
		return -ENOENT;
	m = mapping_get(file, obj, handle, writable, true);
	if (IS_ERR(m)) {
		ret = PTR_ERR(m);
		drm_dbg(drm, "BO_IMPORT: %s\n", ret == -EBUSY ?
			"the caller already holds this buffer with another access" :
			"cannot map the buffer");
		goto out;
	}
	args->handle = handle;
	args->access = DRM_VDLA_BO_ACCESS_READ | (writable ? DRM_VDLA_BO_ACCESS_WRITE : 0);
	args->size = obj->size;
	args->device_address = vdla_mapping_address(m);
	vdla_mapping_put(m);
out:
	drm_gem_object_put(obj);
	return ret;
}
