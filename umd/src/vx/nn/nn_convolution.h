/* SPDX-License-Identifier: MIT */
/*
 * libvdla's own convolution: a kernel of the runtime's graph engine that
 * the ONNX import (umd/src/onnx/dla_segment.cpp) creates for Conv and
 * QLinearConv, with what the public layers cannot express: a scale and zero
 * point per tensor or per channel instead of a power-of-two position,
 * groups, four-sided padding, explicit strides. Its arithmetic is
 * nn::GeneralConvolution's (nn_layers.h) and docs/onnx.md's
 * "Quantisation"; the DLA computes the INT8 form bit for bit (docs/onnx.md,
 * "INT8 on the DLA").
 */
#pragma once

#include <VX/vx.h>

namespace vdla::vx::nn {

/* The kernel's enumeration and name. */
constexpr vx_enum kGeneralConvolutionKernel = VX_KERNEL_BASE(VX_ID_DEFAULT, 0) + 0x1;
constexpr const char *kGeneralConvolutionName = "vdla.nn.convolution";

/* The type of its parameter scalar. */
constexpr vx_enum kTypeConvolutionParams = VX_TYPE_VENDOR_STRUCT_START + 0x1;

struct ConvolutionParams {
	vx_uint32 padLeft, padRight, padTop, padBottom;
	vx_uint32 strideX, strideY;
	/* The distance between taps: 1 for a dense kernel. */
	vx_uint32 dilationX, dilationY;
	vx_uint32 groups;
	/* INT8: the input's zero point, in [-128, 127], the padding's value. */
	vx_int32 inputZero;
	/* INT8: added to the rounded value before saturation, in [-256, 255]. */
	vx_int32 outputZero;
	vx_bool relu;
};

/*
 * A node computing nn::GeneralConvolution: @input [W, H, C, (N)], @weights
 * [KW, KH, C / groups, M] and @output, all INT8 (the weights INT8 or INT16,
 * within +-255 for the DLA) with @bias INT32 [M] and @multipliers FLOAT32
 * [M], or all FLOAT32 with @bias FLOAT32 [M] or null,
 * @multipliers null and @addend null or FLOAT32 of the output's dimensions
 * (a Gemm's matrix C), added to each output before the Relu. Errors as
 * vxConvolutionLayer's: a node whose status says why, or null for an
 * invalid graph.
 */
vx_node generalConvolutionNode(vx_graph graph, vx_tensor input, vx_tensor weights,
	vx_tensor bias, vx_tensor multipliers, const ConvolutionParams &params,
	vx_tensor output, vx_tensor addend = nullptr);

/* libvdla's own pooling (nn::GeneralPooling), for ONNX's MaxPool and
 * AveragePool: its enumeration, name and parameter scalar. */
constexpr vx_enum kGeneralPoolingKernel = VX_KERNEL_BASE(VX_ID_DEFAULT, 0) + 0x2;
constexpr const char *kGeneralPoolingName = "vdla.nn.pooling";
constexpr vx_enum kTypePoolingParams = VX_TYPE_VENDOR_STRUCT_START + 0x2;

struct PoolingParams {
	vx_enum type; /* VX_NN_POOLING_MAX or _AVG */
	vx_uint32 sizeX, sizeY, strideX, strideY;
	vx_uint32 padLeft, padRight, padTop, padBottom;
	vx_bool ceil, includePad;
};

/* A node computing nn::GeneralPooling from @input to @output (INT8 or FLOAT32). */
vx_node generalPoolingNode(
	vx_graph graph, vx_tensor input, const PoolingParams &params, vx_tensor output);

} /* namespace vdla::vx::nn */
