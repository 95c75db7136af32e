// SPDX-License-Identifier: GPL-2.0-only
/*
 * The scheduler. A job SUBMIT queued waits in its context's waiting list
 * until its dependencies have signalled (vdla_deps.c) and every older job of
 * its context has left the list; it then enters the ready list of its
 * priority. A job with nothing to wait for goes straight to the ready list
 * and, if the device is idle, starts within SUBMIT itself. The dispatcher
 * runs one task at a time through the firmware core:
 *
 *  - a job of a context whose device-time share has credit left in the
 *    period goes first, then one of a context holding an engine
 *    reservation (reserved_next()); either stops a running job that has
 *    neither at its next operation boundary, and nothing stops a running
 *    job of a share with credit;
 *  - otherwise it starts a ready job of the highest priority, the files with ready
 *    jobs of that priority taking turns (fairest()), except that a ready
 *    job that has waited more than starvation_ms goes first whatever its
 *    priority, and is then not preempted for starvation_ms, so that low
 *    priority is delayed, never starved, and high priority waits at most
 *    that long for it;
 *  - when a job of higher priority than the running one becomes ready, it
 *    asks the firmware to stop the running task at the next operation
 *    boundary; the stopped job goes back to the head of its ready list and
 *    later resumes where it stopped (dla_switch_task, dla_resume_task);
 *  - a watchdog ends a job whose device time exceeds job_timeout_ms: the
 *    firmware aborts it (a device reset), the context is banned, the next
 *    job starts;
 *  - an MMU fault or an operation error fails the job (the firmware resets
 *    the device) and bans its context.
 *
 * Jobs of one context go through the waiting list, the ready list and the
 * device in submission order, and their fences, which share the context's
 * timeline, signal in that order, also when they are cancelled.
 *
 * Locking: vdev->fw_lock protects the firmware engine, the waiting and
 * ready lists, the running job, the counters and the MMU slot bindings.
 * Nothing under it allocates memory or drops the last reference of a job,
 * context, mapping or address space: ended jobs are freed by the module's
 * work queue (free_work), which also moves on jobs whose dependency
 * signalled (wake_work), since fence callbacks cannot take fw_lock.
 */
#include <drm/drm_drv.h>
#include <drm/drm_print.h>
#include <linux/llist.h>
#include <linux/module.h>

#include "vdla_ctx.h"
#include "vdla_deps.h"
#include "vdla_device.h"
#include "vdla_file.h"
#include "vdla_job.h"
#include "vdla_mmu.h"
#include "vdla_sched.h"
#include "vdla_trace.h"

static unsigned int job_timeout_ms = 5000;
module_param(job_timeout_ms, uint, 0644);
MODULE_PARM_DESC(job_timeout_ms, "Device time a job may use before it is aborted (ms, default 5000)");

static unsigned int starvation_ms = 100;
module_param(starvation_ms, uint, 0644);
MODULE_PARM_DESC(starvation_ms,
		 "A ready job waiting this long runs next whatever its priority, for at least as long (ms, default 100)");

static bool preempt = true;
module_param(preempt, bool, 0644);
MODULE_PARM_DESC(preempt, "Stop a running job at an operation boundary for a higher-priority one");

/*
 * The module's work queue: jobs woken by a dependency, watchdogs. Ended
 * jobs are freed on the unbound system queue, on whichever CPU is free.
 * Both serve every device, so that a device's release (which the last job
 * freed may cause) never waits for its own work; the module's exit drains
 * them.
 */
static struct workqueue_struct *vdla_wq;
static LLIST_HEAD(woken_jobs);
static LLIST_HEAD(ended_jobs);

static void wake_work_fn(struct work_struct *work);
static void free_work_fn(struct work_struct *work);
static DECLARE_WORK(wake_work, wake_work_fn);
static DECLARE_WORK(free_work, free_work_fn);

static struct vdla_sched *sched_of(struct vdla_device *vdev)
{
	return &vdev->sched;
}

/* ---- Ending jobs ------------------------------------------------------- */

/*
 * The job's fence is signalled: it goes to the free work, unless its
 * dependency callback ran and the wake work has it still (dep_armed): that
 * work frees it then. A job that ends within its own SUBMIT is freed by that
 * SUBMIT once it has let go of its locks, which saves a worker's wake-up
 * per job; others that end meanwhile go to the free work, which
 * vdla_sched_reap() can wait for.
 */
static void release_ended(struct vdla_job *job)
{
	struct vdla_sched *s = sched_of(job->vdev);

	if (job->dep_armed)
		return;
	if (s->submitting == job) {
		s->submitted_ended = true;
		return;
	}
	if (llist_add(&job->free_node, &ended_jobs))
		queue_work(system_unbound_wq, &free_work);
}

