/* SPDX-License-Identifier: MIT */
/*
 * The QDQ fusion of docs/onnx.md ("Import"): a QDQ pattern computes what the
 * integer operator written out by hand computes, bit for bit, and a pattern
 * that misses one condition is left as it is. Which operators a loaded model
 * holds (Model::opTypes) tells whether the fusion happened.
 */

#include "model_builder.h"

#include <vdla/onnx.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>

namespace vdla::onnx {
namespace {

using test::intTensor;
using test::ModelBuilder;
using test::SavedModel;

int32_t onnxType(DataType type)
{
	return int32_t(type);
}

bool contains(const std::vector<std::string> &opTypes, const std::string &opType)
{
	return std::find(opTypes.begin(), opTypes.end(), opType) != opTypes.end();
}

Tensor floats(std::vector<int64_t> shape, const std::vector<float> &values)
{
	return test::floatTensor(std::move(shape), values);
}

/* Deterministic integers in [low, high]. */
std::vector<int64_t> pseudoRandom(size_t count, int64_t low, int64_t high, uint32_t seed)
{
	std::vector<int64_t> values(count);
	for (int64_t &v : values) {
		seed = seed * 1103515245u + 12345u;
		v = low + int64_t((seed >> 8) % uint32_t(high - low + 1));
	}
	return values;
}

/* The low and high ends of a quantised type. */
int64_t lowest(DataType type)
{
	return type == DataType::Int8 ? -128 : 0;
}

int64_t highest(DataType type)
{
	return type == DataType::Int8 ? 127 : 255;
}

struct Loaded {
	std::unique_ptr<Model> model;
	std::vector<std::string> opTypes;
};

Loaded load(ModelBuilder &builder)
{
	SavedModel file(builder);
	auto model = Model::load(file.path);
	EXPECT_TRUE(model) << model.error().message();
	if (!model)
		return {};
	Loaded loaded;
	loaded.model = std::move(*model);
	loaded.opTypes = loaded.model->opTypes();
	return loaded;
}

Tensor runOne(const Model &model, const Tensor &input, std::vector<NodeTiming> *timings = nullptr)
{
	auto out = model.run({ input }, Target::Cpu, timings);
	EXPECT_TRUE(out) << out.error().message();
	return out ? (*out)[0] : Tensor();
}

void expectSameBytes(const Tensor &actual, const Tensor &expected)
{
	ASSERT_EQ(actual.type(), expected.type());
	ASSERT_EQ(actual.shape(), expected.shape());
	ASSERT_GT(expected.elements(), 0);
	EXPECT_EQ(std::memcmp(actual.raw(), expected.raw(), expected.bytes()), 0);
	for (int64_t i = 0; i < expected.elements() && i < 1000; i++) {
		int64_t a = actual.type() == DataType::Int8 ? actual.data<int8_t>()[i]
							    : actual.data<uint8_t>()[i];
		int64_t e = expected.type() == DataType::Int8 ? expected.data<int8_t>()[i]
							      : expected.data<uint8_t>()[i];
		ASSERT_EQ(a, e) << "element " << i;
	}
}

/* --- Rule 1: Conv ------------------------------------------------------ */

/* A quantised convolution: x [1, 2, 5, 5], w [3, 2, 3, 3], pads 1, strides 2. */
struct ConvCase {
	DataType type = DataType::Uint8;
	bool perChannel = false;
	bool bias = false;
	bool relu = false;
	int64_t opset = 13;

	Tensor xq, xs, xz, wq, ws, wz, bq, bs, ys, yz;

