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
#include "dla_quant_conv.h"
#include "dla_segment_elementwise.h"
#include "dla_segment_moves.h"
#include "op_kernel.h"
#include "ops/shape_ops.h"
#include "tensor_util.h"

#include <VX/vx_khr_nn.h>

#include "nn/nn_convolution.h"
#include "nn/nn_dequantize.h"
#include "nn/nn_rearrange.h"

#include <cerrno>
#include <cstring>

namespace vdla::onnx {

namespace {

std::vector<vx_size> vxDims(const std::vector<int64_t> &shape)
{
	return std::vector<vx_size>(shape.rbegin(), shape.rend());
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

/*
 * Copies between @data and all of @tensor, in either direction, packed with
 * the tensor's own dimensions: an alias (Flatten, Unsqueeze) holds the
 * same bytes under other dimensions.
 */
vx_status copyWhole(vx_tensor tensor, void *data, vx_enum usage)
{
	const std::vector<vx_size> dims = dimsOf(tensor);
	vx_size element = 0;
	vx_enum type = VX_TYPE_FLOAT32;
	vxQueryTensor(tensor, VX_TENSOR_DATA_TYPE, &type, sizeof(type));
	element = type == VX_TYPE_INT8 ? 1 : type == VX_TYPE_INT16 ? 2 : 4;
	std::vector<vx_size> start(dims.size(), 0), stride(dims.size());
	for (size_t i = 0; i < dims.size(); i++)
		stride[i] = i ? stride[i - 1] * dims[i - 1] : element;
	return vxCopyTensorPatch(tensor, dims.size(), start.data(), dims.data(), stride.data(), data,
				 usage, VX_MEMORY_TYPE_HOST);
}

/* The element type of the segment's tensor for a value of @type. */
vx_enum vxTypeOf(DataType type)
{
	switch (type) {
	case DataType::Int8:
	case DataType::Uint8:
		return VX_TYPE_INT8;
	case DataType::Int16:
		return VX_TYPE_INT16;
	case DataType::Int32:
		return VX_TYPE_INT32;
	default:
		return VX_TYPE_FLOAT32;
	}
}

/* uint8 <-> its int8 representation on the DLA (less 128): the top bit flips. */
void flipTopBits(Tensor &t)
{
	uint8_t *bytes = static_cast<uint8_t *>(t.raw());
	for (int64_t i = 0; i < t.elements(); i++)
		bytes[i] ^= 0x80;
}

/* A 2-D float tensor transposed. */
Tensor transposed(const Tensor &t)
{
	const int64_t rows = t.shape()[0], columns = t.shape()[1];
	Tensor out(DataType::Float, { columns, rows });
	for (int64_t i = 0; i < rows; i++)
		for (int64_t j = 0; j < columns; j++)
			out.data<float>()[j * rows + i] = t.data<float>()[i * columns + j];
	return out;
}

bool failed(vx_reference ref)
{
	return !ref || vxGetStatus(ref) != VX_SUCCESS;
}

/*
 * The graph engine's messages while this thread verifies or runs a
 * segment: why a node cannot run on the DLA (a limit only the lowering
 * knows) or why a run failed reaches the caller's error.
 */
thread_local std::string verifyLog;

void VX_CALLBACK keepMessage(vx_context, vx_reference, vx_status, const vx_char string[])
{
	if (verifyLog.size() >= 4096)
		return;
	if (!verifyLog.empty())
		verifyLog += "; ";
	verifyLog += string;
}

} /* namespace */

void DlaSegment::captureLog(vx_context context)
{
	vxRegisterLogCallback(context, keepMessage, vx_true_e);
}

/* A 1-D geometry as 2-D: the axis is the width; the height is 1, unpadded. */
static void asTwoD(ConvGeometry &g)
{
	for (std::vector<int64_t> *v : { &g.kernel, &g.strides, &g.dilations })
		v->insert(v->begin(), 1);
	g.padBegin.insert(g.padBegin.begin(), 0);
	g.padEnd.insert(g.padEnd.begin(), 0);
}

/* The convolution layer's geometry for a 2-D @g, [H, W] in that order. */
static vdla::vx::nn::ConvolutionParams layerParams(const ConvGeometry &g, int64_t groups)
{
	vdla::vx::nn::ConvolutionParams params = {};
	params.padLeft = uint32_t(g.padBegin[1]);
	params.padRight = uint32_t(g.padEnd[1]);
	params.padTop = uint32_t(g.padBegin[0]);
	params.padBottom = uint32_t(g.padEnd[0]);
	params.strideX = uint32_t(g.strides[1]);
	params.strideY = uint32_t(g.strides[0]);
	params.dilationX = uint32_t(g.dilations[1]);
	params.dilationY = uint32_t(g.dilations[0]);
	params.groups = uint32_t(groups);
	params.relu = vx_false_e;
	return params;
}

/* What build() needs while it creates the graph. */
struct SegmentBuilder : SegmentTensors {
	SegmentBuilder(vx_context context, const Graph &graph, const ShapeMap &shapes,
		       DlaSegment &segment, const std::set<std::string> &exported)
		: context(context), graph(graph), shapes(shapes), segment(segment),
		  vxGraph(segment.graph_), concrete(exported)
	{
	}

	vx_context context;
	const Graph &graph;
	const ShapeMap &shapes;
	DlaSegment &segment;
	vx_graph vxGraph;
	/* Values that must be real tensors: exported, or aliased by an exported alias. */
	std::set<std::string> concrete;
	/* Max nodes a QLinearConv took as its Relu (quantConv()). */
	std::set<const Node *> absorbed;
	/* The values copied in (not computed by the segment's nodes). */
	std::set<std::string> inputNames;
	/* The ONNX node being added, whose name the nodes made for it take. */
	const Node *current = nullptr;

