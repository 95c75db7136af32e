/* SPDX-License-Identifier: MIT */
/*
 * vdla-onnx-digits: the trained digits CNN of scripts/models/digits.py, run
 * from ONNX (docs/onnx.md, "Example"). Prints the accuracy on the held-out
 * digits of the FP32 model on the CPU and on the vDLA and of its INT8 QDQ
 * copy on the CPU and on the vDLA (its input's QuantizeLinear and the
 * logits' DequantizeLinear on the CPU, target any), how far the DLA's
 * logits are from the CPU's, and the time of each operator.
 *
 *   vdla-onnx-digits [--cpu-only] [--json] [MODEL_DIR]   (default: umd/examples/models)
 *
 * --json adds the figures of scripts/bench: import time, first DLA run, and
 * the mean run time of the held-out images on each target.
 */

#include <vdla/onnx.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

using namespace vdla::onnx;

namespace {

/* The share of images whose largest logit is at their label. */
double accuracy(const Tensor &logits, const Tensor &labels)
{
	const int64_t images = logits.shape()[0];
	const int64_t classes = logits.shape()[1];
	int64_t right = 0;
	for (int64_t i = 0; i < images; i++) {
		const float *row = logits.data<float>() + i * classes;
		int64_t best = 0;
		for (int64_t c = 1; c < classes; c++)
			if (row[c] > row[best])
				best = c;
		right += best == labels.data<int64_t>()[i];
	}
	return double(right) / double(images);
}

/* The logits of @path on @target, with its accuracy printed; an undefined Tensor on error. */
Tensor runModel(const std::string &path, Target target, const Tensor &images, const Tensor &labels,
		const char *label, std::vector<NodeTiming> *timings)
{
	auto model = Model::load(path);
	if (!model) {
		std::fprintf(stderr, "vdla-onnx-digits: %s\n", model.error().message().c_str());
		return Tensor();
	}
	/* The first run of a shape on the DLA prepares it; the second is the one timed. */
	if (target != Target::Cpu) {
		auto prepared = (*model)->run({ images }, target);
		if (!prepared) {
			std::fprintf(stderr, "vdla-onnx-digits: %s: %s\n", label,
				     prepared.error().message().c_str());
			return Tensor();
		}
	}
	auto outputs = (*model)->run({ images }, target, timings);
	if (!outputs) {
		std::fprintf(stderr, "vdla-onnx-digits: %s\n", outputs.error().message().c_str());
		return Tensor();
	}
	std::printf("%-28s accuracy %.4f on %lld held-out digits\n", label,
		    accuracy((*outputs)[0], labels), (long long)labels.elements());
	return (*outputs)[0];
}

/* How many elements of two tensors of one shape differ in their bits. */
int64_t differingElements(const Tensor &a, const Tensor &b)
{
	int64_t differing = 0;
	for (int64_t i = 0; i < a.elements(); i++)
		differing += std::memcmp(a.data<float>() + i, b.data<float>() + i, sizeof(float)) != 0;
	return differing;
}

float largestDifference(const Tensor &a, const Tensor &b)
{
	float largest = 0;
	for (int64_t i = 0; i < a.elements(); i++)
		largest = std::max(largest, std::fabs(a.data<float>()[i] - b.data<float>()[i]));
	return largest;
}

void printTimes(const char *title, const std::vector<NodeTiming> &timings)
{
	/* A DLA segment counts its nodes' device times, and the rest as its copies. */
	std::map<std::string, uint64_t> byOperator;
	for (const NodeTiming &t : timings) {
		if (t.parts.empty()) {
			byOperator[t.opType + (t.target == Target::Cpu ? " (cpu)" : " (dla)")] +=
				t.nanoseconds;
			continue;
		}
		uint64_t device = 0;
		for (const NodeTiming &part : t.parts) {
			byOperator[part.opType + " (dla)"] += part.nanoseconds;
			device += part.nanoseconds;
		}
		byOperator["copies, waits (dla)"] += t.nanoseconds > device ? t.nanoseconds - device : 0;
	}
	std::printf("\n%-24s %12s   (%s, all images)\n", "operator", "time (us)", title);
	for (const auto &[op, ns] : byOperator)
		std::printf("%-24s %12.1f\n", op.c_str(), ns / 1000.0);
}

double millisecondsSince(std::chrono::steady_clock::time_point start)
{
	return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
		.count();
}

/*
 * For scripts/bench: the import of the FP32 model, the first run on the DLA
 * (which plans and verifies), and the mean of 5 later runs of the 360 images
 * on each target.
 */
void printBenchmarks(const std::string &path, const Tensor &images)
{
	auto start = std::chrono::steady_clock::now();
	auto model = Model::load(path);
	const double loadMs = millisecondsSince(start);
	if (!model)
		return;
	start = std::chrono::steady_clock::now();
	if (!(*model)->run({ images }, Target::Dla))
		return;
	const double prepareMs = millisecondsSince(start);
	std::printf("{\"bench\": \"onnx_load_ms\", \"value\": %.2f, \"unit\": \"ms\"}\n", loadMs);
	std::printf("{\"bench\": \"onnx_digits_dla_first_run_ms\", \"value\": %.2f, \"unit\": \"ms\"}\n",
		    prepareMs);
	for (Target target : { Target::Cpu, Target::Dla }) {
		start = std::chrono::steady_clock::now();
		for (int i = 0; i < 5; i++)
			if (!(*model)->run({ images }, target))
				return;
		std::printf("{\"bench\": \"onnx_digits_%s_ms\", \"value\": %.2f, \"unit\": \"ms\", "
			    "\"images\": %lld}\n",
			    target == Target::Cpu ? "cpu" : "dla", millisecondsSince(start) / 5,
			    (long long)images.shape()[0]);
	}
}

/* The same for the INT8 model on the DLA (target any: Q/DQ at its edges on the CPU). */
void printInt8Benchmark(const std::string &path, const Tensor &images)
{
	auto model = Model::load(path);
	if (!model || !(*model)->run({ images }, Target::Any))
		return;
	auto start = std::chrono::steady_clock::now();
	for (int i = 0; i < 5; i++)
		if (!(*model)->run({ images }, Target::Any))
			return;
	std::printf("{\"bench\": \"onnx_digits_int8_dla_ms\", \"value\": %.2f, \"unit\": \"ms\", "
		    "\"images\": %lld}\n",
		    millisecondsSince(start) / 5, (long long)images.shape()[0]);
}

} /* namespace */

