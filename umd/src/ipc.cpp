/* SPDX-License-Identifier: MIT */
/* vdla::IpcEndpoint and IpcListener: SOCK_SEQPACKET Unix sockets. */
#include <vdla/ipc.h>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "poll_wait.h"

namespace vdla {

namespace {

constexpr uint32_t kFrameMagic = 0x50494456; /* "VDIP" */
constexpr size_t kHeader = 8;

/* The kernel attaches the sender's credentials to every message we read. */
Result<void> passCredentials(int fd)
{
	int on = 1;
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)))
		return Error(errno, "cannot ask for the IPC peer's credentials");
	return {};
}

/* A SOCK_SEQPACKET Unix socket, and @addr set to @path's address. */
Result<UniqueFd> unixSocket(const std::string &path, sockaddr_un &addr)
{
	addr = {};
	addr.sun_family = AF_UNIX;
	if (path.empty() || path.size() >= sizeof(addr.sun_path))
		return Error(ENAMETOOLONG, "an IPC socket path is 1 to "
						   + std::to_string(sizeof(addr.sun_path) - 1)
						   + " bytes: " + path);
	std::memcpy(addr.sun_path, path.data(), path.size());
	UniqueFd s(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
	if (!s.isValid())
		return Error(errno, "cannot make an IPC socket");
	return s;
}

} /* namespace */

class IpcEndpoint::Private
{
public:
	UniqueFd socket;
	PeerCredentials peer;
};

IpcEndpoint::IpcEndpoint(std::unique_ptr<Private> d)
	: d_(std::move(d))
{
}

IpcEndpoint::~IpcEndpoint() = default;

Result<std::unique_ptr<IpcEndpoint>> IpcEndpoint::adopt(UniqueFd socket)
{
	if (auto ok = passCredentials(socket.get()); !ok)
		return ok.error();
	ucred cred = {};
	socklen_t len = sizeof(cred);
	if (getsockopt(socket.get(), SOL_SOCKET, SO_PEERCRED, &cred, &len))
		return Error(errno, "cannot read the IPC peer's credentials");
	auto d = std::make_unique<Private>();
	d->socket = std::move(socket);
	d->peer = { cred.pid, cred.uid, cred.gid };
	return std::unique_ptr<IpcEndpoint>(new IpcEndpoint(std::move(d)));
}

Result<std::pair<std::unique_ptr<IpcEndpoint>, std::unique_ptr<IpcEndpoint>>> IpcEndpoint::pair()
{
	int fds[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds))
		return Error(errno, "cannot make an IPC socket pair");
	UniqueFd a(fds[0]), b(fds[1]);
	auto first = adopt(std::move(a));
	if (!first)
		return first.error();
	auto second = adopt(std::move(b));
	if (!second)
		return second.error();
	return std::make_pair(std::move(*first), std::move(*second));
}

Result<std::unique_ptr<IpcEndpoint>> IpcEndpoint::connect(const std::string &path)
{
	sockaddr_un addr;
	auto s = unixSocket(path, addr);
	if (!s)
		return s.error();
	if (::connect(s->get(), reinterpret_cast<const sockaddr *>(&addr), sizeof(addr)))
		return Error(errno, "cannot connect to the IPC endpoint at " + path);
	return adopt(std::move(*s));
}

const PeerCredentials &IpcEndpoint::peer() const
{
	return d_->peer;
}

int IpcEndpoint::fd() const
{
	return d_->socket.get();
}

Result<void> IpcEndpoint::send(uint32_t kind, const std::vector<uint8_t> &payload,
	const std::vector<int> &fds, std::chrono::milliseconds timeout)
{
	if (payload.size() > kMaxPayload || fds.size() > kMaxFds)
		return Error(EMSGSIZE, "an IPC message carries at most "
					       + std::to_string(kMaxPayload) + " bytes and "
					       + std::to_string(kMaxFds) + " descriptors");
	uint8_t header[kHeader];
	std::memcpy(header, &kFrameMagic, 4);
	std::memcpy(header + 4, &kind, 4);
	iovec iov[2] = { { header, kHeader },
		{ const_cast<uint8_t *>(payload.data()), payload.size() } };
	msghdr msg = {};
	msg.msg_iov = iov;
	msg.msg_iovlen = payload.empty() ? 1 : 2;
	alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)] = {};
	if (!fds.empty()) {
		msg.msg_control = control;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
		cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
		std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
	}
	const int flags = MSG_NOSIGNAL | (timeout.count() >= 0 ? MSG_DONTWAIT : 0);
	const auto deadline = std::chrono::steady_clock::now() + timeout;
	ssize_t n;
	for (;;) {
		n = sendmsg(d_->socket.get(), &msg, flags);
		if (n >= 0 || (errno != EINTR && errno != EAGAIN))
			break;
		if (errno == EINTR)
			continue;
		/* EAGAIN: the peer's queue is full; wait for room up to the deadline. */
		/* Rounded up: poll() takes whole milliseconds and must not end early. */
		const auto left = std::chrono::ceil<std::chrono::milliseconds>(
			deadline - std::chrono::steady_clock::now());
		pollfd room = { d_->socket.get(), POLLOUT, 0 };
		if (left.count() <= 0 || poll(&room, 1, static_cast<int>(left.count())) == 0)
			return Error(ETIMEDOUT, "the IPC peer has not read its messages for "
						    + std::to_string(timeout.count()) + " ms");
	}
	if (n < 0)
		return Error(errno, errno == EPIPE || errno == ECONNRESET
					    ? "the IPC peer is gone"
					    : "cannot send the IPC message");
	return {};
}

