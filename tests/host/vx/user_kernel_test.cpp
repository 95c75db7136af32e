/* SPDX-License-Identifier: MIT */
/*
 * The user kernel rules of docs/openvx.md (registration, ids, modules, local
 * data, callback order, re-verification, meta formats), one rule per test.
 */
#include "vx_test.h"

#include <cstring>

using Registration = VxTest;
using KernelIds = VxTest;
using Modules = VxTest;

namespace {

vx_status VX_CALLBACK noRun(vx_node, const vx_reference *, vx_uint32)
{
	return VX_SUCCESS;
}

vx_status VX_CALLBACK noValidate(vx_node, const vx_reference[], vx_uint32, vx_meta_format[])
{
	return VX_SUCCESS;
}

vx_uint32 uniqueKernels(vx_context context)
{
	vx_uint32 count = 0;
	vxQueryContext(context, VX_CONTEXT_UNIQUE_KERNELS, &count, sizeof(count));
	return count;
}

vx_uint32 modules(vx_context context)
{
	vx_uint32 count = 0;
	vxQueryContext(context, VX_CONTEXT_MODULES, &count, sizeof(count));
	return count;
}

vx_kernel addTwoParameterKernel(vx_context context, const char *name)
{
	return vxAddUserKernel(context, name, VX_KERNEL_BASE(VX_ID_USER, 0) + 7, noRun, 2,
		noValidate, nullptr, nullptr);
}

} /* namespace */

TEST_F(Registration, AddUserKernelReturnsKernelReference)
{
	vx_kernel kernel = addTwoParameterKernel(context, "vdla.test.two");
	ASSERT_EQ(vxGetStatus(ref(kernel)), VX_SUCCESS);
	vx_enum type = 0;
	vxQueryReference(ref(kernel), VX_REFERENCE_TYPE, &type, sizeof(type));
	EXPECT_EQ(type, VX_TYPE_KERNEL);
	vxReleaseKernel(&kernel);
}

TEST_F(Registration, AddUserKernelWithoutFunctionIsAnError)
{
	vx_kernel kernel = vxAddUserKernel(
		context, "vdla.test.nofunc", 1, nullptr, 0, noValidate, nullptr, nullptr);
	EXPECT_EQ(vxGetStatus(ref(kernel)), VX_ERROR_INVALID_PARAMETERS);
}

TEST_F(Registration, AddParameterToInvalidKernelIsInvalidReference)
{
	vx_graph graph = vxCreateGraph(context);
	EXPECT_EQ(vxAddParameterToKernel(reinterpret_cast<vx_kernel>(graph), 0, VX_INPUT,
			  VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED),
		VX_ERROR_INVALID_REFERENCE);
	vxReleaseGraph(&graph);
}

struct BadParameter {
	const char *what;
	vx_uint32 index;
	vx_enum direction;
	vx_enum type;
	vx_enum state;
};

class AddParameterRejects : public VxTest, public ::testing::WithParamInterface<BadParameter>
{
};

TEST_P(AddParameterRejects, WithInvalidParameters)
{
	vx_kernel kernel = addTwoParameterKernel(context, "vdla.test.two");
	const BadParameter &p = GetParam();
	EXPECT_EQ(vxAddParameterToKernel(kernel, p.index, p.direction, p.type, p.state),
		VX_ERROR_INVALID_PARAMETERS)
		<< p.what;
	vxReleaseKernel(&kernel);
}

INSTANTIATE_TEST_SUITE_P(Registration, AddParameterRejects,
	::testing::Values(
		BadParameter{ "index", 2, VX_INPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED },
		BadParameter{ "direction", 0, VX_BIDIRECTIONAL, VX_TYPE_TENSOR,
			VX_PARAMETER_STATE_REQUIRED },
		BadParameter{ "type", 0, VX_INPUT, VX_TYPE_INVALID, VX_PARAMETER_STATE_REQUIRED },
		BadParameter{ "state", 0, VX_INPUT, VX_TYPE_TENSOR, 12345 }));

TEST_F(Registration, SetKernelAttributeWorksOnlyBeforeFinalize)
{
	vx_kernel kernel = vxAddUserKernel(
		context, "vdla.test.zero", 1, noRun, 0, noValidate, nullptr, nullptr);
	vx_size size = 16;
	EXPECT_EQ(vxSetKernelAttribute(kernel, VX_KERNEL_LOCAL_DATA_SIZE, &size, sizeof(size)),
		VX_SUCCESS);
	ASSERT_EQ(vxFinalizeKernel(kernel), VX_SUCCESS);
	EXPECT_NE(vxSetKernelAttribute(kernel, VX_KERNEL_LOCAL_DATA_SIZE, &size, sizeof(size)),
		VX_SUCCESS);
	vxReleaseKernel(&kernel);
}

