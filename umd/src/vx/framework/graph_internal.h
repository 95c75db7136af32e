/* SPDX-License-Identifier: MIT */
/* What the graph files (graph*.cpp) share and nothing else needs. */
#pragma once

#include "framework/object.h"

namespace vdla::vx {

/* graph_verify.cpp */
/* Verifies @graph, phase by phase (vxVerifyGraph). */
vx_status verifyGraph(vx_graph graph);
/* Verifies @graph if needed, and plans it again if its objects changed
 * since (a rebinding, a handle swap, new bias values): before each run. */
vx_status prepareGraph(vx_graph graph);
/* Runs deinitialize (when the node was initialized) and frees local data. */
void deinitializeNode(vx_node node);
/* Not node->kernel: the node's destructor runs this after its reference
 * to the kernel went, which may have been the last. */
void freeLocalData(vx_node node);

} /* namespace vdla::vx */
