// SPDX-License-Identifier: GPL-2.0-only
/*
 * FENCE_WAIT: waits for a syncobj's fence and reports how it ended, its
 * error and when, in one call. The DRM core's waits say only that a fence
 * signalled; its error and time take exporting it as a sync file, which is
 * five more calls and a new file for every job a runtime waits for.
 *
 * FENCE_EXPORT: a point's own fence as a sync file, in one call where the
 * core takes a temporary syncobj, a transfer and an export; and a point
 * whose outcome is gone (merged into the next once signalled) is refused,
 * where the core's export hands out its signalled stub, which a waiter in
 * another process would read as a success whatever the job did.
 */
#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>
#include <linux/dma-fence-chain.h>
#include <linux/dma-fence-unwrap.h>
#include <linux/file.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/sync_file.h>

#include <drm/vdla_accel.h>

#include "vdla_fence_ioctl.h"

static int vdla_fence_wait_check_args(struct drm_device *drm,
				      const struct drm_vdla_fence_wait *args)
{
	if (args->flags & ~DRM_VDLA_FENCE_WAIT_FLAGS) {
		drm_dbg(drm, "FENCE_WAIT: unknown flags 0x%x\n", args->flags);
		return -EINVAL;
	}
	if (args->pad) {
		drm_dbg(drm, "FENCE_WAIT: pad is not 0\n");
		return -EINVAL;
	}
	if (args->timeout_ns < 0) {
		drm_dbg(drm, "FENCE_WAIT: negative timeout\n");
		return -EINVAL;
	}
	return 0;
}

/*
 * The fence of @point itself, found as @found. A timeline's points are chain
 * nodes, each holding the fence given for it: only the node of exactly
 * @point tells how that point's job ended. Another node, or the signalled
 * stub the core gives when it found none, means that the point's own node
 * was merged away once signalled: its outcome is not known any more.
 */
static struct dma_fence *vdla_own_fence(struct dma_fence *found, u64 point)
{
	if (!dma_fence_is_chain(found))
		return point ? NULL : dma_fence_get(found);
	if (point && found->seqno != point)
		return NULL;
	return dma_fence_get(dma_fence_chain_contained(found));
}

/*
 * Waits for @fence until @deadline: 0, -ETIMEDOUT or -ERESTARTSYS. A zero
 * wait still enables signalling, which some fences need to ever signal.
 */
static int vdla_wait_fence(struct dma_fence *fence, ktime_t deadline)
{
	s64 left_ns = ktime_to_ns(ktime_sub(deadline, ktime_get()));
	u64 jiffies = left_ns > 0 ? nsecs_to_jiffies64(left_ns) + 1 : 0;
	long left;

	left = dma_fence_wait_timeout(fence, true,
				      min_t(u64, jiffies, MAX_SCHEDULE_TIMEOUT - 1));
	if (left < 0)
		return left;
	return left ? 0 : -ETIMEDOUT;
}

/*
 * How @own ended: a fence that holds others (a chain or array from an
 * imported sync file) is read as a sync file reads it, the first error of
 * the fences inside and the last time one of them signalled.
 */
static void vdla_fence_outcome(struct dma_fence *own, struct drm_vdla_fence_wait *args)
{
	struct dma_fence_unwrap iter;
	struct dma_fence *fence;
	ktime_t last = 0;
	int error = 0;

	dma_fence_unwrap_for_each(fence, &iter, own) {
		int status = dma_fence_get_status(fence);

		if (status < 0 && !error)
			error = status;
		if (status && ktime_after(dma_fence_timestamp(fence), last))
			last = dma_fence_timestamp(fence);
	}
	args->error = error;
	args->timestamp_ns = ktime_to_ns(last);
}

int vdla_ioctl_fence_wait(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_vdla_fence_wait *args = data;
	struct dma_fence *found, *own;
	ktime_t deadline;
	int ret;

	ret = vdla_fence_wait_check_args(drm, args);
	if (ret)
		return ret;
	deadline = ktime_add_ns(ktime_get(), min_t(s64, args->timeout_ns, KTIME_MAX / 2));

	/* -ENOENT for a handle the caller does not have, -EINVAL for no fence. */
	ret = drm_syncobj_find_fence(file, args->handle, args->point, 0, &found);
	if (ret) {
		drm_dbg(drm, "FENCE_WAIT: syncobj %u: %s at point %llu\n", args->handle,
			ret == -ENOENT ? "no such handle" : "no fence", args->point);
		return ret == -ENOENT ? -ENOENT : -EINVAL;
	}
	own = vdla_own_fence(found, args->point);
	if (!own) {
		drm_dbg(drm, "FENCE_WAIT: point %llu of syncobj %u was merged away\n",
			args->point, args->handle);
		dma_fence_put(found);
		return -ENODATA;
	}

	/* The point, not its own fence alone: a timeline point waits for those before. */
	ret = vdla_wait_fence(found, deadline);
	if (!ret)
		vdla_fence_outcome(own, args);
	else if (ret == -ERESTARTSYS)
		/* A restarted call waits for what is left, not the whole time again. */
		args->timeout_ns = max_t(s64, ktime_to_ns(ktime_sub(deadline, ktime_get())), 0);
	dma_fence_put(own);
	dma_fence_put(found);
	return ret;
}

int vdla_ioctl_fence_export(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_vdla_fence_export *args = data;
	struct dma_fence *found, *own;
	struct sync_file *sync_file;
	int fd, ret;

	if (args->flags & ~DRM_VDLA_FENCE_EXPORT_FLAGS || args->pad) {
		drm_dbg(drm, "FENCE_EXPORT: unknown flags 0x%x, or pad not 0\n", args->flags);
		return -EINVAL;
	}
	ret = drm_syncobj_find_fence(file, args->handle, args->point, 0, &found);
	if (ret) {
		drm_dbg(drm, "FENCE_EXPORT: syncobj %u: %s at point %llu\n", args->handle,
			ret == -ENOENT ? "no such handle" : "no fence", args->point);
		return ret == -ENOENT ? -ENOENT : -EINVAL;
	}
	own = vdla_own_fence(found, args->point);
	if (!own) {
		drm_dbg(drm, "FENCE_EXPORT: point %llu of syncobj %u was merged away\n",
			args->point, args->handle);
		dma_fence_put(found);
		return -ENODATA;
	}
	dma_fence_put(found);

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		dma_fence_put(own);
		return fd;
	}
	sync_file = sync_file_create(own);
	dma_fence_put(own);
	if (!sync_file) {
		put_unused_fd(fd);
		return -ENOMEM;
	}
	fd_install(fd, sync_file->file);
	args->fd = fd;
	return 0;
}
