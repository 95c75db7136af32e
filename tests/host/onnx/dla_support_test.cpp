/* SPDX-License-Identifier: MIT */
/*
 * What --target dla refuses, and why (docs/onnx.md, "Targets"). The refusal
 * comes before any device is needed, so these run on the host: each model
 * is one the DLA's layers would compute differently from ONNX, or could not
 * lower, and must never reach it.
 */

#include "model_builder.h"

#include <vdla/onnx.h>

#include <gtest/gtest.h>

#include <cmath>
#include <unistd.h>

namespace vdla::onnx {
namespace {

using test::ModelBuilder;
using test::SavedModel;
using test::setInts;
using test::setString;

/* The reason --target dla gives for @builder's model on an input of @shape. */
std::string dlaRefusal(ModelBuilder &builder, std::vector<int64_t> shape,
		       DataType type = DataType::Float)
{
	SavedModel file(builder);
	auto model = Model::load(file.path);
	EXPECT_TRUE(model) << model.error().message();
	if (!model)
		return "";
	Tensor x(type, shape);
	auto out = (*model)->run({ x }, Target::Dla);
	EXPECT_FALSE(out);
	if (out)
		return "";
	EXPECT_EQ(out.error().code(), ENOTSUP) << out.error().reason();
	return out.error().reason();
}

TEST(DlaSupport, DilatedPoolingStaysOffTheDla)
{
	/* The PDP's windows are dense. */
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 1, 8, 8 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 1, 6, 6 });
	::onnx::NodeProto &pool = b.node("MaxPool", { "x" }, { "y" });
	pool.set_name("dilated");
	setInts(pool, "kernel_shape", { 2, 2 });
	setInts(pool, "dilations", { 2, 2 });
	std::string reason = dlaRefusal(b, { 1, 1, 8, 8 });
	EXPECT_NE(reason.find("'dilated'"), std::string::npos) << reason;
	EXPECT_NE(reason.find("dilated pooling"), std::string::npos) << reason;
}

TEST(DlaSupport, ADilationBeyondTheHardwareStaysOffTheDla)
{
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 1, 60, 60 });
	b.initializer("w", { 1, 1, 3, 3 }, std::vector<float>(9, 1));
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 1, 60, 60 });
	::onnx::NodeProto &conv = b.node("Conv", { "x", "w" }, { "y" });
	conv.set_name("aspp");
	setInts(conv, "dilations", { 24, 24 });
	setInts(conv, "pads", { 24, 24, 24, 24 });
	std::string reason = dlaRefusal(b, { 1, 1, 60, 60 });
	EXPECT_NE(reason.find("above 16"), std::string::npos) << reason;
}

TEST(DlaSupport, PoolingPaddingNotBelowTheWindowStaysOffTheDla)
{
	/* The PDP pads each side by less than the window. */
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 1, 8, 8 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 1, 11, 11 });
	::onnx::NodeProto &pool = b.node("AveragePool", { "x" }, { "y" });
	setInts(pool, "kernel_shape", { 2, 2 });
	setInts(pool, "pads", { 2, 2, 2, 2 });
	std::string reason = dlaRefusal(b, { 1, 1, 8, 8 });
	EXPECT_NE(reason.find("not below the window"), std::string::npos) << reason;
}

/* x -> QLinearConv(int8, 1x1, w [M, C, 1, 1]) -> y, its parameters all constants. */
void quantConv(ModelBuilder &b, const std::string &x, int64_t m, int64_t c, const std::string &y)
{
	Tensor scale(DataType::Float, {});
	scale.data<float>()[0] = 0.5f;
	b.initializer("s", scale);
	b.initializer("z", Tensor(DataType::Int8, {}));
	Tensor w(DataType::Int8, { m, c, 1, 1 });
	for (int64_t i = 0; i < w.elements(); i++)
		w.data<int8_t>()[i] = int8_t(i % 5 - 2);
	b.initializer("w", w);
	b.node("QLinearConv", { x, "s", "z", "w", "s", "z", "s", "z" }, { y }).set_name("qconv");
}

