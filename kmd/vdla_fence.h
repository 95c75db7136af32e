/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Job fences: what userspace, other devices and other drivers wait on.
 */
#ifndef __VDLA_FENCE_H__
#define __VDLA_FENCE_H__

#include <linux/dma-fence.h>
#include <linux/gfp.h>

/* A fence not initialised yet: free it with vdla_fence_free_unused(). */
struct dma_fence *vdla_fence_alloc(gfp_t gfp);
void vdla_fence_free_unused(struct dma_fence *fence);

/*
 * Initialises @fence on @context at @seqno. From then on it is freed by
 * its last dma_fence_put(), and keeps the module loaded until then: a
 * sync_file, a syncobj or another driver's reservation object may keep it
 * after the device is unplugged, and reading its names calls into this
 * module.
 */
void vdla_fence_init(struct dma_fence *fence, u64 context, u64 seqno);

#endif /* __VDLA_FENCE_H__ */
