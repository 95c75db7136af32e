/* SPDX-License-Identifier: MIT */
/*
 * SRAM BOs (DRM_VDLA_BO_CREATE_SRAM, driver 1.4): a block of the device
 * SRAM named by a handle like any BO. QUERY MEMORY reports the SRAM the
 * hardware has (its SRAM_SIZE register) and what is free; a new SRAM BO is
 * zero-filled even where another BO's data was; jobs move data through it
 * and implicit fences order them; it has no CPU mapping, no dma-buf, cannot
 * be a descriptor or a statistics entry; its SRAM returns only when its
 * handle is closed and the last job using it has ended, and a request
 * waits for ended jobs to be freed; a request larger than any free block
 * fails with ENOSPC and changes nothing.
 */
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "submit_test.h"

namespace guest {
namespace {

drm_vdla_query_memory queryMemory(int fd, int *error = nullptr)
{
	drm_vdla_query_memory info = {};
	drm_vdla_query q = {};
	q.query = DRM_VDLA_QUERY_MEMORY;
	q.size = sizeof(info);
	q.data = reinterpret_cast<uintptr_t>(&info);
	int ret = ioctlError(fd, DRM_IOCTL_VDLA_QUERY, &q);
	if (error)
		*error = ret;
	return info;
}

/* The SRAM_SIZE register, from the debugfs register dump; 0 if unreadable. */
uint64_t sramSizeRegister(int index)
{
	std::string text;
	if (readFile(debugfsPath(index, "registers"), &text))
		return 0;
	std::istringstream lines(text);
	std::string line;
	while (std::getline(lines, line)) {
		if (line.rfind("SRAM_SIZE", 0) == 0)
			return std::strtoull(line.substr(line.rfind(':') + 1).c_str(), nullptr, 16);
	}
	return 0;
}

class Sram : public SubmitTest
{
protected:
	void SetUp() override
	{
		SubmitTest::SetUp();
		if (HasFatalFailure())
			return;
		int error = 0;
		/*
		 * The previous test's jobs drop their BOs only when the
		 * scheduler frees them, after their fences signal: wait for the
		 * SRAM to be idle (nothing else uses this device's SRAM now).
		 */
		waitUntil([&]() {
			drm_vdla_query_memory now = queryMemory(fd(), &error);
			return error || now.sram_free == now.sram_size;
		}, 5000);
		before_ = queryMemory(fd(), &error);
		ASSERT_EQ(error, 0);
		ASSERT_GT(before_.sram_size, 0u) << "the test machine's vDLA has SRAM";
		ctx_ = Ctx(fd());
		ASSERT_EQ(ctx_.error(), 0);
	}

	/* One job of one BDMA copy of @bytes from @src to @dst; the errno of its fence. */
	int copy(const Bo &src, uint64_t srcAt, const Bo &dst, uint64_t dstAt, uint32_t bytes)
	{
		HandJob job(fd(), ctx_.id());
		uint16_t s = job.add(src), d = job.add(dst, DRM_VDLA_ADDRESS_FLAG_WRITE);
		job.task.copy(s, srcAt, d, dstAt, bytes);
		int ret = job.submit();
		if (ret)
			return ret;
		return fenceSucceeds(job.done) ? 0 : EIO;
	}

	drm_vdla_query_memory before_;
	Ctx ctx_;
};

TEST_F(Sram, QueryReportsTheHardwareSram)
{
	drm_vdla_query q = {};
	q.query = DRM_VDLA_QUERY_MEMORY;
	ASSERT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_QUERY, &q), 0);
	EXPECT_EQ(q.size, sizeof(drm_vdla_query_memory)) << "size 0 asks for the size";
	/* An older, shorter structure gets the prefix it knows (driver 1.6). */
	q.size = sizeof(drm_vdla_query_memory) - 8;
	drm_vdla_query_memory small;
	std::memset(&small, 0xa5, sizeof(small));
	q.data = reinterpret_cast<uintptr_t>(&small);
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_QUERY, &q), 0);
	EXPECT_EQ(q.size, sizeof(drm_vdla_query_memory));
	EXPECT_EQ(small.sram_base, DRM_VDLA_SRAM_BASE);
	const uint8_t *tail = reinterpret_cast<const uint8_t *>(&small) + sizeof(small) - 8;
	for (int i = 0; i < 8; i++)
		EXPECT_EQ(tail[i], 0xa5) << "byte " << i << " past the prefix";

	EXPECT_EQ(before_.sram_base, DRM_VDLA_SRAM_BASE);
	EXPECT_EQ(before_.sram_size, sramSizeRegister(node_.index()));
	EXPECT_LE(before_.sram_free, before_.sram_size);
	EXPECT_LE(before_.sram_largest_free, before_.sram_free);
	EXPECT_EQ(readState(node_.index())["sram_used"],
		long(before_.sram_size - before_.sram_free));
}

