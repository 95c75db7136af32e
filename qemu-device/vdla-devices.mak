# The device list of vdla's QEMU build: a q35 PC with serial ports, the
# isa-debug-exit port, PCIe root ports (the only hotpluggable slots of a q35:
# tests/harness/device-lifetime-test unplugs a vDLA from one) and the vDLA.
# Everything else is left out so the build stays small and fast.
CONFIG_Q35=y
CONFIG_PCIE_PORT=y
CONFIG_SERIAL_ISA=y
CONFIG_ISA_DEBUG=y
CONFIG_VDLA=y
