/* SPDX-License-Identifier: MIT */
/*
 * AttrList::encode() and decode(): attribute lists as bytes for another
 * process. A decoded list is built through the setters, so a value one
 * refuses is refused on receipt too; a reconciled list is reconciled again
 * from its keys, so a peer cannot hand over outputs its keys do not give.
 */
#include <vdla/attr_list.h>

#include <cerrno>

#include "wire.h"

namespace vdla {

namespace {

constexpr uint32_t kMagic = 0x4c414456; /* "VDAL" */
constexpr uint32_t kVersion = 1;

/* The key numbers on the wire: fixed, whatever AttrKey's order becomes. */
enum WireKey : uint32_t {
	kTypes = 1,
	kNeedCpuAccess = 2,
	kRequiredPermission = 3,
	kEnableCpuCache = 4,
	kAccessors = 5,
	kMemoryDomain = 6,
	kRawSize = 7,
	kRawAlignment = 8,
	kTensorDataType = 9,
	kTensorDims = 10,
	kTensorLayout = 11,
	kTensorAlignmentPerDim = 12,
	kTensorBaseAlignment = 13,
	kTensorQuantization = 14,
	kImagePlaneFormats = 15,
	kImagePlaneWidths = 16,
	kImagePlaneHeights = 17,
	kImagePlaneBaseAlignment = 18,
	kImagePitchAlignment = 19,
	kPyramidLevels = 20,
	kPyramidScale = 21,
	kArrayElementSize = 22,
	kArrayCapacity = 23,
	kArrayStrideAlignment = 24,
};

Error malformed(const std::string &why)
{
	return Error(EBADMSG, "the attribute list received is malformed: " + why);
}

} /* namespace */

namespace detail {

struct AttrCodec {
	static void writeKeys(const AttrList &l, wire::Writer &w)
	{
		uint32_t count = 0;
		wire::Writer keys;
		auto key = [&](WireKey id) {
			keys.u32(id);
			count++;
		};
		if (l.types_) {
			key(kTypes);
			keys.u32(static_cast<uint32_t>(l.types_->size()));
			for (BufferType t : *l.types_)
				keys.u8(static_cast<uint8_t>(t));
		}
		if (l.needCpuAccess_) {
			key(kNeedCpuAccess);
			keys.u8(*l.needCpuAccess_);
		}
		if (l.requiredPermission_) {
			key(kRequiredPermission);
			keys.u8(static_cast<uint8_t>(*l.requiredPermission_));
		}
		if (l.enableCpuCache_) {
			key(kEnableCpuCache);
			keys.u8(*l.enableCpuCache_);
		}
		/* A reconciled list no party named an accessor in has none: not a key. */
		if (l.accessors_ && !l.accessors_->empty()) {
			key(kAccessors);
			keys.u32(static_cast<uint32_t>(l.accessors_->size()));
			for (const Accessor &a : *l.accessors_) {
				keys.u8(static_cast<uint8_t>(a.kind));
				keys.u32(a.device);
				keys.str(a.name);
			}
		}
		if (l.preferredDomain_) {
			key(kMemoryDomain);
			keys.u8(static_cast<uint8_t>(*l.preferredDomain_));
			keys.u8(l.fallbackAllowed_.value_or(true));
		}
		if (l.rawSize_) {
			key(kRawSize);
			keys.u64(*l.rawSize_);
		}
		if (l.rawAlignment_) {
			key(kRawAlignment);
			keys.u64(*l.rawAlignment_);
		}
		if (l.tensorDataType_) {
			key(kTensorDataType);
			keys.u8(static_cast<uint8_t>(*l.tensorDataType_));
		}
		if (l.tensorDims_) {
			key(kTensorDims);
			keys.u64s(*l.tensorDims_);
		}
		if (l.tensorLayout_) {
			key(kTensorLayout);
			keys.u8(static_cast<uint8_t>(*l.tensorLayout_));
		}
		if (l.tensorAlignmentPerDim_) {
			key(kTensorAlignmentPerDim);
			keys.u64s(*l.tensorAlignmentPerDim_);
		}
		if (l.tensorBaseAlignment_) {
			key(kTensorBaseAlignment);
			keys.u64(*l.tensorBaseAlignment_);
		}
		if (l.tensorQuantization_) {
			key(kTensorQuantization);
			keys.f64(l.tensorQuantization_->scale);
			keys.u32(static_cast<uint32_t>(l.tensorQuantization_->zeroPoint));
		}
		if (l.imagePlaneFormats_) {
			key(kImagePlaneFormats);
			keys.u32(static_cast<uint32_t>(l.imagePlaneFormats_->size()));
			for (ColorFormat f : *l.imagePlaneFormats_)
				keys.u8(static_cast<uint8_t>(f));
		}
		auto u64s = [&](WireKey id, const std::optional<std::vector<uint64_t>> &v) {
			if (v) {
				key(id);
				keys.u64s(*v);
			}
		};
		auto u64 = [&](WireKey id, const std::optional<uint64_t> &v) {
			if (v) {
				key(id);
				keys.u64(*v);
			}
		};
		u64s(kImagePlaneWidths, l.imagePlaneWidths_);
		u64s(kImagePlaneHeights, l.imagePlaneHeights_);
		u64s(kImagePlaneBaseAlignment, l.imagePlaneBaseAlignment_);
		u64s(kImagePitchAlignment, l.imagePitchAlignment_);
		if (l.pyramidLevels_) {
			key(kPyramidLevels);
			keys.u32(*l.pyramidLevels_);
		}
		if (l.pyramidScale_) {
			key(kPyramidScale);
			keys.f64(*l.pyramidScale_);
		}
		u64(kArrayElementSize, l.arrayElementSize_);
		u64(kArrayCapacity, l.arrayCapacity_);
		u64(kArrayStrideAlignment, l.arrayStrideAlignment_);
		w.u32(count);
		for (uint8_t b : keys.take())
			w.u8(b);
	}

