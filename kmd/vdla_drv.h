/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __VDLA_DRV_H__
#define __VDLA_DRV_H__

/* Driver (UAPI) version; the history is next to struct drm_driver. */
#define VDLA_DRIVER_MAJOR	1
#define VDLA_DRIVER_MINOR	12
#define VDLA_DRIVER_PATCHLEVEL	0

#endif /* __VDLA_DRV_H__ */
