/* SPDX-License-Identifier: MIT */
/*
 * Object arrays (vx_object_array): a fixed number of items of one type,
 * each made like the exemplar (same meta data, not its contents). A node
 * replicated over an array (framework/replicate.cpp) runs once per item.
 * Items of a virtual array are virtual objects of its graph.
 */

#include "framework/object.h"

using namespace vdla::vx;

namespace {

/* More items than any graph of this implementation runs usefully: a count
 * beyond it is a mistake (or an attack) that would exhaust memory. */
constexpr vx_size kMaxItems = 65536;

/*
 * A new item like @exemplar, with an external count (the caller's); an
 * error object when it cannot be made. @graph: the virtual array's graph,
 * or null.
 */
vx_reference makeItem(vx_context context, vx_graph graph, vx_reference exemplar)
{
	switch (exemplar->type) {
	case VX_TYPE_TENSOR: {
		auto tensor = reinterpret_cast<vx_tensor>(exemplar);
		/* What a virtual exemplar's producer derived is not its own. */
		const bool open = tensor->isVirtual && !tensor->specifiedAtCreation;
		if (graph)
			return reinterpret_cast<vx_reference>(vxCreateVirtualTensor(graph,
				open ? 0 : tensor->dims.size(), open ? nullptr : tensor->dims.data(),
				open ? VX_TYPE_INVALID : tensor->dataType,
				tensor->fixedPointPosition));
		return reinterpret_cast<vx_reference>(vxCreateTensor(context, tensor->dims.size(),
			tensor->dims.data(), tensor->dataType, tensor->fixedPointPosition));
	}
	case VX_TYPE_IMAGE: {
		auto image = reinterpret_cast<vx_image>(exemplar);
		if (graph)
			return reinterpret_cast<vx_reference>(vxCreateVirtualImage(graph,
				image->requestedWidth, image->requestedHeight,
				image->requestedFormat));
		return reinterpret_cast<vx_reference>(
			vxCreateImage(context, image->width, image->height, image->format));
	}
	case VX_TYPE_SCALAR: {
		auto scalar = reinterpret_cast<vx_scalar>(exemplar);
		if (graph)
			return reinterpret_cast<vx_reference>(
				vxCreateVirtualScalar(graph, scalar->dataType));
		/* The exemplar's size: a vendor's struct type has no registered one. */
		return reinterpret_cast<vx_reference>(vxCreateScalarWithSize(
			context, scalar->dataType, nullptr, scalar->value.size()));
	}
	case VX_TYPE_LUT: {
		/* There are no virtual LUTs: a virtual array's are plain ones. */
		auto lut = reinterpret_cast<vx_lut>(exemplar);
		return reinterpret_cast<vx_reference>(vxCreateLUT(context, lut->dataType, lut->count));
	}
	default:
		return errorObject(context, VX_ERROR_INVALID_TYPE);
	}
}

/* What a non-virtual array needs of its exemplar: meta data all known. */
bool fullySpecified(vx_reference exemplar)
{
	if (exemplar->type == VX_TYPE_TENSOR)
		return reinterpret_cast<vx_tensor>(exemplar)->resolved();
	if (exemplar->type == VX_TYPE_IMAGE)
		return reinterpret_cast<vx_image>(exemplar)->resolved();
	if (exemplar->type == VX_TYPE_SCALAR)
		return reinterpret_cast<vx_scalar>(exemplar)->dataType != VX_TYPE_INVALID;
	return true;
}

vx_object_array createArray(vx_context context, vx_graph graph, vx_reference exemplar,
	vx_size count)
{
	if (!isValid(exemplar))
		return errorAs<vx_object_array>(context, VX_ERROR_INVALID_REFERENCE);
	if (count == 0 || count > kMaxItems) {
		log(exemplar, VX_ERROR_INVALID_PARAMETERS,
			"object array: %zu items (from 1 to %zu)", size_t(count), size_t(kMaxItems));
		return errorAs<vx_object_array>(context, VX_ERROR_INVALID_PARAMETERS);
	}
	if (!graph && !fullySpecified(exemplar)) {
		log(exemplar, VX_ERROR_INVALID_PARAMETERS,
			"object array: an exemplar whose meta data is not all known makes "
			"items only for a virtual array");
		return errorAs<vx_object_array>(context, VX_ERROR_INVALID_PARAMETERS);
	}

	/* Items made so far go if a later one cannot be made (or anything throws). */
	struct Undo {
		std::vector<vx_reference> items;
		bool keep = false;
		~Undo()
		{
			if (keep)
				return;
			for (vx_reference item : items)
				release(item, Count::Internal);
		}
	} made;
	made.items.reserve(count);
	for (vx_size i = 0; i < count; i++) {
		vx_reference item = makeItem(context, graph, exemplar);
		if (!isValid(item)) {
			vx_status status = isValid(item, VX_TYPE_ERROR) ? item->errorStatus
									: VX_ERROR_NO_RESOURCES;
			log(exemplar, status, "object array: item %zu cannot be made", size_t(i));
			return errorAs<vx_object_array>(context, status);
		}
		/* Held by the array alone until vxGetObjectArrayItem. */
		retain(item, Count::Internal);
		release(item, Count::External);
		item->indexInArray = i;
		made.items.push_back(item);
	}

	auto object = std::make_unique<_vx_object_array>(context);
	object->itemType = exemplar->type;
	object->isVirtual = graph != nullptr;
	object->scope = graph;
	object->items = made.items;
	vx_object_array array = registerNew(std::move(object), Count::External);
	made.keep = true;
	retain(graph, Count::Internal);
	for (vx_reference item : array->items)
		item->parentArray = array;
	return array;
}

} /* namespace */

