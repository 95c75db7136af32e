/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tracepoints of the job lifecycle: events/vdla/ in tracefs.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM vdla

#if !defined(__VDLA_TRACE_H__) || defined(TRACE_HEADER_MULTI_READ)
#define __VDLA_TRACE_H__

#include <linux/tracepoint.h>

#include "vdla_ctx.h"
#include "vdla_device.h"
#include "vdla_job.h"
#include "vdla_lease.h"

DECLARE_EVENT_CLASS(vdla_job,
	TP_PROTO(const struct vdla_job *job),
	TP_ARGS(job),
	TP_STRUCT__entry(
		__string(dev, dev_name(job->vdev->drm.dev))
		__field(u32, ctx)
		__field(u64, seqno)
		__field(u32, priority)
		__field(u32, ops)
		__field(u32, addresses)
	),
	TP_fast_assign(
		__assign_str(dev);
		__entry->ctx = job->ctx->id;
		__entry->seqno = job->seqno;
		__entry->priority = job->priority;
		__entry->ops = job->num_ops;
		__entry->addresses = job->count;
	),
	TP_printk("dev=%s ctx=%u seqno=%llu priority=%u ops=%u addresses=%u", __get_str(dev),
		  __entry->ctx, __entry->seqno, __entry->priority, __entry->ops,
		  __entry->addresses)
);

DEFINE_EVENT(vdla_job, vdla_job_queue,
	TP_PROTO(const struct vdla_job *job), TP_ARGS(job));
DEFINE_EVENT(vdla_job, vdla_job_run,
	TP_PROTO(const struct vdla_job *job), TP_ARGS(job));
DEFINE_EVENT(vdla_job, vdla_job_preempted,
	TP_PROTO(const struct vdla_job *job), TP_ARGS(job));
DEFINE_EVENT(vdla_job, vdla_job_timeout,
	TP_PROTO(const struct vdla_job *job), TP_ARGS(job));

TRACE_EVENT(vdla_job_done,
	TP_PROTO(const struct vdla_job *job, int error),
	TP_ARGS(job, error),
	TP_STRUCT__entry(
		__string(dev, dev_name(job->vdev->drm.dev))
		__field(u32, ctx)
		__field(u64, seqno)
		__field(int, error)
		__field(u64, run_ns)
	),
	TP_fast_assign(
		__assign_str(dev);
		__entry->ctx = job->ctx->id;
		__entry->seqno = job->seqno;
		__entry->error = error;
		__entry->run_ns = job->run_ns;
	),
	TP_printk("dev=%s ctx=%u seqno=%llu error=%d run_ns=%llu", __get_str(dev),
		  __entry->ctx, __entry->seqno, __entry->error, __entry->run_ns)
);

TRACE_EVENT(vdla_job_fault,
	TP_PROTO(const struct vdla_job *job, u64 address, u32 status),
	TP_ARGS(job, address, status),
	TP_STRUCT__entry(
		__string(dev, dev_name(job->vdev->drm.dev))
		__field(u32, ctx)
		__field(u64, seqno)
		__field(u64, address)
		__field(u32, status)
	),
	TP_fast_assign(
		__assign_str(dev);
		__entry->ctx = job->ctx->id;
		__entry->seqno = job->seqno;
		__entry->address = address;
		__entry->status = status;
	),
	TP_printk("dev=%s ctx=%u seqno=%llu address=0x%llx status=0x%x", __get_str(dev),
		  __entry->ctx, __entry->seqno, __entry->address, __entry->status)
);

/* The resource manager's leases (docs/resources.md). */
DECLARE_EVENT_CLASS(vdla_lease,
	TP_PROTO(const struct vdla_lease *lease),
	TP_ARGS(lease),
	TP_STRUCT__entry(
		__string(dev, dev_name(lease->vdev->drm.dev))
		__field(u32, lease)
		__field(int, pid)
		__field(u32, ctx)
		__field(u32, resource)
		__field(u32, index)
		__field(u32, priority)
		__field(u32, waiters)
	),
	TP_fast_assign(
		__assign_str(dev);
		__entry->lease = lease->id;
		__entry->pid = lease->pid;
		__entry->ctx = lease->ctx->id;
		__entry->resource = lease->res->type;
		__entry->index = lease->res->index;
		__entry->priority = lease->arb.priority;
		__entry->waiters = lease->res->arb.num_waiters;
	),
	TP_printk("dev=%s lease=%u pid=%d ctx=%u resource=%u index=%u priority=%u waiters=%u",
		  __get_str(dev), __entry->lease, __entry->pid, __entry->ctx, __entry->resource,
		  __entry->index, __entry->priority, __entry->waiters)
);

DEFINE_EVENT(vdla_lease, vdla_lease_acquire,
	TP_PROTO(const struct vdla_lease *lease), TP_ARGS(lease));
DEFINE_EVENT(vdla_lease, vdla_lease_grant,
	TP_PROTO(const struct vdla_lease *lease), TP_ARGS(lease));
DEFINE_EVENT(vdla_lease, vdla_lease_release_request,
	TP_PROTO(const struct vdla_lease *lease), TP_ARGS(lease));
DEFINE_EVENT(vdla_lease, vdla_lease_release,
	TP_PROTO(const struct vdla_lease *lease), TP_ARGS(lease));
DEFINE_EVENT(vdla_lease, vdla_lease_revoke,
	TP_PROTO(const struct vdla_lease *lease), TP_ARGS(lease));

#endif /* __VDLA_TRACE_H__ */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE vdla_trace
#include <trace/define_trace.h>
