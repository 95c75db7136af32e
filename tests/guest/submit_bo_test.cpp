/* SPDX-License-Identifier: MIT */
/*
 * Buffer objects: BO_CREATE, BO_INFO, BO_WAIT, BO_IMPORT, mmap and PRIME
 * sharing between files and devices, each with its failure paths.
 */
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <set>
#include <thread>

#include "submit_test.h"
#include "vdla_regs.h"

namespace guest {
namespace {

constexpr uint64_t kPage = 4096;

uint64_t roundUp(uint64_t v, uint64_t to)
{
	return (v + to - 1) / to * to;
}

/* A job in @fd copying @bytes from @src to @dst (entries 1 and 2). */
struct CopyJob {
	Bo desc;
	Submission submission;
	Syncobj done;

	CopyJob(int fd, uint32_t ctx, const Bo &src, const Bo &dst, uint32_t bytes,
		uint32_t dstFlags = DRM_VDLA_ADDRESS_FLAG_WRITE)
		: desc(fd, kPage), done(fd)
	{
		TaskWriter task;
		task.copy(1, 0, 2, 0, bytes);
		if (desc.map())
			task.write(desc.map(), desc.size());
		submission.ctx = ctx;
		submission.addresses = { desc.entry(), src.entry(), dst.entry(dstFlags) };
		submission.outSync = done.sync();
	}
};

using BoIoctl = SubmitTest;

/*
 * GEM_CLOSE of the handle numbers BO_CREATE, BO_IMPORT and BO_INFO are
 * about to use, from another thread. A handle closed before its first
 * mapping was made left that mapping holding a reference for it forever:
 * the BO and the address space outlived the file (debugfs bos and mappings
 * never came back; rmmod then warned). After the file is closed everything
 * must be released.
 */
TEST_F(BoIoctl, CloseRacingFirstUseOfPredictedHandlesLeaksNothing)
{
	const int index = node_.index();
	auto baseline = objectCounts(index);
	{
		Node racer(paths_.front());
		ASSERT_TRUE(racer.valid());
		Bo shared(fd(), 4096);
		ASSERT_EQ(shared.error(), 0);
		int dmabuf = shared.exportFd();
		ASSERT_GE(dmabuf, 0);
		std::atomic<bool> stop{ false };
		std::atomic<long> closed{ 0 };
		std::thread closer([&] {
			while (!stop) {
				for (uint32_t handle = 1; handle <= 8; handle++) {
					drm_gem_close args = {};
					args.handle = handle;
					if (ioctlError(racer.fd(), DRM_IOCTL_GEM_CLOSE, &args) == 0)
						closed++;
				}
			}
		});
		long made = 0;
		auto end = std::chrono::steady_clock::now() + std::chrono::seconds(3);
		for (unsigned i = 0; std::chrono::steady_clock::now() < end; i++) {
			if (i % 2) {
				drm_vdla_bo_create create = {};
				create.size = 4096;
				made += ioctlError(racer.fd(), DRM_IOCTL_VDLA_BO_CREATE, &create) == 0;
			} else {
				drm_vdla_bo_import import = {};
				import.fd = dmabuf;
				made += ioctlError(racer.fd(), DRM_IOCTL_VDLA_BO_IMPORT, &import) == 0;
			}
			drm_vdla_bo_info info = {};
			info.handle = 1 + i % 8;
			ioctlError(racer.fd(), DRM_IOCTL_VDLA_BO_INFO, &info);
		}
		stop = true;
		closer.join();
		::close(dmabuf);
		EXPECT_GT(made, 100);
		EXPECT_GT(closed.load(), 0) << "the race never happened";
	}
	EXPECT_TRUE(countsReturnTo(index, baseline, 5000)) << "after closing";
}

TEST_F(BoIoctl, CreateRoundsUpToPagesAndZeroFills)
{
	for (uint64_t size :
		std::vector<uint64_t>{ 1, 100, 4095, 4096, 4097, 3 * kPage + 1, 1 << 20 }) {
		Bo bo(fd(), size);
		ASSERT_EQ(bo.error(), 0) << size;
		EXPECT_NE(bo.handle(), 0u);
		EXPECT_EQ(bo.size(), roundUp(size, kPage)) << size;
		EXPECT_EQ(bo.address() % kPage, 0u) << std::hex << bo.address();
		EXPECT_LE(bo.address() + bo.size(), 1ull << VDLA_VA_BITS)
			<< std::hex << bo.address();
		EXPECT_EQ(bo.mmapOffset() % kPage, 0u);
		uint8_t *p = bo.map();
		ASSERT_NE(p, nullptr) << std::strerror(errno);
		EXPECT_EQ(std::count(p, p + bo.size(), 0), ptrdiff_t(bo.size()))
			<< "not zero-filled";
	}
}

TEST_F(BoIoctl, CreateRejectsBadSizesAndFlags)
{
	for (uint64_t size : std::vector<uint64_t>{
		     0, DRM_VDLA_BO_MAX_SIZE + 1, 1ull << 40, ~0ull, ~0ull - kPage + 2 }) {
		drm_vdla_bo_create args = {};
		args.size = size;
		EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_BO_CREATE, &args), EINVAL) << size;
	}
	/* DRM_VDLA_BO_CREATE_SRAM (bit 0) is the only flag. */
	for (uint32_t flags : { 2u, DRM_VDLA_BO_CREATE_SRAM | 4u, 1u << 31 }) {
		drm_vdla_bo_create args = {};
		args.size = kPage;
		args.flags = flags;
		EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_BO_CREATE, &args), EINVAL) << flags;
	}
	EXPECT_EQ(
		ioctlError(fd(), DRM_IOCTL_VDLA_BO_CREATE, reinterpret_cast<void *>(0x10)), EFAULT);
}

