/* SPDX-License-Identifier: MIT */
/*
 * libvdla's pipelines (vdla/pipeline.h) against the driver: parameters
 * agreed on at open, refusals that name the process in the way (another
 * process destroying the owner's pipeline or channel, a second duplicate),
 * port buffers taken and given back with the PortBuffer, read-only ones
 * that stay so, the owner's idle event when an application dies, and the
 * events of leases and pipelines shared out between their dispatch()es on
 * one Device. Processes that the kernel must name are forked children
 * with their own Device, opened under a name of their own (the kernel
 * records the opener's comm); other Devices of this process stand for
 * other files where names do not matter.
 */
#include <gtest/gtest.h>

#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <thread>

#include <vdla/buffer.h>
#include <vdla/context.h>
#include <vdla/device.h>
#include <vdla/lease.h>
#include <vdla/pipeline.h>

#include "submit_env.h"
#include "umd_test.h"

namespace umd_test {
namespace {

constexpr vdla::PipelineParams kParams = { 640, 480, 30, 1, 0, 0, 0, 0 };
constexpr vdla::ChannelAttributes kAttrs = { 5, 6, 7, 0, 0, 0, 0, 0 };

/* This process's name as the kernel reports owners: its comm. */
std::string ownComm()
{
	std::ifstream in("/proc/self/comm");
	std::string comm;
	std::getline(in, comm);
	return comm;
}

/* "pid N (comm)" of this process, as reasons name it. */
std::string thisProcess()
{
	return "pid " + std::to_string(::getpid()) + " (" + ownComm() + ")";
}

/* That @r failed with @code, its reason saying @text. */
template <typename T>
::testing::AssertionResult failsWith(const vdla::Result<T> &r, int code, const std::string &text)
{
	if (r)
		return ::testing::AssertionFailure()
			<< "succeeded; expected " << std::strerror(code) << " saying \"" << text
			<< "\"";
	if (r.error().code() != code || r.error().reason().find(text) == std::string::npos)
		return ::testing::AssertionFailure()
			<< "\"" << r.error().message() << "\"; expected " << std::strerror(code)
			<< " saying \"" << text << "\"";
	return ::testing::AssertionSuccess();
}

/* In a child: returns @status from the child if @check failed, saying why. */
#define CHILD_EXPECT(check, status)                                                                \
	do {                                                                                       \
		::testing::AssertionResult r_ = (check);                                           \
		if (!r_) {                                                                         \
			fprintf(stderr, "child, line %d: %s\n", __LINE__, r_.message());           \
			return status;                                                             \
		}                                                                                  \
	} while (0)

/* In a child: a Device of its own, which the kernel will name @comm. */
std::unique_ptr<vdla::Device> openAs(const std::string &node, const char *comm)
{
	::prctl(PR_SET_NAME, comm, 0, 0, 0);
	auto device = vdla::Device::open(node);
	if (!device) {
		fprintf(stderr, "child: %s\n", device.error().message().c_str());
		return nullptr;
	}
	return std::move(*device);
}

class PipelineTest : public UmdTest
{
protected:
	void SetUp() override
	{
		UmdTest::SetUp();
		if (HasFatalFailure())
			return;
		ASSERT_TRUE(device_->info().driverVersion.atLeast(1, 12))
			<< "driver " << device_->info().driverVersion.toString();
		/* Pipelines are the device's: a name per test. */
		name_ = std::string("umd-")
			+ ::testing::UnitTest::GetInstance()->current_test_info()->name();
		name_.resize(std::min<size_t>(name_.size(), 31));
	}

	std::unique_ptr<vdla::Pipeline> create(const vdla::PipelineParams &params = kParams)
	{
		auto pipeline = vdla::Pipeline::create(*device_, name_, params);
		EXPECT_TRUE(succeeded(pipeline));
		return pipeline ? std::move(*pipeline) : nullptr;
	}

	std::string quotedName() const { return "pipeline '" + name_ + "'"; }