	/* Reads one key and sets it on @l through its setter. */
	static Result<void> readKey(wire::Reader &r, AttrList &l)
	{
		const uint32_t id = r.u32();
		switch (id) {
		case kTypes: {
			uint32_t n = r.u32();
			if (n > 8)
				return malformed("too many types");
			std::vector<BufferType> types;
			for (uint32_t i = 0; i < n; i++) {
				uint8_t t = r.u8();
				if (t > static_cast<uint8_t>(BufferType::Array))
					return malformed("an unknown buffer type");
				types.push_back(static_cast<BufferType>(t));
			}
			return r.ok() ? l.setTypes(types) : Result<void>{};
		}
		case kNeedCpuAccess:
			return l.setNeedCpuAccess(r.u8() != 0);
		case kRequiredPermission: {
			uint8_t p = r.u8();
			if (p > static_cast<uint8_t>(Permission::ReadWrite))
				return malformed("an unknown permission");
			return l.setRequiredPermission(static_cast<Permission>(p));
		}
		case kEnableCpuCache:
			return l.setEnableCpuCache(r.u8() != 0);
		case kAccessors: {
			uint32_t n = r.u32();
			if (n > 64)
				return malformed("too many accessors");
			std::vector<Accessor> accessors;
			for (uint32_t i = 0; i < n && r.ok(); i++) {
				uint8_t kind = r.u8();
				uint32_t device = r.u32();
				std::string name = r.str();
				if (kind > static_cast<uint8_t>(Accessor::Kind::Other))
					return malformed("an unknown accessor kind");
				accessors.push_back({ static_cast<Accessor::Kind>(kind), device, name });
			}
			return r.ok() ? l.setAccessors(accessors) : Result<void>{};
		}
		case kMemoryDomain: {
			uint8_t domain = r.u8();
			bool fallback = r.u8() != 0;
			if (domain > static_cast<uint8_t>(MemoryDomain::Sram))
				return malformed("an unknown memory domain");
			return l.setMemoryDomain(static_cast<MemoryDomain>(domain), fallback);
		}
		case kRawSize:
			return l.setRawSize(r.u64());
		case kRawAlignment:
			return l.setRawAlignment(r.u64());
		case kTensorDataType: {
			uint8_t t = r.u8();
			if (t > static_cast<uint8_t>(TensorDataType::Float32))
				return malformed("an unknown tensor data type");
			return l.setTensorDataType(static_cast<TensorDataType>(t));
		}
		case kTensorDims: {
			auto dims = r.u64s();
			return r.ok() ? l.setTensorDims(dims) : Result<void>{};
		}
		case kTensorLayout: {
			uint8_t layout = r.u8();
			if (layout > static_cast<uint8_t>(TensorLayout::NHWC))
				return malformed("an unknown tensor layout");
			return l.setTensorLayout(static_cast<TensorLayout>(layout));
		}
		case kTensorAlignmentPerDim: {
			auto alignment = r.u64s();
			return r.ok() ? l.setTensorAlignmentPerDim(alignment) : Result<void>{};
		}
		case kTensorBaseAlignment:
			return l.setTensorBaseAlignment(r.u64());
		case kTensorQuantization: {
			Quantization q;
			q.scale = r.f64();
			q.zeroPoint = static_cast<int32_t>(r.u32());
			return l.setTensorQuantization(q);
		}
		case kImagePlaneFormats: {
			uint32_t n = r.u32();
			if (n > AttrList::kMaxImagePlanes)
				return malformed("too many planes");
			std::vector<ColorFormat> formats;
			for (uint32_t i = 0; i < n; i++) {
				uint8_t f = r.u8();
				if (f > static_cast<uint8_t>(ColorFormat::RGBA_F16))
					return malformed("an unknown color format");
				formats.push_back(static_cast<ColorFormat>(f));
			}
			return r.ok() ? l.setImagePlaneFormats(formats) : Result<void>{};
		}
		case kImagePlaneWidths: {
			auto v = r.u64s();
			return r.ok() ? l.setImagePlaneWidths(v) : Result<void>{};
		}
		case kImagePlaneHeights: {
			auto v = r.u64s();
			return r.ok() ? l.setImagePlaneHeights(v) : Result<void>{};
		}
		case kImagePlaneBaseAlignment: {
			auto v = r.u64s();
			return r.ok() ? l.setImagePlaneBaseAlignment(v) : Result<void>{};
		}
		case kImagePitchAlignment: {
			auto v = r.u64s();
			return r.ok() ? l.setImagePitchAlignment(v) : Result<void>{};
		}
		case kPyramidLevels:
			return l.setPyramidLevels(r.u32());
		case kPyramidScale:
			return l.setPyramidScale(r.f64());
		case kArrayElementSize:
			return l.setArrayElementSize(r.u64());
		case kArrayCapacity:
			return l.setArrayCapacity(r.u64());
		case kArrayStrideAlignment:
			return l.setArrayStrideAlignment(r.u64());
		default:
			return Error(EPROTO, "the attribute list received has a key unknown here ("
						     + std::to_string(id) + "): a newer libvdla sent it");
		}
	}

