/* SPDX-License-Identifier: MIT */
#include "task_builder.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace vdla_fwtest {

using namespace vdla_ref;

static_assert(sizeof(vdla_task_header) == 32, "vdla_task_header is 32 bytes");
static_assert(sizeof(vdla_task_op) == VDLA_TASK_OP_SIZE, "vdla_task_op is 512 bytes");

/* ---- Encoding ---------------------------------------------------------- */

vdla_task_surface encodeSurface(const Surface &s)
{
	vdla_task_surface t = {};
	if (!s.flying) {
		t.address.index = s.index;
		t.address.offset = s.offset;
	}
	t.dtype = s.desc.dtype;
	t.w = s.desc.w;
	t.h = s.desc.h;
	t.c = s.desc.c;
	t.n = s.desc.n;
	t.stride_w = s.desc.strideW;
	t.stride_h = s.desc.strideH;
	t.stride_c = s.desc.strideC;
	t.stride_n = s.desc.strideN;
	return t;
}

static vdla_task_address address(uint16_t index, uint64_t offset)
{
	vdla_task_address a = {};
	a.index = index;
	a.offset = offset;
	return a;
}

/* PAD_VALUE's encoding for an input of @dtype. */
static uint32_t padValueBits(uint32_t dtype, double v)
{
	if (isFloat(dtype))
		return fp32Bits(float(v));
	return uint32_t(int32_t(v));
}

/* ---- TaskBuilder ------------------------------------------------------- */

TaskBuilder::TaskBuilder(FwDevice &dev, Memory descriptorMemory)
	: dev_(dev), descriptorMemory_(descriptorMemory)
{
	task_.addresses.push_back({});
}

uint64_t TaskBuilder::allocBuffer(uint64_t bytes, Memory where)
{
	if (where == Memory::Sram) {
		uint64_t off = dev_.allocSram(bytes);
		std::memset(dev_.dev().sram() + off, kCanary, bytes);
		return VDLA_SRAM_BASE + off;
	}
	uint64_t base = dev_.dev().alloc(bytes + 2 * kMargin);
	std::memset(dev_.dev().guest(base), kCanary, bytes + 2 * kMargin);
	return base + kMargin;
}

uint16_t TaskBuilder::addBuffer(uint64_t bytes, Memory where)
{
	return addEntry(allocBuffer(bytes, where), bytes);
}

uint16_t TaskBuilder::addEntry(uint64_t devAddr, uint64_t size)
{
	if (task_.addresses.size() >= 0xffff)
		throw std::runtime_error("TaskBuilder: address list full");
	task_.addresses.push_back({ devAddr, size });
	return uint16_t(task_.addresses.size() - 1);
}

uint8_t *TaskBuilder::hostPtr(uint16_t index, uint64_t offset)
{
	const AddressEntry &e = entry(index);
	return dev_.hostRange(e.devAddr + offset, 0);
}

::testing::AssertionResult TaskBuilder::marginsUntouched(uint16_t index)
{
	const AddressEntry &e = entry(index);
	if (e.devAddr >= VDLA_SRAM_BASE)
		return ::testing::AssertionSuccess();
	const uint8_t *before = dev().guest(e.devAddr - kMargin);
	const uint8_t *after = dev().guest(e.devAddr + e.size);
	for (uint64_t i = 0; i < kMargin; i++) {
		if (before[i] != kCanary || after[i] != kCanary)
			return ::testing::AssertionFailure()
				<< "a byte next to buffer " << index << " was written";
	}
	return ::testing::AssertionSuccess();
}

Surface TaskBuilder::alloc(
	uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w, Layout layout, Memory where)
{
	Surface s;
	s.desc = makeDesc(0, dtype, n, c, h, w, layout);
	s.index = addBuffer(s.desc.extent(), where);
	s.offset = 0;
	s.desc.addr = entry(s.index).devAddr;
	return s;
}

