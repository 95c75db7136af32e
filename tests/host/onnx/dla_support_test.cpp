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
#include <unistd.h>

namespace vdla::onnx {
namespace {

using test::ModelBuilder;
using test::SavedModel;
using test::setInts;
using test::setString;

/* The reason --target dla gives for @builder's model on a [1,1,H,W] input. */
std::string dlaRefusal(ModelBuilder &builder, std::vector<int64_t> shape)
{
	SavedModel file(builder);
	auto model = Model::load(file.path);
	EXPECT_TRUE(model) << model.error().message();
	if (!model)
		return "";
	Tensor x(DataType::Float, shape);
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

TEST(DlaSupport, AFlattenThatEndsTheGraphIsNotSilentlyOnTheCpu)
{
	ModelBuilder b;
	b.input("x", ::onnx::TensorProto::FLOAT, { 1, 2, 2, 2 });
	b.output("y", ::onnx::TensorProto::FLOAT, { 1, 8 });
	b.node("Relu", { "x" }, { "r" });
	b.node("Flatten", { "r" }, { "y" }).set_name("flat");
	std::string reason = dlaRefusal(b, { 1, 2, 2, 2 });
	EXPECT_NE(reason.find("'flat'"), std::string::npos) << reason;
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

} /* namespace */
} /* namespace vdla::onnx */
