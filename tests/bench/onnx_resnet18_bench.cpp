/* SPDX-License-Identifier: MIT */
/*
 * vdla-bench-resnet18: an INT8 ResNet-18-shaped ONNX model, end to end on
 * the vDLA (docs/onnx.md, "INT8 on the DLA"). The model is written here,
 * with weights from a fixed seed: a 224x224x3 int8 input, the 7x7 stem,
 * max pooling, eight basic blocks (64, 128, 256, 512 channels; 1x1
 * projections where the shape changes), global average pooling and a
 * 1000-way fully connected layer, in the QOperator form: QLinearConv
 * (whose output zero point -128 is the Relu), int8 MaxPool, and each
 * residual sum as DequantizeLinear, Add, QuantizeLinear, which the import
 * fuses into QLinearAdd for the DLA's SDP. The average pooling between
 * DequantizeLinear and QuantizeLinear runs on the CPU.
 *
 *   vdla-bench-resnet18 [RUNS]
 *
 * Prints, as JSON lines for scripts/bench: the import time, the first run
 * (which plans and verifies the DLA segments), and the mean of RUNS later
 * runs (default 3), with how many nodes ran where.
 */

#include <vdla/onnx.h>

#include "../host/onnx/model_builder.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>

using namespace vdla::onnx;

namespace {

constexpr float kActivationScale = 0.05f;

class ResNetWriter
{
public:
	ResNetWriter() : builder_(13), random_(2026)
	{
		scalar("act_scale", DataType::Float, kActivationScale);
		scalar("zero", DataType::Int8, 0);
		scalar("relu_zero", DataType::Int8, -128);
	}

	/*
	 * A QLinearConv of @in (@channels) to @outputs channels; its output is
	 * Relu'd by a zero point of -128 when @relu. Returns the output's name.
	 */
	std::string conv(const std::string &in, int64_t channels, int64_t outputs, int64_t kernel,
			 int64_t stride, bool relu)
	{
		const std::string name = "conv" + std::to_string(++layers_);
		const int64_t fanIn = channels * kernel * kernel;
		Tensor w(DataType::Int8, { outputs, channels, kernel, kernel });
		std::uniform_int_distribution<int> weight(-127, 127);
		for (int64_t i = 0; i < w.elements(); i++)
			w.data<int8_t>()[i] = int8_t(weight(random_));
		/* Scales that keep the outputs spread over the int8 range. */
		Tensor wScale(DataType::Float, { outputs });
		for (int64_t m = 0; m < outputs; m++)
			wScale.data<float>()[m] = 1.5f / (73.0f * std::sqrt(float(fanIn)));
		Tensor bias(DataType::Int32, { outputs });
		std::uniform_int_distribution<int32_t> offset(-2000, 2000);
		for (int64_t m = 0; m < outputs; m++)
			bias.data<int32_t>()[m] = offset(random_);
		builder_.initializer(name + "_w", w);
		builder_.initializer(name + "_w_scale", wScale);
		builder_.initializer(name + "_w_zero", Tensor(DataType::Int8, { outputs }));
		builder_.initializer(name + "_b", bias);
		auto &node = builder_.node("QLinearConv",
					   { in, "act_scale", inputZero(in), name + "_w",
					     name + "_w_scale", name + "_w_zero", "act_scale",
					     relu ? "relu_zero" : "zero", name + "_b" },
					   { name });
		node.set_name(name);
		vdla::onnx::test::setInts(node, "kernel_shape", { kernel, kernel });
		vdla::onnx::test::setInts(node, "strides", { stride, stride });
		const int64_t pad = kernel / 2;
		vdla::onnx::test::setInts(node, "pads", { pad, pad, pad, pad });
		zeros_[name] = relu ? "relu_zero" : "zero";
		return name;
	}

	/* The residual sum of two int8 tensors, Relu'd (zero point -128). */
	std::string add(const std::string &a, const std::string &b)
	{
		const std::string name = "add" + std::to_string(++layers_);
		builder_.node("DequantizeLinear", { a, "act_scale", inputZero(a) }, { name + "_a" });
		builder_.node("DequantizeLinear", { b, "act_scale", inputZero(b) }, { name + "_b" });
		builder_.node("Add", { name + "_a", name + "_b" }, { name + "_sum" });
		builder_.node("QuantizeLinear", { name + "_sum", "act_scale", "relu_zero" }, { name });
		zeros_[name] = "relu_zero";
		return name;
	}

	std::string basicBlock(const std::string &in, int64_t channels, int64_t planes,
			       int64_t stride)
	{
		std::string a = conv(in, channels, planes, 3, stride, true);
		std::string b = conv(a, planes, planes, 3, 1, false);
		std::string shortcut = in;
		if (stride != 1 || channels != planes)
			shortcut = conv(in, channels, planes, 1, stride, false);
		return add(b, shortcut);
	}

