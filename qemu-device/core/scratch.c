// SPDX-License-Identifier: MIT
#include "scratch.h"

#include <stdint.h>
#include <stdlib.h>

/* Each buffer is preceded by a header holding its capacity. */
#define HEADER 64

static size_t capacity_of(void *ptr)
{
	return *(size_t *)((uint8_t *)ptr - HEADER);
}

void *scratch_get(struct scratch_pool *pool, size_t size)
{
	int best = -1;
	uint8_t *raw;

	if (pool->limit && (size > pool->limit || pool->in_use > pool->limit - size))
		return NULL;
	/* The smallest kept block that fits, and fits the limit. */
	for (int i = 0; i < SCRATCH_BLOCKS; i++) {
		if (pool->block[i] && pool->size[i] >= size &&
		    (!pool->limit || pool->in_use + pool->size[i] <= pool->limit) &&
		    (best < 0 || pool->size[i] < pool->size[best]))
			best = i;
	}
	if (best >= 0) {
		void *ptr = pool->block[best];

		pool->kept -= pool->size[best];
		pool->in_use += pool->size[best];
		pool->block[best] = NULL;
		pool->size[best] = 0;
		return ptr;
	}

	if (size < 4096)
		size = 4096;
	if (posix_memalign((void **)&raw, HEADER, size + HEADER))
		return NULL;
	*(size_t *)raw = size;
	pool->in_use += size;
	return raw + HEADER;
}

void scratch_put(struct scratch_pool *pool, void *ptr)
{
	size_t size;
	int slot = -1;

	if (!ptr)
		return;
	size = capacity_of(ptr);
	pool->in_use -= size;
	/* Keep it in a free slot, or in place of the smallest smaller block. */
	for (int i = 0; i < SCRATCH_BLOCKS; i++) {
		if (!pool->block[i]) {
			slot = i;
			break;
		}
		if (pool->size[i] < size && (slot < 0 || pool->size[i] < pool->size[slot]))
			slot = i;
	}
	if (slot < 0 || pool->kept + size > SCRATCH_KEEP_BYTES) {
		free((uint8_t *)ptr - HEADER);
		return;
	}
	if (pool->block[slot]) {
		pool->kept -= pool->size[slot];
		free((uint8_t *)pool->block[slot] - HEADER);
	}
	pool->block[slot] = ptr;
	pool->size[slot] = size;
	pool->kept += size;
}

void scratch_release(struct scratch_pool *pool)
{
	for (int i = 0; i < SCRATCH_BLOCKS; i++) {
		if (pool->block[i])
			free((uint8_t *)pool->block[i] - HEADER);
		pool->block[i] = NULL;
		pool->size[i] = 0;
	}
	pool->kept = 0;
}
