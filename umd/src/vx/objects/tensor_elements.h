/* SPDX-License-Identifier: MIT */
/*
 * A tensor's elements for the CPU paths (the neural-network layers and the
 * tensor kernels): read and written by byte offset through the tensor's
 * storage and strides, integers as raw values or as real ones
 * (raw * 2^-fixed_point_position), FLOAT32 as floats.
 */
#pragma once

#include "nn/nn_layers.h"
#include "framework/object.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace vdla::vx {

class TensorElements
{
public:
	explicit TensorElements(vx_tensor tensor)
		: base_(tensor->storage()), dims_(tensor->dims), strides_(tensor->strides()),
		  type_(tensor->dataType), position_(tensor->fixedPointPosition)
	{
	}

	bool hasMemory() const { return base_ != nullptr; }
	vx_enum type() const { return type_; }
	vx_int8 position() const { return position_; }
	bool isFloat() const { return type_ == VX_TYPE_FLOAT32; }
	size_t rank() const { return dims_.size(); }
	/* Beyond the rank a tensor has extent 1, so that loops over
	 * [W, H, C, batch] also cover tensors without a batch. */
	vx_size dim(size_t d) const { return d < dims_.size() ? dims_[d] : 1; }
	vx_size stride(size_t d) const { return d < strides_.size() ? strides_[d] : 0; }

	/* Elements in dimensions [first, last). */
	vx_size count(size_t first, size_t last) const
	{
		vx_size result = 1;
		for (size_t d = first; d < last; d++)
			result *= dim(d);
		return result;
	}

	/* Byte offset of element (x, y, c, n). */
	vx_size at(vx_size x, vx_size y = 0, vx_size c = 0, vx_size n = 0) const
	{
		return x * stride(0) + y * stride(1) + c * stride(2) + n * stride(3);
	}

	/* Byte offset of the index-th element of dimensions [first, last),
	 * the lowest dimension varying fastest. */
	vx_size flat(vx_size index, size_t first, size_t last) const
	{
		vx_size offset = 0;
		for (size_t d = first; d < last; d++) {
			offset += index % dim(d) * stride(d);
			index /= dim(d);
		}
		return offset;
	}

	/* Byte offset of @index (one entry per dimension); a dimension of
	 * extent 1 reads index 0 when @repeat: it repeats along another
	 * tensor's (element-wise kernels). */
	vx_size offset(const std::vector<vx_size> &index, bool repeat = false) const
	{
		vx_size offset = 0;
		for (size_t d = 0; d < strides_.size(); d++)
			if (!repeat || dims_[d] != 1)
				offset += index[d] * strides_[d];
		return offset;
	}

	int64_t raw(vx_size offset) const
	{
		switch (type_) {
		case VX_TYPE_INT8:
			return load<int8_t>(offset);
		case VX_TYPE_UINT8:
			return load<uint8_t>(offset);
		case VX_TYPE_INT32:
			return load<int32_t>(offset);
		default:
			return load<int16_t>(offset);
		}
	}

	double real(vx_size offset) const
	{
		return isFloat() ? load<float>(offset)
				 : std::ldexp(double(raw(offset)), -position_);
	}

	/* @value fits the type: callers narrow with nn::convert or quantize. */
	void storeRaw(vx_size offset, int64_t value)
	{
		if (type_ == VX_TYPE_INT8 || type_ == VX_TYPE_UINT8)
			store(offset, uint8_t(value));
		else if (type_ == VX_TYPE_INT32)
			store(offset, int32_t(value));
		else
			store(offset, int16_t(value));
	}

	/* A FLOAT32 tensor's element. */
	void storeFloat(vx_size offset, double value) { store(offset, float(value)); }

	/* Stored as float, or quantized to the tensor's format. */
	void storeReal(vx_size offset, double value)
	{
		if (isFloat())
			storeFloat(offset, value);
		else
			storeRaw(offset, nn::quantize(value, type_, position_));
	}

	/* Copies the element of @from at @fromOffset, of this tensor's type, to @offset. */
	void copyElement(vx_size offset, const TensorElements &from, vx_size fromOffset)
	{
		memcpy(base_ + offset, from.base_ + fromOffset, typeSize(type_));
	}

	/* All bits of the element at @offset zero (0 in every type). */
	void zeroElement(vx_size offset) { memset(base_ + offset, 0, typeSize(type_)); }

private:
	template <typename T> T load(vx_size offset) const
	{
		T value;
		memcpy(&value, base_ + offset, sizeof(value));
		return value;
	}

	template <typename T> void store(vx_size offset, T value)
	{
		memcpy(base_ + offset, &value, sizeof(value));
	}

	uint8_t *base_;
	std::vector<vx_size> dims_;
	std::vector<vx_size> strides_;
	vx_enum type_;
	vx_int8 position_;
};

} /* namespace vdla::vx */
