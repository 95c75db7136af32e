/* SPDX-License-Identifier: MIT */
/* Contexts, references, logging, scalars and tensors. */
#include "vx_test.h"

#include <VX/vx_khr_nn.h>

#include <string>

#include <cstring>

using Context = VxTest;
using Reference = VxTest;
using Log = VxTest;
using Scalar = VxTest;
using Tensor = VxTest;

TEST_F(Context, ReportsVersionAndImplementation)
{
	vx_uint16 version = 0;
	ASSERT_EQ(
		vxQueryContext(context, VX_CONTEXT_VERSION, &version, sizeof(version)), VX_SUCCESS);
	EXPECT_EQ(version, VX_VERSION_1_3);
	vx_char name[VX_MAX_IMPLEMENTATION_NAME];
	ASSERT_EQ(
		vxQueryContext(context, VX_CONTEXT_IMPLEMENTATION, name, sizeof(name)), VX_SUCCESS);
	EXPECT_STREQ(name, "vdla");
}

TEST_F(Context, VendorIdIsTheOneForVendorsWithoutAnAssignedId)
{
	vx_uint16 vendor = 0;
	ASSERT_EQ(
		vxQueryContext(context, VX_CONTEXT_VENDOR_ID, &vendor, sizeof(vendor)), VX_SUCCESS);
	EXPECT_EQ(vendor, VX_ID_DEFAULT);
	EXPECT_EQ(vendor, 0xFFF) << "VX_ID_DEFAULT is VX_ID_MAX in OpenVX 1.3.1";
}

TEST_F(Context, AdvertisesTheNeuralNetworkExtension)
{
	vx_size size = 0;
	ASSERT_EQ(vxQueryContext(context, VX_CONTEXT_EXTENSIONS_SIZE, &size, sizeof(size)),
		VX_SUCCESS);
	std::string extensions(size, '\0');
	ASSERT_EQ(vxQueryContext(context, VX_CONTEXT_EXTENSIONS, extensions.data(), size),
		VX_SUCCESS);
	EXPECT_STREQ(extensions.c_str(), OPENVX_KHR_NN " KHR_NN_8 KHR_NN_16");
}

TEST_F(Context, QueryWithWrongSizeIsInvalidParameters)
{
	vx_uint16 count = 0;
	EXPECT_EQ(vxQueryContext(context, VX_CONTEXT_REFERENCES, &count, sizeof(count)),
		VX_ERROR_INVALID_PARAMETERS);
}

TEST_F(Context, ReferencesCountsLiveObjectsExactly)
{
	const vx_uint32 before = references();
	vx_tensor tensor = makeTensor();
	vx_graph graph = vxCreateGraph(context);
	EXPECT_EQ(references(), before + 2);
	vxReleaseTensor(&tensor);
	vxReleaseGraph(&graph);
	EXPECT_EQ(references(), before);
}

TEST_F(Context, ImmediateBorderAndPolicyAreSetAndReadBack)
{
	vx_border_t border = {}, read = {};
	ASSERT_EQ(vxQueryContext(context, VX_CONTEXT_IMMEDIATE_BORDER, &read, sizeof(read)),
		VX_SUCCESS);
	EXPECT_EQ(read.mode, VX_BORDER_UNDEFINED);

	border.mode = VX_BORDER_CONSTANT;
	border.constant_value.U8 = 9;
	ASSERT_EQ(vxSetContextAttribute(
			  context, VX_CONTEXT_IMMEDIATE_BORDER, &border, sizeof(border)),
		VX_SUCCESS);
	ASSERT_EQ(vxQueryContext(context, VX_CONTEXT_IMMEDIATE_BORDER, &read, sizeof(read)),
		VX_SUCCESS);
	EXPECT_EQ(read.mode, VX_BORDER_CONSTANT);
	EXPECT_EQ(read.constant_value.U8, 9);

	vx_enum policy = VX_BORDER_POLICY_RETURN_ERROR, got = 0;
	ASSERT_EQ(vxSetContextAttribute(
			  context, VX_CONTEXT_IMMEDIATE_BORDER_POLICY, &policy, sizeof(policy)),
		VX_SUCCESS);
	ASSERT_EQ(vxQueryContext(context, VX_CONTEXT_IMMEDIATE_BORDER_POLICY, &got, sizeof(got)),
		VX_SUCCESS);
	EXPECT_EQ(got, VX_BORDER_POLICY_RETURN_ERROR);
}

