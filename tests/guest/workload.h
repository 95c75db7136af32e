/* SPDX-License-Identifier: MIT */
/*
 * Real work for the submission suite: small jobs of random data whose
 * results the CPU reference (tests/host/reference, written from
 * docs/hw-spec.md) predicts, and a long chained job for the scheduling
 * tests. Tensors are packed NCHW in BOs; every output BO starts filled
 * with a canary, and the whole checked region is compared, so a write
 * outside the output fails too.
 */
#pragma once

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "reference.h"
#include "submit_env.h"
#include "task_writer.h"
#include "test_data.h"

namespace guest {

using vdla_ref::Tensor;
using vdla_testdata::Rng;

constexpr uint8_t kCanary = 0xa5;

/* ---- Tensors in BOs ---------------------------------------------------- */

/* The CPU reference's packed NCHW conversions. */
using vdla_ref::loadTensor;
using vdla_ref::storeTensor;
using vdla_ref::tensorBytes;
/* A packed surface of @t's type and shape at (@index, @offset). */
vdla_task_surface surfaceOf(uint16_t index, uint64_t offset, const Tensor &t);

/* ---- Encoding reference parameters ------------------------------------- */

/*
 * These write the CPU reference's parameters straight into the ABI's
 * structs instead of going through libvdla's TaskBuilder: the submission
 * suite tests the driver and firmware on their own, and its error tests
 * edit the encoded operations into tasks TaskBuilder would refuse to write.
 */

vdla_task_conv encodeConv(const vdla_task_surface &src, const vdla_task_surface &wgt,
	const vdla_task_surface &dst, const vdla_ref::ConvParams &p, uint32_t fly = 0);
/* SDP with per-tensor parameters (no per-channel arrays, no LUT); @ew when p.ew is on. */
vdla_task_sdp encodeSdp(const vdla_task_surface &x, const vdla_task_surface &dst,
	const vdla_ref::SdpParams &p, uint32_t fly = 0, const vdla_task_surface *ew = nullptr);
/* Random integer-path SDP parameters (per-tensor bias and scale, RELU or CLIP). */
vdla_ref::SdpParams randomSdpParams(Rng &rng);

/* Compares @size bytes, naming the first difference. */
::testing::AssertionResult sameBytes(
	const uint8_t *expected, const uint8_t *got, size_t size, const char *what);

/* ---- Small jobs -------------------------------------------------------- */

enum class WorkKind {
	Empty, /* no operation */
	Copy, /* a strided BDMA copy */
	Sdp, /* INT8 SDP */
	CopySdp, /* BDMA, then SDP on the copy (a dependency link) */
	Conv, /* INT8 CONV to INT32 */
	ConvSdp, /* CONV to memory, then SDP (a dependency link) */
	FusedConvSdp, /* CONV flying into SDP */
};
const char *workKindName(WorkKind kind);

/*
 * One small job with BOs of its own, reusable: prepare() writes new random
 * data and a new task, check() compares the output BO with the reference
 * once the job ended.
 */
class SmallJob
{
public:
	/* Address-list entries, each a BO of kBoBytes. */
	enum Entry : uint16_t { kDesc, kIn, kWgt, kTmp, kOut, kEntries };
	static constexpr uint64_t kBoBytes = 8192;
	/* The part of the output BO check() compares. */
	static constexpr size_t kCheckBytes = 4096;

	explicit SmallJob(int fd);
	int error() const { return error_; }
	int fd() const { return fd_; }

	void prepare(Rng &rng, WorkKind kind);
	/* The job, with the output and intermediate BOs marked for writing. */
	Submission submission(uint32_t ctx, const drm_vdla_sync &out = {}) const;
	::testing::AssertionResult check();

	WorkKind kind() const { return kind_; }
	Bo &bo(Entry entry) { return bos_[entry]; }
	TaskWriter &task() { return task_; }
	/* Rewrites the descriptor after task() was changed. */
	void rewriteDescriptor();

private:
	void prepareCopy(Rng &rng);
	void prepareSdp(Rng &rng, bool copyFirst);
	void prepareConv(Rng &rng, int sdp);

	int fd_;
	int error_ = 0;
	Bo bos_[kEntries];
	WorkKind kind_ = WorkKind::Empty;
	TaskWriter task_;
	std::vector<uint8_t> expected_;
};

/* ---- A long job -------------------------------------------------------- */

/*
 * @steps rounds of BDMA (slice k -> tmp k) then SDP (tmp k -> slice k+1),
 * every op linked to the next so that one op runs at a time: with fault
 * injection delaying BDMA, a job that takes steps * delay and can be
 * stopped at each op boundary. Entries: 0 descriptor, 1 slices, 2 tmp.
 */
class ChainJob
{
public:
	static constexpr uint32_t kSliceBytes = 64;

	ChainJob(int fd, unsigned steps, uint64_t seed);
	int error() const { return error_; }
	unsigned ops() const { return task_.numOps(); }
	Submission submission(uint32_t ctx, const drm_vdla_sync &out = {}) const;
	::testing::AssertionResult check();

	/* The BO of the slices (entry 1) and what its last slice will hold. */
	Bo &slices() { return slices_; }
	uint64_t lastSliceOffset() const { return uint64_t(steps_) * kSliceBytes; }
	std::vector<uint8_t> expectedLastSlice() const;

private:
	int error_ = 0;
	unsigned steps_;
	Bo desc_, slices_, tmp_;
	TaskWriter task_;
	std::vector<uint8_t> expected_;
};

} /* namespace guest */
