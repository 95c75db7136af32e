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
	switch (type) {
	case BufferType::Raw:
		return "Raw";
	case BufferType::Tensor:
		return "Tensor";
	case BufferType::Image:
		return "Image";
	case BufferType::ImagePyramid:
		return "ImagePyramid";
	default:
		return "Array";
	}
}

/* Every value a power of two; else the error naming @key. */
Result<void> powersOfTwo(AttrKey key, const std::vector<uint64_t> &values)
{
	for (uint64_t v : values)
		if (!isPowerOfTwo(v))
			return Error(EINVAL, std::string(attrKeyName(key)) + ": " + std::to_string(v)
						     + " is not a power of two");
	return {};
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
	case AttrKey::ImagePlaneFormats:
		return "Image.PlaneFormats";
	case AttrKey::ImagePlaneWidths:
		return "Image.PlaneWidths";
	case AttrKey::ImagePlaneHeights:
		return "Image.PlaneHeights";
	case AttrKey::ImagePlaneBaseAlignment:
		return "Image.PlaneBaseAlignment";
	case AttrKey::ImagePitchAlignment:
		return "Image.PitchAlignment";
	case AttrKey::PyramidLevels:
		return "Pyramid.Levels";
	case AttrKey::PyramidScale:
		return "Pyramid.Scale";
	case AttrKey::ArrayElementSize:
		return "Array.ElementSize";
	case AttrKey::ArrayCapacity:
		return "Array.Capacity";
	case AttrKey::ArrayStrideAlignment:
		return "Array.StrideAlignment";
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
	auto has = [&](BufferType t) {
		return types_ && std::find(types_->begin(), types_->end(), t) != types_->end();
	};
	if (needed && !has(*needed) && !(*needed == BufferType::Image && has(BufferType::ImagePyramid)))
		return Error(EINVAL,
			std::string(attrKeyName(key)) + " needs General.Types with "
				+ typeName(*needed) + " set first");
	return {};
}

Result<void> AttrList::checkPlaneCount(AttrKey key, size_t count) const
{
	if (!count || count > kMaxImagePlanes)
		return Error(EINVAL, std::string(attrKeyName(key)) + ": 1 to "
					     + std::to_string(kMaxImagePlanes) + " planes, "
					     + std::to_string(count) + " given");
	for (size_t other : { imagePlaneFormats_ ? imagePlaneFormats_->size() : 0,
		     imagePlaneWidths_ ? imagePlaneWidths_->size() : 0,
		     imagePlaneHeights_ ? imagePlaneHeights_->size() : 0,
		     imagePlaneBaseAlignment_ ? imagePlaneBaseAlignment_->size() : 0,
		     imagePitchAlignment_ ? imagePitchAlignment_->size() : 0 })
		if (other && other != count)
			return Error(EINVAL, std::string(attrKeyName(key)) + ": "
						     + std::to_string(count) + " planes, where another "
						     + "Image key has " + std::to_string(other));
	return {};
}

