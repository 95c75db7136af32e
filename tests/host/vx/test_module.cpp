/* SPDX-License-Identifier: MIT */
/*
 * A kernel module for vxLoadKernels: publishes vdla.test.module.negate (INT8
 * tensor in, INT8 tensor out). Its OpenVX calls resolve against the test
 * executable, which exports libvdla's symbols.
 */
#include <VX/vx.h>

namespace {

constexpr char kName[] = "vdla.test.module.negate";

vx_status VX_CALLBACK validate(
	vx_node, const vx_reference parameters[], vx_uint32, vx_meta_format metas[])
{
	return vxSetMetaFormatFromReference(metas[1], parameters[0]);
}

vx_status VX_CALLBACK negate(vx_node, const vx_reference *parameters, vx_uint32)
{
	auto in = reinterpret_cast<vx_tensor>(parameters[0]);
	auto out = reinterpret_cast<vx_tensor>(parameters[1]);
	vx_size dims[1] = {}, start[1] = {}, stride[1] = { 1 };
	vxQueryTensor(in, VX_TENSOR_DIMS, dims, sizeof(dims));
	vx_int8 values[64];
	if (dims[0] > sizeof(values))
		return VX_ERROR_NOT_SUPPORTED;
	vxCopyTensorPatch(in, 1, start, dims, stride, values, VX_READ_ONLY, VX_MEMORY_TYPE_HOST);
	for (vx_size i = 0; i < dims[0]; i++)
		values[i] = static_cast<vx_int8>(-values[i]);
	return vxCopyTensorPatch(
		out, 1, start, dims, stride, values, VX_WRITE_ONLY, VX_MEMORY_TYPE_HOST);
}

} /* namespace */

extern "C" VX_API_ENTRY vx_status VX_API_CALL vxPublishKernels(vx_context context)
{
	vx_enum library = 0;
	vx_status status = vxAllocateUserKernelLibraryId(context, &library);
	if (status != VX_SUCCESS)
		return status;
	vx_kernel kernel = vxAddUserKernel(context, kName, VX_KERNEL_BASE(VX_ID_USER, library),
		negate, 2, validate, nullptr, nullptr);
	status = vxGetStatus(reinterpret_cast<vx_reference>(kernel));
	if (status == VX_SUCCESS)
		status = vxAddParameterToKernel(
			kernel, 0, VX_INPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED);
	if (status == VX_SUCCESS)
		status = vxAddParameterToKernel(
			kernel, 1, VX_OUTPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED);
	if (status == VX_SUCCESS)
		status = vxFinalizeKernel(kernel);
	if (status != VX_SUCCESS) {
		vxRemoveKernel(kernel);
		return status;
	}
	return vxReleaseKernel(&kernel);
}

extern "C" VX_API_ENTRY vx_status VX_API_CALL vxUnpublishKernels(vx_context context)
{
	vx_kernel kernel = vxGetKernelByName(context, kName);
	return vxRemoveKernel(kernel);
}
