/* SPDX-License-Identifier: MIT */
#include "engine_util.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace vdla_etest {

using namespace vdla_ref;

uint64_t allocCanary(DeviceHarness &dev, uint64_t bytes)
{
	uint64_t base = dev.alloc(bytes + 2 * kMargin);
	std::memset(dev.guest(base), kCanary, bytes + 2 * kMargin);
	return base + kMargin;
}

TensorDesc allocTensor(DeviceHarness &dev, uint32_t dtype, uint32_t n, uint32_t c, uint32_t h,
	uint32_t w, Layout layout)
{
	TensorDesc d = makeDesc(0, dtype, n, c, h, w, layout);
	d.addr = allocCanary(dev, d.extent());
	return d;
}

TensorDesc placeTensor(DeviceHarness &dev, const Tensor &t, Layout layout)
{
	TensorDesc d = allocTensor(dev, t.dtype, t.n, t.c, t.h, t.w, layout);
	store(dev, d, t);
	return d;
}

::testing::AssertionResult gapsUntouched(DeviceHarness &dev, const TensorDesc &d)
{
	uint64_t extent = d.extent();
	std::vector<bool> element(extent, false);
	size_t e = vdla_test::dtypeSize(d.dtype);
	for (uint32_t n = 0; n < d.n; n++)
		for (uint32_t c = 0; c < d.c; c++)
			for (uint32_t h = 0; h < d.h; h++)
				for (uint32_t w = 0; w < d.w; w++) {
					uint64_t off = d.offset(n, c, h, w);
					for (size_t b = 0; b < e; b++)
						element[off + b] = true;
				}
	const uint8_t *base = hostPtr(dev, d.addr);
	for (int64_t off = -int64_t(kMargin); off < int64_t(extent + kMargin); off++) {
		if (off >= 0 && off < int64_t(extent) && element[off])
			continue;
		if (base[off] != kCanary)
			return ::testing::AssertionFailure()
				<< "byte at offset " << off << " from the tensor at " << hex(d.addr)
				<< " is no element but was written (" << hex(base[off]) << ")";
	}
	return ::testing::AssertionSuccess();
}

::testing::AssertionResult regionUntouched(DeviceHarness &dev, uint64_t addr, uint64_t bytes)
{
	const uint8_t *p = hostPtr(dev, addr);
	for (uint64_t i = 0; i < bytes; i++)
		if (p[i] != kCanary)
			return ::testing::AssertionFailure()
				<< "byte " << i << " of the canary region at " << hex(addr)
				<< " was written (" << hex(p[i]) << ")";
	return ::testing::AssertionSuccess();
}

uint64_t putInt16s(DeviceHarness &dev, const std::vector<int16_t> &v)
{
	uint64_t a = allocCanary(dev, v.size() * 2);
	for (size_t i = 0; i < v.size(); i++)
		encodeElement(VDLA_DTYPE_INT16, 0, v[i], dev.guest(a + 2 * i));
	return a;
}

uint64_t putInt32s(DeviceHarness &dev, const std::vector<int32_t> &v)
{
	uint64_t a = allocCanary(dev, v.size() * 4);
	for (size_t i = 0; i < v.size(); i++)
		encodeElement(VDLA_DTYPE_INT32, 0, v[i], dev.guest(a + 4 * i));
	return a;
}

uint64_t putFloats(DeviceHarness &dev, const std::vector<float> &v)
{
	uint64_t a = allocCanary(dev, v.size() * 4);
	for (size_t i = 0; i < v.size(); i++)
		encodeElement(VDLA_DTYPE_FP32, v[i], 0, dev.guest(a + 4 * i));
	return a;
}

/* ---- Running operations ------------------------------------------------ */

bool waitAny(DeviceHarness &dev, uint32_t mask, std::chrono::milliseconds timeout)
{
	auto deadline = std::chrono::steady_clock::now() + timeout;
	while (!(dev.read(VDLA_REG_INT_STATUS) & mask)) {
		if (std::chrono::steady_clock::now() >= deadline)
			return false;
		/* Any single bit will do: wait on each in turn, briefly. */
		dev.waitInterrupts(mask & -mask, std::chrono::milliseconds(2));
	}
	return true;
}

