/* SPDX-License-Identifier: MIT */
/*
 * The in-guest suite of the OpenVX layer on the DLA (vdla-vx-guest-tests).
 * Each layer runs twice on the same inputs: its nodes set to target "dla"
 * and to target "cpu". The CPU path (umd/src/vx/targets/cpu/nn_cpu.cpp) is checked
 * against hand-computed answers by the host suite; here the DLA must agree
 * with it bit for bit on integer tensors and within the stated tolerance on
 * float ones.
 */
#pragma once

#include <VX/vx.h>
#include <VX/vx_khr_nn.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <vdla/device.h>

namespace vx_guest {

struct TensorSpec {
	std::vector<vx_size> dims;
	vx_enum type = VX_TYPE_INT16;
	vx_int8 position = 0;
};

/* Raw element values of a tensor, whatever its type, as doubles. */
std::vector<double> readValues(vx_tensor tensor);
vx_size elementCount(vx_tensor tensor);

class VxTest : public ::testing::Test
{
protected:
	void SetUp() override;
	void TearDown() override;

	/* A tensor filled with deterministic random raw values in [lo, hi]. */
	vx_tensor input(const TensorSpec &spec, double lo, double hi);
	/* A tensor holding @raw, element by element in memory order (dims[0] fastest). */
	vx_tensor inputFrom(const TensorSpec &spec, const std::vector<double> &raw);
	vx_tensor output(const TensorSpec &spec);

	/*
	 * Builds the same graph twice with @build (which returns its nodes),
	 * one writing @dlaOut with the nodes on "dla", one writing @cpuOut on
	 * "cpu", runs both and returns whether both succeeded.
	 */
	using Builder = std::function<std::vector<vx_node>(vx_graph graph, vx_tensor out)>;
	::testing::AssertionResult runBoth(const Builder &build, vx_tensor dlaOut, vx_tensor cpuOut,
		const char *target = "dla");

	vx_context context_ = nullptr;
	vx_uint32 baseline_ = 0;
	std::mt19937 random_{ 1234 };
	std::vector<vx_reference> owned_;
};

/* A 3x3 convolution keeping the input's width and height (padding 1). */
vx_nn_convolution_params_t sameSizeConvolution(vx_enum overflow = VX_CONVERT_POLICY_SATURATE);

/*
 * @node of @graph, set to "dla", fails verification with
 * VX_ERROR_NOT_SUPPORTED; set to "any", the graph runs with the node on
 * the CPU.
 */
::testing::AssertionResult refusedOnDlaRunsOnCpu(vx_graph graph, vx_node node);
/* Writes @command ("<engine> <mode> <count>") to the first device's
 * debugfs fault_inject; 0 or an errno. */
int faultInjectFirstDevice(const std::string &command);
/* The same on @device's debugfs. */
int faultInject(const vdla::Device &device, const std::string &command);
/* vxProcessGraph() succeeds and @node ran on the CPU. */
::testing::AssertionResult runsOnCpu(vx_graph graph, vx_node node);

/* Integer tensors: equal element for element; float: |a-b| <= tolerance. */
::testing::AssertionResult sameValues(vx_tensor a, vx_tensor b, double tolerance = 0);

/* The first vdla device, or null. */
std::unique_ptr<vdla::Device> firstDevice();
/* The value of "@key:" in the first device's debugfs state; -1 if unreadable. */
long deviceState(const std::string &key);
/* jobs_completed of the first device, from debugfs; -1 if unreadable. */
long jobsCompleted();

/* The SRAM of the first vdla device; all zero on failure. */
vdla::MemoryInfo sram();
uint64_t sramFree();
/* Bytes of SRAM free once @expected is reached or two seconds have passed. */
uint64_t sramFreeOnceJobsRetire(uint64_t expected);
/* Bytes of SRAM free once no retiring job of an earlier test holds any. */
uint64_t sramFreeWhenIdle();

} /* namespace vx_guest */
