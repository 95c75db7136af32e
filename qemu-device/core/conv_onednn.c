// SPDX-License-Identifier: MIT
/*
 * CONV on oneDNN. The device hands oneDNN plain NCHW/GOIHW buffers; oneDNN
 * picks its preferred blocked layouts and we reorder into and out of them,
 * which is the same work any user of the library with plain tensors does.
 * The primitives (the convolution and its reorders) are kept per worker,
 * keyed by everything that defines them, so that an operation of a shape
 * seen lately runs without asking oneDNN to pick an implementation again.
 */
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>

#include "conv.h"
#include "mem.h"
#include "scratch.h"

/*
 * What defines a convolution primitive and its reorders: types, dims and
 * strides of the three operands, and the geometry. Compared bytewise, so
 * always zeroed before it is filled.
 */
struct conv_key {
	int64_t int8;
	int64_t src_dims[4], src_strides[4];
	int64_t wgt_dims[5], wgt_strides[5];
	int64_t dst_dims[4], dst_strides[4];
	int64_t strides[2], dilates[2], pad_l[2], pad_r[2];
};

/* A convolution ready to run: the primitive and the reorders around it. */
struct conv_entry {
	struct conv_key key;
	uint64_t last_use;	/* 0: empty */
	dnnl_primitive_desc_t pd;
	dnnl_primitive_t conv;
	/* The user's plain layouts, and reorders into and out of oneDNN's (NULL: same). */
	dnnl_memory_desc_t src_md, wgt_md, dst_md;
	dnnl_primitive_t src_in, wgt_in, dst_out;
};

/* Convolutions a worker keeps: every distinct layer of a ResNet-50 fits. */
#define CONV_CACHE_ENTRIES 32

struct dnnl_handles {
	dnnl_engine_t engine;
	dnnl_stream_t stream;
	uint64_t uses;
	struct conv_entry cache[CONV_CACHE_ENTRIES];
};

static void entry_clear(struct conv_entry *e)
{
	if (e->src_in)
		dnnl_primitive_destroy(e->src_in);
	if (e->wgt_in)
		dnnl_primitive_destroy(e->wgt_in);
	if (e->dst_out)
		dnnl_primitive_destroy(e->dst_out);
	if (e->conv)
		dnnl_primitive_destroy(e->conv);
	if (e->pd)
		dnnl_primitive_desc_destroy(e->pd);
	memset(e, 0, sizeof(*e));
}

/* Only one thread uses a slot (a core's CONV worker), so it needs no lock. */
static struct dnnl_handles *handles(void **slot)
{
	struct dnnl_handles *h = *slot;

	if (h)
		return h;
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	if (dnnl_engine_create(&h->engine, dnnl_cpu, 0) != dnnl_success) {
		free(h);
		return NULL;
	}
	if (dnnl_stream_create(&h->stream, h->engine, dnnl_stream_default_flags) !=
	    dnnl_success) {
		dnnl_engine_destroy(h->engine);
		free(h);
		return NULL;
	}
	*slot = h;
	return h;
}

void conv_onednn_release(void **slot)
{
	struct dnnl_handles *h = *slot;

	if (!h)
		return;
	for (int i = 0; i < CONV_CACHE_ENTRIES; i++)
		entry_clear(&h->cache[i]);
	dnnl_stream_destroy(h->stream);
	dnnl_engine_destroy(h->engine);
	free(h);
	*slot = NULL;
}

/* A user's buffer, and the scratch buffer in oneDNN's layout when it differs. */
struct bound_memory {
	dnnl_memory_t user;
	dnnl_memory_t inner;	/* == user when layouts match */
	void *scratch;
};

static dnnl_status_t reorder(struct dnnl_handles *h, dnnl_primitive_t r, dnnl_memory_t from,
			     dnnl_memory_t to)
{
	dnnl_exec_arg_t args[2] = { { DNNL_ARG_FROM, from }, { DNNL_ARG_TO, to } };

	return dnnl_primitive_execute(r, h->stream, 2, args);
}

/*
 * Wraps @ptr (laid out as @user_md) for the primitive, which wants @want:
 * with a reorder @in, into a scratch buffer, reordered now for an input.
 */
