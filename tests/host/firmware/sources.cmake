# SPDX-License-Identifier: MIT
# Firmware test sources (vdla-firmware-tests), relative to tests/host/firmware.
# The executable also links vdla_device_harness, the reference
# (tests/host/reference/*.cpp), GTest and vdla_firmware (firmware/*.c).
# fuzz_validate.cpp and gen_fuzz_corpus.cpp are separate programs, not listed.
set(VDLA_FIRMWARE_TEST_SOURCES
	test_port.cpp
	task_builder.cpp
	port_test.cpp
	operations_test.cpp
	graph_test.cpp
	fusion_test.cpp
	validation_test.cpp
	control_test.cpp
	network_test.cpp
	statistics_test.cpp
	multi_device_test.cpp
	register_shadow_test.cpp
)
