# SPDX-License-Identifier: MIT
# The ONNX import suite (vdla-onnx-tests): the import rules on models written
# in the test, and the ONNX backend cases of libonnx-testdata on the CPU.
# Included from tests/CMakeLists.txt.
set(VDLA_ONNX_TEST_DIR ${CMAKE_CURRENT_LIST_DIR})
add_executable(vdla-onnx-tests
	${VDLA_ONNX_TEST_DIR}/model_builder.cpp
	${VDLA_ONNX_TEST_DIR}/import_test.cpp
	${VDLA_ONNX_TEST_DIR}/qdq_fusion_test.cpp
	${VDLA_ONNX_TEST_DIR}/operator_scope.cpp
	${VDLA_ONNX_TEST_DIR}/backend_cases_test.cpp
	${VDLA_ONNX_TEST_DIR}/digits_model_test.cpp
	${VDLA_ONNX_TEST_DIR}/dla_support_test.cpp
	${VDLA_ONNX_TEST_DIR}/hostile_model_test.cpp
	${CMAKE_CURRENT_SOURCE_DIR}/../umd/tools/onnx_run/case_runner.cpp)
target_compile_options(vdla-onnx-tests PRIVATE ${VDLA_TEST_WARNINGS})
target_compile_definitions(vdla-onnx-tests PRIVATE
	VDLA_MODELS_DIR="${CMAKE_CURRENT_SOURCE_DIR}/../umd/examples/models")
target_link_libraries(vdla-onnx-tests PRIVATE vdla_onnx onnx_proto protobuf::libprotobuf
	GTest::gtest_main)
