/* SPDX-License-Identifier: MIT */
/*
 * Logical tensors of the reference: storage, packing into and out of
 * device memory through a TensorDesc, and comparison of a device result
 * with a reference result under the spec's tolerances.
 */
#include "reference.h"

#include <cmath>
#include <cstring>
#include <sstream>

namespace vdla_ref {

Tensor::Tensor(uint32_t dtype_, uint32_t n_, uint32_t c_, uint32_t h_, uint32_t w_)
	: dtype(dtype_), n(n_), c(c_), h(h_), w(w_)
{
	if (vdla_ref::isFloat(dtype))
		f.assign(size(), 0.0);
	else
		i.assign(size(), 0);
}

bool Tensor::isFloat() const
{
	return vdla_ref::isFloat(dtype);
}

double Tensor::get(size_t k) const
{
	return isFloat() ? f[k] : double(i[k]);
}

double Tensor::get(uint32_t in, uint32_t ic, uint32_t ih, uint32_t iw) const
{
	return get(index(in, ic, ih, iw));
}

void Tensor::set(size_t k, double v)
{
	if (isFloat())
		f[k] = v;
	else
		i[k] = int64_t(v);
}

std::string Tensor::shape() const
{
	std::ostringstream s;
	s << dtypeName(dtype) << "(" << n << "," << c << "," << h << "," << w << ")";
	return s.str();
}

Tensor stored(const Tensor &t)
{
	Tensor s = t;
	for (auto &v : s.f)
		v = roundToFloatType(s.dtype, v);
	s.mag.clear();
	s.iHi.clear();
	return s;
}

uint8_t *hostPtr(vdla_test::DeviceHarness &dev, uint64_t devAddr)
{
	if (devAddr >= VDLA_SRAM_BASE)
		return dev.sram() + (devAddr - VDLA_SRAM_BASE);
	return dev.guest(devAddr);
}

void encodeElement(uint32_t dtype, double v, int64_t iv, uint8_t *out)
{
	switch (dtype) {
	case VDLA_DTYPE_INT8:
		out[0] = uint8_t(iv);
		break;
	case VDLA_DTYPE_INT16: {
		uint16_t u = uint16_t(iv);
		out[0] = uint8_t(u);
		out[1] = uint8_t(u >> 8);
		break;
	}
	case VDLA_DTYPE_INT32: {
		uint32_t u = uint32_t(iv);
		for (int b = 0; b < 4; b++)
			out[b] = uint8_t(u >> (8 * b));
		break;
	}
	case VDLA_DTYPE_FP16: {
		uint16_t u = fp16FromDouble(v);
		out[0] = uint8_t(u);
		out[1] = uint8_t(u >> 8);
		break;
	}
	case VDLA_DTYPE_FP32: {
		uint32_t u = fp32Bits(float(v));
		for (int b = 0; b < 4; b++)
			out[b] = uint8_t(u >> (8 * b));
		break;
	}
	}
}

/* Decodes one little-endian element into (float value, integer value). */
static void decodeElement(uint32_t dtype, const uint8_t *in, double &v, int64_t &iv)
{
	switch (dtype) {
	case VDLA_DTYPE_INT8:
		iv = int8_t(in[0]);
		break;
	case VDLA_DTYPE_INT16:
		iv = int16_t(uint16_t(in[0] | (in[1] << 8)));
		break;
	case VDLA_DTYPE_INT32:
		iv = int32_t(uint32_t(in[0]) | (uint32_t(in[1]) << 8) | (uint32_t(in[2]) << 16)
			| (uint32_t(in[3]) << 24));
		break;
	case VDLA_DTYPE_FP16:
		v = fp16ToDouble(uint16_t(in[0] | (in[1] << 8)));
		break;
	case VDLA_DTYPE_FP32:
		v = fp32FromBits(uint32_t(in[0]) | (uint32_t(in[1]) << 8) | (uint32_t(in[2]) << 16)
			| (uint32_t(in[3]) << 24));
		break;
	}
}

size_t tensorBytes(const Tensor &t)
{
	return t.size() * vdla_test::dtypeSize(t.dtype);
}

void storeTensor(uint8_t *dst, const Tensor &t)
{
	size_t e = vdla_test::dtypeSize(t.dtype);
	for (size_t k = 0; k < t.size(); k++)
		encodeElement(
			t.dtype, t.isFloat() ? t.f[k] : 0, t.isFloat() ? 0 : t.i[k], dst + k * e);
}

Tensor loadTensor(const uint8_t *src, const Tensor &shape)
{
	Tensor t(shape.dtype, shape.n, shape.c, shape.h, shape.w);
	size_t e = vdla_test::dtypeSize(t.dtype);
	for (size_t k = 0; k < t.size(); k++) {
		double v = 0;
		int64_t iv = 0;
		decodeElement(t.dtype, src + k * e, v, iv);
		if (t.isFloat())
			t.f[k] = v;
		else
			t.i[k] = iv;
	}
	return t;
}

void store(vdla_test::DeviceHarness &dev, const vdla_test::TensorDesc &d, const Tensor &t)
{
	uint8_t *base = hostPtr(dev, d.addr);
	for (uint32_t in = 0; in < t.n; in++)
		for (uint32_t ic = 0; ic < t.c; ic++)
			for (uint32_t ih = 0; ih < t.h; ih++)
				for (uint32_t iw = 0; iw < t.w; iw++) {
					size_t k = t.index(in, ic, ih, iw);
					encodeElement(d.dtype, t.isFloat() ? t.f[k] : 0,
						t.isFloat() ? 0 : t.i[k],
						base + d.offset(in, ic, ih, iw));
				}
}

Tensor load(vdla_test::DeviceHarness &dev, const vdla_test::TensorDesc &d)
{
	Tensor t(d.dtype, d.n, d.c, d.h, d.w);
	const uint8_t *base = hostPtr(dev, d.addr);
	for (uint32_t in = 0; in < t.n; in++)
		for (uint32_t ic = 0; ic < t.c; ic++)
			for (uint32_t ih = 0; ih < t.h; ih++)
				for (uint32_t iw = 0; iw < t.w; iw++) {
					size_t k = t.index(in, ic, ih, iw);
					double v = 0;
					int64_t iv = 0;
					decodeElement(
						d.dtype, base + d.offset(in, ic, ih, iw), v, iv);
					if (t.isFloat())
						t.f[k] = v;
					else
						t.i[k] = iv;
				}
	return t;
}

double tolerance(uint32_t dtype, double ref, double s)
{
	/* hw-spec "Arithmetic": two units in the last place for FP16. */
	if (dtype == VDLA_DTYPE_FP16)
		return std::ldexp(1.0, -9) * (std::fabs(ref) + s * 1e-3) + std::ldexp(1.0, -24);
	return 1e-5 * s + 1e-30;
}

/* One float element: exact (rounded to the type) or within tolerance. */
static bool floatMatches(uint32_t dtype, double ref, double s, bool exact, double got)
{
	if (std::isnan(ref))
		return std::isnan(got);
	if (exact) {
		double expected = roundToFloatType(dtype, ref);
		return std::isnan(expected) ? std::isnan(got) : got == expected;
	}
	if (std::isnan(got))
		return false;
	if (std::isinf(ref))
		return got == ref;
	double tol = tolerance(dtype, ref, s);
	if (std::fabs(got - ref) <= tol)
		return true;
	/* An overflow to infinity is right if the tolerance reaches it. */
	if (std::isinf(got))
		return roundToFloatType(dtype, ref - tol) == got
			|| roundToFloatType(dtype, ref + tol) == got;
	return false;
}

::testing::AssertionResult matches(const Tensor &ref, const Tensor &got)
{
	if (ref.dtype != got.dtype || ref.n != got.n || ref.c != got.c || ref.h != got.h
		|| ref.w != got.w)
		return ::testing::AssertionFailure() << "shape/type differ: reference "
						     << ref.shape() << ", device " << got.shape();

	size_t bad = 0;
	std::ostringstream first;
	for (uint32_t in = 0; in < ref.n; in++)
		for (uint32_t ic = 0; ic < ref.c; ic++)
			for (uint32_t ih = 0; ih < ref.h; ih++)
				for (uint32_t iw = 0; iw < ref.w; iw++) {
					size_t k = ref.index(in, ic, ih, iw);
					bool ok;
					std::ostringstream want;
					want.precision(10);
					if (ref.isFloat()) {
						bool exact = ref.mag.empty() || ref.mag[k] < 0;
						double s = exact ? 0 : ref.mag[k];
						ok = floatMatches(
							ref.dtype, ref.f[k], s, exact, got.f[k]);
						if (exact)
							want << roundToFloatType(
								ref.dtype, ref.f[k])
							     << " (exact)";
						else
							want << ref.f[k] << " +- "
							     << tolerance(ref.dtype, ref.f[k], s);
					} else {
						int64_t lo = ref.i[k];
						int64_t hi = ref.iHi.empty() ? lo : ref.iHi[k];
						int64_t g = got.i[k];
						/* lo > hi: a wrap between the two bounds. */
						ok = lo <= hi ? (g >= lo && g <= hi)
							      : (g >= lo || g <= hi);
						want << lo;
						if (hi != lo)
							want << ".." << hi;
					}
					if (ok)
						continue;
					if (bad < 5) {
						std::ostringstream gv;
						gv.precision(10);
						if (ref.isFloat())
							gv << got.f[k];
						else
							gv << got.i[k];
						first << "\n  at (n=" << in << ",c=" << ic
						      << ",h=" << ih << ",w=" << iw
						      << "): expected " << want.str() << ", device "
						      << gv.str();
					}
					bad++;
				}
	if (!bad)
		return ::testing::AssertionSuccess();
	return ::testing::AssertionFailure() << bad << " of " << ref.size() << " elements of "
					     << ref.shape() << " differ" << first.str();
}

} /* namespace vdla_ref */
