/* SPDX-License-Identifier: MIT */
/*
 * Streams, in the manner of NvSciStream: a producer hands a sequence of
 * packets (a packet is a set of buffers, its elements) to one or more
 * consumers, with a fence on every hand-over, so the CPU, vDLAs and other
 * processes form a pipeline without copies and without waiting on each
 * other's CPUs (docs/streams.md).
 *
 * A stream is a tree of blocks: a producer (with its pool) at the root,
 * consumers (each with its queue) at the leaves, and between them
 * multicasts, limiters and IPC source/destination pairs that carry the
 * stream into another process. Set-up runs by itself once the blocks are
 * connected: the consumers' element lists travel up and are reconciled with
 * the producer's, the pool allocates the packets, every block learns them,
 * and each endpoint gets a sync object for its fences. Each block reports
 * what happened to it as events on one pollable descriptor.
 *
 * Blocks of one process may be used from several threads; the library
 * serialises its own work on them. It never waits for a fence itself:
 * pre-fences go to the application, which waits on the CPU or makes a job
 * wait.
 */
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <vdla/attr_list.h>
#include <vdla/ipc.h>
#include <vdla/result.h>
#include <vdla/shared_buffer.h>
#include <vdla/sync.h>
#include <vdla/unique_fd.h>

namespace vdla {

class Device;

namespace detail {
struct StreamDown;
struct StreamUp;
struct StreamConsumerSetup;
/* A fence handed from block to block, shared by every copy of a message. */
using StreamHandover = std::shared_ptr<const SyncFence>;
} // namespace detail

/* The events of a block, by NvSciStream's names where it has them. */
enum class StreamEventType {
	/* The block is connected to the producer and (producer) to every consumer. */
	Connected,
	/* Set-up finished: packets known, sync object allocated; streaming may begin. */
	SetupComplete,
	/* A packet is available: getPacket() (producer) or acquire() (consumer). */
	PacketReady,
	/* A packet was added after set-up (a dynamic pool grew). */
	PacketCreate,
	/*
	 * The other side is gone: a consumer's producer, a producer's last
	 * consumer, a multicast's or an IPC block's branch. message says why.
	 */
	Disconnected,
	/* Set-up failed (message: the conflict) or a peer misbehaved. */
	Error,
};

const char *streamEventName(StreamEventType type);

/*
 * The CPU time this process spent in the stream library so far: in its
 * calls that do the stream's work (streamConnect(), queryEvent(),
 * getPacket(), present(), acquire(), release()) on every thread, and in
 * its IPC blocks' threads while they handle a message. Waiting costs none.
 * A forked child starts from its parent's count. Counting costs two reads
 * of the thread's CPU clock per call.
 */
std::chrono::nanoseconds streamCpuTime();

struct StreamEvent {
	StreamEventType type;
	/* Error and Disconnected: why, in words. */
	std::string message;
	/* Error: the errno (EBADMSG for reconciliation conflicts, ...). */
	int error = 0;
};

/* A packet as its current holder sees it. */
struct StreamPacket {
	/* The packet's number in the stream: the same in every process. */
	uint32_t id = 0;
	/* Consumer: the producer's frame count at present() (from 1). */
	uint64_t frame = 0;
	/* Consumer: when the producer presented it, CLOCK_MONOTONIC. */
	std::chrono::nanoseconds presentTime{ 0 };
	/* The elements, in the order the endpoints listed them. */
	std::vector<SharedBuffer *> elements;
	/*
	 * Wait for these before touching the elements: the consumers'
	 * release fences (producer) or the producer's present fence
	 * (consumer). An empty list: nothing to wait for.
	 */
	std::vector<SyncFence> fences;
};

class StreamBlock : public std::enable_shared_from_this<StreamBlock>
{
public:
	virtual ~StreamBlock();
	StreamBlock(const StreamBlock &) = delete;
	StreamBlock &operator=(const StreamBlock &) = delete;

	/* "producer", "consumer", "multicast", ... */
	virtual const char *kind() const = 0;

