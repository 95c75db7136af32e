/* SPDX-License-Identifier: MIT */
/* Stream messages on an IpcEndpoint: encoders and checking decoders. */
#include "stream_wire.h"

#include <cerrno>

#include "../wire.h"

namespace vdla::detail {

namespace {

Error malformed(const char *what)
{
	return Error(
		EBADMSG, std::string("the stream message received (") + what + ") is malformed");
}

/*
 * The points of @fences, and their sync files beside the message; more
 * than a message carries become one merged fence (point 0), kept alive in
 * @merged until the message is sent.
 */
Result<void> writeFences(wire::Writer &w, const std::vector<StreamHandover> &fences,
	std::vector<int> &fds, StreamHandover &merged)
{
	if (fences.size() > IpcEndpoint::kMaxFds) {
		auto one = mergeFences(fences);
		if (!one)
			return one.error();
		merged = *one;
		w.u32(1);
		w.u64(0);
		fds.push_back(merged->syncFile());
		return {};
	}
	w.u32(static_cast<uint32_t>(fences.size()));
	for (const auto &fence : fences) {
		w.u64(fence->point());
		fds.push_back(fence->syncFile());
	}
	return {};
}

/* The fences of @message, from offset @r on; each descriptor must be a sync file. */
Result<std::vector<StreamHandover>> readFences(
	wire::Reader &r, IpcMessage &message, const char *what)
{
	const uint32_t count = r.u32();
	if (!r.ok() || count != message.fds.size())
		return malformed(what);
	std::vector<StreamHandover> fences;
	for (uint32_t i = 0; i < count; i++) {
		const uint64_t point = r.u64();
		auto fence = SyncFence::fromSyncFile(point, std::move(message.fds[i]));
		if (!fence)
			return fence.error();
		fences.push_back(std::make_shared<const SyncFence>(std::move(*fence)));
	}
	if (!r.done())
		return malformed(what);
	return fences;
}

} /* namespace */

Result<void> sendSetup(IpcEndpoint &endpoint, const std::vector<StreamConsumerSetup> &setups)
{
	wire::Writer w;
	w.u32(static_cast<uint32_t>(setups.size()));
	for (const auto &setup : setups) {
		w.str(setup.name);
		w.u32(static_cast<uint32_t>(setup.elements.size()));
		for (const auto &list : setup.elements)
			w.blob(list.encode());
		w.blob(setup.waiter.encode());
	}
	return endpoint.send(kStreamSetup, w.take(), {}, kStreamSendTimeout);
}

Result<std::vector<StreamConsumerSetup>> decodeSetup(const IpcMessage &message)
{
	wire::Reader r(message.payload.data(), message.payload.size());
	const uint32_t count = r.u32();
	if (!r.ok() || count == 0 || count > 64 || !message.fds.empty())
		return malformed("consumer set-up");
	std::vector<StreamConsumerSetup> setups;
	for (uint32_t s = 0; s < count; s++) {
		StreamConsumerSetup setup;
		setup.name = r.str();
		const uint32_t elements = r.u32();
		if (!r.ok() || elements == 0 || elements > IpcEndpoint::kMaxFds)
			return malformed("consumer set-up");
		for (uint32_t i = 0; i < elements; i++) {
			const std::vector<uint8_t> bytes = r.blob();
			if (!r.ok())
				return malformed("consumer set-up");
			auto list = AttrList::decode(bytes.data(), bytes.size());
			if (!list)
				return list.error();
			if (list->reconciled())
				return malformed("a consumer's list is reconciled");
			setup.elements.push_back(std::move(*list));
		}
		const std::vector<uint8_t> bytes = r.blob();
		if (!r.ok())
			return malformed("consumer set-up");
		auto waiter = SyncAttrList::decode(bytes.data(), bytes.size());
		if (!waiter)
			return waiter.error();
		setup.waiter = std::move(*waiter);
		setups.push_back(std::move(setup));
	}
	if (!r.done())
		return malformed("consumer set-up");
	return setups;
}

Result<void> sendPacketCreate(
	IpcEndpoint &endpoint, const StreamDown &packet, const std::vector<Permission> &granted)
{
	std::vector<UniqueFd> owned;
	std::vector<int> fds;
	wire::Writer w;
	w.u32(packet.id);
	w.u32(static_cast<uint32_t>(packet.elements.size()));
	for (size_t i = 0; i < packet.elements.size(); i++) {
		const SharedBuffer &element = *packet.elements[i];
		const Permission permission = std::min(granted[i], element.permission());
		auto fd = element.buffer().exportFd(permission == Permission::ReadWrite
				? Buffer::Access::ReadWrite
				: Buffer::Access::ReadOnly);
		if (!fd)
			return fd.error();
		owned.emplace_back(*fd);
		fds.push_back(*fd);
		w.u8(static_cast<uint8_t>(permission));
		w.blob(element.attributes().encode());
	}
	return endpoint.send(kStreamPacketCreate, w.take(), fds, kStreamSendTimeout);
}

Result<WirePacket> decodePacketCreate(const IpcMessage &message)
{
	wire::Reader r(message.payload.data(), message.payload.size());
	WirePacket packet;
	packet.id = r.u32();
	const uint32_t elements = r.u32();
	if (!r.ok() || packet.id >= StreamPool::kMaxPackets || elements == 0
		|| elements != message.fds.size())
		return malformed("packet");
	for (uint32_t i = 0; i < elements; i++) {
		const uint8_t permission = r.u8();
		const std::vector<uint8_t> bytes = r.blob();
		if (!r.ok() || permission > static_cast<uint8_t>(Permission::ReadWrite))
			return malformed("packet");
		auto list = AttrList::decode(bytes.data(), bytes.size());
		if (!list)
			return list.error();
		packet.lists.push_back(std::move(*list));
		packet.granted.push_back(static_cast<Permission>(permission));
	}
	if (!r.done())
		return malformed("packet");
	return packet;
}

Result<void> sendSetupDone(IpcEndpoint &endpoint, const SyncAttrList &producerWaiter)
{
	return endpoint.send(kStreamSetupDone, producerWaiter.encode(), {}, kStreamSendTimeout);
}

Result<SyncAttrList> decodeSetupDone(const IpcMessage &message)
{
	if (!message.fds.empty())
		return malformed("end of set-up");
	return SyncAttrList::decode(message.payload.data(), message.payload.size());
}

Result<void> sendPresent(IpcEndpoint &endpoint, const StreamDown &present)
{
	std::vector<int> fds;
	wire::Writer w;
	w.u32(present.id);
	w.u64(present.frame);
	w.u64(static_cast<uint64_t>(present.presentNs));
	StreamHandover merged;
	if (auto ok = writeFences(w, present.fences, fds, merged); !ok)
		return ok;
	return endpoint.send(kStreamPresent, w.take(), fds, kStreamSendTimeout);
}

Result<StreamDown> decodePresent(IpcMessage &&message)
{
	wire::Reader r(message.payload.data(), message.payload.size());
	StreamDown present{ StreamDown::Type::Present };
	present.id = r.u32();
	if (present.id >= StreamPool::kMaxPackets)
		return malformed("present");
	present.frame = r.u64();
	present.presentNs = static_cast<int64_t>(r.u64());
	auto fences = readFences(r, message, "present");
	if (!fences)
		return fences.error();
	present.fences = std::move(*fences);
	return present;
}

Result<void> sendRelease(IpcEndpoint &endpoint, const StreamUp &release)
{
	std::vector<int> fds;
	wire::Writer w;
	w.u32(release.id);
	StreamHandover merged;
	if (auto ok = writeFences(w, release.fences, fds, merged); !ok)
		return ok;
	return endpoint.send(kStreamRelease, w.take(), fds, kStreamSendTimeout);
}

Result<StreamUp> decodeRelease(IpcMessage &&message)
{
	wire::Reader r(message.payload.data(), message.payload.size());
	StreamUp release{ StreamUp::Type::Release };
	release.id = r.u32();
	if (release.id >= StreamPool::kMaxPackets)
		return malformed("release");
	auto fences = readFences(r, message, "release");
	if (!fences)
		return fences.error();
	release.fences = std::move(*fences);
	return release;
}

Result<void> sendDisconnect(IpcEndpoint &endpoint, const std::string &reason, bool reclaimed)
{
	wire::Writer w;
	w.str(reason.substr(0, 1024));
	w.u8(reclaimed);
	return endpoint.send(kStreamDisconnect, w.take(), {}, kStreamSendTimeout);
}

Result<WireDisconnect> decodeDisconnect(const IpcMessage &message)
{
	wire::Reader r(message.payload.data(), message.payload.size());
	WireDisconnect bye;
	bye.reason = r.str();
	const uint8_t reclaimed = r.u8();
	if (!r.done() || !message.fds.empty() || reclaimed > 1)
		return malformed("disconnect");
	bye.reclaimed = reclaimed;
	return bye;
}

Result<void> sendError(IpcEndpoint &endpoint, int error, const std::string &reason)
{
	wire::Writer w;
	w.u32(static_cast<uint32_t>(error));
	w.str(reason.substr(0, 1024));
	return endpoint.send(kStreamError, w.take(), {}, kStreamSendTimeout);
}

Result<StreamDown> decodeError(const IpcMessage &message)
{
	wire::Reader r(message.payload.data(), message.payload.size());
	StreamDown error{ StreamDown::Type::Error };
	error.error = static_cast<int>(r.u32());
	error.reason = r.str();
	if (!r.done() || !message.fds.empty() || error.error <= 0 || error.error > 4095)
		return malformed("error");
	return error;
}

} /* namespace vdla::detail */
