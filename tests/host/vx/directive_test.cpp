/* SPDX-License-Identifier: MIT */
/*
 * vxDirective and vxHint (OpenVX 1.3.1, "Framework: Directives" and
 * "Framework: Hints"): performance counters are disabled by default and
 * switched per context only; logging directives gate the log callback;
 * performance hints are accepted; anything else is VX_ERROR_NOT_SUPPORTED.
 */
#include "vx_test.h"

#include <string>
#include <vector>

namespace {

std::vector<std::string> entries;
void VX_CALLBACK collect(vx_context, vx_reference, vx_status, const vx_char string[])
{
	entries.push_back(string);
}

class Directive : public VxTest
{
protected:
	void SetUp() override
	{
		VxTest::SetUp();
		kernel = addCopyKernel(context);
	}
	void TearDown() override
	{
		vxReleaseKernel(&kernel);
		VxTest::TearDown();
	}

	/* Runs a one-node copy graph once; its node's and its own performance. */
	void runOnce(vx_perf_t *nodePerf, vx_perf_t *graphPerf)
	{
		vx_graph graph = vxCreateGraph(context);
		vx_tensor in, out;
		vx_node node = copyNode(graph, kernel, &in, &out);
		EXPECT_EQ(vxProcessGraph(graph), VX_SUCCESS);
		EXPECT_EQ(vxQueryNode(node, VX_NODE_PERFORMANCE, nodePerf, sizeof(*nodePerf)),
			VX_SUCCESS);
		EXPECT_EQ(vxQueryGraph(graph, VX_GRAPH_PERFORMANCE, graphPerf, sizeof(*graphPerf)),
			VX_SUCCESS);
		vxReleaseNode(&node);
		vxReleaseTensor(&in);
		vxReleaseTensor(&out);
		vxReleaseGraph(&graph);
	}

	vx_kernel kernel = nullptr;
};

} /* namespace */

TEST_F(Directive, PerformanceIsRecordedOnlyOnceEnabled)
{
	vx_perf_t node = {}, graph = {};
	runOnce(&node, &graph);
	EXPECT_EQ(node.num, 0u) << "disabled by default";
	EXPECT_EQ(graph.num, 0u) << "disabled by default";

	ASSERT_EQ(vxDirective(ref(context), VX_DIRECTIVE_ENABLE_PERFORMANCE), VX_SUCCESS);
	runOnce(&node, &graph);
	EXPECT_EQ(node.num, 1u);
	EXPECT_EQ(graph.num, 1u);
	EXPECT_GE(graph.sum, node.sum) << "the graph's run contains its node's";

	ASSERT_EQ(vxDirective(ref(context), VX_DIRECTIVE_DISABLE_PERFORMANCE), VX_SUCCESS);
	runOnce(&node, &graph);
	EXPECT_EQ(node.num, 0u);
}

TEST_F(Directive, PerformanceDirectivesNeedAContext)
{
	vx_graph graph = vxCreateGraph(context);
	EXPECT_EQ(vxDirective(ref(graph), VX_DIRECTIVE_ENABLE_PERFORMANCE), VX_ERROR_NOT_SUPPORTED);
	EXPECT_EQ(vxDirective(ref(graph), VX_DIRECTIVE_DISABLE_PERFORMANCE),
		VX_ERROR_NOT_SUPPORTED);
	vx_perf_t node = {}, perf = {};
	runOnce(&node, &perf);
	EXPECT_EQ(node.num, 0u) << "the refused directive changed nothing";
	vxReleaseGraph(&graph);
}

TEST_F(Directive, LoggingDirectivesGateTheCallback)
{
	entries.clear();
	vxRegisterLogCallback(context, collect, vx_false_e);
	vx_graph graph = vxCreateGraph(context);
	ASSERT_EQ(vxDirective(ref(graph), VX_DIRECTIVE_DISABLE_LOGGING), VX_SUCCESS);
	vxAddLogEntry(ref(context), VX_FAILURE, "hidden");
	EXPECT_EQ(vxDirective(ref(context), 0x7fffffff), VX_ERROR_NOT_SUPPORTED);
	EXPECT_TRUE(entries.empty()) << "neither user nor runtime entries while disabled";

	ASSERT_EQ(vxDirective(ref(context), VX_DIRECTIVE_ENABLE_LOGGING), VX_SUCCESS);
	vxAddLogEntry(ref(graph), VX_FAILURE, "shown %d", 1);
	ASSERT_EQ(entries.size(), 1u);
	EXPECT_EQ(entries[0], "shown 1");
	vxRegisterLogCallback(context, nullptr, vx_false_e);
	vxReleaseGraph(&graph);
}

TEST_F(Directive, BadReferencesAndUnknownValuesAreRefused)
{
	EXPECT_EQ(vxDirective(nullptr, VX_DIRECTIVE_ENABLE_PERFORMANCE),
		VX_ERROR_INVALID_REFERENCE);
	EXPECT_EQ(vxHint(nullptr, VX_HINT_PERFORMANCE_DEFAULT, nullptr, 0),
		VX_ERROR_INVALID_REFERENCE);
	EXPECT_EQ(vxDirective(ref(context), VX_HINT_PERFORMANCE_DEFAULT), VX_ERROR_NOT_SUPPORTED);
	EXPECT_EQ(vxHint(ref(context), VX_DIRECTIVE_ENABLE_LOGGING, nullptr, 0),
		VX_ERROR_NOT_SUPPORTED);
}

TEST_F(Directive, PerformanceHintsAreAccepted)
{
	vx_graph graph = vxCreateGraph(context);
	for (vx_enum hint : { VX_HINT_PERFORMANCE_DEFAULT, VX_HINT_PERFORMANCE_LOW_POWER,
		     VX_HINT_PERFORMANCE_HIGH_SPEED }) {
		EXPECT_EQ(vxHint(ref(context), hint, nullptr, 0), VX_SUCCESS);
		EXPECT_EQ(vxHint(ref(graph), hint, nullptr, 0), VX_SUCCESS);
	}
	vxReleaseGraph(&graph);
}
