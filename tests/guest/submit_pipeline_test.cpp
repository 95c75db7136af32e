/* SPDX-License-Identifier: MIT */
/*
 * Pipelines, channels and ports (docs/ownership.md): the ownership rules
 * of each, with several files and processes. A privileged file creates a
 * pipeline and owns it; others open it by name with the creator's
 * parameters; only the owner destroys it (EPERM, naming the owner), not
 * while others hold references (EBUSY) unless forced (they get GONE and
 * ECANCELED). A channel is duplicated into one other file, once ever
 * (EEXIST); each destroys its own handle and the channel lives until both
 * are gone. Port buffers are returned by the file that took them.
 */
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "pipeline_env.h"
#include "submit_test.h"

namespace guest {

/* The kernel's name of this process (its comm), as the driver reports owners. */
std::string ownComm()
{
	std::ifstream in("/proc/self/comm");
	std::string comm;
	std::getline(in, comm);
	return comm;
}

namespace {

constexpr PipelineParams kParams = { 640, 480, 30, 1, 0, 0, 0, 0 };
constexpr ChannelAttrs kAttrs = { 7, 8, 9, 0, 0, 0, 0, 0 };

class PipelineTest : public SubmitTest
{
protected:
	void SetUp() override
	{
		SubmitTest::SetUp();
		if (HasFatalFailure())
			return;
		other_ = Node(paths_[0]);
		ASSERT_TRUE(other_.valid());
		ASSERT_EQ(pipelineCreate(fd(), name_, kParams, &pipeline_), 0);
	}

	int otherFd() const { return other_.fd(); }

	/* The test's name, cut to the longest a pipeline's may be. */
	std::string name_ = (std::string("test-") +
			     ::testing::UnitTest::GetInstance()->current_test_info()->name())
				    .substr(0, DRM_VDLA_PIPELINE_NAME_LEN - 1);
	uint32_t pipeline_ = 0;
	Node other_;
};

TEST_F(PipelineTest, CreatingNeedsCapSysAdminOrTheConfiguredGroup)
{
	int node = fd();
	auto create = [node](const char *name) {
		return [node, name] {
			uint32_t handle;
			return pipelineCreate(node, name, kParams, &handle);
		};
	};
	EXPECT_EQ(asNobody(create("unprivileged")), EACCES);
	{
		ParamOverride group("pipeline_group", "65534");
		ASSERT_EQ(group.error(), 0);
		EXPECT_EQ(asNobody(create("by-the-group")), 0) << "a member of the group may create";
	}
	EXPECT_EQ(asNobody(create("group-gone")), EACCES);
	{
		/*
		 * The group is a gid of the initial user namespace: mapping a gid
		 * of one's own namespace onto one's own gid does not make one a
		 * member.
		 */
		ParamOverride group("pipeline_group", "65533");
		ASSERT_EQ(group.error(), 0);
		EXPECT_EQ(asNobody([node] {
			/* Dumpable again after the change of credentials, or /proc/self is root's. */
			if (::prctl(PR_SET_DUMPABLE, 1) || ::unshare(CLONE_NEWUSER))
				return 200;
			if (writeFile("/proc/self/setgroups", "deny") ||
			    writeFile("/proc/self/gid_map", "65533 65534 1"))
				return 201;
			uint32_t handle;
			return pipelineCreate(node, "from-a-user-namespace", kParams, &handle);
		}),
			  EACCES);
	}

	/* Names are 1 to 31 visible characters; one is taken once. */
	uint32_t handle;
	for (const char *bad : { "", "with space", "tab\tin", "\x7f" })
		EXPECT_EQ(pipelineCreate(fd(), bad, kParams, &handle), EINVAL) << bad;
	drm_vdla_pipeline_create unterminated = {};
	std::memset(unterminated.name, 'x', sizeof(unterminated.name));
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_PIPELINE_CREATE, &unterminated), EINVAL);
	drm_vdla_owner who = {};
	EXPECT_EQ(pipelineCreate(otherFd(), name_, kParams, &handle, &who), EEXIST);
	EXPECT_EQ(who.pid, ::getpid()) << "the name's owner is reported";
	EXPECT_EQ(std::string(who.comm), ownComm());
}