static int bind(struct dnnl_handles *h, struct scratch_pool *pool,
		const dnnl_memory_desc_t *user_md, void *ptr, const dnnl_memory_desc_t *want,
		dnnl_primitive_t in, bool input, struct bound_memory *m)
{
	m->scratch = NULL;
	m->inner = NULL;
	if (dnnl_memory_create(&m->user, user_md, h->engine, ptr) != dnnl_success) {
		m->user = NULL;
		return -1;
	}
	if (!in) {
		m->inner = m->user;
		return 0;
	}
	m->scratch = scratch_get(pool, dnnl_memory_desc_get_size(want));
	if (!m->scratch ||
	    dnnl_memory_create(&m->inner, want, h->engine, m->scratch) != dnnl_success) {
		m->inner = NULL;
		return -1;
	}
	if (input && reorder(h, in, m->user, m->inner) != dnnl_success)
		return -1;
	return 0;
}

static void unbind(struct scratch_pool *pool, struct bound_memory *m)
{
	if (m->inner && m->inner != m->user)
		dnnl_memory_destroy(m->inner);
	if (m->user)
		dnnl_memory_destroy(m->user);
	scratch_put(pool, m->scratch);
}

bool conv_onednn_int8_is_exact(const struct conv_problem *p)
{
	const int8_t *wgt = p->wgt.data;
	uint32_t icg = p->ic / p->groups;

	for (uint32_t o = 0; o < p->oc; o++) {
		int64_t l1 = 0;

		for (uint32_t i = 0; i < icg; i++)
			for (uint32_t y = 0; y < p->kh; y++)
				for (uint32_t x = 0; x < p->kw; x++)
					l1 += abs(wgt[o * p->wgt.stride[0] + i * p->wgt.stride[1] +
						      y * p->wgt.stride[2] + x * p->wgt.stride[3]]);
		if (255 * l1 > (1 << 24))
			return false;
	}
	return true;
}

static bool strided_md(dnnl_memory_desc_t *md, int ndims, const int64_t *dims,
		       const int64_t *strides, dnnl_data_type_t type)
{
	dnnl_dims_t d, st;

	for (int i = 0; i < ndims; i++) {
		d[i] = dims[i];
		st[i] = strides[i];
	}
	return dnnl_memory_desc_init_by_strides(md, ndims, d, type, st) == dnnl_success;
}

static bool any_md(dnnl_memory_desc_t *md, int ndims, const int64_t *dims, dnnl_data_type_t type)
{
	dnnl_dims_t d;

	for (int i = 0; i < ndims; i++)
		d[i] = dims[i];
	return dnnl_memory_desc_init_by_tag(md, ndims, d, type, dnnl_format_tag_any) ==
	       dnnl_success;
}

/* The operands of @p as oneDNN sees them: plain dims, and the weights grouped. */
struct onednn_shapes {
	int64_t src_dims[4], dst_dims[4], wgt_dims[5], wgt_strides[5];
};

static void onednn_shapes(const struct conv_problem *p, struct onednn_shapes *s)
{
	int64_t ocg = p->oc / p->groups;
	const int64_t src_dims[4] = { p->n, p->ic, p->ih, p->iw };
	const int64_t dst_dims[4] = { p->n, p->oc, p->oh, p->ow };
	const int64_t wgt_dims[5] = { p->groups, ocg, p->ic / p->groups, p->kh, p->kw };
	const int64_t wgt_strides[5] = { ocg * p->wgt.stride[0], p->wgt.stride[0],
					 p->wgt.stride[1], p->wgt.stride[2], p->wgt.stride[3] };

	memcpy(s->src_dims, src_dims, sizeof(src_dims));
	memcpy(s->dst_dims, dst_dims, sizeof(dst_dims));
	memcpy(s->wgt_dims, wgt_dims, sizeof(wgt_dims));
	memcpy(s->wgt_strides, wgt_strides, sizeof(wgt_strides));
}

bool conv_onednn_takes_strides(const struct conv_problem *p, enum conv_operand_id which)
{
	struct onednn_shapes s;
	dnnl_memory_desc_t md;

	onednn_shapes(p, &s);
	switch (which) {
	case CONV_SRC:
		return strided_md(&md, 4, s.src_dims, p->src.stride, dnnl_f32);
	case CONV_WGT:
		return strided_md(&md, 5, s.wgt_dims, s.wgt_strides, dnnl_f32);
	default:
		return strided_md(&md, 4, s.dst_dims, p->dst.stride, dnnl_f32);
	}
}

