/* SPDX-License-Identifier: MIT */
/* The standard kernels vdla runs on the host CPU. */

#include "object.h"
#include "tensor_layout.h"

#include <algorithm>
#include <limits>

using namespace vdla::vx;

namespace {

constexpr char kTensorAddName[] = "org.khronos.openvx.tensor_add";

vx_enum scalarEnum(vx_reference ref)
{
	auto scalar = reinterpret_cast<vx_scalar>(ref);
	vx_enum value = 0;
	if (scalar->value.size() == sizeof(value))
		std::copy_n(
			scalar->value.data(), sizeof(value), reinterpret_cast<uint8_t *>(&value));
	return value;
}

vx_status VX_CALLBACK validateTensorAdd(
	vx_node, const vx_reference parameters[], vx_uint32 num, vx_meta_format metas[])
{
	if (num != 4)
		return VX_ERROR_INVALID_PARAMETERS;
	auto a = reinterpret_cast<vx_tensor>(parameters[0]);
	auto b = reinterpret_cast<vx_tensor>(parameters[1]);
	auto policy = reinterpret_cast<vx_scalar>(parameters[2]);
	if (a->dims != b->dims)
		return VX_ERROR_INVALID_DIMENSION;
	if (a->dataType != b->dataType || a->fixedPointPosition != b->fixedPointPosition)
		return VX_ERROR_INVALID_FORMAT;
	if (policy->dataType != VX_TYPE_ENUM)
		return VX_ERROR_INVALID_TYPE;
	vx_enum mode = scalarEnum(parameters[2]);
	if (mode != VX_CONVERT_POLICY_WRAP && mode != VX_CONVERT_POLICY_SATURATE)
		return VX_ERROR_INVALID_VALUE;
	return vxSetMetaFormatFromReference(metas[3], parameters[0]);
}

template <typename T> void addElements(const T *a, const T *b, T *out, vx_size count, bool saturate)
{
	for (vx_size i = 0; i < count; i++) {
		if constexpr (std::is_floating_point_v<T>) {
			out[i] = a[i] + b[i];
		} else {
			int64_t sum = int64_t(a[i]) + int64_t(b[i]);
			if (saturate)
				sum = std::clamp<int64_t>(sum, std::numeric_limits<T>::min(),
					std::numeric_limits<T>::max());
			out[i] = static_cast<T>(sum);
		}
	}
}

/*
 * The elements of @tensor packed: its memory when it owns packed memory,
 * else a packed copy in @copy (of the tensor's values when @read).
 */
uint8_t *packedElements(vx_tensor tensor, std::vector<uint8_t> &copy, bool read)
{
	uint8_t *memory = tensor->storage();
	if (!memory || ownsPackedMemory(tensor))
		return memory;
	copy.resize(tensor->byteSize());
	if (read)
		readPacked(tensor, copy.data());
	return copy.data();
}

vx_status VX_CALLBACK runTensorAdd(vx_node, const vx_reference *parameters, vx_uint32)
{
	ApiLock lock(apiLock());
	auto a = reinterpret_cast<vx_tensor>(parameters[0]);
	auto b = reinterpret_cast<vx_tensor>(parameters[1]);
	auto out = reinterpret_cast<vx_tensor>(parameters[3]);
	const bool saturate = scalarEnum(parameters[2]) == VX_CONVERT_POLICY_SATURATE;
	const vx_size count = a->byteSize() / a->elementSize();
	std::vector<uint8_t> copyA, copyB, copyOut;
	const uint8_t *pa = packedElements(a, copyA, true);
	const uint8_t *pb = packedElements(b, copyB, true);
	uint8_t *po = packedElements(out, copyOut, false);
	if (!pa || !pb || !po)
		return VX_ERROR_NO_MEMORY;

	switch (a->dataType) {
	case VX_TYPE_INT8:
		addElements(reinterpret_cast<const int8_t *>(pa), reinterpret_cast<const int8_t *>(pb),
			reinterpret_cast<int8_t *>(po), count, saturate);
		break;
	case VX_TYPE_UINT8:
		addElements(pa, pb, po, count, saturate);
		break;
	case VX_TYPE_INT16:
		addElements(reinterpret_cast<const int16_t *>(pa),
			reinterpret_cast<const int16_t *>(pb), reinterpret_cast<int16_t *>(po), count,
			saturate);
		break;
	case VX_TYPE_FLOAT32:
		addElements(reinterpret_cast<const float *>(pa), reinterpret_cast<const float *>(pb),
			reinterpret_cast<float *>(po), count, saturate);
		break;
	default:
		return VX_ERROR_NOT_SUPPORTED;
	}
	if (po == copyOut.data())
		writePacked(out, po);
	return VX_SUCCESS;
}

} /* namespace */

namespace vdla::vx {

void addBuiltinKernels(vx_context context)
{
	auto kernel = new _vx_kernel(context);
	kernel->kernelName = kTensorAddName;
	kernel->enumeration = VX_KERNEL_TENSOR_ADD;
	kernel->function = runTensorAdd;
	kernel->validate = validateTensorAdd;
	kernel->parameters = {
		{ true, VX_INPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED },
		{ true, VX_INPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED },
		{ true, VX_INPUT, VX_TYPE_SCALAR, VX_PARAMETER_STATE_REQUIRED },
		{ true, VX_OUTPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED },
	};
	kernel->finalized = true;
	kernel->user = false;
	registerReference(kernel, Count::Internal);
	context->kernels.push_back(kernel);
}

} /* namespace vdla::vx */

extern "C" vx_node vxTensorAddNode(
	vx_graph graph, vx_tensor input1, vx_tensor input2, vx_enum policy, vx_tensor output)
{
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	vx_kernel kernel = vxGetKernelByEnum(graph->context, VX_KERNEL_TENSOR_ADD);
	vx_node node = vxCreateGenericNode(graph, kernel);
	vxReleaseKernel(&kernel);
	if (vxGetStatus(reinterpret_cast<vx_reference>(node)) != VX_SUCCESS)
		return node;

	vx_scalar policyScalar = vxCreateScalar(graph->context, VX_TYPE_ENUM, &policy);
	const vx_reference parameters[]
		= { reinterpret_cast<vx_reference>(input1), reinterpret_cast<vx_reference>(input2),
			  reinterpret_cast<vx_reference>(policyScalar),
			  reinterpret_cast<vx_reference>(output) };
	vx_status status = VX_SUCCESS;
	for (vx_uint32 i = 0; i < 4 && status == VX_SUCCESS; i++)
		status = vxSetParameterByIndex(node, i, parameters[i]);
	vxReleaseScalar(&policyScalar);
	if (status != VX_SUCCESS) {
		vxRemoveNode(&node);
		return errorAs<vx_node>(graph->context, status);
	}
	return node;
}
