/* SPDX-License-Identifier: MIT */
/*
 * Streams across processes (StreamIpcSrc / StreamIpcDst) on the real
 * driver: a producer in this process and consumers in child processes,
 * one reading on the CPU and one copying each frame with a job on the
 * second vDLA that waits for the producer's fence and is released with
 * its own; a consumer killed while it holds a packet, which the others do
 * not notice; a producer process killed, which ends the stream at its
 * consumer; a peer that sends garbage. Children are forked before any
 * stream block exists (blocks run threads, and fork() copies only one).
 */
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <vdla/stream.h>

#include "stream_helpers.h"
#include "submit_env.h"
#include "umd_test.h"

namespace umd_test {

using namespace vdla;

namespace {

/* The next event of @block, in a child: its type, or -1. */
int childEvent(StreamBlock &block, std::string *message = nullptr)
{
	auto event = block.queryEvent(kEventTimeout);
	if (!event) {
		fprintf(stderr, "child: no event on the %s: %s\n", block.kind(),
			event.error().message().c_str());
		return -1;
	}
	if (message)
		*message = event->message;
	return static_cast<int>(event->type);
}

/*
 * A consumer process on the CPU: takes frames 1.. in order, checks their
 * bytes and the producer's fence, releases them; after frame @holdAt it
 * keeps that packet, tells @readyFd, and waits to be killed. Without
 * @holdAt, it runs until the producer goes and returns 0 if it saw
 * @frames frames.
 */
int cpuConsumerProcess(const std::string &node, std::unique_ptr<IpcEndpoint> endpoint,
	StreamQueueKind queue, uint64_t frames, uint64_t holdAt, int readyFd)
{
	auto device = Device::open(node);
	CHILD_CHECK(device, 10, "open the device");
	auto ipc = StreamIpcDst::create(**device, std::move(endpoint));
	CHILD_CHECK(ipc, 11, "the IPC destination");
	auto consumer = StreamConsumer::create(
		**device, queue, cpuEndpoint("logger", Permission::ReadOnly));
	CHILD_CHECK(consumer, 12, "the consumer");
	CHILD_CHECK(streamConnect(*ipc, *consumer), 13, "connect");
	uint64_t seen = 0;
	for (;;) {
		std::string why;
		const int type = childEvent(**consumer, &why);
		if (type == static_cast<int>(StreamEventType::Disconnected))
			break;
		if (type != static_cast<int>(StreamEventType::PacketReady))
			continue;
		auto packet = (*consumer)->acquire();
		CHILD_CHECK(packet, 14, "acquire");
		if ((*consumer)->sync() == nullptr
			|| packet->elements[0]->permission() != Permission::ReadOnly)
			return 15;
		if (queue == StreamQueueKind::Fifo && packet->frame != seen + 1) {
			fprintf(stderr, "child: frame %lu after %lu\n",
				static_cast<unsigned long>(packet->frame),
				static_cast<unsigned long>(seen));
			return 16;
		}
		seen = packet->frame;
		if (!waitAll(packet->fences) || packet->fences.size() != 1)
			return 17;
		if (long wrong = checkFrame(*packet, packet->frame); wrong != -1) {
			fprintf(stderr, "child: frame %lu differs at byte %ld\n",
				static_cast<unsigned long>(packet->frame), wrong);
			return 18;
		}
		if (holdAt && packet->frame == holdAt) {
			if (write(readyFd, "h", 1) != 1)
				return 19;
			for (;;)
				pause();
		}
		const uint64_t point = (*consumer)->sync()->nextPoint();
		CHILD_CHECK((*consumer)->sync()->signal(point), 20, "signal");
		CHILD_CHECK((*consumer)->release(packet->id, point), 21, "release");
	}
	return queue == StreamQueueKind::Fifo && seen != frames ? 22 : 0;
}

/*
 * A consumer process on a vDLA: copies each frame with a job that waits
 * for the producer's fence only (no implicit sync), releases the packet
 * with the job's fence before the job ends, then checks the copy.
 */
int dlaConsumerProcess(const std::string &node, uint32_t dla, std::unique_ptr<IpcEndpoint> endpoint,
	StreamQueueKind queue, uint64_t frames)
{
	auto device = Device::open(node);
	CHILD_CHECK(device, 30, "open the device");
	auto ipc = StreamIpcDst::create(**device, std::move(endpoint));
	CHILD_CHECK(ipc, 31, "the IPC destination");
	StreamEndpointConfig config;
	config.name = "classifier";
	config.elements.push_back(
		tensorElement("classifier", { Accessor::dla(dla) }, Permission::ReadOnly));
	config.engine = Accessor::dla(dla);
	auto consumer = StreamConsumer::create(**device, queue, std::move(config));
	CHILD_CHECK(consumer, 32, "the consumer");
	CHILD_CHECK(streamConnect(*ipc, *consumer), 33, "connect");
	auto ctx = Context::create(**device);
	CHILD_CHECK(ctx, 34, "a context");
	(*ctx)->setImplicitSync(false);
	auto out = Buffer::create(**device, kFrameBytes);
	CHILD_CHECK(out, 35, "the copy's buffer");
	uint64_t seen = 0;
	for (;;) {
		const int type = childEvent(**consumer);
		if (type == static_cast<int>(StreamEventType::Disconnected))
			break;
		if (type != static_cast<int>(StreamEventType::PacketReady))
			continue;
		auto packet = (*consumer)->acquire();
		CHILD_CHECK(packet, 36, "acquire");
		if (queue == StreamQueueKind::Fifo && packet->frame != seen + 1)
			return 37;
		seen = packet->frame;
		if (packet->fences.size() != 1)
			return 38;
		auto waitable = packet->fences[0].toFence(**device);
		CHILD_CHECK(waitable, 39, "the producer's fence for a job");
		auto task = copyTask(
			packet->elements[0]->buffer(), **out, BufferUse::Write, kFrameBytes)
				    .build(**device);
		CHILD_CHECK(task, 40, "build the copy");
		auto point = (*consumer)->sync()->submit(**ctx, *task, { { waitable->get(), 0 } });
		CHILD_CHECK(point, 41, "submit the copy");
		CHILD_CHECK((*consumer)->release(packet->id, *point), 42, "release");
		auto status = (*consumer)->sync()->timeline().waitStatus(*point, kJobTimeout);
		CHILD_CHECK(status, 43, "wait for the copy");
		if (status->error)
			return 44;
		auto map = (*out)->map();
		CHILD_CHECK(map, 45, "map the copy");
		if (long wrong = firstWrong(*map, packet->frame); wrong != -1) {
			fprintf(stderr, "child: dla copy of frame %lu differs at byte %ld\n",
				static_cast<unsigned long>(packet->frame), wrong);
			return 46;
		}
	}
	return queue == StreamQueueKind::Fifo && seen != frames ? 47 : 0;
}

} /* namespace */

class StreamIpcTest : public StreamTest
{
protected:
	void SetUp() override
	{
		StreamTest::SetUp();
		if (HasFatalFailure())
			return;
		needTwoDevices();
	}

