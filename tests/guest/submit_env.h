/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the buffer, context and submission interface of vdla
 * (uapi/drm/vdla_accel.h): RAII wrappers of nodes, BOs, contexts and
 * syncobjs, SUBMIT with its errno, fence status through sync files, and the
 * driver's debugfs files and module parameters.
 *
 * No googletest here: the guest benchmarks link this file too. Every call
 * that can fail reports the errno (or leaves it in error()), so that tests
 * can check failure paths with the same helpers.
 */
#pragma once

#include <sys/types.h>

#include <climits>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <drm/vdla_accel.h>

namespace guest {

/* ---- Nodes ------------------------------------------------------------- */

/* Every vdla accel node, in order (empty if none or on error). */
std::vector<std::string> nodePaths();
/* N of /dev/accel/accelN, or -1. */
int nodeIndex(const std::string &path);

/* One open file of a node. */
class Node
{
public:
	Node() = default;
	explicit Node(const std::string &path);
	~Node();
	Node(Node &&other) noexcept;
	Node &operator=(Node &&other) noexcept;
	Node(const Node &) = delete;
	Node &operator=(const Node &) = delete;

	bool valid() const { return fd_ >= 0; }
	int fd() const { return fd_; }
	const std::string &path() const { return path_; }
	/* N of /dev/accel/accelN: the name of its debugfs directory. */
	int index() const { return index_; }
	void close();

private:
	int fd_ = -1;
	int index_ = -1;
	std::string path_;
};

/* Runs an ioctl once (no EINTR retry); returns 0 or the errno. */
int ioctlError(int fd, unsigned long request, void *arg);

/* ---- Buffer objects ---------------------------------------------------- */

/* DRM_IOCTL_GEM_CLOSE; returns the errno. */
int gemClose(int fd, uint32_t handle);
/* DRM_IOCTL_PRIME_FD_TO_HANDLE; returns the errno. */
int primeImport(int fd, int dmabuf, uint32_t *handle);
/* DRM_IOCTL_VDLA_BO_INFO of @handle; returns the errno. */
int boInfo(int fd, uint32_t handle, drm_vdla_bo_info *info);
/* DRM_IOCTL_VDLA_BO_WAIT; returns the errno. */
int boWait(int fd, uint32_t handle, int64_t timeoutNs, uint32_t flags = 0);

class Bo
{
public:
	Bo() = default;
	/*
	 * BO_CREATE of @size bytes in @fd with @flags (and for an SRAM BO of
	 * a partition, the lease); error() holds the errno.
	 */
	Bo(int fd, uint64_t size, uint32_t flags = 0, uint32_t leaseId = 0);
	/* Takes over @handle of @fd (an import), described by BO_INFO. */
	static Bo adopt(int fd, uint32_t handle);
	/* PRIME import of @dmabuf into @fd. */
	static Bo import(int fd, int dmabuf);
	/* BO_IMPORT of @dmabuf into @fd with @flags. */
	static Bo importVdla(int fd, int dmabuf, uint32_t flags);
	~Bo();
	Bo(Bo &&other) noexcept;
	Bo &operator=(Bo &&other) noexcept;
	Bo(const Bo &) = delete;
	Bo &operator=(const Bo &) = delete;

	int error() const { return error_; }
	bool valid() const { return handle_ != 0; }
	int fd() const { return fd_; }
	uint32_t handle() const { return handle_; }
	uint64_t size() const { return size_; }
	uint64_t address() const { return address_; }
	uint64_t mmapOffset() const { return mmapOffset_; }
	uint32_t access() const { return access_; }
	uint32_t imported() const { return imported_; }

	/* CPU mapping of the whole BO, made on first use; nullptr on failure. */
	uint8_t *map();
	void fill(uint8_t value);
	/* PRIME export; the dma-buf fd, or -errno. */
	int exportFd() const;
	/* BO_WAIT; returns the errno. */
	int wait(int64_t timeoutNs, uint32_t flags = 0) const;
	/* GEM_CLOSE now (a mapping stays valid); returns the errno. */
	int closeHandle();
	/* An address-list entry for this BO. */
	drm_vdla_address entry(uint32_t flags = 0, uint64_t offset = 0) const;

private:
	void reset();

