/* SPDX-License-Identifier: MIT */
/*
 * Hostile models: attributes and shapes chosen to overflow, divide by zero,
 * read past a buffer, allocate without bound or loop for hours. Each must be
 * refused cleanly (an errno and a reason naming the node and the attribute)
 * or give the right result, and quickly.
 */

#include "model_builder.h"

#include <vdla/onnx.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

namespace vdla::onnx {
namespace {

using test::floatTensor;
using test::int64Tensor;
using test::ModelBuilder;
using test::readTensorProto;
using test::SavedModel;
using test::setFloat;
using test::setInt;
using test::setInts;
using test::setString;

/*
 * While it lives, the process may map at most `extra` bytes more than it
 * has: an allocation the code under test should not make fails (bad_alloc)
 * rather than taking the machine's memory.
 */
class AddressSpaceLimit
{
public:
	explicit AddressSpaceLimit(uint64_t extra)
	{
		getrlimit(RLIMIT_AS, &saved_);
		std::ifstream statm("/proc/self/statm");
		uint64_t pages = 0;
		statm >> pages;
		rlimit limit = saved_;
		limit.rlim_cur = pages * uint64_t(sysconf(_SC_PAGESIZE)) + extra;
		setrlimit(RLIMIT_AS, &limit);
	}
	~AddressSpaceLimit() { setrlimit(RLIMIT_AS, &saved_); }

private:
	rlimit saved_;
};

constexpr uint64_t kOneGiB = uint64_t(1) << 30;

/* Loads the model and runs it on the CPU. */
Result<std::vector<Tensor>> loadAndRun(ModelBuilder &builder, const std::vector<Tensor> &inputs)
{
	SavedModel file(builder);
	auto model = Model::load(file.path);
	if (!model)
		return model.error();
	return (*model)->run(inputs, Target::Cpu);
}

/* The run failed with `code` and a reason holding each of `words`. */
void expectRefusal(const Result<std::vector<Tensor>> &out, int code,
		   const std::vector<std::string> &words)
{
	ASSERT_FALSE(out);
	EXPECT_EQ(out.error().code(), code) << out.error().reason();
	for (const std::string &word : words)
		EXPECT_NE(out.error().reason().find(word), std::string::npos)
			<< "'" << word << "' not in: " << out.error().reason();
}

/* 1. blocksize² overflowed to 0 and c % 0 was SIGFPE. */
TEST(OnnxHostileModel, DepthToSpaceWithAHugeBlocksizeIsEINVAL)
{
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 1, 1, 1 });
	b.output("y", ::onnx::TensorProto::FLOAT, { -1, -1, -1, -1 });
	::onnx::NodeProto &node = b.node("DepthToSpace", { "x" }, { "y" });
	node.set_name("d2s");
	setInt(node, "blocksize", int64_t(1) << 32);
	expectRefusal(loadAndRun(b, { floatTensor({ 1, 1, 1, 1 }, { 1 }) }), EINVAL,
		      { "'d2s'", "blocksize" });
}

/* 2. The count 256 converted to uint8 was 0: SIGFPE. */
TEST(OnnxHostileModel, ReduceMeanOfUint8IsRefusedNamingTheType)
{
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::UINT8, { 256 });
	b.output("y", ::onnx::TensorProto::UINT8, { 1 });
	b.node("ReduceMean", { "x" }, { "y" }).set_name("mean");
	Tensor x(DataType::Uint8, { 256 });
	std::fill(x.data<uint8_t>(), x.data<uint8_t>() + 256, 1);
	expectRefusal(loadAndRun(b, { x }), EINVAL, { "'mean'", "uint8" });
}

TEST(OnnxHostileModel, ReduceMeanOfInt32DividesByTheCountInInt64)
{
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::INT32, { 128 });
	b.output("y", ::onnx::TensorProto::INT32, { 1 });
	b.node("ReduceMean", { "x" }, { "y" });
	Tensor x(DataType::Int32, { 128 });
	std::fill(x.data<int32_t>(), x.data<int32_t>() + 128, -3);
	auto out = loadAndRun(b, { x });
	ASSERT_TRUE(out) << out.error().message();
	EXPECT_EQ((*out)[0].data<int32_t>()[0], -3);
}