static void signal_job(struct vdla_device *vdev, struct vdla_job *job, int error)
{
	struct vdla_sched_stats *stats = &sched_of(vdev)->stats;
	struct vdla_ctx *ctx = job->ctx;
	struct dma_fence *fence;

	if (job->state == VDLA_JOB_READY || job->state == VDLA_JOB_RUNNING)
		ctx->active--;
	ctx->ended_seqno = job->seqno;
	/* The job a lease's cut waits for ended: the caller cuts, or its successors end too. */
	if (ctx->cut_after && job->seqno >= ctx->cut_after)
		ctx->cut_after = 0;
	if (job->cancel_error && job->state == VDLA_JOB_READY)
		ctx->cancelled--;
	if (error) {
		dma_fence_set_error(job->done, error);
		ctx->jobs_failed++;
		/* The jobs a ban cancels keep the cause of the ban on record. */
		if (!(ctx->banned && (error == -ECANCELED || error == -ESRCH)))
			ctx->last_error = error;
		stats->jobs_failed++;
	} else {
		ctx->jobs_completed++;
		stats->jobs_completed++;
	}
	trace_vdla_job_done(job, error);
	job->state = VDLA_JOB_ENDED;
	atomic_inc(&vdev->counters.ended_jobs);
	/*
	 * To the free work before the fence signals: whoever waited for the
	 * fence and then needs what the job holds (SRAM, vdla_sched_reap())
	 * finds it on its way. The job may be gone after release_ended().
	 */
	fence = dma_fence_get(job->done);
	release_ended(job);
	dma_fence_signal(fence);
	dma_fence_put(fence);
}

static void unqueue(struct vdla_sched *s, struct vdla_job *job)
{
	list_del_init(&job->link);
	s->queued--;
}

/* Moves the ready jobs @match selects to @out, in queue order. */
static void take_queued(struct vdla_device *vdev,
			bool (*match)(const struct vdla_job *job, const void *what),
			const void *what, struct list_head *out)
{
	struct vdla_sched *s = sched_of(vdev);
	struct vdla_job *job, *next;

	for (int p = 0; p < DRM_VDLA_PRIORITIES; p++) {
		list_for_each_entry_safe(job, next, &s->ready[p], link) {
			if (match(job, what)) {
				unqueue(s, job);
				list_add_tail(&job->link, out);
			}
		}
	}
}

/*
 * Ends every job of @jobs with @error, or with the error it was cancelled
 * with before (that cause comes first).
 */
static void signal_list(struct vdla_device *vdev, struct list_head *jobs, int error)
{
	struct vdla_job *job, *next;

	list_for_each_entry_safe(job, next, jobs, link) {
		list_del_init(&job->link);
		signal_job(vdev, job, job->cancel_error ?: error);
	}
}

static bool job_of_ctx(const struct vdla_job *job, const void *ctx)
{
	return job->ctx == ctx;
}

/* A job of @ctx that a cut cancels: all of them, or those up to the cut's limit. */
static bool job_to_cut(const struct vdla_job *job, const void *ctx)
{
	const struct vdla_ctx *c = ctx;

	return job->ctx == c && (!c->cut_limit || job->seqno <= c->cut_limit);
}

static bool job_of_file(const struct vdla_job *job, const void *file)
{
	return job->file == file;
}

static bool any_job(const struct vdla_job *job, const void *unused)
{
	return true;
}

static void make_ready(struct vdla_device *vdev, struct vdla_job *job);
static void cancel_waiting(struct vdla_device *vdev, struct vdla_ctx *ctx, int error);
static void cancel_waiting_upto(struct vdla_device *vdev, struct vdla_ctx *ctx, int error,
				u64 upto);

/* Whether @job is the one a lease's cut of its context waits for (vdla_sched_cut()). */
static bool cut_due(const struct vdla_job *job)
{
	return job->ctx->cut_after && job->seqno >= job->ctx->cut_after;
}

/*
 * A lease of @ctx is revoked and no job of the context has started that
 * must finish first: every job of the context that has not started ends
 * with ECANCELED, in order.
 */
static void cut(struct vdla_device *vdev, struct vdla_ctx *ctx)
{
	LIST_HEAD(cancelled);

	ctx->cut_after = 0;
	take_queued(vdev, job_to_cut, ctx, &cancelled);
	signal_list(vdev, &cancelled, -ECANCELED);
	cancel_waiting_upto(vdev, ctx, -ECANCELED, ctx->cut_limit ?: U64_MAX);
	ctx->cut_limit = 0;
}

/*
 * Ends the jobs of @ctx's waiting list with @error. Those behind an older
 * job of the context that has not ended (ctx->active) go through the ready
 * list with the error recorded, so that they end after it.
 */
static void cancel_waiting(struct vdla_device *vdev, struct vdla_ctx *ctx, int error)
{
	cancel_waiting_upto(vdev, ctx, error, U64_MAX);
}

/* cancel_waiting() of the jobs up to seqno @upto (the list is in submission order). */
static void cancel_waiting_upto(struct vdla_device *vdev, struct vdla_ctx *ctx, int error,
				u64 upto)
{
	struct vdla_sched *s = sched_of(vdev);
	struct vdla_job *job, *next;

	list_for_each_entry_safe(job, next, &ctx->waiting, link) {
		if (job->seqno > upto)
			break;
		list_del_init(&job->link);
		s->waiting--;
		vdla_deps_disarm(job);
		if (ctx->active) {
			job->cancel_error = error;
			ctx->cancelled++;
			make_ready(vdev, job);
		} else {
			signal_job(vdev, job, error);
		}
	}
	wake_up_all(&s->drained);
}

/* Charges the running job's device time since the last charge to its context's share. */
static void charge_share(struct vdla_sched *s, const struct vdla_job *job, ktime_t now)
{
	struct vdla_shares *sh = &s->shares;

	vdla_shares_charge(sh, job->ctx, ktime_to_ns(ktime_sub(now, sh->charged_at)));
	sh->charged_at = now;
}

/*
 * Brings the shares up to date at @now: a new period begun if the last one
 * is over, and @running (the running job, or the one just ended or
 * stopped; NULL for none) charged.
 */
