/* SPDX-License-Identifier: MIT */
/*
 * QLinearConv on the vDLA, in the guest (docs/onnx.md, "INT8 on the DLA"):
 * every output byte equal to the CPU kernel's, which implements ONNX's
 * integer rules (docs/onnx.md, "Quantisation"), over int8 and uint8,
 * per-tensor and per-channel weights, padding on each side, strides,
 * dilations, groups, the Relu of a fused QDQ model, values on rounding
 * ties, and accumulators past the DLA's exact float conversion.
 */

#include <vdla/onnx.h>

#include "../../host/onnx/model_builder.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>

namespace vdla::onnx {
namespace {

struct QuantConvCase {
	const char *name;
	DataType xType, wType, yType;
	int64_t n, c, h, w, m, kh, kw, group;
	std::vector<int64_t> pads, strides, dilations;
	bool perChannel, bias, relu;
	float xScale, yScale;
	/* Weight scale per channel: wScale * (1 + m / 8) when perChannel. */
	float wScale;
	int32_t xZero, wZero, yZero;
	/* Inputs and weights at the ends of their range (large accumulators). */
	bool extreme;
};

std::ostream &operator<<(std::ostream &os, const QuantConvCase &c)
{
	return os << c.name;
}

int32_t lowest(DataType type)
{
	return type == DataType::Uint8 ? 0 : -128;
}

/* A tensor of @type with integer values uniform in [lo, hi]. */
Tensor integers(DataType type, std::vector<int64_t> shape, int32_t lo, int32_t hi,
		std::mt19937 &random)
{
	Tensor t(type, std::move(shape));
	std::uniform_int_distribution<int32_t> value(lo, hi);
	for (int64_t i = 0; i < t.elements(); i++) {
		const int32_t v = value(random);
		if (type == DataType::Int32)
			t.data<int32_t>()[i] = v;
		else
			static_cast<uint8_t *>(t.raw())[i] = uint8_t(v);
	}
	return t;
}

Tensor scalar(DataType type, int32_t value)
{
	Tensor t(type, {});
	if (type == DataType::Float)
		t.data<float>()[0] = float(value);
	else
		static_cast<uint8_t *>(t.raw())[0] = uint8_t(value);
	return t;
}

/* The model of @c: QLinearConv, and Max(y, y_zero_point) for a Relu. */
std::string buildModel(const QuantConvCase &c, test::ModelBuilder &b)
{
	std::mt19937 random(std::hash<std::string>()(c.name));
	const int64_t perGroup = c.c / c.group;
	b.input("x", int32_t(c.xType), { c.n, c.c, c.h, c.w });
	b.output("y", int32_t(c.yType), {});

	const int32_t wLow = std::max(lowest(c.wType), c.wZero - 128);
	const int32_t wHigh = std::min(lowest(c.wType) + 255, c.wZero + 127);
	Tensor w = c.extreme ? integers(c.wType, { c.m, perGroup, c.kh, c.kw }, wHigh, wHigh, random)
			     : integers(c.wType, { c.m, perGroup, c.kh, c.kw }, wLow, wHigh, random);
	b.initializer("w", w);
	Tensor wScale(DataType::Float, { c.perChannel ? c.m : 1 });
	for (int64_t i = 0; i < wScale.elements(); i++)
		wScale.data<float>()[i] = c.wScale * (1.0f + float(i) / 8.0f);
	b.initializer("w_scale", wScale);
	Tensor wZero(c.wType, { c.perChannel ? c.m : 1 });
	for (int64_t i = 0; i < wZero.elements(); i++)
		static_cast<uint8_t *>(wZero.raw())[i] = uint8_t(c.wZero);
	b.initializer("w_zero", wZero);
	Tensor xScale(DataType::Float, {});
	xScale.data<float>()[0] = c.xScale;
	b.initializer("x_scale", xScale);
	b.initializer("x_zero", scalar(c.xType, c.xZero));
	Tensor yScale(DataType::Float, {});
	yScale.data<float>()[0] = c.yScale;
	b.initializer("y_scale", yScale);
	b.initializer("y_zero", scalar(c.yType, c.yZero));
	std::vector<std::string> inputs = { "x", "x_scale", "x_zero", "w", "w_scale",
					    "w_zero", "y_scale", "y_zero" };
	if (c.bias) {
		b.initializer("b", integers(DataType::Int32, { c.m }, -5000, 5000, random));
		inputs.push_back("b");
	}
	auto &conv = b.node("QLinearConv", inputs, { c.relu ? "conv" : "y" });
	conv.set_name("qconv");
	test::setInt(conv, "group", c.group);
	test::setInts(conv, "kernel_shape", { c.kh, c.kw });
	test::setInts(conv, "pads", c.pads);
	test::setInts(conv, "strides", c.strides);
	test::setInts(conv, "dilations", c.dilations);
	if (c.relu)
		b.node("Max", { "conv", "y_zero" }, { "y" });
	return "x";
}

Tensor inputOf(const QuantConvCase &c)
{
	std::mt19937 random(std::hash<std::string>()(c.name) + 1);
	const int32_t lo = lowest(c.xType);
	return c.extreme ? integers(c.xType, { c.n, c.c, c.h, c.w }, lo + 255, lo + 255, random)
			 : integers(c.xType, { c.n, c.c, c.h, c.w }, lo, lo + 255, random);
}

/* How many of @c's 1x1, one-channel products x * w fall on a tie of the
 * multiplier 2^-7 (an accumulator of 64 modulo 128). */
int tiesOf(const QuantConvCase &c, const Tensor &x)
{
	test::ModelBuilder b(13);
	buildModel(c, b);
	Tensor w;
	for (const auto &init : b.proto().graph().initializer())
		if (init.name() == "w") {
			auto t = test::readTensorProto(init);
			if (t)
				w = *t;
		}
	auto value = [](const Tensor &t, int64_t i, int32_t zero) {
		const uint8_t byte = static_cast<const uint8_t *>(t.raw())[i];
		return (t.type() == DataType::Uint8 ? int32_t(byte) : int32_t(int8_t(byte))) - zero;
	};
	int ties = 0;
	for (int64_t o = 0; o < c.m; o++)
		for (int64_t i = 0; i < x.elements(); i++) {
			const int32_t acc = value(x, i, c.xZero) * value(w, o, c.wZero);
			ties += ((acc % 128) + 128) % 128 == 64;
		}
	return ties;
}

class QuantConvOnTheDla : public testing::TestWithParam<QuantConvCase>
{
};

TEST_P(QuantConvOnTheDla, EveryByteIsTheCpuKernels)
{
	const QuantConvCase &c = GetParam();
	test::ModelBuilder builder(13);
	buildModel(c, builder);
	test::SavedModel file(builder);
	auto model = Model::load(file.path);
	ASSERT_TRUE(model) << model.error().message();
	Tensor x = inputOf(c);
	std::vector<NodeTiming> timings;
	auto dla = (*model)->run({ x }, Target::Dla, &timings);
	ASSERT_TRUE(dla) << dla.error().message();
	auto cpu = (*model)->run({ x }, Target::Cpu);
	ASSERT_TRUE(cpu) << cpu.error().message();
	for (const NodeTiming &t : timings)
		EXPECT_EQ(t.target, Target::Dla) << t.node;
	const Tensor &got = (*dla)[0], &want = (*cpu)[0];
	ASSERT_EQ(got.type(), c.yType);
	ASSERT_EQ(got.shape(), want.shape());
	const uint8_t *g = static_cast<const uint8_t *>(got.raw());
	const uint8_t *e = static_cast<const uint8_t *>(want.raw());
	int64_t differing = 0, first = -1;
	for (int64_t i = 0; i < got.elements(); i++)
		if (g[i] != e[i] && differing++ == 0)
			first = i;
	EXPECT_EQ(differing, 0) << "of " << got.elements() << ", first at " << first << ": DLA "
				<< int(g[first]) << ", CPU " << int(e[first]);
	/* The tie cases hold ties: outputs whose exact value is k + 1/2. */
	if (std::string(c.name).find("Ties") != std::string::npos) {
		EXPECT_GE(tiesOf(c, x), 3) << "too few ties to test their rounding";
	}
	/* The case exercises something: not every output saturated or zero. */
	if (!c.extreme) {
		int64_t distinct = 0;
		bool seen[256] = {};
		for (int64_t i = 0; i < want.elements(); i++) {
			distinct += !seen[e[i]];
			seen[e[i]] = true;
		}
		EXPECT_GE(distinct, 8) << "a degenerate case";
	}
}

const DataType I8 = DataType::Int8, U8 = DataType::Uint8;

INSTANTIATE_TEST_SUITE_P(
	Onnx, QuantConvOnTheDla,
	testing::Values(
		QuantConvCase{ "Int8PerChannelBias", I8, I8, I8, 1, 8, 9, 9, 16, 3, 3, 1,
			       { 1, 1, 1, 1 }, { 1, 1 }, { 1, 1 }, true, true, false, 0.02f,
			       0.05f, 0.004f, -3, 0, 5, false },
		QuantConvCase{ "Uint8PerTensorZeroPoints", U8, U8, U8, 2, 3, 7, 8, 5, 3, 2, 1,
			       { 0, 0, 0, 0 }, { 1, 1 }, { 1, 1 }, false, true, false, 0.03f,
			       0.2f, 0.01f, 131, 118, 120, false },
		QuantConvCase{ "Uint8InInt8WeightsInt8Out", U8, I8, I8, 1, 4, 6, 6, 4, 3, 3, 1,
			       { 1, 0, 2, 1 }, { 1, 1 }, { 1, 1 }, true, false, false, 0.05f,
			       0.1f, 0.01f, 17, 0, -7, false },
		QuantConvCase{ "AsymmetricPadsStridesDilations", I8, I8, I8, 1, 5, 13, 11, 6, 3,
			       2, 1, { 0, 2, 1, 1 }, { 2, 1 }, { 2, 3 }, true, true, false,
			       0.02f, 0.08f, 0.005f, 10, 0, -1, false },
		QuantConvCase{ "Depthwise", I8, I8, I8, 1, 8, 10, 10, 8, 3, 3, 8, { 1, 1, 1, 1 },
			       { 2, 2 }, { 1, 1 }, true, true, false, 0.02f, 0.03f, 0.01f, 0, 0,
			       2, false },
		QuantConvCase{ "Grouped", U8, U8, U8, 1, 4, 5, 7, 6, 2, 3, 2, { 1, 0, 0, 1 },
			       { 1, 2 }, { 1, 1 }, false, true, false, 0.04f, 0.3f, 0.02f, 128,
			       140, 100, false },
		/* Multiplier 2^-7 on products x * w: one accumulator in 128 is a
		 * tie, and the odd output zero point shows that rounding comes
		 * before it. */
		QuantConvCase{ "TiesGoToEven", I8, I8, I8, 1, 1, 32, 32, 2, 1, 1, 1,
			       { 0, 0, 0, 0 }, { 1, 1 }, { 1, 1 }, false, false, false, 0.0625f,
			       1.0f, 0.125f, 0, 0, 3, false },
		QuantConvCase{ "UnsignedTiesGoToEven", U8, U8, U8, 1, 1, 32, 32, 2, 1, 1, 1,
			       { 0, 0, 0, 0 }, { 1, 1 }, { 1, 1 }, false, false, false, 0.0625f,
			       1.0f, 0.125f, 128, 128, 127, false },
		QuantConvCase{ "ReluOfAFusedQdqModel", I8, I8, I8, 1, 6, 8, 8, 8, 3, 3, 1,
			       { 1, 1, 1, 1 }, { 1, 1 }, { 1, 1 }, true, true, true, 0.02f, 0.04f,
			       0.005f, 4, 0, -20, false },
		QuantConvCase{ "UnsignedRelu", U8, I8, U8, 1, 6, 8, 8, 8, 3, 3, 1,
			       { 1, 1, 1, 1 }, { 1, 1 }, { 1, 1 }, true, false, true, 0.02f, 0.05f,
			       0.006f, 120, 0, 9, false },
		/* Accumulators of 18.7 million, beyond 2^22: the DLA's clip, where
		 * the output saturates on both sides. */
		QuantConvCase{ "AccumulatorsPastTheExactRange", I8, I8, I8, 1, 64, 4, 4, 4, 3, 3,
			       1, { 0, 0, 0, 0 }, { 1, 1 }, { 1, 1 }, false, false, false, 0.01f,
			       1.0f, 0.1f, -128, 0, 0, true },
		/* Accumulators of 903 million: 0x4B400000 plus one would pass
		 * INT32's limit, and its saturated bits are a NaN, whose
		 * conversion gives 0; the clip at 2^22 keeps them 127. */
		QuantConvCase{ "AccumulatorsNearTheInt32Limit", I8, I8, I8, 1, 3100, 3, 3, 2, 3,
			       3, 1, { 0, 0, 0, 0 }, { 1, 1 }, { 1, 1 }, false, false, false,
			       0.01f, 1.0f, 0.1f, -128, 0, 0, true }),
	[](const testing::TestParamInfo<QuantConvCase> &info) { return info.param.name; });

TEST(QuantConvOnTheDla, AnAccumulatorTheDlaCannotConvertStaysOnTheCpu)
{
	/*
	 * Accumulators of 9.3 million times a multiplier of 1e-5: outputs of
	 * 93, where the DLA's clip at 2^22 would give 42. --target dla says
	 * why; any runs it on the CPU.
	 */
	QuantConvCase c{ "Refused", I8, I8, I8, 1, 64, 4, 4, 4, 3, 3, 1, { 0, 0, 0, 0 },
			 { 1, 1 }, { 1, 1 }, false, false, false, 0.01f, 1.0f, 0.001f, 0, 0, 0,
			 true };
	test::ModelBuilder builder(13);
	buildModel(c, builder);
	test::SavedModel file(builder);
	auto model = Model::load(file.path);
	ASSERT_TRUE(model) << model.error().message();
	Tensor x = inputOf(c);
	auto dla = (*model)->run({ x }, Target::Dla);
	ASSERT_FALSE(dla);
	EXPECT_EQ(dla.error().code(), ENOTSUP) << dla.error().message();
	EXPECT_NE(dla.error().reason().find("2^22"), std::string::npos) << dla.error().reason();
	std::vector<NodeTiming> timings;
	auto any = (*model)->run({ x }, Target::Any, &timings);
	ASSERT_TRUE(any) << any.error().message();
	auto cpu = (*model)->run({ x }, Target::Cpu);
	ASSERT_TRUE(cpu) << cpu.error().message();
	EXPECT_EQ(std::memcmp((*any)[0].raw(), (*cpu)[0].raw(), (*cpu)[0].elements()), 0);
	EXPECT_EQ(static_cast<const int8_t *>((*cpu)[0].raw())[0], 93);
	for (const NodeTiming &t : timings)
		EXPECT_EQ(t.target, Target::Cpu) << t.node;
}

TEST(QuantConvOnTheDla, AReluWrittenMaxOfTheZeroPointAndTheOutputIsTakenToo)
{
	/* Max is commutative: Max(y_zero_point, y) is the same Relu. */
	QuantConvCase c{ "ReluTheOtherWayRound", I8, I8, I8, 1, 6, 8, 8, 8, 3, 3, 1,
			 { 1, 1, 1, 1 }, { 1, 1 }, { 1, 1 }, true, true, true, 0.02f, 0.04f,
			 0.005f, 4, 0, -20, false };
	test::ModelBuilder builder(13);
	buildModel(c, builder);
	auto *graph = builder.proto().mutable_graph();
	auto *max = graph->mutable_node(graph->node_size() - 1);
	ASSERT_EQ(max->op_type(), "Max");
	max->set_input(0, "y_zero");
	max->set_input(1, "conv");
	test::SavedModel file(builder);
	auto model = Model::load(file.path);
	ASSERT_TRUE(model) << model.error().message();
	Tensor x = inputOf(c);
	std::vector<NodeTiming> timings;
	auto dla = (*model)->run({ x }, Target::Dla, &timings);
	ASSERT_TRUE(dla) << dla.error().message();
	auto cpu = (*model)->run({ x }, Target::Cpu);
	ASSERT_TRUE(cpu) << cpu.error().message();
	EXPECT_EQ(std::memcmp((*dla)[0].raw(), (*cpu)[0].raw(), (*cpu)[0].elements()), 0);
}

TEST(QuantConvOnTheDla, AConvolutionTheDlaCannotConvertStaysOnTheCpuAlone)
{
	/*
	 * The refused convolution of the test above, then an int8 MaxPool: the
	 * plan keeps the convolution on the CPU and runs the pool on the DLA,
	 * rather than a segment of both failing to verify and going to the
	 * CPU whole.
	 */
	QuantConvCase c{ "RefusedThenPooled", I8, I8, I8, 1, 64, 4, 4, 4, 3, 3, 1, { 0, 0, 0, 0 },
			 { 1, 1 }, { 1, 1 }, false, false, false, 0.01f, 1.0f, 0.001f, 0, 0, 0,
			 true };
	test::ModelBuilder builder(13);
	buildModel(c, builder);
	builder.proto().mutable_graph()->mutable_node(0)->set_output(0, "conv");
	auto &pool = builder.node("MaxPool", { "conv" }, { "y" });
	pool.set_name("pool");
	test::setInts(pool, "kernel_shape", { 2, 2 });
	test::SavedModel file(builder);
	auto model = Model::load(file.path);
	ASSERT_TRUE(model) << model.error().message();
	Tensor x = inputOf(c);
	std::vector<NodeTiming> timings;
	auto any = (*model)->run({ x }, Target::Any, &timings);
	ASSERT_TRUE(any) << any.error().message();
	auto cpu = (*model)->run({ x }, Target::Cpu);
	ASSERT_TRUE(cpu) << cpu.error().message();
	EXPECT_EQ(std::memcmp((*any)[0].raw(), (*cpu)[0].raw(), (*cpu)[0].elements()), 0);
	bool convOnCpu = false, poolOnDla = false;
	for (const NodeTiming &t : timings) {
		convOnCpu = convOnCpu || (t.node == "qconv" && t.target == Target::Cpu);
		poolOnDla = poolOnDla || (t.node == "pool" && t.target == Target::Dla);
	}
	EXPECT_TRUE(convOnCpu);
	EXPECT_TRUE(poolOnDla);
}

TEST(QuantMatMulOnTheDla, IsAOneByOneConvolutionBitForBit)
{
	/*
	 * QLinearMatMul of A [3, 2, 20] (its rows [6, 20]) by a constant B
	 * [20, 7], b_scale per column, int8 and uint8: QLinearConv's
	 * requantisation, so the DLA's 1x1 convolution over [6, 20, 1, 1].
	 * The uint8 B spans 0 to 255 around a zero point of 114: w - 114
	 * passes int8, and the DLA splits it into two INT8 convolutions.
	 */
	for (DataType type : { I8, U8 }) {
		const bool u8 = type == U8;
		const int32_t onnxType = u8 ? ::onnx::TensorProto::UINT8 : ::onnx::TensorProto::INT8;
		const int32_t offset = u8 ? 128 : 0;
		test::ModelBuilder b(13);
		b.input("a", onnxType, { 3, 2, 20 });
		b.output("y", onnxType, { 3, 2, 7 });
		std::mt19937 random(7);
		std::uniform_int_distribution<int> value(u8 ? 0 : -100, u8 ? 255 : 100);
		std::vector<int64_t> bValues(20 * 7);
		for (int64_t &v : bValues)
			v = value(random);
		b.initializer("b", test::intTensor(type, { 20, 7 }, bValues));
		std::vector<float> columnScales;
		for (int j = 0; j < 7; j++)
			columnScales.push_back(0.01f * float(j + 1));
		b.initializer("b_scale", test::floatTensor({ 7 }, columnScales));
		b.initializer("b_zero", test::intTensor(type, {}, { u8 ? 114 : 0 }));
		b.initializer("a_scale", test::floatTensor({}, { 0.05f }));
		b.initializer("a_zero", test::intTensor(type, {}, { offset + 3 }));
		b.initializer("y_scale", test::floatTensor({}, { 0.4f }));
		b.initializer("y_zero", test::intTensor(type, {}, { offset - 5 }));
		b.node("QLinearMatMul",
		       { "a", "a_scale", "a_zero", "b", "b_scale", "b_zero", "y_scale", "y_zero" },
		       { "y" });
		test::SavedModel file(b);
		auto model = Model::load(file.path);
		ASSERT_TRUE(model) << model.error().message();
		Tensor a(type, { 3, 2, 20 });
		uint8_t *bytes = static_cast<uint8_t *>(a.raw());
		for (int i = 0; i < 120; i++)
			bytes[i] = uint8_t(i * 53 + 7);
		std::vector<NodeTiming> timings;
		auto dla = (*model)->run({ a }, Target::Dla, &timings);
		ASSERT_TRUE(dla) << dla.error().message();
		auto cpu = (*model)->run({ a }, Target::Cpu);
		ASSERT_TRUE(cpu) << cpu.error().message();
		ASSERT_EQ((*dla)[0].shape(), (*cpu)[0].shape());
		EXPECT_EQ(std::memcmp((*dla)[0].raw(), (*cpu)[0].raw(), 42), 0)
			<< (u8 ? "uint8" : "int8");
		/* Not all saturated: the outputs spread. */
		std::set<uint8_t> distinct(static_cast<const uint8_t *>((*cpu)[0].raw()),
					   static_cast<const uint8_t *>((*cpu)[0].raw()) + 42);
		EXPECT_GT(distinct.size(), 10u);
	}
}

/*
 * ConvInteger and MatMulInteger: the int32 sums of the same convolution,
 * without requantisation, every int32 equal to the CPU's. uint8 x and
 * uint8 weights spanning 0 to 255 around zero point 114 (w - 114 beyond
 * int8, two INT8 convolutions), per output channel; int8 with padding.
 */
TEST(IntegerSumsOnTheDla, ConvIntegerAndMatMulIntegerAreTheCpusInt32)
{
	for (DataType type : { I8, U8 }) {
		const bool u8 = type == U8;
		const int32_t onnxType = u8 ? ::onnx::TensorProto::UINT8 : ::onnx::TensorProto::INT8;
		test::ModelBuilder b(13);
		b.input("x", onnxType, { 1, 3, 7, 6 });
		b.input("a", onnxType, { 4, 12 });
		b.output("conv", ::onnx::TensorProto::INT32, { 1, 5, 7, 6 });
		b.output("product", ::onnx::TensorProto::INT32, { 4, 9 });
		std::mt19937 random(11);
		std::uniform_int_distribution<int> value(u8 ? 0 : -128, u8 ? 255 : 127);
		std::vector<int64_t> w(5 * 3 * 3 * 3), bMatrix(12 * 9), wZeros;
		for (int64_t &v : w)
			v = value(random);
		for (int64_t &v : bMatrix)
			v = value(random);
		for (int m = 0; m < 5; m++)
			wZeros.push_back(u8 ? 114 + m : m - 2);
		b.initializer("w", test::intTensor(type, { 5, 3, 3, 3 }, w));
		b.initializer("w_zero", test::intTensor(type, { 5 }, wZeros));
		b.initializer("x_zero", test::intTensor(type, {}, { u8 ? 131 : -7 }));
		b.initializer("b", test::intTensor(type, { 12, 9 }, bMatrix));
		b.initializer("b_zero", test::intTensor(type, {}, { u8 ? 114 : 3 }));
		::onnx::NodeProto &conv = b.node("ConvInteger", { "x", "w", "x_zero", "w_zero" },
						 { "conv" });
		test::setInts(conv, "pads", { 1, 1, 1, 1 });
		b.node("MatMulInteger", { "a", "b", "x_zero", "b_zero" }, { "product" });
		test::SavedModel file(b);
		auto model = Model::load(file.path);
		ASSERT_TRUE(model) << model.error().message();
		Tensor x(type, { 1, 3, 7, 6 }), a(type, { 4, 12 });
		for (int i = 0; i < 126; i++)
			static_cast<uint8_t *>(x.raw())[i] = uint8_t(i * 53 + 7);
		for (int i = 0; i < 48; i++)
			static_cast<uint8_t *>(a.raw())[i] = uint8_t(i * 97 + 1);
		std::vector<NodeTiming> timings;
		auto dla = (*model)->run({ x, a }, Target::Dla, &timings);
		ASSERT_TRUE(dla) << dla.error().message();
		for (const NodeTiming &t : timings)
			EXPECT_EQ(t.target, Target::Dla) << t.node;
		auto cpu = (*model)->run({ x, a }, Target::Cpu);
		ASSERT_TRUE(cpu) << cpu.error().message();
		for (size_t i = 0; i < 2; i++) {
			ASSERT_EQ((*dla)[i].type(), DataType::Int32);
			ASSERT_EQ((*dla)[i].shape(), (*cpu)[i].shape());
			EXPECT_EQ(std::memcmp((*dla)[i].raw(), (*cpu)[i].raw(), (*cpu)[i].bytes()), 0)
				<< (u8 ? "uint8 " : "int8 ") << i;
		}
	}
}

/*
 * DequantizeLinear on the SDP: every float equal to the CPU's, int8 and
 * uint8, per tensor (a left-out zero point too) and per axis (axis 1 of
 * [N, C, H, W], and axis 2 of a 3-D x, read as [N, C, 1, W]).
 */
TEST(DequantizeOnTheDla, EveryFloatIsTheCpus)
{
	for (DataType type : { I8, U8 }) {
		const bool u8 = type == U8;
		const int32_t onnxType = u8 ? ::onnx::TensorProto::UINT8 : ::onnx::TensorProto::INT8;
		test::ModelBuilder b(13);
		b.input("x", onnxType, { 1, 3, 4, 5 });
		b.input("t", onnxType, { 2, 3, 6 });
		b.output("plain", ::onnx::TensorProto::FLOAT, { 1, 3, 4, 5 });
		b.output("noZero", ::onnx::TensorProto::FLOAT, { 1, 3, 4, 5 });
		b.output("channels", ::onnx::TensorProto::FLOAT, { 1, 3, 4, 5 });
		b.output("lastAxis", ::onnx::TensorProto::FLOAT, { 2, 3, 6 });
		b.initializer("s", test::floatTensor({}, { 0.0371f }));
		b.initializer("z", test::intTensor(type, {}, { u8 ? 131 : -7 }));
		b.initializer("cs", test::floatTensor({ 3 }, { 0.1f, 0.3f, 1.7f }));
		b.initializer("cz", test::intTensor(type, { 3 }, { u8 ? 0 : -128, u8 ? 255 : 127, 9 }));
		b.initializer("ls", test::floatTensor({ 6 }, { 1e-3f, 0.2f, 0.33f, 5, 7.1f, 0.5f }));
		b.node("DequantizeLinear", { "x", "s", "z" }, { "plain" });
		b.node("DequantizeLinear", { "x", "s" }, { "noZero" });
		b.node("DequantizeLinear", { "x", "cs", "cz" }, { "channels" });
		test::setInt(b.node("DequantizeLinear", { "t", "ls" }, { "lastAxis" }), "axis", 2);
		test::SavedModel file(b);
		auto model = Model::load(file.path);
		ASSERT_TRUE(model) << model.error().message();
		Tensor x(type, { 1, 3, 4, 5 }), t(type, { 2, 3, 6 });
		for (int i = 0; i < 60; i++)
			static_cast<uint8_t *>(x.raw())[i] = uint8_t(i * 89 + 3);
		for (int i = 0; i < 36; i++)
			static_cast<uint8_t *>(t.raw())[i] = uint8_t(i * 53 + 128);
		std::vector<NodeTiming> timings;
		auto dla = (*model)->run({ x, t }, Target::Dla, &timings);
		ASSERT_TRUE(dla) << dla.error().message();
		auto cpu = (*model)->run({ x, t }, Target::Cpu);
		ASSERT_TRUE(cpu) << cpu.error().message();
		for (size_t i = 0; i < 4; i++)
			EXPECT_EQ(std::memcmp((*dla)[i].raw(), (*cpu)[i].raw(), (*cpu)[i].bytes()), 0)
				<< (u8 ? "uint8 " : "int8 ") << i;
	}
}

} /* namespace */
} /* namespace vdla::onnx */
