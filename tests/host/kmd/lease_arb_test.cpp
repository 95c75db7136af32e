/* SPDX-License-Identifier: MIT */
/*
 * The resource manager's arbitration (kmd/vdla_lease_arb.c), case by case
 * as docs/resources.md states the policy: grants, release requests only
 * to strictly lower priorities, the queue by priority with the most
 * recently registered first between equals, and aging bounding the wait,
 * counted in grants.
 */
#include <gtest/gtest.h>

#include <deque>
#include <vector>

extern "C" {
#include "vdla_lease_arb.h"
}

namespace {

enum Priority : u32 { Low = 0, Normal = 1, High = 2 };

vdla_arb_lease claim(u32 priority)
{
	vdla_arb_lease lease = {};
	lease.priority = priority;
	return lease;
}

TEST(LeaseArbitration, AFreeResourceIsGranted)
{
	vdla_arb_resource resource = {};
	vdla_arb_lease a = claim(Low);
	EXPECT_EQ(vdla_arb_acquire(&resource, &a, false), VDLA_ARB_GRANTED);
	EXPECT_EQ(resource.holder, &a);
	EXPECT_EQ(a.state, VDLA_ARB_HELD);
	EXPECT_FALSE(a.release_requested);
}

TEST(LeaseArbitration, AHigherPriorityAsksALowerHolderAndIsGrantedOnItsRelease)
{
	vdla_arb_resource resource = {};
	vdla_arb_lease low = claim(Low), normal = claim(Normal);
	ASSERT_EQ(vdla_arb_acquire(&resource, &low, false), VDLA_ARB_GRANTED);
	/* Preempting does not depend on asking to wait. */
	EXPECT_EQ(vdla_arb_acquire(&resource, &normal, false), VDLA_ARB_PREEMPTING);
	EXPECT_TRUE(low.release_requested);
	EXPECT_EQ(normal.state, VDLA_ARB_WAITING);
	EXPECT_EQ(resource.holder, &low) << "nothing is taken before the holder releases";
	EXPECT_EQ(vdla_arb_release(&low), &normal);
	EXPECT_EQ(resource.holder, &normal);
	EXPECT_EQ(low.state, VDLA_ARB_IDLE);
	EXPECT_FALSE(low.release_requested);
	EXPECT_FALSE(normal.release_requested);
}

/*
 * A claim that may not preempt (no CAP_SYS_NICE, or it asked not to) is
 * treated as an equal against a lower holder, yet keeps its place in the
 * queue by its priority.
 */
TEST(LeaseArbitration, AClaimThatMayNotPreemptIsBusyOrQueuedLikeAnEqual)
{
	vdla_arb_resource resource = {};
	vdla_arb_lease holder = claim(Low), polite = claim(High), low = claim(Low);
	polite.no_preempt = true;
	ASSERT_EQ(vdla_arb_acquire(&resource, &holder, false), VDLA_ARB_GRANTED);
	ASSERT_EQ(vdla_arb_acquire(&resource, &polite, false), VDLA_ARB_BUSY);
	EXPECT_EQ(polite.state, VDLA_ARB_IDLE);
	ASSERT_EQ(vdla_arb_acquire(&resource, &low, true), VDLA_ARB_QUEUED);
	EXPECT_EQ(vdla_arb_acquire(&resource, &polite, true), VDLA_ARB_QUEUED);
	EXPECT_FALSE(holder.release_requested);
	/* The low waiter leaving recomputes the request: still nobody may ask. */
	EXPECT_EQ(vdla_arb_release(&low), nullptr);
	EXPECT_FALSE(holder.release_requested);
	ASSERT_EQ(vdla_arb_acquire(&resource, &low, true), VDLA_ARB_QUEUED);
	EXPECT_EQ(vdla_arb_release(&holder), &polite) << "its priority orders the queue";
}

TEST(LeaseArbitration, AnEqualOrLowerPriorityIsBusyOrQueuedAndNeverPreempts)
{
	vdla_arb_resource resource = {};
	vdla_arb_lease holder = claim(Normal), tie = claim(Normal), lower = claim(Low);
	ASSERT_EQ(vdla_arb_acquire(&resource, &holder, false), VDLA_ARB_GRANTED);
	EXPECT_EQ(vdla_arb_acquire(&resource, &tie, false), VDLA_ARB_BUSY);
	EXPECT_EQ(tie.state, VDLA_ARB_IDLE);
	EXPECT_EQ(resource.num_waiters, 0u) << "a claim that does not wait changes nothing";
	EXPECT_EQ(vdla_arb_acquire(&resource, &tie, true), VDLA_ARB_QUEUED);
	EXPECT_EQ(vdla_arb_acquire(&resource, &lower, true), VDLA_ARB_QUEUED);
	EXPECT_FALSE(holder.release_requested) << "ties never preempt";
	EXPECT_EQ(resource.num_waiters, 2u);
}

TEST(LeaseArbitration, AClaimMadeTwiceStaysOneClaim)
{
	vdla_arb_resource resource = {};
	vdla_arb_lease holder = claim(Normal), waiter = claim(Normal);
	ASSERT_EQ(vdla_arb_acquire(&resource, &holder, false), VDLA_ARB_GRANTED);
	EXPECT_EQ(vdla_arb_acquire(&resource, &holder, true), VDLA_ARB_GRANTED);
	ASSERT_EQ(vdla_arb_acquire(&resource, &waiter, true), VDLA_ARB_QUEUED);
	EXPECT_EQ(vdla_arb_acquire(&resource, &waiter, true), VDLA_ARB_QUEUED);
	EXPECT_EQ(resource.num_waiters, 1u);
	EXPECT_EQ(vdla_arb_release(&holder), &waiter);
	EXPECT_EQ(vdla_arb_release(&waiter), nullptr);
	EXPECT_EQ(resource.waiters, nullptr);
}

TEST(LeaseArbitration, AReleaseWithoutWaitersLeavesTheResourceFree)
{
	vdla_arb_resource resource = {};
	vdla_arb_lease a = claim(High);
	ASSERT_EQ(vdla_arb_acquire(&resource, &a, false), VDLA_ARB_GRANTED);
	EXPECT_EQ(vdla_arb_release(&a), nullptr);
	EXPECT_EQ(resource.holder, nullptr);
	EXPECT_EQ(vdla_arb_release(&a), nullptr) << "a second release changes nothing";
	vdla_arb_lease b = claim(Low);
	EXPECT_EQ(vdla_arb_acquire(&resource, &b, false), VDLA_ARB_GRANTED);
}

TEST(LeaseArbitration, AReleaseGrantsTheHighestPriorityWaiter)
{
	vdla_arb_resource resource = {};
	vdla_arb_lease holder = claim(High), low = claim(Low), high = claim(High),
		       normal = claim(Normal);
	ASSERT_EQ(vdla_arb_acquire(&resource, &holder, false), VDLA_ARB_GRANTED);
	for (vdla_arb_lease *w : { &low, &high, &normal })
		ASSERT_EQ(vdla_arb_acquire(&resource, w, true), VDLA_ARB_QUEUED);
	EXPECT_EQ(vdla_arb_release(&holder), &high);
	EXPECT_EQ(vdla_arb_release(&high), &normal);
	EXPECT_EQ(vdla_arb_release(&normal), &low);
	EXPECT_EQ(vdla_arb_release(&low), nullptr);
}

TEST(LeaseArbitration, BetweenEqualsTheMostRecentlyRegisteredGoesFirst)
{
	vdla_arb_resource resource = {};
	vdla_arb_lease holder = claim(Normal);
	std::vector<vdla_arb_lease> waiters(4, claim(Normal));
	ASSERT_EQ(vdla_arb_acquire(&resource, &holder, false), VDLA_ARB_GRANTED);
	for (vdla_arb_lease &w : waiters)
		ASSERT_EQ(vdla_arb_acquire(&resource, &w, true), VDLA_ARB_QUEUED);
	vdla_arb_lease *current = &holder;
	for (size_t i = waiters.size(); i-- > 0;) {
		vdla_arb_lease *next = vdla_arb_release(current);
		EXPECT_EQ(next, &waiters[i]) << "grant " << waiters.size() - i;
		current = next;
	}
}

/*
 * A low-priority waiter behind a stream of fresh normal ones (each one,
 * most recently registered, would go first for ever): with aging it is
 * granted after 2 levels x age_passes grants to others; without, never.
 */
TEST(LeaseArbitration, AgingBoundsTheWaitInGrants)
{
	for (u32 agePasses : { 2u, 3u, 0u }) {
		vdla_arb_resource resource = {};
		resource.age_passes = agePasses;
		std::deque<vdla_arb_lease> fresh;
		vdla_arb_lease holder = claim(High), old = claim(Low);
		ASSERT_EQ(vdla_arb_acquire(&resource, &holder, false), VDLA_ARB_GRANTED);
		ASSERT_EQ(vdla_arb_acquire(&resource, &old, true), VDLA_ARB_QUEUED);
		vdla_arb_lease *current = &holder;
		unsigned othersGranted = 0;
		while (othersGranted < 100) {
			fresh.push_back(claim(Normal));
			vdla_arb_acquire(&resource, &fresh.back(), true);
			current = vdla_arb_release(current);
			if (current == &old)
				break;
			othersGranted++;
		}
		if (agePasses) {
			/* Above normal (1) takes 2 levels: 2 x agePasses passes. */
			EXPECT_EQ(othersGranted, 2 * agePasses) << "age_passes " << agePasses;
		} else {
			EXPECT_EQ(othersGranted, 100u) << "without aging it starves";
		}
	}
}

TEST(LeaseArbitration, AgingNeverMakesAWaiterPreempt)
{
	vdla_arb_resource resource = {};
	resource.age_passes = 1;
	vdla_arb_lease holder = claim(Normal), old = claim(Low), a = claim(Normal),
		       b = claim(Normal);
	ASSERT_EQ(vdla_arb_acquire(&resource, &holder, false), VDLA_ARB_GRANTED);
	ASSERT_EQ(vdla_arb_acquire(&resource, &old, true), VDLA_ARB_QUEUED);
	ASSERT_EQ(vdla_arb_acquire(&resource, &a, true), VDLA_ARB_QUEUED);
	ASSERT_EQ(vdla_arb_release(&holder), &a);
	ASSERT_EQ(vdla_arb_acquire(&resource, &b, true), VDLA_ARB_QUEUED);
	ASSERT_EQ(vdla_arb_release(&a), &b) << "a tie with the newer b";
	/* old has aged above normal in the queue, but asks nobody to release. */
	EXPECT_GT(vdla_arb_queue_priority(&resource, &old), u32(Normal));
	EXPECT_FALSE(b.release_requested);
}

TEST(LeaseArbitration, AWaiterThatLeavesWithdrawsItsReleaseRequest)
{
	vdla_arb_resource resource = {};
	vdla_arb_lease holder = claim(Low), normal = claim(Normal), high = claim(High);
	ASSERT_EQ(vdla_arb_acquire(&resource, &holder, false), VDLA_ARB_GRANTED);
	ASSERT_EQ(vdla_arb_acquire(&resource, &normal, true), VDLA_ARB_PREEMPTING);
	ASSERT_EQ(vdla_arb_acquire(&resource, &high, true), VDLA_ARB_PREEMPTING);
	/* The high one's preemption times out: the normal one still outranks. */
	EXPECT_EQ(vdla_arb_release(&high), nullptr);
	EXPECT_EQ(high.state, VDLA_ARB_IDLE);
	EXPECT_TRUE(holder.release_requested);
	EXPECT_EQ(vdla_arb_release(&normal), nullptr);
	EXPECT_FALSE(holder.release_requested) << "nobody outranks the holder any more";
	EXPECT_EQ(resource.num_waiters, 0u);
	EXPECT_EQ(resource.holder, &holder);
}

TEST(LeaseArbitration, ANewHolderIsAskedAtOnceWhenAHigherPriorityStillWaits)
{
	vdla_arb_resource resource = {};
	resource.age_passes = 1;
	vdla_arb_lease holder = claim(High), old = claim(Low), a = claim(Normal), b = claim(Normal),
		       c = claim(Normal);
	ASSERT_EQ(vdla_arb_acquire(&resource, &holder, false), VDLA_ARB_GRANTED);
	ASSERT_EQ(vdla_arb_acquire(&resource, &old, true), VDLA_ARB_QUEUED);
	ASSERT_EQ(vdla_arb_acquire(&resource, &a, true), VDLA_ARB_QUEUED);
	ASSERT_EQ(vdla_arb_release(&holder), &a);
	ASSERT_EQ(vdla_arb_acquire(&resource, &b, true), VDLA_ARB_QUEUED);
	ASSERT_EQ(vdla_arb_release(&a), &b);
	/* old passed a and b: 2 levels up, before the fresh c. */
	ASSERT_EQ(vdla_arb_acquire(&resource, &c, true), VDLA_ARB_QUEUED);
	ASSERT_EQ(vdla_arb_release(&b), &old);
	EXPECT_TRUE(old.release_requested) << "c, normal, outranks the low holder";
	EXPECT_EQ(vdla_arb_release(&old), &c);
	EXPECT_FALSE(c.release_requested);
}

} /* namespace */