static void charge_shares(struct vdla_sched *s, const struct vdla_job *running, ktime_t now)
{
	struct vdla_shares *sh = &s->shares;

	if (!sh->held)
		return;
	if (vdla_shares_period_over(sh, now)) {
		ktime_t start;

		/* The running job's time up to the period's end goes to that period. */
		if (running && ktime_after(sh->period_end, sh->charged_at))
			charge_share(s, running, sh->period_end);
		vdla_shares_new_period(sh, now);
		/* Periods that went by unnoticed (no job ran) are charged nothing. */
		start = ktime_sub_ns(sh->period_end, sh->period_ns);
		if (ktime_before(sh->charged_at, start))
			sh->charged_at = start;
	}
	if (running)
		charge_share(s, running, now);
}

/* charge_shares() for the running job, now; nothing to read while no share is held. */
static void update_shares(struct vdla_sched *s)
{
	if (s->shares.held)
		charge_shares(s, s->running, ktime_get());
}

/* Whether @ctx's jobs go first now: its share has credit left in the period. */
static bool has_credit(struct vdla_sched *s, const struct vdla_ctx *ctx)
{
	struct vdla_share *share = vdla_share_of(&s->shares, ctx);

	return share && vdla_share_credit(&s->shares, share) > 0;
}

static void account(struct vdla_job *job)
{
	ktime_t now = ktime_get();
	u64 ns = ktime_to_ns(ktime_sub(now, job->start_time));

	charge_shares(sched_of(job->vdev), job, now);
	job->run_ns += ns;
	job->ctx->busy_ns += ns;
	spin_lock(&job->file->busy_lock);
	job->file->busy_ns += ns;
	job->file->running_since = 0;
	spin_unlock(&job->file->busy_lock);
}

/*
 * DRM_VDLA_SUBMIT_OP_STATS: copies what the firmware recorded of each
 * operation to the BO SUBMIT mapped, before the fence signals. The state
 * area keeps the records across preemptions, and each operation runs once.
 * An operation the firmware did not record as completed is reported as
 * zeros (the job then failed, and nothing is written).
 */
static void write_op_stats(struct vdla_device *vdev, struct vdla_job *job)
{
	u8 *dst = job->op_stats;

	for (u32 i = 0; i < job->num_ops; i++, dst += sizeof(struct drm_vdla_op_stats)) {
		struct drm_vdla_op_stats out = {};
		struct dla_op_stats st;

		if (dla_op_statistics(vdev->fw_engine, i, &st) == DLA_SUCCESS && st.completed) {
			out.device_ns = st.device_ns;
			out.macs = st.macs;
			out.bytes_read = st.bytes_read;
			out.bytes_written = st.bytes_written;
		}
		memcpy(dst, &out, sizeof(out));
	}
}

/*
 * The running job ended with @error; the firmware's task is forgotten. A
 * fault or a hang bans the context: later submits fail and its queued and
 * waiting jobs are cancelled, after the job itself so that the context's
 * fences signal in order. Once its fence is signalled the free work may
 * free the job (and with it the last reference to the context): nothing
 * touches them after.
 */
static void finish(struct vdla_device *vdev, struct vdla_job *job, int error)
{
	struct vdla_ctx *ctx = job->ctx;
	LIST_HEAD(cancelled);
	bool ban = error == -EFAULT || error == -EIO || error == -ETIMEDOUT;
	bool cut_now = cut_due(job);

	sched_of(vdev)->running = NULL;
	account(job);
	if (!error && job->op_stats)
		write_op_stats(vdev, job);
	dla_clear_task(vdev->fw_engine);
	if (ban) {
		WRITE_ONCE(ctx->banned, true);
		take_queued(vdev, job_of_ctx, ctx, &cancelled);
	}
	signal_job(vdev, job, error);
	/*
	 * The job may be freed from here on, and its reference to the
	 * context with it, but a context leaves the device's list under
	 * fw_lock before it is freed (vdla_sched_remove_ctx): it is still
	 * there.
	 */
	if (ban) {
		signal_list(vdev, &cancelled, -ECANCELED);
		cancel_waiting(vdev, ctx, -ECANCELED);
	} else if (cut_now) {
		/* The frame boundary a lease's revocation waited for. */
		cut(vdev, ctx);
	} else if (ctx->cancelled && ctx->active == ctx->cancelled) {
		/* Only jobs cancelled behind this one are left: they end now, in order. */
		take_queued(vdev, job_of_ctx, ctx, &cancelled);
		signal_list(vdev, &cancelled, -ECANCELED);
	}
}

/* After a device reset: the MMU slots are re-programmed. */
static void device_was_reset(struct vdla_device *vdev)
{
	sched_of(vdev)->stats.resets++;
	vdla_mmu_restore(vdev);
}

static void hardware_failed(struct vdla_device *vdev, struct vdla_job *job,
			    const struct dla_task_result *r)
{
	struct vdla_sched_stats *stats = &sched_of(vdev)->stats;
	struct vdla_ctx *ctx = job->ctx;
	int error = -EIO;

	ctx->hw_error = r->hw_error;
	ctx->error_op = r->hw_op;
	if (r->status == DLA_ERR_HARDWARE && r->hw_error == VDLA_ERROR_MMU_FAULT) {
		error = -EFAULT;
		ctx->fault_status = r->fault_status;
		ctx->fault_addr = r->fault_addr;
		stats->mmu_faults++;
		trace_vdla_job_fault(job, r->fault_addr, r->fault_status);
	} else {
		stats->op_errors++;
	}
	drm_dbg(&vdev->drm, "context %u job %llu failed: op %u, device error %u\n", ctx->id,
		job->seqno, r->hw_op, r->hw_error);
	/* The firmware reset the device to stop the other engines. */
	device_was_reset(vdev);
	finish(vdev, job, error);
}

