/* SPDX-License-Identifier: MIT */
#include <vdla/fence.h>

#include <sys/ioctl.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#include <linux/sync_file.h>
#include <xf86drm.h>

#include <drm/vdla_accel.h>

#include <vdla/device.h>

#include <vdla/unique_fd.h>

namespace vdla {

namespace {

/* drmSyncobj* calls return -1 with errno, or (some) -errno: the errno either way. */
int syncobjError(int ret)
{
	return ret < -1 ? -ret : errno;
}

int64_t absoluteTimeout(std::chrono::nanoseconds timeout)
{
	timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	int64_t nowNs = int64_t(now.tv_sec) * 1000000000 + now.tv_nsec;
	int64_t rel = std::max<int64_t>(timeout.count(), 0);
	return rel > INT64_MAX - nowNs ? INT64_MAX : nowNs + rel;
}

/* A syncobj handle of @fd, destroyed on scope exit. */
class ScopedSyncobj
{
public:
	explicit ScopedSyncobj(int fd, uint32_t flags = 0) : fd_(fd)
	{
		ret_ = drmSyncobjCreate(fd, flags, &handle_);
	}
	~ScopedSyncobj()
	{
		if (!ret_)
			drmSyncobjDestroy(fd_, handle_);
	}
	int ret() const { return ret_; }
	uint32_t handle() const { return handle_; }

private:
	int fd_;
	int ret_;
	uint32_t handle_ = 0;
};

} /* namespace */

class Fence::Private
{
public:
	Device *device = nullptr;
	uint32_t handle = 0;
	Type type = Type::Binary;

