/* SPDX-License-Identifier: MIT */
/* Reference registry, counting, error objects and logging. */

#include "framework/object.h"
#include "nn/nn_convolution.h"
#include "nn/nn_elementwise.h"
#include "nn/nn_rearrange.h"

#include "objects/image_layout.h"
#include "objects/tensor_layout.h"

#include <VX/vx_khr_nn.h>

#include <dlfcn.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <exception>
#include <new>
#include <numeric>
#include <unordered_set>

namespace vdla::vx {

namespace {

std::unordered_set<const void *> &registry()
{
	static std::unordered_set<const void *> live;
	return live;
}

void destroy(vx_reference ref)
{
	ref->teardown();
	registry().erase(ref);
	delete ref;
}

/* Whether log entries of @context reach a callback (vxDirective can stop them). */
bool logging(vx_context context)
{
	return context->logCallback && context->loggingEnabled;
}

} /* namespace */

std::recursive_mutex &apiLock()
{
	static std::recursive_mutex lock;
	return lock;
}

void registerReference(vx_reference ref, Count initial)
{
	registry().insert(ref);
	if (initial == Count::External)
		ref->externalCount = 1;
	else
		ref->internalCount = 1;
}

bool isValid(const void *ref, vx_enum type)
{
	if (!ref || !registry().count(ref))
		return false;
	auto object = static_cast<const _vx_reference *>(ref);
	if (type == VX_TYPE_REFERENCE)
		return object->type != VX_TYPE_ERROR;
	return object->type == type;
}

void retain(vx_reference ref, Count count)
{
	if (!ref)
		return;
	if (count == Count::External)
		ref->externalCount++;
	else
		ref->internalCount++;
}

void release(vx_reference ref, Count count)
{
	if (!ref || !isValid(ref))
		return;
	if (count == Count::External) {
		if (ref->externalCount == 0)
			return;
		if (--ref->externalCount == 0) {
			/* Keep the object alive while it lets go of what it
			 * holds, which may point back at it. */
			ref->internalCount++;
			ref->onUnreachable();
			ref->internalCount--;
		}
	} else {
		if (ref->internalCount == 0)
			return;
		ref->internalCount--;
	}
	if (ref->externalCount == 0 && ref->internalCount == 0)
		destroy(ref);
}

std::vector<vx_reference> referencesOf(vx_context context)
{
	std::vector<vx_reference> refs;
	for (const void *live : registry()) {
		auto ref = const_cast<vx_reference>(static_cast<const _vx_reference *>(live));
		if (ref->context == context && ref != reinterpret_cast<vx_reference>(context))
			refs.push_back(ref);
	}
	return refs;
}

void destroyContext(vx_context context)
{
	/* Graphs first, so that their nodes are deinitialized while
	 * everything they use is still alive. */
	for (vx_reference ref : referencesOf(context)) {
		if (ref->type != VX_TYPE_GRAPH || !registry().count(ref))
			continue;
		ref->internalCount++;
		ref->onUnreachable();
	}
	/* The rest goes without unwinding counts: all of it dies. */
	for (vx_reference ref : referencesOf(context)) {
		registry().erase(ref);
		delete ref;
	}
	for (auto &[name, module] : context->modules) {
		(void)name;
		if (module.handle)
			context->unloadedHandles.push_back(module.handle);
	}
	std::vector<void *> handles = std::move(context->unloadedHandles);
	registry().erase(context);
	delete context;
	for (void *handle : handles)
		dlclose(handle);
}

vx_reference errorObject(vx_context context, vx_status status)
{
	if (!isValid(context, VX_TYPE_CONTEXT))
		return nullptr;
	auto it = context->errors.find(status);
	if (it != context->errors.end())
		return it->second;
	auto error = std::make_unique<_vx_reference>(VX_TYPE_ERROR, context);
	error->errorStatus = status;
	auto slot = context->errors.emplace(status, nullptr).first;
	try {
		slot->second = registerNew(std::move(error), Count::Internal);
	} catch (...) {
		context->errors.erase(slot);
		throw;
	}
	return slot->second;
}

vx_status statusOfException(const char *function)
{
	try {
		throw;
	} catch (const std::bad_alloc &) {
		fprintf(stderr, "vdla: %s: out of memory\n", function);
		return VX_ERROR_NO_MEMORY;
	} catch (const std::exception &exception) {
		fprintf(stderr, "vdla: %s: exception: %s\n", function, exception.what());
	} catch (...) {
		fprintf(stderr, "vdla: %s: exception of unknown type\n", function);
	}
	return VX_FAILURE;
}

void log(vx_reference ref, vx_status status, const char *format, ...)
{
	if (!isValid(ref) && !isValid(ref, VX_TYPE_ERROR))
		return;
	vx_context context = ref->context;
	if (!logging(context))
		return;

	char message[VX_MAX_LOG_MESSAGE_LEN];
	va_list args;
	va_start(args, format);
	vsnprintf(message, sizeof(message), format, args);
	va_end(args);

	if (context->logReentrant) {
		context->logCallback(context, ref, status, message);
	} else {
		std::lock_guard<std::mutex> serialise(context->logMutex);
		context->logCallback(context, ref, status, message);
	}
}

vx_size typeSize(vx_enum type)
{
	switch (type) {
	case VX_TYPE_CHAR:
	case VX_TYPE_INT8:
	case VX_TYPE_UINT8:
		return 1;
	case VX_TYPE_INT16:
	case VX_TYPE_UINT16:
		return 2;
	case VX_TYPE_INT32:
	case VX_TYPE_UINT32:
	case VX_TYPE_FLOAT32:
	case VX_TYPE_ENUM:
	case VX_TYPE_DF_IMAGE:
	case VX_TYPE_BOOL:
		return 4;
	case VX_TYPE_INT64:
	case VX_TYPE_UINT64:
	case VX_TYPE_FLOAT64:
		return 8;
	case VX_TYPE_SIZE:
		return sizeof(vx_size);
	case VX_TYPE_RECTANGLE:
		return sizeof(vx_rectangle_t);
	case VX_TYPE_COORDINATES2D:
		return sizeof(vx_coordinates2d_t);
	case VX_TYPE_NN_CONVOLUTION_PARAMS:
		return sizeof(vx_nn_convolution_params_t);
	case VX_TYPE_NN_DECONVOLUTION_PARAMS:
		return sizeof(vx_nn_deconvolution_params_t);
	case VX_TYPE_NN_ROI_POOL_PARAMS:
		return sizeof(vx_nn_roi_pool_params_t);
	case VX_TYPE_TENSOR_MATRIX_MULTIPLY_PARAMS:
		return sizeof(vx_tensor_matrix_multiply_params_t);
	case nn::kTypeConvolutionParams:
		return sizeof(nn::ConvolutionParams);
	case nn::kTypePoolingParams:
		return sizeof(nn::PoolingParams);
	case nn::kTypeRearrangementParams:
		return sizeof(nn::RearrangementParams);
	case nn::kTypeElementwiseParams:
		return sizeof(nn::ElementwiseParams);
	case nn::kTypeConcatenationParams:
		return sizeof(nn::ConcatenationParams);
	default:
		return 0;
	}
}

vx_status checkMemory(vx_enum usage, vx_enum memoryType, bool allowReadWrite)
{
	if (memoryType != VX_MEMORY_TYPE_HOST)
		return VX_ERROR_INVALID_PARAMETERS;
	if (usage == VX_READ_ONLY || usage == VX_WRITE_ONLY)
		return VX_SUCCESS;
	return allowReadWrite && usage == VX_READ_AND_WRITE ? VX_SUCCESS
							    : VX_ERROR_INVALID_PARAMETERS;
}

vx_status checkAccessible(bool isVirtual, vx_graph scope)
{
	if (!isVirtual)
		return VX_SUCCESS;
	if (scope && scope->state == VX_GRAPH_STATE_RUNNING)
		return VX_SUCCESS;
	return VX_ERROR_OPTIMIZED_AWAY;
}

bool isTensorType(vx_enum type)
{
	/* INT32 holds data only (the biases of the quantised convolution,
	 * nn_convolution.h): the layers and tensor kernels check their types. */
	return type == VX_TYPE_INT8 || type == VX_TYPE_UINT8 || type == VX_TYPE_INT16
		|| type == VX_TYPE_INT32 || type == VX_TYPE_FLOAT32;
}

bool sameMetaData(vx_reference a, vx_reference b)
{
	if (a->type != b->type)
		return false;
	if (a->type == VX_TYPE_TENSOR) {
		auto ta = reinterpret_cast<vx_tensor>(a);
		auto tb = reinterpret_cast<vx_tensor>(b);
		return ta->dims == tb->dims && ta->dataType == tb->dataType
			&& ta->fixedPointPosition == tb->fixedPointPosition;
	}
	if (a->type == VX_TYPE_SCALAR)
		return reinterpret_cast<vx_scalar>(a)->dataType
			== reinterpret_cast<vx_scalar>(b)->dataType;
	if (a->type == VX_TYPE_LUT)
		return reinterpret_cast<vx_lut>(a)->dataType == reinterpret_cast<vx_lut>(b)->dataType
			&& reinterpret_cast<vx_lut>(a)->count == reinterpret_cast<vx_lut>(b)->count;
	if (a->type == VX_TYPE_IMAGE) {
		auto ia = reinterpret_cast<vx_image>(a);
		auto ib = reinterpret_cast<vx_image>(b);
		return ia->width == ib->width && ia->height == ib->height
			&& ia->format == ib->format;
	}
	return true;
}

vx_status readBorder(const void *ptr, vx_size size, vx_border_t &border)
{
	vx_status status = readAttribute(ptr, size, border);
	if (status != VX_SUCCESS)
		return status;
	if (border.mode != VX_BORDER_UNDEFINED && border.mode != VX_BORDER_CONSTANT
		&& border.mode != VX_BORDER_REPLICATE)
		return VX_ERROR_INVALID_VALUE;
	return VX_SUCCESS;
}

bool matchesParameterType(vx_enum type, vx_reference ref)
{
	if (type == VX_TYPE_REFERENCE || type == ref->type)
		return true;
	/* A scalar parameter may also be declared by its element type. */
	return ref->type == VX_TYPE_SCALAR && type < VX_TYPE_KHRONOS_OBJECT_START
		&& reinterpret_cast<vx_scalar>(ref)->dataType == type;
}

vx_enum parameterObjectType(vx_enum declaredType, vx_reference bound)
{
	if (bound)
		return bound->type;
	return declaredType < VX_TYPE_KHRONOS_OBJECT_START ? VX_TYPE_SCALAR : declaredType;
}

vx_reference memoryOwnerOf(vx_reference ref)
{
	if (ref->type == VX_TYPE_IMAGE)
		return memoryOwner(reinterpret_cast<vx_image>(ref));
	if (ref->type == VX_TYPE_TENSOR)
		return memoryOwner(reinterpret_cast<vx_tensor>(ref));
	return ref;
}

MemoryGroups::MemoryGroups(vx_graph graph)
{
	/* The tensors and images on the application's memory that the nodes
	 * touch: from handles, and on libvdla buffers (one buffer may back
	 * several tensors). */
	for (vx_node node : graph->nodes) {
		for (vx_reference ref : node->parameters) {
			if (!ref)
				continue;
			vx_reference owner = memoryOwnerOf(ref);
			const bool application
				= (owner->type == VX_TYPE_TENSOR
					  && (reinterpret_cast<vx_tensor>(owner)->fromHandle
						  || reinterpret_cast<vx_tensor>(owner)->externalBuffer))
				|| (owner->type == VX_TYPE_IMAGE
					&& reinterpret_cast<vx_image>(owner)->memoryType
						== VX_MEMORY_TYPE_HOST);
			if (application
				&& std::find(owners_.begin(), owners_.end(), owner)
					== owners_.end())
				owners_.push_back(owner);
		}
	}
	/* Union-find over overlapping pairs; each group's key is its first. */
	std::vector<size_t> parent(owners_.size());
	std::iota(parent.begin(), parent.end(), 0);
	auto find = [&](size_t i) {
		while (parent[i] != i)
			i = parent[i];
		return i;
	};
	overlaps_ = overlappingPairs();
	for (const auto &[i, j] : overlaps_) {
		const size_t a = find(i), b = find(j);
		parent[std::max(a, b)] = std::min(a, b);
	}
	for (size_t i = 0; i < owners_.size(); i++)
		if (find(i) != i)
			merged_[owners_[i]] = owners_[find(i)];
}

std::vector<std::pair<size_t, size_t>> MemoryGroups::overlappingPairs() const
{
	std::vector<std::pair<size_t, size_t>> pairs;
	for (size_t i = 0; i < owners_.size(); i++)
		for (size_t j = 0; j < i; j++)
			if (sharesMemory(owners_[i], owners_[j]))
				pairs.emplace_back(i, j);
	return pairs;
}

bool MemoryGroups::overlapsUnchanged() const
{
	return overlappingPairs() == overlaps_;
}

vx_reference MemoryGroups::of(vx_reference ref) const
{
	vx_reference owner = memoryOwnerOf(ref);
	auto it = merged_.find(owner);
	return it == merged_.end() ? owner : it->second;
}

bool sharesMemory(vx_reference a, vx_reference b)
{
	if (a == b)
		return true;
	if (a->type != b->type)
		return false;
	if (a->type == VX_TYPE_IMAGE)
		return imagesShareMemory(
			reinterpret_cast<vx_image>(a), reinterpret_cast<vx_image>(b));
	if (a->type == VX_TYPE_TENSOR)
		return tensorsShareMemory(
			reinterpret_cast<vx_tensor>(a), reinterpret_cast<vx_tensor>(b));
	return false;
}

} /* namespace vdla::vx */

