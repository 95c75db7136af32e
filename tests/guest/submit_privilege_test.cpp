/* SPDX-License-Identifier: MIT */
/*
 * Privileges on the node: what a process without capabilities may do. The
 * guest runs the suite as root, so each check forks a child that becomes
 * uid and gid 65534 (nobody), which drops every capability, and uses the
 * node the parent opened. HIGH contexts need CAP_SYS_NICE and the test
 * ioctls CAP_SYS_ADMIN (EACCES, never a quiet downgrade); the rest of the
 * UAPI, a job included, works without privileges.
 */
#include <gtest/gtest.h>

#include <grp.h>
#include <unistd.h>

#include <cerrno>
#include <functional>

#include "submit_test.h"

namespace guest {
namespace {

using Privileges = SubmitTest;

int createContext(int fd, uint32_t priority)
{
	drm_vdla_ctx_create args = {};
	args.priority = priority;
	return ioctlError(fd, DRM_IOCTL_VDLA_CTX_CREATE, &args);
}

TEST_F(Privileges, HighPriorityNeedsCapSysNice)
{
	int node = fd();
	EXPECT_EQ(asNobody([&] { return createContext(node, DRM_VDLA_PRIORITY_HIGH); }), EACCES);
	EXPECT_EQ(asNobody([&] { return createContext(node, DRM_VDLA_PRIORITY_NORMAL); }), 0);
	EXPECT_EQ(asNobody([&] { return createContext(node, DRM_VDLA_PRIORITY_LOW); }), 0);
	/* The parent is root, with CAP_SYS_NICE. */
	Ctx high(fd(), DRM_VDLA_PRIORITY_HIGH);
	EXPECT_EQ(high.error(), 0);
}

TEST_F(Privileges, TestIoctlsNeedCapSysAdmin)
{
	int node = fd();
	EXPECT_EQ(asNobody([&] {
		drm_vdla_test_irq args = {};
		args.timeout_ms = 1000;
		return ioctlError(node, DRM_IOCTL_VDLA_TEST_IRQ, &args);
	}),
		  EACCES);
	EXPECT_EQ(asNobody([&] {
		drm_vdla_test_bdma args = {};
		args.size = 4096;
		return ioctlError(node, DRM_IOCTL_VDLA_TEST_BDMA, &args);
	}),
		  EACCES);
	drm_vdla_test_irq args = {};
	args.timeout_ms = 1000;
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_VDLA_TEST_IRQ, &args), 0);
}

TEST_F(Privileges, AJobRunsWithoutPrivileges)
{
	int node = fd();
	EXPECT_EQ(asNobody([&] {
		Ctx ctx(node);
		if (ctx.error())
			return 1;
		SmallJob job(node);
		if (job.error())
			return 2;
		Rng rng(5);
		job.prepare(rng, WorkKind::Sdp);
		return runJob(job, ctx.id()) ? 0 : 3;
	}),
		  0);
}

} /* namespace */
} /* namespace guest */
