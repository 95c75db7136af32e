/* SPDX-License-Identifier: MIT */
/*
 * Pipelines shared between processes (driver 1.12; uapi/drm/vdla_accel.h,
 * "Pipelines, channels and ports"). A privileged process, a daemon,
 * creates a named pipeline and owns it; applications open it by name and
 * get the creator's parameters. Anyone with the pipeline open creates
 * channels in it, each with the jobs of one context as its work, reads and
 * sets their attributes, starts and stops them, and borrows the buffers
 * their ports lend. The kernel keeps who owns what: only the owner
 * destroys a pipeline, only a channel's creator attaches buffers to it and
 * gives one other process a handle to it (once, ever), a buffer goes back
 * from the process that took it; and when the last application lets go,
 * even by dying, the kernel runs the exit action the owner chose and
 * tells it. Every refusal here names the process in the way.
 *
 *	// The daemon.
 *	auto camera = vdla::Pipeline::create(device, "camera", { 640, 480, 30 });
 *	vdla::PipelineExitActions exit;
 *	exit.stopChannels = exit.notify = true;
 *	(*camera)->setExitAction(exit);
 *	(*camera)->setEventCallback([](vdla::Pipeline &, const vdla::PipelineEvent &e) {
 *		// PipelineEvent::Type::Idle: the last application left (e.pid)
 *	});
 *	auto channel = vdla::Channel::create(**camera, {}, context.get());
 *	(*channel)->attach(0, *frame);
 *	(*camera)->dispatch(0ms);              // on POLLIN of eventFd()
 *
 *	// An application.
 *	auto camera = vdla::Pipeline::open(device, "camera");
 *	auto channel = vdla::Channel::lookup(**camera, id);
 *	auto frame = (*channel)->take(0);      // frame->buffer().map() ...
 *	                                       // given back when `frame` goes
 *
 * Objects of one Device, as the kernel's handles are per open file. A
 * Pipeline's Channels and PortBuffers must go before it goes. Pipeline,
 * Channel and PortBuffer calls are safe from several threads (each call is
 * one ioctl under the Pipeline's lock), but destroying an object, as
 * always, is not, while another thread uses it.
 *
 * Events: the owner's IDLE (the exit action ran) and the others' GONE (the
 * owner destroyed the pipeline or exited) come on the Device's file, as
 * the lease events of a ResourceManager do. Each consumer's dispatch()
 * takes its own: events read by one are kept for the other. A program
 * that waits in poll() on the Device's file must call, when it is
 * readable, the dispatch() of every consumer of the Device (a consumer's
 * events may already have been read by another, and would not make the
 * file readable again); threads that each wait in their own dispatch()
 * need nothing more.
 */
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <vdla/result.h>

namespace vdla {

class Buffer;
class Context;
class Device;
struct PipelineCore;
struct TakenBuffer;

/* The creator's parameters, numbers a pipeline's users agree on (DRM_VDLA_PIPELINE_PARAMS). */
using PipelineParams = std::array<uint32_t, 8>;
/* A channel's attributes, by key (DRM_VDLA_CHANNEL_ATTRS). */
using ChannelAttributes = std::array<uint64_t, 8>;

/* A channel has ports 0 to kChannelPorts - 1, each lending up to kPortBuffers buffers. */
constexpr uint32_t kChannelPorts = 4;
constexpr uint32_t kPortBuffers = 8;

/* A process holding something, as the kernel names it in a refusal or a query. */
struct Holder {
	/* In this process's pid namespace; 0 if it is not visible there. */
	int pid = 0;
	/* Its name (comm) when it opened the Device it holds through. */
	std::string name;