Surface TaskBuilder::place(const Tensor &t, Layout layout, Memory where)
{
	Surface s = allocLike(t, layout, where);
	store(s, t);
	return s;
}

Surface TaskBuilder::at(uint16_t index, uint64_t offset, uint32_t dtype, uint32_t n, uint32_t c,
	uint32_t h, uint32_t w, Layout layout)
{
	Surface s;
	s.index = index;
	s.offset = offset;
	s.desc = makeDesc(entry(index).devAddr + offset, dtype, n, c, h, w, layout);
	return s;
}

Surface TaskBuilder::flying(uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w)
{
	Surface s;
	s.flying = true;
	s.desc = TensorDesc::nchw(0, dtype, n, c, h, w);
	return s;
}

Tensor TaskBuilder::load(const Surface &s)
{
	return vdla_ref::load(dev(), s.desc);
}

void TaskBuilder::store(const Surface &s, const Tensor &t)
{
	vdla_ref::store(dev(), s.desc, t);
}

vdla_task_address TaskBuilder::putInt16s(const std::vector<int16_t> &v)
{
	uint16_t index = addBuffer(v.size() * 2);
	for (size_t i = 0; i < v.size(); i++)
		encodeElement(VDLA_DTYPE_INT16, 0, v[i], hostPtr(index, 2 * i));
	return address(index, 0);
}

vdla_task_address TaskBuilder::putInt32s(const std::vector<int32_t> &v)
{
	uint16_t index = addBuffer(v.size() * 4);
	for (size_t i = 0; i < v.size(); i++)
		encodeElement(VDLA_DTYPE_INT32, 0, v[i], hostPtr(index, 4 * i));
	return address(index, 0);
}

vdla_task_address TaskBuilder::putFloats(const std::vector<float> &v)
{
	uint16_t index = addBuffer(v.size() * 4);
	for (size_t i = 0; i < v.size(); i++)
		encodeElement(VDLA_DTYPE_FP32, v[i], 0, hostPtr(index, 4 * i));
	return address(index, 0);
}

vdla_task_op TaskBuilder::newOp(uint8_t engine)
{
	vdla_task_op op;
	std::memset(&op, 0, sizeof(op));
	op.engine = engine;
	op.fused_parent = VDLA_NO_OP;
	for (auto &c : op.consumers)
		c.index = VDLA_NO_OP;
	return op;
}

uint16_t TaskBuilder::push(const vdla_task_op &op)
{
	if (ops_.size() >= VDLA_TASK_MAX_OPS)
		throw std::runtime_error("TaskBuilder: too many operations");
	ops_.push_back(op);
	return uint16_t(ops_.size() - 1);
}

uint16_t TaskBuilder::addOp(const vdla_task_op &op)
{
	return push(op);
}

uint16_t TaskBuilder::bdma(const BdmaCopy &c)
{
	vdla_task_op op = newOp(VDLA_TASK_ENGINE_BDMA);
	op.bdma.src = address(c.srcIndex, c.srcOffset);
	op.bdma.dst = address(c.dstIndex, c.dstOffset);
	op.bdma.line_bytes = c.lineBytes;
	op.bdma.lines = c.lines;
	op.bdma.src_line_stride = c.srcLineStride;
	op.bdma.dst_line_stride = c.dstLineStride;
	op.bdma.surfaces = c.surfaces;
	op.bdma.src_surf_stride = c.srcSurfStride;
	op.bdma.dst_surf_stride = c.dstSurfStride;
	return push(op);
}

uint16_t TaskBuilder::copy(const Surface &src, const Surface &dst)
{
	BdmaCopy c;
	c.srcIndex = src.index;
	c.srcOffset = src.offset;
	c.dstIndex = dst.index;
	c.dstOffset = dst.offset;
	c.lineBytes = uint32_t(src.desc.extent());
	return bdma(c);
}