TEST(DlaSupport, ASliceWithANegativeStepStaysOffTheDla)
{
	/* RUBIK's strides walk forward. */
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 1, 4, 6 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 1, 4, 3 });
	b.initializer("starts", test::int64Tensor({ 1 }, { -1 }));
	b.initializer("ends", test::int64Tensor({ 1 }, { -7 }));
	b.initializer("axes", test::int64Tensor({ 1 }, { 3 }));
	b.initializer("steps", test::int64Tensor({ 1 }, { -2 }));
	b.node("Slice", { "x", "starts", "ends", "axes", "steps" }, { "y" }).set_name("reverse");
	std::string reason = dlaRefusal(b, { 1, 1, 4, 6 });
	EXPECT_NE(reason.find("'reverse'"), std::string::npos) << reason;
	EXPECT_NE(reason.find("negative step"), std::string::npos) << reason;
}

TEST(DlaSupport, ATransposeOfFiveBlocksStaysOffTheDla)
{
	/* Reversing five axes moves five blocks; RUBIK permutes four. */
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 2, 3, 2, 3, 2 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 2, 3, 2, 3, 2 });
	b.node("Transpose", { "x" }, { "y" });
	std::string reason = dlaRefusal(b, { 2, 3, 2, 3, 2 });
	EXPECT_NE(reason.find("more than 4 blocks"), std::string::npos) << reason;
}

TEST(DlaSupport, AnAddBroadcastOverFiveBlocksStaysOffTheDla)
{
	/* y repeated along every other axis of five: five blocks; the SDP addresses four. */
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 2, 3, 4, 5, 6 });
	b.initializer("y", { 2, 1, 4, 1, 6 }, std::vector<float>(48, 1));
	b.output("z", ::onnx::TensorProto::FLOAT, { 2, 3, 4, 5, 6 });
	b.node("Add", { "x", "y" }, { "z" }).set_name("bias");
	std::string reason = dlaRefusal(b, { 2, 3, 4, 5, 6 });
	EXPECT_NE(reason.find("'bias'"), std::string::npos) << reason;
	EXPECT_NE(reason.find("more than four blocks"), std::string::npos) << reason;
}

TEST(DlaSupport, AnInt32MulStaysOffTheDla)
{
	/* The DLA's integer tensors are of 8 and 16 bits. */
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::INT32, { 1, 4 });
	b.output("z", ::onnx::TensorProto::INT32, { 1, 4 });
	b.node("Mul", { "x", "x" }, { "z" });
	std::string reason = dlaRefusal(b, { 1, 4 }, DataType::Int32);
	EXPECT_NE(reason.find("Mul of int32 and int32 tensors"), std::string::npos) << reason;
}

/* Six axes in two blocks (y repeated along the first three): planned for the DLA. */
TEST(DlaSupport, ASixDimensionalAddOfTwoBlocksIsPlannedForTheDla)
{
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 2, 3, 4, 5, 6, 7 });
	b.initializer("y", { 1, 1, 1, 5, 6, 7 }, std::vector<float>(210, 1));
	b.output("z", ::onnx::TensorProto::FLOAT, { 2, 3, 4, 5, 6, 7 });
	b.node("Add", { "x", "y" }, { "z" });
	SavedModel file(b);
	auto model = Model::load(file.path);
	ASSERT_TRUE(model) << model.error().message();
	setenv("VDLA_VX_DEVICE", "/nonexistent/accel9", 1);
	auto out = (*model)->run({ Tensor(DataType::Float, { 2, 3, 4, 5, 6, 7 }) }, Target::Dla);
	unsetenv("VDLA_VX_DEVICE");
	ASSERT_FALSE(out);
	/* Past the plan: only the missing device stops it. */
	EXPECT_EQ(out.error().code(), ENODEV) << out.error().reason();
}