	/* "pid 412 (vdla-pipelined)". */
	std::string toString() const;
};

/*
 * What the kernel does, itself, when the last reference other than the
 * owner's goes (closed, or its process exited or was killed).
 */
struct PipelineExitActions {
	/* Stop every channel, cancelling its context's jobs not started. */
	bool stopChannels = false;
	/* Set every channel's attributes back to those it was created with. */
	bool resetAttributes = false;
	/* Tell the owner: a PipelineEvent::Type::Idle event. */
	bool notify = false;
};

enum class PipelineState {
	Live,
	/* Destroyed with force, or its owner exited: only close() and query() still work. */
	Gone,
};

/* What Pipeline::query() reports. */
struct PipelineStatus {
	std::string name;
	/* The creator's. */
	PipelineParams params{};
	PipelineState state = PipelineState::Live;
	/* Whether this is the owner's handle. */
	bool isOwner = false;
	/* References of other Devices than the owner's (in this process or another). */
	uint32_t references = 0;
	uint32_t channels = 0;
	PipelineExitActions exitActions;
	/* How many times the exit action ran. */
	uint32_t exitRuns = 0;
	Holder owner;
};

struct PipelineEvent {
	enum class Type {
		/* To the owner, with notify: the exit action ran. */
		Idle,
		/* To the others: the pipeline is gone; only close() and query() still work. */
		Gone,
	};
	Type type = Type::Idle;
	/* Idle: the actions that ran, and setExitAction()'s @userData. */
	PipelineExitActions actions;
	uint64_t userData = 0;
	/* Idle: the process whose reference was the last, in the owner's pid namespace. */
	int pid = 0;
	/* When it was sent, CLOCK_MONOTONIC. */
	std::chrono::nanoseconds timestamp{ 0 };
};

class Pipeline
{
public:
	/*
	 * Called from dispatch(), on its caller's thread. It may call the
	 * Pipeline, destroy() and close() it, and destroy the object itself.
	 */
	using EventCallback = std::function<void(Pipeline &, const PipelineEvent &)>;

	/*
	 * Creates the pipeline @name (1 to 31 visible ASCII characters) with
	 * @params; this Device owns it. Errors: EACCES (needs CAP_SYS_ADMIN
	 * or the group of the module parameter vdla.pipeline_group), EEXIST
	 * (the name is taken: the reason names its owner), EAGAIN (16
	 * pipelines on the device, or 16 open on this Device), EINVAL (the
	 * name), EOPNOTSUPP (driver before 1.12).
	 */
	static Result<std::unique_ptr<Pipeline>> create(
		Device &device, const std::string &name, const PipelineParams &params = {});

	/*
	 * Opens the pipeline @name: a reference, with the creator's
	 * parameters (params()). With @mine, paramsDiffered() tells whether
	 * the creator's are not those; with @exact as well, such a pipeline
	 * is refused (EEXIST) and nothing opened. Errors: ENOENT (no such
	 * pipeline), EEXIST (@exact and the parameters differ, or this Device
	 * has it open, or owns it, already), EAGAIN (16 pipelines open on
	 * this Device, or no room in its event space for the pipeline's GONE
	 * event: dispatch its events), EINVAL (the name, @exact without
	 * @mine), EOPNOTSUPP (driver before 1.12).
	 */
	static Result<std::unique_ptr<Pipeline>> open(Device &device, const std::string &name,
		const PipelineParams *mine = nullptr, bool exact = false);

	/*
	 * A reference is closed (close()); the owner's pipeline is destroyed
	 * without force (destroy(false)), errors ignored: while other Devices
	 * hold references (EBUSY) it lives on, with no object to end it,
	 * until this Device's file closes. An owner that means to end it for
	 * everyone calls destroy(true) first.
	 */
	~Pipeline();
	Pipeline(const Pipeline &) = delete;
	Pipeline &operator=(const Pipeline &) = delete;

	Device &device() const;
	const std::string &name() const;
	/* The handle in the Device's file. */
	uint32_t handle() const;
	bool isOwner() const;
	/* The creator's parameters. */
	const PipelineParams &params() const;
	/* open() with @mine: whether the creator's parameters were not those. */
	bool paramsDiffered() const;

	/* Errors: EINVAL (closed or destroyed here already). */
	Result<PipelineStatus> query() const;

