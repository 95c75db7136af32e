// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DRM core's ioctls as our accel node offers them. The core gives an
 * accel file most of what a primary node's file has, and some of it does
 * not make sense or is not safe there: GET_UNIQUE and GET_MAGIC dereference
 * a master accel files do not have (an oops), GEM_FLINK and GEM_OPEN give
 * any process another's buffer by a small guessable global name, and the
 * syncobj array ioctls allocate whatever count the caller names (a page
 * allocator warning near 2^31). The node takes what a render node takes of
 * the core (version and caps, handle close, PRIME, syncobjs) and refuses
 * the rest with EACCES as a render node does; it bounds the syncobj counts
 * before the core sees them.
 */
#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_print.h>
#include <linux/compat.h>
#include <linux/uaccess.h>

#include <drm/drm.h>

#include "vdla_core_ioctls.h"

static bool core_ioctl_allowed(unsigned int nr)
{
	switch (nr) {
	case DRM_IOCTL_NR(DRM_IOCTL_VERSION):
	case DRM_IOCTL_NR(DRM_IOCTL_GET_CAP):
	case DRM_IOCTL_NR(DRM_IOCTL_GEM_CLOSE):
	case DRM_IOCTL_NR(DRM_IOCTL_PRIME_HANDLE_TO_FD):
	case DRM_IOCTL_NR(DRM_IOCTL_PRIME_FD_TO_HANDLE):
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_CREATE):
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_DESTROY):
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD):
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE):
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_WAIT):
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_RESET):
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_SIGNAL):
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT):
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_QUERY):
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_TRANSFER):
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL):
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_EVENTFD):
		return true;
	default:
		return false;
	}
}

/* Where an array ioctl keeps its count of syncobjs; false if it has none. */
static bool count_offset(unsigned int nr, size_t *offset)
{
	switch (nr) {
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_WAIT):
		*offset = offsetof(struct drm_syncobj_wait, count_handles);
		return true;
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT):
		*offset = offsetof(struct drm_syncobj_timeline_wait, count_handles);
		return true;
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_RESET):
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_SIGNAL):
		*offset = offsetof(struct drm_syncobj_array, count_handles);
		return true;
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL):
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_QUERY):
		*offset = offsetof(struct drm_syncobj_timeline_array, count_handles);
		return true;
	default:
		return false;
	}
}

/*
 * The core copies _IOC_SIZE(cmd) bytes of the arguments (and zeroes the
 * rest), so the count is read only where the caller's size covers it. The
 * caller can change it between this read and the core's: the bound keeps
 * honest callers and plain fuzzing away from the allocator, not a racing
 * attacker, whose warning the core's allocation must prevent (upstream).
 */
static int check_core_ioctl(struct file *filp, unsigned int cmd, void __user *arg)
{
	struct drm_file *file = filp->private_data;
	unsigned int nr = DRM_IOCTL_NR(cmd);
	size_t offset;
	u32 count;

	if (_IOC_TYPE(cmd) != DRM_IOCTL_BASE ||
	    (nr >= DRM_COMMAND_BASE && nr < DRM_COMMAND_END))
		return 0;
	if (!core_ioctl_allowed(nr)) {
		drm_dbg_core(file->minor->dev, "core ioctl 0x%02x is not offered on accel nodes\n",
			     nr);
		return -EACCES;
	}
	if (!count_offset(nr, &offset) || _IOC_SIZE(cmd) < offset + sizeof(count))
		return 0;
	if (get_user(count, (u32 __user *)(arg + offset)))
		return -EFAULT;
	if (count > VDLA_MAX_SYNCOBJS_PER_CALL) {
		drm_dbg_core(file->minor->dev, "core ioctl 0x%02x: %u syncobjs, at most %u\n", nr,
			     count, VDLA_MAX_SYNCOBJS_PER_CALL);
		return -EINVAL;
	}
	return 0;
}

long vdla_accel_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	int ret = check_core_ioctl(filp, cmd, (void __user *)arg);

	return ret ? ret : drm_ioctl(filp, cmd, arg);
}

#ifdef CONFIG_COMPAT
long vdla_accel_compat_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	int ret = check_core_ioctl(filp, cmd, compat_ptr(arg));

	return ret ? ret : drm_compat_ioctl(filp, cmd, arg);
}
#endif
