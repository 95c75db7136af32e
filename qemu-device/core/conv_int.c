// SPDX-License-Identifier: MIT
/*
 * Exact INT8 and INT16 convolution on vdla's own dot-product kernels, as a
 * matrix product: the taps of a block of output positions are gathered into
 * rows of int16 (one row per position, in the weights' order), each output
 * channel's weights are one row too, and every output is one dot product of
 * a patch row with a weight row. The kernels take 3 positions by 4 channels
 * at a time, so each row they load serves several products.
 *
 * A kernel that sums in 32-bit lanes (AVX2) is exact for INT8 as it is:
 * a product is at most 2^14 in magnitude and a row holds at most 65536 of
 * them (the reduction limit), so every partial sum fits 31 bits. INT16
 * products reach 2^30 and their sums 2^46, so each INT16 weight w is split
 * into hi = w >> 8 (-128..127) and lo = w & 0xff (0..255), w = 256 hi + lo:
 * a pair sum of patch values with hi or lo halves stays below 2^24, and
 * CHUNK_STEPS steps of 8 lanes keep every lane below 2^31. The two partial
 * dot products of each chunk are combined in 64 bits, and the total is
 * saturated to 32 bits at the end as docs/hw-spec.md says.
 */
#include <string.h>

#include "conv.h"
#include "conv_int.h"
#include "scratch.h"

/* 128 steps x 2^24 per lane < 2^31 (see above): 2048 taps per chunk. */
#define CHUNK_STEPS	128
#define CHUNK_TAPS	(CHUNK_STEPS * CONV_INT_ROW_ALIGN)
/* Patch rows are gathered in blocks of about this size, to stay in L2. */
#define BLOCK_BYTES	(128u << 10)

struct conv_int_job {
	const struct conv_problem *p;
	const struct conv_int_kernels *kernels;
	bool int16;
	bool split;		/* INT16 on 32-bit lanes: weights in hi/lo halves */
	size_t taps;		/* per output: Cin/GROUPS * KH * KW */
	size_t k;		/* row length: taps rounded up to CONV_INT_ROW_ALIGN */
	uint32_t ocg;		/* output channels per group */
	int16_t *wgt;		/* ocg rows (split: the hi rows, then the lo rows) */
	int16_t *patch;		/* a block of patch rows */
	int64_t *out_offset;	/* per patch row: its output element, channel 0 */
};

static size_t round_up(size_t v, size_t to)
{
	return (v + to - 1) / to * to;
}

