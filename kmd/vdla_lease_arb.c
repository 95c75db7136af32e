// SPDX-License-Identifier: GPL-2.0-only
/*
 * The arbitration of one exclusive resource (vdla_lease_arb.h). The queue
 * is short (the contexts of a device), so it is an unordered list searched
 * at each grant rather than a heap kept in order.
 */
#include "vdla_lease_arb.h"

u32 vdla_arb_queue_priority(const struct vdla_arb_resource *resource,
			    const struct vdla_arb_lease *lease)
{
	if (!resource->age_passes)
		return lease->priority;
	return lease->priority + lease->passes / resource->age_passes;
}

/* Whether @a goes before @b in @resource's queue. */
static bool goes_first(const struct vdla_arb_resource *resource,
		       const struct vdla_arb_lease *a, const struct vdla_arb_lease *b)
{
	u32 pa = vdla_arb_queue_priority(resource, a);
	u32 pb = vdla_arb_queue_priority(resource, b);

	if (pa != pb)
		return pa > pb;
	/* Ties: the most recently registered waiter first. */
	return a->seq > b->seq;
}

struct vdla_arb_lease *vdla_arb_next(const struct vdla_arb_resource *resource)
{
	struct vdla_arb_lease *best = NULL, *w;

	for (w = resource->waiters; w; w = w->next)
		if (!best || goes_first(resource, w, best))
			best = w;
	return best;
}

/* Whether @lease may ask @resource's holder to release. */
static bool preempts(const struct vdla_arb_resource *resource, const struct vdla_arb_lease *lease)
{
	return !lease->no_preempt && lease->priority > resource->holder->priority;
}

/*
 * Whether a waiter outranks the holder: only the claims' own priorities
 * count, never aging, ties never preempt, and neither do claims that may
 * not.
 */
static bool outranked(const struct vdla_arb_resource *resource)
{
	const struct vdla_arb_lease *w;

	if (!resource->holder)
		return false;
	for (w = resource->waiters; w; w = w->next)
		if (preempts(resource, w))
			return true;
	return false;
}

static void enqueue(struct vdla_arb_resource *resource, struct vdla_arb_lease *lease)
{
	lease->state = VDLA_ARB_WAITING;
	lease->seq = ++resource->next_seq;
	lease->passes = 0;
	lease->next = resource->waiters;
	resource->waiters = lease;
	resource->num_waiters++;
}

static void dequeue(struct vdla_arb_resource *resource, struct vdla_arb_lease *lease)
{
	struct vdla_arb_lease **link;

	for (link = &resource->waiters; *link; link = &(*link)->next) {
		if (*link == lease) {
			*link = lease->next;
			resource->num_waiters--;
			break;
		}
	}
	lease->next = NULL;
}

static void grant(struct vdla_arb_resource *resource, struct vdla_arb_lease *lease)
{
	lease->state = VDLA_ARB_HELD;
	lease->release_requested = false;
	lease->resource = resource;
	resource->holder = lease;
}

enum vdla_arb_outcome vdla_arb_acquire(struct vdla_arb_resource *resource,
				       struct vdla_arb_lease *lease, bool wait)
{
	/* A claim already made stays as it is: queueing it twice would loop the queue. */
	if (lease->state == VDLA_ARB_HELD)
		return VDLA_ARB_GRANTED;
	if (lease->state == VDLA_ARB_WAITING)
		return VDLA_ARB_QUEUED;
	lease->resource = resource;
	lease->next = NULL;
	if (!resource->holder) {
		grant(resource, lease);
		return VDLA_ARB_GRANTED;
	}
	if (preempts(resource, lease)) {
		enqueue(resource, lease);
		resource->holder->release_requested = true;
		return VDLA_ARB_PREEMPTING;
	}
	if (!wait) {
		lease->state = VDLA_ARB_IDLE;
		return VDLA_ARB_BUSY;
	}
	enqueue(resource, lease);
	return VDLA_ARB_QUEUED;
}

struct vdla_arb_lease *vdla_arb_release(struct vdla_arb_lease *lease)
{
	struct vdla_arb_resource *resource = lease->resource;
	struct vdla_arb_lease *next = NULL, *w;

	if (!resource || lease->state == VDLA_ARB_IDLE)
		return NULL;
	if (lease->state == VDLA_ARB_WAITING) {
		dequeue(resource, lease);
	} else {
		resource->holder = NULL;
		next = vdla_arb_next(resource);
		if (next) {
			dequeue(resource, next);
			/* Every waiter left was passed over once more. */
			for (w = resource->waiters; w; w = w->next)
				w->passes++;
			grant(resource, next);
		}
	}
	lease->state = VDLA_ARB_IDLE;
	lease->release_requested = false;
	if (resource->holder)
		resource->holder->release_requested = outranked(resource);
	return next;
}
