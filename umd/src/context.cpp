/* SPDX-License-Identifier: MIT */
#include <vdla/context.h>
#include <vdla/lease.h>

#include <cerrno>

#include <xf86drm.h>

#include <drm/vdla_accel.h>

#include <vdla/buffer.h>
#include <vdla/device.h>
#include <vdla/fence.h>

namespace vdla {

namespace {

drm_vdla_sync encodeSync(const SyncPoint &sync)
{
	drm_vdla_sync s = {};
	if (sync.fence) {
		s.handle = sync.fence->handle();
		s.point = sync.point;
	}
	return s;
}

std::string submitErrorReason(int err, const TaskError &taskError)
{
	switch (err) {
	case EINVAL:
		if (taskError.field)
			return "the firmware refused the task: " + taskError.toString();
		return "the submission is malformed (an address offset beyond its buffer, or a "
		       "count out of range)";
	case ENOENT:
		return "a buffer, fence or context does not exist, or a wait point has no "
		       "fence yet";
	case EACCES:
		return "a read-only buffer is marked for writing";
	case ECANCELED:
		return "the context is banned: one of its jobs faulted or hung";
	default:
		return "cannot submit the task";
	}
}

} /* namespace */

class Context::Private
{
public:
	Device *device = nullptr;
	uint32_t id = 0;
	Priority priority = Priority::Normal;
	bool implicitSync = true;
	TaskError taskError;
};

Context::Context(std::unique_ptr<Private> d) : d_(std::move(d))
{
}

Context::~Context()
{
	drm_vdla_ctx_destroy args = {};
	args.ctx_id = d_->id;
	drmIoctl(d_->device->fd(), DRM_IOCTL_VDLA_CTX_DESTROY, &args);
}

Result<std::unique_ptr<Context>> Context::create(Device &device, Priority priority)
{
	drm_vdla_ctx_create args = {};
	args.priority = uint32_t(priority);
	if (drmIoctl(device.fd(), DRM_IOCTL_VDLA_CTX_CREATE, &args)) {
		int err = errno;
		return Error(err,
			err == EMFILE ? "the device file holds the most contexts it may"
				      : "cannot create a context");
	}
	auto d = std::make_unique<Private>();
	d->device = &device;
	d->id = args.ctx_id;
	d->priority = priority;
	return std::unique_ptr<Context>(new Context(std::move(d)));
}

Device &Context::device() const
{
	return *d_->device;
}

uint32_t Context::id() const
{
	return d_->id;
}

Priority Context::priority() const
{
	return d_->priority;
}

Result<ContextStatus> Context::query() const
{
	drm_vdla_ctx_query args = {};
	args.ctx_id = d_->id;
	if (drmIoctl(d_->device->fd(), DRM_IOCTL_VDLA_CTX_QUERY, &args))
		return Error(errno, "cannot query context " + std::to_string(d_->id));

	ContextStatus status;
	status.banned = args.state == DRM_VDLA_CTX_STATE_BANNED;
	status.priority = Priority(args.priority);
	status.jobsSubmitted = args.jobs_submitted;
	status.jobsCompleted = args.jobs_completed;
	status.jobsFailed = args.jobs_failed;
	status.jobsPreempted = args.jobs_preempted;
	status.busy = std::chrono::nanoseconds(args.busy_ns);
	status.lastError = -args.last_error;
	status.hwError = args.hw_error;
	status.errorOp = args.error_op;
	status.faultStatus = args.fault_status;
	status.faultAddress = args.fault_addr;
	return status;
}

Result<uint64_t> Context::submit(
	const Task &task, const std::vector<SyncPoint> &waits, const SyncPoint &signal)
{
	return submit(task, waits, signal, OpStatsTarget{});
}

Result<uint64_t> Context::submit(const Task &task, const std::vector<SyncPoint> &waits,
	const SyncPoint &signal, const OpStatsTarget &stats)
{
	SubmitOptions options;
	options.stats = stats;
	return submitWithOptions(task, waits, signal, options);
}

Result<uint64_t> Context::submitWithOptions(const Task &task, const std::vector<SyncPoint> &waits,
	const SyncPoint &signal, const SubmitOptions &options)
{
	const OpStatsTarget &stats = options.stats;
	d_->taskError = {};
	if ((options.lease || options.frameBegin || options.frameEnd)
		&& !d_->device->info().driverVersion.atLeast(1, 10))
		return Error(EOPNOTSUPP, "driver " + d_->device->info().driverVersion.toString()
						 + " has no leases or frames (1.10 has)");
	if (options.lease && &options.lease->context() != this
		&& (options.lease->resource() != LeaseResource::TimeShare
			|| &options.lease->context().device() != d_->device))
		return Error(EINVAL, "the lease belongs to another context, and is not a time share "
				     "of this Device it could join");
	if (!task.descriptor())
		return Error(EINVAL, "the task was not built");
	/* Handles are per file: another Device's would name this one's objects. */
	if (&task.descriptor()->device() != d_->device)
		return Error(EINVAL, "the task was built for another Device");
	/* The statistics buffer is one more entry, after the task's own. */
	size_t entries = task.addresses().size() + (stats.buffer ? 1 : 0);
	if (entries > DRM_VDLA_MAX_ADDRESSES)
		return Error(E2BIG,
			"the task names more than " + std::to_string(DRM_VDLA_MAX_ADDRESSES)
				+ " buffers");
	if (stats.buffer) {
		const Version &driver = d_->device->info().driverVersion;
		const Buffer &buffer = *stats.buffer;
		if (!driver.atLeast(1, 3))
			return Error(EOPNOTSUPP,
				"driver " + driver.toString()
					+ " does not report per-operation statistics (1.3 does)");
		if (stats.timeOnly && !driver.atLeast(1, 7))
			return Error(EOPNOTSUPP,
				"driver " + driver.toString()
					+ " does not measure the time alone (1.7 does)");
		if (&buffer.device() != d_->device)
			return Error(EINVAL, "the statistics buffer belongs to another Device");
		if (buffer.access() == Buffer::Access::ReadOnly)
			return Error(EACCES, "the statistics buffer is read-only");
		if (stats.offset >= buffer.size()
			|| OpStats::bytesFor(task.numOps()) > buffer.size() - stats.offset)
			return Error(EINVAL,
				"the statistics of " + std::to_string(task.numOps())
					+ " operations do not fit at offset "
					+ std::to_string(stats.offset) + " of a buffer of "
					+ std::to_string(buffer.size()) + " bytes");
	}
	if (!d_->implicitSync && !d_->device->info().driverVersion.atLeast(1, 9))
		return Error(EOPNOTSUPP, "driver " + d_->device->info().driverVersion.toString()
						 + " always waits for implicit fences (1.9 need not)");
	if (waits.size() > DRM_VDLA_MAX_IN_SYNCS)
		return Error(E2BIG,
			"a job waits for at most " + std::to_string(DRM_VDLA_MAX_IN_SYNCS)
				+ " fences");

	std::vector<drm_vdla_address> addresses;
	addresses.reserve(entries);
	for (const TaskAddress &a : task.addresses()) {
		drm_vdla_address entry = {};
		entry.handle = a.handle;
		entry.flags = a.write ? DRM_VDLA_ADDRESS_FLAG_WRITE : 0;
		entry.offset = a.offset;
		addresses.push_back(entry);
	}
	if (stats.buffer) {
		drm_vdla_address entry = {};
		entry.handle = stats.buffer->handle();
		entry.flags = DRM_VDLA_ADDRESS_FLAG_WRITE;
		entry.offset = stats.offset;
		addresses.push_back(entry);
	}
	std::vector<drm_vdla_sync> inSyncs;
	inSyncs.reserve(waits.size());
	for (const SyncPoint &w : waits) {
		if (!w.fence)
			return Error(EINVAL, "a wait names no fence");
		if (&w.fence->device() != d_->device)
			return Error(EINVAL, "a wait fence belongs to another Device");
		inSyncs.push_back(encodeSync(w));
	}
	if (signal.fence && &signal.fence->device() != d_->device)
		return Error(EINVAL, "the signal fence belongs to another Device");

	drm_vdla_submit args = {};
	args.ctx_id = d_->id;
	args.addresses = reinterpret_cast<uintptr_t>(addresses.data());
	args.address_count = uint32_t(addresses.size());
	args.descriptor = task.descriptorIndex();
	args.in_syncs = reinterpret_cast<uintptr_t>(inSyncs.data());
	args.in_sync_count = uint32_t(inSyncs.size());
	args.out_sync = encodeSync(signal);
	if (stats.buffer) {
		args.flags = DRM_VDLA_SUBMIT_OP_STATS
			| (stats.timeOnly ? DRM_VDLA_SUBMIT_OP_TIME_ONLY : 0);
		args.op_stats = uint32_t(addresses.size() - 1);
	}
	if (!d_->implicitSync)
		args.flags |= DRM_VDLA_SUBMIT_NO_IMPLICIT;
	if (options.frameBegin)
		args.flags |= DRM_VDLA_SUBMIT_FRAME_BEGIN;
	if (options.frameEnd)
		args.flags |= DRM_VDLA_SUBMIT_FRAME_END;
	if (options.lease)
		args.lease_id = options.lease->id();
	if (drmIoctl(d_->device->fd(), DRM_IOCTL_VDLA_SUBMIT, &args)) {
		int err = errno;
		if (err == EINVAL && args.error_field)
			d_->taskError = { args.error_op, args.error_field, args.error_reason,
				args.error_operand };
		return Error(err, submitErrorReason(err, d_->taskError));
	}
	return args.seqno;
}

void Context::setImplicitSync(bool enabled)
{
	d_->implicitSync = enabled;
}

bool Context::implicitSync() const
{
	return d_->implicitSync;
}

const TaskError &Context::taskError() const
{
	return d_->taskError;
}

} /* namespace vdla */