	vx_graph layerGraph() override { return vxGraph; }

	bool isEmpty(const std::string &name) override
	{
		for (int64_t d : shapes.at(name).shape)
			if (d == 0) {
				segment.empties_.insert(name);
				return true;
			}
		return false;
	}

	void place(vx_node node, const Node &onnx) override
	{
		if (failed(reinterpret_cast<vx_reference>(node)))
			throw OpError(EINVAL, "node '" + onnx.name + "' (" + onnx.opType +
						      "): the DLA layer refuses its parameters");
		vxSetReferenceName(reinterpret_cast<vx_reference>(node), onnx.name.c_str());
		vx_status target = vxSetNodeTarget(node, VX_TARGET_STRING, "dla");
		/* Kept for its device time (run()); released with the segment. */
		segment.layerNodes_.emplace_back(size_t(&onnx - graph.nodes.data()), node);
		if (target != VX_SUCCESS)
			throw OpError(ENODEV, "node '" + onnx.name +
						      "': no DLA target (is a vdla device present?)");
	}

	const Tensor &parameter(const std::string &name) override
	{
		const Tensor *known = knownValue(graph, shapes, name);
		if (!known)
			throw OpError(ENOTSUP, "'" + name + "' is not a value the plan knows");
		/* Checked before each run: it must come from outside the segment. */
		if (segment.tensors_.count(name) && !inputNames.count(name))
			throw OpError(ENOTSUP, "parameter '" + name + "' is computed in the segment");
		if (!graph.constants.count(name))
			segment.parameters_.emplace(name, *known);
		return *known;
	}

	/*
	 * @name's value as a tensor of @shape (as many elements): its tensor
	 * when it has those dimensions, else a RESHAPE copy of it (an alias
	 * gave it its input's); a value from outside is copied in as @shape.
	 */
	vx_tensor shapedAs(const std::string &name, const std::vector<int64_t> &shape) override
	{
		const ValueShape &value = shapes.at(name);
		auto it = segment.tensors_.find(name);
		if (it == segment.tensors_.end()) {
			vx_tensor t = newTensor(shape, false, value.type);
			segment.tensors_[name] = t;
			segment.inputs_.push_back({ name, value, t, nullptr });
			inputNames.insert(name);
			return t;
		}
		if (dimsOf(it->second) == vxDims(shape))
			return it->second;
		const std::string key = name + "#" + shapeString(shape);
		auto copy = segment.tensors_.find(key);
		if (copy != segment.tensors_.end())
			return copy->second;
		vx_tensor y = newTensor(shape, true, value.type);
		place(reshapeNode(it->second, y), *current);
		segment.tensors_[key] = y;
		return y;
	}

	vx_tensor shaped(const std::string &name) override
	{
		return shapedAs(name, shapes.at(name).shape);
	}

	/* A RESHAPE copy of @x into @y, of as many elements. */
	vx_node reshapeNode(vx_tensor x, vx_tensor y)
	{
		return vdla::vx::nn::rearrangementNode(
			vxGraph, x, vdla::vx::nn::rearrangementParams(vdla::vx::nn::kRearrangeReshape), y);
	}

	vx_tensor newTensor(const std::vector<int64_t> &shape, bool isVirtual,
			    DataType type = DataType::Float)
	{
		std::vector<vx_size> dims = vxDims(shape);
		const vx_enum vxType = vxTypeOf(type);
		vx_tensor t = isVirtual ? vxCreateVirtualTensor(vxGraph, dims.size(), dims.data(),
								vxType, 0)
					: vxCreateTensor(context, dims.size(), dims.data(), vxType, 0);
		if (failed(reinterpret_cast<vx_reference>(t)))
			throw OpError(ENOMEM, "cannot create a tensor of " + shapeString(shape));
		segment.owned_.push_back(t);
		return t;
	}

	vx_tensor constantTensor(const Tensor &value, const std::vector<int64_t> &shape)
	{
		vx_tensor t = newTensor(shape, false, value.type());
		Tensor copy = value.reshaped(shape);
		if (copyWhole(t, copy.raw(), VX_WRITE_ONLY) != VX_SUCCESS)
			throw OpError(EIO, "cannot fill a constant tensor");
		return t;
	}

	/* The tensor of an input value: produced earlier in the segment, or a new segment input. */
	vx_tensor input(const std::string &name)
	{
		auto it = segment.tensors_.find(name);
		if (it != segment.tensors_.end())
			return it->second;
		const ValueShape &value = shapes.at(name);
		vx_tensor t = newTensor(value.shape, false, value.type);
		segment.tensors_[name] = t;
		segment.inputs_.push_back({ name, value, t, nullptr });
		inputNames.insert(name);
		return t;
	}

	/*
	 * @name's value copied in as @prepare makes it, into a tensor of
	 * @shape registered as @key (the value itself may be another node's
	 * input as it is).
	 */
	vx_tensor preparedInput(const std::string &key, const std::string &name,
				const std::vector<int64_t> &shape,
				std::function<Tensor(const Tensor &)> prepare)
	{
		const ValueShape &value = shapes.at(name);
		if (segment.tensors_.count(name) && !inputNames.count(name))
			throw OpError(ENOTSUP, "'" + name + "' is computed in the segment; the "
							  "copy-in that prepares it cannot see it");
		vx_tensor t = newTensor(shape, false, value.type);
		segment.tensors_[key] = t;
		segment.inputs_.push_back({ name, value, t, std::move(prepare) });
		return t;
	}

