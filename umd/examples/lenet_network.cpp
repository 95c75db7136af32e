/* SPDX-License-Identifier: MIT */
/* The LeNet-style classifier of the demos (lenet_network.h). */

#include "lenet_network.h"

#include <VX/vx_khr_nn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace lenet {

vx_size elements(const std::vector<vx_size> &dims)
{
	vx_size count = 1;
	for (vx_size dim : dims)
		count *= dim;
	return count;
}

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

namespace {

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

} /* namespace */

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

std::vector<int16_t> renderDigit(int digit, int shift)
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
				image[y * kSide + x + vx_size(std::clamp(shift, 0, 8))] = 1
					<< kPosition;
	}
	return image;
}

namespace {

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

} /* namespace */

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

vx_kernel addClampScale(VxCheck &check, vx_context context)
{
	return addTensorKernel(
		check, context, "vdla.demo.clamp_scale", clampScaleRun, clampScaleValidate);
}

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

bool readOutputs(VxCheck &check, const Classifier &classifier, const char *which, Outputs &outputs)
{
	const std::vector<vx_size> dims = { kDigits };
	return copyTensor(check, classifier.logits, dims, outputs.logits.data(), VX_READ_ONLY,
		       std::string(which) + " logits")
		&& copyTensor(check, classifier.probabilities, dims, outputs.probabilities.data(),
			VX_READ_ONLY, std::string(which) + " softmax output");
}

bool classify(VxCheck &check, const Classifier &classifier, const char *which, Outputs &outputs)
{
	return check.status(vxProcessGraph(classifier.graph),
		       std::string("vxProcessGraph(") + which + " graph)")
		&& readOutputs(check, classifier, which, outputs);
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

} /* namespace lenet */
