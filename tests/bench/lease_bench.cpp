/* SPDX-License-Identifier: MIT */
/*
 * vdla-bench-lease [ROUNDS]: the resource manager's preemption latency,
 * printed as JSON lines:
 *
 *  lease_preempt_us_p50, _p99  a HIGH claim on an SRAM partition that a LOW
 *                              holder uses, from LEASE_ACQUIRE's call to its
 *                              return with the grant. The holder runs frames
 *                              of known length (lease_frame_us: one BDMA
 *                              operation slowed by fault injection), two in
 *                              flight, and releases when its event says so:
 *                              the figure is event delivery, the frames in
 *                              flight finishing, and the hand-over.
 *  lease_frame_us              the holder's frame length, for scale
 *  engine_contention_jobs_per_s_without, _with
 *                              two files' NORMAL contexts each keeping four
 *                              1 ms jobs in flight for 2 s: jobs per second
 *                              of both, without an engine reservation and
 *                              with one held by the first context
 *  engine_reserved_share_without, _with
 *                              the first context's share of those jobs
 *  time_share_fraction_without, _25, _50
 *                              a LOW context and a HIGH one of another file
 *                              each keeping four 1 ms jobs in flight for
 *                              2 s: the LOW context's part of the device
 *                              time they used (CTX_QUERY busy_ns), without
 *                              a device-time share and with one of 25% and
 *                              of 50% (time_share_period_ms 100)
 *  time_share_jobs_per_s_without, _50
 *                              jobs per second of both in those runs
 *
 * Needs root (debugfs fault injection, sysfs partitions, CAP_SYS_NICE).
 */
#include <poll.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "bench_stats.h"
#include "lease_env.h"
#include "submit_env.h"
#include "task_writer.h"

namespace {

using namespace guest;
using clock_type = std::chrono::steady_clock;

constexpr unsigned kFrameUs = 5000;

/* One frame of the holder: a BDMA copy naming the lease, with its own out-sync. */
struct Frame {
	Frame(int fd, uint32_t ctx, uint32_t lease, const Bo &src, const Bo &dst)
		: desc(fd, 4096), done(fd)
	{
		TaskWriter task;
		task.copy(1, 0, 2, 0, 256);
		task.write(desc.map(), desc.size());
		submission.ctx = ctx;
		submission.addresses = { desc.entry(), src.entry(),
					 dst.entry(DRM_VDLA_ADDRESS_FLAG_WRITE) };
		submission.outSync = done.sync();
		submission.leaseId = lease;
		submission.flags = DRM_VDLA_SUBMIT_FRAME_BEGIN | DRM_VDLA_SUBMIT_FRAME_END;
	}

