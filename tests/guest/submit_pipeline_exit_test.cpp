/* SPDX-License-Identifier: MIT */
/*
 * What happens when processes that use a pipeline exit or are killed
 * (docs/ownership.md): the last reference other than the owner's runs the
 * exit action in the driver (channels stopped with their jobs cancelled,
 * attributes reset, the owner told) and not before; a killed client leaves
 * nothing behind; the owner killed tears the pipeline down and the others
 * are told and fail cleanly; racing threads and kills leave no trace.
 */
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "pipeline_env.h"
#include "submit_test.h"

namespace guest {
namespace {

constexpr PipelineParams kParams = { 1, 2, 3, 4, 5, 6, 7, 8 };
constexpr ChannelAttrs kAttrs = { 7, 8, 9, 0, 0, 0, 0, 0 };
constexpr uint32_t kAllActions = DRM_VDLA_PIPELINE_EXIT_STOP_CHANNELS |
				 DRM_VDLA_PIPELINE_EXIT_RESET_ATTRS | DRM_VDLA_PIPELINE_EXIT_NOTIFY;

class PipelineExitTest : public SubmitTest
{
protected:
	void SetUp() override
	{
		SubmitTest::SetUp();
		if (HasFatalFailure())
			return;
		baseline_ = objectCounts(node_.index());
	}

	std::string debugfs() const
	{
		std::string text;
		readFile(debugfsPath(node_.index(), "pipelines"), &text);
		return text;
	}

	/* A child that opens the pipeline and does @use with its node and handle, then waits. */
	pid_t client(const std::function<int(int fd, uint32_t handle)> &use)
	{
		std::string path = paths_[0], name = name_;
		return forkReadyChild([=](const std::function<void()> &ready) -> int {
			Node node(path);
			uint32_t handle;
			if (pipelineOpen(node.fd(), name, &handle))
				return 2;
			int ret = use(node.fd(), handle);
			if (ret)
				return ret;
			ready();
			return 0;
		});
	}

