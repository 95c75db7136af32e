# SPDX-License-Identifier: MIT
# The OpenVX layer's host suite (vdla-vx-tests), its kernel module and the
# docs/openvx.md example. Included from tests/CMakeLists.txt.
set(VDLA_VX_TEST_DIR ${CMAKE_CURRENT_LIST_DIR})

# Loaded by vxLoadKernels("vdla_vx_test_module"); its OpenVX symbols are left
# undefined and bind to the copy of libvdla inside the test executable.
add_library(vdla_vx_test_module MODULE ${VDLA_VX_TEST_DIR}/test_module.cpp)
set_target_properties(vdla_vx_test_module PROPERTIES PREFIX lib
	OUTPUT_NAME vdla_vx_test_module)
target_include_directories(vdla_vx_test_module PRIVATE
	${CMAKE_CURRENT_SOURCE_DIR}/../umd/include)
target_compile_options(vdla_vx_test_module PRIVATE ${VDLA_TEST_WARNINGS})

add_executable(vdla-vx-tests
	${VDLA_VX_TEST_DIR}/vx_test.cpp
	${VDLA_VX_TEST_DIR}/abi_test.c
	${VDLA_VX_TEST_DIR}/object_test.cpp
	${VDLA_VX_TEST_DIR}/general_layers_test.cpp
	${VDLA_VX_TEST_DIR}/rearrangement_test.cpp
	${VDLA_VX_TEST_DIR}/elementwise_test.cpp
	${VDLA_VX_TEST_DIR}/user_kernel_test.cpp
	${VDLA_VX_TEST_DIR}/graph_test.cpp
	${VDLA_VX_TEST_DIR}/replicate_test.cpp
	${VDLA_VX_TEST_DIR}/color_convert_test.cpp
	${VDLA_VX_TEST_DIR}/directive_test.cpp
	${VDLA_VX_TEST_DIR}/image_test.cpp
	${VDLA_VX_TEST_DIR}/image_u1_test.cpp
	${VDLA_VX_TEST_DIR}/image_view_test.cpp
	${VDLA_VX_TEST_DIR}/tensor_view_test.cpp
	${VDLA_VX_TEST_DIR}/user_struct_test.cpp
	${VDLA_VX_TEST_DIR}/huge_sizes_test.cpp
	${VDLA_VX_TEST_DIR}/api_exceptions_test.cpp
	${VDLA_VX_TEST_DIR}/immediate_test.cpp
	${VDLA_VX_TEST_DIR}/tensor_ops_test.cpp
	${VDLA_VX_TEST_DIR}/nn_test.cpp
	${VDLA_VX_TEST_DIR}/nn_uint8_test.cpp
	${VDLA_VX_TEST_DIR}/nn_rounding_mode_test.cpp
	${VDLA_VX_TEST_DIR}/nn_upsampling_test.cpp
	${VDLA_VX_TEST_DIR}/dla_lrn_table_test.cpp
	${VDLA_VX_TEST_DIR}/dla_lut_test.cpp
	${VDLA_VX_TEST_DIR}/dla_softmax_math_test.cpp
	${VDLA_VX_TEST_DIR}/dla_sram_share_test.cpp)
target_compile_options(vdla-vx-tests PRIVATE ${VDLA_TEST_WARNINGS})
# nn_test.cpp also checks nn_layers.h, the interface the DLA lowering shares.
target_include_directories(vdla-vx-tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/../umd/src/vx)
# Link every object of libvdla so that the module finds all of the API.
target_link_libraries(vdla-vx-tests PRIVATE
	"$<LINK_LIBRARY:WHOLE_ARCHIVE,vdla_static>" GTest::gtest_main Threads::Threads dl)
set_target_properties(vdla-vx-tests PROPERTIES ENABLE_EXPORTS ON
	BUILD_RPATH $<TARGET_FILE_DIR:vdla_vx_test_module>)
add_dependencies(vdla-vx-tests vdla_vx_test_module)

# The example of docs/openvx.md, compiled as C so the headers stay C-clean.
add_executable(vdla-vx-example ${CMAKE_CURRENT_SOURCE_DIR}/../docs/examples/openvx_tensor_add.c)
target_compile_options(vdla-vx-example PRIVATE ${VDLA_TEST_WARNINGS})
target_link_libraries(vdla-vx-example PRIVATE vdla_shared)
