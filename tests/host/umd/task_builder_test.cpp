/* SPDX-License-Identifier: MIT */
/*
 * libvdla's TaskBuilder on the host, without a kernel: the descriptors it
 * encodes run through the real firmware core (vdla_firmware) on the device
 * core (FwDevice of tests/host/firmware), and the outputs are compared with
 * the CPU reference. Refused tasks name their field as the kernel would.
 */
#include <cstring>

#include <gtest/gtest.h>

#include <drm/vdla_task.h>
#include <vdla/task_builder.h>

#include "reference_ops.h"
#include "test_data.h"
#include "test_port.h"

namespace {

using namespace umd_test;
using vdla_fwtest::FwDevice;
using vdla_fwtest::TaskEnd;
using vdla_testdata::Rng;

constexpr uint8_t kCanary = 0xa5;

/* A TaskBuilder whose address-list entries are buffers in a FwDevice's memory. */
class HostTask
{
public:
	vdla::TaskBuilder builder;

	/* A canary-filled buffer of @bytes; its address-list index. */
	uint16_t buffer(uint64_t bytes, vdla::BufferUse use = vdla::BufferUse::Read)
	{
		uint64_t addr = dev_.dev().alloc(bytes);
		std::memset(dev_.dev().guest(addr), kCanary, bytes);
		entries_.push_back({ addr, bytes });
		/* Handles mean nothing here: the port resolves indices to entries_. */
		uint16_t index = builder.addHandle(uint32_t(entries_.size()), use);
		EXPECT_EQ(index, entries_.size() - 1);
		return index;
	}

	uint16_t place(const vdla_ref::Tensor &t)
	{
		uint16_t index = buffer(tensorBytes(t));
		storeTensor(ptr(index), t);
		return index;
	}

	uint8_t *ptr(uint16_t index) { return dev_.dev().guest(entries_.at(index).devAddr); }
	vdla_ref::Tensor load(uint16_t index, const vdla_ref::Tensor &shape)
	{
		return loadTensor(ptr(index), shape);
	}

	/* Runs encode() with the descriptor appended to the address list. */
	TaskEnd run()
	{
		vdla_fwtest::TestTask task = prepare();
		return vdla_fwtest::runTask(dev_, task);
	}

	/* dla_check_task of encode(). */
	dla_task_result check()
	{
		task_ = prepare();
		dla_task_config config = task_.config();
		dla_task_result result = {};
		dla_check_task(dev_.engine(), &config, &result);
		return result;
	}

	/* The descriptor as the builder encoded it. */
	std::vector<uint8_t> encoded() const { return builder.encode(); }

private:
	vdla_fwtest::TestTask prepare()
	{
		std::vector<uint8_t> bytes = builder.encode();
		uint64_t addr = dev_.dev().alloc(bytes.size());
		std::memcpy(dev_.dev().guest(addr), bytes.data(), bytes.size());
		vdla_fwtest::TestTask task;
		task.addresses = entries_;
		task.addresses.push_back({ addr, bytes.size() });
		task.descriptor = uint16_t(entries_.size());
		task.stateOps = builder.numOps();
		return task;
	}

