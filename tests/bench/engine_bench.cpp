/* SPDX-License-Identifier: MIT */
/*
 * vdla-bench-engines: throughput of the device core's memory-bound engines
 * next to memcpy on the same host, in one run: BDMA copying 64 MiB; SDP
 * requantising 16 Mi INT8 elements and adding a bias with ReLU to 4 Mi
 * FP32 ones; PDP max-pooling 16 Mi INT8 elements; CDP normalising 4 Mi
 * INT8 and FP16 elements; RUBIK permuting NCHW to NHWC and splitting space
 * into depth on 16 Mi INT8 elements. GB/s counts the bytes read plus the
 * bytes written, as for memcpy (each byte copied counts twice). Best of the
 * repeats; prints JSON lines.
 */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "device_harness.h"

namespace {

using namespace vdla_test;
using Clock = std::chrono::steady_clock;

constexpr uint64_t kBytes = 64ull << 20;

/* Seconds of the best of @reps runs of the group the caller programmed. */
double timeOperation(DeviceHarness &dev, unsigned engine, int reps,
		     void (*program)(DeviceHarness &, unsigned group))
{
	double best = 1e9;
	for (int r = 0; r < reps; r++) {
		unsigned group = dev.consumerGroup(engine);
		program(dev, group);
		auto start = Clock::now();
		dev.enable(engine);
		if (!dev.waitInterrupts(VDLA_INT_DONE(engine))) {
			std::fprintf(stderr, "vdla-bench-engines: engine %u failed (error %u)\n", engine,
				     dev.stats(engine, group).error);
			std::exit(1);
		}
		best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
		dev.ackInterrupts(VDLA_INT_DONE(engine));
	}
	return best;
}

/* Guest memory: two regions of kBytes, input then output. */
constexpr uint64_t kIn = 4096, kOut = kIn + kBytes;

void programBdma(DeviceHarness &dev, unsigned group)
{
	const unsigned e = VDLA_ENGINE_BDMA;
	dev.selectGroup(e, group);
	dev.write64Engine(e, VDLA_BDMA_SRC_ADDR_LO, kIn);
	dev.write64Engine(e, VDLA_BDMA_DST_ADDR_LO, kOut);
	dev.writeEngine(e, VDLA_BDMA_LINE_BYTES, uint32_t(kBytes / 16));
	dev.writeEngine(e, VDLA_BDMA_LINES, 16);
	dev.writeEngine(e, VDLA_BDMA_SRC_LINE_STRIDE, uint32_t(kBytes / 16));
	dev.writeEngine(e, VDLA_BDMA_DST_LINE_STRIDE, uint32_t(kBytes / 16));
	dev.writeEngine(e, VDLA_BDMA_SURFACES, 1);
}

/* 1 x 64 x 512 x 512 INT8: 16 Mi elements. */
TensorDesc int8Tensor(uint64_t addr, uint32_t hw)
{
	return TensorDesc::nchw(addr, VDLA_DTYPE_INT8, 1, 64, hw, hw);
}

void programSdp(DeviceHarness &dev, unsigned group)
{
	const unsigned e = VDLA_ENGINE_SDP;
	dev.selectGroup(e, group);
	/* A per-tensor scale with rounding: the requantisation of every INT8 layer. */
	dev.writeEngine(e, VDLA_D_CFG,
			(VDLA_SDP_MODE_PER_TENSOR << VDLA_SDP_CFG_SCALE_SHIFT) |
				(VDLA_ROUND_HALF_EVEN << VDLA_CFG_ROUND_SHIFT));
	dev.writeTensor(e, VDLA_SDP_SRC, int8Tensor(kIn, 512));
	dev.writeTensor(e, VDLA_SDP_DST, int8Tensor(kOut, 512));
	dev.writeEngine(e, VDLA_SDP_SCALE_MUL, 181);
	dev.writeEngine(e, VDLA_SDP_SCALE_SHIFT, 8);
}

void programPdp(DeviceHarness &dev, unsigned group)
{
	const unsigned e = VDLA_ENGINE_PDP;
	dev.selectGroup(e, group);
	dev.writeEngine(e, VDLA_D_CFG, VDLA_PDP_MAX << VDLA_PDP_CFG_METHOD_SHIFT);
	dev.writeTensor(e, VDLA_PDP_SRC, int8Tensor(kIn, 512));
	dev.writeTensor(e, VDLA_PDP_DST, int8Tensor(kOut, 256));
	dev.writeEngine(e, VDLA_PDP_KERNEL, 2 | (2 << 16));
	dev.writeEngine(e, VDLA_PDP_STRIDE, 2 | (2 << 16));
	dev.writeEngine(e, VDLA_PDP_PAD_LR, 0);
	dev.writeEngine(e, VDLA_PDP_PAD_TB, 0);
}

void programSdpFloat(DeviceHarness &dev, unsigned group)
{
	const unsigned e = VDLA_ENGINE_SDP;
	dev.selectGroup(e, group);
	dev.writeEngine(e, VDLA_D_CFG,
			(VDLA_SDP_MODE_PER_TENSOR << VDLA_SDP_CFG_BIAS_SHIFT) |
				(VDLA_SDP_ACT_RELU << VDLA_SDP_CFG_ACT_SHIFT));
	dev.writeTensor(e, VDLA_SDP_SRC, TensorDesc::nchw(kIn, VDLA_DTYPE_FP32, 1, 64, 256, 256));
	dev.writeTensor(e, VDLA_SDP_DST, TensorDesc::nchw(kOut, VDLA_DTYPE_FP32, 1, 64, 256, 256));
	float bias = -0.5f;
	uint32_t bits;
	std::memcpy(&bits, &bias, 4);
	dev.writeEngine(e, VDLA_SDP_BIAS_VALUE, bits);
}

/* LRN over 5 channels of 1 x 64 x 256 x 256; the INT8 LUT is in kLut. */
constexpr uint64_t kLut = kOut + kBytes;

void programCdp(DeviceHarness &dev, unsigned group, uint32_t dtype)
{
	const unsigned e = VDLA_ENGINE_CDP;
	dev.selectGroup(e, group);
	dev.writeEngine(e, VDLA_D_CFG, VDLA_ROUND_HALF_EVEN << VDLA_CFG_ROUND_SHIFT);
	dev.writeTensor(e, VDLA_CDP_SRC, TensorDesc::nchw(kIn, dtype, 1, 64, 256, 256));
	dev.writeTensor(e, VDLA_CDP_DST, TensorDesc::nchw(kOut, dtype, 1, 64, 256, 256));
	dev.writeEngine(e, VDLA_CDP_SIZE, 5);
	dev.write64Engine(e, VDLA_CDP_LUT_ADDR_LO, kLut);
	dev.writeEngine(e, VDLA_CDP_LUT_SHIFT, 8);
	dev.writeEngine(e, VDLA_CDP_OUT_SHIFT, 12);
	dev.writeEngine(e, VDLA_CDP_K, 0x40000000);	/* 2.0 */
	dev.writeEngine(e, VDLA_CDP_ALPHA, 0x38d1b717); /* 1e-4 */
	dev.writeEngine(e, VDLA_CDP_BETA, 0x3f400000);	/* 0.75 */
}

void programCdpInt8(DeviceHarness &dev, unsigned group)
{
	programCdp(dev, group, VDLA_DTYPE_INT8);
}

void programCdpFp16(DeviceHarness &dev, unsigned group)
{
	programCdp(dev, group, VDLA_DTYPE_FP16);
}

void programRubikPermute(DeviceHarness &dev, unsigned group)
{
	const unsigned e = VDLA_ENGINE_RUBIK;
	dev.selectGroup(e, group);
	dev.writeEngine(e, VDLA_D_CFG, VDLA_RUBIK_PERMUTE);
	dev.writeTensor(e, VDLA_RUBIK_SRC, int8Tensor(kIn, 512));
	/* DST (W, H, C, N) = SRC (C, W, H, N): NHWC order. */
	dev.writeTensor(e, VDLA_RUBIK_DST,
			TensorDesc::nchw(kOut, VDLA_DTYPE_INT8, 1, 512, 512, 64));
	dev.writeEngine(e, VDLA_RUBIK_PERM,
			VDLA_DIM_C | (VDLA_DIM_W << 2) | (VDLA_DIM_H << 4) | (VDLA_DIM_N << 6));
}

void programRubikSplit(DeviceHarness &dev, unsigned group)
{
	const unsigned e = VDLA_ENGINE_RUBIK;
	dev.selectGroup(e, group);
	dev.writeEngine(e, VDLA_D_CFG, VDLA_RUBIK_SPLIT);
	dev.writeTensor(e, VDLA_RUBIK_SRC, int8Tensor(kIn, 512));
	dev.writeTensor(e, VDLA_RUBIK_DST,
			TensorDesc::nchw(kOut, VDLA_DTYPE_INT8, 1, 256, 256, 256));
	dev.writeEngine(e, VDLA_RUBIK_BLOCK, 2 | (2 << 16));
}

double memcpyTime(int reps)
{
	std::vector<uint8_t> a(kBytes, 1), b(kBytes, 2);
	double best = 1e9;
	for (int r = 0; r < reps; r++) {
		auto start = Clock::now();
		std::memcpy(b.data(), a.data(), kBytes);
		best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
		a[r % kBytes] = b[(r * 7) % kBytes];
	}
	return best;
}

void print(const char *name, double bytes, double seconds, double memcpyGbs)
{
	double gbs = bytes / seconds / 1e9;
	std::printf("{\"bench\": \"%s\", \"value\": %.2f, \"unit\": \"GB/s\", \"memcpy_gbs\": %.2f, "
		    "\"vs_memcpy\": %.2f}\n",
		    name, gbs, memcpyGbs, gbs / memcpyGbs);
}

} /* namespace */