OpResult waitGroup(
	DeviceHarness &dev, unsigned engine, unsigned group, std::chrono::milliseconds timeout)
{
	OpResult r;
	uint32_t mask = VDLA_INT_DONE(engine) | VDLA_INT_ERROR(engine);
	/* The bits are per engine (another group may have raised them): the
	 * group's own state says when it finished. */
	auto deadline = std::chrono::steady_clock::now() + timeout;
	auto ended = [&] {
		uint32_t state = dev.groupState(engine, group);
		return state == VDLA_GROUP_DONE || state == VDLA_GROUP_ERROR;
	};
	while (!ended() && std::chrono::steady_clock::now() < deadline)
		dev.waitInterrupts(mask, std::chrono::milliseconds(2));
	r.finished = ended() && waitAny(dev, mask, timeout);
	r.intStatus = dev.read(VDLA_REG_INT_STATUS);
	r.state = dev.groupState(engine, group);
	r.error = dev.readEngine(engine, VDLA_E_GROUP_STAT(group) + VDLA_E_STAT_ERROR);
	return r;
}

OpResult runGroup(DeviceHarness &dev, unsigned engine, unsigned group)
{
	dev.selectGroup(engine, group);
	dev.enable(engine);
	return waitGroup(dev, engine, group);
}

unsigned consumer(DeviceHarness &dev, unsigned engine)
{
	return dev.consumerGroup(engine);
}

const char *errorName(uint32_t error)
{
	static const char *names[] = { "NONE", "DTYPE", "SHAPE", "STRIDE", "PARAM", "MMU_FAULT",
		"INJECTED", "CHAIN", "LIMIT" };
	return error < sizeof(names) / sizeof(names[0]) ? names[error] : "?";
}

std::string hex(uint64_t v)
{
	char text[24];
	std::snprintf(text, sizeof(text), "0x%llx", (unsigned long long)v);
	return text;
}

const char *roundName(unsigned mode)
{
	static const char *names[] = { "ToZero", "Floor", "HalfUp", "HalfAway", "HalfEven" };
	return mode < 5 ? names[mode] : "BadMode";
}

const char *engineName(unsigned engine)
{
	static const char *names[] = { "Bdma", "Conv", "Sdp", "Pdp", "Cdp", "Rubik" };
	return engine < 6 ? names[engine] : "BadEngine";
}

static const char *stateName(uint32_t state)
{
	static const char *names[] = { "IDLE", "PENDING", "RUNNING", "DONE", "ERROR" };
	return state < 5 ? names[state] : "?";
}

::testing::AssertionResult succeeded(const OpResult &r, unsigned engine, unsigned group)
{
	/* ERROR(e) is per engine: the other group may have raised it. */
	if (r.finished && r.state == VDLA_GROUP_DONE && r.error == VDLA_ERROR_NONE
		&& (r.intStatus & VDLA_INT_DONE(engine)))
		return ::testing::AssertionSuccess();
	return ::testing::AssertionFailure()
		<< "engine " << engine << " group " << group << ": "
		<< (r.finished ? "finished" : "timed out") << ", state " << stateName(r.state)
		<< ", STAT_ERROR " << errorName(r.error) << ", INT_STATUS " << hex(r.intStatus);
}

::testing::AssertionResult failedWith(
	const OpResult &r, unsigned engine, unsigned group, uint32_t error)
{
	if (r.finished && r.state == VDLA_GROUP_ERROR && r.error == error
		&& (r.intStatus & VDLA_INT_ERROR(engine))
		&& !(r.intStatus & VDLA_INT_DONE(engine)))
		return ::testing::AssertionSuccess();
	return ::testing::AssertionFailure()
		<< "engine " << engine << " group " << group << ": expected ERROR with "
		<< errorName(error) << ", got " << (r.finished ? "finished" : "timed out")
		<< ", state " << stateName(r.state) << ", STAT_ERROR " << errorName(r.error)
		<< ", INT_STATUS " << hex(r.intStatus);
}

/* ---- Programming ------------------------------------------------------- */

uint32_t padValueBits(uint32_t dtype, double v)
{
	if (isFloat(dtype))
		return fp32Bits(float(v));
	return uint32_t(int32_t(v));
}

static uint32_t pair16(uint32_t lo, uint32_t hi)
{
	return (lo & 0xffff) | (hi << 16);
}