	void fill();
	/* DQ -> Conv(DQ(w), [DQ(b)]) -> [Relu] -> Q. */
	ModelBuilder qdqModel() const;
	/* The same computation written as QLinearConv [-> Max]. */
	ModelBuilder qlinearModel() const;
};

void ConvCase::fill()
{
	const int64_t low = lowest(type), high = highest(type);
	xq = intTensor(type, { 1, 2, 5, 5 }, pseudoRandom(50, low, high, 1));
	xs = floats({}, { 0.0213f });
	xz = intTensor(type, {}, { type == DataType::Int8 ? 3 : 131 });
	const int64_t wZero = type == DataType::Int8 ? 0 : 128;
	wq = intTensor(type, { 3, 2, 3, 3 }, pseudoRandom(54, wZero - 40, wZero + 40, 2));
	std::vector<float> wScales = { 0.0117f, 0.0093f, 0.0131f };
	if (perChannel) {
		ws = floats({ 3 }, wScales);
		wz = intTensor(type, { 3 }, { wZero, wZero - 3, wZero + 5 });
	} else {
		ws = floats({}, { wScales[0] });
		wz = intTensor(type, {}, { wZero });
	}
	/* The accumulator's scale: x_scale * w_scale[m] in float32. */
	std::vector<float> biasScales;
	for (int64_t m = 0; m < (perChannel ? 3 : 1); m++)
		biasScales.push_back(xs.data<float>()[0] * ws.data<float>()[m]);
	bs = floats({ int64_t(biasScales.size()) }, biasScales);
	bq = intTensor(DataType::Int32, { 3 }, { -900, 2500, 12000 });
	ys = floats({}, { 0.0377f });
	yz = intTensor(type, {}, { type == DataType::Int8 ? -5 : 120 });
}

void setConvAttributes(::onnx::NodeProto &node)
{
	test::setInts(node, "pads", { 1, 1, 1, 1 });
	test::setInts(node, "strides", { 2, 2 });
}

ModelBuilder ConvCase::qdqModel() const
{
	ModelBuilder b(opset);
	b.input("xq", onnxType(type), { 1, 2, 5, 5 });
	for (auto &[name, value] : std::vector<std::pair<std::string, const Tensor *>>{
		     { "xs", &xs }, { "xz", &xz }, { "wq", &wq }, { "ws", &ws }, { "wz", &wz },
		     { "bq", &bq }, { "bs", &bs }, { "ys", &ys }, { "yz", &yz } })
		b.initializer(name, *value);
	b.output("yq", onnxType(type), { 1, 3, 3, 3 });
	b.node("DequantizeLinear", { "xq", "xs", "xz" }, { "x" }).set_name("dq_x");
	/* DequantizeLinear has an axis (for per-channel scales) from opset 13. */
	::onnx::NodeProto &dqW = b.node("DequantizeLinear", { "wq", "ws", "wz" }, { "w" });
	if (opset >= 13)
		test::setInt(dqW, "axis", 0);
	std::vector<std::string> convInputs = { "x", "w" };
	if (bias) {
		::onnx::NodeProto &dqB = b.node("DequantizeLinear", { "bq", "bs" }, { "b" });
		if (opset >= 13)
			test::setInt(dqB, "axis", 0);
		convInputs.push_back("b");
	}
	::onnx::NodeProto &conv = b.node("Conv", convInputs, { "c" });
	conv.set_name("conv");
	setConvAttributes(conv);
	if (relu)
		b.node("Relu", { "c" }, { "r" }).set_name("relu");
	b.node("QuantizeLinear", { relu ? "r" : "c", "ys", "yz" }, { "yq" }).set_name("q_y");
	return b;
}

ModelBuilder ConvCase::qlinearModel() const
{
	ModelBuilder b(opset);
	b.input("xq", onnxType(type), { 1, 2, 5, 5 });
	for (auto &[name, value] : std::vector<std::pair<std::string, const Tensor *>>{
		     { "xs", &xs }, { "xz", &xz }, { "wq", &wq }, { "ws", &ws }, { "wz", &wz },
		     { "bq", &bq }, { "ys", &ys }, { "yz", &yz } })
		b.initializer(name, *value);
	b.output("yq", onnxType(type), { 1, 3, 3, 3 });
	std::vector<std::string> inputs = { "xq", "xs", "xz", "wq", "ws", "wz", "ys", "yz" };
	if (bias)
		inputs.push_back("bq");
	setConvAttributes(b.node("QLinearConv", inputs, { relu ? "y" : "yq" }));
	if (relu)
		b.node("Max", { "y", "yz" }, { "yq" });
	return b;
}

void checkConvCase(const ConvCase &c)
{
	ModelBuilder qdq = c.qdqModel(), qlinear = c.qlinearModel();
	Loaded fused = load(qdq), reference = load(qlinear);
	ASSERT_TRUE(fused.model && reference.model);
	std::vector<std::string> expected = { "QLinearConv" };
	if (c.relu)
		expected = { "Max", "QLinearConv" };
	EXPECT_EQ(fused.opTypes, expected);
	expectSameBytes(runOne(*fused.model, c.xq), runOne(*reference.model, c.xq));
}

TEST(QdqFusion, AConvPatternComputesQLinearConvBitForBit)
{
	/* Every combination of uint8/int8, weights per tensor/channel, bias, Relu. */
	for (int bits = 0; bits < 16; bits++) {
		ConvCase c;
		c.type = bits & 1 ? DataType::Int8 : DataType::Uint8;
		c.perChannel = bits & 2;
		c.bias = bits & 4;
		c.relu = bits & 8;
		c.fill();
		SCOPED_TRACE(std::string(dataTypeName(c.type)) +
			     (c.perChannel ? " per channel" : " per tensor") +
			     (c.bias ? ", bias" : "") + (c.relu ? ", relu" : ""));
		checkConvCase(c);
	}
}

TEST(QdqFusion, AFusedConvRoundsAsQLinearConvNotAsTheFloatOperators)
{
	/*
	 * A 1x1 convolution by w = 1 with x_scale 0.02, w_scale 0.05 and
	 * y_scale 0.002: QLinearConv's multiplier (0.02 * 0.05) / 0.002 is
	 * exactly 0.5 in float32, so an odd x lands on a tie, which goes to
	 * even; the float operators compute x * 0.02 * 0.05 / 0.002 with its
	 * own roundings and fall on either side. The fused graph must give
	 * QLinearConv's results.
	 */
	const float xScale = 0.02f, wScale = 0.05f, yScale = 0.002f;
	std::vector<int64_t> values;
	for (int64_t v = -128; v <= 127; v++)
		values.push_back(v);
	Tensor xq = intTensor(DataType::Int8, { 1, 1, 1, 256 }, values);
	auto common = [&](ModelBuilder &b) {
		b.input("xq", ::onnx::TensorProto::INT8, { 1, 1, 1, 256 });
		b.initializer("xs", floats({}, { xScale }));
		b.initializer("ws", floats({}, { wScale }));
		b.initializer("ys", floats({}, { yScale }));
		b.initializer("zero", intTensor(DataType::Int8, {}, { 0 }));
		b.initializer("wq", intTensor(DataType::Int8, { 1, 1, 1, 1 }, { 1 }));
		b.output("yq", ::onnx::TensorProto::INT8, { 1, 1, 1, 256 });
	};
	ModelBuilder qdq;
	common(qdq);
	qdq.node("DequantizeLinear", { "xq", "xs", "zero" }, { "x" });
	qdq.node("DequantizeLinear", { "wq", "ws", "zero" }, { "w" });
	qdq.node("Conv", { "x", "w" }, { "c" });
	qdq.node("QuantizeLinear", { "c", "ys", "zero" }, { "yq" });
	ModelBuilder qlinear;
	common(qlinear);
	qlinear.node("QLinearConv", { "xq", "xs", "zero", "wq", "ws", "zero", "ys", "zero" },
		     { "yq" });
	Loaded fused = load(qdq), reference = load(qlinear);
	ASSERT_TRUE(fused.model && reference.model);
	EXPECT_EQ(fused.opTypes, (std::vector<std::string>{ "QLinearConv" }));
	Tensor y = runOne(*fused.model, xq);
	expectSameBytes(y, runOne(*reference.model, xq));

	/* The case tells the two apart: the float operators round some x otherwise. */
	int differing = 0;
	for (int64_t i = 0; i < 256; i++) {
		const float product = (float(values[i]) * xScale) * (1.0f * wScale);
		const float floatPath = std::nearbyint(product / yScale);
		differing += floatPath != float(y.data<int8_t>()[i]);
	}
	EXPECT_GT(differing, 0);
}

TEST(QdqFusion, LeftOutZeroPointsAreZeroOfXsTypeAndOfUint8)
{
	/*
	 * DequantizeLinear without a zero point: 0 of x's type (int8 here, a
	 * graph input); QuantizeLinear without one: uint8 0. QLinearConv takes
	 * both explicitly.
	 */
	ConvCase c;
	c.type = DataType::Int8;
	c.fill();
	ModelBuilder qdq;
	qdq.input("xq", ::onnx::TensorProto::INT8, { 1, 2, 5, 5 });
	qdq.initializer("xs", c.xs);
	qdq.initializer("wq", c.wq);
	qdq.initializer("ws", c.ws);
	qdq.initializer("ys", c.ys);
	qdq.output("yq", ::onnx::TensorProto::UINT8, { 1, 3, 3, 3 });
	qdq.node("DequantizeLinear", { "xq", "xs" }, { "x" });
	qdq.node("DequantizeLinear", { "wq", "ws" }, { "w" });
	setConvAttributes(qdq.node("Conv", { "x", "w" }, { "c" }));
	qdq.node("QuantizeLinear", { "c", "ys" }, { "yq" });

	ModelBuilder qlinear;
	qlinear.input("xq", ::onnx::TensorProto::INT8, { 1, 2, 5, 5 });
	qlinear.initializer("xs", c.xs);
	qlinear.initializer("xz", intTensor(DataType::Int8, {}, { 0 }));
	qlinear.initializer("wq", c.wq);
	qlinear.initializer("ws", c.ws);
	qlinear.initializer("wz", intTensor(DataType::Int8, {}, { 0 }));
	qlinear.initializer("ys", c.ys);
	qlinear.initializer("yz", intTensor(DataType::Uint8, {}, { 0 }));
	qlinear.output("yq", ::onnx::TensorProto::UINT8, { 1, 3, 3, 3 });
	const std::vector<std::string> inputs = { "xq", "xs", "xz", "wq", "ws", "wz", "ys", "yz" };
	setConvAttributes(qlinear.node("QLinearConv", inputs, { "yq" }));

	Loaded fused = load(qdq), reference = load(qlinear);
	ASSERT_TRUE(fused.model && reference.model);
	EXPECT_EQ(fused.opTypes, (std::vector<std::string>{ "QLinearConv" }));
	expectSameBytes(runOne(*fused.model, c.xq), runOne(*reference.model, c.xq));
}

TEST(QdqFusion, TheFusedNodesKeepTheNamesOfTheNodesTheyReplace)
{
	ConvCase c;
	c.relu = true;
	c.fill();
	ModelBuilder qdq = c.qdqModel();
	Loaded fused = load(qdq);
	ASSERT_TRUE(fused.model);
	std::vector<NodeTiming> timings;
	runOne(*fused.model, c.xq, &timings);
	ASSERT_EQ(timings.size(), 2u);
	EXPECT_EQ(timings[0].node, "conv");
	EXPECT_EQ(timings[0].opType, "QLinearConv");
	EXPECT_EQ(timings[1].node, "relu");
	EXPECT_EQ(timings[1].opType, "Max");
}

/* The Conv pattern of @c left as it is: the float Conv and the DequantizeLinear of x run. */
void expectUnfused(ModelBuilder &builder)
{
	Loaded loaded = load(builder);
	ASSERT_TRUE(loaded.model);
	EXPECT_TRUE(contains(loaded.opTypes, "Conv")) << "the Conv was fused";
	EXPECT_TRUE(contains(loaded.opTypes, "DequantizeLinear"));
	EXPECT_FALSE(contains(loaded.opTypes, "QLinearConv"));
}

TEST(QdqFusion, ABiasScaleOtherThanXScaleTimesWScaleIsNotFused)
{
	ConvCase c;
	c.perChannel = true;
	c.bias = true;
	c.fill();
	/* One ulp off for one channel: the float bias is no longer B[m] accumulator steps. */
	c.bs.data<float>()[1] = std::nextafter(c.bs.data<float>()[1], 1.0f);
	ModelBuilder qdq = c.qdqModel();
	expectUnfused(qdq);
}

TEST(QdqFusion, ABiasWithAZeroPointOtherThanZeroIsNotFused)
{
	ConvCase c;
	c.bias = true;
	c.fill();
	ModelBuilder qdq = c.qdqModel();
	qdq.initializer("bz", intTensor(DataType::Int32, { 1 }, { 1 }));
	for (::onnx::NodeProto &node : *qdq.proto().mutable_graph()->mutable_node())
		if (node.output(0) == "b")
			node.add_input("bz");
	expectUnfused(qdq);
}

TEST(QdqFusion, AConvOutputAlsoReadElsewhereIsNotFused)
{
	ConvCase c;
	c.relu = true;
	c.fill();
	ModelBuilder qdq = c.qdqModel();
	qdq.output("n", ::onnx::TensorProto::FLOAT, { 1, 3, 3, 3 });
	qdq.node("Neg", { "c" }, { "n" });
	expectUnfused(qdq);
}

TEST(QdqFusion, AGraphOutputInsideThePatternIsNotFused)
{
	ConvCase c;
	c.relu = true;
	c.fill();
	ModelBuilder qdq = c.qdqModel();
	qdq.output("r", ::onnx::TensorProto::FLOAT, { 1, 3, 3, 3 });
	expectUnfused(qdq);
}

TEST(QdqFusion, APerChannelInputScaleIsNotFused)
{
	ConvCase c;
	c.fill();
	/* One scale and zero point per channel of x (axis 1, the default). */
	c.xs = floats({ 2 }, { 0.0213f, 0.0213f });
	c.xz = intTensor(DataType::Uint8, { 2 }, { 131, 131 });
	ModelBuilder qdq = c.qdqModel();
	expectUnfused(qdq);
}

TEST(QdqFusion, AnAccumulatorThatCouldOverflowInt32IsNotFused)
{
	/*
	 * 130 x 16 x 16 weights of 255 by inputs up to 255: a sum up to
	 * 2.16e9, past int32, which QLinearConv refuses while the float Conv
	 * runs. The pattern must stay, and run.
	 */
	const int64_t channels = 130, side = 16, weights = channels * side * side;
	ModelBuilder b;
	b.input("xq", ::onnx::TensorProto::UINT8, { 1, channels, side, side });
	b.initializer("xs", floats({}, { 1.0f / 1024 }));
	b.initializer("zero", intTensor(DataType::Uint8, {}, { 0 }));
	b.initializer("wq", intTensor(DataType::Uint8, { 1, channels, side, side },
				      std::vector<int64_t>(weights, 255)));
	b.initializer("ws", floats({}, { 1.0f / 1024 }));
	b.initializer("ys", floats({}, { 16.0f }));
	b.output("yq", ::onnx::TensorProto::UINT8, { 1, 1, 1, 1 });
	b.node("DequantizeLinear", { "xq", "xs", "zero" }, { "x" });
	b.node("DequantizeLinear", { "wq", "ws", "zero" }, { "w" });
	b.node("Conv", { "x", "w" }, { "c" });
	b.node("QuantizeLinear", { "c", "ys", "zero" }, { "yq" });
	expectUnfused(b);

	Loaded loaded = load(b);
	ASSERT_TRUE(loaded.model);
	Tensor xq = intTensor(DataType::Uint8, { 1, channels, side, side },
			      std::vector<int64_t>(weights, 255));
	Tensor y = runOne(*loaded.model, xq);
	/* 33280 * 255 * 255 / 2^20 / 16 = 128.99, which rounds to 129. */
	ASSERT_EQ(y.elements(), 1);
	EXPECT_EQ(y.data<uint8_t>()[0], 129);
}

TEST(QdqFusion, AReluBeforeOpset12IsNotFused)
{
	/* Max takes int8 and uint8 from opset 12 only. */
	ConvCase c;
	c.relu = true;
	c.opset = 11;
	c.fill();
	ModelBuilder qdq = c.qdqModel();
	expectUnfused(qdq);
}

TEST(QdqFusion, ADequantizedWeightWithoutAPatternEndsAsAFloatConstant)
{
	/* Weights stored as int8 for a float Conv: folded once, as before the fusion. */
	ConvCase c;
	c.fill();
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 2, 5, 5 });
	b.initializer("wq", c.wq);
	b.initializer("ws", c.ws);
	b.initializer("wz", c.wz);
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 3, 3, 3 });
	b.node("DequantizeLinear", { "wq", "ws", "wz" }, { "w" });
	setConvAttributes(b.node("Conv", { "x", "w" }, { "y" }));
	Loaded loaded = load(b);
	ASSERT_TRUE(loaded.model);
	EXPECT_EQ(loaded.opTypes, (std::vector<std::string>{ "Conv" }));
}

