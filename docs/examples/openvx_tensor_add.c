/* SPDX-License-Identifier: MIT */
/*
 * docs/openvx.md example: a user kernel ("example.scale2", doubles an INT16
 * tensor) after the built-in tensor add, joined by a virtual tensor whose
 * shape comes from the tensor add's meta format.
 */
#include <VX/vx.h>

#include <stdio.h>

static vx_status VX_CALLBACK scale2_validate(vx_node node, const vx_reference params[],
					     vx_uint32 num, vx_meta_format metas[])
{
	(void)node;
	(void)num;
	/* The output looks like the input. */
	return vxSetMetaFormatFromReference(metas[1], params[0]);
}

static vx_status VX_CALLBACK scale2_run(vx_node node, const vx_reference *params, vx_uint32 num)
{
	vx_size dims[1], start[1] = { 0 }, stride[1];
	vx_map_id in_map, out_map;
	vx_int16 *in, *out;
	vx_size i;

	(void)node;
	(void)num;
	vxQueryTensor((vx_tensor)params[0], VX_TENSOR_DIMS, dims, sizeof(dims));
	vxMapTensorPatch((vx_tensor)params[0], 1, start, dims, &in_map, stride, (void **)&in,
			 VX_READ_ONLY, VX_MEMORY_TYPE_HOST);
	vxMapTensorPatch((vx_tensor)params[1], 1, start, dims, &out_map, stride, (void **)&out,
			 VX_WRITE_ONLY, VX_MEMORY_TYPE_HOST);
	for (i = 0; i < dims[0]; i++)
		out[i] = (vx_int16)(2 * in[i]);
	vxUnmapTensorPatch((vx_tensor)params[1], out_map);
	return vxUnmapTensorPatch((vx_tensor)params[0], in_map);
}

static vx_kernel add_scale2_kernel(vx_context context)
{
	vx_enum id;
	vx_kernel kernel;

	vxAllocateUserKernelId(context, &id);
	kernel = vxAddUserKernel(context, "example.scale2", id, scale2_run, 2, scale2_validate,
				 NULL, NULL);
	vxAddParameterToKernel(kernel, 0, VX_INPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED);
	vxAddParameterToKernel(kernel, 1, VX_OUTPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED);
	vxFinalizeKernel(kernel);
	return kernel;
}

int main(void)
{
	vx_context context = vxCreateContext();
	vx_size dims[1] = { 4 }, start[1] = { 0 }, stride[1] = { sizeof(vx_int16) };
	vx_int16 a[4] = { 1, 2, 3, 4 }, b[4] = { 10, 20, 30, 40 }, result[4];
	vx_tensor ta = vxCreateTensor(context, 1, dims, VX_TYPE_INT16, 0);
	vx_tensor tb = vxCreateTensor(context, 1, dims, VX_TYPE_INT16, 0);
	vx_tensor tout = vxCreateTensor(context, 1, dims, VX_TYPE_INT16, 0);
	vx_graph graph = vxCreateGraph(context);
	vx_tensor sum = vxCreateVirtualTensor(graph, 0, NULL, VX_TYPE_INVALID, 0);
	vx_kernel scale2 = add_scale2_kernel(context);
	vx_node add_node, scale_node;
	vx_status status;

	vxCopyTensorPatch(ta, 1, start, dims, stride, a, VX_WRITE_ONLY, VX_MEMORY_TYPE_HOST);
	vxCopyTensorPatch(tb, 1, start, dims, stride, b, VX_WRITE_ONLY, VX_MEMORY_TYPE_HOST);

	add_node = vxTensorAddNode(graph, ta, tb, VX_CONVERT_POLICY_SATURATE, sum);
	scale_node = vxCreateGenericNode(graph, scale2);
	vxSetParameterByIndex(scale_node, 0, (vx_reference)sum);
	vxSetParameterByIndex(scale_node, 1, (vx_reference)tout);

	status = vxProcessGraph(graph);
	if (status == VX_SUCCESS) {
		vxCopyTensorPatch(tout, 1, start, dims, stride, result, VX_READ_ONLY,
				  VX_MEMORY_TYPE_HOST);
		printf("%d %d %d %d\n", result[0], result[1], result[2], result[3]);
	}

	vxReleaseNode(&add_node);
	vxReleaseNode(&scale_node);
	vxReleaseKernel(&scale2);
	vxReleaseTensor(&sum);
	vxReleaseTensor(&ta);
	vxReleaseTensor(&tb);
	vxReleaseTensor(&tout);
	vxReleaseGraph(&graph);
	vxReleaseContext(&context);
	return status == VX_SUCCESS ? 0 : 1;
}
