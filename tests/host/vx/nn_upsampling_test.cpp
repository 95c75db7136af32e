/* SPDX-License-Identifier: MIT */
/*
 * The deconvolution and ROI pooling layers on the CPU against hand-computed
 * answers (docs/openvx.md, "Layer by layer"), and their validation.
 */
#include "nn_test.h"

namespace {

class Upsampling : public NnTest
{
protected:
	vx_node deconvolution(vx_tensor in, vx_tensor weights, vx_tensor bias, vx_tensor out,
		vx_size pad = 0, vx_size a = 0, vx_enum overflow = kSaturate)
	{
		const vx_nn_deconvolution_params_t params = { pad, 0, overflow, kZero, a, 0 };
		return keep(vxDeconvolutionLayer(graph, in, weights, bias, &params, sizeof(params), out));
	}

	vx_node roiPooling(vx_tensor in, vx_tensor rois, vx_tensor out,
		vx_enum type = VX_NN_POOLING_MAX)
	{
		const vx_nn_roi_pool_params_t params = { type };
		return keep(vxROIPoolingLayer(graph, in, rois, &params, sizeof(params), out));
	}
};

/*
 * Input (1, 2) upscaled by 2 is (1, 0, 2), padded by kernel - 1 = 1 on each
 * side: (0, 1, 0, 2, 0). Weights (10, 1) slide over it without being
 * flipped: 1, 10, 2, 20. The output width 4 gives the upscale 2.
 */
TEST_F(Upsampling, DeconvolutionCorrelatesTheUpscaledInput)
{
	vx_tensor in = tensor(VX_TYPE_INT16, { 2, 1, 1 }, 0, { 1, 2 });
	vx_tensor weights = tensor(VX_TYPE_INT16, { 2, 1, 1, 1 }, 0, { 10, 1 });
	vx_tensor out = tensor(VX_TYPE_INT16, { 4, 1, 1 });
	deconvolution(in, weights, nullptr, out);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 1, 10, 2, 20 }));
}

/* a = 1 adds one output column at the end, read from the zeros after. */
TEST_F(Upsampling, DeconvolutionExtraColumnOfA)
{
	vx_tensor in = tensor(VX_TYPE_INT16, { 2, 1, 1 }, 0, { 1, 2 });
	vx_tensor weights = tensor(VX_TYPE_INT16, { 2, 1, 1, 1 }, 0, { 10, 1 });
	vx_tensor out = tensor(VX_TYPE_INT16, { 5, 1, 1 });
	deconvolution(in, weights, nullptr, out, 0, 1);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 1, 10, 2, 20, 0 }));
}

/* Padding 1 on the output leaves kernel - 1 - 1 = 0 on the input: (1, 0, 2). */
TEST_F(Upsampling, DeconvolutionPaddingTrimsTheOutput)
{
	vx_tensor in = tensor(VX_TYPE_INT16, { 2, 1, 1 }, 0, { 1, 2 });
	vx_tensor weights = tensor(VX_TYPE_INT16, { 2, 1, 1, 1 }, 0, { 10, 1 });
	vx_tensor out = tensor(VX_TYPE_INT16, { 2, 1, 1 });
	deconvolution(in, weights, nullptr, out, 1);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 10, 2 }));
}

/* Two input channels (3, 4) into two outputs, weights (1, 2) and (5, 0), bias (1, 2). */
TEST_F(Upsampling, DeconvolutionSumsChannelsAndAddsBias)
{
	vx_tensor in = tensor(VX_TYPE_INT16, { 1, 1, 2 }, 0, { 3, 4 });
	vx_tensor weights = tensor(VX_TYPE_INT16, { 1, 1, 2, 2 }, 0, { 1, 2, 5, 0 });
	vx_tensor bias = tensor(VX_TYPE_INT16, { 2 }, 0, { 1, 2 });
	vx_tensor out = tensor(VX_TYPE_INT16, { 1, 1, 2 });
	deconvolution(in, weights, bias, out);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 12, 17 }));
}

/* 2 * 200 + 2 * 200 = 800 in the middle column: 255 saturated, 32 wrapped. */
TEST_F(Upsampling, DeconvolutionOfUint8SaturatesOrWraps)
{
	for (auto [overflow, middle] : { std::pair{ kSaturate, 255.0 }, std::pair{ kWrap, 32.0 } }) {
		vx_tensor in = tensor(VX_TYPE_UINT8, { 2, 1, 1 }, 0, { 2, 2 });
		vx_tensor weights = tensor(VX_TYPE_UINT8, { 2, 1, 1, 1 }, 0, { 200, 200 });
		vx_tensor out = tensor(VX_TYPE_UINT8, { 3, 1, 1 });
		deconvolution(in, weights, nullptr, out, 0, 0, overflow);
		ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
		const double edge = overflow == kSaturate ? 255 : 144; /* 400 */
		EXPECT_EQ(read(out), Values({ edge, middle, edge }));
	}
}

