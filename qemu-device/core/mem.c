// SPDX-License-Identifier: MIT
#include "mem.h"

#include <string.h>

#include "mmu.h"

/* A page entry of an access: the physical page, and that the access touches it. */
#define PAGE_TOUCHED		1ull
#define PAGE_MASK		(~(uint64_t)(VDLA_PAGE_SIZE - 1))
/* Runs between two looks at whether the operation was cancelled. */
#define CANCEL_CHECK_RUNS	(1u << 16)

uint32_t dtype_size(uint32_t dtype)
{
	switch (dtype) {
	case VDLA_DTYPE_INT8:
		return 1;
	case VDLA_DTYPE_INT16:
	case VDLA_DTYPE_FP16:
		return 2;
	case VDLA_DTYPE_INT32:
	case VDLA_DTYPE_FP32:
		return 4;
	default:
		return 0;
	}
}

uint64_t tensor_extent(const struct tensor *t)
{
	uint64_t last = 0;

	for (int d = 0; d < 4; d++)
		last += (uint64_t)(t->dim[d] - 1) * t->stride[d];
	return last + t->esize;
}

int tensor_load(const uint32_t *regs, uint32_t offset, struct tensor *t)
{
	static const uint32_t dim_reg[4] = { VDLA_T_W, VDLA_T_H, VDLA_T_C, VDLA_T_N };
	static const uint32_t stride_reg[4] = { VDLA_T_STRIDE_W, VDLA_T_STRIDE_H,
						VDLA_T_STRIDE_C, VDLA_T_STRIDE_N };

	memset(t, 0, sizeof(*t));
	t->addr = dreg64(regs, offset + VDLA_T_ADDR_LO);
	t->dtype = dreg(regs, offset + VDLA_T_DTYPE);
	t->esize = dtype_size(t->dtype);
	if (!t->esize)
		return VDLA_ERROR_DTYPE;
	for (int d = 0; d < 4; d++) {
		t->dim[d] = dreg(regs, offset + dim_reg[d]);
		if (t->dim[d] == 0 || t->dim[d] > VDLA_MAX_DIM)
			return VDLA_ERROR_SHAPE;
		t->stride[d] = dreg(regs, offset + stride_reg[d]);
		if (t->dim[d] == 1)
			t->stride[d] = 0; /* ignored for a dimension of size 1 */
		else if (t->stride[d] % t->esize)
			return VDLA_ERROR_STRIDE;
	}
	if (tensor_extent(t) > VDLA_MAX_TENSOR_BYTES ||
	    tensor_elements(t) > VDLA_MAX_TENSOR_ELEMENTS)
		return VDLA_ERROR_LIMIT;
	return VDLA_ERROR_NONE;
}

bool tensor_same_shape(const struct tensor *a, const struct tensor *b)
{
	return memcmp(a->dim, b->dim, sizeof(a->dim)) == 0;
}

bool mem_cancelled(const struct mem_ctx *ctx)
{
	const struct vdla_core *core = ctx->core;

	return __atomic_load_n(&core->generation, __ATOMIC_RELAXED) != ctx->generation ||
	       __atomic_load_n(&core->stopping, __ATOMIC_RELAXED);
}

/* ---- runs -------------------------------------------------------------- */

/*
 * The runs of @t: its dimensions of size > 1 and stride > 0 sorted by
 * stride, the innermost merged while contiguous, so that a packed tensor of
 * any layout is one run. A dimension of stride 0 repeats the same bytes: the
 * shadow holds them once, and so does the walk.
 */
static void tensor_runs(const struct tensor *t, struct runs *r)
{
	int order[4], n = 0;

	for (int d = 0; d < 4; d++) {
		if (t->dim[d] > 1 && t->stride[d])
			order[n++] = d;
	}
	for (int i = 1; i < n; i++) {
		for (int j = i; j > 0 && t->stride[order[j]] < t->stride[order[j - 1]]; j--) {
			int tmp = order[j];

			order[j] = order[j - 1];
			order[j - 1] = tmp;
		}
	}
	memset(r, 0, sizeof(*r));
	r->run_bytes = t->esize;
	for (int i = 0; i < n; i++) {
		int d = order[i];

		if (r->ndims == 0 && t->stride[d] == r->run_bytes) {
			r->run_bytes *= t->dim[d]; /* still contiguous */
			continue;
		}
		r->size[r->ndims] = t->dim[d];
		r->mem_stride[r->ndims] = t->stride[d];
		r->shadow_stride[r->ndims] = t->stride[d];
		r->ndims++;
	}
}

