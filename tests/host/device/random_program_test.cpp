/* SPDX-License-Identifier: MIT */
/*
 * The device core against random register programs, as a hostile guest
 * would write them (docs/hw-spec.md, "Host resources"): random engines,
 * D registers, tensors (stride 0, overlapping, huge, in memory and SRAM,
 * faulting), MMU contexts and fault injection. Whatever it is given, every
 * operation ends (DONE or ERROR) within a time bound or is stopped at once
 * by a soft reset, the device keeps working, and the process stays within a
 * memory bound. Deterministic: fixed seeds.
 */
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <random>

#include "device_test_util.h"

namespace vdla_test {
namespace {

constexpr uint64_t kGuestBytes = 32ull << 20;
constexpr uint32_t kOpMemoryMb = 64;
/* Operations per process, and the most the process may grow meanwhile. */
constexpr int kOperations = 150;
constexpr long kMaxGrowthMiB = 512;

class Program
{
public:
	explicit Program(uint64_t seed) : rng_(seed) { }

	uint32_t pick(std::initializer_list<uint32_t> values)
	{
		return values.begin()[below(uint32_t(values.size()))];
	}
	uint32_t below(uint32_t n) { return uint32_t(rng_() % n); }
	bool chance(unsigned percent) { return below(100) < percent; }

	/* A register word: mostly small, sometimes a boundary or anything. */
	uint32_t word()
	{
		switch (below(5)) {
		case 0:
		case 1:
			return below(17);
		case 2:
			return pick({ 0, 1, 0xffff, 0x10001, 65535, 0x7fffffff, 0xffffffff });
		default:
			return uint32_t(rng_());
		}
	}

	/* A device address: guest memory, SRAM, the edges of either, or anything. */
	uint64_t address()
	{
		switch (below(6)) {
		case 0:
		case 1:
		case 2:
			return (rng_() % kGuestBytes) & ~uint64_t(3);
		case 3:
			return VDLA_SRAM_BASE + (rng_() % VDLA_SRAM_DEFAULT_SIZE & ~uint64_t(3));
		case 4:
			return pick({ 0, 4, uint32_t(kGuestBytes - 4) }) +
				(chance(50) ? 0 : VDLA_SRAM_BASE);
		default:
			return rng_();
		}
	}

	TensorDesc tensor()
	{
		TensorDesc t;
		t.addr = address();
		t.dtype = chance(90) ? below(VDLA_DTYPES) : word();
		uint32_t esize = uint32_t(dtypeSize(t.dtype) ? dtypeSize(t.dtype) : 1);
		uint32_t *dims[4] = { &t.w, &t.h, &t.c, &t.n };
		uint32_t *strides[4] = { &t.strideW, &t.strideH, &t.strideC, &t.strideN };
		uint32_t dense = esize;
		for (int d = 0; d < 4; d++) {
			*dims[d] = pick({ 1, 1, 2, 3, 7, 16, 64 }) + (chance(5) ? below(65536) : 0);
			switch (below(5)) {
			case 0:
				*strides[d] = 0;
				break;
			case 1:
				*strides[d] = esize * below(4);
				break;
			case 2:
				*strides[d] = word();
				break;
			default:
				*strides[d] = dense;
				break;
			}
			dense *= *dims[d];
		}
		return t;
	}

