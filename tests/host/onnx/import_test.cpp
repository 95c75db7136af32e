/* SPDX-License-Identifier: MIT */
/*
 * The import rules of docs/onnx.md on models written here: what loads,
 * what is refused and with which errno and reason, what folding removes,
 * and the tensor file format.
 */

#include "model_builder.h"

#include <vdla/onnx.h>

#include "../../../umd/tools/onnx_run/case_runner.h"

#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

namespace vdla::onnx {
namespace {

using test::floatTensor;
using test::ModelBuilder;
using test::SavedModel;

/* y = x + b, b a [3] initialiser broadcast over x [2,3]. */
ModelBuilder addBiasModel()
{
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 2, 3 });
	b.initializer("b", { 3 }, { 10, 20, 30 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 2, 3 });
	b.node("Add", { "x", "b" }, { "y" });
	return b;
}

TEST(OnnxImport, RunsAModelWithABroadcastInitialiser)
{
	ModelBuilder builder = addBiasModel();
	SavedModel file(builder);
	auto model = Model::load(file.path);
	ASSERT_TRUE(model) << model.error().message();
	ASSERT_EQ((*model)->inputs().size(), 1u);
	EXPECT_EQ((*model)->inputs()[0].name, "x");
	EXPECT_EQ((*model)->inputs()[0].shape, (std::vector<int64_t>{ 2, 3 }));

	auto out = (*model)->run({ floatTensor({ 2, 3 }, { 1, 2, 3, 4, 5, 6 }) }, Target::Cpu);
	ASSERT_TRUE(out) << out.error().message();
	ASSERT_EQ(out->size(), 1u);
	const float *y = (*out)[0].data<float>();
	const float expected[] = { 11, 22, 33, 14, 25, 36 };
	for (int i = 0; i < 6; i++)
		EXPECT_EQ(y[i], expected[i]) << i;
}

TEST(OnnxImport, AMissingFileIsENOENT)
{
	auto model = Model::load("/nonexistent/model.onnx");
	ASSERT_FALSE(model);
	EXPECT_EQ(model.error().code(), ENOENT);
}

TEST(OnnxImport, AFileThatIsNotAModelIsEINVAL)
{
	char path[] = "/tmp/vdla-onnx-garbage-XXXXXX";
	int fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, "\xff\xff\xff\xff garbage", 12), 12);
	close(fd);
	auto model = Model::load(path);
	unlink(path);
	ASSERT_FALSE(model);
	EXPECT_EQ(model.error().code(), EINVAL);
}

TEST(OnnxImport, TheCheckerRefusesAnUndefinedInput)
{
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 2 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 2 });
	b.node("Add", { "x", "nowhere" }, { "y" });
	SavedModel file(b);
	auto model = Model::load(file.path);
	ASSERT_FALSE(model);
	EXPECT_EQ(model.error().code(), EINVAL);
	EXPECT_NE(model.error().reason().find("checker"), std::string::npos) << model.error().reason();
}

TEST(OnnxImport, AnOperatorWithoutAKernelNamesTheNode)
{
	ModelBuilder b;
	b.importDomain("com.example", 1);
	b.input("x", ::onnx::TensorProto::FLOAT, { 2 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 2 });
	b.node("Frobnicate", { "x" }, { "y" }, "com.example").set_name("frob");
	SavedModel file(b);
	auto model = Model::load(file.path);
	ASSERT_TRUE(model) << model.error().message();
	auto out = (*model)->run({ floatTensor({ 2 }, { 1, 2 }) }, Target::Cpu);
	ASSERT_FALSE(out);
	EXPECT_EQ(out.error().code(), ENOTSUP);
	EXPECT_NE(out.error().reason().find("'frob'"), std::string::npos) << out.error().reason();
	EXPECT_NE(out.error().reason().find("com.example"), std::string::npos) << out.error().reason();
}

