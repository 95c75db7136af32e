/* SPDX-License-Identifier: MIT */
/*
 * Element-wise nodes on the vDLA's SDP, in the guest (docs/onnx.md,
 * "Element-wise on the DLA"): float Add, Sub and Mul with broadcasting, the
 * integer ones wrapping modulo 256, and
 * the quantised Add of a QDQ model (QLinearAdd, with and without its Relu),
 * int8 and uint8, each against the CPU kernels bit for bit.
 */

#include "dla_test_util.h"

namespace vdla::onnx {
namespace {

using test::expectDlaEqualsCpu;
using test::loadBuilt;

Tensor floats(std::vector<int64_t> shape, float scale, int seed)
{
	Tensor t(DataType::Float, shape);
	for (int64_t i = 0; i < t.elements(); i++)
		t.data<float>()[i] = (float((i * 7919 + seed) % 201) - 100.25f) * scale;
	return t;
}

TEST(ElementwiseOnTheDla, FloatAddSubMulBroadcastAreTheCpusBits)
{
	test::ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 2, 3, 4, 5 });
	b.input("c", ::onnx::TensorProto::FLOAT, { 1, 3, 1, 1 });
	b.input("s", ::onnx::TensorProto::FLOAT, { 1 });
	b.input("k", ::onnx::TensorProto::FLOAT, {});
	b.input("big", ::onnx::TensorProto::FLOAT, { 2, 3, 4, 5, 6, 7 });
	b.initializer("row", { 5 }, { 0.5f, -1.25f, 3.0f, 1e-3f, -7.0f });
	b.initializer("block", { 1, 1, 1, 5, 6, 7 }, std::vector<float>(210, 0.1f));
	b.output("sum", ::onnx::TensorProto::FLOAT, { 2, 3, 4, 5 });
	b.output("difference", ::onnx::TensorProto::FLOAT, { 2, 3, 4, 5 });
	b.output("product", ::onnx::TensorProto::FLOAT, { 2, 3, 4, 5 });
	b.output("scaled", ::onnx::TensorProto::FLOAT, { 2, 3, 4, 5 });
	b.output("sixD", ::onnx::TensorProto::FLOAT, { 2, 3, 4, 5, 6, 7 });
	b.output("scalarFirst", ::onnx::TensorProto::FLOAT, { 2, 3, 4, 5 });
	/* x + c per channel; x - row along W; c * x (the first operand repeated);
	 * x * s (repeated along all four, merged into one axis); a 6-D add. */
	b.node("Add", { "x", "c" }, { "sum" });
	b.node("Sub", { "x", "row" }, { "difference" });
	b.node("Mul", { "c", "x" }, { "product" });
	b.node("Mul", { "x", "s" }, { "scaled" });
	b.node("Add", { "big", "block" }, { "sixD" });
	/* A scalar first operand. */
	b.node("Mul", { "k", "x" }, { "scalarFirst" });
	std::unique_ptr<Model> model = loadBuilt(b);
	ASSERT_TRUE(model);
	expectDlaEqualsCpu(*model,
			   { floats({ 2, 3, 4, 5 }, 0.37f, 1), floats({ 1, 3, 1, 1 }, 1.13f, 2),
			     floats({ 1 }, -0.77f, 3), floats({}, 1.5f, 5),
			     floats({ 2, 3, 4, 5, 6, 7 }, 0.01f, 4) });
}

TEST(ElementwiseOnTheDla, IntegerAddSubMulWrapAsTheCpus)
{
	for (int32_t type : { ::onnx::TensorProto::INT8, ::onnx::TensorProto::UINT8 }) {
		SCOPED_TRACE(type);
		test::ModelBuilder b;
		b.input("x", type, { 1, 3, 5, 7 });
		b.input("y", type, { 1, 3, 1, 7 });
		for (const char *name : { "sum", "difference", "product" })
			b.output(name, type, { 1, 3, 5, 7 });
		b.node("Add", { "x", "y" }, { "sum" });
		b.node("Sub", { "y", "x" }, { "difference" });
		b.node("Mul", { "x", "y" }, { "product" });
		std::unique_ptr<Model> model = loadBuilt(b);
		ASSERT_TRUE(model);
		const DataType dataType =
			type == ::onnx::TensorProto::INT8 ? DataType::Int8 : DataType::Uint8;
		Tensor x(dataType, { 1, 3, 5, 7 }), y(dataType, { 1, 3, 1, 7 });
		for (int i = 0; i < 105; i++)
			static_cast<uint8_t *>(x.raw())[i] = uint8_t(i * 71 + 3);
		for (int i = 0; i < 21; i++)
			static_cast<uint8_t *>(y.raw())[i] = uint8_t(i * 29 + 128);
		expectDlaEqualsCpu(*model, { x, y });
	}
}

