/* SPDX-License-Identifier: MIT */
/* Kernels, parameters, user kernel registration and meta formats. */

#include "framework/object.h"

#include <algorithm>
#include <cstring>

using namespace vdla::vx;

namespace {

constexpr vx_uint32 kMaxKernelParameters = 64;

vx_kernel findKernel(vx_context context, const std::string &name)
{
	for (vx_kernel kernel : context->kernels) {
		if (!kernel->removed && kernel->kernelName == name)
			return kernel;
	}
	return nullptr;
}

bool isValidParameterType(vx_enum type)
{
	return typeSize(type) != 0 || type == VX_TYPE_REFERENCE
		|| (type >= VX_TYPE_USER_STRUCT_START && type <= VX_TYPE_VENDOR_STRUCT_END)
		|| (type > VX_TYPE_REFERENCE && type <= VX_TYPE_TENSOR && type != VX_TYPE_ERROR
			&& type != VX_TYPE_META_FORMAT);
}

/* The object type of a Khronos attribute that meta formats describe;
 * VX_TYPE_INVALID for the others. */
vx_enum metaAttributeObject(vx_enum attribute)
{
	const vx_enum type = VX_TYPE(attribute);
	if (VX_VENDOR(attribute) != VX_ID_KHRONOS)
		return VX_TYPE_INVALID;
	if (type == VX_TYPE_SCALAR || type == VX_TYPE_TENSOR || type == VX_TYPE_IMAGE)
		return type;
	return VX_TYPE_INVALID;
}

vx_parameter newParameter(vx_kernel kernel, vx_node node, vx_uint32 index)
{
	auto parameter = std::make_unique<_vx_parameter>(kernel->context);
	parameter->kernel = kernel;
	parameter->node = node;
	parameter->index = index;
	vx_parameter registered = registerNew(std::move(parameter), Count::External);
	retain(kernel, Count::Internal);
	retain(node, Count::Internal);
	return registered;
}

} /* namespace */

void _vx_parameter::teardown()
{
	release(kernel, Count::Internal);
	release(node, Count::Internal);
}

namespace {

/* Fills @meta with the meta data of @exemplar, an object of its type. */
vx_status describe(vx_meta_format meta, vx_reference exemplar)
{
	if (exemplar->type != meta->objectType)
		return VX_ERROR_INVALID_TYPE;
	if (exemplar->type == VX_TYPE_TENSOR) {
		auto tensor = reinterpret_cast<vx_tensor>(exemplar);
		meta->dims = tensor->dims;
		meta->tensorType = tensor->dataType;
		meta->fixedPointPosition = tensor->fixedPointPosition;
		meta->fixedPointSet = true;
		return VX_SUCCESS;
	}
	if (exemplar->type == VX_TYPE_SCALAR) {
		meta->scalarType = reinterpret_cast<vx_scalar>(exemplar)->dataType;
		return VX_SUCCESS;
	}
	if (exemplar->type == VX_TYPE_IMAGE) {
		auto image = reinterpret_cast<vx_image>(exemplar);
		meta->imageWidth = image->width;
		meta->imageHeight = image->height;
		meta->imageFormat = image->format;
		return VX_SUCCESS;
	}
	return VX_ERROR_NOT_SUPPORTED;
}

/*
 * VX_PARAMETER_META_FORMAT: a new meta format of the parameter's object
 * type, describing the object a node's parameter is bound to (empty for a
 * kernel's parameter or an unset one). The caller owns the reference.
 */
vx_meta_format parameterMeta(vx_parameter parameter)
{
	vx_reference bound
		= parameter->node ? parameter->node->parameters[parameter->index] : nullptr;
	auto meta = std::make_unique<_vx_meta_format>(parameter->context,
		parameterObjectType(parameter->kernel->parameters[parameter->index].type, bound));
	if (bound)
		describe(meta.get(), bound);
	return registerNew(std::move(meta), Count::External);
}

/* A kernel object, not registered yet (the caller publishes it in @context). */
std::unique_ptr<_vx_kernel> newKernel(vx_context context, const char *name, vx_enum enumeration,
	vx_kernel_f function, vx_kernel_validate_f validate)
{
	auto kernel = std::make_unique<_vx_kernel>(context);
	kernel->kernelName = name;
	kernel->enumeration = enumeration;
	kernel->function = function;
	kernel->validate = validate;
	return kernel;
}

} /* namespace */

