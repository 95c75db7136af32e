// SPDX-License-Identifier: GPL-2.0-only
/*
 * Leases: the life of a claim on a resource, from ACQUIRE to the hand-over
 * of the resource to the next waiter.
 *
 *  - A holder asked to release (a waiter of strictly higher priority came)
 *    gets a RELEASE_REQUESTED event and a deadline (its work). Releasing in
 *    time is a RELEASE: its jobs already submitted finish, none is
 *    cancelled.
 *  - At the deadline the lease is revoked: SUBMITs naming it fail from then
 *    on, and the context's queue is cut at the next frame boundary
 *    (vdla_sched_cut()). Inside a frame whose END job has not been
 *    submitted, the lease waits for it, for one more release timeout; then
 *    the frame is cut at the next job boundary (FRAME_OVERRUN).
 *  - Either way a partition changes hands once the last job that named
 *    the lease has ended (a callback on its fence): the lease's partition
 *    BOs lose their SRAM, the arbitration picks the next holder, which is
 *    told (its ACQUIRE returns, or a GRANTED event), and a revoked lease
 *    gets its REVOKED event.
 *  - An engine reservation (vdla_sched_reserve()) and a device-time share
 *    (vdla_sched_share_hold()) only order jobs: their revocation cuts
 *    nothing, and they change hands at once.
 *
 * Every event a lease can send is reserved on its file when it is created,
 * so that none is lost; a second release request after a withdrawn one is
 * the only event reserved later, and if no room is left it shows only in
 * LEASE_QUERY (the deadline still holds).
 */
#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <linux/slab.h>

#include "vdla_ctx.h"
#include "vdla_device.h"
#include "vdla_file.h"
#include "vdla_job.h"
#include "vdla_lease_core.h"
#include "vdla_sched.h"
#include "vdla_sram.h"
#include "vdla_sram_bo.h"
#include "vdla_trace.h"

static unsigned int lease_release_ms = 500;
module_param(lease_release_ms, uint, 0644);
MODULE_PARM_DESC(lease_release_ms,
		 "Time a lease asked to release has before it is revoked, unless its ACQUIRE chose one (ms, default 500)");

static unsigned int lease_age_passes = 4;
module_param(lease_age_passes, uint, 0644);
MODULE_PARM_DESC(lease_age_passes,
		 "A waiting lease rises one priority level per this many grants to others (0: no aging; default 4)");

/*
 * The leases' work queue, for every device: deadlines, revocation steps,
 * hand-overs. Not the scheduler's: those take the manager's lock, which
 * allocates and checks capabilities, and must not hold up the queue that
 * job fences depend on under memory pressure.
 */
static struct workqueue_struct *lease_wq;

static void lease_work_fn(struct work_struct *work);
static void handover_work_fn(struct work_struct *work);

int vdla_lease_module_init(void)
{
	lease_wq = alloc_workqueue("vdla-lease", 0, 0);
	return lease_wq ? 0 : -ENOMEM;
}

void vdla_lease_module_exit(void)
{
	/* Every file is closed: what is left are hand-overs and revocation steps, queued. */
	destroy_workqueue(lease_wq);
}

int vdla_lease_init(struct vdla_device *vdev)
{
	struct vdla_lease_mgr *mgr = &vdev->leases;

	INIT_LIST_HEAD(&mgr->leases);
	init_waitqueue_head(&mgr->granted);
	for (u32 i = 0; i < DRM_VDLA_MAX_SRAM_PARTITIONS; i++) {
		mgr->partitions[i].type = DRM_VDLA_RESOURCE_SRAM_PARTITION;
		mgr->partitions[i].index = i;
	}
	for (u32 i = 0; i < DRM_VDLA_NUM_ENGINES; i++) {
		mgr->engines[i].type = DRM_VDLA_RESOURCE_ENGINE;
		mgr->engines[i].index = i;
	}
	for (u32 i = 0; i < DRM_VDLA_MAX_TIME_SHARES; i++) {
		mgr->time_shares[i].type = DRM_VDLA_RESOURCE_TIME_SHARE;
		mgr->time_shares[i].index = i;
	}
	return drmm_mutex_init(&vdev->drm, &mgr->lock);
}

