// SPDX-License-Identifier: GPL-2.0-only
/*
 * The pipeline, channel and port ioctls: argument checks, then the work in
 * vdla_pipeline.c and vdla_channel.c. Each failure is logged with its
 * reason at drm debug level; the owner in an EPERM or EEXIST is copied out
 * to the caller.
 */
#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>
#include <linux/ctype.h>

#include "vdla_channel.h"
#include "vdla_device.h"
#include "vdla_file.h"
#include "vdla_pipeline.h"
#include "vdla_pipeline_ioctl.h"

/* A name is 1 to 31 visible ASCII characters, NUL-terminated. */
static bool valid_name(const char *name)
{
	size_t len = strnlen(name, DRM_VDLA_PIPELINE_NAME_LEN);

	if (!len || len == DRM_VDLA_PIPELINE_NAME_LEN)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (!isgraph(name[i]))
			return false;
	}
	return true;
}

static void log_owner(struct drm_device *drm, const char *what, int ret,
		      const struct drm_vdla_owner *who)
{
	if (who && (ret == -EPERM || ret == -EEXIST))
		drm_dbg(drm, "%s: %d: held by pid %d (%s)\n", what, ret, who->pid, who->comm);
	else if (ret)
		drm_dbg(drm, "%s: %d\n", what, ret);
}

int vdla_ioctl_pipeline_create(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_vdla_pipeline_create *args = data;
	int ret;

	memset(&args->owner, 0, sizeof(args->owner));
	if (args->flags || !valid_name(args->name)) {
		drm_dbg(drm, "PIPELINE_CREATE: flags 0x%x or the name is not valid\n", args->flags);
		return -EINVAL;
	}
	ret = vdla_pipeline_create(file, args->name, args->params, &args->handle, &args->owner);
	log_owner(drm, "PIPELINE_CREATE", ret, &args->owner);
	return ret;
}

int vdla_ioctl_pipeline_open(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_vdla_pipeline_open *args = data;
	int ret;

	memset(&args->owner, 0, sizeof(args->owner));
	args->params_differ = 0;
	if ((args->flags & ~DRM_VDLA_PIPELINE_OPEN_FLAGS) || args->pad ||
	    !valid_name(args->name)) {
		drm_dbg(drm, "PIPELINE_OPEN: flags 0x%x, pad or the name is not valid\n",
			args->flags);
		return -EINVAL;
	}
	ret = vdla_pipeline_open(file, args);
	log_owner(drm, "PIPELINE_OPEN", ret, &args->owner);
	return ret;
}

int vdla_ioctl_pipeline_destroy(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_vdla_pipeline_destroy *args = data;
	int ret;

	memset(&args->owner, 0, sizeof(args->owner));
	args->references = 0;
	if ((args->flags & ~DRM_VDLA_PIPELINE_DESTROY_FLAGS) || args->pad) {
		drm_dbg(drm, "PIPELINE_DESTROY: flags 0x%x or pad\n", args->flags);
		return -EINVAL;
	}
	ret = vdla_pipeline_destroy(file->driver_priv, args->handle,
				    args->flags & DRM_VDLA_PIPELINE_DESTROY_FORCE,
				    &args->references, &args->owner);
	log_owner(drm, "PIPELINE_DESTROY", ret, &args->owner);
	return ret;
}

int vdla_ioctl_pipeline_close(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_vdla_pipeline_close *args = data;
	int ret;

	if (args->flags) {
		drm_dbg(drm, "PIPELINE_CLOSE: flags 0x%x\n", args->flags);
		return -EINVAL;
	}
	ret = vdla_pipeline_close(file->driver_priv, args->handle);
	if (ret == -EINVAL)
		drm_dbg(drm, "PIPELINE_CLOSE: the owner's handle: DESTROY the pipeline\n");
	return ret;
}

int vdla_ioctl_pipeline_query(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_vdla_pipeline_query *args = data;

	if (args->flags) {
		drm_dbg(drm, "PIPELINE_QUERY: flags 0x%x\n", args->flags);
		return -EINVAL;
	}
	return vdla_pipeline_query(file->driver_priv, args);
}

int vdla_ioctl_pipeline_set_exit(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_vdla_pipeline_set_exit *args = data;
	int ret;

	memset(&args->owner, 0, sizeof(args->owner));
	if (args->actions & ~DRM_VDLA_PIPELINE_EXIT_ACTIONS) {
		drm_dbg(drm, "PIPELINE_SET_EXIT: unknown actions 0x%x\n", args->actions);
		return -EINVAL;
	}
	ret = vdla_pipeline_set_exit(file->driver_priv, args->handle, args->actions,
				     args->user_data, &args->owner);
	log_owner(drm, "PIPELINE_SET_EXIT", ret, &args->owner);
	return ret;
}

