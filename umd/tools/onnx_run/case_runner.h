/* SPDX-License-Identifier: MIT */
/*
 * ONNX backend test cases: a folder with model.onnx and test_data_set_N/
 * holding input_J.pb and output_J.pb. A case passes when every data set's
 * outputs match with the backend tests' tolerance (numpy's assert_allclose,
 * rtol 1e-3, atol 1e-7; NaN where NaN is expected), integers and booleans
 * exactly.
 */
#pragma once

#include <vdla/onnx.h>

#include <string>
#include <vector>

namespace vdla::onnx {

struct CaseResult {
	bool passed = false;
	/* Why it failed: the first mismatch, or the load or run error. */
	std::string reason;
	/* The load or run error's errno; 0 for a mismatch or a pass. */
	int errorCode = 0;
	int dataSets = 0;
};

/* "" when `actual` matches `expected`, else the first difference. */
std::string compareTensors(const Tensor &expected, const Tensor &actual, double rtol = 1e-3,
			   double atol = 1e-7);

/* The input_J.pb (or output_J.pb) files of a data set folder, by J. */
std::vector<std::string> numberedFiles(const std::string &dir, const std::string &prefix);

CaseResult runCase(const std::string &caseDir, Target target);

} /* namespace vdla::onnx */
