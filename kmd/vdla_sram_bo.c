// SPDX-License-Identifier: GPL-2.0-only
/*
 * SRAM BOs. The device addresses its SRAM directly (DRM_VDLA_SRAM_BASE plus
 * an offset), without the MMU, so such a BO has no pages and its "mapping"
 * in an address space only records the file's reference (vdla_mapping.c).
 * Isolation holds because tasks name buffers by handle: a file reaches SRAM
 * only through its own SRAM BOs, which are zeroed when allocated and cannot
 * be exported.
 */
#include <drm/drm_print.h>
#include <linux/delay.h>
#include <linux/slab.h>

#include <drm/vdla_accel.h>

#include "vdla_device.h"
#include "vdla_lease.h"
#include "vdla_sched.h"
#include "vdla_sram_bo.h"

#define VDLA_SRAM_REAP_TRIES 20

static void sram_bo_free(struct drm_gem_object *obj)
{
	struct vdla_sram_bo *sbo = to_vdla_sram_bo(obj);
	struct vdla_device *vdev = to_vdla_device(obj->dev);

	/* Out of its lease's list first: the lease's end frees the block of the BOs listed. */
	if (sbo->partitioned)
		vdla_lease_sram_bo_freed(obj);
	if (drm_mm_node_allocated(&sbo->node))
		vdla_sram_free(vdev, &sbo->node);
	drm_gem_object_release(obj);
	vdla_bo_fini(&sbo->bo);
	kfree(sbo);
}

/* SRAM has no pages to give another device, and no CPU mapping. */
static struct dma_buf *sram_bo_export(struct drm_gem_object *obj, int flags)
{
	drm_dbg(obj->dev, "an SRAM BO cannot be exported\n");
	return ERR_PTR(-EOPNOTSUPP);
}

static enum drm_gem_object_status sram_bo_status(struct drm_gem_object *obj)
{
	return DRM_GEM_OBJECT_RESIDENT;
}

static const struct drm_gem_object_funcs vdla_sram_bo_funcs = {
	.free = sram_bo_free,
	.close = vdla_bo_close,
	.status = sram_bo_status,
	.export = sram_bo_export,
};

bool vdla_sram_bo_is(const struct drm_gem_object *obj)
{
	return obj->funcs == &vdla_sram_bo_funcs;
}

u64 vdla_sram_bo_address(struct drm_gem_object *obj)
{
	return DRM_VDLA_SRAM_BASE + to_vdla_sram_bo(obj)->node.start;
}

bool vdla_sram_bo_partitioned(const struct drm_gem_object *obj)
{
	return vdla_sram_bo_is(obj) &&
	       container_of(obj, const struct vdla_sram_bo, base)->partitioned;
}

struct drm_gem_object *vdla_sram_bo_create(struct drm_device *drm, size_t size, int part)
{
	struct vdla_device *vdev = to_vdla_device(drm);
	struct vdla_sram_bo *sbo = kzalloc(sizeof(*sbo), GFP_KERNEL);
	struct drm_gem_object *obj;
	int ret;

	if (!sbo)
		return ERR_PTR(-ENOMEM);
	obj = &sbo->base;
	obj->funcs = &vdla_sram_bo_funcs;
	drm_gem_private_object_init(drm, obj, size);
	vdla_bo_init(&sbo->bo, obj);
	INIT_LIST_HEAD(&sbo->lease_link);
	ret = vdla_sram_alloc(vdev, &sbo->node, size, part);
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
		ret = vdla_sram_alloc(vdev, &sbo->node, size, part);
		if (ret == -ENOSPC)
			usleep_range(100, 200);
	}
	if (ret) {
		drm_gem_object_put(obj);
		return ERR_PTR(ret);
	}
	return obj;
}
