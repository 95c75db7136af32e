/* SPDX-License-Identifier: MIT */
/*
 * Many processes at once: each opens its own file (on the devices in turn),
 * makes contexts of random priorities and keeps a few small random jobs in
 * flight, checking every result against the CPU reference.
 */
#include <gtest/gtest.h>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "submit_test.h"

namespace guest {
namespace {

using Stress = SubmitTest;

/* One process's work; returns the number of failed jobs (0: all correct). */
int runProcess(const std::string &path, uint64_t seed, int jobs)
{
	constexpr int kSlots = 6;
	Node node(path);
	if (!node.valid()) {
		std::fprintf(stderr, "process %llu: cannot open %s\n", (unsigned long long)seed,
			path.c_str());
		return jobs;
	}
	Rng rng(seed);
	std::vector<Ctx> contexts;
	int count = int(rng.uniform(1, 3));
	for (int i = 0; i < count; i++) {
		contexts.emplace_back(node.fd(), uint32_t(rng.uniform(0, DRM_VDLA_PRIORITIES - 1)));
		if (contexts.back().error())
			return jobs;
	}
	std::vector<std::unique_ptr<SmallJob>> slots;
	std::vector<Syncobj> done;
	std::vector<bool> busy(kSlots, false);
	for (int i = 0; i < kSlots; i++) {
		slots.push_back(std::make_unique<SmallJob>(node.fd()));
		done.emplace_back(node.fd());
		if (slots.back()->error() || done.back().error())
			return jobs;
	}

	int failures = 0;
	auto finish = [&](int slot) {
		busy[slot] = false;
		::testing::AssertionResult r = fenceSucceeds(done[slot]);
		if (r)
			r = slots[slot]->check();
		if (!r && !failures++)
			std::fprintf(stderr, "process %llu: %s\n", (unsigned long long)seed,
				r.message());
	};
	const WorkKind kinds[] = { WorkKind::Empty, WorkKind::Copy, WorkKind::Sdp,
		WorkKind::CopySdp, WorkKind::Conv, WorkKind::ConvSdp, WorkKind::FusedConvSdp };
	for (int j = 0; j < jobs; j++) {
		int slot = j % kSlots;
		if (busy[slot])
			finish(slot);
		SmallJob &job = *slots[slot];
		job.prepare(rng, kinds[rng.uniform(0, 6)]);
		const Ctx &ctx = contexts[size_t(rng.uniform(0, count - 1))];
		int ret = submit(node.fd(), job.submission(ctx.id(), done[slot].sync()));
		if (ret) {
			if (!failures++)
				std::fprintf(stderr, "process %llu: SUBMIT: %s\n",
					(unsigned long long)seed, std::strerror(ret));
			continue;
		}
		busy[slot] = true;
	}
	for (int slot = 0; slot < kSlots; slot++)
		if (busy[slot])
			finish(slot);
	return failures;
}

TEST_F(Stress, EightProcessesWithRandomPriorities)
{
	constexpr int kProcesses = 8, kJobs = 200;
	std::vector<pid_t> pids;
	for (int p = 0; p < kProcesses; p++) {
		const std::string path = paths_[size_t(p) % paths_.size()];
		pid_t pid = forkChild([&]() { return runProcess(path, 1000 + p, kJobs) ? 1 : 0; });
		ASSERT_GT(pid, 0);
		pids.push_back(pid);
	}
	for (int p = 0; p < kProcesses; p++)
		EXPECT_EQ(waitChild(pids[p], 120000), 0) << "process " << p << " (seed " << 1000 + p
							 << ") failed; see its message above";
	for (const auto &path : paths_) {
		Node node(path);
		EXPECT_TRUE(node.valid()) << path;
	}
}

} /* namespace */
} /* namespace guest */
