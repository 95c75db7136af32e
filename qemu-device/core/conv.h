/* SPDX-License-Identifier: MIT */
/* CONV internals shared by engine_conv.c and conv_onednn.c. */
#ifndef VDLA_CONV_H
#define VDLA_CONV_H

#include <stdint.h>

struct vdla_core;

/* A convolution on dense host buffers, padding already materialised. */
struct conv_problem {
	uint32_t n, groups;
	uint32_t ic, ih, iw;	/* input, padded */
	uint32_t oc, oh, ow;
	uint32_t kh, kw;
	uint32_t sy, sx, dy, dx;
	const void *src;	/* NCHW, padded */
	const void *wgt;	/* OIHW == GOIHW */
	void *dst;		/* NCHW; int32 or float */
};

/*
 * Runs @p on oneDNN: int8 (s8 x s8 -> s32) when @int8, else f32. Returns 0,
 * or -1 if oneDNN refused (the caller then reports a device limit).
 */
int conv_onednn(struct vdla_core *core, const struct conv_problem *p, int int8);
void conv_onednn_release(struct vdla_core *core);

#endif /* VDLA_CONV_H */
