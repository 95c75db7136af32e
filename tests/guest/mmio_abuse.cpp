/* SPDX-License-Identifier: MIT */
/*
 * vdla-mmio-abuse: unbinds the driver from the first vDLA, then writes and
 * reads BAR0 the way a buggy driver might (unimplemented offsets, 1/2/8-byte
 * and unaligned accesses, read-only registers, values a register refuses),
 * checks that the device still identifies itself and kept its state, and
 * rebinds the driver. The host side checks QEMU logged each as a guest error
 * (tests/harness/guest-run-test). Exits 0 when the device survived intact.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include <vdla/device.h>

#include "guest_env.h"
#include "vdla_regs.h"

namespace {

int fail(const char *what)
{
	std::fprintf(stderr, "vdla-mmio-abuse: %s\n", what);
	return 1;
}

} /* namespace */

int main()
{
	auto nodes = guest::vdlaNodes();
	if (nodes.empty())
		return fail("no vDLA device");
	auto device = vdla::Device::open(nodes.front());
	if (!device)
		return fail("cannot open the device");
	std::string address = (*device)->info().pciAddress;
	device.value().reset();

	if (guest::writeSysfs("/sys/bus/pci/drivers/vdla/unbind", address))
		return fail("cannot unbind the driver");
	std::string resource = "/sys/bus/pci/devices/" + address + "/resource0";
	int fd = ::open(resource.c_str(), O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0)
		return fail("cannot open resource0");
	void *map = ::mmap(nullptr, VDLA_MMIO_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return fail("cannot map BAR0");
	auto *bar = static_cast<volatile uint8_t *>(map);
	auto reg = [&](uint32_t offset) -> volatile uint32_t & {
		return *reinterpret_cast<volatile uint32_t *>(bar + offset);
	};

	reg(VDLA_REG_SCRATCH(0)) = 0x12345678;

	/*
	 * Unimplemented offsets, in every block. Reads go to a volatile sink:
	 * a discarded volatile reference returned by a call is never loaded.
	 */
	volatile uint32_t sink = 0;
	for (uint32_t offset : { 0x0ffcu, 0x1ffcu, 0x2ffcu, 0x3000u, 0x4ffcu, 0x9ffcu, 0xfffcu }) {
		reg(offset) = 0xdeadbeef;
		sink = reg(offset);
	}
	(void)sink;
	/* Read-only registers. */
	reg(VDLA_REG_ID) = 0;
	reg(VDLA_REG_VERSION) = 0;
	reg(VDLA_REG_MMU_FAULT_STATUS) = 0xffffffff;
	/* Values the registers refuse. */
	reg(VDLA_REG_RESET) = 0x2;
	reg(VDLA_REG_INT_ENABLE) = 0x40000000;
	reg(VDLA_REG_INT_SET) = 0x1;
	reg(VDLA_REG_MMU_CTRL) = 0x80;
	reg(VDLA_REG_MMU_CTX_BASE_LO(0)) = 0x00000ffe;
	reg(VDLA_REG_FI_MODE(0)) = 99;
	reg(VDLA_ENGINE_BASE(VDLA_ENGINE_CONV) + VDLA_E_POINTER) = 0xff;
	/* Wrong sizes and alignment. */
	bar[VDLA_REG_SCRATCH(0)] = 0xff;
	*reinterpret_cast<volatile uint16_t *>(bar + VDLA_REG_SCRATCH(0)) = 0xffff;
	*reinterpret_cast<volatile uint64_t *>(bar + VDLA_REG_SCRATCH(0)) = ~0ull;
	*reinterpret_cast<volatile uint32_t *>(bar + VDLA_REG_SCRATCH(0) + 1) = 0;
	(void)bar[VDLA_REG_ID];
	(void)*reinterpret_cast<volatile uint64_t *>(bar + VDLA_REG_VERSION);
	/* A 64-bit read at an 8-aligned offset is two registers (3.1). */
	const uint64_t pair = *reinterpret_cast<volatile uint64_t *>(bar + VDLA_REG_ID);

	int status = 0;
	if (pair != (VDLA_ID_MAGIC | uint64_t(VDLA_HW_VERSION) << 32))
		status = fail("a 64-bit read of ID is not ID and VERSION");
	if (reg(VDLA_REG_ID) != VDLA_ID_MAGIC)
		status = fail("ID changed");
	if (reg(VDLA_REG_VERSION) != VDLA_HW_VERSION)
		status = fail("VERSION changed");
	if (reg(VDLA_REG_SCRATCH(0)) != 0x12345678)
		status = fail("a bad access changed SCRATCH0");
	if (reg(VDLA_REG_RESET_COUNT) != 0 && reg(VDLA_REG_INT_ENABLE) != 0)
		status = fail("a refused value changed state");
	if (reg(VDLA_REG_MMU_CTRL) != 0 || reg(VDLA_REG_FI_MODE(0)) != 0)
		status = fail("a refused MMU or FI value was taken");

	::munmap(map, VDLA_MMIO_SIZE);
	::close(fd);
	if (guest::writeSysfs("/sys/bus/pci/drivers/vdla/bind", address))
		return fail("cannot rebind the driver");
	if (!guest::waitForNodes(guest::expectedDevices(), std::chrono::seconds(5)))
		return fail("the driver did not come back");
	if (status == 0)
		std::printf("vdla-mmio-abuse: device intact after bad accesses\n");
	return status;
}