TEST_F(Upsampling, DeconvolutionValidation)
{
	struct Case {
		const char *name;
		vx_size inWidth, kernel, pad, a, outWidth;
		vx_status expected;
	};
	for (const Case &c : {
		     Case{ "upscale 2", 3, 2, 0, 0, 6, VX_SUCCESS },
		     Case{ "no whole upscale gives the width", 3, 2, 0, 0, 7,
			     VX_ERROR_INVALID_DIMENSION },
		     Case{ "a not below the upscale", 3, 2, 0, 2, 8, VX_ERROR_INVALID_DIMENSION },
		     Case{ "kernel not wider than the padding", 3, 2, 2, 0, 2,
			     VX_ERROR_INVALID_VALUE },
	     }) {
		vx_graph own = vxCreateGraph(context);
		const vx_nn_deconvolution_params_t params = { c.pad, 0, kSaturate, kZero, c.a, 0 };
		vx_node node = vxDeconvolutionLayer(own, tensor(VX_TYPE_INT8, { c.inWidth, 1, 1 }),
			tensor(VX_TYPE_INT8, { c.kernel, 1, 1, 1 }), nullptr, &params, sizeof(params),
			tensor(VX_TYPE_INT8, { c.outWidth, 1, 1 }));
		EXPECT_EQ(vxVerifyGraph(own), c.expected) << c.name;
		vxReleaseNode(&node);
		vxReleaseGraph(&own);
	}
	/* Checked in the documented order: the padding (a value) before the weights' rank. */
	{
		vx_graph own = vxCreateGraph(context);
		const vx_nn_deconvolution_params_t wide = { 5, 0, kSaturate, kZero, 0, 0 };
		vx_node node = vxDeconvolutionLayer(own, tensor(VX_TYPE_INT8, { 3, 1, 1 }),
			tensor(VX_TYPE_INT8, { 2, 1, 1 }), nullptr, &wide, sizeof(wide),
			tensor(VX_TYPE_INT8, { 3, 1, 1 }));
		EXPECT_EQ(vxVerifyGraph(own), VX_ERROR_INVALID_VALUE);
		vxReleaseNode(&node);
		vxReleaseGraph(&own);
	}
	/* An output width that would not fit: refused, not wrapped around. */
	{
		vx_graph own = vxCreateGraph(context);
		const vx_nn_deconvolution_params_t huge = { 0, 0, kSaturate, kZero,
			(vx_size(1) << 32) - 1, 0 };
		vx_tensor wideInput = tensor(VX_TYPE_INT8, { (vx_size(1) << 32) + 1, 1, 1 });
		vx_tensor middle = vxCreateVirtualTensor(own, 0, nullptr, VX_TYPE_INVALID, 0);
		vx_node node = vxDeconvolutionLayer(own, wideInput,
			tensor(VX_TYPE_INT8, { 1, 1, 1, 1 }), nullptr, &huge, sizeof(huge), middle);
		EXPECT_EQ(vxVerifyGraph(own), VX_ERROR_INVALID_DIMENSION);
		vxReleaseNode(&node);
		vxReleaseTensor(&middle);
		vxReleaseGraph(&own);
	}
	const vx_nn_deconvolution_params_t params = {};
	vx_node node = vxDeconvolutionLayer(graph, tensor(VX_TYPE_INT8, { 1, 1, 1 }),
		tensor(VX_TYPE_INT8, { 1, 1, 1, 1 }), nullptr, &params, sizeof(params) - 1,
		tensor(VX_TYPE_INT8, { 1, 1, 1 }));
	EXPECT_EQ(vxGetStatus(ref(node)), VX_ERROR_INVALID_PARAMETERS);
}

/*
 * A 4x4 map holding 0..15 (row y: 4y .. 4y + 3). ROI (0, 0)-(3, 3) in 2x2
 * bins gives the quadrants' maxima; ROI (1, 1)-(2, 2) one element per bin.
 */
TEST_F(Upsampling, RoiPoolingTakesEachBinsMaximum)
{
	Values map(16);
	for (size_t i = 0; i < map.size(); i++)
		map[i] = double(i);
	vx_tensor in = tensor(VX_TYPE_UINT8, { 4, 4, 1 }, 0, map);
	vx_tensor rois = tensor(VX_TYPE_UINT8, { 4, 2 }, 0, { 0, 0, 3, 3, 1, 1, 2, 2 });
	vx_tensor out = tensor(VX_TYPE_UINT8, { 2, 2, 1, 2 });
	roiPooling(in, rois, out);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 5, 7, 13, 15, 5, 6, 9, 10 }));
}