	/*
	 * A producer of @packets packets whose multicast feeds an IPC source
	 * to @toProcess (output 0) and the local consumer "healthy" (output
	 * 1), all connected.
	 */
	struct SplitStream {
		std::shared_ptr<StreamProducer> camera;
		std::shared_ptr<StreamMulticast> split;
		std::shared_ptr<StreamIpcSrc> src;
		std::shared_ptr<StreamConsumer> healthy;
	};
	::testing::AssertionResult splitToProcess(
		std::unique_ptr<IpcEndpoint> toProcess, uint32_t packets, SplitStream &s)
	{
		s.camera = producer(packets);
		auto split = StreamMulticast::create(2);
		auto src = StreamIpcSrc::create(std::move(toProcess));
		s.healthy = consumer(StreamQueueKind::Fifo, "healthy");
		if (!s.camera || !split || !src || !s.healthy)
			return ::testing::AssertionFailure() << "creating the blocks";
		s.split = std::move(*split);
		s.src = std::move(*src);
		for (auto [up, down] : { std::pair<std::shared_ptr<StreamBlock>,
					       std::shared_ptr<StreamBlock>>(s.camera, s.split),
			     { s.split, s.src }, { s.split, s.healthy } })
			if (auto connected = streamConnect(up, down); !connected)
				return ::testing::AssertionFailure()
					<< connected.error().message();
		return ::testing::AssertionSuccess();
	}

	/*
	 * Forks a consumer process on @theirs (@mine is closed there, and
	 * @theirs here) that stops itself (SIGSTOP) once its consumer saw
	 * @stopAt; after a PacketReady it takes the packet first, so that it
	 * stops holding it.
	 */
	pid_t forkConsumerThatStops(std::unique_ptr<IpcEndpoint> &mine,
		std::unique_ptr<IpcEndpoint> &theirs, StreamEventType stopAt)
	{
		pid_t child = guest::forkChild([&]() -> int {
			mine.reset();
			auto device = Device::open(nodes_[0]);
			CHILD_CHECK(device, 60, "open the device");
			auto ipc = StreamIpcDst::create(**device, std::move(theirs));
			CHILD_CHECK(ipc, 61, "the IPC destination");
			auto viewer = StreamConsumer::create(**device, StreamQueueKind::Fifo,
				cpuEndpoint("stopping", Permission::ReadOnly));
			CHILD_CHECK(viewer, 62, "the consumer");
			CHILD_CHECK(streamConnect(*ipc, *viewer), 63, "connect");
			while (childEvent(**viewer) != static_cast<int>(stopAt))
				;
			if (stopAt == StreamEventType::PacketReady)
				CHILD_CHECK((*viewer)->acquire(), 64, "acquire");
			raise(SIGSTOP);
			return 65;
		});
		theirs.reset();
		return child;
	}