int main(int argc, char **argv)
{
	bool withDla = true;
	bool json = false;
	std::string dir = "umd/examples/models";
	for (int i = 1; i < argc; i++) {
		if (std::string(argv[i]) == "--cpu-only")
			withDla = false;
		else if (std::string(argv[i]) == "--json")
			json = true;
		else
			dir = argv[i];
	}
	auto images = readTensorFile(dir + "/digits_test_images.pb");
	auto labels = readTensorFile(dir + "/digits_test_labels.pb");
	if (!images || !labels) {
		const vdla::Error &error = images ? labels.error() : images.error();
		std::fprintf(stderr, "vdla-onnx-digits: %s\n", error.message().c_str());
		return 1;
	}

	std::vector<NodeTiming> cpuTimes, dlaTimes, int8Times;
	const std::string fp32 = dir + "/digits_fp32.onnx";
	const std::string qdq = dir + "/digits_int8_qdq.onnx";
	Tensor cpu = runModel(fp32, Target::Cpu, *images, *labels, "fp32 on the CPU", &cpuTimes);
	Tensor int8 = runModel(qdq, Target::Cpu, *images, *labels, "int8 QDQ on the CPU", nullptr);
	if (!cpu.defined() || !int8.defined())
		return 1;
	if (!withDla) {
		printTimes("fp32 on the CPU", cpuTimes);
		return 0;
	}
	Tensor dla = runModel(fp32, Target::Dla, *images, *labels, "fp32 on the DLA", &dlaTimes);
	if (!dla.defined())
		return 1;
	Tensor int8Dla = runModel(qdq, Target::Any, *images, *labels, "int8 QDQ on the DLA",
				  &int8Times);
	if (!int8Dla.defined())
		return 1;
	std::printf("largest |DLA - CPU| fp32 logit difference: %g\n", largestDifference(dla, cpu));
	std::printf("int8 logits of the DLA that differ from the CPU's: %lld of %lld\n",
		    (long long)differingElements(int8Dla, int8), (long long)int8.elements());
	printTimes("fp32 on the CPU", cpuTimes);
	printTimes("fp32 on the DLA", dlaTimes);
	printTimes("int8 QDQ on the DLA", int8Times);
	if (json) {
		printBenchmarks(fp32, *images);
		printInt8Benchmark(qdq, *images);
	}
	return 0;
}
