/* SPDX-License-Identifier: MIT */
/*
 * Graphs on the DLA: fusion on and off, DLA and CPU user nodes mixed in one
 * graph, several graphs in flight from one process and from several
 * processes, and the errors of impossible targets.
 */
#include "vx_guest.h"

#include <VX/vx_vdla.h>
#include <vdla/device.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <cstdlib>
#include <random>

using namespace vx_guest;

namespace {

/* conv 3x3 (+bias) -> RELU -> max pool 2x2 in Q7.8, intermediates virtual. */
std::vector<vx_node> convReluPool(vx_graph g, vx_tensor in, vx_tensor wgt, vx_tensor bias,
	vx_tensor out, vx_enum overflow = VX_CONVERT_POLICY_SATURATE)
{
	vx_tensor conv = vxCreateVirtualTensor(g, 0, nullptr, VX_TYPE_INVALID, 0);
	vx_tensor relu = vxCreateVirtualTensor(g, 0, nullptr, VX_TYPE_INVALID, 0);
	const vx_nn_convolution_params_t params = sameSizeConvolution(overflow);
	std::vector<vx_node> nodes = {
		vxConvolutionLayer(g, in, wgt, bias, &params, sizeof(params), conv),
		vxActivationLayer(g, conv, VX_NN_ACTIVATION_RELU, 0, 0, relu),
		vxPoolingLayer(g, relu, VX_NN_POOLING_MAX, 2, 2, 0, 0, VX_NN_DS_SIZE_ROUNDING_FLOOR,
			out),
	};
	vxReleaseTensor(&conv);
	vxReleaseTensor(&relu);
	return nodes;
}

/*
 * @layers 3x3 convolutions of 8 channels between @in (12x10x3) and @out
 * (12x10x4): a chain of @layers - 1 virtual 12x10x8 Q7.8 intermediates.
 */
std::vector<vx_node> convolutionChain(vx_graph g, vx_tensor in, vx_tensor first, vx_tensor middle,
	vx_tensor last, vx_tensor out, int layers)
{
	const vx_size dims[] = { 12, 10, 8 };
	const vx_nn_convolution_params_t params = sameSizeConvolution();
	std::vector<vx_node> nodes;
	vx_tensor from = in;
	for (int i = 0; i < layers; i++) {
		const bool isLast = i == layers - 1;
		vx_tensor to = isLast ? out : vxCreateVirtualTensor(g, 3, dims, VX_TYPE_INT16, 8);
		vx_tensor weights = i == 0 ? first : isLast ? last : middle;
		nodes.push_back(
			vxConvolutionLayer(g, from, weights, nullptr, &params, sizeof(params), to));
		if (i > 0)
			vxReleaseTensor(&from);
		from = to;
	}
	return nodes;
}

/*
 * Verifies and runs @g; on the DLA pass (@pass 0) expects it to have made
 * @tasks device jobs, which @what names.
 */
void runCountingTasks(vx_graph g, int pass, long tasks, const char *what)
{
	ASSERT_EQ(VX_SUCCESS, vxVerifyGraph(g));
	const long before = jobsCompleted();
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(g));
	if (pass == 0) {
		ASSERT_GE(before, 0) << "debugfs state unreadable";
		EXPECT_EQ(jobsCompleted() - before, tasks) << what;
	}
}

class NnGraph : public VxTest
{
protected:
	void makeNetwork()
	{
		in_ = input({ { 12, 10, 3 }, VX_TYPE_INT16, 8 }, -512, 512);
		wgt_ = input({ { 3, 3, 3, 8 }, VX_TYPE_INT16, 8 }, -200, 200);
		bias_ = input({ { 8 }, VX_TYPE_INT16, 8 }, -256, 256);
	}
	TensorSpec pooled() const { return { { 6, 5, 8 }, VX_TYPE_INT16, 8 }; }
	/* A 3x3 INT8 convolution of a 6x5x3 input in @graph, set to "dla". */
	vx_node smallDlaConvolution(vx_graph graph)
	{
		vx_tensor in = input({ { 6, 5, 3 }, VX_TYPE_INT8, 0 }, -20, 20);
		vx_tensor weights = input({ { 3, 3, 3, 4 }, VX_TYPE_INT8, 0 }, -3, 3);
		vx_tensor out = output({ { 4, 3, 4 }, VX_TYPE_INT8, 0 });
		const vx_nn_convolution_params_t params = { 0, 0, VX_CONVERT_POLICY_SATURATE,
			VX_ROUND_POLICY_TO_ZERO, VX_NN_DS_SIZE_ROUNDING_FLOOR, 0, 0 };
		vx_node conv = vxConvolutionLayer(
			graph, in, weights, nullptr, &params, sizeof(params), out);
		EXPECT_EQ(VX_SUCCESS, vxSetNodeTarget(conv, VX_TARGET_STRING, "dla"));
		return conv;
	}

	/* The weights of convolutionChain() from in_ (12x10x3, Q7.8) to 12x10x4. */
	void makeChainWeights()
	{
		chainFirst_ = input({ { 3, 3, 3, 8 }, VX_TYPE_INT16, 8 }, -40, 40);
		chainMiddle_ = input({ { 3, 3, 8, 8 }, VX_TYPE_INT16, 8 }, -40, 40);
		chainLast_ = input({ { 3, 3, 8, 4 }, VX_TYPE_INT16, 8 }, -40, 40);
	}
	std::vector<vx_node> chain(vx_graph g, vx_tensor out, int layers)
	{
		return convolutionChain(g, in_, chainFirst_, chainMiddle_, chainLast_, out, layers);
	}
	static TensorSpec chainOutput() { return { { 12, 10, 4 }, VX_TYPE_INT16, 8 }; }

	vx_tensor in_ = nullptr, wgt_ = nullptr, bias_ = nullptr;
	vx_tensor chainFirst_ = nullptr, chainMiddle_ = nullptr, chainLast_ = nullptr;
};

std::vector<std::string> capturedLog;

void VX_CALLBACK captureLog(vx_context, vx_reference, vx_status, const vx_char string[])
{
	capturedLog.push_back(string);
}

/*
 * A DLA task that fails (an operation error injected into the device) is
 * waited for once: the end of the run does not wait for it again, which
 * for a task that never ended meant a second 120 s wait.
 */
TEST_F(NnGraph, AFailedDlaTaskIsWaitedForOnce)
{
	vx_graph graph = vxCreateGraph(context_);
	vx_node conv = smallDlaConvolution(graph);
	ASSERT_EQ(VX_SUCCESS, vxGetStatus(reinterpret_cast<vx_reference>(conv)));
	/* A callback makes the run wait for the task where it was submitted;
	 * the end of the run then waits for what is still outstanding. */
	ASSERT_EQ(VX_SUCCESS,
		vxAssignNodeCallback(conv, [](vx_node) -> vx_action { return VX_ACTION_CONTINUE; }));
	ASSERT_EQ(VX_SUCCESS, vxVerifyGraph(graph));

	capturedLog.clear();
	vxRegisterLogCallback(context_, captureLog, vx_false_e);
	ASSERT_EQ(0, faultInjectFirstDevice("conv op_error 1"));
	EXPECT_EQ(VX_FAILURE, vxProcessGraph(graph));
	faultInjectFirstDevice("conv none 0");
	const auto failures = std::count_if(capturedLog.begin(), capturedLog.end(),
		[](const std::string &line) { return line.find("DLA task failed") == 0; });
	EXPECT_EQ(failures, 1) << "the failed task was waited for " << failures << " times";
	vxReleaseNode(&conv);
	vxReleaseGraph(&graph);
}

/*
 * A run whose wait for a task times out (VDLA_VX_WAIT_LIMIT_MS; the task
 * hangs on the device) fails, and the task, which may still run and write
 * its buffers, is not submitted again until it has ended: the next runs
 * fail at once, also after the graph was verified (planned) again. Once
 * the driver's watchdog has ended the hung job, the graph runs again (on
 * a new kernel context: the hang banned the old one).
 */
