# Engine test sources (vdla-engine-tests), relative to tests/host/engines.
set(VDLA_ENGINE_TEST_SOURCES
	engine_util.cpp
	reference_test.cpp
	bdma_test.cpp
	conv_test.cpp
	sdp_test.cpp
	pdp_test.cpp
	cdp_test.cpp
	rubik_test.cpp
	fusion_test.cpp
	pingpong_test.cpp
	in_place_test.cpp
)
