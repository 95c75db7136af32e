/* SPDX-License-Identifier: MIT */
#include <vdla/buffer.h>
#include <vdla/lease.h>

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include <linux/dma-buf.h>
#include <xf86drm.h>

#include <drm/vdla_accel.h>

#include <vdla/device.h>

#include <vdla/unique_fd.h>

namespace vdla {

namespace {

void closeHandle(int fd, uint32_t handle)
{
	drm_gem_close close = {};
	close.handle = handle;
	drmIoctl(fd, DRM_IOCTL_GEM_CLOSE, &close);
}

/*
 * GEM handles of each open file that Buffers hold, with how many Buffers
 * hold each: importing a BO into a file that already has it returns the
 * same handle, which must be closed only once, with its last Buffer.
 *
 * An import and the release of the last reference to the handle it returns
 * must not interleave: if the handle were closed between the import ioctl
 * and the new reference being counted, the new Buffer would hold a closed
 * handle (or, once the number is reused, another BO's). So the import ioctl
 * runs with its count, and the last release with the GEM_CLOSE, under the
 * table's lock.
 */
class HandleTable
{
public:
	/* Counts a reference to a handle that no other thread can know yet. */
	void acquire(int fd, uint32_t handle)
	{
		std::lock_guard<std::mutex> lock(mutex_);
		refs_[{ fd, handle }]++;
	}

	/* DRM_IOCTL_VDLA_BO_IMPORT, counting the handle it returns; an errno. */
	int import(int fd, drm_vdla_bo_import *args)
	{
		std::lock_guard<std::mutex> lock(mutex_);
		if (drmIoctl(fd, DRM_IOCTL_VDLA_BO_IMPORT, args))
			return errno;
		refs_[{ fd, args->handle }]++;
		return 0;
	}

	/* Drops a reference, closing the handle with the last one. */
	void release(int fd, uint32_t handle)
	{
		std::lock_guard<std::mutex> lock(mutex_);
		auto it = refs_.find({ fd, handle });
		if (it != refs_.end() && --it->second > 0)
			return;
		if (it != refs_.end())
			refs_.erase(it);
		closeHandle(fd, handle);
	}

private:
	std::mutex mutex_;
	std::map<std::pair<int, uint32_t>, unsigned int> refs_;
};

HandleTable &handleTable()
{
	static HandleTable table;
	return table;
}

uint64_t dmaBufSyncFlags(Buffer::CpuAccess access)
{
	switch (access) {
	case Buffer::CpuAccess::Read:
		return DMA_BUF_SYNC_READ;
	case Buffer::CpuAccess::Write:
		return DMA_BUF_SYNC_WRITE;
	case Buffer::CpuAccess::ReadWrite:
		break;
	}
	return DMA_BUF_SYNC_RW;
}

Result<void> dmaBufSync(int dmabufFd, uint64_t flags, const char *what)
{
	dma_buf_sync sync = {};
	sync.flags = flags;
	if (drmIoctl(dmabufFd, DMA_BUF_IOCTL_SYNC, &sync))
		return Error(
			errno, std::string("dma-buf sync at ") + what + " of CPU access failed");
	return {};
}

} /* namespace */

class Buffer::Private
{
public:
	Device *device = nullptr;
	uint32_t handle = 0;
	uint64_t size = 0;
	uint64_t deviceAddress = 0;
	uint64_t mmapOffset = 0;
	Access access = Access::ReadWrite;
	bool imported = false;
	Placement placement = Placement::Memory;
	/* False for borrowed(): the handle is someone else's to close. */
	bool closesHandle = true;
	uint8_t *map = nullptr;
	/* The dma-buf the member begin/endCpuAccess sync on, once exported. */
	UniqueFd dmabuf;