static bool make_reorder(struct dnnl_handles *h, const dnnl_memory_desc_t *from,
			 const dnnl_memory_desc_t *to, dnnl_primitive_t *r)
{
	dnnl_primitive_desc_t rpd;
	dnnl_status_t st;

	*r = NULL;
	if (dnnl_memory_desc_equal(from, to))
		return true;
	if (dnnl_reorder_primitive_desc_create(&rpd, from, h->engine, to, h->engine, NULL) !=
	    dnnl_success)
		return false;
	st = dnnl_primitive_create(r, rpd);
	dnnl_primitive_desc_destroy(rpd);
	if (st != dnnl_success)
		*r = NULL;
	return st == dnnl_success;
}

/* The key of @p's convolution. */
static void make_key(const struct conv_problem *p, int int8, struct conv_key *k)
{
	struct onednn_shapes s;

	memset(k, 0, sizeof(*k));
	onednn_shapes(p, &s);
	k->int8 = int8;
	memcpy(k->src_dims, s.src_dims, sizeof(k->src_dims));
	memcpy(k->src_strides, p->src.stride, sizeof(k->src_strides));
	memcpy(k->wgt_dims, s.wgt_dims, sizeof(k->wgt_dims));
	memcpy(k->wgt_strides, s.wgt_strides, sizeof(k->wgt_strides));
	memcpy(k->dst_dims, s.dst_dims, sizeof(k->dst_dims));
	memcpy(k->dst_strides, p->dst.stride, sizeof(k->dst_strides));
	k->strides[0] = p->sy, k->strides[1] = p->sx;
	k->dilates[0] = p->dy - 1, k->dilates[1] = p->dx - 1;
	k->pad_l[0] = p->pt, k->pad_l[1] = p->pl;
	k->pad_r[0] = p->pb, k->pad_r[1] = p->pr;
}

/* Creates the primitive and reorders of @k into @e: false if oneDNN refuses. */
static bool entry_create(struct dnnl_handles *h, const struct conv_key *k, struct conv_entry *e)
{
	dnnl_data_type_t in_type = k->int8 ? dnnl_s8 : dnnl_f32;
	dnnl_data_type_t out_type = k->int8 ? dnnl_s32 : dnnl_f32;
	/* oneDNN takes dnnl_dims_t (12 dims), of which it reads the first 2 here. */
	dnnl_dims_t strides = { k->strides[0], k->strides[1] };
	dnnl_dims_t dilates = { k->dilates[0], k->dilates[1] };
	dnnl_dims_t pad_l = { k->pad_l[0], k->pad_l[1] }, pad_r = { k->pad_r[0], k->pad_r[1] };
	dnnl_memory_desc_t src_any, wgt_any, dst_any;
	dnnl_convolution_desc_t desc;
	dnnl_primitive_attr_t attr;
	bool ok;

	memset(e, 0, sizeof(*e));
	e->key = *k;
	/*
	 * Every status is checked: a descriptor oneDNN refused (overlapping
	 * strides) is left as it was, and computing on it read and wrote
	 * outside the buffers. Callers pass only strides oneDNN takes
	 * (conv_onednn_takes_strides()); this is the second line.
	 */
	if (!strided_md(&e->src_md, 4, k->src_dims, k->src_strides, in_type) ||
	    !strided_md(&e->wgt_md, 5, k->wgt_dims, k->wgt_strides, in_type) ||
	    !strided_md(&e->dst_md, 4, k->dst_dims, k->dst_strides, out_type) ||
	    !any_md(&src_any, 4, k->src_dims, in_type) || !any_md(&dst_any, 4, k->dst_dims, out_type) ||
	    !any_md(&wgt_any, 5, k->wgt_dims, in_type))
		return false;
	if (dnnl_dilated_convolution_forward_desc_init(&desc, dnnl_forward_inference,
						       dnnl_convolution_direct, &src_any, &wgt_any,
						       NULL, &dst_any, strides, dilates, pad_l,
						       pad_r) != dnnl_success)
		return false;
	/*
	 * Strict math: ONEDNN_DEFAULT_FPMATH_MODE in the environment would
	 * otherwise let FP32 compute in bf16 on hosts that have it, far outside
	 * the spec's tolerance.
	 */
	if (dnnl_primitive_attr_create(&attr) != dnnl_success)
		return false;
	ok = dnnl_primitive_attr_set_fpmath_mode(attr, dnnl_fpmath_mode_strict) == dnnl_success &&
	     dnnl_primitive_desc_create(&e->pd, &desc, attr, h->engine, NULL) == dnnl_success;
	dnnl_primitive_attr_destroy(attr);
	if (!ok) {
		e->pd = NULL;
		return false;
	}
	if (dnnl_primitive_create(&e->conv, e->pd) != dnnl_success) {
		e->conv = NULL;
		return false;
	}
	return make_reorder(h, &e->src_md, dnnl_primitive_desc_query_md(e->pd, dnnl_query_src_md, 0),
			    &e->src_in) &&
	       make_reorder(h, &e->wgt_md,
			    dnnl_primitive_desc_query_md(e->pd, dnnl_query_weights_md, 0),
			    &e->wgt_in) &&
	       make_reorder(h, dnnl_primitive_desc_query_md(e->pd, dnnl_query_dst_md, 0),
			    &e->dst_md, &e->dst_out);
}