TEST_F(BoIoctl, DeviceAddressesAreDistinctAndDoNotOverlap)
{
	Rng rng(11);
	std::vector<Bo> bos;
	for (int i = 0; i < 40; i++) {
		bos.emplace_back(fd(), uint64_t(rng.uniform(1, 96 * 1024)));
		ASSERT_EQ(bos.back().error(), 0);
		/* Closing some makes room the driver may reuse: still no overlap. */
		if (i % 5 == 4)
			bos.erase(bos.begin() + rng.uniform(0, int64_t(bos.size()) - 1));
	}
	std::vector<std::pair<uint64_t, uint64_t>> ranges;
	for (const auto &bo : bos)
		ranges.emplace_back(bo.address(), bo.address() + bo.size());
	std::sort(ranges.begin(), ranges.end());
	for (size_t i = 1; i < ranges.size(); i++)
		EXPECT_LE(ranges[i - 1].second, ranges[i].first)
			<< std::hex << "[" << ranges[i - 1].first << ", " << ranges[i - 1].second
			<< ") overlaps [" << ranges[i].first << ", " << ranges[i].second << ")";
	std::set<uint32_t> handles;
	for (const auto &bo : bos)
		handles.insert(bo.handle());
	EXPECT_EQ(handles.size(), bos.size());
}

TEST_F(BoIoctl, MappingsShareTheBosMemory)
{
	Bo bo(fd(), 3 * kPage);
	ASSERT_EQ(bo.error(), 0);
	auto *a = static_cast<uint8_t *>(::mmap(nullptr, bo.size(), PROT_READ | PROT_WRITE,
		MAP_SHARED, fd(), off_t(bo.mmapOffset())));
	ASSERT_NE(a, MAP_FAILED) << std::strerror(errno);
	for (size_t i = 0; i < bo.size(); i++)
		a[i] = uint8_t(i * 13 + 1);
	ASSERT_EQ(::munmap(a, bo.size()), 0);

	auto *b = static_cast<uint8_t *>(::mmap(nullptr, bo.size(), PROT_READ | PROT_WRITE,
		MAP_SHARED, fd(), off_t(bo.mmapOffset())));
	ASSERT_NE(b, MAP_FAILED) << std::strerror(errno);
	uint8_t *c = bo.map();
	ASSERT_NE(c, nullptr);
	for (size_t i = 0; i < bo.size(); i++)
		ASSERT_EQ(b[i], uint8_t(i * 13 + 1)) << i;
	c[5] = 0x77;
	EXPECT_EQ(b[5], 0x77);
	::munmap(b, bo.size());
}

