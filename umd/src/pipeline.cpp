/* SPDX-License-Identifier: MIT */
#include <vdla/pipeline.h>

#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <mutex>
#include <set>
#include <vector>

#include <drm/vdla_accel.h>

#include <vdla/buffer.h>
#include <vdla/context.h>
#include <vdla/device.h>

#include "device_events.h"

namespace vdla {

/* The public header spells the UAPI's sizes out, so as not to need it. */
static_assert(std::tuple_size<PipelineParams>::value == DRM_VDLA_PIPELINE_PARAMS);
static_assert(std::tuple_size<ChannelAttributes>::value == DRM_VDLA_CHANNEL_ATTRS);
static_assert(kChannelPorts == DRM_VDLA_CHANNEL_PORTS);
static_assert(kPortBuffers == DRM_VDLA_PORT_BUFFERS);

/*
 * What a Pipeline shares with its Channels and PortBuffers: the handle,
 * and whether it is still this file's. Every ioctl naming the handle runs
 * under the lock, once it is checked: a handle destroyed or closed is
 * free for the next pipeline this file opens, and a call that slipped in
 * after would act on that one.
 */
struct PipelineCore {
	PipelineCore(
		Device &dev, const std::string &pipelineName, uint32_t fileHandle, bool isOwner)
		: device(dev), name(pipelineName), handle(fileHandle), owner(isOwner)
	{
	}

	Device &device;
	const std::string name;
	const uint32_t handle;
	const bool owner;

