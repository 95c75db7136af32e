/* SPDX-License-Identifier: MIT */
/*
 * vdla-bench-conv: CONV throughput of the device core on the ResNet-18
 * convolution layers (batch 1, 224x224 input), INT8 and FP32, and the same
 * convolutions done by oneDNN on the host in the same run; INT16 (vdla's
 * own kernels: oneDNN has no INT16 convolution) on the device only.
 * Single threaded. Prints JSON lines, each naming the compute path the
 * device uses (VDLA_COMPUTE_PATH can force one) and the CPU.
 *
 * conv_int8_vs_onednn also says whether oneDNN's INT8 results equal the
 * device's, which are exact: oneDNN's are not on CPUs without VNNI
 * (docs/hw-spec.md, "Compute paths").
 *
 * "The same work": the device reads plain NCHW input and OIHW weights from
 * (emulated) guest memory and writes a plain NCHW result; oneDNN is given
 * the same plain tensors and must also produce a plain result, so its time
 * includes the reorders into and out of its preferred layouts. Primitive
 * creation is excluded for oneDNN (created once per layer); the device pays
 * whatever it pays per operation.
 */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.h>

#include "device_harness.h"

extern "C" void omp_set_num_threads(int);

namespace {

using namespace vdla_test;
using Clock = std::chrono::steady_clock;

struct Layer {
	const char *name;
	uint32_t ic, oc, hw, k, stride, pad;
	unsigned count; /* occurrences in the network */
};

/* ResNet-18's distinct convolutions and how often each occurs. */
const Layer kLayers[] = {
	{ "conv1", 3, 64, 224, 7, 2, 3, 1 },
	{ "layer1", 64, 64, 56, 3, 1, 1, 4 },
	{ "layer2.down3x3", 64, 128, 56, 3, 2, 1, 1 },
	{ "layer2", 128, 128, 28, 3, 1, 1, 3 },
	{ "layer2.ds", 64, 128, 56, 1, 2, 0, 1 },
	{ "layer3.down3x3", 128, 256, 28, 3, 2, 1, 1 },
	{ "layer3", 256, 256, 14, 3, 1, 1, 3 },
	{ "layer3.ds", 128, 256, 28, 1, 2, 0, 1 },
	{ "layer4.down3x3", 256, 512, 14, 3, 2, 1, 1 },
	{ "layer4", 512, 512, 7, 3, 1, 1, 3 },
	{ "layer4.ds", 256, 512, 14, 1, 2, 0, 1 },
};

uint32_t outSize(const Layer &l)
{
	return (l.hw + 2 * l.pad - l.k) / l.stride + 1;
}

uint64_t macs(const Layer &l)
{
	uint64_t o = outSize(l);
	return uint64_t(l.oc) * o * o * l.ic * l.k * l.k;
}

enum class Type { Int8, Int16, Fp32 };

const char *nameOf(Type type)
{
	return type == Type::Int8 ? "int8" : type == Type::Int16 ? "int16" : "fp32";
}

void fill(uint8_t *p, size_t bytes, bool isFloat, std::mt19937 &rng)
{
	if (isFloat) {
		std::uniform_real_distribution<float> d(-1.0f, 1.0f);
		for (size_t i = 0; i + 4 <= bytes; i += 4) {
			float v = d(rng);
			std::memcpy(p + i, &v, 4);
		}
	} else {
		for (size_t i = 0; i < bytes; i++)
			p[i] = uint8_t(rng() % 7) - 3;
	}
}

/* The host CPU's model name, for reports. */
std::string cpuModel()
{
	std::ifstream cpuinfo("/proc/cpuinfo");
	std::string line;
	while (std::getline(cpuinfo, line)) {
		if (line.rfind("model name", 0) == 0) {
			size_t colon = line.find(':');
			if (colon != std::string::npos && colon + 2 <= line.size())
				return line.substr(colon + 2);
		}
	}
	return "unknown";
}

/* Seconds per run of @l on the device core, best of @reps; its output in @out. */
double deviceTime(DeviceHarness &dev, const Layer &l, Type type, int reps,
		  std::vector<uint8_t> *out)
{
	const bool isFloat = type == Type::Fp32;
	uint32_t dt = isFloat ? VDLA_DTYPE_FP32
			      : type == Type::Int16 ? VDLA_DTYPE_INT16 : VDLA_DTYPE_INT8;
	uint32_t ot = isFloat ? VDLA_DTYPE_FP32 : VDLA_DTYPE_INT32;
	uint32_t o = outSize(l);
	std::mt19937 rng(l.ic * 131 + l.oc);

	TensorDesc src = TensorDesc::nchw(0, dt, 1, l.ic, l.hw, l.hw);
	src.addr = dev.alloc(src.extent(), 4096);
	TensorDesc wgt = TensorDesc::nchw(0, dt, l.oc, l.ic, l.k, l.k);
	wgt.addr = dev.alloc(wgt.extent(), 4096);
	TensorDesc dst = TensorDesc::nchw(0, ot, 1, l.oc, o, o);
	dst.addr = dev.alloc(dst.extent(), 4096);
	fill(dev.guest(src.addr), src.extent(), isFloat, rng);
	fill(dev.guest(wgt.addr), wgt.extent(), isFloat, rng);

	const unsigned e = VDLA_ENGINE_CONV;
	double best = 1e9;
	for (int r = 0; r < reps; r++) {
		unsigned g = dev.consumerGroup(e);
		dev.selectGroup(e, g);
		dev.writeTensor(e, VDLA_CONV_SRC, src);
		dev.writeTensor(e, VDLA_CONV_WGT, wgt);
		dev.writeTensor(e, VDLA_CONV_DST, dst);
		dev.writeEngine(e, VDLA_CONV_STRIDE, l.stride | (l.stride << 16));
		dev.writeEngine(e, VDLA_CONV_PAD_LR, l.pad | (l.pad << 16));
		dev.writeEngine(e, VDLA_CONV_PAD_TB, l.pad | (l.pad << 16));
		dev.writeEngine(e, VDLA_CONV_DILATION, 1 | (1 << 16));
		dev.writeEngine(e, VDLA_CONV_GROUPS, 1);
		auto start = Clock::now();
		dev.enable(e);
		if (!dev.waitInterrupts(VDLA_INT_DONE(e))) {
			std::fprintf(stderr, "vdla-bench-conv: %s did not complete (error %u)\n",
				     l.name, dev.stats(e, g).error);
			std::exit(1);
		}
		best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
		dev.ackInterrupts(VDLA_INT_DONE(e));
	}
	out->assign(dev.guest(dst.addr), dev.guest(dst.addr) + dst.extent());
	return best;
}

#define CHECK(call)                                                                  \
	do {                                                                         \
		if ((call) != dnnl_success) {                                        \
			std::fprintf(stderr, "vdla-bench-conv: %s failed\n", #call); \
			std::exit(1);                                                \
		}                                                                    \
	} while (0)

dnnl_primitive_t makeReorder(dnnl_engine_t eng, const dnnl_memory_desc_t *from,
			     const dnnl_memory_desc_t *to)
{
	dnnl_primitive_desc_t pd;
	dnnl_primitive_t p;
	CHECK(dnnl_reorder_primitive_desc_create(&pd, from, eng, to, eng, nullptr));
	CHECK(dnnl_primitive_create(&p, pd));
	dnnl_primitive_desc_destroy(pd);
	return p;
}

/*
 * Seconds per run of @l with oneDNN from and to plain layouts, best of
 * @reps; its output in @out.
 */
double onednnTime(dnnl_engine_t eng, dnnl_stream_t stream, const Layer &l, bool isFloat, int reps,
		  std::vector<uint8_t> *out)
{
	dnnl_data_type_t it = isFloat ? dnnl_f32 : dnnl_s8, ot = isFloat ? dnnl_f32 : dnnl_s32;
	int64_t o = outSize(l);
	dnnl_dims_t sd = { 1, l.ic, l.hw, l.hw }, wd = { l.oc, l.ic, l.k, l.k },
		    dd = { 1, l.oc, o, o };
	dnnl_dims_t strides = { l.stride, l.stride }, dil = { 0, 0 }, pad = { l.pad, l.pad };
	dnnl_memory_desc_t s_plain, w_plain, d_plain, s_any, w_any, d_any;
	CHECK(dnnl_memory_desc_init_by_tag(&s_plain, 4, sd, it, dnnl_nchw));
	CHECK(dnnl_memory_desc_init_by_tag(&w_plain, 4, wd, it, dnnl_oihw));
	CHECK(dnnl_memory_desc_init_by_tag(&d_plain, 4, dd, ot, dnnl_nchw));
	CHECK(dnnl_memory_desc_init_by_tag(&s_any, 4, sd, it, dnnl_format_tag_any));
	CHECK(dnnl_memory_desc_init_by_tag(&w_any, 4, wd, it, dnnl_format_tag_any));
	CHECK(dnnl_memory_desc_init_by_tag(&d_any, 4, dd, ot, dnnl_format_tag_any));
	dnnl_convolution_desc_t cd;
	CHECK(dnnl_dilated_convolution_forward_desc_init(&cd, dnnl_forward_inference,
							 dnnl_convolution_direct, &s_any, &w_any,
							 nullptr, &d_any, strides, dil, pad, pad));
	dnnl_primitive_desc_t pd;
	CHECK(dnnl_primitive_desc_create(&pd, &cd, nullptr, eng, nullptr));
	dnnl_primitive_t conv;
	CHECK(dnnl_primitive_create(&conv, pd));
	const dnnl_memory_desc_t *s_md = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
	const dnnl_memory_desc_t *w_md = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
	const dnnl_memory_desc_t *d_md = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
	dnnl_primitive_t rs = makeReorder(eng, &s_plain, s_md), rw = makeReorder(eng, &w_plain, w_md),
			 rd = makeReorder(eng, d_md, &d_plain);

	dnnl_memory_t ms, mw, md, ms2, mw2, md2;
	CHECK(dnnl_memory_create(&ms, &s_plain, eng, DNNL_MEMORY_ALLOCATE));
	CHECK(dnnl_memory_create(&mw, &w_plain, eng, DNNL_MEMORY_ALLOCATE));
	CHECK(dnnl_memory_create(&md, &d_plain, eng, DNNL_MEMORY_ALLOCATE));
	CHECK(dnnl_memory_create(&ms2, s_md, eng, DNNL_MEMORY_ALLOCATE));
	CHECK(dnnl_memory_create(&mw2, w_md, eng, DNNL_MEMORY_ALLOCATE));
	CHECK(dnnl_memory_create(&md2, d_md, eng, DNNL_MEMORY_ALLOCATE));
	std::mt19937 rng(l.ic * 131 + l.oc);
	void *p;
	dnnl_memory_get_data_handle(ms, &p);
	fill(static_cast<uint8_t *>(p), dnnl_memory_desc_get_size(&s_plain), isFloat, rng);
	dnnl_memory_get_data_handle(mw, &p);
	fill(static_cast<uint8_t *>(p), dnnl_memory_desc_get_size(&w_plain), isFloat, rng);

	double best = 1e9;
	for (int r = 0; r < reps; r++) {
		auto start = Clock::now();
		dnnl_exec_arg_t a1[] = { { DNNL_ARG_FROM, ms }, { DNNL_ARG_TO, ms2 } };
		dnnl_exec_arg_t a2[] = { { DNNL_ARG_FROM, mw }, { DNNL_ARG_TO, mw2 } };
		dnnl_exec_arg_t a3[] = { { DNNL_ARG_SRC, ms2 }, { DNNL_ARG_WEIGHTS, mw2 },
					 { DNNL_ARG_DST, md2 } };
		dnnl_exec_arg_t a4[] = { { DNNL_ARG_FROM, md2 }, { DNNL_ARG_TO, md } };
		CHECK(dnnl_primitive_execute(rs, stream, 2, a1));
		CHECK(dnnl_primitive_execute(rw, stream, 2, a2));
		CHECK(dnnl_primitive_execute(conv, stream, 3, a3));
		CHECK(dnnl_primitive_execute(rd, stream, 2, a4));
		CHECK(dnnl_stream_wait(stream));
		best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
	}
	dnnl_memory_get_data_handle(md, &p);
	out->assign(static_cast<uint8_t *>(p),
		    static_cast<uint8_t *>(p) + dnnl_memory_desc_get_size(&d_plain));
	for (dnnl_memory_t m : { ms, mw, md, ms2, mw2, md2 })
		dnnl_memory_destroy(m);
	for (dnnl_primitive_t q : { conv, rs, rw, rd })
		dnnl_primitive_destroy(q);
	dnnl_primitive_desc_destroy(pd);
	return best;
}

} /* namespace */

int main(int argc, char **argv)
{
	int reps = argc > 1 ? std::atoi(argv[1]) : 5;
	bool verbose = argc > 2 && std::strcmp(argv[2], "-v") == 0;
	omp_set_num_threads(1);

	dnnl_engine_t eng;
	dnnl_stream_t stream;
	CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
	CHECK(dnnl_stream_create(&stream, eng, dnnl_stream_default_flags));

	const std::string cpu = cpuModel();
	double int8Gmacs = 0;
	for (Type type : { Type::Int8, Type::Fp32, Type::Int16 }) {
		const bool isFloat = type == Type::Fp32, withOnednn = type != Type::Int16;
		DeviceHarness dev(nullptr, 512ull << 20);
		uint32_t compute = vdla_core_compute(dev.core());
		double devTotal = 0, dnnTotal = 0;
		uint64_t macTotal = 0, differing = 0;
		for (const Layer &l : kLayers) {
			std::vector<uint8_t> devOut, dnnOut;
			double d = deviceTime(dev, l, type, reps, &devOut);
			double n = withOnednn ? onednnTime(eng, stream, l, isFloat, reps, &dnnOut) : 0;
			devTotal += d * l.count;
			dnnTotal += n * l.count;
			macTotal += macs(l) * l.count;
			if (type == Type::Int8) {
				const int32_t *a = reinterpret_cast<const int32_t *>(devOut.data());
				const int32_t *b = reinterpret_cast<const int32_t *>(dnnOut.data());
				for (size_t i = 0; i < devOut.size() / 4; i++)
					differing += a[i] != b[i];
			}
			if (verbose)
				std::fprintf(stderr, "%-5s %-16s device %8.3f ms  onednn %8.3f ms\n",
					     nameOf(type), l.name, d * 1e3, n * 1e3);
		}
		double gmacs = macTotal / devTotal / 1e9;
		std::printf("{\"bench\": \"conv_%s_gmacs\", \"value\": %.1f, \"unit\": \"GMAC/s\", "
			    "\"network\": \"resnet18-convs\", \"path\": \"%s\", "
			    "\"float_isa\": \"%s\", \"cpu\": \"%s\"}\n",
			    nameOf(type), gmacs, vdla_compute_path_name(VDLA_COMPUTE_PATH(compute)),
			    vdla_compute_isa_name(VDLA_COMPUTE_FLOAT_ISA(compute)), cpu.c_str());
		if (type == Type::Int8) {
			int8Gmacs = gmacs;
			std::printf("{\"bench\": \"conv_int8_vs_onednn\", \"value\": %.2f, "
				    "\"unit\": \"ratio\", \"onednn_gmacs\": %.1f, "
				    "\"onednn_exact\": %s, \"onednn_wrong_outputs\": %llu, "
				    "\"onednn_isa\": \"%s\", \"cpu\": \"%s\"}\n",
				    devTotal / dnnTotal, macTotal / dnnTotal / 1e9,
				    differing ? "false" : "true", (unsigned long long)differing,
				    vdla_compute_isa_name(vdla_compute_float_isa()), cpu.c_str());
		} else if (type == Type::Fp32) {
			std::printf("{\"bench\": \"conv_fp32_vs_onednn\", \"value\": %.2f, "
				    "\"unit\": \"ratio\", \"onednn_gmacs\": %.1f}\n",
				    devTotal / dnnTotal, macTotal / dnnTotal / 1e9);
		} else {
			std::printf("{\"bench\": \"conv_int16_vs_int8\", \"value\": %.2f, "
				    "\"unit\": \"ratio\", \"path\": \"%s\"}\n",
				    gmacs / int8Gmacs, vdla_compute_path_name(VDLA_COMPUTE_PATH(compute)));
		}
	}
	{
		DeviceHarness dev(nullptr, 64ull << 20);
		const Layer small = { "small", 16, 16, 8, 3, 1, 1, 1 };
		std::vector<uint8_t> out;
		double t = deviceTime(dev, small, Type::Fp32, 200, &out);
		std::printf("{\"bench\": \"conv_fp32_small_op_us\", \"value\": %.1f, \"unit\": \"us\", "
			    "\"shape\": \"1x16x8x8 k3 oc16\"}\n",
			    t * 1e6);
	}
	dnnl_stream_destroy(stream);
	dnnl_engine_destroy(eng);
	return 0;
}
