/* SPDX-License-Identifier: MIT */
/*
 * Tensors on the application's memory (vxCreateTensorFromHandle,
 * vxSwapTensorHandle) and views of another tensor (vxCreateTensorFromView):
 * element (i0, i1, ...) is at ptr + sum(i_d * stride_d) for any strides that
 * keep elements apart, views share their root's elements both ways and keep
 * it alive, and graphs order the nodes that touch overlapping parts of one
 * tensor. The expected bytes are worked out here from those rules, not by
 * the implementation's layout code.
 */
#include "objects/tensor_layout.h"
#include "vx_test.h"

#include <VX/vx_khr_nn.h>

#include <cstdint>
#include <cstring>

namespace {

using TensorHandle = VxTest;
using TensorView = VxTest;

/* Reads or writes a whole 2-D INT16 tensor through vxCopyTensorPatch, packed. */
vx_status copy2d(vx_tensor tensor, vx_size w, vx_size h, int16_t *values, vx_enum usage)
{
	const vx_size start[] = { 0, 0 }, end[] = { w, h };
	const vx_size strides[] = { sizeof(int16_t), w * sizeof(int16_t) };
	return vxCopyTensorPatch(
		tensor, 2, start, end, strides, values, usage, VX_MEMORY_TYPE_HOST);
}

vx_tensor fromHandle(vx_context context, std::vector<vx_size> dims, vx_enum type,
	std::vector<vx_size> strides, void *ptr)
{
	return vxCreateTensorFromHandle(context, dims.size(), dims.data(), type, 0, strides.data(),
		ptr, VX_MEMORY_TYPE_HOST);
}

/* 3 x 2 INT16 elements, rows 16 bytes apart, columns 4: padding between all. */
struct PaddedMemory {
	int16_t words[16] = {};
	static constexpr vx_size kStrides[2] = { 4, 16 };
	int16_t &at(vx_size x, vx_size y) { return words[(x * 4 + y * 16) / 2]; }
};

TEST_F(TensorHandle, ElementsAreWhereTheApplicationsStridesSay)
{
	PaddedMemory memory;
	for (int i = 0; i < 16; i++)
		memory.words[i] = int16_t(1000 + i);
	vx_tensor tensor = fromHandle(context, { 3, 2 }, VX_TYPE_INT16, { 4, 16 }, memory.words);
	ASSERT_EQ(VX_SUCCESS, vxGetStatus(ref(tensor)));

	int16_t values[6];
	ASSERT_EQ(VX_SUCCESS, copy2d(tensor, 3, 2, values, VX_READ_ONLY));
	for (vx_size y = 0; y < 2; y++)
		for (vx_size x = 0; x < 3; x++)
			EXPECT_EQ(memory.at(x, y), values[y * 3 + x]) << x << "," << y;

	const int16_t written[6] = { -1, -2, -3, -4, -5, -6 };
	PaddedMemory before = memory;
	ASSERT_EQ(VX_SUCCESS, copy2d(tensor, 3, 2, const_cast<int16_t *>(written), VX_WRITE_ONLY));
	for (int i = 0; i < 16; i++) {
		const bool element = i % 2 == 0 && (i % 8) / 2 < 3;
		if (!element) {
			EXPECT_EQ(before.words[i], memory.words[i])
				<< "padding word " << i << " changed";
		}
	}
	for (vx_size y = 0; y < 2; y++)
		for (vx_size x = 0; x < 3; x++)
			EXPECT_EQ(written[y * 3 + x], memory.at(x, y));

	/* A mapping points into the application's memory, with its strides. */
	const vx_size start[] = { 1, 1 }, end[] = { 3, 2 };
	vx_size strides[2] = {};
	void *ptr = nullptr;
	vx_map_id id = 0;
	ASSERT_EQ(VX_SUCCESS,
		vxMapTensorPatch(tensor, 2, start, end, &id, strides, &ptr, VX_READ_AND_WRITE,
			VX_MEMORY_TYPE_HOST));
	EXPECT_EQ(&memory.at(1, 1), ptr);
	EXPECT_EQ(4u, strides[0]);
	EXPECT_EQ(16u, strides[1]);
	EXPECT_EQ(VX_SUCCESS, vxUnmapTensorPatch(tensor, id));
	vxReleaseTensor(&tensor);
}

TEST_F(TensorHandle, PermutedStridesWork)
{
	/* Dimension 1 innermost: element (x, y) at (x * 2 + y) * 4 bytes. */
	float memory[6] = { 0, 1, 10, 11, 20, 21 };
	vx_tensor tensor = fromHandle(context, { 3, 2 }, VX_TYPE_FLOAT32, { 8, 4 }, memory);
	ASSERT_EQ(VX_SUCCESS, vxGetStatus(ref(tensor)));
	float values[6];
	const vx_size start[] = { 0, 0 }, end[] = { 3, 2 }, packed[] = { 4, 12 };
	ASSERT_EQ(VX_SUCCESS,
		vxCopyTensorPatch(
			tensor, 2, start, end, packed, values, VX_READ_ONLY, VX_MEMORY_TYPE_HOST));
	const float expected[6] = { 0, 10, 20, 1, 11, 21 };
	for (int i = 0; i < 6; i++)
		EXPECT_EQ(expected[i], values[i]) << i;
	vxReleaseTensor(&tensor);
}

TEST_F(TensorHandle, BadArgumentsAreRefusedWithTheirStatus)
{
	alignas(8) int16_t memory[64] = {};
	struct Case {
		const char *what;
		std::vector<vx_size> dims;
		vx_enum type;
		std::vector<vx_size> strides;
		void *ptr;
		vx_enum memoryType;
		vx_status status;
	};
	const Case cases[] = {
		{ "memory type none", { 4 }, VX_TYPE_INT16, { 2 }, memory, VX_MEMORY_TYPE_NONE,
			VX_ERROR_INVALID_PARAMETERS },
		{ "overlapping rows", { 4, 2 }, VX_TYPE_INT16, { 2, 4 }, memory,
			VX_MEMORY_TYPE_HOST, VX_ERROR_INVALID_PARAMETERS },
		{ "elements overlapping", { 4 }, VX_TYPE_INT16, { 1 }, memory, VX_MEMORY_TYPE_HOST,
			VX_ERROR_INVALID_PARAMETERS },
		{ "stride not a multiple of the element", { 4, 2 }, VX_TYPE_INT16, { 2, 9 }, memory,
			VX_MEMORY_TYPE_HOST, VX_ERROR_INVALID_PARAMETERS },
		{ "misaligned memory", { 4 }, VX_TYPE_INT16, { 2 },
			reinterpret_cast<uint8_t *>(memory) + 1, VX_MEMORY_TYPE_HOST,
			VX_ERROR_INVALID_PARAMETERS },
		{ "zero dimension", { 4, 0 }, VX_TYPE_INT16, { 2, 8 }, memory, VX_MEMORY_TYPE_HOST,
			VX_ERROR_INVALID_DIMENSION },
		{ "seven dimensions", { 1, 1, 1, 1, 1, 1, 1 }, VX_TYPE_INT16,
			{ 2, 2, 2, 2, 2, 2, 2 }, memory, VX_MEMORY_TYPE_HOST,
			VX_ERROR_INVALID_DIMENSION },
		{ "not a tensor type", { 4 }, VX_TYPE_RECTANGLE, { 16 }, memory,
			VX_MEMORY_TYPE_HOST, VX_ERROR_NOT_SUPPORTED },
	};
	const vx_uint32 before = references();
	for (const Case &c : cases) {
		vx_tensor tensor = vxCreateTensorFromHandle(context, c.dims.size(), c.dims.data(),
			c.type, 0, c.strides.data(), c.ptr, c.memoryType);
		EXPECT_EQ(c.status, vxGetStatus(ref(tensor))) << c.what;
	}
	const vx_size dims[] = { 4 };
	EXPECT_EQ(VX_ERROR_INVALID_PARAMETERS,
		vxGetStatus(ref(vxCreateTensorFromHandle(
			context, 1, dims, VX_TYPE_INT16, 0, nullptr, memory, VX_MEMORY_TYPE_HOST))))
		<< "null strides";
	EXPECT_EQ(before, references()) << "a refused creation made an object";
}

TEST_F(TensorHandle, SwapGivesBackTheOldMemoryAndUsesTheNew)
{
	int16_t first[4] = { 1, 2, 3, 4 }, second[4] = { 5, 6, 7, 8 };
	vx_tensor tensor = fromHandle(context, { 2, 2 }, VX_TYPE_INT16, { 2, 4 }, first);
	const vx_size start[] = { 0, 1 }, end[] = { 2, 2 };
	vx_tensor row = vxCreateTensorFromView(tensor, 2, start, end);
	ASSERT_EQ(VX_SUCCESS, vxGetStatus(ref(row)));

	void *previous = nullptr;
	ASSERT_EQ(VX_SUCCESS, vxSwapTensorHandle(tensor, second, &previous));
	EXPECT_EQ(first, previous);
	int16_t values[4];
	ASSERT_EQ(VX_SUCCESS, copy2d(tensor, 2, 2, values, VX_READ_ONLY));
	EXPECT_EQ(5, values[0]);
	EXPECT_EQ(8, values[3]);
	ASSERT_EQ(VX_SUCCESS, copy2d(row, 2, 1, values, VX_READ_ONLY));
	EXPECT_EQ(7, values[0]) << "the view follows its root to the new memory";
	EXPECT_EQ(8, values[1]);

	/* Swapped out: no memory until the next swap. */
	ASSERT_EQ(VX_SUCCESS, vxSwapTensorHandle(tensor, nullptr, &previous));
	EXPECT_EQ(second, previous);
	EXPECT_EQ(VX_ERROR_NO_MEMORY, copy2d(tensor, 2, 2, values, VX_READ_ONLY));
	EXPECT_EQ(VX_ERROR_NO_MEMORY, copy2d(row, 2, 1, values, VX_READ_ONLY));
	ASSERT_EQ(VX_SUCCESS, vxSwapTensorHandle(tensor, first, &previous));
	EXPECT_EQ(nullptr, previous);
	ASSERT_EQ(VX_SUCCESS, copy2d(row, 2, 1, values, VX_READ_ONLY));
	EXPECT_EQ(3, values[0]);

	vxReleaseTensor(&row);
	vxReleaseTensor(&tensor);
}

TEST_F(TensorHandle, SwapIsRefusedForOtherTensorsAndWhileMapped)
{
	int16_t memory[4] = {}, other[4] = {};
	vx_tensor tensor = fromHandle(context, { 2, 2 }, VX_TYPE_INT16, { 2, 4 }, memory);
	const vx_size start[] = { 0, 0 }, end[] = { 1, 2 };
	vx_tensor view = vxCreateTensorFromView(tensor, 2, start, end);
	vx_tensor plain = makeTensor(VX_TYPE_INT16, { 2, 2 });

	EXPECT_EQ(VX_ERROR_INVALID_PARAMETERS, vxSwapTensorHandle(plain, other, nullptr));
	EXPECT_EQ(VX_ERROR_INVALID_PARAMETERS, vxSwapTensorHandle(view, other, nullptr))
		<< "a view of a from-handle tensor was not created from handle";
	EXPECT_EQ(VX_ERROR_INVALID_PARAMETERS,
		vxSwapTensorHandle(tensor, reinterpret_cast<uint8_t *>(other) + 1, nullptr))
		<< "misaligned memory";
	EXPECT_EQ(VX_ERROR_INVALID_REFERENCE,
		vxSwapTensorHandle(reinterpret_cast<vx_tensor>(context), other, nullptr));

	/* Mapped through a view: the mapping would point into memory the
	 * application gets back. */
	vx_size strides[2];
	void *ptr = nullptr;
	vx_map_id id = 0;
	ASSERT_EQ(VX_SUCCESS,
		vxMapTensorPatch(view, 2, start, end, &id, strides, &ptr, VX_READ_ONLY,
			VX_MEMORY_TYPE_HOST));
	EXPECT_EQ(VX_FAILURE, vxSwapTensorHandle(tensor, other, nullptr));
	ASSERT_EQ(VX_SUCCESS, vxUnmapTensorPatch(view, id));
	void *previous = nullptr;
	EXPECT_EQ(VX_SUCCESS, vxSwapTensorHandle(tensor, other, &previous));
	EXPECT_EQ(memory, previous) << "nothing changed while refused";

	vxReleaseTensor(&plain);
	vxReleaseTensor(&view);
	vxReleaseTensor(&tensor);
}

/* Created without memory: as if swapped out, until a swap gives it some. */
TEST_F(TensorHandle, NullMemoryMakesATensorWithoutMemoryUntilASwap)
{
	const vx_size dims[] = { 4 }, strides[] = { 2 };
	vx_tensor tensor = vxCreateTensorFromHandle(
		context, 1, dims, VX_TYPE_INT16, 0, strides, nullptr, VX_MEMORY_TYPE_HOST);
	ASSERT_EQ(VX_SUCCESS, vxGetStatus(ref(tensor)));
	int16_t values[4] = {};
	const vx_size start[] = { 0 };
	EXPECT_EQ(VX_ERROR_NO_MEMORY,
		vxCopyTensorPatch(
			tensor, 1, start, dims, strides, values, VX_READ_ONLY, VX_MEMORY_TYPE_HOST));
	int16_t memory[4] = { 7, 8, 9, 10 };
	void *previous = memory;
	ASSERT_EQ(VX_SUCCESS, vxSwapTensorHandle(tensor, memory, &previous));
	EXPECT_EQ(nullptr, previous);
	ASSERT_EQ(VX_SUCCESS,
		vxCopyTensorPatch(
			tensor, 1, start, dims, strides, values, VX_READ_ONLY, VX_MEMORY_TYPE_HOST));
	EXPECT_EQ(7, values[0]);
	EXPECT_EQ(10, values[3]);
	vxReleaseTensor(&tensor);
}

TEST_F(TensorHandle, GraphWithASwappedOutTensorFailsWithNoMemory)
{
	int16_t memory[4] = { 1, 2, 3, 4 };
	vx_tensor a = fromHandle(context, { 4 }, VX_TYPE_INT16, { 2 }, memory);
	vx_tensor b = makeTensor(VX_TYPE_INT16, { 4 });
	vx_tensor out = makeTensor(VX_TYPE_INT16, { 4 });
	vx_graph graph = vxCreateGraph(context);
	vx_node node = vxTensorAddNode(graph, a, b, VX_CONVERT_POLICY_SATURATE, out);
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));

	ASSERT_EQ(VX_SUCCESS, vxSwapTensorHandle(a, nullptr, nullptr));
	EXPECT_EQ(VX_ERROR_NO_MEMORY, vxProcessGraph(graph));
	int16_t other[4] = { 10, 20, 30, 40 };
	ASSERT_EQ(VX_SUCCESS, vxSwapTensorHandle(a, other, nullptr));
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));
	int16_t values[4];
	const vx_size start[] = { 0 }, end[] = { 4 }, stride[] = { 2 };
	ASSERT_EQ(VX_SUCCESS,
		vxCopyTensorPatch(
			out, 1, start, end, stride, values, VX_READ_ONLY, VX_MEMORY_TYPE_HOST));
	EXPECT_EQ(10, values[0]) << "b is zero: out is the new memory's values";
	EXPECT_EQ(40, values[3]);

	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	vxReleaseTensor(&a);
	vxReleaseTensor(&b);
	vxReleaseTensor(&out);
}