/* --- Rule 2: Gemm ------------------------------------------------------ */

/* A quantised Gemm: A [3, 6], B [6, 4] or transposed [4, 6], C [4] or [1, 4]. */
struct GemmCase {
	DataType type = DataType::Uint8;
	int64_t opset = 13;
	bool transB = true;
	bool perChannel = true;
	/* 0: no C; 1: C [4]; 2: C [1, 4]. */
	int biasRank = 1;
	bool relu = false;

	std::vector<int64_t> a, b, c, bZero;
	std::vector<float> bScale;
	float aScale = 0.031f, yScale = 0.0571f;
	int64_t aZero, yZero;

	void fill();
	ModelBuilder model() const;
	/* The docs' QLinearConv rule on A B + C, computed here. */
	Tensor expected(const Tensor &aq) const;
	int64_t bAt(int64_t k, int64_t m) const { return transB ? b[m * 6 + k] : b[k * 4 + m]; }
};

void GemmCase::fill()
{
	const int64_t low = lowest(type), high = highest(type);
	a = pseudoRandom(18, low, high, 7);
	b = pseudoRandom(24, -90, 90, 8);
	c = { 700, -1500, 3000, -40 };
	bScale = perChannel ? std::vector<float>{ 0.0071f, 0.0113f, 0.0052f, 0.0098f }
			    : std::vector<float>{ 0.0071f };
	bZero = perChannel ? std::vector<int64_t>{ 0, 2, -3, 1 } : std::vector<int64_t>{ 0 };
	aZero = type == DataType::Int8 ? -7 : 125;
	yZero = type == DataType::Int8 ? 4 : 131;
}