extern "C" {

vx_kernel vxGetKernelByName(vx_context context, const vx_char *name)
try {
	ApiLock lock(apiLock());
	if (!isValid(context, VX_TYPE_CONTEXT))
		return nullptr;
	vx_kernel kernel = name ? findKernel(context, name) : nullptr;
	if (!kernel || !kernel->finalized)
		return errorAs<vx_kernel>(context, VX_ERROR_NOT_IMPLEMENTED);
	retain(kernel, Count::External);
	return kernel;
}
VX_API_CATCH(nullptr)

vx_kernel vxGetKernelByEnum(vx_context context, vx_enum kernel_enum)
try {
	ApiLock lock(apiLock());
	if (!isValid(context, VX_TYPE_CONTEXT))
		return nullptr;
	for (vx_kernel kernel : context->kernels) {
		if (kernel->finalized && !kernel->removed && kernel->enumeration == kernel_enum) {
			retain(kernel, Count::External);
			return kernel;
		}
	}
	return errorAs<vx_kernel>(context, VX_ERROR_NOT_IMPLEMENTED);
}
VX_API_CATCH(nullptr)

vx_status vxQueryKernel(vx_kernel kernel, vx_enum attribute, void *ptr, vx_size size)
try {
	ApiLock lock(apiLock());
	if (!isValid(kernel, VX_TYPE_KERNEL))
		return VX_ERROR_INVALID_REFERENCE;
	switch (attribute) {
	case VX_KERNEL_PARAMETERS:
		return writeAttribute<vx_uint32>(ptr, size, kernel->parameters.size());
	case VX_KERNEL_NAME:
		if (!ptr || size < kernel->kernelName.size() + 1 || size > VX_MAX_KERNEL_NAME)
			return VX_ERROR_INVALID_PARAMETERS;
		memcpy(ptr, kernel->kernelName.c_str(), kernel->kernelName.size() + 1);
		return VX_SUCCESS;
	case VX_KERNEL_ENUM:
		return writeAttribute<vx_enum>(ptr, size, kernel->enumeration);
	case VX_KERNEL_LOCAL_DATA_SIZE:
		return writeAttribute<vx_size>(ptr, size, kernel->localDataSize);
	default:
		return VX_ERROR_NOT_SUPPORTED;
	}
}
VX_API_CATCH_STATUS

vx_status vxReleaseKernel(vx_kernel *kernel)
try {
	ApiLock lock(apiLock());
	if (!kernel || !isValid(*kernel, VX_TYPE_KERNEL))
		return VX_ERROR_INVALID_REFERENCE;
	return vxReleaseReference(reinterpret_cast<vx_reference *>(kernel));
}
VX_API_CATCH_STATUS

vx_kernel vxAddUserKernel(vx_context context, const vx_char name[], vx_enum enumeration,
	vx_kernel_f func_ptr, vx_uint32 numParams, vx_kernel_validate_f validate,
	vx_kernel_initialize_f init, vx_kernel_deinitialize_f deinit)
try {
	ApiLock lock(apiLock());
	if (!isValid(context, VX_TYPE_CONTEXT))
		return nullptr;
	if (!name || !*name || strlen(name) >= VX_MAX_KERNEL_NAME || !func_ptr || !validate
		|| numParams > kMaxKernelParameters || findKernel(context, name)) {
		log(context, VX_ERROR_INVALID_PARAMETERS, "vxAddUserKernel: bad arguments for %s",
			name ? name : "(null)");
		return errorAs<vx_kernel>(context, VX_ERROR_INVALID_PARAMETERS);
	}

	auto made = newKernel(context, name, enumeration, func_ptr, validate);
	made->initialize = init;
	made->deinitialize = deinit;
	made->parameters.resize(numParams);
	reserveOneMore(context->kernels);
	vx_kernel kernel = registerNew(std::move(made), Count::External);
	/* The context's own reference keeps the kernel published after the
	 * application releases its handle. */
	retain(kernel, Count::Internal);
	context->kernels.push_back(kernel);
	return kernel;
}
VX_API_CATCH(nullptr)

vx_status vxAddParameterToKernel(
	vx_kernel kernel, vx_uint32 index, vx_enum dir, vx_enum data_type, vx_enum state)
try {
	ApiLock lock(apiLock());
	if (!isValid(kernel, VX_TYPE_KERNEL))
		return VX_ERROR_INVALID_REFERENCE;
	if (!kernel->user || kernel->finalized || index >= kernel->parameters.size()
		|| (dir != VX_INPUT && dir != VX_OUTPUT)
		|| (state != VX_PARAMETER_STATE_REQUIRED && state != VX_PARAMETER_STATE_OPTIONAL)
		|| !isValidParameterType(data_type))
		return VX_ERROR_INVALID_PARAMETERS;
	kernel->parameters[index] = { true, dir, data_type, state };
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxSetKernelAttribute(vx_kernel kernel, vx_enum attribute, const void *ptr, vx_size size)
try {
	ApiLock lock(apiLock());
	if (!isValid(kernel, VX_TYPE_KERNEL))
		return VX_ERROR_INVALID_REFERENCE;
	if (attribute != VX_KERNEL_LOCAL_DATA_SIZE || kernel->finalized || !kernel->user)
		return VX_ERROR_NOT_SUPPORTED;
	return readAttribute<vx_size>(ptr, size, kernel->localDataSize);
}
VX_API_CATCH_STATUS

vx_status vxFinalizeKernel(vx_kernel kernel)
try {
	ApiLock lock(apiLock());
	if (!isValid(kernel, VX_TYPE_KERNEL))
		return VX_ERROR_INVALID_REFERENCE;
	if (!kernel->user || kernel->removed)
		return VX_ERROR_INVALID_PARAMETERS;
	for (const KernelParameter &parameter : kernel->parameters) {
		if (!parameter.defined) {
			log(kernel, VX_ERROR_INVALID_PARAMETERS,
				"kernel %s: not every parameter was added",
				kernel->kernelName.c_str());
			return VX_ERROR_INVALID_PARAMETERS;
		}
	}
	kernel->finalized = true;
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxRemoveKernel(vx_kernel kernel)
try {
	ApiLock lock(apiLock());
	if (!isValid(kernel, VX_TYPE_KERNEL))
		return VX_ERROR_INVALID_REFERENCE;
	if (!kernel->user || kernel->removed)
		return VX_ERROR_INVALID_PARAMETERS;

	vx_context context = kernel->context;
	kernel->removed = true;
	auto &kernels = context->kernels;
	kernels.erase(std::remove(kernels.begin(), kernels.end(), kernel), kernels.end());
	/* Nodes that use the kernel keep it alive through their own
	 * references; the context's and the caller's go now. */
	release(kernel, Count::External);
	release(kernel, Count::Internal);
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_parameter vxGetKernelParameterByIndex(vx_kernel kernel, vx_uint32 index)
try {
	ApiLock lock(apiLock());
	if (!isValid(kernel, VX_TYPE_KERNEL))
		return nullptr;
	if (index >= kernel->parameters.size())
		return errorAs<vx_parameter>(kernel->context, VX_ERROR_INVALID_PARAMETERS);
	return newParameter(kernel, nullptr, index);
}
VX_API_CATCH(nullptr)

vx_parameter vxGetParameterByIndex(vx_node node, vx_uint32 index)
try {
	ApiLock lock(apiLock());
	if (!isValid(node, VX_TYPE_NODE))
		return nullptr;
	if (index >= node->parameters.size())
		return errorAs<vx_parameter>(node->context, VX_ERROR_INVALID_PARAMETERS);
	return newParameter(node->kernel, node, index);
}
VX_API_CATCH(nullptr)

vx_status vxReleaseParameter(vx_parameter *param)
try {
	ApiLock lock(apiLock());
	if (!param || !isValid(*param, VX_TYPE_PARAMETER))
		return VX_ERROR_INVALID_REFERENCE;
	return vxReleaseReference(reinterpret_cast<vx_reference *>(param));
}
VX_API_CATCH_STATUS

vx_status vxQueryParameter(vx_parameter parameter, vx_enum attribute, void *ptr, vx_size size)
try {
	ApiLock lock(apiLock());
	if (!isValid(parameter, VX_TYPE_PARAMETER))
		return VX_ERROR_INVALID_REFERENCE;
	const KernelParameter &declared = parameter->kernel->parameters[parameter->index];
	switch (attribute) {
	case VX_PARAMETER_INDEX:
		return writeAttribute<vx_uint32>(ptr, size, parameter->index);
	case VX_PARAMETER_DIRECTION:
		return writeAttribute<vx_enum>(ptr, size, declared.direction);
	case VX_PARAMETER_TYPE:
		return writeAttribute<vx_enum>(ptr, size, declared.type);
	case VX_PARAMETER_STATE:
		return writeAttribute<vx_enum>(ptr, size, declared.state);
	case VX_PARAMETER_REF: {
		vx_reference ref
			= parameter->node ? parameter->node->parameters[parameter->index] : nullptr;
		vx_status status = writeAttribute<vx_reference>(ptr, size, ref);
		if (status == VX_SUCCESS)
			retain(ref, Count::External);
		return status;
	}
	case VX_PARAMETER_META_FORMAT: {
		if (size != sizeof(vx_meta_format) || !ptr)
			return VX_ERROR_INVALID_PARAMETERS;
		*static_cast<vx_meta_format *>(ptr) = parameterMeta(parameter);
		return VX_SUCCESS;
	}
	default:
		return VX_ERROR_NOT_SUPPORTED;
	}
}
VX_API_CATCH_STATUS

vx_status vxSetParameterByReference(vx_parameter parameter, vx_reference value)
try {
	ApiLock lock(apiLock());
	if (!isValid(parameter, VX_TYPE_PARAMETER))
		return VX_ERROR_INVALID_REFERENCE;
	if (!parameter->node)
		return VX_ERROR_INVALID_PARAMETERS;
	return vxSetParameterByIndex(parameter->node, parameter->index, value);
}
VX_API_CATCH_STATUS

vx_status vxSetMetaFormatAttribute(
	vx_meta_format meta, vx_enum attribute, const void *ptr, vx_size size)
try {
	ApiLock lock(apiLock());
	if (!isValid(meta, VX_TYPE_META_FORMAT))
		return VX_ERROR_INVALID_REFERENCE;

	/* Valid rectangles are images' (vdla has no pyramids). */
	if (attribute == VX_VALID_RECT_CALLBACK)
		return meta->objectType == VX_TYPE_IMAGE
			? readAttribute(ptr, size, meta->validRectangle)
			: VX_ERROR_INVALID_TYPE;

	vx_enum objectType = metaAttributeObject(attribute);
	if (objectType == VX_TYPE_INVALID)
		return VX_ERROR_NOT_SUPPORTED;
	if (objectType != meta->objectType)
		return VX_ERROR_INVALID_TYPE;

	switch (attribute) {
	case VX_SCALAR_TYPE:
		return readAttribute(ptr, size, meta->scalarType);
	case VX_TENSOR_NUMBER_OF_DIMS: {
		vx_size count;
		vx_status status = readAttribute(ptr, size, count);
		if (status != VX_SUCCESS)
			return status;
		if (count == 0 || count > 6)
			return VX_ERROR_INVALID_VALUE;
		meta->dims.resize(count, 0);
		return VX_SUCCESS;
	}
	case VX_TENSOR_DIMS: {
		if (!ptr || size == 0 || size % sizeof(vx_size) || size > 6 * sizeof(vx_size))
			return VX_ERROR_INVALID_PARAMETERS;
		auto dims = static_cast<const vx_size *>(ptr);
		meta->dims.assign(dims, dims + size / sizeof(vx_size));
		return VX_SUCCESS;
	}
	case VX_TENSOR_DATA_TYPE:
		return readAttribute(ptr, size, meta->tensorType);
	case VX_TENSOR_FIXED_POINT_POSITION: {
		vx_status status = readAttribute(ptr, size, meta->fixedPointPosition);
		meta->fixedPointSet = status == VX_SUCCESS;
		return status;
	}
	case VX_IMAGE_FORMAT:
		return readAttribute(ptr, size, meta->imageFormat);
	case VX_IMAGE_WIDTH:
		return readAttribute(ptr, size, meta->imageWidth);
	case VX_IMAGE_HEIGHT:
		return readAttribute(ptr, size, meta->imageHeight);
	default:
		return VX_ERROR_NOT_SUPPORTED;
	}
}
VX_API_CATCH_STATUS

vx_status vxQueryMetaFormatAttribute(
	vx_meta_format meta, vx_enum attribute, void *ptr, vx_size size)
try {
	ApiLock lock(apiLock());
	if (!isValid(meta, VX_TYPE_META_FORMAT))
		return VX_ERROR_INVALID_REFERENCE;
	if (attribute == VX_VALID_RECT_CALLBACK)
		return meta->objectType == VX_TYPE_IMAGE
			? writeAttribute(ptr, size, meta->validRectangle)
			: VX_ERROR_INVALID_TYPE;
	vx_enum objectType = metaAttributeObject(attribute);
	if (objectType != VX_TYPE_INVALID && objectType != meta->objectType)
		return VX_ERROR_INVALID_TYPE;

	switch (attribute) {
	case VX_SCALAR_TYPE:
		return writeAttribute(ptr, size, meta->scalarType);
	case VX_TENSOR_NUMBER_OF_DIMS:
		return writeAttribute<vx_size>(ptr, size, meta->dims.size());
	case VX_TENSOR_DIMS:
		if (!ptr || size < meta->dims.size() * sizeof(vx_size))
			return VX_ERROR_INVALID_PARAMETERS;
		memcpy(ptr, meta->dims.data(), meta->dims.size() * sizeof(vx_size));
		return VX_SUCCESS;
	case VX_TENSOR_DATA_TYPE:
		return writeAttribute(ptr, size, meta->tensorType);
	case VX_TENSOR_FIXED_POINT_POSITION:
		return writeAttribute(ptr, size, meta->fixedPointPosition);
	case VX_IMAGE_FORMAT:
		return writeAttribute(ptr, size, meta->imageFormat);
	case VX_IMAGE_WIDTH:
		return writeAttribute(ptr, size, meta->imageWidth);
	case VX_IMAGE_HEIGHT:
		return writeAttribute(ptr, size, meta->imageHeight);
	default:
		return VX_ERROR_NOT_SUPPORTED;
	}
}
VX_API_CATCH_STATUS

vx_status vxSetMetaFormatFromReference(vx_meta_format meta, vx_reference exemplar)
try {
	ApiLock lock(apiLock());
	if (!isValid(meta, VX_TYPE_META_FORMAT) || !isValid(exemplar))
		return VX_ERROR_INVALID_REFERENCE;
	return describe(meta, exemplar);
}
VX_API_CATCH_STATUS

} /* extern "C" */

namespace vdla::vx {

void addStandardKernel(vx_context context, const char *name, vx_enum enumeration,
	vx_kernel_f function, vx_kernel_validate_f validate,
	const std::vector<KernelParameter> &parameters)
{
	auto kernel = newKernel(context, name, enumeration, function, validate);
	kernel->parameters = parameters;
	kernel->finalized = true;
	kernel->user = false;
	reserveOneMore(context->kernels);
	context->kernels.push_back(registerNew(std::move(kernel), Count::Internal));
}

} /* namespace vdla::vx */
