/* SPDX-License-Identifier: MIT */
/*
 * vdla-demo [--runs N] [--json]: the demo of `make run`. A LeNet-style digit
 * classifier as one OpenVX graph, written against the OpenVX API and its
 * neural-network extension only:
 *
 *   input 28x28 -> conv 5x5, 6 channels, +bias -> RELU -> max pool 2x2
 *   -> conv 5x5, 16 channels, +bias -> RELU -> max pool 2x2
 *   -> fully connected 256->120 -> RELU
 *   -> vdla.demo.clamp_scale (a user kernel, always on the CPU)
 *   -> fully connected 120->84 -> RELU -> fully connected 84->10 -> softmax
 *
 * Tensors are INT16: activations and biases Q7.8 (fixed point position 8),
 * weights Q3.12, the softmax output Q1.14. Intermediate tensors are virtual;
 * the logits (output of the last fully connected layer) and the softmax
 * output are the results. The network is untrained: its weights come from a
 * fixed-seed generator, so the class it gives each of ten synthetic
 * seven-segment digits is just the argmax of its logits, the same on every
 * run and machine, and not the digit's value.
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

#include "vx_program.h"

namespace {

constexpr vx_int8 kPosition = 8;
constexpr vx_int8 kWeightPosition = 12;
constexpr vx_int8 kProbabilityPosition = 14;
constexpr vx_size kSide = 28;
constexpr int kDigits = 10;

enum class Kind { Convolution, Relu, MaxPool, FullyConnected, ClampScale, Softmax };

struct LayerSpec {
	const char *name;
	Kind kind;
	/* Output dimensions, width first; empty: set by the node's validator. */
	std::vector<vx_size> dims;
};

const std::vector<vx_size> kInputDims = { kSide, kSide, 1 };

/* In graph order. The last two write the results, the others virtual tensors. */
const std::vector<LayerSpec> kLayers = {
	{ "conv1", Kind::Convolution, { 24, 24, 6 } },
	{ "relu1", Kind::Relu, { 24, 24, 6 } },
	{ "pool1", Kind::MaxPool, { 12, 12, 6 } },
	{ "conv2", Kind::Convolution, { 8, 8, 16 } },
	{ "relu2", Kind::Relu, { 8, 8, 16 } },
	{ "pool2", Kind::MaxPool, { 4, 4, 16 } },
	{ "fc1", Kind::FullyConnected, { 120 } },
	{ "relu3", Kind::Relu, { 120 } },
	{ "clamp_scale", Kind::ClampScale, {} },
	{ "fc2", Kind::FullyConnected, { 84 } },
	{ "relu4", Kind::Relu, { 84 } },
	{ "fc3", Kind::FullyConnected, { kDigits } },
	{ "softmax", Kind::Softmax, { kDigits } },
};

vx_size elements(const std::vector<vx_size> &dims)
{
	vx_size count = 1;
	for (vx_size dim : dims)
		count *= dim;
	return count;
}

/* Copies between @tensor (INT16 of dimensions @dims) and the packed @values. */
bool copyTensor(VxCheck &check, vx_tensor tensor, const std::vector<vx_size> &dims, int16_t *values,
	vx_enum usage, const std::string &what)
{
	std::vector<vx_size> start(dims.size(), 0), strides(dims.size());
	vx_size stride = sizeof(int16_t);
	for (size_t d = 0; d < dims.size(); d++) {
		strides[d] = stride;
		stride *= dims[d];
	}
	return check.status(vxCopyTensorPatch(tensor, dims.size(), start.data(), dims.data(),
				    strides.data(), values, usage, VX_MEMORY_TYPE_HOST),
		"vxCopyTensorPatch(" + what + ")");
}

/*
 * The source of the weights: a 32-bit linear congruential generator with the
 * constants of Numerical Recipes (x = 1664525 x + 1013904223 mod 2^32),
 * seeded with 1998, drawn layer by layer in graph order, weights before
 * biases, each tensor in memory order (width first).
 */
class Generator
{
public:
	/* Uniform in [low, high]. */
	int16_t uniform(int32_t low, int32_t high)
	{
		state_ = state_ * 1664525u + 1013904223u;
		return int16_t(low + int32_t((uint64_t(state_) * uint64_t(high - low + 1)) >> 32));
	}

private:
	uint32_t state_ = 1998;
};

/* The constant tensors of the convolution and fully connected layers, shared by both graphs. */
struct Parameters {
	vx_tensor weights = nullptr;
	vx_tensor bias = nullptr;
};