TEST_F(Registration, SetUnsettableKernelAttributeIsNotSupported)
{
	vx_kernel kernel = addTwoParameterKernel(context, "vdla.test.two");
	vx_uint32 count = 5;
	EXPECT_EQ(vxSetKernelAttribute(kernel, VX_KERNEL_PARAMETERS, &count, sizeof(count)),
		VX_ERROR_NOT_SUPPORTED);
	vxReleaseKernel(&kernel);
}

TEST_F(Registration, FinalizeFailsWhenParametersDoNotMatchCount)
{
	vx_kernel kernel = addTwoParameterKernel(context, "vdla.test.two");
	vxAddParameterToKernel(kernel, 0, VX_INPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED);
	EXPECT_EQ(vxFinalizeKernel(kernel), VX_ERROR_INVALID_PARAMETERS);
	vxReleaseKernel(&kernel);
}

TEST_F(Registration, KernelReferenceStaysValidAfterFinalize)
{
	vx_kernel kernel = addCopyKernel(context);
	vx_uint32 count = 0;
	EXPECT_EQ(vxQueryKernel(kernel, VX_KERNEL_PARAMETERS, &count, sizeof(count)), VX_SUCCESS);
	EXPECT_EQ(count, 3u);
	vxReleaseKernel(&kernel);
}

TEST_F(Registration, FinalizedKernelIsFoundByNameAndEnum)
{
	vx_kernel kernel = addCopyKernel(context);
	vx_kernel byName = vxGetKernelByName(context, "vdla.test.copy");
	vx_kernel byEnum = vxGetKernelByEnum(context, VX_KERNEL_BASE(VX_ID_USER, 0));
	EXPECT_EQ(byName, kernel);
	EXPECT_EQ(byEnum, kernel);
	vxReleaseKernel(&byName);
	vxReleaseKernel(&byEnum);
	vxReleaseKernel(&kernel);
}

TEST_F(Registration, UnfinalizedKernelIsNotFoundByName)
{
	vx_kernel kernel = addTwoParameterKernel(context, "vdla.test.two");
	EXPECT_EQ(vxGetStatus(ref(vxGetKernelByName(context, "vdla.test.two"))),
		VX_ERROR_NOT_IMPLEMENTED);
	vxReleaseKernel(&kernel);
}

TEST_F(Registration, RemoveBaseKernelIsInvalidParameters)
{
	vx_kernel kernel = vxGetKernelByEnum(context, VX_KERNEL_TENSOR_ADD);
	ASSERT_EQ(vxGetStatus(ref(kernel)), VX_SUCCESS);
	EXPECT_EQ(vxRemoveKernel(kernel), VX_ERROR_INVALID_PARAMETERS);
	vxReleaseKernel(&kernel);
}

TEST_F(Registration, RemoveUnfinalizedKernelSucceeds)
{
	const vx_uint32 before = references();
	vx_kernel kernel = addTwoParameterKernel(context, "vdla.test.two");
	ASSERT_EQ(references(), before + 1);
	EXPECT_EQ(vxRemoveKernel(kernel), VX_SUCCESS);
	/* Released, and its name is free for a new kernel. */
	EXPECT_EQ(references(), before);
	kernel = addTwoParameterKernel(context, "vdla.test.two");
	EXPECT_EQ(vxGetStatus(ref(kernel)), VX_SUCCESS);
	EXPECT_EQ(vxRemoveKernel(kernel), VX_SUCCESS);
}

TEST_F(Registration, RemoveWithHandleFromGetKernelByNameSucceeds)
{
	vx_kernel added = addCopyKernel(context);
	vxReleaseKernel(&added);
	const vx_uint32 before = references();
	vx_kernel kernel = vxGetKernelByName(context, "vdla.test.copy");
	EXPECT_EQ(vxRemoveKernel(kernel), VX_SUCCESS);
	EXPECT_EQ(references(), before - 1);
	EXPECT_EQ(vxGetStatus(ref(vxGetKernelByName(context, "vdla.test.copy"))),
		VX_ERROR_NOT_IMPLEMENTED);
}

TEST_F(Registration, UniqueKernelsRisesOnFinalizeAndFallsOnRemove)
{
	const vx_uint32 before = uniqueKernels(context);
	vx_kernel kernel = addCopyKernel(context);
	EXPECT_EQ(uniqueKernels(context), before + 1);
	EXPECT_EQ(vxRemoveKernel(kernel), VX_SUCCESS);
	EXPECT_EQ(uniqueKernels(context), before);
}

TEST_F(Registration, RemovedKernelStaysUsableByExistingNodes)
{
	vx_kernel kernel = addCopyKernel(context);
	vx_graph graph = vxCreateGraph(context);
	vx_node node = copyNode(graph, kernel);
	ASSERT_EQ(vxRemoveKernel(kernel), VX_SUCCESS);
	EXPECT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
}

