/* SPDX-License-Identifier: MIT */
/* Counting the stream library's CPU time (stream_cpu_time.h). */

#include "stream_cpu_time.h"

#include <vdla/stream.h>

#include <time.h>

#include <atomic>

namespace vdla {

namespace {

std::atomic<int64_t> gStreamCpuNs{ 0 };
/* A scope on this thread counts already. */
thread_local bool tCounting = false;

int64_t threadCpuNs()
{
	timespec now;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
	return int64_t(now.tv_sec) * 1000000000 + now.tv_nsec;
}

} /* namespace */

std::chrono::nanoseconds streamCpuTime()
{
	return std::chrono::nanoseconds(gStreamCpuNs.load(std::memory_order_relaxed));
}

namespace detail {

StreamCpuScope::StreamCpuScope()
{
	if (tCounting)
		return;
	tCounting = true;
	startNs_ = threadCpuNs();
}

StreamCpuScope::~StreamCpuScope()
{
	if (startNs_ < 0)
		return;
	gStreamCpuNs.fetch_add(threadCpuNs() - startNs_, std::memory_order_relaxed);
	tCounting = false;
}

} /* namespace detail */

} /* namespace vdla */