/* 3. Axis 0 of a scalar wrote past the statistics' shape. */
TEST(OnnxHostileModel, MeanVarianceNormalizationOfAScalarIsEINVAL)
{
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, {});
	b.output("y", ::onnx::TensorProto::FLOAT, {});
	::onnx::NodeProto &node = b.node("MeanVarianceNormalization", { "x" }, { "y" });
	node.set_name("mvn");
	setInts(node, "axes", { 0 });
	expectRefusal(loadAndRun(b, { floatTensor({}, { 2 }) }), EINVAL,
		      { "'mvn'", "axis 0", "rank 0" });
}

/* 4. With no zero point, channel c read zeroPoints[c] of a 1-element vector. */
TEST(OnnxHostileModel, PerAxisQuantizeAndDequantizeWithoutAZeroPoint)
{
	constexpr int64_t kChannels = 1024;
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, kChannels });
	b.initializer("scale", { kChannels }, std::vector<float>(kChannels, 0.5f));
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, kChannels });
	setInt(b.node("QuantizeLinear", { "x", "scale" }, { "q" }), "axis", 1);
	setInt(b.node("DequantizeLinear", { "q", "scale" }, { "y" }), "axis", 1);
	std::vector<float> values(kChannels);
	for (int64_t i = 0; i < kChannels; i++)
		values[i] = float(i % 100);
	auto out = loadAndRun(b, { floatTensor({ 1, kChannels }, values) });
	ASSERT_TRUE(out) << out.error().message();
	const float *y = (*out)[0].data<float>();
	for (int64_t i = 0; i < kChannels; i++)
		ASSERT_EQ(y[i], values[i]) << i;
}

/*
 * 5. A tensor of no elements with huge other dimensions: Concat and Trilu
 * looped over 2^60 rows. The tensor is refused where it would be made.
 */
TEST(OnnxHostileModel, ConcatOfAnEmptyTensorWithHugeDimensionsIsRefused)
{
	ModelBuilder b;
	b.input("shape", ::onnx::TensorProto::INT64, { 3 });
	b.output("y", ::onnx::TensorProto::FLOAT, { -1, -1, -1 });
	b.node("ConstantOfShape", { "shape" }, { "empty" }).set_name("fill");
	setInt(b.node("Concat", { "empty", "empty" }, { "y" }), "axis", 2);
	auto out = loadAndRun(b, { int64Tensor({ 3 }, { int64_t(1) << 40, int64_t(1) << 20, 0 }) });
	expectRefusal(out, EAGAIN, { "'fill'", "2^32" });
}

TEST(OnnxHostileModel, TriluOfAnEmptyTensorWithHugeDimensionsIsRefused)
{
	ModelBuilder b(14);
	b.input("x", ::onnx::TensorProto::FLOAT, { 0 });
	b.input("shape", ::onnx::TensorProto::INT64, { 3 });
	b.output("y", ::onnx::TensorProto::FLOAT, { -1, -1, -1 });
	b.node("Expand", { "x", "shape" }, { "empty" }).set_name("expand");
	b.node("Trilu", { "empty" }, { "y" });
	auto out = loadAndRun(b, { Tensor(DataType::Float, { 0 }),
				   int64Tensor({ 3 }, { int64_t(1) << 40, int64_t(1) << 20, 0 }) });
	expectRefusal(out, EAGAIN, { "'expand'", "2^32" });
}

