/* SPDX-License-Identifier: MIT */
/*
 * A seeded, bounded ioctl fuzzer against the node, as a hostile process
 * would use it: several threads and processes (one of them without
 * privileges, some killed at random moments) call every ioctl of ours and
 * every DRM core ioctl number with mutated arguments, stale and guessed
 * handles and ids, huge counts and bad pointers, while real jobs run. Then
 * everything is closed: the debugfs counts must return to where they were,
 * a known-good job must still be correct, and the guest's kernel log must
 * stay clean (the harness fails the run on any WARN, BUG or slub report;
 * vdla-module-tests, last, unloads the module, which warns on a leaked
 * device address).
 *
 * Pointers inside random arguments are non-canonical (0xdead << 48 | x):
 * the kernel must refuse them, and they can never reach this process's own
 * memory. Waits are bounded (timeouts of zero or a few milliseconds).
 */
#include <gtest/gtest.h>

#include <poll.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "lease_env.h"
#include "submit_test.h"

namespace guest {
namespace {

using Fuzz = SubmitTest;
using Clock = std::chrono::steady_clock;

constexpr uint64_t kBadPointer = 0xdead000000000000ull;

class Fuzzer
{
public:
	Fuzzer(int fd, uint64_t seed) : fd_(fd), rng_(seed) { }

	/* Calls random ioctls until @end; returns how many. */
	long run(Clock::time_point end)
	{
		long calls = 0;
		while (Clock::now() < end) {
			step();
			calls++;
		}
		for (int fd : dmabufs_)
			::close(fd);
		dmabufs_.clear();
		return calls;
	}

private:
	uint32_t small() { return uint32_t(rng_() % 12); }
	uint32_t any32()
	{
		static const uint32_t edges[] = { 0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 4096 };
		return rng_() % 4 ? uint32_t(rng_()) >> (rng_() % 32) : edges[rng_() % 6];
	}
	/*
	 * A pointer for an array of @capacity elements of which the kernel
	 * may use @count: the array itself only if it holds them (the kernel
	 * writes some arrays back), else null or non-canonical.
	 */
	uint64_t pointer(void *valid, uint64_t capacity, uint64_t count)
	{
		switch (rng_() % 4) {
		case 0:
			return 0;
		case 1:
			return kBadPointer | (rng_() & 0xffffffff);
		default:
			return count <= capacity ? reinterpret_cast<uintptr_t>(valid) :
						   kBadPointer | (rng_() & 0xffffffff);
		}
	}
	/* Random words whose every 8-byte slot is a non-canonical address. */
	void garbage(void *buf, size_t bytes)
	{
		uint64_t *w = static_cast<uint64_t *>(buf);
		for (size_t i = 0; i < bytes / 8; i++)
			w[i] = rng_() % 3 ? kBadPointer | (rng_() & 0xffffffff) : 0;
	}