/* The firmware says the running task ended: completed, stopped or failed. */
static void task_ended(struct vdla_device *vdev)
{
	struct vdla_sched *s = sched_of(vdev);
	struct vdla_job *job = s->running;
	struct dla_task_result r;

	dla_get_task_result(vdev->fw_engine, &r);
	switch (r.state) {
	case DLA_TASK_COMPLETED:
		finish(vdev, job, 0);
		break;
	case DLA_TASK_STOPPED:
		s->running = NULL;
		account(job);
		dla_clear_task(vdev->fw_engine);
		job->state = VDLA_JOB_READY;
		job->stopped = true;
		job->stopping = false;
		/* Its wait for the device starts again, for starvation_ms. */
		job->ready_time = ktime_get();
		s->stats.preemptions++;
		job->ctx->jobs_preempted++;
		trace_vdla_job_preempted(job);
		/* Its place is at the head: it is the oldest of its context. */
		list_add(&job->link, &s->ready[job->priority]);
		s->queued++;
		break;
	default:
		hardware_failed(vdev, job, &r);
		break;
	}
}

/* ---- Starting jobs ----------------------------------------------------- */

/*
 * Within a priority, files take turns: the oldest ready job of the file
 * whose jobs started least recently goes next, so that one process's
 * backlog delays another's new job by about one job, not by the backlog.
 * A job that was stopped goes on first: its turn began before. Jobs of
 * one file keep their order (the first of each file in the list is its
 * oldest), and so do those of one context.
 */
static struct vdla_job *fairest(struct list_head *ready)
{
	struct vdla_job *job, *best = NULL;

	list_for_each_entry(job, ready, link) {
		if (job->stopped)
			return job;
		if (!best || job->file->last_start < best->file->last_start)
			best = job;
	}
	return best;
}

/*
 * The oldest ready job of a context whose share has credit left, from the
 * share that used the smallest part of its credit; between equals, from
 * the highest priority down. The first of a context in a list is its
 * oldest, and a context's jobs are all in its priority's list.
 */
static struct vdla_job *share_next(struct vdla_sched *s)
{
	struct vdla_job *job, *best = NULL;
	u64 best_use = 0;

	if (!s->shares.held)
		return NULL;
	for (int p = DRM_VDLA_PRIORITIES - 1; p >= 0; p--) {
		list_for_each_entry(job, &s->ready[p], link) {
			struct vdla_share *share = vdla_share_of(&s->shares, job->ctx);
			u64 use;

			if (!share || vdla_share_credit(&s->shares, share) <= 0)
				continue;
			/* The part of its credit used, as used / percent. */
			use = div_u64(share->used_ns, share->percent);
			if (!best || use < best_use) {
				best = job;
				best_use = use;
			}
		}
	}
	return best;
}

/*
 * The oldest ready job of a context holding an engine reservation, from the
 * highest priority down; the first of a context in a list is its oldest.
 */
static struct vdla_job *reserved_next(struct vdla_sched *s)
{
	struct vdla_job *job;

	if (!s->reserving)
		return NULL;
	for (int p = DRM_VDLA_PRIORITIES - 1; p >= 0; p--) {
		list_for_each_entry(job, &s->ready[p], link) {
			if (job->ctx->reservations)
				return job;
		}
	}
	return NULL;
}

static struct vdla_job *pick_next(struct vdla_sched *s)
{
	struct vdla_job *oldest = NULL;
	int top = DRM_VDLA_PRIORITIES - 1;
	ktime_t now;

	/* Shares with credit, then engine reservations, come before priorities and starvation. */
	update_shares(s);
	oldest = share_next(s) ?: reserved_next(s);
	if (oldest)
		return oldest;

	while (top >= 0 && list_empty(&s->ready[top]))
		top--;
	if (top < 0)
		return NULL;
	/* The oldest waiting job of lower priority goes first if it waited too long. */
	for (int p = 0; p < top; p++) {
		struct vdla_job *head = list_first_entry_or_null(&s->ready[p], struct vdla_job,
								 link);

		if (head && (!oldest || ktime_before(head->ready_time, oldest->ready_time)))
			oldest = head;
	}
	if (oldest) {
		now = ktime_get();
		if (ktime_before(oldest->ready_time, ktime_sub_ms(now, READ_ONCE(starvation_ms)))) {
			/* Its turn lasts starvation_ms before it can be preempted. */
			oldest->no_preempt_until = ktime_add_ms(now, READ_ONCE(starvation_ms));
			return oldest;
		}
	}
	return fairest(&s->ready[top]);
}

/*
 * The watchdog fires when the running job's device time reaches
 * job_timeout_ms, or earlier when its protection from preemption ends.
 */
