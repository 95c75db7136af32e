/* SPDX-License-Identifier: MIT */
/*
 * Tensors on the application's vdla buffers (vdla::vx::createTensorFromBuffer,
 * <vdla/vx_interop.h>): the context's DLA imports the buffer's dma-buf, and
 * the import is the tensor's placed memory for good. Nothing is copied: DLA
 * tasks address it in place, as any tensor owning packed memory.
 */

#include "targets/dla/dla_device.h"

#include "objects/tensor_layout.h"

#include <vdla/device.h>
#include <vdla/unique_fd.h>
#include <vdla/vx_interop.h>

#include <algorithm>
#include <string>

namespace vdla::vx {

namespace {

vx_tensor refuse(vx_context context, vx_status status, const std::string &why)
{
	log(context, status, "createTensorFromBuffer: %s", why.c_str());
	return errorAs<vx_tensor>(context, status);
}

} /* namespace */

vx_tensor createTensorFromBuffer(vx_context context, const std::vector<vx_size> &dims,
	vx_enum dataType, vx_int8 fixedPointPosition, const Buffer &buffer)
try {
	ApiLock lock(apiLock());
	if (!isValid(context, VX_TYPE_CONTEXT))
		return nullptr;
	if (dims.empty() || dims.size() > kMaxTensorDims
		|| std::find(dims.begin(), dims.end(), 0) != dims.end()
		|| !tensorSizeFits(dims.data(), dims.size(), typeSize(dataType)))
		return refuse(context, VX_ERROR_INVALID_DIMENSION,
			"from 1 to 6 dimensions, none zero, are needed");
	if (!isTensorType(dataType))
		return refuse(context, VX_ERROR_NOT_SUPPORTED, "not a tensor data type");
	if (buffer.placement() == Buffer::Placement::Sram)
		return refuse(
			context, VX_ERROR_NOT_SUPPORTED, "an SRAM buffer has no dma-buf to import");
	Device *dla = dla::device(context);
	if (!dla)
		return refuse(context, VX_ERROR_NOT_SUPPORTED, "the context has no DLA");

	auto tensor = newTensor(context, dims.size(), dims.data(), dataType, fixedPointPosition);
	if (tensor->byteSize() > buffer.size())
		return refuse(context, VX_ERROR_INVALID_PARAMETERS,
			"the tensor is larger than the buffer");
	/* The buffer's own access: a ReadOnly one cannot give more. */
	auto fd = buffer.exportFd(buffer.access());
	if (!fd)
		return refuse(context, VX_ERROR_NO_RESOURCES, "exporting: " + fd.error().message());
	UniqueFd dmabuf(*fd);
	auto imported = Buffer::import(*dla, dmabuf.get(), buffer.access());
	if (!imported)
		return refuse(context, VX_ERROR_NO_RESOURCES,
			"importing: " + imported.error().message());
	/* Without a mapping the CPU cannot reach it (VX_ERROR_NO_MEMORY
	 * there); DLA jobs need none. */
	(void)imported.value()->map();
	tensor->externalBuffer = true;
	/* What the driver granted this import, which its mappings and jobs obey. */
	tensor->readOnly = imported.value()->access() == Buffer::Access::ReadOnly;
	dla::setBuffer(tensor.get(), std::move(imported.value()));
	return registerNew(std::move(tensor), Count::External);
}
VX_API_CATCH(nullptr)

} /* namespace vdla::vx */
