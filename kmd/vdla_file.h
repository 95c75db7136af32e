/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the driver keeps per open file: the device address space, the
 * contexts, and usage for fdinfo.
 */
#ifndef __VDLA_FILE_H__
#define __VDLA_FILE_H__

#include <linux/kref.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/xarray.h>

struct drm_device;
struct drm_file;
struct drm_printer;
struct vdla_device;

/**
 * struct vdla_file - driver_priv of a struct drm_file
 *
 * Outlives the drm_file while jobs of the file exist (each holds a
 * reference), so that their usage is still accounted.
 */
struct vdla_file {
	struct kref ref;
	struct vdla_device *vdev;
	/** @as: the file's device address space. */
	struct vdla_as *as;
	/** @contexts: the file's contexts by id (xarray's own lock). */
	struct xarray contexts;
	/** @leases: the file's leases by id (vdla_lease.c). */
	struct xarray leases;
	/** @num_leases: leases in @leases or being acquired; under the lease manager's lock. */
	u32 num_leases;
	/** @next_lease_id: where the search for a free lease id starts (xa_alloc_cyclic). */
	u32 next_lease_id;
	/** @queued_jobs: jobs submitted and not yet freed (DRM_VDLA_MAX_QUEUED_JOBS_PER_FILE). */
	atomic_t queued_jobs;
	/** @queued_bytes: kernel memory they hold (DRM_VDLA_MAX_QUEUED_BYTES_PER_FILE). */
	atomic64_t queued_bytes;
	/**
	 * @busy_lock: protects @busy_ns and @running_since, which fdinfo
	 * reads: not under fw_lock, so that reading /proc never delays the
	 * dispatcher.
	 */
	spinlock_t busy_lock;
	/** @busy_ns: device time of the file's ended and stopped runs. */
	u64 busy_ns;
	/** @running_since: when a job of the file started running, or 0. */
	ktime_t running_since;
	/** @last_start: when a job of the file last started (sched.starts); under fw_lock. */
	u64 last_start;
	/** @pipelines: the file's pipeline handles (vdla_pipeline.c), under its lock. */
	struct xarray pipelines;
	/** @next_pipeline_handle: where the search for a free handle starts (xa_alloc_cyclic). */
	u32 next_pipeline_handle;
	/** @pid: the opening process, for debugfs. */
	pid_t pid;
	/** @tgid: the same, to report it in each reader's pid namespace. */
	struct pid *tgid;
	char comm[TASK_COMM_LEN];
};

int vdla_open(struct drm_device *drm, struct drm_file *file);
void vdla_postclose(struct drm_device *drm, struct drm_file *file);
void vdla_show_fdinfo(struct drm_printer *p, struct drm_file *file);
void vdla_file_get(struct vdla_file *vfile);
void vdla_file_put(struct vdla_file *vfile);

#endif /* __VDLA_FILE_H__ */
