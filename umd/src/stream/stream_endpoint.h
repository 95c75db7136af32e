/* SPDX-License-Identifier: MIT */
/* What the producer and the consumers both do: check configs, build sync lists. */
#pragma once

#include <string>
#include <vector>

#include <vdla/attr_list.h>
#include <vdla/result.h>
#include <vdla/stream.h>
#include <vdla/sync.h>

namespace vdla::detail {

/* EINVAL unless @config has 1 to kMaxFds unreconciled lists and a cpu or dla engine. */
Result<void> checkEndpointConfig(const StreamEndpointConfig &config);

/* The endpoint signals its fences with its engine, stamped with their time. */
SyncAttrList signalerList(const StreamEndpointConfig &config);
/* The endpoint waits for the other side's fences with its engine. */
SyncAttrList waiterList(const StreamEndpointConfig &config);

/*
 * Reconciles @signaler with @waiters and allocates the sync object on
 * @device; EBADMSG with the first conflict when they do not reconcile.
 */
Result<std::unique_ptr<SyncObject>> allocateSync(Device &device, const SyncAttrList &signaler,
	const std::vector<const SyncAttrList *> &waiters);

/* The first conflict and how many more: "Tensor.Dims must ... (and 2 more)". */
std::string describeConflicts(const std::vector<AttrConflict> &conflicts);

} /* namespace vdla::detail */
