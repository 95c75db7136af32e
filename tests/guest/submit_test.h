/* SPDX-License-Identifier: MIT */
/*
 * What the tests of vdla-submit-tests share: a fixture with an open node,
 * running a job to its end, child processes and passing file descriptors
 * between processes.
 */
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "submit_env.h"
#include "workload.h"

namespace guest {

/* Generous bound for one small job, which takes about a millisecond. */
constexpr int kJobTimeoutMs = 10000;

/* A test with the first vdla node open. */
class SubmitTest : public ::testing::Test
{
protected:
	void SetUp() override;

	int fd() const { return node_.fd(); }

	std::vector<std::string> paths_;
	Node node_;
};

/*
 * A job built by hand: entry 0 is its descriptor BO, made by finish(); the
 * test adds its BOs as further entries and writes the task. Its out-sync is
 * done.
 */
struct HandJob {
	HandJob(int fd, uint32_t ctx);
	/* Appends an address-list entry; returns its index. */
	uint16_t add(const Bo &bo, uint32_t flags = 0, uint64_t offset = 0);
	/* Writes the descriptor into a new BO; the errno. */
	int finish();
	/* finish() if not done, then SUBMIT; the errno. */
	int submit(drm_vdla_submit *result = nullptr);

	int fd;
	Bo desc;
	TaskWriter task;
	Submission submission;
	Syncobj done;
};

/* Submits @job on @ctx with an out-sync, waits for it, checks the fence and the result. */
::testing::AssertionResult runJob(SmallJob &job, uint32_t ctx, int timeoutMs = kJobTimeoutMs);
/* The fence of @sync signalled without error, within @timeoutMs. */
::testing::AssertionResult fenceSucceeds(const Syncobj &sync, int timeoutMs = kJobTimeoutMs);
/* The fence of @sync signalled with -@error, within @timeoutMs. */
::testing::AssertionResult fenceFails(
	const Syncobj &sync, int error, int timeoutMs = kJobTimeoutMs);

/* Runs @body as nobody with no capabilities; its exit status (100: could not drop). */
int asNobody(const std::function<int()> &body);

/* Sends @fds over the unix socket @sock (SCM_RIGHTS); returns the errno. */
int sendFds(int sock, const std::vector<int> &fds);
/* Receives @count fds from @sock; empty on failure. */
std::vector<int> receiveFds(int sock, size_t count);

/*
 * The counters of device @index come back to @baseline within @timeoutMs:
 * objects go shortly after their last user.
 */
::testing::AssertionResult countsReturnTo(
	int index, const std::map<std::string, long> &baseline, int timeoutMs);

} /* namespace guest */
