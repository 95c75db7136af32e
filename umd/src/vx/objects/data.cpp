/* SPDX-License-Identifier: MIT */
/* Scalars and tensors. */

#include "framework/object.h"
#include "objects/tensor_layout.h"


#include <cstring>

using namespace vdla::vx;

vx_size _vx_tensor_t::elementSize() const
{
	return typeSize(dataType);
}

vx_size _vx_tensor_t::byteSize() const
{
	vx_size size = elementSize();
	for (vx_size dim : dims)
		size *= dim;
	return size;
}

std::vector<vx_size> _vx_tensor_t::strides() const
{
	if (root)
		return root->strides();
	if (fromHandle)
		return handleStrides;
	return packedStrides(dims, elementSize());
}

bool vdla::vx::tensorSizeFits(const vx_size *dims, vx_size count, vx_size elementSize)
{
	constexpr vx_size kLimit = vx_size(1) << 48;
	vx_size bytes = elementSize;
	for (vx_size i = 0; i < count; i++)
		if (__builtin_mul_overflow(bytes, dims[i], &bytes) || bytes >= kLimit)
			return false;
	return true;
}

uint8_t *_vx_tensor_t::storage()
{
	if (root) {
		uint8_t *base = root->storage();
		return base ? base + offsetInRoot(this) : nullptr;
	}
	if (fromHandle)
		return handle;
	if (externalBuffer)
		return placed ? placed->data() : nullptr;
	if (placed && placed->data() && placed->size() >= byteSize())
		return placed->data();
	/* Memory the system cannot give is VX_ERROR_NO_MEMORY for the caller,
	 * never an exception through the C API. */
	try {
		if (data.size() != byteSize())
			data.assign(byteSize(), 0);
	} catch (const std::bad_alloc &) {
		return nullptr;
	}
	return data.data();
}

void _vx_tensor_t::dropHostData()
{
	if (cpuUsers)
		retired.push_back(std::move(data));
	std::vector<uint8_t>().swap(data);
}

void _vx_tensor_t::teardown()
{
	if (scope)
		release(reinterpret_cast<vx_reference>(scope), Count::Internal);
	if (root)
		release(reinterpret_cast<vx_reference>(root), Count::Internal);
}

void _vx_scalar::teardown()
{
	if (scope)
		release(reinterpret_cast<vx_reference>(scope), Count::Internal);
}

namespace {

bool isScalarType(vx_enum type)
{
	return typeSize(type) != 0
		|| (type >= VX_TYPE_USER_STRUCT_START && type <= VX_TYPE_VENDOR_STRUCT_END);
}

} /* namespace */

namespace vdla::vx {

vx_status checkTensorView(
	vx_tensor tensor, vx_size numDims, const vx_size *start, const vx_size *end, bool lowerDims)
{
	const bool rankFits = lowerDims ? numDims >= 1 && numDims <= tensor->dims.size()
					: numDims == tensor->dims.size();
	if (!tensor->resolved() || !rankFits || !start || !end)
		return VX_ERROR_INVALID_PARAMETERS;
	for (vx_size i = 0; i < numDims; i++) {
		if (start[i] >= end[i] || end[i] > tensor->dims[i])
			return VX_ERROR_INVALID_PARAMETERS;
	}
	return VX_SUCCESS;
}

std::unique_ptr<_vx_tensor_t> newTensor(vx_context context, vx_size numDims, const vx_size *dims,
	vx_enum dataType, vx_int8 fixedPointPosition)
{
	auto tensor = std::make_unique<_vx_tensor_t>(context);
	if (dims)
		tensor->dims.assign(dims, dims + numDims);
	tensor->dataType = dataType;
	tensor->fixedPointPosition = fixedPointPosition;
	return tensor;
}

bool refusesWrites(vx_tensor tensor, const char *what)
{
	if (!memoryOwner(tensor)->readOnly)
		return false;
	log(tensor, VX_ERROR_NOT_SUPPORTED,
		"%s: the tensor's memory is a read-only buffer: nothing may write it", what);
	return true;
}

} /* namespace vdla::vx */

