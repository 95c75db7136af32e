/* SPDX-License-Identifier: MIT */
/*
 * vdla::AttrList: what one party (a process, an engine, a library) needs of
 * a buffer it will share: its type and geometry, its access, where it may
 * live. vdla::reconcile() merges the lists of every party into one
 * reconciled list, from which a buffer can be allocated, or reports every
 * key that conflicts, with the rule that failed and each party's value
 * (docs/sharing.md). Pure computation: no device is needed. Lists are
 * values: copies are independent, const use from several threads is safe,
 * changing one list from several threads is not.
 */
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <vdla/result.h>

namespace vdla {

/*
 * What a buffer holds. A buffer has one type, or is both an Image and a
 * Tensor (the same bytes seen as either, NHWC or NCHW).
 */
enum class BufferType { Raw, Tensor, Image, ImagePyramid, Array };

/* Ordered: reconciliation takes the highest any party requires. */
enum class Permission { ReadOnly, ReadWrite };

enum class MemoryDomain { System, Sram };

enum class TensorDataType { Int8, Uint8, Int16, Float16, Float32 };

/* How a 4-dimensional tensor's dimensions map to N, C, H and W. */
enum class TensorLayout { NCHW, NHWC };

/*
 * An image plane's pixel: its channels and their element type. U8, U16,
 * F16 and F32 have one channel; UV88 two bytes (interleaved chroma);
 * RGB888 three bytes; RGBA8888 four; RGBA_F16 four half floats.
 */
enum class ColorFormat { U8, U16, F16, F32, UV88, RGB888, RGBA8888, RGBA_F16 };

/* Where one plane of one image (or pyramid level) lies in the buffer. */
struct ImagePlaneLayout {
	uint64_t width = 0;
	uint64_t height = 0;
	/* Bytes from a line to the next. */
	uint64_t pitch = 0;
	/* Bytes from the buffer's start. */
	uint64_t offset = 0;

	bool operator==(const ImagePlaneLayout &o) const
	{
		return width == o.width && height == o.height && pitch == o.pitch
		       && offset == o.offset;
	}
};

/* Who reads or writes the buffer. */
struct Accessor {
	enum class Kind { Cpu, Dla, Other };

	static Accessor cpu() { return { Kind::Cpu, 0, {} }; }
	/*
	 * The vDLA at /dev/accel/accel@device (Device::accelMinor()): the
	 * same device in every process of the system a list reaches.
	 */
	static Accessor dla(uint32_t device) { return { Kind::Dla, device, {} }; }
	/* Any other engine or driver, by a name of the application's. */
	static Accessor other(std::string name) { return { Kind::Other, 0, std::move(name) }; }

	bool operator==(const Accessor &other) const;
	bool operator<(const Accessor &other) const;
	/* "cpu", "dla:1", "other:display". */
	std::string toString() const;

	Kind kind;
	uint32_t device;
	std::string name;
};

/* real = scale * (integer - zeroPoint). */
struct Quantization {
	double scale = 1.0;
	int32_t zeroPoint = 0;

	bool operator==(const Quantization &other) const
	{
		return scale == other.scale && zeroPoint == other.zeroPoint;
	}
};

/* The keys, by the names conflicts give them. */
enum class AttrKey {
	Types,
	NeedCpuAccess,
	RequiredPermission,
	EnableCpuCache,
	Accessors,
	MemoryDomain,
	RawSize,
	RawAlignment,
	TensorDataType,
	TensorDims,
	TensorLayout,
	TensorAlignmentPerDim,
	TensorBaseAlignment,
	TensorQuantization,
	ImagePlaneFormats,
	ImagePlaneWidths,
	ImagePlaneHeights,
	ImagePlaneBaseAlignment,
	ImagePitchAlignment,
	PyramidLevels,
	PyramidScale,
	ArrayElementSize,
	ArrayCapacity,
	ArrayStrideAlignment,
};

/* "General.Types", "Tensor.Dims", ... */
const char *attrKeyName(AttrKey key);

namespace detail {
class Reconciler;
class ImageReconciler;
struct AttrCodec;
} /* namespace detail */

class AttrList
{
public:
	/* The most dimensions a tensor has. */
	static constexpr size_t kMaxTensorDims = 8;
	/* The most planes an image has, and levels a pyramid. */
	static constexpr size_t kMaxImagePlanes = 4;
	static constexpr size_t kMaxPyramidLevels = 16;
	/* What the device MMU maps: a buffer a vDLA reads starts on a page. */
	static constexpr uint64_t kDlaAlignment = 4096;