TEST(OnnxImport, InputsAreCheckedAgainstTheDeclaredTypeAndShape)
{
	ModelBuilder builder = addBiasModel();
	SavedModel file(builder);
	auto model = Model::load(file.path);
	ASSERT_TRUE(model);

	auto wrongShape = (*model)->run({ floatTensor({ 3, 2 }, { 1, 2, 3, 4, 5, 6 }) }, Target::Cpu);
	ASSERT_FALSE(wrongShape);
	EXPECT_EQ(wrongShape.error().code(), EINVAL);
	EXPECT_NE(wrongShape.error().reason().find("'x'"), std::string::npos);

	auto wrongType = (*model)->run({ Tensor(DataType::Int32, { 2, 3 }) }, Target::Cpu);
	ASSERT_FALSE(wrongType);
	EXPECT_EQ(wrongType.error().code(), EINVAL);

	auto wrongCount = (*model)->run({}, Target::Cpu);
	ASSERT_FALSE(wrongCount);
	EXPECT_EQ(wrongCount.error().code(), EINVAL);
}

TEST(OnnxImport, AFreeDimensionTakesAnySize)
{
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { -1, 3 });
	b.initializer("b", { 3 }, { 1, 1, 1 });
	b.output("y", ::onnx::TensorProto::FLOAT, { -1, 3 });
	b.node("Add", { "x", "b" }, { "y" });
	SavedModel file(b);
	auto model = Model::load(file.path);
	ASSERT_TRUE(model) << model.error().message();
	EXPECT_EQ((*model)->inputs()[0].shape, (std::vector<int64_t>{ -1, 3 }));
	auto out = (*model)->run({ floatTensor({ 1, 3 }, { 1, 2, 3 }) }, Target::Cpu);
	ASSERT_TRUE(out) << out.error().message();
	EXPECT_EQ((*out)[0].shape(), (std::vector<int64_t>{ 1, 3 }));
}

TEST(OnnxImport, NodesOnConstantsAreFoldedAtLoad)
{
	/* y = x + (b + c): the inner Add has only initialisers and goes. */
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 2 });
	b.initializer("b", { 2 }, { 1, 2 });
	b.initializer("c", { 2 }, { 10, 20 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 2 });
	b.node("Add", { "b", "c" }, { "bc" });
	b.node("Relu", { "x" }, { "rx" });
	b.node("Add", { "rx", "bc" }, { "y" });
	SavedModel file(b);
	auto model = Model::load(file.path);
	ASSERT_TRUE(model) << model.error().message();

	std::vector<NodeTiming> timings;
	auto out = (*model)->run({ floatTensor({ 2 }, { -5, 5 }) }, Target::Cpu, &timings);
	ASSERT_TRUE(out) << out.error().message();
	EXPECT_EQ((*out)[0].data<float>()[0], 11.0f);
	EXPECT_EQ((*out)[0].data<float>()[1], 27.0f);
	/* Relu and the outer Add run; the folded Add does not. */
	ASSERT_EQ(timings.size(), 2u);
	EXPECT_EQ(timings[0].opType, "Relu");
	EXPECT_EQ(timings[1].opType, "Add");
}

TEST(OnnxImport, IdentityAndInferenceDropoutLeaveTheGraph)
{
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 3 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 3 });
	b.node("Identity", { "x" }, { "a" });
	b.node("Dropout", { "a" }, { "d" });
	b.node("Relu", { "d" }, { "y" });
	SavedModel file(b);
	auto model = Model::load(file.path);
	ASSERT_TRUE(model) << model.error().message();
	EXPECT_EQ((*model)->opTypes(), (std::vector<std::string>{ "Relu" }));
	auto out = (*model)->run({ floatTensor({ 3 }, { -1, 0.5f, 2 }) }, Target::Cpu);
	ASSERT_TRUE(out) << out.error().message();
	EXPECT_EQ((*out)[0].data<float>()[0], 0.0f);
	EXPECT_EQ((*out)[0].data<float>()[2], 2.0f);
}

