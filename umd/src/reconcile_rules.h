/* SPDX-License-Identifier: MIT */
/*
 * What the reconcilers share (reconcile.cpp for the general, Raw and
 * Tensor keys, reconcile_image.cpp for Image, ImagePyramid and Array): how
 * values are shown in conflicts, the arithmetic of sizes, and the rules
 * every key follows (equal, OR, largest), over the lists being reconciled.
 */
#pragma once

#include <vdla/attr_list.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace vdla::detail {

std::string show(uint64_t value);
std::string show(BufferType type);
std::string show(const std::vector<BufferType> &types);
std::string show(Permission permission);
std::string show(TensorDataType type);
std::string show(TensorLayout layout);
std::string show(const Quantization &q);
std::string show(const std::vector<uint64_t> &values);
std::string show(const std::vector<Accessor> &accessors);
uint64_t elementSize(TensorDataType type);
/* @value rounded up to @alignment (a power of two); false if that overflows. */
bool alignUp(uint64_t value, uint64_t alignment, uint64_t &out);
bool hasType(const std::optional<std::vector<BufferType>> &types, BufferType type);
std::string show(ColorFormat format);
std::string show(const std::vector<ColorFormat> &formats);
std::string show(uint32_t value);
std::string show(double value);

/* The lists being reconciled, the conflicts found, and the rules. */
class Rules
{
public:
	explicit Rules(const std::vector<const AttrList *> &lists)
		: lists_(lists)
	{
	}

	std::vector<AttrConflict> takeConflicts() { return std::move(conflicts_); }

protected:
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

	const std::vector<const AttrList *> &lists_;
	std::vector<AttrConflict> conflicts_;
};

} /* namespace vdla::detail */
