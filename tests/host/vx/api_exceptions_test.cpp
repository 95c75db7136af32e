/* SPDX-License-Identifier: MIT */
/*
 * No C++ exception crosses the C API. This executable replaces the global
 * operator new with one that can be told to fail (std::bad_alloc) at the
 * Nth allocation made inside an OpenVX call; the sweep fails each
 * allocation of building and running a graph in turn and checks that the
 * call reports an error (instead of std::terminate() ending the process)
 * that the same graph then runs with the right answer, and that the failed
 * call left no object behind (the context's reference count). Each
 * creation function is swept the same way. Exceptions thrown by C++ user
 * kernels fail the run the same way, through vxProcessGraph and
 * vxScheduleGraph.
 */
#include "vx_test.h"

#include <VX/vx_khr_nn.h>
#include <VX/vx_nodes.h>

#include <cstdlib>
#include <new>
#include <stdexcept>

namespace {

/* Allocations left before the one that fails, counted only while armed. */
thread_local bool armed = false;
thread_local long allocationsBeforeFailure = -1;
thread_local bool failed = false;

/* Calls @call, counting its allocations towards the one that fails. */
template <typename Call> auto counted(Call call)
{
	armed = true;
	auto result = call();
	armed = false;
	return result;
}

} /* namespace */

void *operator new(std::size_t size)
{
	if (armed && allocationsBeforeFailure >= 0 && allocationsBeforeFailure-- == 0) {
		failed = true;
		throw std::bad_alloc();
	}
	if (void *memory = std::malloc(size ? size : 1))
		return memory;
	throw std::bad_alloc();
}

/*
 * GCC sees free() of what operator new returned where it inlines these,
 * not knowing that this operator new is malloc.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void *memory) noexcept
{
	std::free(memory);
}

void operator delete(void *memory, std::size_t) noexcept
{
	std::free(memory);
}
#pragma GCC diagnostic pop

namespace {

using ApiExceptions = VxTest;

/*
 * An INT16 graph: out = relu(a + b) - b with a = b = (-3 ... 4), which is
 * |a|. The failAt-th allocation made inside the API calls fails. Returns the output's values, or nothing when a call
 * failed (everything created is released either way).
 */
struct Sweep {
	vx_context context;
	long failAt;
	std::vector<vx_reference> made;
	bool ok = true;
	vx_uint32 referencesBefore = 0;

	vx_uint32 references() const
	{
		vx_uint32 count = 0;
		EXPECT_EQ(vxQueryContext(context, VX_CONTEXT_REFERENCES, &count, sizeof(count)),
			VX_SUCCESS);
		return count;
	}

	vx_status call(const std::function<vx_status()> &api)
	{
		const vx_status status = counted(api);
		ok &= status == VX_SUCCESS;
		return status;
	}
	template <typename T> T create(const std::function<T()> &api)
	{
		T object = counted(api);
		if (vxGetStatus(ref(object)) == VX_SUCCESS)
			made.push_back(ref(object));
		else
			ok = false;
		return object;
	}

