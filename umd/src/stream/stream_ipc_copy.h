/* SPDX-License-Identifier: MIT */
/*
 * The copying side of an IPC destination (StreamIpcDst::create() with
 * packets of its own): the stream crosses a memory boundary by a BDMA
 * copy on the receiving vDLA. Upstream it is one consumer that only
 * copies (AttrList::forCopyEngine()); downstream it is the producer of its
 * own packets, reconciled with the consumers behind it alone, so they may
 * live where the producer's cannot go, such as this vDLA's SRAM. Each
 * packet presented is copied into a free packet of its own by a job that
 * waits for the producer's fence and for the consumers' release fences of
 * that packet; the producer's packet goes back at once with the copy's
 * fence, so the consumers here hold only their own packets.
 */
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <vdla/context.h>
#include <vdla/device.h>
#include <vdla/stream.h>

#include "stream_messages.h"

namespace vdla::detail {

class StreamIpcCopier
{
public:
	struct Links {
		/* To the blocks below, to the producer's process, an event of the block. */
		std::function<void(StreamDown &&)> down;
		std::function<void(StreamUp &&)> up;
		std::function<void(StreamEventType, const std::string &, int)> post;
	};

	StreamIpcCopier(Device &device, uint32_t packets, Links links);

	void fromUpstream(StreamDown &&message);
	void fromDownstream(StreamUp &&message);

private:
	struct Local {
		uint32_t id;
		std::vector<std::shared_ptr<SharedBuffer>> elements;
		bool free = true;
		/* Free: the consumers' release fences, which the next copy waits for. */
		std::vector<StreamHandover> fences;
	};

	void setUp(const SyncAttrList &producerWaiter);
	void pump();
	Result<void> copy(const StreamDown &present, Local &local);
	void fail(int error, const std::string &why);
	/* The connection ended with @bye: passes it down once what waits is copied. */
	void end(StreamDown &&bye);
	void finishEnd();
	Accessor engine() const { return Accessor::dla(device_.accelMinor()); }

	Device &device_;
	const uint32_t count_;
	Links links_;
	std::vector<StreamConsumerSetup> setups_;
	std::map<uint32_t, std::vector<std::shared_ptr<SharedBuffer>>> upstream_;
	/* Presents waiting for a free packet of ours. */
	std::deque<StreamDown> pending_;
	std::vector<Local> local_;
	std::unique_ptr<SyncObject> sync_;
	std::unique_ptr<Context> ctx_;
	bool ready_ = false;
	bool failed_ = false;
	/* The Disconnect to pass down once pending_ is copied, and whether it went. */
	std::optional<StreamDown> ending_;
	bool ended_ = false;
};

} /* namespace vdla::detail */
