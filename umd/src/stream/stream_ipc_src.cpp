/* SPDX-License-Identifier: MIT */
/*
 * vdla::StreamIpcSrc: the stream leaves the process. Down-going messages
 * are sent on the endpoint; what comes back is checked and passed up. The
 * block keeps which packets are on the other side, so that when the other
 * process hangs up, dies or misbehaves, each comes back with the fences of
 * the device jobs still using it, and the branch is disconnected.
 */
#include <algorithm>
#include <cerrno>
#include <map>
#include <set>

#include "stream_ipc_thread.h"
#include "stream_messages.h"
#include "stream_wire.h"

namespace vdla {

using detail::StreamDown;
using detail::StreamUp;

class StreamIpcSrc::Worker
{
public:
	std::shared_ptr<detail::StreamIpcThread> thread;
	bool hungUp = false;
	bool setupSeen = false;
	/* The other side was sent a Disconnect already. */
	bool told = false;
	/* Every packet of the stream, and those the other side holds now. */
	std::map<uint32_t, std::vector<std::shared_ptr<SharedBuffer>>> packets;
	std::set<uint32_t> outstanding;
	/* When each outstanding packet went, and how long it may stay. */
	std::map<uint32_t, std::chrono::steady_clock::time_point> sentAt;
	std::chrono::milliseconds stallLimit{ 0 };

	/* Cuts the other side off if it kept a packet beyond the limit. */
	void checkStall(StreamIpcSrc &block);
	/* Per element: the highest permission a consumer behind asked for. */
	std::vector<Permission> permissions;

