/* SPDX-License-Identifier: MIT */
/*
 * The reference engines: BDMA, CONV, SDP, PDP, CDP and RUBIK of
 * docs/hw-spec.md, as plain nested loops over logical tensors.
 */
#include "reference.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace vdla_ref {

/* ---- Exactness of FP32 sums -------------------------------------------- */

/* Exponent of the lowest set bit of a finite non-zero double. */
static int lowBitExp(double x)
{
	int e;
	double m = std::frexp(std::fabs(x), &e);
	uint64_t mant = uint64_t(std::ldexp(m, 53));
	int q = e - 53;
	while (!(mant & 1)) {
		mant >>= 1;
		q++;
	}
	return q;
}

/*
 * Collects the terms of a sum and tells whether an FP32 sum of them is exact
 * in every order of accumulation: then the spec's unspecified order makes
 * no difference and the device must give the exact value. That holds when
 * every term is an FP32 value and every partial sum is a multiple of the
 * finest term granularity 2^q no larger than 2^(q+24) in magnitude.
 */
class SumTracker
{
public:
	void add(double term)
	{
		sum_ += term;
		mag_ += std::fabs(term);
		if (!isFp32Exact(term) || std::isinf(term) || std::isnan(term))
			exact_ = false;
		if (term != 0 && std::isfinite(term))
			q_ = std::min(q_, lowBitExp(term));
	}
	double sum() const { return sum_; }
	double mag() const { return mag_; }
	bool exact() const
	{
		if (!exact_)
			return false;
		if (mag_ == 0)
			return true;
		return q_ >= -149 && mag_ <= std::ldexp(1.0, q_ + 24) && mag_ < 3.4e38;
	}

private:
	double sum_ = 0, mag_ = 0;
	int q_ = 100000;
	bool exact_ = true;
};

/* ---- BDMA -------------------------------------------------------------- */

std::vector<std::pair<uint64_t, uint8_t>> bdma(
	const BdmaParams &p, const std::function<uint8_t(uint64_t)> &readByte)
{
	/* Memmove semantics: read everything first. */
	std::vector<uint8_t> data;
	data.reserve(size_t(p.lineBytes) * p.lines * p.surfaces);
	for (uint64_t s = 0; s < p.surfaces; s++)
		for (uint64_t l = 0; l < p.lines; l++)
			for (uint64_t b = 0; b < p.lineBytes; b++)
				data.push_back(readByte(
					p.src + s * p.srcSurfStride + l * p.srcLineStride + b));

	std::vector<std::pair<uint64_t, uint8_t>> writes;
	writes.reserve(data.size());
	size_t k = 0;
	for (uint64_t s = 0; s < p.surfaces; s++)
		for (uint64_t l = 0; l < p.lines; l++)
			for (uint64_t b = 0; b < p.lineBytes; b++)
				writes.emplace_back(
					p.dst + s * p.dstSurfStride + l * p.dstLineStride + b,
					data[k++]);
	return writes;
}

/* ---- CONV -------------------------------------------------------------- */

int64_t convOutSize(
	uint32_t in, uint32_t pad0, uint32_t pad1, uint32_t k, uint32_t dil, uint32_t stride)
{
	int64_t num = int64_t(in) + pad0 + pad1 - (int64_t(k - 1) * dil + 1);
	if (num < 0)
		return -1;
	return num / stride + 1;
}

uint64_t convMacs(const Tensor &src, const Tensor &wgt, const ConvParams &p)
{
	int64_t ow = convOutSize(src.w, p.padL, p.padR, wgt.w, p.dilX, p.strideX);
	int64_t oh = convOutSize(src.h, p.padT, p.padB, wgt.h, p.dilY, p.strideY);
	return uint64_t(src.n) * wgt.n * oh * ow * wgt.c * wgt.h * wgt.w;
}