	vx_tensor output(const std::string &name) override
	{
		return outputAs(name, shapes.at(name).shape);
	}

	vx_tensor outputAs(const std::string &name, const std::vector<int64_t> &shape) override
	{
		vx_tensor t = newTensor(shape, !concrete.count(name), shapes.at(name).type);
		segment.tensors_[name] = t;
		return t;
	}

	std::string takeRelu(const std::string &value) override
	{
		const Node *max = onlyReader(value);
		if (!max || max->opType != "Max" || concrete.count(value))
			return "";
		absorbed.insert(max);
		return max->outputs[0];
	}

	/* The only node of the segment reading @value, or nullptr. */
	const Node *onlyReader(const std::string &value) const
	{
		const Node *reader = nullptr;
		for (size_t index : segment.nodes_) {
			const Node &node = graph.nodes[index];
			for (const std::string &input : node.inputs) {
				if (input != value)
					continue;
				if (reader && reader != &node)
					return nullptr;
				reader = &node;
			}
		}
		return reader;
	}

	/*
	 * The tensor of @name, a value of @n rows of @k, when the segment
	 * holds it as [N, C, H, W] with N = @n and C * H * W = @k (the same
	 * bytes, a Flatten's input) and a 1x1 layer can read it so, its kernel
	 * spread over C, H and W within the CONV's limits.
	 */
	std::optional<vx_tensor> flattenedKernelInput(const std::string &name, int64_t n, int64_t k)
	{
		auto it = segment.tensors_.find(name);
		if (it == segment.tensors_.end())
			return std::nullopt;
		std::vector<vx_size> d = dimsOf(it->second);
		if (d.size() != 4 || int64_t(d[3]) != n || int64_t(d[0] * d[1] * d[2]) != k ||
		    d[0] > 32 || d[1] > 32 || k > 65536)
			return std::nullopt;
		return it->second;
	}

	/*
	 * QLinearConv, QLinearMatMul, ConvInteger and MatMulInteger as the
	 * runtime's quantised convolution (the last two without multipliers:
	 * their INT32 sums). A following Max
	 * with its output zero point (the fused Relu of a QDQ model,
	 * docs/onnx.md) becomes the layer's Relu. An input aliased from a
	 * 4-D tensor (Flatten, Unsqueeze: a fused Gemm) is read as that
	 * tensor, with the 1x1 kernel spread over its C, H and W.
	 */
	vx_node quantConv(const Node &node)
	{
		QuantConvLayer layer;
		const std::string why = prepareQuantConv(graph, node, shapes, layer);
		if (!why.empty())
			throw OpError(ENOTSUP, why);
		/* Its scales, zero points, weights and bias, for each run to check. */
		for (size_t i = 1; i < node.inputs.size(); i++)
			if (!node.inputs[i].empty())
				parameter(node.inputs[i]);
		std::vector<int64_t> wShape = layer.weightShape;
		vdla::vx::nn::ConvolutionParams params = layerParams(layer.geometry, layer.groups);
		std::vector<int64_t> xShape = shapes.at(node.inputs[0]).shape;
		/* QLinearMatMul, MatMulInteger: A [..., K] as [N, K, 1, 1], the same bytes. */
		const bool matMul = isMatMul(node);
		if (matMul)
			xShape = { dimsProduct(xShape, 0, xShape.size() - 1), xShape.back(), 1, 1 };
		if (xShape.size() != 4)
			throw OpError(ENOTSUP, node.opType + "'s input is not [N, C, H, W] on the DLA");
		const ConvGeometry &g = layer.geometry;
		const bool pointwise = layer.groups == 1 && g.kernel == std::vector<int64_t>{ 1, 1 } &&
				       g.padBegin == std::vector<int64_t>{ 0, 0 } &&
				       g.padEnd == std::vector<int64_t>{ 0, 0 };
		vx_tensor x;
		if (std::optional<vx_tensor> spread = flattenedKernelInput(
			    node.inputs[0], xShape[0], xShape[1] * xShape[2] * xShape[3]);
		    spread && pointwise && xShape[2] == 1 && xShape[3] == 1) {
			/* A 1x1 kernel over a Flatten's [N, C * H * W]: spread over C, H and W. */
			x = *spread;
			std::vector<vx_size> xDims = dimsOf(x);
			wShape = { wShape[0], int64_t(xDims[2]), int64_t(xDims[1]), int64_t(xDims[0]) };
			params.strideX = params.strideY = params.dilationX = params.dilationY = 1;
		} else {
			x = shapedAs(node.inputs[0], xShape);
		}
		params.inputZero = layer.inputZero;
		params.outputZero = layer.outputZero;
		params.relu = vx_false_e;

		std::string out = node.outputs[0];
		if (std::string relu = layer.sums ? "" : takeRelu(out); !relu.empty()) {
			params.relu = vx_true_e;
			out = relu;
		}
		/* INT16 only for weights beyond int8 (a far zero point). */
		const bool wide = std::any_of(layer.weights.begin(), layer.weights.end(),
					      [](int16_t v) { return v < -128 || v > 127; });
		Tensor weights(wide ? DataType::Int16 : DataType::Int8, wShape);
		if (wide)
			std::copy(layer.weights.begin(), layer.weights.end(), weights.data<int16_t>());
		else
			std::copy(layer.weights.begin(), layer.weights.end(), weights.data<int8_t>());
		const int64_t outputs = wShape[0];
		Tensor bias(DataType::Int32, { outputs });
		std::copy(layer.bias.begin(), layer.bias.end(), bias.data<int32_t>());
		Tensor multipliers(DataType::Float, { outputs });
		std::copy(layer.multipliers.begin(), layer.multipliers.end(),
			  multipliers.data<float>());
		vx_tensor y = matMul ? outputAs(out, { xShape[0], outputs, 1, 1 }) : output(out);
		if (params.relu)
			segment.tensors_[node.outputs[0]] = y;
		/* ConvInteger, MatMulInteger: the INT32 sums, no bias or multipliers. */
		return vdla::vx::nn::generalConvolutionNode(
			vxGraph, x, constantTensor(weights, wShape),
			layer.sums ? nullptr : constantTensor(bias, { outputs }),
			layer.sums ? nullptr : constantTensor(multipliers, { outputs }), params, y);
	}

