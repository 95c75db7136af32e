/* SPDX-License-Identifier: MIT */
#include "submit_env.h"

#include <climits>
#include <fcntl.h>
#include <linux/sync_file.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>
#include <utility>

#include <xf86drm.h>

#include <vdla/device.h>

namespace guest {

/* ---- Nodes ------------------------------------------------------------- */

std::vector<std::string> nodePaths()
{
	auto nodes = vdla::Device::enumerate();
	return nodes.ok() ? *nodes : std::vector<std::string>{};
}

int nodeIndex(const std::string &path)
{
	static const std::string prefix = "accel";
	size_t slash = path.rfind('/');
	std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
	if (name.compare(0, prefix.size(), prefix) != 0 || name.size() == prefix.size())
		return -1;
	char *end = nullptr;
	long n = std::strtol(name.c_str() + prefix.size(), &end, 10);
	return *end ? -1 : int(n);
}

Node::Node(const std::string &path)
	: fd_(::open(path.c_str(), O_RDWR | O_CLOEXEC)), index_(nodeIndex(path)), path_(path)
{
}

Node::~Node()
{
	close();
}

Node::Node(Node &&other) noexcept
	: fd_(std::exchange(other.fd_, -1)), index_(other.index_), path_(std::move(other.path_))
{
}

Node &Node::operator=(Node &&other) noexcept
{
	if (this != &other) {
		close();
		fd_ = std::exchange(other.fd_, -1);
		index_ = other.index_;
		path_ = std::move(other.path_);
	}
	return *this;
}

void Node::close()
{
	if (fd_ >= 0)
		::close(fd_);
	fd_ = -1;
}

int ioctlError(int fd, unsigned long request, void *arg)
{
	return ::ioctl(fd, request, arg) == 0 ? 0 : errno;
}

/* ---- Buffer objects ---------------------------------------------------- */

int gemClose(int fd, uint32_t handle)
{
	drm_gem_close args = {};
	args.handle = handle;
	return ioctlError(fd, DRM_IOCTL_GEM_CLOSE, &args);
}

int primeImport(int fd, int dmabuf, uint32_t *handle)
{
	drm_prime_handle args = {};
	args.fd = dmabuf;
	int ret = ioctlError(fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &args);
	*handle = ret ? 0 : args.handle;
	return ret;
}

int boInfo(int fd, uint32_t handle, drm_vdla_bo_info *info)
{
	*info = {};
	info->handle = handle;
	return ioctlError(fd, DRM_IOCTL_VDLA_BO_INFO, info);
}

int boWait(int fd, uint32_t handle, int64_t timeoutNs, uint32_t flags)
{
	drm_vdla_bo_wait args = {};
	args.handle = handle;
	args.flags = flags;
	args.timeout_ns = timeoutNs;
	return ioctlError(fd, DRM_IOCTL_VDLA_BO_WAIT, &args);
}

Bo::Bo(int fd, uint64_t size, uint32_t flags, uint32_t leaseId) : fd_(fd)
{
	drm_vdla_bo_create args = {};
	args.size = size;
	args.flags = flags;
	args.lease_id = leaseId;
	error_ = ioctlError(fd, DRM_IOCTL_VDLA_BO_CREATE, &args);
	if (error_)
		return;
	handle_ = args.handle;
	size_ = args.size;
	address_ = args.device_address;
	mmapOffset_ = args.mmap_offset;
	access_ = DRM_VDLA_BO_ACCESS_READ | DRM_VDLA_BO_ACCESS_WRITE;
}

Bo Bo::adopt(int fd, uint32_t handle)
{
	Bo bo;
	bo.fd_ = fd;
	bo.handle_ = handle;
	drm_vdla_bo_info info;
	bo.error_ = boInfo(fd, handle, &info);
	if (!bo.error_) {
		bo.size_ = info.size;
		bo.address_ = info.device_address;
		bo.mmapOffset_ = info.mmap_offset;
		bo.access_ = info.access;
		bo.imported_ = info.imported;
	}
	return bo;
}

Bo Bo::import(int fd, int dmabuf)
{
	uint32_t handle;
	int ret = primeImport(fd, dmabuf, &handle);
	if (ret) {
		Bo bo;
		bo.fd_ = fd;
		bo.error_ = ret;
		return bo;
	}
	return adopt(fd, handle);
}

Bo Bo::importVdla(int fd, int dmabuf, uint32_t flags)
{
	drm_vdla_bo_import args = {};
	args.fd = dmabuf;
	args.flags = flags;
	int ret = ioctlError(fd, DRM_IOCTL_VDLA_BO_IMPORT, &args);
	if (ret) {
		Bo bo;
		bo.fd_ = fd;
		bo.error_ = ret;
		return bo;
	}
	Bo bo = adopt(fd, args.handle);
	/* What BO_IMPORT itself said. */
	bo.access_ = args.access;
	bo.size_ = args.size;
	bo.address_ = args.device_address;
	return bo;
}

Bo::~Bo()
{
	reset();
}

Bo::Bo(Bo &&other) noexcept
{
	*this = std::move(other);
}

Bo &Bo::operator=(Bo &&other) noexcept
{
	if (this != &other) {
		reset();
		fd_ = other.fd_;
		error_ = other.error_;
		handle_ = std::exchange(other.handle_, 0);
		size_ = other.size_;
		address_ = other.address_;
		mmapOffset_ = other.mmapOffset_;
		access_ = other.access_;
		imported_ = other.imported_;
		map_ = std::exchange(other.map_, nullptr);
	}
	return *this;
}

void Bo::reset()
{
	if (map_)
		::munmap(map_, size_);
	map_ = nullptr;
	if (handle_)
		gemClose(fd_, handle_);
	handle_ = 0;
}

uint8_t *Bo::map()
{
	if (map_ || !size_)
		return map_;
	void *p = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, mmapOffset_);
	map_ = p == MAP_FAILED ? nullptr : static_cast<uint8_t *>(p);
	return map_;
}