	/* @owner names the party in conflicts ("camera", "classifier"). */
	explicit AttrList(std::string owner);

	const std::string &owner() const { return owner_; }
	/* A list reconcile() made: read-only, with the outputs below. */
	bool reconciled() const { return reconciled_; }

	/*
	 * Setters. Each key is set once (EEXIST the second time); a reconciled
	 * list is read-only (EACCES); a value out of range is EINVAL, and so is
	 * a Raw or Tensor key before General.Types includes that type. Nothing
	 * changes when a setter fails.
	 */
	/* The buffer's types: one, or Image and Tensor together. */
	Result<void> setTypes(std::vector<BufferType> types);
	Result<void> setNeedCpuAccess(bool need);
	Result<void> setRequiredPermission(Permission permission);
	Result<void> setEnableCpuCache(bool enable);
	/* At least one; duplicates count once. */
	Result<void> setAccessors(std::vector<Accessor> accessors);
	/*
	 * The memory the party would like: SRAM serves only when every
	 * accessor is one vDLA and none is the CPU; @fallbackAllowed says
	 * whether system memory will do then (else reconciliation conflicts).
	 */
	Result<void> setMemoryDomain(MemoryDomain preferred, bool fallbackAllowed);
	Result<void> setRawSize(uint64_t bytes);
	/* A power of two. */
	Result<void> setRawAlignment(uint64_t bytes);
	Result<void> setTensorDataType(TensorDataType type);
	/* Outermost first, 1 to kMaxTensorDims, none 0. */
	Result<void> setTensorDims(std::vector<uint64_t> dims);
	/* For 4 dimensions only (EINVAL once dims say otherwise, or after). */
	Result<void> setTensorLayout(TensorLayout layout);
	/*
	 * Per dimension, a power of two the dimension's stride is a multiple
	 * of. The innermost stride is the element size: its alignment may not
	 * exceed it (reconciliation conflicts); the outer ones pad rows.
	 */
	Result<void> setTensorAlignmentPerDim(std::vector<uint64_t> alignment);
	Result<void> setTensorBaseAlignment(uint64_t bytes);
	Result<void> setTensorQuantization(Quantization quantization);
	/*
	 * Image keys, per plane (1 to kMaxImagePlanes, the same count in each
	 * key); for an ImagePyramid they describe level 0. Widths and heights
	 * in pixels, none 0; alignments powers of two: each plane's start,
	 * and its pitch (bytes from a line to the next).
	 */
	Result<void> setImagePlaneFormats(std::vector<ColorFormat> formats);
	Result<void> setImagePlaneWidths(std::vector<uint64_t> widths);
	Result<void> setImagePlaneHeights(std::vector<uint64_t> heights);
	Result<void> setImagePlaneBaseAlignment(std::vector<uint64_t> alignment);
	Result<void> setImagePitchAlignment(std::vector<uint64_t> alignment);
	/*
	 * An ImagePyramid's levels (1 to kMaxPyramidLevels) and the scale from
	 * one level to the next, in (0, 1]: level n + 1 is ceil(level n x
	 * scale) wide and high, at least 1.
	 */
	Result<void> setPyramidLevels(uint32_t levels);
	Result<void> setPyramidScale(double scale);
	/* An Array: elements of @bytes, at least @capacity of them, each
	 * starting at a multiple of the stride alignment. */
	Result<void> setArrayElementSize(uint64_t bytes);
	Result<void> setArrayCapacity(uint64_t capacity);
	Result<void> setArrayStrideAlignment(uint64_t bytes);