uint16_t TaskBuilder::conv(const Surface &src, const Surface &wgt, const Surface &dst,
	const ConvParams &p, uint32_t fly)
{
	vdla_task_op op = newOp(VDLA_TASK_ENGINE_CONV);
	op.conv.src = encodeSurface(src);
	op.conv.wgt = encodeSurface(wgt);
	op.conv.dst = encodeSurface(dst);
	op.conv.stride_x = uint16_t(p.strideX);
	op.conv.stride_y = uint16_t(p.strideY);
	op.conv.pad_left = uint16_t(p.padL);
	op.conv.pad_right = uint16_t(p.padR);
	op.conv.pad_top = uint16_t(p.padT);
	op.conv.pad_bottom = uint16_t(p.padB);
	op.conv.dilation_x = uint16_t(p.dilX);
	op.conv.dilation_y = uint16_t(p.dilY);
	op.conv.groups = p.groups;
	op.conv.pad_value = padValueBits(src.dtype(), p.padValue);
	op.conv.fly = fly;
	return push(op);
}

uint16_t TaskBuilder::sdp(
	const Surface &x, const Surface &dst, const SdpParams &p, const Surface *y, uint32_t fly)
{
	vdla_task_op op = newOp(VDLA_TASK_ENGINE_SDP);
	bool integer = sdpIntegerPath(x.dtype());
	op.sdp.src = encodeSurface(x);
	op.sdp.dst = encodeSurface(dst);
	/* Spec reading: the EW surface is "used when ew_op != 0", zero otherwise. */
	if (p.ew != VDLA_SDP_EW_OP_NONE && y)
		op.sdp.ew = encodeSurface(*y);
	op.sdp.fly = fly;
	op.sdp.bias_mode = uint8_t(p.bias);
	op.sdp.scale_mode = uint8_t(p.scale);
	op.sdp.ew_op = uint8_t(p.ew);
	op.sdp.act = uint8_t(p.act);
	op.sdp.round = uint8_t(p.round);
	op.sdp.wrap = p.wrap ? 1 : 0;
	if (p.bias == VDLA_SDP_MODE_PER_CHANNEL)
		op.sdp.bias = integer ? putInt32s(p.biasChannel) : putFloats(p.fBiasChannel);
	if (p.scale == VDLA_SDP_MODE_PER_CHANNEL) {
		if (integer) {
			std::vector<int32_t> pairs;
			for (size_t c = 0; c < p.scaleMulChannel.size(); c++) {
				pairs.push_back(p.scaleMulChannel[c]);
				pairs.push_back(p.scaleShiftChannel[c]);
			}
			op.sdp.scale = putInt32s(pairs);
		} else {
			op.sdp.scale = putFloats(p.fScaleChannel);
		}
	}
	if (p.act == VDLA_SDP_ACT_LUT)
		op.sdp.lut = integer ? putInt16s(p.lut) : putFloats(p.fLut);
	if (integer) {
		op.sdp.bias_value = uint32_t(p.biasValue);
		op.sdp.scale_mul = uint32_t(p.scaleMul);
		op.sdp.scale_shift = p.scaleShift;
		op.sdp.ew_mul = uint32_t(p.ewMul);
		op.sdp.ew_shift = p.ewShift;
		op.sdp.ew_post_shift = p.ewPostShift;
		op.sdp.clip_min = uint32_t(p.clipMin);
		op.sdp.clip_max = uint32_t(p.clipMax);
		op.sdp.lut_start = uint32_t(p.lutStart);
		op.sdp.lut_shift = p.lutShift;
		op.sdp.out_offset = uint32_t(p.outOffset);
	} else {
		op.sdp.bias_value = fp32Bits(p.fBiasValue);
		op.sdp.scale_mul = fp32Bits(p.fScale);
		op.sdp.ew_mul = fp32Bits(p.fEwMul);
		op.sdp.clip_min = fp32Bits(p.fClipMin);
		op.sdp.clip_max = fp32Bits(p.fClipMax);
		op.sdp.lut_start = fp32Bits(p.fLutStart);
		op.sdp.lut_shift = fp32Bits(p.fLutStep);
	}
	if (fly & VDLA_TASK_FLY_IN)
		op.fused_parent = uint16_t(ops_.size() - 1);
	return push(op);
}

