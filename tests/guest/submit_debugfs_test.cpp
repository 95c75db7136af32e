/* SPDX-License-Identifier: MIT */
/*
 * What the driver shows about itself: its debugfs files (state counters,
 * dumps, fault injection), the DRM usage statistics in /proc/<pid>/fdinfo,
 * and the job-lifecycle tracepoints.
 */
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>

#include "submit_test.h"

namespace guest {
namespace {

using Debugfs = SubmitTest;

TEST_F(Debugfs, StateHasEveryCounter)
{
	auto state = readState(node_.index());
	ASSERT_FALSE(state.empty()) << debugfsPath(node_.index(), "state") << " is unreadable";
	for (const char *key : { "bos", "mappings", "jobs", "contexts", "queued", "running",
		     "resets", "timeouts", "mmu_faults", "op_errors", "preemptions",
		     "jobs_completed", "jobs_failed" }) {
		ASSERT_TRUE(state.count(key)) << "no " << key;
		EXPECT_GE(state[key], 0) << key;
	}
}

TEST_F(Debugfs, StateFollowsObjectsAndJobs)
{
	const int index = node_.index();
	auto before = readState(index);
	{
		Node other(paths_.front());
		Ctx a(other.fd()), b(other.fd(), DRM_VDLA_PRIORITY_HIGH);
		SmallJob job(other.fd());
		ASSERT_EQ(job.error(), 0);
		auto during = readState(index);
		EXPECT_EQ(during["bos"], before["bos"] + SmallJob::kEntries);
		EXPECT_EQ(during["mappings"], before["mappings"] + SmallJob::kEntries);
		EXPECT_EQ(during["contexts"], before["contexts"] + 2);

		Rng rng(101);
		for (int i = 0; i < 4; i++) {
			job.prepare(rng, WorkKind(1 + i));
			ASSERT_TRUE(runJob(job, i % 2 ? a.id() : b.id()));
		}
		auto after = readState(index);
		EXPECT_EQ(after["jobs_completed"], before["jobs_completed"] + 4);
		EXPECT_EQ(after["jobs_failed"], before["jobs_failed"]);
	}
	auto baseline = objectCounts(index);
	for (auto &[key, value] : baseline)
		value = before[key];
	EXPECT_TRUE(countsReturnTo(index, baseline, 5000)) << "after closing";
}

TEST_F(Debugfs, DumpsAreReadable)
{
	Ctx ctx(fd());
	SmallJob job(fd());
	Rng rng(102);
	job.prepare(rng, WorkKind::Sdp);
	ASSERT_TRUE(runJob(job, ctx.id()));
	for (const char *file : { "state", "contexts", "jobs", "registers" }) {
		std::string text;
		EXPECT_EQ(readFile(debugfsPath(node_.index(), file), &text), 0) << file;
		EXPECT_FALSE(text.empty()) << file;
	}
}

TEST_F(Debugfs, FaultInjectRejectsBadInput)
{
	for (const char *bad : { "\n", "bdma", "bdma hang", "gpu hang 1", "bdma explode 1",
		     "bdma hang many", "bdma delay 1 soon" }) {
		EXPECT_EQ(faultInject(node_.index(), bad), EINVAL) << "\"" << bad << "\"";
	}
	for (const char *engine : { "bdma", "conv", "sdp", "pdp", "cdp", "rubik" })
		EXPECT_EQ(faultInject(node_.index(), std::string(engine) + " none 0"), 0) << engine;
	/* None of it broke anything. */
	Ctx ctx(fd());
	SmallJob job(fd());
	Rng rng(103);
	job.prepare(rng, WorkKind::CopySdp);
	EXPECT_TRUE(runJob(job, ctx.id()));
}

TEST_F(Debugfs, FaultInjectionIsPerDevice)
{
	if (paths_.size() < 2)
		GTEST_SKIP() << "needs two vDLAs";
	Node second(paths_[1]);
	FaultInjection fi(second.index());
	ASSERT_EQ(fi.set("bdma", "op_error", 0), 0);
	Rng rng(104);
	Ctx ctx(fd()), ctx2(second.fd());
	SmallJob job(fd()), job2(second.fd());
	job.prepare(rng, WorkKind::Copy);
	EXPECT_TRUE(runJob(job, ctx.id())) << "the first device was affected";
	job2.prepare(rng, WorkKind::Copy);
	Syncobj done(second.fd());
	ASSERT_EQ(submit(second.fd(), job2.submission(ctx2.id(), done.sync())), 0);
	EXPECT_TRUE(fenceFails(done, EIO));
	fi.clear();
	Ctx fresh(second.fd());
	EXPECT_TRUE(runJob(job2, fresh.id()));
}

/* "key:\tvalue unit" lines of an fdinfo file. */
std::map<std::string, std::string> fdinfo(int fd)
{
	std::string text;
	readFile("/proc/self/fdinfo/" + std::to_string(fd), &text);
	std::map<std::string, std::string> lines;
	std::istringstream s(text);
	std::string line;
	while (std::getline(s, line)) {
		size_t colon = line.find(':');
		if (colon == std::string::npos)
			continue;
		size_t value = line.find_first_not_of(" \t", colon + 1);
		lines[line.substr(0, colon)] = value == std::string::npos ? "" : line.substr(value);
	}
	return lines;
}

TEST(Fdinfo, ReportsDriverEngineTimeAndMemory)
{
	auto paths = nodePaths();
	ASSERT_FALSE(paths.empty());
	Node node(paths.front());
	ASSERT_TRUE(node.valid());
	Ctx ctx(node.fd());
	SmallJob job(node.fd());
	ASSERT_EQ(job.error(), 0);
	Rng rng(105);
	job.prepare(rng, WorkKind::ConvSdp);
	ASSERT_TRUE(runJob(job, ctx.id()));

	std::string raw;
	ASSERT_EQ(readFile("/proc/self/fdinfo/" + std::to_string(node.fd()), &raw), 0);
	EXPECT_NE(raw.find("drm-driver:\tvdla\n"), std::string::npos) << raw;
	auto info = fdinfo(node.fd());
	ASSERT_TRUE(info.count("drm-engine-dla")) << raw;
	const std::string &engine = info["drm-engine-dla"];
	char *end = nullptr;
	unsigned long long ns = std::strtoull(engine.c_str(), &end, 10);
	EXPECT_GT(ns, 0u) << raw;
	EXPECT_STREQ(end, " ns") << raw;
	ASSERT_TRUE(info.count("drm-total-memory")) << raw;
	unsigned long long memory = std::strtoull(info["drm-total-memory"].c_str(), &end, 10);
	EXPECT_GT(memory, 0u) << raw;

	/* Engine time only grows. */
	job.prepare(rng, WorkKind::Conv);
	ASSERT_TRUE(runJob(job, ctx.id()));
	unsigned long long later
		= std::strtoull(fdinfo(node.fd())["drm-engine-dla"].c_str(), nullptr, 10);
	EXPECT_GE(later, ns);
}

/*
 * Memory by region: an SRAM BO counts in drm-memory-sram, not in
 * drm-memory-system (it has no pages). And reading fdinfo never waits for
 * the dispatcher: it no longer takes fw_lock (nothing here can show that
 * except that a read during a long job returns while the job runs).
 */
TEST(Fdinfo, SramIsItsOwnRegionAndAReadDoesNotWaitForTheDevice)
{
	auto paths = nodePaths();
	ASSERT_FALSE(paths.empty());
	Node node(paths.front());
	ASSERT_TRUE(node.valid());
	auto kib = [&](const char *key) {
		return std::strtoull(fdinfo(node.fd())[key].c_str(), nullptr, 10);
	};
	unsigned long long system = kib("drm-memory-system"), sram = kib("drm-memory-sram");
	EXPECT_EQ(sram, 0u);
	Bo inSram(node.fd(), 64 << 10, DRM_VDLA_BO_CREATE_SRAM);
	ASSERT_EQ(inSram.error(), 0);
	Bo inMemory(node.fd(), 128 << 10);
	ASSERT_EQ(inMemory.error(), 0);
	EXPECT_EQ(kib("drm-memory-sram"), sram + 64);
	EXPECT_EQ(kib("drm-memory-system"), system + 128);

	FaultInjection fi(node.index());
	ASSERT_EQ(fi.set("bdma", "delay", 1, 1000000), 0);
	Ctx ctx(node.fd());
	SmallJob job(node.fd());
	Rng rng(106);
	job.prepare(rng, WorkKind::Copy);
	Syncobj done(node.fd());
	ASSERT_EQ(submit(node.fd(), job.submission(ctx.id(), done.sync())), 0);
	std::this_thread::sleep_for(std::chrono::milliseconds(100));
	unsigned long long during = kib("drm-engine-dla");
	EXPECT_FALSE(done.signalled()) << "the job ended before fdinfo was read";
	EXPECT_TRUE(fenceSucceeds(done));
	EXPECT_GT(kib("drm-engine-dla"), during);
}

} /* namespace */
} /* namespace guest */