	/* Getters: what was set, or reconciled. */
	const std::optional<std::vector<BufferType>> &types() const { return types_; }
	const std::optional<bool> &needCpuAccess() const { return needCpuAccess_; }
	const std::optional<Permission> &requiredPermission() const { return requiredPermission_; }
	const std::optional<bool> &enableCpuCache() const { return enableCpuCache_; }
	const std::optional<std::vector<Accessor>> &accessors() const { return accessors_; }
	const std::optional<MemoryDomain> &preferredMemoryDomain() const { return preferredDomain_; }
	const std::optional<bool> &sramFallbackAllowed() const { return fallbackAllowed_; }
	const std::optional<uint64_t> &rawSize() const { return rawSize_; }
	const std::optional<uint64_t> &rawAlignment() const { return rawAlignment_; }
	const std::optional<TensorDataType> &tensorDataType() const { return tensorDataType_; }
	const std::optional<std::vector<uint64_t>> &tensorDims() const { return tensorDims_; }
	const std::optional<TensorLayout> &tensorLayout() const { return tensorLayout_; }
	const std::optional<std::vector<uint64_t>> &tensorAlignmentPerDim() const
	{
		return tensorAlignmentPerDim_;
	}
	const std::optional<uint64_t> &tensorBaseAlignment() const { return tensorBaseAlignment_; }
	const std::optional<Quantization> &tensorQuantization() const { return tensorQuantization_; }
	const std::optional<std::vector<ColorFormat>> &imagePlaneFormats() const
	{
		return imagePlaneFormats_;
	}
	const std::optional<std::vector<uint64_t>> &imagePlaneWidths() const { return imagePlaneWidths_; }
	const std::optional<std::vector<uint64_t>> &imagePlaneHeights() const
	{
		return imagePlaneHeights_;
	}
	const std::optional<std::vector<uint64_t>> &imagePlaneBaseAlignment() const
	{
		return imagePlaneBaseAlignment_;
	}
	const std::optional<std::vector<uint64_t>> &imagePitchAlignment() const
	{
		return imagePitchAlignment_;
	}
	const std::optional<uint32_t> &pyramidLevels() const { return pyramidLevels_; }
	const std::optional<double> &pyramidScale() const { return pyramidScale_; }
	const std::optional<uint64_t> &arrayElementSize() const { return arrayElementSize_; }
	const std::optional<uint64_t> &arrayCapacity() const { return arrayCapacity_; }
	const std::optional<uint64_t> &arrayStrideAlignment() const { return arrayStrideAlignment_; }

	/*
	 * Outputs of a reconciled list (std::nullopt on others): the
	 * permission granted, where the buffer lives and why (why SRAM was
	 * not used when it was preferred, else empty), its size and
	 * alignment, and a tensor's strides in bytes, outermost first.
	 */
	const std::optional<Permission> &actualPermission() const { return actualPermission_; }
	const std::optional<MemoryDomain> &memoryDomain() const { return domain_; }
	const std::string &memoryDomainReason() const { return domainReason_; }
	const std::optional<uint64_t> &size() const { return size_; }
	const std::optional<uint64_t> &alignment() const { return alignment_; }
	const std::optional<std::vector<uint64_t>> &tensorStrides() const { return tensorStrides_; }
	/* An image's planes; a pyramid's: its level 0 (every level below). */
	const std::optional<std::vector<ImagePlaneLayout>> &imagePlanes() const { return imagePlanes_; }
	/* An ImagePyramid's planes, level by level. */
	const std::optional<std::vector<std::vector<ImagePlaneLayout>>> &pyramidPlanes() const
	{
		return pyramidPlanes_;
	}
	/* An Array's bytes from an element to the next. */
	const std::optional<uint64_t> &arrayStride() const { return arrayStride_; }

	/*
	 * The list as bytes for another process, unreconciled or reconciled,
	 * and back (docs/sharing.md, "Across processes"). decode() trusts
	 * nothing: a malformed input is EBADMSG, a format from a newer libvdla
	 * EPROTO, a value a setter refuses EBADMSG with the setter's reason,
	 * and a reconciled list's outputs are computed again from its keys
	 * (EBADMSG when the sender's differ: a size, strides, a permission or
	 * an SRAM placement its keys do not give).
	 */
	std::vector<uint8_t> encode() const;
	static Result<AttrList> decode(const uint8_t *data, size_t size);

	/*
	 * The list of a party @owner that only copies this party's buffer
	 * with @engine: the same types and geometry, @engine the one accessor,
	 * with @permission, in whatever memory the others agree on (no CPU
	 * access, no memory domain). A stream's IPC destination that copies
	 * packets into its own asks the producer with it. EINVAL on a
	 * reconciled list.
	 */
	Result<AttrList> forCopyEngine(std::string owner, Accessor engine,
		Permission permission) const;

private:
	friend class detail::Reconciler;
	friend class detail::ImageReconciler;
	friend struct detail::AttrCodec;

