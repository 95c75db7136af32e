/* SPDX-License-Identifier: MIT */
/*
 * Sync objects shared between parties, in the manner of NvSciSync: each
 * party says in a SyncAttrList whether it signals or waits, on which
 * engine, and what it needs (CPU waits, timestamps); reconcileSync()
 * requires exactly one signaler and at least one waiter. The signaler's
 * process allocates a SyncObject (a timeline syncobj), and each job or CPU
 * signal is one point of it; a point travels to waiters as a SyncFence,
 * which holds a sync file: it can be waited on, asked for its outcome and
 * timestamp, and waited on by a DLA job, but never signalled
 * (docs/sharing.md, "Sync objects").
 */
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <vdla/attr_list.h>
#include <vdla/context.h>
#include <vdla/fence.h>
#include <vdla/ipc.h>
#include <vdla/result.h>
#include <vdla/unique_fd.h>

namespace vdla {

class Device;
class Task;

/* What a party does with the sync object. */
enum class SyncPermission { WaitOnly, SignalOnly, WaitSignal };

class SyncAttrList
{
public:
	explicit SyncAttrList(std::string owner);

	const std::string &owner() const { return owner_; }
	bool reconciled() const { return reconciled_; }

	/*
	 * Setters, each once (EEXIST), on an unreconciled list (EACCES).
	 * Sync.RequiredPermission is required; Sync.Accessor is the engine
	 * the party signals or waits with: Accessor::cpu() or
	 * Accessor::dla(n) (EINVAL for Accessor::other(): no other engine
	 * signals or waits on a vdla sync object yet).
	 */
	Result<void> setRequiredPermission(SyncPermission permission);
	Result<void> setAccessor(Accessor accessor);
	/* The party waits from the CPU (SyncFence::wait()). */
	Result<void> setNeedCpuWait(bool need);
	/* The party reads each fence's timestamp (when it signalled). */
	Result<void> setRequireTimestamps(bool require);

	const std::optional<SyncPermission> &requiredPermission() const { return permission_; }
	const std::optional<Accessor> &accessor() const { return accessor_; }
	const std::optional<bool> &needCpuWait() const { return needCpuWait_; }
	const std::optional<bool> &requireTimestamps() const { return requireTimestamps_; }

	/*
	 * Outputs of a reconciled list: the signaler (its owner and engine),
	 * the waiters' engines (a set), and whether fences carry timestamps
	 * and CPU waits are needed.
	 */
	const std::optional<std::string> &signalerOwner() const { return signalerOwner_; }
	const std::optional<Accessor> &signaler() const { return signaler_; }
	const std::optional<std::vector<Accessor>> &waiters() const { return waiters_; }

	/* As AttrList::encode() and decode(). */
	std::vector<uint8_t> encode() const;
	static Result<SyncAttrList> decode(const uint8_t *data, size_t size);

private:
	friend struct SyncReconciler;

	Result<void> checkSettable(const char *key, bool isSet) const;

	std::string owner_;
	bool reconciled_ = false;
	std::optional<SyncPermission> permission_;
	std::optional<Accessor> accessor_;
	std::optional<bool> needCpuWait_;
	std::optional<bool> requireTimestamps_;
	std::optional<std::string> signalerOwner_;
	std::optional<Accessor> signaler_;
	std::optional<std::vector<Accessor>> waiters_;
};

/* A key the sync lists disagree on ("Sync.RequiredPermission ..."). */
struct SyncConflict {
	std::string key;
	std::string rule;
	/* Each party concerned, with its value. */
	std::vector<std::pair<std::string, std::string>> values;

	std::string message() const;
};

struct SyncReconciliation {
	std::optional<SyncAttrList> list;
	std::vector<SyncConflict> conflicts;
};

/*
 * Merges @lists (unreconciled, at least one: EINVAL otherwise): exactly
 * one party with a signal permission, at least one with a wait permission
 * (the signaler's own WaitSignal counts), every party naming its engine;
 * CPU waits and timestamps are granted when any party needs them.
 */
Result<SyncReconciliation> reconcileSync(const std::vector<const SyncAttrList *> &lists,
	const std::string &owner = "reconciled");

Result<void> sendSyncAttrList(IpcEndpoint &endpoint, const SyncAttrList &list);
Result<SyncAttrList> receiveSyncAttrList(IpcEndpoint &endpoint, std::chrono::milliseconds timeout);

/* A point of a sync object, received by a waiter: wait-only. */
class SyncFence
{
public:
	/*
	 * Receives a fence sent by SyncObject::exportFence(). Errors: those of
	 * IpcEndpoint::receive(); EBADMSG when it carries no sync file.
	 */
	static Result<SyncFence> importFrom(IpcEndpoint &endpoint, std::chrono::milliseconds timeout);
	/*
	 * A fence of @point over @syncFile, which it takes (received another
	 * way than importFrom()). Errors: EBADMSG when it is not a sync file.
	 */
	static Result<SyncFence> fromSyncFile(uint64_t point, UniqueFd syncFile);

