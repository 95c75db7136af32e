/* SPDX-License-Identifier: MIT */
/*
 * The tensor kernels of <VX/vx_nodes.h> against hand-computed answers
 * (docs/openvx.md, "Tensor kernels"): element-wise add, subtract and
 * multiply with dimensions of 1 repeated in either input, transpose,
 * convert depth and matrix multiply, in graphs and through <VX/vxu.h>.
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

} /* namespace */