TEST_F(Context, SetRejectsBadValuesAndReadOnlyAttributes)
{
	vx_border_t border = {};
	border.mode = VX_BORDER_CONSTANT + 100;
	EXPECT_EQ(vxSetContextAttribute(
			  context, VX_CONTEXT_IMMEDIATE_BORDER, &border, sizeof(border)),
		VX_ERROR_INVALID_VALUE);
	border.mode = VX_BORDER_REPLICATE;
	EXPECT_EQ(vxSetContextAttribute(context, VX_CONTEXT_IMMEDIATE_BORDER, &border, 4),
		VX_ERROR_INVALID_PARAMETERS);
	vx_enum policy = VX_BORDER_UNDEFINED;
	EXPECT_EQ(vxSetContextAttribute(
			  context, VX_CONTEXT_IMMEDIATE_BORDER_POLICY, &policy, sizeof(policy)),
		VX_ERROR_INVALID_VALUE);

	/* Nothing changed. */
	vx_border_t read = {};
	vxQueryContext(context, VX_CONTEXT_IMMEDIATE_BORDER, &read, sizeof(read));
	EXPECT_EQ(read.mode, VX_BORDER_UNDEFINED);

	vx_uint16 vendor = 7;
	EXPECT_EQ(vxSetContextAttribute(context, VX_CONTEXT_VENDOR_ID, &vendor, sizeof(vendor)),
		VX_ERROR_NOT_SUPPORTED);
	EXPECT_EQ(vxSetContextAttribute(
			  nullptr, VX_CONTEXT_IMMEDIATE_BORDER, &border, sizeof(border)),
		VX_ERROR_INVALID_REFERENCE);
}

/* The seven tensor kernels, tensor_add first, the nine neural-network layer
 * kernels and libvdla's own convolution, pooling, rearrangement,
 * concatenation, element-wise layer and dequantisation, then color
 * conversion. */
TEST_F(Context, UniqueKernelTableListsBuiltinTensorAdd)
{
	vx_uint32 count = 0;
	ASSERT_EQ(vxQueryContext(context, VX_CONTEXT_UNIQUE_KERNELS, &count, sizeof(count)),
		VX_SUCCESS);
	std::vector<vx_kernel_info_t> table(count);
	ASSERT_EQ(vxQueryContext(context, VX_CONTEXT_UNIQUE_KERNEL_TABLE, table.data(),
			  count * sizeof(vx_kernel_info_t)),
		VX_SUCCESS);
	ASSERT_EQ(count, 23u);
	EXPECT_EQ(table[0].enumeration, VX_KERNEL_TENSOR_ADD);
	EXPECT_STREQ(table[0].name, "org.khronos.openvx.tensor_add");
	EXPECT_STREQ(table[16].name, "vdla.nn.convolution");
	EXPECT_STREQ(table[17].name, "vdla.nn.pooling");
	EXPECT_STREQ(table[18].name, "vdla.nn.rearrangement");
	EXPECT_STREQ(table[19].name, "vdla.nn.concatenation");
	EXPECT_STREQ(table[20].name, "vdla.nn.elementwise");
	EXPECT_STREQ(table[21].name, "vdla.nn.dequantize");
	EXPECT_EQ(table[22].enumeration, VX_KERNEL_COLOR_CONVERT);
}

TEST_F(Context, ReleaseDestroysObjectsTheApplicationStillHolds)
{
	makeTensor();
	vx_graph graph = vxCreateGraph(context);
	EXPECT_EQ(vxReleaseContext(&context), VX_SUCCESS);
	EXPECT_EQ(context, nullptr);
	EXPECT_EQ(vxGetStatus(ref(graph)), VX_ERROR_INVALID_REFERENCE);
}

TEST_F(Reference, StalePointerIsInvalidReference)
{
	vx_tensor tensor = makeTensor();
	vx_tensor stale = tensor;
	vxReleaseTensor(&tensor);
	vx_enum type;
	EXPECT_EQ(vxQueryReference(ref(stale), VX_REFERENCE_TYPE, &type, sizeof(type)),
		VX_ERROR_INVALID_REFERENCE);
	EXPECT_EQ(vxGetStatus(ref(stale)), VX_ERROR_INVALID_REFERENCE);
	EXPECT_EQ(vxRetainReference(nullptr), VX_ERROR_INVALID_REFERENCE);
}