Result<IpcMessage> IpcEndpoint::receive(std::chrono::milliseconds timeout)
{
	if (auto ready = waitReadable(d_->socket.get(), timeout,
		    "nothing came from the IPC peer in time");
		!ready)
		return ready.error();
	/* Exactly the largest message: a longer one is cut (MSG_TRUNC) and refused. */
	std::vector<uint8_t> buffer(kHeader + kMaxPayload);
	iovec iov = { buffer.data(), buffer.size() };
	alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)
				      + CMSG_SPACE(sizeof(ucred))];
	msghdr msg = {};
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = control;
	msg.msg_controllen = sizeof(control);
	ssize_t n = recvmsg(d_->socket.get(), &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n < 0 && errno == ECONNRESET)
		return Error(EPIPE, "the IPC peer's end was closed with messages unread "
				    "(it exited or was killed)");
	if (n < 0)
		return Error(errno, "cannot receive from the IPC peer");

	/* Take the descriptors first: whatever is wrong, none may leak. */
	IpcMessage out;
	bool haveCredentials = false;
	for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET)
			continue;
		if (c->cmsg_type == SCM_RIGHTS) {
			size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (size_t i = 0; i < count; i++) {
				int fd;
				std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
				out.fds.emplace_back(fd);
			}
		} else if (c->cmsg_type == SCM_CREDENTIALS) {
			ucred cred;
			std::memcpy(&cred, CMSG_DATA(c), sizeof(cred));
			out.sender = { cred.pid, cred.uid, cred.gid };
			haveCredentials = true;
		}
	}
	if (n == 0)
		return Error(EPIPE, "the IPC peer closed its end");
	if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
		return Error(EBADMSG, "an IPC message too large, or with too many descriptors");
	uint32_t magic;
	std::memcpy(&magic, buffer.data(), 4);
	if (static_cast<size_t>(n) < kHeader || magic != kFrameMagic || !haveCredentials)
		return Error(EBADMSG, "what came is not a vdla IPC message");
	std::memcpy(&out.kind, buffer.data() + 4, 4);
	out.payload.assign(buffer.begin() + kHeader, buffer.begin() + n);
	return out;
}

Result<IpcMessage> IpcEndpoint::receive(uint32_t kind, std::chrono::milliseconds timeout)
{
	auto message = receive(timeout);
	if (message && message->kind != kind)
		return Error(EPROTO, "the IPC peer sent a message of kind "
					     + std::to_string(message->kind) + " where "
					     + std::to_string(kind) + " was expected");
	return message;
}

IpcListener::IpcListener(UniqueFd socket, std::string path)
	: socket_(std::move(socket)), path_(std::move(path))
{
}

IpcListener::~IpcListener()
{
	unlink(path_.c_str());
}

Result<std::unique_ptr<IpcListener>> IpcListener::listen(const std::string &path)
{
	sockaddr_un addr;
	auto s = unixSocket(path, addr);
	if (!s)
		return s.error();
	if (bind(s->get(), reinterpret_cast<const sockaddr *>(&addr), sizeof(addr)))
		return Error(errno, "cannot listen at " + path);
	if (::listen(s->get(), 16)) {
		int err = errno;
		unlink(path.c_str());
		return Error(err, "cannot listen at " + path);
	}
	return std::unique_ptr<IpcListener>(new IpcListener(std::move(*s), path));
}

Result<std::unique_ptr<IpcEndpoint>> IpcListener::accept(std::chrono::milliseconds timeout)
{
	if (auto ready = waitReadable(socket_.get(), timeout, "no IPC peer connected in time");
		!ready)
		return ready.error();
	UniqueFd s(accept4(socket_.get(), nullptr, nullptr, SOCK_CLOEXEC));
	if (!s.isValid())
		return Error(errno, "cannot accept an IPC connection");
	return IpcEndpoint::adopt(std::move(s));
}

const std::string &IpcListener::path() const
{
	return path_;
}

} /* namespace vdla */
