/* SPDX-License-Identifier: MIT */
/*
 * vdla-example-stream [--frames N] [--json] [--no-check]: the example of
 * docs/streams.md.
 * Three processes share one stream of camera frames (28x28 INT16 Q7.8
 * images of digits) without copying them:
 *
 *   camera (this process, CPU) -> multicast -+-> IPC -> classifier (OpenVX, DLA)
 *                                            +-> IPC -> logger (CPU)
 *
 * The classifier runs the runtime's network, the LeNet-style OpenVX graph of
 * vdla-demo (lenet_network.h), on the last vDLA, straight from each frame's
 * buffer: the frame is the graph's input tensor
 * (vdla::vx::createTensorFromBuffer), and the graph's DLA jobs wait for the
 * camera's fence on the device (vdla::vx::setGraphWaitFences). It checks
 * every result against the same network on the CPU. The logger checks each
 * frame's bytes. Halfway through, the logger is killed; the stream goes on
 * for the others. It runs with FIFO queues (the camera waits for the
 * slowest) and then with mailboxes (consumers see the newest frame; older
 * ones go back), and prints frames per second, the latency from the
 * camera's present() to the end of the classifier's graph on that frame,
 * and the CPU time the stream library spent per frame in the three
 * processes (vdla::streamCpuTime()). Exit status 0 when every check held.
 *
 * --json: the figures as JSON lines, for make bench. --no-check: the
 * classifier and the logger skip their checks on the CPU (the classifier's
 * reference network, the logger's comparison), as a product would.
 */
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <vdla/device.h>
#include <vdla/stream.h>
#include <vdla/vx_interop.h>

#include "lenet_network.h"

