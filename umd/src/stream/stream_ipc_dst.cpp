/* SPDX-License-Identifier: MIT */
/*
 * vdla::StreamIpcDst: the stream enters the process. What the producer's
 * process sends is checked, its buffers imported with the permission they
 * were granted, and passed down; what the consumers say goes back on the
 * endpoint. When the producer's process hangs up or dies, the blocks below
 * see Disconnected.
 */
#include <cerrno>

#include <vdla/device.h>

#include "stream_ipc_copy.h"
#include "stream_ipc_thread.h"
#include "stream_messages.h"
#include "stream_wire.h"

namespace vdla {

using detail::StreamDown;
using detail::StreamUp;

class StreamIpcDst::Worker
{
public:
	explicit Worker(Device &d) : device(d) { }

	Device &device;
	std::shared_ptr<detail::StreamIpcThread> thread;
	bool hungUp = false;
	/* Copying into packets of its own, or passing the producer's on. */
	std::unique_ptr<detail::StreamIpcCopier> copier;

	/* Under streamLock(): a message for the producer's process. */
	void sendUpstream(StreamUp &&message);

	/* Outside the lock: turns a message into what goes down (imports buffers). */
	Result<StreamDown> decode(IpcMessage &&message);
	/* Under streamLock(). */
	bool handle(StreamIpcDst &block, Result<StreamDown> &&decoded, bool closed);
	void hangUp(StreamIpcDst &block, const std::string &why, int error);
};

Result<StreamDown> StreamIpcDst::Worker::decode(IpcMessage &&message)
{
	switch (message.kind) {
	case detail::kStreamPacketCreate: {
		auto wire = detail::decodePacketCreate(message);
		if (!wire)
			return wire.error();
		StreamDown packet{ StreamDown::Type::PacketCreate };
		packet.id = wire->id;
		for (size_t i = 0; i < wire->lists.size(); i++) {
			auto buffer = SharedBuffer::importDmaBuf(device, message.fds[i].get(),
				std::move(wire->lists[i]), wire->granted[i], wire->granted[i]);
			if (!buffer)
				return Error(buffer.error().code(),
					"cannot import " + detail::elementName(i) + " of packet "
						+ std::to_string(wire->id) + ": "
						+ buffer.error().message());
			packet.elements.push_back(std::move(*buffer));
		}
		return packet;
	}
	case detail::kStreamSetupDone: {
		auto waiter = detail::decodeSetupDone(message);
		if (!waiter)
			return waiter.error();
		StreamDown done{ StreamDown::Type::SetupDone };
		done.producerWaiter = std::move(*waiter);
		return done;
	}
	case detail::kStreamPresent:
		return detail::decodePresent(std::move(message));
	case detail::kStreamDisconnect: {
		auto reason = detail::decodeDisconnect(message);
		if (!reason)
			return reason.error();
		StreamDown bye{ StreamDown::Type::Disconnect };
		bye.reason = "the producer's process left: " + *reason;
		return bye;
	}
	case detail::kStreamError:
		return detail::decodeError(message);
	default:
		return Error(EPROTO, "the producer's process sent a message of unknown kind");
	}
}

void StreamIpcDst::Worker::hangUp(StreamIpcDst &block, const std::string &why, int error)
{
	if (hungUp)
		return;
	hungUp = true;
	thread->hangUp();
	if (error) {
		block.post(StreamEventType::Error, why, error);
		StreamDown message{ StreamDown::Type::Error };
		message.reason = why;
		message.error = error;
		block.sendDown(0, std::move(message));
	}
	block.post(StreamEventType::Disconnected, why);
	StreamDown bye{ StreamDown::Type::Disconnect };
	bye.reason = why;
	block.sendDown(0, std::move(bye));
}

bool StreamIpcDst::Worker::handle(StreamIpcDst &block, Result<StreamDown> &&decoded, bool closed)
{
	if (hungUp)
		return false;
	if (closed) {
		hangUp(block, "the producer's process hung up or died", 0);
		return false;
	}
	if (!decoded) {
		hangUp(block,
			"the producer's process sent something unusable: "
				+ decoded.error().message(),
			decoded.error().code());
		return false;
	}
	const bool last = decoded->type == StreamDown::Type::Disconnect;
	if (last) {
		hungUp = true;
		thread->hangUp();
		block.post(StreamEventType::Disconnected, decoded->reason);
	}
	if (copier)
		copier->fromUpstream(std::move(*decoded));
	else
		block.sendDown(0, std::move(*decoded));
	return !last;
}

void StreamIpcDst::Worker::sendUpstream(StreamUp &&message)
{
	if (hungUp)
		return;
	IpcEndpoint &endpoint = thread->endpoint();
	switch (message.type) {
	case StreamUp::Type::Setup:
		(void)detail::sendSetup(endpoint, message.setups);
		break;
	case StreamUp::Type::Release:
		(void)detail::sendRelease(endpoint, message);
		break;
	case StreamUp::Type::Disconnect:
		(void)detail::sendDisconnect(endpoint, message.reason);
		hungUp = true;
		thread->hangUp();
		break;
	}
}

StreamIpcDst::StreamIpcDst() : StreamBlock(1)
{
}

Result<std::shared_ptr<StreamIpcDst>> StreamIpcDst::create(Device &device,
	std::unique_ptr<IpcEndpoint> endpoint, uint32_t copyPackets)
{
	if (copyPackets > StreamPool::kMaxPackets)
		return Error(EINVAL, "an IPC destination copies into at most "
					     + std::to_string(StreamPool::kMaxPackets) + " packets, not "
					     + std::to_string(copyPackets));
	std::shared_ptr<StreamIpcDst> block(new StreamIpcDst());
	block->worker_ = std::make_unique<Worker>(device);
	if (copyPackets) {
		StreamIpcDst *self = block.get();
		detail::StreamIpcCopier::Links links;
		links.down = [self](StreamDown &&m) { self->sendDown(0, std::move(m)); };
		links.up = [self](StreamUp &&m) { self->worker_->sendUpstream(std::move(m)); };
		links.post = [self](StreamEventType type, const std::string &why, int error) {
			self->post(type, why, error);
		};
		block->worker_->copier = std::make_unique<detail::StreamIpcCopier>(device,
			copyPackets, std::move(links));
	}
	std::weak_ptr<StreamIpcDst> weak = block;
	Worker *worker = block->worker_.get();
	std::lock_guard<std::recursive_mutex> lock(detail::streamLock());
	auto thread = detail::StreamIpcThread::start(
		std::move(endpoint), [weak, worker](Result<IpcMessage> &&received) {
			const bool closed = !received && received.error().code() == EPIPE;
			Result<StreamDown> decoded = Error(EPIPE, "closed");
			if (received) {
				/* The block is alive while its thread runs a handler: it joins it.
				 */
				decoded = worker->decode(std::move(*received));
			} else if (!closed) {
				decoded = received.error();
			}
			std::lock_guard<std::recursive_mutex> lock(detail::streamLock());
			auto self = weak.lock();
			return self && self->worker_->handle(*self, std::move(decoded), closed);
		});
	if (!thread)
		return thread.error();
	block->worker_->thread = std::move(*thread);
	return block;
}

StreamIpcDst::~StreamIpcDst()
{
	worker_->thread->stop();
	std::lock_guard<std::recursive_mutex> lock(detail::streamLock());
	if (worker_->hungUp)
		return;
	worker_->hungUp = true;
	StreamDown bye{ StreamDown::Type::Disconnect };
	bye.reason = "the IPC destination is gone";
	sendDown(0, std::move(bye));
}

void StreamIpcDst::fromUpstream(StreamDown &&)
{
	/* Its upstream is the other process. */
}

void StreamIpcDst::fromDownstream(size_t, StreamUp &&message)
{
	if (worker_->copier)
		worker_->copier->fromDownstream(std::move(message));
	else
		worker_->sendUpstream(std::move(message));
}

} /* namespace vdla */
