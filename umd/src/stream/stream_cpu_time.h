/* SPDX-License-Identifier: MIT */
/*
 * The CPU time the stream library spends (vdla::streamCpuTime()): each public
 * call that does a frame's work, and each wake-up of an IPC block's thread,
 * counts the calling thread's CPU time while it runs. Sleeping in poll() or
 * on a lock costs no CPU time, so it counts nothing.
 */
#pragma once

#include <cstdint>

namespace vdla::detail {

/*
 * Adds the calling thread's CPU time from construction to destruction to
 * streamCpuTime(), unless an enclosing scope on this thread already counts
 * it: a call made inside another (present() handing a packet to a local
 * consumer, which its queryEvent() then reads) is counted once.
 */
class StreamCpuScope
{
public:
	StreamCpuScope();
	~StreamCpuScope();
	StreamCpuScope(const StreamCpuScope &) = delete;
	StreamCpuScope &operator=(const StreamCpuScope &) = delete;

private:
	/* The thread's CPU clock at construction; negative: not counting. */
	int64_t startNs_ = -1;
};

} /* namespace vdla::detail */
