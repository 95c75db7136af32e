// SPDX-License-Identifier: GPL-2.0-only
/*
 * Open files: each gets its own device address space and context table.
 * Closing a file (or the process exiting or being killed) cancels its jobs
 * that have not ended and destroys its contexts; the GEM core has released
 * its handles before postclose runs, so mappings go as their jobs go.
 */
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>
#include <linux/slab.h>

#include "vdla_ctx.h"
#include "vdla_device.h"
#include "vdla_file.h"
#include "vdla_lease.h"
#include "vdla_sram_bo.h"
#include "vdla_mmu.h"
#include "vdla_pipeline.h"
#include "vdla_sched.h"

int vdla_open(struct drm_device *drm, struct drm_file *file)
{
	struct vdla_device *vdev = to_vdla_device(drm);
	struct vdla_file *vfile = kzalloc(sizeof(*vfile), GFP_KERNEL);

	if (!vfile)
		return -ENOMEM;
	vfile->as = vdla_as_create(vdev);
	if (!vfile->as) {
		kfree(vfile);
		return -ENOMEM;
	}
	kref_init(&vfile->ref);
	vfile->vdev = vdev;
	xa_init_flags(&vfile->contexts, XA_FLAGS_ALLOC1);
	xa_init_flags(&vfile->leases, XA_FLAGS_ALLOC1);
	xa_init_flags(&vfile->pipelines, XA_FLAGS_ALLOC1);
	vfile->pid = task_tgid_nr(current);
	vfile->tgid = get_pid(task_tgid(current));
	spin_lock_init(&vfile->busy_lock);
	get_task_comm(vfile->comm, current);
	file->driver_priv = vfile;
	return 0;
}

static void file_release(struct kref *ref)
{
	struct vdla_file *vfile = container_of(ref, struct vdla_file, ref);

	xa_destroy(&vfile->contexts);
	xa_destroy(&vfile->leases);
	xa_destroy(&vfile->pipelines);
	put_pid(vfile->tgid);
	vdla_as_put(vfile->as);
	kfree(vfile);
}

void vdla_file_get(struct vdla_file *vfile)
{
	kref_get(&vfile->ref);
}

void vdla_file_put(struct vdla_file *vfile)
{
	kref_put(&vfile->ref, file_release);
}

void vdla_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct vdla_file *vfile = file->driver_priv;
	unsigned long budget = vdla_ctx_drain_budget();
	struct vdla_ctx *ctx;
	unsigned long id;

	/*
	 * Jobs still waiting for dependencies get one bounded time in all to
	 * become ready (none in a process a signal ended), then end with ESRCH.
	 */
	xa_for_each(&vfile->contexts, id, ctx) {
		xa_erase(&vfile->contexts, id);
		vdla_ctx_destroy(ctx, &budget);
	}
	/* The running job is aborted, the ready ones cancelled. */
	vdla_sched_cancel_file(vfile->vdev, vfile);
	/* With no job left, its resources go to their next waiters at once. */
	vdla_lease_file_close(vfile);
	/*
	 * Then its channel handles and pipeline references go, the last
	 * other reference running the pipeline's exit action, and the
	 * pipelines it owns are torn down (docs/ownership.md).
	 */
	vdla_pipeline_file_close(vfile);
	vdla_file_put(vfile);
}

/* Bytes of the file's BOs by region: [0] system memory, [1] device SRAM. */
static int add_bo_size(int id, void *ptr, void *data)
{
	struct drm_gem_object *obj = ptr;
	u64 *bytes = data;

	if (obj)
		bytes[vdla_sram_bo_is(obj)] += obj->size;
	return 0;
}

/*
 * DRM usage stats (Documentation/gpu/drm-usage-stats.rst): the device time
 * of the file's jobs, and its BOs both in the drm-memory-<region> form and
 * in the drm-total/shared/resident-memory form of drm_show_memory_stats().
 */
void vdla_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	struct vdla_file *vfile = file->driver_priv;
	u64 busy, bytes[2] = { 0, 0 };

	spin_lock(&vfile->busy_lock);
	busy = vfile->busy_ns;
	if (vfile->running_since)
		busy += ktime_to_ns(ktime_sub(ktime_get(), vfile->running_since));
	spin_unlock(&vfile->busy_lock);
	drm_printf(p, "drm-engine-dla:\t%llu ns\n", busy);

	spin_lock(&file->table_lock);
	idr_for_each(&file->object_idr, add_bo_size, bytes);
	spin_unlock(&file->table_lock);
	drm_printf(p, "drm-memory-system:\t%llu KiB\n", bytes[0] >> 10);
	drm_printf(p, "drm-memory-sram:\t%llu KiB\n", bytes[1] >> 10);
	drm_show_memory_stats(p, file);
}
