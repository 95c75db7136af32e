/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the resource manager's interface (vdla_accel.h, "Leases"):
 * SRAM partitions defined through sysfs for the length of a test, the
 * three lease ioctls with their errno, and the lease events read from the
 * node. No googletest here, so that a benchmark can link it too.
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <drm/vdla_accel.h>

namespace guest {

/* The sysfs attribute @attribute (sram_partitions, time_shares) of accel node @index's device. */
std::string leaseAttributePath(int index, const std::string &attribute);
std::string sramPartitionsPath(int index);
std::string timeSharesPath(int index);

/*
 * Resources of device @index defined for the length of a scope: @spec
 * written to the sysfs attribute at construction; at destruction, once no
 * lease is left (a killed process's go shortly after it), they are removed.
 */
class DefinedResources
{
public:
	DefinedResources(int index, const std::string &attribute, const std::string &spec);
	~DefinedResources();
	DefinedResources(const DefinedResources &) = delete;
	DefinedResources &operator=(const DefinedResources &) = delete;

	int error() const { return error_; }

private:
	int index_;
	std::string path_;
	int error_ = 0;
};

/* SRAM partitions, "name:size,..." */
class SramPartitions : public DefinedResources
{
public:
	SramPartitions(int index, const std::string &spec)
		: DefinedResources(index, "sram_partitions", spec)
	{
	}
};

/* Device-time shares, "name:percent,..." */
class TimeShares : public DefinedResources
{
public:
	TimeShares(int index, const std::string &spec)
		: DefinedResources(index, "time_shares", spec)
	{
	}
};

/* QUERY TIME_SHARES; the errno. */
int queryTimeShares(int fd, drm_vdla_query_time_shares *out);

/* What LEASE_ACQUIRE asks; the defaults claim SRAM partition 0 at NORMAL without waiting. */
struct LeaseClaim {
	uint32_t ctx = 0;
	/* DRM_VDLA_RESOURCE_*. */
	uint32_t resource = DRM_VDLA_RESOURCE_SRAM_PARTITION;
	uint32_t index = 0;
	uint32_t priority = DRM_VDLA_PRIORITY_NORMAL;
	uint32_t flags = 0;
	uint32_t group = 0;
	uint64_t userData = 0;
	uint64_t timeoutNs = 0;
	uint64_t releaseTimeoutNs = 0;
};

/* LEASE_ACQUIRE; the errno, the lease id and its state (DRM_VDLA_LEASE_STATE_*). */
int leaseAcquire(int fd, const LeaseClaim &claim, uint32_t *id, uint32_t *state = nullptr);
/* LEASE_RELEASE; the errno. */
int leaseRelease(int fd, uint32_t id);
/* LEASE_QUERY; the errno. */
int leaseQuery(int fd, uint32_t id, drm_vdla_lease_query *query);
/* LEASE_QUERY's state, or 0 if it fails. */
uint32_t leaseState(int fd, uint32_t id);

/*
 * The lease events of @fd: those already there, or if there are none the
 * first batch that comes within @timeoutMs (poll). Other events are skipped.
 */
std::vector<drm_vdla_event_lease> readLeaseEvents(int fd, int timeoutMs);
/* Waits up to @timeoutMs for an event of @type; events before it are dropped. */
bool waitLeaseEvent(int fd, uint32_t type, int timeoutMs, drm_vdla_event_lease *event = nullptr);

} /* namespace guest */
