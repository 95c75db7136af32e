/* SPDX-License-Identifier: MIT */
/* Tensor memory layouts (tensor_layout.h). */

#include "objects/tensor_layout.h"

#include <algorithm>
#include <cstring>

namespace vdla::vx {

vx_tensor memoryOwner(vx_tensor tensor)
{
	return tensor->root ? tensor->root : tensor;
}

bool ownsPackedMemory(vx_tensor tensor)
{
	return !tensor->root && !tensor->fromHandle;
}

bool packedBlockOfRoot(vx_tensor tensor)
{
	const vx_tensor root = tensor->root;
	if (!root || !ownsPackedMemory(root))
		return false;
	/* Whole dimensions first, then at most one partial, then 1s. */
	size_t d = 0;
	while (d < tensor->dims.size() && tensor->dims[d] == root->dims[d])
		d++;
	for (size_t rest = d + 1; rest < tensor->dims.size(); rest++)
		if (tensor->dims[rest] != 1)
			return false;
	return true;
}

bool addressedInPlace(vx_tensor tensor)
{
	vx_size count, stride;
	return tensor->root && ownsPackedMemory(tensor->root)
		&& foldDims(tensor, 3, kMaxTensorDims, count, stride);
}

bool foldDims(vx_tensor tensor, size_t first, size_t end, vx_size &count, vx_size &stride)
{
	const std::vector<vx_size> strides = tensor->strides();
	end = std::min(end, tensor->dims.size());
	count = 1;
	stride = 0;
	for (size_t d = first; d < end; d++) {
		const vx_size size = tensor->dims[d];
		if (size == 1)
			continue;
		/* The next dimension must start where the ones before end. */
		if (count == 1)
			stride = strides[d];
		else if (strides[d] != stride * count)
			return false;
		count *= size;
	}
	return true;
}

vx_size offsetInRoot(vx_tensor tensor)
{
	const std::vector<vx_size> strides = tensor->root->strides();
	vx_size offset = 0;
	for (size_t d = 0; d < tensor->rootStart.size(); d++)
		offset += tensor->rootStart[d] * strides[d];
	return offset;
}

void copyTensorElements(size_t rank, const vx_size *dims, vx_size elementSize, const uint8_t *src,
	const vx_size *srcStrides, uint8_t *dst, const vx_size *dstStrides)
{
	/* The inner dimensions both layouts keep contiguous make one run. */
	size_t first = 0;
	vx_size run = elementSize;
	while (first < rank
		&& (dims[first] == 1 || (srcStrides[first] == run && dstStrides[first] == run))) {
		run *= dims[first];
		first++;
	}

	/* No allocation: this runs for every copy of a tensor patch. */
	vx_size index[kMaxTensorDims] = {};
	while (true) {
		vx_size from = 0, to = 0;
		for (size_t d = first; d < rank; d++) {
			from += index[d] * srcStrides[d];
			to += index[d] * dstStrides[d];
		}
		memcpy(dst + to, src + from, run);

		size_t d = first;
		while (d < rank && ++index[d] == dims[d])
			index[d++] = 0;
		if (d == rank)
			break;
	}
}

std::vector<vx_size> packedStrides(const std::vector<vx_size> &dims, vx_size elementSize)
{
	std::vector<vx_size> strides(dims.size());
	vx_size stride = elementSize;
	for (size_t d = 0; d < dims.size(); d++) {
		strides[d] = stride;
		stride *= dims[d];
	}
	return strides;
}

void readPacked(vx_tensor tensor, uint8_t *packed)
{
	const std::vector<vx_size> strides = tensor->strides();
	const std::vector<vx_size> packing = packedStrides(tensor->dims, tensor->elementSize());
	copyTensorElements(tensor->dims.size(), tensor->dims.data(), tensor->elementSize(),
		tensor->storage(), strides.data(), packed, packing.data());
}

void writePacked(vx_tensor tensor, const uint8_t *packed)
{
	const std::vector<vx_size> strides = tensor->strides();
	const std::vector<vx_size> packing = packedStrides(tensor->dims, tensor->elementSize());
	copyTensorElements(tensor->dims.size(), tensor->dims.data(), tensor->elementSize(), packed,
		packing.data(), tensor->storage(), strides.data());
}

vx_size elementOffset(vx_tensor tensor, vx_size index)
{
	const std::vector<vx_size> strides = tensor->strides();
	vx_size offset = 0;
	for (size_t d = 0; d < tensor->dims.size(); d++) {
		offset += (index % tensor->dims[d]) * strides[d];
		index /= tensor->dims[d];
	}
	return offset;
}

namespace {

/* The bytes from @tensor's first element to the end of its last, in the
 * application's memory; empty while it has none. */
std::pair<const uint8_t *, const uint8_t *> applicationBytes(vx_tensor tensor)
{
	const uint8_t *first = tensor->storage();
	if (!first)
		return { nullptr, nullptr };
	const std::vector<vx_size> strides = tensor->strides();
	vx_size last = 0;
	for (size_t d = 0; d < tensor->dims.size(); d++)
		last += (tensor->dims[d] - 1) * strides[d];
	return { first, first + last + tensor->elementSize() };
}

/* Whether two different owners' application memory overlaps. */
bool handlesOverlap(vx_tensor a, vx_tensor b)
{
	vx_tensor ownerA = memoryOwner(a), ownerB = memoryOwner(b);
	/* Two tensors on one libvdla buffer: taken as sharing all of it. */
	if (ownerA->externalBuffer && ownerB->externalBuffer)
		return ownerA->placed && ownerB->placed
			&& ownerA->placed->sameMemory(*ownerB->placed);
	if (!ownerA->fromHandle || !ownerB->fromHandle)
		return false;
	const auto [aFirst, aEnd] = applicationBytes(a);
	const auto [bFirst, bEnd] = applicationBytes(b);
	return aFirst && bFirst && aFirst < bEnd && bFirst < aEnd;
}

} /* namespace */

bool tensorsShareMemory(vx_tensor a, vx_tensor b)
{
	if (memoryOwner(a) != memoryOwner(b))
		return handlesOverlap(a, b);
	/* A root covers all of its memory. */
	if (!a->root || !b->root)
		return true;
	for (size_t d = 0; d < a->dims.size(); d++) {
		if (a->rootStart[d] >= b->rootStart[d] + b->dims[d]
			|| b->rootStart[d] >= a->rootStart[d] + a->dims[d])
			return false;
	}
	return true;
}

} /* namespace vdla::vx */