	const Tensor &constant(const std::string &name)
	{
		return graph.constants.at(name);
	}

	/*
	 * A constant is filled once; a value the graph computes is copied in
	 * each run, or read under its own shape when the segment computes it
	 * (an alias has its input's dimensions).
	 */
	vx_tensor constantOrInput(const std::string &name)
	{
		auto it = graph.constants.find(name);
		if (it == graph.constants.end())
			return shaped(name);
		return constantTensor(it->second, it->second.shape());
	}

	/* @name's value as a 4-D tensor: a 1-D [N, C, L] one as [N, C, 1, L]. */
	vx_tensor input4d(const std::string &name)
	{
		const std::vector<int64_t> &s = shapes.at(name).shape;
		if (s.size() != 3)
			return shaped(name);
		return shapedAs(name, { s[0], s[1], 1, s[2] });
	}

	/*
	 * A 3-D Conv as a 2-D one: the depth taps stacked into channels
	 * ([N, C, D, H, W] -> [N * OD, C * KD, H, W], zeros for the depth's
	 * padding), the weights [M, C / G, KD, KH, KW] read as [M, C / G * KD,
	 * KH, KW] (the same bytes, the same channel order), and the output
	 * [N * OD, M, OH, OW] = [N, OD, M, OH * OW] permuted to [N, M, OD, OH * OW].
	 */
	vx_node conv3d(const Node &node)
	{
		const std::vector<int64_t> &in = shapes.at(node.inputs[0]).shape;
		const std::vector<int64_t> &w = shapes.at(node.inputs[1]).shape;
		const std::vector<int64_t> &out = shapes.at(node.outputs[0]).shape;
		const DataType type = shapes.at(node.inputs[0]).type;
		OpContext ctx(node, graph.opset, {});
		ConvGeometry g = convGeometry(ctx, { in[2], in[3], in[4] }, { w[2], w[3], w[4] });
		const int64_t n = in[0], c = in[1], m = w[0], taps = w[2];
		const int64_t depths = out[2], plane = out[3] * out[4];

		vx_tensor x = shapedAs(node.inputs[0], { n * c, in[2], in[3], in[4] });
		vx_tensor stacked = newTensor({ n * depths, c * taps, in[3], in[4] }, true, type);
		vdla::vx::nn::RearrangementParams stack =
			vdla::vx::nn::rearrangementParams(vdla::vx::nn::kRearrangeDepthStack);
		stack.block = uint32_t(taps);
		stack.start[0] = uint32_t(g.padBegin[0]);
		stack.step[0] = uint32_t(g.strides[0]);
		stack.step[1] = uint32_t(g.dilations[0]);
		place(vdla::vx::nn::rearrangementNode(vxGraph, x, stack, stacked), node);

		for (std::vector<int64_t> *v :
		     { &g.kernel, &g.strides, &g.dilations, &g.padBegin, &g.padEnd })
			v->erase(v->begin());
		const std::vector<int64_t> flatWeights = { m, w[1] * taps, w[3], w[4] };
		auto constant = graph.constants.find(node.inputs[1]);
		vx_tensor weights = constant != graph.constants.end()
					    ? constantTensor(constant->second, flatWeights)
					    : shapedAs(node.inputs[1], flatWeights);
		vx_tensor bias = nullptr;
		if (node.inputs.size() > 2 && !node.inputs[2].empty())
			bias = constantOrInput(node.inputs[2]);
		const Attribute *group = node.attribute("group");
		vx_tensor flat = newTensor({ n * depths, m, out[3], out[4] }, true, type);
		place(vdla::vx::nn::generalConvolutionNode(vxGraph, stacked, weights, bias, nullptr,
							   layerParams(g, group ? group->i : 1),
							   flat),
		      node);

		vx_tensor byImage = newTensor({ n, depths, m, plane }, true, type);
		place(reshapeNode(flat, byImage), node);
		vdla::vx::nn::RearrangementParams swap =
			vdla::vx::nn::rearrangementParams(vdla::vx::nn::kRearrangePermute);
		/* OpenVX [P, M, OD, N] -> [P, OD, M, N]. */
		const vx_uint32 order[4] = { 0, 2, 1, 3 };
		std::copy(order, order + 4, swap.permutation);
		return vdla::vx::nn::rearrangementNode(vxGraph, byImage, swap,
						       outputAs(node.outputs[0],
								{ n, m, depths, plane }));
	}