/*
 * ROI (-1, -1)-(2, 2) over a 3x3 map is 4 wide: bins [-1, 1) and [1, 3)
 * per axis, cropped to the map: the first bin holds element 0 only.
 */
TEST_F(Upsampling, RoiPoolingCropsToTheInput)
{
	vx_tensor in = tensor(
		VX_TYPE_INT8, { 3, 3, 1 }, 0, { -20, -30, -40, -50, -60, -70, -80, -90, -100 });
	vx_tensor rois = tensor(VX_TYPE_INT8, { 4, 1 }, 0, { -1, -1, 2, 2 });
	vx_tensor out = tensor(VX_TYPE_INT8, { 2, 2, 1, 1 });
	roiPooling(in, rois, out);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ -20, -30, -50, -60 }));
}

/* A bin wholly outside the input is empty and gives 0. */
TEST_F(Upsampling, RoiPoolingEmptyBinIsZero)
{
	vx_tensor in = tensor(VX_TYPE_INT8, { 2, 1, 1 }, 0, { -5, -6 });
	vx_tensor rois = tensor(VX_TYPE_INT8, { 4, 1 }, 0, { 1, 0, 4, 0 });
	vx_tensor out = tensor(VX_TYPE_INT8, { 2, 1, 1, 1 });
	roiPooling(in, rois, out);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ -6, 0 }));
}

/*
 * FLOAT32 ROI corners far outside any tensor (+-1e18) are cropped like
 * any other: 2^41 + 1 wide in 4 bins, the middle two reach the input.
 */
TEST_F(Upsampling, RoiPoolingOfHugeFloatCorners)
{
	vx_tensor in = tensor(VX_TYPE_FLOAT32, { 4, 1, 1 }, 0, { 1, 2, 3, 4 });
	vx_tensor rois = tensor(VX_TYPE_FLOAT32, { 4, 1 }, 0, { -1e18, 0, 1e18, 0 });
	vx_tensor out = tensor(VX_TYPE_FLOAT32, { 4, 1, 1, 1 });
	roiPooling(in, rois, out);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 0, 1, 4, 0 }));
}

/* Batch n pools with its own ROIs. */
TEST_F(Upsampling, RoiPoolingPerBatch)
{
	vx_tensor in = tensor(VX_TYPE_INT16, { 2, 2, 1, 2 }, 0, { 1, 2, 3, 4, 5, 6, 7, 8 });
	vx_tensor rois = tensor(VX_TYPE_INT16, { 4, 1, 2 }, 0, { 0, 0, 1, 1, 0, 0, 0, 0 });
	vx_tensor out = tensor(VX_TYPE_INT16, { 1, 1, 1, 1, 2 });
	roiPooling(in, rois, out);
	ASSERT_EQ(vxProcessGraph(graph), VX_SUCCESS);
	EXPECT_EQ(read(out), Values({ 4, 5 }));
}

TEST_F(Upsampling, RoiPoolingValidation)
{
	vx_tensor in = tensor(VX_TYPE_INT8, { 4, 4, 1 });
	struct Case {
		const char *name;
		Dims rois, out;
		vx_enum type;
		vx_status expected;
	};
	for (const Case &c : {
		     Case{ "valid", { 4, 3 }, { 2, 2, 1, 3 }, VX_NN_POOLING_MAX, VX_SUCCESS },
		     Case{ "average", { 4, 3 }, { 2, 2, 1, 3 }, VX_NN_POOLING_AVG,
			     VX_ERROR_INVALID_VALUE },
		     Case{ "three coordinates", { 3, 3 }, { 2, 2, 1, 3 }, VX_NN_POOLING_MAX,
			     VX_ERROR_INVALID_DIMENSION },
		     Case{ "output without the ROI dimension", { 4, 3 }, { 2, 2, 1 },
			     VX_NN_POOLING_MAX, VX_ERROR_INVALID_DIMENSION },
		     Case{ "output of other channels", { 4, 3 }, { 2, 2, 2, 3 }, VX_NN_POOLING_MAX,
			     VX_ERROR_INVALID_DIMENSION },
	     }) {
		vx_graph own = vxCreateGraph(context);
		const vx_nn_roi_pool_params_t params = { c.type };
		vx_node node = vxROIPoolingLayer(own, in, tensor(VX_TYPE_INT8, c.rois), &params,
			sizeof(params), tensor(VX_TYPE_INT8, c.out));
		EXPECT_EQ(vxVerifyGraph(own), c.expected) << c.name;
		vxReleaseNode(&node);
		vxReleaseGraph(&own);
	}
}

} /* namespace */
