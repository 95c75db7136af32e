/* SPDX-License-Identifier: MIT */
/*
 * vdla_task.h: the task-descriptor ABI. Userspace writes a task into a
 * descriptor buffer; the firmware core (firmware/) validates it and drives the
 * engines from it. docs/firmware.md describes every field and rule.
 *
 * A task is a header followed by an array of fixed-size operation
 * descriptors. Buffers are named by index into the task's address list (which
 * the submitter provides) plus a byte offset, never by raw address.
 *
 * All structures are little endian, fixed width, with explicit padding; every
 * field named reserved must be zero.
 */
#ifndef _UAPI_VDLA_TASK_H_
#define _UAPI_VDLA_TASK_H_

#include <linux/types.h>

#if defined(__cplusplus)
extern "C" {
#endif

#define VDLA_TASK_MAGIC			0x4b534154	/* "TASK" */
#define VDLA_TASK_VERSION_MAJOR		1
#define VDLA_TASK_VERSION_MINOR		0

/** VDLA_NO_OP: "no operation" in an op index field. */
#define VDLA_NO_OP			0xffff
/** VDLA_TASK_MAX_OPS: operations in one task, at most. */
#define VDLA_TASK_MAX_OPS		65534
/** VDLA_TASK_MAX_CONSUMERS: dependency links out of one operation. */
#define VDLA_TASK_MAX_CONSUMERS		8

/* Engines, as in the hardware (docs/hw-spec.md). */
#define VDLA_TASK_ENGINE_BDMA		0
#define VDLA_TASK_ENGINE_CONV		1
#define VDLA_TASK_ENGINE_SDP		2
#define VDLA_TASK_ENGINE_PDP		3
#define VDLA_TASK_ENGINE_CDP		4
#define VDLA_TASK_ENGINE_RUBIK		5
#define VDLA_TASK_ENGINES		6

/**
 * enum vdla_task_event - what releases a consumer
 * @VDLA_EVENT_OP_COMPLETED: the producer finished successfully
 * @VDLA_EVENT_OP_PROGRAMMED: the producer's registers were written
 * @VDLA_EVENT_OP_ENABLED: the producer was handed to the hardware
 */
enum vdla_task_event {
	VDLA_EVENT_OP_COMPLETED = 0,
	VDLA_EVENT_OP_PROGRAMMED = 1,
	VDLA_EVENT_OP_ENABLED = 2,
};

/**
 * struct vdla_task_header - at offset 0 of the descriptor buffer
 */
struct vdla_task_header {
	/** @magic: VDLA_TASK_MAGIC. */
	__u32 magic;
	/** @version_major: VDLA_TASK_VERSION_MAJOR; others are refused. */
	__u16 version_major;
	/** @version_minor: at most VDLA_TASK_VERSION_MINOR. */
	__u16 version_minor;
	/** @num_ops: operations, 0..VDLA_TASK_MAX_OPS (0: an empty task). */
	__u32 num_ops;
	/** @ops_offset: byte offset of the op array, a multiple of 8, >= 32. */
	__u32 ops_offset;
	/** @flags: must be 0. */
	__u32 flags;
	/** @reserved: must be 0. */
	__u32 reserved[3];
};

/**
 * struct vdla_task_address - a place in a buffer of the address list
 */
struct vdla_task_address {
	/** @offset: bytes from the start of the buffer. */
	__u64 offset;
	/** @index: address-list index. */
	__u16 index;
	/** @reserved: must be 0. */
	__u16 reserved[3];
};

/**
 * struct vdla_task_surface - a tensor (docs/hw-spec.md, "Tensors")
 *
 * For an input or output that flies between fused engines, @address is
 * ignored (and must be zero); the shape and type still describe the data.
 */
struct vdla_task_surface {
	struct vdla_task_address address;
	/** @dtype: VDLA_DTYPE_* of the hardware. */
	__u32 dtype;
	/** @w, @h, @c, @n: dimensions, 1..65535. */
	__u32 w, h, c, n;
	/** @stride_w, @stride_h, @stride_c, @stride_n: bytes. */
	__u32 stride_w, stride_h, stride_c, stride_n;
	/** @reserved: must be 0. */
	__u32 reserved;
};

struct vdla_task_bdma {
	struct vdla_task_address src;
	struct vdla_task_address dst;
	__u32 line_bytes;
	__u32 lines;
	__u32 src_line_stride;
	__u32 dst_line_stride;
	__u32 surfaces;
	__u32 src_surf_stride;
	__u32 dst_surf_stride;
	__u32 reserved;
};

/** VDLA_TASK_FLY_*: flags of the fusing engines. */
#define VDLA_TASK_FLY_OUT		(1u << 0)	/* output flies to the next op */
#define VDLA_TASK_FLY_IN		(1u << 1)	/* input flies from the parent */

struct vdla_task_conv {
	struct vdla_task_surface src;
	struct vdla_task_surface wgt;	/* W=KW H=KH C=Cin/groups N=Cout */
	struct vdla_task_surface dst;
	__u16 stride_x, stride_y;
	__u16 pad_left, pad_right, pad_top, pad_bottom;
	__u16 dilation_x, dilation_y;
	__u32 groups;
	__u32 pad_value;		/* int, or FP32 bits */
	__u32 fly;			/* VDLA_TASK_FLY_OUT */
	__u32 reserved;
};

struct vdla_task_sdp {
	struct vdla_task_surface src;
	struct vdla_task_surface dst;
	struct vdla_task_surface ew;	/* used when ew_op != 0 */
	struct vdla_task_address bias;	/* per-channel bias */
	struct vdla_task_address scale;	/* per-channel scale */
	struct vdla_task_address lut;	/* LUT */
	__u32 fly;			/* VDLA_TASK_FLY_IN, VDLA_TASK_FLY_OUT */
	__u8 bias_mode, scale_mode, ew_op, act;	/* VDLA_SDP_MODE_*, _EW_OP_*, _ACT_* */
	__u8 round, wrap;
	__u16 reserved0;
	__u32 bias_value, scale_mul, scale_shift;
	__u32 ew_mul, ew_shift, ew_post_shift;
	__u32 clip_min, clip_max;
	__u32 lut_start, lut_shift;
	__u32 out_offset;
	__u32 reserved1;
};

struct vdla_task_pdp {
	struct vdla_task_surface src;
	struct vdla_task_surface dst;
	__u32 fly;			/* VDLA_TASK_FLY_IN */
	__u8 method, ceil_mode, include_pad, round;
	__u16 kernel_w, kernel_h;
	__u16 stride_x, stride_y;
	__u16 pad_left, pad_right, pad_top, pad_bottom;
};

struct vdla_task_cdp {
	struct vdla_task_surface src;
	struct vdla_task_surface dst;
	struct vdla_task_address lut;	/* integer path */
	__u32 size;
	__u32 lut_shift, out_shift;
	__u32 k, alpha, beta;		/* FP32 bits, float path */
	__u8 round, wrap;
	__u16 reserved0;
	__u32 reserved1;
};

struct vdla_task_rubik {
	struct vdla_task_surface src;
	struct vdla_task_surface dst;
	__u32 mode;			/* VDLA_RUBIK_* */
	__u32 perm;
	__u16 block_x, block_y;
	__u32 reserved;
};

/**
 * struct vdla_task_consumer - a dependency link to a later operation
 */
struct vdla_task_consumer {
	/** @index: the consumer op, greater than this op's index; VDLA_NO_OP. */
	__u16 index;
	/** @event: enum vdla_task_event that releases it. */
	__u8 event;
	/** @reserved: must be 0. */
	__u8 reserved;
};

#define VDLA_TASK_OP_SIZE		512

/**
 * struct vdla_task_op - one operation, VDLA_TASK_OP_SIZE bytes
 */
struct vdla_task_op {
	/** @engine: VDLA_TASK_ENGINE_*. */
	__u8 engine;
	/** @flags: must be 0. */
	__u8 flags;
	/**
	 * @dependency_count: links from earlier ops that must fire before this
	 * op is enabled; must equal the number of such links.
	 */
	__u16 dependency_count;
	/**
	 * @fused_parent: index of the op whose output flies into this one
	 * (which must be this op's index - 1), or VDLA_NO_OP.
	 */
	__u16 fused_parent;
	/** @reserved0: must be 0. */
	__u16 reserved0;
	/** @consumers: links out, unused entries VDLA_NO_OP. */
	struct vdla_task_consumer consumers[VDLA_TASK_MAX_CONSUMERS];
	/** @reserved1: must be 0. */
	__u32 reserved1[2];
	union {
		struct vdla_task_bdma bdma;
		struct vdla_task_conv conv;
		struct vdla_task_sdp sdp;
		struct vdla_task_pdp pdp;
		struct vdla_task_cdp cdp;
		struct vdla_task_rubik rubik;
		__u8 raw[VDLA_TASK_OP_SIZE - 48];
	};
};

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_VDLA_TASK_H_ */
