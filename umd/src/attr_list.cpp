/* SPDX-License-Identifier: MIT */
/* vdla::AttrList: the keys, each set once, and their checks. */
#include <vdla/attr_list.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <tuple>

namespace vdla {

namespace {

bool isPowerOfTwo(uint64_t value)
{
	return value && !(value & (value - 1));
}

const char *typeName(BufferType type)
{
	return type == BufferType::Raw ? "Raw" : "Tensor";
}

/* One form per accessor: fields its kind does not use are cleared. */
Accessor normalized(Accessor a)
{
	if (a.kind != Accessor::Kind::Dla)
		a.device = 0;
	if (a.kind != Accessor::Kind::Other)
		a.name.clear();
	return a;
}

} /* namespace */

bool Accessor::operator==(const Accessor &other) const
{
	return kind == other.kind && device == other.device && name == other.name;
}

bool Accessor::operator<(const Accessor &other) const
{
	return std::tie(kind, device, name) < std::tie(other.kind, other.device, other.name);
}

std::string Accessor::toString() const
{
	switch (kind) {
	case Kind::Cpu:
		return "cpu";
	case Kind::Dla:
		return "dla:" + std::to_string(device);
	default:
		return "other:" + name;
	}
}

const char *attrKeyName(AttrKey key)
{
	switch (key) {
	case AttrKey::Types:
		return "General.Types";
	case AttrKey::NeedCpuAccess:
		return "General.NeedCpuAccess";
	case AttrKey::RequiredPermission:
		return "General.RequiredPermission";
	case AttrKey::EnableCpuCache:
		return "General.EnableCpuCache";
	case AttrKey::Accessors:
		return "General.Accessors";
	case AttrKey::MemoryDomain:
		return "General.MemoryDomain";
	case AttrKey::RawSize:
		return "Raw.Size";
	case AttrKey::RawAlignment:
		return "Raw.Alignment";
	case AttrKey::TensorDataType:
		return "Tensor.DataType";
	case AttrKey::TensorDims:
		return "Tensor.Dims";
	case AttrKey::TensorLayout:
		return "Tensor.Layout";
	case AttrKey::TensorAlignmentPerDim:
		return "Tensor.AlignmentPerDim";
	case AttrKey::TensorBaseAlignment:
		return "Tensor.BaseAlignment";
	case AttrKey::TensorQuantization:
		return "Tensor.Quantization";
	}
	return "?";
}

AttrList::AttrList(std::string owner) : owner_(std::move(owner))
{
}

Result<void> AttrList::checkSettable(
	AttrKey key, bool isSet, std::optional<BufferType> needed) const
{
	if (reconciled_)
		return Error(EACCES,
			std::string("a reconciled list is read-only (") + attrKeyName(key) + ")");
	if (isSet)
		return Error(EEXIST,
			std::string(attrKeyName(key)) + " is set already: a key is set once");
	if (needed
		&& (!types_ || std::find(types_->begin(), types_->end(), *needed) == types_->end()))
		return Error(EINVAL,
			std::string(attrKeyName(key)) + " needs General.Types with "
				+ typeName(*needed) + " set first");
	return {};
}

Result<void> AttrList::setTypes(std::vector<BufferType> types)
{
	if (auto ok = checkSettable(AttrKey::Types, types_.has_value()); !ok)
		return ok;
	for (BufferType type : types)
		if (type != BufferType::Raw && type != BufferType::Tensor)
			return Error(EINVAL, "General.Types: not a buffer type");
	if (types.size() != 1)
		return Error(EINVAL,
			"General.Types: one type (" + std::to_string(types.size())
				+ " given): a buffer of several is not supported yet");
	types_ = std::move(types);
	return {};
}

Result<void> AttrList::setNeedCpuAccess(bool need)
{
	if (auto ok = checkSettable(AttrKey::NeedCpuAccess, needCpuAccess_.has_value()); !ok)
		return ok;
	needCpuAccess_ = need;
	return {};
}

Result<void> AttrList::setRequiredPermission(Permission permission)
{
	if (auto ok = checkSettable(AttrKey::RequiredPermission, requiredPermission_.has_value());
		!ok)
		return ok;
	if (permission != Permission::ReadOnly && permission != Permission::ReadWrite)
		return Error(EINVAL, "General.RequiredPermission: not a permission");
	requiredPermission_ = permission;
	return {};
}

Result<void> AttrList::setEnableCpuCache(bool enable)
{
	if (auto ok = checkSettable(AttrKey::EnableCpuCache, enableCpuCache_.has_value()); !ok)
		return ok;
	enableCpuCache_ = enable;
	return {};
}

Result<void> AttrList::setAccessors(std::vector<Accessor> accessors)
{
	if (auto ok = checkSettable(AttrKey::Accessors, accessors_.has_value()); !ok)
		return ok;
	if (accessors.empty())
		return Error(EINVAL, "General.Accessors: at least one");
	for (Accessor &a : accessors) {
		if (a.kind == Accessor::Kind::Other && a.name.empty())
			return Error(EINVAL, "General.Accessors: another accessor needs a name");
		a = normalized(std::move(a));
	}
	std::sort(accessors.begin(), accessors.end());
	accessors.erase(std::unique(accessors.begin(), accessors.end()), accessors.end());
	accessors_ = std::move(accessors);
	return {};
}

Result<void> AttrList::setMemoryDomain(MemoryDomain preferred, bool fallbackAllowed)
{
	if (auto ok = checkSettable(AttrKey::MemoryDomain, preferredDomain_.has_value()); !ok)
		return ok;
	if (preferred != MemoryDomain::System && preferred != MemoryDomain::Sram)
		return Error(EINVAL, "General.MemoryDomain: not a memory domain");
	preferredDomain_ = preferred;
	fallbackAllowed_ = fallbackAllowed;
	return {};
}

Result<void> AttrList::setRawSize(uint64_t bytes)
{
	if (auto ok = checkSettable(AttrKey::RawSize, rawSize_.has_value(), BufferType::Raw); !ok)
		return ok;
	if (!bytes)
		return Error(EINVAL, "Raw.Size: 0 bytes");
	rawSize_ = bytes;
	return {};
}

Result<void> AttrList::setRawAlignment(uint64_t bytes)
{
	if (auto ok
		= checkSettable(AttrKey::RawAlignment, rawAlignment_.has_value(), BufferType::Raw);
		!ok)
		return ok;
	if (!isPowerOfTwo(bytes))
		return Error(EINVAL,
			"Raw.Alignment: " + std::to_string(bytes) + " is not a power of two");
	rawAlignment_ = bytes;
	return {};
}

Result<void> AttrList::setTensorDataType(TensorDataType type)
{
	if (auto ok = checkSettable(
		    AttrKey::TensorDataType, tensorDataType_.has_value(), BufferType::Tensor);
		!ok)
		return ok;
	if (type < TensorDataType::Int8 || type > TensorDataType::Float32)
		return Error(EINVAL, "Tensor.DataType: not a data type");
	tensorDataType_ = type;
	return {};
}

Result<void> AttrList::setTensorDims(std::vector<uint64_t> dims)
{
	if (auto ok
		= checkSettable(AttrKey::TensorDims, tensorDims_.has_value(), BufferType::Tensor);
		!ok)
		return ok;
	if (dims.empty() || dims.size() > kMaxTensorDims)
		return Error(EINVAL,
			"Tensor.Dims: " + std::to_string(dims.size()) + " dimensions (1 to "
				+ std::to_string(kMaxTensorDims) + ")");
	if (std::find(dims.begin(), dims.end(), 0) != dims.end())
		return Error(EINVAL, "Tensor.Dims: a dimension of 0");
	if (tensorLayout_ && dims.size() != 4)
		return Error(EINVAL, "Tensor.Dims: a layout is set, which needs 4 dimensions");
	if (tensorAlignmentPerDim_ && tensorAlignmentPerDim_->size() != dims.size())
		return Error(EINVAL, "Tensor.Dims: Tensor.AlignmentPerDim has another count");
	tensorDims_ = std::move(dims);
	return {};
}

Result<void> AttrList::setTensorLayout(TensorLayout layout)
{
	if (auto ok = checkSettable(
		    AttrKey::TensorLayout, tensorLayout_.has_value(), BufferType::Tensor);
		!ok)
		return ok;
	if (layout != TensorLayout::NCHW && layout != TensorLayout::NHWC)
		return Error(EINVAL, "Tensor.Layout: not a layout");
	if (tensorDims_ && tensorDims_->size() != 4)
		return Error(EINVAL,
			"Tensor.Layout: for 4 dimensions, and Tensor.Dims has "
				+ std::to_string(tensorDims_->size()));
	tensorLayout_ = layout;
	return {};
}

Result<void> AttrList::setTensorAlignmentPerDim(std::vector<uint64_t> alignment)
{
	if (auto ok = checkSettable(AttrKey::TensorAlignmentPerDim,
		    tensorAlignmentPerDim_.has_value(), BufferType::Tensor);
		!ok)
		return ok;
	if (alignment.empty() || alignment.size() > kMaxTensorDims
		|| (tensorDims_ && alignment.size() != tensorDims_->size()))
		return Error(EINVAL, "Tensor.AlignmentPerDim: one per dimension");
	for (uint64_t a : alignment)
		if (!isPowerOfTwo(a))
			return Error(EINVAL,
				"Tensor.AlignmentPerDim: " + std::to_string(a)
					+ " is not a power of two");
	tensorAlignmentPerDim_ = std::move(alignment);
	return {};
}

Result<void> AttrList::setTensorBaseAlignment(uint64_t bytes)
{
	if (auto ok = checkSettable(AttrKey::TensorBaseAlignment, tensorBaseAlignment_.has_value(),
		    BufferType::Tensor);
		!ok)
		return ok;
	if (!isPowerOfTwo(bytes))
		return Error(EINVAL,
			"Tensor.BaseAlignment: " + std::to_string(bytes)
				+ " is not a power of two");
	tensorBaseAlignment_ = bytes;
	return {};
}

Result<void> AttrList::setTensorQuantization(Quantization quantization)
{
	if (auto ok = checkSettable(AttrKey::TensorQuantization, tensorQuantization_.has_value(),
		    BufferType::Tensor);
		!ok)
		return ok;
	if (!(quantization.scale > 0) || !std::isfinite(quantization.scale))
		return Error(EINVAL, "Tensor.Quantization: the scale must be positive and finite");
	tensorQuantization_ = quantization;
	return {};
}

} /* namespace vdla */
