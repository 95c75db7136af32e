/* SPDX-License-Identifier: MIT */
/*
 * vdla::TaskBuilder: writes a task of the descriptor ABI
 * (uapi/drm/vdla_task.h, rules in docs/firmware.md) from typed operations.
 * Buffers are added to the task's address list and named by the index that
 * returns; operations are appended in order and linked producer to consumer,
 * the builder keeping consumers[] and dependency_count consistent and fused
 * chains well formed. build() writes the descriptor into a buffer of its own
 * and returns a Task to submit as often as needed.
 *
 * Parameters mirror the engines' registers (docs/hw-spec.md); the firmware
 * validates them when the task is submitted, so the builder checks only its
 * own bookkeeping (indices, link counts, list sizes). The first such mistake
 * is kept and returned by build().
 */
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <vector>

#include <vdla/result.h>
#include <vdla/task.h>

struct vdla_task_op;

namespace vdla {

class Buffer;
class Device;

/* Element types, as the hardware encodes them. */
enum class DataType : uint32_t {
	Int8 = 0,
	Int16 = 1,
	Int32 = 2,
	Fp16 = 3,
	Fp32 = 4,
};

/* Bytes of one element. */
uint32_t dataTypeSize(DataType type);
bool isFloat(DataType type);

/* Rounding of right shifts and conversions (VDLA_ROUND_*). */
enum class Round : uint8_t {
	ToZero = 0,
	Floor = 1,
	HalfUp = 2,
	HalfAway = 3,
	HalfEven = 4,
};

/* What releases a consumer (enum vdla_task_event). */
enum class Event : uint8_t {
	/* The producer finished successfully. */
	Completed = 0,
	/* The producer's registers were written. */
	Programmed = 1,
	/* The producer was handed to the hardware. */
	Enabled = 2,
};

/* How an operation uses a buffer of the address list. */
enum class BufferUse {
	Read,
	/* The task may write it (and the job is fenced as a writer). */
	Write,
};

/* A place in a buffer of the address list. */
struct Location {
	static constexpr uint16_t kNone = 0xffff;

	uint16_t buffer = kNone;
	uint64_t offset = 0;
};

/* A tensor in a buffer of the address list. */
struct Tensor {
	uint16_t buffer = 0;
	uint64_t offset = 0;
	DataType type = DataType::Int8;
	uint32_t n = 1, c = 1, h = 1, w = 1;
	/* Byte strides; all zero means packed NCHW. */
	uint32_t strideW = 0, strideH = 0, strideC = 0, strideN = 0;

	/* A packed NCHW tensor at @offset of address-list entry @buffer. */
	static Tensor nchw(uint16_t buffer, uint64_t offset, DataType type, uint32_t n, uint32_t c,
		uint32_t h, uint32_t w);
	/* Bytes from the first element to the end of the last. */
	uint64_t bytes() const;
	/* This tensor with packed strides filled in when they are all zero. */
	Tensor packed() const;
};

/* BDMA: @surfaces surfaces of @lines lines of @lineBytes bytes. */
struct CopyOp {
	Location src, dst;
	uint32_t lineBytes = 1;
	uint32_t lines = 1;
	uint32_t surfaces = 1;
	/* Zero: packed (lineBytes, lines * line stride). */
	uint32_t srcLineStride = 0, dstLineStride = 0;
	uint32_t srcSurfaceStride = 0, dstSurfaceStride = 0;
};

/* CONV: src (N, Cin, H, W), weights (Cout, Cin/groups, KH, KW) to dst. */
struct ConvOp {
	Tensor src, weights, dst;
	uint16_t strideX = 1, strideY = 1;
	uint16_t padLeft = 0, padRight = 0, padTop = 0, padBottom = 0;
	uint16_t dilationX = 1, dilationY = 1;
	uint32_t groups = 1;
	/* The padding value: padValue for an integer src, padValueFloat for a float one. */
	int32_t padValue = 0;
	float padValueFloat = 0;
};

enum class SdpMode : uint8_t { None = 0, PerTensor = 1, PerChannel = 2 };
enum class SdpEwOp : uint8_t { None = 0, Add = 1, Mul = 2, Max = 3 };
enum class SdpActivation : uint8_t { None = 0, Relu = 1, Clip = 2, Lut = 3 };

/*
 * SDP: bias, scale, element-wise operation with @ew, activation, output
 * conversion. The integer fields apply to an integer src, the float fields
 * to a float one (docs/hw-spec.md, "SDP").
 */
struct SdpOp {
	Tensor src, dst;
	/* The second operand when ewOp is not None. */
	Tensor ew;
	/* Per-channel bias, scale ({mul, shift} pairs) and the 257-entry LUT. */
	Location bias, scale, lut;
	SdpMode biasMode = SdpMode::None;
	SdpMode scaleMode = SdpMode::None;
	SdpEwOp ewOp = SdpEwOp::None;
	SdpActivation activation = SdpActivation::None;
	Round round = Round::ToZero;
	/* Wrap instead of saturate on output conversion. */
	bool wrap = false;

	int32_t biasValue = 0;
	int32_t scaleMul = 1;
	uint32_t scaleShift = 0;
	int32_t ewMul = 1;
	uint32_t ewShift = 0, ewPostShift = 0;
	int32_t clipMin = 0, clipMax = 0;
	int32_t lutStart = 0;
	uint32_t lutShift = 0;
	int32_t outOffset = 0;