	std::mt19937_64 rng_;
};

uint32_t tensorCount(unsigned engine)
{
	return engine == VDLA_ENGINE_CONV || engine == VDLA_ENGINE_SDP ? 3 : 2;
}

/* Writes a random program into the D window of @group of @engine and enables it. */
void writeRandomOperation(DeviceHarness &dev, Program &prog, unsigned engine, unsigned group)
{
	dev.selectGroup(engine, group);
	uint32_t limit = engine == VDLA_ENGINE_BDMA ? VDLA_BDMA_DST_SURF_STRIDE + 4 :
		engine == VDLA_ENGINE_CONV	    ? VDLA_CONV_PAD_VALUE + 4 :
		engine == VDLA_ENGINE_SDP	    ? VDLA_SDP_OUT_OFFSET + 4 :
		engine == VDLA_ENGINE_PDP	    ? VDLA_PDP_PAD_TB + 4 :
		engine == VDLA_ENGINE_CDP	    ? VDLA_CDP_BETA + 4 :
						      VDLA_RUBIK_BLOCK + 4;
	for (uint32_t offset = VDLA_D_CONTEXT; offset < limit; offset += 4)
		dev.writeEngine(engine, offset, prog.word());
	dev.writeEngine(engine, VDLA_D_CONTEXT, prog.chance(80) ? 0 : prog.below(20));
	dev.writeEngine(engine, VDLA_D_CFG, prog.chance(70) ? 0 : prog.word());
	if (engine == VDLA_ENGINE_BDMA) {
		dev.write64Engine(engine, VDLA_BDMA_SRC_ADDR_LO, prog.address());
		dev.write64Engine(engine, VDLA_BDMA_DST_ADDR_LO, prog.address());
		dev.writeEngine(engine, VDLA_BDMA_LINE_BYTES,
			prog.pick({ 1, 3, 64, 4096, 65536, 1u << 20 }));
		dev.writeEngine(engine, VDLA_BDMA_LINES, prog.pick({ 1, 2, 100, 65535 }));
		dev.writeEngine(engine, VDLA_BDMA_SURFACES, prog.pick({ 1, 3, 128, 65535 }));
	} else {
		static const uint32_t kTensors[3] = { 0x110, 0x140, 0x170 };
		for (uint32_t i = 0; i < tensorCount(engine); i++)
			if (prog.chance(85))
				dev.writeTensor(engine, kTensors[i], prog.tensor());
		if (engine == VDLA_ENGINE_CONV) {
			dev.writeEngine(engine, VDLA_CONV_STRIDE, prog.pick({ 0x10001, 0x20002, 0 }));
			dev.writeEngine(engine, VDLA_CONV_DILATION, prog.pick({ 0x10001, 0x30001 }));
			dev.writeEngine(engine, VDLA_CONV_GROUPS, prog.pick({ 1, 2, 3, 0 }));
		}
	}
	dev.enable(engine);
}

/* A small copy: the device still computes after whatever came before. */
bool copyWorks(DeviceHarness &dev, uint64_t src, uint64_t dst, unsigned seed)
{
	fillPattern(dev.guest(src), 4096, seed);
	std::memset(dev.guest(dst), 0, 4096);
	unsigned group = dev.consumerGroup(kBdma);
	if (runBdma(dev, group, BdmaOp::linear(src, dst, 4096)) != VDLA_GROUP_DONE)
		return false;
	return std::memcmp(dev.guest(src), dev.guest(dst), 4096) == 0;
}

/* 0 when every operation of seed @seed behaved, else which check failed. */
int runPrograms(uint64_t seed)
{
	vdla_core_config config;
	vdla_core_default_config(&config);
	config.op_memory_mb = kOpMemoryMb;
	DeviceHarness dev(&config, kGuestBytes);
	Program prog(seed);
	/* Scratch for the liveness copies, at the top of guest memory. */
	uint64_t src = kGuestBytes - 3 * 4096, dst = kGuestBytes - 2 * 4096;

	for (int i = 0; i < kOperations; i++) {
		unsigned engine = prog.below(VDLA_NUM_ENGINES);
		unsigned group = dev.consumerGroup(engine);
		if (prog.chance(5)) {
			dev.write(VDLA_REG_FI_MODE(engine), prog.below(VDLA_FI_MODES));
			dev.write(VDLA_REG_FI_COUNT(engine), 1);
			dev.write(VDLA_REG_FI_DELAY_US(engine), prog.below(200000));
		}
		if (prog.chance(3))
			dev.write(VDLA_REG_MMU_CTRL, VDLA_MMU_CTRL_ENABLE);
		writeRandomOperation(dev, prog, engine, group);
		uint32_t ended = VDLA_INT_DONE(engine) | VDLA_INT_ERROR(engine);
		if (!waitUntil([&] { return dev.read(VDLA_REG_INT_STATUS) & ended; }, milliseconds(300))) {
			/* Still running (a long operation, a hang, a missing partner): a reset stops it. */
			dev.write(VDLA_REG_RESET, VDLA_RESET_SOFT);
			if (dev.read(VDLA_REG_IDLE) != kAllEnginesIdle)
				return 1;
			dev.write(VDLA_REG_INT_ENABLE, VDLA_INT_ALL);
			if (!copyWorks(dev, src, dst, unsigned(i)))
				return 2;
		}
		dev.ackInterrupts(VDLA_INT_ALL);
		if (dev.read(VDLA_REG_ID) != VDLA_ID_MAGIC)
			return 3;
	}
	dev.write(VDLA_REG_RESET, VDLA_RESET_SOFT);
	dev.write(VDLA_REG_INT_ENABLE, VDLA_INT_ALL);
	return copyWorks(dev, src, dst, 99) ? 0 : 4;
}

class RandomPrograms : public ::testing::TestWithParam<int>
{
};

TEST_P(RandomPrograms, EndOrStopAtResetAndLeaveTheDeviceWorkingWithinBoundedMemory)
{
	/* In a child: a crash is a failed test, and the peak memory is the programs' own. */
	pid_t pid = fork();
	if (pid == 0) {
		struct rusage usage = {};
		getrusage(RUSAGE_SELF, &usage);
		long before = usage.ru_maxrss / 1024;
		int status = runPrograms(uint64_t(GetParam()) * 7919 + 1);
		getrusage(RUSAGE_SELF, &usage);
		long grown = usage.ru_maxrss / 1024 - before;
		std::printf("seed %d: peak memory grew by %ld MiB\n", GetParam(), grown);
		std::fflush(stdout);
		_exit(status ? status : grown > kMaxGrowthMiB ? 5 : 0);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	ASSERT_TRUE(WIFEXITED(status)) << "the process died (signal " << WTERMSIG(status) << ")";
	EXPECT_EQ(WEXITSTATUS(status), 0)
		<< "1: not idle after a reset; 2: copy failed after a reset; 3: ID changed; "
		   "4: final copy failed; 5: memory grew past "
		<< kMaxGrowthMiB << " MiB";
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomPrograms, ::testing::Range(0, 3));

} /* namespace */
} /* namespace vdla_test */