Tensor conv(const Tensor &src, const Tensor &wgt, const ConvParams &p)
{
	int64_t ow = convOutSize(src.w, p.padL, p.padR, wgt.w, p.dilX, p.strideX);
	int64_t oh = convOutSize(src.h, p.padT, p.padB, wgt.h, p.dilY, p.strideY);
	assert(ow > 0 && oh > 0);
	assert(wgt.c * p.groups == src.c && wgt.n % p.groups == 0);
	bool fp = src.isFloat();
	Tensor out(
		fp ? VDLA_DTYPE_FP32 : VDLA_DTYPE_INT32, src.n, wgt.n, uint32_t(oh), uint32_t(ow));
	if (fp)
		out.mag.assign(out.size(), -1);
	uint32_t coPerGroup = wgt.n / p.groups;

	for (uint32_t n = 0; n < src.n; n++)
		for (uint32_t co = 0; co < wgt.n; co++) {
			uint32_t g = co / coPerGroup;
			for (uint32_t oy = 0; oy < oh; oy++)
				for (uint32_t ox = 0; ox < ow; ox++) {
					i128 acc = 0;
					SumTracker sum;
					for (uint32_t cg = 0; cg < wgt.c; cg++) {
						uint32_t ci = g * wgt.c + cg;
						for (uint32_t ky = 0; ky < wgt.h; ky++)
							for (uint32_t kx = 0; kx < wgt.w; kx++) {
								int64_t iy = int64_t(oy) * p.strideY
									- p.padT
									+ int64_t(ky) * p.dilY;
								int64_t ix = int64_t(ox) * p.strideX
									- p.padL
									+ int64_t(kx) * p.dilX;
								bool inside = iy >= 0 && iy < src.h
									&& ix >= 0 && ix < src.w;
								double x = inside
									? src.get(n, ci, iy, ix)
									: p.padValue;
								if (fp)
									sum.add(x
										* wgt.get(co, cg,
											ky, kx));
								else
									acc += i128(int64_t(x))
										* wgt.geti(co, cg,
											ky, kx);
							}
					}
					size_t k = out.index(n, co, oy, ox);
					if (fp) {
						out.f[k] = sum.sum();
						out.mag[k] = sum.exact() ? -1 : sum.mag();
					} else {
						/*
						 * INT8 fits 32 bits by the reduction limit; INT16
						 * is exact in 64 bits, then saturated to 32.
						 */
						out.i[k] = convertInt(sat64(acc), 32, false);
					}
				}
		}
	return out;
}

/* ---- SDP --------------------------------------------------------------- */

uint32_t SdpParams::cfg() const
{
	return (bias << VDLA_SDP_CFG_BIAS_SHIFT) | (scale << VDLA_SDP_CFG_SCALE_SHIFT)
		| (ew << VDLA_SDP_CFG_EW_SHIFT) | (act << VDLA_SDP_CFG_ACT_SHIFT)
		| (round << VDLA_CFG_ROUND_SHIFT) | (wrap ? VDLA_CFG_WRAP : 0);
}

bool sdpIntegerPath(uint32_t xType)
{
	return !isFloat(xType);
}

uint64_t sdpMacs(const Tensor &x, const SdpParams &p)
{
	uint64_t perElement
		= (p.scale != VDLA_SDP_MODE_NONE ? 1 : 0) + (p.ew == VDLA_SDP_EW_OP_MUL ? 1 : 0);
	return x.size() * perElement;
}

