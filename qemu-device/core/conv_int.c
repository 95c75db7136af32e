// SPDX-License-Identifier: MIT
/*
 * Exact INT8 and INT16 convolution on vdla's own kernels, as a matrix
 * product of taps by output positions:
 *
 * - The input is copied once into int16 with the padding materialised and
 *   each line's columns split by phase modulo the x stride, so that the
 *   input of consecutive output positions for one tap is contiguous
 *   whatever the stride.
 * - For a group of CONV_INT_POSITIONS output positions the taps are
 *   gathered two at a time, position by position (patch[pair][position][2]):
 *   each pair is two contiguous runs interleaved.
 * - Each block of CONV_INT_CHANNELS output channels has its weights packed
 *   the same way, and a kernel call computes the block's outputs for the
 *   group. A block of position groups stays in L2 while every channel block
 *   passes over it.
 *
 * A kernel that sums in 32-bit lanes (AVX2) is exact for INT8 as it is: a
 * product is at most 2^14 in magnitude and a lane sums at most 65536 of
 * them (the reduction limit), so it never leaves 31 bits. INT16 products
 * reach 2^30 and their sums 2^46, so each INT16 weight w is split into
 * hi = w >> 8 (-128..127) and lo = w & 0xff (0..255), w = 256 hi + lo: a
 * pair sum of inputs with hi or lo halves is below 2^24, and CHUNK_PAIRS
 * steps keep every lane below 2^31. The two partial sums of each chunk are
 * combined in 64 bits, and the total is saturated to 32 bits at the end as
 * docs/hw-spec.md says.
 */
#include <emmintrin.h>
#include <string.h>

#include "conv.h"
#include "conv_int.h"
#include "mem.h"
#include "scratch.h"

/* 128 steps x 2^24 per lane < 2^31 (see above). */
#define CHUNK_PAIRS	128
/* Patch groups are gathered in blocks of about this size, to stay in L2. */
#define BLOCK_BYTES	(192u << 10)

#define GROUP_ELEMS	(CONV_INT_POSITIONS * 2)	/* int16 per pair of a group */
#define WGT_ELEMS	(CONV_INT_CHANNELS * 2)		/* int16 per pair of a block */

struct conv_int_job {
	const struct conv_problem *p;
	const struct conv_int_kernels *kernels;
	bool split;		/* INT16 on 32-bit lanes: weights in hi and lo halves */
	uint32_t icg, ocg;	/* input and output channels per group */
	uint32_t taps;		/* per output: icg * KH * KW */
	size_t pairs;		/* taps rounded up to pairs */
	/* The prepared input, int16[n][ic][ph][sx][wp]: see prepare_input(). */
	int16_t *in;
	uint32_t ph, pw, wp;
	size_t row, plane;	/* elements per padded line and per channel */
	int64_t *tap_offset;	/* per tap, within a group's first channel */
	/* Weights of one group: [block][pair][channel][2], then the lo halves. */
	int16_t *wgt;
	int16_t *wgt_row;	/* one channel's taps, while packing */
	size_t blocks;		/* channel blocks per group */
	/* A block of position groups: [group][pair][position][2]. */
	int16_t *patch;
	size_t block_groups;
	int64_t *out_offset;	/* per position of the block: its output, channel 0 */
};

