/* SPDX-License-Identifier: MIT */
/*
 * OpenVX vendor identifiers (values as in OpenVX 1.3.1). Only the ids vdla
 * needs are listed; they occupy the top 12 bits of kernel and attribute
 * enumerations.
 */
#ifndef VX_VENDORS_H
#define VX_VENDORS_H

enum vx_vendor_id_e {
	VX_ID_KHRONOS = 0x000,
	VX_ID_USER = 0xFFE,
	VX_ID_MAX = 0xFFF,
	VX_ID_DEFAULT = VX_ID_USER,
};

#endif /* VX_VENDORS_H */
