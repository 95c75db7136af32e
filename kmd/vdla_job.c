// SPDX-License-Identifier: GPL-2.0-only
/*
 * SUBMIT: checks everything it can, prepares everything the job needs to
 * run (mappings, the kernel mappings of the descriptor and of the
 * statistics buffer, the firmware's state area, the fence), collects the
 * dependencies (in-syncs and the implicit fences of the BOs) and hands the
 * job to the scheduler, which starts it at once when nothing is in its way.
 * It never waits for the device or for a dependency.
 */
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>
#include <linux/dma-fence-chain.h>
#include <linux/dma-resv.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/vdla_accel.h>
#include <drm/vdla_task.h>

#include "vdla_ctx.h"
#include "vdla_deps.h"
#include "vdla_device.h"
#include "vdla_fence.h"
#include "vdla_file.h"
#include "vdla_gem.h"
#include "vdla_job.h"
#include "vdla_lease.h"
#include "vdla_mapping.h"
#include "vdla_mmu.h"
#include "vdla_sched.h"
#include "vdla_trace.h"

/*
 * Counts @job in its context's and file's queues, or fails with -EAGAIN
 * past a limit (the job is then freed by the caller, uncounted). Queues
 * are bounded so that SUBMITs behind a fence that never signals cannot
 * take the guest's memory; the memory is also charged to the caller's
 * memory cgroup (GFP_KERNEL_ACCOUNT).
 */
static int charge_queues(struct drm_device *drm, struct vdla_job *job)
{
	struct vdla_file *vfile = job->file;
	u64 bytes = job->alloc_size + job->state_size;

	if (atomic_inc_return(&job->ctx->queued_jobs) > DRM_VDLA_MAX_QUEUED_JOBS_PER_CONTEXT) {
		drm_dbg(drm, "SUBMIT: context %u has %u jobs queued\n", job->ctx->id,
			DRM_VDLA_MAX_QUEUED_JOBS_PER_CONTEXT);
		goto out_ctx;
	}
	if (atomic_inc_return(&vfile->queued_jobs) > DRM_VDLA_MAX_QUEUED_JOBS_PER_FILE) {
		drm_dbg(drm, "SUBMIT: the file has %u jobs queued\n",
			DRM_VDLA_MAX_QUEUED_JOBS_PER_FILE);
		goto out_file;
	}
	if (atomic64_add_return(bytes, &vfile->queued_bytes) > DRM_VDLA_MAX_QUEUED_BYTES_PER_FILE) {
		drm_dbg(drm, "SUBMIT: the file's queued jobs would hold over %u bytes\n",
			DRM_VDLA_MAX_QUEUED_BYTES_PER_FILE);
		atomic64_sub(bytes, &vfile->queued_bytes);
		goto out_file;
	}
	job->charged_bytes = bytes;
	return 0;

out_file:
	atomic_dec(&vfile->queued_jobs);
out_ctx:
	atomic_dec(&job->ctx->queued_jobs);
	return -EAGAIN;
}

static void uncharge_queues(struct vdla_job *job)
{
	if (!job->charged_bytes)
		return;
	atomic64_sub(job->charged_bytes, &job->file->queued_bytes);
	atomic_dec(&job->file->queued_jobs);
	atomic_dec(&job->ctx->queued_jobs);
	job->charged_bytes = 0;
}

void vdla_job_free(struct vdla_job *job)
{
	struct vdla_device *vdev = job->vdev;

	uncharge_queues(job);
	vdla_deps_release(job);
	for (u32 i = 0; i < job->count; i++)
		vdla_mapping_put(job->mappings[i]);
	for (u32 i = 0; i < job->bo_count; i++)
		drm_gem_object_put(job->bos[i]);
	dma_fence_put(job->done);
	kvfree(job->fw_state);
	atomic_dec(&vdev->counters.jobs);
	if (job->state == VDLA_JOB_ENDED)
		atomic_dec(&vdev->counters.ended_jobs);
	vdla_ctx_put(job->ctx);
	vdla_as_put(job->as);
	kvfree(job);
	/* Last: the device may go with it (after an unplug). */
	drm_dev_put(&vdev->drm);
}