/* 6. sampling_ratio 2^32 squared wrapped to 0, past the cap, and looped 2^64 times. */
ModelBuilder roiAlignModel(int64_t samplingRatio, float spatialScale, int64_t outSize = 1)
{
	ModelBuilder b(16);
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 1, 2, 2 });
	b.input("rois", ::onnx::TensorProto::FLOAT, { 1, 4 });
	b.input("batch", ::onnx::TensorProto::INT64, { 1 });
	b.output("y", ::onnx::TensorProto::FLOAT, { -1, -1, -1, -1 });
	::onnx::NodeProto &node = b.node("RoiAlign", { "x", "rois", "batch" }, { "y" });
	node.set_name("roi");
	setInt(node, "sampling_ratio", samplingRatio);
	setFloat(node, "spatial_scale", spatialScale);
	setInt(node, "output_height", outSize);
	setInt(node, "output_width", outSize);
	return b;
}

std::vector<Tensor> roiAlignInputs()
{
	return { floatTensor({ 1, 1, 2, 2 }, { 1, 2, 3, 4 }), floatTensor({ 1, 4 }, { 0, 0, 1, 1 }),
		 int64Tensor({ 1 }, { 0 }) };
}

TEST(OnnxHostileModel, RoiAlignWithAHugeSamplingRatioIsEINVAL)
{
	ModelBuilder b = roiAlignModel(int64_t(1) << 32, 1.0f);
	expectRefusal(loadAndRun(b, roiAlignInputs()), EINVAL, { "'roi'", "sampling_ratio" });
}

TEST(OnnxHostileModel, RoiAlignSamplesAreBoundedInTotal)
{
	/* 2048² samples per bin, 256² bins: 2^38 samples. */
	ModelBuilder b = roiAlignModel(2048, 1.0f, 256);
	expectRefusal(loadAndRun(b, roiAlignInputs()), EAGAIN, { "'roi'", "sampling_ratio" });
}

TEST(OnnxHostileModel, RoiAlignWithANaNSpatialScaleIsEINVAL)
{
	ModelBuilder b = roiAlignModel(0, NAN);
	expectRefusal(loadAndRun(b, roiAlignInputs()), EINVAL, { "'roi'", "spatial_scale" });
}

/* 7. Four labels of 32768 each: 2^60 iterations. */
TEST(OnnxHostileModel, EinsumAboveTheIterationBudgetIsEAGAIN)
{
	ModelBuilder b(12);
	std::vector<Tensor> inputs;
	for (const char *name : { "a", "b", "c", "d" }) {
		b.input(name, ::onnx::TensorProto::FLOAT, { 32768 });
		inputs.push_back(Tensor(DataType::Float, { 32768 }));
	}
	b.output("y", ::onnx::TensorProto::FLOAT, {});
	::onnx::NodeProto &node = b.node("Einsum", { "a", "b", "c", "d" }, { "y" });
	node.set_name("sum");
	setString(node, "equation", "a,b,c,d->");
	expectRefusal(loadAndRun(b, inputs), EAGAIN, { "'sum'", "a,b,c,d->", "2^32" });
}

TEST(OnnxHostileModel, EinsumImplicitOutputOrdersUppercaseFirst)
{
	/* numpy: einsum("Ba", x) keeps x, 'B' (66) sorting before 'a' (97). */
	ModelBuilder b(12);
	b.input("x", ::onnx::TensorProto::FLOAT, { 2, 3 });
	b.output("y", ::onnx::TensorProto::FLOAT, { -1, -1 });
	setString(b.node("Einsum", { "x" }, { "y" }), "equation", "Ba");
	auto out = loadAndRun(b, { floatTensor({ 2, 3 }, { 1, 2, 3, 4, 5, 6 }) });
	ASSERT_TRUE(out) << out.error().message();
	ASSERT_EQ((*out)[0].shape(), (std::vector<int64_t>{ 2, 3 }));
	for (int i = 0; i < 6; i++)
		EXPECT_EQ((*out)[0].data<float>()[i], float(i + 1)) << i;
}