	std::string name_;
};

TEST_F(PipelineTest, OpenGetsTheCreatorsParametersAndSaysWhetherTheyDiffer)
{
	auto other = openAgain(), third = openAgain(), fourth = openAgain(), fifth = openAgain();
	ASSERT_TRUE(other && third && fourth && fifth);
	auto owner = create();
	ASSERT_TRUE(owner);
	EXPECT_TRUE(owner->isOwner());
	EXPECT_EQ(owner->params(), kParams);
	EXPECT_EQ(owner->name(), name_);

	/* No parameters of its own: the creator's, nothing compared. */
	auto plain = vdla::Pipeline::open(*other, name_);
	ASSERT_TRUE(succeeded(plain));
	EXPECT_FALSE((*plain)->isOwner());
	EXPECT_EQ((*plain)->params(), kParams);
	EXPECT_FALSE((*plain)->paramsDiffered());

	auto same = vdla::Pipeline::open(*third, name_, &kParams);
	ASSERT_TRUE(succeeded(same));
	EXPECT_FALSE((*same)->paramsDiffered());

	vdla::PipelineParams mine = kParams;
	mine[2] = 60;
	auto differs = vdla::Pipeline::open(*fourth, name_, &mine);
	ASSERT_TRUE(succeeded(differs));
	EXPECT_TRUE((*differs)->paramsDiffered());
	EXPECT_EQ((*differs)->params(), kParams) << "the creator's parameters, not the caller's";

	/* Exact: refused, naming the owner, and nothing opened. */
	EXPECT_TRUE(failsWith(vdla::Pipeline::open(*fifth, name_, &mine, true), EEXIST,
		quotedName() + " has other parameters than asked (its owner is " + thisProcess()
			+ ")"));
	auto exact = vdla::Pipeline::open(*fifth, name_, &kParams, true);
	ASSERT_TRUE(succeeded(exact)) << "the refused exact open left nothing open";
	EXPECT_FALSE((*exact)->paramsDiffered());

	/* One handle per pipeline and Device; the owner's Device has its own. */
	EXPECT_TRUE(failsWith(vdla::Pipeline::open(*other, name_), EEXIST,
		"is open on this Device already, or owned by it"));
	EXPECT_TRUE(failsWith(vdla::Pipeline::open(*device_, name_), EEXIST,
		"is open on this Device already, or owned by it"));
	EXPECT_TRUE(failsWith(vdla::Pipeline::create(*other, name_), EEXIST,
		quotedName() + " exists already: it is owned by " + thisProcess()));
	EXPECT_TRUE(failsWith(vdla::Pipeline::open(*other, "umd-no-such-pipeline"), ENOENT,
		"no pipeline is named 'umd-no-such-pipeline'"));
	EXPECT_TRUE(failsWith(
		vdla::Pipeline::create(*device_, "two words"), EINVAL, "is not a pipeline name"));
	EXPECT_TRUE(failsWith(vdla::Pipeline::create(*device_, std::string(32, 'x')), EINVAL,
		"is not a pipeline name"));
	EXPECT_TRUE(failsWith(vdla::Pipeline::open(*other, name_, nullptr, true), EINVAL,
		"needs the parameters"));

	auto status = owner->query();
	ASSERT_TRUE(succeeded(status));
	EXPECT_EQ(status->name, name_);
	EXPECT_EQ(status->params, kParams);
	EXPECT_EQ(status->state, vdla::PipelineState::Live);
	EXPECT_TRUE(status->isOwner);
	EXPECT_EQ(status->references, 4u);
	EXPECT_EQ(status->owner.pid, ::getpid());
	EXPECT_EQ(status->owner.name, ownComm());
	auto theirs = (*plain)->query();
	ASSERT_TRUE(succeeded(theirs));
	EXPECT_FALSE(theirs->isOwner);
	EXPECT_EQ(theirs->owner.pid, ::getpid());

	/* References close; the owner's handle is destroyed, never closed. */
	ASSERT_TRUE(succeeded((*plain)->close()));
	EXPECT_TRUE(failsWith((*plain)->close(), EINVAL, "was closed or destroyed here already"));
	EXPECT_TRUE(failsWith((*plain)->query(), EINVAL, "was closed or destroyed here already"));
	EXPECT_TRUE(failsWith(owner->close(), EINVAL, "destroy() ends it"));
	EXPECT_TRUE(failsWith(owner->destroy(), EBUSY,
		quotedName() + " has 3 references: destroy it with force"));
	same->reset();
	differs->reset();
	exact->reset();
	status = owner->query();
	ASSERT_TRUE(succeeded(status));
	EXPECT_EQ(status->references, 0u) << "each Pipeline closed its reference as it went";
	ASSERT_TRUE(succeeded(owner->destroy()));
	EXPECT_TRUE(failsWith(vdla::Pipeline::open(*other, name_), ENOENT, "no pipeline is named"));
	auto again = vdla::Pipeline::create(*other, name_);
	EXPECT_TRUE(succeeded(again)) << "the name is free again";
}

TEST_F(PipelineTest, CreatingNeedsPrivilege)
{
	vdla::Device &device = *device_;
	const std::string name = name_;
	/* Nobody, on the file this process opened: the kernel checks the caller. */
	int status = guest::waitChild(guest::forkChild([&] {
		if (setgroups(0, nullptr) || setresgid(65534, 65534, 65534)
			|| setresuid(65534, 65534, 65534) || geteuid() != 65534)
			return 100;
		CHILD_EXPECT(failsWith(vdla::Pipeline::create(device, name), EACCES,
				     "creating a pipeline needs CAP_SYS_ADMIN or the group "
				     "vdla.pipeline_group"),
			1);
		return 0;
	}));
	EXPECT_EQ(status, 0);
	EXPECT_TRUE(create()) << "root may";
}

TEST_F(PipelineTest, AnotherProcessMayNotDestroyTheOwnersPipeline)
{
	auto owner = create();
	ASSERT_TRUE(owner);
	const std::string node = node_, name = name_, ownerName = thisProcess();
	int status = guest::waitChild(guest::forkChild([&] {
		auto device = openAs(node, "app1");
		if (!device)
			return 2;
		auto pipeline = vdla::Pipeline::open(*device, name);
		CHILD_CHECK(pipeline, 3, "open");
		const std::string refusal = "pipeline '" + name + "' is owned by " + ownerName;
		CHILD_EXPECT(failsWith((*pipeline)->destroy(true), EPERM, refusal), 4);
		CHILD_EXPECT(failsWith((*pipeline)->setExitAction({}), EPERM, refusal), 5);
		return 0;
	}));
	EXPECT_EQ(status, 0);
	auto after = owner->query();
	ASSERT_TRUE(succeeded(after));
	EXPECT_EQ(after->state, vdla::PipelineState::Live);
	EXPECT_EQ(after->references, 0u) << "the child's reference went with it";
	EXPECT_EQ(after->exitRuns, 1u) << "the exit action (none) ran for the last reference";
}

TEST_F(PipelineTest, AChannelIsDuplicatedOnceAndRefusalsNameItsHolders)
{
	auto owner = create();
	ASSERT_TRUE(owner);
	auto ctx = context();
	auto channel = vdla::Channel::create(*owner, kAttrs, ctx.get());
	ASSERT_TRUE(succeeded(channel));
	const uint32_t id = (*channel)->id();
	EXPECT_NE(id, 0u);
	EXPECT_FALSE((*channel)->isDuplicate());
	EXPECT_TRUE((*channel)->holdsHandle());

	/* Attributes, and the state, as any holder sees them. */
	auto value = (*channel)->attribute(2);
	ASSERT_TRUE(succeeded(value));
	EXPECT_EQ(*value, 7u);
	ASSERT_TRUE(succeeded((*channel)->setAttribute(2, 33)));
	EXPECT_TRUE(failsWith((*channel)->attribute(8), EINVAL, "keys are below 8"));
	ASSERT_TRUE(succeeded((*channel)->stop()));
	auto state = (*channel)->state();
	ASSERT_TRUE(succeeded(state));
	EXPECT_EQ(*state, vdla::ChannelState::Stopped);
	ASSERT_TRUE(succeeded((*channel)->start()));
	state = (*channel)->state();
	ASSERT_TRUE(succeeded(state));
	EXPECT_EQ(*state, vdla::ChannelState::Started);
	auto stranger = openAgain();
	auto strangerCtx = vdla::Context::create(*stranger);
	ASSERT_TRUE(succeeded(strangerCtx));
	EXPECT_TRUE(failsWith(vdla::Channel::create(*owner, kAttrs, strangerCtx->get()), EINVAL,
		"the context belongs to another Device"));

	const std::string node = node_, name = name_, ownerName = thisProcess();
	const std::string ownedBy = "channel " + std::to_string(id) + " of pipeline '" + name
		+ "' is owned by " + ownerName;

	/* app1 takes the duplicate, and holds it until it is killed. */
	pid_t app1 = guest::forkReadyChild([&](const std::function<void()> &ready) {
		auto device = openAs(node, "app1");
		if (!device)
			return 2;
		auto pipeline = vdla::Pipeline::open(*device, name);
		CHILD_CHECK(pipeline, 3, "open");
		auto dup = vdla::Channel::dup(**pipeline, id);
		CHILD_CHECK(dup, 4, "dup");
		if (!(*dup)->isDuplicate() || (*dup)->id() != id)
			return 5;
		auto seen = (*dup)->attribute(2);
		CHILD_CHECK(seen, 6, "attribute");
		if (*seen != 33)
			return 7;
		/* A duplicate is no owner: attaching buffers is the owner's. */
		auto buffer = vdla::Buffer::create(*device, 4096);
		CHILD_CHECK(buffer, 8, "buffer");
		CHILD_EXPECT(failsWith((*dup)->attach(0, **buffer), EPERM, ownedBy), 9);
		ready();
		return 0;
	});
	ASSERT_GT(app1, 0);

	/* app2 is refused the duplicate, naming app1, and may not destroy the channel. */
	int status = guest::waitChild(guest::forkChild([&] {
		auto device = openAs(node, "app2");
		if (!device)
			return 2;
		auto pipeline = vdla::Pipeline::open(*device, name);
		CHILD_CHECK(pipeline, 3, "open");
		CHILD_EXPECT(failsWith(vdla::Channel::dup(**pipeline, id), EEXIST,
				     "channel " + std::to_string(id) + " of pipeline '" + name
					     + "' was duplicated already, into pid "
					     + std::to_string(app1) + " (app1)"),
			4);
		auto view = vdla::Channel::lookup(**pipeline, id);
		CHILD_CHECK(view, 5, "lookup");
		if ((*view)->holdsHandle())
			return 6;
		CHILD_EXPECT(failsWith((*view)->destroy(), EPERM, ownedBy), 7);
		CHILD_EXPECT(failsWith(vdla::Channel::lookup(**pipeline, id + 100), ENOENT,
				     "there is no channel"),
			8);
		return 0;
	}));
	EXPECT_EQ(status, 0);
	EXPECT_TRUE(failsWith(vdla::Channel::dup(*owner, id), EEXIST, "is this process's own"));

	::kill(app1, SIGKILL);
	EXPECT_EQ(guest::waitChild(app1), 128 + SIGKILL);
	auto after = owner->query();
	ASSERT_TRUE(succeeded(after));
	EXPECT_EQ(after->channels, 1u) << "the owner's handle keeps the channel";
	ASSERT_TRUE(succeeded((*channel)->destroy()));
	EXPECT_TRUE(failsWith((*channel)->destroy(), EINVAL, "was destroyed here already"));
	after = owner->query();
	ASSERT_TRUE(succeeded(after));
	EXPECT_EQ(after->channels, 0u) << "gone with its last handle";
}

TEST_F(PipelineTest, APortBufferIsLentAndComesBackWithThePortBuffer)
{
	auto owner = create();
	ASSERT_TRUE(owner);
	auto channel = vdla::Channel::create(*owner);
	ASSERT_TRUE(succeeded(channel));
	auto frame = buffer(4096);
	ASSERT_TRUE(frame);
	for (int i = 0; i < 4096; i++)
		frame->data()[i] = uint8_t(i * 7);
	auto index = (*channel)->attach(0, *frame);
	ASSERT_TRUE(succeeded(index));
	EXPECT_EQ(*index, 0u);
	EXPECT_TRUE(failsWith((*channel)->attach(0, *frame), EEXIST, "attached to port 0"));
	{
		/* The owner takes its own buffer (to fill it) by its own handle, which stays open. */
		auto own = (*channel)->take(0);
		ASSERT_TRUE(succeeded(own));
		EXPECT_EQ(own->buffer().handle(), frame->handle());
		ASSERT_TRUE(succeeded(own->giveBack()));
		drm_vdla_bo_info info = {};
		info.handle = frame->handle();
		EXPECT_EQ(::ioctl(device_->fd(), DRM_IOCTL_VDLA_BO_INFO, &info), 0)
			<< "giving back the owner's own buffer closed its handle";
	}
	EXPECT_TRUE(failsWith((*channel)->take(4), EINVAL, "ports 0 to 3"));

	auto other = openAgain();
	ASSERT_TRUE(other);
	auto opened = vdla::Pipeline::open(*other, name_);
	ASSERT_TRUE(succeeded(opened));
	auto view = vdla::Channel::lookup(**opened, (*channel)->id());
	ASSERT_TRUE(succeeded(view));
	uint32_t handle = 0;
	{
		auto taken = (*view)->take(0);
		ASSERT_TRUE(succeeded(taken));
		EXPECT_TRUE(taken->holds());
		EXPECT_EQ(taken->port(), 0u);
		EXPECT_EQ(taken->index(), 0u);
		vdla::Buffer &lent = taken->buffer();
		EXPECT_EQ(&lent.device(), other.get());
		EXPECT_EQ(lent.access(), vdla::Buffer::Access::ReadWrite);
		EXPECT_EQ(lent.size(), frame->size());
		handle = lent.handle();
		auto map = lent.map();
		ASSERT_TRUE(succeeded(map));
		EXPECT_EQ(std::memcmp(*map, frame->data(), 4096), 0) << "the owner's data";
		(*map)[0] = 0xee;
		EXPECT_EQ(frame->data()[0], 0xee) << "one BO: the taker's write is the owner's";
		EXPECT_TRUE(failsWith((*view)->take(0), EAGAIN, "no buffer of port 0"));
	}
	/* Given back as the PortBuffer went: RETURN closed the taker's handle. */
	drm_vdla_bo_info info = {};
	EXPECT_EQ(guest::boInfo(other->fd(), handle, &info), ENOENT);
	auto again = (*view)->take(0);
	ASSERT_TRUE(succeeded(again)) << "free again";
	ASSERT_TRUE(succeeded(again->giveBack()));
	EXPECT_FALSE(again->holds());
	EXPECT_TRUE(failsWith(again->giveBack(), EINVAL, "holds no buffer"));

	/* Moved, it is given back once, by its last holder. */
	auto moved = (*view)->take(0);
	ASSERT_TRUE(succeeded(moved));
	vdla::PortBuffer holder = std::move(*moved);
	EXPECT_FALSE(moved->holds());
	EXPECT_TRUE(holder.holds());
	EXPECT_TRUE(failsWith((*view)->take(0), EAGAIN, "no buffer of port 0"));
	ASSERT_TRUE(succeeded(holder.giveBack()));
	EXPECT_TRUE(succeeded((*view)->take(0)));
}

TEST_F(PipelineTest, AReadOnlyPortLendsItsBuffersReadOnly)
{
	auto owner = create();
	ASSERT_TRUE(owner);
	auto channel = vdla::Channel::create(*owner);
	ASSERT_TRUE(succeeded(channel));
	auto lent = buffer(4096), writable = buffer(4096);
	ASSERT_TRUE(lent && writable);
	std::memset(lent->data(), 0x5a, 4096);
	ASSERT_TRUE(succeeded((*channel)->attach(1, *lent, true)));
	EXPECT_TRUE(failsWith((*channel)->attach(1, *writable, false), EINVAL, "all alike"));

	auto other = openAgain();
	ASSERT_TRUE(other);
	auto opened = vdla::Pipeline::open(*other, name_);
	ASSERT_TRUE(succeeded(opened));
	auto view = vdla::Channel::lookup(**opened, (*channel)->id());
	ASSERT_TRUE(succeeded(view));
	auto taken = (*view)->take(1);
	ASSERT_TRUE(succeeded(taken));
	vdla::Buffer &readOnly = taken->buffer();
	EXPECT_EQ(readOnly.access(), vdla::Buffer::Access::ReadOnly);
	auto map = readOnly.map();
	ASSERT_TRUE(succeeded(map));
	EXPECT_EQ((*map)[4095], 0x5a);
	/*
	 * map() maps it read-only: a write faults. (The kernel does not yet
	 * stop a writable mmap() or mprotect() of it: it makes the CPU
	 * mapping read-only only for imports of read-only dma-bufs, see
	 * vdla_gem_mmap(), so that is not asserted here.)
	 */
	uint8_t *readOnlyMap = *map;
	int status = guest::waitChild(guest::forkChild([readOnlyMap] {
		*static_cast<volatile uint8_t *>(readOnlyMap) = 1;
		return 0;
	}));
	EXPECT_EQ(status, 128 + SIGSEGV);
	EXPECT_EQ((*map)[0], 0x5a);
	/* The device may not write it: a job marked to write it is refused. */
	auto ctx = vdla::Context::create(*other);
	ASSERT_TRUE(succeeded(ctx));
	auto src = buffer(4096, other.get());
	ASSERT_TRUE(src);
	auto task = copyTask(*src, readOnly).build(*other);
	ASSERT_TRUE(succeeded(task));
	EXPECT_TRUE(failsWith((*ctx)->submit(*task), EACCES, ""));
}

TEST_F(PipelineTest, ForceTellsTheOthersAndTheirTakenBuffersAreLetGo)
{
	auto owner = create();
	ASSERT_TRUE(owner);
	auto channel = vdla::Channel::create(*owner);
	ASSERT_TRUE(succeeded(channel));
	auto frame = buffer(4096);
	ASSERT_TRUE(succeeded((*channel)->attach(0, *frame)));

	auto other = openAgain();
	ASSERT_TRUE(other);
	auto opened = vdla::Pipeline::open(*other, name_);
	ASSERT_TRUE(succeeded(opened));
	std::vector<vdla::PipelineEvent> events;
	(*opened)->setEventCallback(
		[&](vdla::Pipeline &, const vdla::PipelineEvent &e) { events.push_back(e); });
	auto view = vdla::Channel::lookup(**opened, (*channel)->id());
	ASSERT_TRUE(succeeded(view));
	auto taken = (*view)->take(0);
	ASSERT_TRUE(succeeded(taken));
	const uint32_t handle = taken->buffer().handle();

	EXPECT_TRUE(failsWith(
		owner->destroy(), EBUSY, quotedName() + " has 1 reference: destroy it with force"));
	ASSERT_TRUE(succeeded(owner->destroy(true)));
	EXPECT_TRUE(failsWith(owner->query(), EINVAL, "closed or destroyed here already"));

	auto n = (*opened)->dispatch(5000ms);
	ASSERT_TRUE(succeeded(n));
	ASSERT_EQ(*n, 1u);
	ASSERT_EQ(events.size(), 1u);
	EXPECT_EQ(events[0].type, vdla::PipelineEvent::Type::Gone);
	EXPECT_GT(events[0].timestamp.count(), 0);
	auto status = (*opened)->query();
	ASSERT_TRUE(succeeded(status));
	EXPECT_EQ(status->state, vdla::PipelineState::Gone);
	const std::string isGone = quotedName() + " is gone (its owner destroyed it or exited)";
	EXPECT_TRUE(failsWith((*view)->take(0), ECANCELED, isGone));
	EXPECT_TRUE(failsWith((*view)->attribute(0), ECANCELED, isGone));
	EXPECT_TRUE(failsWith(vdla::Channel::create(**opened), ECANCELED, isGone));

	/* The kernel left the taker its handle; giving the buffer back closes it. */
	drm_vdla_bo_info info = {};
	EXPECT_EQ(guest::boInfo(other->fd(), handle, &info), 0);
	ASSERT_TRUE(succeeded(taken->giveBack()));
	EXPECT_EQ(guest::boInfo(other->fd(), handle, &info), ENOENT);
	ASSERT_TRUE(succeeded((*opened)->close())) << "a pipeline gone is closed all the same";
}

TEST_F(PipelineTest, ClosingGivesBackWhatWasTakenThroughIt)
{
	auto owner = create();
	ASSERT_TRUE(owner);
	auto channel = vdla::Channel::create(*owner);
	ASSERT_TRUE(succeeded(channel));
	auto frame = buffer(4096);
	ASSERT_TRUE(succeeded((*channel)->attach(0, *frame)));
	const uint32_t id = (*channel)->id();

	auto other = openAgain(), third = openAgain();
	ASSERT_TRUE(other && third);
	auto opened = vdla::Pipeline::open(*other, name_);
	ASSERT_TRUE(succeeded(opened));
	auto view = vdla::Channel::lookup(**opened, id);
	ASSERT_TRUE(succeeded(view));
	auto taken = (*view)->take(0);
	ASSERT_TRUE(succeeded(taken));
	const uint32_t handle = taken->buffer().handle();
	/* The taker's own channel goes with its reference too. */
	auto theirs = vdla::Channel::create(**opened);
	ASSERT_TRUE(succeeded(theirs));

	ASSERT_TRUE(succeeded((*opened)->close()));
	EXPECT_FALSE(taken->holds()) << "closing gave it back";
	drm_vdla_bo_info info = {};
	EXPECT_EQ(guest::boInfo(other->fd(), handle, &info), ENOENT);
	EXPECT_TRUE(succeeded(taken->giveBack())) << "nothing left to do";
	EXPECT_TRUE(failsWith((*view)->take(0), EINVAL, "closed or destroyed here already"));

	auto status = owner->query();
	ASSERT_TRUE(succeeded(status));
	EXPECT_EQ(status->channels, 1u) << "the closed reference's channel went with it";
	auto opened3 = vdla::Pipeline::open(*third, name_);
	ASSERT_TRUE(succeeded(opened3));
	auto view3 = vdla::Channel::lookup(**opened3, id);
	ASSERT_TRUE(succeeded(view3));
	EXPECT_TRUE(succeeded((*view3)->take(0))) << "the buffer is free again";
}

TEST_F(PipelineTest, TheOwnersDestructorLeavesAPipelineOthersHold)
{
	auto other = openAgain();
	ASSERT_TRUE(other);
	auto owner = create();
	ASSERT_TRUE(owner);
	auto opened = vdla::Pipeline::open(*other, name_);
	ASSERT_TRUE(succeeded(opened));
	owner.reset();
	auto status = (*opened)->query();
	ASSERT_TRUE(succeeded(status));
	EXPECT_EQ(status->state, vdla::PipelineState::Live) << "destroyed without force: EBUSY";
	/* Until the owner's file closes. */
	device_.reset();
	status = (*opened)->query();
	ASSERT_TRUE(succeeded(status));
	EXPECT_EQ(status->state, vdla::PipelineState::Gone);
}

TEST_F(PipelineTest, TheOwnerIsToldWhenTheLastApplicationDies)
{
	auto owner = create();
	ASSERT_TRUE(owner);
	auto ctx = context();
	auto channel = vdla::Channel::create(*owner, kAttrs, ctx.get());
	ASSERT_TRUE(succeeded(channel));
	vdla::PipelineExitActions actions;
	actions.stopChannels = actions.resetAttributes = actions.notify = true;
	ASSERT_TRUE(succeeded(owner->setExitAction(actions, 0x1234)));
	std::vector<vdla::PipelineEvent> events;
	owner->setEventCallback([&](vdla::Pipeline &p, const vdla::PipelineEvent &e) {
		EXPECT_EQ(&p, owner.get());
		events.push_back(e);
	});

	const std::string node = node_, name = name_;
	const uint32_t id = (*channel)->id();
	pid_t app = guest::forkReadyChild([&](const std::function<void()> &ready) {
		auto device = openAs(node, "app1");
		if (!device)
			return 2;
		auto pipeline = vdla::Pipeline::open(*device, name);
		CHILD_CHECK(pipeline, 3, "open");
		auto view = vdla::Channel::lookup(**pipeline, id);
		CHILD_CHECK(view, 4, "lookup");
		CHILD_CHECK((*view)->setAttribute(0, 99), 5, "set");
		ready();
		return 0;
	});
	ASSERT_GT(app, 0);
	auto status = owner->query();
	ASSERT_TRUE(succeeded(status));
	EXPECT_EQ(status->references, 1u);
	EXPECT_TRUE(status->exitActions.notify && status->exitActions.stopChannels
		&& status->exitActions.resetAttributes);
	auto value = (*channel)->attribute(0);
	ASSERT_TRUE(succeeded(value));
	EXPECT_EQ(*value, 99u);
	auto none = owner->dispatch(0ms);
	ASSERT_TRUE(succeeded(none));
	EXPECT_EQ(*none, 0u) << "no event while an application holds its reference";

	::kill(app, SIGKILL);
	EXPECT_EQ(guest::waitChild(app), 128 + SIGKILL);
	auto n = owner->dispatch(5000ms);
	ASSERT_TRUE(succeeded(n));
	ASSERT_EQ(*n, 1u);
	ASSERT_EQ(events.size(), 1u);
	EXPECT_EQ(events[0].type, vdla::PipelineEvent::Type::Idle);
	EXPECT_EQ(events[0].pid, app);
	EXPECT_EQ(events[0].userData, 0x1234u);
	EXPECT_TRUE(events[0].actions.notify && events[0].actions.stopChannels
		&& events[0].actions.resetAttributes);

	/* What the kernel did by itself. */
	auto state = (*channel)->state();
	ASSERT_TRUE(succeeded(state));
	EXPECT_EQ(*state, vdla::ChannelState::Stopped);
	value = (*channel)->attribute(0);
	ASSERT_TRUE(succeeded(value));
	EXPECT_EQ(*value, kAttrs[0]);
	status = owner->query();
	ASSERT_TRUE(succeeded(status));
	EXPECT_EQ(status->exitRuns, 1u);
	EXPECT_EQ(status->references, 0u);
}

/* A child that opens pipeline @name under its own Device and exits: the owner's exit action runs.
 */
int comeAndGo(const std::string &node, const std::string &name)
{
	return guest::waitChild(guest::forkChild([&] {
		auto device = openAs(node, "app1");
		if (!device)
			return 2;
		auto pipeline = vdla::Pipeline::open(*device, name);
		CHILD_CHECK(pipeline, 3, "open");
		return 0;
	}));
}

/* Whether @fd has unread events in the kernel. */
bool readable(int fd)
{
	pollfd p = { fd, POLLIN, 0 };
	return ::poll(&p, 1, 0) == 1;
}

TEST_F(PipelineTest, LeaseAndPipelineEventsOfOneDeviceReachTheirOwnDispatch)
{
	auto owner = create();
	ASSERT_TRUE(owner);
	vdla::PipelineExitActions notify;
	notify.notify = true;
	ASSERT_TRUE(succeeded(owner->setExitAction(notify, 7)));
	int idle = 0;
	owner->setEventCallback([&](vdla::Pipeline &, const vdla::PipelineEvent &e) {
		EXPECT_EQ(e.type, vdla::PipelineEvent::Type::Idle);
		idle++;
	});

	/* SDP is held by another Device; this one queues for it, without preempting. */
	auto other = openAgain();
	ASSERT_TRUE(other);
	vdla::ResourceManager mine(*device_), theirs(*other);
	auto myCtx = context();
	auto theirCtx = vdla::Context::create(*other);
	ASSERT_TRUE(succeeded(theirCtx));
	vdla::LeaseRequest sdp;
	sdp.resource = vdla::LeaseResource::Engine;
	sdp.index = 2;
	auto held = theirs.acquire(**theirCtx, sdp);
	ASSERT_TRUE(succeeded(held));
	int granted = 0;
	vdla::LeaseCallbacks callbacks;
	callbacks.granted = [&](vdla::Lease &) { granted++; };
	sdp.queue = true;
	sdp.noPreempt = true;
	auto waiting = mine.acquire(*myCtx, sdp, callbacks);
	ASSERT_TRUE(succeeded(waiting));
	EXPECT_EQ((*waiting)->state(), vdla::LeaseState::Waiting);

	/* An idle event, then a grant behind it, both unread on the file. */
	ASSERT_EQ(comeAndGo(node_, name_), 0);
	ASSERT_TRUE(succeeded((*held)->release()));
	ASSERT_TRUE(guest::waitUntil(
		[&] {
			auto s = (*waiting)->query();
			return s && s->state == vdla::LeaseState::Held;
		},
		5000));

	/* The pipeline's dispatch reads both, and keeps the grant for the ResourceManager. */
	auto n = owner->dispatch(5000ms);
	ASSERT_TRUE(succeeded(n));
	EXPECT_EQ(*n, 1u);
	EXPECT_EQ(idle, 1);
	EXPECT_FALSE(readable(device_->fd())) << "the grant was read from the file";
	auto leases = mine.dispatch(0ms);
	ASSERT_TRUE(succeeded(leases));
	EXPECT_EQ(*leases, 1u);
	EXPECT_EQ(granted, 1);

	/* The other way round: the lease dispatch keeps the idle event. */
	ASSERT_EQ(comeAndGo(node_, name_), 0);
	leases = mine.dispatch(200ms);
	ASSERT_TRUE(succeeded(leases));
	EXPECT_EQ(*leases, 0u);
	EXPECT_FALSE(readable(device_->fd())) << "the idle event was read from the file";
	n = owner->dispatch(0ms);
	ASSERT_TRUE(succeeded(n));
	EXPECT_EQ(*n, 1u);
	EXPECT_EQ(idle, 2);
}

TEST_F(PipelineTest, ThreadsWaitingInTheirOwnDispatchEachGetTheirEvents)
{
	auto owner = create();
	ASSERT_TRUE(owner);
	vdla::PipelineExitActions notify;
	notify.notify = true;
	ASSERT_TRUE(succeeded(owner->setExitAction(notify)));
	std::atomic<int> idle{ 0 }, granted{ 0 };
	owner->setEventCallback([&](vdla::Pipeline &, const vdla::PipelineEvent &) { idle++; });

	auto other = openAgain();
	ASSERT_TRUE(other);
	vdla::ResourceManager mine(*device_), theirs(*other);
	auto myCtx = context();
	auto theirCtx = vdla::Context::create(*other);
	ASSERT_TRUE(succeeded(theirCtx));
	vdla::LeaseRequest pdp;
	pdp.resource = vdla::LeaseResource::Engine;
	pdp.index = 3;
	auto held = theirs.acquire(**theirCtx, pdp);
	ASSERT_TRUE(succeeded(held));
	vdla::LeaseCallbacks callbacks;
	callbacks.granted = [&](vdla::Lease &) { granted++; };
	pdp.queue = true;
	pdp.noPreempt = true;
	auto waiting = mine.acquire(*myCtx, pdp, callbacks);
	ASSERT_TRUE(succeeded(waiting));

	/* Each thread waits up to 10 s for its own; whichever reads hands the other its event. */
	auto start = std::chrono::steady_clock::now();
	vdla::Result<unsigned> leases = 0u, pipelines = 0u;
	std::thread leaseThread([&] { leases = mine.dispatch(10000ms); });
	std::thread pipelineThread([&] { pipelines = owner->dispatch(10000ms); });
	std::this_thread::sleep_for(100ms);
	EXPECT_EQ(comeAndGo(node_, name_), 0);
	std::this_thread::sleep_for(100ms);
	EXPECT_TRUE(succeeded((*held)->release()));
	leaseThread.join();
	pipelineThread.join();
	ASSERT_TRUE(succeeded(leases));
	ASSERT_TRUE(succeeded(pipelines));
	EXPECT_EQ(*leases, 1u);
	EXPECT_EQ(*pipelines, 1u);
	EXPECT_EQ(granted.load(), 1);
	EXPECT_EQ(idle.load(), 1);
	EXPECT_LT(std::chrono::steady_clock::now() - start, 5s)
		<< "a thread waited out its timeout";
}

} /* namespace */
} /* namespace umd_test */