/* The cached convolution of @k, created in the least recently used slot if new. */
static struct conv_entry *lookup(struct dnnl_handles *h, const struct conv_key *k)
{
	struct conv_entry *victim = &h->cache[0];

	for (int i = 0; i < CONV_CACHE_ENTRIES; i++) {
		struct conv_entry *e = &h->cache[i];

		if (e->last_use && !memcmp(&e->key, k, sizeof(*k))) {
			e->last_use = ++h->uses;
			return e;
		}
		if (e->last_use < victim->last_use)
			victim = e;
	}
	entry_clear(victim);
	if (!entry_create(h, k, victim)) {
		entry_clear(victim);
		return NULL;
	}
	victim->last_use = ++h->uses;
	return victim;
}

/* One oneDNN convolution of @p: 0, or -1 if oneDNN refused or failed. */
static int run_once(void **slot, struct scratch_pool *pool, const struct conv_problem *p, int int8)
{
	struct dnnl_handles *h = handles(slot);
	struct bound_memory src = { 0 }, wgt = { 0 }, dst = { 0 };
	dnnl_exec_arg_t args[3];
	struct conv_entry *e;
	struct conv_key key;
	int ret = -1;

	if (!h)
		return -1;
	make_key(p, int8, &key);
	e = lookup(h, &key);
	if (!e)
		return -1;

	if (bind(h, pool, &e->src_md, p->src.data,
		 dnnl_primitive_desc_query_md(e->pd, dnnl_query_src_md, 0), e->src_in, true,
		 &src) ||
	    bind(h, pool, &e->wgt_md, p->wgt.data,
		 dnnl_primitive_desc_query_md(e->pd, dnnl_query_weights_md, 0), e->wgt_in, true,
		 &wgt) ||
	    bind(h, pool, &e->dst_md, p->dst.data,
		 dnnl_primitive_desc_query_md(e->pd, dnnl_query_dst_md, 0), e->dst_out, false,
		 &dst))
		goto out;

	args[0] = (dnnl_exec_arg_t){ DNNL_ARG_SRC, src.inner };
	args[1] = (dnnl_exec_arg_t){ DNNL_ARG_WEIGHTS, wgt.inner };
	args[2] = (dnnl_exec_arg_t){ DNNL_ARG_DST, dst.inner };
	if (dnnl_primitive_execute(e->conv, h->stream, 3, args) == dnnl_success &&
	    (!e->dst_out || reorder(h, e->dst_out, dst.inner, dst.user) == dnnl_success))
		ret = 0;
out:
	dnnl_stream_wait(h->stream);
	unbind(pool, &src);
	unbind(pool, &wgt);
	unbind(pool, &dst);
	return ret;
}

/* MACs of one piece: a few to a hundred milliseconds, how late a reset is noticed. */
#define CHUNK_MACS	(1ull << 27)

static uint64_t conv_macs(const struct conv_problem *p)
{
	return (uint64_t)p->n * p->oc * p->oh * p->ow * (p->ic / p->groups) * p->kh * p->kw;
}

static void *moved(void *data, int64_t elements, size_t esize)
{
	return (uint8_t *)data + elements * (int64_t)esize;
}