extern "C" {

vx_scalar vxCreateScalarWithSize(
	vx_context context, vx_enum data_type, const void *ptr, vx_size size)
try {
	ApiLock lock(apiLock());
	if (!isValid(context, VX_TYPE_CONTEXT))
		return nullptr;
	/* A registered user struct has its size; unregistered struct types
	 * (vendors') take the caller's. */
	const vx_size expected = scalarTypeSize(context, data_type);
	if (!isScalarType(data_type) || (expected && size != expected) || size == 0)
		return errorAs<vx_scalar>(context, VX_ERROR_INVALID_TYPE);

	std::vector<uint8_t> value;
	try {
		value.assign(size, 0);
	} catch (const std::exception &) {
		/* bad_alloc or length_error: a size no memory holds. */
		return errorAs<vx_scalar>(context, VX_ERROR_NO_MEMORY);
	}
	auto scalar = std::make_unique<_vx_scalar>(context);
	scalar->dataType = data_type;
	scalar->value = std::move(value);
	if (ptr)
		memcpy(scalar->value.data(), ptr, size);
	return registerNew(std::move(scalar), Count::External);
}
VX_API_CATCH(nullptr)

vx_scalar vxCreateVirtualScalar(vx_graph graph, vx_enum data_type)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	vx_scalar scalar = vxCreateScalar(graph->context, data_type, nullptr);
	if (!isValid(scalar, VX_TYPE_SCALAR))
		return scalar;
	scalar->isVirtual = true;
	scalar->scope = graph;
	retain(graph, Count::Internal);
	return scalar;
}
VX_API_CATCH(nullptr)

vx_scalar vxCreateScalar(vx_context context, vx_enum data_type, const void *ptr)
try {
	ApiLock lock(apiLock());
	const vx_size size
		= isValid(context, VX_TYPE_CONTEXT) ? scalarTypeSize(context, data_type) : 0;
	return vxCreateScalarWithSize(context, data_type, ptr, size);
}
VX_API_CATCH(nullptr)

vx_status vxReleaseScalar(vx_scalar *scalar)
try {
	ApiLock lock(apiLock());
	if (!scalar || !isValid(*scalar, VX_TYPE_SCALAR))
		return VX_ERROR_INVALID_REFERENCE;
	return vxReleaseReference(reinterpret_cast<vx_reference *>(scalar));
}
VX_API_CATCH_STATUS

vx_status vxQueryScalar(vx_scalar scalar, vx_enum attribute, void *ptr, vx_size size)
try {
	ApiLock lock(apiLock());
	if (!isValid(scalar, VX_TYPE_SCALAR))
		return VX_ERROR_INVALID_REFERENCE;
	if (attribute != VX_SCALAR_TYPE)
		return VX_ERROR_NOT_SUPPORTED;
	return writeAttribute<vx_enum>(ptr, size, scalar->dataType);
}
VX_API_CATCH_STATUS

vx_status vxCopyScalarWithSize(
	vx_scalar scalar, vx_size size, void *user_ptr, vx_enum usage, vx_enum user_mem_type)