TEST_F(KernelIds, UserKernelIdsStartAtUserBaseAndRunOutAfter4096)
{
	vx_enum id = 0;
	ASSERT_EQ(vxAllocateUserKernelId(context, &id), VX_SUCCESS);
	EXPECT_EQ(id, VX_KERNEL_BASE(VX_ID_USER, 0));
	for (int i = 1; i < 4096; i++)
		ASSERT_EQ(vxAllocateUserKernelId(context, &id), VX_SUCCESS);
	EXPECT_EQ(id, VX_KERNEL_BASE(VX_ID_USER, 0) + 4095);
	EXPECT_EQ(vxAllocateUserKernelId(context, &id), VX_ERROR_NO_RESOURCES);
}

TEST_F(KernelIds, LibraryIdsRunFrom1To255)
{
	vx_enum id = 0;
	ASSERT_EQ(vxAllocateUserKernelLibraryId(context, &id), VX_SUCCESS);
	EXPECT_EQ(id, 1);
	for (int i = 2; i <= 255; i++)
		ASSERT_EQ(vxAllocateUserKernelLibraryId(context, &id), VX_SUCCESS);
	EXPECT_EQ(id, 255);
	EXPECT_EQ(vxAllocateUserKernelLibraryId(context, &id), VX_ERROR_NO_RESOURCES);
}

TEST_F(KernelIds, AddUserKernelAcceptsUnallocatedEnumeration)
{
	vx_kernel kernel = vxAddUserKernel(context, "vdla.test.lib",
		VX_KERNEL_BASE(VX_ID_USER, 9) + 3, noRun, 0, noValidate, nullptr, nullptr);
	EXPECT_EQ(vxGetStatus(ref(kernel)), VX_SUCCESS);
	vxReleaseKernel(&kernel);
}

TEST_F(Modules, LoadKernelsPublishesFromSharedLibrary)
{
	const vx_uint32 kernelsBefore = uniqueKernels(context);
	ASSERT_EQ(vxLoadKernels(context, "vdla_vx_test_module"), VX_SUCCESS);
	EXPECT_EQ(modules(context), 1u);
	EXPECT_EQ(uniqueKernels(context), kernelsBefore + 1);
	vx_kernel kernel = vxGetKernelByName(context, "vdla.test.module.negate");
	EXPECT_EQ(vxGetStatus(ref(kernel)), VX_SUCCESS);
	vxReleaseKernel(&kernel);
}

TEST_F(Modules, UnloadKernelsUnpublishes)
{
	const vx_uint32 kernelsBefore = uniqueKernels(context);
	ASSERT_EQ(vxLoadKernels(context, "vdla_vx_test_module"), VX_SUCCESS);
	ASSERT_EQ(vxUnloadKernels(context, "vdla_vx_test_module"), VX_SUCCESS);
	EXPECT_EQ(modules(context), 0u);
	EXPECT_EQ(uniqueKernels(context), kernelsBefore);
	EXPECT_EQ(vxGetStatus(ref(vxGetKernelByName(context, "vdla.test.module.negate"))),
		VX_ERROR_NOT_IMPLEMENTED);
}

TEST_F(Modules, ModuleKernelRunsInGraph)
{
	ASSERT_EQ(vxLoadKernels(context, "vdla_vx_test_module"), VX_SUCCESS);
	vx_kernel kernel = vxGetKernelByName(context, "vdla.test.module.negate");
	vx_graph graph = vxCreateGraph(context);
	vx_tensor in = makeTensor(VX_TYPE_INT8, { 3 }), out = makeTensor(VX_TYPE_INT8, { 3 });
	vx_int8 values[] = { 1, -2, 3 };
	vx_size start[] = { 0 }, end[] = { 3 }, stride[] = { 1 };
	vxCopyTensorPatch(in, 1, start, end, stride, values, VX_WRITE_ONLY, VX_MEMORY_TYPE_HOST);
	vx_node node = vxCreateGenericNode(graph, kernel);
	vxSetParameterByIndex(node, 0, ref(in));
	vxSetParameterByIndex(node, 1, ref(out));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	vxCopyTensorPatch(out, 1, start, end, stride, values, VX_READ_ONLY, VX_MEMORY_TYPE_HOST);
	EXPECT_EQ(values[0], -1);
	EXPECT_EQ(values[1], 2);
	EXPECT_EQ(values[2], -3);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	vxReleaseKernel(&kernel);
	vxReleaseTensor(&in);
	vxReleaseTensor(&out);
}

TEST_F(Modules, MissingLibraryFailsToLoad)
{
	EXPECT_EQ(vxLoadKernels(context, "vdla_no_such_module"), VX_ERROR_INVALID_PARAMETERS);
	EXPECT_EQ(modules(context), 0u);
}

namespace {
int published, unpublished;
vx_status VX_API_CALL publishStatic(vx_context context)
{
	published++;
	vx_kernel kernel = vxAddUserKernel(
		context, "vdla.test.static", 77, noRun, 0, noValidate, nullptr, nullptr);
	vx_status status = vxFinalizeKernel(kernel);
	vxReleaseKernel(&kernel);
	return status;
}
vx_status VX_API_CALL unpublishStatic(vx_context context)
{
	unpublished++;
	vx_kernel kernel = vxGetKernelByName(context, "vdla.test.static");
	return vxRemoveKernel(kernel);
}
} /* namespace */

