/* SPDX-License-Identifier: MIT */
/*
 * The OpenVX neural-network extension (vx_khr_nn of OpenVX 1.3): layer
 * kernels on tensors. Names and values follow the Khronos extension, so
 * applications written against it build unchanged; docs/openvx.md states the
 * exact arithmetic libvdla implements. Not included by <VX/vx.h>.
 */
#ifndef VX_KHR_NN_H
#define VX_KHR_NN_H

#include <VX/vx.h>

#define OPENVX_KHR_NN "vx_khr_nn"

#define VX_LIBRARY_KHR_NN_EXTENSION (0x1)

#ifdef __cplusplus
extern "C" {
#endif

enum vx_kernel_nn_ext_e {
	VX_KERNEL_CONVOLUTION_LAYER
	= VX_KERNEL_BASE(VX_ID_KHRONOS, VX_LIBRARY_KHR_NN_EXTENSION) + 0x0,
	VX_KERNEL_FULLY_CONNECTED_LAYER
	= VX_KERNEL_BASE(VX_ID_KHRONOS, VX_LIBRARY_KHR_NN_EXTENSION) + 0x1,
	VX_KERNEL_POOLING_LAYER = VX_KERNEL_BASE(VX_ID_KHRONOS, VX_LIBRARY_KHR_NN_EXTENSION) + 0x2,
	VX_KERNEL_SOFTMAX_LAYER = VX_KERNEL_BASE(VX_ID_KHRONOS, VX_LIBRARY_KHR_NN_EXTENSION) + 0x3,
	VX_KERNEL_NORMALIZATION_LAYER
	= VX_KERNEL_BASE(VX_ID_KHRONOS, VX_LIBRARY_KHR_NN_EXTENSION) + 0x4,
	VX_KERNEL_ACTIVATION_LAYER
	= VX_KERNEL_BASE(VX_ID_KHRONOS, VX_LIBRARY_KHR_NN_EXTENSION) + 0x5,
	/* Listed for completeness; libvdla does not provide these two. */
	VX_KERNEL_ROI_POOLING_LAYER
	= VX_KERNEL_BASE(VX_ID_KHRONOS, VX_LIBRARY_KHR_NN_EXTENSION) + 0x6,
	VX_KERNEL_DECONVOLUTION_LAYER
	= VX_KERNEL_BASE(VX_ID_KHRONOS, VX_LIBRARY_KHR_NN_EXTENSION) + 0x7,
	VX_KERNEL_LOCAL_RESPONSE_NORMALIZATION_LAYER
	= VX_KERNEL_BASE(VX_ID_KHRONOS, VX_LIBRARY_KHR_NN_EXTENSION) + 0x8,
};

enum vx_nn_enum_e {
	VX_ENUM_NN_ROUNDING_TYPE = 0x1A,
	VX_ENUM_NN_POOLING_TYPE = 0x1B,
	VX_ENUM_NN_NORMALIZATION_TYPE = 0x1C,
	VX_ENUM_NN_ACTIVATION_FUNCTION_TYPE = 0x1D,
};

/* How an output size that is not a whole number of strides is rounded. */
enum vx_nn_rounding_type_e {
	VX_NN_DS_SIZE_ROUNDING_FLOOR = VX_ENUM_BASE(VX_ID_KHRONOS, VX_ENUM_NN_ROUNDING_TYPE) + 0x0,
	VX_NN_DS_SIZE_ROUNDING_CEILING
	= VX_ENUM_BASE(VX_ID_KHRONOS, VX_ENUM_NN_ROUNDING_TYPE) + 0x1,
};

enum vx_nn_pooling_type_e {
	VX_NN_POOLING_MAX = VX_ENUM_BASE(VX_ID_KHRONOS, VX_ENUM_NN_POOLING_TYPE) + 0x0,
	VX_NN_POOLING_AVG = VX_ENUM_BASE(VX_ID_KHRONOS, VX_ENUM_NN_POOLING_TYPE) + 0x1,
};

enum vx_nn_norm_type_e {
	VX_NN_NORMALIZATION_SAME_MAP
	= VX_ENUM_BASE(VX_ID_KHRONOS, VX_ENUM_NN_NORMALIZATION_TYPE) + 0x0,
	VX_NN_NORMALIZATION_ACROSS_MAPS
	= VX_ENUM_BASE(VX_ID_KHRONOS, VX_ENUM_NN_NORMALIZATION_TYPE) + 0x1,
};

enum vx_nn_activation_function_e {
	VX_NN_ACTIVATION_LOGISTIC
	= VX_ENUM_BASE(VX_ID_KHRONOS, VX_ENUM_NN_ACTIVATION_FUNCTION_TYPE) + 0x0,
	VX_NN_ACTIVATION_HYPERBOLIC_TAN
	= VX_ENUM_BASE(VX_ID_KHRONOS, VX_ENUM_NN_ACTIVATION_FUNCTION_TYPE) + 0x1,
	VX_NN_ACTIVATION_RELU
	= VX_ENUM_BASE(VX_ID_KHRONOS, VX_ENUM_NN_ACTIVATION_FUNCTION_TYPE) + 0x2,
	VX_NN_ACTIVATION_BRELU
	= VX_ENUM_BASE(VX_ID_KHRONOS, VX_ENUM_NN_ACTIVATION_FUNCTION_TYPE) + 0x3,
	VX_NN_ACTIVATION_SOFTRELU
	= VX_ENUM_BASE(VX_ID_KHRONOS, VX_ENUM_NN_ACTIVATION_FUNCTION_TYPE) + 0x4,
	VX_NN_ACTIVATION_ABS
	= VX_ENUM_BASE(VX_ID_KHRONOS, VX_ENUM_NN_ACTIVATION_FUNCTION_TYPE) + 0x5,
	VX_NN_ACTIVATION_SQUARE
	= VX_ENUM_BASE(VX_ID_KHRONOS, VX_ENUM_NN_ACTIVATION_FUNCTION_TYPE) + 0x6,
	VX_NN_ACTIVATION_SQRT
	= VX_ENUM_BASE(VX_ID_KHRONOS, VX_ENUM_NN_ACTIVATION_FUNCTION_TYPE) + 0x7,
	VX_NN_ACTIVATION_LINEAR
	= VX_ENUM_BASE(VX_ID_KHRONOS, VX_ENUM_NN_ACTIVATION_FUNCTION_TYPE) + 0x8,
};

/* Struct types of scalars (vxCreateScalarWithSize); the convolution
 * layer kernel takes its settings as one VX_TYPE_NN_CONVOLUTION_PARAMS
 * scalar, parameter #3. */
enum vx_nn_type_e {
	VX_TYPE_NN_CONVOLUTION_PARAMS = 0x025,
	VX_TYPE_NN_DECONVOLUTION_PARAMS = 0x026,
	VX_TYPE_NN_ROI_POOL_PARAMS = 0x027,
};

/* The scalar settings of vxConvolutionLayer. */
typedef struct _vx_nn_convolution_params_t {
	vx_size padding_x; /* zeros added left and right of the input */
	vx_size padding_y; /* zeros added above and below the input */
	vx_enum overflow_policy; /* vx_convert_policy_e */
	vx_enum rounding_policy; /* vx_round_policy_e */
	vx_enum down_scale_size_rounding; /* vx_nn_rounding_type_e */
	vx_size dilation_x; /* zeros inserted between kernel taps; 0 is none */
	vx_size dilation_y;
} vx_nn_convolution_params_t;

/* The settings of a deconvolution. */
typedef struct _vx_nn_deconvolution_params_t {
	vx_size padding_x; /* elements removed left and right of the output */
	vx_size padding_y; /* elements removed above and below the output */
	vx_enum overflow_policy; /* vx_convert_policy_e */
	vx_enum rounding_policy; /* vx_round_policy_e */
	vx_size a_x; /* picks one of the possible output widths */
	vx_size a_y; /* picks one of the possible output heights */
} vx_nn_deconvolution_params_t;

/* The settings of an ROI pooling. */
typedef struct _vx_nn_roi_pool_params_t {
	vx_enum pool_type; /* vx_nn_pooling_type_e; only VX_NN_POOLING_MAX */
} vx_nn_roi_pool_params_t;

/*
 * inputs [W, H, #IFM, (batch)], weights [KX, KY, #IFM, #OFM], biases [#OFM],
 * [W', H', #OFM] or NULL, outputs [W', H', #OFM, (batch)]. The stride is
 * inferred from the output size; size_of_convolution_params must be
 * sizeof(vx_nn_convolution_params_t).
 */
VX_API_ENTRY vx_node VX_API_CALL vxConvolutionLayer(vx_graph graph, vx_tensor inputs,
	vx_tensor weights, vx_tensor biases, const vx_nn_convolution_params_t *convolution_params,
	vx_size size_of_convolution_params, vx_tensor outputs);

/*
 * inputs [#IFM, (batch)] or [W, H, C, (batch)] (W * H * C inputs), weights
 * [#IFM, #OFM], biases [#OFM] or NULL, outputs [#OFM, (batch)].
 */
VX_API_ENTRY vx_node VX_API_CALL vxFullyConnectedLayer(vx_graph graph, vx_tensor inputs,
	vx_tensor weights, vx_tensor biases, vx_enum overflow_policy, vx_enum rounding_policy,
	vx_tensor outputs);

/* pooling_type is a vx_nn_pooling_type_e, rounding a vx_nn_rounding_type_e. */
VX_API_ENTRY vx_node VX_API_CALL vxPoolingLayer(vx_graph graph, vx_tensor inputs,
	vx_enum pooling_type, vx_size pooling_size_x, vx_size pooling_size_y,
	vx_size pooling_padding_x, vx_size pooling_padding_y, vx_enum rounding, vx_tensor outputs);

VX_API_ENTRY vx_node VX_API_CALL vxSoftmaxLayer(
	vx_graph graph, vx_tensor inputs, vx_tensor outputs);

/* Local response normalization with a bias of 1. */
VX_API_ENTRY vx_node VX_API_CALL vxNormalizationLayer(vx_graph graph, vx_tensor inputs,
	vx_enum type, vx_size normalization_size, vx_float32 alpha, vx_float32 beta,
	vx_tensor outputs);

/* out = in / (bias + alpha / n * sum of in^2 over the n neighbours)^beta. */
VX_API_ENTRY vx_node VX_API_CALL vxLocalResponseNormalizationLayer(vx_graph graph, vx_tensor inputs,
	vx_enum type, vx_size normalization_size, vx_float32 alpha, vx_float32 beta,
	vx_float32 bias, vx_tensor outputs);

/*
 * inputs [W, H, #IFM, (batch)], weights [KX, KY, #IFM, #OFM], biases [#OFM],
 * [W', H', #OFM] or NULL, outputs [W', H', #OFM, (batch)] with
 * W' = (W - 1) * upscale_x + KX + a_x - 2 * padding_x: the upscale is
 * inferred from the output size; size_of_deconv_params must be
 * sizeof(vx_nn_deconvolution_params_t).
 */
VX_API_ENTRY vx_node VX_API_CALL vxDeconvolutionLayer(vx_graph graph, vx_tensor inputs,
	vx_tensor weights, vx_tensor biases, const vx_nn_deconvolution_params_t *deconvolution_params,
	vx_size size_of_deconv_params, vx_tensor outputs);

/*
 * input_data [W, H, C, (batch)], input_rois [4, #ROI, (batch)] holding
 * x0, y0, x1, y1 (inclusive corners, as raw integers), output_arr
 * [W', H', C, #ROI, (batch)]: each ROI max-pooled into W' x H' bins.
 */
VX_API_ENTRY vx_node VX_API_CALL vxROIPoolingLayer(vx_graph graph, vx_tensor input_data,
	vx_tensor input_rois, const vx_nn_roi_pool_params_t *roi_pool_params,
	vx_size size_of_roi_params, vx_tensor output_arr);

/* function is a vx_nn_activation_function_e; a and b are its parameters. */
VX_API_ENTRY vx_node VX_API_CALL vxActivationLayer(vx_graph graph, vx_tensor inputs,
	vx_enum function, vx_float32 a, vx_float32 b, vx_tensor outputs);

#ifdef __cplusplus
}
#endif

#endif /* VX_KHR_NN_H */