TEST_F(Sram, CreateGivesASramAddressAndNoCpuMapping)
{
	Bo bo(fd(), 5000, DRM_VDLA_BO_CREATE_SRAM);
	ASSERT_EQ(bo.error(), 0);
	EXPECT_EQ(bo.size(), 8192u) << "rounded up to pages";
	EXPECT_GE(bo.address(), before_.sram_base);
	EXPECT_LE(bo.address() + bo.size(), before_.sram_base + before_.sram_size);
	EXPECT_EQ(bo.mmapOffset(), 0u);

	drm_vdla_query_memory after = queryMemory(fd());
	EXPECT_EQ(after.sram_free, before_.sram_free - 8192);

	drm_vdla_bo_info info;
	ASSERT_EQ(boInfo(fd(), bo.handle(), &info), 0);
	EXPECT_EQ(info.device_address, bo.address());
	EXPECT_EQ(info.size, 8192u);
	EXPECT_EQ(info.mmap_offset, 0u);
	EXPECT_EQ(info.access, DRM_VDLA_BO_ACCESS_READ | DRM_VDLA_BO_ACCESS_WRITE);

	void *p = ::mmap(nullptr, 8192, PROT_READ, MAP_SHARED, fd(), 0);
	EXPECT_EQ(p, MAP_FAILED) << "an SRAM BO has no CPU mapping";
	if (p != MAP_FAILED)
		::munmap(p, 8192);
	EXPECT_EQ(bo.exportFd(), -EOPNOTSUPP);
	EXPECT_EQ(bo.wait(0), 0) << "no job uses it";

	/* The address is the same for another file. */
	Node other(node_.path());
	ASSERT_TRUE(other.valid());
	Bo second(other.fd(), 4096, DRM_VDLA_BO_CREATE_SRAM);
	ASSERT_EQ(second.error(), 0);
	EXPECT_TRUE(second.address() + second.size() <= bo.address()
		|| second.address() >= bo.address() + bo.size())
		<< "two SRAM BOs overlap";
}

TEST_F(Sram, BadRequestsChangeNothing)
{
	EXPECT_EQ(Bo(fd(), 4096, 1u << 1).error(), EINVAL) << "an unknown flag";
	EXPECT_EQ(Bo(fd(), 0, DRM_VDLA_BO_CREATE_SRAM).error(), EINVAL);
	EXPECT_EQ(Bo(fd(), before_.sram_size + 4096, DRM_VDLA_BO_CREATE_SRAM).error(), ENOSPC);
	EXPECT_EQ(Bo(fd(), DRM_VDLA_BO_MAX_SIZE + 1, DRM_VDLA_BO_CREATE_SRAM).error(), EINVAL);
	drm_vdla_query_memory after = queryMemory(fd());
	EXPECT_EQ(after.sram_free, before_.sram_free);
	EXPECT_EQ(after.sram_largest_free, before_.sram_largest_free);
}