	/*
	 * The owner sets the exit action, replacing the last; @userData comes
	 * back in the Idle event. Errors: EPERM (not the owner: the reason
	 * names it), ECANCELED (gone), EAGAIN (notify, and no room in the
	 * Device's event space for the event: dispatch its events).
	 */
	Result<void> setExitAction(const PipelineExitActions &actions, uint64_t userData = 0);

	/*
	 * The owner destroys the pipeline: its channels are stopped and
	 * destroyed, buffers this Device took through it are given back, and
	 * its name is free. With @force even while other Devices hold
	 * references: they get a Gone event, and their calls ECANCELED.
	 * Errors: EPERM (not the owner: the reason names it), EBUSY (others
	 * hold references and no @force: the reason says how many; nothing
	 * changed), ECANCELED, EINVAL (destroyed here already).
	 */
	Result<void> destroy(bool force = false);

	/*
	 * Drops this reference: buffers this Device took through it are
	 * given back, its channel handles destroyed; if no other Device but
	 * the owner's holds the pipeline then, the kernel runs the exit
	 * action. Ends a pipeline that is gone, too.
	 * Errors: EINVAL (the owner's handle, which destroy() ends; closed
	 * already).
	 */
	Result<void> close();

	/* The callback of dispatch(); none by default (events are then dropped). */
	void setEventCallback(EventCallback callback);

	/*
	 * Takes this pipeline's events, waiting up to @timeout for the first
	 * (a zero one polls, a negative one waits for ever), and calls the
	 * callback with each. Events of the Device's other pipelines and lease
	 * events read here are kept for their own dispatch(). Returns how many
	 * it dispatched. Errors: those of poll() and read(), EINVAL (closed or
	 * destroyed).
	 */
	Result<unsigned> dispatch(std::chrono::milliseconds timeout);

	/* The descriptor to poll for POLLIN (the Device's). */
	int eventFd() const;

private:
	friend class Channel;

	Pipeline(std::shared_ptr<PipelineCore> core, const PipelineParams &params, bool differed,
		uint64_t since);

	std::shared_ptr<PipelineCore> core_;
	PipelineParams params_;
	bool paramsDiffered_;
	/* CLOCK_MONOTONIC ns before the handle existed: older events were for another. */
	uint64_t since_;
};

enum class ChannelState {
	Started,
	/* Its context's jobs not started were cancelled. */
	Stopped,
};

class PortBuffer;

class Channel
{
public:
	/*
	 * A new channel in @pipeline, started, with @attributes (those the
	 * exit action's resetAttributes restores) and the jobs of @context,
	 * if given, as its work (stopping the channel cancels those not
	 * started). This Device owns it: it alone attaches buffers to it and
	 * gives one other Device a duplicate. Errors: ENOENT (the context is
	 * gone), EAGAIN (32 channels in the pipeline), ECANCELED (the pipeline
	 * is gone), EINVAL (a context of another Device).
	 */
	static Result<std::unique_ptr<Channel>> create(Pipeline &pipeline,
		const ChannelAttributes &attributes = {}, Context *context = nullptr);

	/*
	 * A handle to another Device's channel @id: once per channel, ever.
	 * The channel lives until both its handles are destroyed. Errors:
	 * ENOENT (no such channel), EEXIST (duplicated already: the reason
	 * names into which process; or this Device owns it), ECANCELED.
	 */
	static Result<std::unique_ptr<Channel>> dup(Pipeline &pipeline, uint32_t id);

	/*
	 * Channel @id without a handle: what any Device with the pipeline
	 * open may do to a channel (attributes, start, stop, taking port
	 * buffers). Its destructor leaves the channel alone; its destroy()
	 * asks the kernel, which refuses with EPERM naming the owner unless
	 * this Device holds a handle. Errors: ENOENT, ECANCELED.
	 */
	static Result<std::unique_ptr<Channel>> lookup(Pipeline &pipeline, uint32_t id);

	/* destroy(), errors ignored. */
	~Channel();
	Channel(const Channel &) = delete;
	Channel &operator=(const Channel &) = delete;