TEST_F(PipelineTest, OpenReturnsTheCreatorsParameters)
{
	drm_vdla_pipeline_open mine = {};
	mine.params[0] = 1920;
	ASSERT_EQ(pipelineOpen(otherFd(), name_, &mine), 0);
	EXPECT_EQ(mine.params_differ, 1u);
	EXPECT_EQ(mine.params[0], 640u) << "the creator's parameters come back";
	EXPECT_EQ(mine.params[2], 30u);
	EXPECT_EQ(mine.owner.pid, ::getpid());
	drm_vdla_pipeline_query q;
	ASSERT_EQ(pipelineQuery(fd(), pipeline_, &q), 0);
	EXPECT_EQ(q.references, 1u);
	EXPECT_EQ(q.is_owner, 1u);
	EXPECT_EQ(q.state, uint32_t(DRM_VDLA_PIPELINE_STATE_LIVE));

	/* One handle per file; the owner has its own. */
	drm_vdla_pipeline_open again = {};
	EXPECT_EQ(pipelineOpen(otherFd(), name_, &again), EEXIST);
	drm_vdla_pipeline_open own = {};
	EXPECT_EQ(pipelineOpen(fd(), name_, &own), EEXIST);
	uint32_t none;
	EXPECT_EQ(pipelineOpen(fd(), "no-such-pipeline", &none), ENOENT);

	/* EXACT refuses other parameters and opens nothing. */
	Node third(paths_[0]);
	drm_vdla_pipeline_open exact = {};
	exact.flags = DRM_VDLA_PIPELINE_OPEN_EXACT;
	exact.params[0] = 1920;
	EXPECT_EQ(pipelineOpen(third.fd(), name_, &exact), EEXIST);
	EXPECT_EQ(exact.params_differ, 1u);
	ASSERT_EQ(pipelineQuery(fd(), pipeline_, &q), 0);
	EXPECT_EQ(q.references, 1u) << "a refused EXACT open took a reference";
	exact = {};
	exact.flags = DRM_VDLA_PIPELINE_OPEN_EXACT;
	std::memcpy(exact.params, kParams.data(), sizeof(exact.params));
	EXPECT_EQ(pipelineOpen(third.fd(), name_, &exact), 0);
	EXPECT_EQ(exact.params_differ, 0u);
	ASSERT_EQ(pipelineQuery(fd(), pipeline_, &q), 0);
	EXPECT_EQ(q.references, 2u);
	EXPECT_EQ(pipelineClose(third.fd(), exact.handle), 0);
	EXPECT_EQ(pipelineQuery(third.fd(), exact.handle, &q), ENOENT) << "the handle is gone";
}

TEST_F(PipelineTest, HandlesArePerFile)
{
	drm_vdla_pipeline_query q;
	EXPECT_EQ(pipelineQuery(otherFd(), pipeline_, &q), ENOENT)
		<< "another file's handle is not in this file's namespace";
	EXPECT_EQ(pipelineDestroy(otherFd(), pipeline_), ENOENT);
	uint32_t id;
	EXPECT_EQ(channelCreate(otherFd(), pipeline_, 0, kAttrs, &id), ENOENT);
	EXPECT_EQ(pipelineClose(fd(), pipeline_), EINVAL) << "the owner destroys, it does not close";
	EXPECT_EQ(pipelineClose(fd(), 0), ENOENT);
	EXPECT_EQ(pipelineClose(fd(), 0xffffffffu), ENOENT);

	/* Flags and pads that are not zero change nothing. */
	drm_vdla_pipeline_destroy destroy = {};
	EXPECT_EQ(pipelineDestroy(fd(), pipeline_, 0x80, &destroy), EINVAL);
	drm_vdla_pipeline_open open = {};
	open.flags = 0x2;
	EXPECT_EQ(pipelineOpen(otherFd(), name_, &open), EINVAL);
	open = {};
	open.pad = 1;
	EXPECT_EQ(pipelineOpen(otherFd(), name_, &open), EINVAL);
	EXPECT_EQ(pipelineSetExit(fd(), pipeline_, 0x100), EINVAL);
	ASSERT_EQ(pipelineQuery(fd(), pipeline_, &q), 0);
	EXPECT_EQ(q.references, 0u);
	EXPECT_EQ(q.exit_actions, 0u);
}

