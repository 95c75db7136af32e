/* SPDX-License-Identifier: MIT */
/*
 * vdla-demo [--runs N] [--json]: the demo of `make run`. The LeNet-style
 * digit classifier of lenet_network.h as one OpenVX graph, on ten synthetic
 * seven-segment digits.
 *
 * The layers ask for target "any": the DLA when there is one, the CPU
 * otherwise (on the host). A second graph, identical but with every node on
 * target "cpu", runs the same images; its logits must equal the first
 * graph's bit for bit and its softmax output within 1 LSB ("match: yes"),
 * else the demo exits 1, as on any OpenVX error.
 *
 * --runs N: vxProcessGraph runs timed for the latency (default 20).
 * --json:   only the latency as a JSON line, for make bench.
 */
#include <VX/vx.h>
#include <VX/vx_khr_nn.h>
#include <VX/vx_vdla.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "lenet_network.h"

namespace {

using namespace lenet;

/*
 * Whether the context has a DLA: libvdla accepts target "dla" for a layer
 * only then. @node's target is "any" again afterwards.
 */
bool haveDla(vx_node node)
{
	const bool dla = vxSetNodeTarget(node, VX_TARGET_STRING, "dla") == VX_SUCCESS;
	vxSetNodeTarget(node, VX_TARGET_STRING, "any");
	return dla;
}

/* Where verification put @node, and whether it runs fused into the node before it. */
const char *placement(vx_node node)
{
	vx_enum target = VX_VDLA_TARGET_CPU;
	vxQueryNode(node, VX_NODE_VDLA_TARGET, &target, sizeof(target));
	return target == VX_VDLA_TARGET_DLA ? "dla" : "cpu";
}

bool fused(vx_node node)
{
	vx_bool value = vx_false_e;
	vxQueryNode(node, VX_NODE_VDLA_FUSED, &value, sizeof(value));
	return value == vx_true_e;
}

/* Mean wall time of vxProcessGraph over @runs runs after a warm-up run, in ms. */
double latencyMs(VxCheck &check, const Classifier &classifier, int runs, const char *which)
{
	const std::string call = std::string("vxProcessGraph(") + which + " graph)";
	if (!check.status(vxProcessGraph(classifier.graph), call))
		return 0;
	const auto start = std::chrono::steady_clock::now();
	for (int i = 0; i < runs; i++) {
		if (!check.status(vxProcessGraph(classifier.graph), call))
			return 0;
	}
	const std::chrono::duration<double, std::milli> elapsed
		= std::chrono::steady_clock::now() - start;
	return elapsed.count() / runs;
}

/* The mean time of @node's runs, in microseconds. */
double nodeMicros(VxCheck &check, vx_node node)
{
	vx_perf_t perf = {};
	check.status(vxQueryNode(node, VX_NODE_PERFORMANCE, &perf, sizeof(perf)),
		"vxQueryNode(VX_NODE_PERFORMANCE)");
	return perf.avg / 1000.0;
}

double real(int16_t raw, vx_int8 position)
{
	return std::ldexp(double(raw), -position);
}

struct Options {
	int runs = 20;
	bool json = false;
	bool help = false;
};

bool parse(int argc, char **argv, Options &options)
{
	for (int i = 1; i < argc; i++) {
		if (!std::strcmp(argv[i], "--help")) {
			options.help = true;
		} else if (!std::strcmp(argv[i], "--json")) {
			options.json = true;
		} else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) {
			char *end;
			const long runs = std::strtol(argv[++i], &end, 10);
			if (*end || runs < 1 || runs > 1000000)
				return false;
			options.runs = int(runs);
		} else {
			return false;
		}
	}
	return true;
}

/* What the demo found, for the report. */
struct Findings {
	std::string device;
	bool dla = false;
	std::vector<Outputs> results = std::vector<Outputs>(kDigits);
	/* Empty if the two graphs agree. */
	std::string mismatch;
	double latencyMs = 0, cpuLatencyMs = 0;
};

void printReport(VxCheck &check, const Classifier &dla, const Classifier &cpu,
	const Findings &findings, int runs)
{
	std::printf("vdla-demo: LeNet-style digit classifier, %zu OpenVX nodes, INT16 Q7.8,\n"
		    "untrained (fixed-seed weights): a class is the argmax of the logits\n",
		kLayers.size());
	std::printf("device: %s\n", findings.device.c_str());

	std::printf("\ndigit  class  score  logits\n");
	for (int digit = 0; digit < kDigits; digit++) {
		const Outputs &out = findings.results[digit];
		const int top = int(std::max_element(out.logits.begin(), out.logits.end())
			- out.logits.begin());
		std::printf("%5d  %5d  %5.3f ", digit, top,
			real(out.probabilities[top], kProbabilityPosition));
		for (int16_t logit : out.logits)
			std::printf(" %6.2f", real(logit, kPosition));
		std::printf("\n");
	}

	std::printf("\nlayer        target   time us   all-cpu graph us\n");
	for (size_t i = 0; i < kLayers.size(); i++) {
		const char *target = placement(dla.nodes[i]);
		const double micros = nodeMicros(check, dla.nodes[i]);
		char time[16] = "fused";
		/* Nodes fused into a chain report 0: the chain's first node has its time. */
		if (!fused(dla.nodes[i]))
			std::snprintf(time, sizeof(time), "%.1f", micros);
		std::printf("%-12s %-6s %9s %18.1f\n", kLayers[i].name, target, time,
			nodeMicros(check, cpu.nodes[i]));
	}
	std::printf("(VX_NODE_PERFORMANCE means over the %d classifications: device time on "
		    "the dla, CPU time on the cpu)\n",
		kDigits);
	std::printf("\nlatency: %.3f ms per vxProcessGraph, mean of %d runs after a warm-up "
		    "(all-cpu graph: %.3f ms)\n",
		findings.latencyMs, runs, findings.cpuLatencyMs);
	std::printf("match: %s\n", findings.mismatch.empty() ? "yes" : "no");
}

