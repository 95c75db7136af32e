/* SPDX-License-Identifier: MIT */
/*
 * The tensor kernels of <VX/vx_nodes.h> against hand-computed answers
 * (docs/openvx.md, "Tensor kernels"): element-wise add, subtract and
 * multiply with dimensions of 1 repeated in either input, table lookup
 * (and the vx_lut object it reads), transpose, convert depth and matrix
 * multiply, in graphs and through <VX/vxu.h>.
 */
#include "nn_test.h"

#include <VX/vxu.h>

#include <cfenv>

namespace {

using TensorOps = NnTest;

/* [3, 1] + [1, 2]: each input repeats along the other's dimension. */
TEST_F(TensorOps, AddRepeatsDimensionsOfOneInEitherInput)
{
	vx_tensor a = tensor(VX_TYPE_INT16, { 3, 1 }, 0, { 1, 2, 3 });
	vx_tensor b = tensor(VX_TYPE_INT16, { 1, 2 }, 0, { 10, 20 });
	vx_tensor out = tensor(VX_TYPE_INT16, { 3, 2 });
	keep(vxTensorAddNode(graph, a, b, kSaturate, out));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 11, 12, 13, 21, 22, 23 }));
}

TEST_F(TensorOps, AddRefusesExtentsThatDifferAndAreNotOne)
{
	keep(vxTensorAddNode(graph, tensor(VX_TYPE_INT16, { 3 }), tensor(VX_TYPE_INT16, { 2 }),
		kSaturate, tensor(VX_TYPE_INT16, { 3 })));
	EXPECT_EQ(vxVerifyGraph(graph), VX_ERROR_INVALID_DIMENSION);
}

/* 5 - 10 in UINT8: 0 saturated, 251 wrapped. */
TEST_F(TensorOps, SubtractSaturatesOrWraps)
{
	for (auto [policy, expected] : { std::pair{ kSaturate, 0.0 }, std::pair{ kWrap, 251.0 } }) {
		vx_tensor a = tensor(VX_TYPE_UINT8, { 1 }, 0, { 5 });
		vx_tensor b = tensor(VX_TYPE_UINT8, { 1 }, 0, { 10 });
		vx_tensor out = tensor(VX_TYPE_UINT8, { 1 });
		ASSERT_EQ(vxuTensorSubtract(context, a, b, policy, out), VX_SUCCESS);
		EXPECT_EQ(read(out), Values({ expected }));
	}
}

/*
 * UINT8 3, 5, 7 by 1 at scale 0.5: 1.5, 2.5, 3.5 become 2, 2, 4 to nearest
 * (ties to even) and 1, 2, 3 towards zero, whatever the rounding mode of
 * the caller's floating-point environment.
 */
TEST_F(TensorOps, MultiplyRoundsAsAskedWhateverTheCallersRoundingMode)
{
	const vx_float32 half = 0.5f;
	vx_scalar scale = scalar(VX_TYPE_FLOAT32, &half);
	const int previous = std::fegetround();
	for (int mode : { FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO }) {
		for (auto [rounding, expected] : { std::pair{ kEven, Values{ 2, 2, 4 } },
			     std::pair{ kZero, Values{ 1, 2, 3 } } }) {
			vx_tensor a = tensor(VX_TYPE_UINT8, { 3 }, 0, { 3, 5, 7 });
			vx_tensor b = tensor(VX_TYPE_UINT8, { 1 }, 0, { 1 });
			vx_tensor out = tensor(VX_TYPE_UINT8, { 3 });
			std::fesetround(mode);
			const vx_status status
				= vxuTensorMultiply(context, a, b, scale, kSaturate, rounding, out);
			std::fesetround(previous);
			ASSERT_EQ(status, VX_SUCCESS);
			EXPECT_EQ(read(out), expected) << "mode " << mode << " rounding " << rounding;
		}
	}
}