TEST_F(TensorView, SharesItsRootsElementsBothWays)
{
	vx_tensor root = makeTensor(VX_TYPE_INT16, { 4, 3 });
	int16_t values[12];
	for (int i = 0; i < 12; i++)
		values[i] = int16_t(i);
	ASSERT_EQ(VX_SUCCESS, copy2d(root, 4, 3, values, VX_WRITE_ONLY));

	const vx_size start[] = { 1, 1 }, end[] = { 3, 3 };
	vx_tensor view = vxCreateTensorFromView(root, 2, start, end);
	ASSERT_EQ(VX_SUCCESS, vxGetStatus(ref(view)));
	vx_size dims[2] = {};
	ASSERT_EQ(VX_SUCCESS, vxQueryTensor(view, VX_TENSOR_DIMS, dims, sizeof(dims)));
	EXPECT_EQ(2u, dims[0]);
	EXPECT_EQ(2u, dims[1]);
	vx_enum type = 0;
	ASSERT_EQ(VX_SUCCESS, vxQueryTensor(view, VX_TENSOR_DATA_TYPE, &type, sizeof(type)));
	EXPECT_EQ(VX_TYPE_INT16, type);

	int16_t seen[4];
	ASSERT_EQ(VX_SUCCESS, copy2d(view, 2, 2, seen, VX_READ_ONLY));
	EXPECT_EQ(5, seen[0]); /* (1, 1) of the root: 1 + 1 * 4 */
	EXPECT_EQ(6, seen[1]);
	EXPECT_EQ(9, seen[2]);
	EXPECT_EQ(10, seen[3]);

	/* A view of the view starts at the sum of the offsets. */
	const vx_size innerStart[] = { 1, 0 }, innerEnd[] = { 2, 2 };
	vx_tensor inner = vxCreateTensorFromView(view, 2, innerStart, innerEnd);
	ASSERT_EQ(VX_SUCCESS, vxGetStatus(ref(inner)));
	int16_t written[2] = { -6, -10 };
	ASSERT_EQ(VX_SUCCESS, copy2d(inner, 1, 2, written, VX_WRITE_ONLY));
	ASSERT_EQ(VX_SUCCESS, copy2d(root, 4, 3, values, VX_READ_ONLY));
	for (int i = 0; i < 12; i++) {
		const int16_t expected = i == 6 ? -6 : i == 10 ? -10 : int16_t(i);
		EXPECT_EQ(expected, values[i]) << "root element " << i;
	}

	vxReleaseTensor(&inner);
	vxReleaseTensor(&view);
	vxReleaseTensor(&root);
}