TEST_F(BoIoctl, MmapNeedsAHandleInTheMappingFile)
{
	Bo bo(fd(), kPage);
	ASSERT_EQ(bo.error(), 0);
	Node other(paths_.front());
	ASSERT_TRUE(other.valid());
	void *p = ::mmap(nullptr, kPage, PROT_READ, MAP_SHARED, other.fd(), off_t(bo.mmapOffset()));
	EXPECT_EQ(p, MAP_FAILED);
	EXPECT_EQ(errno, EACCES);
	if (p != MAP_FAILED)
		::munmap(p, kPage);
	/* An offset no BO has. */
	p = ::mmap(
		nullptr, kPage, PROT_READ, MAP_SHARED, fd(), off_t(bo.mmapOffset() + (1ull << 36)));
	EXPECT_EQ(p, MAP_FAILED);
	if (p != MAP_FAILED)
		::munmap(p, kPage);
}

TEST_F(BoIoctl, InfoDescribesTheBo)
{
	Bo bo(fd(), 5000);
	ASSERT_EQ(bo.error(), 0);
	drm_vdla_bo_info info;
	ASSERT_EQ(boInfo(fd(), bo.handle(), &info), 0);
	EXPECT_EQ(info.size, bo.size());
	EXPECT_EQ(info.device_address, bo.address());
	EXPECT_EQ(info.mmap_offset, bo.mmapOffset());
	EXPECT_EQ(info.access, DRM_VDLA_BO_ACCESS_READ | DRM_VDLA_BO_ACCESS_WRITE);
	EXPECT_EQ(info.imported, 0u);
}

TEST_F(BoIoctl, InfoRejectsBadHandlesAndFlags)
{
	Bo bo(fd(), kPage);
	ASSERT_EQ(bo.error(), 0);
	drm_vdla_bo_info info;
	EXPECT_EQ(boInfo(fd(), 0, &info), ENOENT);
	EXPECT_EQ(boInfo(fd(), 0xdeadbeef, &info), ENOENT);

	for (uint32_t flags : { 1u, 1u << 31 }) {
		info = {};
		info.handle = bo.handle();
		info.flags = flags;
		EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_BO_INFO, &info), EINVAL) << flags;
	}

	/* A file without BOs knows none of this file's handles. */
	Node other(paths_.front());
	ASSERT_TRUE(other.valid());
	EXPECT_EQ(boInfo(other.fd(), bo.handle(), &info), ENOENT);

	uint32_t stale = bo.handle();
	ASSERT_EQ(bo.closeHandle(), 0);
	EXPECT_EQ(boInfo(fd(), stale, &info), ENOENT);
}

TEST_F(BoIoctl, WaitOnAnIdleBoReturnsAtOnce)
{
	Bo bo(fd(), kPage);
	ASSERT_EQ(bo.error(), 0);
	EXPECT_EQ(bo.wait(0), 0);
	EXPECT_EQ(bo.wait(0, DRM_VDLA_BO_WAIT_FLAG_WRITERS), 0);
	int64_t start = monotonicNs();
	EXPECT_EQ(bo.wait(5000000000ll), 0);
	EXPECT_LT(monotonicNs() - start, 1000000000ll);
}

TEST_F(BoIoctl, WaitRejectsBadArguments)
{
	Bo bo(fd(), kPage);
	ASSERT_EQ(bo.error(), 0);
	EXPECT_EQ(bo.wait(0, 2), EINVAL);
	EXPECT_EQ(bo.wait(0, 1u << 31), EINVAL);
	EXPECT_EQ(bo.wait(-1), EINVAL);
	EXPECT_EQ(bo.wait(INT64_MIN), EINVAL);
	EXPECT_EQ(boWait(fd(), 0, 0), ENOENT);
	EXPECT_EQ(boWait(fd(), 0xdeadbeef, 0), ENOENT);
	uint32_t stale = bo.handle();
	ASSERT_EQ(bo.closeHandle(), 0);
	EXPECT_EQ(boWait(fd(), stale, 0), ENOENT);
}

