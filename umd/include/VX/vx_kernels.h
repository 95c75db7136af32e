/* SPDX-License-Identifier: MIT */
/*
 * Standard kernel enumerations (OpenVX 1.3.1 values). vdla lists the kernel
 * library id, the color conversion and the tensor kernels of the vision
 * feature set; the other vision kernels are not provided by this
 * implementation.
 */
#ifndef VX_KERNELS_H
#define VX_KERNELS_H

#ifdef __cplusplus
extern "C" {
#endif

enum vx_library_e {
	VX_LIBRARY_KHR_BASE = 0x0,
};

enum vx_kernel_e {
	VX_KERNEL_COLOR_CONVERT = VX_KERNEL_BASE(VX_ID_KHRONOS, VX_LIBRARY_KHR_BASE) + 0x1,
	VX_KERNEL_TENSOR_MULTIPLY = VX_KERNEL_BASE(VX_ID_KHRONOS, VX_LIBRARY_KHR_BASE) + 0x30,
	VX_KERNEL_TENSOR_ADD = VX_KERNEL_BASE(VX_ID_KHRONOS, VX_LIBRARY_KHR_BASE) + 0x31,
	VX_KERNEL_TENSOR_SUBTRACT = VX_KERNEL_BASE(VX_ID_KHRONOS, VX_LIBRARY_KHR_BASE) + 0x32,
	VX_KERNEL_TENSOR_TABLE_LOOKUP = VX_KERNEL_BASE(VX_ID_KHRONOS, VX_LIBRARY_KHR_BASE) + 0x33,
	VX_KERNEL_TENSOR_TRANSPOSE = VX_KERNEL_BASE(VX_ID_KHRONOS, VX_LIBRARY_KHR_BASE) + 0x34,
	VX_KERNEL_TENSOR_CONVERT_DEPTH = VX_KERNEL_BASE(VX_ID_KHRONOS, VX_LIBRARY_KHR_BASE) + 0x35,
	VX_KERNEL_TENSOR_MATRIX_MULTIPLY
	= VX_KERNEL_BASE(VX_ID_KHRONOS, VX_LIBRARY_KHR_BASE) + 0x36,
	VX_KERNEL_COPY = VX_KERNEL_BASE(VX_ID_KHRONOS, VX_LIBRARY_KHR_BASE) + 0x37,
};

#ifdef __cplusplus
}
#endif

#endif /* VX_KERNELS_H */