TEST_F(Sram, FullSramRefusesAndClosingGivesItBack)
{
	ASSERT_EQ(before_.sram_free, before_.sram_largest_free)
		<< "another process holds SRAM; this test needs all of it";
	Bo all(fd(), before_.sram_free, DRM_VDLA_BO_CREATE_SRAM);
	ASSERT_EQ(all.error(), 0);
	drm_vdla_query_memory full = queryMemory(fd());
	EXPECT_EQ(full.sram_free, 0u);
	EXPECT_EQ(full.sram_largest_free, 0u);
	EXPECT_EQ(Bo(fd(), 4096, DRM_VDLA_BO_CREATE_SRAM).error(), ENOSPC);
	EXPECT_EQ(Bo(fd(), 4096).error(), 0) << "memory BOs do not use SRAM";

	all = Bo();
	drm_vdla_query_memory after = queryMemory(fd());
	EXPECT_EQ(after.sram_free, before_.sram_free);
	EXPECT_EQ(Bo(fd(), before_.sram_free, DRM_VDLA_BO_CREATE_SRAM).error(), 0);
}

TEST_F(Sram, DataGoesThroughSramAndANewBoIsZero)
{
	const uint32_t bytes = 3 * 4096 + 100;
	Bo in(fd(), bytes), out(fd(), bytes), back(fd(), bytes);
	ASSERT_EQ(in.error(), 0);
	ASSERT_NE(in.map(), nullptr);
	ASSERT_NE(out.map(), nullptr);
	ASSERT_NE(back.map(), nullptr);
	for (uint32_t i = 0; i < bytes; i++)
		in.map()[i] = uint8_t(i * 7 + 3);
	out.fill(kCanary);

	{
		Bo sram(fd(), bytes, DRM_VDLA_BO_CREATE_SRAM);
		ASSERT_EQ(sram.error(), 0);
		/* Two jobs: the second reads what the first wrote, ordered by
		 * the implicit fence of the SRAM BO alone. */
		HandJob write(fd(), ctx_.id()), read(fd(), ctx_.id());
		write.task.copy(write.add(in), 0,
			write.add(sram, DRM_VDLA_ADDRESS_FLAG_WRITE), 100, bytes - 100);
		read.task.copy(read.add(sram), 100,
			read.add(out, DRM_VDLA_ADDRESS_FLAG_WRITE), 0, bytes - 100);
		ASSERT_EQ(write.submit(), 0);
		ASSERT_EQ(read.submit(), 0);
		ASSERT_TRUE(fenceSucceeds(read.done));
		ASSERT_TRUE(fenceSucceeds(write.done));
		EXPECT_TRUE(sameBytes(in.map(), out.map(), bytes - 100, "through SRAM"));
	}

	/* Best fit gives the freed block again: it must not show the old data. */
	Bo fresh(fd(), bytes, DRM_VDLA_BO_CREATE_SRAM);
	ASSERT_EQ(fresh.error(), 0);
	back.fill(kCanary);
	ASSERT_EQ(copy(fresh, 0, back, 0, uint32_t(fresh.size())), 0);
	std::vector<uint8_t> zeros(fresh.size(), 0);
	EXPECT_TRUE(sameBytes(zeros.data(), back.map(), zeros.size(), "a new SRAM BO"));
}

TEST_F(Sram, SramOfAnotherProcessIsNeverSeen)
{
	const uint32_t bytes = 8192;
	Bo secret(fd(), bytes);
	ASSERT_NE(secret.map(), nullptr);
	secret.fill(0x5a);
	Bo sram(fd(), bytes, DRM_VDLA_BO_CREATE_SRAM);
	ASSERT_EQ(sram.error(), 0);
	ASSERT_EQ(copy(secret, 0, sram, 0, bytes), 0);
	sram = Bo();

	/* Another process gets SRAM, likely the same block: it reads zeros. */
	const std::string path = node_.path();
	pid_t child = forkChild([path, bytes]() {
		Node node(path);
		if (!node.valid())
			return 1;
		Ctx ctx(node.fd());
		Bo sram(node.fd(), bytes, DRM_VDLA_BO_CREATE_SRAM), out(node.fd(), bytes);
		if (sram.error() || out.error() || !out.map() || ctx.error())
			return 2;
		out.fill(kCanary);
		HandJob job(node.fd(), ctx.id());
		job.task.copy(job.add(sram), 0, job.add(out, DRM_VDLA_ADDRESS_FLAG_WRITE), 0, bytes);
		if (job.submit() || job.done.wait(kJobTimeoutMs))
			return 3;
		for (uint32_t i = 0; i < bytes; i++) {
			if (out.map()[i] != 0)
				return 4;
		}
		return 0;
	});
	EXPECT_EQ(waitChild(child), 0) << "1 open, 2 create, 3 job, 4 old data seen";
}