TEST_F(Modules, RegisteredKernelLibraryIsUsedByLoadAndUnload)
{
	published = unpublished = 0;
	ASSERT_EQ(vxRegisterKernelLibrary(context, "static_lib", publishStatic, unpublishStatic),
		VX_SUCCESS);
	ASSERT_EQ(vxLoadKernels(context, "static_lib"), VX_SUCCESS);
	EXPECT_EQ(published, 1);
	EXPECT_EQ(modules(context), 1u);
	ASSERT_EQ(vxUnloadKernels(context, "static_lib"), VX_SUCCESS);
	EXPECT_EQ(unpublished, 1);
	EXPECT_EQ(modules(context), 0u);
}

class LocalDataGraph : public VxTest
{
protected:
	void build(vx_size kernelLocalDataSize)
	{
		kernel = addCopyKernel(context, kernelLocalDataSize);
		graph = vxCreateGraph(context);
		node = copyNode(graph, kernel);
	}
	void TearDown() override
	{
		vxReleaseNode(&node);
		vxReleaseGraph(&graph);
		vxReleaseKernel(&kernel);
		VxTest::TearDown();
	}
	vx_kernel kernel = nullptr;
	vx_graph graph = nullptr;
	vx_node node = nullptr;
};

TEST_F(LocalDataGraph, KernelSizeGivesNodeBufferBeforeValidate)
{
	build(64);
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_EQ(probe().sizeAtValidate, 64u);
	EXPECT_NE(probe().ptrAtValidate, nullptr);
}

/* The node reports its kernel's size from creation on; the area comes with verification. */
TEST_F(LocalDataGraph, NewNodeHasItsKernelsSize)
{
	build(256);
	vx_size size = 0;
	void *ptr = &size;
	ASSERT_EQ(vxQueryNode(node, VX_NODE_LOCAL_DATA_SIZE, &size, sizeof(size)), VX_SUCCESS);
	EXPECT_EQ(size, 256u);
	ASSERT_EQ(vxQueryNode(node, VX_NODE_LOCAL_DATA_PTR, &ptr, sizeof(ptr)), VX_SUCCESS);
	EXPECT_EQ(ptr, nullptr);
}

TEST_F(LocalDataGraph, KernelSizeZeroGivesNullBeforeValidateAndInit)
{
	build(0);
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_EQ(probe().sizeAtValidate, 0u);
	EXPECT_EQ(probe().ptrAtValidate, nullptr);
	EXPECT_EQ(probe().sizeAtInit, 0u);
	EXPECT_EQ(probe().ptrAtInit, nullptr);
}

TEST_F(LocalDataGraph, InitMaySetSizeAndPointerWhenKernelSizeIsZero)
{
	static char buffer[32];
	probe().initSetsSize = sizeof(buffer);
	probe().initSetsPtr = buffer;
	build(0);
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_EQ(probe().initSetStatus, VX_SUCCESS);
	void *ptr = nullptr;
	vxQueryNode(node, VX_NODE_LOCAL_DATA_PTR, &ptr, sizeof(ptr));
	EXPECT_EQ(ptr, buffer);
}

TEST_F(LocalDataGraph, InitMayNotSetLocalDataWhenKernelSizeIsNonZero)
{
	probe().initSetsSize = 8;
	build(64);
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_NE(probe().initSetStatus, VX_SUCCESS);
	vx_size size = 0;
	vxQueryNode(node, VX_NODE_LOCAL_DATA_SIZE, &size, sizeof(size));
	EXPECT_EQ(size, 64u);
}

TEST_F(LocalDataGraph, ImplementationAllocatesWhenInitSetsOnlySize)
{
	probe().initSetsSize = 24;
	build(0);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(probe().sizeAtRun, 24u);
	EXPECT_NE(probe().ptrAtRun, nullptr);
}

TEST_F(LocalDataGraph, DeinitMayNotReplaceImplementationAllocatedPointer)
{
	probe().deinitSetsPtr = true;
	build(64);
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	EXPECT_NE(probe().deinitSetStatus, VX_SUCCESS);
}

TEST_F(LocalDataGraph, DeinitMayNotReplaceThePointerAllocatedForTheSizeInitSet)
{
	/* Kernel size 0; init sets only a size, so the implementation allocates
	 * the buffer (step 4) and owns the pointer. */
	probe().initSetsSize = 24;
	probe().deinitSetsPtr = true;
	build(0);
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	EXPECT_NE(probe().deinitSetStatus, VX_SUCCESS);
}

TEST_F(LocalDataGraph, ImplementationAllocatedLocalDataIsNotKeptAcrossVerifications)
{
	/* Contents are not promised between executions; vdla gives a fresh
	 * zero-filled buffer at each verification and keeps it while the graph
	 * stays verified. */
	probe().duringRun = [] {
		auto bytes = static_cast<uint8_t *>(probe().ptrAtRun);
		for (vx_size i = 0; i < probe().sizeAtRun; i++)
			EXPECT_EQ(bytes[i], 0) << "byte " << i;
		memset(bytes, 0xA5, probe().sizeAtRun);
	};
	build(64);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	ASSERT_EQ(probe().sizeAtRun, 64u);
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
}

