/* SPDX-License-Identifier: MIT */
/* What the ONNX guest tests on the DLA share: loading a written model, and comparing with the CPU. */
#pragma once

#include <vdla/onnx.h>

#include "../../../umd/tools/onnx_run/case_runner.h"
#include "../../host/onnx/model_builder.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace vdla::onnx::test {

/* The model @b describes, loaded from a temporary file; null (and a failure) if it does not load. */
inline std::unique_ptr<Model> loadBuilt(ModelBuilder &b)
{
	std::string path = b.save();
	auto model = Model::load(path);
	unlink(path.c_str());
	EXPECT_TRUE(model) << model.error().message();
	return model ? std::move(*model) : nullptr;
}

/* Every node of @model on the DLA, and outputs equal to the CPU's, bit for bit. */
inline void expectDlaEqualsCpu(Model &model, const std::vector<Tensor> &inputs)
{
	std::vector<NodeTiming> timings;
	auto dla = model.run(inputs, Target::Dla, &timings);
	ASSERT_TRUE(dla) << dla.error().message();
	EXPECT_FALSE(timings.empty());
	for (const NodeTiming &t : timings)
		EXPECT_EQ(t.target, Target::Dla) << t.node << " ran on the CPU";
	auto cpu = model.run(inputs, Target::Cpu);
	ASSERT_TRUE(cpu) << cpu.error().message();
	ASSERT_EQ(dla->size(), cpu->size());
	for (size_t i = 0; i < cpu->size(); i++)
		EXPECT_EQ(compareTensors((*cpu)[i], (*dla)[i], 0, 0), "") << "output " << i;
}

} /* namespace vdla::onnx::test */
