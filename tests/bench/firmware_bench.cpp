/* SPDX-License-Identifier: MIT */
/*
 * vdla-bench-firmware: the firmware core running a 1000-operation network on
 * the device core in one process. Prints, as JSON lines, register writes per
 * operation and the ping-pong hit rate (the share of completions after which
 * the engine's next operation was already programmed in its other group).
 *
 * With --once it runs the task a single time and prints nothing: that is what
 * scripts/bench runs under callgrind to count the firmware's instructions
 * per operation (fw_instructions_per_op).
 *
 * With --chain it runs, also silently, the OpenVX bench's chain of DLA
 * layers (see buildChain) ten times, for fw_instructions_per_chained_op.
 *
 * The network: 250 blocks of BDMA copy -> SDP (ReLU) fused with PDP -> RUBIK,
 * each block reading the previous block's output. It avoids CONV so that it
 * runs under valgrind without oneDNN's JIT code.
 */
#include <cstdio>
#include <cstring>
#include <thread>

#include "task_builder.h"
#include "test_port.h"

using namespace vdla_fwtest;

namespace {

constexpr int kBlocks = 250;
constexpr int kChainLayers = 100;
constexpr int kChainRuns = 10;

TestTask &buildNetwork(TaskBuilder &b)
{
	const uint32_t n = 1, c = 4, h = 8, w = 8;
	Surface input = b.alloc(VDLA_DTYPE_INT8, n, c, h, w);
	uint16_t previous = VDLA_NO_OP;

	vdla_ref::SdpParams relu;
	relu.act = VDLA_SDP_ACT_RELU;
	vdla_ref::PdpParams identity; /* 1x1 max pooling */
	vdla_ref::RubikParams permute; /* the identity permutation: a copy */

	for (int block = 0; block < kBlocks; block++) {
		Surface copied = b.alloc(VDLA_DTYPE_INT8, n, c, h, w);
		Surface pooled = b.alloc(VDLA_DTYPE_INT8, n, c, h, w);
		Surface output = b.alloc(VDLA_DTYPE_INT8, n, c, h, w);

		uint16_t copy = b.copy(input, copied);
		if (previous != VDLA_NO_OP)
			b.link(previous, copy);
		uint16_t sdp = b.sdp(copied, TaskBuilder::flying(VDLA_DTYPE_INT8, n, c, h, w), relu,
				     nullptr, VDLA_TASK_FLY_OUT);
		b.link(copy, sdp);
		uint16_t pdp = b.pdp(TaskBuilder::flying(VDLA_DTYPE_INT8, n, c, h, w), pooled,
				     identity, VDLA_TASK_FLY_IN);
		uint16_t rubik = b.rubik(pooled, output, permute);
		b.link(pdp, rubik);
		previous = rubik;
		input = output;
	}
	return b.finish();
}

/*
 * The OpenVX bench's DLA chain (vdla-bench-vx): 100 INT8 ReLU layers on SDP
 * alone, 8x8 tensors alternating between two buffers, each layer linked to
 * the one before.
 */
TestTask &buildChain(TaskBuilder &b)
{
	Surface buffers[2] = { b.alloc(VDLA_DTYPE_INT8, 1, 1, 8, 8),
			       b.alloc(VDLA_DTYPE_INT8, 1, 1, 8, 8) };
	vdla_ref::SdpParams relu;
	relu.act = VDLA_SDP_ACT_RELU;
	uint16_t previous = VDLA_NO_OP;

	for (int layer = 0; layer < kChainLayers; layer++) {
		uint16_t op = b.sdp(buffers[layer % 2], buffers[(layer + 1) % 2], relu);
		if (previous != VDLA_NO_OP)
			b.link(previous, op);
		previous = op;
	}
	return b.finish();
}

} /* namespace */

/*
 * Runs the chain @runs times as the guest does: time-only statistics, and
 * each pass of dla_process_events only once SDP has run every group it was
 * given, as when the interrupt thread finds all of them done. Returns false
 * if a run did not complete.
 */
bool runChain(int runs)
{
	FwDevice dev(64ull << 20);
	TaskBuilder builder(dev);
	TestTask &task = buildChain(builder);
	task.flags = DLA_TASK_STATISTICS | DLA_TASK_TIME_ONLY;
	auto engineIdle = [&] {
		while (!(dev.dev().read(VDLA_REG_IDLE) & (1u << VDLA_ENGINE_SDP)))
			std::this_thread::yield();
		return true;
	};
	for (int run = 0; run < runs; run++) {
		TaskEnd end = runTask(dev, task, std::chrono::milliseconds(120000), engineIdle);
		if (end.result.state != DLA_TASK_COMPLETED) {
			std::fprintf(stderr, "vdla-bench-firmware: the chain did not complete: %s\n",
				     describe(end).c_str());
			return false;
		}
	}
	return true;
}

int main(int argc, char **argv)
{
	bool once = argc > 1 && std::strcmp(argv[1], "--once") == 0;
	if (argc > 1 && std::strcmp(argv[1], "--chain") == 0)
		return runChain(kChainRuns) ? 0 : 1;
	FwDevice dev(256ull << 20);
	TaskBuilder builder(dev);
	TestTask &task = buildNetwork(builder);
	uint32_t ops = builder.numOps();

	dev.resetRegCounts();
	TaskEnd end = runTask(dev, task, std::chrono::milliseconds(120000));
	if (end.result.state != DLA_TASK_COMPLETED) {
		std::fprintf(stderr, "vdla-bench-firmware: the network did not complete: %s\n",
			     describe(end).c_str());
		return 1;
	}
	if (once)
		return 0;

	std::printf("{\"bench\": \"fw_reg_writes_per_op\", \"value\": %.1f, \"unit\": \"writes\", "
		    "\"ops\": %u}\n",
		    double(dev.regWrites()) / ops, ops);
	std::printf("{\"bench\": \"fw_pingpong_hit_pct\", \"value\": %.1f, \"unit\": \"%%\", "
		    "\"completions\": %u}\n",
		    100.0 * end.result.pingpong_hits / std::max(1u, end.result.pingpong_total),
		    end.result.pingpong_total);
	return 0;
}