TEST_F(NnGraph, ATaskWhoseWaitTimedOutIsNotSubmittedAgainBeforeItEnds)
{
	vx_graph graph = vxCreateGraph(context_);
	vx_node conv = smallDlaConvolution(graph);
	ASSERT_EQ(VX_SUCCESS, vxGetStatus(reinterpret_cast<vx_reference>(conv)));
	ASSERT_EQ(VX_SUCCESS, vxVerifyGraph(graph));
	const long timeouts = deviceState("timeouts");
	ASSERT_GE(timeouts, 0);

	capturedLog.clear();
	vxRegisterLogCallback(context_, captureLog, vx_false_e);
	ASSERT_EQ(0, setenv("VDLA_VX_WAIT_LIMIT_MS", "300", 1));
	ASSERT_EQ(0, faultInjectFirstDevice("conv hang 1"));
	EXPECT_EQ(VX_FAILURE, vxProcessGraph(graph));
	EXPECT_EQ(VX_FAILURE, vxProcessGraph(graph));
	ASSERT_EQ(VX_SUCCESS, vxVerifyGraph(graph));
	EXPECT_EQ(VX_FAILURE, vxProcessGraph(graph));
	unsetenv("VDLA_VX_WAIT_LIMIT_MS");
	faultInjectFirstDevice("conv none 0");
	const auto refused = std::count_if(capturedLog.begin(), capturedLog.end(),
		[](const std::string &line) { return line.find("still on the device") != std::string::npos; });
	EXPECT_EQ(refused, 2) << "a later run submitted the graph's task again";

	/* The driver's watchdog (vdla.job_timeout_ms, 5 s) ends the hung job. */
	for (int i = 0; i < 200 && deviceState("timeouts") == timeouts; i++)
		usleep(50000);
	ASSERT_EQ(deviceState("timeouts"), timeouts + 1) << "the hung job did not time out";
	EXPECT_EQ(VX_SUCCESS, vxProcessGraph(graph));
	vxReleaseNode(&conv);
	vxReleaseGraph(&graph);
}

TEST_F(NnGraph, FusionOnAndOffGiveIdenticalResults)
{
	makeNetwork();
	vx_tensor fused = output(pooled()), cpu = output(pooled()), unfused = output(pooled());
	auto build = [&](vx_graph g, vx_tensor out) {
		return convReluPool(g, in_, wgt_, bias_, out);
	};
	ASSERT_EQ(0, setenv("VDLA_VX_FUSION", "1", 1));
	ASSERT_TRUE(runBoth(build, fused, cpu));
	ASSERT_EQ(0, setenv("VDLA_VX_FUSION", "0", 1));
	vx_tensor cpu2 = output(pooled());
	ASSERT_TRUE(runBoth(build, unfused, cpu2));
	unsetenv("VDLA_VX_FUSION");
	EXPECT_TRUE(sameValues(fused, unfused));
	EXPECT_TRUE(sameValues(fused, cpu));
}

/* conv 3x3 -> (virtual, 12x10x8 Q7.8) -> conv 3x3: the intermediate needs memory. */
std::vector<vx_node> twoConvolutions(vx_graph g, vx_tensor in, vx_tensor wgt1, vx_tensor wgt2,
	vx_tensor out)
{
	const vx_size dims[] = { 12, 10, 8 };
	vx_tensor mid = vxCreateVirtualTensor(g, 3, dims, VX_TYPE_INT16, 8);
	const vx_nn_convolution_params_t params = sameSizeConvolution();
	std::vector<vx_node> nodes = {
		vxConvolutionLayer(g, in, wgt1, nullptr, &params, sizeof(params), mid),
		vxConvolutionLayer(g, mid, wgt2, nullptr, &params, sizeof(params), out),
	};
	vxReleaseTensor(&mid);
	return nodes;
}

/*
 * In a chain each intermediate is dead once the next layer has read it:
 * the five intermediates share two SRAM regions (a page each) instead of
 * taking five, with the same values as memory and the CPU, also after a
 * second verification.
 */
TEST_F(NnGraph, VirtualTensorsWithDisjointLifetimesShareSram)
{
	constexpr int kLayers = 6;
	in_ = input({ { 12, 10, 3 }, VX_TYPE_INT16, 8 }, -512, 512);
	makeChainWeights();
	vx_tensor shared = output(chainOutput()), inMemory = output(chainOutput()),
		  cpu = output(chainOutput());
	auto build = [&](vx_graph g, vx_tensor out) { return chain(g, out, kLayers); };

	const uint64_t before = sramFreeWhenIdle();
	ASSERT_GE(before, 2u * 4096) << "the guest's vDLA has SRAM";
	vx_graph graph = vxCreateGraph(context_);
	std::vector<vx_node> nodes = build(graph, shared);
	for (vx_node node : nodes)
		ASSERT_EQ(VX_SUCCESS, vxSetNodeTarget(node, VX_TARGET_STRING, "dla"));
	ASSERT_EQ(VX_SUCCESS, vxVerifyGraph(graph));
	EXPECT_EQ(sramFree(), before - 2 * 4096) << "five intermediates, two live at a time";
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));
	ASSERT_EQ(VX_SUCCESS, vxVerifyGraph(graph)) << "verifying again reassigns the regions";
	EXPECT_EQ(sramFreeOnceJobsRetire(before - 2 * 4096), before - 2 * 4096)
		<< "the first plan's regions were given back";
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));
	for (vx_node &node : nodes)
		vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	EXPECT_EQ(sramFreeOnceJobsRetire(before), before);

	ASSERT_EQ(0, setenv("VDLA_VX_SRAM", "0", 1));
	ASSERT_TRUE(runBoth(build, inMemory, cpu));
	unsetenv("VDLA_VX_SRAM");
	EXPECT_TRUE(sameValues(shared, cpu));
	EXPECT_TRUE(sameValues(shared, inMemory));
}