	int fd() const { return device->fd(); }
};

Fence::Fence(std::unique_ptr<Private> d) : d_(std::move(d))
{
}

Fence::~Fence()
{
	drmSyncobjDestroy(d_->fd(), d_->handle);
}

Result<std::unique_ptr<Fence>> Fence::create(Device &device, Type type, bool signalled)
{
	if (signalled && type == Type::Timeline)
		return Error(EINVAL, "a timeline fence cannot be created signalled");
	uint32_t handle = 0;
	int ret = drmSyncobjCreate(
		device.fd(), signalled ? DRM_SYNCOBJ_CREATE_SIGNALED : 0, &handle);
	if (ret)
		return Error(syncobjError(ret), "cannot create a fence");
	auto d = std::make_unique<Private>();
	d->device = &device;
	d->handle = handle;
	d->type = type;
	return std::unique_ptr<Fence>(new Fence(std::move(d)));
}

Result<std::unique_ptr<Fence>> Fence::importFd(Device &device, int syncobjFd, Type type)
{
	uint32_t handle = 0;
	int ret = drmSyncobjFDToHandle(device.fd(), syncobjFd, &handle);
	if (ret)
		return Error(syncobjError(ret), "cannot import the syncobj fd");
	auto d = std::make_unique<Private>();
	d->device = &device;
	d->handle = handle;
	d->type = type;
	return std::unique_ptr<Fence>(new Fence(std::move(d)));
}

Result<std::unique_ptr<Fence>> Fence::fromSyncFile(Device &device, int syncFileFd)
{
	auto fence = create(device);
	if (!fence)
		return fence.error();
	auto imported = (*fence)->importSyncFile(syncFileFd);
	if (!imported)
		return imported.error();
	return std::move(*fence);
}

Result<FenceStatus> Fence::syncFileStatus(int syncFileFd)
{
	sync_file_info info = {};
	if (ioctl(syncFileFd, SYNC_IOC_FILE_INFO, &info))
		return Error(errno, "cannot read the sync file");

	std::vector<sync_fence_info> fences(info.num_fences);
	if (!fences.empty()) {
		uint32_t count = info.num_fences;
		info = {};
		info.num_fences = count;
		info.sync_fence_info = reinterpret_cast<uintptr_t>(fences.data());
		if (ioctl(syncFileFd, SYNC_IOC_FILE_INFO, &info))
			return Error(errno, "cannot read the fences of the sync file");
		fences.resize(std::min(count, info.num_fences));
	}

	FenceStatus status;
	status.signalled = info.status != 0;
	status.error = info.status < 0 ? -info.status : 0;
	for (const sync_fence_info &f : fences)
		status.timestamp = std::max(
			status.timestamp, std::chrono::nanoseconds(int64_t(f.timestamp_ns)));
	if (!status.signalled)
		status.timestamp = std::chrono::nanoseconds(0);
	return status;
}

Device &Fence::device() const
{
	return *d_->device;
}

uint32_t Fence::handle() const
{
	return d_->handle;
}

Fence::Type Fence::type() const
{
	return d_->type;
}

Result<void> Fence::wait(std::chrono::nanoseconds timeout) const
{
	if (d_->type == Type::Timeline)
		return Error(EINVAL, "a timeline fence is waited for at a point");
	uint32_t handle = d_->handle;
	int ret = drmSyncobjWait(d_->fd(), &handle, 1, absoluteTimeout(timeout),
		DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, nullptr);
	if (ret) {
		int err = syncobjError(ret);
		if (err == ETIME || err == ETIMEDOUT)
			return Error(ETIMEDOUT, "the fence did not signal in time");
		return Error(err, "cannot wait for the fence");
	}
	return {};
}

Result<void> Fence::waitPoint(uint64_t point, std::chrono::nanoseconds timeout) const
{
	if (d_->type == Type::Binary)
		return Error(EINVAL, "a binary fence has no points: wait() waits for it");
	uint32_t handle = d_->handle;
	int ret = drmSyncobjTimelineWait(d_->fd(), &handle, &point, 1, absoluteTimeout(timeout),
		DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, nullptr);
	if (ret) {
		int err = syncobjError(ret);
		if (err == ETIME || err == ETIMEDOUT)
			return Error(ETIMEDOUT,
				"timeline point " + std::to_string(point)
					+ " did not signal in time");
		return Error(err, "cannot wait for timeline point " + std::to_string(point));
	}
	return {};
}

Result<bool> Fence::signalled(uint64_t point) const
{
	uint32_t handle = d_->handle;
	int ret;
	if (d_->type == Type::Timeline)
		ret = drmSyncobjTimelineWait(d_->fd(), &handle, &point, 1, 0, 0, nullptr);
	else
		ret = drmSyncobjWait(d_->fd(), &handle, 1, 0, 0, nullptr);
	if (!ret)
		return true;
	int err = syncobjError(ret);
	/* No fence yet (EINVAL without WAIT_FOR_SUBMIT) counts as not signalled. */
	if (err == ETIME || err == ETIMEDOUT || err == EINVAL)
		return false;
	return Error(err, "cannot query the fence");
}

Result<uint64_t> Fence::lastPoint() const
{
	uint32_t handle = d_->handle;
	uint64_t point = 0;
	int ret = drmSyncobjQuery(d_->fd(), &handle, &point, 1);
	if (ret)
		return Error(syncobjError(ret), "cannot query the timeline");
	return point;
}

Result<void> Fence::signal(uint64_t point)
{
	uint32_t handle = d_->handle;
	if (d_->type == Type::Binary) {
		if (int ret = drmSyncobjSignal(d_->fd(), &handle, 1))
			return Error(syncobjError(ret), "cannot signal the fence");
		return {};
	}
	/*
	 * The core's timeline signal puts its shared stub at the point, whose
	 * timestamp is when the stub was first used after boot. A syncobj
	 * created signalled holds a fence of its own, stamped now: moved to
	 * the point, it says when the point was signalled.
	 */
	ScopedSyncobj now(d_->fd(), DRM_SYNCOBJ_CREATE_SIGNALED);
	if (now.ret())
		return Error(syncobjError(now.ret()), "cannot create a fence");
	if (int ret = drmSyncobjTransfer(d_->fd(), handle, point, now.handle(), 0, 0))
		return Error(syncobjError(ret),
			"cannot signal timeline point " + std::to_string(point));
	return {};
}

Result<void> Fence::reset()
{
	uint32_t handle = d_->handle;
	int ret = drmSyncobjReset(d_->fd(), &handle, 1);
	if (ret)
		return Error(syncobjError(ret), "cannot reset the fence");
	return {};
}

Result<int> Fence::exportSyncFile(uint64_t point) const
{
	int fd = -1;
	if (d_->type == Type::Binary) {
		int ret = drmSyncobjExportSyncFile(d_->fd(), d_->handle, &fd);
		if (ret)
			return Error(syncobjError(ret), "cannot export the fence as a sync file");
		return fd;
	}

	/* A point's fence reaches a sync file through a binary syncobj. */
	ScopedSyncobj binary(d_->fd());
	if (binary.ret())
		return Error(syncobjError(binary.ret()), "cannot create a fence");
	int ret = drmSyncobjTransfer(d_->fd(), binary.handle(), 0, d_->handle, point, 0);
	if (ret)
		return Error(syncobjError(ret),
			"timeline point " + std::to_string(point) + " has no fence");
	ret = drmSyncobjExportSyncFile(d_->fd(), binary.handle(), &fd);
	if (ret)
		return Error(syncobjError(ret), "cannot export the fence as a sync file");
	return fd;
}

Result<int> Fence::exportJobSyncFile(uint64_t point) const
{
	if (d_->type == Type::Timeline && !point)
		return Error(EINVAL, "a timeline fence is exported at a point");
	if (d_->type == Type::Binary && point)
		return Error(EINVAL, "a binary fence has no points");
	if (!d_->device->info().driverVersion.atLeast(1, 9))
		return Error(EOPNOTSUPP, "exporting a job's own fence needs driver 1.9");
	drm_vdla_fence_export args = {};
	args.handle = d_->handle;
	args.point = point;
	if (drmIoctl(d_->fd(), DRM_IOCTL_VDLA_FENCE_EXPORT, &args)) {
		int err = errno;
		return Error(err, err == EINVAL ? "point " + std::to_string(point)
						  + " has no fence yet"
			     : err == ENODATA ? "the outcome of point " + std::to_string(point)
						  + " is gone: it was merged into a later point"
					      : "cannot export the fence as a sync file");
	}
	return args.fd;
}

Result<void> Fence::importSyncFile(int syncFileFd, uint64_t point)
{
	if (d_->type == Type::Binary) {
		int ret = drmSyncobjImportSyncFile(d_->fd(), d_->handle, syncFileFd);
		if (ret)
			return Error(syncobjError(ret), "cannot import the sync file");
		return {};
	}

	ScopedSyncobj binary(d_->fd());
	if (binary.ret())
		return Error(syncobjError(binary.ret()), "cannot create a fence");
	int ret = drmSyncobjImportSyncFile(d_->fd(), binary.handle(), syncFileFd);
	if (ret)
		return Error(syncobjError(ret), "cannot import the sync file");
	ret = drmSyncobjTransfer(d_->fd(), d_->handle, point, binary.handle(), 0, 0);
	if (ret)
		return Error(
			syncobjError(ret), "cannot set timeline point " + std::to_string(point));
	return {};
}

Result<int> Fence::exportFd() const
{
	int fd = -1;
	int ret = drmSyncobjHandleToFD(d_->fd(), d_->handle, &fd);
	if (ret)
		return Error(syncobjError(ret), "cannot export the syncobj");
	return fd;
}

Result<FenceStatus> Fence::status(uint64_t point) const
{
	auto syncFile = exportSyncFile(point);
	if (!syncFile)
		return syncFile.error();
	UniqueFd fd(*syncFile);
	return syncFileStatus(fd.get());
}

Result<FenceStatus> Fence::waitStatus(uint64_t point, std::chrono::nanoseconds timeout) const
{
	if (d_->type == Type::Timeline && !point)
		return Error(EINVAL, "a timeline fence is waited for at a point");
	if (d_->type == Type::Binary && point)
		return Error(EINVAL, "a binary fence has no points");

	if (!d_->device->info().driverVersion.atLeast(1, 8)) {
		auto waited = point ? waitPoint(point, timeout) : wait(timeout);
		if (!waited)
			return waited.error();
		return status(point);
	}

	drm_vdla_fence_wait args = {};
	args.handle = d_->handle;
	args.point = point;
	args.timeout_ns = std::max<int64_t>(timeout.count(), 0);
	if (drmIoctl(d_->fd(), DRM_IOCTL_VDLA_FENCE_WAIT, &args)) {
		const int err = errno;
		const std::string what = point ? "timeline point " + std::to_string(point) : "the fence";
		if (err == ETIMEDOUT)
			return Error(ETIMEDOUT, what + " did not signal in time");
		if (err == EINVAL)
			return Error(EINVAL, what + " has no fence yet");
		if (err == ENODATA)
			return Error(ENODATA, what + " was merged into a later point once signalled: "
						     "its outcome is no longer known");
		return Error(err, "cannot wait for " + what);
	}
	FenceStatus status;
	status.signalled = true;
	status.error = -args.error;
	status.timestamp = std::chrono::nanoseconds(int64_t(args.timestamp_ns));
	return status;
}

} /* namespace vdla */
