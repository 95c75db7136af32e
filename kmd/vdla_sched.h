/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Scheduling: each job waits in its context until its dependencies have
 * signalled, then the dispatcher runs it on the device through the firmware
 * core, one task at a time, by priority, with preemption at operation
 * boundaries, starvation avoidance and a per-job timeout.
 */
#ifndef __VDLA_SCHED_H__
#define __VDLA_SCHED_H__

#include <linux/list.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <drm/vdla_accel.h>

#include "vdla_share.h"

struct vdla_ctx;
struct vdla_device;
struct vdla_file;
struct vdla_job;

/**
 * struct vdla_sched_stats - device-wide counters, under vdev->fw_lock
 */
struct vdla_sched_stats {
	u64 resets;
	u64 timeouts;
	u64 mmu_faults;
	u64 op_errors;
	u64 preemptions;
	u64 jobs_completed;
	u64 jobs_failed;
};

/**
 * struct vdla_sched - the scheduler of one device
 *
 * Everything is protected by vdev->fw_lock.
 */
struct vdla_sched {
	/** @contexts: every context of the device (vdla_ctx.sched_link). */
	struct list_head contexts;
	/** @ready: jobs whose dependencies signalled, per priority, oldest first. */
	struct list_head ready[DRM_VDLA_PRIORITIES];
	u32 queued;
	/** @waiting: jobs in their contexts' waiting lists. */
	u32 waiting;
	/** @starts: jobs started so far; a file's last_start is one of these. */
	u64 starts;
	/** @running: the job whose task the firmware runs, or NULL. */
	struct vdla_job *running;
	/** @reserving: engine reservations held on the device (vdla_sched_reserve()). */
	u32 reserving;
	/** @shares: the device-time shares and their credits. */
	struct vdla_shares shares;
	/** @paused: while non-zero no job starts (TEST_BDMA owns the device). */
	unsigned int paused;
	/**
	 * @submitting: the job SUBMIT queues while it holds fw_lock;
	 * @submitted_ended: it ended meanwhile, and SUBMIT frees it.
	 */
	struct vdla_job *submitting;
	bool submitted_ended;
	/** @idle: woken when nothing runs any more. */
	wait_queue_head_t idle;
	/** @drained: woken when a context's waiting list empties. */
	wait_queue_head_t drained;
	/** @watchdog: ends the running job past job_timeout_ms; ends starvation protection. */
	struct delayed_work watchdog;
	struct vdla_sched_stats stats;
};

/* The module's work queue, for every device. */
int vdla_sched_module_init(void);
void vdla_sched_module_exit(void);

void vdla_sched_init(struct vdla_device *vdev);
/*
 * The device is going (after drm_dev_unplug): every job that has not ended
 * ends with ENODEV, the running one aborted, and nothing starts any more.
 */
void vdla_sched_unplug(struct vdla_device *vdev);

/*
 * Queues a job SUBMIT prepared (its fence initialised and published): it
 * runs once its dependencies signalled and the older jobs of its context
 * are ready. Returns true if it ended already (it ran at once, or was
 * refused): then the caller frees it with vdla_job_free() once it holds no
 * lock that freeing takes. Otherwise it may run, end and be freed at any
 * moment from here on.
 */
bool vdla_sched_submit(struct vdla_job *job);

/* A new context, and the end of one: see vdla_ctx.c. */
void vdla_sched_add_ctx(struct vdla_ctx *ctx);
void vdla_sched_remove_ctx(struct vdla_ctx *ctx);
/* Ends the context's jobs that still wait for dependencies with @error. */
void vdla_sched_cancel_waiting(struct vdla_ctx *ctx, int error);

/* The threaded interrupt handler's part: firmware events, job ends. */
void vdla_sched_irq(struct vdla_device *vdev);
/* Cancels every job of @vfile that has not ended; the file is gone. */
void vdla_sched_cancel_file(struct vdla_device *vdev, struct vdla_file *vfile);

/*
 * @ctx gains (@delta 1) or loses (-1) an engine reservation: while it holds
 * one, its ready jobs go before those of contexts holding none, and stop
 * them at an operation boundary.
 */
void vdla_sched_reserve(struct vdla_ctx *ctx, int delta);

/*
 * A lease on device-time share @index is granted to @ctx, or (@ctx NULL)
 * ended: while the share has credit in the period, the jobs of the contexts
 * charged to it go first (vdla_share.h).
 */
u64 vdla_sched_share_hold(struct vdla_device *vdev, u32 index, struct vdla_ctx *ctx);
/* @ctx joins share @index for its grant @grant (SUBMIT): 0, or -ECANCELED if it ended. */
int vdla_sched_share_join(struct vdla_ctx *ctx, u32 index, u64 grant);
/* Defines the device-time shares (sysfs time_shares); -EBUSY while one is held. */
int vdla_sched_set_shares(struct vdla_device *vdev, const struct vdla_share *shares, u32 n);
void vdla_sched_query_shares(struct vdla_device *vdev, struct drm_vdla_query_time_shares *out);

/*
 * A lease of @ctx is revoked (vdla_lease.c): cut the context's queue at its
 * next frame boundary. The job started (running, or stopped to resume)
 * finishes, and so does the frame it belongs to if it was submitted to its
 * FRAME_END (unless @ignore_frame: the frame overran its time); then every
 * later job of the context that has not started ends with ECANCELED, in
 * order. With no such job the cut is made now. Returns true if a started
 * frame's FRAME_END has not been submitted yet: the cut is then made after
 * that job, once it comes. Called with ctx->submit_lock held.
 */
bool vdla_sched_cut(struct vdla_ctx *ctx, bool ignore_frame);
/*
 * Cancels the jobs of @ctx submitted so far that have not started
 * (ECANCELED), as vdla_sched_cut() at a job boundary, but not those
 * submitted afterwards (a channel's stop); submit_lock held.
 */
void vdla_sched_cancel_queued(struct vdla_ctx *ctx);

/* Waits until no job runs and keeps jobs from starting, for TEST_BDMA. */
int vdla_sched_pause(struct vdla_device *vdev);
void vdla_sched_unpause(struct vdla_device *vdev);
/*
 * Waits for the jobs that have ended so far to be freed (with what they
 * hold, SRAM BOs among it). Not to be called with a lock freeing takes.
 */
void vdla_sched_reap(void);

#endif /* __VDLA_SCHED_H__ */