void Bo::fill(uint8_t value)
{
	if (uint8_t *p = map())
		std::memset(p, value, size_);
}

int Bo::exportFd() const
{
	drm_prime_handle args = {};
	args.handle = handle_;
	args.flags = DRM_CLOEXEC | DRM_RDWR;
	int ret = ioctlError(fd_, DRM_IOCTL_PRIME_HANDLE_TO_FD, &args);
	return ret ? -ret : args.fd;
}

int Bo::wait(int64_t timeoutNs, uint32_t flags) const
{
	return boWait(fd_, handle_, timeoutNs, flags);
}

int Bo::closeHandle()
{
	int ret = gemClose(fd_, handle_);
	handle_ = 0;
	return ret;
}

drm_vdla_address Bo::entry(uint32_t flags, uint64_t offset) const
{
	drm_vdla_address a = {};
	a.handle = handle_;
	a.flags = flags;
	a.offset = offset;
	return a;
}

/* ---- Contexts ---------------------------------------------------------- */

int ctxQuery(int fd, uint32_t ctx, drm_vdla_ctx_query *query)
{
	*query = {};
	query->ctx_id = ctx;
	return ioctlError(fd, DRM_IOCTL_VDLA_CTX_QUERY, query);
}

int ctxDestroy(int fd, uint32_t ctx)
{
	drm_vdla_ctx_destroy args = {};
	args.ctx_id = ctx;
	return ioctlError(fd, DRM_IOCTL_VDLA_CTX_DESTROY, &args);
}

Ctx::Ctx(int fd, uint32_t priority) : fd_(fd)
{
	drm_vdla_ctx_create args = {};
	args.priority = priority;
	error_ = ioctlError(fd, DRM_IOCTL_VDLA_CTX_CREATE, &args);
	if (!error_)
		id_ = args.ctx_id;
}

Ctx::~Ctx()
{
	destroy();
}

Ctx::Ctx(Ctx &&other) noexcept
{
	*this = std::move(other);
}

