/* SPDX-License-Identifier: MIT */
/*
 * DRM_IOCTL_VDLA_QUERY: success and every error path, with exact errnos
 * (docs/uapi.md).
 */
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <drm/vdla_accel.h>

#include "guest_env.h"
#include "vdla_regs.h"

namespace {

class QueryIoctl : public ::testing::Test
{
protected:
	void SetUp() override
	{
		auto nodes = guest::vdlaNodes();
		ASSERT_FALSE(nodes.empty());
		node_ = nodes.front();
		fd_ = guest::openNode(node_);
		ASSERT_GE(fd_, 0);
		query_.query = DRM_VDLA_QUERY_DEVICE;
		query_.size = sizeof(info_);
		query_.data = reinterpret_cast<uintptr_t>(&info_);
	}
	void TearDown() override { ::close(fd_); }

	int run() { return guest::ioctlErrno(fd_, DRM_IOCTL_VDLA_QUERY, &query_); }

	std::string node_;
	int fd_ = -1;
	drm_vdla_query query_ = {};
	drm_vdla_query_device info_ = {};
};

TEST_F(QueryIoctl, DeviceQueryFillsEveryField)
{
	ASSERT_EQ(run(), 0);
	EXPECT_EQ(info_.pci_vendor_id, VDLA_PCI_VENDOR_ID);
	EXPECT_EQ(info_.pci_device_id, VDLA_PCI_DEVICE_ID);
	EXPECT_EQ(info_.hw_version, uint32_t(VDLA_HW_VERSION));
	EXPECT_EQ(info_.hw_caps, uint32_t(VDLA_CAPS_V2));
	EXPECT_EQ(info_.irq_vectors, uint32_t(VDLA_MSIX_VECTORS));
	EXPECT_EQ(info_.driver_major, 1u);
	EXPECT_EQ(info_.driver_minor, 12u);
	EXPECT_EQ(info_.pad0[0] | info_.pad0[1] | info_.pad0[2], 0);

	/* The PCI address is the one sysfs gives the node's device. */
	std::string link = "/sys/class/accel/" + node_.substr(node_.rfind('/') + 1) + "/device";
	char target[256] = {};
	ASSERT_GT(::readlink(link.c_str(), target, sizeof(target) - 1), 0) << link;
	std::string address = target;
	address = address.substr(address.rfind('/') + 1); /* DDDD:BB:DD.F */
	unsigned domain = 0, bus = 0, device = 0, function = 0;
	ASSERT_EQ(std::sscanf(address.c_str(), "%x:%x:%x.%x", &domain, &bus, &device, &function), 4)
		<< address;
	EXPECT_EQ(info_.pci_domain, domain);
	EXPECT_EQ(info_.pci_bus, ((domain & 0xffff) << 16) | (bus << 8) | (device << 3) | function);
}

TEST_F(QueryIoctl, SizeZeroReportsTheSizeAndWritesNothing)
{
	info_.hw_version = 0xabcdabcd;
	query_.size = 0;
	ASSERT_EQ(run(), 0);
	EXPECT_EQ(query_.size, sizeof(drm_vdla_query_device));
	EXPECT_EQ(info_.hw_version, 0xabcdabcdu);
}

TEST_F(QueryIoctl, ComputeQueryReportsAPathAndAnIsa)
{
	drm_vdla_query_compute compute;
	std::memset(&compute, 0xff, sizeof(compute));
	query_.query = DRM_VDLA_QUERY_COMPUTE;
	query_.size = 0;
	ASSERT_EQ(run(), 0);
	EXPECT_EQ(query_.size, sizeof(drm_vdla_query_compute));
	EXPECT_EQ(compute.path, 0xffffffffu) << "size 0 writes nothing";
	query_.data = reinterpret_cast<uintptr_t>(&compute);
	ASSERT_EQ(run(), 0);
	EXPECT_GE(compute.path, uint32_t(DRM_VDLA_COMPUTE_PATH_SCALAR));
	EXPECT_LE(compute.path, uint32_t(DRM_VDLA_COMPUTE_PATH_ONEDNN));
	EXPECT_LE(compute.float_isa, uint32_t(DRM_VDLA_COMPUTE_ISA_AMX));
}

/*
 * Structures can grow: a caller with an older, shorter structure gets the
 * prefix it knows and nothing past it; one with a newer, longer structure
 * gets zeros after the driver's. Either way size says the driver's.
 */
TEST_F(QueryIoctl, OtherSizesGetAPrefixOrZerosAfterTheStructure)
{
	const size_t full = sizeof(drm_vdla_query_device);
	std::vector<uint8_t> reference(full);
	query_.size = full;
	query_.data = reinterpret_cast<uintptr_t>(reference.data());
	ASSERT_EQ(run(), 0);

	for (size_t size : { size_t(1), full - 4, full + 1, full + 64, size_t(4096) }) {
		std::vector<uint8_t> buffer(size + 16, 0xa5);
		query_.size = uint32_t(size);
		query_.data = reinterpret_cast<uintptr_t>(buffer.data());
		ASSERT_EQ(run(), 0) << size;
		EXPECT_EQ(query_.size, full) << size;
		size_t filled = std::min(size, full);
		EXPECT_TRUE(std::equal(reference.begin(), reference.begin() + filled, buffer.begin()))
			<< size;
		for (size_t i = filled; i < size; i++)
			ASSERT_EQ(buffer[i], 0) << "byte " << i << " of " << size;
		for (size_t i = size; i < size + 16; i++)
			ASSERT_EQ(buffer[i], 0xa5) << "byte " << i << " past " << size;
	}
}

TEST_F(QueryIoctl, SizesAboveAPageAreRejected)
{
	for (uint32_t size : { 4097u, UINT32_MAX }) {
		query_.size = size;
		EXPECT_EQ(run(), EINVAL) << size;
	}
}

TEST_F(QueryIoctl, RejectsUnknownFlags)
{
	for (uint32_t flag : { 1u, 0x80000000u }) {
		query_.flags = flag;
		EXPECT_EQ(run(), EINVAL) << "flags " << flag;
	}
}

TEST_F(QueryIoctl, RejectsNonZeroPad)
{
	query_.pad = 1;
	EXPECT_EQ(run(), EINVAL);
}

TEST_F(QueryIoctl, RejectsUnknownQuery)
{
	for (uint32_t id : { uint32_t(DRM_VDLA_QUERY_TIME_SHARES) + 1, 0xffffffffu }) {
		query_.query = id;
		EXPECT_EQ(run(), EINVAL) << "query " << id;
	}
}

TEST_F(QueryIoctl, RejectsNullAndUnmappedPointers)
{
	query_.data = 0;
	EXPECT_EQ(run(), EFAULT);
	query_.data = 0x10;
	EXPECT_EQ(run(), EFAULT);
}

TEST_F(QueryIoctl, RejectsReadOnlyDestination)
{
	long page = ::sysconf(_SC_PAGESIZE);
	void *map = ::mmap(nullptr, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(map, MAP_FAILED);
	query_.data = reinterpret_cast<uintptr_t>(map);
	EXPECT_EQ(run(), EFAULT);
	::munmap(map, page);
}

TEST_F(QueryIoctl, RejectsBadArgumentPointer)
{
	EXPECT_EQ(guest::ioctlErrno(fd_, DRM_IOCTL_VDLA_QUERY, nullptr), EFAULT);
}

/*
 * A caller built against an older, shorter struct gets the missing fields
 * zero-filled by the DRM core: here data is cut off, so a real size fails on
 * the NULL pointer while size 0 still reports the size.
 */
TEST_F(QueryIoctl, TruncatedArgumentIsZeroExtended)
{
	unsigned long shortQuery = guest::withSize(DRM_IOCTL_VDLA_QUERY, 8);
	EXPECT_EQ(guest::ioctlErrno(fd_, shortQuery, &query_), EFAULT);

	query_.size = 0;
	EXPECT_EQ(guest::ioctlErrno(fd_, shortQuery, &query_), 0);
	EXPECT_EQ(query_.size, sizeof(drm_vdla_query_device));
}

TEST_F(QueryIoctl, UnknownIoctlNumberIsRejected)
{
	unsigned long unknown = DRM_IOWR(DRM_COMMAND_BASE + 0x3f, struct drm_vdla_query);
	EXPECT_EQ(guest::ioctlErrno(fd_, unknown, &query_), EINVAL);
}

} /* namespace */
