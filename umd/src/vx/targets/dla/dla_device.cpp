/* SPDX-License-Identifier: MIT */
/* Placing tensors in the memory of the context's DLA. */

#include "targets/dla/dla_device.h"

#include "targets/dla/dla_target.h"

#include "objects/tensor_layout.h"

#include <vdla/buffer.h>
#include <vdla/device.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace vdla::vx::dla {

vdla::Device *device(vx_context context)
{
	return static_cast<DlaTarget &>(target(context, NodeTarget::Dla)).device();
}

bool featureEnabled(const char *name)
{
	const char *value = getenv(name);
	return !value || strcmp(value, "0") != 0;
}

namespace {

/* A DLA buffer as the memory a tensor is placed in. */
class DlaMemory : public PlacedMemory
{
public:
	explicit DlaMemory(std::shared_ptr<Buffer> buffer) : buffer_(std::move(buffer)) { }
	uint8_t *data() const override { return buffer_->data(); }
	size_t size() const override { return size_t(buffer_->size()); }
	const std::shared_ptr<Buffer> &buffer() const { return buffer_; }
	/* Imports of one dma-buf into one Device share its GEM handle. */
	bool sameMemory(const PlacedMemory &other) const override
	{
		auto dla = dynamic_cast<const DlaMemory *>(&other);
		return dla && &dla->buffer_->device() == &buffer_->device()
			&& dla->buffer_->handle() == buffer_->handle();
	}

private:
	std::shared_ptr<Buffer> buffer_;
};

} /* namespace */

std::shared_ptr<Buffer> bufferOf(vx_tensor tensor)
{
	auto memory = dynamic_cast<const DlaMemory *>(tensor->placed.get());
	return memory ? memory->buffer() : nullptr;
}

void setBuffer(vx_tensor tensor, std::shared_ptr<Buffer> buffer)
{
	if (buffer)
		tensor->placed = std::make_shared<DlaMemory>(std::move(buffer));
	else
		tensor->placed.reset();
}

vx_status placeOnDevice(vx_tensor tensor, Buffer::Placement placement)
{
	const vx_size bytes = std::max<vx_size>(tensor->byteSize(), 1);
	const std::shared_ptr<Buffer> current = bufferOf(tensor);
	if (current && current->size() >= bytes && current->placement() == placement)
		return VX_SUCCESS;
	Device *dla = device(tensor->context);
	if (!dla)
		return VX_ERROR_NOT_SUPPORTED;
	/*
	 * Moving a tensor's own memory to the device frees its host copy:
	 * pointers the application holds from vxMapTensorPatch would dangle.
	 * The verification that wants it on the device fails instead.
	 */
	if (ownsPackedMemory(tensor) && memoryOwner(tensor)->openMaps) {
		log(tensor, VX_FAILURE,
			"the tensor is mapped: unmap it before verifying a graph that runs it "
			"on the DLA");
		return VX_FAILURE;
	}

	if (placement == Buffer::Placement::Sram) {
		/* SRAM is shared by every process: when it is full, memory
		 * does the same work a little slower. */
		auto created = Buffer::create(*dla, bytes, Buffer::Placement::Sram);
		if (created) {
			setBuffer(tensor, std::move(created.value()));
			tensor->dropHostData();
			return VX_SUCCESS;
		}
		if (current && current->size() >= bytes)
			return VX_SUCCESS;
	}

	auto created = Buffer::create(*dla, bytes);
	if (!created) {
		log(tensor, VX_ERROR_NO_MEMORY, "tensor of %zu bytes: %s", size_t(bytes),
			created.error().message().c_str());
		return VX_ERROR_NO_MEMORY;
	}
	std::shared_ptr<Buffer> buffer = std::move(created.value());
	auto mapped = buffer->map();
	if (!mapped) {
		log(tensor, VX_ERROR_NO_MEMORY, "mapping a tensor: %s",
			mapped.error().message().c_str());
		return VX_ERROR_NO_MEMORY;
	}

	/* The tensor's memory stays the application's or its root's: the
	 * buffer holds the packed copy DLA tasks work on (dla_plan.cpp). */
	if (!ownsPackedMemory(tensor)) {
		setBuffer(tensor, std::move(buffer));
		return VX_SUCCESS;
	}
	/* Keep what the application already wrote (an SRAM buffer has no
	 * CPU view: data() is null). */
	const uint8_t *old = current ? current->data() : tensor->data.data();
	const vx_size oldBytes = current ? current->size() : tensor->data.size();
	if (old)
		memcpy(*mapped, old, std::min<vx_size>(oldBytes, bytes));
	setBuffer(tensor, std::move(buffer));
	tensor->dropHostData();
	return VX_SUCCESS;
}

} /* namespace vdla::vx::dla */
