/* SPDX-License-Identifier: MIT */
/*
 * Waiting for a file descriptor to become readable (an IPC socket, a sync
 * file), with a timeout that a signal does not cut short.
 */
#pragma once

#include <chrono>
#include <string>

#include <vdla/result.h>

namespace vdla {

/*
 * Waits until @fd is readable. A zero @timeout polls; a negative one, or
 * one of a day or more, waits for ever. Errors: ETIMEDOUT with @late as
 * the reason, those of poll(2).
 */
Result<void> waitReadable(int fd, std::chrono::nanoseconds timeout, const std::string &late);

} /* namespace vdla */