	/* Readable while an event is pending: poll() it. */
	int eventFd() const { return eventFd_.get(); }
	/*
	 * The next event, waiting up to @timeout (negative: for ever).
	 * Errors: ETIMEDOUT.
	 */
	Result<StreamEvent> queryEvent(std::chrono::milliseconds timeout);
	/* How many events are waiting. */
	size_t pendingEvents() const;

protected:
	friend Result<void> streamConnect(const std::shared_ptr<StreamBlock> &upstream,
		const std::shared_ptr<StreamBlock> &downstream);
	friend struct detail::StreamDown;
	friend class StreamMulticast;

	explicit StreamBlock(size_t maxOutputs);

	/* How the blocks talk: a message from upstream, one from output @output. */
	virtual void fromUpstream(detail::StreamDown &&message) = 0;
	virtual void fromDownstream(size_t output, detail::StreamUp &&message) = 0;
	/* Called when @output (or the upstream side) was connected. */
	virtual void outputConnected(size_t output);
	virtual void upstreamConnected();
	/* Whether the block takes an upstream block (IPC destinations do not). */
	virtual bool acceptsUpstream() const { return true; }

	void sendDown(size_t output, detail::StreamDown &&message);
	void sendUp(detail::StreamUp &&message);
	size_t outputCount() const { return downstream_.size(); }
	size_t maxOutputs() const { return maxOutputs_; }
	void freeOutput(size_t output);
	bool outputUsed(size_t output) const;

	/* Queues an event; raises the event descriptor. */
	void post(StreamEventType type, std::string message = {}, int error = 0);
	/*
	 * A packet was taken, @available are left: PacketReady events beyond
	 * that many stand for nothing now and go (a caller that read the event
	 * before taking the packet loses none).
	 */
	void trimPacketReady(size_t available);

private:
	struct Link {
		std::weak_ptr<StreamBlock> block;
		bool used = false;
	};

	UniqueFd eventFd_;
	std::deque<StreamEvent> events_;
	Link upstream_;
	size_t upstreamOutput_ = 0;
	std::vector<Link> downstream_;
	const size_t maxOutputs_;
	/* Messages sent before the block on the other side was connected. */
	std::vector<detail::StreamUp> pendingUp_;
};

/*
 * Connects @downstream below @upstream. A multicast takes as many
 * downstream blocks as it has outputs, in order, and a free output (its
 * consumer gone) again; every other block takes one. Errors: EBUSY (that
 * side is connected already), EINVAL (an IPC destination below a block:
 * its upstream is its socket; a producer below anything; a loop).
 */
Result<void> streamConnect(const std::shared_ptr<StreamBlock> &upstream,
	const std::shared_ptr<StreamBlock> &downstream);

/*
 * The packets of a producer. A static pool allocates all its packets at
 * set-up and nothing after, for systems that allocate nothing once
 * running; a dynamic pool starts with @initial and adds one when the
 * producer asks for a packet and none is free, up to @maximum. EINVAL
 * unless 1 <= packets (initial) <= maximum <= kMaxPackets.
 */
class StreamPool
{
public:
	static Result<std::shared_ptr<StreamPool>> createStatic(Device &device, uint32_t packets);
	static Result<std::shared_ptr<StreamPool>> createDynamic(
		Device &device, uint32_t initial, uint32_t maximum);

	/* The most packets a stream may have. */
	static constexpr uint32_t kMaxPackets = 64;

	Device &device() const { return device_; }
	uint32_t initialPackets() const { return initial_; }
	uint32_t maximumPackets() const { return maximum_; }
	bool isStatic() const { return initial_ == maximum_; }

private:
	StreamPool(Device &device, uint32_t initial, uint32_t maximum)
		: device_(device), initial_(initial), maximum_(maximum)
	{
	}