TEST_F(Reference, WrongObjectTypeIsInvalidReference)
{
	vx_graph graph = vxCreateGraph(context);
	vx_size dims = 0;
	EXPECT_EQ(vxQueryTensor(reinterpret_cast<vx_tensor>(graph), VX_TENSOR_NUMBER_OF_DIMS, &dims,
			  sizeof(dims)),
		VX_ERROR_INVALID_REFERENCE);
	vxReleaseGraph(&graph);
}

TEST_F(Reference, RetainAndReleaseMoveTheCount)
{
	vx_tensor tensor = makeTensor();
	vx_uint32 count = 0;
	ASSERT_EQ(vxRetainReference(ref(tensor)), VX_SUCCESS);
	vxQueryReference(ref(tensor), VX_REFERENCE_COUNT, &count, sizeof(count));
	EXPECT_EQ(count, 2u);
	vx_reference second = ref(tensor);
	ASSERT_EQ(vxReleaseReference(&second), VX_SUCCESS);
	EXPECT_EQ(second, nullptr);
	vxQueryReference(ref(tensor), VX_REFERENCE_COUNT, &count, sizeof(count));
	EXPECT_EQ(count, 1u);
	vxReleaseTensor(&tensor);
}

TEST_F(Reference, TypeIsReported)
{
	vx_graph graph = vxCreateGraph(context);
	vx_enum type = 0;
	ASSERT_EQ(vxQueryReference(ref(graph), VX_REFERENCE_TYPE, &type, sizeof(type)), VX_SUCCESS);
	EXPECT_EQ(type, VX_TYPE_GRAPH);
	vxReleaseGraph(&graph);
}

TEST_F(Reference, NameCanBeSetAndQueried)
{
	vx_tensor tensor = makeTensor();
	vx_char *name = nullptr;
	ASSERT_EQ(vxSetReferenceName(ref(tensor), "weights"), VX_SUCCESS);
	ASSERT_EQ(
		vxQueryReference(ref(tensor), VX_REFERENCE_NAME, &name, sizeof(name)), VX_SUCCESS);
	EXPECT_STREQ(name, "weights");
	vxReleaseTensor(&tensor);
}

TEST_F(Reference, UnnamedReferenceHasTheEmptyName)
{
	vx_tensor tensor = makeTensor();
	vx_char *name = nullptr;
	ASSERT_EQ(
		vxQueryReference(ref(tensor), VX_REFERENCE_NAME, &name, sizeof(name)), VX_SUCCESS);
	ASSERT_NE(name, nullptr);
	EXPECT_STREQ(name, "");
	vxReleaseTensor(&tensor);
}

TEST_F(Reference, GetContextReturnsTheOwner)
{
	vx_tensor tensor = makeTensor();
	EXPECT_EQ(vxGetContext(ref(tensor)), context);
	vxReleaseTensor(&tensor);
}

TEST_F(Reference, ObjectUsedByGraphStaysAliveAfterUserRelease)
{
	const vx_uint32 before = references();
	vx_kernel kernel = addCopyKernel(context);
	vx_graph graph = vxCreateGraph(context);
	vx_tensor in, out;
	vx_node node = copyNode(graph, kernel, &in, &out);
	vxReleaseTensor(&in);
	vxReleaseNode(&node);
	vxReleaseKernel(&kernel);
	EXPECT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	vxReleaseGraph(&graph);
	vxReleaseTensor(&out);
	/* Only the published kernel remains. */
	EXPECT_EQ(references(), before + 1);
}

TEST_F(Reference, FailedCreationReturnsErrorObjectWithStatus)
{
	vx_size dims[] = { 2 };
	vx_tensor tensor = vxCreateTensor(context, 1, dims, VX_TYPE_FLOAT64, 0);
	ASSERT_NE(tensor, nullptr);
	EXPECT_EQ(vxGetStatus(ref(tensor)), VX_ERROR_NOT_SUPPORTED);
	EXPECT_EQ(vxGetStatus(nullptr), VX_ERROR_NO_RESOURCES);
}

namespace {
std::vector<std::string> logged;
void VX_CALLBACK recordLog(vx_context, vx_reference, vx_status, const vx_char string[])
{
	logged.push_back(string);
}
} /* namespace */

