/* SPDX-License-Identifier: MIT */
/*
 * SRAM sharing between the tensors of one DLA task (dla_sram_share.h):
 * known answers for a chain and a diamond, and on random task graphs the
 * rule itself, checked with a reachability search of its own: two tensors
 * share a region only if every unit of one completes before the other's
 * writer starts.
 */
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "targets/dla/dla_sram_share.h"

using vdla::vx::dla::ShareableTensor;
using vdla::vx::dla::shareSram;
using vdla::vx::dla::SramSharing;

namespace {

using Parents = std::vector<std::vector<size_t>>;

/* Whether @unit is reached walking parents from @from (and is not @from). */
bool precedes(const Parents &parents, size_t unit, size_t from)
{
	std::vector<size_t> stack(parents[from].begin(), parents[from].end());
	std::set<size_t> seen;
	while (!stack.empty()) {
		size_t u = stack.back();
		stack.pop_back();
		if (u == unit)
			return true;
		if (seen.insert(u).second)
			stack.insert(stack.end(), parents[u].begin(), parents[u].end());
	}
	return false;
}

bool allPrecede(const Parents &parents, const ShareableTensor &earlier, const ShareableTensor &later)
{
	for (size_t u : earlier.units)
		if (!precedes(parents, u, later.units.front()))
			return false;
	return true;
}

void expectSafe(const Parents &parents, const std::vector<ShareableTensor> &tensors,
	const SramSharing &sharing)
{
	ASSERT_EQ(sharing.regionOf.size(), tensors.size());
	for (size_t a = 0; a < tensors.size(); a++) {
		ASSERT_LT(sharing.regionOf[a], sharing.regionBytes.size());
		EXPECT_GE(sharing.regionBytes[sharing.regionOf[a]], tensors[a].bytes) << "tensor " << a;
		for (size_t b = a + 1; b < tensors.size(); b++) {
			if (sharing.regionOf[a] != sharing.regionOf[b])
				continue;
			EXPECT_TRUE(allPrecede(parents, tensors[a], tensors[b])
				|| allPrecede(parents, tensors[b], tensors[a]))
				<< "tensors " << a << " and " << b << " overlap in time";
		}
	}
}

} /* namespace */

TEST(SramShare, AChainAlternatesBetweenTwoRegions)
{
	/* Unit i writes tensor i, unit i + 1 reads it. */
	Parents parents = { {}, { 0 }, { 1 }, { 2 }, { 3 }, { 4 } };
	std::vector<ShareableTensor> tensors;
	for (size_t i = 0; i < 5; i++)
		tensors.push_back({ 100 + i, { i, i + 1 } });
	SramSharing sharing = shareSram(parents, tensors);
	expectSafe(parents, tensors, sharing);
	EXPECT_EQ(sharing.regionBytes.size(), 2u);
	for (size_t i = 0; i < 5; i++)
		EXPECT_EQ(sharing.regionOf[i], i % 2) << "tensor " << i;
	EXPECT_EQ(sharing.regionBytes[0], 104u);
	EXPECT_EQ(sharing.regionBytes[1], 103u);
}

TEST(SramShare, ParallelBranchesKeepTheirRegions)
{
	/* 0 writes a; 1 and 2 read a, write b and c; 3 reads b and c, writes d. */
	Parents parents = { {}, { 0 }, { 0 }, { 1, 2 }, { 3 } };
	std::vector<ShareableTensor> tensors = {
		{ 64, { 0, 1, 2 } }, { 64, { 1, 3 } }, { 64, { 2, 3 } }, { 64, { 3, 4 } },
	};
	SramSharing sharing = shareSram(parents, tensors);
	expectSafe(parents, tensors, sharing);
	EXPECT_EQ(sharing.regionBytes.size(), 3u);
	EXPECT_NE(sharing.regionOf[1], sharing.regionOf[2]) << "b and c are live together";
	EXPECT_EQ(sharing.regionOf[3], sharing.regionOf[0]) << "d reuses a, read before 3 starts";
}

TEST(SramShare, ATensorTakesTheSmallestFreeRegionThatFits)
{
	/* Units 0 and 1 write big and small; 2 reads both; 3 writes a small one. */
	Parents parents = { {}, {}, { 0, 1 }, { 2 } };
	std::vector<ShareableTensor> tensors = {
		{ 4096, { 0, 2 } }, { 256, { 1, 2 } }, { 200, { 3 } },
	};
	SramSharing sharing = shareSram(parents, tensors);
	expectSafe(parents, tensors, sharing);
	EXPECT_EQ(sharing.regionOf[2], sharing.regionOf[1]);
	EXPECT_EQ(sharing.regionBytes[sharing.regionOf[1]], 256u) << "no region grew";
}

TEST(SramShare, RandomTaskGraphsNeverOverlapTwoTenants)
{
	std::mt19937 rng(1234);
	size_t shared = 0;
	for (int trial = 0; trial < 300; trial++) {
		const size_t units = 2 + rng() % 24;
		Parents parents(units);
		for (size_t u = 1; u < units; u++)
			for (size_t p = 0; p < u; p++)
				if (rng() % 4 == 0)
					parents[u].push_back(p);
		/* Each unit writes one tensor, read by some later units that wait for it. */
		std::vector<ShareableTensor> tensors;
		for (size_t w = 0; w < units; w++) {
			ShareableTensor t{ size_t(1 + rng() % 5000), { w } };
			for (size_t r = w + 1; r < units; r++) {
				const auto &p = parents[r];
				if (std::find(p.begin(), p.end(), w) != p.end())
					t.units.push_back(r);
			}
			tensors.push_back(t);
		}
		SramSharing sharing = shareSram(parents, tensors);
		expectSafe(parents, tensors, sharing);
		if (HasFailure())
			return;
		shared += tensors.size() - sharing.regionBytes.size();
	}
	EXPECT_GT(shared, 0u) << "the graphs leave room to share";
}