	Bo desc;
	Syncobj done;
	Submission submission;
};

/*
 * The holder: frames two in flight until asked to release; then it
 * releases, and the frames it submitted finish. Returns once they have.
 */
void holdAndRelease(int fd, uint32_t ctx, uint32_t lease, const Bo &src, const Bo &dst,
		    std::atomic<bool> &running)
{
	std::deque<std::unique_ptr<Frame>> inFlight;
	bool asked = false;
	while (!asked) {
		while (inFlight.size() < 2) {
			inFlight.push_back(std::make_unique<Frame>(fd, ctx, lease, src, dst));
			if (submit(fd, inFlight.back()->submission)) {
				inFlight.pop_back();
				break;
			}
		}
		running = true;
		for (const drm_vdla_event_lease &e : readLeaseEvents(fd, 1))
			asked |= e.base.type == DRM_VDLA_EVENT_LEASE_RELEASE_REQUESTED;
		while (!inFlight.empty() && inFlight.front()->done.signalled())
			inFlight.pop_front();
	}
	leaseRelease(fd, lease);
	for (auto &f : inFlight)
		f->done.wait(10000);
}

/*
 * Two contexts, each on its own file, keep four jobs in flight for
 * @seconds; returns the jobs each completed.
 */
std::pair<long, long> contend(int fdA, uint32_t ctxA, int fdB, uint32_t ctxB, const Bo &srcA,
			      const Bo &dstA, const Bo &srcB, const Bo &dstB, int seconds)
{
	std::atomic<bool> stop{ false };
	auto run = [&](int fd, uint32_t ctx, const Bo &src, const Bo &dst) {
		std::deque<std::unique_ptr<Frame>> inFlight;
		long completed = 0;
		while (!stop) {
			while (inFlight.size() < 4) {
				inFlight.push_back(std::make_unique<Frame>(fd, ctx, 0, src, dst));
				if (submit(fd, inFlight.back()->submission)) {
					inFlight.pop_back();
					break;
				}
			}
			if (!inFlight.empty() && inFlight.front()->done.wait(100) == 0) {
				inFlight.pop_front();
				completed++;
			}
		}
		for (auto &f : inFlight)
			f->done.wait(10000);
		return completed;
	};
	long a = 0, b = 0;
	std::thread first([&] { a = run(fdA, ctxA, srcA, dstA); });
	std::thread second([&] { b = run(fdB, ctxB, srcB, dstB); });
	std::this_thread::sleep_for(std::chrono::seconds(seconds));
	stop = true;
	first.join();
	second.join();
	return { a, b };
}

void printContention(const char *variant, std::pair<long, long> jobs, int seconds)
{
	long total = jobs.first + jobs.second;
	std::printf("{\"bench\": \"engine_contention_jobs_per_s_%s\", \"value\": %.1f, \"unit\": \"jobs/s\"}\n",
		    variant, double(total) / seconds);
	std::printf("{\"bench\": \"engine_reserved_share_%s\", \"value\": %.3f, \"unit\": \"ratio\"}\n",
		    variant, total ? double(jobs.first) / double(total) : 0.0);
}

} /* namespace */

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? std::atoi(argv[1]) : 40;
	std::vector<std::string> paths = nodePaths();
	if (paths.empty()) {
		std::fprintf(stderr, "vdla-bench-lease: no vdla node\n");
		return 1;
	}
	Node holderNode(paths[0]), claimerNode(paths[0]);
	SramPartitions partitions(holderNode.index(), "bench:64K");
	FaultInjection fi(holderNode.index());
	if (partitions.error() || fi.set("bdma", "delay", 0, kFrameUs)) {
		std::fprintf(stderr, "vdla-bench-lease: needs root: sysfs partitions, debugfs\n");
		return 1;
	}
	int holderFd = holderNode.fd(), claimerFd = claimerNode.fd();
	Ctx low(holderFd, DRM_VDLA_PRIORITY_LOW), high(claimerFd, DRM_VDLA_PRIORITY_HIGH);
	Bo src(holderFd, 4096), dst(holderFd, 4096);
	std::mt19937 rng(7);
	std::vector<double> latencies;
	LeaseClaim lowClaim;
	lowClaim.ctx = low.id();
	lowClaim.priority = DRM_VDLA_PRIORITY_LOW;
	lowClaim.releaseTimeoutNs = 1000000000ull;
	LeaseClaim highClaim;
	highClaim.ctx = high.id();
	highClaim.priority = DRM_VDLA_PRIORITY_HIGH;
	highClaim.timeoutNs = 5000000000ull;

	for (int i = 0; i < rounds; i++) {
		uint32_t lowId = 0, highId = 0;
		if (leaseAcquire(holderFd, lowClaim, &lowId)) {
			std::fprintf(stderr, "vdla-bench-lease: the holder's ACQUIRE failed\n");
			return 1;
		}
		std::atomic<bool> running{ false };
		std::thread holder(holdAndRelease, holderFd, low.id(), lowId, std::cref(src),
				   std::cref(dst), std::ref(running));
		while (!running)
			std::this_thread::sleep_for(std::chrono::microseconds(200));
		/* Anywhere in a frame. */
		std::this_thread::sleep_for(std::chrono::microseconds(rng() % (2 * kFrameUs)));
		auto start = clock_type::now();
		int ret = leaseAcquire(claimerFd, highClaim, &highId);
		auto end = clock_type::now();
		holder.join();
		if (ret) {
			std::fprintf(stderr, "vdla-bench-lease: the HIGH ACQUIRE failed: %d\n", ret);
			return 1;
		}
		latencies.push_back(bench::micros(end - start));
		leaseRelease(claimerFd, highId);
	}
	std::printf("{\"bench\": \"lease_preempt_us_p50\", \"value\": %.1f, \"unit\": \"us\"}\n",
		    bench::percentile(latencies, 0.5));
	std::printf("{\"bench\": \"lease_preempt_us_p99\", \"value\": %.1f, \"unit\": \"us\"}\n",
		    bench::percentile(latencies, 0.99));
	std::printf("{\"bench\": \"lease_frame_us\", \"value\": %u, \"unit\": \"us\"}\n", kFrameUs);

	/* Throughput under contention, without and with an engine reservation. */
	if (fi.set("bdma", "delay", 0, 1000))
		return 1;
	constexpr int kSeconds = 2;
	Ctx a(holderFd), b(claimerFd);
	Bo srcB(claimerFd, 4096), dstB(claimerFd, 4096);
	printContention("without",
			contend(holderFd, a.id(), claimerFd, b.id(), src, dst, srcB, dstB, kSeconds),
			kSeconds);
	LeaseClaim reserve;
	reserve.ctx = a.id();
	reserve.resource = DRM_VDLA_RESOURCE_ENGINE;
	reserve.index = VDLA_TASK_ENGINE_BDMA; /* what the jobs use */
	uint32_t reservation = 0;
	if (leaseAcquire(holderFd, reserve, &reservation)) {
		std::fprintf(stderr, "vdla-bench-lease: the engine reservation failed\n");
		return 1;
	}
	printContention("with",
			contend(holderFd, a.id(), claimerFd, b.id(), src, dst, srcB, dstB, kSeconds),
			kSeconds);
	leaseRelease(holderFd, reservation);

	/* A LOW context's part of the device against a HIGH one, without and with a share. */
	Ctx shareLow(holderFd, DRM_VDLA_PRIORITY_LOW), shareHigh(claimerFd, DRM_VDLA_PRIORITY_HIGH);
	ParamOverride starvation("starvation_ms", "10000");
	auto lowPart = [&](const char *variant, const char *shares, bool printJobs) {
		TimeShares defined(holderNode.index(), shares);
		uint32_t lease = 0;
		if (*shares) {
			LeaseClaim claim;
			claim.ctx = shareLow.id();
			claim.resource = DRM_VDLA_RESOURCE_TIME_SHARE;
			claim.priority = DRM_VDLA_PRIORITY_LOW;
			if (defined.error() || leaseAcquire(holderFd, claim, &lease)) {
				std::fprintf(stderr, "vdla-bench-lease: the time share failed\n");
				return false;
			}
		}
		uint64_t lowBefore = shareLow.query().busy_ns, highBefore = shareHigh.query().busy_ns;
		auto jobs = contend(holderFd, shareLow.id(), claimerFd, shareHigh.id(), src, dst, srcB,
				    dstB, kSeconds);
		double lowNs = double(shareLow.query().busy_ns - lowBefore);
		double highNs = double(shareHigh.query().busy_ns - highBefore);
		std::printf("{\"bench\": \"time_share_fraction_%s\", \"value\": %.3f, \"unit\": \"ratio\"}\n",
			    variant, lowNs + highNs > 0 ? lowNs / (lowNs + highNs) : 0.0);
		if (printJobs)
			std::printf("{\"bench\": \"time_share_jobs_per_s_%s\", \"value\": %.1f, \"unit\": \"jobs/s\"}\n",
				    variant, double(jobs.first + jobs.second) / kSeconds);
		if (lease)
			leaseRelease(holderFd, lease);
		return true;
	};
	if (!lowPart("without", "", true) || !lowPart("25", "bench:25", false) ||
	    !lowPart("50", "bench:50", true))
		return 1;
	return 0;
}