TEST_F(TensorView, KeepsItsRootAlive)
{
	const vx_uint32 before = references();
	vx_tensor root = makeTensor(VX_TYPE_FLOAT32, { 4 });
	const float values[4] = { 1, 2, 3, 4 };
	const vx_size start[] = { 0 }, end[] = { 4 }, stride[] = { 4 };
	ASSERT_EQ(VX_SUCCESS,
		vxCopyTensorPatch(root, 1, start, end, stride, const_cast<float *>(values),
			VX_WRITE_ONLY, VX_MEMORY_TYPE_HOST));
	const vx_size viewStart[] = { 2 };
	vx_tensor view = vxCreateTensorFromView(root, 1, viewStart, end);
	vxReleaseTensor(&root);
	EXPECT_EQ(before + 2, references()) << "the root lives on, internally";
	float seen[2] = {};
	const vx_size viewEnd[] = { 2 };
	ASSERT_EQ(VX_SUCCESS,
		vxCopyTensorPatch(
			view, 1, start, viewEnd, stride, seen, VX_READ_ONLY, VX_MEMORY_TYPE_HOST));
	EXPECT_EQ(3.0f, seen[0]);
	EXPECT_EQ(4.0f, seen[1]);
	vxReleaseTensor(&view);
	EXPECT_EQ(before, references());
}