	/* Under streamLock(): what comes from the other process. */
	bool handle(StreamIpcSrc &block, Result<IpcMessage> &&received);
	/* Takes back what the other side held and disconnects the branch. */
	void hangUp(StreamIpcSrc &block, const std::string &why, int error = 0);
};

void StreamIpcSrc::Worker::hangUp(StreamIpcSrc &block, const std::string &why, int error)
{
	if (hungUp)
		return;
	hungUp = true;
	/* Best effort: the packets over there are about to be reused. */
	if (!told)
		(void)detail::sendDisconnect(thread->endpoint(), why, true);
	thread->hangUp();
	if (error)
		block.post(StreamEventType::Error, why, error);
	/* Its jobs may still read (or, cancelled, be ending): writers wait for them. */
	for (uint32_t id : outstanding) {
		StreamUp back{ StreamUp::Type::Release };
		back.id = id;
		back.fences = detail::pendingJobFences(packets[id]);
		block.sendUp(std::move(back));
	}
	outstanding.clear();
	sentAt.clear();
	block.post(StreamEventType::Disconnected, why);
	StreamUp bye{ StreamUp::Type::Disconnect };
	bye.reason = why;
	block.sendUp(std::move(bye));
}

void StreamIpcSrc::Worker::checkStall(StreamIpcSrc &block)
{
	if (stallLimit.count() <= 0)
		return;
	const auto now = std::chrono::steady_clock::now();
	for (const auto &[id, at] : sentAt) {
		const auto held = std::chrono::duration_cast<std::chrono::milliseconds>(now - at);
		if (held > stallLimit)
			return hangUp(block,
				"the consumer's process kept packet " + std::to_string(id) + " for "
					+ std::to_string(held.count())
					+ " ms without giving it back: cut off as stuck",
				ETIMEDOUT);
	}
}

bool StreamIpcSrc::Worker::handle(StreamIpcSrc &block, Result<IpcMessage> &&received)
{
	if (hungUp)
		return false;
	if (!received && received.error().code() == ETIMEDOUT) {
		checkStall(block); /* a tick of the thread */
		return !hungUp;
	}
	if (!received) {
		const bool closed = received.error().code() == EPIPE;
		hangUp(block,
			closed ? "the consumer's process hung up or died"
			       : "the consumer's process sent something unreadable: "
					+ received.error().message(),
			closed ? 0 : received.error().code());
		return false;
	}
	IpcMessage &message = *received;
	switch (message.kind) {
	case detail::kStreamSetup: {
		auto setups = detail::decodeSetup(message);
		if (!setups || setupSeen)
			break; /* one set-up per connection: a second could raise permissions */
		setupSeen = true;
		for (const auto &setup : *setups)
			for (size_t i = 0; i < setup.elements.size(); i++) {
				if (permissions.size() <= i)
					permissions.resize(i + 1, Permission::ReadOnly);
				permissions[i] = std::max(permissions[i],
					setup.elements[i].requiredPermission().value_or(
						Permission::ReadOnly));
			}
		StreamUp up{ StreamUp::Type::Setup };
		up.setups = std::move(*setups);
		block.sendUp(std::move(up));
		return true;
	}
	case detail::kStreamRelease: {
		auto release = detail::decodeRelease(std::move(message));
		if (!release)
			break;
		if (!outstanding.erase(release->id)) {
			block.post(StreamEventType::Error,
				"the consumer's process released packet "
					+ std::to_string(release->id)
					+ ", which it does not hold; ignored",
				EPROTO);
			return true;
		}
		sentAt.erase(release->id);
		block.sendUp(std::move(*release));
		checkStall(block);
		return !hungUp;
	}
	case detail::kStreamDisconnect: {
		auto told = detail::decodeDisconnect(message);
		hangUp(block,
			told ? "the consumer's process left: " + told->reason
			     : "the consumer's process left");
		return false;
	}
	default:
		break;
	}
	hangUp(block, "the consumer's process sent a malformed or unexpected message", EPROTO);
	return false;
}

StreamIpcSrc::StreamIpcSrc() : StreamBlock(0), worker_(std::make_unique<Worker>())
{
}

Result<std::shared_ptr<StreamIpcSrc>> StreamIpcSrc::create(std::unique_ptr<IpcEndpoint> endpoint)
{
	std::shared_ptr<StreamIpcSrc> block(new StreamIpcSrc());
	std::weak_ptr<StreamIpcSrc> weak = block;
	std::lock_guard<detail::StreamMutex> lock(detail::streamLock());
	auto thread = detail::StreamIpcThread::start(std::move(endpoint),
		[weak](detail::StreamIpcThread &thread, Result<IpcMessage> &&received) {
			auto lock = thread.lockStream();
			if (!lock.owns_lock())
				return false;
			auto self = weak.lock();
			return self && self->worker_->handle(*self, std::move(received));
		});
	if (!thread)
		return thread.error();
	block->worker_->thread = std::move(*thread);
	return block;
}

void StreamIpcSrc::setStallLimit(std::chrono::milliseconds limit)
{
	std::lock_guard<detail::StreamMutex> lock(detail::streamLock());
	worker_->stallLimit = limit;
	/* Look often enough to cut within a quarter of the limit. */
	worker_->thread->setTick(limit.count() > 0
			? std::max(limit / 4, std::chrono::milliseconds(5))
			: std::chrono::milliseconds(0));
}

StreamIpcSrc::~StreamIpcSrc()
{
	if (!worker_->thread)
		return; /* create() failed */
	worker_->thread->stop();
	std::lock_guard<detail::StreamMutex> lock(detail::streamLock());
	worker_->hangUp(*this, "the IPC source is gone");
}

void StreamIpcSrc::fromUpstream(StreamDown &&message)
{
	Worker &w = *worker_;
	if (w.hungUp) {
		/* Nobody on the other side: a packet presented goes straight back. */
		if (message.type == StreamDown::Type::Present) {
			sendUp(detail::untouched(std::move(message)));
		}
		return;
	}
	IpcEndpoint &endpoint = w.thread->endpoint();
	Result<void> sent;
	switch (message.type) {
	case StreamDown::Type::PacketCreate: {
		w.packets[message.id] = message.elements;
		std::vector<Permission> granted = w.permissions;
		granted.resize(message.elements.size(), Permission::ReadOnly);
		sent = detail::sendPacketCreate(endpoint, message, granted);
		break;
	}
	case StreamDown::Type::SetupDone:
		sent = detail::sendSetupDone(endpoint, *message.producerWaiter);
		break;
	case StreamDown::Type::Present:
		w.outstanding.insert(message.id);
		w.sentAt[message.id] = std::chrono::steady_clock::now();
		sent = detail::sendPresent(endpoint, message);
		break;
	case StreamDown::Type::Disconnect:
		sent = detail::sendDisconnect(endpoint, message.reason, message.reclaimed);
		w.told = true;
		break;
	case StreamDown::Type::Error:
		sent = detail::sendError(endpoint, message.error, message.reason);
		break;
	}
	/* A peer that did not read for a second will not read a goodbye either. */
	if (!sent && sent.error().code() == ETIMEDOUT)
		w.told = true;
	if (!sent)
		w.hangUp(*this, "cannot send to the consumer's process: " + sent.error().message(),
			sent.error().code() == EPIPE ? 0 : sent.error().code());
}

void StreamIpcSrc::fromDownstream(size_t, StreamUp &&)
{
	/* Its downstream is the other process. */
}

} /* namespace vdla */