	Pipeline &pipeline() const;
	/* Non-zero, unique in the pipeline: what others dup() or lookup(). */
	uint32_t id() const;
	/* Made by dup(). */
	bool isDuplicate() const;
	/* Made by create() or dup(): the object destroys a handle. */
	bool holdsHandle() const;

	/* Errors: EINVAL (@key not below 8), ENOENT (the channel is gone), ECANCELED. */
	Result<uint64_t> attribute(uint32_t key) const;
	Result<void> setAttribute(uint32_t key, uint64_t value);
	Result<void> start();
	/* Cancels its context's jobs not started. */
	Result<void> stop();
	Result<ChannelState> state() const;

	/*
	 * The channel's owner lends @buffer through @port: others take it
	 * while it is free. With @readOnly, they get it read-only (for the
	 * device and the CPU); a port lends all its buffers alike. Returns
	 * the buffer's index in the port. Errors: EPERM (not the channel's
	 * owner: the reason names it), EAGAIN (the port has 8 buffers),
	 * EACCES (a buffer this Device may not write, without @readOnly),
	 * EEXIST (attached to the port already), EINVAL (@port, a @readOnly
	 * unlike the port's other buffers, a Buffer of another Device),
	 * ECANCELED.
	 */
	Result<uint32_t> attach(uint32_t port, Buffer &buffer, bool readOnly = false);

	/*
	 * Takes a free buffer of @port; the PortBuffer gives it back when it
	 * goes. Errors: EAGAIN (none free), EBUSY (this Device has the free
	 * buffer already, e.g. as the owner who attached it), EINVAL
	 * (@port), ENOENT, ECANCELED.
	 */
	Result<PortBuffer> take(uint32_t port);

	/*
	 * Destroys this Device's handle: the channel goes with its last
	 * handle, stopped, and its ports with it (buffers still taken stay
	 * with their takers until they give them back). Errors: EPERM (no
	 * handle here, for a Channel of lookup(): the reason names the
	 * owner), ECANCELED, EINVAL (destroyed already).
	 */
	Result<void> destroy();

private:
	Channel(Pipeline &pipeline, uint32_t id, bool duplicate, bool holdsHandle);

	Pipeline &pipeline_;
	std::shared_ptr<PipelineCore> core_;
	uint32_t id_;
	bool duplicate_;
	bool holdsHandle_;
	/* destroy() ran; under the pipeline's lock. */
	bool destroyed_ = false;
};

/*
 * A buffer taken from a channel's port: a Buffer of this Device (read-only
 * if the port lends it so) until it is given back, by giveBack() or when
 * the PortBuffer goes. The handle is the kernel's to close: giving the
 * buffer back closes it. Closing or destroying the Pipeline gives back
 * the buffers taken through it; the PortBuffer then holds nothing.
 */
class PortBuffer
{
public:
	PortBuffer(PortBuffer &&other) noexcept;
	/* Gives back the buffer this holds first. */
	PortBuffer &operator=(PortBuffer &&other) noexcept;
	~PortBuffer();
	PortBuffer(const PortBuffer &) = delete;
	PortBuffer &operator=(const PortBuffer &) = delete;

	/* Whether it still holds the buffer (not given back, not moved from). */
	bool holds() const;
	/* The buffer; only while holds(). */
	Buffer &buffer() const;
	uint32_t channel() const;
	uint32_t port() const;
	/* Its index in the port. */
	uint32_t index() const;

	/*
	 * Gives the buffer back now: the Buffer and its mapping go. A channel
	 * or pipeline gone meanwhile is not an error: the buffer is let go
	 * all the same. Errors: EPERM (another process holds it: the reason
	 * names it; a bug), EINVAL (not held).
	 */
	Result<void> giveBack();

private:
	friend class Channel;

	explicit PortBuffer(std::unique_ptr<TakenBuffer> taken);

	std::unique_ptr<TakenBuffer> taken_;
	uint32_t channel_ = 0;
	uint32_t port_ = 0;
	uint32_t index_ = 0;
};

} /* namespace vdla */