	/* The failAt-th allocation of all the calls fails (none if negative). */
	std::vector<int16_t> run()
	{
		referencesBefore = references();
		allocationsBeforeFailure = failAt;
		const vx_size dims[] = { 4, 2 };
		const int16_t values[] = { -3, -2, -1, 0, 1, 2, 3, 4 };
		const vx_size start[] = { 0, 0 }, end[] = { 4, 2 }, strides[] = { 2, 8 };
		std::vector<int16_t> out(8, 0x5555);
		auto tensor = [&] {
			return create<vx_tensor>([&] {
				return vxCreateTensor(context, 2, dims, VX_TYPE_INT16, 0);
			});
		};
		vx_graph graph = create<vx_graph>([&] { return vxCreateGraph(context); });
		vx_tensor a = tensor(), b = tensor(), result = tensor();
		if (!ok)
			return finish({});
		vx_tensor sum = create<vx_tensor>([&] {
			return vxCreateVirtualTensor(graph, 2, dims, VX_TYPE_INT16, 0);
		});
		vx_tensor relu = create<vx_tensor>([&] {
			return vxCreateVirtualTensor(graph, 2, dims, VX_TYPE_INT16, 0);
		});
		if (!ok)
			return finish({});
		for (vx_tensor t : { a, b })
			call([&] {
				return vxCopyTensorPatch(t, 2, start, end, strides,
					const_cast<int16_t *>(values), VX_WRITE_ONLY,
					VX_MEMORY_TYPE_HOST);
			});
		create<vx_node>([&] {
			return vxTensorAddNode(graph, a, b, VX_CONVERT_POLICY_SATURATE, sum);
		});
		create<vx_node>([&] {
			return vxActivationLayer(graph, sum, VX_NN_ACTIVATION_RELU, 0, 0, relu);
		});
		create<vx_node>([&] {
			return vxTensorSubtractNode(graph, relu, b, VX_CONVERT_POLICY_SATURATE,
				result);
		});
		if (!ok)
			return finish({});
		call([&] { return vxVerifyGraph(graph); });
		if (ok)
			call([&] { return vxProcessGraph(graph); });
		if (ok)
			call([&] {
				return vxCopyTensorPatch(result, 2, start, end, strides, out.data(),
					VX_READ_ONLY, VX_MEMORY_TYPE_HOST);
			});
		return finish(ok ? out : std::vector<int16_t>());
	}

	std::vector<int16_t> finish(std::vector<int16_t> out)
	{
		for (vx_reference &object : made)
			EXPECT_EQ(vxReleaseReference(&object), VX_SUCCESS);
		made.clear();
		/* A call that failed left nothing behind. */
		EXPECT_EQ(references(), referencesBefore)
			<< "objects left after failing allocation " << failAt;
		return out;
	}
};

TEST_F(ApiExceptions, EveryFailingAllocationOfAGraphIsAnError)
{
	const std::vector<int16_t> expected = { 3, 2, 1, 0, 1, 2, 3, 4 };
	Sweep reference{ context, -1, {} };
	ASSERT_EQ(reference.run(), expected);

	long n = 0;
	for (; n < 20000; n++) {
		failed = false;
		Sweep sweep{ context, n, {} };
		testing::internal::CaptureStderr();
		const std::vector<int16_t> out = sweep.run();
		const std::string reported = testing::internal::GetCapturedStderr();
		if (!failed) {
			/* Past the last allocation: nothing failed. */
			ASSERT_EQ(out, expected);
			break;
		}
		if (HasFailure())
			FAIL() << "failing allocation " << n << "; stderr: " << reported;
		/* What a call did before it failed does not stop the next graph. */
		ASSERT_EQ(reference.run(), expected) << "after failing allocation " << n;
		/* A run that did not fail recovered from the allocation itself. */
		if (!out.empty()) {
			EXPECT_EQ(out, expected) << "allocation " << n;
		}
	}
	RecordProperty("allocations", n);
	EXPECT_GT(n, 50) << "the sweep covered too few allocations";
	EXPECT_LT(n, 20000) << "the sweep did not reach the end";
}

bool throwFromKernel = true;

vx_status VX_CALLBACK throwingRun(vx_node, const vx_reference *, vx_uint32)
{
	if (throwFromKernel)
		throw std::runtime_error("user kernel failed");
	return VX_SUCCESS;
}

vx_status VX_CALLBACK acceptAll(vx_node, const vx_reference *, vx_uint32, vx_meta_format *)
{
	return VX_SUCCESS;
}

/* A creation function, called with a graph of its own. */
struct Creation {
	const char *name;
	std::function<vx_reference(vx_graph)> make;
};

/*
 * Each creation function, with each of its allocations failing in turn,
 * returns an error (or NULL) and leaves no object behind: the context
 * counts as many objects as before once the caller released what it got.
 */