TEST_F(BoIoctl, WaitTimesOutOnABusyBoAndSucceedsOnceItsJobEnds)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 400000), 0);
	Ctx ctx(fd());
	ASSERT_EQ(ctx.error(), 0);
	SmallJob job(fd());
	ASSERT_EQ(job.error(), 0);
	Rng rng(3);
	job.prepare(rng, WorkKind::Copy);
	Syncobj done(fd());
	ASSERT_EQ(submit(fd(), job.submission(ctx.id(), done.sync())), 0);

	Bo &out = job.bo(SmallJob::kOut), &in = job.bo(SmallJob::kIn);
	EXPECT_EQ(out.wait(0), ETIMEDOUT);
	int64_t start = monotonicNs();
	EXPECT_EQ(out.wait(20000000), ETIMEDOUT);
	EXPECT_GE(monotonicNs() - start, 20000000ll) << "BO_WAIT returned before its timeout";
	EXPECT_EQ(out.wait(0, DRM_VDLA_BO_WAIT_FLAG_WRITERS), ETIMEDOUT);
	/* The job only reads the input: writers are done, readers are not. */
	EXPECT_EQ(in.wait(0, DRM_VDLA_BO_WAIT_FLAG_WRITERS), 0);
	EXPECT_EQ(in.wait(0), ETIMEDOUT);
	EXPECT_FALSE(done.signalled()) << "the job ended before BO_WAIT was checked";

	EXPECT_EQ(out.wait(10000000000ll), 0);
	EXPECT_TRUE(done.signalled()) << "BO_WAIT returned before the job's fence signalled";
	EXPECT_EQ(in.wait(0), 0);
	EXPECT_TRUE(fenceSucceeds(done));
	EXPECT_TRUE(job.check());
}

TEST_F(BoIoctl, ClosingAHandleKeepsTheBoAliveForItsJob)
{
	FaultInjection fi(node_.index());
	ASSERT_EQ(fi.set("bdma", "delay", 0, 200000), 0);
	Ctx ctx(fd());
	SmallJob job(fd());
	ASSERT_EQ(job.error(), 0);
	Rng rng(4);
	job.prepare(rng, WorkKind::CopySdp);
	Syncobj done(fd());
	ASSERT_EQ(submit(fd(), job.submission(ctx.id(), done.sync())), 0);
	/* Every handle goes; the mapping of the output stays. */
	for (auto e : { SmallJob::kDesc, SmallJob::kIn, SmallJob::kTmp, SmallJob::kOut })
		ASSERT_EQ(job.bo(e).closeHandle(), 0);
	EXPECT_TRUE(fenceSucceeds(done));
	EXPECT_TRUE(job.check());
}

/* ---- PRIME and BO_IMPORT ----------------------------------------------- */

using BoSharing = SubmitTest;