TEST_F(TensorView, BadViewsAreRefused)
{
	vx_tensor root = makeTensor(VX_TYPE_INT8, { 4, 3 });
	const vx_size start[] = { 1, 1 }, end[] = { 3, 3 }, empty[] = { 1, 3 }, beyond[] = { 5, 3 };
	const vx_uint32 before = references();
	EXPECT_EQ(VX_ERROR_INVALID_PARAMETERS,
		vxGetStatus(ref(vxCreateTensorFromView(root, 1, start, end))))
		<< "another number of dimensions";
	EXPECT_EQ(VX_ERROR_INVALID_PARAMETERS,
		vxGetStatus(ref(vxCreateTensorFromView(root, 2, start, empty))))
		<< "an empty box";
	EXPECT_EQ(VX_ERROR_INVALID_PARAMETERS,
		vxGetStatus(ref(vxCreateTensorFromView(root, 2, start, beyond))))
		<< "beyond the tensor";
	EXPECT_EQ(VX_ERROR_INVALID_PARAMETERS,
		vxGetStatus(ref(vxCreateTensorFromView(root, 2, nullptr, end))));
	EXPECT_EQ(nullptr, vxCreateTensorFromView(nullptr, 2, start, end));

	vx_graph graph = vxCreateGraph(context);
	const vx_size dims[] = { 4, 3 };
	vx_tensor virt = vxCreateVirtualTensor(graph, 2, dims, VX_TYPE_INT8, 0);
	EXPECT_EQ(VX_ERROR_NOT_SUPPORTED,
		vxGetStatus(ref(vxCreateTensorFromView(virt, 2, start, end))));
	vxReleaseTensor(&virt);
	vxReleaseGraph(&graph);
	EXPECT_EQ(before, references()) << "a refused view made an object";
	vxReleaseTensor(&root);
}

/* out[i] = a[i] + b[i] through a tensor_add node. */
vx_node add(vx_graph graph, vx_tensor a, vx_tensor b, vx_tensor out)
{
	return vxTensorAddNode(graph, a, b, VX_CONVERT_POLICY_SATURATE, out);
}

