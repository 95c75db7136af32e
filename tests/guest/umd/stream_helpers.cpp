/* SPDX-License-Identifier: MIT */
/* Frames, endpoints and checked steps for the stream tests. */
#include "stream_helpers.h"

#include <cstring>

namespace umd_test {

using namespace vdla;

/* The byte at @i of frame @frame: differs from frame to frame and never 0. */
uint8_t frameByte(uint64_t frame, size_t i)
{
	return static_cast<uint8_t>(1 + (frame * 31 + i * 7 + i / 251) % 253);
}

/* Where @data differs from frame @frame, or -1. */
long firstWrong(const uint8_t *data, uint64_t frame)
{
	for (size_t i = 0; i < kFrameBytes; i++)
		if (data[i] != frameByte(frame, i))
			return static_cast<long>(i);
	return -1;
}

/* A 4096-byte INT8 tensor [1,4,32,32], as @owner needs it. */
AttrList tensorElement(const std::string &owner, std::vector<Accessor> accessors,
	Permission permission, uint64_t height)
{
	AttrList l(owner);
	EXPECT_TRUE(l.setTypes({ BufferType::Tensor }));
	EXPECT_TRUE(l.setTensorDataType(TensorDataType::Int8));
	EXPECT_TRUE(l.setTensorDims({ 1, 4, height, 32 }));
	EXPECT_TRUE(l.setAccessors(std::move(accessors)));
	EXPECT_TRUE(l.setRequiredPermission(permission));
	return l;
}

/* An endpoint with one tensor element, used from the CPU. */
StreamEndpointConfig cpuEndpoint(const std::string &name, Permission permission, uint64_t height)
{
	StreamEndpointConfig c;
	c.name = name;
	AttrList l = tensorElement(name, { Accessor::cpu() }, permission, height);
	EXPECT_TRUE(l.setNeedCpuAccess(true));
	c.elements.push_back(std::move(l));
	c.engine = Accessor::cpu();
	return c;
}

/* The next event of @block is @type (events before it fail the test). */
::testing::AssertionResult nextEventIs(StreamBlock &block, StreamEventType type)
{
	auto event = block.queryEvent(kEventTimeout);
	if (!event)
		return ::testing::AssertionFailure()
			<< block.kind() << ": no event, waiting for " << streamEventName(type)
			<< ": " << event.error().message();
	if (event->type != type)
		return ::testing::AssertionFailure()
			<< block.kind() << ": " << streamEventName(event->type) << " ("
			<< event->message << ") instead of " << streamEventName(type);
	return ::testing::AssertionSuccess();
}

/* Waits for @fences on the CPU; each must have signalled without error. */
::testing::AssertionResult waitAll(const std::vector<SyncFence> &fences)
{
	for (const auto &fence : fences) {
		auto status = fence.wait(kJobTimeout);
		if (!status)
			return ::testing::AssertionFailure() << status.error().message();
		if (status->error)
			return ::testing::AssertionFailure()
				<< "a fence of point " << fence.point() << " failed with "
				<< strerror(status->error);
	}
	return ::testing::AssertionSuccess();
}

/* Writes frame @frame into the packet's element from the CPU. */
Result<void> writeFrame(StreamPacket &packet, uint64_t frame)
{
	SharedBuffer &element = *packet.elements.at(0);
	auto map = element.map();
	if (!map)
		return map.error();
	if (auto ok = element.beginCpuAccess(Buffer::CpuAccess::Write); !ok)
		return ok;
	for (size_t i = 0; i < kFrameBytes; i++)
		(*map)[i] = frameByte(frame, i);
	return element.endCpuAccess(Buffer::CpuAccess::Write);
}

/* The first byte of the packet's element that is not frame @frame's, or -1. */
long checkFrame(StreamPacket &packet, uint64_t frame)
{
	SharedBuffer &element = *packet.elements.at(0);
	auto map = element.map();
	if (!map || !element.beginCpuAccess(Buffer::CpuAccess::Read))
		return -2;
	long wrong = firstWrong(*map, frame);
	(void)element.endCpuAccess(Buffer::CpuAccess::Read);
	return wrong;
}

/* The producer takes a packet, writes @frame, signals and presents it. */
::testing::AssertionResult produce(StreamProducer &producer, uint64_t frame, uint32_t *id)
{
	auto packet = producer.getPacket();
	if (!packet)
		return ::testing::AssertionFailure() << "getPacket: " << packet.error().message();
	if (auto waited = waitAll(packet->fences); !waited)
		return waited;
	if (auto written = writeFrame(*packet, frame); !written)
		return ::testing::AssertionFailure() << written.error().message();
	const uint64_t point = producer.sync()->nextPoint();
	if (auto s = producer.sync()->signal(point); !s)
		return ::testing::AssertionFailure() << s.error().message();
	if (auto p = producer.present(packet->id, point); !p)
		return ::testing::AssertionFailure() << "present: " << p.error().message();
	if (id)
		*id = packet->id;
	return ::testing::AssertionSuccess();
}

/*
 * The consumer acquires the next packet: frame @frame, with the
 * producer's fence, holding its bytes; then releases it with a fence of
 * its own.
 */
::testing::AssertionResult consume(StreamConsumer &consumer, uint64_t frame)
{
	auto packet = consumer.acquire();
	if (!packet)
		return ::testing::AssertionFailure() << "acquire: " << packet.error().message();
	if (packet->frame != frame)
		return ::testing::AssertionFailure()
			<< "acquired frame " << packet->frame << ", expected " << frame;
	if (packet->fences.size() != 1)
		return ::testing::AssertionFailure()
			<< packet->fences.size() << " fences came with frame " << frame;
	if (auto waited = waitAll(packet->fences); !waited)
		return waited;
	if (long wrong = checkFrame(*packet, frame); wrong != -1)
		return ::testing::AssertionFailure()
			<< "frame " << frame << " differs at byte " << wrong;
	const uint64_t point = consumer.sync()->nextPoint();
	if (auto s = consumer.sync()->signal(point); !s)
		return ::testing::AssertionFailure() << s.error().message();
	if (auto r = consumer.release(packet->id, point); !r)
		return ::testing::AssertionFailure() << "release: " << r.error().message();
	return ::testing::AssertionSuccess();
}

} /* namespace umd_test */
