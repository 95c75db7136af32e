/* SPDX-License-Identifier: MIT */
/*
 * vdla-bench-submit [ROUND_TRIPS]: the cost of the job path as userspace
 * sees it, printed as JSON lines:
 *
 *  null_task_us_p50, _p99   SUBMIT of an empty task with a binary out-syncobj,
 *                           then drmSyncobjWait: the whole round trip
 *  submit_ioctl_us_p50      the SUBMIT ioctl alone, in that round trip
 *  noop_ioctl_us_p50        DRM_IOCTL_VDLA_QUERY asking for a size, the
 *                           cheapest ioctl, timed in the same run
 *  null_task_vs_noop_ioctl  the ratio of the two p50s
 *  jobs_per_s_qd64          empty jobs kept 64 in flight on one context
 *                           (timeline syncobj), for about 2 s; with the mean
 *                           time of its SUBMITs and of its timeline waits
 *  prio_start_latency_us_p99  a high-priority empty task submitted while a
 *                           long low-priority task runs (its BDMA operations
 *                           slowed by fault injection): submit to fence
 *
 * Needs debugfs (fault injection) for the last one, and root.
 */
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <xf86drm.h>

#include <vdla/device.h>

#include "bench_stats.h"
#include "submit_env.h"
#include "task_writer.h"

namespace {

using namespace guest;
using clock_type = std::chrono::steady_clock;

/* Same as vdla-bench-irq: the CPU that handles @pciAddress's interrupt, or -1. */
int interruptCpu(const std::string &pciAddress)
{
	std::ifstream interrupts("/proc/interrupts");
	std::string line;
	while (std::getline(interrupts, line)) {
		if (line.size() < pciAddress.size()
			|| line.compare(
				   line.size() - pciAddress.size(), pciAddress.size(), pciAddress)
				!= 0)
			continue;
		int irq = std::atoi(line.c_str());
		std::ifstream affinity(
			"/proc/irq/" + std::to_string(irq) + "/effective_affinity_list");
		int cpu = -1;
		if (affinity >> cpu)
			return cpu;
	}
	return -1;
}

using bench::micros;
using bench::percentile;

int fail(const char *what, int error)
{
	std::fprintf(stderr, "vdla-bench-submit: %s: %s\n", what, std::strerror(error));
	return 1;
}

/* An empty task in a BO of its own. */
struct EmptyTask {
	Bo desc;

	explicit EmptyTask(int fd) : desc(fd, 4096)
	{
		if (desc.map())
			TaskWriter().write(desc.map(), desc.size());
	}
	Submission submission(uint32_t ctx, drm_vdla_sync out) const
	{
		Submission s;
		s.ctx = ctx;
		s.addresses = { desc.entry() };
		s.outSync = out;
		return s;
	}
};

/* @ops BDMA copies of 64 bytes, each linked to the next. */
struct LongTask {
	Bo desc, src, dst;

	LongTask(int fd, unsigned ops)
		: desc(fd, sizeof(vdla_task_header) + uint64_t(ops) * sizeof(vdla_task_op)),
		  src(fd, 4096), dst(fd, uint64_t(ops) * 64)
	{
		TaskWriter task;
		for (unsigned k = 0; k < ops; k++) {
			uint16_t op = task.copy(1, (k * 64) % 4096, 2, k * 64, 64);
			if (k)
				task.link(uint16_t(op - 1), op);
		}
		if (desc.map())
			task.write(desc.map(), desc.size());
	}
	int error() const
	{
		return desc.error() ? desc.error() : src.error() ? src.error() : dst.error();
	}
	Submission submission(uint32_t ctx, drm_vdla_sync out) const
	{
		Submission s;
		s.ctx = ctx;
		s.addresses = { desc.entry(), src.entry(), dst.entry(DRM_VDLA_ADDRESS_FLAG_WRITE) };
		s.outSync = out;
		return s;
	}
};

} /* namespace */