static uint64_t runs_count(const struct runs *r)
{
	uint64_t count = 1;

	for (int i = 0; i < r->ndims; i++)
		count *= r->size[i];
	return count;
}

static void run_offsets(const struct runs *r, const struct run_cursor *c, uint64_t *mem,
			uint64_t *shadow)
{
	*mem = 0;
	*shadow = 0;
	for (int i = 0; i < r->ndims; i++) {
		*mem += c->idx[i] * r->mem_stride[i];
		*shadow += c->idx[i] * r->shadow_stride[i];
	}
}

static void run_next(const struct runs *r, struct run_cursor *c)
{
	for (int i = 0; i < r->ndims; i++) {
		if (++c->idx[i] < r->size[i])
			return;
		c->idx[i] = 0;
	}
	c->done = true;
}

/* ---- checking the pages ------------------------------------------------- */

/* Translates and checks every page of [va, va + len) the access has not met yet. */
/*
 * With the MMU off, a run's pages are its guest-physical pages: when the
 * whole stretch of pages is memory, one check marks them all. Returns false
 * when the page-by-page walk must find where it is not.
 */
static bool touch_physical_run(struct mem_ctx *ctx, struct access *a, uint64_t va, uint64_t len)
{
	uint64_t first = va & PAGE_MASK, end = (va + len + VDLA_PAGE_SIZE - 1) & PAGE_MASK;

	if (ctx->mmu_on || a->sram || end > (1ull << VDLA_VA_BITS) ||
	    !mmu_range_is_memory(ctx, first, end - first))
		return false;
	for (uint64_t page = first; page < end; page += VDLA_PAGE_SIZE)
		a->page[(page >> VDLA_PAGE_SHIFT) - a->first_page] = page | PAGE_TOUCHED;
	return true;
}

static int touch_run(struct mem_ctx *ctx, struct access *a, uint64_t va, uint64_t len)
{
	if (len > VDLA_PAGE_SIZE && touch_physical_run(ctx, a, va, len))
		return 0;
	while (len) {
		uint64_t in_page = VDLA_PAGE_SIZE - (va & (VDLA_PAGE_SIZE - 1));
		uint64_t piece = in_page < len ? in_page : len;
		struct translation tr;

		if (a->sram) {
			/* No pages: the whole run must be SRAM. */
			if (!mmu_translate(ctx, va, len, a->write, &tr))
				return VDLA_ERROR_MMU_FAULT;
			piece = tr.len < len ? tr.len : len;
		} else {
			uint64_t *entry = &a->page[(va >> VDLA_PAGE_SHIFT) - a->first_page];

			if (!(*entry & PAGE_TOUCHED)) {
				if (!mmu_translate(ctx, va, piece, a->write, &tr))
					return VDLA_ERROR_MMU_FAULT;
				if (tr.sram) {
					mmu_record_fault(ctx, va, VDLA_MMU_FAULT_OUT_OF_RANGE,
							 a->write);
					return VDLA_ERROR_MMU_FAULT;
				}
				/* Reads take whole pages: the whole page must be memory. */
				if (!mmu_page_is_memory(ctx, tr.addr & PAGE_MASK)) {
					mmu_record_fault(ctx, va, VDLA_MMU_FAULT_UNMAPPED, a->write);
					return VDLA_ERROR_MMU_FAULT;
				}
				*entry = (tr.addr & PAGE_MASK) | PAGE_TOUCHED;
			}
		}
		va += piece;
		len -= piece;
	}
	return 0;
}

/* Sets up @a for its runs and checks every page they touch. */
static int access_check(struct mem_ctx *ctx, struct access *a)
{
	struct run_cursor c = { 0 };
	uint64_t count = 0;

	a->sram = a->va >= VDLA_SRAM_BASE;
	a->bytes = runs_count(&a->runs) * a->runs.run_bytes;
	if (!a->sram) {
		uint64_t last = a->va + a->extent - 1;

		a->first_page = a->va >> VDLA_PAGE_SHIFT;
		a->pages = (last >> VDLA_PAGE_SHIFT) - a->first_page + 1;
		a->page = scratch_get(ctx->pool, a->pages * sizeof(*a->page));
		if (!a->page)
			return VDLA_ERROR_LIMIT;
		memset(a->page, 0, a->pages * sizeof(*a->page));
	}
	while (!c.done) {
		uint64_t mem, shadow;
		int ret;

		if (++count % CANCEL_CHECK_RUNS == 0 && mem_cancelled(ctx))
			return VDLA_ERROR_CANCELLED;
		run_offsets(&a->runs, &c, &mem, &shadow);
		ret = touch_run(ctx, a, a->va + mem, a->runs.run_bytes);
		if (ret)
			return ret;
		run_next(&a->runs, &c);
	}
	return 0;
}

