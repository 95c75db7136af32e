/* SPDX-License-Identifier: MIT */
/*
 * ONNX tensors are row-major [N, C, H, W]; OpenVX lists a tensor's
 * dimensions fastest first, [W, H, C, N]. The bytes are the same, so a
 * shape maps by reversing it and data is copied as is. Convolution weights
 * [M, C, KH, KW] are [KW, KH, C, M]; a Gemm's B with transB is [M, K], which
 * the fully connected layer reads as [K, M].
 */

#include "dla_segment.h"

#include "conv_geometry.h"
#include "op_kernel.h"
#include "tensor_util.h"

#include <VX/vx_khr_nn.h>

#include <cerrno>
#include <cstring>

namespace vdla::onnx {

namespace {

std::vector<vx_size> vxDims(const std::vector<int64_t> &shape)
{
	return std::vector<vx_size>(shape.rbegin(), shape.rend());
}

/* Copies between @data and all of @tensor (dims @dims), in either direction. */
vx_status copyWhole(vx_tensor tensor, const std::vector<vx_size> &dims, void *data, vx_enum usage)
{
	std::vector<vx_size> start(dims.size(), 0), stride(dims.size());
	for (size_t i = 0; i < dims.size(); i++)
		stride[i] = i ? stride[i - 1] * dims[i - 1] : sizeof(float);
	return vxCopyTensorPatch(tensor, dims.size(), start.data(), dims.data(), stride.data(), data,
				 usage, VX_MEMORY_TYPE_HOST);
}

/* The dimensions @tensor was created with (a Flatten output has its input's). */
std::vector<vx_size> dimsOf(vx_tensor tensor)
{
	vx_size count = 0;
	vxQueryTensor(tensor, VX_TENSOR_NUMBER_OF_DIMS, &count, sizeof(count));
	std::vector<vx_size> dims(count);
	if (count)
		vxQueryTensor(tensor, VX_TENSOR_DIMS, dims.data(), count * sizeof(vx_size));
	return dims;
}

bool failed(vx_reference ref)
{
	return !ref || vxGetStatus(ref) != VX_SUCCESS;
}

} /* namespace */

/* What build() needs while it creates the graph. */
struct SegmentBuilder {
	vx_context context;
	const Graph &graph;
	const ShapeMap &shapes;
	DlaSegment &segment;
	vx_graph vxGraph;
	/* Values that must be real tensors: exported, or aliased by an exported Flatten. */
	std::set<std::string> concrete;

	vx_tensor newTensor(const std::vector<int64_t> &shape, bool isVirtual)
	{
		std::vector<vx_size> dims = vxDims(shape);
		vx_tensor t = isVirtual ? vxCreateVirtualTensor(vxGraph, dims.size(), dims.data(),
								VX_TYPE_FLOAT32, 0)
					: vxCreateTensor(context, dims.size(), dims.data(), VX_TYPE_FLOAT32, 0);
		if (failed(reinterpret_cast<vx_reference>(t)))
			throw OpError(ENOMEM, "cannot create a tensor of " + shapeString(shape));
		segment.owned_.push_back(t);
		return t;
	}

	vx_tensor constantTensor(const Tensor &value, const std::vector<int64_t> &shape)
	{
		vx_tensor t = newTensor(shape, false);
		Tensor copy = value.reshaped(shape);
		if (copyWhole(t, vxDims(shape), copy.raw(), VX_WRITE_ONLY) != VX_SUCCESS)
			throw OpError(EIO, "cannot fill a constant tensor");
		return t;
	}

	/* The tensor of an input value: produced earlier in the segment, or a new segment input. */
	vx_tensor input(const std::string &name)
	{
		auto it = segment.tensors_.find(name);
		if (it != segment.tensors_.end())
			return it->second;
		vx_tensor t = newTensor(shapes.at(name).shape, false);
		segment.tensors_[name] = t;
		segment.inputs_.push_back(name);
		segment.inputShapes_.push_back(shapes.at(name).shape);
		return t;
	}

	vx_tensor output(const std::string &name)
	{
		vx_tensor t = newTensor(shapes.at(name).shape, !concrete.count(name));
		segment.tensors_[name] = t;
		return t;
	}

	const Tensor &constant(const std::string &name)
	{
		return graph.constants.at(name);
	}