TEST_F(PipelineTest, OnlyTheOwnerDestroysAndNotWhileOthersHoldIt)
{
	uint32_t ref;
	ASSERT_EQ(pipelineOpen(otherFd(), name_, &ref), 0);
	pid_t parent = ::getpid();
	std::string path = paths_[0];
	std::string name = name_;
	/* Another process with a reference cannot destroy it, and is told whose it is. */
	pid_t child = forkChild([&]() -> int {
		Node node(path);
		uint32_t handle;
		if (pipelineOpen(node.fd(), name, &handle))
			return 2;
		drm_vdla_pipeline_destroy out = {};
		if (pipelineDestroy(node.fd(), handle, DRM_VDLA_PIPELINE_DESTROY_FORCE, &out) != EPERM)
			return 3;
		if (out.owner.pid != parent)
			return 4;
		drm_vdla_owner who = {};
		if (pipelineSetExit(node.fd(), handle, 0, 0, &who) != EPERM || who.pid != parent)
			return 5;
		return 0;
	});
	EXPECT_EQ(waitChild(child), 0);

	drm_vdla_pipeline_destroy out = {};
	EXPECT_EQ(pipelineDestroy(fd(), pipeline_, 0, &out), EBUSY);
	EXPECT_EQ(out.references, 1u) << "the child's reference went with it";
	drm_vdla_pipeline_query q;
	ASSERT_EQ(pipelineQuery(fd(), pipeline_, &q), 0);
	EXPECT_EQ(q.state, uint32_t(DRM_VDLA_PIPELINE_STATE_LIVE)) << "EBUSY changed something";

	uint32_t channel;
	ASSERT_EQ(channelCreate(fd(), pipeline_, 0, kAttrs, &channel), 0);
	EXPECT_EQ(pipelineDestroy(fd(), pipeline_, DRM_VDLA_PIPELINE_DESTROY_FORCE), 0);
	drm_vdla_event_pipeline gone;
	ASSERT_TRUE(waitPipelineEvent(otherFd(), DRM_VDLA_EVENT_PIPELINE_GONE, 5000, &gone));
	EXPECT_EQ(gone.handle, ref);
	/* The holder's handle stays until it closes it, and fails cleanly. */
	ASSERT_EQ(pipelineQuery(otherFd(), ref, &q), 0);
	EXPECT_EQ(q.state, uint32_t(DRM_VDLA_PIPELINE_STATE_GONE));
	EXPECT_EQ(channelState(otherFd(), ref, channel), 0u);
	EXPECT_EQ(channelAttr(otherFd(), ref, channel, DRM_VDLA_CHANNEL_ATTR_OP_GET), ECANCELED);
	EXPECT_EQ(channelCreate(otherFd(), ref, 0, kAttrs, &channel), ECANCELED);
	EXPECT_EQ(pipelineQuery(fd(), pipeline_, &q), ENOENT) << "the owner's handle is gone";
	/* The name is free at once: a restarted owner creates it again. */
	uint32_t again;
	EXPECT_EQ(pipelineCreate(fd(), name_, kParams, &again), 0);
	uint32_t fresh;
	EXPECT_EQ(pipelineOpen(otherFd(), name_, &fresh), 0) << "the old handle does not hold the name";
	EXPECT_EQ(pipelineClose(otherFd(), ref), 0);
	EXPECT_EQ(pipelineClose(otherFd(), fresh), 0);
	EXPECT_EQ(pipelineDestroy(fd(), again), 0) << "no reference left";
}

