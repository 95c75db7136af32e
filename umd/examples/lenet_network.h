/* SPDX-License-Identifier: MIT */
/*
 * The LeNet-style digit classifier of vdla-demo (lenet_demo.cpp) and of the
 * stream example's classifier (stream_pipeline.cpp), written against the
 * OpenVX API and its neural-network extension only:
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
 */
#pragma once

#include <VX/vx.h>

#include <cstdint>
#include <string>
#include <vector>

#include "vx_program.h"

namespace lenet {

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

inline const std::vector<vx_size> kInputDims = { kSide, kSide, 1 };

/* In graph order. The last two write the results, the others virtual tensors. */
inline const std::vector<LayerSpec> kLayers = {
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

vx_size elements(const std::vector<vx_size> &dims);

/* Copies between @tensor (INT16 of dimensions @dims) and the packed @values. */
bool copyTensor(VxCheck &check, vx_tensor tensor, const std::vector<vx_size> &dims, int16_t *values,
	vx_enum usage, const std::string &what);

/* The constant tensors of the convolution and fully connected layers, shared by both graphs. */
struct Parameters {
	vx_tensor weights = nullptr;
	vx_tensor bias = nullptr;
};

/* The weights and biases of every layer (empty for those without), in @context. */
std::vector<Parameters> createParameters(VxCheck &check, vx_context context);

/*
 * The input images: digit @digit drawn in seven-segment style, strokes 3
 * pixels wide at 1.0 on a 0 background, the digit 12 pixels wide and 20 high,
 * centred like MNIST's, then moved right by @shift pixels (0 to 8).
 */
std::vector<int16_t> renderDigit(int digit, int shift = 0);

/* Registers the user kernel vdla.demo.clamp_scale in @context. */
vx_kernel addClampScale(VxCheck &check, vx_context context);

struct Classifier {
	vx_graph graph = nullptr;
	/* One per entry of kLayers. */
	std::vector<vx_node> nodes;
	vx_tensor logits = nullptr;
	vx_tensor probabilities = nullptr;
};

/* The network from @input as a graph whose nodes all ask for @target. */
Classifier buildClassifier(VxCheck &check, vx_context context, vx_tensor input,
	const std::vector<Parameters> &parameters, vx_kernel clampScale, const char *target);

struct Outputs {
	std::vector<int16_t> logits = std::vector<int16_t>(kDigits);
	std::vector<int16_t> probabilities = std::vector<int16_t>(kDigits);
};

/* Reads @classifier's results into @outputs (@which names it in errors). */
bool readOutputs(VxCheck &check, const Classifier &classifier, const char *which, Outputs &outputs);

/* Runs @classifier, then readOutputs(). */
bool classify(VxCheck &check, const Classifier &classifier, const char *which, Outputs &outputs);

/*
 * Empty if the outputs of a graph on the DLA (@any) and of the one on the
 * CPU agree: logits equal, softmax outputs within 1 LSB.
 */
std::string difference(const Outputs &any, const Outputs &cpu);

} /* namespace lenet */
