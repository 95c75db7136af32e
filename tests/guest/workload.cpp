/* SPDX-License-Identifier: MIT */
#include "workload.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace guest {

using namespace vdla_ref;
using vdla_testdata::randomFull;

/* ---- Tensors in BOs ---------------------------------------------------- */

vdla_task_surface surfaceOf(uint16_t index, uint64_t offset, const Tensor &t)
{
	return packedSurface(index, offset, t.dtype, t.n, t.c, t.h, t.w);
}

/* ---- Encoding reference parameters ------------------------------------- */

vdla_task_conv encodeConv(const vdla_task_surface &src, const vdla_task_surface &wgt,
	const vdla_task_surface &dst, const ConvParams &p, uint32_t fly)
{
	vdla_task_conv c;
	std::memset(&c, 0, sizeof(c));
	c.src = src;
	c.wgt = wgt;
	c.dst = dst;
	c.stride_x = uint16_t(p.strideX);
	c.stride_y = uint16_t(p.strideY);
	c.pad_left = uint16_t(p.padL);
	c.pad_right = uint16_t(p.padR);
	c.pad_top = uint16_t(p.padT);
	c.pad_bottom = uint16_t(p.padB);
	c.dilation_x = uint16_t(p.dilX);
	c.dilation_y = uint16_t(p.dilY);
	c.groups = p.groups;
	c.pad_value
		= isFloat(src.dtype) ? fp32Bits(float(p.padValue)) : uint32_t(int32_t(p.padValue));
	c.fly = fly;
	return c;
}

vdla_task_sdp encodeSdp(const vdla_task_surface &x, const vdla_task_surface &dst,
	const SdpParams &p, uint32_t fly, const vdla_task_surface *ew)
{
	vdla_task_sdp s;
	std::memset(&s, 0, sizeof(s));
	s.src = x;
	s.dst = dst;
	s.fly = fly;
	if (ew && p.ew != VDLA_SDP_EW_OP_NONE)
		s.ew = *ew;
	s.bias_mode = uint8_t(p.bias);
	s.scale_mode = uint8_t(p.scale);
	s.ew_op = uint8_t(p.ew);
	s.act = uint8_t(p.act);
	s.round = uint8_t(p.round);
	s.wrap = p.wrap ? 1 : 0;
	if (sdpIntegerPath(x.dtype)) {
		s.bias_value = uint32_t(p.biasValue);
		s.scale_mul = uint32_t(p.scaleMul);
		s.scale_shift = p.scaleShift;
		s.ew_mul = uint32_t(p.ewMul);
		s.ew_shift = p.ewShift;
		s.ew_post_shift = p.ewPostShift;
		s.clip_min = uint32_t(p.clipMin);
		s.clip_max = uint32_t(p.clipMax);
		s.lut_start = uint32_t(p.lutStart);
		s.lut_shift = p.lutShift;
		s.out_offset = uint32_t(p.outOffset);
	} else {
		s.bias_value = fp32Bits(p.fBiasValue);
		s.scale_mul = fp32Bits(p.fScale);
		s.ew_mul = fp32Bits(p.fEwMul);
		s.clip_min = fp32Bits(p.fClipMin);
		s.clip_max = fp32Bits(p.fClipMax);
		s.lut_start = fp32Bits(p.fLutStart);
		s.lut_shift = fp32Bits(p.fLutStep);
	}
	return s;
}

SdpParams randomSdpParams(Rng &rng)
{
	SdpParams p;
	if (rng.uniform(0, 1)) {
		p.bias = VDLA_SDP_MODE_PER_TENSOR;
		p.biasValue = int32_t(rng.uniform(-1000, 1000));
	}
	if (rng.uniform(0, 3)) {
		p.scale = VDLA_SDP_MODE_PER_TENSOR;
		p.scaleMul = int32_t(rng.uniform(-300, 300));
		p.scaleShift = uint32_t(rng.uniform(0, 12));
	}
	p.act = unsigned(rng.uniform(VDLA_SDP_ACT_NONE, VDLA_SDP_ACT_CLIP));
	if (p.act == VDLA_SDP_ACT_CLIP) {
		int32_t a = int32_t(rng.uniform(-150, 150)), b = int32_t(rng.uniform(-150, 150));
		p.clipMin = std::min(a, b);
		p.clipMax = std::max(a, b);
	}
	p.round = unsigned(rng.uniform(0, VDLA_ROUND_MODES - 1));
	p.wrap = rng.uniform(0, 1) != 0;
	p.outOffset = int32_t(rng.uniform(-20, 20));
	return p;
}

