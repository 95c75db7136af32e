/* SPDX-License-Identifier: MIT */
/*
 * Sync attribute lists and their reconciliation, sync objects and the
 * fences that cross to waiters (vdla/sync.h).
 */
#include <vdla/sync.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>

#include <vdla/context.h>
#include <vdla/device.h>
#include <vdla/task.h>

#include "poll_wait.h"
#include "wire.h"

namespace vdla {

namespace {

constexpr uint32_t kSyncMagic = 0x4c534456; /* "VDSL" */
constexpr uint32_t kSyncVersion = 1;

const char *permissionName(SyncPermission permission)
{
	switch (permission) {
	case SyncPermission::WaitOnly:
		return "WaitOnly";
	case SyncPermission::SignalOnly:
		return "SignalOnly";
	default:
		return "WaitSignal";
	}
}

bool signals(SyncPermission permission)
{
	return permission != SyncPermission::WaitOnly;
}

bool waits(SyncPermission permission)
{
	return permission != SyncPermission::SignalOnly;
}

Error malformed(const std::string &why)
{
	return Error(EBADMSG, "the sync attribute list received is malformed: " + why);
}

void writeAccessor(wire::Writer &w, const Accessor &a)
{
	w.u8(static_cast<uint8_t>(a.kind));
	w.u32(a.device);
}

Accessor readAccessor(wire::Reader &r)
{
	uint8_t kind = r.u8();
	uint32_t device = r.u32();
	if (kind == static_cast<uint8_t>(Accessor::Kind::Cpu))
		return Accessor::cpu();
	if (kind != static_cast<uint8_t>(Accessor::Kind::Dla))
		r.fail();
	return Accessor::dla(device);
}

} /* namespace */

SyncAttrList::SyncAttrList(std::string owner)
	: owner_(std::move(owner))
{
}

Result<void> SyncAttrList::checkSettable(const char *key, bool isSet) const
{
	if (reconciled_)
		return Error(EACCES, std::string(key) + ": the sync list of " + owner_
					     + " is reconciled, and read-only");
	if (isSet)
		return Error(EEXIST, std::string(key) + " is set already in the sync list of "
					     + owner_);
	return {};
}

Result<void> SyncAttrList::setRequiredPermission(SyncPermission permission)
{
	if (auto ok = checkSettable("Sync.RequiredPermission", permission_.has_value()); !ok)
		return ok;
	if (permission < SyncPermission::WaitOnly || permission > SyncPermission::WaitSignal)
		return Error(EINVAL, "Sync.RequiredPermission: no such permission");
	permission_ = permission;
	return {};
}

Result<void> SyncAttrList::setAccessor(Accessor accessor)
{
	if (auto ok = checkSettable("Sync.Accessor", accessor_.has_value()); !ok)
		return ok;
	if (accessor.kind == Accessor::Kind::Other)
		return Error(EINVAL, "Sync.Accessor: only the CPU and vDLAs signal and wait; "
				     + accessor.toString() + " cannot");
	accessor_ = accessor.kind == Accessor::Kind::Cpu ? Accessor::cpu()
							  : Accessor::dla(accessor.device);
	return {};
}

Result<void> SyncAttrList::setNeedCpuWait(bool need)
{
	if (auto ok = checkSettable("Sync.NeedCpuWait", needCpuWait_.has_value()); !ok)
		return ok;
	needCpuWait_ = need;
	return {};
}

Result<void> SyncAttrList::setRequireTimestamps(bool require)
{
	if (auto ok = checkSettable("Sync.RequireTimestamps", requireTimestamps_.has_value()); !ok)
		return ok;
	requireTimestamps_ = require;
	return {};
}

std::string SyncConflict::message() const
{
	std::string text = key + " " + rule;
	for (size_t i = 0; i < values.size(); i++)
		text += (i ? ", " : ": ") + values[i].first + " " + values[i].second;
	return text;
}

struct SyncReconciler {
	static std::vector<SyncConflict> run(const std::vector<const SyncAttrList *> &lists,
		SyncAttrList &out)
	{
		std::vector<SyncConflict> conflicts;
		std::vector<std::pair<std::string, std::string>> unset, signalers, all;
		std::set<Accessor> waiters;
		std::optional<Accessor> signaler;
		bool anyWaiter = false;
		for (const SyncAttrList *list : lists) {
			const auto &p = list->requiredPermission();
			all.emplace_back(list->owner(), p ? permissionName(*p) : "unset");
			if (!list->accessor())
				unset.emplace_back(list->owner(), "unset");
			if (!p)
				continue;
			if (signals(*p)) {
				signalers.emplace_back(list->owner(), permissionName(*p));
				signaler = list->accessor();
				out.signalerOwner_ = list->owner();
			}
			if (waits(*p)) {
				anyWaiter = true;
				if (list->accessor())
					waiters.insert(*list->accessor());
			}
		}
		if (std::any_of(lists.begin(), lists.end(),
			    [](const SyncAttrList *l) { return !l->requiredPermission(); })) {
			std::vector<std::pair<std::string, std::string>> missing;
			for (const SyncAttrList *l : lists)
				if (!l->requiredPermission())
					missing.emplace_back(l->owner(), "unset");
			conflicts.push_back({ "Sync.RequiredPermission", "is required", missing });
		}
		if (!unset.empty())
			conflicts.push_back({ "Sync.Accessor", "is required", unset });
		if (signalers.size() != 1)
			conflicts.push_back({ "Sync.RequiredPermission",
				signalers.empty() ? "needs a signaler (SignalOnly or WaitSignal)"
						  : "allows exactly one signaler",
				signalers.empty() ? all : signalers });
		if (!anyWaiter)
			conflicts.push_back({ "Sync.RequiredPermission",
				"needs at least one waiter (WaitOnly or WaitSignal)", all });
		if (!conflicts.empty())
			return conflicts;

		out.permission_ = SyncPermission::WaitSignal;
		out.signaler_ = signaler;
		out.waiters_ = std::vector<Accessor>(waiters.begin(), waiters.end());
		out.needCpuWait_ = std::any_of(lists.begin(), lists.end(),
			[](const SyncAttrList *l) { return l->needCpuWait().value_or(false); });
		/* Both engines timestamp every fence: granted whenever asked. */
		out.requireTimestamps_ = std::any_of(lists.begin(), lists.end(),
			[](const SyncAttrList *l) { return l->requireTimestamps().value_or(false); });
		out.reconciled_ = true;
		return conflicts;
	}
};

Result<SyncReconciliation> reconcileSync(const std::vector<const SyncAttrList *> &lists,
	const std::string &owner)
{
	if (lists.empty() || std::find(lists.begin(), lists.end(), nullptr) != lists.end())
		return Error(EINVAL, "reconcileSync: at least one list, and no null");
	for (const SyncAttrList *list : lists)
		if (list->reconciled())
			return Error(EINVAL, "reconcileSync: the sync list of " + list->owner()
						     + " is reconciled already");
	SyncReconciliation result;
	SyncAttrList out(owner);
	result.conflicts = SyncReconciler::run(lists, out);
	if (result.conflicts.empty())
		result.list = std::move(out);
	return result;
}

std::vector<uint8_t> SyncAttrList::encode() const
{
	wire::Writer w;
	w.u32(kSyncMagic);
	w.u32(kSyncVersion);
	w.u8(reconciled_);
	w.str(owner_);
	/* Each key: set or not, then its value. */
	w.u8(permission_.has_value());
	w.u8(static_cast<uint8_t>(permission_.value_or(SyncPermission::WaitOnly)));
	w.u8(accessor_.has_value());
	writeAccessor(w, accessor_.value_or(Accessor::cpu()));
	w.u8(needCpuWait_.has_value());
	w.u8(needCpuWait_.value_or(false));
	w.u8(requireTimestamps_.has_value());
	w.u8(requireTimestamps_.value_or(false));
	if (reconciled_) {
		w.str(signalerOwner_.value_or(""));
		writeAccessor(w, signaler_.value_or(Accessor::cpu()));
		const auto &list = waiters_.value_or(std::vector<Accessor>{});
		w.u32(static_cast<uint32_t>(list.size()));
		for (const Accessor &a : list)
			writeAccessor(w, a);
	}
	return w.take();
}

Result<SyncAttrList> SyncAttrList::decode(const uint8_t *data, size_t size)
{
	wire::Reader r(data, size);
	if (r.u32() != kSyncMagic)
		return malformed("it is not a sync attribute list");
	if (uint32_t version = r.u32(); version != kSyncVersion)
		return Error(EPROTO, "the sync attribute list received has format version "
					     + std::to_string(version) + ", this libvdla reads "
					     + std::to_string(kSyncVersion));
	const bool reconciled = r.u8();
	SyncAttrList list(r.str());
	const bool hasPermission = r.u8();
	const uint8_t permission = r.u8();
	const bool hasAccessor = r.u8();
	const Accessor accessor = readAccessor(r);
	const bool hasCpuWait = r.u8();
	const bool cpuWait = r.u8();
	const bool hasTimestamps = r.u8();
	const bool timestamps = r.u8();
	if (!r.ok() || permission > static_cast<uint8_t>(SyncPermission::WaitSignal))
		return malformed("truncated, or an unknown value");
	if (hasPermission)
		list.permission_ = static_cast<SyncPermission>(permission);
	if (hasAccessor)
		list.accessor_ = accessor;
	if (hasCpuWait)
		list.needCpuWait_ = cpuWait;
	if (hasTimestamps)
		list.requireTimestamps_ = timestamps;
	if (reconciled) {
		list.signalerOwner_ = r.str();
		list.signaler_ = readAccessor(r);
		const uint32_t count = r.u32();
		if (!r.ok() || count == 0 || count > 64)
			return malformed("a reconciled sync list names 1 to 64 waiters");
		std::vector<Accessor> waiters;
		for (uint32_t i = 0; i < count; i++)
			waiters.push_back(readAccessor(r));
		list.waiters_ = waiters;
		list.reconciled_ = true;
	}
	if (!r.done())
		return malformed("truncated, an unknown engine, or bytes after its end");
	return list;
}

Result<void> sendSyncAttrList(IpcEndpoint &endpoint, const SyncAttrList &list)
{
	return endpoint.send(kIpcSyncAttrList, list.encode());
}

Result<SyncAttrList> receiveSyncAttrList(IpcEndpoint &endpoint, std::chrono::milliseconds timeout)
{
	auto message = endpoint.receive(kIpcSyncAttrList, timeout);
	if (!message)
		return message.error();
	return SyncAttrList::decode(message->payload.data(), message->payload.size());
}

Result<SyncFence> SyncFence::importFrom(IpcEndpoint &endpoint, std::chrono::milliseconds timeout)
{
	auto message = endpoint.receive(kIpcFence, timeout);
	if (!message)
		return message.error();
	wire::Reader r(message->payload.data(), message->payload.size());
	const uint64_t point = r.u64();
	if (!r.done() || message->fds.size() != 1)
		return Error(EBADMSG, "the fence message received is malformed (a point and "
				      "one sync file)");
	return fromSyncFile(point, std::move(message->fds[0]));
}

Result<SyncFence> SyncFence::fromSyncFile(uint64_t point, UniqueFd syncFile)
{
	/* Only a sync file: no ioctl goes to a file of another kind. */
	char link[64] = {};
	const std::string self = "/proc/self/fd/" + std::to_string(syncFile.get());
	if (readlink(self.c_str(), link, sizeof(link) - 1) < 0
		|| std::string(link) != "anon_inode:sync_file")
		return Error(EBADMSG, "the fence received is not a sync file");
	return SyncFence(point, std::move(syncFile));
}

Result<SyncFence> SyncFence::duplicate() const
{
	UniqueFd copy(fcntl(syncFile_.get(), F_DUPFD_CLOEXEC, 0));
	if (!copy.isValid())
		return Error(errno, "cannot duplicate the fence's sync file");
	return SyncFence(point_, std::move(copy));
}

Result<FenceStatus> SyncFence::wait(std::chrono::nanoseconds timeout) const
{
	/* Zero or less polls (waitReadable() waits for ever on a negative). */
	const auto bounded = std::max(timeout, std::chrono::nanoseconds(0));
	if (auto ready = waitReadable(syncFile_.get(), bounded,
		    "the fence of point " + std::to_string(point_) + " has not signalled in time");
		!ready)
		return ready.error();
	return status();
}

Result<FenceStatus> SyncFence::status() const
{
	return Fence::syncFileStatus(syncFile_.get());
}

Result<std::unique_ptr<Fence>> SyncFence::toFence(Device &device) const
{
	return Fence::fromSyncFile(device, syncFile_.get());
}

Result<std::unique_ptr<SyncObject>> SyncObject::allocate(Device &device,
	const SyncAttrList &reconciled)
{
	if (!reconciled.reconciled())
		return Error(EINVAL, "a sync object is allocated from a reconciled sync list; "
				     "the list of " + reconciled.owner() + " is not");
	const Accessor &signaler = *reconciled.signaler();
	if (signaler.kind == Accessor::Kind::Dla && signaler.device != device.accelMinor())
		return Error(ENODEV, "the signaler is " + signaler.toString() + ", not "
				     + device.info().node);
	auto timeline = Fence::create(device, Fence::Type::Timeline);
	if (!timeline)
		return timeline.error();
	return std::unique_ptr<SyncObject>(new SyncObject(reconciled, std::move(*timeline)));
}

Result<void> SyncObject::keep(uint64_t point)
{
	auto fd = timeline_->exportJobSyncFile(point);
	if (!fd)
		return fd.error();
	kept_[point] = UniqueFd(*fd);
	while (kept_.size() > kKeptPoints)
		kept_.erase(kept_.begin());
	return {};
}

Result<uint64_t> SyncObject::submit(Context &ctx, const Task &task,
	const std::vector<SyncPoint> &waits)
{
	const uint64_t point = nextPoint();
	auto queued = ctx.submit(task, waits, { timeline_.get(), point });
	if (!queued)
		return queued.error();
	/*
	 * Now, while it is the last point: the timeline may forget it later.
	 * The job is queued whatever happens here; should keeping fail (no
	 * descriptor left), exportFence() asks the timeline itself later.
	 */
	(void)keep(point);
	return point;
}

Result<void> SyncObject::signal(uint64_t point)
{
	if (attributes_.signaler()->kind != Accessor::Kind::Cpu)
		return Error(EPERM, "the signaler of this sync object is "
				    + attributes_.signaler()->toString() + ": its jobs signal it");
	if (auto signalled = timeline_->signal(point); !signalled)
		return signalled;
	return keep(point);
}

Result<SyncFence> SyncObject::fence(uint64_t point) const
{
	UniqueFd syncFile;
	if (auto it = kept_.find(point); it != kept_.end()) {
		syncFile = UniqueFd(fcntl(it->second.get(), F_DUPFD_CLOEXEC, 0));
		if (!syncFile.isValid())
			return Error(errno, "cannot duplicate the fence's sync file");
	} else {
		auto fd = timeline_->exportJobSyncFile(point);
		if (!fd)
			return fd.error();
		syncFile = UniqueFd(*fd);
	}
	return SyncFence(point, std::move(syncFile));
}

Result<void> SyncObject::exportFence(IpcEndpoint &endpoint, uint64_t point) const
{
	auto f = fence(point);
	if (!f)
		return f.error();
	wire::Writer w;
	w.u64(point);
	return endpoint.send(kIpcFence, w.take(), { f->syncFile() });
}

} /* namespace vdla */
