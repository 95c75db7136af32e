/* SPDX-License-Identifier: MIT */
/*
 * Look-up tables (vx_lut): UINT8 tables of up to 256 entries and INT16
 * tables of up to 65536, whose entry VX_LUT_OFFSET (0, or count / 2 for
 * INT16) is the one of input value 0. The tensor table lookup kernel
 * (nn/tensor_ops.cpp) reads them.
 */

#include "framework/object.h"

#include <cstring>

using namespace vdla::vx;

namespace {

vx_size entrySize(vx_enum type)
{
	return type == VX_TYPE_INT16 ? sizeof(vx_int16) : sizeof(vx_uint8);
}

} /* namespace */

extern "C" {

vx_lut vxCreateLUT(vx_context context, vx_enum data_type, vx_size count)
try {
	ApiLock lock(apiLock());
	if (!isValid(context, VX_TYPE_CONTEXT))
		return nullptr;
	if (data_type != VX_TYPE_UINT8 && data_type != VX_TYPE_INT16)
		return errorAs<vx_lut>(context, VX_ERROR_INVALID_TYPE);
	const vx_size limit = data_type == VX_TYPE_UINT8 ? 256 : 65536;
	if (count == 0 || count > limit)
		return errorAs<vx_lut>(context, VX_ERROR_INVALID_PARAMETERS);
	auto lut = std::make_unique<_vx_lut>(context);
	lut->dataType = data_type;
	lut->count = count;
	lut->data.assign(count * entrySize(data_type), 0);
	return registerNew(std::move(lut), Count::External);
}
VX_API_CATCH(nullptr)

vx_status vxReleaseLUT(vx_lut *lut)
try {
	ApiLock lock(apiLock());
	if (!lut || !isValid(*lut, VX_TYPE_LUT))
		return VX_ERROR_INVALID_REFERENCE;
	return vxReleaseReference(reinterpret_cast<vx_reference *>(lut));
}
VX_API_CATCH_STATUS

vx_status vxQueryLUT(vx_lut lut, vx_enum attribute, void *ptr, vx_size size)
try {
	ApiLock lock(apiLock());
	if (!isValid(lut, VX_TYPE_LUT))
		return VX_ERROR_INVALID_REFERENCE;
	switch (attribute) {
	case VX_LUT_TYPE:
		return writeAttribute<vx_enum>(ptr, size, lut->dataType);
	case VX_LUT_COUNT:
		return writeAttribute<vx_size>(ptr, size, lut->count);
	case VX_LUT_SIZE:
		return writeAttribute<vx_size>(ptr, size, lut->data.size());
	case VX_LUT_OFFSET:
		return writeAttribute<vx_uint32>(ptr, size, lut->offset());
	default:
		return VX_ERROR_NOT_SUPPORTED;
	}
}
VX_API_CATCH_STATUS

vx_status vxCopyLUT(vx_lut lut, void *user_ptr, vx_enum usage, vx_enum user_mem_type)
try {
	ApiLock lock(apiLock());
	if (!isValid(lut, VX_TYPE_LUT))
		return VX_ERROR_INVALID_REFERENCE;
	vx_status status = checkMemory(usage, user_mem_type, false);
	if (status != VX_SUCCESS)
		return status;
	if (!user_ptr)
		return VX_ERROR_INVALID_PARAMETERS;
	if (usage == VX_READ_ONLY)
		memcpy(user_ptr, lut->data.data(), lut->data.size());
	else
		memcpy(lut->data.data(), user_ptr, lut->data.size());
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxMapLUT(vx_lut lut, vx_map_id *map_id, void **ptr, vx_enum usage, vx_enum mem_type,
	vx_bitfield)
try {
	ApiLock lock(apiLock());
	if (!isValid(lut, VX_TYPE_LUT))
		return VX_ERROR_INVALID_REFERENCE;
	vx_status status = checkMemory(usage, mem_type, true);
	if (status != VX_SUCCESS)
		return status;
	if (!map_id || !ptr)
		return VX_ERROR_INVALID_PARAMETERS;
	/* The table never moves: the pointer is its storage. */
	*ptr = lut->data.data();
	*map_id = lut->nextMapId++;
	lut->maps[*map_id] = usage;
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxUnmapLUT(vx_lut lut, vx_map_id map_id)
try {
	ApiLock lock(apiLock());
	if (!isValid(lut, VX_TYPE_LUT))
		return VX_ERROR_INVALID_REFERENCE;
	if (!lut->maps.erase(map_id))
		return VX_ERROR_INVALID_PARAMETERS;
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

} /* extern "C" */
