/* SPDX-License-Identifier: MIT */
#include "submit_test.h"

#include <grp.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <thread>

namespace guest {

void SubmitTest::SetUp()
{
	paths_ = nodePaths();
	ASSERT_FALSE(paths_.empty()) << "no vdla node";
	node_ = Node(paths_.front());
	ASSERT_TRUE(node_.valid()) << paths_.front() << ": " << std::strerror(errno);
	/*
	 * Jobs of an earlier test's closed file end, and free what they hold,
	 * after its close returned: wait for them, or a baseline taken now
	 * would count them and never be met again.
	 */
	const std::map<std::string, long> idle = {
		{ "bos", 0 },	   { "channels", 0 }, { "contexts", 0 }, { "jobs", 0 },
		{ "leases", 0 },   { "mappings", 0 }, { "pipelines", 0 }
	};
	ASSERT_TRUE(countsReturnTo(node_.index(), idle, 30000))
		<< "work of an earlier test is still held";
}

HandJob::HandJob(int fd_, uint32_t ctx) : fd(fd_), done(fd_)
{
	submission.ctx = ctx;
	submission.addresses.resize(1);
	submission.outSync = done.sync();
}

uint16_t HandJob::add(const Bo &bo, uint32_t flags, uint64_t offset)
{
	submission.addresses.push_back(bo.entry(flags, offset));
	return uint16_t(submission.addresses.size() - 1);
}

int HandJob::finish()
{
	desc = Bo(fd, task.size());
	if (desc.error())
		return desc.error();
	if (!desc.map())
		return ENOMEM;
	if (!task.write(desc.map(), desc.size()))
		return E2BIG;
	submission.addresses[0] = desc.entry();
	return 0;
}

int HandJob::submit(drm_vdla_submit *result)
{
	if (!desc.valid()) {
		int ret = finish();
		if (ret)
			return ret;
	}
	return guest::submit(fd, submission, result);
}

/* Runs @body as nobody with no capabilities; its exit status (100: could not drop). */
int asNobody(const std::function<int()> &body)
{
	return waitChild(forkChild([&] {
		if (setgroups(0, nullptr) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534) || geteuid() != 65534)
			return 100;
		return body();
	}));
}

::testing::AssertionResult fenceSucceeds(const Syncobj &sync, int timeoutMs)
{
	int ret = sync.wait(timeoutMs);
	if (ret)
		return ::testing::AssertionFailure() << "the fence did not signal in " << timeoutMs
						     << " ms: " << std::strerror(-ret);
	FenceInfo info = sync.fence();
	if (!info.ok)
		return ::testing::AssertionFailure()
			<< "the fence cannot be exported as a sync file";
	if (info.status != 1)
		return ::testing::AssertionFailure()
			<< "the fence signalled with status " << info.status << " ("
			<< std::strerror(-info.status) << ")";
	return ::testing::AssertionSuccess();
}

::testing::AssertionResult fenceFails(const Syncobj &sync, int error, int timeoutMs)
{
	int ret = sync.wait(timeoutMs);
	if (ret)
		return ::testing::AssertionFailure() << "the fence did not signal in " << timeoutMs
						     << " ms: " << std::strerror(-ret);
	FenceInfo info = sync.fence();
	if (!info.ok)
		return ::testing::AssertionFailure()
			<< "the fence cannot be exported as a sync file";
	if (info.status != -error)
		return ::testing::AssertionFailure()
			<< "the fence signalled with status " << info.status << ", expected "
			<< -error << " (" << std::strerror(error) << ")";
	return ::testing::AssertionSuccess();
}

::testing::AssertionResult runJob(SmallJob &job, uint32_t ctx, int timeoutMs)
{
	Syncobj done(job.fd());
	if (done.error())
		return ::testing::AssertionFailure() << "syncobj: " << std::strerror(done.error());
	drm_vdla_submit result;
	int ret = submit(job.fd(), job.submission(ctx, done.sync()), &result);
	if (ret)
		return ::testing::AssertionFailure()
			<< "SUBMIT failed: " << std::strerror(ret) << " (op " << result.error_op
			<< ", field " << result.error_field << ", reason " << result.error_reason
			<< ")";
	::testing::AssertionResult fence = fenceSucceeds(done, timeoutMs);
	if (!fence)
		return fence << " (" << workKindName(job.kind()) << " job)";
	return job.check();
}

int sendFds(int sock, const std::vector<int> &fds)
{
	char byte = 'F';
	iovec iov = { &byte, 1 };
	std::vector<char> control(CMSG_SPACE(sizeof(int) * fds.size()));
	msghdr msg = {};
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = control.data();
	msg.msg_controllen = control.size();
	cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
	std::memcpy(CMSG_DATA(cmsg), fds.data(), sizeof(int) * fds.size());
	return ::sendmsg(sock, &msg, 0) == 1 ? 0 : errno;
}

std::vector<int> receiveFds(int sock, size_t count)
{
	char byte;
	iovec iov = { &byte, 1 };
	std::vector<char> control(CMSG_SPACE(sizeof(int) * count));
	msghdr msg = {};
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = control.data();
	msg.msg_controllen = control.size();
	if (::recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		return {};
	cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS
		|| cmsg->cmsg_len != CMSG_LEN(sizeof(int) * count))
		return {};
	std::vector<int> fds(count);
	std::memcpy(fds.data(), CMSG_DATA(cmsg), sizeof(int) * count);
	return fds;
}

::testing::AssertionResult countsReturnTo(
	int index, const std::map<std::string, long> &baseline, int timeoutMs)
{
	std::map<std::string, long> now;
	if (waitUntil(
		    [&] {
			    now = objectCounts(index);
			    return now == baseline;
		    },
		    timeoutMs, 20))
		return ::testing::AssertionSuccess();
	return ::testing::AssertionFailure() << "before: " << describeCounts(baseline) << "; "
					     << timeoutMs << " ms later: " << describeCounts(now);
}

} /* namespace guest */