TEST_F(LocalDataGraph, DeinitMaySetPointerItsInitSet)
{
	static char buffer[16];
	probe().initSetsSize = sizeof(buffer);
	probe().initSetsPtr = buffer;
	probe().deinitSetsPtr = true;
	build(0);
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	EXPECT_EQ(probe().deinitSetStatus, VX_SUCCESS);
}

TEST_F(LocalDataGraph, SettingLocalDataOutsideCallbacksFails)
{
	build(0);
	vx_size size = 8;
	EXPECT_NE(
		vxSetNodeAttribute(node, VX_NODE_LOCAL_DATA_SIZE, &size, sizeof(size)), VX_SUCCESS);
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_NE(
		vxSetNodeAttribute(node, VX_NODE_LOCAL_DATA_SIZE, &size, sizeof(size)), VX_SUCCESS);
}

class Callbacks : public LocalDataGraph
{
};

TEST_F(Callbacks, VerifyCallsValidateThenInitialize)
{
	build(0);
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_EQ(probe().events, (std::vector<std::string>{ "validate", "init" }));
}

TEST_F(Callbacks, ReleasingGraphCallsDeinitialize)
{
	build(0);
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	EXPECT_EQ(probe().events.back(), "deinit");
}

TEST_F(Callbacks, RemovingNodeCallsDeinitialize)
{
	build(0);
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	ASSERT_EQ(vxRemoveNode(&node), VX_SUCCESS);
	EXPECT_EQ(node, nullptr);
	EXPECT_EQ(probe().events.back(), "deinit");
}

TEST_F(Callbacks, ExecutingVerifiedGraphCallsNoValidateInitOrDeinit)
{
	build(0);
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	probe().events.clear();
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(probe().events, (std::vector<std::string>{ "run", "run" }));
}

TEST_F(Callbacks, ProcessVerifiesAnUnverifiedGraphFirst)
{
	build(0);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(probe().events, (std::vector<std::string>{ "validate", "init", "run" }));
}

class Reverify : public LocalDataGraph
{
protected:
	void verified()
	{
		build(0);
		ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
		probe().events.clear();
	}
	const std::vector<std::string> again{ "deinit", "validate", "init", "run" };
};

TEST_F(Reverify, ExplicitVerifyRunsDeinitValidateInit)
{
	verified();
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_EQ(probe().events, (std::vector<std::string>{ "deinit", "validate", "init" }));
}

TEST_F(Reverify, ParameterWithOtherMetaDataReverifiesAtNextExecution)
{
	verified();
	vx_tensor bigger = makeTensor(VX_TYPE_FLOAT32, { 8, 2 });
	vx_tensor biggerOut = makeTensor(VX_TYPE_FLOAT32, { 8, 2 });
	vxSetParameterByIndex(node, 0, ref(bigger));
	vxSetParameterByIndex(node, 1, ref(biggerOut));
	EXPECT_EQ(vxIsGraphVerified(graph), vx_false_e);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(probe().events, again);
	vxReleaseTensor(&bigger);
	vxReleaseTensor(&biggerOut);
}

TEST_F(Reverify, ParameterWithSameMetaDataKeepsGraphVerified)
{
	verified();
	vx_tensor same = makeTensor();
	vxSetParameterByIndex(node, 0, ref(same));
	EXPECT_EQ(vxIsGraphVerified(graph), vx_true_e);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(probe().events, (std::vector<std::string>{ "run" }));
	vxReleaseTensor(&same);
}

TEST_F(Reverify, OptionalParameterSetWhereUnsetReverifies)
{
	verified();
	vx_int32 value = 3;
	vx_scalar scalar = vxCreateScalar(context, VX_TYPE_INT32, &value);
	vxSetParameterByIndex(node, 2, ref(scalar));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(probe().events, again);
	vxReleaseScalar(&scalar);
}

TEST_F(Reverify, OptionalParameterSetToNullReverifies)
{
	verified();
	vx_int32 value = 3;
	vx_scalar scalar = vxCreateScalar(context, VX_TYPE_INT32, &value);
	vxSetParameterByIndex(node, 2, ref(scalar));
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	probe().events.clear();
	vxSetParameterByIndex(node, 2, nullptr);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(probe().events, again);
	vxReleaseScalar(&scalar);
}

TEST_F(Reverify, BorderChangeReverifies)
{
	verified();
	vx_border_t border = {};
	border.mode = VX_BORDER_REPLICATE;
	ASSERT_EQ(vxSetNodeAttribute(node, VX_NODE_BORDER, &border, sizeof(border)), VX_SUCCESS);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(probe().events, again);
}

