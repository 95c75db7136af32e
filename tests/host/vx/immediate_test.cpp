/* SPDX-License-Identifier: MIT */
/*
 * The immediate mode (VX/vxu.h): a vxu call computes what the same node in
 * a graph computes, returns its failures and leaves no object behind; the
 * immediate target is checked like a node's.
 */
#include "vx_test.h"

#include <VX/vxu.h>

namespace {

using Immediate = VxTest;

/* Reads a whole 1-D INT16 tensor. */
std::vector<int16_t> values(vx_tensor tensor, vx_size count)
{
	std::vector<int16_t> out(count);
	const vx_size start[] = { 0 }, end[] = { count }, stride[] = { sizeof(int16_t) };
	EXPECT_EQ(VX_SUCCESS,
		vxCopyTensorPatch(tensor, 1, start, end, stride, out.data(), VX_READ_ONLY,
			VX_MEMORY_TYPE_HOST));
	return out;
}

void write(vx_tensor tensor, std::vector<int16_t> in)
{
	const vx_size start[] = { 0 }, end[] = { in.size() }, stride[] = { sizeof(int16_t) };
	ASSERT_EQ(VX_SUCCESS,
		vxCopyTensorPatch(tensor, 1, start, end, stride, in.data(), VX_WRITE_ONLY,
			VX_MEMORY_TYPE_HOST));
}

/* 30000 + 10000 saturates to 32767. */
TEST_F(Immediate, TensorAddComputesAtOnceAndLeavesNoObject)
{
	vx_tensor a = makeTensor(VX_TYPE_INT16, { 3 }), b = makeTensor(VX_TYPE_INT16, { 3 });
	vx_tensor out = makeTensor(VX_TYPE_INT16, { 3 });
	write(a, { 1, -5, 30000 });
	write(b, { 2, 3, 10000 });
	const vx_uint32 before = references();
	ASSERT_EQ(VX_SUCCESS, vxuTensorAdd(context, a, b, VX_CONVERT_POLICY_SATURATE, out));
	EXPECT_EQ(values(out, 3), std::vector<int16_t>({ 3, -2, 32767 }));
	EXPECT_EQ(before, references());
}

TEST_F(Immediate, FailureIsReturnedAndLeavesNoObject)
{
	vx_tensor a = makeTensor(VX_TYPE_INT16, { 3 }), b = makeTensor(VX_TYPE_INT16, { 4 });
	vx_tensor out = makeTensor(VX_TYPE_INT16, { 3 });
	const vx_uint32 before = references();
	EXPECT_EQ(VX_ERROR_INVALID_DIMENSION,
		vxuTensorAdd(context, a, b, VX_CONVERT_POLICY_SATURATE, out));
	EXPECT_EQ(before, references());
	EXPECT_EQ(VX_ERROR_INVALID_REFERENCE,
		vxuTensorAdd(nullptr, a, a, VX_CONVERT_POLICY_SATURATE, out));
}

TEST_F(Immediate, TargetIsChecked)
{
	EXPECT_EQ(VX_SUCCESS, vxSetImmediateModeTarget(context, VX_TARGET_STRING, "CPU"));
	EXPECT_EQ(VX_SUCCESS, vxSetImmediateModeTarget(context, VX_TARGET_ANY, nullptr));
	EXPECT_EQ(VX_ERROR_NOT_SUPPORTED,
		vxSetImmediateModeTarget(context, VX_TARGET_STRING, "gpu"));
	EXPECT_EQ(VX_ERROR_NOT_SUPPORTED, vxSetImmediateModeTarget(context, VX_TARGET_STRING, nullptr));
	EXPECT_EQ(VX_ERROR_INVALID_REFERENCE,
		vxSetImmediateModeTarget(nullptr, VX_TARGET_STRING, "cpu"));
	/* The host has no DLA. */
	EXPECT_EQ(VX_ERROR_NOT_SUPPORTED, vxSetImmediateModeTarget(context, VX_TARGET_STRING, "dla"));
}

} /* namespace */