TEST(OnnxImport, ABatchNormalizationAfterAConvIsFoldedIntoItsWeights)
{
	/* x [1,2,3,3], W [2,2,2,2], B [2] -> [1,2,2,2], then BN per channel. */
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 2, 3, 3 });
	std::vector<float> w(16), x(18);
	for (int i = 0; i < 16; i++)
		w[i] = float(i % 5) - 2;
	for (int i = 0; i < 18; i++)
		x[i] = float(i % 7) * 0.5f - 1;
	const float bias[2] = { 0.5f, -1 }, scale[2] = { 2, 0.5f }, shift[2] = { 1, 3 },
		    mean[2] = { 0.25f, -2 }, var[2] = { 4, 0.25f };
	b.initializer("w", { 2, 2, 2, 2 }, w);
	b.initializer("b", { 2 }, { bias[0], bias[1] });
	b.initializer("scale", { 2 }, { scale[0], scale[1] });
	b.initializer("shift", { 2 }, { shift[0], shift[1] });
	b.initializer("mean", { 2 }, { mean[0], mean[1] });
	b.initializer("var", { 2 }, { var[0], var[1] });
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 2, 2, 2 });
	b.node("Conv", { "x", "w", "b" }, { "c" });
	b.node("BatchNormalization", { "c", "scale", "shift", "mean", "var" }, { "y" });
	SavedModel file(b);
	auto model = Model::load(file.path);
	ASSERT_TRUE(model) << model.error().message();
	EXPECT_EQ((*model)->opTypes(), (std::vector<std::string>{ "Conv" }));

	auto out = (*model)->run({ floatTensor({ 1, 2, 3, 3 }, x) }, Target::Cpu);
	ASSERT_TRUE(out) << out.error().message();
	/* The two operators by their definitions, in double. */
	for (int m = 0; m < 2; m++)
		for (int oy = 0; oy < 2; oy++)
			for (int ox = 0; ox < 2; ox++) {
				double conv = bias[m];
				for (int c = 0; c < 2; c++)
					for (int ky = 0; ky < 2; ky++)
						for (int kx = 0; kx < 2; kx++)
							conv += double(w[((m * 2 + c) * 2 + ky) * 2 + kx]) *
								x[(c * 3 + oy + ky) * 3 + ox + kx];
				double expected = (conv - mean[m]) / std::sqrt(var[m] + 1e-5) * scale[m] +
						  shift[m];
				EXPECT_NEAR((*out)[0].data<float>()[(m * 2 + oy) * 2 + ox], expected, 1e-5)
					<< m << "," << oy << "," << ox;
			}
}

TEST(OnnxTensorFile, WritesAndReadsBackTheSameTensor)
{
	Tensor t(DataType::Int64, { 2, 2 });
	int64_t *p = t.data<int64_t>();
	p[0] = -1;
	p[1] = INT64_MAX;
	p[2] = INT64_MIN;
	p[3] = 7;
	char path[] = "/tmp/vdla-onnx-tensor-XXXXXX";
	int fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	close(fd);
	ASSERT_TRUE(writeTensorFile(path, t, "answer"));
	std::string name;
	auto back = readTensorFile(path, &name);
	unlink(path);
	ASSERT_TRUE(back) << back.error().message();
	EXPECT_EQ(name, "answer");
	EXPECT_EQ(back->shape(), t.shape());
	EXPECT_EQ(compareTensors(t, *back), "");
}

TEST(OnnxTensorFile, ATensorWithTheWrongAmountOfDataIsEINVAL)
{
	::onnx::TensorProto proto;
	proto.set_data_type(::onnx::TensorProto::FLOAT);
	proto.add_dims(4);
	proto.set_raw_data(std::string(12, '\0'));
	auto tensor = test::readTensorProto(proto);
	ASSERT_FALSE(tensor);
	EXPECT_EQ(tensor.error().code(), EINVAL);
}