struct vdla_lease_resource *vdla_lease_resource(struct vdla_device *vdev, u32 type, u32 index)
{
	lockdep_assert_held(&vdev->leases.lock);
	/* Partitions and shares change only under the manager's lock, with no lease on them. */
	struct vdla_lease_resource *res;

	if (type == DRM_VDLA_RESOURCE_ENGINE && index < DRM_VDLA_NUM_ENGINES)
		res = &vdev->leases.engines[index];
	else if (type == DRM_VDLA_RESOURCE_SRAM_PARTITION &&
		 index < READ_ONCE(vdev->sram.num_parts))
		res = &vdev->leases.partitions[index];
	else if (type == DRM_VDLA_RESOURCE_TIME_SHARE &&
		 index < READ_ONCE(vdev->sched.shares.count))
		res = &vdev->leases.time_shares[index];
	else
		return NULL;
	res->arb.age_passes = READ_ONCE(lease_age_passes);
	return res;
}

/* ---- References -------------------------------------------------------- */

static void lease_release(struct kref *ref)
{
	struct vdla_lease *lease = container_of(ref, struct vdla_lease, ref);
	struct vdla_device *vdev = lease->vdev;

	/* Events never sent give their space back (or are freed, the file gone). */
	if (lease->ev_granted)
		drm_event_cancel_free(&vdev->drm, &lease->ev_granted->base);
	if (lease->ev_asked)
		drm_event_cancel_free(&vdev->drm, &lease->ev_asked->base);
	if (lease->ev_revoked)
		drm_event_cancel_free(&vdev->drm, &lease->ev_revoked->base);
	dma_fence_put(lease->last_fence);
	atomic_dec(&vdev->counters.leases);
	vdla_ctx_put(lease->ctx);
	kfree(lease);
	drm_dev_put(&vdev->drm);
}

void vdla_lease_put(struct vdla_lease *lease)
{
	if (lease)
		kref_put(&lease->ref, lease_release);
}

static void lease_release_under_lock(struct kref *ref)
{
	/* Freeing takes locks the caller may hold: a reference was miscounted. */
	WARN(1, "vdla: last reference of a lease dropped under the manager's lock\n");
}

void vdla_lease_put_locked(struct vdla_lease *lease)
{
	kref_put(&lease->ref, lease_release_under_lock);
}

struct vdla_lease *vdla_lease_lookup(struct vdla_file *vfile, u32 id)
{
	struct vdla_lease *lease;

	xa_lock(&vfile->leases);
	lease = xa_load(&vfile->leases, id);
	if (lease)
		kref_get(&lease->ref);
	xa_unlock(&vfile->leases);
	return lease;
}

/* The work runs at @delay_ns from now, holding a reference while pending. */
static void arm_work(struct vdla_lease *lease, u64 delay_ns)
{
	/* Rounded up: a work that came early would only come back. */
	unsigned long delay = delay_ns ? nsecs_to_jiffies(delay_ns) + 1 : 0;

	if (!mod_delayed_work(lease_wq, &lease->work, delay))
		kref_get(&lease->ref);
}

static void disarm_work(struct vdla_lease *lease)
{
	if (cancel_delayed_work(&lease->work))
		vdla_lease_put_locked(lease);
}

/* ---- Events ------------------------------------------------------------ */

static struct vdla_lease_event *reserve_event(struct vdla_device *vdev, struct drm_file *file)
{
	struct vdla_lease_event *e = kzalloc(sizeof(*e), GFP_KERNEL);

	if (!e)
		return NULL;
	e->ev.base.length = sizeof(e->ev);
	if (drm_event_reserve_init(&vdev->drm, file, &e->base, &e->ev.base)) {
		kfree(e);
		return NULL;
	}
	return e;
}

void vdla_lease_drop_events(struct vdla_lease *lease)
{
	struct vdla_lease_event **slots[] = { &lease->ev_granted, &lease->ev_asked,
					       &lease->ev_revoked };

	for (u32 i = 0; i < ARRAY_SIZE(slots); i++) {
		if (*slots[i])
			drm_event_cancel_free(&lease->vdev->drm, &(*slots[i])->base);
		*slots[i] = NULL;
	}
}