uint16_t TaskBuilder::pdp(const Surface &src, const Surface &dst, const PdpParams &p, uint32_t fly)
{
	vdla_task_op op = newOp(VDLA_TASK_ENGINE_PDP);
	op.pdp.src = encodeSurface(src);
	op.pdp.dst = encodeSurface(dst);
	op.pdp.fly = fly;
	op.pdp.method = uint8_t(p.method);
	op.pdp.ceil_mode = p.ceil ? 1 : 0;
	op.pdp.include_pad = p.includePad ? 1 : 0;
	op.pdp.round = uint8_t(p.round);
	op.pdp.kernel_w = uint16_t(p.kw);
	op.pdp.kernel_h = uint16_t(p.kh);
	op.pdp.stride_x = uint16_t(p.sx);
	op.pdp.stride_y = uint16_t(p.sy);
	op.pdp.pad_left = uint16_t(p.padL);
	op.pdp.pad_right = uint16_t(p.padR);
	op.pdp.pad_top = uint16_t(p.padT);
	op.pdp.pad_bottom = uint16_t(p.padB);
	if (fly & VDLA_TASK_FLY_IN)
		op.fused_parent = uint16_t(ops_.size() - 1);
	return push(op);
}

uint16_t TaskBuilder::cdp(const Surface &src, const Surface &dst, const CdpParams &p)
{
	vdla_task_op op = newOp(VDLA_TASK_ENGINE_CDP);
	op.cdp.src = encodeSurface(src);
	op.cdp.dst = encodeSurface(dst);
	if (!isFloat(src.dtype()))
		op.cdp.lut = putInt32s(p.lut);
	op.cdp.size = p.size;
	op.cdp.lut_shift = p.lutShift;
	op.cdp.out_shift = p.outShift;
	op.cdp.k = fp32Bits(p.k);
	op.cdp.alpha = fp32Bits(p.alpha);
	op.cdp.beta = fp32Bits(p.beta);
	op.cdp.round = uint8_t(p.round);
	op.cdp.wrap = p.wrap ? 1 : 0;
	return push(op);
}

uint16_t TaskBuilder::rubik(const Surface &src, const Surface &dst, const RubikParams &p)
{
	vdla_task_op op = newOp(VDLA_TASK_ENGINE_RUBIK);
	op.rubik.src = encodeSurface(src);
	op.rubik.dst = encodeSurface(dst);
	op.rubik.mode = p.mode;
	op.rubik.perm = p.permRegister();
	op.rubik.block_x = uint16_t(p.bx);
	op.rubik.block_y = uint16_t(p.by);
	return push(op);
}

/* The flying output of a CONV of @src and @wgt: INT32 or FP32, the spec's size. */
static Surface convFlyingOut(const Surface &src, const Surface &wgt, const ConvParams &cp)
{
	uint32_t acc = isFloat(src.dtype()) ? VDLA_DTYPE_FP32 : VDLA_DTYPE_INT32;
	int64_t oh = convOutSize(src.desc.h, cp.padT, cp.padB, wgt.desc.h, cp.dilY, cp.strideY);
	int64_t ow = convOutSize(src.desc.w, cp.padL, cp.padR, wgt.desc.w, cp.dilX, cp.strideX);
	if (oh <= 0 || ow <= 0)
		throw std::invalid_argument("TaskBuilder: CONV has no output");
	return TaskBuilder::flying(acc, src.desc.n, wgt.desc.n, uint32_t(oh), uint32_t(ow));
}