using namespace vdla::vx;

namespace {

std::atomic<uint64_t> lastSerial{ 0 };

} /* namespace */

_vx_reference::_vx_reference(vx_enum type, vx_context context)
	: type(type), context(context), serial(++lastSerial)
{
}

extern "C" {

vx_status vxGetStatus(vx_reference reference)
try {
	ApiLock lock(apiLock());
	if (!reference)
		return VX_ERROR_NO_RESOURCES;
	if (isValid(reference, VX_TYPE_ERROR))
		return reference->errorStatus;
	return isValid(reference) ? VX_SUCCESS : VX_ERROR_INVALID_REFERENCE;
}
VX_API_CATCH_STATUS

vx_context vxGetContext(vx_reference reference)
try {
	ApiLock lock(apiLock());
	if (!isValid(reference) && !isValid(reference, VX_TYPE_ERROR))
		return nullptr;
	return reference->context;
}
VX_API_CATCH(nullptr)

vx_status vxQueryReference(vx_reference ref, vx_enum attribute, void *ptr, vx_size size)
try {
	ApiLock lock(apiLock());
	if (!isValid(ref))
		return VX_ERROR_INVALID_REFERENCE;
	switch (attribute) {
	case VX_REFERENCE_COUNT:
		return writeAttribute<vx_uint32>(ptr, size, ref->externalCount);
	case VX_REFERENCE_TYPE:
		return writeAttribute<vx_enum>(ptr, size, ref->type);
	case VX_REFERENCE_NAME:
		/* An unnamed reference has the empty name, never NULL: programs
		 * print it. */
		return writeAttribute<const vx_char *>(ptr, size, ref->name.c_str());
	default:
		return VX_ERROR_NOT_SUPPORTED;
	}
}
VX_API_CATCH_STATUS

vx_status vxSetReferenceName(vx_reference ref, const vx_char *name)
try {
	ApiLock lock(apiLock());
	if (!isValid(ref))
		return VX_ERROR_INVALID_REFERENCE;
	ref->name = name ? std::string(name, strnlen(name, VX_MAX_REFERENCE_NAME - 1)) : "";
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxRetainReference(vx_reference ref)
try {
	ApiLock lock(apiLock());
	if (!isValid(ref))
		return VX_ERROR_INVALID_REFERENCE;
	retain(ref, Count::External);
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxReleaseReference(vx_reference *ref_ptr)
try {
	ApiLock lock(apiLock());
	if (!ref_ptr || !isValid(*ref_ptr) || (*ref_ptr)->externalCount == 0)
		return VX_ERROR_INVALID_REFERENCE;
	vx_reference ref = *ref_ptr;
	if (ref->type == VX_TYPE_CONTEXT) {
		lock.unlock();
		return vxReleaseContext(reinterpret_cast<vx_context *>(ref_ptr));
	}
	if (ref->type == VX_TYPE_GRAPH) {
		lock.unlock();
		return vxReleaseGraph(reinterpret_cast<vx_graph *>(ref_ptr));
	}
	release(ref, Count::External);
	*ref_ptr = nullptr;
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

void vxRegisterLogCallback(vx_context context, vx_log_callback_f callback, vx_bool reentrant)
try {
	ApiLock lock(apiLock());
	if (!isValid(context, VX_TYPE_CONTEXT))
		return;
	context->logCallback = callback;
	context->logReentrant = reentrant == vx_true_e;
}
VX_API_CATCH_VOID

void vxAddLogEntry(vx_reference ref, vx_status status, const char *message, ...)
try {
	ApiLock lock(apiLock());
	if (!message || (!isValid(ref) && !isValid(ref, VX_TYPE_ERROR)))
		return;
	/* OpenVX: entries with VX_SUCCESS are ignored. */
	if (status == VX_SUCCESS || !logging(ref->context))
		return;

	char text[VX_MAX_LOG_MESSAGE_LEN];
	va_list args;
	va_start(args, message);
	vsnprintf(text, sizeof(text), message, args);
	va_end(args);
	log(ref, status, "%s", text);
}
VX_API_CATCH_VOID

/*
 * Logging directives apply to the context of @reference, whatever its type;
 * performance directives only to a context, as the specification requires.
 */
vx_status vxDirective(vx_reference reference, vx_enum directive)
try {
	ApiLock lock(apiLock());
	if (!isValid(reference))
		return VX_ERROR_INVALID_REFERENCE;
	vx_context context = reference->context;
	switch (directive) {
	case VX_DIRECTIVE_ENABLE_LOGGING:
	case VX_DIRECTIVE_DISABLE_LOGGING:
		context->loggingEnabled = directive == VX_DIRECTIVE_ENABLE_LOGGING;
		return VX_SUCCESS;
	case VX_DIRECTIVE_ENABLE_PERFORMANCE:
	case VX_DIRECTIVE_DISABLE_PERFORMANCE:
		if (reference->type != VX_TYPE_CONTEXT) {
			log(reference, VX_ERROR_NOT_SUPPORTED,
				"vxDirective: performance directives apply to a context only");
			return VX_ERROR_NOT_SUPPORTED;
		}
		context->performanceEnabled = directive == VX_DIRECTIVE_ENABLE_PERFORMANCE;
		return VX_SUCCESS;
	default:
		log(reference, VX_ERROR_NOT_SUPPORTED, "vxDirective: unknown directive 0x%x",
			unsigned(directive));
		return VX_ERROR_NOT_SUPPORTED;
	}
}
VX_API_CATCH_STATUS

/*
 * The performance hints are accepted and change nothing: the DLA has one
 * operating point, and the runtime always takes the fastest path it has.
 */
vx_status vxHint(vx_reference reference, vx_enum hint, const void *data, vx_size data_size)
try {
	(void)data;
	(void)data_size;
	ApiLock lock(apiLock());
	if (!isValid(reference))
		return VX_ERROR_INVALID_REFERENCE;
	switch (hint) {
	case VX_HINT_PERFORMANCE_DEFAULT:
	case VX_HINT_PERFORMANCE_LOW_POWER:
	case VX_HINT_PERFORMANCE_HIGH_SPEED:
		return VX_SUCCESS;
	default:
		log(reference, VX_ERROR_NOT_SUPPORTED, "vxHint: unknown hint 0x%x", unsigned(hint));
		return VX_ERROR_NOT_SUPPORTED;
	}
}
VX_API_CATCH_STATUS

} /* extern "C" */