	/*
	 * A float Conv as libvdla's own convolution, which takes groups, each
	 * side's padding and explicit strides; 1-D as 2-D of height 1, 3-D
	 * by conv3d().
	 */
	vx_node conv(const Node &node)
	{
		if (shapes.at(node.inputs[1]).shape.size() == 5)
			return conv3d(node);
		vx_tensor x = input4d(node.inputs[0]);
		if (dimsOf(x).size() != 4)
			throw OpError(ENOTSUP, "Conv's input is not [N, C, H, W] on the DLA");
		std::vector<int64_t> wShape = shapes.at(node.inputs[1]).shape;
		std::vector<int64_t> in = shapes.at(node.inputs[0]).shape;
		std::vector<int64_t> outShape = shapes.at(node.outputs[0]).shape;
		const bool oneD = wShape.size() == 3;
		OpContext ctx(node, graph.opset, {});
		ConvGeometry g = oneD ? convGeometry(ctx, { in[2] }, { wShape[2] })
				      : convGeometry(ctx, { in[2], in[3] }, { wShape[2], wShape[3] });
		if (oneD) {
			asTwoD(g);
			wShape.insert(wShape.begin() + 2, 1);
			outShape.insert(outShape.begin() + 2, 1);
		}
		if (oneD && !graph.constants.count(node.inputs[1]))
			throw OpError(ENOTSUP, "1-D Conv weights computed by the graph");
		vx_tensor weights = oneD ? constantTensor(graph.constants.at(node.inputs[1]), wShape)
					 : constantOrInput(node.inputs[1]);
		vx_tensor bias = nullptr;
		if (node.inputs.size() > 2 && !node.inputs[2].empty())
			bias = constantOrInput(node.inputs[2]);
		const Attribute *group = node.attribute("group");
		const vdla::vx::nn::ConvolutionParams params = layerParams(g, group ? group->i : 1);
		vx_tensor y = newTensor(outShape, !concrete.count(node.outputs[0]));
		segment.tensors_[node.outputs[0]] = y;
		return vdla::vx::nn::generalConvolutionNode(vxGraph, x, weights, bias, nullptr, params,
							    y);
	}

	/*
	 * MaxPool and AveragePool as libvdla's own pooling: the PDP's padding
	 * on each side, strides, ceil mode, count_include_pad; 1-D as 2-D;
	 * 3-D as two 2-D poolings, of each depth's planes, then along the
	 * depth (the window, its count and its padding are per axis, so MAX of
	 * MAX and AVG of AVG are the 3-D ones).
	 */
	vx_node pool(const Node &node)
	{
		const std::vector<int64_t> &kernel = node.attribute("kernel_shape")->ints;
		const std::vector<int64_t> &in = shapes.at(node.inputs[0]).shape;
		const std::vector<int64_t> &out = shapes.at(node.outputs[0]).shape;
		const Attribute *ceil = node.attribute("ceil_mode");
		const Attribute *count = node.attribute("count_include_pad");
		OpContext ctx(node, graph.opset, {});
		ConvGeometry g = convGeometry(ctx, std::vector<int64_t>(in.begin() + 2, in.end()),
					      kernel, ceil && ceil->i);
		if (kernel.size() == 1)
			asTwoD(g);
		vdla::vx::nn::PoolingParams params = {};
		params.type = node.opType == "MaxPool" ? VX_NN_POOLING_MAX : VX_NN_POOLING_AVG;
		params.ceil = ceil && ceil->i ? vx_true_e : vx_false_e;
		params.includePad = count && count->i ? vx_true_e : vx_false_e;
		/* Axes @y and @x of the geometry as the pooling's H and W. */
		auto window = [&](size_t y, size_t x) {
			vdla::vx::nn::PoolingParams p = params;
			p.sizeX = uint32_t(g.kernel[x]);
			p.sizeY = uint32_t(g.kernel[y]);
			p.strideX = uint32_t(g.strides[x]);
			p.strideY = uint32_t(g.strides[y]);
			p.padLeft = uint32_t(g.padBegin[x]);
			p.padRight = uint32_t(g.padEnd[x]);
			p.padTop = uint32_t(g.padBegin[y]);
			p.padBottom = uint32_t(g.padEnd[y]);
			return p;
		};
		const DataType type = shapes.at(node.outputs[0]).type;
		if (kernel.size() != 3) {
			vx_tensor x = input4d(node.inputs[0]);
			std::vector<int64_t> outShape = out;
			if (kernel.size() == 1)
				outShape.insert(outShape.begin() + 2, 1);
			return vdla::vx::nn::generalPoolingNode(vxGraph, x, window(0, 1),
								outputAs(node.outputs[0], outShape));
		}
		/* [N, C * D, H, W] -> [N, C * D, OH, OW] = [N, C, D, OH * OW] -> [N, C, OD, OH * OW]. */
		const int64_t n = in[0], c = in[1], d = in[2], planes = out[3] * out[4];
		vx_tensor x = shapedAs(node.inputs[0], { n, c * d, in[3], in[4] });
		vx_tensor pooled = newTensor({ n, c * d, out[3], out[4] }, true, type);
		place(vdla::vx::nn::generalPoolingNode(vxGraph, x, window(1, 2), pooled), node);
		vx_tensor byDepth = newTensor({ n, c, d, planes }, true, type);
		place(reshapeNode(pooled, byDepth), node);
		g.kernel[2] = g.strides[2] = 1;
		g.padBegin[2] = g.padEnd[2] = 0;
		return vdla::vx::nn::generalPoolingNode(vxGraph, byDepth, window(0, 2),
							outputAs(node.outputs[0], { n, c, out[2], planes }));
	}