ModelBuilder GemmCase::model() const
{
	ModelBuilder builder(opset);
	builder.input("aq", onnxType(type), { 3, 6 });
	builder.initializer("as", floats({}, { aScale }));
	builder.initializer("az", intTensor(type, {}, { aZero }));
	const std::vector<int64_t> bShape = transB ? std::vector<int64_t>{ 4, 6 }
						    : std::vector<int64_t>{ 6, 4 };
	builder.initializer("bq", intTensor(DataType::Int8, bShape, b));
	const std::vector<int64_t> channelShape =
		perChannel ? std::vector<int64_t>{ 4 } : std::vector<int64_t>{};
	builder.initializer("bs", floats(channelShape, bScale));
	builder.initializer("bz", intTensor(DataType::Int8, channelShape, bZero));
	std::vector<float> cScale;
	for (float s : bScale)
		cScale.push_back(aScale * s);
	builder.initializer("cq", intTensor(DataType::Int32,
					    biasRank == 2 ? std::vector<int64_t>{ 1, 4 }
							  : std::vector<int64_t>{ 4 },
					    c));
	builder.initializer("cs", floats({ int64_t(cScale.size()) }, cScale));
	builder.initializer("ys", floats({}, { yScale }));
	builder.initializer("yz", intTensor(type, {}, { yZero }));
	builder.output("yq", onnxType(type), { 3, 4 });
	builder.node("DequantizeLinear", { "aq", "as", "az" }, { "a" });
	/* DequantizeLinear has an axis (for per-channel scales) from opset 13. */
	::onnx::NodeProto &dqB = builder.node("DequantizeLinear", { "bq", "bs", "bz" }, { "b" });
	if (opset >= 13)
		test::setInt(dqB, "axis", transB ? 0 : 1);
	std::vector<std::string> inputs = { "a", "b" };
	if (biasRank) {
		::onnx::NodeProto &dqC = builder.node("DequantizeLinear", { "cq", "cs" }, { "c" });
		if (opset >= 13)
			test::setInt(dqC, "axis", biasRank - 1);
		inputs.push_back("c");
	}
	::onnx::NodeProto &gemm = builder.node("Gemm", inputs, { "g" });
	gemm.set_name("fc");
	test::setInt(gemm, "transB", transB);
	if (relu)
		builder.node("Relu", { "g" }, { "r" });
	builder.node("QuantizeLinear", { relu ? "r" : "g", "ys", "yz" }, { "yq" });
	return builder;
}

