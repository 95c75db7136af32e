/* SPDX-License-Identifier: MIT */
/*
 * Probe: every device is found, and what the driver reports matches what
 * the hardware says when read without the driver.
 */
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <xf86drm.h>

#include <drm/vdla_accel.h>
#include <vdla/device.h>

#include "guest_env.h"
#include "vdla_regs.h"

namespace {

std::string sysfsDevice(const vdla::DeviceInfo &info)
{
	return "/sys/bus/pci/devices/" + info.pciAddress;
}

unsigned long hexAttribute(const std::string &path)
{
	return std::strtoul(guest::readSysfs(path).c_str(), nullptr, 16);
}

TEST(Probe, FindsEveryDevice)
{
	EXPECT_EQ(static_cast<int>(guest::vdlaNodes().size()), guest::expectedDevices());
}

TEST(Probe, EveryDeviceOpensAndIdentifies)
{
	for (const auto &node : guest::vdlaNodes()) {
		auto device = vdla::Device::open(node);
		ASSERT_TRUE(device.ok()) << device.error().message();
		EXPECT_EQ((*device)->info().node, node);
	}
}

TEST(Probe, QueryMatchesPciConfigSpace)
{
	for (const auto &node : guest::vdlaNodes()) {
		auto device = vdla::Device::open(node);
		ASSERT_TRUE(device.ok()) << device.error().message();
		const auto &info = (*device)->info();
		std::string sys = sysfsDevice(info);

		EXPECT_EQ(info.pciVendorId, hexAttribute(sys + "/vendor"));
		EXPECT_EQ(info.pciDeviceId, hexAttribute(sys + "/device"));
		EXPECT_EQ(info.pciRevision, hexAttribute(sys + "/revision"));
		/* The accel node must belong to that PCI function. */
		std::string accel = node.substr(node.rfind('/') + 1);
		EXPECT_EQ(::access((sys + "/accel/" + accel).c_str(), F_OK), 0) << sys << " " << accel;
	}
}

TEST(Probe, DriverVersionMatchesDrmVersion)
{
	for (const auto &node : guest::vdlaNodes()) {
		auto device = vdla::Device::open(node);
		ASSERT_TRUE(device.ok()) << device.error().message();
		drmVersionPtr version = drmGetVersion((*device)->fd());
		ASSERT_NE(version, nullptr);
		const auto &driver = (*device)->info().driverVersion;
		EXPECT_STREQ(version->name, "vdla");
		EXPECT_EQ(static_cast<int>(driver.major), version->version_major);
		EXPECT_EQ(static_cast<int>(driver.minor), version->version_minor);
		EXPECT_EQ(static_cast<int>(driver.patch), version->version_patchlevel);
		drmFreeVersion(version);
	}
}

/*
 * Reads the identification registers through the PCI resource file, with the
 * driver unbound (the kernel forbids mapping a BAR a driver has claimed), and
 * compares them with what the driver reported. Rebinds afterwards.
 */
TEST(Probe, QueryMatchesRegistersReadWithoutTheDriver)
{
	auto nodes = guest::vdlaNodes();
	ASSERT_FALSE(nodes.empty());
	vdla::DeviceInfo info;
	vdla::ComputeInfo reported;
	{
		auto device = vdla::Device::open(nodes.front());
		ASSERT_TRUE(device.ok()) << device.error().message();
		info = (*device)->info();
		auto compute = (*device)->compute();
		ASSERT_TRUE(compute.ok()) << compute.error().message();
		reported = *compute;
	}
	std::string sys = sysfsDevice(info);

	ASSERT_EQ(guest::writeSysfs("/sys/bus/pci/drivers/vdla/unbind", info.pciAddress), 0);

	uint32_t id = 0, version = 0, caps = 0, vectors = 0, compute = 0;
	int fd = ::open((sys + "/resource0").c_str(), O_RDWR | O_SYNC | O_CLOEXEC);
	EXPECT_GE(fd, 0);
	if (fd >= 0) {
		void *map = ::mmap(nullptr, VDLA_MMIO_SIZE, PROT_READ, MAP_SHARED, fd, 0);
		EXPECT_NE(map, MAP_FAILED);
		if (map != MAP_FAILED) {
			auto regs = static_cast<volatile uint32_t *>(map);
			id = regs[VDLA_REG_ID / 4];
			version = regs[VDLA_REG_VERSION / 4];
			caps = regs[VDLA_REG_CAPS / 4];
			vectors = regs[VDLA_REG_IRQ_VECTORS / 4];
			compute = regs[VDLA_REG_COMPUTE / 4];
			::munmap(map, VDLA_MMIO_SIZE);
		}
		::close(fd);
	}

	ASSERT_EQ(guest::writeSysfs("/sys/bus/pci/drivers/vdla/bind", info.pciAddress), 0);
	ASSERT_TRUE(guest::waitForNodes(guest::expectedDevices(), std::chrono::seconds(5)));

	EXPECT_EQ(id, uint32_t(VDLA_ID_MAGIC));
	EXPECT_EQ(vdla::Version::fromRegister(version), info.hardwareVersion);
	EXPECT_EQ(caps, info.capabilities);
	EXPECT_EQ(vectors, info.irqVectors);
	EXPECT_EQ(VDLA_COMPUTE_PATH(compute), reported.path);
	EXPECT_EQ(VDLA_COMPUTE_FLOAT_ISA(compute), reported.floatIsa);
	EXPECT_GE(reported.path, uint32_t(VDLA_COMPUTE_PATH_SCALAR));
	EXPECT_LT(reported.path, uint32_t(VDLA_COMPUTE_PATHS));
}

} /* namespace */