	/* Whether a Gemm's C of @shape holds one value, or one per output of @m. */
	static bool perOutput(const std::vector<int64_t> &shape, int64_t m)
	{
		const int64_t elements = dimsProduct(shape, 0, shape.size());
		return (elements == 1 || elements == m) && (shape.size() < 2 || shape[0] == 1);
	}

	/*
	 * Gemm as libvdla's own convolution with a 1x1 kernel over [N, K, 1,
	 * 1]: W = alpha * B, as [M, K] (B transposed unless transB), and the
	 * bias beta * C, one per output, or a matrix C added by the SDP. A
	 * constant B or C is prepared once; a graph value's copy-in does the
	 * same each run, as does an input A's transposition. An A that a
	 * Flatten of [N, C, H, W] renames is read as that tensor, the kernel
	 * spread over its C, H and W.
	 */
	vx_node gemm(const Node &node)
	{
		const Attribute *transA = node.attribute("transA");
		const Attribute *transB = node.attribute("transB");
		const Attribute *alphaAttr = node.attribute("alpha");
		const Attribute *betaAttr = node.attribute("beta");
		const bool aTransposed = transA && transA->i, bTransposed = transB && transB->i;
		const float alpha = alphaAttr ? alphaAttr->f : 1.0f;
		const float beta = betaAttr ? betaAttr->f : 1.0f;
		const std::vector<int64_t> &aShape = shapes.at(node.inputs[0]).shape;
		const std::vector<int64_t> &bShape = shapes.at(node.inputs[1]).shape;
		const int64_t n = aShape[aTransposed ? 1 : 0], k = aShape[aTransposed ? 0 : 1];
		const int64_t m = bShape[bTransposed ? 0 : 1];

		vx_tensor a;
		if (aTransposed)
			a = preparedInput(node.name + "#a", node.inputs[0], { n, k, 1, 1 },
					  transposed);
		else if (std::optional<vx_tensor> spread = flattenedKernelInput(node.inputs[0], n, k))
			a = *spread;
		else
			a = shapedAs(node.inputs[0], { n, k, 1, 1 });
		std::vector<vx_size> aDims = dimsOf(a);
		if (aDims.size() != 4)
			throw OpError(ENOTSUP, "Gemm's A is not [N, K] on the DLA");
		/* [M, C, H, W] for a 4-D A: the same bytes as [M, K]. */
		const std::vector<int64_t> wShape = { m, int64_t(aDims[2]), int64_t(aDims[1]),
						      int64_t(aDims[0]) };
		auto prepareB = [bTransposed, alpha](const Tensor &b) {
			Tensor w = bTransposed ? b : transposed(b);
			for (int64_t i = 0; i < w.elements(); i++)
				w.data<float>()[i] *= alpha;
			return w;
		};
		vx_tensor weights;
		if (graph.constants.count(node.inputs[1]))
			weights = constantTensor(prepareB(graph.constants.at(node.inputs[1])), wShape);
		else
			weights = preparedInput(node.name + "#b", node.inputs[1], wShape, prepareB);
		vx_tensor bias = nullptr, addend = nullptr;
		const bool hasC = node.inputs.size() > 2 && !node.inputs[2].empty();
		const bool cComputedHere = hasC && segment.tensors_.count(node.inputs[2]) &&
					   !inputNames.count(node.inputs[2]);
		if (cComputedHere && beta == 1 &&
		    shapes.at(node.inputs[2]).shape == std::vector<int64_t>{ n, m }) {
			/* A C the segment computes, added as it is. */
			addend = shapedAs(node.inputs[2], { n, m, 1, 1 });
		} else if (hasC && !perOutput(shapes.at(node.inputs[2]).shape, m)) {
			/* A matrix C: beta * C broadcast to [N, M], the SDP's element-wise add. */
			auto prepareC = [n, m, beta](const Tensor &c) {
				const std::vector<int64_t> &s = c.shape();
				const int64_t rows = s.size() == 2 ? s[0] : 1;
				const int64_t columns = s.empty() ? 1 : s.back();
				Tensor full(DataType::Float, { n, m, 1, 1 });
				for (int64_t i = 0; i < n; i++)
					for (int64_t j = 0; j < m; j++)
						full.data<float>()[i * m + j] =
							beta * c.data<float>()[(rows == 1 ? 0 : i) * columns +
										(columns == 1 ? 0 : j)];
				return full;
			};
			if (graph.constants.count(node.inputs[2]))
				addend = constantTensor(prepareC(graph.constants.at(node.inputs[2])),
							{ n, m, 1, 1 });
			else
				addend = preparedInput(node.name + "#c", node.inputs[2], { n, m, 1, 1 },
						       prepareC);
		} else if (hasC) {
			auto prepareC = [m, beta](const Tensor &c) {
				Tensor perOutput(DataType::Float, { m });
				for (int64_t j = 0; j < m; j++)
					perOutput.data<float>()[j] =
						beta * c.data<float>()[c.elements() == 1 ? 0 : j];
				return perOutput;
			};
			if (graph.constants.count(node.inputs[2]))
				bias = constantTensor(prepareC(graph.constants.at(node.inputs[2])), { m });
			else
				bias = preparedInput(node.name + "#c", node.inputs[2], { m }, prepareC);
		}
		vdla::vx::nn::ConvolutionParams params = {};
		params.strideX = params.strideY = params.dilationX = params.dilationY = 1;
		params.groups = 1;
		params.relu = vx_false_e;
		vx_tensor y = newTensor({ n, m, 1, 1 }, !concrete.count(node.outputs[0]));
		segment.tensors_[node.outputs[0]] = y;
		return vdla::vx::nn::generalConvolutionNode(vxGraph, a, weights, bias, nullptr, params,
							    y, addend);
	}

