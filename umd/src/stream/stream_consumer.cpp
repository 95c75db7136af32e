/* SPDX-License-Identifier: MIT */
/*
 * vdla::StreamConsumer and its queue: says what it needs when connected,
 * learns the packets, allocates its sync object from the producer's waiter
 * list, and cycles packets: presented → queued → acquire() → release().
 */
#include <cerrno>

#include <vdla/device.h>

#include "stream_cpu_time.h"
#include "stream_endpoint.h"
#include "stream_messages.h"

namespace vdla {

using detail::StreamDown;
using detail::StreamUp;

struct StreamConsumer::Packet {
	uint32_t id;
	std::vector<std::shared_ptr<SharedBuffer>> elements;
	enum class Where { Upstream, Queued, Acquired } where = Where::Upstream;
	/* Queued, Acquired: the producer's fences and when it presented. */
	std::vector<detail::StreamHandover> fences;
	uint64_t frame = 0;
	int64_t presentNs = 0;
};

StreamConsumer::StreamConsumer(Device &device, StreamQueueKind queue, StreamEndpointConfig config)
	: StreamBlock(0), device_(device), queueKind_(queue), config_(std::move(config))
{
}

Result<std::shared_ptr<StreamConsumer>> StreamConsumer::create(
	Device &device, StreamQueueKind queue, StreamEndpointConfig config)
{
	if (auto ok = detail::checkEndpointConfig(config); !ok)
		return ok.error();
	return std::shared_ptr<StreamConsumer>(
		new StreamConsumer(device, queue, std::move(config)));
}

StreamConsumer::~StreamConsumer()
{
	std::lock_guard<detail::StreamMutex> lock(detail::streamLock());
	/*
	 * What this consumer holds goes back: a queued packet with the
	 * producer's fences (never read), an acquired one with the fences of
	 * whatever jobs still use it.
	 */
	for (auto &packet : packets_) {
		if (packet->where == Packet::Where::Queued)
			returnPacket(packet->id, std::move(packet->fences));
		else if (packet->where == Packet::Where::Acquired)
			returnPacket(packet->id, detail::pendingJobFences(packet->elements));
	}
	StreamUp bye{ StreamUp::Type::Disconnect };
	bye.reason = "the consumer " + config_.name + " is gone";
	sendUp(std::move(bye));
}

void StreamConsumer::upstreamConnected()
{
	detail::StreamConsumerSetup setup;
	setup.name = config_.name;
	setup.elements = config_.elements;
	setup.waiter = detail::waiterList(config_);
	StreamUp message{ StreamUp::Type::Setup };
	message.setups.push_back(std::move(setup));
	sendUp(std::move(message));
}

StreamConsumer::Packet *StreamConsumer::find(uint32_t id)
{
	for (auto &packet : packets_)
		if (packet->id == id)
			return packet.get();
	return nullptr;
}

void StreamConsumer::returnPacket(uint32_t id, std::vector<detail::StreamHandover> fences)
{
	Packet *packet = find(id);
	packet->where = Packet::Where::Upstream;
	packet->fences.clear();
	StreamUp message{ StreamUp::Type::Release };
	message.id = id;
	message.fences = std::move(fences);
	sendUp(std::move(message));
}

void StreamConsumer::leave(int error, const std::string &why)
{
	state_ = State::Failed;
	failure_ = why;
	post(StreamEventType::Error, why, error);
	for (uint32_t id : queue_)
		returnPacket(id, std::move(find(id)->fences));
	queue_.clear();
	trimPacketReady(0);
	StreamUp bye{ StreamUp::Type::Disconnect };
	bye.reason = "the consumer " + config_.name + " left: " + why;
	sendUp(std::move(bye));
}

void StreamConsumer::setUp(const SyncAttrList &producerWaiter)
{
	auto sync
		= detail::allocateSync(device_, detail::signalerList(config_), { &producerWaiter });
	if (!sync)
		return leave(sync.error().code(), sync.error().message());
	sync_ = std::move(*sync);
	state_ = State::Streaming;
	post(StreamEventType::Connected);
	post(StreamEventType::SetupComplete);
}

void StreamConsumer::fromUpstream(StreamDown &&message)
{
	switch (message.type) {
	case StreamDown::Type::PacketCreate: {
		if (state_ == State::Failed || find(message.id))
			break;
		if (message.elements.size() != config_.elements.size())
			return leave(EBADMSG,
				"the stream's packets have "
					+ std::to_string(message.elements.size()) + " elements; "
					+ config_.name + " lists "
					+ std::to_string(config_.elements.size()));
		/* Whatever came, it must serve what this consumer asked for. */
		for (size_t i = 0; i < message.elements.size(); i++) {
			auto conflicts = validateReconciled(
				message.elements[i]->attributes(), { &config_.elements[i] });
			if (!conflicts || !conflicts->empty())
				return leave(EBADMSG,
					detail::elementName(i)
						+ " of the stream's packets does not serve "
						+ config_.name + ": "
						+ (conflicts ? detail::describeConflicts(*conflicts)
							     : conflicts.error().message()));
		}
		auto packet = std::make_unique<Packet>();
		packet->id = message.id;
		packet->elements = std::move(message.elements);
		packets_.push_back(std::move(packet));
		if (state_ == State::Streaming)
			post(StreamEventType::PacketCreate);
		break;
	}
	case StreamDown::Type::SetupDone:
		if (state_ == State::Connecting && message.producerWaiter)
			setUp(*message.producerWaiter);
		break;
	case StreamDown::Type::Present: {
		Packet *packet = find(message.id);
		if (packet && packet->where != Packet::Where::Upstream)
			break; /* the blocks above let no stray present through */
		if (!packet || state_ != State::Streaming) {
			/* Not set up (a failed consumer): straight back. */
			sendUp(detail::untouched(std::move(message)));
			break;
		}
		packet->where = Packet::Where::Queued;
		packet->fences = std::move(message.fences);
		packet->frame = message.frame;
		packet->presentNs = message.presentNs;
		if (queueKind_ == StreamQueueKind::Mailbox && !queue_.empty()) {
			/* The newer packet takes the place (and the PacketReady) of the older. */
			const uint32_t older = queue_.front();
			queue_.clear();
			queue_.push_back(message.id);
			dropped_++;
			returnPacket(older, std::move(find(older)->fences));
			break;
		}
		queue_.push_back(message.id);
		post(StreamEventType::PacketReady);
		break;
	}
	case StreamDown::Type::Disconnect:
		if (state_ == State::Disconnected)
			break;
		if (state_ != State::Failed) {
			state_ = State::Disconnected;
			failure_ = message.reason;
		}
		/*
		 * Reclaimed: whoever is above hands the packets not yet taken
		 * to a producer that reuses them; they are not this consumer's
		 * any more. Otherwise the producer is gone: take what is left.
		 */
		if (message.reclaimed) {
			for (uint32_t id : queue_)
				find(id)->where = Packet::Where::Upstream;
			queue_.clear();
			trimPacketReady(0);
		}
		post(StreamEventType::Disconnected, message.reason);
		break;
	case StreamDown::Type::Error:
		state_ = State::Failed;
		failure_ = message.reason;
		post(StreamEventType::Error, message.reason, message.error);
		break;
	}
}

void StreamConsumer::fromDownstream(size_t, StreamUp &&)
{
	/* A consumer has nothing downstream. */
}

Result<StreamPacket> StreamConsumer::acquire()
{
	detail::StreamCpuScope counted;
	std::lock_guard<detail::StreamMutex> lock(detail::streamLock());
	if (state_ == State::Failed)
		return Error(ECANCELED, "the stream's set-up failed: " + failure_);
	if (state_ == State::Connecting)
		return Error(ENOTCONN, "the stream's set-up is not complete");
	if (queue_.empty())
		return state_ == State::Disconnected
			? Error(EPIPE, "the stream is disconnected (" + failure_ + ")")
			: Error(EAGAIN, "no packet is waiting: wait for PacketReady");
	Packet &packet = *find(queue_.front());
	queue_.pop_front();
	trimPacketReady(queue_.size());
	packet.where = Packet::Where::Acquired;
	StreamPacket out;
	out.id = packet.id;
	out.frame = packet.frame;
	out.presentTime = std::chrono::nanoseconds(packet.presentNs);
	for (const auto &element : packet.elements)
		out.elements.push_back(element.get());
	out.fences = detail::toSyncFences(packet.fences);
	return out;
}

Result<void> StreamConsumer::release(uint32_t id, uint64_t point)
{
	detail::StreamCpuScope counted;
	std::lock_guard<detail::StreamMutex> lock(detail::streamLock());
	Packet *packet = find(id);
	if (!packet)
		return Error(ENOENT, "the stream has no packet " + std::to_string(id));
	if (packet->where != Packet::Where::Acquired)
		return Error(EPERM,
			"packet " + std::to_string(id) + " is not acquired by this consumer");
	std::vector<detail::StreamHandover> fences;
	if (point) {
		auto fence = sync_->fence(point);
		if (!fence)
			return Error(fence.error().code() == ENODATA ? ENODATA : EINVAL,
				"point " + std::to_string(point)
					+ " of the consumer's sync object has no fence: "
					+ fence.error().message());
		fences.push_back(std::make_shared<const SyncFence>(std::move(*fence)));
	}
	returnPacket(id, std::move(fences));
	return {};
}

uint64_t StreamConsumer::packetsDropped() const
{
	std::lock_guard<detail::StreamMutex> lock(detail::streamLock());
	return dropped_;
}

} /* namespace vdla */