static void send_event(struct vdla_lease *lease, struct vdla_lease_event **slot, u32 type,
		       u32 reason, u32 priority)
{
	struct vdla_lease_event *e = *slot;

	if (!e && lease->file)
		e = reserve_event(lease->vdev, lease->file);
	if (!e)
		return;
	*slot = NULL;
	e->ev.base.type = type;
	e->ev.user_data = lease->user_data;
	e->ev.lease_id = lease->id;
	e->ev.ctx_id = lease->ctx->id;
	e->ev.resource = lease->res->type;
	e->ev.index = lease->res->index;
	e->ev.reason = reason;
	e->ev.priority = priority;
	e->ev.deadline_ns = ktime_to_ns(lease->deadline);
	e->ev.timestamp_ns = ktime_get_ns();
	drm_send_event(&lease->vdev->drm, &e->base);
}

/* ---- Creation ---------------------------------------------------------- */

struct vdla_lease *vdla_lease_create(struct drm_file *file, struct vdla_ctx *ctx,
				     struct vdla_lease_resource *res,
				     const struct drm_vdla_lease_acquire *args)
{
	struct vdla_device *vdev = ctx->vdev;
	struct vdla_lease *lease = kzalloc(sizeof(*lease), GFP_KERNEL);

	if (!lease)
		return ERR_PTR(-ENOMEM);
	kref_init(&lease->ref);
	drm_dev_get(&vdev->drm);
	lease->vdev = vdev;
	vdla_ctx_get(ctx);
	lease->ctx = ctx;
	lease->vfile = ctx->file;
	lease->file = file;
	lease->res = res;
	lease->arb.priority = args->priority;
	lease->arb.no_preempt = args->flags & DRM_VDLA_LEASE_ACQUIRE_NO_PREEMPT;
	lease->group = args->group;
	lease->user_data = args->user_data;
	lease->release_timeout_ns = args->release_timeout_ns ?:
				    (u64)READ_ONCE(lease_release_ms) * NSEC_PER_MSEC;
	lease->pid = task_tgid_nr(current);
	lease->created = ktime_get();
	INIT_LIST_HEAD(&lease->mgr_link);
	INIT_LIST_HEAD(&lease->frame_link);
	INIT_LIST_HEAD(&lease->bos);
	INIT_DELAYED_WORK(&lease->work, lease_work_fn);
	INIT_WORK(&lease->handover_work, handover_work_fn);
	atomic_inc(&vdev->counters.leases);

	lease->ev_granted = reserve_event(vdev, file);
	lease->ev_asked = reserve_event(vdev, file);
	lease->ev_revoked = reserve_event(vdev, file);
	if (!lease->ev_granted || !lease->ev_asked || !lease->ev_revoked) {
		drm_dbg(&vdev->drm, "LEASE_ACQUIRE: no room left for the lease's events\n");
		vdla_lease_put(lease);
		return ERR_PTR(-EAGAIN);
	}
	return lease;
}

/* ---- Grants and release requests --------------------------------------- */

void vdla_lease_granted(struct vdla_lease *lease)
{
	struct vdla_device *vdev = lease->vdev;

	lockdep_assert_held(&vdev->leases.lock);
	mutex_lock(&lease->ctx->submit_lock);
	lease->submittable = true;
	mutex_unlock(&lease->ctx->submit_lock);
	if (lease->res->type == DRM_VDLA_RESOURCE_ENGINE)
		vdla_sched_reserve(lease->ctx, 1);
	else if (lease->res->type == DRM_VDLA_RESOURCE_TIME_SHARE)
		WRITE_ONCE(lease->share_grant,
			   vdla_sched_share_hold(vdev, lease->res->index, lease->ctx));
	lease->res->grants++;
	trace_vdla_lease_grant(lease);
	if (lease->notify_grant)
		send_event(lease, &lease->ev_granted, DRM_VDLA_EVENT_LEASE_GRANTED, 0, 0);
	wake_up_all(&vdev->leases.granted);
}

/* The highest priority of the claims waiting on @res that outrank its holder. */
static u32 asking_priority(struct vdla_lease_resource *res)
{
	struct vdla_arb_lease *w;
	u32 top = 0;

	for (w = res->arb.waiters; w; w = w->next)
		if (!w->no_preempt)
			top = max(top, w->priority);
	return top;
}

static void withdraw_ask(struct vdla_lease *lease)
{
	lease->asked = false;
	lease->deadline = 0;
	disarm_work(lease);
}

