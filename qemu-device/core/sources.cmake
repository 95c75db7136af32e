# The device core's sources, for the host test build. qemu-device/meson.build
# lists the same files for QEMU.
set(VDLA_CORE_SOURCES
	vdla_core.c
	engine.c
	mem.c
	mmu.c
	engine_bdma.c
	engine_conv.c
	compute_path.c
	conv_int.c
	conv_int_scalar.c
	conv_int_avx2.c
	conv_onednn.c
	engine_sdp.c
	engine_pdp.c
	engine_cdp.c
	engine_rubik.c
	row_io.c
	scratch.c
)
