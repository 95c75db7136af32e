/* SPDX-License-Identifier: MIT */
/* vdla::StreamLimiter: at most N packets below it; the rest skip its branch. */
#include <algorithm>
#include <cerrno>

#include "stream_messages.h"

namespace vdla {

using detail::StreamDown;
using detail::StreamUp;

StreamLimiter::StreamLimiter(uint32_t maxPackets) : StreamBlock(1), max_(maxPackets)
{
}

StreamLimiter::~StreamLimiter()
{
	std::lock_guard<detail::StreamMutex> lock(detail::streamLock());
	StreamDown down{ StreamDown::Type::Disconnect };
	down.reason = "the limiter is gone";
	/* A multicast above takes back what was below. */
	down.reclaimed = true;
	sendDown(0, std::move(down));
	StreamUp up{ StreamUp::Type::Disconnect };
	up.reason = "the limiter is gone";
	sendUp(std::move(up));
}

Result<std::shared_ptr<StreamLimiter>> StreamLimiter::create(uint32_t maxPackets)
{
	if (maxPackets == 0 || maxPackets > StreamPool::kMaxPackets)
		return Error(EINVAL,
			"a limiter lets 1 to " + std::to_string(StreamPool::kMaxPackets)
				+ " packets through, not " + std::to_string(maxPackets));
	return std::shared_ptr<StreamLimiter>(new StreamLimiter(maxPackets));
}

uint64_t StreamLimiter::packetsSkipped() const
{
	std::lock_guard<detail::StreamMutex> lock(detail::streamLock());
	return skipped_;
}

void StreamLimiter::fromUpstream(StreamDown &&message)
{
	if (message.type == StreamDown::Type::Present && downstream_.size() >= max_) {
		/* Untouched: the producer's own fence is all the next writer waits for. */
		skipped_++;
		sendUp(detail::untouched(std::move(message)));
		return;
	}
	if (message.type == StreamDown::Type::Present)
		downstream_.push_back(message.id);
	sendDown(0, std::move(message));
}

void StreamLimiter::fromDownstream(size_t, StreamUp &&message)
{
	if (message.type == StreamUp::Type::Release) {
		auto it = std::find(downstream_.begin(), downstream_.end(), message.id);
		if (it == downstream_.end())
			return;
		downstream_.erase(it);
	}
	sendUp(std::move(message));
}

} /* namespace vdla */