TEST_F(ApiExceptions, EveryFailingAllocationOfACreationLeavesNothingBehind)
{
	vx_tensor in = makeTensor(VX_TYPE_INT16), out = makeTensor(VX_TYPE_INT16);
	vx_graph withNode = vxCreateGraph(context);
	vx_node node = vxActivationLayer(withNode, in, VX_NN_ACTIVATION_RELU, 0, 0, out);
	vx_kernel relu = vxGetKernelByEnum(context, VX_KERNEL_ACTIVATION_LAYER);
	ASSERT_EQ(vxGetStatus(ref(node)), VX_SUCCESS);
	const vx_size dims[] = { 4, 2 }, strides[] = { 2, 8 }, start[] = { 1, 0 };
	const vx_int32 value = 7;
	std::vector<int16_t> tensorMemory(8);
	std::vector<uint8_t> imageMemory(64);
	vx_imagepatch_addressing_t addressing = {};
	addressing.dim_x = addressing.dim_y = 8;
	addressing.stride_x = 1;
	addressing.stride_y = 8;
	addressing.scale_x = addressing.scale_y = VX_SCALE_UNITY;
	addressing.step_x = addressing.step_y = 1;
	void *imagePlanes[] = { imageMemory.data() };
	vx_image image = vxCreateImage(context, 8, 8, VX_DF_IMAGE_U8);
	const vx_rectangle_t roi = { 2, 2, 6, 6 };
	const std::vector<Creation> creations = {
		{ "vxCreateTensor",
			[&](vx_graph) {
				return ref(vxCreateTensor(context, 2, dims, VX_TYPE_INT16, 0));
			} },
		{ "vxCreateVirtualTensor",
			[&](vx_graph graph) {
				return ref(vxCreateVirtualTensor(graph, 2, dims, VX_TYPE_INT16, 0));
			} },
		{ "vxCreateTensorFromHandle",
			[&](vx_graph) {
				return ref(vxCreateTensorFromHandle(context, 2, dims, VX_TYPE_INT16, 0,
					strides, tensorMemory.data(), VX_MEMORY_TYPE_HOST));
			} },
		{ "vxCreateTensorFromView",
			[&](vx_graph) { return ref(vxCreateTensorFromView(in, 2, start, dims)); } },
		{ "vxCreateImageFromHandle",
			[&](vx_graph) {
				return ref(vxCreateImageFromHandle(context, VX_DF_IMAGE_U8,
					&addressing, imagePlanes, VX_MEMORY_TYPE_HOST));
			} },
		{ "vxCreateImageFromROI",
			[&](vx_graph) { return ref(vxCreateImageFromROI(image, &roi)); } },
		{ "vxCreateScalar",
			[&](vx_graph) { return ref(vxCreateScalar(context, VX_TYPE_INT32, &value)); } },
		{ "vxCreateLUT",
			[&](vx_graph) { return ref(vxCreateLUT(context, VX_TYPE_UINT8, 256)); } },
		{ "vxCreateImage",
			[&](vx_graph) { return ref(vxCreateImage(context, 8, 8, VX_DF_IMAGE_U8)); } },
		{ "vxCreateGraph", [&](vx_graph) { return ref(vxCreateGraph(context)); } },
		{ "vxActivationLayer",
			[&](vx_graph graph) {
				return ref(vxActivationLayer(
					graph, in, VX_NN_ACTIVATION_RELU, 0, 0, out));
			} },
		{ "vxPoolingLayer",
			[&](vx_graph graph) {
				return ref(vxPoolingLayer(graph, in, VX_NN_POOLING_MAX, 1, 1, 0, 0,
					VX_NN_DS_SIZE_ROUNDING_FLOOR, out));
			} },
		{ "vxGetParameterByIndex",
			[&](vx_graph) { return ref(vxGetParameterByIndex(node, 0)); } },
		{ "vxGetKernelParameterByIndex",
			[&](vx_graph) { return ref(vxGetKernelParameterByIndex(relu, 0)); } },
		{ "vxAddUserKernel",
			[&](vx_graph) {
				return ref(vxAddUserKernel(context, "vdla.test.swept",
					VX_KERNEL_BASE(VX_ID_USER, 0) + 0x32, throwingRun, 0,
					acceptAll, nullptr, nullptr));
			} },
	};
	for (const Creation &creation : creations) {
		const bool failedBefore = HasFailure();
		long n = 0;
		for (; n < 10000; n++) {
			const vx_uint32 before = references();
			vx_graph graph = vxCreateGraph(context);
			failed = false;
			allocationsBeforeFailure = n;
			testing::internal::CaptureStderr();
			vx_reference made = counted([&] { return creation.make(graph); });
			testing::internal::GetCapturedStderr();
			allocationsBeforeFailure = -1;
			const bool usable = made && vxGetStatus(made) == VX_SUCCESS;
			EXPECT_EQ(usable, !failed) << creation.name << ", failing allocation " << n;
			vx_enum type = VX_TYPE_INVALID;
			if (usable) {
				vxQueryReference(made, VX_REFERENCE_TYPE, &type, sizeof(type));
				if (type == VX_TYPE_KERNEL)
					EXPECT_EQ(vxRemoveKernel(reinterpret_cast<vx_kernel>(made)),
						VX_SUCCESS);
				else
					EXPECT_EQ(vxReleaseReference(&made), VX_SUCCESS);
			}
			/* A node goes with its graph: only a node made is in it. */
			vx_uint32 nodes = 0;
			EXPECT_EQ(vxQueryGraph(graph, VX_GRAPH_NUMNODES, &nodes, sizeof(nodes)),
				VX_SUCCESS);
			EXPECT_EQ(nodes, type == VX_TYPE_NODE ? 1u : 0u)
				<< creation.name << ", failing allocation " << n;
			vxReleaseGraph(&graph);
			EXPECT_EQ(references(), before)
				<< creation.name << " left objects after failing allocation " << n;
			if (!failed || HasFailure() != failedBefore)
				break;
		}
		EXPECT_GT(n, 0) << creation.name << " made no allocation to fail";
	}
	vxReleaseImage(&image);
	vxReleaseKernel(&relu);
	vxReleaseNode(&node);
	vxReleaseGraph(&withNode);
	vxReleaseTensor(&in);
	vxReleaseTensor(&out);
}

