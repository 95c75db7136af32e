/* SPDX-License-Identifier: MIT */
/* Contexts, user kernel ids and kernel modules. */

#include "framework/object.h"
#include "framework/target.h"
#include "vision/vision_kernels.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>

using namespace vdla::vx;

namespace {

constexpr char kImplementation[] = "vdla";
/*
 * Space-separated, as programs search it before using an extension. The NN
 * extension's data type strings: KHR_NN_8 for its 8-bit tensors (UINT8 and
 * INT8), KHR_NN_16 for Q7.8 (INT16 at position 8), in every layer.
 */
constexpr char kExtensions[] = "vx_khr_nn KHR_NN_8 KHR_NN_16";
constexpr vx_size kMaxTensorDims = 6;
constexpr vx_uint32 kUserKernelPoolSize = 4096;
constexpr vx_uint32 kUserLibraryIdMax = 255;

vx_uint32 uniqueKernels(vx_context context)
{
	return std::count_if(context->kernels.begin(), context->kernels.end(),
		[](vx_kernel k) { return k->finalized && !k->removed; });
}

vx_uint32 loadedModules(vx_context context)
{
	return std::count_if(context->modules.begin(), context->modules.end(),
		[](const auto &entry) { return entry.second.loaded; });
}

std::string libraryFileName(const std::string &module)
{
	if (module.find('/') != std::string::npos)
		return module;
	return "lib" + module + ".so";
}

} /* namespace */

_vx_context::_vx_context() : _vx_reference(VX_TYPE_CONTEXT, this)
{
	targets = createTargets(this);
}

_vx_context::~_vx_context() = default;

