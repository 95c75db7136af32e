// SPDX-License-Identifier: GPL-2.0-only
/*
 * The credits of the device-time shares (vdla_share.h). The period is
 * common to every share of a device, so the credits of all of them fit in
 * each period whatever order the dispatcher serves them in: it needs to
 * serve a share only while it has credit, and to serve no other job then.
 */
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/string.h>

#include "vdla_ctx.h"
#include "vdla_share.h"

static unsigned int time_share_period_ms = 100;
module_param(time_share_period_ms, uint, 0644);
MODULE_PARM_DESC(time_share_period_ms,
		 "The period device-time shares are fractions of (ms, 1 to 10000, default 100)");

static u64 period_ns(void)
{
	return (u64)clamp(READ_ONCE(time_share_period_ms), 1u, 10000u) * NSEC_PER_MSEC;
}

int vdla_shares_set(struct vdla_shares *sh, const struct vdla_share *shares, u32 n)
{
	if (sh->held)
		return -EBUSY;
	/* The grant numbers go on: a context joined before never matches a later grant. */
	memset(sh->share, 0, sizeof(sh->share));
	for (u32 i = 0; i < n; i++) {
		strscpy(sh->share[i].name, shares[i].name);
		sh->share[i].percent = shares[i].percent;
	}
	sh->count = n;
	/*
	 * The credits of a period were fractions of the shares it began
	 * with: new shares begin a period of their own when first held.
	 */
	sh->period_end = 0;
	return 0;
}

void vdla_shares_query(const struct vdla_shares *sh, struct drm_vdla_query_time_shares *out)
{
	memset(out, 0, sizeof(*out));
	out->count = sh->count;
	/* The current period's length; the next one's while no share is held. */
	out->period_us = div_u64(sh->held ? sh->period_ns : period_ns(), NSEC_PER_USEC);
	for (u32 i = 0; i < sh->count; i++) {
		strscpy(out->shares[i].name, sh->share[i].name);
		out->shares[i].percent = sh->share[i].percent;
		out->shares[i].used_ns = sh->share[i].used_ns;
		out->shares[i].total_ns = sh->share[i].total_ns;
	}
}

u64 vdla_shares_hold(struct vdla_shares *sh, u32 index, struct vdla_ctx *ctx)
{
	struct vdla_share *share = &sh->share[index];

	if (ctx) {
		share->holder = ctx;
		share->grant = ++sh->grants;
		ctx->share = index + 1;
		ctx->share_grant = share->grant;
		/*
		 * Nothing was charged while no share was held. A period that
		 * is not over goes on, with what was used of each share in it:
		 * releasing and claiming a share again must not renew its
		 * credit. One that is over, or never began, begins now.
		 */
		if (!sh->held++) {
			ktime_t now = ktime_get();

			sh->charged_at = now;
			if (!sh->period_end || !ktime_before(now, sh->period_end))
				vdla_shares_new_period(sh, now);
		}
	} else {
		/* Contexts that joined keep the index and grant of a share that is gone. */
		share->holder = NULL;
		sh->held--;
	}
	return share->grant;
}

int vdla_shares_join(struct vdla_shares *sh, u32 index, u64 grant, struct vdla_ctx *ctx)
{
	struct vdla_share *share = &sh->share[index], *own = vdla_share_of(sh, ctx);

	if (!share->holder || share->grant != grant)
		return -ECANCELED;
	if (own && own->holder == ctx && own != share)
		return -EBUSY;
	ctx->share = index + 1;
	ctx->share_grant = share->grant;
	return 0;
}

struct vdla_share *vdla_share_of(struct vdla_shares *sh, const struct vdla_ctx *ctx)
{
	struct vdla_share *share;

	if (!sh->held || !ctx->share)
		return NULL;
	share = &sh->share[ctx->share - 1];
	if (!share->holder || share->grant != ctx->share_grant)
		return NULL;
	return share;
}

s64 vdla_share_credit(const struct vdla_shares *sh, const struct vdla_share *share)
{
	u64 budget = div_u64(sh->period_ns * share->percent, 100);

	return (s64)budget - (s64)share->used_ns;
}

void vdla_shares_charge(struct vdla_shares *sh, const struct vdla_ctx *ctx, u64 ns)
{
	struct vdla_share *share = vdla_share_of(sh, ctx);

	if (share) {
		share->used_ns += ns;
		share->total_ns += ns;
	}
}

bool vdla_shares_period_over(const struct vdla_shares *sh, ktime_t now)
{
	return sh->held && !ktime_before(now, sh->period_end);
}

void vdla_shares_new_period(struct vdla_shares *sh, ktime_t now)
{
	u64 late = ktime_to_ns(ktime_sub(now, sh->period_end));
	/*
	 * The new period starts where the last one ended, if that was less
	 * than a period ago: noticing the end late (a timer's tick, an
	 * operation to finish first) must not stretch the period that the
	 * credits are fractions of.
	 */
	bool next = sh->period_end && !ktime_before(now, sh->period_end) && late < sh->period_ns;

	/*
	 * A share stopped past its credit (the operation under way finishes,
	 * the timer is late by a tick) pays the overrun back from the next
	 * period's credit, so that over many periods it gets its fraction,
	 * not more. Credit left unused is not carried over.
	 */
	for (u32 i = 0; i < sh->count; i++) {
		struct vdla_share *share = &sh->share[i];
		s64 overrun = -vdla_share_credit(sh, share);

		share->used_ns = next && overrun > 0 ? overrun : 0;
	}
	sh->period_ns = period_ns();
	if (next)
		sh->period_end = ktime_add_ns(sh->period_end, sh->period_ns);
	else
		sh->period_end = ktime_add_ns(now, sh->period_ns);
}