TEST_F(Log, CallbackReceivesFormattedEntries)
{
	logged.clear();
	vxRegisterLogCallback(context, recordLog, vx_false_e);
	vxAddLogEntry(ref(context), VX_FAILURE, "value %d", 42);
	ASSERT_EQ(logged.size(), 1u);
	EXPECT_EQ(logged[0], "value 42");
}

TEST_F(Log, SuccessEntriesAreIgnored)
{
	logged.clear();
	vxRegisterLogCallback(context, recordLog, vx_false_e);
	vxAddLogEntry(ref(context), VX_SUCCESS, "all is well");
	vxAddLogEntry(ref(context), VX_ERROR_INVALID_VALUE, "bad value");
	ASSERT_EQ(logged.size(), 1u);
	EXPECT_EQ(logged[0], "bad value");
}

TEST_F(Log, NothingIsDeliveredWithoutCallback)
{
	logged.clear();
	vxAddLogEntry(ref(context), VX_FAILURE, "dropped");
	EXPECT_TRUE(logged.empty());
}

TEST_F(Scalar, CreateQueryCopyRoundTrip)
{
	vx_int16 value = -1234;
	vx_scalar scalar = vxCreateScalar(context, VX_TYPE_INT16, &value);
	ASSERT_EQ(vxGetStatus(ref(scalar)), VX_SUCCESS);
	vx_enum type = 0;
	ASSERT_EQ(vxQueryScalar(scalar, VX_SCALAR_TYPE, &type, sizeof(type)), VX_SUCCESS);
	EXPECT_EQ(type, VX_TYPE_INT16);

	vx_int16 updated = 77, read = 0;
	ASSERT_EQ(vxCopyScalar(scalar, &updated, VX_WRITE_ONLY, VX_MEMORY_TYPE_HOST), VX_SUCCESS);
	ASSERT_EQ(vxCopyScalar(scalar, &read, VX_READ_ONLY, VX_MEMORY_TYPE_HOST), VX_SUCCESS);
	EXPECT_EQ(read, 77);
	vxReleaseScalar(&scalar);
}

TEST_F(Scalar, CopyRejectsBadUsageAndMemoryType)
{
	vx_float32 value = 1.5f;
	vx_scalar scalar = vxCreateScalar(context, VX_TYPE_FLOAT32, &value);
	EXPECT_EQ(vxCopyScalar(scalar, &value, VX_READ_AND_WRITE, VX_MEMORY_TYPE_HOST),
		VX_ERROR_INVALID_PARAMETERS);
	EXPECT_EQ(vxCopyScalar(scalar, &value, VX_READ_ONLY, VX_MEMORY_TYPE_NONE),
		VX_ERROR_INVALID_PARAMETERS);
	vxReleaseScalar(&scalar);
}

TEST_F(Scalar, VirtualScalarHasItsTypeAndIsNotAccessibleOutsideItsGraph)
{
	vx_graph graph = vxCreateGraph(context);
	vx_scalar scalar = vxCreateVirtualScalar(graph, VX_TYPE_UINT32);
	ASSERT_EQ(vxGetStatus(ref(scalar)), VX_SUCCESS);
	vx_enum type = 0;
	ASSERT_EQ(vxQueryScalar(scalar, VX_SCALAR_TYPE, &type, sizeof(type)), VX_SUCCESS);
	EXPECT_EQ(type, VX_TYPE_UINT32);
	vx_uint32 value = 0;
	EXPECT_EQ(vxCopyScalar(scalar, &value, VX_READ_ONLY, VX_MEMORY_TYPE_HOST),
		VX_ERROR_OPTIMIZED_AWAY);

	EXPECT_EQ(vxGetStatus(ref(vxCreateVirtualScalar(graph, VX_TYPE_TENSOR))),
		VX_ERROR_INVALID_TYPE);
	EXPECT_EQ(vxCreateVirtualScalar(nullptr, VX_TYPE_UINT32), nullptr);

	/* The scalar keeps its graph alive. */
	const vx_uint32 before = references();
	vxReleaseGraph(&graph);
	EXPECT_EQ(references(), before);
	vxReleaseScalar(&scalar);
	EXPECT_EQ(references(), before - 2);
}

