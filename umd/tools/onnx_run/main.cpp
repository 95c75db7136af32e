/* SPDX-License-Identifier: MIT */
/*
 * vdla-onnx-run: runs an ONNX model (docs/onnx.md), in the manner of
 * onnxruntime's onnx_test_runner.
 *
 *   vdla-onnx-run [--target cpu|dla|any] [--device N] [--placement] MODEL INPUT.pb... -o OUT_DIR
 *   vdla-onnx-run [--target cpu|dla|any] [--device N] --test CASE_DIR...
 *   vdla-onnx-run --describe MODEL
 *   vdla-onnx-run --list-operators
 */

#include "case_runner.h"

#include <vdla/onnx.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace vdla::onnx;

namespace {

void usage()
{
	std::fprintf(stderr,
		     "usage: vdla-onnx-run [--target cpu|dla|any] [--device N] [--placement] MODEL INPUT.pb... -o OUT_DIR\n"
		     "       vdla-onnx-run [--target cpu|dla|any] [--device N] --test CASE_DIR...\n"
		     "       vdla-onnx-run --describe MODEL\n"
		     "       vdla-onnx-run --list-operators\n");
	std::exit(2);
}

struct Options {
	Target target = Target::Cpu;
	bool placement = false;
	bool test = false;
	bool listOperators = false;
	bool describe = false;
	std::string outDir;
	std::vector<std::string> paths;
};

Options parse(int argc, char **argv)
{
	Options options;
	for (int i = 1; i < argc; i++) {
		std::string arg = argv[i];
		if (arg == "--target" && i + 1 < argc) {
			std::string target = argv[++i];
			if (target == "cpu") {
				options.target = Target::Cpu;
			} else if (target == "dla") {
				options.target = Target::Dla;
			} else if (target == "any") {
				options.target = Target::Any;
			} else {
				std::fprintf(stderr, "vdla-onnx-run: unknown target '%s' (cpu, dla "
						     "or any)\n", target.c_str());
				std::exit(2);
			}
		} else if (arg == "--device" && i + 1 < argc) {
			/* The DLA the OpenVX layer opens (docs/onnx.md, "Targets"). */
			std::string node = std::string("/dev/accel/accel") + argv[++i];
			setenv("VDLA_VX_DEVICE", node.c_str(), 1);
		} else if (arg == "--placement") {
			options.placement = true;
		} else if (arg == "--test") {
			options.test = true;
		} else if (arg == "--describe") {
			options.describe = true;
		} else if (arg == "--list-operators") {
			options.listOperators = true;
		} else if (arg == "-o" && i + 1 < argc) {
			options.outDir = argv[++i];
		} else if (arg.rfind("-", 0) == 0) {
			usage();
		} else {
			options.paths.push_back(arg);
		}
	}
	return options;
}

const char *targetName(Target target)
{
	switch (target) {
	case Target::Cpu: return "cpu";
	case Target::Dla: return "dla";
	case Target::Any: return "any";
	}
	return "?";
}

int runTests(const Options &options)
{
	int passed = 0, failed = 0;
	for (const std::string &dir : options.paths) {
		CaseResult result = runCase(dir, options.target);
		std::string name = dir.substr(dir.find_last_not_of('/') == std::string::npos ? 0 :
					      dir.rfind('/', dir.find_last_not_of('/')) + 1);
		if (result.passed) {
			passed++;
			std::printf("PASS %s\n", name.c_str());
		} else {
			failed++;
			std::printf("FAIL %s: %s\n", name.c_str(), result.reason.c_str());
		}
	}
	std::printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

void printValues(const char *what, const std::vector<ValueInfo> &values)
{
	for (const ValueInfo &info : values) {
		std::printf("%s %s %s[", what, info.name.c_str(), dataTypeName(info.type));
		for (size_t i = 0; i < info.shape.size(); i++)
			std::printf(i ? ",%lld" : "%lld", (long long)info.shape[i]);
		std::printf("]\n");
	}
}

/* The model's interface and the operators left after import and folding. */
int describe(const Options &options)
{
	if (options.paths.size() != 1)
		usage();
	auto model = Model::load(options.paths[0]);
	if (!model) {
		std::fprintf(stderr, "vdla-onnx-run: %s\n", model.error().message().c_str());
		return 1;
	}
	printValues("input", (*model)->inputs());
	printValues("output", (*model)->outputs());
	for (const std::string &op : (*model)->opTypes())
		std::printf("operator %s\n", op.c_str());
	return 0;
}

int runModel(const Options &options)
{
	if (options.paths.empty() || options.outDir.empty())
		usage();
	auto model = Model::load(options.paths[0]);
	if (!model) {
		std::fprintf(stderr, "vdla-onnx-run: %s\n", model.error().message().c_str());
		return 1;
	}
	std::vector<Tensor> inputs;
	for (size_t i = 1; i < options.paths.size(); i++) {
		auto tensor = readTensorFile(options.paths[i]);
		if (!tensor) {
			std::fprintf(stderr, "vdla-onnx-run: %s\n", tensor.error().message().c_str());
			return 1;
		}
		inputs.push_back(std::move(*tensor));
	}
	std::vector<NodeTiming> timings;
	auto outputs = (*model)->run(inputs, options.target, &timings);
	if (!outputs) {
		std::fprintf(stderr, "vdla-onnx-run: %s\n", outputs.error().message().c_str());
		return 1;
	}
	if (mkdir(options.outDir.c_str(), 0755) && errno != EEXIST) {
		std::fprintf(stderr, "vdla-onnx-run: cannot create %s: %s\n",
			     options.outDir.c_str(), std::strerror(errno));
		return 1;
	}
	for (size_t j = 0; j < outputs->size(); j++) {
		std::string path = options.outDir + "/output_" + std::to_string(j) + ".pb";
		auto written = writeTensorFile(path, (*outputs)[j], (*model)->outputs()[j].name);
		if (!written) {
			std::fprintf(stderr, "vdla-onnx-run: %s\n", written.error().message().c_str());
			return 1;
		}
	}
	if (options.placement) {
		/* A DLA segment's wall time, then each of its nodes' device time. */
		std::printf("%-32s %-20s %-6s %12s\n", "node", "operator", "target", "time (us)");
		for (const NodeTiming &t : timings) {
			std::printf("%-32s %-20s %-6s %12.1f\n", t.node.c_str(), t.opType.c_str(),
				    targetName(t.target), t.nanoseconds / 1000.0);
			for (const NodeTiming &part : t.parts)
				std::printf("  %-30s %-20s %-6s %12.1f (device)\n", part.node.c_str(),
					    part.opType.c_str(), targetName(part.target),
					    part.nanoseconds / 1000.0);
		}
	}
	return 0;
}

} /* namespace */

int main(int argc, char **argv)
{
	Options options = parse(argc, argv);
	if (options.listOperators) {
		for (const std::string &op : cpuOperators())
			std::printf("%s\n", op.c_str());
		return 0;
	}
	if (options.describe)
		return describe(options);
	if (options.test) {
		if (options.paths.empty())
			usage();
		return runTests(options);
	}
	return runModel(options);
}
