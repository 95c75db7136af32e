/* SPDX-License-Identifier: MIT */
/*
 * vdla-pipelined: the boot-time daemon that owns the core pipeline
 * (docs/ownership.md). It builds the pipeline its configuration file
 * describes, holds its SRAM partition and engine leases, registers the
 * exit action the driver runs when the last application using the
 * pipeline goes, makes a frame each period, and serves commands on its
 * socket. SIGTERM or SIGINT end it cleanly: the pipeline is destroyed
 * with force, and its applications are told.
 *
 *	vdla-pipelined [--config FILE]     (default /etc/vdla/pipelined.conf)
 */
#include <poll.h>
#include <signal.h>
#include <time.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include <vdla/device.h>

#include "command_server.h"
#include "config.h"
#include "frame_pipeline.h"

using namespace std::chrono_literals;

namespace {

volatile sig_atomic_t stopping = 0;

void onSignal(int)
{
	stopping = 1;
}

int64_t nowMs()
{
	timespec ts;
	::clock_gettime(CLOCK_MONOTONIC, &ts);
	return int64_t(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

int fail(const std::string &what, const vdla::Error &error)
{
	std::fprintf(stderr, "vdla-pipelined: %s: %s\n", what.c_str(), error.message().c_str());
	return 1;
}

std::string describe(const vdla::PipelineExitActions &a)
{
	if (a.stopChannels && a.resetAttributes)
		return " stopped the channels and reset their attributes";
	if (a.stopChannels)
		return " stopped the channels";
	if (a.resetAttributes)
		return " reset the channels' attributes";
	return " did nothing itself";
}

/* The commands of the socket (vdla-pipelinectl). */
vdla::Result<std::string> runCommand(pipelined::FramePipeline &pipeline,
				     const std::vector<std::string> &words)
{
	const std::string &verb = words[0];
	if (verb == "status" && words.size() == 1)
		return pipeline.status();
	if ((verb == "start" || verb == "stop") && words.size() == 2) {
		auto done = pipeline.setStarted(words[1], verb == "start");
		if (!done)
			return done.error();
		return std::string();
	}
	if (verb == "rebuild" && words.size() >= 2) {
		auto done = pipeline.rebuild(words[1], { words.begin() + 2, words.end() });
		if (!done)
			return done.error();
		return pipeline.status();
	}
	return vdla::Error(EINVAL, "unknown command: status, start CHANNEL, stop CHANNEL, "
				   "rebuild CHANNEL [attribute=value...]");
}

} /* namespace */

int main(int argc, char **argv)
{
	std::string configPath = "/etc/vdla/pipelined.conf";
	if (argc == 3 && std::string(argv[1]) == "--config") {
		configPath = argv[2];
	} else if (argc != 1) {
		std::fprintf(stderr, "usage: vdla-pipelined [--config FILE]\n");
		return 2;
	}
	auto config = pipelined::readConfig(configPath);
	if (!config)
		return fail("configuration", config.error());
	auto nodes = vdla::Device::enumerate();
	if (!nodes)
		return fail("devices", nodes.error());
	if (config->device >= nodes->size())
		return fail("devices", vdla::Error(ENODEV, "no device " +
								   std::to_string(config->device)));
	std::string node = (*nodes)[config->device];
	auto device = vdla::Device::open(node);
	if (!device)
		return fail(node, device.error());
	auto pipeline = pipelined::FramePipeline::build(**device, node, *config);
	if (!pipeline)
		return fail("building pipeline " + config->pipeline, pipeline.error());
	pipelined::FramePipeline &p = **pipeline;

	/* The part of the exit action that is the daemon's: start again for the next user. */
	p.pipeline().setEventCallback([&p](vdla::Pipeline &, const vdla::PipelineEvent &e) {
		if (e.type != vdla::PipelineEvent::Type::Idle)
			return;
		std::fprintf(stderr,
			     "vdla-pipelined: the last application (pid %d) left: the driver%s; "
			     "starting the channels again\n",
			     e.pid, describe(e.actions).c_str());
		p.restartChannels();
	});
	pipelined::CommandServer server;
	auto listening = server.listen(config->socket, [&p](const std::vector<std::string> &w) {
		return runCommand(p, w);
	});
	if (!listening)
		return fail("command socket", listening.error());

	struct sigaction action = {};
	action.sa_handler = onSignal;
	::sigaction(SIGTERM, &action, nullptr);
	::sigaction(SIGINT, &action, nullptr);
	std::fprintf(stderr, "vdla-pipelined: pipeline %s ready on %s, commands on %s\n",
		     config->pipeline.c_str(), node.c_str(), config->socket.c_str());

	int64_t next = nowMs();
	while (!stopping) {
		int64_t wait = std::max<int64_t>(0, next - nowMs());
		pollfd fds[2] = { { p.pipeline().eventFd(), POLLIN, 0 }, { server.fd(), POLLIN, 0 } };
		int ready = ::poll(fds, 2, int(wait));
		if (ready < 0 && errno != EINTR)
			return fail("poll", vdla::Error(errno, "the event loop"));
		if (ready > 0 && (fds[0].revents & POLLIN)) {
			/* Both consumers of the file's events: each keeps the other's. */
			p.pipeline().dispatch(0ms);
			p.resources().dispatch(0ms);
		}
		if (ready > 0 && (fds[1].revents & POLLIN))
			server.serve();
		if (nowMs() >= next) {
			p.produce();
			next += config->periodMs;
			if (next < nowMs())
				next = nowMs() + config->periodMs;
		}
	}
	std::fprintf(stderr, "vdla-pipelined: stopping: pipeline %s destroyed\n",
		     config->pipeline.c_str());
	return 0;
}