/* Q7.8: 1.5 * 2.5 = 3.75 (raw 960); INT8 100 * 100 = 10000: 127 or 16. */
TEST_F(TensorOps, MultiplyFixedPointAndOverflow)
{
	const vx_float32 one = 1.0f;
	vx_scalar scale = scalar(VX_TYPE_FLOAT32, &one);
	vx_tensor a = tensor(VX_TYPE_INT16, { 1 }, 8, { 384 });
	vx_tensor b = tensor(VX_TYPE_INT16, { 1 }, 8, { 640 });
	vx_tensor q = tensor(VX_TYPE_INT16, { 1 }, 8);
	keep(vxTensorMultiplyNode(graph, a, b, scale, kSaturate, kZero, q));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(q), Values({ 960 }));
	for (auto [policy, expected] : { std::pair{ kSaturate, 127.0 }, std::pair{ kWrap, 16.0 } }) {
		vx_tensor x = tensor(VX_TYPE_INT8, { 1 }, 0, { 100 });
		vx_tensor out = tensor(VX_TYPE_INT8, { 1 });
		ASSERT_EQ(vxuTensorMultiply(context, x, x, scale, policy, kZero, out), VX_SUCCESS);
		EXPECT_EQ(read(out), Values({ expected }));
	}
}

/* [3, 2] holding rows (1, 2, 3) and (4, 5, 6), transposed: rows (1, 4), (2, 5), (3, 6). */
TEST_F(TensorOps, TransposeSwapsTwoDimensions)
{
	vx_tensor in = tensor(VX_TYPE_INT8, { 3, 2 }, 0, { 1, 2, 3, 4, 5, 6 });
	vx_tensor out = tensor(VX_TYPE_INT8, { 2, 3 });
	keep(vxTensorTransposeNode(graph, in, out, 0, 1));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 1, 4, 2, 5, 3, 6 }));

	vx_tensor copy = tensor(VX_TYPE_INT8, { 3, 2 });
	ASSERT_EQ(vxuTensorTranspose(context, in, copy, 1, 1), VX_SUCCESS);
	EXPECT_EQ(read(copy), Values({ 1, 2, 3, 4, 5, 6 })) << "the same dimension twice copies";
	EXPECT_EQ(vxuTensorTranspose(context, in, out, 0, 2), VX_ERROR_INVALID_PARAMETERS);
}

struct ConvertCase {
	const char *name;
	vx_enum inType;
	vx_int8 inPosition;
	Values in;
	vx_enum outType;
	vx_int8 outPosition;
	vx_enum policy;
	vx_float32 norm, offset;
	Values expected;
};

/* out = (in - offset) / norm in real values, truncated, saturated or wrapped. */
TEST_F(TensorOps, ConvertDepth)
{
	for (const ConvertCase &c : {
		     ConvertCase{ "INT8 to UINT8 moved up by 128", VX_TYPE_INT8, 0, { -128, 0, 127 },
			     VX_TYPE_UINT8, 0, kSaturate, 1, -128, { 0, 128, 255 } },
		     ConvertCase{ "Q7.8 to INT8 truncates", VX_TYPE_INT16, 8, { 384, -384, 32767 },
			     VX_TYPE_INT8, 0, kSaturate, 1, 0, { 1, -1, 127 } },
		     ConvertCase{ "UINT8 halved into Q7.8", VX_TYPE_UINT8, 0, { 3 }, VX_TYPE_INT16, 8,
			     kSaturate, 2, 0, { 384 } },
		     ConvertCase{ "UINT8 200 into INT8 saturated", VX_TYPE_UINT8, 0, { 200 },
			     VX_TYPE_INT8, 0, kSaturate, 1, 0, { 127 } },
		     ConvertCase{ "UINT8 200 into INT8 wrapped", VX_TYPE_UINT8, 0, { 200 },
			     VX_TYPE_INT8, 0, kWrap, 1, 0, { -56 } },
		     ConvertCase{ "Q7.8 into float", VX_TYPE_INT16, 8, { 384 }, VX_TYPE_FLOAT32, 0,
			     kSaturate, 1, 0.5f, { 1.0 } },
	     }) {
		vx_tensor in = tensor(c.inType, { c.in.size() }, c.inPosition, c.in);
		vx_tensor out = tensor(c.outType, { c.in.size() }, c.outPosition);
		vx_scalar norm = scalar(VX_TYPE_FLOAT32, &c.norm);
		vx_scalar offset = scalar(VX_TYPE_FLOAT32, &c.offset);
		ASSERT_EQ(vxuTensorConvertDepth(context, in, c.policy, norm, offset, out), VX_SUCCESS)
			<< c.name;
		EXPECT_EQ(read(out), c.expected) << c.name;
	}
	const vx_float32 zero = 0, one = 1;
	vx_tensor in = tensor(VX_TYPE_INT8, { 1 }), out = tensor(VX_TYPE_INT8, { 1 });
	EXPECT_EQ(vxuTensorConvertDepth(context, in, kSaturate, scalar(VX_TYPE_FLOAT32, &zero),
			  scalar(VX_TYPE_FLOAT32, &one), out),
		VX_ERROR_INVALID_VALUE)
		<< "norm 0";
}