Result<void> AttrList::setTypes(std::vector<BufferType> types)
{
	if (auto ok = checkSettable(AttrKey::Types, types_.has_value()); !ok)
		return ok;
	for (BufferType type : types)
		if (type < BufferType::Raw || type > BufferType::Array)
			return Error(EINVAL, "General.Types: not a buffer type");
	std::sort(types.begin(), types.end());
	types.erase(std::unique(types.begin(), types.end()), types.end());
	const bool imageTensor = types == std::vector<BufferType>{ BufferType::Tensor,
						 BufferType::Image };
	if (types.size() != 1 && !imageTensor)
		return Error(EINVAL, "General.Types: one type, or Image and Tensor together ("
					     + std::to_string(types.size()) + " given)");
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

Result<void> AttrList::setImagePlaneFormats(std::vector<ColorFormat> formats)
{
	const AttrKey key = AttrKey::ImagePlaneFormats;
	if (auto ok = checkSettable(key, imagePlaneFormats_.has_value(), BufferType::Image); !ok)
		return ok;
	if (auto ok = checkPlaneCount(key, formats.size()); !ok)
		return ok;
	for (ColorFormat f : formats)
		if (f < ColorFormat::U8 || f > ColorFormat::RGBA_F16)
			return Error(EINVAL, "Image.PlaneFormats: not a color format");
	imagePlaneFormats_ = std::move(formats);
	return {};
}

Result<void> AttrList::setImagePlaneWidths(std::vector<uint64_t> widths)
{
	const AttrKey key = AttrKey::ImagePlaneWidths;
	if (auto ok = checkSettable(key, imagePlaneWidths_.has_value(), BufferType::Image); !ok)
		return ok;
	if (auto ok = checkPlaneCount(key, widths.size()); !ok)
		return ok;
	if (std::find(widths.begin(), widths.end(), 0) != widths.end())
		return Error(EINVAL, "Image.PlaneWidths: a width of 0");
	imagePlaneWidths_ = std::move(widths);
	return {};
}

Result<void> AttrList::setImagePlaneHeights(std::vector<uint64_t> heights)
{
	const AttrKey key = AttrKey::ImagePlaneHeights;
	if (auto ok = checkSettable(key, imagePlaneHeights_.has_value(), BufferType::Image); !ok)
		return ok;
	if (auto ok = checkPlaneCount(key, heights.size()); !ok)
		return ok;
	if (std::find(heights.begin(), heights.end(), 0) != heights.end())
		return Error(EINVAL, "Image.PlaneHeights: a height of 0");
	imagePlaneHeights_ = std::move(heights);
	return {};
}

Result<void> AttrList::setImagePlaneBaseAlignment(std::vector<uint64_t> alignment)
{
	const AttrKey key = AttrKey::ImagePlaneBaseAlignment;
	if (auto ok = checkSettable(key, imagePlaneBaseAlignment_.has_value(), BufferType::Image);
		!ok)
		return ok;
	if (auto ok = checkPlaneCount(key, alignment.size()); !ok)
		return ok;
	if (auto ok = powersOfTwo(key, alignment); !ok)
		return ok;
	imagePlaneBaseAlignment_ = std::move(alignment);
	return {};
}

Result<void> AttrList::setImagePitchAlignment(std::vector<uint64_t> alignment)
{
	const AttrKey key = AttrKey::ImagePitchAlignment;
	if (auto ok = checkSettable(key, imagePitchAlignment_.has_value(), BufferType::Image); !ok)
		return ok;
	if (auto ok = checkPlaneCount(key, alignment.size()); !ok)
		return ok;
	if (auto ok = powersOfTwo(key, alignment); !ok)
		return ok;
	imagePitchAlignment_ = std::move(alignment);
	return {};
}

Result<void> AttrList::setPyramidLevels(uint32_t levels)
{
	if (auto ok = checkSettable(
		    AttrKey::PyramidLevels, pyramidLevels_.has_value(), BufferType::ImagePyramid);
		!ok)
		return ok;
	if (!levels || levels > kMaxPyramidLevels)
		return Error(EINVAL, "Pyramid.Levels: 1 to " + std::to_string(kMaxPyramidLevels)
					     + ", " + std::to_string(levels) + " given");
	pyramidLevels_ = levels;
	return {};
}

Result<void> AttrList::setPyramidScale(double scale)
{
	if (auto ok = checkSettable(
		    AttrKey::PyramidScale, pyramidScale_.has_value(), BufferType::ImagePyramid);
		!ok)
		return ok;
	if (!(scale > 0 && scale <= 1))
		return Error(EINVAL, "Pyramid.Scale: in (0, 1]");
	pyramidScale_ = scale;
	return {};
}

Result<void> AttrList::setArrayElementSize(uint64_t bytes)
{
	if (auto ok = checkSettable(
		    AttrKey::ArrayElementSize, arrayElementSize_.has_value(), BufferType::Array);
		!ok)
		return ok;
	if (!bytes)
		return Error(EINVAL, "Array.ElementSize: 0 bytes");
	arrayElementSize_ = bytes;
	return {};
}

Result<void> AttrList::setArrayCapacity(uint64_t capacity)
{
	if (auto ok = checkSettable(
		    AttrKey::ArrayCapacity, arrayCapacity_.has_value(), BufferType::Array);
		!ok)
		return ok;
	if (!capacity)
		return Error(EINVAL, "Array.Capacity: 0 elements");
	arrayCapacity_ = capacity;
	return {};
}

Result<void> AttrList::setArrayStrideAlignment(uint64_t bytes)
{
	if (auto ok = checkSettable(AttrKey::ArrayStrideAlignment,
		    arrayStrideAlignment_.has_value(), BufferType::Array);
		!ok)
		return ok;
	if (auto ok = powersOfTwo(AttrKey::ArrayStrideAlignment, { bytes }); !ok)
		return ok;
	arrayStrideAlignment_ = bytes;
	return {};
}

Result<AttrList> AttrList::forCopyEngine(std::string owner, Accessor engine,
	Permission permission) const
{
	if (reconciled_)
		return Error(EINVAL, "a copy engine's list is made from a party's own list, not "
				     "from a reconciled one");
	AttrList copy = *this;
	copy.owner_ = std::move(owner);
	copy.accessors_ = std::vector<Accessor>{ std::move(engine) };
	copy.requiredPermission_ = permission;
	copy.needCpuAccess_.reset();
	copy.enableCpuCache_.reset();
	copy.preferredDomain_.reset();
	copy.fallbackAllowed_.reset();
	return copy;
}

} /* namespace vdla */