Ctx &Ctx::operator=(Ctx &&other) noexcept
{
	if (this != &other) {
		destroy();
		fd_ = other.fd_;
		error_ = other.error_;
		id_ = std::exchange(other.id_, 0);
	}
	return *this;
}

int Ctx::destroy()
{
	if (!id_)
		return ENOENT;
	int ret = ctxDestroy(fd_, id_);
	id_ = 0;
	return ret;
}

drm_vdla_ctx_query Ctx::query() const
{
	drm_vdla_ctx_query q;
	if (ctxQuery(fd_, id_, &q)) {
		q = {};
		q.state = ~0u;
	}
	return q;
}

/* ---- Syncobjs and fences ----------------------------------------------- */

int64_t monotonicNs()
{
	timespec ts;
	::clock_gettime(CLOCK_MONOTONIC, &ts);
	return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

FenceInfo syncFileInfo(int syncFile)
{
	FenceInfo result;
	sync_fence_info fence = {};
	sync_file_info info = {};
	info.num_fences = 1;
	info.sync_fence_info = reinterpret_cast<uintptr_t>(&fence);
	if (ioctlError(syncFile, SYNC_IOC_FILE_INFO, &info))
		return result;
	result.ok = true;
	result.status = info.status;
	result.timestampNs = info.num_fences >= 1 ? fence.timestamp_ns : 0;
	return result;
}

Syncobj::Syncobj(int fd, uint32_t flags) : fd_(fd)
{
	if (drmSyncobjCreate(fd, flags, &handle_)) {
		error_ = errno;
		handle_ = 0;
	}
}

Syncobj Syncobj::adopt(int fd, uint32_t handle)
{
	Syncobj s;
	s.fd_ = fd;
	s.handle_ = handle;
	return s;
}

Syncobj::~Syncobj()
{
	if (handle_)
		drmSyncobjDestroy(fd_, handle_);
}

Syncobj::Syncobj(Syncobj &&other) noexcept
{
	*this = std::move(other);
}

Syncobj &Syncobj::operator=(Syncobj &&other) noexcept
{
	if (this != &other) {
		if (handle_)
			drmSyncobjDestroy(fd_, handle_);
		fd_ = other.fd_;
		error_ = other.error_;
		handle_ = std::exchange(other.handle_, 0);
	}
	return *this;
}

drm_vdla_sync Syncobj::sync(uint64_t point) const
{
	drm_vdla_sync s = {};
	s.handle = handle_;
	s.point = point;
	return s;
}

int Syncobj::wait(int64_t timeoutMs) const
{
	uint32_t handle = handle_;
	return drmSyncobjWait(fd_, &handle, 1, monotonicNs() + timeoutMs * 1000000, 0, nullptr);
}

int Syncobj::waitPoint(uint64_t point, int64_t timeoutMs) const
{
	uint32_t handle = handle_;
	return drmSyncobjTimelineWait(
		fd_, &handle, &point, 1, monotonicNs() + timeoutMs * 1000000, 0, nullptr);
}

bool Syncobj::signalled(uint64_t point) const
{
	uint32_t handle = handle_;
	if (!point)
		return drmSyncobjWait(fd_, &handle, 1, 0, 0, nullptr) == 0;
	return drmSyncobjTimelineWait(fd_, &handle, &point, 1, 0, 0, nullptr) == 0;
}

int Syncobj::exportSyncFile() const
{
	int syncFile = -1;
	if (drmSyncobjExportSyncFile(fd_, handle_, &syncFile))
		return -errno;
	return syncFile;
}

int Syncobj::exportFd() const
{
	int fd = -1;
	if (drmSyncobjHandleToFD(fd_, handle_, &fd))
		return -errno;
	return fd;
}

FenceInfo Syncobj::fence() const
{
	int syncFile = exportSyncFile();
	if (syncFile < 0)
		return {};
	FenceInfo info = syncFileInfo(syncFile);
	::close(syncFile);
	return info;
}

FenceInfo Syncobj::pointFence(uint64_t point) const
{
	Syncobj binary(fd_);
	if (binary.error() || drmSyncobjTransfer(fd_, binary.handle(), 0, handle_, point, 0))
		return {};
	return binary.fence();
}

uint64_t Syncobj::lastPoint() const
{
	uint32_t handle = handle_;
	uint64_t point = 0;
	if (drmSyncobjQuery(fd_, &handle, &point, 1))
		return 0;
	return point;
}

/* ---- Submission -------------------------------------------------------- */

int submit(int fd, const Submission &s, drm_vdla_submit *result)
{
	drm_vdla_submit args = {};
	args.ctx_id = s.ctx;
	args.addresses = reinterpret_cast<uintptr_t>(s.addresses.data());
	args.address_count = uint32_t(s.addresses.size());
	args.descriptor = s.descriptor;
	args.in_syncs = reinterpret_cast<uintptr_t>(s.inSyncs.data());
	args.in_sync_count = uint32_t(s.inSyncs.size());
	args.out_sync = s.outSync;
	args.flags = s.flags;
	args.op_stats = s.opStats;
	args.lease_id = s.leaseId;
	int ret = submitRaw(fd, &args);
	if (result)
		*result = args;
	return ret;
}

int submitRaw(int fd, drm_vdla_submit *args)
{
	return ioctlError(fd, DRM_IOCTL_VDLA_SUBMIT, args);
}

/* ---- debugfs and module parameters ------------------------------------- */

/*
 * The DRM core names an accel device's debugfs directory after its bus
 * address, which sysfs gives as the target of accelN's "device" link.
 */
std::string debugfsPath(int index, const std::string &file)
{
	std::string link = "/sys/class/accel/accel" + std::to_string(index) + "/device";
	char target[PATH_MAX];
	ssize_t n = ::readlink(link.c_str(), target, sizeof(target) - 1);
	if (n <= 0)
		return "/nonexistent/" + link;
	target[n] = '\0';
	std::string address(target);
	address = address.substr(address.find_last_of('/') + 1);
	return "/sys/kernel/debug/accel/" + address + "/" + file;
}

int readFile(const std::string &path, std::string *contents)
{
	contents->clear();
	int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	char buffer[4096];
	ssize_t n;
	int ret = 0;
	while ((n = ::read(fd, buffer, sizeof(buffer))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = errno;
			break;
		}
		contents->append(buffer, size_t(n));
	}
	::close(fd);
	return ret;
}

int writeFile(const std::string &path, const std::string &value)
{
	int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	ssize_t n = ::write(fd, value.data(), value.size());
	int ret = n == ssize_t(value.size()) ? 0 : (n < 0 ? errno : EIO);
	::close(fd);
	return ret;
}

std::map<std::string, long> readState(int index)
{
	std::map<std::string, long> state;
	std::string text;
	if (readFile(debugfsPath(index, "state"), &text))
		return state;
	std::istringstream lines(text);
	std::string line;
	while (std::getline(lines, line)) {
		size_t colon = line.find(':');
		if (colon == std::string::npos)
			continue;
		std::string key = line.substr(0, colon);
		const char *value = line.c_str() + colon + 1;
		char *end = nullptr;
		long v = std::strtol(value, &end, 10);
		if (end != value)
			state[key] = v;
	}
	return state;
}

int faultInject(int index, const std::string &command)
{
	return writeFile(debugfsPath(index, "fault_inject"), command);
}

FaultInjection::~FaultInjection()
{
	clear();
}

int FaultInjection::set(
	const std::string &engine, const std::string &mode, unsigned count, unsigned delayUs)
{
	std::string command = engine + " " + mode + " "
		+ (count ? std::to_string(count) : std::string("forever"));
	if (delayUs)
		command += " " + std::to_string(delayUs);
	int ret = faultInject(index_, command);
	if (!ret)
		engines_.push_back(engine);
	return ret;
}

void FaultInjection::clear()
{
	for (const auto &engine : engines_)
		faultInject(index_, engine + " none 0");
	engines_.clear();
}

std::string paramPath(const std::string &name)
{
	return "/sys/module/vdla/parameters/" + name;
}

std::string readParam(const std::string &name)
{
	std::string value;
	readFile(paramPath(name), &value);
	while (!value.empty() && value.back() == '\n')
		value.pop_back();
	return value;
}

ParamOverride::ParamOverride(const std::string &name, const std::string &value)
	: name_(name), old_(readParam(name))
{
	error_ = old_.empty() ? ENOENT : writeFile(paramPath(name), value);
}

ParamOverride::~ParamOverride()
{
	if (!old_.empty())
		writeFile(paramPath(name_), old_);
}

/* ---- Child processes -------------------------------------------------- */

bool waitUntil(const std::function<bool()> &done, int timeoutMs, int stepMs)
{
	auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
	for (;;) {
		if (done())
			return true;
		if (std::chrono::steady_clock::now() >= deadline)
			return false;
		std::this_thread::sleep_for(std::chrono::milliseconds(stepMs));
	}
}

pid_t forkChild(const std::function<int()> &body)
{
	std::fflush(stdout);
	std::fflush(stderr);
	pid_t pid = ::fork();
	if (pid == 0) {
		int status = 1;
		try {
			status = body();
		} catch (const std::exception &e) {
			std::fprintf(stderr, "child %d: %s\n", ::getpid(), e.what());
		}
		std::fflush(stdout);
		std::fflush(stderr);
		::_exit(status);
	}
	return pid;
}

pid_t forkReadyChild(const std::function<int(const std::function<void()> &ready)> &body)
{
	int ready[2];
	if (::pipe(ready))
		return -1;
	pid_t pid = forkChild([&]() -> int {
		::close(ready[0]);
		return body([&] {
			if (::write(ready[1], "r", 1) != 1)
				::_exit(1);
			for (;;)
				::pause();
		});
	});
	::close(ready[1]);
	char byte = 0;
	bool isReady = pid > 0 && ::read(ready[0], &byte, 1) == 1;
	::close(ready[0]);
	if (isReady)
		return pid;
	if (pid > 0)
		waitChild(pid);
	return -1;
}

int waitChild(pid_t pid, int timeoutMs)
{
	int status = 0;
	bool ended = waitUntil(
		[&] {
			pid_t r = ::waitpid(pid, &status, WNOHANG);
			return r == pid || (r < 0 && errno != EINTR);
		},
		timeoutMs, 5);
	if (!ended) {
		::kill(pid, SIGKILL);
		::waitpid(pid, &status, 0);
		return -1;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

std::vector<std::vector<uint8_t>> readDrmEvents(int fd, int timeoutMs, uint32_t first,
						uint32_t last, size_t size)
{
	std::vector<std::vector<uint8_t>> events;
	pollfd p = { fd, POLLIN, 0 };
	if (::poll(&p, 1, timeoutMs) <= 0 || !(p.revents & POLLIN))
		return events;
	alignas(8) uint8_t buf[4096];
	ssize_t n = ::read(fd, buf, sizeof(buf));
	for (size_t at = 0; n > 0 && at + sizeof(drm_event) <= size_t(n);) {
		drm_event head;
		std::memcpy(&head, buf + at, sizeof(head));
		if (head.length < sizeof(head) || at + head.length > size_t(n))
			break;
		if (head.type >= first && head.type <= last && head.length == size)
			events.emplace_back(buf + at, buf + at + size);
		at += head.length;
	}
	return events;
}

std::map<std::string, long> objectCounts(int index)
{
	std::map<std::string, long> state = readState(index), counts;
	for (const char *key : { "bos", "mappings", "jobs", "contexts", "leases", "pipelines",
				 "channels" })
		counts[key] = state.count(key) ? state[key] : -1;
	return counts;
}

std::string describeCounts(const std::map<std::string, long> &counts)
{
	std::ostringstream s;
	for (const auto &[key, value] : counts)
		s << key << "=" << value << " ";
	return s.str();
}

} /* namespace guest */