TEST_F(Reverify, LocalDataIsResetBeforeValidateWhenKernelSizeIsZero)
{
	static char buffer[8];
	probe().initSetsSize = sizeof(buffer);
	probe().initSetsPtr = buffer;
	verified();
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_EQ(probe().sizeAtValidate, 0u);
	EXPECT_EQ(probe().ptrAtValidate, nullptr);
}

class Meta : public LocalDataGraph
{
protected:
	/* A copy node whose output is a virtual tensor with nothing specified,
	 * read by a second copy node into a real tensor. */
	void chain()
	{
		kernel = addCopyKernel(context, 0, false);
		graph = vxCreateGraph(context);
		in = makeTensor(VX_TYPE_INT16, { 5, 3 }, 4);
		out = makeTensor(VX_TYPE_INT16, { 5, 3 }, 4);
		middle = vxCreateVirtualTensor(graph, 0, nullptr, VX_TYPE_INVALID, 0);
		node = vxCreateGenericNode(graph, kernel);
		second = vxCreateGenericNode(graph, kernel);
		vxSetParameterByIndex(node, 0, ref(in));
		vxSetParameterByIndex(node, 1, ref(middle));
		vxSetParameterByIndex(second, 0, ref(middle));
		vxSetParameterByIndex(second, 1, ref(out));
	}
	void TearDown() override
	{
		vxReleaseNode(&second);
		vxReleaseTensor(&in);
		vxReleaseTensor(&out);
		vxReleaseTensor(&middle);
		LocalDataGraph::TearDown();
	}
	vx_tensor in = nullptr, out = nullptr, middle = nullptr;
	vx_node second = nullptr;
};

TEST_F(Meta, VirtualOutputIsCreatedFromMetaFormat)
{
	chain();
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	vx_size count = 0, dims[2] = {};
	vx_enum type = 0;
	vx_int8 position = 0;
	vxQueryTensor(middle, VX_TENSOR_NUMBER_OF_DIMS, &count, sizeof(count));
	vxQueryTensor(middle, VX_TENSOR_DIMS, dims, sizeof(dims));
	vxQueryTensor(middle, VX_TENSOR_DATA_TYPE, &type, sizeof(type));
	vxQueryTensor(middle, VX_TENSOR_FIXED_POINT_POSITION, &position, sizeof(position));
	EXPECT_EQ(count, 2u);
	EXPECT_EQ(dims[0], 5u);
	EXPECT_EQ(dims[1], 3u);
	EXPECT_EQ(type, VX_TYPE_INT16);
	EXPECT_EQ(position, 4);
}

TEST_F(Meta, VirtualIntermediateCarriesDataThroughTheChain)
{
	chain();
	std::vector<vx_int16> values(15), result(15);
	for (size_t i = 0; i < values.size(); i++)
		values[i] = static_cast<vx_int16>(i * 100 - 700);
	vx_size start[] = { 0, 0 }, end[] = { 5, 3 }, stride[] = { 2, 10 };
	vxCopyTensorPatch(
		in, 2, start, end, stride, values.data(), VX_WRITE_ONLY, VX_MEMORY_TYPE_HOST);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	vxCopyTensorPatch(
		out, 2, start, end, stride, result.data(), VX_READ_ONLY, VX_MEMORY_TYPE_HOST);
	EXPECT_EQ(result, values);
}

TEST_F(Meta, RealOutputWithOtherDimensionsFailsVerification)
{
	kernel = addCopyKernel(context, 0, false);
	graph = vxCreateGraph(context);
	vx_tensor in = makeTensor(VX_TYPE_UINT8, { 4 });
	vx_tensor out = makeTensor(VX_TYPE_UINT8, { 5 });
	node = vxCreateGenericNode(graph, kernel);
	vxSetParameterByIndex(node, 0, ref(in));
	vxSetParameterByIndex(node, 1, ref(out));
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_DIMENSION);
	vxReleaseTensor(&in);
	vxReleaseTensor(&out);
}

TEST_F(Meta, RealOutputWithOtherDataTypeFailsVerification)
{
	kernel = addCopyKernel(context, 0, false);
	graph = vxCreateGraph(context);
	vx_tensor in = makeTensor(VX_TYPE_UINT8, { 4 });
	vx_tensor out = makeTensor(VX_TYPE_INT8, { 4 });
	node = vxCreateGenericNode(graph, kernel);
	vxSetParameterByIndex(node, 0, ref(in));
	vxSetParameterByIndex(node, 1, ref(out));
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_FORMAT);
	vxReleaseTensor(&in);
	vxReleaseTensor(&out);
}

TEST_F(Meta, ValidatorFailureFailsVerification)
{
	probe().validator
		= [](const vx_reference *, vx_meta_format *) { return VX_ERROR_INVALID_VALUE; };
	build(0);
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_VALUE);
	EXPECT_EQ(vxIsGraphVerified(graph), vx_false_e);
}

struct MetaCase {
	const char *what;
	vx_enum attribute;
	std::vector<uint8_t> value;
	vx_status expected;
};

class MetaAttribute : public LocalDataGraph, public ::testing::WithParamInterface<MetaCase>
{
};

