/* SPDX-License-Identifier: MIT */
/*
 * vdla::Fence: a DRM syncobj of a Device, binary or timeline. Jobs signal
 * fences when they end and wait for fences before they start; other
 * devices and drivers exchange them as sync files or syncobj fds.
 */
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include <vdla/result.h>

namespace vdla {

class Device;

/* A fence as a sync file reports it. */
struct FenceStatus {
	/* The fence has signalled. */
	bool signalled = false;
	/* The error it signalled with (a positive errno), 0 for success. */
	int error = 0;
	/* When it signalled, CLOCK_MONOTONIC; zero while pending. */
	std::chrono::nanoseconds timestamp{ 0 };
};

class Fence
{
public:
	enum class Type {
		/* One fence, replaced by each job that signals the syncobj. */
		Binary,
		/* A sequence of points, each signalled by one job. */
		Timeline,
	};

	/* A new fence, already signalled with @signalled (binary only). */
	static Result<std::unique_ptr<Fence>> create(
		Device &device, Type type = Type::Binary, bool signalled = false);

	/*
	 * A fence of this Device that shares the syncobj of @syncobjFd (from
	 * exportFd() of any Device). The caller keeps its fd.
	 */
	static Result<std::unique_ptr<Fence>> importFd(
		Device &device, int syncobjFd, Type type = Type::Binary);

	/* A binary fence holding the fence of the sync file @syncFileFd. */
	static Result<std::unique_ptr<Fence>> fromSyncFile(Device &device, int syncFileFd);

	/* The status of the fence in the sync file @syncFileFd (SYNC_IOC_FILE_INFO). */
	static Result<FenceStatus> syncFileStatus(int syncFileFd);

	~Fence();
	Fence(const Fence &) = delete;
	Fence &operator=(const Fence &) = delete;

	Device &device() const;
	uint32_t handle() const;
	Type type() const;

	/*
	 * Waits until the binary fence (or timeline @point) has signalled,
	 * also waiting for a job to attach it if none has yet. A zero
	 * @timeout polls. Errors: ETIMEDOUT when it has not signalled in time
	 * (the kernel says ETIME), EINTR. Success says nothing about the
	 * job's outcome: status() does. wait() on a timeline fence and
	 * waitPoint() on a binary one fail with EINVAL.
	 */
	Result<void> wait(std::chrono::nanoseconds timeout) const;
	Result<void> waitPoint(uint64_t point, std::chrono::nanoseconds timeout) const;

	/* Whether the binary fence (timeline: @point) has signalled. */
	Result<bool> signalled(uint64_t point = 0) const;
	/* The last signalled point of a timeline. */
	Result<uint64_t> lastPoint() const;

	/*
	 * Signals the binary fence (timeline: @point) from the CPU; the fence
	 * is stamped with the time of the call (a timeline point too, which the
	 * DRM core's timeline signal would not do).
	 */
	Result<void> signal(uint64_t point = 0);
	/* Removes the binary fence: waits then wait for a new one. */
	Result<void> reset();

	/*
	 * The binary fence (timeline: the fence of @point) as a sync file,
	 * owned by the caller. Errors: ENOENT/EINVAL when there is no fence yet.
	 */
	Result<int> exportSyncFile(uint64_t point = 0) const;
	/*
	 * The fence given for @point alone (binary: the fence) as a sync file
	 * whose status is that job's outcome, owned by the caller, in one call
	 * from driver 1.9 (DRM_IOCTL_VDLA_FENCE_EXPORT; EOPNOTSUPP before).
	 * Unlike exportSyncFile(), it does not wait for the points before, and
	 * a point whose outcome is gone is an error rather than a sync file
	 * that reads as a success. Errors: EINVAL (no fence at @point yet),
	 * ENODATA (the point was merged away once signalled, see waitStatus()).
	 */
	Result<int> exportJobSyncFile(uint64_t point = 0) const;
	/* Replaces the binary fence (timeline: sets @point) with a sync file's. */
	Result<void> importSyncFile(int syncFileFd, uint64_t point = 0);

	/* The syncobj itself as a file descriptor, owned by the caller. */
	Result<int> exportFd() const;

	/* The outcome of the binary fence (timeline: @point), via a sync file. */
	Result<FenceStatus> status(uint64_t point = 0) const;

	/*
	 * wait() or waitPoint() and then status(), in one ioctl from driver
	 * 1.8 (DRM_IOCTL_VDLA_FENCE_WAIT; older drivers take the separate
	 * steps, which wait for a job to attach the fence and report a merged
	 * point as a success). Errors: EINVAL when there is no fence at
	 * @point yet (it does not wait for one), ENODATA when the point's
	 * outcome is gone (a timeline merges a signalled point into the next
	 * one once a lookup walks past it: ask about the last point, or give
	 * each job a timeline of its own), ETIMEDOUT when it has not signalled
	 * in time.
	 */
	Result<FenceStatus> waitStatus(uint64_t point, std::chrono::nanoseconds timeout) const;

private:
	class Private;
	explicit Fence(std::unique_ptr<Private> d);
	std::unique_ptr<Private> d_;
};

} /* namespace vdla */
