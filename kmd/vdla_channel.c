// SPDX-License-Identifier: GPL-2.0-only
/*
 * Channels and ports (docs/ownership.md).
 *
 * A channel belongs to the file that created it. It may be duplicated into
 * one other file, once ever; each destroys its own handle, and the channel
 * lives until both are gone. Any file with the pipeline open reads and
 * sets its attributes, starts and stops it, and takes and returns the
 * buffers its ports lend; a buffer is returned by the file that took it.
 * Stopping a channel cancels the jobs of its context that have not
 * started (vdla_sched_cut()).
 */
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "vdla_channel.h"
#include "vdla_ctx.h"
#include "vdla_device.h"
#include "vdla_file.h"
#include "vdla_mapping.h"
#include "vdla_pipeline.h"
#include "vdla_sched.h"
#include "vdla_sram_bo.h"

static struct vdla_channel *lookup(struct vdla_pipeline *p, u32 channel_id)
{
	return channel_id ? xa_load(&p->channels, channel_id) : NULL;
}

/* Stops @ch: its context's jobs that have not started end with ECANCELED. */
static void stop(struct vdla_channel *ch)
{
	struct vdla_ctx *ctx = ch->ctx;

	ch->stopped = true;
	if (!ctx)
		return;
	mutex_lock(&ctx->submit_lock);
	if (!ctx->destroyed)
		vdla_sched_cancel_queued(ctx);
	mutex_unlock(&ctx->submit_lock);
}

/* Closes @file's handle @handle if it still names @obj: the taker's access ends. */
static void close_handle(struct drm_file *file, u32 handle, struct drm_gem_object *obj)
{
	struct drm_gem_object *named;

	if (!file)
		return; /* postclose: the DRM core closed every handle already */
	named = drm_gem_object_lookup(file, handle);
	if (named == obj)
		drm_gem_handle_delete(file, handle);
	if (named)
		drm_gem_object_put(named);
}

static void give_back(struct vdla_port_buffer *buf, struct drm_file *file)
{
	if (buf->taker_handle)
		close_handle(file, buf->taker_handle, buf->obj);
	vdla_file_put(buf->taker);
	buf->taker = NULL;
	buf->taker_handle = 0;
}

/*
 * Frees @ch with its ports. A buffer still taken stays with its taker,
 * whose handle holds the BO.
 */
static void free_channel(struct vdla_channel *ch)
{
	struct vdla_pipeline *p = ch->pipeline;

	stop(ch);
	for (u32 i = 0; i < DRM_VDLA_CHANNEL_PORTS; i++) {
		struct vdla_port *port = &ch->ports[i];

		for (u32 b = 0; b < port->count; b++) {
			if (port->buffers[b].taker)
				vdla_file_put(port->buffers[b].taker);
			drm_gem_object_put(port->buffers[b].obj);
		}
	}
	xa_erase(&p->channels, ch->id);
	p->num_channels--;
	p->others_channels -= ch->owner != p->owner;
	atomic_dec(&p->vdev->counters.channels);
	if (ch->ctx)
		vdla_ctx_put(ch->ctx);
	if (ch->dup)
		vdla_file_put(ch->dup);
	vdla_file_put(ch->owner);
	kfree(ch);
}