int access_tensor(struct mem_ctx *ctx, const struct tensor *t, bool write, struct access *a)
{
	memset(a, 0, sizeof(*a));
	tensor_runs(t, &a->runs);
	a->va = t->addr;
	a->extent = tensor_extent(t);
	a->write = write;
	a->mirror = true;
	return access_check(ctx, a);
}

int access_lines(struct mem_ctx *ctx, uint64_t va, uint64_t line_bytes, uint64_t lines,
		 uint64_t line_stride, uint64_t surfaces, uint64_t surf_stride, bool write,
		 struct access *a)
{
	struct runs *r = &a->runs;

	memset(a, 0, sizeof(*a));
	r->run_bytes = line_bytes;
	if (lines > 1) {
		r->size[r->ndims] = lines;
		r->mem_stride[r->ndims] = line_stride;
		r->shadow_stride[r->ndims] = line_bytes;
		r->ndims++;
	}
	if (surfaces > 1) {
		r->size[r->ndims] = surfaces;
		r->mem_stride[r->ndims] = surf_stride;
		r->shadow_stride[r->ndims] = line_bytes * lines;
		r->ndims++;
	}
	a->va = va;
	a->extent = (surfaces - 1) * surf_stride + (lines - 1) * line_stride + line_bytes;
	a->write = write;
	a->mirror = false;
	return access_check(ctx, a);
}

void access_free(struct mem_ctx *ctx, struct access *a)
{
	scratch_put(ctx->pool, a->page);
	a->page = NULL;
}

/* ---- reading ------------------------------------------------------------ */

/*
 * How many of the @len bytes from @va (all checked) are physically
 * contiguous, so that one DMA call or one map serves them.
 */
static uint64_t contiguous_bytes(const struct access *a, uint64_t va, uint64_t len)
{
	uint64_t page = (va >> VDLA_PAGE_SHIFT) - a->first_page;
	uint64_t bytes = VDLA_PAGE_SIZE - (va & (VDLA_PAGE_SIZE - 1));

	while (bytes < len && (a->page[page + 1] & PAGE_MASK) == (a->page[page] & PAGE_MASK) +
									 VDLA_PAGE_SIZE) {
		bytes += VDLA_PAGE_SIZE;
		page++;
	}
	return bytes < len ? bytes : len;
}

/* The physical address of checked device address @va of @a. */
static uint64_t physical(const struct access *a, uint64_t va)
{
	return (a->page[(va >> VDLA_PAGE_SHIFT) - a->first_page] & PAGE_MASK) +
	       (va & (VDLA_PAGE_SIZE - 1));
}

/* The bytes of page @i of @a inside [va, va + extent): their offset from va and length. */
static void page_span(const struct access *a, uint64_t i, uint64_t *offset, uint64_t *len)
{
	uint64_t start = (a->first_page + i) << VDLA_PAGE_SHIFT;
	uint64_t end = start + VDLA_PAGE_SIZE;

	if (start < a->va)
		start = a->va;
	if (end > a->va + a->extent)
		end = a->va + a->extent;
	*offset = start - a->va;
	*len = end - start;
}

static int read_memory(struct mem_ctx *ctx, uint64_t pa, void *buf, uint64_t len)
{
	struct vdla_core *core = ctx->core;

	if (core->host.dma_read(core->host.opaque, pa, buf, len)) {
		mmu_record_fault(ctx, pa, VDLA_MMU_FAULT_UNMAPPED, false);
		return VDLA_ERROR_MMU_FAULT;
	}
	return 0;
}

/*
 * A mirrored shadow takes every touched page whole (within the extent),
 * physically contiguous pages in one read: the gaps between elements on a
 * page are memory the access checked, and nothing of them is used.
 */
