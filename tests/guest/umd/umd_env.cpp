/* SPDX-License-Identifier: MIT */
#include "umd_test.h"

namespace umd_test {

vdla::TaskBuilder copyTask(
	const vdla::Buffer &src, const vdla::Buffer &dst, vdla::BufferUse dstUse, uint32_t bytes)
{
	vdla::TaskBuilder b;
	uint16_t s = b.addBuffer(src);
	uint16_t d = b.addBuffer(dst, dstUse);
	b.copy({ s, 0 }, { d, 0 }, bytes);
	return b;
}

void UmdTest::SetUp()
{
	auto nodes = vdla::Device::enumerate();
	ASSERT_TRUE(succeeded(nodes));
	ASSERT_FALSE(nodes->empty()) << "no vdla node";
	node_ = nodes->front();
	device_ = openAgain();
	ASSERT_TRUE(device_);
}

void UmdTest::needTwoDevices()
{
	auto nodes = vdla::Device::enumerate();
	ASSERT_TRUE(succeeded(nodes));
	ASSERT_GE(nodes->size(), 2u) << "the guest runs with two vDLAs";
	nodes_ = *nodes;
}

std::unique_ptr<vdla::Device> UmdTest::openAgain()
{
	auto device = vdla::Device::open(node_);
	EXPECT_TRUE(succeeded(device));
	return device ? std::move(*device) : nullptr;
}

std::unique_ptr<vdla::Buffer> UmdTest::buffer(uint64_t size, vdla::Device *device)
{
	auto b = vdla::Buffer::create(device ? *device : *device_, size);
	EXPECT_TRUE(succeeded(b));
	if (!b)
		return nullptr;
	auto map = (*b)->map();
	EXPECT_TRUE(succeeded(map));
	return std::move(*b);
}

std::unique_ptr<vdla::Fence> UmdTest::fence(vdla::Fence::Type type)
{
	auto f = vdla::Fence::create(*device_, type);
	EXPECT_TRUE(succeeded(f));
	return f ? std::move(*f) : nullptr;
}

std::unique_ptr<vdla::Context> UmdTest::context(vdla::Priority priority)
{
	auto c = vdla::Context::create(*device_, priority);
	EXPECT_TRUE(succeeded(c));
	return c ? std::move(*c) : nullptr;
}

vdla::FenceStatus UmdTest::run(vdla::Context &ctx, const vdla::TaskBuilder &builder)
{
	vdla::FenceStatus failed;
	failed.error = -1;
	auto task = builder.build(*device_);
	EXPECT_TRUE(succeeded(task));
	auto done = fence();
	if (!task || !done)
		return failed;
	auto seqno = ctx.submit(*task, {}, { done.get() });
	EXPECT_TRUE(succeeded(seqno));
	if (!seqno)
		return failed;
	auto waited = done->wait(kJobTimeout);
	EXPECT_TRUE(succeeded(waited));
	auto status = done->status();
	EXPECT_TRUE(succeeded(status));
	return status ? *status : failed;
}

} /* namespace umd_test */