/* A TensorProto of the given dimensions and no data, written to a file. */
Result<Tensor> readTensorOfDims(const std::vector<int64_t> &dims)
{
	::onnx::TensorProto proto;
	proto.set_data_type(::onnx::TensorProto::FLOAT);
	for (int64_t d : dims)
		proto.add_dims(d);
	return test::readTensorProto(proto);
}

TEST(OnnxTensorFile, DimensionsWhoseProductOverflowAreEINVAL)
{
	auto tensor = readTensorOfDims({ int64_t(1) << 40, int64_t(1) << 40 });
	ASSERT_FALSE(tensor);
	EXPECT_EQ(tensor.error().code(), EINVAL) << tensor.error().reason();
}

TEST(OnnxTensorFile, ATensorAboveTheSizeLimitIsEAGAINAndNotAllocated)
{
	/* 2^31 x 4 floats: 32 GiB, which would be zero-filled if it were allocated. */
	auto tensor = readTensorOfDims({ int64_t(1) << 31, 4 });
	ASSERT_FALSE(tensor);
	EXPECT_EQ(tensor.error().code(), EAGAIN) << tensor.error().reason();
	EXPECT_NE(tensor.error().reason().find("4 GiB"), std::string::npos);
}

TEST(OnnxImport, ANodeAskingForAHugeTensorIsRefusedByName)
{
	/* ConstantOfShape of a shape the model computes from its input. */
	ModelBuilder b;
	b.input("shape", ::onnx::TensorProto::INT64, { 2 });
	b.output("y", ::onnx::TensorProto::FLOAT, { -1, -1 });
	b.node("ConstantOfShape", { "shape" }, { "y" }).set_name("huge");
	SavedModel file(b);
	auto model = Model::load(file.path);
	ASSERT_TRUE(model) << model.error().message();
	Tensor shape(DataType::Int64, { 2 });
	shape.data<int64_t>()[0] = int64_t(1) << 30;
	shape.data<int64_t>()[1] = int64_t(1) << 30;
	auto out = (*model)->run({ shape }, Target::Cpu);
	ASSERT_FALSE(out);
	EXPECT_EQ(out.error().code(), EAGAIN) << out.error().reason();
	EXPECT_NE(out.error().reason().find("'huge'"), std::string::npos) << out.error().reason();
}

TEST(OnnxImport, AZeroStrideIsARefusalNotACrash)
{
	/* libonnx's shape inference divides by it (SIGFPE); the import must not. */
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 1, 4, 4 });
	b.initializer("w", { 1, 1, 2, 2 }, { 1, 1, 1, 1 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 1, 3, 3 });
	::onnx::NodeProto &conv = b.node("Conv", { "x", "w" }, { "y" });
	conv.set_name("conv");
	test::setInts(conv, "strides", { 0, 0 });
	SavedModel file(b);
	auto model = Model::load(file.path);
	ASSERT_TRUE(model) << model.error().message();
	auto out = (*model)->run({ floatTensor({ 1, 1, 4, 4 }, std::vector<float>(16, 1)) },
				 Target::Cpu);
	ASSERT_FALSE(out);
	EXPECT_EQ(out.error().code(), EINVAL);
	EXPECT_NE(out.error().reason().find("strides"), std::string::npos) << out.error().reason();
}

