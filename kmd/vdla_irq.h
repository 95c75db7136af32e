/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __VDLA_IRQ_H__
#define __VDLA_IRQ_H__

#include "vdla_regs.h"

/* The interrupts the driver handles today. */
#define VDLA_DRIVER_INTERRUPTS \
	(VDLA_INT_TEST | VDLA_INT_DONE_ALL | VDLA_INT_ERROR_ALL | VDLA_INT_MMU_FAULT)

struct drm_device;
struct drm_file;
struct vdla_device;

int vdla_irq_init(struct vdla_device *vdev);
void vdla_irq_fini(struct vdla_device *vdev);

int vdla_ioctl_test_irq(struct drm_device *drm, void *data, struct drm_file *file);

#endif /* __VDLA_IRQ_H__ */
