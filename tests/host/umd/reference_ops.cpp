/* SPDX-License-Identifier: MIT */
#include "reference_ops.h"

#include <cstring>

namespace umd_test {

using namespace vdla_ref;

vdla::DataType dataType(uint32_t dtype)
{
	return vdla::DataType(dtype);
}

vdla::Tensor tensorAt(uint16_t buffer, uint64_t offset, const Tensor &t)
{
	return vdla::Tensor::nchw(buffer, offset, dataType(t.dtype), t.n, t.c, t.h, t.w);
}

void storeInt32s(uint8_t *dst, const std::vector<int32_t> &values)
{
	for (size_t k = 0; k < values.size(); k++)
		for (int b = 0; b < 4; b++)
			dst[4 * k + b] = uint8_t(uint32_t(values[k]) >> (8 * b));
}

vdla::ConvOp convOp(const vdla::Tensor &src, const vdla::Tensor &wgt, const vdla::Tensor &dst,
	const ConvParams &p)
{
	vdla::ConvOp op;
	op.src = src;
	op.weights = wgt;
	op.dst = dst;
	op.strideX = uint16_t(p.strideX);
	op.strideY = uint16_t(p.strideY);
	op.padLeft = uint16_t(p.padL);
	op.padRight = uint16_t(p.padR);
	op.padTop = uint16_t(p.padT);
	op.padBottom = uint16_t(p.padB);
	op.dilationX = uint16_t(p.dilX);
	op.dilationY = uint16_t(p.dilY);
	op.groups = p.groups;
	op.padValue = int32_t(p.padValue);
	op.padValueFloat = float(p.padValue);
	return op;
}

vdla::SdpOp sdpOp(
	const vdla::Tensor &src, const vdla::Tensor &dst, const SdpParams &p, vdla::Location bias)
{
	vdla::SdpOp op;
	op.src = src;
	op.dst = dst;
	op.bias = bias;
	op.biasMode = vdla::SdpMode(p.bias);
	op.scaleMode = vdla::SdpMode(p.scale);
	op.ewOp = vdla::SdpEwOp(p.ew);
	op.activation = vdla::SdpActivation(p.act);
	op.round = vdla::Round(p.round);
	op.wrap = p.wrap;
	op.biasValue = p.biasValue;
	op.scaleMul = p.scaleMul;
	op.scaleShift = p.scaleShift;
	op.ewMul = p.ewMul;
	op.ewShift = p.ewShift;
	op.ewPostShift = p.ewPostShift;
	op.clipMin = p.clipMin;
	op.clipMax = p.clipMax;
	op.lutStart = p.lutStart;
	op.lutShift = p.lutShift;
	op.outOffset = p.outOffset;
	op.biasFloat = p.fBiasValue;
	op.scaleFloat = p.fScale;
	op.ewMulFloat = p.fEwMul;
	op.clipMinFloat = p.fClipMin;
	op.clipMaxFloat = p.fClipMax;
	op.lutStartFloat = p.fLutStart;
	op.lutStepFloat = p.fLutStep;
	return op;
}

vdla::PdpOp pdpOp(const vdla::Tensor &src, const vdla::Tensor &dst, const PdpParams &p)
{
	vdla::PdpOp op;
	op.src = src;
	op.dst = dst;
	op.method = vdla::PoolMethod(p.method);
	op.ceilMode = p.ceil;
	op.includePad = p.includePad;
	op.round = vdla::Round(p.round);
	op.kernelW = uint16_t(p.kw);
	op.kernelH = uint16_t(p.kh);
	op.strideX = uint16_t(p.sx);
	op.strideY = uint16_t(p.sy);
	op.padLeft = uint16_t(p.padL);
	op.padRight = uint16_t(p.padR);
	op.padTop = uint16_t(p.padT);
	op.padBottom = uint16_t(p.padB);
	return op;
}

::testing::AssertionResult sameBytes(const uint8_t *expected, const uint8_t *got, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		if (expected[i] != got[i])
			return ::testing::AssertionFailure()
				<< "byte " << i << " of " << size << ": 0x" << std::hex
				<< int(got[i]) << ", expected 0x" << int(expected[i]);
	}
	return ::testing::AssertionSuccess();
}

} /* namespace umd_test */
