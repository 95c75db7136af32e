/* SPDX-License-Identifier: MIT */
/*
 * OpenVX graphs on libvdla's buffers and fences (<vdla/vx_interop.h>), as a
 * stream consumer uses them: a tensor whose memory is a vdla::Buffer is read
 * where the application wrote it, by the DLA and the CPU, after the buffer
 * object is gone too; a read-only buffer makes a tensor nothing can write;
 * a run waits for the fences set on its graph, on the device for DLA work
 * and on the CPU for CPU work, and fails on a fence that signals an error.
 *
 * The fences come from a job on the second vDLA that touches none of the
 * graph's buffers: no implicit dependency orders the graph after it, only
 * the fence does.
 */
#include "vx_guest.h"

#include <vdla/context.h>
#include <vdla/fence.h>
#include <vdla/task_builder.h>
#include <vdla/unique_fd.h>
#include <vdla/vx_interop.h>

#include <algorithm>
#include <cstring>
#include <optional>

using namespace vx_guest;

namespace {

const TensorSpec kSpec{ { 8, 6, 2 }, VX_TYPE_INT16, 8 };
constexpr vx_size kElements = 8 * 6 * 2;
/* How long the gate job's copy is held back on the second vDLA. */
constexpr unsigned kGateDelayUs = 400000;

/* Raw values -256..255 in a fixed pattern, negated when @negate. */
std::vector<int16_t> pattern(bool negate = false)
{
	std::vector<int16_t> values(kElements);
	for (vx_size i = 0; i < kElements; i++)
		values[i] = int16_t((int(i * 37) % 512 - 256) * (negate ? -1 : 1));
	return values;
}

std::vector<double> asDoubles(const std::vector<int16_t> &values)
{
	return std::vector<double>(values.begin(), values.end());
}

class BufferTensor : public VxTest
{
protected:
	void SetUp() override
	{
		VxTest::SetUp();
		device_ = firstDevice();
		ASSERT_TRUE(device_) << "no vdla device";
		auto created = vdla::Buffer::create(*device_, kElements * sizeof(int16_t));
		ASSERT_TRUE(created) << created.error().message();
		buffer_ = std::move(created.value());
		ASSERT_TRUE(buffer_->map());
		write(pattern());
	}

	void write(const std::vector<int16_t> &values)
	{
		memcpy(buffer_->data(), values.data(), values.size() * sizeof(int16_t));
	}

	/* A tensor of kSpec on @buffer, released with the test. */
	vx_tensor tensorOn(const vdla::Buffer &buffer)
	{
		vx_tensor tensor = vdla::vx::createTensorFromBuffer(
			context_, kSpec.dims, kSpec.type, kSpec.position, buffer);
		owned_.push_back(reinterpret_cast<vx_reference>(tensor));
		return tensor;
	}

	/* A graph of one RELU from @in to @out on @target. */
	vx_graph reluGraph(vx_tensor in, vx_tensor out, const char *target)
	{
		vx_graph graph = vxCreateGraph(context_);
		owned_.push_back(reinterpret_cast<vx_reference>(graph));
		vx_node node = vxActivationLayer(graph, in, VX_NN_ACTIVATION_RELU, 0, 0, out);
		EXPECT_EQ(vxGetStatus(reinterpret_cast<vx_reference>(node)), VX_SUCCESS);
		EXPECT_EQ(vxSetNodeTarget(node, VX_TARGET_STRING, target), VX_SUCCESS);
		vxReleaseNode(&node);
		return graph;
	}