::testing::AssertionResult sameBytes(
	const uint8_t *expected, const uint8_t *got, size_t size, const char *what)
{
	if (!got)
		return ::testing::AssertionFailure() << what << ": not mapped";
	size_t bad = 0, first = 0;
	for (size_t i = 0; i < size; i++) {
		if (expected[i] != got[i] && !bad++)
			first = i;
	}
	if (!bad)
		return ::testing::AssertionSuccess();
	return ::testing::AssertionFailure()
		<< what << ": " << bad << " of " << size << " bytes differ, first at offset "
		<< first << " (expected 0x" << std::hex << int(expected[first]) << ", got 0x"
		<< int(got[first]) << ")";
}

/* ---- Small jobs -------------------------------------------------------- */

const char *workKindName(WorkKind kind)
{
	switch (kind) {
	case WorkKind::Empty:
		return "Empty";
	case WorkKind::Copy:
		return "Copy";
	case WorkKind::Sdp:
		return "Sdp";
	case WorkKind::CopySdp:
		return "CopySdp";
	case WorkKind::Conv:
		return "Conv";
	case WorkKind::ConvSdp:
		return "ConvSdp";
	case WorkKind::FusedConvSdp:
		return "FusedConvSdp";
	}
	return "?";
}

SmallJob::SmallJob(int fd) : fd_(fd)
{
	for (auto &bo : bos_) {
		bo = Bo(fd, kBoBytes);
		if (!error_ && bo.error())
			error_ = bo.error();
		if (!error_ && !bo.map())
			error_ = errno ? errno : ENOMEM;
	}
}

void SmallJob::prepare(Rng &rng, WorkKind kind)
{
	if (error_)
		return;
	kind_ = kind;
	task_.clear();
	bos_[kTmp].fill(kCanary);
	bos_[kOut].fill(kCanary);
	expected_.assign(kCheckBytes, kCanary);
	switch (kind) {
	case WorkKind::Empty:
		break;
	case WorkKind::Copy:
		prepareCopy(rng);
		break;
	case WorkKind::Sdp:
		prepareSdp(rng, false);
		break;
	case WorkKind::CopySdp:
		prepareSdp(rng, true);
		break;
	case WorkKind::Conv:
		prepareConv(rng, 0);
		break;
	case WorkKind::ConvSdp:
		prepareConv(rng, 1);
		break;
	case WorkKind::FusedConvSdp:
		prepareConv(rng, 2);
		break;
	}
	rewriteDescriptor();
}

void SmallJob::rewriteDescriptor()
{
	if (!error_ && !task_.write(bos_[kDesc].map(), bos_[kDesc].size()))
		error_ = E2BIG;
}

void SmallJob::prepareCopy(Rng &rng)
{
	uint8_t *in = bos_[kIn].map();
	for (size_t i = 0; i < kCheckBytes; i++)
		in[i] = uint8_t(rng.uniform(0, 255));

	BdmaParams p;
	p.lineBytes = uint32_t(rng.uniform(1, 64));
	p.lines = uint32_t(rng.uniform(1, 6));
	p.surfaces = uint32_t(rng.uniform(1, 3));
	p.srcLineStride = p.lineBytes + uint32_t(rng.uniform(0, 16));
	p.dstLineStride = p.lineBytes + uint32_t(rng.uniform(0, 16));
	p.srcSurfStride = p.lines * p.srcLineStride + uint32_t(rng.uniform(0, 32));
	p.dstSurfStride = p.lines * p.dstLineStride + uint32_t(rng.uniform(0, 32));
	p.src = uint64_t(rng.uniform(0, 64));
	p.dst = uint64_t(rng.uniform(0, 64));
	for (const auto &[addr, value] : bdma(p, [in](uint64_t a) { return in[a]; }))
		expected_.at(addr) = value;

	vdla_task_bdma b;
	std::memset(&b, 0, sizeof(b));
	b.src = taskAddress(kIn, p.src);
	b.dst = taskAddress(kOut, p.dst);
	b.line_bytes = p.lineBytes;
	b.lines = p.lines;
	b.surfaces = p.surfaces;
	b.src_line_stride = p.srcLineStride;
	b.dst_line_stride = p.dstLineStride;
	b.src_surf_stride = p.srcSurfStride;
	b.dst_surf_stride = p.dstSurfStride;
	task_.bdma(b);
}