	int fd_ = -1;
	int error_ = 0;
	uint32_t handle_ = 0;
	uint64_t size_ = 0;
	uint64_t address_ = 0;
	uint64_t mmapOffset_ = 0;
	uint32_t access_ = 0;
	uint32_t imported_ = 0;
	uint8_t *map_ = nullptr;
};

/* ---- Contexts ---------------------------------------------------------- */

int ctxQuery(int fd, uint32_t ctx, drm_vdla_ctx_query *query);
int ctxDestroy(int fd, uint32_t ctx);

class Ctx
{
public:
	Ctx() = default;
	explicit Ctx(int fd, uint32_t priority = DRM_VDLA_PRIORITY_NORMAL);
	~Ctx();
	Ctx(Ctx &&other) noexcept;
	Ctx &operator=(Ctx &&other) noexcept;
	Ctx(const Ctx &) = delete;
	Ctx &operator=(const Ctx &) = delete;

	int error() const { return error_; }
	uint32_t id() const { return id_; }
	int fd() const { return fd_; }
	/* CTX_DESTROY now; returns the errno. */
	int destroy();
	/* CTX_QUERY; a zeroed structure (state ~0) if it fails. */
	drm_vdla_ctx_query query() const;

private:
	int fd_ = -1;
	int error_ = 0;
	uint32_t id_ = 0;
};

/* ---- Syncobjs and fences ----------------------------------------------- */

int64_t monotonicNs();

/* A fence as a sync file shows it. */
struct FenceInfo {
	/* 1 signalled, 0 pending, negative: signalled with that error. */
	int status = INT_MIN;
	/* When it signalled (CLOCK_MONOTONIC ns), 0 if pending. */
	uint64_t timestampNs = 0;
	/* False if the sync file could not be read. */
	bool ok = false;
};
FenceInfo syncFileInfo(int syncFile);

class Syncobj
{
public:
	Syncobj() = default;
	/* drmSyncobjCreate with @flags (DRM_SYNCOBJ_CREATE_SIGNALED). */
	explicit Syncobj(int fd, uint32_t flags = 0);
	/* Takes over @handle of @fd. */
	static Syncobj adopt(int fd, uint32_t handle);
	~Syncobj();
	Syncobj(Syncobj &&other) noexcept;
	Syncobj &operator=(Syncobj &&other) noexcept;
	Syncobj(const Syncobj &) = delete;
	Syncobj &operator=(const Syncobj &) = delete;

	int error() const { return error_; }
	uint32_t handle() const { return handle_; }
	int fd() const { return fd_; }