	/* The test's name, cut to the longest a pipeline's may be. */
	std::string name_ = (std::string("exit-") +
			     ::testing::UnitTest::GetInstance()->current_test_info()->name())
				    .substr(0, DRM_VDLA_PIPELINE_NAME_LEN - 1);
	std::map<std::string, long> baseline_;
};

TEST_F(PipelineExitTest, TheLastOtherReferenceGoingRunsTheExitAction)
{
	FaultInjection faults(node_.index());
	ASSERT_EQ(faults.set("bdma", "delay", 0, 20000), 0);
	uint32_t pipeline, channel;
	ASSERT_EQ(pipelineCreate(fd(), name_, kParams, &pipeline), 0);
	Ctx work(fd());
	ASSERT_EQ(channelCreate(fd(), pipeline, work.id(), kAttrs, &channel), 0);
	ASSERT_EQ(pipelineSetExit(fd(), pipeline, kAllActions, 0xfeed), 0);

	/* Application 1 sets an attribute and exits; application 2 holds a duplicate. */
	pid_t app1 = client([channel](int fd, uint32_t handle) {
		uint64_t value = 100;
		return channelAttr(fd, handle, channel, DRM_VDLA_CHANNEL_ATTR_OP_SET, 0, &value) ? 3 : 0;
	});
	ASSERT_GT(app1, 0);
	pid_t app2 = client([channel](int fd, uint32_t handle) {
		return channelDup(fd, handle, channel) ? 3 : 0;
	});
	ASSERT_GT(app2, 0);
	drm_vdla_pipeline_query q;
	ASSERT_EQ(pipelineQuery(fd(), pipeline, &q), 0);
	EXPECT_EQ(q.references, 2u);
	EXPECT_EQ(q.exit_actions, kAllActions);
	EXPECT_NE(debugfs().find("dup_pid " + std::to_string(app2)), std::string::npos) << debugfs();

	::kill(app1, SIGTERM);
	EXPECT_EQ(waitChild(app1), 128 + SIGTERM);
	EXPECT_TRUE(readPipelineEvents(fd(), 300).empty()) << "the exit action ran with a user left";
	ASSERT_EQ(pipelineQuery(fd(), pipeline, &q), 0);
	EXPECT_EQ(q.references, 1u);
	EXPECT_EQ(q.exit_runs, 0u);
	EXPECT_EQ(channelAttribute(fd(), pipeline, channel, 0), 100u) << "app 1's leaving changed it";
	EXPECT_EQ(channelState(fd(), pipeline, channel), uint32_t(DRM_VDLA_CHANNEL_STATE_STARTED));

	/* The channel's work queued when application 2 is killed. */
	ChainJob first(fd(), 4, 1), second(fd(), 4, 2);
	Syncobj d1(fd()), d2(fd());
	ASSERT_EQ(submit(fd(), first.submission(work.id(), d1.sync())), 0);
	ASSERT_EQ(submit(fd(), second.submission(work.id(), d2.sync())), 0);
	ASSERT_TRUE(waitUntil([&] { return readState(node_.index())["running"] == 1; }, 5000));
	::kill(app2, SIGKILL);
	EXPECT_EQ(waitChild(app2), 128 + SIGKILL);

	drm_vdla_event_pipeline idle;
	ASSERT_TRUE(waitPipelineEvent(fd(), DRM_VDLA_EVENT_PIPELINE_IDLE, 5000, &idle));
	EXPECT_EQ(idle.handle, pipeline);
	EXPECT_EQ(idle.pid, app2) << "the last user is named";
	EXPECT_EQ(idle.actions, kAllActions);
	EXPECT_EQ(idle.user_data, 0xfeedu);
	ASSERT_EQ(pipelineQuery(fd(), pipeline, &q), 0);
	EXPECT_EQ(q.references, 0u);
	EXPECT_EQ(q.exit_runs, 1u);
	EXPECT_EQ(channelAttribute(fd(), pipeline, channel, 0), 7u) << "attributes not reset";
	EXPECT_EQ(channelState(fd(), pipeline, channel), uint32_t(DRM_VDLA_CHANNEL_STATE_STOPPED));
	EXPECT_TRUE(fenceSucceeds(d1)) << "the running job was cut short";
	EXPECT_TRUE(fenceFails(d2, ECANCELED)) << "the stopped channel's queued job ran";
	EXPECT_NE(debugfs().find("dup_pid " + std::to_string(app2) + " (destroyed)"),
		  std::string::npos)
		<< "the killed process's duplicate is still listed as held: " << debugfs();

	/* The next time round the action runs again, and is told again. */
	pid_t app3 = client([](int, uint32_t) { return 0; });
	ASSERT_GT(app3, 0);
	::kill(app3, SIGKILL);
	EXPECT_EQ(waitChild(app3), 128 + SIGKILL);
	ASSERT_TRUE(waitPipelineEvent(fd(), DRM_VDLA_EVENT_PIPELINE_IDLE, 5000, &idle));
	EXPECT_EQ(idle.pid, app3);
	ASSERT_EQ(pipelineQuery(fd(), pipeline, &q), 0);
	EXPECT_EQ(q.exit_runs, 2u);

	/* Without NOTIFY the driver acts and sends nothing. */
	ASSERT_EQ(pipelineSetExit(fd(), pipeline, DRM_VDLA_PIPELINE_EXIT_RESET_ATTRS), 0);
	uint32_t ref;
	Node other(paths_[0]);
	ASSERT_EQ(pipelineOpen(other.fd(), name_, &ref), 0);
	uint64_t value = 55;
	ASSERT_EQ(channelAttr(other.fd(), ref, channel, DRM_VDLA_CHANNEL_ATTR_OP_SET, 1, &value), 0);
	other.close();
	EXPECT_TRUE(readPipelineEvents(fd(), 200).empty());
	EXPECT_EQ(channelAttribute(fd(), pipeline, channel, 1), 8u);
	ASSERT_EQ(pipelineQuery(fd(), pipeline, &q), 0);
	EXPECT_EQ(q.exit_runs, 3u);
}

TEST_F(PipelineExitTest, AKilledClientLeavesNothingBehind)
{
	uint32_t pipeline, channel;
	ASSERT_EQ(pipelineCreate(fd(), name_, kParams, &pipeline), 0);
	ASSERT_EQ(channelCreate(fd(), pipeline, 0, kAttrs, &channel), 0);
	Bo frame(fd(), 4096);
	ASSERT_EQ(portAttach(fd(), pipeline, channel, 0, frame.handle()), 0);
	auto held = objectCounts(node_.index());

	/* It holds a reference, a duplicate, a buffer, a channel of its own and queued work. */
	pid_t app = client([channel](int fd, uint32_t handle) {
		uint32_t buffer, index, own;
		if (channelDup(fd, handle, channel) ||
		    portTake(fd, handle, channel, 0, &buffer, &index) ||
		    channelCreate(fd, handle, 0, kAttrs, &own))
			return 3;
		return 0;
	});
	ASSERT_GT(app, 0);
	std::string listed = debugfs();
	EXPECT_NE(listed.find("reference pid " + std::to_string(app)), std::string::npos) << listed;
	EXPECT_NE(listed.find("owner_pid " + std::to_string(app)), std::string::npos) << listed;
	EXPECT_NE(listed.find("taken 1"), std::string::npos) << listed;
	::kill(app, SIGKILL);
	EXPECT_EQ(waitChild(app), 128 + SIGKILL);

	EXPECT_TRUE(countsReturnTo(node_.index(), held, 5000)) << "the killed client left something";
	listed = debugfs();
	EXPECT_EQ(listed.find("reference pid"), std::string::npos) << listed;
	EXPECT_NE(listed.find("references 0 channels 1"), std::string::npos) << listed;
	EXPECT_NE(listed.find("taken 0"), std::string::npos) << listed;
	Node other(paths_[0]);
	uint32_t ref, buffer, index;
	ASSERT_EQ(pipelineOpen(other.fd(), name_, &ref), 0);
	EXPECT_EQ(portTake(other.fd(), ref, channel, 0, &buffer, &index), 0) << "not returned";
	EXPECT_EQ(channelDup(other.fd(), ref, channel), EEXIST) << "a channel is duplicated once, ever";
}

TEST_F(PipelineExitTest, TheOwnerKilledTearsThePipelineDown)
{
	std::string path = paths_[0], name = name_;
	pid_t owner = forkReadyChild([=](const std::function<void()> &ready) -> int {
		Node node(path);
		uint32_t pipeline, channel;
		if (pipelineCreate(node.fd(), name, kParams, &pipeline) ||
		    channelCreate(node.fd(), pipeline, 0, kAttrs, &channel) ||
		    pipelineSetExit(node.fd(), pipeline, kAllActions))
			return 2;
		Bo frame(node.fd(), 4096);
		frame.fill(0x33);
		if (portAttach(node.fd(), pipeline, channel, 0, frame.handle(), DRM_VDLA_PORT_READ_ONLY))
			return 3;
		ready();
		return 0;
	});
	ASSERT_GT(owner, 0);
	uint32_t ref, buffer, index;
	ASSERT_EQ(pipelineOpen(fd(), name_, &ref), 0);
	drm_vdla_pipeline_query q;
	ASSERT_EQ(pipelineQuery(fd(), ref, &q), 0);
	EXPECT_EQ(q.owner.pid, owner);
	EXPECT_EQ(q.channels, 1u);
	ASSERT_EQ(channelDup(fd(), ref, 1), 0);
	ASSERT_EQ(portTake(fd(), ref, 1, 0, &buffer, &index), 0);
	EXPECT_NE(debugfs().find("owner_pid " + std::to_string(owner)), std::string::npos);

	::kill(owner, SIGKILL);
	EXPECT_EQ(waitChild(owner), 128 + SIGKILL);
	drm_vdla_event_pipeline gone;
	ASSERT_TRUE(waitPipelineEvent(fd(), DRM_VDLA_EVENT_PIPELINE_GONE, 5000, &gone));
	EXPECT_EQ(gone.handle, ref);
	ASSERT_EQ(pipelineQuery(fd(), ref, &q), 0);
	EXPECT_EQ(q.state, uint32_t(DRM_VDLA_PIPELINE_STATE_GONE));
	EXPECT_EQ(q.owner.pid, owner) << "who it was stays known";
	EXPECT_EQ(channelAttr(fd(), ref, 1, DRM_VDLA_CHANNEL_ATTR_OP_GET), ECANCELED);
	EXPECT_EQ(channelDestroy(fd(), ref, 1), ECANCELED);
	EXPECT_EQ(portReturn(fd(), ref, 1, 0, index), ECANCELED);
	EXPECT_EQ(pipelineDestroy(fd(), ref), EPERM) << "a holder destroyed the owner's pipeline";

	/* The buffer it took stays readable: its handle holds the BO. */
	drm_vdla_bo_info info;
	ASSERT_EQ(boInfo(fd(), buffer, &info), 0);
	void *cpu = ::mmap(nullptr, info.size, PROT_READ, MAP_SHARED, fd(), info.mmap_offset);
	ASSERT_NE(cpu, MAP_FAILED);
	EXPECT_EQ(static_cast<uint8_t *>(cpu)[100], 0x33);
	::munmap(cpu, info.size);
	EXPECT_EQ(gemClose(fd(), buffer), 0);
	EXPECT_EQ(debugfs().find(name_), std::string::npos) << debugfs();

	/* A restarted owner creates it again; the old handle is only closed. */
	Node restarted(paths_[0]);
	uint32_t again;
	EXPECT_EQ(pipelineCreate(restarted.fd(), name_, kParams, &again), 0);
	EXPECT_EQ(pipelineClose(fd(), ref), 0);
	EXPECT_EQ(pipelineQuery(fd(), ref, &q), ENOENT);
	restarted.close();
	EXPECT_TRUE(countsReturnTo(node_.index(), baseline_, 5000));
}

TEST_F(PipelineExitTest, RacingThreadsAndKillsLeaveNoTrace)
{
	uint32_t pipeline;
	ASSERT_EQ(pipelineCreate(fd(), name_, kParams, &pipeline), 0);
	ASSERT_EQ(pipelineSetExit(fd(), pipeline, kAllActions), 0);
	std::vector<Node> nodes;
	for (int i = 0; i < 3; i++)
		nodes.emplace_back(paths_[0]);
	std::vector<Bo> frames;
	for (int i = 0; i < 4; i++)
		frames.emplace_back(fd(), 4096);
	std::atomic<bool> stop{ false };
	std::atomic<unsigned> unexpected{ 0 };
	auto expected = [&](int ret, std::initializer_list<int> allowed) {
		for (int a : allowed)
			if (ret == a)
				return;
		unexpected++;
		std::fprintf(stderr, "unexpected errno %d\n", ret);
	};
	auto hammer = [&](int which, unsigned seed) {
		std::mt19937 rng(seed);
		int node = which < 0 ? fd() : nodes[which].fd();
		uint32_t handle = which < 0 ? pipeline : 0;
		for (unsigned i = 0; i < 400 && !stop; i++) {
			uint32_t channel = 1 + rng() % 6, id, index;
			uint64_t value = rng();
			switch (rng() % 9) {
			case 0:
				if (which >= 0)
					expected(pipelineOpen(node, name_, &id), { 0, EEXIST });
				if (which >= 0 && !handle)
					handle = id;
				break;
			case 1:
				if (which >= 0)
					expected(pipelineClose(node, handle), { 0, ENOENT });
				if (which >= 0)
					handle = 0;
				break;
			case 2:
				expected(channelCreate(node, handle, 0, kAttrs, &id), { 0, ENOENT, EAGAIN });
				break;
			case 3:
				expected(channelDup(node, handle, channel), { 0, ENOENT, EEXIST });
				break;
			case 4:
				expected(channelDestroy(node, handle, channel), { 0, ENOENT, EPERM });
				break;
			case 5:
				expected(channelAttr(node, handle, channel, rng() % 4, 0, &value),
					 { 0, ENOENT });
				break;
			case 6:
				if (which < 0)
					expected(portAttach(node, handle, channel, 0,
							    frames[rng() % frames.size()].handle()),
						 { 0, ENOENT, EEXIST, EAGAIN, EPERM });
				break;
			case 7:
				expected(portTake(node, handle, channel, 0, &id, &index),
					 { 0, ENOENT, EAGAIN, EBUSY });
				break;
			case 8:
				expected(portReturn(node, handle, channel, 0, rng() % 8),
					 { 0, ENOENT, EPERM });
				break;
			}
		}
	};
	std::vector<std::thread> threads;
	threads.emplace_back(hammer, -1, 1);
	for (int i = 0; i < 3; i++)
		threads.emplace_back(hammer, i, 10 + i);
	/* Meanwhile processes open it, take and duplicate, and are killed at any moment. */
	std::string path = paths_[0], name = name_;
	for (int round = 0; round < 6; round++) {
		pid_t pid = forkChild([=]() -> int {
			Node node(path);
			uint32_t handle, id, index;
			for (unsigned i = 0;; i++) {
				pipelineOpen(node.fd(), name, &handle);
				channelDup(node.fd(), handle, 1 + i % 6);
				portTake(node.fd(), handle, 1 + i % 6, 0, &id, &index);
				channelCreate(node.fd(), handle, 0, kAttrs, &id);
				if (i % 3 == 0)
					pipelineClose(node.fd(), handle);
			}
			return 0;
		});
		::usleep(20000 + 15000 * round);
		::kill(pid, SIGKILL);
		EXPECT_EQ(waitChild(pid), 128 + SIGKILL);
	}
	for (auto &t : threads)
		t.join();
	EXPECT_EQ(unexpected.load(), 0u);
	nodes.clear();
	frames.clear();
	drm_vdla_pipeline_query q;
	ASSERT_EQ(pipelineQuery(fd(), pipeline, &q), 0);
	EXPECT_EQ(q.references, 0u);
	EXPECT_EQ(pipelineDestroy(fd(), pipeline), 0);
	EXPECT_TRUE(countsReturnTo(node_.index(), baseline_, 5000));
	EXPECT_EQ(debugfs().find(name_), std::string::npos) << debugfs();
}

} /* namespace */
} /* namespace guest */