namespace {

using namespace vdla;

constexpr uint32_t kFrameBytes = lenet::kSide * lenet::kSide * sizeof(int16_t);
constexpr auto kTimeout = std::chrono::seconds(30);

/* The consumers compare what they get with the CPU's answer (not --no-check). */
bool gCheck = true;

/* Frame @frame: a digit, moved right a pixel every ten frames, as a camera would give. */
std::vector<int16_t> image(uint64_t frame)
{
	return lenet::renderDigit(int(frame % lenet::kDigits), int(frame / lenet::kDigits % 9));
}

/* What each endpoint needs of the one element: the network's input, INT16 [1,1,28,28]. */
AttrList frameNeeds(const std::string &who, Accessor accessor, Permission permission)
{
	AttrList needs(who);
	(void)needs.setTypes({ BufferType::Tensor });
	(void)needs.setTensorDataType(TensorDataType::Int16);
	(void)needs.setTensorDims({ 1, 1, lenet::kSide, lenet::kSide });
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

/* What a consumer process reports to the camera's process through a pipe. */
struct Report {
	double frames = 0;
	double latencyP50Us = 0;
	double latencyP99Us = 0;
	double streamCpuUs = 0;
};

/* The consumers' latencies in @report: the median and the 99th percentile. */
void summarise(std::vector<double> latencies, Report &report)
{
	std::sort(latencies.begin(), latencies.end());
	if (latencies.empty())
		return;
	report.latencyP50Us = latencies[latencies.size() / 2];
	report.latencyP99Us
		= latencies[std::min(latencies.size() - 1, latencies.size() * 99 / 100)];
}

/*
 * The network twice, as vdla-demo builds it: on the DLA from a graph
 * parameter that each frame's tensor is bound to, and on the CPU from a
 * tensor of its own, the reference.
 */
struct Network {
	lenet::Classifier dla;
	lenet::Classifier cpu;
	vx_tensor cpuInput = nullptr;
};

bool buildNetwork(VxCheck &check, vx_context context, Network &net)
{
	const std::vector<lenet::Parameters> parameters = lenet::createParameters(check, context);
	vx_kernel clampScale = lenet::addClampScale(check, context);
	/* Verification needs an input; the frames' tensors replace it. */
	vx_tensor placeholder = check.object(vxCreateTensor(context, lenet::kInputDims.size(),
						     lenet::kInputDims.data(), VX_TYPE_INT16,
						     lenet::kPosition),
		"vxCreateTensor(input)");
	net.cpuInput = check.object(vxCreateTensor(context, lenet::kInputDims.size(),
					    lenet::kInputDims.data(), VX_TYPE_INT16, lenet::kPosition),
		"vxCreateTensor(reference input)");
	if (!check.ok())
		return false;
	net.dla = lenet::buildClassifier(check, context, placeholder, parameters, clampScale, "any");
	net.cpu = lenet::buildClassifier(
		check, context, net.cpuInput, parameters, clampScale, "cpu");
	if (!check.ok())
		return false;
	vx_parameter input = vxGetParameterByIndex(net.dla.nodes.front(), 0);
	check.status(vxAddParameterToGraph(net.dla.graph, input), "vxAddParameterToGraph");
	vxReleaseParameter(&input);
	return check.status(vxVerifyGraph(net.dla.graph), "vxVerifyGraph(target any)")
		&& check.status(vxVerifyGraph(net.cpu.graph), "vxVerifyGraph(target cpu)");
}

/* The frame @frame through the network on the CPU; false if @outputs differ. */
bool matchesCpu(VxCheck &check, const Network &net, uint64_t frame, const lenet::Outputs &outputs)
{
	std::vector<int16_t> pixels = image(frame);
	lenet::Outputs reference;
	if (!lenet::copyTensor(check, net.cpuInput, lenet::kInputDims, pixels.data(),
		    VX_WRITE_ONLY, "reference input")
		|| !lenet::classify(check, net.cpu, "target cpu", reference))
		return false;
	const std::string differs = lenet::difference(outputs, reference);
	if (!differs.empty())
		fprintf(stderr, "classifier: frame %lu: the DLA and the CPU differ: %s\n",
			(unsigned long)frame, differs.c_str());
	return differs.empty();
}

/* The classifier process: the network on @node's vDLA for every frame. */
int classifier(const std::string &node, uint32_t dla, std::unique_ptr<IpcEndpoint> endpoint,
	StreamQueueKind queue, int reportFd)
{
	/* Forked from the camera's process: its count so far is not ours. */
	const auto cpuAtStart = streamCpuTime();
	auto device = Device::open(node);
	if (!device)
		return fail("classifier: open", device.error());
	StreamEndpointConfig config{ "classifier",
		{ frameNeeds("classifier", Accessor::dla(dla), Permission::ReadOnly) },
		Accessor::dla(dla) };
	auto ipc = StreamIpcDst::create(**device, std::move(endpoint));
	auto consumer = StreamConsumer::create(**device, queue, std::move(config));
	if (!ipc)
		return fail("classifier: IPC destination", ipc.error());
	if (!consumer)
		return fail("classifier: consumer", consumer.error());
	if (!streamConnect(*ipc, *consumer))
		return 1;

	/* The OpenVX context works on the same vDLA as the consumer. */
	setenv("VDLA_VX_DEVICE", node.c_str(), 1);
	VxCheck check("classifier");
	vx_context context = check.object(vxCreateContext(), "vxCreateContext");
	if (!check.ok())
		return 1;
	check.attach(context);
	Network net;
	if (!buildNetwork(check, context, net)) {
		vxReleaseContext(&context);
		return 1;
	}

	/* Each packet's element as a tensor, made once, the first time it comes. */
	std::map<uint32_t, vx_tensor> frames;
	std::vector<double> latencies;
	uint64_t lastFrame = 0;
	Report report;
	for (bool ok = true; ok;) {
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

		vx_tensor &input = frames[packet->id];
		if (!input)
			input = check.object(vdla::vx::createTensorFromBuffer(context,
						     lenet::kInputDims, VX_TYPE_INT16,
						     lenet::kPosition, packet->elements[0]->buffer()),
				"createTensorFromBuffer");
		/* The graph reads the frame where the camera wrote it, once its fence signalled. */
		lenet::Outputs outputs;
		ok = check.ok()
			&& check.status(vxSetGraphParameterByIndex(net.dla.graph, 0,
						reinterpret_cast<vx_reference>(input)),
				"vxSetGraphParameterByIndex")
			&& check.status(vdla::vx::setGraphWaitFences(
						net.dla.graph, std::move(packet->fences)),
				"setGraphWaitFences")
			&& lenet::classify(check, net.dla, "target any", outputs);
		/* vxProcessGraph returned: the graph is done with the frame. */
		if (auto r = (*consumer)->release(packet->id, 0); !r)
			return fail("classifier: release", r.error());
		latencies.push_back(std::chrono::duration<double, std::micro>(
			std::chrono::steady_clock::now().time_since_epoch() - packet->presentTime)
				.count());
		ok = ok && (!gCheck || matchesCpu(check, net, packet->frame, outputs));
		report.frames += ok;
	}
	for (auto &[id, tensor] : frames)
		vxReleaseTensor(&tensor);
	vxReleaseContext(&context);
	if (!check.ok())
		return 1;
	/* What the camera prints: how many frames, the latencies, the stream's CPU time. */
	summarise(std::move(latencies), report);
	report.streamCpuUs
		= std::chrono::duration<double, std::micro>(streamCpuTime() - cpuAtStart).count();
	return write(reportFd, &report, sizeof(report)) == sizeof(report) ? 0 : 1;
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
		if (gCheck && memcmp(*bytes, image(packet->frame).data(), kFrameBytes)) {
			fprintf(stderr, "logger: frame %lu differs from what the camera sent\n",
				(unsigned long)packet->frame);
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
		memcpy(*bytes, image(frame).data(), kFrameBytes);
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

	const auto cpuBefore = streamCpuTime();
	auto device = Device::open(nodes->front());
	double seconds = 0;
	int status = device ? camera(**device, std::move(toClassifier->first),
			     std::move(toLogger->first), loggerPid, frames, &seconds)
			    : 1;
	const double cameraCpuUs
		= std::chrono::duration<double, std::micro>(streamCpuTime() - cpuBefore).count();
	/* The camera's blocks are gone: the classifier sees the end and reports. */
	Report report;
	const bool reported = read(results[0], &report, sizeof(report)) == sizeof(report);
	close(results[0]);
	int classifierStatus = 0, loggerStatus = 0;
	waitpid(classifierPid, &classifierStatus, 0);
	waitpid(loggerPid, &loggerStatus, 0);
	/* The logger, killed, cannot tell its share. */
	const double cpuUs = cameraCpuUs + report.streamCpuUs;

	const char *name = queue == StreamQueueKind::Fifo ? "fifo" : "mailbox";
	const bool ok = status == 0 && reported && WIFEXITED(classifierStatus)
		&& WEXITSTATUS(classifierStatus) == 0 && WIFSIGNALED(loggerStatus)
		&& (queue == StreamQueueKind::Mailbox || report.frames == frames);
	if (json) {
		const struct {
			const char *bench;
			double value;
			const char *unit;
		} figures[] = {
			{ "stream_fps", frames / seconds, "frames/s" },
			{ "stream_latency_us_p50", report.latencyP50Us, "us" },
			{ "stream_latency_us_p99", report.latencyP99Us, "us" },
			{ "stream_cpu_us_per_frame", cpuUs / frames, "us" },
		};
		for (const auto &f : figures)
			printf("{\"bench\": \"%s\", \"value\": %.1f, \"unit\": \"%s\", "
			       "\"queue\": \"%s\", \"frames\": %lu%s}\n",
				f.bench, f.value, f.unit, name, (unsigned long)frames,
				ok ? "" : ", \"failed\": true");
	} else
		printf("%-7s: %lu frames presented in %.2f s (%.1f frames/s), %lu classified "
		       "and checked; present to result p50 %.0f us, p99 %.0f us; stream library "
		       "CPU per frame %.0f us (camera %.0f, classifier %.0f); logger killed at "
		       "frame %lu: %s\n",
			name, (unsigned long)frames, seconds, frames / seconds,
			(unsigned long)report.frames, report.latencyP50Us, report.latencyP99Us,
			cpuUs / frames, cameraCpuUs / frames, report.streamCpuUs / frames,
			(unsigned long)frames / 2, ok ? "ok" : "FAILED");
	return ok ? 0 : 1;
}

/*
 * What streamCpuTime()'s counting costs per read of a thread's CPU clock
 * (each counted call reads it twice), for the bench's record.
 */
double cpuClockReadUs()
{
	constexpr int kReads = 10000;
	timespec now;
	const auto start = std::chrono::steady_clock::now();
	for (int i = 0; i < kReads; i++)
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
	return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
		       .count()
		/ kReads;
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
	status = run(StreamQueueKind::Mailbox, frames, json) || status;
	if (json)
		printf("{\"bench\": \"stream_cpu_clock_read_us\", \"value\": %.3f, \"unit\": "
		       "\"us\"}\n",
			cpuClockReadUs());
	return status;
}