/*
 * The caller's live pipeline @handle, with the pipelines lock held for the
 * channel ioctls' work; an ERR_PTR without it.
 */
static struct vdla_pipeline *lock_pipeline(struct vdla_file *vfile, u32 handle)
{
	struct vdla_pipeline *p;

	mutex_lock(&vfile->vdev->pipelines.lock);
	p = vdla_pipeline_lookup_live(vfile, handle);
	if (IS_ERR(p))
		mutex_unlock(&vfile->vdev->pipelines.lock);
	return p;
}

static void unlock_pipeline(struct vdla_pipeline *p)
{
	mutex_unlock(&p->vdev->pipelines.lock);
}

int vdla_ioctl_channel_create(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_vdla_channel_create *args = data;
	struct vdla_file *vfile = file->driver_priv;
	struct vdla_pipeline *p;
	int ret;

	if (args->flags) {
		drm_dbg(drm, "CHANNEL_CREATE: flags 0x%x\n", args->flags);
		return -EINVAL;
	}
	p = lock_pipeline(vfile, args->pipeline);
	if (IS_ERR(p))
		return PTR_ERR(p);
	ret = vdla_channel_create(vfile, p, args->ctx_id, args->attrs, &args->channel_id);
	unlock_pipeline(p);
	log_owner(drm, "CHANNEL_CREATE", ret, NULL);
	return ret;
}

int vdla_ioctl_channel_dup(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_vdla_channel_dup *args = data;
	struct vdla_file *vfile = file->driver_priv;
	struct vdla_pipeline *p;
	int ret;

	memset(&args->owner, 0, sizeof(args->owner));
	if (args->flags || args->pad) {
		drm_dbg(drm, "CHANNEL_DUP: flags 0x%x or pad\n", args->flags);
		return -EINVAL;
	}
	p = lock_pipeline(vfile, args->pipeline);
	if (IS_ERR(p))
		return PTR_ERR(p);
	ret = vdla_channel_dup(vfile, p, args->channel_id, &args->owner);
	unlock_pipeline(p);
	log_owner(drm, "CHANNEL_DUP", ret, &args->owner);
	return ret;
}

int vdla_ioctl_channel_destroy(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_vdla_channel_destroy *args = data;
	struct vdla_file *vfile = file->driver_priv;
	struct vdla_pipeline *p;
	int ret;

	memset(&args->owner, 0, sizeof(args->owner));
	if (args->flags || args->pad) {
		drm_dbg(drm, "CHANNEL_DESTROY: flags 0x%x or pad\n", args->flags);
		return -EINVAL;
	}
	p = lock_pipeline(vfile, args->pipeline);
	if (IS_ERR(p))
		return PTR_ERR(p);
	ret = vdla_channel_destroy(vfile, p, args->channel_id, &args->owner);
	unlock_pipeline(p);
	log_owner(drm, "CHANNEL_DESTROY", ret, &args->owner);
	return ret;
}

int vdla_ioctl_channel_attr(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_vdla_channel_attr *args = data;
	struct vdla_file *vfile = file->driver_priv;
	struct vdla_pipeline *p;
	int ret;

	if (args->flags) {
		drm_dbg(drm, "CHANNEL_ATTR: flags 0x%x\n", args->flags);
		return -EINVAL;
	}
	p = lock_pipeline(vfile, args->pipeline);
	if (IS_ERR(p))
		return PTR_ERR(p);
	ret = vdla_channel_attr(p, args);
	unlock_pipeline(p);
	log_owner(drm, "CHANNEL_ATTR", ret, NULL);
	return ret;
}

int vdla_ioctl_port_buffer(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_vdla_port_buffer *args = data;
	struct vdla_file *vfile = file->driver_priv;
	struct vdla_pipeline *p;
	int ret;

	memset(&args->owner, 0, sizeof(args->owner));
	if ((args->flags & ~DRM_VDLA_PORT_FLAGS) || args->pad) {
		drm_dbg(drm, "PORT_BUFFER: flags 0x%x or pad\n", args->flags);
		return -EINVAL;
	}
	p = lock_pipeline(vfile, args->pipeline);
	if (IS_ERR(p))
		return PTR_ERR(p);
	ret = vdla_port_buffer(file, p, args);
	unlock_pipeline(p);
	log_owner(drm, "PORT_BUFFER", ret, &args->owner);
	return ret;
}