static bool same_group(const struct vdla_lease *a, const struct vdla_lease *b)
{
	return a != b && a->group && a->vfile == b->vfile && a->group == b->group;
}

/*
 * @lease's own request was withdrawn: so are the requests its group's
 * leases got because of it, unless another of them is still asked for
 * itself.
 */
static void withdraw_group_asks(struct vdla_lease *lease)
{
	struct list_head *leases = &lease->vdev->leases.leases;
	struct vdla_lease *other;

	if (!lease->group)
		return;
	list_for_each_entry(other, leases, mgr_link) {
		if (same_group(other, lease) && other->asked && !other->ending &&
		    other->ask_reason == DRM_VDLA_LEASE_REASON_PREEMPTED)
			return;
	}
	list_for_each_entry(other, leases, mgr_link) {
		if (same_group(other, lease) && other->asked && !other->ending &&
		    other->ask_reason == DRM_VDLA_LEASE_REASON_GROUP)
			withdraw_ask(other);
	}
}

static void ask(struct vdla_lease *lease, u32 reason, u32 priority)
{
	struct vdla_lease *other;

	if (lease->asked || lease->ending || lease->arb.state != VDLA_ARB_HELD)
		return;
	lease->asked = true;
	lease->ask_reason = reason;
	lease->deadline = ktime_add_ns(ktime_get(), lease->release_timeout_ns);
	arm_work(lease, lease->release_timeout_ns);
	trace_vdla_lease_release_request(lease);
	send_event(lease, &lease->ev_asked, DRM_VDLA_EVENT_LEASE_RELEASE_REQUESTED, reason,
		   priority);
	/* OpenMAX's priority groups: the group loses together. */
	if (!lease->group)
		return;
	list_for_each_entry(other, &lease->vdev->leases.leases, mgr_link) {
		if (same_group(other, lease))
			ask(other, DRM_VDLA_LEASE_REASON_GROUP, priority);
	}
}

void vdla_lease_sync_holder(struct vdla_lease_resource *res)
{
	struct vdla_lease *holder = lease_of(res->arb.holder);

	if (!holder || holder->ending)
		return;
	if (holder->arb.release_requested) {
		ask(holder, DRM_VDLA_LEASE_REASON_PREEMPTED, asking_priority(res));
	} else if (holder->asked && holder->ask_reason == DRM_VDLA_LEASE_REASON_PREEMPTED) {
		/* The claim that asked left the queue: the request is withdrawn. */
		withdraw_ask(holder);
		withdraw_group_asks(holder);
	}
}

void vdla_lease_withdraw(struct vdla_lease *lease)
{
	lockdep_assert_held(&lease->vdev->leases.lock);
	vdla_arb_release(&lease->arb);
	list_del_init(&lease->mgr_link);
	vdla_lease_sync_holder(lease->res);
}

/* ---- Ending a held lease ----------------------------------------------- */

/* The lease's partition BOs lose their SRAM: it is the next holder's, zeroed. */
static void evict_bos(struct vdla_lease *lease)
{
	struct vdla_sram_bo *sbo, *next;

	list_for_each_entry_safe(sbo, next, &lease->bos, lease_link) {
		list_del_init(&sbo->lease_link);
		WRITE_ONCE(sbo->lease, NULL);
		if (drm_mm_node_allocated(&sbo->node))
			vdla_sram_free(lease->vdev, &sbo->node);
	}
}

/* The last job that named the lease has ended: the resource goes on. */
static void handover(struct vdla_lease *lease)
{
	struct vdla_lease_resource *res = lease->res;
	struct vdla_lease *next;

	lockdep_assert_held(&lease->vdev->leases.lock);
	/* Nothing is left for its work to do. */
	disarm_work(lease);
	evict_bos(lease);
	if (res->type == DRM_VDLA_RESOURCE_ENGINE)
		vdla_sched_reserve(lease->ctx, -1);
	else if (res->type == DRM_VDLA_RESOURCE_TIME_SHARE)
		vdla_sched_share_hold(lease->vdev, res->index, NULL);
	next = lease_of(vdla_arb_release(&lease->arb));
	list_del_init(&lease->mgr_link);
	if (lease->revoked)
		send_event(lease, &lease->ev_revoked, DRM_VDLA_EVENT_LEASE_REVOKED,
			   lease->revoke_reason, 0);
	/* Nothing else comes to it: the space of its other events goes back. */
	vdla_lease_drop_events(lease);
	if (next)
		vdla_lease_granted(next);
	vdla_lease_sync_holder(res);
}

