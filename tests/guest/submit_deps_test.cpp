/* SPDX-License-Identifier: MIT */
/*
 * The scheduler's waiting lists under load: threads, each with a file of
 * its own, submit jobs that wait for random earlier jobs (in-syncs across
 * contexts), destroy contexts with jobs still waiting, and close their file
 * with jobs queued, while the device is slowed so that jobs do wait. Every
 * job must end, with 0, ECANCELED or ESRCH only; the fences of each context
 * must signal in submission order; every copy that completed must be
 * right; and nothing may be left behind.
 */
#include <gtest/gtest.h>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <xf86drm.h>

#include "submit_test.h"

namespace guest {
namespace {

/* A copy of 64 bytes per operation, @ops operations in a row, in BOs of its own. */
struct CopyChain {
	Bo desc, src, dst;
	unsigned ops;
	uint8_t value;

	CopyChain(int fd, unsigned ops_, uint8_t value_)
		: desc(fd, sizeof(vdla_task_header) + uint64_t(ops_) * sizeof(vdla_task_op)),
		  src(fd, std::max<uint64_t>(4096, ops_ * 64)),
		  dst(fd, std::max<uint64_t>(4096, ops_ * 64)), ops(ops_), value(value_)
	{
		TaskWriter task;
		for (unsigned k = 0; k < ops; k++) {
			uint16_t op = task.copy(1, k * 64, 2, k * 64, 64);
			if (k)
				task.link(uint16_t(op - 1), op);
		}
		if (desc.map())
			task.write(desc.map(), desc.size());
		if (src.map())
			src.fill(value);
	}
	int error() const
	{
		return desc.error() ? desc.error() : src.error() ? src.error() : dst.error();
	}
	bool copied()
	{
		uint8_t *out = dst.map();
		for (unsigned i = 0; out && i < ops * 64; i++) {
			if (out[i] != value)
				return false;
		}
		return out != nullptr;
	}
};

/* One submitted job: its context (by slot and generation), fence, and copy. */
struct Record {
	int slot;
	int generation;
	int syncFile;
	std::unique_ptr<CopyChain> chain;
};

/*
 * What one thread does, on a file of its own; returns a description of any
 * failure. Contexts and syncobjs are plain ids here: the file's close must
 * be what ends them, and no destructor may later use a number another
 * thread's file has been given meanwhile.
 */
std::string runThread(const std::string &path, unsigned seed, bool closeEarly)
{
	std::mt19937 rng(seed);
	auto node = std::make_unique<Node>(path);
	if (!node->valid())
		return "cannot open the node";
	const int fd = node->fd();
	const uint32_t priorities[] = { DRM_VDLA_PRIORITY_LOW, DRM_VDLA_PRIORITY_NORMAL,
		DRM_VDLA_PRIORITY_HIGH };
	auto createCtx = [&](uint32_t priority) {
		drm_vdla_ctx_create args = {};
		args.priority = priority;
		return ioctlError(fd, DRM_IOCTL_VDLA_CTX_CREATE, &args) ? 0u : args.ctx_id;
	};
	uint32_t contexts[3];
	int generation[3] = {};
	for (int c = 0; c < 3; c++) {
		contexts[c] = createCtx(priorities[c]);
		if (!contexts[c])
			return "CTX_CREATE failed";
	}
	std::vector<uint32_t> outs;
	std::vector<Record> records;
	/*
	 * A gate: 200 operations in a context of its own. The threads' gates
	 * run one after the other, so jobs that wait for a late one wait
	 * longer than CTX_DESTROY gives them (1 s) and end with ESRCH.
	 */
	uint32_t gateCtx = createCtx(DRM_VDLA_PRIORITY_NORMAL), gate = 0;
	auto gateChain = std::make_unique<CopyChain>(fd, 200, uint8_t(seed));
	if (!gateCtx || gateChain->error() || drmSyncobjCreate(fd, 0, &gate))
		return "cannot make the gate job";
	{
		Submission s;
		s.ctx = gateCtx;
		s.addresses = { gateChain->desc.entry(), gateChain->src.entry(),
			gateChain->dst.entry(DRM_VDLA_ADDRESS_FLAG_WRITE) };
		s.outSync.handle = gate;
		if (submit(fd, s))
			return "SUBMIT of the gate job failed";
	}
	for (int k = 0; k < 40; k++) {
		int slot = int(rng() % 3);
		auto chain = std::make_unique<CopyChain>(fd, 1 + rng() % 3, uint8_t(seed * 41 + k));
		if (chain->error())
			return "BO_CREATE failed";
		uint32_t out = 0;
		if (drmSyncobjCreate(fd, 0, &out))
			return "syncobj creation failed";
		outs.push_back(out);
		Submission s;
		s.ctx = contexts[slot];
		s.addresses = { chain->desc.entry(), chain->src.entry(),
			chain->dst.entry(DRM_VDLA_ADDRESS_FLAG_WRITE) };
		s.outSync.handle = out;
		/* Up to two earlier jobs of this file, of any context, to wait for; or the gate. */
		for (int d = rng() % 3; d > 0 && outs.size() > 1; d--) {
			drm_vdla_sync in = {};
			in.handle = outs[rng() % (outs.size() - 1)];
			s.inSyncs.push_back(in);
		}
		if (rng() % 5 == 0) {
			drm_vdla_sync in = {};
			in.handle = gate;
			s.inSyncs.push_back(in);
		}
		int ret = submit(fd, s);
		if (ret)
			return "SUBMIT " + std::to_string(k) + ": " + std::to_string(ret);
		int syncFile = -1;
		if (drmSyncobjExportSyncFile(fd, out, &syncFile))
			return "sync file export failed";
		records.push_back({ slot, generation[slot], syncFile, std::move(chain) });
		/* Now and then a context goes with jobs still waiting; a new one takes its place. */
		if (rng() % 12 == 0) {
			int victim = int(rng() % 3);
			if (ctxDestroy(fd, contexts[victim]))
				return "CTX_DESTROY failed";
			contexts[victim] = createCtx(priorities[victim]);
			generation[victim]++;
			if (!contexts[victim])
				return "CTX_CREATE failed";
		}
	}
	if (closeEarly) {
		/* The file goes while its jobs are queued or waiting (its BOs' handles first). */
		for (Record &r : records)
			r.chain.reset();
		gateChain.reset();
		node.reset();
	}

	/* Every job ends, each context's in order, with an expected error. */
	std::map<int, int> outcomes;
	std::map<std::pair<int, int>, uint64_t> lastEnd;
	std::string failures;
	for (size_t i = 0; i < records.size(); i++) {
		Record &r = records[i];
		FenceInfo info;
		for (int tries = 0; tries < 3000; tries++) {
			info = syncFileInfo(r.syncFile);
			if (!info.ok || info.status != 0)
				break;
			std::this_thread::sleep_for(std::chrono::milliseconds(10));
		}
		::close(r.syncFile);
		std::string job = " job " + std::to_string(i) + ";";
		if (!info.ok || info.status == 0) {
			failures += job + " never ended";
			continue;
		}
		outcomes[info.status]++;
		if (info.status != 1 && info.status != -ECANCELED && info.status != -ESRCH)
			failures += job + " ended with " + std::to_string(info.status);
		if (info.status == 1 && r.chain && !r.chain->copied())
			failures += job + " completed with a wrong copy";
		auto key = std::make_pair(r.slot, r.generation);
		if (info.timestampNs < lastEnd[key])
			failures += job + " ended before an older job of its context";
		lastEnd[key] = info.timestampNs;
	}
	std::printf("thread %u%s: %d completed, %d ECANCELED, %d ESRCH\n", seed,
		closeEarly ? " (closed early)" : "", outcomes[1], outcomes[-ECANCELED],
		outcomes[-ESRCH]);
	return failures;
}

TEST_F(SubmitTest, DependentJobsRacingDestroyAndCloseAllEndInOrder)
{
	const int index = node_.index();
	auto baseline = objectCounts(index);
	FaultInjection fi(index);
	/* Slow enough that jobs wait for each other, fast enough for a short test. */
	ASSERT_EQ(fi.set("bdma", "delay", 0, 3000), 0);
	/* CTX_DESTROY waits up to a second for waiting jobs: let some time out. */
	std::vector<std::string> results(4);
	std::vector<std::thread> threads;
	for (unsigned t = 0; t < results.size(); t++) {
		threads.emplace_back([&, t] {
			results[t] = runThread(paths_.front(), 300 + t, t % 2 == 1);
		});
	}
	for (auto &thread : threads)
		thread.join();
	for (unsigned t = 0; t < results.size(); t++)
		EXPECT_EQ(results[t], "") << "thread " << t;
	fi.clear();

	EXPECT_TRUE(countsReturnTo(index, baseline, 10000));
	auto state = readState(index);
	EXPECT_EQ(state["waiting"], 0);
	EXPECT_EQ(state["queued"], 0);
}

} /* namespace */
} /* namespace guest */
