/* SPDX-License-Identifier: MIT */
/*
 * Where a tensor's elements are. A tensor created by vxCreateTensor or
 * vxCreateVirtualTensor owns packed memory (host, or the DLA's once a DLA
 * node uses it); one created from a handle uses the application's memory
 * with the application's strides; a view uses a box of its root's memory
 * with the root's strides. The DLA addresses most views in place, in
 * their root's device buffer with the root's strides (addressedInPlace());
 * from-handle tensors and their views are copied to and from a packed
 * device buffer around each DLA task (staged, dla_plan.cpp).
 */
#pragma once

#include "framework/object.h"

#include <vector>

namespace vdla::vx {

/*
 * A new tensor of the context, not registered yet: the caller fills it in
 * and publishes it with registerNew (data.cpp).
 */
std::unique_ptr<_vx_tensor_t> newTensor(vx_context context, vx_size numDims, const vx_size *dims,
	vx_enum dataType, vx_int8 fixedPointPosition);

/*
 * Whether [start, end) is a non-empty box of @tensor with its rank, or with
 * @lowerDims of any rank from 1 up (the patch then covers the first numDims
 * dimensions at index 0 of the others, as vxCopyTensorPatch and
 * vxMapTensorPatch allow). VX_ERROR_INVALID_PARAMETERS otherwise.
 */
vx_status checkTensorView(vx_tensor tensor, vx_size numDims, const vx_size *start,
	const vx_size *end, bool lowerDims = false);

/* The tensor owning @tensor's memory: its root, else itself. */
vx_tensor memoryOwner(vx_tensor tensor);

/*
 * Whether @tensor's memory is a read-only buffer (createTensorFromBuffer()
 * of a ReadOnly buffer, or a view of one): then logs that @what may not
 * write it, and the caller fails with VX_ERROR_NOT_SUPPORTED.
 */
bool refusesWrites(vx_tensor tensor, const char *what);

/*
 * Whether @tensor's elements are packed memory of its own (not a view, not
 * the application's). Others are worked on through a packed copy: staged
 * by DLA tasks, gathered by CPU kernels that want packed elements.
 */
bool ownsPackedMemory(vx_tensor tensor);

/*
 * Whether @tensor is a view whose elements are one packed block of a root
 * that owns packed memory: leading dimensions whole, one partial, the rest
 * 1 (a range of channels of [W, H, C], a batch of [W, H, C, N]).
 */
bool packedBlockOfRoot(vx_tensor tensor);

/*
 * Whether the DLA addresses @tensor in place, in its root's buffer at
 * offsetInRoot() with the root's strides, instead of through a staged
 * copy: a view of a root that owns packed memory, whose dimensions from
 * the fourth on walk with one stride (they become the batch). Any box of
 * a tensor of up to four dimensions is one.
 */
bool addressedInPlace(vx_tensor tensor);

/*
 * @tensor's dimensions [first, end) (end clipped to its rank) walked as
 * one: their element count, and the byte stride between neighbours in
 * @tensor's memory (strides(); 0 when the count is 1). False when no one
 * stride walks them: a dimension is partial and a later one is not 1.
 */
bool foldDims(vx_tensor tensor, size_t first, size_t end, vx_size &count, vx_size &stride);
/* The byte offset of a view's first element in its root's memory. */
vx_size offsetInRoot(vx_tensor tensor);

/* The most dimensions a tensor has (VX_CONTEXT_MAX_TENSOR_DIMS). */
constexpr size_t kMaxTensorDims = 6;

/*
 * Copies a box of @rank @dims elements of @elementSize bytes from @src,
 * laid out by @srcStrides, to @dst, laid out by @dstStrides, in runs as
 * long as both layouts keep contiguous. @rank <= kMaxTensorDims.
 */
void copyTensorElements(size_t rank, const vx_size *dims, vx_size elementSize, const uint8_t *src,
	const vx_size *srcStrides, uint8_t *dst, const vx_size *dstStrides);

/* The packed strides of @dims elements of @elementSize bytes. */
std::vector<vx_size> packedStrides(const std::vector<vx_size> &dims, vx_size elementSize);

/* @tensor's elements, packed, to @packed (byteSize() bytes); storage() must not be null. */
void readPacked(vx_tensor tensor, uint8_t *packed);
/* The reverse: @packed into @tensor's memory. */
void writePacked(vx_tensor tensor, const uint8_t *packed);

/* The byte offset from storage() of the element whose packed index is @index. */
vx_size elementOffset(vx_tensor tensor, vx_size index);

/*
 * Whether two tensors use some of the same memory: views of one root whose
 * boxes intersect, or tensors on the application's memory (from handle, or
 * views of such) whose byte ranges, first element to last, overlap. The
 * latter is judged on the handles at the time of asking.
 */
bool tensorsShareMemory(vx_tensor a, vx_tensor b);

} /* namespace vdla::vx */