TEST_F(TensorView, DisjointViewsHaveOneWriterEachAndOverlappingOnesDoNot)
{
	vx_tensor whole = makeTensor(VX_TYPE_INT16, { 4 });
	vx_tensor in = makeTensor(VX_TYPE_INT16, { 2 });
	const vx_size lowStart[] = { 0 }, lowEnd[] = { 2 }, highStart[] = { 2 }, highEnd[] = { 4 },
		      midStart[] = { 1 }, midEnd[] = { 3 };
	vx_tensor low = vxCreateTensorFromView(whole, 1, lowStart, lowEnd);
	vx_tensor high = vxCreateTensorFromView(whole, 1, highStart, highEnd);
	vx_tensor mid = vxCreateTensorFromView(whole, 1, midStart, midEnd);

	vx_graph disjoint = vxCreateGraph(context);
	vx_node n1 = add(disjoint, in, in, low), n2 = add(disjoint, in, in, high);
	EXPECT_EQ(VX_SUCCESS, vxVerifyGraph(disjoint));

	vx_graph overlapping = vxCreateGraph(context);
	vx_node n3 = add(overlapping, in, in, low), n4 = add(overlapping, in, in, mid);
	EXPECT_EQ(VX_ERROR_MULTIPLE_WRITERS, vxVerifyGraph(overlapping));

	vx_graph rootAndView = vxCreateGraph(context);
	vx_tensor four = makeTensor(VX_TYPE_INT16, { 4 });
	vx_node n5 = add(rootAndView, four, four, whole), n6 = add(rootAndView, in, in, high);
	EXPECT_EQ(VX_ERROR_MULTIPLE_WRITERS, vxVerifyGraph(rootAndView));

	for (vx_node *node : { &n1, &n2, &n3, &n4, &n5, &n6 })
		vxReleaseNode(node);
	for (vx_graph *graph : { &disjoint, &overlapping, &rootAndView })
		vxReleaseGraph(graph);
	for (vx_tensor *tensor : { &whole, &in, &low, &high, &mid, &four })
		vxReleaseTensor(tensor);
}

/*
 * A graph whose reader of @whole (4 INT16) is created before the writers
 * of its halves @low and @high: it must run after them.
 */
void expectReaderAfterWriters(vx_context context, vx_tensor whole, vx_tensor low, vx_tensor high)
{
	const vx_size dims[] = { 4 }, half[] = { 2 };
	vx_tensor doubled = vxCreateTensor(context, 1, dims, VX_TYPE_INT16, 0);
	vx_tensor in = vxCreateTensor(context, 1, half, VX_TYPE_INT16, 0);
	int16_t values[4] = { 3, 4, 0, 0 };
	const vx_size start[] = { 0 }, two[] = { 2 }, four[] = { 4 }, stride[] = { 2 };
	ASSERT_EQ(VX_SUCCESS,
		vxCopyTensorPatch(
			in, 1, start, two, stride, values, VX_WRITE_ONLY, VX_MEMORY_TYPE_HOST));

	vx_graph graph = vxCreateGraph(context);
	vx_node reader = add(graph, whole, whole, doubled);
	vx_node lowWriter = add(graph, in, in, low);
	vx_node highWriter = add(graph, in, low, high);
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));
	ASSERT_EQ(VX_SUCCESS,
		vxCopyTensorPatch(doubled, 1, start, four, stride, values, VX_READ_ONLY,
			VX_MEMORY_TYPE_HOST));
	/* low = in + in = {6, 8}; high = in + low = {9, 12}; doubled = 2 whole. */
	EXPECT_EQ(12, values[0]);
	EXPECT_EQ(16, values[1]);
	EXPECT_EQ(18, values[2]);
	EXPECT_EQ(24, values[3]);

	for (vx_node *node : { &reader, &lowWriter, &highWriter })
		vxReleaseNode(node);
	vxReleaseGraph(&graph);
	vxReleaseTensor(&doubled);
	vxReleaseTensor(&in);
}

TEST_F(TensorView, ReadersOfTheRootRunAfterTheWritersOfItsViews)
{
	vx_tensor whole = makeTensor(VX_TYPE_INT16, { 4 });
	const vx_size start[] = { 0 }, two[] = { 2 }, four[] = { 4 };
	vx_tensor low = vxCreateTensorFromView(whole, 1, start, two);
	vx_tensor high = vxCreateTensorFromView(whole, 1, two, four);
	expectReaderAfterWriters(context, whole, low, high);
	for (vx_tensor *tensor : { &whole, &low, &high })
		vxReleaseTensor(tensor);
}

TEST_F(TensorView, TensorAddReadsAndWritesTwoDimensionalViews)
{
	vx_tensor root = makeTensor(VX_TYPE_INT16, { 4, 3 });
	int16_t values[12];
	for (int i = 0; i < 12; i++)
		values[i] = int16_t(i * 10);
	ASSERT_EQ(VX_SUCCESS, copy2d(root, 4, 3, values, VX_WRITE_ONLY));
	const vx_size inStart[] = { 1, 0 }, inEnd[] = { 3, 2 };
	vx_tensor in = vxCreateTensorFromView(root, 2, inStart, inEnd);
	vx_tensor allOut = makeTensor(VX_TYPE_INT16, { 3, 3 });
	const vx_size outStart[] = { 1, 1 }, outEnd[] = { 3, 3 };
	vx_tensor out = vxCreateTensorFromView(allOut, 2, outStart, outEnd);

	vx_graph graph = vxCreateGraph(context);
	vx_node node = add(graph, in, in, out);
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));
	int16_t result[9];
	ASSERT_EQ(VX_SUCCESS, copy2d(allOut, 3, 3, result, VX_READ_ONLY));
	for (int y = 0; y < 3; y++) {
		for (int x = 0; x < 3; x++) {
			/* out (x - 1, y - 1) = 2 * root (x, y - 1). */
			const int16_t expected
				= x >= 1 && y >= 1 ? int16_t(2 * values[x + (y - 1) * 4]) : 0;
			EXPECT_EQ(expected, result[x + y * 3]) << x << "," << y;
		}
	}

	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	for (vx_tensor *tensor : { &root, &in, &allOut, &out })
		vxReleaseTensor(tensor);
}