	void step()
	{
		switch (rng_() % 20) {
		case 0: {
			drm_vdla_bo_create a = {};
			/*
			 * Pages are pinned at creation: sizes up to 4 MiB, and
			 * the refused edges (0, past DRM_VDLA_BO_MAX_SIZE).
			 */
			static const uint64_t edges[] = { 0, 1, DRM_VDLA_BO_MAX_SIZE + 1, ~0ull };
			a.size = rng_() % 4 ? (rng_() % 1024 + 1) * 4096 : edges[rng_() % 4];
			a.flags = rng_() % 4 ? 0 : (rng_() % 2 ? DRM_VDLA_BO_CREATE_SRAM : any32());
			ioctlError(fd_, DRM_IOCTL_VDLA_BO_CREATE, &a);
			break;
		}
		case 1: {
			drm_vdla_bo_info a = {};
			a.handle = small();
			a.flags = rng_() % 8 ? 0 : any32();
			ioctlError(fd_, DRM_IOCTL_VDLA_BO_INFO, &a);
			break;
		}
		case 2: {
			drm_gem_close a = {};
			a.handle = small();
			ioctlError(fd_, DRM_IOCTL_GEM_CLOSE, &a);
			break;
		}
		case 3: {
			drm_vdla_ctx_create a = {};
			a.priority = rng_() % 5;
			ioctlError(fd_, DRM_IOCTL_VDLA_CTX_CREATE, &a);
			break;
		}
		case 4: {
			drm_vdla_ctx_destroy a = {};
			a.ctx_id = small();
			ioctlError(fd_, DRM_IOCTL_VDLA_CTX_DESTROY, &a);
			break;
		}
		case 5: {
			drm_vdla_ctx_query a = {};
			a.ctx_id = small();
			ioctlError(fd_, DRM_IOCTL_VDLA_CTX_QUERY, &a);
			break;
		}
		case 6:
		case 7:
			submit();
			break;
		case 8: {
			drm_prime_handle a = {};
			a.handle = small();
			a.flags = DRM_CLOEXEC | (rng_() % 2 ? DRM_RDWR : 0);
			if (ioctlError(fd_, DRM_IOCTL_PRIME_HANDLE_TO_FD, &a) == 0) {
				if (dmabufs_.size() < 16)
					dmabufs_.push_back(a.fd);
				else
					::close(a.fd);
			}
			break;
		}
		case 9: {
			int fd = dmabufs_.empty() || rng_() % 4 == 0 ? int(small()) :
								     dmabufs_[rng_() % dmabufs_.size()];
			if (rng_() % 2) {
				drm_vdla_bo_import a = {};
				a.fd = fd;
				a.flags = rng_() % 2 ? DRM_VDLA_BO_IMPORT_FLAG_READ_ONLY : 0;
				ioctlError(fd_, DRM_IOCTL_VDLA_BO_IMPORT, &a);
			} else {
				drm_prime_handle a = {};
				a.fd = fd;
				ioctlError(fd_, DRM_IOCTL_PRIME_FD_TO_HANDLE, &a);
			}
			break;
		}
		case 10: {
			if (rng_() % 2) {
				drm_vdla_bo_wait a = {};
				a.handle = small();
				a.timeout_ns = int64_t(rng_() % 3) * 1000000;
				a.flags = rng_() % 2;
				ioctlError(fd_, DRM_IOCTL_VDLA_BO_WAIT, &a);
				break;
			}
			if (rng_() % 2) {
				drm_vdla_fence_export a = {};
				a.handle = small();
				a.point = rng_() % 3 ? rng_() % 4 : any32();
				a.flags = rng_() % 8 ? 0 : any32();
				a.pad = rng_() % 8 ? 0 : any32();
				if (!ioctlError(fd_, DRM_IOCTL_VDLA_FENCE_EXPORT, &a))
					::close(a.fd);
				break;
			}
			drm_vdla_fence_wait a = {};
			a.handle = small();
			a.point = rng_() % 3 ? rng_() % 4 : any32();
			a.timeout_ns = rng_() % 4 ? int64_t(rng_() % 3) * 1000000 : -int64_t(any32());
			a.flags = rng_() % 8 ? 0 : any32();
			a.pad = rng_() % 8 ? 0 : any32();
			ioctlError(fd_, DRM_IOCTL_VDLA_FENCE_WAIT, &a);
			break;
		}
		case 11:
			syncobjs();
			break;
		case 12: {
			uint8_t out[512];
			drm_vdla_query a = {};
			a.query = rng_() % 4;
			a.size = rng_() % 2 ? uint32_t(rng_() % sizeof(out)) : any32();
			a.data = pointer(out, sizeof(out), a.size);
			ioctlError(fd_, DRM_IOCTL_VDLA_QUERY, &a);
			break;
		}
		case 14:
		case 15:
			leases();
			break;
		case 16:
		case 17:
			pipelines();
			break;
		case 13: {
			drm_vdla_test_irq a = {};
			a.flags = rng_() % 2;
			a.timeout_ms = 1 + rng_() % 3;
			ioctlError(fd_, DRM_IOCTL_VDLA_TEST_IRQ, &a);
			break;
		}
		default:
			coreIoctl();
			break;
		}
	}