int vdla_channel_create(struct vdla_file *vfile, struct vdla_pipeline *p, u32 ctx_id,
			const u64 *attrs, u32 *channel_id)
{
	struct vdla_ctx *ctx = NULL;
	struct vdla_channel *ch;
	int ret;

	if (p->num_channels >= DRM_VDLA_MAX_CHANNELS ||
	    (vfile != p->owner &&
	     p->others_channels >= DRM_VDLA_MAX_CHANNELS - DRM_VDLA_OWNER_CHANNELS))
		return -EAGAIN;
	if (ctx_id) {
		ctx = vdla_ctx_lookup(vfile, ctx_id);
		if (!ctx)
			return -ENOENT;
	}
	ch = kzalloc(sizeof(*ch), GFP_KERNEL);
	if (!ch) {
		ret = -ENOMEM;
		goto out_ctx;
	}
	ret = xa_alloc_cyclic(&p->channels, &ch->id, ch, xa_limit_32b, &p->next_channel_id,
			      GFP_KERNEL);
	if (ret < 0)
		goto out_free;
	ch->pipeline = p;
	ch->owner = vfile;
	vdla_file_get(vfile);
	ch->owner_holds = true;
	ch->ctx = ctx;
	memcpy(ch->attrs, attrs, sizeof(ch->attrs));
	memcpy(ch->initial_attrs, attrs, sizeof(ch->initial_attrs));
	p->num_channels++;
	p->others_channels += vfile != p->owner;
	atomic_inc(&p->vdev->counters.channels);
	*channel_id = ch->id;
	return 0;

out_free:
	kfree(ch);
out_ctx:
	if (ctx)
		vdla_ctx_put(ctx);
	return ret;
}

int vdla_channel_dup(struct vdla_file *vfile, struct vdla_pipeline *p, u32 channel_id,
		     struct drm_vdla_owner *who)
{
	struct vdla_channel *ch = lookup(p, channel_id);

	if (!ch)
		return -ENOENT;
	vdla_pipeline_owner_of(ch->owner, who);
	if (ch->owner == vfile)
		return -EEXIST;
	if (ch->dup) {
		vdla_pipeline_owner_of(ch->dup, who);
		return -EEXIST;
	}
	ch->dup = vfile;
	vdla_file_get(vfile);
	ch->dup_holds = true;
	return 0;
}

int vdla_channel_destroy(struct vdla_file *vfile, struct vdla_pipeline *p, u32 channel_id,
			 struct drm_vdla_owner *who)
{
	struct vdla_channel *ch = lookup(p, channel_id);

	if (!ch)
		return -ENOENT;
	if (ch->owner == vfile && ch->owner_holds) {
		ch->owner_holds = false;
	} else if (ch->dup == vfile && ch->dup_holds) {
		ch->dup_holds = false;
	} else {
		vdla_pipeline_owner_of(ch->owner, who);
		return -EPERM;
	}
	if (!ch->owner_holds && !ch->dup_holds)
		free_channel(ch);
	return 0;
}

int vdla_channel_attr(struct vdla_pipeline *p, struct drm_vdla_channel_attr *args)
{
	struct vdla_channel *ch = lookup(p, args->channel_id);
	bool keyed = args->op == DRM_VDLA_CHANNEL_ATTR_OP_GET ||
		     args->op == DRM_VDLA_CHANNEL_ATTR_OP_SET;

	if (args->op > DRM_VDLA_CHANNEL_ATTR_OP_STOP ||
	    (keyed ? args->key >= DRM_VDLA_CHANNEL_ATTRS : args->key))
		return -EINVAL;
	if (!ch)
		return -ENOENT;
	switch (args->op) {
	case DRM_VDLA_CHANNEL_ATTR_OP_GET:
		args->value = ch->attrs[args->key];
		break;
	case DRM_VDLA_CHANNEL_ATTR_OP_SET:
		ch->attrs[args->key] = args->value;
		break;
	case DRM_VDLA_CHANNEL_ATTR_OP_START:
		ch->stopped = false;
		break;
	case DRM_VDLA_CHANNEL_ATTR_OP_STOP:
		stop(ch);
		break;
	}
	args->state = ch->stopped ? DRM_VDLA_CHANNEL_STATE_STOPPED :
				    DRM_VDLA_CHANNEL_STATE_STARTED;
	return 0;
}

