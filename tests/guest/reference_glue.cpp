/* SPDX-License-Identifier: MIT */
/*
 * What the CPU reference (tests/host/reference) needs of the host's device
 * harness and the guest binaries lack: vdla_core_sram, which only the
 * reference's load()/store() into a DeviceHarness reach and the guest never
 * calls. The tensor-descriptor arithmetic is host/harness/tensor_desc.cpp.
 */
#include <cstdio>
#include <cstdlib>

#include "device_harness.h"

extern "C" uint8_t *vdla_core_sram(struct vdla_core *)
{
	std::fprintf(stderr, "vdla_core_sram: there is no device core in the guest\n");
	std::abort();
}