/*
 * Tensors are [columns, rows]: A = (1 2 / 3 4), B = (5 6 / 7 8), AB =
 * (19 22 / 43 50); with C = 1 everywhere, one more; with A transposed,
 * (26 30 / 38 44).
 */
TEST_F(TensorOps, MatrixMultiply)
{
	vx_tensor a = tensor(VX_TYPE_INT16, { 2, 2 }, 0, { 1, 2, 3, 4 });
	vx_tensor b = tensor(VX_TYPE_INT16, { 2, 2 }, 0, { 5, 6, 7, 8 });
	vx_tensor c = tensor(VX_TYPE_INT16, { 2, 2 }, 0, { 1, 1, 1, 1 });
	struct Case {
		vx_tensor addend;
		vx_bool transposeA;
		Values expected;
	};
	for (const Case &m : { Case{ nullptr, vx_false_e, { 19, 22, 43, 50 } },
		     Case{ c, vx_false_e, { 20, 23, 44, 51 } },
		     Case{ nullptr, vx_true_e, { 26, 30, 38, 44 } } }) {
		vx_tensor out = tensor(VX_TYPE_INT16, { 2, 2 });
		const vx_tensor_matrix_multiply_params_t params = { m.transposeA, vx_false_e,
			vx_false_e };
		ASSERT_EQ(vxuTensorMatrixMultiply(context, a, b, m.addend, &params, out), VX_SUCCESS);
		EXPECT_EQ(read(out), m.expected);
	}
}

/* [3 columns, 1 row] by [1, 3]: 200 * 200 * 3 saturates; Q7.8 1.5 * 1.5 = 2.25. */
TEST_F(TensorOps, MatrixMultiplySaturatesAndKeepsFixedPoint)
{
	const vx_tensor_matrix_multiply_params_t params = { vx_false_e, vx_false_e, vx_false_e };
	vx_tensor row = tensor(VX_TYPE_INT16, { 3, 1 }, 0, { 200, 200, 200 });
	vx_tensor column = tensor(VX_TYPE_INT16, { 1, 3 }, 0, { 200, 200, 200 });
	vx_tensor out = tensor(VX_TYPE_INT16, { 1, 1 });
	keep(vxTensorMatrixMultiplyNode(graph, row, column, nullptr, &params, out));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 32767 }));

	vx_tensor q = tensor(VX_TYPE_INT16, { 1, 1 }, 8, { 384 });
	vx_tensor product = tensor(VX_TYPE_INT16, { 1, 1 }, 8);
	ASSERT_EQ(vxuTensorMatrixMultiply(context, q, q, nullptr, &params, product), VX_SUCCESS);
	EXPECT_EQ(read(product), Values({ 576 }));

	vx_tensor wrong = tensor(VX_TYPE_INT16, { 2, 1 });
	EXPECT_EQ(vxuTensorMatrixMultiply(context, row, wrong, nullptr, &params, out),
		VX_ERROR_INVALID_DIMENSION);
}

/*
 * C added exactly whatever its position, and the sum rounded once. Q0 A B
 * = 1 plus C = 0.5 (Q2 raw 2) is 1.5, 2 to nearest even (C rounded to 0
 * first gave 1); minus 0.5, 0.5 gives 0. A B = 2^-80 (Q40 by Q40) plus C
 * = 5 is 5 (C moved to position 80 saturated, and so did the result); it
 * breaks the tie of C = 0.5 (Q1 raw 1) towards 1, while 0.5 alone is 0.
 */
