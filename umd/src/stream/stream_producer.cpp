/* SPDX-License-Identifier: MIT */
/*
 * vdla::StreamProducer and its pool: reconciles the consumers' lists with
 * its own once they all came up, allocates the packets, and cycles them:
 * free → getPacket() → present() → downstream → released → free.
 */
#include <cerrno>

#include <vdla/device.h>

#include "stream_cpu_time.h"
#include "stream_endpoint.h"
#include "stream_messages.h"

namespace vdla {

using detail::StreamDown;
using detail::StreamUp;

struct StreamProducer::Packet {
	uint32_t id;
	std::vector<std::shared_ptr<SharedBuffer>> elements;
	enum class Where { Free, Producer, Downstream } where = Where::Free;
	/* Free: what the consumers gave back, to wait for before writing. */
	std::vector<detail::StreamHandover> fences;
};

Result<std::shared_ptr<StreamPool>> StreamPool::createStatic(Device &device, uint32_t packets)
{
	return createDynamic(device, packets, packets);
}

Result<std::shared_ptr<StreamPool>> StreamPool::createDynamic(
	Device &device, uint32_t initial, uint32_t maximum)
{
	if (initial == 0 || maximum > kMaxPackets || initial > maximum)
		return Error(EINVAL,
			"a pool holds 1 to " + std::to_string(kMaxPackets)
				+ " packets, starting with 1 to its maximum (a late consumer is "
				  "checked against the first); asked "
				+ std::to_string(initial) + " of " + std::to_string(maximum));
	return std::shared_ptr<StreamPool>(new StreamPool(device, initial, maximum));
}

StreamProducer::StreamProducer(std::shared_ptr<StreamPool> pool, StreamEndpointConfig config)
	: StreamBlock(1), pool_(std::move(pool)), config_(std::move(config))
{
}

Result<std::shared_ptr<StreamProducer>> StreamProducer::create(
	std::shared_ptr<StreamPool> pool, StreamEndpointConfig config)
{
	if (!pool)
		return Error(EINVAL, "a producer needs a pool");
	if (auto ok = detail::checkEndpointConfig(config); !ok)
		return ok.error();
	return std::shared_ptr<StreamProducer>(
		new StreamProducer(std::move(pool), std::move(config)));
}

StreamProducer::~StreamProducer()
{
	std::lock_guard<detail::StreamMutex> lock(detail::streamLock());
	StreamDown bye{ StreamDown::Type::Disconnect };
	bye.reason = "the producer " + config_.name + " is gone";
	sendDown(0, std::move(bye));
}

void StreamProducer::fail(int error, const std::string &why)
{
	state_ = State::Failed;
	failure_ = why;
	post(StreamEventType::Error, why, error);
	StreamDown message{ StreamDown::Type::Error };
	message.reason = why;
	message.error = error;
	sendDown(0, std::move(message));
}

Result<void> StreamProducer::addPacket()
{
	auto packet = std::make_unique<Packet>();
	packet->id = static_cast<uint32_t>(packets_.size());
	for (size_t i = 0; i < reconciled_.size(); i++) {
		auto buffer = SharedBuffer::allocate(pool_->device(), reconciled_[i]);
		if (!buffer)
			return Error(buffer.error().code(),
				"cannot allocate " + detail::elementName(i) + " of packet "
					+ std::to_string(packet->id) + ": "
					+ buffer.error().message());
		packet->elements.push_back(std::move(*buffer));
	}
	StreamDown message{ StreamDown::Type::PacketCreate };
	message.id = packet->id;
	message.elements = packet->elements;
	free_.push_back(packet->id);
	packets_.push_back(std::move(packet));
	sendDown(0, std::move(message));
	return {};
}

void StreamProducer::setUp(std::vector<detail::StreamConsumerSetup> &&setups)
{
	if (state_ != State::Connecting)
		return; /* a multicast answers late consumers itself */
	const size_t count = config_.elements.size();
	for (const auto &setup : setups)
		if (setup.elements.size() != count)
			return fail(EBADMSG,
				"the consumer " + setup.name + " lists "
					+ std::to_string(setup.elements.size())
					+ " elements, the producer " + config_.name + " "
					+ std::to_string(count));
	for (size_t i = 0; i < count; i++) {
		std::vector<const AttrList *> lists{ &config_.elements[i] };
		for (const auto &setup : setups)
			lists.push_back(&setup.elements[i]);
		auto merged = reconcile(lists, "stream " + detail::elementName(i));
		if (!merged)
			return fail(merged.error().code(), merged.error().message());
		if (!merged->conflicts.empty())
			return fail(EBADMSG,
				detail::elementName(i) + " does not reconcile: "
					+ detail::describeConflicts(merged->conflicts));
		reconciled_.push_back(std::move(*merged->list));
	}
	std::vector<const SyncAttrList *> waiters;
	for (const auto &setup : setups)
		waiters.push_back(&setup.waiter);
	auto sync = detail::allocateSync(pool_->device(), detail::signalerList(config_), waiters);
	if (!sync)
		return fail(sync.error().code(), sync.error().message());
	sync_ = std::move(*sync);

	for (uint32_t i = 0; i < pool_->initialPackets(); i++)
		if (auto added = addPacket(); !added)
			return fail(added.error().code(), added.error().message());
	StreamDown done{ StreamDown::Type::SetupDone };
	done.producerWaiter = detail::waiterList(config_);
	sendDown(0, std::move(done));

	if (state_ != State::Connecting)
		return; /* the last consumer left while the packets went down */
	state_ = State::Streaming;
	post(StreamEventType::Connected);
	post(StreamEventType::SetupComplete);
	for (size_t i = 0; i < free_.size(); i++)
		post(StreamEventType::PacketReady);
}

Result<StreamPacket> StreamProducer::getPacket()
{
	detail::StreamCpuScope counted;
	std::lock_guard<detail::StreamMutex> lock(detail::streamLock());
	switch (state_) {
	case State::Connecting:
		return Error(ENOTCONN, "the stream's set-up is not complete");
	case State::Failed:
		return Error(ECANCELED, "the stream's set-up failed: " + failure_);
	case State::Disconnected:
		return Error(EPIPE, "every consumer of the stream is gone");
	case State::Streaming:
		break;
	}
	if (free_.empty()) {
		if (packets_.size() >= pool_->maximumPackets())
			return Error(EAGAIN, "every packet is in use: wait for PacketReady");
		if (auto added = addPacket(); !added)
			return added.error();
		post(StreamEventType::PacketCreate);
		post(StreamEventType::PacketReady);
	}
	Packet &packet = *packets_[free_.front()];
	free_.pop_front();
	trimPacketReady(free_.size());
	packet.where = Packet::Where::Producer;
	StreamPacket out;
	out.id = packet.id;
	for (const auto &element : packet.elements)
		out.elements.push_back(element.get());
	out.fences = detail::toSyncFences(packet.fences);
	packet.fences.clear();
	return out;
}

Result<void> StreamProducer::present(uint32_t id, uint64_t point)
{
	detail::StreamCpuScope counted;
	std::lock_guard<detail::StreamMutex> lock(detail::streamLock());
	if (id >= packets_.size())
		return Error(ENOENT, "the stream has no packet " + std::to_string(id));
	Packet &packet = *packets_[id];
	if (packet.where != Packet::Where::Producer)
		return Error(EPERM,
			"packet " + std::to_string(id)
				+ " is not the producer's to present: take it with "
				  "getPacket() first");
	std::vector<detail::StreamHandover> fences;
	if (point) {
		auto fence = sync_->fence(point);
		if (!fence)
			return Error(fence.error().code() == ENODATA ? ENODATA : EINVAL,
				"point " + std::to_string(point)
					+ " of the producer's sync object has no fence: "
					+ fence.error().message());
		fences.push_back(std::make_shared<const SyncFence>(std::move(*fence)));
	}
	if (state_ == State::Disconnected) {
		packet.where = Packet::Where::Free;
		packet.fences = std::move(fences);
		free_.push_back(id);
		return Error(EPIPE, "every consumer of the stream is gone");
	}
	packet.where = Packet::Where::Downstream;
	StreamDown message{ StreamDown::Type::Present };
	message.id = id;
	message.frame = ++frames_;
	message.presentNs = detail::streamNow();
	message.fences = std::move(fences);
	sendDown(0, std::move(message));
	/* The last consumer may have gone while it went down (and given it back). */
	if (state_ == State::Disconnected)
		return Error(EPIPE, "every consumer of the stream is gone");
	return {};
}

uint64_t StreamProducer::framesPresented() const
{
	std::lock_guard<detail::StreamMutex> lock(detail::streamLock());
	return frames_;
}

void StreamProducer::fromUpstream(StreamDown &&)
{
	/* A producer has nothing upstream. */
}

void StreamProducer::fromDownstream(size_t, StreamUp &&message)
{
	switch (message.type) {
	case StreamUp::Type::Setup:
		setUp(std::move(message.setups));
		break;
	case StreamUp::Type::Release: {
		if (message.id >= packets_.size()
			|| packets_[message.id]->where != Packet::Where::Downstream)
			break; /* the IPC and multicast blocks let no stray release through */
		Packet &packet = *packets_[message.id];
		packet.where = Packet::Where::Free;
		packet.fences = std::move(message.fences);
		free_.push_back(packet.id);
		if (state_ == State::Streaming)
			post(StreamEventType::PacketReady);
		break;
	}
	case StreamUp::Type::Disconnect:
		if (state_ == State::Disconnected)
			break;
		if (state_ != State::Failed)
			state_ = State::Disconnected;
		trimPacketReady(0); /* getPacket() says EPIPE from now on */
		post(StreamEventType::Disconnected, message.reason);
		break;
	}
}

} /* namespace vdla */