TEST_F(PipelineTest, AChannelIsDuplicatedOnceAndLivesUntilBothHandlesGo)
{
	Node third(paths_[0]);
	uint32_t ref1, ref2, ref3;
	ASSERT_EQ(pipelineOpen(otherFd(), name_, &ref1), 0);
	ASSERT_EQ(pipelineOpen(third.fd(), name_, &ref2), 0);
	uint32_t channel;
	ASSERT_EQ(channelCreate(fd(), pipeline_, 0, kAttrs, &channel), 0);
	EXPECT_NE(channel, 0u);

	drm_vdla_owner who = {};
	EXPECT_EQ(channelDup(fd(), pipeline_, channel, &who), EEXIST) << "the owner holds it already";
	EXPECT_EQ(channelDestroy(otherFd(), ref1, channel, &who), EPERM)
		<< "destroyed another file's channel";
	EXPECT_EQ(who.pid, ::getpid());
	EXPECT_EQ(channelDup(otherFd(), ref1, channel), 0);
	who = {};
	EXPECT_EQ(channelDup(third.fd(), ref2, channel, &who), EEXIST) << "a second duplicate";
	EXPECT_EQ(who.pid, ::getpid()) << "who holds the duplicate is reported";
	EXPECT_EQ(channelDestroy(third.fd(), ref2, channel), EPERM);
	EXPECT_EQ(channelDup(otherFd(), ref1, 999), ENOENT);

	/* The owner's handle goes: the duplicate keeps the channel. */
	EXPECT_EQ(channelDestroy(fd(), pipeline_, channel), 0);
	EXPECT_EQ(channelDestroy(fd(), pipeline_, channel), EPERM) << "destroyed its handle twice";
	EXPECT_EQ(channelAttribute(third.fd(), ref2, channel, 1), 8u);
	drm_vdla_pipeline_query q;
	ASSERT_EQ(pipelineQuery(fd(), pipeline_, &q), 0);
	EXPECT_EQ(q.channels, 1u);
	EXPECT_EQ(channelDestroy(otherFd(), ref1, channel), 0);
	EXPECT_EQ(channelAttribute(third.fd(), ref2, channel, 1), ~0ull) << "outlived both handles";
	ASSERT_EQ(pipelineQuery(fd(), pipeline_, &q), 0);
	EXPECT_EQ(q.channels, 0u);

	/* Once ever: a duplicate destroyed does not let another be made. */
	ASSERT_EQ(channelCreate(fd(), pipeline_, 0, kAttrs, &channel), 0);
	ASSERT_EQ(channelDup(otherFd(), ref1, channel), 0);
	ASSERT_EQ(channelDestroy(otherFd(), ref1, channel), 0);
	EXPECT_EQ(channelDup(third.fd(), ref2, channel), EEXIST);
	EXPECT_EQ(channelAttribute(third.fd(), ref2, channel, 0), 7u) << "the owner's handle keeps it";

	/* Closing a reference destroys the file's duplicate with it. */
	uint32_t second;
	ASSERT_EQ(channelCreate(fd(), pipeline_, 0, kAttrs, &second), 0);
	Node fourth(paths_[0]);
	ASSERT_EQ(pipelineOpen(fourth.fd(), name_, &ref3), 0);
	ASSERT_EQ(channelDup(fourth.fd(), ref3, second), 0);
	ASSERT_EQ(channelDestroy(fd(), pipeline_, second), 0);
	ASSERT_EQ(pipelineClose(fourth.fd(), ref3), 0);
	EXPECT_EQ(channelAttribute(third.fd(), ref2, second, 0), ~0ull);
}

