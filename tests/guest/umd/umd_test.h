/* SPDX-License-Identifier: MIT */
/*
 * The in-guest suite of libvdla's low-level C++ API (vdla-umd-tests): every
 * class against the real driver. Only libvdla reaches the kernel here, but
 * for debugfs fault injection (tests/guest/submit_env.h) to slow jobs down.
 */
#pragma once

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <vdla/buffer.h>
#include <vdla/context.h>
#include <vdla/device.h>
#include <vdla/fence.h>
#include <vdla/task_builder.h>

namespace umd_test {

using namespace std::chrono_literals;

/* In a child: prints @what with @r's error and returns @status if @r failed. */
#define CHILD_CHECK(r, status, what)                                                   \
	do {                                                                           \
		if (!(r)) {                                                            \
			fprintf(stderr, "child: %s: %s\n", what,                       \
				(r).error().message().c_str());                        \
			return status;                                                 \
		}                                                                      \
	} while (0)

/* How long a test waits for a job before it fails. */
constexpr std::chrono::seconds kJobTimeout{ 10 };

/* Prints the Error of a failed Result in the assertion message. */
template <typename T>::testing::AssertionResult succeeded(const vdla::Result<T> &r)
{
	if (r)
		return ::testing::AssertionSuccess();
	return ::testing::AssertionFailure() << r.error().message();
}

/* A copy of @bytes bytes from @src to @dst (marked with @dstUse). */
vdla::TaskBuilder copyTask(const vdla::Buffer &src, const vdla::Buffer &dst,
	vdla::BufferUse dstUse = vdla::BufferUse::Write, uint32_t bytes = 256);

class UmdTest : public ::testing::Test
{
protected:
	void SetUp() override;

	/* Opens the first vdla node again: another file, another address space. */
	std::unique_ptr<vdla::Device> openAgain();
	std::unique_ptr<vdla::Buffer> buffer(uint64_t size, vdla::Device *device = nullptr);
	std::unique_ptr<vdla::Fence> fence(vdla::Fence::Type type = vdla::Fence::Type::Binary);
	std::unique_ptr<vdla::Context> context(vdla::Priority priority = vdla::Priority::Normal);
	/* Builds, submits on @ctx signalling a new fence, waits; the job's status. */
	vdla::FenceStatus run(vdla::Context &ctx, const vdla::TaskBuilder &builder);

	/* Fills nodes_ with every vdla node; fails unless there are two. */
	void needTwoDevices();

	std::string node_;
	std::unique_ptr<vdla::Device> device_;
	std::vector<std::string> nodes_;
};

} /* namespace umd_test */
