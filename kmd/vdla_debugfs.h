/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __VDLA_DEBUGFS_H__
#define __VDLA_DEBUGFS_H__

struct vdla_device;

/* Declares the DRM debugfs files; call before drm_dev_register(). */
void vdla_debugfs_init(struct vdla_device *vdev);
/* Adds the writable ones; call after drm_dev_register(). */
void vdla_debugfs_register(struct vdla_device *vdev);

#endif /* __VDLA_DEBUGFS_H__ */