/*
 * Weights uniform in +-sqrt(6 / fan-in) (He's initialisation, so that the
 * activations neither vanish nor explode through the RELUs), then shifted to
 * sum to zero for each output: an output then responds to the pattern of its
 * inputs rather than to their overall level, which would give every digit
 * the same class. Biases uniform in [0, 0.1].
 */
std::vector<Parameters> createParameters(VxCheck &check, vx_context context)
{
	Generator generator;
	std::vector<Parameters> parameters(kLayers.size());
	std::vector<vx_size> inDims = kInputDims;
	for (size_t i = 0; i < kLayers.size(); i++) {
		const LayerSpec &layer = kLayers[i];
		std::vector<vx_size> weightDims;
		if (layer.kind == Kind::Convolution) {
			const vx_size side = inDims[0] - layer.dims[0] + 1;
			weightDims = { side, side, inDims[2], layer.dims[2] };
		} else if (layer.kind == Kind::FullyConnected) {
			weightDims = { elements(inDims), layer.dims[0] };
		}
		if (!layer.dims.empty())
			inDims = layer.dims;
		if (weightDims.empty())
			continue;

		/* The weights of output o are [o * fanIn, (o + 1) * fanIn). */
		const vx_size outputs = weightDims.back();
		const vx_size fanIn = elements(weightDims) / outputs;
		const int32_t limit = int32_t(
			std::lround(std::sqrt(6.0 / double(fanIn)) * (1 << kWeightPosition)));
		std::vector<int16_t> weights(elements(weightDims));
		for (int16_t &w : weights)
			w = generator.uniform(-limit, limit);
		for (vx_size o = 0; o < outputs; o++) {
			int64_t sum = 0;
			for (vx_size k = 0; k < fanIn; k++)
				sum += weights[o * fanIn + k];
			const int16_t mean = int16_t(sum / int64_t(fanIn));
			for (vx_size k = 0; k < fanIn; k++)
				weights[o * fanIn + k] -= mean;
		}
		std::vector<int16_t> bias(outputs);
		for (int16_t &b : bias)
			b = generator.uniform(0, int32_t(std::lround(0.1 * (1 << kPosition))));

		const std::string name = layer.name;
		Parameters &p = parameters[i];
		p.weights = check.object(vxCreateTensor(context, weightDims.size(),
						 weightDims.data(), VX_TYPE_INT16, kWeightPosition),
			"vxCreateTensor(" + name + " weights)");
		p.bias = check.object(
			vxCreateTensor(context, 1, &outputs, VX_TYPE_INT16, kPosition),
			"vxCreateTensor(" + name + " bias)");
		if (!check.ok())
			break;
		copyTensor(check, p.weights, weightDims, weights.data(), VX_WRITE_ONLY,
			name + " weights");
		copyTensor(check, p.bias, { outputs }, bias.data(), VX_WRITE_ONLY, name + " bias");
	}
	return parameters;
}

/*
 * The input images: digit d drawn in seven-segment style, strokes 3 pixels
 * wide at 1.0 on a 0 background, the digit 12 pixels wide and 20 high,
 * centred like MNIST's.
 */
std::vector<int16_t> renderDigit(int digit)
{
	struct Stroke {
		vx_size x0, y0, x1, y1;
	};
	/* Segments a (top), b and c (right), d (bottom), e and f (left), g (middle). */
	static const Stroke kSegments[7] = { { 8, 4, 19, 6 }, { 17, 4, 19, 14 }, { 17, 13, 19, 23 },
		{ 8, 21, 19, 23 }, { 8, 13, 10, 23 }, { 8, 4, 10, 14 }, { 8, 12, 19, 14 } };
	/* Bit s: segment s is lit. */
	static const uint8_t kLit[kDigits]
		= { 0x3f, 0x06, 0x5b, 0x4f, 0x66, 0x6d, 0x7d, 0x07, 0x7f, 0x6f };

	std::vector<int16_t> image(kSide * kSide, 0);
	for (int s = 0; s < 7; s++) {
		if (!(kLit[digit] & (1 << s)))
			continue;
		const Stroke &stroke = kSegments[s];
		for (vx_size y = stroke.y0; y <= stroke.y1; y++)
			for (vx_size x = stroke.x0; x <= stroke.x1; x++)
				image[y * kSide + x] = 1 << kPosition;
	}
	return image;
}

/*
 * vdla.demo.clamp_scale, the CPU step between the two halves of the network:
 * clamps the features at 0 and scales them so that the largest is 1.0, which
 * keeps the second half's input in [0, 1] whatever the magnitude of the
 * first half's output. Data-dependent per image, so not a DLA operation. One
 * INT16 Q7.8 vector in, one out of the same shape.
 */
