/* SPDX-License-Identifier: MIT */
/*
 * ONNX's data movement on the vDLA's RUBIK engine, in the guest
 * (docs/onnx.md, "Data movement on the DLA"): int8 and uint8 moves byte for
 * byte against the CPU kernels (the backend cases of dla_cases.txt are all
 * float), aliases that give a layer another shape, and parameters that
 * change from one run to the next.
 */

#include "dla_test_util.h"

namespace vdla::onnx {
namespace {

using test::expectDlaEqualsCpu;
using test::loadBuilt;

TEST(DataMovementOnTheDla, Uint8AndInt8MovesAreTheCpusBytes)
{
	for (int32_t type : { ::onnx::TensorProto::UINT8, ::onnx::TensorProto::INT8 }) {
		test::ModelBuilder b;
		b.input("x", type, { 1, 8, 4, 6 });
		b.output("t", type, { 1, 2, 3, 4 });
		b.output("dcr", type, { 1, 2, 8, 12 });
		b.output("crd", type, { 1, 2, 8, 12 });
		b.output("s2d", type, { 1, 32, 2, 3 });
		b.output("a", type, { 1, 3, 4, 6 });
		b.output("b", type, { 1, 5, 4, 6 });
		b.output("r", type, { 8, 24 });
		/* Channels 1, 3, 5, 7, rows 0 and 2, columns 1, 3, 5, then NHWC. */
		b.initializer("starts", test::int64Tensor({ 4 }, { 0, 1, 0, 1 }));
		b.initializer("ends", test::int64Tensor({ 4 }, { 1, 8, 4, 6 }));
		b.initializer("axes", test::int64Tensor({ 4 }, { 0, 1, 2, 3 }));
		b.initializer("steps", test::int64Tensor({ 4 }, { 1, 2, 2, 2 }));
		b.node("Slice", { "x", "starts", "ends", "axes", "steps" }, { "s" });
		test::setInts(b.node("Transpose", { "s" }, { "t" }), "perm", { 0, 2, 3, 1 });
		::onnx::NodeProto &dcr = b.node("DepthToSpace", { "x" }, { "dcr" });
		test::setInt(dcr, "blocksize", 2);
		::onnx::NodeProto &crd = b.node("DepthToSpace", { "x" }, { "crd" });
		test::setInt(crd, "blocksize", 2);
		test::setString(crd, "mode", "CRD");
		test::setInt(b.node("SpaceToDepth", { "x" }, { "s2d" }), "blocksize", 2);
		b.initializer("split", test::int64Tensor({ 2 }, { 3, 5 }));
		test::setInt(b.node("Split", { "x", "split" }, { "a", "b" }), "axis", 1);
		b.initializer("shape", test::int64Tensor({ 2 }, { 8, -1 }));
		b.node("Reshape", { "x", "shape" }, { "r" });
		std::unique_ptr<Model> model = loadBuilt(b);
		ASSERT_TRUE(model);

		/* Every byte value, so that uint8's top bit (flipped on the DLA) varies. */
		Tensor x(type == ::onnx::TensorProto::UINT8 ? DataType::Uint8 : DataType::Int8,
			 { 1, 8, 4, 6 });
		uint8_t *bytes = static_cast<uint8_t *>(x.raw());
		for (int i = 0; i < 192; i++)
			bytes[i] = uint8_t(i * 37 + 11);
		expectDlaEqualsCpu(*model, { x });
	}
}

TEST(DataMovementOnTheDla, AFlattenThatEndsTheGraphRunsThere)
{
	/* The Flatten names the Relu's tensor; the graph's output is its bytes. */
	test::ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 2, 2, 2 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 8 });
	b.node("Relu", { "x" }, { "r" });
	b.node("Flatten", { "r" }, { "y" });
	std::unique_ptr<Model> model = loadBuilt(b);
	ASSERT_TRUE(model);
	Tensor x(DataType::Float, { 1, 2, 2, 2 });
	for (int i = 0; i < 8; i++)
		x.data<float>()[i] = float(i) - 3.5f;
	expectDlaEqualsCpu(*model, { x });
}