	/*
	 * Pipelines, channels and ports (docs/ownership.md) under four names
	 * that every fuzzer shares, so that files create, open, duplicate,
	 * take and destroy each other's: guessed handles, ids and indices,
	 * mutated flags, ops and keys; forced destroys while others hold.
	 */
	void pipelines()
	{
		static const char *const names[] = { "f0", "f1", "f2", "f3" };
		const char *name = names[rng_() % 4];
		switch (rng_() % 11) {
		case 0: {
			drm_vdla_pipeline_create a = {};
			std::strcpy(a.name, rng_() % 16 ? name : "bad name");
			a.params[0] = uint32_t(rng_() % 3);
			a.flags = rng_() % 8 ? 0 : any32();
			ioctlError(fd_, DRM_IOCTL_VDLA_PIPELINE_CREATE, &a);
			break;
		}
		case 1:
		case 2: {
			drm_vdla_pipeline_open a = {};
			std::strcpy(a.name, name);
			a.params[0] = uint32_t(rng_() % 3);
			a.flags = rng_() % 8 ? rng_() % 2 : any32();
			ioctlError(fd_, DRM_IOCTL_VDLA_PIPELINE_OPEN, &a);
			break;
		}
		case 3: {
			drm_vdla_pipeline_destroy a = {};
			a.handle = small();
			a.flags = rng_() % 8 ? rng_() % 2 : any32();
			ioctlError(fd_, DRM_IOCTL_VDLA_PIPELINE_DESTROY, &a);
			break;
		}
		case 4: {
			drm_vdla_pipeline_close a = {};
			a.handle = small();
			a.flags = rng_() % 8 ? 0 : any32();
			ioctlError(fd_, DRM_IOCTL_VDLA_PIPELINE_CLOSE, &a);
			break;
		}
		case 5: {
			drm_vdla_pipeline_query q = {};
			q.handle = small();
			ioctlError(fd_, DRM_IOCTL_VDLA_PIPELINE_QUERY, &q);
			drm_vdla_pipeline_set_exit a = {};
			a.handle = small();
			a.actions = rng_() % 8 ? uint32_t(rng_() % 8) : any32();
			ioctlError(fd_, DRM_IOCTL_VDLA_PIPELINE_SET_EXIT, &a);
			break;
		}
		case 6: {
			drm_vdla_channel_create a = {};
			a.pipeline = small();
			a.ctx_id = rng_() % 2 ? 0 : small();
			a.flags = rng_() % 8 ? 0 : any32();
			ioctlError(fd_, DRM_IOCTL_VDLA_CHANNEL_CREATE, &a);
			break;
		}
		case 7: {
			drm_vdla_channel_dup a = {};
			a.pipeline = small();
			a.channel_id = small();
			a.pad = rng_() % 8 ? 0 : any32();
			ioctlError(fd_, DRM_IOCTL_VDLA_CHANNEL_DUP, &a);
			break;
		}
		case 8: {
			drm_vdla_channel_destroy a = {};
			a.pipeline = small();
			a.channel_id = small();
			ioctlError(fd_, DRM_IOCTL_VDLA_CHANNEL_DESTROY, &a);
			break;
		}
		case 9: {
			drm_vdla_channel_attr a = {};
			a.pipeline = small();
			a.channel_id = small();
			a.op = rng_() % 8 ? rng_() % 4 : any32();
			a.key = rng_() % 8 ? rng_() % 9 : any32();
			a.value = rng_();
			ioctlError(fd_, DRM_IOCTL_VDLA_CHANNEL_ATTR, &a);
			break;
		}
		default: {
			drm_vdla_port_buffer a = {};
			a.pipeline = small();
			a.channel_id = small();
			a.port = rng_() % 8 ? rng_() % 4 : any32();
			a.op = rng_() % 8 ? rng_() % 3 : any32();
			a.flags = rng_() % 4 ? rng_() % 2 : any32();
			a.handle = small();
			a.index = rng_() % 8 ? rng_() % 8 : any32();
			ioctlError(fd_, DRM_IOCTL_VDLA_PORT_BUFFER, &a);
			break;
		}
		}
	}

