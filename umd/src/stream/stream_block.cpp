/* SPDX-License-Identifier: MIT */
/* vdla::StreamBlock: events, connections, and the messages between blocks. */
#include <fcntl.h>
#include <linux/sync_file.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "../poll_wait.h"
#include "stream_cpu_time.h"
#include "stream_messages.h"

namespace vdla {

namespace detail {

StreamMutex &streamLock()
{
	static StreamMutex lock;
	return lock;
}

int64_t streamNow()
{
	timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::vector<SyncFence> toSyncFences(const std::vector<StreamHandover> &fences)
{
	std::vector<SyncFence> out;
	out.reserve(fences.size());
	for (const auto &fence : fences) {
		/* Without a descriptor left, the caller waits for nothing less: skip none. */
		auto copy = fence->duplicate();
		if (copy)
			out.push_back(std::move(*copy));
	}
	return out;
}

std::vector<StreamHandover> pendingJobFences(
	const std::vector<std::shared_ptr<SharedBuffer>> &elements)
{
	std::vector<StreamHandover> fences;
	for (const auto &element : elements) {
		auto fd = element->buffer().exportPendingJobs();
		if (!fd)
			continue;
		auto fence = SyncFence::fromSyncFile(0, UniqueFd(*fd));
		if (fence)
			fences.push_back(std::make_shared<const SyncFence>(std::move(*fence)));
	}
	return fences;
}

Result<StreamHandover> mergeFences(const std::vector<StreamHandover> &fences)
{
	if (fences.empty())
		return Error(EINVAL, "no fence to merge");
	UniqueFd merged(fcntl(fences.front()->syncFile(), F_DUPFD_CLOEXEC, 0));
	if (!merged.isValid())
		return Error(errno, "cannot duplicate a fence");
	for (size_t i = 1; i < fences.size(); i++) {
		sync_merge_data args = {};
		std::strcpy(args.name, "vdla-stream");
		args.fd2 = fences[i]->syncFile();
		if (ioctl(merged.get(), SYNC_IOC_MERGE, &args))
			return Error(errno, "cannot merge the fences");
		merged = UniqueFd(args.fence);
	}
	auto fence = SyncFence::fromSyncFile(0, std::move(merged));
	if (!fence)
		return fence.error();
	return std::make_shared<const SyncFence>(std::move(*fence));
}

std::string elementName(size_t index)
{
	return "element " + std::to_string(index);
}

} /* namespace detail */

const char *streamEventName(StreamEventType type)
{
	switch (type) {
	case StreamEventType::Connected:
		return "Connected";
	case StreamEventType::SetupComplete:
		return "SetupComplete";
	case StreamEventType::PacketReady:
		return "PacketReady";
	case StreamEventType::PacketCreate:
		return "PacketCreate";
	case StreamEventType::Disconnected:
		return "Disconnected";
	case StreamEventType::Error:
		return "Error";
	}
	return "?";
}

StreamBlock::StreamBlock(size_t maxOutputs)
	: eventFd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)), maxOutputs_(maxOutputs)
{
}

StreamBlock::~StreamBlock() = default;

void StreamBlock::outputConnected(size_t)
{
}

void StreamBlock::upstreamConnected()
{
}

bool StreamBlock::outputUsed(size_t output) const
{
	return output < downstream_.size() && downstream_[output].used;
}

void StreamBlock::post(StreamEventType type, std::string message, int error)
{
	const bool wasEmpty = events_.empty();
	events_.push_back({ type, std::move(message), error });
	if (wasEmpty) {
		const uint64_t one = 1;
		/* Cannot fail: the counter is 0 or 1. */
		(void)!write(eventFd_.get(), &one, sizeof(one));
	}
}

void StreamBlock::trimPacketReady(size_t available)
{
	size_t ready = 0;
	for (const auto &event : events_)
		ready += event.type == StreamEventType::PacketReady;
	/* The oldest go: each stood for a packet that is now taken. */
	for (auto it = events_.begin(); ready > available && it != events_.end();) {
		if (it->type == StreamEventType::PacketReady) {
			it = events_.erase(it);
			ready--;
		} else {
			++it;
		}
	}
	if (events_.empty()) {
		uint64_t count;
		(void)!read(eventFd_.get(), &count, sizeof(count));
	}
}

