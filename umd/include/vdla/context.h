/* SPDX-License-Identifier: MIT */
/*
 * vdla::Context: a queue of jobs with a priority. Jobs of one context run in
 * submission order; docs/kmd.md gives the scheduling between contexts.
 */
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include <vdla/op_stats.h>
#include <vdla/result.h>
#include <vdla/task.h>

namespace vdla {

class Device;
class Fence;
class Lease;

enum class Priority {
	Low = 0,
	Normal = 1,
	High = 2,
};

/* What CTX_QUERY reports of a context. */
struct ContextStatus {
	/* A job of the context faulted or hung: every later submit fails with ECANCELED. */
	bool banned = false;
	Priority priority = Priority::Normal;
	uint64_t jobsSubmitted = 0;
	/* Jobs that ended successfully. */
	uint64_t jobsCompleted = 0;
	/* Jobs that ended with an error or were cancelled. */
	uint64_t jobsFailed = 0;
	/* Times a job was stopped at an operation boundary for another context. */
	uint64_t jobsPreempted = 0;
	/* Device time the context's jobs used. */
	std::chrono::nanoseconds busy{ 0 };
	/* The last failed job: its errno (positive, 0 if none) ... */
	int lastError = 0;
	/* ... the device's STAT_ERROR, the operation, and the last MMU fault. */
	uint32_t hwError = 0;
	uint32_t errorOp = 0;
	uint32_t faultStatus = 0;
	uint64_t faultAddress = 0;
};

/* A fence a job waits for or signals; @point for a timeline fence. */
struct SyncPoint {
	const Fence *fence = nullptr;
	uint64_t point = 0;
};

/* What a job adds to its task (Context::submit()). */
struct SubmitOptions {
	/* Per-operation statistics, as the OpStatsTarget overload. */
	OpStatsTarget stats;
	/*
	 * The lease the job uses: needed for buffers of an SRAM partition
	 * (driver 1.10). A lease revoked meanwhile makes the submit fail with
	 * ECANCELED. A time share held by another context of the Device:
	 * this context joins the share (driver 1.11).
	 */
	const Lease *lease = nullptr;
	/*
	 * The job opens, or closes, a frame: the jobs a lease is never taken
	 * from in the middle of (docs/resources.md; driver 1.10). Both: a frame
	 * of one job.
	 */
	bool frameBegin = false;
	bool frameEnd = false;
};

class Context
{
public:
	/* Errors: EMFILE (256 contexts on this Device), ENOMEM. */
	static Result<std::unique_ptr<Context>> create(
		Device &device, Priority priority = Priority::Normal);

	/*
	 * Destroys the context: jobs whose dependencies have signalled still
	 * run; the others fail with ESRCH after at most a second.
	 */
	~Context();
	Context(const Context &) = delete;
	Context &operator=(const Context &) = delete;

	Device &device() const;
	uint32_t id() const;
	Priority priority() const;

	Result<ContextStatus> query() const;

	/*
	 * Queues @task as a job that starts once every fence of @waits has
	 * signalled (and earlier jobs using its buffers, by the write flags of
	 * its address list), and signals @signal (if given) when it ends.
	 * Returns the job's sequence number in the context, from 1. Never
	 * waits for the device.
	 *
	 * Errors: EINVAL (the firmware refused the task: the reason names the
	 * operation, field and why, and taskError() has them; or the task was
	 * built for, or a fence belongs to, another Device: GEM handles and
	 * syncobjs mean something only in their own file), ENOENT (a
	 * buffer or fence that does not exist, a wait point with no fence
	 * yet), EACCES (a read-only buffer marked for writing), ECANCELED (the
	 * context is banned), E2BIG (too many addresses or waits), ENOMEM.
	 * How the job ended is the status of @signal's fence.
	 */
	Result<uint64_t> submit(const Task &task, const std::vector<SyncPoint> &waits = {},
		const SyncPoint &signal = {});

	/*
	 * As above, and if the job completes successfully the kernel writes
	 * the statistics of each of the task's operations to @stats before
	 * @signal signals: OpStats::read(buffer, offset, task.numOps()) decodes
	 * them. A job preempted and resumed reports each operation once, as
	 * an uninterrupted run would; a failed job writes nothing. A target
	 * without a buffer submits without statistics.
	 *
	 * Errors, besides those above: EOPNOTSUPP (the driver is older than
	 * 1.3), EINVAL (a buffer of another Device, or too small from the
	 * offset), EACCES (a read-only buffer).
	 */
	Result<uint64_t> submit(const Task &task, const std::vector<SyncPoint> &waits,
		const SyncPoint &signal, const OpStatsTarget &stats);

	/*
	 * As above, with a lease and a frame bracket. Errors, besides those
	 * above: EOPNOTSUPP (a lease or a frame before driver 1.10), EINVAL (a
	 * lease of another context that is not a time share, or of another
	 * Device, a frame begun inside a frame or ended
	 * outside one), ECANCELED (the lease is not held: waiting, released or
	 * revoked), EACCES (a buffer of a partition without its lease). A name
	 * of its own: braces that build an OpStatsTarget would build a
	 * SubmitOptions as well.
	 */
	Result<uint64_t> submitWithOptions(const Task &task, const std::vector<SyncPoint> &waits,
		const SyncPoint &signal, const SubmitOptions &options);

	/*
	 * Whether later jobs also wait for the implicit fences of their
	 * buffers (earlier writers of what they read, every earlier user of
	 * what they write), as they do by default. Off, a job waits for its
	 * waits alone: explicit synchronisation, as jobs ordered by fences
	 * shared between processes want, without false dependencies on other
	 * users of a buffer; its own fence still goes on its buffers. Off
	 * needs driver 1.9: submit() fails with EOPNOTSUPP before.
	 */
	void setImplicitSync(bool enabled);
	bool implicitSync() const;

	/* What the firmware found wrong in the task the last submit refused. */
	const TaskError &taskError() const;

private:
	class Private;
	explicit Context(std::unique_ptr<Private> d);
	std::unique_ptr<Private> d_;
};

} /* namespace vdla */
