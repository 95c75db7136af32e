/* SPDX-License-Identifier: MIT */
#include <vdla/op_stats.h>

#include <cerrno>
#include <cstring>
#include <string>

#include <drm/vdla_accel.h>

#include <vdla/buffer.h>

namespace vdla {

static_assert(sizeof(drm_vdla_op_stats) == OpStats::kRecordBytes,
	"OpStats::kRecordBytes is the kernel's record");

std::vector<OpStats> OpStats::parse(const uint8_t *data, uint32_t numOps)
{
	std::vector<OpStats> stats(numOps);
	for (uint32_t i = 0; i < numOps; i++) {
		drm_vdla_op_stats record;
		std::memcpy(&record, data + i * kRecordBytes, sizeof(record));
		stats[i].deviceTime = std::chrono::nanoseconds(record.device_ns);
		stats[i].macs = record.macs;
		stats[i].bytesRead = record.bytes_read;
		stats[i].bytesWritten = record.bytes_written;
	}
	return stats;
}

Result<std::vector<OpStats>> OpStats::read(Buffer &buffer, uint64_t offset, uint32_t numOps)
{
	if (offset > buffer.size() || bytesFor(numOps) > buffer.size() - offset)
		return Error(EINVAL,
			"the statistics of " + std::to_string(numOps) + " operations at offset "
				+ std::to_string(offset) + " do not fit in a buffer of "
				+ std::to_string(buffer.size()) + " bytes");
	auto data = buffer.map();
	if (!data)
		return data.error();
	return parse(*data + offset, numOps);
}

} /* namespace vdla */
