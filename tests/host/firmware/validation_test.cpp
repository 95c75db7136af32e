/* SPDX-License-Identifier: MIT */
/*
 * A corpus of malformed tasks, table-driven. Each must be rejected by
 * dla_execute_task with DLA_ERR_INVALID_TASK, dla_get_task_result must name the
 * operation (or the header), field and reason, and the device must not have
 * been touched: no register write through the port, every engine idle, no
 * reset.
 *
 * Most cases take a valid base task using every engine and a fused chain
 * and change one field of its descriptor in memory; cases whose field
 * would also break a shape rule (a kernel size changes the output size)
 * build a task of their own that is consistent but for that one field.
 *
 * Which (field, reason) a rule reports: docs/firmware.md names the fields
 * and reasons but not the pairing, so these follow the most literal
 * reading, consistently:
 *  - error_op is the operation that holds the offending field (for a link,
 *    the producer holding consumers[]; for a dependency count, the consumer);
 *  - a value that must be zero (reserved, flags, a flying tensor's address):
 *    NOT_ZERO; a value outside an enumeration (magic, major version, engine,
 *    event, dtype, modes, rounding, fly bits, perm, alignment): BAD_VALUE; a
 *    number outside a documented range (counts, dims, kernel, stride,
 *    dilation, padding, shifts, sizes, context, minor version):
 *    OUT_OF_RANGE;
 *  - a sub-field of a tensor reports the sub-field (ADDRESS_INDEX, DTYPE,
 *    DIMS, STRIDES); a tensor, vector or table that reaches beyond its
 *    buffer, or whose end overflows 64 bits, reports the operand (SRC, DST,
 *    WGT, EW, BIAS, SCALE, LUT) with OUTSIDE_BUFFER or OVERFLOW;
 *  - dimensions inconsistent with each other: DIMS, SHAPE; a type
 *    combination the engine does not support: DTYPE, TYPE;
 *  - fused-chain rules: FUSION, on the field that breaks them.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "task_builder.h"

using namespace vdla_fwtest;
using namespace vdla_ref;

namespace {

constexpr uint32_t H = DLA_ERROR_IN_HEADER;
/* Guest memory of a corpus device: the tasks are tiny. */
constexpr uint64_t kCorpusGuestBytes = 4ull << 20;

/* Operations of the base task. */
enum BaseOp : uint32_t {
	kIn = 0, /* BDMA staging -> A */
	kConv = 1, /* CONV A -> flying, FLY_OUT */
	kFusedSdp = 2, /* SDP flying -> flying, FLY_IN | FLY_OUT; bias, scale, EW, LUT */
	kFusedPdp = 3, /* PDP flying -> P, FLY_IN */
	kCdp = 4, /* CDP P -> Q, LUT */
	kRubik = 5, /* RUBIK P -> R, PERMUTE */
	kSdp = 6, /* SDP R -> S (INT16), per-tensor bias, CLIP */
	kOut = 7, /* BDMA S -> T, after kSdp and kCdp */
	kBaseOps = 8,
};

struct Corpus {
	Corpus() : fw(kCorpusGuestBytes), b(fw) { }

	FwDevice fw;
	TaskBuilder b;
	TestTask *task = nullptr;

	void finish(uint32_t opsOffset = sizeof(vdla_task_header)) { task = &b.finish(opsOffset); }
	vdla_task_op &op(uint32_t i) { return b.opInMemory(i); }
	vdla_task_header &header() { return b.headerInMemory(); }
	/* A new consumer link, in the first free slot of @producer. */
	vdla_task_consumer &freeSlot(uint32_t producer)
	{
		for (auto &c : op(producer).consumers)
			if (c.index == VDLA_NO_OP)
				return c;
		throw std::runtime_error("no free consumer slot");
	}

	void base(uint32_t opsOffset = sizeof(vdla_task_header));
};

void Corpus::base(uint32_t opsOffset)
{
	Rng rng(7);
	const uint32_t C = 4;
	Tensor x = randomFull(rng, VDLA_DTYPE_INT8, 1, C, 6, 6);
	Surface a = b.allocLike(x);
	uint16_t in = b.copy(b.place(x), a);

	Tensor wgt = randomFull(rng, VDLA_DTYPE_INT8, C, C, 3, 3);
	ConvParams cp;
	cp.padL = cp.padR = cp.padT = cp.padB = 1;
	Tensor convRef = conv(x, wgt, cp);
	uint16_t cv
		= b.conv(a, b.place(wgt), TaskBuilder::flyingLike(convRef), cp, VDLA_TASK_FLY_OUT);
	b.link(in, cv);

	SdpParams sp;
	sp.bias = VDLA_SDP_MODE_PER_CHANNEL;
	sp.scale = VDLA_SDP_MODE_PER_CHANNEL;
	for (uint32_t c = 0; c < C; c++) {
		sp.biasChannel.push_back(int32_t(c) * 100);
		sp.scaleMulChannel.push_back(3);
		sp.scaleShiftChannel.push_back(8);
	}
	sp.ew = VDLA_SDP_EW_OP_ADD;
	sp.act = VDLA_SDP_ACT_LUT;
	sp.lut = sampleIntLut(rng);
	sp.lutShift = 4;
	Surface y = b.place(randomFull(rng, VDLA_DTYPE_INT8, 1, C, 6, 6));
	b.sdp(TaskBuilder::flyingLike(convRef), TaskBuilder::flying(VDLA_DTYPE_INT8, 1, C, 6, 6),
		sp, &y, VDLA_TASK_FLY_IN | VDLA_TASK_FLY_OUT);

	PdpParams pp;
	pp.method = VDLA_PDP_MAX;
	pp.kw = pp.kh = 2;
	pp.sx = pp.sy = 2;
	Surface p = b.alloc(VDLA_DTYPE_INT8, 1, C, 3, 3);
	uint16_t pd
		= b.pdp(TaskBuilder::flying(VDLA_DTYPE_INT8, 1, C, 6, 6), p, pp, VDLA_TASK_FLY_IN);

	CdpParams dp;
	dp.size = 3;
	dp.lut = sampleCdpLut();
	dp.lutShift = 8;
	dp.outShift = 16;
	Surface q = b.alloc(VDLA_DTYPE_INT8, 1, C, 3, 3);
	uint16_t cd = b.cdp(p, q, dp);
	b.link(pd, cd);

	RubikParams rp;
	rp.mode = VDLA_RUBIK_PERMUTE;
	Surface r = b.alloc(VDLA_DTYPE_INT8, 1, C, 3, 3);
	uint16_t rb = b.rubik(p, r, rp);
	b.link(pd, rb);

	SdpParams sp2;
	sp2.bias = VDLA_SDP_MODE_PER_TENSOR;
	sp2.biasValue = 5;
	sp2.act = VDLA_SDP_ACT_CLIP;
	sp2.clipMin = -50;
	sp2.clipMax = 50;
	Surface s = b.alloc(VDLA_DTYPE_INT16, 1, C, 3, 3);
	uint16_t sd = b.sdp(r, s, sp2);
	b.link(rb, sd);

	Surface t = b.alloc(VDLA_DTYPE_INT16, 1, C, 3, 3);
	uint16_t out = b.copy(s, t);
	b.after(out, { sd, cd });
	if (b.numOps() != kBaseOps)
		throw std::logic_error("base task layout changed");
	finish(opsOffset);
}