	/* Whether @key may be set now: on an unreconciled list, once, and
	 * after General.Types names @needed (a key of that type; an image key
	 * also serves an ImagePyramid). */
	Result<void> checkSettable(AttrKey key, bool isSet,
		std::optional<BufferType> needed = std::nullopt) const;
	/* An image key's per-plane value: its count agrees with the others'. */
	Result<void> checkPlaneCount(AttrKey key, size_t count) const;

	std::string owner_;
	bool reconciled_ = false;

	std::optional<std::vector<BufferType>> types_;
	std::optional<bool> needCpuAccess_;
	std::optional<Permission> requiredPermission_;
	std::optional<bool> enableCpuCache_;
	std::optional<std::vector<Accessor>> accessors_;
	std::optional<MemoryDomain> preferredDomain_;
	std::optional<bool> fallbackAllowed_;
	std::optional<uint64_t> rawSize_;
	std::optional<uint64_t> rawAlignment_;
	std::optional<TensorDataType> tensorDataType_;
	std::optional<std::vector<uint64_t>> tensorDims_;
	std::optional<TensorLayout> tensorLayout_;
	std::optional<std::vector<uint64_t>> tensorAlignmentPerDim_;
	std::optional<uint64_t> tensorBaseAlignment_;
	std::optional<Quantization> tensorQuantization_;
	std::optional<std::vector<ColorFormat>> imagePlaneFormats_;
	std::optional<std::vector<uint64_t>> imagePlaneWidths_;
	std::optional<std::vector<uint64_t>> imagePlaneHeights_;
	std::optional<std::vector<uint64_t>> imagePlaneBaseAlignment_;
	std::optional<std::vector<uint64_t>> imagePitchAlignment_;
	std::optional<uint32_t> pyramidLevels_;
	std::optional<double> pyramidScale_;
	std::optional<uint64_t> arrayElementSize_;
	std::optional<uint64_t> arrayCapacity_;
	std::optional<uint64_t> arrayStrideAlignment_;

	std::optional<Permission> actualPermission_;
	std::optional<MemoryDomain> domain_;
	std::string domainReason_;
	std::optional<uint64_t> size_;
	std::optional<uint64_t> alignment_;
	std::optional<std::vector<uint64_t>> tensorStrides_;
	std::optional<std::vector<ImagePlaneLayout>> imagePlanes_;
	std::optional<std::vector<std::vector<ImagePlaneLayout>>> pyramidPlanes_;
	std::optional<uint64_t> arrayStride_;
};

/* A key the lists disagree on. */
struct AttrConflict {
	AttrKey key;
	/* The rule that failed: "must be equal", "is required", ... */
	std::string rule;
	/* Each party that set the key, with its value, in the lists' order. */
	std::vector<std::pair<std::string, std::string>> values;

	/* "Tensor.Dims must be equal: camera [1,3,224,224], classifier [1,3,256,256]". */
	std::string message() const;
};

struct Reconciliation {
	/* The reconciled list, when no key conflicts. */
	std::optional<AttrList> list;
	/* Every conflict found, not only the first (a key whose inputs
	 * conflict is not used for the keys computed from it). */
	std::vector<AttrConflict> conflicts;
};

/*
 * Merges @lists (unreconciled, at least one; EINVAL otherwise) into one
 * reconciled list owned by @owner, by each key's rule (docs/sharing.md):
 * booleans OR, permissions the highest, alignments the largest, accessors
 * the union, types and geometry equal; then the outputs are computed,
 * with the vDLA's own needs when a vDLA accesses the buffer.
 */
Result<Reconciliation> reconcile(const std::vector<const AttrList *> &lists,
	const std::string &owner = "reconciled");

/*
 * Whether @reconciled (EINVAL if it is not) serves every one of @lists:
 * the conflicts, empty when it does (a list that asks for more than was
 * reconciled, another geometry, an accessor it did not include).
 */
Result<std::vector<AttrConflict>> validateReconciled(const AttrList &reconciled,
	const std::vector<const AttrList *> &lists);

} /* namespace vdla */
