/* SPDX-License-Identifier: MIT */
/*
 * Independent CPU reference of the vDLA engines, written from
 * docs/hw-spec.md alone (not from the device core's sources), so that the
 * engine tests check the core against the specification and not against
 * itself.
 *
 * The reference works on logical tensors: plain values indexed (n, c, h, w),
 * computed with straightforward loops. Integer paths are exact (int64 and
 * __int128 with the spec's 64-bit saturation after every stage); float
 * paths are computed in double and carry, per element, the magnitude S the
 * spec's tolerances are defined with, or a mark that the result is exact
 * whatever order an IEEE FP32 implementation uses.
 *
 * Where the spec leaves a choice, the reference takes the most literal
 * reading; each such place is marked "Spec reading:".
 */
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "device_harness.h"
#include "vdla_regs.h"

namespace vdla_ref {

using i128 = __int128;

/* ---- Arithmetic (hw-spec "Arithmetic") -------------------------------- */

/* Saturates to the signed 64-bit range: the end of every integer stage. */
int64_t sat64(i128 v);
/*
 * rshift(v, s, mode) of the spec on an exact (up to 128-bit) value, s in
 * 0..63: the exact quotient v / 2^s rounded by @mode. Not saturated, so
 * that the caller saturates the whole stage once.
 */
i128 rshift(i128 v, unsigned s, unsigned mode);
/* rdiv(v, d, mode): the exact quotient v / d (d > 0) rounded by @mode. */
i128 rdiv(i128 v, int64_t d, unsigned mode);
/* Output conversion to a signed integer of @bits bits: saturate or wrap. */
int64_t convertInt(i128 v, unsigned bits, bool wrap);
/* Rounds a real value to an integral one by a ROUND mode. */
double roundByMode(double v, unsigned mode);
/*
 * Float to integer conversion: round by @mode, then saturate (or wrap
 * modulo 2^bits); NaN gives 0. Wrapping an infinity is not specified; it
 * gives 0 here and no test depends on it.
 */
int64_t floatToInt(double v, unsigned bits, unsigned mode, bool wrap);

/* ---- Data types -------------------------------------------------------- */

bool isFloat(uint32_t dtype);
unsigned dtypeBits(uint32_t dtype);
int64_t dtypeMin(uint32_t dtype);
int64_t dtypeMax(uint32_t dtype);
const char *dtypeName(uint32_t dtype);

/* IEEE binary16 <-> value, rounding to nearest even, overflow to infinity. */
uint16_t fp16FromDouble(double v);
double fp16ToDouble(uint16_t h);
uint32_t fp32Bits(float v);
float fp32FromBits(uint32_t bits);
/* @v rounded (nearest even) to a float data type; integers unchanged. */
double roundToFloatType(uint32_t dtype, double v);
/* True if @v is exactly representable in FP32. */
bool isFp32Exact(double v);

/* ---- Tensors ----------------------------------------------------------- */

/*
 * A logical tensor. Integer types keep their values in i, float types in f
 * (the exact value of each element, a double).
 *
 * A reference result may carry tolerances:
 *  - float types: mag[k] is the S of the spec's tolerance formula for
 *    element k, or a negative number when the result is exact (then the
 *    device must give the reference value rounded to the type). An empty
 *    mag means every element is exact.
 *  - integer results of a float computation: i[k] and iHi[k] bound the
 *    accepted values (the conversion of ref - tol and ref + tol); an empty
 *    iHi means exact.
 */
struct Tensor {
	uint32_t dtype = VDLA_DTYPE_INT8;
	uint32_t n = 1, c = 1, h = 1, w = 1;
	std::vector<int64_t> i;
	std::vector<double> f;
	std::vector<double> mag;
	std::vector<int64_t> iHi;

	Tensor() = default;
	Tensor(uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w);

