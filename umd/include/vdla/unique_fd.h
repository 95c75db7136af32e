/* SPDX-License-Identifier: MIT */
/* vdla::UniqueFd: a file descriptor with one owner, as IPC messages carry them. */
#pragma once

#include <unistd.h>

#include <utility>

namespace vdla {

/* Sole owner of a file descriptor, closed on destruction. */
class UniqueFd
{
public:
	UniqueFd() = default;
	explicit UniqueFd(int fd)
		: fd_(fd)
	{
	}
	UniqueFd(UniqueFd &&other) noexcept
		: fd_(std::exchange(other.fd_, -1))
	{
	}
	UniqueFd &operator=(UniqueFd &&other) noexcept
	{
		reset(std::exchange(other.fd_, -1));
		return *this;
	}
	UniqueFd(const UniqueFd &) = delete;
	UniqueFd &operator=(const UniqueFd &) = delete;
	~UniqueFd() { reset(); }

	int get() const { return fd_; }
	/* Gives up ownership: the caller closes the descriptor. */
	int release() { return std::exchange(fd_, -1); }
	bool isValid() const { return fd_ >= 0; }
	void reset(int fd = -1)
	{
		if (fd_ >= 0)
			::close(fd_);
		fd_ = fd;
	}

private:
	int fd_ = -1;
};

} /* namespace vdla */
