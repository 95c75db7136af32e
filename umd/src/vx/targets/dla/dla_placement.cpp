/* SPDX-License-Identifier: MIT */
/* Placement of a DLA task's tensors (dla_placement.h). */

#include "targets/dla/dla_placement.h"

#include "framework/target.h"
#include "targets/dla/dla_device.h"
#include "targets/dla/dla_sram_share.h"

#include <vdla/buffer.h>
#include <vdla/device.h>

#include <algorithm>
#include <map>
#include <set>

namespace vdla::vx::dla {

namespace {

/*
 * Whether @tensor may live in SRAM, which the CPU cannot reach: a virtual
 * tensor of @graph that only DLA nodes without callbacks use, and that is
 * not a graph parameter (the application could rebind or read it). An
 * internal tensor of the lowering is virtual and no node's parameter.
 */
bool runsOnDla(vx_node node)
{
	return node->placedOn && node->placedOn->kind() == NodeTarget::Dla;
}

bool sramCandidate(vx_graph graph, vx_tensor tensor)
{
	if (!tensor->isVirtual)
		return false;
	const vx_reference ref = reinterpret_cast<vx_reference>(tensor);
	for (vx_node node : graph->nodes) {
		for (vx_reference parameter : node->parameters) {
			if (parameter == ref && (!runsOnDla(node) || node->callback))
				return false;
		}
	}
	for (const auto &parameter : graph->parameters) {
		if (parameter.node->parameters[parameter.index] == ref)
			return false;
	}
	return true;
}

/* Whether every node of @graph that uses @tensor is one of @nodes. */
bool usedOnlyBy(vx_graph graph, vx_tensor tensor, const std::set<vx_node> &nodes)
{
	const vx_reference ref = reinterpret_cast<vx_reference>(tensor);
	for (vx_node node : graph->nodes) {
		if (nodes.count(node))
			continue;
		for (vx_reference parameter : node->parameters)
			if (parameter == ref)
				return false;
	}
	return true;
}

/* Region @r of at least @bytes, reusing the graph's buffer when it is big enough. */
std::shared_ptr<Buffer> region(vx_context context, std::vector<std::shared_ptr<Buffer>> &regions,
	size_t r, size_t bytes)
{
	if (r < regions.size() && regions[r] && regions[r]->size() >= bytes)
		return regions[r];
	Device *dla = device(context);
	if (!dla)
		return nullptr;
	auto created = Buffer::create(*dla, bytes, Buffer::Placement::Sram);
	if (!created)
		return nullptr;
	if (regions.size() <= r)
		regions.resize(r + 1);
	regions[r] = std::move(created.value());
	return regions[r];
}

} /* namespace */

std::vector<std::vector<size_t>> unitParents(const std::vector<Unit> &units)
{
	std::vector<std::vector<size_t>> parents(units.size());
	for (size_t u = 0; u < units.size(); u++) {
		const auto &reads = units[u].reads;
		for (size_t p = 0; p < u; p++)
			if (std::find(reads.begin(), reads.end(), units[p].writes) != reads.end())
				parents[u].push_back(p);
	}
	return parents;
}

vx_status placeTaskTensors(vx_graph graph, const Lowering &lowering,
	const std::vector<std::vector<size_t>> &parents, std::vector<std::shared_ptr<Buffer>> &regions,
	std::vector<std::shared_ptr<Buffer>> &buffers)
{
	const std::vector<Unit> &units = lowering.units();
	/* The units that touch each slot, ascending, and whether the first writes it. */
	std::map<uint16_t, std::vector<size_t>> touching;
	std::map<uint16_t, bool> firstWrites;
	std::set<vx_node> nodes;
	for (size_t u = 0; u < units.size(); u++) {
		nodes.insert(units[u].nodes.begin(), units[u].nodes.end());
		std::set<uint16_t> slots(units[u].reads.begin(), units[u].reads.end());
		slots.insert(units[u].writes);
		for (uint16_t slot : slots) {
			if (slot == kConstantSlot)
				continue;
			if (!touching.count(slot))
				firstWrites[slot] = units[u].writes == slot
					&& std::find(units[u].reads.begin(), units[u].reads.end(), slot)
						== units[u].reads.end();
			touching[slot].push_back(u);
		}
	}

	const bool sram = featureEnabled("VDLA_VX_SRAM");
	std::vector<uint16_t> shareable;
	std::vector<ShareableTensor> lifetimes;
	for (const auto &[slot, users] : touching) {
		vx_tensor tensor = lowering.tensors()[slot - 1];
		/* No SRAM buffer of an earlier plan is left (DlaTarget::release()). */
		const bool candidate = sram && sramCandidate(graph, tensor);
		if (candidate && firstWrites[slot] && usedOnlyBy(graph, tensor, nodes)) {
			shareable.push_back(slot);
			lifetimes.push_back({ std::max<size_t>(tensor->byteSize(), 1), users });
			continue;
		}
		vx_status status = placeOnDevice(
			tensor, candidate ? Buffer::Placement::Sram : Buffer::Placement::Memory);
		if (status != VX_SUCCESS)
			return status;
		buffers.push_back(bufferOf(tensor));
	}
	if (shareable.empty())
		return VX_SUCCESS;

	const SramSharing sharing = shareSram(parents, lifetimes);
	std::vector<std::shared_ptr<Buffer>> taken(sharing.regionBytes.size());
	for (size_t r = 0; r < taken.size(); r++)
		taken[r] = region(graph->context, regions, r, sharing.regionBytes[r]);
	for (size_t t = 0; t < shareable.size(); t++) {
		vx_tensor tensor = lowering.tensors()[shareable[t] - 1];
		const std::shared_ptr<Buffer> &buffer = taken[sharing.regionOf[t]];
		if (buffer) {
			setBuffer(tensor, buffer);
			tensor->dropHostData();
		} else {
			/* SRAM is shared by every process: when it is full,
			 * memory does the same work a little slower. */
			vx_status status = placeOnDevice(tensor, Buffer::Placement::Memory);
			if (status != VX_SUCCESS)
				return status;
		}
		buffers.push_back(bufferOf(tensor));
	}
	return VX_SUCCESS;
}

void releaseVirtualTensors(vx_graph graph, bool all)
{
	for (vx_node node : graph->nodes) {
		for (vx_reference ref : node->parameters) {
			if (!ref || ref->type != VX_TYPE_TENSOR)
				continue;
			vx_tensor tensor = reinterpret_cast<vx_tensor>(ref);
			if (tensor->root)
				tensor = tensor->root;
			if (!tensor->isVirtual || tensor->scope != graph)
				continue;
			const std::shared_ptr<Buffer> buffer = bufferOf(tensor);
			if (all) {
				tensor->placed.reset();
				tensor->dropHostData();
			} else if (buffer && buffer->placement() == Buffer::Placement::Sram) {
				tensor->placed.reset();
			}
		}
	}
}

} /* namespace vdla::vx::dla */