int main(int argc, char **argv)
{
	int reps = argc > 1 ? std::atoi(argv[1]) : 5;
	DeviceHarness dev(nullptr, kLut + 4096);
	std::memset(dev.guest(kIn), 0x35, kBytes);
	double memcpyGbs = 2.0 * kBytes / memcpyTime(reps) / 1e9;
	const double int8Bytes = 2.0 * 64 * 512 * 512, pdpBytes = 64 * 512 * 512 + 64 * 256 * 256;
	const double quarter = 2.0 * 64 * 256 * 256;
	/* The INT8 LRN LUT: 2^12 / sqrt(1 + x / 2^8 / 64), as a driver would make it. */
	for (int i = 0; i < VDLA_LUT_ENTRIES; i++) {
		int32_t entry = int32_t(4096.0 / std::sqrt(1.0 + i / 64.0));
		std::memcpy(dev.guest(kLut + 4 * i), &entry, 4);
	}

	print("bdma_gbs", 2.0 * kBytes, timeOperation(dev, VDLA_ENGINE_BDMA, reps, programBdma),
	      memcpyGbs);
	print("sdp_int8_gbs", int8Bytes, timeOperation(dev, VDLA_ENGINE_SDP, reps, programSdp),
	      memcpyGbs);
	print("sdp_fp32_gbs", 4 * quarter,
	      timeOperation(dev, VDLA_ENGINE_SDP, reps, programSdpFloat), memcpyGbs);
	print("pdp_int8_gbs", pdpBytes, timeOperation(dev, VDLA_ENGINE_PDP, reps, programPdp),
	      memcpyGbs);
	print("cdp_int8_gbs", quarter, timeOperation(dev, VDLA_ENGINE_CDP, reps, programCdpInt8),
	      memcpyGbs);
	print("cdp_fp16_gbs", 2 * quarter,
	      timeOperation(dev, VDLA_ENGINE_CDP, reps, programCdpFp16), memcpyGbs);
	print("rubik_permute_int8_gbs", int8Bytes,
	      timeOperation(dev, VDLA_ENGINE_RUBIK, reps, programRubikPermute), memcpyGbs);
	print("rubik_split_int8_gbs", int8Bytes,
	      timeOperation(dev, VDLA_ENGINE_RUBIK, reps, programRubikSplit), memcpyGbs);
	return 0;
}