void SmallJob::prepareSdp(Rng &rng, bool copyFirst)
{
	Tensor x = randomFull(rng, VDLA_DTYPE_INT8, 1, uint32_t(rng.uniform(1, 4)),
		uint32_t(rng.uniform(1, 4)), uint32_t(rng.uniform(1, 8)));
	SdpParams p = randomSdpParams(rng);
	uint32_t dstType = rng.uniform(0, 1) ? VDLA_DTYPE_INT8 : VDLA_DTYPE_INT16;
	Tensor y = sdp(x, nullptr, p, dstType);
	uint64_t inOffset = 4 * uint64_t(rng.uniform(0, 16));
	uint64_t outOffset = 4 * uint64_t(rng.uniform(0, 16));
	storeTensor(bos_[kIn].map() + inOffset, x);
	storeTensor(expected_.data() + outOffset, y);

	vdla_task_surface src = surfaceOf(kIn, inOffset, x);
	if (copyFirst) {
		uint64_t tmpOffset = 4 * uint64_t(rng.uniform(0, 16));
		uint16_t copy
			= task_.copy(kIn, inOffset, kTmp, tmpOffset, uint32_t(tensorBytes(x)));
		src = surfaceOf(kTmp, tmpOffset, x);
		uint16_t op = task_.sdp(encodeSdp(src, surfaceOf(kOut, outOffset, y), p));
		task_.link(copy, op);
		return;
	}
	task_.sdp(encodeSdp(src, surfaceOf(kOut, outOffset, y), p));
}

void SmallJob::prepareConv(Rng &rng, int sdpMode)
{
	uint32_t cin = uint32_t(rng.uniform(1, 3)), cout = uint32_t(rng.uniform(1, 4));
	uint32_t h = uint32_t(rng.uniform(3, 6)), w = uint32_t(rng.uniform(3, 8));
	uint32_t k = rng.uniform(0, 1) ? 3 : 1;
	ConvParams cp;
	cp.padL = uint32_t(rng.uniform(0, 1));
	cp.padR = uint32_t(rng.uniform(0, 1));
	cp.padT = uint32_t(rng.uniform(0, 1));
	cp.padB = uint32_t(rng.uniform(0, 1));
	cp.strideX = uint32_t(rng.uniform(1, 2));
	cp.strideY = uint32_t(rng.uniform(1, 2));
	cp.padValue = double(rng.uniform(-5, 5));
	Tensor src = randomFull(rng, VDLA_DTYPE_INT8, 1, cin, h, w);
	Tensor wgt = randomFull(rng, VDLA_DTYPE_INT8, cout, cin, k, k);
	Tensor acc = conv(src, wgt, cp);
	storeTensor(bos_[kIn].map(), src);
	storeTensor(bos_[kWgt].map(), wgt);
	vdla_task_surface srcS = surfaceOf(kIn, 0, src), wgtS = surfaceOf(kWgt, 0, wgt);
	uint64_t outOffset = 4 * uint64_t(rng.uniform(0, 16));

	if (sdpMode == 0) {
		task_.conv(encodeConv(srcS, wgtS, surfaceOf(kOut, outOffset, acc), cp));
		storeTensor(expected_.data() + outOffset, acc);
		return;
	}

	SdpParams p = randomSdpParams(rng);
	Tensor y = sdp(acc, nullptr, p, VDLA_DTYPE_INT8);
	storeTensor(expected_.data() + outOffset, y);
	if (sdpMode == 1) {
		vdla_task_surface mid = surfaceOf(kTmp, 0, acc);
		uint16_t c = task_.conv(encodeConv(srcS, wgtS, mid, cp));
		uint16_t s = task_.sdp(encodeSdp(mid, surfaceOf(kOut, outOffset, y), p));
		task_.link(c, s);
		return;
	}
	vdla_task_surface mid = flyingSurface(acc.dtype, acc.n, acc.c, acc.h, acc.w);
	task_.conv(encodeConv(srcS, wgtS, mid, cp, VDLA_TASK_FLY_OUT));
	task_.sdp(encodeSdp(mid, surfaceOf(kOut, outOffset, y), p, VDLA_TASK_FLY_IN));
}

