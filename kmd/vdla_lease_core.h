/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the lease files share (vdla_lease.c, vdla_lease_ioctl.c,
 * vdla_lease_sysfs.c): the state changes of a lease, under the manager's
 * lock unless said.
 */
#ifndef __VDLA_LEASE_CORE_H__
#define __VDLA_LEASE_CORE_H__

#include "vdla_lease.h"

static inline struct vdla_lease *lease_of(struct vdla_arb_lease *arb)
{
	return arb ? container_of(arb, struct vdla_lease, arb) : NULL;
}

/* A new lease of @ctx on @res with its three events reserved on @file; ERR_PTR. */
struct vdla_lease *vdla_lease_create(struct drm_file *file, struct vdla_ctx *ctx,
				     struct vdla_lease_resource *res, const struct drm_vdla_lease_acquire *args);
/* The lease now holds its resource (a grant to a waiter or at once). */
void vdla_lease_granted(struct vdla_lease *lease);
/* Asks the resource's holder to release, or withdraws the request, as the arbitration says. */
void vdla_lease_sync_holder(struct vdla_lease_resource *res);
/* A waiting claim leaves the queue. */
void vdla_lease_withdraw(struct vdla_lease *lease);
/* A held lease gives its resource up: revoked, or released by its holder. */
void vdla_lease_end(struct vdla_lease *lease, bool revoke);
/*
 * Ends @lease for good (RELEASE, its context or file going): a waiter leaves
 * the queue, a holder releases, a revocation waiting for a frame's END goes
 * on at once.
 */
void vdla_lease_end_for_good(struct vdla_lease *lease);
/* DRM_VDLA_LEASE_STATE_* of @lease. */
u32 vdla_lease_state(const struct vdla_lease *lease);
/* Forgets the lease's unsent events: its file is closing, or it ended. */
void vdla_lease_drop_events(struct vdla_lease *lease);
/* A reference dropped under the manager's lock: never the last. */
void vdla_lease_put_locked(struct vdla_lease *lease);
/* The resource of @type and @index, or NULL. */
struct vdla_lease_resource *vdla_lease_resource(struct vdla_device *vdev, u32 type, u32 index);

#endif /* __VDLA_LEASE_CORE_H__ */