template <typename T> std::vector<uint8_t> bytes(T value)
{
	auto p = reinterpret_cast<const uint8_t *>(&value);
	return std::vector<uint8_t>(p, p + sizeof(T));
}

TEST_P(MetaAttribute, SetOnTensorOutput)
{
	const MetaCase &c = GetParam();
	vx_status seen = VX_FAILURE;
	probe().validator = [&](const vx_reference *parameters, vx_meta_format *metas) {
		seen = vxSetMetaFormatAttribute(
			metas[1], c.attribute, c.value.data(), c.value.size());
		return vxSetMetaFormatFromReference(metas[1], parameters[0]);
	};
	build(0);
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_EQ(seen, c.expected) << c.what;
}

INSTANTIATE_TEST_SUITE_P(Meta, MetaAttribute,
	::testing::Values(MetaCase{ "tensor type", VX_TENSOR_DATA_TYPE,
				  bytes<vx_enum>(VX_TYPE_FLOAT32), VX_SUCCESS },
		MetaCase{ "wrong size", VX_TENSOR_DATA_TYPE, bytes<vx_int8>(1),
			VX_ERROR_INVALID_PARAMETERS },
		MetaCase{ "scalar attribute on a tensor", VX_SCALAR_TYPE,
			bytes<vx_enum>(VX_TYPE_INT32), VX_ERROR_INVALID_TYPE },
		MetaCase{ "unsupported attribute", VX_KERNEL_NAME, bytes<vx_enum>(0),
			VX_ERROR_NOT_SUPPORTED }));

TEST_F(Meta, SetAttributeOnInvalidMetaIsInvalidReference)
{
	vx_enum type = VX_TYPE_INT8;
	EXPECT_EQ(vxSetMetaFormatAttribute(nullptr, VX_TENSOR_DATA_TYPE, &type, sizeof(type)),
		VX_ERROR_INVALID_REFERENCE);
}

TEST_F(Meta, QueryReadsBackWhatWasSet)
{
	vx_size dims[3] = {};
	probe().validator = [&](const vx_reference *parameters, vx_meta_format *metas) {
		vx_status status = vxSetMetaFormatFromReference(metas[1], parameters[0]);
		vxQueryMetaFormatAttribute(metas[1], VX_TENSOR_DIMS, dims, sizeof(vx_size) * 2);
		return status;
	};
	build(0);
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_EQ(dims[0], 4u);
	EXPECT_EQ(dims[1], 2u);
}

namespace {
vx_status VX_CALLBACK fullRectangle(
	vx_node, vx_uint32, const vx_rectangle_t *const[], vx_rectangle_t *const[])
{
	return VX_SUCCESS;
}
} /* namespace */

TEST_F(Meta, ValidRectangleCallbackOnATensorOutputIsInvalidType)
{
	/* Valid rectangles belong to images (image_test.cpp ValidRectangle.*);
	 * an attribute of another object type is VX_ERROR_INVALID_TYPE. */
	vx_kernel_image_valid_rectangle_f readBack = nullptr;
	vx_status set = VX_FAILURE, query = VX_FAILURE;
	probe().validator = [&](const vx_reference *parameters, vx_meta_format *metas) {
		vx_kernel_image_valid_rectangle_f callback = fullRectangle;
		set = vxSetMetaFormatAttribute(
			metas[1], VX_VALID_RECT_CALLBACK, &callback, sizeof(callback));
		query = vxQueryMetaFormatAttribute(
			metas[1], VX_VALID_RECT_CALLBACK, &readBack, sizeof(readBack));
		return vxSetMetaFormatFromReference(metas[1], parameters[0]);
	};
	build(0);
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_EQ(set, VX_ERROR_INVALID_TYPE);
	EXPECT_EQ(query, VX_ERROR_INVALID_TYPE);
	EXPECT_EQ(readBack, nullptr);
}

namespace {

/* How often validateSplit ran, and the meta formats it was given. */
struct SplitProbe {
	int validations = 0;
	bool inputHadMeta = true;
	bool outputsHadMetas = false;
	vx_size secondRank = 2;
};
SplitProbe split;

/* in -> out0 (same as in) and out1 (an INT8 vector of 3 at position 2,
 * described attribute by attribute). */
vx_status VX_CALLBACK validateSplit(
	vx_node, const vx_reference parameters[], vx_uint32, vx_meta_format metas[])
{
	split.validations++;
	split.inputHadMeta = metas[0] != nullptr;
	split.outputsHadMetas = metas[1] && metas[2];
	const vx_enum type = VX_TYPE_INT8;
	const vx_int8 position = 2;
	const vx_size three = 3;
	vx_status status = vxSetMetaFormatFromReference(metas[1], parameters[0]);
	if (status == VX_SUCCESS)
		status = vxSetMetaFormatAttribute(
			metas[2], VX_TENSOR_NUMBER_OF_DIMS, &split.secondRank, sizeof(vx_size));
	if (status == VX_SUCCESS && split.secondRank == 1)
		status = vxSetMetaFormatAttribute(metas[2], VX_TENSOR_DIMS, &three, sizeof(three));
	if (status == VX_SUCCESS)
		status = vxSetMetaFormatAttribute(
			metas[2], VX_TENSOR_DATA_TYPE, &type, sizeof(type));
	if (status == VX_SUCCESS)
		status = vxSetMetaFormatAttribute(
			metas[2], VX_TENSOR_FIXED_POINT_POSITION, &position, sizeof(position));
	return status;
}

vx_status VX_CALLBACK runSplit(vx_node, const vx_reference *, vx_uint32)
{
	return VX_SUCCESS;
}

} /* namespace */