/* 8. A few bytes of file made libvdla zero-fill 4 GiB before the sizes were compared. */
TEST(OnnxHostileModel, ATensorFileIsComparedWithItsDimsBeforeItIsAllocated)
{
	::onnx::TensorProto proto;
	proto.set_data_type(::onnx::TensorProto::FLOAT);
	proto.add_dims(int64_t(1) << 30);
	proto.set_raw_data(std::string(1, '\0'));
	Result<Tensor> tensor = [&] {
		AddressSpaceLimit limit(kOneGiB);
		return readTensorProto(proto);
	}();
	ASSERT_FALSE(tensor);
	EXPECT_EQ(tensor.error().code(), EINVAL) << tensor.error().reason();
	EXPECT_NE(tensor.error().reason().find("1 bytes of data for float[1073741824]"),
		  std::string::npos)
		<< tensor.error().reason();
}

/* 9. static_cast<int32_t>(NaN) is UB (INT_MIN on x86); NaN stores 0. */
TEST(OnnxHostileModel, GemmInt32WithANaNAlphaGivesZero)
{
	ModelBuilder b;
	b.input("a", ::onnx::TensorProto::INT32, { 1, 1 });
	b.input("b", ::onnx::TensorProto::INT32, { 1, 1 });
	b.output("y", ::onnx::TensorProto::INT32, { 1, 1 });
	setFloat(b.node("Gemm", { "a", "b" }, { "y" }), "alpha", NAN);
	Tensor a(DataType::Int32, { 1, 1 });
	a.data<int32_t>()[0] = 3;
	auto out = loadAndRun(b, { a, a });
	ASSERT_TRUE(out) << out.error().message();
	EXPECT_EQ((*out)[0].data<int32_t>()[0], 0);
}

/* 10. Bool bytes other than 0 and 1, from a file and from the caller, read as 1. */
TEST(OnnxHostileModel, BoolBytesFromAFileAreNormalised)
{
	::onnx::TensorProto raw;
	raw.set_data_type(::onnx::TensorProto::BOOL);
	raw.add_dims(3);
	raw.set_raw_data(std::string("\x00\x02\xff", 3));
	auto fromRaw = readTensorProto(raw);
	ASSERT_TRUE(fromRaw) << fromRaw.error().message();
	const uint8_t *bytes = static_cast<const uint8_t *>(fromRaw->raw());
	EXPECT_EQ(bytes[0], 0);
	EXPECT_EQ(bytes[1], 1);
	EXPECT_EQ(bytes[2], 1);

	::onnx::TensorProto typed;
	typed.set_data_type(::onnx::TensorProto::BOOL);
	typed.add_dims(3);
	typed.add_int32_data(0);
	typed.add_int32_data(256);
	typed.add_int32_data(-1);
	auto fromTyped = readTensorProto(typed);
	ASSERT_TRUE(fromTyped) << fromTyped.error().message();
	bytes = static_cast<const uint8_t *>(fromTyped->raw());
	EXPECT_EQ(bytes[0], 0);
	EXPECT_EQ(bytes[1], 1);
	EXPECT_EQ(bytes[2], 1);
}

TEST(OnnxHostileModel, BoolBytesOfAnInputAreNormalised)
{
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::BOOL, { 2 });
	b.output("y", ::onnx::TensorProto::BOOL, { 2 });
	b.node("Identity", { "x" }, { "y" });
	Tensor x(DataType::Bool, { 2 });
	static_cast<uint8_t *>(x.raw())[0] = 2;
	static_cast<uint8_t *>(x.raw())[1] = 0;
	auto out = loadAndRun(b, { x });
	ASSERT_TRUE(out) << out.error().message();
	const uint8_t *bytes = static_cast<const uint8_t *>((*out)[0].raw());
	EXPECT_EQ(bytes[0], 1);
	EXPECT_EQ(bytes[1], 0);
}

