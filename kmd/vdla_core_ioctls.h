/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef VDLA_CORE_IOCTLS_H
#define VDLA_CORE_IOCTLS_H

#include <linux/fs.h>

/*
 * Most syncobjs one call of the DRM core's array ioctls may name on our
 * node (SYNCOBJ_WAIT, TIMELINE_WAIT, RESET, SIGNAL, TIMELINE_SIGNAL, QUERY).
 */
#define VDLA_MAX_SYNCOBJS_PER_CALL	1024

long vdla_accel_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);
#ifdef CONFIG_COMPAT
long vdla_accel_compat_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);
#endif

#endif /* VDLA_CORE_IOCTLS_H */
