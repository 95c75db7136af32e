/* SPDX-License-Identifier: MIT */
/*
 * Streams (vdla/stream.h) on the real driver: set-up by events, FIFO and
 * mailbox queues, multicast and limiter, dynamic pools, conflicts at
 * set-up and at late attach, and consumers in other processes over IPC
 * blocks, one of them killed mid-stream. Every packet's bytes are checked
 * against what its frame should hold, and every hand-over against the
 * fence that came with it.
 */
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <vdla/stream.h>

#include "submit_env.h"
#include "stream_helpers.h"
#include "umd_test.h"

namespace umd_test {

using namespace vdla;

TEST_F(StreamTest, FifoSetsUpByEventsAndDeliversEveryFrameWithItsFences)
{
	auto camera = producer(3);
	auto viewer = consumer(StreamQueueKind::Fifo, "viewer");
	ASSERT_TRUE(camera && viewer);
	EXPECT_EQ(camera->getPacket().error().code(), ENOTCONN) << "before set-up";
	ASSERT_TRUE(succeeded(streamConnect(camera, viewer)));
	EXPECT_EQ(streamConnect(camera, viewer).error().code(), EBUSY);

	EXPECT_TRUE(nextEventIs(*camera, StreamEventType::Connected));
	EXPECT_TRUE(nextEventIs(*camera, StreamEventType::SetupComplete));
	for (int i = 0; i < 3; i++)
		EXPECT_TRUE(nextEventIs(*camera, StreamEventType::PacketReady));
	EXPECT_TRUE(nextEventIs(*viewer, StreamEventType::Connected));
	EXPECT_TRUE(nextEventIs(*viewer, StreamEventType::SetupComplete));
	EXPECT_EQ(viewer->acquire().error().code(), EAGAIN);

	/* Three in flight, then each frame after a release: 12 frames, in order. */
	uint64_t presented = 0, consumed = 0;
	for (; presented < 3; presented++)
		ASSERT_TRUE(produce(*camera, presented + 1));
	EXPECT_EQ(camera->getPacket().error().code(), EAGAIN) << "every packet downstream";
	while (consumed < 12) {
		EXPECT_TRUE(nextEventIs(*viewer, StreamEventType::PacketReady));
		ASSERT_TRUE(consume(*viewer, ++consumed));
		if (presented < 12) {
			EXPECT_TRUE(nextEventIs(*camera, StreamEventType::PacketReady));
			/* The packet comes back with the viewer's release fence. */
			auto packet = camera->getPacket();
			ASSERT_TRUE(succeeded(packet));
			ASSERT_EQ(packet->fences.size(), 1u);
			EXPECT_EQ(packet->fences[0].point(), consumed);
			ASSERT_TRUE(waitAll(packet->fences));
			ASSERT_TRUE(succeeded(writeFrame(*packet, ++presented)));
			const uint64_t point = camera->sync()->nextPoint();
			ASSERT_TRUE(succeeded(camera->sync()->signal(point)));
			ASSERT_TRUE(succeeded(camera->present(packet->id, point)));
		}
	}
	EXPECT_EQ(camera->framesPresented(), 12u);
	EXPECT_EQ(viewer->packetsDropped(), 0u);
	EXPECT_EQ(viewer->pendingEvents(), 0u);
}

TEST_F(StreamTest, HandOversRefuseWhatIsNotTheCallersToHandOver)
{
	auto camera = producer(2);
	auto viewer = consumer(StreamQueueKind::Fifo, "viewer");
	ASSERT_TRUE(camera && viewer);
	ASSERT_TRUE(succeeded(streamConnect(camera, viewer)));
	ASSERT_TRUE(nextEventIs(*viewer, StreamEventType::Connected));

	EXPECT_EQ(camera->present(7, 0).error().code(), ENOENT);
	EXPECT_EQ(camera->present(0, 0).error().code(), EPERM) << "not taken";
	auto packet = camera->getPacket();
	ASSERT_TRUE(succeeded(packet));
	const uint64_t unsignalled = camera->sync()->nextPoint();
	EXPECT_EQ(camera->present(packet->id, unsignalled).error().code(), EINVAL)
		<< "a point with no fence yet cannot be handed over";
	ASSERT_TRUE(succeeded(camera->sync()->signal(unsignalled)));
	ASSERT_TRUE(succeeded(camera->present(packet->id, unsignalled)));
	EXPECT_EQ(camera->present(packet->id, unsignalled).error().code(), EPERM) << "twice";

	EXPECT_EQ(viewer->release(9, 0).error().code(), ENOENT);
	EXPECT_EQ(viewer->release(packet->id, 0).error().code(), EPERM) << "not acquired";
	auto got = viewer->acquire();
	ASSERT_TRUE(succeeded(got));
	EXPECT_EQ(viewer->release(got->id, 5).error().code(), EINVAL) << "a point never made";
	ASSERT_TRUE(succeeded(viewer->release(got->id, 0)));
	EXPECT_EQ(viewer->release(got->id, 0).error().code(), EPERM) << "twice";
}

TEST_F(StreamTest, MailboxKeepsTheNewestAndGivesTheOthersBackWithTheProducersFence)
{
	auto camera = producer(3);
	auto display = consumer(StreamQueueKind::Mailbox, "display");
	ASSERT_TRUE(camera && display);
	ASSERT_TRUE(succeeded(streamConnect(camera, display)));
	ASSERT_TRUE(nextEventIs(*display, StreamEventType::Connected));
	ASSERT_TRUE(nextEventIs(*display, StreamEventType::SetupComplete));

	for (uint64_t frame = 1; frame <= 3; frame++)
		ASSERT_TRUE(produce(*camera, frame));
	EXPECT_EQ(display->packetsDropped(), 2u);
	EXPECT_EQ(display->pendingEvents(), 1u) << "one PacketReady for the one packet kept";
	ASSERT_TRUE(consume(*display, 3));
	EXPECT_EQ(display->acquire().error().code(), EAGAIN);

	/* Frames 1 and 2 came back unread, each with its own present fence. */
	std::vector<uint64_t> points;
	for (int i = 0; i < 3; i++) {
		auto packet = camera->getPacket();
		ASSERT_TRUE(succeeded(packet));
		ASSERT_EQ(packet->fences.size(), 1u);
		points.push_back(packet->fences[0].point());
	}
	EXPECT_EQ(points, (std::vector<uint64_t>{ 1, 2, 1 }))
		<< "producer points 1 and 2, then the display's release point 1";
}

TEST_F(StreamTest, MulticastReturnsAPacketOnceEveryConsumerReleasedItAndALimiterSkips)
{
	auto camera = producer(3);
	auto split = StreamMulticast::create(2);
	auto limiter = StreamLimiter::create(1);
	auto recorder = consumer(StreamQueueKind::Fifo, "recorder");
	auto preview = consumer(StreamQueueKind::Fifo, "preview");
	ASSERT_TRUE(camera && split && limiter && recorder && preview);
	ASSERT_TRUE(succeeded(streamConnect(*limiter, preview)));
	ASSERT_TRUE(succeeded(streamConnect(camera, *split)));
	ASSERT_TRUE(succeeded(streamConnect(*split, recorder)));
	EXPECT_EQ(camera->pendingEvents(), 0u) << "set-up waits for the second output";
	ASSERT_TRUE(succeeded(streamConnect(*split, *limiter)));
	EXPECT_EQ(streamConnect(*split, consumer(StreamQueueKind::Fifo, "third")).error().code(),
		EBUSY);
	ASSERT_TRUE(nextEventIs(*camera, StreamEventType::Connected));
	ASSERT_TRUE(nextEventIs(*recorder, StreamEventType::Connected));
	ASSERT_TRUE(nextEventIs(*preview, StreamEventType::Connected));

	/* Frame 1 goes to both; frame 2 skips the preview (limit 1). */
	ASSERT_TRUE(produce(*camera, 1));
	ASSERT_TRUE(produce(*camera, 2));
	EXPECT_EQ((*limiter)->packetsSkipped(), 1u);
	ASSERT_TRUE(consume(*recorder, 1));
	ASSERT_TRUE(consume(*recorder, 2));
	/* Frame 2 is back (recorder done, preview skipped); frame 1 is not. */
	auto back = camera->getPacket();
	ASSERT_TRUE(succeeded(back));
	auto third = camera->getPacket();
	ASSERT_TRUE(succeeded(third));
	EXPECT_EQ(camera->getPacket().error().code(), EAGAIN)
		<< "frame 1's packet is still the preview's";
	ASSERT_TRUE(consume(*preview, 1));
	auto first = camera->getPacket();
	ASSERT_TRUE(succeeded(first));
	/* The fences of both consumers came back with it. */
	EXPECT_EQ(first->fences.size(), 2u);
	EXPECT_TRUE(waitAll(first->fences));
}

TEST_F(StreamTest, AConflictingConsumerFailsSetUpNamingTheKey)
{
	auto camera = producer(2);
	auto viewer = consumer(StreamQueueKind::Fifo, "tall-viewer", 64);
	ASSERT_TRUE(camera && viewer);
	ASSERT_TRUE(succeeded(streamConnect(camera, viewer)));
	auto event = camera->queryEvent(kEventTimeout);
	ASSERT_TRUE(succeeded(event));
	EXPECT_EQ(event->type, StreamEventType::Error);
	EXPECT_EQ(event->error, EBADMSG);
	EXPECT_NE(event->message.find("Tensor.Dims must be equal"), std::string::npos)
		<< event->message;
	EXPECT_NE(event->message.find("tall-viewer"), std::string::npos) << event->message;
	ASSERT_TRUE(nextEventIs(*viewer, StreamEventType::Error));
	EXPECT_EQ(camera->getPacket().error().code(), ECANCELED);
	EXPECT_EQ(viewer->acquire().error().code(), ECANCELED);
}

TEST_F(StreamTest, ADynamicPoolGrowsToItsMaximumOnDemand)
{
	auto pool = StreamPool::createDynamic(*device_, 1, 3);
	ASSERT_TRUE(succeeded(pool));
	EXPECT_EQ(StreamPool::createDynamic(*device_, 4, 3).error().code(), EINVAL);
	EXPECT_EQ(StreamPool::createDynamic(*device_, 0, 3).error().code(), EINVAL)
		<< "a late consumer is checked against the first packet";
	EXPECT_EQ(StreamPool::createStatic(*device_, 65).error().code(), EINVAL);
	auto p = StreamProducer::create(*pool, cpuEndpoint("camera", Permission::ReadWrite));
	auto viewer = consumer(StreamQueueKind::Fifo, "viewer");
	ASSERT_TRUE(p && viewer);
	auto camera = *p;
	ASSERT_TRUE(succeeded(streamConnect(camera, viewer)));
	ASSERT_TRUE(nextEventIs(*viewer, StreamEventType::Connected));
	ASSERT_TRUE(nextEventIs(*viewer, StreamEventType::SetupComplete));
	for (uint64_t frame = 1; frame <= 3; frame++)
		ASSERT_TRUE(produce(*camera, frame));
	EXPECT_EQ(camera->getPacket().error().code(), EAGAIN) << "at its maximum";
	/* The viewer learnt the two packets made after set-up, before each present. */
	for (int i = 0; i < 2; i++) {
		EXPECT_TRUE(nextEventIs(*viewer, StreamEventType::PacketReady));
		EXPECT_TRUE(nextEventIs(*viewer, StreamEventType::PacketCreate));
	}
	for (uint64_t frame = 1; frame <= 3; frame++)
		ASSERT_TRUE(consume(*viewer, frame));
}

TEST_F(StreamTest, ALateConsumerGetsThePacketsOrAConflict)
{
	auto camera = producer(2);
	auto split = StreamMulticast::create(3);
	auto early = consumer(StreamQueueKind::Fifo, "early");
	ASSERT_TRUE(camera && split && early);
	ASSERT_TRUE(succeeded(streamConnect(camera, *split)));
	ASSERT_TRUE(succeeded(streamConnect(*split, early)));
	(*split)->finishConnecting();
	ASSERT_TRUE(nextEventIs(*early, StreamEventType::Connected));
	ASSERT_TRUE(produce(*camera, 1));
	ASSERT_TRUE(consume(*early, 1));

	auto late = consumer(StreamQueueKind::Fifo, "late");
	ASSERT_TRUE(succeeded(streamConnect(*split, late)));
	ASSERT_TRUE(nextEventIs(*late, StreamEventType::Connected));
	ASSERT_TRUE(nextEventIs(*late, StreamEventType::SetupComplete));
	EXPECT_EQ((*split)->activeOutputs(), 2u);
	ASSERT_TRUE(produce(*camera, 2));
	ASSERT_TRUE(consume(*early, 2));
	ASSERT_TRUE(consume(*late, 2));

	auto misfit = consumer(StreamQueueKind::Fifo, "misfit", 16);
	ASSERT_TRUE(succeeded(streamConnect(*split, misfit)));
	auto event = misfit->queryEvent(kEventTimeout);
	ASSERT_TRUE(succeeded(event));
	EXPECT_EQ(event->type, StreamEventType::Error);
	EXPECT_NE(event->message.find("misfit does not fit element 0"), std::string::npos)
		<< event->message;
	EXPECT_NE(event->message.find("Tensor.Dims"), std::string::npos) << event->message;
	ASSERT_TRUE(nextEventIs(*misfit, StreamEventType::Disconnected));
	EXPECT_EQ((*split)->activeOutputs(), 2u) << "the others go on";
	ASSERT_TRUE(produce(*camera, 3));
	ASSERT_TRUE(consume(*early, 3));
	ASSERT_TRUE(consume(*late, 3));
}

TEST_F(StreamTest, AConsumerThatLeavesGivesItsPacketsBack)
{
	auto camera = producer(2);
	auto split = StreamMulticast::create(2);
	auto stays = consumer(StreamQueueKind::Fifo, "stays");
	auto leaves = consumer(StreamQueueKind::Fifo, "leaves");
	ASSERT_TRUE(camera && split && stays && leaves);
	ASSERT_TRUE(succeeded(streamConnect(camera, *split)));
	ASSERT_TRUE(succeeded(streamConnect(*split, stays)));
	ASSERT_TRUE(succeeded(streamConnect(*split, leaves)));
	ASSERT_TRUE(nextEventIs(*leaves, StreamEventType::Connected));
	ASSERT_TRUE(produce(*camera, 1));
	ASSERT_TRUE(produce(*camera, 2));
	auto held = leaves->acquire();
	ASSERT_TRUE(succeeded(held));
	ASSERT_TRUE(consume(*stays, 1));
	ASSERT_TRUE(consume(*stays, 2));
	EXPECT_EQ(camera->getPacket().error().code(), EAGAIN);
	leaves.reset();
	EXPECT_EQ((*split)->activeOutputs(), 1u);
	for (uint64_t frame = 3; frame <= 6; frame++) {
		ASSERT_TRUE(produce(*camera, frame));
		ASSERT_TRUE(consume(*stays, frame));
	}
	stays.reset();
	EXPECT_EQ(camera->getPacket().error().code(), EPIPE) << "every consumer is gone";
	/* Then the stream has ended: a consumer connected now is told so. */
	auto late = consumer(StreamQueueKind::Fifo, "late");
	ASSERT_TRUE(late);
	ASSERT_TRUE(succeeded(streamConnect(*split, late)));
	ASSERT_TRUE(nextEventIs(*late, StreamEventType::Disconnected));
}

TEST_F(StreamTest, ConnectionsRefuseLoops)
{
	auto a = StreamLimiter::create(1);
	auto b = StreamLimiter::create(1);
	auto c = StreamMulticast::create(2);
	ASSERT_TRUE(a && b && c);
	ASSERT_TRUE(succeeded(streamConnect(*a, *b)));
	ASSERT_TRUE(succeeded(streamConnect(*b, *c)));
	EXPECT_EQ(streamConnect(*c, *a).error().code(), EINVAL);
	EXPECT_EQ(streamConnect(*c, *c).error().code(), EINVAL);
	auto camera = producer(1);
	ASSERT_TRUE(camera);
	EXPECT_EQ(streamConnect(*c, camera).error().code(), EINVAL) << "a producer starts a stream";
}

} /* namespace umd_test */