Tensor GemmCase::expected(const Tensor &aq) const
{
	Tensor y(type, { 3, 4 });
	for (int64_t n = 0; n < 3; n++)
		for (int64_t m = 0; m < 4; m++) {
			const size_t channel = perChannel ? m : 0;
			int64_t acc = biasRank ? c[m] : 0;
			for (int64_t k = 0; k < 6; k++) {
				int64_t av = type == DataType::Int8 ? aq.data<int8_t>()[n * 6 + k]
								    : aq.data<uint8_t>()[n * 6 + k];
				acc += (av - aZero) * (bAt(k, m) - bZero[channel]);
			}
			/* (x_scale * w_scale) / y_scale, then one float32 product. */
			const float product = aScale * bScale[channel];
			const float multiplier = product / yScale;
			double r = std::nearbyint(double(float(acc) * multiplier)) + double(yZero);
			if (relu)
				r = std::max(r, double(yZero));
			r = std::clamp(r, double(lowest(type)), double(highest(type)));
			if (type == DataType::Int8)
				y.data<int8_t>()[n * 4 + m] = int8_t(r);
			else
				y.data<uint8_t>()[n * 4 + m] = uint8_t(r);
		}
	return y;
}

void checkGemmCase(const GemmCase &g)
{
	ModelBuilder builder = g.model();
	Loaded fused = load(builder);
	ASSERT_TRUE(fused.model);
	EXPECT_FALSE(contains(fused.opTypes, "Gemm"));
	EXPECT_TRUE(contains(fused.opTypes, "QLinearConv"));
	EXPECT_FALSE(contains(fused.opTypes, "DequantizeLinear"));
	Tensor aq = intTensor(g.type, { 3, 6 }, g.a);
	expectSameBytes(runOne(*fused.model, aq), g.expected(aq));
}