static void handover_work_fn(struct work_struct *work)
{
	struct vdla_lease *lease = container_of(work, struct vdla_lease, handover_work);
	struct vdla_lease_mgr *mgr = &lease->vdev->leases;

	mutex_lock(&mgr->lock);
	handover(lease);
	mutex_unlock(&mgr->lock);
	vdla_lease_put(lease);
}

static void handover_signalled(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct vdla_lease *lease = container_of(cb, struct vdla_lease, handover_cb);

	queue_work(lease_wq, &lease->handover_work);
}

/*
 * SUBMITs naming the lease are refused from now; the resource changes
 * hands once the last job that named it has ended. Under the manager's
 * lock and the context's submit_lock, which this drops.
 */
static void start_handover(struct vdla_lease *lease)
{
	struct vdla_sram_bo *sbo;
	struct dma_fence *last;

	lockdep_assert_held(&lease->ctx->submit_lock);
	lease->handover_started = true;
	lease->submittable = false;
	lease->frame_wait = false;
	list_del_init(&lease->frame_link);
	/* Its BOs are refused from now, whichever context names them. */
	list_for_each_entry(sbo, &lease->bos, lease_link)
		WRITE_ONCE(sbo->lost, true);
	last = lease->last_fence;
	lease->last_fence = NULL;
	mutex_unlock(&lease->ctx->submit_lock);

	/* Nothing left to wait for (a release between frames, a closed file): at once. */
	if (!last || dma_fence_is_signaled(last)) {
		handover(lease);
	} else {
		kref_get(&lease->ref);
		if (dma_fence_add_callback(last, &lease->handover_cb, handover_signalled))
			queue_work(lease_wq, &lease->handover_work);
	}
	dma_fence_put(last);
}

void vdla_lease_end(struct vdla_lease *lease, bool revoke)
{
	struct vdla_ctx *ctx = lease->ctx;

	lockdep_assert_held(&lease->vdev->leases.lock);
	if (lease->ending || lease->arb.state != VDLA_ARB_HELD)
		return;
	lease->ending = true;
	/*
	 * A release cancels nothing, also after a request: its deadline goes.
	 * Cutting the context's queue then would cancel the jobs of its other
	 * leases too, and punish a holder that released in time; the
	 * preempting claim's own timeout bounds its wait instead.
	 */
	disarm_work(lease);
	mutex_lock(&ctx->submit_lock);
	if (revoke) {
		lease->revoked = true;
		lease->revoke_reason = lease->ask_reason;
		trace_vdla_lease_revoke(lease);
		/*
		 * A reservation or a share only orders the jobs: taking
		 * it cancels nothing. What a partition's jobs would touch goes to the
		 * next holder, so they are cut at the frame boundary.
		 */
		if (lease->res->type == DRM_VDLA_RESOURCE_SRAM_PARTITION &&
		    vdla_sched_cut(ctx, false)) {
			/* Inside a frame: its END job is awaited, for one more release timeout. */
			lease->frame_wait = true;
			list_add_tail(&lease->frame_link, &ctx->frame_wait_leases);
			arm_work(lease, lease->release_timeout_ns);
			mutex_unlock(&ctx->submit_lock);
			return;
		}
	} else {
		trace_vdla_lease_release(lease);
	}
	start_handover(lease);
}

void vdla_lease_end_for_good(struct vdla_lease *lease)
{
	if (lease->arb.state == VDLA_ARB_WAITING)
		vdla_lease_withdraw(lease);
	else if (!lease->ending)
		vdla_lease_end(lease, false);
	else if (lease->revoked && !lease->handover_started)
		arm_work(lease, 0);
}

u32 vdla_lease_state(const struct vdla_lease *lease)
{
	if (lease->revoked)
		return DRM_VDLA_LEASE_STATE_REVOKED;
	if (lease->arb.state == VDLA_ARB_WAITING)
		return DRM_VDLA_LEASE_STATE_WAITING;
	return DRM_VDLA_LEASE_STATE_HELD;
}