TEST_F(TensorOps, MatrixMultiplyAddsCExactlyWhateverItsPosition)
{
	const vx_tensor_matrix_multiply_params_t params = { vx_false_e, vx_false_e, vx_false_e };
	struct Case {
		int abPosition, aRaw, cPosition, cRaw;
		double expected;
	};
	for (const Case &m : { Case{ 0, 1, 2, 2, 2 }, Case{ 0, 1, 2, -2, 0 },
		     Case{ 40, 1, 0, 5, 5 }, Case{ 40, -1, 0, -5, -5 }, Case{ 40, 1, 1, 1, 1 },
		     Case{ 40, 0, 1, 1, 0 }, Case{ 40, 0, 1, 3, 2 }, Case{ 0, 3, 127, 1, 3 } }) {
		SCOPED_TRACE("A B at " + std::to_string(2 * m.abPosition) + " raw "
			+ std::to_string(m.aRaw) + ", C at " + std::to_string(m.cPosition) + " raw "
			+ std::to_string(m.cRaw));
		vx_tensor a = tensor(VX_TYPE_INT16, { 1, 1 }, m.abPosition, { double(m.aRaw) });
		vx_tensor b = tensor(VX_TYPE_INT16, { 1, 1 }, m.abPosition, { 1 });
		vx_tensor c = tensor(VX_TYPE_INT16, { 1, 1 }, m.cPosition, { double(m.cRaw) });
		vx_tensor out = tensor(VX_TYPE_INT16, { 1, 1 }, 0);
		ASSERT_EQ(vxuTensorMatrixMultiply(context, a, b, c, &params, out), VX_SUCCESS);
		EXPECT_EQ(read(out), Values({ m.expected }));
	}
	/* An output finer than both: exact, then saturated. */
	vx_tensor one = tensor(VX_TYPE_INT16, { 1, 1 }, 0, { 1 });
	vx_tensor fine = tensor(VX_TYPE_INT16, { 1, 1 }, 14);
	ASSERT_EQ(vxuTensorMatrixMultiply(context, one, one, nullptr, &params, fine), VX_SUCCESS);
	EXPECT_EQ(read(fine), Values({ 16384 }));
	vx_tensor finer = tensor(VX_TYPE_INT16, { 1, 1 }, 100);
	ASSERT_EQ(vxuTensorMatrixMultiply(context, one, one, nullptr, &params, finer), VX_SUCCESS);
	EXPECT_EQ(read(finer), Values({ 32767 }));
}

/* A LUT of @type holding @entries. */
vx_lut makeLut(vx_context context, vx_enum type, const std::vector<int> &entries)
{
	vx_lut lut = vxCreateLUT(context, type, entries.size());
	EXPECT_EQ(vxGetStatus(reinterpret_cast<vx_reference>(lut)), VX_SUCCESS);
	std::vector<uint8_t> bytes(entries.size() * (type == VX_TYPE_INT16 ? 2 : 1));
	if (type == VX_TYPE_INT16)
		pack<int16_t>(Values(entries.begin(), entries.end()), bytes);
	else
		pack<uint8_t>(Values(entries.begin(), entries.end()), bytes);
	EXPECT_EQ(vxCopyLUT(lut, bytes.data(), VX_WRITE_ONLY, VX_MEMORY_TYPE_HOST), VX_SUCCESS);
	return lut;
}

/*
 * UINT8: out = lut[in]. INT16 (Q7.8): out = lut[in + count / 2], the raw
 * value as the index. An index outside the table takes the nearest entry.
 */
TEST_F(TensorOps, TableLookupIndexesFromTheLutOffset)
{
	vx_lut bytes = makeLut(context, VX_TYPE_UINT8, { 10, 20, 30, 40, 50 });
	vx_tensor in = tensor(VX_TYPE_UINT8, { 2, 2 }, 0, { 0, 4, 2, 200 });
	vx_tensor out = tensor(VX_TYPE_UINT8, { 2, 2 });
	keep(vxTensorTableLookupNode(graph, in, bytes, out));
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 10, 50, 30, 50 }));

	vx_lut words = makeLut(context, VX_TYPE_INT16, { -300, -1, 7, 1000, 32767 });
	vx_tensor q = tensor(VX_TYPE_INT16, { 5 }, 8, { -2, 0, 2, -100, 1 });
	vx_tensor looked = tensor(VX_TYPE_INT16, { 5 }, 8);
	ASSERT_EQ(vxuTensorTableLookup(context, q, words, looked), VX_SUCCESS);
	EXPECT_EQ(read(looked), Values({ -300, 7, 32767, -300, 1000 }));

	EXPECT_EQ(vxuTensorTableLookup(context, in, words, out), VX_ERROR_INVALID_TYPE)
		<< "a UINT8 tensor through an INT16 table";
	vx_tensor int8 = tensor(VX_TYPE_INT8, { 2, 2 });
	EXPECT_EQ(vxuTensorTableLookup(context, int8, bytes, out), VX_ERROR_INVALID_FORMAT);
	vxReleaseLUT(&bytes);
	vxReleaseLUT(&words);
}

