/* SPDX-License-Identifier: MIT */
/* What the benches' figures are made of: durations in microseconds, percentiles. */
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace bench {

inline double micros(std::chrono::steady_clock::duration d)
{
	return std::chrono::duration<double, std::micro>(d).count();
}

/* The @p-th quantile (0 to 1) of @v, 0 for no samples. */
inline double percentile(std::vector<double> v, double p)
{
	if (v.empty())
		return 0;
	std::sort(v.begin(), v.end());
	return v[std::min(v.size() - 1, static_cast<size_t>(p * double(v.size())))];
}

} /* namespace bench */
