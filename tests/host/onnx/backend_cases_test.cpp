/* SPDX-License-Identifier: MIT */
/*
 * The ONNX backend test cases of Debian's libonnx-testdata, run on the CPU
 * kernels and compared with the outputs the ONNX project computed (the
 * independent reference), with the backend tests' tolerance. One test per
 * case; a case is skipped only for a reason listed in operator_scope.cpp.
 */

#include "operator_scope.h"

#include <vdla/onnx.h>

#include "../../../umd/tools/onnx_run/case_runner.h"

#include <algorithm>
#include <dirent.h>
#include <gtest/gtest.h>
#include <set>

namespace vdla::onnx {
namespace {

const char *const kTestData = "/usr/share/libonnx-testdata/data";

struct BackendCase {
	std::string set;
	std::string name;
	std::string dir() const { return std::string(kTestData) + "/" + set + "/" + name; }
};

std::vector<BackendCase> discover(const std::string &set)
{
	std::vector<BackendCase> cases;
	std::string root = std::string(kTestData) + "/" + set;
	DIR *dir = opendir(root.c_str());
	if (!dir)
		return cases;
	while (dirent *entry = readdir(dir))
		if (std::string(entry->d_name).rfind("test_", 0) == 0)
			cases.push_back({ set, entry->d_name });
	closedir(dir);
	std::sort(cases.begin(), cases.end(),
		  [](const BackendCase &a, const BackendCase &b) { return a.name < b.name; });
	return cases;
}

/* googletest prints a failing case by this, instead of its bytes. */
void PrintTo(const BackendCase &c, std::ostream *os)
{
	*os << c.set << "/" << c.name;
}

class BackendCaseTest : public testing::TestWithParam<BackendCase>
{
};

TEST_P(BackendCaseTest, MatchesTheReferenceOnTheCpu)
{
	const BackendCase &c = GetParam();
	auto model = Model::load(c.dir() + "/model.onnx");
	if (!model) {
		std::string scope = test::outOfScopeLoadFailure(model.error().reason());
		if (model.error().code() == ENOTSUP && !scope.empty())
			GTEST_SKIP() << scope;
		FAIL() << model.error().message();
	}
	std::set<std::string> implemented;
	for (const std::string &op : cpuOperators())
		implemented.insert(op);
	for (const std::string &op : (*model)->opTypes()) {
		auto scope = test::outOfScopeOperators().find(op);
		if (scope != test::outOfScopeOperators().end())
			GTEST_SKIP() << op << ": " << scope->second;
		ASSERT_TRUE(implemented.count(op))
			<< op << " has no CPU kernel and is not listed out of scope";
	}

	CaseResult result = runCase(c.dir(), Target::Cpu);
	auto known = test::knownFailures().find(c.name);
	if (known != test::knownFailures().end()) {
		EXPECT_FALSE(result.passed) << "passes now: remove it from knownFailures()";
		GTEST_SKIP() << "known failure: " << known->second << " (" << result.reason << ")";
	}
	EXPECT_TRUE(result.passed) << result.reason;
}

std::string caseName(const testing::TestParamInfo<BackendCase> &info)
{
	std::string name = info.param.name;
	std::replace_if(name.begin(), name.end(), [](char ch) { return !std::isalnum(ch); }, '_');
	return name;
}

INSTANTIATE_TEST_SUITE_P(Node, BackendCaseTest, testing::ValuesIn(discover("node")), caseName);
INSTANTIATE_TEST_SUITE_P(PytorchConverted, BackendCaseTest,
			 testing::ValuesIn(discover("pytorch-converted")), caseName);
INSTANTIATE_TEST_SUITE_P(PytorchOperator, BackendCaseTest,
			 testing::ValuesIn(discover("pytorch-operator")), caseName);
INSTANTIATE_TEST_SUITE_P(Simple, BackendCaseTest, testing::ValuesIn(discover("simple")), caseName);

/* Without the data every case above silently disappears: fail instead. */
TEST(BackendCases, TheTestDataIsInstalled)
{
	EXPECT_GE(discover("node").size(), 900u) << "install libonnx-testdata (scripts/setup-deps)";
	EXPECT_GE(discover("pytorch-converted").size(), 80u);
}

} /* namespace */
} /* namespace vdla::onnx */