	/* A constant is filled once; a value the graph computes is copied in each run. */
	vx_tensor constantOrInput(const std::string &name)
	{
		auto it = graph.constants.find(name);
		if (it == graph.constants.end())
			return input(name);
		return constantTensor(it->second, it->second.shape());
	}

	vx_node conv(const Node &node)
	{
		vx_tensor x = input(node.inputs[0]);
		const std::vector<int64_t> &wShape = shapes.at(node.inputs[1]).shape;
		vx_tensor weights = constantOrInput(node.inputs[1]);
		vx_tensor bias = nullptr;
		if (node.inputs.size() > 2 && !node.inputs[2].empty())
			bias = constantOrInput(node.inputs[2]);
		OpContext ctx(node, graph.opset, {});
		const std::vector<int64_t> &in = shapes.at(node.inputs[0]).shape;
		ConvGeometry g = convGeometry(ctx, { in[2], in[3] }, { wShape[2], wShape[3] });
		const vx_nn_convolution_params_t params = {
			vx_size(g.padBegin[1]), vx_size(g.padBegin[0]), VX_CONVERT_POLICY_SATURATE,
			VX_ROUND_POLICY_TO_NEAREST_EVEN, VX_NN_DS_SIZE_ROUNDING_FLOOR,
			vx_size(g.dilations[1] - 1), vx_size(g.dilations[0] - 1),
		};
		return vxConvolutionLayer(vxGraph, x, weights, bias, &params, sizeof(params),
					  output(node.outputs[0]));
	}

	vx_node pool(const Node &node)
	{
		vx_tensor x = input(node.inputs[0]);
		const std::vector<int64_t> &kernel = node.attribute("kernel_shape")->ints;
		OpContext ctx(node, graph.opset, {});
		const std::vector<int64_t> &in = shapes.at(node.inputs[0]).shape;
		ConvGeometry g = convGeometry(ctx, { in[2], in[3] }, kernel);
		vx_enum type = node.opType == "MaxPool" ? VX_NN_POOLING_MAX : VX_NN_POOLING_AVG;
		return vxPoolingLayer(vxGraph, x, type, kernel[1], kernel[0], g.padBegin[1],
				      g.padBegin[0], VX_NN_DS_SIZE_ROUNDING_FLOOR,
				      output(node.outputs[0]));
	}

	vx_node gemm(const Node &node)
	{
		vx_tensor a = input(node.inputs[0]);
		const Tensor &b = constant(node.inputs[1]);
		const Attribute *transB = node.attribute("transB");
		/* The layer's weights are [#IFM, #OFM] fastest first: B as [M, K]. */
		Tensor weights = b;
		if (!(transB && transB->i)) {
			const int64_t k = b.shape()[0], m = b.shape()[1];
			weights = Tensor(DataType::Float, { m, k });
			for (int64_t i = 0; i < k; i++)
				for (int64_t j = 0; j < m; j++)
					weights.data<float>()[j * k + i] = b.data<float>()[i * m + j];
		}
		const int64_t outputs = weights.shape()[0];
		vx_tensor bias = nullptr;
		if (node.inputs.size() > 2 && !node.inputs[2].empty()) {
			const Tensor &c = constant(node.inputs[2]);
			Tensor perOutput(DataType::Float, { outputs });
			for (int64_t j = 0; j < outputs; j++)
				perOutput.data<float>()[j] = c.data<float>()[c.elements() == 1 ? 0 : j];
			bias = constantTensor(perOutput, { outputs });
		}
		return vxFullyConnectedLayer(vxGraph, a, constantTensor(weights, weights.shape()), bias,
					     VX_CONVERT_POLICY_SATURATE,
					     VX_ROUND_POLICY_TO_NEAREST_EVEN, output(node.outputs[0]));
	}