size_t StreamBlock::pendingEvents() const
{
	std::lock_guard<detail::StreamMutex> lock(detail::streamLock());
	return events_.size();
}

Result<StreamEvent> StreamBlock::queryEvent(std::chrono::milliseconds timeout)
{
	detail::StreamCpuScope counted;
	const auto deadline = std::chrono::steady_clock::now() + timeout;
	for (;;) {
		auto left = timeout.count() < 0
			? std::chrono::nanoseconds(-1)
			: std::chrono::nanoseconds(deadline - std::chrono::steady_clock::now());
		if (timeout.count() >= 0 && left.count() < 0)
			left = std::chrono::nanoseconds(0);
		if (auto ready = waitReadable(eventFd_.get(), left,
			    std::string("no event came to the ") + kind() + " in time");
			!ready)
			return ready.error();
		std::lock_guard<detail::StreamMutex> lock(detail::streamLock());
		if (events_.empty())
			continue; /* another thread took it */
		StreamEvent event = std::move(events_.front());
		events_.pop_front();
		if (events_.empty()) {
			uint64_t count;
			(void)!read(eventFd_.get(), &count, sizeof(count));
		}
		return event;
	}
}

void StreamBlock::sendDown(size_t output, detail::StreamDown &&message)
{
	if (output >= downstream_.size() || !downstream_[output].used)
		return;
	auto block = downstream_[output].block.lock();
	if (block)
		block->fromUpstream(std::move(message));
}

void StreamBlock::sendUp(detail::StreamUp &&message)
{
	if (!upstream_.used) {
		pendingUp_.push_back(std::move(message));
		return;
	}
	auto block = upstream_.block.lock();
	if (block)
		block->fromDownstream(upstreamOutput_, std::move(message));
}

Result<void> streamConnect(const std::shared_ptr<StreamBlock> &upstream,
	const std::shared_ptr<StreamBlock> &downstream)
{
	detail::StreamCpuScope counted;
	if (!upstream || !downstream || upstream == downstream)
		return Error(EINVAL, "a connection needs two blocks");
	std::lock_guard<detail::StreamMutex> lock(detail::streamLock());
	if (!downstream->acceptsUpstream())
		return Error(EINVAL,
			std::string("a ") + downstream->kind()
				+ " has no upstream block: it starts a stream");
	for (auto above = upstream; above; above = above->upstream_.block.lock())
		if (above == downstream)
			return Error(EINVAL,
				"the connection would make a loop: the "
					+ std::string(downstream->kind()) + " is above the "
					+ upstream->kind());
	if (downstream->upstream_.used)
		return Error(EBUSY,
			std::string("the ") + downstream->kind()
				+ " is connected to an upstream block already");
	size_t output = 0;
	while (output < upstream->downstream_.size() && upstream->downstream_[output].used)
		output++;
	if (output >= upstream->maxOutputs_)
		return Error(upstream->maxOutputs_ ? EBUSY : EINVAL,
			std::string("the ") + upstream->kind()
				+ (upstream->maxOutputs_ ? " has every output connected"
							 : " has no downstream block"));
	if (output == upstream->downstream_.size())
		upstream->downstream_.emplace_back();
	upstream->downstream_[output] = { downstream, true };
	downstream->upstream_ = { upstream, true };
	downstream->upstreamOutput_ = output;

	upstream->outputConnected(output);
	downstream->upstreamConnected();
	/* What the downstream block said before it had somewhere to say it. */
	auto pending = std::move(downstream->pendingUp_);
	downstream->pendingUp_.clear();
	for (auto &message : pending)
		upstream->fromDownstream(output, std::move(message));
	return {};
}

/* A multicast frees an output whose consumer left, for a late one. */
void StreamBlock::freeOutput(size_t output)
{
	if (output >= downstream_.size())
		return;
	/* What the old block says from now on goes nowhere: not to the new one. */
	if (auto old = downstream_[output].block.lock())
		old->upstream_ = {};
	downstream_[output] = {};
}

} /* namespace vdla */