/* tracefs, wherever the guest has it. */
std::string tracefsDir()
{
	for (const char *dir : { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" })
		if (::access((std::string(dir) + "/events/vdla").c_str(), F_OK) == 0)
			return dir;
	return {};
}

bool writeText(const std::string &path, const std::string &text)
{
	std::ofstream file(path, std::ios::trunc);
	file << text;
	return bool(file);
}

/* The address-list sizes of the jobs SUBMIT queued while @run ran (vdla_job_queue). */
std::vector<unsigned> submittedAddressCounts(const std::function<void()> &run)
{
	const std::string dir = tracefsDir();
	if (dir.empty() || !writeText(dir + "/trace", "")
		|| !writeText(dir + "/events/vdla/vdla_job_queue/enable", "1"))
		return {};
	run();
	writeText(dir + "/events/vdla/vdla_job_queue/enable", "0");
	std::ifstream trace(dir + "/trace");
	std::vector<unsigned> counts;
	for (std::string line; std::getline(trace, line);) {
		const size_t at = line.find("addresses=");
		if (at != std::string::npos)
			counts.push_back(unsigned(std::stoul(line.substr(at + 10))));
	}
	return counts;
}

/*
 * The twelve-layer chain's eleven intermediates share two SRAM regions,
 * and the task names each buffer once: the descriptor, the input, the
 * three weight tensors, the two regions and the output (SUBMIT looks up
 * and maps every entry). The values are the CPU's.
 */
TEST_F(NnGraph, TensorsSharingABufferShareItsAddressEntry)
{
	constexpr int kLayers = 12;
	in_ = input({ { 12, 10, 3 }, VX_TYPE_INT16, 8 }, -512, 512);
	makeChainWeights();
	vx_tensor dla = output(chainOutput()), cpu = output(chainOutput());
	auto build = [&](vx_graph g, vx_tensor out) { return chain(g, out, kLayers); };
	ASSERT_GE(sramFreeWhenIdle(), 2u * 4096) << "the guest's vDLA has SRAM";
	std::vector<unsigned> counts
		= submittedAddressCounts([&] { EXPECT_TRUE(runBoth(build, dla, cpu)); });
	ASSERT_EQ(counts.size(), 1u) << "one DLA task, one SUBMIT";
	EXPECT_EQ(counts[0], 8u);
	EXPECT_TRUE(sameValues(dla, cpu));
}

TEST_F(NnGraph, VirtualTensorsBetweenDlaNodesLiveInSram)
{
	in_ = input({ { 12, 10, 3 }, VX_TYPE_INT16, 8 }, -512, 512);
	vx_tensor wgt1 = input({ { 3, 3, 3, 8 }, VX_TYPE_INT16, 8 }, -200, 200);
	vx_tensor wgt2 = input({ { 3, 3, 8, 4 }, VX_TYPE_INT16, 8 }, -200, 200);
	const TensorSpec outSpec = { { 12, 10, 4 }, VX_TYPE_INT16, 8 };
	vx_tensor inSram = output(outSpec), inMemory = output(outSpec), cpu = output(outSpec);

	const uint64_t before = sramFreeWhenIdle();
	ASSERT_GT(before, 0u) << "the guest's vDLA has SRAM";
	vx_graph graph = vxCreateGraph(context_);
	std::vector<vx_node> nodes = twoConvolutions(graph, in_, wgt1, wgt2, inSram);
	for (vx_node node : nodes)
		ASSERT_EQ(VX_SUCCESS, vxSetNodeTarget(node, VX_TARGET_STRING, "dla"));
	ASSERT_EQ(VX_SUCCESS, vxVerifyGraph(graph));
	/* The 12x10x8 INT16 intermediate (1920 bytes) takes one page. */
	EXPECT_EQ(sramFree(), before - 4096) << "the virtual tensor is not in SRAM";
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph)) << "a second run";
	for (vx_node &node : nodes)
		vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	EXPECT_EQ(sramFreeOnceJobsRetire(before), before) << "the graph's SRAM was not given back";

	/* The same graph with SRAM off, and on the CPU: the same values. */
	ASSERT_EQ(0, setenv("VDLA_VX_SRAM", "0", 1));
	ASSERT_TRUE(runBoth(
		[&](vx_graph g, vx_tensor out) { return twoConvolutions(g, in_, wgt1, wgt2, out); },
		inMemory, cpu));
	unsetenv("VDLA_VX_SRAM");
	EXPECT_EQ(sramFreeOnceJobsRetire(before), before);
	EXPECT_TRUE(sameValues(inSram, cpu));
	EXPECT_TRUE(sameValues(inSram, inMemory));
}

/*
 * Units that start on the engine their parent ended on are ordered by the
 * engine instead of a link (VDLA_VX_ENGINE_ORDER, on by default): a chain
 * of convolutions (CONV -> SDP units, each linked) and of activations and
 * poolings unfused (SDP and PDP units, several on one engine) give the
 * same values either way, and the CPU's.
 */
TEST_F(NnGraph, EngineOrderInsteadOfLinksGivesIdenticalResults)
{
	makeNetwork();
	makeChainWeights();
	auto fourConvolutions = [&](vx_graph g, vx_tensor out) { return chain(g, out, 4); };
	auto activations = [&](vx_graph g, vx_tensor out) {
		const vx_size dims[] = { 12, 10, 8 };
		vx_tensor conv = vxCreateVirtualTensor(g, 3, dims, VX_TYPE_INT16, 8);
		vx_tensor relu = vxCreateVirtualTensor(g, 3, dims, VX_TYPE_INT16, 8);
		vx_tensor clip = vxCreateVirtualTensor(g, 3, dims, VX_TYPE_INT16, 8);
		const vx_nn_convolution_params_t params = sameSizeConvolution();
		std::vector<vx_node> nodes = {
			vxConvolutionLayer(g, in_, wgt_, bias_, &params, sizeof(params), conv),
			vxActivationLayer(g, conv, VX_NN_ACTIVATION_RELU, 0, 0, relu),
			vxActivationLayer(g, relu, VX_NN_ACTIVATION_BRELU, 2.0f, 0, clip),
			vxPoolingLayer(g, clip, VX_NN_POOLING_MAX, 2, 2, 0, 0,
				VX_NN_DS_SIZE_ROUNDING_FLOOR, out),
		};
		for (vx_tensor *t : { &conv, &relu, &clip })
			vxReleaseTensor(t);
		return nodes;
	};
	ASSERT_EQ(0, setenv("VDLA_VX_FUSION", "0", 1));
	for (const char *engineOrder : { "1", "0" }) {
		SCOPED_TRACE(std::string("VDLA_VX_ENGINE_ORDER=") + engineOrder);
		ASSERT_EQ(0, setenv("VDLA_VX_ENGINE_ORDER", engineOrder, 1));
		vx_tensor dla = output(chainOutput()), cpu = output(chainOutput());
		ASSERT_TRUE(runBoth(fourConvolutions, dla, cpu));
		EXPECT_TRUE(sameValues(dla, cpu));
		vx_tensor dla2 = output(pooled()), cpu2 = output(pooled());
		ASSERT_TRUE(runBoth(activations, dla2, cpu2));
		EXPECT_TRUE(sameValues(dla2, cpu2));
	}
	unsetenv("VDLA_VX_ENGINE_ORDER");
	unsetenv("VDLA_VX_FUSION");
}

TEST_F(NnGraph, NodesReportTheirTargetAndFusion)
{
	makeNetwork();
	vx_tensor out = output(pooled());
	for (const char *fusion : { "1", "0" }) {
		SCOPED_TRACE(std::string("VDLA_VX_FUSION=") + fusion);
		ASSERT_EQ(0, setenv("VDLA_VX_FUSION", fusion, 1));
		ASSERT_EQ(VX_SUCCESS, vxDirective(reinterpret_cast<vx_reference>(context_),
					      VX_DIRECTIVE_DISABLE_PERFORMANCE));
		vx_graph g = vxCreateGraph(context_);
		std::vector<vx_node> nodes = convReluPool(g, in_, wgt_, bias_, out);
		ASSERT_EQ(VX_SUCCESS, vxVerifyGraph(g));
		for (size_t i = 0; i < nodes.size(); i++) {
			vx_enum target = 0;
			vx_bool fused = vx_false_e;
			EXPECT_EQ(VX_SUCCESS,
				vxQueryNode(nodes[i], VX_NODE_VDLA_TARGET, &target, sizeof(target)));
			EXPECT_EQ(VX_SUCCESS,
				vxQueryNode(nodes[i], VX_NODE_VDLA_FUSED, &fused, sizeof(fused)));
			EXPECT_EQ(target, VX_VDLA_TARGET_DLA) << "node " << i << ", target any";
			const bool expectFused = i > 0 && fusion[0] == '1';
			EXPECT_EQ(fused, expectFused ? vx_true_e : vx_false_e) << "node " << i;
		}
		/* Performance is off by default: the run records no sample. */
		ASSERT_EQ(VX_SUCCESS, vxProcessGraph(g));
		vx_perf_t perf[3] = {};
		vxQueryNode(nodes[0], VX_NODE_PERFORMANCE, &perf[0], sizeof(perf[0]));
		EXPECT_EQ(perf[0].num, 0u) << "no device time without the directive";
		ASSERT_EQ(VX_SUCCESS, vxDirective(reinterpret_cast<vx_reference>(context_),
					      VX_DIRECTIVE_ENABLE_PERFORMANCE));
		ASSERT_EQ(VX_SUCCESS, vxProcessGraph(g));
		for (size_t i = 0; i < nodes.size(); i++)
			vxQueryNode(nodes[i], VX_NODE_PERFORMANCE, &perf[i], sizeof(perf[i]));
		EXPECT_EQ(perf[0].num, 1u);
		EXPECT_GT(perf[0].tmp, 0u) << "the chain's first node has its device time";
		if (fusion[0] == '1') {
			EXPECT_EQ(perf[1].tmp + perf[2].tmp, 0u) << "fused nodes report 0";
		}
		for (vx_node &node : nodes)
			vxReleaseNode(&node);
		vxReleaseGraph(&g);
	}
	unsetenv("VDLA_VX_FUSION");
}

