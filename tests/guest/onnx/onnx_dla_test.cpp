/* SPDX-License-Identifier: MIT */
/*
 * ONNX models on the vDLA, in the guest (docs/onnx.md, "Targets"): the
 * backend cases of dla_cases.txt with --target dla against ONNX's outputs,
 * the trained digits model against PyTorch's logits, and the refusals of
 * --target dla.
 */

#include <vdla/onnx.h>

#include "../../../umd/tools/onnx_run/case_runner.h"
#include "../../host/onnx/model_builder.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

namespace vdla::onnx {
namespace {

const std::string kModels = "/vdla/models";
const std::string kCases = "/vdla/data/onnx-cases";

std::vector<std::string> dlaCases()
{
	std::vector<std::string> cases;
	std::ifstream list(kCases + "/dla_cases.txt");
	for (std::string line; std::getline(list, line);)
		if (!line.empty() && line[0] != '#')
			cases.push_back(line);
	return cases;
}

class DlaBackendCase : public testing::TestWithParam<std::string>
{
};

TEST_P(DlaBackendCase, MatchesTheReferenceWithEveryNodeOnTheDla)
{
	CaseResult result = runCase(kCases + "/" + GetParam(), Target::Dla);
	EXPECT_TRUE(result.passed) << result.reason;
}

INSTANTIATE_TEST_SUITE_P(Onnx, DlaBackendCase, testing::ValuesIn(dlaCases()),
			 [](const testing::TestParamInfo<std::string> &info) {
				 std::string name = info.param.substr(info.param.find('/') + 1);
				 return name;
			 });

TEST(DlaBackendCases, AreInstalledInTheGuest)
{
	EXPECT_GE(dlaCases().size(), 10u) << "guest-run copies them to " << kCases;
}

Tensor load(const std::string &name)
{
	auto tensor = readTensorFile(kModels + "/" + name);
	EXPECT_TRUE(tensor) << tensor.error().message();
	return tensor ? *tensor : Tensor();
}

TEST(DigitsOnTheDla, Fp32LogitsMatchPyTorchAndTheCpu)
{
	auto model = Model::load(kModels + "/digits_fp32.onnx");
	ASSERT_TRUE(model) << model.error().message();
	Tensor images = load("digits_test_images.pb");
	Tensor expected = load("digits_expected_fp32.pb");

	std::vector<NodeTiming> timings;
	auto dla = (*model)->run({ images }, Target::Dla, &timings);
	ASSERT_TRUE(dla) << dla.error().message();
	for (const NodeTiming &t : timings)
		EXPECT_EQ(t.target, Target::Dla) << t.node << " (" << t.opType << ") ran on the CPU";
	auto cpu = (*model)->run({ images }, Target::Cpu);
	ASSERT_TRUE(cpu) << cpu.error().message();
	const Tensor &logits = (*dla)[0];
	ASSERT_EQ(logits.shape(), expected.shape());
	for (int64_t i = 0; i < logits.elements(); i++) {
		ASSERT_NEAR(logits.data<float>()[i], expected.data<float>()[i], 1e-4) << "logit " << i;
		ASSERT_NEAR(logits.data<float>()[i], (*cpu)[0].data<float>()[i], 1e-4) << "logit " << i;
	}

	/* A second run reuses the prepared DLA graph and gives the same logits. */
	auto again = (*model)->run({ images }, Target::Dla);
	ASSERT_TRUE(again) << again.error().message();
	EXPECT_EQ(compareTensors(logits, (*again)[0], 0, 0), "");
}

TEST(DigitsOnTheDla, AnotherBatchSizeGetsItsOwnPlan)
{
	auto model = Model::load(kModels + "/digits_fp32.onnx");
	ASSERT_TRUE(model) << model.error().message();
	Tensor images = load("digits_test_images.pb");
	Tensor expected = load("digits_expected_fp32.pb");
	/* The first 7 images only. */
	Tensor seven = Tensor(DataType::Float, { 7, 1, 8, 8 });
	std::copy_n(images.data<float>(), seven.elements(), seven.data<float>());
	auto out = (*model)->run({ seven }, Target::Dla);
	ASSERT_TRUE(out) << out.error().message();
	ASSERT_EQ((*out)[0].shape(), (std::vector<int64_t>{ 7, 10 }));
	for (int64_t i = 0; i < 70; i++)
		ASSERT_NEAR((*out)[0].data<float>()[i], expected.data<float>()[i], 1e-4) << i;
}

TEST(DigitsOnTheDla, TargetDlaNamesTheFirstNodeItCannotRun)
{
	auto model = Model::load(kModels + "/digits_int8_qdq.onnx");
	ASSERT_TRUE(model) << model.error().message();
	auto out = (*model)->run({ load("digits_test_images.pb") }, Target::Dla);
	ASSERT_FALSE(out);
	EXPECT_EQ(out.error().code(), ENOTSUP);
	EXPECT_NE(out.error().reason().find("QuantizeLinear"), std::string::npos) << out.error().reason();
	EXPECT_NE(out.error().reason().find("cannot run on the DLA"), std::string::npos);
}

TEST(DigitsOnTheDla, Int8LayersRunOnTheDlaBitForBit)
{
	/*
	 * The import fuses the INT8 model into QLinearConv, Max and integer
	 * pooling (docs/onnx.md, "QDQ fusion"); with target any, the input's
	 * QuantizeLinear and the logits' DequantizeLinear stay on the CPU and
	 * every layer between them is one DLA segment, whose integers are the
	 * CPU kernels' bit for bit (docs/onnx.md, "INT8 on the DLA").
	 */
	auto model = Model::load(kModels + "/digits_int8_qdq.onnx");
	ASSERT_TRUE(model) << model.error().message();
	Tensor images = load("digits_test_images.pb");
	std::vector<NodeTiming> timings;
	auto any = (*model)->run({ images }, Target::Any, &timings);
	ASSERT_TRUE(any) << any.error().message();
	int segments = 0;
	for (const NodeTiming &t : timings) {
		if (t.target == Target::Dla)
			segments++;
		else
			EXPECT_TRUE(t.opType == "QuantizeLinear" || t.opType == "DequantizeLinear" ||
				    t.opType == "Identity")
				<< t.node << " (" << t.opType << ") on the CPU";
	}
	EXPECT_EQ(segments, 1);
	auto cpu = (*model)->run({ images }, Target::Cpu);
	ASSERT_TRUE(cpu) << cpu.error().message();
	EXPECT_EQ(compareTensors((*cpu)[0], (*any)[0], 0, 0), "");
	EXPECT_EQ(std::memcmp((*cpu)[0].raw(), (*any)[0].raw(), (*cpu)[0].elements() * sizeof(float)),
		  0);
}

TEST(DlaPlans, AShapeComputedFromAConvolutionsValuesIsTheRealOne)
{
	/*
	 * k = Cast(ReduceMax(Conv(x, w))) is 5, and y = Relu(Slice(z, 0, k))
	 * is [1, 1, 4, 5]. The plan's CPU run may skip computing a convolution
	 * only where its values decide no shape (shape_pass.h): here they do,
	 * and zeros would make the Relu's input empty, which keeps it off the
	 * DLA.
	 */
	test::ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 1, 4, 4 });
	b.input("z", ::onnx::TensorProto::FLOAT, { 1, 1, 4, 8 });
	b.initializer("w", { 1, 1, 1, 1 }, { 5 });
	b.initializer("starts", test::int64Tensor({ 1 }, { 0 }));
	b.initializer("axes", test::int64Tensor({ 1 }, { 3 }));
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 1, 4, -1 });
	b.node("Conv", { "x", "w" }, { "c" });
	test::setInt(b.node("ReduceMax", { "c" }, { "m" }), "keepdims", 0);
	test::setInt(b.node("Cast", { "m" }, { "k" }), "to", ::onnx::TensorProto::INT64);
	b.node("Unsqueeze", { "k", "starts" }, { "ends" });
	b.node("Slice", { "z", "starts", "ends", "axes" }, { "s" });
	b.node("Relu", { "s" }, { "y" }).set_name("relu");
	std::string path = b.save();
	auto model = Model::load(path);
	unlink(path.c_str());
	ASSERT_TRUE(model) << model.error().message();

	Tensor x(DataType::Float, { 1, 1, 4, 4 });
	std::fill(x.data<float>(), x.data<float>() + 16, 1.0f);
	Tensor z(DataType::Float, { 1, 1, 4, 8 });
	for (int i = 0; i < 32; i++)
		z.data<float>()[i] = float(i % 5) - 2;
	std::vector<NodeTiming> timings;
	auto any = (*model)->run({ x, z }, Target::Any, &timings);
	ASSERT_TRUE(any) << any.error().message();
	EXPECT_EQ((*any)[0].shape(), (std::vector<int64_t>{ 1, 1, 4, 5 }));
	bool reluOnDla = false;
	for (const NodeTiming &t : timings)
		reluOnDla = reluOnDla || (t.target == Target::Dla && t.node.find("relu") != std::string::npos);
	EXPECT_TRUE(reluOnDla) << "the plan saw the Relu's input as it is";
}