/* Whether @vfile holds @obj as a buffer it took from a port of @p. */
static bool taken_by(struct vdla_pipeline *p, struct drm_gem_object *obj, struct vdla_file *vfile)
{
	struct vdla_channel *ch;
	unsigned long id;

	xa_for_each(&p->channels, id, ch) {
		for (u32 i = 0; i < DRM_VDLA_CHANNEL_PORTS; i++) {
			for (u32 b = 0; b < ch->ports[i].count; b++) {
				const struct vdla_port_buffer *buf = &ch->ports[i].buffers[b];

				if (buf->obj == obj && buf->taker == vfile && buf->taker_handle)
					return true;
			}
		}
	}
	return false;
}

static int attach(struct drm_file *file, struct vdla_channel *ch, struct vdla_port *port,
		  struct drm_vdla_port_buffer *args)
{
	bool read_only = args->flags & DRM_VDLA_PORT_READ_ONLY;
	struct drm_gem_object *obj;
	struct vdla_mapping *m;
	bool writable;

	if (ch->owner != file->driver_priv || !ch->owner_holds) {
		vdla_pipeline_owner_of(ch->owner, &args->owner);
		return -EPERM;
	}
	if (port->count >= DRM_VDLA_PORT_BUFFERS)
		return -EAGAIN;
	if (port->count && port->read_only != read_only)
		return -EINVAL; /* a port lends all its buffers alike */
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	/* An SRAM block never leaves its file (vdla_sram_bo.c). */
	if (vdla_sram_bo_is(obj)) {
		drm_gem_object_put(obj);
		return -EINVAL;
	}
	/* A borrowed buffer is not lent on: it would stay lent after its return. */
	if (taken_by(ch->pipeline, obj, file->driver_priv)) {
		drm_gem_object_put(obj);
		return -EACCES;
	}
	for (u32 b = 0; b < port->count; b++) {
		if (port->buffers[b].obj == obj) {
			drm_gem_object_put(obj);
			return -EEXIST;
		}
	}
	/* Nobody gets more access through a port than its owner has. */
	m = vdla_mapping_get(file, obj, args->handle);
	if (IS_ERR(m)) {
		drm_gem_object_put(obj);
		return PTR_ERR(m);
	}
	writable = m->writable;
	vdla_mapping_put(m);
	if (!writable && !read_only) {
		drm_gem_object_put(obj);
		return -EACCES;
	}
	port->read_only = read_only;
	port->buffers[port->count].obj = obj; /* the lookup's reference */
	port->buffers[port->count].owner_handle = args->handle;
	args->index = port->count++;
	return 0;
}

/*
 * The channel's owner takes a buffer to fill it, by the handle it attached
 * it with: it has it already, with all the access it had.
 */
static int take_own(struct drm_file *file, struct vdla_port_buffer *buf)
{
	struct drm_gem_object *named = drm_gem_object_lookup(file, buf->owner_handle);
	int ret = named == buf->obj ? 0 : -ENOENT;

	if (named)
		drm_gem_object_put(named);
	buf->taker_handle = 0;
	return ret;
}

static int take(struct drm_file *file, struct vdla_channel *ch, struct vdla_port *port,
		struct drm_vdla_port_buffer *args)
{
	struct vdla_file *vfile = file->driver_priv;
	bool own = ch->owner == vfile;
	int ret = -EAGAIN;

	for (u32 b = 0; b < port->count; b++) {
		struct vdla_port_buffer *buf = &port->buffers[b];

		if (buf->taker)
			continue;
		if (own)
			ret = take_own(file, buf);
		else
			ret = vdla_mapping_handle_create(file, buf->obj, !port->read_only,
							 &buf->taker_handle);
		/*
		 * One the caller holds already (EBUSY), or, for the owner, one
		 * whose handle it closed (ENOENT): another free one may do.
		 */
		if (ret == -EBUSY || ret == -ENOENT)
			continue;
		if (ret)
			return ret;
		buf->taker = vfile;
		vdla_file_get(vfile);
		args->handle = own ? buf->owner_handle : buf->taker_handle;
		args->flags = own ? DRM_VDLA_PORT_TAKEN_OWN : 0;
		args->index = b;
		return 0;
	}
	return ret;
}