TEST(DataMovementOnTheDla, AnUnsqueezeThatMovesTheChannelsIntoTheBatchIsReshapedForTheLayer)
{
	/*
	 * [4, 1, 1, 1] -> Flatten [4, 1] -> Unsqueeze [1, 4, 1, 1]: not the
	 * [N, K, 1, 1] of a fused Gemm, so the convolution must not read the
	 * Flatten's input (a pooling's output, which both aliases name) as its
	 * 4-D tensor; it reads a RESHAPE copy.
	 */
	test::ModelBuilder b;
	b.input("x", ::onnx::TensorProto::INT8, { 4, 1, 1, 1 });
	b.output("y", ::onnx::TensorProto::INT8, { 1, 2, 1, 1 });
	test::setInts(b.node("MaxPool", { "x" }, { "p" }), "kernel_shape", { 1, 1 });
	b.node("Flatten", { "p" }, { "f" });
	b.initializer("axes", test::int64Tensor({ 2 }, { 0, 3 }));
	b.node("Unsqueeze", { "f", "axes" }, { "u" });
	Tensor scale(DataType::Float, {});
	scale.data<float>()[0] = 0.5f;
	b.initializer("s", scale);
	b.initializer("z", Tensor(DataType::Int8, {}));
	Tensor w(DataType::Int8, { 2, 4, 1, 1 });
	for (int64_t i = 0; i < 8; i++)
		w.data<int8_t>()[i] = int8_t(i % 5 - 2);
	b.initializer("w", w);
	b.node("QLinearConv", { "u", "s", "z", "w", "s", "z", "s", "z" }, { "y" });
	std::unique_ptr<Model> model = loadBuilt(b);
	ASSERT_TRUE(model);
	Tensor x(DataType::Int8, { 4, 1, 1, 1 });
	for (int i = 0; i < 4; i++)
		x.data<int8_t>()[i] = int8_t(17 * i - 30);
	expectDlaEqualsCpu(*model, { x });
}

TEST(DataMovementOnTheDla, ConvolutionWeightsAreReadUnderTheirOwnShape)
{
	/*
	 * W = Reshape(Relu(w [2, 1, 4, 3]), [2, 1, 3, 4]) names Relu's tensor,
	 * of w's dimensions: a 4 x 3 kernel read as 3 x 4 gives the same 4 x 4
	 * output at stride 2, and other values.
	 */
	test::ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 1, 10, 10 });
	b.input("w", ::onnx::TensorProto::FLOAT, { 2, 1, 4, 3 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 2, 4, 4 });
	b.node("Relu", { "w" }, { "r" });
	b.initializer("shape", test::int64Tensor({ 4 }, { 2, 1, 3, 4 }));
	b.node("Reshape", { "r", "shape" }, { "k" });
	test::setInts(b.node("Conv", { "x", "k" }, { "y" }), "strides", { 2, 2 });
	std::unique_ptr<Model> model = loadBuilt(b);
	ASSERT_TRUE(model);
	/* Small integers: every sum is exact in FP32, on either side. */
	Tensor x(DataType::Float, { 1, 1, 10, 10 }), w(DataType::Float, { 2, 1, 4, 3 });
	for (int i = 0; i < 100; i++)
		x.data<float>()[i] = float(i % 7) - 3;
	for (int i = 0; i < 24; i++)
		w.data<float>()[i] = float(i % 5) - 1;
	expectDlaEqualsCpu(*model, { x, w });
}

TEST(DataMovementOnTheDla, ATransposeMergesAxesOnlyWithinADimension)
{
	/* [1, 2, 2, 256, 256] by (0, 2, 1, 3, 4): 256 x 256 would be one axis of 65536. */
	test::ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 2, 2, 256, 256 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 2, 2, 256, 256 });
	test::setInts(b.node("Transpose", { "x" }, { "y" }), "perm", { 0, 2, 1, 3, 4 });
	std::unique_ptr<Model> model = loadBuilt(b);
	ASSERT_TRUE(model);
	Tensor x(DataType::Float, { 1, 2, 2, 256, 256 });
	for (int64_t i = 0; i < x.elements(); i++)
		x.data<float>()[i] = float(i);
	expectDlaEqualsCpu(*model, { x });
}

TEST(DataMovementOnTheDla, ASliceStepPastTheAxisTakesOneElement)
{
	/* A step of 2^32 does not fit RUBIK's 32 bits; one element taken needs none. */
	test::ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 3, 4, 5 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 3, 1, 5 });
	b.initializer("starts", test::int64Tensor({ 1 }, { 2 }));
	b.initializer("ends", test::int64Tensor({ 1 }, { 4 }));
	b.initializer("axes", test::int64Tensor({ 1 }, { 2 }));
	b.initializer("steps", test::int64Tensor({ 1 }, { int64_t(1) << 32 }));
	b.node("Slice", { "x", "starts", "ends", "axes", "steps" }, { "y" });
	std::unique_ptr<Model> model = loadBuilt(b);
	ASSERT_TRUE(model);
	Tensor x(DataType::Float, { 1, 3, 4, 5 });
	for (int i = 0; i < 60; i++)
		x.data<float>()[i] = float(i);
	expectDlaEqualsCpu(*model, { x });
}

