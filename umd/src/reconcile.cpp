/* SPDX-License-Identifier: MIT */
/*
 * Reconciliation of attribute lists (docs/sharing.md): each key by its
 * rule, every conflict collected with each party's value, then the outputs
 * (permission, memory domain and why, size, alignment, tensor strides).
 */
#include <vdla/attr_list.h>

#include "reconcile_image.h"
#include "reconcile_rules.h"

#include <algorithm>
#include <cerrno>
#include <functional>
#include <iomanip>
#include <set>
#include <sstream>

namespace vdla {

using namespace detail;

namespace {

std::string showDomain(MemoryDomain domain, bool fallbackAllowed)
{
	if (domain == MemoryDomain::System)
		return "System";
	return fallbackAllowed ? "Sram (fallback allowed)" : "Sram (no fallback)";
}

bool usesDla(const std::vector<Accessor> &accessors)
{
	return std::any_of(accessors.begin(), accessors.end(),
		[](const Accessor &a) { return a.kind == Accessor::Kind::Dla; });
}

/* Why SRAM cannot hold a buffer these parties access, or "" if it can. */
std::string whyNotSram(const std::vector<Accessor> &accessors, bool cpuAccess)
{
	if (cpuAccess)
		return "the CPU accesses it";
	std::set<uint32_t> devices;
	for (const Accessor &a : accessors) {
		if (a.kind == Accessor::Kind::Other)
			return a.toString() + " accesses it";
		if (a.kind == Accessor::Kind::Cpu)
			return "the CPU accesses it";
		devices.insert(a.device);
	}
	if (devices.empty())
		return "no vDLA accesses it";
	if (devices.size() > 1)
		return "it is shared by " + std::to_string(devices.size())
		       + " vDLAs, and SRAM belongs to one";
	return "";
}

} /* namespace */

std::string AttrConflict::message() const
{
	std::string out = std::string(attrKeyName(key)) + " " + rule;
	for (size_t i = 0; i < values.size(); i++)
		out += (i ? ", " : ": ") + values[i].first + " " + values[i].second;
	return out;
}

namespace detail {

/* One reconciliation: the lists, the conflicts found, the list made. */
class Reconciler : public Rules
{
public:
	Reconciler(const std::vector<const AttrList *> &lists, AttrList &out)
		: Rules(lists), out_(out)
	{
	}

	std::vector<AttrConflict> run()
	{
		reconcileGeneral();
		const bool image = hasType(out_.types_, BufferType::Image);
		const bool tensor = hasType(out_.types_, BufferType::Tensor);
		if (hasType(out_.types_, BufferType::Raw))
			reconcileRaw();
		else if (tensor && !image)
			reconcileTensor();
		else if (image || hasType(out_.types_, BufferType::ImagePyramid)
			 || hasType(out_.types_, BufferType::Array))
			reconcileLayouts(tensor && image);
		chooseMemoryDomain();
		out_.reconciled_ = conflicts_.empty();
		return std::move(conflicts_);
	}

private:
	/* Image, ImagePyramid, Array, and an image that is a tensor too. */
	void reconcileLayouts(bool imageTensor)
	{
		ImageReconciler images(lists_, out_, dlaParty_);
		if (imageTensor) {
			reconcileTensorKeys();
			images.reconcileImageTensor();
		} else if (hasType(out_.types_, BufferType::Array)) {
			images.reconcileArray();
		} else {
			images.reconcileImage(hasType(out_.types_, BufferType::ImagePyramid));
		}
		for (AttrConflict &c : images.takeConflicts())
			conflicts_.push_back(std::move(c));
	}


	void reconcileGeneral()
	{
		out_.types_ = reconcileTypes();
		/* Naming the CPU as an accessor is needing CPU access. */
		out_.needCpuAccess_ = any([](const AttrList &l) { return l.needCpuAccess(); })
			|| std::any_of(lists_.begin(), lists_.end(), [](const AttrList *l) {
				   return l->accessors() && std::count(l->accessors()->begin(),
								    l->accessors()->end(),
								    Accessor::cpu());
			   });
		out_.enableCpuCache_ = any([](const AttrList &l) { return l.enableCpuCache(); });
		Permission permission = Permission::ReadOnly;
		for (const AttrList *list : lists_)
			permission = std::max(permission,
				list->requiredPermission().value_or(Permission::ReadOnly));
		out_.requiredPermission_ = permission;
		out_.actualPermission_ = permission;

		/* The union, and the CPU whenever a party needs CPU access. */
		std::set<Accessor> all;
		for (const AttrList *list : lists_)
			for (const Accessor &a : list->accessors().value_or(std::vector<Accessor>{}))
				all.insert(a);
		if (*out_.needCpuAccess_)
			all.insert(Accessor::cpu());
		out_.accessors_ = std::vector<Accessor>(all.begin(), all.end());
		dlaParty_ = usesDla(*out_.accessors_);
	}