static int64_t sdpInteger(int64_t x, int64_t y, uint32_t c, const SdpParams &p)
{
	int64_t v = x;
	/* 1. bias */
	if (p.bias == VDLA_SDP_MODE_PER_TENSOR)
		v = sat64(i128(v) + p.biasValue);
	else if (p.bias == VDLA_SDP_MODE_PER_CHANNEL)
		v = sat64(i128(v) + p.biasChannel[c]);
	/*
	 * 2. scale. Spec reading: the product is exact (128-bit), rshift works
	 * on it exactly and the stage's result is saturated once.
	 */
	if (p.scale != VDLA_SDP_MODE_NONE) {
		bool perTensor = p.scale == VDLA_SDP_MODE_PER_TENSOR;
		int64_t mul = perTensor ? p.scaleMul : p.scaleMulChannel[c];
		unsigned shift = perTensor ? p.scaleShift : unsigned(p.scaleShiftChannel[c]);
		v = sat64(rshift(i128(v) * mul, shift, p.round));
	}
	/* 3. element-wise */
	if (p.ew != VDLA_SDP_EW_OP_NONE) {
		int64_t e = sat64(rshift(i128(y) * p.ewMul, p.ewShift, p.round));
		if (p.ew == VDLA_SDP_EW_OP_ADD)
			v = sat64(i128(v) + e);
		else if (p.ew == VDLA_SDP_EW_OP_MUL)
			v = sat64(rshift(i128(v) * e, p.ewPostShift, p.round));
		else
			v = std::max(v, e);
	}
	/* 4. activation */
	if (p.act == VDLA_SDP_ACT_RELU) {
		v = std::max<int64_t>(v, 0);
	} else if (p.act == VDLA_SDP_ACT_CLIP) {
		v = std::min<int64_t>(std::max<int64_t>(v, p.clipMin), p.clipMax);
	} else if (p.act == VDLA_SDP_ACT_LUT) {
		int64_t t = sat64(i128(v) - p.lutStart);
		if (t < 0) {
			v = p.lut[0];
		} else {
			int64_t i = t >> p.lutShift;
			if (i >= 256) {
				v = p.lut[256];
			} else {
				int64_t f = t - (i << p.lutShift);
				int64_t d = int64_t(p.lut[i + 1]) - p.lut[i];
				v = sat64(
					i128(p.lut[i]) + rshift(i128(d) * f, p.lutShift, p.round));
			}
		}
	}
	/* 5. offset; the caller converts to the output type. */
	return sat64(i128(v) + p.outOffset);
}

/*
 * One element of the float path: the value (double), the S of the spec's
 * tolerance (the magnitudes the FP32 roundings scale with) and whether every
 * step is exact in FP32, in which case IEEE FP32 gives this very value.
 */
struct FloatResult {
	double v, s;
	bool exact;
};

static FloatResult sdpFloat(double x, double y, uint32_t c, const SdpParams &p)
{
	double v = x, s = std::fabs(x);
	bool exact = true;
	auto check = [&](double r) {
		if (!isFp32Exact(r))
			exact = false;
		return r;
	};
	/* 1. bias */
	if (p.bias != VDLA_SDP_MODE_NONE) {
		double b = p.bias == VDLA_SDP_MODE_PER_TENSOR ? p.fBiasValue : p.fBiasChannel[c];
		v = check(v + b);
		s += std::fabs(b);
	}
	/* 2. scale */
	if (p.scale != VDLA_SDP_MODE_NONE) {
		double m = p.scale == VDLA_SDP_MODE_PER_TENSOR ? p.fScale : p.fScaleChannel[c];
		v = check(v * m);
		s *= std::fabs(m);
	}
	/* 3. element-wise */
	if (p.ew != VDLA_SDP_EW_OP_NONE) {
		double e = check(y * double(p.fEwMul));
		double se = std::fabs(e);
		if (p.ew == VDLA_SDP_EW_OP_ADD) {
			v = check(v + e);
			s += se;
		} else if (p.ew == VDLA_SDP_EW_OP_MUL) {
			v = check(v * e);
			s *= se;
		} else {
			v = std::fmax(v, e);
			s = std::max(s, se);
		}
	}
	/* 4. activation */
	if (p.act == VDLA_SDP_ACT_RELU) {
		v = std::fmax(v, 0.0);
	} else if (p.act == VDLA_SDP_ACT_CLIP) {
		v = std::fmin(std::fmax(v, double(p.fClipMin)), double(p.fClipMax));
	} else if (p.act == VDLA_SDP_ACT_LUT) {
		const std::vector<float> &T = p.fLut;
		double start = p.fLutStart, step = p.fLutStep;
		double d = check(v - start);
		double t = check(d / step);
		int i;
		double out;
		if (!(t > 0)) {
			i = 0;
			out = T[0];
		} else if (t >= 256) {
			i = 255;
			out = T[256];
		} else {
			i = int(std::floor(t));
			double fr = t - i;
			double dT = check(double(T[i + 1]) - T[i]);
			double prod = check(dT * fr);
			out = check(T[i] + prod);
		}
		/*
		 * S of the interpolation: its terms, plus the error of t (from
		 * the magnitudes v - start and t were computed from) times the
		 * steepest slope near i, as a rounding of t can move across a
		 * knot.
		 */
		double slope = 0;
		for (int k = std::max(0, i - 1); k <= std::min(255, i + 1); k++)
			slope = std::max(slope, std::fabs(double(T[k + 1]) - T[k]));
		double tt = std::isfinite(t) ? std::min(std::fabs(t), 257.0) : 257.0;
		double frac = (t > 0 && t < 256) ? t - std::floor(t) : 0;
		s = std::fabs(double(T[i])) + std::fabs(double(T[i + 1]) - T[i]) * frac
			+ slope * ((s + std::fabs(start)) / std::fabs(step) + tt);
		v = out;
	}
	return { v, s, exact };
}

