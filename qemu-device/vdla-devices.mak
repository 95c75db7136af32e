# The device list of vdla's QEMU build: a q35 PC with serial ports, the
# isa-debug-exit port and the vDLA. Everything else is left out so the build
# stays small and fast.
CONFIG_Q35=y
CONFIG_SERIAL_ISA=y
CONFIG_ISA_DEBUG=y
CONFIG_VDLA=y
