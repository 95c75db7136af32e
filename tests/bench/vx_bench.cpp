/* SPDX-License-Identifier: MIT */
/*
 * vdla-bench-vx [RUNS]: what the OpenVX graph executor costs on top of the
 * work it schedules, printed as JSON lines. Each figure is the median over
 * RUNS (default 11) executions of a verified graph, after a warm-up run:
 *
 *  graph_overhead_us_per_cpu_node   a chain of 1000 user-kernel nodes, each
 *                                   copying a 1-element tensor to the next:
 *                                   vxProcessGraph time / 1000
 *  graph_overhead_us_per_dla_layer  a chain of 100 INT8 RELU layers on an
 *                                   8x8 tensor, target "dla", fusion off
 *                                   (VDLA_VX_FUSION=0): (vxProcessGraph time
 *                                   - device time) / 100, the device time
 *                                   being the sum of the nodes'
 *                                   VX_NODE_PERFORMANCE of that run
 *  graph_us_per_dla_layer_uncounted the same chain with performance
 *                                   disabled, so without the device's
 *                                   per-operation counters: vxProcessGraph
 *                                   time / 100, device time included
 *
 *  graph_rebind_us                  a DLA graph (3x3 convolution of a
 *                                   16x16x8 INT8 tensor, then RELU) whose
 *                                   input is a graph parameter, rebound to
 *                                   one of two tensors of the same meta
 *                                   data before each run: (rebind + run)
 *                                   - run alone, median of the differences
 *                                   of pairs timed one after the other
 *
 * Needs a vDLA for the last two. VDLA_VX_RETARGET=0 measures rebinding
 * that plans the graph again (docs/openvx.md, "Rebinding").
 */
#include <VX/vx.h>
#include <VX/vx_khr_nn.h>
#include <VX/vx_vdla.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "vx_program.h"