TEST_F(NnGraph, WrappingConvolutionIsNotFusedWithItsActivation)
{
	/* RELU does not commute with a wrapping conversion: the runtime must
	 * keep them apart, and the result still matches the CPU. */
	makeNetwork();
	vx_tensor dla = output(pooled()), cpu = output(pooled());
	ASSERT_TRUE(runBoth(
		[&](vx_graph g, vx_tensor out) {
			return convReluPool(g, in_, wgt_, bias_, out, VX_CONVERT_POLICY_WRAP);
		},
		dla, cpu));
	EXPECT_TRUE(sameValues(dla, cpu));
}

/* A CPU user kernel: out = saturate(2 * in - 1) on INT16 tensors. */
vx_status VX_CALLBACK doubleMinusOne(vx_node, const vx_reference *parameters, vx_uint32)
{
	auto in = reinterpret_cast<vx_tensor>(parameters[0]);
	auto out = reinterpret_cast<vx_tensor>(parameters[1]);
	const vx_size count = elementCount(in);
	std::vector<int16_t> values(count);
	vx_size dims[4] = {}, start[4] = {}, strides[4] = {};
	vx_size n = 0;
	vxQueryTensor(in, VX_TENSOR_NUMBER_OF_DIMS, &n, sizeof(n));
	vxQueryTensor(in, VX_TENSOR_DIMS, dims, n * sizeof(vx_size));
	vx_size stride = sizeof(int16_t);
	for (vx_size i = 0; i < n; i++) {
		strides[i] = stride;
		stride *= dims[i];
	}
	vx_status status = vxCopyTensorPatch(
		in, n, start, dims, strides, values.data(), VX_READ_ONLY, VX_MEMORY_TYPE_HOST);
	if (status != VX_SUCCESS)
		return status;
	for (int16_t &v : values)
		v = int16_t(std::clamp(2 * int(v) - 1, -32768, 32767));
	return vxCopyTensorPatch(
		out, n, start, dims, strides, values.data(), VX_WRITE_ONLY, VX_MEMORY_TYPE_HOST);
}

vx_status VX_CALLBACK sameAsInput(vx_node, const vx_reference parameters[], vx_uint32,
	vx_meta_format metas[])
{
	return vxSetMetaFormatFromReference(metas[1], parameters[0]);
}

vx_kernel addDoubleKernel(vx_context context)
{
	vx_kernel kernel = vxGetKernelByName(context, "vdla.test.double_minus_one");
	if (vxGetStatus(reinterpret_cast<vx_reference>(kernel)) == VX_SUCCESS)
		return kernel;
	vx_enum id = 0;
	vxAllocateUserKernelId(context, &id);
	kernel = vxAddUserKernel(context, "vdla.test.double_minus_one", id, doubleMinusOne, 2,
		sameAsInput, nullptr, nullptr);
	vxAddParameterToKernel(kernel, 0, VX_INPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED);
	vxAddParameterToKernel(kernel, 1, VX_OUTPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED);
	vxFinalizeKernel(kernel);
	return kernel;
}

/* doubleMinusOne after 200 ms: long enough for a DLA task started before it to end. */
vx_status VX_CALLBACK slowDoubleMinusOne(vx_node node, const vx_reference *parameters,
	vx_uint32 count)
{
	usleep(200000);
	return doubleMinusOne(node, parameters, count);
}

vx_kernel addSlowDoubleKernel(vx_context context)
{
	vx_enum id = 0;
	vxAllocateUserKernelId(context, &id);
	vx_kernel kernel = vxAddUserKernel(context, "vdla.test.slow_double_minus_one", id,
		slowDoubleMinusOne, 2, sameAsInput, nullptr, nullptr);
	vxAddParameterToKernel(kernel, 0, VX_INPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED);
	vxAddParameterToKernel(kernel, 1, VX_OUTPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED);
	vxFinalizeKernel(kernel);
	return kernel;
}

/* DLA conv -> CPU user kernel -> DLA pooling -> DLA fully connected. */
std::vector<vx_node> mixedGraph(vx_graph g, vx_kernel user, vx_tensor in, vx_tensor wgt,
	vx_tensor bias, vx_tensor fcWeights, vx_tensor out)
{
	vx_tensor conv = vxCreateVirtualTensor(g, 0, nullptr, VX_TYPE_INVALID, 0);
	vx_tensor doubled = vxCreateVirtualTensor(g, 0, nullptr, VX_TYPE_INVALID, 0);
	/* Pooling infers its stride from the output's size: give it one. */
	const vx_size pooledDims[] = { 6, 5, 8 };
	vx_tensor pooled = vxCreateVirtualTensor(g, 3, pooledDims, VX_TYPE_INT16, 8);
	const vx_nn_convolution_params_t params = sameSizeConvolution();
	vx_node userNode = vxCreateGenericNode(g, user);
	vxSetParameterByIndex(userNode, 0, reinterpret_cast<vx_reference>(conv));
	vxSetParameterByIndex(userNode, 1, reinterpret_cast<vx_reference>(doubled));
	std::vector<vx_node> nodes = {
		vxConvolutionLayer(g, in, wgt, bias, &params, sizeof(params), conv),
		vxPoolingLayer(g, doubled, VX_NN_POOLING_AVG, 2, 2, 0, 0,
			VX_NN_DS_SIZE_ROUNDING_FLOOR, pooled),
		vxFullyConnectedLayer(g, pooled, fcWeights, nullptr, VX_CONVERT_POLICY_SATURATE,
			VX_ROUND_POLICY_TO_NEAREST_EVEN, out),
	};
	/* The user node runs on the CPU whatever the others do. */
	vx_status status = vxSetNodeTarget(userNode, VX_TARGET_STRING, "dla");
	EXPECT_EQ(VX_ERROR_NOT_SUPPORTED, status);
	vxReleaseNode(&userNode);
	vxReleaseTensor(&conv);
	vxReleaseTensor(&doubled);
	vxReleaseTensor(&pooled);
	return nodes;
}

TEST_F(NnGraph, MixedDlaAndCpuNodesMatchCpuOnly)
{
	makeNetwork();
	vx_kernel user = addDoubleKernel(context_);
	vx_tensor fcWeights = input({ { 6 * 5 * 8, 10 }, VX_TYPE_INT16, 8 }, -64, 64);
	TensorSpec outSpec{ { 10 }, VX_TYPE_INT16, 8 };
	vx_tensor dla = output(outSpec), cpu = output(outSpec);
	ASSERT_TRUE(runBoth(
		[&](vx_graph g, vx_tensor out) {
			return mixedGraph(g, user, in_, wgt_, bias_, fcWeights, out);
		},
		dla, cpu));
	EXPECT_TRUE(sameValues(dla, cpu));
	EXPECT_EQ(VX_SUCCESS, vxRemoveKernel(user));
}