	size_t size() const { return size_t(n) * c * h * w; }
	size_t index(uint32_t in, uint32_t ic, uint32_t ih, uint32_t iw) const
	{
		return ((size_t(in) * c + ic) * h + ih) * w + iw;
	}
	bool isFloat() const;
	/* The value of an element as a double (integers converted exactly). */
	double get(uint32_t in, uint32_t ic, uint32_t ih, uint32_t iw) const;
	double get(size_t k) const;
	void set(size_t k, double v);
	void seti(size_t k, int64_t v) { i[k] = v; }
	int64_t geti(uint32_t in, uint32_t ic, uint32_t ih, uint32_t iw) const
	{
		return i[index(in, ic, ih, iw)];
	}
	std::string shape() const;
};

/*
 * A reference result as the device stores it, to feed the next reference
 * operation of a chain: float values rounded to the type, no tolerances.
 */
Tensor stored(const Tensor &t);

/* ---- Memory: logical tensors in guest memory or SRAM ------------------- */

/* Host pointer for a device address (guest-physical or SRAM_BASE + offset). */
uint8_t *hostPtr(vdla_test::DeviceHarness &dev, uint64_t devAddr);
/* Writes @t's elements through descriptor @d (any strides; only element bytes). */
void store(vdla_test::DeviceHarness &dev, const vdla_test::TensorDesc &d, const Tensor &t);
/* Reads the tensor @d describes. */
Tensor load(vdla_test::DeviceHarness &dev, const vdla_test::TensorDesc &d);
/* Encodes one element of type @dtype (value @v) into @out (little endian). */
void encodeElement(uint32_t dtype, double v, int64_t iv, uint8_t *out);

/* ---- Packed NCHW memory, e.g. a mapped buffer ---------------------------- */

/* Bytes @t takes packed. */
size_t tensorBytes(const Tensor &t);
/* Writes @t packed at @dst. */
void storeTensor(uint8_t *dst, const Tensor &t);
/* Reads a packed tensor of @shape's type and dimensions from @src. */
Tensor loadTensor(const uint8_t *src, const Tensor &shape);

/* ---- Comparison -------------------------------------------------------- */

/*
 * Compares a device result with a reference: bit-exact for integers (or
 * within iHi), the spec's tolerance for FP32 and FP16 outputs. The message
 * names the first mismatching element and the number of mismatches.
 */
::testing::AssertionResult matches(const Tensor &ref, const Tensor &got);
/* The spec's tolerance for one float output element. */
double tolerance(uint32_t dtype, double ref, double s);

/* ---- BDMA -------------------------------------------------------------- */

struct BdmaParams {
	uint64_t src = 0, dst = 0;
	uint32_t lineBytes = 1, lines = 1, surfaces = 1;
	uint32_t srcLineStride = 0, dstLineStride = 0;
	uint32_t srcSurfStride = 0, dstSurfStride = 0;
};

/*
 * The bytes BDMA writes, in order, as (device address, value): the whole
 * source is read through @readByte before anything is written.
 */
std::vector<std::pair<uint64_t, uint8_t>> bdma(
	const BdmaParams &p, const std::function<uint8_t(uint64_t)> &readByte);

/* ---- CONV -------------------------------------------------------------- */

struct ConvParams {
	uint32_t strideX = 1, strideY = 1;
	uint32_t padL = 0, padR = 0, padT = 0, padB = 0;
	uint32_t dilX = 1, dilY = 1;
	uint32_t groups = 1;
	/* PAD_VALUE as a value of the input's type (integer or float). */
	double padValue = 0;
};

/* Output width/height by the spec's formula; -1 when the numerator is < 0. */
int64_t convOutSize(
	uint32_t in, uint32_t pad0, uint32_t pad1, uint32_t k, uint32_t dil, uint32_t stride);
/* src (N, Cin, H, W), wgt (Cout, Cin/groups, KH, KW) -> (N, Cout, OH, OW). */
Tensor conv(const Tensor &src, const Tensor &wgt, const ConvParams &p);
uint64_t convMacs(const Tensor &src, const Tensor &wgt, const ConvParams &p);

/* ---- SDP --------------------------------------------------------------- */

struct SdpParams {
	unsigned bias = VDLA_SDP_MODE_NONE;
	unsigned scale = VDLA_SDP_MODE_NONE;
	unsigned ew = VDLA_SDP_EW_OP_NONE;
	unsigned act = VDLA_SDP_ACT_NONE;
	unsigned round = VDLA_ROUND_TO_ZERO;
	bool wrap = false;

