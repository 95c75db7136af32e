/* SPDX-License-Identifier: MIT */
/*
 * The immediate mode (VX/vxu.h): each function makes a graph of one node
 * on the application's objects, with the context's immediate border and
 * target, processes it, releases both and returns the status.
 */

#include <VX/vxu.h>

#include "framework/target.h"

using namespace vdla::vx;

namespace {

/*
 * Runs the node @makeNode creates in a new graph of @context. The graph
 * and node go whatever happens; the status is the first failure.
 */
template <typename MakeNode> vx_status runImmediate(vx_context context, MakeNode makeNode)
{
	NodeTarget target;
	vx_border_t border;
	{
		ApiLock lock(apiLock());
		if (!isValid(context, VX_TYPE_CONTEXT))
			return VX_ERROR_INVALID_REFERENCE;
		target = context->immediateTarget;
		border = context->immediateBorder;
	}
	vx_graph graph = vxCreateGraph(context);
	vx_status status = vxGetStatus(reinterpret_cast<vx_reference>(graph));
	if (status != VX_SUCCESS)
		return status;
	vx_node node = makeNode(graph);
	status = vxGetStatus(reinterpret_cast<vx_reference>(node));
	if (status == VX_SUCCESS)
		status = vxSetNodeTarget(node, VX_TARGET_STRING,
			target == NodeTarget::Dla ? "dla" : target == NodeTarget::Cpu ? "cpu" : "any");
	if (status == VX_SUCCESS)
		status = vxSetNodeAttribute(node, VX_NODE_BORDER, &border, sizeof(border));
	if (status == VX_SUCCESS)
		status = vxProcessGraph(graph);
	if (node && vxGetStatus(reinterpret_cast<vx_reference>(node)) == VX_SUCCESS)
		vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	return status;
}

} /* namespace */

extern "C" {

vx_status vxSetImmediateModeTarget(vx_context context, vx_enum target_enum, const char *target_string)
try {
	ApiLock lock(apiLock());
	if (!isValid(context, VX_TYPE_CONTEXT))
		return VX_ERROR_INVALID_REFERENCE;
	const std::optional<NodeTarget> target = parseTarget(target_enum, target_string);
	if (!target)
		return VX_ERROR_NOT_SUPPORTED;
	std::string why;
	if (*target != NodeTarget::Any && !vdla::vx::target(context, *target).available(why)) {
		log(context, VX_ERROR_NOT_SUPPORTED, "%s", why.c_str());
		return VX_ERROR_NOT_SUPPORTED;
	}
	context->immediateTarget = *target;
	return VX_SUCCESS;
}
VX_API_CATCH_STATUS

vx_status vxuColorConvert(vx_context context, vx_image input, vx_image output)
try {
	return runImmediate(context,
		[&](vx_graph graph) { return vxColorConvertNode(graph, input, output); });
}
VX_API_CATCH_STATUS

vx_status vxuTensorAdd(vx_context context, vx_tensor input1, vx_tensor input2, vx_enum policy,
	vx_tensor output)
try {
	return runImmediate(context, [&](vx_graph graph) {
		return vxTensorAddNode(graph, input1, input2, policy, output);
	});
}
VX_API_CATCH_STATUS

vx_status vxuTensorSubtract(vx_context context, vx_tensor input1, vx_tensor input2, vx_enum policy,
	vx_tensor output)
try {
	return runImmediate(context, [&](vx_graph graph) {
		return vxTensorSubtractNode(graph, input1, input2, policy, output);
	});
}
VX_API_CATCH_STATUS

vx_status vxuTensorMultiply(vx_context context, vx_tensor input1, vx_tensor input2, vx_scalar scale,
	vx_enum overflow_policy, vx_enum rounding_policy, vx_tensor output)
try {
	return runImmediate(context, [&](vx_graph graph) {
		return vxTensorMultiplyNode(
			graph, input1, input2, scale, overflow_policy, rounding_policy, output);
	});
}
VX_API_CATCH_STATUS

vx_status vxuTensorTableLookup(vx_context context, vx_tensor input1, vx_lut lut, vx_tensor output)
try {
	return runImmediate(context, [&](vx_graph graph) {
		return vxTensorTableLookupNode(graph, input1, lut, output);
	});
}
VX_API_CATCH_STATUS

vx_status vxuTensorTranspose(vx_context context, vx_tensor input, vx_tensor output,
	vx_size dimension1, vx_size dimension2)
try {
	return runImmediate(context, [&](vx_graph graph) {
		return vxTensorTransposeNode(graph, input, output, dimension1, dimension2);
	});
}
VX_API_CATCH_STATUS

vx_status vxuTensorConvertDepth(vx_context context, vx_tensor input, vx_enum policy,
	vx_scalar norm, vx_scalar offset, vx_tensor output)
try {
	return runImmediate(context, [&](vx_graph graph) {
		return vxTensorConvertDepthNode(graph, input, policy, norm, offset, output);
	});
}
VX_API_CATCH_STATUS

vx_status vxuTensorMatrixMultiply(vx_context context, vx_tensor input1, vx_tensor input2,
	vx_tensor input3, const vx_tensor_matrix_multiply_params_t *matrix_multiply_params,
	vx_tensor output)
try {
	return runImmediate(context, [&](vx_graph graph) {
		return vxTensorMatrixMultiplyNode(
			graph, input1, input2, input3, matrix_multiply_params, output);
	});
}
VX_API_CATCH_STATUS

} /* extern "C" */