TEST_F(NnGraph, IndependentDlaNodesMergeIntoOneTask)
{
	/* Created in the order conv A, user node U (reads A), conv B, pool C
	 * (reads B): B and C do not depend on U, so A, B and C make one task
	 * and U runs after it. */
	makeNetwork();
	vx_kernel user = addDoubleKernel(context_);
	vx_tensor in2 = input({ { 12, 10, 3 }, VX_TYPE_INT16, 8 }, -512, 512);
	const TensorSpec convSpec{ { 12, 10, 8 }, VX_TYPE_INT16, 8 };
	vx_tensor outs[2][2] = { { output(convSpec), output(pooled()) },
		{ output(convSpec), output(pooled()) } };
	const vx_nn_convolution_params_t params = sameSizeConvolution();

	for (int pass = 0; pass < 2; pass++) {
		const char *target = pass == 0 ? "dla" : "cpu";
		vx_graph g = vxCreateGraph(context_);
		vx_tensor a = vxCreateVirtualTensor(g, 0, nullptr, VX_TYPE_INVALID, 0);
		vx_tensor b = vxCreateVirtualTensor(g, 0, nullptr, VX_TYPE_INVALID, 0);
		vx_node nodeA = vxConvolutionLayer(g, in_, wgt_, bias_, &params, sizeof(params), a);
		vx_node nodeU = vxCreateGenericNode(g, user);
		vxSetParameterByIndex(nodeU, 0, reinterpret_cast<vx_reference>(a));
		vxSetParameterByIndex(nodeU, 1, reinterpret_cast<vx_reference>(outs[pass][0]));
		vx_node nodeB = vxConvolutionLayer(g, in2, wgt_, bias_, &params, sizeof(params), b);
		vx_node nodeC = vxPoolingLayer(g, b, VX_NN_POOLING_MAX, 2, 2, 0, 0,
			VX_NN_DS_SIZE_ROUNDING_FLOOR, outs[pass][1]);
		for (vx_node node : { nodeA, nodeB, nodeC })
			ASSERT_EQ(VX_SUCCESS, vxSetNodeTarget(node, VX_TARGET_STRING, target));
		runCountingTasks(g, pass, 1, "A, B and C were not one task");
		for (vx_node node : { nodeA, nodeU, nodeB, nodeC })
			vxReleaseNode(&node);
		vxReleaseTensor(&a);
		vxReleaseTensor(&b);
		vxReleaseGraph(&g);
	}
	EXPECT_TRUE(sameValues(outs[0][0], outs[1][0]));
	EXPECT_TRUE(sameValues(outs[0][1], outs[1][1]));
	EXPECT_EQ(VX_SUCCESS, vxRemoveKernel(user));
}

TEST_F(NnGraph, ScheduledGraphsRunConcurrently)
{
	makeNetwork();
	constexpr int kGraphs = 4;
	vx_tensor reference = output(pooled());
	vx_tensor cpuOnly = output(pooled());
	ASSERT_TRUE(runBoth([&](vx_graph g, vx_tensor out) {
		return convReluPool(g, in_, wgt_, bias_, out);
	}, reference, cpuOnly));

	vx_graph graphs[kGraphs];
	vx_tensor outs[kGraphs];
	for (int i = 0; i < kGraphs; i++) {
		graphs[i] = vxCreateGraph(context_);
		outs[i] = output(pooled());
		for (vx_node node : convReluPool(graphs[i], in_, wgt_, bias_, outs[i])) {
			ASSERT_EQ(VX_SUCCESS, vxSetNodeTarget(node, VX_TARGET_STRING, "dla"));
			vxReleaseNode(&node);
		}
		ASSERT_EQ(VX_SUCCESS, vxVerifyGraph(graphs[i]));
	}
	for (int round = 0; round < 5; round++) {
		/* vxScheduleGraph returns at once: all four are in flight together. */
		for (vx_graph g : graphs)
			ASSERT_EQ(VX_SUCCESS, vxScheduleGraph(g));
		for (vx_graph g : graphs)
			ASSERT_EQ(VX_SUCCESS, vxWaitGraph(g));
		for (vx_tensor out : outs)
			ASSERT_TRUE(sameValues(out, reference));
	}
	for (vx_graph &g : graphs)
		vxReleaseGraph(&g);
}

TEST_F(NnGraph, SeveralProcessesShareTheDla)
{
	constexpr int kProcesses = 3;
	pid_t children[kProcesses];
	for (int p = 0; p < kProcesses; p++) {
		children[p] = fork();
		ASSERT_GE(children[p], 0);
		if (children[p])
			continue;
		/* The child: its own context, device file and graphs. */
		int failures = 0;
		vx_context context = vxCreateContext();
		std::mt19937 random(100 + p);
		vx_size dims[3] = { 12, 10, 3 }, wdims[4] = { 3, 3, 3, 8 }, odims[3] = { 6, 5, 8 };
		vx_tensor in = vxCreateTensor(context, 3, dims, VX_TYPE_INT16, 8);
		vx_tensor wgt = vxCreateTensor(context, 4, wdims, VX_TYPE_INT16, 8);
		std::vector<int16_t> data(12 * 10 * 3), weights(3 * 3 * 3 * 8);
		for (int16_t &v : data)
			v = int16_t(random() % 1024) - 512;
		for (int16_t &v : weights)
			v = int16_t(random() % 400) - 200;
		vx_size start[4] = {}, st[4] = { 2, 24, 240, 0 }, wst[4] = { 2, 6, 18, 54 };
		vxCopyTensorPatch(in, 3, start, dims, st, data.data(), VX_WRITE_ONLY,
			VX_MEMORY_TYPE_HOST);
		vxCopyTensorPatch(wgt, 4, start, wdims, wst, weights.data(), VX_WRITE_ONLY,
			VX_MEMORY_TYPE_HOST);
		vx_tensor outs[2];
		vx_graph graphs[2];
		for (int i = 0; i < 2; i++) {
			outs[i] = vxCreateTensor(context, 3, odims, VX_TYPE_INT16, 8);
			graphs[i] = vxCreateGraph(context);
			for (vx_node node : convReluPool(graphs[i], in, wgt, nullptr, outs[i])) {
				vxSetNodeTarget(node, VX_TARGET_STRING, i == 0 ? "dla" : "cpu");
				vxReleaseNode(&node);
			}
		}
		for (int round = 0; round < 10 && !failures; round++) {
			failures += vxProcessGraph(graphs[0]) != VX_SUCCESS;
			failures += vxProcessGraph(graphs[1]) != VX_SUCCESS;
			std::vector<double> a = readValues(outs[0]), b = readValues(outs[1]);
			failures += a != b;
		}
		vxReleaseContext(&context);
		_exit(failures ? 1 : 0);
	}
	for (pid_t child : children) {
		int status = 0;
		ASSERT_EQ(child, waitpid(child, &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
			<< "child " << child << " status " << status;
	}
}

TEST_F(NnGraph, ImpossibleDlaTargetsAreRefused)
{
	vx_tensor in = input({ { 4, 4, 8 }, VX_TYPE_FLOAT32, 0 }, -1, 1);
	TensorSpec spec{ { 4, 4, 8 }, VX_TYPE_FLOAT32, 0 };
	vx_tensor out = output(spec);

	/* Tensor add has no DLA implementation: refused at once. */
	vx_graph graph = vxCreateGraph(context_);
	vx_node add = vxTensorAddNode(graph, in, in, VX_CONVERT_POLICY_SATURATE, out);
	EXPECT_EQ(VX_ERROR_NOT_SUPPORTED, vxSetNodeTarget(add, VX_TARGET_STRING, "dla"));
	EXPECT_EQ(VX_SUCCESS, vxProcessGraph(graph));
	vxReleaseNode(&add);
	vxReleaseGraph(&graph);

	/* A convolution padded by 32 columns, beyond the CONV's 31: refused at
	 * verification, fine on "any". */
	vx_tensor weights = input({ { 3, 3, 8, 2 }, VX_TYPE_FLOAT32, 0 }, -1, 1);
	vx_tensor wide = output({ { 66, 2, 2 }, VX_TYPE_FLOAT32, 0 });
	vx_nn_convolution_params_t params = {};
	params.padding_x = 32;
	params.overflow_policy = VX_CONVERT_POLICY_SATURATE;
	params.rounding_policy = VX_ROUND_POLICY_TO_NEAREST_EVEN;
	params.down_scale_size_rounding = VX_NN_DS_SIZE_ROUNDING_FLOOR;
	graph = vxCreateGraph(context_);
	vx_node conv
		= vxConvolutionLayer(graph, in, weights, nullptr, &params, sizeof(params), wide);
	EXPECT_TRUE(refusedOnDlaRunsOnCpu(graph, conv));
	vxReleaseNode(&conv);
	vxReleaseGraph(&graph);
}

} /* namespace */

namespace {

TEST_F(NnGraph, RebindingAnOutputWritesTheNewTensor)
{
	/* Same meta data keeps the graph verified, but the DLA task must now
	 * write the new tensor, not the old one. */
	makeNetwork();
	vx_tensor first = output(pooled()), second = output(pooled()), cpu = output(pooled());
	ASSERT_TRUE(runBoth([&](vx_graph g, vx_tensor out) {
		return convReluPool(g, in_, wgt_, bias_, out);
	}, first, cpu));

	vx_graph graph = vxCreateGraph(context_);
	std::vector<vx_node> nodes = convReluPool(graph, in_, wgt_, bias_, first);
	for (vx_node node : nodes)
		ASSERT_EQ(VX_SUCCESS, vxSetNodeTarget(node, VX_TARGET_STRING, "dla"));
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));
	ASSERT_EQ(VX_SUCCESS,
		vxSetParameterByIndex(nodes[2], 7, reinterpret_cast<vx_reference>(second)));
	EXPECT_EQ(vx_true_e, vxIsGraphVerified(graph));
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));
	EXPECT_TRUE(sameValues(second, cpu));
	for (vx_node &node : nodes)
		vxReleaseNode(&node);
	vxReleaseGraph(&graph);
}

