/* SPDX-License-Identifier: MIT */
/*
 * vdla::IpcEndpoint: one end of a connection between two processes over a
 * Unix socket, carrying messages (a kind, bytes, file descriptors) whole
 * and in order. The kernel says who the peer is (SO_PEERCRED) and who sent
 * each message (SCM_CREDENTIALS): an unprivileged process cannot pass
 * itself off as another. Attribute lists, buffers and fences cross on it
 * (docs/sharing.md, "Across processes").
 */
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <vdla/result.h>
#include <vdla/unique_fd.h>

namespace vdla {

/* A process as the kernel identifies it. */
struct PeerCredentials {
	pid_t pid = 0;
	uid_t uid = 0;
	gid_t gid = 0;
};

struct IpcMessage {
	/* What the bytes are: the sender's and receiver's convention. */
	uint32_t kind = 0;
	std::vector<uint8_t> payload;
	/* Descriptors that came with it, now the receiver's. */
	std::vector<UniqueFd> fds;
	/* Who sent it, as the kernel saw it. */
	PeerCredentials sender;
};

/*
 * The kinds of the messages libvdla sends (IpcMessage::kind): an
 * application's own kinds keep clear of 0x7664a000 to 0x7664afff.
 */
enum IpcKind : uint32_t {
	kIpcAttrList = 0x7664a001,
	kIpcBuffer = 0x7664a002,
	kIpcSyncAttrList = 0x7664a003,
	kIpcFence = 0x7664a004,
};

class IpcEndpoint
{
public:
	/* The largest payload and the most descriptors one message carries. */
	static constexpr size_t kMaxPayload = 64 * 1024;
	static constexpr size_t kMaxFds = 16;

	/* Two connected endpoints, e.g. to keep one each side of a fork(). */
	static Result<std::pair<std::unique_ptr<IpcEndpoint>, std::unique_ptr<IpcEndpoint>>> pair();

	/*
	 * Connects to the IpcListener at @path. Errors: those of connect(2),
	 * e.g. ENOENT (nothing there), ECONNREFUSED (no one listening).
	 */
	static Result<std::unique_ptr<IpcEndpoint>> connect(const std::string &path);

	~IpcEndpoint();
	IpcEndpoint(const IpcEndpoint &) = delete;
	IpcEndpoint &operator=(const IpcEndpoint &) = delete;

	/*
	 * The process at the other end, when the connection was made (for
	 * pair(): the process that made the pair, until a message says who
	 * holds the other end now).
	 */
	const PeerCredentials &peer() const;

	/*
	 * Sends a message; the descriptors are duplicated into it, the caller
	 * keeps its own. Errors: EMSGSIZE (above kMaxPayload or kMaxFds),
	 * EPIPE (the peer is gone), those of sendmsg(2). With @timeout (not
	 * negative), waits at most that long for room when the peer has not
	 * read what was sent before: ETIMEDOUT, and nothing is sent.
	 */
	Result<void> send(uint32_t kind, const std::vector<uint8_t> &payload,
		const std::vector<int> &fds = {},
		std::chrono::milliseconds timeout = std::chrono::milliseconds(-1));

	/*
	 * The next message, waiting up to @timeout (negative: for ever; a
	 * signal does not cut the wait short). Errors: ETIMEDOUT, EPIPE (the
	 * peer closed its end, or exited or was killed with messages of ours
	 * unread: nothing more will come), EBADMSG (not a
	 * message of an IpcEndpoint, or one cut short: its descriptors are
	 * closed).
	 */
	Result<IpcMessage> receive(std::chrono::milliseconds timeout);

	/*
	 * receive(), then checks the kind: EPROTO when the message is of
	 * another kind than @kind (the message is dropped).
	 */
	Result<IpcMessage> receive(uint32_t kind, std::chrono::milliseconds timeout);

	/* The socket, for poll(): readable when a message or the end came. */
	int fd() const;

private:
	friend class IpcListener;
	class Private;
	explicit IpcEndpoint(std::unique_ptr<Private> d);
	static Result<std::unique_ptr<IpcEndpoint>> adopt(UniqueFd socket);
	std::unique_ptr<Private> d_;
};

/* A named place where processes connect: a socket file, removed with it. */
class IpcListener
{
public:
	/*
	 * Listens at @path (a socket file; its directory's permissions decide
	 * who may connect). Errors: EADDRINUSE (a file is there already),
	 * ENAMETOOLONG (above 107 bytes), those of bind(2).
	 */
	static Result<std::unique_ptr<IpcListener>> listen(const std::string &path);

	~IpcListener();
	IpcListener(const IpcListener &) = delete;
	IpcListener &operator=(const IpcListener &) = delete;

	/* The next connection, waiting up to @timeout (negative: for ever). */
	Result<std::unique_ptr<IpcEndpoint>> accept(std::chrono::milliseconds timeout);

	const std::string &path() const;

private:
	IpcListener(UniqueFd socket, std::string path);
	UniqueFd socket_;
	std::string path_;
};

} /* namespace vdla */
