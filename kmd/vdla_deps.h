/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A job's dependencies: the fences it waits for before it may run (its
 * in-syncs and the implicit fences of its BOs), and the wait on them.
 */
#ifndef __VDLA_DEPS_H__
#define __VDLA_DEPS_H__

#include <linux/dma-resv.h>

#include <linux/dma-fence.h>
#include <linux/types.h>

struct drm_file;
struct drm_gem_object;
struct vdla_job;

/*
 * Collecting, at SUBMIT. A fence already signalled, or one of the job's own
 * context (whose jobs run in order anyway), is not kept; of two fences of
 * one other context only the later is.
 */
int vdla_deps_add_syncobj(struct vdla_job *job, struct drm_file *file, u32 handle, u64 point);
/*
 * With @obj's reservation held: its fences of @usage and below, e.g.
 * dma_resv_usage_rw(write) for what a reader (or a writer) must wait for,
 * DMA_RESV_USAGE_KERNEL for the memory management's, which every job waits for.
 */
int vdla_deps_add_resv(struct vdla_job *job, struct drm_gem_object *obj,
		       enum dma_resv_usage usage);
/* Drops the references to the fences. */
void vdla_deps_release(struct vdla_job *job);

/*
 * Waiting, under the device's fw_lock. vdla_deps_wait() arms @woken on the
 * first dependency that has not signalled and returns false, or returns
 * true when none is left (vdla_deps_met() says so from then on). @woken runs
 * in the signaller's context, with the fence's lock held.
 * vdla_deps_disarm() takes the callback back; if the callback has run
 * already, job->dep_armed stays set: it has handed the job on.
 */
bool vdla_deps_wait(struct vdla_job *job, dma_fence_func_t woken);
bool vdla_deps_met(const struct vdla_job *job);
void vdla_deps_disarm(struct vdla_job *job);

#endif /* __VDLA_DEPS_H__ */
