/* SPDX-License-Identifier: MIT */
#include "tensor_desc.h"

namespace vdla_test {

size_t dtypeSize(uint32_t dtype)
{
	switch (dtype) {
	case VDLA_DTYPE_INT8:
		return 1;
	case VDLA_DTYPE_INT16:
	case VDLA_DTYPE_FP16:
		return 2;
	default:
		return 4;
	}
}

TensorDesc TensorDesc::nchw(uint64_t addr, uint32_t dtype, uint32_t n, uint32_t c, uint32_t h,
			    uint32_t w)
{
	TensorDesc t;
	uint32_t e = dtypeSize(dtype);
	t.addr = addr;
	t.dtype = dtype;
	t.n = n, t.c = c, t.h = h, t.w = w;
	t.strideW = e;
	t.strideH = w * e;
	t.strideC = h * w * e;
	t.strideN = c * h * w * e;
	return t;
}

TensorDesc TensorDesc::nhwc(uint64_t addr, uint32_t dtype, uint32_t n, uint32_t c, uint32_t h,
			    uint32_t w)
{
	TensorDesc t;
	uint32_t e = dtypeSize(dtype);
	t.addr = addr;
	t.dtype = dtype;
	t.n = n, t.c = c, t.h = h, t.w = w;
	t.strideC = e;
	t.strideW = c * e;
	t.strideH = w * c * e;
	t.strideN = h * w * c * e;
	return t;
}

uint64_t TensorDesc::offset(uint32_t in, uint32_t ic, uint32_t ih, uint32_t iw) const
{
	return uint64_t(in) * strideN + uint64_t(ic) * strideC + uint64_t(ih) * strideH +
	       uint64_t(iw) * strideW;
}

uint64_t TensorDesc::extent() const
{
	return offset(n - 1, c - 1, h - 1, w - 1) + dtypeSize(dtype);
}

} /* namespace vdla_test */