/*
 * A C++ user kernel that throws fails the run with VX_FAILURE, run
 * directly or scheduled (where the exception would end the worker thread
 * and the process); the graph stays usable and runs once the kernel stops
 * throwing.
 */
TEST_F(ApiExceptions, AUserKernelThatThrowsFailsTheRun)
{
	vx_kernel kernel = vxAddUserKernel(context, "vdla.test.throwing",
		VX_KERNEL_BASE(VX_ID_USER, 0) + 0x31, throwingRun, 0, acceptAll, nullptr, nullptr);
	ASSERT_EQ(vxGetStatus(ref(kernel)), VX_SUCCESS);
	ASSERT_EQ(vxFinalizeKernel(kernel), VX_SUCCESS);
	vx_graph graph = vxCreateGraph(context);
	vx_node node = vxCreateGenericNode(graph, kernel);
	ASSERT_EQ(vxGetStatus(ref(node)), VX_SUCCESS);

	throwFromKernel = true;
	testing::internal::CaptureStderr();
	EXPECT_EQ(vxProcessGraph(graph), VX_FAILURE);
	EXPECT_EQ(vxScheduleGraph(graph), VX_SUCCESS);
	EXPECT_EQ(vxWaitGraph(graph), VX_FAILURE);
	const std::string reported = testing::internal::GetCapturedStderr();
	EXPECT_NE(reported.find("user kernel failed"), std::string::npos) << reported;
	vx_enum state = 0;
	EXPECT_EQ(vxQueryGraph(graph, VX_GRAPH_STATE, &state, sizeof(state)), VX_SUCCESS);
	EXPECT_EQ(state, VX_GRAPH_STATE_ABANDONED);

	throwFromKernel = false;
	EXPECT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	vxReleaseKernel(&kernel);
}

} /* namespace */