	Device &device_;
	uint32_t initial_;
	uint32_t maximum_;
};

/* What an endpoint needs of the stream: its elements and its engine. */
struct StreamEndpointConfig {
	/* Names the endpoint in conflicts and events. */
	std::string name;
	/*
	 * One unreconciled list per element, in the same order at every
	 * endpoint (element i of the producer is element i of each consumer).
	 */
	std::vector<AttrList> elements;
	/* Who signals this endpoint's fences and waits on the others': cpu or dla:N. */
	Accessor engine = Accessor::cpu();
};

class StreamProducer : public StreamBlock
{
public:
	/*
	 * A producer drawing its packets from @pool on @pool's device.
	 * Errors: EINVAL (no element, more than IpcEndpoint::kMaxFds, a
	 * list already reconciled, an engine other than cpu or dla:N).
	 */
	static Result<std::shared_ptr<StreamProducer>> create(
		std::shared_ptr<StreamPool> pool, StreamEndpointConfig config);
	~StreamProducer() override;

	const char *kind() const override { return "producer"; }

	/*
	 * After SetupComplete: the sync object whose points are this
	 * producer's present fences. A DLA producer's job signals its next
	 * point (SyncObject::submit()); a CPU producer signals it.
	 */
	SyncObject *sync() const { return sync_.get(); }

	/*
	 * Takes a free packet; its fences are the consumers' release fences.
	 * Errors: EAGAIN (none free: wait for PacketReady), ENOTCONN (set-up
	 * not complete), EPIPE (every consumer is gone), ECANCELED (set-up
	 * failed).
	 */
	Result<StreamPacket> getPacket();
	/*
	 * Hands packet @id, taken by getPacket(), to the consumers, with
	 * @point of sync() as its fence (0: the elements are written
	 * already, nothing to wait for). Errors: ENOENT (no such packet),
	 * EPERM (the packet is not this producer's to present now), EINVAL
	 * (@point has no fence yet: not made by sync(), or neither submitted
	 * nor signalled), ENODATA (a point sync() no longer keeps), EPIPE
	 * (every consumer is gone, also while it went down: the packet is
	 * free again).
	 */
	Result<void> present(uint32_t id, uint64_t point);

	/* The frames presented so far. */
	uint64_t framesPresented() const;

private:
	struct Packet;
	StreamProducer(std::shared_ptr<StreamPool> pool, StreamEndpointConfig config);

	void fromUpstream(detail::StreamDown &&message) override;
	void fromDownstream(size_t output, detail::StreamUp &&message) override;
	bool acceptsUpstream() const override { return false; }

	void setUp(std::vector<detail::StreamConsumerSetup> &&setups);
	Result<void> addPacket();
	void fail(int error, const std::string &why);

	std::shared_ptr<StreamPool> pool_;
	StreamEndpointConfig config_;
	std::vector<AttrList> reconciled_;
	std::unique_ptr<SyncObject> sync_;
	std::vector<std::unique_ptr<Packet>> packets_;
	std::deque<uint32_t> free_;
	uint64_t frames_ = 0;
	enum class State { Connecting, Streaming, Failed, Disconnected } state_ = State::Connecting;
	std::string failure_;
};

/*
 * A consumer's queue: FIFO keeps every packet presented, in order (the
 * producer runs out of packets when this consumer is slow, so it waits
 * for the slowest); a mailbox keeps only the newest, and a packet not yet
 * acquired when a newer one arrives goes back to the pool.
 */
enum class StreamQueueKind { Fifo, Mailbox };

class StreamConsumer : public StreamBlock
{
public:
	/* Errors: as StreamProducer::create(). */
	static Result<std::shared_ptr<StreamConsumer>> create(
		Device &device, StreamQueueKind queue, StreamEndpointConfig config);
	~StreamConsumer() override;

	const char *kind() const override { return "consumer"; }

	/* After SetupComplete: the sync object of this consumer's release fences. */
	SyncObject *sync() const { return sync_.get(); }

