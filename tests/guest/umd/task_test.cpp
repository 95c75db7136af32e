/* SPDX-License-Identifier: MIT */
/*
 * TaskBuilder tasks on the real driver and device, their outputs compared
 * with the CPU reference (tests/host/reference).
 */
#include <cerrno>
#include <cstring>

#include <drm/vdla_task.h>

#include "dla_interface.h"
#include "reference_ops.h"
#include "test_data.h"
#include "umd_test.h"

namespace umd_test {

namespace {

using vdla_testdata::Rng;

constexpr uint8_t kCanary = 0xa5;

class TaskTest : public UmdTest
{
protected:
	void SetUp() override
	{
		UmdTest::SetUp();
		if (HasFatalFailure())
			return;
		ctx_ = context();
		ASSERT_TRUE(ctx_);
	}

	/* A canary-filled buffer in the task's address list. */
	uint16_t add(
		vdla::TaskBuilder &b, uint64_t bytes, vdla::BufferUse use = vdla::BufferUse::Read)
	{
		buffers_.push_back(buffer(bytes));
		EXPECT_TRUE(buffers_.back());
		if (!buffers_.back())
			return 0;
		std::memset(buffers_.back()->data(), kCanary, buffers_.back()->size());
		return b.addBuffer(*buffers_.back(), use);
	}

	uint16_t place(vdla::TaskBuilder &b, const vdla_ref::Tensor &t)
	{
		uint16_t index = add(b, tensorBytes(t));
		storeTensor(ptr(index), t);
		return index;
	}

	/* The mapping of the buffer behind address-list entry @index. */
	uint8_t *ptr(uint16_t index) { return buffers_.at(index)->data(); }

