/* SPDX-License-Identifier: MIT */
/* CONV internals shared by engine_conv.c and conv_onednn.c. */
#ifndef VDLA_CONV_H
#define VDLA_CONV_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct mem_ctx;
struct scratch_pool;

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

enum conv_operand_id { CONV_SRC, CONV_WGT, CONV_DST };

/*
 * Whether oneDNN takes operand @which of @p with its strides. It refuses
 * some that docs/hw-spec.md allows (overlapping elements); such an operand
 * goes through a dense copy instead.
 */
bool conv_onednn_takes_strides(const struct conv_problem *p, enum conv_operand_id which);

/*
 * Runs @p on oneDNN: int8 (s8 x s8 -> s32) when @int8, else f32, with the
 * oneDNN engine and stream kept in *@slot (NULL at first; one thread per
 * slot). INT8 is exact only where compute_path.c says so. With @cancel, a
 * large convolution runs in pieces and stops between them when the
 * operation of @cancel is voided. Returns 0, VDLA_ERROR_LIMIT if oneDNN
 * refused, or VDLA_ERROR_CANCELLED.
 */
int conv_onednn(void **slot, struct scratch_pool *pool, const struct conv_problem *p, int int8,
		const struct mem_ctx *cancel);
void conv_onednn_release(void **slot);
/*
 * Whether oneDNN's INT8 convolution of @p is exact on a host where it
 * multiplies with VNNI or AMX. It sums exactly in int32 there, but passes
 * the sum (and, in its 1x1 kernels, the sum of inputs shifted by +128 and
 * a compensation term) through FP32 on the way out, which is exact only up
 * to 2^24 in magnitude. Those values are bounded by 255 times the sum of
 * the magnitudes of one output channel's weights, which is what this
 * checks: a pass over the weights, not the convolution.
 */
bool conv_onednn_int8_is_exact(const struct conv_problem *p);

#ifdef __cplusplus
}
#endif

#endif /* VDLA_CONV_H */
