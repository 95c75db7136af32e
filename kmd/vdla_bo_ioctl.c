// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BO ioctls: BO_CREATE (shmem or SRAM), BO_INFO, BO_WAIT, BO_IMPORT.
 */
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>
#include <linux/dma-buf.h>
#include <linux/dma-resv.h>

#include <drm/vdla_accel.h>

#include "vdla_bo_ioctl.h"
#include "vdla_file.h"
#include "vdla_gem.h"
#include "vdla_lease.h"
#include "vdla_mapping.h"
#include "vdla_sram_bo.h"

/*
 * The offset to mmap() @obj at, made on first use; 0 for an SRAM BO,
 * which has no CPU mapping.
 */
static int bo_mmap_offset(struct drm_gem_object *obj, u64 *offset)
{
	int ret;

	*offset = 0;
	if (vdla_sram_bo_is(obj))
		return 0;
	ret = drm_gem_create_mmap_offset(obj);
	if (!ret)
		*offset = drm_vma_node_offset_addr(&obj->vma_node);
	return ret;
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

	if (args->pad || (args->lease_id && !sram)) {
		drm_dbg(drm, "BO_CREATE: pad must be 0, a lease_id needs DRM_VDLA_BO_CREATE_SRAM\n");
		return -EINVAL;
	}

	if (sram && args->lease_id) {
		obj = vdla_lease_sram_bo_create(drm, vfile, args->lease_id, PAGE_ALIGN(args->size));
		if (IS_ERR(obj))
			return PTR_ERR(obj);
	} else if (sram) {
		obj = vdla_sram_bo_create(drm, PAGE_ALIGN(args->size), -1);
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
	m = vdla_mapping_create(obj, vfile->as);
	if (IS_ERR(m)) {
		ret = PTR_ERR(m);
		goto out_put;
	}
	ret = drm_gem_handle_create(file, obj, &handle);
	if (ret) {
		vdla_mapping_put(m);
		goto out_put;
	}
	m = vdla_mapping_adopt(file, obj, handle, m);
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
	m = vdla_mapping_get_access(file, obj, handle, writable);
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