/* Whether the deadline of @lease's release request has come; if not, the work comes back then. */
static bool deadline_passed(struct vdla_lease *lease)
{
	s64 left = ktime_to_ns(ktime_sub(lease->deadline, ktime_get()));

	if (left <= 0)
		return true;
	arm_work(lease, left);
	return false;
}

/*
 * The work of a lease: its release deadline passed (it is revoked), or a
 * revocation waiting for its frame's end goes on (the END came, the frame
 * overran, or the file is closing).
 */
static void lease_work_fn(struct work_struct *work)
{
	struct vdla_lease *lease = container_of(to_delayed_work(work), struct vdla_lease, work);
	struct vdla_lease_mgr *mgr = &lease->vdev->leases;
	struct vdla_ctx *ctx = lease->ctx;

	mutex_lock(&mgr->lock);
	if (!lease->ending) {
		/* A request withdrawn and made again meanwhile has a later deadline. */
		if (lease->asked && deadline_passed(lease))
			vdla_lease_end(lease, true);
	} else if (lease->revoked && !lease->handover_started) {
		mutex_lock(&ctx->submit_lock);
		if (lease->frame_wait) {
			/* The frame did not end in time: cut at the next job boundary. */
			lease->revoke_reason = DRM_VDLA_LEASE_REASON_FRAME_OVERRUN;
			vdla_sched_cut(ctx, true);
		}
		start_handover(lease);
	}
	mutex_unlock(&mgr->lock);
	vdla_lease_put(lease);
}

/* ---- SUBMIT ------------------------------------------------------------ */

int vdla_lease_check_job(struct vdla_lease *lease, const struct vdla_job *job)
{
	lockdep_assert_held(&job->ctx->submit_lock);
	if (lease && !lease->submittable) {
		drm_dbg(&job->vdev->drm, "SUBMIT: lease %u is not held\n", lease->id);
		return -ECANCELED;
	}
	for (u32 i = 0; i < job->bo_count; i++) {
		struct drm_gem_object *obj = job->bos[i];
		struct vdla_sram_bo *sbo;

		if (!vdla_sram_bo_partitioned(obj))
			continue;
		sbo = to_vdla_sram_bo(obj);
		if (READ_ONCE(sbo->lost)) {
			drm_dbg(&job->vdev->drm, "SUBMIT: an SRAM BO whose lease ended\n");
			return -ECANCELED;
		}
		if (!lease || READ_ONCE(sbo->lease) != lease) {
			drm_dbg(&job->vdev->drm,
				"SUBMIT: an SRAM partition BO without naming the lease it was made under\n");
			return -EACCES;
		}
	}
	return 0;
}

int vdla_lease_join_share(struct vdla_lease *lease, struct vdla_ctx *ctx)
{
	u64 grant = READ_ONCE(lease->share_grant);

	lockdep_assert_held(&ctx->submit_lock);
	/* Not granted yet: no grant has number 0. */
	if (!grant)
		return -ECANCELED;
	return vdla_sched_share_join(ctx, lease->res->index, grant);
}

void vdla_lease_job_submitted(struct vdla_lease *lease, struct vdla_job *job, u32 submit_flags)
{
	struct vdla_lease *waiting, *next;

	lockdep_assert_held(&job->ctx->submit_lock);
	/* Only a partition's jobs hold its hand-over back: they use its SRAM. */
	if (lease && lease->res->type == DRM_VDLA_RESOURCE_SRAM_PARTITION) {
		dma_fence_put(lease->last_fence);
		lease->last_fence = dma_fence_get(job->done);
	}
	if (!(submit_flags & DRM_VDLA_SUBMIT_FRAME_END))
		return;
	/*
	 * The END of the frame the context's revocations wait for, whichever
	 * lease it names: the cut comes after it (vdla_sched_submit()), and
	 * nothing after it may name those leases.
	 */
	list_for_each_entry_safe(waiting, next, &job->ctx->frame_wait_leases, frame_link) {
		list_del_init(&waiting->frame_link);
		waiting->frame_wait = false;
		waiting->submittable = false;
		arm_work(waiting, 0);
	}
}

/* ---- SRAM partition BOs ------------------------------------------------ */

