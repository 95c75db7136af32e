/* SPDX-License-Identifier: MIT */
/* vdla::onnx::Tensor: a dense row-major tensor of one ONNX element type. */

#include <vdla/onnx.h>

#include "tensor_proto.h"

#include <sstream>
#include <stdexcept>

namespace vdla::onnx {

size_t dataTypeSize(DataType type)
{
	switch (type) {
	case DataType::Bool:
	case DataType::Int8:
	case DataType::Uint8: return 1;
	case DataType::Int16:
	case DataType::Uint16:
	case DataType::Float16: return 2;
	case DataType::Float:
	case DataType::Int32:
	case DataType::Uint32: return 4;
	case DataType::Double:
	case DataType::Int64:
	case DataType::Uint64: return 8;
	default: return 0;
	}
}

const char *dataTypeName(DataType type)
{
	switch (type) {
	case DataType::Float: return "float";
	case DataType::Uint8: return "uint8";
	case DataType::Int8: return "int8";
	case DataType::Uint16: return "uint16";
	case DataType::Int16: return "int16";
	case DataType::Int32: return "int32";
	case DataType::Int64: return "int64";
	case DataType::Bool: return "bool";
	case DataType::Float16: return "float16";
	case DataType::Double: return "double";
	case DataType::Uint32: return "uint32";
	case DataType::Uint64: return "uint64";
	default: return "unsupported type";
	}
}

/*
 * The largest tensor libvdla allocates. Shapes come from model files, which
 * are untrusted: a product that overflows, or a size that would be zero-filled
 * until the OOM killer ends the process, is refused instead.
 */
static constexpr int64_t kMaxTensorBytes = int64_t(1) << 32;

static int64_t countElements(const std::vector<int64_t> &shape)
{
	int64_t n = 1;
	for (int64_t d : shape) {
		if (d < 0)
			throw std::invalid_argument("negative dimension");
		if (__builtin_mul_overflow(n, d, &n))
			throw std::invalid_argument("a tensor of more than 2^63 elements");
	}
	return n;
}

/*
 * A tensor of no elements can still have huge other dimensions
 * ([2^40, 2^20, 0]); kernels that loop over the dimensions before or after an
 * axis would run for hours over them. The product of the non-zero
 * dimensions is held to the element count of the largest tensor.
 */
static constexpr int64_t kMaxNonZeroProduct = int64_t(1) << 32;

static std::string describeShape(DataType type, const std::vector<int64_t> &shape)
{
	std::ostringstream text;
	text << dataTypeName(type) << '[';
	for (size_t i = 0; i < shape.size(); i++)
		text << (i ? "," : "") << shape[i];
	text << ']';
	return text.str();
}

static void checkNonZeroProduct(DataType type, const std::vector<int64_t> &shape)
{
	int64_t n = 1;
	for (int64_t d : shape)
		if (d > 0 && (__builtin_mul_overflow(n, d, &n) || n > kMaxNonZeroProduct))
			throw std::length_error("a tensor of " + describeShape(type, shape) +
						" has dimensions whose product exceeds the 2^32 "
						"elements libvdla allocates");
}

int64_t tensorBytes(DataType type, const std::vector<int64_t> &shape)
{
	const int64_t size = int64_t(dataTypeSize(type));
	if (!size)
		throw std::invalid_argument("tensor of an unsupported element type");
	int64_t bytes;
	if (__builtin_mul_overflow(countElements(shape), size, &bytes) || bytes > kMaxTensorBytes)
		throw std::length_error("a tensor of " + describeShape(type, shape) +
					" is larger than the 4 GiB libvdla allocates for one tensor");
	checkNonZeroProduct(type, shape);
	return bytes;
}

Tensor::Tensor(DataType type, std::vector<int64_t> shape)
	: type_(type), shape_(std::move(shape))
{
	data_.assign(size_t(tensorBytes(type_, shape_)), 0);
}

int64_t Tensor::elements() const
{
	return countElements(shape_);
}

template<typename T>
static constexpr DataType typeOf()
{
	if constexpr (std::is_same_v<T, float>) return DataType::Float;
	else if constexpr (std::is_same_v<T, double>) return DataType::Double;
	else if constexpr (std::is_same_v<T, int8_t>) return DataType::Int8;
	else if constexpr (std::is_same_v<T, uint8_t>) return DataType::Uint8;
	else if constexpr (std::is_same_v<T, int16_t>) return DataType::Int16;
	else if constexpr (std::is_same_v<T, uint16_t>) return DataType::Uint16;
	else if constexpr (std::is_same_v<T, int32_t>) return DataType::Int32;
	else if constexpr (std::is_same_v<T, uint32_t>) return DataType::Uint32;
	else if constexpr (std::is_same_v<T, int64_t>) return DataType::Int64;
	else if constexpr (std::is_same_v<T, uint64_t>) return DataType::Uint64;
	else if constexpr (std::is_same_v<T, bool>) return DataType::Bool;
	else return DataType::Undefined;
}

template<typename T>
T *Tensor::data()
{
	if (typeOf<T>() != type_)
		throw std::logic_error(std::string("tensor of ") + dataTypeName(type_) +
				       " read as " + dataTypeName(typeOf<T>()));
	return reinterpret_cast<T *>(data_.data());
}

template<typename T>
const T *Tensor::data() const
{
	return const_cast<Tensor *>(this)->data<T>();
}

#define VDLA_TENSOR_TYPE(T) \
	template T *Tensor::data<T>(); \
	template const T *Tensor::data<T>() const;
VDLA_TENSOR_TYPE(float)
VDLA_TENSOR_TYPE(double)
VDLA_TENSOR_TYPE(int8_t)
VDLA_TENSOR_TYPE(uint8_t)
VDLA_TENSOR_TYPE(int16_t)
VDLA_TENSOR_TYPE(uint16_t)
VDLA_TENSOR_TYPE(int32_t)
VDLA_TENSOR_TYPE(uint32_t)
VDLA_TENSOR_TYPE(int64_t)
VDLA_TENSOR_TYPE(uint64_t)
VDLA_TENSOR_TYPE(bool)
#undef VDLA_TENSOR_TYPE

Tensor Tensor::reshaped(std::vector<int64_t> shape) const
{
	if (countElements(shape) != elements())
		throw std::invalid_argument("reshape to a different element count");
	checkNonZeroProduct(type_, shape);
	Tensor out = *this;
	out.shape_ = std::move(shape);
	return out;
}

std::string Tensor::describe() const
{
	return describeShape(type_, shape_);
}

} /* namespace vdla::onnx */