static int check_args(struct drm_device *drm, const struct drm_vdla_submit *args)
{
	if (args->flags & ~DRM_VDLA_SUBMIT_FLAGS) {
		drm_dbg(drm, "SUBMIT: unknown flags 0x%x\n", args->flags);
		return -EINVAL;
	}
	if (!args->address_count || args->address_count > DRM_VDLA_MAX_ADDRESSES) {
		drm_dbg(drm, "SUBMIT: address_count %u outside 1..%u\n", args->address_count,
			DRM_VDLA_MAX_ADDRESSES);
		return -EINVAL;
	}
	if (args->descriptor >= args->address_count) {
		drm_dbg(drm, "SUBMIT: descriptor index %u beyond the %u addresses\n",
			args->descriptor, args->address_count);
		return -EINVAL;
	}
	if ((args->flags & DRM_VDLA_SUBMIT_OP_TIME_ONLY) && !(args->flags & DRM_VDLA_SUBMIT_OP_STATS)) {
		drm_dbg(drm, "SUBMIT: DRM_VDLA_SUBMIT_OP_TIME_ONLY without DRM_VDLA_SUBMIT_OP_STATS\n");
		return -EINVAL;
	}
	if (!(args->flags & DRM_VDLA_SUBMIT_OP_STATS) && args->op_stats) {
		drm_dbg(drm, "SUBMIT: op_stats %u without DRM_VDLA_SUBMIT_OP_STATS must be 0\n",
			args->op_stats);
		return -EINVAL;
	}
	if ((args->flags & DRM_VDLA_SUBMIT_OP_STATS) && args->op_stats >= args->address_count) {
		drm_dbg(drm, "SUBMIT: op_stats index %u beyond the %u addresses\n",
			args->op_stats, args->address_count);
		return -EINVAL;
	}
	if (args->in_sync_count > DRM_VDLA_MAX_IN_SYNCS) {
		drm_dbg(drm, "SUBMIT: in_sync_count %u above %u\n", args->in_sync_count,
			DRM_VDLA_MAX_IN_SYNCS);
		return -EINVAL;
	}
	if (args->out_sync.flags || (!args->out_sync.handle && args->out_sync.point)) {
		drm_dbg(drm, "SUBMIT: out_sync flags must be 0, point needs a handle\n");
		return -EINVAL;
	}
	if (args->pad2) {
		drm_dbg(drm, "SUBMIT: pad2 must be 0\n");
		return -EINVAL;
	}
	return 0;
}

/*
 * Frames (DRM_VDLA_SUBMIT_FRAME_*) do not nest: under submit_lock, whether
 * @flags fit the context's open frame, and then the frame's new state.
 */
static int check_frame(struct drm_device *drm, struct vdla_ctx *ctx, u32 flags)
{
	bool begin = flags & DRM_VDLA_SUBMIT_FRAME_BEGIN, end = flags & DRM_VDLA_SUBMIT_FRAME_END;

	if (begin && ctx->frame_open) {
		drm_dbg(drm, "SUBMIT: FRAME_BEGIN inside the open frame of context %u\n", ctx->id);
		return -EINVAL;
	}
	if (end && !begin && !ctx->frame_open) {
		drm_dbg(drm, "SUBMIT: FRAME_END outside a frame of context %u\n", ctx->id);
		return -EINVAL;
	}
	return 0;
}

static void frame_submitted(struct vdla_ctx *ctx, struct vdla_job *job, u32 flags)
{
	if (flags & DRM_VDLA_SUBMIT_FRAME_BEGIN) {
		ctx->frame_open = true;
		ctx->frame_begin_seqno = job->seqno;
	}
	if (flags & DRM_VDLA_SUBMIT_FRAME_END) {
		ctx->frame_open = false;
		ctx->frame_end_seqno = job->seqno;
	}
}

/* Adds @obj to the job's distinct BOs, for the implicit fences. */
static void add_bo(struct vdla_job *job, struct drm_gem_object *obj, bool write)
{
	u32 i;

	for (i = 0; i < job->bo_count; i++) {
		if (job->bos[i] == obj)
			break;
	}
	if (i == job->bo_count) {
		drm_gem_object_get(obj);
		job->bos[job->bo_count++] = obj;
	}
	if (write)
		__set_bit(i, job->bo_writes);
}