vx_uint32 timesPlanned(vx_graph graph)
{
	vx_uint32 plans = 0;
	EXPECT_EQ(VX_SUCCESS, vxQueryGraph(graph, VX_GRAPH_VDLA_PLANS, &plans, sizeof(plans)));
	return plans;
}

/*
 * Rebinding the input and the output of a DLA graph to tensors of the same
 * meta data changes only the addresses its task names: the graph is not
 * planned again, and gives the CPU's values for the new tensors. With
 * VDLA_VX_RETARGET=0, or for a view (which the task reads through a copy),
 * it is planned again, with the same values.
 */
TEST_F(NnGraph, RebindingToTensorsOfTheSameMetaDataChangesOnlyAddresses)
{
	makeNetwork();
	const TensorSpec inSpec = { { 12, 10, 3 }, VX_TYPE_INT16, 8 };
	vx_tensor otherIn = input(inSpec, -512, 512);
	vx_tensor bigger = input({ { 12, 10, 4 }, VX_TYPE_INT16, 8 }, -512, 512);
	const vx_size viewStart[] = { 0, 0, 1 }, viewEnd[] = { 12, 10, 4 };
	vx_tensor view = vxCreateTensorFromView(bigger, 3, viewStart, viewEnd);
	ASSERT_EQ(VX_SUCCESS, vxGetStatus(reinterpret_cast<vx_reference>(view)));
	owned_.push_back(reinterpret_cast<vx_reference>(view));

	for (const char *retarget : { "1", "0" }) {
		SCOPED_TRACE(std::string("VDLA_VX_RETARGET=") + retarget);
		ASSERT_EQ(0, setenv("VDLA_VX_RETARGET", retarget, 1));
		vx_graph graph = vxCreateGraph(context_);
		vx_tensor first = output(pooled());
		std::vector<vx_node> nodes = convReluPool(graph, in_, wgt_, bias_, first);
		for (vx_node node : nodes)
			ASSERT_EQ(VX_SUCCESS, vxSetNodeTarget(node, VX_TARGET_STRING, "dla"));
		vx_parameter inParameter = vxGetParameterByIndex(nodes[0], 0);
		vx_parameter outParameter = vxGetParameterByIndex(nodes[2], 7);
		ASSERT_EQ(VX_SUCCESS, vxAddParameterToGraph(graph, inParameter));
		ASSERT_EQ(VX_SUCCESS, vxAddParameterToGraph(graph, outParameter));
		vxReleaseParameter(&inParameter);
		vxReleaseParameter(&outParameter);
		ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));
		ASSERT_EQ(timesPlanned(graph), 1u);

		vx_uint32 expectedPlans = 1;
		for (vx_tensor newIn : { otherIn, in_, view }) {
			const bool isView = newIn == view;
			SCOPED_TRACE(isView ? "a view" : "a tensor of its own");
			vx_tensor dlaOut = output(pooled()), cpuOut = output(pooled()),
				  unused = output(pooled());
			ASSERT_TRUE(runBoth([&](vx_graph g, vx_tensor out) {
				return convReluPool(g, newIn, wgt_, bias_, out);
			}, unused, cpuOut));
			ASSERT_EQ(VX_SUCCESS, vxSetGraphParameterByIndex(graph, 0,
				reinterpret_cast<vx_reference>(newIn)));
			ASSERT_EQ(VX_SUCCESS, vxSetGraphParameterByIndex(graph, 1,
				reinterpret_cast<vx_reference>(dlaOut)));
			ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));
			EXPECT_TRUE(sameValues(dlaOut, cpuOut));
			if (isView || retarget[0] == '0')
				expectedPlans++;
			EXPECT_EQ(timesPlanned(graph), expectedPlans);
		}
		for (vx_node &node : nodes)
			vxReleaseNode(&node);
		vxReleaseGraph(&graph);
	}
	unsetenv("VDLA_VX_RETARGET");
}

/*
 * Rebindings the DLA task cannot take by changing addresses are planned
 * again, with the CPU's values: a scalar (the activation's a), a tensor
 * another node reads through a view of it, and a CPU node's input rebound
 * to a virtual tensor that the plan had fused away.
 */
