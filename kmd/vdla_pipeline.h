/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Pipelines (docs/ownership.md): device-global named objects that a
 * privileged file creates and owns and other files open by reference,
 * with channels inside them (vdla_channel.h). Everything here is under
 * the device's pipelines lock, taken before a context's submit_lock and
 * the fw_lock.
 */
#ifndef __VDLA_PIPELINE_H__
#define __VDLA_PIPELINE_H__

#include <drm/drm_file.h>
#include <drm/vdla_accel.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/xarray.h>

struct seq_file;
struct vdla_device;
struct vdla_file;

/** struct vdla_pipelines - a device's pipelines */
struct vdla_pipelines {
	struct mutex lock;
	/** @list: the live pipelines (not gone), by creation. */
	struct list_head list;
	u32 count;
};

/** struct vdla_pipeline_event - a pipeline event reserved on a file */
struct vdla_pipeline_event {
	struct drm_pending_event base;
	struct drm_vdla_event_pipeline ev;
};

/**
 * struct vdla_pipeline - a pipeline
 *
 * Lives while a file holds a handle to it: the owner's until it is
 * destroyed or its file closes (the pipeline is then gone), the others'
 * until they close it.
 */
struct vdla_pipeline {
	struct vdla_device *vdev;
	/** @link: in vdla_pipelines.list while not gone. */
	struct list_head link;
	char name[DRM_VDLA_PIPELINE_NAME_LEN];
	u32 params[DRM_VDLA_PIPELINE_PARAMS];
	/** @owner: the owner's file; kept (with a reference) for errors once gone. */
	struct vdla_file *owner;
	/** @refs: every handle to the pipeline (struct vdla_pipeline_ref.link). */
	struct list_head refs;
	/** @references: handles of files other than the owner's. */
	u32 references;
	/** @gone: destroyed with FORCE, or its owner's file closed. */
	bool gone;
	u32 exit_actions;
	u64 exit_user_data;
	u32 exit_runs;
	/** @channels: by id (vdla_channel.c). */
	struct xarray channels;
	u32 next_channel_id;
	u32 num_channels;
	/** @others_channels: of those, created by files other than the owner's. */
	u32 others_channels;
};

/** struct vdla_pipeline_ref - a file's handle to a pipeline */
struct vdla_pipeline_ref {
	struct vdla_pipeline *pipeline;
	struct vdla_file *vfile;
	/** @file: for events; NULL once the file is closing. */
	struct drm_file *file;
	/** @link: in vdla_pipeline.refs. */
	struct list_head link;
	u32 handle;
	bool owner;
	/** @event: reserved: IDLE for the owner (with NOTIFY), GONE for the others. */
	struct vdla_pipeline_event *event;
};

int vdla_pipelines_init(struct vdla_device *vdev);

/* The ioctls' work, under the pipelines lock; @who is filled on EPERM/EEXIST. */
int vdla_pipeline_create(struct drm_file *file, const char *name, const u32 *params,
			 u32 *handle, struct drm_vdla_owner *who);
int vdla_pipeline_open(struct drm_file *file, struct drm_vdla_pipeline_open *args);
int vdla_pipeline_destroy(struct vdla_file *vfile, u32 handle, bool force, u32 *references,
			  struct drm_vdla_owner *who);
int vdla_pipeline_close(struct vdla_file *vfile, u32 handle);
int vdla_pipeline_query(struct vdla_file *vfile, struct drm_vdla_pipeline_query *args);
int vdla_pipeline_set_exit(struct vdla_file *vfile, u32 handle, u32 actions, u64 user_data,
			   struct drm_vdla_owner *who);

/*
 * For vdla_channel.c, under the pipelines lock: the caller's live
 * pipeline of @handle (ENOENT, ECANCELED), and who a file is.
 */
struct vdla_pipeline *vdla_pipeline_lookup_live(struct vdla_file *vfile, u32 handle);
void vdla_pipeline_owner_of(const struct vdla_file *holder, struct drm_vdla_owner *who);

/* Before the DRM core releases the file's events: none is sent to it after. */
void vdla_pipeline_file_closing(struct vdla_file *vfile);
/* At postclose: drops the file's handles, destroying the pipelines it owns. */
void vdla_pipeline_file_close(struct vdla_file *vfile);

void vdla_pipeline_debugfs_show(struct seq_file *m, struct vdla_device *vdev);

#endif /* __VDLA_PIPELINE_H__ */
