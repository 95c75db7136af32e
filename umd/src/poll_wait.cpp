/* SPDX-License-Identifier: MIT */
#include "poll_wait.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <climits>

namespace vdla {

Result<void> waitReadable(int fd, std::chrono::nanoseconds timeout, const std::string &late)
{
	using namespace std::chrono;
	/* A day or more is for ever: the deadline must not overflow. */
	const bool forever = timeout < nanoseconds(0) || timeout >= hours(24);
	const auto deadline = steady_clock::now() + (forever ? nanoseconds(0) : timeout);
	for (;;) {
		int ms = -1;
		if (!forever) {
			const auto left = deadline - steady_clock::now();
			/* Rounded up: a wait of 100 us is not a poll. */
			ms = left <= nanoseconds(0)
				? 0
				: int(std::min<int64_t>(ceil<milliseconds>(left).count(), INT_MAX));
		}
		pollfd p = { fd, POLLIN, 0 };
		const int n = poll(&p, 1, ms);
		if (n > 0)
			return {};
		if (n < 0 && errno != EINTR)
			return Error(errno, "cannot wait: poll failed");
		if (n == 0 && ms == 0)
			return Error(ETIMEDOUT, late);
	}
}

} /* namespace vdla */