TEST_F(NnGraph, RebindingsThatChangeMoreThanAddressesArePlannedAgain)
{
	const TensorSpec spec = { { 8, 6, 4 }, VX_TYPE_INT16, 8 };
	vx_tensor a = input(spec, -512, 512), b = input(spec, -512, 512);
	auto linear = [&](vx_graph g, vx_tensor in, vx_float32 slope, vx_tensor out) {
		return vxActivationLayer(g, in, VX_NN_ACTIVATION_LINEAR, slope, 0.5f, out);
	};

	/* A scalar: the activation's slope. */
	{
		vx_tensor dla = output(spec), cpu = output(spec), unused = output(spec);
		ASSERT_TRUE(runBoth([&](vx_graph g, vx_tensor out) {
			return std::vector<vx_node>{ linear(g, a, 2.0f, out) };
		}, unused, cpu));
		vx_graph graph = vxCreateGraph(context_);
		vx_node node = linear(graph, a, 1.0f, dla);
		ASSERT_EQ(VX_SUCCESS, vxSetNodeTarget(node, VX_TARGET_STRING, "dla"));
		ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));
		const vx_float32 two = 2.0f;
		vx_scalar slope = vxCreateScalar(context_, VX_TYPE_FLOAT32, &two);
		ASSERT_EQ(VX_SUCCESS,
			vxSetParameterByIndex(node, 2, reinterpret_cast<vx_reference>(slope)));
		vxReleaseScalar(&slope);
		ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));
		EXPECT_TRUE(sameValues(dla, cpu)) << "the task kept the old slope";
		EXPECT_EQ(timesPlanned(graph), 2u);
		vxReleaseNode(&node);
		vxReleaseGraph(&graph);
	}

	/* A tensor that another node of the task reads through a view of it. */
	{
		const vx_size start[] = { 0, 0, 0 }, end[] = { 8, 6, 2 };
		vx_tensor view = vxCreateTensorFromView(a, 3, start, end);
		owned_.push_back(reinterpret_cast<vx_reference>(view));
		const TensorSpec half = { { 8, 6, 2 }, VX_TYPE_INT16, 8 };
		vx_tensor viewOut = output(half), cpu = output(half), unused = output(half);
		ASSERT_TRUE(runBoth([&](vx_graph g, vx_tensor out) {
			return std::vector<vx_node>{ linear(g, view, 1.0f, out) };
		}, unused, cpu));
		vx_graph graph = vxCreateGraph(context_);
		vx_node whole = linear(graph, a, 1.0f, output(spec));
		vx_node part = linear(graph, view, 1.0f, viewOut);
		for (vx_node node : { whole, part })
			ASSERT_EQ(VX_SUCCESS, vxSetNodeTarget(node, VX_TARGET_STRING, "dla"));
		ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));
		ASSERT_EQ(VX_SUCCESS, vxSetParameterByIndex(whole, 0, reinterpret_cast<vx_reference>(b)));
		ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));
		EXPECT_TRUE(sameValues(viewOut, cpu)) << "the view now reads the new tensor";
		vxReleaseNode(&whole);
		vxReleaseNode(&part);
		vxReleaseGraph(&graph);
	}

	/* A CPU node's input rebound to a virtual tensor the DLA fused away. */
	{
		makeNetwork();
		const TensorSpec convSpec = { { 12, 10, 8 }, VX_TYPE_INT16, 8 };
		vx_tensor p = input(convSpec, -512, 512), q = input(convSpec, -512, 512);
		vx_tensor sum = output(convSpec), expected = output(convSpec);
		vx_graph graph = vxCreateGraph(context_);
		vx_tensor conv = vxCreateVirtualTensor(graph, 3, convSpec.dims.data(), VX_TYPE_INT16, 8);
		const vx_nn_convolution_params_t params = sameSizeConvolution();
		std::vector<vx_node> nodes = {
			vxConvolutionLayer(graph, in_, wgt_, bias_, &params, sizeof(params), conv),
			vxActivationLayer(graph, conv, VX_NN_ACTIVATION_RELU, 0, 0, output(convSpec)),
			vxTensorAddNode(graph, p, q, VX_CONVERT_POLICY_SATURATE, sum),
		};
		ASSERT_EQ(VX_SUCCESS, vxSetNodeTarget(nodes[2], VX_TARGET_STRING, "cpu"));
		ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));
		ASSERT_EQ(VX_SUCCESS,
			vxSetParameterByIndex(nodes[2], 0, reinterpret_cast<vx_reference>(conv)));
		ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));

		/* The same sum from a graph that had it from the start, on the CPU. */
		vx_tensor convCpu = output(convSpec);
		vx_graph reference = vxCreateGraph(context_);
		std::vector<vx_node> cpuNodes = {
			vxConvolutionLayer(reference, in_, wgt_, bias_, &params, sizeof(params), convCpu),
			vxTensorAddNode(reference, convCpu, q, VX_CONVERT_POLICY_SATURATE, expected),
		};
		for (vx_node node : cpuNodes)
			ASSERT_EQ(VX_SUCCESS, vxSetNodeTarget(node, VX_TARGET_STRING, "cpu"));
		ASSERT_EQ(VX_SUCCESS, vxProcessGraph(reference));
		EXPECT_TRUE(sameValues(sum, expected)) << "the CPU node read the fused intermediate";
		for (vx_node &node : cpuNodes)
			vxReleaseNode(&node);
		vxReleaseGraph(&reference);
		for (vx_node &node : nodes)
			vxReleaseNode(&node);
		vxReleaseTensor(&conv);
		vxReleaseGraph(&graph);
	}
}

} /* namespace */

namespace {

TEST_F(NnGraph, FullyConnectedFusedWithActivationMatchesCpu)
{
	/* The fused SDP writes the activation's output with the fully
	 * connected layer's view of it (features as channels). */
	vx_tensor in = input({ { 4, 3, 5 }, VX_TYPE_INT16, 8 }, -512, 512);
	vx_tensor wgt = input({ { 60, 12 }, VX_TYPE_INT16, 8 }, -128, 128);
	vx_tensor bias = input({ { 12 }, VX_TYPE_INT16, 8 }, -256, 256);
	TensorSpec outSpec{ { 12 }, VX_TYPE_INT16, 8 };
	vx_tensor dla = output(outSpec), cpu = output(outSpec);
	ASSERT_TRUE(runBoth(
		[&](vx_graph g, vx_tensor out) {
			vx_tensor fc = vxCreateVirtualTensor(g, 0, nullptr, VX_TYPE_INVALID, 0);
			std::vector<vx_node> nodes = {
				vxFullyConnectedLayer(g, in, wgt, bias, VX_CONVERT_POLICY_SATURATE,
					VX_ROUND_POLICY_TO_NEAREST_EVEN, fc),
				vxActivationLayer(g, fc, VX_NN_ACTIVATION_RELU, 0, 0, out),
			};
			vxReleaseTensor(&fc);
			return nodes;
		},
		dla, cpu));
	EXPECT_TRUE(sameValues(dla, cpu));
}

} /* namespace */

namespace {

/* fully connected -> (virtual) -> softmax, as at the end of a classifier. */
std::vector<vx_node> classifierHead(
	vx_graph g, vx_tensor in, vx_tensor wgt, vx_tensor bias, vx_tensor out)
{
	vx_tensor logits = vxCreateVirtualTensor(g, 0, nullptr, VX_TYPE_INVALID, 0);
	std::vector<vx_node> nodes = {
		vxFullyConnectedLayer(g, in, wgt, bias, VX_CONVERT_POLICY_SATURATE,
			VX_ROUND_POLICY_TO_NEAREST_EVEN, logits),
		vxSoftmaxLayer(g, logits, out),
	};
	vxReleaseTensor(&logits);
	return nodes;
}

TEST_F(NnGraph, SoftmaxAfterFullyConnectedRunsOnTheDla)
{
	/* Two samples of 60 features to 12 classes in Q7.8, probabilities in Q1.14. */
	vx_tensor in = input({ { 4, 3, 5, 2 }, VX_TYPE_INT16, 8 }, -512, 512);
	vx_tensor wgt = input({ { 60, 12 }, VX_TYPE_INT16, 8 }, -128, 128);
	vx_tensor bias = input({ { 12 }, VX_TYPE_INT16, 8 }, -256, 256);
	TensorSpec outSpec{ { 12, 2 }, VX_TYPE_INT16, 14 };
	vx_tensor dla = output(outSpec), cpu = output(outSpec), memory = output(outSpec);
	auto build
		= [&](vx_graph g, vx_tensor out) { return classifierHead(g, in, wgt, bias, out); };
	ASSERT_TRUE(runBoth(build, dla, cpu));
	EXPECT_TRUE(sameValues(dla, cpu, 1));

	/* The softmax's intermediates in SRAM or in memory: the same values. */
	ASSERT_EQ(0, setenv("VDLA_VX_SRAM", "0", 1));
	vx_tensor cpu2 = output(outSpec);
	ASSERT_TRUE(runBoth(build, memory, cpu2));
	unsetenv("VDLA_VX_SRAM");
	EXPECT_TRUE(sameValues(dla, memory));

	/* Its intermediates are SRAM buffers of the graph; its device time
	 * (that of all its operations) is one sample per run. */
	const uint64_t before = sramFreeWhenIdle();
	vx_graph g = vxCreateGraph(context_);
	std::vector<vx_node> nodes = build(g, dla);
	vx_enum target = 0;
	ASSERT_EQ(VX_SUCCESS, vxVerifyGraph(g));
	ASSERT_EQ(VX_SUCCESS, vxQueryNode(nodes[1], VX_NODE_VDLA_TARGET, &target, sizeof(target)));
	EXPECT_EQ(VX_VDLA_TARGET_CPU, target) << "target any keeps a softmax on the CPU";
	for (vx_node node : nodes)
		ASSERT_EQ(VX_SUCCESS, vxSetNodeTarget(node, VX_TARGET_STRING, "dla"));
	ASSERT_EQ(VX_SUCCESS, vxVerifyGraph(g));
	/* More than the one page of the logits (48 bytes). */
	EXPECT_GT(before - sramFree(), 4096u) << "the softmax's intermediates are not in SRAM";
	ASSERT_EQ(VX_SUCCESS,
		vxDirective(reinterpret_cast<vx_reference>(context_), VX_DIRECTIVE_ENABLE_PERFORMANCE));
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(g));
	vx_perf_t perf = {};
	ASSERT_EQ(VX_SUCCESS, vxQueryNode(nodes[1], VX_NODE_VDLA_TARGET, &target, sizeof(target)));
	EXPECT_EQ(VX_VDLA_TARGET_DLA, target);
	ASSERT_EQ(VX_SUCCESS, vxQueryNode(nodes[1], VX_NODE_PERFORMANCE, &perf, sizeof(perf)));
	EXPECT_EQ(1u, perf.num);
	EXPECT_GT(perf.tmp, 0u);
	for (vx_node &node : nodes)
		vxReleaseNode(&node);
	vxReleaseGraph(&g);
	EXPECT_EQ(before, sramFreeOnceJobsRetire(before)) << "the graph gives its SRAM back";
}