/* Resolves the address list into mappings and firmware buffers. */
static int resolve_addresses(struct drm_file *file, struct vdla_job *job,
			     const struct drm_vdla_address *list)
{
	struct drm_device *drm = file->minor->dev;

	for (u32 i = 0; i < job->count; i++) {
		const struct drm_vdla_address *a = &list[i];
		bool write = a->flags & DRM_VDLA_ADDRESS_FLAG_WRITE;
		struct drm_gem_object *obj;
		struct vdla_mapping *m;

		if (a->flags & ~DRM_VDLA_ADDRESS_FLAGS) {
			drm_dbg(drm, "SUBMIT: address %u: unknown flags 0x%x\n", i, a->flags);
			return -EINVAL;
		}
		obj = drm_gem_object_lookup(file, a->handle);
		if (!obj) {
			drm_dbg(drm, "SUBMIT: address %u: no BO %u\n", i, a->handle);
			return -ENOENT;
		}
		if (a->offset >= obj->size) {
			drm_dbg(drm, "SUBMIT: address %u: offset %llu beyond the BO's %zu bytes\n",
				i, a->offset, obj->size);
			drm_gem_object_put(obj);
			return -EINVAL;
		}
		m = vdla_mapping_get(file, obj, a->handle);
		if (IS_ERR(m)) {
			drm_gem_object_put(obj);
			return PTR_ERR(m);
		}
		job->mappings[i] = m;
		if (write && !m->writable) {
			drm_dbg(drm, "SUBMIT: address %u: BO %u is read-only\n", i, a->handle);
			drm_gem_object_put(obj);
			return -EACCES;
		}
		job->buffers[i].cpu = NULL;
		job->buffers[i].device_address = vdla_mapping_address(m) + a->offset;
		job->buffers[i].size = obj->size - a->offset;
		add_bo(job, obj, write);
		drm_gem_object_put(obj);
	}
	return 0;
}

/*
 * Maps the descriptor for the firmware, sizes the state area from the
 * header, and has the firmware check the task now, so that a wrong task
 * fails SUBMIT with where it is wrong. The firmware checks again when the
 * task starts: userspace may still write the descriptor meanwhile.
 */
static int prepare_task(struct drm_device *drm, struct vdla_job *job,
			struct drm_vdla_submit *args)
{
	struct vdla_device *vdev = job->vdev;
	struct drm_gem_object *obj = job->mappings[job->descriptor]->obj;
	u64 offset = job->buffers[job->descriptor].device_address -
		     vdla_mapping_address(job->mappings[job->descriptor]);
	struct vdla_fw_buffer *desc = &job->buffers[job->descriptor];
	struct dla_task_config config = {};
	struct dla_task_result result;
	struct vdla_task_header header;
	u32 num_ops = 0;
	int ret;

	/* Kept by the BO (job->bos holds it) until the BO is freed. */
	ret = vdla_gem_kernel_map(obj, &desc->cpu);
	if (ret) {
		drm_dbg(drm, "SUBMIT: the descriptor BO has no kernel mapping: %d\n", ret);
		return ret;
	}
	desc->cpu = (u8 *)desc->cpu + offset;

	if (desc->size >= sizeof(header)) {
		memcpy(&header, desc->cpu, sizeof(header));
		/* The firmware refuses what does not fit; size only for what may. */
		if (header.num_ops <= VDLA_TASK_MAX_OPS &&
		    header.num_ops <= desc->size / VDLA_TASK_OP_SIZE)
			num_ops = header.num_ops;
	}
	job->num_ops = num_ops;
	job->state_size = dla_task_state_size(num_ops);
	job->fw_state = kvzalloc(job->state_size, GFP_KERNEL_ACCOUNT);
	if (!job->fw_state)
		return -ENOMEM;

	job->fw_task.buffers = job->buffers;
	job->fw_task.count = job->count;
	config.task_data = &job->fw_task;
	config.num_addresses = job->count;
	config.descriptor = job->descriptor;
	config.context = VDLA_MMU_FIRST_SLOT;
	config.state = job->fw_state;
	config.state_size = job->state_size;
	ret = dla_check_task(vdev->fw_engine, &config, &result);
	if (ret == DLA_ERR_INVALID_TASK) {
		args->error_op = result.error_op;
		args->error_field = result.error_field;
		args->error_reason = result.error_reason;
		args->error_operand = result.error_operand;
		drm_dbg(drm, "SUBMIT: task refused: op %d, %s: %s\n", (int)result.error_op,
			dla_field_name(result.error_field), dla_reason_name(result.error_reason));
		return -EINVAL;
	}
	if (ret) {
		drm_dbg(drm, "SUBMIT: the firmware cannot check the task: %d\n", ret);
		return ret == DLA_ERR_NO_MEMORY ? -ENOMEM : -EINVAL;
	}
	return 0;
}

