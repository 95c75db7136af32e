/* SPDX-License-Identifier: MIT */
/*
 * What stream blocks say to each other (docs/streams.md, "How blocks
 * talk"). Down, from the producer towards the consumers: the packets, the
 * end of set-up, presented packets, disconnection and errors. Up, from the
 * consumers: what they need, released packets and disconnection. Every
 * block of a process handles these under streamLock(); IPC blocks carry
 * them across a socket (stream_wire.h).
 */
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <vdla/attr_list.h>
#include <vdla/shared_buffer.h>
#include <vdla/stream.h>
#include <vdla/sync.h>

namespace vdla::detail {

/*
 * The one lock of every stream block of the process. Recursive: a message
 * handled by one block may come straight back (a multicast with no
 * consumer returns a packet to the producer presenting it).
 */
using StreamMutex = std::recursive_timed_mutex;
StreamMutex &streamLock();

/* What a consumer needs: its element lists and how it waits. */
struct StreamConsumerSetup {
	std::string name;
	std::vector<AttrList> elements;
	SyncAttrList waiter{ "" };
};

struct StreamDown {
	enum class Type { PacketCreate, SetupDone, Present, Disconnect, Error };
	explicit StreamDown(Type t) : type(t) { }
	Type type;

	/* PacketCreate, Present: the packet. */
	uint32_t id = 0;
	/* PacketCreate: its elements, in the endpoints' order. */
	std::vector<std::shared_ptr<SharedBuffer>> elements;
	/* SetupDone: how the producer waits for the consumers' fences. */
	std::optional<SyncAttrList> producerWaiter;
	/* Present: the frame count and when, CLOCK_MONOTONIC ns. */
	uint64_t frame = 0;
	int64_t presentNs = 0;
	/* Present: the producer's fences. */
	std::vector<StreamHandover> fences;
	/* Disconnect, Error: why. */
	std::string reason;
	int error = 0;
	/*
	 * Disconnect: the packets below go back to a producer that will
	 * reuse them, so those not taken are not the consumers' any more.
	 * False when the producer is gone (or lost them), so what was
	 * presented may still be taken.
	 */
	bool reclaimed = false;
};

struct StreamUp {
	enum class Type { Setup, Release, Disconnect };
	explicit StreamUp(Type t) : type(t) { }
	Type type;

	/* Setup: every consumer behind the sender. */
	std::vector<StreamConsumerSetup> setups;
	/* Release: the packet and the fences of its readers. */
	uint32_t id = 0;
	std::vector<StreamHandover> fences;
	/* Disconnect: why. */
	std::string reason;
};

/*
 * The release of @present, unread: it goes back with the producer's own
 * fences (a mailbox replacing it, a limiter skipping it, a branch that
 * cannot take it).
 */
inline StreamUp untouched(StreamDown &&present)
{
	StreamUp back(StreamUp::Type::Release);
	back.id = present.id;
	back.fences = std::move(present.fences);
	return back;
}

/* Monotonic time now, in ns: the clock of presentTime. */
int64_t streamNow();

/* The user's view of handed-over fences: duplicates they own. */
std::vector<SyncFence> toSyncFences(const std::vector<StreamHandover> &fences);

/*
 * Fences of every device job still using @elements: what a packet taken
 * from a consumer that is gone must wait for. A buffer whose fences
 * cannot be taken (SRAM) adds none.
 */
std::vector<StreamHandover> pendingJobFences(
	const std::vector<std::shared_ptr<SharedBuffer>> &elements);

/* One fence that signals when all of @fences did (SYNC_IOC_MERGE), point 0. */
Result<StreamHandover> mergeFences(const std::vector<StreamHandover> &fences);

/* "element 2", for messages. */
std::string elementName(size_t index);

} /* namespace vdla::detail */
