/* SPDX-License-Identifier: MIT */
/*
 * Every operation type through the firmware: each engine's parameters,
 * written by userspace into a task, must reach the engine's registers so
 * that the device computes what the CPU reference computes from the same
 * logical parameters. Several data types, layouts and modes per engine;
 * several operations per task, so that both register groups of an engine
 * are used (ping-pong).
 */
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "task_builder.h"

using namespace vdla_fwtest;
using namespace vdla_ref;

namespace {

std::string typeName(const ::testing::TestParamInfo<uint32_t> &info)
{
	return dtypeName(info.param);
}

/* ---- BDMA -------------------------------------------------------------- */

TEST(BdmaThroughFirmware, StridedCopyMovesExactlyTheLinesAndSurfaces)
{
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(1);
	const uint32_t lineBytes = 37, lines = 5, surfaces = 3;
	const uint32_t srcLine = 48, srcSurf = 300, dstLine = 40, dstSurf = 220;
	uint16_t src = b.addBuffer(srcSurf * (surfaces - 1) + srcLine * (lines - 1) + lineBytes);
	uint16_t dst = b.addBuffer(dstSurf * (surfaces - 1) + dstLine * (lines - 1) + lineBytes);
	for (uint64_t i = 0; i < b.entry(src).size; i++)
		b.hostPtr(src)[i] = uint8_t(rng.uniform(0, 255));

	BdmaCopy c;
	c.srcIndex = src;
	c.dstIndex = dst;
	c.lineBytes = lineBytes;
	c.lines = lines;
	c.surfaces = surfaces;
	c.srcLineStride = srcLine;
	c.dstLineStride = dstLine;
	c.srcSurfStride = srcSurf;
	c.dstSurfStride = dstSurf;
	b.bdma(c);

	std::vector<uint8_t> expect(b.entry(dst).size, kCanary);
	for (uint32_t s = 0; s < surfaces; s++)
		for (uint32_t l = 0; l < lines; l++)
			std::memcpy(&expect[s * dstSurf + l * dstLine],
				b.hostPtr(src, s * srcSurf + l * srcLine), lineBytes);

	TaskEnd end = runTask(fw, b.finish());
	ASSERT_TRUE(completed(end, 1));
	EXPECT_EQ(0, std::memcmp(expect.data(), b.hostPtr(dst), expect.size()))
		<< "the copy differs from the strided lines of the source";
	EXPECT_TRUE(b.marginsUntouched(dst));
}

TEST(BdmaThroughFirmware, CopiesIntoSramAndBackAtOffsets)
{
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(2);
	const uint32_t bytes = 3000;
	uint16_t src = b.addBuffer(bytes + 100);
	uint16_t sram = b.addBuffer(bytes + 200, Memory::Sram);
	uint16_t dst = b.addBuffer(bytes + 300);
	for (uint32_t i = 0; i < bytes + 100; i++)
		b.hostPtr(src)[i] = uint8_t(rng.uniform(0, 255));

	BdmaCopy in;
	in.srcIndex = src;
	in.srcOffset = 100;
	in.dstIndex = sram;
	in.dstOffset = 200;
	in.lineBytes = bytes;
	uint16_t first = b.bdma(in);
	BdmaCopy out;
	out.srcIndex = sram;
	out.srcOffset = 200;
	out.dstIndex = dst;
	out.dstOffset = 300;
	out.lineBytes = bytes - 100;
	uint16_t second = b.bdma(out);
	b.link(first, second);

	TaskEnd end = runTask(fw, b.finish());
	ASSERT_TRUE(completed(end, 2));
	EXPECT_EQ(0, std::memcmp(b.hostPtr(src, 100), b.hostPtr(dst, 300), bytes - 100));
	for (uint32_t i = 0; i < 300; i++)
		ASSERT_EQ(kCanary, b.hostPtr(dst)[i]) << "byte " << i << " before the copy";
}

/* ---- CONV -------------------------------------------------------------- */

struct ConvShape {
	uint32_t n, cin, h, w, cout, kh, kw;
	ConvParams p;
	Layout srcLayout, dstLayout;
};

std::vector<ConvShape> convShapes(bool isFloatType)
{
	std::vector<ConvShape> shapes;
	ConvShape a = { 1, 3, 7, 9, 4, 3, 3, {}, Layout::Nchw, Layout::Nchw };
	a.p.padL = a.p.padR = a.p.padT = a.p.padB = 1;
	a.p.padValue = isFloatType ? 0.5 : 3;
	shapes.push_back(a);
	/* Stride, asymmetric padding, dilation, two batches, NHWC. */
	ConvShape b = { 2, 4, 9, 8, 5, 3, 2, {}, Layout::Nhwc, Layout::PaddedNhwc };
	b.p.strideX = 2;
	b.p.strideY = 3;
	b.p.padL = 2;
	b.p.padT = 1;
	b.p.padB = 2;
	b.p.dilX = 2;
	shapes.push_back(b);
	/* Grouped (depthwise-like: 2 groups of 3 channels). */
	ConvShape c = { 1, 6, 6, 6, 4, 1, 3, {}, Layout::PaddedNchw, Layout::Nchw };
	c.p.groups = 2;
	c.p.padL = 1;
	c.p.padR = 1;
	shapes.push_back(c);
	return shapes;
}

class ConvThroughFirmware : public ::testing::TestWithParam<uint32_t>
{
};

TEST_P(ConvThroughFirmware, EveryShapeMatchesReference)
{
	const uint32_t dtype = GetParam();
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(10 + dtype);
	struct Run {
		Tensor ref;
		Surface dst;
	};
	std::vector<Run> runs;
	for (const ConvShape &s : convShapes(isFloat(dtype))) {
		Tensor src = randomTensor(rng, dtype, s.n, s.cin, s.h, s.w);
		Tensor wgt = randomTensor(rng, dtype, s.cout, s.cin / s.p.groups, s.kh, s.kw);
		Run r;
		r.ref = conv(src, wgt, s.p);
		r.dst = b.allocLike(r.ref, s.dstLayout);
		b.conv(b.place(src, s.srcLayout), b.place(wgt), r.dst, s.p);
		runs.push_back(r);
	}
	TaskEnd end = runTask(fw, b.finish());
	ASSERT_TRUE(completed(end, uint32_t(runs.size())));
	for (size_t i = 0; i < runs.size(); i++) {
		SCOPED_TRACE("conv " + std::to_string(i));
		EXPECT_TRUE(matches(runs[i].ref, b.load(runs[i].dst)));
		EXPECT_TRUE(b.marginsUntouched(runs[i].dst.index));
	}
}

INSTANTIATE_TEST_SUITE_P(Types, ConvThroughFirmware,
	::testing::Values(VDLA_DTYPE_INT8, VDLA_DTYPE_INT16, VDLA_DTYPE_FP16, VDLA_DTYPE_FP32),
	typeName);

/* ---- SDP --------------------------------------------------------------- */

struct SdpCase {
	SdpParams p;
	uint32_t yType; /* EW operand type */
	uint32_t dstType;
	Layout layout;
};

std::vector<SdpCase> intSdpCases(Rng &rng, uint32_t channels)
{
	std::vector<SdpCase> cases;
	SdpCase a = { {}, VDLA_DTYPE_INT8, VDLA_DTYPE_INT8, Layout::Nchw };
	a.p.bias = VDLA_SDP_MODE_PER_CHANNEL;
	for (uint32_t c = 0; c < channels; c++)
		a.p.biasChannel.push_back(int32_t(rng.uniform(-300, 300)));
	a.p.scale = VDLA_SDP_MODE_PER_TENSOR;
	a.p.scaleMul = 3;
	a.p.scaleShift = 4;
	a.p.act = VDLA_SDP_ACT_RELU;
	a.p.round = VDLA_ROUND_HALF_EVEN;
	cases.push_back(a);

	SdpCase b = { {}, VDLA_DTYPE_INT16, VDLA_DTYPE_INT16, Layout::Nhwc };
	b.p.bias = VDLA_SDP_MODE_PER_TENSOR;
	b.p.biasValue = -77;
	b.p.scale = VDLA_SDP_MODE_PER_CHANNEL;
	for (uint32_t c = 0; c < channels; c++) {
		b.p.scaleMulChannel.push_back(int32_t(rng.uniform(-1000, 1000)));
		b.p.scaleShiftChannel.push_back(int32_t(rng.uniform(0, 12)));
	}
	b.p.ew = VDLA_SDP_EW_OP_ADD;
	b.p.ewMul = 5;
	b.p.ewShift = 2;
	b.p.act = VDLA_SDP_ACT_CLIP;
	b.p.clipMin = -20000;
	b.p.clipMax = 15000;
	b.p.round = VDLA_ROUND_HALF_AWAY;
	cases.push_back(b);

	SdpCase c = { {}, VDLA_DTYPE_INT32, VDLA_DTYPE_INT32, Layout::PaddedNchw };
	c.p.ew = VDLA_SDP_EW_OP_MUL;
	c.p.ewMul = -3;
	c.p.ewShift = 1;
	c.p.ewPostShift = 9;
	c.p.act = VDLA_SDP_ACT_LUT;
	c.p.lut = sampleIntLut(rng);
	c.p.lutStart = -4000;
	c.p.lutShift = 5;
	c.p.round = VDLA_ROUND_FLOOR;
	cases.push_back(c);

	SdpCase d = { {}, VDLA_DTYPE_INT8, VDLA_DTYPE_INT8, Layout::PaddedNhwc };
	d.p.ew = VDLA_SDP_EW_OP_MAX;
	d.p.ewMul = 2;
	d.p.outOffset = 40;
	d.p.wrap = true;
	d.p.round = VDLA_ROUND_HALF_UP;
	cases.push_back(d);
	return cases;
}

std::vector<SdpCase> floatSdpCases(Rng &rng, uint32_t channels)
{
	std::vector<SdpCase> cases;
	SdpCase a = { {}, VDLA_DTYPE_FP16, VDLA_DTYPE_FP16, Layout::Nchw };
	a.p.bias = VDLA_SDP_MODE_PER_TENSOR;
	a.p.fBiasValue = 0.25f;
	a.p.scale = VDLA_SDP_MODE_PER_CHANNEL;
	for (uint32_t c = 0; c < channels; c++)
		a.p.fScaleChannel.push_back(float(rng.real(-2, 2)));
	a.p.act = VDLA_SDP_ACT_CLIP;
	a.p.fClipMin = -1.5f;
	a.p.fClipMax = 2.0f;
	cases.push_back(a);

	SdpCase b = { {}, VDLA_DTYPE_FP32, VDLA_DTYPE_FP32, Layout::Nhwc };
	b.p.bias = VDLA_SDP_MODE_PER_CHANNEL;
	for (uint32_t c = 0; c < channels; c++)
		b.p.fBiasChannel.push_back(float(rng.real(-1, 1)));
	b.p.scale = VDLA_SDP_MODE_PER_TENSOR;
	b.p.fScale = 1.75f;
	b.p.ew = VDLA_SDP_EW_OP_ADD;
	b.p.fEwMul = -0.5f;
	b.p.act = VDLA_SDP_ACT_RELU;
	cases.push_back(b);

	SdpCase c = { {}, VDLA_DTYPE_FP16, VDLA_DTYPE_INT8, Layout::Nchw };
	c.p.ew = VDLA_SDP_EW_OP_MUL;
	c.p.fEwMul = 2.0f;
	c.p.act = VDLA_SDP_ACT_LUT;
	c.p.fLut = sampleFloatLut(rng);
	c.p.fLutStart = -3.0f;
	c.p.fLutStep = 0.03f;
	c.p.scale = VDLA_SDP_MODE_PER_TENSOR;
	c.p.fScale = 20.0f;
	c.p.round = VDLA_ROUND_HALF_AWAY;
	cases.push_back(c);

	SdpCase d = { {}, VDLA_DTYPE_FP32, VDLA_DTYPE_INT16, Layout::PaddedNchw };
	d.p.ew = VDLA_SDP_EW_OP_MAX;
	d.p.fEwMul = 1.0f;
	d.p.scale = VDLA_SDP_MODE_PER_TENSOR;
	d.p.fScale = 1000.0f;
	d.p.round = VDLA_ROUND_TO_ZERO;
	cases.push_back(d);
	return cases;
}

class SdpThroughFirmware : public ::testing::TestWithParam<uint32_t>
{
};

TEST_P(SdpThroughFirmware, EveryModeMatchesReference)
{
	const uint32_t xType = GetParam();
	const uint32_t channels = 5;
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(20 + xType);
	std::vector<SdpCase> cases
		= isFloat(xType) ? floatSdpCases(rng, channels) : intSdpCases(rng, channels);
	struct Run {
		Tensor ref;
		Surface dst;
	};
	std::vector<Run> runs;
	for (const SdpCase &c : cases) {
		Tensor x = randomTensor(rng, xType, 2, channels, 3, 4);
		Tensor y = randomTensor(rng, c.yType, 2, channels, 3, 4);
		bool ew = c.p.ew != VDLA_SDP_EW_OP_NONE;
		Run r;
		r.ref = sdp(x, ew ? &y : nullptr, c.p, c.dstType);
		r.dst = b.allocLike(r.ref, c.layout);
		Surface ys = b.place(y, Layout::Nchw);
		b.sdp(b.place(x, c.layout), r.dst, c.p, ew ? &ys : nullptr);
		runs.push_back(r);
	}
	TaskEnd end = runTask(fw, b.finish());
	ASSERT_TRUE(completed(end, uint32_t(runs.size())));
	for (size_t i = 0; i < runs.size(); i++) {
		SCOPED_TRACE("sdp case " + std::to_string(i));
		EXPECT_TRUE(matches(runs[i].ref, b.load(runs[i].dst)));
		EXPECT_TRUE(b.marginsUntouched(runs[i].dst.index));
	}
}

INSTANTIATE_TEST_SUITE_P(Types, SdpThroughFirmware,
	::testing::Values(VDLA_DTYPE_INT8, VDLA_DTYPE_INT16, VDLA_DTYPE_INT32, VDLA_DTYPE_FP16,
		VDLA_DTYPE_FP32),
	typeName);

/* ---- PDP --------------------------------------------------------------- */

class PdpThroughFirmware : public ::testing::TestWithParam<uint32_t>
{
};

TEST_P(PdpThroughFirmware, EveryMethodMatchesReference)
{
	const uint32_t dtype = GetParam();
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(30 + dtype);
	std::vector<PdpParams> params(3);
	params[0].method = VDLA_PDP_MAX;
	params[0].kw = params[0].kh = 2;
	params[0].sx = params[0].sy = 2;
	params[1].method = VDLA_PDP_AVG;
	params[1].kw = params[1].kh = 3;
	params[1].sx = params[1].sy = 2;
	params[1].padL = params[1].padR = params[1].padT = params[1].padB = 1;
	params[1].ceil = true;
	params[1].includePad = true;
	params[1].round = VDLA_ROUND_HALF_UP;
	params[2].method = VDLA_PDP_MIN;
	params[2].kw = 3;
	params[2].kh = 2;
	params[2].padL = 1;
	params[2].padB = 1;
	const Layout layouts[] = { Layout::Nchw, Layout::Nhwc, Layout::PaddedNchw };

	struct Run {
		Tensor ref;
		Surface dst;
	};
	std::vector<Run> runs;
	for (size_t i = 0; i < params.size(); i++) {
		Tensor src = randomTensor(rng, dtype, 1, 3, 7, 9);
		Run r;
		r.ref = pdp(src, params[i]);
		r.dst = b.allocLike(r.ref, layouts[(i + 1) % 3]);
		b.pdp(b.place(src, layouts[i]), r.dst, params[i]);
		runs.push_back(r);
	}
	TaskEnd end = runTask(fw, b.finish());
	ASSERT_TRUE(completed(end, uint32_t(runs.size())));
	for (size_t i = 0; i < runs.size(); i++) {
		SCOPED_TRACE("pdp case " + std::to_string(i));
		EXPECT_TRUE(matches(runs[i].ref, b.load(runs[i].dst)));
		EXPECT_TRUE(b.marginsUntouched(runs[i].dst.index));
	}
}

INSTANTIATE_TEST_SUITE_P(Types, PdpThroughFirmware,
	::testing::Values(VDLA_DTYPE_INT8, VDLA_DTYPE_INT16, VDLA_DTYPE_FP16, VDLA_DTYPE_FP32),
	typeName);

/* ---- CDP --------------------------------------------------------------- */

class CdpThroughFirmware : public ::testing::TestWithParam<uint32_t>
{
};

TEST_P(CdpThroughFirmware, WindowSizesMatchReference)
{
	const uint32_t dtype = GetParam();
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(40 + dtype);
	struct Run {
		Tensor ref;
		Surface dst;
	};
	std::vector<Run> runs;
	for (uint32_t size : { 1u, 3u, 5u }) {
		CdpParams p;
		p.size = size;
		if (isFloat(dtype)) {
			p.k = 1.0f;
			p.alpha = 2.5f;
			p.beta = 0.75f;
		} else {
			p.lut = sampleCdpLut();
			/* INT8: s < 2^18 over a table to 2^16; INT16: s < 2^34, table to 2^32. */
			p.lutShift = dtype == VDLA_DTYPE_INT8 ? 8 : 24;
			p.outShift = 16;
			p.round = VDLA_ROUND_HALF_EVEN;
		}
		Tensor src = randomTensor(rng, dtype, 1, 7, 3, 4);
		Run r;
		r.ref = cdp(src, p);
		r.dst = b.allocLike(r.ref, size == 3 ? Layout::Nhwc : Layout::Nchw);
		b.cdp(b.place(src), r.dst, p);
		runs.push_back(r);
	}
	TaskEnd end = runTask(fw, b.finish());
	ASSERT_TRUE(completed(end, uint32_t(runs.size())));
	for (size_t i = 0; i < runs.size(); i++) {
		SCOPED_TRACE("cdp case " + std::to_string(i));
		EXPECT_TRUE(matches(runs[i].ref, b.load(runs[i].dst)));
		EXPECT_TRUE(b.marginsUntouched(runs[i].dst.index));
	}
}

INSTANTIATE_TEST_SUITE_P(Types, CdpThroughFirmware,
	::testing::Values(VDLA_DTYPE_INT8, VDLA_DTYPE_INT16, VDLA_DTYPE_FP16, VDLA_DTYPE_FP32),
	typeName);

/* ---- RUBIK ------------------------------------------------------------- */

class RubikThroughFirmware : public ::testing::TestWithParam<uint32_t>
{
};

TEST_P(RubikThroughFirmware, EveryModeMatchesReference)
{
	const uint32_t dtype = GetParam();
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(50 + dtype);
	std::vector<RubikParams> params(4);
	params[0].mode = VDLA_RUBIK_PERMUTE;
	/* DST W takes SRC C, H takes W, C takes H: NCHW to a "NWCH"-like order. */
	params[0].perm[VDLA_DIM_W] = VDLA_DIM_C;
	params[0].perm[VDLA_DIM_H] = VDLA_DIM_W;
	params[0].perm[VDLA_DIM_C] = VDLA_DIM_H;
	params[0].perm[VDLA_DIM_N] = VDLA_DIM_N;
	params[1].mode = VDLA_RUBIK_RESHAPE;
	params[1].n = 1;
	params[1].c = 6;
	params[1].h = 8;
	params[1].w = 2;
	params[2].mode = VDLA_RUBIK_CONTRACT;
	params[2].bx = 2;
	params[2].by = 2;
	params[3].mode = VDLA_RUBIK_SPLIT;
	params[3].bx = 2;
	params[3].by = 1;
	struct Run {
		Tensor ref;
		Surface dst;
	};
	std::vector<Run> runs;
	for (size_t i = 0; i < params.size(); i++) {
		Tensor src = randomTensor(rng, dtype, 1, 4, 4, 6);
		Run r;
		r.ref = rubik(src, params[i]);
		r.dst = b.allocLike(r.ref, i % 2 ? Layout::Nhwc : Layout::PaddedNchw);
		b.rubik(b.place(src, i % 2 ? Layout::PaddedNhwc : Layout::Nchw), r.dst, params[i]);
		runs.push_back(r);
	}
	TaskEnd end = runTask(fw, b.finish());
	ASSERT_TRUE(completed(end, uint32_t(runs.size())));
	for (size_t i = 0; i < runs.size(); i++) {
		SCOPED_TRACE("rubik mode " + std::to_string(params[i].mode));
		EXPECT_TRUE(matches(runs[i].ref, b.load(runs[i].dst)));
		EXPECT_TRUE(b.marginsUntouched(runs[i].dst.index));
	}
}

INSTANTIATE_TEST_SUITE_P(Types, RubikThroughFirmware,
	::testing::Values(VDLA_DTYPE_INT8, VDLA_DTYPE_INT16, VDLA_DTYPE_INT32, VDLA_DTYPE_FP16,
		VDLA_DTYPE_FP32),
	typeName);

/* ---- The descriptor ---------------------------------------------------- */

TEST(DescriptorThroughFirmware, OpsOffsetBeyondTheHeaderIsHonoured)
{
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(60);
	Tensor src = randomTensor(rng, VDLA_DTYPE_INT8, 1, 2, 4, 4);
	RubikParams p;
	p.mode = VDLA_RUBIK_PERMUTE;
	Surface dst = b.allocLike(src);
	b.rubik(b.place(src), dst, p);
	/* 256 bytes of zeros between header and ops: the firmware must skip them. */
	TaskEnd end = runTask(fw, b.finish(256));
	ASSERT_TRUE(completed(end, 1));
	EXPECT_TRUE(matches(src, b.load(dst)));
}

TEST(DescriptorThroughFirmware, DescriptorInSramAtAnyListIndexIsRead)
{
	FwDevice fw;
	TaskBuilder b(fw, Memory::Sram);
	Rng rng(61);
	Tensor src = randomTensor(rng, VDLA_DTYPE_FP16, 1, 3, 5, 5);
	PdpParams p;
	p.method = VDLA_PDP_MAX;
	p.kw = p.kh = 2;
	Tensor ref = pdp(src, p);
	Surface dst = b.allocLike(ref);
	b.pdp(b.place(src), dst, p);
	TestTask &task = b.finish();
	/* Move the descriptor's entry to the end of the list: only config.descriptor names it. */
	task.addresses.push_back(task.addresses[0]);
	task.addresses[0] = { 0, 0 };
	task.descriptor = uint16_t(task.addresses.size() - 1);
	TaskEnd end = runTask(fw, task);
	ASSERT_TRUE(completed(end, 1));
	EXPECT_TRUE(matches(ref, b.load(dst)));
}

TEST(DescriptorThroughFirmware, ChangingTheDescriptorWhileTheTaskRunsChangesNothing)
{
	FwDevice fw;
	TaskBuilder b(fw);
	Rng rng(62);
	/* A slow first op, so that the rest is still to come when the descriptor changes. */
	fw.injectFault(VDLA_ENGINE_BDMA, VDLA_FI_DELAY, 1, 20000);
	Tensor src = randomTensor(rng, VDLA_DTYPE_INT16, 1, 2, 6, 6);
	Surface a = b.place(src), mid = b.allocLike(src), out = b.allocLike(src);
	uint16_t first = b.copy(a, mid);
	RubikParams p;
	p.mode = VDLA_RUBIK_PERMUTE;
	uint16_t second = b.rubik(mid, out, p);
	b.link(first, second);
	TestTask &task = b.finish();
	dla_task_config config = task.config();
	ASSERT_EQ(DLA_SUCCESS, dla_execute_task(fw.engine(), &config));
	/* The validated copy is the task now: scribble over the whole descriptor. */
	std::memset(b.hostPtr(0), 0xff, task.addresses[0].size);
	TaskEnd end = waitTask(fw);
	ASSERT_TRUE(completed(end, 2));
	EXPECT_TRUE(matches(src, b.load(out)));
}

} /* namespace */