	std::mutex lock;
	/* The handle is the file's no more: destroyed or closed. */
	bool ended = false;
	/* The Pipeline object went (dispatch() looks after each callback). */
	bool objectGone = false;
	Pipeline::EventCallback callback;
	/* Buffers taken through the pipeline and not given back; their PortBuffers own them. */
	std::set<TakenBuffer *> taken;
};

/* A port buffer this file took. */
struct TakenBuffer {
	std::shared_ptr<PipelineCore> core;
	uint32_t channel = 0;
	uint32_t port = 0;
	uint32_t index = 0;
	/* The handle TAKE made in the Device's file, or the owner's own (@own). */
	uint32_t handle = 0;
	/*
	 * The channel's owner took its own buffer, by the handle it attached
	 * it with (DRM_VDLA_PORT_TAKEN_OWN): that handle is its Buffer's, and
	 * nothing here ever closes it.
	 */
	bool own = false;
	/* Borrowed: it never closes the handle. Gone once given back. */
	std::unique_ptr<Buffer> buffer;
};

namespace {

/*
 * Runs the ioctl once, and again only when a signal interrupted it; 0 or
 * the errno. Not drmIoctl(), which repeats EAGAIN as well: here a limit
 * reached, which would spin. On EPERM and EEXIST the kernel fills the
 * argument's owner although the call fails (DRM copies the argument back
 * whatever the result): read it after the failure.
 */
int callIoctl(int fd, unsigned long request, void *args)
{
	int ret;
	do {
		ret = ::ioctl(fd, request, args);
	} while (ret == -1 && errno == EINTR);
	return ret ? errno : 0;
}

uint64_t monotonicNs()
{
	timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

Holder holderOf(const drm_vdla_owner &owner)
{
	return { owner.pid, std::string(owner.comm, strnlen(owner.comm, sizeof(owner.comm))) };
}

std::string held(const drm_vdla_owner &owner)
{
	return holderOf(owner).toString();
}

std::string quoted(const std::string &name)
{
	return "pipeline '" + name + "'";
}

std::string channelOf(uint32_t id, const PipelineCore &core)
{
	return "channel " + std::to_string(id) + " of " + quoted(core.name);
}

Error driverTooOld(const Device &device)
{
	return Error(EOPNOTSUPP,
		"driver " + device.info().driverVersion.toString()
			+ " has no pipelines (1.12 has)");
}

Error gone(const PipelineCore &core)
{
	return Error(ECANCELED, quoted(core.name) + " is gone (its owner destroyed it or exited)");
}

Error ended(const PipelineCore &core)
{
	return Error(EINVAL, quoted(core.name) + " was closed or destroyed here already");
}

/* What the kernel takes: 1 to 31 visible ASCII characters. */
bool validName(const std::string &name)
{
	if (name.empty() || name.size() >= DRM_VDLA_PIPELINE_NAME_LEN)
		return false;
	return std::all_of(name.begin(), name.end(), [](char c) { return c > ' ' && c < 0x7f; });
}

Error badName(const std::string &name)
{
	return Error(
		EINVAL, "'" + name + "' is not a pipeline name (1 to 31 visible ASCII characters)");
}

PipelineExitActions actionsOf(uint32_t bits)
{
	PipelineExitActions actions;
	actions.stopChannels = bits & DRM_VDLA_PIPELINE_EXIT_STOP_CHANNELS;
	actions.resetAttributes = bits & DRM_VDLA_PIPELINE_EXIT_RESET_ATTRS;
	actions.notify = bits & DRM_VDLA_PIPELINE_EXIT_NOTIFY;
	return actions;
}

uint32_t bitsOf(const PipelineExitActions &actions)
{
	return (actions.stopChannels ? DRM_VDLA_PIPELINE_EXIT_STOP_CHANNELS : 0)
		| (actions.resetAttributes ? DRM_VDLA_PIPELINE_EXIT_RESET_ATTRS : 0)
		| (actions.notify ? DRM_VDLA_PIPELINE_EXIT_NOTIFY : 0);
}

void closeGemHandle(int fd, uint32_t handle)
{
	drm_gem_close args = {};
	args.handle = handle;
	callIoctl(fd, DRM_IOCTL_GEM_CLOSE, &args);
}

/*
 * Under the core's lock: lets go of a taken buffer, once. Its Buffer goes
 * first, while the handle still names the BO (it unmaps, and leaves the
 * handle open). Then RETURN, which closes the handle in the kernel: the
 * number is free from then on, for any BO this file makes next, so
 * nothing here may close it again. A RETURN refused because the channel
 * or the pipeline is gone leaves the handle open (the kernel let the
 * taker keep the BO), and so does a pipeline ended here (its handle
 * names nothing, or the next pipeline): then it is closed here.
 */
Result<void> settleLocked(PipelineCore &core, TakenBuffer &t)
{
	core.taken.erase(&t);
	t.buffer.reset();
	const int fd = core.device.fd();
	if (core.ended) {
		if (!t.own)
			closeGemHandle(fd, t.handle);
		return {};
	}
	drm_vdla_port_buffer args = {};
	args.pipeline = core.handle;
	args.channel_id = t.channel;
	args.port = t.port;
	args.op = DRM_VDLA_PORT_OP_RETURN;
	args.index = t.index;
	int err = callIoctl(fd, DRM_IOCTL_VDLA_PORT_BUFFER, &args);
	if (err == ENOENT || err == ECANCELED) {
		if (!t.own)
			closeGemHandle(fd, t.handle);
		return {};
	}
	std::string which
		= "buffer " + std::to_string(t.index) + " of port " + std::to_string(t.port);
	if (err == EPERM)
		return Error(err, which + " is held by " + held(args.owner));
	if (err)
		return Error(
			err, "cannot give back " + which + " of " + channelOf(t.channel, core));
	return {};
}

/*
 * Under the core's lock: the handle is the file's no more. Buffers taken
 * through it go (their handles closed here), and its events that were
 * kept are dropped.
 */
void endLocked(PipelineCore &core)
{
	core.ended = true;
	std::vector<TakenBuffer *> taken(core.taken.begin(), core.taken.end());
	for (TakenBuffer *t : taken)
		settleLocked(core, *t);
	const uint32_t handle = core.handle;
	DeviceEvents::forget(core.device, DeviceEvents::Kind::Pipeline,
		[handle](const DeviceEvent &e) { return e.pipeline.handle == handle; });
}

} /* namespace */

std::string Holder::toString() const
{
	if (pid <= 0)
		return "a process of another pid namespace (" + name + ")";
	return "pid " + std::to_string(pid) + " (" + name + ")";
}

Pipeline::Pipeline(std::shared_ptr<PipelineCore> core, const PipelineParams &params, bool differed,
	uint64_t since)
	: core_(std::move(core)), params_(params), paramsDiffered_(differed), since_(since)
{
	DeviceEvents::subscribe(core_->device, DeviceEvents::Kind::Pipeline);
}

Pipeline::~Pipeline()
{
	bool open;
	{
		std::lock_guard<std::mutex> guard(core_->lock);
		core_->objectGone = true;
		core_->callback = nullptr;
		open = !core_->ended;
	}
	/*
	 * An owner's pipeline that others still hold (EBUSY) lives on with
	 * the handle until the file closes: the Channels and PortBuffers that
	 * should have gone first may still use it.
	 */
	if (open && core_->owner)
		destroy(false);
	else if (open)
		close();
	DeviceEvents::unsubscribe(core_->device, DeviceEvents::Kind::Pipeline);
}

Result<std::unique_ptr<Pipeline>> Pipeline::create(
	Device &device, const std::string &name, const PipelineParams &params)
{
	if (!device.info().driverVersion.atLeast(1, 12))
		return driverTooOld(device);
	if (!validName(name))
		return badName(name);
	drm_vdla_pipeline_create args = {};
	std::memcpy(args.name, name.data(), name.size());
	std::copy(params.begin(), params.end(), args.params);
	const uint64_t since = monotonicNs();
	if (int err = callIoctl(device.fd(), DRM_IOCTL_VDLA_PIPELINE_CREATE, &args)) {
		switch (err) {
		case EACCES:
			return Error(err,
				"creating a pipeline needs CAP_SYS_ADMIN or the group "
				"vdla.pipeline_group");
		case EEXIST:
			return Error(err,
				quoted(name) + " exists already: it is owned by "
					+ held(args.owner));
		case EAGAIN:
			return Error(err,
				"cannot create " + quoted(name)
					+ ": the device has 16 pipelines, or this Device "
					  "16 pipelines open");
		default:
			return Error(err, "cannot create " + quoted(name));
		}
	}
	auto core = std::make_shared<PipelineCore>(device, name, args.handle, true);
	return std::unique_ptr<Pipeline>(new Pipeline(std::move(core), params, false, since));
}

Result<std::unique_ptr<Pipeline>> Pipeline::open(
	Device &device, const std::string &name, const PipelineParams *mine, bool exact)
{
	if (!device.info().driverVersion.atLeast(1, 12))
		return driverTooOld(device);
	if (!validName(name))
		return badName(name);
	if (exact && !mine)
		return Error(EINVAL,
			"opening " + quoted(name) + " with exact parameters needs the parameters");
	drm_vdla_pipeline_open args = {};
	std::memcpy(args.name, name.data(), name.size());
	if (mine)
		std::copy(mine->begin(), mine->end(), args.params);
	args.flags = exact ? DRM_VDLA_PIPELINE_OPEN_EXACT : 0;
	const uint64_t since = monotonicNs();
	if (int err = callIoctl(device.fd(), DRM_IOCTL_VDLA_PIPELINE_OPEN, &args)) {
		switch (err) {
		case ENOENT:
			return Error(err, "no pipeline is named '" + name + "'");
		case EEXIST:
			/* The kernel compares the parameters only once the file is found a
			 * newcomer. */
			if (args.params_differ)
				return Error(err,
					quoted(name)
						+ " has other parameters than asked (its owner is "
						+ held(args.owner) + ")");
			return Error(err,
				quoted(name) + " is open on this Device already, or owned by it");
		case EAGAIN:
			return Error(err,
				"cannot open " + quoted(name)
					+ ": this Device has 16 pipelines open, or no room in "
					  "its event space for the pipeline's events "
					  "(dispatch them)");
		default:
			return Error(err, "cannot open " + quoted(name));
		}
	}
	PipelineParams params;
	std::copy(std::begin(args.params), std::end(args.params), params.begin());
	auto core = std::make_shared<PipelineCore>(device, name, args.handle, false);
	return std::unique_ptr<Pipeline>(
		new Pipeline(std::move(core), params, mine && args.params_differ, since));
}

Device &Pipeline::device() const
{
	return core_->device;
}

const std::string &Pipeline::name() const
{
	return core_->name;
}

uint32_t Pipeline::handle() const
{
	return core_->handle;
}

bool Pipeline::isOwner() const
{
	return core_->owner;
}

const PipelineParams &Pipeline::params() const
{
	return params_;
}

bool Pipeline::paramsDiffered() const
{
	return paramsDiffered_;
}

int Pipeline::eventFd() const
{
	return core_->device.fd();
}

Result<PipelineStatus> Pipeline::query() const
{
	PipelineCore &core = *core_;
	std::lock_guard<std::mutex> guard(core.lock);
	if (core.ended)
		return ended(core);
	drm_vdla_pipeline_query args = {};
	args.handle = core.handle;
	if (int err = callIoctl(core.device.fd(), DRM_IOCTL_VDLA_PIPELINE_QUERY, &args))
		return Error(err, "cannot query " + quoted(core.name));
	PipelineStatus status;
	status.name = std::string(args.name, strnlen(args.name, sizeof(args.name)));
	std::copy(std::begin(args.params), std::end(args.params), status.params.begin());
	status.state = args.state == DRM_VDLA_PIPELINE_STATE_GONE ? PipelineState::Gone
								  : PipelineState::Live;
	status.isOwner = args.is_owner;
	status.references = args.references;
	status.channels = args.channels;
	status.exitActions = actionsOf(args.exit_actions);
	status.exitRuns = args.exit_runs;
	status.owner = holderOf(args.owner);
	return status;
}

Result<void> Pipeline::setExitAction(const PipelineExitActions &actions, uint64_t userData)
{
	PipelineCore &core = *core_;
	std::lock_guard<std::mutex> guard(core.lock);
	if (core.ended)
		return ended(core);
	drm_vdla_pipeline_set_exit args = {};
	args.handle = core.handle;
	args.actions = bitsOf(actions);
	args.user_data = userData;
	switch (int err = callIoctl(core.device.fd(), DRM_IOCTL_VDLA_PIPELINE_SET_EXIT, &args)) {
	case 0:
		return {};
	case EPERM:
		return Error(err, quoted(core.name) + " is owned by " + held(args.owner));
	case ECANCELED:
		return gone(core);
	case EAGAIN:
		return Error(err,
			"no room in the Device's event space for the idle event of "
				+ quoted(core.name) + " (dispatch its events)");
	default:
		return Error(err, "cannot set the exit action of " + quoted(core.name));
	}
}

Result<void> Pipeline::destroy(bool force)
{
	PipelineCore &core = *core_;
	std::lock_guard<std::mutex> guard(core.lock);
	if (core.ended)
		return ended(core);
	drm_vdla_pipeline_destroy args = {};
	args.handle = core.handle;
	args.flags = force ? DRM_VDLA_PIPELINE_DESTROY_FORCE : 0;
	switch (int err = callIoctl(core.device.fd(), DRM_IOCTL_VDLA_PIPELINE_DESTROY, &args)) {
	case 0:
		/*
		 * The kernel left the buffers this file took with it (their
		 * channels are gone): endLocked() closes their handles.
		 */
		endLocked(core);
		return {};
	case EPERM:
		return Error(err, quoted(core.name) + " is owned by " + held(args.owner));
	case EBUSY:
		return Error(err,
			quoted(core.name) + " has " + std::to_string(args.references)
				+ (args.references == 1 ? " reference" : " references")
				+ ": destroy it with force");
	case ECANCELED:
		return gone(core);
	default:
		return Error(err, "cannot destroy " + quoted(core.name));
	}
}

Result<void> Pipeline::close()
{
	PipelineCore &core = *core_;
	std::lock_guard<std::mutex> guard(core.lock);
	if (core.ended)
		return ended(core);
	if (core.owner)
		return Error(
			EINVAL, quoted(core.name) + " is this Device's own: destroy() ends it");
	/*
	 * Buffers taken through it go back first, while the handle is still
	 * ours to name them by: CLOSE would return them too if the pipeline
	 * is live, but not if it is gone, and nothing tells which it did.
	 */
	std::vector<TakenBuffer *> taken(core.taken.begin(), core.taken.end());
	for (TakenBuffer *t : taken)
		settleLocked(core, *t);
	drm_vdla_pipeline_close args = {};
	args.handle = core.handle;
	int err = callIoctl(core.device.fd(), DRM_IOCTL_VDLA_PIPELINE_CLOSE, &args);
	if (err && err != ENOENT)
		return Error(err, "cannot close " + quoted(core.name));
	endLocked(core);
	return {};
}

void Pipeline::setEventCallback(EventCallback callback)
{
	std::lock_guard<std::mutex> guard(core_->lock);
	core_->callback = std::move(callback);
}

Result<unsigned> Pipeline::dispatch(std::chrono::milliseconds timeout)
{
	/* Locals: a callback may destroy this object. */
	std::shared_ptr<PipelineCore> core = core_;
	const uint64_t since = since_;
	{
		std::lock_guard<std::mutex> guard(core->lock);
		if (core->ended)
			return ended(*core);
	}
	const uint32_t handle = core->handle;
	auto events = DeviceEvents::take(core->device, DeviceEvents::Kind::Pipeline, timeout,
		[handle](const DeviceEvent &e) { return e.pipeline.handle == handle; });
	if (!events)
		return events.error();

	unsigned dispatched = 0;
	for (const DeviceEvent &raw : *events) {
		const drm_vdla_event_pipeline &e = raw.pipeline;
		/* Sent before this handle existed: to a closed one of the same number. */
		if (e.timestamp_ns < since)
			continue;
		PipelineEvent event;
		event.type = e.base.type == DRM_VDLA_EVENT_PIPELINE_GONE
			? PipelineEvent::Type::Gone
			: PipelineEvent::Type::Idle;
		event.actions = actionsOf(e.actions);
		event.userData = e.user_data;
		event.pid = e.pid;
		event.timestamp = std::chrono::nanoseconds(e.timestamp_ns);
		EventCallback callback;
		{
			std::lock_guard<std::mutex> guard(core->lock);
			if (core->objectGone || core->ended)
				break;
			/* A copy: the callback may replace itself, or destroy the Pipeline. */
			callback = core->callback;
		}
		dispatched++;
		if (callback)
			callback(*this, event);
	}
	return dispatched;
}

Channel::Channel(Pipeline &pipeline, uint32_t id, bool duplicate, bool holdsHandle)
	: pipeline_(pipeline), core_(pipeline.core_), id_(id), duplicate_(duplicate),
	  holdsHandle_(holdsHandle)
{
}

Channel::~Channel()
{
	bool destroy;
	{
		std::lock_guard<std::mutex> guard(core_->lock);
		/* A pipeline ended here took the file's channel handles with it. */
		destroy = holdsHandle_ && !destroyed_ && !core_->ended;
	}
	if (destroy)
		this->destroy();
}

Result<std::unique_ptr<Channel>> Channel::create(
	Pipeline &pipeline, const ChannelAttributes &attributes, Context *context)
{
	PipelineCore &core = *pipeline.core_;
	/* Context ids are per file: another Device's would name one of this file's. */
	if (context && &context->device() != &core.device)
		return Error(EINVAL, "the context belongs to another Device");
	std::lock_guard<std::mutex> guard(core.lock);
	if (core.ended)
		return ended(core);
	drm_vdla_channel_create args = {};
	args.pipeline = core.handle;
	args.ctx_id = context ? context->id() : 0;
	std::copy(attributes.begin(), attributes.end(), args.attrs);
	switch (int err = callIoctl(core.device.fd(), DRM_IOCTL_VDLA_CHANNEL_CREATE, &args)) {
	case 0:
		break;
	case ENOENT:
		return Error(err,
			"cannot create a channel in " + quoted(core.name) + ": context "
				+ std::to_string(args.ctx_id) + " is gone");
	case EAGAIN:
		return Error(err, quoted(core.name) + " has 32 channels already");
	case ECANCELED:
		return gone(core);
	default:
		return Error(err, "cannot create a channel in " + quoted(core.name));
	}
	return std::unique_ptr<Channel>(new Channel(pipeline, args.channel_id, false, true));
}

Result<std::unique_ptr<Channel>> Channel::dup(Pipeline &pipeline, uint32_t id)
{
	PipelineCore &core = *pipeline.core_;
	std::lock_guard<std::mutex> guard(core.lock);
	if (core.ended)
		return ended(core);
	drm_vdla_channel_dup args = {};
	args.pipeline = core.handle;
	args.channel_id = id;
	switch (int err = callIoctl(core.device.fd(), DRM_IOCTL_VDLA_CHANNEL_DUP, &args)) {
	case 0:
		break;
	case ENOENT:
		return Error(err,
			"there is no channel " + std::to_string(id) + " in " + quoted(core.name));
	case EEXIST:
		/*
		 * The kernel names the duplicate's holder, or the owner when the
		 * caller owns it: both are this process when it is named.
		 */
		if (args.owner.pid == ::getpid())
			return Error(err,
				channelOf(id, core)
					+ " is this process's own, or was duplicated into it "
					  "already");
		return Error(err,
			channelOf(id, core) + " was duplicated already, into " + held(args.owner));
	case ECANCELED:
		return gone(core);
	default:
		return Error(err, "cannot duplicate " + channelOf(id, core));
	}
	return std::unique_ptr<Channel>(new Channel(pipeline, id, true, true));
}

Result<std::unique_ptr<Channel>> Channel::lookup(Pipeline &pipeline, uint32_t id)
{
	std::unique_ptr<Channel> channel(new Channel(pipeline, id, false, false));
	/* That it exists: the state comes with any attribute. */
	auto state = channel->state();
	if (!state)
		return state.error();
	return channel;
}

Pipeline &Channel::pipeline() const
{
	return pipeline_;
}

uint32_t Channel::id() const
{
	return id_;
}

bool Channel::isDuplicate() const
{
	return duplicate_;
}

bool Channel::holdsHandle() const
{
	return holdsHandle_;
}

namespace {

/* Under the core's lock: CHANNEL_ATTR @op on @key of channel @id; the answer in @args. */
Result<void> channelAttr(
	PipelineCore &core, uint32_t id, uint32_t op, uint32_t key, drm_vdla_channel_attr *args)
{
	args->pipeline = core.handle;
	args->channel_id = id;
	args->op = op;
	args->key = key;
	switch (int err = callIoctl(core.device.fd(), DRM_IOCTL_VDLA_CHANNEL_ATTR, args)) {
	case 0:
		return {};
	case ENOENT:
		return Error(err,
			"there is no channel " + std::to_string(id) + " in " + quoted(core.name)
				+ " (its holders destroyed it)");
	case ECANCELED:
		return gone(core);
	default:
		return Error(err, "cannot reach " + channelOf(id, core));
	}
}

} /* namespace */

Result<uint64_t> Channel::attribute(uint32_t key) const
{
	if (key >= DRM_VDLA_CHANNEL_ATTRS)
		return Error(EINVAL, "channel attribute keys are below 8");
	std::lock_guard<std::mutex> guard(core_->lock);
	if (core_->ended)
		return ended(*core_);
	drm_vdla_channel_attr args = {};
	auto r = channelAttr(*core_, id_, DRM_VDLA_CHANNEL_ATTR_OP_GET, key, &args);
	if (!r)
		return r.error();
	return uint64_t(args.value);
}

Result<void> Channel::setAttribute(uint32_t key, uint64_t value)
{
	if (key >= DRM_VDLA_CHANNEL_ATTRS)
		return Error(EINVAL, "channel attribute keys are below 8");
	std::lock_guard<std::mutex> guard(core_->lock);
	if (core_->ended)
		return ended(*core_);
	drm_vdla_channel_attr args = {};
	args.value = value;
	return channelAttr(*core_, id_, DRM_VDLA_CHANNEL_ATTR_OP_SET, key, &args);
}

Result<void> Channel::start()
{
	std::lock_guard<std::mutex> guard(core_->lock);
	if (core_->ended)
		return ended(*core_);
	drm_vdla_channel_attr args = {};
	return channelAttr(*core_, id_, DRM_VDLA_CHANNEL_ATTR_OP_START, 0, &args);
}

Result<void> Channel::stop()
{
	std::lock_guard<std::mutex> guard(core_->lock);
	if (core_->ended)
		return ended(*core_);
	drm_vdla_channel_attr args = {};
	return channelAttr(*core_, id_, DRM_VDLA_CHANNEL_ATTR_OP_STOP, 0, &args);
}

Result<ChannelState> Channel::state() const
{
	std::lock_guard<std::mutex> guard(core_->lock);
	if (core_->ended)
		return ended(*core_);
	drm_vdla_channel_attr args = {};
	auto r = channelAttr(*core_, id_, DRM_VDLA_CHANNEL_ATTR_OP_GET, 0, &args);
	if (!r)
		return r.error();
	return args.state == DRM_VDLA_CHANNEL_STATE_STOPPED ? ChannelState::Stopped
							    : ChannelState::Started;
}

Result<uint32_t> Channel::attach(uint32_t port, Buffer &buffer, bool readOnly)
{
	/* GEM handles are per file: another Device's would name one of this file's BOs. */
	if (&buffer.device() != &core_->device)
		return Error(EINVAL, "the buffer belongs to another Device");
	if (port >= kChannelPorts)
		return Error(EINVAL, "channels have ports 0 to 3");
	PipelineCore &core = *core_;
	std::lock_guard<std::mutex> guard(core.lock);
	if (core.ended)
		return ended(core);
	drm_vdla_port_buffer args = {};
	args.pipeline = core.handle;
	args.channel_id = id_;
	args.port = port;
	args.op = DRM_VDLA_PORT_OP_ATTACH;
	args.flags = readOnly ? DRM_VDLA_PORT_READ_ONLY : 0;
	args.handle = buffer.handle();
	const std::string where = "port " + std::to_string(port) + " of " + channelOf(id_, core);
	switch (int err = callIoctl(core.device.fd(), DRM_IOCTL_VDLA_PORT_BUFFER, &args)) {
	case 0:
		return uint32_t(args.index);
	case EPERM:
		return Error(err, channelOf(id_, core) + " is owned by " + held(args.owner));
	case EAGAIN:
		return Error(err, where + " lends 8 buffers already");
	case EACCES:
		return Error(err, "the buffer is read-only on this Device: attach it read-only");
	case EEXIST:
		return Error(err, "the buffer is attached to " + where + " already");
	case EINVAL:
		return Error(err,
			where + " lends its buffers " + (readOnly ? "read-write" : "read-only")
				+ ", and all alike");
	case ENOENT:
		return Error(err,
			"there is no channel " + std::to_string(id_) + " in " + quoted(core.name)
				+ " (its holders destroyed it)");
	case ECANCELED:
		return gone(core);
	default:
		return Error(err, "cannot attach the buffer to " + where);
	}
}

Result<PortBuffer> Channel::take(uint32_t port)
{
	if (port >= kChannelPorts)
		return Error(EINVAL, "channels have ports 0 to 3");
	PipelineCore &core = *core_;
	std::lock_guard<std::mutex> guard(core.lock);
	if (core.ended)
		return ended(core);
	drm_vdla_port_buffer args = {};
	args.pipeline = core.handle;
	args.channel_id = id_;
	args.port = port;
	args.op = DRM_VDLA_PORT_OP_TAKE;
	const std::string where = "port " + std::to_string(port) + " of " + channelOf(id_, core);
	switch (int err = callIoctl(core.device.fd(), DRM_IOCTL_VDLA_PORT_BUFFER, &args)) {
	case 0:
		break;
	case EAGAIN:
		return Error(err, "no buffer of " + where + " is free");
	case EBUSY:
		return Error(err,
			"this Device holds the free buffer of " + where
				+ " already (it imported it), with an access of its own");
	case ENOENT:
		return Error(err,
			"there is no channel " + std::to_string(id_) + " in " + quoted(core.name)
				+ " (its holders destroyed it)");
	case ECANCELED:
		return gone(core);
	default:
		return Error(err, "cannot take a buffer of " + where);
	}

	auto taken = std::make_unique<TakenBuffer>();
	taken->core = core_;
	taken->channel = id_;
	taken->port = port;
	taken->index = args.index;
	taken->handle = args.handle;
	taken->own = args.flags & DRM_VDLA_PORT_TAKEN_OWN;
	core.taken.insert(taken.get());
	auto buffer = Buffer::borrowed(core.device, args.handle);
	if (!buffer) {
		settleLocked(core, *taken);
		return buffer.error();
	}
	taken->buffer = std::move(*buffer);
	return PortBuffer(std::move(taken));
}

Result<void> Channel::destroy()
{
	PipelineCore &core = *core_;
	std::lock_guard<std::mutex> guard(core.lock);
	if (core.ended)
		return ended(core);
	if (destroyed_)
		return Error(EINVAL, channelOf(id_, core) + " was destroyed here already");
	drm_vdla_channel_destroy args = {};
	args.pipeline = core.handle;
	args.channel_id = id_;
	switch (int err = callIoctl(core.device.fd(), DRM_IOCTL_VDLA_CHANNEL_DESTROY, &args)) {
	case 0:
		destroyed_ = true;
		return {};
	case EPERM:
		return Error(err, channelOf(id_, core) + " is owned by " + held(args.owner));
	case ENOENT:
		return Error(err,
			"there is no channel " + std::to_string(id_) + " in " + quoted(core.name));
	case ECANCELED:
		return gone(core);
	default:
		return Error(err, "cannot destroy " + channelOf(id_, core));
	}
}

PortBuffer::PortBuffer(std::unique_ptr<TakenBuffer> taken)
	: taken_(std::move(taken)), channel_(taken_->channel), port_(taken_->port),
	  index_(taken_->index)
{
}

PortBuffer::PortBuffer(PortBuffer &&other) noexcept
	: taken_(std::move(other.taken_)), channel_(other.channel_), port_(other.port_),
	  index_(other.index_)
{
}

PortBuffer &PortBuffer::operator=(PortBuffer &&other) noexcept
{
	if (this != &other) {
		giveBack();
		taken_ = std::move(other.taken_);
		channel_ = other.channel_;
		port_ = other.port_;
		index_ = other.index_;
	}
	return *this;
}

PortBuffer::~PortBuffer()
{
	if (taken_)
		giveBack();
}

bool PortBuffer::holds() const
{
	if (!taken_)
		return false;
	std::lock_guard<std::mutex> guard(taken_->core->lock);
	return taken_->buffer != nullptr;
}

Buffer &PortBuffer::buffer() const
{
	return *taken_->buffer;
}

uint32_t PortBuffer::channel() const
{
	return channel_;
}

uint32_t PortBuffer::port() const
{
	return port_;
}

uint32_t PortBuffer::index() const
{
	return index_;
}

Result<void> PortBuffer::giveBack()
{
	if (!taken_)
		return Error(EINVAL, "the PortBuffer holds no buffer");
	std::unique_ptr<TakenBuffer> taken = std::move(taken_);
	PipelineCore &core = *taken->core;
	std::lock_guard<std::mutex> guard(core.lock);
	/* Ending the pipeline here let go of it already. */
	if (!core.taken.count(taken.get()))
		return {};
	return settleLocked(core, *taken);
}

} /* namespace vdla */