TEST_F(TensorView, LayersComputeOnStridedTensors)
{
	/*
	 * A float fully connected layer: inputs from handle with a padding
	 * float after each element, weights a view into a larger tensor,
	 * outputs a view of a larger tensor. The expected outputs are the
	 * sums worked out here.
	 */
	float inputMemory[8] = { 1, -99, 2, -99, 3, -99, 4, -99 };
	vx_tensor input = fromHandle(context, { 4 }, VX_TYPE_FLOAT32, { 8 }, inputMemory);
	vx_tensor allWeights = makeTensor(VX_TYPE_FLOAT32, { 6, 5 });
	float weightValues[30];
	for (int i = 0; i < 30; i++)
		weightValues[i] = float(i % 7) - 3.0f;
	const vx_size zero[] = { 0, 0 }, allEnd[] = { 6, 5 }, allStrides[] = { 4, 24 };
	ASSERT_EQ(VX_SUCCESS,
		vxCopyTensorPatch(allWeights, 2, zero, allEnd, allStrides, weightValues,
			VX_WRITE_ONLY, VX_MEMORY_TYPE_HOST));
	const vx_size wStart[] = { 1, 2 }, wEnd[] = { 5, 5 };
	vx_tensor weights = vxCreateTensorFromView(allWeights, 2, wStart, wEnd);
	vx_tensor bias = makeTensor(VX_TYPE_FLOAT32, { 3 });
	const float biasValues[3] = { 0.5f, -1.0f, 2.0f };
	const vx_size bStart[] = { 0 }, bEnd[] = { 3 }, bStride[] = { 4 };
	ASSERT_EQ(VX_SUCCESS,
		vxCopyTensorPatch(bias, 1, bStart, bEnd, bStride, const_cast<float *>(biasValues),
			VX_WRITE_ONLY, VX_MEMORY_TYPE_HOST));
	vx_tensor allOutputs = makeTensor(VX_TYPE_FLOAT32, { 5 });
	const vx_size oStart[] = { 2 }, oEnd[] = { 5 };
	vx_tensor outputs = vxCreateTensorFromView(allOutputs, 1, oStart, oEnd);

	vx_graph graph = vxCreateGraph(context);
	vx_node node = vxFullyConnectedLayer(graph, input, weights, bias,
		VX_CONVERT_POLICY_SATURATE, VX_ROUND_POLICY_TO_NEAREST_EVEN, outputs);
	ASSERT_EQ(VX_SUCCESS, vxGetStatus(ref(node)));
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));

	float result[5];
	const vx_size rEnd[] = { 5 };
	ASSERT_EQ(VX_SUCCESS,
		vxCopyTensorPatch(allOutputs, 1, bStart, rEnd, bStride, result, VX_READ_ONLY,
			VX_MEMORY_TYPE_HOST));
	EXPECT_EQ(0.0f, result[0]) << "outside the view";
	EXPECT_EQ(0.0f, result[1]) << "outside the view";
	for (int o = 0; o < 3; o++) {
		double sum = biasValues[o];
		for (int i = 0; i < 4; i++)
			sum += double(i + 1) * weightValues[(1 + i) + (2 + o) * 6];
		EXPECT_FLOAT_EQ(float(sum), result[2 + o]) << "output " << o;
	}

	vxReleaseNode(&node);
	vxReleaseGraph(&graph);
	for (vx_tensor *tensor : { &input, &allWeights, &weights, &bias, &allOutputs, &outputs })
		vxReleaseTensor(tensor);
}

} /* namespace */

/*
 * Which views the DLA addresses in place (tensor_layout.h): those whose
 * elements are one packed block of a root that owns packed memory, at the
 * byte offset of their first element (here INT16, root [4, 3, 5, 2]).
 */