static int give(struct drm_file *file, struct vdla_port *port, struct drm_vdla_port_buffer *args)
{
	struct vdla_port_buffer *buf;

	if (args->index >= port->count || !port->buffers[args->index].taker)
		return -ENOENT;
	buf = &port->buffers[args->index];
	if (buf->taker != file->driver_priv) {
		vdla_pipeline_owner_of(buf->taker, &args->owner);
		return -EPERM;
	}
	give_back(buf, file);
	return 0;
}

int vdla_port_buffer(struct drm_file *file, struct vdla_pipeline *p,
		     struct drm_vdla_port_buffer *args)
{
	struct vdla_channel *ch = lookup(p, args->channel_id);
	struct vdla_port *port;

	if (args->port >= DRM_VDLA_CHANNEL_PORTS || args->op > DRM_VDLA_PORT_OP_RETURN ||
	    (args->op != DRM_VDLA_PORT_OP_ATTACH && args->flags))
		return -EINVAL;
	if (!ch)
		return -ENOENT;
	port = &ch->ports[args->port];
	switch (args->op) {
	case DRM_VDLA_PORT_OP_ATTACH:
		return attach(file, ch, port, args);
	case DRM_VDLA_PORT_OP_TAKE:
		return take(file, ch, port, args);
	default:
		return give(file, port, args);
	}
}

void vdla_channels_drop_file(struct vdla_pipeline *p, struct vdla_file *vfile,
			     struct drm_file *file)
{
	struct vdla_channel *ch;
	unsigned long id;

	xa_for_each(&p->channels, id, ch) {
		for (u32 i = 0; i < DRM_VDLA_CHANNEL_PORTS; i++) {
			struct vdla_port *port = &ch->ports[i];

			for (u32 b = 0; b < port->count; b++) {
				if (port->buffers[b].taker == vfile)
					give_back(&port->buffers[b], file);
			}
		}
		if (ch->owner == vfile)
			ch->owner_holds = false;
		if (ch->dup == vfile)
			ch->dup_holds = false;
		if (!ch->owner_holds && !ch->dup_holds)
			free_channel(ch);
	}
}

void vdla_channels_stop_all(struct vdla_pipeline *p)
{
	struct vdla_channel *ch;
	unsigned long id;

	xa_for_each(&p->channels, id, ch)
		stop(ch);
}

void vdla_channels_reset_attrs(struct vdla_pipeline *p)
{
	struct vdla_channel *ch;
	unsigned long id;

	xa_for_each(&p->channels, id, ch)
		memcpy(ch->attrs, ch->initial_attrs, sizeof(ch->attrs));
}

void vdla_channels_destroy_all(struct vdla_pipeline *p)
{
	struct vdla_channel *ch;
	unsigned long id;

	xa_for_each(&p->channels, id, ch)
		free_channel(ch);
}

void vdla_channels_debugfs_show(struct seq_file *m, struct vdla_pipeline *p)
{
	struct vdla_channel *ch;
	unsigned long id;

	xa_for_each(&p->channels, id, ch) {
		u32 taken = 0, buffers = 0;

		for (u32 i = 0; i < DRM_VDLA_CHANNEL_PORTS; i++) {
			buffers += ch->ports[i].count;
			for (u32 b = 0; b < ch->ports[i].count; b++)
				taken += !!ch->ports[i].buffers[b].taker;
		}
		seq_printf(m, "  channel %u owner_pid %d%s dup_pid %d%s ctx %u %s buffers %u taken %u\n",
			   ch->id, ch->owner->pid, ch->owner_holds ? "" : " (destroyed)",
			   ch->dup ? ch->dup->pid : 0,
			   ch->dup && !ch->dup_holds ? " (destroyed)" : "",
			   ch->ctx ? ch->ctx->id : 0, ch->stopped ? "stopped" : "started", buffers,
			   taken);
	}
}
