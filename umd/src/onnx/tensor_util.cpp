/* SPDX-License-Identifier: MIT */
/* Broadcasting, axes and element conversions shared by the kernels. */

#include "tensor_util.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace vdla::onnx {

std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape)
{
	std::vector<int64_t> strides(shape.size(), 1);
	for (size_t i = shape.size(); i-- > 1;)
		strides[i - 1] = strides[i] * shape[i];
	return strides;
}

std::string shapeString(const std::vector<int64_t> &shape)
{
	std::string text = "[";
	for (size_t i = 0; i < shape.size(); i++)
		text += (i ? "," : "") + std::to_string(shape[i]);
	return text + "]";
}

std::vector<int64_t> broadcastShapes(const std::vector<int64_t> &a, const std::vector<int64_t> &b)
{
	size_t rank = std::max(a.size(), b.size());
	std::vector<int64_t> out(rank);
	for (size_t i = 0; i < rank; i++) {
		int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
		int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
		if (da != db && da != 1 && db != 1)
			throw OpError(EINVAL, "shapes " + shapeString(a) + " and " + shapeString(b) +
						      " do not broadcast");
		out[i] = da == 1 ? db : da;
	}
	return out;
}

std::vector<int64_t> broadcastIndex(const std::vector<int64_t> &in, const std::vector<int64_t> &out)
{
	int64_t total = 1;
	for (int64_t d : out)
		total *= d;
	std::vector<int64_t> index(total);
	const size_t rank = out.size();
	const size_t offset = rank - in.size();
	std::vector<int64_t> inStrides = stridesOf(in);
	/* The stride of each output axis in the input: 0 where it broadcasts. */
	std::vector<int64_t> stride(rank, 0);
	for (size_t i = offset; i < rank; i++)
		stride[i] = in[i - offset] == 1 ? 0 : inStrides[i - offset];
	std::vector<int64_t> pos(rank, 0);
	int64_t at = 0;
	for (int64_t n = 0; n < total; n++) {
		index[n] = at;
		for (size_t i = rank; i-- > 0;) {
			pos[i]++;
			at += stride[i];
			if (pos[i] < out[i])
				break;
			at -= stride[i] * pos[i];
			pos[i] = 0;
		}
	}
	return index;
}

int64_t normaliseAxis(const OpContext &ctx, int64_t axis, int64_t rank, bool allowScalar)
{
	if (allowScalar && rank == 0 && (axis == 0 || axis == -1))
		return 0;
	if (axis < -rank || axis >= rank)
		throw OpError(EINVAL, ctx.node().opType + ": axis " + std::to_string(axis) +
					      " is out of range for rank " + std::to_string(rank));
	return axis < 0 ? axis + rank : axis;
}

int64_t checkedMul(const OpContext &ctx, int64_t a, int64_t b, const std::string &what)
{
	int64_t product;
	if (__builtin_mul_overflow(a, b, &product))
		throw OpError(EINVAL, ctx.node().opType + ": " + what + " overflows (" +
					      std::to_string(a) + " * " + std::to_string(b) + ")");
	return product;
}

int64_t checkedAdd(const OpContext &ctx, int64_t a, int64_t b, const std::string &what)
{
	int64_t sum;
	if (__builtin_add_overflow(a, b, &sum))
		throw OpError(EINVAL, ctx.node().opType + ": " + what + " overflows (" +
					      std::to_string(a) + " + " + std::to_string(b) + ")");
	return sum;
}

/* The largest scratch buffer, as the largest tensor (tensor.cpp). */
static constexpr int64_t kMaxScratchBytes = int64_t(1) << 32;

void checkScratch(const OpContext &ctx, int64_t elements, size_t elementBytes, const char *what)
{
	if (elements < 0)
		throw OpError(EINVAL, ctx.node().opType + ": " + what + " has a negative size");
	int64_t bytes;
	if (__builtin_mul_overflow(elements, int64_t(elementBytes), &bytes) ||
	    bytes > kMaxScratchBytes)
		throw std::length_error(ctx.node().opType + ": " + what + " of " +
					std::to_string(elements) + " elements is larger than the "
					"4 GiB libvdla allocates for one buffer");
}

