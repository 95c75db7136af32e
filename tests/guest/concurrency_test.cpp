/* SPDX-License-Identifier: MIT */
/*
 * Many threads opening, querying and closing every node at once, and
 * sharing the test interrupt.
 */
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <thread>
#include <vector>

#include <drm/vdla_accel.h>

#include "guest_env.h"

namespace {

TEST(Concurrency, OpenQueryCloseFromManyThreads)
{
	const auto nodes = guest::vdlaNodes();
	ASSERT_FALSE(nodes.empty());
	constexpr int kThreads = 16;
	constexpr int kIterations = 200;
	std::atomic<int> failures{ 0 };

	std::vector<std::thread> threads;
	for (int t = 0; t < kThreads; t++) {
		threads.emplace_back([&, t] {
			for (int i = 0; i < kIterations; i++) {
				const std::string &node = nodes[(t + i) % nodes.size()];
				int fd = guest::openNode(node);
				if (fd < 0) {
					failures++;
					continue;
				}
				drm_vdla_query_device info = {};
				drm_vdla_query query = {};
				query.query = DRM_VDLA_QUERY_DEVICE;
				query.size = sizeof(info);
				query.data = reinterpret_cast<uintptr_t>(&info);
				if (guest::ioctlErrno(fd, DRM_IOCTL_VDLA_QUERY, &query) != 0 ||
				    info.pci_vendor_id == 0)
					failures++;
				::close(fd);
			}
		});
	}
	for (auto &thread : threads)
		thread.join();
	EXPECT_EQ(failures.load(), 0);
}

TEST(Concurrency, TestInterruptFromManyThreads)
{
	const auto nodes = guest::vdlaNodes();
	ASSERT_FALSE(nodes.empty());
	constexpr int kThreads = 8;
	constexpr int kIterations = 50;
	std::atomic<int> failures{ 0 };

	std::vector<std::thread> threads;
	for (int t = 0; t < kThreads; t++) {
		threads.emplace_back([&, t] {
			int fd = guest::openNode(nodes[t % nodes.size()]);
			if (fd < 0) {
				failures++;
				return;
			}
			for (int i = 0; i < kIterations; i++) {
				drm_vdla_test_irq args = {};
				args.timeout_ms = 5000;
				if (guest::ioctlErrno(fd, DRM_IOCTL_VDLA_TEST_IRQ, &args) != 0)
					failures++;
			}
			::close(fd);
		});
	}
	for (auto &thread : threads)
		thread.join();
	EXPECT_EQ(failures.load(), 0);
}

} /* namespace */