	void reconcileRaw()
	{
		out_.rawSize_ = equal<uint64_t>(
			AttrKey::RawSize, [](const AttrList &l) { return l.rawSize(); }, true);
		uint64_t alignment = largest([](const AttrList &l) { return l.rawAlignment(); });
		out_.rawAlignment_ = alignment;
		setAlignment(alignment);
		out_.size_ = out_.rawSize_;
	}

	/*
	 * Equal, or together exactly Image and Tensor: lists of an image, of a
	 * tensor and of both describe one buffer seen either way.
	 */
	std::optional<std::vector<BufferType>> reconcileTypes()
	{
		auto types = [](const AttrList &l) { return l.types(); };
		std::vector<BufferType> all;
		bool differ = false;
		const std::vector<BufferType> *first = nullptr;
		for (const AttrList *list : lists_) {
			if (!list->types())
				continue;
			if (first && *first != *list->types())
				differ = true;
			if (!first)
				first = &*list->types();
			all.insert(all.end(), list->types()->begin(), list->types()->end());
		}
		std::sort(all.begin(), all.end());
		all.erase(std::unique(all.begin(), all.end()), all.end());
		if (!first) {
			conflicts_.push_back({ AttrKey::Types, "is required", {} });
			return std::nullopt;
		}
		if (!differ)
			return *first;
		if (all == std::vector<BufferType>{ BufferType::Tensor, BufferType::Image })
			return all;
		conflicts_.push_back({ AttrKey::Types,
			"must be equal, or together be Image and Tensor",
			valuesOf<std::vector<BufferType>>(types,
				[](const std::vector<BufferType> &v) { return show(v); }) });
		return std::nullopt;
	}

	/* The tensor's own keys, equal or required, before its layout. */
	void reconcileTensorKeys()
	{
		out_.tensorDataType_ = equal<TensorDataType>(AttrKey::TensorDataType,
			[](const AttrList &l) { return l.tensorDataType(); }, true);
		out_.tensorDims_ = equal<std::vector<uint64_t>>(
			AttrKey::TensorDims, [](const AttrList &l) { return l.tensorDims(); }, true);
		out_.tensorLayout_ = equal<TensorLayout>(
			AttrKey::TensorLayout, [](const AttrList &l) { return l.tensorLayout(); },
			false);
		out_.tensorQuantization_ = equal<Quantization>(AttrKey::TensorQuantization,
			[](const AttrList &l) { return l.tensorQuantization(); }, false);
	}