	/*
	 * Starts a copy on the second vDLA, between buffers of its own, held
	 * back kGateDelayUs (or failing, with @fault "op_error"): its fence as
	 * a SyncFence, for a graph to wait on.
	 */
	::testing::AssertionResult startGate(
		std::optional<vdla::SyncFence> &gate, const char *fault = "delay")
	{
		if (!other_) {
			auto nodes = vdla::Device::enumerate();
			if (!nodes || nodes->size() < 2)
				return ::testing::AssertionFailure()
					<< "the test needs a second vDLA";
			auto other = vdla::Device::open((*nodes)[1]);
			if (!other)
				return ::testing::AssertionFailure() << other.error().message();
			other_ = std::move(other.value());
		}
		auto ctx = vdla::Context::create(*other_);
		auto src = vdla::Buffer::create(*other_, 4096);
		auto dst = vdla::Buffer::create(*other_, 4096);
		auto fence = vdla::Fence::create(*other_, vdla::Fence::Type::Binary);
		if (!ctx || !src || !dst || !fence)
			return ::testing::AssertionFailure() << "the gate's objects";
		vdla::TaskBuilder b;
		const uint16_t s = b.addBuffer(**src);
		const uint16_t d = b.addBuffer(**dst, vdla::BufferUse::Write);
		b.copy({ s, 0 }, { d, 0 }, 256);
		auto task = b.build(*other_);
		if (!task)
			return ::testing::AssertionFailure() << task.error().message();
		const std::string command
			= std::string("bdma ") + fault + " 1 " + std::to_string(kGateDelayUs);
		if (faultInject(*other_, command))
			return ::testing::AssertionFailure() << "debugfs fault_inject";
		auto seqno = (*ctx)->submit(*task, {}, { fence->get(), 0 });
		if (!seqno)
			return ::testing::AssertionFailure() << seqno.error().message();
		auto file = (*fence)->exportJobSyncFile();
		if (!file)
			return ::testing::AssertionFailure() << file.error().message();
		auto sync = vdla::SyncFence::fromSyncFile(0, vdla::UniqueFd(*file));
		if (!sync)
			return ::testing::AssertionFailure() << sync.error().message();
		gate = std::move(sync.value());
		/* Kept to the end of the test: the job uses them. */
		gateCtxs_.push_back(std::move(ctx.value()));
		gateBuffers_.push_back(std::move(src.value()));
		gateBuffers_.push_back(std::move(dst.value()));
		gateFence_ = std::move(fence.value());
		gateFences_.push_back(gateFence_);
		return ::testing::AssertionSuccess();
	}

	/* Starts a gate (startGate()) and makes @graph's next run wait for it. */
	::testing::AssertionResult gateGraph(vx_graph graph, const char *fault = "delay")
	{
		std::optional<vdla::SyncFence> gate;
		if (auto started = startGate(gate, fault); !started)
			return started;
		std::vector<vdla::SyncFence> fences;
		fences.push_back(std::move(*gate));
		if (vx_status status = vdla::vx::setGraphWaitFences(graph, std::move(fences)))
			return ::testing::AssertionFailure()
				<< "setGraphWaitFences gave " << status;
		return ::testing::AssertionSuccess();
	}

	/* A graph on @target reading the buffer runs only once a gate's fence signalled. */
	void runWaitsForTheGate(const char *target)
	{
		vx_graph graph = reluGraph(tensorOn(*buffer_), output(kSpec), target);
		ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
		ASSERT_TRUE(gateGraph(graph));
		ASSERT_FALSE(gateDone())
			<< "the gate ended before the run: the test proves nothing";
		ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
		EXPECT_TRUE(gateDone()) << "the run on " << target
					<< " ended before the fence it waits for signalled";
	}

	bool gateDone() const
	{
		auto done = gateFence_->signalled();
		return done && *done;
	}

	void TearDown() override
	{
		if (other_)
			faultInject(*other_, "bdma none 0");
		VxTest::TearDown();
	}

