/* SPDX-License-Identifier: MIT */
/* CONV internals shared by engine_conv.c and conv_onednn.c. */
#ifndef VDLA_CONV_H
#define VDLA_CONV_H

#include <stdint.h>

struct scratch_pool;
struct vdla_core;

/* A buffer and its strides in elements, logical order N, C, H, W. */
struct conv_operand {
	void *data;
	int64_t stride[4];
};

/* A convolution on host buffers; see docs/hw-spec.md, "CONV". */
struct conv_problem {
	uint32_t n, groups;
	uint32_t ic, ih, iw;
	uint32_t oc, oh, ow;
	uint32_t kh, kw;
	uint32_t sy, sx, dy, dx;
	uint32_t pt, pb, pl, pr;	/* zero padding */
	struct conv_operand src;	/* N, Cin, H, W */
	struct conv_operand wgt;	/* Cout, Cin/groups, KH, KW */
	struct conv_operand dst;	/* N, Cout, OH, OW; int32 or float */
};

/*
 * Runs @p on oneDNN: int8 (s8 x s8 -> s32) when @int8, else f32. Returns 0,
 * or -1 if oneDNN refused (the caller then reports a device limit).
 */
int conv_onednn(struct vdla_core *core, struct scratch_pool *pool, const struct conv_problem *p,
		int int8);
void conv_onednn_release(struct vdla_core *core);

/*
 * Runs @p in INT16 (conv_int16.c), from a dense input with the padding
 * materialised. Returns 0, or -1 if out of memory for its accumulators.
 */
int conv_int16(struct scratch_pool *pool, const struct conv_problem *p);

#endif /* VDLA_CONV_H */