static int32_t saturate32(int64_t v)
{
	return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

static int32_t input_at(const struct conv_problem *p, bool int16, int64_t index)
{
	return int16 ? ((const int16_t *)p->src.data)[index] : ((const int8_t *)p->src.data)[index];
}

static int32_t weight_at(const struct conv_problem *p, bool int16, int64_t index)
{
	return int16 ? ((const int16_t *)p->wgt.data)[index] : ((const int8_t *)p->wgt.data)[index];
}

/* The weight rows of group @g, zero beyond the taps. */
static void pack_weights(struct conv_int_job *job, uint32_t g)
{
	const struct conv_problem *p = job->p;
	uint32_t icg = p->ic / p->groups;

	for (uint32_t o = 0; o < job->ocg; o++) {
		int16_t *row = job->wgt + o * job->k;
		int16_t *lo_row = job->wgt + (job->ocg + o) * job->k;
		int64_t base = (int64_t)(g * job->ocg + o) * p->wgt.stride[0];
		size_t t = 0;

		for (uint32_t i = 0; i < icg; i++) {
			for (uint32_t ky = 0; ky < p->kh; ky++) {
				for (uint32_t kx = 0; kx < p->kw; kx++, t++) {
					int32_t w = weight_at(p, job->int16,
							      base + i * p->wgt.stride[1] +
							      ky * p->wgt.stride[2] +
							      kx * p->wgt.stride[3]);

					if (job->split) {
						row[t] = (int16_t)(w >> 8);
						lo_row[t] = (int16_t)(w & 0xff);
					} else {
						row[t] = (int16_t)w;
					}
				}
			}
		}
		memset(row + t, 0, (job->k - t) * sizeof(*row));
		if (job->split)
			memset(lo_row + t, 0, (job->k - t) * sizeof(*row));
	}
}

/*
 * The patch rows of output positions [first, first + count) of group @g,
 * positions numbered over (batch, y, x), and where each one's output goes.
 */
static void gather_patches(struct conv_int_job *job, uint32_t g, size_t first, size_t count)
{
	const struct conv_problem *p = job->p;
	uint32_t icg = p->ic / p->groups;
	size_t plane = (size_t)p->oh * p->ow;

	for (size_t r = 0; r < count; r++) {
		size_t pos = first + r;
		uint32_t b = (uint32_t)(pos / plane);
		uint32_t y = (uint32_t)(pos % plane / p->ow), x = (uint32_t)(pos % p->ow);
		int16_t *row = job->patch + r * job->k;
		size_t t = 0;

		for (uint32_t i = 0; i < icg; i++) {
			int64_t base = b * p->src.stride[0] + (int64_t)(g * icg + i) * p->src.stride[1];

			for (uint32_t ky = 0; ky < p->kh; ky++) {
				int64_t line = base + (int64_t)(y * p->sy + ky * p->dy) * p->src.stride[2] +
					       (int64_t)x * p->sx * p->src.stride[3];

				for (uint32_t kx = 0; kx < p->kw; kx++)
					row[t++] = (int16_t)input_at(p, job->int16,
								     line + (int64_t)kx * p->dx *
										    p->src.stride[3]);
			}
		}
		job->out_offset[r] = b * p->dst.stride[0] + y * p->dst.stride[2] +
				     x * p->dst.stride[3];
	}
}

/*
 * out[3 * j + i] (or out[j] for one row) = patch row i . weight row j, in
 * 64 bits, for @rows (1 or 3) patch rows and four weight rows.
 */
static void dot_rows(const struct conv_int_job *job, const int16_t *const *patch, int rows,
		     const int16_t *const *wgt, int64_t *out)
{
	const struct conv_int_kernels *kern = job->kernels;
	size_t lo_offset = (size_t)job->ocg * job->k;
	int n = rows * 4;

	if (!job->split) {
		if (rows == 3)
			kern->dot3x4(patch, wgt, job->k, out);
		else
			kern->dot1x4(patch[0], wgt, job->k, out);
		return;
	}

	memset(out, 0, n * sizeof(*out));
	for (size_t c = 0; c < job->k; c += CHUNK_TAPS) {
		size_t len = job->k - c < CHUNK_TAPS ? job->k - c : CHUNK_TAPS;
		const int16_t *p[3], *hi[4], *lo[4];
		int64_t hi_sum[12], lo_sum[12];

		for (int i = 0; i < rows; i++)
			p[i] = patch[i] + c;
		for (int j = 0; j < 4; j++) {
			hi[j] = wgt[j] + c;
			lo[j] = wgt[j] + lo_offset + c;
		}
		if (rows == 3) {
			kern->dot3x4(p, hi, len, hi_sum);
			kern->dot3x4(p, lo, len, lo_sum);
		} else {
			kern->dot1x4(p[0], hi, len, hi_sum);
			kern->dot1x4(p[0], lo, len, lo_sum);
		}
		for (int m = 0; m < n; m++)
			out[m] += hi_sum[m] * 256 + lo_sum[m];
	}
}

/* Every output channel of group @g for the @count patch rows gathered. */
static void multiply_block(const struct conv_int_job *job, uint32_t g, size_t count)
{
	const struct conv_problem *p = job->p;
	int32_t *dst = p->dst.data;

	for (uint32_t o = 0; o < job->ocg; o += 4) {
		uint32_t channels = job->ocg - o < 4 ? job->ocg - o : 4;
		const int16_t *w[4];
		int64_t chan_offset[4];

		/* A last block of fewer channels repeats its last row. */
		for (uint32_t j = 0; j < 4; j++) {
			uint32_t oc = o + (j < channels ? j : channels - 1);

			w[j] = job->wgt + (size_t)oc * job->k;
			chan_offset[j] = (int64_t)(g * job->ocg + oc) * p->dst.stride[1];
		}
		for (size_t r = 0; r < count;) {
			int rows = count - r >= 3 ? 3 : 1;
			const int16_t *rowp[3];
			int64_t sum[12];

			for (int i = 0; i < rows; i++)
				rowp[i] = job->patch + (r + i) * job->k;
			dot_rows(job, rowp, rows, w, sum);
			for (uint32_t j = 0; j < channels; j++)
				for (int i = 0; i < rows; i++)
					dst[job->out_offset[r + i] + chan_offset[j]] =
						saturate32(sum[rows * j + i]);
			r += rows;
		}
	}
}

int conv_int(struct scratch_pool *pool, const struct conv_problem *p, bool int16,
	     const struct conv_int_kernels *kernels)
{
	struct conv_int_job job = {
		.p = p,
		.kernels = kernels,
		.int16 = int16,
		.split = int16 && kernels->lanes32,
		.taps = (size_t)(p->ic / p->groups) * p->kh * p->kw,
		.ocg = p->oc / p->groups,
	};
	size_t positions = (size_t)p->n * p->oh * p->ow;
	size_t block;
	int ret = -1;

	job.k = round_up(job.taps, CONV_INT_ROW_ALIGN);
	block = BLOCK_BYTES / (job.k * sizeof(int16_t)) / 3 * 3;
	if (block < 3)
		block = 3;
	if (block > positions)
		block = positions;
	job.wgt = scratch_get(pool, (job.split ? 2 : 1) * (size_t)job.ocg * job.k * sizeof(int16_t));
	job.patch = scratch_get(pool, block * job.k * sizeof(int16_t));
	job.out_offset = scratch_get(pool, block * sizeof(int64_t));
	if (!job.wgt || !job.patch || !job.out_offset)
		goto out;
	/* The rows' tails beyond the taps stay zero: gathers never write them. */
	memset(job.patch, 0, block * job.k * sizeof(int16_t));

	for (uint32_t g = 0; g < p->groups; g++) {
		pack_weights(&job, g);
		for (size_t first = 0; first < positions; first += block) {
			size_t count = positions - first < block ? positions - first : block;

			gather_patches(&job, g, first, count);
			multiply_block(&job, g, count);
		}
	}
	ret = 0;
out:
	scratch_put(pool, job.out_offset);
	scratch_put(pool, job.patch);
	scratch_put(pool, job.wgt);
	return ret;
}
