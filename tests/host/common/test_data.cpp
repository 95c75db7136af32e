/* SPDX-License-Identifier: MIT */
#include "test_data.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace vdla_testdata {

using namespace vdla_ref;

const char *layoutName(Layout layout)
{
	switch (layout) {
	case Layout::Nchw:
		return "Nchw";
	case Layout::Nhwc:
		return "Nhwc";
	case Layout::PaddedNchw:
		return "PaddedNchw";
	case Layout::PaddedNhwc:
		return "PaddedNhwc";
	}
	return "?";
}

TensorDesc makeDesc(uint64_t addr, uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w,
	Layout layout)
{
	uint32_t e = uint32_t(vdla_test::dtypeSize(dtype));
	TensorDesc d;
	switch (layout) {
	case Layout::Nchw:
		return TensorDesc::nchw(addr, dtype, n, c, h, w);
	case Layout::Nhwc:
		return TensorDesc::nhwc(addr, dtype, n, c, h, w);
	case Layout::PaddedNchw:
		d = TensorDesc::nchw(addr, dtype, n, c, h, w);
		d.strideH = (w + 3) * e;
		d.strideC = d.strideH * h + 5 * e;
		d.strideN = d.strideC * c + 7 * e;
		return d;
	case Layout::PaddedNhwc:
		d = TensorDesc::nhwc(addr, dtype, n, c, h, w);
		d.strideW = (c + 2) * e;
		d.strideH = d.strideW * w + 4 * e;
		d.strideN = d.strideH * h + 8 * e;
		return d;
	}
	return d;
}

Tensor randomInt(Rng &rng, uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w,
	int64_t lo, int64_t hi)
{
	Tensor t(dtype, n, c, h, w);
	lo = std::max(lo, dtypeMin(dtype));
	hi = std::min(hi, dtypeMax(dtype));
	for (auto &v : t.i)
		v = rng.uniform(lo, hi);
	return t;
}

Tensor randomFull(Rng &rng, uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w)
{
	return randomInt(rng, dtype, n, c, h, w, dtypeMin(dtype), dtypeMax(dtype));
}

Tensor randomExtremes(Rng &rng, uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w)
{
	Tensor t(dtype, n, c, h, w);
	int64_t lo = dtypeMin(dtype), hi = dtypeMax(dtype);
	const int64_t values[] = { lo, lo, lo + 1, hi, hi, hi - 1, 1, -1, 3, -3 };
	for (auto &v : t.i)
		v = values[rng.uniform(0, int64_t(std::size(values)) - 1)];
	return t;
}

Tensor randomReal(Rng &rng, uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w,
	double lo, double hi)
{
	Tensor t(dtype, n, c, h, w);
	for (auto &v : t.f)
		v = roundToFloatType(dtype, rng.real(lo, hi));
	return t;
}

Tensor randomDyadic(Rng &rng, uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w,
	int64_t range, int fracBits)
{
	Tensor t(dtype, n, c, h, w);
	for (auto &v : t.f)
		v = roundToFloatType(
			dtype, std::ldexp(double(rng.uniform(-range, range)), -fracBits));
	return t;
}

Tensor randomTensor(Rng &rng, uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w)
{
	if (isFloat(dtype))
		return randomReal(rng, dtype, n, c, h, w, -2, 2);
	return randomFull(rng, dtype, n, c, h, w);
}

std::vector<int16_t> sampleIntLut(Rng &rng)
{
	std::vector<int16_t> t;
	for (int i = 0; i < VDLA_LUT_ENTRIES; i++) {
		double v = 20000 * std::tanh((i - 128) / 40.0) + double(rng.uniform(-300, 300));
		t.push_back(int16_t(std::lround(v)));
	}
	return t;
}

std::vector<float> sampleFloatLut(Rng &rng)
{
	std::vector<float> t;
	for (int i = 0; i < VDLA_LUT_ENTRIES; i++)
		t.push_back(float(3 * std::sin(i / 20.0) + rng.real(-0.1, 0.1)));
	return t;
}

