/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __VDLA_QUERY_H__
#define __VDLA_QUERY_H__

struct drm_device;
struct drm_file;

int vdla_ioctl_query(struct drm_device *drm, void *data, struct drm_file *file);

#endif /* __VDLA_QUERY_H__ */
