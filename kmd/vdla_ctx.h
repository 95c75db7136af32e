/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Contexts: a priority, a queue of jobs waiting for their dependencies and
 * a fence timeline. A context belongs to the file that created it.
 */
#ifndef __VDLA_CTX_H__
#define __VDLA_CTX_H__

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>

struct drm_device;
struct drm_file;
struct vdla_file;

/**
 * struct vdla_ctx - a context
 *
 * Referenced by the file's context table and by each of its jobs. The
 * counters and the error record are written under vdev->fw_lock.
 */
struct vdla_ctx {
	struct kref ref;
	struct vdla_device *vdev;
	/** @file: the owner; the context holds a reference. */
	struct vdla_file *file;
	u32 id;
	/** @priority: enum drm_vdla_priority. */
	u32 priority;
	/** @submit_lock: orders the seqno and the queueing of the context's jobs. */
	struct mutex submit_lock;
	/** @sched_link: in the device's list of contexts; under fw_lock. */
	struct list_head sched_link;
	/**
	 * @waiting: jobs waiting for their dependencies or behind one that
	 * does, in submission order. Under fw_lock.
	 */
	struct list_head waiting;
	/** @active: jobs of the context ready or running; under fw_lock. */
	u32 active;
	/** @cancelled: of those, ready ones only to end with their cancel_error; under fw_lock. */
	u32 cancelled;
	/** @queued_jobs: jobs submitted and not yet freed (DRM_VDLA_MAX_QUEUED_JOBS_PER_CONTEXT). */
	atomic_t queued_jobs;
	/** @fence_context: the timeline of the context's job fences. */
	u64 fence_context;
	u64 seqno;
	/** @destroyed: CTX_DESTROY or close removed it: SUBMIT refuses it. */
	bool destroyed;
	/*
	 * Frames (DRM_VDLA_SUBMIT_FRAME_*), under submit_lock: one is open
	 * between its BEGIN and END jobs; the seqnos of the last BEGIN and END.
	 */
	bool frame_open;
	u64 frame_begin_seqno;
	u64 frame_end_seqno;
	/* Leases revoked inside the open frame, waiting for its END (vdla_lease.frame_link). */
	struct list_head frame_wait_leases;

	/*
	 * A lease's cut (vdla_sched_cut()), under fw_lock: @last_started and
	 * @ended_seqno are the seqnos of the last job started and ended;
	 * @cut_after, when non-zero, the job after whose end the context's
	 * jobs not started are cancelled; @cut_at_frame_end, the cut waits for
	 * the open frame's END job to be submitted.
	 */
	u64 last_started;
	u64 ended_seqno;
	u64 cut_after;
	bool cut_at_frame_end;
	/*
	 * @cut_limit: the last job the pending cut cancels (a channel's stop,
	 * vdla_sched_cancel_queued()), or 0 for every job not started.
	 */
	u64 cut_limit;
	/** @reservations: engine leases the context holds (vdla_sched_reserve()); under fw_lock. */
	u32 reservations;
	/**
	 * @share: 1 + the index of the device-time share the context holds or
	 * joined, or 0; @share_grant: the grant of the share it is for
	 * (vdla_share.h). Under fw_lock.
	 */
	u32 share;
	u64 share_grant;

	/** @banned: set once a job faulted or hung; read without a lock. */
	bool banned;
	atomic64_t jobs_submitted;
	u64 jobs_completed;
	u64 jobs_failed;
	u64 jobs_preempted;
	u64 busy_ns;
	int last_error;
	u32 hw_error;
	u32 fault_status;
	u32 error_op;
	u64 fault_addr;
};

/* A context of @file by id, with a new reference; NULL if none. */
struct vdla_ctx *vdla_ctx_lookup(struct vdla_file *file, u32 id);
void vdla_ctx_get(struct vdla_ctx *ctx);
void vdla_ctx_put(struct vdla_ctx *ctx);
/*
 * Ends the context and drops the table's reference. Its jobs still waiting
 * for dependencies get the rest of @budget (jiffies, shared by the calls of
 * one CTX_DESTROY or close, and decreased by the wait) to become ready.
 */
void vdla_ctx_destroy(struct vdla_ctx *ctx, unsigned long *budget);
/* The budget for one CTX_DESTROY or close: none if a signal is ending the process. */
unsigned long vdla_ctx_drain_budget(void);

int vdla_ioctl_ctx_create(struct drm_device *drm, void *data, struct drm_file *file);
int vdla_ioctl_ctx_destroy(struct drm_device *drm, void *data, struct drm_file *file);
int vdla_ioctl_ctx_query(struct drm_device *drm, void *data, struct drm_file *file);

#endif /* __VDLA_CTX_H__ */
