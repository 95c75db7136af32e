// SPDX-License-Identifier: GPL-2.0-only
/*
 * LEASE_ACQUIRE, LEASE_RELEASE and LEASE_QUERY (vdla_accel.h, "Leases").
 */
#include <drm/drm_device.h>
#include <drm/drm_print.h>
#include <linux/capability.h>
#include <linux/sched/signal.h>

#include "vdla_ctx.h"
#include "vdla_device.h"
#include "vdla_file.h"
#include "vdla_lease_core.h"
#include "vdla_trace.h"

static int check_acquire(struct drm_device *drm, const struct drm_vdla_lease_acquire *args)
{
	if (args->flags & ~DRM_VDLA_LEASE_ACQUIRE_FLAGS) {
		drm_dbg(drm, "LEASE_ACQUIRE: unknown flags 0x%x\n", args->flags);
		return -EINVAL;
	}
	if (args->resource != DRM_VDLA_RESOURCE_SRAM_PARTITION &&
	    args->resource != DRM_VDLA_RESOURCE_ENGINE &&
	    args->resource != DRM_VDLA_RESOURCE_TIME_SHARE) {
		drm_dbg(drm, "LEASE_ACQUIRE: resource type %u is not one the driver has\n",
			args->resource);
		return -EINVAL;
	}
	if (args->priority >= DRM_VDLA_PRIORITIES) {
		drm_dbg(drm, "LEASE_ACQUIRE: priority %u is not one of 0..%u\n", args->priority,
			DRM_VDLA_PRIORITIES - 1);
		return -EINVAL;
	}
	if (args->timeout_ns > DRM_VDLA_LEASE_MAX_TIMEOUT_NS ||
	    args->release_timeout_ns > DRM_VDLA_LEASE_MAX_TIMEOUT_NS) {
		drm_dbg(drm, "LEASE_ACQUIRE: a timeout above %llu ns\n",
			DRM_VDLA_LEASE_MAX_TIMEOUT_NS);
		return -EINVAL;
	}
	return 0;
}

/*
 * Whether CTX_DESTROY has removed @ctx: it forgets the context's leases
 * under the manager's lock after setting this, so a lease registered under
 * that lock and seeing it clear is forgotten with the others.
 */
static bool ctx_destroyed(struct vdla_ctx *ctx)
{
	bool destroyed;

	mutex_lock(&ctx->submit_lock);
	destroyed = ctx->destroyed;
	mutex_unlock(&ctx->submit_lock);
	return destroyed;
}

/*
 * Whether @ctx already holds or waits for @res (a lease not ending), or for
 * any time share if @res is one: a context is charged to one share.
 */
static bool claimed_by(struct vdla_device *vdev, struct vdla_lease_resource *res,
		       struct vdla_ctx *ctx)
{
	struct vdla_lease *lease;

	list_for_each_entry(lease, &vdev->leases.leases, mgr_link) {
		if (lease->ctx != ctx || lease->ending)
			continue;
		if (lease->res == res ||
		    (res->type == DRM_VDLA_RESOURCE_TIME_SHARE &&
		     lease->res->type == DRM_VDLA_RESOURCE_TIME_SHARE))
			return true;
	}
	return false;
}

/*
 * Case 2 of the arbitration would ask the holder to release: a privilege,
 * as a priority above normal is. Tested before the arbitration, which
 * always preempts on a strictly higher priority, and with capable() last so
 * that a claim needing no privilege leaves no audit record.
 */
static bool may_claim(struct vdla_lease_resource *res, const struct drm_vdla_lease_acquire *args)
{
	struct vdla_arb_lease *holder = res->arb.holder;
	bool preempts = holder && args->priority > holder->priority &&
			!(args->flags & DRM_VDLA_LEASE_ACQUIRE_NO_PREEMPT);

	return !preempts || capable(CAP_SYS_NICE);
}

/*
 * Under the manager's lock: registers @lease (in the queue, or holding)
 * and returns the arbitration's outcome, or an errno.
 */
