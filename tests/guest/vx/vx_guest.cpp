/* SPDX-License-Identifier: MIT */
#include "vx_guest.h"

#include <VX/vx_vdla.h>
#include <vdla/device.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <unistd.h>

namespace vx_guest {

vx_size elementCount(vx_tensor tensor)
{
	vx_size dims = 0;
	vxQueryTensor(tensor, VX_TENSOR_NUMBER_OF_DIMS, &dims, sizeof(dims));
	std::vector<vx_size> shape(dims);
	vxQueryTensor(tensor, VX_TENSOR_DIMS, shape.data(), dims * sizeof(vx_size));
	vx_size count = 1;
	for (vx_size d : shape)
		count *= d;
	return count;
}

namespace {

vx_size elementSize(vx_enum type)
{
	return type == VX_TYPE_INT8 || type == VX_TYPE_UINT8 ? 1 : type == VX_TYPE_INT16 ? 2 : 4;
}

std::vector<vx_size> shapeOf(vx_tensor tensor)
{
	vx_size dims = 0;
	vxQueryTensor(tensor, VX_TENSOR_NUMBER_OF_DIMS, &dims, sizeof(dims));
	std::vector<vx_size> shape(dims);
	vxQueryTensor(tensor, VX_TENSOR_DIMS, shape.data(), dims * sizeof(vx_size));
	return shape;
}

std::vector<vx_size> packedStrides(const std::vector<vx_size> &shape, vx_size element)
{
	std::vector<vx_size> strides(shape.size());
	for (size_t i = 0; i < shape.size(); i++) {
		strides[i] = element;
		element *= shape[i];
	}
	return strides;
}

vx_status copyTensor(vx_tensor tensor, void *data, vx_enum usage)
{
	vx_enum type = VX_TYPE_INVALID;
	vxQueryTensor(tensor, VX_TENSOR_DATA_TYPE, &type, sizeof(type));
	std::vector<vx_size> shape = shapeOf(tensor);
	std::vector<vx_size> start(shape.size(), 0);
	std::vector<vx_size> strides = packedStrides(shape, elementSize(type));
	return vxCopyTensorPatch(tensor, shape.size(), start.data(), shape.data(), strides.data(),
		data, usage, VX_MEMORY_TYPE_HOST);
}

} /* namespace */

std::vector<double> readValues(vx_tensor tensor)
{
	vx_enum type = VX_TYPE_INVALID;
	vxQueryTensor(tensor, VX_TENSOR_DATA_TYPE, &type, sizeof(type));
	const vx_size count = elementCount(tensor);
	std::vector<uint8_t> bytes(count * elementSize(type));
	EXPECT_EQ(VX_SUCCESS, copyTensor(tensor, bytes.data(), VX_READ_ONLY));
	std::vector<double> values(count);
	for (vx_size i = 0; i < count; i++) {
		if (type == VX_TYPE_INT8)
			values[i] = reinterpret_cast<int8_t *>(bytes.data())[i];
		else if (type == VX_TYPE_UINT8)
			values[i] = bytes[i];
		else if (type == VX_TYPE_INT16)
			values[i] = reinterpret_cast<int16_t *>(bytes.data())[i];
		else
			values[i] = reinterpret_cast<float *>(bytes.data())[i];
	}
	return values;
}

namespace {

/* The runtime's log explains failures; show it with the test's output. */
void VX_CALLBACK printLog(vx_context, vx_reference, vx_status status, const vx_char string[])
{
	fprintf(stderr, "[vx log] status %d: %s\n", status, string);
}

} /* namespace */

void VxTest::SetUp()
{
	context_ = vxCreateContext();
	ASSERT_EQ(VX_SUCCESS, vxGetStatus(reinterpret_cast<vx_reference>(context_)));
	vxRegisterLogCallback(context_, printLog, vx_false_e);
	vxQueryContext(context_, VX_CONTEXT_REFERENCES, &baseline_, sizeof(baseline_));
}

void VxTest::TearDown()
{
	for (vx_reference ref : owned_)
		vxReleaseReference(&ref);
	owned_.clear();
	vx_uint32 live = ~0u;
	vxQueryContext(context_, VX_CONTEXT_REFERENCES, &live, sizeof(live));
	EXPECT_EQ(baseline_, live) << "objects leaked by the test or the runtime";
	EXPECT_EQ(VX_SUCCESS, vxReleaseContext(&context_));
}

vx_tensor VxTest::input(const TensorSpec &spec, double lo, double hi)
{
	vx_size count = 1;
	for (vx_size d : spec.dims)
		count *= d;
	std::vector<double> raw(count);
	std::uniform_real_distribution<double> real(lo, hi);
	for (double &v : raw) {
		v = real(random_);
		if (spec.type != VX_TYPE_FLOAT32)
			v = double(std::lround(v));
	}
	return inputFrom(spec, raw);
}

vx_tensor VxTest::inputFrom(const TensorSpec &spec, const std::vector<double> &raw)
{
	vx_tensor tensor = vxCreateTensor(
		context_, spec.dims.size(), spec.dims.data(), spec.type, spec.position);
	EXPECT_EQ(VX_SUCCESS, vxGetStatus(reinterpret_cast<vx_reference>(tensor)));
	owned_.push_back(reinterpret_cast<vx_reference>(tensor));
	const vx_size count = elementCount(tensor);
	EXPECT_EQ(count, raw.size());
	std::vector<uint8_t> bytes(count * elementSize(spec.type));
	for (vx_size i = 0; i < count && i < raw.size(); i++) {
		if (spec.type == VX_TYPE_INT8)
			reinterpret_cast<int8_t *>(bytes.data())[i] = int8_t(raw[i]);
		else if (spec.type == VX_TYPE_UINT8)
			bytes[i] = uint8_t(raw[i]);
		else if (spec.type == VX_TYPE_INT16)
			reinterpret_cast<int16_t *>(bytes.data())[i] = int16_t(raw[i]);
		else
			reinterpret_cast<float *>(bytes.data())[i] = float(raw[i]);
	}
	EXPECT_EQ(VX_SUCCESS, copyTensor(tensor, bytes.data(), VX_WRITE_ONLY));
	return tensor;
}

vx_tensor VxTest::output(const TensorSpec &spec)
{
	vx_tensor tensor = vxCreateTensor(
		context_, spec.dims.size(), spec.dims.data(), spec.type, spec.position);
	EXPECT_EQ(VX_SUCCESS, vxGetStatus(reinterpret_cast<vx_reference>(tensor)));
	owned_.push_back(reinterpret_cast<vx_reference>(tensor));
	return tensor;
}

::testing::AssertionResult VxTest::runBoth(
	const Builder &build, vx_tensor dlaOut, vx_tensor cpuOut, const char *target)
{
	for (int pass = 0; pass < 2; pass++) {
		vx_graph graph = vxCreateGraph(context_);
		std::vector<vx_node> nodes = build(graph, pass == 0 ? dlaOut : cpuOut);
		for (vx_node node : nodes) {
			vx_status status = vxGetStatus(reinterpret_cast<vx_reference>(node));
			if (status != VX_SUCCESS) {
				vxReleaseGraph(&graph);
				return ::testing::AssertionFailure() << "node creation: " << status;
			}
			vx_status set = vxSetNodeTarget(
				node, VX_TARGET_STRING, pass == 0 ? target : "cpu");
			if (set != VX_SUCCESS) {
				vxReleaseGraph(&graph);
				return ::testing::AssertionFailure() << "vxSetNodeTarget: " << set;
			}
		}
		vx_status status = vxProcessGraph(graph);
		for (vx_node node : nodes)
			vxReleaseNode(&node);
		vxReleaseGraph(&graph);
		if (status != VX_SUCCESS)
			return ::testing::AssertionFailure()
				<< (pass == 0 ? target : "cpu") << " graph: status " << status;
	}
	return ::testing::AssertionSuccess();
}

vx_nn_convolution_params_t sameSizeConvolution(vx_enum overflow)
{
	vx_nn_convolution_params_t params = {};
	params.padding_x = params.padding_y = 1;
	params.overflow_policy = overflow;
	params.rounding_policy = VX_ROUND_POLICY_TO_NEAREST_EVEN;
	params.down_scale_size_rounding = VX_NN_DS_SIZE_ROUNDING_FLOOR;
	return params;
}

::testing::AssertionResult sameValues(vx_tensor a, vx_tensor b, double tolerance)
{
	std::vector<double> x = readValues(a), y = readValues(b);
	if (x.size() != y.size())
		return ::testing::AssertionFailure() << "sizes " << x.size() << " " << y.size();
	size_t bad = 0, first = 0;
	for (size_t i = 0; i < x.size(); i++) {
		if (std::fabs(x[i] - y[i]) > tolerance || std::isnan(x[i]) != std::isnan(y[i])) {
			if (!bad++)
				first = i;
		}
	}
	if (!bad)
		return ::testing::AssertionSuccess();
	return ::testing::AssertionFailure()
		<< bad << " of " << x.size() << " elements differ; first at " << first << ": dla "
		<< x[first] << " cpu " << y[first];
}

::testing::AssertionResult refusedOnDlaRunsOnCpu(vx_graph graph, vx_node node)
{
	if (vx_status status = vxSetNodeTarget(node, VX_TARGET_STRING, "dla"))
		return ::testing::AssertionFailure() << "setting \"dla\" gave " << status;
	if (vx_status status = vxVerifyGraph(graph); status != VX_ERROR_NOT_SUPPORTED)
		return ::testing::AssertionFailure()
			<< "verification on \"dla\" gave " << status << ", not NOT_SUPPORTED";
	if (vx_status status = vxSetNodeTarget(node, VX_TARGET_STRING, "any"))
		return ::testing::AssertionFailure() << "setting \"any\" gave " << status;
	return runsOnCpu(graph, node);
}

::testing::AssertionResult runsOnCpu(vx_graph graph, vx_node node)
{
	if (vx_status status = vxProcessGraph(graph))
		return ::testing::AssertionFailure() << "running gave " << status;
	vx_enum target = VX_VDLA_TARGET_DLA;
	if (vx_status status = vxQueryNode(node, VX_NODE_VDLA_TARGET, &target, sizeof(target)))
		return ::testing::AssertionFailure() << "querying the target gave " << status;
	if (target != VX_VDLA_TARGET_CPU)
		return ::testing::AssertionFailure() << "the node runs on the DLA, not the CPU";
	return ::testing::AssertionSuccess();
}

std::unique_ptr<vdla::Device> firstDevice()
{
	auto nodes = vdla::Device::enumerate();
	if (!nodes || nodes->empty())
		return nullptr;
	auto device = vdla::Device::open(nodes->front());
	return device ? std::move(device.value()) : nullptr;
}

int faultInject(const vdla::Device &device, const std::string &command)
{
	std::ofstream file("/sys/kernel/debug/accel/" + device.info().pciAddress + "/fault_inject");
	file << command;
	file.flush();
	return file ? 0 : EIO;
}

int faultInjectFirstDevice(const std::string &command)
{
	auto device = firstDevice();
	return device ? faultInject(*device, command) : ENODEV;
}

long deviceState(const std::string &key)
{
	auto device = firstDevice();
	if (!device)
		return -1;
	std::ifstream state("/sys/kernel/debug/accel/" + device->info().pciAddress + "/state");
	std::string line;
	while (std::getline(state, line)) {
		if (line.rfind(key + ":", 0) == 0)
			return std::stol(line.substr(key.size() + 1));
	}
	return -1;
}

long jobsCompleted()
{
	return deviceState("jobs_completed");
}

vdla::MemoryInfo sram()
{
	auto device = firstDevice();
	if (!device)
		return {};
	auto memory = device->memory();
	return memory ? memory.value() : vdla::MemoryInfo{};
}

uint64_t sramFree()
{
	return sram().sramFree;
}

/*
 * A released graph's SRAM BOs are freed when the last job that used them is
 * freed, which the driver does shortly after the job's fence signals: the
 * process that waited on that fence can look first.
 */
uint64_t sramFreeOnceJobsRetire(uint64_t expected)
{
	uint64_t free = sramFree();
	for (int i = 0; i < 200 && free != expected; i++) {
		usleep(10000);
		free = sramFree();
	}
	return free;
}

uint64_t sramFreeWhenIdle()
{
	return sramFreeOnceJobsRetire(sram().sramSize);
}

} /* namespace vx_guest */