	/*
	 * Takes the next packet presented; its fences are the producer's.
	 * Errors: EAGAIN (none waiting), ENOTCONN (set-up not complete),
	 * EPIPE (disconnected: from the Disconnected event on, packets not
	 * yet taken are not this consumer's; one acquired before may be
	 * written again once its jobs ended: stop reading it), ECANCELED
	 * (set-up failed, here or at the producer).
	 */
	Result<StreamPacket> acquire();
	/*
	 * Gives packet @id back, with @point of sync() as the fence of this
	 * consumer's reads (0: done reading). Errors: ENOENT (no such packet),
	 * EPERM (not acquired by this consumer), EINVAL (@point has no fence
	 * yet), ENODATA (a point sync() no longer keeps).
	 */
	Result<void> release(uint32_t id, uint64_t point);

	/* Packets a mailbox replaced before they were acquired. */
	uint64_t packetsDropped() const;

private:
	struct Packet;
	StreamConsumer(Device &device, StreamQueueKind queue, StreamEndpointConfig config);

	void fromUpstream(detail::StreamDown &&message) override;
	void fromDownstream(size_t output, detail::StreamUp &&message) override;
	void upstreamConnected() override;

	void setUp(const SyncAttrList &producerWaiter);
	/* Fails here (not at the producer): gives back what it holds and leaves. */
	void leave(int error, const std::string &why);
	void returnPacket(uint32_t id, std::vector<detail::StreamHandover> fences);
	Packet *find(uint32_t id);

	Device &device_;
	StreamQueueKind queueKind_;
	StreamEndpointConfig config_;
	std::unique_ptr<SyncObject> sync_;
	std::vector<std::unique_ptr<Packet>> packets_;
	std::deque<uint32_t> queue_;
	uint64_t dropped_ = 0;
	enum class State { Connecting, Streaming, Failed, Disconnected } state_ = State::Connecting;
	std::string failure_;
};

/*
 * Sends every packet to each of its outputs and gives it back upstream
 * when all of them released it. Set-up waits for a consumer on every
 * output, unless finishConnecting() says to go on with those connected;
 * an output whose consumer connected and left before set-up (a consumer
 * process that died) is not waited for; when no consumer is left to set
 * up for (every output left, or, after finishConnecting(), left or never
 * connected), the stream ends (Disconnected at the producer). An output
 * connected later (or again, after its consumer left) is a late consumer:
 * its lists are checked against the packets the stream has, and a conflict
 * is reported to it (Error, then Disconnected) rather than disturbing the
 * others.
 */
class StreamMulticast : public StreamBlock
{
public:
	static Result<std::shared_ptr<StreamMulticast>> create(size_t outputs);
	~StreamMulticast() override;
	const char *kind() const override { return "multicast"; }

	/* Set-up goes on with the outputs connected now. */
	void finishConnecting();
	/* Outputs whose consumer takes packets now. */
	size_t activeOutputs() const;

private:
	struct Branch;
	explicit StreamMulticast(size_t outputs);

	void fromUpstream(detail::StreamDown &&message) override;
	void fromDownstream(size_t output, detail::StreamUp &&message) override;
	void outputConnected(size_t output) override;

	void forwardSetupIfReady();
	void attachLate(size_t output, std::vector<detail::StreamConsumerSetup> &&setups);
	void releaseFrom(size_t output, uint32_t id, std::vector<detail::StreamHandover> &&fences);
	void dropBranch(size_t output, const std::string &why);
	/* Tells the producer's side the stream has nobody left, once. */
	void endUpstream(const std::string &why);

	std::vector<std::unique_ptr<Branch>> branches_;
	bool finishConnecting_ = false;
	bool setupForwarded_ = false;
	bool setupDone_ = false;
	/* What a late consumer gets: every packet and the producer's waiter list. */
	std::vector<detail::StreamDown> history_;
	/* Per packet: which outputs hold it, and the fences they gave back. */
	struct Held;
	std::vector<std::unique_ptr<Held>> held_;
	/* Per packet: its elements, for the fences of a branch that goes. */
	std::map<uint32_t, std::vector<std::shared_ptr<SharedBuffer>>> elements_;
	/* Why the stream ended for good (empty while it goes on). */
	std::string ended_;
};

/*
 * Lets at most @maxPackets packets be downstream at once; a packet beyond
 * goes straight back upstream (the branch skips it), so a slow consumer
 * behind a multicast cannot hold every packet of the stream.
 */
class StreamLimiter : public StreamBlock
{
public:
	static Result<std::shared_ptr<StreamLimiter>> create(uint32_t maxPackets);
	~StreamLimiter() override;
	const char *kind() const override { return "limiter"; }

