/* SPDX-License-Identifier: MIT */
/*
 * The daemon's command channel (docs/ownership.md, "Commands"): a Unix
 * stream socket; a client sends one line and reads the reply, which ends
 * with a line "ok" or "error <errno name> <reason>". vdla-pipelinectl is
 * its client.
 */
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <vdla/result.h>

namespace pipelined {

class CommandServer
{
public:
	/* Runs a command (its words): the reply's text before "ok", or an Error. */
	using Handler = std::function<vdla::Result<std::string>(const std::vector<std::string> &)>;

	CommandServer() = default;
	~CommandServer();
	CommandServer(const CommandServer &) = delete;
	CommandServer &operator=(const CommandServer &) = delete;

	/* Listens on @path (replacing a stale socket), mode 0660. */
	vdla::Result<void> listen(const std::string &path, Handler handler);
	int fd() const { return fd_; }
	/* Serves one client that connected (POLLIN on fd()). */
	void serve();

private:
	int fd_ = -1;
	std::string path_;
	Handler handler_;
};

} /* namespace pipelined */
