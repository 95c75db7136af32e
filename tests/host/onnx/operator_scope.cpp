/* SPDX-License-Identifier: MIT */

#include "operator_scope.h"

namespace vdla::onnx::test {

const std::map<std::string, std::string> &outOfScopeOperators()
{
	static const std::string training = "training only: libvdla runs inference";
	static const std::string control = "control flow (subgraphs): libvdla runs static graphs";
	static const std::string random = "random draws cannot match the reference's generator";
	static const std::string strings = "string processing: libvdla holds no string tensors";
	static const std::string sequences = "sequence and optional values: libvdla holds dense "
					     "numeric tensors only";
	static const std::map<std::string, std::string> ops = {
		{ "Adagrad", training },
		{ "Adam", training },
		{ "Momentum", training },
		{ "Gradient", training },
		{ "NegativeLogLikelihoodLoss", training + " (a loss)" },
		{ "SoftmaxCrossEntropyLoss", training + " (a loss)" },
		{ "If", control },
		{ "Loop", control },
		{ "Scan", control },
		{ "Bernoulli", random },
		{ "Multinomial", random },
		{ "RandomNormal", random },
		{ "RandomNormalLike", random },
		{ "RandomUniform", random },
		{ "RandomUniformLike", random },
		{ "TfIdfVectorizer", strings },
		{ "StringNormalizer", strings },
		{ "LabelEncoder", strings },
		{ "SequenceAt", sequences },
		{ "SequenceConstruct", sequences },
		{ "SequenceEmpty", sequences },
		{ "SequenceErase", sequences },
		{ "SequenceInsert", sequences },
		{ "SequenceLength", sequences },
		{ "SequenceMap", sequences },
		{ "SplitToSequence", sequences },
		{ "ConcatFromSequence", sequences },
		{ "Optional", sequences },
		{ "OptionalGetElement", sequences },
		{ "OptionalHasElement", sequences },
	};
	return ops;
}

const std::map<std::string, std::string> &knownFailures()
{
	/* Dropout with training_mode true and a ratio above 0 draws its mask at random. */
	static const std::string randomMask = "Dropout in training mode draws a random mask, which "
					      "cannot match the reference's generator";
	static const std::map<std::string, std::string> cases = {
		{ "test_training_dropout", randomMask },
		{ "test_training_dropout_default", randomMask },
		{ "test_training_dropout_default_mask", randomMask },
		{ "test_training_dropout_mask", randomMask },
	};
	return cases;
}

std::string outOfScopeLoadFailure(const std::string &reason)
{
	for (const char *kind : { "a sequence", "an optional", "a map", "string tensor",
				  "bfloat16 tensor", "complex tensor" })
		if (reason.find(std::string("' is ") + kind) != std::string::npos)
			return std::string(kind) + " value: libvdla holds dense numeric tensors only";
	return "";
}

} /* namespace vdla::onnx::test */