TEST(DlaSupport, AnLrnOfAnEvenSizeStaysOffTheDla)
{
	/* ONNX's window of an even size is not centred on its channel; the layer's is. */
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 6, 2, 2 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 6, 2, 2 });
	test::setInt(b.node("LRN", { "x" }, { "y" }), "size", 4);
	std::string reason = dlaRefusal(b, { 1, 6, 2, 2 });
	EXPECT_NE(reason.find("odd one up to 15"), std::string::npos) << reason;
}

TEST(DlaSupport, ASoftmaxRowBeyond65535StaysOffTheDla)
{
	/* Before opset 13 a row is everything from the axis on: 2 x 40000 elements. */
	ModelBuilder b(11);
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 2, 40000 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 2, 40000 });
	b.node("Softmax", { "x" }, { "y" });
	std::string reason = dlaRefusal(b, { 1, 2, 40000 });
	EXPECT_NE(reason.find("beyond 65535"), std::string::npos) << reason;
}

TEST(DlaSupport, AGlobalPoolingOfAPlaneBeyondThePdpsWindowStaysOffTheDla)
{
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 2, 17, 4 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 2, 1, 1 });
	b.node("GlobalAveragePool", { "x" }, { "y" });
	std::string reason = dlaRefusal(b, { 1, 2, 17, 4 });
	EXPECT_NE(reason.find("beyond 16 x 16"), std::string::npos) << reason;
}

TEST(DlaSupport, AQLinearAddScaleTheDlaMayComputeStaysOffTheDla)
{
	/* C_scale reshaped from an input: the Reshape may run on the DLA, after the check. */
	ModelBuilder b;
	b.importDomain("com.microsoft", 1);
	b.input("x", ::onnx::TensorProto::INT8, { 1, 4 });
	b.input("s", ::onnx::TensorProto::FLOAT, { 1 });
	b.output("y", ::onnx::TensorProto::INT8, { 1, 4 });
	b.initializer("one", test::floatTensor({}, { 1.0f }));
	b.initializer("shape", test::int64Tensor({ 2 }, { 1, 1 }));
	b.node("Reshape", { "s", "shape" }, { "scale" });
	b.node("QLinearAdd", { "x", "one", "", "x", "one", "", "scale", "" }, { "y" },
	       "com.microsoft");
	SavedModel file(b);
	auto model = Model::load(file.path);
	ASSERT_TRUE(model) << model.error().message();
	Tensor x(DataType::Int8, { 1, 4 });
	Tensor s = test::floatTensor({ 1 }, { 0.5f });
	auto out = (*model)->run({ x, s }, Target::Dla);
	ASSERT_FALSE(out);
	EXPECT_EQ(out.error().code(), ENOTSUP);
	EXPECT_NE(out.error().reason().find("computed by a node the DLA may run"), std::string::npos)
		<< out.error().reason();
}

TEST(DlaSupport, AnLrnOfAnInfiniteAlphaStaysOffTheDla)
{
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 6, 2, 2 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 6, 2, 2 });
	::onnx::NodeProto &lrn = b.node("LRN", { "x" }, { "y" });
	test::setInt(lrn, "size", 3);
	test::setFloat(lrn, "alpha", INFINITY);
	std::string reason = dlaRefusal(b, { 1, 6, 2, 2 });
	EXPECT_NE(reason.find("not finite"), std::string::npos) << reason;
}

