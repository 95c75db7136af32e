/* SPDX-License-Identifier: MIT */
/*
 * vdla::Task: a task ready to submit, as TaskBuilder::build() makes it: a
 * descriptor buffer holding the task (uapi/drm/vdla_task.h) and the address
 * list its operations name buffers by. A Task is cheap to copy (copies share
 * the descriptor) and may be submitted any number of times.
 */
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace vdla {

class Buffer;

/* One address-list entry: a buffer (by GEM handle) from an offset. */
struct TaskAddress {
	uint32_t handle = 0;
	/* The job may write the buffer (implicit fencing orders it after every earlier job). */
	bool write = false;
	uint64_t offset = 0;
};

class Task
{
public:
	Task() = default;

	/* The address list, the descriptor buffer last. */
	const std::vector<TaskAddress> &addresses() const { return addresses_; }
	/* The address-list index of the descriptor buffer. */
	uint32_t descriptorIndex() const { return uint32_t(addresses_.size()) - 1; }
	/* The buffer holding header and operations; nullptr for a default Task. */
	const Buffer *descriptor() const { return descriptor_.get(); }
	uint32_t numOps() const { return numOps_; }

	/*
	 * Names @buffer at address-list entry @index (not the descriptor's)
	 * instead of the buffer it named, from offset 0: the same operations
	 * on other memory. SUBMIT checks again that every operation fits in
	 * it. Returns false, changing nothing, for an index out of range or
	 * the descriptor's.
	 */
	bool rebind(uint32_t index, const Buffer &buffer);

private:
	friend class TaskBuilder;

	std::vector<TaskAddress> addresses_;
	std::shared_ptr<Buffer> descriptor_;
	uint32_t numOps_ = 0;
};

/*
 * Where the firmware found a task wrong (DRM_IOCTL_VDLA_SUBMIT's error_*
 * fields, or dla_get_task_result on the host), with its text in the
 * firmware's words: "op 4, src.dtype: not a valid value".
 */
struct TaskError {
	/* The operation, or kHeader. */
	uint32_t op = 0;
	/* enum dla_field of the firmware (firmware/include/dla_interface.h). */
	uint32_t field = 0;
	/* enum dla_reason. */
	uint32_t reason = 0;
	/* The tensor or table (an enum dla_field) the field belongs to, or 0. */
	uint32_t operand = 0;

	static constexpr uint32_t kHeader = 0xffffffffu;

	std::string toString() const;
};

/* The firmware's names of enum dla_field and enum dla_reason values. */
const char *taskFieldName(uint32_t field);
const char *taskReasonName(uint32_t reason);

} /* namespace vdla */
