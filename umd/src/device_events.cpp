/* SPDX-License-Identifier: MIT */
#include "device_events.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>

#include <vdla/device.h>

namespace vdla {

namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kKinds = 2;

/* The consumer of an event, or -1 for none (a type libvdla does not know: dropped). */
int kindOf(const drm_event &head)
{
	if (head.type >= DRM_VDLA_EVENT_LEASE_GRANTED && head.type <= DRM_VDLA_EVENT_LEASE_REVOKED
		&& head.length == sizeof(drm_vdla_event_lease))
		return int(DeviceEvents::Kind::Lease);
	if (head.type >= DRM_VDLA_EVENT_PIPELINE_IDLE && head.type <= DRM_VDLA_EVENT_PIPELINE_GONE
		&& head.length == sizeof(drm_vdla_event_pipeline))
		return int(DeviceEvents::Kind::Pipeline);
	return -1;
}

/* One Device's events: who wants which, and what was read for whom. */
struct Demux {
	explicit Demux(int file) : fd(file) { }

	const int fd;
	std::mutex lock;
	/* Signalled when events are kept, and when the reader hands over reading. */
	std::condition_variable changed;
	/* A thread is in poll() or read() on the file: the others wait for it. */
	bool reading = false;
	unsigned subscribers[kKinds] = {};
	std::deque<DeviceEvent> kept[kKinds];

	/* Under the lock: moves the kept events of @kind that @wanted accepts into @out. */
	void takeKept(
		size_t kind, const DeviceEvents::Filter &wanted, std::vector<DeviceEvent> *out)
	{
		auto &queue = kept[kind];
		for (auto it = queue.begin(); it != queue.end();) {
			if (wanted && !wanted(*it)) {
				++it;
				continue;
			}
			out->push_back(*it);
			it = queue.erase(it);
		}
	}

	/* Under the lock: keeps each event of @buf for its kind's consumers, if any. */
	void keep(const uint8_t *buf, size_t n)
	{
		for (size_t at = 0; at + sizeof(drm_event) <= n;) {
			drm_event head;
			std::memcpy(&head, buf + at, sizeof(head));
			if (head.length < sizeof(head) || at + head.length > n)
				break;
			int kind = kindOf(head);
			if (kind >= 0 && subscribers[kind]) {
				DeviceEvent e;
				std::memset(&e, 0, sizeof(e));
				std::memcpy(&e, buf + at, head.length);
				if (kept[kind].size() >= DeviceEvents::kMaxKept)
					kept[kind].pop_front();
				kept[kind].push_back(e);
			}
			at += head.length;
		}
	}
};

/*
 * The Demux of each Device something is subscribed to. Lock order: the
 * registry's lock, then a Demux's.
 */
struct Registry {
	std::mutex lock;
	std::map<const Device *, std::shared_ptr<Demux>> demuxes;
};

Registry &registry()
{
	static Registry r;
	return r;
}

std::shared_ptr<Demux> demuxOf(const Device &device)
{
	Registry &r = registry();
	std::lock_guard<std::mutex> guard(r.lock);
	auto it = r.demuxes.find(&device);
	return it == r.demuxes.end() ? nullptr : it->second;
}

/*
 * Waits up to @waitMs for the file to be readable and reads what it holds
 * into @buf (@n bytes; 0 on a timeout or a signal). The caller is the
 * reader, without the lock. Returns 0 or an errno, with the reason in
 * @what.
 */
int readFile(int fd, int waitMs, uint8_t *buf, size_t size, ssize_t *n, const char **what)
{
	*n = 0;
	pollfd p = { fd, POLLIN, 0 };
	int ready = ::poll(&p, 1, waitMs);
	if (ready < 0 && errno != EINTR) {
		*what = "cannot poll the device file for events";
		return errno;
	}
	if (ready <= 0)
		return 0;
	/* read() returns whole events, as many as fit. */
	*n = ::read(fd, buf, size);
	if (*n < 0) {
		*n = 0;
		if (errno != EAGAIN && errno != EINTR) {
			*what = "cannot read the device file's events";
			return errno;
		}
	}
	return 0;
}

} /* namespace */

