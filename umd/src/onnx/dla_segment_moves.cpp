/* SPDX-License-Identifier: MIT */
/*
 * ONNX's data movement as libvdla's rearrangement layer (dla_segment_moves.h).
 * ONNX lists axes outermost first, OpenVX dimensions innermost first: ONNX
 * axis a of a rank-r tensor is OpenVX dimension r - 1 - a.
 */

#include "dla_segment_moves.h"

#include "op_kernel.h"
#include "ops/shape_ops.h"
#include "tensor_util.h"

#include "nn/nn_rearrange.h"

#include <algorithm>
#include <cerrno>

namespace vdla::onnx {

namespace {

using vdla::vx::nn::RearrangementParams;
using vdla::vx::nn::rearrangementParams;

/* The largest dimension of the DLA's tensors. */
constexpr int64_t kMaxExtent = 65535;

class MoveBuilder
{
public:
	MoveBuilder(SegmentTensors &segment, const Graph &graph, const Node &node,
		    const ShapeMap &shapes)
		: segment_(segment), graph_(graph), node_(node), shapes_(shapes),
		  rank_(int64_t(shapes.at(node.inputs[0]).shape.size()))
	{
	}

	void add()
	{
		const std::string &op = node_.opType;
		if (op == "Transpose")
			transpose();
		else if (op == "Slice")
			slice();
		else if (op == "Split")
			split();
		else if (op == "DepthToSpace" || op == "SpaceToDepth")
			depthSpace();
		else if (op == "Concat")
			concat();
		else
			place(rearrangementParams(vdla::vx::nn::kRearrangeReshape), node_.outputs[0]);
	}

private:
	/* OpenVX dimension of ONNX axis @axis. */
	size_t dimOf(int64_t axis) const { return size_t(rank_ - 1 - axis); }

	void place(const RearrangementParams &params, const std::string &output)
	{
		if (segment_.isEmpty(output))
			return;
		vx_tensor x = segment_.shaped(node_.inputs[0]);
		vx_tensor y = segment_.output(output);
		segment_.place(vdla::vx::nn::rearrangementNode(segment_.layerGraph(), x, params, y),
			       node_);
	}

	/*
	 * Output axis i is input axis perm[i], on the fewest axes: the input
	 * read and the output written with those (the same bytes).
	 */
	void transpose()
	{
		if (segment_.isEmpty(node_.outputs[0]))
			return;
		const TransposeAxes axes =
			fewestAxes(shapes_.at(node_.inputs[0]).shape, transposePerm(node_, rank_));
		const int64_t rank = int64_t(axes.shape.size());
		RearrangementParams p = rearrangementParams(vdla::vx::nn::kRearrangePermute);
		std::vector<int64_t> outShape(rank);
		for (int64_t i = 0; i < rank; i++) {
			p.permutation[rank - 1 - i] = vx_uint32(rank - 1 - axes.perm[i]);
			outShape[i] = axes.shape[axes.perm[i]];
		}
		vx_tensor x = segment_.shapedAs(node_.inputs[0], axes.shape);
		vx_tensor y = segment_.outputAs(node_.outputs[0], outShape);
		segment_.place(vdla::vx::nn::rearrangementNode(segment_.layerGraph(), x, p, y), node_);
	}

	void slice()
	{
		std::vector<const Tensor *> inputs = { nullptr };
		for (size_t i = 1; i < node_.inputs.size(); i++)
			inputs.push_back(node_.inputs[i].empty() ? nullptr
								 : &segment_.parameter(node_.inputs[i]));
		OpContext ctx(node_, graph_.opset, inputs);
		const SliceAxes axes = sliceAxes(ctx, shapes_.at(node_.inputs[0]).shape);
		RearrangementParams p = rearrangementParams(vdla::vx::nn::kRearrangeSlice);
		const std::vector<int64_t> &in = shapes_.at(node_.inputs[0]).shape;
		for (int64_t a = 0; a < rank_; a++) {
			p.start[dimOf(a)] = vx_uint32(axes.start[a]);
			/* A step past the axis takes one element: any step in range does. */
			p.step[dimOf(a)] = vx_uint32(std::min(axes.step[a], in[a]));
		}
		place(p, node_.outputs[0]);
	}

	/* Each output a slice along the axis, from where the one before ends. */
	void split()
	{
		const Attribute *axisAttr = node_.attribute("axis");
		int64_t axis = axisAttr ? axisAttr->i : 0;
		if (axis < 0)
			axis += rank_;
		if (axis < 0 || axis >= rank_)
			throw OpError(EINVAL, "Split: axis outside the rank");
		int64_t offset = 0;
		for (const std::string &output : node_.outputs) {
			if (output.empty())
				continue;
			RearrangementParams p = rearrangementParams(vdla::vx::nn::kRearrangeSlice);
			p.start[dimOf(axis)] = vx_uint32(offset);
			place(p, output);
			offset += shapes_.at(output).shape.at(axis);
		}
	}

