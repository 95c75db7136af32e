/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The BO ioctls (docs/uapi.md, "Buffers").
 */
#ifndef __VDLA_BO_IOCTL_H__
#define __VDLA_BO_IOCTL_H__

struct drm_device;
struct drm_file;

int vdla_ioctl_bo_create(struct drm_device *drm, void *data, struct drm_file *file);
int vdla_ioctl_bo_info(struct drm_device *drm, void *data, struct drm_file *file);
int vdla_ioctl_bo_wait(struct drm_device *drm, void *data, struct drm_file *file);
int vdla_ioctl_bo_import(struct drm_device *drm, void *data, struct drm_file *file);

#endif /* __VDLA_BO_IOCTL_H__ */