static int32_t saturate32(int64_t v)
{
	return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

/* @n elements of @from, @stride apart, to int16 at @to, @to_stride apart. */
static void widen_run(int16_t *to, size_t to_stride, const void *from, bool int16, int64_t stride,
		      uint32_t n)
{
	if (int16) {
		const int16_t *f = from;

		for (uint32_t i = 0; i < n; i++)
			to[i * to_stride] = f[i * stride];
	} else {
		const int8_t *f = from;

		for (uint32_t i = 0; i < n; i++)
			to[i * to_stride] = f[i * stride];
	}
}

static void fill_run(int16_t *to, int16_t value, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		to[i] = value;
}

/*
 * The input in int16 with PAD_VALUE around it: column x of padded line y
 * of channel c is at ((n * ic + c) * ph + y) * row + (x % sx) * wp + x / sx,
 * so that columns x, x + sx, x + 2 sx, ... follow each other.
 */
static void prepare_input(struct conv_int_job *job, bool int16, int32_t pad_value)
{
	const struct conv_problem *p = job->p;
	const int64_t *s = p->src.stride;
	size_t esize = int16 ? 2 : 1;

	for (uint32_t b = 0; b < p->n; b++) {
		for (uint32_t c = 0; c < p->ic; c++) {
			int16_t *chan = job->in + ((size_t)b * p->ic + c) * job->plane;

			for (uint32_t y = 0; y < job->ph; y++) {
				int16_t *line = chan + y * job->row;
				const uint8_t *from;

				if (y < p->pt || y >= p->pt + p->ih) {
					fill_run(line, (int16_t)pad_value, (uint32_t)job->row);
					continue;
				}
				from = (const uint8_t *)p->src.data +
				       (b * s[0] + c * s[1] + (int64_t)(y - p->pt) * s[2]) *
					       (int64_t)esize;
				/* Phase q holds padded columns q, q + sx, ...: left pad, input, right pad. */
				for (uint32_t q = 0; q < p->sx; q++) {
					int16_t *to = line + q * job->wp;
					uint32_t left = q >= p->pl ? 0 : (p->pl - q + p->sx - 1) / p->sx;
					uint32_t x0 = q + left * p->sx - p->pl; /* first input column */
					uint32_t inside = x0 >= p->iw ? 0 : (p->iw - x0 + p->sx - 1) / p->sx;

					if (left > job->wp)
						left = job->wp;
					if (inside > job->wp - left)
						inside = job->wp - left;
					fill_run(to, (int16_t)pad_value, left);
					widen_run(to + left, 1, from + x0 * s[3] * (int64_t)esize, int16,
						  s[3] * p->sx, inside);
					fill_run(to + left + inside, (int16_t)pad_value,
						 job->wp - left - inside);
				}
			}
		}
	}
}

/* Where tap (i, ky, kx) of an output position is, from its first tap. */
static void compute_tap_offsets(struct conv_int_job *job)
{
	const struct conv_problem *p = job->p;
	uint32_t t = 0;

	for (uint32_t i = 0; i < job->icg; i++)
		for (uint32_t ky = 0; ky < p->kh; ky++)
			for (uint32_t kx = 0; kx < p->kw; kx++)
				job->tap_offset[t++] = (int64_t)i * job->plane +
						       (int64_t)ky * p->dy * job->row +
						       (kx * p->dx) % p->sx * job->wp +
						       (kx * p->dx) / p->sx;
}

/* Deals one channel's taps @row out to its column of a channel block, two by two. */
static void deal_taps(const struct conv_int_job *job, const int16_t *row, int16_t *to,
		      int16_t *lo)
{
	for (uint32_t t = 0; t < job->taps; t++) {
		size_t at = t / 2 * WGT_ELEMS + t % 2;

		if (job->split) {
			to[at] = (int16_t)(row[t] >> 8);
			lo[at] = (int16_t)(row[t] & 0xff);
		} else {
			to[at] = row[t];
		}
	}
}

/* The weights of group @g, in blocks of channels, zero beyond the taps and channels. */
static void pack_weights(struct conv_int_job *job, bool int16, uint32_t g)
{
	const struct conv_problem *p = job->p;
	const int64_t *s = p->wgt.stride;
	size_t block_elems = job->pairs * WGT_ELEMS, esize = int16 ? 2 : 1;
	/* Usually a channel's taps are one run in memory: widen them at once. */
	bool dense = s[3] == 1 && s[2] == p->kw && s[1] == (int64_t)p->kh * p->kw;

	memset(job->wgt, 0, (job->split ? 2 : 1) * job->blocks * block_elems * sizeof(int16_t));
	for (uint32_t o = 0; o < job->ocg; o++) {
		int16_t *to = job->wgt + o / CONV_INT_CHANNELS * block_elems +
			      o % CONV_INT_CHANNELS * 2;
		const uint8_t *from = (const uint8_t *)p->wgt.data +
				      (int64_t)(g * job->ocg + o) * s[0] * (int64_t)esize;

		if (dense) {
			widen_run(job->wgt_row, 1, from, int16, 1, job->taps);
		} else {
			for (uint32_t i = 0; i < job->icg; i++)
				for (uint32_t ky = 0; ky < p->kh; ky++)
					widen_run(job->wgt_row + (i * p->kh + ky) * p->kw, 1,
						  from + (i * s[1] + ky * s[2]) * (int64_t)esize,
						  int16, s[3], p->kw);
		}
		deal_taps(job, job->wgt_row, to, to + job->blocks * block_elems);
	}
}

/* to[2 r] = a[r], to[2 r + 1] = b ? b[r] : 0, for r < @n. */
static void interleave(int16_t *to, const int16_t *a, const int16_t *b, uint32_t n)
{
	uint32_t r = 0;

	if (b) {
		for (; r + 8 <= n; r += 8) {
			__m128i va = _mm_loadu_si128((const __m128i *)(a + r));
			__m128i vb = _mm_loadu_si128((const __m128i *)(b + r));

			_mm_storeu_si128((__m128i *)(to + 2 * r), _mm_unpacklo_epi16(va, vb));
			_mm_storeu_si128((__m128i *)(to + 2 * r + 8), _mm_unpackhi_epi16(va, vb));
		}
	}
	for (; r < n; r++) {
		to[2 * r] = a[r];
		to[2 * r + 1] = b ? b[r] : 0;
	}
}

/*
 * The patch of @count (at most CONV_INT_POSITIONS) output positions from
 * @first (numbered over batch, y, x) of group @g, into @to, and where each
 * one's output goes, into @out_offset.
 */
static void gather_group(struct conv_int_job *job, uint32_t g, size_t first, uint32_t count,
			 int16_t *to, int64_t *out_offset)
{
	const struct conv_problem *p = job->p;
	size_t per_image = (size_t)p->oh * p->ow;

	for (uint32_t r = 0; r < count;) {
		size_t pos = first + r;
		uint32_t b = (uint32_t)(pos / per_image);
		uint32_t y = (uint32_t)(pos % per_image / p->ow), x = (uint32_t)(pos % p->ow);
		uint32_t run = p->ow - x < count - r ? p->ow - x : count - r;
		const int16_t *base = job->in + ((size_t)b * p->ic + (size_t)g * job->icg) * job->plane +
				      (size_t)y * p->sy * job->row + x;

		for (size_t k = 0; k < job->pairs; k++) {
			uint32_t t = 2 * k;

			interleave(to + k * GROUP_ELEMS + 2 * r, base + job->tap_offset[t],
				   t + 1 < job->taps ? base + job->tap_offset[t + 1] : NULL, run);
		}
		for (uint32_t i = 0; i < run; i++)
			out_offset[r + i] = b * p->dst.stride[0] + y * p->dst.stride[2] +
					    (int64_t)(x + i) * p->dst.stride[3];
		r += run;
	}
}

/*
 * out = the outputs of channel block @block for the first @positions of
 * position group @patch, exact.
 */
static void dot_block(const struct conv_int_job *job, const int16_t *patch, size_t block,
		      unsigned int positions, int64_t out[CONV_INT_CHANNELS][CONV_INT_POSITIONS])
{
	size_t block_elems = job->pairs * WGT_ELEMS;
	const int16_t *hi = job->wgt + block * block_elems;
	const int16_t *lo = hi + job->blocks * block_elems;
	int64_t hi_sum[CONV_INT_CHANNELS][CONV_INT_POSITIONS];
	int64_t lo_sum[CONV_INT_CHANNELS][CONV_INT_POSITIONS];

	if (!job->split) {
		job->kernels->dot(patch, hi, job->pairs, positions, out);
		return;
	}
	memset(out, 0, sizeof(hi_sum));
	for (size_t k = 0; k < job->pairs; k += CHUNK_PAIRS) {
		size_t n = job->pairs - k < CHUNK_PAIRS ? job->pairs - k : CHUNK_PAIRS;

		job->kernels->dot(patch + k * GROUP_ELEMS, hi + k * WGT_ELEMS, n, positions,
				  hi_sum);
		job->kernels->dot(patch + k * GROUP_ELEMS, lo + k * WGT_ELEMS, n, positions,
				  lo_sum);
		for (int j = 0; j < CONV_INT_CHANNELS; j++)
			for (unsigned int r = 0; r < positions; r++)
				out[j][r] += hi_sum[j][r] * 256 + lo_sum[j][r];
	}
}

/* Every output channel of group @g for @count positions gathered from @first. */
static void multiply_block(const struct conv_int_job *job, uint32_t g, size_t count)
{
	const struct conv_problem *p = job->p;
	int32_t *dst = p->dst.data;
	size_t group_elems = job->pairs * GROUP_ELEMS;
	int64_t out[CONV_INT_CHANNELS][CONV_INT_POSITIONS];

	for (size_t block = 0; block < job->blocks; block++) {
		uint32_t o0 = (uint32_t)block * CONV_INT_CHANNELS;
		uint32_t channels = job->ocg - o0 < CONV_INT_CHANNELS ? job->ocg - o0 :
									 CONV_INT_CHANNELS;

		for (size_t first = 0; first < count; first += CONV_INT_POSITIONS) {
			uint32_t positions = count - first < CONV_INT_POSITIONS ?
						     (uint32_t)(count - first) : CONV_INT_POSITIONS;
			const int64_t *offset = job->out_offset + first;

			dot_block(job, job->patch + first / CONV_INT_POSITIONS * group_elems, block,
				  positions, out);
			for (uint32_t j = 0; j < channels; j++) {
				int64_t chan = (int64_t)(g * job->ocg + o0 + j) * p->dst.stride[1];

				for (uint32_t r = 0; r < positions; r++)
					dst[offset[r] + chan] = saturate32(out[j][r]);
			}
		}
	}
}

int conv_int(struct scratch_pool *pool, const struct conv_problem *p, bool int16,
	     int32_t pad_value, const struct conv_int_kernels *kernels,
	     const struct mem_ctx *cancel)
{
	struct conv_int_job job = {
		.p = p,
		.kernels = kernels,
		.split = int16 && kernels->lanes32,
		.icg = p->ic / p->groups,
		.ocg = p->oc / p->groups,
	};
	size_t positions = (size_t)p->n * p->oh * p->ow, block_positions, group_elems;
	int ret = VDLA_ERROR_LIMIT;

	job.taps = job.icg * p->kh * p->kw;
	job.pairs = (job.taps + 1) / 2;
	job.blocks = (job.ocg + CONV_INT_CHANNELS - 1) / CONV_INT_CHANNELS;
	job.ph = p->ih + p->pt + p->pb;
	job.pw = p->iw + p->pl + p->pr;
	job.wp = (job.pw + p->sx - 1) / p->sx;
	job.row = (size_t)p->sx * job.wp;
	job.plane = job.ph * job.row;
	group_elems = job.pairs * GROUP_ELEMS;
	job.block_groups = BLOCK_BYTES / (group_elems * sizeof(int16_t));
	if (job.block_groups < 1)
		job.block_groups = 1;
	if (job.block_groups * CONV_INT_POSITIONS > positions)
		job.block_groups = (positions + CONV_INT_POSITIONS - 1) / CONV_INT_POSITIONS;
	block_positions = job.block_groups * CONV_INT_POSITIONS;

	job.in = scratch_get(pool, (size_t)p->n * p->ic * job.plane * sizeof(int16_t));
	job.tap_offset = scratch_get(pool, job.taps * sizeof(int64_t));
	job.wgt_row = scratch_get(pool, job.taps * sizeof(int16_t));
	job.wgt = scratch_get(pool, (job.split ? 2 : 1) * job.blocks * job.pairs * WGT_ELEMS *
					    sizeof(int16_t));
	job.patch = scratch_get(pool, job.block_groups * group_elems * sizeof(int16_t));
	job.out_offset = scratch_get(pool, block_positions * sizeof(int64_t));
	if (!job.in || !job.tap_offset || !job.wgt_row || !job.wgt || !job.patch ||
	    !job.out_offset)
		goto out;
	/*
	 * Positions past the last of a group are computed and dropped; they
	 * hold zeros or an earlier group's values, int16 all the same, which
	 * keep the lanes within their bounds.
	 */
	memset(job.patch, 0, job.block_groups * group_elems * sizeof(int16_t));

	prepare_input(&job, int16, pad_value);
	compute_tap_offsets(&job);
	for (uint32_t g = 0; g < p->groups; g++) {
		pack_weights(&job, int16, g);
		for (size_t first = 0; first < positions; first += block_positions) {
			size_t count = positions - first < block_positions ? positions - first :
									      block_positions;

			if (cancel && mem_cancelled(cancel)) {
				ret = VDLA_ERROR_CANCELLED;
				goto out;
			}
			for (size_t q = 0; q < count; q += CONV_INT_POSITIONS)
				gather_group(&job, g, first + q,
					     count - q < CONV_INT_POSITIONS ? (uint32_t)(count - q) :
									      CONV_INT_POSITIONS,
					     job.patch + q / CONV_INT_POSITIONS * group_elems,
					     job.out_offset + q);
			multiply_block(&job, g, count);
		}
	}
	ret = 0;
out:
	scratch_put(pool, job.out_offset);
	scratch_put(pool, job.patch);
	scratch_put(pool, job.wgt);
	scratch_put(pool, job.wgt_row);
	scratch_put(pool, job.tap_offset);
	scratch_put(pool, job.in);
	return ret;
}