void programConv(DeviceHarness &dev, unsigned group, const ConvOp &op)
{
	const unsigned e = VDLA_ENGINE_CONV;
	dev.selectGroup(e, group);
	dev.writeEngine(e, VDLA_D_CFG, op.cfg);
	dev.writeTensor(e, VDLA_CONV_SRC, op.src);
	dev.writeTensor(e, VDLA_CONV_WGT, op.wgt);
	dev.writeTensor(e, VDLA_CONV_DST, op.dst);
	dev.writeEngine(e, VDLA_CONV_STRIDE, pair16(op.p.strideX, op.p.strideY));
	dev.writeEngine(e, VDLA_CONV_PAD_LR, pair16(op.p.padL, op.p.padR));
	dev.writeEngine(e, VDLA_CONV_PAD_TB, pair16(op.p.padT, op.p.padB));
	dev.writeEngine(e, VDLA_CONV_DILATION, pair16(op.p.dilX, op.p.dilY));
	dev.writeEngine(e, VDLA_CONV_GROUPS, op.p.groups);
	dev.writeEngine(e, VDLA_CONV_PAD_VALUE, padValueBits(op.src.dtype, op.p.padValue));
}

void placeSdpParams(DeviceHarness &dev, SdpOp &op)
{
	const SdpParams &p = op.p;
	op.integer = sdpIntegerPath(op.x.dtype);
	if (p.bias == VDLA_SDP_MODE_PER_CHANNEL)
		op.biasAddr = op.integer ? putInt32s(dev, p.biasChannel)
					 : putFloats(dev, p.fBiasChannel);
	if (p.scale == VDLA_SDP_MODE_PER_CHANNEL) {
		if (op.integer) {
			std::vector<int32_t> pairs;
			for (size_t c = 0; c < p.scaleMulChannel.size(); c++) {
				pairs.push_back(p.scaleMulChannel[c]);
				pairs.push_back(p.scaleShiftChannel[c]);
			}
			op.scaleAddr = putInt32s(dev, pairs);
		} else {
			op.scaleAddr = putFloats(dev, p.fScaleChannel);
		}
	}
	if (p.act == VDLA_SDP_ACT_LUT)
		op.lutAddr = op.integer ? putInt16s(dev, p.lut) : putFloats(dev, p.fLut);
}

void programSdp(DeviceHarness &dev, unsigned group, const SdpOp &op)
{
	const unsigned e = VDLA_ENGINE_SDP;
	const SdpParams &p = op.p;
	bool integer = sdpIntegerPath(op.x.dtype);
	dev.selectGroup(e, group);
	dev.writeEngine(e, VDLA_D_CFG, p.cfg() | op.flying);
	dev.writeTensor(e, VDLA_SDP_SRC, op.x);
	dev.writeTensor(e, VDLA_SDP_DST, op.dst);
	/*
	 * Without EW the Y descriptor is unused; it is programmed as a copy
	 * of X so that it is valid under any reading of the validation rule
	 * (and a device that read it anyway would show in the byte counters).
	 */
	dev.writeTensor(e, VDLA_SDP_EW, p.ew != VDLA_SDP_EW_OP_NONE ? op.y : op.x);
	dev.write64Engine(e, VDLA_SDP_BIAS_ADDR_LO, op.biasAddr);
	dev.write64Engine(e, VDLA_SDP_SCALE_ADDR_LO, op.scaleAddr);
	dev.write64Engine(e, VDLA_SDP_LUT_ADDR_LO, op.lutAddr);
	if (integer) {
		dev.writeEngine(e, VDLA_SDP_BIAS_VALUE, uint32_t(p.biasValue));
		dev.writeEngine(e, VDLA_SDP_SCALE_MUL, uint32_t(p.scaleMul));
		dev.writeEngine(e, VDLA_SDP_EW_MUL, uint32_t(p.ewMul));
		dev.writeEngine(e, VDLA_SDP_CLIP_MIN, uint32_t(p.clipMin));
		dev.writeEngine(e, VDLA_SDP_CLIP_MAX, uint32_t(p.clipMax));
		dev.writeEngine(e, VDLA_SDP_LUT_START, uint32_t(p.lutStart));
		dev.writeEngine(e, VDLA_SDP_LUT_SHIFT, p.lutShift);
	} else {
		dev.writeEngine(e, VDLA_SDP_BIAS_VALUE, fp32Bits(p.fBiasValue));
		dev.writeEngine(e, VDLA_SDP_SCALE_MUL, fp32Bits(p.fScale));
		dev.writeEngine(e, VDLA_SDP_EW_MUL, fp32Bits(p.fEwMul));
		dev.writeEngine(e, VDLA_SDP_CLIP_MIN, fp32Bits(p.fClipMin));
		dev.writeEngine(e, VDLA_SDP_CLIP_MAX, fp32Bits(p.fClipMax));
		dev.writeEngine(e, VDLA_SDP_LUT_START, fp32Bits(p.fLutStart));
		dev.writeEngine(e, VDLA_SDP_LUT_SHIFT, fp32Bits(p.fLutStep));
	}
	dev.writeEngine(e, VDLA_SDP_SCALE_SHIFT, p.scaleShift);
	dev.writeEngine(e, VDLA_SDP_EW_SHIFT, p.ewShift);
	dev.writeEngine(e, VDLA_SDP_EW_POST_SHIFT, p.ewPostShift);
	dev.writeEngine(e, VDLA_SDP_OUT_OFFSET, uint32_t(p.outOffset));
}

