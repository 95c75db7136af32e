# SPDX-License-Identifier: MIT
# The OpenVX 1.3.1 layer (headers in include/VX), paths relative to umd/;
# docs/architecture.md says what each folder holds.
list(APPEND VDLA_SOURCES
	src/vx/framework/context.cpp
	src/vx/framework/graph.cpp
	src/vx/framework/graph_order.cpp
	src/vx/framework/graph_run.cpp
	src/vx/framework/graph_verify.cpp
	src/vx/framework/immediate.cpp
	src/vx/framework/kernel.cpp
	src/vx/framework/reference.cpp
	src/vx/framework/replicate.cpp
	src/vx/framework/schedule.cpp
	src/vx/framework/user_struct.cpp
	src/vx/nn/nn_kernels.cpp
	src/vx/nn/nn_math.cpp
	src/vx/nn/nn_rearrange.cpp
	src/vx/nn/exact_sum.cpp
	src/vx/nn/tensor_ops.cpp
	src/vx/objects/data.cpp
	src/vx/objects/image.cpp
	src/vx/objects/image_bits.cpp
	src/vx/objects/image_view.cpp
	src/vx/objects/lut.cpp
	src/vx/objects/object_array.cpp
	src/vx/objects/tensor_layout.cpp
	src/vx/objects/tensor_view.cpp
	src/vx/targets/cpu/cpu_target.cpp
	src/vx/targets/cpu/nn_cpu.cpp
	src/vx/targets/dla/dla_buffer_tensor.cpp
	src/vx/targets/dla/dla_device.cpp
	src/vx/targets/dla/dla_lower.cpp
	src/vx/targets/dla/dla_lower_lrn.cpp
	src/vx/targets/dla/dla_lower_rearrange.cpp
	src/vx/targets/dla/dla_lower_elementwise.cpp
	src/vx/targets/dla/dla_lower_dequantize.cpp
	src/vx/targets/dla/dla_lower_lrn_float.cpp
	src/vx/targets/dla/dla_lower_lut.cpp
	src/vx/targets/dla/dla_lower_softmax.cpp
	src/vx/targets/dla/dla_lower_convolution.cpp
	src/vx/targets/dla/dla_lower_sqrt.cpp
	src/vx/targets/dla/dla_placement.cpp
	src/vx/targets/dla/dla_plan.cpp
	src/vx/targets/dla/dla_sram_share.cpp
	src/vx/targets/dla/dla_target.cpp
	src/vx/targets/targets.cpp
	src/vx/vision/color_convert.cpp)