	/*
	 * DequantizeLinear as libvdla's dequantisation: zero points and
	 * scales as constants (uint8 held as int8 less 128, a left-out zero
	 * point 0 of x's type), the axis of a per-axis scale as C.
	 */
	vx_node dequantize(const Node &node)
	{
		const ValueShape &x = shapes.at(node.inputs[0]);
		const Tensor &scale = parameter(node.inputs[1]);
		const bool hasZero = node.inputs.size() > 2 && !node.inputs[2].empty();
		const Tensor *zero = hasZero ? &parameter(node.inputs[2]) : nullptr;
		const bool perAxis = scale.rank() == 1 && scale.elements() > 1;
		const std::vector<int64_t> shape = dequantizeShape(node, x.shape, perAxis);
		const int64_t count = scale.elements();
		Tensor zeros(DataType::Int32, { count }), scales(DataType::Float, { count });
		for (int64_t k = 0; k < count; k++) {
			const int32_t z = !zero ? 0
					  : zero->type() == DataType::Uint8 ? zero->data<uint8_t>()[k]
									    : zero->data<int8_t>()[k];
			zeros.data<int32_t>()[k] = asSigned(x.type, z);
			scales.data<float>()[k] = scale.data<float>()[k];
		}
		return vdla::vx::nn::dequantizeNode(vxGraph, shapedAs(node.inputs[0], shape),
						    constantTensor(zeros, { count }),
						    constantTensor(scales, { count }),
						    outputAs(node.outputs[0], shape));
	}

	/*
	 * Adds the nodes computing @node. A Reshape, Flatten, Squeeze,
	 * Unsqueeze or Identity of a value a node of the segment computes
	 * names the same tensor; a Max taken as a Relu adds nothing.
	 */
	void add(const Node &node)
	{
		current = &node;
		if (movesData(node.opType)) {
			for (size_t i = 1; i < node.inputs.size() && node.opType != "Concat"; i++)
				if (!node.inputs[i].empty())
					parameter(node.inputs[i]);
			const std::string &x = node.inputs[0];
			if (renamesData(node.opType) && segment.tensors_.count(x) &&
			    !inputNames.count(x)) {
				segment.tensors_[node.outputs[0]] = segment.tensors_.at(x);
				return;
			}
			addDataMovement(*this, graph, node, shapes);
			return;
		}
		if (absorbed.count(&node))
			return;
		if (isElementwise(node)) {
			addElementwise(*this, node, shapes);
			return;
		}
		place(layer(node), node);
	}

	vx_node layer(const Node &node)
	{
		if (convolvesIntegers(node.opType))
			return quantConv(node);
		if (node.opType == "Conv")
			return conv(node);
		if (node.opType == "Relu") {
			/* The output takes the input tensor's dimensions, which a
			 * Gemm or 1-D layer before may have made 4-D: the same bytes. */
			vx_tensor x = input(node.inputs[0]);
			std::vector<vx_size> dims = dimsOf(x);
			vx_tensor y = newTensor(std::vector<int64_t>(dims.rbegin(), dims.rend()),
						!concrete.count(node.outputs[0]));
			segment.tensors_[node.outputs[0]] = y;
			return vxActivationLayer(vxGraph, x, VX_NN_ACTIVATION_RELU, 0, 0, y);
		}
		if (node.opType == "MaxPool" || node.opType == "AveragePool")
			return pool(node);
		if (node.opType == "Gemm")
			return gemm(node);
		if (node.opType == "DequantizeLinear")
			return dequantize(node);
		if (node.opType == "GlobalAveragePool" || node.opType == "GlobalMaxPool") {
			/* One window over the whole plane. */
			const std::vector<int64_t> &x = shapes.at(node.inputs[0]).shape;
			vdla::vx::nn::PoolingParams params = {};
			params.type = node.opType == "GlobalMaxPool" ? VX_NN_POOLING_MAX
								     : VX_NN_POOLING_AVG;
			params.sizeX = uint32_t(x[3]);
			params.sizeY = uint32_t(x[2]);
			params.strideX = params.strideY = 1;
			params.ceil = params.includePad = vx_false_e;
			return vdla::vx::nn::generalPoolingNode(vxGraph, shaped(node.inputs[0]), params,
								output(node.outputs[0]));
		}
		if (node.opType == "LRN") {
			auto value = [&](const char *name, float fallback) {
				const Attribute *attr = node.attribute(name);
				return attr ? attr->f : fallback;
			};
			return vxLocalResponseNormalizationLayer(
				vxGraph, shaped(node.inputs[0]), VX_NN_NORMALIZATION_ACROSS_MAPS,
				vx_size(node.attribute("size")->i), value("alpha", 1e-4f),
				value("beta", 0.75f), value("bias", 1.0f), output(node.outputs[0]));
		}
		if (node.opType == "Softmax") {
			/* The layer normalises along C: [outer, length, 1, inner]. */
			const SoftmaxRows rows =
				softmaxRows(node, graph.opset, shapes.at(node.inputs[0]).shape);
			const std::vector<int64_t> shape = { rows.outer, rows.length, 1, rows.inner };
			return vxSoftmaxLayer(vxGraph, shapedAs(node.inputs[0], shape),
					      outputAs(node.outputs[0], shape));
		}
		/* A Max not taken as a QLinearConv's Relu, or anything else. */
		throw OpError(ENOTSUP, node.opType + " alone does not run on the DLA");
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

	SegmentBuilder builder(context, graph, shapes, *segment, exported);
	/* An exported alias's output may be its input, which must then be real. */
	for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
		const Node &node = graph.nodes[*it];
		if (renamesData(node.opType) && builder.concrete.count(node.outputs[0]))
			builder.concrete.insert(node.inputs[0]);
	}