Tensor sdp(const Tensor &x, const Tensor *y, const SdpParams &p, uint32_t dstType)
{
	Tensor out(dstType, x.n, x.c, x.h, x.w);
	bool integer = sdpIntegerPath(x.dtype);
	bool ew = p.ew != VDLA_SDP_EW_OP_NONE;
	if (!integer && isFloat(dstType))
		out.mag.assign(out.size(), -1);
	if (!integer && !isFloat(dstType))
		out.iHi.assign(out.size(), 0);

	for (uint32_t n = 0; n < x.n; n++)
		for (uint32_t c = 0; c < x.c; c++)
			for (uint32_t h = 0; h < x.h; h++)
				for (uint32_t w = 0; w < x.w; w++) {
					size_t k = x.index(n, c, h, w);
					if (integer) {
						int64_t v = sdpInteger(
							x.i[k], ew ? y->i[k] : 0, c, p);
						out.i[k]
							= convertInt(v, dtypeBits(dstType), p.wrap);
						continue;
					}
					FloatResult r = sdpFloat(x.f[k], ew ? y->f[k] : 0, c, p);
					if (isFloat(dstType)) {
						out.f[k] = r.v;
						out.mag[k] = r.exact ? -1 : r.s;
						continue;
					}
					/*
					 * An integer output of the float path: the device
					 * converts its FP32 value, which may differ from
					 * the exact one by the FP32 tolerance, so accept
					 * the conversions of ref - tol .. ref + tol.
					 */
					double tol = r.exact ? 0 : 1e-5 * r.s + 1e-30;
					unsigned bits = dtypeBits(dstType);
					out.i[k] = floatToInt(r.v - tol, bits, p.round, p.wrap);
					out.iHi[k] = floatToInt(r.v + tol, bits, p.round, p.wrap);
				}
	return out;
}

/* ---- PDP --------------------------------------------------------------- */

uint32_t PdpParams::cfg() const
{
	return (method << VDLA_PDP_CFG_METHOD_SHIFT) | (ceil ? VDLA_PDP_CFG_CEIL : 0)
		| (includePad ? VDLA_PDP_CFG_AVG_INCLUDE_PAD : 0) | (round << VDLA_CFG_ROUND_SHIFT);
}

int64_t pdpOutSize(
	uint32_t in, uint32_t pad0, uint32_t pad1, uint32_t k, uint32_t stride, bool ceil)
{
	int64_t num = int64_t(in) + pad0 + pad1 - k;
	int64_t q;
	if (ceil) {
		/* ceil(num / stride), num possibly negative */
		q = num >= 0 ? (num + stride - 1) / stride : -((-num) / stride);
		int64_t out = q + 1;
		/* The last window must start inside the input or the left padding. */
		if ((out - 1) * int64_t(stride) >= int64_t(in) + pad0)
			out--;
		return out;
	}
	q = num >= 0 ? num / stride : -((-num + stride - 1) / stride);
	return q + 1;
}