uint64_t sdpParamBytes(const SdpParams &p, bool integer, uint32_t channels)
{
	uint64_t bytes = 0;
	if (p.bias == VDLA_SDP_MODE_PER_CHANNEL)
		bytes += 4ull * channels;
	if (p.scale == VDLA_SDP_MODE_PER_CHANNEL)
		bytes += (integer ? 8ull : 4ull) * channels;
	/* Spec reading: "LUT" bytes are the whole table of 257 entries. */
	if (p.act == VDLA_SDP_ACT_LUT)
		bytes += VDLA_LUT_ENTRIES * (integer ? 2ull : 4ull);
	return bytes;
}

void programPdp(DeviceHarness &dev, unsigned group, const PdpOp &op)
{
	const unsigned e = VDLA_ENGINE_PDP;
	dev.selectGroup(e, group);
	dev.writeEngine(e, VDLA_D_CFG, op.p.cfg() | op.flying);
	dev.writeTensor(e, VDLA_PDP_SRC, op.src);
	dev.writeTensor(e, VDLA_PDP_DST, op.dst);
	dev.writeEngine(e, VDLA_PDP_KERNEL, pair16(op.p.kw, op.p.kh));
	dev.writeEngine(e, VDLA_PDP_STRIDE, pair16(op.p.sx, op.p.sy));
	dev.writeEngine(e, VDLA_PDP_PAD_LR, pair16(op.p.padL, op.p.padR));
	dev.writeEngine(e, VDLA_PDP_PAD_TB, pair16(op.p.padT, op.p.padB));
}

void programCdp(DeviceHarness &dev, unsigned group, const CdpOp &op)
{
	const unsigned e = VDLA_ENGINE_CDP;
	dev.selectGroup(e, group);
	dev.writeEngine(e, VDLA_D_CFG, op.p.cfg());
	dev.writeTensor(e, VDLA_CDP_SRC, op.src);
	dev.writeTensor(e, VDLA_CDP_DST, op.dst);
	dev.writeEngine(e, VDLA_CDP_SIZE, op.p.size);
	dev.write64Engine(e, VDLA_CDP_LUT_ADDR_LO, op.lutAddr);
	dev.writeEngine(e, VDLA_CDP_LUT_SHIFT, op.p.lutShift);
	dev.writeEngine(e, VDLA_CDP_OUT_SHIFT, op.p.outShift);
	dev.writeEngine(e, VDLA_CDP_K, fp32Bits(op.p.k));
	dev.writeEngine(e, VDLA_CDP_ALPHA, fp32Bits(op.p.alpha));
	dev.writeEngine(e, VDLA_CDP_BETA, fp32Bits(op.p.beta));
}

void programRubik(DeviceHarness &dev, unsigned group, const RubikOp &op)
{
	const unsigned e = VDLA_ENGINE_RUBIK;
	dev.selectGroup(e, group);
	dev.writeEngine(e, VDLA_D_CFG, op.p.mode);
	dev.writeTensor(e, VDLA_RUBIK_SRC, op.src);
	dev.writeTensor(e, VDLA_RUBIK_DST, op.dst);
	dev.writeEngine(e, VDLA_RUBIK_PERM, op.p.permRegister());
	dev.writeEngine(e, VDLA_RUBIK_BLOCK, pair16(op.p.bx, op.p.by));
}

} /* namespace vdla_etest */