	std::unique_ptr<vdla::Device> device_;
	std::unique_ptr<vdla::Buffer> buffer_;
	std::unique_ptr<vdla::Device> other_;
	/* Declared after other_, so destroyed before it. */
	std::vector<std::unique_ptr<vdla::Context>> gateCtxs_;
	std::vector<std::unique_ptr<vdla::Buffer>> gateBuffers_;
	std::vector<std::shared_ptr<vdla::Fence>> gateFences_;
	/* The last gate's fence. */
	std::shared_ptr<vdla::Fence> gateFence_;
};

/*
 * The DLA and the CPU read what the application writes into the buffer,
 * each run anew, and the tensor keeps the memory once the Buffer is gone.
 */
TEST_F(BufferTensor, IsReadWhereTheApplicationWroteIt)
{
	vx_tensor fromBuffer = tensorOn(*buffer_);
	ASSERT_EQ(vxGetStatus(reinterpret_cast<vx_reference>(fromBuffer)), VX_SUCCESS);
	EXPECT_EQ(readValues(fromBuffer), asDoubles(pattern())) << "the CPU's view of it";

	vx_tensor reference = inputFrom(kSpec, asDoubles(pattern()));
	vx_tensor dlaOut = output(kSpec), cpuOut = output(kSpec);
	vx_graph onDla = reluGraph(fromBuffer, dlaOut, "dla");
	vx_graph onCpu = reluGraph(reference, cpuOut, "cpu");
	ASSERT_EQ(vxProcessGraph(onDla), VX_SUCCESS);
	ASSERT_EQ(vxProcessGraph(onCpu), VX_SUCCESS);
	EXPECT_TRUE(sameValues(dlaOut, cpuOut));
	const std::vector<double> relu = readValues(dlaOut);
	EXPECT_GT(*std::max_element(relu.begin(), relu.end()), 0) << "all zero: nothing was read";

	/* New values in the buffer: the next run reads them, no copy held. */
	write(pattern(true));
	std::vector<int16_t> negated = pattern(true);
	const vx_size start[3] = { 0, 0, 0 };
	const vx_size strides[3] = { 2, 16, 96 };
	ASSERT_EQ(vxCopyTensorPatch(reference, 3, start, kSpec.dims.data(), strides, negated.data(),
			  VX_WRITE_ONLY, VX_MEMORY_TYPE_HOST),
		VX_SUCCESS);
	ASSERT_EQ(vxProcessGraph(onDla), VX_SUCCESS);
	ASSERT_EQ(vxProcessGraph(onCpu), VX_SUCCESS);
	EXPECT_TRUE(sameValues(dlaOut, cpuOut));

	/* The Buffer object goes; the import the tensor holds keeps the memory. */
	buffer_.reset();
	vx_tensor cpuFromBuffer = output(kSpec);
	vx_graph cpuReadsIt = reluGraph(fromBuffer, cpuFromBuffer, "cpu");
	ASSERT_EQ(vxProcessGraph(onDla), VX_SUCCESS);
	ASSERT_EQ(vxProcessGraph(cpuReadsIt), VX_SUCCESS);
	EXPECT_TRUE(sameValues(dlaOut, cpuOut));
	EXPECT_TRUE(sameValues(cpuFromBuffer, cpuOut));
}

/*
 * Two tensors on one buffer are one memory to the graph: a node reading
 * one runs after the node writing the other, though it was added first.
 */
TEST_F(BufferTensor, TwoTensorsOnOneBufferAreOrderedAsOne)
{
	vx_tensor written = tensorOn(*buffer_), read = tensorOn(*buffer_);
	vx_tensor in = inputFrom(kSpec, asDoubles(pattern(true)));
	vx_tensor out = output(kSpec);
	vx_graph graph = vxCreateGraph(context_);
	owned_.push_back(reinterpret_cast<vx_reference>(graph));
	vx_node reader = vxActivationLayer(graph, read, VX_NN_ACTIVATION_RELU, 0, 0, out);
	vx_node writer = vxActivationLayer(graph, in, VX_NN_ACTIVATION_RELU, 0, 0, written);
	for (vx_node node : { reader, writer })
		EXPECT_EQ(vxSetNodeTarget(node, VX_TARGET_STRING, "cpu"), VX_SUCCESS);
	vxReleaseNode(&reader);
	vxReleaseNode(&writer);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	std::vector<double> expected = asDoubles(pattern(true));
	for (double &value : expected)
		value = std::max(value, 0.0);
	EXPECT_EQ(readValues(out), expected) << "the reader ran before the writer";
}

/*
 * A bias on a buffer would be copied into the DLA task once, and later
 * writes to the buffer missed: the layer runs on the CPU, which reads it
 * at every run.
 */
TEST_F(BufferTensor, AsABiasKeepsItsLayerOffTheDla)
{
	const TensorSpec biasSpec{ { 2 }, VX_TYPE_INT16, 8 };
	vx_tensor bias = vdla::vx::createTensorFromBuffer(
		context_, biasSpec.dims, biasSpec.type, biasSpec.position, *buffer_);
	owned_.push_back(reinterpret_cast<vx_reference>(bias));
	vx_tensor in = input(kSpec, -256, 256);
	vx_tensor weights = input({ { 3, 3, 2, 2 }, VX_TYPE_INT16, 8 }, -64, 64);
	vx_tensor out = output(kSpec);
	vx_graph graph = vxCreateGraph(context_);
	owned_.push_back(reinterpret_cast<vx_reference>(graph));
	const vx_nn_convolution_params_t params = sameSizeConvolution();
	vx_node conv = vxConvolutionLayer(graph, in, weights, bias, &params, sizeof(params), out);
	ASSERT_EQ(vxGetStatus(reinterpret_cast<vx_reference>(conv)), VX_SUCCESS);
	EXPECT_TRUE(refusedOnDlaRunsOnCpu(graph, conv));
	vxReleaseNode(&conv);
}

/* A read-only buffer: the tensor reads, and no way of writing it works. */
TEST_F(BufferTensor, OfAReadOnlyBufferCannotBeWritten)
{
	auto fd = buffer_->exportFd(vdla::Buffer::Access::ReadOnly);
	ASSERT_TRUE(fd);
	vdla::UniqueFd dmabuf(*fd);
	auto readOnly
		= vdla::Buffer::import(*device_, dmabuf.get(), vdla::Buffer::Access::ReadOnly);
	ASSERT_TRUE(readOnly) << readOnly.error().message();
	vx_tensor tensor = tensorOn(**readOnly);
	ASSERT_EQ(vxGetStatus(reinterpret_cast<vx_reference>(tensor)), VX_SUCCESS);

	std::vector<int16_t> values(kElements, 7);
	const vx_size start[3] = { 0, 0, 0 };
	const vx_size strides[3] = { 2, 16, 96 };
	EXPECT_EQ(vxCopyTensorPatch(tensor, 3, start, kSpec.dims.data(), strides, values.data(),
			  VX_WRITE_ONLY, VX_MEMORY_TYPE_HOST),
		VX_ERROR_NOT_SUPPORTED);
	vx_map_id map = 0;
	vx_size mapStrides[3];
	void *ptr = nullptr;
	EXPECT_EQ(vxMapTensorPatch(tensor, 3, start, kSpec.dims.data(), &map, mapStrides, &ptr,
			  VX_READ_AND_WRITE, VX_MEMORY_TYPE_HOST),
		VX_ERROR_NOT_SUPPORTED);
	/* A view of it is no way round. */
	vx_tensor view = vxCreateTensorFromView(tensor, 3, start, kSpec.dims.data());
	owned_.push_back(reinterpret_cast<vx_reference>(view));
	EXPECT_EQ(vxCopyTensorPatch(view, 3, start, kSpec.dims.data(), strides, values.data(),
			  VX_WRITE_ONLY, VX_MEMORY_TYPE_HOST),
		VX_ERROR_NOT_SUPPORTED);

	/* Nor is a node writing it. */
	vx_tensor in = inputFrom(kSpec, asDoubles(pattern(true)));
	vx_graph graph = vxCreateGraph(context_);
	owned_.push_back(reinterpret_cast<vx_reference>(graph));
	vx_node writer = vxActivationLayer(graph, in, VX_NN_ACTIVATION_RELU, 0, 0, tensor);
	EXPECT_NE(vxGetStatus(reinterpret_cast<vx_reference>(writer)), VX_SUCCESS);
	if (vxGetStatus(reinterpret_cast<vx_reference>(writer)) == VX_SUCCESS) {
		vxProcessGraph(graph);
		vxReleaseNode(&writer);
	}
	EXPECT_EQ(readValues(tensor), asDoubles(pattern())) << "the buffer was written";

	/* Reading it works on both targets. */
	vx_tensor dlaOut = output(kSpec), cpuOut = output(kSpec);
	ASSERT_EQ(vxProcessGraph(reluGraph(tensor, dlaOut, "dla")), VX_SUCCESS);
	ASSERT_EQ(vxProcessGraph(reluGraph(tensor, cpuOut, "cpu")), VX_SUCCESS);
	EXPECT_TRUE(sameValues(dlaOut, cpuOut));
}

TEST_F(BufferTensor, RefusesWhatCannotBackIt)
{
	auto small = vdla::vx::createTensorFromBuffer(
		context_, { 64, 64, 2 }, VX_TYPE_INT16, 8, *buffer_);
	EXPECT_EQ(vxGetStatus(reinterpret_cast<vx_reference>(small)), VX_ERROR_INVALID_PARAMETERS)
		<< "a tensor larger than the buffer";
	auto noDims = vdla::vx::createTensorFromBuffer(context_, {}, VX_TYPE_INT16, 8, *buffer_);
	EXPECT_EQ(vxGetStatus(reinterpret_cast<vx_reference>(noDims)), VX_ERROR_INVALID_DIMENSION);
	auto zero
		= vdla::vx::createTensorFromBuffer(context_, { 4, 0 }, VX_TYPE_INT16, 8, *buffer_);
	EXPECT_EQ(vxGetStatus(reinterpret_cast<vx_reference>(zero)), VX_ERROR_INVALID_DIMENSION);
	auto notTensor
		= vdla::vx::createTensorFromBuffer(context_, { 4 }, VX_TYPE_DF_IMAGE, 0, *buffer_);
	EXPECT_EQ(vxGetStatus(reinterpret_cast<vx_reference>(notTensor)), VX_ERROR_NOT_SUPPORTED);
	auto sram = vdla::Buffer::create(*device_, 4096, vdla::Buffer::Placement::Sram);
	if (sram) {
		auto inSram = vdla::vx::createTensorFromBuffer(
			context_, { 4 }, VX_TYPE_INT16, 8, **sram);
		EXPECT_EQ(vxGetStatus(reinterpret_cast<vx_reference>(inSram)),
			VX_ERROR_NOT_SUPPORTED);
	}
	EXPECT_EQ(vdla::vx::setGraphWaitFences(nullptr, {}), VX_ERROR_INVALID_REFERENCE);
}

/* The DLA job of a run waits, on the device, for the fence set on its graph. */
TEST_F(BufferTensor, DlaRunWaitsForItsFences)
{
	runWaitsForTheGate("dla");
}

/* CPU work of a run waits for the fences on the CPU. */
TEST_F(BufferTensor, CpuRunWaitsForItsFences)
{
	runWaitsForTheGate("cpu");
}

/* A fence that signals an error fails the run that waits for it on the CPU. */
TEST_F(BufferTensor, CpuRunFailsOnAFailedFence)
{
	vx_graph graph = reluGraph(tensorOn(*buffer_), output(kSpec), "cpu");
	ASSERT_TRUE(gateGraph(graph, "op_error"));
	EXPECT_EQ(vxProcessGraph(graph), VX_FAILURE);
	/* The next run has no fence to fail on. */
	EXPECT_EQ(vxProcessGraph(graph), VX_SUCCESS);
}

} /* namespace */
