# SPDX-License-Identifier: MIT
# The OpenVX 1.3.1 layer (headers in include/VX), paths relative to umd/.
list(APPEND VDLA_SOURCES
	src/vx/context.cpp
	src/vx/data.cpp
	src/vx/dla_device.cpp
	src/vx/dla_lower.cpp
	src/vx/dla_lower_lrn.cpp
	src/vx/dla_lower_lrn_float.cpp
	src/vx/dla_lower_lut.cpp
	src/vx/dla_lower_softmax.cpp
	src/vx/dla_lower_sqrt.cpp
	src/vx/dla_placement.cpp
	src/vx/dla_plan.cpp
	src/vx/dla_sram_share.cpp
	src/vx/graph.cpp
	src/vx/image.cpp
	src/vx/image_bits.cpp
	src/vx/image_view.cpp
	src/vx/immediate.cpp
	src/vx/kernel.cpp
	src/vx/nn_cpu.cpp
	src/vx/nn_kernels.cpp
	src/vx/nn_math.cpp
	src/vx/reference.cpp
	src/vx/tensor_layout.cpp
	src/vx/tensor_ops.cpp
	src/vx/tensor_view.cpp
	src/vx/user_struct.cpp)
