/* SPDX-License-Identifier: MIT */
/*
 * Reconciliation of attribute lists (docs/sharing.md): each key by its
 * rule, every conflict collected with each party's value, then the outputs
 * (permission, memory domain and why, size, alignment, tensor strides).
 */
#include <vdla/attr_list.h>

#include <algorithm>
#include <cerrno>
#include <functional>
#include <iomanip>
#include <set>
#include <sstream>

namespace vdla {

namespace {

std::string show(uint64_t value)
{
	return std::to_string(value);
}

std::string show(BufferType type)
{
	return type == BufferType::Raw ? "Raw" : "Tensor";
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

std::string showDomain(MemoryDomain domain, bool fallbackAllowed)
{
	if (domain == MemoryDomain::System)
		return "System";
	return fallbackAllowed ? "Sram (fallback allowed)" : "Sram (no fallback)";
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
class Reconciler
{
public:
	Reconciler(const std::vector<const AttrList *> &lists, AttrList &out)
		: lists_(lists), out_(out)
	{
	}

	std::vector<AttrConflict> run()
	{
		reconcileGeneral();
		if (hasType(out_.types_, BufferType::Raw))
			reconcileRaw();
		else if (hasType(out_.types_, BufferType::Tensor))
			reconcileTensor();
		chooseMemoryDomain();
		out_.reconciled_ = conflicts_.empty();
		return std::move(conflicts_);
	}

private:
	/* The lists that set a key (@get gives it), with each value as shown. */
	template <typename T, typename Show>
	std::vector<std::pair<std::string, std::string>> valuesOf(
		std::function<std::optional<T>(const AttrList &)> get, Show show) const
	{
		std::vector<std::pair<std::string, std::string>> values;
		for (const AttrList *list : lists_)
			if (auto value = get(*list))
				values.emplace_back(list->owner(), show(*value));
		return values;
	}

	/* Rule "must be equal"; "is required" when @required and no list sets it. */
	template <typename T>
	std::optional<T> equal(AttrKey key, std::function<std::optional<T>(const AttrList &)> get,
		bool required)
	{
		std::optional<T> agreed;
		bool differ = false;
		for (const AttrList *list : lists_) {
			auto value = get(*list);
			if (!value)
				continue;
			if (agreed && !(*agreed == *value))
				differ = true;
			if (!agreed)
				agreed = value;
		}
		auto showValue = [](const T &v) { return show(v); };
		if (differ) {
			conflicts_.push_back({ key, "must be equal", valuesOf<T>(get, showValue) });
			return std::nullopt;
		}
		if (!agreed && required)
			conflicts_.push_back({ key, "is required", {} });
		return agreed;
	}

	bool any(std::function<std::optional<bool>(const AttrList &)> get) const
	{
		return std::any_of(lists_.begin(), lists_.end(),
			[&](const AttrList *list) { return get(*list).value_or(false); });
	}

	uint64_t largest(std::function<std::optional<uint64_t>(const AttrList &)> get) const
	{
		uint64_t result = 1;
		for (const AttrList *list : lists_)
			result = std::max(result, get(*list).value_or(1));
		return result;
	}

	void reconcileGeneral()
	{
		out_.types_ = equal<std::vector<BufferType>>(
			AttrKey::Types, [](const AttrList &l) { return l.types(); }, true);
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

	void reconcileTensor()
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

	const std::vector<const AttrList *> &lists_;
	AttrList &out_;
	bool dlaParty_ = false;
	std::vector<AttrConflict> conflicts_;
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
		if (list->types() && list->types() != reconciled.types())
			refuse(*list, AttrKey::Types, "must be equal", show(*list->types()),
				orUnset(reconciled.types()));
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
		if (list->preferredMemoryDomain() == MemoryDomain::Sram
			&& !list->sramFallbackAllowed().value_or(true)
			&& reconciled.memoryDomain() != MemoryDomain::Sram)
			refuse(*list, AttrKey::MemoryDomain, "is not met", "Sram (no fallback)",
				"System");
	}
	return conflicts;
}

} /* namespace vdla */