static int read_pages(struct mem_ctx *ctx, const struct access *a, uint8_t *shadow)
{
	uint64_t i = 0;

	while (i < a->pages) {
		uint64_t offset, len, end, j;

		if (!(a->page[i] & PAGE_TOUCHED)) {
			i++;
			continue;
		}
		page_span(a, i, &offset, &len);
		for (j = i + 1; j < a->pages && (a->page[j] & PAGE_TOUCHED) &&
				(a->page[j] & PAGE_MASK) ==
					(a->page[j - 1] & PAGE_MASK) + VDLA_PAGE_SIZE;
		     j++)
			;
		/* From the first page's start in the extent to the last page's end in it. */
		end = (a->first_page + j) << VDLA_PAGE_SHIFT;
		if (end > a->va + a->extent)
			end = a->va + a->extent;
		len = end - (a->va + offset);
		if (read_memory(ctx, (a->page[i] & PAGE_MASK) + ((a->va + offset) &
								 (VDLA_PAGE_SIZE - 1)),
				shadow + offset, len))
			return VDLA_ERROR_MMU_FAULT;
		if (mem_cancelled(ctx))
			return VDLA_ERROR_CANCELLED;
		i = j;
	}
	return 0;
}

/* A packed shadow takes run by run, each page read once into @page_buf. */
static int read_runs(struct mem_ctx *ctx, const struct access *a, uint8_t *shadow)
{
	uint8_t page_buf[VDLA_PAGE_SIZE];
	uint64_t cached = UINT64_MAX, count = 0;
	struct run_cursor c = { 0 };

	while (!c.done) {
		uint64_t mem, at, va, len;

		if (++count % CANCEL_CHECK_RUNS == 0 && mem_cancelled(ctx))
			return VDLA_ERROR_CANCELLED;
		run_offsets(&a->runs, &c, &mem, &at);
		va = a->va + mem;
		len = a->runs.run_bytes;
		while (len) {
			uint64_t page = (va >> VDLA_PAGE_SHIFT) - a->first_page;
			uint64_t in_page = va & (VDLA_PAGE_SIZE - 1);
			uint64_t piece = contiguous_bytes(a, va, len);

			if (piece >= VDLA_PAGE_SIZE) {
				/* Large runs in one read per physically contiguous stretch. */
				if (read_memory(ctx, physical(a, va), shadow + at, piece))
					return VDLA_ERROR_MMU_FAULT;
			} else {
				/* Small pieces from the page, read once for all of them. */
				piece = VDLA_PAGE_SIZE - in_page < len ? VDLA_PAGE_SIZE - in_page : len;
				if (page != cached) {
					uint64_t offset, span;

					page_span(a, page, &offset, &span);
					if (read_memory(ctx,
							(a->page[page] & PAGE_MASK) +
								((a->va + offset) &
								 (VDLA_PAGE_SIZE - 1)),
							page_buf + ((a->va + offset) &
								    (VDLA_PAGE_SIZE - 1)),
							span))
						return VDLA_ERROR_MMU_FAULT;
					cached = page;
				}
				memcpy(shadow + at, page_buf + in_page, piece);
			}
			va += piece;
			at += piece;
			len -= piece;
		}
		run_next(&a->runs, &c);
	}
	return 0;
}

int access_read(struct mem_ctx *ctx, const struct access *a, uint8_t *shadow)
{
	const struct vdla_core *core = ctx->core;

	if (a->sram) {
		struct run_cursor c = { 0 };
		uint64_t base = a->va - VDLA_SRAM_BASE;

		if (a->mirror) {
			memcpy(shadow, core->sram + base, a->extent);
			return 0;
		}
		while (!c.done) {
			uint64_t mem, at;

			run_offsets(&a->runs, &c, &mem, &at);
			memcpy(shadow + at, core->sram + base + mem, a->runs.run_bytes);
			run_next(&a->runs, &c);
		}
		return 0;
	}
	return a->mirror ? read_pages(ctx, a, shadow) : read_runs(ctx, a, shadow);
}

const uint8_t *access_map_input(struct mem_ctx *ctx, const struct access *a, bool *mapped)
{
	struct vdla_core *core = ctx->core;

	*mapped = false;
	if (!a->mirror || a->write)
		return NULL;
	if (a->sram)
		return core->sram + (a->va - VDLA_SRAM_BASE);
	/* The first page holds an element, so it is checked: one stretch from it. */
	if (contiguous_bytes(a, a->va, a->extent) < a->extent)
		return NULL;
	*mapped = true;
	return core->host.dma_map(core->host.opaque, physical(a, a->va), a->extent, false);
}

