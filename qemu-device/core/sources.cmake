# The device core's sources, for the host test build. qemu-device/meson.build
# lists the same files for QEMU.
set(VDLA_CORE_SOURCES
	vdla_core.c
)