	std::unique_ptr<vdla::Context> ctx_;
	std::vector<std::unique_ptr<vdla::Buffer>> buffers_;
};

TEST_F(TaskTest, BdmaCopyMatches)
{
	vdla::TaskBuilder b;
	uint16_t in = add(b, 8192);
	uint16_t out = add(b, 8192, vdla::BufferUse::Write);
	for (size_t i = 0; i < 8192; i++)
		ptr(in)[i] = uint8_t(i * 31 + 7);
	b.copy({ in, 16 }, { out, 64 }, 5000);
	ASSERT_EQ(run(*ctx_, b).error, 0);

	std::vector<uint8_t> expected(8192, kCanary);
	std::memcpy(expected.data() + 64, ptr(in) + 16, 5000);
	EXPECT_TRUE(sameBytes(expected.data(), ptr(out), expected.size()));
}

TEST_F(TaskTest, CopyThroughAnSramBuffer)
{
	vdla::TaskBuilder b;
	uint16_t in = add(b, 8192);
	uint16_t out = add(b, 8192, vdla::BufferUse::Write);
	auto sram = vdla::Buffer::create(*device_, 8192, vdla::Buffer::Placement::Sram);
	ASSERT_TRUE(succeeded(sram));
	uint16_t mid = b.addBuffer(**sram, vdla::BufferUse::Write);
	for (size_t i = 0; i < 8192; i++)
		ptr(in)[i] = uint8_t(i * 29 + 5);
	uint16_t first = b.copy({ in, 0 }, { mid, 100 }, 6000);
	uint16_t second = b.copy({ mid, 100 }, { out, 8 }, 6000);
	b.link(first, second);
	ASSERT_EQ(run(*ctx_, b).error, 0);

	std::vector<uint8_t> expected(8192, kCanary);
	std::memcpy(expected.data() + 8, ptr(in), 6000);
	EXPECT_TRUE(sameBytes(expected.data(), ptr(out), expected.size()));
}

TEST_F(TaskTest, ConvInt8MatchesTheReference)
{
	Rng rng(11);
	vdla_ref::Tensor src = vdla_testdata::randomFull(rng, VDLA_DTYPE_INT8, 1, 8, 10, 9);
	vdla_ref::Tensor wgt = vdla_testdata::randomFull(rng, VDLA_DTYPE_INT8, 5, 8, 3, 3);
	vdla_ref::ConvParams p;
	p.padL = p.padR = p.padT = p.padB = 1;
	p.padValue = 2;
	vdla_ref::Tensor ref = vdla_ref::conv(src, wgt, p);

	vdla::TaskBuilder b;
	uint16_t s = place(b, src), w = place(b, wgt);
	uint16_t d = add(b, tensorBytes(ref), vdla::BufferUse::Write);
	b.conv(convOp(tensorAt(s, 0, src), tensorAt(w, 0, wgt), tensorAt(d, 0, ref), p));
	ASSERT_EQ(run(*ctx_, b).error, 0);
	EXPECT_TRUE(vdla_ref::matches(ref, loadTensor(ptr(d), ref)));
}

TEST_F(TaskTest, SdpMatchesTheReference)
{
	Rng rng(12);
	vdla_ref::Tensor x = vdla_testdata::randomFull(rng, VDLA_DTYPE_INT8, 1, 4, 8, 8);
	vdla_ref::SdpParams p;
	p.bias = VDLA_SDP_MODE_PER_CHANNEL;
	p.biasChannel = { 10, -20, 300, -4000 };
	p.scale = VDLA_SDP_MODE_PER_TENSOR;
	p.scaleMul = 5;
	p.scaleShift = 2;
	p.act = VDLA_SDP_ACT_RELU;
	p.round = VDLA_ROUND_HALF_EVEN;
	vdla_ref::Tensor ref = vdla_ref::sdp(x, nullptr, p, VDLA_DTYPE_INT8);

	vdla::TaskBuilder b;
	uint16_t s = place(b, x);
	uint16_t bias = add(b, 16);
	storeInt32s(ptr(bias), p.biasChannel);
	uint16_t d = add(b, tensorBytes(ref), vdla::BufferUse::Write);
	b.sdp(sdpOp(tensorAt(s, 0, x), tensorAt(d, 0, ref), p, { bias, 0 }));
	ASSERT_EQ(run(*ctx_, b).error, 0);
	EXPECT_TRUE(vdla_ref::matches(ref, loadTensor(ptr(d), ref)));
}

TEST_F(TaskTest, FusedConvSdpMatchesTheReference)
{
	Rng rng(13);
	vdla_testdata::ChainWork w = vdla_testdata::intChainWork(rng);

	vdla::TaskBuilder b;
	uint16_t s = place(b, w.src), wg = place(b, w.wgt);
	uint16_t bias = add(b, w.sdp.biasChannel.size() * 4);
	storeInt32s(ptr(bias), w.sdp.biasChannel);
	uint16_t d = add(b, tensorBytes(w.refSdp), vdla::BufferUse::Write);
	vdla::FusedChain chain = b.fuse(convOp(tensorAt(s, 0, w.src), tensorAt(wg, 0, w.wgt),
						tensorAt(0, 0, w.refConv), w.conv),
		sdpOp({}, tensorAt(d, 0, w.refSdp), w.sdp, { bias, 0 }));
	EXPECT_EQ(chain.tail, chain.head + 1);
	ASSERT_EQ(run(*ctx_, b).error, 0);
	EXPECT_TRUE(vdla_ref::matches(w.refSdp, loadTensor(ptr(d), w.refSdp)));
}

TEST_F(TaskTest, FusedConvSdpPdpMatchesTheReference)
{
	Rng rng(14);
	vdla_testdata::ChainWork w = vdla_testdata::intChainWork(rng);

	vdla::TaskBuilder b;
	uint16_t s = place(b, w.src), wg = place(b, w.wgt);
	uint16_t bias = add(b, w.sdp.biasChannel.size() * 4);
	storeInt32s(ptr(bias), w.sdp.biasChannel);
	uint16_t d = add(b, tensorBytes(w.refPdp), vdla::BufferUse::Write);
	b.fuse(convOp(tensorAt(s, 0, w.src), tensorAt(wg, 0, w.wgt), tensorAt(0, 0, w.refConv),
		       w.conv),
		sdpOp({}, tensorAt(0, 0, w.refSdp), w.sdp, { bias, 0 }),
		pdpOp({}, tensorAt(d, 0, w.refPdp), w.pdp));
	ASSERT_EQ(run(*ctx_, b).error, 0);
	EXPECT_TRUE(vdla_ref::matches(w.refPdp, loadTensor(ptr(d), w.refPdp)));
}

/* BDMA -> CONV -> SDP through memory, linked, SDP waiting for both. */
TEST_F(TaskTest, DependencyChainMatchesTheReference)
{
	Rng rng(15);
	vdla_ref::Tensor src = vdla_testdata::randomFull(rng, VDLA_DTYPE_INT8, 1, 6, 7, 7);
	vdla_ref::Tensor wgt = vdla_testdata::randomFull(rng, VDLA_DTYPE_INT8, 3, 6, 3, 3);
	vdla_ref::ConvParams cp;
	vdla_ref::Tensor refConv = vdla_ref::conv(src, wgt, cp);
	vdla_ref::SdpParams sp;
	sp.scale = VDLA_SDP_MODE_PER_TENSOR;
	sp.scaleMul = 3;
	sp.scaleShift = 9;
	sp.round = VDLA_ROUND_HALF_UP;
	vdla_ref::Tensor ref = vdla_ref::sdp(refConv, nullptr, sp, VDLA_DTYPE_INT8);

	vdla::TaskBuilder b;
	uint16_t in = place(b, src), wg = place(b, wgt);
	uint16_t copy = add(b, tensorBytes(src), vdla::BufferUse::Write);
	uint16_t acc = add(b, tensorBytes(refConv), vdla::BufferUse::Write);
	uint16_t out = add(b, tensorBytes(ref), vdla::BufferUse::Write);
	uint16_t a = b.copy({ in, 0 }, { copy, 0 }, uint32_t(tensorBytes(src)));
	uint16_t c = b.conv(convOp(
		tensorAt(copy, 0, src), tensorAt(wg, 0, wgt), tensorAt(acc, 0, refConv), cp));
	uint16_t s = b.sdp(sdpOp(tensorAt(acc, 0, refConv), tensorAt(out, 0, ref), sp));
	b.link(a, c);
	b.after(s, { a, c });
	ASSERT_EQ(run(*ctx_, b).error, 0);
	EXPECT_TRUE(vdla_ref::matches(ref, loadTensor(ptr(out), ref)));
}

/* One descriptor, submitted again with new data each time. */
TEST_F(TaskTest, BuiltOnceSubmittedManyTimes)
{
	vdla::TaskBuilder b;
	uint16_t in = add(b, 4096);
	uint16_t out = add(b, 4096, vdla::BufferUse::Write);
	b.copy({ in, 0 }, { out, 0 }, 4096);
	auto task = b.build(*device_);
	ASSERT_TRUE(succeeded(task));
	EXPECT_EQ(task->numOps(), 1u);
	EXPECT_EQ(task->descriptorIndex(), 2u);
	auto done = fence();
	ASSERT_TRUE(done);
	for (int round = 0; round < 4; round++) {
		std::memset(ptr(in), round + 1, 4096);
		auto seqno = ctx_->submit(*task, {}, { done.get() });
		ASSERT_TRUE(succeeded(seqno));
		EXPECT_EQ(*seqno, uint64_t(round + 1));
		ASSERT_TRUE(succeeded(done->wait(kJobTimeout)));
		EXPECT_EQ(ptr(out)[4095], round + 1);
	}
}

/* Implicit fencing: a reader of a buffer runs after the job that writes it. */
TEST_F(TaskTest, WriteFlagsOrderJobsOnOneBuffer)
{
	auto other = context(vdla::Priority::High);
	ASSERT_TRUE(other);
	vdla::TaskBuilder first, second;
	auto a = buffer(65536), mid = buffer(65536), c = buffer(65536);
	ASSERT_TRUE(a && mid && c);
	std::memset(a->data(), 0x3c, 65536);
	first.copy({ first.addBuffer(*a), 0 }, { first.addBuffer(*mid, vdla::BufferUse::Write), 0 },
		65536);
	second.copy({ second.addBuffer(*mid), 0 },
		{ second.addBuffer(*c, vdla::BufferUse::Write), 0 }, 65536);
	auto t1 = first.build(*device_), t2 = second.build(*device_);
	ASSERT_TRUE(succeeded(t1));
	ASSERT_TRUE(succeeded(t2));
	auto done = fence();
	ASSERT_TRUE(succeeded(ctx_->submit(*t1)));
	ASSERT_TRUE(succeeded(other->submit(*t2, {}, { done.get() })));
	ASSERT_TRUE(succeeded(done->wait(kJobTimeout)));
	EXPECT_TRUE(succeeded(c->wait(kJobTimeout, true)));
	EXPECT_EQ(c->data()[0], 0x3c);
	EXPECT_EQ(c->data()[65535], 0x3c);
}

TEST_F(TaskTest, RefusedTaskNamesOpFieldAndReason)
{
	vdla::TaskBuilder b;
	uint16_t in = add(b, 4096);
	uint16_t out = add(b, 4096, vdla::BufferUse::Write);
	b.copy({ in, 0 }, { out, 0 }, 64);
	vdla::SdpOp sdp;
	sdp.src = vdla::Tensor::nchw(in, 0, vdla::DataType(9), 1, 1, 1, 16);
	sdp.dst = vdla::Tensor::nchw(out, 0, vdla::DataType::Int8, 1, 1, 1, 16);
	b.sdp(sdp);
	auto task = b.build(*device_);
	ASSERT_TRUE(succeeded(task));

	auto seqno = ctx_->submit(*task);
	ASSERT_FALSE(seqno);
	EXPECT_EQ(seqno.error().code(), EINVAL);
	EXPECT_NE(seqno.error().reason().find("op 1, src.dtype: not a valid value"),
		std::string::npos)
		<< seqno.error().reason();
	EXPECT_EQ(ctx_->taskError().op, 1u);
	EXPECT_EQ(ctx_->taskError().field, uint32_t(DLA_FIELD_DTYPE));
	EXPECT_EQ(ctx_->taskError().operand, uint32_t(DLA_FIELD_SRC));
	EXPECT_EQ(ctx_->taskError().reason, uint32_t(DLA_REASON_BAD_VALUE));

	/* A refusal queues nothing and does not ban the context. */
	auto status = ctx_->query();
	ASSERT_TRUE(succeeded(status));
	EXPECT_FALSE(status->banned);
	EXPECT_EQ(status->jobsSubmitted, 0u);
}

TEST_F(TaskTest, TensorBeyondItsBufferIsNamed)
{
	vdla::TaskBuilder b;
	uint16_t in = add(b, 4096);
	uint16_t out = add(b, 8192, vdla::BufferUse::Write);
	vdla::SdpOp sdp;
	sdp.src = vdla::Tensor::nchw(in, 0, vdla::DataType::Int8, 1, 2, 64, 64);
	sdp.dst = vdla::Tensor::nchw(out, 0, vdla::DataType::Int8, 1, 2, 64, 64);
	b.sdp(sdp);
	auto task = b.build(*device_);
	ASSERT_TRUE(succeeded(task));
	auto seqno = ctx_->submit(*task);
	ASSERT_FALSE(seqno);
	EXPECT_EQ(seqno.error().code(), EINVAL);
	EXPECT_NE(seqno.error().reason().find("op 0, src: reaches beyond its buffer"),
		std::string::npos)
		<< seqno.error().reason();
}

TEST_F(TaskTest, BuilderMistakeFailsTheBuild)
{
	vdla::TaskBuilder b;
	b.copy({ 0, 0 }, { 0, 0 }, 1);
	b.link(0, 0);
	auto task = b.build(*device_);
	ASSERT_FALSE(task);
	EXPECT_EQ(task.error().code(), EINVAL);
	EXPECT_NE(task.error().reason().find("link 0 -> 0"), std::string::npos);
}

TEST_F(TaskTest, BufferOfAnotherDeviceFailsTheBuild)
{
	auto other = openAgain();
	ASSERT_TRUE(other);
	auto foreign = buffer(4096, other.get());
	ASSERT_TRUE(foreign);
	vdla::TaskBuilder b;
	uint16_t in = add(b, 4096);
	uint16_t out = b.addBuffer(*foreign, vdla::BufferUse::Write);
	b.copy({ in, 0 }, { out, 0 }, 64);
	auto task = b.build(*device_);
	ASSERT_FALSE(task);
	EXPECT_EQ(task.error().code(), EINVAL);
	EXPECT_NE(task.error().reason().find("entry 1 is a buffer of another Device"),
		std::string::npos)
		<< task.error().reason();
}

} /* namespace */

} /* namespace umd_test */