/*
 * DRM_VDLA_SUBMIT_OP_STATS: the statistics go to an entry flagged for
 * writing (so that the implicit fences order readers after the job) with
 * room for one struct drm_vdla_op_stats per operation. The BO's kernel
 * mapping is made now: ending the job only copies.
 */
static int prepare_op_stats(struct drm_device *drm, struct vdla_job *job,
			    const struct drm_vdla_submit *args,
			    const struct drm_vdla_address *list)
{
	u32 index = args->op_stats;
	const struct drm_vdla_address *a = &list[index];
	u64 bytes = (u64)job->num_ops * sizeof(struct drm_vdla_op_stats);
	void *vaddr;
	int ret;

	if (!(args->flags & DRM_VDLA_SUBMIT_OP_STATS))
		return 0;
	if (!(a->flags & DRM_VDLA_ADDRESS_FLAG_WRITE)) {
		drm_dbg(drm, "SUBMIT: op_stats address %u is not flagged for writing\n", index);
		return -EINVAL;
	}
	if (bytes > job->buffers[index].size) {
		drm_dbg(drm, "SUBMIT: op_stats address %u: %u ops need %llu bytes, it has %llu\n",
			index, job->num_ops, bytes, job->buffers[index].size);
		return -EINVAL;
	}
	if (!job->num_ops)
		return 0;
	/* Kept by the BO (job->bos holds it) until the BO is freed. */
	ret = vdla_gem_kernel_map(job->mappings[index]->obj, &vaddr);
	if (ret) {
		drm_dbg(drm, "SUBMIT: the op_stats BO has no kernel mapping: %d\n", ret);
		return ret;
	}
	job->op_stats = (u8 *)vaddr + a->offset;
	job->op_time_only = args->flags & DRM_VDLA_SUBMIT_OP_TIME_ONLY;
	return 0;
}

static int add_in_syncs(struct drm_file *file, struct vdla_job *job,
			const struct drm_vdla_submit *args)
{
	struct drm_vdla_sync __user *user = u64_to_user_ptr(args->in_syncs);

	for (u32 i = 0; i < args->in_sync_count; i++) {
		struct drm_vdla_sync sync;
		int ret;

		if (copy_from_user(&sync, &user[i], sizeof(sync)))
			return -EFAULT;
		if (sync.flags) {
			drm_dbg(file->minor->dev, "SUBMIT: in-sync %u: flags must be 0\n", i);
			return -EINVAL;
		}
		ret = vdla_deps_add_syncobj(job, file, sync.handle, sync.point);
		/* The syncobj exists but has no fence (at that point) yet. */
		if (ret == -EINVAL)
			ret = -ENOENT;
		if (ret) {
			drm_dbg(file->minor->dev, "SUBMIT: in-sync %u (%u:%llu): %d\n", i,
				sync.handle, sync.point, ret);
			return ret;
		}
	}
	return 0;
}

/*
 * Locks the BOs and reserves fence slots; adds the BOs' implicit fences as
 * dependencies, or with DRM_VDLA_SUBMIT_NO_IMPLICIT (!@implicit) only the
 * memory management's (DMA_RESV_USAGE_KERNEL), which no job may skip.
 */
static int lock_bos(struct vdla_job *job, struct ww_acquire_ctx *ww, bool implicit)
{
	int ret = drm_gem_lock_reservations(job->bos, job->bo_count, ww);

	if (ret)
		return ret;
	for (u32 i = 0; i < job->bo_count; i++) {
		ret = dma_resv_reserve_fences(job->bos[i]->resv, 1);
		if (!ret)
			ret = vdla_deps_add_resv(job, job->bos[i],
						 implicit ?
						 dma_resv_usage_rw(test_bit(i, job->bo_writes)) :
						 DMA_RESV_USAGE_KERNEL);
		if (ret) {
			drm_gem_unlock_reservations(job->bos, job->bo_count, ww);
			return ret;
		}
	}
	return 0;
}

