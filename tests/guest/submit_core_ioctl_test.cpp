/* SPDX-License-Identifier: MIT */
/*
 * The DRM core's ioctls on the accel node (kmd/vdla_core_ioctls.c): what a
 * render node takes works, the rest is refused with EACCES before the core
 * sees it (GET_UNIQUE and GET_MAGIC oopsed on an accel file; GEM_FLINK and
 * GEM_OPEN gave any process another's buffer by a guessable name), and the
 * syncobj array ioctls are bounded to VDLA_MAX_SYNCOBJS_PER_CALL (near
 * 2^31 they made the core's allocation warn).
 */
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "submit_test.h"

namespace guest {
namespace {

using CoreIoctl = SubmitTest;

constexpr uint32_t kMaxSyncobjsPerCall = 1024; /* kmd/vdla_core_ioctls.h */

TEST_F(CoreIoctl, WhatARenderNodeTakesWorks)
{
	char name[32] = {};
	drm_version version = {};
	version.name = name;
	version.name_len = sizeof(name) - 1;
	ASSERT_EQ(ioctlError(fd(), DRM_IOCTL_VERSION, &version), 0);
	EXPECT_STREQ(name, "vdla");
	drm_get_cap cap = {};
	cap.capability = DRM_CAP_SYNCOBJ_TIMELINE;
	ASSERT_EQ(ioctlError(fd(), DRM_IOCTL_GET_CAP, &cap), 0);
	EXPECT_EQ(cap.value, 1u);
	Syncobj sync(fd());
	drm_syncobj_array reset = {};
	uint32_t handle = sync.handle();
	reset.handles = reinterpret_cast<uintptr_t>(&handle);
	reset.count_handles = 1;
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_SYNCOBJ_RESET, &reset), 0);
}

TEST_F(CoreIoctl, WhatMakesNoSenseOnAnAccelNodeIsRefused)
{
	Bo bo(fd(), 4096);
	ASSERT_EQ(bo.error(), 0);
	std::vector<uint8_t> scratch(4096, 0);
	drm_unique unique = {};
	unique.unique_len = 64;
	unique.unique = reinterpret_cast<char *>(scratch.data());
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_GET_UNIQUE, &unique), EACCES);
	drm_auth auth = {};
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_GET_MAGIC, &auth), EACCES);
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_AUTH_MAGIC, &auth), EACCES);
	drm_client client = {};
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_GET_CLIENT, &client), EACCES);
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_GET_STATS, scratch.data()), EACCES);
	drm_set_version setVersion = {};
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_SET_VERSION, &setVersion), EACCES);
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_SET_MASTER, nullptr), EACCES);
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_DROP_MASTER, nullptr), EACCES);
	drm_set_client_cap clientCap = {};
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_SET_CLIENT_CAP, &clientCap), EACCES);
	drm_mode_card_res res = {};
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_MODE_GETRESOURCES, &res), EACCES);

	/* No global names: another process could guess them. */
	drm_gem_flink flink = {};
	flink.handle = bo.handle();
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_GEM_FLINK, &flink), EACCES);
	drm_gem_open open = {};
	for (uint32_t name = 1; name <= 4; name++) {
		open.name = name;
		EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_GEM_OPEN, &open), EACCES) << name;
	}
	/* The file still works. */
	Ctx ctx(fd());
	EXPECT_EQ(ctx.error(), 0);
}

TEST_F(CoreIoctl, SyncobjArraysAreBounded)
{
	Syncobj sync(fd());
	std::vector<uint32_t> handles(kMaxSyncobjsPerCall + 1, sync.handle());
	std::vector<uint64_t> points(kMaxSyncobjsPerCall + 1, 0);
	for (uint32_t count : { kMaxSyncobjsPerCall + 1, 0x7fffffffu, 0xffffffffu }) {
		drm_syncobj_array array = {};
		array.handles = reinterpret_cast<uintptr_t>(handles.data());
		array.count_handles = count;
		EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_SYNCOBJ_RESET, &array), EINVAL) << count;
		EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_SYNCOBJ_SIGNAL, &array), EINVAL) << count;
		drm_syncobj_wait wait = {};
		wait.handles = array.handles;
		wait.count_handles = count;
		EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_SYNCOBJ_WAIT, &wait), EINVAL) << count;
		drm_syncobj_timeline_wait twait = {};
		twait.handles = array.handles;
		twait.points = reinterpret_cast<uintptr_t>(points.data());
		twait.count_handles = count;
		EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &twait), EINVAL)
			<< count;
		drm_syncobj_timeline_array tarray = {};
		tarray.handles = array.handles;
		tarray.points = twait.points;
		tarray.count_handles = count;
		EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_SYNCOBJ_QUERY, &tarray), EINVAL) << count;
		EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, &tarray), EINVAL)
			<< count;
	}
	/* The bound itself goes through to the core. */
	drm_syncobj_array array = {};
	array.handles = reinterpret_cast<uintptr_t>(handles.data());
	array.count_handles = kMaxSyncobjsPerCall;
	EXPECT_EQ(ioctlError(fd(), DRM_IOCTL_SYNCOBJ_SIGNAL, &array), 0);
}

} /* namespace */
} /* namespace guest */