TEST_F(PipelineTest, AnyHolderSetsAttributesAndStopsAChannel)
{
	uint32_t ref;
	ASSERT_EQ(pipelineOpen(otherFd(), name_, &ref), 0);
	FaultInjection faults(node_.index());
	ASSERT_EQ(faults.set("bdma", "delay", 0, 20000), 0);
	Ctx work(fd());
	uint32_t channel;
	ASSERT_EQ(channelCreate(fd(), pipeline_, work.id(), kAttrs, &channel), 0);
	EXPECT_EQ(channelCreate(fd(), pipeline_, 12345, kAttrs, &channel), ENOENT) << "no such context";

	uint64_t value = 42;
	EXPECT_EQ(channelAttr(otherFd(), ref, channel, DRM_VDLA_CHANNEL_ATTR_OP_SET, 3, &value), 0);
	EXPECT_EQ(channelAttribute(fd(), pipeline_, channel, 3), 42u);
	EXPECT_EQ(channelAttr(otherFd(), ref, channel, DRM_VDLA_CHANNEL_ATTR_OP_SET,
			      DRM_VDLA_CHANNEL_ATTRS, &value),
		  EINVAL);
	EXPECT_EQ(channelAttr(otherFd(), ref, channel, 9), EINVAL) << "an unknown op";
	EXPECT_EQ(channelAttr(otherFd(), ref, channel, DRM_VDLA_CHANNEL_ATTR_OP_STOP, 1), EINVAL);
	EXPECT_EQ(channelState(otherFd(), ref, channel), uint32_t(DRM_VDLA_CHANNEL_STATE_STARTED));

	/* Stopping it cancels the jobs of its context that have not started. */
	ChainJob first(fd(), 4, 1), second(fd(), 4, 2), third(fd(), 4, 3);
	Syncobj d1(fd()), d2(fd()), d3(fd());
	ASSERT_EQ(submit(fd(), first.submission(work.id(), d1.sync())), 0);
	ASSERT_EQ(submit(fd(), second.submission(work.id(), d2.sync())), 0);
	ASSERT_EQ(submit(fd(), third.submission(work.id(), d3.sync())), 0);
	ASSERT_TRUE(waitUntil([&] { return readState(node_.index())["running"] == 1; }, 5000));
	uint32_t state = 0;
	EXPECT_EQ(channelAttr(otherFd(), ref, channel, DRM_VDLA_CHANNEL_ATTR_OP_STOP, 0, nullptr,
			      &state),
		  0);
	EXPECT_EQ(state, uint32_t(DRM_VDLA_CHANNEL_STATE_STOPPED));
	EXPECT_EQ(channelAttr(otherFd(), ref, channel, DRM_VDLA_CHANNEL_ATTR_OP_START, 0, nullptr,
			      &state),
		  0);
	EXPECT_EQ(state, uint32_t(DRM_VDLA_CHANNEL_STATE_STARTED));
	/* Started again while the first job still runs: a job submitted now runs. */
	ChainJob later(fd(), 1, 4);
	Syncobj d4(fd());
	ASSERT_EQ(submit(fd(), later.submission(work.id(), d4.sync())), 0);
	EXPECT_FALSE(d1.signalled()) << "the test is too slow to submit behind the running job";
	EXPECT_TRUE(fenceSucceeds(d1)) << "the running job was cut short";
	EXPECT_TRUE(first.check());
	EXPECT_TRUE(fenceFails(d2, ECANCELED));
	EXPECT_TRUE(fenceFails(d3, ECANCELED));
	EXPECT_TRUE(fenceSucceeds(d4)) << "the stop cancelled a job submitted after it";
	EXPECT_TRUE(later.check());
}