namespace {

constexpr int kCpuNodes = 1000;
constexpr int kDlaLayers = 100;

vx_status VX_CALLBACK copyValidate(
	vx_node, const vx_reference parameters[], vx_uint32, vx_meta_format metas[])
{
	return vxSetMetaFormatFromReference(metas[1], parameters[0]);
}

vx_status VX_CALLBACK copyRun(vx_node, const vx_reference *parameters, vx_uint32)
{
	const vx_size start = 0, end = 1, stride = sizeof(vx_int16);
	vx_int16 value;
	vx_status status = vxCopyTensorPatch(reinterpret_cast<vx_tensor>(parameters[0]), 1, &start,
		&end, &stride, &value, VX_READ_ONLY, VX_MEMORY_TYPE_HOST);
	if (status != VX_SUCCESS)
		return status;
	return vxCopyTensorPatch(reinterpret_cast<vx_tensor>(parameters[1]), 1, &start, &end,
		&stride, &value, VX_WRITE_ONLY, VX_MEMORY_TYPE_HOST);
}

/*
 * A chain of @length nodes from a real tensor of @dims to another through
 * virtual ones; @link creates node i from its input to its output.
 */
template <typename Link>
std::vector<vx_node> buildChain(VxCheck &check, vx_context context, vx_graph graph,
	const std::vector<vx_size> &dims, vx_enum type, int length, Link link)
{
	std::vector<vx_node> nodes;
	vx_tensor in = check.object(vxCreateTensor(context, dims.size(), dims.data(), type, 0),
		"vxCreateTensor(chain input)");
	for (int i = 0; i < length && check.ok(); i++) {
		vx_tensor out = i + 1 == length
			? vxCreateTensor(context, dims.size(), dims.data(), type, 0)
			: vxCreateVirtualTensor(graph, dims.size(), dims.data(), type, 0);
		check.object(out, "creating tensor " + std::to_string(i + 1) + " of the chain");
		nodes.push_back(check.object(link(in, out), "creating node " + std::to_string(i)));
		in = out;
	}
	return nodes;
}

double median(std::vector<double> values)
{
	std::sort(values.begin(), values.end());
	return values[values.size() / 2];
}

/*
 * Runs @graph once to warm up, then @runs times; returns each run's
 * vxProcessGraph time minus @excluded(), in microseconds.
 */
template <typename Excluded>
std::vector<double> timeRuns(VxCheck &check, vx_graph graph, int runs, Excluded excluded)
{
	std::vector<double> micros;
	if (!check.status(vxProcessGraph(graph), "vxProcessGraph (warm-up)"))
		return micros;
	for (int i = 0; i < runs; i++) {
		const auto start = std::chrono::steady_clock::now();
		const vx_status status = vxProcessGraph(graph);
		const std::chrono::duration<double, std::micro> elapsed
			= std::chrono::steady_clock::now() - start;
		if (!check.status(status, "vxProcessGraph"))
			return {};
		micros.push_back(elapsed.count() - excluded());
	}
	return micros;
}

bool benchCpuNodes(VxCheck &check, vx_context context, int runs)
{
	vx_kernel copy = addTensorKernel(check, context, "vdla.bench.copy", copyRun, copyValidate);
	vx_graph graph = check.object(vxCreateGraph(context), "vxCreateGraph");
	buildChain(check, context, graph, { 1 }, VX_TYPE_INT16, kCpuNodes,
		[&](vx_tensor in, vx_tensor out) {
			vx_node node = vxCreateGenericNode(graph, copy);
			vxSetParameterByIndex(node, 0, reinterpret_cast<vx_reference>(in));
			vxSetParameterByIndex(node, 1, reinterpret_cast<vx_reference>(out));
			return node;
		});
	if (!check.ok() || !check.status(vxVerifyGraph(graph), "vxVerifyGraph(cpu chain)"))
		return false;
	std::vector<double> micros = timeRuns(check, graph, runs, [] { return 0.0; });
	if (micros.empty())
		return false;
	std::printf("{\"bench\": \"graph_overhead_us_per_cpu_node\", \"value\": %.2f, "
		    "\"unit\": \"us\", \"nodes\": %d, \"runs\": %d}\n",
		median(micros) / kCpuNodes, kCpuNodes, runs);
	return true;
}

bool benchDlaLayers(VxCheck &check, vx_context context, int runs)
{
	/* Read when the graph is verified: each layer its own operation. */
	setenv("VDLA_VX_FUSION", "0", 1);
	vx_graph graph = check.object(vxCreateGraph(context), "vxCreateGraph");
	std::vector<vx_node> nodes = buildChain(check, context, graph, { 8, 8, 1 }, VX_TYPE_INT8,
		kDlaLayers, [&](vx_tensor in, vx_tensor out) {
			vx_node node
				= vxActivationLayer(graph, in, VX_NN_ACTIVATION_RELU, 0, 0, out);
			check.status(vxSetNodeTarget(node, VX_TARGET_STRING, "dla"),
				"vxSetNodeTarget(\"dla\")");
			return node;
		});
	if (!check.ok() || !check.status(vxVerifyGraph(graph), "vxVerifyGraph(dla chain)"))
		return false;

	std::vector<double> deviceMicros;
	auto deviceTime = [&] {
		double micros = 0;
		for (vx_node node : nodes) {
			vx_perf_t perf = {};
			check.status(vxQueryNode(node, VX_NODE_PERFORMANCE, &perf, sizeof(perf)),
				"vxQueryNode(VX_NODE_PERFORMANCE)");
			micros += perf.tmp / 1000.0;
		}
		deviceMicros.push_back(micros);
		return micros;
	};
	std::vector<double> micros = timeRuns(check, graph, runs, deviceTime);
	if (micros.empty() || !check.ok())
		return false;
	std::printf("{\"bench\": \"graph_overhead_us_per_dla_layer\", \"value\": %.2f, "
		    "\"unit\": \"us\", \"layers\": %d, \"runs\": %d, "
		    "\"device_us_per_layer\": %.2f}\n",
		median(micros) / kDlaLayers, kDlaLayers, runs, median(deviceMicros) / kDlaLayers);

	/* Reading each operation's counters costs the firmware register reads. */
	check.status(vxDirective(reinterpret_cast<vx_reference>(context),
			     VX_DIRECTIVE_DISABLE_PERFORMANCE),
		"vxDirective(VX_DIRECTIVE_DISABLE_PERFORMANCE)");
	std::vector<double> uncounted = timeRuns(check, graph, runs, [] { return 0.0; });
	check.status(vxDirective(reinterpret_cast<vx_reference>(context),
			     VX_DIRECTIVE_ENABLE_PERFORMANCE),
		"vxDirective(VX_DIRECTIVE_ENABLE_PERFORMANCE)");
	if (uncounted.empty() || !check.ok())
		return false;
	std::printf("{\"bench\": \"graph_us_per_dla_layer_uncounted\", \"value\": %.2f, "
		    "\"unit\": \"us\", \"layers\": %d, \"runs\": %d}\n",
		median(uncounted) / kDlaLayers, kDlaLayers, runs);
	return true;
}

bool benchRebind(VxCheck &check, vx_context context, int runs)
{
	const vx_size inDims[] = { 16, 16, 8 }, weightDims[] = { 3, 3, 8, 8 };
	vx_tensor inputs[2];
	for (vx_tensor &in : inputs)
		in = check.object(vxCreateTensor(context, 3, inDims, VX_TYPE_INT8, 0),
			"vxCreateTensor(input)");
	vx_tensor weights = check.object(vxCreateTensor(context, 4, weightDims, VX_TYPE_INT8, 0),
		"vxCreateTensor(weights)");
	vx_tensor out = check.object(vxCreateTensor(context, 3, inDims, VX_TYPE_INT8, 0),
		"vxCreateTensor(output)");
	vx_graph graph = check.object(vxCreateGraph(context), "vxCreateGraph");
	vx_tensor conv = check.object(vxCreateVirtualTensor(graph, 3, inDims, VX_TYPE_INT8, 0),
		"vxCreateVirtualTensor");
	const vx_nn_convolution_params_t params = { 1, 1, VX_CONVERT_POLICY_SATURATE,
		VX_ROUND_POLICY_TO_ZERO, VX_NN_DS_SIZE_ROUNDING_FLOOR, 0, 0 };
	vx_node convolution = check.object(
		vxConvolutionLayer(graph, inputs[0], weights, nullptr, &params, sizeof(params), conv),
		"vxConvolutionLayer");
	vx_node relu = check.object(vxActivationLayer(graph, conv, VX_NN_ACTIVATION_RELU, 0, 0, out),
		"vxActivationLayer");
	if (!check.ok())
		return false;
	for (vx_node node : { convolution, relu })
		check.status(vxSetNodeTarget(node, VX_TARGET_STRING, "dla"), "vxSetNodeTarget(\"dla\")");
	vx_parameter parameter = vxGetParameterByIndex(convolution, 0);
	check.status(vxAddParameterToGraph(graph, parameter), "vxAddParameterToGraph");
	vxReleaseParameter(&parameter);
	if (!check.ok() || !check.status(vxVerifyGraph(graph), "vxVerifyGraph(rebind)"))
		return false;

	/* Pairs, so that the machine's drift cancels: a run, then a rebinding and a run. */
	std::vector<double> plain, extra;
	for (int i = 0; i < runs + 1 && check.ok(); i++) {
		auto start = std::chrono::steady_clock::now();
		check.status(vxProcessGraph(graph), "vxProcessGraph");
		const std::chrono::duration<double, std::micro> run
			= std::chrono::steady_clock::now() - start;
		start = std::chrono::steady_clock::now();
		check.status(vxSetGraphParameterByIndex(graph, 0,
				     reinterpret_cast<vx_reference>(inputs[(i + 1) % 2])),
			"vxSetGraphParameterByIndex");
		check.status(vxProcessGraph(graph), "vxProcessGraph(rebound)");
		const std::chrono::duration<double, std::micro> rebound
			= std::chrono::steady_clock::now() - start;
		/* The first rebinding places the second input on the device. */
		if (i > 0) {
			plain.push_back(run.count());
			extra.push_back(rebound.count() - run.count());
		}
	}
	if (plain.empty() || !check.ok())
		return false;
	vx_uint32 plans = 0;
	vxQueryGraph(graph, VX_GRAPH_VDLA_PLANS, &plans, sizeof(plans));
	std::printf("{\"bench\": \"graph_rebind_us\", \"value\": %.2f, \"unit\": \"us\", "
		    "\"run_us\": %.2f, \"runs\": %d, \"plans\": %u}\n",
		median(extra), median(plain), runs, plans);
	return true;
}

} /* namespace */

int main(int argc, char **argv)
{
	const int runs = argc > 1 ? std::atoi(argv[1]) : 11;
	if (argc > 2 || runs < 1) {
		std::fprintf(stderr, "usage: vdla-bench-vx [RUNS>=1]\n");
		return 2;
	}
	VxCheck check("vdla-bench-vx");
	vx_context context = check.object(vxCreateContext(), "vxCreateContext");
	if (!check.ok())
		return 1;
	check.attach(context);
	/* The DLA figure subtracts the device time, which needs the counters. */
	check.status(vxDirective(reinterpret_cast<vx_reference>(context),
			     VX_DIRECTIVE_ENABLE_PERFORMANCE),
		"vxDirective(VX_DIRECTIVE_ENABLE_PERFORMANCE)");
	const bool ok = benchCpuNodes(check, context, runs) && benchDlaLayers(check, context, runs)
		&& benchRebind(check, context, runs);
	std::fflush(stdout);
	vxReleaseContext(&context);
	return ok ? 0 : 1;
}
