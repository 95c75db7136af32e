/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The arbitration of one exclusive resource (an SRAM partition, an engine
 * reservation) between leases, as the resource manager's policy says
 * (docs/resources.md): who is granted, who is asked to release, who waits
 * and in which order. Plain C with no kernel dependency, so that the host
 * tests check every case; the driver adds the locking, the events, the
 * deadlines and the revocations. The caller owns every structure and
 * serialises the calls on one resource.
 *
 * Priorities are enum drm_vdla_priority: a larger value is a higher
 * priority (OpenMAX IL counts the other way: its 0 is the highest).
 */
#ifndef __VDLA_LEASE_ARB_H__
#define __VDLA_LEASE_ARB_H__

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
typedef uint32_t u32;
typedef uint64_t u64;
#endif

enum vdla_arb_state {
	VDLA_ARB_IDLE,
	VDLA_ARB_WAITING,
	VDLA_ARB_HELD,
};

struct vdla_arb_resource;

/**
 * struct vdla_arb_lease - one context's (or group's) claim on a resource
 *
 * Zeroed, then @priority set, before vdla_arb_acquire().
 */
struct vdla_arb_lease {
	/** @priority: enum drm_vdla_priority of the claim. */
	u32 priority;
	/**
	 * @no_preempt: the claim may not ask a holder to release (it lacks
	 * the privilege, or asked not to): against a lower-priority holder
	 * it is busy or queued as against an equal one. Its priority still
	 * orders the queue.
	 */
	bool no_preempt;
	/** @state: idle, waiting in the resource's queue, or holding it. */
	enum vdla_arb_state state;
	/**
	 * @release_requested: held, and a waiter of strictly higher
	 * priority asked for the resource: the holder should release it at
	 * its next frame boundary.
	 */
	bool release_requested;
	/** @seq: registration order in the queue; larger is more recent. */
	u64 seq;
	/** @passes: grants to other waiters while this one waited. */
	u32 passes;
	/* The queue, a singly linked list in no particular order. */
	struct vdla_arb_lease *next;
	struct vdla_arb_resource *resource;
};

/**
 * struct vdla_arb_resource - one exclusive resource
 *
 * Zeroed, then @age_passes set.
 */
struct vdla_arb_resource {
	/**
	 * @age_passes: a waiter rises one priority level in the queue for
	 * every @age_passes grants to others it waits through, so that no
	 * waiter starves (0: no aging). Aging orders the queue; it never
	 * makes a waiter preempt a holder.
	 */
	u32 age_passes;
	struct vdla_arb_lease *holder;
	struct vdla_arb_lease *waiters;
	u32 num_waiters;
	u64 next_seq;
};

enum vdla_arb_outcome {
	/* Case 1: the resource was free; @lease holds it. */
	VDLA_ARB_GRANTED,
	/*
	 * Case 2: held by a strictly lower priority: @lease waits, and the
	 * holder's release_requested is set (it may have been already).
	 */
	VDLA_ARB_PREEMPTING,
	/* Case 3, waiting: held by a higher or equal priority; @lease waits. */
	VDLA_ARB_QUEUED,
	/* Case 3, not waiting: held by a higher or equal priority; nothing changed. */
	VDLA_ARB_BUSY,
};

/*
 * Asks for @resource with @lease (idle). Ties never preempt: only a
 * strictly higher priority than the holder's asks it to release, and only
 * for a claim without @no_preempt. @wait decides case 3 only; a
 * preempting claim always waits for its grant. A lease already holding or
 * waiting is left as it is (GRANTED or QUEUED).
 */
enum vdla_arb_outcome vdla_arb_acquire(struct vdla_arb_resource *resource,
				       struct vdla_arb_lease *lease, bool wait);

/*
 * Ends @lease (cases 4 to 6): a holder gives the resource to the best
 * waiter, which is returned (NULL: no waiter, case 5); a waiter leaves
 * the queue (its preemption timed out, it was cancelled, its process
 * died) and NULL is returned. Either way the holder's release_requested
 * is set again from the waiters left: a new holder is asked to release
 * at once if a waiter of strictly higher priority is still queued.
 */
struct vdla_arb_lease *vdla_arb_release(struct vdla_arb_lease *lease);

/*
 * The waiter the resource goes to next: the highest priority after aging,
 * and between equals the most recently registered. NULL when none waits.
 */
struct vdla_arb_lease *vdla_arb_next(const struct vdla_arb_resource *resource);

/* @lease's priority in the queue: its own, raised by its waiting. */
u32 vdla_arb_queue_priority(const struct vdla_arb_resource *resource,
			    const struct vdla_arb_lease *lease);

#endif /* __VDLA_LEASE_ARB_H__ */
