/* SPDX-License-Identifier: MIT */
/*
 * vdla-onnx-digits: the trained digits CNN of scripts/models/digits.py, run
 * from ONNX (docs/onnx.md, "Example"). Prints the accuracy on the held-out
 * digits of the FP32 model and of its INT8 QDQ copy, and the time of each
 * operator of the INT8 run.
 *
 *   vdla-onnx-digits [MODEL_DIR]     (default: umd/examples/models)
 */

#include <vdla/onnx.h>

#include <cstdio>
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

bool runModel(const std::string &path, const Tensor &images, const Tensor &labels,
	      const char *label, std::vector<NodeTiming> *timings)
{
	auto model = Model::load(path);
	if (!model) {
		std::fprintf(stderr, "vdla-onnx-digits: %s\n", model.error().message().c_str());
		return false;
	}
	auto outputs = (*model)->run({ images }, Target::Cpu, timings);
	if (!outputs) {
		std::fprintf(stderr, "vdla-onnx-digits: %s\n", outputs.error().message().c_str());
		return false;
	}
	std::printf("%-24s accuracy %.4f on %lld held-out digits\n", label,
		    accuracy((*outputs)[0], labels), (long long)labels.elements());
	return true;
}

} /* namespace */

int main(int argc, char **argv)
{
	const std::string dir = argc > 1 ? argv[1] : "umd/examples/models";
	auto images = readTensorFile(dir + "/digits_test_images.pb");
	auto labels = readTensorFile(dir + "/digits_test_labels.pb");
	if (!images || !labels) {
		const vdla::Error &error = images ? labels.error() : images.error();
		std::fprintf(stderr, "vdla-onnx-digits: %s\n", error.message().c_str());
		return 1;
	}

	std::vector<NodeTiming> timings;
	if (!runModel(dir + "/digits_fp32.onnx", *images, *labels, "fp32 on the CPU", nullptr) ||
	    !runModel(dir + "/digits_int8_qdq.onnx", *images, *labels, "int8 QDQ on the CPU", &timings))
		return 1;

	std::map<std::string, uint64_t> byOperator;
	for (const NodeTiming &t : timings)
		byOperator[t.opType] += t.nanoseconds;
	std::printf("\n%-20s %12s   (int8 run, all images)\n", "operator", "time (us)");
	for (const auto &[op, ns] : byOperator)
		std::printf("%-20s %12.1f\n", op.c_str(), ns / 1000.0);
	return 0;
}
