/* SPDX-License-Identifier: MIT */
/*
 * vdla::StreamIpcDst: the stream enters the process. What the producer's
 * process sends is checked, its buffers imported with the permission they
 * were granted, and passed down; what the consumers say goes back on the
 * endpoint. When the producer's process hangs up or dies, the blocks below
 * see Disconnected.
 */
#include <cerrno>
#include <set>

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
	/* What the producer's process did so far, to refuse what breaks the protocol. */
	std::set<uint32_t> created;
	size_t elements = 0;
	bool setupDone = false;
	/* Sharing: the packets presented and not yet released. */
	std::set<uint32_t> below;

	/* Why @message breaks the protocol, or nothing. */
	std::string breaksProtocol(const StreamDown &message);

	/* Under streamLock(): a message for the producer's process. */
	void sendUpstream(StreamIpcDst &block, StreamUp &&message);

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
		auto told = detail::decodeDisconnect(message);
		if (!told)
			return told.error();
		StreamDown bye{ StreamDown::Type::Disconnect };
		bye.reason = "the producer's process left: " + told->reason;
		bye.reclaimed = told->reclaimed;
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
	/*
	 * The producer's side takes back what was here when it sees the
	 * connection end, unless its process is gone: assume it does.
	 */
	StreamDown bye{ StreamDown::Type::Disconnect };
	bye.reason = why;
	bye.reclaimed = !copier;
	block.sendDown(0, std::move(bye));
}

std::string StreamIpcDst::Worker::breaksProtocol(const StreamDown &message)
{
	switch (message.type) {
	case StreamDown::Type::PacketCreate:
		if (!created.insert(message.id).second)
			return "created packet " + std::to_string(message.id) + " twice";
		if (elements && message.elements.size() != elements)
			return "sent packets with different numbers of elements";
		elements = message.elements.size();
		break;
	case StreamDown::Type::SetupDone:
		if (setupDone)
			return "ended its set-up twice";
		setupDone = true;
		break;
	case StreamDown::Type::Present:
		if (!created.count(message.id))
			return "presented packet " + std::to_string(message.id)
				+ ", which it never created";
		/* Sharing: the packet is below until it comes back. */
		if (!copier && !below.insert(message.id).second)
			return "presented packet " + std::to_string(message.id)
				+ " again before it came back";
		break;
	default:
		break;
	}
	return {};
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
	if (auto why = breaksProtocol(*decoded); !why.empty()) {
		hangUp(block, "the producer's process " + why, EPROTO);
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

void StreamIpcDst::Worker::sendUpstream(StreamIpcDst &block, StreamUp &&message)
{
	if (hungUp)
		return;
	IpcEndpoint &endpoint = thread->endpoint();
	Result<void> sent;
	switch (message.type) {
	case StreamUp::Type::Setup:
		sent = detail::sendSetup(endpoint, message.setups);
		break;
	case StreamUp::Type::Release:
		below.erase(message.id);
		sent = detail::sendRelease(endpoint, message);
		break;
	case StreamUp::Type::Disconnect:
		(void)detail::sendDisconnect(endpoint, message.reason);
		hungUp = true;
		thread->hangUp();
		return;
	}
	/* A message lost would leave a packet on this side for good: cut instead. */
	if (!sent)
		hangUp(block, "cannot send to the producer's process: " + sent.error().message(),
			sent.error().code() == EPIPE ? 0 : sent.error().code());
}

StreamIpcDst::StreamIpcDst() : StreamBlock(1)
{
}

Result<std::shared_ptr<StreamIpcDst>> StreamIpcDst::create(
	Device &device, std::unique_ptr<IpcEndpoint> endpoint, uint32_t copyPackets)
{
	if (copyPackets > StreamPool::kMaxPackets)
		return Error(EINVAL,
			"an IPC destination copies into at most "
				+ std::to_string(StreamPool::kMaxPackets) + " packets, not "
				+ std::to_string(copyPackets));
	std::shared_ptr<StreamIpcDst> block(new StreamIpcDst());
	block->worker_ = std::make_unique<Worker>(device);
	if (copyPackets) {
		StreamIpcDst *self = block.get();
		detail::StreamIpcCopier::Links links;
		links.down = [self](StreamDown &&m) { self->sendDown(0, std::move(m)); };
		links.up = [self](StreamUp &&m) {
			self->worker_->sendUpstream(*self, std::move(m));
		};
		links.post = [self](StreamEventType type, const std::string &why, int error) {
			self->post(type, why, error);
		};
		block->worker_->copier = std::make_unique<detail::StreamIpcCopier>(
			device, copyPackets, std::move(links));
	}
	std::weak_ptr<StreamIpcDst> weak = block;
	Worker *worker = block->worker_.get();
	std::lock_guard<detail::StreamMutex> lock(detail::streamLock());
	auto thread = detail::StreamIpcThread::start(std::move(endpoint),
		[weak, worker](detail::StreamIpcThread &thread, Result<IpcMessage> &&received) {
			const bool closed = !received && received.error().code() == EPIPE;
			Result<StreamDown> decoded = Error(EPIPE, "closed");
			if (received) {
				/* The block is alive while its thread runs a handler: it joins it.
				 */
				decoded = worker->decode(std::move(*received));
			} else if (!closed) {
				decoded = received.error();
			}
			auto lock = thread.lockStream();
			if (!lock.owns_lock())
				return false;
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
	if (!worker_->thread)
		return; /* create() failed */
	worker_->thread->stop();
	std::lock_guard<detail::StreamMutex> lock(detail::streamLock());
	if (worker_->hungUp)
		return;
	worker_->hungUp = true;
	StreamDown bye{ StreamDown::Type::Disconnect };
	bye.reason = "the IPC destination is gone";
	/* The producer's side takes its packets back; a copier's are its own. */
	bye.reclaimed = !worker_->copier;
	sendDown(0, std::move(bye));
}

void StreamIpcDst::outputConnected(size_t)
{
	if (!worker_->hungUp)
		return;
	/* Connected after the end: say so, rather than leave it waiting. */
	StreamDown bye(StreamDown::Type::Disconnect);
	bye.reason = "the IPC destination's connection has ended";
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
		worker_->sendUpstream(*this, std::move(message));
}

} /* namespace vdla */