std::vector<int64_t> toInt64s(const OpContext &ctx, const Tensor &tensor)
{
	std::vector<int64_t> values(tensor.elements());
	if (tensor.type() == DataType::Int64)
		values.assign(tensor.data<int64_t>(), tensor.data<int64_t>() + values.size());
	else if (tensor.type() == DataType::Int32)
		for (size_t i = 0; i < values.size(); i++)
			values[i] = tensor.data<int32_t>()[i];
	else
		throw OpError(EINVAL, ctx.node().opType + " needs an int64 or int32 tensor, not " +
					      tensor.describe());
	return values;
}

double elementAsDouble(const Tensor &tensor, int64_t i)
{
	switch (tensor.type()) {
	case DataType::Float: return tensor.data<float>()[i];
	case DataType::Double: return tensor.data<double>()[i];
	case DataType::Int8: return tensor.data<int8_t>()[i];
	case DataType::Uint8: return tensor.data<uint8_t>()[i];
	case DataType::Int16: return tensor.data<int16_t>()[i];
	case DataType::Uint16: return tensor.data<uint16_t>()[i];
	case DataType::Int32: return tensor.data<int32_t>()[i];
	case DataType::Uint32: return tensor.data<uint32_t>()[i];
	case DataType::Int64: return double(tensor.data<int64_t>()[i]);
	case DataType::Uint64: return double(tensor.data<uint64_t>()[i]);
	case DataType::Bool: return tensor.data<bool>()[i] ? 1 : 0;
	default: throw std::logic_error("elementAsDouble of an unsupported type");
	}
}

/* NaN, which no integer holds, gives 0, as Cast's truncateToInteger does (static_cast of NaN is UB). */
template<typename T>
static T saturate(double value)
{
	if (std::isnan(value))
		return T(0);
	double r = std::nearbyint(value);
	if (r <= double(std::numeric_limits<T>::min()))
		return std::numeric_limits<T>::min();
	if (r >= double(std::numeric_limits<T>::max()))
		return std::numeric_limits<T>::max();
	return static_cast<T>(r);
}

void storeFromDouble(Tensor &tensor, int64_t i, double value)
{
	switch (tensor.type()) {
	case DataType::Float: tensor.data<float>()[i] = float(value); break;
	case DataType::Double: tensor.data<double>()[i] = value; break;
	case DataType::Int8: tensor.data<int8_t>()[i] = saturate<int8_t>(value); break;
	case DataType::Uint8: tensor.data<uint8_t>()[i] = saturate<uint8_t>(value); break;
	case DataType::Int16: tensor.data<int16_t>()[i] = saturate<int16_t>(value); break;
	case DataType::Uint16: tensor.data<uint16_t>()[i] = saturate<uint16_t>(value); break;
	case DataType::Int32: tensor.data<int32_t>()[i] = saturate<int32_t>(value); break;
	case DataType::Uint32: tensor.data<uint32_t>()[i] = saturate<uint32_t>(value); break;
	case DataType::Int64: tensor.data<int64_t>()[i] = saturate<int64_t>(value); break;
	case DataType::Uint64: tensor.data<uint64_t>()[i] = saturate<uint64_t>(value); break;
	case DataType::Bool: tensor.data<bool>()[i] = value != 0; break;
	default: throw std::logic_error("storeFromDouble of an unsupported type");
	}
}

Tensor pointwiseWeights(const Tensor &b, bool transposed)
{
	if (transposed)
		return b.reshaped({ b.shape()[0], b.shape()[1], 1, 1 });
	const int64_t k = b.shape()[0], m = b.shape()[1];
	const size_t size = dataTypeSize(b.type());
	Tensor w(b.type(), { m, k, 1, 1 });
	const uint8_t *in = static_cast<const uint8_t *>(b.raw());
	uint8_t *out = static_cast<uint8_t *>(w.raw());
	for (int64_t i = 0; i < k; i++)
		for (int64_t j = 0; j < m; j++)
			std::memcpy(out + (j * k + i) * size, in + (i * m + j) * size, size);
	return w;
}

} /* namespace vdla::onnx */
