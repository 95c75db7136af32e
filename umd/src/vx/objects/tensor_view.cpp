/* SPDX-License-Identifier: MIT */
/*
 * Tensors on the application's memory (vxCreateTensorFromHandle,
 * vxSwapTensorHandle) and views of part of another tensor's memory
 * (vxCreateTensorFromView). Graphs order the nodes touching overlapping
 * parts of one memory like the producer and consumers of one object
 * (sharesMemory()). DLA tasks address views of tensors owning their
 * memory in place and work on packed copies of the application's memory
 * (tensor_layout.h).
 */

#include "objects/tensor_layout.h"

#include <algorithm>
#include <numeric>

using namespace vdla::vx;

namespace {

/*
 * Whether @strides lay out @dims elements of @elementSize bytes without two
 * elements sharing a byte, each element aligned: taken in the order of
 * their strides, each dimension steps over the whole extent of the ones
 * before it. The order is free, so that permuted layouts (channels
 * innermost, for example) work as well as the one the specification shows.
 */
bool disjointElements(const std::vector<vx_size> &dims, const vx_size *strides, vx_size elementSize)
{
	std::vector<size_t> order(dims.size());
	std::iota(order.begin(), order.end(), 0);
	std::sort(order.begin(), order.end(),
		[&](size_t a, size_t b) { return strides[a] < strides[b]; });
	vx_size extent = elementSize;
	for (size_t d : order) {
		if (dims[d] == 1)
			continue;
		if (strides[d] % elementSize || strides[d] < extent)
			return false;
		extent = strides[d] * dims[d];
	}
	return true;
}

} /* namespace */

extern "C" {

vx_tensor vxCreateTensorFromHandle(vx_context context, vx_size number_of_dims, const vx_size *dims,
	vx_enum data_type, vx_int8 fixed_point_position, const vx_size *stride, void *ptr,
	vx_enum memory_type)
try {
	ApiLock lock(apiLock());
	if (!isValid(context, VX_TYPE_CONTEXT))
		return nullptr;
	if (number_of_dims == 0 || number_of_dims > 6 || !dims
		|| std::find(dims, dims + number_of_dims, 0) != dims + number_of_dims)
		return errorAs<vx_tensor>(context, VX_ERROR_INVALID_DIMENSION);
	if (!isTensorType(data_type))
		return errorAs<vx_tensor>(context, VX_ERROR_NOT_SUPPORTED);
	if (!tensorSizeFits(dims, number_of_dims, typeSize(data_type)))
		return errorAs<vx_tensor>(context, VX_ERROR_INVALID_DIMENSION);
	/*
	 * A NULL ptr makes a tensor without memory, as vxSwapTensorHandle with
	 * NULL leaves one: maps, copies and graphs give VX_ERROR_NO_MEMORY
	 * until a swap gives it memory.
	 */
	if (memory_type != VX_MEMORY_TYPE_HOST || !stride) {
		log(context, VX_ERROR_INVALID_PARAMETERS, "vxCreateTensorFromHandle: %s",
			memory_type != VX_MEMORY_TYPE_HOST
				? "the memory type must be VX_MEMORY_TYPE_HOST"
				: "no strides");
		return errorAs<vx_tensor>(context, VX_ERROR_INVALID_PARAMETERS);
	}
	const vx_size element = typeSize(data_type);
	const std::vector<vx_size> extents(dims, dims + number_of_dims);
	if (reinterpret_cast<uintptr_t>(ptr) % element
		|| !disjointElements(extents, stride, element)) {
		log(context, VX_ERROR_INVALID_PARAMETERS,
			"vxCreateTensorFromHandle: the memory is not aligned to the %zu-byte "
			"elements, or the strides make elements overlap",
			size_t(element));
		return errorAs<vx_tensor>(context, VX_ERROR_INVALID_PARAMETERS);
	}

	auto tensor = newTensor(context, number_of_dims, dims, data_type, fixed_point_position);
	tensor->fromHandle = true;
	tensor->handle = static_cast<uint8_t *>(ptr);
	tensor->handleStrides.assign(stride, stride + number_of_dims);
	return registerNew(std::move(tensor), Count::External);
}
VX_API_CATCH(nullptr)

vx_status vxSwapTensorHandle(vx_tensor tensor, void *new_ptr, void **prev_ptr)
try {
	ApiLock lock(apiLock());
	if (!isValid(tensor, VX_TYPE_TENSOR))
		return VX_ERROR_INVALID_REFERENCE;
	/* Views were not created from handle, even those of one. */
	if (!tensor->fromHandle)
		return VX_ERROR_INVALID_PARAMETERS;
	if (new_ptr && reinterpret_cast<uintptr_t>(new_ptr) % tensor->elementSize())
		return VX_ERROR_INVALID_PARAMETERS;
	/* Mapped through the tensor itself or one of its views. */
	if (tensor->openMaps)
		return VX_FAILURE;
	if (prev_ptr)
		*prev_ptr = tensor->handle;
	tensor->handle = static_cast<uint8_t *>(new_ptr);
	tensor->writes++;
	tensor->context->handleSwaps++;
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_tensor vxCreateTensorFromView(vx_tensor tensor, vx_size number_of_dims,
	const vx_size *view_start, const vx_size *view_end)
try {
	ApiLock lock(apiLock());
	if (!isValid(tensor, VX_TYPE_TENSOR))
		return nullptr;
	/* A virtual tensor's memory is the graph's to place (SRAM, or none). */
	if (tensor->isVirtual) {
		log(tensor, VX_ERROR_NOT_SUPPORTED,
			"vxCreateTensorFromView: the tensor is virtual");
		return errorAs<vx_tensor>(tensor->context, VX_ERROR_NOT_SUPPORTED);
	}
	vx_status status = checkTensorView(tensor, number_of_dims, view_start, view_end);
	if (status != VX_SUCCESS) {
		log(tensor, status,
			"vxCreateTensorFromView: the view is not a non-empty box of "
			"the tensor with its number of dimensions");
		return errorAs<vx_tensor>(tensor->context, status);
	}

	std::vector<vx_size> dims(number_of_dims);
	for (vx_size d = 0; d < number_of_dims; d++)
		dims[d] = view_end[d] - view_start[d];
	auto made = newTensor(tensor->context, number_of_dims, dims.data(), tensor->dataType,
		tensor->fixedPointPosition);
	made->root = memoryOwner(tensor);
	made->rootStart.assign(view_start, view_start + number_of_dims);
	for (vx_size d = 0; tensor->root && d < number_of_dims; d++)
		made->rootStart[d] += tensor->rootStart[d];
	vx_tensor view = registerNew(std::move(made), Count::External);
	retain(reinterpret_cast<vx_reference>(view->root), Count::Internal);
	return view;
}
VX_API_CATCH(nullptr)

} /* extern "C" */