/*
 * DQ(a) + DQ(b) [-> Relu] -> Q with b repeated per channel: QLinearAdd on
 * the SDP, the Relu its Max. Zero points at the ends give d = +-255;
 * scales whose ratios round in float32; an output zero point of 0 writes
 * INT8 directly, another adds it in a last SDP.
 */
test::ModelBuilder quantAddModel(int32_t type, bool relu, int64_t outputZero)
{
	const bool int8 = type == ::onnx::TensorProto::INT8;
	const DataType dataType = int8 ? DataType::Int8 : DataType::Uint8;
	test::ModelBuilder b;
	b.input("aq", type, { 1, 4, 6, 6 });
	b.input("bq", type, { 1, 4, 1, 1 });
	b.initializer("as", test::floatTensor({}, { 0.1f }));
	b.initializer("az", test::intTensor(dataType, {}, { int8 ? 127 : 255 }));
	b.initializer("bs", test::floatTensor({}, { 0.3f }));
	b.initializer("bz", test::intTensor(dataType, {}, { int8 ? -128 : 0 }));
	b.initializer("ys", test::floatTensor({}, { 0.07f }));
	b.initializer("yz", test::intTensor(dataType, {}, { outputZero }));
	b.output("yq", type, { 1, 4, 6, 6 });
	b.node("DequantizeLinear", { "aq", "as", "az" }, { "a" });
	b.node("DequantizeLinear", { "bq", "bs", "bz" }, { "b" });
	b.node("Add", { "a", "b" }, { "sum" });
	if (relu) {
		b.node("Relu", { "sum" }, { "r" });
		b.node("QuantizeLinear", { "r", "ys", "yz" }, { "yq" });
	} else {
		b.node("QuantizeLinear", { "sum", "ys", "yz" }, { "yq" });
	}
	return b;
}

TEST(ElementwiseOnTheDla, QuantisedAddIsTheCpusBytes)
{
	for (int32_t type : { ::onnx::TensorProto::INT8, ::onnx::TensorProto::UINT8 }) {
		const bool int8 = type == ::onnx::TensorProto::INT8;
		for (bool relu : { false, true }) {
			for (int64_t zero : { int64_t(0), int8 ? int64_t(-37) : int64_t(200) }) {
				SCOPED_TRACE(std::to_string(type) + (relu ? " relu " : " ") +
					     std::to_string(zero));
				test::ModelBuilder b = quantAddModel(type, relu, zero);
				std::unique_ptr<Model> model = loadBuilt(b);
				ASSERT_TRUE(model);
				const DataType dataType = int8 ? DataType::Int8 : DataType::Uint8;
				Tensor a(dataType, { 1, 4, 6, 6 }), c(dataType, { 1, 4, 1, 1 });
				/* Every byte value across the two, the ends included. */
				uint8_t *bytes = static_cast<uint8_t *>(a.raw());
				for (int i = 0; i < 144; i++)
					bytes[i] = uint8_t(i * 83 + 5);
				bytes[0] = 0x80;
				bytes[1] = 0x7f;
				uint8_t *channel = static_cast<uint8_t *>(c.raw());
				const uint8_t ends[4] = { 0x00, 0x7f, 0x80, 0xff };
				std::copy(ends, ends + 4, channel);
				expectDlaEqualsCpu(*model, { a, c });
			}
		}
	}
}

/*
 * onnxruntime's QLinearAdd written by the model, its zero points left out:
 * 0 of the tensors' type, which for uint8 the DLA holds as -128.
 */
TEST(ElementwiseOnTheDla, AQLinearAddWithoutZeroPointsIsTheCpusBytes)
{
	for (int32_t type : { ::onnx::TensorProto::UINT8, ::onnx::TensorProto::INT8 }) {
		SCOPED_TRACE(type);
		const DataType dataType =
			type == ::onnx::TensorProto::INT8 ? DataType::Int8 : DataType::Uint8;
		test::ModelBuilder b;
		b.importDomain("com.microsoft", 1);
		b.input("a", type, { 1, 2, 3, 4 });
		b.input("b", type, { 1, 2, 3, 4 });
		b.output("y", type, { 1, 2, 3, 4 });
		b.initializer("as", test::floatTensor({}, { 0.02f }));
		b.initializer("bs", test::floatTensor({}, { 0.03f }));
		b.initializer("bz", test::intTensor(dataType, {}, { 5 }));
		b.initializer("ys", test::floatTensor({}, { 0.05f }));
		b.node("QLinearAdd", { "a", "as", "", "b", "bs", "bz", "ys", "" }, { "y" },
		       "com.microsoft");
		std::unique_ptr<Model> model = loadBuilt(b);
		ASSERT_TRUE(model);
		Tensor a(dataType, { 1, 2, 3, 4 }), c(dataType, { 1, 2, 3, 4 });
		for (int i = 0; i < 24; i++) {
			static_cast<uint8_t *>(a.raw())[i] = uint8_t(i * 11);
			static_cast<uint8_t *>(c.raw())[i] = uint8_t(255 - i * 7);
		}
		expectDlaEqualsCpu(*model, { a, c });
	}
}