TEST(DlaSupport, IntegerSumsBeyondTheConvsLimitsStayOffTheDla)
{
	/* 8192 x 3 x 3 = 73728 weights per output; the CONV takes 65536. */
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::INT8, { 1, 8192, 3, 3 });
	b.initializer("w", test::intTensor(DataType::Int8, { 1, 8192, 3, 3 },
					   std::vector<int64_t>(73728, 1)));
	b.output("y", ::onnx::TensorProto::INT32, { 1, 1, 1, 1 });
	b.node("ConvInteger", { "x", "w" }, { "y" });
	std::string reason = dlaRefusal(b, { 1, 8192, 3, 3 }, DataType::Int8);
	EXPECT_NE(reason.find("65536 weights per output"), std::string::npos) << reason;

	/* A [2, 40000, 8]: 80000 rows, the layer's batch. */
	ModelBuilder m;
	m.input("a", ::onnx::TensorProto::INT8, { 2, 40000, 8 });
	m.initializer("b", test::intTensor(DataType::Int8, { 8, 3 }, std::vector<int64_t>(24, 1)));
	m.output("y", ::onnx::TensorProto::INT32, { 2, 40000, 3 });
	m.node("MatMulInteger", { "a", "b" }, { "y" });
	reason = dlaRefusal(m, { 2, 40000, 8 }, DataType::Int8);
	EXPECT_NE(reason.find("more than 65535 rows"), std::string::npos) << reason;
}

TEST(DlaSupport, ADepthToSpaceBlockAbove16StaysOffTheDla)
{
	/* One RUBIK copy per phase, and CONTRACT's block, stop at 16. */
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 289, 1, 1 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 1, 17, 17 });
	test::setInt(b.node("DepthToSpace", { "x" }, { "y" }), "blocksize", 17);
	std::string reason = dlaRefusal(b, { 1, 289, 1, 1 });
	EXPECT_NE(reason.find("block of 1 to 16"), std::string::npos) << reason;
}

TEST(DlaSupport, AReshapeFoldingMoreThan65535IntoTheBatchStaysOffTheDla)
{
	/* [512, 256, 4, 4, 1]: the DLA's N would be 512 * 256. */
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 512, 256, 4, 4 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 512, 256, 4, 4, 1 });
	b.initializer("axes", test::int64Tensor({ 1 }, { 4 }));
	b.node("Unsqueeze", { "x", "axes" }, { "y" });
	std::string reason = dlaRefusal(b, { 512, 256, 4, 4 });
	EXPECT_NE(reason.find("more than 65535 elements"), std::string::npos) << reason;
}

TEST(DlaSupport, AParameterTheDlaMayComputeStaysOffTheDla)
{
	/*
	 * The segment checks its parameters before it runs, when it cannot
	 * see its own values: a w_scale from a Reshape (which the DLA runs)
	 * would never match.
	 */
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::INT8, { 1, 2, 4, 4 });
	b.input("ws", ::onnx::TensorProto::FLOAT, { 1 });
	b.output("y", ::onnx::TensorProto::INT8, { 1, 2, 4, 4 });
	b.initializer("shape", test::int64Tensor({ 1 }, { 1 }));
	b.node("Reshape", { "ws", "shape" }, { "w_scale" });
	Tensor scale(DataType::Float, {});
	scale.data<float>()[0] = 0.5f;
	b.initializer("s", scale);
	b.initializer("z", Tensor(DataType::Int8, {}));
	b.initializer("w", Tensor(DataType::Int8, { 2, 2, 1, 1 }));
	b.node("QLinearConv", { "x", "s", "z", "w", "w_scale", "z", "s", "z" }, { "y" });
	SavedModel file(b);
	auto model = Model::load(file.path);
	ASSERT_TRUE(model) << model.error().message();
	Tensor ws(DataType::Float, { 1 });
	ws.data<float>()[0] = 0.25f;
	auto out = (*model)->run({ Tensor(DataType::Int8, { 1, 2, 4, 4 }), ws }, Target::Dla);
	ASSERT_FALSE(out);
	EXPECT_NE(out.error().reason().find("computed by a node the DLA may run"),
		  std::string::npos)
		<< out.error().reason();
}