TEST_F(TensorView, PackedBlocksOfTheRootAreAddressedInPlace)
{
	const vx_size dims[] = { 4, 3, 5, 2 };
	vx_tensor root = vxCreateTensor(context, 4, dims, VX_TYPE_INT16, 0);
	auto view = [&](vx_tensor parent, std::vector<vx_size> start, std::vector<vx_size> end) {
		return vxCreateTensorFromView(parent, 4, start.data(), end.data());
	};
	struct Case {
		std::vector<vx_size> start, end;
		bool block;
		vx_size offset;
	};
	const Case cases[] = {
		/* Channels 1-3 of batch 0: (1 * 12) elements in. */
		{ { 0, 0, 1, 0 }, { 4, 3, 4, 1 }, true, 12 * 2 },
		/* Batch 1 whole. */
		{ { 0, 0, 0, 1 }, { 4, 3, 5, 2 }, true, 60 * 2 },
		/* One row of one channel: rows are whole, then 1s. */
		{ { 0, 2, 3, 1 }, { 4, 3, 4, 2 }, true, (60 + 36 + 8) * 2 },
		/* Channels 1-3 of both batches: two blocks. */
		{ { 0, 0, 1, 0 }, { 4, 3, 4, 2 }, false, 0 },
		/* Columns 1-2: strided. */
		{ { 1, 0, 0, 0 }, { 3, 3, 5, 2 }, false, 0 },
	};
	for (const Case &c : cases) {
		vx_tensor v = view(root, c.start, c.end);
		ASSERT_EQ(vxGetStatus(ref(v)), VX_SUCCESS);
		EXPECT_EQ(vdla::vx::packedBlockOfRoot(v), c.block) << c.start[0] << c.start[2];
		if (c.block) {
			EXPECT_EQ(vdla::vx::offsetInRoot(v), c.offset);
		}
		vxReleaseTensor(&v);
	}

	/* A view of a view: the offset is in the root. */
	vx_tensor batch = view(root, { 0, 0, 0, 1 }, { 4, 3, 5, 2 });
	vx_tensor channel = view(batch, { 0, 0, 2, 0 }, { 4, 3, 3, 1 });
	EXPECT_TRUE(vdla::vx::packedBlockOfRoot(channel));
	EXPECT_EQ(vdla::vx::offsetInRoot(channel), (60 + 24) * 2u);
	EXPECT_FALSE(vdla::vx::packedBlockOfRoot(root)) << "a root is no view";
	vxReleaseTensor(&channel);
	vxReleaseTensor(&batch);
	vxReleaseTensor(&root);

	/* Views of the application's memory are staged whatever their shape. */
	std::vector<int16_t> memory(4 * 3 * 5 * 2);
	vx_tensor handle = fromHandle(
		context, { 4, 3, 5, 2 }, VX_TYPE_INT16, { 2, 8, 24, 120 }, memory.data());
	vx_tensor part = view(handle, { 0, 0, 0, 1 }, { 4, 3, 5, 2 });
	EXPECT_FALSE(vdla::vx::packedBlockOfRoot(part));
	EXPECT_FALSE(vdla::vx::addressedInPlace(part));
	vxReleaseTensor(&part);
	vxReleaseTensor(&handle);
}

/*
 * Views that are no packed block are addressed in place too, with their
 * root's strides, when their dimensions from the fourth on walk with one
 * stride (they become the DLA's batch). foldDims() gives the stride that
 * walks a run of dimensions; the expected values follow the packed layout
 * rule: dimension d's stride is the element size times the product of the
 * root's dimensions before d.
 */
TEST_F(TensorView, StridedViewsOfPackedRootsFoldTheirDimensions)
{
	using vdla::vx::addressedInPlace;
	using vdla::vx::foldDims;
	auto view = [&](vx_tensor parent, std::vector<vx_size> start, std::vector<vx_size> end) {
		return vxCreateTensorFromView(parent, start.size(), start.data(), end.data());
	};
	struct Fold {
		size_t first, end;
		bool walks;
		vx_size count, stride;
	};
	auto expectFolds = [](vx_tensor t, const std::vector<Fold> &folds) {
		for (const Fold &f : folds) {
			vx_size count = 0, stride = 0;
			ASSERT_EQ(foldDims(t, f.first, f.end, count, stride), f.walks)
				<< "dims " << f.first << ".." << f.end;
			if (f.walks) {
				EXPECT_EQ(count, f.count) << "dims " << f.first << ".." << f.end;
				EXPECT_EQ(stride, f.stride) << "dims " << f.first << ".." << f.end;
			}
		}
	};

	/* INT16 [4, 3, 5, 2]: strides 2, 8, 24, 120. Columns 1-2. */
	const vx_size dims4[] = { 4, 3, 5, 2 };
	vx_tensor root = vxCreateTensor(context, 4, dims4, VX_TYPE_INT16, 0);
	vx_tensor columns = view(root, { 1, 0, 0, 0 }, { 3, 3, 5, 2 });
	EXPECT_TRUE(addressedInPlace(columns));
	EXPECT_FALSE(addressedInPlace(root)) << "a root is no view";
	expectFolds(columns,
		{
			{ 0, 1, true, 2, 2 },
			/* Partial W, then H of 3: no one stride. */
			{ 0, 2, false, 0, 0 },
			{ 1, 3, true, 15, 8 },
			{ 3, 6, true, 2, 120 },
			/* Clipped to the rank: nothing left. */
			{ 4, 6, true, 1, 0 },
		});
	/* Row 1 of channels 2-3 of batch 1: H and N are 1, skipped. */
	vx_tensor row = view(root, { 0, 1, 2, 1 }, { 4, 2, 4, 2 });
	EXPECT_TRUE(addressedInPlace(row));
	expectFolds(row, { { 0, 2, true, 4, 2 }, { 1, 4, true, 2, 24 }, { 0, 3, false, 0, 0 } });
	vxReleaseTensor(&row);
	vxReleaseTensor(&columns);
	vxReleaseTensor(&root);

	/* INT8 [2, 2, 2, 3, 4]: strides 1, 2, 4, 8, 24. Dimensions 3 and 4 are
	 * the batch: partial then whole do not fold, whole then partial do. */
	const vx_size dims5[] = { 2, 2, 2, 3, 4 };
	vx_tensor root5 = vxCreateTensor(context, 5, dims5, VX_TYPE_INT8, 0);
	vx_tensor partialFirst = view(root5, { 0, 0, 0, 0, 0 }, { 2, 2, 2, 2, 4 });
	EXPECT_FALSE(addressedInPlace(partialFirst));
	expectFolds(partialFirst, { { 3, 5, false, 0, 0 } });
	vx_tensor partialLast = view(root5, { 1, 0, 0, 0, 1 }, { 2, 2, 2, 3, 3 });
	EXPECT_TRUE(addressedInPlace(partialLast));
	expectFolds(partialLast, { { 3, 5, true, 6, 8 }, { 0, 3, true, 4, 2 } });
	vxReleaseTensor(&partialLast);
	vxReleaseTensor(&partialFirst);
	vxReleaseTensor(&root5);
}