	/* The producer presents @frames frames, taking a packet as soon as one is free. */
	::testing::AssertionResult stream(StreamProducer &camera, uint64_t from, uint64_t to)
	{
		for (uint64_t frame = from; frame <= to; frame++) {
			if (!guest::waitUntil([&] { return camera.pendingEvents() > 0; }, 20000, 1))
				return ::testing::AssertionFailure()
					<< "no packet came back for frame " << frame;
			auto event = camera.queryEvent(kEventTimeout);
			if (!event || event->type != StreamEventType::PacketReady) {
				frame--;
				continue;
			}
			if (auto ok = produce(camera, frame); !ok)
				return ok;
		}
		return ::testing::AssertionSuccess();
	}
};

TEST_F(StreamIpcTest, AKilledLoggerDoesNotDisturbTheClassifierOrTheProducer)
{
	constexpr uint64_t kFrames = 12;
	const auto before0 = guest::objectCounts(0);
	const auto before1 = guest::objectCounts(1);
	for (StreamQueueKind queue : { StreamQueueKind::Fifo, StreamQueueKind::Mailbox }) {
		SCOPED_TRACE(queue == StreamQueueKind::Fifo ? "FIFO" : "mailbox");
		auto toClassifier = IpcEndpoint::pair();
		auto toLogger = IpcEndpoint::pair();
		int held[2];
		ASSERT_TRUE(toClassifier && toLogger && pipe(held) == 0);
		pid_t classifier = guest::forkChild([&]() -> int {
			toClassifier->first.reset();
			toLogger->first.reset();
			toLogger->second.reset();
			return dlaConsumerProcess(
				nodes_[1], 1, std::move(toClassifier->second), queue, kFrames);
		});
		pid_t logger = guest::forkChild([&]() -> int {
			toClassifier->first.reset();
			toClassifier->second.reset();
			toLogger->first.reset();
			return cpuConsumerProcess(
				nodes_[0], std::move(toLogger->second), queue, kFrames, 3, held[1]);
		});
		ASSERT_GT(classifier, 0);
		ASSERT_GT(logger, 0);
		close(held[1]);
		toClassifier->second.reset();
		toLogger->second.reset();

		{
			auto pool = StreamPool::createStatic(*device_, 4);
			ASSERT_TRUE(succeeded(pool));
			auto made = StreamProducer::create(
				*pool, cpuEndpoint("camera", Permission::ReadWrite));
			auto split = StreamMulticast::create(2);
			auto toC = StreamIpcSrc::create(std::move(toClassifier->first));
			auto toL = StreamIpcSrc::create(std::move(toLogger->first));
			ASSERT_TRUE(made && split && toC && toL);
			auto camera = std::move(*made);
			ASSERT_TRUE(succeeded(streamConnect(camera, *split)));
			ASSERT_TRUE(succeeded(streamConnect(*split, *toC)));
			ASSERT_TRUE(succeeded(streamConnect(*split, *toL)));
			ASSERT_TRUE(nextEventIs(*camera, StreamEventType::Connected));
			ASSERT_TRUE(nextEventIs(*camera, StreamEventType::SetupComplete));

			ASSERT_TRUE(stream(*camera, 1, 4));
			/* The logger holds frame 3 (FIFO: it saw 1, 2, 3; mailbox: whichever). */
			if (queue == StreamQueueKind::Fifo) {
				char byte;
				ASSERT_EQ(read(held[0], &byte, 1), 1)
					<< "the logger never held frame 3";
				kill(logger, SIGKILL);
				EXPECT_EQ(guest::waitChild(logger), 128 + SIGKILL);
				ASSERT_TRUE(nextEventIs(**toL, StreamEventType::Disconnected));
				ASSERT_TRUE(nextEventIs(**split, StreamEventType::Disconnected));
			}
			ASSERT_TRUE(stream(*camera, 5, kFrames));
			if (queue == StreamQueueKind::Mailbox) {
				kill(logger, SIGKILL);
				EXPECT_EQ(guest::waitChild(logger), 128 + SIGKILL);
			}
			EXPECT_TRUE(guest::waitUntil(
				[&] { return (*split)->activeOutputs() == 1; }, 5000))
				<< "the logger's output is still active";
			EXPECT_EQ(camera->framesPresented(), kFrames);
			/* The producer goes first: the classifier takes every frame, then reports.
			 */
			camera.reset();
		}
		EXPECT_EQ(guest::waitChild(classifier), 0);
		close(held[0]);
	}
	std::map<std::string, long> now;
	EXPECT_TRUE(
		guest::waitUntil([&] { return (now = guest::objectCounts(0)) == before0; }, 5000))
		<< "dla:0 " << guest::describeCounts(before0) << "then "
		<< guest::describeCounts(now);
	EXPECT_TRUE(
		guest::waitUntil([&] { return (now = guest::objectCounts(1)) == before1; }, 5000))
		<< "dla:1 " << guest::describeCounts(before1) << "then "
		<< guest::describeCounts(now);
}

TEST_F(StreamIpcTest, AProducerProcessThatDiesEndsTheStreamAtItsConsumer)
{
	auto link = IpcEndpoint::pair();
	int ready[2];
	ASSERT_TRUE(link && pipe(ready) == 0);
	pid_t producer = guest::forkChild([&]() -> int {
		link->second.reset();
		close(ready[0]);
		auto device = Device::open(nodes_[0]);
		CHILD_CHECK(device, 50, "open the device");
		auto pool = StreamPool::createStatic(**device, 2);
		CHILD_CHECK(pool, 51, "the pool");
		auto camera = StreamProducer::create(
			*pool, cpuEndpoint("camera", Permission::ReadWrite));
		CHILD_CHECK(camera, 52, "the producer");
		auto ipc = StreamIpcSrc::create(std::move(link->first));
		CHILD_CHECK(ipc, 53, "the IPC source");
		CHILD_CHECK(streamConnect(*camera, *ipc), 54, "connect");
		if (childEvent(**camera) != static_cast<int>(StreamEventType::Connected))
			return 55;
		for (uint64_t frame = 1; frame <= 2; frame++)
			if (!produce(**camera, frame))
				return 56;
		if (write(ready[1], "p", 1) != 1)
			return 57;
		for (;;)
			pause();
	});
	ASSERT_GT(producer, 0);
	close(ready[1]);
	link->first.reset();
	auto ipc = StreamIpcDst::create(*device_, std::move(link->second));
	auto viewer = consumer(StreamQueueKind::Fifo, "viewer");
	ASSERT_TRUE(succeeded(ipc));
	ASSERT_TRUE(viewer);
	ASSERT_TRUE(succeeded(streamConnect(*ipc, viewer)));
	ASSERT_TRUE(nextEventIs(*viewer, StreamEventType::Connected));
	char byte;
	ASSERT_EQ(read(ready[0], &byte, 1), 1);
	close(ready[0]);
	ASSERT_TRUE(nextEventIs(*viewer, StreamEventType::SetupComplete));
	ASSERT_TRUE(nextEventIs(*viewer, StreamEventType::PacketReady));
	ASSERT_TRUE(consume(*viewer, 1));
	kill(producer, SIGKILL);
	EXPECT_EQ(guest::waitChild(producer), 128 + SIGKILL);
	/*
	 * Disconnected: frame 2, presented but not taken, is not the viewer's
	 * any more (its PacketReady goes with it).
	 */
	for (;;) {
		auto event = viewer->queryEvent(kEventTimeout);
		ASSERT_TRUE(succeeded(event));
		if (event->type == StreamEventType::Disconnected)
			break;
		ASSERT_EQ(event->type, StreamEventType::PacketReady);
	}
	EXPECT_EQ(viewer->pendingEvents(), 0u);
	auto after = viewer->acquire();
	ASSERT_FALSE(after);
	EXPECT_EQ(after.error().code(), EPIPE);
	EXPECT_NE(after.error().reason().find("hung up or died"), std::string::npos)
		<< after.error().reason();
}

TEST_F(StreamIpcTest, PacketsOfAConsumerThatGoesComeBackFencedByItsJobs)
{
	auto link = IpcEndpoint::pair();
	ASSERT_TRUE(link);
	auto camera = producer(2);
	auto split = StreamMulticast::create(2);
	auto src = StreamIpcSrc::create(std::move(link->first));
	auto dst = StreamIpcDst::create(*device_, std::move(link->second));
	auto viewer = consumer(StreamQueueKind::Fifo, "viewer");
	auto stays = consumer(StreamQueueKind::Fifo, "stays");
	ASSERT_TRUE(camera && split && src && dst && viewer && stays);
	ASSERT_TRUE(succeeded(streamConnect(*dst, viewer)));
	EXPECT_EQ(streamConnect(camera, *dst).error().code(), EINVAL)
		<< "an IPC destination's upstream is its socket";
	ASSERT_TRUE(succeeded(streamConnect(camera, *split)));
	ASSERT_TRUE(succeeded(streamConnect(*split, *src)));
	ASSERT_TRUE(succeeded(streamConnect(*split, stays)));
	ASSERT_TRUE(nextEventIs(*viewer, StreamEventType::Connected));
	ASSERT_TRUE(nextEventIs(*viewer, StreamEventType::SetupComplete));
	ASSERT_TRUE(produce(*camera, 1));
	ASSERT_TRUE(nextEventIs(*viewer, StreamEventType::PacketReady));
	auto held = viewer->acquire();
	ASSERT_TRUE(succeeded(held));
	EXPECT_EQ(held->elements[0]->permission(), Permission::ReadOnly)
		<< "sent with the permission the viewer asked for";
	ASSERT_TRUE(consume(*stays, 1));

	/* A slow job of the viewer reads the packet... */
	guest::FaultInjection faults(guest::nodeIndex(node_));
	ASSERT_EQ(faults.set("bdma", "delay", 0, 1000000), 0);
	auto out = buffer(kFrameBytes);
	auto ctx = context();
	auto done = fence();
	auto task = copyTask(held->elements[0]->buffer(), *out, BufferUse::Write, kFrameBytes)
			    .build(*device_);
	ASSERT_TRUE(out && ctx && done && succeeded(task));
	ASSERT_TRUE(succeeded(ctx->submit(*task, {}, { done.get() })));

	/* ...and its side goes: the packet comes back with that job's fence. */
	dst->reset();
	ASSERT_TRUE(nextEventIs(**src, StreamEventType::Disconnected));
	ASSERT_TRUE(nextEventIs(*viewer, StreamEventType::Disconnected));
	EXPECT_EQ((*split)->activeOutputs(), 1u);
	auto unused = camera->getPacket();
	auto back = camera->getPacket();
	ASSERT_TRUE(succeeded(unused));
	ASSERT_TRUE(succeeded(back));
	ASSERT_NE(back->id, unused->id);
	ASSERT_EQ(back->fences.size(), 2u) << "the release of stays, the job of viewer";
	auto pending = back->fences[1].status();
	ASSERT_TRUE(succeeded(pending));
	EXPECT_FALSE(pending->signalled) << "the packet came back before the job ended";
	EXPECT_FALSE(*done->signalled());
	ASSERT_TRUE(waitAll(back->fences));
	EXPECT_TRUE(*done->signalled()) << "the fence signalled before the job's";
	faults.clear();

	/* The stream goes on with the consumer that stayed. */
	ASSERT_TRUE(succeeded(camera->present(unused->id, 0)));
	auto next = stays->acquire();
	ASSERT_TRUE(succeeded(next));
	EXPECT_EQ(next->frame, 2u);
	EXPECT_TRUE(next->fences.empty()) << "presented without a fence";
}

/*
 * An IPC destination that copies: the consumer's packets are in the SRAM
 * of its vDLA, which no dma-buf reaches, filled by BDMA copies that wait
 * for the producer's fences; the producer's packets come back as soon as
 * they are copied, whatever the consumer holds.
 */
TEST_F(StreamIpcTest, ACopyingDestinationFillsSramPacketsAndFreesTheProducersAtOnce)
{
	auto link = IpcEndpoint::pair();
	ASSERT_TRUE(link);
	const Accessor self = Accessor::dla(device_->accelMinor());
	EXPECT_EQ(
		StreamIpcDst::create(*device_, std::move(link->second), 65).error().code(), EINVAL);
	link = IpcEndpoint::pair();
	ASSERT_TRUE(link);
	StreamEndpointConfig npu;
	npu.name = "npu";
	AttrList sram = tensorElement("npu", { self }, Permission::ReadOnly);
	ASSERT_TRUE(sram.setMemoryDomain(MemoryDomain::Sram, false));
	npu.elements.push_back(std::move(sram));
	npu.engine = self;
	auto camera = producer(2);
	auto src = StreamIpcSrc::create(std::move(link->first));
	auto dst = StreamIpcDst::create(*device_, std::move(link->second), 2);
	auto made = StreamConsumer::create(*device_, StreamQueueKind::Fifo, std::move(npu));
	ASSERT_TRUE(camera && src && dst && made);
	auto consumer = *made;
	ASSERT_TRUE(succeeded(streamConnect(*dst, consumer)));
	ASSERT_TRUE(succeeded(streamConnect(camera, *src)));
	ASSERT_TRUE(nextEventIs(*consumer, StreamEventType::Connected));
	ASSERT_TRUE(nextEventIs(*consumer, StreamEventType::SetupComplete));
	/* From here, each PacketReady of the producer is a packet that came back. */
	ASSERT_TRUE(nextEventIs(*camera, StreamEventType::Connected));
	ASSERT_TRUE(nextEventIs(*camera, StreamEventType::SetupComplete));
	ASSERT_TRUE(nextEventIs(*camera, StreamEventType::PacketReady));
	ASSERT_TRUE(nextEventIs(*camera, StreamEventType::PacketReady));

	auto ctx = context();
	auto out = buffer(kFrameBytes);
	ASSERT_TRUE(ctx && out);
	/* The consumer reads its SRAM packet with a job: a copy out, then the bytes. */
	auto readOnDla = [&](StreamPacket &packet) -> ::testing::AssertionResult {
		if (packet.elements[0]->buffer().placement() != Buffer::Placement::Sram)
			return ::testing::AssertionFailure()
				<< "the consumer's packet is not in SRAM";
		if (packet.fences.size() != 1)
			return ::testing::AssertionFailure() << packet.fences.size() << " fences";
		auto waitable = packet.fences[0].toFence(*device_);
		auto task = copyTask(
			packet.elements[0]->buffer(), *out, BufferUse::Write, kFrameBytes)
				    .build(*device_);
		if (!waitable || !task)
			return ::testing::AssertionFailure() << "the read job";
		auto point = consumer->sync()->submit(*ctx, *task, { { waitable->get(), 0 } });
		if (!point)
			return ::testing::AssertionFailure() << point.error().message();
		if (auto r = consumer->release(packet.id, *point); !r)
			return ::testing::AssertionFailure() << r.error().message();
		auto status = consumer->sync()->timeline().waitStatus(*point, kJobTimeout);
		if (!status || status->error)
			return ::testing::AssertionFailure() << "the read job failed";
		if (long wrong = firstWrong(out->data(), packet.frame); wrong != -1)
			return ::testing::AssertionFailure()
				<< "frame " << packet.frame << " differs at byte " << wrong;
		return ::testing::AssertionSuccess();
	};
	ASSERT_TRUE(succeeded(out->map()));

	ASSERT_TRUE(produce(*camera, 1));
	ASSERT_TRUE(nextEventIs(*consumer, StreamEventType::PacketReady));
	auto first = consumer->acquire();
	ASSERT_TRUE(succeeded(first));
	EXPECT_EQ(first->frame, 1u);
	/* The consumer holds frame 1; both of the producer's packets are free again. */
	ASSERT_TRUE(produce(*camera, 2));
	ASSERT_TRUE(nextEventIs(*camera, StreamEventType::PacketReady));
	ASSERT_TRUE(produce(*camera, 3)) << "the producer's packets came back after the copies";
	ASSERT_TRUE(readOnDla(*first));
	for (uint64_t frame = 2; frame <= 5; frame++) {
		ASSERT_TRUE(nextEventIs(*consumer, StreamEventType::PacketReady));
		auto packet = consumer->acquire();
		ASSERT_TRUE(succeeded(packet));
		EXPECT_EQ(packet->frame, frame);
		ASSERT_TRUE(readOnDla(*packet));
		if (frame + 2 <= 5) {
			ASSERT_TRUE(nextEventIs(*camera, StreamEventType::PacketReady));
			ASSERT_TRUE(produce(*camera, frame + 2));
		}
	}
	/* The producer ends the stream: the copies queued here are still the consumer's. */
	ASSERT_TRUE(nextEventIs(*camera, StreamEventType::PacketReady));
	ASSERT_TRUE(produce(*camera, 6));
	ASSERT_TRUE(nextEventIs(*consumer, StreamEventType::PacketReady));
	camera.reset();
	ASSERT_TRUE(nextEventIs(*consumer, StreamEventType::Disconnected));
	auto last = consumer->acquire();
	ASSERT_TRUE(succeeded(last));
	EXPECT_EQ(last->frame, 6u);
	ASSERT_TRUE(readOnDla(*last));
	EXPECT_EQ(consumer->acquire().error().code(), EPIPE);
}

/*
 * A sharing destination that goes first: the producer takes back the
 * packets its consumer had not taken, so the consumer must not take them.
 */
TEST_F(StreamIpcTest, ASharingDestinationThatGoesTakesItsConsumersQueueAway)
{
	auto link = IpcEndpoint::pair();
	ASSERT_TRUE(link);
	auto camera = producer(2);
	auto src = StreamIpcSrc::create(std::move(link->first));
	auto dst = StreamIpcDst::create(*device_, std::move(link->second));
	auto viewer = consumer(StreamQueueKind::Fifo, "viewer");
	ASSERT_TRUE(camera && src && dst && viewer);
	ASSERT_TRUE(succeeded(streamConnect(*dst, viewer)));
	ASSERT_TRUE(succeeded(streamConnect(camera, *src)));
	ASSERT_TRUE(nextEventIs(*viewer, StreamEventType::Connected));
	ASSERT_TRUE(nextEventIs(*viewer, StreamEventType::SetupComplete));
	ASSERT_TRUE(produce(*camera, 1));
	ASSERT_TRUE(produce(*camera, 2));
	ASSERT_TRUE(nextEventIs(*viewer, StreamEventType::PacketReady));
	ASSERT_TRUE(nextEventIs(*viewer, StreamEventType::PacketReady));
	dst->reset();
	ASSERT_TRUE(nextEventIs(*viewer, StreamEventType::Disconnected));
	EXPECT_EQ(viewer->acquire().error().code(), EPIPE)
		<< "a packet the producer may be writing again was handed out";
	ASSERT_TRUE(nextEventIs(**src, StreamEventType::Disconnected));
}

/* A message of a stream kind with @payload, as a hostile process would make it. */
std::vector<uint8_t> le32s(std::initializer_list<uint32_t> values)
{
	std::vector<uint8_t> bytes;
	for (uint32_t v : values)
		for (int i = 0; i < 4; i++)
			bytes.push_back(static_cast<uint8_t>(v >> (8 * i)));
	return bytes;
}

TEST_F(StreamIpcTest, APeerThatLiesIsRefusedAndOneThatSendsGarbageIsCutOff)
{
	constexpr uint32_t kRelease = 0x7664a014;
	auto link = IpcEndpoint::pair();
	ASSERT_TRUE(link);
	auto camera = producer(2);
	auto src = StreamIpcSrc::create(std::move(link->first));
	ASSERT_TRUE(camera && src);
	ASSERT_TRUE(succeeded(streamConnect(camera, *src)));
	IpcEndpoint &peer = *link->second;

	/* A release of a packet it was never given: refused, the stream stays. */
	ASSERT_TRUE(succeeded(peer.send(kRelease, le32s({ 0, 0 }))));
	auto event = (*src)->queryEvent(kEventTimeout);
	ASSERT_TRUE(succeeded(event));
	EXPECT_EQ(event->type, StreamEventType::Error);
	EXPECT_EQ(event->error, EPROTO);
	EXPECT_NE(event->message.find("does not hold"), std::string::npos) << event->message;
	EXPECT_EQ((*src)->pendingEvents(), 0u) << "still connected";

	/* A release that claims a fence but carries no descriptor: cut off. */
	ASSERT_TRUE(succeeded(peer.send(kRelease, le32s({ 0, 1, 0, 0 }))));
	ASSERT_TRUE(nextEventIs(**src, StreamEventType::Error));
	ASSERT_TRUE(nextEventIs(**src, StreamEventType::Disconnected));
	ASSERT_TRUE(nextEventIs(*camera, StreamEventType::Disconnected));
	EXPECT_EQ(camera->getPacket().error().code(), EPIPE);
	/* It is told, then the source hangs up on it. */
	auto told = peer.receive(std::chrono::milliseconds(5000));
	ASSERT_TRUE(succeeded(told));
	EXPECT_EQ(told->kind, 0x7664a015u) << "a Disconnect";
	auto closed = peer.receive(std::chrono::milliseconds(5000));
	ASSERT_FALSE(closed);
	EXPECT_EQ(closed.error().code(), EPIPE);
}

/* A present as a hostile producer process would send it. */
std::vector<uint8_t> presentPayload(uint32_t id)
{
	std::vector<uint8_t> bytes = le32s({ id });
	for (int i = 0; i < 16; i++)
		bytes.push_back(0); /* frame, time */
	auto none = le32s({ 0 });
	bytes.insert(bytes.end(), none.begin(), none.end());
	return bytes;
}

TEST_F(StreamIpcTest, AProducerThatLiesIsCutOffWithoutHarmToTheConsumerSide)
{
	constexpr uint32_t kPresent = 0x7664a013;
	EXPECT_EQ(StreamIpcSrc::create(nullptr).error().code(), EINVAL);
	EXPECT_EQ(StreamIpcDst::create(*device_, nullptr).error().code(), EINVAL);
	for (uint32_t id : { 0u, 0xffffffffu, 0x80000000u }) {
		SCOPED_TRACE(id);
		auto link = IpcEndpoint::pair();
		ASSERT_TRUE(link);
		auto dst = StreamIpcDst::create(*device_, std::move(link->second));
		auto split = StreamMulticast::create(2);
		auto viewer = consumer(StreamQueueKind::Fifo, "viewer");
		ASSERT_TRUE(dst && split && viewer);
		ASSERT_TRUE(succeeded(streamConnect(*dst, *split)));
		ASSERT_TRUE(succeeded(streamConnect(*split, viewer)));
		(*split)->finishConnecting();
		IpcEndpoint &peer = *link->first;
		auto setup = peer.receive(std::chrono::milliseconds(5000));
		ASSERT_TRUE(succeeded(setup)) << "the viewer's set-up";
		/* A present of a packet never created, or of no packet at all. */
		ASSERT_TRUE(succeeded(peer.send(kPresent, presentPayload(id))));
		auto event = viewer->queryEvent(kEventTimeout);
		ASSERT_TRUE(succeeded(event));
		EXPECT_EQ(event->type, StreamEventType::Error);
		EXPECT_TRUE(event->error == EPROTO || event->error == EBADMSG) << event->error;
		ASSERT_TRUE(nextEventIs(*viewer, StreamEventType::Disconnected));
		auto closed = peer.receive(std::chrono::milliseconds(5000));
		ASSERT_FALSE(closed);
		EXPECT_EQ(closed.error().code(), EPIPE) << "the destination hung up on it";

		/* A consumer connected after the end is told at once. */
		auto late = consumer(StreamQueueKind::Fifo, "late");
		ASSERT_TRUE(late);
		ASSERT_TRUE(succeeded(streamConnect(*split, late)));
		ASSERT_TRUE(nextEventIs(*late, StreamEventType::Disconnected));
	}
}

TEST_F(StreamIpcTest, AConsumerConnectedToAnEndedDestinationIsTold)
{
	auto link = IpcEndpoint::pair();
	ASSERT_TRUE(link);
	auto dst = StreamIpcDst::create(*device_, std::move(link->second));
	ASSERT_TRUE(succeeded(dst));
	link->first.reset();
	ASSERT_TRUE(nextEventIs(**dst, StreamEventType::Disconnected));
	auto viewer = consumer(StreamQueueKind::Fifo, "viewer");
	ASSERT_TRUE(viewer);
	ASSERT_TRUE(succeeded(streamConnect(*dst, viewer)));
	ASSERT_TRUE(nextEventIs(*viewer, StreamEventType::Disconnected));
	EXPECT_EQ(viewer->acquire().error().code(), EPIPE);
}

/*
 * Seventeen consumers behind one IPC pair give a packet back with more
 * fences than a message carries: they cross merged into one, which
 * signals only when the slowest (a job still running) has.
 */
TEST_F(StreamIpcTest, MoreFencesThanAMessageCarriesCrossMerged)
{
	constexpr size_t kConsumers = 17;
	auto link = IpcEndpoint::pair();
	ASSERT_TRUE(link);
	auto camera = producer(1);
	auto src = StreamIpcSrc::create(std::move(link->first));
	auto dst = StreamIpcDst::create(*device_, std::move(link->second));
	auto split = StreamMulticast::create(kConsumers);
	ASSERT_TRUE(camera && src && dst && split);
	std::vector<std::shared_ptr<StreamConsumer>> viewers;
	for (size_t i = 0; i < kConsumers; i++) {
		viewers.push_back(consumer(StreamQueueKind::Fifo, "viewer" + std::to_string(i)));
		ASSERT_TRUE(viewers.back());
		ASSERT_TRUE(succeeded(streamConnect(*split, viewers.back())));
	}
	ASSERT_TRUE(succeeded(streamConnect(*dst, *split)));
	ASSERT_TRUE(succeeded(streamConnect(camera, *src)));
	for (auto &viewer : viewers) {
		ASSERT_TRUE(nextEventIs(*viewer, StreamEventType::Connected));
		ASSERT_TRUE(nextEventIs(*viewer, StreamEventType::SetupComplete));
	}
	ASSERT_TRUE(nextEventIs(*camera, StreamEventType::Connected));
	ASSERT_TRUE(nextEventIs(*camera, StreamEventType::SetupComplete));
	ASSERT_TRUE(nextEventIs(*camera, StreamEventType::PacketReady));
	ASSERT_TRUE(produce(*camera, 1));

	/* Sixteen read on the CPU; the last with a slow job. */
	for (size_t i = 0; i + 1 < kConsumers; i++) {
		ASSERT_TRUE(nextEventIs(*viewers[i], StreamEventType::PacketReady));
		ASSERT_TRUE(consume(*viewers[i], 1));
	}
	StreamConsumer &slow = *viewers.back();
	ASSERT_TRUE(nextEventIs(slow, StreamEventType::PacketReady));
	auto packet = slow.acquire();
	ASSERT_TRUE(succeeded(packet));
	guest::FaultInjection faults(guest::nodeIndex(node_));
	ASSERT_EQ(faults.set("bdma", "delay", 0, 1000000), 0);
	auto out = buffer(kFrameBytes);
	auto ctx = context();
	auto task = copyTask(packet->elements[0]->buffer(), *out, BufferUse::Write, kFrameBytes)
			    .build(*device_);
	ASSERT_TRUE(out && ctx && succeeded(task));
	auto point = slow.sync()->submit(*ctx, *task);
	ASSERT_TRUE(succeeded(point));
	ASSERT_TRUE(succeeded(slow.release(packet->id, *point)));

	/* Back at the producer: one fence for the seventeen, pending with the job. */
	ASSERT_TRUE(nextEventIs(*camera, StreamEventType::PacketReady));
	auto back = camera->getPacket();
	ASSERT_TRUE(succeeded(back));
	ASSERT_EQ(back->fences.size(), 1u);
	auto merged = back->fences[0].status();
	ASSERT_TRUE(succeeded(merged));
	EXPECT_FALSE(merged->signalled) << "the merged fence signalled before the slow job";
	ASSERT_TRUE(waitAll(back->fences));
	auto job = slow.sync()->timeline().signalled(*point);
	ASSERT_TRUE(succeeded(job));
	EXPECT_TRUE(*job);
}

/*
 * A consumer process that dies during set-up, before it said what it
 * needs, is not waited for: set-up goes on with the consumers left, and
 * when every consumer that came is gone, the producer is told.
 */
TEST_F(StreamIpcTest, AConsumerProcessGoneDuringSetUpIsNotWaitedFor)
{
	auto link = IpcEndpoint::pair();
	ASSERT_TRUE(link);
	SplitStream s;
	ASSERT_TRUE(splitToProcess(std::move(link->first), 2, s));
	EXPECT_EQ(s.camera->pendingEvents(), 0u) << "set-up waits for the other process's consumer";

	/* The other process goes before its consumer said anything. */
	link->second.reset();
	ASSERT_TRUE(nextEventIs(*s.healthy, StreamEventType::Connected));
	ASSERT_TRUE(nextEventIs(*s.healthy, StreamEventType::SetupComplete));
	EXPECT_EQ(s.split->activeOutputs(), 1u);
	for (uint64_t frame = 1; frame <= 3; frame++) {
		ASSERT_TRUE(produce(*s.camera, frame)) << "frame " << frame;
		ASSERT_TRUE(consume(*s.healthy, frame));
	}

	/* Both consumer processes go during set-up: nobody is left to stream to. */
	auto first = IpcEndpoint::pair();
	auto second = IpcEndpoint::pair();
	ASSERT_TRUE(first && second);
	auto lonely = producer(2);
	auto fork = StreamMulticast::create(2);
	auto toFirst = StreamIpcSrc::create(std::move(first->first));
	auto toSecond = StreamIpcSrc::create(std::move(second->first));
	ASSERT_TRUE(lonely && fork && toFirst && toSecond);
	ASSERT_TRUE(succeeded(streamConnect(lonely, *fork)));
	ASSERT_TRUE(succeeded(streamConnect(*fork, *toFirst)));
	ASSERT_TRUE(succeeded(streamConnect(*fork, *toSecond)));
	first->second.reset();
	EXPECT_EQ(lonely->pendingEvents(), 0u) << "the second consumer may still come";
	second->second.reset();
	auto event = lonely->queryEvent(kEventTimeout);
	ASSERT_TRUE(succeeded(event));
	EXPECT_EQ(event->type, StreamEventType::Disconnected) << event->message;
	EXPECT_NE(event->message.find("left before set-up"), std::string::npos) << event->message;
	EXPECT_EQ(lonely->getPacket().error().code(), EPIPE);
}

/*
 * A consumer process that stops without reading its socket: the IPC
 * source's send waits a second for room, then cuts it off, and the
 * stream goes on for the other consumer. (A small send buffer fills with
 * the few packets a pool has; the kernel's default takes hundreds.)
 */
TEST_F(StreamIpcTest, AConsumerProcessThatStopsReadingIsCutOffAfterTheSendTimeout)
{
	auto link = IpcEndpoint::pair();
	ASSERT_TRUE(link);
	const int small = 4096;
	ASSERT_EQ(setsockopt(link->first->fd(), SOL_SOCKET, SO_SNDBUF, &small, sizeof(small)), 0);
	pid_t stopped = forkConsumerThatStops(link->first, link->second,
		StreamEventType::SetupComplete);
	ASSERT_GT(stopped, 0);
	SplitStream s;
	ASSERT_TRUE(splitToProcess(std::move(link->first), StreamPool::kMaxPackets, s));
	ASSERT_TRUE(nextEventIs(*s.healthy, StreamEventType::Connected));
	ASSERT_TRUE(nextEventIs(*s.healthy, StreamEventType::SetupComplete));
	int status = 0;
	ASSERT_EQ(waitpid(stopped, &status, WUNTRACED), stopped);
	ASSERT_TRUE(WIFSTOPPED(status)) << "the consumer process ended instead of stopping";

	/* Frames go until the stopped process's socket is full; then it is cut off. */
	uint64_t frame = 1;
	for (; frame <= StreamPool::kMaxPackets && s.split->activeOutputs() == 2; frame++) {
		ASSERT_TRUE(produce(*s.camera, frame)) << "frame " << frame;
		ASSERT_TRUE(consume(*s.healthy, frame));
	}
	ASSERT_EQ(s.split->activeOutputs(), 1u)
		<< StreamPool::kMaxPackets << " frames went without filling the socket";
	auto event = s.src->queryEvent(kEventTimeout);
	ASSERT_TRUE(succeeded(event));
	EXPECT_EQ(event->type, StreamEventType::Error);
	EXPECT_NE(event->message.find("has not read its messages"), std::string::npos)
		<< event->message;
	ASSERT_TRUE(nextEventIs(*s.src, StreamEventType::Disconnected));
	/* Its packets came back: the stream goes on through a whole pool's worth. */
	for (uint64_t last = frame + StreamPool::kMaxPackets; frame <= last; frame++) {
		ASSERT_TRUE(produce(*s.camera, frame)) << "frame " << frame;
		ASSERT_TRUE(consume(*s.healthy, frame));
	}
	kill(stopped, SIGKILL);
	EXPECT_EQ(guest::waitChild(stopped), 128 + SIGKILL);
}

/*
 * A consumer process that stops (SIGSTOP) while it holds a packet would
 * drain the pool and stop the stream: with a stall limit, its IPC source
 * cuts it off and the other consumer goes on.
 */
TEST_F(StreamIpcTest, AStuckConsumerProcessIsCutOffAfterTheStallLimit)
{
	auto link = IpcEndpoint::pair();
	ASSERT_TRUE(link);
	/* Stuck, holding a packet. */
	pid_t stuck = forkConsumerThatStops(link->first, link->second,
		StreamEventType::PacketReady);
	ASSERT_GT(stuck, 0);
	SplitStream s;
	ASSERT_TRUE(splitToProcess(std::move(link->first), 2, s));
	ASSERT_TRUE(nextEventIs(*s.healthy, StreamEventType::Connected));
	ASSERT_TRUE(nextEventIs(*s.healthy, StreamEventType::SetupComplete));
	ASSERT_TRUE(produce(*s.camera, 1));
	ASSERT_TRUE(consume(*s.healthy, 1));
	/* Set while streaming, with the source's thread asleep on a quiet socket. */
	s.src->setStallLimit(std::chrono::milliseconds(300));

	/* The stuck process is cut off; its packet comes back; the stream goes on. */
	auto event = s.src->queryEvent(kEventTimeout);
	ASSERT_TRUE(succeeded(event));
	EXPECT_EQ(event->type, StreamEventType::Error);
	EXPECT_EQ(event->error, ETIMEDOUT);
	EXPECT_NE(event->message.find("cut off as stuck"), std::string::npos) << event->message;
	ASSERT_TRUE(nextEventIs(*s.src, StreamEventType::Disconnected));
	EXPECT_EQ(s.split->activeOutputs(), 1u);
	for (uint64_t frame = 2; frame <= 5; frame++) {
		ASSERT_TRUE(produce(*s.camera, frame)) << "frame " << frame;
		ASSERT_TRUE(consume(*s.healthy, frame));
	}
	kill(stuck, SIGKILL);
	EXPECT_EQ(guest::waitChild(stuck), 128 + SIGKILL);
}

} /* namespace umd_test */