	/*
	 * The reconciled list the sender's keys give, with the sender's
	 * outputs checked against it. System memory always serves, so the
	 * sender may have placed the buffer there where its keys alone would
	 * allow SRAM (a party that required system memory is not among the
	 * keys); SRAM the keys do not allow is refused.
	 */
	static Result<AttrList> verifyReconciled(const AttrList &inputs, wire::Reader &r)
	{
		const uint8_t permission = r.u8();
		const uint8_t domain = r.u8();
		const std::string reason = r.str();
		const bool hasSize = r.u8();
		const uint64_t size = r.u64();
		const uint64_t alignment = r.u64();
		const bool hasStrides = r.u8();
		const std::vector<uint64_t> strides = r.u64s();
		if (!r.done())
			return malformed("truncated or with bytes after its end");

		auto again = reconcile({ &inputs }, inputs.owner());
		if (!again)
			return again.error();
		if (!again->list)
			return Error(EBADMSG, "the reconciled list received does not reconcile: "
						      + again->conflicts.front().message());
		AttrList out = std::move(*again->list);
		auto differ = [](const std::string &what) {
			return Error(EBADMSG, "the reconciled list received gives " + what
						      + " that its keys do not give");
		};
		if (permission != static_cast<uint8_t>(*out.actualPermission_))
			return differ("a permission");
		if (hasSize != out.size_.has_value() || (hasSize && size != *out.size_))
			return differ("a size");
		if (alignment != out.alignment_.value_or(0))
			return differ("an alignment");
		if (hasStrides != out.tensorStrides_.has_value()
			|| (hasStrides && strides != *out.tensorStrides_))
			return differ("strides");
		if (domain == static_cast<uint8_t>(MemoryDomain::Sram)
			&& out.domain_ != MemoryDomain::Sram)
			return differ("an SRAM placement");
		if (domain > static_cast<uint8_t>(MemoryDomain::Sram))
			return malformed("an unknown memory domain");
		out.domain_ = static_cast<MemoryDomain>(domain);
		out.domainReason_ = reason;
		return out;
	}
};

} /* namespace detail */

std::vector<uint8_t> AttrList::encode() const
{
	wire::Writer w;
	w.u32(kMagic);
	w.u32(kVersion);
	w.u8(reconciled_);
	w.str(owner_);
	detail::AttrCodec::writeKeys(*this, w);
	if (reconciled_) {
		w.u8(static_cast<uint8_t>(actualPermission_.value_or(Permission::ReadOnly)));
		w.u8(static_cast<uint8_t>(domain_.value_or(MemoryDomain::System)));
		w.str(domainReason_);
		w.u8(size_.has_value());
		w.u64(size_.value_or(0));
		w.u64(alignment_.value_or(0));
		w.u8(tensorStrides_.has_value());
		w.u64s(tensorStrides_.value_or(std::vector<uint64_t>{}));
	}
	return w.take();
}

Result<AttrList> AttrList::decode(const uint8_t *data, size_t size)
{
	wire::Reader r(data, size);
	if (r.u32() != kMagic)
		return malformed("it is not an attribute list");
	if (uint32_t version = r.u32(); version != kVersion)
		return Error(EPROTO, "the attribute list received has format version "
					     + std::to_string(version) + ", this libvdla reads "
					     + std::to_string(kVersion));
	const bool reconciled = r.u8();
	AttrList list(r.str());
	const uint32_t keys = r.u32();
	if (!r.ok() || keys > 64)
		return malformed("a bad header");
	for (uint32_t i = 0; i < keys; i++) {
		auto ok = detail::AttrCodec::readKey(r, list);
		if (!r.ok())
			return malformed("truncated in its keys");
		/* readKey()'s own errors say what they are; a setter's is bad input. */
		const int code = ok ? 0 : ok.error().code();
		if (code == EBADMSG || code == EPROTO)
			return ok.error();
		if (code)
			return Error(EBADMSG, "the attribute list received sets a key a list may not: "
						      + ok.error().reason());
	}
	if (!reconciled) {
		if (!r.done())
			return malformed("bytes after its end");
		return list;
	}
	return detail::AttrCodec::verifyReconciled(list, r);
}

} /* namespace vdla */