	/*
	 * The resource manager: claims that wait a few milliseconds at most,
	 * holders asked to release within milliseconds (revocations while
	 * jobs run), releases and queries of guessed ids, partition BOs; the
	 * SUBMITs name guessed leases (joining time shares).
	 */
	void leases()
	{
		switch (rng_() % 5) {
		case 0:
		case 1: {
			drm_vdla_lease_acquire a = {};
			a.ctx_id = small();
			/* Partitions, engines and time shares, or garbage. */
			a.resource = rng_() % 8 ? 1 + rng_() % 3 : any32();
			a.index = rng_() % 8 ? rng_() % 3 : any32();
			a.priority = rng_() % 4;
			a.flags = rng_() % 8 ? rng_() % 4 : any32();
			a.group = rng_() % 3;
			a.user_data = rng_();
			a.timeout_ns = rng_() % 8 ? (rng_() % 3) * 1000000 : any32();
			a.release_timeout_ns = 1000000 * (1 + rng_() % 20);
			ioctlError(fd_, DRM_IOCTL_VDLA_LEASE_ACQUIRE, &a);
			break;
		}
		case 2: {
			drm_vdla_lease_release a = {};
			a.lease_id = small();
			a.flags = rng_() % 8 ? 0 : any32();
			ioctlError(fd_, DRM_IOCTL_VDLA_LEASE_RELEASE, &a);
			break;
		}
		case 3: {
			drm_vdla_lease_query a = {};
			a.lease_id = small();
			a.flags = rng_() % 8 ? 0 : any32();
			ioctlError(fd_, DRM_IOCTL_VDLA_LEASE_QUERY, &a);
			break;
		}
		default: {
			drm_vdla_bo_create a = {};
			a.size = (rng_() % 8 + 1) * 4096;
			a.flags = rng_() % 8 ? DRM_VDLA_BO_CREATE_SRAM : any32();
			a.lease_id = small();
			ioctlError(fd_, DRM_IOCTL_VDLA_BO_CREATE, &a);
			break;
		}
		}
		/* Read what events came, as a real client would, now and then. */
		if (rng_() % 4 == 0) {
			uint8_t buf[512];
			pollfd p = { fd_, POLLIN, 0 };
			if (::poll(&p, 1, 0) == 1)
				(void)!::read(fd_, buf, sizeof(buf));
		}
	}

	/* SUBMIT with mutated address lists, syncs, ids and flags. */
	void submit()
	{
		drm_vdla_address list[6];
		drm_vdla_sync in[3];
		for (auto &e : list) {
			e = {};
			e.handle = small();
			e.flags = rng_() % 3 ? DRM_VDLA_ADDRESS_FLAG_WRITE * (rng_() % 2) : any32();
			e.offset = rng_() % 3 ? 0 : any32();
		}
		for (auto &s : in) {
			s = {};
			s.handle = small();
			s.point = rng_() % 3 ? 0 : rng_() % 4;
		}
		drm_vdla_submit a = {};
		a.ctx_id = small();
		a.flags = rng_() % 4 ? 0 : any32();
		if (rng_() % 4 == 0)
			a.flags = (rng_() % 4) * DRM_VDLA_SUBMIT_FRAME_BEGIN;
		a.lease_id = rng_() % 3 ? 0 : small();
		a.address_count = rng_() % 4 ? 1 + rng_() % 6 : any32();
		a.addresses = pointer(list, 6, a.address_count);
		a.descriptor = rng_() % 4 ? 0 : any32();
		a.in_sync_count = rng_() % 2 ? rng_() % 4 : any32();
		a.in_syncs = pointer(in, 3, a.in_sync_count);
		a.out_sync.handle = rng_() % 2 ? small() : 0;
		ioctlError(fd_, DRM_IOCTL_VDLA_SUBMIT, &a);
	}

	void syncobjs()
	{
		uint32_t handles[4] = { small(), small(), small(), small() };
		uint64_t points[4] = { 0, 1, 2, rng_() };
		switch (rng_() % 5) {
		case 0: {
			drm_syncobj_create a = {};
			a.flags = rng_() % 2;
			ioctlError(fd_, DRM_IOCTL_SYNCOBJ_CREATE, &a);
			break;
		}
		case 1: {
			drm_syncobj_destroy a = {};
			a.handle = small();
			ioctlError(fd_, DRM_IOCTL_SYNCOBJ_DESTROY, &a);
			break;
		}
		case 2: {
			drm_syncobj_wait a = {};
			a.count_handles = rng_() % 2 ? 1 + rng_() % 4 : any32();
			a.handles = pointer(handles, 4, a.count_handles);
			a.timeout_nsec = 0;
			a.flags = rng_() % 8;
			ioctlError(fd_, DRM_IOCTL_SYNCOBJ_WAIT, &a);
			break;
		}
		case 3: {
			drm_syncobj_array a = {};
			a.count_handles = rng_() % 2 ? 1 + rng_() % 4 : any32();
			a.handles = pointer(handles, 4, a.count_handles);
			ioctlError(fd_, rng_() % 2 ? DRM_IOCTL_SYNCOBJ_RESET : DRM_IOCTL_SYNCOBJ_SIGNAL,
				   &a);
			break;
		}
		default: {
			drm_syncobj_timeline_array a = {};
			a.count_handles = rng_() % 2 ? 1 + rng_() % 4 : any32();
			a.handles = pointer(handles, 4, a.count_handles);
			a.points = pointer(points, 4, a.count_handles);
			a.flags = rng_() % 4 ? 0 : any32();
			ioctlError(fd_, rng_() % 2 ? DRM_IOCTL_SYNCOBJ_QUERY :
						     DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL,
				   &a);
			break;
		}
		}
	}

