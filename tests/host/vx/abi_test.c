/* SPDX-License-Identifier: MIT */
/*
 * The binary layout of the OpenVX structures applications pass by pointer,
 * checked at compile time against the layout of the Khronos 1.3.1 headers
 * on LP64 (a program built against either must work with libvdla). Built as
 * C, which also keeps the headers C-clean.
 */
#include <VX/vx.h>
#include <VX/vx_compatibility.h>
#include <VX/vx_khr_nn.h>
#include <VX/vxu.h>

#include <stddef.h>

_Static_assert(sizeof(vx_imagepatch_addressing_t) == 32, "image patch size");
_Static_assert(offsetof(vx_imagepatch_addressing_t, step_y) == 28, "step_y is 16 bits");
_Static_assert(offsetof(vx_imagepatch_addressing_t, stride_x_bits) == 30, "stride_x_bits");
_Static_assert(sizeof(vx_nn_convolution_params_t) == 48, "convolution settings");
_Static_assert(sizeof(vx_nn_deconvolution_params_t) == 40, "deconvolution settings");
_Static_assert(offsetof(vx_nn_deconvolution_params_t, a_x) == 24, "a_x");
_Static_assert(sizeof(vx_nn_roi_pool_params_t) == 4, "ROI pooling settings");
_Static_assert(VX_CONTEXT_ATTRIBUTE_IMMEDIATE_BORDER_MODE == VX_CONTEXT_IMMEDIATE_BORDER,
	"the 1.0 names are the current attributes");
_Static_assert(offsetof(vx_nn_convolution_params_t, dilation_x) == 32, "dilation_x");
_Static_assert(sizeof(vx_perf_t) == 64, "performance record");
_Static_assert(sizeof(vx_rectangle_t) == 16, "rectangle");
_Static_assert(sizeof(vx_pixel_value_t) == 16, "pixel value");
_Static_assert(sizeof(vx_border_t) == 20, "border");
_Static_assert(sizeof(vx_kernel_info_t) == 4 + VX_MAX_KERNEL_NAME, "kernel info");
_Static_assert(sizeof(vx_keypoint_t) == 28, "keypoint");
_Static_assert(sizeof(vx_hog_t) == 40, "HOG settings");

_Static_assert(VX_ID_DEFAULT == 0xFFF, "vendors without an id use VX_ID_MAX");
_Static_assert(VX_TYPE_NN_CONVOLUTION_PARAMS == 0x025, "NN struct types");
_Static_assert(VX_TYPE_NN_ROI_POOL_PARAMS == 0x027, "NN struct types");
_Static_assert(VX_PARAMETER_META_FORMAT == VX_ATTRIBUTE_BASE(VX_ID_KHRONOS, VX_TYPE_PARAMETER) + 5,
	"parameter meta format");