/* The host has no vDLA: "dla" says so, "any" runs everything on the CPU. */
TEST(OnnxTargets, WithoutADeviceDlaIsENODEVAndAnyRunsOnTheCpu)
{
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 2, 2, 2 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 2, 2, 2 });
	b.node("Relu", { "x" }, { "y" }).set_name("relu");
	SavedModel file(b);
	auto model = Model::load(file.path);
	ASSERT_TRUE(model) << model.error().message();
	Tensor x = floatTensor({ 1, 2, 2, 2 }, { -1, 2, -3, 4, -5, 6, -7, 8 });

	setenv("VDLA_VX_DEVICE", "/nonexistent/accel9", 1);
	auto dla = (*model)->run({ x }, Target::Dla);
	ASSERT_FALSE(dla);
	EXPECT_EQ(dla.error().code(), ENODEV) << dla.error().reason();
	EXPECT_NE(dla.error().reason().find("'relu'"), std::string::npos) << dla.error().reason();

	std::vector<NodeTiming> timings;
	auto any = (*model)->run({ x }, Target::Any, &timings);
	unsetenv("VDLA_VX_DEVICE");
	ASSERT_TRUE(any) << any.error().message();
	ASSERT_EQ(timings.size(), 1u);
	EXPECT_EQ(timings[0].target, Target::Cpu);
	const float expected[] = { 0, 2, 0, 4, 0, 6, 0, 8 };
	for (int i = 0; i < 8; i++)
		EXPECT_EQ((*any)[0].data<float>()[i], expected[i]) << i;
}

TEST(OnnxTargets, DlaNamesTheNodeAndTheReasonItCannotRunThere)
{
	/* An Add of int32 tensors has no DLA lowering: refused before any device is needed. */
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::INT32, { 2 });
	b.input("z", ::onnx::TensorProto::INT32, { 2 });
	b.output("y", ::onnx::TensorProto::INT32, { 2 });
	b.node("Add", { "x", "z" }, { "y" }).set_name("sum");
	SavedModel file(b);
	auto model = Model::load(file.path);
	ASSERT_TRUE(model) << model.error().message();
	Tensor x(DataType::Int32, { 2 }), z(DataType::Int32, { 2 });
	auto out = (*model)->run({ x, z }, Target::Dla);
	ASSERT_FALSE(out);
	EXPECT_EQ(out.error().code(), ENOTSUP);
	EXPECT_NE(out.error().reason().find("'sum' (Add) cannot run on the DLA: Add of int32 "
					    "and int32 tensors does not run on the DLA"),
		  std::string::npos)
		<< out.error().reason();
}

TEST(OnnxCompare, FollowsTheBackendTestsTolerance)
{
	/* |actual - expected| <= 1e-7 + 1e-3 * |expected| */
	Tensor expected = floatTensor({ 3 }, { 1000.0f, 0.0f, NAN });
	EXPECT_EQ(compareTensors(expected, floatTensor({ 3 }, { 1000.99f, 0.0f, NAN })), "");
	EXPECT_NE(compareTensors(expected, floatTensor({ 3 }, { 1001.01f, 0.0f, NAN })), "");
	EXPECT_NE(compareTensors(expected, floatTensor({ 3 }, { 1000.0f, 1e-6f, NAN })), "");
	EXPECT_NE(compareTensors(expected, floatTensor({ 3 }, { 1000.0f, 0.0f, 0.0f })), "");
	EXPECT_NE(compareTensors(expected, floatTensor({ 1, 3 }, { 1000.0f, 0.0f, NAN })), "");

	/* float16 compares by value: 0x3c00 is 1.0, 0x3c02 is 1 + 2^-9 (outside 1e-3). */
	Tensor half(DataType::Float16, { 1 });
	Tensor otherHalf(DataType::Float16, { 1 });
	static_cast<uint16_t *>(half.raw())[0] = 0x3c00;
	static_cast<uint16_t *>(otherHalf.raw())[0] = 0x3c02;
	EXPECT_NE(compareTensors(half, otherHalf), "") << "float16 values are compared";
	EXPECT_EQ(compareTensors(half, half), "");

	Tensor ints(DataType::Int32, { 1 });
	Tensor other(DataType::Int32, { 1 });
	other.data<int32_t>()[0] = 1;
	EXPECT_NE(compareTensors(ints, other), "") << "integers compare exactly";
}

} /* namespace */
} /* namespace vdla::onnx */