/*
 * A convolution replicated over an object array of three inputs (the
 * weights shared): its replicas are DLA nodes like any, all three in one
 * task, and each item equals what a plain CPU graph of one convolution
 * makes of its input, as does the replicated graph on the CPU.
 */
TEST_F(NnGraph, AReplicatedLayerRunsEveryItemOnTheDla)
{
	makeNetwork();
	const vx_size items = 3;
	vx_object_array in = vxCreateObjectArray(context_, reinterpret_cast<vx_reference>(in_), items);
	ASSERT_EQ(VX_SUCCESS, vxGetStatus(reinterpret_cast<vx_reference>(in)));
	for (vx_uint32 k = 0; k < items; k++) {
		vx_tensor values = input({ { 12, 10, 3 }, VX_TYPE_INT16, 8 }, -512, 512);
		auto item = reinterpret_cast<vx_tensor>(vxGetObjectArrayItem(in, k));
		const std::vector<double> raw = readValues(values);
		std::vector<int16_t> elements(raw.begin(), raw.end());
		const vx_size start[3] = {}, end[3] = { 12, 10, 3 };
		const vx_size strides[3] = { 2, 24, 240 };
		ASSERT_EQ(VX_SUCCESS, vxCopyTensorPatch(item, 3, start, end, strides, elements.data(),
					      VX_WRITE_ONLY, VX_MEMORY_TYPE_HOST));
		vxReleaseTensor(&item);
	}
	const vx_nn_convolution_params_t params = sameSizeConvolution();
	vx_tensor exemplar = output({ { 12, 10, 8 }, VX_TYPE_INT16, 8 });
	vx_object_array outs[2];
	for (int pass = 0; pass < 2; pass++) {
		const char *target = pass == 0 ? "dla" : "cpu";
		SCOPED_TRACE(target);
		outs[pass] = vxCreateObjectArray(context_, reinterpret_cast<vx_reference>(exemplar),
			items);
		vx_graph g = vxCreateGraph(context_);
		auto first = reinterpret_cast<vx_tensor>(vxGetObjectArrayItem(in, 0));
		auto result = reinterpret_cast<vx_tensor>(vxGetObjectArrayItem(outs[pass], 0));
		vx_node conv = vxConvolutionLayer(
			g, first, wgt_, bias_, &params, sizeof(params), result);
		ASSERT_EQ(VX_SUCCESS, vxSetNodeTarget(conv, VX_TARGET_STRING, target));
		vx_bool replicate[] = { vx_true_e, vx_false_e, vx_false_e, vx_false_e, vx_true_e };
		ASSERT_EQ(VX_SUCCESS, vxReplicateNode(g, conv, replicate, 5));
		runCountingTasks(g, pass, 1, "the replicas were not one DLA task");
		vxReleaseTensor(&first);
		vxReleaseTensor(&result);
		vxReleaseNode(&conv);
		vxReleaseGraph(&g);
	}
	for (vx_uint32 k = 0; k < items; k++) {
		auto source = reinterpret_cast<vx_tensor>(vxGetObjectArrayItem(in, k));
		vx_tensor expected = output({ { 12, 10, 8 }, VX_TYPE_INT16, 8 });
		vx_graph g = vxCreateGraph(context_);
		vx_node conv = vxConvolutionLayer(
			g, source, wgt_, bias_, &params, sizeof(params), expected);
		ASSERT_EQ(VX_SUCCESS, vxSetNodeTarget(conv, VX_TARGET_STRING, "cpu"));
		ASSERT_EQ(VX_SUCCESS, vxProcessGraph(g));
		const std::vector<double> values = readValues(expected);
		EXPECT_GT(std::count_if(values.begin(), values.end(), [](double v) { return v != 0; }),
			0) << "item " << k;
		for (vx_object_array out : outs) {
			auto item = reinterpret_cast<vx_tensor>(vxGetObjectArrayItem(out, k));
			EXPECT_TRUE(sameValues(item, expected))
				<< "item " << k << (out == outs[0] ? " on the DLA" : " on the CPU");
			vxReleaseTensor(&item);
		}
		vxReleaseNode(&conv);
		vxReleaseGraph(&g);
		vxReleaseTensor(&source);
	}
	for (vx_object_array &array : outs)
		vxReleaseObjectArray(&array);
	vxReleaseObjectArray(&in);
}

/*
 * Two DLA tasks in flight around a CPU node: A starts, a slow CPU node runs
 * (A ends meanwhile), B, which reads the CPU node's output, starts, and only
 * then is A waited for. Each task asks about its own job once the other has
 * submitted: both must learn that theirs succeeded. With one timeline for
 * the graph, asking about A after B's point was added found A's outcome
 * merged away, and the run failed.
 */
TEST_F(NnGraph, TasksInFlightTogetherEachLearnTheirOutcome)
{
	makeNetwork();
	vx_kernel slow = addSlowDoubleKernel(context_);
	vx_tensor in2 = input({ { 12, 10, 3 }, VX_TYPE_INT16, 8 }, -256, 256);
	const TensorSpec convSpec{ { 12, 10, 8 }, VX_TYPE_INT16, 8 };
	vx_tensor outs[2][2] = { { output(convSpec), output(convSpec) },
		{ output(convSpec), output(convSpec) } };
	const vx_nn_convolution_params_t params = sameSizeConvolution();
	for (int pass = 0; pass < 2; pass++) {
		const char *target = pass == 0 ? "dla" : "cpu";
		SCOPED_TRACE(target);
		vx_graph g = vxCreateGraph(context_);
		vx_tensor x = vxCreateVirtualTensor(g, 0, nullptr, VX_TYPE_INVALID, 0);
		vx_node nodeA = vxConvolutionLayer(g, in_, wgt_, bias_, &params, sizeof(params),
			outs[pass][0]);
		vx_node nodeX = vxCreateGenericNode(g, slow);
		vxSetParameterByIndex(nodeX, 0, reinterpret_cast<vx_reference>(in2));
		vxSetParameterByIndex(nodeX, 1, reinterpret_cast<vx_reference>(x));
		vx_node nodeB = vxConvolutionLayer(g, x, wgt_, bias_, &params, sizeof(params),
			outs[pass][1]);
		for (vx_node node : { nodeA, nodeB })
			ASSERT_EQ(VX_SUCCESS, vxSetNodeTarget(node, VX_TARGET_STRING, target));
		runCountingTasks(g, pass, 2, "A and B were not two tasks");
		for (vx_node node : { nodeA, nodeX, nodeB })
			vxReleaseNode(&node);
		vxReleaseTensor(&x);
		vxReleaseGraph(&g);
	}
	EXPECT_TRUE(sameValues(outs[0][0], outs[1][0]));
	EXPECT_TRUE(sameValues(outs[0][1], outs[1][1]));
	EXPECT_EQ(VX_SUCCESS, vxRemoveKernel(slow));
}

} /* namespace */