struct drm_gem_object *vdla_lease_sram_bo_create(struct drm_device *drm, struct vdla_file *vfile,
						 u32 lease_id, size_t size)
{
	struct vdla_device *vdev = to_vdla_device(drm);
	struct vdla_lease *lease = vdla_lease_lookup(vfile, lease_id);
	struct drm_gem_object *obj;
	struct vdla_sram_bo *sbo;
	int part;

	if (!lease) {
		drm_dbg(drm, "BO_CREATE: no lease %u of the caller\n", lease_id);
		return ERR_PTR(-ENOENT);
	}
	if (lease->res->type != DRM_VDLA_RESOURCE_SRAM_PARTITION) {
		vdla_lease_put(lease);
		return ERR_PTR(-EINVAL);
	}
	part = lease->res->index;
	/*
	 * Made outside the lock (making it may wait for ended jobs to be
	 * freed, which frees BOs), then tied to the lease if it still holds
	 * the partition; if not, the BO goes, and its SRAM with it.
	 */
	mutex_lock(&vdev->leases.lock);
	if (lease->arb.state != VDLA_ARB_HELD || lease->ending) {
		mutex_unlock(&vdev->leases.lock);
		vdla_lease_put(lease);
		return ERR_PTR(-ECANCELED);
	}
	mutex_unlock(&vdev->leases.lock);
	obj = vdla_sram_bo_create(drm, size, part);
	if (IS_ERR(obj)) {
		vdla_lease_put(lease);
		return obj;
	}
	sbo = to_vdla_sram_bo(obj);
	sbo->partitioned = true;
	mutex_lock(&vdev->leases.lock);
	if (lease->arb.state == VDLA_ARB_HELD && !lease->ending) {
		sbo->lease = lease;
		list_add_tail(&sbo->lease_link, &lease->bos);
	} else {
		sbo->lost = true;
	}
	mutex_unlock(&vdev->leases.lock);
	vdla_lease_put(lease);
	if (sbo->lost) {
		drm_gem_object_put(obj);
		return ERR_PTR(-ECANCELED);
	}
	return obj;
}

void vdla_lease_sram_bo_freed(struct drm_gem_object *obj)
{
	struct vdla_sram_bo *sbo = to_vdla_sram_bo(obj);
	struct vdla_device *vdev = to_vdla_device(obj->dev);

	mutex_lock(&vdev->leases.lock);
	list_del_init(&sbo->lease_link);
	sbo->lease = NULL;
	mutex_unlock(&vdev->leases.lock);
}

/* ---- Contexts and files going ------------------------------------------ */

static void forget_leases(struct vdla_file *vfile, struct vdla_ctx *ctx)
{
	struct vdla_lease_mgr *mgr = &vfile->vdev->leases;
	struct vdla_lease *gone[DRM_VDLA_MAX_LEASES_PER_FILE], *lease;
	unsigned long id;
	u32 count = 0;

	mutex_lock(&mgr->lock);
	xa_for_each(&vfile->leases, id, lease) {
		if (ctx && lease->ctx != ctx)
			continue;
		if (!ctx) {
			/* The file is closing: its events can be neither reserved nor read. */
			vdla_lease_drop_events(lease);
			lease->file = NULL;
		}
		vdla_lease_end_for_good(lease);
		xa_erase(&vfile->leases, id);
		vfile->num_leases--;
		gone[count++] = lease;
	}
	mutex_unlock(&mgr->lock);
	/* The table's references, out of the lock. */
	while (count)
		vdla_lease_put(gone[--count]);
}

void vdla_lease_ctx_destroyed(struct vdla_ctx *ctx)
{
	forget_leases(ctx->file, ctx);
}

void vdla_lease_file_close(struct vdla_file *vfile)
{
	forget_leases(vfile, NULL);
}

void vdla_lease_file_closing(struct vdla_file *vfile)
{
	struct vdla_lease_mgr *mgr = &vfile->vdev->leases;
	struct vdla_lease *lease;
	unsigned long id;

	/*
	 * Before the DRM core releases the file's events: none may be
	 * reserved on it after that (it would outlive the file).
	 */
	mutex_lock(&mgr->lock);
	xa_for_each(&vfile->leases, id, lease) {
		vdla_lease_drop_events(lease);
		lease->file = NULL;
	}
	mutex_unlock(&mgr->lock);
}
