/* SPDX-License-Identifier: MIT */
/*
 * The events of a Device's file, shared out between the parts of libvdla
 * that consume them: the ResourceManager's lease events and the pipelines'
 * (vdla/lease.h, vdla/pipeline.h). They all arrive on the one descriptor,
 * and a read() takes whatever is there, so whoever reads keeps the events
 * of the others for them, rather than throwing them away.
 *
 * Per Device: the state lives while something is subscribed to it (a
 * ResourceManager, a Pipeline), which must not outlive its Device, so a
 * Device's address names it for that long.
 */
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include <drm/vdla_accel.h>

#include <vdla/result.h>

namespace vdla {

class Device;

/* An event as read from the file, whole; its type says which member holds it. */
struct DeviceEvent {
	union {
		drm_event base;
		drm_vdla_event_lease lease;
		drm_vdla_event_pipeline pipeline;
	};
};

class DeviceEvents
{
public:
	/* Who consumes an event, by its type. Events of no kind are dropped. */
	enum class Kind {
		Lease,
		Pipeline,
	};
	using Filter = std::function<bool(const DeviceEvent &)>;

	/*
	 * While a consumer of @kind is subscribed to @device, the events of
	 * @kind that others read are kept for it (at most kMaxKept, the oldest
	 * dropped first: as many as the kernel's 4 KiB of event space holds);
	 * with none, they are dropped. Each subscribe() needs an unsubscribe().
	 */
	static void subscribe(Device &device, Kind kind);
	static void unsubscribe(Device &device, Kind kind);

	/*
	 * The events of @kind that @wanted accepts (all, without a filter),
	 * oldest first: those kept, or else those read from the file within
	 * @timeout. A zero @timeout reads what is there without waiting, a
	 * negative one waits for ever. A signal ends the wait, without events.
	 * Threads may call it at once: one reads the file, the others wait
	 * for it to hand over their events, or to hand over the reading. The
	 * caller must be subscribed to @kind. Errors: those of poll() and read().
	 */
	static Result<std::vector<DeviceEvent>> take(Device &device, Kind kind,
		std::chrono::milliseconds timeout, const Filter &wanted = {});

	/* Drops the kept events of @kind that @match accepts (those of a handle closed). */
	static void forget(Device &device, Kind kind, const Filter &match);

	static constexpr size_t kMaxKept = 4096 / sizeof(drm_vdla_event_pipeline);
};

} /* namespace vdla */