	float biasFloat = 0;
	float scaleFloat = 1;
	float ewMulFloat = 1;
	float clipMinFloat = 0, clipMaxFloat = 0;
	float lutStartFloat = 0, lutStepFloat = 1;
};

enum class PoolMethod : uint8_t { Max = 0, Average = 1, Min = 2 };

/* PDP: pooling. */
struct PdpOp {
	Tensor src, dst;
	PoolMethod method = PoolMethod::Max;
	bool ceilMode = false;
	/* Average: count the padding in the divisor. */
	bool includePad = false;
	Round round = Round::ToZero;
	uint16_t kernelW = 1, kernelH = 1;
	uint16_t strideX = 1, strideY = 1;
	uint16_t padLeft = 0, padRight = 0, padTop = 0, padBottom = 0;
};

/* CDP: cross-channel normalisation over a window of @size channels. */
struct CdpOp {
	Tensor src, dst;
	uint32_t size = 1;
	/* Integer path: 257-entry int32 LUT and its shifts. */
	Location lut;
	uint32_t lutShift = 0, outShift = 0;
	/* Float path. */
	float k = 1, alpha = 0, beta = 0;
	Round round = Round::ToZero;
	bool wrap = false;
};

enum class RubikMode : uint32_t { Permute = 0, Reshape = 1, Contract = 2, Split = 3 };
/* Tensor dimensions, as RUBIK's permutation names them. */
enum class Dim : uint8_t { W = 0, H = 1, C = 2, N = 3 };

/* RUBIK: data movement between layouts. */
struct RubikOp {
	Tensor src, dst;
	RubikMode mode = RubikMode::Permute;
	/* Permute: perm[d] is the src dimension output dimension d (W, H, C, N) takes. */
	std::array<Dim, 4> perm = { Dim::W, Dim::H, Dim::C, Dim::N };
	/* Contract and Split: the block. */
	uint16_t blockX = 1, blockY = 1;
};

/* The operations of a fused chain, head (first) to tail (last). */
struct FusedChain {
	uint16_t head = 0;
	uint16_t tail = 0;
};

class TaskBuilder
{
public:
	static constexpr uint32_t kMaxAddresses = 1023; /* plus the descriptor */
	static constexpr uint32_t kMaxOps = 65534;
	static constexpr uint32_t kMaxConsumers = 8;

	TaskBuilder();
	~TaskBuilder();
	TaskBuilder(TaskBuilder &&) noexcept;
	TaskBuilder &operator=(TaskBuilder &&) noexcept;

	/* ---- The address list: each returns the entry's index ---- */

	/*
	 * @buffer from @offset; the Buffer must outlive the Tasks built, and
	 * belong to the Device given to build().
	 */
	uint16_t addBuffer(
		const Buffer &buffer, BufferUse use = BufferUse::Read, uint64_t offset = 0);
	/* A buffer known only by its GEM handle in the submitting Device's file. */
	uint16_t addHandle(uint32_t handle, BufferUse use = BufferUse::Read, uint64_t offset = 0);
	const std::vector<TaskAddress> &addresses() const;

	/* ---- Operations: each returns its index ---- */

	uint16_t copy(const CopyOp &op);
	/* A BDMA copy of @bytes contiguous bytes. */
	uint16_t copy(Location src, Location dst, uint32_t bytes);
	uint16_t conv(const ConvOp &op);
	uint16_t sdp(const SdpOp &op);
	uint16_t pdp(const PdpOp &op);
	uint16_t cdp(const CdpOp &op);
	uint16_t rubik(const RubikOp &op);

	/*
	 * Fused chains: the output of each member flies into the next one
	 * without touching memory. The dst of the earlier member describes
	 * the flying tensor (its type and shape; its buffer is ignored), the
	 * src of the later member is ignored. Link into the chain at any
	 * member, out of it from the tail. The chain completes as a whole: a
	 * Completed link from a member to a later one of the same chain is a
	 * bookkeeping mistake.
	 */
	FusedChain fuse(const ConvOp &conv, const SdpOp &sdp);
	FusedChain fuse(const SdpOp &sdp, const PdpOp &pdp);
	FusedChain fuse(const ConvOp &conv, const SdpOp &sdp, const PdpOp &pdp);

	/* ---- Dependencies ---- */

	/* @consumer (a later op) waits for @event of @producer. */
	void link(uint16_t producer, uint16_t consumer, Event event = Event::Completed);
	/* @consumer waits for every one of @producers to complete. */
	void after(uint16_t consumer, std::initializer_list<uint16_t> producers);

	uint32_t numOps() const;

	/* The first bookkeeping mistake made so far, if any. */
	const std::optional<Error> &error() const;

	/*
	 * The descriptor: header then operations, as build() writes it. With
	 * the address list and the descriptor appended as entry
	 * addresses().size(), this is the task.
	 */
	std::vector<uint8_t> encode() const;

	/*
	 * Writes the descriptor into a new buffer of @device and returns the
	 * task. Errors: the first bookkeeping mistake (EINVAL, E2BIG), EINVAL
	 * for a buffer of another Device, those of Buffer::create and
	 * Buffer::map.
	 */
	Result<Task> build(Device &device) const;

private:
	uint16_t push(const vdla_task_op &op);
	/* Whether @consumer is a later member of @producer's fused chain. */
	bool inFusedChainOf(uint16_t producer, uint16_t consumer) const;
	void fail(int code, const std::string &reason);

	class Private;
	std::unique_ptr<Private> d_;
};

} /* namespace vdla */