Submission SmallJob::submission(uint32_t ctx, const drm_vdla_sync &out) const
{
	Submission s;
	s.ctx = ctx;
	s.descriptor = kDesc;
	for (int e = 0; e < kEntries; e++)
		s.addresses.push_back(
			bos_[e].entry(e == kTmp || e == kOut ? DRM_VDLA_ADDRESS_FLAG_WRITE : 0));
	s.outSync = out;
	return s;
}

::testing::AssertionResult SmallJob::check()
{
	if (error_)
		return ::testing::AssertionFailure() << "job not prepared: errno " << error_;
	::testing::AssertionResult r
		= sameBytes(expected_.data(), bos_[kOut].map(), kCheckBytes, "output BO");
	if (!r)
		r << " (" << workKindName(kind_) << " job)";
	return r;
}

/* ---- A long job -------------------------------------------------------- */

/* The SDP of every round: wraps, so data never settles. */
static SdpParams chainSdpParams()
{
	SdpParams p;
	p.bias = VDLA_SDP_MODE_PER_TENSOR;
	p.biasValue = 7;
	p.scale = VDLA_SDP_MODE_PER_TENSOR;
	p.scaleMul = 5;
	p.scaleShift = 1;
	p.round = VDLA_ROUND_HALF_EVEN;
	p.wrap = true;
	return p;
}

ChainJob::ChainJob(int fd, unsigned steps, uint64_t seed)
	: steps_(steps),
	  desc_(fd, sizeof(vdla_task_header) + 2 * uint64_t(steps) * sizeof(vdla_task_op)),
	  slices_(fd, uint64_t(steps + 1) * kSliceBytes), tmp_(fd, uint64_t(steps) * kSliceBytes)
{
	for (Bo *bo : { &desc_, &slices_, &tmp_ }) {
		if (!error_ && bo->error())
			error_ = bo->error();
		if (!error_ && !bo->map())
			error_ = ENOMEM;
	}
	if (error_)
		return;

	Rng rng(seed);
	SdpParams p = chainSdpParams();
	/* 1 x 2 x 4 x 8 INT8: one slice. */
	Tensor x = randomFull(rng, VDLA_DTYPE_INT8, 1, 2, 4, 8);
	static_assert(2 * 4 * 8 == kSliceBytes, "a slice holds one tensor");
	slices_.fill(kCanary);
	tmp_.fill(kCanary);
	expected_.assign(slices_.size(), kCanary);
	storeTensor(slices_.map(), x);
	storeTensor(expected_.data(), x);

	for (unsigned k = 0; k < steps; k++) {
		uint16_t copy = task_.copy(1, k * kSliceBytes, 2, k * kSliceBytes, kSliceBytes);
		if (k)
			task_.link(uint16_t(copy - 1), copy);
		x = sdp(x, nullptr, p, VDLA_DTYPE_INT8);
		uint16_t op = task_.sdp(encodeSdp(surfaceOf(2, k * kSliceBytes, x),
			surfaceOf(1, (k + 1) * kSliceBytes, x), p));
		task_.link(copy, op);
		storeTensor(expected_.data() + (k + 1) * kSliceBytes, x);
	}
	if (!task_.write(desc_.map(), desc_.size()))
		error_ = E2BIG;
}

Submission ChainJob::submission(uint32_t ctx, const drm_vdla_sync &out) const
{
	Submission s;
	s.ctx = ctx;
	s.descriptor = 0;
	s.addresses = { desc_.entry(), slices_.entry(DRM_VDLA_ADDRESS_FLAG_WRITE),
		tmp_.entry(DRM_VDLA_ADDRESS_FLAG_WRITE) };
	s.outSync = out;
	return s;
}

std::vector<uint8_t> ChainJob::expectedLastSlice() const
{
	/* The BO is rounded up to pages: the last slice is not at its end. */
	uint64_t offset = lastSliceOffset();
	if (expected_.size() < offset + kSliceBytes)
		return {};
	return std::vector<uint8_t>(expected_.begin() + offset,
		expected_.begin() + offset + kSliceBytes);
}

::testing::AssertionResult ChainJob::check()
{
	if (error_)
		return ::testing::AssertionFailure() << "chain job not built: errno " << error_;
	return sameBytes(expected_.data(), slices_.map(), expected_.size(), "chain slices");
}

} /* namespace guest */
