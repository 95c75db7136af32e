# Device-level test sources (MMU, SRAM, reset, fault injection), relative to
# tests/host/device; they join vdla-host-tests.
set(VDLA_DEVICE_TEST_SOURCES
)