	Result<int> cpuAccessDmaBuf(const Buffer &buffer);
};

Result<int> Buffer::Private::cpuAccessDmaBuf(const Buffer &buffer)
{
	if (dmabuf.isValid())
		return dmabuf.get();
	if (placement == Placement::Sram)
		return Error(EINVAL, "an SRAM buffer has no dma-buf to sync CPU access on");
	/* Any dma-buf of it will do to sync on: one with its own access (a
	 * read-only buffer has no read-write one), or the read-write one a
	 * read-write import of another device re-exports. */
	auto fd = buffer.exportFd(access);
	if (!fd && fd.error().code() == EOPNOTSUPP)
		fd = buffer.exportFd(Access::ReadWrite);
	if (!fd)
		return fd.error();
	dmabuf.reset(*fd);
	return dmabuf.get();
}

/* The handle of @d is counted in the handle table by create() or import(). */
Buffer::Buffer(std::unique_ptr<Private> d) : d_(std::move(d))
{
}

Buffer::~Buffer()
{
	unmap();
	if (d_->closesHandle)
		handleTable().release(d_->device->fd(), d_->handle);
}

std::unique_ptr<Buffer> Buffer::created(Device &device, const void *createArgs, Placement placement)
{
	const auto &args = *static_cast<const drm_vdla_bo_create *>(createArgs);
	handleTable().acquire(device.fd(), args.handle);

	auto d = std::make_unique<Private>();
	d->device = &device;
	d->handle = args.handle;
	d->size = args.size;
	d->deviceAddress = args.device_address;
	d->mmapOffset = args.mmap_offset;
	d->placement = placement;
	return std::unique_ptr<Buffer>(new Buffer(std::move(d)));
}

Result<std::unique_ptr<Buffer>> Buffer::create(Device &device, uint64_t size, Placement placement)
{
	drm_vdla_bo_create args = {};
	args.size = size;
	args.flags = placement == Placement::Sram ? DRM_VDLA_BO_CREATE_SRAM : 0;
	if (drmIoctl(device.fd(), DRM_IOCTL_VDLA_BO_CREATE, &args)) {
		int err = errno;
		if (placement == Placement::Memory)
			return Error(err,
				"cannot create a buffer of " + std::to_string(size) + " bytes");
		return Error(err,
			std::string("cannot create an SRAM buffer of ") + std::to_string(size)
				+ " bytes: "
				+ (err == ENOSPC		? "no free SRAM block that large"
						: err == ENODEV ? "the device has no SRAM"
								: strerror(err)));
	}
	return created(device, &args, placement);
}

Result<std::unique_ptr<Buffer>> Buffer::create(Device &device, uint64_t size, const Lease &lease)
{
	if (!device.info().driverVersion.atLeast(1, 10))
		return Error(EOPNOTSUPP, "driver " + device.info().driverVersion.toString()
						 + " has no SRAM partitions (1.10 has)");
	/* Lease ids are per file: another Device's would name one of this file's. */
	if (&lease.context().device() != &device)
		return Error(EINVAL, "the lease belongs to another Device");
	drm_vdla_bo_create args = {};
	args.size = size;
	args.flags = DRM_VDLA_BO_CREATE_SRAM;
	args.lease_id = lease.id();
	if (drmIoctl(device.fd(), DRM_IOCTL_VDLA_BO_CREATE, &args)) {
		int err = errno;
		return Error(err, "cannot create an SRAM buffer of " + std::to_string(size)
					  + " bytes under lease " + std::to_string(lease.id()) + ": "
					  + (err == ENOSPC      ? "the partition is full"
					     : err == ECANCELED ? "the lease does not hold its partition"
								: strerror(err)));
	}
	return created(device, &args, Placement::Sram);
}

Result<std::unique_ptr<Buffer>> Buffer::import(Device &device, int dmabufFd, Access access)
{
	drm_vdla_bo_import args = {};
	args.fd = dmabufFd;
	args.flags = access == Access::ReadOnly ? DRM_VDLA_BO_IMPORT_FLAG_READ_ONLY : 0;
	if (int err = handleTable().import(device.fd(), &args)) {
		return Error(err,
			err == EBUSY ? "cannot import the dma-buf: the device already "
				       "holds it with the other access"
				     : "cannot import the dma-buf");
	}

	drm_vdla_bo_info info = {};
	info.handle = args.handle;
	if (drmIoctl(device.fd(), DRM_IOCTL_VDLA_BO_INFO, &info)) {
		int err = errno;
		/* Only closes a handle no other Buffer holds. */
		handleTable().release(device.fd(), args.handle);
		return Error(err, "cannot describe the imported buffer");
	}

	auto d = std::make_unique<Private>();
	d->device = &device;
	d->handle = args.handle;
	d->size = info.size;
	d->deviceAddress = info.device_address;
	d->mmapOffset = info.mmap_offset;
	d->access = (args.access & DRM_VDLA_BO_ACCESS_WRITE) ? Access::ReadWrite : Access::ReadOnly;
	d->imported = info.imported != 0;
	return std::unique_ptr<Buffer>(new Buffer(std::move(d)));
}

Result<std::unique_ptr<Buffer>> Buffer::borrowed(Device &device, uint32_t handle)
{
	drm_vdla_bo_info info = {};
	info.handle = handle;
	if (drmIoctl(device.fd(), DRM_IOCTL_VDLA_BO_INFO, &info))
		return Error(errno, "cannot describe buffer handle " + std::to_string(handle));

	/* Not in the handle table, which would close the handle with its last Buffer. */
	auto d = std::make_unique<Private>();
	d->device = &device;
	d->handle = handle;
	d->size = info.size;
	d->deviceAddress = info.device_address;
	d->mmapOffset = info.mmap_offset;
	d->access = (info.access & DRM_VDLA_BO_ACCESS_WRITE) ? Access::ReadWrite : Access::ReadOnly;
	d->imported = info.imported != 0;
	d->closesHandle = false;
	return std::unique_ptr<Buffer>(new Buffer(std::move(d)));
}

Device &Buffer::device() const
{
	return *d_->device;
}

uint64_t Buffer::size() const
{
	return d_->size;
}

uint32_t Buffer::handle() const
{
	return d_->handle;
}

uint64_t Buffer::deviceAddress() const
{
	return d_->deviceAddress;
}

Buffer::Access Buffer::access() const
{
	return d_->access;
}

bool Buffer::imported() const
{
	return d_->imported;
}

Buffer::Placement Buffer::placement() const
{
	return d_->placement;
}

Result<uint8_t *> Buffer::map()
{
	if (d_->map)
		return d_->map;
	if (d_->placement == Placement::Sram)
		return Error(EINVAL, "an SRAM buffer has no CPU mapping");
	const int prot = d_->access == Access::ReadOnly ? PROT_READ : PROT_READ | PROT_WRITE;
	void *p = mmap(nullptr, d_->size, prot, MAP_SHARED, d_->device->fd(), d_->mmapOffset);
	if (p == MAP_FAILED)
		return Error(errno, "cannot map the buffer for the CPU");
	d_->map = static_cast<uint8_t *>(p);
	return d_->map;
}

uint8_t *Buffer::data() const
{
	return d_->map;
}

void Buffer::unmap()
{
	if (!d_->map)
		return;
	munmap(d_->map, d_->size);
	d_->map = nullptr;
}

Result<int> Buffer::exportFd(Access access) const
{
	int fd = -1;
	const uint32_t flags = DRM_CLOEXEC | (access == Access::ReadWrite ? DRM_RDWR : 0);
	if (drmPrimeHandleToFD(d_->device->fd(), d_->handle, flags, &fd))
		return Error(errno, "cannot export the buffer as a dma-buf");
	return fd;
}

Result<int> Buffer::exportPendingJobs() const
{
	if (placement() == Placement::Sram)
		return Error(EINVAL, "an SRAM buffer has no dma-buf to take its jobs' fences from");
	auto fd = exportFd(Access::ReadOnly);
	if (!fd)
		fd = exportFd(Access::ReadWrite);
	if (!fd)
		return fd.error();
	UniqueFd dmabuf(*fd);
	/* WRITE asks for every fence: the readers' as well as the writers'. */
	dma_buf_export_sync_file args = {};
	args.flags = DMA_BUF_SYNC_WRITE;
	args.fd = -1;
	if (ioctl(dmabuf.get(), DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &args))
		return Error(errno, "cannot take the fences of the buffer's jobs");
	return args.fd;
}

Result<void> Buffer::wait(std::chrono::nanoseconds timeout, bool writersOnly) const
{
	drm_vdla_bo_wait args = {};
	args.handle = d_->handle;
	args.flags = writersOnly ? DRM_VDLA_BO_WAIT_FLAG_WRITERS : 0;
	args.timeout_ns = timeout.count() < 0 ? 0 : timeout.count();
	if (drmIoctl(d_->device->fd(), DRM_IOCTL_VDLA_BO_WAIT, &args)) {
		int err = errno;
		return Error(err,
			err == ETIMEDOUT ? "the buffer is still in use by the device"
					 : "cannot wait for the buffer");
	}
	return {};
}

Result<void> Buffer::beginCpuAccess(CpuAccess access)
{
	auto fd = d_->cpuAccessDmaBuf(*this);
	if (!fd)
		return fd.error();
	return beginCpuAccess(*fd, access);
}

Result<void> Buffer::endCpuAccess(CpuAccess access)
{
	auto fd = d_->cpuAccessDmaBuf(*this);
	if (!fd)
		return fd.error();
	return endCpuAccess(*fd, access);
}

Result<void> Buffer::beginCpuAccess(int dmabufFd, CpuAccess access)
{
	return dmaBufSync(dmabufFd, DMA_BUF_SYNC_START | dmaBufSyncFlags(access), "the start");
}

Result<void> Buffer::endCpuAccess(int dmabufFd, CpuAccess access)
{
	return dmaBufSync(dmabufFd, DMA_BUF_SYNC_END | dmaBufSyncFlags(access), "the end");
}

} /* namespace vdla */
