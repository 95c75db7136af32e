/* SPDX-License-Identifier: MIT */
/*
 * vdla::StreamMulticast: one stream to several consumers. Set-up waits for
 * every output (or those connected at finishConnecting(), less those whose
 * consumer connected and left again); each present
 * goes to every active output, and the packet goes back up once all of
 * them released it, with all their fences. A consumer that leaves gives up
 * its share of every packet; one that comes late is checked against the
 * packets the stream has and gets them all, or a conflict.
 */
#include <cerrno>

#include "stream_endpoint.h"
#include "stream_messages.h"

namespace vdla {

using detail::StreamDown;
using detail::StreamUp;

struct StreamMulticast::Branch {
	enum class State {
		Free,
		Connected,
		SetupReceived,
		LatePending,
		Active
	} state
		= State::Free;
	std::vector<detail::StreamConsumerSetup> setups;
	/* Its consumer connected, then left before set-up: set-up goes on without it. */
	bool leftBeforeSetup = false;
};

struct StreamMulticast::Held {
	std::vector<bool> holders;
	std::vector<detail::StreamHandover> fences;
};

StreamMulticast::StreamMulticast(size_t outputs) : StreamBlock(outputs)
{
	for (size_t i = 0; i < outputs; i++)
		branches_.push_back(std::make_unique<Branch>());
}

StreamMulticast::~StreamMulticast()
{
	std::lock_guard<detail::StreamMutex> lock(detail::streamLock());
	for (size_t o = 0; o < branches_.size(); o++) {
		StreamDown bye{ StreamDown::Type::Disconnect };
		bye.reason = "the multicast is gone";
		sendDown(o, std::move(bye));
	}
	StreamUp bye{ StreamUp::Type::Disconnect };
	bye.reason = "the multicast is gone";
	sendUp(std::move(bye));
}

Result<std::shared_ptr<StreamMulticast>> StreamMulticast::create(size_t outputs)
{
	if (outputs == 0 || outputs > 64)
		return Error(
			EINVAL, "a multicast has 1 to 64 outputs, not " + std::to_string(outputs));
	return std::shared_ptr<StreamMulticast>(new StreamMulticast(outputs));
}

void StreamMulticast::finishConnecting()
{
	std::lock_guard<detail::StreamMutex> lock(detail::streamLock());
	finishConnecting_ = true;
	forwardSetupIfReady();
}

size_t StreamMulticast::activeOutputs() const
{
	std::lock_guard<detail::StreamMutex> lock(detail::streamLock());
	size_t n = 0;
	for (const auto &branch : branches_)
		n += branch->state == Branch::State::Active;
	return n;
}

void StreamMulticast::outputConnected(size_t output)
{
	branches_[output]->state = Branch::State::Connected;
	branches_[output]->leftBeforeSetup = false;
	branches_[output]->setups.clear();
	if (ended_.empty())
		return;
	/* Too late: the producer is gone, or every consumer left and it was told. */
	StreamDown bye(StreamDown::Type::Disconnect);
	bye.reason = ended_;
	branches_[output]->state = Branch::State::Free;
	sendDown(output, std::move(bye));
	freeOutput(output);
}

void StreamMulticast::forwardSetupIfReady()
{
	if (setupForwarded_)
		return;
	size_t connected = 0, left = 0;
	for (const auto &branch : branches_) {
		if (branch->state == Branch::State::Free) {
			left += branch->leftBeforeSetup;
			continue;
		}
		if (branch->state != Branch::State::SetupReceived)
			return; /* a consumer has not said what it needs yet */
		connected++;
	}
	if (!finishConnecting_ && connected + left < branches_.size())
		return;
	if (!connected) {
		/* Every consumer that came left again: nobody to set up for. */
		if (left)
			endUpstream("every consumer of the multicast left before set-up");
		return;
	}
	StreamUp message{ StreamUp::Type::Setup };
	for (auto &branch : branches_) {
		if (branch->state != Branch::State::SetupReceived)
			continue;
		for (auto &setup : branch->setups)
			message.setups.push_back(std::move(setup));
		branch->setups.clear();
		branch->state = Branch::State::Active;
	}
	setupForwarded_ = true;
	sendUp(std::move(message));
}

void StreamMulticast::attachLate(size_t output, std::vector<detail::StreamConsumerSetup> &&setups)
{
	Branch &branch = *branches_[output];
	if (!setupDone_) {
		/* The packets are still on their way: decide when they are all here. */
		branch.state = Branch::State::LatePending;
		branch.setups = std::move(setups);
		return;
	}
	const StreamDown *packet = nullptr;
	for (const auto &message : history_)
		if (message.type == StreamDown::Type::PacketCreate) {
			packet = &message;
			break;
		}
	std::string conflict;
	for (const auto &setup : setups) {
		if (!packet || !conflict.empty())
			break;
		if (setup.elements.size() != packet->elements.size()) {
			conflict = "the late consumer " + setup.name + " lists "
				+ std::to_string(setup.elements.size())
				+ " elements; the stream's packets have "
				+ std::to_string(packet->elements.size());
			break;
		}
		for (size_t i = 0; i < setup.elements.size(); i++) {
			auto conflicts = validateReconciled(
				packet->elements[i]->attributes(), { &setup.elements[i] });
			if (!conflicts || !conflicts->empty()) {
				conflict = "the late consumer " + setup.name + " does not fit "
					+ detail::elementName(i) + " of the stream's packets: "
					+ (conflicts ? detail::describeConflicts(*conflicts)
						     : conflicts.error().message());
				break;
			}
		}
	}
	if (!conflict.empty()) {
		post(StreamEventType::Error, conflict, EBADMSG);
		StreamDown error{ StreamDown::Type::Error };
		error.reason = conflict;
		error.error = EBADMSG;
		sendDown(output, std::move(error));
		StreamDown bye{ StreamDown::Type::Disconnect };
		bye.reason = conflict;
		sendDown(output, std::move(bye));
		branch.state = Branch::State::Free;
		freeOutput(output);
		return;
	}
	branch.state = Branch::State::Active;
	branch.setups.clear();
	for (const auto &message : history_) {
		StreamDown copy = message;
		sendDown(output, std::move(copy));
	}
}

void StreamMulticast::fromUpstream(StreamDown &&message)
{
	switch (message.type) {
	case StreamDown::Type::PacketCreate:
	case StreamDown::Type::SetupDone:
		if (message.type == StreamDown::Type::PacketCreate)
			elements_[message.id] = message.elements;
		history_.push_back(message);
		if (message.type == StreamDown::Type::SetupDone)
			setupDone_ = true;
		for (size_t o = 0; o < branches_.size(); o++) {
			if (branches_[o]->state != Branch::State::Active)
				continue;
			StreamDown copy = message;
			sendDown(o, std::move(copy));
		}
		if (setupDone_)
			for (size_t o = 0; o < branches_.size(); o++)
				if (branches_[o]->state == Branch::State::LatePending)
					attachLate(o, std::move(branches_[o]->setups));
		break;
	case StreamDown::Type::Present: {
		if (message.id >= StreamPool::kMaxPackets)
			break; /* producers and IPC destinations let none through */
		if (held_.size() <= message.id)
			held_.resize(message.id + 1);
		if (!held_[message.id])
			held_[message.id] = std::make_unique<Held>();
		Held &held = *held_[message.id];
		held.holders.assign(branches_.size(), false);
		held.fences.clear();
		bool any = false;
		for (size_t o = 0; o < branches_.size(); o++)
			if (branches_[o]->state == Branch::State::Active)
				held.holders[o] = any = true;
		if (!any) {
			sendUp(detail::untouched(std::move(message)));
			break;
		}
		/* Holders first: a branch may give the packet back before the next gets it. */
		const std::vector<bool> holders = held.holders;
		for (size_t o = 0; o < branches_.size(); o++) {
			if (!holders[o])
				continue;
			StreamDown copy = message;
			sendDown(o, std::move(copy));
		}
		break;
	}
	case StreamDown::Type::Disconnect:
	case StreamDown::Type::Error:
		if (message.type == StreamDown::Type::Disconnect) {
			post(StreamEventType::Disconnected, message.reason);
			ended_ = message.reason;
		}
		for (size_t o = 0; o < branches_.size(); o++) {
			if (branches_[o]->state == Branch::State::Free)
				continue;
			StreamDown copy = message;
			sendDown(o, std::move(copy));
		}
		break;
	}
}

void StreamMulticast::releaseFrom(
	size_t output, uint32_t id, std::vector<detail::StreamHandover> &&fences)
{
	if (id >= held_.size() || !held_[id] || !held_[id]->holders[output])
		return;
	Held &held = *held_[id];
	held.holders[output] = false;
	for (auto &fence : fences)
		held.fences.push_back(std::move(fence));
	for (bool holder : held.holders)
		if (holder)
			return;
	StreamUp back{ StreamUp::Type::Release };
	back.id = id;
	back.fences = std::move(held.fences);
	held.fences.clear();
	sendUp(std::move(back));
}

void StreamMulticast::dropBranch(size_t output, const std::string &why)
{
	Branch &branch = *branches_[output];
	if (branch.state == Branch::State::Free)
		return;
	branch.state = Branch::State::Free;
	branch.setups.clear();
	freeOutput(output);
	/*
	 * Whatever was below may still be read by a job there: the packets
	 * come back with the fences of every job using them.
	 */
	for (uint32_t id = 0; id < held_.size(); id++)
		if (held_[id] && held_[id]->holders[output])
			releaseFrom(output, id, detail::pendingJobFences(elements_[id]));
	post(StreamEventType::Disconnected, "output " + std::to_string(output) + ": " + why);
	if (!setupForwarded_) {
		branch.leftBeforeSetup = true;
		forwardSetupIfReady();
		return;
	}
	for (const auto &b : branches_)
		if (b->state != Branch::State::Free)
			return;
	endUpstream("every consumer of the multicast is gone");
}

void StreamMulticast::endUpstream(const std::string &why)
{
	if (!ended_.empty())
		return;
	StreamUp bye{ StreamUp::Type::Disconnect };
	bye.reason = why;
	ended_ = why;
	sendUp(std::move(bye));
}

void StreamMulticast::fromDownstream(size_t output, StreamUp &&message)
{
	if (output >= branches_.size())
		return;
	Branch &branch = *branches_[output];
	switch (message.type) {
	case StreamUp::Type::Setup:
		if (branch.state != Branch::State::Connected)
			break;
		if (setupForwarded_) {
			attachLate(output, std::move(message.setups));
			break;
		}
		branch.setups = std::move(message.setups);
		branch.state = Branch::State::SetupReceived;
		forwardSetupIfReady();
		break;
	case StreamUp::Type::Release:
		releaseFrom(output, message.id, std::move(message.fences));
		break;
	case StreamUp::Type::Disconnect:
		dropBranch(output, message.reason);
		break;
	}
}

} /* namespace vdla */