	/* The inputs of elements one after the other along the axis (empty ones add none). */
	void concat()
	{
		const std::string &output = node_.outputs[0];
		if (segment_.isEmpty(output))
			return;
		int64_t axis = graph_.opset < 4 ? 1 : 0;
		if (const Attribute *attr = node_.attribute("axis"))
			axis = attr->i;
		if (axis < 0)
			axis += rank_;
		if (axis < 0 || axis >= rank_)
			throw OpError(EINVAL, "Concat: axis outside the rank");
		std::vector<vx_tensor> inputs;
		for (const std::string &input : node_.inputs)
			if (dimsProduct(shapes_.at(input).shape, 0, shapes_.at(input).shape.size()))
				inputs.push_back(segment_.shaped(input));
		vdla::vx::nn::ConcatenationParams p = { vx_uint32(dimOf(axis)) };
		segment_.place(vdla::vx::nn::concatenationNode(segment_.layerGraph(), inputs.data(),
							       vx_uint32(inputs.size()), p,
							       segment_.output(output)),
			       node_);
	}

	void depthSpace()
	{
		const bool toSpace = node_.opType == "DepthToSpace";
		const Attribute *mode = node_.attribute("mode");
		RearrangementParams p = rearrangementParams(toSpace ? vdla::vx::nn::kRearrangeDepthToSpace
							 : vdla::vx::nn::kRearrangeSpaceToDepth);
		p.block = vx_uint32(node_.attribute("blocksize")->i);
		p.columnRowDepth = toSpace && mode && mode->s == "CRD" ? vx_true_e : vx_false_e;
		place(p, node_.outputs[0]);
	}

	SegmentTensors &segment_;
	const Graph &graph_;
	const Node &node_;
	const ShapeMap &shapes_;
	const int64_t rank_;
};

} /* namespace */

std::vector<int64_t> transposePerm(const Node &node, size_t rank)
{
	const Attribute *attr = node.attribute("perm");
	std::vector<int64_t> perm(rank);
	std::vector<bool> seen(rank, false);
	for (size_t i = 0; i < rank; i++) {
		perm[i] = attr ? (i < attr->ints.size() ? attr->ints[i] : -1) : int64_t(rank - 1 - i);
		if (perm[i] < 0 || perm[i] >= int64_t(rank) || seen[perm[i]])
			throw OpError(EINVAL, "Transpose: perm is not a permutation of the axes");
		seen[perm[i]] = true;
	}
	if (attr && attr->ints.size() != rank)
		throw OpError(EINVAL, "Transpose: perm is not a permutation of the axes");
	return perm;
}

TransposeAxes fewestAxes(const std::vector<int64_t> &shape, const std::vector<int64_t> &perm)
{
	/* The input axes of more than one element, in output order. */
	std::vector<int64_t> order;
	for (int64_t axis : perm)
		if (shape[axis] > 1)
			order.push_back(axis);
	if (order.empty())
		return { { 1 }, { 0 } };
	/*
	 * Runs of consecutive input axes (axes of one element between them
	 * skipped), each one axis of their product, while that stays within
	 * a dimension of the DLA.
	 */
	std::vector<std::vector<int64_t>> runs;
	int64_t product = 0;
	for (int64_t axis : order) {
		if (!runs.empty() && product * shape[axis] <= kMaxExtent) {
			int64_t next = runs.back().back() + 1;
			while (next < axis && shape[next] == 1)
				next++;
			if (next == axis) {
				runs.back().push_back(axis);
				product *= shape[axis];
				continue;
			}
		}
		runs.push_back({ axis });
		product = shape[axis];
	}
	/* The runs in input order are the reduced input's axes. */
	std::vector<size_t> byInput(runs.size());
	for (size_t i = 0; i < runs.size(); i++)
		byInput[i] = i;
	std::sort(byInput.begin(), byInput.end(),
		  [&](size_t a, size_t b) { return runs[a].front() < runs[b].front(); });
	TransposeAxes reduced;
	reduced.shape.resize(runs.size());
	reduced.perm.resize(runs.size());
	for (size_t k = 0; k < byInput.size(); k++) {
		int64_t product = 1;
		for (int64_t axis : runs[byInput[k]])
			product *= shape[axis];
		reduced.shape[k] = product;
		reduced.perm[byInput[k]] = int64_t(k);
	}
	return reduced;
}

void addDataMovement(SegmentTensors &segment, const Graph &graph, const Node &node,
		     const ShapeMap &shapes)
{
	MoveBuilder(segment, graph, node, shapes).add();
}

} /* namespace vdla::onnx */
