/* SPDX-License-Identifier: MIT */
/*
 * Per-worker recycling of large buffers. Operations allocate shadows and
 * intermediate tensors of megabytes; getting them from malloc each time
 * means mmap, page faults on first touch and munmap, which cost more than
 * an INT8 convolution. Each pool belongs to one worker thread and is used
 * only by it, so it needs no lock.
 */
#ifndef VDLA_SCRATCH_H
#define VDLA_SCRATCH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SCRATCH_BLOCKS		16
#define SCRATCH_KEEP_BYTES	(256u << 20)	/* most a pool keeps when idle */

struct scratch_pool {
	void *block[SCRATCH_BLOCKS];
	size_t size[SCRATCH_BLOCKS];
	size_t kept;
	/*
	 * Bytes handed out and not given back, and the most that may be (0:
	 * no limit): an operation's buffers all come from its worker's pool,
	 * so this bounds the host memory one operation can make QEMU use.
	 */
	size_t in_use;
	size_t limit;
};

/*
 * A buffer of at least @size bytes, 64-byte aligned; NULL if out of memory
 * or if it would take the pool past its limit.
 */
void *scratch_get(struct scratch_pool *pool, size_t size);
/* Gives @ptr (from scratch_get, or NULL) back to the pool. */
void scratch_put(struct scratch_pool *pool, void *ptr);
void scratch_release(struct scratch_pool *pool);

#ifdef __cplusplus
}
#endif

#endif /* VDLA_SCRATCH_H */
