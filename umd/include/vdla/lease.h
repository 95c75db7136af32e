/* SPDX-License-Identifier: MIT */
/*
 * The resource manager (docs/resources.md), shaped like an OpenMAX IL
 * resource manager: a component (here a Context) acquires an exclusive
 * resource with a priority; it is told when a higher priority wants it
 * back (releaseRequested, with a deadline), when a queued claim is granted
 * (granted: OpenMAX's "resources available") and when a lease it did not
 * give back in time was taken at a frame boundary (revoked: "resources
 * preempted"). The resources are the device's SRAM partitions and its
 * engines (reservations).
 *
 *	vdla::ResourceManager rm(device);
 *	vdla::LeaseRequest request;
 *	request.index = 0;                         // SRAM partition 0
 *	request.timeout = 100ms;                   // the preemption timeout
 *	vdla::LeaseCallbacks callbacks;
 *	callbacks.releaseRequested = [&](vdla::Lease &lease, auto, auto) {
 *		finishFrame();
 *		lease.release();
 *	};
 *	auto lease = rm.acquire(context, request, callbacks);
 *	auto sram = vdla::Buffer::create(device, 64 << 10, **lease);
 *	vdla::SubmitOptions options;
 *	options.lease = lease->get();
 *	context.submitWithOptions(task, {}, {}, options);
 *	rm.dispatch(0ms);                          // from the event loop, on POLLIN of rm.eventFd()
 */
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <vdla/context.h>
#include <vdla/result.h>

/* The UAPI's event (drm/vdla_accel.h), which this header does not need whole. */
struct drm_vdla_event_lease;

namespace vdla {

class Device;
class Lease;

/* A named region of the SRAM, leased as a whole (defined by the administrator). */
struct SramPartition {
	std::string name;
	/* Bytes from the first byte of SRAM. */
	uint64_t offset = 0;
	uint64_t size = 0;
};

/* The device's SRAM partitions, in index order. Errors: EOPNOTSUPP before driver 1.10. */
Result<std::vector<SramPartition>> sramPartitions(const Device &device);

/* A guaranteed fraction of the device's time in every period (defined by the administrator). */
struct TimeShare {
	std::string name;
	/* Of each period. */
	uint32_t percent = 0;
	/* Device time charged to it in the current period, and since it was defined. */
	std::chrono::nanoseconds used{ 0 };
	std::chrono::nanoseconds total{ 0 };
};

struct TimeShares {
	/* The period the percentages are of. */
	std::chrono::microseconds period{ 0 };
	/* In index order. */
	std::vector<TimeShare> shares;
};

/* The device's time shares. Errors: EOPNOTSUPP before driver 1.11. */
Result<TimeShares> timeShares(const Device &device);

enum class LeaseState {
	/* Queued for the resource. */
	Waiting,
	Held,
	/* Taken away: submits naming it fail; release() forgets it. */
	Revoked,
};

/* Why a lease is asked to release, or was revoked. */
enum class LeaseReason {
	None = 0,
	/* A claim of strictly higher priority wants the resource. */
	Preempted = 1,
	/* A lease of its group was asked. */
	Group = 2,
	/* Revoked: its frame did not end in time. */
	FrameOverrun = 3,
};

/* What a lease is on. */
enum class LeaseResource {
	/* A region of the SRAM (sramPartitions()); buffers made under the lease live there. */
	SramPartition = 1,
	/*
	 * An engine (0 BDMA, 1 CONV, 2 SDP, 3 PDP, 4 CDP, 5 RUBIK): while held,
	 * the context's jobs go before those of contexts holding none.
	 */
	Engine = 2,
	/*
	 * A device-time share (timeShares()): while it has credit in the
	 * period, the context's jobs go before all others but other shares'.
	 * Another context of the same Device joins the share with a
	 * submission naming the lease (SubmitOptions::lease).
	 */
	TimeShare = 3,
};

struct LeaseRequest {
	LeaseResource resource = LeaseResource::SramPartition;
	/* The partition's index (sramPartitions()), the engine, or the share's index (timeShares()). */
	uint32_t index = 0;
	/* Above Normal, and preempting a holder, need CAP_SYS_NICE (EACCES). */
	Priority priority = Priority::Normal;
	/* How long acquire() waits for the grant; 0: it does not wait (EBUSY). */
	std::chrono::nanoseconds timeout{ 0 };
	/*
	 * Not granted within @timeout, the claim stays queued instead of
	 * failing: acquire() returns a Waiting lease, and granted is called.
	 */
	bool queue = false;
	/* Never ask the holder to release: wait as behind an equal priority. */
	bool noPreempt = false;
	/* 0, or a group of this Device's leases that are asked and revoked together. */
	uint32_t group = 0;
	/* The time this lease has to release once asked; 0: the driver's default. */
	std::chrono::nanoseconds releaseTimeout{ 0 };
};

struct LeaseStatus {
	LeaseState state = LeaseState::Waiting;
	bool releaseRequested = false;
	/* A waiter's priority in the queue, raised by its waiting (aging). */
	uint32_t queuePriority = 0;
	/* Claims queued for the resource. */
	uint32_t waiters = 0;
	/* While asked: when it will be revoked (CLOCK_MONOTONIC). */
	std::chrono::nanoseconds deadline{ 0 };
};

/*
 * Called from ResourceManager::dispatch(), on its caller's thread. A
 * callback may release its lease, or destroy it; another thread releasing
 * or destroying a lease waits for its callback to return.
 */
struct LeaseCallbacks {
	/* Release before @deadline (CLOCK_MONOTONIC), at a frame boundary. */
	std::function<void(Lease &, LeaseReason, std::chrono::nanoseconds deadline)> releaseRequested;
	/* A queued claim holds the resource now. */
	std::function<void(Lease &)> granted;
	/* The lease was taken at a frame boundary; its queued jobs were cancelled. */
	std::function<void(Lease &, LeaseReason)> revoked;
};

class ResourceManager
{
public:
	/*
	 * The leases of @device's file. One ResourceManager per Device: it
	 * reads the file's events. Its leases must go before it goes; those
	 * left are released then, and only their destructor may be called.
	 */
	explicit ResourceManager(Device &device);
	~ResourceManager();
	ResourceManager(const ResourceManager &) = delete;
	ResourceManager &operator=(const ResourceManager &) = delete;

