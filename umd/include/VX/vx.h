/* SPDX-License-Identifier: MIT */
/*
 * OpenVX 1.3.1 entry header for libvdla. Include this one; it pulls in the
 * types, the kernel list, the API and the node helpers.
 */
#ifndef VX_H
#define VX_H

#define VX_MAX_IMPLEMENTATION_NAME (64)
#define VX_MAX_REFERENCE_NAME (64)
#define VX_MAX_LOG_MESSAGE_LEN (1024)

#define VX_VERSION_MAJOR(x) (((vx_uint32)(x)&0xFF) << 8)
#define VX_VERSION_MINOR(x) ((vx_uint32)(x)&0xFF)
#define VX_VERSION_1_0 (VX_VERSION_MAJOR(1) | VX_VERSION_MINOR(0))
#define VX_VERSION_1_1 (VX_VERSION_MAJOR(1) | VX_VERSION_MINOR(1))
#define VX_VERSION_1_2 (VX_VERSION_MAJOR(1) | VX_VERSION_MINOR(2))
#define VX_VERSION_1_3 (VX_VERSION_MAJOR(1) | VX_VERSION_MINOR(3))
#define VX_VERSION VX_VERSION_1_3

#include <VX/vx_vendors.h>
#include <VX/vx_types.h>
#include <VX/vx_kernels.h>
#include <VX/vx_api.h>
#include <VX/vx_nodes.h>

#endif /* VX_H */