class MetaOutputs : public VxTest
{
protected:
	void SetUp() override
	{
		VxTest::SetUp();
		split = SplitProbe{};
		kernel = vxAddUserKernel(context, "vdla.test.split",
			VX_KERNEL_BASE(VX_ID_USER, 0) + 9, runSplit, 3, validateSplit, nullptr,
			nullptr);
		vxAddParameterToKernel(
			kernel, 0, VX_INPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED);
		vxAddParameterToKernel(
			kernel, 1, VX_OUTPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED);
		vxAddParameterToKernel(
			kernel, 2, VX_OUTPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED);
		ASSERT_EQ(vxFinalizeKernel(kernel), VX_SUCCESS);
		graph = vxCreateGraph(context);
		in = makeTensor(VX_TYPE_INT16, { 4, 2 }, 3);
		first = vxCreateVirtualTensor(graph, 0, nullptr, VX_TYPE_INVALID, 0);
		second = vxCreateVirtualTensor(graph, 0, nullptr, VX_TYPE_INVALID, 0);
		vx_node node = vxCreateGenericNode(graph, kernel);
		vxSetParameterByIndex(node, 0, ref(in));
		vxSetParameterByIndex(node, 1, ref(first));
		vxSetParameterByIndex(node, 2, ref(second));
		vxReleaseNode(&node);
	}
	void TearDown() override
	{
		vxReleaseTensor(&in);
		vxReleaseTensor(&first);
		vxReleaseTensor(&second);
		vxReleaseGraph(&graph);
		vxRemoveKernel(kernel);
		VxTest::TearDown();
	}
	std::vector<vx_size> dims(vx_tensor tensor)
	{
		vx_size count = 0, values[6] = {};
		vxQueryTensor(tensor, VX_TENSOR_NUMBER_OF_DIMS, &count, sizeof(count));
		vxQueryTensor(tensor, VX_TENSOR_DIMS, values, count * sizeof(vx_size));
		return std::vector<vx_size>(values, values + count);
	}
	vx_kernel kernel = nullptr;
	vx_graph graph = nullptr;
	vx_tensor in = nullptr, first = nullptr, second = nullptr;
};

TEST_F(MetaOutputs, ValidateRunsOnceForTheWholeSetWithAMetaAtEachOutputIndex)
{
	split.secondRank = 1;
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_EQ(split.validations, 1);
	EXPECT_FALSE(split.inputHadMeta) << "metas are given for outputs only";
	EXPECT_TRUE(split.outputsHadMetas);
	EXPECT_EQ(dims(first), (std::vector<vx_size>{ 4, 2 }));
}

TEST_F(MetaOutputs, VirtualOutputIsCreatedFromMetaAttributes)
{
	split.secondRank = 1;
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_EQ(dims(second), (std::vector<vx_size>{ 3 }));
	vx_enum type = VX_TYPE_INVALID;
	vx_int8 position = 0;
	vxQueryTensor(second, VX_TENSOR_DATA_TYPE, &type, sizeof(type));
	vxQueryTensor(second, VX_TENSOR_FIXED_POINT_POSITION, &position, sizeof(position));
	EXPECT_EQ(type, VX_TYPE_INT8);
	EXPECT_EQ(position, 2);
}

TEST_F(MetaOutputs, RankWithoutExtentsCannotCreateAVirtualOutput)
{
	/* NUMBER_OF_DIMS alone leaves the extents unknown (0). */
	split.secondRank = 2;
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_PARAMETERS);
}

TEST_F(Meta, SetFromReferenceOfOtherObjectTypeIsInvalidType)
{
	vx_status seen = VX_FAILURE;
	probe().validator = [&](const vx_reference *parameters, vx_meta_format *metas) {
		vx_int32 value = 0;
		vx_scalar scalar
			= vxCreateScalar(vxGetContext(parameters[0]), VX_TYPE_INT32, &value);
		seen = vxSetMetaFormatFromReference(metas[1], ref(scalar));
		vxReleaseScalar(&scalar);
		return vxSetMetaFormatFromReference(metas[1], parameters[0]);
	};
	build(0);
	ASSERT_EQ(vxVerifyGraph(graph), VX_SUCCESS);
	EXPECT_EQ(seen, VX_ERROR_INVALID_TYPE);
}
