/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A job: one task on one context, from SUBMIT until drm_sched frees it.
 */
#ifndef __VDLA_JOB_H__
#define __VDLA_JOB_H__

#include <drm/gpu_scheduler.h>
#include <linux/ktime.h>
#include <linux/list.h>

#include "dla_interface.h"
#include "vdla_fw_port.h"

struct drm_gem_object;
struct vdla_ctx;
struct vdla_file;
struct vdla_mapping;

/**
 * struct vdla_job - a submitted task
 *
 * Everything the job needs to run is prepared at SUBMIT, so that starting
 * it, preempting it and ending it (the fence-signalling path) allocate
 * nothing. The dispatcher fields are under vdev->fw_lock.
 */
struct vdla_job {
	struct drm_sched_job base;
	struct vdla_device *vdev;
	/** @ctx: the context; holds a reference. */
	struct vdla_ctx *ctx;
	/** @file: the owner (the context's), for cancellation and usage. */
	struct vdla_file *file;
	/** @as: the address space its device addresses are in. */
	struct vdla_as *as;
	u32 priority;
	u64 seqno;
	/** @done: the fence run_job returns, signalled when the task ends. */
	struct dma_fence *done;
	/** @ended: @done is signalled; counted in counters.ended_jobs. */
	bool ended;

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
	void *state;
	size_t state_size;
	/** @num_ops: the task's operations, as SUBMIT read them. */
	u32 num_ops;
	/**
	 * @op_stats: with DRM_VDLA_SUBMIT_OP_STATS, the kernel address of
	 * @num_ops struct drm_vdla_op_stats (not necessarily aligned) in a BO
	 * the job holds; NULL without.
	 */
	void *op_stats;

	/* Dispatcher: under vdev->fw_lock. */
	struct list_head link;
	ktime_t ready_time;
	ktime_t start_time;
	/** @run_ns: device time used so far, across preemptions. */
	u64 run_ns;
	/** @stopped: preempted at a boundary; resumes with dla_switch_task. */
	bool stopped;
	/** @stopping: a stop was requested. */
	bool stopping;
	/** @no_preempt: picked against priority to end starvation. */
	bool no_preempt;
};

static inline struct vdla_job *to_vdla_job(struct drm_sched_job *job)
{
	return container_of(job, struct vdla_job, base);
}

/* Frees a job that drm_sched_job_arm() was never called for, or from free_job. */
void vdla_job_free(struct vdla_job *job);

int vdla_ioctl_submit(struct drm_device *drm, void *data, struct drm_file *file);

#endif /* __VDLA_JOB_H__ */
