/* SPDX-License-Identifier: MIT */
/*
 * The thread of an IPC block: receives what the other process sends and
 * hands each message (or the end of the connection) to the block, so no
 * application thread has to poll the socket. It owns the endpoint and
 * outlives its block when the block is dropped from the thread itself.
 */
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include <vdla/ipc.h>
#include <vdla/result.h>
#include <vdla/unique_fd.h>

#include "stream_messages.h"

namespace vdla::detail {

class StreamIpcThread : public std::enable_shared_from_this<StreamIpcThread>
{
public:
	/*
	 * @handle takes each message received, or the error that ended the
	 * connection (EPIPE: the other side closed); it returns false to stop.
	 */
	using Handler = std::function<bool(StreamIpcThread &, Result<IpcMessage> &&)>;

	static Result<std::shared_ptr<StreamIpcThread>> start(
		std::unique_ptr<IpcEndpoint> endpoint, Handler handle);
	~StreamIpcThread();

	IpcEndpoint &endpoint() { return *endpoint_; }
	/*
	 * Calls the handler with ETIMEDOUT every @interval the socket is
	 * quiet (zero: never), for checks that depend on time alone.
	 */
	void setTick(std::chrono::milliseconds interval);
	/* Ends the connection both ways: the other process sees it closed. */
	void hangUp();
	/*
	 * Stops the thread; waits for it unless called from it. A thread
	 * waiting for streamLock() gives up, so a block destroyed by a thread
	 * that holds the lock does not wait for ever.
	 */
	void stop();
	/*
	 * streamLock() for a handler: locked, or not (owns_lock() false) once
	 * stop() was called.
	 */
	std::unique_lock<StreamMutex> lockStream();

private:
	explicit StreamIpcThread(std::unique_ptr<IpcEndpoint> endpoint, UniqueFd stop);
	static void run(std::shared_ptr<StreamIpcThread> self, Handler handle);

	std::unique_ptr<IpcEndpoint> endpoint_;
	UniqueFd stop_;
	/* Wakes the thread to take a new tick interval. */
	UniqueFd wake_;
	std::atomic<bool> stopping_{ false };
	std::atomic<long> tickMs_{ 0 };
	std::thread thread_;
};

} /* namespace vdla::detail */
