/* SPDX-License-Identifier: MIT */
/*
 * Images, pyramids and arrays: their keys reconciled by the common rules,
 * then where each plane of each level lies. An image that is a tensor too
 * gets one layout both views describe: NHWC is one plane of packed pixels,
 * the tensor's C channels per pixel; NCHW is C planes of one channel, the
 * tensor's C dimension stepping from a plane to the next.
 */
#include "reconcile_image.h"

#include <cmath>

namespace vdla::detail {

namespace {

struct FormatInfo {
	uint64_t bytesPerPixel;
	uint64_t channels;
	/* The tensor data types whose elements a channel can be. */
	std::vector<TensorDataType> types;
};

FormatInfo formatInfo(ColorFormat format)
{
	const std::vector<TensorDataType> bytes = { TensorDataType::Int8, TensorDataType::Uint8 };
	switch (format) {
	case ColorFormat::U8:
		return { 1, 1, bytes };
	case ColorFormat::U16:
		return { 2, 1, { TensorDataType::Int16 } };
	case ColorFormat::F16:
		return { 2, 1, { TensorDataType::Float16 } };
	case ColorFormat::F32:
		return { 4, 1, { TensorDataType::Float32 } };
	case ColorFormat::UV88:
		return { 2, 2, bytes };
	case ColorFormat::RGB888:
		return { 3, 3, bytes };
	case ColorFormat::RGBA8888:
		return { 4, 4, bytes };
	default:
		return { 8, 4, { TensorDataType::Float16 } };
	}
}

bool holds(ColorFormat format, TensorDataType type)
{
	const auto types = formatInfo(format).types;
	return std::find(types.begin(), types.end(), type) != types.end();
}

/*
 * A pyramid level's extent from the one above: ceil(@extent x @scale), at
 * least 1, and never more than @extent (@scale is at most 1; a double near
 * 2^64 would round up past what a uint64_t holds).
 */
uint64_t nextLevel(uint64_t extent, double scale)
{
	const double next = std::ceil(double(extent) * scale);
	if (next >= double(extent))
		return extent;
	return std::max<uint64_t>(1, uint64_t(next));
}

/* @a * @b, false if it overflows. */
bool times(uint64_t a, uint64_t b, uint64_t &out)
{
	return !__builtin_mul_overflow(a, b, &out);
}

std::string showKey(const AttrList &l, AttrKey key)
{
	switch (key) {
	case AttrKey::ImagePlaneFormats:
		return l.imagePlaneFormats() ? show(*l.imagePlaneFormats()) : "";
	case AttrKey::ImagePlaneWidths:
		return l.imagePlaneWidths() ? show(*l.imagePlaneWidths()) : "";
	case AttrKey::ImagePlaneHeights:
		return l.imagePlaneHeights() ? show(*l.imagePlaneHeights()) : "";
	case AttrKey::TensorDims:
		return l.tensorDims() ? show(*l.tensorDims()) : "";
	case AttrKey::TensorLayout:
		return l.tensorLayout() ? show(*l.tensorLayout()) : "";
	case AttrKey::TensorDataType:
		return l.tensorDataType() ? show(*l.tensorDataType()) : "";
	case AttrKey::TensorAlignmentPerDim:
		return l.tensorAlignmentPerDim() ? show(*l.tensorAlignmentPerDim()) : "";
	default:
		return "";
	}
}

} /* namespace */

void ImageReconciler::conflict(AttrKey key, const std::string &rule,
	const std::vector<AttrKey> &keys)
{
	std::vector<std::pair<std::string, std::string>> values;
	for (const AttrList *list : lists_)
		for (AttrKey k : keys)
			if (std::string v = showKey(*list, k); !v.empty())
				values.emplace_back(list->owner(), std::string(attrKeyName(k)) + " " + v);
	conflicts_.push_back({ key, rule, values });
}

void ImageReconciler::setAlignment(uint64_t wanted)
{
	out_.alignment_ = dlaParty_ ? std::max(wanted, AttrList::kDlaAlignment) : wanted;
}

bool ImageReconciler::largestPerEntry(AttrKey key, size_t count,
	std::function<std::optional<std::vector<uint64_t>>(const AttrList &)> get,
	const std::string &what, std::vector<uint64_t> &out)
{
	out.assign(count, 1);
	bool counts = true;
	for (const AttrList *list : lists_) {
		auto mine = get(*list);
		if (!mine)
			continue;
		if (mine->size() != count) {
			counts = false;
			continue;
		}
		for (size_t i = 0; i < count; i++)
			out[i] = std::max(out[i], (*mine)[i]);
	}
	if (!counts)
		conflicts_.push_back({ key, "must have one value per " + what,
			valuesOf<std::vector<uint64_t>>(get,
				[](const std::vector<uint64_t> &v) { return show(v); }) });
	return counts;
}

bool ImageReconciler::reconcilePlaneKeys()
{
	out_.imagePlaneFormats_ = equal<std::vector<ColorFormat>>(AttrKey::ImagePlaneFormats,
		[](const AttrList &l) { return l.imagePlaneFormats(); }, true);
	out_.imagePlaneWidths_ = equal<std::vector<uint64_t>>(AttrKey::ImagePlaneWidths,
		[](const AttrList &l) { return l.imagePlaneWidths(); }, true);
	out_.imagePlaneHeights_ = equal<std::vector<uint64_t>>(AttrKey::ImagePlaneHeights,
		[](const AttrList &l) { return l.imagePlaneHeights(); }, true);
	if (!out_.imagePlaneFormats_ || !out_.imagePlaneWidths_ || !out_.imagePlaneHeights_)
		return false;
	const size_t planes = out_.imagePlaneFormats_->size();
	/* One list's formats and another's extents meet only here. */
	if (out_.imagePlaneWidths_->size() != planes || out_.imagePlaneHeights_->size() != planes) {
		conflict(AttrKey::ImagePlaneWidths, "must have one value per plane of Image.PlaneFormats",
			{ AttrKey::ImagePlaneFormats, AttrKey::ImagePlaneWidths,
				AttrKey::ImagePlaneHeights });
		return false;
	}
	std::vector<uint64_t> base, pitch;
	const std::string plane = "plane of Image.PlaneFormats";
	bool ok = largestPerEntry(AttrKey::ImagePlaneBaseAlignment, planes,
		[](const AttrList &l) { return l.imagePlaneBaseAlignment(); }, plane, base);
	ok = largestPerEntry(AttrKey::ImagePitchAlignment, planes,
		     [](const AttrList &l) { return l.imagePitchAlignment(); }, plane, pitch)
	     && ok;
	if (!ok)
		return false;
	out_.imagePlaneBaseAlignment_ = base;
	out_.imagePitchAlignment_ = pitch;
	return true;
}

void ImageReconciler::reconcileImage(bool pyramid)
{
	uint32_t levels = 1;
	double scale = 1;
	if (pyramid) {
		out_.pyramidLevels_ = equal<uint32_t>(AttrKey::PyramidLevels,
			[](const AttrList &l) { return l.pyramidLevels(); }, true);
		out_.pyramidScale_ = equal<double>(AttrKey::PyramidScale,
			[](const AttrList &l) { return l.pyramidScale(); }, true);
		levels = out_.pyramidLevels_.value_or(0);
		scale = out_.pyramidScale_.value_or(0);
	}
	if (!reconcilePlaneKeys() || !levels)
		return;
	const auto &formats = *out_.imagePlaneFormats_;
	std::vector<uint64_t> widths = *out_.imagePlaneWidths_, heights = *out_.imagePlaneHeights_;
	std::vector<std::vector<ImagePlaneLayout>> all;
	uint64_t cursor = 0;
	for (uint32_t level = 0; level < levels; level++) {
		std::vector<ImagePlaneLayout> planes;
		for (size_t p = 0; p < formats.size(); p++) {
			ImagePlaneLayout plane;
			plane.width = widths[p];
			plane.height = heights[p];
			uint64_t line, bytes;
			if (!times(widths[p], formatInfo(formats[p]).bytesPerPixel, line)
				|| !alignUp(line, (*out_.imagePitchAlignment_)[p], plane.pitch)
				|| !alignUp(cursor, (*out_.imagePlaneBaseAlignment_)[p], plane.offset)
				|| !times(plane.pitch, heights[p], bytes)
				|| __builtin_add_overflow(plane.offset, bytes, &cursor)) {
				conflict(AttrKey::ImagePlaneWidths, "describe more than 2^64 bytes",
					{ AttrKey::ImagePlaneWidths, AttrKey::ImagePlaneHeights });
				return;
			}
			planes.push_back(plane);
			/* The next level: ceil(extent x scale), at least 1. */
			widths[p] = nextLevel(widths[p], scale);
			heights[p] = nextLevel(heights[p], scale);
		}
		all.push_back(planes);
	}
	out_.imagePlanes_ = all.front();
	if (pyramid)
		out_.pyramidPlanes_ = all;
	out_.size_ = cursor;
	setAlignment(*std::max_element(out_.imagePlaneBaseAlignment_->begin(),
		out_.imagePlaneBaseAlignment_->end()));
}

void ImageReconciler::reconcileArray()
{
	out_.arrayElementSize_ = equal<uint64_t>(AttrKey::ArrayElementSize,
		[](const AttrList &l) { return l.arrayElementSize(); }, true);
	out_.arrayCapacity_ = equal<uint64_t>(AttrKey::ArrayCapacity,
		[](const AttrList &l) { return l.arrayCapacity(); }, true);
	const uint64_t alignment = largest([](const AttrList &l) { return l.arrayStrideAlignment(); });
	out_.arrayStrideAlignment_ = alignment;
	setAlignment(alignment);
	if (!out_.arrayElementSize_ || !out_.arrayCapacity_)
		return;
	uint64_t stride, size;
	if (!alignUp(*out_.arrayElementSize_, alignment, stride)
		|| !times(stride, *out_.arrayCapacity_, size)) {
		conflicts_.push_back({ AttrKey::ArrayCapacity, "describes more than 2^64 bytes",
			valuesOf<uint64_t>([](const AttrList &l) { return l.arrayCapacity(); },
				[](uint64_t v) { return show(v); }) });
		return;
	}
	out_.arrayStride_ = stride;
	out_.size_ = size;
}

void ImageReconciler::reconcileImageTensor()
{
	if (!reconcilePlaneKeys() || !out_.tensorDataType_ || !out_.tensorDims_)
		return;
	if (!out_.tensorLayout_) {
		conflicts_.push_back({ AttrKey::TensorLayout,
			"is required for a buffer that is an Image and a Tensor (NHWC or NCHW)", {} });
		return;
	}
	const auto &dims = *out_.tensorDims_;
	const auto &formats = *out_.imagePlaneFormats_;
	const bool nhwc = *out_.tensorLayout_ == TensorLayout::NHWC;
	const std::vector<AttrKey> described = { AttrKey::TensorDims, AttrKey::TensorLayout,
		AttrKey::ImagePlaneFormats, AttrKey::ImagePlaneWidths, AttrKey::ImagePlaneHeights };
	if (dims.size() != 4 || dims[0] != 1) {
		conflict(AttrKey::TensorDims, "must be [1,C,H,W] or [1,H,W,C] for an image", described);
		return;
	}
	const uint64_t c = nhwc ? dims[3] : dims[1], h = nhwc ? dims[1] : dims[2],
		       w = nhwc ? dims[2] : dims[3];
	const size_t planes = formats.size();
	bool fits = nhwc ? planes == 1 && formatInfo(formats[0]).channels == c : planes == c;
	for (size_t p = 0; fits && p < planes; p++)
		fits = (*out_.imagePlaneWidths_)[p] == w && (*out_.imagePlaneHeights_)[p] == h
		       && (nhwc || formatInfo(formats[p]).channels == 1);
	if (!fits) {
		conflict(AttrKey::TensorDims,
			nhwc ? "must describe the image in NHWC: [1,H,W,C], one plane of C channels"
			     : "must describe the image in NCHW: [1,C,H,W], C planes of one channel",
			described);
		return;
	}
	for (ColorFormat f : formats)
		if (!holds(f, *out_.tensorDataType_)) {
			conflict(AttrKey::TensorDataType,
				"must be the element type of the image's channels",
				{ AttrKey::TensorDataType, AttrKey::ImagePlaneFormats });
			return;
		}

	std::vector<uint64_t> ta;
	if (!largestPerEntry(AttrKey::TensorAlignmentPerDim, 4,
		    [](const AttrList &l) { return l.tensorAlignmentPerDim(); },
		    "dimension of Tensor.Dims", ta))
		return;
	const uint64_t e = elementSize(*out_.tensorDataType_);
	const uint64_t pixel = nhwc ? c * e : e;
	/* An image has no gap inside a pixel, nor from a pixel to the next. */
	if (ta[3] > e || (nhwc && pixel % ta[2])) {
		conflict(AttrKey::TensorAlignmentPerDim,
			"cannot pad inside an image's lines (pixel " + std::to_string(pixel)
				+ " bytes)",
			{ AttrKey::TensorAlignmentPerDim });
		return;
	}
	const auto &pitchAlign = *out_.imagePitchAlignment_;
	const auto &baseAlign = *out_.imagePlaneBaseAlignment_;
	const uint64_t linesAlign = std::max(*std::max_element(pitchAlign.begin(), pitchAlign.end()),
		ta[nhwc ? 1 : 2]);
	const uint64_t planeAlign = std::max(*std::max_element(baseAlign.begin(), baseAlign.end()),
		nhwc ? 1 : ta[1]);
	uint64_t line, pitch, plane, planeStride, all, nStride;
	if (!times(w, pixel, line) || !alignUp(line, linesAlign, pitch) || !times(pitch, h, plane)
		|| !alignUp(plane, planeAlign, planeStride) || !times(planeStride, planes, all)
		|| !alignUp(all, ta[0], nStride)) {
		conflict(AttrKey::TensorDims, "describe more than 2^64 bytes", { AttrKey::TensorDims });
		return;
	}
	std::vector<ImagePlaneLayout> layout;
	for (size_t p = 0; p < planes; p++)
		layout.push_back({ w, h, pitch, p * planeStride });
	out_.imagePlanes_ = layout;
	out_.tensorAlignmentPerDim_ = ta;
	out_.tensorStrides_ = nhwc ? std::vector<uint64_t>{ nStride, pitch, pixel, e }
				   : std::vector<uint64_t>{ nStride, planeStride, pitch, e };
	out_.size_ = nStride;
	const uint64_t tensorBase = largest([](const AttrList &l) { return l.tensorBaseAlignment(); });
	out_.tensorBaseAlignment_ = tensorBase;
	setAlignment(std::max({ tensorBase, planeAlign, *std::max_element(ta.begin(), ta.end()) }));
}

} /* namespace vdla::detail */