static void arm_watchdog(struct vdla_device *vdev, struct vdla_job *job)
{
	u64 limit = (u64)READ_ONCE(job_timeout_ms) * NSEC_PER_MSEC;
	u64 left = limit > job->run_ns ? limit - job->run_ns : 0;
	struct vdla_sched *s = sched_of(vdev);

	if (job->no_preempt_until) {
		s64 protected = ktime_to_ns(ktime_sub(job->no_preempt_until, ktime_get()));

		left = min_t(u64, left, max_t(s64, protected, 0));
	}
	/*
	 * With shares held, the credits change hands when the running job's
	 * share runs out and when the period ends: a waiting job may then
	 * preempt it.
	 */
	if (s->shares.held) {
		struct vdla_share *share = vdla_share_of(&s->shares, job->ctx);
		s64 credit = share ? vdla_share_credit(&s->shares, share) : 0;
		s64 period = ktime_to_ns(ktime_sub(s->shares.period_end, ktime_get()));

		if (credit > 0)
			left = min_t(u64, left, credit);
		left = min_t(u64, left, max_t(s64, period, 0));
	}
	mod_delayed_work(vdla_wq, &s->watchdog, nsecs_to_jiffies(left) + 1);
}

static void start(struct vdla_device *vdev, struct vdla_job *job)
{
	struct dla_task_result r;
	int slot, ret;

	/* Cancelled behind an older job of its context, which has ended now. */
	if (job->cancel_error) {
		bool cut_now = cut_due(job);

		signal_job(vdev, job, job->cancel_error);
		if (cut_now)
			cut(vdev, job->ctx);
		return;
	}
	job->ctx->last_started = job->seqno;
	slot = vdla_mmu_bind(vdev, job->as);
	job->file->last_start = ++sched_of(vdev)->starts;
	job->start_time = ktime_get();
	sched_of(vdev)->shares.charged_at = job->start_time;
	spin_lock(&job->file->busy_lock);
	job->file->running_since = job->start_time;
	spin_unlock(&job->file->busy_lock);
	sched_of(vdev)->running = job;
	job->state = VDLA_JOB_RUNNING;
	trace_vdla_job_run(job);
	if (job->stopped) {
		job->stopped = false;
		ret = dla_switch_task(vdev->fw_engine, job->fw_state, slot);
		if (!ret)
			ret = dla_resume_task(vdev->fw_engine);
	} else {
		struct dla_task_config config = {
			.task_data = &job->fw_task,
			.flags = (job->op_stats ? DLA_TASK_STATISTICS : 0) |
				 (job->op_time_only ? DLA_TASK_TIME_ONLY : 0),
			.num_addresses = job->count,
			.descriptor = job->descriptor,
			.context = slot,	/* the firmware's name for the MMU slot */
			.state = job->fw_state,
			.state_size = job->state_size,
		};

		/*
		 * What SUBMIT checked runs, without reading the descriptor
		 * again: userspace may have changed it since, and checking
		 * it twice cost as much as programming the operations.
		 */
		ret = dla_execute_checked_task(vdev->fw_engine, &config);
	}

	if (ret) {
		/* A state SUBMIT checked and nothing else touched: the driver's bug. */
		drm_err(&vdev->drm, "context %u job %llu refused by the firmware: status %d\n",
			job->ctx->id, job->seqno, ret);
		finish(vdev, job, -EIO);
		return;
	}
	/* An empty task has ended already: no interrupt will say so. */
	if (!dla_get_task_result(vdev->fw_engine, &r) && r.state == DLA_TASK_COMPLETED) {
		finish(vdev, job, 0);
		return;
	}
	arm_watchdog(vdev, job);
}

/* Starts ready jobs until one runs. */
static void dispatch(struct vdla_device *vdev)
{
	struct vdla_sched *s = sched_of(vdev);
	struct vdla_job *job;

	lockdep_assert_held(&vdev->fw_lock);
	while (!s->running && !s->paused && !vdev->gone && (job = pick_next(s))) {
		unqueue(s, job);
		start(vdev, job);
	}
	if (!s->running)
		wake_up_all(&s->idle);
}

/* Stops the running job at a boundary if @waiting outranks it. */
static void maybe_preempt(struct vdla_device *vdev, const struct vdla_job *waiting)
{
	struct vdla_sched *s = sched_of(vdev);
	struct vdla_job *running = s->running;
	bool outranks;
	u32 ended = 0;

	if (!READ_ONCE(preempt) || !running || running->stopping)
		return;
	/* A share with credit outranks everything else, and nothing stops its job. */
	update_shares(s);
	if (has_credit(s, running->ctx))
		return;
	/* A reservation outranks any priority; nothing without one stops a reserved job. */
	outranks = has_credit(s, waiting->ctx) ||
		   (waiting->ctx->reservations && !running->ctx->reservations);
	if (!outranks) {
		if (running->ctx->reservations || waiting->priority <= running->priority)
			return;
		/* Picked to end its starvation: the watchdog comes back when that turn is over. */
		if (running->no_preempt_until &&
		    ktime_before(ktime_get(), running->no_preempt_until))
			return;
	}
	if (dla_request_stop(vdev->fw_engine))
		return;
	running->stopping = true;
	running->no_preempt_until = 0;
	/* With nothing enabled it stops at once, and no interrupt says so. */
	dla_process_events(vdev->fw_engine, &ended);
	if (ended)
		task_ended(vdev);
}

/* The ready job that goes next by the shares, reservations and priorities, for a preemption check. */
static struct vdla_job *most_urgent(struct vdla_sched *s)
{
	struct vdla_job *job = share_next(s) ?: reserved_next(s);

	if (job)
		return job;
	for (int p = DRM_VDLA_PRIORITIES - 1; p >= 0; p--) {
		if (!list_empty(&s->ready[p]))
			return list_first_entry(&s->ready[p], struct vdla_job, link);
	}
	return NULL;
}

/* ---- Waiting for dependencies ------------------------------------------ */