TaskBuilder::Fused TaskBuilder::convSdp(const Surface &src, const Surface &wgt,
	const ConvParams &cp, const SdpParams &sp, const Surface &dst, const Surface *y)
{
	Fused f;
	Surface mid = convFlyingOut(src, wgt, cp);
	f.conv = f.head = conv(src, wgt, mid, cp, VDLA_TASK_FLY_OUT);
	f.sdp = f.tail = sdp(mid, dst, sp, y, VDLA_TASK_FLY_IN);
	return f;
}

TaskBuilder::Fused TaskBuilder::convSdpPdp(const Surface &src, const Surface &wgt,
	const ConvParams &cp, const SdpParams &sp, uint32_t sdpType, const PdpParams &pp,
	const Surface &dst, const Surface *y)
{
	Fused f;
	Surface mid = convFlyingOut(src, wgt, cp);
	Surface sdpOut = flying(sdpType, mid.desc.n, mid.desc.c, mid.desc.h, mid.desc.w);
	f.conv = f.head = conv(src, wgt, mid, cp, VDLA_TASK_FLY_OUT);
	f.sdp = sdp(mid, sdpOut, sp, y, VDLA_TASK_FLY_IN | VDLA_TASK_FLY_OUT);
	f.pdp = f.tail = pdp(sdpOut, dst, pp, VDLA_TASK_FLY_IN);
	return f;
}

TaskBuilder::Fused TaskBuilder::sdpPdp(const Surface &x, const SdpParams &sp, uint32_t sdpType,
	const PdpParams &pp, const Surface &dst, const Surface *y)
{
	Fused f;
	Surface sdpOut = flying(sdpType, x.desc.n, x.desc.c, x.desc.h, x.desc.w);
	f.sdp = f.head = sdp(x, sdpOut, sp, y, VDLA_TASK_FLY_OUT);
	f.pdp = f.tail = pdp(sdpOut, dst, pp, VDLA_TASK_FLY_IN);
	return f;
}

void TaskBuilder::link(uint16_t producer, uint16_t consumer, uint8_t event)
{
	vdla_task_op &p = op(producer);
	for (auto &c : p.consumers) {
		if (c.index == VDLA_NO_OP) {
			c.index = consumer;
			c.event = event;
			op(consumer).dependency_count++;
			return;
		}
	}
	throw std::runtime_error("TaskBuilder::link: too many consumers");
}

void TaskBuilder::after(uint16_t consumer, std::initializer_list<uint16_t> producers, uint8_t event)
{
	for (uint16_t p : producers)
		link(p, consumer, event);
}

TestTask &TaskBuilder::finish(uint32_t opsOffset)
{
	opsOffset_ = opsOffset;
	uint64_t bytes = uint64_t(opsOffset) + uint64_t(ops_.size()) * sizeof(vdla_task_op);
	uint64_t addr = allocBuffer(bytes, descriptorMemory_);
	uint8_t *p = dev_.hostRange(addr, bytes);
	std::memset(p, 0, bytes);

	vdla_task_header h;
	std::memset(&h, 0, sizeof(h));
	h.magic = VDLA_TASK_MAGIC;
	h.version_major = VDLA_TASK_VERSION_MAJOR;
	h.version_minor = VDLA_TASK_VERSION_MINOR;
	h.num_ops = uint32_t(ops_.size());
	h.ops_offset = opsOffset;
	std::memcpy(p, &h, sizeof(h));
	if (!ops_.empty())
		std::memcpy(p + opsOffset, ops_.data(), ops_.size() * sizeof(vdla_task_op));

	task_.addresses[0] = { addr, bytes };
	task_.descriptor = 0;
	task_.stateOps = uint32_t(ops_.size());
	return task_;
}

vdla_task_header &TaskBuilder::headerInMemory()
{
	return *reinterpret_cast<vdla_task_header *>(hostPtr(0));
}

vdla_task_op &TaskBuilder::opInMemory(uint32_t index)
{
	return *reinterpret_cast<vdla_task_op *>(
		hostPtr(0, opsOffset_ + uint64_t(index) * sizeof(vdla_task_op)));
}

} /* namespace vdla_fwtest */