/*
 * Tensors created from handles on overlapping application memory are
 * ordered and checked like views of one root: the reader of the whole
 * buffer runs after the writers of its halves, and two writers of
 * overlapping ranges are refused.
 */
TEST_F(TensorHandle, OverlappingHandlesAreOrderedLikeViews)
{
	int16_t buffer[4] = {};
	const vx_size packed[] = { sizeof(int16_t) };
	auto onBuffer = [&](vx_size first, vx_size count) {
		return vxCreateTensorFromHandle(context, 1, &count, VX_TYPE_INT16, 0, packed,
			buffer + first, VX_MEMORY_TYPE_HOST);
	};
	vx_tensor whole = onBuffer(0, 4), low = onBuffer(0, 2), high = onBuffer(2, 2),
		  middle = onBuffer(1, 2);
	expectReaderAfterWriters(context, whole, low, high);

	/* Elements 1 and 2 written through two tensors. */
	vx_tensor in = makeTensor(VX_TYPE_INT16, { 2 });
	vx_graph overlapping = vxCreateGraph(context);
	vx_node n1 = add(overlapping, in, in, low), n2 = add(overlapping, in, in, middle);
	EXPECT_EQ(VX_ERROR_MULTIPLE_WRITERS, vxVerifyGraph(overlapping));

	for (vx_node *node : { &n1, &n2 })
		vxReleaseNode(node);
	vxReleaseGraph(&overlapping);
	for (vx_tensor *tensor : { &whole, &low, &high, &middle, &in })
		vxReleaseTensor(tensor);
}

/*
 * The order is judged on the handles at verification; a handle swap that
 * changes which tensors overlap makes the next run verify the graph again:
 * a reader of a buffer it did not share at verification runs after the
 * writers of that buffer, and a swap that gives two writers one buffer
 * fails the run until it is undone.
 */
TEST_F(TensorHandle, SwapsThatChangeOverlapsOrderTheGraphAgain)
{
	int16_t halves[4] = {}, other[4] = { 1, 1, 1, 1 };
	const vx_size four[] = { 4 }, two[] = { 2 }, packed[] = { sizeof(int16_t) };
	auto onMemory = [&](int16_t *memory, const vx_size *count) {
		return vxCreateTensorFromHandle(
			context, 1, count, VX_TYPE_INT16, 0, packed, memory, VX_MEMORY_TYPE_HOST);
	};
	vx_tensor whole = onMemory(other, four), low = onMemory(halves, two),
		  high = onMemory(halves + 2, two);
	vx_tensor in = makeTensor(VX_TYPE_INT16, { 2 }), doubled = makeTensor(VX_TYPE_INT16, { 4 });
	const vx_size start[] = { 0 }, stride[] = { 2 };
	auto setIn = [&](int16_t a, int16_t b) {
		int16_t values[2] = { a, b };
		ASSERT_EQ(VX_SUCCESS,
			vxCopyTensorPatch(in, 1, start, two, stride, values, VX_WRITE_ONLY,
				VX_MEMORY_TYPE_HOST));
	};
	auto readDoubled = [&]() {
		std::vector<int16_t> values(4);
		EXPECT_EQ(VX_SUCCESS,
			vxCopyTensorPatch(doubled, 1, start, four, stride, values.data(),
				VX_READ_ONLY, VX_MEMORY_TYPE_HOST));
		return values;
	};

	/* The reader added first: unrelated to the writers, it runs first. */
	vx_graph graph = vxCreateGraph(context);
	vx_node reader = add(graph, whole, whole, doubled);
	vx_node lowWriter = add(graph, in, in, low);
	vx_node highWriter = add(graph, in, low, high);
	setIn(3, 4);
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));
	EXPECT_EQ(readDoubled(), (std::vector<int16_t>{ 2, 2, 2, 2 }));

	/* On the writers' buffer now: low = {10, 14}, high = in + low =
	 * {15, 21}, read after both (before, it would read run one's
	 * {6, 8, 9, 12}). */
	ASSERT_EQ(VX_SUCCESS, vxSwapTensorHandle(whole, halves, nullptr));
	setIn(5, 7);
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));
	EXPECT_EQ(readDoubled(), (std::vector<int16_t>{ 20, 28, 30, 42 }));

	/* High onto low's elements: two writers of one buffer. */
	ASSERT_EQ(VX_SUCCESS, vxSwapTensorHandle(high, halves, nullptr));
	const std::vector<int16_t> before(halves, halves + 4);
	EXPECT_EQ(VX_ERROR_MULTIPLE_WRITERS, vxProcessGraph(graph));
	EXPECT_EQ(std::vector<int16_t>(halves, halves + 4), before) << "nothing ran";
	EXPECT_EQ(VX_ERROR_MULTIPLE_WRITERS, vxProcessGraph(graph)) << "until undone";
	ASSERT_EQ(VX_SUCCESS, vxSwapTensorHandle(high, halves + 2, nullptr));
	setIn(1, 2);
	ASSERT_EQ(VX_SUCCESS, vxProcessGraph(graph));
	EXPECT_EQ(readDoubled(), (std::vector<int16_t>{ 4, 8, 6, 12 }));

	for (vx_node *node : { &reader, &lowWriter, &highWriter })
		vxReleaseNode(node);
	vxReleaseGraph(&graph);
	for (vx_tensor *tensor : { &whole, &low, &high, &in, &doubled })
		vxReleaseTensor(tensor);
}