class TensorTypes : public VxTest, public ::testing::WithParamInterface<vx_enum>
{
};

TEST_P(TensorTypes, QueryReportsCreationAttributes)
{
	vx_tensor tensor = makeTensor(GetParam(), { 3, 5, 2 });
	vx_size count = 0, dims[3] = {};
	vx_enum type = 0;
	ASSERT_EQ(
		vxQueryTensor(tensor, VX_TENSOR_NUMBER_OF_DIMS, &count, sizeof(count)), VX_SUCCESS);
	ASSERT_EQ(vxQueryTensor(tensor, VX_TENSOR_DIMS, dims, sizeof(dims)), VX_SUCCESS);
	ASSERT_EQ(vxQueryTensor(tensor, VX_TENSOR_DATA_TYPE, &type, sizeof(type)), VX_SUCCESS);
	EXPECT_EQ(count, 3u);
	EXPECT_EQ(dims[0], 3u);
	EXPECT_EQ(dims[1], 5u);
	EXPECT_EQ(dims[2], 2u);
	EXPECT_EQ(type, GetParam());
	vxReleaseTensor(&tensor);
}

INSTANTIATE_TEST_SUITE_P(Tensor, TensorTypes,
	::testing::Values(VX_TYPE_INT8, VX_TYPE_UINT8, VX_TYPE_INT16, VX_TYPE_FLOAT32));

TEST_F(Tensor, Int16KeepsFixedPointPosition)
{
	vx_tensor tensor = makeTensor(VX_TYPE_INT16, { 4 }, 8);
	vx_int8 position = 0;
	ASSERT_EQ(
		vxQueryTensor(tensor, VX_TENSOR_FIXED_POINT_POSITION, &position, sizeof(position)),
		VX_SUCCESS);
	EXPECT_EQ(position, 8);
	vxReleaseTensor(&tensor);
}

TEST_F(Tensor, CopyPatchRoundTripsWithUserStrides)
{
	vx_tensor tensor = makeTensor(VX_TYPE_INT16, { 4, 3 });
	/* Write a 2x2 patch at (1,1) from a buffer with padded rows. */
	vx_int16 source[2][3] = { { 1, 2, -1 }, { 3, 4, -1 } };
	vx_size start[] = { 1, 1 }, end[] = { 3, 3 };
	vx_size sourceStride[] = { sizeof(vx_int16), 3 * sizeof(vx_int16) };
	ASSERT_EQ(vxCopyTensorPatch(tensor, 2, start, end, sourceStride, source, VX_WRITE_ONLY,
			  VX_MEMORY_TYPE_HOST),
		VX_SUCCESS);

	vx_int16 whole[3][4] = {};
	vx_size origin[] = { 0, 0 }, size[] = { 4, 3 };
	vx_size wholeStride[] = { sizeof(vx_int16), 4 * sizeof(vx_int16) };
	ASSERT_EQ(vxCopyTensorPatch(tensor, 2, origin, size, wholeStride, whole, VX_READ_ONLY,
			  VX_MEMORY_TYPE_HOST),
		VX_SUCCESS);
	const vx_int16 expected[3][4] = { { 0, 0, 0, 0 }, { 0, 1, 2, 0 }, { 0, 3, 4, 0 } };
	EXPECT_EQ(memcmp(whole, expected, sizeof(whole)), 0);
	vxReleaseTensor(&tensor);
}

TEST_F(Tensor, CopyPatchOutsideTheTensorIsInvalidParameters)
{
	vx_tensor tensor = makeTensor(VX_TYPE_UINT8, { 4 });
	vx_uint8 buffer[8];
	vx_size start[] = { 2 }, end[] = { 6 }, stride[] = { 1 };
	EXPECT_EQ(vxCopyTensorPatch(
			  tensor, 1, start, end, stride, buffer, VX_READ_ONLY, VX_MEMORY_TYPE_HOST),
		VX_ERROR_INVALID_PARAMETERS);
	vxReleaseTensor(&tensor);
}

