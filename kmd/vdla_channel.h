/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Channels of a pipeline and their ports (docs/ownership.md). All under
 * the device's pipelines lock.
 */
#ifndef __VDLA_CHANNEL_H__
#define __VDLA_CHANNEL_H__

#include <drm/vdla_accel.h>
#include <linux/types.h>

struct drm_file;
struct drm_gem_object;
struct seq_file;
struct vdla_ctx;
struct vdla_file;
struct vdla_pipeline;

/** struct vdla_port_buffer - a buffer a port lends */
struct vdla_port_buffer {
	/** @obj: the BO, with a reference. */
	struct drm_gem_object *obj;
	/** @taker: the file that took it (with a reference), or NULL while free. */
	struct vdla_file *taker;
	/** @taker_handle: the taker's handle, which RETURN closes; 0 for the owner's own. */
	u32 taker_handle;
	/** @owner_handle: the owner's handle at ATTACH, which the owner takes the buffer by. */
	u32 owner_handle;
};

/** struct vdla_port - the buffers a channel lends through one port */
struct vdla_port {
	u32 count;
	bool read_only;
	struct vdla_port_buffer buffers[DRM_VDLA_PORT_BUFFERS];
};

/**
 * struct vdla_channel - a channel
 *
 * Has up to two handles: its creator's and one duplicate, ever; lives
 * until both are gone (or its pipeline is).
 */
struct vdla_channel {
	u32 id;
	struct vdla_pipeline *pipeline;
	/** @owner: the creator's file, with a reference kept for errors. */
	struct vdla_file *owner;
	bool owner_holds;
	/** @dup: the file it was duplicated into (with a reference), or NULL. */
	struct vdla_file *dup;
	bool dup_holds;
	/** @ctx: the context whose jobs are the channel's work (a reference), or NULL. */
	struct vdla_ctx *ctx;
	bool stopped;
	u64 attrs[DRM_VDLA_CHANNEL_ATTRS];
	u64 initial_attrs[DRM_VDLA_CHANNEL_ATTRS];
	struct vdla_port ports[DRM_VDLA_CHANNEL_PORTS];
};

int vdla_channel_create(struct vdla_file *vfile, struct vdla_pipeline *p, u32 ctx_id,
			const u64 *attrs, u32 *channel_id);
int vdla_channel_dup(struct vdla_file *vfile, struct vdla_pipeline *p, u32 channel_id,
		     struct drm_vdla_owner *who);
int vdla_channel_destroy(struct vdla_file *vfile, struct vdla_pipeline *p, u32 channel_id,
			 struct drm_vdla_owner *who);
int vdla_channel_attr(struct vdla_pipeline *p, struct drm_vdla_channel_attr *args);
int vdla_port_buffer(struct drm_file *file, struct vdla_pipeline *p,
		     struct drm_vdla_port_buffer *args);

/* @vfile lets go of @p: its channel handles and taken buffers; @file is NULL at postclose. */
void vdla_channels_drop_file(struct vdla_pipeline *p, struct vdla_file *vfile,
			     struct drm_file *file);
void vdla_channels_stop_all(struct vdla_pipeline *p);
void vdla_channels_reset_attrs(struct vdla_pipeline *p);
void vdla_channels_destroy_all(struct vdla_pipeline *p);
void vdla_channels_debugfs_show(struct seq_file *m, struct vdla_pipeline *p);

#endif /* __VDLA_CHANNEL_H__ */