/*
 * The job and its per-entry arrays in one allocation: SUBMIT is a hot path
 * and each allocation counts.
 */
static struct vdla_job *job_alloc(struct vdla_device *vdev, struct vdla_ctx *ctx, u32 count)
{
	size_t mappings = ALIGN(sizeof(struct vdla_job), 8);
	size_t buffers = mappings + count * sizeof(struct vdla_mapping *);
	size_t bos = buffers + count * sizeof(struct vdla_fw_buffer);
	size_t writes = bos + count * sizeof(struct drm_gem_object *);
	size_t size = writes + BITS_TO_LONGS(count) * sizeof(unsigned long);
	struct vdla_job *job = kvzalloc(size, GFP_KERNEL_ACCOUNT);

	if (!job)
		return NULL;
	job->alloc_size = size;
	job->done = vdla_fence_alloc(GFP_KERNEL_ACCOUNT);
	if (!job->done) {
		kvfree(job);
		return NULL;
	}
	drm_dev_get(&vdev->drm);
	job->vdev = vdev;
	INIT_LIST_HEAD(&job->link);
	job->mappings = (void *)((u8 *)job + mappings);
	job->buffers = (void *)((u8 *)job + buffers);
	job->bos = (void *)((u8 *)job + bos);
	job->bo_writes = (void *)((u8 *)job + writes);
	vdla_ctx_get(ctx);
	job->ctx = ctx;
	job->file = ctx->file;
	job->priority = ctx->priority;
	job->as = ctx->file->as;
	vdla_as_get(job->as);
	atomic_inc(&vdev->counters.jobs);
	return job;
}

/* The fence is not initialised yet: free it as plain memory. */
static void job_free_unarmed(struct vdla_job *job)
{
	vdla_fence_free_unused(job->done);
	job->done = NULL;
	vdla_job_free(job);
}

/*
 * The job's fence goes to its BOs' reservations and its out-sync; its
 * seqno is the next of its context. Under the context's submit_lock, with
 * the reservations held.
 */
static void publish(struct vdla_job *job, struct drm_vdla_submit *args)
{
	struct vdla_ctx *ctx = job->ctx;

	job->seqno = ++ctx->seqno;
	vdla_fence_init(job->done, ctx->fence_context, job->seqno);
	for (u32 i = 0; i < job->bo_count; i++)
		dma_resv_add_fence(job->bos[i]->resv, job->done,
				   test_bit(i, job->bo_writes) ? DMA_RESV_USAGE_WRITE :
								 DMA_RESV_USAGE_READ);
	atomic64_inc(&ctx->jobs_submitted);
	args->seqno = job->seqno;
	trace_vdla_job_queue(job);
}

