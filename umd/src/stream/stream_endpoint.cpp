/* SPDX-License-Identifier: MIT */
/* Checks and sync lists shared by the producer and the consumers. */
#include "stream_endpoint.h"

#include <cerrno>

#include <vdla/ipc.h>

#include "stream_messages.h"

namespace vdla::detail {

Result<void> checkEndpointConfig(const StreamEndpointConfig &config)
{
	if (config.elements.empty() || config.elements.size() > IpcEndpoint::kMaxFds)
		return Error(EINVAL,
			"a stream endpoint lists 1 to " + std::to_string(IpcEndpoint::kMaxFds)
				+ " elements; " + config.name + " lists "
				+ std::to_string(config.elements.size()));
	for (size_t i = 0; i < config.elements.size(); i++)
		if (config.elements[i].reconciled())
			return Error(EINVAL,
				config.name + " gives a reconciled list for " + elementName(i)
					+ ": endpoints say what they need");
	if (config.engine.kind == Accessor::Kind::Other)
		return Error(EINVAL,
			"a stream endpoint's engine is the cpu or a vDLA, not "
				+ config.engine.toString());
	return {};
}

SyncAttrList signalerList(const StreamEndpointConfig &config)
{
	SyncAttrList list(config.name);
	(void)list.setRequiredPermission(SyncPermission::SignalOnly);
	(void)list.setAccessor(config.engine);
	(void)list.setRequireTimestamps(true);
	return list;
}

SyncAttrList waiterList(const StreamEndpointConfig &config)
{
	SyncAttrList list(config.name);
	(void)list.setRequiredPermission(SyncPermission::WaitOnly);
	(void)list.setAccessor(config.engine);
	(void)list.setNeedCpuWait(config.engine.kind == Accessor::Kind::Cpu);
	return list;
}

Result<std::unique_ptr<SyncObject>> allocateSync(Device &device, const SyncAttrList &signaler,
	const std::vector<const SyncAttrList *> &waiters)
{
	std::vector<const SyncAttrList *> lists{ &signaler };
	lists.insert(lists.end(), waiters.begin(), waiters.end());
	auto merged = reconcileSync(lists, signaler.owner() + "'s fences");
	if (!merged)
		return merged.error();
	if (!merged->conflicts.empty())
		return Error(EBADMSG,
			"the fences of " + signaler.owner()
				+ " do not reconcile: " + merged->conflicts.front().message());
	return SyncObject::allocate(device, *merged->list);
}

std::string describeConflicts(const std::vector<AttrConflict> &conflicts)
{
	std::string text = conflicts.front().message();
	if (conflicts.size() > 1)
		text += " (and " + std::to_string(conflicts.size() - 1) + " more)";
	return text;
}

} /* namespace vdla::detail */
