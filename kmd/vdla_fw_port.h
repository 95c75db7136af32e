/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's port layer for the firmware core (firmware/include/dla_port.h):
 * what a task's address list looks like to the port functions.
 */
#ifndef __VDLA_FW_PORT_H__
#define __VDLA_FW_PORT_H__

#include <linux/types.h>

/* One address-list entry: a buffer as the CPU and the device see it. */
struct vdla_fw_buffer {
	void *cpu;		/* kernel mapping, or NULL if the CPU cannot read it */
	u64 device_address;	/* in the task's device address space */
	u64 size;
};

/* The task_data the firmware passes back to the port layer. */
struct vdla_fw_task {
	const struct vdla_fw_buffer *buffers;
	u16 count;
};

#endif /* __VDLA_FW_PORT_H__ */