	/* A second SyncFence over the same fence. Errors: those of fcntl(2). */
	Result<SyncFence> duplicate() const;

	/* The point of the signaler's timeline this fence is. */
	uint64_t point() const { return point_; }
	/* The sync file: poll() it, or hand it to another driver. */
	int syncFile() const { return syncFile_.get(); }

	/*
	 * Waits up to @timeout for the fence (zero polls, a day or more waits
	 * for ever; a signal does not cut the wait short); then its outcome:
	 * error is the job's errno (ECANCELED, ESRCH when its signaler died
	 * before it ran, EFAULT, ...) and the timestamp when it signalled.
	 * Errors: ETIMEDOUT.
	 */
	Result<FenceStatus> wait(std::chrono::nanoseconds timeout) const;
	/* The outcome now, without waiting. */
	Result<FenceStatus> status() const;

	/* A binary Fence of @device holding this fence, for a job to wait on. */
	Result<std::unique_ptr<Fence>> toFence(Device &device) const;

private:
	friend class SyncObject;
	SyncFence(uint64_t point, UniqueFd syncFile)
		: point_(point), syncFile_(std::move(syncFile))
	{
	}

	uint64_t point_;
	UniqueFd syncFile_;
};

/* The signaler's sync object: a timeline syncobj, a point per signal. */
class SyncObject
{
public:
	/*
	 * The sync object of @reconciled on @device. Errors: EINVAL (not
	 * reconciled), ENODEV (the signaler is a vDLA other than @device),
	 * those of Fence::create().
	 */
	static Result<std::unique_ptr<SyncObject>> allocate(Device &device,
		const SyncAttrList &reconciled);

	const SyncAttrList &attributes() const { return attributes_; }
	/* The timeline; a job signals a point of it (Context::submit()). */
	const Fence &timeline() const { return *timeline_; }

	/*
	 * The next point to signal: each call gives a new one, in order. A
	 * job signals it as SyncPoint{ &timeline(), point }; submit() does it
	 * all, and keeps the point for exportFence().
	 */
	uint64_t nextPoint() { return ++lastPoint_; }

	/*
	 * Submits @task on @ctx (a context of a DLA signaler's device) to
	 * signal the next point, which it returns, and keeps the point's fence
	 * for exportFence(); errors those of Context::submit() (when it fails,
	 * the point is not used: the next call takes the one after).
	 */
	Result<uint64_t> submit(Context &ctx, const Task &task,
		const std::vector<SyncPoint> &waits = {});

	/*
	 * A CPU signaler signals @point (nextPoint()'s) once its work is done;
	 * the fence is stamped with the time of the call. EPERM for a DLA
	 * signaler's object.
	 */
	Result<void> signal(uint64_t point);

	/*
	 * Sends @point to a waiter as a sync file, which it can wait on but not
	 * signal. The point must have a fence: a job that signals it was
	 * submitted, or the CPU signalled it (Linux has no fence a process
	 * may promise to signal later and safely hand to others). The object
	 * keeps the fences of the last kKeptPoints points that submit() and
	 * signal() made, so they can be sent any time later; a point a job
	 * submitted otherwise signals can be sent while it is the timeline's
	 * last (a timeline forgets a signalled point once a later one exists).
	 * Errors: EINVAL (no fence at @point yet), ENODATA (the point is
	 * forgotten), those of IpcEndpoint::send().
	 */
	Result<void> exportFence(IpcEndpoint &endpoint, uint64_t point) const;
	/* The fence of @point, as exportFence() would send it; same errors. */
	Result<SyncFence> fence(uint64_t point) const;

	/* How many of the last points' fences the object keeps. */
	static constexpr size_t kKeptPoints = 64;

private:
	SyncObject(SyncAttrList attributes, std::unique_ptr<Fence> timeline)
		: attributes_(std::move(attributes)), timeline_(std::move(timeline))
	{
	}

	/* Keeps the fence of @point (a sync file of it), dropping the oldest. */
	Result<void> keep(uint64_t point);

	SyncAttrList attributes_;
	std::unique_ptr<Fence> timeline_;
	uint64_t lastPoint_ = 0;
	std::map<uint64_t, UniqueFd> kept_;
};

} /* namespace vdla */