/* ---- Tasks of their own: consistent but for one field ------------------ */

struct ConvSpec {
	uint32_t dtype = VDLA_DTYPE_INT8, wgtType = VDLA_DTYPE_INT8, dstType = VDLA_DTYPE_INT32;
	uint32_t cin = 2, h = 6, w = 6, cout = 2, kh = 3, kw = 3;
	ConvParams p;
	/* Output size; computed from the parameters when 0. */
	uint32_t oh = 0, ow = 0;
};

/* One plain CONV; the output size follows the parameters when it can. */
void singleConv(Corpus &c, const ConvSpec &s)
{
	uint32_t oh = s.oh, ow = s.ow;
	if (!oh) {
		int64_t v = s.p.strideY && s.p.dilY
			? convOutSize(s.h, s.p.padT, s.p.padB, s.kh, s.p.dilY, s.p.strideY)
			: 1;
		oh = v > 0 ? uint32_t(v) : 1;
	}
	if (!ow) {
		int64_t v = s.p.strideX && s.p.dilX
			? convOutSize(s.w, s.p.padL, s.p.padR, s.kw, s.p.dilX, s.p.strideX)
			: 1;
		ow = v > 0 ? uint32_t(v) : 1;
	}
	uint32_t groups = s.p.groups ? s.p.groups : 1;
	Surface src = c.b.alloc(s.dtype, 1, s.cin, s.h, s.w);
	Surface wgt = c.b.alloc(s.wgtType, s.cout, s.cin / groups, s.kh, s.kw);
	Surface dst = c.b.alloc(s.dstType, 1, s.cout, oh, ow);
	c.b.conv(src, wgt, dst, s.p);
	c.finish();
}

struct PdpSpec {
	uint32_t dtype = VDLA_DTYPE_INT8;
	uint32_t h = 4, w = 4;
	PdpParams p;
};

void singlePdp(Corpus &c, const PdpSpec &s)
{
	auto out = [](uint32_t in, uint32_t p0, uint32_t p1, uint32_t k, uint32_t st, bool ceil) {
		int64_t v = st ? pdpOutSize(in, p0, p1, k, st, ceil) : 1;
		return v > 0 ? uint32_t(v) : 1;
	};
	uint32_t oh = out(s.h, s.p.padT, s.p.padB, s.p.kh, s.p.sy, s.p.ceil);
	uint32_t ow = out(s.w, s.p.padL, s.p.padR, s.p.kw, s.p.sx, s.p.ceil);
	Surface src = c.b.alloc(s.dtype, 1, 2, s.h, s.w);
	Surface dst = c.b.alloc(s.dtype, 1, 2, oh, ow);
	c.b.pdp(src, dst, s.p);
	c.finish();
}

/* ---- The corpus -------------------------------------------------------- */

struct BadTask {
	const char *name;
	std::function<void(Corpus &)> make;
	uint32_t op, field, reason;
};

std::ostream &operator<<(std::ostream &os, const BadTask &t)
{
	return os << t.name;
}