TEST_F(BoSharing, PrimeImportInAnotherFileSharesTheMemory)
{
	Bo x(fd(), 2 * kPage);
	ASSERT_EQ(x.error(), 0);
	for (size_t i = 0; i < x.size(); i++)
		x.map()[i] = uint8_t(i * 7 + 3);
	int dmabuf = x.exportFd();
	ASSERT_GE(dmabuf, 0) << std::strerror(-dmabuf);

	Node other(paths_.front());
	ASSERT_TRUE(other.valid());
	Bo y = Bo::import(other.fd(), dmabuf);
	::close(dmabuf);
	ASSERT_EQ(y.error(), 0) << std::strerror(y.error());
	EXPECT_EQ(y.size(), x.size());
	EXPECT_EQ(y.access(), DRM_VDLA_BO_ACCESS_READ | DRM_VDLA_BO_ACCESS_WRITE);
	EXPECT_EQ(y.imported(), 0u) << "a BO of the same device is not a foreign import";
	EXPECT_EQ(y.address() % kPage, 0u);
	ASSERT_NE(y.map(), nullptr);
	EXPECT_EQ(std::memcmp(y.map(), x.map(), x.size()), 0);
	y.map()[100] = 0x42;
	EXPECT_EQ(x.map()[100], 0x42);

	/* A job of the other file reads it at the address it has there. */
	Ctx ctx(other.fd());
	Bo out(other.fd(), 2 * kPage);
	ASSERT_EQ(out.error(), 0);
	CopyJob copy(other.fd(), ctx.id(), y, out, uint32_t(x.size()));
	ASSERT_EQ(submit(other.fd(), copy.submission), 0);
	EXPECT_TRUE(fenceSucceeds(copy.done));
	EXPECT_TRUE(sameBytes(x.map(), out.map(), x.size(), "copy of the shared BO"));

	/* The handle outlives the exporter's. */
	std::vector<uint8_t> before(x.map(), x.map() + x.size());
	x = Bo();
	CopyJob again(other.fd(), ctx.id(), y, out, uint32_t(before.size()));
	out.fill(0);
	ASSERT_EQ(submit(other.fd(), again.submission), 0);
	EXPECT_TRUE(fenceSucceeds(again.done));
	EXPECT_TRUE(sameBytes(
		before.data(), out.map(), before.size(), "copy after the exporter closed"));
}

TEST_F(BoSharing, ImportIntoAnotherDevice)
{
	if (paths_.size() < 2)
		GTEST_SKIP() << "needs two vDLAs";
	Rng rng(5);
	Bo x(fd(), 3 * kPage), z(fd(), 3 * kPage);
	ASSERT_EQ(x.error(), 0);
	ASSERT_EQ(z.error(), 0);
	for (size_t i = 0; i < x.size(); i++)
		x.map()[i] = uint8_t(rng.uniform(0, 255));
	z.fill(kCanary);
	int xfd = x.exportFd(), zfd = z.exportFd();
	ASSERT_GE(xfd, 0);
	ASSERT_GE(zfd, 0);

	Node second(paths_[1]);
	ASSERT_TRUE(second.valid());
	Bo xs = Bo::import(second.fd(), xfd);
	Bo zs = Bo::importVdla(second.fd(), zfd, 0);
	::close(xfd);
	::close(zfd);
	ASSERT_EQ(xs.error(), 0) << std::strerror(xs.error());
	ASSERT_EQ(zs.error(), 0) << std::strerror(zs.error());
	EXPECT_EQ(xs.imported(), 1u);
	EXPECT_EQ(zs.imported(), 1u);
	EXPECT_EQ(xs.size(), x.size());
	EXPECT_EQ(zs.access(), DRM_VDLA_BO_ACCESS_READ | DRM_VDLA_BO_ACCESS_WRITE);

	/* The second device reads the first's BO and writes another. */
	Ctx ctx(second.fd());
	CopyJob copy(second.fd(), ctx.id(), xs, zs, uint32_t(x.size()));
	ASSERT_EQ(submit(second.fd(), copy.submission), 0);
	EXPECT_TRUE(fenceSucceeds(copy.done));
	EXPECT_EQ(z.wait(5000000000ll), 0);
	EXPECT_TRUE(sameBytes(x.map(), z.map(), x.size(), "copy made by the other device"));
}

/* PRIME export of @handle with @flags; the fd, or -errno. */
int primeExport(int fd, uint32_t handle, uint32_t flags)
{
	drm_prime_handle args = {};
	args.handle = handle;
	args.flags = flags;
	int ret = ioctlError(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &args);
	return ret ? -ret : args.fd;
}

/*
 * An export without DRM_RDWR is read-only for whoever imports it, by every
 * path: BO_IMPORT without READ_ONLY is refused, PRIME_FD_TO_HANDLE and the
 * BO's first use give read access only, SUBMIT may not flag it for
 * writing, the CPU may not map it for writing (nor mprotect it later), a
 * re-export cannot ask for DRM_RDWR and stays read-only. A read-write
 * export made first does not make later read-only ones writable (the core
 * hands out one dma-buf per object, whose mode the first export fixed).
 */