int main(int argc, char **argv)
{
	int count = argc > 1 ? std::atoi(argv[1]) : 2000;
	if (count < 1) {
		std::fprintf(stderr, "usage: vdla-bench-submit [ROUND_TRIPS>=1]\n");
		return 2;
	}
	std::vector<std::string> nodes = nodePaths();
	if (nodes.empty()) {
		std::fprintf(stderr, "vdla-bench-submit: no vDLA device\n");
		return 1;
	}
	Node node(nodes.front());
	if (!node.valid())
		return fail(nodes.front().c_str(), errno);
	const int fd = node.fd();

	/* Pinned like vdla-bench-irq, for the same reason (TCG cross-CPU wake-ups). */
	int cpu = -1;
	if (auto device = vdla::Device::open(nodes.front()))
		cpu = interruptCpu((*device)->info().pciAddress);
	if (cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}

	Ctx ctx(fd);
	if (ctx.error())
		return fail("CTX_CREATE", ctx.error());
	EmptyTask empty(fd);
	if (empty.desc.error())
		return fail("BO_CREATE", empty.desc.error());

	/* ---- Null task round trip and the no-op ioctl ---- */
	Syncobj out(fd);
	if (out.error())
		return fail("syncobj", out.error());
	const Submission nullJob = empty.submission(ctx.id(), out.sync());
	uint32_t outHandle = out.handle();
	std::vector<double> nullTask, submitOnly, noop;
	nullTask.reserve(count);
	submitOnly.reserve(count);
	noop.reserve(count);
	for (int i = 0; i < count + 100; i++) {
		auto start = clock_type::now();
		int ret = submit(fd, nullJob);
		if (ret)
			return fail("SUBMIT", ret);
		auto submitted = clock_type::now();
		ret = drmSyncobjWait(fd, &outHandle, 1, INT64_MAX, 0, nullptr);
		if (ret)
			return fail("drmSyncobjWait", -ret);
		auto end = clock_type::now();

		drm_vdla_query query = {};
		query.query = DRM_VDLA_QUERY_DEVICE;
		auto qstart = clock_type::now();
		ret = ioctlError(fd, DRM_IOCTL_VDLA_QUERY, &query);
		auto qend = clock_type::now();
		if (ret)
			return fail("QUERY", ret);
		if (i >= 100) { /* the first ones warm caches and the TB cache */
			nullTask.push_back(micros(end - start));
			submitOnly.push_back(micros(submitted - start));
			noop.push_back(micros(qend - qstart));
		}
	}
	for (double p : { 0.50, 0.99 })
		std::printf("{\"bench\": \"null_task_us_p%d\", \"value\": %.1f, \"unit\": \"us\", "
			    "\"samples\": %d, \"pinned_to_irq_cpu\": %s}\n",
			int(p * 100), percentile(nullTask, p), count, cpu >= 0 ? "true" : "false");
	std::printf("{\"bench\": \"submit_ioctl_us_p50\", \"value\": %.1f, \"unit\": \"us\", "
		    "\"samples\": %d}\n",
		percentile(submitOnly, 0.50), count);
	double noopP50 = percentile(noop, 0.50);
	std::printf("{\"bench\": \"noop_ioctl_us_p50\", \"value\": %.2f, \"unit\": \"us\", "
		    "\"samples\": %d}\n",
		noopP50, count);
	std::printf("{\"bench\": \"null_task_vs_noop_ioctl\", \"value\": %.1f, \"unit\": \"x\"}\n",
		percentile(nullTask, 0.50) / std::max(noopP50, 0.001));
	std::fflush(stdout);

	/* ---- Throughput with 64 jobs in flight ---- */
	{
		constexpr uint64_t kDepth = 64;
		Syncobj timeline(fd);
		if (timeline.error())
			return fail("syncobj", timeline.error());
		uint64_t submitted = 0, measuredFrom = 0, endedAtStart = 0;
		clock_type::duration inSubmit {}, inWait {};
		clock_type::time_point start;
		const std::chrono::milliseconds warmUp(200), run(2000);
		auto begin = clock_type::now();
		for (;;) {
			auto now = clock_type::now();
			if (!measuredFrom && now - begin >= warmUp) {
				measuredFrom = submitted;
				endedAtStart = timeline.lastPoint();
				start = now;
			}
			if (measuredFrom && now - start >= run)
				break;
			auto waitStart = clock_type::now();
			if (submitted >= kDepth) {
				int ret = timeline.waitPoint(submitted + 1 - kDepth, 10000);
				if (ret)
					return fail("timeline wait", -ret);
			}
			auto submitStart = clock_type::now();
			int ret = submit(
				fd, empty.submission(ctx.id(), timeline.sync(submitted + 1)));
			if (ret)
				return fail("SUBMIT", ret);
			if (measuredFrom) {
				inWait += submitStart - waitStart;
				inSubmit += clock_type::now() - submitStart;
			}
			submitted++;
		}
		/* The jobs that ended in the measured window. */
		uint64_t ended = timeline.lastPoint() - endedAtStart;
		double seconds = std::chrono::duration<double>(clock_type::now() - start).count();
		std::printf(
			"{\"bench\": \"jobs_per_s_qd64\", \"value\": %.0f, \"unit\": \"jobs/s\", "
			"\"jobs\": %llu, \"seconds\": %.2f, \"submit_us_mean\": %.1f, "
			"\"wait_us_mean\": %.1f}\n",
			double(ended) / seconds, static_cast<unsigned long long>(ended), seconds,
			micros(inSubmit) / double(std::max<uint64_t>(submitted - measuredFrom, 1)),
			micros(inWait) / double(std::max<uint64_t>(submitted - measuredFrom, 1)));
		std::fflush(stdout);
		int ret = timeline.waitPoint(submitted, 10000);
		if (ret)
			return fail("timeline drain", -ret);
	}

	/* ---- Start latency of a high-priority job behind a long low one ---- */
	{
		constexpr int kSamples = 50;
		FaultInjection fi(node.index());
		int ret = fi.set("bdma", "delay", 0, 2000);
		if (ret)
			return fail("fault_inject (debugfs mounted? root?)", ret);
		Ctx low(fd, DRM_VDLA_PRIORITY_LOW), high(fd, DRM_VDLA_PRIORITY_HIGH);
		if (low.error() || high.error())
			return fail("CTX_CREATE", low.error() ? low.error() : high.error());
		/* 250 ops of 2 ms or more: half a second, resubmitted when it ends. */
		LongTask longTask(fd, 250);
		if (longTask.error())
			return fail("BO_CREATE", longTask.error());
		Syncobj lowDone(fd), highDone(fd);
		uint32_t highHandle = highDone.handle();
		const Submission urgent = empty.submission(high.id(), highDone.sync());
		std::vector<double> latency;
		int longJobs = 0;
		for (int attempt = 0; int(latency.size()) < kSamples; attempt++) {
			if (attempt > 20 * kSamples) {
				std::fprintf(
					stderr, "vdla-bench-submit: the long task never ran\n");
				return 1;
			}
			if (!longJobs || lowDone.signalled()) {
				ret = submit(fd, longTask.submission(low.id(), lowDone.sync()));
				if (ret)
					return fail("SUBMIT (long task)", ret);
				longJobs++;
				std::this_thread::sleep_for(std::chrono::milliseconds(20));
			}
			/* A sample needs the long task running when the urgent one comes. */
			if (lowDone.signalled())
				continue;
			auto start = clock_type::now();
			ret = submit(fd, urgent);
			if (ret)
				return fail("SUBMIT", ret);
			ret = drmSyncobjWait(fd, &highHandle, 1, INT64_MAX, 0, nullptr);
			if (ret)
				return fail("drmSyncobjWait", -ret);
			latency.push_back(micros(clock_type::now() - start));
			/* Let the long task run again before the next sample. */
			std::this_thread::sleep_for(std::chrono::milliseconds(5));
		}
		ret = lowDone.wait(60000);
		fi.clear();
		if (ret)
			return fail("long task", -ret);
		drm_vdla_ctx_query q = low.query();
		std::printf("{\"bench\": \"prio_start_latency_us_p99\", \"value\": %.1f, \"unit\": "
			    "\"us\", \"samples\": %d, \"p50_us\": %.1f, \"long_tasks\": %d, "
			    "\"preemptions\": %llu}\n",
			percentile(latency, 0.99), kSamples, percentile(latency, 0.50), longJobs,
			static_cast<unsigned long long>(q.jobs_preempted));
	}
	return 0;
}