	/* The node for @node; nullptr for Flatten, which only renames. */
	vx_node add(const Node &node)
	{
		if (node.opType == "Flatten") {
			segment.tensors_[node.outputs[0]] = input(node.inputs[0]);
			return nullptr;
		}
		if (node.opType == "Conv")
			return conv(node);
		if (node.opType == "Relu")
			return vxActivationLayer(vxGraph, input(node.inputs[0]), VX_NN_ACTIVATION_RELU,
						 0, 0, output(node.outputs[0]));
		if (node.opType == "MaxPool" || node.opType == "AveragePool")
			return pool(node);
		return gemm(node);
	}
};

Result<std::unique_ptr<DlaSegment>> DlaSegment::build(vx_context context, const Graph &graph,
						      const std::vector<size_t> &nodes,
						      const ShapeMap &shapes,
						      const std::set<std::string> &exported)
{
	std::unique_ptr<DlaSegment> segment(new DlaSegment());
	segment->nodes_ = nodes;
	segment->label_ = graph.nodes[nodes.front()].name;
	if (nodes.size() > 1)
		segment->label_ += " .. " + graph.nodes[nodes.back()].name;
	segment->graph_ = vxCreateGraph(context);
	if (failed(reinterpret_cast<vx_reference>(segment->graph_)))
		return Error(ENOMEM, "cannot create a graph for " + segment->label_);

	SegmentBuilder builder{ context, graph, shapes, *segment, segment->graph_, exported };
	/* An exported Flatten output aliases its input, which must then be real. */
	for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
		const Node &node = graph.nodes[*it];
		if (node.opType == "Flatten" && builder.concrete.count(node.outputs[0]))
			builder.concrete.insert(node.inputs[0]);
	}

	try {
		for (size_t index : nodes) {
			const Node &node = graph.nodes[index];
			vx_node vxNode = builder.add(node);
			if (node.opType == "Flatten")
				continue;
			if (failed(reinterpret_cast<vx_reference>(vxNode)))
				return Error(EINVAL, "node '" + node.name + "' (" + node.opType +
							     "): the DLA layer refuses its parameters");
			vxSetReferenceName(reinterpret_cast<vx_reference>(vxNode), node.name.c_str());
			vx_status target = vxSetNodeTarget(vxNode, VX_TARGET_STRING, "dla");
			vxReleaseNode(&vxNode);
			if (target != VX_SUCCESS)
				return Error(ENODEV, "node '" + node.name + "': no DLA target (is a vdla "
									 "device present?)");
		}
	} catch (const std::exception &e) {
		return Error(ENOMEM, segment->label_ + ": " + e.what());
	}

	for (const std::string &name : exported)
		if (segment->tensors_.count(name))
			segment->exports_.emplace_back(name, shapes.at(name));
	if (vxVerifyGraph(segment->graph_) != VX_SUCCESS)
		return Error(EINVAL, "the DLA graph of " + segment->label_ +
					     " does not verify (see the OpenVX log)");
	return segment;
}

DlaSegment::~DlaSegment()
{
	for (vx_tensor &t : owned_)
		vxReleaseTensor(&t);
	if (graph_)
		vxReleaseGraph(&graph_);
}

static const Tensor &valueOf(const Graph &graph, const std::map<std::string, Tensor> &values,
			     const std::string &name)
{
	auto it = values.find(name);
	return it != values.end() ? it->second : graph.constants.at(name);
}

std::string DlaSegment::shapeMismatch(const Graph &graph,
				      const std::map<std::string, Tensor> &values) const
{
	for (size_t i = 0; i < inputs_.size(); i++) {
		const Tensor &value = valueOf(graph, values, inputs_[i]);
		if (value.shape() != inputShapes_[i] || value.type() != DataType::Float)
			return "'" + inputs_[i] + "' is " + value.describe() + " in this run, " +
			       shapeString(inputShapes_[i]) + " when the plan was made";
	}
	return "";
}

Result<void> DlaSegment::run(const Graph &graph, std::map<std::string, Tensor> &values) const
{
	for (const std::string &name : inputs_) {
		const Tensor &value = valueOf(graph, values, name);
		/* A write-only copy only reads the buffer. */
		void *data = const_cast<void *>(value.raw());
		if (copyWhole(tensors_.at(name), vxDims(value.shape()), data, VX_WRITE_ONLY) !=
		    VX_SUCCESS)
			return Error(EIO, label_ + ": cannot copy input '" + name + "' to the DLA");
	}
	if (vxProcessGraph(graph_) != VX_SUCCESS)
		return Error(EIO, label_ + ": the DLA graph failed (see the OpenVX log)");
	for (const auto &[name, shape] : exports_) {
		Tensor out(DataType::Float, shape.shape);
		vx_tensor tensor = tensors_.at(name);
		if (copyWhole(tensor, dimsOf(tensor), out.raw(), VX_READ_ONLY) !=
		    VX_SUCCESS)
			return Error(EIO, label_ + ": cannot read '" + name + "' from the DLA");
		values[name] = std::move(out);
	}
	return {};
}

} /* namespace vdla::onnx */