static void make_ready(struct vdla_device *vdev, struct vdla_job *job)
{
	struct vdla_sched *s = sched_of(vdev);

	job->state = VDLA_JOB_READY;
	job->ctx->active++;
	job->ready_time = ktime_get();
	list_add_tail(&job->link, &s->ready[job->priority]);
	s->queued++;
	if (!job->cancel_error)
		maybe_preempt(vdev, job);
}

/* Moves the context's jobs whose turn has come to the ready lists. */
static void promote(struct vdla_device *vdev, struct vdla_ctx *ctx)
{
	struct vdla_sched *s = sched_of(vdev);
	struct vdla_job *job;

	while ((job = list_first_entry_or_null(&ctx->waiting, struct vdla_job, link)) &&
	       vdla_deps_met(job)) {
		list_del_init(&job->link);
		s->waiting--;
		make_ready(vdev, job);
	}
	if (list_empty(&ctx->waiting))
		wake_up_all(&s->drained);
}

/* A dependency signalled: the fence's lock is held, so the work goes on. */
static void dependency_signalled(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct vdla_job *job = container_of(cb, struct vdla_job, dep_cb);

	if (llist_add(&job->wake_node, &woken_jobs))
		queue_work(vdla_wq, &wake_work);
}

/* Under fw_lock: the job waits for its next dependency, or is ready. */
static void wait_or_promote(struct vdla_device *vdev, struct vdla_job *job)
{
	if (vdla_deps_wait(job, dependency_signalled))
		promote(vdev, job->ctx);
}

static void wake_work_fn(struct work_struct *work)
{
	struct llist_node *woken = llist_reverse_order(llist_del_all(&woken_jobs));
	struct vdla_job *job, *next;

	llist_for_each_entry_safe(job, next, woken, wake_node) {
		struct vdla_device *vdev = job->vdev;

		/* Ending the job may free it, and it holds the device. */
		drm_dev_get(&vdev->drm);
		mutex_lock(&vdev->fw_lock);
		job->dep_armed = false;
		if (job->state == VDLA_JOB_ENDED) {
			release_ended(job);
		} else if (job->state == VDLA_JOB_WAITING) {
			wait_or_promote(vdev, job);
			dispatch(vdev);
		}
		mutex_unlock(&vdev->fw_lock);
		drm_dev_put(&vdev->drm);
	}
}

static void free_work_fn(struct work_struct *work)
{
	struct llist_node *ended = llist_del_all(&ended_jobs);
	struct vdla_job *job, *next;

	llist_for_each_entry_safe(job, next, ended, free_node)
		vdla_job_free(job);
}

bool vdla_sched_submit(struct vdla_job *job)
{
	struct vdla_device *vdev = job->vdev;
	struct vdla_sched *s = sched_of(vdev);
	struct vdla_ctx *ctx = job->ctx;
	bool ended;

	mutex_lock(&vdev->fw_lock);
	s->submitting = job;
	job->state = VDLA_JOB_WAITING;
	if (vdev->gone) {
		signal_job(vdev, job, -ENODEV);
	} else if (READ_ONCE(ctx->banned)) {
		/* Banned since SUBMIT checked: its older jobs are cancelled already. */
		signal_job(vdev, job, -ECANCELED);
	} else {
		/* The end of the frame a lease's revocation waits for. */
		if (job->frame_end && ctx->cut_at_frame_end) {
			ctx->cut_at_frame_end = false;
			ctx->cut_after = max(ctx->cut_after, job->seqno);
		}
		list_add_tail(&job->link, &ctx->waiting);
		s->waiting++;
		wait_or_promote(vdev, job);
		dispatch(vdev);
	}
	ended = s->submitted_ended;
	s->submitting = NULL;
	s->submitted_ended = false;
	mutex_unlock(&vdev->fw_lock);
	return ended;
}

/* ---- Events ------------------------------------------------------------ */

static void abort_running(struct vdla_device *vdev, int error)
{
	struct vdla_job *job = sched_of(vdev)->running;

	dla_abort_task(vdev->fw_engine);
	device_was_reset(vdev);
	finish(vdev, job, error);
}

/* Collects what the device finished and moves the running task on. */
static void process_events(struct vdla_device *vdev)
{
	u32 ended = 0;

	lockdep_assert_held(&vdev->fw_lock);
	dla_process_events(vdev->fw_engine, &ended);
	if (ended) {
		if (vdev->selftest_running)
			complete(&vdev->selftest_done);
		else if (sched_of(vdev)->running)
			task_ended(vdev);
	}
}

static void watchdog_work(struct work_struct *work)
{
	struct vdla_device *vdev = container_of(to_delayed_work(work), struct vdla_device,
						sched.watchdog);
	struct vdla_sched *s = sched_of(vdev);
	struct vdla_job *job, *urgent;

	mutex_lock(&vdev->fw_lock);
	if (vdev->gone)
		goto out;
	/*
	 * The device's state first: an interrupt can be lost (the message or
	 * the DONE bit), and a job the device finished must complete, not be
	 * aborted, failed and its context banned.
	 */
	process_events(vdev);
	job = s->running;
	if (job) {
		u64 used = job->run_ns + ktime_to_ns(ktime_sub(ktime_get(), job->start_time));
		u64 limit = (u64)READ_ONCE(job_timeout_ms) * NSEC_PER_MSEC;

		if (used >= limit) {
			drm_info(&vdev->drm, "context %u job %llu ran %llu ms: aborting it\n",
				 job->ctx->id, job->seqno, div_u64(used, NSEC_PER_MSEC));
			trace_vdla_job_timeout(job);
			s->stats.timeouts++;
			abort_running(vdev, -ETIMEDOUT);
		} else {
			/*
			 * A starved job's turn may be over, a share's credit
			 * used up or renewed: a waiting job may preempt it.
			 */
			ktime_t now = ktime_get();

			update_shares(s);
			urgent = most_urgent(s);
			if (urgent)
				maybe_preempt(vdev, urgent);
			/*
			 * A starved job's protection that is over and stopped
			 * nothing ends, or the watchdog would come back at
			 * every tick until the job ends.
			 */
			if (s->running && s->running->no_preempt_until &&
			    !ktime_before(now, s->running->no_preempt_until))
				s->running->no_preempt_until = 0;
			if (s->running)
				arm_watchdog(vdev, s->running);
		}
	}
	dispatch(vdev);
out:
	mutex_unlock(&vdev->fw_lock);
}