TEST(QdqFusion, AGemmPatternComputesA1x1QLinearConvBitForBit)
{
	GemmCase g;
	g.fill();
	for (DataType type : { DataType::Uint8, DataType::Int8 })
		for (bool relu : { false, true }) {
			SCOPED_TRACE(std::string(dataTypeName(type)) + (relu ? ", relu" : ""));
			g.type = type;
			g.relu = relu;
			g.fill();
			checkGemmCase(g);
		}
}

TEST(QdqFusion, AGemmWithAnUntransposedBAndA2DBiasIsFused)
{
	GemmCase g;
	g.transB = false;
	g.biasRank = 2;
	g.fill();
	checkGemmCase(g);
}

TEST(QdqFusion, AGemmBeforeOpset13TakesUnsqueezeAxesAsAnAttribute)
{
	GemmCase g;
	g.opset = 11;
	g.perChannel = false;
	g.biasRank = 0;
	g.transB = false;
	g.type = DataType::Int8;
	g.fill();
	checkGemmCase(g);
}

TEST(QdqFusion, AGemmThatScalesItsProductIsNotFused)
{
	GemmCase g;
	g.fill();
	ModelBuilder builder = g.model();
	for (::onnx::NodeProto &node : *builder.proto().mutable_graph()->mutable_node())
		if (node.op_type() == "Gemm")
			test::setFloat(node, "alpha", 0.5f);
	Loaded loaded = load(builder);
	ASSERT_TRUE(loaded.model);
	EXPECT_TRUE(contains(loaded.opTypes, "Gemm"));
	EXPECT_FALSE(contains(loaded.opTypes, "QLinearConv"));
}

