/* SPDX-License-Identifier: MIT */
/*
 * The trained digits models of scripts/models/digits.py on the CPU kernels,
 * against the logits PyTorch computed for the same held-out images when
 * the models were made (the independent reference).
 */

#include <vdla/onnx.h>

#include <cmath>
#include <gtest/gtest.h>
#include <map>

namespace vdla::onnx {
namespace {

const std::string kModels = VDLA_MODELS_DIR;

Tensor load(const std::string &name)
{
	auto tensor = readTensorFile(kModels + "/" + name);
	EXPECT_TRUE(tensor) << tensor.error().message();
	return tensor ? *tensor : Tensor();
}

std::vector<int64_t> argmax(const Tensor &logits)
{
	std::vector<int64_t> best(logits.shape()[0]);
	const int64_t classes = logits.shape()[1];
	for (size_t i = 0; i < best.size(); i++) {
		const float *row = logits.data<float>() + i * classes;
		for (int64_t c = 1; c < classes; c++)
			if (row[c] > row[best[i]])
				best[i] = c;
	}
	return best;
}

Tensor runOnCpu(const std::string &model, const Tensor &images)
{
	auto loaded = Model::load(kModels + "/" + model);
	EXPECT_TRUE(loaded) << loaded.error().message();
	if (!loaded)
		return Tensor();
	auto outputs = (*loaded)->run({ images }, Target::Cpu);
	EXPECT_TRUE(outputs) << outputs.error().message();
	return outputs ? (*outputs)[0] : Tensor();
}

TEST(DigitsModel, Fp32LogitsMatchPyTorch)
{
	Tensor images = load("digits_test_images.pb");
	Tensor expected = load("digits_expected_fp32.pb");
	Tensor logits = runOnCpu("digits_fp32.onnx", images);
	ASSERT_EQ(logits.shape(), expected.shape());
	for (int64_t i = 0; i < logits.elements(); i++)
		ASSERT_NEAR(logits.data<float>()[i], expected.data<float>()[i],
			    1e-4 + 1e-4 * std::fabs(expected.data<float>()[i]))
			<< "logit " << i;
	EXPECT_EQ(argmax(logits), argmax(expected));
}

TEST(DigitsModel, Int8QdqLogitsMatchTheSimulatedQuantisation)
{
	/*
	 * Each logit is a multiple of the output scale. The reference runs the
	 * QDQ graph's float operators; the CPU runs the fused graph, whose
	 * QLinearConvs requantise an integer accumulator with one float32
	 * multiplier. The two round differently only where a value lies within
	 * float rounding of a tie, in a layer or in the logits, so a logit may
	 * differ by one step, rarely (none of the 3600 when the model was made).
	 */
	Tensor images = load("digits_test_images.pb");
	Tensor expected = load("digits_expected_int8.pb");
	Tensor logits = runOnCpu("digits_int8_qdq.onnx", images);
	ASSERT_EQ(logits.shape(), expected.shape());
	float step = 0;
	for (int64_t i = 0; i < expected.elements(); i++)
		for (int64_t j = i + 1; j < std::min<int64_t>(expected.elements(), i + 40); j++) {
			float d = std::fabs(expected.data<float>()[i] - expected.data<float>()[j]);
			if (d > 0 && (step == 0 || d < step))
				step = d;
		}
	ASSERT_GT(step, 0);
	int64_t differing = 0;
	for (int64_t i = 0; i < logits.elements(); i++) {
		float d = std::fabs(logits.data<float>()[i] - expected.data<float>()[i]);
		ASSERT_LE(d, step * 1.01f) << "logit " << i;
		differing += d > step * 0.01f;
	}
	EXPECT_LE(differing, logits.elements() / 100) << "more than 1% of the logits differ";
	Tensor labels = load("digits_test_labels.pb");
	int64_t right = 0, expectedRight = 0;
	std::vector<int64_t> got = argmax(logits), want = argmax(expected);
	for (int64_t i = 0; i < labels.elements(); i++) {
		right += got[i] == labels.data<int64_t>()[i];
		expectedRight += want[i] == labels.data<int64_t>()[i];
	}
	EXPECT_NEAR(right, expectedRight, 1);
	EXPECT_GE(double(right) / double(labels.elements()), 0.9) << "the model is trained";
}

TEST(DigitsModel, TheInt8ModelRunsOnIntegersFromInputToLogits)
{
	/*
	 * The QDQ fusion leaves no float Conv, Gemm or Relu: three QLinearConvs,
	 * and the only QuantizeLinear and DequantizeLinear are the image's and
	 * the logits'.
	 */
	auto model = Model::load(kModels + "/digits_int8_qdq.onnx");
	ASSERT_TRUE(model) << model.error().message();
	std::vector<NodeTiming> timings;
	auto outputs = (*model)->run({ load("digits_test_images.pb") }, Target::Cpu, &timings);
	ASSERT_TRUE(outputs) << outputs.error().message();
	std::map<std::string, int> count;
	for (const NodeTiming &timing : timings)
		count[timing.opType]++;
	EXPECT_EQ(count["QLinearConv"], 3);
	EXPECT_EQ(count["Conv"] + count["Gemm"] + count["Relu"], 0);
	EXPECT_EQ(count["QuantizeLinear"], 1);
	EXPECT_EQ(count["DequantizeLinear"], 1);
}

} /* namespace */
} /* namespace vdla::onnx */