	try {
		for (size_t index : nodes)
			builder.add(graph.nodes[index]);
	} catch (const OpError &e) {
		return Error(e.code(), segment->label_ + ": " + e.what());
	} catch (const std::exception &e) {
		return Error(ENOMEM, segment->label_ + ": " + e.what());
	}

	for (const std::string &name : exported)
		if (segment->tensors_.count(name) || segment->empties_.count(name))
			segment->exports_.emplace_back(name, shapes.at(name));
	verifyLog.clear();
	if (vxVerifyGraph(segment->graph_) != VX_SUCCESS)
		return Error(ENOTSUP, "the DLA graph of " + segment->label_ + " does not verify: " +
					      (verifyLog.empty() ? "see the OpenVX log" : verifyLog));
	return segment;
}

DlaSegment::~DlaSegment()
{
	for (auto &[index, node] : layerNodes_)
		vxReleaseNode(&node);
	for (vx_tensor &t : owned_)
		vxReleaseTensor(&t);
	if (graph_)
		vxReleaseGraph(&graph_);
}

/* @name's value in this run or the graph's constants; null if neither holds it. */
static const Tensor *valueOf(const Graph &graph, const std::map<std::string, Tensor> &values,
			     const std::string &name)
{
	auto it = values.find(name);
	if (it != values.end())
		return &it->second;
	auto constant = graph.constants.find(name);
	return constant != graph.constants.end() ? &constant->second : nullptr;
}

std::string DlaSegment::shapeMismatch(const Graph &graph,
				      const std::map<std::string, Tensor> &values) const
{
	for (const Input &input : inputs_) {
		const Tensor *known = valueOf(graph, values, input.value);
		if (!known)
			return "'" + input.value + "' has no value before the segment";
		const Tensor &value = *known;
		if (value.shape() != input.shape.shape || value.type() != input.shape.type)
			return "'" + input.value + "' is " + value.describe() + " in this run, " +
			       dataTypeName(input.shape.type) + " " +
			       shapeString(input.shape.shape) + " when the plan was made";
	}
	for (const auto &[name, planned] : parameters_) {
		const Tensor *known = valueOf(graph, values, name);
		if (!known)
			return "'" + name + "' has no value before the segment";
		const Tensor &value = *known;
		if (value.type() != planned.type() || value.shape() != planned.shape() ||
		    std::memcmp(value.raw(), planned.raw(),
				planned.elements() * dataTypeSize(planned.type())) != 0)
			return "'" + name + "' holds other integers than when the plan was made";
	}
	return "";
}

Result<void> DlaSegment::run(const Graph &graph, std::map<std::string, Tensor> &values,
			     std::vector<NodeTiming> *parts) const
{
	for (const Input &input : inputs_) {
		const Tensor *known = valueOf(graph, values, input.value);
		if (!known)
			return Error(EINVAL, label_ + ": '" + input.value +
						     "' has no value before the segment");
		const Tensor &value = *known;
		vx_status copied;
		if (input.prepare || value.type() == DataType::Uint8) {
			Tensor held = input.prepare ? input.prepare(value) : value;
			if (held.type() == DataType::Uint8)
				flipTopBits(held);
			copied = copyWhole(input.tensor, held.raw(), VX_WRITE_ONLY);
		} else {
			/* A write-only copy only reads the buffer. */
			copied = copyWhole(input.tensor, const_cast<void *>(value.raw()), VX_WRITE_ONLY);
		}
		if (copied != VX_SUCCESS)
			return Error(EIO, label_ + ": cannot copy input '" + input.value +
						  "' to the DLA");
	}
	verifyLog.clear();
	if (vxProcessGraph(graph_) != VX_SUCCESS)
		return Error(EIO, label_ + ": the DLA graph failed: " +
					  (verifyLog.empty() ? "no reason given" : verifyLog));
	for (const auto &[name, shape] : exports_) {
		Tensor out(shape.type, shape.shape);
		if (empties_.count(name)) {
			values[name] = std::move(out);
			continue;
		}
		if (copyWhole(tensors_.at(name), out.raw(), VX_READ_ONLY) != VX_SUCCESS)
			return Error(EIO, label_ + ": cannot read '" + name + "' from the DLA");
		if (shape.type == DataType::Uint8)
			flipTopBits(out);
		values[name] = std::move(out);
	}
	if (parts)
		appendDeviceTimes(graph, *parts);
	return {};
}

/*
 * The device time of each node's layers in this run (the context records
 * them: VX_DIRECTIVE_ENABLE_PERFORMANCE); a node fused into another, or
 * that only renames, had none of its own.
 */
void DlaSegment::appendDeviceTimes(const Graph &graph, std::vector<NodeTiming> &parts) const
{
	for (size_t index : nodes_) {
		const Node &node = graph.nodes[index];
		uint64_t nanoseconds = 0;
		for (const auto &[computed, layer] : layerNodes_) {
			vx_perf_t perf = {};
			if (computed == index &&
			    vxQueryNode(layer, VX_NODE_PERFORMANCE, &perf, sizeof(perf)) == VX_SUCCESS)
				nanoseconds += perf.tmp;
		}
		parts.push_back({ node.name, node.opType, Target::Dla, nanoseconds });
	}
}

} /* namespace vdla::onnx */