namespace guest {
namespace {

using Tracepoints = SubmitTest;

/* tracefs, wherever the guest has it. */
std::string tracefs()
{
	for (const char *dir : { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" }) {
		if (::access((std::string(dir) + "/events").c_str(), F_OK) == 0)
			return dir;
	}
	return {};
}

TEST_F(Tracepoints, EveryJobLifecycleEventExists)
{
	std::string dir = tracefs();
	ASSERT_FALSE(dir.empty()) << "no tracefs";
	for (const char *event : { "vdla_job_queue", "vdla_job_run", "vdla_job_preempted",
		     "vdla_job_done", "vdla_job_timeout", "vdla_job_fault" }) {
		std::string format;
		EXPECT_EQ(readFile(dir + "/events/vdla/" + event + "/format", &format), 0)
			<< event;
		EXPECT_NE(format.find("ctx"), std::string::npos) << event;
	}
}

TEST_F(Tracepoints, AJobIsQueuedRunAndDoneInOrder)
{
	std::string dir = tracefs();
	ASSERT_FALSE(dir.empty()) << "no tracefs";
	/* Opening the trace for writing with O_TRUNC empties it. */
	int traceFd = ::open((dir + "/trace").c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
	ASSERT_GE(traceFd, 0);
	::close(traceFd);
	ASSERT_EQ(writeFile(dir + "/events/vdla/enable", "1"), 0);
	Ctx ctx(fd());
	SmallJob job(fd());
	ASSERT_EQ(job.error(), 0);
	Rng rng(131);
	job.prepare(rng, WorkKind::CopySdp);
	bool ran = runJob(job, ctx.id());
	std::string trace;
	readFile(dir + "/trace", &trace);
	writeFile(dir + "/events/vdla/enable", "0");
	ASSERT_TRUE(ran);

	std::string tag = "ctx=" + std::to_string(ctx.id()) + " seqno=1";
	size_t queue = trace.find("vdla_job_queue: dev=");
	size_t run = trace.find("vdla_job_run: dev=");
	size_t done = trace.find("vdla_job_done: dev=");
	ASSERT_NE(queue, std::string::npos) << trace;
	ASSERT_NE(run, std::string::npos) << trace;
	ASSERT_NE(done, std::string::npos) << trace;
	EXPECT_LT(queue, run);
	EXPECT_LT(run, done);
	EXPECT_NE(trace.find(tag, done), std::string::npos) << trace;
	EXPECT_NE(trace.find("error=0", done), std::string::npos) << trace;
}

} /* namespace */
} /* namespace guest */
