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
 * before the core sees them; and it serves read-only PRIME exports itself,
 * so that each carries its permission (vdla_gem_export_read_only()).
 */
#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_print.h>
#include <linux/compat.h>
#include <linux/dma-buf.h>
#include <linux/uaccess.h>

#include <drm/drm.h>

#include "vdla_core_ioctls.h"
#include "vdla_gem.h"
#include "vdla_mapping.h"

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

/*
 * PRIME_HANDLE_TO_FD: an export's permission is its own. Without DRM_RDWR
 * the driver makes a new read-only dma-buf (the core would hand out the
 * object's one dma-buf, whose mode the first export fixed); with it, the
 * core's read-write one, unless the caller holds the object read-only: a
 * read-only import, or a read-only BO_IMPORT or port buffer of its file
 * (EACCES: never a quiet downgrade). Returns 1 to let the core serve it.
 */
static int prime_handle_to_fd(struct file *filp, unsigned int cmd, void __user *arg)
{
	struct drm_file *file = filp->private_data;
	struct drm_prime_handle args;
	struct drm_gem_object *obj;
	struct dma_buf *dmabuf;
	int ret = 1;

	if (_IOC_SIZE(cmd) < sizeof(args) || copy_from_user(&args, arg, sizeof(args)) ||
	    (args.flags & ~(DRM_CLOEXEC | DRM_RDWR)))
		return 1; /* the core's answer: EFAULT or EINVAL */
	obj = drm_gem_object_lookup(file, args.handle);
	if (!obj)
		return -ENOENT;
	if (args.flags & DRM_RDWR) {
		if (vdla_gem_read_only(obj) || !vdla_mapping_file_may_write(file, obj)) {
			drm_dbg_core(file->minor->dev,
				     "PRIME_HANDLE_TO_FD: BO %u is held read-only\n", args.handle);
			ret = -EACCES;
		}
		goto out;
	}
	dmabuf = vdla_gem_export_read_only(obj);
	if (IS_ERR(dmabuf)) {
		ret = PTR_ERR(dmabuf);
		goto out;
	}
	ret = dma_buf_fd(dmabuf, args.flags & DRM_CLOEXEC);
	if (ret < 0) {
		dma_buf_put(dmabuf);
		goto out;
	}
	args.fd = ret;
	ret = copy_to_user(arg, &args, sizeof(args)) ? -EFAULT : 0;
out:
	drm_gem_object_put(obj);
	return ret;
}

static long accel_ioctl(struct file *filp, unsigned int cmd, void __user *arg, bool compat,
			unsigned long raw)
{
	int ret = check_core_ioctl(filp, cmd, arg);

	if (ret)
		return ret;
	if (_IOC_TYPE(cmd) == DRM_IOCTL_BASE &&
	    DRM_IOCTL_NR(cmd) == DRM_IOCTL_NR(DRM_IOCTL_PRIME_HANDLE_TO_FD)) {
		ret = prime_handle_to_fd(filp, cmd, arg);
		if (ret != 1)
			return ret;
	}
#ifdef CONFIG_COMPAT
	if (compat)
		return drm_compat_ioctl(filp, cmd, raw);
#endif
	return drm_ioctl(filp, cmd, raw);
}

long vdla_accel_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	return accel_ioctl(filp, cmd, (void __user *)arg, false, arg);
}

#ifdef CONFIG_COMPAT
long vdla_accel_compat_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	return accel_ioctl(filp, cmd, compat_ptr(arg), true, arg);
}
#endif