TEST(DataMovementOnTheDla, MovesBetweenTwoLayersJoinTheirSegment)
{
	/* Conv -> Transpose -> Reshape -> Slice -> Gemm: one segment with any, not two. */
	test::ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 2, 4, 4 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 3 });
	b.initializer("w", { 2, 2, 1, 1 }, { 1, 2, 3, 4 });
	b.node("Conv", { "x", "w" }, { "c" });
	test::setInts(b.node("Transpose", { "c" }, { "t" }), "perm", { 0, 2, 3, 1 });
	b.initializer("shape", test::int64Tensor({ 2 }, { 1, 32 }));
	b.node("Reshape", { "t", "shape" }, { "r" });
	b.initializer("starts", test::int64Tensor({ 1 }, { 8 }));
	b.initializer("ends", test::int64Tensor({ 1 }, { 24 }));
	b.initializer("axes", test::int64Tensor({ 1 }, { 1 }));
	b.node("Slice", { "r", "starts", "ends", "axes" }, { "s" });
	std::vector<float> gemm(16 * 3);
	for (size_t i = 0; i < gemm.size(); i++)
		gemm[i] = float(i % 3) - 1;
	b.initializer("g", { 16, 3 }, gemm);
	b.node("Gemm", { "s", "g" }, { "y" });
	std::unique_ptr<Model> model = loadBuilt(b);
	ASSERT_TRUE(model);
	Tensor x(DataType::Float, { 1, 2, 4, 4 });
	for (int i = 0; i < 32; i++)
		x.data<float>()[i] = float(i % 5) - 2;
	std::vector<NodeTiming> timings;
	auto any = model->run({ x }, Target::Any, &timings);
	ASSERT_TRUE(any) << any.error().message();
	ASSERT_EQ(timings.size(), 1u) << "one DLA segment";
	EXPECT_EQ(timings[0].target, Target::Dla);
	auto cpu = model->run({ x }, Target::Cpu);
	ASSERT_TRUE(cpu) << cpu.error().message();
	EXPECT_EQ(compareTensors((*cpu)[0], (*any)[0], 0, 0), "");
}

TEST(DataMovementOnTheDla, AReshapeWhoseShapeChangesTakesTheCpuForThatRun)
{
	/*
	 * The plan is made for input shapes; `shape` keeps its shape [2] but
	 * not its values. The segment checks the values it was planned with.
	 */
	test::ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 2, 3, 4 });
	b.input("shape", ::onnx::TensorProto::INT64, { 2 });
	b.output("y", ::onnx::TensorProto::FLOAT, { -1, -1 });
	b.node("Reshape", { "x", "shape" }, { "r" });
	b.node("Relu", { "r" }, { "y" });
	std::unique_ptr<Model> model = loadBuilt(b);
	ASSERT_TRUE(model);
	Tensor x(DataType::Float, { 2, 3, 4 });
	for (int i = 0; i < 24; i++)
		x.data<float>()[i] = float(i % 7) - 3;
	Tensor shape(DataType::Int64, { 2 });
	for (int64_t rows : { 6, 4 }) {
		shape.data<int64_t>()[0] = rows;
		shape.data<int64_t>()[1] = 24 / rows;
		std::vector<NodeTiming> timings;
		auto any = model->run({ x, shape }, Target::Any, &timings);
		ASSERT_TRUE(any) << any.error().message();
		auto cpu = model->run({ x, shape }, Target::Cpu);
		ASSERT_TRUE(cpu) << cpu.error().message();
		EXPECT_EQ((*any)[0].shape(), (std::vector<int64_t>{ rows, 24 / rows }));
		EXPECT_EQ(compareTensors((*cpu)[0], (*any)[0], 0, 0), "") << rows << " rows";
		bool onDla = false;
		for (const NodeTiming &t : timings)
			onDla = onDla || t.target == Target::Dla;
		EXPECT_EQ(onDla, rows == 6) << "the plan's own values run on the DLA, others not";
	}
	auto dla = model->run({ x, shape }, Target::Dla);
	ASSERT_TRUE(dla) << dla.error().message();
	shape.data<int64_t>()[0] = 3;
	shape.data<int64_t>()[1] = 8;
	dla = model->run({ x, shape }, Target::Dla);
	ASSERT_FALSE(dla);
	EXPECT_EQ(dla.error().code(), ENOTSUP);
	EXPECT_NE(dla.error().reason().find("other integers"), std::string::npos)
		<< dla.error().reason();
}

} /* namespace */
} /* namespace vdla::onnx */