/*
 * A Reshape whose shape an int64 Add computes joins the Relu after it on
 * the DLA: the Add (of a type the DLA does not hold) runs on the CPU,
 * before the segment, so the plan may read the shape.
 */
TEST(ElementwiseOnTheDla, AShapeAnInt64AddComputesIsAParameterTheSegmentReads)
{
	test::ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 2, 6 });
	b.input("dims", ::onnx::TensorProto::INT64, { 2 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 3, 4 });
	b.initializer("one", test::int64Tensor({ 2 }, { 1, 1 }));
	b.node("Add", { "dims", "one" }, { "shape" }).set_name("shape_add");
	b.node("Reshape", { "x", "shape" }, { "r" }).set_name("reshape");
	b.node("Relu", { "r" }, { "y" }).set_name("relu");
	std::unique_ptr<Model> model = loadBuilt(b);
	ASSERT_TRUE(model);
	std::vector<NodeTiming> timings;
	auto out = model->run({ floats({ 2, 6 }, 1.0f, 3), test::int64Tensor({ 2 }, { 2, 3 }) },
			      Target::Any, &timings);
	ASSERT_TRUE(out) << out.error().message();
	ASSERT_EQ(timings.size(), 2u);
	EXPECT_EQ(timings[0].node, "shape_add");
	EXPECT_EQ(timings[0].target, Target::Cpu);
	EXPECT_EQ(timings[1].target, Target::Dla);
	EXPECT_EQ(timings[1].node, "reshape .. relu");
}

/*
 * A segment's timing lists its nodes in order with their device times
 * (--placement prints them): the convolution's and the Add's layers take
 * time on the device, the Relu fused into the convolution and the Flatten
 * (a rename) none; together they fit in the segment's wall time.
 */
TEST(ElementwiseOnTheDla, ASegmentsTimingHasEachNodesDeviceTime)
{
	test::ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 4, 16, 16 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 1024 });
	b.initializer("w", { 4, 4, 3, 3 }, std::vector<float>(144, 0.125f));
	::onnx::NodeProto &conv = b.node("Conv", { "x", "w" }, { "c" });
	conv.set_name("conv");
	test::setInts(conv, "pads", { 1, 1, 1, 1 });
	b.node("Relu", { "c" }, { "r" }).set_name("relu");
	b.node("Add", { "r", "x" }, { "sum" }).set_name("residual");
	b.node("Flatten", { "sum" }, { "y" }).set_name("flatten");
	std::unique_ptr<Model> model = loadBuilt(b);
	ASSERT_TRUE(model);
	std::vector<NodeTiming> timings;
	auto out = model->run({ floats({ 1, 4, 16, 16 }, 0.5f, 7) }, Target::Dla, &timings);
	ASSERT_TRUE(out) << out.error().message();
	ASSERT_EQ(timings.size(), 1u);
	const NodeTiming &segment = timings[0];
	EXPECT_EQ(segment.opType, "DLA segment");
	ASSERT_EQ(segment.parts.size(), 4u);
	const char *names[] = { "conv", "relu", "residual", "flatten" };
	const char *ops[] = { "Conv", "Relu", "Add", "Flatten" };
	uint64_t device = 0;
	for (size_t i = 0; i < 4; i++) {
		EXPECT_EQ(segment.parts[i].node, names[i]);
		EXPECT_EQ(segment.parts[i].opType, ops[i]);
		EXPECT_EQ(segment.parts[i].target, Target::Dla);
		device += segment.parts[i].nanoseconds;
	}
	EXPECT_GT(segment.parts[0].nanoseconds, 0u);
	EXPECT_EQ(segment.parts[1].nanoseconds, 0u) << "fused into the convolution";
	EXPECT_GT(segment.parts[2].nanoseconds, 0u);
	EXPECT_EQ(segment.parts[3].nanoseconds, 0u) << "a rename";
	EXPECT_LE(device, segment.nanoseconds);
}

} /* namespace */
} /* namespace vdla::onnx */
