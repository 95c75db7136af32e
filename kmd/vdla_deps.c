// SPDX-License-Identifier: GPL-2.0-only
/*
 * Job dependencies. A job waits for its fences one at a time with a single
 * callback: when the fence it waits on signals, the scheduler's work item
 * moves it on to the next one, so that a job needs no allocation per fence
 * beyond the array of references.
 */
#include <drm/drm_gem.h>
#include <drm/drm_syncobj.h>
#include <linux/dma-resv.h>
#include <linux/slab.h>

#include "vdla_ctx.h"
#include "vdla_deps.h"
#include "vdla_job.h"

/* The array grows by this many at a time; most jobs have fewer. */
#define VDLA_DEPS_CHUNK	8

static int add_fence(struct vdla_job *job, struct dma_fence *fence)
{
	if (fence->context == job->ctx->fence_context || dma_fence_is_signaled(fence))
		return 0;
	for (u32 i = 0; i < job->num_deps; i++) {
		struct dma_fence *old = job->deps[i];

		if (old->context != fence->context)
			continue;
		if (dma_fence_is_later(fence, old)) {
			job->deps[i] = dma_fence_get(fence);
			dma_fence_put(old);
		}
		return 0;
	}
	if (job->num_deps == job->deps_size) {
		u32 size = job->deps_size + VDLA_DEPS_CHUNK;
		struct dma_fence **deps = krealloc_array(job->deps, size, sizeof(*deps),
							 GFP_KERNEL_ACCOUNT);

		if (!deps)
			return -ENOMEM;
		job->deps = deps;
		job->deps_size = size;
	}
	job->deps[job->num_deps++] = dma_fence_get(fence);
	return 0;
}

int vdla_deps_add_syncobj(struct vdla_job *job, struct drm_file *file, u32 handle, u64 point)
{
	struct dma_fence *fence;
	int ret;

	ret = drm_syncobj_find_fence(file, handle, point, 0, &fence);
	if (ret)
		return ret;
	ret = add_fence(job, fence);
	dma_fence_put(fence);
	return ret;
}

int vdla_deps_add_resv(struct vdla_job *job, struct drm_gem_object *obj,
		       enum dma_resv_usage usage)
{
	struct dma_resv_iter cursor;
	struct dma_fence *fence;
	int ret;

	dma_resv_for_each_fence(&cursor, obj->resv, usage, fence) {
		ret = add_fence(job, fence);
		if (ret)
			return ret;
	}
	return 0;
}

void vdla_deps_release(struct vdla_job *job)
{
	for (u32 i = 0; i < job->num_deps; i++)
		dma_fence_put(job->deps[i]);
	kfree(job->deps);
	job->deps = NULL;
	job->num_deps = 0;
}

bool vdla_deps_wait(struct vdla_job *job, dma_fence_func_t woken)
{
	while (job->next_dep < job->num_deps) {
		if (!dma_fence_add_callback(job->deps[job->next_dep], &job->dep_cb, woken)) {
			job->dep_armed = true;
			return false;
		}
		job->next_dep++;
	}
	return true;
}

bool vdla_deps_met(const struct vdla_job *job)
{
	return job->next_dep == job->num_deps;
}

void vdla_deps_disarm(struct vdla_job *job)
{
	if (job->dep_armed && dma_fence_remove_callback(job->deps[job->next_dep], &job->dep_cb))
		job->dep_armed = false;
}
