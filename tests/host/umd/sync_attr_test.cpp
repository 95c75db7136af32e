/* SPDX-License-Identifier: MIT */
/*
 * Sync attribute lists (vdla/sync.h): NvSciSync's rule of exactly one
 * signaler and at least one waiter, each conflict's message, what the
 * reconciled list grants, and the lists as bytes.
 */
#include <gtest/gtest.h>

#include <cerrno>

#include <vdla/sync.h>

namespace {

using namespace vdla;

SyncAttrList party(const std::string &owner, SyncPermission permission, Accessor engine)
{
	SyncAttrList l(owner);
	EXPECT_TRUE(l.setRequiredPermission(permission));
	EXPECT_TRUE(l.setAccessor(engine));
	return l;
}

std::vector<std::string> messages(const SyncReconciliation &r)
{
	std::vector<std::string> out;
	for (const SyncConflict &c : r.conflicts)
		out.push_back(c.message());
	return out;
}

TEST(SyncAttrList, EachKeyIsSetOnceAndOnlyForTheCpuOrAVdla)
{
	SyncAttrList l("camera");
	ASSERT_TRUE(l.setRequiredPermission(SyncPermission::SignalOnly));
	EXPECT_EQ(l.setRequiredPermission(SyncPermission::WaitOnly).error().code(), EEXIST);
	EXPECT_EQ(l.setAccessor(Accessor::other("display")).error().code(), EINVAL);
	EXPECT_FALSE(l.accessor());
	ASSERT_TRUE(l.setAccessor(Accessor::dla(1)));
	EXPECT_EQ(*l.accessor(), Accessor::dla(1));
	ASSERT_TRUE(l.setNeedCpuWait(false));
	EXPECT_EQ(l.setNeedCpuWait(true).error().code(), EEXIST);
	ASSERT_TRUE(l.setRequireTimestamps(true));
	EXPECT_EQ(*l.requireTimestamps(), true);
}

TEST(SyncReconcile, OneSignalerAndItsWaiters)
{
	SyncAttrList producer = party("producer", SyncPermission::SignalOnly, Accessor::dla(0));
	SyncAttrList viewer = party("viewer", SyncPermission::WaitOnly, Accessor::cpu());
	ASSERT_TRUE(viewer.setNeedCpuWait(true));
	ASSERT_TRUE(viewer.setRequireTimestamps(true));
	SyncAttrList second = party("second", SyncPermission::WaitOnly, Accessor::dla(1));
	auto r = reconcileSync({ &producer, &viewer, &second }, "pipeline");
	ASSERT_TRUE(r);
	ASSERT_TRUE(r->list) << messages(*r).front();
	const SyncAttrList &l = *r->list;
	EXPECT_TRUE(l.reconciled());
	EXPECT_EQ(l.owner(), "pipeline");
	EXPECT_EQ(*l.signalerOwner(), "producer");
	EXPECT_EQ(*l.signaler(), Accessor::dla(0));
	EXPECT_EQ(*l.waiters(), (std::vector<Accessor>{ Accessor::cpu(), Accessor::dla(1) }));
	EXPECT_TRUE(*l.needCpuWait());
	EXPECT_TRUE(*l.requireTimestamps());
	SyncAttrList copy = l;
	EXPECT_EQ(copy.setNeedCpuWait(true).error().code(), EACCES);

	/* A WaitSignal party waits too: alone it is signaler and waiter. */
	SyncAttrList both = party("loop", SyncPermission::WaitSignal, Accessor::cpu());
	auto alone = reconcileSync({ &both });
	ASSERT_TRUE(alone && alone->list);
	EXPECT_EQ(*alone->list->waiters(), std::vector<Accessor>{ Accessor::cpu() });
	EXPECT_FALSE(*alone->list->requireTimestamps());

	EXPECT_EQ(reconcileSync({}).error().code(), EINVAL);
	EXPECT_EQ(reconcileSync({ &l }).error().code(), EINVAL) << "already reconciled";
}

TEST(SyncReconcile, ConflictsNameTheRuleAndEachParty)
{
	SyncAttrList a = party("camera", SyncPermission::SignalOnly, Accessor::dla(0));
	SyncAttrList b = party("isp", SyncPermission::WaitSignal, Accessor::dla(1));
	SyncAttrList c = party("viewer", SyncPermission::WaitOnly, Accessor::cpu());
	auto two = reconcileSync({ &a, &b, &c });
	ASSERT_TRUE(two);
	EXPECT_FALSE(two->list);
	EXPECT_EQ(messages(*two), std::vector<std::string>{
		"Sync.RequiredPermission allows exactly one signaler: camera SignalOnly, isp WaitSignal" });

	auto noWaiter = reconcileSync({ &a });
	ASSERT_TRUE(noWaiter);
	EXPECT_EQ(messages(*noWaiter), std::vector<std::string>{
		"Sync.RequiredPermission needs at least one waiter (WaitOnly or WaitSignal): "
		"camera SignalOnly" });

	SyncAttrList d = party("other", SyncPermission::WaitOnly, Accessor::dla(0));
	auto noSignaler = reconcileSync({ &c, &d });
	ASSERT_TRUE(noSignaler);
	EXPECT_EQ(messages(*noSignaler), std::vector<std::string>{
		"Sync.RequiredPermission needs a signaler (SignalOnly or WaitSignal): "
		"viewer WaitOnly, other WaitOnly" });

	SyncAttrList bare("bare");
	auto unset = reconcileSync({ &a, &bare });
	ASSERT_TRUE(unset);
	EXPECT_EQ(messages(*unset), (std::vector<std::string>{
		"Sync.RequiredPermission is required: bare unset",
		"Sync.Accessor is required: bare unset",
		"Sync.RequiredPermission needs at least one waiter (WaitOnly or WaitSignal): "
		"camera SignalOnly, bare unset" }));
}

TEST(SyncAttrListCodec, ListsSurviveTheTripAndBadBytesAreRefused)
{
	SyncAttrList producer = party("producer", SyncPermission::SignalOnly, Accessor::dla(1));
	ASSERT_TRUE(producer.setRequireTimestamps(false));
	SyncAttrList viewer = party("viewer", SyncPermission::WaitOnly, Accessor::cpu());
	ASSERT_TRUE(viewer.setNeedCpuWait(true));
	auto r = reconcileSync({ &producer, &viewer });
	ASSERT_TRUE(r && r->list);
	for (const SyncAttrList *l : { &producer, &viewer, &*r->list }) {
		auto bytes = l->encode();
		auto back = SyncAttrList::decode(bytes.data(), bytes.size());
		ASSERT_TRUE(back) << back.error().message();
		EXPECT_EQ(back->owner(), l->owner());
		EXPECT_EQ(back->reconciled(), l->reconciled());
		EXPECT_EQ(back->requiredPermission(), l->requiredPermission());
		EXPECT_EQ(back->accessor(), l->accessor());
		EXPECT_EQ(back->needCpuWait(), l->needCpuWait());
		EXPECT_EQ(back->requireTimestamps(), l->requireTimestamps());
		EXPECT_EQ(back->signalerOwner(), l->signalerOwner());
		EXPECT_EQ(back->signaler(), l->signaler());
		EXPECT_EQ(back->waiters(), l->waiters());
		for (size_t n = 0; n < bytes.size(); n++) {
			auto cut = SyncAttrList::decode(bytes.data(), n);
			ASSERT_FALSE(cut) << n;
			EXPECT_TRUE(cut.error().code() == EBADMSG || cut.error().code() == EPROTO);
		}
		for (size_t i = 0; i < bytes.size(); i++) {
			auto bad = bytes;
			bad[i] ^= 0xff;
			auto result = SyncAttrList::decode(bad.data(), bad.size());
			if (!result) {
				EXPECT_TRUE(result.error().code() == EBADMSG
					|| result.error().code() == EPROTO);
			}
		}
	}
}

} /* namespace */