/* 11. The add and mul reductions wrap instead of overflowing a signed type. */
TEST(OnnxHostileModel, ScatterElementsAddWrapsInt32)
{
	ModelBuilder b(16);
	b.input("data", ::onnx::TensorProto::INT32, { 1 });
	b.input("indices", ::onnx::TensorProto::INT64, { 1 });
	b.input("updates", ::onnx::TensorProto::INT32, { 1 });
	b.output("y", ::onnx::TensorProto::INT32, { 1 });
	setString(b.node("ScatterElements", { "data", "indices", "updates" }, { "y" }), "reduction",
		  "add");
	Tensor data(DataType::Int32, { 1 }), updates(DataType::Int32, { 1 });
	data.data<int32_t>()[0] = INT32_MAX;
	updates.data<int32_t>()[0] = 1;
	auto out = loadAndRun(b, { data, int64Tensor({ 1 }, { 0 }), updates });
	ASSERT_TRUE(out) << out.error().message();
	EXPECT_EQ((*out)[0].data<int32_t>()[0], INT32_MIN);
}

/* 12. Scratch sized from attributes, refused before it is allocated. */
TEST(OnnxHostileModel, AMaxPoolWindowTableAbove4GiBIsEAGAIN)
{
	/* A 65536² window on a 1x1 input padded to it: 2^32 offsets, 32 GiB. */
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 1, 1, 1 });
	b.output("y", ::onnx::TensorProto::FLOAT, { -1, -1, -1, -1 });
	::onnx::NodeProto &node = b.node("MaxPool", { "x" }, { "y" });
	node.set_name("pool");
	setInts(node, "kernel_shape", { 65536, 65536 });
	setInts(node, "pads", { 65535, 65535, 0, 0 });
	Result<std::vector<Tensor>> out = [&] {
		AddressSpaceLimit limit(kOneGiB);
		return loadAndRun(b, { floatTensor({ 1, 1, 1, 1 }, { 1 }) });
	}();
	expectRefusal(out, EAGAIN, { "'pool'", "window table" });
}

TEST(OnnxHostileModel, AConvPaddedPlaneAbove4GiBIsEAGAIN)
{
	/* Dilations of 2^20 need pads of 2^20: a padded plane of 2^40 doubles. */
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 1, 1, 1 });
	b.initializer("w", { 1, 1, 2, 2 }, { 1, 1, 1, 1 });
	b.output("y", ::onnx::TensorProto::FLOAT, { -1, -1, -1, -1 });
	::onnx::NodeProto &node = b.node("Conv", { "x", "w" }, { "y" });
	node.set_name("conv");
	setInts(node, "dilations", { int64_t(1) << 20, int64_t(1) << 20 });
	setInts(node, "pads", { int64_t(1) << 20, int64_t(1) << 20, 0, 0 });
	Result<std::vector<Tensor>> out = [&] {
		AddressSpaceLimit limit(kOneGiB);
		return loadAndRun(b, { floatTensor({ 1, 1, 1, 1 }, { 1 }) });
	}();
	expectRefusal(out, EAGAIN, { "'conv'", "padded input plane" });
}

/* 13. (kernel - 1) * dilation and input + pads overflowed int64. */
ModelBuilder convWithAttribute(const std::string &name, const std::vector<int64_t> &values)
{
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 1, 4, 4 });
	b.initializer("w", { 1, 1, 3, 3 }, std::vector<float>(9, 1));
	b.output("y", ::onnx::TensorProto::FLOAT, { -1, -1, -1, -1 });
	::onnx::NodeProto &node = b.node("Conv", { "x", "w" }, { "y" });
	node.set_name("conv");
	setInts(node, name, values);
	return b;
}

TEST(OnnxHostileModel, ConvDilationsThatOverflowAreEINVAL)
{
	ModelBuilder b = convWithAttribute("dilations", { int64_t(1) << 62, 1 });
	expectRefusal(loadAndRun(b, { floatTensor({ 1, 1, 4, 4 }, std::vector<float>(16, 1)) }),
		      EINVAL, { "'conv'", "dilations" });
}

TEST(OnnxHostileModel, ConvPadsThatOverflowAreEINVAL)
{
	ModelBuilder b = convWithAttribute("pads", { INT64_MAX, 0, INT64_MAX, 0 });
	expectRefusal(loadAndRun(b, { floatTensor({ 1, 1, 4, 4 }, std::vector<float>(16, 1)) }),
		      EINVAL, { "'conv'", "pads" });
}

} /* namespace */
} /* namespace vdla::onnx */
