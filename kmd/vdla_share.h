/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device-time shares (docs/resources.md): a guaranteed fraction of the
 * device's time in every period for the context that holds a lease on a
 * share and the contexts of its file that joined it. The dispatcher keeps
 * each share's credit, its percentage of the period less the device time
 * its contexts used in the period, and starts their jobs first while it
 * lasts (vdla_sched.c). The shares are defined by the administrator
 * (sysfs time_shares) and make at most 100 percent together, so every
 * share's credit can be served within each period.
 *
 * Everything here is under vdev->fw_lock.
 */
#ifndef __VDLA_SHARE_H__
#define __VDLA_SHARE_H__

#include <linux/ktime.h>
#include <linux/types.h>

#include <drm/vdla_accel.h>

struct vdla_ctx;

/**
 * struct vdla_share - one device-time share
 */
struct vdla_share {
	char name[16];
	u32 percent;
	/** @holder: the context holding a lease on it, or NULL. */
	struct vdla_ctx *holder;
	/** @grant: the number of its current grant; a context's join holds for one grant. */
	u64 grant;
	/** @used_ns: device time charged to it in the current period. */
	u64 used_ns;
	/** @total_ns: device time charged to it since it was defined. */
	u64 total_ns;
};

/**
 * struct vdla_shares - the device-time shares of one device
 */
struct vdla_shares {
	struct vdla_share share[DRM_VDLA_MAX_TIME_SHARES];
	u32 count;
	/** @held: shares with a holder; with none, the dispatcher skips them all. */
	u32 held;
	/** @grants: counts the grants of every share, never reset; a grant's number. */
	u64 grants;
	/** @period_ns: the length of the current period. */
	u64 period_ns;
	/** @period_end: when the current period ends and the credits are renewed. */
	ktime_t period_end;
	/** @charged_at: the running job's device time is charged up to here. */
	ktime_t charged_at;
};

/* Defines @n shares (@name and @percent set); -EBUSY while one is held. */
int vdla_shares_set(struct vdla_shares *sh, const struct vdla_share *shares, u32 n);
void vdla_shares_query(const struct vdla_shares *sh, struct drm_vdla_query_time_shares *out);

/* A lease on share @index is granted to @ctx (the grant's number), or (@ctx NULL) ended. */
u64 vdla_shares_hold(struct vdla_shares *sh, u32 index, struct vdla_ctx *ctx);
/*
 * @ctx joins share @index for its grant @grant: -ECANCELED if that grant
 * has ended, -EBUSY if @ctx holds a share of its own.
 */
int vdla_shares_join(struct vdla_shares *sh, u32 index, u64 grant, struct vdla_ctx *ctx);

/* The share @ctx's device time is charged to, or NULL. */
struct vdla_share *vdla_share_of(struct vdla_shares *sh, const struct vdla_ctx *ctx);
/* Credit left to @share in the current period, in ns; <= 0 when used up. */
s64 vdla_share_credit(const struct vdla_shares *sh, const struct vdla_share *share);
/* Charges @ns of device time to @ctx's share, if it has one. */
void vdla_shares_charge(struct vdla_shares *sh, const struct vdla_ctx *ctx, u64 ns);
/* Whether the current period is over at @now (never while no share is held). */
bool vdla_shares_period_over(const struct vdla_shares *sh, ktime_t now);
/* A new period from @now: every share's credit is whole again. */
void vdla_shares_new_period(struct vdla_shares *sh, ktime_t now);

#endif /* __VDLA_SHARE_H__ */
