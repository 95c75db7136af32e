/* SPDX-License-Identifier: MIT */
/*
 * vdla::OpStats: what the device did for each operation of a completed job,
 * from its per-operation counters (docs/hw-spec.md, "Per-operation
 * counters"): device time, multiply-accumulates, bytes read and written.
 * Context::submit() with an OpStatsTarget has the kernel write them into a
 * buffer (DRM_VDLA_SUBMIT_OP_STATS, driver 1.3); OpStats::read() decodes
 * them once the job's fence has signalled.
 */
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include <vdla/result.h>

namespace vdla {

class Buffer;

struct OpStats {
	/* Device time of the operation; fused members each report the chain's time. */
	std::chrono::nanoseconds deviceTime{ 0 };
	uint64_t macs = 0;
	uint64_t bytesRead = 0;
	uint64_t bytesWritten = 0;

	/* Bytes of one operation's record (struct drm_vdla_op_stats). */
	static constexpr uint64_t kRecordBytes = 32;
	/* Bytes the records of @numOps operations take. */
	static constexpr uint64_t bytesFor(uint32_t numOps) { return numOps * kRecordBytes; }

	/* Decodes @numOps records at @data (any alignment). */
	static std::vector<OpStats> parse(const uint8_t *data, uint32_t numOps);

	/*
	 * Maps @buffer (if it is not yet) and decodes the @numOps records at
	 * @offset. Call it once the job's fence has signalled without error:
	 * before that, or after a failed job, the bytes are whatever the
	 * buffer held. Errors: EINVAL (the records do not fit in the
	 * buffer), those of Buffer::map().
	 */
	static Result<std::vector<OpStats>> read(Buffer &buffer, uint64_t offset, uint32_t numOps);
};

/*
 * Where Context::submit() has the kernel write the statistics of a job: a
 * read-write buffer of the Context's Device with OpStats::bytesFor(number of
 * operations) bytes from @offset. The job counts as writing the buffer, so
 * Buffer::wait() and the implicit fences order readers after it. No buffer:
 * no statistics.
 */
struct OpStatsTarget {
	const Buffer *buffer = nullptr;
	uint64_t offset = 0;
	/*
	 * Only deviceTime is measured, the other counters read 0: one
	 * register read per operation for the driver instead of four
	 * (driver 1.7; EOPNOTSUPP before).
	 */
	bool timeOnly = false;
};

} /* namespace vdla */