TEST_F(PipelineTest, APortBufferIsReturnedByTheFileThatTookIt)
{
	uint32_t ref;
	ASSERT_EQ(pipelineOpen(otherFd(), name_, &ref), 0);
	Node third(paths_[0]);
	uint32_t ref3;
	ASSERT_EQ(pipelineOpen(third.fd(), name_, &ref3), 0);
	uint32_t channel;
	ASSERT_EQ(channelCreate(fd(), pipeline_, 0, kAttrs, &channel), 0);
	Bo frame(fd(), 8192);
	ASSERT_EQ(frame.error(), 0);
	frame.fill(0x5a);
	uint32_t index = 9;
	drm_vdla_owner who = {};
	EXPECT_EQ(portAttach(otherFd(), ref, channel, 0, 1, 0, &index, &who), EPERM)
		<< "only the channel's owner lends through it";
	EXPECT_EQ(who.pid, ::getpid());
	ASSERT_EQ(portAttach(fd(), pipeline_, channel, 0, frame.handle(), DRM_VDLA_PORT_READ_ONLY,
			     &index),
		  0);
	EXPECT_EQ(index, 0u);
	EXPECT_EQ(portAttach(fd(), pipeline_, channel, 0, frame.handle(), DRM_VDLA_PORT_READ_ONLY),
		  EEXIST);
	EXPECT_EQ(portAttach(fd(), pipeline_, channel, DRM_VDLA_CHANNEL_PORTS, frame.handle()),
		  EINVAL);
	EXPECT_EQ(portAttach(fd(), pipeline_, channel, 0, 4242, DRM_VDLA_PORT_READ_ONLY), ENOENT);
	Bo sram(fd(), 4096, DRM_VDLA_BO_CREATE_SRAM);
	ASSERT_EQ(sram.error(), 0);
	EXPECT_EQ(portAttach(fd(), pipeline_, channel, 1, sram.handle()), EINVAL)
		<< "an SRAM block left its file";

	/* The taker gets a handle of its own, read-only, to the owner's data. */
	uint32_t handle = 0;
	ASSERT_EQ(portTake(otherFd(), ref, channel, 0, &handle, &index), 0);
	EXPECT_EQ(index, 0u);
	drm_vdla_bo_info info;
	ASSERT_EQ(boInfo(otherFd(), handle, &info), 0);
	EXPECT_EQ(info.access, uint32_t(DRM_VDLA_BO_ACCESS_READ)) << "a read-only port lent write access";
	EXPECT_EQ(info.size, 8192u);
	void *cpu = ::mmap(nullptr, info.size, PROT_READ, MAP_SHARED, otherFd(), info.mmap_offset);
	ASSERT_NE(cpu, MAP_FAILED);
	EXPECT_EQ(static_cast<uint8_t *>(cpu)[4096], 0x5a);
	EXPECT_NE(::mprotect(cpu, info.size, PROT_READ | PROT_WRITE), 0)
		<< "the CPU may write what the port lends read-only";
	::munmap(cpu, info.size);
	EXPECT_EQ(::mmap(nullptr, info.size, PROT_READ | PROT_WRITE, MAP_SHARED, otherFd(),
			 info.mmap_offset),
		  MAP_FAILED)
		<< "the CPU may write what the port lends read-only";
	EXPECT_EQ(errno, EACCES);
	drm_prime_handle rw = {};
	rw.handle = handle;
	rw.flags = DRM_RDWR | DRM_CLOEXEC;
	rw.fd = -1;
	EXPECT_EQ(ioctlError(otherFd(), DRM_IOCTL_PRIME_HANDLE_TO_FD, &rw), EACCES)
		<< "a read-write export of a buffer lent read-only";
	if (rw.fd >= 0)
		::close(rw.fd);
	/* A borrowed buffer is not lent on. */
	uint32_t mine;
	ASSERT_EQ(channelCreate(otherFd(), ref, 0, kAttrs, &mine), 0);
	EXPECT_EQ(portAttach(otherFd(), ref, mine, 0, handle, DRM_VDLA_PORT_READ_ONLY), EACCES);
	uint32_t none;
	EXPECT_EQ(portTake(third.fd(), ref3, channel, 0, &none, &index), EAGAIN) << "none is free";
	who = {};
	EXPECT_EQ(portReturn(third.fd(), ref3, channel, 0, 0, &who), EPERM);
	EXPECT_EQ(who.pid, ::getpid()) << "who holds it is reported";
	EXPECT_EQ(portReturn(otherFd(), ref, channel, 0, 0), 0);
	EXPECT_EQ(boInfo(otherFd(), handle, &info), ENOENT) << "returning left the taker its handle";
	EXPECT_EQ(portReturn(otherFd(), ref, channel, 0, 0), ENOENT) << "returned twice";

	/* Closing the pipeline returns what the file took. */
	ASSERT_EQ(portTake(third.fd(), ref3, channel, 0, &handle, &index), 0);
	ASSERT_EQ(pipelineClose(third.fd(), ref3), 0);
	EXPECT_EQ(boInfo(third.fd(), handle, &info), ENOENT);
	EXPECT_EQ(portTake(otherFd(), ref, channel, 0, &handle, &index), 0);

	/* The owner takes its own buffer (to fill it) by its handle, which returning leaves open. */
	uint32_t writable;
	ASSERT_EQ(channelCreate(fd(), pipeline_, 0, kAttrs, &writable), 0);
	Bo shared(fd(), 4096);
	ASSERT_EQ(portAttach(fd(), pipeline_, writable, 1, shared.handle()), 0);
	drm_vdla_port_buffer own = {};
	own.pipeline = pipeline_;
	own.channel_id = writable;
	own.port = 1;
	own.op = DRM_VDLA_PORT_OP_TAKE;
	ASSERT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_PORT_BUFFER, &own), 0);
	EXPECT_EQ(own.handle, shared.handle());
	EXPECT_EQ(own.flags, uint32_t(DRM_VDLA_PORT_TAKEN_OWN));
	EXPECT_EQ(portTake(otherFd(), ref, writable, 1, &handle, &index), EAGAIN)
		<< "the owner's taking did not hold the buffer";
	ASSERT_EQ(portReturn(fd(), pipeline_, writable, 1, own.index), 0);
	EXPECT_EQ(boInfo(fd(), shared.handle(), &info), 0) << "returning closed the owner's handle";
	ASSERT_EQ(portTake(otherFd(), ref, writable, 1, &handle, &index), 0);
	ASSERT_EQ(boInfo(otherFd(), handle, &info), 0);
	EXPECT_EQ(info.access, uint32_t(DRM_VDLA_BO_ACCESS_READ | DRM_VDLA_BO_ACCESS_WRITE));

	/* Nobody lends more access than it has. */
	Node fourth(paths_[0]);
	uint32_t ref4, its;
	ASSERT_EQ(pipelineOpen(fourth.fd(), name_, &ref4), 0);
	int dmabuf = shared.exportFd();
	ASSERT_GE(dmabuf, 0);
	Bo readOnly = Bo::importVdla(fourth.fd(), dmabuf, DRM_VDLA_BO_IMPORT_FLAG_READ_ONLY);
	::close(dmabuf);
	ASSERT_EQ(readOnly.error(), 0);
	ASSERT_EQ(channelCreate(fourth.fd(), ref4, 0, kAttrs, &its), 0);
	EXPECT_EQ(portAttach(fourth.fd(), ref4, its, 0, readOnly.handle()), EACCES);
	EXPECT_EQ(portAttach(fourth.fd(), ref4, its, 0, readOnly.handle(), DRM_VDLA_PORT_READ_ONLY),
		  0);

	/* A file holding the BO already is refused rather than given a second access. */
	ASSERT_EQ(portReturn(otherFd(), ref, writable, 1, index), 0);
	EXPECT_EQ(portTake(fourth.fd(), ref4, writable, 1, &handle, &index), EBUSY);
}

