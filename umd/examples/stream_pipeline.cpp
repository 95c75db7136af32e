/* SPDX-License-Identifier: MIT */
/*
 * vdla-example-stream [--frames N] [--json] [--no-check]: the example of
 * docs/streams.md.
 * Three processes share one stream of camera frames (INT8 tensors
 * [1,4,32,32]) without copying them:
 *
 *   camera (this process, CPU) -> multicast -+-> IPC -> classifier (DLA job)
 *                                            +-> IPC -> logger (CPU)
 *
 * The classifier runs a fused CONV 3x3 -> SDP (scale, RELU) -> PDP max 2x2
 * layer on the last vDLA straight from the frame's buffer, in a job that
 * waits for the camera's fence, and checks every result against the same
 * layer computed on the CPU. The logger checks each frame's bytes. Halfway
 * through, the logger is killed; the stream goes on for the others. It
 * runs with FIFO queues (the camera waits for the slowest) and then with
 * mailboxes (consumers see the newest frame; older ones go back), and
 * prints frames per second, the latency from the camera's present() to the
 * end of the classifier's job on that frame, and the CPU time the three
 * processes spent per frame. Exit status 0 when every check held.
 *
 * --json: the figures as JSON lines, for make bench. --no-check: the
 * classifier and the logger skip their checks on the CPU, so the CPU time
 * per frame is the stream's, the fences', the job submissions' and the
 * frame fill's.
 */
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <vdla/context.h>
#include <vdla/device.h>
#include <vdla/stream.h>
#include <vdla/task_builder.h>

