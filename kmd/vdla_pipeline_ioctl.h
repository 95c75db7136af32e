/* SPDX-License-Identifier: GPL-2.0-only */
/* The pipeline, channel and port ioctls (vdla_pipeline_ioctl.c). */
#ifndef __VDLA_PIPELINE_IOCTL_H__
#define __VDLA_PIPELINE_IOCTL_H__

struct drm_device;
struct drm_file;

int vdla_ioctl_pipeline_create(struct drm_device *drm, void *data, struct drm_file *file);
int vdla_ioctl_pipeline_open(struct drm_device *drm, void *data, struct drm_file *file);
int vdla_ioctl_pipeline_destroy(struct drm_device *drm, void *data, struct drm_file *file);
int vdla_ioctl_pipeline_close(struct drm_device *drm, void *data, struct drm_file *file);
int vdla_ioctl_pipeline_query(struct drm_device *drm, void *data, struct drm_file *file);
int vdla_ioctl_pipeline_set_exit(struct drm_device *drm, void *data, struct drm_file *file);
int vdla_ioctl_channel_create(struct drm_device *drm, void *data, struct drm_file *file);
int vdla_ioctl_channel_dup(struct drm_device *drm, void *data, struct drm_file *file);
int vdla_ioctl_channel_destroy(struct drm_device *drm, void *data, struct drm_file *file);
int vdla_ioctl_channel_attr(struct drm_device *drm, void *data, struct drm_file *file);
int vdla_ioctl_port_buffer(struct drm_device *drm, void *data, struct drm_file *file);

#endif /* __VDLA_PIPELINE_IOCTL_H__ */