vx_status VX_CALLBACK clampScaleValidate(
	vx_node, const vx_reference parameters[], vx_uint32, vx_meta_format metas[])
{
	vx_tensor input = reinterpret_cast<vx_tensor>(parameters[0]);
	vx_size rank = 0, length = 0;
	vx_enum type = VX_TYPE_INVALID;
	vx_int8 position = 0;
	vxQueryTensor(input, VX_TENSOR_NUMBER_OF_DIMS, &rank, sizeof(rank));
	vxQueryTensor(input, VX_TENSOR_DATA_TYPE, &type, sizeof(type));
	vxQueryTensor(input, VX_TENSOR_FIXED_POINT_POSITION, &position, sizeof(position));
	if (rank != 1)
		return VX_ERROR_INVALID_DIMENSION;
	if (type != VX_TYPE_INT16 || position != kPosition)
		return VX_ERROR_INVALID_FORMAT;
	vxQueryTensor(input, VX_TENSOR_DIMS, &length, sizeof(length));

	vx_meta_format output = metas[1];
	vx_status status
		= vxSetMetaFormatAttribute(output, VX_TENSOR_NUMBER_OF_DIMS, &rank, sizeof(rank));
	if (status == VX_SUCCESS)
		status = vxSetMetaFormatAttribute(output, VX_TENSOR_DIMS, &length, sizeof(length));
	if (status == VX_SUCCESS)
		status = vxSetMetaFormatAttribute(output, VX_TENSOR_DATA_TYPE, &type, sizeof(type));
	if (status == VX_SUCCESS)
		status = vxSetMetaFormatAttribute(
			output, VX_TENSOR_FIXED_POINT_POSITION, &position, sizeof(position));
	return status;
}

vx_status VX_CALLBACK clampScaleRun(vx_node, const vx_reference *parameters, vx_uint32)
{
	vx_tensor input = reinterpret_cast<vx_tensor>(parameters[0]);
	vx_tensor output = reinterpret_cast<vx_tensor>(parameters[1]);
	vx_size length = 0;
	vx_status status = vxQueryTensor(input, VX_TENSOR_DIMS, &length, sizeof(length));
	if (status != VX_SUCCESS)
		return status;

	const vx_size start = 0, stride = sizeof(int16_t);
	std::vector<int16_t> x(length);
	status = vxCopyTensorPatch(
		input, 1, &start, &length, &stride, x.data(), VX_READ_ONLY, VX_MEMORY_TYPE_HOST);
	if (status != VX_SUCCESS)
		return status;
	const int32_t largest = *std::max_element(x.begin(), x.end());
	for (int16_t &value : x) {
		if (largest <= 0 || value <= 0)
			value = 0;
		else /* value / largest at Q7.8, rounded half up */
			value = int16_t(
				((int32_t(value) << (kPosition + 1)) + largest) / (2 * largest));
	}
	return vxCopyTensorPatch(
		output, 1, &start, &length, &stride, x.data(), VX_WRITE_ONLY, VX_MEMORY_TYPE_HOST);
}

struct Classifier {
	vx_graph graph = nullptr;
	/* One per entry of kLayers. */
	std::vector<vx_node> nodes;
	vx_tensor logits = nullptr;
	vx_tensor probabilities = nullptr;
};

/* The node of @layer from @in to @out; an error object if that fails. */
vx_node createNode(VxCheck &check, vx_graph graph, const LayerSpec &layer,
	const Parameters &parameters, vx_kernel clampScale, vx_tensor in, vx_tensor out)
{
	switch (layer.kind) {
	case Kind::Convolution: {
		const vx_nn_convolution_params_t convolution = { 0, 0, VX_CONVERT_POLICY_SATURATE,
			VX_ROUND_POLICY_TO_NEAREST_EVEN, VX_NN_DS_SIZE_ROUNDING_FLOOR, 0, 0 };
		return vxConvolutionLayer(graph, in, parameters.weights, parameters.bias,
			&convolution, sizeof(convolution), out);
	}
	case Kind::Relu:
		return vxActivationLayer(graph, in, VX_NN_ACTIVATION_RELU, 0, 0, out);
	case Kind::MaxPool:
		return vxPoolingLayer(graph, in, VX_NN_POOLING_MAX, 2, 2, 0, 0,
			VX_NN_DS_SIZE_ROUNDING_FLOOR, out);
	case Kind::FullyConnected:
		return vxFullyConnectedLayer(graph, in, parameters.weights, parameters.bias,
			VX_CONVERT_POLICY_SATURATE, VX_ROUND_POLICY_TO_NEAREST_EVEN, out);
	case Kind::ClampScale: {
		vx_node node = check.object(vxCreateGenericNode(graph, clampScale),
			"vxCreateGenericNode(vdla.demo.clamp_scale)");
		check.status(vxSetParameterByIndex(node, 0, reinterpret_cast<vx_reference>(in)),
			"vxSetParameterByIndex(clamp_scale, 0)");
		check.status(vxSetParameterByIndex(node, 1, reinterpret_cast<vx_reference>(out)),
			"vxSetParameterByIndex(clamp_scale, 1)");
		return node;
	}
	case Kind::Softmax:
		return vxSoftmaxLayer(graph, in, out);
	}
	return nullptr;
}

