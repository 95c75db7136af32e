/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Scheduling: drm_sched holds each job until its dependencies signalled,
 * then hands it to the dispatcher, which runs one task at a time on the
 * device through the firmware core, by priority, with preemption at
 * operation boundaries, starvation avoidance and a per-job timeout.
 */
#ifndef __VDLA_SCHED_H__
#define __VDLA_SCHED_H__

#include <drm/gpu_scheduler.h>
#include <linux/list.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <drm/vdla_accel.h>

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
 * Everything but @base is protected by vdev->fw_lock.
 */
struct vdla_sched {
	struct drm_gpu_scheduler base;
	/** @ready: jobs whose dependencies signalled, per priority, oldest first. */
	struct list_head ready[DRM_VDLA_PRIORITIES];
	u32 queued;
	/** @starts: jobs started so far; a file's last_start is one of these. */
	u64 starts;
	/** @running: the job whose task the firmware runs, or NULL. */
	struct vdla_job *running;
	/** @paused: while non-zero no job starts (TEST_BDMA owns the device). */
	unsigned int paused;
	/** @idle: woken when nothing runs any more. */
	wait_queue_head_t idle;
	/** @handed: woken when drm_sched hands a job to run_job (vdla_ctx.in_entity). */
	wait_queue_head_t handed;
	/** @watchdog: ends the running job when it exceeds job_timeout_ms. */
	struct delayed_work watchdog;
	struct vdla_sched_stats stats;
};

int vdla_sched_init(struct vdla_device *vdev);
void vdla_sched_fini(struct vdla_device *vdev);

/* The threaded interrupt handler's part: firmware events, job ends. */
void vdla_sched_irq(struct vdla_device *vdev);
/* Cancels every job of @vfile that has not ended; the file is gone. */
void vdla_sched_cancel_file(struct vdla_device *vdev, struct vdla_file *vfile);

/* Waits until no job runs and keeps jobs from starting, for TEST_BDMA. */
int vdla_sched_pause(struct vdla_device *vdev);
/*
 * Waits for the scheduler to free the jobs it has seen end (it does so
 * from its work queue, after their fences signal). Not to be called with
 * a lock that freeing a job takes.
 */
void vdla_sched_reap(struct vdla_device *vdev);
void vdla_sched_unpause(struct vdla_device *vdev);

#endif /* __VDLA_SCHED_H__ */