static int claim(struct vdla_device *vdev, struct vdla_file *vfile, struct vdla_lease *lease,
		 const struct drm_vdla_lease_acquire *args)
{
	struct drm_device *drm = &vdev->drm;

	if (vfile->num_leases >= DRM_VDLA_MAX_LEASES_PER_FILE) {
		drm_dbg(drm, "LEASE_ACQUIRE: the file has %u leases already\n",
			DRM_VDLA_MAX_LEASES_PER_FILE);
		return -EAGAIN;
	}
	if (claimed_by(vdev, lease->res, lease->ctx)) {
		drm_dbg(drm, "LEASE_ACQUIRE: context %u already claims that resource (or a time share)\n",
			args->ctx_id);
		return -EEXIST;
	}
	if (ctx_destroyed(lease->ctx))
		return -ENOENT;
	/* As for a context: a priority above normal is a privilege, never downgraded. */
	if (args->priority > DRM_VDLA_PRIORITY_NORMAL && !capable(CAP_SYS_NICE)) {
		drm_dbg(drm, "LEASE_ACQUIRE: priority %u needs CAP_SYS_NICE\n", args->priority);
		return -EACCES;
	}
	if (!may_claim(lease->res, args)) {
		drm_dbg(drm, "LEASE_ACQUIRE: preempting the holder needs CAP_SYS_NICE\n");
		return -EACCES;
	}
	/*
	 * An unprivileged claim never preempts later either, when aging or a
	 * new holder of lower priority would let it: it waits as behind an
	 * equal priority.
	 */
	if (!has_capability_noaudit(current, CAP_SYS_NICE))
		lease->arb.no_preempt = true;
	return vdla_arb_acquire(&lease->res->arb, &lease->arb,
				args->timeout_ns || (args->flags & DRM_VDLA_LEASE_ACQUIRE_QUEUE));
}

static int acquire(struct drm_device *drm, struct drm_file *file, struct vdla_ctx *ctx,
		   struct drm_vdla_lease_acquire *args)
{
	struct vdla_device *vdev = to_vdla_device(drm);
	struct vdla_lease_mgr *mgr = &vdev->leases;
	struct vdla_file *vfile = file->driver_priv;
	struct vdla_lease_resource *res;
	struct vdla_lease *lease;
	long left = 0;
	int ret;
	u32 id;

	/*
	 * The id first, reserved and unannounced: the lease's events carry it.
	 * Ids go round rather than being reused at once, so that a late event
	 * of a released lease does not name a new one.
	 */
	ret = xa_alloc_cyclic(&vfile->leases, &id, NULL, xa_limit_32b, &vfile->next_lease_id,
			      GFP_KERNEL);
	if (ret < 0)
		return ret == -EBUSY ? -EAGAIN : ret;

	mutex_lock(&mgr->lock);
	res = vdla_lease_resource(vdev, args->resource, args->index);
	mutex_unlock(&mgr->lock);
	if (!res) {
		drm_dbg(drm, "LEASE_ACQUIRE: no resource %u of type %u\n", args->index,
			args->resource);
		ret = -ENOENT;
		goto out_id;
	}
	lease = vdla_lease_create(file, ctx, res, args);
	if (IS_ERR(lease)) {
		ret = PTR_ERR(lease);
		goto out_id;
	}
	lease->id = id;

	mutex_lock(&mgr->lock);
	/* The partitions may have changed meanwhile. */
	if (vdla_lease_resource(vdev, args->resource, args->index) != res)
		ret = -ENOENT;
	else
		ret = claim(vdev, vfile, lease, args);
	if (ret < 0)
		goto out_unlock;
	if (ret == VDLA_ARB_BUSY) {
		ret = -EBUSY;
		goto out_unlock;
	}
	trace_vdla_lease_acquire(lease);
	list_add_tail(&lease->mgr_link, &mgr->leases);
	vfile->num_leases++;
	if (ret == VDLA_ARB_GRANTED) {
		vdla_lease_granted(lease);
	} else if (!args->timeout_ns && !(args->flags & DRM_VDLA_LEASE_ACQUIRE_QUEUE)) {
		/* A preempting claim that may not wait: the holder is not even asked. */
		vdla_lease_withdraw(lease);
		vfile->num_leases--;
		ret = -EBUSY;
		goto out_unlock;
	} else {
		vdla_lease_sync_holder(res);
	}
	mutex_unlock(&mgr->lock);

	if (lease->arb.state == VDLA_ARB_WAITING && args->timeout_ns)
		left = wait_event_interruptible_timeout(mgr->granted,
							READ_ONCE(lease->arb.state) != VDLA_ARB_WAITING,
							nsecs_to_jiffies(args->timeout_ns) ?: 1);