std::vector<BadTask> corpus()
{
	using F = dla_field;
	using R = dla_reason;
	std::vector<BadTask> v;
	auto add = [&](const char *name, std::function<void(Corpus &)> make, uint32_t op, F field,
			   R reason) {
		v.push_back({ name, std::move(make), op, field, reason });
	};
	auto onBase = [](std::function<void(Corpus &)> mutate) {
		return [mutate](Corpus &c) {
			c.base();
			mutate(c);
		};
	};

	/* ---- Header and task ---- */
	add("BadMagic", onBase([](Corpus &c) { c.header().magic ^= 1; }), H, DLA_FIELD_MAGIC,
		DLA_REASON_BAD_VALUE);
	add("MajorVersionTooNew", onBase([](Corpus &c) { c.header().version_major = 2; }), H,
		DLA_FIELD_VERSION, DLA_REASON_BAD_VALUE);
	add("MajorVersionZero", onBase([](Corpus &c) { c.header().version_major = 0; }), H,
		DLA_FIELD_VERSION, DLA_REASON_BAD_VALUE);
	add("MinorVersionTooNew", onBase([](Corpus &c) { c.header().version_minor = 1; }), H,
		DLA_FIELD_VERSION, DLA_REASON_OUT_OF_RANGE);
	add("MoreOperationsThanTheMaximum", onBase([](Corpus &c) {
		c.header().num_ops = VDLA_TASK_MAX_OPS + 1;
		c.task->stateOps = VDLA_TASK_MAX_OPS;
	}),
		H, DLA_FIELD_NUM_OPS, DLA_REASON_OUT_OF_RANGE);
	add("NumOpsAllOnes", onBase([](Corpus &c) { c.header().num_ops = 0xffffffffu; }), H,
		DLA_FIELD_NUM_OPS, DLA_REASON_OUT_OF_RANGE);
	add("NumOpsBeyondTheDescriptorBuffer", onBase([](Corpus &c) {
		c.header().num_ops = kBaseOps + 1;
		c.task->stateOps = kBaseOps + 1;
	}),
		H, DLA_FIELD_NUM_OPS, DLA_REASON_OUTSIDE_BUFFER);
	add("DescriptorBufferOneByteShort",
		onBase([](Corpus &c) { c.task->addresses[c.task->descriptor].size -= 1; }), H,
		DLA_FIELD_NUM_OPS, DLA_REASON_OUTSIDE_BUFFER);
	add(
		"OpsOffsetUnaligned",
		[](Corpus &c) {
			c.base(64);
			c.header().ops_offset = 60;
		},
		H, DLA_FIELD_OPS_OFFSET, DLA_REASON_BAD_VALUE);
	add(
		"OpsOffsetInsideTheHeader",
		[](Corpus &c) {
			c.base(64);
			c.header().ops_offset = 24;
		},
		H, DLA_FIELD_OPS_OFFSET, DLA_REASON_OUT_OF_RANGE);
	add("OpsOffsetBeyondTheBuffer", onBase([](Corpus &c) {
		uint64_t size = c.task->addresses[0].size;
		c.header().ops_offset = uint32_t((size + 7) / 8 * 8 + 8);
	}),
		H, DLA_FIELD_OPS_OFFSET, DLA_REASON_OUTSIDE_BUFFER);
	add("OpsOffsetNearFourGigabytes",
		onBase([](Corpus &c) { c.header().ops_offset = 0xfffffff8u; }), H,
		DLA_FIELD_OPS_OFFSET, DLA_REASON_OUTSIDE_BUFFER);
	add("HeaderFlags", onBase([](Corpus &c) { c.header().flags = 1; }), H, DLA_FIELD_FLAGS,
		DLA_REASON_NOT_ZERO);
	add("HeaderFlagsTopBit", onBase([](Corpus &c) { c.header().flags = 0x80000000u; }), H,
		DLA_FIELD_FLAGS, DLA_REASON_NOT_ZERO);
	add("HeaderReserved0", onBase([](Corpus &c) { c.header().reserved[0] = 1; }), H,
		DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
	add("HeaderReserved2", onBase([](Corpus &c) { c.header().reserved[2] = 0x100; }), H,
		DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
	add("ContextSixteen", onBase([](Corpus &c) { c.task->context = 16; }), H, DLA_FIELD_CONTEXT,
		DLA_REASON_OUT_OF_RANGE);
	add("ContextAllOnes", onBase([](Corpus &c) { c.task->context = 0xffffffffu; }), H,
		DLA_FIELD_CONTEXT, DLA_REASON_OUT_OF_RANGE);
	add("DescriptorIndexBeyondTheList",
		onBase([](Corpus &c) { c.task->descriptor = uint16_t(c.task->addresses.size()); }),
		H, DLA_FIELD_DESCRIPTOR, DLA_REASON_BAD_INDEX);
	add("DescriptorUnreadable", onBase([](Corpus &c) {
		/* An address the host cannot map: the port's read fails. */
		c.task->addresses[0].devAddr = c.fw.dev().guestBytes() + (1ull << 30);
	}),
		H, DLA_FIELD_DESCRIPTOR, DLA_REASON_READ_FAILED);
	add("DescriptorSmallerThanTheHeader",
		onBase([](Corpus &c) { c.task->addresses[0].size = 16; }), H, DLA_FIELD_DESCRIPTOR,
		DLA_REASON_READ_FAILED);

	/* ---- Flags and reserved fields of operations ---- */
	add("OpFlags", onBase([](Corpus &c) { c.op(kCdp).flags = 1; }), kCdp, DLA_FIELD_FLAGS,
		DLA_REASON_NOT_ZERO);
	add("OpReserved0", onBase([](Corpus &c) { c.op(kRubik).reserved0 = 1; }), kRubik,
		DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
	add("OpReserved1", onBase([](Corpus &c) { c.op(kSdp).reserved1[1] = 1; }), kSdp,
		DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
	add("ConsumerReserved", onBase([](Corpus &c) { c.op(kIn).consumers[0].reserved = 1; }), kIn,
		DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
	add("TensorAddressReserved",
		onBase([](Corpus &c) { c.op(kCdp).cdp.src.address.reserved[2] = 1; }), kCdp,
		DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
	add("SurfaceReserved", onBase([](Corpus &c) { c.op(kRubik).rubik.dst.reserved = 1; }),
		kRubik, DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
	add("BdmaAddressReserved", onBase([](Corpus &c) { c.op(kOut).bdma.dst.reserved[0] = 1; }),
		kOut, DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
	add("BdmaReserved", onBase([](Corpus &c) { c.op(kOut).bdma.reserved = 1; }), kOut,
		DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
	add("ConvReserved", onBase([](Corpus &c) { c.op(kConv).conv.reserved = 1; }), kConv,
		DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
	add("SdpReserved0", onBase([](Corpus &c) { c.op(kSdp).sdp.reserved0 = 1; }), kSdp,
		DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
	add("SdpReserved1", onBase([](Corpus &c) { c.op(kSdp).sdp.reserved1 = 1; }), kSdp,
		DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
	add("SdpTableAddressReserved",
		onBase([](Corpus &c) { c.op(kFusedSdp).sdp.lut.reserved[1] = 1; }), kFusedSdp,
		DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
	add("CdpReserved0", onBase([](Corpus &c) { c.op(kCdp).cdp.reserved0 = 1; }), kCdp,
		DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
	add("CdpReserved1", onBase([](Corpus &c) { c.op(kCdp).cdp.reserved1 = 1; }), kCdp,
		DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);
	add("RubikReserved", onBase([](Corpus &c) { c.op(kRubik).rubik.reserved = 1; }), kRubik,
		DLA_FIELD_RESERVED, DLA_REASON_NOT_ZERO);

	/* ---- Engines, events and links ---- */
	add("EngineSix", onBase([](Corpus &c) { c.op(kCdp).engine = VDLA_TASK_ENGINES; }), kCdp,
		DLA_FIELD_ENGINE, DLA_REASON_BAD_VALUE);
	add("EngineAllOnes", onBase([](Corpus &c) { c.op(kOut).engine = 0xff; }), kOut,
		DLA_FIELD_ENGINE, DLA_REASON_BAD_VALUE);
	add("EventThree", onBase([](Corpus &c) { c.op(kIn).consumers[0].event = 3; }), kIn,
		DLA_FIELD_CONSUMER_EVENT, DLA_REASON_BAD_VALUE);
	add("ConsumerIndexEqualToNumOps", onBase([](Corpus &c) {
		vdla_task_consumer &l = c.freeSlot(kRubik);
		l.index = kBaseOps;
		l.event = VDLA_EVENT_OP_COMPLETED;
	}),
		kRubik, DLA_FIELD_CONSUMER_INDEX, DLA_REASON_BAD_INDEX);
	add("ConsumerIndexFarBeyond", onBase([](Corpus &c) {
		vdla_task_consumer &l = c.freeSlot(kIn);
		l.index = 0xfffe;
		l.event = VDLA_EVENT_OP_ENABLED;
	}),
		kIn, DLA_FIELD_CONSUMER_INDEX, DLA_REASON_BAD_INDEX);
	add("BackwardLink", onBase([](Corpus &c) {
		vdla_task_consumer &l = c.freeSlot(kSdp);
		l.index = kCdp;
		c.op(kCdp).dependency_count++;
	}),
		kSdp, DLA_FIELD_CONSUMER_INDEX, DLA_REASON_BACKWARD_LINK);
	add("LinkToItself", onBase([](Corpus &c) {
		vdla_task_consumer &l = c.freeSlot(kSdp);
		l.index = kSdp;
		l.event = VDLA_EVENT_OP_PROGRAMMED;
		c.op(kSdp).dependency_count++;
	}),
		kSdp, DLA_FIELD_CONSUMER_INDEX, DLA_REASON_BACKWARD_LINK);
	add("DependencyCountTooHigh", onBase([](Corpus &c) { c.op(kOut).dependency_count = 3; }),
		kOut, DLA_FIELD_DEPENDENCY_COUNT, DLA_REASON_COUNT_MISMATCH);
	add("DependencyCountTooLow", onBase([](Corpus &c) { c.op(kOut).dependency_count = 1; }),
		kOut, DLA_FIELD_DEPENDENCY_COUNT, DLA_REASON_COUNT_MISMATCH);
	add("DependencyCountWithoutLinks",
		onBase([](Corpus &c) { c.op(kIn).dependency_count = 1; }), kIn,
		DLA_FIELD_DEPENDENCY_COUNT, DLA_REASON_COUNT_MISMATCH);
	add("DependencyCountAllOnes",
		onBase([](Corpus &c) { c.op(kRubik).dependency_count = 0xffff; }), kRubik,
		DLA_FIELD_DEPENDENCY_COUNT, DLA_REASON_COUNT_MISMATCH);

	/* ---- Fused chains ---- */
	add("FusedParentNotThePreviousOp", onBase([](Corpus &c) {
		/*
		 * The plain SDP becomes a flying consumer naming the CONV
		 * of the chain as its parent. Changing a chain member's
		 * fused_parent instead would also leave its real parent
		 * flying to nobody, an earlier fault.
		 */
		vdla_task_op &o = c.op(kSdp);
		o.sdp.fly = VDLA_TASK_FLY_IN;
		o.sdp.src.address = {};
		o.fused_parent = kConv;
	}),
		kSdp, DLA_FIELD_FUSED_PARENT, DLA_REASON_FUSION);
	add(
		"FusedMemberOnTheWrongEngine",
		[](Corpus &c) {
			/* CONV flies to SDP, never to PDP; FP32 so that PDP takes the type. */
			Surface src = c.b.alloc(VDLA_DTYPE_FP16, 1, 2, 4, 4);
			Surface wgt = c.b.alloc(VDLA_DTYPE_FP16, 2, 2, 1, 1);
			ConvParams cp;
			c.b.conv(src, wgt, TaskBuilder::flying(VDLA_DTYPE_FP32, 1, 2, 4, 4), cp,
				VDLA_TASK_FLY_OUT);
			PdpParams pp;
			Surface dst = c.b.alloc(VDLA_DTYPE_FP32, 1, 2, 4, 4);
			c.b.pdp(TaskBuilder::flying(VDLA_DTYPE_FP32, 1, 2, 4, 4), dst, pp,
				VDLA_TASK_FLY_IN);
			c.finish();
		},
		1, DLA_FIELD_ENGINE, DLA_REASON_FUSION);
	add("FusedMemberWithoutFlyIn",
		onBase([](Corpus &c) { c.op(kFusedSdp).sdp.fly = VDLA_TASK_FLY_OUT; }), kFusedSdp,
		DLA_FIELD_FLY, DLA_REASON_FUSION);
	add(
		"FlyOutFollowedByNoMember",
		[](Corpus &c) {
			Surface src = c.b.alloc(VDLA_DTYPE_INT8, 1, 2, 4, 4);
			Surface wgt = c.b.alloc(VDLA_DTYPE_INT8, 2, 2, 1, 1);
			ConvParams cp;
			c.b.conv(src, wgt, TaskBuilder::flying(VDLA_DTYPE_INT32, 1, 2, 4, 4), cp,
				VDLA_TASK_FLY_OUT);
			Surface x = c.b.alloc(VDLA_DTYPE_INT8, 1, 2, 4, 4);
			c.b.copy(src, x);
			c.finish();
		},
		0, DLA_FIELD_FLY, DLA_REASON_FUSION);
	add(
		"FlyOutOnTheLastOp",
		[](Corpus &c) {
			Surface a = c.b.alloc(VDLA_DTYPE_INT16, 1, 2, 4, 4);
			Surface x = c.b.alloc(VDLA_DTYPE_INT16, 1, 2, 4, 4);
			c.b.copy(a, x);
			SdpParams sp;
			c.b.sdp(x, TaskBuilder::flying(VDLA_DTYPE_INT8, 1, 2, 4, 4), sp, nullptr,
				VDLA_TASK_FLY_OUT);
			c.finish();
		},
		1, DLA_FIELD_FLY, DLA_REASON_FUSION);
	add("CompletedLinkFromParentToMember", onBase([](Corpus &c) {
		vdla_task_consumer &l = c.freeSlot(kConv);
		l.index = kFusedSdp;
		l.event = VDLA_EVENT_OP_COMPLETED;
		c.op(kFusedSdp).dependency_count++;
	}),
		kConv, DLA_FIELD_CONSUMER_EVENT, DLA_REASON_FUSION);
	add("ConvFlyUnknownBit",
		onBase([](Corpus &c) { c.op(kConv).conv.fly = VDLA_TASK_FLY_OUT | 4; }), kConv,
		DLA_FIELD_FLY, DLA_REASON_BAD_VALUE);
	add("ConvFlyIn", onBase([](Corpus &c) {
		c.op(kConv).conv.fly = VDLA_TASK_FLY_OUT | VDLA_TASK_FLY_IN;
	}),
		kConv, DLA_FIELD_FLY, DLA_REASON_BAD_VALUE);
	add("PdpFlyOut", onBase([](Corpus &c) {
		c.op(kFusedPdp).pdp.fly = VDLA_TASK_FLY_IN | VDLA_TASK_FLY_OUT;
	}),
		kFusedPdp, DLA_FIELD_FLY, DLA_REASON_BAD_VALUE);
	add("FlyingTensorWithAnAddress",
		onBase([](Corpus &c) { c.op(kFusedSdp).sdp.src.address.offset = 64; }), kFusedSdp,
		DLA_FIELD_ADDRESS_OFFSET, DLA_REASON_NOT_ZERO);

	/* ---- Addresses and extents ---- */
	add("TensorAddressIndexBeyondTheList", onBase([](Corpus &c) {
		c.op(kCdp).cdp.src.address.index = uint16_t(c.task->addresses.size());
	}),
		kCdp, DLA_FIELD_ADDRESS_INDEX, DLA_REASON_BAD_INDEX);
	add("BdmaAddressIndexAllOnes", onBase([](Corpus &c) { c.op(kIn).bdma.dst.index = 0xffff; }),
		kIn, DLA_FIELD_ADDRESS_INDEX, DLA_REASON_BAD_INDEX);
	add("BiasAddressIndexBeyondTheList", onBase([](Corpus &c) {
		c.op(kFusedSdp).sdp.bias.index = uint16_t(c.task->addresses.size());
	}),
		kFusedSdp, DLA_FIELD_ADDRESS_INDEX, DLA_REASON_BAD_INDEX);
	add("TensorOneByteBeyondItsBuffer",
		onBase([](Corpus &c) { c.op(kRubik).rubik.dst.address.offset = 1; }), kRubik,
		DLA_FIELD_DST, DLA_REASON_OUTSIDE_BUFFER);
	add("TensorStridesBeyondItsBuffer",
		onBase([](Corpus &c) { c.op(kCdp).cdp.dst.stride_c += 1; }), kCdp, DLA_FIELD_DST,
		DLA_REASON_OUTSIDE_BUFFER);
	add("WeightsBeyondTheirBuffer",
		onBase([](Corpus &c) { c.op(kConv).conv.wgt.address.offset = 1; }), kConv,
		DLA_FIELD_WGT, DLA_REASON_OUTSIDE_BUFFER);
	add("EwOperandBeyondItsBuffer",
		onBase([](Corpus &c) { c.op(kFusedSdp).sdp.ew.address.offset = 1; }), kFusedSdp,
		DLA_FIELD_EW, DLA_REASON_OUTSIDE_BUFFER);
	add("BiasVectorBeyondItsBuffer",
		onBase([](Corpus &c) { c.op(kFusedSdp).sdp.bias.offset = 4; }), kFusedSdp,
		DLA_FIELD_BIAS, DLA_REASON_OUTSIDE_BUFFER);
	add("ScaleVectorBeyondItsBuffer",
		onBase([](Corpus &c) { c.op(kFusedSdp).sdp.scale.offset = 8; }), kFusedSdp,
		DLA_FIELD_SCALE, DLA_REASON_OUTSIDE_BUFFER);
	add("SdpLutBeyondItsBuffer", onBase([](Corpus &c) { c.op(kFusedSdp).sdp.lut.offset = 2; }),
		kFusedSdp, DLA_FIELD_LUT, DLA_REASON_OUTSIDE_BUFFER);
	add("CdpLutBeyondItsBuffer", onBase([](Corpus &c) { c.op(kCdp).cdp.lut.offset = 4; }), kCdp,
		DLA_FIELD_LUT, DLA_REASON_OUTSIDE_BUFFER);
	add("BdmaSourceBeyondItsBuffer", onBase([](Corpus &c) { c.op(kOut).bdma.src.offset = 1; }),
		kOut, DLA_FIELD_SRC, DLA_REASON_OUTSIDE_BUFFER);
	add("BdmaDestinationBeyondItsBuffer",
		onBase([](Corpus &c) { c.op(kOut).bdma.dst.offset = 2; }), kOut, DLA_FIELD_DST,
		DLA_REASON_OUTSIDE_BUFFER);
	add("BdmaLineStrideBeyondTheBuffer", onBase([](Corpus &c) {
		vdla_task_bdma &d = c.op(kIn).bdma;
		d.line_bytes /= 2;
		d.lines = 2;
		d.src_line_stride = d.line_bytes;
		d.dst_line_stride = d.line_bytes + 1;
	}),
		kIn, DLA_FIELD_DST, DLA_REASON_OUTSIDE_BUFFER);
	add("TensorOffsetPlusExtentOverflows", onBase([](Corpus &c) {
		c.op(kCdp).cdp.src.address.offset = std::numeric_limits<uint64_t>::max() - 15;
	}),
		kCdp, DLA_FIELD_SRC, DLA_REASON_OVERFLOW);
	add("BdmaOffsetPlusSizeOverflows", onBase([](Corpus &c) {
		c.op(kOut).bdma.src.offset = std::numeric_limits<uint64_t>::max() - 10;
	}),
		kOut, DLA_FIELD_SRC, DLA_REASON_OVERFLOW);
	add("TableOffsetPlusSizeOverflows", onBase([](Corpus &c) {
		c.op(kFusedSdp).sdp.lut.offset = std::numeric_limits<uint64_t>::max() - 100;
	}),
		kFusedSdp, DLA_FIELD_LUT, DLA_REASON_OVERFLOW);

	/* ---- Types, dimensions, strides ---- */
	add("DtypeFive", onBase([](Corpus &c) { c.op(kCdp).cdp.src.dtype = VDLA_DTYPES; }), kCdp,
		DLA_FIELD_DTYPE, DLA_REASON_BAD_VALUE);
	add("DtypeAllOnes", onBase([](Corpus &c) { c.op(kRubik).rubik.src.dtype = 0xffffffffu; }),
		kRubik, DLA_FIELD_DTYPE, DLA_REASON_BAD_VALUE);
	add(
		"CdpOnInt32",
		[](Corpus &c) {
			CdpParams p;
			p.size = 3;
			p.lut = sampleCdpLut();
			c.b.cdp(c.b.alloc(VDLA_DTYPE_INT32, 1, 3, 2, 2),
				c.b.alloc(VDLA_DTYPE_INT32, 1, 3, 2, 2), p);
			c.finish();
		},
		0, DLA_FIELD_DTYPE, DLA_REASON_TYPE);
	add(
		"PdpOnInt32",
		[](Corpus &c) {
			PdpSpec s;
			s.dtype = VDLA_DTYPE_INT32;
			singlePdp(c, s);
		},
		0, DLA_FIELD_DTYPE, DLA_REASON_TYPE);
	add(
		"ConvToInt8",
		[](Corpus &c) {
			ConvSpec s;
			s.dstType = VDLA_DTYPE_INT8;
			singleConv(c, s);
		},
		0, DLA_FIELD_DTYPE, DLA_REASON_TYPE);
	add(
		"ConvMixedInputTypes",
		[](Corpus &c) {
			ConvSpec s;
			s.wgtType = VDLA_DTYPE_INT16;
			singleConv(c, s);
		},
		0, DLA_FIELD_DTYPE, DLA_REASON_TYPE);
	add(
		"ConvOnInt32",
		[](Corpus &c) {
			ConvSpec s;
			s.dtype = s.wgtType = VDLA_DTYPE_INT32;
			singleConv(c, s);
		},
		0, DLA_FIELD_DTYPE, DLA_REASON_TYPE);
	add(
		"RubikChangesType",
		[](Corpus &c) {
			RubikParams p;
			c.b.rubik(c.b.alloc(VDLA_DTYPE_INT16, 1, 2, 3, 3),
				c.b.alloc(VDLA_DTYPE_FP16, 1, 2, 3, 3), p);
			c.finish();
		},
		0, DLA_FIELD_DTYPE, DLA_REASON_TYPE);
	add(
		"SdpFloatInputWithIntegerEwOperand",
		[](Corpus &c) {
			SdpParams p;
			p.ew = VDLA_SDP_EW_OP_ADD;
			Surface y = c.b.alloc(VDLA_DTYPE_INT16, 1, 2, 3, 3);
			c.b.sdp(c.b.alloc(VDLA_DTYPE_FP16, 1, 2, 3, 3),
				c.b.alloc(VDLA_DTYPE_FP16, 1, 2, 3, 3), p, &y);
			c.finish();
		},
		0, DLA_FIELD_DTYPE, DLA_REASON_TYPE);
	/* The float path's clip bounds are compared as numbers, without FP. */
	for (auto [name, lo, hi] : { std::tuple<const char *, float, float>{ "SdpFloatClipMaxBelowMin", 1.5f, -2.0f },
		     { "SdpFloatClipMaxBelowNegativeMin", -1.0f, -2.0f },
		     { "SdpFloatClipNaN", 0.0f, std::nanf("") } }) {
		add(
			name,
			[lo = lo, hi = hi](Corpus &c) {
				SdpParams p;
				p.act = VDLA_SDP_ACT_CLIP;
				p.fClipMin = lo;
				p.fClipMax = hi;
				c.b.sdp(c.b.alloc(VDLA_DTYPE_FP32, 1, 2, 3, 3),
					c.b.alloc(VDLA_DTYPE_FP32, 1, 2, 3, 3), p);
				c.finish();
			},
			0, DLA_FIELD_CLIP, DLA_REASON_OUT_OF_RANGE);
	}
	add(
		"SdpIntegerInputToFloat",
		[](Corpus &c) {
			SdpParams p;
			c.b.sdp(c.b.alloc(VDLA_DTYPE_INT16, 1, 2, 3, 3),
				c.b.alloc(VDLA_DTYPE_FP32, 1, 2, 3, 3), p);
			c.finish();
		},
		0, DLA_FIELD_DTYPE, DLA_REASON_TYPE);
	add("WidthZero", onBase([](Corpus &c) { c.op(kRubik).rubik.src.w = 0; }), kRubik,
		DLA_FIELD_DIMS, DLA_REASON_OUT_OF_RANGE);
	add("BatchZero", onBase([](Corpus &c) { c.op(kSdp).sdp.dst.n = 0; }), kSdp, DLA_FIELD_DIMS,
		DLA_REASON_OUT_OF_RANGE);
	add("FlyingTensorChannelsZero", onBase([](Corpus &c) { c.op(kFusedSdp).sdp.dst.c = 0; }),
		kFusedSdp, DLA_FIELD_DIMS, DLA_REASON_OUT_OF_RANGE);
	add("DimensionAbove65535", onBase([](Corpus &c) { c.op(kCdp).cdp.src.h = 65536; }), kCdp,
		DLA_FIELD_DIMS, DLA_REASON_OUT_OF_RANGE);
	add("TensorOf2To32ElementsOnStrideZero", onBase([](Corpus &c) {
		vdla_task_surface &t = c.op(kCdp).cdp.src;
		t.w = t.h = 65535;
		t.stride_w = t.stride_h = 0;
	}),
		kCdp, DLA_FIELD_DIMS, DLA_REASON_OVERFLOW);
	add(
		"ConvOfMoreThan2To36Macs",
		[](Corpus &c) {
			ConvSpec s;
			singleConv(c, s);
			/* 65535 x 64 x 64 outputs of 4096 taps, in a few bytes: stride 0. */
			vdla_task_conv &k = c.op(0).conv;
			k.src.c = 4096, k.src.h = k.src.w = 64;
			k.wgt.n = 65535, k.wgt.c = 4096, k.wgt.h = k.wgt.w = 1;
			k.dst.c = 65535, k.dst.h = k.dst.w = 64;
			for (vdla_task_surface *t : { &k.src, &k.wgt, &k.dst })
				t->stride_w = t->stride_h = t->stride_c = t->stride_n = 0;
			k.pad_left = k.pad_right = k.pad_top = k.pad_bottom = 0;
		},
		0, DLA_FIELD_DIMS, DLA_REASON_OVERFLOW);
	add("StrideNotAMultipleOfTheElementSize",
		onBase([](Corpus &c) { c.op(kSdp).sdp.dst.stride_h -= 1; }), kSdp,
		DLA_FIELD_STRIDES, DLA_REASON_BAD_VALUE);
	add(
		"ConvOutputWidthWrong",
		[](Corpus &c) {
			ConvSpec s;
			s.ow = 3; /* 6 - 3 + 1 = 4 */
			singleConv(c, s);
		},
		0, DLA_FIELD_DIMS, DLA_REASON_SHAPE);
	add(
		"ConvOutputChannelsNotWeightCount",
		[](Corpus &c) {
			ConvSpec s;
			Surface src = c.b.alloc(s.dtype, 1, s.cin, s.h, s.w);
			Surface wgt = c.b.alloc(s.wgtType, s.cout, s.cin, s.kh, s.kw);
			Surface dst = c.b.alloc(s.dstType, 1, s.cout + 1, 4, 4);
			c.b.conv(src, wgt, dst, s.p);
			c.finish();
		},
		0, DLA_FIELD_DIMS, DLA_REASON_SHAPE);
	add(
		"ConvKernelLargerThanPaddedInput",
		[](Corpus &c) {
			ConvSpec s;
			s.h = s.w = 3;
			s.kh = s.kw = 5;
			s.oh = s.ow = 1;
			singleConv(c, s);
		},
		0, DLA_FIELD_DIMS, DLA_REASON_SHAPE);

	/* ---- Engine parameters ---- */
	add(
		"ConvKernel33",
		[](Corpus &c) {
			ConvSpec s;
			s.cin = s.cout = 1;
			s.h = s.w = 40;
			s.kh = s.kw = 33;
			singleConv(c, s);
		},
		0, DLA_FIELD_KERNEL, DLA_REASON_OUT_OF_RANGE);
	add(
		"ConvStrideZero",
		[](Corpus &c) {
			ConvSpec s;
			s.p.strideX = 0;
			singleConv(c, s);
		},
		0, DLA_FIELD_STRIDE, DLA_REASON_OUT_OF_RANGE);
	add(
		"ConvStride17",
		[](Corpus &c) {
			ConvSpec s;
			s.w = 35;
			s.kw = 1;
			s.p.strideX = 17;
			singleConv(c, s);
		},
		0, DLA_FIELD_STRIDE, DLA_REASON_OUT_OF_RANGE);
	add(
		"ConvDilationZero",
		[](Corpus &c) {
			ConvSpec s;
			s.p.dilY = 0;
			singleConv(c, s);
		},
		0, DLA_FIELD_DILATION, DLA_REASON_OUT_OF_RANGE);
	add(
		"ConvDilation17",
		[](Corpus &c) {
			ConvSpec s;
			s.h = 40;
			s.p.dilY = 17;
			singleConv(c, s);
		},
		0, DLA_FIELD_DILATION, DLA_REASON_OUT_OF_RANGE);
	add(
		"ConvPadding32",
		[](Corpus &c) {
			ConvSpec s;
			s.p.padL = 32;
			singleConv(c, s);
		},
		0, DLA_FIELD_PADDING, DLA_REASON_OUT_OF_RANGE);
	add(
		"ConvGroupsZero",
		[](Corpus &c) {
			ConvSpec s;
			s.p.groups = 0;
			singleConv(c, s);
		},
		0, DLA_FIELD_GROUPS, DLA_REASON_OUT_OF_RANGE);
	add("ConvPadValueOutsideInt8", onBase([](Corpus &c) { c.op(kConv).conv.pad_value = 200; }),
		kConv, DLA_FIELD_PAD_VALUE, DLA_REASON_OUT_OF_RANGE);
	add("SdpBiasModeThree", onBase([](Corpus &c) { c.op(kSdp).sdp.bias_mode = 3; }), kSdp,
		DLA_FIELD_MODE, DLA_REASON_BAD_VALUE);
	add("SdpScaleModeThree", onBase([](Corpus &c) { c.op(kSdp).sdp.scale_mode = 3; }), kSdp,
		DLA_FIELD_MODE, DLA_REASON_BAD_VALUE);
	add("SdpEwOpFour", onBase([](Corpus &c) { c.op(kSdp).sdp.ew_op = 4; }), kSdp,
		DLA_FIELD_MODE, DLA_REASON_BAD_VALUE);
	add("SdpActFour", onBase([](Corpus &c) { c.op(kSdp).sdp.act = 4; }), kSdp, DLA_FIELD_MODE,
		DLA_REASON_BAD_VALUE);
	add("SdpRoundFive", onBase([](Corpus &c) { c.op(kSdp).sdp.round = 5; }), kSdp,
		DLA_FIELD_ROUND, DLA_REASON_BAD_VALUE);
	add("SdpScaleShift64", onBase([](Corpus &c) {
		vdla_task_sdp &s = c.op(kSdp).sdp;
		s.scale_mode = VDLA_SDP_MODE_PER_TENSOR;
		s.scale_mul = 1;
		s.scale_shift = 64;
	}),
		kSdp, DLA_FIELD_SHIFT, DLA_REASON_OUT_OF_RANGE);
	add("SdpClipMaxBelowMin", onBase([](Corpus &c) {
		c.op(kSdp).sdp.clip_min = 10;
		c.op(kSdp).sdp.clip_max = 5;
	}),
		kSdp, DLA_FIELD_CLIP, DLA_REASON_OUT_OF_RANGE);
	add("PdpMethodThree", onBase([](Corpus &c) { c.op(kFusedPdp).pdp.method = 3; }), kFusedPdp,
		DLA_FIELD_MODE, DLA_REASON_BAD_VALUE);
	add(
		"PdpPaddingEqualToKernel",
		[](Corpus &c) {
			PdpSpec s;
			s.p.kw = s.p.kh = 2;
			s.p.sx = s.p.sy = 2;
			s.p.padL = 2;
			singlePdp(c, s);
		},
		0, DLA_FIELD_PADDING, DLA_REASON_OUT_OF_RANGE);
	add(
		"PdpKernel17",
		[](Corpus &c) {
			PdpSpec s;
			s.h = s.w = 20;
			s.p.kw = 17;
			singlePdp(c, s);
		},
		0, DLA_FIELD_KERNEL, DLA_REASON_OUT_OF_RANGE);
	add(
		"PdpStrideZero",
		[](Corpus &c) {
			PdpSpec s;
			s.p.sy = 0;
			singlePdp(c, s);
		},
		0, DLA_FIELD_STRIDE, DLA_REASON_OUT_OF_RANGE);
	add("CdpSizeEven", onBase([](Corpus &c) { c.op(kCdp).cdp.size = 4; }), kCdp, DLA_FIELD_SIZE,
		DLA_REASON_BAD_VALUE);
	add("CdpSize17", onBase([](Corpus &c) { c.op(kCdp).cdp.size = 17; }), kCdp, DLA_FIELD_SIZE,
		DLA_REASON_OUT_OF_RANGE);
	add("CdpLutShift63", onBase([](Corpus &c) { c.op(kCdp).cdp.lut_shift = 63; }), kCdp,
		DLA_FIELD_SHIFT, DLA_REASON_OUT_OF_RANGE);
	add("RubikPermNotAPermutation", onBase([](Corpus &c) { c.op(kRubik).rubik.perm = 0; }),
		kRubik, DLA_FIELD_PERM, DLA_REASON_BAD_VALUE);
	add("RubikPermUnknownBits", onBase([](Corpus &c) { c.op(kRubik).rubik.perm |= 0x100; }),
		kRubik, DLA_FIELD_PERM, DLA_REASON_BAD_VALUE);
	add("RubikModeFour", onBase([](Corpus &c) { c.op(kRubik).rubik.mode = 4; }), kRubik,
		DLA_FIELD_MODE, DLA_REASON_BAD_VALUE);
	add(
		"RubikBlockZero",
		[](Corpus &c) {
			RubikParams p;
			p.mode = VDLA_RUBIK_CONTRACT;
			p.bx = 0;
			p.by = 2;
			c.b.rubik(c.b.alloc(VDLA_DTYPE_INT8, 1, 4, 2, 2),
				c.b.alloc(VDLA_DTYPE_INT8, 1, 4, 2, 2), p);
			c.finish();
		},
		0, DLA_FIELD_BLOCK, DLA_REASON_OUT_OF_RANGE);
	add("BdmaLineBytesZero", onBase([](Corpus &c) { c.op(kOut).bdma.line_bytes = 0; }), kOut,
		DLA_FIELD_LINE_BYTES, DLA_REASON_OUT_OF_RANGE);
	add("BdmaLinesZero", onBase([](Corpus &c) { c.op(kOut).bdma.lines = 0; }), kOut,
		DLA_FIELD_LINES, DLA_REASON_OUT_OF_RANGE);
	add("BdmaSurfacesZero", onBase([](Corpus &c) { c.op(kOut).bdma.surfaces = 0; }), kOut,
		DLA_FIELD_SURFACES, DLA_REASON_OUT_OF_RANGE);
	return v;
}

std::string where(uint32_t op)
{
	return op == H ? std::string("HEADER") : "op " + std::to_string(op);
}

std::string triple(uint32_t op, uint32_t field, uint32_t reason)
{
	const char *f = dla_field_name(field), *r = dla_reason_name(reason);
	return "(" + where(op) + ", " + (f ? f : "?") + " [" + std::to_string(field) + "], "
		+ (r ? r : "?") + " [" + std::to_string(reason) + "])";
}

class MalformedTask : public ::testing::TestWithParam<BadTask>
{
};

TEST_P(MalformedTask, IsRejectedWithItsFieldBeforeTouchingTheDevice)
{
	const BadTask &t = GetParam();
	Corpus c;
	ASSERT_EQ(DLA_SUCCESS, c.fw.registerStatus());
	t.make(c);
	ASSERT_NE(nullptr, c.task);
	DeviceHarness &dev = c.fw.dev();
	uint32_t resets = dev.read(VDLA_REG_RESET_COUNT);
	uint32_t intEnable = dev.read(VDLA_REG_INT_ENABLE);
	c.fw.resetRegCounts();
	c.fw.recordWrites(true);

	dla_task_config config = c.task->config();
	int32_t rc = dla_execute_task(c.fw.engine(), &config);
	EXPECT_EQ(DLA_ERR_INVALID_TASK, rc) << "dla_execute_task returned " << statusName(rc);

	struct dla_task_result r = {};
	int32_t resultStatus = taskResult(c.fw.engine(), &r);
	EXPECT_EQ(DLA_SUCCESS, resultStatus);
	EXPECT_EQ(uint32_t(DLA_ERR_INVALID_TASK), r.status) << statusName(int32_t(r.status));
	EXPECT_EQ(
		triple(t.op, t.field, t.reason), triple(r.error_op, r.error_field, r.error_reason))
		<< "expected the first triple";

	auto writes = c.fw.recordedWrites();
	EXPECT_EQ(0u, c.fw.regWrites()) << "first register write: offset 0x" << std::hex
					<< (writes.empty() ? 0 : writes[0].first) << " value 0x"
					<< (writes.empty() ? 0 : writes[0].second);
	EXPECT_EQ(kAllEnginesIdle, dev.read(VDLA_REG_IDLE));
	EXPECT_EQ(resets, dev.read(VDLA_REG_RESET_COUNT));
	EXPECT_EQ(intEnable, dev.read(VDLA_REG_INT_ENABLE));
	for (unsigned e = 0; e < VDLA_NUM_ENGINES; e++)
		EXPECT_EQ(0u, dev.readEngine(e, VDLA_E_STATUS)) << "engine " << e;
	if (rc == DLA_SUCCESS)
		dla_abort_task(c.fw.engine());
}

INSTANTIATE_TEST_SUITE_P(Corpus, MalformedTask, ::testing::ValuesIn(corpus()),
	[](const ::testing::TestParamInfo<BadTask> &info) { return std::string(info.param.name); });

/* ---- Around the corpus ------------------------------------------------- */

TEST(Validation, CorpusBaseTaskIsValidAndRuns)
{
	Corpus c;
	c.base();
	TaskEnd end = runTask(c.fw, *c.task);
	EXPECT_TRUE(completed(end, kBaseOps));
}

TEST(Validation, CorpusBaseTaskWithOpsAtOffset64IsValid)
{
	Corpus c;
	c.base(64);
	TaskEnd end = runTask(c.fw, *c.task);
	EXPECT_TRUE(completed(end, kBaseOps));
}

TEST(Validation, RejectedTaskLeavesTheEngineReadyForTheNextTask)
{
	Corpus c;
	c.base();
	c.header().magic = 0;
	dla_task_config config = c.task->config();
	ASSERT_EQ(DLA_ERR_INVALID_TASK, dla_execute_task(c.fw.engine(), &config));
	c.header().magic = VDLA_TASK_MAGIC;
	TaskEnd end = runTask(c.fw, *c.task);
	EXPECT_TRUE(completed(end, kBaseOps));
}

TEST(Validation, EveryFieldAndReasonHasAName)
{
	for (uint32_t f = 0; f < DLA_FIELDS; f++) {
		const char *name = dla_field_name(f);
		ASSERT_NE(nullptr, name) << "field " << f;
		EXPECT_NE('\0', name[0]) << "field " << f;
	}
	for (uint32_t r = 0; r < DLA_REASONS; r++) {
		const char *name = dla_reason_name(r);
		ASSERT_NE(nullptr, name) << "reason " << r;
		EXPECT_NE('\0', name[0]) << "reason " << r;
	}
}

} /* namespace */
