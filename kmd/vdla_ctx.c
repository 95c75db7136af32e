// SPDX-License-Identifier: GPL-2.0-only
/*
 * Contexts. Each has a priority, a waiting list where the scheduler holds
 * its jobs until their dependencies have signalled, and a fence timeline of
 * its own: the jobs of one context end in submission order, so their fences
 * are ordered.
 */
#include <drm/drm_file.h>
#include <drm/drm_print.h>
#include <linux/capability.h>
#include <linux/dma-fence.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include <drm/vdla_accel.h>

#include "vdla_ctx.h"
#include "vdla_device.h"
#include "vdla_file.h"
#include "vdla_sched.h"

/*
 * How long destroying a context, or closing a file with all its contexts,
 * waits for jobs held by their dependencies.
 */
#define VDLA_CTX_DRAIN_MS	1000

struct vdla_ctx *vdla_ctx_lookup(struct vdla_file *file, u32 id)
{
	struct vdla_ctx *ctx;

	xa_lock(&file->contexts);
	ctx = xa_load(&file->contexts, id);
	if (ctx)
		kref_get(&ctx->ref);
	xa_unlock(&file->contexts);
	return ctx;
}

void vdla_ctx_get(struct vdla_ctx *ctx)
{
	kref_get(&ctx->ref);
}

static void ctx_release(struct kref *ref)
{
	struct vdla_ctx *ctx = container_of(ref, struct vdla_ctx, ref);

	/* First: the scheduler may look at the context until it is unlinked. */
	vdla_sched_remove_ctx(ctx);
	atomic_dec(&ctx->vdev->counters.contexts);
	mutex_destroy(&ctx->submit_lock);
	vdla_file_put(ctx->file);
	kfree(ctx);
}

void vdla_ctx_put(struct vdla_ctx *ctx)
{
	if (ctx)
		kref_put(&ctx->ref, ctx_release);
}

unsigned long vdla_ctx_drain_budget(void)
{
	/* A process that a signal is ending (or has ended) does not wait at all. */
	if (fatal_signal_pending(current) ||
	    ((current->flags & PF_EXITING) && (current->exit_code & 0x7f)))
		return 0;
	return msecs_to_jiffies(VDLA_CTX_DRAIN_MS);
}

void vdla_ctx_destroy(struct vdla_ctx *ctx, unsigned long *budget)
{
	long left;

	mutex_lock(&ctx->submit_lock);
	ctx->destroyed = true;
	mutex_unlock(&ctx->submit_lock);
	/*
	 * Jobs that have left the waiting list still run; those still in it
	 * (waiting for dependencies, or behind a job of the context that
	 * does) are given what is left of @budget, shared by every context
	 * of one call, and a fatal signal ends the wait; then they fail with
	 * ESRCH.
	 */
	if (*budget) {
		left = wait_event_killable_timeout(ctx->vdev->sched.drained,
						   list_empty_careful(&ctx->waiting), *budget);
		*budget = left > 0 ? left : 0;
	}
	vdla_sched_cancel_waiting(ctx, -ESRCH);
	vdla_ctx_put(ctx);
}

