/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A job: one task on one context, from SUBMIT until the scheduler frees it.
 */
#ifndef __VDLA_JOB_H__
#define __VDLA_JOB_H__

#include <linux/dma-fence.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/llist.h>

#include "dla_interface.h"
#include "vdla_fw_port.h"

struct drm_gem_object;
struct vdla_ctx;
struct vdla_file;
struct vdla_mapping;

/**
 * enum vdla_job_state - where a job is, under vdev->fw_lock
 * @VDLA_JOB_WAITING: in its context's waiting list: for a dependency, or
 *	for an older job of its context that waits for one
 * @VDLA_JOB_READY: in the ready list of its priority
 * @VDLA_JOB_RUNNING: the device runs its task
 * @VDLA_JOB_ENDED: its fence is signalled; it is being freed (counted in
 *	counters.ended_jobs until it is)
 */
enum vdla_job_state {
	VDLA_JOB_WAITING,
	VDLA_JOB_READY,
	VDLA_JOB_RUNNING,
	VDLA_JOB_ENDED,
};

/**
 * struct vdla_job - a submitted task
 *
 * Everything the job needs to run is prepared at SUBMIT, so that starting
 * it, preempting it and ending it (the fence-signalling path) allocate
 * nothing. The dispatcher fields are under vdev->fw_lock.
 */
struct vdla_job {
	/** @vdev: the device; the job holds a reference to its DRM device. */
	struct vdla_device *vdev;
	/** @ctx: the context; holds a reference. */
	struct vdla_ctx *ctx;
	/** @file: the owner (the context's), for cancellation and usage. */
	struct vdla_file *file;
	/** @as: the address space its device addresses are in. */
	struct vdla_as *as;
	u32 priority;
	u64 seqno;
	/** @done: the job's fence (vdla_fence.c), signalled when it ends (VDLA_JOB_ENDED). */
	struct dma_fence *done;

	/* Dependencies (vdla_deps.c): references, and the one waited on. */
	struct dma_fence **deps;
	u32 num_deps;
	u32 deps_size;
	u32 next_dep;
	struct dma_fence_cb dep_cb;
	/** @dep_armed: @dep_cb is on a fence, or ran and the wake work has not seen it. */
	bool dep_armed;
	/** @wake_node: in the wake list, from @dep_cb to the scheduler's work. */
	struct llist_node wake_node;
	/** @free_node: in the list of ended jobs the free work frees. */
	struct llist_node free_node;

	/* The address list: one mapping and one firmware buffer per entry. */
	u32 count;
	u32 descriptor;
	struct vdla_mapping **mappings;
	struct vdla_fw_buffer *buffers;
	struct vdla_fw_task fw_task;
	/* The distinct BOs, for the implicit fences, and which it writes. */
	u32 bo_count;
	struct drm_gem_object **bos;
	unsigned long *bo_writes;
	/** @alloc_size: bytes of the job's own allocation (job_alloc). */
	size_t alloc_size;
	/** @charged_bytes: bytes counted in its file's queue; 0 while not counted. */
	u64 charged_bytes;
	/* The firmware's state area for the task. */
	void *fw_state;
	size_t state_size;
	/** @num_ops: the task's operations, as SUBMIT read them. */
	u32 num_ops;
	/**
	 * @op_stats: with DRM_VDLA_SUBMIT_OP_STATS, the kernel address of
	 * @num_ops struct drm_vdla_op_stats (not necessarily aligned) in a BO
	 * the job holds; NULL without.
	 */
	void *op_stats;
	/** @op_time_only: DRM_VDLA_SUBMIT_OP_TIME_ONLY, the device time alone. */
	bool op_time_only;
	/** @frame_end: DRM_VDLA_SUBMIT_FRAME_END, the last job of a frame. */
	bool frame_end;

	/* Dispatcher: under vdev->fw_lock. */
	enum vdla_job_state state;
	/** @link: in its context's waiting list or in a ready list. */
	struct list_head link;
	/**
	 * @cancel_error: non-zero for a job cancelled while older jobs of its
	 * context were still to end: it goes through the ready list, so that
	 * the context's fences still signal in order, and ends with this
	 * error when its turn comes, without running.
	 */
	int cancel_error;
	ktime_t ready_time;
	ktime_t start_time;
	/** @run_ns: device time used so far, across preemptions. */
	u64 run_ns;
	/** @stopped: preempted at a boundary; resumes with dla_switch_task. */
	bool stopped;
	/** @stopping: a stop was requested. */
	bool stopping;
	/**
	 * @no_preempt_until: picked against priority to end starvation, the
	 * job is not preempted before this time (0: no such protection).
	 */
	ktime_t no_preempt_until;
};

/* Frees a job: one never queued, or, from the scheduler, one that ended. */
void vdla_job_free(struct vdla_job *job);

int vdla_ioctl_submit(struct drm_device *drm, void *data, struct drm_file *file);

#endif /* __VDLA_JOB_H__ */