TEST_F(Tensor, PatchOfTheLowerDimensionsOnlyUsesIndexZeroOfTheOthers)
{
	/* OpenVX: fewer dimensions than the tensor's name its lower ones;
	 * none, or more than it has, is an error. */
	vx_tensor tensor = makeTensor(VX_TYPE_INT16, { 3, 2, 2 });
	const vx_int16 row[3] = { 7, 8, 9 };
	vx_size start[] = { 0, 0, 0 }, end[] = { 3, 2, 2, 1 }, stride[] = { 2, 6, 12, 24 };
	ASSERT_EQ(VX_SUCCESS,
		vxCopyTensorPatch(tensor, 1, start, end, stride, const_cast<vx_int16 *>(row),
			VX_WRITE_ONLY, VX_MEMORY_TYPE_HOST));
	vx_int16 whole[12] = {};
	ASSERT_EQ(VX_SUCCESS,
		vxCopyTensorPatch(
			tensor, 3, start, end, stride, whole, VX_READ_ONLY, VX_MEMORY_TYPE_HOST));
	const vx_int16 expected[12] = { 7, 8, 9 };
	EXPECT_EQ(memcmp(whole, expected, sizeof(whole)), 0);

	vx_map_id id;
	void *ptr = nullptr;
	vx_size mapped[2] = {};
	ASSERT_EQ(VX_SUCCESS,
		vxMapTensorPatch(tensor, 2, start, end, &id, mapped, &ptr, VX_READ_ONLY,
			VX_MEMORY_TYPE_HOST));
	EXPECT_EQ(mapped[1], 6u);
	EXPECT_EQ(static_cast<vx_int16 *>(ptr)[2], 9);
	ASSERT_EQ(VX_SUCCESS, vxUnmapTensorPatch(tensor, id));

	EXPECT_EQ(VX_ERROR_INVALID_PARAMETERS,
		vxCopyTensorPatch(
			tensor, 0, start, end, stride, whole, VX_READ_ONLY, VX_MEMORY_TYPE_HOST));
	EXPECT_EQ(VX_ERROR_INVALID_PARAMETERS,
		vxCopyTensorPatch(
			tensor, 4, start, end, stride, whole, VX_READ_ONLY, VX_MEMORY_TYPE_HOST));
	vxReleaseTensor(&tensor);
}

TEST_F(Tensor, MapPatchExposesStridesAndWritesThrough)
{
	vx_tensor tensor = makeTensor(VX_TYPE_FLOAT32, { 4, 2 });
	vx_size start[] = { 0, 1 }, end[] = { 4, 2 }, stride[2];
	vx_map_id id;
	void *ptr = nullptr;
	ASSERT_EQ(vxMapTensorPatch(tensor, 2, start, end, &id, stride, &ptr, VX_WRITE_ONLY,
			  VX_MEMORY_TYPE_HOST),
		VX_SUCCESS);
	EXPECT_EQ(stride[0], sizeof(float));
	EXPECT_EQ(stride[1], 4 * sizeof(float));
	static_cast<float *>(ptr)[3] = 2.5f;
	ASSERT_EQ(vxUnmapTensorPatch(tensor, id), VX_SUCCESS);
	EXPECT_EQ(vxUnmapTensorPatch(tensor, id), VX_ERROR_INVALID_PARAMETERS);

	float value = 0;
	vx_size one[] = { 3, 1 }, oneEnd[] = { 4, 2 }, userStride[] = { 4, 4 };
	ASSERT_EQ(vxCopyTensorPatch(tensor, 2, one, oneEnd, userStride, &value, VX_READ_ONLY,
			  VX_MEMORY_TYPE_HOST),
		VX_SUCCESS);
	EXPECT_EQ(value, 2.5f);
	vxReleaseTensor(&tensor);
}

TEST_F(Tensor, VirtualTensorIsNotAccessibleOutsideItsGraph)
{
	vx_graph graph = vxCreateGraph(context);
	vx_size dims[] = { 4 };
	vx_tensor tensor = vxCreateVirtualTensor(graph, 1, dims, VX_TYPE_UINT8, 0);
	ASSERT_EQ(vxGetStatus(ref(tensor)), VX_SUCCESS);
	vx_uint8 buffer[4];
	vx_size start[] = { 0 }, stride[] = { 1 };
	EXPECT_EQ(vxCopyTensorPatch(tensor, 1, start, dims, stride, buffer, VX_READ_ONLY,
			  VX_MEMORY_TYPE_HOST),
		VX_ERROR_OPTIMIZED_AWAY);
	vxReleaseTensor(&tensor);
	vxReleaseGraph(&graph);
}