TEST_F(Sram, SramStaysUntilTheLastJobEnds)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 1, 300000), 0);
	Bo in(fd(), 4096);
	ASSERT_EQ(in.error(), 0);
	Bo sram(fd(), 4096, DRM_VDLA_BO_CREATE_SRAM);
	ASSERT_EQ(sram.error(), 0);
	HandJob job(fd(), ctx_.id());
	job.task.copy(job.add(in), 0, job.add(sram, DRM_VDLA_ADDRESS_FLAG_WRITE), 0, 4096);
	ASSERT_EQ(job.submit(), 0);
	EXPECT_EQ(sram.wait(0), ETIMEDOUT) << "the job still uses it";

	ASSERT_EQ(sram.closeHandle(), 0);
	EXPECT_EQ(queryMemory(fd()).sram_free, before_.sram_free - 4096)
		<< "freed while a job may still write it";
	EXPECT_TRUE(fenceSucceeds(job.done));
	EXPECT_TRUE(waitUntil(
		[&]() { return queryMemory(fd()).sram_free == before_.sram_free; }, 5000))
		<< "the SRAM never came back";
}

/*
 * A job keeps its SRAM BOs until the scheduler frees it, shortly after its
 * fence signals; the driver waits for that before it refuses SRAM, so a
 * process that waited for its job and closed the BO can take all the SRAM
 * again at once, round after round.
 */
TEST_F(Sram, SramOfEndedJobsIsGivenBackOnDemand)
{
	ASSERT_EQ(before_.sram_free, before_.sram_largest_free)
		<< "another process holds SRAM; this test needs all of it";
	Bo in(fd(), 4096);
	ASSERT_EQ(in.error(), 0);
	for (int round = 0; round < 30; round++) {
		Bo all(fd(), before_.sram_free, DRM_VDLA_BO_CREATE_SRAM);
		if (all.error()) {
			std::string state;
			readFile(debugfsPath(node_.index(), "state"), &state);
			drm_vdla_query_memory now = queryMemory(fd());
			FAIL() << "round " << round << ": " << std::strerror(all.error())
			       << "; SRAM free " << now.sram_free << " largest "
			       << now.sram_largest_free << " of " << before_.sram_free
			       << "; driver state:\n" << state;
		}
		ASSERT_EQ(copy(in, 0, all, 0, 4096), 0);
		all = Bo();
	}
}

TEST_F(Sram, NotADescriptorNorStatistics)
{
	Bo in(fd(), 4096), out(fd(), 4096);
	Bo sram(fd(), 65536, DRM_VDLA_BO_CREATE_SRAM);
	ASSERT_EQ(sram.error(), 0);
	HandJob job(fd(), ctx_.id());
	job.task.copy(job.add(in), 0, job.add(out, DRM_VDLA_ADDRESS_FLAG_WRITE), 0, 64);
	ASSERT_EQ(job.finish(), 0);

	Submission s = job.submission;
	s.addresses[0] = sram.entry();
	EXPECT_EQ(submit(fd(), s), EINVAL) << "the descriptor in SRAM";
	s = job.submission;
	const uint16_t stats = uint16_t(s.addresses.size());
	s.addresses.push_back(sram.entry(DRM_VDLA_ADDRESS_FLAG_WRITE));
	s.flags = DRM_VDLA_SUBMIT_OP_STATS;
	s.opStats = stats;
	EXPECT_EQ(submit(fd(), s), EINVAL) << "statistics in SRAM";
	EXPECT_EQ(ctx_.query().jobs_submitted, 0u) << "a refused SUBMIT queued a job";
	EXPECT_EQ(job.submit(), 0);
	EXPECT_TRUE(fenceSucceeds(job.done));
}

} /* namespace */
} /* namespace guest */