static int submit(struct drm_device *drm, struct drm_vdla_submit *args, struct drm_file *file)
{
	struct vdla_device *vdev = to_vdla_device(drm);
	struct vdla_file *vfile = file->driver_priv;
	struct drm_vdla_address small_list[8], *list;
	struct drm_syncobj *out_sync = NULL;
	struct dma_fence_chain *chain = NULL;
	struct vdla_lease *lease = NULL, *joining = NULL;
	struct ww_acquire_ctx ww;
	bool ended;
	struct dma_fence *fence;
	struct vdla_job *job;
	struct vdla_ctx *ctx;
	int ret;

	ret = check_args(drm, args);
	if (ret)
		return ret;
	ctx = vdla_ctx_lookup(vfile, args->ctx_id);
	if (!ctx) {
		drm_dbg(drm, "SUBMIT: no context %u of the caller\n", args->ctx_id);
		return -ENOENT;
	}
	if (args->lease_id) {
		lease = vdla_lease_lookup(vfile, args->lease_id);
		if (!lease) {
			drm_dbg(drm, "SUBMIT: no lease %u of the caller\n", args->lease_id);
			ret = -ENOENT;
			goto out_ctx;
		}
		if (lease->ctx != ctx && lease->res->type == DRM_VDLA_RESOURCE_TIME_SHARE) {
			/* The context joins the share: the job names no lease of its own. */
			joining = lease;
			lease = NULL;
		} else if (lease->ctx != ctx) {
			drm_dbg(drm, "SUBMIT: lease %u belongs to another context\n", args->lease_id);
			ret = -EINVAL;
			goto out_ctx;
		}
	}
	if (READ_ONCE(ctx->banned)) {
		drm_dbg(drm, "SUBMIT: context %u is banned\n", args->ctx_id);
		ret = -ECANCELED;
		goto out_ctx;
	}

	list = args->address_count <= ARRAY_SIZE(small_list) ? small_list :
	       kvmalloc_array(args->address_count, sizeof(*list), GFP_KERNEL_ACCOUNT);
	if (!list) {
		ret = -ENOMEM;
		goto out_ctx;
	}
	if (copy_from_user(list, u64_to_user_ptr(args->addresses),
			   args->address_count * sizeof(*list))) {
		ret = -EFAULT;
		goto out_list;
	}

	job = job_alloc(vdev, ctx, args->address_count);
	if (!job) {
		ret = -ENOMEM;
		goto out_list;
	}
	job->count = args->address_count;
	job->descriptor = args->descriptor;
	ret = resolve_addresses(file, job, list);
	if (ret)
		goto out_job;
	ret = prepare_task(drm, job, args);
	if (ret)
		goto out_job;
	ret = prepare_op_stats(drm, job, args, list);
	if (ret)
		goto out_job;
	ret = charge_queues(drm, job);
	if (ret)
		goto out_job;

	if (args->out_sync.handle) {
		out_sync = drm_syncobj_find(file, args->out_sync.handle);
		if (!out_sync) {
			drm_dbg(drm, "SUBMIT: no out-syncobj %u\n", args->out_sync.handle);
			ret = -ENOENT;
			goto out_job;
		}
		if (args->out_sync.point) {
			chain = dma_fence_chain_alloc();
			if (!chain) {
				ret = -ENOMEM;
				goto out_job;
			}
		}
	}

	ret = add_in_syncs(file, job, args);
	if (ret)
		goto out_job;
	ret = lock_bos(job, &ww, !(args->flags & DRM_VDLA_SUBMIT_NO_IMPLICIT));
	if (ret)
		goto out_job;

	mutex_lock(&ctx->submit_lock);
	if (ctx->destroyed || READ_ONCE(ctx->banned)) {
		ret = ctx->destroyed ? -ENOENT : -ECANCELED;
	} else {
		ret = check_frame(drm, ctx, args->flags);
		if (!ret)
			ret = vdla_lease_check_job(lease, job);
		if (!ret && joining) {
			ret = vdla_lease_join_share(joining, ctx);
			if (ret)
				drm_dbg(drm, "SUBMIT: lease %u does not hold its share\n",
					args->lease_id);
		}
	}
	if (ret) {
		mutex_unlock(&ctx->submit_lock);
		drm_gem_unlock_reservations(job->bos, job->bo_count, &ww);
		goto out_job;
	}
	publish(job, args);
	frame_submitted(ctx, job, args->flags);
	job->frame_end = args->flags & DRM_VDLA_SUBMIT_FRAME_END;
	vdla_lease_job_submitted(lease, job, args->flags);
	drm_gem_unlock_reservations(job->bos, job->bo_count, &ww);
	/* The out-sync gets the fence even if the job ends at once. */
	fence = dma_fence_get(job->done);
	ended = vdla_sched_submit(job);
	mutex_unlock(&ctx->submit_lock);
	if (ended)
		vdla_job_free(job);

	if (out_sync) {
		if (chain) {
			drm_syncobj_add_point(out_sync, chain, fence, args->out_sync.point);
			chain = NULL;
		} else {
			drm_syncobj_replace_fence(out_sync, fence);
		}
	}
	dma_fence_put(fence);
	ret = 0;
	goto out_sync;

out_job:
	job_free_unarmed(job);
out_sync:
	dma_fence_chain_free(chain);
	if (out_sync)
		drm_syncobj_put(out_sync);
out_list:
	if (list != small_list)
		kvfree(list);
out_ctx:
	vdla_lease_put(joining);
	vdla_lease_put(lease);
	vdla_ctx_put(ctx);
	return ret;
}

int vdla_ioctl_submit(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_vdla_submit *args = data;
	int ret, idx;

	args->seqno = 0;
	args->error_op = 0;
	args->error_field = 0;
	args->error_reason = 0;
	args->error_operand = 0;
	/* An unplug waits for SUBMITs under way, then ends every job queued. */
	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	ret = submit(drm, args, file);
	drm_dev_exit(idx);
	return ret;
}
