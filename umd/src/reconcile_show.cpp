/* SPDX-License-Identifier: MIT */
/*
 * How reconciliation shows keys' values in conflicts ("[1,3,224,224]",
 * "{cpu, dla:0}"), and the arithmetic the rules share.
 */
#include "reconcile_rules.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace vdla::detail {

std::string show(uint64_t value)
{
	return std::to_string(value);
}

std::string show(BufferType type)
{
	static const char *const names[] = { "Raw", "Tensor", "Image", "ImagePyramid", "Array" };
	return names[int(type)];
}

std::string show(const std::vector<BufferType> &types)
{
	std::string out = "{";
	for (size_t i = 0; i < types.size(); i++)
		out += (i ? ", " : "") + show(types[i]);
	return out + "}";
}

std::string show(Permission permission)
{
	return permission == Permission::ReadOnly ? "ReadOnly" : "ReadWrite";
}

std::string show(TensorDataType type)
{
	static const char *const names[] = { "Int8", "Uint8", "Int16", "Float16", "Float32" };
	return names[int(type)];
}

std::string show(TensorLayout layout)
{
	return layout == TensorLayout::NCHW ? "NCHW" : "NHWC";
}

std::string show(const Quantization &q)
{
	std::ostringstream out;
	out << "scale " << std::setprecision(17) << q.scale << " zero point " << q.zeroPoint;
	return out.str();
}

std::string show(const std::vector<uint64_t> &values)
{
	std::string out = "[";
	for (size_t i = 0; i < values.size(); i++)
		out += (i ? "," : "") + std::to_string(values[i]);
	return out + "]";
}

std::string show(const std::vector<Accessor> &accessors)
{
	std::string out = "{";
	for (size_t i = 0; i < accessors.size(); i++)
		out += (i ? ", " : "") + accessors[i].toString();
	return out + "}";
}

uint64_t elementSize(TensorDataType type)
{
	switch (type) {
	case TensorDataType::Int8:
	case TensorDataType::Uint8:
		return 1;
	case TensorDataType::Int16:
	case TensorDataType::Float16:
		return 2;
	default:
		return 4;
	}
}

/* @value rounded up to @alignment (a power of two); false if that overflows. */
bool alignUp(uint64_t value, uint64_t alignment, uint64_t &out)
{
	uint64_t sum;
	if (__builtin_add_overflow(value, alignment - 1, &sum))
		return false;
	out = sum & ~(alignment - 1);
	return true;
}

bool hasType(const std::optional<std::vector<BufferType>> &types, BufferType type)
{
	return types && std::find(types->begin(), types->end(), type) != types->end();
}

std::string show(ColorFormat format)
{
	static const char *const names[] = { "U8", "U16", "F16", "F32", "UV88", "RGB888",
		"RGBA8888", "RGBA_F16" };
	return names[int(format)];
}

std::string show(const std::vector<ColorFormat> &formats)
{
	std::string out = "[";
	for (size_t i = 0; i < formats.size(); i++)
		out += (i ? "," : "") + show(formats[i]);
	return out + "]";
}

std::string show(uint32_t value)
{
	return std::to_string(value);
}

std::string show(double value)
{
	std::ostringstream out;
	out << std::setprecision(17) << value;
	return out.str();
}

} /* namespace vdla::detail */