	/* The out- or in-sync naming this syncobj at @point. */
	drm_vdla_sync sync(uint64_t point = 0) const;
	/* Waits for the fence (at @point of a timeline); 0 or -errno (-ETIME). */
	int wait(int64_t timeoutMs) const;
	int waitPoint(uint64_t point, int64_t timeoutMs) const;
	/* Whether the fence has signalled (or @point of a timeline). */
	bool signalled(uint64_t point = 0) const;
	/* The binary fence's status and timestamp (exported as a sync file). */
	FenceInfo fence() const;
	/* The status of timeline @point (moved into a binary syncobj first). */
	FenceInfo pointFence(uint64_t point) const;
	/* Last signalled point of a timeline, or 0. */
	uint64_t lastPoint() const;
	/* Exports the fence as a sync file: the fd, or -errno. */
	int exportSyncFile() const;
	/* Exports the syncobj itself: the fd, or -errno. */
	int exportFd() const;

private:
	int fd_ = -1;
	int error_ = 0;
	uint32_t handle_ = 0;
};

/* ---- Submission -------------------------------------------------------- */

struct Submission {
	uint32_t ctx = 0;
	std::vector<drm_vdla_address> addresses;
	uint32_t descriptor = 0;
	std::vector<drm_vdla_sync> inSyncs;
	drm_vdla_sync outSync = {};
	/* DRM_VDLA_SUBMIT_* flags, and the entry of DRM_VDLA_SUBMIT_OP_STATS. */
	uint32_t flags = 0;
	uint32_t opStats = 0;
	/* The lease the job names (0: none). */
	uint32_t leaseId = 0;
};

/* SUBMIT; returns the errno, and the driver's answer in @result. */
int submit(int fd, const Submission &s, drm_vdla_submit *result = nullptr);
/* SUBMIT of a ready argument; returns the errno. */
int submitRaw(int fd, drm_vdla_submit *args);

/* ---- debugfs and module parameters ------------------------------------- */

/* /sys/kernel/debug/accel/<index>/<file> */
std::string debugfsPath(int index, const std::string &file);
/* Reads a whole file; returns the errno. */
int readFile(const std::string &path, std::string *contents);
/* Writes @value to a file in one write(); returns the errno. */
int writeFile(const std::string &path, const std::string &value);
/* The debugfs counters whose leaks the tests look for. */
std::map<std::string, long> objectCounts(int index);
std::string describeCounts(const std::map<std::string, long> &counts);

/* The debugfs `state` file as key: value pairs (empty if unreadable). */
std::map<std::string, long> readState(int index);
/* Writes @command to the device's fault_inject file; returns the errno. */
int faultInject(int index, const std::string &command);

/*
 * Fault injection that undoes itself: every engine set through it is
 * written "<engine> none 0" when it goes out of scope.
 */
class FaultInjection
{
public:
	explicit FaultInjection(int index) : index_(index) { }
	~FaultInjection();
	FaultInjection(const FaultInjection &) = delete;
	FaultInjection &operator=(const FaultInjection &) = delete;

	/* "<engine> <mode> <count> [delay_us]"; count 0 means forever. */
	int set(const std::string &engine, const std::string &mode, unsigned count,
		unsigned delayUs = 0);
	void clear();

private:
	int index_;
	std::vector<std::string> engines_;
};

/* /sys/module/vdla/parameters/<name> */
std::string paramPath(const std::string &name);
std::string readParam(const std::string &name);

/* Sets a module parameter and restores its old value when it goes. */
class ParamOverride
{
public:
	ParamOverride(const std::string &name, const std::string &value);
	~ParamOverride();
	ParamOverride(const ParamOverride &) = delete;
	ParamOverride &operator=(const ParamOverride &) = delete;

	int error() const { return error_; }

private:
	std::string name_;
	std::string old_;
	int error_ = 0;
};

/*
 * The DRM events read from @fd within @timeoutMs (one read: whole events
 * only) whose type is @first to @last and whose length is @size; the raw
 * bytes of each, others dropped.
 */
std::vector<std::vector<uint8_t>> readDrmEvents(int fd, int timeoutMs, uint32_t first,
						uint32_t last, size_t size);

/* Polls @done every @stepMs until it is true or @timeoutMs passed. */
bool waitUntil(const std::function<bool()> &done, int timeoutMs, int stepMs = 10);

/*
 * Runs @body in a child process, which exits with what it returns (0 for
 * success); the child must not use googletest's assertions. Returns the pid.
 */
pid_t forkChild(const std::function<int()> &body);
/*
 * forkChild() for a child that prepares something and then waits, with
 * all it holds, to be killed: @body calls its argument once it is ready
 * (that call does not return), or returns an exit status. Returns the pid
 * once the child is ready; -1 if it failed (it is reaped then).
 */
pid_t forkReadyChild(const std::function<int(const std::function<void()> &ready)> &body);
/*
 * Waits up to @timeoutMs for child @pid and returns its exit status,
 * 128 + signal if a signal ended it, or -1 on timeout (the child is then
 * killed).
 */
int waitChild(pid_t pid, int timeoutMs = 60000);

} /* namespace guest */