	/*
	 * Claims a partition, an engine or a time share for @context. Errors: EBUSY (held by an
	 * equal or higher priority and no wait asked), ETIMEDOUT (not
	 * granted in time: the claim is withdrawn), EINTR (a signal came
	 * while it waited: the claim is withdrawn), EACCES (a privilege is
	 * missing), EEXIST (the context already claims it, or another time share), ENOENT (no such
	 * partition), EAGAIN (16 leases, or unread events fill the file's
	 * event space: call dispatch()), EOPNOTSUPP (driver before 1.10).
	 * Callbacks of other leases still run (dispatch() on another thread)
	 * while it waits.
	 */
	Result<std::unique_ptr<Lease>> acquire(Context &context, const LeaseRequest &request,
					       LeaseCallbacks callbacks = {});

	/*
	 * Reads the lease events waiting on the device file, waiting up to
	 * @timeout for the first, and calls their leases' callbacks. Returns
	 * how many it dispatched.
	 */
	Result<unsigned> dispatch(std::chrono::milliseconds timeout);

	/* The descriptor to poll for POLLIN (the Device's). */
	int eventFd() const;

private:
	friend class Lease;

	void dispatchOne(const ::drm_vdla_event_lease &event);

	Device &device_;
	/*
	 * Held while a callback runs, so that another thread's release waits
	 * for it; recursive, so that the callback itself may release.
	 */
	std::recursive_mutex lock_;
	std::map<uint32_t, Lease *> leases_;
	/* Events read before acquire() registered their lease (ids are not reused soon). */
	std::vector<::drm_vdla_event_lease> early_;
};

class Lease
{
public:
	/* Releases the lease. */
	~Lease();
	Lease(const Lease &) = delete;
	Lease &operator=(const Lease &) = delete;

	uint32_t id() const { return id_; }
	Context &context() const { return context_; }
	LeaseResource resource() const { return resource_; }
	/* The state the last call or event left it in. */
	LeaseState state() const { return state_; }
	Result<LeaseStatus> query();

	/*
	 * Gives the resource up: jobs already submitted naming it finish,
	 * then it goes to the next waiter and buffers made in the partition
	 * lose their SRAM. The lease is forgotten; calling it again is EINVAL.
	 */
	Result<void> release();

private:
	friend class ResourceManager;

	Lease(ResourceManager &manager, Context &context, LeaseResource resource, uint32_t id,
	      LeaseState state, LeaseCallbacks callbacks);

	ResourceManager &manager_;
	Context &context_;
	LeaseResource resource_;
	uint32_t id_;
	LeaseState state_;
	/* Released, or its manager went; under the manager's lock. */
	bool released_ = false;
	LeaseCallbacks callbacks_;
};

} /* namespace vdla */