void _vx_object_array::teardown()
{
	for (vx_reference item : items) {
		item->parentArray = nullptr;
		release(item, Count::Internal);
	}
	items.clear();
	release(scope, Count::Internal);
	scope = nullptr;
}

extern "C" {

vx_object_array vxCreateObjectArray(vx_context context, vx_reference exemplar, vx_size count)
try {
	ApiLock lock(apiLock());
	if (!isValid(context, VX_TYPE_CONTEXT))
		return nullptr;
	return createArray(context, nullptr, exemplar, count);
}
VX_API_CATCH(nullptr)

vx_object_array vxCreateVirtualObjectArray(vx_graph graph, vx_reference exemplar, vx_size count)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	return createArray(graph->context, graph, exemplar, count);
}
VX_API_CATCH(nullptr)

vx_reference vxGetObjectArrayItem(vx_object_array arr, vx_uint32 index)
try {
	ApiLock lock(apiLock());
	if (!isValid(arr, VX_TYPE_OBJECT_ARRAY))
		return nullptr;
	if (index >= arr->items.size()) {
		log(arr, VX_ERROR_INVALID_PARAMETERS, "vxGetObjectArrayItem: item %u of %zu",
			index, arr->items.size());
		return errorObject(arr->context, VX_ERROR_INVALID_PARAMETERS);
	}
	vx_reference item = arr->items[index];
	retain(item, Count::External);
	return item;
}
VX_API_CATCH(nullptr)

vx_status vxReleaseObjectArray(vx_object_array *arr)
try {
	ApiLock lock(apiLock());
	if (!arr || !isValid(*arr, VX_TYPE_OBJECT_ARRAY))
		return VX_ERROR_INVALID_REFERENCE;
	return vxReleaseReference(reinterpret_cast<vx_reference *>(arr));
}
VX_API_CATCH_STATUS

vx_status vxQueryObjectArray(vx_object_array arr, vx_enum attribute, void *ptr, vx_size size)
try {
	ApiLock lock(apiLock());
	if (!isValid(arr, VX_TYPE_OBJECT_ARRAY))
		return VX_ERROR_INVALID_REFERENCE;
	switch (attribute) {
	case VX_OBJECT_ARRAY_ITEMTYPE:
		return writeAttribute<vx_enum>(ptr, size, arr->itemType);
	case VX_OBJECT_ARRAY_NUMITEMS:
		return writeAttribute<vx_size>(ptr, size, arr->items.size());
	default:
		return VX_ERROR_NOT_SUPPORTED;
	}
}
VX_API_CATCH_STATUS

} /* extern "C" */
