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
 *
 * Needs a vDLA for the second.
 */
#include <VX/vx.h>
#include <VX/vx_khr_nn.h>

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
	const bool ok = benchCpuNodes(check, context, runs) && benchDlaLayers(check, context, runs);
	std::fflush(stdout);
	vxReleaseContext(&context);
	return ok ? 0 : 1;
}