int run(VxCheck &check, vx_context context, const Options &options)
{
	vx_tensor input = check.object(vxCreateTensor(context, kInputDims.size(), kInputDims.data(),
					       VX_TYPE_INT16, kPosition),
		"vxCreateTensor(input)");
	const std::vector<Parameters> parameters = createParameters(check, context);
	vx_kernel clampScale = addClampScale(check, context);
	if (!check.ok())
		return 1;
	Classifier dla = buildClassifier(check, context, input, parameters, clampScale, "any");
	Classifier cpu = buildClassifier(check, context, input, parameters, clampScale, "cpu");
	if (!check.ok())
		return 1;

	Findings findings;
	findings.dla = haveDla(dla.nodes.front());
	if (findings.dla) {
		const char *node = std::getenv("VDLA_VX_DEVICE");
		findings.device = std::string("DLA (") + (node ? node : "the first vDLA")
			+ "); the user kernel and softmax on the CPU";
	} else {
		findings.device = "none, every node on the CPU ("
			+ (check.lastLog().empty() ? "no DLA" : check.lastLog()) + ")";
	}
	if (!check.status(vxVerifyGraph(dla.graph), "vxVerifyGraph(target any graph)")
		|| !check.status(vxVerifyGraph(cpu.graph), "vxVerifyGraph(target cpu graph)"))
		return 1;

	/*
	 * The per-layer times come from the classification runs; the latency
	 * runs go without performance counters, as a user's graph does by
	 * default (reading them costs the DLA firmware per operation).
	 */
	if (!check.status(vxDirective(reinterpret_cast<vx_reference>(context),
				  VX_DIRECTIVE_ENABLE_PERFORMANCE),
		    "vxDirective(VX_DIRECTIVE_ENABLE_PERFORMANCE)"))
		return 1;
	for (int digit = 0; digit < kDigits; digit++) {
		std::vector<int16_t> image = renderDigit(digit);
		Outputs reference;
		if (!copyTensor(check, input, kInputDims, image.data(), VX_WRITE_ONLY, "input")
			|| !classify(check, dla, "target any", findings.results[digit])
			|| !classify(check, cpu, "target cpu", reference))
			return 1;
		const std::string differs = difference(findings.results[digit], reference);
		if (findings.mismatch.empty() && !differs.empty())
			findings.mismatch = "digit " + std::to_string(digit) + ", " + differs;
	}
	check.status(vxDirective(reinterpret_cast<vx_reference>(context),
			     VX_DIRECTIVE_DISABLE_PERFORMANCE),
		"vxDirective(VX_DIRECTIVE_DISABLE_PERFORMANCE)");
	findings.latencyMs = latencyMs(check, dla, options.runs, "target any");
	findings.cpuLatencyMs = latencyMs(check, cpu, options.runs, "target cpu");
	if (!check.ok())
		return 1;

	if (options.json)
		std::printf("{\"bench\": \"demo_latency_ms\", \"value\": %.3f, \"unit\": \"ms\", "
			    "\"runs\": %d, \"dla\": %s, \"cpu_graph_ms\": %.3f}\n",
			findings.latencyMs, options.runs, findings.dla ? "true" : "false",
			findings.cpuLatencyMs);
	else
		printReport(check, dla, cpu, findings, options.runs);
	if (!findings.mismatch.empty()) {
		std::fprintf(stderr, "vdla-demo: the graphs on targets any and cpu differ: %s\n",
			findings.mismatch.c_str());
		return 1;
	}
	return check.ok() ? 0 : 1;
}

} /* namespace */

int main(int argc, char **argv)
{
	Options options;
	if (!parse(argc, argv, options) || options.help) {
		std::fprintf(stderr,
			"usage: vdla-demo [--runs N] [--json]\n"
			"Classifies ten synthetic digits with a LeNet-style OpenVX graph\n"
			"on the DLA and checks it against the same graph on the CPU.\n");
		return options.help ? 0 : 2;
	}
	VxCheck check("vdla-demo");
	vx_context context = check.object(vxCreateContext(), "vxCreateContext");
	if (!check.ok())
		return 1;
	check.attach(context);
	const int status = run(check, context, options);
	/* Releases every object of the context, graphs, nodes and tensors included. */
	vxReleaseContext(&context);
	return status;
}
