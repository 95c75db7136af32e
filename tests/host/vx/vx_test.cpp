/* SPDX-License-Identifier: MIT */
#include "vx_test.h"

#include <cstring>

Probe &probe()
{
	static Probe instance;
	return instance;
}

namespace {

vx_status VX_CALLBACK validateCopy(
	vx_node node, const vx_reference parameters[], vx_uint32, vx_meta_format metas[])
{
	Probe &p = probe();
	p.events.push_back("validate");
	vxQueryNode(node, VX_NODE_LOCAL_DATA_SIZE, &p.sizeAtValidate, sizeof(vx_size));
	vxQueryNode(node, VX_NODE_LOCAL_DATA_PTR, &p.ptrAtValidate, sizeof(void *));
	if (p.validator)
		return p.validator(parameters, metas);
	return vxSetMetaFormatFromReference(metas[1], parameters[0]);
}

vx_status VX_CALLBACK initCopy(vx_node node, const vx_reference *, vx_uint32)
{
	Probe &p = probe();
	p.events.push_back("init");
	vxQueryNode(node, VX_NODE_LOCAL_DATA_SIZE, &p.sizeAtInit, sizeof(vx_size));
	vxQueryNode(node, VX_NODE_LOCAL_DATA_PTR, &p.ptrAtInit, sizeof(void *));
	if (p.initSetsSize)
		p.initSetStatus = vxSetNodeAttribute(
			node, VX_NODE_LOCAL_DATA_SIZE, &p.initSetsSize, sizeof(vx_size));
	if (p.initSetsPtr && p.initSetStatus == VX_SUCCESS)
		p.initSetStatus = vxSetNodeAttribute(
			node, VX_NODE_LOCAL_DATA_PTR, &p.initSetsPtr, sizeof(void *));
	return VX_SUCCESS;
}

vx_status VX_CALLBACK deinitCopy(vx_node node, const vx_reference *, vx_uint32)
{
	Probe &p = probe();
	p.events.push_back("deinit");
	if (p.deinitSetsPtr) {
		void *none = nullptr;
		p.deinitSetStatus
			= vxSetNodeAttribute(node, VX_NODE_LOCAL_DATA_PTR, &none, sizeof(void *));
	}
	return VX_SUCCESS;
}

vx_status VX_CALLBACK runCopy(vx_node node, const vx_reference *parameters, vx_uint32)
{
	Probe &p = probe();
	p.events.push_back("run");
	vxQueryNode(node, VX_NODE_LOCAL_DATA_SIZE, &p.sizeAtRun, sizeof(vx_size));
	vxQueryNode(node, VX_NODE_LOCAL_DATA_PTR, &p.ptrAtRun, sizeof(void *));
	if (p.duringRun)
		p.duringRun();
	if (p.runStatus != VX_SUCCESS)
		return p.runStatus;

	auto in = reinterpret_cast<vx_tensor>(parameters[0]);
	auto out = reinterpret_cast<vx_tensor>(parameters[1]);
	vx_size dims[6], count, start[6] = {};
	vxQueryTensor(in, VX_TENSOR_NUMBER_OF_DIMS, &count, sizeof(count));
	vxQueryTensor(in, VX_TENSOR_DIMS, dims, count * sizeof(vx_size));
	vx_size inStride[6], outStride[6];
	vx_map_id inMap, outMap;
	void *src, *dst;
	vx_status status = vxMapTensorPatch(
		in, count, start, dims, &inMap, inStride, &src, VX_READ_ONLY, VX_MEMORY_TYPE_HOST);
	if (status != VX_SUCCESS)
		return status;
	status = vxMapTensorPatch(out, count, start, dims, &outMap, outStride, &dst, VX_WRITE_ONLY,
		VX_MEMORY_TYPE_HOST);
	if (status != VX_SUCCESS)
		return status;
	memcpy(dst, src, inStride[count - 1] * dims[count - 1]);
	vxUnmapTensorPatch(out, outMap);
	return vxUnmapTensorPatch(in, inMap);
}

} /* namespace */

vx_kernel addCopyKernel(vx_context context, vx_size localDataSize, bool withInit)
{
	vx_kernel kernel = vxAddUserKernel(context, "vdla.test.copy", VX_KERNEL_BASE(VX_ID_USER, 0),
		runCopy, 3, validateCopy, withInit ? initCopy : nullptr,
		withInit ? deinitCopy : nullptr);
	EXPECT_EQ(vxGetStatus(ref(kernel)), VX_SUCCESS);
	EXPECT_EQ(vxAddParameterToKernel(
			  kernel, 0, VX_INPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED),
		VX_SUCCESS);
	EXPECT_EQ(vxAddParameterToKernel(
			  kernel, 1, VX_OUTPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED),
		VX_SUCCESS);
	EXPECT_EQ(vxAddParameterToKernel(
			  kernel, 2, VX_INPUT, VX_TYPE_SCALAR, VX_PARAMETER_STATE_OPTIONAL),
		VX_SUCCESS);
	if (localDataSize) {
		EXPECT_EQ(vxSetKernelAttribute(kernel, VX_KERNEL_LOCAL_DATA_SIZE, &localDataSize,
				  sizeof(localDataSize)),
			VX_SUCCESS);
	}
	EXPECT_EQ(vxFinalizeKernel(kernel), VX_SUCCESS);
	return kernel;
}

void VxTest::SetUp()
{
	probe() = Probe{};
	context = vxCreateContext();
	ASSERT_EQ(vxGetStatus(ref(context)), VX_SUCCESS);
}

void VxTest::TearDown()
{
	if (context) {
		EXPECT_EQ(vxReleaseContext(&context), VX_SUCCESS);
	}
}

vx_tensor VxTest::makeTensor(vx_enum type, std::vector<vx_size> dims, vx_int8 fixedPointPosition)
{
	vx_tensor tensor
		= vxCreateTensor(context, dims.size(), dims.data(), type, fixedPointPosition);
	EXPECT_EQ(vxGetStatus(ref(tensor)), VX_SUCCESS);
	return tensor;
}

vx_uint32 VxTest::references()
{
	vx_uint32 count = 0;
	EXPECT_EQ(
		vxQueryContext(context, VX_CONTEXT_REFERENCES, &count, sizeof(count)), VX_SUCCESS);
	return count;
}

vx_node VxTest::copyNode(vx_graph graph, vx_kernel kernel, vx_tensor *in, vx_tensor *out)
{
	vx_tensor input = makeTensor();
	vx_tensor output = makeTensor();
	vx_node node = vxCreateGenericNode(graph, kernel);
	EXPECT_EQ(vxGetStatus(ref(node)), VX_SUCCESS);
	EXPECT_EQ(vxSetParameterByIndex(node, 0, ref(input)), VX_SUCCESS);
	EXPECT_EQ(vxSetParameterByIndex(node, 1, ref(output)), VX_SUCCESS);
	if (in)
		*in = input;
	else
		vxReleaseTensor(&input);
	if (out)
		*out = output;
	else
		vxReleaseTensor(&output);
	return node;
}
