/* SPDX-License-Identifier: MIT */
/* Region assignment for SRAM tensors (dla_sram_share.h). */

#include "targets/dla/dla_sram_share.h"

#include <algorithm>
#include <numeric>

namespace vdla::vx::dla {

namespace {

/* ancestors[u][a]: unit a completes before unit u starts. */
std::vector<std::vector<bool>> ancestorsOf(const std::vector<std::vector<size_t>> &parents)
{
	const size_t count = parents.size();
	std::vector<std::vector<bool>> ancestors(count, std::vector<bool>(count, false));
	for (size_t u = 0; u < count; u++) {
		for (size_t p : parents[u]) {
			if (p >= u)
				continue; /* Not a dependency the task can have. */
			ancestors[u][p] = true;
			for (size_t a = 0; a < p; a++)
				if (ancestors[p][a])
					ancestors[u][a] = true;
		}
	}
	return ancestors;
}

/* Whether a region of @candidate bytes suits @bytes better than one of
 * @current: the smallest that fits, else the largest, which grows least. */
bool betterFit(size_t candidate, size_t current, size_t bytes)
{
	const bool fits = candidate >= bytes, currentFits = current >= bytes;
	if (fits != currentFits)
		return fits;
	return fits ? candidate < current : candidate > current;
}

} /* namespace */

SramSharing shareSram(
	const std::vector<std::vector<size_t>> &parents, const std::vector<ShareableTensor> &tensors)
{
	const std::vector<std::vector<bool>> ancestors = ancestorsOf(parents);
	const auto before = [&](size_t unit, size_t later) {
		return later < ancestors.size() && unit < later && ancestors[later][unit];
	};

	/* Tensors by their writer, so that each region's last tenant is its latest. */
	std::vector<size_t> order(tensors.size());
	std::iota(order.begin(), order.end(), 0);
	std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
		const size_t ua = tensors[a].units.empty() ? 0 : tensors[a].units.front();
		const size_t ub = tensors[b].units.empty() ? 0 : tensors[b].units.front();
		return ua < ub;
	});

	SramSharing sharing;
	sharing.regionOf.assign(tensors.size(), 0);
	std::vector<size_t> lastTenant;
	for (size_t t : order) {
		const ShareableTensor &tensor = tensors[t];
		/* Free regions: every unit of their last tenant precedes our writer. */
		size_t best = lastTenant.size();
		for (size_t r = 0; r < lastTenant.size() && !tensor.units.empty(); r++) {
			const std::vector<size_t> &previous = tensors[lastTenant[r]].units;
			const bool free = std::all_of(previous.begin(), previous.end(), [&](size_t u) {
				return before(u, tensor.units.front());
			});
			if (free && (best == lastTenant.size()
					     || betterFit(sharing.regionBytes[r],
						     sharing.regionBytes[best], tensor.bytes)))
				best = r;
		}
		if (best == lastTenant.size()) {
			lastTenant.push_back(t);
			sharing.regionBytes.push_back(tensor.bytes);
		} else {
			lastTenant[best] = t;
			sharing.regionBytes[best] = std::max(sharing.regionBytes[best], tensor.bytes);
		}
		sharing.regionOf[t] = best;
	}
	return sharing;
}

} /* namespace vdla::vx::dla */
