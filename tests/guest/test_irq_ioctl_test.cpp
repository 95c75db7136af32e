/* SPDX-License-Identifier: MIT */
/*
 * DRM_IOCTL_VDLA_TEST_IRQ: the interrupt round trip through MSI-X and the
 * threaded handler, its timeout, and every error path.
 */
#include <gtest/gtest.h>

#include <unistd.h>

#include <cerrno>
#include <chrono>

#include <drm/vdla_accel.h>
#include <vdla/device.h>

#include "guest_env.h"

namespace {

using namespace std::chrono_literals;

class TestIrqIoctl : public ::testing::Test
{
protected:
	void SetUp() override
	{
		auto nodes = guest::vdlaNodes();
		ASSERT_FALSE(nodes.empty());
		fd_ = guest::openNode(nodes.front());
		ASSERT_GE(fd_, 0);
		args_.timeout_ms = 2000;
	}
	void TearDown() override { ::close(fd_); }

	int run() { return guest::ioctlErrno(fd_, DRM_IOCTL_VDLA_TEST_IRQ, &args_); }

	int fd_ = -1;
	drm_vdla_test_irq args_ = {};
};

TEST_F(TestIrqIoctl, InterruptRoundTripsRepeatedly)
{
	for (int i = 0; i < 200; i++) {
		args_.latency_ns = 0;
		ASSERT_EQ(run(), 0) << "round trip " << i;
		EXPECT_GT(args_.latency_ns, 0u);
		EXPECT_LT(args_.latency_ns, 2000ull * 1000 * 1000);
	}
}

TEST_F(TestIrqIoctl, EveryDeviceRaisesItsOwnInterrupt)
{
	for (const auto &node : guest::vdlaNodes()) {
		auto device = vdla::Device::open(node);
		ASSERT_TRUE(device.ok()) << device.error().message();
		auto latency = (*device)->testInterrupt(2000ms);
		EXPECT_TRUE(latency.ok()) << node << ": " << latency.error().message();
	}
}

TEST_F(TestIrqIoctl, MaskedInterruptTimesOut)
{
	args_.flags = DRM_VDLA_TEST_IRQ_FLAG_MASKED;
	args_.timeout_ms = 50;
	auto start = std::chrono::steady_clock::now();
	EXPECT_EQ(run(), ETIMEDOUT);
	/* A timeout means the driver waited the whole time it was asked to. */
	EXPECT_GE(std::chrono::steady_clock::now() - start, 50ms);
}

TEST_F(TestIrqIoctl, InterruptWorksAgainAfterATimeout)
{
	args_.flags = DRM_VDLA_TEST_IRQ_FLAG_MASKED;
	args_.timeout_ms = 20;
	ASSERT_EQ(run(), ETIMEDOUT);

	args_.flags = 0;
	args_.timeout_ms = 2000;
	EXPECT_EQ(run(), 0);
}

TEST_F(TestIrqIoctl, RejectsUnknownFlags)
{
	for (uint32_t flag : { 1u << 1, 1u << 31 }) {
		args_.flags = flag;
		EXPECT_EQ(run(), EINVAL) << "flags " << flag;
	}
}

TEST_F(TestIrqIoctl, RejectsZeroTimeout)
{
	args_.timeout_ms = 0;
	EXPECT_EQ(run(), EINVAL);
}

TEST_F(TestIrqIoctl, RejectsTimeoutAboveMaximum)
{
	args_.timeout_ms = DRM_VDLA_TEST_IRQ_MAX_TIMEOUT_MS + 1;
	EXPECT_EQ(run(), EINVAL);
	args_.timeout_ms = UINT32_MAX;
	EXPECT_EQ(run(), EINVAL);
}

TEST_F(TestIrqIoctl, TruncatedArgumentIsRejected)
{
	/* Without timeout_ms the DRM core zero-fills it, which is invalid. */
	unsigned long shortCall = guest::withSize(DRM_IOCTL_VDLA_TEST_IRQ, 4);
	EXPECT_EQ(guest::ioctlErrno(fd_, shortCall, &args_), EINVAL);
}

TEST_F(TestIrqIoctl, RejectsBadArgumentPointer)
{
	EXPECT_EQ(guest::ioctlErrno(fd_, DRM_IOCTL_VDLA_TEST_IRQ, nullptr), EFAULT);
	EXPECT_EQ(guest::ioctlErrno(fd_, DRM_IOCTL_VDLA_TEST_IRQ, reinterpret_cast<void *>(0x10)),
		  EFAULT);
}

TEST_F(TestIrqIoctl, LibraryRejectsOutOfRangeTimeoutBeforeTheKernel)
{
	auto device = vdla::Device::open(guest::vdlaNodes().front());
	ASSERT_TRUE(device.ok());
	auto result = (*device)->testInterrupt(0ms);
	ASSERT_FALSE(result.ok());
	EXPECT_EQ(result.error().code(), EINVAL);
}

} /* namespace */