/* --- Rule 3: operators that move values -------------------------------- */

/*
 * DQ -> MaxPool -> Q -> DQ -> Flatten -> Q, with one scale and zero point but
 * for the last Q's zero point, @lastZero.
 */
ModelBuilder poolFlattenModel(DataType type, int64_t lastZero)
{
	ModelBuilder b;
	b.input("xq", onnxType(type), { 1, 2, 4, 4 });
	b.initializer("s", floats({}, { 0.0419f }));
	b.initializer("z", intTensor(type, {}, { type == DataType::Int8 ? -9 : 17 }));
	b.initializer("z2", intTensor(type, {}, { lastZero }));
	b.output("yq", onnxType(type), { 1, 8 });
	b.node("DequantizeLinear", { "xq", "s", "z" }, { "x" });
	::onnx::NodeProto &pool = b.node("MaxPool", { "x" }, { "p" });
	test::setInts(pool, "kernel_shape", { 2, 2 });
	test::setInts(pool, "strides", { 2, 2 });
	b.node("QuantizeLinear", { "p", "s", "z" }, { "pq" });
	b.node("DequantizeLinear", { "pq", "s", "z" }, { "pdq" });
	b.node("Flatten", { "pdq" }, { "f" });
	b.node("QuantizeLinear", { "f", "s", "z2" }, { "yq" });
	return b;
}

TEST(QdqFusion, MaxPoolAndFlattenBetweenIdenticalQdqRunOnTheIntegers)
{
	for (DataType type : { DataType::Uint8, DataType::Int8 }) {
		SCOPED_TRACE(dataTypeName(type));
		ModelBuilder qdq = poolFlattenModel(type, type == DataType::Int8 ? -9 : 17);
		Loaded fused = load(qdq);
		ASSERT_TRUE(fused.model);
		EXPECT_EQ(fused.opTypes, (std::vector<std::string>{ "Flatten", "MaxPool" }));

		ModelBuilder b;
		b.input("xq", onnxType(type), { 1, 2, 4, 4 });
		b.output("yq", onnxType(type), { 1, 8 });
		::onnx::NodeProto &pool = b.node("MaxPool", { "xq" }, { "p" });
		test::setInts(pool, "kernel_shape", { 2, 2 });
		test::setInts(pool, "strides", { 2, 2 });
		b.node("Flatten", { "p" }, { "yq" });
		Loaded reference = load(b);
		ASSERT_TRUE(reference.model);

		Tensor xq = intTensor(type, { 1, 2, 4, 4 },
				      pseudoRandom(32, lowest(type), highest(type), 5));
		expectSameBytes(runOne(*fused.model, xq), runOne(*reference.model, xq));
	}
}

TEST(QdqFusion, AnotherZeroPointAfterTheOperatorIsNotFused)
{
	ModelBuilder qdq = poolFlattenModel(DataType::Uint8, 18);
	Loaded loaded = load(qdq);
	ASSERT_TRUE(loaded.model);
	/* MaxPool runs on the integers; the Flatten's Q shifts them, so it stays. */
	EXPECT_EQ(loaded.opTypes, (std::vector<std::string>{ "DequantizeLinear", "Flatten",
							      "MaxPool", "QuantizeLinear" }));
}

} /* namespace */
} /* namespace vdla::onnx */

