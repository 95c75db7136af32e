/* SPDX-License-Identifier: MIT */
/*
 * Stream messages on an IpcEndpoint, between a StreamIpcSrc and a
 * StreamIpcDst (docs/streams.md, "Across processes"). Each message is one
 * IpcEndpoint message of its own kind; buffers travel as dma-bufs and
 * fences as sync files beside it. Decoders check everything: the other
 * process may be hostile or broken.
 */
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <vdla/ipc.h>
#include <vdla/result.h>

#include "stream_messages.h"

namespace vdla::detail {

/*
 * How long a block waits for the other process to make room for a
 * message, under the stream lock: a process that has not read for this
 * long is cut off as hung.
 */
constexpr std::chrono::milliseconds kStreamSendTimeout{ 1000 };

enum StreamWireKind : uint32_t {
	kStreamSetup = 0x7664a010,
	kStreamPacketCreate = 0x7664a011,
	kStreamSetupDone = 0x7664a012,
	kStreamPresent = 0x7664a013,
	kStreamRelease = 0x7664a014,
	kStreamDisconnect = 0x7664a015,
	kStreamError = 0x7664a016,
};

Result<void> sendSetup(IpcEndpoint &endpoint, const std::vector<StreamConsumerSetup> &setups);
Result<std::vector<StreamConsumerSetup>> decodeSetup(const IpcMessage &message);

/* @granted: the permission each element goes with. */
Result<void> sendPacketCreate(
	IpcEndpoint &endpoint, const StreamDown &packet, const std::vector<Permission> &granted);
struct WirePacket {
	uint32_t id = 0;
	std::vector<AttrList> lists;
	std::vector<Permission> granted;
};
/* The lists and permissions; the dma-bufs stay in @message.fds, one per element. */
Result<WirePacket> decodePacketCreate(const IpcMessage &message);

Result<void> sendSetupDone(IpcEndpoint &endpoint, const SyncAttrList &producerWaiter);
Result<SyncAttrList> decodeSetupDone(const IpcMessage &message);

Result<void> sendPresent(IpcEndpoint &endpoint, const StreamDown &present);
Result<StreamDown> decodePresent(IpcMessage &&message);

Result<void> sendRelease(IpcEndpoint &endpoint, const StreamUp &release);
Result<StreamUp> decodeRelease(IpcMessage &&message);

/* @reclaimed: as StreamDown::reclaimed (ignored upstream). */
Result<void> sendDisconnect(
	IpcEndpoint &endpoint, const std::string &reason, bool reclaimed = false);
struct WireDisconnect {
	std::string reason;
	bool reclaimed = false;
};
Result<WireDisconnect> decodeDisconnect(const IpcMessage &message);

Result<void> sendError(IpcEndpoint &endpoint, int error, const std::string &reason);
Result<StreamDown> decodeError(const IpcMessage &message);

} /* namespace vdla::detail */
