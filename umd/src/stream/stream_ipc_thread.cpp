/* SPDX-License-Identifier: MIT */
/* The receiving thread of a stream IPC block. */
#include "stream_ipc_thread.h"
#include "stream_cpu_time.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace vdla::detail {

StreamIpcThread::StreamIpcThread(std::unique_ptr<IpcEndpoint> endpoint, UniqueFd stop)
	: endpoint_(std::move(endpoint)), stop_(std::move(stop)),
	  wake_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK))
{
}

void StreamIpcThread::setTick(std::chrono::milliseconds interval)
{
	tickMs_ = interval.count();
	/* The thread may be in a poll() without a timeout: it takes the new one now. */
	const uint64_t one = 1;
	(void)!write(wake_.get(), &one, sizeof(one));
}

StreamIpcThread::~StreamIpcThread()
{
	if (thread_.joinable())
		thread_.detach();
}

Result<std::shared_ptr<StreamIpcThread>> StreamIpcThread::start(
	std::unique_ptr<IpcEndpoint> endpoint, Handler handle)
{
	if (!endpoint)
		return Error(EINVAL, "an IPC block needs a connected endpoint");
	UniqueFd stop(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
	if (!stop.isValid())
		return Error(errno, "cannot make the IPC block's stop event");
	std::shared_ptr<StreamIpcThread> self(
		new StreamIpcThread(std::move(endpoint), std::move(stop)));
	if (!self->wake_.isValid())
		return Error(errno, "cannot make the IPC block's wake event");
	try {
		self->thread_ = std::thread(run, self, std::move(handle));
	} catch (const std::system_error &e) {
		return Error(e.code().value(), "cannot start the IPC block's thread");
	}
	return self;
}

void StreamIpcThread::run(std::shared_ptr<StreamIpcThread> self, Handler handle)
{
	for (;;) {
		pollfd fds[3] = { { self->endpoint_->fd(), POLLIN, 0 },
			{ self->stop_.get(), POLLIN, 0 }, { self->wake_.get(), POLLIN, 0 } };
		const long tick = self->tickMs_;
		const int ready = poll(fds, 3, tick > 0 ? static_cast<int>(tick) : -1);
		if (ready < 0) {
			if (errno == EINTR)
				continue;
			handle(*self, Error(errno, "cannot wait for the other process"));
			return;
		}
		/* Awake: what follows is the stream's work (stream_cpu_time.h). */
		detail::StreamCpuScope counted;
		if (ready == 0) {
			if (!handle(*self, Error(ETIMEDOUT, "a tick")))
				return;
			continue;
		}
		if (fds[1].revents)
			return;
		if (fds[2].revents) {
			uint64_t count;
			(void)!read(self->wake_.get(), &count, sizeof(count));
			if (!fds[0].revents)
				continue;
		}
		auto message = self->endpoint_->receive(std::chrono::milliseconds(0));
		if (!message && message.error().code() == ETIMEDOUT)
			continue;
		if (!handle(*self, std::move(message)))
			return;
	}
}

void StreamIpcThread::hangUp()
{
	shutdown(endpoint_->fd(), SHUT_RDWR);
}

std::unique_lock<StreamMutex> StreamIpcThread::lockStream()
{
	std::unique_lock<StreamMutex> lock(streamLock(), std::defer_lock);
	while (!lock.try_lock_for(std::chrono::milliseconds(20)))
		if (stopping_)
			break;
	return lock;
}

void StreamIpcThread::stop()
{
	stopping_ = true;
	const uint64_t one = 1;
	(void)!write(stop_.get(), &one, sizeof(one));
	if (!thread_.joinable())
		return;
	if (thread_.get_id() == std::this_thread::get_id())
		thread_.detach(); /* it sees the stop once this message is handled */
	else
		thread_.join();
}

} /* namespace vdla::detail */
