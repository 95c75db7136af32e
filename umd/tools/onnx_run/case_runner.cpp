/* SPDX-License-Identifier: MIT */

#include "case_runner.h"

#include <cmath>
#include <stdexcept>
#include <dirent.h>
#include <sstream>
#include <sys/stat.h>

namespace vdla::onnx {

/* IEEE binary16 to double, exactly (its own code: the comparison is the reference). */
static double float16Value(uint16_t bits)
{
	const int exponent = (bits >> 10) & 0x1f;
	const int mantissa = bits & 0x3ff;
	const double sign = bits & 0x8000 ? -1.0 : 1.0;
	if (exponent == 0x1f)
		return mantissa ? NAN : sign * INFINITY;
	if (exponent == 0)
		return sign * std::ldexp(mantissa, -24);
	return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

static double element(const Tensor &t, int64_t i)
{
	switch (t.type()) {
	case DataType::Float16: return float16Value(static_cast<const uint16_t *>(t.raw())[i]);
	case DataType::Float: return t.data<float>()[i];
	case DataType::Double: return t.data<double>()[i];
	case DataType::Int8: return t.data<int8_t>()[i];
	case DataType::Uint8: return t.data<uint8_t>()[i];
	case DataType::Int16: return t.data<int16_t>()[i];
	case DataType::Uint16: return t.data<uint16_t>()[i];
	case DataType::Int32: return t.data<int32_t>()[i];
	case DataType::Uint32: return t.data<uint32_t>()[i];
	case DataType::Bool: return t.data<bool>()[i];
	default: throw std::logic_error(std::string("no comparison for ") + dataTypeName(t.type()));
	}
}

std::string compareTensors(const Tensor &expected, const Tensor &actual, double rtol, double atol)
{
	if (expected.type() != actual.type() || expected.shape() != actual.shape())
		return "expected " + expected.describe() + ", got " + actual.describe();
	const bool exact = expected.type() != DataType::Float && expected.type() != DataType::Double &&
			   expected.type() != DataType::Float16;
	for (int64_t i = 0; i < expected.elements(); i++) {
		bool equal;
		std::ostringstream detail;
		if (expected.type() == DataType::Int64 || expected.type() == DataType::Uint64) {
			/* Compared as bits: doubles cannot hold every 64-bit integer. */
			uint64_t e = static_cast<const uint64_t *>(expected.raw())[i];
			uint64_t a = static_cast<const uint64_t *>(actual.raw())[i];
			equal = e == a;
			detail << int64_t(e) << ", got " << int64_t(a);
		} else {
			double e = element(expected, i);
			double a = element(actual, i);
			if (std::isnan(e) || std::isnan(a))
				equal = std::isnan(e) && std::isnan(a);
			else if (std::isinf(e) || exact)
				equal = e == a;
			else
				equal = std::fabs(a - e) <= atol + rtol * std::fabs(e);
			detail.precision(9);
			detail << e << ", got " << a;
		}
		if (!equal)
			return "element " + std::to_string(i) + " of " + expected.describe() +
			       ": expected " + detail.str();
	}
	return "";
}

std::vector<std::string> numberedFiles(const std::string &dir, const std::string &prefix)
{
	std::vector<std::string> files;
	struct stat st;
	for (int j = 0;; j++) {
		std::string path = dir + "/" + prefix + std::to_string(j) + ".pb";
		if (stat(path.c_str(), &st))
			break;
		files.push_back(path);
	}
	return files;
}

static std::vector<std::string> dataSets(const std::string &caseDir)
{
	std::vector<std::string> sets;
	struct stat st;
	for (int n = 0;; n++) {
		std::string path = caseDir + "/test_data_set_" + std::to_string(n);
		if (stat(path.c_str(), &st) || !S_ISDIR(st.st_mode))
			break;
		sets.push_back(path);
	}
	return sets;
}

static CaseResult failure(const Error &error)
{
	CaseResult result;
	result.reason = error.reason();
	result.errorCode = error.code();
	return result;
}

CaseResult runCase(const std::string &caseDir, Target target)
{
	Result<std::unique_ptr<Model>> model = Model::load(caseDir + "/model.onnx");
	if (!model)
		return failure(model.error());

	CaseResult result;
	for (const std::string &set : dataSets(caseDir)) {
		std::vector<Tensor> inputs;
		for (const std::string &file : numberedFiles(set, "input_")) {
			Result<Tensor> tensor = readTensorFile(file);
			if (!tensor)
				return failure(tensor.error());
			inputs.push_back(std::move(*tensor));
		}
		Result<std::vector<Tensor>> outputs = (*model)->run(inputs, target);
		if (!outputs)
			return failure(outputs.error());

		std::vector<std::string> expectedFiles = numberedFiles(set, "output_");
		if (expectedFiles.size() != outputs->size()) {
			result.reason = set + ": " + std::to_string(outputs->size()) + " outputs, " +
					std::to_string(expectedFiles.size()) + " expected";
			return result;
		}
		for (size_t j = 0; j < expectedFiles.size(); j++) {
			Result<Tensor> expected = readTensorFile(expectedFiles[j]);
			if (!expected)
				return failure(expected.error());
			std::string diff = compareTensors(*expected, (*outputs)[j]);
			if (!diff.empty()) {
				result.reason = set.substr(set.rfind('/') + 1) + " output " +
						std::to_string(j) + ": " + diff;
				return result;
			}
		}
		result.dataSets++;
	}
	if (!result.dataSets) {
		result.reason = caseDir + " has no test_data_set_0";
		return result;
	}
	result.passed = true;
	return result;
}

} /* namespace vdla::onnx */
