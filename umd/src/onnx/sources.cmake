# SPDX-License-Identifier: MIT
# libvdla-onnx: ONNX import and the CPU kernels (docs/onnx.md). A library of
# its own because it links libonnx and protobuf, which the rest of libvdla and
# the static guest tools do not need.
set(VDLA_ONNX_SOURCES
	src/onnx/tensor.cpp src/onnx/tensor_proto.cpp src/onnx/tensor_util.cpp
	src/onnx/graph.cpp src/onnx/graph_import.cpp src/onnx/graph_fold.cpp
	src/onnx/graph_qdq_fusion.cpp src/onnx/graph_rewrite.cpp src/onnx/cpu_executor.cpp
	src/onnx/op_kernel.cpp src/onnx/model.cpp src/onnx/conv_geometry.cpp
	src/onnx/dla_support.cpp src/onnx/dla_quant_conv.cpp src/onnx/dla_segment.cpp src/onnx/dla_segment_moves.cpp
	src/onnx/dla_segment_elementwise.cpp src/onnx/run_plan.cpp
	src/onnx/shape_pass.cpp)
file(GLOB VDLA_ONNX_OP_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/onnx/ops/*.cpp)
list(APPEND VDLA_ONNX_SOURCES ${VDLA_ONNX_OP_SOURCES})
