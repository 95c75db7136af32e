// SPDX-License-Identifier: GPL-2.0-only
/*
 * Job fences. A fence outlives everything else of the driver: it can sit
 * in a sync_file, a syncobj or a dma-buf's reservation object long after
 * its job, its file and even its device are gone, and the DMA fence core
 * calls its operations and takes its lock whenever someone asks for its
 * status or names (SYNC_IOC_FILE_INFO, tracepoints, other drivers'
 * debugfs). So a fence carries its own lock, its operations use nothing
 * but the fence and static strings, and every fence holds a reference to
 * the module, dropped when the fence is freed: rmmod fails with EBUSY
 * while one exists, instead of leaving fences whose operations point into
 * unloaded code.
 *
 * The module reference is dropped from an RCU callback (fences are freed
 * after a grace period anyway, for dma_resv's lockless readers); the
 * module's exit waits for pending callbacks with rcu_barrier(), so the
 * callback that drops the last reference returns before the code goes.
 */
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "vdla_fence.h"

struct vdla_fence {
	struct dma_fence base;
	spinlock_t lock;
};

static struct vdla_fence *to_vdla_fence(struct dma_fence *fence)
{
	return container_of(fence, struct vdla_fence, base);
}

static const char *fence_driver_name(struct dma_fence *fence)
{
	return "vdla";
}

static const char *fence_timeline_name(struct dma_fence *fence)
{
	return "vdla-context";
}

static void fence_free_rcu(struct rcu_head *rcu)
{
	struct dma_fence *fence = container_of(rcu, struct dma_fence, rcu);

	kfree(to_vdla_fence(fence));
	module_put(THIS_MODULE);
}

static void fence_release(struct dma_fence *fence)
{
	call_rcu(&fence->rcu, fence_free_rcu);
}

static const struct dma_fence_ops vdla_fence_ops = {
	.get_driver_name = fence_driver_name,
	.get_timeline_name = fence_timeline_name,
	.release = fence_release,
};

struct dma_fence *vdla_fence_alloc(gfp_t gfp)
{
	struct vdla_fence *fence = kzalloc(sizeof(*fence), gfp);

	return fence ? &fence->base : NULL;
}

void vdla_fence_free_unused(struct dma_fence *fence)
{
	if (fence)
		kfree(to_vdla_fence(fence));
}

void vdla_fence_init(struct dma_fence *fence, u64 context, u64 seqno)
{
	struct vdla_fence *f = to_vdla_fence(fence);

	/* The caller runs module code for an open file: the module is pinned. */
	__module_get(THIS_MODULE);
	spin_lock_init(&f->lock);
	dma_fence_init(fence, &vdla_fence_ops, &f->lock, context, seqno);
}
