/* SPDX-License-Identifier: MIT */
/* An IPC destination that copies each packet into its own with BDMA. */
#include "stream_ipc_copy.h"

#include <algorithm>
#include <cerrno>

#include <vdla/task_builder.h>

#include "stream_endpoint.h"

namespace vdla::detail {

StreamIpcCopier::StreamIpcCopier(Device &device, uint32_t packets, Links links)
	: device_(device), count_(packets), links_(std::move(links))
{
}

void StreamIpcCopier::fail(int error, const std::string &why)
{
	if (failed_)
		return;
	failed_ = true;
	ready_ = false;
	links_.post(StreamEventType::Error, why, error);
	StreamDown message(StreamDown::Type::Error);
	message.reason = why;
	message.error = error;
	links_.down(std::move(message));
	/* What waits here goes back untouched, and the producer's side is told. */
	for (auto &present : pending_) {
		links_.up(detail::untouched(std::move(present)));
	}
	pending_.clear();
	StreamUp bye(StreamUp::Type::Disconnect);
	bye.reason = "the copying IPC destination failed: " + why;
	links_.up(std::move(bye));
	finishEnd();
}

void StreamIpcCopier::end(StreamDown &&bye)
{
	/*
	 * The consumers hold copies of ours, which nobody takes back: they
	 * may take them. What waits here is copied first when the producer
	 * ended the stream; when its packets went back to be reused, it is
	 * dropped.
	 */
	if (bye.reclaimed)
		pending_.clear();
	bye.reclaimed = false;
	ending_ = std::move(bye);
	finishEnd();
}

void StreamIpcCopier::finishEnd()
{
	if (!ending_ || (ready_ && !pending_.empty()))
		return;
	pending_.clear();
	StreamDown bye = std::move(*ending_);
	ending_.reset();
	ended_ = true;
	links_.down(std::move(bye));
}

void StreamIpcCopier::fromDownstream(StreamUp &&message)
{
	switch (message.type) {
	case StreamUp::Type::Setup: {
		if (!setups_.empty() || message.setups.empty())
			break;
		setups_ = std::move(message.setups);
		/* Upstream, this process is one consumer: the copy engine. */
		StreamConsumerSetup copier;
		copier.name = "copy to " + setups_.front().name;
		for (const AttrList &list : setups_.front().elements) {
			auto needs
				= list.forCopyEngine(copier.name, engine(), Permission::ReadOnly);
			if (!needs)
				return fail(needs.error().code(), needs.error().message());
			copier.elements.push_back(std::move(*needs));
		}
		StreamEndpointConfig self{ copier.name, {}, engine() };
		copier.waiter = waiterList(self);
		StreamUp up(StreamUp::Type::Setup);
		up.setups.push_back(std::move(copier));
		links_.up(std::move(up));
		break;
	}
	case StreamUp::Type::Release:
		if (message.id >= local_.size() || local_[message.id].free)
			break;
		local_[message.id].free = true;
		local_[message.id].fences = std::move(message.fences);
		pump();
		break;
	case StreamUp::Type::Disconnect:
		links_.up(std::move(message));
		break;
	}
}

void StreamIpcCopier::setUp(const SyncAttrList &producerWaiter)
{
	const StreamConsumerSetup &first = setups_.front();
	std::vector<AttrList> reconciled;
	for (size_t i = 0; i < first.elements.size(); i++) {
		auto target = first.elements[i].forCopyEngine(
			"ipc-dst copy", engine(), Permission::ReadWrite);
		if (!target)
			return fail(target.error().code(), target.error().message());
		std::vector<const AttrList *> lists{ &*target };
		for (const auto &setup : setups_) {
			if (setup.elements.size() != first.elements.size())
				return fail(EBADMSG,
					"the consumers behind the IPC destination list "
					"different numbers of elements");
			lists.push_back(&setup.elements[i]);
		}
		auto merged = reconcile(lists, "copied " + elementName(i));
		if (!merged)
			return fail(merged.error().code(), merged.error().message());
		if (!merged->conflicts.empty())
			return fail(EBADMSG,
				"the copies of " + elementName(i) + " do not reconcile: "
					+ describeConflicts(merged->conflicts));
		reconciled.push_back(std::move(*merged->list));
	}
	StreamEndpointConfig self{ "ipc-dst copy", {}, engine() };
	std::vector<const SyncAttrList *> waiters{ &producerWaiter };
	for (const auto &setup : setups_)
		waiters.push_back(&setup.waiter);
	auto sync = allocateSync(device_, signalerList(self), waiters);
	if (!sync)
		return fail(sync.error().code(), sync.error().message());
	sync_ = std::move(*sync);
	auto ctx = Context::create(device_);
	if (!ctx)
		return fail(ctx.error().code(), ctx.error().message());
	ctx_ = std::move(*ctx);
	/* The copy waits for the fences it is given, not for the buffers' own. */
	ctx_->setImplicitSync(false);

	for (uint32_t id = 0; id < count_; id++) {
		Local local{ id, {}, true, {} };
		for (size_t i = 0; i < reconciled.size(); i++) {
			auto buffer = SharedBuffer::allocate(device_, reconciled[i]);
			if (!buffer)
				return fail(buffer.error().code(),
					"cannot allocate the copies' " + elementName(i) + ": "
						+ buffer.error().message());
			local.elements.push_back(std::move(*buffer));
		}
		StreamDown create(StreamDown::Type::PacketCreate);
		create.id = id;
		create.elements = local.elements;
		local_.push_back(std::move(local));
		links_.down(std::move(create));
	}
	StreamDown done(StreamDown::Type::SetupDone);
	done.producerWaiter = waiterList(self);
	links_.down(std::move(done));
	ready_ = true;
	pump();
}

Result<void> StreamIpcCopier::copy(const StreamDown &present, Local &local)
{
	const auto &sources = upstream_[present.id];
	if (sources.size() != local.elements.size())
		return Error(EPROTO,
			"packet " + std::to_string(present.id)
				+ " was presented without being created first");
	TaskBuilder b;
	for (size_t i = 0; i < sources.size(); i++) {
		const uint64_t bytes = std::min(
			*sources[i]->attributes().size(), *local.elements[i]->attributes().size());
		const uint16_t src = b.addBuffer(sources[i]->buffer());
		const uint16_t dst = b.addBuffer(local.elements[i]->buffer(), BufferUse::Write);
		b.copy({ src, 0 }, { dst, 0 }, static_cast<uint32_t>(bytes));
	}
	auto task = b.build(device_);
	if (!task)
		return task.error();
	/* After the producer's writes, and after the consumers' reads of our packet. */
	std::vector<std::unique_ptr<Fence>> held;
	std::vector<SyncPoint> waits;
	for (const std::vector<StreamHandover> *fences :
		{ &present.fences, const_cast<const std::vector<StreamHandover> *>(&local.fences) })
		for (const auto &fence : *fences) {
			auto f = fence->toFence(device_);
			if (!f)
				return f.error();
			waits.push_back({ f->get(), 0 });
			held.push_back(std::move(*f));
		}
	auto point = sync_->submit(*ctx_, *task, waits);
	if (!point)
		return point.error();
	auto fence = sync_->fence(*point);
	if (!fence)
		return fence.error();
	auto handover = std::make_shared<const SyncFence>(std::move(*fence));

	StreamUp back(StreamUp::Type::Release);
	back.id = present.id;
	back.fences = { handover };
	links_.up(std::move(back));
	local.free = false;
	local.fences.clear();
	StreamDown down(StreamDown::Type::Present);
	down.id = local.id;
	down.frame = present.frame;
	down.presentNs = present.presentNs;
	down.fences = { handover };
	links_.down(std::move(down));
	return {};
}

void StreamIpcCopier::pump()
{
	if (ended_)
		return;
	while (ready_ && !pending_.empty()) {
		auto local = std::find_if(
			local_.begin(), local_.end(), [](const Local &l) { return l.free; });
		if (local == local_.end())
			return; /* the producer's packets wait here: back-pressure */
		StreamDown present = std::move(pending_.front());
		pending_.pop_front();
		if (auto copied = copy(present, *local); !copied) {
			pending_.push_front(std::move(present));
			return fail(copied.error().code(),
				"cannot copy a packet: " + copied.error().message());
		}
	}
	finishEnd();
}

void StreamIpcCopier::fromUpstream(StreamDown &&message)
{
	switch (message.type) {
	case StreamDown::Type::PacketCreate:
		upstream_[message.id] = std::move(message.elements);
		break;
	case StreamDown::Type::SetupDone:
		if (!ready_ && !failed_ && !setups_.empty() && message.producerWaiter)
			setUp(*message.producerWaiter);
		break;
	case StreamDown::Type::Present:
		if (failed_) {
			links_.up(detail::untouched(std::move(message)));
			break;
		}
		if (ending_ || ended_)
			break; /* the connection has ended: nothing comes after */
		pending_.push_back(std::move(message));
		pump();
		break;
	case StreamDown::Type::Disconnect:
		if (!ended_ && !ending_)
			end(std::move(message));
		break;
	case StreamDown::Type::Error:
		links_.down(std::move(message));
		break;
	}
}

} /* namespace vdla::detail */