extern "C" {

vx_context vxCreateContext(void)
try {
	ApiLock lock(apiLock());
	vx_context context = registerNew(std::make_unique<_vx_context>(), Count::External);
	try {
		addBuiltinKernels(context);
		addLayerKernels(context);
		addColorConvertKernel(context);
	} catch (...) {
		destroyContext(context);
		throw;
	}
	return context;
}
VX_API_CATCH(nullptr)

vx_status vxReleaseContext(vx_context *context)
try {
	ApiLock lock(apiLock());
	if (!context || !isValid(*context, VX_TYPE_CONTEXT))
		return VX_ERROR_INVALID_REFERENCE;
	vx_context ctx = *context;
	/* Not while one of its graphs is in vxProcessGraph on another thread. */
	if (ctx->externalCount == 1) {
		for (vx_reference ref : referencesOf(ctx))
			if (ref->type == VX_TYPE_GRAPH && reinterpret_cast<vx_graph>(ref)->processing)
				return VX_ERROR_GRAPH_SCHEDULED;
	}
	if (--ctx->externalCount == 0) {
		for (vx_reference ref : referencesOf(ctx)) {
			if (ref->type == VX_TYPE_GRAPH)
				waitForWorker(reinterpret_cast<vx_graph>(ref), lock);
		}
		destroyContext(ctx);
	}
	*context = nullptr;
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxQueryContext(vx_context context, vx_enum attribute, void *ptr, vx_size size)
try {
	ApiLock lock(apiLock());
	if (!isValid(context, VX_TYPE_CONTEXT))
		return VX_ERROR_INVALID_REFERENCE;

	switch (attribute) {
	case VX_CONTEXT_VENDOR_ID:
		return writeAttribute<vx_uint16>(ptr, size, VX_ID_DEFAULT);
	case VX_CONTEXT_VERSION:
		return writeAttribute<vx_uint16>(ptr, size, VX_VERSION);
	case VX_CONTEXT_UNIQUE_KERNELS:
		return writeAttribute<vx_uint32>(ptr, size, uniqueKernels(context));
	case VX_CONTEXT_MODULES:
		return writeAttribute<vx_uint32>(ptr, size, loadedModules(context));
	case VX_CONTEXT_REFERENCES: {
		auto refs = referencesOf(context);
		vx_uint32 count = std::count_if(refs.begin(), refs.end(), [](vx_reference r) {
			return r->type != VX_TYPE_ERROR
				&& (r->externalCount > 0 || r->internalCount > 0);
		});
		return writeAttribute<vx_uint32>(ptr, size, count);
	}
	case VX_CONTEXT_IMPLEMENTATION:
		if (!ptr || size > VX_MAX_IMPLEMENTATION_NAME || size < sizeof(kImplementation))
			return VX_ERROR_INVALID_PARAMETERS;
		memcpy(ptr, kImplementation, sizeof(kImplementation));
		return VX_SUCCESS;
	case VX_CONTEXT_EXTENSIONS_SIZE:
		return writeAttribute<vx_size>(ptr, size, sizeof(kExtensions));
	case VX_CONTEXT_EXTENSIONS:
		if (!ptr || size < sizeof(kExtensions))
			return VX_ERROR_INVALID_PARAMETERS;
		memcpy(ptr, kExtensions, sizeof(kExtensions));
		return VX_SUCCESS;
	case VX_CONTEXT_MAX_TENSOR_DIMS:
		return writeAttribute<vx_size>(ptr, size, kMaxTensorDims);
	case VX_CONTEXT_IMMEDIATE_BORDER:
		return writeAttribute(ptr, size, context->immediateBorder);
	case VX_CONTEXT_IMMEDIATE_BORDER_POLICY:
		return writeAttribute<vx_enum>(ptr, size, context->immediateBorderPolicy);
	case VX_CONTEXT_UNIQUE_KERNEL_TABLE: {
		vx_uint32 count = uniqueKernels(context);
		if (!ptr || size != count * sizeof(vx_kernel_info_t))
			return VX_ERROR_INVALID_PARAMETERS;
		auto table = static_cast<vx_kernel_info_t *>(ptr);
		for (vx_kernel kernel : context->kernels) {
			if (!kernel->finalized || kernel->removed)
				continue;
			table->enumeration = kernel->enumeration;
			strncpy(table->name, kernel->kernelName.c_str(), VX_MAX_KERNEL_NAME - 1);
			table->name[VX_MAX_KERNEL_NAME - 1] = '\0';
			table++;
		}
		return VX_SUCCESS;
	}
	default:
		return VX_ERROR_NOT_SUPPORTED;
	}
}
VX_API_CATCH_STATUS

vx_status vxSetContextAttribute(
	vx_context context, vx_enum attribute, const void *ptr, vx_size size)
try {
	ApiLock lock(apiLock());
	if (!isValid(context, VX_TYPE_CONTEXT))
		return VX_ERROR_INVALID_REFERENCE;

	switch (attribute) {
	case VX_CONTEXT_IMMEDIATE_BORDER: {
		vx_border_t border;
		vx_status status = readBorder(ptr, size, border);
		if (status != VX_SUCCESS)
			return status;
		context->immediateBorder = border;
		return VX_SUCCESS;
	}
	case VX_CONTEXT_IMMEDIATE_BORDER_POLICY: {
		vx_enum policy;
		vx_status status = readAttribute(ptr, size, policy);
		if (status != VX_SUCCESS)
			return status;
		if (policy != VX_BORDER_POLICY_DEFAULT_TO_UNDEFINED
			&& policy != VX_BORDER_POLICY_RETURN_ERROR)
			return VX_ERROR_INVALID_VALUE;
		context->immediateBorderPolicy = policy;
		return VX_SUCCESS;
	}
	default:
		/* The other context attributes are read-only. */
		log(context, VX_ERROR_NOT_SUPPORTED,
			"vxSetContextAttribute: attribute %#x cannot be set", unsigned(attribute));
		return VX_ERROR_NOT_SUPPORTED;
	}
}
VX_API_CATCH_STATUS

vx_status vxAllocateUserKernelId(vx_context context, vx_enum *pKernelEnumId)
try {
	ApiLock lock(apiLock());
	if (!isValid(context, VX_TYPE_CONTEXT))
		return VX_ERROR_INVALID_REFERENCE;
	if (!pKernelEnumId)
		return VX_ERROR_INVALID_PARAMETERS;
	if (context->userKernelsAllocated >= kUserKernelPoolSize)
		return VX_ERROR_NO_RESOURCES;
	*pKernelEnumId = VX_KERNEL_BASE(VX_ID_USER, 0) + context->userKernelsAllocated++;
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxAllocateUserKernelLibraryId(vx_context context, vx_enum *pLibraryId)
try {
	ApiLock lock(apiLock());
	if (!isValid(context, VX_TYPE_CONTEXT))
		return VX_ERROR_INVALID_REFERENCE;
	if (!pLibraryId)
		return VX_ERROR_INVALID_PARAMETERS;
	if (context->userLibrariesAllocated >= kUserLibraryIdMax)
		return VX_ERROR_NO_RESOURCES;
	*pLibraryId = ++context->userLibrariesAllocated;
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxRegisterKernelLibrary(vx_context context, const vx_char *module,
	vx_publish_kernels_f publish, vx_unpublish_kernels_f unpublish)
try {
	ApiLock lock(apiLock());
	if (!isValid(context, VX_TYPE_CONTEXT))
		return VX_ERROR_INVALID_REFERENCE;
	if (!module || !*module || !publish || !unpublish)
		return VX_ERROR_INVALID_PARAMETERS;
	auto &entry = context->modules[module];
	if (entry.loaded)
		return VX_ERROR_INVALID_PARAMETERS;
	entry.registered = true;
	entry.publish = publish;
	entry.unpublish = unpublish;
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxLoadKernels(vx_context context, const vx_char *module)
try {
	ApiLock lock(apiLock());
	if (!isValid(context, VX_TYPE_CONTEXT))
		return VX_ERROR_INVALID_REFERENCE;
	if (!module || !*module)
		return VX_ERROR_INVALID_PARAMETERS;

	auto &entry = context->modules[module];
	if (entry.loaded)
		return VX_SUCCESS;
	if (!entry.registered) {
		void *handle = dlopen(libraryFileName(module).c_str(), RTLD_NOW | RTLD_LOCAL);
		if (!handle) {
			log(context, VX_ERROR_INVALID_PARAMETERS, "cannot load module %s: %s",
				module, dlerror());
			context->modules.erase(module);
			return VX_ERROR_INVALID_PARAMETERS;
		}
		auto publish
			= reinterpret_cast<vx_publish_kernels_f>(dlsym(handle, "vxPublishKernels"));
		auto unpublish = reinterpret_cast<vx_unpublish_kernels_f>(
			dlsym(handle, "vxUnpublishKernels"));
		if (!publish || !unpublish) {
			log(context, VX_ERROR_INVALID_MODULE,
				"module %s lacks vxPublishKernels or vxUnpublishKernels", module);
			dlclose(handle);
			context->modules.erase(module);
			return VX_ERROR_INVALID_MODULE;
		}
		entry.handle = handle;
		entry.publish = publish;
		entry.unpublish = unpublish;
	}

	vx_publish_kernels_f publish = entry.publish;
	vx_status status = publish(context);
	auto &loaded = context->modules[module];
	if (status != VX_SUCCESS) {
		log(context, status, "vxPublishKernels of module %s failed", module);
		if (!loaded.registered) {
			dlclose(loaded.handle);
			context->modules.erase(module);
		}
		return status;
	}
	loaded.loaded = true;
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxUnloadKernels(vx_context context, const vx_char *module)
try {
	ApiLock lock(apiLock());
	if (!isValid(context, VX_TYPE_CONTEXT))
		return VX_ERROR_INVALID_REFERENCE;
	if (!module)
		return VX_ERROR_INVALID_PARAMETERS;
	auto it = context->modules.find(module);
	if (it == context->modules.end() || !it->second.loaded)
		return VX_ERROR_INVALID_PARAMETERS;

	vx_unpublish_kernels_f unpublish = it->second.unpublish;
	vx_status status = unpublish(context);
	it = context->modules.find(module);
	it->second.loaded = false;
	if (!it->second.registered) {
		context->unloadedHandles.push_back(it->second.handle);
		context->modules.erase(it);
	}
	return status;
}
VX_API_CATCH_STATUS

} /* extern "C" */
