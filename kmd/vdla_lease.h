/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The resource manager's driver side (docs/resources.md): leases on SRAM
 * partitions, engines and device-time shares with priorities, release requests with deadlines, revocation
 * at frame boundaries, and the events that tell userspace. The policy of
 * who gets a resource is vdla_lease_arb.c's.
 *
 * Locking: the manager's lock comes first, then a context's submit_lock,
 * then fw_lock, and the SRAM's lock; nothing drops a lease's last reference
 * under the manager's lock.
 */
#ifndef __VDLA_LEASE_H__
#define __VDLA_LEASE_H__

#include <linux/dma-fence.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <drm/drm_file.h>
#include <drm/vdla_accel.h>

#include "vdla_lease_arb.h"

struct drm_device;
struct seq_file;
struct vdla_ctx;
struct vdla_device;
struct vdla_file;
struct vdla_job;

/**
 * struct vdla_lease_resource - one resource leases are on
 */
struct vdla_lease_resource {
	struct vdla_arb_resource arb;
	/** @type: DRM_VDLA_RESOURCE_*. */
	u32 type;
	u32 index;
	/** @grants: times it was granted, for debugfs. */
	u64 grants;
};

/**
 * struct vdla_lease_mgr - the leases of one device
 */
struct vdla_lease_mgr {
	/** @lock: the arbitration, every lease's state, the SRAM BOs' leases. */
	struct mutex lock;
	struct vdla_lease_resource partitions[DRM_VDLA_MAX_SRAM_PARTITIONS];
	struct vdla_lease_resource engines[DRM_VDLA_NUM_ENGINES];
	struct vdla_lease_resource time_shares[DRM_VDLA_MAX_TIME_SHARES];
	/** @leases: every lease waiting, holding or handing over (vdla_lease.mgr_link). */
	struct list_head leases;
	/** @granted: woken at each grant, for ACQUIREs that wait. */
	wait_queue_head_t granted;
};

/* A lease's DRM event: the core frees it with kfree(&base). */
struct vdla_lease_event {
	struct drm_pending_event base;
	struct drm_vdla_event_lease ev;
};

/**
 * struct vdla_lease - one context's claim on a resource
 *
 * Referenced by its file's lease table, by its pending work and by a
 * hand-over under way. Fields are under the manager's lock unless said.
 */
struct vdla_lease {
	struct kref ref;
	struct vdla_arb_lease arb;
	struct vdla_device *vdev;
	struct vdla_lease_resource *res;
	/** @ctx: the context whose jobs use the resource; holds a reference. */
	struct vdla_ctx *ctx;
	/** @vfile: the owner, the context's file. */
	struct vdla_file *vfile;
	/** @file: where its events go; NULL once the file is closing. */
	struct drm_file *file;
	u32 id;
	u32 group;
	u64 user_data;
	u64 release_timeout_ns;
	pid_t pid;
	ktime_t created;
	/** @mgr_link: in the manager's list, until it is handed over or withdrawn. */
	struct list_head mgr_link;

	/** @notify_grant: ACQUIRE left it waiting: its grant is an event. */
	bool notify_grant;
	/** @asked: a release request is out, revocation at @deadline. */
	bool asked;
	u32 ask_reason;
	ktime_t deadline;
	/** @ending: released or revoked; the hand-over is under way or done. */
	bool ending;
	bool revoked;
	u32 revoke_reason;
	bool handover_started;
	/* Events whose space is reserved on @file; NULL once sent. */
	struct vdla_lease_event *ev_granted, *ev_asked, *ev_revoked;
	/**
	 * @share_grant: a device-time share's grant number, for the contexts
	 * that join it (vdla_lease_join_share()); set once, at the grant.
	 */
	u64 share_grant;
	/** @bos: its SRAM BOs (vdla_sram_bo.lease_link). */
	struct list_head bos;
	/** @work: the release deadline, and the steps of a revocation. */
	struct delayed_work work;

	/* Under the context's submit_lock: what SUBMIT checks and records. */
	/** @submittable: jobs may name it. */
	bool submittable;
	/** @frame_wait: revoked inside a frame: waits for the frame's END job. */
	bool frame_wait;
	/** @frame_link: in the context's frame_wait_leases while @frame_wait. */
	struct list_head frame_link;
	/** @last_fence: the fence of the last job that named it. */
	struct dma_fence *last_fence;

	/* The hand-over, once its last job has ended. */
	struct dma_fence_cb handover_cb;
	struct work_struct handover_work;
};

int vdla_lease_module_init(void);
void vdla_lease_module_exit(void);
int vdla_lease_init(struct vdla_device *vdev);

int vdla_ioctl_lease_acquire(struct drm_device *drm, void *data, struct drm_file *file);
int vdla_ioctl_lease_release(struct drm_device *drm, void *data, struct drm_file *file);
int vdla_ioctl_lease_query(struct drm_device *drm, void *data, struct drm_file *file);

/* A lease of @vfile by id, with a new reference; NULL if none. */
struct vdla_lease *vdla_lease_lookup(struct vdla_file *vfile, u32 id);
void vdla_lease_put(struct vdla_lease *lease);

/*
 * SUBMIT, under the context's submit_lock: whether @job may run, naming
 * @lease (NULL: none): the lease held by the job's context, and every SRAM
 * BO of a partition the job uses made under it. 0, -ECANCELED or -EACCES.
 */
int vdla_lease_check_job(struct vdla_lease *lease, const struct vdla_job *job);
/*
 * SUBMIT of @ctx naming @lease, a device-time share held by another context
 * of the file, under @ctx's submit_lock: @ctx joins the share. 0, or
 * -ECANCELED if the lease does not hold it.
 */
int vdla_lease_join_share(struct vdla_lease *lease, struct vdla_ctx *ctx);
/* SUBMIT, under submit_lock, after the job is queued: its fence, its frame's end. */
void vdla_lease_job_submitted(struct vdla_lease *lease, struct vdla_job *job, u32 submit_flags);

/* BO_CREATE of an SRAM BO in @lease_id's partition. */
struct drm_gem_object *vdla_lease_sram_bo_create(struct drm_device *drm, struct vdla_file *vfile,
						 u32 lease_id, size_t size);
/* An SRAM BO of a partition is being freed. */
void vdla_lease_sram_bo_freed(struct drm_gem_object *obj);

/* CTX_DESTROY: the context's leases end (released, not revoked) and are forgotten. */
void vdla_lease_ctx_destroyed(struct vdla_ctx *ctx);
/* The file is being released, before the DRM core drops its events. */
void vdla_lease_file_closing(struct vdla_file *vfile);
/* postclose, after the file's jobs were cancelled: its leases end at once. */
void vdla_lease_file_close(struct vdla_file *vfile);

/* The sysfs attribute sram_partitions of the PCI device. */
int vdla_lease_sysfs_init(struct vdla_device *vdev);
/* debugfs "leases". */
void vdla_lease_debugfs_show(struct seq_file *m, struct vdla_device *vdev);

#endif /* __VDLA_LEASE_H__ */