TEST_F(PipelineTest, LimitsAreEagain)
{
	/* Others cannot take the slots the owner keeps. */
	uint32_t ref, id;
	ASSERT_EQ(pipelineOpen(otherFd(), name_, &ref), 0);
	const unsigned others = DRM_VDLA_MAX_CHANNELS - DRM_VDLA_OWNER_CHANNELS;
	for (unsigned i = 0; i < others; i++)
		ASSERT_EQ(channelCreate(otherFd(), ref, 0, kAttrs, &id), 0) << i;
	EXPECT_EQ(channelCreate(otherFd(), ref, 0, kAttrs, &id), EAGAIN)
		<< "the other files took the owner's slots";
	for (unsigned i = 0; i < DRM_VDLA_OWNER_CHANNELS; i++)
		ASSERT_EQ(channelCreate(fd(), pipeline_, 0, kAttrs, &id), 0) << i;
	EXPECT_EQ(channelCreate(fd(), pipeline_, 0, kAttrs, &id), EAGAIN);
	std::vector<uint32_t> handles;
	unsigned created = 1;
	for (;; created++) {
		uint32_t handle;
		int ret = pipelineCreate(fd(), "limit-" + std::to_string(created), kParams, &handle);
		if (ret) {
			EXPECT_EQ(ret, EAGAIN);
			break;
		}
		handles.push_back(handle);
	}
	EXPECT_EQ(created, unsigned(DRM_VDLA_MAX_PIPELINE_HANDLES)) << "the file's handles";
	uint32_t channel;
	ASSERT_EQ(channelCreate(fd(), pipeline_, 0, kAttrs, &channel), EAGAIN);
	ASSERT_EQ(channelDestroy(fd(), pipeline_, id), 0);
	ASSERT_EQ(channelCreate(fd(), pipeline_, 0, kAttrs, &channel), 0);
	EXPECT_NE(channel, id) << "a channel id came back at once";
	Bo bo(fd(), 4096);
	std::vector<Bo> bos;
	for (unsigned i = 0; i < DRM_VDLA_PORT_BUFFERS; i++) {
		bos.emplace_back(fd(), 4096);
		ASSERT_EQ(portAttach(fd(), pipeline_, channel, 2, bos.back().handle()), 0);
	}
	EXPECT_EQ(portAttach(fd(), pipeline_, channel, 2, bo.handle()), EAGAIN);
	for (uint32_t handle : handles)
		EXPECT_EQ(pipelineDestroy(fd(), handle), 0);
}

} /* namespace */
} /* namespace guest */