	/* Any DRM core ioctl number, with garbage of a random size. */
	void coreIoctl()
	{
		alignas(8) uint8_t buf[256];
		garbage(buf, sizeof(buf));
		unsigned nr = rng_() % 2 ? rng_() % 0x40 : 0xa0 + rng_() % 0x30;
		unsigned size = unsigned(rng_() % 129) & ~7u;
		unsigned dir = rng_() % 4;
		unsigned long request = (unsigned long)dir << 30 | (unsigned long)size << 16 |
					(unsigned long)'d' << 8 | nr;
		ioctlError(fd_, request, buf);
	}

	int fd_;
	std::mt19937_64 rng_;
	std::vector<int> dmabufs_;
};

TEST_F(Fuzz, RandomIoctlsFromThreadsAndProcessesLeaveNothingBehind)
{
	const int index = node_.index();
	/* Partitions to lease, taken away again once everything is closed. */
	SramPartitions partitions(index, "a:16K,b:16K");
	ASSERT_EQ(partitions.error(), 0);
	TimeShares shares(index, "s:30,t:30");
	ASSERT_EQ(shares.error(), 0);
	auto baseline = objectCounts(index);
	long calls = 0;
	{
		Node node(paths_.front());
		ASSERT_TRUE(node.valid());
		/* Real jobs in flight while the fuzzers run. */
		Ctx ctx(node.fd());
		std::vector<std::unique_ptr<SmallJob>> jobs;
		std::vector<Syncobj> done;
		Rng rng(301);
		for (int i = 0; i < 8; i++) {
			jobs.push_back(std::make_unique<SmallJob>(node.fd()));
			jobs.back()->prepare(rng, WorkKind(1 + i % 4));
			done.emplace_back(node.fd());
			ASSERT_EQ(submit(node.fd(), jobs.back()->submission(ctx.id(), done.back().sync())),
				  0);
		}

		auto end = Clock::now() + std::chrono::seconds(6);
		/* Processes: two killed at a random moment, one without privileges. */
		std::vector<pid_t> children;
		for (int p = 0; p < 3; p++) {
			children.push_back(forkChild([&, p] {
				Node own(paths_.front());
				if (!own.valid())
					return 1;
				if (p == 2 && (setresgid(65534, 65534, 65534) ||
					       setresuid(65534, 65534, 65534)))
					return 2;
				Fuzzer fuzzer(p == 1 ? node.fd() : own.fd(), 1000 + p);
				fuzzer.run(end);
				return 0;
			}));
		}
		std::atomic<long> total{ 0 };
		std::vector<std::thread> threads;
		for (int t = 0; t < 3; t++)
			threads.emplace_back([&, t] { total += Fuzzer(node.fd(), 2000 + t).run(end); });
		std::this_thread::sleep_for(std::chrono::milliseconds(1500));
		::kill(children[0], SIGKILL);
		std::this_thread::sleep_for(std::chrono::milliseconds(1500));
		::kill(children[1], SIGKILL);
		for (auto &thread : threads)
			thread.join();
		EXPECT_EQ(waitChild(children[2], 30000), 0) << "the unprivileged fuzzer";
		for (int i = 0; i < 2; i++)
			waitChild(children[i], 30000);
		calls = total;
		/* The jobs end, successfully or cancelled by the fuzzers' ctx destroys. */
		for (auto &d : done)
			d.wait(10000);
		jobs.clear();
	}
	EXPECT_GT(calls, 1000);
	std::printf("[ FUZZ     ] %ld ioctls from 3 threads (and 3 processes)\n", calls);
	EXPECT_TRUE(countsReturnTo(index, baseline, 20000));

	/* A known-good job still computes the right result. */
	Ctx ctx(fd());
	SmallJob job(fd());
	Rng rng(302);
	job.prepare(rng, WorkKind::ConvSdp);
	EXPECT_TRUE(runJob(job, ctx.id()));
}

} /* namespace */
} /* namespace guest */