	FwDevice dev_;
	std::vector<vdla_fwtest::AddressEntry> entries_;
	vdla_fwtest::TestTask task_;
};

const vdla_task_op &opAt(const std::vector<uint8_t> &bytes, uint32_t index)
{
	return *reinterpret_cast<const vdla_task_op *>(
		bytes.data() + sizeof(vdla_task_header) + index * sizeof(vdla_task_op));
}

TEST(UmdTaskNames, MatchTheFirmware)
{
	for (uint32_t f = 0; f <= DLA_FIELDS; f++)
		EXPECT_STREQ(vdla::taskFieldName(f), dla_field_name(f)) << "field " << f;
	for (uint32_t r = 0; r <= DLA_REASONS; r++)
		EXPECT_STREQ(vdla::taskReasonName(r), dla_reason_name(r)) << "reason " << r;
}

TEST(UmdTaskBuilder, EnumsMatchTheHardware)
{
	EXPECT_EQ(uint32_t(vdla::DataType::Fp32), uint32_t(VDLA_DTYPE_FP32));
	EXPECT_EQ(uint32_t(vdla::DataType::Fp16), uint32_t(VDLA_DTYPE_FP16));
	EXPECT_EQ(uint32_t(vdla::Round::HalfEven), uint32_t(VDLA_ROUND_HALF_EVEN));
	EXPECT_EQ(uint32_t(vdla::SdpActivation::Lut), uint32_t(VDLA_SDP_ACT_LUT));
	EXPECT_EQ(uint32_t(vdla::SdpEwOp::Max), uint32_t(VDLA_SDP_EW_OP_MAX));
	EXPECT_EQ(uint32_t(vdla::SdpMode::PerChannel), uint32_t(VDLA_SDP_MODE_PER_CHANNEL));
	EXPECT_EQ(uint32_t(vdla::PoolMethod::Min), uint32_t(VDLA_PDP_MIN));
	EXPECT_EQ(uint32_t(vdla::RubikMode::Split), uint32_t(VDLA_RUBIK_SPLIT));
	EXPECT_EQ(uint32_t(vdla::Dim::N), uint32_t(VDLA_DIM_N));
	EXPECT_EQ(uint32_t(vdla::Event::Enabled), uint32_t(VDLA_EVENT_OP_ENABLED));
}

TEST(UmdTaskBuilder, EmptyTaskCompletes)
{
	HostTask t;
	std::vector<uint8_t> bytes = t.encoded();
	ASSERT_EQ(bytes.size(), sizeof(vdla_task_header));
	/* COMPLETED on return: no interrupt follows, so check instead of running. */
	dla_task_result r = t.check();
	EXPECT_EQ(r.status, uint32_t(DLA_SUCCESS));
}

TEST(UmdTaskBuilder, CopyMatchesTheReference)
{
	HostTask t;
	Rng rng(1);
	std::vector<uint8_t> src(3000);
	for (auto &b : src)
		b = uint8_t(rng.uniform(0, 255));
	uint16_t in = t.buffer(src.size());
	uint16_t out = t.buffer(4096, vdla::BufferUse::Write);
	std::memcpy(t.ptr(in), src.data(), src.size());
	t.builder.copy({ in, 0 }, { out, 100 }, uint32_t(src.size()));

	TaskEnd end = t.run();
	ASSERT_TRUE(vdla_fwtest::completed(end, 1)) << vdla_fwtest::describe(end);
	std::vector<uint8_t> expected(4096, kCanary);
	std::memcpy(expected.data() + 100, src.data(), src.size());
	EXPECT_TRUE(sameBytes(expected.data(), t.ptr(out), expected.size()));
}

TEST(UmdTaskBuilder, StridedCopyMatchesTheReference)
{
	HostTask t;
	uint16_t in = t.buffer(1024);
	uint16_t out = t.buffer(1024, vdla::BufferUse::Write);
	for (int i = 0; i < 1024; i++)
		t.ptr(in)[i] = uint8_t(i);
	vdla::CopyOp op;
	op.src = { in, 0 };
	op.dst = { out, 0 };
	op.lineBytes = 8;
	op.lines = 4;
	op.surfaces = 2;
	op.srcLineStride = 32;
	op.srcSurfaceStride = 256;
	t.builder.copy(op);

	TaskEnd end = t.run();
	ASSERT_TRUE(vdla_fwtest::completed(end, 1)) << vdla_fwtest::describe(end);
	std::vector<uint8_t> expected(1024, kCanary);
	for (int s = 0; s < 2; s++)
		for (int l = 0; l < 4; l++)
			for (int b = 0; b < 8; b++)
				expected[s * 32 + l * 8 + b] = uint8_t(s * 256 + l * 32 + b);
	EXPECT_TRUE(sameBytes(expected.data(), t.ptr(out), expected.size()));
}

TEST(UmdTaskBuilder, ConvInt8MatchesTheReference)
{
	HostTask t;
	Rng rng(2);
	vdla_ref::Tensor src = vdla_testdata::randomFull(rng, VDLA_DTYPE_INT8, 1, 8, 9, 7);
	vdla_ref::Tensor wgt = vdla_testdata::randomFull(rng, VDLA_DTYPE_INT8, 4, 8, 3, 3);
	vdla_ref::ConvParams p;
	p.padL = p.padT = 1;
	p.strideX = 2;
	p.padValue = -3;
	vdla_ref::Tensor ref = vdla_ref::conv(src, wgt, p);

	uint16_t s = t.place(src), w = t.place(wgt);
	uint16_t d = t.buffer(tensorBytes(ref), vdla::BufferUse::Write);
	t.builder.conv(convOp(tensorAt(s, 0, src), tensorAt(w, 0, wgt), tensorAt(d, 0, ref), p));

	TaskEnd end = t.run();
	ASSERT_TRUE(vdla_fwtest::completed(end, 1)) << vdla_fwtest::describe(end);
	EXPECT_TRUE(vdla_ref::matches(ref, t.load(d, ref)));
}

TEST(UmdTaskBuilder, SdpMatchesTheReference)
{
	HostTask t;
	Rng rng(3);
	vdla_ref::Tensor x = vdla_testdata::randomFull(rng, VDLA_DTYPE_INT16, 1, 3, 5, 11);
	vdla_ref::SdpParams p;
	p.bias = VDLA_SDP_MODE_PER_CHANNEL;
	p.biasChannel = { 100, -2000, 30000 };
	p.scale = VDLA_SDP_MODE_PER_TENSOR;
	p.scaleMul = -7;
	p.scaleShift = 3;
	p.act = VDLA_SDP_ACT_CLIP;
	p.clipMin = -50;
	p.clipMax = 90;
	p.round = VDLA_ROUND_HALF_AWAY;
	p.outOffset = 5;
	vdla_ref::Tensor ref = vdla_ref::sdp(x, nullptr, p, VDLA_DTYPE_INT8);

	uint16_t s = t.place(x);
	uint16_t bias = t.buffer(16);
	storeInt32s(t.ptr(bias), p.biasChannel);
	uint16_t d = t.buffer(tensorBytes(ref), vdla::BufferUse::Write);
	t.builder.sdp(sdpOp(tensorAt(s, 0, x), tensorAt(d, 0, ref), p, { bias, 0 }));

	TaskEnd end = t.run();
	ASSERT_TRUE(vdla_fwtest::completed(end, 1)) << vdla_fwtest::describe(end);
	EXPECT_TRUE(vdla_ref::matches(ref, t.load(d, ref)));
}

TEST(UmdTaskBuilder, PdpMatchesTheReference)
{
	HostTask t;
	Rng rng(4);
	vdla_ref::Tensor x = vdla_testdata::randomFull(rng, VDLA_DTYPE_INT8, 1, 4, 9, 9);
	vdla_ref::PdpParams p;
	p.method = VDLA_PDP_AVG;
	p.kw = p.kh = 3;
	p.sx = p.sy = 2;
	p.padL = p.padT = 1;
	p.includePad = true;
	p.round = VDLA_ROUND_HALF_EVEN;
	vdla_ref::Tensor ref = vdla_ref::pdp(x, p);

	uint16_t s = t.place(x);
	uint16_t d = t.buffer(tensorBytes(ref), vdla::BufferUse::Write);
	t.builder.pdp(pdpOp(tensorAt(s, 0, x), tensorAt(d, 0, ref), p));

	TaskEnd end = t.run();
	ASSERT_TRUE(vdla_fwtest::completed(end, 1)) << vdla_fwtest::describe(end);
	EXPECT_TRUE(vdla_ref::matches(ref, t.load(d, ref)));
}

TEST(UmdTaskBuilder, RubikPermuteMatchesTheReference)
{
	HostTask t;
	Rng rng(5);
	vdla_ref::Tensor x = vdla_testdata::randomFull(rng, VDLA_DTYPE_INT16, 1, 3, 4, 5);
	vdla_ref::RubikParams p;
	p.perm[0] = VDLA_DIM_C;
	p.perm[1] = VDLA_DIM_W;
	p.perm[2] = VDLA_DIM_H;
	vdla_ref::Tensor ref = vdla_ref::rubik(x, p);

	uint16_t s = t.place(x);
	uint16_t d = t.buffer(tensorBytes(ref), vdla::BufferUse::Write);
	vdla::RubikOp op;
	op.src = tensorAt(s, 0, x);
	op.dst = tensorAt(d, 0, ref);
	op.perm = { vdla::Dim::C, vdla::Dim::W, vdla::Dim::H, vdla::Dim::N };
	t.builder.rubik(op);

	TaskEnd end = t.run();
	ASSERT_TRUE(vdla_fwtest::completed(end, 1)) << vdla_fwtest::describe(end);
	EXPECT_TRUE(vdla_ref::matches(ref, t.load(d, ref)));
}

TEST(UmdTaskBuilder, CdpMatchesTheReference)
{
	HostTask t;
	Rng rng(6);
	vdla_ref::Tensor x = vdla_testdata::randomInt(rng, VDLA_DTYPE_INT8, 1, 7, 3, 4, -40, 40);
	vdla_ref::CdpParams p;
	p.size = 3;
	p.lut = vdla_testdata::sampleCdpLut();
	p.lutShift = 4;
	p.outShift = 8;
	vdla_ref::Tensor ref = vdla_ref::cdp(x, p);

	uint16_t s = t.place(x);
	uint16_t lut = t.buffer(p.lut.size() * 4);
	storeInt32s(t.ptr(lut), p.lut);
	uint16_t d = t.buffer(tensorBytes(ref), vdla::BufferUse::Write);
	vdla::CdpOp op;
	op.src = tensorAt(s, 0, x);
	op.dst = tensorAt(d, 0, ref);
	op.size = p.size;
	op.lut = { lut, 0 };
	op.lutShift = p.lutShift;
	op.outShift = p.outShift;
	t.builder.cdp(op);

	TaskEnd end = t.run();
	ASSERT_TRUE(vdla_fwtest::completed(end, 1)) << vdla_fwtest::describe(end);
	EXPECT_TRUE(vdla_ref::matches(ref, t.load(d, ref)));
}

TEST(UmdTaskBuilder, FusedConvSdpPdpMatchesTheReference)
{
	HostTask t;
	Rng rng(7);
	vdla_testdata::ChainWork w = vdla_testdata::intChainWork(rng);

	uint16_t s = t.place(w.src), wg = t.place(w.wgt);
	uint16_t bias = t.buffer(w.sdp.biasChannel.size() * 4);
	storeInt32s(t.ptr(bias), w.sdp.biasChannel);
	uint16_t d = t.buffer(tensorBytes(w.refPdp), vdla::BufferUse::Write);

	/* The flying tensors: CONV's INT32 accumulators, SDP's INT8 output. */
	vdla::ConvOp conv = convOp(
		tensorAt(s, 0, w.src), tensorAt(wg, 0, w.wgt), tensorAt(0, 0, w.refConv), w.conv);
	vdla::SdpOp sdp = sdpOp({}, tensorAt(0, 0, w.refSdp), w.sdp, { bias, 0 });
	vdla::PdpOp pdp = pdpOp({}, tensorAt(d, 0, w.refPdp), w.pdp);
	vdla::FusedChain chain = t.builder.fuse(conv, sdp, pdp);
	EXPECT_EQ(chain.head, 0);
	EXPECT_EQ(chain.tail, 2);

	std::vector<uint8_t> bytes = t.encoded();
	EXPECT_EQ(opAt(bytes, 0).fused_parent, VDLA_NO_OP);
	EXPECT_EQ(opAt(bytes, 1).fused_parent, 0);
	EXPECT_EQ(opAt(bytes, 2).fused_parent, 1);
	EXPECT_EQ(opAt(bytes, 1).sdp.fly, VDLA_TASK_FLY_IN | VDLA_TASK_FLY_OUT);

	TaskEnd end = t.run();
	ASSERT_TRUE(vdla_fwtest::completed(end, 3)) << vdla_fwtest::describe(end);
	EXPECT_TRUE(vdla_ref::matches(w.refPdp, t.load(d, w.refPdp)));
}

TEST(UmdTaskBuilder, FusedConvSdpMatchesTheReference)
{
	HostTask t;
	Rng rng(8);
	vdla_testdata::ChainWork w = vdla_testdata::intChainWork(rng);

	uint16_t s = t.place(w.src), wg = t.place(w.wgt);
	uint16_t bias = t.buffer(w.sdp.biasChannel.size() * 4);
	storeInt32s(t.ptr(bias), w.sdp.biasChannel);
	uint16_t d = t.buffer(tensorBytes(w.refSdp), vdla::BufferUse::Write);
	t.builder.fuse(convOp(tensorAt(s, 0, w.src), tensorAt(wg, 0, w.wgt),
			       tensorAt(0, 0, w.refConv), w.conv),
		sdpOp({}, tensorAt(d, 0, w.refSdp), w.sdp, { bias, 0 }));

	TaskEnd end = t.run();
	ASSERT_TRUE(vdla_fwtest::completed(end, 2)) << vdla_fwtest::describe(end);
	EXPECT_TRUE(vdla_ref::matches(w.refSdp, t.load(d, w.refSdp)));
}

/* BDMA -> CONV -> SDP through memory, each op waiting for the one before. */
TEST(UmdTaskBuilder, DependencyChainMatchesTheReference)
{
	HostTask t;
	Rng rng(9);
	vdla_ref::Tensor src = vdla_testdata::randomFull(rng, VDLA_DTYPE_INT8, 1, 4, 6, 6);
	vdla_ref::Tensor wgt = vdla_testdata::randomFull(rng, VDLA_DTYPE_INT8, 2, 4, 1, 1);
	vdla_ref::ConvParams cp;
	vdla_ref::Tensor refConv = vdla_ref::conv(src, wgt, cp);
	vdla_ref::SdpParams sp;
	sp.scale = VDLA_SDP_MODE_PER_TENSOR;
	sp.scaleMul = 1;
	sp.scaleShift = 6;
	sp.act = VDLA_SDP_ACT_RELU;
	vdla_ref::Tensor ref = vdla_ref::sdp(refConv, nullptr, sp, VDLA_DTYPE_INT8);

	uint16_t in = t.place(src), wg = t.place(wgt);
	uint16_t copy = t.buffer(tensorBytes(src), vdla::BufferUse::Write);
	uint16_t acc = t.buffer(tensorBytes(refConv), vdla::BufferUse::Write);
	uint16_t out = t.buffer(tensorBytes(ref), vdla::BufferUse::Write);
	uint16_t a = t.builder.copy({ in, 0 }, { copy, 0 }, uint32_t(tensorBytes(src)));
	uint16_t b = t.builder.conv(convOp(
		tensorAt(copy, 0, src), tensorAt(wg, 0, wgt), tensorAt(acc, 0, refConv), cp));
	uint16_t c = t.builder.sdp(sdpOp(tensorAt(acc, 0, refConv), tensorAt(out, 0, ref), sp));
	t.builder.link(a, b);
	t.builder.after(c, { a, b });
	EXPECT_FALSE(t.builder.error());

	std::vector<uint8_t> bytes = t.encoded();
	EXPECT_EQ(opAt(bytes, b).dependency_count, 1);
	EXPECT_EQ(opAt(bytes, c).dependency_count, 2);
	EXPECT_EQ(opAt(bytes, a).consumers[0].index, b);
	EXPECT_EQ(opAt(bytes, a).consumers[1].index, c);
	EXPECT_EQ(opAt(bytes, a).consumers[2].index, VDLA_NO_OP);

	TaskEnd end = t.run();
	ASSERT_TRUE(vdla_fwtest::completed(end, 3)) << vdla_fwtest::describe(end);
	EXPECT_TRUE(vdla_ref::matches(ref, t.load(out, ref)));
}

TEST(UmdTaskBuilder, BackwardLinkIsAnError)
{
	vdla::TaskBuilder b;
	b.copy({ 0, 0 }, { 0, 64 }, 8);
	b.copy({ 0, 0 }, { 0, 128 }, 8);
	b.link(1, 0);
	ASSERT_TRUE(b.error());
	EXPECT_EQ(b.error()->code(), EINVAL);
	EXPECT_NE(b.error()->reason().find("later operation"), std::string::npos);
}

TEST(UmdTaskBuilder, LinkToMissingOpIsAnError)
{
	vdla::TaskBuilder b;
	b.copy({ 0, 0 }, { 0, 64 }, 8);
	b.link(0, 1);
	ASSERT_TRUE(b.error());
	EXPECT_EQ(b.error()->code(), EINVAL);
}

TEST(UmdTaskBuilder, NinthConsumerIsAnError)
{
	vdla::TaskBuilder b;
	for (int i = 0; i < 10; i++)
		b.copy({ 0, 0 }, { 0, 64 }, 8);
	for (uint16_t i = 1; i <= 8; i++)
		b.link(0, i);
	EXPECT_FALSE(b.error());
	b.link(0, 9);
	ASSERT_TRUE(b.error());
	EXPECT_EQ(b.error()->code(), E2BIG);
	/* The refused link is not counted. */
	EXPECT_EQ(opAt(b.encode(), 9).dependency_count, 0);
}

/* The firmware would refuse (or never start) a chain waiting for its own completion. */
TEST(UmdTaskBuilder, CompletedLinkWithinAFusedChainIsAnError)
{
	const struct {
		uint16_t producer, consumer;
	} links[] = { { 0, 1 }, { 0, 2 }, { 1, 2 } };
	for (const auto &l : links) {
		SCOPED_TRACE(
			"link " + std::to_string(l.producer) + " -> " + std::to_string(l.consumer));
		vdla::TaskBuilder b;
		b.fuse(vdla::ConvOp{}, vdla::SdpOp{}, vdla::PdpOp{});
		b.link(l.producer, l.consumer, vdla::Event::Completed);
		ASSERT_TRUE(b.error());
		EXPECT_EQ(b.error()->code(), EINVAL);
		EXPECT_NE(b.error()->reason().find("one fused chain"), std::string::npos)
			<< b.error()->reason();
		EXPECT_EQ(opAt(b.encode(), l.consumer).dependency_count, 0);
	}
}

TEST(UmdTaskBuilder, EnabledLinkWithinAFusedChainIsAccepted)
{
	vdla::TaskBuilder b;
	vdla::FusedChain chain = b.fuse(vdla::ConvOp{}, vdla::SdpOp{});
	b.link(chain.head, chain.tail, vdla::Event::Enabled);
	EXPECT_FALSE(b.error());
}

TEST(UmdTaskBuilder, CompletedLinkOutOfAFusedChainIsAccepted)
{
	vdla::TaskBuilder b;
	vdla::FusedChain chain = b.fuse(vdla::ConvOp{}, vdla::SdpOp{});
	uint16_t next = b.copy({ 0, 0 }, { 0, 64 }, 8);
	b.link(chain.head, next);
	b.link(chain.tail, next);
	EXPECT_FALSE(b.error());
}

TEST(UmdTaskBuilder, AddressListIsBounded)
{
	vdla::TaskBuilder b;
	for (uint32_t i = 0; i < vdla::TaskBuilder::kMaxAddresses; i++)
		b.addHandle(i + 1);
	EXPECT_FALSE(b.error());
	EXPECT_EQ(b.addHandle(5000), vdla::Location::kNone);
	ASSERT_TRUE(b.error());
	EXPECT_EQ(b.error()->code(), E2BIG);
}

TEST(UmdTaskBuilder, WriteFlagsReachTheAddressList)
{
	vdla::TaskBuilder b;
	b.addHandle(7, vdla::BufferUse::Read, 64);
	b.addHandle(9, vdla::BufferUse::Write);
	ASSERT_EQ(b.addresses().size(), 2u);
	EXPECT_EQ(b.addresses()[0].handle, 7u);
	EXPECT_FALSE(b.addresses()[0].write);
	EXPECT_EQ(b.addresses()[0].offset, 64u);
	EXPECT_TRUE(b.addresses()[1].write);
}

TEST(UmdTaskBuilder, RefusedTaskNamesOpFieldAndReason)
{
	HostTask t;
	uint16_t in = t.buffer(4096);
	uint16_t out = t.buffer(4096, vdla::BufferUse::Write);
	t.builder.copy({ in, 0 }, { out, 0 }, 64);
	vdla::SdpOp sdp;
	sdp.src = vdla::Tensor::nchw(in, 0, vdla::DataType(9), 1, 1, 1, 16);
	sdp.dst = vdla::Tensor::nchw(out, 0, vdla::DataType::Int8, 1, 1, 1, 16);
	t.builder.sdp(sdp);

	dla_task_result r = t.check();
	EXPECT_EQ(r.status, uint32_t(DLA_ERR_INVALID_TASK));
	vdla::TaskError e{ r.error_op, r.error_field, r.error_reason, r.error_operand };
	EXPECT_EQ(e.toString(), "op 1, src.dtype: not a valid value");
}

TEST(UmdTaskBuilder, TensorBeyondItsBufferIsNamed)
{
	HostTask t;
	uint16_t in = t.buffer(64);
	uint16_t out = t.buffer(4096, vdla::BufferUse::Write);
	vdla::SdpOp sdp;
	sdp.src = vdla::Tensor::nchw(in, 0, vdla::DataType::Int8, 1, 1, 1, 65);
	sdp.dst = vdla::Tensor::nchw(out, 0, vdla::DataType::Int8, 1, 1, 1, 65);
	t.builder.sdp(sdp);

	dla_task_result r = t.check();
	vdla::TaskError e{ r.error_op, r.error_field, r.error_reason, r.error_operand };
	EXPECT_EQ(e.toString(), "op 0, src: reaches beyond its buffer");
}

TEST(UmdTaskError, HeaderErrorsSayHeader)
{
	vdla::TaskError e{ vdla::TaskError::kHeader, DLA_FIELD_MAGIC, DLA_REASON_BAD_VALUE, 0 };
	EXPECT_EQ(e.toString(), "header, magic: not a valid value");
}

TEST(UmdTensor, PackedStridesAndBytes)
{
	vdla::Tensor t = vdla::Tensor::nchw(3, 8, vdla::DataType::Fp16, 2, 3, 4, 5);
	EXPECT_EQ(t.strideW, 2u);
	EXPECT_EQ(t.strideH, 10u);
	EXPECT_EQ(t.strideC, 40u);
	EXPECT_EQ(t.strideN, 120u);
	EXPECT_EQ(t.bytes(), 240u);
}

} /* namespace */