namespace {

using namespace vdla;

constexpr uint32_t kC = 4, kH = 32, kW = 32, kOut = 8, kK = 3;
constexpr uint32_t kConvH = kH - kK + 1, kConvW = kW - kK + 1;
constexpr uint32_t kPoolH = kConvH / 2, kPoolW = kConvW / 2;
constexpr uint32_t kFrameBytes = kC * kH * kW;
constexpr uint32_t kResultBytes = kOut * kPoolH * kPoolW;
constexpr auto kTimeout = std::chrono::seconds(30);

/* The consumers compare what they get with the CPU's answer (not --no-check). */
bool gCheck = true;

/* Frame @frame's byte @i: a moving pattern, as a camera would give. */
int8_t pixel(uint64_t frame, uint32_t i)
{
	return static_cast<int8_t>((i * 37 + frame * 11 + (i >> 7) * 5) % 256);
}

/* The layer's weights [kOut][kC][kK][kK], each -1, 0 or 1. */
int8_t weight(uint32_t i)
{
	return static_cast<int8_t>(static_cast<int>((i * 7 + 3) % 3) - 1);
}

/* The layer on the CPU: what the DLA must give, bit for bit. */
std::vector<int8_t> layerOnCpu(const int8_t *in)
{
	std::vector<int8_t> act(kOut * kConvH * kConvW);
	for (uint32_t o = 0; o < kOut; o++)
		for (uint32_t y = 0; y < kConvH; y++)
			for (uint32_t x = 0; x < kConvW; x++) {
				int32_t acc = 0;
				for (uint32_t c = 0; c < kC; c++)
					for (uint32_t ky = 0; ky < kK; ky++)
						for (uint32_t kx = 0; kx < kK; kx++)
							acc += in[(c * kH + y + ky) * kW + x + kx]
								* weight(((o * kC + c) * kK + ky)
										* kK
									+ kx);
				/* SDP: scale by 1/4 (towards zero), RELU, saturate to INT8. */
				int32_t v = std::max(acc / 4, 0);
				act[(o * kConvH + y) * kConvW + x]
					= static_cast<int8_t>(std::min(v, 127));
			}
	std::vector<int8_t> out(kResultBytes);
	for (uint32_t o = 0; o < kOut; o++)
		for (uint32_t y = 0; y < kPoolH; y++)
			for (uint32_t x = 0; x < kPoolW; x++) {
				int8_t m = -128;
				for (uint32_t dy = 0; dy < 2; dy++)
					for (uint32_t dx = 0; dx < 2; dx++)
						m = std::max(m,
							act[(o * kConvH + 2 * y + dy) * kConvW
								+ 2 * x + dx]);
				out[(o * kPoolH + y) * kPoolW + x] = m;
			}
	return out;
}

/* What each endpoint needs of the one element: an INT8 tensor [1,4,32,32]. */
AttrList frameNeeds(const std::string &who, Accessor accessor, Permission permission)
{
	AttrList needs(who);
	(void)needs.setTypes({ BufferType::Tensor });
	(void)needs.setTensorDataType(TensorDataType::Int8);
	(void)needs.setTensorDims({ 1, kC, kH, kW });
	(void)needs.setAccessors({ accessor });
	(void)needs.setRequiredPermission(permission);
	if (accessor.kind == Accessor::Kind::Cpu)
		(void)needs.setNeedCpuAccess(true);
	return needs;
}

int fail(const char *what, const Error &error)
{
	fprintf(stderr, "%s: %s\n", what, error.message().c_str());
	return 1;
}

/* Waits for the next event of @who's @block; its type, Error on a timeout. */
StreamEventType nextEvent(const char *who, StreamBlock &block)
{
	auto event = block.queryEvent(kTimeout);
	if (!event) {
		fprintf(stderr, "%s: %s\n", who, event.error().message().c_str());
		return StreamEventType::Error;
	}
	if (event->type == StreamEventType::Error)
		fprintf(stderr, "%s: %s\n", who, event->message.c_str());
	return event->type;
}

/* The classifier process: the layer on @node's vDLA for every frame. */
int classifier(const std::string &node, uint32_t dla, std::unique_ptr<IpcEndpoint> endpoint,
	StreamQueueKind queue, int resultsFd)
{
	auto device = Device::open(node);
	if (!device)
		return fail("classifier: open", device.error());
	StreamEndpointConfig config{ "classifier",
		{ frameNeeds("classifier", Accessor::dla(dla), Permission::ReadOnly) },
		Accessor::dla(dla) };
	auto ipc = StreamIpcDst::create(**device, std::move(endpoint));
	auto consumer = StreamConsumer::create(**device, queue, std::move(config));
	auto ctx = Context::create(**device);
	auto weights = Buffer::create(**device, kOut * kC * kK * kK);
	auto result = Buffer::create(**device, kResultBytes);
	if (!ipc)
		return fail("classifier: IPC destination", ipc.error());
	if (!consumer)
		return fail("classifier: consumer", consumer.error());
	if (!ctx || !weights || !result)
		return 1;
	auto weightBytes = (*weights)->map();
	auto resultBytes = (*result)->map();
	if (!weightBytes || !resultBytes)
		return 1;
	for (uint32_t i = 0; i < kOut * kC * kK * kK; i++)
		(*weightBytes)[i] = static_cast<uint8_t>(weight(i));
	/* The frame's fence orders the job; the buffer's own fences need not. */
	(*ctx)->setImplicitSync(false);
	if (!streamConnect(*ipc, *consumer))
		return 1;

	std::vector<double> latencies;
	uint64_t lastFrame = 0, frames = 0;
	for (;;) {
		StreamEventType type = nextEvent("classifier", **consumer);
		if (type == StreamEventType::Disconnected || type == StreamEventType::Error)
			break;
		if (type != StreamEventType::PacketReady)
			continue;
		auto packet = (*consumer)->acquire();
		if (!packet)
			return fail("classifier: acquire", packet.error());
		if (packet->frame <= lastFrame
			|| (queue == StreamQueueKind::Fifo && packet->frame != lastFrame + 1)) {
			fprintf(stderr, "classifier: frame %lu after %lu\n",
				(unsigned long)packet->frame, (unsigned long)lastFrame);
			return 1;
		}
		lastFrame = packet->frame;

		/* The layer, reading the frame where the camera wrote it. */
		TaskBuilder b;
		const uint16_t in = b.addBuffer(packet->elements[0]->buffer());
		const uint16_t wgt = b.addBuffer(**weights);
		const uint16_t out = b.addBuffer(**result, BufferUse::Write);
		ConvOp conv;
		conv.src = Tensor::nchw(in, 0, DataType::Int8, 1, kC, kH, kW);
		conv.weights = Tensor::nchw(wgt, 0, DataType::Int8, kOut, kC, kK, kK);
		conv.dst = Tensor::nchw(0, 0, DataType::Int32, 1, kOut, kConvH, kConvW);
		SdpOp sdp;
		sdp.dst = Tensor::nchw(0, 0, DataType::Int8, 1, kOut, kConvH, kConvW);
		sdp.scaleMode = SdpMode::PerTensor;
		sdp.scaleMul = 1;
		sdp.scaleShift = 2;
		sdp.activation = SdpActivation::Relu;
		PdpOp pdp;
		pdp.dst = Tensor::nchw(out, 0, DataType::Int8, 1, kOut, kPoolH, kPoolW);
		pdp.kernelW = pdp.kernelH = 2;
		pdp.strideX = pdp.strideY = 2;
		b.fuse(conv, sdp, pdp);
		auto task = b.build(**device);
		if (!task)
			return fail("classifier: build", task.error());

		/* The job waits for the camera's fence; the packet goes back with the job's. */
		std::vector<std::unique_ptr<Fence>> waitables;
		std::vector<SyncPoint> waits;
		for (const SyncFence &fence : packet->fences) {
			auto f = fence.toFence(**device);
			if (!f)
				return fail("classifier: fence", f.error());
			waits.push_back({ f->get(), 0 });
			waitables.push_back(std::move(*f));
		}
		auto point = (*consumer)->sync()->submit(**ctx, *task, waits);
		if (!point)
			return fail("classifier: submit", point.error());
		if (auto r = (*consumer)->release(packet->id, *point); !r)
			return fail("classifier: release", r.error());
		auto status = (*consumer)->sync()->timeline().waitStatus(*point, kTimeout);
		if (!status || status->error)
			return 1;
		const auto readable = std::chrono::nanoseconds(status->timestamp);
		latencies.push_back(
			std::chrono::duration<double, std::micro>(readable - packet->presentTime)
				.count());

		/* The same layer on the CPU, from the frame the camera must have sent. */
		if (!gCheck) {
			frames++;
			continue;
		}
		std::vector<int8_t> frame(kFrameBytes);
		for (uint32_t i = 0; i < kFrameBytes; i++)
			frame[i] = pixel(packet->frame, i);
		if (memcmp(layerOnCpu(frame.data()).data(), *resultBytes, kResultBytes)) {
			fprintf(stderr, "classifier: frame %lu: the DLA and the CPU differ\n",
				(unsigned long)packet->frame);
			return 1;
		}
		frames++;
	}
	/* What the camera prints: how many frames, and the latencies. */
	std::sort(latencies.begin(), latencies.end());
	double stats[3] = { static_cast<double>(frames), 0, 0 };
	if (!latencies.empty()) {
		stats[1] = latencies[latencies.size() / 2];
		stats[2] = latencies[std::min(latencies.size() - 1, latencies.size() * 99 / 100)];
	}
	return write(resultsFd, stats, sizeof(stats)) == sizeof(stats) ? 0 : 1;
}

/* The logger process: checks every frame's bytes on the CPU. */
int logger(const std::string &node, std::unique_ptr<IpcEndpoint> endpoint, StreamQueueKind queue)
{
	auto device = Device::open(node);
	if (!device)
		return fail("logger: open", device.error());
	auto ipc = StreamIpcDst::create(**device, std::move(endpoint));
	auto consumer = StreamConsumer::create(**device, queue,
		{ "logger", { frameNeeds("logger", Accessor::cpu(), Permission::ReadOnly) },
			Accessor::cpu() });
	if (!ipc || !consumer || !streamConnect(*ipc, *consumer))
		return 1;
	for (;;) {
		StreamEventType type = nextEvent("logger", **consumer);
		if (type == StreamEventType::Disconnected || type == StreamEventType::Error)
			return 0;
		if (type != StreamEventType::PacketReady)
			continue;
		auto packet = (*consumer)->acquire();
		if (!packet)
			return fail("logger: acquire", packet.error());
		for (const SyncFence &fence : packet->fences)
			if (auto s = fence.wait(kTimeout); !s || s->error)
				return 1;
		SharedBuffer &frame = *packet->elements[0];
		auto bytes = frame.map();
		if (!bytes || !frame.beginCpuAccess(Buffer::CpuAccess::Read))
			return 1;
		for (uint32_t i = 0; gCheck && i < kFrameBytes; i++)
			if (static_cast<int8_t>((*bytes)[i]) != pixel(packet->frame, i)) {
				fprintf(stderr, "logger: frame %lu differs at byte %u\n",
					(unsigned long)packet->frame, i);
				return 1;
			}
		(void)frame.endCpuAccess(Buffer::CpuAccess::Read);
		if (auto r = (*consumer)->release(packet->id, 0); !r)
			return fail("logger: release", r.error());
	}
}

/* The camera: @frames frames into the stream; kills the logger halfway. */
int camera(Device &device, std::unique_ptr<IpcEndpoint> toClassifier,
	std::unique_ptr<IpcEndpoint> toLogger, pid_t loggerPid, uint64_t frames, double *seconds)
{
	auto pool = StreamPool::createStatic(device, 4);
	if (!pool)
		return fail("camera: pool", pool.error());
	auto producer = StreamProducer::create(*pool,
		{ "camera", { frameNeeds("camera", Accessor::cpu(), Permission::ReadWrite) },
			Accessor::cpu() });
	auto multicast = StreamMulticast::create(2);
	auto toC = StreamIpcSrc::create(std::move(toClassifier));
	auto toL = StreamIpcSrc::create(std::move(toLogger));
	if (!producer)
		return fail("camera: producer", producer.error());
	if (!multicast || !toC || !toL)
		return 1;
	if (!streamConnect(*producer, *multicast) || !streamConnect(*multicast, *toC)
		|| !streamConnect(*multicast, *toL))
		return 1;
	const auto start = std::chrono::steady_clock::now();
	for (uint64_t frame = 1; frame <= frames;) {
		StreamEventType type = nextEvent("camera", **producer);
		if (type == StreamEventType::Error || type == StreamEventType::Disconnected)
			return 1;
		if (type != StreamEventType::PacketReady)
			continue;
		auto packet = (*producer)->getPacket();
		if (!packet)
			continue; /* a PacketReady read before its packet was taken */
		/* Wait until the consumers' jobs are done with the packet... */
		for (const SyncFence &fence : packet->fences)
			if (auto s = fence.wait(kTimeout); !s || s->error)
				return 1;
		/* ...write the frame, and hand it over with a fence of ours. */
		SharedBuffer &element = *packet->elements[0];
		auto bytes = element.map();
		if (!bytes || !element.beginCpuAccess(Buffer::CpuAccess::Write))
			return 1;
		for (uint32_t i = 0; i < kFrameBytes; i++)
			(*bytes)[i] = static_cast<uint8_t>(pixel(frame, i));
		(void)element.endCpuAccess(Buffer::CpuAccess::Write);
		const uint64_t point = (*producer)->sync()->nextPoint();
		if (!(*producer)->sync()->signal(point) || !(*producer)->present(packet->id, point))
			return 1;
		if (frame++ == frames / 2)
			kill(loggerPid, SIGKILL);
	}
	*seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
	/*
	 * The producer goes first: the consumers may take what it presented.
	 * (An IPC source that goes first takes its packets back for a
	 * producer that may reuse them.)
	 */
	producer->reset();
	return 0;
}

double cpuMicros(const rusage &u)
{
	return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e6 + u.ru_utime.tv_usec
		+ u.ru_stime.tv_usec;
}

/* One run with @queue: returns the exit status. */
int run(StreamQueueKind queue, uint64_t frames, bool json)
{
	auto nodes = Device::enumerate();
	if (!nodes || nodes->empty())
		return 1;
	const std::string classifierNode = nodes->back();
	const uint32_t classifierDla = static_cast<uint32_t>(nodes->size() - 1);
	auto toClassifier = IpcEndpoint::pair();
	auto toLogger = IpcEndpoint::pair();
	int results[2];
	if (!toClassifier || !toLogger || pipe(results))
		return 1;

	/* The consumers' processes, forked before any stream block runs a thread. */
	pid_t classifierPid = fork();
	if (classifierPid == 0) {
		toClassifier->first.reset();
		toLogger->first.reset();
		toLogger->second.reset();
		_exit(classifier(classifierNode, classifierDla, std::move(toClassifier->second),
			queue, results[1]));
	}
	pid_t loggerPid = fork();
	if (loggerPid == 0) {
		toClassifier->first.reset();
		toClassifier->second.reset();
		toLogger->first.reset();
		_exit(logger(nodes->front(), std::move(toLogger->second), queue));
	}
	toClassifier->second.reset();
	toLogger->second.reset();
	close(results[1]);

	rusage before = {}, beforeChildren = {};
	getrusage(RUSAGE_SELF, &before);
	getrusage(RUSAGE_CHILDREN, &beforeChildren);
	auto device = Device::open(nodes->front());
	double seconds = 0;
	int status = device ? camera(**device, std::move(toClassifier->first),
			     std::move(toLogger->first), loggerPid, frames, &seconds)
			    : 1;
	/* The camera's blocks are gone: the classifier sees the end and reports. */
	double stats[3] = {};
	const bool reported = read(results[0], stats, sizeof(stats)) == sizeof(stats);
	close(results[0]);
	int classifierStatus = 0, loggerStatus = 0;
	waitpid(classifierPid, &classifierStatus, 0);
	waitpid(loggerPid, &loggerStatus, 0);
	rusage usage = {}, children = {};
	getrusage(RUSAGE_SELF, &usage);
	getrusage(RUSAGE_CHILDREN, &children);
	const double cpuUs = cpuMicros(usage) - cpuMicros(before) + cpuMicros(children)
		- cpuMicros(beforeChildren);

	const char *name = queue == StreamQueueKind::Fifo ? "fifo" : "mailbox";
	const bool ok = status == 0 && reported && WIFEXITED(classifierStatus)
		&& WEXITSTATUS(classifierStatus) == 0 && WIFSIGNALED(loggerStatus)
		&& (queue == StreamQueueKind::Mailbox || stats[0] == frames);
	if (json) {
		const struct {
			const char *bench;
			double value;
			const char *unit;
		} figures[] = {
			{ "stream_fps", frames / seconds, "frames/s" },
			{ "stream_latency_us_p50", stats[1], "us" },
			{ "stream_latency_us_p99", stats[2], "us" },
			{ "stream_cpu_us_per_frame", cpuUs / frames, "us" },
		};
		for (const auto &f : figures)
			printf("{\"bench\": \"%s\", \"value\": %.1f, \"unit\": \"%s\", "
			       "\"queue\": \"%s\", \"frames\": %lu%s}\n",
				f.bench, f.value, f.unit, name, (unsigned long)frames,
				ok ? "" : ", \"failed\": true");
	} else
		printf("%-7s: %lu frames presented in %.2f s (%.1f frames/s), %lu classified "
		       "and checked; present to readable p50 %.0f us, p99 %.0f us; logger killed "
		       "at frame %lu: %s\n",
			name, (unsigned long)frames, seconds, frames / seconds,
			(unsigned long)stats[0], stats[1], stats[2], (unsigned long)frames / 2,
			ok ? "ok" : "FAILED");
	return ok ? 0 : 1;
}

} /* namespace */

int main(int argc, char **argv)
{
	uint64_t frames = 40;
	bool json = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--frames") && i + 1 < argc)
			frames = strtoull(argv[++i], nullptr, 10);
		else if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "--no-check"))
			gCheck = false;
		else {
			fprintf(stderr, "usage: %s [--frames N] [--json] [--no-check]\n", argv[0]);
			return 2;
		}
	}
	if (frames < 2)
		frames = 2;
	int status = run(StreamQueueKind::Fifo, frames, json);
	return run(StreamQueueKind::Mailbox, frames, json) || status;
}
