/* SPDX-License-Identifier: MIT */
/*
 * DRM_IOCTL_VDLA_QUERY into the structure a query id selects, for every
 * part of libvdla that reads one (the device, its memory, its SRAM
 * partitions, its time shares).
 */
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstdint>

#include <xf86drm.h>

#include <drm/vdla_accel.h>

namespace vdla {

/* Fills *@raw with the structure DRM_IOCTL_VDLA_QUERY @id gives; 0 or the errno. */
template<typename T>
int queryInto(int fd, uint32_t id, T *raw)
{
	drm_vdla_query query = {};
	query.query = id;
	/*
	 * Drivers before 1.6 take only their own size: ask it first, and
	 * leave the fields an older driver does not have at zero.
	 */
	if (drmIoctl(fd, DRM_IOCTL_VDLA_QUERY, &query))
		return errno;
	query.size = std::min<uint32_t>(query.size, sizeof(*raw));
	query.data = reinterpret_cast<uintptr_t>(raw);
	return drmIoctl(fd, DRM_IOCTL_VDLA_QUERY, &query) ? errno : 0;
}

} /* namespace vdla */