Tensor pdp(const Tensor &src, const PdpParams &p)
{
	int64_t ow = pdpOutSize(src.w, p.padL, p.padR, p.kw, p.sx, p.ceil);
	int64_t oh = pdpOutSize(src.h, p.padT, p.padB, p.kh, p.sy, p.ceil);
	assert(ow > 0 && oh > 0);
	Tensor out(src.dtype, src.n, src.c, uint32_t(oh), uint32_t(ow));
	bool fp = src.isFloat();
	if (fp)
		out.mag.assign(out.size(), -1);

	for (uint32_t n = 0; n < src.n; n++)
		for (uint32_t c = 0; c < src.c; c++)
			for (uint32_t oy = 0; oy < oh; oy++)
				for (uint32_t ox = 0; ox < ow; ox++) {
					int64_t y0 = int64_t(oy) * p.sy - p.padT;
					int64_t x0 = int64_t(ox) * p.sx - p.padL;
					int64_t elements = 0, padding = 0;
					double best = 0;
					i128 isum = 0;
					SumTracker fsum;
					for (int64_t y = y0; y < y0 + p.kh; y++)
						for (int64_t x = x0; x < x0 + p.kw; x++) {
							bool inY = y >= 0 && y < src.h;
							bool inX = x >= 0 && x < src.w;
							if (inY && inX) {
								double v = src.get(n, c, y, x);
								if (!elements)
									best = v;
								else if (p.method == VDLA_PDP_MAX)
									best = std::max(best, v);
								else if (p.method == VDLA_PDP_MIN)
									best = std::min(best, v);
								elements++;
								if (fp)
									fsum.add(v);
								else
									isum += src.geti(
										n, c, y, x);
								continue;
							}
							/*
							 * Padding: inside [-PT, H + PB) x
							 * [-PL, W + PR); beyond is outside.
							 */
							bool padY = y >= -int64_t(p.padT)
								&& y < int64_t(src.h) + p.padB;
							bool padX = x >= -int64_t(p.padL)
								&& x < int64_t(src.w) + p.padR;
							if (padY && padX)
								padding++;
						}
					size_t k = out.index(n, c, oy, ox);
					if (p.method != VDLA_PDP_AVG) {
						out.set(k, best);
						continue;
					}
					int64_t count = elements + (p.includePad ? padding : 0);
					if (!fp) {
						out.i[k] = sat64(rdiv(isum, count, p.round));
						continue;
					}
					/* FP32 sum / count; FP16 rounded once at the end. */
					double q = fsum.sum() / double(count);
					out.f[k] = q;
					bool exact = fsum.exact() && isFp32Exact(q);
					/*
					 * Spec reading: the terms of the average are x / count,
					 * so S is the magnitude sum divided by count.
					 */
					out.mag[k] = exact ? -1 : fsum.mag() / double(count);
				}
	return out;
}

/* ---- CDP --------------------------------------------------------------- */

uint32_t CdpParams::cfg() const
{
	return (round << VDLA_CFG_ROUND_SHIFT) | (wrap ? VDLA_CFG_WRAP : 0);
}

Tensor cdp(const Tensor &src, const CdpParams &p)
{
	Tensor out(src.dtype, src.n, src.c, src.h, src.w);
	bool fp = src.isFloat();
	if (fp)
		out.mag.assign(out.size(), 0);
	int64_t half = p.size / 2;

	for (uint32_t n = 0; n < src.n; n++)
		for (uint32_t c = 0; c < src.c; c++)
			for (uint32_t h = 0; h < src.h; h++)
				for (uint32_t w = 0; w < src.w; w++) {
					int64_t j0 = std::max<int64_t>(0, int64_t(c) - half);
					int64_t j1
						= std::min<int64_t>(src.c - 1, int64_t(c) + half);
					size_t k = out.index(n, c, h, w);
					if (!fp) {
						int64_t s = 0;
						for (int64_t j = j0; j <= j1; j++) {
							int64_t xj = src.geti(n, j, h, w);
							s += xj * xj;
						}
						int64_t i = s >> p.lutShift;
						int64_t m;
						if (i >= 256) {
							m = p.lut[256];
						} else {
							int64_t f = s - (i << p.lutShift);
							i128 d = i128(p.lut[i + 1]) - p.lut[i];
							m = sat64(i128(p.lut[i])
								+ rshift(d * f, p.lutShift,
									p.round));
						}
						int64_t x = src.i[k];
						int64_t v = sat64(
							rshift(i128(x) * m, p.outShift, p.round));
						out.i[k] = convertInt(
							v, dtypeBits(src.dtype), p.wrap);
						continue;
					}
					double s = 0;
					for (int64_t j = j0; j <= j1; j++) {
						double xj = src.get(n, j, h, w);
						s += xj * xj;
					}
					double base = double(p.k) + double(p.alpha) / p.size * s;
					double v = src.f[k] * std::pow(base, -double(p.beta));
					out.f[k] = v;
					/*
					 * Spec reading: the output is no sum, so S is its own
					 * magnitude, scaled by (1 + |BETA|) because the power
					 * multiplies the relative error of its base by BETA.
					 */
					out.mag[k] = std::fabs(v) * (1 + std::fabs(double(p.beta)));
				}
	return out;
}

