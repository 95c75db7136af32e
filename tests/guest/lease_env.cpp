/* SPDX-License-Identifier: MIT */
#include "lease_env.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "submit_env.h"

namespace guest {

std::string leaseAttributePath(int index, const std::string &attribute)
{
	return "/sys/class/accel/accel" + std::to_string(index) + "/device/" + attribute;
}

std::string sramPartitionsPath(int index)
{
	return leaseAttributePath(index, "sram_partitions");
}

std::string timeSharesPath(int index)
{
	return leaseAttributePath(index, "time_shares");
}

DefinedResources::DefinedResources(int index, const std::string &attribute,
				   const std::string &spec)
	: index_(index), path_(leaseAttributePath(index, attribute))
{
	error_ = writeFile(path_, spec);
}

DefinedResources::~DefinedResources()
{
	/* A killed holder's leases go once its file is released. */
	waitUntil([&] { return readState(index_)["leases"] == 0; }, 10000);
	writeFile(path_, "\n");
}

int queryTimeShares(int fd, drm_vdla_query_time_shares *out)
{
	*out = {};
	drm_vdla_query q = {};
	q.query = DRM_VDLA_QUERY_TIME_SHARES;
	q.size = sizeof(*out);
	q.data = reinterpret_cast<uintptr_t>(out);
	return ioctlError(fd, DRM_IOCTL_VDLA_QUERY, &q);
}

int leaseAcquire(int fd, const LeaseClaim &claim, uint32_t *id, uint32_t *state)
{
	drm_vdla_lease_acquire args = {};
	args.ctx_id = claim.ctx;
	args.resource = claim.resource;
	args.index = claim.index;
	args.priority = claim.priority;
	args.flags = claim.flags;
	args.group = claim.group;
	args.user_data = claim.userData;
	args.timeout_ns = claim.timeoutNs;
	args.release_timeout_ns = claim.releaseTimeoutNs;
	int ret = ioctlError(fd, DRM_IOCTL_VDLA_LEASE_ACQUIRE, &args);
	if (id)
		*id = args.lease_id;
	if (state)
		*state = args.state;
	return ret;
}

int leaseRelease(int fd, uint32_t id)
{
	drm_vdla_lease_release args = {};
	args.lease_id = id;
	return ioctlError(fd, DRM_IOCTL_VDLA_LEASE_RELEASE, &args);
}

int leaseQuery(int fd, uint32_t id, drm_vdla_lease_query *query)
{
	*query = {};
	query->lease_id = id;
	return ioctlError(fd, DRM_IOCTL_VDLA_LEASE_QUERY, query);
}

uint32_t leaseState(int fd, uint32_t id)
{
	drm_vdla_lease_query q;
	return leaseQuery(fd, id, &q) ? 0 : q.state;
}

std::vector<drm_vdla_event_lease> readLeaseEvents(int fd, int timeoutMs)
{
	std::vector<drm_vdla_event_lease> events;
	for (const auto &raw : readDrmEvents(fd, timeoutMs, DRM_VDLA_EVENT_LEASE_GRANTED,
					     DRM_VDLA_EVENT_LEASE_REVOKED, sizeof(drm_vdla_event_lease))) {
		events.emplace_back();
		std::memcpy(&events.back(), raw.data(), sizeof(drm_vdla_event_lease));
	}
	return events;
}

bool waitLeaseEvent(int fd, uint32_t type, int timeoutMs, drm_vdla_event_lease *event)
{
	int64_t end = monotonicNs() + int64_t(timeoutMs) * 1000000;
	for (;;) {
		int64_t left = (end - monotonicNs()) / 1000000;
		if (left < 0)
			return false;
		for (const drm_vdla_event_lease &e : readLeaseEvents(fd, int(left))) {
			if (e.base.type == type) {
				if (event)
					*event = e;
				return true;
			}
		}
	}
}

} /* namespace guest */
