/* SPDX-License-Identifier: MIT */
/* Running verified graphs, synchronously or on a worker thread. */

#include "framework/graph_internal.h"

#include "framework/schedule.h"

#include <vdla/vx_interop.h>

#include <chrono>

namespace vdla::vx {

namespace {

vx_uint64 nowNs()
{
	return std::chrono::duration_cast<std::chrono::nanoseconds>(
		std::chrono::steady_clock::now().time_since_epoch())
		.count();
}

void recordPerf(vx_perf_t &perf, vx_uint64 begin, vx_uint64 end)
{
	addPerfSample(perf, begin, end, end - begin);
}

/*
 * Runs the verified graph. An exception (thrown by a C++ user kernel or
 * callback, or std::bad_alloc) abandons the run like a failing node: the
 * graph stays usable, and vxWaitGraph() reports it for a scheduled run,
 * whose worker thread would otherwise end the process.
 */
vx_status execute(vx_graph graph, ApiLock &lock)
{
	graph->state = VX_GRAPH_STATE_RUNNING;
	const vx_uint64 begin = nowNs();
	vx_status status = VX_SUCCESS;
	try {
		status = graph->schedule->run(graph, lock);
	} catch (abi::__forced_unwind &) {
		throw;
	} catch (...) {
		/* User code runs without the lock. */
		if (!lock.owns_lock())
			lock.lock();
		status = statusOfException("vxProcessGraph");
	}
	if (status != VX_SUCCESS) {
		graph->state = VX_GRAPH_STATE_ABANDONED;
		return status;
	}
	if (graph->context->performanceEnabled)
		recordPerf(graph->perf, begin, nowNs());
	graph->state = VX_GRAPH_STATE_COMPLETED;
	return VX_SUCCESS;
}

/*
 * Whether @graph may start a run: a live graph whose context is not being
 * released. vxReleaseContext() joins the graphs' workers without the API
 * lock before it deletes everything; a run started meanwhile would be
 * deleted under its thread.
 */
bool runnable(vx_graph graph)
{
	return isValid(graph, VX_TYPE_GRAPH) && graph->context->externalCount > 0;
}

/*
 * Whether a run of @graph may start now, verifying or planning it again if
 * needed. A run that cannot start drops the graph's wait fences as one
 * that ran would (vdla::vx::setGraphWaitFences()).
 */
vx_status readyToStart(vx_graph graph)
{
	if (!runnable(graph))
		return VX_ERROR_INVALID_REFERENCE;
	if (graph->scheduled)
		return VX_ERROR_GRAPH_SCHEDULED;
	vx_status status = prepareGraph(graph);
	if (status != VX_SUCCESS)
		graph->waitFences.clear();
	return status;
}

} /* namespace */

void addPerfSample(vx_perf_t &perf, vx_uint64 begin, vx_uint64 end, vx_uint64 duration)
{
	perf.beg = begin;
	perf.end = end;
	perf.tmp = duration;
	perf.sum += perf.tmp;
	perf.num++;
	perf.avg = perf.sum / perf.num;
	perf.min = perf.num == 1 ? perf.tmp : std::min(perf.min, perf.tmp);
	perf.max = std::max(perf.max, perf.tmp);
}

void waitForWorker(vx_graph graph, ApiLock &lock)
{
	if (!graph->worker.joinable())
		return;
	std::thread worker = std::move(graph->worker);
	lock.unlock();
	worker.join();
	lock.lock();
}

vx_status setGraphWaitFences(vx_graph graph, std::vector<SyncFence> fences)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return VX_ERROR_INVALID_REFERENCE;
	/* A run in flight took its fences already: these would go to the next. */
	if (graph->scheduled)
		return VX_ERROR_GRAPH_SCHEDULED;
	graph->waitFences = std::move(fences);
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

} /* namespace vdla::vx */

using namespace vdla::vx;

extern "C" {

vx_status vxProcessGraph(vx_graph graph)
try {
	ApiLock lock(apiLock());
	vx_status ready = readyToStart(graph);
	if (ready != VX_SUCCESS)
		return ready;
	graph->scheduled = true;
	graph->processing = true;
	vx_status status = execute(graph, lock);
	graph->processing = false;
	graph->scheduled = false;
	return status;
}
VX_API_CATCH_STATUS

vx_status vxScheduleGraph(vx_graph graph)
try {
	ApiLock lock(apiLock());
	vx_status ready = readyToStart(graph);
	if (ready != VX_SUCCESS)
		return ready;
	/* The join drops the lock: the graph or its context may be gone
	 * after it, or another thread may have scheduled it. */
	waitForWorker(graph, lock);
	if (!runnable(graph))
		return VX_ERROR_INVALID_REFERENCE;
	if (graph->scheduled)
		return VX_ERROR_GRAPH_SCHEDULED;
	graph->scheduled = true;
	graph->state = VX_GRAPH_STATE_RUNNING;
	graph->worker = std::thread([graph] {
		ApiLock workerLock(apiLock());
		graph->asyncStatus = execute(graph, workerLock);
	});
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxWaitGraph(vx_graph graph)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return VX_ERROR_INVALID_REFERENCE;
	if (!graph->scheduled || !graph->worker.joinable())
		return VX_FAILURE;
	waitForWorker(graph, lock);
	graph->scheduled = false;
	return graph->asyncStatus;
}
VX_API_CATCH_STATUS

} /* extern "C" */
