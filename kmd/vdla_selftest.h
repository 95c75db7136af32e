/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __VDLA_SELFTEST_H__
#define __VDLA_SELFTEST_H__

#include <linux/types.h>

struct drm_device;
struct drm_file;
struct vdla_device;

int vdla_selftest_init(struct vdla_device *vdev);

int vdla_ioctl_test_bdma(struct drm_device *drm, void *data, struct drm_file *file);

#endif /* __VDLA_SELFTEST_H__ */