	/* Packets sent straight back because the limit was reached. */
	uint64_t packetsSkipped() const;

private:
	explicit StreamLimiter(uint32_t maxPackets);
	void fromUpstream(detail::StreamDown &&message) override;
	void fromDownstream(size_t output, detail::StreamUp &&message) override;

	uint32_t max_;
	std::vector<uint32_t> downstream_;
	uint64_t skipped_ = 0;
};

/*
 * The producer's side of a stream that goes on in another process: what
 * comes from upstream goes out on @endpoint, to a StreamIpcDst. The
 * buffers are sent as dma-bufs with the highest permission the consumers
 * behind asked for, fences as sync files. When the other process hangs
 * up or dies, the packets it held return upstream, each with the fences
 * of every device job still using its buffers (the kernel ends a dead
 * process's jobs), and the branch is disconnected.
 */
class StreamIpcSrc : public StreamBlock
{
public:
	static Result<std::shared_ptr<StreamIpcSrc>> create(std::unique_ptr<IpcEndpoint> endpoint);
	~StreamIpcSrc() override;
	const char *kind() const override { return "ipc-src"; }

	/*
	 * A consumer process that keeps a packet longer than @limit without
	 * giving it back is stuck (stopped, deadlocked, looping): it is cut
	 * off as if it died (Error ETIMEDOUT, then Disconnected), and its
	 * packets come back with the fences of its jobs, so a stuck consumer
	 * cannot drain the pool and stop the stream. Zero (the default): no
	 * limit. Set it above the longest a healthy consumer holds a packet.
	 */
	void setStallLimit(std::chrono::milliseconds limit);

private:
	class Worker;
	StreamIpcSrc();
	void fromUpstream(detail::StreamDown &&message) override;
	void fromDownstream(size_t output, detail::StreamUp &&message) override;

	std::unique_ptr<Worker> worker_;
};

/*
 * The consumer process's side: what comes from the StreamIpcSrc on
 * @endpoint goes down; the buffers are imported into @device. When the
 * producer's process hangs up or dies, the blocks below see Disconnected.
 *
 * With @copyPackets, the stream crosses a memory boundary instead: the
 * block allocates that many packets of its own on @device, reconciled with
 * the consumers below alone (so they may be in this vDLA's SRAM, which no
 * other process can reach), and copies each packet presented into a free
 * one with a BDMA job on @device, which waits for the producer's fence
 * and for the consumers' release fences of its packet. The producer's
 * packet goes back at once with the copy's fence; when none of its own is
 * free, the producer's packets wait here (FIFO back-pressure). Upstream,
 * it asks for the consumers' types and geometry, read-only, for @device
 * alone (AttrList::forCopyEngine()). EINVAL above StreamPool::kMaxPackets.
 */
class StreamIpcDst : public StreamBlock
{
public:
	static Result<std::shared_ptr<StreamIpcDst>> create(
		Device &device, std::unique_ptr<IpcEndpoint> endpoint, uint32_t copyPackets = 0);
	~StreamIpcDst() override;
	const char *kind() const override { return "ipc-dst"; }

private:
	class Worker;
	StreamIpcDst();
	void fromUpstream(detail::StreamDown &&message) override;
	void fromDownstream(size_t output, detail::StreamUp &&message) override;
	void outputConnected(size_t output) override;
	bool acceptsUpstream() const override { return false; }

	std::unique_ptr<Worker> worker_;
};

} /* namespace vdla */
