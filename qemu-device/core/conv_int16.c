// SPDX-License-Identifier: MIT
/*
 * CONV INT16 on plain loops: oneDNN has no INT16 convolution. Exact
 * products, 64-bit sums saturated to 32 bits (docs/hw-spec.md, "CONV"),
 * from a dense input with its padding materialised.
 *
 * Two loop orders, by shape:
 * - rows: per output channel and tap, weight x input row added into a row
 *   of 64-bit accumulators. The inner loop runs over output positions, so
 *   it is long and, at stride 1, contiguous: the compiler vectorises it
 *   (this file is built with -O3; see meson.build and tests/CMakeLists.txt).
 *   3 to 5 times faster than the dot products on LeNet and ResNet shapes.
 * - dots: per output, the dot product over its taps. Better when an output
 *   row is short, as for a fully connected layer run as a convolution.
 */
#include <stdint.h>
#include <string.h>

#include "conv.h"
#include "scratch.h"

/* Output rows shorter than this take the dot products. */
#define ROWS_MIN_WIDTH 8

static int32_t saturate32(int64_t v)
{
	return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

static int32_t *output_at(const struct conv_problem *p, uint32_t b, uint32_t o, uint32_t y,
			  uint32_t x)
{
	return (int32_t *)p->dst.data + b * p->dst.stride[0] + o * p->dst.stride[1] +
	       y * p->dst.stride[2] + x * p->dst.stride[3];
}

static void accumulate_row(int64_t *restrict acc, const int16_t *restrict in, int32_t w,
			   uint32_t n)
{
	for (uint32_t x = 0; x < n; x++)
		acc[x] += in[x] * w;
}

static void accumulate_strided_row(int64_t *restrict acc, const int16_t *restrict in, int32_t w,
				   uint32_t n, uint32_t stride)
{
	for (uint32_t x = 0; x < n; x++)
		acc[x] += in[(size_t)x * stride] * w;
}

/* Output channel @o of batch @b into @acc (oh x ow), then to the output. */
static void rows_channel(const struct conv_problem *p, uint32_t b, uint32_t o, int64_t *acc)
{
	const int16_t *src = p->src.data, *wgt = p->wgt.data;
	uint32_t icg = p->ic / p->groups, g = o / (p->oc / p->groups);

	memset(acc, 0, (size_t)p->oh * p->ow * sizeof(*acc));
	for (uint32_t i = 0; i < icg; i++) {
		const int16_t *plane = src + ((size_t)b * p->ic + g * icg + i) * p->ih * p->iw;
		const int16_t *k = wgt + ((size_t)o * icg + i) * p->kh * p->kw;

		for (uint32_t ky = 0; ky < p->kh; ky++) {
			for (uint32_t kx = 0; kx < p->kw; kx++) {
				int32_t w = k[ky * p->kw + kx];

				if (!w)
					continue;
				for (uint32_t y = 0; y < p->oh; y++) {
					const int16_t *in = plane +
							    (size_t)(y * p->sy + ky * p->dy) * p->iw +
							    kx * p->dx;
					int64_t *row = acc + (size_t)y * p->ow;

					if (p->sx == 1)
						accumulate_row(row, in, w, p->ow);
					else
						accumulate_strided_row(row, in, w, p->ow, p->sx);
				}
			}
		}
	}
	for (uint32_t y = 0; y < p->oh; y++)
		for (uint32_t x = 0; x < p->ow; x++)
			*output_at(p, b, o, y, x) = saturate32(acc[(size_t)y * p->ow + x]);
}

static int64_t dot(const struct conv_problem *p, uint32_t b, uint32_t o, uint32_t y, uint32_t x)
{
	const int16_t *src = p->src.data, *wgt = p->wgt.data;
	uint32_t icg = p->ic / p->groups, g = o / (p->oc / p->groups);
	int64_t acc = 0;

	for (uint32_t i = 0; i < icg; i++) {
		const int16_t *plane = src + ((size_t)b * p->ic + g * icg + i) * p->ih * p->iw;
		const int16_t *k = wgt + ((size_t)o * icg + i) * p->kh * p->kw;

		for (uint32_t ky = 0; ky < p->kh; ky++) {
			const int16_t *row = plane + (size_t)(y * p->sy + ky * p->dy) * p->iw +
					     x * p->sx;

			for (uint32_t kx = 0; kx < p->kw; kx++)
				acc += row[kx * p->dx] * (int32_t)k[ky * p->kw + kx];
		}
	}
	return acc;
}

int conv_int16(struct scratch_pool *pool, const struct conv_problem *p)
{
	int64_t *acc = NULL;

	if (p->ow >= ROWS_MIN_WIDTH) {
		acc = scratch_get(pool, (size_t)p->oh * p->ow * sizeof(*acc));
		if (!acc)
			return -1;
	}
	for (uint32_t b = 0; b < p->n; b++) {
		for (uint32_t o = 0; o < p->oc; o++) {
			if (acc) {
				rows_channel(p, b, o, acc);
				continue;
			}
			for (uint32_t y = 0; y < p->oh; y++)
				for (uint32_t x = 0; x < p->ow; x++)
					*output_at(p, b, o, y, x) = saturate32(dot(p, b, o, y, x));
		}
	}
	scratch_put(pool, acc);
	return 0;
}
