# Device-level test sources (MMU, SRAM, reset, fault injection), relative to
# tests/host/device; they join vdla-host-tests.
set(VDLA_DEVICE_TEST_SOURCES
	device_test_util.cpp
	arith_test.cpp
	compute_path_test.cpp
	conv_kernels_test.cpp
	memory_bound_test.cpp
	random_program_test.cpp
	worker_threads_test.cpp
	engine_model_test.cpp
	fault_injection_test.cpp
	mmu_test.cpp
	register_errors_test.cpp
	reset_test.cpp
	sram_test.cpp
)
