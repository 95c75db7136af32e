/* SPDX-License-Identifier: MIT */
/*
 * vdla-pipelinectl: the command-line side of vdla-pipelined
 * (docs/ownership.md).
 *
 *	vdla-pipelinectl [--socket PATH] status
 *	vdla-pipelinectl [--socket PATH] start|stop CHANNEL
 *	vdla-pipelinectl [--socket PATH] rebuild CHANNEL [ATTRIBUTE=VALUE...]
 *		ask the daemon (its command socket)
 *	vdla-pipelinectl [--socket PATH] watch [FRAMES]
 *		an application: opens the daemon's pipeline, takes FRAMES (3)
 *		results from its output channel and checks each against the CPU
 *	vdla-pipelinectl [--socket PATH] hold CHANNEL [ATTRIBUTE=VALUE]
 *		an application: duplicates CHANNEL, sets the attribute, and
 *		holds both until it is stopped or killed
 */
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <vdla/buffer.h>
#include <vdla/device.h>
#include <vdla/pipeline.h>

#include "pipelined/frame_format.h"

using namespace std::chrono_literals;

namespace {

int fail(const std::string &what, const vdla::Error &error)
{
	std::fprintf(stderr, "vdla-pipelinectl: %s: %s\n", what.c_str(), error.message().c_str());
	return 1;
}

/* Sends @command to the daemon; its reply, without the last line, or the error it reports. */
vdla::Result<std::string> ask(const std::string &socketPath, const std::string &command)
{
	sockaddr_un addr = {};
	addr.sun_family = AF_UNIX;
	if (socketPath.size() >= sizeof(addr.sun_path))
		return vdla::Error(ENAMETOOLONG, "socket path " + socketPath);
	std::memcpy(addr.sun_path, socketPath.c_str(), socketPath.size() + 1);
	int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return vdla::Error(errno, "socket");
	if (::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) < 0) {
		int error = errno;
		::close(fd);
		return vdla::Error(error, "cannot reach vdla-pipelined at " + socketPath +
						  " (is it running?)");
	}
	std::string line = command + "\n";
	bool sent = ::write(fd, line.data(), line.size()) == ssize_t(line.size());
	std::string reply;
	char buf[512];
	for (ssize_t n; sent && (n = ::read(fd, buf, sizeof(buf))) > 0;)
		reply.append(buf, size_t(n));
	::close(fd);
	size_t last = reply.rfind('\n', reply.size() >= 2 ? reply.size() - 2 : 0);
	std::string tail = reply.substr(last == std::string::npos ? 0 : last + 1);
	std::string body = last == std::string::npos ? "" : reply.substr(0, last + 1);
	if (tail == "ok\n")
		return body;
	if (tail.rfind("error ", 0) == 0) {
		/* "error ENAME reason": the errno back from its name. */
		std::istringstream in(tail.substr(6));
		std::string name, reason;
		in >> name;
		std::getline(in, reason);
		int code = EIO;
		for (int e = 1; e < 134; e++) {
			const char *n = strerrorname_np(e);
			if (n && name == n)
				code = e;
		}
		return vdla::Error(code, "vdla-pipelined:" + reason);
	}
	return vdla::Error(EPROTO, "vdla-pipelined sent no complete reply (did it die?)");
}

/* What the status reply says: the pipeline's name and each channel's id. */
struct Layout {
	std::string pipeline;
	std::map<std::string, uint32_t> channels;
};

vdla::Result<Layout> layout(const std::string &socketPath)
{
	auto status = ask(socketPath, "status");
	if (!status)
		return status.error();
	Layout out;
	std::istringstream in(*status);
	for (std::string line; std::getline(in, line);) {
		std::istringstream words(line);
		std::string kind, name, idWord;
		uint32_t id = 0;
		words >> kind >> name;
		if (kind == "pipeline")
			out.pipeline = name;
		else if (kind == "channel" && (words >> idWord >> id) && idWord == "id")
			out.channels[name] = id;
	}
	if (out.pipeline.empty())
		return vdla::Error(EPROTO, "the daemon's status names no pipeline");
	return out;
}

/* An application's side: a Device of its own with the daemon's pipeline open. */
struct Attached {
	Layout layout;
	std::unique_ptr<vdla::Device> device;
	/* Declared after the Device: it goes first. */
	std::unique_ptr<vdla::Pipeline> pipeline;
};

vdla::Result<Attached> attach(const std::string &socketPath)
{
	auto where = layout(socketPath);
	if (!where)
		return where.error();
	auto nodes = vdla::Device::enumerate();
	if (!nodes)
		return nodes.error();
	if (nodes->empty())
		return vdla::Error(ENODEV, "no vdla device");
	auto device = vdla::Device::open(nodes->front());
	if (!device)
		return device.error();
	auto pipeline = vdla::Pipeline::open(**device, where->pipeline);
	if (!pipeline)
		return vdla::Error(pipeline.error().code(),
				   "opening " + where->pipeline + ": " + pipeline.error().reason());
	return Attached{ std::move(*where), std::move(*device), std::move(*pipeline) };
}

