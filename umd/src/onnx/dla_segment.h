/* SPDX-License-Identifier: MIT */
/*
 * A run of consecutive DLA nodes as one graph of the runtime's graph engine
 * (the OpenVX layers on target "dla"): verified once, so that placement,
 * fusion (CONV -> SDP -> PDP), SRAM and the task are those of any OpenVX
 * graph; each run copies the segment's inputs in, processes the graph and
 * copies the values later nodes need out.
 */
#pragma once

#include "dla_support.h"

#include <VX/vx.h>

#include <functional>
#include <memory>
#include <set>

namespace vdla::onnx {

class DlaSegment
{
public:
	/*
	 * @nodes: indices into graph.nodes, in order; @exported: the values of
	 * the segment that nodes after it or the graph's outputs read.
	 */
	static Result<std::unique_ptr<DlaSegment>> build(vx_context context, const Graph &graph,
							 const std::vector<size_t> &nodes,
							 const ShapeMap &shapes,
							 const std::set<std::string> &exported);
	~DlaSegment();

	/* Keeps @context's messages for the errors of build(); once per context. */
	static void captureLog(vx_context context);

	/*
	 * Whether the segment's inputs in @values have the shapes it was built for,
	 * and its parameters (Slice ends, Reshape shapes) the same integers: with
	 * the same graph inputs, values computed from input values may differ;
	 * "" when they all match, else which one differs.
	 */
	std::string shapeMismatch(const Graph &graph, const std::map<std::string, Tensor> &values) const;

	/*
	 * Reads its inputs from @values (or the graph's constants), writes its
	 * exports there; with @parts, appends each of its nodes' device time
	 * (NodeTiming::parts).
	 */
	Result<void> run(const Graph &graph, std::map<std::string, Tensor> &values,
			 std::vector<NodeTiming> *parts = nullptr) const;

	/* "conv1 .. fc" for timings and placement. */
	const std::string &label() const { return label_; }
	const std::vector<size_t> &nodes() const { return nodes_; }

private:
	friend struct SegmentBuilder;
	DlaSegment() = default;
	void appendDeviceTimes(const Graph &graph, std::vector<NodeTiming> &parts) const;

	vx_graph graph_ = nullptr;
	std::vector<size_t> nodes_;
	std::string label_;
	/* ONNX value name -> its tensor in the segment (an alias's output is its input's tensor). */
	std::map<std::string, vx_tensor> tensors_;
	/* Tensors the segment created, released with it. */
	std::vector<vx_tensor> owned_;
	/* The layer nodes of the segment and the ONNX node (index) each computes. */
	std::vector<std::pair<size_t, vx_node>> layerNodes_;
	/*
	 * A value the segment copies in: into @tensor as it is, or as
	 * @prepare makes it (a Gemm's B transposed and scaled, its C per
	 * output); @shape is the value's own.
	 */
	struct Input {
		std::string value;
		ValueShape shape;
		vx_tensor tensor;
		std::function<Tensor(const Tensor &)> prepare;
	};
	std::vector<Input> inputs_;
	/* The values of the parameters the plan read (a Reshape's shape), for each run to check. */
	std::map<std::string, Tensor> parameters_;
	/* Values of no elements the segment's nodes give (a Slice past the end): no tensor. */
	std::set<std::string> empties_;
	std::vector<std::pair<std::string, ValueShape>> exports_;
};

} /* namespace vdla::onnx */