void vdla_sched_irq(struct vdla_device *vdev)
{
	mutex_lock(&vdev->fw_lock);
	if (!vdev->gone) {
		process_events(vdev);
		dispatch(vdev);
	}
	mutex_unlock(&vdev->fw_lock);
}

void vdla_sched_cancel_file(struct vdla_device *vdev, struct vdla_file *vfile)
{
	struct vdla_sched *s = sched_of(vdev);
	struct vdla_ctx *ctx;
	LIST_HEAD(cancelled);

	mutex_lock(&vdev->fw_lock);
	/* The running job first: it is older than its context's queued ones. */
	if (s->running && s->running->file == vfile)
		abort_running(vdev, -ECANCELED);
	take_queued(vdev, job_of_file, vfile, &cancelled);
	signal_list(vdev, &cancelled, -ECANCELED);
	list_for_each_entry(ctx, &s->contexts, sched_link) {
		if (ctx->file == vfile)
			cancel_waiting(vdev, ctx, -ESRCH);
	}
	dispatch(vdev);
	mutex_unlock(&vdev->fw_lock);
}

void vdla_sched_add_ctx(struct vdla_ctx *ctx)
{
	struct vdla_device *vdev = ctx->vdev;

	mutex_lock(&vdev->fw_lock);
	list_add_tail(&ctx->sched_link, &sched_of(vdev)->contexts);
	mutex_unlock(&vdev->fw_lock);
}

void vdla_sched_remove_ctx(struct vdla_ctx *ctx)
{
	struct vdla_device *vdev = ctx->vdev;

	mutex_lock(&vdev->fw_lock);
	list_del(&ctx->sched_link);
	mutex_unlock(&vdev->fw_lock);
}

void vdla_sched_cancel_waiting(struct vdla_ctx *ctx, int error)
{
	struct vdla_device *vdev = ctx->vdev;

	mutex_lock(&vdev->fw_lock);
	cancel_waiting(vdev, ctx, error);
	dispatch(vdev);
	mutex_unlock(&vdev->fw_lock);
}

/* The seqno of @ctx's job that was stopped at a boundary and will resume, or 0. */
static u64 stopped_seqno(struct vdla_sched *s, const struct vdla_ctx *ctx)
{
	struct vdla_job *job;

	list_for_each_entry(job, &s->ready[ctx->priority], link) {
		if (job->ctx == ctx && job->stopped)
			return job->seqno;
	}
	return 0;
}

/*
 * What outranks what changed (a reservation or a share gained or lost):
 * the waiting job that goes next may stop the running one, whose watchdog
 * follows its new credit, and an idle device starts it.
 */
static void reconsider(struct vdla_device *vdev)
{
	struct vdla_sched *s = sched_of(vdev);
	struct vdla_job *job = most_urgent(s);

	if (job)
		maybe_preempt(vdev, job);
	if (s->running)
		arm_watchdog(vdev, s->running);
	dispatch(vdev);
}

void vdla_sched_reserve(struct vdla_ctx *ctx, int delta)
{
	struct vdla_device *vdev = ctx->vdev;
	struct vdla_sched *s = sched_of(vdev);

	mutex_lock(&vdev->fw_lock);
	ctx->reservations += delta;
	s->reserving += delta;
	/*
	 * A job of the context already ready stops another context's running
	 * one; or the running job lost its reservation, and a waiting job
	 * that outranks it now stops it.
	 */
	reconsider(vdev);
	mutex_unlock(&vdev->fw_lock);
}

u64 vdla_sched_share_hold(struct vdla_device *vdev, u32 index, struct vdla_ctx *ctx)
{
	struct vdla_sched *s = sched_of(vdev);
	u64 grant;

	mutex_lock(&vdev->fw_lock);
	/* The running job's time so far goes to whom it was charged to until now. */
	update_shares(s);
	grant = vdla_shares_hold(&s->shares, index, ctx);
	/*
	 * A job of a context with credit now stops a running job without;
	 * or the running job lost its credit with the share, and a waiting
	 * job that outranks it now stops it.
	 */
	reconsider(vdev);
	mutex_unlock(&vdev->fw_lock);
	return grant;
}

int vdla_sched_share_join(struct vdla_ctx *ctx, u32 index, u64 grant)
{
	struct vdla_device *vdev = ctx->vdev;
	struct vdla_sched *s = sched_of(vdev);
	int ret;

	mutex_lock(&vdev->fw_lock);
	update_shares(s);
	ret = vdla_shares_join(&s->shares, index, grant, ctx);
	if (!ret)
		reconsider(vdev);
	mutex_unlock(&vdev->fw_lock);
	return ret;
}