TEST(DlaPlans, AShapeComputedFromAnInputValueThatChangesTakesTheCpu)
{
	/*
	 * y = Conv(Slice(x, 0, ends)): the same input shapes, but the Conv's
	 * input shape follows the values of `ends`. The plan made on the first
	 * run must not be reused at the old size.
	 */
	test::ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 1, 8, 8 });
	b.input("ends", ::onnx::TensorProto::INT64, { 4 });
	::onnx::TensorProto *starts = b.proto().mutable_graph()->add_initializer();
	starts->set_name("starts");
	starts->set_data_type(::onnx::TensorProto::INT64);
	starts->add_dims(4);
	for (int i = 0; i < 4; i++)
		starts->add_int64_data(0);
	b.initializer("w", { 1, 1, 3, 3 }, { 1, 2, 3, 4, 5, 6, 7, 8, 9 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 1, -1, -1 });
	b.node("Slice", { "x", "starts", "ends" }, { "s" });
	test::setInts(b.node("Conv", { "s", "w" }, { "y" }), "pads", { 1, 1, 1, 1 });
	std::string path = b.save();
	auto model = Model::load(path);
	unlink(path.c_str());
	ASSERT_TRUE(model) << model.error().message();

	Tensor x(DataType::Float, { 1, 1, 8, 8 });
	for (int i = 0; i < 64; i++)
		x.data<float>()[i] = float(i % 7) - 3;
	Tensor ends(DataType::Int64, { 4 });
	for (int64_t size : { 8, 4 }) {
		int64_t *e = ends.data<int64_t>();
		e[0] = 1, e[1] = 1, e[2] = size, e[3] = size;
		std::vector<NodeTiming> timings;
		auto any = (*model)->run({ x, ends }, Target::Any, &timings);
		ASSERT_TRUE(any) << any.error().message();
		auto cpu = (*model)->run({ x, ends }, Target::Cpu);
		ASSERT_TRUE(cpu) << cpu.error().message();
		EXPECT_EQ((*any)[0].shape(), (std::vector<int64_t>{ 1, 1, size, size }));
		EXPECT_EQ(compareTensors((*cpu)[0], (*any)[0], 1e-5, 1e-5), "") << "size " << size;
		bool convOnDla = false;
		for (const NodeTiming &t : timings)
			convOnDla = convOnDla || t.target == Target::Dla;
		EXPECT_EQ(convOnDla, size == 8) << "the plan's own shapes run on the DLA, others not";
	}
}

