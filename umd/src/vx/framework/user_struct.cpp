/* SPDX-License-Identifier: MIT */
/*
 * User structs: the application registers a size (and optionally a name)
 * and gets a type enum for scalars and kernel parameters holding that
 * structure. Types are per context, from VX_TYPE_USER_STRUCT_START up.
 */

#include "framework/object.h"

#include <cstring>

using namespace vdla::vx;

namespace {

vx_enum registerStruct(vx_context context, vx_size size, const vx_char *name)
{
	if (!isValid(context, VX_TYPE_CONTEXT))
		return VX_TYPE_INVALID;
	if (size == 0) {
		log(context, VX_ERROR_INVALID_PARAMETERS, "vxRegisterUserStruct: a size of 0");
		return VX_TYPE_INVALID;
	}
	const std::string typeName = name ? name : "";
	for (const auto &registered : context->userStructs) {
		if (!typeName.empty() && registered.name == typeName) {
			log(context, VX_ERROR_INVALID_PARAMETERS,
				"vxRegisterUserStructWithName: \"%s\" is registered already", name);
			return VX_TYPE_INVALID;
		}
	}
	const vx_size capacity = VX_TYPE_USER_STRUCT_END - VX_TYPE_USER_STRUCT_START + 1;
	if (context->userStructs.size() == capacity) {
		log(context, VX_ERROR_NO_RESOURCES,
			"vxRegisterUserStruct: all %zu user struct "
			"types are registered",
			size_t(capacity));
		return VX_TYPE_INVALID;
	}
	context->userStructs.push_back({ size, typeName });
	return VX_TYPE_USER_STRUCT_START + vx_enum(context->userStructs.size() - 1);
}

/* The registration of @type in @context; null when it is not one. */
const _vx_context::UserStruct *findUserStruct(vx_context context, vx_enum type)
{
	const vx_size index = vx_size(type - VX_TYPE_USER_STRUCT_START);
	if (type < VX_TYPE_USER_STRUCT_START || index >= context->userStructs.size())
		return nullptr;
	return &context->userStructs[index];
}

} /* namespace */

namespace vdla::vx {

vx_size scalarTypeSize(vx_context context, vx_enum type)
{
	if (vx_size size = typeSize(type))
		return size;
	const _vx_context::UserStruct *registered = findUserStruct(context, type);
	return registered ? registered->size : 0;
}

} /* namespace vdla::vx */

extern "C" {

vx_enum vxRegisterUserStruct(vx_context context, vx_size size)
try {
	ApiLock lock(apiLock());
	return registerStruct(context, size, nullptr);
}
VX_API_CATCH(VX_TYPE_INVALID)

vx_enum vxRegisterUserStructWithName(vx_context context, vx_size size, const vx_char *type_name)
try {
	ApiLock lock(apiLock());
	return registerStruct(context, size, type_name);
}
VX_API_CATCH(VX_TYPE_INVALID)

vx_status vxGetUserStructNameByEnum(
	vx_context context, vx_enum user_struct_type, vx_char *type_name, vx_size size)
try {
	ApiLock lock(apiLock());
	if (!isValid(context, VX_TYPE_CONTEXT))
		return VX_ERROR_INVALID_REFERENCE;
	/*
	 * OpenVX 1.3.1: VX_ERROR_INVALID_PARAMETERS when user_struct_type "was
	 * not a valid user struct enumeration" (outside the range user structs
	 * are numbered in), VX_FAILURE when it "does not have an associated
	 * type name" (not registered, or registered without a name).
	 */
	if (!type_name || user_struct_type < VX_TYPE_USER_STRUCT_START
		|| user_struct_type > VX_TYPE_USER_STRUCT_END)
		return VX_ERROR_INVALID_PARAMETERS;
	const _vx_context::UserStruct *registered = findUserStruct(context, user_struct_type);
	if (!registered || registered->name.empty())
		return VX_FAILURE;
	const std::string &name = registered->name;
	if (size < name.size() + 1)
		return VX_ERROR_NO_MEMORY;
	memcpy(type_name, name.c_str(), name.size() + 1);
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxGetUserStructEnumByName(
	vx_context context, const vx_char *type_name, vx_enum *user_struct_type)
try {
	ApiLock lock(apiLock());
	if (!isValid(context, VX_TYPE_CONTEXT))
		return VX_ERROR_INVALID_REFERENCE;
	if (!user_struct_type)
		return VX_ERROR_INVALID_PARAMETERS;
	/* No name (NULL or empty) matches no user struct: VX_FAILURE, the one
	 * error the specification lists. */
	if (!type_name)
		return VX_FAILURE;
	for (size_t i = 0; *type_name && i < context->userStructs.size(); i++) {
		if (context->userStructs[i].name == type_name) {
			*user_struct_type = VX_TYPE_USER_STRUCT_START + vx_enum(i);
			return VX_SUCCESS;
		}
	}
	return VX_FAILURE;
}
VX_API_CATCH_STATUS

} /* extern "C" */
