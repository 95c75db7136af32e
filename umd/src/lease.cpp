/* SPDX-License-Identifier: MIT */
#include <vdla/lease.h>

#include <sys/ioctl.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>

#include <xf86drm.h>

#include <drm/vdla_accel.h>

#include <vdla/device.h>

#include "device_events.h"
#include "query.h"

namespace vdla {

/* The public header spells the UAPI's reasons out, so as not to need it. */
static_assert(int(LeaseReason::Preempted) == DRM_VDLA_LEASE_REASON_PREEMPTED);
static_assert(int(LeaseResource::SramPartition) == DRM_VDLA_RESOURCE_SRAM_PARTITION);
static_assert(int(LeaseResource::Engine) == DRM_VDLA_RESOURCE_ENGINE);
static_assert(int(LeaseResource::TimeShare) == DRM_VDLA_RESOURCE_TIME_SHARE);
static_assert(int(LeaseReason::Group) == DRM_VDLA_LEASE_REASON_GROUP);
static_assert(int(LeaseReason::FrameOverrun) == DRM_VDLA_LEASE_REASON_FRAME_OVERRUN);

namespace {

Error driverTooOld(const Device &device)
{
	return Error(EOPNOTSUPP, "driver " + device.info().driverVersion.toString()
					 + " has no leases (1.10 has)");
}

std::string acquireErrorReason(int err, const LeaseRequest &request)
{
	const char *kind = request.resource == LeaseResource::Engine	  ? "engine "
			   : request.resource == LeaseResource::TimeShare ? "time share "
									   : "SRAM partition ";
	std::string what = std::string("cannot lease ") + kind + std::to_string(request.index);
	switch (err) {
	case EBUSY:
		return what + ": held by an equal or higher priority";
	case ETIMEDOUT:
		return what + ": not granted within the timeout (a holder did not release in time)";
	case EACCES:
		return what + ": a priority above normal, or preempting the holder, needs CAP_SYS_NICE";
	case EEXIST:
		return what + (request.resource == LeaseResource::TimeShare
				       ? ": the context already holds or waits for a time share"
				       : ": the context already holds or waits for it");
	case ENOENT:
		return what + ": no such resource";
	case EAGAIN:
		return what + ": 16 leases already, or unread lease events fill the file's event "
			      "space (dispatch them)";
	default:
		return what;
	}
}

} /* namespace */

Result<std::vector<SramPartition>> sramPartitions(const Device &device)
{
	if (!device.info().driverVersion.atLeast(1, 10))
		return driverTooOld(device);
	drm_vdla_query_sram_partitions parts = {};
	if (int error = queryInto(device.fd(), DRM_VDLA_QUERY_SRAM_PARTITIONS, &parts))
		return Error(error, "cannot query the SRAM partitions");
	std::vector<SramPartition> out;
	for (uint32_t i = 0; i < parts.count && i < DRM_VDLA_MAX_SRAM_PARTITIONS; i++) {
		const drm_vdla_sram_partition &p = parts.partitions[i];
		out.push_back({ std::string(p.name, strnlen(p.name, sizeof(p.name))), p.offset,
				p.size });
	}
	return out;
}

Result<TimeShares> timeShares(const Device &device)
{
	if (!device.info().driverVersion.atLeast(1, 11))
		return Error(EOPNOTSUPP, "driver " + device.info().driverVersion.toString()
						 + " has no time shares (1.11 has)");
	drm_vdla_query_time_shares shares = {};
	if (int error = queryInto(device.fd(), DRM_VDLA_QUERY_TIME_SHARES, &shares))
		return Error(error, "cannot query the time shares");
	TimeShares out;
	out.period = std::chrono::microseconds(shares.period_us);
	for (uint32_t i = 0; i < shares.count && i < DRM_VDLA_MAX_TIME_SHARES; i++) {
		const drm_vdla_time_share &s = shares.shares[i];
		out.shares.push_back({ std::string(s.name, strnlen(s.name, sizeof(s.name))),
				       s.percent, std::chrono::nanoseconds(s.used_ns),
				       std::chrono::nanoseconds(s.total_ns) });
	}
	return out;
}

ResourceManager::ResourceManager(Device &device) : device_(device)
{
	/* The file's lease events that a Pipeline's dispatch() reads are kept for us. */
	DeviceEvents::subscribe(device_, DeviceEvents::Kind::Lease);
}

ResourceManager::~ResourceManager()
{
	DeviceEvents::unsubscribe(device_, DeviceEvents::Kind::Lease);
	std::lock_guard<std::recursive_mutex> guard(lock_);
	/* Leases left behind are released; they only wait for their destructor now. */
	for (auto &[id, lease] : leases_) {
		drm_vdla_lease_release args = {};
		args.lease_id = id;
		::ioctl(device_.fd(), DRM_IOCTL_VDLA_LEASE_RELEASE, &args);
		lease->released_ = true;
	}
	leases_.clear();
}

int ResourceManager::eventFd() const
{
	return device_.fd();
}

Result<std::unique_ptr<Lease>> ResourceManager::acquire(Context &context,
							const LeaseRequest &request,
							LeaseCallbacks callbacks)
{
	if (!device_.info().driverVersion.atLeast(1, 10))
		return driverTooOld(device_);
	if (&context.device() != &device_)
		return Error(EINVAL, "the context belongs to another Device");
	drm_vdla_lease_acquire args = {};
	args.ctx_id = context.id();
	args.resource = uint32_t(request.resource);
	args.index = request.index;
	args.priority = uint32_t(request.priority);
	args.flags = (request.queue ? DRM_VDLA_LEASE_ACQUIRE_QUEUE : 0)
		     | (request.noPreempt ? DRM_VDLA_LEASE_ACQUIRE_NO_PREEMPT : 0);
	args.group = request.group;
	args.timeout_ns = uint64_t(request.timeout.count());
	args.release_timeout_ns = uint64_t(request.releaseTimeout.count());
	/*
	 * Not drmIoctl(): it repeats a call that failed with EAGAIN (a limit:
	 * it would spin) or EINTR (the kernel withdrew the claim: it would
	 * queue again at the back). And not under the lock, which the other
	 * leases' callbacks need while this waits.
	 */
	if (::ioctl(device_.fd(), DRM_IOCTL_VDLA_LEASE_ACQUIRE, &args)) {
		int err = errno;
		return Error(err, acquireErrorReason(err, request));
	}
	LeaseState state = args.state == DRM_VDLA_LEASE_STATE_HELD      ? LeaseState::Held
			   : args.state == DRM_VDLA_LEASE_STATE_REVOKED ? LeaseState::Revoked
									: LeaseState::Waiting;
	std::unique_ptr<Lease> lease(
		new Lease(*this, context, request.resource, args.lease_id, state,
			  std::move(callbacks)));
	std::lock_guard<std::recursive_mutex> guard(lock_);
	leases_[args.lease_id] = lease.get();
	return lease;
}

void ResourceManager::dispatchOne(const drm_vdla_event_lease &e)
{
	auto it = leases_.find(e.lease_id);
	if (it == leases_.end())
		return;
	Lease *lease = it->second;
	LeaseReason reason = LeaseReason(e.reason);
	/*
	 * The callback is copied: it may destroy its Lease, and the function
	 * object with it. Nothing touches the Lease after the call.
	 */
	switch (e.base.type) {
	case DRM_VDLA_EVENT_LEASE_GRANTED:
		lease->state_ = LeaseState::Held;
		if (auto granted = lease->callbacks_.granted)
			granted(*lease);
		break;
	case DRM_VDLA_EVENT_LEASE_RELEASE_REQUESTED:
		if (auto asked = lease->callbacks_.releaseRequested)
			asked(*lease, reason, std::chrono::nanoseconds(e.deadline_ns));
		break;
	case DRM_VDLA_EVENT_LEASE_REVOKED:
		lease->state_ = LeaseState::Revoked;
		if (auto revoked = lease->callbacks_.revoked)
			revoked(*lease, reason);
		break;
	}
}

Result<unsigned> ResourceManager::dispatch(std::chrono::milliseconds timeout)
{
	std::vector<drm_vdla_event_lease> events;
	{
		/* Events that came before acquire() registered their lease, if it has now. */
		std::lock_guard<std::recursive_mutex> guard(lock_);
		auto registered = [&](const drm_vdla_event_lease &e) {
			return leases_.count(e.lease_id) != 0;
		};
		std::copy_if(early_.begin(), early_.end(), std::back_inserter(events), registered);
		early_.erase(std::remove_if(early_.begin(), early_.end(), registered), early_.end());
	}
	/*
	 * Lease events alone: those of the Device's pipelines that come with
	 * them are kept for Pipeline::dispatch(), and this takes the lease
	 * events its reads kept for us.
	 */
	auto read = DeviceEvents::take(device_, DeviceEvents::Kind::Lease,
				       events.empty() ? timeout : std::chrono::milliseconds(0));
	if (!read)
		return read.error();
	for (const DeviceEvent &e : *read)
		events.push_back(e.lease);

	unsigned dispatched = 0;
	std::lock_guard<std::recursive_mutex> guard(lock_);
	for (const drm_vdla_event_lease &e : events) {
		if (!leases_.count(e.lease_id)) {
			/* An ACQUIRE still returning: kept until it has registered the lease. */
			if (early_.size() < DRM_VDLA_MAX_LEASES_PER_FILE * 3)
				early_.push_back(e);
			continue;
		}
		dispatchOne(e);
		dispatched++;
	}
	return dispatched;
}

Lease::Lease(ResourceManager &manager, Context &context, LeaseResource resource, uint32_t id,
	     LeaseState state, LeaseCallbacks callbacks)
	: manager_(manager), context_(context), resource_(resource), id_(id), state_(state),
	  callbacks_(std::move(callbacks))
{
}

Lease::~Lease()
{
	if (released_)
		return;
	if (auto r = release(); !r)
		fprintf(stderr, "vdla: %s\n", r.error().message().c_str());
}

Result<LeaseStatus> Lease::query()
{
	std::lock_guard<std::recursive_mutex> guard(manager_.lock_);
	if (released_)
		return Error(EINVAL, "the lease was released");
	drm_vdla_lease_query args = {};
	args.lease_id = id_;
	if (drmIoctl(manager_.device_.fd(), DRM_IOCTL_VDLA_LEASE_QUERY, &args))
		return Error(errno, "cannot query lease " + std::to_string(id_));
	LeaseStatus status;
	status.state = args.state == DRM_VDLA_LEASE_STATE_HELD	     ? LeaseState::Held
		       : args.state == DRM_VDLA_LEASE_STATE_REVOKED ? LeaseState::Revoked
								    : LeaseState::Waiting;
	status.releaseRequested = args.release_requested;
	status.queuePriority = args.queue_priority;
	status.waiters = args.waiters;
	status.deadline = std::chrono::nanoseconds(args.deadline_ns);
	state_ = status.state;
	return status;
}

Result<void> Lease::release()
{
	/* Waits for a callback another thread runs; a callback may call it itself. */
	std::lock_guard<std::recursive_mutex> guard(manager_.lock_);
	if (released_)
		return Error(EINVAL, "the lease was released already");
	released_ = true;
	manager_.leases_.erase(id_);
	auto mine = [&](const drm_vdla_event_lease &e) { return e.lease_id == id_; };
	auto &early = manager_.early_;
	early.erase(std::remove_if(early.begin(), early.end(), mine), early.end());
	drm_vdla_lease_release args = {};
	args.lease_id = id_;
	if (drmIoctl(manager_.device_.fd(), DRM_IOCTL_VDLA_LEASE_RELEASE, &args))
		return Error(errno, "cannot release lease " + std::to_string(id_));
	return {};
}

} /* namespace vdla */