/* The network as a graph whose nodes all ask for @target. */
Classifier buildClassifier(VxCheck &check, vx_context context, vx_tensor input,
	const std::vector<Parameters> &parameters, vx_kernel clampScale, const char *target)
{
	Classifier classifier;
	const std::string graphName = std::string("target ") + target;
	classifier.graph = check.object(vxCreateGraph(context), "vxCreateGraph(" + graphName + ")");
	vx_tensor in = input;
	for (size_t i = 0; i < kLayers.size() && check.ok(); i++) {
		const LayerSpec &layer = kLayers[i];
		const std::string name = layer.name;
		const vx_int8 position
			= layer.kind == Kind::Softmax ? kProbabilityPosition : kPosition;
		vx_tensor out;
		if (i + 2 >= kLayers.size())
			out = vxCreateTensor(context, layer.dims.size(), layer.dims.data(),
				VX_TYPE_INT16, position);
		else if (layer.dims.empty())
			out = vxCreateVirtualTensor(
				classifier.graph, 0, nullptr, VX_TYPE_INVALID, 0);
		else
			out = vxCreateVirtualTensor(classifier.graph, layer.dims.size(),
				layer.dims.data(), VX_TYPE_INT16, position);
		check.object(out, "creating the output of " + name);

		vx_node node = check.object(createNode(check, classifier.graph, layer,
						    parameters[i], clampScale, in, out),
			"creating node " + name + " (" + graphName + ")");
		check.status(vxSetReferenceName(reinterpret_cast<vx_reference>(node), layer.name),
			"vxSetReferenceName(" + name + ")");
		check.status(vxSetNodeTarget(node, VX_TARGET_STRING, target),
			"vxSetNodeTarget(" + name + ", \"" + target + "\")");
		classifier.nodes.push_back(node);
		if (i + 2 == kLayers.size())
			classifier.logits = out;
		if (i + 1 == kLayers.size())
			classifier.probabilities = out;
		in = out;
	}
	return classifier;
}

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

struct Outputs {
	std::vector<int16_t> logits = std::vector<int16_t>(kDigits);
	std::vector<int16_t> probabilities = std::vector<int16_t>(kDigits);
};

bool classify(VxCheck &check, const Classifier &classifier, const char *which, Outputs &outputs)
{
	const std::vector<vx_size> dims = { kDigits };
	return check.status(vxProcessGraph(classifier.graph),
		       std::string("vxProcessGraph(") + which + " graph)")
		&& copyTensor(check, classifier.logits, dims, outputs.logits.data(), VX_READ_ONLY,
			std::string(which) + " logits")
		&& copyTensor(check, classifier.probabilities, dims, outputs.probabilities.data(),
			VX_READ_ONLY, std::string(which) + " softmax output");
}

/*
 * Empty if the outputs of the "any" and the "cpu" graph agree: logits equal,
 * softmax outputs within 1 LSB.
 */
std::string difference(const Outputs &any, const Outputs &cpu)
{
	char text[160];
	for (int c = 0; c < kDigits; c++) {
		if (any.logits[c] != cpu.logits[c]) {
			std::snprintf(text, sizeof(text),
				"fc3 (logits) [%d]: %d on any, %d on cpu (raw Q7.8)", c,
				any.logits[c], cpu.logits[c]);
			return text;
		}
		if (std::abs(any.probabilities[c] - cpu.probabilities[c]) > 1) {
			std::snprintf(text, sizeof(text),
				"softmax [%d]: %d on any, %d on cpu (raw Q1.14)", c,
				any.probabilities[c], cpu.probabilities[c]);
			return text;
		}
	}
	return {};
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
	vx_kernel clampScale = addTensorKernel(
		check, context, "vdla.demo.clamp_scale", clampScaleRun, clampScaleValidate);
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