	mutex_lock(&mgr->lock);
	if (ctx_destroyed(ctx)) {
		/* Destroyed while the claim waited: CTX_DESTROY could not see it. */
		if (lease->arb.state == VDLA_ARB_WAITING)
			vdla_lease_withdraw(lease);
		else
			vdla_lease_end(lease, false);
		vfile->num_leases--;
		ret = -ENOENT;
		goto out_unlock;
	}
	if (lease->arb.state == VDLA_ARB_WAITING) {
		if (left >= 0 && (args->flags & DRM_VDLA_LEASE_ACQUIRE_QUEUE)) {
			lease->notify_grant = true;
		} else {
			vdla_lease_withdraw(lease);
			vfile->num_leases--;
			ret = left < 0 ? -EINTR : -ETIMEDOUT;
			goto out_unlock;
		}
	}
	args->state = vdla_lease_state(lease);
	args->lease_id = id;
	/*
	 * The table's reference is the creation's; the lease is visible from
	 * here. The reserved slot needs no memory, and only this call stores
	 * into it (RELEASE erases present entries only).
	 */
	WARN_ON(xa_err(xa_store(&vfile->leases, id, lease, GFP_NOWAIT)));
	mutex_unlock(&mgr->lock);
	return 0;

out_unlock:
	mutex_unlock(&mgr->lock);
	vdla_lease_put(lease);
out_id:
	xa_release(&vfile->leases, id);
	return ret;
}

int vdla_ioctl_lease_acquire(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_vdla_lease_acquire *args = data;
	struct vdla_ctx *ctx;
	int ret;

	args->lease_id = 0;
	args->state = 0;
	ret = check_acquire(drm, args);
	if (ret)
		return ret;
	ctx = vdla_ctx_lookup(file->driver_priv, args->ctx_id);
	if (!ctx) {
		drm_dbg(drm, "LEASE_ACQUIRE: no context %u of the caller\n", args->ctx_id);
		return -ENOENT;
	}
	ret = acquire(drm, file, ctx, args);
	vdla_ctx_put(ctx);
	return ret;
}

int vdla_ioctl_lease_release(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct vdla_device *vdev = to_vdla_device(drm);
	struct drm_vdla_lease_release *args = data;
	struct vdla_file *vfile = file->driver_priv;
	struct vdla_lease *lease;

	if (args->flags) {
		drm_dbg(drm, "LEASE_RELEASE: flags must be 0\n");
		return -EINVAL;
	}
	mutex_lock(&vdev->leases.lock);
	/* A slot an ACQUIRE under way reserved holds no lease yet: it is not erased. */
	xa_lock(&vfile->leases);
	lease = xa_load(&vfile->leases, args->lease_id);
	if (lease)
		__xa_erase(&vfile->leases, args->lease_id);
	xa_unlock(&vfile->leases);
	if (!lease) {
		mutex_unlock(&vdev->leases.lock);
		return -ENOENT;
	}
	vfile->num_leases--;
	vdla_lease_end_for_good(lease);
	mutex_unlock(&vdev->leases.lock);
	vdla_lease_put(lease);
	return 0;
}

int vdla_ioctl_lease_query(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct vdla_device *vdev = to_vdla_device(drm);
	struct drm_vdla_lease_query *args = data;
	struct vdla_lease *lease;

	if (args->flags) {
		drm_dbg(drm, "LEASE_QUERY: flags must be 0\n");
		return -EINVAL;
	}
	lease = vdla_lease_lookup(file->driver_priv, args->lease_id);
	if (!lease)
		return -ENOENT;
	mutex_lock(&vdev->leases.lock);
	args->state = vdla_lease_state(lease);
	args->release_requested = lease->asked && !lease->ending;
	args->queue_priority = lease->arb.state == VDLA_ARB_WAITING ?
			       vdla_arb_queue_priority(&lease->res->arb, &lease->arb) :
			       lease->arb.priority;
	args->waiters = lease->res->arb.num_waiters;
	args->deadline_ns = lease->asked ? ktime_to_ns(lease->deadline) : 0;
	mutex_unlock(&vdev->leases.lock);
	vdla_lease_put(lease);
	return 0;
}
