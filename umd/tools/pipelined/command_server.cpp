/* SPDX-License-Identifier: MIT */
#include "command_server.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace pipelined {

CommandServer::~CommandServer()
{
	if (fd_ >= 0) {
		::close(fd_);
		::unlink(path_.c_str());
	}
}

vdla::Result<void> CommandServer::listen(const std::string &path, Handler handler)
{
	sockaddr_un addr = {};
	addr.sun_family = AF_UNIX;
	if (path.size() >= sizeof(addr.sun_path))
		return vdla::Error(ENAMETOOLONG, "socket path " + path);
	std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
	fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd_ < 0)
		return vdla::Error(errno, "socket");
	/* A socket left by a daemon that was killed: nobody listens on it any more. */
	::unlink(path.c_str());
	if (::bind(fd_, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) < 0 ||
	    ::chmod(path.c_str(), 0660) < 0 || ::listen(fd_, 8) < 0) {
		int error = errno;
		::close(fd_);
		fd_ = -1;
		return vdla::Error(error, "cannot listen on " + path);
	}
	path_ = path;
	handler_ = std::move(handler);
	return {};
}

void CommandServer::serve()
{
	int client = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
	if (client < 0)
		return;
	/* One line, within a second: a client that sends nothing does not stall the frames. */
	std::string line;
	char c;
	pollfd p = { client, POLLIN, 0 };
	while (line.size() < 512 && ::poll(&p, 1, 1000) > 0 && ::read(client, &c, 1) == 1 &&
	       c != '\n')
		line += c;
	ucred peer = {};
	socklen_t len = sizeof(peer);
	::getsockopt(client, SOL_SOCKET, SO_PEERCRED, &peer, &len);

	std::istringstream in(line);
	std::vector<std::string> words;
	for (std::string word; in >> word;)
		words.push_back(word);
	std::string reply;
	if (words.empty()) {
		reply = "error EINVAL empty command\n";
	} else {
		std::fprintf(stderr, "vdla-pipelined: command from pid %d: %s\n", int(peer.pid),
			     line.c_str());
		auto result = handler_(words);
		if (result)
			reply = *result + "ok\n";
		else
			reply = "error " + std::string(strerrorname_np(result.error().code())) + " " +
				result.error().reason() + "\n";
	}
	for (size_t at = 0; at < reply.size();) {
		ssize_t n = ::write(client, reply.data() + at, reply.size() - at);
		if (n <= 0)
			break;
		at += size_t(n);
	}
	::close(client);
}

} /* namespace pipelined */