TEST(DlaPlans, WeightsThatAreGraphInputsAreCopiedInOnEveryRun)
{
	/* The segment is planned once; new weights must reach the device each run. */
	test::ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 2, 5, 5 });
	b.input("w", ::onnx::TensorProto::FLOAT, { 3, 2, 3, 3 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 3, 5, 5 });
	test::setInts(b.node("Conv", { "x", "w" }, { "y" }), "pads", { 1, 1, 1, 1 });
	std::string path = b.save();
	auto model = Model::load(path);
	unlink(path.c_str());
	ASSERT_TRUE(model) << model.error().message();

	Tensor x(DataType::Float, { 1, 2, 5, 5 });
	for (int i = 0; i < 50; i++)
		x.data<float>()[i] = float(i % 9) * 0.25f - 1;
	for (int run = 0; run < 3; run++) {
		Tensor w(DataType::Float, { 3, 2, 3, 3 });
		for (int i = 0; i < 54; i++)
			w.data<float>()[i] = float((i * (run + 2)) % 11) - 5;
		auto dla = (*model)->run({ x, w }, Target::Dla);
		ASSERT_TRUE(dla) << dla.error().message();
		auto cpu = (*model)->run({ x, w }, Target::Cpu);
		ASSERT_TRUE(cpu) << cpu.error().message();
		EXPECT_EQ(compareTensors((*cpu)[0], (*dla)[0], 1e-5, 1e-5), "") << "run " << run;
	}
}

} /* namespace */
} /* namespace vdla::onnx */