/* ---- RUBIK ------------------------------------------------------------- */

uint32_t RubikParams::permRegister() const
{
	uint32_t r = 0;
	for (unsigned d = 0; d < 4; d++)
		r |= perm[d] << (2 * d);
	return r;
}

/* dims[] is indexed by VDLA_DIM_* (W, H, C, N). */
void rubikDstShape(const Tensor &src, const RubikParams &p, uint32_t dims[4])
{
	uint32_t s[4] = { src.w, src.h, src.c, src.n };
	switch (p.mode) {
	case VDLA_RUBIK_PERMUTE:
		for (unsigned d = 0; d < 4; d++)
			dims[d] = s[p.perm[d]];
		break;
	case VDLA_RUBIK_RESHAPE:
		dims[VDLA_DIM_W] = p.w;
		dims[VDLA_DIM_H] = p.h;
		dims[VDLA_DIM_C] = p.c;
		dims[VDLA_DIM_N] = p.n;
		break;
	case VDLA_RUBIK_CONTRACT:
		dims[VDLA_DIM_W] = src.w * p.bx;
		dims[VDLA_DIM_H] = src.h * p.by;
		dims[VDLA_DIM_C] = src.c / (p.bx * p.by);
		dims[VDLA_DIM_N] = src.n;
		break;
	case VDLA_RUBIK_SPLIT:
		dims[VDLA_DIM_W] = src.w / p.bx;
		dims[VDLA_DIM_H] = src.h / p.by;
		dims[VDLA_DIM_C] = src.c * p.bx * p.by;
		dims[VDLA_DIM_N] = src.n;
		break;
	}
}

Tensor rubik(const Tensor &src, const RubikParams &p)
{
	uint32_t d[4];
	rubikDstShape(src, p, d);
	Tensor out(src.dtype, d[VDLA_DIM_N], d[VDLA_DIM_C], d[VDLA_DIM_H], d[VDLA_DIM_W]);
	auto copy = [&](size_t to, size_t from) {
		if (src.isFloat())
			out.f[to] = src.f[from];
		else
			out.i[to] = src.i[from];
	};

	switch (p.mode) {
	case VDLA_RUBIK_PERMUTE:
		for (uint32_t n = 0; n < out.n; n++)
			for (uint32_t c = 0; c < out.c; c++)
				for (uint32_t h = 0; h < out.h; h++)
					for (uint32_t w = 0; w < out.w; w++) {
						/* j[PERM[d]] = i[d] */
						uint32_t i[4] = { w, h, c, n };
						uint32_t j[4];
						for (unsigned k = 0; k < 4; k++)
							j[p.perm[k]] = i[k];
						copy(out.index(n, c, h, w),
							src.index(j[VDLA_DIM_N], j[VDLA_DIM_C],
								j[VDLA_DIM_H], j[VDLA_DIM_W]));
					}
		break;
	case VDLA_RUBIK_RESHAPE:
		/* Both tensors index (n, c, h, w) in that order. */
		for (size_t k = 0; k < out.size(); k++)
			copy(k, k);
		break;
	case VDLA_RUBIK_CONTRACT:
		for (uint32_t n = 0; n < out.n; n++)
			for (uint32_t c = 0; c < out.c; c++)
				for (uint32_t h = 0; h < out.h; h++)
					for (uint32_t w = 0; w < out.w; w++)
						copy(out.index(n, c, h, w),
							src.index(n,
								c * p.by * p.bx + (h % p.by) * p.bx
									+ (w % p.bx),
								h / p.by, w / p.bx));
		break;
	case VDLA_RUBIK_SPLIT:
		for (uint32_t n = 0; n < src.n; n++)
			for (uint32_t c = 0; c < src.c; c++)
				for (uint32_t h = 0; h < src.h; h++)
					for (uint32_t w = 0; w < src.w; w++)
						copy(out.index(n,
							     c * p.by * p.bx + (h % p.by) * p.bx
								     + (w % p.bx),
							     h / p.by, w / p.bx),
							src.index(n, c, h, w));
		break;
	}
	return out;
}

} /* namespace vdla_ref */