int vdla_sched_set_shares(struct vdla_device *vdev, const struct vdla_share *shares, u32 n)
{
	int ret;

	mutex_lock(&vdev->fw_lock);
	ret = vdla_shares_set(&sched_of(vdev)->shares, shares, n);
	mutex_unlock(&vdev->fw_lock);
	return ret;
}

void vdla_sched_query_shares(struct vdla_device *vdev, struct drm_vdla_query_time_shares *out)
{
	struct vdla_sched *s = sched_of(vdev);

	mutex_lock(&vdev->fw_lock);
	update_shares(s);
	vdla_shares_query(&s->shares, out);
	mutex_unlock(&vdev->fw_lock);
}

/*
 * The cut of vdla_sched_cut(), of the jobs up to seqno @limit only (0: all,
 * those submitted later too, until the cut happens).
 */
static bool cut_ctx(struct vdla_ctx *ctx, bool ignore_frame, u64 limit)
{
	struct vdla_device *vdev = ctx->vdev;
	struct vdla_sched *s = sched_of(vdev);
	bool frame_started, pending = false, limited;
	u64 keep;

	lockdep_assert_held(&ctx->submit_lock);
	mutex_lock(&vdev->fw_lock);
	/* A cut already pending without a limit (a lease's) keeps taking all. */
	limited = ctx->cut_after || ctx->cut_at_frame_end ? ctx->cut_limit && limit : limit;
	ctx->cut_limit = limited ? max(ctx->cut_limit, limit) : 0;
	/* A job started (running, or stopped to resume later) finishes: a job is a frame. */
	keep = s->running && s->running->ctx == ctx ? s->running->seqno : stopped_seqno(s, ctx);
	frame_started = ctx->frame_begin_seqno && ctx->frame_begin_seqno <= ctx->last_started;
	if (!ignore_frame && frame_started) {
		if (ctx->frame_open)
			pending = true;
		else if (ctx->frame_end_seqno > ctx->ended_seqno)
			keep = max(keep, ctx->frame_end_seqno);
	}
	if (pending) {
		ctx->cut_at_frame_end = true;
	} else if (keep) {
		ctx->cut_at_frame_end = false;
		ctx->cut_after = max(ctx->cut_after, keep);
	} else {
		ctx->cut_at_frame_end = false;
		cut(vdev, ctx);
		dispatch(vdev);
	}
	mutex_unlock(&vdev->fw_lock);
	return pending;
}

bool vdla_sched_cut(struct vdla_ctx *ctx, bool ignore_frame)
{
	return cut_ctx(ctx, ignore_frame, 0);
}

void vdla_sched_cancel_queued(struct vdla_ctx *ctx)
{
	lockdep_assert_held(&ctx->submit_lock);
	if (ctx->seqno)
		cut_ctx(ctx, true, ctx->seqno);
}

int vdla_sched_pause(struct vdla_device *vdev)
{
	struct vdla_sched *s = sched_of(vdev);
	int ret;

	mutex_lock(&vdev->fw_lock);
	s->paused++;
	mutex_unlock(&vdev->fw_lock);
	ret = wait_event_killable(s->idle, !READ_ONCE(s->running));
	if (ret)
		vdla_sched_unpause(vdev);
	return ret;
}

void vdla_sched_unpause(struct vdla_device *vdev)
{
	mutex_lock(&vdev->fw_lock);
	sched_of(vdev)->paused--;
	dispatch(vdev);
	mutex_unlock(&vdev->fw_lock);
}

void vdla_sched_reap(void)
{
	/* Jobs cancelled while their dependency callback ran are freed by the wake work. */
	flush_work(&wake_work);
	flush_work(&free_work);
}

void vdla_sched_init(struct vdla_device *vdev)
{
	struct vdla_sched *s = sched_of(vdev);

	INIT_LIST_HEAD(&s->contexts);
	for (int p = 0; p < DRM_VDLA_PRIORITIES; p++)
		INIT_LIST_HEAD(&s->ready[p]);
	init_waitqueue_head(&s->idle);
	init_waitqueue_head(&s->drained);
	INIT_DELAYED_WORK(&s->watchdog, watchdog_work);
}

void vdla_sched_unplug(struct vdla_device *vdev)
{
	struct vdla_sched *s = sched_of(vdev);
	struct vdla_ctx *ctx;
	LIST_HEAD(cancelled);

	mutex_lock(&vdev->fw_lock);
	if (vdev->gone) {
		mutex_unlock(&vdev->fw_lock);
		return;
	}
	vdev->gone = true;
	/* The running job, the ready ones, then the waiting ones: each context in order. */
	if (s->running)
		abort_running(vdev, -ENODEV);
	take_queued(vdev, any_job, NULL, &cancelled);
	signal_list(vdev, &cancelled, -ENODEV);
	list_for_each_entry(ctx, &s->contexts, sched_link)
		cancel_waiting(vdev, ctx, -ENODEV);
	mutex_unlock(&vdev->fw_lock);
	cancel_delayed_work_sync(&s->watchdog);
}

int vdla_sched_module_init(void)
{
	/*
	 * Fences wait on it (a job's dependencies, the watchdog): it must make
	 * progress under memory pressure, whoever waits on them in reclaim.
	 */
	vdla_wq = alloc_workqueue("vdla", WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	return vdla_wq ? 0 : -ENOMEM;
}

void vdla_sched_module_exit(void)
{
	/* Every device is gone: what is left are jobs being freed. */
	flush_work(&free_work);
	destroy_workqueue(vdla_wq);
}