/* The attributes, copies and mappings of vx_lut, and what it refuses. */
TEST_F(TensorOps, LutObject)
{
	EXPECT_EQ(vxGetStatus(reinterpret_cast<vx_reference>(vxCreateLUT(context, VX_TYPE_INT8, 4))),
		VX_ERROR_INVALID_TYPE);
	for (auto [type, count] : { std::pair{ VX_TYPE_UINT8, vx_size(0) },
		     std::pair{ VX_TYPE_UINT8, vx_size(257) },
		     std::pair{ VX_TYPE_INT16, vx_size(65537) } })
		EXPECT_EQ(vxGetStatus(reinterpret_cast<vx_reference>(vxCreateLUT(context, type, count))),
			VX_ERROR_INVALID_PARAMETERS)
			<< count;

	vx_lut lut = makeLut(context, VX_TYPE_INT16, { 1, 2, 3, 4, 5, 6, 7 });
	vx_enum type = 0;
	vx_size count = 0, size = 0;
	vx_uint32 offset = 0;
	EXPECT_EQ(vxQueryLUT(lut, VX_LUT_TYPE, &type, sizeof(type)), VX_SUCCESS);
	EXPECT_EQ(vxQueryLUT(lut, VX_LUT_COUNT, &count, sizeof(count)), VX_SUCCESS);
	EXPECT_EQ(vxQueryLUT(lut, VX_LUT_SIZE, &size, sizeof(size)), VX_SUCCESS);
	EXPECT_EQ(vxQueryLUT(lut, VX_LUT_OFFSET, &offset, sizeof(offset)), VX_SUCCESS);
	EXPECT_EQ(type, VX_TYPE_INT16);
	EXPECT_EQ(count, 7u);
	EXPECT_EQ(size, 14u);
	EXPECT_EQ(offset, 3u) << "count / 2 for INT16";
	EXPECT_EQ(vxQueryLUT(lut, VX_LUT_OFFSET, &offset, sizeof(offset) + 1),
		VX_ERROR_INVALID_PARAMETERS);

	vx_map_id id = 0;
	void *ptr = nullptr;
	ASSERT_EQ(vxMapLUT(lut, &id, &ptr, VX_READ_AND_WRITE, VX_MEMORY_TYPE_HOST, 0), VX_SUCCESS);
	static_cast<int16_t *>(ptr)[6] = -9;
	EXPECT_EQ(vxUnmapLUT(lut, id), VX_SUCCESS);
	EXPECT_EQ(vxUnmapLUT(lut, id), VX_ERROR_INVALID_PARAMETERS) << "unmapped twice";
	int16_t copy[7] = {};
	ASSERT_EQ(vxCopyLUT(lut, copy, VX_READ_ONLY, VX_MEMORY_TYPE_HOST), VX_SUCCESS);
	EXPECT_EQ(copy[0], 1);
	EXPECT_EQ(copy[6], -9) << "the mapping wrote the table";
	EXPECT_EQ(vxCopyLUT(lut, nullptr, VX_READ_ONLY, VX_MEMORY_TYPE_HOST),
		VX_ERROR_INVALID_PARAMETERS);

	vx_lut bytes = vxCreateLUT(context, VX_TYPE_UINT8, 256);
	EXPECT_EQ(vxQueryLUT(bytes, VX_LUT_OFFSET, &offset, sizeof(offset)), VX_SUCCESS);
	EXPECT_EQ(offset, 0u);
	EXPECT_EQ(vxReleaseLUT(&bytes), VX_SUCCESS);
	EXPECT_EQ(bytes, nullptr);
	EXPECT_EQ(vxReleaseLUT(&bytes), VX_ERROR_INVALID_REFERENCE);
	EXPECT_EQ(vxReleaseLUT(&lut), VX_SUCCESS);
}

} /* namespace */
