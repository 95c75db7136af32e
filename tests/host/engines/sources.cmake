# Engine test sources (vdla-engine-tests), relative to tests/host/engines.
set(VDLA_ENGINE_TEST_SOURCES
)
