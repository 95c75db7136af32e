/* SPDX-License-Identifier: MIT */
/*
 * What the programs written against the OpenVX API share (vdla-demo,
 * vdla-bench-vx): error reporting, where the first call that fails is
 * printed with its status and what the library logged, and remembered, so
 * that a program can build a whole graph, check once and exit non-zero; and
 * the registration of a user kernel from one tensor to another.
 */
#pragma once

#include <VX/vx.h>

#include <cstdio>
#include <string>

class VxCheck
{
public:
	explicit VxCheck(const char *program) : program_(program) { }

	/* Keeps the context's log messages, for the report of a failure. */
	void attach(vx_context context)
	{
		current_ = this;
		vxRegisterLogCallback(context, log, vx_false_e);
	}

	/*
	 * True if @status is VX_SUCCESS; otherwise reports @call with what the
	 * library logged since the previous check.
	 */
	bool status(vx_status status, const std::string &call)
	{
		if (status == VX_SUCCESS) {
			lastLog_.clear();
		} else if (first_ == VX_SUCCESS) {
			first_ = status;
			std::fprintf(stderr, "%s: %s failed: %s (%d)%s%s\n", program_, call.c_str(),
				name(status), status, lastLog_.empty() ? "" : ": ",
				lastLog_.c_str());
		}
		return status == VX_SUCCESS;
	}

	/* @object, after reporting @call if it is an error object. */
	template <typename T> T object(T object, const std::string &call)
	{
		status(vxGetStatus(reinterpret_cast<vx_reference>(object)), call);
		return object;
	}

	bool ok() const { return first_ == VX_SUCCESS; }
	/* What the library logged since the last successful check. */
	const std::string &lastLog() const { return lastLog_; }

	static const char *name(vx_status status)
	{
		static const char *const kNames[] = { "VX_SUCCESS", "VX_FAILURE",
			"VX_ERROR_NOT_IMPLEMENTED", "VX_ERROR_NOT_SUPPORTED",
			"VX_ERROR_NOT_SUFFICIENT", "VX_ERROR_NOT_ALLOCATED",
			"VX_ERROR_NOT_COMPATIBLE", "VX_ERROR_NO_RESOURCES", "VX_ERROR_NO_MEMORY",
			"VX_ERROR_OPTIMIZED_AWAY", "VX_ERROR_INVALID_PARAMETERS",
			"VX_ERROR_INVALID_MODULE", "VX_ERROR_INVALID_REFERENCE",
			"VX_ERROR_INVALID_LINK", "VX_ERROR_INVALID_FORMAT",
			"VX_ERROR_INVALID_DIMENSION", "VX_ERROR_INVALID_VALUE",
			"VX_ERROR_INVALID_TYPE", "VX_ERROR_INVALID_GRAPH", "VX_ERROR_INVALID_NODE",
			"VX_ERROR_INVALID_SCOPE", "VX_ERROR_GRAPH_SCHEDULED",
			"VX_ERROR_GRAPH_ABANDONED", "VX_ERROR_MULTIPLE_WRITERS",
			"VX_ERROR_REFERENCE_NONZERO" };
		const int index = -status;
		if (index < 0 || index >= int(sizeof(kNames) / sizeof(kNames[0])))
			return "unknown status";
		return kNames[index];
	}

private:
	static void VX_CALLBACK log(vx_context, vx_reference, vx_status, const vx_char message[])
	{
		current_->lastLog_ = message;
	}

	static inline VxCheck *current_ = nullptr;
	const char *program_;
	vx_status first_ = VX_SUCCESS;
	std::string lastLog_;
};

/*
 * Registers the user kernel @name with parameters 0 (input tensor) and 1
 * (output tensor), both required.
 */
inline vx_kernel addTensorKernel(VxCheck &check, vx_context context, const std::string &name,
	vx_kernel_f run, vx_kernel_validate_f validate)
{
	vx_enum id = 0;
	check.status(vxAllocateUserKernelId(context, &id), "vxAllocateUserKernelId");
	vx_kernel kernel = check.object(
		vxAddUserKernel(context, name.c_str(), id, run, 2, validate, nullptr, nullptr),
		"vxAddUserKernel(" + name + ")");
	check.status(vxAddParameterToKernel(
			     kernel, 0, VX_INPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED),
		"vxAddParameterToKernel(" + name + " input)");
	check.status(vxAddParameterToKernel(
			     kernel, 1, VX_OUTPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED),
		"vxAddParameterToKernel(" + name + " output)");
	check.status(vxFinalizeKernel(kernel), "vxFinalizeKernel(" + name + ")");
	return kernel;
}