	/* Integer path. */
	int32_t biasValue = 0;
	std::vector<int32_t> biasChannel;
	int32_t scaleMul = 1;
	uint32_t scaleShift = 0;
	std::vector<int32_t> scaleMulChannel, scaleShiftChannel;
	int32_t ewMul = 1;
	uint32_t ewShift = 0, ewPostShift = 0;
	int32_t clipMin = 0, clipMax = 0;
	std::vector<int16_t> lut; /* 257 entries */
	int32_t lutStart = 0;
	uint32_t lutShift = 0;
	int32_t outOffset = 0;

	/* Float path (FP32 values). */
	float fBiasValue = 0;
	std::vector<float> fBiasChannel;
	float fScale = 1;
	std::vector<float> fScaleChannel;
	float fEwMul = 1;
	float fClipMin = 0, fClipMax = 0;
	std::vector<float> fLut; /* 257 entries */
	float fLutStart = 0, fLutStep = 1;

	uint32_t cfg() const;
};

/* True when X of this type takes the integer path. */
bool sdpIntegerPath(uint32_t xType);
/* X (and Y when EW is on) to a result of type @dstType. */
Tensor sdp(const Tensor &x, const Tensor *y, const SdpParams &p, uint32_t dstType);
uint64_t sdpMacs(const Tensor &x, const SdpParams &p);

/* ---- PDP --------------------------------------------------------------- */

struct PdpParams {
	unsigned method = VDLA_PDP_MAX;
	bool ceil = false;
	bool includePad = false;
	unsigned round = VDLA_ROUND_TO_ZERO;
	uint32_t kw = 1, kh = 1;
	uint32_t sx = 1, sy = 1;
	uint32_t padL = 0, padR = 0, padT = 0, padB = 0;

	uint32_t cfg() const;
};

/* Output size by the spec; <= 0 when there is none. */
int64_t pdpOutSize(
	uint32_t in, uint32_t pad0, uint32_t pad1, uint32_t k, uint32_t stride, bool ceil);
Tensor pdp(const Tensor &src, const PdpParams &p);

/* ---- CDP --------------------------------------------------------------- */

struct CdpParams {
	uint32_t size = 1;
	unsigned round = VDLA_ROUND_TO_ZERO;
	bool wrap = false;
	std::vector<int32_t> lut; /* integer path: 257 entries */
	uint32_t lutShift = 0, outShift = 0;
	float k = 1, alpha = 0, beta = 0; /* float path */

	uint32_t cfg() const;
};

Tensor cdp(const Tensor &src, const CdpParams &p);

/* ---- RUBIK ------------------------------------------------------------- */

struct RubikParams {
	unsigned mode = VDLA_RUBIK_PERMUTE;
	/* perm[d]: the SRC dimension (VDLA_DIM_*) output dimension d takes. */
	unsigned perm[4] = { VDLA_DIM_W, VDLA_DIM_H, VDLA_DIM_C, VDLA_DIM_N };
	uint32_t bx = 1, by = 1;
	/* RESHAPE: the destination dims. */
	uint32_t n = 1, c = 1, h = 1, w = 1;

	uint32_t permRegister() const;
};

/* The DST shape a RUBIK operation produces from @src. */
void rubikDstShape(const Tensor &src, const RubikParams &p, uint32_t dims[4]);
Tensor rubik(const Tensor &src, const RubikParams &p);

} /* namespace vdla_ref */