TEST_F(BoSharing, AReadOnlyExportGivesNoWriteAccessByAnyPath)
{
	Bo x(fd(), kPage);
	ASSERT_EQ(x.error(), 0);
	ASSERT_NE(x.map(), nullptr);
	std::memset(x.map(), 0x5a, kPage);
	int rw = primeExport(fd(), x.handle(), DRM_CLOEXEC | DRM_RDWR);
	ASSERT_GE(rw, 0);
	int ro = primeExport(fd(), x.handle(), DRM_CLOEXEC);
	ASSERT_GE(ro, 0);
	EXPECT_EQ(::fcntl(ro, F_GETFL) & O_ACCMODE, O_RDONLY);
	EXPECT_EQ(::fcntl(rw, F_GETFL) & O_ACCMODE, O_RDWR);
	/* The dma-buf itself cannot be mapped for writing. */
	EXPECT_EQ(::mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0), MAP_FAILED);

	Node other(paths_.front());
	ASSERT_TRUE(other.valid());
	drm_vdla_bo_import import = {};
	import.fd = ro;
	EXPECT_EQ(ioctlError(other.fd(), DRM_IOCTL_VDLA_BO_IMPORT, &import), EACCES);

	Bo prime = Bo::import(other.fd(), ro);
	ASSERT_EQ(prime.error(), 0) << std::strerror(prime.error());
	EXPECT_EQ(prime.access(), DRM_VDLA_BO_ACCESS_READ);
	void *writable = ::mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_SHARED, other.fd(),
				off_t(prime.mmapOffset()));
	EXPECT_EQ(writable, MAP_FAILED) << "a read-only import mapped for writing";
	void *readable = ::mmap(nullptr, kPage, PROT_READ, MAP_SHARED, other.fd(),
				off_t(prime.mmapOffset()));
	ASSERT_NE(readable, MAP_FAILED);
	EXPECT_EQ(static_cast<const uint8_t *>(readable)[100], 0x5a);
	EXPECT_NE(::mprotect(readable, kPage, PROT_READ | PROT_WRITE), 0);
	::munmap(readable, kPage);

	Ctx ctx(other.fd());
	SmallJob job(other.fd());
	Rng rng(31);
	job.prepare(rng, WorkKind::Copy);
	Submission s = job.submission(ctx.id());
	s.addresses[SmallJob::kOut] = prime.entry(DRM_VDLA_ADDRESS_FLAG_WRITE);
	EXPECT_EQ(submit(other.fd(), s), EACCES);

	EXPECT_EQ(primeExport(other.fd(), prime.handle(), DRM_CLOEXEC | DRM_RDWR), -EACCES);
	int again = primeExport(other.fd(), prime.handle(), DRM_CLOEXEC);
	ASSERT_GE(again, 0);
	Node third(paths_.front());
	import = {};
	import.fd = again;
	EXPECT_EQ(ioctlError(third.fd(), DRM_IOCTL_VDLA_BO_IMPORT, &import), EACCES);
	import.flags = DRM_VDLA_BO_IMPORT_FLAG_READ_ONLY;
	EXPECT_EQ(ioctlError(third.fd(), DRM_IOCTL_VDLA_BO_IMPORT, &import), 0);
	EXPECT_EQ(import.access, DRM_VDLA_BO_ACCESS_READ);

	/* The read-write export still gives write access. */
	Bo full = Bo::importVdla(third.fd(), rw, 0);
	EXPECT_EQ(full.error(), 0);
	EXPECT_EQ(full.access(), DRM_VDLA_BO_ACCESS_READ | DRM_VDLA_BO_ACCESS_WRITE);
	for (uint64_t i = 0; i < kPage; i++)
		ASSERT_EQ(x.map()[i], 0x5a) << "byte " << i;
	::close(again);
	::close(ro);
	::close(rw);
}