std::vector<int32_t> sampleCdpLut()
{
	std::vector<int32_t> t;
	for (int i = 0; i < VDLA_LUT_ENTRIES; i++)
		t.push_back(int32_t(std::lround(65536 * std::pow(1 + i / 16.0, -0.75))));
	return t;
}

ChainWork intChainWork(Rng &rng)
{
	ChainWork w;
	w.src = randomFull(rng, VDLA_DTYPE_INT8, 1, 8, 10, 10);
	w.wgt = randomFull(rng, VDLA_DTYPE_INT8, 6, 8, 3, 3);
	w.conv.padL = w.conv.padR = w.conv.padT = w.conv.padB = 1;
	w.conv.padValue = 3;
	w.sdp.bias = VDLA_SDP_MODE_PER_CHANNEL;
	for (int c = 0; c < 6; c++)
		w.sdp.biasChannel.push_back(int32_t(rng.uniform(-5000, 5000)));
	w.sdp.scale = VDLA_SDP_MODE_PER_TENSOR;
	w.sdp.scaleMul = 3;
	w.sdp.scaleShift = 10;
	w.sdp.act = VDLA_SDP_ACT_RELU;
	w.sdp.round = VDLA_ROUND_HALF_EVEN;
	w.sdpOut = VDLA_DTYPE_INT8;
	w.pdp.method = VDLA_PDP_MAX;
	w.pdp.kw = w.pdp.kh = 2;
	w.pdp.sx = w.pdp.sy = 2;
	w.refConv = conv(w.src, w.wgt, w.conv);
	w.refSdp = sdp(w.refConv, nullptr, w.sdp, w.sdpOut);
	w.refPdp = pdp(stored(w.refSdp), w.pdp);
	return w;
}

/*
 * FP16 conv -> FP32 -> SDP (scale, bias, clip) -> FP16 [-> PDP AVG 3x3 pad 1].
 * With @exact, data in {-1, -0.5, 0, 0.5, 1} keep every value up to SDP's
 * FP16 output exact, so PDP averages known values; otherwise PDP's input
 * would be an FP16 rounding the reference cannot know.
 */
ChainWork floatChainWork(Rng &rng, bool exact)
{
	ChainWork w;
	w.src = exact ? randomDyadic(rng, VDLA_DTYPE_FP16, 1, 5, 9, 9, 2, 1)
		      : randomReal(rng, VDLA_DTYPE_FP16, 1, 5, 9, 9, -1, 1);
	w.wgt = exact ? randomDyadic(rng, VDLA_DTYPE_FP16, 4, 5, 3, 3, 2, 1)
		      : randomReal(rng, VDLA_DTYPE_FP16, 4, 5, 3, 3, -1, 1);
	w.conv.padL = w.conv.padR = w.conv.padT = w.conv.padB = 1;
	w.sdp.bias = VDLA_SDP_MODE_PER_TENSOR;
	w.sdp.fBiasValue = 0.25f;
	w.sdp.scale = VDLA_SDP_MODE_PER_CHANNEL;
	w.sdp.fScaleChannel = { 0.5f, -1.0f, 2.0f, 0.75f };
	w.sdp.act = VDLA_SDP_ACT_CLIP;
	w.sdp.fClipMin = -2.0f;
	w.sdp.fClipMax = 3.0f;
	w.sdpOut = VDLA_DTYPE_FP16;
	w.pdp.method = VDLA_PDP_AVG;
	w.pdp.kw = w.pdp.kh = 3;
	w.pdp.sx = w.pdp.sy = 2;
	w.pdp.padL = w.pdp.padR = w.pdp.padT = w.pdp.padB = 1;
	w.pdp.includePad = true;
	w.pdp.ceil = true;
	w.refConv = conv(w.src, w.wgt, w.conv);
	w.refSdp = sdp(w.refConv, nullptr, w.sdp, w.sdpOut);
	w.refPdp = pdp(stored(w.refSdp), w.pdp);
	return w;
}

} /* namespace vdla_testdata */
