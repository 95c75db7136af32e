/* SPDX-License-Identifier: MIT */
/*
 * The register shadow kept from one task to the next: a task whose
 * operations land in groups that last ran the same programming writes no D
 * register (S_ENABLE starts them), and whatever else touched the groups in between (a reset,
 * another firmware context) makes the next task program everything again,
 * which the results show: a group the firmware wrongly believed programmed
 * would run what is left in it (zeros after a reset, which the device
 * refuses, or another task's copy) and leave the outputs as canaries.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "task_builder.h"

using namespace vdla_fwtest;
using namespace vdla_ref;

namespace {

/* One copy per register group of the BDMA, each to its own output. */
struct CopyPerGroup {
	Tensor input;
	std::vector<Surface> outputs;

	CopyPerGroup(TaskBuilder &b, uint64_t seed)
	{
		Rng rng(seed);
		input = randomTensor(rng, VDLA_DTYPE_INT8, 1, 2, 3, 5);
		Surface in = b.place(input);
		for (uint32_t g = 0; g < VDLA_NUM_GROUPS; g++) {
			outputs.push_back(b.allocLike(input));
			b.copy(in, outputs.back());
		}
	}

	void clearOutputs(TaskBuilder &b)
	{
		for (const Surface &out : outputs)
			std::memset(b.hostPtr(out.index, out.offset), 0x5a, out.desc.extent());
	}

	void check(TaskBuilder &b)
	{
		for (size_t i = 0; i < outputs.size(); i++)
			EXPECT_TRUE(matches(input, b.load(outputs[i]))) << "copy " << i;
	}
};

bool isDWindowWrite(uint32_t address)
{
	if (address < VDLA_ENGINE_BASE(0) || address >= VDLA_ENGINE_BASE(VDLA_NUM_ENGINES))
		return false;
	uint32_t offset = (address - VDLA_ENGINE_BASE(0)) % VDLA_ENGINE_BLOCK_SIZE;
	return offset >= VDLA_D_WINDOW && offset < VDLA_D_WINDOW + VDLA_D_WINDOW_SIZE;
}

} /* namespace */

TEST(RegisterShadow, ATaskRunAgainWritesNoDRegister)
{
	FwDevice fw;
	TaskBuilder b(fw);
	CopyPerGroup copies(b, 400);
	TestTask &task = b.finish();
	ASSERT_TRUE(completed(runTask(fw, task), VDLA_NUM_GROUPS));

	/* Sixteen ops: the second run finds each in the group it ran in. */
	copies.clearOutputs(b);
	fw.recordWrites(true);
	ASSERT_TRUE(completed(runTask(fw, task), VDLA_NUM_GROUPS));
	uint32_t enabled = 0;
	for (const auto &[address, value] : fw.recordedWrites()) {
		EXPECT_FALSE(isDWindowWrite(address)) << std::hex << "a write to 0x" << address;
		if (address == VDLA_ENGINE_BASE(VDLA_ENGINE_BDMA) + VDLA_E_ENABLE) {
			EXPECT_EQ(0u, enabled & value) << "a group enabled twice";
			enabled |= value;
		}
	}
	fw.recordWrites(false);
	EXPECT_EQ(VDLA_E_ENABLE_GROUPS, enabled);
	copies.check(b);
}

TEST(RegisterShadow, AResetInBetweenMakesTheNextTaskProgramEverything)
{
	FwDevice fw;
	TaskBuilder b(fw);
	CopyPerGroup copies(b, 401);
	TestTask &task = b.finish();
	ASSERT_TRUE(completed(runTask(fw, task), VDLA_NUM_GROUPS));

	/* Zeroes every D register, and the interrupt enables the host restores. */
	uint32_t enabled = fw.portRead(VDLA_REG_INT_ENABLE);
	fw.portWrite(VDLA_REG_RESET, VDLA_RESET_SOFT);
	fw.portWrite(VDLA_REG_INT_ENABLE, enabled);
	copies.clearOutputs(b);
	TaskEnd end = runTask(fw, task);
	ASSERT_TRUE(completed(end, VDLA_NUM_GROUPS)) << describe(end);
	copies.check(b);
}

TEST(RegisterShadow, AnotherContextsTaskInBetweenMakesTheNextTaskProgramEverything)
{
	FwDevice fw;
	TaskBuilder b(fw);
	CopyPerGroup copies(b, 402);
	TestTask &task = b.finish();
	ASSERT_TRUE(completed(runTask(fw, task), VDLA_NUM_GROUPS));

	/* The same groups, programmed with other copies by another context. */
	dla_engine *other = fw.registerExtraEngine();
	ASSERT_NE(nullptr, other);
	TaskBuilder ob(fw);
	CopyPerGroup otherCopies(ob, 403);
	ASSERT_TRUE(completed(runTask(fw, ob.finish(), kTaskTimeout, {}, other),
		VDLA_NUM_GROUPS));
	otherCopies.check(ob);
	dla_clear_task(other);

	copies.clearOutputs(b);
	TaskEnd end = runTask(fw, task);
	ASSERT_TRUE(completed(end, VDLA_NUM_GROUPS)) << describe(end);
	copies.check(b);
}