namespace vdla::onnx {
namespace {

/* --- Rule 4: Add ------------------------------------------------------- */

/*
 * DQ(a) [1, 3, 4, 4] + DQ(b) [1, 3, 1, 1] -> [Relu] -> Q, with scales
 * whose ratios are not exact in float32, or @b of another type.
 */
ModelBuilder addModel(DataType type, bool relu, DataType bType)
{
	ModelBuilder b;
	b.input("aq", onnxType(type), { 1, 3, 4, 4 });
	b.input("bq", onnxType(bType), { 1, 3, 1, 1 });
	b.initializer("as", floats({}, { 0.1f }));
	b.initializer("az", intTensor(type, {}, { type == DataType::Int8 ? 127 : 255 }));
	b.initializer("bs", floats({}, { 0.3f }));
	b.initializer("bz", intTensor(bType, {}, { bType == DataType::Int8 ? -128 : 0 }));
	b.initializer("ys", floats({}, { 1.0f }));
	b.initializer("yz", intTensor(type, {}, { type == DataType::Int8 ? 3 : 131 }));
	b.output("yq", onnxType(type), { 1, 3, 4, 4 });
	b.node("DequantizeLinear", { "aq", "as", "az" }, { "a" });
	b.node("DequantizeLinear", { "bq", "bs", "bz" }, { "b" });
	b.node("Add", { "a", "b" }, { "sum" }).set_name("add");
	if (relu) {
		b.node("Relu", { "sum" }, { "r" }).set_name("relu");
		b.node("QuantizeLinear", { "r", "ys", "yz" }, { "yq" });
	} else {
		b.node("QuantizeLinear", { "sum", "ys", "yz" }, { "yq" });
	}
	return b;
}

TEST(QdqFusion, AnAddPatternComputesQLinearAddsRule)
{
	for (DataType type : { DataType::Int8, DataType::Uint8 }) {
		for (bool relu : { false, true }) {
			SCOPED_TRACE(std::string(dataTypeName(type)) + (relu ? " relu" : ""));
			ModelBuilder qdq = addModel(type, relu, type);
			Loaded fused = load(qdq);
			ASSERT_TRUE(fused.model);
			EXPECT_TRUE(contains(fused.opTypes, "QLinearAdd"));
			EXPECT_EQ(contains(fused.opTypes, "Max"), relu);
			EXPECT_FALSE(contains(fused.opTypes, "DequantizeLinear"));

			const int64_t low = lowest(type), high = highest(type);
			Tensor aq = intTensor(type, { 1, 3, 4, 4 }, pseudoRandom(48, low, high, 3));
			/* The ends, where d = a - za is -255 (int8) or 255 - 255 = 0 (uint8). */
			Tensor bq = intTensor(type, { 1, 3, 1, 1 }, { low, high, (low + high) / 2 });
			auto out = fused.model->run({ aq, bq }, Target::Cpu);
			ASSERT_TRUE(out) << out.error().message();
			const Tensor &y = (*out)[0];
			const int32_t az = type == DataType::Int8 ? 127 : 255;
			const int32_t bz = type == DataType::Int8 ? -128 : 0;
			const int32_t yz = type == DataType::Int8 ? 3 : 131;
			auto at = [type](const Tensor &t, int64_t i) -> int32_t {
				return type == DataType::Int8 ? t.data<int8_t>()[i]
							      : t.data<uint8_t>()[i];
			};
			int differences = 0;
			for (int64_t i = 0; i < 48; i++) {
				/* The rule: float32 steps, multipliers scale over output scale. */
				volatile float x = float(at(aq, i) - az) * (0.1f / 1.0f);
				volatile float z = float(at(bq, i / 16) - bz) * (0.3f / 1.0f);
				volatile float v = x + z;
				if (relu)
					v = std::max(float(v), 0.0f);
				const int64_t want = std::clamp<int64_t>(
					int64_t(std::nearbyint(v)) + yz, low, high);
				ASSERT_EQ(at(y, i), want) << "element " << i;
				/* The unfused float graph: within one step. */
				volatile float da = float(at(aq, i) - az) * 0.1f;
				volatile float db = float(at(bq, i / 16) - bz) * 0.3f;
				volatile float sum = da + db;
				const float real = relu ? std::max(float(sum), 0.0f) : float(sum);
				const int64_t unfused = std::clamp<int64_t>(
					int64_t(std::nearbyint(real / 1.0f)) + yz, low, high);
				EXPECT_LE(std::abs(unfused - want), 1);
				differences += unfused != want;
			}
			EXPECT_EQ(differences, 0) << "scale 1: the multipliers are the scales";
		}
	}
}

TEST(QdqFusion, AnAddOfOperandsOfTwoTypesIsNotFused)
{
	ModelBuilder qdq = addModel(DataType::Int8, false, DataType::Uint8);
	Loaded loaded = load(qdq);
	ASSERT_TRUE(loaded.model);
	EXPECT_TRUE(contains(loaded.opTypes, "Add"));
	EXPECT_FALSE(contains(loaded.opTypes, "QLinearAdd"));
}

} /* namespace */
} /* namespace vdla::onnx */