/*
 * Runs @p in pieces of at most CHUNK_MACS where it can, looking for a
 * reset between them: by image, then by group or output channel, then by
 * output line. Each piece is a whole convolution of its outputs, so the
 * results are the same as in one piece up to float summation order.
 */
static int run_chunked(void **slot, struct scratch_pool *pool, const struct conv_problem *p,
		       int int8, const struct mem_ctx *cancel)
{
	size_t in = int8 ? 1 : 4, out = 4;
	struct conv_problem q = *p;
	uint64_t macs = conv_macs(p);

	if (mem_cancelled(cancel))
		return VDLA_ERROR_CANCELLED;
	if (macs <= CHUNK_MACS)
		return run_once(slot, pool, p, int8) ? VDLA_ERROR_LIMIT : 0;

	if (p->n > 1) {
		q.n = 1;
		for (uint32_t b = 0; b < p->n; b++) {
			int ret;

			q.src.data = moved(p->src.data, b * p->src.stride[0], in);
			q.dst.data = moved(p->dst.data, b * p->dst.stride[0], out);
			ret = run_chunked(slot, pool, &q, int8, cancel);
			if (ret)
				return ret;
		}
		return 0;
	}
	if (p->groups > 1 || p->oc > 1) {
		/* Whole groups at a time, or output channels of the one group. */
		uint32_t units = p->groups > 1 ? p->groups : p->oc;
		uint32_t icg = p->ic / p->groups, ocg = p->oc / p->groups;
		uint64_t per_unit = macs / units;
		uint32_t step = per_unit >= CHUNK_MACS ? 1 : (uint32_t)(CHUNK_MACS / per_unit);

		for (uint32_t u = 0; u < units; u += step) {
			uint32_t count = units - u < step ? units - u : step;
			int ret;

			if (p->groups > 1) {
				q.groups = count, q.ic = count * icg, q.oc = count * ocg;
				q.src.data = moved(p->src.data, (int64_t)u * icg * p->src.stride[1], in);
				q.wgt.data = moved(p->wgt.data, (int64_t)u * ocg * p->wgt.stride[0], in);
				q.dst.data = moved(p->dst.data, (int64_t)u * ocg * p->dst.stride[1], out);
			} else {
				q.oc = count;
				q.wgt.data = moved(p->wgt.data, (int64_t)u * p->wgt.stride[0], in);
				q.dst.data = moved(p->dst.data, (int64_t)u * p->dst.stride[1], out);
			}
			ret = run_chunked(slot, pool, &q, int8, cancel);
			if (ret)
				return ret;
		}
		return 0;
	}
	/* One image, one output channel: output lines, with the input lines they need. */
	uint64_t per_line = macs / p->oh;
	uint32_t step = per_line >= CHUNK_MACS ? 1 : (uint32_t)(CHUNK_MACS / per_line);
	int64_t span = (int64_t)(p->kh - 1) * p->dy + 1;

	if (p->oh == 1)
		return run_once(slot, pool, p, int8) ? VDLA_ERROR_LIMIT : 0;
	for (uint32_t y = 0; y < p->oh; y += step) {
		uint32_t count = p->oh - y < step ? p->oh - y : step;
		int64_t first = (int64_t)y * p->sy - p->pt;
		int64_t end = (int64_t)(y + count - 1) * p->sy - p->pt + span;
		int64_t from = first < 0 ? 0 : first, to = end > p->ih ? p->ih : end;
		int ret;

		q.oh = count;
		q.pt = (uint32_t)(from - first);
		q.pb = (uint32_t)(end - to);
		q.ih = (uint32_t)(to - from);
		q.src.data = moved(p->src.data, from * p->src.stride[2], in);
		q.dst.data = moved(p->dst.data, (int64_t)y * p->dst.stride[2], out);
		if (mem_cancelled(cancel))
			return VDLA_ERROR_CANCELLED;
		ret = run_once(slot, pool, &q, int8) ? VDLA_ERROR_LIMIT : 0;
		if (ret)
			return ret;
	}
	return 0;
}

int conv_onednn(void **slot, struct scratch_pool *pool, const struct conv_problem *p, int int8,
		const struct mem_ctx *cancel)
{
	if (!cancel)
		return run_once(slot, pool, p, int8) ? VDLA_ERROR_LIMIT : 0;
	return run_chunked(slot, pool, p, int8, cancel);
}
