// SPDX-License-Identifier: GPL-2.0-only
/*
 * FENCE_WAIT: waits for a syncobj's fence and reports how it ended, its
 * error and when, in one call. The DRM core's waits say only that a fence
 * signalled; its error and time take exporting it as a sync file, which is
 * five more calls and a new file for every job a runtime waits for.
 */
#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>
#include <linux/dma-fence-chain.h>
#include <linux/jiffies.h>

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

/* Waits for @fence as BO_WAIT does: 0, -ETIMEDOUT or -ERESTARTSYS. */
static int vdla_wait_fence(struct dma_fence *fence, s64 timeout_ns)
{
	long left;

	if (!timeout_ns)
		return dma_fence_is_signaled(fence) ? 0 : -ETIMEDOUT;
	left = dma_fence_wait_timeout(fence, true, nsecs_to_jiffies64(timeout_ns) + 1);
	if (left < 0)
		return left;
	return left ? 0 : -ETIMEDOUT;
}

int vdla_ioctl_fence_wait(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_vdla_fence_wait *args = data;
	struct dma_fence *found, *own;
	int ret;

	ret = vdla_fence_wait_check_args(drm, args);
	if (ret)
		return ret;

	/* -ENOENT for a handle the caller does not have, -EINVAL for no fence. */
	ret = drm_syncobj_find_fence(file, args->handle, args->point, 0, &found);
	if (ret) {
		drm_dbg(drm, "FENCE_WAIT: syncobj %u has no fence at point %llu\n",
			args->handle, args->point);
		return -ENOENT;
	}
	own = vdla_own_fence(found, args->point);
	if (!own) {
		drm_dbg(drm, "FENCE_WAIT: point %llu of syncobj %u was merged away\n",
			args->point, args->handle);
		dma_fence_put(found);
		return -ENOENT;
	}

	/* The point, not its own fence alone: a timeline point waits for those before. */
	ret = vdla_wait_fence(found, args->timeout_ns);
	if (!ret) {
		int status = dma_fence_get_status(own);

		args->error = status < 0 ? status : 0;
		args->timestamp_ns = ktime_to_ns(dma_fence_timestamp(own));
	}
	dma_fence_put(own);
	dma_fence_put(found);
	return ret;
}