try {
	ApiLock lock(apiLock());
	if (!isValid(scalar, VX_TYPE_SCALAR))
		return VX_ERROR_INVALID_REFERENCE;
	vx_status status = checkAccessible(scalar->isVirtual, scalar->scope);
	if (status != VX_SUCCESS)
		return status;
	if (!user_ptr || size != scalar->value.size())
		return VX_ERROR_INVALID_PARAMETERS;
	status = checkMemory(usage, user_mem_type, false);
	if (status != VX_SUCCESS)
		return status;
	if (usage == VX_READ_ONLY)
		memcpy(user_ptr, scalar->value.data(), size);
	else
		memcpy(scalar->value.data(), user_ptr, size);
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxCopyScalar(vx_scalar scalar, void *user_ptr, vx_enum usage, vx_enum user_mem_type)
try {
	ApiLock lock(apiLock());
	if (!isValid(scalar, VX_TYPE_SCALAR))
		return VX_ERROR_INVALID_REFERENCE;
	return vxCopyScalarWithSize(scalar, scalar->value.size(), user_ptr, usage, user_mem_type);
}
VX_API_CATCH_STATUS

vx_tensor vxCreateTensor(vx_context context, vx_size number_of_dims, const vx_size *dims,
	vx_enum data_type, vx_int8 fixed_point_position)
try {
	ApiLock lock(apiLock());
	if (!isValid(context, VX_TYPE_CONTEXT))
		return nullptr;
	if (number_of_dims == 0 || number_of_dims > 6 || !dims)
		return errorAs<vx_tensor>(context, VX_ERROR_INVALID_DIMENSION);
	for (vx_size i = 0; i < number_of_dims; i++) {
		if (dims[i] == 0)
			return errorAs<vx_tensor>(context, VX_ERROR_INVALID_DIMENSION);
	}
	if (!isTensorType(data_type))
		return errorAs<vx_tensor>(context, VX_ERROR_NOT_SUPPORTED);
	if (!tensorSizeFits(dims, number_of_dims, typeSize(data_type)))
		return errorAs<vx_tensor>(context, VX_ERROR_INVALID_DIMENSION);
	return registerNew(newTensor(context, number_of_dims, dims, data_type, fixed_point_position),
		Count::External);
}
VX_API_CATCH(nullptr)

vx_tensor vxCreateVirtualTensor(vx_graph graph, vx_size number_of_dims, const vx_size *dims,
	vx_enum data_type, vx_int8 fixed_point_position)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	if (number_of_dims > 6 || (number_of_dims && !dims))
		return errorAs<vx_tensor>(graph->context, VX_ERROR_INVALID_DIMENSION);
	if (data_type != VX_TYPE_INVALID && !isTensorType(data_type))
		return errorAs<vx_tensor>(graph->context, VX_ERROR_NOT_SUPPORTED);
	/* Element size 1 when the type is left open: its own check comes at verification. */
	if (dims && !tensorSizeFits(dims, number_of_dims,
			    data_type == VX_TYPE_INVALID ? 1 : typeSize(data_type)))
		return errorAs<vx_tensor>(graph->context, VX_ERROR_INVALID_DIMENSION);

	auto made = newTensor(graph->context, number_of_dims, dims, data_type, fixed_point_position);
	made->isVirtual = true;
	made->specifiedAtCreation = made->resolved();
	made->scope = graph;
	vx_tensor tensor = registerNew(std::move(made), Count::External);
	retain(graph, Count::Internal);
	return tensor;
}
VX_API_CATCH(nullptr)

vx_status vxReleaseTensor(vx_tensor *tensor)
try {
	ApiLock lock(apiLock());
	if (!tensor || !isValid(*tensor, VX_TYPE_TENSOR))
		return VX_ERROR_INVALID_REFERENCE;
	return vxReleaseReference(reinterpret_cast<vx_reference *>(tensor));
}
VX_API_CATCH_STATUS

vx_status vxQueryTensor(vx_tensor tensor, vx_enum attribute, void *ptr, vx_size size)
try {
	ApiLock lock(apiLock());
	if (!isValid(tensor, VX_TYPE_TENSOR))
		return VX_ERROR_INVALID_REFERENCE;
	switch (attribute) {
	case VX_TENSOR_NUMBER_OF_DIMS:
		return writeAttribute<vx_size>(ptr, size, tensor->dims.size());
	case VX_TENSOR_DIMS:
		if (!ptr || size < tensor->dims.size() * sizeof(vx_size) || size % sizeof(vx_size))
			return VX_ERROR_INVALID_PARAMETERS;
		memcpy(ptr, tensor->dims.data(), tensor->dims.size() * sizeof(vx_size));
		return VX_SUCCESS;
	case VX_TENSOR_DATA_TYPE:
		return writeAttribute<vx_enum>(ptr, size, tensor->dataType);
	case VX_TENSOR_FIXED_POINT_POSITION:
		return writeAttribute<vx_int8>(ptr, size, tensor->fixedPointPosition);
	default:
		return VX_ERROR_NOT_SUPPORTED;
	}
}
VX_API_CATCH_STATUS

