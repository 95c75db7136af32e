/* SPDX-License-Identifier: MIT */
/*
 * Requests for more memory than exists end in an error status, never in a
 * C++ exception through the C API (std::terminate) or in a size that wraps
 * around and is then indexed past.
 */
#include "vx_test.h"

namespace {

using HugeSizes = VxTest;

/* 2^40 x 2^30 INT16 elements: 2^71 bytes, which a vx_size cannot hold. */
TEST_F(HugeSizes, TensorWhoseSizeWrapsAroundIsRefused)
{
	const vx_size dims[] = { vx_size(1) << 40, vx_size(1) << 30 };
	EXPECT_EQ(VX_ERROR_INVALID_DIMENSION,
		vxGetStatus(ref(vxCreateTensor(context, 2, dims, VX_TYPE_INT16, 0))));
	vx_graph graph = vxCreateGraph(context);
	EXPECT_EQ(VX_ERROR_INVALID_DIMENSION,
		vxGetStatus(ref(vxCreateVirtualTensor(graph, 2, dims, VX_TYPE_INT16, 0))));
	const vx_size strides[] = { 2, vx_size(1) << 41 };
	EXPECT_EQ(VX_ERROR_INVALID_DIMENSION,
		vxGetStatus(ref(vxCreateTensorFromHandle(context, 2, dims, VX_TYPE_INT16, 0, strides,
			nullptr, VX_MEMORY_TYPE_HOST))));
	vxReleaseGraph(&graph);
}

/* 2^47 bytes: a valid size, but more than a process's address space. */
TEST_F(HugeSizes, TensorMemoryThatCannotBeHadIsNoMemory)
{
	const vx_size dims[] = { vx_size(1) << 46 };
	vx_tensor tensor = vxCreateTensor(context, 1, dims, VX_TYPE_INT16, 0);
	ASSERT_EQ(VX_SUCCESS, vxGetStatus(ref(tensor)));
	int16_t values[4];
	const vx_size start[] = { 0 }, end[] = { 4 }, stride[] = { 2 };
	EXPECT_EQ(VX_ERROR_NO_MEMORY,
		vxCopyTensorPatch(
			tensor, 1, start, end, stride, values, VX_READ_ONLY, VX_MEMORY_TYPE_HOST));
	vxReleaseTensor(&tensor);
}

TEST_F(HugeSizes, ScalarOfAnImpossibleSizeIsNoMemory)
{
	const int64_t value = 0;
	EXPECT_EQ(VX_ERROR_NO_MEMORY,
		vxGetStatus(ref(vxCreateScalarWithSize(
			context, VX_TYPE_VENDOR_STRUCT_START, &value, vx_size(1) << 62))));
}

} /* namespace */