void access_unmap_input(struct mem_ctx *ctx, const uint8_t *ptr, uint64_t extent)
{
	struct vdla_core *core = ctx->core;

	core->host.dma_unmap(core->host.opaque, (void *)ptr, extent, false, 0);
}

/* ---- writing ------------------------------------------------------------ */

/* The page of guest RAM an access writes through. */
struct mapped_page {
	uint64_t pa;		/* UINT64_MAX: none */
	uint8_t *ptr;
	uint64_t written;
};

static void unmap_page(struct vdla_core *core, struct mapped_page *m)
{
	if (m->pa != UINT64_MAX && m->ptr)
		core->host.dma_unmap(core->host.opaque, m->ptr, VDLA_PAGE_SIZE, true, m->written);
	m->pa = UINT64_MAX;
	m->ptr = NULL;
	m->written = 0;
}

static int write_piece(struct vdla_core *core, struct mapped_page *m, uint64_t pa,
		       const uint8_t *from, uint64_t len)
{
	uint64_t page = pa & PAGE_MASK, in_page = pa - page;

	if (m->pa != page) {
		unmap_page(core, m);
		m->ptr = core->host.dma_map(core->host.opaque, page, VDLA_PAGE_SIZE, true);
		if (!m->ptr)
			return -1;
		m->pa = page;
	}
	memcpy(m->ptr + in_page, from, len);
	if (in_page + len > m->written)
		m->written = in_page + len;
	return 0;
}

/*
 * Writes a physically contiguous stretch through one map, or page by page
 * when the host cannot map it in one piece (it crosses from one RAM region
 * into the next, or part of it is no longer RAM). Returns the bytes written
 * before a page the host refused, or @len.
 */
static uint64_t write_stretch(struct vdla_core *core, struct mapped_page *m, uint64_t pa,
			      const uint8_t *from, uint64_t len)
{
	uint8_t *to = core->host.dma_map(core->host.opaque, pa, len, true);
	uint64_t done = 0;

	if (to) {
		memcpy(to, from, len);
		core->host.dma_unmap(core->host.opaque, to, len, true, len);
		return len;
	}
	while (done < len) {
		uint64_t piece = VDLA_PAGE_SIZE - ((pa + done) & (VDLA_PAGE_SIZE - 1));

		piece = piece < len - done ? piece : len - done;
		if (write_piece(core, m, pa + done, from + done, piece))
			break;
		done += piece;
	}
	return done;
}

int access_write(struct mem_ctx *ctx, const struct access *a, const uint8_t *shadow,
		 struct run_cursor *cursor, uint64_t max_bytes)
{
	struct vdla_core *core = ctx->core;
	struct mapped_page m = { .pa = UINT64_MAX };
	uint64_t written = 0;
	int ret = 0;

	while (!cursor->done && written < max_bytes) {
		uint64_t mem, at, va, len;

		/* The rest of the current run, or as much of it as this call may write. */
		run_offsets(&a->runs, cursor, &mem, &at);
		va = a->va + mem + cursor->offset;
		at += cursor->offset;
		len = a->runs.run_bytes - cursor->offset;
		if (len > max_bytes - written)
			len = max_bytes - written;
		cursor->offset += len;
		written += len;
		if (a->sram) {
			memcpy(core->sram + va - VDLA_SRAM_BASE, shadow + at, len);
			len = 0;
		}
		while (len) {
			uint64_t piece = contiguous_bytes(a, va, len);
			bool failed;

			if (piece >= VDLA_PAGE_SIZE) {
				/* A large stretch mapped and copied at once. */
				uint64_t done = write_stretch(core, &m, physical(a, va), shadow + at,
							      piece);

				failed = done < piece;
				va += failed ? done : 0;
			} else {
				/* Small pieces through the page they are on, mapped once. */
				uint64_t in_page = va & (VDLA_PAGE_SIZE - 1);

				piece = VDLA_PAGE_SIZE - in_page < len ? VDLA_PAGE_SIZE - in_page : len;
				failed = write_piece(core, &m, physical(a, va), shadow + at, piece);
			}
			if (failed) {
				mmu_record_fault(ctx, va, VDLA_MMU_FAULT_UNMAPPED, true);
				ret = VDLA_ERROR_MMU_FAULT;
				goto out;
			}
			va += piece;
			at += piece;
			len -= piece;
		}
		if (cursor->offset == a->runs.run_bytes) {
			cursor->offset = 0;
			run_next(&a->runs, cursor);
		}
	}
out:
	unmap_page(core, &m);
	return ret;
}