	void reconcileTensor()
	{
		reconcileTensorKeys();
		const uint64_t base = largest([](const AttrList &l) { return l.tensorBaseAlignment(); });
		out_.tensorBaseAlignment_ = base;
		setAlignment(base);
		if (!out_.tensorDims_ || !out_.tensorDataType_)
			return;
		const std::vector<uint64_t> &dims = *out_.tensorDims_;
		/* One list's layout and another's dims meet only here. */
		if (out_.tensorLayout_ && dims.size() != 4) {
			std::vector<std::pair<std::string, std::string>> values;
			for (const AttrList *list : lists_) {
				if (list->tensorLayout())
					values.emplace_back(list->owner(),
						"Tensor.Layout " + show(*list->tensorLayout()));
				if (list->tensorDims())
					values.emplace_back(list->owner(),
						"Tensor.Dims " + show(*list->tensorDims()));
			}
			conflicts_.push_back({ AttrKey::TensorLayout,
				"needs 4 dimensions in Tensor.Dims", values });
			return;
		}

		/* Per dimension the largest; a list of another count conflicts. */
		std::vector<uint64_t> alignment(dims.size(), 1);
		bool counts = true;
		for (const AttrList *list : lists_) {
			auto mine = list->tensorAlignmentPerDim();
			if (!mine)
				continue;
			if (mine->size() != dims.size()) {
				counts = false;
				continue;
			}
			for (size_t i = 0; i < dims.size(); i++)
				alignment[i] = std::max(alignment[i], (*mine)[i]);
		}
		if (!counts) {
			conflicts_.push_back({ AttrKey::TensorAlignmentPerDim,
				"must have one value per dimension of Tensor.Dims " + show(dims),
				valuesOf<std::vector<uint64_t>>(
					[](const AttrList &l) { return l.tensorAlignmentPerDim(); },
					[](const std::vector<uint64_t> &v) { return show(v); }) });
			return;
		}
		const uint64_t element = elementSize(*out_.tensorDataType_);
		if (alignment.back() > element) {
			conflicts_.push_back({ AttrKey::TensorAlignmentPerDim,
				"cannot align the innermost dimension beyond the element size ("
					+ std::to_string(element) + " bytes)",
				valuesOf<std::vector<uint64_t>>(
					[](const AttrList &l) { return l.tensorAlignmentPerDim(); },
					[](const std::vector<uint64_t> &v) { return show(v); }) });
			return;
		}
		out_.tensorAlignmentPerDim_ = alignment;

		/* Innermost dimension the element; each outer one the inner
		 * extent rounded up to its alignment. A tensor whose size does
		 * not fit 64 bits conflicts rather than wrap round. */
		std::vector<uint64_t> strides(dims.size());
		uint64_t stride = element;
		for (size_t i = dims.size(); i-- > 0;) {
			const bool fits = alignUp(stride, alignment[i], stride);
			strides[i] = stride;
			if (!fits || __builtin_mul_overflow(stride, dims[i], &stride)) {
				conflicts_.push_back({ AttrKey::TensorDims,
					"describe more than 2^64 bytes",
					valuesOf<std::vector<uint64_t>>(
						[](const AttrList &l) { return l.tensorDims(); },
						[](const std::vector<uint64_t> &v) { return show(v); }) });
				return;
			}
		}
		out_.tensorStrides_ = strides;
		out_.size_ = stride;
		/* The buffer starts where every dimension's stride is aligned. */
		setAlignment(std::max(base, *std::max_element(alignment.begin(), alignment.end())));
	}

	/* The buffer's alignment: @wanted, at least a page when a vDLA maps it. */
	void setAlignment(uint64_t wanted)
	{
		out_.alignment_ = dlaParty_ ? std::max(wanted, AttrList::kDlaAlignment) : wanted;
	}

	/*
	 * SRAM when a party prefers it and SRAM can serve; system memory
	 * otherwise, with the reason. A preference without fallback binds:
	 * SRAM that cannot serve, or a party requiring system memory while
	 * another requires SRAM, conflicts.
	 */
	void chooseMemoryDomain()
	{
		bool wantSram = false, sramFallback = true;
		std::string requiresSystem;
		for (const AttrList *list : lists_) {
			const bool fallback = list->sramFallbackAllowed().value_or(true);
			if (list->preferredMemoryDomain() == MemoryDomain::Sram) {
				wantSram = true;
				sramFallback = sramFallback && fallback;
			} else if (list->preferredMemoryDomain() == MemoryDomain::System && !fallback
				   && requiresSystem.empty()) {
				requiresSystem = list->owner();
			}
		}
		out_.domain_ = MemoryDomain::System;
		out_.preferredDomain_ = wantSram ? MemoryDomain::Sram : MemoryDomain::System;
		out_.fallbackAllowed_ = sramFallback && requiresSystem.empty();
		if (!wantSram)
			return;
		std::string why = whyNotSram(*out_.accessors_, *out_.needCpuAccess_);
		if (why.empty() && !requiresSystem.empty())
			why = requiresSystem + " requires system memory";
		if (why.empty()) {
			out_.domain_ = MemoryDomain::Sram;
			return;
		}
		out_.domainReason_ = "SRAM was preferred, but " + why;
		if (!sramFallback) {
			std::vector<std::pair<std::string, std::string>> values;
			for (const AttrList *list : lists_)
				if (auto domain = list->preferredMemoryDomain())
					values.emplace_back(list->owner(),
						showDomain(*domain,
							list->sramFallbackAllowed().value_or(true)));
			conflicts_.push_back({ AttrKey::MemoryDomain,
				"cannot be SRAM without a fallback: " + why + " (accessors "
					+ show(*out_.accessors_) + ")",
				values });
		}
	}

