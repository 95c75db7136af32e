/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fence ioctls (docs/uapi.md, FENCE_WAIT and FENCE_EXPORT).
 */
#ifndef __VDLA_FENCE_IOCTL_H__
#define __VDLA_FENCE_IOCTL_H__

struct drm_device;
struct drm_file;

int vdla_ioctl_fence_wait(struct drm_device *drm, void *data, struct drm_file *file);
int vdla_ioctl_fence_export(struct drm_device *drm, void *data, struct drm_file *file);

#endif /* __VDLA_FENCE_IOCTL_H__ */