vx_status vxCopyTensorPatch(vx_tensor tensor, vx_size number_of_dims, const vx_size *view_start,
	const vx_size *view_end, const vx_size *user_stride, void *user_ptr, vx_enum usage,
	vx_enum user_memory_type)
try {
	ApiLock lock(apiLock());
	if (!isValid(tensor, VX_TYPE_TENSOR))
		return VX_ERROR_INVALID_REFERENCE;
	vx_status status = checkAccessible(tensor->isVirtual, tensor->scope);
	if (status == VX_SUCCESS)
		status = checkTensorView(tensor, number_of_dims, view_start, view_end, true);
	if (status == VX_SUCCESS)
		status = checkMemory(usage, user_memory_type, false);
	if (status != VX_SUCCESS)
		return status;
	if (!user_stride || !user_ptr)
		return VX_ERROR_INVALID_PARAMETERS;
	if (usage != VX_READ_ONLY && refusesWrites(tensor, "vxCopyTensorPatch"))
		return VX_ERROR_NOT_SUPPORTED;

	uint8_t *base = tensor->storage();
	if (!base)
		return VX_ERROR_NO_MEMORY;
	const std::vector<vx_size> strides = tensor->strides();
	for (vx_size d = 0; d < number_of_dims; d++)
		base += view_start[d] * strides[d];
	vx_size patch[kMaxTensorDims];
	for (vx_size d = 0; d < number_of_dims; d++)
		patch[d] = view_end[d] - view_start[d];
	auto user = static_cast<uint8_t *>(user_ptr);
	const vx_size element = tensor->elementSize();
	if (usage == VX_READ_ONLY) {
		copyTensorElements(
			number_of_dims, patch, element, base, strides.data(), user, user_stride);
	} else {
		copyTensorElements(
			number_of_dims, patch, element, user, user_stride, base, strides.data());
		memoryOwner(tensor)->writes++;
	}
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxMapTensorPatch(vx_tensor tensor, vx_size number_of_dims, const vx_size *view_start,
	const vx_size *view_end, vx_map_id *map_id, vx_size *stride, void **ptr, vx_enum usage,
	vx_enum viewer_memory_type)
try {
	ApiLock lock(apiLock());
	if (!isValid(tensor, VX_TYPE_TENSOR))
		return VX_ERROR_INVALID_REFERENCE;
	vx_status status = checkAccessible(tensor->isVirtual, tensor->scope);
	if (status == VX_SUCCESS)
		status = checkTensorView(tensor, number_of_dims, view_start, view_end, true);
	if (status == VX_SUCCESS)
		status = checkMemory(usage, viewer_memory_type, true);
	if (status != VX_SUCCESS)
		return status;
	if (!map_id || !stride || !ptr)
		return VX_ERROR_INVALID_PARAMETERS;
	if (usage != VX_READ_ONLY && refusesWrites(tensor, "vxMapTensorPatch"))
		return VX_ERROR_NOT_SUPPORTED;

	uint8_t *base = tensor->storage();
	if (!base)
		return VX_ERROR_NO_MEMORY;
	const std::vector<vx_size> strides = tensor->strides();
	for (vx_size d = 0; d < number_of_dims; d++) {
		base += view_start[d] * strides[d];
		stride[d] = strides[d];
	}
	*ptr = base;
	*map_id = tensor->nextMapId++;
	tensor->maps[*map_id] = usage;
	memoryOwner(tensor)->openMaps++;
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxUnmapTensorPatch(vx_tensor tensor, const vx_map_id map_id)
try {
	ApiLock lock(apiLock());
	if (!isValid(tensor, VX_TYPE_TENSOR))
		return VX_ERROR_INVALID_REFERENCE;
	/* Mappings point straight at the tensor's memory: nothing to write back. */
	auto mapping = tensor->maps.find(map_id);
	if (mapping == tensor->maps.end())
		return VX_ERROR_INVALID_PARAMETERS;
	if (mapping->second != VX_READ_ONLY)
		memoryOwner(tensor)->writes++;
	tensor->maps.erase(mapping);
	memoryOwner(tensor)->openMaps--;
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

} /* extern "C" */