	AttrList &out_;
	bool dlaParty_ = false;
};

} /* namespace detail */

Result<Reconciliation> reconcile(const std::vector<const AttrList *> &lists,
	const std::string &owner)
{
	if (lists.empty() || std::find(lists.begin(), lists.end(), nullptr) != lists.end())
		return Error(EINVAL, "reconcile: at least one list, and no null");
	for (const AttrList *list : lists)
		if (list->reconciled())
			return Error(EINVAL, "reconcile: the list of " + list->owner()
						     + " is reconciled already; it takes unreconciled ones");
	Reconciliation result;
	AttrList out(owner);
	result.conflicts = detail::Reconciler(lists, out).run();
	if (result.conflicts.empty())
		result.list = std::move(out);
	return result;
}

namespace {

/*
 * The Image, ImagePyramid and Array part of validateReconciled(): geometry
 * equal, and the alignments @list asks for met by the layout computed.
 */
template <typename Refuse>
void validateLayouts(const AttrList &reconciled, const AttrList &list, Refuse &refuse)
{
	auto orUnset = [](const auto &value) { return value ? show(*value) : std::string("unset"); };
	auto sameAs = [&](AttrKey key, const auto &mine, const auto &theirs) {
		if (mine && mine != theirs)
			refuse(list, key, "must be equal", show(*mine), orUnset(theirs));
	};
	sameAs(AttrKey::ImagePlaneFormats, list.imagePlaneFormats(), reconciled.imagePlaneFormats());
	sameAs(AttrKey::ImagePlaneWidths, list.imagePlaneWidths(), reconciled.imagePlaneWidths());
	sameAs(AttrKey::ImagePlaneHeights, list.imagePlaneHeights(), reconciled.imagePlaneHeights());
	sameAs(AttrKey::PyramidLevels, list.pyramidLevels(), reconciled.pyramidLevels());
	sameAs(AttrKey::PyramidScale, list.pyramidScale(), reconciled.pyramidScale());
	sameAs(AttrKey::ArrayElementSize, list.arrayElementSize(), reconciled.arrayElementSize());
	sameAs(AttrKey::ArrayCapacity, list.arrayCapacity(), reconciled.arrayCapacity());
	const auto planes = reconciled.imagePlanes().value_or(std::vector<ImagePlaneLayout>{});
	for (auto [key, wanted] : { std::pair{ AttrKey::ImagePlaneBaseAlignment,
					    list.imagePlaneBaseAlignment() },
		     std::pair{ AttrKey::ImagePitchAlignment, list.imagePitchAlignment() } }) {
		if (!wanted)
			continue;
		bool met = wanted->size() == planes.size();
		std::vector<uint64_t> got;
		for (size_t p = 0; p < planes.size(); p++) {
			const uint64_t v = key == AttrKey::ImagePitchAlignment ? planes[p].pitch
									   : planes[p].offset;
			got.push_back(v);
			met = met && v % (*wanted)[p] == 0;
		}
		if (!met)
			refuse(list, key, "is not met by the planes", show(*wanted), show(got));
	}
	if (auto wanted = list.arrayStrideAlignment();
		wanted && reconciled.arrayStride().value_or(1) % *wanted)
		refuse(list, AttrKey::ArrayStrideAlignment, "is not met by the stride", show(*wanted),
			orUnset(reconciled.arrayStride()));
}

} /* namespace */

Result<std::vector<AttrConflict>> validateReconciled(const AttrList &reconciled,
	const std::vector<const AttrList *> &lists)
{
	if (!reconciled.reconciled())
		return Error(EINVAL, "validateReconciled: the list of " + reconciled.owner()
					     + " is not reconciled");
	if (std::find(lists.begin(), lists.end(), nullptr) != lists.end())
		return Error(EINVAL, "validateReconciled: a null list");
	std::vector<AttrConflict> conflicts;
	/* Adds a conflict naming the party's value and the reconciled one. */
	auto refuse = [&](const AttrList &list, AttrKey key, const std::string &rule,
			      const std::string &mine, const std::string &theirs) {
		conflicts.push_back({ key, rule,
			{ { list.owner(), mine }, { reconciled.owner(), theirs } } });
	};
	auto orUnset = [](const auto &value) { return value ? show(*value) : std::string("unset"); };
	for (const AttrList *list : lists) {
		/* An image's or a tensor's list is served by a buffer that is both. */
		const auto types = reconciled.types().value_or(std::vector<BufferType>{});
		if (list->types()
			&& !std::includes(types.begin(), types.end(), list->types()->begin(),
				list->types()->end()))
			refuse(*list, AttrKey::Types, "must be among the reconciled types",
				show(*list->types()), orUnset(reconciled.types()));
		if (list->needCpuAccess().value_or(false) && !reconciled.needCpuAccess().value_or(false))
			refuse(*list, AttrKey::NeedCpuAccess, "is not granted", "true", "false");
		if (list->enableCpuCache().value_or(false) && !reconciled.enableCpuCache().value_or(false))
			refuse(*list, AttrKey::EnableCpuCache, "is not granted", "true", "false");
		if (list->requiredPermission()
			&& *list->requiredPermission() > reconciled.actualPermission().value_or(
				   Permission::ReadOnly))
			refuse(*list, AttrKey::RequiredPermission, "exceeds what was granted",
				show(*list->requiredPermission()),
				show(reconciled.actualPermission().value_or(Permission::ReadOnly)));
		const std::vector<Accessor> granted
			= reconciled.accessors().value_or(std::vector<Accessor>{});
		for (const Accessor &a : list->accessors().value_or(std::vector<Accessor>{}))
			if (!std::binary_search(granted.begin(), granted.end(), a))
				refuse(*list, AttrKey::Accessors, "names an accessor not reconciled",
					a.toString(), show(granted));
		if (list->rawSize() && list->rawSize() != reconciled.rawSize())
			refuse(*list, AttrKey::RawSize, "must be equal", show(*list->rawSize()),
				orUnset(reconciled.rawSize()));
		const uint64_t alignment = reconciled.alignment().value_or(1);
		for (auto [key, wanted] : { std::pair{ AttrKey::RawAlignment, list->rawAlignment() },
			     std::pair{ AttrKey::TensorBaseAlignment, list->tensorBaseAlignment() } })
			if (wanted && alignment % *wanted)
				refuse(*list, key, "is not met", show(*wanted), show(alignment));
		if (list->tensorDataType() && list->tensorDataType() != reconciled.tensorDataType())
			refuse(*list, AttrKey::TensorDataType, "must be equal",
				show(*list->tensorDataType()), orUnset(reconciled.tensorDataType()));
		if (list->tensorDims() && list->tensorDims() != reconciled.tensorDims())
			refuse(*list, AttrKey::TensorDims, "must be equal", show(*list->tensorDims()),
				orUnset(reconciled.tensorDims()));
		if (list->tensorLayout() && list->tensorLayout() != reconciled.tensorLayout())
			refuse(*list, AttrKey::TensorLayout, "must be equal", show(*list->tensorLayout()),
				orUnset(reconciled.tensorLayout()));
		if (list->tensorQuantization()
			&& !(reconciled.tensorQuantization()
				&& *reconciled.tensorQuantization() == *list->tensorQuantization()))
			refuse(*list, AttrKey::TensorQuantization, "must be equal",
				show(*list->tensorQuantization()), orUnset(reconciled.tensorQuantization()));
		if (auto wanted = list->tensorAlignmentPerDim()) {
			const auto strides = reconciled.tensorStrides().value_or(std::vector<uint64_t>{});
			bool met = strides.size() == wanted->size();
			for (size_t i = 0; met && i < strides.size(); i++)
				met = strides[i] % (*wanted)[i] == 0;
			if (!met)
				refuse(*list, AttrKey::TensorAlignmentPerDim,
					"is not met by the strides", show(*wanted), show(strides));
		}
		validateLayouts(reconciled, *list, refuse);
		if (list->preferredMemoryDomain() == MemoryDomain::Sram
			&& !list->sramFallbackAllowed().value_or(true)
			&& reconciled.memoryDomain() != MemoryDomain::Sram)
			refuse(*list, AttrKey::MemoryDomain, "is not met", "Sram (no fallback)",
				"System");
	}
	return conflicts;
}

} /* namespace vdla */