TEST(DlaSupport, AChainOfGemmsIsPlannedInLinearTime)
{
	/*
	 * G_k = Gemm(x, y_{k-1}, y_{k-1}): asking whether each producer of B
	 * and C runs on the DLA, recursively, took 2^(k/2) steps.
	 */
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 4, 4 });
	b.input("y0", ::onnx::TensorProto::FLOAT, { 4, 4 });
	std::string previous = "y0";
	for (int k = 1; k <= 80; k++) {
		const std::string y = "y" + std::to_string(k);
		b.node("Gemm", { "x", previous, previous }, { y });
		previous = y;
	}
	b.output(previous, ::onnx::TensorProto::FLOAT, { 4, 4 });
	SavedModel file(b);
	auto model = Model::load(file.path);
	ASSERT_TRUE(model) << model.error().message();
	Tensor x(DataType::Float, { 4, 4 }), y(DataType::Float, { 4, 4 });
	auto out = (*model)->run({ x, y }, Target::Any);
	ASSERT_TRUE(out) << out.error().message();
}

TEST(DlaSupport, AMaxInAnotherSegmentThanItsConvolutionStaysOnTheCpu)
{
	/*
	 * A node the DLA does not run (a Sigmoid of another input) comes
	 * between the convolution and its Max: they would be two segments, and
	 * the Max alone is no layer (it crashed the segment's builder).
	 */
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::INT8, { 1, 2, 4, 4 });
	b.input("f", ::onnx::TensorProto::FLOAT, { 3 });
	b.output("y", ::onnx::TensorProto::INT8, { 1, 2, 4, 4 });
	b.output("g", ::onnx::TensorProto::FLOAT, { 3 });
	quantConv(b, "x", 2, 2, "c");
	b.node("Sigmoid", { "f" }, { "g" });
	b.node("Max", { "c", "z" }, { "y" }).set_name("relu");
	SavedModel file(b);
	auto model = Model::load(file.path);
	ASSERT_TRUE(model) << model.error().message();
	Tensor x(DataType::Int8, { 1, 2, 4, 4 });
	Tensor f(DataType::Float, { 3 });
	auto any = (*model)->run({ x, f }, Target::Any);
	ASSERT_TRUE(any) << any.error().message();
	auto dla = (*model)->run({ x, f }, Target::Dla);
	ASSERT_FALSE(dla);
	EXPECT_EQ(dla.error().code(), ENOTSUP) << dla.error().reason();
}

TEST(DlaSupport, AConvolutionWithAGroupThatDoesNotDivideStaysOffTheDla)
{
	/* 2^32 + 1 groups would be 1 once narrowed to the layer's 32 bits. */
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 2, 5, 5 });
	b.initializer("w", { 2, 2, 3, 3 }, std::vector<float>(36, 1));
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 2, 3, 3 });
	test::setInt(b.node("Conv", { "x", "w" }, { "y" }), "group", (int64_t(1) << 32) + 1);
	std::string reason = dlaRefusal(b, { 1, 2, 5, 5 });
	EXPECT_NE(reason.find("group"), std::string::npos) << reason;
}

TEST(DlaSupport, APoolingFlagNeitherZeroNorOneStaysOffTheDla)
{
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 1, 6, 6 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 1, 6, 6 });
	::onnx::NodeProto &pool = b.node("AveragePool", { "x" }, { "y" });
	setInts(pool, "kernel_shape", { 3, 3 });
	setInts(pool, "pads", { 1, 1, 1, 1 });
	test::setInt(pool, "count_include_pad", 7);
	std::string reason = dlaRefusal(b, { 1, 1, 6, 6 });
	EXPECT_NE(reason.find("count_include_pad"), std::string::npos) << reason;
}

TEST(DlaSupport, A1dConvolutionNextToAnotherDlaNodeStaysOffTheDla)
{
	/* Its tensors are 4-D on the DLA, the Relu's 3-D. */
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 2, 8 });
	b.initializer("w", { 2, 2, 3 }, std::vector<float>(12, 1));
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 2, 6 });
	b.node("Conv", { "x", "w" }, { "c" }).set_name("conv1d");
	b.node("Relu", { "c" }, { "y" });
	std::string reason = dlaRefusal(b, { 1, 2, 8 });
	EXPECT_NE(reason.find("1-D Conv next to"), std::string::npos) << reason;
}

} /* namespace */
} /* namespace vdla::onnx */
