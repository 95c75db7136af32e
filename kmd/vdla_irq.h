/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __VDLA_IRQ_H__
#define __VDLA_IRQ_H__

struct drm_device;
struct drm_file;
struct vdla_device;

int vdla_irq_init(struct vdla_device *vdev);
void vdla_irq_fini(struct vdla_device *vdev);

int vdla_ioctl_test_irq(struct drm_device *drm, void *data, struct drm_file *file);

#endif /* __VDLA_IRQ_H__ */
