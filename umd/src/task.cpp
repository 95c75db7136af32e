/* SPDX-License-Identifier: MIT */
/*
 * Rebinding a task's buffers, and the firmware's names of its validation
 * fields and reasons, so that a refused task reads as the firmware would
 * print it. The values are enum
 * dla_field and enum dla_reason of firmware/include/dla_interface.h; the
 * host test UmdTaskNames checks each name against dla_field_name() and
 * dla_reason_name() of the firmware library.
 */
#include <vdla/task.h>

#include <vdla/buffer.h>

#include <iterator>

namespace vdla {

namespace {

const char *const kFieldNames[] = {
	"none",
	"magic",
	"version",
	"num_ops",
	"ops_offset",
	"flags",
	"reserved",
	"descriptor",
	"context",
	"engine",
	"dependency_count",
	"fused_parent",
	"consumers.index",
	"consumers.event",
	"src",
	"dst",
	"wgt",
	"ew",
	"bias",
	"scale",
	"lut",
	"address.index",
	"address.offset",
	"dtype",
	"dims",
	"strides",
	"line_bytes",
	"lines",
	"surfaces",
	"kernel",
	"stride",
	"padding",
	"dilation",
	"groups",
	"pad_value",
	"fly",
	"mode",
	"round",
	"shift",
	"clip",
	"size",
	"perm",
	"block",
};

const char *const kReasonNames[] = {
	"no error",
	"must be zero",
	"not a valid value",
	"out of range",
	"size overflows",
	"reaches beyond its buffer",
	"index out of range",
	"dependency link to an earlier operation",
	"dependency_count differs from the links to this operation",
	"inconsistent dimensions",
	"unsupported data type",
	"inconsistent fused chain",
	"cannot be read",
};

} /* namespace */

const char *taskFieldName(uint32_t field)
{
	return field < std::size(kFieldNames) ? kFieldNames[field] : "unknown field";
}

const char *taskReasonName(uint32_t reason)
{
	return reason < std::size(kReasonNames) ? kReasonNames[reason] : "unknown reason";
}

std::string TaskError::toString() const
{
	std::string where = op == kHeader ? "header" : "op " + std::to_string(op);
	std::string field_ = taskFieldName(field);
	/* A whole operand (out of its buffer) is reported as its own field: "src". */
	if (operand && operand != field)
		field_ = std::string(taskFieldName(operand)) + "." + field_;
	return where + ", " + field_ + ": " + taskReasonName(reason);
}

bool Task::rebind(uint32_t index, const Buffer &buffer)
{
	if (addresses_.empty() || index >= descriptorIndex())
		return false;
	addresses_[index].handle = buffer.handle();
	addresses_[index].offset = 0;
	return true;
}

} /* namespace vdla */