/* Takes @frames results from the output channel, each checked against the CPU. */
int watch(const std::string &socketPath, unsigned frames)
{
	auto app = attach(socketPath);
	if (!app)
		return fail("watch", app.error());
	auto output = vdla::Channel::lookup(*app->pipeline, app->layout.channels["output"]);
	if (!output)
		return fail("output channel", output.error());
	uint64_t last = ~0ull;
	for (unsigned seen = 0, tries = 0; seen < frames; tries++) {
		if (tries > 200)
			return fail("watch", vdla::Error(ETIMEDOUT, "no new frame in 10 s"));
		auto taken = (*output)->take(0);
		if (!taken) {
			if (taken.error().code() != EAGAIN)
				return fail("taking a result", taken.error());
			std::this_thread::sleep_for(50ms);
			continue;
		}
		auto bytes = taken->buffer().map();
		if (!bytes)
			return fail("map", bytes.error());
		pipelined::FrameHeader header;
		std::memcpy(&header, *bytes + pipelined::kHeaderOffset, sizeof(header));
		if (header.magic != pipelined::kFrameMagic || header.frame == last) {
			/* Not made yet, or seen: give it back and wait for the next period. */
			taken->giveBack();
			std::this_thread::sleep_for(50ms);
			continue;
		}
		for (uint32_t i = 0; i < pipelined::kResultBytes; i++) {
			int8_t expected = pipelined::frameResult(header.frame, i, header.scale,
								 header.shift);
			if (int8_t((*bytes)[i]) != expected) {
				std::fprintf(stderr, "vdla-pipelinectl: frame %llu byte %u: %d, expected %d\n",
					     (unsigned long long)header.frame, i, int8_t((*bytes)[i]),
					     expected);
				return 1;
			}
		}
		std::printf("watch: frame %llu (scale %d, shift %u) from buffer %u: %u results match the CPU\n",
			    (unsigned long long)header.frame, header.scale, header.shift, taken->index(),
			    pipelined::kResultBytes);
		std::fflush(stdout);
		last = header.frame;
		seen++;
		tries = 0;
	}
	return 0;
}

/* Duplicates @channel, sets @change on it, and holds on until stopped. */
int hold(const std::string &socketPath, const std::string &channel, const std::string &change)
{
	auto app = attach(socketPath);
	if (!app)
		return fail("hold", app.error());
	if (!app->layout.channels.count(channel))
		return fail("hold", vdla::Error(ENOENT, "the pipeline has no channel " + channel));
	auto dup = vdla::Channel::dup(*app->pipeline, app->layout.channels[channel]);
	if (!dup)
		return fail("duplicating channel " + channel, dup.error());
	if (!change.empty()) {
		size_t equals = change.find('=');
		static const std::map<std::string, uint32_t> kKeys = {
			{ "scale", 0 }, { "shift", 1 }, { "frames", 0 }, { "dropped", 1 }
		};
		auto key = kKeys.find(change.substr(0, equals));
		if (equals == std::string::npos || key == kKeys.end())
			return fail("hold", vdla::Error(EINVAL, "'" + change + "' is not attribute=value"));
		auto set = (*dup)->setAttribute(key->second, std::stoull(change.substr(equals + 1)));
		if (!set)
			return fail("setting " + change, set.error());
	}
	std::printf("hold: pid %d holds a duplicate of channel %s (%u) of pipeline %s%s%s\n",
		    int(::getpid()), channel.c_str(), (*dup)->id(), app->layout.pipeline.c_str(),
		    change.empty() ? "" : ", set ", change.c_str());
	std::fflush(stdout);
	for (;;)
		::pause();
}

int usage()
{
	std::fprintf(stderr,
		     "usage: vdla-pipelinectl [--socket PATH] status | start CHANNEL | stop CHANNEL |\n"
		     "       rebuild CHANNEL [ATTRIBUTE=VALUE...] | watch [FRAMES] |\n"
		     "       hold CHANNEL [ATTRIBUTE=VALUE]\n");
	return 2;
}

} /* namespace */

int main(int argc, char **argv)
{
	std::vector<std::string> args(argv + 1, argv + argc);
	std::string socketPath = "/run/vdla-pipelined.sock";
	if (args.size() >= 2 && args[0] == "--socket") {
		socketPath = args[1];
		args.erase(args.begin(), args.begin() + 2);
	}
	if (args.empty())
		return usage();
	if (args[0] == "watch" && args.size() <= 2)
		return watch(socketPath, args.size() == 2 ? unsigned(std::stoul(args[1])) : 3);
	if (args[0] == "hold" && (args.size() == 2 || args.size() == 3))
		return hold(socketPath, args[1], args.size() == 3 ? args[2] : "");
	std::string command;
	for (const std::string &arg : args)
		command += (command.empty() ? "" : " ") + arg;
	auto reply = ask(socketPath, command);
	if (!reply)
		return fail(args[0], reply.error());
	std::fputs(reply->c_str(), stdout);
	return 0;
}