int vdla_ioctl_ctx_create(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct vdla_device *vdev = to_vdla_device(drm);
	struct vdla_file *vfile = file->driver_priv;
	struct drm_vdla_ctx_create *args = data;
	struct vdla_ctx *ctx;
	u32 id;
	int ret;

	if (args->flags || args->pad) {
		drm_dbg(drm, "CTX_CREATE: flags 0x%x and pad must be 0\n", args->flags);
		return -EINVAL;
	}
	if (args->priority >= DRM_VDLA_PRIORITIES) {
		drm_dbg(drm, "CTX_CREATE: priority %u is not one of 0..%u\n", args->priority,
			DRM_VDLA_PRIORITIES - 1);
		return -EINVAL;
	}

	/* As amdgpu and others: a priority above normal is a privilege, never downgraded. */
	if (args->priority > DRM_VDLA_PRIORITY_NORMAL && !capable(CAP_SYS_NICE)) {
		drm_dbg(drm, "CTX_CREATE: priority %u needs CAP_SYS_NICE\n", args->priority);
		return -EACCES;
	}

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	kref_init(&ctx->ref);
	ctx->vdev = vdev;
	ctx->priority = args->priority;
	mutex_init(&ctx->submit_lock);
	INIT_LIST_HEAD(&ctx->waiting);
	INIT_LIST_HEAD(&ctx->frame_wait_leases);
	ctx->fence_context = dma_fence_context_alloc(1);
	vdla_file_get(vfile);
	ctx->file = vfile;
	atomic_inc(&vdev->counters.contexts);
	vdla_sched_add_ctx(ctx);

	/*
	 * The id is reserved first and the context published with it set:
	 * once in the array, another thread may destroy and free it (ids are
	 * easy to guess), so nothing may touch it after the store.
	 */
	ret = xa_alloc(&vfile->contexts, &id, NULL, XA_LIMIT(1, DRM_VDLA_MAX_CONTEXTS),
		       GFP_KERNEL);
	if (ret) {
		if (ret == -EBUSY) {
			drm_dbg(drm, "CTX_CREATE: the file already has %u contexts\n",
				DRM_VDLA_MAX_CONTEXTS);
			ret = -EMFILE;
		}
		vdla_ctx_put(ctx);
		return ret;
	}
	ctx->id = id;
	args->ctx_id = id;
	/*
	 * Fails only if a CTX_DESTROY of the unannounced id took the slot
	 * and no memory is left for it again; the context is not visible then.
	 */
	ret = xa_err(xa_store(&vfile->contexts, id, ctx, GFP_KERNEL));
	if (ret)
		vdla_ctx_put(ctx); /* never visible: no job can have been queued on it */
	return ret;
}

int vdla_ioctl_ctx_destroy(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct vdla_file *vfile = file->driver_priv;
	struct drm_vdla_ctx_destroy *args = data;
	unsigned long budget = vdla_ctx_drain_budget();
	struct vdla_ctx *ctx;

	if (args->pad) {
		drm_dbg(drm, "CTX_DESTROY: pad must be 0\n");
		return -EINVAL;
	}
	ctx = xa_erase(&vfile->contexts, args->ctx_id);
	if (!ctx)
		return -ENOENT;
	/* The table's reference goes with vdla_ctx_destroy(): the leases' hold it on. */
	vdla_ctx_get(ctx);
	vdla_ctx_destroy(ctx, &budget);
	vdla_lease_ctx_destroyed(ctx);
	vdla_ctx_put(ctx);
	return 0;
}

int vdla_ioctl_ctx_query(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct vdla_device *vdev = to_vdla_device(drm);
	struct drm_vdla_ctx_query *args = data;
	struct vdla_ctx *ctx;

	if (args->flags) {
		drm_dbg(drm, "CTX_QUERY: unknown flags 0x%x\n", args->flags);
		return -EINVAL;
	}
	ctx = vdla_ctx_lookup(file->driver_priv, args->ctx_id);
	if (!ctx)
		return -ENOENT;

	mutex_lock(&vdev->fw_lock);
	args->state = ctx->banned ? DRM_VDLA_CTX_STATE_BANNED : DRM_VDLA_CTX_STATE_ACTIVE;
	args->priority = ctx->priority;
	args->jobs_submitted = atomic64_read(&ctx->jobs_submitted);
	args->jobs_completed = ctx->jobs_completed;
	args->jobs_failed = ctx->jobs_failed;
	args->jobs_preempted = ctx->jobs_preempted;
	args->busy_ns = ctx->busy_ns;
	args->last_error = ctx->last_error;
	args->hw_error = ctx->hw_error;
	args->fault_status = ctx->fault_status;
	args->error_op = ctx->error_op;
	args->fault_addr = ctx->fault_addr;
	mutex_unlock(&vdev->fw_lock);
	vdla_ctx_put(ctx);
	return 0;
}