	/* Writes the network; returns the model file's path. */
	std::string write()
	{
		builder_.input("image", int32_t(DataType::Int8), { 1, 3, 224, 224 });
		zeros_["image"] = "zero";
		std::string x = conv("image", 3, 64, 7, 2, true);
		auto &pool = builder_.node("MaxPool", { x }, { "pool" });
		vdla::onnx::test::setInts(pool, "kernel_shape", { 3, 3 });
		vdla::onnx::test::setInts(pool, "strides", { 2, 2 });
		vdla::onnx::test::setInts(pool, "pads", { 1, 1, 1, 1 });
		zeros_["pool"] = zeros_[x];
		x = "pool";
		int64_t channels = 64;
		for (int64_t planes : { 64, 128, 256, 512 }) {
			x = basicBlock(x, channels, planes, planes == 64 ? 1 : 2);
			x = basicBlock(x, planes, planes, 1);
			channels = planes;
		}
		builder_.node("DequantizeLinear", { x, "act_scale", inputZero(x) }, { "features" });
		builder_.node("GlobalAveragePool", { "features" }, { "pooled" });
		builder_.node("QuantizeLinear", { "pooled", "act_scale", "zero" }, { "pooled_q" });
		zeros_["pooled_q"] = "zero";
		std::string logits = conv("pooled_q", 512, 1000, 1, 1, false);
		builder_.node("Flatten", { logits }, { "logits" });
		builder_.output("logits", int32_t(DataType::Int8), { 1, 1000 });
		return builder_.save();
	}

private:
	void scalar(const std::string &name, DataType type, float value)
	{
		Tensor t(type, {});
		if (type == DataType::Float)
			t.data<float>()[0] = value;
		else
			t.data<int8_t>()[0] = int8_t(value);
		builder_.initializer(name, t);
	}

	const std::string &inputZero(const std::string &value) { return zeros_.at(value); }

	vdla::onnx::test::ModelBuilder builder_;
	std::mt19937 random_;
	std::map<std::string, std::string> zeros_;
	int layers_ = 0;
};

double millisecondsSince(std::chrono::steady_clock::time_point start)
{
	return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
		.count();
}

} /* namespace */

int main(int argc, char **argv)
{
	const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
	ResNetWriter writer;
	const std::string path = writer.write();

	auto start = std::chrono::steady_clock::now();
	auto model = Model::load(path);
	const double loadMs = millisecondsSince(start);
	std::remove(path.c_str());
	if (!model) {
		std::fprintf(stderr, "vdla-bench-resnet18: %s\n", model.error().message().c_str());
		return 1;
	}
	Tensor image(DataType::Int8, { 1, 3, 224, 224 });
	std::mt19937 random(7);
	std::uniform_int_distribution<int> pixel(-128, 127);
	for (int64_t i = 0; i < image.elements(); i++)
		image.data<int8_t>()[i] = int8_t(pixel(random));

	start = std::chrono::steady_clock::now();
	std::vector<NodeTiming> timings;
	auto first = (*model)->run({ image }, Target::Any, &timings);
	const double firstMs = millisecondsSince(start);
	if (!first) {
		std::fprintf(stderr, "vdla-bench-resnet18: %s\n", first.error().message().c_str());
		return 1;
	}
	int dlaSegments = 0, cpuNodes = 0;
	double dlaMs = 0, cpuMs = 0;
	timings.clear();
	start = std::chrono::steady_clock::now();
	for (int i = 0; i < runs; i++) {
		auto out = (*model)->run({ image }, Target::Any, &timings);
		if (!out) {
			std::fprintf(stderr, "vdla-bench-resnet18: %s\n",
				     out.error().message().c_str());
			return 1;
		}
	}
	const double meanMs = millisecondsSince(start) / runs;
	for (const NodeTiming &t : timings) {
		if (t.target == Target::Dla) {
			dlaSegments++;
			dlaMs += t.nanoseconds / 1e6;
		} else {
			cpuNodes++;
			cpuMs += t.nanoseconds / 1e6;
		}
	}
	std::printf("{\"bench\": \"resnet18_int8_load_ms\", \"value\": %.2f, \"unit\": \"ms\"}\n",
		    loadMs);
	std::printf("{\"bench\": \"resnet18_int8_first_run_ms\", \"value\": %.1f, \"unit\": \"ms\"}\n",
		    firstMs);
	std::printf("{\"bench\": \"resnet18_int8_ms\", \"value\": %.1f, \"unit\": \"ms\", "
		    "\"dla_segments\": %d, \"dla_ms\": %.1f, \"cpu_nodes\": %d, \"cpu_ms\": %.1f}\n",
		    meanMs, dlaSegments / runs, dlaMs / runs, cpuNodes / runs, cpuMs / runs);
	return 0;
}