TEST_F(BoSharing, ReadOnlyImport)
{
	Bo x(fd(), kPage);
	ASSERT_EQ(x.error(), 0);
	int dmabuf = x.exportFd();
	ASSERT_GE(dmabuf, 0);
	Node other(paths_.front());
	ASSERT_TRUE(other.valid());
	Bo ro = Bo::importVdla(other.fd(), dmabuf, DRM_VDLA_BO_IMPORT_FLAG_READ_ONLY);
	ASSERT_EQ(ro.error(), 0) << std::strerror(ro.error());
	EXPECT_EQ(ro.access(), DRM_VDLA_BO_ACCESS_READ);
	EXPECT_EQ(ro.size(), x.size());
	drm_vdla_bo_info info;
	ASSERT_EQ(boInfo(other.fd(), ro.handle(), &info), 0);
	EXPECT_EQ(info.access, DRM_VDLA_BO_ACCESS_READ);
	EXPECT_EQ(info.device_address, ro.address());

	/* The same import again gives the same handle. */
	drm_vdla_bo_import again = {};
	again.fd = dmabuf;
	again.flags = DRM_VDLA_BO_IMPORT_FLAG_READ_ONLY;
	EXPECT_EQ(ioctlError(other.fd(), DRM_IOCTL_VDLA_BO_IMPORT, &again), 0);
	EXPECT_EQ(again.handle, ro.handle());
	/* ... but not with another access. */
	again = {};
	again.fd = dmabuf;
	EXPECT_EQ(ioctlError(other.fd(), DRM_IOCTL_VDLA_BO_IMPORT, &again), EBUSY);
	::close(dmabuf);

	/* A job may read it, and may not say it writes it. */
	Ctx ctx(other.fd());
	Bo out(other.fd(), kPage);
	CopyJob reads(other.fd(), ctx.id(), ro, out, 64);
	ASSERT_EQ(submit(other.fd(), reads.submission), 0);
	EXPECT_TRUE(fenceSucceeds(reads.done));
	CopyJob writes(other.fd(), ctx.id(), out, ro, 64);
	EXPECT_EQ(submit(other.fd(), writes.submission), EACCES);
	EXPECT_EQ(ctx.query().jobs_submitted, 1u) << "a refused SUBMIT counted as a job";
}

TEST_F(BoSharing, ImportRejectsBadArguments)
{
	Bo x(fd(), kPage);
	ASSERT_EQ(x.error(), 0);
	int dmabuf = x.exportFd();
	ASSERT_GE(dmabuf, 0);

	for (uint32_t flags : { 2u, 1u << 31 }) {
		drm_vdla_bo_import args = {};
		args.fd = dmabuf;
		args.flags = flags;
		EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_BO_IMPORT, &args), EINVAL) << flags;
	}

	int pipefd[2];
	ASSERT_EQ(::pipe(pipefd), 0);
	for (int notDmabuf : { -1, pipefd[0], fd(), 1000000 }) {
		drm_vdla_bo_import args = {};
		args.fd = notDmabuf;
		EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_BO_IMPORT, &args), EBADF) << notDmabuf;
	}
	::close(pipefd[0]);
	::close(pipefd[1]);

	/* The exporter holds it read-write: a read-only import is refused... */
	drm_vdla_bo_import args = {};
	args.fd = dmabuf;
	args.flags = DRM_VDLA_BO_IMPORT_FLAG_READ_ONLY;
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_BO_IMPORT, &args), EBUSY);
	/* ... a read-write one gives its own handle back. */
	args = {};
	args.fd = dmabuf;
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_BO_IMPORT, &args), 0);
	EXPECT_EQ(args.handle, x.handle());
	EXPECT_EQ(args.device_address, x.address());

	/* After a PRIME import (read-write), a read-only one is refused too. */
	Node other(paths_.front());
	ASSERT_TRUE(other.valid());
	Bo rw = Bo::import(other.fd(), dmabuf);
	ASSERT_EQ(rw.error(), 0);
	args = {};
	args.fd = dmabuf;
	args.flags = DRM_VDLA_BO_IMPORT_FLAG_READ_ONLY;
	EXPECT_EQ(ioctlError(other.fd(), DRM_IOCTL_VDLA_BO_IMPORT, &args), EBUSY);
	::close(dmabuf);
}

} /* namespace */
} /* namespace guest */