void DeviceEvents::subscribe(Device &device, Kind kind)
{
	Registry &r = registry();
	std::lock_guard<std::mutex> guard(r.lock);
	std::shared_ptr<Demux> &demux = r.demuxes[&device];
	if (!demux)
		demux = std::make_shared<Demux>(device.fd());
	std::lock_guard<std::mutex> demuxGuard(demux->lock);
	demux->subscribers[size_t(kind)]++;
}

void DeviceEvents::unsubscribe(Device &device, Kind kind)
{
	Registry &r = registry();
	std::lock_guard<std::mutex> guard(r.lock);
	auto it = r.demuxes.find(&device);
	if (it == r.demuxes.end())
		return;
	Demux &demux = *it->second;
	std::unique_lock<std::mutex> demuxGuard(demux.lock);
	if (demux.subscribers[size_t(kind)] && !--demux.subscribers[size_t(kind)])
		demux.kept[size_t(kind)].clear();
	bool unused = std::all_of(std::begin(demux.subscribers), std::end(demux.subscribers),
		[](unsigned n) { return n == 0; });
	demuxGuard.unlock();
	/* A take() still running holds its own reference. */
	if (unused)
		r.demuxes.erase(it);
}

Result<std::vector<DeviceEvent>> DeviceEvents::take(
	Device &device, Kind kind, std::chrono::milliseconds timeout, const Filter &wanted)
{
	std::shared_ptr<Demux> demux = demuxOf(device);
	if (!demux)
		return Error(EINVAL, "nothing of this Device consumes its events");
	const size_t k = size_t(kind);
	const bool forever = timeout.count() < 0;
	/* A day is for ever too, and keeps the deadline from overflowing. */
	const Clock::time_point deadline = Clock::now()
		+ std::min<std::chrono::milliseconds>(timeout, std::chrono::hours(24));

	std::vector<DeviceEvent> out;
	bool readOnce = false;
	std::unique_lock<std::mutex> guard(demux->lock);
	for (;;) {
		demux->takeKept(k, wanted, &out);
		if (!out.empty())
			return out;
		if (demux->reading) {
			/* Another thread reads the file: it keeps our events and wakes us. */
			if (forever)
				demux->changed.wait(guard);
			else if (demux->changed.wait_until(guard, deadline)
				== std::cv_status::timeout) {
				demux->takeKept(k, wanted, &out);
				return out;
			}
			continue;
		}
		Clock::time_point now = Clock::now();
		/* Past the deadline, still one look at the file (a zero timeout's). */
		if (readOnce && !forever && now >= deadline)
			return out;

		int waitMs = -1;
		if (!forever) {
			auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now);
			waitMs = int(std::clamp<int64_t>(left.count(), 0, INT_MAX));
		}
		demux->reading = true;
		guard.unlock();
		alignas(8) uint8_t buf[4096];
		ssize_t n = 0;
		const char *what = "";
		int err = readFile(demux->fd, waitMs, buf, sizeof(buf), &n, &what);
		guard.lock();
		demux->reading = false;
		readOnce = true;
		demux->keep(buf, size_t(n));
		/* Those waiting for their events, or to read in turn. */
		demux->changed.notify_all();
		if (err)
			return Error(err, what);
		/* Nothing read before the deadline, or a signal: whatever is kept. */
		if (!n) {
			demux->takeKept(k, wanted, &out);
			return out;
		}
	}
}

void DeviceEvents::forget(Device &device, Kind kind, const Filter &match)
{
	std::shared_ptr<Demux> demux = demuxOf(device);
	if (!demux)
		return;
	std::lock_guard<std::mutex> guard(demux->lock);
	auto &queue = demux->kept[size_t(kind)];
	queue.erase(std::remove_if(queue.begin(), queue.end(), match), queue.end());
}

} /* namespace vdla */
